package seedengine

import (
	"context"
	"time"
)

// ConsoleSession is a person signed in to the operator console with an
// API key. The browser holds only a random session secret in a cookie;
// the store keeps its SHA-256 (ID), never the secret and never the key's
// token, so a leaked table signs nobody in.
type ConsoleSession struct {
	ID    string // hex SHA-256 of the cookie's secret
	KeyID string // the API key signed in with; its scope rules the session
	// CSRF is the token every form of the session carries.
	CSRF      string
	CreatedAt time.Time
	SeenAt    time.Time // last request
	ExpiresAt time.Time // absolute end; the idle limit is the console's
}

// ConsoleSessionService stores console sessions.
type ConsoleSessionService interface {
	// CreateConsoleSession stores s. ECONFLICT when its ID exists.
	CreateConsoleSession(ctx context.Context, s *ConsoleSession) error

	// FindConsoleSession returns the session with id. ENOTFOUND when
	// there is none (expired ones may still be returned: the caller
	// checks the times).
	FindConsoleSession(ctx context.Context, id string) (*ConsoleSession, error)

	// TouchConsoleSession records a request of session id at seen.
	// ENOTFOUND when there is none.
	TouchConsoleSession(ctx context.Context, id string, seen time.Time) error

	// DeleteConsoleSession removes session id; none is not an error.
	DeleteConsoleSession(ctx context.Context, id string) error

	// DeleteConsoleSessions removes the sessions that expired before now,
	// or were last seen before idleSince, and returns how many.
	DeleteConsoleSessions(ctx context.Context, now, idleSince time.Time) (int, error)
}
