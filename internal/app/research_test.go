package app_test

import (
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/httpapi/httpapitest"
	"github.com/seedengine/seedengine/internal/research"
	"github.com/seedengine/seedengine/internal/sqlstore"
	"github.com/seedengine/seedengine/internal/sqlstore/sqlstoretest"
)

type researchResult struct {
	seedengine.Partition
	Chunk       *seedengine.ChunkInfo   `json:"chunk"`
	Accepted    int                     `json:"accepted"`
	Duplicates  int                     `json:"duplicates"`
	Rejected    []seedengine.URLFailure `json:"rejected"`
	Domains     int                     `json:"domains"`
	Authorities map[string]int          `json:"authorities"`
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
		require.Equal(t, http.StatusCreated, r.StatusCode, string(r.Body))
		require.Equal(t, "/api/v1/research/sg/news/2026-01-28", r.Header.Get("Location"))
		res := httpapitest.Decode[researchResult](t, r)
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
		require.Equal(t, http.StatusCreated, r.StatusCode, string(r.Body))
		require.Equal(t, "raw/country=sg/category=news/date=2026-01-28/raw_0002.json", httpapitest.Decode[researchResult](t, r).Chunk.Key)

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
	require.Equal(t, http.StatusCreated, r.StatusCode, string(r.Body))
	res := httpapitest.Decode[researchResult](t, r)
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
		return httpapitest.With(map[string]any{"country": "sg", "category": "news", "date": "2026-01-28"}, kv...)
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
			p := s.post(t, "/api/v1/research", tt.body).Problem(t, http.StatusUnprocessableEntity, "invalid")
			require.Contains(t, httpapitest.Locations(p), tt.loc, "%+v", p)
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
	require.Equal(t, http.StatusOK, r.StatusCode, "nothing was created: "+string(r.Body))
	require.Empty(t, r.Header.Get("Location"))
	res := httpapitest.Decode[researchResult](t, r)
	require.Nil(t, res.Chunk)
	require.Zero(t, res.Accepted)
	require.Len(t, res.Rejected, 2)
	require.Empty(t, s.rawKeys(t))
	s.do(t, request{Path: "/api/v1/research/sg/news/2026-01-28"}).Problem(t, http.StatusNotFound, "not_found")
}

func TestResearchDateDefaultsToTodayUTC(t *testing.T) {
	t.Parallel()
	s := newStack(t, sqlstoretest.OpenSQLite(t))
	before := time.Now().UTC().Format(seedengine.DateLayout)
	r := s.post(t, "/api/v1/research", map[string]any{"country": "jp", "category": "news", "urls": []string{"https://www.mhlw.go.jp/"}})
	after := time.Now().UTC().Format(seedengine.DateLayout)
	require.Equal(t, http.StatusCreated, r.StatusCode, string(r.Body))
	date := httpapitest.Decode[researchResult](t, r).Date
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
			require.Equal(t, http.StatusCreated, r.StatusCode, string(r.Body))
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

		s.do(t, request{Path: "/api/v1/research/sg/news/2026-01-29"}).Problem(t, http.StatusNotFound, "not_found")
		p := s.do(t, request{Path: "/api/v1/research/zz/news/2026-01-28"}).Problem(t, http.StatusUnprocessableEntity, "invalid")
		require.Equal(t, []string{"path.country"}, httpapitest.Locations(p))
		p = s.do(t, request{Path: "/api/v1/research/sg/news/2026-13-01"}).Problem(t, http.StatusUnprocessableEntity, "invalid")
		require.Equal(t, []string{"path.date"}, httpapitest.Locations(p))
		p = s.do(t, request{Path: "/api/v1/research?country=zz"}).Problem(t, http.StatusUnprocessableEntity, "invalid")
		require.Equal(t, []string{"query.country"}, httpapitest.Locations(p))
		p = s.do(t, request{Path: "/api/v1/research?date_to=yesterday"}).Problem(t, http.StatusUnprocessableEntity, "invalid")
		require.Len(t, p.Errors, 1)
		require.True(t, strings.HasPrefix(p.Errors[0].Location, "query.date_to"), "%+v", p)
		// The one partition-filter validation (PartitionFilter.Validate).
		p = s.do(t, request{Path: "/api/v1/research?date_from=2026-01-29&date_to=2026-01-28"}).Problem(t, http.StatusUnprocessableEntity, "invalid")
		require.Equal(t, []string{"query.date_to"}, httpapitest.Locations(p))
	})
}
