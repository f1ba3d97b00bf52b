package sqlstore_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/sqlstore"
	"github.com/seedengine/seedengine/internal/sqlstore/sqlstoretest"
)

// fakeMetadataEnqueuer records the tasks RequestMetadataTask asked it to
// enqueue and whether each task's row was visible in the transaction.
type fakeMetadataEnqueuer struct {
	err error // returned after recording, to test the rollback

	mu    sync.Mutex
	calls []metadataEnqueueCall
}

type metadataEnqueueCall struct {
	task  seedengine.MetadataTask
	delay time.Duration
	rowTx bool // the task's row was visible inside the transaction
}

func (e *fakeMetadataEnqueuer) EnqueueMetadataSyncTx(ctx context.Context, tx *sql.Tx, t *seedengine.MetadataTask, delay time.Duration) error {
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM metadata_tasks WHERE id = $1 AND status = 'queued'`, t.ID).Scan(&n); err != nil {
		return err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.calls = append(e.calls, metadataEnqueueCall{task: *t, delay: delay, rowTx: n == 1})
	return e.err
}

func (e *fakeMetadataEnqueuer) Calls() []metadataEnqueueCall {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]metadataEnqueueCall(nil), e.calls...)
}

// jobsMetadata requests tasks as internal/jobs does: the task's row and,
// for a new task, Enqueuer's job in one transaction of the store.
type jobsMetadata struct {
	*sqlstore.MetadataService
	Enqueuer *fakeMetadataEnqueuer
}

func (s *jobsMetadata) RequestMetadataTask(ctx context.Context, trigger seedengine.MetadataTrigger, delay time.Duration) (*seedengine.MetadataTask, bool, error) {
	if s.Enqueuer == nil {
		return nil, false, errors.New("jobsMetadata: no Enqueuer")
	}
	var (
		t       *seedengine.MetadataTask
		created bool
	)
	err := s.InTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		var err error
		if t, created, err = s.RequestMetadataTaskTx(ctx, tx, trigger); err != nil || !created {
			return err
		}
		return s.Enqueuer.EnqueueMetadataSyncTx(ctx, tx, t, max(delay, 0))
	})
	return t, created, err
}

func newMetadataService(db *sqlstore.DB) (*jobsMetadata, *fakeMetadataEnqueuer) {
	enq := &fakeMetadataEnqueuer{}
	return &jobsMetadata{MetadataService: sqlstore.NewMetadataService(db), Enqueuer: enq}, enq
}

var pSGEvents = seedengine.Partition{Country: "sg", Category: "events", Date: "2026-01-30"}

// buildMetadataState writes a small store through the real services:
//
//	partitions  sg/news/01-28: chunks 1 (10 records) and 2 (unknown), a placeholder; 3 domains
//	            sg/news/01-29: 1 chunk (4 records), no domains
//	            sg/policy/01-28: 1 chunk (2 records), 1 domain
//	            sg/events/01-30: no chunk, 1 domain (so no partition either:
//	                             the research list does not show it)
//	            jp/news/01-28: 1 chunk (1 record), 1 domain
//	            fr/news/01-28: only a placeholder, so no partition
//	domains     gov:sg:a.gov.sg, edu:sg:b.edu.sg, com:sg:c.com.sg, gov:sg:d.gov.sg, com:jp:e.co.jp
//	liveness    a alive, b dead, e alive, unregistered.example parked, c probed without verdict
//	seeds       sg: a active (rss), b draft (atom); jp: e archived (rss)
func buildMetadataState(t *testing.T, db *sqlstore.DB) {
	t.Helper()
	ctx := t.Context()
	x := sqlstore.NewDatasetIndex(db)
	indexChunks(t, x,
		chunkInfo(pSGNews1, 1, 10, 100, ""),
		chunkInfo(pSGNews1, 2, -1, 50, ""),
		chunkInfo(pSGNews2, 1, 4, 40, ""),
		chunkInfo(pSGPol, 1, 2, 20, ""),
		chunkInfo(pJPNews, 1, 1, 1, ""),
	)
	_, err := x.ReserveChunk(ctx, pSGNews1, "", 0)
	require.NoError(t, err)
	_, err = x.ReserveChunk(ctx, seedengine.Partition{Country: "fr", Category: "news", Date: "2026-01-28"}, "", 0)
	require.NoError(t, err)

	domains := sqlstore.NewDomainService(db)
	require.NoError(t, domains.RegisterDomains(ctx, pSGNews1, at(10, 0), []seedengine.DomainSighting{
		sighting(seedengine.AuthorityGov, "sg", "a.gov.sg", "suffix:gov.sg"),
		sighting(seedengine.AuthorityEdu, "sg", "b.edu.sg", "suffix:edu.sg"),
		sighting(seedengine.AuthorityCom, "sg", "c.com.sg", "suffix:com.sg"),
	}))
	require.NoError(t, domains.RegisterDomains(ctx, pSGPol, at(10, 0), []seedengine.DomainSighting{
		sighting(seedengine.AuthorityGov, "sg", "a.gov.sg", "suffix:gov.sg"),
	}))
	require.NoError(t, domains.RegisterDomains(ctx, pSGEvents, at(10, 0), []seedengine.DomainSighting{
		sighting(seedengine.AuthorityGov, "sg", "d.gov.sg", "suffix:gov.sg"),
	}))
	require.NoError(t, domains.RegisterDomains(ctx, pJPNews, at(10, 0), []seedengine.DomainSighting{
		sighting(seedengine.AuthorityCom, "jp", "e.co.jp", "suffix:co.jp"),
	}))

	liveness := sqlstore.NewLivenessService(db)
	require.NoError(t, liveness.RecordLivenessResults(ctx, "batch-1", []seedengine.LivenessResult{
		livenessResult("a.gov.sg", seedengine.VerdictAlive, "ok", 11),
		livenessResult("b.edu.sg", seedengine.VerdictDead, "nxdomain", 11),
		livenessResult("c.com.sg", "", "dns_timeout", 11),
		livenessResult("e.co.jp", seedengine.VerdictAlive, "ok", 11),
		livenessResult("unregistered.example", seedengine.VerdictParked, "parking_page", 11),
	}))

	seeds := sqlstore.NewSeedService(db)
	a := createSeed(t, seeds, "gov:sg:a.gov.sg", "test")
	_, err = seeds.TransitionSeed(ctx, a.SeedID, seedengine.SeedPromote, "test", "")
	require.NoError(t, err)
	b := newSeed("edu:sg:b.edu.sg")
	b.Fetch.Type = seedengine.FetchAtom
	require.NoError(t, seeds.CreateSeed(ctx, b, "test"))
	e := createSeed(t, seeds, "com:jp:e.co.jp", "test")
	_, err = seeds.TransitionSeed(ctx, e.SeedID, seedengine.SeedArchive, "test", "")
	require.NoError(t, err)
}

func snapshot(t *testing.T, s seedengine.MetadataService) *seedengine.MetadataSnapshot {
	t.Helper()
	snap, err := s.Snapshot(t.Context())
	require.NoError(t, err)
	return snap
}

func TestMetadataSnapshot(t *testing.T) {
	t.Parallel()
	sqlstoretest.Engines(t, func(t *testing.T, db *sqlstore.DB) {
		buildMetadataState(t, db)
		s, _ := newMetadataService(db)

		before := time.Now().UTC().Truncate(time.Second)
		snap := snapshot(t, s)
		require.False(t, snap.GeneratedAt.Before(before))
		require.WithinDuration(t, time.Now(), snap.GeneratedAt, 5*time.Second)
		require.Zero(t, snap.GeneratedAt.Nanosecond(), "generated_at is whole seconds")
		require.Equal(t, time.UTC, snap.GeneratedAt.Location())

		snap.GeneratedAt = time.Time{}
		require.Equal(t, &seedengine.MetadataSnapshot{
			Totals: seedengine.MetadataTotals{
				Partitions: 4, Chunks: 5, Records: 17, Domains: 5,
				DomainsByAuthority: map[string]int{"gov": 2, "edu": 1, "com": 2},
				// Every registrable domain's latest verdict, registered or
				// not; c.com.sg has none.
				LivenessByVerdict: map[string]int{"alive": 2, "dead": 1, "parked": 1},
				SeedsByStatus:     map[string]int{"draft": 1, "active": 1, "archived": 1},
				SeedsByHealth:     map[string]int{"unknown": 1}, // the active seed, never checked
			},
			Countries: map[string]map[string]map[string]seedengine.PartitionCounts{
				"sg": {
					"news": {
						"2026-01-28": {Chunks: 2, Records: 10, Domains: 3},
						"2026-01-29": {Chunks: 1, Records: 4},
					},
					"policy": {"2026-01-28": {Chunks: 1, Records: 2, Domains: 1}},
				},
				"jp": {"news": {"2026-01-28": {Chunks: 1, Records: 1, Domains: 1}}},
			},
		}, snap)
	})
}

func TestMetadataSnapshotDeterministic(t *testing.T) {
	t.Parallel()
	sqlstoretest.Engines(t, func(t *testing.T, db *sqlstore.DB) {
		buildMetadataState(t, db)
		s, _ := newMetadataService(db)
		marshal := func() []byte {
			snap := snapshot(t, s)
			snap.GeneratedAt = time.Time{}
			b, err := json.Marshal(snap)
			require.NoError(t, err)
			return b
		}
		first := marshal()
		require.Equal(t, string(first), string(marshal()))
		require.Contains(t, string(first), `"countries":{"jp":{"news":{"2026-01-28":{"chunks":1,"records":1,"domains":1}}},"sg":{"news":`,
			"countries marshal in sorted key order")
	})
}

func TestMetadataSnapshotEmpty(t *testing.T) {
	t.Parallel()
	sqlstoretest.Engines(t, func(t *testing.T, db *sqlstore.DB) {
		s, _ := newMetadataService(db)
		snap := snapshot(t, s)
		snap.GeneratedAt = time.Time{}
		b, err := json.Marshal(snap)
		require.NoError(t, err)
		require.JSONEq(t, `{
			"generated_at": "0001-01-01T00:00:00Z",
			"engine": {"name": "", "version": ""},
			"totals": {"partitions": 0, "chunks": 0, "records": 0, "domains": 0,
				"domains_by_authority": {}, "liveness_by_verdict": {}, "seeds_by_status": {}, "seeds_by_health": {},
				"item_partitions": 0, "items": 0, "item_files": 0, "warc_files": 0, "warc_records": 0,
				"articles": 0, "article_files": 0},
			"countries": {},
			"last_sync": null
		}`, string(b))
	})
}

func TestCountryMetadata(t *testing.T) {
	t.Parallel()
	sqlstoretest.Engines(t, func(t *testing.T, db *sqlstore.DB) {
		ctx := t.Context()
		buildMetadataState(t, db)
		s, _ := newMetadataService(db)

		m, err := s.CountryMetadata(ctx, " SG ")
		require.NoError(t, err)
		require.WithinDuration(t, time.Now(), m.GeneratedAt, 5*time.Second)
		require.Zero(t, m.GeneratedAt.Nanosecond())
		m.GeneratedAt = time.Time{}
		require.Equal(t, &seedengine.CountryMetadata{
			Country: "sg",
			Totals: seedengine.MetadataTotals{
				Partitions: 3, Chunks: 4, Records: 16, Domains: 4,
				DomainsByAuthority: map[string]int{"gov": 2, "edu": 1, "com": 1},
				LivenessByVerdict:  map[string]int{"alive": 1, "dead": 1},
				SeedsByStatus:      map[string]int{"draft": 1, "active": 1},
				SeedsByHealth:      map[string]int{"unknown": 1},
			},
			Categories: map[string]map[string]seedengine.PartitionCounts{
				"news": {
					"2026-01-28": {Chunks: 2, Records: 10, Domains: 3},
					"2026-01-29": {Chunks: 1, Records: 4},
				},
				"policy": {"2026-01-28": {Chunks: 1, Records: 2, Domains: 1}},
			},
			SeedsByFetchType: map[string]int{"rss": 1, "atom": 1},
		}, m)

		// jp's seed left draft for archived: the emptied draft count is
		// not shown.
		m, err = s.CountryMetadata(ctx, "jp")
		require.NoError(t, err)
		require.Equal(t, map[string]int{"archived": 1}, m.Totals.SeedsByStatus)
		require.Equal(t, map[string]int{"rss": 1}, m.SeedsByFetchType)
		require.Equal(t, map[string]int{"alive": 1}, m.Totals.LivenessByVerdict)

		// A placeholder is no partition.
		_, err = s.CountryMetadata(ctx, "fr")
		requireCode(t, err, seedengine.ENOTFOUND)
		_, err = s.CountryMetadata(ctx, "de")
		requireCode(t, err, seedengine.ENOTFOUND)
		_, err = s.CountryMetadata(ctx, "xx1")
		requireCode(t, err, seedengine.EINVALID)
		require.Equal(t, "country", seedengine.ErrorField(err))

		// A seed alone makes a country known; its maps are empty, not nil.
		createSeed(t, sqlstore.NewSeedService(db), "gov:de:bund.de", "test")
		m, err = s.CountryMetadata(ctx, "de")
		require.NoError(t, err)
		require.Equal(t, map[string]int{"draft": 1}, m.Totals.SeedsByStatus)
		require.Zero(t, m.Totals.Partitions)
		b, err := json.Marshal(m)
		require.NoError(t, err)
		require.Contains(t, string(b), `"categories":{}`)
		require.Contains(t, string(b), `"domains_by_authority":{},"liveness_by_verdict":{}`)

		// A domain alone does too.
		require.NoError(t, sqlstore.NewDomainService(db).RegisterDomains(ctx,
			seedengine.Partition{Country: "fr", Category: "news", Date: "2026-01-28"}, at(10, 0),
			[]seedengine.DomainSighting{sighting(seedengine.AuthorityGov, "fr", "x.gouv.fr", "")}))
		m, err = s.CountryMetadata(ctx, "fr")
		require.NoError(t, err)
		require.Equal(t, 1, m.Totals.Domains)
		require.Empty(t, m.Categories, "a domain link without a chunk is no partition")
		require.Zero(t, m.Totals.Partitions)
	})
}

func TestMetadataTaskLifecycle(t *testing.T) {
	t.Parallel()
	sqlstoretest.Engines(t, func(t *testing.T, db *sqlstore.DB) {
		ctx := t.Context()
		s, enq := newMetadataService(db)

		a, created, err := s.RequestMetadataTask(ctx, seedengine.TriggerAPI, 5*time.Second)
		require.NoError(t, err)
		require.True(t, created)
		require.Len(t, a.ID, 36, "a UUID")
		require.Equal(t, seedengine.TriggerAPI, a.Trigger)
		require.Equal(t, seedengine.TaskQueued, a.Status)
		require.Equal(t, 1, a.Requests)
		require.WithinDuration(t, time.Now(), a.CreatedAt, 5*time.Second)
		require.Nil(t, a.StartedAt)
		require.Nil(t, a.DurationMS)
		require.Equal(t, []metadataEnqueueCall{{task: *a, delay: 5 * time.Second, rowTx: true}}, enq.Calls())

		// A second request joins the queued task; its trigger and job stay.
		joined, created, err := s.RequestMetadataTask(ctx, seedengine.TriggerSchedule, 0)
		require.NoError(t, err)
		require.False(t, created)
		require.Equal(t, a.ID, joined.ID)
		require.Equal(t, seedengine.TriggerAPI, joined.Trigger)
		require.Equal(t, 2, joined.Requests)
		require.Len(t, enq.Calls(), 1)

		got, err := s.FindMetadataTaskByID(ctx, a.ID)
		require.NoError(t, err)
		require.Equal(t, joined, got)

		started, err := s.StartMetadataTask(ctx, a.ID)
		require.NoError(t, err)
		require.Equal(t, seedengine.TaskRunning, started.Status)
		require.NotNil(t, started.StartedAt)
		got, err = s.FindMetadataTaskByID(ctx, a.ID)
		require.NoError(t, err)
		require.Equal(t, started, got)

		_, err = s.StartMetadataTask(ctx, a.ID)
		requireCode(t, err, seedengine.ECONFLICT)
		require.Contains(t, seedengine.ErrorMessage(err), "is running, not queued")

		// With a running, a request queues a new task, which cannot start.
		b, created, err := s.RequestMetadataTask(ctx, seedengine.TriggerQueue, 0)
		require.NoError(t, err)
		require.True(t, created)
		require.NotEqual(t, a.ID, b.ID)
		require.Equal(t, 1, b.Requests)
		require.Len(t, enq.Calls(), 2)
		_, err = s.StartMetadataTask(ctx, b.ID)
		requireCode(t, err, seedengine.ECONFLICT)
		require.Contains(t, seedengine.ErrorMessage(err), a.ID)

		for _, st := range []seedengine.MetadataTaskStatus{seedengine.TaskQueued, seedengine.TaskRunning, "done", ""} {
			_, err = s.FinishMetadataTask(ctx, a.ID, st, "", "", "")
			requireCode(t, err, seedengine.EINVALID)
			require.Equal(t, "status", seedengine.ErrorField(err))
		}
		_, err = s.FinishMetadataTask(ctx, a.ID, seedengine.TaskSucceeded, strings.Repeat("a", 101), "", "")
		requireCode(t, err, seedengine.EINVALID)
		_, err = s.FinishMetadataTask(ctx, b.ID, seedengine.TaskSucceeded, "", "", "")
		requireCode(t, err, seedengine.ECONFLICT)
		require.Contains(t, seedengine.ErrorMessage(err), "is queued, not running")

		const commit = "0123456789abcdef0123456789abcdef01234567"
		finished, err := s.FinishMetadataTask(ctx, a.ID, seedengine.TaskSucceeded, commit, "https://github.com/example/metadata.git", "")
		require.NoError(t, err)
		require.Equal(t, seedengine.TaskSucceeded, finished.Status)
		require.Equal(t, commit, finished.Commit)
		require.Equal(t, "https://github.com/example/metadata.git", finished.Remote)
		require.NotNil(t, finished.FinishedAt)
		require.NotNil(t, finished.DurationMS)
		require.GreaterOrEqual(t, *finished.DurationMS, int64(0))
		require.Equal(t, finished.FinishedAt.Sub(*finished.StartedAt).Milliseconds(), *finished.DurationMS)
		got, err = s.FindMetadataTaskByID(ctx, a.ID)
		require.NoError(t, err)
		require.Equal(t, finished, got)

		_, err = s.FinishMetadataTask(ctx, a.ID, seedengine.TaskFailed, "", "", "again")
		requireCode(t, err, seedengine.ECONFLICT)
		require.Contains(t, seedengine.ErrorMessage(err), "is succeeded, not running")
		_, err = s.StartMetadataTask(ctx, a.ID)
		requireCode(t, err, seedengine.ECONFLICT)
		require.Contains(t, seedengine.ErrorMessage(err), "is succeeded, not queued")

		// Now b may run. A long error is cut to 2,000 bytes of valid UTF-8.
		_, err = s.StartMetadataTask(ctx, b.ID)
		require.NoError(t, err)
		long := strings.Repeat("é", 3000)
		failed, err := s.FinishMetadataTask(ctx, b.ID, seedengine.TaskFailed, "", "", long)
		require.NoError(t, err)
		require.LessOrEqual(t, len(failed.Error), 2000)
		require.Greater(t, len(failed.Error), 1990)
		require.True(t, utf8.ValidString(failed.Error))
		got, err = s.FindMetadataTaskByID(ctx, b.ID)
		require.NoError(t, err)
		require.Equal(t, failed.Error, got.Error)

		for _, err := range []error{
			func() error { _, err := s.FindMetadataTaskByID(ctx, "nope"); return err }(),
			func() error { _, err := s.StartMetadataTask(ctx, "nope"); return err }(),
			func() error {
				_, err := s.FinishMetadataTask(ctx, "nope", seedengine.TaskFailed, "", "", "")
				return err
			}(),
		} {
			requireCode(t, err, seedengine.ENOTFOUND)
		}

		// Lists, newest first.
		tasks, total, err := s.FindMetadataTasks(ctx, seedengine.MetadataTaskFilter{})
		require.NoError(t, err)
		require.Equal(t, 2, total)
		require.Equal(t, []*seedengine.MetadataTask{failed, finished}, tasks)
		tasks, total, err = s.FindMetadataTasks(ctx, seedengine.MetadataTaskFilter{Status: seedengine.TaskSucceeded})
		require.NoError(t, err)
		require.Equal(t, 1, total)
		require.Equal(t, []*seedengine.MetadataTask{finished}, tasks)
		tasks, total, err = s.FindMetadataTasks(ctx, seedengine.MetadataTaskFilter{Limit: 1})
		require.NoError(t, err)
		require.Equal(t, 2, total)
		require.Equal(t, []*seedengine.MetadataTask{failed}, tasks)
		tasks, total, err = s.FindMetadataTasks(ctx, seedengine.MetadataTaskFilter{Offset: 10})
		require.NoError(t, err)
		require.Equal(t, 2, total)
		require.Empty(t, tasks)
		require.NotNil(t, tasks)
		tasks, total, err = s.FindMetadataTasks(ctx, seedengine.MetadataTaskFilter{Status: seedengine.TaskQueued})
		require.NoError(t, err)
		require.Zero(t, total)
		require.Empty(t, tasks)
		_, _, err = s.FindMetadataTasks(ctx, seedengine.MetadataTaskFilter{Status: "done"})
		requireCode(t, err, seedengine.EINVALID)
	})
}

func TestRequestMetadataTaskInvalid(t *testing.T) {
	t.Parallel()
	sqlstoretest.Engines(t, func(t *testing.T, db *sqlstore.DB) {
		ctx := t.Context()
		s, enq := newMetadataService(db)
		_, _, err := s.RequestMetadataTask(ctx, "cron", 0)
		requireCode(t, err, seedengine.EINVALID)
		require.Equal(t, "trigger", seedengine.ErrorField(err))

		// An Enqueuer that fails leaves nothing behind.
		enq.err = errors.New("queue down")
		_, _, err = s.RequestMetadataTask(ctx, seedengine.TriggerAPI, 0)
		require.ErrorIs(t, err, enq.err)
		_, total, err := s.FindMetadataTasks(ctx, seedengine.MetadataTaskFilter{})
		require.NoError(t, err)
		require.Zero(t, total)

		enq.err = nil
		task, created, err := s.RequestMetadataTask(ctx, seedengine.TriggerAPI, -time.Second)
		require.NoError(t, err)
		require.True(t, created)
		require.Equal(t, 1, task.Requests)
		calls := enq.Calls()
		require.Len(t, calls, 2)
		require.Zero(t, calls[1].delay, "a negative delay is none")
	})
}

func TestRequestMetadataTaskConcurrent(t *testing.T) {
	t.Parallel()
	sqlstoretest.Engines(t, func(t *testing.T, db *sqlstore.DB) {
		s, enq := newMetadataService(db)
		const n = 16
		var (
			wg      sync.WaitGroup
			mu      sync.Mutex
			ids     = map[string]int{}
			created int
			errs    []error
		)
		for range n {
			wg.Go(func() {
				task, c, err := s.RequestMetadataTask(t.Context(), seedengine.TriggerBatchCompleted, time.Second)
				mu.Lock()
				defer mu.Unlock()
				if err != nil {
					errs = append(errs, err)
					return
				}
				ids[task.ID]++
				if c {
					created++
				}
			})
		}
		wg.Wait()
		require.Empty(t, errs)
		require.Len(t, ids, 1, "one task")
		require.Equal(t, 1, created)
		require.Len(t, enq.Calls(), 1, "one job")
		tasks, total, err := s.FindMetadataTasks(t.Context(), seedengine.MetadataTaskFilter{})
		require.NoError(t, err)
		require.Equal(t, 1, total)
		require.Equal(t, n, tasks[0].Requests)
	})
}

func TestMetadataLastSync(t *testing.T) {
	t.Parallel()
	sqlstoretest.Engines(t, func(t *testing.T, db *sqlstore.DB) {
		ctx := t.Context()
		s, _ := newMetadataService(db)
		require.Nil(t, snapshot(t, s).LastSync)

		run := func(status seedengine.MetadataTaskStatus, commit string) *seedengine.MetadataTask {
			t.Helper()
			task, _, err := s.RequestMetadataTask(ctx, seedengine.TriggerSchedule, 0)
			require.NoError(t, err)
			_, err = s.StartMetadataTask(ctx, task.ID)
			require.NoError(t, err)
			task, err = s.FinishMetadataTask(ctx, task.ID, status, commit, "https://git.example/metadata.git", "")
			require.NoError(t, err)
			return task
		}
		requireLastSync := func(task *seedengine.MetadataTask) {
			t.Helper()
			require.Equal(t, &seedengine.MetadataSync{At: *task.FinishedAt, Commit: task.Commit, Remote: task.Remote},
				snapshot(t, s).LastSync)
		}

		// A run that did not reach the remote is no sync.
		run(seedengine.TaskFailed, "")
		require.Nil(t, snapshot(t, s).LastSync)
		first := run(seedengine.TaskSucceeded, "c1")
		requireLastSync(first)
		run(seedengine.TaskFailed, "")
		requireLastSync(first)
		// Finding the remote up to date counts; a task without a commit
		// does not.
		unchanged := run(seedengine.TaskSkippedUnchanged, "c1")
		requireLastSync(unchanged)
		run(seedengine.TaskSucceeded, "")
		requireLastSync(unchanged)
	})
}

func TestStartMetadataTaskConcurrent(t *testing.T) {
	t.Parallel()
	sqlstoretest.Engines(t, func(t *testing.T, db *sqlstore.DB) {
		s, _ := newMetadataService(db)
		task, _, err := s.RequestMetadataTask(t.Context(), seedengine.TriggerAPI, 0)
		require.NoError(t, err)
		const n = 8
		errs := make([]error, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() { _, errs[i] = s.StartMetadataTask(t.Context(), task.ID) })
		}
		wg.Wait()
		started := 0
		for _, err := range errs {
			if err == nil {
				started++
				continue
			}
			requireCode(t, err, seedengine.ECONFLICT)
		}
		require.Equal(t, 1, started, "one start wins")
	})
}
