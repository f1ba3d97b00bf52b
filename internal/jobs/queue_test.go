package jobs_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/contract"
	"github.com/seedengine/seedengine/internal/jobs"
	"github.com/seedengine/seedengine/internal/liveness"
	"github.com/seedengine/seedengine/internal/orchestrate"
	"github.com/seedengine/seedengine/internal/research"
	"github.com/seedengine/seedengine/internal/sqlstore"
	"github.com/seedengine/seedengine/internal/sqlstore/sqlstoretest"
)

// bundle is what setup wires: a store, its batch service and a queue that
// is the service's enqueuer.
type bundle struct {
	db *sqlstore.DB
	bs *sqlstore.BatchService
	q  *jobs.Queue
}

// testConfig keeps tests fast: fast polling, and no log noise unless a
// test asks for the logs.
func testConfig() jobs.Config {
	return jobs.Config{
		Workers:       10,
		PollInterval:  20 * time.Millisecond,
		FetchCooldown: 5 * time.Millisecond,
		MaxAttempts:   5,
		Logger:        slog.New(slog.DiscardHandler),
	}
}

// setup builds a queue on db with procs registered. The queue is not
// started; start(t, b) starts it and stops it at cleanup.
func setup(t *testing.T, db *sqlstore.DB, cfg jobs.Config, procs map[seedengine.BatchKind]jobs.ChunkProcessor) *bundle {
	t.Helper()
	bs := sqlstore.NewBatchService(db)
	q, err := jobs.New(db.Writer(), string(db.Engine()), bs, cfg, kinds(procs)...)
	require.NoError(t, err)
	return &bundle{db: db, bs: bs, q: q}
}

// kinds declares every batch kind as internal/app does, each processed by
// its processor in procs (nil: known but not run).
func kinds(procs map[seedengine.BatchKind]jobs.ChunkProcessor) []jobs.Kind {
	return []jobs.Kind{
		jobs.Batch[research.ChunkJob](seedengine.BatchResearch, procs[seedengine.BatchResearch]),
		jobs.Batch[liveness.ChunkJob](seedengine.BatchLiveness, procs[seedengine.BatchLiveness]),
		jobs.Batch[contract.ChunkJob](seedengine.BatchContract, procs[seedengine.BatchContract]),
		jobs.Batch[orchestrate.FileJob](seedengine.BatchOrchestration, procs[seedengine.BatchOrchestration],
			jobs.Step[orchestrate.DomainJob](seedengine.StepDomain, jobs.QueueDomains)),
	}
}

func start(t *testing.T, b *bundle) {
	t.Helper()
	require.NoError(t, b.q.Start(t.Context()))
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		require.NoError(t, b.q.Stop(ctx))
	})
}

// newBatch makes a research batch of n chunks; chunk i holds i+1 items so
// that a doubled or lost chunk shows in the item counters.
func newBatch(n int) (*seedengine.Batch, []*seedengine.BatchChunk) {
	b := &seedengine.Batch{Kind: seedengine.BatchResearch, Country: "sg", Category: "news", ChunkSize: n}
	chunks := make([]*seedengine.BatchChunk, n)
	for i := range chunks {
		items := make([]string, i+1)
		for j := range items {
			items[j] = fmt.Sprintf("https://example%d-%d.test/", i, j)
		}
		input, _ := json.Marshal(items)
		chunks[i] = &seedengine.BatchChunk{Index: i, Input: input, Items: len(items)}
	}
	return b, chunks
}

func totalItems(n int) int { return n * (n + 1) / 2 }

// waitBatch polls until the batch has a final status.
func waitBatch(t *testing.T, bs *sqlstore.BatchService, id string, timeout time.Duration) *seedengine.Batch {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		b, err := bs.FindBatchByID(t.Context(), id)
		require.NoError(t, err)
		if b.Status.Finished() {
			return b
		}
		if time.Now().After(deadline) {
			t.Fatalf("batch %s still %s after %s: chunks %+v", id, b.Status, timeout, b.Chunks)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// jobStates returns River's job counts of one kind by state.
func jobStates(t *testing.T, q *jobs.Queue, kind string) map[string]int {
	t.Helper()
	counts, err := q.CountJobs(t.Context())
	require.NoError(t, err)
	m := map[string]int{}
	for _, c := range counts {
		if c.Kind == kind {
			m[c.State] = c.Count
		}
	}
	return m
}

// counter counts processor runs per chunk.
type counter struct {
	mu   sync.Mutex
	runs map[int]int
}

func (c *counter) add(i int) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.runs == nil {
		c.runs = map[int]int{}
	}
	c.runs[i]++
	return c.runs[i]
}

func (c *counter) get(i int) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.runs[i]
}

// succeed is a processor that counts every item as succeeded and reports
// the chunk in its result.
func succeed(runs *counter) jobs.ChunkProcessor {
	return func(ctx context.Context, b *seedengine.Batch, c *seedengine.BatchChunk) (seedengine.ChunkOutcome, error) {
		runs.add(c.Index)
		var items []string
		if err := json.Unmarshal(c.Input, &items); err != nil {
			return seedengine.ChunkOutcome{}, err
		}
		res, _ := json.Marshal(map[string]any{"urls": len(items), "chunks": []int{c.Index}})
		return seedengine.ChunkOutcome{Succeeded: len(items), Result: res}, nil
	}
}

// syncBuffer is a log sink that tests may read while the queue writes.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func TestQueueCompletesBatch(t *testing.T) {
	t.Parallel()
	sqlstoretest.Engines(t, func(t *testing.T, db *sqlstore.DB) {
		const n = 20
		var runs counter
		var logs syncBuffer
		cfg := testConfig()
		cfg.Logger = slog.New(slog.NewJSONHandler(&logs, nil))
		tb := setup(t, db, cfg, map[seedengine.BatchKind]jobs.ChunkProcessor{seedengine.BatchResearch: succeed(&runs)})
		start(t, tb)

		b, chunks := newBatch(n)
		require.NoError(t, tb.q.CreateBatch(t.Context(), b, chunks))
		got := waitBatch(t, tb.bs, b.ID, 30*time.Second)

		require.Equal(t, seedengine.BatchCompleted, got.Status)
		require.Equal(t, seedengine.ChunkCounts{Total: n, Done: n}, got.Chunks)
		require.Equal(t, seedengine.ItemCounts{Total: totalItems(n), Succeeded: totalItems(n)}, got.Items)
		require.InDelta(t, 1.0, got.Progress, 1e-9)
		require.NotNil(t, got.StartedAt)
		require.NotNil(t, got.FinishedAt)

		var res struct {
			URLs   int   `json:"urls"`
			Chunks []int `json:"chunks"`
		}
		require.NoError(t, json.Unmarshal(got.Result, &res))
		require.Equal(t, totalItems(n), res.URLs)
		require.ElementsMatch(t, seqInts(n), res.Chunks)

		for i := range n {
			require.Equal(t, 1, runs.get(i), "chunk %d runs", i)
			c, err := tb.bs.FindBatchChunk(t.Context(), b.ID, i)
			require.NoError(t, err)
			require.Equal(t, seedengine.ChunkDone, c.Status)
			require.Equal(t, i+1, c.Succeeded)
		}
		require.Equal(t, map[string]int{"completed": n}, jobStates(t, tb.q, "research_chunk"))

		// One structured line per job outcome, written once the job returns:
		// stop the queue so every job has.
		ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
		defer cancel()
		require.NoError(t, tb.q.Stop(ctx))
		lines := 0
		for line := range strings.SplitSeq(logs.String(), "\n") {
			if !strings.Contains(line, `"event":"job_completed"`) {
				continue
			}
			lines++
			var rec map[string]any
			require.NoError(t, json.Unmarshal([]byte(line), &rec))
			require.Equal(t, "research_chunk", rec["kind"])
			require.Equal(t, b.ID, rec["batch_id"])
			require.Contains(t, rec, "chunk")
			require.EqualValues(t, 1, rec["attempt"])
			require.Contains(t, rec, "duration_ms")
		}
		require.Equal(t, n, lines)
	})
}

func seqInts(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}

func TestQueueRetries(t *testing.T) {
	t.Parallel()
	sqlstoretest.Engines(t, func(t *testing.T, db *sqlstore.DB) {
		t.Run("retry then success", func(t *testing.T) {
			var runs counter
			tb := setup(t, db, testConfig(), map[seedengine.BatchKind]jobs.ChunkProcessor{
				seedengine.BatchResearch: func(ctx context.Context, b *seedengine.Batch, c *seedengine.BatchChunk) (seedengine.ChunkOutcome, error) {
					if runs.add(c.Index) == 1 {
						return seedengine.ChunkOutcome{}, errors.New("upstream timed out")
					}
					return seedengine.ChunkOutcome{Succeeded: c.Items}, nil
				},
			})
			start(t, tb)
			b, chunks := newBatch(2)
			require.NoError(t, tb.q.CreateBatch(t.Context(), b, chunks))
			got := waitBatch(t, tb.bs, b.ID, 30*time.Second)

			require.Equal(t, seedengine.BatchCompleted, got.Status)
			require.Equal(t, seedengine.ItemCounts{Total: 3, Succeeded: 3}, got.Items)
			for i := range 2 {
				require.Equal(t, 2, runs.get(i))
				c, err := tb.bs.FindBatchChunk(t.Context(), b.ID, i)
				require.NoError(t, err)
				require.Equal(t, seedengine.ChunkDone, c.Status)
				require.Equal(t, 2, c.Attempts)
			}
			require.Equal(t, map[string]int{"completed": 2}, jobStates(t, tb.q, "research_chunk"))
		})

		t.Run("retries exhausted", func(t *testing.T) {
			cfg := testConfig()
			cfg.MaxAttempts = 2
			var runs counter
			tb := setup(t, db, cfg, map[seedengine.BatchKind]jobs.ChunkProcessor{
				seedengine.BatchResearch: func(ctx context.Context, b *seedengine.Batch, c *seedengine.BatchChunk) (seedengine.ChunkOutcome, error) {
					runs.add(c.Index)
					if c.Index == 1 {
						return seedengine.ChunkOutcome{}, errors.New("host unreachable")
					}
					return seedengine.ChunkOutcome{Succeeded: c.Items}, nil
				},
			})
			start(t, tb)
			b, chunks := newBatch(2)
			require.NoError(t, tb.q.CreateBatch(t.Context(), b, chunks))
			got := waitBatch(t, tb.bs, b.ID, 30*time.Second)

			require.Equal(t, seedengine.BatchCompletedWithErrors, got.Status)
			require.Equal(t, seedengine.ChunkCounts{Total: 2, Done: 1, Failed: 1}, got.Chunks)
			require.Equal(t, seedengine.ItemCounts{Total: 3, Succeeded: 1, Failed: 2}, got.Items)
			require.Equal(t, 1, runs.get(0))
			require.Equal(t, 2, runs.get(1))
			c, err := tb.bs.FindBatchChunk(t.Context(), b.ID, 1)
			require.NoError(t, err)
			require.Equal(t, seedengine.ChunkFailed, c.Status)
			require.Contains(t, c.LastError, "host unreachable")
			require.Eventually(t, func() bool {
				return jobStates(t, tb.q, "research_chunk")["discarded"] == 1
			}, 10*time.Second, 20*time.Millisecond)
		})

		t.Run("invalid input is never retried", func(t *testing.T) {
			var runs counter
			tb := setup(t, db, testConfig(), map[seedengine.BatchKind]jobs.ChunkProcessor{
				seedengine.BatchResearch: func(ctx context.Context, b *seedengine.Batch, c *seedengine.BatchChunk) (seedengine.ChunkOutcome, error) {
					runs.add(c.Index)
					return seedengine.ChunkOutcome{}, seedengine.FieldErrorf("urls", "chunk holds no URL")
				},
			})
			start(t, tb)
			b, chunks := newBatch(1)
			require.NoError(t, tb.q.CreateBatch(t.Context(), b, chunks))
			got := waitBatch(t, tb.bs, b.ID, 30*time.Second)

			require.Equal(t, seedengine.BatchFailed, got.Status)
			require.Equal(t, seedengine.ChunkCounts{Total: 1, Failed: 1}, got.Chunks)
			require.Equal(t, 1, runs.get(0))
			require.Eventually(t, func() bool {
				return jobStates(t, tb.q, "research_chunk")["cancelled"] == 1
			}, 10*time.Second, 20*time.Millisecond)
		})

		t.Run("panic is a failed attempt", func(t *testing.T) {
			cfg := testConfig()
			cfg.MaxAttempts = 1
			tb := setup(t, db, cfg, map[seedengine.BatchKind]jobs.ChunkProcessor{
				seedengine.BatchResearch: func(ctx context.Context, b *seedengine.Batch, c *seedengine.BatchChunk) (seedengine.ChunkOutcome, error) {
					panic("processor bug")
				},
			})
			start(t, tb)
			b, chunks := newBatch(1)
			require.NoError(t, tb.q.CreateBatch(t.Context(), b, chunks))
			got := waitBatch(t, tb.bs, b.ID, 30*time.Second)
			require.Equal(t, seedengine.BatchFailed, got.Status)
			c, err := tb.bs.FindBatchChunk(t.Context(), b.ID, 0)
			require.NoError(t, err)
			require.Contains(t, c.LastError, "processor bug")
		})
	})
}

func TestEnqueueBatchTxUnregisteredKind(t *testing.T) {
	t.Parallel()
	sqlstoretest.Engines(t, func(t *testing.T, db *sqlstore.DB) {
		var runs counter
		tb := setup(t, db, testConfig(), map[seedengine.BatchKind]jobs.ChunkProcessor{seedengine.BatchResearch: succeed(&runs)})

		b, chunks := newBatch(3)
		b.Kind = seedengine.BatchLiveness
		err := tb.q.CreateBatch(t.Context(), b, chunks)
		require.Error(t, err)
		require.Equal(t, seedengine.ENOTIMPLEMENTED, seedengine.ErrorCode(err), "%v", err)

		_, total, err := tb.bs.FindBatches(t.Context(), seedengine.BatchFilter{})
		require.NoError(t, err)
		require.Zero(t, total)
		if b.ID != "" {
			_, err = tb.bs.FindBatchByID(t.Context(), b.ID)
			require.Equal(t, seedengine.ENOTFOUND, seedengine.ErrorCode(err))
		}
		counts, err := tb.q.CountJobs(t.Context())
		require.NoError(t, err)
		require.Empty(t, counts)
	})
}

func TestQueueGracefulStop(t *testing.T) {
	t.Parallel()
	sqlstoretest.Engines(t, func(t *testing.T, db *sqlstore.DB) {
		t.Run("in-flight job finishes", func(t *testing.T) {
			started := make(chan struct{})
			var finished atomic.Bool
			tb := setup(t, db, testConfig(), map[seedengine.BatchKind]jobs.ChunkProcessor{
				seedengine.BatchResearch: func(ctx context.Context, b *seedengine.Batch, c *seedengine.BatchChunk) (seedengine.ChunkOutcome, error) {
					close(started)
					time.Sleep(500 * time.Millisecond)
					finished.Store(true)
					return seedengine.ChunkOutcome{Succeeded: c.Items}, nil
				},
			})
			require.NoError(t, tb.q.Start(t.Context()))
			b, chunks := newBatch(1)
			require.NoError(t, tb.q.CreateBatch(t.Context(), b, chunks))
			<-started

			ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
			defer cancel()
			require.NoError(t, tb.q.Stop(ctx))
			require.True(t, finished.Load(), "Stop returned before the job finished")
			require.False(t, tb.q.Started())

			got, err := tb.bs.FindBatchByID(t.Context(), b.ID)
			require.NoError(t, err)
			require.Equal(t, seedengine.BatchCompleted, got.Status)
			c, err := tb.bs.FindBatchChunk(t.Context(), b.ID, 0)
			require.NoError(t, err)
			require.Equal(t, seedengine.ChunkDone, c.Status)
			require.Equal(t, map[string]int{"completed": 1}, jobStates(t, tb.q, "research_chunk"))
		})

		t.Run("job past the deadline is released and runs again", func(t *testing.T) {
			started := make(chan struct{}, 1)
			first := setup(t, db, testConfig(), map[seedengine.BatchKind]jobs.ChunkProcessor{
				seedengine.BatchResearch: func(ctx context.Context, b *seedengine.Batch, c *seedengine.BatchChunk) (seedengine.ChunkOutcome, error) {
					started <- struct{}{}
					<-ctx.Done()
					return seedengine.ChunkOutcome{}, ctx.Err()
				},
			})
			require.NoError(t, first.q.Start(t.Context()))
			b, chunks := newBatch(1)
			require.NoError(t, first.q.CreateBatch(t.Context(), b, chunks))
			<-started

			ctx, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
			defer cancel()
			require.NoError(t, first.q.Stop(ctx))
			c, err := first.bs.FindBatchChunk(t.Context(), b.ID, 0)
			require.NoError(t, err)
			require.NotEqual(t, seedengine.ChunkDone, c.Status)
			require.NotEqual(t, seedengine.ChunkFailed, c.Status)
			states := jobStates(t, first.q, "research_chunk")
			require.Equal(t, 1, states["available"]+states["scheduled"], "%v", states)

			var runs counter
			second := setup(t, db, testConfig(), map[seedengine.BatchKind]jobs.ChunkProcessor{seedengine.BatchResearch: succeed(&runs)})
			start(t, second)
			got := waitBatch(t, second.bs, b.ID, 30*time.Second)
			require.Equal(t, seedengine.BatchCompleted, got.Status)
			require.Equal(t, seedengine.ItemCounts{Total: 1, Succeeded: 1}, got.Items)
			require.Equal(t, 1, runs.get(0))
		})
	})
}

func TestQueueCheckAndCountJobs(t *testing.T) {
	t.Parallel()
	sqlstoretest.Engines(t, func(t *testing.T, db *sqlstore.DB) {
		var runs counter
		tb := setup(t, db, testConfig(), map[seedengine.BatchKind]jobs.ChunkProcessor{seedengine.BatchResearch: succeed(&runs)})

		err := tb.q.Check(t.Context())
		require.Equal(t, seedengine.EUNAVAILABLE, seedengine.ErrorCode(err), "%v", err)
		require.False(t, tb.q.Started())

		// Jobs enqueued before start wait for it.
		b, chunks := newBatch(3)
		require.NoError(t, tb.q.CreateBatch(t.Context(), b, chunks))
		require.Equal(t, map[string]int{"available": 3}, jobStates(t, tb.q, "research_chunk"))

		require.NoError(t, tb.q.Start(t.Context()))
		require.True(t, tb.q.Started())
		require.NoError(t, tb.q.Check(t.Context()))
		waitBatch(t, tb.bs, b.ID, 30*time.Second)

		counts, err := tb.q.CountJobs(t.Context())
		require.NoError(t, err)
		require.Equal(t, []seedengine.JobCount{{Kind: "research_chunk", State: "completed", Count: 3}}, counts)

		ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
		defer cancel()
		require.NoError(t, tb.q.Stop(ctx))
		err = tb.q.Check(t.Context())
		require.Equal(t, seedengine.EUNAVAILABLE, seedengine.ErrorCode(err), "%v", err)
	})
}

func TestNewValidatesConfig(t *testing.T) {
	t.Parallel()
	db := sqlstoretest.OpenSQLite(t)
	bs := sqlstore.NewBatchService(db)
	tests := []struct {
		name   string
		engine string
		cfg    jobs.Config
	}{
		{"rescue shorter than timeout", "sqlite", jobs.Config{JobTimeout: time.Minute, RescueStuckJobsAfter: time.Second}},
		{"negative workers", "sqlite", jobs.Config{Workers: -1}},
		{"cooldown above poll", "sqlite", jobs.Config{PollInterval: 10 * time.Millisecond, FetchCooldown: time.Second}},
		{"unknown engine", "mysql", jobs.Config{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := jobs.New(db.Writer(), tt.engine, bs, tt.cfg)
			require.Equal(t, seedengine.EINVALID, seedengine.ErrorCode(err), "%v", err)
		})
	}
	t.Run("sqlite pool of many connections", func(t *testing.T) {
		t.Parallel()
		_, err := jobs.New(db.Reader(), "sqlite", bs, jobs.Config{})
		require.Equal(t, seedengine.EINVALID, seedengine.ErrorCode(err), "%v", err)
	})
	t.Run("defaults are valid", func(t *testing.T) {
		t.Parallel()
		q, err := jobs.New(db.Writer(), "sqlite", bs, jobs.Config{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
		require.NoError(t, err)
		require.NotNil(t, q.Client())
	})
}

func TestChunkJobs(t *testing.T) {
	t.Parallel()
	ref := seedengine.ChunkRef{BatchID: "b1", Chunk: 3}
	tests := []struct {
		args river.JobArgs
		kind string
	}{
		{research.ChunkJob{ChunkRef: ref}, "research_chunk"},
		{liveness.ChunkJob{ChunkRef: ref}, "liveness_chunk"},
		{contract.ChunkJob{ChunkRef: ref}, "contract_chunk"},
		{orchestrate.FileJob{ChunkRef: ref}, "orchestration_file"},
		{orchestrate.DomainJob{ChunkRef: ref}, "orchestration_domain"},
	}
	for _, tt := range tests {
		require.Equal(t, tt.kind, tt.args.Kind())
		raw, err := json.Marshal(tt.args)
		require.NoError(t, err)
		require.JSONEq(t, `{"batch_id":"b1","chunk":3}`, string(raw))
	}
}

func TestNewPanicsOnKindsWiredWrong(t *testing.T) {
	t.Parallel()
	db := sqlstoretest.OpenSQLite(t)
	bs := sqlstore.NewBatchService(db)
	cfg := jobs.Config{Logger: slog.New(slog.DiscardHandler)}
	require.Panics(t, func() {
		_, _ = jobs.New(db.Writer(), string(db.Engine()), bs, cfg, jobs.Batch[research.ChunkJob]("nope", nil))
	})
	require.Panics(t, func() {
		_, _ = jobs.New(db.Writer(), string(db.Engine()), bs, cfg,
			jobs.Batch[research.ChunkJob](seedengine.BatchResearch, nil), jobs.Batch[contract.ChunkJob](seedengine.BatchResearch, nil))
	})
	require.Panics(t, func() { // one job type for two kinds: River refuses the second worker
		_, _ = jobs.New(db.Writer(), string(db.Engine()), bs, cfg,
			jobs.Batch[research.ChunkJob](seedengine.BatchResearch, nil), jobs.Batch[research.ChunkJob](seedengine.BatchContract, nil))
	})
}

func TestQueueRunsFinisherOnce(t *testing.T) {
	t.Parallel()
	sqlstoretest.Engines(t, func(t *testing.T, db *sqlstore.DB) {
		const n = 5
		var runs counter
		tb := setup(t, db, testConfig(), map[seedengine.BatchKind]jobs.ChunkProcessor{
			seedengine.BatchResearch: succeed(&runs),
			seedengine.BatchContract: succeed(&runs),
		})
		type call struct {
			id     string
			status seedengine.BatchStatus
			chunks seedengine.ChunkCounts
		}
		var (
			mu    sync.Mutex
			calls []call
			fails atomic.Int32
		)
		tb.q.RegisterFinisher(seedengine.BatchResearch, func(ctx context.Context, b *seedengine.Batch) error {
			if fails.Add(1) == 1 {
				return errors.New("first attempt fails")
			}
			mu.Lock()
			defer mu.Unlock()
			calls = append(calls, call{b.ID, b.Status, b.Chunks})
			return nil
		})
		require.Panics(t, func() {
			tb.q.RegisterFinisher(seedengine.BatchResearch, func(context.Context, *seedengine.Batch) error { return nil })
		})
		require.Panics(t, func() { tb.q.RegisterFinisher("nope", func(context.Context, *seedengine.Batch) error { return nil }) })
		start(t, tb)
		require.Panics(t, func() {
			tb.q.RegisterFinisher(seedengine.BatchLiveness, func(context.Context, *seedengine.Batch) error { return nil })
		})

		// A kind without a finisher queues no batch_finished job.
		other, otherChunks := newBatch(2)
		other.Kind = seedengine.BatchContract
		require.NoError(t, tb.q.CreateBatch(t.Context(), other, otherChunks))
		waitBatch(t, tb.bs, other.ID, 30*time.Second)

		b, chunks := newBatch(n)
		require.NoError(t, tb.q.CreateBatch(t.Context(), b, chunks))
		// The finisher's job is queued in the transaction that finishes
		// the batch: whenever it is there, the batch is finished (the
		// batch may well be, its chunks run within milliseconds).
		for range 20 {
			states := jobStates(t, tb.q, "batch_finished")
			cur, err := tb.bs.FindBatchByID(t.Context(), b.ID)
			require.NoError(t, err)
			if len(states) > 0 {
				require.True(t, cur.Status.Finished(), "no finisher job before the batch finishes: %v while %s", states, cur.Status)
			}
			time.Sleep(time.Millisecond)
		}
		waitBatch(t, tb.bs, b.ID, 30*time.Second)

		deadline := time.Now().Add(30 * time.Second)
		for jobStates(t, tb.q, "batch_finished")["completed"] == 0 {
			if time.Now().After(deadline) {
				t.Fatalf("batch_finished job not completed: %v", jobStates(t, tb.q, "batch_finished"))
			}
			time.Sleep(20 * time.Millisecond)
		}
		mu.Lock()
		got := append([]call(nil), calls...)
		mu.Unlock()
		require.Equal(t, []call{{b.ID, seedengine.BatchCompleted, seedengine.ChunkCounts{Total: n, Done: n}}}, got)
		require.EqualValues(t, 2, fails.Load(), "one failed attempt, retried once")
		require.Equal(t, map[string]int{"completed": 1}, jobStates(t, tb.q, "batch_finished"),
			"one job for the batch with a finisher, none for the other")
	})
}
