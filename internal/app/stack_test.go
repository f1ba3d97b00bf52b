package app_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/app"
	"github.com/seedengine/seedengine/internal/blobstore"
	"github.com/seedengine/seedengine/internal/contract"
	"github.com/seedengine/seedengine/internal/dataset"
	"github.com/seedengine/seedengine/internal/harvest"
	"github.com/seedengine/seedengine/internal/httpapi"
	"github.com/seedengine/seedengine/internal/httpapi/httpapitest"
	"github.com/seedengine/seedengine/internal/jobs"
	"github.com/seedengine/seedengine/internal/layout"
	"github.com/seedengine/seedengine/internal/liveness"
	"github.com/seedengine/seedengine/internal/metasync"
	"github.com/seedengine/seedengine/internal/orchestrate"
	"github.com/seedengine/seedengine/internal/pages"
	"github.com/seedengine/seedengine/internal/research"
	"github.com/seedengine/seedengine/internal/seedcheck"
	"github.com/seedengine/seedengine/internal/sqlstore"
)

// stack is the API on the real services: SQL store, object store in
// memory, dataset, domain and research services, and a real queue.
type stack struct {
	ts       *httptest.Server
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
	// items are the harvested items; itemFiles writes their files.
	items     *sqlstore.ItemService
	itemFiles *harvest.Flusher
	// app is the application under the API (its page fetcher, say).
	app *app.App
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
	harvest    *harvestOpts
	pages      *pages.Config // fetch items' pages with the harvest's fetcher
}

// withPages fetches the pages of seeds with harvest.pages into WARC files
// spooled under c.Dir (with the harvest's fetcher).
func withPages(c pages.Config) stackOption { return func(s *stackConfig) { s.pages = &c } }

// harvestOpts wires seed checks, and with them the harvest, through a
// fetcher (the simulated web's client).
type harvestOpts struct {
	fetch    seedcheck.Fetcher
	checks   seedcheck.Config
	interval time.Duration
	items    harvest.FlushConfig
}

// withHarvest checks active seeds, harvesting their items.
func withHarvest(h harvestOpts) stackOption { return func(c *stackConfig) { c.harvest = &h } }

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

func newStack(t testing.TB, db *sqlstore.DB, opts ...stackOption) *stack {
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
	if h := cfg.harvest; h != nil {
		ac.SeedCheck, ac.SeedChecks, ac.SeedCheckInterval, ac.Items = h.fetch, h.checks, h.interval, h.items
		if cfg.pages != nil {
			ac.PageFetch, ac.Pages = h.fetch.(pages.Fetch), *cfg.pages
		}
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
		liveness: a.Liveness, seeds: a.Seeds, queue: a.Queue, items: a.Items, itemFiles: a.ItemFiles, app: a}
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
	deps := a.Deps()
	if !cfg.startQueue {
		// A queue that was not started is not ready: readiness here is
		// the stores'.
		delete(deps.Checks, "queue")
	}
	if s.metadata == nil {
		// Without a metadata option the stack serves no metadata.
		deps.Metadata, deps.MetadataSync = nil, nil
	}
	srv := httpapi.New(httpapi.Config{
		Logger:      slog.New(slog.DiscardHandler),
		Version:     "test",
		Environment: "test",
		Categories:  []string{"news", "policy"},
		RateLimit:   -1, // the tests are not about the limit
	}, deps)
	s.ts = httptest.NewServer(srv.Handler())
	t.Cleanup(s.ts.Close)
	return s
}

// request and response are the API's test client (httpapitest).
type (
	request  = httpapitest.Request
	response = httpapitest.Response
)

// do sends r to the stack's API.
func (s *stack) do(t testing.TB, r request) response {
	t.Helper()
	return httpapitest.Do(t, s.ts, r)
}

// post sends a JSON body to path on the open API.
func (s *stack) post(t testing.TB, path string, body any) response {
	t.Helper()
	return s.do(t, request{Method: http.MethodPost, Path: path, Body: body})
}

// get fetches path and decodes its JSON body into v.
func (s *stack) get(t testing.TB, path string, v any) response {
	t.Helper()
	r := s.do(t, request{Path: path})
	if r.StatusCode == http.StatusOK && v != nil {
		require.NoError(t, json.Unmarshal(r.Body, v), string(r.Body))
	}
	return r
}

// chunkRecords reads a stored chunk through the datasets API.
func (s *stack) chunkRecords(t *testing.T, p seedengine.Partition, n int) seedengine.Dataset {
	t.Helper()
	r := s.do(t, request{Path: fmt.Sprintf("/api/v1/datasets/%s/%s/%s/raw_%04d", p.Country, p.Category, p.Date, n)})
	require.Equal(t, http.StatusOK, r.StatusCode, string(r.Body))
	var ds seedengine.Dataset
	require.NoError(t, json.Unmarshal(r.Body, &ds), string(r.Body))
	return ds
}

// rawKeys lists the raw chunk files of the store.
func (s *stack) rawKeys(t *testing.T) []string {
	t.Helper()
	var keys []string
	require.NoError(t, s.blobs.List(t.Context(), layout.RawRoot, func(o blobstore.Object) error {
		if k, err := layout.ParseKey(o.Key); err == nil && k.Kind == layout.KindRawChunk {
			keys = append(keys, o.Key)
		}
		return nil
	}))
	return keys
}
