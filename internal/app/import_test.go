package app_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/contract"
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
