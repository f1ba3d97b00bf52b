package orchestrate_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/blobstore"
	"github.com/seedengine/seedengine/internal/discover"
	"github.com/seedengine/seedengine/internal/jobs"
	"github.com/seedengine/seedengine/internal/layout"
	"github.com/seedengine/seedengine/internal/orchestrate"
	"github.com/seedengine/seedengine/internal/simweb"
	"github.com/seedengine/seedengine/internal/simweb/simwebtest"
	"github.com/seedengine/seedengine/internal/sqlstore"
	"github.com/seedengine/seedengine/internal/sqlstore/sqlstoretest"
)

// Environment of the worker process that TestOrchestrationWorkerKilledMidFile
// starts and kills.
const (
	killedWorkerDBEnv     = "SEEDENGINE_ORCHESTRATE_HELPER_DB"
	killedWorkerBlobsEnv  = "SEEDENGINE_ORCHESTRATE_HELPER_BLOBS"
	killedWorkerStallEnv  = "SEEDENGINE_ORCHESTRATE_HELPER_STALL_KEY"
	killedWorkerMarkerEnv = "SEEDENGINE_ORCHESTRATE_HELPER_MARKER"
)

// The two raw files of the test: the first is the one the worker is killed
// in the middle of; the second, which shares delta-site with it, goes
// through in the worker before the kill, so its domains were spawned (and
// collected) by the dead process.
var (
	killedFileHosts = []string{"alpha-site.gov.sg", "beta-site.gov.sg", "gamma-site.gov.sg", "delta-site.gov.sg"}
	doneFileHosts   = []string{"delta-site.gov.sg", "epsilon-site.gov.sg"}
	killedSites     = []simweb.Site{
		{Host: "alpha-site.gov.sg", Layout: simweb.LayoutWordPress},
		{Host: "beta-site.gov.sg", Layout: simweb.LayoutStatic},
		{Host: "gamma-site.gov.sg", Layout: simweb.LayoutBlog},
		{Host: "delta-site.gov.sg", Layout: simweb.LayoutGov},
		{Host: "epsilon-site.gov.sg", Layout: simweb.LayoutWordPress},
	}
)

// repeatedRawFile is a raw dataset of testPartition naming each host
// perHost times (every other record by domain_id too), plus a record whose
// URL cannot become a domain: big enough that reading half of it is the
// middle of the file.
func repeatedRawFile(perHost int, hosts ...string) []byte {
	var recs []string
	for i := range perHost {
		for _, h := range hosts {
			if i%2 == 0 {
				recs = append(recs, fmt.Sprintf(`{"raw_url":"https://www.%s/news/%d","domain_id":"gov:sg:%s","confidence":0.9}`, h, i, h))
			} else {
				recs = append(recs, fmt.Sprintf(`{"raw_url":"https://%s/about/%d"}`, h, i))
			}
		}
	}
	recs = append(recs, `{"raw_url":"mailto:press@example.gov.sg"}`)
	return fmt.Appendf(nil, `{"meta":{"dataset_id":"t","country":"SG","category":"news","date":"2026-01-28","record_count":%d},"records":[%s]}`,
		len(recs), strings.Join(recs, ","))
}

// stallingStore hands out only the first half of the file at stallKey,
// then writes marker and blocks until the job's context ends: a worker
// caught in the middle of reading a file.
type stallingStore struct {
	*blobstore.Store
	stallKey string
	marker   string
}

func (s *stallingStore) NewReader(ctx context.Context, key string) (io.ReadCloser, int64, error) {
	rd, size, err := s.Store.NewReader(ctx, key)
	if err != nil || key != s.stallKey {
		return rd, size, err
	}
	return &stallingReader{ReadCloser: rd, ctx: ctx, left: size / 2, marker: s.marker}, size, nil
}

type stallingReader struct {
	io.ReadCloser
	ctx    context.Context
	left   int64
	given  int64
	marker string
}

func (r *stallingReader) Read(p []byte) (int, error) {
	if r.left <= 0 {
		tmp := r.marker + ".tmp"
		if err := os.WriteFile(tmp, fmt.Appendf(nil, "%d bytes read", r.given), 0o600); err != nil {
			return 0, err
		}
		if err := os.Rename(tmp, r.marker); err != nil {
			return 0, err
		}
		<-r.ctx.Done()
		return 0, r.ctx.Err()
	}
	if int64(len(p)) > r.left {
		p = p[:r.left]
	}
	n, err := r.ReadCloser.Read(p)
	r.left -= int64(n)
	r.given += int64(n)
	return n, err
}

// TestOrchestrationHelperProcess is not a test: it is the worker process
// that TestOrchestrationWorkerKilledMidFile starts and kills. It runs a
// queue with the real orchestration processor over a simulated web of its
// own, whose store stalls in the middle of one file.
func TestOrchestrationHelperProcess(t *testing.T) {
	dbURL := os.Getenv(killedWorkerDBEnv)
	if dbURL == "" {
		return
	}
	fail := func(err error) {
		fmt.Fprintln(os.Stderr, "helper:", err)
		os.Exit(2)
	}
	ctx := context.Background()
	db, err := sqlstore.Open(ctx, dbURL)
	if err != nil {
		fail(err)
	}
	blobs, err := blobstore.Open(ctx, os.Getenv(killedWorkerBlobsEnv))
	if err != nil {
		fail(err)
	}
	_, client := simwebtest.Client(t, killedSites, 5*time.Second)
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	bs := sqlstore.NewBatchService(db)
	store := &stallingStore{Store: blobs, stallKey: os.Getenv(killedWorkerStallEnv), marker: os.Getenv(killedWorkerMarkerEnv)}
	collector := orchestrate.NewCollector(client, blobs, orchestrate.CollectorConfig{}, log)
	q, err := jobs.New(db.Writer(), string(db.Engine()), bs, jobs.Config{
		PollInterval:  20 * time.Millisecond,
		FetchCooldown: 5 * time.Millisecond,
		Logger:        log,
	}, orchestrationKind(orchestrate.ChunkProcessor(store, discover.DefaultClassifier(), collector, log)))
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

// openSharedStore opens a migrated store whose URL another process can
// open too.
func openSharedStore(t *testing.T, engine string) (string, *sqlstore.DB) {
	t.Helper()
	var dbURL string
	if engine == jobs.EngineSQLite {
		dbURL = sqlstoretest.NewSQLiteURL(t)
	} else {
		dbURL = sqlstoretest.NewPostgresURL(t)
	}
	return dbURL, sqlstoretest.Open(t, dbURL)
}

// lockedBuffer collects a child's output while the test may read it.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// batchChunks returns every chunk of a batch, in index order.
func batchChunks(t *testing.T, bs *sqlstore.BatchService, b *seedengine.Batch) []*seedengine.BatchChunk {
	t.Helper()
	chunks := make([]*seedengine.BatchChunk, b.Chunks.Total)
	for i := range chunks {
		c, err := bs.FindBatchChunk(t.Context(), b.ID, i)
		require.NoError(t, err)
		chunks[i] = c
	}
	return chunks
}

// jobCounts returns River's job counts of one kind by state.
func jobCounts(t *testing.T, q *jobs.Queue, kind string) map[string]int {
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

// TestOrchestrationWorkerKilledMidFile starts a worker process on an
// orchestration batch of two files, lets it finish one of them (spawning
// and collecting its domains) and SIGKILLs it in the middle of reading the
// other. A new queue must rescue the file, finish it and collect each
// domain of the partition exactly once: the domain the two files share is
// not spawned again, and no domain of the killed file is lost.
//
// River rescues the job left running only from its leader, once the dead
// worker's lease (15 s) has run out, so the test takes 15-25 s.
func TestOrchestrationWorkerKilledMidFile(t *testing.T) {
	if testing.Short() {
		t.Skip("takes about 20 s")
	}
	t.Parallel()
	for _, engine := range []string{jobs.EngineSQLite, jobs.EnginePostgres} {
		t.Run(engine, func(t *testing.T) {
			t.Parallel()
			testWorkerKilledMidFile(t, engine)
		})
	}
}

func testWorkerKilledMidFile(t *testing.T, engine string) {
	dbURL, db := openSharedStore(t, engine)
	blobURL := "file://" + filepath.ToSlash(t.TempDir())
	blobs, err := blobstore.Open(t.Context(), blobURL)
	require.NoError(t, err)
	t.Cleanup(func() { _ = blobs.Close() })
	p := testPartition

	// Two files, queued as the orchestrate handler queues them.
	var keys []string
	var chunks []*seedengine.BatchChunk
	for i, hosts := range [][]string{killedFileHosts, doneFileHosts} {
		key, err := layout.RawChunkKey(p, i+1)
		require.NoError(t, err)
		_, err = blobs.Put(t.Context(), key, bytes.NewReader(repeatedRawFile(20, hosts...)), "application/json")
		require.NoError(t, err)
		input, err := json.Marshal(orchestrate.FileInput{Key: key, Chunk: i + 1})
		require.NoError(t, err)
		keys = append(keys, key)
		chunks = append(chunks, &seedengine.BatchChunk{Step: seedengine.StepFile, Key: key, Input: input, Items: 1})
	}
	params, err := json.Marshal(seedengine.OrchestrationBatchParams{Date: p.Date})
	require.NoError(t, err)

	// The parent's queue enqueues now and starts only after the kill.
	bs := sqlstore.NewBatchService(db)
	_, client := simwebtest.Client(t, killedSites, 2*time.Second)
	collector := orchestrate.NewCollector(client, blobs, orchestrate.CollectorConfig{Deadline: 2 * time.Second}, nil)
	q, err := jobs.New(db.Writer(), string(db.Engine()), bs, jobs.Config{
		Workers:       10,
		PollInterval:  20 * time.Millisecond,
		FetchCooldown: 5 * time.Millisecond,
		// Short, so that the dead worker's job is rescued as soon as this
		// queue leads; long enough for a domain of the simulated web.
		JobTimeout:           3 * time.Second,
		RescueStuckJobsAfter: 3 * time.Second,
		Logger:               slog.New(slog.DiscardHandler),
		ReadDB:               db.Reader(),
	}, orchestrationKind(orchestrate.ChunkProcessor(blobs, discover.DefaultClassifier(), collector, nil)))
	require.NoError(t, err)

	b := &seedengine.Batch{Kind: seedengine.BatchOrchestration, Country: p.Country, Category: p.Category, ChunkSize: 1, Params: params}
	require.NoError(t, q.CreateBatch(t.Context(), b, chunks))

	marker := filepath.Join(t.TempDir(), "stalled")
	var out lockedBuffer
	cmd := exec.Command(os.Args[0], "-test.run=^TestOrchestrationHelperProcess$")
	cmd.Env = append(os.Environ(),
		killedWorkerDBEnv+"="+dbURL, killedWorkerBlobsEnv+"="+blobURL,
		killedWorkerStallEnv+"="+keys[0], killedWorkerMarkerEnv+"="+marker)
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

	// Wait for the worker to stall in the first file and to finish the
	// second with its two domains.
	checkpoint2, err := layout.RawCheckpointKey(p, 2)
	require.NoError(t, err)
	began := time.Now()
	var stalledAt time.Time
	deadline := time.Now().Add(45 * time.Second)
	for {
		select {
		case err := <-exited:
			exited <- err
			t.Fatalf("helper exited early: %v\n%s", err, out.String())
		default:
		}
		if stalledAt.IsZero() {
			if _, err := os.Stat(marker); err == nil {
				stalledAt = time.Now()
			}
		}
		got, err := bs.FindBatchByID(t.Context(), b.ID)
		require.NoError(t, err)
		done2, err := blobs.Exists(t.Context(), checkpoint2)
		require.NoError(t, err)
		if !stalledAt.IsZero() && done2 && got.Chunks == (seedengine.ChunkCounts{Total: 4, Done: 3}) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("helper did not stall in file 1 and finish file 2 in 45 s (stalled: %v, chunks %+v):\n%s", !stalledAt.IsZero(), got.Chunks, out.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	require.NoError(t, cmd.Process.Kill())
	err = <-exited
	exited <- err
	var exitErr *exec.ExitError
	require.ErrorAs(t, err, &exitErr, "helper should have died of SIGKILL")
	killed := time.Now()
	stall, err := os.ReadFile(marker)
	require.NoError(t, err)

	// The dead worker left file 1 started, half read, with nothing spawned
	// and no checkpoint.
	c, err := bs.FindBatchChunk(t.Context(), b.ID, 0)
	require.NoError(t, err)
	require.Equal(t, seedengine.ChunkRunning, c.Status)
	require.Equal(t, 1, c.Attempts)
	require.Equal(t, map[string]int{"running": 1, "completed": 1}, jobCounts(t, q, "orchestration_file"))
	require.Equal(t, map[string]int{"completed": 2}, jobCounts(t, q, "orchestration_domain"))
	checkpoint1, err := layout.RawCheckpointKey(p, 1)
	require.NoError(t, err)
	exists, err := blobs.Exists(t.Context(), checkpoint1)
	require.NoError(t, err)
	require.False(t, exists)

	// Start once the stalled job is older than RescueStuckJobsAfter, so
	// the rescuer's first run, when this queue is elected, takes it.
	time.Sleep(time.Until(stalledAt.Add(3 * time.Second)))
	require.NoError(t, q.Start(t.Context()))
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		require.NoError(t, q.Stop(ctx))
	})
	got := waitFinished(t, bs, b.ID, 90*time.Second)
	t.Logf("%s: helper stalled after %s (%s); rescued and completed %s after the kill",
		engine, stalledAt.Sub(began).Round(time.Millisecond), stall, time.Since(killed).Round(time.Millisecond))

	require.Equal(t, seedengine.BatchCompleted, got.Status, "%+v %s", got.Chunks, got.Result)
	wantDomains := []string{"alpha-site.gov.sg", "beta-site.gov.sg", "delta-site.gov.sg", "epsilon-site.gov.sg", "gamma-site.gov.sg"}
	require.Equal(t, seedengine.ChunkCounts{Total: 2 + len(wantDomains), Done: 2 + len(wantDomains)}, got.Chunks)
	require.Equal(t, seedengine.ItemCounts{Total: 7, Succeeded: 7}, got.Items, "items counted exactly once")
	var res struct {
		Files         orchestrate.FileCounts   `json:"files"`
		ChunksSpawned int                      `json:"chunks_spawned"`
		Domains       orchestrate.DomainCounts `json:"domains"`
	}
	require.NoError(t, json.Unmarshal(got.Result, &res))
	require.Equal(t, orchestrate.FileCounts{Processed: 2}, res.Files)
	require.Equal(t, len(wantDomains), res.ChunksSpawned)
	require.Equal(t, orchestrate.DomainCounts{Collected: len(wantDomains)}, res.Domains, "each domain collected once")

	all := batchChunks(t, bs, got)
	file1 := all[0]
	require.Equal(t, seedengine.ChunkDone, file1.Status)
	require.Equal(t, 2, file1.Attempts, "one attempt in the killed worker, one here")
	var file1Res struct {
		DomainsExtracted int `json:"domains_extracted"`
		ChunksSpawned    int `json:"chunks_spawned"`
	}
	require.NoError(t, json.Unmarshal(file1.Result, &file1Res))
	require.Equal(t, len(killedFileHosts), file1Res.DomainsExtracted)
	require.Equal(t, 3, file1Res.ChunksSpawned, "delta-site was spawned by file 2 already")

	spawnedBy := map[string][]string{}
	for _, c := range all[2:] {
		require.Equal(t, seedengine.StepDomain, c.Step, "chunk %d", c.Index)
		require.Equal(t, seedengine.ChunkDone, c.Status, "chunk %d %s", c.Index, c.Key)
		require.Equal(t, 1, c.Attempts, "chunk %d %s", c.Index, c.Key)
		var in orchestrate.DomainInput
		require.NoError(t, json.Unmarshal(c.Input, &in))
		require.Equal(t, c.Key, in.Domain)
		spawnedBy[c.Key] = append(spawnedBy[c.Key], in.RawFileKey)
	}
	require.Equal(t, wantDomains, slices.Sorted(maps.Keys(spawnedBy)), "every domain of both files, none missing")
	for d, from := range spawnedBy {
		require.Len(t, from, 1, "%s has one domain chunk", d)
	}
	require.Equal(t, []string{keys[1]}, spawnedBy["delta-site.gov.sg"], "spawned by file 2, in the dead worker")
	require.Equal(t, []string{keys[0]}, spawnedBy["alpha-site.gov.sg"], "spawned by file 1, here")

	for _, d := range wantDomains {
		key, err := layout.ProdDomainFileKey(p, d, layout.FileDomainMetadataSuccess)
		require.NoError(t, err)
		ok, err := blobs.Exists(t.Context(), key)
		require.NoError(t, err)
		require.True(t, ok, "%s collected", d)
	}
	// The raw checkpoint is written just after the transaction that
	// records the file, so it may trail the batch by a moment.
	require.Eventually(t, func() bool {
		ok, err := blobs.Exists(t.Context(), checkpoint1)
		return err == nil && ok
	}, 10*time.Second, 10*time.Millisecond, "checkpoint of file 1")
	require.Equal(t, map[string]int{"completed": 2}, jobCounts(t, q, "orchestration_file"))
	require.Equal(t, map[string]int{"completed": len(wantDomains)}, jobCounts(t, q, "orchestration_domain"))
}

// waitFinished polls until the batch has a final status.
func waitFinished(t *testing.T, bs *sqlstore.BatchService, id string, timeout time.Duration) *seedengine.Batch {
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

// orchestrationKind declares the orchestration batch kind as internal/app
// does, processed by p.
func orchestrationKind(p jobs.ChunkProcessor) jobs.Kind {
	return jobs.Batch[orchestrate.FileJob](seedengine.BatchOrchestration, p,
		jobs.Step[orchestrate.DomainJob](seedengine.StepDomain, jobs.QueueDomains))
}
