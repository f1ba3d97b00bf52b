package jobs

import (
	"context"
	"encoding/json"
	"log/slog"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/sqlstore"
	"github.com/seedengine/seedengine/internal/sqlstore/sqlstoretest"
)

type groupTestJob struct{ seedengine.ChunkRef }

func (groupTestJob) Kind() string { return "group_test_chunk" }

// TestChunkCompleterGroup writes completions as one group, as they are
// when they queue behind a group being written: each chunk's outcome and
// job commit together, and a completion that cannot be written fails
// alone while the others of its group are recorded.
func TestChunkCompleterGroup(t *testing.T) {
	t.Parallel()
	db := sqlstoretest.OpenPostgres(t)
	ctx := t.Context()
	noop := func(context.Context, *seedengine.Batch, *seedengine.BatchChunk) (seedengine.ChunkOutcome, error) {
		return seedengine.ChunkOutcome{}, nil
	}
	q, err := New(db.Writer(), string(db.Engine()), sqlstore.NewBatchService(db), Config{Logger: slog.New(slog.DiscardHandler)},
		Batch[groupTestJob](seedengine.BatchResearch, noop))
	require.NoError(t, err)
	require.NotNil(t, q.groups, "PostgreSQL groups its completions")

	chunks := make([]*seedengine.BatchChunk, 3)
	for i := range chunks {
		chunks[i] = &seedengine.BatchChunk{Input: json.RawMessage(`[]`), Items: 2}
	}
	b := &seedengine.Batch{Kind: seedengine.BatchResearch, Country: "sg", Category: "news", ChunkSize: 2}
	require.NoError(t, q.CreateBatch(ctx, b, chunks))
	var jobIDs []int64
	rows, err := db.Reader().QueryContext(ctx, `SELECT id FROM river_job WHERE kind = 'group_test_chunk' ORDER BY (args->>'chunk')::int`)
	require.NoError(t, err)
	for rows.Next() {
		var id int64
		require.NoError(t, rows.Scan(&id))
		jobIDs = append(jobIDs, id)
	}
	require.NoError(t, rows.Err())
	require.Len(t, jobIDs, 3)
	// As River's fetch leaves them: running.
	_, err = db.Writer().ExecContext(ctx, `UPDATE river_job SET state = 'running', attempt = 1, attempted_at = now() WHERE kind = 'group_test_chunk'`)
	require.NoError(t, err)

	pending := func(job int64, index int, succeeded int) *pendingCompletion {
		return &pendingCompletion{ctx: ctx, jobID: job,
			done: sqlstore.ChunkDone{BatchID: b.ID, Index: index, Out: seedengine.ChunkOutcome{Succeeded: succeeded, Result: json.RawMessage(`{"n":1}`)}}}
	}
	group := []*pendingCompletion{pending(jobIDs[0], 0, 2), pending(jobIDs[2], 2, 1), pending(jobIDs[1], 7, 2)}
	q.groups.writeCompletions(group)
	require.NoError(t, group[0].err)
	require.NoError(t, group[1].err)
	requireCode(t, group[2].err, seedengine.ENOTFOUND)

	states := map[int64]string{}
	rows, err = db.Reader().QueryContext(ctx, `SELECT id, state FROM river_job WHERE kind = 'group_test_chunk'`)
	require.NoError(t, err)
	for rows.Next() {
		var (
			id int64
			st string
		)
		require.NoError(t, rows.Scan(&id, &st))
		states[id] = st
	}
	require.NoError(t, rows.Err())
	require.Equal(t, map[int64]string{jobIDs[0]: "completed", jobIDs[1]: "running", jobIDs[2]: "completed"}, states,
		"the job of the chunk that failed is not completed")

	got, err := q.batches.FindBatchByID(ctx, b.ID)
	require.NoError(t, err)
	require.Equal(t, seedengine.ChunkCounts{Total: 3, Done: 2}, got.Chunks)
	require.Equal(t, seedengine.ItemCounts{Total: 6, Succeeded: 3}, got.Items)

	// Recorded already (a job run again): counts nothing, its job completes.
	_, err = db.Writer().ExecContext(ctx, `UPDATE river_job SET state = 'running', finalized_at = NULL WHERE id = $1`, jobIDs[0])
	require.NoError(t, err)
	again := []*pendingCompletion{pending(jobIDs[0], 0, 2), pending(jobIDs[1], 1, 2)}
	q.groups.writeCompletions(again)
	require.NoError(t, again[0].err)
	require.NoError(t, again[1].err)
	got, err = q.batches.FindBatchByID(ctx, b.ID)
	require.NoError(t, err)
	require.Equal(t, seedengine.BatchCompleted, got.Status)
	require.Equal(t, seedengine.ItemCounts{Total: 6, Succeeded: 5}, got.Items)
}

func requireCode(t *testing.T, err error, code string) {
	t.Helper()
	require.Error(t, err)
	require.Equal(t, code, seedengine.ErrorCode(err), err.Error())
}
