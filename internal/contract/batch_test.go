package contract_test

import (
	"context"
	"encoding/json"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/blobstore"
	"github.com/seedengine/seedengine/internal/contract"
	"github.com/seedengine/seedengine/internal/layout"
	"github.com/seedengine/seedengine/internal/sqlstore"
	"github.com/seedengine/seedengine/internal/sqlstore/sqlstoretest"
)

// stubRunner returns prepared evidence per domain.
type stubRunner map[string]*contract.Evidence

func (s stubRunner) Discover(_ context.Context, domainID, domain string) *contract.Evidence {
	ev := s[domain]
	ev.DomainID, ev.Domain = domainID, domain
	return ev
}

func evidence(entry string, crawlDelay float64) *contract.Evidence {
	now := time.Date(2026, 1, 28, 3, 0, 0, 0, time.UTC)
	return &contract.Evidence{
		StartedAt: now, FinishedAt: now, Outcome: contract.OutcomeSeeded,
		Robots:    contract.RobotsEvidence{URL: "https://x/robots.txt", Result: "parsed", CrawlDelay: crawlDelay, HomeAllowed: true},
		Decisions: []contract.Decision{{ContentType: "news", FetchType: seedengine.FetchRSS, EntryURL: entry, Schedule: "@hourly", Confidence: 0.9, CrawlAllowed: true}},
	}
}

// TestChunkProcessorSkipsWhatCannotBeASeed: what a site publishes cannot
// fail a whole chunk. An absurd Crawl-delay is capped at a day; an entry
// URL no seed can hold skips that domain's seed, and the chunk goes on.
func TestChunkProcessorSkipsWhatCannotBeASeed(t *testing.T) {
	t.Parallel()
	db := sqlstoretest.OpenSQLite(t)
	seeds := sqlstore.NewSeedService(db)
	blobs, err := blobstore.Open(t.Context(), "mem://")
	require.NoError(t, err)
	t.Cleanup(func() { _ = blobs.Close() })
	runner := stubRunner{
		"slow-site.gov.sg": evidence("https://slow-site.gov.sg/feed/", 100000),
		"long-site.gov.sg": evidence("https://long-site.gov.sg/"+strings.Repeat("a", 3000), 0),
		"fine-site.gov.sg": evidence("https://fine-site.gov.sg/feed/", 0),
	}
	proc := contract.ChunkProcessor(runner, seeds, blobs)
	input, err := json.Marshal(contract.ChunkInput{DomainIDs: []string{"gov:sg:slow-site.gov.sg", "gov:sg:long-site.gov.sg", "gov:sg:fine-site.gov.sg"}})
	require.NoError(t, err)
	out, err := proc(t.Context(), &seedengine.Batch{ID: "b1", Kind: seedengine.BatchContract, Country: "sg", Category: "news"},
		&seedengine.BatchChunk{BatchID: "b1", Input: input, Items: 3})
	require.NoError(t, err)
	require.Equal(t, 2, out.Succeeded)
	require.Equal(t, 1, out.Failed)
	var res contract.ChunkResult
	require.NoError(t, json.Unmarshal(out.Result, &res))
	require.ElementsMatch(t, []string{"gov:sg:slow-site.gov.sg::news", "gov:sg:fine-site.gov.sg::news"}, res.Created)
	require.Len(t, res.Skipped, 1)
	require.Equal(t, "invalid_contract", res.Skipped[0].Reason)
	require.Contains(t, res.Skipped[0].Detail, "fetch.entry_url")

	slow, err := seeds.FindSeedByID(t.Context(), "gov:sg:slow-site.gov.sg::news")
	require.NoError(t, err)
	require.Equal(t, 86400.0, slow.Policy.CrawlDelay)
}

// runnerFunc is a Runner from a function.
type runnerFunc func(ctx context.Context, domainID, domain string) *contract.Evidence

func (f runnerFunc) Discover(ctx context.Context, domainID, domain string) *contract.Evidence {
	return f(ctx, domainID, domain)
}

// sameSecond runs every domain with fresh evidence started at one fixed
// time, as runs of one batch chunk do within a second.
var sameSecond = runnerFunc(func(_ context.Context, domainID, domain string) *contract.Evidence {
	ev := evidence("https://"+domain+"/feed/", 0)
	ev.DomainID, ev.Domain = domainID, domain
	return ev
})

// conflictingWriter answers ECONFLICT to the first conflicts writes, as a
// store does when the key is taken, and passes the rest on.
type conflictingWriter struct {
	contract.ObjectWriter
	mu        sync.Mutex
	conflicts int
	keys      []string // every key asked for
}

func (w *conflictingWriter) PutIfAbsent(ctx context.Context, key string, r io.Reader, contentType string) (int64, error) {
	w.mu.Lock()
	w.keys = append(w.keys, key)
	conflict := len(w.keys) <= w.conflicts
	w.mu.Unlock()
	if conflict {
		return 0, seedengine.Errorf(seedengine.ECONFLICT, "put-if-absent %s: object exists", key)
	}
	return w.ObjectWriter.PutIfAbsent(ctx, key, r, contentType)
}

// TestChunkProcessorEvidencePerRun: research files one registrable domain
// under several domain_ids (gov:, other:, media:), so a chunk runs it
// several times in the same second. Each run's evidence is an object of
// its own, and each seed points at its run's evidence.
func TestChunkProcessorEvidencePerRun(t *testing.T) {
	t.Parallel()
	db := sqlstoretest.OpenSQLite(t)
	seeds := sqlstore.NewSeedService(db)
	blobs, err := blobstore.Open(t.Context(), "mem://")
	require.NoError(t, err)
	t.Cleanup(func() { _ = blobs.Close() })

	ids := []string{"gov:sg:x.gov.sg", "other:sg:x.gov.sg", "media:sg:x.gov.sg"}
	input, err := json.Marshal(contract.ChunkInput{DomainIDs: ids})
	require.NoError(t, err)
	proc := contract.ChunkProcessor(sameSecond, seeds, blobs)
	out, err := proc(t.Context(), &seedengine.Batch{ID: "b1", Kind: seedengine.BatchContract, Country: "sg", Category: "news"},
		&seedengine.BatchChunk{BatchID: "b1", Input: input, Items: len(ids)})
	require.NoError(t, err)
	require.Equal(t, 3, out.Succeeded)
	var res contract.ChunkResult
	require.NoError(t, json.Unmarshal(out.Result, &res))
	require.Len(t, res.Domains, 3)

	keys := map[string]string{} // evidence key → domain_id
	for _, d := range res.Domains {
		k, err := layout.ParseKey(d.Evidence)
		require.NoError(t, err, d.Evidence)
		require.Equal(t, layout.KindContractEvidence, k.Kind)
		require.Equal(t, "x.gov.sg", k.Domain)
		require.Equal(t, time.Date(2026, 1, 28, 3, 0, 0, 0, time.UTC), k.Time)
		require.NotEmpty(t, k.RunID)
		keys[d.Evidence] = d.DomainID
	}
	require.Len(t, keys, 3, "one evidence key per run")

	var stored []string
	prefix, err := layout.ContractEvidencePrefix("x.gov.sg")
	require.NoError(t, err)
	require.NoError(t, blobs.List(t.Context(), prefix, func(o blobstore.Object) error {
		stored = append(stored, o.Key)
		return nil
	}))
	require.Len(t, stored, 3, "no run's evidence overwrote another's")

	for _, id := range ids {
		s, err := seeds.FindSeedByID(t.Context(), id+"::news")
		require.NoError(t, err)
		require.Equal(t, id, keys[s.Evidence.Key], "seed %s points at its own run's evidence", id)
		rd, _, err := blobs.NewReader(t.Context(), s.Evidence.Key)
		require.NoError(t, err)
		var ev contract.Evidence
		require.NoError(t, json.NewDecoder(rd).Decode(&ev))
		require.NoError(t, rd.Close())
		require.Equal(t, id, ev.DomainID)
	}
}

// TestChunkProcessorEvidenceKeyTaken: a run whose key is taken draws a new
// run id and never overwrites; a store that keeps answering ECONFLICT
// fails the chunk, so the job is retried.
func TestChunkProcessorEvidenceKeyTaken(t *testing.T) {
	t.Parallel()
	db := sqlstoretest.OpenSQLite(t)
	seeds := sqlstore.NewSeedService(db)
	blobs, err := blobstore.Open(t.Context(), "mem://")
	require.NoError(t, err)
	t.Cleanup(func() { _ = blobs.Close() })
	input, err := json.Marshal(contract.ChunkInput{DomainIDs: []string{"gov:sg:y.gov.sg"}})
	require.NoError(t, err)
	batch := &seedengine.Batch{ID: "b1", Kind: seedengine.BatchContract, Country: "sg", Category: "news"}

	w := &conflictingWriter{ObjectWriter: blobs, conflicts: 1}
	out, err := contract.ChunkProcessor(sameSecond, seeds, w)(t.Context(), batch, &seedengine.BatchChunk{BatchID: "b1", Input: input, Items: 1})
	require.NoError(t, err)
	require.Equal(t, 1, out.Succeeded)
	require.Len(t, w.keys, 2)
	require.NotEqual(t, w.keys[0], w.keys[1], "a new run id after a conflict")
	s, err := seeds.FindSeedByID(t.Context(), "gov:sg:y.gov.sg::news")
	require.NoError(t, err)
	require.Equal(t, w.keys[1], s.Evidence.Key)

	w = &conflictingWriter{ObjectWriter: blobs, conflicts: 100}
	_, err = contract.ChunkProcessor(sameSecond, seeds, w)(t.Context(), batch, &seedengine.BatchChunk{BatchID: "b1", Input: input, Items: 1})
	require.Error(t, err)
	require.Equal(t, seedengine.ECONFLICT, seedengine.ErrorCode(err))
	require.Len(t, w.keys, 3, "a bounded number of run ids")
}
