package simweb_test

import (
	"bytes"
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/net/html"
	"golang.org/x/net/publicsuffix"

	"github.com/seedengine/seedengine/internal/feed"
	"github.com/seedengine/seedengine/internal/fetch"
	"github.com/seedengine/seedengine/internal/robots"
	"github.com/seedengine/seedengine/internal/simweb"
	"github.com/seedengine/seedengine/internal/simweb/simwebtest"
	"github.com/seedengine/seedengine/internal/sitemap"
)

var (
	entryName = regexp.MustCompile(`^[a-z][a-z0-9]*(_[a-z0-9]+)*$`)
	domainID  = regexp.MustCompile(`^(gov|mil|edu|ngo|org|media|com|other):([a-z]{2}|intl):([a-z0-9-]+\.)+[a-z]{2,}$`)
	// thirdParty are registrable domains an entry may use besides its own
	// (a feed burned on FeedBurner or FeedBlitz).
	thirdParty = map[string]bool{"feedburner.com": true, "feedblitz.com": true}
)

func registrable(t *testing.T, host string) string {
	t.Helper()
	d, err := publicsuffix.EffectiveTLDPlusOne(host)
	require.NoError(t, err, host)
	return d
}

func TestCatalogueEntriesAreWellFormed(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 3, 14, 9, 30, 0, 0, time.UTC)
	entries := simweb.Catalogue()
	require.GreaterOrEqual(t, len(entries), 28)
	names, domains := map[string]bool{}, map[string]bool{}
	for _, e := range entries {
		require.Regexp(t, entryName, e.Name)
		require.False(t, names[e.Name], "duplicate name %s", e.Name)
		names[e.Name] = true
		require.NotEmpty(t, e.ModelledOn, e.Name)
		require.NotContains(t, e.ModelledOn, "\n", e.Name)
		require.Regexp(t, domainID, e.DomainID, e.Name)
		domain := e.DomainID[strings.LastIndexByte(e.DomainID, ':')+1:]
		require.Equal(t, domain, registrable(t, domain), "%s: %s is not a registrable domain", e.Name, domain)
		require.False(t, domains[domain], "duplicate domain %s", domain)
		domains[domain] = true

		require.Contains(t, []string{"news", "press_release"}, e.Expect.ContentType, e.Name)
		require.Contains(t, []string{"rss", "atom", "json_feed", "news_sitemap", "sitemap", "html"}, e.Expect.FetchType, e.Name)
		u, err := url.Parse(e.Expect.EntryURL)
		require.NoError(t, err, e.Name)
		require.Equal(t, "https", u.Scheme, e.Name)
		if d := registrable(t, u.Hostname()); d != domain {
			require.True(t, thirdParty[d], "%s: entry on %s", e.Name, d)
		}

		sites := e.Sites(now)
		require.NotEmpty(t, sites, e.Name)
		hosts := map[string]bool{}
		for _, s := range sites {
			require.False(t, hosts[s.Host], "%s: host %s twice", e.Name, s.Host)
			hosts[s.Host] = true
			if d := registrable(t, s.Host); d != domain {
				require.True(t, thirdParty[d], "%s: site %s", e.Name, s.Host)
			}
		}
		require.True(t, hosts[u.Hostname()], "%s: no site serves %s", e.Name, u.Hostname())
		for _, s := range sites {
			checkDocuments(t, e.Name, s, now)
		}
	}
}

// checkDocuments parses every feed and sitemap a site serves, decoys
// included: a decoy must be wrong for its content, not broken.
func checkDocuments(t *testing.T, name string, s simweb.Site, now time.Time) {
	t.Helper()
	for path, p := range s.Pages {
		ct := p.ContentType
		switch {
		case strings.Contains(ct, "rss") || strings.Contains(ct, "atom") || strings.Contains(ct, "rdf") || ct == "text/xml; charset=UTF-8":
			info, err := feed.ParseAt(p.Body, now)
			require.NoError(t, err, "%s: %s%s", name, s.Host, path)
			require.Positive(t, info.Items, "%s: %s%s", name, s.Host, path)
		case strings.Contains(ct, "xml"):
			res, err := sitemap.Parse(bytes.NewReader(p.Body), sitemap.Options{}, func(sitemap.Entry) error { return nil })
			require.NoError(t, err, "%s: %s%s", name, s.Host, path)
			require.Contains(t, []sitemap.Type{sitemap.TypeURLSet, sitemap.TypeIndex}, res.Type, "%s: %s%s", name, s.Host, path)
		}
	}
}

func TestCatalogueIsDeterministic(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 3, 14, 9, 30, 0, 0, time.UTC)
	a, b := simweb.Catalogue(), simweb.Catalogue()
	require.Len(t, b, len(a))
	for i := range a {
		require.Equal(t, a[i].Name, b[i].Name)
		require.Equal(t, a[i].DomainID, b[i].DomainID)
		require.Equal(t, a[i].ModelledOn, b[i].ModelledOn)
		require.Equal(t, a[i].Expect, b[i].Expect)
		require.Equal(t, a[i].Editions, b[i].Editions)
		require.Equal(t, a[i].Sites(now), b[i].Sites(now), a[i].Name)
	}
}

func TestAddCatalogue(t *testing.T) {
	t.Parallel()
	web, err := simweb.Start(simweb.Config{Seed: 1})
	require.NoError(t, err)
	t.Cleanup(func() { _ = web.Close() })
	now := time.Now()
	entries := web.AddCatalogue(now)
	require.Len(t, entries, len(simweb.Catalogue()))
	for _, e := range entries {
		for _, s := range e.Sites(now) {
			_, ok := web.Site(s.Host)
			require.True(t, ok, "%s: %s not added", e.Name, s.Host)
		}
	}
}

// TestCatalogueServesExpectedSeeds fetches every entry's expected seed the
// way the engine does (simweb's DNS, connect-to, CA) and parses it with the
// project's own parsers as what the entry says it is.
func TestCatalogueServesExpectedSeeds(t *testing.T) {
	t.Parallel()
	now := time.Now()
	entries := simweb.Catalogue()
	var sites []simweb.Site
	for _, e := range entries {
		sites = append(sites, e.Sites(now)...)
	}
	_, client := simwebtest.Client(t, sites, 5*time.Second)
	ctx := context.Background()

	for _, e := range entries {
		t.Run(e.Name, func(t *testing.T) {
			t.Parallel()
			kind := fetch.KindFeed
			switch e.Expect.FetchType {
			case "news_sitemap", "sitemap":
				kind = fetch.KindSitemap
			case "html":
				kind = fetch.KindPage
			}
			resp, err := client.Do(ctx, fetch.Request{URL: e.Expect.EntryURL, Kind: kind})
			require.NoError(t, err)
			require.Equal(t, http.StatusOK, resp.Status)
			require.Equal(t, e.Expect.EntryURL, resp.FinalURL, "the entry URL is where a fetcher ends")
			require.Empty(t, resp.Redirects)

			switch e.Expect.FetchType {
			case "rss", "atom", "json_feed":
				info, err := feed.ParseAt(resp.Body, now)
				require.NoError(t, err)
				require.Equal(t, e.Expect.FetchType, info.Format)
				require.Positive(t, info.Items)
				require.False(t, info.Newest.IsZero())
				require.Less(t, now.Sub(info.Newest), 12*time.Hour, "newest item %s", info.Newest)
			case "news_sitemap":
				var dates []time.Time
				res, err := sitemap.Parse(bytes.NewReader(resp.Body), sitemap.Options{}, func(en sitemap.Entry) error {
					if en.News != nil {
						dates = append(dates, en.News.PublicationDate)
					}
					return nil
				})
				require.NoError(t, err)
				require.Equal(t, sitemap.TypeURLSet, res.Type)
				require.Positive(t, res.News)
				for _, d := range dates {
					require.Less(t, now.Sub(d), 48*time.Hour)
				}
				require.Less(t, now.Sub(res.Newest), 12*time.Hour)
			case "sitemap":
				res, err := sitemap.Parse(bytes.NewReader(resp.Body), sitemap.Options{}, func(sitemap.Entry) error { return nil })
				require.NoError(t, err)
				require.Equal(t, sitemap.TypeURLSet, res.Type)
				require.Zero(t, res.News)
				require.GreaterOrEqual(t, res.Entries, 10)
				require.Less(t, now.Sub(res.Newest), 24*time.Hour)
			case "html":
				require.Contains(t, resp.Header.Get("Content-Type"), "text/html")
				require.GreaterOrEqual(t, articleLinks(t, resp.Body, e.Expect.EntryURL), 10)
			}

			// robots.txt lets seedengine fetch the entry.
			u, _ := url.Parse(e.Expect.EntryURL)
			rb, err := client.Do(ctx, fetch.Request{URL: "https://" + u.Host + "/robots.txt", Kind: fetch.KindRobots})
			require.NoError(t, err)
			if rb.Status == http.StatusOK {
				require.True(t, robots.Parse(rb.Body).Allowed("seedengine", e.Expect.EntryURL), "robots.txt disallows %s", e.Expect.EntryURL)
			} else {
				require.Equal(t, http.StatusNotFound, rb.Status)
			}

			// Every host resolves and answers unknown paths with a 404 page
			// (or, for an apex, redirects to its www. name).
			for _, s := range e.Sites(now) {
				res, err := client.Lookup(ctx, s.Host)
				require.NoError(t, err)
				require.Equal(t, "NOERROR", res.Rcode, s.Host)
				miss, err := client.Do(ctx, fetch.Request{URL: "https://" + s.Host + "/simweb-catalogue/no-such-page", NoRedirects: true})
				require.NoError(t, err)
				if s.Scenario == simweb.ScenarioRedirectWWW {
					require.Equal(t, http.StatusMovedPermanently, miss.Status, s.Host)
					require.Equal(t, "https://www."+s.Host+"/simweb-catalogue/no-such-page", miss.Header.Get("Location"))
					continue
				}
				require.Equal(t, http.StatusNotFound, miss.Status, s.Host)
				require.NotEmpty(t, miss.Body, s.Host)
			}
		})
	}
}

// articleLinks counts the links inside <article> elements that stay on the
// page's host: what makes an HTML page a usable news section.
func articleLinks(t *testing.T, body []byte, pageURL string) int {
	t.Helper()
	page, err := url.Parse(pageURL)
	require.NoError(t, err)
	doc, err := html.Parse(bytes.NewReader(body))
	require.NoError(t, err)
	n := 0
	var walk func(node *html.Node, inArticle bool)
	walk = func(node *html.Node, inArticle bool) {
		if node.Type == html.ElementNode {
			switch node.Data {
			case "article":
				inArticle = true
			case "a":
				for _, a := range node.Attr {
					if a.Key != "href" || !inArticle {
						continue
					}
					if u, err := page.Parse(a.Val); err == nil && u.Host == page.Host && u.Path != page.Path {
						n++
					}
				}
			}
		}
		for c := node.FirstChild; c != nil; c = c.NextSibling {
			walk(c, inArticle)
		}
	}
	walk(doc, false)
	return n
}

func TestSiteNotFoundReplacesBuiltInContent(t *testing.T) {
	t.Parallel()
	e := setup(t,
		simweb.Site{Host: "pages-only.example", Pages: map[string]simweb.Page{"/": {Body: []byte("home")}},
			NotFound: &simweb.Page{Body: []byte("<h1>Nothing here</h1>")}},
		simweb.Site{Host: "teapot.example", NotFound: &simweb.Page{Status: http.StatusTeapot, Body: []byte("short and stout")}},
	)
	resp, body := e.get(t, "https://pages-only.example/")
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Equal(t, "home", body)
	for _, path := range []string{"/feed/", "/robots.txt", "/news/", "/about/"} {
		resp, body = e.get(t, "https://pages-only.example"+path)
		require.Equal(t, http.StatusNotFound, resp.StatusCode, path)
		require.Equal(t, "<h1>Nothing here</h1>", body, path)
		require.Contains(t, resp.Header.Get("Content-Type"), "text/html")
	}
	resp, body = e.get(t, "http://teapot.example/anything")
	require.Equal(t, http.StatusTeapot, resp.StatusCode)
	require.Equal(t, "short and stout", body)
}

// TestCatalogueDecoys pins the traps a few entries are about, so that an
// edit cannot quietly make them easy.
func TestCatalogueDecoys(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 3, 14, 9, 30, 0, 0, time.UTC)
	page := func(name, host, path string) simweb.Page {
		t.Helper()
		for _, e := range simweb.Catalogue() {
			if e.Name != name {
				continue
			}
			for _, s := range e.Sites(now) {
				if s.Host == host {
					p, ok := s.Pages[path]
					require.True(t, ok, "%s: %s%s", name, host, path)
					return p
				}
			}
		}
		t.Fatalf("%s: no site %s", name, host)
		return simweb.Page{}
	}
	sitemapLines := func(robotsTxt []byte) []string {
		var out []string
		for _, l := range strings.Split(string(robotsTxt), "\n") {
			if v, ok := strings.CutPrefix(strings.TrimSpace(l), "Sitemap: "); ok {
				out = append(out, strings.TrimSpace(v))
			}
		}
		return out
	}

	const tg = "www.thamesford-telegraph-example.co.uk"
	lines := sitemapLines(page("robots_many_dead_sitemaps", tg, "/robots.txt").Body)
	require.Len(t, lines, 30)
	require.Equal(t, "https://"+tg+"/sitemap-news.xml", lines[23])
	require.Equal(t, http.StatusNotFound, page("robots_many_dead_sitemaps", tg, "/sitemaps/news/news_sitemap_index.xml").Status)

	const blox = "www.riverbend-tribune-example.com"
	search := "https://" + blox + "/search/?f=rss&t=article&c=news*&l=50&s=start_time&sd=desc"
	require.Contains(t, string(page("blox_tncms", blox, "/").Body), strings.ReplaceAll(search, "&", "&amp;"))
	require.False(t, robots.Parse(page("blox_tncms", blox, "/robots.txt").Body).Allowed("seedengine", search))

	hostile := sitemapLines(page("hostile_robots", "www.outback-herald-example.com.au", "/robots.txt").Body)
	require.Contains(t, hostile, "http://169.254.169.254/latest/meta-data/sitemap.xml")

	info, err := feed.ParseAt(page("spanish_sitemaps", "www.diariodelebro-example.es", "/rss/portada.xml").Body, now)
	require.NoError(t, err)
	require.Greater(t, now.Sub(info.Newest), 365*24*time.Hour)

	require.Len(t, sitemapLines(page("spanish_sitemaps", "www.diariodelebro-example.es", "/robots.txt").Body), 12)
}
