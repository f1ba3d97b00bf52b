package app_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/metasync"
	"github.com/seedengine/seedengine/internal/sqlstore"
	"github.com/seedengine/seedengine/internal/sqlstore/sqlstoretest"
)

func withMetadata(m metadataOpts) stackOption {
	return func(c *stackConfig) { c.metadata = &m }
}

// bareRepo makes an empty bare git repository whose HEAD is main and
// returns its file:// URL and directory.
func bareRepo(t *testing.T) (string, string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "metadata.git")
	out, err := exec.Command("git", "init", "--bare", "--initial-branch=main", dir).CombinedOutput()
	require.NoError(t, err, string(out))
	return "file://" + dir, dir
}

func gitIn(t *testing.T, gitDir string, args ...string) string {
	t.Helper()
	out, err := exec.Command("git", append([]string{"--git-dir", gitDir}, args...)...).CombinedOutput()
	require.NoError(t, err, "git %v: %s", args, out)
	return strings.TrimSpace(string(out))
}

type taskPage struct {
	Items []seedengine.MetadataTask `json:"items"`
	Total int                       `json:"total"`
}

func (s *stack) addResearch(t *testing.T, country, category, date string, urls ...string) {
	t.Helper()
	r := s.post(t, "/api/v1/research", map[string]any{"country": country, "category": category, "date": date, "urls": urls})
	require.Equal(t, http.StatusCreated, r.StatusCode, string(r.Body))
}

// waitTask polls the task list until task id has a final status.
func (s *stack) waitTask(t *testing.T, id string) seedengine.MetadataTask {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute) // patience for a loaded machine, not an expected time
	for {
		var page taskPage
		r := s.get(t, "/api/v1/metadata/tasks?limit=1000", &page)
		require.Equal(t, http.StatusOK, r.StatusCode, string(r.Body))
		for _, task := range page.Items {
			if task.ID == id && task.Status.Finished() {
				return task
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("metadata task %s did not finish: %+v", id, page.Items)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (s *stack) snapshot(t *testing.T) (seedengine.MetadataSnapshot, []byte) {
	t.Helper()
	var snap seedengine.MetadataSnapshot
	r := s.get(t, "/api/v1/metadata/snapshot", &snap)
	require.Equal(t, http.StatusOK, r.StatusCode, string(r.Body))
	return snap, r.Body
}

func TestMetadataSnapshotAndCountry(t *testing.T) {
	t.Parallel()
	sqlstoretest.Engines(t, func(t *testing.T, db *sqlstore.DB) {
		s := newStack(t, db, withMetadata(metadataOpts{}))

		snap, _ := s.snapshot(t)
		require.Equal(t, "seedengine", snap.Engine.Name)
		require.Equal(t, "test", snap.Engine.Version)
		require.Zero(t, snap.Totals.Partitions)
		require.Empty(t, snap.Countries)
		require.Nil(t, snap.LastSync)

		s.addResearch(t, "sg", "news", "2026-01-28", "https://www.mom.gov.sg/news", "https://www.nus.edu.sg/", "https://www.mom.gov.sg/about")
		s.addResearch(t, "sg", "policy", "2026-01-29", "https://www.mti.gov.sg/")
		s.addResearch(t, "jp", "news", "2026-01-28", "https://www.mhlw.go.jp/")
		r := s.post(t, "/api/v1/seeds", map[string]any{"domain_id": "gov:sg:mom.gov.sg", "category": "news",
			"fetch": map[string]any{"type": "rss", "entry_url": "https://www.mom.gov.sg/feed"}})
		require.Equal(t, http.StatusCreated, r.StatusCode, string(r.Body))

		snap, body := s.snapshot(t)
		require.Equal(t, 3, snap.Totals.Partitions)
		require.Equal(t, 3, snap.Totals.Chunks)
		require.Equal(t, 5, snap.Totals.Records)
		require.Equal(t, 4, snap.Totals.Domains)
		require.Equal(t, map[string]int{"gov": 3, "edu": 1}, snap.Totals.DomainsByAuthority)
		require.Equal(t, 1, snap.Totals.SeedsByStatus["draft"])
		require.Equal(t, seedengine.PartitionCounts{Chunks: 1, Records: 3, Domains: 2}, snap.Countries["sg"]["news"]["2026-01-28"])
		require.Equal(t, seedengine.PartitionCounts{Chunks: 1, Records: 1, Domains: 1}, snap.Countries["jp"]["news"]["2026-01-28"])

		// Deterministic: the same state gives the same bytes but for
		// generated_at.
		_, again := s.snapshot(t)
		require.True(t, metasync.SameSnapshot(body, again))
		require.Equal(t, len(body), len(again))
		require.True(t, json.Valid(body))

		var sg seedengine.CountryMetadata
		r = s.get(t, "/api/v1/metadata/by-country/SG", &sg)
		require.Equal(t, http.StatusOK, r.StatusCode, string(r.Body))
		require.Equal(t, "sg", sg.Country)
		require.Equal(t, 2, sg.Totals.Partitions)
		require.Equal(t, 3, sg.Totals.Domains)
		require.Equal(t, 1, sg.Totals.SeedsByStatus["draft"])
		require.Equal(t, 1, sg.SeedsByFetchType["rss"])
		require.Equal(t, seedengine.PartitionCounts{Chunks: 1, Records: 1, Domains: 1}, sg.Categories["policy"]["2026-01-29"])

		r = s.get(t, "/api/v1/metadata/by-country/fr", nil)
		require.Equal(t, http.StatusNotFound, r.StatusCode, string(r.Body))
		r = s.get(t, "/api/v1/metadata/by-country/xx1", nil)
		require.Equal(t, http.StatusUnprocessableEntity, r.StatusCode, string(r.Body))

		// Without a remote there is nothing to sync to.
		r = s.post(t, "/api/v1/metadata/sync", nil)
		require.Equal(t, http.StatusConflict, r.StatusCode, string(r.Body))
		require.Contains(t, string(r.Body), "metadata-git-url")
	})
}

func TestMetadataSyncToGitRemote(t *testing.T) {
	t.Parallel()
	sqlstoretest.Engines(t, func(t *testing.T, db *sqlstore.DB) {
		url, gitDir := bareRepo(t)
		s := newStack(t, db, withQueue(), withMetadata(metadataOpts{gitURL: url, workDir: t.TempDir()}))
		s.addResearch(t, "sg", "news", "2026-01-28", "https://www.mom.gov.sg/news")

		var task seedengine.MetadataTask
		r := s.post(t, "/api/v1/metadata/sync", nil)
		require.Equal(t, http.StatusAccepted, r.StatusCode, string(r.Body))
		require.NoError(t, json.Unmarshal(r.Body, &task))
		require.Equal(t, seedengine.TriggerAPI, task.Trigger)
		task = s.waitTask(t, task.ID)
		require.Equal(t, seedengine.TaskSucceeded, task.Status, task.Error)
		head := gitIn(t, gitDir, "rev-parse", "main")
		require.Equal(t, head, task.Commit)
		require.Equal(t, url, task.Remote)
		committed := gitIn(t, gitDir, "show", "main:metadata/snapshot.json")
		var snap seedengine.MetadataSnapshot
		require.NoError(t, json.Unmarshal([]byte(committed), &snap))
		require.Equal(t, 1, snap.Totals.Partitions)
		require.Nil(t, snap.LastSync, "the history is the record of syncs")
		require.Contains(t, gitIn(t, gitDir, "log", "-1", "--format=%s", "main"), "1 partitions")

		live, _ := s.snapshot(t)
		require.NotNil(t, live.LastSync)
		require.Equal(t, head, live.LastSync.Commit)
		require.Equal(t, url, live.LastSync.Remote)

		// Nothing changed: no commit.
		r = s.post(t, "/api/v1/queues/trigger/metadata-sync", nil)
		require.Equal(t, http.StatusAccepted, r.StatusCode, string(r.Body))
		require.NoError(t, json.Unmarshal(r.Body, &task))
		require.Equal(t, seedengine.TriggerQueue, task.Trigger)
		task = s.waitTask(t, task.ID)
		require.Equal(t, seedengine.TaskSkippedUnchanged, task.Status, task.Error)
		require.Equal(t, head, task.Commit)
		require.Equal(t, head, gitIn(t, gitDir, "rev-parse", "main"))

		// New data: a new commit on top.
		s.addResearch(t, "jp", "news", "2026-01-28", "https://www.mhlw.go.jp/")
		r = s.post(t, "/api/v1/metadata/sync", nil)
		require.Equal(t, http.StatusAccepted, r.StatusCode, string(r.Body))
		require.NoError(t, json.Unmarshal(r.Body, &task))
		task = s.waitTask(t, task.ID)
		require.Equal(t, seedengine.TaskSucceeded, task.Status, task.Error)
		require.Equal(t, head, gitIn(t, gitDir, "rev-parse", "main~1"))
		require.Contains(t, gitIn(t, gitDir, "log", "-1", "--format=%s", "main"), "2 partitions")

		var page taskPage
		r = s.get(t, "/api/v1/metadata/tasks?status=skipped_unchanged", &page)
		require.Equal(t, http.StatusOK, r.StatusCode, string(r.Body))
		require.Equal(t, 1, page.Total)
		r = s.get(t, "/api/v1/metadata/tasks?status=bogus", nil)
		require.Equal(t, http.StatusUnprocessableEntity, r.StatusCode)
	})
}

// TestMetadataSyncCoalesces shows that triggers while a task is queued join
// it: 50 API requests make one task, and 20 research batches finishing
// make one sync.
func TestMetadataSyncCoalesces(t *testing.T) {
	t.Parallel()
	url, gitDir := bareRepo(t)
	s := newStack(t, sqlstoretest.OpenSQLite(t), withMetadata(metadataOpts{gitURL: url, workDir: t.TempDir(), debounce: 10 * time.Minute}))

	var wg sync.WaitGroup
	ids := make([]string, 50)
	for i := range ids {
		wg.Go(func() {
			r := s.post(t, "/api/v1/metadata/sync", nil)
			if r.StatusCode != http.StatusAccepted {
				t.Errorf("sync request: %d %s", r.StatusCode, r.Body)
				return
			}
			var task seedengine.MetadataTask
			if err := json.Unmarshal(r.Body, &task); err != nil {
				t.Error(err)
			}
			ids[i] = task.ID
		})
	}
	wg.Wait()
	for _, id := range ids {
		require.Equal(t, ids[0], id, "every request joins the one queued task")
	}
	var page taskPage
	s.get(t, "/api/v1/metadata/tasks", &page)
	require.Equal(t, 1, page.Total)
	require.Equal(t, 50, page.Items[0].Requests)

	// Twenty research batches finish while the sync the first one asked
	// for waits out its debounce, so they all join it. The window is long
	// enough for the slowest machine; once the task counts all twenty
	// (an event, not a time), its job is made to run at once.
	for i := range 20 {
		r := s.post(t, "/api/v1/queues/research", map[string]any{"country": "sg", "category": "news", "date": "2026-01-28",
			"urls": []string{fmt.Sprintf("https://www.site%d.gov.sg/", i)}})
		require.Equal(t, http.StatusAccepted, r.StatusCode, string(r.Body))
	}
	require.NoError(t, s.queue.Start(context.WithoutCancel(t.Context())))
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		require.NoError(t, s.queue.Stop(ctx))
	})
	s.waitTask(t, ids[0])
	deadline := time.Now().Add(2 * time.Minute)
	var batchTask seedengine.MetadataTask
	for batchTask.Requests < 20 {
		require.False(t, time.Now().After(deadline), "the batches' sync requests: %+v", page.Items)
		time.Sleep(50 * time.Millisecond)
		s.get(t, "/api/v1/metadata/tasks", &page)
		for _, task := range page.Items {
			if task.Trigger == seedengine.TriggerBatchCompleted {
				batchTask = task
			}
		}
	}
	require.Equal(t, seedengine.TaskQueued, batchTask.Status, "still waiting out its debounce")
	jobs, err := s.queue.Client().JobList(t.Context(), river.NewJobListParams().Kinds("metadata_sync").States(rivertype.JobStateScheduled))
	require.NoError(t, err)
	require.Len(t, jobs.Jobs, 1, "one sync job for the twenty batches")
	_, err = s.queue.Client().JobRetry(t.Context(), jobs.Jobs[0].ID)
	require.NoError(t, err)
	batchTask = s.waitTask(t, batchTask.ID)
	s.get(t, "/api/v1/metadata/tasks", &page)
	require.Equal(t, 2, page.Total, "one API task, one batch_completed task")
	require.Equal(t, 20, batchTask.Requests, "20 batches, one sync")
	require.Equal(t, seedengine.TaskSucceeded, batchTask.Status, batchTask.Error)
	require.Equal(t, batchTask.Commit, gitIn(t, gitDir, "rev-parse", "main"))
	committed := gitIn(t, gitDir, "show", "main:metadata/snapshot.json")
	require.Contains(t, committed, `"records": 20`)
}

func TestMetadataScheduledSync(t *testing.T) {
	t.Parallel()
	url, gitDir := bareRepo(t)
	s := newStack(t, sqlstoretest.OpenSQLite(t), withQueue(), withMetadata(metadataOpts{gitURL: url, workDir: t.TempDir(), every: 500 * time.Millisecond}))
	deadline := time.Now().Add(30 * time.Second)
	for {
		var page taskPage
		s.get(t, "/api/v1/metadata/tasks?status=succeeded", &page)
		if page.Total > 0 {
			require.Equal(t, seedengine.TriggerSchedule, page.Items[0].Trigger)
			require.Equal(t, page.Items[0].Commit, gitIn(t, gitDir, "rev-parse", "main"))
			return
		}
		require.False(t, time.Now().After(deadline), "no scheduled sync")
		time.Sleep(50 * time.Millisecond)
	}
}

func TestMetadataSyncFailureHidesCredentials(t *testing.T) {
	t.Parallel()
	remote := "http://robot:s3cr3t-token@127.0.0.1:1/metadata.git" // nothing listens on port 1
	s := newStack(t, sqlstoretest.OpenSQLite(t), withQueue(), withMetadata(metadataOpts{gitURL: remote, workDir: t.TempDir()}))
	var task seedengine.MetadataTask
	r := s.post(t, "/api/v1/metadata/sync", nil)
	require.Equal(t, http.StatusAccepted, r.StatusCode, string(r.Body))
	require.NoError(t, json.Unmarshal(r.Body, &task))
	task = s.waitTask(t, task.ID)
	require.Equal(t, seedengine.TaskFailed, task.Status)
	require.NotEmpty(t, task.Error)
	r = s.get(t, "/api/v1/metadata/tasks", nil)
	require.NotContains(t, string(r.Body), "s3cr3t")
	require.NotContains(t, string(r.Body), "robot:")
	require.Equal(t, "http://127.0.0.1:1/metadata.git", task.Remote)
}

// The research list and the snapshot agree on what a partition is: once
// the last chunk of one is deleted, neither lists it.
func TestSnapshotAgreesWithResearchAfterDelete(t *testing.T) {
	t.Parallel()
	sqlstoretest.Engines(t, func(t *testing.T, db *sqlstore.DB) {
		s := newStack(t, db, withMetadata(metadataOpts{}))
		s.addResearch(t, "sg", "news", "2026-01-28", "https://www.mom.gov.sg/")
		s.addResearch(t, "sg", "news", "2026-01-29", "https://www.mti.gov.sg/")
		r := s.do(t, request{Method: http.MethodDelete, Path: "/api/v1/datasets/sg/news/2026-01-29/raw_0001"})
		require.Equal(t, http.StatusNoContent, r.StatusCode, string(r.Body))

		var list struct {
			Total int `json:"total"`
		}
		r = s.get(t, "/api/v1/research", &list)
		require.Equal(t, http.StatusOK, r.StatusCode, string(r.Body))
		snap, _ := s.snapshot(t)
		require.Equal(t, 1, list.Total)
		require.Equal(t, list.Total, snap.Totals.Partitions)
		require.Equal(t, 1, snap.Totals.Chunks)
		require.NotContains(t, snap.Countries["sg"]["news"], "2026-01-29")
		var country map[string]any
		r = s.get(t, "/api/v1/metadata/by-country/sg", &country)
		require.Equal(t, http.StatusOK, r.StatusCode, string(r.Body))
	})
}
