package app_test

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/contract"
	"github.com/seedengine/seedengine/internal/httpapi/httpapitest"
	"github.com/seedengine/seedengine/internal/seedimport"
	"github.com/seedengine/seedengine/internal/simweb"
	"github.com/seedengine/seedengine/internal/simweb/simwebtest"
	"github.com/seedengine/seedengine/internal/sqlstore"
	"github.com/seedengine/seedengine/internal/sqlstore/sqlstoretest"
)

// importSites are the simulated web of the import tests: a feed of each
// kind, and each way an entry fails.
var importSites = []simweb.Site{
	{Host: "good-wp.gov.sg", Layout: simweb.LayoutWordPress},
	{Host: "good-blog.com.sg", Layout: simweb.LayoutBlog},
	{Host: "news-only.gov.sg", Layout: simweb.LayoutNews},
	{Host: "dead.gov.sg", Scenario: simweb.ScenarioNXDomain},
	{Host: "html-only.gov.sg", Layout: simweb.LayoutStatic},
	{Host: "disallowed.gov.sg", Layout: simweb.LayoutWordPress, Robots: strPtr("User-agent: *\nDisallow: /\n")},
	{Host: "missing.gov.sg", Layout: simweb.LayoutWordPress},
	{Host: "existing.gov.sg", Layout: simweb.LayoutWordPress},
	{Host: "daily-post.co.uk", Layout: simweb.LayoutWordPress},
}

// importOPML names each of importSites' cases once, then repeats a
// feed and names one that is not http(s); its lines are the outlines'.
const importOPML = `<?xml version="1.0" encoding="UTF-8"?>
<opml version="2.0">
<head><title>mixed</title></head>
<body>
<outline text="Reading list">
  <outline text="Good WP" type="rss" xmlUrl="https://good-wp.gov.sg/feed/" htmlUrl="https://good-wp.gov.sg/"/>
  <outline text="Island Notes" type="rss" xmlUrl="https://good-blog.com.sg/atom.xml"/>
  <outline text="News sitemap" type="link" url="https://news-only.gov.sg/news-sitemap.xml"/>
  <outline text="Dead" type="rss" xmlUrl="https://dead.gov.sg/feed/"/>
  <outline text="HTML only" type="rss" xmlUrl="https://html-only.gov.sg/"/>
  <outline text="Disallowed" type="rss" xmlUrl="https://disallowed.gov.sg/feed/"/>
  <outline text="Missing" type="rss" xmlUrl="https://missing.gov.sg/no-such-feed.xml"/>
  <outline text="Existing" type="rss" xmlUrl="https://existing.gov.sg/feed/"/>
  <outline text="Good WP again" type="rss" xmlUrl="https://GOOD-WP.gov.sg/feed/"/>
  <outline text="Not the web" type="rss" xmlUrl="ftp://files.gov.sg/feed.xml"/>
</outline>
</body>
</opml>
`

type importResult struct {
	Created  []seedimport.Created  `json:"created"`
	Rejected []seedimport.Rejected `json:"rejected"`
	Requests int                   `json:"requests"`
}

// runImport posts a list and waits for its batch.
func (s *stack) runImport(t *testing.T, query, contentType, body string) (seedengine.Batch, importResult) {
	t.Helper()
	r := s.do(t, request{Method: http.MethodPost, Path: "/api/v1/seeds/import?" + query, Body: body, Header: http.Header{"Content-Type": {contentType}}})
	require.Equal(t, http.StatusAccepted, r.StatusCode, string(r.Body))
	id := strings.TrimPrefix(r.Header.Get("Location"), "/api/v1/queues/batch/")
	b := s.waitBatch(t, id)
	var res importResult
	require.NoError(t, json.Unmarshal(b.Result, &res), string(b.Result))
	return b, res
}

// An OPML of good, dead, HTML-only, missing, disallowed, duplicate and
// existing feeds: each good entry becomes a draft seed with its evidence
// and its domain registered; each other is a rejected row with its
// reason, and a disallowed feed is never requested. Both engines.
func TestSeedImport(t *testing.T) {
	t.Parallel()
	sqlstoretest.Engines(t, func(t *testing.T, db *sqlstore.DB) {
		web, client := simwebtest.Client(t, importSites, 2*time.Second)
		s := newStack(t, db, withQueue(), withContract(contract.New(client, contract.Config{})))

		// A seed exists for existing.gov.sg: the import leaves it alone.
		r := s.post(t, "/api/v1/seeds", map[string]any{"domain_id": "gov:sg:existing.gov.sg", "category": "news",
			"fetch": map[string]any{"type": "html", "entry_url": "https://existing.gov.sg/"}})
		require.Equal(t, http.StatusCreated, r.StatusCode, string(r.Body))

		b, res := s.runImport(t, "country=sg&category=news&chunk_size=3", "text/x-opml", importOPML)
		require.Equal(t, seedengine.BatchImport, b.Kind)
		require.Equal(t, seedengine.BatchCompletedWithErrors, b.Status)
		require.Equal(t, seedengine.ItemCounts{Total: 10, Succeeded: 3, Failed: 7}, b.Items)

		created := map[string]string{}
		for _, c := range res.Created {
			created[c.SeedID] = fmt.Sprint(c.Line)
		}
		require.Equal(t, map[string]string{
			"gov:sg:good-wp.gov.sg::news":   "6",
			"com:sg:good-blog.com.sg::news": "7",
			"gov:sg:news-only.gov.sg::news": "8",
		}, created)
		reasons := map[int]string{}
		for _, rj := range res.Rejected {
			reasons[rj.Line] = rj.Reason
		}
		require.Equal(t, map[int]string{
			9:  contract.OutcomeUnreachable,
			10: "not_a_feed",
			11: contract.SkipRobots,
			12: "http_404",
			13: "duplicate",
			14: "duplicate_in_list",
			15: "unsupported_scheme",
		}, reasons)
		require.Zero(t, web.Requests("dead.gov.sg"))
		require.Equal(t, 1, web.Requests("disallowed.gov.sg"), "robots.txt only: the feed is never requested")

		want := map[string]struct {
			fetchType seedengine.FetchType
			entry     string
		}{
			"gov:sg:good-wp.gov.sg::news":   {seedengine.FetchRSS, "https://good-wp.gov.sg/feed/"},
			"com:sg:good-blog.com.sg::news": {seedengine.FetchAtom, "https://good-blog.com.sg/atom.xml"},
			"gov:sg:news-only.gov.sg::news": {seedengine.FetchNewsSitemap, "https://news-only.gov.sg/news-sitemap.xml"},
		}
		for id, w := range want {
			sd := s.seed(t, id)
			require.Equal(t, seedengine.SeedDraft, sd.Status, id)
			require.Equal(t, w.fetchType, sd.Fetch.Type, id)
			require.Equal(t, w.entry, sd.Fetch.EntryURL, id)
			require.Equal(t, "sg", sd.Country)
			require.Equal(t, "news", sd.Category)
			require.Equal(t, "seed_import:"+b.ID, sd.History[0].Actor)
			require.Contains(t, sd.Evidence.Method, contract.ViaImport, id)
			require.True(t, strings.HasPrefix(sd.Evidence.Key, "prod/contracts/"), sd.Evidence.Key)
			rd, _, err := s.blobs.NewReader(t.Context(), sd.Evidence.Key)
			require.NoError(t, err)
			var ev contract.Evidence
			require.NoError(t, json.NewDecoder(rd).Decode(&ev))
			require.NoError(t, rd.Close())
			require.Len(t, ev.Candidates, 1, "the named entry only")

			// The seed's domain is registered for the import's country
			// and category.
			domainID, _, _ := strings.Cut(id, "::")
			var d seedengine.Domain
			r := s.get(t, "/api/v1/domains/"+url.PathEscape(domainID), &d)
			require.Equal(t, http.StatusOK, r.StatusCode, string(r.Body))
			require.Equal(t, "news", d.Partitions[0].Category)
		}
		existing := s.seed(t, "gov:sg:existing.gov.sg::news")
		require.Equal(t, seedengine.FetchHTML, existing.Fetch.Type, "an existing seed is never touched")

		// The import's seeds are the batch's: the seeds list filters by it.
		var list struct {
			Total int `json:"total"`
		}
		s.get(t, "/api/v1/seeds?batch_id="+b.ID, &list)
		require.Equal(t, 3, list.Total)

		// The same list again: every entry that made a seed is now a
		// duplicate, read no more.
		before := web.Requests("good-wp.gov.sg")
		_, again := s.runImport(t, "country=sg&category=news", "text/x-opml", importOPML)
		require.Empty(t, again.Created)
		require.Equal(t, before, web.Requests("good-wp.gov.sg"))
	})
}

// The other shapes of list: CSV with a column mapping and an apostrophe
// a spreadsheet export put before a formula-like name, and a URL list
// with comments.
func TestSeedImportCSVAndURLs(t *testing.T) {
	t.Parallel()
	_, client := simwebtest.Client(t, importSites, 2*time.Second)
	s := newStack(t, sqlstoretest.OpenSQLite(t), withQueue(), withContract(contract.New(client, contract.Config{})))

	csvList := "Name,Feed Address,Home,Country\r\n" +
		"'=Good WP,https://good-wp.gov.sg/feed/,good-wp.gov.sg,SG\r\n" +
		"\"Island, Notes\",https://good-blog.com.sg/feed.json,https://good-blog.com.sg/,sg\r\n"
	_, res := s.runImport(t, "category=news&columns="+url.QueryEscape("url=Feed Address,site=Home"), "text/csv", csvList)
	require.Len(t, res.Created, 2, "%+v", res)
	require.Empty(t, res.Rejected)
	wp := s.seed(t, "gov:sg:good-wp.gov.sg::news")
	require.Equal(t, "=Good WP", wp.Source.Name, "the export's apostrophe is undone")
	blog := s.seed(t, "com:sg:good-blog.com.sg::news")
	require.Equal(t, seedengine.FetchJSONFeed, blog.Fetch.Type)

	urls := "# sitemaps and feeds\n\nhttps://news-only.gov.sg/news-sitemap.xml\nhttps://html-only.gov.sg/news/\n"
	_, res = s.runImport(t, "country=sg&category=news", "text/plain", urls)
	require.Equal(t, []seedimport.Created{{Line: 3, URL: "https://news-only.gov.sg/news-sitemap.xml", SeedID: "gov:sg:news-only.gov.sg::news"}}, res.Created)
	require.Equal(t, 4, res.Rejected[0].Line)
	require.Equal(t, "not_a_feed", res.Rejected[0].Reason)
}

// A list that cannot be read is refused whole with a problem naming its
// line, and no batch is made of it; so is a list whose entries have no
// country, and a body of another media type.
func TestSeedImportRefusesMalformedLists(t *testing.T) {
	t.Parallel()
	s := newStack(t, sqlstoretest.OpenSQLite(t), withQueue())
	cases := []struct {
		name, query, contentType, body string
		status                         int
		location                       string
	}{
		{"unclosed outline", "country=sg&category=news", "text/x-opml", "<opml version=\"2.0\">\n<body>\n<outline xmlUrl=\"https://a.gov.sg/feed\">\n</body>\n</opml>\n", 422, "body.line[4]"},
		{"not opml", "country=sg&category=news", "application/xml", "<?xml version=\"1.0\"?>\n<rss version=\"2.0\"></rss>\n", 422, "body.line[2]"},
		{"doctype", "country=sg&category=news", "text/x-opml", "<?xml version=\"1.0\"?>\n<!DOCTYPE opml [<!ENTITY a \"b\">]>\n<opml/>\n", 422, "body.line[2]"},
		{"no feed", "country=sg&category=news", "text/x-opml", "<opml version=\"2.0\"><body><outline text=\"group\"/></body></opml>", 422, "body.line[1]"},
		{"csv quote", "country=sg&category=news", "text/csv", "url,title\nhttps://a.gov.sg/feed,ok\nhttps://b.gov.sg/feed,\"broken\n", 422, "body.line[3]"},
		{"csv columns", "country=sg&category=news", "text/csv", "url,title\nhttps://a.gov.sg/feed,ok\nhttps://b.gov.sg/feed\n", 422, "body.line[3]"},
		{"csv no url column", "country=sg&category=news", "text/csv", "name,home\nA,https://a.gov.sg/\n", 422, "query.columns"},
		{"csv bad mapping", "country=sg&category=news&columns=url%3DFeed", "text/csv", "name,home\nA,https://a.gov.sg/\n", 422, "query.columns"},
		{"no country", "category=news", "text/plain", "https://a.gov.sg/feed\n\nhttps://b.gov.sg/feed\n", 422, "body.line[1]"},
		{"bad row country", "category=news", "text/csv", "url,country\nhttps://a.gov.sg/feed,sg\nhttps://b.gov.sg/feed,xx-yy\n", 422, "body.line[3]"},
		{"not utf-8", "country=sg&category=news", "text/plain", "https://a.gov.sg/feed\nhttps://b.gov.sg/\xff\n", 422, "body.line[2]"},
		{"bad country", "country=atlantis&category=news", "text/plain", "https://a.gov.sg/feed\n", 422, "query.country"},
		{"json", "country=sg&category=news", "application/json", `{"urls":["https://a.gov.sg/feed"]}`, 415, ""},
	}
	for _, c := range cases {
		r := s.do(t, request{Method: http.MethodPost, Path: "/api/v1/seeds/import?" + c.query, Body: c.body, Header: http.Header{"Content-Type": {c.contentType}}})
		require.Equal(t, c.status, r.StatusCode, "%s: %s", c.name, r.Body)
		require.Equal(t, "application/problem+json", r.Header.Get("Content-Type"), c.name)
		if c.location == "" {
			continue
		}
		var p struct {
			Detail string `json:"detail"`
			Errors []struct {
				Location string `json:"location"`
			} `json:"errors"`
		}
		require.NoError(t, json.Unmarshal(r.Body, &p), c.name)
		require.NotEmpty(t, p.Errors, "%s: %s", c.name, r.Body)
		require.Equal(t, c.location, p.Errors[0].Location, "%s: %s", c.name, p.Detail)
	}
	var batches struct {
		Total int `json:"total"`
	}
	s.get(t, "/api/v1/queues/batches?kind=import", &batches)
	require.Zero(t, batches.Total, "nothing half-imported")
}

// seedShape is what a round trip keeps of a seed.
type seedShape struct {
	SeedID, Country, Category, ContentType, Name string
	FetchType                                    seedengine.FetchType
	EntryURL                                     string
}

func shapes(t *testing.T, s *stack, query string) map[string]seedShape {
	t.Helper()
	r := s.do(t, request{Path: "/api/v1/seeds/export?format=jsonl&" + query})
	require.Equal(t, http.StatusOK, r.StatusCode, string(r.Body))
	out := map[string]seedShape{}
	for _, line := range strings.Split(strings.TrimSpace(string(r.Body)), "\n") {
		if line == "" {
			continue
		}
		var sd seedengine.Seed
		require.NoError(t, json.Unmarshal([]byte(line), &sd))
		out[sd.SeedID] = seedShape{sd.SeedID, sd.Country, sd.Category, sd.ContentType, sd.Source.Name, sd.Fetch.Type, sd.Fetch.EntryURL}
	}
	return out
}

// Export → import into a fresh service gives the same feed seeds, as
// drafts, from the OPML (read first by opmlparser, the parser node's feed
// readers use) and from the CSV (read first by csv-parse as well as
// encoding/csv). Both engines.
func TestSeedExportImportRoundTrip(t *testing.T) {
	t.Parallel()
	sqlstoretest.Engines(t, func(t *testing.T, db *sqlstore.DB) {
		_, client := simwebtest.Client(t, importSites, 2*time.Second)
		d := contract.New(client, contract.Config{})
		fresh := func() *sqlstore.DB {
			if string(db.Engine()) == "postgres" {
				return sqlstoretest.OpenPostgres(t)
			}
			return sqlstoretest.OpenSQLite(t)
		}
		a := newStack(t, db, withQueue(), withContract(d))

		// The seeds of A: research registers their domains, then each is
		// created by hand, one promoted.
		for _, rs := range []struct {
			country string
			urls    []string
		}{
			{"sg", []string{"https://good-wp.gov.sg/", "https://good-blog.com.sg/", "https://news-only.gov.sg/", "https://html-only.gov.sg/"}},
			{"gb", []string{"https://daily-post.co.uk/"}},
		} {
			r := a.post(t, "/api/v1/research", map[string]any{"country": rs.country, "category": "news", "urls": rs.urls})
			require.Equal(t, http.StatusCreated, r.StatusCode, string(r.Body))
		}
		domainID := map[string]string{}
		var domains struct {
			Items []seedengine.Domain `json:"items"`
		}
		a.get(t, "/api/v1/domains?limit=100", &domains)
		for _, dm := range domains.Items {
			domainID[dm.RegistrableDomain] = dm.ID
		}
		create := func(domain, ct, ft, entry, name string) string {
			r := a.post(t, "/api/v1/seeds", map[string]any{"domain_id": domainID[domain], "content_type": ct, "category": "news",
				"source": map[string]any{"name": name}, "fetch": map[string]any{"type": ft, "entry_url": entry}})
			require.Equal(t, http.StatusCreated, r.StatusCode, string(r.Body))
			var sd seedengine.Seed
			require.NoError(t, json.Unmarshal(r.Body, &sd))
			return sd.SeedID
		}
		wp := create("good-wp.gov.sg", "news", "rss", "https://good-wp.gov.sg/feed/", "Good WP")
		create("good-blog.com.sg", "news", "atom", "https://good-blog.com.sg/atom.xml", "Island Notes")
		create("good-blog.com.sg", "blog", "json_feed", "https://good-blog.com.sg/feed.json", "Island Notes (JSON)")
		create("news-only.gov.sg", "news", "news_sitemap", "https://news-only.gov.sg/news-sitemap.xml", "News Only")
		create("daily-post.co.uk", "news", "rss", "https://daily-post.co.uk/feed/", "The Daily Post")
		create("html-only.gov.sg", "news", "html", "https://html-only.gov.sg/news/", "HTML Only")
		r := a.post(t, "/api/v1/seeds/promote", map[string]any{"seedId": wp})
		require.Equal(t, http.StatusOK, r.StatusCode, string(r.Body))

		all := shapes(t, a, "")
		want := map[string]seedShape{}
		for id, sh := range all {
			if sh.FetchType != seedengine.FetchHTML {
				want[id] = sh
			}
		}
		require.Len(t, want, 5)

		// OPML: opmlparser sees every feed and news sitemap once, in its
		// country's group, and nothing else.
		opml := a.do(t, request{Path: "/api/v1/seeds/export?format=opml"})
		require.Equal(t, http.StatusOK, opml.StatusCode)
		parsed := readOPMLWithParser(t, opml.Body)
		require.Empty(t, parsed.Errors)
		require.Equal(t, "seedengine seeds", parsed.Title)
		seen := map[string]string{}
		for _, o := range parsed.Outlines {
			entry := o.XMLURL
			if o.Type == "link" {
				entry = o.URL
			}
			if entry == "" {
				continue
			}
			_, dup := seen[entry]
			require.False(t, dup, entry)
			seen[entry] = o.Category
		}
		require.Len(t, seen, len(want))
		for _, sh := range want {
			require.Contains(t, seen[sh.EntryURL], "/"+sh.Country+"/news/", sh.EntryURL)
		}

		// CSV: csv-parse and encoding/csv read the same records.
		csvOut := a.do(t, request{Path: "/api/v1/seeds/export?format=csv"})
		require.Equal(t, http.StatusOK, csvOut.StatusCode)
		records, perr := readCSVWithParser(t, csvOut.Body)
		require.Empty(t, perr)
		require.Len(t, records, len(all))
		for _, rec := range records {
			sh, ok := all[rec["seed_id"]]
			require.True(t, ok, rec["seed_id"])
			require.Equal(t, sh.EntryURL, rec["entry_url"])
			require.Equal(t, sh.Name, rec["source_name"])
		}

		// Each export into a fresh service: the same feed seeds, drafts.
		for _, c := range []struct{ name, contentType, body string }{
			{"opml", "text/x-opml", string(opml.Body)},
			{"csv", "text/csv", string(csvOut.Body)},
		} {
			b := newStack(t, fresh(), withQueue(), withContract(d))
			batch, res := b.runImport(t, "", c.contentType, c.body)
			require.Len(t, res.Created, len(want), "%s: %+v", c.name, res.Rejected)
			got := shapes(t, b, "")
			require.Equal(t, want, got, c.name)
			var drafts struct {
				Total int `json:"total"`
			}
			b.get(t, "/api/v1/seeds?status=draft&batch_id="+batch.ID, &drafts)
			require.Equal(t, len(want), drafts.Total, c.name)
			if c.name == "csv" {
				// The CSV's HTML seed is not a feed: refused, read once.
				require.Len(t, res.Rejected, 1)
				require.Equal(t, "not_a_feed", res.Rejected[0].Reason)
			}
		}
	})
}

// mixedFeedList is an OPML list of n entries (a multiple of 20) of mixed
// quality on a simulated web of its own, with the reasons each entry
// that makes no seed must be refused with: 60 % good feeds, 10 % dead
// sites, 10 % HTML pages, 5 % missing feeds (404), 5 % feeds robots.txt
// disallows and 10 % repeats of an earlier entry.
func mixedFeedList(n int) (sites []simweb.Site, opml string, created int, rejected map[string]int) {
	var b strings.Builder
	b.WriteString("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<opml version=\"1.0\">\n<head><title>mixed</title></head>\n<body>\n")
	rejected = map[string]int{}
	for i := range n {
		host := fmt.Sprintf("feed%05d.gov.sg", i)
		var entry string
		switch k := i % 20; {
		case k < 12:
			sites = append(sites, simweb.Site{Host: host, Layout: simweb.LayoutWordPress})
			entry = "https://" + host + "/feed/"
			created++
		case k < 14:
			sites = append(sites, simweb.Site{Host: host, Scenario: simweb.ScenarioNXDomain})
			entry = "https://" + host + "/feed/"
			rejected[contract.OutcomeUnreachable]++
		case k < 16:
			sites = append(sites, simweb.Site{Host: host, Layout: simweb.LayoutStatic})
			entry = "https://" + host + "/"
			rejected["not_a_feed"]++
		case k == 16:
			sites = append(sites, simweb.Site{Host: host, Layout: simweb.LayoutWordPress})
			entry = "https://" + host + "/gone.xml"
			rejected["http_404"]++
		case k == 17:
			sites = append(sites, simweb.Site{Host: host, Layout: simweb.LayoutWordPress, Robots: strPtr("User-agent: *\nDisallow: /feed/\n")})
			entry = "https://" + host + "/feed/"
			rejected[contract.SkipRobots]++
		default:
			// The good entry 17 or 18 rows up, its host in capitals.
			entry = fmt.Sprintf("https://FEED%05d.gov.sg/feed/", i-17)
			rejected["duplicate_in_list"]++
		}
		fmt.Fprintf(&b, "<outline text=\"Feed %d\" type=\"rss\" xmlUrl=%q/>\n", i, entry)
	}
	b.WriteString("</body>\n</opml>\n")
	return sites, b.String(), created, rejected
}

// importMixed imports mixedFeedList(n) into a fresh service on db and
// checks every entry's outcome; it returns the time from the POST to the
// batch's end.
func importMixed(t testing.TB, db *sqlstore.DB, n int) time.Duration {
	sites, opml, created, rejected := mixedFeedList(n)
	_, client := simwebtest.PatientClient(t, sites, 5*time.Second)
	s := newStack(t, db, withQueue(), withContract(contract.New(client, contract.Config{})))
	start := time.Now()
	r := s.do(t, request{Method: http.MethodPost, Path: "/api/v1/seeds/import?country=sg&category=news", Body: opml, Header: http.Header{"Content-Type": {"text/x-opml"}}})
	require.Equal(t, http.StatusAccepted, r.StatusCode, string(r.Body))
	id := strings.TrimPrefix(r.Header.Get("Location"), "/api/v1/queues/batch/")
	var b seedengine.Batch
	for deadline := time.Now().Add(5 * time.Minute); ; {
		b = seedengine.Batch{}
		s.get(t, "/api/v1/queues/batch/"+id, &b)
		if b.Status.Finished() {
			break
		}
		require.True(t, time.Now().Before(deadline), "import %s not finished: %+v", id, b.Items)
		time.Sleep(50 * time.Millisecond)
	}
	took := time.Since(start)
	var res importResult
	require.NoError(t, json.Unmarshal(b.Result, &res))
	got := map[string]int{}
	lines := map[int]bool{}
	for _, rj := range res.Rejected {
		got[rj.Reason]++
		lines[rj.Line] = true
	}
	for _, c := range res.Created {
		lines[c.Line] = true
	}
	require.Equal(t, rejected, got)
	require.Equal(t, created, len(res.Created))
	require.Len(t, lines, n, "every entry is accounted for once")
	var list struct {
		Total int `json:"total"`
	}
	s.get(t, "/api/v1/seeds?status=draft&batch_id="+id, &list)
	require.Equal(t, created, list.Total)
	return took
}

// A 3,000-entry OPML of mixed quality: every entry is a draft seed or a
// rejected row with its reason.
func TestSeedImportMixedOPML(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("3,000 entries")
	}
	took := importMixed(t, sqlstoretest.OpenSQLite(t), 3000)
	t.Logf("3,000 entries imported in %v", took.Round(time.Millisecond))
}

// BenchmarkSeedImportOPML imports the 3,000-entry mixed OPML into a fresh
// service per iteration, on each engine; entries/s is the import's pace
// from the POST to the batch's end (docs/performance.md).
//
//	go test -run '^$' -bench SeedImportOPML -benchtime 1x -count 3 ./internal/app/
func BenchmarkSeedImportOPML(b *testing.B) {
	for _, engine := range []string{"sqlite", "postgres"} {
		b.Run(engine, func(b *testing.B) {
			var took time.Duration
			for range b.N {
				db := sqlstoretest.OpenSQLite(b)
				if engine == "postgres" {
					db = sqlstoretest.OpenPostgres(b)
				}
				took += importMixed(b, db, 3000)
			}
			b.ReportMetric(float64(3000*b.N)/took.Seconds(), "entries/s")
			b.ReportMetric(took.Seconds()/float64(b.N), "s/import")
		})
	}
}

// offDomainFeed is an RSS feed of three fresh items for the sites of
// TestSeedImportEntryOffDomain that serve only a feed.
func offDomainFeed(host string) simweb.Page {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n" + `<rss version="2.0"><channel><title>` + host + `</title><link>https://` + host + `/</link>`)
	for i := range 3 {
		fmt.Fprintf(&b, `<item><title>Item %d</title><link>https://%s/news/%d</link><pubDate>%s</pubDate></item>`,
			i, host, i, time.Now().Add(-time.Duration(i+1)*time.Hour).UTC().Format(time.RFC1123Z))
	}
	b.WriteString(`</channel></rss>`)
	return simweb.Page{ContentType: "application/rss+xml; charset=UTF-8", Body: []byte(b.String())}
}

// The security review's probe: an OPML outline whose htmlUrl is a
// ministry's and whose xmlUrl is on another registrable domain makes a
// draft under the ministry's domain_id, which says so
// (review_reasons entry_off_domain, naming both domains) in the batch
// result, the seed and the list. A bulk promote by filter leaves it
// out (dry run and real, counted in held_for_review); a bulk promote
// naming it, or a single promote, promotes it. An entry on the www.
// twin, a feeds. sibling or FeedBurner has no such reason. Both engines.
func TestSeedImportEntryOffDomain(t *testing.T) {
	t.Parallel()
	sites := []simweb.Site{
		{Host: "mom.gov.sg", Layout: simweb.LayoutWordPress},
		{Host: "mti.gov.sg", Layout: simweb.LayoutWordPress},
		{Host: "attacker-feeds.example", Pages: map[string]simweb.Page{
			"/feed.xml": offDomainFeed("attacker-feeds.example"), "/trade.xml": offDomainFeed("attacker-feeds.example")}},
		{Host: "apex-www.gov.sg", Layout: simweb.LayoutWordPress},
		{Host: "sibling-feeds.gov.sg", Layout: simweb.LayoutWordPress},
		{Host: "feeds.sibling-feeds.gov.sg", Pages: map[string]simweb.Page{"/feed.xml": offDomainFeed("sibling-feeds.gov.sg")}},
		{Host: "burner-pub.gov.sg", Layout: simweb.LayoutWordPress},
		{Host: "feeds.feedburner.com", Pages: map[string]simweb.Page{"/BurnerPub": offDomainFeed("burner-pub.gov.sg")}},
	}
	const opml = `<?xml version="1.0" encoding="UTF-8"?>
<opml version="2.0"><head><title>probe</title></head><body>
<outline type="rss" text="Ministry" htmlUrl="https://www.mom.gov.sg/" xmlUrl="https://attacker-feeds.example/feed.xml"/>
<outline type="rss" text="Trade" htmlUrl="https://www.mti.gov.sg/" xmlUrl="https://attacker-feeds.example/trade.xml"/>
<outline type="rss" text="Apex and www" htmlUrl="https://www.apex-www.gov.sg/" xmlUrl="https://apex-www.gov.sg/feed/"/>
<outline type="rss" text="Sibling" htmlUrl="https://sibling-feeds.gov.sg/" xmlUrl="https://feeds.sibling-feeds.gov.sg/feed.xml"/>
<outline type="rss" text="Burner" htmlUrl="https://www.burner-pub.gov.sg/" xmlUrl="https://feeds.feedburner.com/BurnerPub"/>
</body></opml>
`
	const (
		mom     = "gov:sg:mom.gov.sg::news"
		mti     = "gov:sg:mti.gov.sg::news"
		apexWWW = "gov:sg:apex-www.gov.sg::news"
		sibling = "gov:sg:sibling-feeds.gov.sg::news"
		burner  = "gov:sg:burner-pub.gov.sg::news"
	)
	sqlstoretest.Engines(t, func(t *testing.T, db *sqlstore.DB) {
		_, client := simwebtest.Client(t, sites, 2*time.Second)
		s := newStack(t, db, withQueue(), withContract(contract.New(client, contract.Config{})))
		b, res := s.runImport(t, "country=sg&category=news", "text/x-opml", opml)
		require.Empty(t, res.Rejected)
		held := map[string][]seedengine.SeedReviewReason{}
		for _, c := range res.Created {
			held[c.SeedID] = c.ReviewReasons
		}
		require.Len(t, held, 5, "%+v", res.Created)

		// The probe: placed under the ministry, and saying so.
		sd := s.seed(t, mom)
		require.Equal(t, "https://attacker-feeds.example/feed.xml", sd.Fetch.EntryURL)
		require.Len(t, sd.ReviewReasons, 1)
		reason := sd.ReviewReasons[0]
		require.Equal(t, seedengine.ReviewEntryOffDomain, reason.Code)
		require.Contains(t, reason.Message, "attacker-feeds.example")
		require.Contains(t, reason.Message, "mom.gov.sg")
		require.Equal(t, sd.ReviewReasons, held[mom], "the batch result names the reason")
		require.Equal(t, seedengine.ReviewEntryOffDomain, s.seed(t, mti).ReviewReasons[0].Code)
		for _, id := range []string{apexWWW, sibling, burner} {
			require.Empty(t, s.seed(t, id).ReviewReasons, id)
			require.Empty(t, held[id], id)
		}
		var list struct {
			Items []seedengine.Seed `json:"items"`
		}
		s.get(t, "/api/v1/seeds?batch_id="+b.ID, &list)
		require.Len(t, list.Items, 5)
		for _, it := range list.Items {
			require.Equal(t, it.SeedID == mom || it.SeedID == mti, len(it.ReviewReasons) == 1, "the list shows the reasons too: %s", it.SeedID)
		}

		// A promote by filter leaves both out, the dry run as the real one.
		filter := map[string]any{"status": "draft", "batch_id": b.ID}
		for _, dry := range []bool{true, false} {
			r := s.post(t, "/api/v1/seeds/bulk", map[string]any{"action": "promote", "filter": filter, "dry_run": dry})
			require.Equal(t, http.StatusOK, r.StatusCode, string(r.Body))
			out := httpapitest.Decode[seedengine.SeedBulkResult](t, r)
			require.Equal(t, 5, out.Matched, "dry run %v", dry)
			require.Equal(t, 2, out.HeldForReview, "dry run %v", dry)
			var changed []string
			for _, c := range out.Changed {
				changed = append(changed, c.SeedID)
			}
			require.ElementsMatch(t, []string{apexWWW, sibling, burner}, changed, "dry run %v", dry)
			require.Len(t, out.Skipped, 2)
			for _, sk := range out.Skipped {
				require.Contains(t, []string{mom, mti}, sk.SeedID)
				require.Equal(t, seedengine.SeedDraft, sk.Status)
				require.Equal(t, seedengine.ReviewEntryOffDomain, sk.ReviewReasons[0].Code)
				require.Contains(t, sk.Reason, "attacker-feeds.example")
				require.Contains(t, sk.Reason, "seed_ids")
			}
		}
		require.Equal(t, seedengine.SeedDraft, s.seed(t, mom).Status)
		require.Equal(t, seedengine.SeedActive, s.seed(t, apexWWW).Status)

		// Named, it is promoted: by seed_ids in a bulk promote, or alone.
		r := s.post(t, "/api/v1/seeds/bulk", map[string]any{"action": "promote", "seed_ids": []string{mom}})
		require.Equal(t, http.StatusOK, r.StatusCode, string(r.Body))
		out := httpapitest.Decode[seedengine.SeedBulkResult](t, r)
		require.Equal(t, []seedengine.SeedBulkChange{{SeedID: mom, From: seedengine.SeedDraft, To: seedengine.SeedActive}}, out.Changed)
		require.Zero(t, out.HeldForReview)
		r = s.post(t, "/api/v1/seeds/promote", map[string]any{"seedId": mti})
		require.Equal(t, http.StatusOK, r.StatusCode, string(r.Body))
		promoted := httpapitest.Decode[seedengine.Seed](t, r)
		require.Equal(t, seedengine.SeedActive, promoted.Status)
		require.Equal(t, seedengine.ReviewEntryOffDomain, promoted.ReviewReasons[0].Code, "the reason stays: it describes the contract")
	})
}

// An entry on a port of its own is governed by that port's robots.txt
// (RFC 9309 §2.3): the import asks for it there, never on the default
// port.
func TestSeedImportRobotsOfTheEntrysPort(t *testing.T) {
	t.Parallel()
	web := simwebtest.Start(t)
	web.AddSite(simweb.Site{Host: "port-feed.gov.sg", Layout: simweb.LayoutWordPress})
	var mu sync.Mutex
	var robots []string
	web.Observe(func(r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			mu.Lock()
			robots = append(robots, r.Host)
			mu.Unlock()
		}
	})
	_, port, err := net.SplitHostPort(web.HTTPSAddr())
	require.NoError(t, err)
	client := simwebtest.NewClient(t, web, 2*time.Second, ":8443:127.0.0.1:"+port)
	s := newStack(t, sqlstoretest.OpenSQLite(t), withQueue(), withContract(contract.New(client, contract.Config{})))
	_, res := s.runImport(t, "country=sg&category=news", "text/plain", "https://port-feed.gov.sg:8443/feed/\n")
	require.Len(t, res.Created, 1, "%+v", res)
	mu.Lock()
	defer mu.Unlock()
	require.Equal(t, []string{"port-feed.gov.sg:8443"}, robots)
}
