package console_test

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/sqlstore"
	"github.com/seedengine/seedengine/internal/warc"
)

// pageCase is one item whose page and article harvestPages records.
type pageCase struct {
	title  string
	state  seedengine.PageState // stored, fetched, queued, skipped or failed
	status int                  // the HTTP status of a page that has one
	reason string               // why a page was skipped or failed
	// article, when set, is recorded as the stored page's article (its
	// item, seed and partition filled in); hash stands for its text: two
	// articles with the same hash are copies.
	article *seedengine.Article
	hash    uint64
	// content, when set, is a stored page's body, served with mime
	// (text/html when empty): harvestPagesIn writes it into a real WARC
	// record in blobs, where the API reads it back.
	content, mime string
}

// recordedItem is an item harvestPages recorded, with its article's id
// (0 when none).
type recordedItem struct{ ID, Article int64 }

// harvestPages makes seedID fetch pages, records a read of it with one
// item per case, and takes each item's page to its case's state with
// its article, as the fetcher, the WARC writer and the extractor would.
// An article is recorded before its page is stored, so a running queue
// finds no stored page without one to extract.
func harvestPages(t *testing.T, db *sqlstore.DB, seedID string, cases []pageCase) []recordedItem {
	t.Helper()
	return harvestPagesIn(t, db, nil, seedID, cases)
}

// harvestPagesIn is harvestPages that also writes the stored pages whose
// case has content to blobs, each as a WARC file of its own.
func harvestPagesIn(t *testing.T, db *sqlstore.DB, blobs seedengine.ObjectStore, seedID string, cases []pageCase) []recordedItem {
	t.Helper()
	ctx := t.Context()
	seeds, items := sqlstore.NewSeedService(db), sqlstore.NewItemService(db)
	pages, articles := sqlstore.NewPageService(db), sqlstore.NewArticleService(db)
	sd, err := seeds.UpdateSeed(ctx, seedID, "test", func(s *seedengine.Seed) error { s.Harvest.Pages = true; return nil })
	require.NoError(t, err)
	at := time.Now().UTC().Truncate(time.Second)
	var its []seedengine.Item
	for i, c := range cases {
		u := fmt.Sprintf("https://www.%s/newsroom/item-%d", sd.Source.Domain, i)
		its = append(its, seedengine.Item{URL: u, NormalizedURL: u, Title: c.title, SeedID: sd.SeedID, DomainID: sd.DomainID,
			Country: sd.Country, Category: sd.Category, FirstSeenAt: at,
			Source: seedengine.ItemSource{EntryURL: sd.Fetch.EntryURL, FetchType: sd.Fetch.Type}})
	}
	check := seedengine.SeedCheck{SeedID: sd.SeedID, CheckedAt: at, Outcome: seedengine.CheckOK, Status: 200, Items: len(its)}
	_, _, err = seeds.RecordSeedCheck(ctx, &check, its, false, func(*seedengine.SeedCheck, seedengine.ArrivalHistory) (seedengine.SeedHealth, time.Time) {
		return seedengine.SeedHealth{State: seedengine.HealthHealthy, LastCheckAt: &at}, at.Add(time.Hour)
	}, nil)
	require.NoError(t, err)
	found, err := items.FindItems(ctx, seedengine.ItemFilter{SeedID: sd.SeedID, Limit: seedengine.MaxItemsPage})
	require.NoError(t, err)
	byURL := map[string]seedengine.Item{}
	for _, it := range found {
		byURL[it.NormalizedURL] = it
	}

	out := make([]recordedItem, len(cases))
	for i, c := range cases {
		it, ok := byURL[its[i].NormalizedURL]
		require.True(t, ok, "item %d recorded", i)
		out[i].ID = it.ID
		p, err := pages.FindPage(ctx, it.ID)
		require.NoError(t, err)
		switch c.state {
		case seedengine.PageQueued:
		case seedengine.PageSkipped, seedengine.PageFailed:
			require.NoError(t, pages.MarkPageDone(ctx, it.ID, c.state, c.status, c.reason, at))
		case seedengine.PageFetched, seedengine.PageStored:
			spool := "spool-" + strconv.FormatInt(it.ID, 10)
			name := "seedengine-test-" + spool + ".warc.gz"
			p.Spool, p.SpoolOffset, p.SpoolLength, p.Status, p.MIME, p.FetchedAt = spool, 2048, 1000, c.status, "text/html", &at
			var file []byte
			if c.content != "" {
				require.NotNil(t, blobs, "a page's content needs an object store")
				require.Equal(t, seedengine.PageStored, c.state, "only a stored page has content")
				if c.mime != "" {
					p.MIME = c.mime
				}
				var buf bytes.Buffer
				ww, err := warc.NewWriter(&buf, name, map[string]string{"software": "seedengine test"})
				require.NoError(t, err)
				resp := fmt.Sprintf("HTTP/1.1 %d OK\r\nContent-Type: %s\r\nContent-Length: %d\r\n\r\n%s", c.status, p.MIME, len(c.content), c.content)
				rec, err := ww.Write(warc.Capture{TargetURI: it.URL, Date: at, Response: []byte(resp)}, nil)
				require.NoError(t, err)
				p.SpoolOffset, p.SpoolLength, file = rec.Offset, rec.Length, buf.Bytes()
			}
			ok, err := pages.MarkPageFetched(ctx, p)
			require.NoError(t, err)
			require.True(t, ok)
			if c.state == seedengine.PageFetched {
				break
			}
			if c.article != nil {
				a := *c.article
				part := it.Partition()
				a.ItemID, a.SeedID, a.Country, a.Category, a.Date, a.ExtractedAt = it.ID, it.SeedID, part.Country, part.Category, part.Date, at
				if a.URL == "" {
					a.URL = it.URL
				}
				if a.Methods == nil {
					a.Methods = map[string]string{}
				}
				// A signature of the hash: equal hashes are copies.
				sig := bytes.Repeat(binary.LittleEndian.AppendUint64(nil, c.hash), 30)
				key := seedengine.CopyKey{Signature: sig, Bands: []int64{int64(c.hash)}, Same: bytes.Equal}
				recorded, err := articles.RecordArticle(ctx, &a, key)
				require.NoError(t, err)
				require.True(t, recorded)
				out[i].Article = a.ID
			}
			part := it.Partition()
			f := seedengine.WARCFile{Partition: part, Name: name, Records: 1, Bytes: 4096, StoredAt: at,
				Key: "warc/country=" + part.Country + "/category=" + part.Category + "/date=" + part.Date + "/" + name}
			if file != nil {
				f.Bytes = int64(len(file))
				_, err := blobs.Put(ctx, f.Key, bytes.NewReader(file), "application/warc")
				require.NoError(t, err)
			}
			n, err := pages.StoreWARCFile(ctx, f, spool, nil)
			require.NoError(t, err)
			require.Equal(t, 1, n)
		default:
			t.Fatalf("no page state %q", c.state)
		}
	}
	return out
}

// hostileText is an article's text as a publisher might write it: markup
// that must come out as text, paragraph by paragraph.
const hostileText = "The minister presented the budget on Friday.\n\n" +
	"Second <script>alert(1)</script> paragraph.\n\n\n" +
	"<img src=x onerror=alert(2)> third paragraph\nwith a line break.\n"

// budgetArticle is an article with every field the item page shows.
func budgetArticle() *seedengine.Article {
	published := time.Date(2026, 2, 18, 15, 30, 0, 0, time.FixedZone("SGT", 8*3600))
	modified := published.Add(2 * time.Hour)
	return &seedengine.Article{ArticleFields: seedengine.ArticleFields{
		Title: "Budget <b>2027</b> statement", Authors: []string{"Jane Tan", "Lee <i>Wei</i>"}, PublishedAt: &published, ModifiedAt: &modified,
		Language: "en", SiteName: "Ministry of Manpower", Section: "Press releases", CanonicalURL: "https://www.mom.gov.sg/newsroom/budget-2027",
		Text: hostileText, WordCount: 19,
		Methods: map[string]string{"title": "json_ld", "authors": "meta", "published_at": "json_ld", "language": "meta", "text": "generic"},
	}}
}

// An item's page shows the item, its page's state and its article as
// text: a publisher's markup comes out escaped, never as markup. A copy
// links to the first article; a page that is not an article says why in
// words; a page without an article says why there is none.
func TestItemPage(t *testing.T) {
	t.Parallel()
	e := setup(t, false)
	const seedID = "gov:sg:mom.gov.sg::news"
	createSeed(t, e, "gov:sg:mom.gov.sg", "MOM")
	_, err := e.seeds.TransitionSeed(t.Context(), seedID, seedengine.SeedPromote, "test", "")
	require.NoError(t, err)
	copyOf := budgetArticle()
	copyOf.Title = "Budget statement (wire copy)"
	notArticle := &seedengine.Article{ArticleFields: seedengine.ArticleFields{Title: "Video: the minister speaks",
		CanonicalURL: "javascript:alert(3)", NotArticle: "not_article_type", Methods: map[string]string{"title": "opengraph"}}}
	its := harvestPages(t, e.db, seedID, []pageCase{
		{title: "Budget <b>2027</b>", state: seedengine.PageStored, status: 200, article: budgetArticle(), hash: 0x5eed},
		{title: "Budget, the wire's copy", state: seedengine.PageStored, status: 200, article: copyOf, hash: 0x5eed},
		{title: "Video", state: seedengine.PageStored, status: 200, article: notArticle},
		{title: "Waiting", state: seedengine.PageStored, status: 200},
		{title: "Gone", state: seedengine.PageFailed, status: 404, reason: "http_404"},
		{title: "Forbidden", state: seedengine.PageSkipped, reason: "robots_disallowed"},
	})
	b := e.browser(t)
	require.Equal(t, http.StatusSeeOther, b.signIn(e.reads).StatusCode)
	item := func(i int) page {
		t.Helper()
		p := b.get("/console/items/" + strconv.FormatInt(its[i].ID, 10))
		require.Equal(t, http.StatusOK, p.StatusCode, p.body)
		require.NotContains(t, p.body, "<script>alert")
		require.NotContains(t, p.body, "<img src=x")
		require.NotContains(t, p.body, `href="javascript:`)
		return p
	}

	p := item(0)
	require.Contains(t, p.body, "<h1>Budget &lt;b&gt;2027&lt;/b&gt; statement <small>item "+strconv.FormatInt(its[0].ID, 10)+"</small></h1>", "the article's title")
	require.Contains(t, p.body, `<dd id="authors">Jane Tan, Lee &lt;i&gt;Wei&lt;/i&gt;</dd>`)
	require.Contains(t, p.body, `<div class="article-text" id="text" lang="en">`)
	for _, para := range []string{
		"<p>The minister presented the budget on Friday.</p>",
		"<p>Second &lt;script&gt;alert(1)&lt;/script&gt; paragraph.</p>",
		"<p>&lt;img src=x onerror=alert(2)&gt; third paragraph\nwith a line break.</p>",
	} {
		require.Contains(t, p.body, para, "each paragraph of the text, escaped")
	}
	_, text, ok := strings.Cut(p.body, `<div class="article-text"`)
	require.True(t, ok)
	text, _, _ = strings.Cut(text, "</div>")
	require.Equal(t, 3, strings.Count(text, "<p>"), "three paragraphs, the blank lines between them dropped: %s", text)
	require.Contains(t, p.body, `<a href="https://www.mom.gov.sg/newsroom/item-0" rel="noopener noreferrer nofollow" target="_blank">`, "the item's URL, a link out")
	require.Contains(t, p.body, `<a href="https://www.mom.gov.sg/newsroom/budget-2027" rel="noopener noreferrer nofollow" target="_blank">`, "the canonical URL")
	require.Contains(t, p.body, "2026-02-18 07:30 UTC", "published")
	require.Contains(t, p.body, "2026-02-18 09:30 UTC", "modified")
	require.Contains(t, p.body, "Ministry of Manpower")
	require.Contains(t, p.body, "Press releases")
	require.Contains(t, p.body, "<dt>Words</dt><dd>19</dd>")
	require.Contains(t, p.body, "<tr><td><code>authors</code></td><td>meta</td></tr><tr><td><code>language</code></td><td>meta</td></tr>", "the methods, by field")
	require.Contains(t, p.body, `<span class="status status-stored">stored</span> kept as WARC`)
	require.Contains(t, p.body, "record at offset 2048, 1000 bytes")
	require.Contains(t, p.body, "/<wbr>seedengine-test-spool-"+strconv.FormatInt(its[0].ID, 10)+".<wbr>warc.<wbr>gz</code>", "the WARC file")
	require.Contains(t, p.body, `<a href="/console/seeds/gov:sg:mom.gov.sg::news">`)
	require.NotContains(t, p.body, `id="duplicate"`)
	require.NotContains(t, p.body, `id="not-article"`)

	p = item(1)
	require.Contains(t, p.body, `A copy of <a href="/console/items/`+strconv.FormatInt(its[0].ID, 10)+`">article `+strconv.FormatInt(its[0].Article, 10)+`</a>`,
		"a copy links to the first article's item")

	p = item(2)
	require.Contains(t, p.body, "This page is not an article: a video or section page (not_article_type).")
	require.Contains(t, p.body, "<h1>Video: the minister speaks")
	require.Contains(t, p.body, `<span class="nolink" title="not a link: not a public http(s) address">javascript:alert(3)</span>`)
	require.Contains(t, p.body, "No text.")

	p = item(3)
	require.Contains(t, p.body, "Not extracted yet")
	require.Contains(t, p.body, "<h1>Waiting <small>")

	p = item(4)
	require.Contains(t, p.body, "No article: no page stored (failed).")
	require.Contains(t, p.body, "the fetch failed for good: http 404 <small>(http_404)</small>")

	p = item(5)
	require.Contains(t, p.body, "No article: no page stored (skipped).")
	require.Contains(t, p.body, "not fetched, for good: robots.txt disallows it for our agent <small>(robots_disallowed)</small>")

	// Unknown items, and ids that are not item ids, get the 404 page.
	last := its[len(its)-1].ID
	for _, id := range []string{strconv.FormatInt(last+1, 10), "999999999", "0", "-1", "01", "abc", url.PathEscape("1 OR 1=1")} {
		p := b.get("/console/items/" + id)
		require.Equal(t, http.StatusNotFound, p.StatusCode, id)
		require.Contains(t, p.body, "<h1>Not found</h1>", id)
		require.Contains(t, p.body, "There is no", id)
	}

	// The seed's page links each of its newest items to its item page.
	sp := b.get("/console/seeds/" + url.PathEscape(seedID))
	require.Equal(t, http.StatusOK, sp.StatusCode)
	for _, it := range its {
		require.Contains(t, sp.body, `<a href="/console/items/`+strconv.FormatInt(it.ID, 10)+`">`)
	}
	require.Contains(t, sp.body, `<a href="/console/items/`+strconv.FormatInt(its[0].ID, 10)+`">Budget &lt;b&gt;2027&lt;/b&gt;</a>`)

	// Signed out, the item page leads to the sign-in form.
	out := e.browser(t).get("/console/items/" + strconv.FormatInt(its[0].ID, 10))
	require.Equal(t, http.StatusSeeOther, out.StatusCode)
}

// An item of a seed that does not fetch pages has no page and no article.
func TestItemPageWithoutPages(t *testing.T) {
	t.Parallel()
	e := setup(t, false)
	const seedID = "gov:sg:mom.gov.sg::news"
	createSeed(t, e, "gov:sg:mom.gov.sg", "MOM")
	at := time.Now().UTC()
	u := "https://www.mom.gov.sg/newsroom/plain"
	c := seedengine.SeedCheck{SeedID: seedID, CheckedAt: at, Outcome: seedengine.CheckOK, Status: 200, Items: 1}
	_, _, err := e.seeds.RecordSeedCheck(t.Context(), &c, []seedengine.Item{{URL: u, NormalizedURL: u, SeedID: seedID,
		DomainID: "gov:sg:mom.gov.sg", Country: "sg", Category: "news", FirstSeenAt: at}}, false,
		func(*seedengine.SeedCheck, seedengine.ArrivalHistory) (seedengine.SeedHealth, time.Time) {
			return seedengine.SeedHealth{State: seedengine.HealthHealthy}, at.Add(time.Hour)
		}, nil)
	require.NoError(t, err)
	found, err := sqlstore.NewItemService(e.db).FindItems(t.Context(), seedengine.ItemFilter{SeedID: seedID, Limit: 10})
	require.NoError(t, err)
	require.Len(t, found, 1)
	b := e.browser(t)
	require.Equal(t, http.StatusSeeOther, b.signIn(e.reads).StatusCode)
	p := b.get("/console/items/" + strconv.FormatInt(found[0].ID, 10))
	require.Equal(t, http.StatusOK, p.StatusCode, p.body)
	require.Contains(t, p.body, "<h1>Item "+strconv.FormatInt(found[0].ID, 10)+" <small>", "an untitled item is named by its id")
	require.Contains(t, p.body, "No page: its seed does not fetch pages.")
	require.Contains(t, p.body, "No article: no page.")
}

// createActiveSeed creates and promotes a news seed of domainID's domain
// straight in the store.
func createActiveSeed(t *testing.T, db *sqlstore.DB, domainID string) {
	t.Helper()
	_, _, domain, err := seedengine.ParseDomainID(domainID)
	require.NoError(t, err)
	seeds := sqlstore.NewSeedService(db)
	sd := &seedengine.Seed{DomainID: domainID, ContentType: seedengine.ContentTypeNews, Category: "news",
		Source:   seedengine.SeedSource{Name: "The ministry of " + domain},
		Fetch:    seedengine.SeedFetch{Type: seedengine.FetchRSS, EntryURL: "https://www." + domain + "/rss.xml", Schedule: "@hourly"},
		Policy:   seedengine.SeedPolicy{RobotsURL: "https://www." + domain + "/robots.txt", CrawlAllowed: true},
		Evidence: seedengine.SeedEvidence{Method: "rss via link_alternate", Candidates: 1}, Confidence: 0.9}
	require.NoError(t, seeds.CreateSeed(t.Context(), sd, "test"))
	_, err = seeds.TransitionSeed(t.Context(), sd.SeedID, seedengine.SeedPromote, "test", "")
	require.NoError(t, err)
}
