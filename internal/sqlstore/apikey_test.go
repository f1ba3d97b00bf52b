package sqlstore_test

import (
	"crypto/sha256"
	"encoding/hex"
	"regexp"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/sqlstore"
	"github.com/seedengine/seedengine/internal/sqlstore/sqlstoretest"
)

var tokenRE = regexp.MustCompile(`^se_[0-9A-Za-z]{40}$`)

func TestAPIKeyCreateAndFind(t *testing.T) {
	t.Parallel()
	sqlstoretest.Engines(t, func(t *testing.T, db *sqlstore.DB) {
		ctx := t.Context()
		s := sqlstore.NewAPIKeyService(db)

		k, token, err := s.CreateAPIKey(ctx, "ci deploy", seedengine.ScopeWrite)
		require.NoError(t, err)
		require.Regexp(t, tokenRE, token)
		require.Equal(t, token[:10], k.Prefix)
		id, err := uuid.Parse(k.ID)
		require.NoError(t, err)
		require.Equal(t, uuid.Version(7), id.Version())
		require.Equal(t, "ci deploy", k.Name)
		require.Equal(t, seedengine.ScopeWrite, k.Scope)
		require.True(t, k.Active())
		require.False(t, k.CreatedAt.IsZero())

		got, err := s.FindAPIKeyByToken(ctx, token)
		require.NoError(t, err)
		require.Equal(t, k, got, "the key, its times included, round-trips")

		// Only the hash is stored.
		var stored string
		require.NoError(t, db.Reader().QueryRowContext(ctx, `SELECT token_hash FROM api_keys WHERE id = $1`, k.ID).Scan(&stored))
		sum := sha256.Sum256([]byte(token))
		require.Equal(t, hex.EncodeToString(sum[:]), stored)

		_, other, err := s.CreateAPIKey(ctx, "other", seedengine.ScopeRead)
		require.NoError(t, err)
		require.NotEqual(t, token, other)

		for _, bad := range []string{
			"",
			"se_" + strings.Repeat("x", 40), // well formed, unknown
			token[:len(token)-1],
			token + "x",
			"Bearer " + token,
		} {
			_, err := s.FindAPIKeyByToken(ctx, bad)
			requireCode(t, err, seedengine.EUNAUTHORIZED)
		}
	})
}

func TestAPIKeyCreateInvalid(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		keyName   string
		scope     seedengine.Scope
		wantField string
	}{
		{"empty name", "", seedengine.ScopeRead, "name"},
		{"long name", strings.Repeat("n", 101), seedengine.ScopeRead, "name"},
		{"control character", "a\nb", seedengine.ScopeRead, "name"},
		{"empty scope", "ok", "", "scope"},
		{"unknown scope", "ok", "root", "scope"},
	}
	sqlstoretest.Engines(t, func(t *testing.T, db *sqlstore.DB) {
		s := sqlstore.NewAPIKeyService(db)
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				_, _, err := s.CreateAPIKey(t.Context(), tt.keyName, tt.scope)
				requireCode(t, err, seedengine.EINVALID)
				require.Equal(t, tt.wantField, seedengine.ErrorField(err))
			})
		}
		n, err := s.CountActiveAPIKeys(t.Context())
		require.NoError(t, err)
		require.Zero(t, n)
	})
}

func TestAPIKeyListRevokeCount(t *testing.T) {
	t.Parallel()
	sqlstoretest.Engines(t, func(t *testing.T, db *sqlstore.DB) {
		ctx := t.Context()
		s := sqlstore.NewAPIKeyService(db)

		keys, err := s.FindAPIKeys(ctx)
		require.NoError(t, err)
		require.Empty(t, keys)

		a, tokenA, err := s.CreateAPIKey(ctx, "alpha", seedengine.ScopeAdmin)
		require.NoError(t, err)
		b, tokenB, err := s.CreateAPIKey(ctx, "beta", seedengine.ScopeRead)
		require.NoError(t, err)
		c, _, err := s.CreateAPIKey(ctx, "gamma", seedengine.ScopeWrite)
		require.NoError(t, err)

		keys, err = s.FindAPIKeys(ctx)
		require.NoError(t, err)
		require.Equal(t, []*seedengine.APIKey{a, b, c}, keys, "oldest first")
		requireActive(t, s, 3)

		// An active name is unique.
		_, _, err = s.CreateAPIKey(ctx, "alpha", seedengine.ScopeRead)
		requireCode(t, err, seedengine.ECONFLICT)

		// By id.
		revoked, err := s.RevokeAPIKey(ctx, a.ID)
		require.NoError(t, err)
		require.Equal(t, a.ID, revoked.ID)
		require.NotNil(t, revoked.RevokedAt)
		_, err = s.FindAPIKeyByToken(ctx, tokenA)
		requireCode(t, err, seedengine.EUNAUTHORIZED)
		requireActive(t, s, 2)

		// Again: not an error, and the first revocation time stays.
		again, err := s.RevokeAPIKey(ctx, a.ID)
		require.NoError(t, err)
		require.Equal(t, revoked.RevokedAt, again.RevokedAt)

		// By name.
		revoked, err = s.RevokeAPIKey(ctx, "beta")
		require.NoError(t, err)
		require.Equal(t, b.ID, revoked.ID)
		_, err = s.FindAPIKeyByToken(ctx, tokenB)
		requireCode(t, err, seedengine.EUNAUTHORIZED)
		requireActive(t, s, 1)

		// A revoked key's name is free again; by name, the active one wins.
		b2, tokenB2, err := s.CreateAPIKey(ctx, "beta", seedengine.ScopeWrite)
		require.NoError(t, err)
		got, err := s.FindAPIKeyByToken(ctx, tokenB2)
		require.NoError(t, err)
		require.Equal(t, b2.ID, got.ID)
		revoked, err = s.RevokeAPIKey(ctx, "beta")
		require.NoError(t, err)
		require.Equal(t, b2.ID, revoked.ID)
		// Only revoked keys left with the name: the newest, unchanged.
		again, err = s.RevokeAPIKey(ctx, "beta")
		require.NoError(t, err)
		require.Equal(t, b2.ID, again.ID)
		require.Equal(t, revoked.RevokedAt, again.RevokedAt)

		_, err = s.RevokeAPIKey(ctx, "nobody")
		requireCode(t, err, seedengine.ENOTFOUND)
		_, err = s.RevokeAPIKey(ctx, "")
		requireCode(t, err, seedengine.EINVALID)

		keys, err = s.FindAPIKeys(ctx)
		require.NoError(t, err)
		require.Len(t, keys, 4)
		for _, k := range keys {
			require.Equal(t, k.ID == c.ID, k.Active(), "key %s", k.Name)
		}
		requireActive(t, s, 1)
	})
}

func requireActive(t *testing.T, s *sqlstore.APIKeyService, want int) {
	t.Helper()
	n, err := s.CountActiveAPIKeys(t.Context())
	require.NoError(t, err)
	require.Equal(t, want, n)
}
