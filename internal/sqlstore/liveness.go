package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/seedengine/seedengine"
)

// Liveness result list limits.
const (
	defaultLivenessLimit = 50
	maxLivenessLimit     = 1000
)

// LivenessService stores liveness results: the history in liveness_results
// and the latest verdict per registrable domain in domain_liveness.
type LivenessService struct {
	db *DB
}

var _ seedengine.LivenessService = (*LivenessService)(nil)

// NewLivenessService returns a LivenessService on db.
func NewLivenessService(db *DB) *LivenessService { return &LivenessService{db: db} }

// RecordLivenessResults stores rs as the results of batch batchID in one
// transaction: each result replaces the batch's earlier result for its
// domain, and a result with a verdict becomes the domain's latest liveness
// unless the domain has one checked later. EINVALID for an empty batch id,
// a result without a domain or with an unknown verdict.
func (s *LivenessService) RecordLivenessResults(ctx context.Context, batchID string, rs []seedengine.LivenessResult) error {
	if batchID == "" {
		return seedengine.FieldErrorf("batch_id", "batch id is required")
	}
	for _, r := range rs {
		if r.Domain == "" {
			return seedengine.FieldErrorf("domain", "a liveness result needs a domain")
		}
		if r.Verdict != "" && !r.Verdict.Valid() {
			return seedengine.FieldErrorf("verdict", "verdict must be one of alive, blocked, dead, parked")
		}
	}
	if len(rs) == 0 {
		return nil
	}
	err := s.db.inTx(ctx, func(tx *sql.Tx) error {
		history, err := tx.PrepareContext(ctx, `INSERT INTO liveness_results
			(batch_id, domain_id, domain, verdict, reason, checked_at, result)
			VALUES ($1, $2, $3, $4, $5, $6, $7)
			ON CONFLICT (batch_id, domain) DO UPDATE SET
				domain_id = excluded.domain_id, verdict = excluded.verdict, reason = excluded.reason,
				checked_at = excluded.checked_at, result = excluded.result`)
		if err != nil {
			return err
		}
		defer func() { _ = history.Close() }()
		latest, err := tx.PrepareContext(ctx, `INSERT INTO domain_liveness
			(domain, batch_id, verdict, reason, detail, checked_at)
			VALUES ($1, $2, $3, $4, $5, $6)
			ON CONFLICT (domain) DO UPDATE SET
				batch_id = excluded.batch_id, verdict = excluded.verdict, reason = excluded.reason,
				detail = excluded.detail, checked_at = excluded.checked_at
			WHERE excluded.checked_at >= domain_liveness.checked_at`)
		if err != nil {
			return err
		}
		defer func() { _ = latest.Close() }()
		for _, r := range rs {
			raw, err := json.Marshal(r)
			if err != nil {
				return fmt.Errorf("encode result of %q: %w", r.Domain, err)
			}
			var domainID any
			if r.DomainID != "" {
				domainID = r.DomainID
			}
			checked := r.CheckedAt
			if checked.IsZero() {
				checked = nowUTC()
			}
			if _, err := history.ExecContext(ctx, batchID, domainID, r.Domain, string(r.Verdict), r.Reason,
				s.db.timeArg(checked), string(raw)); err != nil {
				return fmt.Errorf("store result of %q: %w", r.Domain, err)
			}
			if r.Verdict == "" {
				continue
			}
			if _, err := latest.ExecContext(ctx, r.Domain, batchID, string(r.Verdict), r.Reason, r.Detail,
				s.db.timeArg(checked)); err != nil {
				return fmt.Errorf("store latest liveness of %q: %w", r.Domain, err)
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("record %d liveness results of batch %q: %w", len(rs), seedengine.Truncate(batchID, 64), err)
	}
	return nil
}

// FindLivenessResults returns the results of batch f.BatchID in domain
// order (byte order on both engines), optionally of one verdict, and the
// total number matching. Limit defaults to 50 and is capped at 1,000.
// EINVALID for a missing batch id or an unknown verdict.
func (s *LivenessService) FindLivenessResults(ctx context.Context, f seedengine.LivenessFilter) ([]*seedengine.LivenessResult, int, error) {
	if f.BatchID == "" {
		return nil, 0, seedengine.FieldErrorf("batch_id", "batch id is required")
	}
	if f.Verdict != "" && !f.Verdict.Valid() {
		return nil, 0, seedengine.FieldErrorf("verdict", "verdict must be one of alive, blocked, dead, parked")
	}
	cond := ` FROM liveness_results WHERE batch_id = $1`
	args := []any{f.BatchID}
	if f.Verdict != "" {
		args = append(args, string(f.Verdict))
		cond += ` AND verdict = $2`
	}
	limit, offset := pageBounds(f.Limit, f.Offset, defaultLivenessLimit, maxLivenessLimit)
	query := `SELECT result, COUNT(*) OVER ()` + cond + ` ORDER BY domain LIMIT $` +
		strconv.Itoa(len(args)+1) + ` OFFSET $` + strconv.Itoa(len(args)+2)
	rows, err := s.db.reader.QueryContext(ctx, query, append(args, limit, offset)...)
	if err != nil {
		return nil, 0, fmt.Errorf("find liveness results: %w", err)
	}
	defer func() { _ = rows.Close() }()
	items := []*seedengine.LivenessResult{}
	total := 0
	for rows.Next() {
		var raw []byte
		if err := rows.Scan(&raw, &total); err != nil {
			return nil, 0, fmt.Errorf("find liveness results: %w", err)
		}
		var r seedengine.LivenessResult
		if err := json.Unmarshal(raw, &r); err != nil {
			return nil, 0, fmt.Errorf("find liveness results: decode: %w", err)
		}
		items = append(items, &r)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, fmt.Errorf("find liveness results: %w", err)
	}
	if len(items) == 0 && offset > 0 {
		if err := s.db.reader.QueryRowContext(ctx, `SELECT COUNT(*)`+cond, args...).Scan(&total); err != nil {
			return nil, 0, fmt.Errorf("find liveness results: count: %w", err)
		}
	}
	return items, total, nil
}
