package app_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/jobs"
	"github.com/seedengine/seedengine/internal/layout"
	"github.com/seedengine/seedengine/internal/orchestrate"
	"github.com/seedengine/seedengine/internal/simweb"
	"github.com/seedengine/seedengine/internal/simweb/simwebtest"
	"github.com/seedengine/seedengine/internal/sqlstore"
	"github.com/seedengine/seedengine/internal/sqlstore/sqlstoretest"
)

// withCollector registers the orchestration processor, its collector
// fetching through f.
func withCollector(f orchestrate.Fetcher) stackOption {
	return func(cfg *stackConfig) { cfg.collect = f }
}

type orchestrateAnswer struct {
	Status       string `json:"status"`
	BatchID      string `json:"batch_id"`
	FilesFound   int    `json:"files_found"`
	MessagesSent int    `json:"messages_sent"`
	Skipped      int    `json:"skipped"`
}

type orchestrationResult struct {
	Files            orchestrate.FileCounts    `json:"files"`
	Records          int                       `json:"records"`
	BadRecords       int                       `json:"bad_records"`
	DuplicateRecords int                       `json:"duplicate_records"`
	DomainsExtracted int                       `json:"domains_extracted"`
	ChunksSpawned    int                       `json:"chunks_spawned"`
	Domains          orchestrate.DomainCounts  `json:"domains"`
	Sitemaps         orchestrate.SitemapCounts `json:"sitemaps"`
}

// rawFile is a raw dataset of the partition sg/news/2026-01-28 naming the
// given hosts (as URLs; every other one also by domain_id), plus one record
// whose URL cannot become a domain.
func rawFile(hosts ...string) string {
	var recs []string
	for i, h := range hosts {
		if i%2 == 0 {
			recs = append(recs, fmt.Sprintf(`{"raw_url":"https://www.%s/news/%d","domain_id":"gov:sg:%s"}`, h, i, h))
		} else {
			recs = append(recs, fmt.Sprintf(`{"raw_url":"https://%s/about"}`, h))
		}
	}
	recs = append(recs, `{"raw_url":"mailto:press@example.gov.sg"}`)
	return fmt.Sprintf(`{"meta":{"dataset_id":"t","country":"SG","category":"news","date":"2026-01-28","record_count":%d},"records":[%s]}`,
		len(recs), strings.Join(recs, ","))
}

func (s *stack) orchestrate(t *testing.T, force bool) (int, orchestrateAnswer) {
	t.Helper()
	r := s.post(t, "/api/v1/seeds/orchestrate", map[string]any{"country": "SG", "category": "news", "date": "2026-01-28", "force": force})
	var a orchestrateAnswer
	require.NoError(t, json.Unmarshal(r.Body, &a), string(r.Body))
	return r.StatusCode, a
}

func (s *stack) objectExists(t *testing.T, key string) bool {
	t.Helper()
	ok, err := s.blobs.Exists(t.Context(), key)
	require.NoError(t, err)
	return ok
}

// waitObject waits for key: checkpoints of raw files are written just
// after the transaction that records the file, so they may trail the
// batch by a moment.
func (s *stack) waitObject(t *testing.T, key string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !s.objectExists(t, key) {
		if time.Now().After(deadline) {
			t.Fatalf("%s was not written", key)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestOrchestrationOnSimulatedWeb(t *testing.T) {
	t.Parallel()
	hosts := []string{"alpha-site.gov.sg", "beta-site.gov.sg", "gamma-site.gov.sg", "delta-site.gov.sg", "gone-site.gov.sg", "later-site.gov.sg"}
	sites := []simweb.Site{
		{Host: hosts[0], Layout: simweb.LayoutWordPress},
		{Host: hosts[1], Layout: simweb.LayoutNews}, // a sitemap index with gzip children
		{Host: hosts[2], Layout: simweb.LayoutStatic, RobotsStatus: 404},
		{Host: hosts[3], Layout: simweb.LayoutGov, RobotsStatus: 503},
		{Host: hosts[4], Scenario: simweb.ScenarioNXDomain},
		{Host: hosts[5], Layout: simweb.LayoutBlog},
	}
	_, client := simwebtest.Client(t, sites, 2*time.Second)
	p := seedengine.Partition{Country: "sg", Category: "news", Date: "2026-01-28"}

	sqlstoretest.Engines(t, func(t *testing.T, db *sqlstore.DB) {
		s := newStack(t, db, withQueue(), withJobs(func(c *jobs.Config) { c.MaxAttempts = 2 }), withCollector(client))

		// Nothing saved yet: 404.
		r := s.post(t, "/api/v1/seeds/orchestrate", map[string]any{"country": "sg", "category": "news", "date": "2026-01-28"})
		require.Equal(t, http.StatusNotFound, r.StatusCode, string(r.Body))
		r = s.post(t, "/api/v1/seeds/orchestrate", map[string]any{"country": "sg", "category": "news", "date": "2026-02-30"})
		require.Equal(t, http.StatusUnprocessableEntity, r.StatusCode, string(r.Body))
		require.Contains(t, string(r.Body), "date")

		// Three files whose domains overlap; litter that is not a raw file.
		for _, f := range [][]string{hosts[0:3], hosts[1:4], {hosts[2], hosts[4], hosts[0]}} {
			r := s.post(t, "/api/v1/datasets/sg/news/2026-01-28", json.RawMessage(rawFile(f...)))
			require.Equal(t, http.StatusCreated, r.StatusCode, string(r.Body))
		}
		prefix, err := layout.PartitionPrefix(p)
		require.NoError(t, err)
		for _, name := range []string{".DS_Store", "raw_metadata.json", "notes.txt"} {
			_, err := s.blobs.Put(t.Context(), prefix+name, strings.NewReader("x"), "")
			require.NoError(t, err)
		}

		code, a := s.orchestrate(t, false)
		require.Equal(t, http.StatusAccepted, code)
		require.Equal(t, orchestrateAnswer{Status: "queued", BatchID: a.BatchID, FilesFound: 3, MessagesSent: 3}, a)
		b := s.waitBatch(t, a.BatchID)
		require.Equal(t, seedengine.BatchOrchestration, b.Kind)
		require.Equal(t, seedengine.BatchCompleted, b.Status, "%+v %s", b, b.Result)
		require.Equal(t, seedengine.ChunkCounts{Total: 3 + 5, Done: 8}, b.Chunks, "3 files, 5 domains: each domain once")
		var res orchestrationResult
		require.NoError(t, json.Unmarshal(b.Result, &res))
		require.Equal(t, orchestrate.FileCounts{Processed: 3}, res.Files)
		require.Equal(t, 12, res.Records)
		require.Equal(t, 3, res.BadRecords)
		require.Equal(t, 9, res.DomainsExtracted)
		require.Equal(t, 5, res.ChunksSpawned)
		require.Equal(t, orchestrate.DomainCounts{Collected: 5}, res.Domains)
		require.Equal(t, 2, res.Sitemaps.Found, "wordpress and the news index; static has none, the gov site's robots.txt is 503, gone is dead")

		for n := 1; n <= 3; n++ {
			key, err := layout.RawCheckpointKey(p, n)
			require.NoError(t, err)
			s.waitObject(t, key)
		}
		for _, h := range hosts[:5] {
			key, err := layout.ProdDomainFileKey(p, h, layout.FileDomainMetadataSuccess)
			require.NoError(t, err)
			require.True(t, s.objectExists(t, key), h)
		}
		md := s.domainMetadata(t, p, hosts[1])
		require.Equal(t, "gov:sg:"+hosts[1], md.DomainID)
		require.Equal(t, "SG", md.Country)
		require.True(t, md.Robots.Exists)
		require.Equal(t, 200, md.Robots.StatusCode)
		require.True(t, md.Sitemap.Exists)
		require.Positive(t, md.Sitemap.URLCount)
		gone := s.domainMetadata(t, p, hosts[4])
		require.Equal(t, 0, gone.Robots.StatusCode, "no answer")
		require.False(t, gone.Robots.Exists)
		require.False(t, gone.Sitemap.Exists)
		flaky := s.domainMetadata(t, p, hosts[3])
		require.Equal(t, 503, flaky.Robots.StatusCode)
		require.False(t, flaky.Robots.Exists)

		// Again without force: every file is checkpointed, nothing queued.
		code, a = s.orchestrate(t, false)
		require.Equal(t, http.StatusOK, code)
		require.Equal(t, orchestrateAnswer{Status: "nothing_to_do", FilesFound: 3, Skipped: 3}, a)

		// With force: everything again, each domain still once.
		code, a = s.orchestrate(t, true)
		require.Equal(t, http.StatusAccepted, code)
		require.Equal(t, 3, a.MessagesSent)
		b = s.waitBatch(t, a.BatchID)
		require.Equal(t, seedengine.BatchCompleted, b.Status)
		res = orchestrationResult{}
		require.NoError(t, json.Unmarshal(b.Result, &res))
		require.Equal(t, orchestrate.FileCounts{Processed: 3}, res.Files)
		require.Equal(t, 5, res.ChunksSpawned)
		require.Equal(t, orchestrate.DomainCounts{Collected: 5}, res.Domains, "forced: collected again, not skipped")

		// A malformed file next to a good one: the good one goes through,
		// the malformed one is retried, then fails in the batch without a
		// checkpoint, and shows as a dead letter.
		badKey, err := layout.RawChunkKey(p, 4)
		require.NoError(t, err)
		_, err = s.blobs.Put(t.Context(), badKey, strings.NewReader(`{"meta":{"country":"SG","category":"news","date":"2026-01-28"},"records":[{"raw_url":`), "application/json")
		require.NoError(t, err)
		r = s.post(t, "/api/v1/datasets/sg/news/2026-01-28", json.RawMessage(rawFile(hosts[5], hosts[0])))
		require.Equal(t, http.StatusCreated, r.StatusCode, string(r.Body))
		code, a = s.orchestrate(t, false)
		require.Equal(t, http.StatusAccepted, code)
		require.Equal(t, orchestrateAnswer{Status: "queued", BatchID: a.BatchID, FilesFound: 5, MessagesSent: 2, Skipped: 3}, a)
		b = s.waitBatch(t, a.BatchID)
		require.Equal(t, seedengine.BatchCompletedWithErrors, b.Status)
		require.Equal(t, seedengine.ChunkCounts{Total: 4, Done: 3, Failed: 1}, b.Chunks, "2 files, 2 domains; the malformed file failed")
		res = orchestrationResult{}
		require.NoError(t, json.Unmarshal(b.Result, &res))
		require.Equal(t, orchestrate.DomainCounts{Collected: 1, Skipped: 1}, res.Domains, "later-site is new; alpha-site was collected before")
		badCheckpoint, err := layout.RawCheckpointKey(p, 4)
		require.NoError(t, err)
		require.False(t, s.objectExists(t, badCheckpoint))

		var dead struct {
			Items []seedengine.DeadLetter `json:"items"`
			Total int                     `json:"total"`
		}
		// The queue sets the job aside just after the chunk is failed.
		deadline := time.Now().Add(10 * time.Second)
		for {
			r = s.get(t, "/api/v1/queues/dead-letters?kind=orchestration_file", &dead)
			require.Equal(t, http.StatusOK, r.StatusCode, string(r.Body))
			if dead.Total > 0 || time.Now().After(deadline) {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		require.Equal(t, 1, dead.Total)
		dl := dead.Items[0]
		require.Equal(t, "orchestration_file", dl.Kind)
		require.Equal(t, a.BatchID, dl.BatchID)
		require.Equal(t, 2, dl.Attempts)
		require.Contains(t, dl.LastError, "malformed raw file")

		// The file is fixed and the dead letter retried: the batch opens
		// again and finishes with the file's domains.
		_, err = s.blobs.Put(t.Context(), badKey, strings.NewReader(rawFile(hosts[2])), "application/json")
		require.NoError(t, err)
		r = s.post(t, fmt.Sprintf("/api/v1/queues/dead-letters/%d/retry", dl.ID), nil)
		require.Equal(t, http.StatusAccepted, r.StatusCode, string(r.Body))
		r = s.post(t, fmt.Sprintf("/api/v1/queues/dead-letters/%d/retry", dl.ID), nil)
		require.Equal(t, http.StatusConflict, r.StatusCode, "no longer a dead letter: %s", r.Body)
		b = s.waitBatch(t, a.BatchID)
		require.Equal(t, seedengine.BatchCompleted, b.Status, "%+v", b.Chunks)
		require.Equal(t, seedengine.ChunkCounts{Total: 5, Done: 5}, b.Chunks)
		s.waitObject(t, badCheckpoint)
		r = s.get(t, "/api/v1/queues/dead-letters", &dead)
		require.Equal(t, http.StatusOK, r.StatusCode)
		require.False(t, slices.ContainsFunc(dead.Items, func(d seedengine.DeadLetter) bool { return d.ID == dl.ID }))
		r = s.post(t, "/api/v1/queues/dead-letters/999999/retry", nil)
		require.Equal(t, http.StatusNotFound, r.StatusCode, string(r.Body))
	})
}

func (s *stack) domainMetadata(t *testing.T, p seedengine.Partition, domain string) orchestrate.DomainMetadata {
	t.Helper()
	key, err := layout.ProdDomainFileKey(p, domain, layout.FileDomainMetadata)
	require.NoError(t, err)
	rd, _, err := s.blobs.NewReader(t.Context(), key)
	require.NoError(t, err)
	defer rd.Close()
	raw, err := io.ReadAll(rd)
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(string(raw), "{\n  \""), "pretty-printed")
	var md orchestrate.DomainMetadata
	require.NoError(t, json.Unmarshal(raw, &md))
	return md
}
