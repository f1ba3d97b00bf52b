package robots

import (
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestForStatus(t *testing.T) {
	t.Parallel()
	body := []byte("User-agent: *\nDisallow: /private/\n")
	for _, tc := range []struct {
		status      int
		want        Status
		privateOK   bool
		publicOK    bool
		description string
	}{
		{200, StatusParsed, false, true, "2xx parses"},
		{206, StatusParsed, false, true, "any 2xx parses"},
		{301, StatusUnavailable, true, true, "redirect chain gave up: allow all"},
		{404, StatusUnavailable, true, true, "4xx: allow all"},
		{401, StatusUnavailable, true, true, "401/403 are 4xx too (RFC 9309)"},
		{429, StatusUnreachable, false, false, "429 like 5xx"},
		{500, StatusUnreachable, false, false, "5xx: disallow all"},
		{503, StatusUnreachable, false, false, "5xx: disallow all"},
		{0, StatusUnreachable, false, false, "no response"},
		{100, StatusUnreachable, false, false, "1xx is not a final answer"},
		{600, StatusUnreachable, false, false, "out of range"},
	} {
		r, st := ForStatus(tc.status, body)
		require.Equal(t, tc.want, st, tc.description)
		require.Equal(t, tc.privateOK, r.Allowed("seedengine", "https://a.example/private/x"), tc.description)
		require.Equal(t, tc.publicOK, r.Allowed("seedengine", "https://a.example/public"), tc.description)
		require.True(t, r.Allowed("seedengine", "https://a.example/robots.txt"), tc.description)
	}
}

func TestAllowAllDisallowAll(t *testing.T) {
	t.Parallel()
	a := AllowAll()
	require.True(t, a.Allowed("seedengine", "/x"))
	require.Empty(t, a.Group("seedengine").Agents())
	require.Empty(t, a.Sitemaps(nil))

	d := DisallowAll()
	for _, agent := range []string{"seedengine", "Googlebot", "*", ""} {
		require.False(t, d.Allowed(agent, "/"), agent)
		require.False(t, d.Allowed(agent, "https://a.example/x?y"), agent)
		require.True(t, d.Allowed(agent, "/robots.txt"), agent)
		g := d.Group(agent)
		require.False(t, g.Allowed("/x"))
		require.Equal(t, []string{"*"}, g.Agents())
		require.Equal(t, 1, g.Rules())
	}

	var nilRobots *Robots
	require.True(t, nilRobots.Allowed("x", "/y"))
	require.NotNil(t, nilRobots.Group("x"))
	require.Nil(t, nilRobots.Sitemaps(nil))
	var nilGroup *Group
	require.True(t, nilGroup.Allowed("/x"))
	require.Zero(t, nilGroup.Rules())
	require.Nil(t, nilGroup.Agents())
	_, ok := nilGroup.CrawlDelay()
	require.False(t, ok)
}

func TestRobotsTxtAlwaysAllowed(t *testing.T) {
	t.Parallel()
	r := Parse([]byte("User-agent: *\nDisallow: /\n"))
	require.True(t, r.Allowed("seedengine", "https://a.example/robots.txt"))
	require.True(t, r.Allowed("seedengine", "/robots.txt?x=1"))
	require.True(t, r.Group("seedengine").Allowed("/robots.txt"))
	require.False(t, r.Allowed("seedengine", "/robots.txt.bak"))
	require.False(t, r.Allowed("seedengine", "/robots.txtx"))
	require.False(t, r.Allowed("seedengine", "/ROBOTS.TXT"))
}

func TestCrawlDelay(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		value string
		want  time.Duration
		ok    bool
	}{
		{"10", 10 * time.Second, true},
		{"0.5", 500 * time.Millisecond, true},
		{".25", 250 * time.Millisecond, true},
		{"2.", 2 * time.Second, true},
		{"0", 0, true},
		{"  7  ", 7 * time.Second, true},
		{"5 # five", 5 * time.Second, true},
		{"99999999999999", time.Duration(1<<63 - 1), true}, // saturates, not dropped
		{"", 0, false},
		{".", 0, false},
		{"-1", 0, false},
		{"1e3", 0, false},
		{"0x10", 0, false},
		{"inf", 0, false},
		{"NaN", 0, false},
		{"1,5", 0, false},
		{"1.2.3", 0, false},
		{"10 seconds", 0, false},
	} {
		g := Parse([]byte("User-agent: *\nCrawl-delay: " + tc.value + "\n")).Group("x")
		d, ok := g.CrawlDelay()
		require.Equal(t, tc.ok, ok, "%q", tc.value)
		require.Equal(t, tc.want, d, "%q", tc.value)
	}

	// Spellings, groups, merging.
	r := Parse([]byte("Crawl-delay: 99\n" + // before any group: ignored
		"User-agent: a\ncrawldelay: 3\nCrawl-delay: 2\nDisallow: /x\n" +
		"User-agent: b\nCrawl_delay: 4\n" +
		"User-agent: a\nCRAWL-DELAY: 1\n"))
	d, ok := r.Group("a").CrawlDelay()
	require.True(t, ok)
	// a's groups: {a: 3, 2} and {b, a: 4, 1} (Crawl-delay does not end a
	// user-agent run); the largest wins.
	require.Equal(t, 4*time.Second, d, "largest of the merged groups' delays")
	d, ok = r.Group("b").CrawlDelay()
	require.True(t, ok)
	require.Equal(t, 4*time.Second, d, "b's group is b + the second a line")
	_, ok = r.Group("c").CrawlDelay()
	require.False(t, ok)
}

func TestSitemaps(t *testing.T) {
	t.Parallel()
	r := Parse([]byte(strings.Join([]string{
		"Sitemap: https://a.example/s1.xml",
		"User-agent: *",
		"Sitemap: /s2.xml",
		"Disallow: /x",
		"site-map: s3.xml",
		"Sitemap: https://a.example/s1.xml",
		"Sitemap: ftp://a.example/s4.xml",
		"Sitemap: mailto:x@a.example",
		"Sitemap: http://%zz/",
		"Sitemap:",
		"sitemaps: HTTPS://b.example/s5.xml.gz",
		"Sitemap: //c.example/s6.xml",
	}, "\n")))
	base, err := url.Parse("https://a.example/robots.txt")
	require.NoError(t, err)
	require.Equal(t, []string{
		"https://a.example/s1.xml",
		"https://a.example/s2.xml",
		"https://a.example/s3.xml",
		"https://b.example/s5.xml.gz",
		"https://c.example/s6.xml",
	}, r.Sitemaps(base))
	require.Equal(t, []string{
		"https://a.example/s1.xml",
		"https://b.example/s5.xml.gz",
	}, r.Sitemaps(nil))
}

func TestGroupEvidence(t *testing.T) {
	t.Parallel()
	r := Parse([]byte("User-agent: SeedEngine/1.0\nUser-agent: other\nDisallow: /a\nAllow: /a/b\nDisallow:\n" +
		"User-agent: *\nDisallow: /\n" +
		"User-agent: seedengine\nAllow: /index.html\n"))
	g := r.Group("seedengine")
	require.Equal(t, []string{"SeedEngine/1.0", "seedengine"}, g.Agents())
	require.Equal(t, 4, g.Rules()) // the empty Disallow counts; the derived /$ rule does not
	require.False(t, g.Allowed("/a"))
	require.True(t, g.Allowed("/a/b"))
	require.True(t, g.Allowed("/"), "index.html rule allows the directory")
	require.True(t, g.Allowed("https://x.example/z"), "full URLs are reduced with PathQuery")
	g2 := r.Group("SEEDENGINE")
	require.Equal(t, g.Agents(), g2.Agents())
	require.Equal(t, []string{"*"}, r.Group("else").Agents())
	require.False(t, r.Group("else").Allowed("/a/b"))
}

func TestParseLimits(t *testing.T) {
	t.Parallel()
	// Rules past MaxBytes are not read.
	pad := strings.Repeat("# padding\n", MaxBytes/10)
	r := Parse([]byte("User-agent: *\n" + pad + "Disallow: /late\n"))
	require.True(t, r.Allowed("x", "/late"))
	r = Parse([]byte("User-agent: *\n" + pad[:len(pad)-100] + "Disallow: /early\n"))
	require.False(t, r.Allowed("x", "/early"))

	// UTF-16BE with a surrogate pair, a lone surrogate and an odd final byte.
	enc := func(s string) []byte {
		out := []byte{0xFE, 0xFF}
		for _, r := range s {
			if r > 0xFFFF {
				r -= 0x10000
				hi, lo := 0xD800+(r>>10), 0xDC00+(r&0x3FF)
				out = append(out, byte(hi>>8), byte(hi), byte(lo>>8), byte(lo))
				continue
			}
			out = append(out, byte(r>>8), byte(r))
		}
		return out
	}
	body := enc("User-agent: *\nDisallow: /😀\nDisallow: /x\nDisallow: /z")
	body = append(body, 0xD8, 0x00, 0x00) // lone high surrogate, odd byte
	r = Parse(body)
	require.False(t, r.Allowed("x", "/%F0%9F%98%80"))
	require.False(t, r.Allowed("x", "/😀"))
	require.False(t, r.Allowed("x", "/x"))
	require.True(t, r.Allowed("x", "/y"))
	require.True(t, r.Allowed("x", "/z"), "the lone surrogate became U+FFFD inside the /z rule")
	require.False(t, r.Allowed("x", "/z\uFFFD"))
}

func TestUserAgentLines(t *testing.T) {
	t.Parallel()
	r := Parse([]byte("User-agent: * everyone\nDisallow: /star\n" +
		"User-agent: *bot\nDisallow: /weird\n" +
		"user agent: spaced\nDisallow: /spaced\n" +
		"User-agent: Foo-Bar_Baz/2\nDisallow: /token\n"))
	require.False(t, r.Allowed("anyone", "/star"), `"* everyone" is the global agent`)
	require.True(t, r.Allowed("anyone", "/weird"), `"*bot" has no token and matches nobody`)
	require.False(t, r.Allowed("spaced", "/spaced"), `"user agent" typo accepted`)
	require.False(t, r.Allowed("foo-bar_baz", "/token"))
	require.True(t, r.Allowed("foo-bar_baz", "/star"), "a specific group replaces the global one")
}
