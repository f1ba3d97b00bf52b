package sqlstore_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/sqlstore"
	"github.com/seedengine/seedengine/internal/sqlstore/sqlstoretest"
)

// fakeEnqueuer records what CreateBatch asked it to enqueue and, through the
// transaction it was handed, what the batch looked like at that moment.
type fakeEnqueuer struct {
	err error // returned after recording, to test the rollback

	mu    sync.Mutex
	calls []enqueueCall
}

type enqueueCall struct {
	batchID     string
	total       int      // the batch's chunk total as handed over
	indexes     []int    // of the chunks handed over
	keys        []string // of the chunks handed over
	chunkRowsTx int      // chunk rows visible inside the transaction
}

func (e *fakeEnqueuer) EnqueueBatchTx(ctx context.Context, tx *sql.Tx, b *seedengine.Batch, chunks []*seedengine.BatchChunk) error {
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM batch_chunks WHERE batch_id = $1`, b.ID).Scan(&n); err != nil {
		return err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	call := enqueueCall{batchID: b.ID, total: b.Chunks.Total, chunkRowsTx: n}
	for _, c := range chunks {
		call.indexes = append(call.indexes, c.Index)
		call.keys = append(call.keys, c.Key)
	}
	e.calls = append(e.calls, call)
	return e.err
}

func (e *fakeEnqueuer) Calls() []enqueueCall {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]enqueueCall(nil), e.calls...)
}

func newBatchService(db *sqlstore.DB) (*jobsStore, *fakeEnqueuer) {
	enq := &fakeEnqueuer{}
	s := newJobsStore(db)
	s.Enqueuer = enq
	return s, enq
}

// chunksOf returns chunks holding the given numbers of items.
func chunksOf(items ...int) []*seedengine.BatchChunk {
	chunks := make([]*seedengine.BatchChunk, len(items))
	for i, n := range items {
		urls := make([]string, n)
		for j := range urls {
			urls[j] = fmt.Sprintf("https://example%d-%d.test/", i, j)
		}
		input, _ := json.Marshal(map[string]any{"urls": urls})
		chunks[i] = &seedengine.BatchChunk{Input: input, Items: n}
	}
	return chunks
}

func createBatch(t *testing.T, s *jobsStore, kind seedengine.BatchKind, items ...int) *seedengine.Batch {
	t.Helper()
	b := &seedengine.Batch{Kind: kind, Country: "sg", Category: "news", ChunkSize: 10}
	require.NoError(t, s.CreateBatch(t.Context(), b, chunksOf(items...)))
	return b
}

func findBatch(t *testing.T, s *jobsStore, id string) *seedengine.Batch {
	t.Helper()
	b, err := s.FindBatchByID(t.Context(), id)
	require.NoError(t, err)
	return b
}

func findChunk(t *testing.T, s *jobsStore, id string, index int) *seedengine.BatchChunk {
	t.Helper()
	c, err := s.FindBatchChunk(t.Context(), id, index)
	require.NoError(t, err)
	return c
}

func TestCreateBatch(t *testing.T) {
	t.Parallel()
	sqlstoretest.Engines(t, func(t *testing.T, db *sqlstore.DB) {
		ctx := t.Context()
		s, enq := newBatchService(db)

		chunks := chunksOf(3, 2, 1)
		b := &seedengine.Batch{
			Kind: seedengine.BatchResearch, Country: "sg", Category: "news", ChunkSize: 3,
			Params: json.RawMessage(`{"date":"2026-01-28","queries":["a","b"]}`),
		}
		require.NoError(t, s.CreateBatch(ctx, b, chunks))

		id, err := uuid.Parse(b.ID)
		require.NoError(t, err)
		require.Equal(t, uuid.Version(7), id.Version())
		require.Equal(t, seedengine.BatchQueued, b.Status)
		require.Equal(t, seedengine.ChunkCounts{Total: 3}, b.Chunks)
		require.Equal(t, seedengine.ItemCounts{Total: 6}, b.Items)
		require.False(t, b.CreatedAt.IsZero())
		want := enqueueCall{batchID: b.ID, total: 3, indexes: []int{0, 1, 2}, keys: []string{"", "", ""}, chunkRowsTx: 3}
		require.Equal(t, []enqueueCall{want}, enq.Calls(),
			"the enqueuer runs inside the transaction that wrote the chunks")
		for i, c := range chunks {
			require.Equal(t, b.ID, c.BatchID)
			require.Equal(t, i, c.Index)
			require.Equal(t, seedengine.ChunkQueued, c.Status)
		}

		got := findBatch(t, s, b.ID)
		require.JSONEq(t, string(b.Params), string(got.Params))
		require.Nil(t, got.Result)
		got.Params = b.Params
		require.Equal(t, b, got, "the batch, its times included, round-trips")

		for i, want := range chunks {
			c := findChunk(t, s, b.ID, i)
			require.JSONEq(t, string(want.Input), string(c.Input))
			c.Input = want.Input
			require.Equal(t, want, c)
		}
		_, err = s.FindBatchChunk(ctx, b.ID, 3)
		requireCode(t, err, seedengine.ENOTFOUND)

		// A given id is kept; a taken one is a conflict.
		given := &seedengine.Batch{ID: "batch-given", Kind: seedengine.BatchLiveness}
		require.NoError(t, s.CreateBatch(ctx, given, chunksOf(1)))
		require.Equal(t, "batch-given", findBatch(t, s, "batch-given").ID)
		err = s.CreateBatch(ctx, &seedengine.Batch{ID: "batch-given", Kind: seedengine.BatchLiveness}, chunksOf(1))
		requireCode(t, err, seedengine.ECONFLICT)
	})
}

func TestCreateBatchInvalid(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		batch     *seedengine.Batch
		chunks    []*seedengine.BatchChunk
		wantField string
	}{
		{"unknown kind", &seedengine.Batch{Kind: "mining"}, chunksOf(1), "kind"},
		{"no kind", &seedengine.Batch{}, chunksOf(1), "kind"},
		{"no chunks", &seedengine.Batch{Kind: seedengine.BatchResearch}, nil, "chunks"},
		{"nil chunk", &seedengine.Batch{Kind: seedengine.BatchResearch}, []*seedengine.BatchChunk{nil}, "chunks"},
		{"bad params", &seedengine.Batch{Kind: seedengine.BatchResearch, Params: json.RawMessage(`{`)}, chunksOf(1), "params"},
		{"bad input", &seedengine.Batch{Kind: seedengine.BatchResearch}, []*seedengine.BatchChunk{{Input: json.RawMessage(`[1,`), Items: 1}}, "input"},
		{"repeated step and key", &seedengine.Batch{Kind: seedengine.BatchOrchestration}, []*seedengine.BatchChunk{
			stepChunk(seedengine.StepFile, "raw/a.jsonl", 1), stepChunk(seedengine.StepFile, "raw/b.jsonl", 1), stepChunk(seedengine.StepFile, "raw/a.jsonl", 1),
		}, "chunks"},
		{"key too long", &seedengine.Batch{Kind: seedengine.BatchOrchestration}, []*seedengine.BatchChunk{
			stepChunk(seedengine.StepFile, strings.Repeat("k", 1025), 1),
		}, "chunks"},
	}
	sqlstoretest.Engines(t, func(t *testing.T, db *sqlstore.DB) {
		s, enq := newBatchService(db)
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				err := s.CreateBatch(t.Context(), tt.batch, tt.chunks)
				requireCode(t, err, seedengine.EINVALID)
				require.Equal(t, tt.wantField, seedengine.ErrorField(err))
			})
		}
		require.Empty(t, enq.Calls())
		requireBatchRows(t, db, 0, 0)
	})
}

func TestCreateBatchEnqueueFailsLeavesNothing(t *testing.T) {
	t.Parallel()
	sqlstoretest.Engines(t, func(t *testing.T, db *sqlstore.DB) {
		ctx := t.Context()
		s, enq := newBatchService(db)
		enq.err = errors.New("queue is full")

		b := &seedengine.Batch{Kind: seedengine.BatchResearch}
		err := s.CreateBatch(ctx, b, chunksOf(2, 2))
		require.ErrorIs(t, err, enq.err)
		require.Len(t, enq.Calls(), 1)
		require.Equal(t, 2, enq.Calls()[0].chunkRowsTx)

		_, err = s.FindBatchByID(ctx, b.ID)
		requireCode(t, err, seedengine.ENOTFOUND)
		requireBatchRows(t, db, 0, 0)

		// Without an enqueuer nothing is written either.
		s.Enqueuer = nil
		require.Error(t, s.CreateBatch(ctx, &seedengine.Batch{Kind: seedengine.BatchResearch}, chunksOf(1)))
		requireBatchRows(t, db, 0, 0)

		// The store is still usable after the rollback.
		s.Enqueuer = &fakeEnqueuer{}
		createBatch(t, s, seedengine.BatchResearch, 1)
		requireBatchRows(t, db, 1, 1)
	})
}

func requireBatchRows(t *testing.T, db *sqlstore.DB, batches, chunks int) {
	t.Helper()
	var n int
	require.NoError(t, db.Reader().QueryRowContext(t.Context(), `SELECT COUNT(*) FROM batches`).Scan(&n))
	require.Equal(t, batches, n, "batch rows")
	require.NoError(t, db.Reader().QueryRowContext(t.Context(), `SELECT COUNT(*) FROM batch_chunks`).Scan(&n))
	require.Equal(t, chunks, n, "chunk rows")
}

func TestFindBatches(t *testing.T) {
	t.Parallel()
	sqlstoretest.Engines(t, func(t *testing.T, db *sqlstore.DB) {
		ctx := t.Context()
		s, _ := newBatchService(db)

		kinds := []seedengine.BatchKind{
			seedengine.BatchResearch, seedengine.BatchLiveness, seedengine.BatchResearch,
			seedengine.BatchContract, seedengine.BatchResearch,
		}
		var ids []string // oldest first
		for _, k := range kinds {
			ids = append(ids, createBatch(t, s, k, 1).ID)
		}
		require.NoError(t, s.StartBatchChunk(ctx, ids[2], 0))

		idsOf := func(bs []*seedengine.Batch) []string {
			out := []string{}
			for _, b := range bs {
				out = append(out, b.ID)
			}
			return out
		}
		tests := []struct {
			name      string
			filter    seedengine.BatchFilter
			wantIDs   []string
			wantTotal int
		}{
			{"all newest first", seedengine.BatchFilter{}, []string{ids[4], ids[3], ids[2], ids[1], ids[0]}, 5},
			{"kind", seedengine.BatchFilter{Kind: seedengine.BatchResearch}, []string{ids[4], ids[2], ids[0]}, 3},
			{"status", seedengine.BatchFilter{Status: seedengine.BatchRunning}, []string{ids[2]}, 1},
			{"kind and status", seedengine.BatchFilter{Kind: seedengine.BatchResearch, Status: seedengine.BatchQueued}, []string{ids[4], ids[0]}, 2},
			{"no match", seedengine.BatchFilter{Kind: seedengine.BatchOrchestration}, []string{}, 0},
			{"page", seedengine.BatchFilter{Limit: 2, Offset: 1}, []string{ids[3], ids[2]}, 5},
			{"last page", seedengine.BatchFilter{Limit: 2, Offset: 4}, []string{ids[0]}, 5},
			{"past the end", seedengine.BatchFilter{Limit: 2, Offset: 10}, []string{}, 5},
			{"past the end filtered", seedengine.BatchFilter{Kind: seedengine.BatchResearch, Offset: 3}, []string{}, 3},
			{"limit over max", seedengine.BatchFilter{Limit: 5000}, []string{ids[4], ids[3], ids[2], ids[1], ids[0]}, 5},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				got, total, err := s.FindBatches(ctx, tt.filter)
				require.NoError(t, err)
				require.Equal(t, tt.wantIDs, idsOf(got))
				require.Equal(t, tt.wantTotal, total)
			})
		}

		got, _, err := s.FindBatches(ctx, seedengine.BatchFilter{Status: seedengine.BatchRunning})
		require.NoError(t, err)
		require.Equal(t, findBatch(t, s, ids[2]), got[0], "list rows read like single ones")

		_, _, err = s.FindBatches(ctx, seedengine.BatchFilter{Kind: "nope"})
		requireCode(t, err, seedengine.EINVALID)
		require.Equal(t, "kind", seedengine.ErrorField(err))
		_, _, err = s.FindBatches(ctx, seedengine.BatchFilter{Status: "nope"})
		requireCode(t, err, seedengine.EINVALID)
		require.Equal(t, "status", seedengine.ErrorField(err))
	})
}

func TestFindBatchesDefaultLimit(t *testing.T) {
	t.Parallel()
	sqlstoretest.Engines(t, func(t *testing.T, db *sqlstore.DB) {
		s, _ := newBatchService(db)
		for range 55 {
			createBatch(t, s, seedengine.BatchLiveness, 1)
		}
		got, total, err := s.FindBatches(t.Context(), seedengine.BatchFilter{})
		require.NoError(t, err)
		require.Len(t, got, 50)
		require.Equal(t, 55, total)
	})
}

func TestFindBatchNotFound(t *testing.T) {
	t.Parallel()
	sqlstoretest.Engines(t, func(t *testing.T, db *sqlstore.DB) {
		s, _ := newBatchService(db)
		b, err := s.FindBatchByID(t.Context(), "missing")
		requireCode(t, err, seedengine.ENOTFOUND)
		require.Nil(t, b)
		c, err := s.FindBatchChunk(t.Context(), "missing", 0)
		requireCode(t, err, seedengine.ENOTFOUND)
		require.Nil(t, c)
	})
}

func TestStartBatchChunk(t *testing.T) {
	t.Parallel()
	sqlstoretest.Engines(t, func(t *testing.T, db *sqlstore.DB) {
		ctx := t.Context()
		s, _ := newBatchService(db)
		b := createBatch(t, s, seedengine.BatchLiveness, 2, 2)

		require.NoError(t, s.StartBatchChunk(ctx, b.ID, 0))
		c := findChunk(t, s, b.ID, 0)
		require.Equal(t, seedengine.ChunkRunning, c.Status)
		require.Equal(t, 1, c.Attempts)
		got := findBatch(t, s, b.ID)
		require.Equal(t, seedengine.BatchRunning, got.Status)
		require.NotNil(t, got.StartedAt)
		require.Nil(t, got.FinishedAt)
		startedAt := *got.StartedAt

		// A retry counts another attempt; the batch keeps its start time.
		require.NoError(t, s.StartBatchChunk(ctx, b.ID, 0))
		require.Equal(t, 2, findChunk(t, s, b.ID, 0).Attempts)
		require.NoError(t, s.StartBatchChunk(ctx, b.ID, 1))
		got = findBatch(t, s, b.ID)
		require.Equal(t, startedAt, *got.StartedAt)
		require.Equal(t, seedengine.ChunkRunning, findChunk(t, s, b.ID, 1).Status)

		requireCode(t, s.StartBatchChunk(ctx, b.ID, 2), seedengine.ENOTFOUND)
		requireCode(t, s.StartBatchChunk(ctx, "missing", 0), seedengine.ENOTFOUND)

		// A redelivered job for a finished chunk changes nothing.
		require.NoError(t, s.CompleteBatchChunk(ctx, b.ID, 0, seedengine.ChunkOutcome{Succeeded: 2}, nil))
		require.NoError(t, s.StartBatchChunk(ctx, b.ID, 0))
		c = findChunk(t, s, b.ID, 0)
		require.Equal(t, seedengine.ChunkDone, c.Status)
		require.Equal(t, 2, c.Attempts)
	})
}

func TestCompleteBatchChunkFinalStatus(t *testing.T) {
	t.Parallel()
	type step struct {
		index int
		out   *seedengine.ChunkOutcome // nil: fail the chunk for good
	}
	ok := func(succeeded, failed int, result string) *seedengine.ChunkOutcome {
		return &seedengine.ChunkOutcome{Succeeded: succeeded, Failed: failed, Result: json.RawMessage(result)}
	}
	tests := []struct {
		name        string
		steps       []step
		wantStatus  seedengine.BatchStatus
		wantChunks  seedengine.ChunkCounts
		wantItems   seedengine.ItemCounts
		wantResult  string
		wantChunkSt []seedengine.ChunkStatus
	}{
		{
			name:        "completed",
			steps:       []step{{0, ok(3, 0, `{"keys":["a"],"n":3}`)}, {1, ok(2, 0, `{"keys":["b","c"],"n":2}`)}},
			wantStatus:  seedengine.BatchCompleted,
			wantChunks:  seedengine.ChunkCounts{Total: 2, Done: 2},
			wantItems:   seedengine.ItemCounts{Total: 5, Succeeded: 5},
			wantResult:  `{"keys":["a","b","c"],"n":5}`,
			wantChunkSt: []seedengine.ChunkStatus{seedengine.ChunkDone, seedengine.ChunkDone},
		},
		{
			name:        "failed items",
			steps:       []step{{1, ok(1, 1, `{"verdicts":{"alive":1,"dead":1}}`)}, {0, ok(3, 0, `{"verdicts":{"alive":3}}`)}},
			wantStatus:  seedengine.BatchCompletedWithErrors,
			wantChunks:  seedengine.ChunkCounts{Total: 2, Done: 2},
			wantItems:   seedengine.ItemCounts{Total: 5, Succeeded: 4, Failed: 1},
			wantResult:  `{"verdicts":{"alive":4,"dead":1}}`,
			wantChunkSt: []seedengine.ChunkStatus{seedengine.ChunkDone, seedengine.ChunkDone},
		},
		{
			name:        "failed chunk",
			steps:       []step{{0, ok(3, 0, `{"n":3}`)}, {1, nil}},
			wantStatus:  seedengine.BatchCompletedWithErrors,
			wantChunks:  seedengine.ChunkCounts{Total: 2, Done: 1, Failed: 1},
			wantItems:   seedengine.ItemCounts{Total: 5, Succeeded: 3, Failed: 2},
			wantResult:  `{"n":3}`,
			wantChunkSt: []seedengine.ChunkStatus{seedengine.ChunkDone, seedengine.ChunkFailed},
		},
		{
			name:        "every chunk failed",
			steps:       []step{{1, nil}, {0, nil}},
			wantStatus:  seedengine.BatchFailed,
			wantChunks:  seedengine.ChunkCounts{Total: 2, Failed: 2},
			wantItems:   seedengine.ItemCounts{Total: 5, Failed: 5},
			wantChunkSt: []seedengine.ChunkStatus{seedengine.ChunkFailed, seedengine.ChunkFailed},
		},
	}
	sqlstoretest.Engines(t, func(t *testing.T, db *sqlstore.DB) {
		s, _ := newBatchService(db)
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				ctx := t.Context()
				b := createBatch(t, s, seedengine.BatchLiveness, 3, 2)
				for i, st := range tt.steps {
					require.NoError(t, s.StartBatchChunk(ctx, b.ID, st.index))
					if st.out == nil {
						require.NoError(t, s.FailBatchChunk(ctx, b.ID, st.index, "boom", true))
					} else {
						require.NoError(t, s.CompleteBatchChunk(ctx, b.ID, st.index, *st.out, nil))
					}
					got := findBatch(t, s, b.ID)
					if i < len(tt.steps)-1 {
						require.Equal(t, seedengine.BatchRunning, got.Status)
						require.Nil(t, got.FinishedAt)
						require.InDelta(t, float64(i+1)/2, got.Progress, 1e-9)
					}
				}

				got := findBatch(t, s, b.ID)
				require.Equal(t, tt.wantStatus, got.Status)
				require.Equal(t, tt.wantChunks, got.Chunks)
				require.Equal(t, tt.wantItems, got.Items)
				require.InDelta(t, 1.0, got.Progress, 1e-9)
				require.NotNil(t, got.StartedAt)
				require.NotNil(t, got.FinishedAt)
				require.False(t, got.FinishedAt.Before(*got.StartedAt))
				if tt.wantResult == "" {
					require.Nil(t, got.Result)
				} else {
					require.JSONEq(t, tt.wantResult, string(got.Result))
				}
				for i, want := range tt.wantChunkSt {
					require.Equal(t, want, findChunk(t, s, b.ID, i).Status, "chunk %d", i)
				}
			})
		}
	})
}

func TestCompleteBatchChunkOnce(t *testing.T) {
	t.Parallel()
	sqlstoretest.Engines(t, func(t *testing.T, db *sqlstore.DB) {
		ctx := t.Context()
		s, _ := newBatchService(db)
		b := createBatch(t, s, seedengine.BatchResearch, 4, 4)

		calls := 0
		inTx := func(tx *sql.Tx) error {
			calls++
			var st string
			if err := tx.QueryRowContext(ctx, `SELECT status FROM batch_chunks WHERE batch_id = $1 AND chunk_index = 0`, b.ID).Scan(&st); err != nil {
				return err
			}
			if st != string(seedengine.ChunkDone) {
				return fmt.Errorf("inTx saw chunk status %q", st)
			}
			return nil
		}
		out := seedengine.ChunkOutcome{Succeeded: 4, Result: json.RawMessage(`{"n":4}`)}
		require.NoError(t, s.CompleteBatchChunk(ctx, b.ID, 0, out, inTx))
		// A redelivered job: recorded once, its job still completed.
		require.NoError(t, s.CompleteBatchChunk(ctx, b.ID, 0, out, inTx))
		require.NoError(t, s.FailBatchChunk(ctx, b.ID, 0, "late", true))
		require.NoError(t, s.FailBatchChunk(ctx, b.ID, 0, "late", false))
		require.Equal(t, 2, calls)

		got := findBatch(t, s, b.ID)
		require.Equal(t, seedengine.ChunkCounts{Total: 2, Done: 1}, got.Chunks)
		require.Equal(t, seedengine.ItemCounts{Total: 8, Succeeded: 4}, got.Items)
		require.JSONEq(t, `{"n":4}`, string(got.Result))
		require.InDelta(t, 0.5, got.Progress, 1e-9)
		require.Equal(t, seedengine.BatchRunning, got.Status)
		c := findChunk(t, s, b.ID, 0)
		require.Equal(t, seedengine.ChunkDone, c.Status)
		require.Empty(t, c.LastError)
		require.JSONEq(t, `{"n":4}`, string(c.Result))
		require.Equal(t, 4, c.Succeeded)
	})
}

func TestCompleteBatchChunkInTxErrorRollsBack(t *testing.T) {
	t.Parallel()
	sqlstoretest.Engines(t, func(t *testing.T, db *sqlstore.DB) {
		ctx := t.Context()
		s, _ := newBatchService(db)
		b := createBatch(t, s, seedengine.BatchResearch, 1)
		require.NoError(t, s.StartBatchChunk(ctx, b.ID, 0))
		before := findBatch(t, s, b.ID)

		errJob := errors.New("job completion failed")
		err := s.CompleteBatchChunk(ctx, b.ID, 0, seedengine.ChunkOutcome{Succeeded: 1, Result: json.RawMessage(`{"n":1}`)},
			func(*sql.Tx) error { return errJob })
		require.ErrorIs(t, err, errJob)

		require.Equal(t, before, findBatch(t, s, b.ID), "the outcome was rolled back with the job")
		c := findChunk(t, s, b.ID, 0)
		require.Equal(t, seedengine.ChunkRunning, c.Status)
		require.Nil(t, c.Result)

		// The retry records it.
		require.NoError(t, s.CompleteBatchChunk(ctx, b.ID, 0, seedengine.ChunkOutcome{Succeeded: 1}, func(*sql.Tx) error { return nil }))
		require.Equal(t, seedengine.BatchCompleted, findBatch(t, s, b.ID).Status)
	})
}

func TestCompleteBatchChunkInvalid(t *testing.T) {
	t.Parallel()
	sqlstoretest.Engines(t, func(t *testing.T, db *sqlstore.DB) {
		ctx := t.Context()
		s, _ := newBatchService(db)
		b := createBatch(t, s, seedengine.BatchResearch, 1)

		requireCode(t, s.CompleteBatchChunk(ctx, b.ID, 0, seedengine.ChunkOutcome{Succeeded: -1}, nil), seedengine.EINVALID)
		requireCode(t, s.CompleteBatchChunk(ctx, b.ID, 0, seedengine.ChunkOutcome{Result: json.RawMessage(`{`)}, nil), seedengine.EINVALID)
		requireCode(t, s.CompleteBatchChunk(ctx, b.ID, 1, seedengine.ChunkOutcome{}, nil), seedengine.ENOTFOUND)
		requireCode(t, s.CompleteBatchChunk(ctx, "missing", 0, seedengine.ChunkOutcome{}, nil), seedengine.ENOTFOUND)
		requireCode(t, s.FailBatchChunk(ctx, b.ID, 1, "x", false), seedengine.ENOTFOUND)
		requireCode(t, s.FailBatchChunk(ctx, b.ID, 1, "x", true), seedengine.ENOTFOUND)
		requireCode(t, s.FailBatchChunk(ctx, "missing", 0, "x", true), seedengine.ENOTFOUND)
		require.Equal(t, seedengine.ChunkQueued, findChunk(t, s, b.ID, 0).Status)
	})
}

func TestFailBatchChunk(t *testing.T) {
	t.Parallel()
	sqlstoretest.Engines(t, func(t *testing.T, db *sqlstore.DB) {
		ctx := t.Context()
		s, _ := newBatchService(db)
		b := createBatch(t, s, seedengine.BatchContract, 3, 1)

		// Not final: the chunk waits for its retry, the batch counts nothing.
		require.NoError(t, s.StartBatchChunk(ctx, b.ID, 0))
		require.NoError(t, s.FailBatchChunk(ctx, b.ID, 0, "timeout fetching robots.txt", false))
		c := findChunk(t, s, b.ID, 0)
		require.Equal(t, seedengine.ChunkQueued, c.Status)
		require.Equal(t, "timeout fetching robots.txt", c.LastError)
		require.Equal(t, 1, c.Attempts)
		got := findBatch(t, s, b.ID)
		require.Equal(t, seedengine.ChunkCounts{Total: 2}, got.Chunks)
		require.Equal(t, seedengine.BatchRunning, got.Status)
		require.Zero(t, got.Progress)

		// Final: the chunk and all its items failed.
		require.NoError(t, s.StartBatchChunk(ctx, b.ID, 0))
		require.NoError(t, s.FailBatchChunk(ctx, b.ID, 0, "still timing out", true))
		c = findChunk(t, s, b.ID, 0)
		require.Equal(t, seedengine.ChunkFailed, c.Status)
		require.Equal(t, "still timing out", c.LastError)
		require.Equal(t, 2, c.Attempts)
		require.Equal(t, 3, c.Failed)
		require.Zero(t, c.Succeeded)
		got = findBatch(t, s, b.ID)
		require.Equal(t, seedengine.ChunkCounts{Total: 2, Failed: 1}, got.Chunks)
		require.Equal(t, seedengine.ItemCounts{Total: 4, Failed: 3}, got.Items)
		require.InDelta(t, 0.5, got.Progress, 1e-9)
		require.Equal(t, seedengine.BatchRunning, got.Status)

		// A completion that arrives after the final failure changes nothing,
		// but its job is still completed.
		called := false
		require.NoError(t, s.CompleteBatchChunk(ctx, b.ID, 0, seedengine.ChunkOutcome{Succeeded: 3}, func(*sql.Tx) error { called = true; return nil }))
		require.True(t, called)
		require.Equal(t, got, findBatch(t, s, b.ID))

		require.NoError(t, s.CompleteBatchChunk(ctx, b.ID, 1, seedengine.ChunkOutcome{Succeeded: 1}, nil))
		got = findBatch(t, s, b.ID)
		require.Equal(t, seedengine.BatchCompletedWithErrors, got.Status)
		require.NotNil(t, got.FinishedAt)
	})
}

func TestCompleteBatchChunksConcurrently(t *testing.T) {
	t.Parallel()
	sqlstoretest.Engines(t, func(t *testing.T, db *sqlstore.DB) {
		ctx := t.Context()
		s, _ := newBatchService(db)
		const n = 24
		items := make([]int, n)
		for i := range items {
			items[i] = 2
		}
		b := createBatch(t, s, seedengine.BatchResearch, items...)

		// Every chunk at once, each twice, as redelivered jobs would be.
		var wg sync.WaitGroup
		var mu sync.Mutex
		var errs []error
		for i := range 2 * n {
			wg.Go(func() {
				idx := i % n
				err := s.StartBatchChunk(ctx, b.ID, idx)
				if err == nil {
					out := seedengine.ChunkOutcome{Succeeded: 2, Result: json.RawMessage(`{"n":1,"keys":["k"]}`)}
					err = s.CompleteBatchChunk(ctx, b.ID, idx, out, nil)
				}
				if err != nil {
					mu.Lock()
					errs = append(errs, err)
					mu.Unlock()
				}
			})
		}
		wg.Wait()
		require.Empty(t, errs)

		got := findBatch(t, s, b.ID)
		require.Equal(t, seedengine.BatchCompleted, got.Status)
		require.Equal(t, seedengine.ChunkCounts{Total: n, Done: n}, got.Chunks)
		require.Equal(t, seedengine.ItemCounts{Total: 2 * n, Succeeded: 2 * n}, got.Items)
		var result struct {
			N    int      `json:"n"`
			Keys []string `json:"keys"`
		}
		require.NoError(t, json.Unmarshal(got.Result, &result))
		require.Equal(t, n, result.N)
		require.Len(t, result.Keys, n)
	})
}

func TestStartChunksTogether(t *testing.T) {
	t.Parallel()
	sqlstoretest.Engines(t, func(t *testing.T, db *sqlstore.DB) {
		ctx := t.Context()
		s, _ := newBatchService(db)
		a := createBatch(t, s, seedengine.BatchResearch, 2, 3)
		b := createBatch(t, s, seedengine.BatchResearch, 4)
		require.NoError(t, s.CompleteBatchChunk(ctx, a.ID, 1, seedengine.ChunkOutcome{Succeeded: 3}, nil))

		starts, err := s.StartFindBatchChunks(ctx, []seedengine.ChunkRef{
			{BatchID: b.ID, Chunk: 0}, {BatchID: a.ID, Chunk: 1}, {BatchID: a.ID, Chunk: 0},
			{BatchID: a.ID, Chunk: 5}, {BatchID: a.ID, Chunk: 0},
		})
		require.NoError(t, err)
		require.Len(t, starts, 5)
		for i, want := range []struct {
			batch  string
			index  int
			status seedengine.ChunkStatus
		}{{b.ID, 0, seedengine.ChunkRunning}, {a.ID, 1, seedengine.ChunkDone}, {a.ID, 0, seedengine.ChunkRunning}, {}, {a.ID, 0, seedengine.ChunkRunning}} {
			if want.batch == "" {
				requireCode(t, starts[i].Err, seedengine.ENOTFOUND)
				require.Nil(t, starts[i].Chunk)
				continue
			}
			require.NoError(t, starts[i].Err, i)
			require.Equal(t, want.batch, starts[i].Batch.ID, i)
			require.Equal(t, want.batch, starts[i].Chunk.BatchID, i)
			require.Equal(t, want.index, starts[i].Chunk.Index, i)
			require.Equal(t, want.status, starts[i].Chunk.Status, i)
			require.Equal(t, seedengine.BatchRunning, starts[i].Batch.Status, i)
			require.NotNil(t, starts[i].Batch.StartedAt, i)
		}
		// A chunk asked for twice is started once.
		require.Equal(t, 1, starts[2].Chunk.Attempts)
		require.Equal(t, 1, findChunk(t, s, a.ID, 0).Attempts)
		require.Equal(t, 0, findChunk(t, s, a.ID, 1).Attempts, "a finished chunk is not started again")
		require.Equal(t, seedengine.BatchRunning, findBatch(t, s, b.ID).Status)
		require.NotNil(t, findBatch(t, s, b.ID).StartedAt)
		require.Equal(t, seedengine.ChunkRunning, findChunk(t, s, b.ID, 0).Status)
	})
}

func TestCompleteChunksTogether(t *testing.T) {
	t.Parallel()
	sqlstoretest.Engines(t, func(t *testing.T, db *sqlstore.DB) {
		ctx := t.Context()
		enq := &finishingEnqueuer{}
		s := newJobsStore(db)
		s.Enqueuer = enq
		a := createBatch(t, s, seedengine.BatchResearch, 2, 3, 4)
		b := createBatch(t, s, seedengine.BatchResearch, 5, 6)
		require.NoError(t, s.StartBatchChunk(ctx, a.ID, 0))

		// Two of a's chunks and one of b's in one group; b's ids sort
		// after a's (UUIDv7), and each batch gets one write.
		writes, err := s.CompleteBatchChunks(ctx, []sqlstore.ChunkDone{
			{BatchID: b.ID, Index: 1, Out: seedengine.ChunkOutcome{Succeeded: 5, Failed: 1, Result: json.RawMessage(`{"n":6,"keys":["b1"]}`)}},
			{BatchID: a.ID, Index: 0, Out: seedengine.ChunkOutcome{Succeeded: 2, Result: json.RawMessage(`{"n":2,"keys":["a0"]}`)}},
			{BatchID: a.ID, Index: 2, Out: seedengine.ChunkOutcome{Succeeded: 3, Failed: 1}},
		})
		require.NoError(t, err)
		require.Len(t, writes, 2)
		require.Equal(t, []string{a.ID, b.ID}, []string{writes[0].Batch.ID, writes[1].Batch.ID})
		require.False(t, writes[0].Finished)
		require.False(t, writes[1].Finished)

		got := findBatch(t, s, a.ID)
		require.Equal(t, seedengine.BatchRunning, got.Status)
		require.Equal(t, seedengine.ChunkCounts{Total: 3, Done: 2}, got.Chunks)
		require.Equal(t, seedengine.ItemCounts{Total: 9, Succeeded: 5, Failed: 1}, got.Items)
		require.NotNil(t, got.StartedAt)
		c := findChunk(t, s, a.ID, 2)
		require.Equal(t, seedengine.ChunkDone, c.Status)
		require.Nil(t, c.Result)
		require.Equal(t, 3, c.Succeeded)
		require.JSONEq(t, `{"n":6,"keys":["b1"]}`, string(findChunk(t, s, b.ID, 1).Result))

		// A chunk recorded already counts nothing again; the batch whose
		// last chunk this group records finishes, its result merged in
		// chunk order, and its finisher is queued once.
		writes, err = s.CompleteBatchChunks(ctx, []sqlstore.ChunkDone{
			{BatchID: a.ID, Index: 0, Out: seedengine.ChunkOutcome{Succeeded: 2, Result: json.RawMessage(`{"n":2,"keys":["again"]}`)}},
			{BatchID: b.ID, Index: 0, Out: seedengine.ChunkOutcome{Succeeded: 5, Result: json.RawMessage(`{"n":5,"keys":["b0"]}`)}},
		})
		require.NoError(t, err)
		require.Len(t, writes, 1)
		require.True(t, writes[0].Finished)
		got = findBatch(t, s, b.ID)
		require.Equal(t, seedengine.BatchCompletedWithErrors, got.Status)
		require.Equal(t, seedengine.ItemCounts{Total: 11, Succeeded: 10, Failed: 1}, got.Items)
		require.JSONEq(t, `{"n":11,"keys":["b0","b1"]}`, string(got.Result))
		require.Len(t, enq.Finished(), 1)
		require.Equal(t, b.ID, enq.Finished()[0].batchID)
		require.Equal(t, seedengine.ChunkCounts{Total: 3, Done: 2}, findBatch(t, s, a.ID).Chunks)

		// A group that cannot be written leaves every row as it was.
		before := findBatch(t, s, a.ID)
		_, err = s.CompleteBatchChunks(ctx, []sqlstore.ChunkDone{
			{BatchID: a.ID, Index: 1, Out: seedengine.ChunkOutcome{Succeeded: 3}},
			{BatchID: a.ID, Index: 7, Out: seedengine.ChunkOutcome{Succeeded: 1}},
		})
		requireCode(t, err, seedengine.ENOTFOUND)
		require.Equal(t, before, findBatch(t, s, a.ID))
		require.Equal(t, seedengine.ChunkQueued, findChunk(t, s, a.ID, 1).Status)
		_, err = s.CompleteBatchChunks(ctx, []sqlstore.ChunkDone{
			{BatchID: a.ID, Index: 1, Out: seedengine.ChunkOutcome{Succeeded: 3}},
			{BatchID: a.ID, Index: 1, Out: seedengine.ChunkOutcome{Succeeded: 3}},
		})
		requireCode(t, err, seedengine.EINVALID)
		_, err = s.CompleteBatchChunks(ctx, []sqlstore.ChunkDone{
			{BatchID: a.ID, Index: 1, Out: seedengine.ChunkOutcome{Spawn: chunksOf(1)}},
		})
		requireCode(t, err, seedengine.EINVALID)
		require.Equal(t, before, findBatch(t, s, a.ID))
	})
}

// finishingEnqueuer is a fakeEnqueuer that is also a seedengine.BatchFinisher:
// it records each call and the batch status visible in the transaction.
type finishingEnqueuer struct {
	fakeEnqueuer
	finishErr error

	fmu      sync.Mutex
	finished []finishCall
}

type finishCall struct {
	batchID  string
	status   seedengine.BatchStatus // as handed over
	statusTx string                 // as read inside the transaction
}

func (e *finishingEnqueuer) EnqueueBatchFinishedTx(ctx context.Context, tx *sql.Tx, b *seedengine.Batch) error {
	var st string
	if err := tx.QueryRowContext(ctx, `SELECT status FROM batches WHERE id = $1`, b.ID).Scan(&st); err != nil {
		return err
	}
	e.fmu.Lock()
	defer e.fmu.Unlock()
	e.finished = append(e.finished, finishCall{batchID: b.ID, status: b.Status, statusTx: st})
	return e.finishErr
}

func (e *finishingEnqueuer) Finished() []finishCall {
	e.fmu.Lock()
	defer e.fmu.Unlock()
	return append([]finishCall(nil), e.finished...)
}

func TestBatchFinisherCalledOnceInTx(t *testing.T) {
	t.Parallel()
	sqlstoretest.Engines(t, func(t *testing.T, db *sqlstore.DB) {
		ctx := t.Context()
		enq := &finishingEnqueuer{}
		s := newJobsStore(db)
		s.Enqueuer = enq
		out := seedengine.ChunkOutcome{Succeeded: 2, Result: json.RawMessage(`{"n":2}`)}

		// Completed through CompleteBatchChunk: called once, on the last chunk.
		b := createBatch(t, s, seedengine.BatchLiveness, 2, 2)
		require.NoError(t, s.StartBatchChunk(ctx, b.ID, 0))
		require.NoError(t, s.CompleteBatchChunk(ctx, b.ID, 0, out, nil))
		require.Empty(t, enq.Finished(), "not called while a chunk is open")
		require.NoError(t, s.StartBatchChunk(ctx, b.ID, 1))
		require.NoError(t, s.CompleteBatchChunk(ctx, b.ID, 1, out, nil))
		want := []finishCall{{batchID: b.ID, status: seedengine.BatchCompleted, statusTx: string(seedengine.BatchCompleted)}}
		require.Equal(t, want, enq.Finished())
		// Redelivered outcomes of a finished batch do not call it again.
		require.NoError(t, s.CompleteBatchChunk(ctx, b.ID, 1, out, nil))
		require.NoError(t, s.FailBatchChunk(ctx, b.ID, 0, "late", true))
		require.Equal(t, want, enq.Finished())

		// Failed through FailBatchChunk: called once, with the final status.
		f := createBatch(t, s, seedengine.BatchResearch, 1, 1)
		require.NoError(t, s.FailBatchChunk(ctx, f.ID, 0, "boom", false))
		require.Len(t, enq.Finished(), 1, "a retryable failure does not finish the batch")
		require.NoError(t, s.FailBatchChunk(ctx, f.ID, 0, "boom", true))
		require.NoError(t, s.FailBatchChunk(ctx, f.ID, 1, "boom", true))
		require.NoError(t, s.FailBatchChunk(ctx, f.ID, 1, "boom", true))
		want = append(want, finishCall{batchID: f.ID, status: seedengine.BatchFailed, statusTx: string(seedengine.BatchFailed)})
		require.Equal(t, want, enq.Finished())

		// An error rolls the final chunk's outcome back with it.
		r := createBatch(t, s, seedengine.BatchLiveness, 2)
		enq.finishErr = errors.New("queue down")
		err := s.CompleteBatchChunk(ctx, r.ID, 0, out, nil)
		require.ErrorContains(t, err, "queue down")
		got := findBatch(t, s, r.ID)
		require.Equal(t, seedengine.BatchQueued, got.Status)
		require.Equal(t, seedengine.ChunkQueued, findChunk(t, s, r.ID, 0).Status)
		enq.finishErr = nil
		require.NoError(t, s.CompleteBatchChunk(ctx, r.ID, 0, out, nil))
		require.Equal(t, seedengine.BatchCompleted, findBatch(t, s, r.ID).Status)
		finished := enq.Finished()
		require.Len(t, finished, 4, "the rolled-back call and the committed one")
		require.Equal(t, r.ID, finished[3].batchID)
	})
}

// stepChunk returns a chunk of an orchestration step working on key.
func stepChunk(step, key string, items int) *seedengine.BatchChunk {
	input, _ := json.Marshal(map[string]string{"key": key})
	return &seedengine.BatchChunk{Step: step, Key: key, Input: input, Items: items}
}

// createFileBatch creates an orchestration batch with one file chunk per
// key, each of one item.
func createFileBatch(t *testing.T, s *jobsStore, keys ...string) *seedengine.Batch {
	t.Helper()
	chunks := make([]*seedengine.BatchChunk, len(keys))
	for i, k := range keys {
		chunks[i] = stepChunk(seedengine.StepFile, k, 1)
	}
	b := &seedengine.Batch{Kind: seedengine.BatchOrchestration, Country: "sg", Category: "news",
		Params: json.RawMessage(`{"date":"2026-01-28","force":false}`)}
	require.NoError(t, s.CreateBatch(t.Context(), b, chunks))
	return b
}

func TestCreateBatchStepsAndKeys(t *testing.T) {
	t.Parallel()
	sqlstoretest.Engines(t, func(t *testing.T, db *sqlstore.DB) {
		ctx := t.Context()
		s, enq := newBatchService(db)

		// A key is unique within its step only; chunks without a key are
		// never duplicates.
		chunks := []*seedengine.BatchChunk{
			stepChunk(seedengine.StepFile, "raw/a.jsonl", 1),
			stepChunk(seedengine.StepDomain, "raw/a.jsonl", 1),
			{Step: seedengine.StepFile, Input: json.RawMessage(`{}`)},
			{Step: seedengine.StepFile, Input: json.RawMessage(`{}`)},
		}
		b := &seedengine.Batch{Kind: seedengine.BatchOrchestration}
		require.NoError(t, s.CreateBatch(ctx, b, chunks))
		require.Equal(t, []string{"raw/a.jsonl", "raw/a.jsonl", "", ""}, enq.Calls()[0].keys)
		for i, want := range chunks {
			c := findChunk(t, s, b.ID, i)
			require.Equal(t, want.Step, c.Step)
			require.Equal(t, want.Key, c.Key)
		}

		dup := []*seedengine.BatchChunk{
			stepChunk(seedengine.StepFile, "raw/a.jsonl", 1),
			stepChunk(seedengine.StepFile, "raw/b.jsonl", 1),
			stepChunk(seedengine.StepFile, "raw/a.jsonl", 1),
		}
		err := s.CreateBatch(ctx, &seedengine.Batch{Kind: seedengine.BatchOrchestration}, dup)
		requireCode(t, err, seedengine.EINVALID)
		require.Equal(t, "chunks", seedengine.ErrorField(err))
		require.ErrorContains(t, err, "chunk 2 repeats")
		require.ErrorContains(t, err, "of chunk 0")
		require.Len(t, enq.Calls(), 1)
		requireBatchRows(t, db, 1, 4)
	})
}

func TestCompleteBatchChunkSpawn(t *testing.T) {
	t.Parallel()
	sqlstoretest.Engines(t, func(t *testing.T, db *sqlstore.DB) {
		ctx := t.Context()
		s, enq := newBatchService(db)
		b := createFileBatch(t, s, "raw/1.jsonl", "raw/2.jsonl")

		// File 1 spawns a, b and c; the second a is the same work and is
		// skipped without taking an index.
		spawn := []*seedengine.BatchChunk{
			stepChunk(seedengine.StepDomain, "a.example", 1),
			stepChunk(seedengine.StepDomain, "b.example", 2),
			stepChunk(seedengine.StepDomain, "a.example", 5),
			stepChunk(seedengine.StepDomain, "c.example", 3),
		}
		require.NoError(t, s.StartBatchChunk(ctx, b.ID, 0))
		require.NoError(t, s.CompleteBatchChunk(ctx, b.ID, 0, seedengine.ChunkOutcome{
			Succeeded: 1, Result: json.RawMessage(`{"files":1}`), Spawn: spawn,
		}, nil))

		calls := enq.Calls()
		require.Len(t, calls, 2)
		require.Equal(t, enqueueCall{
			batchID: b.ID, total: 5, indexes: []int{2, 3, 4},
			keys: []string{"a.example", "b.example", "c.example"}, chunkRowsTx: 5,
		}, calls[1], "one call with exactly the chunks added, the batch's new total and rows in view")
		for i, want := range []int{2, 3, -1, 4} {
			if want < 0 {
				require.Empty(t, spawn[i].BatchID, "a skipped chunk is left untouched")
				continue
			}
			require.Equal(t, b.ID, spawn[i].BatchID)
			require.Equal(t, want, spawn[i].Index)
			require.Equal(t, seedengine.ChunkQueued, spawn[i].Status)
		}

		c := findChunk(t, s, b.ID, 3)
		require.Equal(t, seedengine.StepDomain, c.Step)
		require.Equal(t, "b.example", c.Key)
		require.Equal(t, seedengine.ChunkQueued, c.Status)
		require.Equal(t, 2, c.Items)
		require.JSONEq(t, `{"key":"b.example"}`, string(c.Input))
		require.JSONEq(t, `{"files":1,"chunks_spawned":3}`, string(findChunk(t, s, b.ID, 0).Result))

		got := findBatch(t, s, b.ID)
		require.Equal(t, seedengine.BatchRunning, got.Status)
		require.Equal(t, seedengine.ChunkCounts{Total: 5, Done: 1}, got.Chunks)
		require.Equal(t, seedengine.ItemCounts{Total: 2 + 6, Succeeded: 1}, got.Items)
		require.InDelta(t, 0.2, got.Progress, 1e-9)
		require.JSONEq(t, `{"files":1,"chunks_spawned":3}`, string(got.Result))

		// A redelivered outcome of the finished file spawns nothing, and its
		// job is still completed.
		called := false
		require.NoError(t, s.CompleteBatchChunk(ctx, b.ID, 0, seedengine.ChunkOutcome{
			Succeeded: 1, Spawn: []*seedengine.BatchChunk{stepChunk(seedengine.StepDomain, "z.example", 1)},
		}, func(*sql.Tx) error { called = true; return nil }))
		require.True(t, called)
		require.Len(t, enq.Calls(), 2)
		require.Equal(t, got, findBatch(t, s, b.ID))

		// File 2 spawns b again and d: only d is added, at the next index.
		require.NoError(t, s.CompleteBatchChunk(ctx, b.ID, 1, seedengine.ChunkOutcome{
			Succeeded: 1, Result: json.RawMessage(`{"files":1}`),
			Spawn: []*seedengine.BatchChunk{
				stepChunk(seedengine.StepDomain, "b.example", 2),
				stepChunk(seedengine.StepDomain, "d.example", 4),
			},
		}, nil))
		require.Equal(t, enqueueCall{batchID: b.ID, total: 6, indexes: []int{5}, keys: []string{"d.example"}, chunkRowsTx: 6},
			enq.Calls()[2])
		require.JSONEq(t, `{"files":1,"chunks_spawned":1}`, string(findChunk(t, s, b.ID, 1).Result))
		got = findBatch(t, s, b.ID)
		require.Equal(t, seedengine.ChunkCounts{Total: 6, Done: 2}, got.Chunks)
		require.Equal(t, seedengine.ItemCounts{Total: 2 + 10, Succeeded: 2}, got.Items)
		require.JSONEq(t, `{"files":2,"chunks_spawned":4}`, string(got.Result))
		require.Equal(t, seedengine.BatchRunning, got.Status, "the files are done but their domains are open")
		require.Nil(t, got.FinishedAt)

		// A spawn that adds nothing still says so.
		require.NoError(t, s.CompleteBatchChunk(ctx, b.ID, 2, seedengine.ChunkOutcome{
			Succeeded: 1, Spawn: []*seedengine.BatchChunk{stepChunk(seedengine.StepDomain, "d.example", 4)},
		}, nil))
		require.Len(t, enq.Calls(), 3, "nothing added, nothing enqueued")
		require.JSONEq(t, `{"chunks_spawned":0}`, string(findChunk(t, s, b.ID, 2).Result))

		// The batch finishes with its last spawned chunk.
		for _, i := range []int{3, 4, 5} {
			require.Equal(t, seedengine.BatchRunning, findBatch(t, s, b.ID).Status)
			require.NoError(t, s.StartBatchChunk(ctx, b.ID, i))
			out := seedengine.ChunkOutcome{Succeeded: findChunk(t, s, b.ID, i).Items, Result: json.RawMessage(`{"domains":1}`)}
			require.NoError(t, s.CompleteBatchChunk(ctx, b.ID, i, out, nil))
		}
		got = findBatch(t, s, b.ID)
		require.Equal(t, seedengine.BatchCompleted, got.Status)
		require.NotNil(t, got.FinishedAt)
		require.Equal(t, seedengine.ChunkCounts{Total: 6, Done: 6}, got.Chunks)
		require.Equal(t, seedengine.ItemCounts{Total: 12, Succeeded: 12}, got.Items)
		require.InDelta(t, 1.0, got.Progress, 1e-9)
		require.JSONEq(t, `{"files":2,"chunks_spawned":4,"domains":3}`, string(got.Result))
		requireBatchRows(t, db, 1, 6)
	})
}

func TestCompleteBatchChunkSpawnEnqueueFailsRollsBack(t *testing.T) {
	t.Parallel()
	sqlstoretest.Engines(t, func(t *testing.T, db *sqlstore.DB) {
		ctx := t.Context()
		s, enq := newBatchService(db)
		b := createFileBatch(t, s, "raw/1.jsonl")
		require.NoError(t, s.StartBatchChunk(ctx, b.ID, 0))
		before := findBatch(t, s, b.ID)

		enq.err = errors.New("queue is full")
		out := seedengine.ChunkOutcome{Succeeded: 1, Spawn: []*seedengine.BatchChunk{
			stepChunk(seedengine.StepDomain, "a.example", 1),
			stepChunk(seedengine.StepDomain, "b.example", 1),
		}}
		called := false
		err := s.CompleteBatchChunk(ctx, b.ID, 0, out, func(*sql.Tx) error { called = true; return nil })
		require.ErrorIs(t, err, enq.err)
		require.False(t, called)
		require.Equal(t, 3, enq.Calls()[1].chunkRowsTx)

		require.Equal(t, before, findBatch(t, s, b.ID))
		c := findChunk(t, s, b.ID, 0)
		require.Equal(t, seedengine.ChunkRunning, c.Status, "the chunk is still open, for its job's retry")
		require.Nil(t, c.Result)
		requireBatchRows(t, db, 1, 1)

		// The retry spawns them at the same indexes.
		enq.err = nil
		require.NoError(t, s.CompleteBatchChunk(ctx, b.ID, 0, out, nil))
		require.Equal(t, []int{1, 2}, enq.Calls()[2].indexes)
		require.Equal(t, seedengine.ChunkCounts{Total: 3, Done: 1}, findBatch(t, s, b.ID).Chunks)
	})
}

func TestCompleteBatchChunkSpawnInvalid(t *testing.T) {
	t.Parallel()
	domain := func(key string) *seedengine.BatchChunk { return stepChunk(seedengine.StepDomain, key, 1) }
	tests := []struct {
		name      string
		out       seedengine.ChunkOutcome
		wantField string
	}{
		{"nil chunk", seedengine.ChunkOutcome{Spawn: []*seedengine.BatchChunk{domain("a"), nil}}, "spawn"},
		{"no step", seedengine.ChunkOutcome{Spawn: []*seedengine.BatchChunk{{Key: "a", Items: 1}}}, "spawn"},
		{"no key", seedengine.ChunkOutcome{Spawn: []*seedengine.BatchChunk{{Step: seedengine.StepDomain, Items: 1}}}, "spawn"},
		{"negative items", seedengine.ChunkOutcome{Spawn: []*seedengine.BatchChunk{{Step: seedengine.StepDomain, Key: "a", Items: -1}}}, "spawn"},
		{"bad input", seedengine.ChunkOutcome{Spawn: []*seedengine.BatchChunk{{Step: seedengine.StepDomain, Key: "a", Input: json.RawMessage(`{`)}}}, "spawn"},
		{"key too long", seedengine.ChunkOutcome{Spawn: []*seedengine.BatchChunk{domain(strings.Repeat("a", 1025))}}, "spawn"},
		{"result not an object", seedengine.ChunkOutcome{Result: json.RawMessage(`[1]`), Spawn: []*seedengine.BatchChunk{domain("a")}}, "result"},
	}
	sqlstoretest.Engines(t, func(t *testing.T, db *sqlstore.DB) {
		s, enq := newBatchService(db)
		b := createFileBatch(t, s, "raw/1.jsonl")
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				err := s.CompleteBatchChunk(t.Context(), b.ID, 0, tt.out, nil)
				requireCode(t, err, seedengine.EINVALID)
				require.Equal(t, tt.wantField, seedengine.ErrorField(err))
			})
		}
		require.Len(t, enq.Calls(), 1, "only the batch's creation enqueued")
		require.Equal(t, seedengine.ChunkQueued, findChunk(t, s, b.ID, 0).Status)
		requireBatchRows(t, db, 1, 1)
	})
}

func TestCompleteBatchChunkSpawnConcurrently(t *testing.T) {
	t.Parallel()
	sqlstoretest.Engines(t, func(t *testing.T, db *sqlstore.DB) {
		ctx := t.Context()
		s, _ := newBatchService(db)
		const files, perFile, domains = 8, 40, 100
		keys := make([]string, files)
		for i := range keys {
			keys[i] = fmt.Sprintf("raw/%d.jsonl", i)
		}
		b := createFileBatch(t, s, keys...)

		// Files overlap in the domains they spawn, and every outcome is
		// delivered twice.
		var wg sync.WaitGroup
		errs := make(chan error, 2*files)
		for i := range 2 * files {
			wg.Go(func() {
				f := i % files
				spawn := make([]*seedengine.BatchChunk, perFile)
				for j := range spawn {
					spawn[j] = stepChunk(seedengine.StepDomain, fmt.Sprintf("d%03d.example", (f*15+j)%domains), 1)
				}
				errs <- s.CompleteBatchChunk(ctx, b.ID, f, seedengine.ChunkOutcome{Succeeded: 1, Spawn: spawn}, nil)
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			require.NoError(t, err)
		}

		unique := map[string]bool{}
		for f := range files {
			for j := range perFile {
				unique[fmt.Sprintf("d%03d.example", (f*15+j)%domains)] = true
			}
		}
		total := files + len(unique)
		got := findBatch(t, s, b.ID)
		require.Equal(t, seedengine.ChunkCounts{Total: total, Done: files}, got.Chunks)
		require.Equal(t, seedengine.ItemCounts{Total: total, Succeeded: files}, got.Items)
		var result struct {
			ChunksSpawned int `json:"chunks_spawned"`
		}
		require.NoError(t, json.Unmarshal(got.Result, &result))
		require.Equal(t, len(unique), result.ChunksSpawned)

		var n, maxIndex, keyCount int
		require.NoError(t, db.Reader().QueryRowContext(ctx,
			`SELECT COUNT(*), MAX(chunk_index), COUNT(DISTINCT item_key) FROM batch_chunks WHERE batch_id = $1 AND step = $2`,
			b.ID, seedengine.StepDomain).Scan(&n, &maxIndex, &keyCount))
		require.Equal(t, len(unique), n)
		require.Equal(t, len(unique), keyCount)
		require.Equal(t, total-1, maxIndex, "indexes are dense")
	})
}

func TestReopenBatchChunk(t *testing.T) {
	t.Parallel()
	sqlstoretest.Engines(t, func(t *testing.T, db *sqlstore.DB) {
		ctx := t.Context()
		enq := &finishingEnqueuer{}
		s := newJobsStore(db)
		s.Enqueuer = enq
		b := createBatch(t, s, seedengine.BatchLiveness, 3, 2)

		require.NoError(t, s.StartBatchChunk(ctx, b.ID, 0))
		require.NoError(t, s.FailBatchChunk(ctx, b.ID, 0, "upstream down", true))
		require.NoError(t, s.CompleteBatchChunk(ctx, b.ID, 1, seedengine.ChunkOutcome{Succeeded: 1, Failed: 1}, nil))
		finished := findBatch(t, s, b.ID)
		require.Equal(t, seedengine.BatchCompletedWithErrors, finished.Status)
		require.Len(t, enq.Finished(), 1)

		// The done chunk, a missing one and an open one cannot be reopened.
		err := s.ReopenBatchChunk(ctx, b.ID, 1, nil)
		requireCode(t, err, seedengine.ECONFLICT)
		require.ErrorContains(t, err, "is done")
		requireCode(t, s.ReopenBatchChunk(ctx, b.ID, 2, nil), seedengine.ENOTFOUND)
		requireCode(t, s.ReopenBatchChunk(ctx, "missing", 0, nil), seedengine.ENOTFOUND)

		// An inTx error rolls the reopening back.
		errJob := errors.New("job retry failed")
		err = s.ReopenBatchChunk(ctx, b.ID, 0, func(*sql.Tx) error { return errJob })
		require.ErrorIs(t, err, errJob)
		require.Equal(t, finished, findBatch(t, s, b.ID))
		require.Equal(t, seedengine.ChunkFailed, findChunk(t, s, b.ID, 0).Status)

		var statusTx string
		require.NoError(t, s.ReopenBatchChunk(ctx, b.ID, 0, func(tx *sql.Tx) error {
			return tx.QueryRowContext(ctx, `SELECT status FROM batch_chunks WHERE batch_id = $1 AND chunk_index = 0`, b.ID).Scan(&statusTx)
		}))
		require.Equal(t, string(seedengine.ChunkQueued), statusTx, "inTx runs after the chunk is reopened")
		c := findChunk(t, s, b.ID, 0)
		require.Equal(t, seedengine.ChunkQueued, c.Status)
		require.Zero(t, c.Failed)
		require.Equal(t, 1, c.Attempts, "attempts are kept")
		require.Equal(t, "upstream down", c.LastError, "the last error is kept")
		got := findBatch(t, s, b.ID)
		require.Equal(t, seedengine.BatchRunning, got.Status)
		require.Nil(t, got.FinishedAt)
		require.Equal(t, finished.StartedAt, got.StartedAt)
		require.Equal(t, seedengine.ChunkCounts{Total: 2, Done: 1}, got.Chunks)
		require.Equal(t, seedengine.ItemCounts{Total: 5, Succeeded: 1, Failed: 1}, got.Items)
		require.InDelta(t, 0.5, got.Progress, 1e-9)

		// Reopened, it is queued, not failed.
		requireCode(t, s.ReopenBatchChunk(ctx, b.ID, 0, nil), seedengine.ECONFLICT)

		// Its retry finishes the batch again, which is queued what follows
		// a batch a second time.
		require.NoError(t, s.StartBatchChunk(ctx, b.ID, 0))
		require.NoError(t, s.CompleteBatchChunk(ctx, b.ID, 0, seedengine.ChunkOutcome{Succeeded: 3}, nil))
		got = findBatch(t, s, b.ID)
		require.Equal(t, seedengine.BatchCompletedWithErrors, got.Status)
		require.Equal(t, seedengine.ChunkCounts{Total: 2, Done: 2}, got.Chunks)
		require.Equal(t, seedengine.ItemCounts{Total: 5, Succeeded: 4, Failed: 1}, got.Items)
		require.NotNil(t, got.FinishedAt)
		require.Len(t, enq.Finished(), 2)
		require.Equal(t, 2, findChunk(t, s, b.ID, 0).Attempts)
	})
}

func TestReopenBatchChunkOfFailedBatch(t *testing.T) {
	t.Parallel()
	sqlstoretest.Engines(t, func(t *testing.T, db *sqlstore.DB) {
		ctx := t.Context()
		s, _ := newBatchService(db)
		b := createBatch(t, s, seedengine.BatchResearch, 2, 2)
		require.NoError(t, s.FailBatchChunk(ctx, b.ID, 0, "boom", true))
		require.NoError(t, s.FailBatchChunk(ctx, b.ID, 1, "boom", true))
		require.Equal(t, seedengine.BatchFailed, findBatch(t, s, b.ID).Status)

		require.NoError(t, s.ReopenBatchChunk(ctx, b.ID, 1, nil))
		got := findBatch(t, s, b.ID)
		require.Equal(t, seedengine.BatchRunning, got.Status)
		require.Equal(t, seedengine.ChunkCounts{Total: 2, Failed: 1}, got.Chunks)
		require.Equal(t, seedengine.ItemCounts{Total: 4, Failed: 2}, got.Items)

		require.NoError(t, s.CompleteBatchChunk(ctx, b.ID, 1, seedengine.ChunkOutcome{Succeeded: 2}, nil))
		got = findBatch(t, s, b.ID)
		require.Equal(t, seedengine.BatchCompletedWithErrors, got.Status)
		require.Equal(t, seedengine.ItemCounts{Total: 4, Succeeded: 2, Failed: 2}, got.Items)
	})
}

// BenchmarkCompleteBatchChunkSpawn measures a file chunk's completion that
// spawns 2,000 domain chunks, a large file's worth.
func BenchmarkCompleteBatchChunkSpawn(b *testing.B) {
	benchEngines(b, func(b *testing.B, db *sqlstore.DB) {
		s, _ := newBatchService(db)
		ctx := b.Context()
		spawn := make([]*seedengine.BatchChunk, 2000)
		for b.Loop() {
			b.StopTimer()
			batch := &seedengine.Batch{Kind: seedengine.BatchOrchestration}
			if err := s.CreateBatch(ctx, batch, []*seedengine.BatchChunk{stepChunk(seedengine.StepFile, "raw/1.jsonl", 1)}); err != nil {
				b.Fatal(err)
			}
			for i := range spawn {
				spawn[i] = stepChunk(seedengine.StepDomain, fmt.Sprintf("d%05d.example", i), 1)
			}
			b.StartTimer()
			if err := s.CompleteBatchChunk(ctx, batch.ID, 0, seedengine.ChunkOutcome{Succeeded: 1, Spawn: spawn}, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkCompleteChunksOfABigBatch completes, one after the other, the
// chunks of one 10,000-chunk batch whose chunks each add a key and a
// rejection to its result, as research chunks do: a completion's cost
// must not grow with the chunks done before it (results are merged once,
// when the batch finishes, not into the batch row at every completion).
//
//	go test -run '^$' -bench CompleteChunksOfABigBatch -benchtime 10000x ./internal/sqlstore/
func BenchmarkCompleteChunksOfABigBatch(b *testing.B) {
	benchEngines(b, func(b *testing.B, db *sqlstore.DB) {
		s, _ := newBatchService(db)
		items := make([]int, b.N)
		for i := range items {
			items[i] = 1
		}
		batch := &seedengine.Batch{Kind: seedengine.BatchResearch, Country: "sg", Category: "news", ChunkSize: 1}
		require.NoError(b, s.CreateBatch(b.Context(), batch, chunksOf(items...)))
		b.ResetTimer()
		for i := range b.N {
			out := seedengine.ChunkOutcome{Succeeded: 1, Result: json.RawMessage(fmt.Sprintf(
				`{"keys":["raw/country=sg/category=news/date=2026-11-27/raw_%04d.json"],"rejected":[{"index":%d,"url":"https://x.test/%d","reason":"invalid_host"}],"accepted":99}`, i, i, i))}
			if err := s.CompleteBatchChunk(b.Context(), batch.ID, i, out, nil); err != nil {
				b.Fatal(err)
			}
		}
		b.StopTimer()
		got, err := s.FindBatchByID(b.Context(), batch.ID)
		require.NoError(b, err)
		require.Equal(b, seedengine.BatchCompleted, got.Status)
	})
}
