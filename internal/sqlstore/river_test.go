package sqlstore_test

import (
	"context"
	"database/sql"
	"errors"
	"testing"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverdatabasesql"
	"github.com/riverqueue/river/riverdriver/riversqlite"
	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/sqlstore"
	"github.com/seedengine/seedengine/internal/sqlstore/sqlstoretest"
)

type testChunkArgs struct {
	BatchID string `json:"batch_id"`
	Index   int    `json:"index"`
}

func (testChunkArgs) Kind() string { return "sqlstore_test_chunk" }

// riverEnqueuer enqueues one River job per chunk, as the jobs package does,
// to hold the store to what River needs: its transactions on the writer
// carry River's inserts on both engines.
type riverEnqueuer struct {
	client *river.Client[*sql.Tx]
	err    error // returned after inserting, to test the rollback
}

func (e *riverEnqueuer) EnqueueBatchTx(ctx context.Context, tx *sql.Tx, b *seedengine.Batch, chunks []*seedengine.BatchChunk) error {
	params := make([]river.InsertManyParams, len(chunks))
	for i, c := range chunks {
		params[i] = river.InsertManyParams{Args: testChunkArgs{BatchID: b.ID, Index: c.Index}}
	}
	if _, err := e.client.InsertManyTx(ctx, tx, params); err != nil {
		return err
	}
	return e.err
}

func TestCreateBatchWithRiver(t *testing.T) {
	t.Parallel()
	sqlstoretest.Engines(t, func(t *testing.T, db *sqlstore.DB) {
		ctx := t.Context()
		enq := &riverEnqueuer{client: insertOnlyClient(t, db)}
		s := newJobsStore(db)
		s.Enqueuer = enq

		b := &seedengine.Batch{Kind: seedengine.BatchResearch}
		require.NoError(t, s.CreateBatch(ctx, b, chunksOf(1, 2, 3)))
		requireJobs(t, db, 3)

		enq.err = errors.New("after insert")
		err := s.CreateBatch(ctx, &seedengine.Batch{Kind: seedengine.BatchResearch}, chunksOf(1, 1))
		require.ErrorIs(t, err, enq.err)
		requireJobs(t, db, 3)
		requireBatchRows(t, db, 1, 3)
	})
}

// insertOnlyClient is a River client with no queues and no workers, on
// the store's writer, for tests that enqueue as the jobs package does.
func insertOnlyClient(t *testing.T, db *sqlstore.DB) *river.Client[*sql.Tx] {
	t.Helper()
	var client *river.Client[*sql.Tx]
	var err error
	if db.Engine() == sqlstore.EngineSQLite {
		client, err = river.NewClient(riversqlite.New(db.Writer()), &river.Config{})
	} else {
		client, err = river.NewClient(riverdatabasesql.New(db.Writer()), &river.Config{})
	}
	require.NoError(t, err)
	return client
}

func requireJobs(t *testing.T, db *sqlstore.DB, want int) {
	t.Helper()
	var n int
	require.NoError(t, db.Reader().QueryRowContext(t.Context(), `SELECT COUNT(*) FROM river_job`).Scan(&n))
	require.Equal(t, want, n)
}
