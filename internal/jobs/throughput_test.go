package jobs_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/sqlstore"
	"github.com/seedengine/seedengine/internal/sqlstore/sqlstoretest"
)

// Throughput counts the chunks finished in the window, by minute, and
// those waiting with how long the oldest has waited, on both engines.
func TestThroughput(t *testing.T) {
	t.Parallel()
	sqlstoretest.Engines(t, func(t *testing.T, db *sqlstore.DB) {
		q, started := wakeQueue(t, db, 50*time.Millisecond, false)
		go func() {
			for range started {
			}
		}()
		ctx := t.Context()
		batch := &seedengine.Batch{Kind: seedengine.BatchResearch, Country: "sg", Category: "news", ChunkSize: 1}
		chunks := make([]*seedengine.BatchChunk, 5)
		for i := range chunks {
			chunks[i] = &seedengine.BatchChunk{Input: []byte(`["https://example.test/"]`), Items: 1}
		}
		require.NoError(t, q.CreateBatch(ctx, batch, chunks))
		require.Eventually(t, func() bool {
			b, err := q.Batches().FindBatchByID(ctx, batch.ID)
			require.NoError(t, err)
			return b.Status == seedengine.BatchCompleted
		}, 30*time.Second, 20*time.Millisecond)
		var research seedengine.KindThroughput
		require.Eventually(t, func() bool {
			through, err := q.Throughput(ctx, 3)
			require.NoError(t, err)
			for _, k := range through {
				if k.Kind == "research_chunk" {
					research = k
				}
			}
			return research.Completed == 5
		}, 10*time.Second, 20*time.Millisecond)
		require.Len(t, research.ByMinute, 3)
		require.Equal(t, 5, research.ByMinute[1]+research.ByMinute[2], "in this minute or, across its turn, the last")
		require.Greater(t, research.PerSecond, 0.0)
		require.Zero(t, research.Available)

		// Stopped, the queue leaves a new batch's chunks waiting.
		stopCtx, cancel := context.WithTimeout(ctx, 20*time.Second)
		defer cancel()
		require.NoError(t, q.Stop(stopCtx))
		require.NoError(t, q.CreateBatch(ctx, &seedengine.Batch{Kind: seedengine.BatchResearch, Country: "sg", Category: "news", ChunkSize: 1},
			chunks[:2]))
		time.Sleep(50 * time.Millisecond)
		through, err := q.Throughput(ctx, 1)
		require.NoError(t, err)
		for _, k := range through {
			if k.Kind == "research_chunk" {
				research = k
			}
		}
		require.Equal(t, 2, research.Available)
		require.Greater(t, research.OldestWaitingSeconds, 0.0)
		require.Less(t, research.OldestWaitingSeconds, 60.0)

		_, err = q.Throughput(ctx, 61)
		require.Equal(t, seedengine.EINVALID, seedengine.ErrorCode(err))
	})
}
