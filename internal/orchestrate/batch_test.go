package orchestrate_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/blobstore"
	"github.com/seedengine/seedengine/internal/discover"
	"github.com/seedengine/seedengine/internal/layout"
	"github.com/seedengine/seedengine/internal/orchestrate"
	"github.com/seedengine/seedengine/internal/simweb"
	"github.com/seedengine/seedengine/internal/simweb/simwebtest"
)

// processorFile is rawKey's content: two domains, a duplicate of the
// first and a record no domain comes from.
var processorFile = dataset(
	rec("https://www.mom.gov.sg/newsroom", "gov:sg:mom.gov.sg"),
	rec("HTTPS://WWW.MOM.GOV.SG/x", ""),
	rec("https://news.example.com/a", ""),
	rec("mailto:someone@gov.sg", ""),
)

// readCountingStore counts the files opened through it.
type readCountingStore struct {
	*blobstore.Store
	reads atomic.Int64
}

func (s *readCountingStore) NewReader(ctx context.Context, key string) (io.ReadCloser, int64, error) {
	s.reads.Add(1)
	return s.Store.NewReader(ctx, key)
}

type processorFixture struct {
	store *readCountingStore
	logs  *lockedBuffer
	log   *slog.Logger
	proc  func(context.Context, *seedengine.Batch, *seedengine.BatchChunk) (seedengine.ChunkOutcome, error)
}

// setupProcessor returns the chunk processor over an in-memory store
// holding processorFile at rawKey, logging JSON into a buffer; collector
// may be nil for tests of the file step.
func setupProcessor(t *testing.T, collector *orchestrate.Collector) *processorFixture {
	t.Helper()
	blobs, err := blobstore.Open(t.Context(), "mem://")
	require.NoError(t, err)
	t.Cleanup(func() { _ = blobs.Close() })
	_, err = blobs.Put(t.Context(), rawKey, strings.NewReader(processorFile), "application/json")
	require.NoError(t, err)
	fx := &processorFixture{store: &readCountingStore{Store: blobs}, logs: &lockedBuffer{}}
	fx.log = slog.New(slog.NewJSONHandler(fx.logs, nil))
	fx.proc = orchestrate.ChunkProcessor(fx.store, discover.DefaultClassifier(), collector, fx.log)
	return fx
}

func (fx *processorFixture) exists(t *testing.T, key string) bool {
	t.Helper()
	ok, err := fx.store.Exists(t.Context(), key)
	require.NoError(t, err)
	return ok
}

// events returns the log lines, decoded, whose event is name.
func (fx *processorFixture) events(t *testing.T, name string) []map[string]any {
	t.Helper()
	var found []map[string]any
	sc := bufio.NewScanner(strings.NewReader(fx.logs.String()))
	for sc.Scan() {
		var m map[string]any
		require.NoError(t, json.Unmarshal(sc.Bytes(), &m), sc.Text())
		if m["event"] == name {
			found = append(found, m)
		}
	}
	require.NoError(t, sc.Err())
	return found
}

// event returns the one log line whose event is name, checking that it
// carries the partition.
func (fx *processorFixture) event(t *testing.T, name string) map[string]any {
	t.Helper()
	found := fx.events(t, name)
	require.Len(t, found, 1, "%s in:\n%s", name, fx.logs.String())
	require.Equal(t, map[string]any{"country": "sg", "category": "news", "date": "2026-01-28"}, found[0]["partition"], name)
	return found[0]
}

func orchestrationBatch(t *testing.T, force bool) *seedengine.Batch {
	t.Helper()
	params, err := json.Marshal(seedengine.OrchestrationBatchParams{Date: testPartition.Date, Force: force})
	require.NoError(t, err)
	return &seedengine.Batch{ID: "b-1", Kind: seedengine.BatchOrchestration, Country: "sg", Category: "news", ChunkSize: 1, Params: params}
}

// fileChunk is a file chunk as the orchestrate handler queues it.
func fileChunk(t *testing.T, key string, n int) *seedengine.BatchChunk {
	t.Helper()
	input, err := json.Marshal(map[string]any{"key": key, "chunk": n})
	require.NoError(t, err)
	return &seedengine.BatchChunk{BatchID: "b-1", Index: 0, Step: seedengine.StepFile, Key: key, Input: input, Items: 1}
}

func domainInput(t *testing.T, domainID, domain string) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(orchestrate.DomainInput{DomainID: domainID, Domain: domain, RawFileKey: rawKey})
	require.NoError(t, err)
	return b
}

func rawCheckpoint(t *testing.T, n int) string {
	t.Helper()
	k, err := layout.RawCheckpointKey(testPartition, n)
	require.NoError(t, err)
	return k
}

func TestChunkProcessorFile(t *testing.T) {
	t.Parallel()
	fx := setupProcessor(t, nil)

	out, err := fx.proc(t.Context(), orchestrationBatch(t, false), fileChunk(t, rawKey, 1))
	require.NoError(t, err)
	require.Equal(t, 1, out.Succeeded)
	require.Zero(t, out.Failed)
	var res orchestrate.FileResult
	require.NoError(t, json.Unmarshal(out.Result, &res))
	require.Equal(t, orchestrate.FileResult{
		Files:            orchestrate.FileCounts{Processed: 1},
		Records:          4,
		BadRecords:       1,
		BadReasons:       map[string]int{discover.ReasonUnsupportedScheme: 1},
		DuplicateRecords: 1,
		DomainsExtracted: 2,
	}, res)
	require.Equal(t, []*seedengine.BatchChunk{
		{Step: seedengine.StepDomain, Key: "mom.gov.sg", Input: domainInput(t, "gov:sg:mom.gov.sg", "mom.gov.sg"), Items: 1},
		{Step: seedengine.StepDomain, Key: "example.com", Input: domainInput(t, "com:sg:example.com", "example.com"), Items: 1},
	}, out.Spawn)

	// The checkpoint comes only after the outcome is committed.
	require.NotNil(t, out.AfterCommit)
	require.False(t, fx.exists(t, rawCheckpoint(t, 1)))
	require.Empty(t, fx.events(t, "file_processing_complete"))
	require.NoError(t, out.AfterCommit(t.Context()))
	require.True(t, fx.exists(t, rawCheckpoint(t, 1)))

	start := fx.event(t, "file_processor_start")
	require.Equal(t, "b-1", start["batch_id"])
	require.Equal(t, rawKey, start["key"])
	require.Equal(t, false, start["force"])
	extracted := fx.event(t, "domains_extracted")
	require.Equal(t, rawKey, extracted["key"])
	for k, want := range map[string]float64{"records": 4, "bad_records": 1, "duplicates": 1, "domains": 2} {
		require.Equal(t, want, extracted[k], k)
	}
	done := fx.event(t, "file_processing_complete")
	require.Equal(t, float64(2), done["domains"])
	require.Contains(t, done, "duration_ms")
	require.NotContains(t, done, "skipped")
}

func TestChunkProcessorFileCheckpointed(t *testing.T) {
	t.Parallel()
	t.Run("skipped", func(t *testing.T) {
		t.Parallel()
		fx := setupProcessor(t, nil)
		_, err := fx.store.Put(t.Context(), rawCheckpoint(t, 1), bytes.NewReader(nil), "application/octet-stream")
		require.NoError(t, err)

		out, err := fx.proc(t.Context(), orchestrationBatch(t, false), fileChunk(t, rawKey, 1))
		require.NoError(t, err)
		require.Equal(t, 1, out.Succeeded)
		var res orchestrate.FileResult
		require.NoError(t, json.Unmarshal(out.Result, &res))
		require.Equal(t, orchestrate.FileResult{Files: orchestrate.FileCounts{Skipped: 1}}, res)
		require.Empty(t, out.Spawn)
		require.Nil(t, out.AfterCommit)
		require.Zero(t, fx.store.reads.Load(), "the file is not read")

		fx.event(t, "file_processor_start")
		require.Empty(t, fx.events(t, "domains_extracted"))
		done := fx.event(t, "file_processing_complete")
		require.Equal(t, true, done["skipped"])
	})
	t.Run("forced", func(t *testing.T) {
		t.Parallel()
		fx := setupProcessor(t, nil)
		_, err := fx.store.Put(t.Context(), rawCheckpoint(t, 1), bytes.NewReader(nil), "application/octet-stream")
		require.NoError(t, err)

		out, err := fx.proc(t.Context(), orchestrationBatch(t, true), fileChunk(t, rawKey, 1))
		require.NoError(t, err)
		var res orchestrate.FileResult
		require.NoError(t, json.Unmarshal(out.Result, &res))
		require.Equal(t, orchestrate.FileCounts{Processed: 1}, res.Files)
		require.Len(t, out.Spawn, 2)
		require.Equal(t, int64(1), fx.store.reads.Load())
		require.NotNil(t, out.AfterCommit)
		require.NoError(t, out.AfterCommit(t.Context()))
		require.True(t, fx.exists(t, rawCheckpoint(t, 1)))
		require.Equal(t, true, fx.event(t, "file_processor_start")["force"])
	})
}

func TestChunkProcessorFileMalformed(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, content, field string
	}{
		{"truncated", `{"meta":{"country":"SG","category":"news","date":"2026-01-28"},"records":[{"raw_url":`, "records"},
		{"another partition", strings.Replace(processorFile, `"country":"SG"`, `"country":"MY"`, 1), "meta.country"},
		{"record count", strings.Replace(processorFile, `"record_count":4`, `"record_count":5`, 1), "meta.record_count"},
		{"no records", dataset(), "records"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			fx := setupProcessor(t, nil)
			key, err := layout.RawChunkKey(testPartition, 2)
			require.NoError(t, err)
			_, err = fx.store.Put(t.Context(), key, strings.NewReader(tt.content), "application/json")
			require.NoError(t, err)

			out, err := fx.proc(t.Context(), orchestrationBatch(t, false), fileChunk(t, key, 2))
			require.Error(t, err)
			require.NotEqual(t, seedengine.EINVALID, seedengine.ErrorCode(err), "a malformed file is retried, not cancelled")
			require.Contains(t, err.Error(), "malformed raw file "+key+": ")
			require.Contains(t, err.Error(), tt.field)
			require.Empty(t, out.Spawn)
			require.Nil(t, out.AfterCommit)
			require.False(t, fx.exists(t, rawCheckpoint(t, 2)))
			require.Empty(t, fx.events(t, "file_processing_complete"))
		})
	}
}

func TestChunkProcessorFileMissing(t *testing.T) {
	t.Parallel()
	fx := setupProcessor(t, nil)
	key, err := layout.RawChunkKey(testPartition, 3)
	require.NoError(t, err)
	_, err = fx.proc(t.Context(), orchestrationBatch(t, false), fileChunk(t, key, 3))
	require.Error(t, err)
	require.NotEqual(t, seedengine.EINVALID, seedengine.ErrorCode(err), "a missing file is retried: it may be on its way")
	require.Contains(t, err.Error(), "open "+key)
}

func TestChunkProcessorInvalid(t *testing.T) {
	t.Parallel()
	fx := setupProcessor(t, nil)
	good := orchestrationBatch(t, false)
	tests := []struct {
		name  string
		batch func(b *seedengine.Batch)
		chunk func(c *seedengine.BatchChunk)
		want  string
	}{
		{name: "unknown step", chunk: func(c *seedengine.BatchChunk) { c.Step = "sitemap" }, want: `unknown step "sitemap"`},
		{name: "no step", chunk: func(c *seedengine.BatchChunk) { c.Step = "" }, want: `unknown step ""`},
		{name: "params not json", batch: func(b *seedengine.Batch) { b.Params = json.RawMessage(`[1]`) }, want: "params"},
		{name: "bad date", batch: func(b *seedengine.Batch) { b.Params = json.RawMessage(`{"date":"2026-02-30"}`) }, want: "date"},
		{name: "bad country", batch: func(b *seedengine.Batch) { b.Country = "xx" }, want: "country"},
		{name: "file input", chunk: func(c *seedengine.BatchChunk) { c.Input = json.RawMessage(`"raw_0001.json"`) }, want: "input"},
		{name: "domain input", chunk: func(c *seedengine.BatchChunk) {
			c.Step, c.Input = seedengine.StepDomain, json.RawMessage(`["mom.gov.sg"]`)
		}, want: "input is not a domain"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := *good
			c := fileChunk(t, rawKey, 1)
			if tt.batch != nil {
				tt.batch(&b)
			}
			if tt.chunk != nil {
				tt.chunk(c)
			}
			_, err := fx.proc(t.Context(), &b, c)
			require.Error(t, err)
			require.Equal(t, seedengine.EINVALID, seedengine.ErrorCode(err), "%v", err)
			require.Contains(t, err.Error(), tt.want)
		})
	}
}

func TestChunkProcessorDomain(t *testing.T) {
	t.Parallel()
	const host = "alpha-site.gov.sg"
	// A news site, so that the result counts a news sitemap too.
	_, client := simwebtest.Client(t, []simweb.Site{{Host: host, Layout: simweb.LayoutNews}}, 5*time.Second)
	fx := setupProcessor(t, nil)
	collector := orchestrate.NewCollector(client, fx.store, orchestrate.CollectorConfig{}, fx.log)
	proc := orchestrate.ChunkProcessor(fx.store, nil, collector, fx.log)
	chunk := &seedengine.BatchChunk{BatchID: "b-1", Index: 1, Step: seedengine.StepDomain, Key: host,
		Input: domainInput(t, "gov:sg:"+host, host), Items: 1}

	out, err := proc(t.Context(), orchestrationBatch(t, false), chunk)
	require.NoError(t, err)
	require.Equal(t, 1, out.Succeeded)
	require.Empty(t, out.Spawn)
	require.Nil(t, out.AfterCommit)
	var res orchestrate.DomainResult
	require.NoError(t, json.Unmarshal(out.Result, &res))
	require.Equal(t, orchestrate.DomainCounts{Collected: 1}, res.Domains)
	require.Equal(t, map[string]int{"parsed": 1}, res.Robots)
	require.Equal(t, 1, res.Sitemaps.Found)
	require.Positive(t, res.Sitemaps.URLs)
	require.Equal(t, 1, res.Sitemaps.NewsFound)
	success, err := layout.ProdDomainFileKey(testPartition, host, layout.FileDomainMetadataSuccess)
	require.NoError(t, err)
	require.True(t, fx.exists(t, success))

	for _, name := range []string{"domain_collector_start", "robots_fetched", "news_sitemap_searched", "sitemap_fetched", "domain_collector_complete"} {
		require.Equal(t, host, fx.event(t, name)["domain"], name)
	}
	require.Equal(t, float64(200), fx.event(t, "robots_fetched")["status_code"])
	require.Equal(t, true, fx.event(t, "sitemap_fetched")["exists"])
	require.Equal(t, orchestrate.SearchFound, fx.event(t, "news_sitemap_searched")["outcome"])
	require.Equal(t, false, fx.event(t, "domain_collector_complete")["skipped"])

	// Collected: the next run, from another file, is skipped.
	out, err = proc(t.Context(), orchestrationBatch(t, false), chunk)
	require.NoError(t, err)
	require.Equal(t, 1, out.Succeeded)
	res = orchestrate.DomainResult{}
	require.NoError(t, json.Unmarshal(out.Result, &res))
	require.Equal(t, orchestrate.DomainResult{Domains: orchestrate.DomainCounts{Skipped: 1}}, res)

	// Forced: collected again.
	out, err = proc(t.Context(), orchestrationBatch(t, true), chunk)
	require.NoError(t, err)
	res = orchestrate.DomainResult{}
	require.NoError(t, json.Unmarshal(out.Result, &res))
	require.Equal(t, orchestrate.DomainCounts{Collected: 1}, res.Domains)
}
