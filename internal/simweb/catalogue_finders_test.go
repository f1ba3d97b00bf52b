package simweb_test

import (
	"bytes"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine/internal/feed"
	"github.com/seedengine/seedengine/internal/robots"
	"github.com/seedengine/seedengine/internal/simweb"
	"github.com/seedengine/seedengine/internal/sitemap"
)

// TestCatalogueFinderTraps pins what the entries of catalogue_finders.go
// are about (a one-feed "RSS" page, feeds on a sibling host with its own
// robots.txt or none), so that an edit cannot quietly give discovery
// another way in.
func TestCatalogueFinderTraps(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 3, 14, 9, 30, 0, 0, time.UTC)
	sites := map[string]map[string]simweb.Site{}
	expect := map[string]simweb.ExpectedSeed{}
	for _, e := range simweb.Catalogue() {
		sites[e.Name] = map[string]simweb.Site{}
		for _, s := range e.Sites(now) {
			sites[e.Name][s.Host] = s
		}
		expect[e.Name] = e.Expect
	}
	page := func(name, host, path string) simweb.Page {
		t.Helper()
		s, ok := sites[name][host]
		require.True(t, ok, "%s: no site %s", name, host)
		p, ok := s.Pages[path]
		require.True(t, ok, "%s: %s%s", name, host, path)
		return p
	}
	absent := func(name, host, path string) {
		t.Helper()
		_, ok := sites[name][host].Pages[path]
		require.False(t, ok, "%s: %s%s is served", name, host, path)
	}
	anchors := regexp.MustCompile(`<a [^>]*href="([^"]+)"`)
	noDeclaredFeed := func(name, host string) {
		t.Helper()
		home := page(name, host, "/").Body
		p, err := feed.FromHTML("https://"+host+"/", bytes.NewReader(home), 0)
		require.NoError(t, err)
		for _, f := range p.Feeds {
			require.NotEqual(t, feed.SourceLinkAlternate, f.Source, "%s: the home page declares %s", name, f.URL)
		}
		require.Len(t, p.Feeds, 1, "%s: one feed-looking anchor on the home page: %+v", name, p.Feeds)
	}
	noNewsSitemap := func(name string) {
		t.Helper()
		for host, s := range sites[name] {
			for path, p := range s.Pages {
				require.NotContains(t, string(p.Body), "sitemap-news/0.9", "%s: %s%s is a news sitemap", name, host, path)
			}
		}
	}
	isWellKnown := func(path string) bool {
		for _, wk := range feed.WellKnownPaths() {
			if wk.Path == path {
				return true
			}
		}
		for _, p := range append(sitemap.KnownNewsPaths(), sitemap.KnownPaths()...) {
			if p == path {
				return true
			}
		}
		return false
	}

	// A Drupal "RSS Feeds" page listing one feed at a path nobody guesses.
	const dr, drHost = "drupal_rss_page_one_feed", "www.strathearn-herald-example.co.uk"
	noDeclaredFeed(dr, drHost)
	noNewsSitemap(dr)
	absent(dr, drHost, "/rss.xml")
	entry, err := url.Parse(expect[dr].EntryURL)
	require.NoError(t, err)
	require.False(t, isWellKnown(entry.Path))
	var feedLinks []string // anchors of the page to documents that are not HTML
	for _, m := range anchors.FindAllSubmatch(page(dr, drHost, "/rss-feeds").Body, -1) {
		u, err := url.Parse(string(m[1]))
		require.NoError(t, err)
		if p, ok := sites[dr][u.Host].Pages[u.Path]; ok && !strings.HasPrefix(p.ContentType, "text/html") {
			feedLinks = append(feedLinks, u.String())
		}
	}
	require.Equal(t, []string{expect[dr].EntryURL}, feedLinks)

	// A hand-made page whose one link is the feed on a feed host.
	const hm, hmHost = "handmade_rss_page_feedhost", "www.pinehollow-courier-example.com"
	noDeclaredFeed(hm, hmHost)
	noNewsSitemap(hm)
	absent(hm, hmHost, "/robots.txt")
	links := anchors.FindAllSubmatch(page(hm, hmHost, "/rss.html").Body, -1)
	require.Len(t, links, 1)
	require.Equal(t, expect[hm].EntryURL, string(links[0][1]))
	require.NotRegexp(t, `(?i)rss|feed|\.xml`, mustPath(t, expect[hm].EntryURL))

	// A feeds. host whose own robots.txt allows what www's disallows.
	const sf = "sibling_feeds_host_robots"
	noDeclaredFeed(sf, "www.greatplains-public-media-example.org")
	noNewsSitemap(sf)
	www := robots.Parse(page(sf, "www.greatplains-public-media-example.org", "/robots.txt").Body)
	own := robots.Parse(page(sf, "feeds.greatplains-public-media-example.org", "/robots.txt").Body)
	require.False(t, www.Allowed("seedengine", mustPath(t, expect[sf].EntryURL)))
	require.True(t, own.Allowed("seedengine", mustPath(t, expect[sf].EntryURL)))
	require.False(t, own.Allowed("seedengine", "/private/"))

	// www/rss answering 301 to an rss. host without robots.txt.
	const rr, rrHost = "rss_redirect_sibling_host", "www.borneo-herald-example.com.my"
	noDeclaredFeed(rr, rrHost)
	noNewsSitemap(rr)
	rd := page(rr, rrHost, "/rss")
	require.Equal(t, http.StatusMovedPermanently, rd.Status)
	require.Equal(t, expect[rr].EntryURL, rd.Header.Get("Location"))
	absent(rr, "rss.borneo-herald-example.com.my", "/robots.txt")
	absent(rr, "rss.borneo-herald-example.com.my", "/")
	require.True(t, robots.Parse(page(rr, rrHost, "/robots.txt").Body).Allowed("seedengine", mustPath(t, expect[rr].EntryURL)))
}

func mustPath(t *testing.T, raw string) string {
	t.Helper()
	u, err := url.Parse(raw)
	require.NoError(t, err)
	return u.Path
}
