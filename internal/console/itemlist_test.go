package console_test

import (
	"context"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/browsertest"
	"github.com/seedengine/seedengine/internal/harvest"
	"github.com/seedengine/seedengine/internal/layout"
	"github.com/seedengine/seedengine/internal/sqlstore"
)

// recordItems records n items of seedID, first seen at at, and returns
// their ids in the order recorded.
func recordItems(t *testing.T, e *env, seedID string, n int, at time.Time, tag string) []int64 {
	t.Helper()
	sd, err := e.seeds.FindSeedByID(t.Context(), seedID)
	require.NoError(t, err)
	var its []seedengine.Item
	for i := range n {
		u := fmt.Sprintf("https://www.%s/newsroom/%s-%d", sd.Source.Domain, tag, i)
		its = append(its, seedengine.Item{URL: u, NormalizedURL: u, Title: fmt.Sprintf("%s %d", tag, i), SeedID: seedID, DomainID: sd.DomainID,
			Country: sd.Country, Category: sd.Category, FirstSeenAt: at, Source: seedengine.ItemSource{EntryURL: sd.Fetch.EntryURL, FetchType: sd.Fetch.Type}})
	}
	c := seedengine.SeedCheck{SeedID: seedID, CheckedAt: at, Outcome: seedengine.CheckOK, Status: 200, Items: n}
	_, _, err = e.seeds.RecordSeedCheck(t.Context(), &c, its, false, func(*seedengine.SeedCheck, seedengine.ArrivalHistory) (seedengine.SeedHealth, time.Time) {
		return seedengine.SeedHealth{State: seedengine.HealthHealthy}, at.Add(time.Hour)
	}, nil)
	require.NoError(t, err)
	found, err := sqlstore.NewItemService(e.db).FindItems(t.Context(), seedengine.ItemFilter{SeedID: seedID, Limit: seedengine.MaxItemsPage})
	require.NoError(t, err)
	var ids []int64
	for _, it := range found {
		if strings.Contains(it.URL, "/"+tag+"-") {
			ids = append(ids, it.ID)
		}
	}
	require.Len(t, ids, n)
	return ids
}

var (
	itemRowRE = regexp.MustCompile(`<td class="url"><a href="/console/items/(\d+)">`)
	pagerRE   = regexp.MustCompile(`<a href="/console/items\?([^"]*)" rel="(prev|next)">`)
)

// listed is what an items page shows: the rows' item ids in order, and
// the queries of its newer and older links ("" when none).
func listed(t *testing.T, p page) (ids []int64, newer, older string) {
	t.Helper()
	require.Equal(t, http.StatusOK, p.StatusCode, p.body)
	_, table, ok := strings.Cut(p.body, `<table class="items" id="items" data-keys="rows">`)
	require.True(t, ok, p.body)
	table, _, _ = strings.Cut(table, "</table>")
	for _, m := range itemRowRE.FindAllStringSubmatch(table, -1) {
		id, err := strconv.ParseInt(m[1], 10, 64)
		require.NoError(t, err)
		ids = append(ids, id)
	}
	for _, m := range pagerRE.FindAllStringSubmatch(p.body, -1) {
		if m[2] == "prev" {
			newer = html.UnescapeString(m[1])
		} else {
			older = html.UnescapeString(m[1])
		}
	}
	return ids, newer, older
}

func desc(ids ...[]int64) []int64 {
	var out []int64
	for _, s := range ids {
		out = append(out, s...)
	}
	slices.Sort(out)
	slices.Reverse(out)
	return out
}

// The items page lists items newest first, fifty a page, older and newer
// by cursor, filtered as the API filters them.
func TestItemsPage(t *testing.T) {
	t.Parallel()
	e := setup(t, false)
	createSeed(t, e, "gov:sg:mom.gov.sg", "MOM")
	createSeed(t, e, "gov:my:mohr.gov.my", "MOHR")
	const sg, my = "gov:sg:mom.gov.sg::news", "gov:my:mohr.gov.my::news"
	day1 := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	day2 := day1.Add(24 * time.Hour)
	a := recordItems(t, e, sg, 70, day1, "a")
	b := recordItems(t, e, my, 40, day2, "b")
	c := recordItems(t, e, sg, 30, day2, "c")
	all := desc(a, b, c)

	br := e.browser(t)
	require.Equal(t, http.StatusSeeOther, br.signIn(e.reads).StatusCode)

	first := br.get("/console/items")
	require.Contains(t, first.body, `<a href="/console/items" aria-current="page">Items</a>`, "the menu's entry")
	ids, newer, older := listed(t, first)
	require.Equal(t, all[:50], ids, "the newest fifty, newest first")
	require.Empty(t, newer)
	require.Equal(t, "before="+strconv.FormatInt(all[49], 10), older)
	require.Contains(t, first.body, `<time datetime="2026-03-02T09:00:00Z">2026-03-02 09:00 UTC</time>`, "first seen")
	require.Contains(t, first.body, `<a href="https://www.mom.gov.sg/newsroom/c-29" rel="noopener noreferrer nofollow" target="_blank">`, "the URL, a link out")
	require.Contains(t, first.body, `<a href="/console/seeds/gov:my:mohr.gov.my::news">gov:my:mohr.gov.my::news</a>`, "the seed")
	require.Contains(t, first.body, `<a href="/console/items/`+strconv.FormatInt(c[29], 10)+`">c 29</a>`, "the title, a link to the item page")
	require.Contains(t, first.body, "<small>no page</small>", "a seed that fetches no pages")
	require.NotContains(t, first.body, `id="files"`, "no partition named, no files")

	second := br.get("/console/items?" + older)
	ids, newer, older = listed(t, second)
	require.Equal(t, all[50:100], ids)
	require.Equal(t, "after="+strconv.FormatInt(all[50], 10), newer)
	require.Contains(t, second.body, `<a href="/console/items">newest</a>`)
	third := br.get("/console/items?" + older)
	ids, newer3, older := listed(t, third)
	require.Equal(t, all[100:], ids, "the last forty")
	require.Empty(t, older, "nothing older")
	back, _, _ := listed(t, br.get("/console/items?"+newer3))
	require.Equal(t, all[50:100], back, "newer from the last page is the page before it")
	ids, newer, _ = listed(t, br.get("/console/items?"+newer))
	require.Equal(t, all[:50], ids, "newer from the second page is the first")
	require.Empty(t, newer, "nothing newer than the newest")

	// Filters: a seed (100 items: two full pages, the second the last),
	// a country, a partition, and a filter the API refuses.
	seedIDs := desc(a, c)
	p := br.get("/console/items?seed_id=" + url.QueryEscape(sg))
	ids, _, older = listed(t, p)
	require.Equal(t, seedIDs[:50], ids)
	require.Equal(t, "before="+strconv.FormatInt(seedIDs[49], 10)+"&seed_id="+url.QueryEscape(sg), older, "paging keeps the filter")
	require.Contains(t, p.body, `name="seed_id" value="gov:sg:mom.gov.sg::news"`)
	ids, _, older = listed(t, br.get("/console/items?"+older))
	require.Equal(t, seedIDs[50:], ids)
	require.Empty(t, older, "exactly a hundred: no third page")

	ids, _, older = listed(t, br.get("/console/items?country=MY"))
	require.Equal(t, desc(b), ids)
	require.Empty(t, older)
	ids, _, _ = listed(t, br.get("/console/items?country=sg&category=news&date=2026-03-01"))
	require.Equal(t, desc(a)[:50], ids)

	bad := br.get("/console/items?date=yesterday")
	require.Equal(t, http.StatusUnprocessableEntity, bad.StatusCode)
	require.Contains(t, bad.body, `class="problem"`)
	require.NotContains(t, bad.body, `id="items"`)
	for _, q := range []string{"before=abc", "before=0", "after=-1", "before=5&after=3"} {
		p := br.get("/console/items?" + q)
		require.Equal(t, http.StatusBadRequest, p.StatusCode, q)
		require.Contains(t, p.body, "before and after are item ids", q)
	}
	ids, _, older = listed(t, br.get("/console/items?before=1"))
	require.Empty(t, ids)
	require.Empty(t, older)

	// Signed out: the sign-in form.
	require.Equal(t, http.StatusSeeOther, e.browser(t).get("/console/items").StatusCode)
}

// A search lists the items of the articles it finds, newest article
// first; a search the API refuses says why.
func TestItemsSearch(t *testing.T) {
	t.Parallel()
	e := setup(t, false)
	const seedID = "gov:sg:mom.gov.sg::news"
	createSeed(t, e, "gov:sg:mom.gov.sg", "MOM")
	article := func(title, text string) *seedengine.Article {
		return &seedengine.Article{ArticleFields: seedengine.ArticleFields{Title: title, Text: text, WordCount: 5, Language: "en"}}
	}
	its := harvestPages(t, e.db, seedID, []pageCase{
		{title: "One", state: seedengine.PageStored, status: 200, article: article("Budget day", "The budget was read."), hash: 1},
		{title: "Two", state: seedengine.PageStored, status: 200, article: article("Rain", "Heavy rain in the east."), hash: 2},
		{title: "Three", state: seedengine.PageStored, status: 200, article: article("Budget debate", "Members debated the budget."), hash: 3},
		{title: "Four", state: seedengine.PageFailed, status: 404, reason: "http_404"},
	})
	br := e.browser(t)
	require.Equal(t, http.StatusSeeOther, br.signIn(e.reads).StatusCode)
	p := br.get("/console/items?q=budget")
	ids, _, older := listed(t, p)
	require.Equal(t, []int64{its[2].ID, its[0].ID}, ids, "the items of the two budget articles, newest first")
	require.Empty(t, older)
	require.Contains(t, p.body, `id="search-note"`)
	require.Contains(t, p.body, `<span class="status status-stored">stored</span> <small>HTTP 200</small>`)

	ids, _, _ = listed(t, br.get("/console/items?q=budget&country=my"))
	require.Empty(t, ids)
	p = br.get("/console/items?q=nothing-like-it")
	ids, _, _ = listed(t, p)
	require.Empty(t, ids)
	require.Contains(t, p.body, "No article matches.")

	ids, _, _ = listed(t, br.get("/console/items"))
	require.Equal(t, []int64{its[3].ID, its[2].ID, its[1].ID, its[0].ID}, ids, "without q: every item")

	bad := br.get("/console/items?q=" + url.QueryEscape("-budget"))
	require.Equal(t, http.StatusUnprocessableEntity, bad.StatusCode, bad.body)
	require.Contains(t, bad.body, `class="problem"`)
}

// archivedHTML is a stored page that tries everything a page might: run
// script that changes its own document and its parent's, call the API
// and the console with the operator's cookies, load images, styles and
// scripts from the console and from outside.
func archivedHTML(probe string) string {
	return `<!doctype html><html><head><title>Archived title</title>
<link rel="stylesheet" href="/console/static/console.css?probe=` + probe + `-css">
<script src="/console/static/console.js?probe=` + probe + `-js"></script>
<script>
document.title = "script ran";
window.ran = true;
try { parent.document.title = "parent changed"; parent.document.body.setAttribute("data-pwned", "1"); } catch (e) {}
try { top.location = "/console/items?probe=` + probe + `-top"; } catch (e) {}
fetch("/api/v1/keys?probe=` + probe + `-keys");
fetch("/console/items?probe=` + probe + `-fetch", {credentials: "include"});
</script>
</head><body>
<h1>Budget statement</h1>
<p id="marker">The archived page's own text.</p>
<img src="/console/static/none.png?probe=` + probe + `-img" alt="">
<img src="http://example.org/tracker.png?probe=` + probe + `-outside" alt="">
<script>document.body.insertAdjacentHTML("beforeend", "<p id=ran>script ran</p>");</script>
</body></html>`
}

// An item's stored page is shown in a sandboxed frame from a console
// route that passes the API's protective headers on and lets only the
// console frame it; a plain link downloads it. Other types are
// attachments only; no stored page, no frame.
func TestItemArchivedPage(t *testing.T) {
	t.Parallel()
	e := setup(t, false)
	const seedID = "gov:sg:mom.gov.sg::news"
	createSeed(t, e, "gov:sg:mom.gov.sg", "MOM")
	content := archivedHTML("http")
	pdf := "%PDF-1.4\n1 0 obj << >> endobj\ntrailer << >>\n%%EOF\n"
	its := harvestPagesIn(t, e.db, e.blobs, seedID, []pageCase{
		{title: "Archived budget", state: seedengine.PageStored, status: 200, content: content, mime: "text/html; charset=utf-8"},
		{title: "A PDF", state: seedengine.PageStored, status: 200, content: pdf, mime: "application/pdf"},
		{title: "Gone", state: seedengine.PageFailed, status: 404, reason: "http_404"},
	})
	id := func(i int) string { return strconv.FormatInt(its[i].ID, 10) }
	br := e.browser(t)
	require.Equal(t, http.StatusSeeOther, br.signIn(e.reads).StatusCode)

	// The item page: the frame, sandboxed with no token, and the link.
	p := br.get("/console/items/" + id(0))
	require.Equal(t, http.StatusOK, p.StatusCode, p.body)
	require.Contains(t, p.body, `<iframe class="archived" sandbox src="/console/items/`+id(0)+`/page" title="The archived page of item `+id(0)+`, sandboxed" referrerpolicy="no-referrer"></iframe>`)
	require.NotContains(t, p.body, "allow-", "no sandbox token")
	require.Contains(t, p.body, `<a href="/console/items/`+id(0)+`/page?download=1" download id="page-download">Download the page</a>`)
	require.NotContains(t, p.body, "Archived title", "the page's bytes are not in the console's page")
	// The console's page: frames only its own origin, is framed by none.
	own := csp(t, p.Header.Get("Content-Security-Policy"))
	requireStrict(t, own)
	require.Equal(t, []string{"'self'"}, own["frame-src"], "a console page frames its own origin only")
	require.Equal(t, "DENY", p.Header.Get("X-Frame-Options"))

	// The frame's source: the bytes as stored, under the API's policy for
	// outside bytes word for word, framable by the console alone.
	frame := br.get("/console/items/" + id(0) + "/page")
	require.Equal(t, http.StatusOK, frame.StatusCode, frame.body)
	require.Equal(t, content, frame.body)
	api := apiGet(t, e, "/api/v1/items/"+id(0)+"/page/content")
	require.Equal(t, content, api.body)
	apiPolicy := api.Header.Get("Content-Security-Policy")
	require.Equal(t, apiPolicy+"; frame-ancestors 'self'", frame.Header.Get("Content-Security-Policy"), "the API's policy, and who may frame it")
	pol := csp(t, frame.Header.Get("Content-Security-Policy"))
	require.Equal(t, []string{}, pol["sandbox"], "sandbox with no token: no script, an origin of its own")
	require.Equal(t, []string{"'none'"}, pol["default-src"], "nothing loads")
	require.Equal(t, []string{"'none'"}, pol["base-uri"])
	require.Equal(t, []string{"'none'"}, pol["form-action"])
	require.Equal(t, []string{"'self'"}, pol["frame-ancestors"])
	require.Len(t, pol, 5, "nothing else: %v", pol)
	require.Equal(t, "nosniff", frame.Header.Get("X-Content-Type-Options"))
	require.Equal(t, "SAMEORIGIN", frame.Header.Get("X-Frame-Options"))
	require.Equal(t, "no-referrer", frame.Header.Get("Referrer-Policy"))
	require.Equal(t, "same-origin", frame.Header.Get("Cross-Origin-Resource-Policy"))
	require.Equal(t, "no-store", frame.Header.Get("Cache-Control"))
	require.Equal(t, "text/html; charset=utf-8", frame.Header.Get("Content-Type"))
	require.Equal(t, "inline", frame.Header.Get("Content-Disposition"))
	require.Empty(t, frame.Header.Values("Set-Cookie"))

	dl := br.get("/console/items/" + id(0) + "/page?download=1")
	require.Equal(t, http.StatusOK, dl.StatusCode)
	require.Equal(t, content, dl.body)
	require.Equal(t, `attachment; filename="item-`+id(0)+`.html"`, dl.Header.Get("Content-Disposition"))
	require.Equal(t, frame.Header.Get("Content-Security-Policy"), dl.Header.Get("Content-Security-Policy"))

	// A PDF: no frame, a download, and its route answers an attachment
	// whatever is asked.
	p = br.get("/console/items/" + id(1))
	require.Equal(t, http.StatusOK, p.StatusCode)
	require.NotContains(t, p.body, "<iframe")
	require.Contains(t, p.body, `id="page-download"`)
	pf := br.get("/console/items/" + id(1) + "/page")
	require.Equal(t, http.StatusOK, pf.StatusCode)
	require.Equal(t, pdf, pf.body)
	require.Equal(t, "application/pdf", pf.Header.Get("Content-Type"))
	require.Equal(t, `attachment; filename="item-`+id(1)+`.pdf"`, pf.Header.Get("Content-Disposition"))
	require.Contains(t, pf.Header.Get("Content-Security-Policy"), "sandbox")

	// No stored page, no item, no id: the console's 404, never framable.
	p = br.get("/console/items/" + id(2))
	require.NotContains(t, p.body, "<iframe")
	require.NotContains(t, p.body, `id="page-download"`)
	for _, path := range []string{"/console/items/" + id(2) + "/page", "/console/items/" + strconv.FormatInt(its[2].ID+1, 10) + "/page",
		"/console/items/999999/page", "/console/items/0/page", "/console/items/01/page", "/console/items/abc/page"} {
		p := br.get(path)
		require.Equal(t, http.StatusNotFound, p.StatusCode, path)
		require.Contains(t, p.body, "<h1>Not found</h1>", path)
		require.Equal(t, "DENY", p.Header.Get("X-Frame-Options"), path)
		require.Equal(t, []string{"'none'"}, csp(t, p.Header.Get("Content-Security-Policy"))["frame-ancestors"], path)
	}

	// Signed out, the frame's source leads to the sign-in form.
	require.Equal(t, http.StatusSeeOther, e.browser(t).get("/console/items/"+id(0)+"/page").StatusCode)
}

// apiGet calls the API with the admin key.
func apiGet(t *testing.T, e *env, path string) page {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, e.ts.URL+path, nil)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+e.admin)
	resp, err := e.ts.Client().Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode, string(raw))
	return page{resp, string(raw)}
}

// A partition's filter shows its item files, WARC files and article
// files, each with its size and a download through the console: the bytes
// as stored, under the API's headers.
func TestItemsPartitionFiles(t *testing.T) {
	t.Parallel()
	e := setup(t, false)
	const seedID = "gov:sg:mom.gov.sg::news"
	createSeed(t, e, "gov:sg:mom.gov.sg", "MOM")
	its := harvestPagesIn(t, e.db, e.blobs, seedID, []pageCase{
		{title: "Stored", state: seedengine.PageStored, status: 200, content: "<p>hello</p>", article: budgetArticle()},
		{title: "Queued", state: seedengine.PageQueued},
	})
	n, err := harvest.NewFlusher(sqlstore.NewItemService(e.db).Files(), e.blobs, harvest.FlushConfig{}).Flush(t.Context(), true)
	require.NoError(t, err)
	require.Equal(t, 1, n)
	n, err = harvest.NewFlusher(sqlstore.NewArticleService(e.db).Files(), e.blobs, harvest.FlushConfig{
		Key: layout.ArticleFileKey, What: "article"}).Flush(t.Context(), true)
	require.NoError(t, err)
	require.Equal(t, 1, n)
	found, err := sqlstore.NewItemService(e.db).FindItems(t.Context(), seedengine.ItemFilter{Limit: 1})
	require.NoError(t, err)
	part := found[0].Partition()
	base := "/console/items/sg/news/" + part.Date

	br := e.browser(t)
	require.Equal(t, http.StatusSeeOther, br.signIn(e.reads).StatusCode)
	p := br.get("/console/items?country=sg&category=news&date=" + part.Date)
	ids, _, _ := listed(t, p)
	require.Equal(t, []int64{its[1].ID, its[0].ID}, ids)
	require.Contains(t, p.body, `<h2>Files of SG / news / `+part.Date+`</h2>`)
	table := func(id string) string {
		t.Helper()
		_, rest, ok := strings.Cut(p.body, `<table class="compact" id="`+id+`">`)
		require.True(t, ok, "no table %s in %s", id, p.body)
		rest, _, _ = strings.Cut(rest, "</table>")
		return rest
	}
	require.Regexp(t, `<a href="`+base+`/items_0001.jsonl" download title="[^"]+">items_0001.<wbr>jsonl</a></td><td>2</td>`, table("item-files"))
	warcs := table("warc-files")
	m := regexp.MustCompile(`<a href="(` + base + `/warc/[^"]+\.warc\.gz)" download title="([^"]+)">`).FindStringSubmatch(warcs)
	require.NotNil(t, m, warcs)
	require.Contains(t, m[1], "seedengine-test-spool-"+strconv.FormatInt(its[0].ID, 10))
	require.Regexp(t, `<td>1</td><td title="\d+ bytes">\d+ B</td>`, warcs)
	arts := table("article-files")
	require.Contains(t, arts, `<a href="/console/articles/sg/news/`+part.Date+`/articles_0001.jsonl" download`)
	require.Contains(t, arts, `</a></td><td>1</td>`)

	f := br.get(base + "/items_0001.jsonl")
	require.Equal(t, http.StatusOK, f.StatusCode, f.body)
	require.Equal(t, 2, strings.Count(f.body, "\n"), "the file as stored, one item a line")
	require.Contains(t, f.body, `"seed_id":"gov:sg:mom.gov.sg::news"`)
	require.Equal(t, `attachment; filename="sg-news-`+part.Date+`-items_0001.jsonl"`, f.Header.Get("Content-Disposition"))
	require.Equal(t, "application/x-ndjson", f.Header.Get("Content-Type"))
	require.Contains(t, f.Header.Get("Content-Security-Policy"), "sandbox")
	require.Equal(t, "nosniff", f.Header.Get("X-Content-Type-Options"))
	require.Equal(t, "DENY", f.Header.Get("X-Frame-Options"))
	require.Equal(t, f.body, br.get(base+"/items_0001").body, "the name without .jsonl too")

	// The WARC file: the object's bytes, still gzip, never decoded.
	wf := br.get(m[1])
	require.Equal(t, http.StatusOK, wf.StatusCode, wf.body)
	rc, _, err := e.blobs.NewReader(t.Context(), html.UnescapeString(m[2]))
	require.NoError(t, err)
	stored, err := io.ReadAll(rc)
	require.NoError(t, err)
	require.NoError(t, rc.Close())
	require.Equal(t, string(stored), wf.body, "the WARC file as stored")
	require.Equal(t, "application/warc", wf.Header.Get("Content-Type"))
	require.Empty(t, wf.Header.Get("Content-Encoding"))
	require.Equal(t, "attachment; filename="+path.Base(m[1]), wf.Header.Get("Content-Disposition"), "the API's name, unique already")
	require.Contains(t, wf.Header.Get("Content-Security-Policy"), "sandbox")

	// The article file.
	af := br.get("/console/articles/sg/news/" + part.Date + "/articles_0001.jsonl")
	require.Equal(t, http.StatusOK, af.StatusCode, af.body)
	require.Equal(t, 1, strings.Count(af.body, "\n"))
	require.Contains(t, af.body, `"title":"Budget <b>2027</b> statement"`, "as stored: the download is never rendered")
	require.Equal(t, `attachment; filename="sg-news-`+part.Date+`-articles_0001.jsonl"`, af.Header.Get("Content-Disposition"))

	for _, path := range []string{base + "/items_0002.jsonl", "/console/items/sg/news/2001-01-01/items_0001.jsonl", "/console/items/sg/news/tomorrow/items_0001",
		"/console/items/s!/news/" + part.Date + "/items_0001", base + "/warc/nope.warc.gz", "/console/articles/sg/news/" + part.Date + "/articles.parquet",
		"/console/articles/sg/news/" + part.Date + "/articles_0002.jsonl"} {
		p := br.get(path)
		require.Equal(t, http.StatusNotFound, p.StatusCode, path)
		require.Contains(t, p.body, "<h1>Not found</h1>", path)
	}
}

// The stored page's script does not run in the item page's frame: the
// page's text shows, and neither its own document, the console's page
// nor the server saw anything a script or a load would have done.
func TestBrowserArchivedPageSandboxed(t *testing.T) {
	t.Parallel()
	b := browsertest.Start(t)
	tab := b.Tab()
	b.RequireOffline(t, tab)
	e := setup(t, false)
	const seedID = "gov:sg:mom.gov.sg::news"
	createSeed(t, e, "gov:sg:mom.gov.sg", "MOM")
	its := harvestPagesIn(t, e.db, e.blobs, seedID, []pageCase{
		{title: "Archived budget", state: seedengine.PageStored, status: 200, content: archivedHTML("browser")},
	})
	// The server, recording what reaches it.
	var (
		mu   sync.Mutex
		seen []string
	)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.URL.RequestURI())
		mu.Unlock()
		e.ts.Config.Handler.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)

	ctx, cancel := context.WithTimeout(tab, 60*time.Second)
	defer cancel()
	_, err := chromedp.Call(ctx, cdppage.AddScriptToEvaluateOnNewDocument, cdppage.AddScriptToEvaluateOnNewDocumentParams{Source: recordViolations})
	require.NoError(t, err)
	itemPath := "/console/items/" + strconv.FormatInt(its[0].ID, 10)
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(ts.URL+"/console/login?next="+url.QueryEscape(itemPath)),
		chromedp.WaitVisible(chromedp.ID("key")), chromedp.SendKeys(chromedp.ID("key"), e.reads)))
	// The item page's load event waits for its frame.
	_, err = chromedp.Run(ctx, chromedp.WaitEvent(cdppage.LoadEventFired, nil,
		chromedp.Click(chromedp.CSS(`form[action="/console/login"] button[type=submit]`))))
	require.NoError(t, err, "sign in")
	loc, err := chromedp.Run(ctx, chromedp.Location())
	require.NoError(t, err)
	require.Equal(t, ts.URL+itemPath, loc)
	time.Sleep(time.Second) // time for a fetch a script might have sent

	state, err := chromedp.Run(ctx, chromedp.Evaluate[string](`JSON.stringify({title: document.title,
		pwned: document.body.getAttribute("data-pwned"), ran: window.ran === true, frames: document.querySelectorAll("iframe.archived[sandbox]").length,
		sandbox: document.querySelector("iframe.archived").getAttribute("sandbox")})`))
	require.NoError(t, err)
	require.JSONEq(t, `{"title": "Archived budget · seedengine console", "pwned": null, "ran": false, "frames": 1, "sandbox": ""}`, state,
		"the console's page is as it was")

	b.Screenshot(t, ctx, "item-archived-page")
	inner := frameHTML(t, ctx, itemPath+"/page")
	require.Contains(t, inner, "The archived page's own text.", "the frame shows the page")
	require.Contains(t, inner, "<title>Archived title</title>", "the page's script did not retitle it")
	require.NotContains(t, inner, `id="ran"`, "the page's last script did not run")
	_, err = chromedp.Run(ctx, chromedp.Location())
	require.NoError(t, err, "the tab is still there")

	mu.Lock()
	defer mu.Unlock()
	frameLoads := 0
	for _, u := range seen {
		require.NotContains(t, u, "probe=", "the stored page loaded or fetched %s", u)
		require.False(t, strings.HasPrefix(u, "/api/v1/keys"), u)
		if u == itemPath+"/page" {
			frameLoads++
		}
	}
	require.Equal(t, 1, frameLoads, "the frame loaded once: %v", seen)
	b.RequireStayedHome(t)
}

// frameHTML is the document of the tab's frame whose src is src, read
// through the DOM domain, so no script of ours runs in it: from the
// page's own tree when the frame is in its process, else from the frame's
// own target (Chromium may put a sandboxed frame in a process of its own).
func frameHTML(t *testing.T, ctx context.Context, src string) string {
	t.Helper()
	depth, pierce := int64(-1), true
	doc, err := chromedp.Call(ctx, dom.GetDocument, dom.GetDocumentParams{Depth: &depth, Pierce: &pierce})
	require.NoError(t, err)
	var iframe *cdp.Node
	var walk func(n *cdp.Node)
	walk = func(n *cdp.Node) {
		if n == nil || iframe != nil {
			return
		}
		if n.LocalName == "iframe" && slices.Contains(attrs(n), "src="+src) {
			iframe = n
			return
		}
		for _, c := range n.Children {
			walk(c)
		}
	}
	walk(doc.Root)
	require.NotNil(t, iframe, "no frame of %s", src)
	outer := func(ctx context.Context, n *cdp.Node) string {
		for _, c := range n.Children {
			if c.LocalName == "html" {
				res, err := chromedp.Call(ctx, dom.GetOuterHTML, dom.GetOuterHTMLParams{BackendNodeID: c.BackendNodeID})
				require.NoError(t, err)
				return res.OuterHTML
			}
		}
		return ""
	}
	if cd := iframe.ContentDocument; cd != nil {
		if s := outer(ctx, cd); s != "" {
			return s
		}
	}
	infos, err := chromedp.Targets(ctx)
	require.NoError(t, err)
	for _, info := range infos {
		if info.Type == "iframe" && strings.HasSuffix(info.URL, src) {
			// Detached, not closed, when done: closing the frame's
			// target would close the tab.
			fctx, cancel := chromedp.NewContext(ctx, chromedp.WithTargetID(info.TargetID), chromedp.WithDetachOnCancel())
			defer cancel()
			fdoc, err := chromedp.Call(fctx, dom.GetDocument, dom.GetDocumentParams{Depth: &depth})
			require.NoError(t, err)
			return outer(fctx, fdoc.Root)
		}
	}
	t.Fatalf("the frame of %s has no document", src)
	return ""
}

// attrs are a node's attributes as name=value.
func attrs(n *cdp.Node) []string {
	var out []string
	for i := 0; i+1 < len(n.Attributes); i += 2 {
		out = append(out, n.Attributes[i]+"="+n.Attributes[i+1])
	}
	return out
}
