package jobs_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/jobs"
	"github.com/seedengine/seedengine/internal/sqlstore"
	"github.com/seedengine/seedengine/internal/sqlstore/sqlstoretest"
)

// Environment of the helper process that TestQueueRestartAfterKill starts.
const (
	helperDBEnv     = "SEEDENGINE_JOBS_HELPER_DB"
	helperMarkerEnv = "SEEDENGINE_JOBS_HELPER_MARKER"
)

// TestHelperProcess is not a test: it is the worker process that
// TestQueueRestartAfterKill starts and kills. It runs a queue whose
// processor announces the chunk it got by writing a marker file and then
// hangs, so the parent can kill the process with the job in flight.
func TestHelperProcess(t *testing.T) {
	dbURL := os.Getenv(helperDBEnv)
	if dbURL == "" {
		return
	}
	marker := os.Getenv(helperMarkerEnv)
	fail := func(err error) {
		fmt.Fprintln(os.Stderr, "helper:", err)
		os.Exit(2)
	}
	ctx := context.Background()
	db, err := sqlstore.Open(ctx, dbURL)
	if err != nil {
		fail(err)
	}
	bs := sqlstore.NewBatchService(db)
	hang := func(ctx context.Context, b *seedengine.Batch, c *seedengine.BatchChunk) (seedengine.ChunkOutcome, error) {
		tmp := marker + ".tmp"
		if err := os.WriteFile(tmp, fmt.Appendf(nil, "%s/%d", c.BatchID, c.Index), 0o600); err != nil {
			fail(err)
		}
		if err := os.Rename(tmp, marker); err != nil {
			fail(err)
		}
		<-ctx.Done()
		return seedengine.ChunkOutcome{}, ctx.Err()
	}
	q, err := jobs.New(db.Writer(), string(db.Engine()), bs, jobs.Config{
		PollInterval: 20 * time.Millisecond,
		Logger:       slog.New(slog.NewTextHandler(os.Stderr, nil)),
	}, kinds(map[seedengine.BatchKind]jobs.ChunkProcessor{seedengine.BatchResearch: hang})...)
	if err != nil {
		fail(err)
	}
	if err := q.Start(ctx); err != nil {
		fail(err)
	}
	// The parent kills this process long before.
	time.Sleep(2 * time.Minute)
	fail(errors.New("not killed in time"))
}

// openShared opens a migrated store whose URL another process can open
// too.
func openShared(t *testing.T, engine string) (string, *sqlstore.DB) {
	t.Helper()
	var dbURL string
	if engine == jobs.EngineSQLite {
		dbURL = sqlstoretest.NewSQLiteURL(t)
	} else {
		dbURL = sqlstoretest.NewPostgresURL(t)
	}
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	db, err := sqlstore.Open(ctx, dbURL)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, db.Close()) })
	require.NoError(t, db.Migrate(ctx))
	return dbURL, db
}

// TestQueueRestartAfterKill enqueues a chunk, lets a separate worker
// process pick it up, kills that process with SIGKILL mid-job, and starts a
// new queue: the job must be rescued and run to completion exactly once.
//
// River rescues a job left running only from its leader's rescuer, which
// runs when a client becomes leader and then every 30 s (not configurable
// in v0.51.2); the killed process was leader and its lease lasts up to 15 s,
// so the test takes about 20-30 s.
func TestQueueRestartAfterKill(t *testing.T) {
	if testing.Short() {
		t.Skip("takes about 25 s")
	}
	t.Parallel()
	for _, engine := range []string{jobs.EngineSQLite, jobs.EnginePostgres} {
		t.Run(engine, func(t *testing.T) {
			t.Parallel()
			dbURL, db := openShared(t, engine)

			var runs counter
			cfg := testConfig()
			cfg.JobTimeout = time.Second
			cfg.RescueStuckJobsAfter = time.Second
			tb := setup(t, db, cfg, map[seedengine.BatchKind]jobs.ChunkProcessor{seedengine.BatchResearch: succeed(&runs)})

			items, _ := json.Marshal([]string{"https://a.test/", "https://b.test/", "https://c.test/", "https://d.test/", "https://e.test/"})
			b := &seedengine.Batch{Kind: seedengine.BatchResearch, Country: "sg", Category: "news", ChunkSize: 5}
			require.NoError(t, tb.q.CreateBatch(t.Context(), b, []*seedengine.BatchChunk{{Input: items, Items: 5}}))

			marker := filepath.Join(t.TempDir(), "started")
			var out syncBuffer
			cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$")
			cmd.Env = append(os.Environ(), helperDBEnv+"="+dbURL, helperMarkerEnv+"="+marker)
			cmd.Stdout, cmd.Stderr = &out, &out
			require.NoError(t, cmd.Start())
			exited := make(chan error, 1)
			go func() { exited <- cmd.Wait() }()
			t.Cleanup(func() {
				_ = cmd.Process.Kill()
				<-exited
				if t.Failed() {
					t.Logf("helper output:\n%s", out.String())
				}
			})

			began := time.Now()
			deadline := time.After(30 * time.Second)
		wait:
			for {
				select {
				case err := <-exited:
					exited <- err
					t.Fatalf("helper exited before starting the job: %v\n%s", err, out.String())
				case <-deadline:
					t.Fatalf("helper did not start the job in 30 s:\n%s", out.String())
				case <-time.After(10 * time.Millisecond):
					if _, err := os.Stat(marker); err == nil {
						break wait
					}
				}
			}
			require.NoError(t, cmd.Process.Kill())
			err := <-exited
			exited <- err
			var exitErr *exec.ExitError
			require.ErrorAs(t, err, &exitErr, "helper should have died of SIGKILL")
			killed := time.Now()

			// The dead process left the job running and the chunk started.
			require.Equal(t, map[string]int{"running": 1}, jobStates(t, tb.q, "research_chunk"))
			c, err := tb.bs.FindBatchChunk(t.Context(), b.ID, 0)
			require.NoError(t, err)
			require.Equal(t, seedengine.ChunkRunning, c.Status)

			start(t, tb)
			got := waitBatch(t, tb.bs, b.ID, 60*time.Second)
			t.Logf("%s: helper took the job %s after start; rescued and completed %s after the kill",
				engine, killed.Sub(began).Round(time.Millisecond), time.Since(killed).Round(time.Millisecond))

			require.Equal(t, seedengine.BatchCompleted, got.Status)
			require.Equal(t, seedengine.ChunkCounts{Total: 1, Done: 1}, got.Chunks)
			require.Equal(t, seedengine.ItemCounts{Total: 5, Succeeded: 5}, got.Items, "items counted exactly once")
			require.Equal(t, 1, runs.get(0), "runs in the new queue")
			c, err = tb.bs.FindBatchChunk(t.Context(), b.ID, 0)
			require.NoError(t, err)
			require.Equal(t, seedengine.ChunkDone, c.Status)
			require.Equal(t, 5, c.Succeeded)
			require.Equal(t, 2, c.Attempts, "one attempt in the killed process, one here")
			require.Equal(t, map[string]int{"completed": 1}, jobStates(t, tb.q, "research_chunk"))
		})
	}
}

// TestQueueRestartRunsEnqueuedJobOnce enqueues with a queue that never
// starts (a process that accepted the batch and exited), then works it with
// a fresh queue, then restarts once more: the job runs exactly once.
func TestQueueRestartRunsEnqueuedJobOnce(t *testing.T) {
	t.Parallel()
	sqlstoretest.Engines(t, func(t *testing.T, db *sqlstore.DB) {
		var runs counter
		procs := map[seedengine.BatchKind]jobs.ChunkProcessor{seedengine.BatchResearch: succeed(&runs)}

		first := setup(t, db, testConfig(), procs)
		b, chunks := newBatch(3)
		require.NoError(t, first.q.CreateBatch(t.Context(), b, chunks))
		ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
		defer cancel()
		require.NoError(t, first.q.Stop(ctx), "stopping a queue never started")
		require.Equal(t, map[string]int{"available": 3}, jobStates(t, first.q, "research_chunk"))

		second := setup(t, db, testConfig(), procs)
		require.NoError(t, second.q.Start(t.Context()))
		got := waitBatch(t, second.bs, b.ID, 30*time.Second)
		require.NoError(t, second.q.Stop(ctx))

		third := setup(t, db, testConfig(), procs)
		start(t, third)
		time.Sleep(300 * time.Millisecond) // several poll intervals: time to run anything left

		require.Equal(t, seedengine.BatchCompleted, got.Status)
		require.Equal(t, seedengine.ItemCounts{Total: totalItems(3), Succeeded: totalItems(3)}, got.Items)
		for i := range 3 {
			require.Equal(t, 1, runs.get(i), "chunk %d runs", i)
		}
		require.Equal(t, map[string]int{"completed": 3}, jobStates(t, third.q, "research_chunk"))
	})
}

// TestQueueSkipsRecordedChunk covers a job delivered again after its
// chunk's outcome was recorded: it completes without running the processor
// or counting the chunk twice.
func TestQueueSkipsRecordedChunk(t *testing.T) {
	t.Parallel()
	sqlstoretest.Engines(t, func(t *testing.T, db *sqlstore.DB) {
		var runs counter
		tb := setup(t, db, testConfig(), map[seedengine.BatchKind]jobs.ChunkProcessor{seedengine.BatchResearch: succeed(&runs)})
		b, chunks := newBatch(2)
		require.NoError(t, tb.q.CreateBatch(t.Context(), b, chunks))
		require.NoError(t, tb.bs.StartBatchChunk(t.Context(), b.ID, 1))
		// An earlier run recorded the outcome, and its job's completion was
		// lost.
		require.NoError(t, tb.bs.InChunkTx(t.Context(), func(ctx context.Context, tx *sql.Tx) error {
			_, err := tb.bs.CompleteChunkTx(ctx, tx, b.ID, 1, seedengine.ChunkOutcome{Succeeded: 2})
			return err
		}))

		start(t, tb)
		got := waitBatch(t, tb.bs, b.ID, 30*time.Second)
		require.Equal(t, seedengine.BatchCompleted, got.Status)
		require.Equal(t, seedengine.ItemCounts{Total: 3, Succeeded: 3}, got.Items)
		require.Equal(t, 1, runs.get(0))
		require.Zero(t, runs.get(1))
		require.Eventually(t, func() bool {
			return jobStates(t, tb.q, "research_chunk")["completed"] == 2
		}, 10*time.Second, 20*time.Millisecond)
	})
}
