package simweb_test

import (
	"bytes"
	"context"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/net/html"

	"github.com/seedengine/seedengine/internal/feed"
	"github.com/seedengine/seedengine/internal/fetch"
	"github.com/seedengine/seedengine/internal/robots"
	"github.com/seedengine/seedengine/internal/simweb"
	"github.com/seedengine/seedengine/internal/simweb/simwebtest"
)

var editionTag = regexp.MustCompile(`^[a-z]{2,3}$`)

// editionSeeds are an entry's default seed and its editions' seeds.
func editionSeeds(e simweb.CatalogueEntry) []simweb.ExpectedSeed {
	return append([]simweb.ExpectedSeed{e.Expect}, e.Editions...)
}

// TestCatalogueEditions pins what the edition entries are about: one home
// page, language and feed per host of the domain, named by hreflang
// alternates in one entry and only by a switcher's links in the other.
func TestCatalogueEditions(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 3, 14, 9, 30, 0, 0, time.UTC)
	byName := map[string]simweb.CatalogueEntry{}
	for _, e := range simweb.Catalogue() {
		byName[e.Name] = e
		if len(e.Editions) == 0 {
			require.Empty(t, e.Expect.Edition, "%s: an entry without editions names none", e.Name)
		}
	}
	for _, name := range []string{"editions_hreflang", "editions_links_only"} {
		e, ok := byName[name]
		require.True(t, ok, name)
		sites := map[string]simweb.Site{}
		for _, s := range e.Sites(now) {
			sites[s.Host] = s
		}
		domain := e.DomainID[strings.LastIndexByte(e.DomainID, ':')+1:]
		require.Equal(t, simweb.ScenarioRedirectWWW, sites[domain].Scenario, "%s: the apex redirects to www.", name)

		var langs []string
		for _, ed := range e.Editions {
			langs = append(langs, ed.Edition)
		}
		require.True(t, slices.IsSorted(langs), "%s: editions in language order: %v", name, langs)
		seeds := editionSeeds(e)
		feeds := map[string]bool{}
		hosts := map[string]bool{}
		for _, s := range seeds {
			feeds[s.EntryURL] = true
		}
		for _, s := range seeds {
			require.Regexp(t, editionTag, s.Edition, name)
			require.Equal(t, "news", s.ContentType, name)
			u, err := url.Parse(s.EntryURL)
			require.NoError(t, err)
			require.False(t, hosts[u.Host], "%s: one edition per host", name)
			require.Equal(t, domain, registrable(t, u.Hostname()), "%s: %s on the entry's domain", name, u.Host)
			hosts[u.Host] = true
			site, ok := sites[u.Host]
			require.True(t, ok, "%s: no site %s", name, u.Host)

			// The feed: the edition's language, fresh, its items on the
			// edition's host.
			p, ok := site.Pages[u.Path]
			require.True(t, ok, "%s: %s not served", name, s.EntryURL)
			info, items, err := feed.ParseEntries(p.Body, now)
			require.NoError(t, err, s.EntryURL)
			require.Equal(t, s.FetchType, info.Format, s.EntryURL)
			require.Equal(t, s.Edition, info.Language, s.EntryURL)
			require.GreaterOrEqual(t, info.Items, 12, s.EntryURL)
			require.LessOrEqual(t, info.Items, 20, s.EntryURL)
			require.Less(t, now.Sub(info.Newest), 4*time.Hour, s.EntryURL)
			for _, it := range items {
				iu, err := url.Parse(it.Link)
				require.NoError(t, err)
				require.Equal(t, u.Host, iu.Host, "%s: item of %s", name, s.EntryURL)
			}

			// The home: the edition's language, its own feed declared and
			// no other edition's feed anywhere on it.
			home, ok := site.Pages["/"]
			require.True(t, ok, "%s: no home on %s", name, u.Host)
			require.Contains(t, string(home.Body), "<html lang=\""+s.Edition+"\"", u.Host)
			hp, err := feed.FromHTML("https://"+u.Host+"/", bytes.NewReader(home.Body), 0)
			require.NoError(t, err)
			var declared []string
			for _, c := range hp.Feeds {
				if c.Source == feed.SourceLinkAlternate {
					declared = append(declared, c.URL)
				}
			}
			require.Equal(t, []string{s.EntryURL}, declared, "%s: %s declares its own feed only", name, u.Host)
			for f := range feeds {
				if f != s.EntryURL {
					require.NotContains(t, string(home.Body), f, "%s: %s links another edition's feed", name, u.Host)
				}
			}
			rb, ok := site.Pages["/robots.txt"]
			require.True(t, ok, "%s: no robots.txt on %s", name, u.Host)
			require.True(t, robots.Parse(rb.Body).Allowed("seedengine", u.Path), s.EntryURL)
			require.True(t, robots.Parse(rb.Body).Allowed("seedengine", "/"), s.EntryURL)
		}
	}

	// hreflang: every home names the three editions and x-default → www.,
	// and no anchor leads to another edition.
	const ek = "eurokanal-example.com"
	want := map[string]string{"en": "https://www." + ek + "/", "de": "https://de." + ek + "/", "fr": "https://fr." + ek + "/", "x-default": "https://www." + ek + "/"}
	hl := byName["editions_hreflang"]
	for host, body := range editionHomes(t, hl, now) {
		require.Equal(t, want, hreflangs(t, body), host)
		inHeader, outside := editionAnchors(t, body, hl, now)
		require.Empty(t, others(host, append(inHeader, outside...)), "%s: an anchor to another edition", host)
	}

	// Links only: no hreflang anywhere; every home's header links every
	// edition's home, and nothing else on it links another edition.
	lo := byName["editions_links_only"]
	for _, site := range lo.Sites(now) {
		for path, p := range site.Pages {
			require.NotContains(t, strings.ToLower(string(p.Body)), "hreflang", "%s%s", site.Host, path)
		}
	}
	homes := editionHomes(t, lo, now)
	var all []string
	for host := range homes {
		all = append(all, "https://"+host+"/")
	}
	slices.Sort(all)
	for host, body := range homes {
		inHeader, outside := editionAnchors(t, body, lo, now)
		slices.Sort(inHeader)
		require.Equal(t, all, slices.Compact(inHeader), host)
		require.Empty(t, others(host, outside), host)
	}
}

// editionHomes are the home pages of an entry's edition hosts by host.
func editionHomes(t *testing.T, e simweb.CatalogueEntry, now time.Time) map[string][]byte {
	t.Helper()
	hosts := map[string]bool{}
	for _, s := range editionSeeds(e) {
		u, err := url.Parse(s.EntryURL)
		require.NoError(t, err)
		hosts[u.Host] = true
	}
	out := map[string][]byte{}
	for _, site := range e.Sites(now) {
		if hosts[site.Host] {
			out[site.Host] = site.Pages["/"].Body
		}
	}
	require.Len(t, out, len(hosts))
	return out
}

// hreflangs maps the hreflang of every <link rel="alternate" hreflang> in
// the page's <head> to its href.
func hreflangs(t *testing.T, body []byte) map[string]string {
	t.Helper()
	doc, err := html.Parse(bytes.NewReader(body))
	require.NoError(t, err)
	out := map[string]string{}
	var walk func(n *html.Node, inHead bool)
	walk = func(n *html.Node, inHead bool) {
		if n.Type == html.ElementNode && n.Data == "head" {
			inHead = true
		}
		if n.Type == html.ElementNode && n.Data == "link" && inHead {
			a := map[string]string{}
			for _, at := range n.Attr {
				a[at.Key] = at.Val
			}
			if a["rel"] == "alternate" && a["hreflang"] != "" {
				require.NotContains(t, out, a["hreflang"])
				out[a["hreflang"]] = a["href"]
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c, inHead)
		}
	}
	walk(doc, false)
	return out
}

// editionAnchors lists the page's anchors to the home page of one of the
// entry's edition hosts, inside <header> and outside it.
func editionAnchors(t *testing.T, body []byte, e simweb.CatalogueEntry, now time.Time) (inHeader, outside []string) {
	t.Helper()
	homes := editionHomes(t, e, now)
	doc, err := html.Parse(bytes.NewReader(body))
	require.NoError(t, err)
	var walk func(n *html.Node, header bool)
	walk = func(n *html.Node, header bool) {
		if n.Type == html.ElementNode && n.Data == "header" {
			header = true
		}
		if n.Type == html.ElementNode && n.Data == "a" {
			for _, at := range n.Attr {
				u, err := url.Parse(at.Val)
				if at.Key != "href" || err != nil || u.Path != "/" || homes[u.Host] == nil {
					continue
				}
				if header {
					inHeader = append(inHeader, u.String())
				} else {
					outside = append(outside, u.String())
				}
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c, header)
		}
	}
	walk(doc, false)
	return inHeader, outside
}

// others keeps the URLs that are not on host.
func others(host string, urls []string) []string {
	var out []string
	for _, raw := range urls {
		if u, err := url.Parse(raw); err == nil && u.Host != host {
			out = append(out, raw)
		}
	}
	return out
}

// TestCatalogueServesEditionSeeds fetches every edition seed of the
// entries with editions the way the engine does, and parses each as a fresh
// feed in its edition's language.
func TestCatalogueServesEditionSeeds(t *testing.T) {
	t.Parallel()
	now := time.Now()
	var entries []simweb.CatalogueEntry
	var sites []simweb.Site
	for _, e := range simweb.Catalogue() {
		if len(e.Editions) > 0 {
			entries = append(entries, e)
			sites = append(sites, e.Sites(now)...)
		}
	}
	require.Len(t, entries, 2)
	_, client := simwebtest.Client(t, sites, 5*time.Second)
	ctx := context.Background()
	for _, e := range entries {
		for _, s := range editionSeeds(e) {
			resp, err := client.Do(ctx, fetch.Request{URL: s.EntryURL, Kind: fetch.KindFeed})
			require.NoError(t, err, s.EntryURL)
			require.Equal(t, http.StatusOK, resp.Status, s.EntryURL)
			require.Equal(t, s.EntryURL, resp.FinalURL)
			require.Empty(t, resp.Redirects)
			info, err := feed.ParseAt(resp.Body, now)
			require.NoError(t, err, s.EntryURL)
			require.Equal(t, s.FetchType, info.Format, s.EntryURL)
			require.Equal(t, s.Edition, info.Language, s.EntryURL)
			require.Positive(t, info.Items)
			require.Less(t, now.Sub(info.Newest), 6*time.Hour, s.EntryURL)

			u, _ := url.Parse(s.EntryURL)
			rb, err := client.Do(ctx, fetch.Request{URL: "https://" + u.Host + "/robots.txt", Kind: fetch.KindRobots})
			require.NoError(t, err)
			require.Equal(t, http.StatusOK, rb.Status, u.Host)
			require.True(t, robots.Parse(rb.Body).Allowed("seedengine", s.EntryURL), s.EntryURL)
			home, err := client.Do(ctx, fetch.Request{URL: "https://" + u.Host + "/", Kind: fetch.KindPage})
			require.NoError(t, err)
			require.Equal(t, http.StatusOK, home.Status, u.Host)
			require.Equal(t, "https://"+u.Host+"/", home.FinalURL)
		}
	}
}
