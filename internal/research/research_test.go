package research_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/blobstore"
	"github.com/seedengine/seedengine/internal/dataset"
	"github.com/seedengine/seedengine/internal/discover"
	"github.com/seedengine/seedengine/internal/research"
	"github.com/seedengine/seedengine/internal/sqlstore"
	"github.com/seedengine/seedengine/internal/sqlstore/sqlstoretest"
)

// setup wires the service on SQLite and an in-memory object store.
func setup(t *testing.T) (*research.Service, *sqlstore.DomainService) {
	t.Helper()
	db := sqlstoretest.OpenSQLite(t)
	blobs, err := blobstore.Open(t.Context(), "mem://")
	require.NoError(t, err)
	t.Cleanup(func() { _ = blobs.Close() })
	index := sqlstore.NewDatasetIndex(db)
	domains := sqlstore.NewDomainService(db)
	return research.New(dataset.New(blobs, index, nil), domains, index, discover.DefaultClassifier(), nil), domains
}

var p = seedengine.Partition{Country: "sg", Category: "news", Date: "2026-01-28"}

func TestResearchInvalidInput(t *testing.T) {
	t.Parallel()
	svc, _ := setup(t)
	tooMany := make([]string, research.MaxInputs+1)
	for i := range tooMany {
		tooMany[i] = fmt.Sprintf("https://example%d.com/", i)
	}
	for _, tt := range []struct {
		name  string
		in    seedengine.ResearchInput
		field string
	}{
		{"nothing", seedengine.ResearchInput{Partition: p}, "urls"},
		{"both", seedengine.ResearchInput{Partition: p, URLs: []string{"https://a.com/"}, Records: []seedengine.DatasetRecord{{RawURL: "https://b.com/"}}}, "records"},
		{"too many", seedengine.ResearchInput{Partition: p, URLs: tooMany}, "urls"},
		{"no date", seedengine.ResearchInput{Partition: seedengine.Partition{Country: "sg", Category: "news"}, URLs: []string{"https://a.com/"}}, "date"},
		{"bad country", seedengine.ResearchInput{Partition: seedengine.Partition{Country: "xx", Category: "news", Date: p.Date}, URLs: []string{"https://a.com/"}}, "country"},
	} {
		_, err := svc.Research(t.Context(), tt.in)
		require.Equal(t, seedengine.EINVALID, seedengine.ErrorCode(err), tt.name)
		require.Equal(t, tt.field, seedengine.ErrorField(err), tt.name)
	}
}

func TestResearchRecords(t *testing.T) {
	t.Parallel()
	svc, domains := setup(t)
	res, err := svc.Research(t.Context(), seedengine.ResearchInput{
		Partition: seedengine.Partition{Country: "SG", Category: "news", Date: p.Date},
		Records: []seedengine.DatasetRecord{
			{RawURL: "https://www.who.int/news", Confidence: 0.3},
			{RawURL: "https://www.mom.gov.sg/", Confidence: math.NaN()},
			{RawURL: "https://www.mom.gov.sg/", Confidence: 1.5},
			{RawURL: "https://www.mom.gov.sg/", Confidence: -0.1},
			{RawURL: "https://www.example.com/"},
			{RawURL: "https://www.example.com"}, // the same page
		},
	})
	require.NoError(t, err)
	require.Equal(t, p, res.Partition, "the country is normalised")
	require.Equal(t, 2, res.Accepted)
	require.Equal(t, 1, res.Duplicates)
	require.Equal(t, 2, res.Domains)
	require.Equal(t, map[seedengine.Authority]int{seedengine.AuthorityNGO: 1, seedengine.AuthorityCom: 1}, res.Authorities)
	require.Len(t, res.Rejected, 3)
	for i, f := range res.Rejected {
		require.Equal(t, i+1, f.Index)
		require.Equal(t, research.ReasonInvalidConfidence, f.Reason)
	}
	require.Equal(t, 2, res.Chunk.Records)

	// A .int domain seen for Singapore is registered as international.
	d, err := domains.FindDomainByID(t.Context(), "ngo:intl:who.int")
	require.NoError(t, err)
	require.Equal(t, []seedengine.Partition{p}, d.Partitions)
}

// TestResearchReadsURLsAsBrowsers: a host with a space is invalid, not
// repaired into a domain nobody submitted; an IP address is a valid URL
// but not a domain; control characters in a path are escaped.
func TestResearchReadsURLsAsBrowsers(t *testing.T) {
	t.Parallel()
	svc, _ := setup(t)
	res, err := svc.Research(t.Context(), seedengine.ResearchInput{Partition: p, URLs: []string{
		"http://exa mple.com/", "http://192.0.2.1/", "http://0x7f.1/", "http://[0:1:0:1:0:1:0:1]/", "http://localhost/",
		"https://www.mom.gov.sg/a\x7fb",
	}})
	require.NoError(t, err)
	require.Equal(t, []seedengine.URLFailure{
		{Index: 0, URL: "http://exa mple.com/", Reason: discover.ReasonInvalidHost},
		{Index: 1, URL: "http://192.0.2.1/", Reason: discover.ReasonNoRegistrableDomain},
		{Index: 2, URL: "http://0x7f.1/", Reason: discover.ReasonNoRegistrableDomain},
		{Index: 3, URL: "http://[0:1:0:1:0:1:0:1]/", Reason: discover.ReasonNoRegistrableDomain},
		{Index: 4, URL: "http://localhost/", Reason: discover.ReasonNoRegistrableDomain},
	}, res.Rejected)
	require.Equal(t, 1, res.Accepted)
	require.Equal(t, 1, res.Domains)
}

func TestResearchTruncatesRejectedURLs(t *testing.T) {
	t.Parallel()
	svc, _ := setup(t)
	long := "ftp://example.com/" + string(make([]byte, 4000))
	res, err := svc.Research(t.Context(), seedengine.ResearchInput{Partition: p, URLs: []string{long}})
	require.NoError(t, err)
	require.Nil(t, res.Chunk)
	require.Len(t, res.Rejected, 1)
	require.Less(t, len(res.Rejected[0].URL), 600)
}

func TestChunkProcessorIndexesRejectionsInTheBatch(t *testing.T) {
	t.Parallel()
	svc, _ := setup(t)
	process := research.ChunkProcessor(svc)
	params, _ := json.Marshal(seedengine.ResearchBatchParams{Date: p.Date, Queries: []string{"q"}})
	b := &seedengine.Batch{ID: "0190b3d2-0000-7000-8000-000000000001", Kind: seedengine.BatchResearch, Country: "sg", Category: "news", ChunkSize: 3, Params: params}
	input, _ := json.Marshal([]string{"https://www.mom.gov.sg/", "javascript:alert(1)", "https://www.mom.gov.sg/#x"})
	c := &seedengine.BatchChunk{BatchID: b.ID, Index: 2, Input: input, Items: 3}

	out, err := process(context.Background(), b, c)
	require.NoError(t, err)
	require.Equal(t, 2, out.Succeeded, "accepted and duplicate URLs succeed")
	require.Equal(t, 1, out.Failed)
	var res research.ChunkResult
	require.NoError(t, json.Unmarshal(out.Result, &res))
	require.Equal(t, []seedengine.URLFailure{{Index: 7, URL: "javascript:alert(1)", Reason: "unsupported_scheme"}}, res.Rejected)
	require.Equal(t, []string{"raw/country=sg/category=news/date=2026-01-28/raw_0001.json"}, res.Keys)
	require.Equal(t, research.ChunkResult{Keys: res.Keys, Rejected: res.Rejected, Accepted: 1, Duplicates: 1, Domains: 1}, res)

	rp, err := svc.FindResearchPartition(t.Context(), p, 10, 0)
	require.NoError(t, err)
	require.Equal(t, research.Origin(b.ID, 2), rp.ChunkList[0].Origin)

	// Input no retry can fix fails the chunk for good.
	_, err = process(context.Background(), b, &seedengine.BatchChunk{BatchID: b.ID, Index: 0, Input: json.RawMessage(`{"urls":1}`)})
	require.Equal(t, seedengine.EINVALID, seedengine.ErrorCode(err))
	bad := *b
	bad.Params = json.RawMessage(`[]`)
	_, err = process(context.Background(), &bad, c)
	require.Equal(t, seedengine.EINVALID, seedengine.ErrorCode(err))
}

// A batch's chunks are discovered when the batch was accepted: the
// domains they name are seen then, however late a chunk runs.
func TestChunkProcessorSeesAtTheBatchTime(t *testing.T) {
	t.Parallel()
	svc, domains := setup(t)
	process := research.ChunkProcessor(svc)
	params, _ := json.Marshal(seedengine.ResearchBatchParams{Date: p.Date})
	accepted := time.Date(2026, 1, 28, 9, 30, 0, 0, time.UTC)
	b := &seedengine.Batch{ID: "0190b3d2-0000-7000-8000-000000000002", Kind: seedengine.BatchResearch, Country: "sg", Category: "news",
		ChunkSize: 1, Params: params, CreatedAt: accepted}
	for i, u := range []string{"https://www.mom.gov.sg/a", "https://www.mom.gov.sg/b"} {
		input, _ := json.Marshal([]string{u})
		_, err := process(t.Context(), b, &seedengine.BatchChunk{BatchID: b.ID, Index: i, Input: input, Items: 1})
		require.NoError(t, err)
	}
	d, err := domains.FindDomainByID(t.Context(), "gov:sg:mom.gov.sg")
	require.NoError(t, err)
	require.Equal(t, accepted, d.FirstSeen.UTC())
	require.Equal(t, accepted, d.LastSeen.UTC())
	require.Equal(t, 1, d.PartitionCount)
}

func TestRegisterChunk(t *testing.T) {
	t.Parallel()
	svc, domains := setup(t)
	seen := time.Date(2026, 1, 28, 9, 0, 0, 0, time.UTC)
	ds := seedengine.Dataset{
		Meta: seedengine.DatasetMeta{Country: "SG", Category: "news", Date: p.Date, DiscoveredAt: seen,
			ResearchMethods: []string{}, Queries: []string{}, Engine: seedengine.EngineInfo{Name: "t", Version: "1"}, RecordCount: 7},
		Records: []seedengine.DatasetRecord{
			{RawURL: "https://www.mom.gov.sg/", DomainID: "gov:sg:mom.gov.sg", AuthorityRule: "suffix:gov.sg"},
			{RawURL: "https://www.mom.gov.sg/a", DomainID: "gov:sg:mom.gov.sg"}, // a repeat
			{RawURL: "https://www.nus.edu.sg/", DomainID: "not a domain id"},    // classified from raw_url
			{RawURL: "javascript:alert(1)"},                                     // no domain
			{NormalizedURL: "https://www.who.int/"},                             // no raw_url: normalized_url
			// An IP address is not a domain, even in an old domain_id.
			{RawURL: "https://192.0.2.10/", DomainID: "other:sg:192.0.2.10"},
			{RawURL: "https://www.gov.sg/", DomainID: "other:sg:[2001:db8::1]"}, // classified from raw_url
		},
	}
	var b bytes.Buffer
	_, err := ds.WriteTo(&b)
	require.NoError(t, err)

	n, err := svc.RegisterChunk(t.Context(), seedengine.Partition{Country: "SG", Category: "news", Date: p.Date}, &b)
	require.NoError(t, err)
	require.Equal(t, 4, n)
	got, total, err := domains.FindDomains(t.Context(), seedengine.DomainFilter{Partition: &p})
	require.NoError(t, err)
	require.Equal(t, 4, total)
	var ids []string
	for _, d := range got {
		ids = append(ids, d.ID)
		require.Equal(t, seen, d.FirstSeen.UTC(), "seen at meta.discovered_at")
	}
	require.Equal(t, []string{"edu:sg:nus.edu.sg", "gov:sg:mom.gov.sg", "gov:sg:www.gov.sg", "ngo:intl:who.int"}, ids)
	require.Equal(t, "suffix:gov.sg", got[1].AuthorityRule)

	_, err = svc.RegisterChunk(t.Context(), p, strings.NewReader(`{"meta": [`))
	require.Equal(t, seedengine.EINVALID, seedengine.ErrorCode(err))
}

// Non-empty URLs with a non-nil but empty Records are URLs, not records.
func TestResearchURLsWithEmptyRecords(t *testing.T) {
	t.Parallel()
	svc, _ := setup(t)
	res, err := svc.Research(t.Context(), seedengine.ResearchInput{
		Partition: p,
		URLs:      []string{"https://www.mom.gov.sg/", "https://www.nus.edu.sg/"},
		Records:   []seedengine.DatasetRecord{},
	})
	require.NoError(t, err)
	require.Equal(t, 2, res.Accepted)
}
