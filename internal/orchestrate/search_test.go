package orchestrate_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine/internal/fetch"
	"github.com/seedengine/seedengine/internal/layout"
	"github.com/seedengine/seedengine/internal/orchestrate"
	"github.com/seedengine/seedengine/internal/simweb"
)

// newsNewest is the newest publication date of the news sitemaps below.
var newsNewest = collectedAt.Add(-2 * time.Hour)

// newsSitemapPage is a Google News sitemap of n articles of host, an
// hour apart, the newest at newsNewest.
func newsSitemapPage(host string, n int) simweb.Page {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n" +
		`<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:news="http://www.google.com/schemas/sitemap-news/0.9">` + "\n")
	for i := range n {
		fmt.Fprintf(&b, "<url><loc>https://%s/news/2026/01/story-%d</loc><news:news><news:publication><news:name>Daily</news:name>"+
			"<news:language>en</news:language></news:publication><news:publication_date>%s</news:publication_date>"+
			"<news:title>Story %d</news:title></news:news></url>\n", host, i, newsNewest.Add(-time.Duration(i)*time.Hour).Format(time.RFC3339), i)
	}
	b.WriteString("</urlset>\n")
	return simweb.Page{ContentType: "application/xml", Body: []byte(b.String())}
}

// urlsetPage is a plain sitemap of n pages of host under prefix.
func urlsetPage(host, prefix string, n int) simweb.Page {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n" + `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">` + "\n")
	for i := range n {
		fmt.Fprintf(&b, "<url><loc>https://%s%s/page-%d</loc><lastmod>2025-06-01</lastmod></url>\n", host, prefix, i)
	}
	b.WriteString("</urlset>\n")
	return simweb.Page{ContentType: "application/xml", Body: []byte(b.String())}
}

// homePage is a plain home page with footer inside its <footer>.
func homePage(footer string) simweb.Page {
	return simweb.Page{Body: []byte(`<!DOCTYPE html><html><head><title>Daily</title></head><body>` +
		`<main><h1>Daily</h1><p><a href="/about/">About us</a></p></main><footer>` + footer + `</footer></body></html>`)}
}

// searchSite is a site made of its robots.txt and pages alone: every
// other path answers 404, so the one way to the news sitemap is the one
// the test builds.
func searchSite(host, robotsTxt string, pages map[string]simweb.Page) simweb.Site {
	if _, ok := pages["/"]; !ok {
		pages["/"] = homePage("")
	}
	return simweb.Site{Host: host, Robots: &robotsTxt, Pages: pages, NotFound: &simweb.Page{Status: 404}}
}

// TestCollectNewsSitemapSearch: a news sitemap reachable only one way is
// found that way, recorded in news_sitemap, within the search's budget;
// the sitemap object and its evidence stay the site's main sitemap.
func TestCollectNewsSitemapSearch(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		site func(host string) simweb.Site
		// path of the news sitemap and how it is reached
		news, via, parent string
		// the sitemap object: its path and whether it is an index
		sitemap string
		index   bool
	}{
		{
			// The old collector counted the first 10 children only.
			name: "12th child of a sitemap index",
			site: func(host string) simweb.Site {
				pages := map[string]simweb.Page{}
				var idx strings.Builder
				idx.WriteString(`<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`)
				for i := range 15 {
					p := fmt.Sprintf("/sitemaps/posts-%d.xml", i+1)
					pages[p] = urlsetPage(host, fmt.Sprintf("/posts/%d", i+1), 3)
					if i == 11 {
						p = "/xml/google-news-articles.xml"
						pages[p] = newsSitemapPage(host, 5)
					}
					idx.WriteString("<sitemap><loc>https://" + host + p + "</loc><lastmod>2026-01-27</lastmod></sitemap>")
				}
				idx.WriteString("</sitemapindex>")
				pages["/sitemap_index.xml"] = simweb.Page{ContentType: "application/xml", Body: []byte(idx.String())}
				return searchSite(host, "User-agent: *\nAllow: /\nSitemap: https://"+host+"/sitemap_index.xml\n", pages)
			},
			news: "/xml/google-news-articles.xml", via: "sitemap_index", parent: "/sitemap_index.xml",
			sitemap: "/sitemap_index.xml", index: true,
		},
		{
			// The old collector tried the first 3 lines, all dead.
			name: "line 24 of 30 robots.txt sitemaps, the first 23 dead",
			site: func(host string) simweb.Site {
				var rb strings.Builder
				rb.WriteString("User-agent: *\nDisallow: /admin/\n")
				for i := range 30 {
					if i == 23 {
						rb.WriteString("Sitemap: https://" + host + "/sitemaps/daily-news.xml\n")
						continue
					}
					fmt.Fprintf(&rb, "Sitemap: https://%s/sitemaps/part-%02d.xml\n", host, i+1)
				}
				return searchSite(host, rb.String(), map[string]simweb.Page{"/sitemaps/daily-news.xml": newsSitemapPage(host, 4)})
			},
			news: "/sitemaps/daily-news.xml", via: "robots",
			// Nothing else answers: the news sitemap is the sitemap too.
			sitemap: "/sitemaps/daily-news.xml",
		},
		{
			name: "a footer anchor Sitemap News",
			site: func(host string) simweb.Site {
				return searchSite(host, "User-agent: *\nDisallow:\n", map[string]simweb.Page{
					"/":                       homePage(`<a href="/privacy/">Privacy</a> <a href="/seo/sitemap-latest.xml">Sitemap News</a>`),
					"/seo/sitemap-latest.xml": newsSitemapPage(host, 3),
					"/sitemap.xml":            urlsetPage(host, "/pages", 7),
				})
			},
			news: "/seo/sitemap-latest.xml", via: "anchor",
			sitemap: "/sitemap.xml",
		},
		{
			name: "a known path named nowhere",
			site: func(host string) simweb.Site {
				return searchSite(host, "User-agent: *\nDisallow:\n", map[string]simweb.Page{
					"/sitemaps/news.xml": newsSitemapPage(host, 6),
				})
			},
			news: "/sitemaps/news.xml", via: "known_path",
			sitemap: "/sitemaps/news.xml",
		},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			host := fmt.Sprintf("search%d.example.sg", i)
			fx := setupCollector(t, tt.site(host))
			res, err := fx.c.Collect(t.Context(), testPartition, "media:sg:"+host, host, rawKey, false)
			require.NoError(t, err)
			base := "https://" + host

			m := fx.storedMetadata(t, host)
			require.Contains(t, m, "news_sitemap")
			ns := sub(m, "news_sitemap")
			require.Equal(t, true, ns["exists"])
			require.Equal(t, base+tt.news, ns["url"])
			require.Equal(t, tt.via, ns["via"])
			if tt.parent != "" {
				require.Equal(t, base+tt.parent, ns["parent"])
			} else {
				require.NotContains(t, ns, "parent")
			}
			require.NotContains(t, ns, "final_url", "no redirect")
			require.EqualValues(t, 200, ns["status_code"])
			require.Positive(t, ns["news_items"])
			require.Equal(t, newsNewest.Format(time.RFC3339), ns["newest"])
			require.Equal(t, "2026-01-28T04:00:00Z", ns["fetched_at"])
			search := sub(ns, "search")
			require.Equal(t, orchestrate.SearchFound, search["outcome"])
			require.Equal(t, []any{}, search["cms"])
			require.EqualValues(t, 24, search["max_requests"])
			require.Positive(t, search["sitemaps_read"])

			// A few requests: the search stops at the news sitemap, then
			// reads at most two general sitemaps for a policy when it has
			// read none. Every request to the host is the search's
			// (robots.txt included) or the sitemap step's.
			s, sm := res.Metadata.Sitemap, res.Metadata.NewsSitemap.Search
			require.LessOrEqual(t, sm.Requests, 10)
			require.Equal(t, sm.Requests+s.Candidates+s.ChildrenCounted, fx.web.Requests(host))

			require.True(t, s.Exists)
			require.Equal(t, base+tt.sitemap, s.URL)
			require.Equal(t, tt.index, s.Type == "sitemapindex")
			require.Equal(t, fx.fetchBody(t, base+tt.sitemap), fx.get(t, domainKey(t, host, "sitemap.xml")), "the sitemap is the evidence")
		})
	}
}

// TestCollectNoNewsSitemap: a site without a news sitemap says so, and
// the search stays within its request budget.
func TestCollectNoNewsSitemap(t *testing.T) {
	t.Parallel()
	const host = "nonews.example.sg"
	site := func() simweb.Site {
		return searchSite(host, "User-agent: *\nDisallow:\n", map[string]simweb.Page{"/sitemap.xml": urlsetPage(host, "/pages", 4)})
	}
	t.Run("default budget", func(t *testing.T) {
		t.Parallel()
		fx := setupCollector(t, site())
		res, err := fx.c.Collect(t.Context(), testPartition, "com:sg:"+host, host, rawKey, false)
		require.NoError(t, err)
		ns := sub(fx.storedMetadata(t, host), "news_sitemap")
		require.Equal(t, false, ns["exists"])
		require.Equal(t, "", ns["url"])
		require.EqualValues(t, 0, ns["status_code"])
		require.EqualValues(t, 0, ns["news_items"])
		require.Nil(t, ns["newest"])
		require.Nil(t, ns["fetched_at"])
		require.NotContains(t, ns, "via")
		search := sub(ns, "search")
		require.Equal(t, orchestrate.SearchNotFound, search["outcome"])
		// robots.txt, the home page, then /sitemap.xml and the most
		// common news paths, 6 guesses in all (MaxSearchGuesses).
		spent := res.Metadata.NewsSitemap.Search.Requests
		require.Equal(t, 8, spent)
		s := res.Metadata.Sitemap
		require.True(t, s.Exists)
		require.Equal(t, "https://"+host+"/sitemap.xml", s.URL)
		require.Equal(t, 4, s.URLCount)
		require.Equal(t, 1, s.Candidates)
		require.Equal(t, spent+1, fx.web.Requests(host))
	})
	t.Run("small budget", func(t *testing.T) {
		t.Parallel()
		fx := setupCollectorConfig(t, orchestrate.CollectorConfig{MaxSearchRequests: 5}, site())
		res, err := fx.c.Collect(t.Context(), testPartition, "com:sg:"+host, host, rawKey, false)
		require.NoError(t, err)
		ns := res.Metadata.NewsSitemap
		require.False(t, ns.Exists)
		require.Equal(t, orchestrate.SearchMetadata{Requests: 5, MaxRequests: 5, ElapsedMS: ns.Search.ElapsedMS, SitemapsRead: 3,
			CMS: []string{}, Outcome: orchestrate.SearchBudgetExhausted}, ns.Search)
		require.True(t, res.Metadata.Sitemap.Exists)
		require.Equal(t, 5+res.Metadata.Sitemap.Candidates, fx.web.Requests(host))
	})
}

// TestCollectSearchDeadline: a search that runs out of time is recorded,
// never fails the job, and leaves the sitemap step its own time unless the
// collector's Deadline is spent too.
func TestCollectSearchDeadline(t *testing.T) {
	t.Parallel()
	const host = "slowhome.example.sg"
	tests := []struct {
		name    string
		cfg     orchestrate.CollectorConfig
		sitemap bool
	}{
		{"search deadline", orchestrate.CollectorConfig{SearchDeadline: 300 * time.Millisecond}, true},
		{"collector deadline", orchestrate.CollectorConfig{Deadline: 300 * time.Millisecond}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			// robots.txt and /sitemap.xml answer at once; the home page
			// redirects to a host that takes 3 s to answer.
			robotsTxt := "User-agent: *\nDisallow:\n"
			fx := setupCollectorConfig(t, tt.cfg,
				simweb.Site{Host: host, Robots: &robotsTxt, Pages: map[string]simweb.Page{
					"/":            {Status: 302, Header: http.Header{"Location": {"https://tarpit.example.net/"}}},
					"/sitemap.xml": urlsetPage(host, "/pages", 2),
				}},
				simweb.Site{Host: "tarpit.example.net", Scenario: simweb.ScenarioSlow, Delay: 3 * time.Second})
			start := time.Now()
			res, err := fx.c.Collect(t.Context(), testPartition, "com:sg:"+host, host, rawKey, false)
			require.NoError(t, err)
			require.Less(t, time.Since(start), 2*time.Second)
			ns := res.Metadata.NewsSitemap
			require.False(t, ns.Exists)
			require.Equal(t, orchestrate.SearchDeadlineReached, ns.Search.Outcome)
			require.Equal(t, tt.sitemap, res.Metadata.Sitemap.Exists)
			if !tt.sitemap {
				require.Equal(t, fetch.ReasonCanceled, res.Metadata.Sitemap.Error)
			}
			require.True(t, fx.exists(t, domainKey(t, host, layout.FileDomainMetadataSuccess)))
		})
	}
}
