package robots

import (
	"net/url"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// testdata/real holds 4,231 robots.txt files served by real sites (from
// scrapy/protego, BSD-3-Clause, see testdata/real/LICENSE-NOTE.md).

type realFile struct {
	name string
	body []byte
}

func loadReal(tb testing.TB) []realFile {
	tb.Helper()
	entries, err := os.ReadDir("testdata/real")
	require.NoError(tb, err)
	var files []realFile
	for _, e := range entries {
		if e.IsDir() || e.Name() == "LICENSE-NOTE.md" {
			continue
		}
		body, err := os.ReadFile(filepath.Join("testdata/real", e.Name()))
		require.NoError(tb, err)
		files = append(files, realFile{e.Name(), body})
	}
	return files
}

func TestRealCorpus(t *testing.T) {
	t.Parallel()
	files := loadReal(t)
	require.Len(t, files, 4231)
	probes := []string{"/", "/robots.txt", "/search?q=x", "/wp-admin/", "/a/b/c.html", "/ツ", "/%e3%83%84?x#frag"}
	for _, f := range files {
		r := Parse(f.body)
		base := &url.URL{Scheme: "https", Host: f.name, Path: "/robots.txt"}
		for _, s := range r.Sitemaps(base) {
			u, err := url.Parse(s)
			require.NoError(t, err, f.name)
			require.Contains(t, []string{"http", "https"}, u.Scheme, f.name)
			require.NotEmpty(t, u.Host, f.name)
		}
		for _, agent := range []string{"seedengine", "Googlebot", "*", ""} {
			g := r.Group(agent)
			require.NotNil(t, g)
			g.CrawlDelay()
			require.GreaterOrEqual(t, g.Rules(), 0)
			for _, p := range probes {
				want := r.Allowed(agent, "https://"+f.name+p)
				require.Equal(t, want, g.Allowed(p), "%s agent %q path %q", f.name, agent, p)
			}
			require.True(t, r.Allowed(agent, "/robots.txt"), f.name)
		}
	}
}

func TestRealHandChecked(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		file     string
		urls     []urlCheck
		agents   []agentCheck
		sitemaps []string
	}{
		{
			// Product tokens stop at the first character outside
			// [A-Za-z_-]: "008" has none and matches nobody, "MJ12bot" is
			// the token "MJ" (Google reads it the same way).
			file: "www.reddit.com",
			urls: join(
				allow("seedengine", "/", "/r/golang/", "/r/golang/comments/abc/title", "/sitemaps/a.xml", "/partner_api/x"),
				disallow("seedengine", "/r/golang.json", "/login", "/api/v1/me", "/r/golang/submit", "/r/golang/comments/abc/title/cde", "/r/x/comments/y?sort=new"),
				allow("seedengine", "/r/golang/submit/x"),
				disallow("bender", "/my_shiny_metal_ass"),
				allow("bender", "/earth", "/r/golang.json"),
				disallow("gort", "/earth"),
				disallow("MJ", "/"),
				disallow("MJ12bot", "/login"),
				allow("MJ12bot", "/r/golang/"),
				disallow("voltron", "/"),
			),
			agents: []agentCheck{
				{agent: "MJ12bot", rules: 26, agents: []string{"*"}},
				{agent: "mj", rules: 1, agents: []string{"MJ12bot"}},
			},
		},
		{
			// UTF-16LE with a BOM (and a second, encoded BOM after it).
			file: "store.usps.com",
			urls: join(
				disallow("seedengine", "/store/cart/", "/store/ajax/x", "/store/browse/emailafriend.jsp"),
				allow("seedengine", "/store/product/123", "/"),
			),
			agents:   []agentCheck{{agent: "seedengine", rules: 10, agents: []string{"*"}}},
			sitemaps: []string{"https://store.usps.com/store/siteindex.xml"},
		},
		{
			file: "www.google.com",
			urls: join(
				disallow("seedengine", "/search", "/search?q=go", "/?", "/?q=x", "/m/other", "/?hl=en&x=y", "/groups/x"),
				allow("seedengine", "/search/about", "/?hl=en", "/?hl=en&gws_rd=ssl", "/m/finance", "/maps"),
			),
			sitemaps: []string{"https://www.google.com/sitemap.xml"},
		},
		{
			file: "github.com",
			urls: join(
				allow("seedengine", "/humans.txt"),
				disallow("seedengine", "/", "/golang/go"),
				allow("Googlebot", "/golang/go", "/golang/go/tree/master/src"),
				disallow("Googlebot", "/golang/go/pulse", "/golang/go/tree/dev"),
			),
			agents: []agentCheck{{agent: "seedengine", rules: 2, agents: []string{"*"}}},
		},
		{
			// Raw non-ASCII URLs are escaped before matching, so they hit
			// rules written with %-escapes.
			file: "en.wikipedia.org",
			urls: join(
				allow("seedengine", "/wiki/Go_(programming_language)", "/w/load.php?x=1", "/api/rest_v1/?doc"),
				disallow("seedengine", "/wiki/Special:Random", "/wiki/Special%3ARandom", "/w/index.php?title=x", "/api/rest_v1/page",
					"/wiki/خاص:Search", "/wiki/%D8%AE%D8%A7%D8%B5:Search", "/wiki/Wikipedia:Löschkandidaten/2019"),
				disallow("wget", "/", "/wiki/Go"),
			),
		},
		{
			// A Windows icon file served as robots.txt: nothing parses.
			file:   "www.pch.com",
			urls:   allow("seedengine", "/", "/x"),
			agents: []agentCheck{{agent: "seedengine", rules: 0, agents: nil}},
		},
	} {
		t.Run(tc.file, func(t *testing.T) {
			t.Parallel()
			body, err := os.ReadFile(filepath.Join("testdata/real", tc.file))
			require.NoError(t, err)
			r := Parse(body)
			for _, c := range tc.urls {
				require.Equal(t, c.want, r.Allowed(c.agent, "https://"+tc.file+c.path), "agent %q path %q", c.agent, c.path)
			}
			for _, a := range tc.agents {
				g := r.Group(a.agent)
				require.Equal(t, a.rules, g.Rules(), "rules for %q", a.agent)
				require.Equal(t, a.agents, g.Agents(), "agents for %q", a.agent)
			}
			if tc.sitemaps != nil {
				require.Equal(t, tc.sitemaps, r.Sitemaps(&url.URL{Scheme: "https", Host: tc.file}))
			}
		})
	}
}

func BenchmarkParseReal(b *testing.B) {
	files := loadReal(b)
	var size int64
	for _, f := range files {
		size += int64(len(f.body))
	}
	b.SetBytes(size)
	b.ReportAllocs()
	for b.Loop() {
		for _, f := range files {
			Parse(f.body)
		}
	}
}

func BenchmarkAllowed(b *testing.B) {
	body, err := os.ReadFile("testdata/real/en.wikipedia.org")
	require.NoError(b, err)
	r := Parse(body)
	urls := []string{
		"https://en.wikipedia.org/wiki/Go_(programming_language)",
		"https://en.wikipedia.org/wiki/Special:Random",
		"https://en.wikipedia.org/w/index.php?title=Go&action=history",
		"https://en.wikipedia.org/wiki/Wikipedia:L%C3%B6schkandidaten/2019",
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		r.Allowed("seedengine", urls[i%len(urls)])
		i++
	}
}
