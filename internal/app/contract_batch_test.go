package app_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/contract"
	"github.com/seedengine/seedengine/internal/simweb"
	"github.com/seedengine/seedengine/internal/simweb/simwebtest"
	"github.com/seedengine/seedengine/internal/sqlstore"
	"github.com/seedengine/seedengine/internal/sqlstore/sqlstoretest"
)

// withContract registers the contract processor with r.
func withContract(r contract.Runner) stackOption {
	return func(c *stackConfig) { c.contract = r }
}

func strPtr(s string) *string { return &s }

// contractSites are the simulated sites of the contract flow: one per case
// the issue names.
var contractSites = []simweb.Site{
	{Host: "wordpress-site.gov.sg", Layout: simweb.LayoutWordPress},
	{Host: "newsonly-site.gov.sg", Layout: simweb.LayoutNews}, // news sitemap only; index with gzip children
	{Host: "ministry-site.gov.sg", Layout: simweb.LayoutGov},  // feed under /newsroom/rss
	{Host: "blocked-site.gov.sg", Layout: simweb.LayoutWordPress, Robots: strPtr("User-agent: *\nDisallow: /\n")},
	{Host: "plain-site.gov.sg", Layout: simweb.LayoutStatic}, // no feed, no sitemap: HTML
	{Host: "gone-site.gov.sg", Scenario: simweb.ScenarioNXDomain},
	{Host: "flaky-site.gov.sg", Layout: simweb.LayoutWordPress, RobotsStatus: 503},
}

type contractBatchResult struct {
	Created   []string               `json:"created"`
	Refreshed []string               `json:"refreshed"`
	Skipped   []contract.SkippedItem `json:"skipped"`
	Domains   []contract.DomainRun   `json:"domains"`
	Requests  int                    `json:"requests"`
}

func (s *stack) runContract(t *testing.T, ids []string, chunkSize int) (seedengine.Batch, contractBatchResult) {
	t.Helper()
	r := s.post(t, "/api/v1/queues/contract", map[string]any{"country": "sg", "category": "news", "domainIds": ids, "chunkSize": chunkSize})
	require.Equal(t, http.StatusAccepted, r.StatusCode, string(r.Body))
	id := strings.TrimPrefix(r.Header.Get("Location"), "/api/v1/queues/batch/")
	b := s.waitBatch(t, id)
	var res contractBatchResult
	require.NoError(t, json.Unmarshal(b.Result, &res), string(b.Result))
	return b, res
}

func (s *stack) seed(t *testing.T, id string) seedengine.Seed {
	t.Helper()
	var sd seedengine.Seed
	r := s.get(t, "/api/v1/seeds/"+url.PathEscape(id), &sd)
	require.Equal(t, http.StatusOK, r.StatusCode, string(r.Body))
	return sd
}

func TestContractBatchOnSimulatedWeb(t *testing.T) {
	t.Parallel()
	_, client := simwebtest.Client(t, contractSites, 2*time.Second)
	d := contract.New(client, contract.Config{})
	sqlstoretest.Engines(t, func(t *testing.T, db *sqlstore.DB) {
		s := newStack(t, db, withQueue(), withContract(d))
		ids := make([]string, len(contractSites))
		for i, site := range contractSites {
			ids[i] = "gov:sg:" + site.Host
		}
		b, res := s.runContract(t, ids, 3)
		require.Equal(t, seedengine.BatchContract, b.Kind)
		require.Equal(t, seedengine.BatchCompletedWithErrors, b.Status, "the dead domain and the unreadable robots.txt fail")
		require.Equal(t, seedengine.ItemCounts{Total: 7, Succeeded: 5, Failed: 2}, b.Items)
		require.Equal(t, seedengine.ChunkCounts{Total: 3, Done: 3}, b.Chunks)

		want := map[string]struct {
			fetchType seedengine.FetchType
			entry     string
			allowed   bool
		}{
			"gov:sg:wordpress-site.gov.sg::news": {seedengine.FetchRSS, "https://wordpress-site.gov.sg/feed/", true},
			"gov:sg:newsonly-site.gov.sg::news":  {seedengine.FetchNewsSitemap, "https://newsonly-site.gov.sg/news-sitemap.xml", true},
			"gov:sg:ministry-site.gov.sg::news":  {seedengine.FetchRSS, "https://ministry-site.gov.sg/newsroom/rss", true},
			"gov:sg:blocked-site.gov.sg::news":   {seedengine.FetchHTML, "https://blocked-site.gov.sg/", false},
			"gov:sg:plain-site.gov.sg::news":     {seedengine.FetchHTML, "https://plain-site.gov.sg/news/", true},
		}
		var created []string
		for id := range want {
			created = append(created, id)
		}
		slices.Sort(created)
		got := slices.Clone(res.Created)
		slices.Sort(got)
		require.Equal(t, created, got)
		require.Empty(t, res.Refreshed)
		reasons := map[string]string{}
		for _, sk := range res.Skipped {
			reasons[sk.DomainID] = sk.Reason
		}
		require.Equal(t, map[string]string{
			"gov:sg:gone-site.gov.sg":  contract.OutcomeUnreachable,
			"gov:sg:flaky-site.gov.sg": contract.OutcomeRobotsUnavailable,
		}, reasons)
		require.Len(t, res.Domains, 7)
		for _, dr := range res.Domains {
			require.LessOrEqual(t, dr.Requests, 40, dr.DomainID)
			require.NotEmpty(t, dr.Evidence)
		}

		for id, w := range want {
			sd := s.seed(t, id)
			require.Equal(t, seedengine.SeedDraft, sd.Status, id)
			require.Equal(t, 1, sd.Version, id)
			require.Equal(t, "news", sd.Category)
			require.Equal(t, "news", sd.ContentType)
			require.Equal(t, seedengine.SourceGovernment, sd.Source.SourceType)
			require.Equal(t, w.fetchType, sd.Fetch.Type, id)
			require.Equal(t, w.entry, sd.Fetch.EntryURL, id)
			require.Equal(t, w.allowed, sd.Policy.CrawlAllowed, id)
			require.Equal(t, "https://"+strings.TrimPrefix(strings.TrimSuffix(id, "::news"), "gov:sg:")+"/robots.txt", sd.Policy.RobotsURL)
			require.NoError(t, seedengine.ValidateCron(sd.Fetch.Schedule))
			require.Positive(t, sd.Confidence)
			require.Nil(t, sd.PromotedAt)
			require.Len(t, sd.History, 1)
			require.Equal(t, "contract_batch:"+b.ID, sd.History[0].Actor)

			// The evidence behind the seed is stored whole.
			require.True(t, strings.HasPrefix(sd.Evidence.Key, "prod/contracts/"), sd.Evidence.Key)
			rd, _, err := s.blobs.NewReader(t.Context(), sd.Evidence.Key)
			require.NoError(t, err)
			raw, err := io.ReadAll(rd)
			rd.Close()
			require.NoError(t, err)
			var ev contract.Evidence
			require.NoError(t, json.Unmarshal(raw, &ev))
			// The API serves the same object.
			er := s.do(t, request{Path: "/api/v1/seeds/" + url.PathEscape(id) + "/evidence"})
			require.Equal(t, http.StatusOK, er.StatusCode, string(er.Body))
			require.Equal(t, "application/json", er.Header.Get("Content-Type"))
			require.Equal(t, sd.Evidence.Key, er.Header.Get("X-Evidence-Key"))
			require.Equal(t, raw, er.Body)
			require.Equal(t, strings.TrimSuffix(id, "::news"), ev.DomainID)
			require.Equal(t, sd.Evidence.Requests, ev.Spent.Requests)
			require.Equal(t, 40, ev.Spent.MaxRequests)
			for _, c := range ev.Candidates {
				require.NotEmpty(t, c.Robots, "every candidate carries its robots verdict")
			}
		}
		require.Equal(t, "https://newsonly-site.gov.sg/sitemap_index.xml", s.seed(t, "gov:sg:newsonly-site.gov.sg::news").Policy.SitemapURL)

		var list struct {
			Items []seedengine.Seed `json:"items"`
			Total int               `json:"total"`
		}
		r := s.get(t, "/api/v1/seeds?country=sg&status=draft&source_type=government", &list)
		require.Equal(t, http.StatusOK, r.StatusCode, string(r.Body))
		require.Equal(t, 5, list.Total)

		// A person promotes one seed and changes another's contract.
		r = s.post(t, "/api/v1/seeds/promote", map[string]any{"seedId": "gov:sg:wordpress-site.gov.sg::news"})
		require.Equal(t, http.StatusOK, r.StatusCode, string(r.Body))
		r = s.post(t, "/api/v1/seeds/promote", map[string]any{"seedId": "gov:sg:ministry-site.gov.sg::news"})
		require.Equal(t, http.StatusOK, r.StatusCode, string(r.Body))
		r = s.do(t, request{Method: http.MethodPatch, Path: "/api/v1/seeds/" + url.PathEscape("gov:sg:ministry-site.gov.sg::news"),
			Body: map[string]any{"fetch": map[string]any{"entry_url": "https://ministry-site.gov.sg/newsroom/"}}})
		require.Equal(t, http.StatusOK, r.StatusCode, string(r.Body))

		// A second run refreshes drafts and never touches active seeds: an
		// unchanged contract is just kept, a different one is recorded as a
		// proposed version.
		_, res2 := s.runContract(t, ids, 7)
		require.Empty(t, res2.Created)
		refreshed := slices.Clone(res2.Refreshed)
		slices.Sort(refreshed)
		require.Equal(t, []string{"gov:sg:blocked-site.gov.sg::news", "gov:sg:newsonly-site.gov.sg::news", "gov:sg:plain-site.gov.sg::news"}, refreshed)
		kept := map[string]contract.SkippedItem{}
		for _, sk := range res2.Skipped {
			if sk.SeedID != "" {
				kept[sk.SeedID] = sk
			}
		}
		require.Equal(t, "active_seed_kept", kept["gov:sg:wordpress-site.gov.sg::news"].Reason)
		require.Zero(t, kept["gov:sg:wordpress-site.gov.sg::news"].ProposedVersion, "same contract: nothing to propose")
		require.Equal(t, "active_seed_kept", kept["gov:sg:ministry-site.gov.sg::news"].Reason)
		require.Equal(t, 3, kept["gov:sg:ministry-site.gov.sg::news"].ProposedVersion)

		wp := s.seed(t, "gov:sg:wordpress-site.gov.sg::news")
		require.Equal(t, seedengine.SeedActive, wp.Status)
		require.Equal(t, 1, wp.Version)
		min := s.seed(t, "gov:sg:ministry-site.gov.sg::news")
		require.Equal(t, seedengine.SeedActive, min.Status)
		require.Equal(t, 2, min.Version, "the person's edit stays")
		require.Equal(t, "https://ministry-site.gov.sg/newsroom/", min.Fetch.EntryURL)
		require.Equal(t, 3, min.ProposedVersion)
		var versions struct {
			Items []seedengine.SeedVersion `json:"items"`
		}
		r = s.get(t, "/api/v1/seeds/"+url.PathEscape("gov:sg:ministry-site.gov.sg::news")+"/versions", &versions)
		require.Equal(t, http.StatusOK, r.StatusCode, string(r.Body))
		require.Len(t, versions.Items, 3)
		require.Equal(t, seedengine.SeedVersionProposed, versions.Items[0].State)
		require.Equal(t, "https://ministry-site.gov.sg/newsroom/rss", versions.Items[0].Contract.Fetch.EntryURL)
		plain := s.seed(t, "gov:sg:plain-site.gov.sg::news")
		require.Equal(t, 1, plain.Version, "an unchanged contract keeps its version")
		require.Equal(t, seedengine.SeedDraft, plain.Status)
	})
}

// seedingRunner stands in for contract runs: every domain gets a fresh
// feed decision, all started in the same second, and nothing leaves the
// process. It counts the runs.
type seedingRunner struct {
	mu   sync.Mutex
	runs []string
}

func (r *seedingRunner) Discover(_ context.Context, domainID, domain string) *contract.Evidence {
	r.mu.Lock()
	r.runs = append(r.runs, domainID)
	r.mu.Unlock()
	at := time.Date(2026, 1, 28, 3, 0, 0, 0, time.UTC)
	return &contract.Evidence{
		DomainID: domainID, Domain: domain, StartedAt: at, FinishedAt: at, Outcome: contract.OutcomeSeeded,
		Robots: contract.RobotsEvidence{URL: "https://" + domain + "/robots.txt", Result: "parsed", HomeAllowed: true},
		Decisions: []contract.Decision{{ContentType: "news", FetchType: seedengine.FetchRSS, EntryURL: "https://" + domain + "/feed/",
			Schedule: "@hourly", Confidence: 0.9, CrawlAllowed: true}},
	}
}

func (r *seedingRunner) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.runs)
}

// TestContractBatchFromResearchFlow: research for Greenland
// (gl/news) finds Sermitsiaq.AG, Reuters and Greenlandic sites, and a
// contract batch for gl takes what it found: by the domain_ids the
// partition lists (reuters.com is media:gb), and as the partition itself.
func TestContractBatchFromResearchFlow(t *testing.T) {
	t.Parallel()
	sqlstoretest.Engines(t, func(t *testing.T, db *sqlstore.DB) {
		runner := &seedingRunner{}
		s := newStack(t, db, withQueue(), withContract(runner))
		const date = "2026-01-28"
		r := s.post(t, "/api/v1/queues/research", map[string]any{"country": "gl", "category": "news", "date": date, "urls": []string{
			"https://sermitsiaq.ag/", "https://www.reuters.com/world/", "https://knr.gl/da/nyheder", "https://naalakkersuisut.gl/",
			"https://sermitsiaq.ag/samfund",
		}})
		require.Equal(t, http.StatusAccepted, r.StatusCode, string(r.Body))
		b := s.waitBatch(t, strings.TrimPrefix(r.Header.Get("Location"), "/api/v1/queues/batch/"))
		require.Equal(t, seedengine.BatchCompleted, b.Status, string(b.Result))
		require.Zero(t, runner.count(), "research classifies URLs; it fetches nothing")

		var part seedengine.ResearchPartition
		r = s.get(t, "/api/v1/research/gl/news/"+date, &part)
		require.Equal(t, http.StatusOK, r.StatusCode, string(r.Body))
		var ids []string
		for _, d := range part.DomainList {
			ids = append(ids, d.ID)
		}
		require.Equal(t, []string{"media:gb:reuters.com", "other:gl:knr.gl", "other:gl:naalakkersuisut.gl", "other:gl:sermitsiaq.ag"}, ids)

		// The domain_ids research found, one of them of another country.
		r = s.post(t, "/api/v1/queues/contract", map[string]any{"country": "gl", "category": "news", "domainIds": ids})
		require.Equal(t, http.StatusAccepted, r.StatusCode, string(r.Body))
		b = s.waitBatch(t, strings.TrimPrefix(r.Header.Get("Location"), "/api/v1/queues/batch/"))
		require.Equal(t, seedengine.BatchCompleted, b.Status, string(b.Result))
		require.Equal(t, seedengine.ItemCounts{Total: 4, Succeeded: 4}, b.Items)
		var res contractBatchResult
		require.NoError(t, json.Unmarshal(b.Result, &res))
		require.ElementsMatch(t, []string{"media:gb:reuters.com::news", "other:gl:knr.gl::news", "other:gl:naalakkersuisut.gl::news",
			"other:gl:sermitsiaq.ag::news"}, res.Created)
		require.Equal(t, "gb", s.seed(t, "media:gb:reuters.com::news").Country, "a seed keeps its domain's country")

		// The partition itself: as many items as the partition has domains.
		r = s.post(t, "/api/v1/queues/contract", map[string]any{"country": "gl", "category": "news", "date": date})
		require.Equal(t, http.StatusAccepted, r.StatusCode, string(r.Body))
		var accepted seedengine.Batch
		require.NoError(t, json.Unmarshal(r.Body, &accepted))
		require.Equal(t, part.Domains, accepted.Items.Total)
		b = s.waitBatch(t, accepted.ID)
		require.Equal(t, seedengine.BatchCompleted, b.Status, string(b.Result))
		require.NoError(t, json.Unmarshal(b.Result, &res))
		require.ElementsMatch(t, ids, func() []string {
			var out []string
			for _, d := range res.Domains {
				out = append(out, d.DomainID)
			}
			return out
		}())
		require.Equal(t, 8, runner.count())
	})
}
