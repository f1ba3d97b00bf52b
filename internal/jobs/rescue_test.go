package jobs_test

import (
	"context"
	"log/slog"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/jobs"
	"github.com/seedengine/seedengine/internal/outage/outagetest"
	"github.com/seedengine/seedengine/internal/sqlstore"
	"github.com/seedengine/seedengine/internal/sqlstore/sqlstoretest"
)

// rescueConfig looks for orphans often, so tests see a rescue quickly;
// RescueStuckJobsAfter stays long, so River's own rescuer is not what
// frees them.
func rescueConfig() jobs.Config {
	cfg := testConfig()
	cfg.RescueInterval = 50 * time.Millisecond
	cfg.OrphanGrace = 200 * time.Millisecond
	cfg.DeadProcessAfter = 300 * time.Millisecond
	cfg.JobTimeout = time.Minute
	cfg.RescueStuckJobsAfter = time.Hour
	return cfg
}

// takeJobs marks the jobs of a batch as fetched by client, as River does
// when a process picks them up: running, attempt 1, attempted_by ending
// with client.
func takeJobs(t *testing.T, db *sqlstore.DB, batchID string, chunks []int, client string) {
	t.Helper()
	for _, c := range chunks {
		var q string
		if db.Engine() == sqlstore.EnginePostgres {
			q = `UPDATE river_job SET state = 'running', attempt = 1, attempted_at = now(), attempted_by = ARRAY[$1]
				WHERE args->>'batch_id' = $2 AND (args->>'chunk')::bigint = $3`
		} else {
			q = `UPDATE river_job SET state = 'running', attempt = 1, attempted_at = datetime('now', 'subsec'), attempted_by = jsonb(json_array($1))
				WHERE json_extract(args, '$.batch_id') = $2 AND json_extract(args, '$.chunk') = $3`
		}
		res, err := db.Writer().ExecContext(t.Context(), q, client, batchID, c)
		require.NoError(t, err)
		n, err := res.RowsAffected()
		require.NoError(t, err)
		require.EqualValues(t, 1, n, "chunk %d's job", c)
	}
}

// heartbeat records a process's last heartbeat at seen.
func heartbeat(t *testing.T, db *sqlstore.DB, client string, seen time.Time) {
	t.Helper()
	_, err := db.Writer().ExecContext(t.Context(), `INSERT INTO queue_processes (id, host, pid, started_ms, seen_ms)
		VALUES ($1, 'elsewhere', 1, $2, $2)`, client, seen.UnixMilli())
	require.NoError(t, err)
}

// The jobs of a process that stopped sending heartbeats (killed with
// SIGKILL, its machine gone) run again on the others within about
// DeadProcessAfter, not after RescueStuckJobsAfter; a process that is
// alive keeps its jobs.
func TestRescueJobsOfDeadProcess(t *testing.T) {
	t.Parallel()
	sqlstoretest.Engines(t, func(t *testing.T, db *sqlstore.DB) {
		const n = 6
		var runs counter
		tb := setup(t, db, rescueConfig(), map[seedengine.BatchKind]jobs.ChunkProcessor{seedengine.BatchResearch: succeed(&runs)})
		b, chunks := newBatch(n)
		require.NoError(t, tb.q.CreateBatch(t.Context(), b, chunks))
		takeJobs(t, db, b.ID, []int{0, 1, 2, 3, 4}, "dead-process")
		takeJobs(t, db, b.ID, []int{5}, "live-process")
		heartbeat(t, db, "dead-process", time.Now().Add(-time.Hour))
		heartbeat(t, db, "live-process", time.Now().Add(time.Hour))
		start(t, tb)

		require.Eventually(t, func() bool {
			got, err := tb.bs.FindBatchByID(t.Context(), b.ID)
			require.NoError(t, err)
			return got.Chunks.Done == n-1
		}, 30*time.Second, 20*time.Millisecond, "the dead process's chunks ran here")
		for i := range n - 1 {
			require.Equal(t, 1, runs.get(i), "chunk %d ran once", i)
		}
		// Forgotten after its jobs are freed: in the same round, or the
		// next when that round's time ran out.
		require.Eventually(t, func() bool {
			var left int
			require.NoError(t, db.Reader().QueryRowContext(t.Context(), `SELECT COUNT(*) FROM queue_processes WHERE id = 'dead-process'`).Scan(&left))
			return left == 0
		}, 10*time.Second, 20*time.Millisecond, "the dead process is forgotten")

		// The live process's job stays its own, round after round.
		require.Never(t, func() bool { return runs.get(n-1) > 0 }, 500*time.Millisecond, 50*time.Millisecond)
		require.Equal(t, 1, jobStates(t, tb.q, "research_chunk")["running"])
	})
}

// A job this process's database has running but no worker here holds (River's
// completer gave up recording its end during an outage) runs again after
// OrphanGrace.
func TestRescueOwnOrphans(t *testing.T) {
	t.Parallel()
	sqlstoretest.Engines(t, func(t *testing.T, db *sqlstore.DB) {
		const n = 3
		var runs counter
		tb := setup(t, db, rescueConfig(), map[seedengine.BatchKind]jobs.ChunkProcessor{seedengine.BatchResearch: succeed(&runs)})
		b, chunks := newBatch(n)
		require.NoError(t, tb.q.CreateBatch(t.Context(), b, chunks))
		takeJobs(t, db, b.ID, []int{0, 1, 2}, tb.q.ClientID())
		start(t, tb)

		got := waitBatch(t, tb.bs, b.ID, 30*time.Second)
		require.Equal(t, seedengine.BatchCompleted, got.Status)
		for i := range n {
			require.Equal(t, 1, runs.get(i), "chunk %d ran once", i)
		}
	})
}

// logWatch is a slog handler that signals when a message containing a
// text is logged.
type logWatch struct {
	slog.Handler
	text string
	once *sync.Once
	seen chan struct{}
}

func (w logWatch) Handle(ctx context.Context, r slog.Record) error {
	if os.Getenv("DEBUG_RESCUE") != "" {
		_ = w.Handler.Handle(ctx, r)
	}
	if strings.Contains(r.Message, w.text) {
		w.once.Do(func() { close(w.seen) })
	}
	return nil
}

func (w logWatch) Enabled(context.Context, slog.Level) bool { return true }
func (w logWatch) WithAttrs([]slog.Attr) slog.Handler       { return w }
func (w logWatch) WithGroup(string) slog.Handler            { return w }

// A database outage longer than River's completer retries: jobs that
// ended during it are not recorded as ended and stay running with no
// worker. The batch still finishes soon after the database returns, with
// the default rescue of stuck jobs (15 min) untouched.
func TestOutageLongerThanCompleterRetries(t *testing.T) {
	t.Parallel()
	raw := sqlstoretest.NewPostgresURL(t)
	u, err := url.Parse(raw)
	require.NoError(t, err)
	proxy := outagetest.NewProxy(t, u.Host)
	u.Host = proxy.Addr()
	db := sqlstoretest.Open(t, u.String())

	gaveUp := logWatch{Handler: slog.DiscardHandler, text: "Too many errors; giving up", once: &sync.Once{}, seen: make(chan struct{})}
	cfg := testConfig()
	cfg.Logger = slog.New(gaveUp)
	if os.Getenv("DEBUG_RESCUE") != "" {
		gaveUp.Handler = slog.NewTextHandler(os.Stderr, nil)
		cfg.Logger = slog.New(gaveUp)
	}
	cfg.RescueInterval = 100 * time.Millisecond
	cfg.DeadProcessAfter = time.Minute
	// OrphanGrace and RescueStuckJobsAfter keep their defaults (45 s, 15 min).

	const n = 4
	release := make(chan struct{})
	var holding sync.WaitGroup
	holding.Add(n)
	var runs counter
	proc := func(ctx context.Context, b *seedengine.Batch, c *seedengine.BatchChunk) (seedengine.ChunkOutcome, error) {
		if runs.add(c.Index) == 1 {
			holding.Done()
			<-release
		}
		return seedengine.ChunkOutcome{Succeeded: c.Items}, nil
	}
	tb := setup(t, db, cfg, map[seedengine.BatchKind]jobs.ChunkProcessor{seedengine.BatchResearch: proc})
	start(t, tb)
	b, chunks := newBatch(n)
	require.NoError(t, tb.q.CreateBatch(t.Context(), b, chunks))
	holding.Wait() // every chunk is in a worker

	proxy.Cut()
	close(release) // the work ends while the database is away
	select {
	case <-gaveUp.seen:
	case <-time.After(2 * time.Minute):
		t.Fatal("River's completer never gave up")
	}
	proxy.Restore()
	back := time.Now()

	got := waitBatch(t, tb.bs, b.ID, 3*time.Minute)
	t.Logf("batch %s %s after the database returned", got.Status, time.Since(back).Round(time.Second))
	require.Equal(t, seedengine.BatchCompleted, got.Status)
	require.Equal(t, seedengine.ItemCounts{Total: totalItems(n), Succeeded: totalItems(n)}, got.Items, "each chunk counted once")
}

// An insert-only queue (serve --workers 0) accepts batches and answers
// readiness but works nothing; a working queue on the same database runs
// what it enqueued.
func TestInsertOnlyQueue(t *testing.T) {
	t.Parallel()
	sqlstoretest.Engines(t, func(t *testing.T, db *sqlstore.DB) {
		const n = 4
		var apiRuns, workerRuns counter
		cfg := testConfig()
		cfg.InsertOnly = true
		api := setup(t, db, cfg, map[seedengine.BatchKind]jobs.ChunkProcessor{seedengine.BatchResearch: succeed(&apiRuns)})
		api.q.RegisterMetadata(nopMetadata{}, time.Hour)
		start(t, api)
		require.NoError(t, api.q.Check(t.Context()))

		b, chunks := newBatch(n)
		require.NoError(t, api.q.CreateBatch(t.Context(), b, chunks))
		require.Never(t, func() bool { return jobStates(t, api.q, "research_chunk")["available"] != n }, 300*time.Millisecond, 20*time.Millisecond,
			"the jobs wait for a worker")

		worker := setup(t, db, testConfig(), map[seedengine.BatchKind]jobs.ChunkProcessor{seedengine.BatchResearch: succeed(&workerRuns)})
		start(t, worker)
		got := waitBatch(t, worker.bs, b.ID, 30*time.Second)
		require.Equal(t, seedengine.BatchCompleted, got.Status)
		for i := range n {
			require.Zero(t, apiRuns.get(i))
			require.Equal(t, 1, workerRuns.get(i))
		}
	})
}

type nopMetadata struct{}

func (nopMetadata) RunMetadataTask(context.Context, string) error { return nil }
func (nopMetadata) TriggerMetadataSync(context.Context, seedengine.MetadataTrigger) (*seedengine.MetadataTask, bool, error) {
	return nil, false, nil
}
