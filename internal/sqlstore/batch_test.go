package sqlstore_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
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
	chunks      int
	chunkRowsTx int // chunk rows visible inside the transaction
}

func (e *fakeEnqueuer) EnqueueBatchTx(ctx context.Context, tx *sql.Tx, b *seedengine.Batch, chunks []*seedengine.BatchChunk) error {
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM batch_chunks WHERE batch_id = $1`, b.ID).Scan(&n); err != nil {
		return err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.calls = append(e.calls, enqueueCall{batchID: b.ID, chunks: len(chunks), chunkRowsTx: n})
	return e.err
}

func (e *fakeEnqueuer) Calls() []enqueueCall {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]enqueueCall(nil), e.calls...)
}

func newBatchService(db *sqlstore.DB) (*sqlstore.BatchService, *fakeEnqueuer) {
	enq := &fakeEnqueuer{}
	s := sqlstore.NewBatchService(db)
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

func createBatch(t *testing.T, s *sqlstore.BatchService, kind seedengine.BatchKind, items ...int) *seedengine.Batch {
	t.Helper()
	b := &seedengine.Batch{Kind: kind, Country: "sg", Category: "news", ChunkSize: 10}
	require.NoError(t, s.CreateBatch(t.Context(), b, chunksOf(items...)))
	return b
}

func findBatch(t *testing.T, s *sqlstore.BatchService, id string) *seedengine.Batch {
	t.Helper()
	b, err := s.FindBatchByID(t.Context(), id)
	require.NoError(t, err)
	return b
}

func findChunk(t *testing.T, s *sqlstore.BatchService, id string, index int) *seedengine.BatchChunk {
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
		require.Equal(t, []enqueueCall{{batchID: b.ID, chunks: 3, chunkRowsTx: 3}}, enq.Calls(),
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
		s := sqlstore.NewBatchService(db)
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
