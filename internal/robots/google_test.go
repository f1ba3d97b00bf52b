package robots

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The tables below re-express the expectations of Google's robots.txt test
// suite (github.com/google/robotstxt, robots_test.cc, Apache-2.0) against
// this package's API. Each table is named after the TEST it comes from.
// Google's IsUserAgentAllowed(robotstxt, agent, url) is
// Parse(robotstxt).Allowed(agent, url) here.

type allowCase struct {
	robots string
	agent  string
	url    string
	want   bool
}

func runAllowCases(t *testing.T, cases []allowCase) {
	t.Helper()
	for _, tc := range cases {
		got := Parse([]byte(tc.robots)).Allowed(tc.agent, tc.url)
		require.Equal(t, tc.want, got, "agent=%q url=%q robots:\n%s", tc.agent, tc.url, tc.robots)
		// Group.Allowed must agree with Robots.Allowed.
		g := Parse([]byte(tc.robots)).Group(tc.agent)
		require.Equal(t, tc.want, g.Allowed(PathQuery(tc.url)), "Group.Allowed agent=%q url=%q", tc.agent, tc.url)
	}
}

func TestGoogle(t *testing.T) {
	t.Parallel()

	const fooDisallowAll = "user-agent: FooBot\ndisallow: /\n"
	const groups = "allow: /foo/bar/\n" +
		"\n" +
		"user-agent: FooBot\n" +
		"disallow: /\n" +
		"allow: /x/\n" +
		"user-agent: BarBot\n" +
		"disallow: /\n" +
		"allow: /y/\n" +
		"\n" +
		"\n" +
		"allow: /w/\n" +
		"user-agent: BazBot\n" +
		"\n" +
		"user-agent: FooBot\n" +
		"allow: /z/\n" +
		"disallow: /\n"
	const upperNames = "USER-AGENT: FooBot\nALLOW: /x/\nDISALLOW: /\n"
	const lowerNames = "user-agent: FooBot\nallow: /x/\ndisallow: /\n"
	const camelNames = "uSeR-aGeNt: FooBot\nAlLoW: /x/\ndIsAlLoW: /\n"
	const uaUpper = "User-Agent: FOO BAR\nAllow: /x/\nDisallow: /\n"
	const uaLower = "User-Agent: foo bar\nAllow: /x/\nDisallow: /\n"
	const uaCamel = "User-Agent: FoO bAr\nAllow: /x/\nDisallow: /\n"
	const global = "user-agent: *\nallow: /\nuser-agent: FooBot\ndisallow: /\n"
	const onlySpecific = "user-agent: FooBot\nallow: /\nuser-agent: BarBot\ndisallow: /\nuser-agent: BazBot\ndisallow: /\n"
	const pageURL = "http://foo.bar/x/page.html"
	const indexHTML = "User-Agent: *\nAllow: /allowed-slash/index.html\nDisallow: /\n"

	tables := map[string][]allowCase{
		"GoogleOnly_SystemTest": {
			{"", "FooBot", "", true},              // empty robots.txt: everything allowed
			{fooDisallowAll, "", "", true},        // empty agent: no group matches
			{fooDisallowAll, "FooBot", "", false}, // empty URL is "/"
			{"", "", "", true},
		},
		"ID_LineSyntax_Line": {
			{"user-agent: FooBot\ndisallow: /\n", "FooBot", "http://foo.bar/x/y", false},
			{"foo: FooBot\nbar: /\n", "FooBot", "http://foo.bar/x/y", true},
			{"user-agent FooBot\ndisallow /\n", "FooBot", "http://foo.bar/x/y", false}, // missing colons accepted
		},
		"ID_LineSyntax_Groups": {
			{groups, "FooBot", "http://foo.bar/x/b", true},
			{groups, "FooBot", "http://foo.bar/z/d", true},
			{groups, "FooBot", "http://foo.bar/y/c", false},
			{groups, "BarBot", "http://foo.bar/y/c", true},
			{groups, "BarBot", "http://foo.bar/w/a", true},
			{groups, "BarBot", "http://foo.bar/z/d", false},
			{groups, "BazBot", "http://foo.bar/z/d", true},
			// Rules outside groups are ignored.
			{groups, "FooBot", "http://foo.bar/foo/bar/", false},
			{groups, "BarBot", "http://foo.bar/foo/bar/", false},
			{groups, "BazBot", "http://foo.bar/foo/bar/", false},
		},
		"ID_LineSyntax_Groups_OtherRules": {
			{"User-agent: BarBot\nSitemap: https://foo.bar/sitemap\nUser-agent: *\nDisallow: /\n", "FooBot", "http://foo.bar/", false},
			{"User-agent: BarBot\nSitemap: https://foo.bar/sitemap\nUser-agent: *\nDisallow: /\n", "BarBot", "http://foo.bar/", false},
			{"User-agent: FooBot\nInvalid-Unknown-Line: unknown\nUser-agent: *\nDisallow: /\n", "FooBot", "http://foo.bar/", false},
			{"User-agent: FooBot\nInvalid-Unknown-Line: unknown\nUser-agent: *\nDisallow: /\n", "BarBot", "http://foo.bar/", false},
		},
		"ID_REPLineNamesCaseInsensitive": {
			{upperNames, "FooBot", "http://foo.bar/x/y", true},
			{lowerNames, "FooBot", "http://foo.bar/x/y", true},
			{camelNames, "FooBot", "http://foo.bar/x/y", true},
			{upperNames, "FooBot", "http://foo.bar/a/b", false},
			{lowerNames, "FooBot", "http://foo.bar/a/b", false},
			{camelNames, "FooBot", "http://foo.bar/a/b", false},
		},
		"ID_UserAgentValueCaseInsensitive": {
			{uaUpper, "Foo", "http://foo.bar/x/y", true},
			{uaLower, "Foo", "http://foo.bar/x/y", true},
			{uaCamel, "Foo", "http://foo.bar/x/y", true},
			{uaUpper, "Foo", "http://foo.bar/a/b", false},
			{uaLower, "Foo", "http://foo.bar/a/b", false},
			{uaCamel, "Foo", "http://foo.bar/a/b", false},
			{uaUpper, "foo", "http://foo.bar/x/y", true},
			{uaLower, "foo", "http://foo.bar/x/y", true},
			{uaCamel, "foo", "http://foo.bar/x/y", true},
			{uaUpper, "foo", "http://foo.bar/a/b", false},
			{uaLower, "foo", "http://foo.bar/a/b", false},
			{uaCamel, "foo", "http://foo.bar/a/b", false},
		},
		"GoogleOnly_AcceptUserAgentUpToFirstSpace": {
			{"User-Agent: *\nDisallow: /\nUser-Agent: Foo Bar\nAllow: /x/\nDisallow: /\n", "Foo", "http://foo.bar/x/y", true},
			// The agent asked about is not reduced: "Foo Bar" names no group.
			{"User-Agent: *\nDisallow: /\nUser-Agent: Foo Bar\nAllow: /x/\nDisallow: /\n", "Foo Bar", "http://foo.bar/x/y", false},
		},
		"ID_GlobalGroups_Secondary": {
			{"", "FooBot", "http://foo.bar/x/y", true},
			{global, "FooBot", "http://foo.bar/x/y", false},
			{global, "BarBot", "http://foo.bar/x/y", true},
			{onlySpecific, "QuxBot", "http://foo.bar/x/y", true},
		},
		"ID_AllowDisallow_Value_CaseSensitive": {
			{"user-agent: FooBot\ndisallow: /x/\n", "FooBot", "http://foo.bar/x/y", false},
			{"user-agent: FooBot\ndisallow: /X/\n", "FooBot", "http://foo.bar/x/y", true},
		},
		"ID_LongestMatch": {
			{"user-agent: FooBot\ndisallow: /x/page.html\nallow: /x/\n", "FooBot", pageURL, false},
			{"user-agent: FooBot\nallow: /x/page.html\ndisallow: /x/\n", "FooBot", pageURL, true},
			{"user-agent: FooBot\nallow: /x/page.html\ndisallow: /x/\n", "FooBot", "http://foo.bar/x/", false},
			{"user-agent: FooBot\ndisallow: \nallow: \n", "FooBot", pageURL, true},
			{"user-agent: FooBot\ndisallow: /\nallow: /\n", "FooBot", pageURL, true},
			{"user-agent: FooBot\ndisallow: /x\nallow: /x/\n", "FooBot", "http://foo.bar/x", false},
			{"user-agent: FooBot\ndisallow: /x\nallow: /x/\n", "FooBot", "http://foo.bar/x/", true},
			{"user-agent: FooBot\ndisallow: /x/page.html\nallow: /x/page.html\n", "FooBot", pageURL, true},
			{"user-agent: FooBot\nallow: /page\ndisallow: /*.html\n", "FooBot", "http://foo.bar/page.html", false},
			{"user-agent: FooBot\nallow: /page\ndisallow: /*.html\n", "FooBot", "http://foo.bar/page", true},
			{"user-agent: FooBot\nallow: /x/page.\ndisallow: /*.html\n", "FooBot", pageURL, true},
			{"user-agent: FooBot\nallow: /x/page.\ndisallow: /*.html\n", "FooBot", "http://foo.bar/x/y.html", false},
			{"User-agent: *\nDisallow: /x/\nUser-agent: FooBot\nDisallow: /y/\n", "FooBot", "http://foo.bar/x/page", true},
			{"User-agent: *\nDisallow: /x/\nUser-agent: FooBot\nDisallow: /y/\n", "FooBot", "http://foo.bar/y/page", false},
		},
		"ID_Encoding": {
			{"User-agent: FooBot\nDisallow: /\nAllow: /foo/bar?qux=taz&baz=http://foo.bar?tar&par\n", "FooBot", "http://foo.bar/foo/bar?qux=taz&baz=http://foo.bar?tar&par", true},
			{"User-agent: FooBot\nDisallow: /\nAllow: /foo/bar/ツ\n", "FooBot", "http://foo.bar/foo/bar/%E3%83%84", true},
			// Deliberate difference: Google answers false here because it
			// escapes the pattern but expects the caller to have escaped the
			// URL. We escape the URL too (RFC 9309 §2.2.2 asks for both
			// sides to be percent-encoded before comparing), and an HTTP
			// client sends "ツ" as "%E3%83%84" anyway.
			{"User-agent: FooBot\nDisallow: /\nAllow: /foo/bar/ツ\n", "FooBot", "http://foo.bar/foo/bar/ツ", true},
			{"User-agent: FooBot\nDisallow: /\nAllow: /foo/bar/%E3%83%84\n", "FooBot", "http://foo.bar/foo/bar/%E3%83%84", true},
			// Same deliberate difference (Google: false).
			{"User-agent: FooBot\nDisallow: /\nAllow: /foo/bar/%E3%83%84\n", "FooBot", "http://foo.bar/foo/bar/ツ", true},
			// Lower-case escapes in the URL are normalised like the pattern.
			{"User-agent: FooBot\nDisallow: /\nAllow: /foo/bar/%E3%83%84\n", "FooBot", "http://foo.bar/foo/bar/%e3%83%84", true},
			// Escaped unreserved characters are not decoded.
			{"User-agent: FooBot\nDisallow: /\nAllow: /foo/bar/%62%61%7A\n", "FooBot", "http://foo.bar/foo/bar/baz", false},
			{"User-agent: FooBot\nDisallow: /\nAllow: /foo/bar/%62%61%7A\n", "FooBot", "http://foo.bar/foo/bar/%62%61%7A", true},
		},
		"ID_SpecialCharacters": {
			{"User-agent: FooBot\nDisallow: /foo/bar/quz\nAllow: /foo/*/qux\n", "FooBot", "http://foo.bar/foo/bar/quz", false},
			{"User-agent: FooBot\nDisallow: /foo/bar/quz\nAllow: /foo/*/qux\n", "FooBot", "http://foo.bar/foo/quz", true},
			{"User-agent: FooBot\nDisallow: /foo/bar/quz\nAllow: /foo/*/qux\n", "FooBot", "http://foo.bar/foo//quz", true},
			{"User-agent: FooBot\nDisallow: /foo/bar/quz\nAllow: /foo/*/qux\n", "FooBot", "http://foo.bar/foo/bax/quz", true},
			{"User-agent: FooBot\nDisallow: /foo/bar$\nAllow: /foo/bar/qux\n", "FooBot", "http://foo.bar/foo/bar", false},
			{"User-agent: FooBot\nDisallow: /foo/bar$\nAllow: /foo/bar/qux\n", "FooBot", "http://foo.bar/foo/bar/qux", true},
			{"User-agent: FooBot\nDisallow: /foo/bar$\nAllow: /foo/bar/qux\n", "FooBot", "http://foo.bar/foo/bar/", true},
			{"User-agent: FooBot\nDisallow: /foo/bar$\nAllow: /foo/bar/qux\n", "FooBot", "http://foo.bar/foo/bar/baz", true},
			{"User-agent: FooBot\n# Disallow: /\nDisallow: /foo/quz#qux\nAllow: /\n", "FooBot", "http://foo.bar/foo/bar", true},
			{"User-agent: FooBot\n# Disallow: /\nDisallow: /foo/quz#qux\nAllow: /\n", "FooBot", "http://foo.bar/foo/quz", false},
		},
		"GoogleOnly_IndexHTMLisDirectory": {
			{indexHTML, "foobot", "http://foo.com/allowed-slash/", true},
			{indexHTML, "foobot", "http://foo.com/allowed-slash/index.htm", false},
			{indexHTML, "foobot", "http://foo.com/allowed-slash/index.html", true},
			{indexHTML, "foobot", "http://foo.com/anyother-url", false},
		},
	}
	tables["GoogleOnly_DocumentationChecks"] = documentationChecks()

	for name, cases := range tables {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			runAllowCases(t, cases)
		})
	}
}

// documentationChecks is GoogleOnly_DocumentationChecks: the examples of
// https://developers.google.com/search/reference/robots_txt.
func documentationChecks() []allowCase {
	var cases []allowCase
	add := func(robots string, want bool, urls ...string) {
		for _, u := range urls {
			cases = append(cases, allowCase{robots, "FooBot", "http://foo.bar" + u, want})
		}
	}
	fish := "user-agent: FooBot\ndisallow: /\nallow: /fish\n"
	add(fish, false, "/bar", "/Fish.asp", "/catfish", "/?id=fish")
	add(fish, true, "/fish", "/fish.html", "/fish/salmon.html", "/fishheads", "/fishheads/yummy.html", "/fish.html?id=anything")

	fishStar := "user-agent: FooBot\ndisallow: /\nallow: /fish*\n"
	add(fishStar, false, "/bar", "/Fish.bar", "/catfish", "/?id=fish")
	add(fishStar, true, "/fish", "/fish.html", "/fish/salmon.html", "/fishheads", "/fishheads/yummy.html", "/fish.html?id=anything")

	fishDir := "user-agent: FooBot\ndisallow: /\nallow: /fish/\n"
	add(fishDir, false, "/bar", "/fish", "/fish.html", "/Fish/Salmon.html")
	add(fishDir, true, "/fish/", "/fish/salmon", "/fish/?salmon", "/fish/salmon.html", "/fish/?id=anything")

	php := "user-agent: FooBot\ndisallow: /\nallow: /*.php\n"
	add(php, false, "/bar", "/php/", "/index?php", "/windows.PHP")
	add(php, true, "/filename.php", "/folder/filename.php", "/folder/filename.php?parameters", "//folder/any.php.file.html", "/filename.php/", "/index?f=filename.php/")

	phpEnd := "user-agent: FooBot\ndisallow: /\nallow: /*.php$\n"
	add(phpEnd, false, "/bar", "/filename.php?parameters", "/filename.php/", "/filename.php5", "/php/", "/filename?php", "/aaaphpaaa", "//windows.PHP")
	add(phpEnd, true, "/filename.php", "/folder/filename.php")

	fishPHP := "user-agent: FooBot\ndisallow: /\nallow: /fish*.php\n"
	add(fishPHP, false, "/bar", "/Fish.PHP")
	add(fishPHP, true, "/fish.php", "/fishheads/catfish.php?parameters")

	// Section "Order of precedence for group-member records".
	add("user-agent: FooBot\nallow: /p\ndisallow: /\n", true, "/page")
	add("user-agent: FooBot\nallow: /folder\ndisallow: /folder\n", true, "/folder/page")
	add("user-agent: FooBot\nallow: /page\ndisallow: /*.htm\n", false, "/page.htm")
	add("user-agent: FooBot\nallow: /$\ndisallow: /\n", true, "/")
	add("user-agent: FooBot\nallow: /$\ndisallow: /\n", false, "/page.html")
	return cases
}

// ID_VerifyValidUserAgentsToObey and the first check of
// GoogleOnly_AcceptUserAgentUpToFirstSpace (IsValidUserAgentToObey is
// ValidProductToken here).
func TestValidProductToken(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		want bool
	}{
		{"Foobot", true},
		{"Foobot-Bar", true},
		{"Foo_Bar", true},
		{"", false},
		{"ツ", false},
		{"Foobot*", false},
		{" Foobot ", false},
		{"Foobot/2.1", false},
		{"Foobot Bar", false},
	} {
		require.Equal(t, tc.want, ValidProductToken(tc.in), "%q", tc.in)
	}
	require.Equal(t, "Foobot", ProductToken("Foobot/2.1"))
	require.Equal(t, "seedengine", ProductToken("seedengine/1.0 (+https://example.com)"))
}

// GoogleOnly_LineTooLong: lines are cut after 2083*8-1 bytes.
func TestGoogleLineTooLong(t *testing.T) {
	t.Parallel()
	const maxLine = 2083 * 8
	const allow, disallow = "allow: ", "disallow: "

	longline := "/x/"
	for len(longline) < maxLine-len("/x/")-len(disallow)+1 {
		longline += "a"
	}
	r := Parse([]byte("user-agent: FooBot\n" + disallow + longline + "/qux\n"))
	require.True(t, r.Allowed("FooBot", "http://foo.bar/fux"))
	require.False(t, r.Allowed("FooBot", "http://foo.bar"+longline+"/fux")) // the cut rule matches

	a, b := "/x/", "/x/"
	for len(a) < maxLine-len("/x/")-len(allow)+1 {
		a += "a"
		b += "b"
	}
	r = Parse([]byte("user-agent: FooBot\ndisallow: /\n" + allow + a + "/qux\n" + allow + b + "/qux\n"))
	require.False(t, r.Allowed("FooBot", "http://foo.bar/"))
	require.True(t, r.Allowed("FooBot", "http://foo.bar"+a+"/qux"))
	require.True(t, r.Allowed("FooBot", "http://foo.bar"+b+"/fux"))
}

// ID_LinesNumbersAreCountedCorrectly: every line ending style gives the
// same four directives. Google counts directives through a parse callback;
// we check the groups they build.
func TestGoogleLineEndings(t *testing.T) {
	t.Parallel()
	for name, body := range map[string]string{
		"unix":         "User-Agent: foo\nAllow: /some/path\nUser-Agent: bar\n\n\nDisallow: /\n",
		"dos":          "User-Agent: foo\r\nAllow: /some/path\r\nUser-Agent: bar\r\n\r\n\r\nDisallow: /\r\n",
		"mac":          "User-Agent: foo\rAllow: /some/path\rUser-Agent: bar\r\r\rDisallow: /\r",
		"no final EOL": "User-Agent: foo\nAllow: /some/path\nUser-Agent: bar\n\n\nDisallow: /",
		"mixed":        "User-Agent: foo\nAllow: /some/path\r\nUser-Agent: bar\n\r\n\nDisallow: /",
	} {
		r := Parse([]byte(body))
		require.Equal(t, 1, r.Group("foo").Rules(), name)
		require.Equal(t, []string{"foo"}, r.Group("foo").Agents(), name)
		require.Equal(t, 1, r.Group("bar").Rules(), name)
		require.True(t, r.Allowed("foo", "/other"), name)
		require.False(t, r.Allowed("bar", "/some/path"), name)
	}
}

// ID_UTF8ByteOrderMarkIsSkipped.
func TestGoogleUTF8BOM(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		body      string
		fooRules  int
		fooAgents []string
	}{
		{"full BOM", "\xEF\xBB\xBFUser-Agent: foo\nAllow: /AnyValue\n", 1, []string{"foo"}},
		{"partial 2", "\xEF\xBBUser-Agent: foo\nAllow: /AnyValue\n", 1, []string{"foo"}},
		{"partial 1", "\xEF\nUser-Agent: foo\nAllow: /AnyValue\n", 1, []string{"foo"}},
		{"partial 1 same line", "\xEFUser-Agent: foo\nAllow: /AnyValue\n", 1, []string{"foo"}},
		// A broken BOM makes the first line garbage; the Allow then has no group.
		{"broken", "\xEF\x11\xBFUser-Agent: foo\nAllow: /AnyValue\n", 0, nil},
		// A BOM in the middle makes its line garbage.
		{"middle", "User-Agent: foo\n\xEF\xBB\xBFAllow: /AnyValue\n", 0, []string{"foo"}},
	} {
		g := Parse([]byte(tc.body)).Group("foo")
		require.Equal(t, tc.fooRules, g.Rules(), tc.name)
		require.Equal(t, tc.fooAgents, g.Agents(), tc.name)
	}
}

// ID_NonStandardLineExample_Sitemap: a Sitemap line may appear anywhere.
func TestGoogleSitemap(t *testing.T) {
	t.Parallel()
	const loc = "http://foo.bar/sitemap.xml"
	const rest = "User-Agent: foo\nAllow: /some/path\nUser-Agent: bar\n\n\n"
	require.Equal(t, []string{loc}, Parse([]byte(rest+"Sitemap: "+loc+"\n")).Sitemaps(nil))
	require.Equal(t, []string{loc}, Parse([]byte("Sitemap: "+loc+"\n"+rest)).Sitemaps(nil))
}

// TestGetPathParamsQuery.
func TestPathQuery(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"", "/"},
		{"http://www.example.com", "/"},
		{"http://www.example.com/", "/"},
		{"http://www.example.com/a", "/a"},
		{"http://www.example.com/a/", "/a/"},
		{"http://www.example.com/a/b?c=http://d.e/", "/a/b?c=http://d.e/"},
		{"http://www.example.com/a/b?c=d&e=f#fragment", "/a/b?c=d&e=f"},
		{"example.com", "/"},
		{"example.com/", "/"},
		{"example.com/a", "/a"},
		{"example.com/a/", "/a/"},
		{"example.com/a/b?c=d&e=f#fragment", "/a/b?c=d&e=f"},
		{"a", "/"},
		{"a/", "/"},
		{"/a", "/a"},
		{"a/b", "/b"},
		{"example.com?a", "/?a"},
		{"example.com/a;b#c", "/a;b"},
		{"//a/b/c", "/b/c"},
		// Ours.
		{"https://example.com#frag/x", "/"},
		{"https://user:pw@example.com:8443/p?q", "/p?q"},
		{"/robots.txt", "/robots.txt"},
	} {
		require.Equal(t, tc.want, PathQuery(tc.in), "%q", tc.in)
	}
}

// TestMaybeEscapePattern.
func TestEscapePattern(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"http://www.example.com", "http://www.example.com"},
		{"/a/b/c", "/a/b/c"},
		{"á", "%C3%A1"},
		{"%aa", "%AA"},
		// Ours.
		{"/SanJoséSellers", "/SanJos%C3%A9Sellers"},
		{"%2f", "%2F"},
		{"%zz%a", "%zz%a"},
		{"%", "%"},
		{"/ツ", "/%E3%83%84"},
	} {
		require.Equal(t, tc.want, EscapePattern(tc.in), "%q", tc.in)
	}
}

// TestMatch checks the pattern matcher directly, including the corner cases
// of Google's Matches ('$' literal unless last, '*' runs).
func TestMatch(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		pattern, path string
		want          bool
	}{
		{"", "/anything", true},
		{"/", "/", true},
		{"/a", "/", false},
		{"/a$", "/a", true},
		{"/a$", "/ab", false},
		{"/a$b", "/a$b", true}, // '$' not last: literal
		{"/a$b", "/ab", false},
		{"$", "/", false},
		{"*", "/x", true},
		{"*$", "/x", true},
		{"/*", "/", true},
		{"*.gif$", "/a/b.gif", true},
		{"*.gif$", "/a/b.gif?x", false},
		{"/a*b*c", "/abc", true},
		{"/a*b*c", "/acb", false},
		{"/a*b*c$", "/abcbc", true},
		{"/a*bc$", "/abcbc", true},
		{"/a**c", "/ac", true},
		{"/a*a$", "/a", false}, // segments may not overlap
		{"/a*a$", "/aa", true},
		{"/fish*", "/fish", true},
	} {
		require.Equal(t, tc.want, Match(tc.pattern, tc.path), "Match(%q, %q)", tc.pattern, tc.path)
		require.Equal(t, tc.want, refMatch(tc.pattern, tc.path), "refMatch(%q, %q)", tc.pattern, tc.path)
	}
}

// refMatch is a plain dynamic-programming matcher with Google's semantics,
// used as an oracle for Match in tests and fuzzing.
func refMatch(pattern, path string) bool {
	anchored := strings.HasSuffix(pattern, "$")
	if anchored {
		pattern = pattern[:len(pattern)-1]
	}
	// ok[j]: pattern[:i] can match path[:j].
	ok := make([]bool, len(path)+1)
	ok[0] = true
	for i := 0; i < len(pattern); i++ {
		next := make([]bool, len(path)+1)
		if pattern[i] == '*' {
			seen := false
			for j := range ok {
				seen = seen || ok[j]
				next[j] = seen
			}
		} else {
			for j := 0; j < len(path); j++ {
				next[j+1] = ok[j] && path[j] == pattern[i]
			}
		}
		ok = next
	}
	if anchored {
		return ok[len(path)]
	}
	for _, v := range ok {
		if v {
			return true
		}
	}
	return false
}
