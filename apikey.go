package seedengine

import (
	"context"
	"time"
)

// Scope is what an API key may do. Scopes are ordered: admin includes
// write, write includes read.
type Scope string

// API key scopes.
const (
	ScopeRead  Scope = "read"  // GET routes
	ScopeWrite Scope = "write" // create and modify
	ScopeAdmin Scope = "admin" // promote, delete, sync, key management
)

// Valid reports whether s is a known scope.
func (s Scope) Valid() bool { return s.rank() > 0 }

// Allows reports whether a key with scope s may use a route that needs scope
// need.
func (s Scope) Allows(need Scope) bool { return s.rank() >= need.rank() && s.rank() > 0 }

func (s Scope) rank() int {
	switch s {
	case ScopeRead:
		return 1
	case ScopeWrite:
		return 2
	case ScopeAdmin:
		return 3
	}
	return 0
}

// ParseScope returns the scope named by s or an EINVALID error naming the
// "scope" field.
func ParseScope(s string) (Scope, error) {
	sc := Scope(s)
	if !sc.Valid() {
		return "", FieldErrorf("scope", "scope must be one of read, write, admin")
	}
	return sc, nil
}

// APIKey is a credential for the HTTP API. Only a hash of its secret token is
// stored; the token is shown once, when the key is created.
type APIKey struct {
	ID        string     `json:"id"`
	Name      string     `json:"name"`
	Scope     Scope      `json:"scope"`
	Prefix    string     `json:"prefix"` // first characters of the token, for recognising a key
	CreatedAt time.Time  `json:"created_at"`
	RevokedAt *time.Time `json:"revoked_at,omitempty"`
}

// Active reports whether the key has not been revoked.
func (k *APIKey) Active() bool { return k.RevokedAt == nil }

// ValidateAPIKeyName accepts 1 to 100 printable characters.
func ValidateAPIKeyName(name string) error {
	if name == "" {
		return FieldErrorf("name", "name is required")
	}
	if len(name) > 100 {
		return FieldErrorf("name", "name must be at most 100 bytes")
	}
	for _, r := range name {
		if r < 0x20 || r == 0x7f {
			return FieldErrorf("name", "name must not contain control characters")
		}
	}
	return nil
}

// APIKeyService manages API keys.
type APIKeyService interface {
	// CreateAPIKey creates a key and returns it with its secret token, which
	// is not stored and cannot be recovered. EINVALID for a bad name or
	// scope.
	CreateAPIKey(ctx context.Context, name string, scope Scope) (*APIKey, string, error)

	// FindAPIKeyByToken returns the active key whose token is token.
	// EUNAUTHORIZED when no active key matches.
	FindAPIKeyByToken(ctx context.Context, token string) (*APIKey, error)

	// FindAPIKeyByID returns the key with id, revoked or not. ENOTFOUND
	// when there is none.
	FindAPIKeyByID(ctx context.Context, id string) (*APIKey, error)

	// FindAPIKeys returns every key, revoked ones included, oldest first.
	FindAPIKeys(ctx context.Context) ([]*APIKey, error)

	// RevokeAPIKey revokes the key with the given id, or whose name is id
	// when no id matches. ENOTFOUND when none matches; revoking a revoked key
	// is not an error.
	RevokeAPIKey(ctx context.Context, id string) (*APIKey, error)

	// CountActiveAPIKeys returns how many keys are not revoked.
	CountActiveAPIKeys(ctx context.Context) (int, error)
}
