package robots

import (
	"net/url"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Expectations for testdata/cases (crawler-commons' robots.txt test inputs,
// Apache-2.0, see testdata/cases/LICENSE-NOTE.md). The expectations are ours,
// derived from RFC 9309, Google's behaviour and each file's contents.

type urlCheck struct {
	agent string
	path  string
	want  bool
}

type agentCheck struct {
	agent  string
	rules  int
	agents []string
	delay  time.Duration // 0: no Crawl-delay expected
}

type fileCase struct {
	file     string
	base     string // for Sitemaps; "" means nil base
	urls     []urlCheck
	agents   []agentCheck
	sitemaps []string
}

func allow(agent string, paths ...string) []urlCheck    { return checks(agent, true, paths) }
func disallow(agent string, paths ...string) []urlCheck { return checks(agent, false, paths) }

func checks(agent string, want bool, paths []string) []urlCheck {
	out := make([]urlCheck, len(paths))
	for i, p := range paths {
		out[i] = urlCheck{agent, p, want}
	}
	return out
}

func join(lists ...[]urlCheck) []urlCheck {
	var out []urlCheck
	for _, l := range lists {
		out = append(out, l...)
	}
	return out
}

var newsweekRules = join(
	disallow("seedengine", "/login.aspx", "/register.aspx", "/profile", "/profile/me", "/a/b/output/print", "/search.aspx?q=x"),
	allow("seedengine", "/", "/news/story", "/output/print"),
	disallow("Googlebot", "/login.aspx", "/x/output/print"),
	allow("Googlebot", "/news/story"),
)

var newsweekAgents = []agentCheck{
	{agent: "seedengine", rules: 5, agents: []string{"*"}},
	{agent: "googlebot", rules: 5, agents: []string{"Googlebot"}},
}

var caseFiles = []fileCase{
	{
		file: "astore.amazon.com-robots.txt",
		urls: allow("seedengine", "/", "/anything"),
		// Request-rate is unknown and ignored; the trailing comment is cut.
		agents: []agentCheck{{agent: "seedengine", rules: 0, agents: []string{"*"}, delay: 5 * time.Second}},
	},
	{
		// "User-agent: mybot / Crawl-delay: 10 / User-agent: yourbot" is ONE
		// group: Crawl-delay does not end the user-agent run. The later
		// "yourbot" group (Disallow: /login/) names only yourbot, so the
		// file's comment claiming it also applies to mybot is not what RFC
		// 9309 merging gives: merging is per product token.
		file: "crawl-delay-group-merging.txt",
		urls: join(
			disallow("mybot", "/private/x"),
			allow("mybot", "/login/", "/"),
			disallow("yourbot", "/private/x", "/login/x"),
			allow("yourbot", "/"),
			allow("otherbot", "/private/x", "/login/x"),
		),
		agents: []agentCheck{
			{agent: "mybot", rules: 1, agents: []string{"mybot"}, delay: 10 * time.Second},
			{agent: "YourBot", rules: 2, agents: []string{"yourbot"}, delay: 10 * time.Second},
			{agent: "otherbot", rules: 1, agents: []string{"*"}, delay: 30 * time.Second},
		},
	},
	{
		// "Desallow" is not one of Google's typos; "dissalow" and
		// "useragent" (with or without colon) are. "useg-agent" is unknown,
		// so it neither starts a group nor ends bot2's.
		//
		// Product tokens are [A-Za-z_-] only (RFC 9309, Google), so "bot1",
		// "bot2" and "bot4" all reduce to the token "bot": asking for "bot"
		// merges their groups, and asking for "bot1" matches no group at
		// all (Google gives the same answers).
		file: "directive-typos-robots.txt",
		urls: join(
			disallow("bot", "/dissalow/x", "/useragent/", "/useg-agent/", "/useragent-no-colon/"),
			allow("bot", "/desallow/x", "/"),
			allow("bot1", "/dissalow/x", "/useragent/"),
			allow("bot3", "/useg-agent/", "/useragent/"),
		),
		agents: []agentCheck{
			{agent: "bot", rules: 4, agents: []string{"bot1", "bot2", "bot4"}},
			{agent: "bot1", rules: 0, agents: nil},
		},
	},
	{
		file:   "dos-line-endings.txt",
		urls:   allow("seedengine", "/", "/x"),
		agents: []agentCheck{{agent: "seedengine", agents: []string{"*"}, delay: time.Second}},
	},
	{
		// Empty Disallow lines allow everything; the extended-standard
		// records (Request-rate, Visit-time...) are ignored.
		file: "extended-standard-robots.txt",
		// bot1..bot4 all have the product token "bot" (see above).
		urls: join(allow("bot", "/", "/x"), allow("bot1", "/x"), allow("nobody", "/x")),
		agents: []agentCheck{
			{agent: "bot", rules: 4, agents: []string{"bot1", "bot2", "bot3", "bot4"}},
			{agent: "nobody", rules: 0, agents: nil},
		},
	},
	{
		file: "extension-robots.txt",
		base: "https://www.example.com/robots.txt",
		urls: join(
			allow("seedengine", "/", "/private/x", "/admin/"),
			disallow("mybot", "/private/x"),
			allow("mybot", "/secret/x", "/admin/"),
			disallow("otherbot", "/admin/x"),
			allow("otherbot", "/private/x"),
		),
		agents: []agentCheck{
			{agent: "seedengine", rules: 1, agents: []string{"*"}},
			{agent: "mybot", rules: 1, agents: []string{"mybot"}},
		},
		sitemaps: []string{"https://www.example.com/sitemap.xml"},
	},
	{
		file: "extensions-group-merging.txt",
		urls: join(
			allow("seedengine", "/llms.txt"),
			disallow("seedengine", "/", "/x", "/llms"),
			allow("seedengine", "/llms.txt.bak"), // "/llms.txt" is a prefix rule
			// "Clean-Param" does not end mybot's user-agent run, so the
			// "yourbot" line after it joins the same group: /login/ applies
			// to mybot too.
			disallow("mybot", "/private/x", "/login/x"),
			allow("mybot", "/", "/x"),
			disallow("yourbot", "/private/x", "/login/x"),
			allow("yourbot", "/x"),
		),
		agents: []agentCheck{
			{agent: "seedengine", rules: 2, agents: []string{"*"}},
			{agent: "mybot", rules: 2, agents: []string{"mybot"}},
			{agent: "yourbot", rules: 2, agents: []string{"yourbot"}},
		},
	},
	{
		file: "format-errors-robots.txt",
		base: "http://example.com/robots.txt",
		// Whitespace before the colon and a missing colon are tolerated.
		// bot1..bot3 share the product token "bot" (see above), so their
		// groups merge: Disallow /whitespace-before-colon/ (25 bytes) beats
		// Allow /whitespace-before-colon (24).
		urls: join(
			disallow("bot", "/whitespace-before-colon/x", "/no-colon/x", "/no-colon-useragent/", "/x", "/"),
			allow("bot", "/whitespace-before-colon", "/whitespace-before-colonx"),
			allow("bot2", "/x"),
		),
		agents: []agentCheck{
			{agent: "bot", rules: 5, agents: []string{"bot1", "bot2", "bot3"}},
		},
		sitemaps: []string{"http://example.com/sitemap.xml"},
	},
	{
		// "%3M" is not an escape and is kept literally; "%3A" is not
		// decoded, so it does not match the ':' rule.
		file: "malformed-path.txt",
		urls: join(
			disallow("seedengine",
				"/wiki/Wikipedia_talk:Mediation_Committee/",
				"/wiki/Wikipedia_talk:Mediation_Committee/x",
				"/wiki/Wikipedia_talk%3Mediation_Committee/x"),
			allow("seedengine", "/wiki/Main_Page", "/wiki/Wikipedia_talk%3AMediation_Committee/"),
		),
	},
	{
		// 379 user-agent lines make one group. Values are reduced to their
		// product token: "BlowFish/1.0" → "BlowFish", "Black.Hole" →
		// "Black", "Bookmark search tool" → "Bookmark".
		file: "many-user-agents.txt",
		urls: join(
			disallow("Foobot", "/", "/x"),
			disallow("outfoxbot", "/"),
			disallow("Black", "/"),
			disallow("Bookmark", "/"),
			allow("Black.Hole", "/x"), // the agent asked about is not reduced
			disallow("seedengine", "/translate/x", "/forum/", "/home.php", "/bot-trap/"),
			allow("seedengine", "/", "/article"),
		),
		agents: []agentCheck{
			{agent: "blowfish", rules: 1, agents: []string{"BlowFish", "BlowFish/1.0"}},
			{agent: "seedengine", agents: []string{"*"}, rules: 78 - 1},
		},
	},
	{
		file: "merge-rules.txt",
		urls: join(
			disallow("testy", "/", "/foo/bar"),
			disallow("curl", "/x"),
			allow("wget", "/foo/bar", "/ckh/bar", "/x"), // Allow /foo/bar ties Disallow /foo/bar
			disallow("wget", "/tmp/bar"),
			disallow("seedengine", "/foo/bar", "/tmp/bar"),
			allow("seedengine", "/ckh/bar", "/x"),
		),
		agents: []agentCheck{
			{agent: "wget", rules: 4, agents: []string{"wget"}},
			{agent: "seedengine", rules: 3, agents: []string{"*"}},
		},
	},
	{
		file: "precedence-of-rules.txt",
		urls: join(
			// testy's two groups merge: Allow /foo/bar (8) beats Disallow /foo/b* (7).
			allow("testy", "/foo/bar", "/foo/bar/x", "/x"),
			disallow("testy", "/foo", "/foo/baz", "/foo/"),
			// wget: Disallow /* (2) beats Allow / (1); Allow /foo (4) and
			// /index.html win where they match; Google's index.html rule
			// adds Allow /$ (2), which ties Disallow /* on "/" and wins.
			allow("wget", "/", "/foo", "/foo/x", "/index.html"),
			disallow("wget", "/x", "/index.htm", "/bar"),
			allow("seedengine", "/foo", "/x"),
		),
		agents: []agentCheck{
			{agent: "testy", rules: 3, agents: []string{"testy"}},
			{agent: "wget", rules: 4, agents: []string{"wget"}},
		},
	},
	{
		file: "relative-sitemap-robots.txt",
		base: "https://example.org/robots.txt",
		urls: join(
			disallow("seedengine", "/cache/x", "/cp/", "/docs/a", "/files/a"),
			allow("seedengine", "/", "/file"),
		),
		sitemaps: []string{"https://example.org/sitemap.xml"},
	},
	{
		file: "rfc9309-example-longest-match-robots.txt",
		urls: join(
			allow("foobot", "/example/page/", "/example/page/other.gif"),
			disallow("foobot", "/example/page/disallowed.gif"),
			allow("seedengine", "/example/page/disallowed.gif"),
		),
	},
	{
		file: "rfc9309-example-rule-group-merging.txt",
		urls: join(
			disallow("ExampleBot", "/foo", "/bar", "/baz"),
			allow("ExampleBot", "/qux"),
			disallow("BazBot", "/baz"),
			allow("BazBot", "/foo", "/bar"),
			disallow("seedengine", "/foo", "/bar/x"),
			allow("seedengine", "/baz"),
		),
		agents: []agentCheck{{agent: "examplebot", rules: 3, agents: []string{"ExampleBot"}}},
	},
	{
		// RFC 9309 §5.1.
		file: "rfc9309-example-simple-robots.txt",
		urls: join(
			disallow("seedengine", "/example/x", "/a.gif", "/b/c.gif"),
			allow("seedengine", "/a.gif?x", "/publications/x", "/", "/foo"),
			allow("foobot", "/example/page.html", "/example/allowed.gif"),
			disallow("foobot", "/", "/x", "/example/disallowed.gif"),
			disallow("barbot", "/example/page.html"),
			allow("barbot", "/example/other", "/a.gif"),
			disallow("bazbot", "/example/page.html"),
			allow("quxbot", "/example/page.html", "/a.gif", "/"), // empty group
		),
		agents: []agentCheck{
			{agent: "quxbot", rules: 0, agents: []string{"quxbot"}},
			{agent: "bazbot", rules: 1, agents: []string{"bazbot"}},
		},
	},
	{file: "robots-with-utf16be-bom.txt", urls: newsweekRules, agents: newsweekAgents, sitemaps: []string{"http://www.newsweek.com/sitemap_index.xml"}},
	{file: "robots-with-utf16le-bom.txt", urls: newsweekRules, agents: newsweekAgents, sitemaps: []string{"http://www.newsweek.com/sitemap_index.xml"}},
	{file: "robots-with-utf8-bom.txt", urls: newsweekRules, agents: newsweekAgents, sitemaps: []string{"http://www.newsweek.com/sitemap_index.xml"}},
	{
		file:     "sitemap-robots-dedup.txt",
		urls:     allow("seedengine", "/", "/x"),
		agents:   []agentCheck{{agent: "seedengine", rules: 1, agents: []string{"*"}}},
		sitemaps: []string{"http://example.org/sitemap.xml"},
	},
	{
		// The bare "http://domain.com/dir/my-sitemap.xml" line is not a
		// Sitemap line (Google reads it as an unknown "http" key).
		file:     "sitemap-robots.txt",
		base:     "http://domain.com/robots.txt",
		urls:     allow("seedengine", "/", "/dir/x"),
		sitemaps: []string{"http://domain.com/sitemap.xml", "http://domain.com/dir/MixedCased-sitemap.xml"},
	},
	{
		file: "twitter.com-robots.txt",
		urls: join(
			disallow("Googlebot", "/search?q=x", "/jack/with_friends", "/?"),
			allow("Googlebot", "/jack", "/"),
			disallow("Slurp", "/x?y"),
			disallow("seedengine", "/x?y", "/jack/with_friends/more"),
			allow("seedengine", "/jack", "/with_friends"),
		),
		agents: []agentCheck{
			{agent: "googlebot", rules: 2, agents: []string{"Googlebot"}}, // commented-out delay
			{agent: "slurp", rules: 2, agents: []string{"Slurp"}, delay: time.Second},
			{agent: "msnbot", rules: 2, agents: []string{"msnbot"}, delay: 10 * time.Second},
			{agent: "seedengine", rules: 2, agents: []string{"*"}},
		},
	},
	{
		file: "wildcards.txt",
		urls: join(
			disallow("seedengine", "/wishlist/x", "/gp/registry/wishlist/123/reserve", "/a/b/gcrnsts", "/gcrnsts", "/exec/obidos/change-style", "/gp/cart?x"),
			allow("seedengine", "/wishlist/universal123", "/gp/wishlist/ipad-install", "/", "/dp/B000"),
			disallow("Googlebot", "/rss/people/123/reviews", "/x/sim/B001132UEE", "/gp/cart"),
			allow("Googlebot", "/wishlist/universal", "/x/sim/B000"),
			disallow("EtaoSpider", "/", "/x"),
		),
		sitemaps: []string{
			"http://www.amazon.com/sitemap-manual-index.xml",
			"http://www.amazon.com/sitemap_vendor_videos_us.xml",
			"http://www.amazon.com/sitemap_vod_index.xml",
			"http://www.amazon.com/sitemaps.f3053414d236e84.SitemapIndex_0.xml.gz",
			"http://www.amazon.com/sitemaps.1946f6b8171de60.SitemapIndex_0.xml.gz",
			"http://www.amazon.com/sitemaps.bbb7d657c7e29fa.SitemapIndex_0.xml.gz",
			"http://www.amazon.com/sitemaps.11aafed315ee654.SitemapIndex_0.xml.gz",
			"http://www.amazon.com/sitemaps.c21f969b5f03d33.SitemapIndex_0.xml.gz",
		},
	},
	{
		file:     "www.flot.com-robots.txt",
		urls:     join(disallow("seedengine", "/bitrix/x", "/admin/", "/upload/a", "/img/a.png"), allow("seedengine", "/", "/catalog")),
		agents:   []agentCheck{{agent: "yandex", rules: 4, agents: []string{"*"}}},
		sitemaps: []string{"http://flot.com/sitemap_index.xml"},
	},
}

func TestCases(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("testdata/cases/*.txt")
	require.NoError(t, err)
	require.Len(t, files, 24)
	covered := map[string]bool{}
	for _, fc := range caseFiles {
		covered[fc.file] = true
	}
	for _, f := range files {
		require.True(t, covered[filepath.Base(f)], "no expectations for %s", f)
	}

	for _, fc := range caseFiles {
		t.Run(fc.file, func(t *testing.T) {
			t.Parallel()
			body, err := os.ReadFile(filepath.Join("testdata/cases", fc.file))
			require.NoError(t, err)
			r := Parse(body)
			for _, c := range fc.urls {
				require.Equal(t, c.want, r.Allowed(c.agent, "https://example.com"+c.path), "agent %q path %q", c.agent, c.path)
				require.Equal(t, c.want, r.Group(c.agent).Allowed(c.path), "Group(%q).Allowed(%q)", c.agent, c.path)
			}
			for _, a := range fc.agents {
				g := r.Group(a.agent)
				require.Equal(t, a.rules, g.Rules(), "rules for %q", a.agent)
				require.Equal(t, a.agents, g.Agents(), "agents for %q", a.agent)
				d, ok := g.CrawlDelay()
				require.Equal(t, a.delay != 0, ok, "has crawl-delay for %q", a.agent)
				require.Equal(t, a.delay, d, "crawl-delay for %q", a.agent)
			}
			var base *url.URL
			if fc.base != "" {
				base, err = url.Parse(fc.base)
				require.NoError(t, err)
			}
			require.Equal(t, fc.sitemaps, r.Sitemaps(base))
		})
	}
}
