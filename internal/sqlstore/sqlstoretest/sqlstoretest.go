// Package sqlstoretest opens throw-away, migrated stores for tests, on
// SQLite always and on PostgreSQL when SEEDENGINE_TEST_POSTGRES_URL names a
// server.
package sqlstoretest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" database/sql driver

	"github.com/seedengine/seedengine/internal/sqlstore"
)

// PostgresURLEnv names the variable that points the tests at a PostgreSQL
// server, as a URL of a role that may create and drop databases.
const PostgresURLEnv = "SEEDENGINE_TEST_POSTGRES_URL"

// setupTimeout bounds creating, migrating and dropping a test database, so a
// hung server fails the test instead of the whole run's deadline.
const setupTimeout = 2 * time.Minute

// NewSQLiteURL returns the URL of a SQLite file in a fresh temporary
// directory, removed on cleanup. The file does not exist yet.
func NewSQLiteURL(tb testing.TB) string {
	tb.Helper()
	return "sqlite:" + filepath.Join(tb.TempDir(), "seedengine.db")
}

// OpenSQLite opens a migrated store on a new SQLite file and closes it on
// cleanup.
func OpenSQLite(tb testing.TB) *sqlstore.DB {
	tb.Helper()
	return open(tb, NewSQLiteURL(tb))
}

// NewPostgresURL creates an empty database, seedengine_test_<random>, on the
// server named by SEEDENGINE_TEST_POSTGRES_URL and returns its URL; the
// database is dropped on cleanup. Without the variable the test is skipped,
// unless CI is set: there a PostgreSQL test that does not run is a failure.
func NewPostgresURL(tb testing.TB) string {
	tb.Helper()
	return NewPostgresURLWith(tb, "")
}

// NewPostgresURLWith is NewPostgresURL with options for CREATE DATABASE,
// such as "TEMPLATE template0 LOCALE_PROVIDER icu ICU_LOCALE 'en-US'" to
// hold the store to a database whose default collation is not C. The
// options are SQL, trusted as the test's own.
func NewPostgresURLWith(tb testing.TB, createOptions string) string {
	tb.Helper()
	base := os.Getenv(PostgresURLEnv)
	if base == "" {
		if inCI() {
			tb.Fatalf("%s is not set; under CI the PostgreSQL tests must run", PostgresURLEnv)
		}
		tb.Skipf("%s is not set; skipping PostgreSQL test", PostgresURLEnv)
	}
	u, err := url.Parse(base)
	if err != nil {
		tb.Fatalf("parse %s: %v", PostgresURLEnv, err)
	}

	admin, err := sql.Open("pgx", base)
	if err != nil {
		tb.Fatalf("open %s: %v", PostgresURLEnv, err)
	}
	name := "seedengine_test_" + randomHex(tb, 8)
	ctx, cancel := context.WithTimeout(context.Background(), setupTimeout)
	defer cancel()
	// The name is ours and plain [a-z0-9_], so it needs no quoting.
	if _, err := admin.ExecContext(ctx, `CREATE DATABASE `+name+` `+createOptions); err != nil {
		_ = admin.Close()
		tb.Fatalf("create test database: %v", err)
	}
	tb.Cleanup(func() {
		defer func() { _ = admin.Close() }()
		ctx, cancel := context.WithTimeout(context.Background(), setupTimeout)
		defer cancel()
		// FORCE ends sessions a failed test left behind (a River client not
		// stopped, a leaked connection), which would otherwise block the drop.
		if _, err := admin.ExecContext(ctx, `DROP DATABASE IF EXISTS `+name+` WITH (FORCE)`); err != nil {
			tb.Errorf("drop test database %s: %v", name, err)
		}
	})
	u.Path = "/" + name
	return u.String()
}

// OpenPostgres opens a migrated store on a new PostgreSQL database (see
// NewPostgresURL), closing it and dropping the database on cleanup.
func OpenPostgres(tb testing.TB) *sqlstore.DB {
	tb.Helper()
	return open(tb, NewPostgresURL(tb))
}

// Open opens a migrated store at rawURL, closing it on cleanup.
func Open(tb testing.TB, rawURL string) *sqlstore.DB {
	tb.Helper()
	return open(tb, rawURL)
}

// Engines runs fn as the subtests "sqlite" and "postgres", each with its own
// migrated store. The subtests run in parallel with each other, so fn must
// not use t.Setenv or t.Chdir.
func Engines(t *testing.T, fn func(t *testing.T, db *sqlstore.DB)) {
	t.Helper()
	t.Run(string(sqlstore.EngineSQLite), func(t *testing.T) {
		t.Parallel()
		fn(t, OpenSQLite(t))
	})
	t.Run(string(sqlstore.EnginePostgres), func(t *testing.T) {
		t.Parallel()
		fn(t, OpenPostgres(t))
	})
}

func open(tb testing.TB, rawURL string) *sqlstore.DB {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), setupTimeout)
	defer cancel()
	db, err := sqlstore.Open(ctx, rawURL)
	if err != nil {
		tb.Fatalf("open store: %v", err)
	}
	// Registered before Migrate so a failed migration still closes the
	// pools, which on PostgreSQL must happen before the database is dropped
	// (cleanups run last-registered first).
	tb.Cleanup(func() {
		if err := db.Close(); err != nil {
			tb.Errorf("close store: %v", err)
		}
	})
	if err := db.Migrate(ctx); err != nil {
		tb.Fatalf("migrate store: %v", err)
	}
	return db
}

// inCI reports whether CI is set to anything but a false value.
func inCI() bool {
	switch strings.ToLower(os.Getenv("CI")) {
	case "", "0", "false", "no", "off":
		return false
	}
	return true
}

func randomHex(tb testing.TB, n int) string {
	tb.Helper()
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		tb.Fatalf("random name: %v", err)
	}
	return hex.EncodeToString(b)
}
