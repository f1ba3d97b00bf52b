package sqlstore_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/sqlstore"
	"github.com/seedengine/seedengine/internal/sqlstore/sqlstoretest"
)

func TestConsoleSessions(t *testing.T) {
	t.Parallel()
	sqlstoretest.Engines(t, func(t *testing.T, db *sqlstore.DB) {
		ctx := t.Context()
		s := sqlstore.NewConsoleSessionService(db)
		at := time.Date(2026, 11, 25, 10, 0, 0, 123456000, time.UTC)
		cs := &seedengine.ConsoleSession{ID: "aa", KeyID: "key1", CSRF: "c1", CreatedAt: at, SeenAt: at, ExpiresAt: at.Add(24 * time.Hour)}
		require.NoError(t, s.CreateConsoleSession(ctx, cs))
		requireCode(t, s.CreateConsoleSession(ctx, cs), seedengine.ECONFLICT)

		got, err := s.FindConsoleSession(ctx, "aa")
		require.NoError(t, err)
		require.Equal(t, cs, got)
		_, err = s.FindConsoleSession(ctx, "bb")
		requireCode(t, err, seedengine.ENOTFOUND)

		require.NoError(t, s.TouchConsoleSession(ctx, "aa", at.Add(time.Hour)))
		got, err = s.FindConsoleSession(ctx, "aa")
		require.NoError(t, err)
		require.Equal(t, at.Add(time.Hour), got.SeenAt)
		requireCode(t, s.TouchConsoleSession(ctx, "bb", at), seedengine.ENOTFOUND)

		// Cleanup: past its end, or idle too long.
		require.NoError(t, s.CreateConsoleSession(ctx, &seedengine.ConsoleSession{ID: "ended", KeyID: "k", CSRF: "c", CreatedAt: at, SeenAt: at.Add(2 * time.Hour), ExpiresAt: at.Add(time.Hour)}))
		require.NoError(t, s.CreateConsoleSession(ctx, &seedengine.ConsoleSession{ID: "idle", KeyID: "k", CSRF: "c", CreatedAt: at, SeenAt: at, ExpiresAt: at.Add(48 * time.Hour)}))
		n, err := s.DeleteConsoleSessions(ctx, at.Add(90*time.Minute), at.Add(30*time.Minute))
		require.NoError(t, err)
		require.Equal(t, 2, n, "ended and idle; aa was seen at 11:00")
		_, err = s.FindConsoleSession(ctx, "aa")
		require.NoError(t, err)

		require.NoError(t, s.DeleteConsoleSession(ctx, "aa"))
		require.NoError(t, s.DeleteConsoleSession(ctx, "aa"), "deleting twice is fine")
		_, err = s.FindConsoleSession(ctx, "aa")
		requireCode(t, err, seedengine.ENOTFOUND)
	})
}

func TestFindAPIKeyByID(t *testing.T) {
	t.Parallel()
	sqlstoretest.Engines(t, func(t *testing.T, db *sqlstore.DB) {
		ctx := t.Context()
		keys := sqlstore.NewAPIKeyService(db)
		k, _, err := keys.CreateAPIKey(ctx, "ops", seedengine.ScopeAdmin)
		require.NoError(t, err)
		got, err := keys.FindAPIKeyByID(ctx, k.ID)
		require.NoError(t, err)
		require.Equal(t, k.Name, got.Name)
		require.True(t, got.Active())
		_, err = keys.RevokeAPIKey(ctx, k.ID)
		require.NoError(t, err)
		got, err = keys.FindAPIKeyByID(ctx, k.ID)
		require.NoError(t, err)
		require.False(t, got.Active(), "revoked keys are found, and say so")
		_, err = keys.FindAPIKeyByID(ctx, "nope")
		requireCode(t, err, seedengine.ENOTFOUND)
	})
}
