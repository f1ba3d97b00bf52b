package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func openCacheTestDB(t *testing.T) *DB {
	t.Helper()
	db, err := Open(t.Context(), "sqlite:"+filepath.Join(t.TempDir(), "cache.db"))
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, db.Close()) })
	_, err = db.Writer().ExecContext(t.Context(), `CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT NOT NULL)`)
	require.NoError(t, err)
	return db
}

// cachedStmts returns how many statements the writer's connection keeps.
func cachedStmts(t *testing.T, db *sql.DB) int {
	t.Helper()
	conn, err := db.Conn(t.Context())
	require.NoError(t, err)
	defer func() { require.NoError(t, conn.Close()) }()
	n := -1
	require.NoError(t, conn.Raw(func(dc any) error {
		sc, ok := dc.(*stmtCacheConn)
		require.True(t, ok, "connection is %T", dc)
		require.Equal(t, sc.lru.Len(), len(sc.stmts))
		n = len(sc.stmts)
		return nil
	}))
	return n
}

func TestStmtCacheReusesStatements(t *testing.T) {
	t.Parallel()
	db := openCacheTestDB(t)
	ctx := t.Context()
	w := db.Writer()
	before := cachedStmts(t, w)
	for i := range 10 {
		_, err := w.ExecContext(ctx, `INSERT INTO t (id, v) VALUES ($1, $2)`, i, fmt.Sprint("v", i))
		require.NoError(t, err)
		var v string
		require.NoError(t, w.QueryRowContext(ctx, `SELECT v FROM t WHERE id = $1`, i).Scan(&v))
		require.Equal(t, fmt.Sprint("v", i), v)
	}
	require.Equal(t, before+2, cachedStmts(t, w), "one statement kept per text")

	// An error leaves the kept statement usable.
	_, err := w.ExecContext(ctx, `INSERT INTO t (id, v) VALUES ($1, $2)`, 1, "dup")
	require.Error(t, err)
	_, err = w.ExecContext(ctx, `INSERT INTO t (id, v) VALUES ($1, $2)`, 100, "v100")
	require.NoError(t, err)
}

func TestStmtCacheSameQueryWhileRowsOpen(t *testing.T) {
	t.Parallel()
	db := openCacheTestDB(t)
	ctx := t.Context()
	for i := range 3 {
		_, err := db.Writer().ExecContext(ctx, `INSERT INTO t (id, v) VALUES ($1, $2)`, i, fmt.Sprint("v", i))
		require.NoError(t, err)
	}
	tx, err := db.Writer().BeginTx(ctx, nil)
	require.NoError(t, err)
	defer func() { _ = tx.Rollback() }()
	const q = `SELECT id, v FROM t WHERE id >= $1 ORDER BY id`
	rows, err := tx.QueryContext(ctx, q, 0)
	require.NoError(t, err)
	var ids []int
	for rows.Next() {
		var (
			id int
			v  string
		)
		require.NoError(t, rows.Scan(&id, &v))
		ids = append(ids, id)
		// The same text again on the same connection while its rows are
		// open: prepared afresh rather than resetting the open rows.
		var n int
		require.NoError(t, tx.QueryRowContext(ctx, `SELECT count(*) FROM (`+q+`)`, id).Scan(&n))
		inner, err := tx.QueryContext(ctx, q, id)
		require.NoError(t, err)
		require.True(t, inner.Next())
		var innerID int
		var innerV string
		require.NoError(t, inner.Scan(&innerID, &innerV))
		require.Equal(t, id, innerID)
		require.NoError(t, inner.Close())
	}
	require.NoError(t, rows.Err())
	require.NoError(t, rows.Close())
	require.Equal(t, []int{0, 1, 2}, ids)
	require.NoError(t, tx.Commit())
}

func TestStmtCacheSchemaChange(t *testing.T) {
	t.Parallel()
	db := openCacheTestDB(t)
	ctx := t.Context()
	w := db.Writer()
	_, err := w.ExecContext(ctx, `INSERT INTO t (id, v) VALUES (1, 'a')`)
	require.NoError(t, err)
	cols := func() []string {
		rows, err := w.QueryContext(ctx, `SELECT * FROM t`)
		require.NoError(t, err)
		defer func() { require.NoError(t, rows.Close()) }()
		c, err := rows.Columns()
		require.NoError(t, err)
		return c
	}
	require.Equal(t, []string{"id", "v"}, cols())
	_, err = w.ExecContext(ctx, `ALTER TABLE t ADD COLUMN extra INTEGER NOT NULL DEFAULT 7`)
	require.NoError(t, err)
	require.Equal(t, []string{"id", "v", "extra"}, cols(), "a kept statement is recompiled after a schema change")
}

func TestStmtCacheEvicts(t *testing.T) {
	t.Parallel()
	db := openCacheTestDB(t)
	ctx := t.Context()
	w := db.Writer()
	// Rows of one statement stay open while the others push it out.
	tx, err := w.BeginTx(ctx, nil)
	require.NoError(t, err)
	defer func() { _ = tx.Rollback() }()
	_, err = tx.ExecContext(ctx, `INSERT INTO t (id, v) VALUES (1, 'a'), (2, 'b')`)
	require.NoError(t, err)
	open, err := tx.QueryContext(ctx, `SELECT v FROM t ORDER BY id`)
	require.NoError(t, err)
	require.True(t, open.Next())
	for i := range stmtCacheSize + 20 {
		var n int
		require.NoError(t, tx.QueryRowContext(ctx, fmt.Sprintf(`SELECT %d + count(*) FROM t`, i)).Scan(&n))
		require.Equal(t, i+2, n)
	}
	var v string
	require.NoError(t, open.Scan(&v))
	require.Equal(t, "a", v)
	require.True(t, open.Next())
	require.NoError(t, open.Scan(&v))
	require.Equal(t, "b", v)
	require.NoError(t, open.Close())
	require.NoError(t, tx.Commit())
	require.Equal(t, stmtCacheSize, cachedStmts(t, w))
}

func TestStmtCacheReaderSeesCommits(t *testing.T) {
	t.Parallel()
	db := openCacheTestDB(t)
	ctx := t.Context()
	for i := range 5 {
		_, err := db.Writer().ExecContext(ctx, `INSERT INTO t (id, v) VALUES ($1, 'x')`, i)
		require.NoError(t, err)
		// A kept statement holds no read transaction between uses, so
		// every reader connection sees the latest commit.
		for range 8 {
			var n int
			require.NoError(t, db.Reader().QueryRowContext(ctx, `SELECT count(*) FROM t`).Scan(&n))
			require.Equal(t, i+1, n)
		}
	}
}

func TestStmtCacheCancelledContext(t *testing.T) {
	t.Parallel()
	db := openCacheTestDB(t)
	w := db.Writer()
	const q = `SELECT count(*) FROM t WHERE v <> $1`
	var n int
	require.NoError(t, w.QueryRowContext(t.Context(), q, "z").Scan(&n))
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	require.Error(t, w.QueryRowContext(ctx, q, "z").Scan(&n))
	_, err := w.ExecContext(ctx, `INSERT INTO t (id, v) VALUES (1, 'a')`)
	require.Error(t, err)
	require.NoError(t, w.QueryRowContext(t.Context(), q, "z").Scan(&n))
	require.Equal(t, 0, n)
}
