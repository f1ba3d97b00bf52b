package contract_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/blobstore"
	"github.com/seedengine/seedengine/internal/contract"
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
