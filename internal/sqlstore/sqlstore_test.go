package sqlstore_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/sqlstore"
	"github.com/seedengine/seedengine/internal/sqlstore/sqlstoretest"
)

// appMigrations is how many app migrations an engine has: the .sql files
// in its migrations directory, so that a new migration needs no edit here.
func appMigrations(t *testing.T, engine string) int {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("migrations", engine, "*.sql"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	return len(files)
}

// requireCode asserts that err carries the seedengine error code want.
func requireCode(t *testing.T, err error, want string) {
	t.Helper()
	require.Error(t, err)
	require.Equal(t, want, seedengine.ErrorCode(err), "error: %v", err)
}

func TestOpenSQLiteURLForms(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		url  func(path string) string
	}{
		{"sqlite scheme", func(p string) string { return "sqlite:" + p }},
		{"sqlite url", func(p string) string { return "sqlite://" + p }},
		{"file scheme", func(p string) string { return "file:" + p }},
		{"bare path", func(p string) string { return p }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			// Parent directories that do not exist yet are created.
			path := filepath.Join(t.TempDir(), "a", "b c", "seedengine.db")
			db, err := sqlstore.Open(t.Context(), tt.url(path))
			require.NoError(t, err)
			t.Cleanup(func() { require.NoError(t, db.Close()) })

			require.Equal(t, sqlstore.EngineSQLite, db.Engine())
			require.NoError(t, db.Migrate(t.Context()))
			_, err = os.Stat(path)
			require.NoError(t, err, "the database file is at the path given")
		})
	}
}

func TestOpenRejectsMemory(t *testing.T) {
	t.Parallel()
	for _, u := range []string{"sqlite::memory:", "file:x.db?mode=memory", "sqlite:"} {
		_, err := sqlstore.Open(t.Context(), u)
		require.Error(t, err, u)
	}
}

func TestSQLitePools(t *testing.T) {
	t.Parallel()
	db := sqlstoretest.OpenSQLite(t)
	ctx := t.Context()

	require.Equal(t, 1, db.Writer().Stats().MaxOpenConnections, "SQLite has one writer connection")
	require.NotSame(t, db.Writer(), db.Reader())

	_, err := db.Reader().ExecContext(ctx, `INSERT INTO schema_migrations (version, name, applied_at) VALUES (9999, 'x', 'x')`)
	require.Error(t, err, "the reader pool is read-only")

	var mode string
	require.NoError(t, db.Writer().QueryRowContext(ctx, `PRAGMA journal_mode`).Scan(&mode))
	require.Equal(t, "wal", strings.ToLower(mode))
	var fk int
	require.NoError(t, db.Writer().QueryRowContext(ctx, `PRAGMA foreign_keys`).Scan(&fk))
	require.Equal(t, 1, fk)
	var cache int
	require.NoError(t, db.Writer().QueryRowContext(ctx, `PRAGMA cache_size`).Scan(&cache))
	require.Less(t, cache, -2000, "the writer's page cache is larger than SQLite's default (in KiB when negative)")
	var sync int
	require.NoError(t, db.Writer().QueryRowContext(ctx, `PRAGMA synchronous`).Scan(&sync))
	require.Equal(t, 2, sync, "every commit is fsynced (synchronous=FULL) unless the URL says otherwise")
}

func TestMigrateIdempotent(t *testing.T) {
	t.Parallel()
	sqlstoretest.Engines(t, func(t *testing.T, db *sqlstore.DB) {
		ctx := t.Context()
		// The helper migrated once already.
		require.NoError(t, db.Migrate(ctx))
		require.NoError(t, db.Migrate(ctx))

		var n int
		require.NoError(t, db.Reader().QueryRowContext(ctx, `SELECT COUNT(*) FROM schema_migrations`).Scan(&n))
		require.Equal(t, appMigrations(t, string(db.Engine())), n, "each app migration is recorded once")
		require.NoError(t, db.Reader().QueryRowContext(ctx, `SELECT COUNT(*) FROM river_migration`).Scan(&n))
		require.Positive(t, n, "River's migrations ran")
		require.NoError(t, db.Reader().QueryRowContext(ctx, `SELECT COUNT(*) FROM river_job`).Scan(&n))
		require.Zero(t, n)
	})
}

func TestMigrateConcurrent(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		newURL func(testing.TB) string
	}{
		{"sqlite", sqlstoretest.NewSQLiteURL},
		{"postgres", sqlstoretest.NewPostgresURL},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			u := tt.newURL(t)
			// Separate stores stand for separate processes (serve and
			// migrate starting together).
			const n = 4
			dbs := make([]*sqlstore.DB, n)
			for i := range dbs {
				db, err := sqlstore.Open(t.Context(), u)
				require.NoError(t, err)
				t.Cleanup(func() { require.NoError(t, db.Close()) })
				dbs[i] = db
			}
			errs := make([]error, n)
			var wg sync.WaitGroup
			for i, db := range dbs {
				wg.Go(func() { errs[i] = db.Migrate(t.Context()) })
			}
			wg.Wait()
			for _, err := range errs {
				require.NoError(t, err)
			}
			var count int
			require.NoError(t, dbs[0].Reader().QueryRowContext(t.Context(), `SELECT COUNT(*) FROM schema_migrations`).Scan(&count))
			require.Equal(t, appMigrations(t, tt.name), count)
		})
	}
}

func TestCheck(t *testing.T) {
	t.Parallel()
	sqlstoretest.Engines(t, func(t *testing.T, db *sqlstore.DB) {
		require.NoError(t, db.Check(t.Context()))

		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		requireCode(t, db.Check(ctx), seedengine.EUNAVAILABLE)
	})
}

func TestCheckClosed(t *testing.T) {
	t.Parallel()
	db, err := sqlstore.Open(t.Context(), sqlstoretest.NewSQLiteURL(t))
	require.NoError(t, err)
	require.NoError(t, db.Close())
	err = db.Check(t.Context())
	requireCode(t, err, seedengine.EUNAVAILABLE)
	require.NotContains(t, seedengine.ErrorMessage(err), "closed", "the cause stays out of the client message")
}
