package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/seedengine/seedengine"
)

// ConsoleSessionService stores operator console sessions in
// console_sessions, on the writer: a session is read on every console
// request, and SQLite's reader pool could lag a moment behind a sign-in
// or a sign-out on the writer.
type ConsoleSessionService struct {
	db *DB
}

var _ seedengine.ConsoleSessionService = (*ConsoleSessionService)(nil)

// NewConsoleSessionService returns a ConsoleSessionService on db.
func NewConsoleSessionService(db *DB) *ConsoleSessionService { return &ConsoleSessionService{db: db} }

// CreateConsoleSession stores s. ECONFLICT when its ID exists.
func (s *ConsoleSessionService) CreateConsoleSession(ctx context.Context, cs *seedengine.ConsoleSession) error {
	_, err := s.db.writer.ExecContext(ctx,
		`INSERT INTO console_sessions (id, key_id, csrf, created_at, seen_at, expires_at) VALUES ($1, $2, $3, $4, $5, $6)`,
		cs.ID, cs.KeyID, cs.CSRF, s.db.timeArg(cs.CreatedAt), s.db.timeArg(cs.SeenAt), s.db.timeArg(cs.ExpiresAt))
	if isUniqueViolation(err) {
		return seedengine.Errorf(seedengine.ECONFLICT, "console session exists")
	}
	if err != nil {
		return fmt.Errorf("create console session: %w", err)
	}
	return nil
}

// FindConsoleSession returns the session with id. ENOTFOUND when there is
// none.
func (s *ConsoleSessionService) FindConsoleSession(ctx context.Context, id string) (*seedengine.ConsoleSession, error) {
	var (
		cs                     seedengine.ConsoleSession
		created, seen, expires scanTime
	)
	err := s.db.writer.QueryRowContext(ctx,
		`SELECT id, key_id, csrf, created_at, seen_at, expires_at FROM console_sessions WHERE id = $1`, id).
		Scan(&cs.ID, &cs.KeyID, &cs.CSRF, &created, &seen, &expires)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, seedengine.Errorf(seedengine.ENOTFOUND, "no console session")
	}
	if err != nil {
		return nil, fmt.Errorf("find console session: %w", err)
	}
	cs.CreatedAt, cs.SeenAt, cs.ExpiresAt = created.Time, seen.Time, expires.Time
	return &cs, nil
}

// TouchConsoleSession records a request at seen. ENOTFOUND when the
// session is gone.
func (s *ConsoleSessionService) TouchConsoleSession(ctx context.Context, id string, seen time.Time) error {
	res, err := s.db.writer.ExecContext(ctx, `UPDATE console_sessions SET seen_at = $1 WHERE id = $2`, s.db.timeArg(seen), id)
	if err != nil {
		return fmt.Errorf("touch console session: %w", err)
	}
	if n, err := res.RowsAffected(); err == nil && n == 0 {
		return seedengine.Errorf(seedengine.ENOTFOUND, "no console session")
	}
	return nil
}

// DeleteConsoleSession removes a session; none is not an error.
func (s *ConsoleSessionService) DeleteConsoleSession(ctx context.Context, id string) error {
	if _, err := s.db.writer.ExecContext(ctx, `DELETE FROM console_sessions WHERE id = $1`, id); err != nil {
		return fmt.Errorf("delete console session: %w", err)
	}
	return nil
}

// DeleteConsoleSessions removes the sessions past their absolute end or
// idle since before idleSince.
func (s *ConsoleSessionService) DeleteConsoleSessions(ctx context.Context, now, idleSince time.Time) (int, error) {
	res, err := s.db.writer.ExecContext(ctx, `DELETE FROM console_sessions WHERE expires_at < $1 OR seen_at < $2`,
		s.db.timeArg(now), s.db.timeArg(idleSince))
	if err != nil {
		return 0, fmt.Errorf("delete expired console sessions: %w", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, fmt.Errorf("delete expired console sessions: %w", err)
	}
	return int(n), nil
}
