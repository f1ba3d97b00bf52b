package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func insertRow(id int) func(ctx context.Context, tx *sql.Tx) error {
	return func(ctx context.Context, tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO t (id, v) VALUES ($1, 'x')`, id)
		return err
	}
}

func rowIDs(t *testing.T, db *DB) map[int]bool {
	t.Helper()
	rows, err := db.Reader().QueryContext(t.Context(), `SELECT id FROM t`)
	require.NoError(t, err)
	defer func() { require.NoError(t, rows.Close()) }()
	ids := map[int]bool{}
	for rows.Next() {
		var id int
		require.NoError(t, rows.Scan(&id))
		ids[id] = true
	}
	require.NoError(t, rows.Err())
	return ids
}

// blockGroup starts a write that holds the committer until release is
// closed, and waits until n more writes have queued behind it, so that
// those n share one transaction.
func blockGroup(t *testing.T, g *groupCommitter, n int, queue func()) (release func()) {
	t.Helper()
	started, unblock := make(chan struct{}), make(chan struct{})
	done := make(chan error, 1)
	go func() {
		done <- g.inTx(t.Context(), func(ctx context.Context, tx *sql.Tx) error {
			close(started)
			<-unblock
			return nil
		})
	}()
	<-started
	queue()
	require.Eventually(t, func() bool { return g.calls.queued() == n }, 5*time.Second, time.Millisecond)
	return func() {
		close(unblock)
		require.NoError(t, <-done)
	}
}

func TestGroupCommitIsolatesWrites(t *testing.T) {
	t.Parallel()
	db := openCacheTestDB(t)
	g := newGroupCommitter(db.Writer())
	errFailed := errors.New("failed on purpose")

	const n = 40
	var wg sync.WaitGroup
	errs := make([]error, n)
	panics := make([]any, n)
	release := blockGroup(t, g, n, func() {
		for i := range n {
			wg.Go(func() {
				defer func() { panics[i] = recover() }()
				errs[i] = g.inTx(t.Context(), func(ctx context.Context, tx *sql.Tx) error {
					if err := insertRow(i)(ctx, tx); err != nil {
						return err
					}
					switch i % 10 {
					case 3:
						return errFailed
					case 7:
						panic(fmt.Sprint("panic ", i))
					}
					return nil
				})
			})
		}
	})
	release()
	wg.Wait()

	ids := rowIDs(t, db)
	for i := range n {
		switch i % 10 {
		case 3:
			require.ErrorIs(t, errs[i], errFailed, "write %d", i)
			require.False(t, ids[i], "a failed write is rolled back: %d", i)
		case 7:
			require.Equal(t, fmt.Sprint("panic ", i), panics[i], "the panic is raised in its caller")
			require.False(t, ids[i], "a panicking write is rolled back: %d", i)
		default:
			require.NoError(t, errs[i], "write %d", i)
			require.Nil(t, panics[i])
			require.True(t, ids[i], "write %d committed", i)
		}
	}
	require.Equal(t, 2, g.txs, "the queued writes shared one transaction")
}

func TestGroupCommitCancelledBeforeRun(t *testing.T) {
	t.Parallel()
	db := openCacheTestDB(t)
	g := newGroupCommitter(db.Writer())
	ctx, cancel := context.WithCancel(t.Context())
	errc := make(chan error, 1)
	release := blockGroup(t, g, 2, func() {
		go func() { errc <- g.inTx(ctx, insertRow(1)) }()
		go func() { errc <- g.inTx(t.Context(), insertRow(2)) }()
	})
	cancel()
	release()
	got := []error{<-errc, <-errc}
	require.ElementsMatch(t, []error{nil, context.Canceled}, got)
	require.Equal(t, map[int]bool{2: true}, rowIDs(t, db))
}

func TestGroupCommitLostTransaction(t *testing.T) {
	t.Parallel()
	db := openCacheTestDB(t)
	g := newGroupCommitter(db.Writer())
	// A write that ends the transaction under the committer, as SQLite
	// does after some errors, takes the whole group with it: nothing is
	// written and every caller hears of it.
	for _, returnErr := range []bool{true, false} {
		var wg sync.WaitGroup
		errs := make([]error, 3)
		release := blockGroup(t, g, 3, func() {
			wg.Go(func() { errs[0] = g.inTx(t.Context(), insertRow(10)) })
			require.Eventually(t, func() bool { return g.calls.queued() == 1 }, 5*time.Second, time.Millisecond)
			wg.Go(func() {
				errs[1] = g.inTx(t.Context(), func(ctx context.Context, tx *sql.Tx) error {
					if _, err := tx.ExecContext(ctx, `ROLLBACK`); err != nil {
						return err
					}
					if returnErr {
						return errors.New("write failed")
					}
					return nil
				})
			})
			require.Eventually(t, func() bool { return g.calls.queued() == 2 }, 5*time.Second, time.Millisecond)
			wg.Go(func() { errs[2] = g.inTx(t.Context(), insertRow(11)) })
		})
		release()
		wg.Wait()
		for i, err := range errs {
			require.Error(t, err, "write %d", i)
		}
		require.Empty(t, rowIDs(t, db))
	}
	// The committer goes on working.
	require.NoError(t, g.inTx(t.Context(), insertRow(12)))
	require.Equal(t, map[int]bool{12: true}, rowIDs(t, db))
}
