package app_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/httpapi/httpapitest"
	"github.com/seedengine/seedengine/internal/jobs"
	"github.com/seedengine/seedengine/internal/research"
	"github.com/seedengine/seedengine/internal/sqlstore"
	"github.com/seedengine/seedengine/internal/sqlstore/sqlstoretest"
)

type batchResult struct {
	Keys       []string                `json:"keys"`
	Rejected   []seedengine.URLFailure `json:"rejected"`
	Accepted   int                     `json:"accepted"`
	Duplicates int                     `json:"duplicates"`
	Domains    int                     `json:"domains"`
}

// waitBatch polls the batch through the API until it has a final status.
func (s *stack) waitBatch(t *testing.T, id string) seedengine.Batch {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		var b seedengine.Batch
		r := s.get(t, "/api/v1/queues/batch/"+id, &b)
		require.Equal(t, http.StatusOK, r.StatusCode, string(r.Body))
		if b.Status.Finished() {
			return b
		}
		if time.Now().After(deadline) {
			t.Fatalf("batch %s still %s after 30s: %+v", id, b.Status, b.Chunks)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func withJobs(f func(*jobs.Config)) stackOption { return func(c *stackConfig) { f(&c.jobs) } }

func TestResearchBatchValidation(t *testing.T) {
	t.Parallel()
	s := newStack(t, sqlstoretest.OpenSQLite(t))
	many := make([]string, 10001)
	for i := range many {
		many[i] = fmt.Sprintf("https://example%d.com/", i)
	}
	urls := []string{"https://example.com/"}
	body := func(kv ...any) map[string]any {
		return httpapitest.With(map[string]any{"country": "sg", "category": "news", "urls": urls}, kv...)
	}
	tests := []struct {
		name string
		body map[string]any
		loc  string
	}{
		{"urls missing", body("urls", nil), "body.urls"},
		{"urls empty", body("urls", []string{}), "body.urls"},
		{"more than 10,000 urls", body("urls", many), "body.urls"},
		{"chunkSize 0", body("chunkSize", 0), "body.chunkSize"},
		{"chunkSize 1001", body("chunkSize", 1001), "body.chunkSize"},
		{"chunkSize not a number", body("chunkSize", "ten"), "body.chunkSize"},
		{"unknown country", body("country", "zz"), "body.country"},
		{"country missing", body("country", nil), "body.country"},
		{"bad category", body("category", "News"), "body.category"},
		{"bad date", body("date", "2026-02-30"), "body.date"},
		{"url over 8192 bytes", body("urls", []string{"https://example.com/" + strings.Repeat("a", 8192)}), "body.urls[0]"},
		{"research method over 200 bytes", body("research_methods", []string{strings.Repeat("m", 201)}), "body.research_methods[0]"},
		{"more than 20 research methods", body("research_methods", slices.Repeat([]string{"search"}, 21)), "body.research_methods"},
		{"query over 200 bytes", body("queries", []string{"ok", strings.Repeat("q", 201)}), "body.queries[1]"},
		{"more than 50 queries", body("queries", slices.Repeat([]string{"q"}, 51)), "body.queries"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := s.post(t, "/api/v1/queues/research", tt.body).Problem(t, http.StatusUnprocessableEntity, "invalid")
			require.Contains(t, httpapitest.Locations(p), tt.loc, "%+v", p)
		})
	}
	var l struct{ Total int }
	s.get(t, "/api/v1/queues/batches", &l)
	require.Zero(t, l.Total, "no invalid request creates a batch")
}

func TestResearchBatchRuns(t *testing.T) {
	t.Parallel()
	sqlstoretest.Engines(t, func(t *testing.T, db *sqlstore.DB) {
		s := newStack(t, db, withQueue())
		urls := make([]string, 250)
		for i := range urls {
			urls[i] = fmt.Sprintf("https://www.site%d.gov.sg/page", i)
			if i%50 == 0 {
				urls[i] = fmt.Sprintf("ftp://files%d.example.com/", i)
			}
		}
		urls[11] = "HTTPS://www.site10.gov.sg/page#frag" // duplicate of 10 in the same chunk

		r := s.post(t, "/api/v1/queues/research", map[string]any{
			"country": "SG", "category": "news", "date": "2026-01-28", "urls": urls,
			"research_methods": []string{"search"}, "queries": []string{"site:gov.sg"},
		})
		require.Equal(t, http.StatusAccepted, r.StatusCode, string(r.Body))
		b := httpapitest.Decode[seedengine.Batch](t, r)
		require.Equal(t, "/api/v1/queues/batch/"+b.ID, r.Header.Get("Location"))
		require.Equal(t, seedengine.BatchResearch, b.Kind)
		require.Equal(t, "sg", b.Country)
		require.Equal(t, "news", b.Category)
		require.Equal(t, 100, b.ChunkSize, "default chunk size")
		require.Equal(t, seedengine.ChunkCounts{Total: 3}, b.Chunks)
		require.Equal(t, 250, b.Items.Total)
		require.JSONEq(t, `{"date":"2026-01-28","research_methods":["search"],"queries":["site:gov.sg"]}`, string(b.Params))

		b = s.waitBatch(t, b.ID)
		require.Equal(t, seedengine.BatchCompletedWithErrors, b.Status, "rejected URLs are failed items")
		require.Equal(t, seedengine.ChunkCounts{Total: 3, Done: 3}, b.Chunks)
		require.Equal(t, seedengine.ItemCounts{Total: 250, Succeeded: 245, Failed: 5}, b.Items)
		require.Equal(t, 1.0, b.Progress)
		require.NotNil(t, b.FinishedAt)

		var res batchResult
		require.NoError(t, json.Unmarshal(b.Result, &res), string(b.Result))
		require.Equal(t, 244, res.Accepted)
		require.Equal(t, 1, res.Duplicates)
		require.Equal(t, 244, res.Domains)
		slices.Sort(res.Keys)
		require.Equal(t, []string{
			"raw/country=sg/category=news/date=2026-01-28/raw_0001.json",
			"raw/country=sg/category=news/date=2026-01-28/raw_0002.json",
			"raw/country=sg/category=news/date=2026-01-28/raw_0003.json",
		}, res.Keys)
		require.Equal(t, res.Keys, s.rawKeys(t))
		slices.SortFunc(res.Rejected, func(a, b seedengine.URLFailure) int { return a.Index - b.Index })
		require.Len(t, res.Rejected, 5)
		for i, f := range res.Rejected {
			require.Equal(t, seedengine.URLFailure{Index: 50 * i, URL: urls[50*i], Reason: "unsupported_scheme"}, f)
		}

		// The chunks are research like any other: indexed and readable.
		var rp seedengine.ResearchPartition
		s.get(t, "/api/v1/research/sg/news/2026-01-28", &rp)
		require.Equal(t, 3, rp.Chunks)
		require.Equal(t, 244, rp.Records)
		require.Equal(t, 244, rp.DomainTotal)
		for _, c := range rp.ChunkList {
			require.Regexp(t, `^batch:`+b.ID+`:[0-2]$`, c.Origin)
		}
		ds := s.chunkRecords(t, sgNews, 1)
		require.Equal(t, []string{"search"}, ds.Meta.ResearchMethods)
		require.Equal(t, []string{"site:gov.sg"}, ds.Meta.Queries)
	})
}

func TestResearchBatchCompletes(t *testing.T) {
	t.Parallel()
	s := newStack(t, sqlstoretest.OpenSQLite(t), withQueue())
	before := time.Now().UTC().Format(seedengine.DateLayout)
	r := s.post(t, "/api/v1/queues/research", map[string]any{
		"country": "jp", "category": "policy", "chunkSize": 2,
		"urls": []string{"https://www.mhlw.go.jp/", "https://www.u-tokyo.ac.jp/", "https://www.nhk.or.jp/"},
	})
	require.Equal(t, http.StatusAccepted, r.StatusCode, string(r.Body))
	b := s.waitBatch(t, httpapitest.Decode[seedengine.Batch](t, r).ID)
	require.Equal(t, seedengine.BatchCompleted, b.Status)
	require.Equal(t, seedengine.ChunkCounts{Total: 2, Done: 2}, b.Chunks)
	var res batchResult
	require.NoError(t, json.Unmarshal(b.Result, &res))
	require.Len(t, res.Keys, 2)
	require.Empty(t, res.Rejected)
	var params seedengine.ResearchBatchParams
	require.NoError(t, json.Unmarshal(b.Params, &params))
	require.GreaterOrEqual(t, params.Date, before, "the date defaults to today (UTC) when the batch is accepted")
}

// flakyWriter writes each dataset and then reports a failure for the first
// attempt of every origin, as a connection lost after the write would.
type flakyWriter struct {
	research.DatasetWriter
	mu     sync.Mutex
	failed map[string]bool
	always bool
}

func (w *flakyWriter) SaveDatasetFrom(ctx context.Context, p seedengine.Partition, origin string, ds *seedengine.Dataset) (seedengine.ChunkInfo, error) {
	if w.always {
		return seedengine.ChunkInfo{}, errors.New("object store unreachable: dial tcp 10.0.0.9:9000: connection refused")
	}
	c, err := w.DatasetWriter.SaveDatasetFrom(ctx, p, origin, ds)
	w.mu.Lock()
	defer w.mu.Unlock()
	if err == nil && !w.failed[origin] {
		w.failed[origin] = true
		return seedengine.ChunkInfo{}, errors.New("connection reset by peer")
	}
	return c, err
}

func TestResearchBatchRetryWritesOneFile(t *testing.T) {
	t.Parallel()
	sqlstoretest.Engines(t, func(t *testing.T, db *sqlstore.DB) {
		var flaky *flakyWriter
		s := newStack(t, db, withDatasetWriter(func(w research.DatasetWriter) research.DatasetWriter {
			flaky = &flakyWriter{DatasetWriter: w, failed: map[string]bool{}}
			return flaky
		}))
		// The queue is not started: the test plays the queue, running the
		// processor as a retried job would.
		r := s.post(t, "/api/v1/queues/research", map[string]any{
			"country": "sg", "category": "news", "date": "2026-01-28", "chunkSize": 2,
			"urls": []string{"https://www.mom.gov.sg/", "https://www.moh.gov.sg/", "https://www.nus.edu.sg/"},
		})
		require.Equal(t, http.StatusAccepted, r.StatusCode, string(r.Body))
		id := httpapitest.Decode[seedengine.Batch](t, r).ID
		b, err := s.batchSvc.FindBatchByID(t.Context(), id)
		require.NoError(t, err)
		c, err := s.batchSvc.FindBatchChunk(t.Context(), id, 1)
		require.NoError(t, err)

		process := research.ChunkProcessor(s.research)
		_, err = process(t.Context(), b, c)
		require.ErrorContains(t, err, "connection reset", "the first attempt fails after writing")
		require.NotEqual(t, seedengine.EINVALID, seedengine.ErrorCode(err), "a storage error is retried, not final")
		out, err := process(t.Context(), b, c)
		require.NoError(t, err)
		again, err := process(t.Context(), b, c)
		require.NoError(t, err)
		require.Equal(t, out, again, "a chunk processed twice has one outcome")

		require.Equal(t, 1, out.Succeeded)
		require.Zero(t, out.Failed)
		var res batchResult
		require.NoError(t, json.Unmarshal(out.Result, &res))
		require.Equal(t, []string{"raw/country=sg/category=news/date=2026-01-28/raw_0001.json"}, res.Keys)
		require.Equal(t, res.Keys, s.rawKeys(t), "three runs of one chunk wrote one file")

		var d seedengine.Domain
		s.get(t, "/api/v1/domains/edu:sg:nus.edu.sg", &d)
		require.Equal(t, 1, d.PartitionCount)
	})
}

// Through the real queue: the first attempt of every chunk fails after
// its write, the queue retries it, and the retry finds the chunk the first
// attempt wrote instead of writing a second.
func TestResearchBatchRetriedByTheQueue(t *testing.T) {
	t.Parallel()
	var flaky *flakyWriter
	s := newStack(t, sqlstoretest.OpenSQLite(t), withQueue(),
		withJobs(func(c *jobs.Config) { c.MaxAttempts = 2 }),
		withDatasetWriter(func(w research.DatasetWriter) research.DatasetWriter {
			flaky = &flakyWriter{DatasetWriter: w, failed: map[string]bool{}}
			return flaky
		}))
	r := s.post(t, "/api/v1/queues/research", map[string]any{
		"country": "sg", "category": "news", "date": "2026-01-28", "chunkSize": 2,
		"urls": []string{"https://www.mom.gov.sg/", "https://www.moh.gov.sg/", "https://www.nus.edu.sg/"},
	})
	require.Equal(t, http.StatusAccepted, r.StatusCode, string(r.Body))
	id := httpapitest.Decode[seedengine.Batch](t, r).ID
	b := s.waitBatch(t, id)
	require.Equal(t, seedengine.BatchCompleted, b.Status, "%+v", b)
	require.Equal(t, seedengine.ChunkCounts{Total: 2, Done: 2}, b.Chunks)
	require.Equal(t, seedengine.ItemCounts{Total: 3, Succeeded: 3}, b.Items)
	flaky.mu.Lock()
	require.Len(t, flaky.failed, 2, "every chunk's first attempt failed")
	flaky.mu.Unlock()

	keys := s.rawKeys(t)
	require.Equal(t, []string{
		"raw/country=sg/category=news/date=2026-01-28/raw_0001.json",
		"raw/country=sg/category=news/date=2026-01-28/raw_0002.json",
	}, keys, "one raw file per chunk")
	var res batchResult
	require.NoError(t, json.Unmarshal(b.Result, &res))
	require.ElementsMatch(t, keys, res.Keys)
}

func TestResearchBatchStorageFailureFailsBatch(t *testing.T) {
	t.Parallel()
	s := newStack(t, sqlstoretest.OpenSQLite(t), withQueue(),
		withJobs(func(c *jobs.Config) { c.MaxAttempts = 1 }),
		withDatasetWriter(func(w research.DatasetWriter) research.DatasetWriter {
			return &flakyWriter{DatasetWriter: w, always: true}
		}))
	r := s.post(t, "/api/v1/queues/research", map[string]any{
		"country": "sg", "category": "news", "date": "2026-01-28", "urls": []string{"https://www.mom.gov.sg/"},
	})
	require.Equal(t, http.StatusAccepted, r.StatusCode, string(r.Body))
	id := httpapitest.Decode[seedengine.Batch](t, r).ID
	b := s.waitBatch(t, id)
	require.Equal(t, seedengine.BatchFailed, b.Status)
	require.Equal(t, seedengine.ChunkCounts{Total: 1, Failed: 1}, b.Chunks)
	require.Equal(t, seedengine.ItemCounts{Total: 1, Failed: 1}, b.Items)
	c, err := s.batchSvc.FindBatchChunk(t.Context(), id, 0)
	require.NoError(t, err)
	require.Equal(t, seedengine.ChunkFailed, c.Status)
	require.Contains(t, c.LastError, "connection refused")
	require.Empty(t, s.rawKeys(t))
}
