package sqlstore

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	"github.com/google/uuid"

	"github.com/seedengine/seedengine"
)

// Token format: a recognisable prefix (so leaked keys can be found by secret
// scanners) and 40 base62 characters, about 238 bits from crypto/rand.
const (
	tokenPrefix    = "se_"
	tokenRandLen   = 40
	tokenLen       = len(tokenPrefix) + tokenRandLen
	keyPrefixLen   = 10
	base62Alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
)

const apiKeyColumns = `id, name, scope, prefix, created_at, revoked_at`

// APIKeyService stores API keys. Only the SHA-256 of a token is kept: tokens
// are random and long, so a slow password hash would add latency to every
// request without making a stolen table any easier to reverse.
//
// At most one active key may have a given name (a partial unique index
// enforces it): names are how operators refer to keys, and RevokeAPIKey by
// name must not have to guess. A name is free again once its key is revoked.
type APIKeyService struct {
	db *DB
}

var _ seedengine.APIKeyService = (*APIKeyService)(nil)

// NewAPIKeyService returns an APIKeyService on db.
func NewAPIKeyService(db *DB) *APIKeyService { return &APIKeyService{db: db} }

// CreateAPIKey creates a key and returns it with its token, which is shown
// once and never stored. EINVALID for a bad name or scope; ECONFLICT when an
// active key already has the name.
func (s *APIKeyService) CreateAPIKey(ctx context.Context, name string, scope seedengine.Scope) (*seedengine.APIKey, string, error) {
	if err := seedengine.ValidateAPIKeyName(name); err != nil {
		return nil, "", err
	}
	if _, err := seedengine.ParseScope(string(scope)); err != nil {
		return nil, "", err
	}
	token, err := newToken()
	if err != nil {
		return nil, "", fmt.Errorf("create api key %q: %w", name, err)
	}
	id, err := uuid.NewV7()
	if err != nil {
		return nil, "", fmt.Errorf("create api key %q: %w", name, err)
	}
	k := &seedengine.APIKey{
		ID:        id.String(),
		Name:      name,
		Scope:     scope,
		Prefix:    token[:keyPrefixLen],
		CreatedAt: nowUTC(),
	}
	_, err = s.db.writer.ExecContext(ctx,
		`INSERT INTO api_keys (id, name, scope, prefix, token_hash, created_at) VALUES ($1, $2, $3, $4, $5, $6)`,
		k.ID, k.Name, string(k.Scope), k.Prefix, hashToken(token), s.db.timeArg(k.CreatedAt))
	if isUniqueViolation(err) {
		return nil, "", seedengine.Errorf(seedengine.ECONFLICT, "an active key has this name")
	}
	if err != nil {
		return nil, "", fmt.Errorf("create api key %q: %w", name, err)
	}
	return k, token, nil
}

// FindAPIKeyByToken returns the active key whose token is token, in one
// indexed read on the reader pool since it runs on every API request.
// EUNAUTHORIZED when no active key matches.
func (s *APIKeyService) FindAPIKeyByToken(ctx context.Context, token string) (*seedengine.APIKey, error) {
	// Not one of ours: no need to ask the database.
	if len(token) != tokenLen || !strings.HasPrefix(token, tokenPrefix) {
		return nil, errInvalidKey()
	}
	row := s.db.reader.QueryRowContext(ctx,
		`SELECT `+apiKeyColumns+` FROM api_keys WHERE token_hash = $1 AND revoked_at IS NULL`, hashToken(token))
	k, err := scanAPIKey(row)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, errInvalidKey()
	}
	if err != nil {
		return nil, fmt.Errorf("find api key by token: %w", err)
	}
	return k, nil
}

func errInvalidKey() error {
	return seedengine.Errorf(seedengine.EUNAUTHORIZED, "invalid or revoked API key")
}

// FindAPIKeyByID returns the key with id, revoked or not. ENOTFOUND when
// there is none.
func (s *APIKeyService) FindAPIKeyByID(ctx context.Context, id string) (*seedengine.APIKey, error) {
	k, err := scanAPIKey(s.db.reader.QueryRowContext(ctx, `SELECT `+apiKeyColumns+` FROM api_keys WHERE id = $1`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, seedengine.Errorf(seedengine.ENOTFOUND, "no API key has this id")
	}
	if err != nil {
		return nil, fmt.Errorf("find api key %q: %w", id, err)
	}
	return k, nil
}

// FindAPIKeys returns every key, revoked ones included, oldest first.
func (s *APIKeyService) FindAPIKeys(ctx context.Context) ([]*seedengine.APIKey, error) {
	rows, err := s.db.reader.QueryContext(ctx, `SELECT `+apiKeyColumns+` FROM api_keys ORDER BY created_at, id`)
	if err != nil {
		return nil, fmt.Errorf("find api keys: %w", err)
	}
	defer func() { _ = rows.Close() }()
	keys := []*seedengine.APIKey{}
	for rows.Next() {
		k, err := scanAPIKey(rows)
		if err != nil {
			return nil, fmt.Errorf("find api keys: %w", err)
		}
		keys = append(keys, k)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("find api keys: %w", err)
	}
	return keys, nil
}

// RevokeAPIKey revokes the key with id idOrName or, when no id matches, the
// active key with that name. A name that only revoked keys carry resolves to
// the newest of them, so revoking twice by name succeeds like revoking twice
// by id. ENOTFOUND when nothing matches; ECONFLICT when several active keys
// share the name (only possible in a database written without the unique
// index).
func (s *APIKeyService) RevokeAPIKey(ctx context.Context, idOrName string) (*seedengine.APIKey, error) {
	if idOrName == "" {
		return nil, seedengine.FieldErrorf("id", "id or name is required")
	}
	var k *seedengine.APIKey
	err := s.db.inTx(ctx, func(tx *sql.Tx) error {
		var err error
		k, err = s.resolveKey(ctx, tx, idOrName)
		if err != nil {
			return err
		}
		if !k.Active() {
			return nil
		}
		now := nowUTC()
		if _, err := tx.ExecContext(ctx,
			`UPDATE api_keys SET revoked_at = $2 WHERE id = $1 AND revoked_at IS NULL`,
			k.ID, s.db.timeArg(now)); err != nil {
			return err
		}
		k.RevokedAt = &now
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("revoke api key %q: %w", idOrName, err)
	}
	return k, nil
}

func (s *APIKeyService) resolveKey(ctx context.Context, tx *sql.Tx, idOrName string) (*seedengine.APIKey, error) {
	k, err := scanAPIKey(tx.QueryRowContext(ctx,
		`SELECT `+apiKeyColumns+` FROM api_keys WHERE id = $1`+s.db.forUpdate(), idOrName))
	if err == nil {
		return k, nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return nil, err
	}

	rows, err := tx.QueryContext(ctx,
		`SELECT `+apiKeyColumns+` FROM api_keys WHERE name = $1 ORDER BY created_at DESC, id DESC`+s.db.forUpdate(), idOrName)
	if err != nil {
		return nil, err
	}
	defer func() { _ = rows.Close() }()
	var active, newest *seedengine.APIKey
	for rows.Next() {
		k, err := scanAPIKey(rows)
		if err != nil {
			return nil, err
		}
		if newest == nil {
			newest = k
		}
		if k.Active() {
			if active != nil {
				return nil, seedengine.Errorf(seedengine.ECONFLICT, "several active keys have this name; revoke one by id")
			}
			active = k
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	switch {
	case active != nil:
		return active, nil
	case newest != nil:
		return newest, nil
	}
	return nil, seedengine.Errorf(seedengine.ENOTFOUND, "no API key has this id or name")
}

// CountActiveAPIKeys returns how many keys are not revoked.
func (s *APIKeyService) CountActiveAPIKeys(ctx context.Context) (int, error) {
	var n int
	if err := s.db.reader.QueryRowContext(ctx, `SELECT COUNT(*) FROM api_keys WHERE revoked_at IS NULL`).Scan(&n); err != nil {
		return 0, fmt.Errorf("count active api keys: %w", err)
	}
	return n, nil
}

type rowScanner interface {
	Scan(dest ...any) error
}

func scanAPIKey(row rowScanner) (*seedengine.APIKey, error) {
	var (
		k                  seedengine.APIKey
		scope              string
		created, revokedAt scanTime
	)
	if err := row.Scan(&k.ID, &k.Name, &scope, &k.Prefix, &created, &revokedAt); err != nil {
		return nil, err
	}
	k.Scope = seedengine.Scope(scope)
	k.CreatedAt = created.Time
	k.RevokedAt = revokedAt.ptr()
	return &k, nil
}

// newToken returns a fresh token. Bytes at or above 248 (62×4) are skipped so
// that every base62 character is equally likely.
func newToken() (string, error) {
	b := make([]byte, 0, tokenLen)
	b = append(b, tokenPrefix...)
	var buf [64]byte
	for len(b) < tokenLen {
		if _, err := rand.Read(buf[:]); err != nil {
			return "", err
		}
		for _, c := range buf {
			if c >= 248 {
				continue
			}
			b = append(b, base62Alphabet[c%62])
			if len(b) == tokenLen {
				break
			}
		}
	}
	return string(b), nil
}

func hashToken(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}
