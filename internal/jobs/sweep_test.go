package jobs_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/jobs"
	"github.com/seedengine/seedengine/internal/sqlstore"
	"github.com/seedengine/seedengine/internal/sqlstore/sqlstoretest"
)

// A chunk whose job was discarded (River's rescuer does that to a job
// whose process died on its last attempt) or is gone is failed by the
// sweep, unless it was touched within the grace period; chunks whose job
// can still run are left alone.
func TestFailOrphanedChunks(t *testing.T) {
	t.Parallel()
	sqlstoretest.Engines(t, func(t *testing.T, db *sqlstore.DB) {
		ctx := t.Context()
		var runs counter
		bd := setup(t, db, testConfig(), map[seedengine.BatchKind]jobs.ChunkProcessor{seedengine.BatchResearch: succeed(&runs)})
		b, chunks := newBatch(3)
		require.NoError(t, bd.q.CreateBatch(ctx, b, chunks))
		require.NoError(t, bd.bs.StartBatchChunk(ctx, b.ID, 1))

		// Every job can still run: nothing is an orphan.
		n, err := bd.q.FailOrphanedChunks(ctx, 0)
		require.NoError(t, err)
		require.Zero(t, n)

		// The job of running chunk 1 is discarded; the job of queued chunk
		// 2 is gone altogether.
		_, err = db.Writer().ExecContext(ctx, `UPDATE river_job SET state = 'discarded', finalized_at = $1 WHERE id = (SELECT min(id) + 1 FROM river_job)`, time.Now().UTC())
		require.NoError(t, err)
		_, err = db.Writer().ExecContext(ctx, `DELETE FROM river_job WHERE id = (SELECT max(id) FROM river_job)`)
		require.NoError(t, err)

		// Within the grace period nothing is touched.
		n, err = bd.q.FailOrphanedChunks(ctx, time.Hour)
		require.NoError(t, err)
		require.Zero(t, n)

		n, err = bd.q.FailOrphanedChunks(ctx, 0)
		require.NoError(t, err)
		require.Equal(t, 2, n)
		for i, want := range []seedengine.ChunkStatus{seedengine.ChunkQueued, seedengine.ChunkFailed, seedengine.ChunkFailed} {
			c, err := bd.bs.FindBatchChunk(ctx, b.ID, i)
			require.NoError(t, err)
			require.Equal(t, want, c.Status, "chunk %d", i)
		}
		got, err := bd.bs.FindBatchByID(ctx, b.ID)
		require.NoError(t, err)
		require.Equal(t, seedengine.ChunkCounts{Total: 3, Done: 0, Failed: 2}, got.Chunks)
		require.Equal(t, 5, got.Items.Failed, "chunks 1 and 2 hold 2 and 3 items")

		// A second sweep finds nothing more.
		n, err = bd.q.FailOrphanedChunks(ctx, 0)
		require.NoError(t, err)
		require.Zero(t, n)
	})
}
