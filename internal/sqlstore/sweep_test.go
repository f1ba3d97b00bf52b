package sqlstore_test

import (
	"context"
	"database/sql"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/sqlstore"
	"github.com/seedengine/seedengine/internal/sqlstore/sqlstoretest"
)

// sweepArgs has the args shape of the jobs package's chunk jobs.
type sweepArgs struct {
	BatchID string `json:"batch_id"`
	Chunk   int    `json:"chunk"`
}

func (sweepArgs) Kind() string { return "sqlstore_test_sweep" }

type sweepEnqueuer struct{ client *river.Client[*sql.Tx] }

func (e sweepEnqueuer) EnqueueBatchTx(ctx context.Context, tx *sql.Tx, b *seedengine.Batch, chunks []*seedengine.BatchChunk) error {
	for _, c := range chunks {
		if _, err := e.client.InsertTx(ctx, tx, sweepArgs{BatchID: b.ID, Chunk: c.Index}, nil); err != nil {
			return err
		}
	}
	return nil
}

func TestFailOrphanedChunks(t *testing.T) {
	t.Parallel()
	sqlstoretest.Engines(t, func(t *testing.T, db *sqlstore.DB) {
		ctx := t.Context()
		s := sqlstore.NewBatchService(db)
		s.Enqueuer = sweepEnqueuer{client: insertOnlyClient(t, db)}

		b := &seedengine.Batch{Kind: seedengine.BatchResearch}
		require.NoError(t, s.CreateBatch(ctx, b, chunksOf(2, 3, 4)))
		require.NoError(t, s.StartBatchChunk(ctx, b.ID, 1))

		// Every job can still run: nothing is an orphan.
		n, err := s.FailOrphanedChunks(ctx, 0)
		require.NoError(t, err)
		require.Zero(t, n)

		// The job of running chunk 1 is discarded, as River's rescuer does
		// with a job whose process died on its last attempt; the job of
		// queued chunk 2 is gone altogether.
		_, err = db.Writer().ExecContext(ctx, `UPDATE river_job SET state = 'discarded', finalized_at = $1 WHERE id = (SELECT min(id) + 1 FROM river_job)`, time.Now().UTC())
		require.NoError(t, err)
		_, err = db.Writer().ExecContext(ctx, `DELETE FROM river_job WHERE id = (SELECT max(id) FROM river_job)`)
		require.NoError(t, err)

		// Within the grace period nothing is touched.
		n, err = s.FailOrphanedChunks(ctx, time.Hour)
		require.NoError(t, err)
		require.Zero(t, n)

		n, err = s.FailOrphanedChunks(ctx, 0)
		require.NoError(t, err)
		require.Equal(t, 2, n)
		for i, want := range []seedengine.ChunkStatus{seedengine.ChunkQueued, seedengine.ChunkFailed, seedengine.ChunkFailed} {
			c, err := s.FindBatchChunk(ctx, b.ID, i)
			require.NoError(t, err)
			require.Equal(t, want, c.Status, "chunk %d", i)
		}
		got, err := s.FindBatchByID(ctx, b.ID)
		require.NoError(t, err)
		require.Equal(t, seedengine.ChunkCounts{Total: 3, Done: 0, Failed: 2}, got.Chunks)
		require.Equal(t, 7, got.Items.Failed)

		// A second sweep finds nothing more.
		n, err = s.FailOrphanedChunks(ctx, 0)
		require.NoError(t, err)
		require.Zero(t, n)
	})
}
