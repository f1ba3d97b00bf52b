package httpapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/app"
	"github.com/seedengine/seedengine/internal/blobstore"
	"github.com/seedengine/seedengine/internal/contract"
	"github.com/seedengine/seedengine/internal/dataset"
	"github.com/seedengine/seedengine/internal/httpapi"
	"github.com/seedengine/seedengine/internal/jobs"
	"github.com/seedengine/seedengine/internal/liveness"
	"github.com/seedengine/seedengine/internal/metasync"
	"github.com/seedengine/seedengine/internal/orchestrate"
	"github.com/seedengine/seedengine/internal/research"
	"github.com/seedengine/seedengine/internal/sqlstore"
	"github.com/seedengine/seedengine/internal/sqlstore/sqlstoretest"
)

// stack is the API on the real services: SQL store, object store in
// memory, dataset, domain and research services, and a real queue.
type stack struct {
	*env
	db       *sqlstore.DB
	blobs    *blobstore.Store
	batchSvc *sqlstore.BatchService
	datasets *dataset.Service
	domains  *sqlstore.DomainService
	research *research.Service
	liveness *sqlstore.LivenessService
	seeds    *sqlstore.SeedService
	metadata *metasync.Service
	queue    *jobs.Queue
}

// stackOption changes how newStack wires the services.
type stackOption func(*stackConfig)

type stackConfig struct {
	startQueue bool
	wrap       func(research.DatasetWriter) research.DatasetWriter
	jobs       jobs.Config
	prober     liveness.DomainProber
	contract   contract.Runner
	collect    orchestrate.Fetcher // fetches for the orchestration's domain collector
	metadata   *metadataOpts
}

// metadataOpts wires the metadata service: a git remote (none: no sync),
// the schedule and the debounce of batch-completed syncs.
type metadataOpts struct {
	gitURL   string
	workDir  string
	every    time.Duration
	debounce time.Duration
}

// withQueue starts the queue, so batches run.
func withQueue() stackOption { return func(c *stackConfig) { c.startQueue = true } }

// withDatasetWriter wraps the dataset writer research uses, to inject
// failures.
func withDatasetWriter(w func(research.DatasetWriter) research.DatasetWriter) stackOption {
	return func(c *stackConfig) { c.wrap = w }
}

func newStack(t *testing.T, db *sqlstore.DB, opts ...stackOption) *stack {
	t.Helper()
	cfg := stackConfig{jobs: jobs.Config{
		Workers:       10,
		PollInterval:  20 * time.Millisecond,
		FetchCooldown: 5 * time.Millisecond,
		MaxAttempts:   3,
		Logger:        slog.New(slog.DiscardHandler),
		ReadDB:        db.Reader(),
	}}
	for _, o := range opts {
		o(&cfg)
	}
	blobs, err := blobstore.Open(t.Context(), "mem://")
	require.NoError(t, err)
	t.Cleanup(func() { _ = blobs.Close() })

	// The application as cmd/seedengine wires it (internal/app), with the
	// test's stand-ins for the outbound work.
	ac := app.Config{
		DB: db, Blobs: blobs, Queue: cfg.jobs, Version: "test",
		Prober: cfg.prober, Contract: cfg.contract, Collect: cfg.collect, WrapResearchWriter: cfg.wrap,
	}
	if m := cfg.metadata; m != nil {
		if m.gitURL != "" {
			ac.MetadataSyncer, err = metasync.NewSyncer(metasync.GitConfig{URL: m.gitURL, WorkDir: m.workDir}, nil)
			require.NoError(t, err)
		}
		ac.MetadataInterval, ac.MetadataDebounce = m.every, m.debounce
	}
	a, err := app.New(ac)
	require.NoError(t, err)
	s := &stack{db: db, blobs: blobs, batchSvc: a.Batches, datasets: a.Datasets, domains: a.Domains, research: a.Research,
		liveness: a.Liveness, seeds: a.Seeds, queue: a.Queue}
	if cfg.metadata != nil {
		s.metadata = a.Metadata
	}
	if cfg.startQueue {
		require.NoError(t, s.queue.Start(t.Context()))
		t.Cleanup(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			require.NoError(t, s.queue.Stop(ctx))
		})
	}
	s.env = setup(t, func(_ *httpapi.Config, d *httpapi.Deps) {
		deps := a.Deps()
		if !cfg.startQueue {
			// A queue that was not started is not ready: readiness here
			// is the stores'.
			delete(deps.Checks, "queue")
		}
		if s.metadata == nil {
			// Without a metadata option the stack serves no metadata.
			deps.Metadata, deps.MetadataSync = nil, nil
		}
		keys := d.APIKeys // the env's key service
		*d = deps
		d.APIKeys = keys
	})
	return s
}

// post sends a JSON body to path on the open API.
func (s *stack) post(t *testing.T, path string, body any) response {
	t.Helper()
	return s.do(t, request{method: http.MethodPost, path: path, body: body})
}

// get fetches path and decodes its JSON body into v.
func (s *stack) get(t *testing.T, path string, v any) response {
	t.Helper()
	r := s.do(t, request{path: path})
	if r.StatusCode == http.StatusOK && v != nil {
		require.NoError(t, json.Unmarshal(r.body, v), string(r.body))
	}
	return r
}

// chunkRecords reads a stored chunk through the datasets API.
func (s *stack) chunkRecords(t *testing.T, p seedengine.Partition, n int) seedengine.Dataset {
	t.Helper()
	r := s.do(t, request{path: fmt.Sprintf("/api/v1/datasets/%s/%s/%s/raw_%04d", p.Country, p.Category, p.Date, n)})
	require.Equal(t, http.StatusOK, r.StatusCode, string(r.body))
	var ds seedengine.Dataset
	require.NoError(t, json.Unmarshal(r.body, &ds), string(r.body))
	return ds
}

// rawKeys lists the raw chunk files of the store.
func (s *stack) rawKeys(t *testing.T) []string {
	t.Helper()
	var keys []string
	require.NoError(t, s.blobs.List(t.Context(), blobstore.RawRoot, func(o blobstore.Object) error {
		if k, err := blobstore.ParseKey(o.Key); err == nil && k.Kind == blobstore.KindRawChunk {
			keys = append(keys, o.Key)
		}
		return nil
	}))
	return keys
}

type researchResult struct {
	seedengine.Partition
	Chunk       *seedengine.ChunkInfo   `json:"chunk"`
	Accepted    int                     `json:"accepted"`
	Duplicates  int                     `json:"duplicates"`
	Rejected    []seedengine.URLFailure `json:"rejected"`
	Domains     int                     `json:"domains"`
	Authorities map[string]int          `json:"authorities"`
}

func decode[T any](t *testing.T, r response) T {
	t.Helper()
	var v T
	require.NoError(t, json.Unmarshal(r.body, &v), string(r.body))
	return v
}

var sgNews = seedengine.Partition{Country: "sg", Category: "news", Date: "2026-01-28"}

func TestResearchCreateURLs(t *testing.T) {
	t.Parallel()
	sqlstoretest.Engines(t, func(t *testing.T, db *sqlstore.DB) {
		s := newStack(t, db)
		body := map[string]any{
			"country":          "SG",
			"category":         "news",
			"date":             "2026-01-28",
			"research_methods": []string{"search"},
			"queries":          []string{"singapore ministry newsroom"},
			"urls": []string{
				"HTTPS://WWW.MOM.GOV.SG/newsroom?utm_source=x", // 0
				"https://www.mom.gov.sg/newsroom",              // 1: duplicate of 0 once normalised
				"ftp://files.example.com/list.txt",             // 2: unsupported scheme
				"",                                             // 3: empty
				"https://www.straitstimes.com/singapore",       // 4
				"https://www.nus.edu.sg/news#top",              // 5
				"https://www.mom.gov.sg/employment-practices",  // 6: same domain as 0
			},
		}
		r := s.post(t, "/api/v1/research", body)
		require.Equal(t, http.StatusCreated, r.StatusCode, string(r.body))
		require.Equal(t, "/api/v1/research/sg/news/2026-01-28", r.Header.Get("Location"))
		res := decode[researchResult](t, r)
		require.Equal(t, sgNews, res.Partition)
		require.Equal(t, 4, res.Accepted)
		require.Equal(t, 1, res.Duplicates)
		require.Equal(t, 3, res.Domains)
		require.Equal(t, map[string]int{"gov": 1, "edu": 1, "media": 1}, res.Authorities, "domains by authority")
		require.Len(t, res.Rejected, 2)
		require.Equal(t, seedengine.URLFailure{Index: 2, URL: "ftp://files.example.com/list.txt", Reason: "unsupported_scheme"}, res.Rejected[0])
		require.Equal(t, seedengine.URLFailure{Index: 3, URL: "", Reason: "empty"}, res.Rejected[1])
		require.NotNil(t, res.Chunk)
		require.Equal(t, "raw/country=sg/category=news/date=2026-01-28/raw_0001.json", res.Chunk.Key)
		require.Equal(t, 4, res.Chunk.Records)

		// The chunk is a valid dataset of the partition, readable through
		// the datasets API.
		ds := s.chunkRecords(t, sgNews, 1)
		require.Equal(t, "SG", ds.Meta.Country)
		require.Equal(t, "sg-news-2026-01-28-0001", ds.Meta.DatasetID)
		require.Equal(t, []string{"search"}, ds.Meta.ResearchMethods)
		require.Equal(t, []string{"singapore ministry newsroom"}, ds.Meta.Queries)
		require.Equal(t, "seedengine", ds.Meta.Engine.Name)
		require.Equal(t, 4, ds.Meta.RecordCount)
		require.Len(t, ds.Records, 4)
		first := ds.Records[0]
		require.Equal(t, "HTTPS://WWW.MOM.GOV.SG/newsroom?utm_source=x", first.RawURL)
		require.Equal(t, "https://www.mom.gov.sg/newsroom", first.NormalizedURL)
		require.Equal(t, "mom.gov.sg", first.NormalizedDomain)
		require.Equal(t, "gov:sg:mom.gov.sg", first.DomainID)
		require.Equal(t, seedengine.AuthorityGov, first.Authority)
		require.NotEmpty(t, first.AuthorityRule)
		require.Equal(t, "government", first.SourceType)
		require.Equal(t, research.ConfidenceInstitutional, first.Confidence)
		require.Equal(t, "https://www.nus.edu.sg/news", ds.Records[2].NormalizedURL)
		require.Equal(t, research.ConfidenceOther, ds.Records[1].Confidence, "a news site is not an institution")

		// Posting the same list again writes a second chunk but registers
		// every domain once.
		r = s.post(t, "/api/v1/research", body)
		require.Equal(t, http.StatusCreated, r.StatusCode, string(r.body))
		require.Equal(t, "raw/country=sg/category=news/date=2026-01-28/raw_0002.json", decode[researchResult](t, r).Chunk.Key)

		var domains struct {
			Items []seedengine.Domain `json:"items"`
			Total int                 `json:"total"`
		}
		s.get(t, "/api/v1/domains?country=sg", &domains)
		require.Equal(t, 3, domains.Total)
		ids := []string{}
		for _, d := range domains.Items {
			ids = append(ids, d.ID)
			require.Equal(t, 1, d.PartitionCount, d.ID)
		}
		require.Equal(t, []string{"edu:sg:nus.edu.sg", "gov:sg:mom.gov.sg", "media:sg:straitstimes.com"}, ids)
	})
}

func TestResearchCreateRecordsKeepsExtras(t *testing.T) {
	t.Parallel()
	s := newStack(t, sqlstoretest.OpenSQLite(t))
	r := s.post(t, "/api/v1/research", map[string]any{
		"country":  "sg",
		"category": "policy",
		"date":     "2026-01-28",
		"records": []map[string]any{
			{
				"raw_url":          "https://www.mas.gov.sg/regulation",
				"discovery_method": "sitemap",
				"confidence":       0.75,
				"content_hints":    []string{"policy", "regulation"},
				"rank":             3,
				"source":           map[string]any{"engine": "example", "page": 2},
				"domain_id":        "com:sg:forged.example", // computed fields are ignored
			},
			{"raw_url": "https://example.com/about", "notes": "no hints"},
			{"raw_url": "mailto:someone@example.com"},
		},
	})
	require.Equal(t, http.StatusCreated, r.StatusCode, string(r.body))
	res := decode[researchResult](t, r)
	require.Equal(t, 2, res.Accepted)
	require.Equal(t, []seedengine.URLFailure{{Index: 2, URL: "mailto:someone@example.com", Reason: "unsupported_scheme"}}, res.Rejected)

	p := seedengine.Partition{Country: "sg", Category: "policy", Date: "2026-01-28"}
	ds := s.chunkRecords(t, p, 1)
	require.Len(t, ds.Records, 2)
	rec := ds.Records[0]
	require.Equal(t, "gov:sg:mas.gov.sg", rec.DomainID)
	require.Equal(t, "sitemap", rec.DiscoveryMethod)
	require.Equal(t, 0.75, rec.Confidence)
	require.Equal(t, []string{"policy", "regulation"}, rec.ContentHints)
	require.JSONEq(t, `3`, string(rec.Extra["rank"]))
	require.JSONEq(t, `{"engine":"example","page":2}`, string(rec.Extra["source"]))
	require.NotContains(t, rec.Extra, "domain_id")
	require.JSONEq(t, `"no hints"`, string(ds.Records[1].Extra["notes"]))
	require.Equal(t, research.ConfidenceOther, ds.Records[1].Confidence)

	// The extra fields are in the stored bytes, not only in the decoder.
	rc, _, err := s.datasets.OpenChunk(t.Context(), p, 1)
	require.NoError(t, err)
	raw, err := io.ReadAll(rc)
	require.NoError(t, rc.Close())
	require.NoError(t, err)
	require.Contains(t, string(raw), `"rank":3`)
}

func TestResearchCreateValidation(t *testing.T) {
	t.Parallel()
	s := newStack(t, sqlstoretest.OpenSQLite(t))
	many := make([]string, 10001)
	for i := range many {
		many[i] = fmt.Sprintf("https://example%d.com/", i)
	}
	base := func(kv ...any) map[string]any {
		m := map[string]any{"country": "sg", "category": "news", "date": "2026-01-28"}
		for i := 0; i < len(kv); i += 2 {
			if kv[i+1] == nil {
				delete(m, kv[i].(string))
				continue
			}
			m[kv[i].(string)] = kv[i+1]
		}
		return m
	}
	urls := []string{"https://example.com/"}
	tests := []struct {
		name string
		body map[string]any
		loc  string
	}{
		{"neither urls nor records", base(), "body.urls"},
		{"both urls and records", base("urls", urls, "records", []map[string]any{{"raw_url": "https://example.com/"}}), "body.records"},
		{"empty urls", base("urls", []string{}), "body.urls"},
		{"too many urls", base("urls", many), "body.urls"},
		{"record without raw_url", base("records", []map[string]any{{"confidence": 0.5}}), "body.records[0].raw_url"},
		{"confidence above 1", base("records", []map[string]any{{"raw_url": "https://example.com/", "confidence": 1.5}}), "body.records[0].confidence"},
		{"unknown country", base("urls", urls, "country", "zz"), "body.country"},
		{"missing country", base("urls", urls, "country", nil), "body.country"},
		{"bad category", base("urls", urls, "category", "News!"), "body.category"},
		{"not a date", base("urls", urls, "date", "2026-02-30"), "body.date"},
		{"url over 8192 bytes", base("urls", []string{"https://example.com/" + strings.Repeat("a", 8192)}), "body.urls[0]"},
		{"research method over 200 bytes", base("urls", urls, "research_methods", []string{strings.Repeat("m", 201)}), "body.research_methods[0]"},
		{"more than 20 research methods", base("urls", urls, "research_methods", slices.Repeat([]string{"search"}, 21)), "body.research_methods"},
		{"query over 200 bytes", base("urls", urls, "queries", []string{strings.Repeat("q", 201)}), "body.queries[0]"},
		{"more than 50 queries", base("urls", urls, "queries", slices.Repeat([]string{"q"}, 51)), "body.queries"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := s.post(t, "/api/v1/research", tt.body).problem(t, http.StatusUnprocessableEntity, "invalid")
			require.Contains(t, locations(p), tt.loc, "%+v", p)
			require.NotContains(t, fmt.Sprint(p), "example9999.com", "input values are never echoed")
		})
	}
	require.Empty(t, s.rawKeys(t), "no invalid request writes anything")
}

func TestResearchNothingAccepted(t *testing.T) {
	t.Parallel()
	s := newStack(t, sqlstoretest.OpenSQLite(t))
	r := s.post(t, "/api/v1/research", map[string]any{
		"country": "sg", "category": "news", "date": "2026-01-28",
		"urls": []string{"ftp://example.com/", "   "},
	})
	require.Equal(t, http.StatusOK, r.StatusCode, "nothing was created: "+string(r.body))
	require.Empty(t, r.Header.Get("Location"))
	res := decode[researchResult](t, r)
	require.Nil(t, res.Chunk)
	require.Zero(t, res.Accepted)
	require.Len(t, res.Rejected, 2)
	require.Empty(t, s.rawKeys(t))
	s.do(t, request{path: "/api/v1/research/sg/news/2026-01-28"}).problem(t, http.StatusNotFound, "not_found")
}

// The OpenAPI document gives POST /api/v1/research both its successes:
// 201 with a chunk, 200 when nothing was accepted.
func TestResearchCreateStatusesInOpenAPI(t *testing.T) {
	t.Parallel()
	e := setup(t)
	r := e.do(t, request{path: "/openapi.json"})
	var doc struct {
		Paths map[string]map[string]struct {
			Responses map[string]struct {
				Description string         `json:"description"`
				Content     map[string]any `json:"content"`
			} `json:"responses"`
		} `json:"paths"`
	}
	require.NoError(t, json.Unmarshal(r.body, &doc))
	create := doc.Paths["/api/v1/research"]["post"]
	for _, status := range []string{"200", "201"} {
		require.Contains(t, create.Responses, status)
		require.Contains(t, create.Responses[status].Content, "application/json", status)
	}
	require.Contains(t, create.Responses["200"].Description, "Nothing was accepted")
}

func TestResearchDateDefaultsToTodayUTC(t *testing.T) {
	t.Parallel()
	s := newStack(t, sqlstoretest.OpenSQLite(t))
	before := time.Now().UTC().Format(seedengine.DateLayout)
	r := s.post(t, "/api/v1/research", map[string]any{"country": "jp", "category": "news", "urls": []string{"https://www.mhlw.go.jp/"}})
	after := time.Now().UTC().Format(seedengine.DateLayout)
	require.Equal(t, http.StatusCreated, r.StatusCode, string(r.body))
	date := decode[researchResult](t, r).Date
	require.Contains(t, []string{before, after}, date)
}

func TestResearchReads(t *testing.T) {
	t.Parallel()
	sqlstoretest.Engines(t, func(t *testing.T, db *sqlstore.DB) {
		s := newStack(t, db)
		for _, w := range []struct {
			country, category, date string
			urls                    []string
		}{
			{"sg", "news", "2026-01-27", []string{"https://www.mom.gov.sg/", "https://www.straitstimes.com/"}},
			{"sg", "news", "2026-01-28", []string{"https://www.mom.gov.sg/a", "https://www.moh.gov.sg/", "https://www.nus.edu.sg/", "https://www.who.int/news"}},
			{"sg", "news", "2026-01-28", []string{"https://www.mom.gov.sg/b"}},
			{"sg", "policy", "2026-01-28", []string{"https://www.mas.gov.sg/"}},
			{"jp", "news", "2026-01-28", []string{"https://www.mhlw.go.jp/", "https://www.nhk.or.jp/"}},
		} {
			r := s.post(t, "/api/v1/research", map[string]any{"country": w.country, "category": w.category, "date": w.date, "urls": w.urls})
			require.Equal(t, http.StatusCreated, r.StatusCode, string(r.body))
		}

		type list struct {
			Items  []seedengine.PartitionSummary `json:"items"`
			Total  int                           `json:"total"`
			Limit  int                           `json:"limit"`
			Offset int                           `json:"offset"`
		}
		var l list
		s.get(t, "/api/v1/research", &l)
		require.Equal(t, 4, l.Total)
		require.Equal(t, 50, l.Limit)
		require.Len(t, l.Items, 4)

		s.get(t, "/api/v1/research?country=SG&category=news", &l)
		require.Equal(t, 2, l.Total)
		s.get(t, "/api/v1/research?country=sg&date_from=2026-01-28&date_to=2026-01-28&limit=1&offset=1", &l)
		require.Equal(t, 2, l.Total)
		require.Len(t, l.Items, 1)
		require.Equal(t, 1, l.Offset)
		s.get(t, "/api/v1/research?country=sg&category=news&date_from=2026-01-28", &l)
		require.Len(t, l.Items, 1)
		got := l.Items[0]
		require.Equal(t, seedengine.PartitionSummary{Partition: sgNews, Chunks: 2, Records: 5, Bytes: got.Bytes, Domains: 4}, got)
		require.Positive(t, got.Bytes)

		var idx seedengine.ResearchIndex
		s.get(t, "/api/v1/research/index", &idx)
		require.Equal(t, 4, idx.Totals.Partitions)
		require.Equal(t, 5, idx.Totals.Chunks)
		require.Equal(t, 10, idx.Totals.Records)
		require.Len(t, idx.Countries["sg"]["news"], 2)
		require.Equal(t, "2026-01-27", idx.Countries["sg"]["news"][0].Date)
		require.Equal(t, 4, idx.Countries["sg"]["news"][1].Domains)
		require.Len(t, idx.Countries["jp"]["news"], 1)

		var rp seedengine.ResearchPartition
		s.get(t, "/api/v1/research/SG/news/2026-01-28?domain_limit=2&domain_offset=1", &rp)
		require.Equal(t, sgNews, rp.Partition)
		require.Equal(t, 2, rp.Chunks)
		require.Equal(t, 5, rp.Records)
		require.Equal(t, 4, rp.DomainTotal)
		require.Len(t, rp.ChunkList, 2)
		require.Equal(t, "raw_0002", rp.ChunkList[1].Name)
		require.Equal(t, map[seedengine.Authority]int{"gov": 2, "edu": 1, "ngo": 1}, rp.Authorities)
		require.Equal(t, 4, rp.Domains, "the count is serialised as domains")
		require.Len(t, rp.DomainList, 2)
		// domain_id order: edu:sg:nus.edu.sg, gov:sg:moh.gov.sg, gov:sg:mom.gov.sg, ngo:intl:who.int
		require.Equal(t, "gov:sg:moh.gov.sg", rp.DomainList[0].ID)
		require.Equal(t, "gov:sg:mom.gov.sg", rp.DomainList[1].ID)
		var raw map[string]any
		s.get(t, "/api/v1/research/sg/news/2026-01-28?domain_limit=2", &raw)
		require.EqualValues(t, 4, raw["domains"])
		require.EqualValues(t, 4, raw["domain_total"])
		require.Len(t, raw["domain_list"], 2)

		s.do(t, request{path: "/api/v1/research/sg/news/2026-01-29"}).problem(t, http.StatusNotFound, "not_found")
		p := s.do(t, request{path: "/api/v1/research/zz/news/2026-01-28"}).problem(t, http.StatusUnprocessableEntity, "invalid")
		require.Equal(t, []string{"path.country"}, locations(p))
		p = s.do(t, request{path: "/api/v1/research/sg/news/2026-13-01"}).problem(t, http.StatusUnprocessableEntity, "invalid")
		require.Equal(t, []string{"path.date"}, locations(p))
		p = s.do(t, request{path: "/api/v1/research?country=zz"}).problem(t, http.StatusUnprocessableEntity, "invalid")
		require.Equal(t, []string{"query.country"}, locations(p))
		p = s.do(t, request{path: "/api/v1/research?date_to=yesterday"}).problem(t, http.StatusUnprocessableEntity, "invalid")
		require.Len(t, p.Errors, 1)
		require.True(t, strings.HasPrefix(p.Errors[0].Location, "query.date_to"), "%+v", p)
		// The one partition-filter validation (PartitionFilter.Validate).
		p = s.do(t, request{path: "/api/v1/research?date_from=2026-01-29&date_to=2026-01-28"}).problem(t, http.StatusUnprocessableEntity, "invalid")
		require.Equal(t, []string{"query.date_to"}, locations(p))
	})
}
