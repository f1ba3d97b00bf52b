package sqlstore

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"embed"
	"fmt"
	"io/fs"
	"slices"
	"strconv"
	"strings"

	"github.com/riverqueue/river/riverdriver/riverdatabasesql"
	"github.com/riverqueue/river/riverdriver/riversqlite"
	"github.com/riverqueue/river/rivermigrate"
)

//go:embed migrations/sqlite/*.sql migrations/postgres/*.sql
var migrationFS embed.FS

// migration is one embedded schema change, NNNN_name.sql.
type migration struct {
	version int
	name    string
	sql     string
}

// migrateLockKey is the PostgreSQL advisory lock that serialises Migrate
// across processes. Its value is arbitrary; it only has to differ from other
// advisory locks taken on the same database.
const migrateLockKey int64 = 0x5eed_e191_a7e0_0001

// schemaMigrationsDDL creates the table that records applied app migrations.
var schemaMigrationsDDL = map[Engine]string{
	EngineSQLite: `CREATE TABLE IF NOT EXISTS schema_migrations (
    version    INTEGER PRIMARY KEY,
    name       TEXT NOT NULL,
    applied_at TEXT NOT NULL
)`,
	EnginePostgres: `CREATE TABLE IF NOT EXISTS schema_migrations (
    version    integer PRIMARY KEY,
    name       text NOT NULL,
    applied_at timestamptz NOT NULL
)`,
}

// Migrate brings the schema up to date: River's migrations first (the app
// tables may one day refer to River's), then the app's embedded migrations
// for the engine, each recorded in schema_migrations. It is idempotent and
// safe when several processes call it at once.
func (db *DB) Migrate(ctx context.Context) error {
	migrations, err := loadMigrations(db.engine)
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	switch db.engine {
	case EngineSQLite:
		err = db.migrateSQLite(ctx, migrations)
	case EnginePostgres:
		err = db.migratePostgres(ctx, migrations)
	default:
		err = fmt.Errorf("unknown engine %q", db.engine)
	}
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	return nil
}

// migrateSQLite runs every migration, River's and the app's, in one
// transaction. The transaction begins IMMEDIATE, so it holds the database
// write lock from the start: a second process calling Migrate waits
// (busy_timeout), then finds everything applied. That is why this uses
// River's MigrateTx, deprecated only because some PostgreSQL migrations
// cannot share a transaction, which does not apply to SQLite.
func (db *DB) migrateSQLite(ctx context.Context, migrations []migration) error {
	migrator, err := rivermigrate.New(riversqlite.New(db.writer), nil)
	if err != nil {
		return fmt.Errorf("river: %w", err)
	}
	return db.inTx(ctx, func(tx *sql.Tx) error {
		//lint:ignore SA1019 see the doc comment: one transaction is what makes SQLite migrations safe across processes.
		if _, err := migrator.MigrateTx(ctx, tx, rivermigrate.DirectionUp, nil); err != nil {
			return fmt.Errorf("river: %w", err)
		}
		if _, err := tx.ExecContext(ctx, schemaMigrationsDDL[db.engine]); err != nil {
			return fmt.Errorf("create schema_migrations: %w", err)
		}
		applied, err := appliedVersions(ctx, tx)
		if err != nil {
			return err
		}
		for _, m := range migrations {
			if applied[m.version] {
				continue
			}
			if err := db.applyMigration(ctx, tx, m); err != nil {
				return err
			}
		}
		return nil
	})
}

// migratePostgres holds a session advisory lock for the whole run, so
// concurrent callers apply migrations one after the other. River applies its
// migrations each in its own transaction; so does this for the app's.
func (db *DB) migratePostgres(ctx context.Context, migrations []migration) error {
	conn, err := db.writer.Conn(ctx)
	if err != nil {
		return err
	}
	defer func() { _ = conn.Close() }()
	if _, err := conn.ExecContext(ctx, `SELECT pg_advisory_lock($1)`, migrateLockKey); err != nil {
		return fmt.Errorf("take migration lock: %w", err)
	}
	defer func() {
		// A session lock outlives a connection returned to the pool, so a
		// connection that could not unlock is discarded instead.
		if _, uerr := conn.ExecContext(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock($1)`, migrateLockKey); uerr != nil {
			_ = conn.Raw(func(any) error { return driver.ErrBadConn })
		}
	}()

	migrator, err := rivermigrate.New(riverdatabasesql.New(db.writer), nil)
	if err != nil {
		return fmt.Errorf("river: %w", err)
	}
	if _, err := migrator.Migrate(ctx, rivermigrate.DirectionUp, nil); err != nil {
		return fmt.Errorf("river: %w", err)
	}
	if _, err := db.writer.ExecContext(ctx, schemaMigrationsDDL[db.engine]); err != nil {
		return fmt.Errorf("create schema_migrations: %w", err)
	}
	applied, err := appliedVersions(ctx, db.writer)
	if err != nil {
		return err
	}
	for _, m := range migrations {
		if applied[m.version] {
			continue
		}
		if err := db.inTx(ctx, func(tx *sql.Tx) error { return db.applyMigration(ctx, tx, m) }); err != nil {
			return err
		}
	}
	return nil
}

// queryer is a pool or a transaction, for reads that run on either.
type queryer interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// queryIDs runs query (a SELECT, or a statement RETURNING one integer
// column) and returns the column's values in row order.
func queryIDs(ctx context.Context, q queryer, query string, args ...any) ([]int64, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer func() { _ = rows.Close() }()
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}

func appliedVersions(ctx context.Context, q queryer) (map[int]bool, error) {
	rows, err := q.QueryContext(ctx, `SELECT version FROM schema_migrations`)
	if err != nil {
		return nil, fmt.Errorf("read schema_migrations: %w", err)
	}
	defer func() { _ = rows.Close() }()
	applied := map[int]bool{}
	for rows.Next() {
		var v int
		if err := rows.Scan(&v); err != nil {
			return nil, fmt.Errorf("read schema_migrations: %w", err)
		}
		applied[v] = true
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read schema_migrations: %w", err)
	}
	return applied, nil
}

func (db *DB) applyMigration(ctx context.Context, tx *sql.Tx, m migration) error {
	if _, err := tx.ExecContext(ctx, m.sql); err != nil {
		return fmt.Errorf("apply %04d_%s: %w", m.version, m.name, err)
	}
	if db.engine == EngineSQLite && strings.Contains(m.sql, "PRAGMA writable_schema = ON") {
		// A migration that edited a table's stored definition (SQLite's
		// documented way to loosen a CHECK): bump schema_version so every
		// connection reads the schema again, and close the schema.
		var v int
		if err := tx.QueryRowContext(ctx, `PRAGMA schema_version`).Scan(&v); err != nil {
			return fmt.Errorf("apply %04d_%s: read schema_version: %w", m.version, m.name, err)
		}
		if _, err := tx.ExecContext(ctx, fmt.Sprintf(`PRAGMA schema_version = %d`, v+1)); err != nil {
			return fmt.Errorf("apply %04d_%s: bump schema_version: %w", m.version, m.name, err)
		}
		if _, err := tx.ExecContext(ctx, `PRAGMA writable_schema = OFF`); err != nil {
			return fmt.Errorf("apply %04d_%s: %w", m.version, m.name, err)
		}
	}
	if _, err := tx.ExecContext(ctx,
		`INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)`,
		m.version, m.name, db.timeArg(nowUTC())); err != nil {
		return fmt.Errorf("record %04d_%s: %w", m.version, m.name, err)
	}
	return nil
}

// loadMigrations returns the engine's embedded migrations in version order.
func loadMigrations(engine Engine) ([]migration, error) {
	dir := "migrations/" + string(engine)
	entries, err := fs.ReadDir(migrationFS, dir)
	if err != nil {
		return nil, err
	}
	var ms []migration
	for _, e := range entries {
		base, ok := strings.CutSuffix(e.Name(), ".sql")
		if !ok {
			continue
		}
		num, name, ok := strings.Cut(base, "_")
		version, err := strconv.Atoi(num)
		if !ok || err != nil || version <= 0 || name == "" {
			return nil, fmt.Errorf("migration %s/%s: name must be NNNN_name.sql", dir, e.Name())
		}
		body, err := fs.ReadFile(migrationFS, dir+"/"+e.Name())
		if err != nil {
			return nil, err
		}
		ms = append(ms, migration{version: version, name: name, sql: string(body)})
	}
	slices.SortFunc(ms, func(a, b migration) int { return a.version - b.version })
	for i := 1; i < len(ms); i++ {
		if ms[i].version == ms[i-1].version {
			return nil, fmt.Errorf("migrations %s: version %d appears twice", dir, ms[i].version)
		}
	}
	return ms, nil
}
