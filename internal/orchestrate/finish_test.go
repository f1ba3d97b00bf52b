package orchestrate_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/blobstore"
	"github.com/seedengine/seedengine/internal/layout"
	"github.com/seedengine/seedengine/internal/orchestrate"
)

type chunkList []*seedengine.BatchChunk

func (l chunkList) FindBatchChunk(_ context.Context, _ string, i int) (*seedengine.BatchChunk, error) {
	return l[i], nil
}

// TestFinisherWritesMissingCheckpoints: a file whose checkpoint was lost
// between its commit and the write (the process died) gets it when the
// batch finishes; skipped and failed files do not.
func TestFinisherWritesMissingCheckpoints(t *testing.T) {
	t.Parallel()
	store, err := blobstore.Open(t.Context(), "mem://")
	require.NoError(t, err)
	t.Cleanup(func() { _ = store.Close() })
	file := func(n int, status seedengine.ChunkStatus, res orchestrate.FileResult) *seedengine.BatchChunk {
		key, err := layout.RawChunkKey(testPartition, n)
		require.NoError(t, err)
		in, _ := json.Marshal(orchestrate.FileInput{Key: key, Chunk: n})
		out, _ := json.Marshal(res)
		return &seedengine.BatchChunk{Step: seedengine.StepFile, Key: key, Status: status, Input: in, Result: out}
	}
	chunks := chunkList{
		file(1, seedengine.ChunkDone, orchestrate.FileResult{Files: orchestrate.FileCounts{Processed: 1}}),
		file(2, seedengine.ChunkDone, orchestrate.FileResult{Files: orchestrate.FileCounts{Skipped: 1}}),
		file(3, seedengine.ChunkFailed, orchestrate.FileResult{}),
		{Step: seedengine.StepDomain, Key: "a.gov.sg", Status: seedengine.ChunkDone},
	}
	params, _ := json.Marshal(seedengine.OrchestrationBatchParams{Date: testPartition.Date})
	b := &seedengine.Batch{ID: "b1", Kind: seedengine.BatchOrchestration, Country: testPartition.Country, Category: testPartition.Category,
		Params: params, Chunks: seedengine.ChunkCounts{Total: len(chunks)}}
	finish := orchestrate.Finisher(store, chunks)
	for range 2 { // safe to repeat
		require.NoError(t, finish(t.Context(), b))
		for n, want := range map[int]bool{1: true, 2: false, 3: false} {
			key, err := layout.RawCheckpointKey(testPartition, n)
			require.NoError(t, err)
			ok, err := store.Exists(t.Context(), key)
			require.NoError(t, err)
			require.Equal(t, want, ok, "raw_%04d", n)
		}
	}
}
