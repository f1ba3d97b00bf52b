// Package sqlstore keeps seedengine's records (API keys, batches and their
// chunks, the domain registry and the index of raw dataset chunks) in
// SQLite or PostgreSQL behind the root package's service interfaces.
//
// The job queue (River, internal/jobs) lives in the same database, so a
// record and the jobs that need it are written in one transaction: the
// queue runs it (InTx, InChunkTx) and the store's Tx functions write the
// rows inside it and report what changed. The store imports only the root
// package and never queries River's tables. On SQLite that shapes the
// pools: writes, River included, go through one connection (SQLite allows one
// writer at a time, and a second writing connection would only meet "database
// is locked"), while API reads use a separate read-only pool that WAL lets
// run beside the writer. On PostgreSQL both are the same pool.
//
// App SQL is written once for both engines: $1 placeholders (bare "?" on
// SQLite only in the multi-row statements, see bulkPlaceholders), portable
// types, times stored in UTC at microsecond precision (PostgreSQL's), and
// row locks (FOR UPDATE) added only on PostgreSQL, where write transactions
// run concurrently; on SQLite the single writer already serialises them.
package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" database/sql driver
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/seedengine/seedengine"
)

// Engine names the SQL database behind a DB.
type Engine string

// Supported engines.
const (
	EngineSQLite   Engine = "sqlite"
	EnginePostgres Engine = "postgres"
)

// DB is an open store: a writer pool and a reader pool on one database.
type DB struct {
	engine Engine
	writer *sql.DB
	reader *sql.DB
	// group batches the small writes every job makes (a chunk's start and
	// outcome, a seed check) on SQLite (groupcommit.go); nil on
	// PostgreSQL, whose transactions run side by side.
	group *groupCommitter
	// url is PostgreSQL's, for the listener pool (Listener).
	url      string
	listenMu sync.Mutex
	listener *pgxpool.Pool
	// notes announces the River notifications the SQLite writer commits
	// (Notified); nil on PostgreSQL.
	notes *notifier
}

// sqliteBusyTimeout is how long a SQLite connection waits for another
// process's write lock before failing with SQLITE_BUSY. Writes in this
// process queue on the single writer connection instead, so this only
// matters when two processes (serve and migrate, say) share a file.
const sqliteBusyTimeout = 10 * time.Second

// Open opens the store named by rawURL: "postgres://…" or "postgresql://…"
// for PostgreSQL (through pgx's database/sql driver), or "sqlite:PATH",
// "sqlite://PATH", "file:PATH" or a bare file path for SQLite. The SQLite
// file and its parent directories are created when missing. Open does not
// migrate; call Migrate. Query parameters of a SQLite URL are passed on to
// the driver for both pools, for example
// "sqlite:data/seedengine.db?_pragma=synchronous(NORMAL)" to trade the last
// commits before a power loss for faster commits.
func Open(ctx context.Context, rawURL string) (*DB, error) {
	return OpenWith(ctx, rawURL, Options{})
}

// Options tune Open.
type Options struct {
	// MaxOpenConns bounds a PostgreSQL pool: River, the API and the
	// workers of the process share it, so every process of a deployment
	// holds up to this many of the server's max_connections. Default 40.
	// SQLite ignores it (one writer, a few readers).
	MaxOpenConns int
}

// OpenWith is Open with options.
func OpenWith(ctx context.Context, rawURL string, opts Options) (*DB, error) {
	if IsPostgresURL(rawURL) {
		return openPostgres(ctx, rawURL, opts)
	}
	path, query, err := sqlitePath(rawURL)
	if err != nil {
		return nil, err
	}
	return openSQLite(ctx, path, query)
}

// IsPostgresURL reports whether a database URL names PostgreSQL.
func IsPostgresURL(rawURL string) bool {
	return strings.HasPrefix(rawURL, "postgres://") || strings.HasPrefix(rawURL, "postgresql://")
}

func openPostgres(ctx context.Context, rawURL string, opts Options) (*DB, error) {
	pool, err := sql.Open("pgx", rawURL)
	if err != nil {
		return nil, fmt.Errorf("open postgres: %w", err)
	}
	// A bound keeps many workers from exhausting the server's
	// max_connections (100 by default); River, the API and the workers all
	// share this pool.
	maxConns := opts.MaxOpenConns
	if maxConns <= 0 {
		maxConns = 40
	}
	pool.SetMaxOpenConns(maxConns)
	// Every open connection may stay idle: with fewer idle slots than
	// open ones, a busy queue closes connections it needs again a moment
	// later, and each new one costs PostgreSQL a backend fork and a login
	// (under load most of the server's CPU). Idle ones close after a while.
	pool.SetMaxIdleConns(maxConns)
	pool.SetConnMaxIdleTime(5 * time.Minute)
	if err := pool.PingContext(ctx); err != nil {
		_ = pool.Close()
		return nil, fmt.Errorf("open postgres: %w", err)
	}
	return &DB{engine: EnginePostgres, writer: pool, reader: pool, url: rawURL}, nil
}

// sqlitePath extracts the file path and any extra DSN query from the forms
// Open accepts.
func sqlitePath(rawURL string) (path, query string, err error) {
	s := rawURL
	switch {
	case strings.HasPrefix(s, "sqlite://"):
		s = strings.TrimPrefix(s, "sqlite://")
	case strings.HasPrefix(s, "sqlite:"):
		s = strings.TrimPrefix(s, "sqlite:")
	case strings.HasPrefix(s, "file://"):
		s = strings.TrimPrefix(s, "file://")
	case strings.HasPrefix(s, "file:"):
		s = strings.TrimPrefix(s, "file:")
	}
	if i := strings.IndexByte(s, '?'); i >= 0 {
		s, query = s[:i], s[i+1:]
	}
	if s == "" {
		return "", "", fmt.Errorf("open sqlite %q: no file path", rawURL)
	}
	// The writer and reader pools must see the same database, which an
	// in-memory one cannot give.
	if s == ":memory:" || strings.Contains(query, "mode=memory") {
		return "", "", fmt.Errorf("open sqlite %q: an in-memory database is not supported, use a file", rawURL)
	}
	return s, query, nil
}

// sqliteWriterCacheKiB is the writer connection's page cache. SQLite's
// default, 2 MiB, is smaller than what one large write transaction dirties
// (registering 10,000 domains touches several MiB of table and index
// pages), and a transaction that outgrows its cache spills pages to the WAL
// and reads them back before it commits. There is one writer connection,
// and the cache only grows as pages are used.
const sqliteWriterCacheKiB = 32 << 10

func openSQLite(ctx context.Context, path, extra string) (*DB, error) {
	if dir := filepath.Dir(path); dir != "." {
		if err := os.MkdirAll(dir, 0o750); err != nil {
			return nil, fmt.Errorf("open sqlite %q: %w", path, err)
		}
	}
	busy := fmt.Sprintf("busy_timeout(%d)", sqliteBusyTimeout.Milliseconds())

	// BEGIN IMMEDIATE takes the write lock up front: a deferred transaction
	// that reads and then writes can fail with SQLITE_BUSY when another
	// process wrote in between, and no amount of waiting fixes that.
	// synchronous stays at SQLite's default, FULL: a batch accepted with a
	// 202 must survive a power loss, not only a crash.
	wq := url.Values{}
	wq.Add("_pragma", busy)
	wq.Add("_pragma", "journal_mode(WAL)")
	wq.Add("_pragma", "foreign_keys(1)")
	wq.Add("_pragma", fmt.Sprintf("cache_size(%d)", -sqliteWriterCacheKiB))
	wq.Set("_txlock", "immediate")
	notes := newNotifier()
	writer, err := openSQLitePool(sqliteDSN(path, wq, extra), notes)
	if err != nil {
		return nil, fmt.Errorf("open sqlite %q: %w", path, err)
	}
	writer.SetMaxOpenConns(1)
	writer.SetMaxIdleConns(1)
	writer.SetConnMaxLifetime(0)
	writer.SetConnMaxIdleTime(0)
	// The writer connects first so the file exists and is in WAL mode
	// before a read-only connection opens it.
	if err := writer.PingContext(ctx); err != nil {
		_ = writer.Close()
		return nil, fmt.Errorf("open sqlite %q: %w", path, err)
	}

	rq := url.Values{}
	rq.Add("_pragma", busy)
	rq.Add("_pragma", "query_only(1)")
	reader, err := openSQLitePool(sqliteDSN(path, rq, extra), nil)
	if err != nil {
		_ = writer.Close()
		return nil, fmt.Errorf("open sqlite %q: %w", path, err)
	}
	n := max(4, runtime.GOMAXPROCS(0))
	reader.SetMaxOpenConns(n)
	reader.SetMaxIdleConns(n)
	if err := reader.PingContext(ctx); err != nil {
		_ = reader.Close()
		_ = writer.Close()
		return nil, fmt.Errorf("open sqlite %q: %w", path, err)
	}
	return &DB{engine: EngineSQLite, writer: writer, reader: reader, group: newGroupCommitter(writer), notes: notes}, nil
}

// openSQLitePool opens a pool of SQLite connections that keep their
// compiled statements (see stmtcache.go) and, with notes, announce the
// River notifications they commit (notified.go).
func openSQLitePool(dsn string, notes *notifier) (*sql.DB, error) {
	c, err := sqlite.NewConnector(dsn)
	if err != nil {
		return nil, err
	}
	return sql.OpenDB(stmtCacheConnector{Connector: c, notes: notes}), nil
}

// sqliteDSN builds a "file:" URI, which SQLite decodes, so the path is
// percent-escaped; extra DSN parameters from the caller's URL come last.
func sqliteDSN(path string, q url.Values, extra string) string {
	dsn := "file:" + (&url.URL{Path: path}).EscapedPath() + "?" + q.Encode()
	if extra != "" {
		dsn += "&" + extra
	}
	return dsn
}

// Engine reports which database the store runs on.
func (db *DB) Engine() Engine { return db.engine }

// Writer returns the pool for writes and for River. On SQLite it holds
// exactly one connection: while a transaction is open, use only that
// transaction, since any other use of the pool waits for the transaction to
// end.
func (db *DB) Writer() *sql.DB { return db.writer }

// Reader returns the pool for reads that need no transaction. On SQLite it
// is a separate read-only pool on the same file, so API reads never wait for
// the writer; on PostgreSQL it is the writer pool.
func (db *DB) Reader() *sql.DB { return db.reader }

// Check reports whether the database answers a query. It returns an
// EUNAVAILABLE error when it does not; the cause is kept in the chain for
// logs but not in the client-safe message.
func (db *DB) Check(ctx context.Context) error {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
	}
	var one int
	if err := db.reader.QueryRowContext(ctx, `SELECT 1`).Scan(&one); err != nil {
		return fmt.Errorf("check database: %w: %w", seedengine.Errorf(seedengine.EUNAVAILABLE, "the database is not available"), err)
	}
	return nil
}

// Listener is a pgx pool of at most one connection on PostgreSQL, for
// River's LISTEN (riverdatabasesql.NewWithPgxListener): workers wake when
// a job is inserted instead of at their next poll. The same pool is
// returned on every call; Close closes it. Nil on SQLite, which has no
// LISTEN (River emulates it there with a table).
func (db *DB) Listener() (*pgxpool.Pool, error) {
	if db.engine != EnginePostgres {
		return nil, nil
	}
	db.listenMu.Lock()
	defer db.listenMu.Unlock()
	if db.listener != nil {
		return db.listener, nil
	}
	cfg, err := pgxpool.ParseConfig(db.url)
	if err != nil {
		return nil, fmt.Errorf("listener pool: %w", err)
	}
	// River hijacks the connection it listens on: one is all it takes.
	cfg.MaxConns, cfg.MinConns = 1, 0
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg) // connects on first use
	if err != nil {
		return nil, fmt.Errorf("listener pool: %w", err)
	}
	db.listener = pool
	return pool, nil
}

// Close closes the pools. Stop River before calling it.
func (db *DB) Close() error {
	db.listenMu.Lock()
	if db.listener != nil {
		db.listener.Close()
		db.listener = nil
	}
	db.listenMu.Unlock()
	var errs []error
	if db.reader != db.writer {
		errs = append(errs, db.reader.Close())
	}
	errs = append(errs, db.writer.Close())
	return errors.Join(errs...)
}

// inTx runs fn in a transaction on the writer, committing when fn returns
// nil and rolling back otherwise (a panic included).
func (db *DB) inTx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	tx, err := db.writer.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback() }()
	if err := fn(tx); err != nil {
		return err
	}
	return tx.Commit()
}

// inJobTx runs fn in a write transaction for one of the small writes
// every job makes; on SQLite the transaction may be shared with other such
// writes (groupCommitter.inTx says how), so fn must use the context it is
// given and tx alone, and return its errors: a failure rolls back fn's
// writes only.
func (db *DB) inJobTx(ctx context.Context, fn func(ctx context.Context, tx *sql.Tx) error) error {
	if db.group != nil {
		return db.group.inTx(ctx, fn)
	}
	return db.inTx(ctx, func(tx *sql.Tx) error { return fn(ctx, tx) })
}

// execJob runs one of the small writes every job makes: on SQLite in a
// transaction that may be shared with other such writes (one fsync for
// them all, groupCommitter), on PostgreSQL as it is.
func (db *DB) execJob(ctx context.Context, query string, args ...any) (sql.Result, error) {
	if db.group == nil {
		return db.writer.ExecContext(ctx, query, args...)
	}
	var res sql.Result
	err := db.group.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		var err error
		res, err = tx.ExecContext(ctx, query, args...)
		return err
	})
	return res, err
}

// forUpdate is the row-lock clause for a read that a write in the same
// transaction depends on. SQLite has no row locks and needs none: its
// transactions take the database write lock at BEGIN.
func (db *DB) forUpdate() string {
	if db.engine == EnginePostgres {
		return " FOR UPDATE"
	}
	return ""
}

// contains is the condition "column contains the text of param", both
// already in lower case: a substring, not a pattern (no LIKE wildcards).
func (db *DB) contains(column, param string) string {
	if db.engine == EnginePostgres {
		return "strpos(" + column + ", " + param + ") > 0"
	}
	return "instr(" + column + ", " + param + ") > 0"
}

// timeLayout is how times are stored as SQLite TEXT: fixed width so that
// text order is time order, microseconds because that is PostgreSQL's
// precision and both engines must round-trip the same value.
const timeLayout = "2006-01-02T15:04:05.000000Z"

// nowUTC returns the current time as it will read back from either engine.
func nowUTC() time.Time {
	return time.Now().UTC().Truncate(time.Microsecond)
}

// param is the placeholder of the n-th argument of a statement: $n on
// PostgreSQL, an anonymous ? on SQLite, where the arguments must then
// come in the order their placeholders appear. SQLite's driver looks up
// the name of each numbered parameter as it binds it, in a list: a cost
// that grows with the square of a statement's parameters (a 500-row
// insert of items spent a tenth of its CPU there). Multi-row statements
// use it; the others keep $n on both engines.
func (db *DB) param(n int) string {
	if db.engine == EngineSQLite {
		return "?"
	}
	return "$" + strconv.Itoa(n)
}

// valueRows writes the rows of a multi-row VALUES list: rows of width
// placeholders, numbered from first+1 in order ("($1,$2),($3,$4)"; param).
func (db *DB) valueRows(b *strings.Builder, rows, width, first int) {
	n := first
	for r := range rows {
		if r > 0 {
			b.WriteByte(',')
		}
		b.WriteByte('(')
		for c := range width {
			if c > 0 {
				b.WriteByte(',')
			}
			n++
			b.WriteString(db.param(n))
		}
		b.WriteByte(')')
	}
}

// timeArg converts t to the engine's representation of a stored time.
func (db *DB) timeArg(t time.Time) any {
	t = t.UTC().Truncate(time.Microsecond)
	if db.engine == EngineSQLite {
		return t.Format(timeLayout)
	}
	return t
}

// timePtrArg is timeArg for a nullable time.
func (db *DB) timePtrArg(t *time.Time) any {
	if t == nil {
		return nil
	}
	return db.timeArg(*t)
}

// scanTime scans a stored time from either engine: time.Time from
// PostgreSQL, text from SQLite.
type scanTime struct {
	Time  time.Time
	Valid bool
}

// Scan implements sql.Scanner.
func (st *scanTime) Scan(src any) error {
	switch v := src.(type) {
	case nil:
		*st = scanTime{}
		return nil
	case time.Time:
		*st = scanTime{Time: v.UTC(), Valid: true}
		return nil
	case string:
		return st.parse(v)
	case []byte:
		return st.parse(string(v))
	}
	return fmt.Errorf("scan time: unsupported type %T", src)
}

func (st *scanTime) parse(s string) error {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return fmt.Errorf("scan time: %w", err)
	}
	*st = scanTime{Time: t.UTC(), Valid: true}
	return nil
}

// ptr returns the time or nil when it is NULL.
func (st scanTime) ptr() *time.Time {
	if !st.Valid {
		return nil
	}
	t := st.Time
	return &t
}

// jsonArg converts a JSON document to a query argument: NULL when empty,
// text otherwise (jsonb on PostgreSQL parses it).
func jsonArg(raw []byte) any {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	return string(raw)
}

// isUniqueViolation reports whether err is a unique or primary-key
// constraint violation on either engine.
func isUniqueViolation(err error) bool {
	if pgErr, ok := errors.AsType[*pgconn.PgError](err); ok {
		return pgErr.Code == "23505"
	}
	if sqlErr, ok := errors.AsType[*sqlite.Error](err); ok {
		c := sqlErr.Code()
		return c == sqlite3.SQLITE_CONSTRAINT_UNIQUE || c == sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY
	}
	return false
}
