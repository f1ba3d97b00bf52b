package jobs_test

import (
	"context"
	"database/sql"
	"log/slog"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverdatabasesql"
	"github.com/riverqueue/river/riverdriver/riversqlite"
	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/jobs"
	"github.com/seedengine/seedengine/internal/sqlstore"
	"github.com/seedengine/seedengine/internal/sqlstore/sqlstoretest"
)

// benchBatchSize is how many chunks each benchmark batch holds.
const benchBatchSize = 100

// BenchmarkQueueThroughput measures no-op chunk jobs end to end with the
// default Config and reports jobs/s (DESIGN's target: 1,000).
// Each op is one chunk: created with its batch (batch rows and jobs in one
// transaction per 100 chunks), fetched, started, processed and completed
// with its outcome and its River job in one transaction.
//
//   - chunks: the store as sqlstore opens it.
//   - chunks_sync_normal: the same with PRAGMA synchronous=NORMAL, which
//     in WAL mode stops fsyncing every commit (still safe against a process
//     crash, not against losing the last commits to a power cut).
//   - river_noop: River alone, a no-op worker, no batch bookkeeping: the
//     ceiling the chunk machinery works under.
//   - pg_chunks, pg_river_noop: chunks and river_noop on PostgreSQL, when
//     SEEDENGINE_TEST_POSTGRES_URL names a server (skipped otherwise).
func BenchmarkQueueThroughput(b *testing.B) {
	b.Run("chunks", func(b *testing.B) {
		benchChunks(b, sqlstoretest.OpenSQLite(b))
	})
	b.Run("chunks_sync_normal", func(b *testing.B) {
		benchChunks(b, openBenchSQLite(b, "_pragma=synchronous(NORMAL)"))
	})
	b.Run("river_noop", func(b *testing.B) {
		benchRiverNoop(b, sqlstoretest.OpenSQLite(b))
	})
	b.Run("pg_chunks", func(b *testing.B) {
		benchChunks(b, sqlstoretest.OpenPostgres(b))
	})
	b.Run("pg_river_noop", func(b *testing.B) {
		benchRiverNoop(b, sqlstoretest.OpenPostgres(b))
	})
}

func openBenchSQLite(b *testing.B, dsnQuery string) *sqlstore.DB {
	b.Helper()
	db, err := sqlstore.Open(b.Context(), sqlstoretest.NewSQLiteURL(b)+"?"+dsnQuery)
	require.NoError(b, err)
	b.Cleanup(func() { require.NoError(b, db.Close()) })
	require.NoError(b, db.Migrate(b.Context()))
	return db
}

func benchChunks(b *testing.B, db *sqlstore.DB) {
	bs := sqlstore.NewBatchService(db)
	q, err := jobs.New(db.Writer(), string(db.Engine()), bs, jobs.Config{Logger: slog.New(slog.DiscardHandler)},
		kinds(map[seedengine.BatchKind]jobs.ChunkProcessor{
			seedengine.BatchResearch: func(ctx context.Context, _ *seedengine.Batch, c *seedengine.BatchChunk) (seedengine.ChunkOutcome, error) {
				return seedengine.ChunkOutcome{Succeeded: c.Items}, nil
			},
		})...)
	require.NoError(b, err)
	require.NoError(b, q.Start(b.Context()))
	b.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		require.NoError(b, q.Stop(ctx))
	})

	input := []byte(`["https://example.test/"]`)
	measure(b, db, func(n int) {
		chunks := make([]*seedengine.BatchChunk, n)
		for i := range chunks {
			chunks[i] = &seedengine.BatchChunk{Input: input, Items: 1}
		}
		batch := &seedengine.Batch{Kind: seedengine.BatchResearch, Country: "sg", Category: "news", ChunkSize: 1}
		require.NoError(b, q.CreateBatch(b.Context(), batch, chunks))
	})
}

type noopArgs struct{}

func (noopArgs) Kind() string { return "bench_noop" }

type noopWorker struct{ river.WorkerDefaults[noopArgs] }

func (noopWorker) Work(context.Context, *river.Job[noopArgs]) error { return nil }

func benchRiverNoop(b *testing.B, db *sqlstore.DB) {
	workers := river.NewWorkers()
	river.AddWorker(workers, noopWorker{})
	cfg := &river.Config{
		FetchCooldown:     5 * time.Millisecond,
		FetchPollInterval: 100 * time.Millisecond,
		Logger:            slog.New(slog.DiscardHandler),
		Queues:            map[string]river.QueueConfig{river.QueueDefault: {MaxWorkers: 50}},
		Workers:           workers,
	}
	var client *river.Client[*sql.Tx]
	var err error
	if db.Engine() == sqlstore.EngineSQLite {
		client, err = river.NewClient(riversqlite.New(db.Writer()), cfg)
	} else {
		client, err = river.NewClient(riverdatabasesql.New(db.Writer()), cfg)
	}
	require.NoError(b, err)
	require.NoError(b, client.Start(b.Context()))
	b.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		require.NoError(b, client.Stop(ctx))
	})

	measure(b, db, func(n int) {
		params := make([]river.InsertManyParams, n)
		for i := range params {
			params[i] = river.InsertManyParams{Args: noopArgs{}}
		}
		tx, err := db.Writer().BeginTx(b.Context(), nil)
		require.NoError(b, err)
		defer func() { _ = tx.Rollback() }()
		_, err = client.InsertManyTx(b.Context(), tx, params)
		require.NoError(b, err)
		require.NoError(b, tx.Commit())
	})
}

// measure enqueues b.N jobs in groups of benchBatchSize with enqueue, waits
// until River has finished all of them and reports jobs/s. It fails unless
// all of them completed.
func measure(b *testing.B, db *sqlstore.DB, enqueue func(n int)) {
	b.ResetTimer()
	began := time.Now()
	for done := 0; done < b.N; done += benchBatchSize {
		enqueue(min(benchBatchSize, b.N-done))
	}
	// Whether any job is left unfinished is one seek in River's state
	// index; counting the completed jobs instead reads all of them, and
	// every 5 ms that took a tenth of the CPU the queue is measured on.
	for {
		var left bool
		err := db.Reader().QueryRowContext(b.Context(), `SELECT EXISTS (SELECT 1 FROM river_job
			WHERE state IN ('available', 'pending', 'retryable', 'running', 'scheduled'))`).Scan(&left)
		require.NoError(b, err)
		if !left {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	b.StopTimer()
	b.ReportMetric(float64(b.N)/time.Since(began).Seconds(), "jobs/s")

	var completed int
	err := db.Reader().QueryRowContext(b.Context(), `SELECT count(*) FROM river_job WHERE state = 'completed'`).Scan(&completed)
	require.NoError(b, err)
	require.Equal(b, b.N, completed, "jobs completed")
}
