package app_test

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/csv"
	"encoding/json"
	"encoding/xml"
	"io"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/benchmem"
	"github.com/seedengine/seedengine/internal/sqlstore"
	"github.com/seedengine/seedengine/internal/sqlstore/sqlstoretest"
)

// opmlDoc is what an OPML reader sees of the export.
type opmlDoc struct {
	XMLName xml.Name `xml:"opml"`
	Version string   `xml:"version,attr"`
	Title   string   `xml:"head>title"`
	Body    []struct {
		Text     string `xml:"text,attr"`
		Outlines []struct {
			Text     string `xml:"text,attr"`
			Type     string `xml:"type,attr"`
			XMLURL   string `xml:"xmlUrl,attr"`
			URL      string `xml:"url,attr"`
			HTMLURL  string `xml:"htmlUrl,attr"`
			Category string `xml:"category,attr"`
			Outlines []struct {
				Type   string `xml:"type,attr"`
				URL    string `xml:"url,attr"`
				XMLURL string `xml:"xmlUrl,attr"`
			} `xml:"outline"`
		} `xml:"outline"`
	} `xml:"body>outline"`
}

// Every seed the filters match comes out once, past the 100 a read
// takes, in each format, each parsed by a reader of its own: JSON Lines
// line by line, CSV by encoding/csv (RFC 4180, a header row), OPML by
// encoding/xml (feeds grouped by country, news sitemaps in their own
// group), URLs a line each; gzip when asked; a bad filter is a 422 that
// names it. Both engines.
func TestSeedExport(t *testing.T) {
	t.Parallel()
	sqlstoretest.Engines(t, func(t *testing.T, db *sqlstore.DB) {
		sqlstoretest.FillSeeds(t, db, 1200)
		s := newStack(t, db)
		var all []seedengine.Seed
		export := func(query string) response {
			t.Helper()
			r := s.do(t, request{Path: "/api/v1/seeds/export?" + query})
			require.Equal(t, http.StatusOK, r.StatusCode, string(r.Body))
			return r
		}

		// JSON Lines: every seed, in seed_id order, each as the API shows it.
		r := export("format=jsonl")
		require.Equal(t, "application/x-ndjson", r.Header.Get("Content-Type"))
		require.Contains(t, r.Header.Get("Content-Disposition"), `filename="seeds.jsonl"`)
		sc := bufio.NewScanner(bytes.NewReader(r.Body))
		for sc.Scan() {
			var sd seedengine.Seed
			require.NoError(t, json.Unmarshal(sc.Bytes(), &sd))
			all = append(all, sd)
		}
		require.Equal(t, 1200, len(all))
		seen := map[string]bool{}
		for i, sd := range all {
			require.False(t, seen[sd.SeedID], "once: %s", sd.SeedID)
			seen[sd.SeedID] = true
			if i > 0 {
				require.Less(t, all[i-1].SeedID, sd.SeedID)
			}
		}

		// CSV, filtered like the list.
		var active []seedengine.Seed
		for _, sd := range all {
			if sd.Status == seedengine.SeedActive && sd.Country == "sg" {
				active = append(active, sd)
			}
		}
		r = export("format=csv&status=active&country=SG")
		require.True(t, strings.HasPrefix(r.Header.Get("Content-Type"), "text/csv"))
		rows, err := csv.NewReader(bytes.NewReader(r.Body)).ReadAll()
		require.NoError(t, err)
		require.Equal(t, "seed_id", rows[0][0])
		require.Len(t, rows, len(active)+1)
		col := map[string]int{}
		for i, h := range rows[0] {
			col[h] = i
		}
		for i, sd := range active {
			row := rows[i+1]
			require.Equal(t, sd.SeedID, row[col["seed_id"]])
			require.Equal(t, sd.Fetch.EntryURL, row[col["entry_url"]])
			require.Equal(t, sd.Source.Name, row[col["source_name"]])
			require.Equal(t, "active", row[col["status"]])
			require.Equal(t, "unknown", row[col["health"]])
		}

		// URLs: the entries of one fetch type.
		r = export("format=urls&fetch_type=atom")
		var want []string
		for _, sd := range all {
			if sd.Fetch.Type == seedengine.FetchAtom {
				want = append(want, sd.Fetch.EntryURL)
			}
		}
		require.Equal(t, strings.Join(want, "\n")+"\n", string(r.Body))

		// OPML: the feeds grouped by country, each once, and the news
		// sitemaps in a group of their own; other types are not feeds.
		r = export("format=opml")
		require.True(t, strings.HasPrefix(r.Header.Get("Content-Type"), "text/x-opml"))
		var doc opmlDoc
		require.NoError(t, xml.Unmarshal(r.Body, &doc))
		require.Equal(t, "2.0", doc.Version)
		feeds, sitemaps := map[string]string{}, map[string]bool{}
		for _, group := range doc.Body {
			if group.Text == "News sitemaps" {
				for _, country := range group.Outlines {
					for _, o := range country.Outlines {
						require.Equal(t, "link", o.Type)
						sitemaps[o.URL] = true
					}
				}
				continue
			}
			for _, o := range group.Outlines {
				require.Equal(t, "rss", o.Type)
				require.NotContains(t, feeds, o.XMLURL, "each feed once")
				feeds[o.XMLURL] = group.Text
				require.True(t, strings.HasPrefix(o.Category, "/"+group.Text+"/"), o.Category)
				require.True(t, strings.HasPrefix(o.HTMLURL, "https://"), o.HTMLURL)
			}
		}
		for _, sd := range all {
			switch sd.Fetch.Type {
			case seedengine.FetchRSS, seedengine.FetchAtom, seedengine.FetchJSONFeed:
				require.Equal(t, sd.Country, feeds[sd.Fetch.EntryURL], sd.SeedID)
			case seedengine.FetchNewsSitemap:
				require.True(t, sitemaps[sd.Fetch.EntryURL], sd.SeedID)
			default:
				require.NotContains(t, feeds, sd.Fetch.EntryURL)
				require.False(t, sitemaps[sd.Fetch.EntryURL])
			}
		}

		// gzip when the client takes it.
		r = s.do(t, request{Path: "/api/v1/seeds/export?format=urls", Header: http.Header{"Accept-Encoding": {"gzip"}}})
		require.Equal(t, http.StatusOK, r.StatusCode)
		require.Equal(t, "gzip", r.Header.Get("Content-Encoding"))
		zr, err := gzip.NewReader(bytes.NewReader(r.Body))
		require.NoError(t, err)
		plain, err := io.ReadAll(zr)
		require.NoError(t, err)
		require.Equal(t, len(all), strings.Count(string(plain), "\n"))

		// A name a site chose cannot turn into a spreadsheet formula.
		r = s.post(t, "/api/v1/seeds", map[string]any{"domain_id": "media:sg:formula.example.sg", "category": "news",
			"source": map[string]any{"name": `=HYPERLINK("http://evil.example/","open")`},
			"fetch":  map[string]any{"type": "rss", "entry_url": "https://formula.example.sg/feed"}})
		require.Equal(t, http.StatusCreated, r.StatusCode, string(r.Body))
		r = export("format=csv&q=formula.example")
		rows, err = csv.NewReader(bytes.NewReader(r.Body)).ReadAll()
		require.NoError(t, err)
		require.Len(t, rows, 2)
		require.Equal(t, `'=HYPERLINK("http://evil.example/","open")`, rows[1][col["source_name"]])
		require.Equal(t, "https://formula.example.sg/feed", rows[1][col["entry_url"]])

		// Bad input: a 422 naming the parameter, before any body.
		for _, q := range []string{"format=yaml", "country=zz", "min_confidence=2"} {
			r := s.do(t, request{Path: "/api/v1/seeds/export?" + q})
			require.Equal(t, http.StatusUnprocessableEntity, r.StatusCode, q)
			require.Contains(t, string(r.Body), strings.Split(q, "=")[0], q)
		}
	})
}

// BenchmarkSeedExport100k exports 100,000 seeds (SQLite, through the
// HTTP API) in each format and reports seeds/s, bytes per seed and the
// peak live heap while it streams.
//
//	go test -run '^$' -bench SeedExport100k -benchtime 1x ./internal/app/
func BenchmarkSeedExport100k(b *testing.B) {
	const n = 100_000
	db := sqlstoretest.OpenSQLite(b)
	sqlstoretest.FillSeeds(b, db, n)
	s := newStack(b, db)
	for _, format := range []string{"jsonl", "csv", "opml", "urls"} {
		b.Run(format, func(b *testing.B) {
			runtime.GC()
			peak := benchmem.SampleHeap()
			var size int64
			start := time.Now()
			for range b.N {
				// Read and dropped as it comes: the heap measured is the
				// server's.
				resp, err := s.ts.Client().Get(s.ts.URL + "/api/v1/seeds/export?format=" + format)
				require.NoError(b, err)
				require.Equal(b, http.StatusOK, resp.StatusCode)
				size, err = io.Copy(io.Discard, resp.Body)
				require.NoError(b, err)
				require.NoError(b, resp.Body.Close())
			}
			elapsed := time.Since(start)
			b.ReportMetric(float64(n*b.N)/elapsed.Seconds(), "seeds/s")
			b.ReportMetric(float64(size)/n, "bytes/seed")
			b.ReportMetric(float64(peak())/(1<<20), "peak_heap_MiB")
		})
	}
}
