package discover

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// normalizeCases are repairs and canonicalisations, one idea each. Every
// output must also normalise to itself (TestNormalizeURLIdempotent).
var normalizeCases = []struct {
	name, in, want, host string
}{
	// Already normal.
	{"normal", "https://www.mom.gov.sg/newsroom", "https://www.mom.gov.sg/newsroom", "www.mom.gov.sg"},
	{"normal with query", "https://example.com/a?b=1&c=2", "https://example.com/a?b=1&c=2", "example.com"},

	// Scheme.
	{"missing scheme", "www.example.com/news", "https://www.example.com/news", "www.example.com"},
	{"missing scheme bare host", "example.com", "https://example.com/", "example.com"},
	{"missing scheme with port", "example.com:8080/x", "https://example.com:8080/x", "example.com"},
	{"missing scheme localhost-like port", "intranet.example:3000", "https://intranet.example:3000/", "intranet.example"},
	{"protocol relative", "//cdn.example.com/lib.js", "https://cdn.example.com/lib.js", "cdn.example.com"},
	{"upper-case scheme", "HTTPS://example.com/", "https://example.com/", "example.com"},
	{"mixed-case scheme", "Http://example.com/", "http://example.com/", "example.com"},
	{"double scheme", "http://http://example.com/a", "http://example.com/a", "example.com"},
	{"double scheme inner https", "http://https://example.com/a", "https://example.com/a", "example.com"},
	{"triple scheme", "https://https://https://example.com", "https://example.com/", "example.com"},
	{"missing colon", "http//example.com/a", "http://example.com/a", "example.com"},
	{"double scheme missing colon", "https://http//example.com/a", "http://example.com/a", "example.com"},
	{"one slash", "http:/example.com/a", "http://example.com/a", "example.com"},
	{"no slash", "https:example.com/a", "https://example.com/a", "example.com"},
	{"three slashes", "https:///example.com/a", "https://example.com/a", "example.com"},
	{"host named like a scheme", "https://http.example.com/", "https://http.example.com/", "http.example.com"},

	// Backslashes.
	{"backslashes", `https:\\example.com\a\b`, "https://example.com/a/b", "example.com"},
	{"backslash in path", `https://example.com/a\b\..\c`, "https://example.com/a/c", "example.com"},
	{"backslash in query kept escaped", `https://example.com/a?p=x\y`, "https://example.com/a?p=x%5Cy", "example.com"},

	// White space.
	{"surrounding spaces", "  https://example.com/a  ", "https://example.com/a", "example.com"},
	{"surrounding tabs and newlines", "\t\nhttps://example.com/a\r\n", "https://example.com/a", "example.com"},
	{"no-break and zero-width spaces", "\u00a0\u200bhttps://example.com/a\ufeff", "https://example.com/a", "example.com"},
	{"space in credentials", "https://a b:c d@example.com/", "https://example.com/", "example.com"},
	{"space in path", "https://example.com/annual report.pdf", "https://example.com/annual%20report.pdf", "example.com"},
	{"space in query", "https://example.com/s?q=budget 2026", "https://example.com/s?q=budget%202026", "example.com"},
	{"newline inside", "https://exam\nple.com/a\tb", "https://example.com/ab", "example.com"},
	{"tab in scheme", "ht\ttps://example.com/", "https://example.com/", "example.com"},
	{"tab in fragment", "https://example.com/a#b\tc", "https://example.com/a", "example.com"},
	{"control character in path", "https://example.com/a\x00b\x1fc", "https://example.com/a%00b%1Fc", "example.com"},
	{"control character at the end trimmed", "https://example.com/a\x1f", "https://example.com/a", "example.com"},
	{"delete in path", "https://example.com/a\x7fb", "https://example.com/a%7Fb", "example.com"},
	{"control character in query", "https://example.com/a?b=\x1bc", "https://example.com/a?b=%1Bc", "example.com"},
	{"delete at the end", "https://example.com/a\x7f", "https://example.com/a%7F", "example.com"},
	{"control character in fragment", "https://example.com/a#b\x7fc\x00", "https://example.com/a", "example.com"},
	{"control character in credentials", "https://a\x01b@example.com/", "https://example.com/", "example.com"},

	// Host.
	{"upper-case host", "https://WWW.Example.COM/Path", "https://www.example.com/Path", "www.example.com"},
	{"trailing dot", "https://example.com./a", "https://example.com/a", "example.com"},
	{"empty port", "https://example.com:/a", "https://example.com/a", "example.com"},
	{"empty port no path", "example.com:", "https://example.com/", "example.com"},
	{"default https port", "https://example.com:443/a", "https://example.com/a", "example.com"},
	{"default http port", "http://example.com:80/a", "http://example.com/a", "example.com"},
	{"port 80 on https kept", "https://example.com:80/a", "https://example.com:80/a", "example.com"},
	{"other port kept", "http://example.com:8080/a", "http://example.com:8080/a", "example.com"},
	{"port leading zeros", "http://example.com:0080/a", "http://example.com/a", "example.com"},
	{"credentials dropped", "https://user:secret@example.com/a", "https://example.com/a", "example.com"},
	{"last at wins", "https://a@b@example.com/a", "https://example.com/a", "example.com"},
	{"at in path is path", "https://example.com/@user", "https://example.com/@user", "example.com"},
	{"escaped host", "https://%77%77%77.example.com/", "https://www.example.com/", "www.example.com"},
	{"underscore in host", "https://my_site.example.com/", "https://my_site.example.com/", "my_site.example.com"},
	{"invalid punycode kept", "https://XN--ZZ.example.com/", "https://xn--zz.example.com/", "xn--zz.example.com"},
	{"hyphens below the registrable domain", "https://-a-.example.com/", "https://-a-.example.com/", "-a-.example.com"},

	// IP addresses: valid URLs, but no records (noRecordCases).
	{"ipv4", "http://192.0.2.1/a", "http://192.0.2.1/a", "192.0.2.1"},
	{"ipv4 with port", "192.0.2.1:8080", "https://192.0.2.1:8080/", "192.0.2.1"},
	{"ipv4 short form", "http://127.1/", "http://127.0.0.1/", "127.0.0.1"},
	{"ipv4 one number", "http://2130706433/", "http://127.0.0.1/", "127.0.0.1"},
	{"ipv4 hex", "http://0x7F.1/", "http://127.0.0.1/", "127.0.0.1"},
	{"ipv4 octal", "http://0300.0250.0.1/", "http://192.168.0.1/", "192.168.0.1"},
	{"ipv4 leading zero is octal", "http://192.0.2.010/", "http://192.0.2.8/", "192.0.2.8"},
	{"ipv4 trailing dot", "http://192.0.2.1./", "http://192.0.2.1/", "192.0.2.1"},
	{"ipv4 escaped", "http://%31%32%37.0.0.1/", "http://127.0.0.1/", "127.0.0.1"},
	{"ipv4 full-width", "http://１２７.０.０.１/", "http://127.0.0.1/", "127.0.0.1"},
	{"ipv6", "http://[2001:DB8:0:0:0:0:0:1]/a", "http://[2001:db8::1]/a", "[2001:db8::1]"},
	{"ipv6 with port", "https://[2001:db8::1]:8443/", "https://[2001:db8::1]:8443/", "[2001:db8::1]"},
	{"ipv6 default port", "https://[::1]:443", "https://[::1]/", "[::1]"},
	{"ipv6 single zero not compressed", "http://[0:1:0:1:0:1:0:1]/", "http://[0:1:0:1:0:1:0:1]/", "[0:1:0:1:0:1:0:1]"},
	{"ipv6 first longest run", "http://[1:0:0:2:0:0:0:3]/", "http://[1:0:0:2::3]/", "[1:0:0:2::3]"},
	{"ipv6 embedded ipv4 in hex", "http://[::ffff:192.0.2.1]/", "http://[::ffff:c000:201]/", "[::ffff:c000:201]"},
	{"ipv6 all zero", "http://[0::0]/", "http://[::]/", "[::]"},

	// Names the URL Standard accepts that are not DNS host names: valid
	// URLs, but no records (noRecordCases).
	{"single label", "http://localhost/a", "http://localhost/a", "localhost"},
	{"single label with port", "localhost:8080", "https://localhost:8080/", "localhost"},
	{"single label no scheme", "intranet", "https://intranet/", "intranet"},
	{"empty label", "https://www..example.com/", "https://www..example.com/", "www..example.com"},
	{"leading dot", "https://.example.com/", "https://.example.com/", ".example.com"},
	{"two trailing dots kept", "https://example.com../", "https://example.com../", "example.com.."},
	{"dot", "http://./", "http://./", "."},
	{"symbols", "https://exa$mple.com/", "https://exa$mple.com/", "exa$mple.com"},
	{"label too long", "https://" + strings.Repeat("a", 64) + ".com/", "https://" + strings.Repeat("a", 64) + ".com/", strings.Repeat("a", 64) + ".com"},

	// IDN.
	{"idn", "https://münchen.de/", "https://xn--mnchen-3ya.de/", "xn--mnchen-3ya.de"},
	{"idn upper case", "https://MÜNCHEN.DE/", "https://xn--mnchen-3ya.de/", "xn--mnchen-3ya.de"},
	{"idn a-label upper case", "https://XN--MNCHEN-3YA.DE/", "https://xn--mnchen-3ya.de/", "xn--mnchen-3ya.de"},
	{"idn chinese", "http://食狮.公司.cn/", "http://xn--85x722f.xn--55qx5d.cn/", "xn--85x722f.xn--55qx5d.cn"},
	{"idn tld", "https://пример.рф/", "https://xn--e1afmkfd.xn--p1ai/", "xn--e1afmkfd.xn--p1ai"},
	{"idn full-width dots", "https://example。com/", "https://example.com/", "example.com"},
	{"idn full-width letters", "https://ｅｘａｍｐｌｅ.com/", "https://example.com/", "example.com"},
	{"idn non-transitional sharp s", "https://faß.de/", "https://xn--fa-hia.de/", "xn--fa-hia.de"},
	{"idn escaped", "https://m%C3%BCnchen.de/", "https://xn--mnchen-3ya.de/", "xn--mnchen-3ya.de"},
	{"idn ignored code point", "https://exa%C2%ADmple.com/", "https://example.com/", "example.com"},
	{"idn hyphens in positions 3 and 4", "https://r3---sn-ä.example.com/", "https://xn--r3---sn--7za.example.com/", "xn--r3---sn--7za.example.com"},

	// Path.
	{"empty path", "https://example.com", "https://example.com/", "example.com"},
	{"empty path with query", "https://example.com?a=1", "https://example.com/?a=1", "example.com"},
	{"dot segments", "https://example.com/a/b/../c/./d", "https://example.com/a/c/d", "example.com"},
	{"dot segments at end", "https://example.com/a/b/..", "https://example.com/a/", "example.com"},
	{"dot segment single at end", "https://example.com/a/.", "https://example.com/a/", "example.com"},
	{"dot segments above root", "https://example.com/../../a", "https://example.com/a", "example.com"},
	{"escaped dot segments", "https://example.com/a/%2e%2E/b", "https://example.com/b", "example.com"},
	{"three dots are a name", "https://example.com/a/.../b", "https://example.com/a/.../b", "example.com"},
	{"double slash kept", "https://example.com/a//b", "https://example.com/a//b", "example.com"},
	{"double slash then dotdot", "https://example.com/a//../b", "https://example.com/a/b", "example.com"},
	{"trailing slash kept", "https://example.com/a/", "https://example.com/a/", "example.com"},
	{"escapes upper-cased", "https://example.com/a%2fb%3a", "https://example.com/a%2Fb%3A", "example.com"},
	{"unreserved escapes decoded", "https://example.com/%7Euser/%41%2D", "https://example.com/~user/A-", "example.com"},
	{"stray percent", "https://example.com/100%/x%zz", "https://example.com/100%25/x%25zz", "example.com"},
	{"non-ascii path", "https://example.com/straße", "https://example.com/stra%C3%9Fe", "example.com"},
	{"unsafe characters", `https://example.com/a"b<c>{d}|^` + "`", "https://example.com/a%22b%3Cc%3E%7Bd%7D%7C%5E%60", "example.com"},
	{"sub-delims kept", "https://example.com/a!$&'()*+,;=:@b", "https://example.com/a!$&'()*+,;=:@b", "example.com"},
	{"case of path kept", "https://example.com/News/Index.HTML", "https://example.com/News/Index.HTML", "example.com"},

	// Query.
	{"fragment dropped", "https://example.com/a#top", "https://example.com/a", "example.com"},
	{"hashbang dropped", "https://example.com/#!/page", "https://example.com/", "example.com"},
	{"empty query dropped", "https://example.com/a?", "https://example.com/a", "example.com"},
	{"empty params dropped", "https://example.com/a?&x=1&&y=2&", "https://example.com/a?x=1&y=2", "example.com"},
	{"utm dropped", "https://example.com/a?utm_source=x&utm_medium=y&utm_campaign=z", "https://example.com/a", "example.com"},
	{"utm upper case dropped", "https://example.com/a?UTM_Source=x&id=3", "https://example.com/a?id=3", "example.com"},
	{"utm escaped dropped", "https://example.com/a?utm%5Fsource=x&id=3", "https://example.com/a?id=3", "example.com"},
	{"tracking ids dropped", "https://example.com/a?fbclid=1&gclid=2&dclid=3&msclkid=4&mc_cid=5&mc_eid=6&yclid=7&_ga=8&igshid=9&ref_src=10&id=11", "https://example.com/a?id=11", "example.com"},
	{"order kept", "https://example.com/a?z=1&utm_term=q&a=2&m=3", "https://example.com/a?z=1&a=2&m=3", "example.com"},
	{"similar names kept", "https://example.com/a?utm=1&gclid_x=2&ref=3&utm_=4", "https://example.com/a?utm=1&gclid_x=2&ref=3&utm_=4", "example.com"},
	{"value named like tracker kept", "https://example.com/a?q=fbclid", "https://example.com/a?q=fbclid", "example.com"},
	{"key without value", "https://example.com/a?flag&fbclid", "https://example.com/a?flag", "example.com"},
	{"plus kept", "https://example.com/s?q=a+b", "https://example.com/s?q=a+b", "example.com"},
	{"query escapes", "https://example.com/s?q=%c3%a4&r=%41&s=a%26b", "https://example.com/s?q=%C3%A4&r=A&s=a%26b", "example.com"},
	{"query slash and question mark", "https://example.com/s?next=/a?b", "https://example.com/s?next=/a?b", "example.com"},
	{"query brackets", "https://example.com/s?f[a]=1", "https://example.com/s?f%5Ba%5D=1", "example.com"},
	{"query non-ascii", "https://example.com/s?q=ü", "https://example.com/s?q=%C3%BC", "example.com"},
	{"fragment with query-like text", "https://example.com/a#x?utm_source=y", "https://example.com/a", "example.com"},
}

func TestNormalizeURL(t *testing.T) {
	t.Parallel()
	for _, tc := range normalizeCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, host, err := NormalizeURL(tc.in)
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
			require.Equal(t, tc.host, host)
		})
	}
}

func TestNormalizeURLIdempotent(t *testing.T) {
	t.Parallel()
	for _, tc := range normalizeCases {
		again, host, err := NormalizeURL(tc.want)
		require.NoError(t, err, tc.name)
		require.Equal(t, tc.want, again, tc.name)
		require.Equal(t, tc.host, host, tc.name)
	}
}

func TestNormalizeURLUnchangedDoesNotAllocate(t *testing.T) {
	in := "https://www.mom.gov.sg/newsroom/press-releases?page=2"
	allocs := testing.AllocsPerRun(100, func() {
		if _, _, err := NormalizeURL(in); err != nil {
			t.Fatal(err)
		}
	})
	require.Zero(t, allocs)
}

var rejectCases = []struct {
	name, in, reason string
}{
	{"empty", "", ReasonEmpty},
	{"spaces only", "   \t\n ", ReasonEmpty},
	{"too long input", "https://example.com/" + strings.Repeat("a", maxInputLength), ReasonTooLong},
	{"too long output", "https://example.com/" + strings.Repeat("a", MaxURLLength), ReasonTooLong},
	{"too long after escaping", "https://example.com/" + strings.Repeat(" ", MaxURLLength/3+1) + "x", ReasonTooLong},
	{"mailto", "mailto:press@example.com", ReasonUnsupportedScheme},
	{"javascript", "javascript:alert(1)", ReasonUnsupportedScheme},
	{"javascript upper case", "JavaScript:void(0)", ReasonUnsupportedScheme},
	{"ftp", "ftp://ftp.example.com/file", ReasonUnsupportedScheme},
	{"file", "file:///etc/passwd", ReasonUnsupportedScheme},
	{"data", "data:text/html,hi", ReasonUnsupportedScheme},
	{"tel", "tel:+6512345678", ReasonUnsupportedScheme},
	{"tel digits", "tel:12345678", ReasonUnsupportedScheme},
	{"ws", "wss://example.com/socket", ReasonUnsupportedScheme},
	{"typo scheme", "htps://example.com", ReasonUnsupportedScheme},
	{"custom scheme", "itms-apps://itunes.apple.com/app/id1", ReasonUnsupportedScheme},
	{"no host", "https://", ReasonInvalidHost},
	{"no host with path", "https:///", ReasonInvalidHost},
	{"only credentials", "https://user@/a", ReasonInvalidHost},
	{"space in host", "http://exa mple.com/", ReasonInvalidHost},
	{"space after scheme", "https:// example.com/a", ReasonInvalidHost},
	{"space in host after credentials", "https://a b@exa mple.com/", ReasonInvalidHost},
	{"forbidden code point", "https://exa<mple.com/", ReasonInvalidHost},
	{"escaped forbidden code point", "https://exa%7Cmple.com/", ReasonInvalidHost},
	{"escaped space", "https://exa%20mple.com/", ReasonInvalidHost},
	{"bad escape in host", "https://exa%zzmple.com/", ReasonInvalidHost},
	{"escaped slash in host", "https://example.com%2Fevil.com/", ReasonInvalidHost},
	{"bare ipv6", "http://2001:db8::1/", ReasonInvalidHost},
	{"bad ipv6", "http://[2001:db8::zz]/", ReasonInvalidHost},
	{"ipv6 zone", "http://[fe80::1%25eth0]/", ReasonInvalidHost},
	{"ipv4 in brackets", "http://[192.0.2.1]/", ReasonInvalidHost},
	{"unclosed bracket", "http://[::1/", ReasonInvalidHost},
	{"junk after bracket", "http://[::1]x/", ReasonInvalidHost},
	{"ipv6 leading zero in ipv4 part", "http://[::ffff:192.0.2.01]/", ReasonInvalidHost},
	{"ipv6 too many pieces", "http://[1:2:3:4:5:6:7:8:9]/", ReasonInvalidHost},
	{"ipv6 two compressions", "http://[1::2::3]/", ReasonInvalidHost},
	{"ipv4 out of range", "http://192.0.2.256/", ReasonInvalidHost},
	{"ipv4 one number out of range", "http://4294967296/", ReasonInvalidHost},
	{"ipv4 too many parts", "http://1.2.3.4.5/", ReasonInvalidHost},
	{"ipv4 bad octal", "http://1.2.3.08/", ReasonInvalidHost},
	{"numeric tld", "http://example.123/", ReasonInvalidHost},
	{"hex tld", "http://example.0x1f/", ReasonInvalidHost},
	{"idn numeric tld", "http://münchen.123/", ReasonInvalidHost},
	{"idn disallowed rune", "https://exa\u2028mple.com/", ReasonInvalidHost},
	{"idn maps to forbidden", "https://exa\uff05mple.com/", ReasonInvalidHost},
	{"idn maps to nothing", "https://\u00ad/", ReasonInvalidHost},
	{"idn joiner", "https://a\u200db.com/", ReasonInvalidHost},
	{"idn invalid punycode with unicode", "https://xn--zz.münchen.de/", ReasonInvalidHost},
	{"idn bidi", "https://\u05d0a.com/", ReasonInvalidHost},
	{"invalid utf-8 host", "https://\xff.com/", ReasonInvalidHost},
	{"replacement character host", "https://\ufffd.com/", ReasonInvalidHost},
	{"bad port", "https://example.com:80a/", ReasonInvalidURL},
	{"port too big", "https://example.com:65536/", ReasonInvalidURL},
	{"port zero", "https://example.com:0/", ReasonInvalidURL},
	{"port huge", "https://example.com:99999999999999999999/", ReasonInvalidURL},
	{"control in host", "https://exa\x01mple.com/", ReasonInvalidHost},
	{"delete in host", "https://exa\x7fmple.com/", ReasonInvalidHost},
	{"control in port", "https://example.com:8\x010/", ReasonInvalidHost},
	{"escaped control in host", "https://exa%01mple.com/", ReasonInvalidHost},
	{"leading colon", "://example.com", ReasonInvalidURL},
}

func TestNormalizeURLRejects(t *testing.T) {
	t.Parallel()
	for _, tc := range rejectCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, host, err := NormalizeURL(tc.in)
			var ue *URLError
			require.True(t, errors.As(err, &ue), "got %q, %v", got, err)
			require.Equal(t, tc.reason, ue.Reason)
			require.Equal(t, tc.in, ue.Input)
			require.Empty(t, got)
			require.Empty(t, host)
		})
	}
}

// noRecordCases are valid URLs, as browsers read them, whose host has no
// registrable domain: NormalizeURL accepts them (normalizeCases) and
// Analyze refuses them with ReasonNoRegistrableDomain.
var noRecordCases = []string{
	"http://192.0.2.1/a", "http://127.1/", "http://0x7F.1/", "http://2130706433/", "http://0300.0250.0.1/",
	"https://[2001:db8::1]/", "https://[::1]:443", "http://[0:1:0:1:0:1:0:1]/", "http://[::ffff:192.0.2.1]/",
	"http://localhost/a", "localhost:8080", "intranet", "http://./", "http://../",
	"https://www..example.com/", "https://.example.com/", "https://example.com../",
	"https://exa$mple.com/", "https://a{b}.example.com/", "https://" + strings.Repeat("a", 64) + ".com/",
	"https://" + strings.Repeat("abcdefghi.", 26) + "com/",
	"https://-example.com/", "https://example-.com/", "https://xn--abc-.com/",
	"https://co.uk/", "https://com/",
	"/news/today", // read as "https://news/today": a schemeless path looks like a host
}

func TestNoRecord(t *testing.T) {
	t.Parallel()
	c := DefaultClassifier()
	for _, in := range noRecordCases {
		norm, host, err := NormalizeURL(in)
		require.NoError(t, err, in)
		_, err = c.Analyze(in, "sg")
		var ue *URLError
		require.True(t, errors.As(err, &ue), "%q → %q", in, norm)
		require.Equal(t, ReasonNoRegistrableDomain, ue.Reason, in)
		_, err = RegistrableDomain(host)
		require.True(t, errors.As(err, &ue), in)
		require.Equal(t, ReasonNoRegistrableDomain, ue.Reason, in)
	}
}

func TestNormalizeHost(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"Example.COM":            "example.com",
		"example.com.":           "example.com",
		" www.gov.sg ":           "www.gov.sg",
		"münchen.de":             "xn--mnchen-3ya.de",
		"192.0.2.1":              "192.0.2.1",
		"2001:DB8::1":            "[2001:db8::1]",
		"[2001:db8:0::1]":        "[2001:db8::1]",
		"食狮.公司.cn":               "xn--85x722f.xn--55qx5d.cn",
		"xn--85x722f.xn--fiqs8s": "xn--85x722f.xn--fiqs8s",
		// Hosts of valid URLs that have no registrable domain.
		"localhost": "localhost",
		"a..b":      "a..b",
		"-a.com":    "-a.com",
		"1.2.3":     "1.2.0.3",
		"0x7f.1":    "127.0.0.1",
		"::ffff:1":  "[::ffff:1]",
	} {
		got, err := NormalizeHost(in)
		require.NoError(t, err, in)
		require.Equal(t, want, got, in)
	}
	for _, in := range []string{"", "example.com:80", "exa mple.com", "[::1", "a.1.2", "exa%mple.com", "\u00ad"} {
		_, err := NormalizeHost(in)
		var ue *URLError
		require.True(t, errors.As(err, &ue), in)
		require.Equal(t, ReasonInvalidHost, ue.Reason, in)
	}
}

func TestURLError(t *testing.T) {
	t.Parallel()
	require.Equal(t, `discover: invalid_host: "http://x"`, (&URLError{Reason: ReasonInvalidHost, Input: "http://x"}).Error())
	require.Equal(t, "discover: <nil>", (*URLError)(nil).Error())
	long := (&URLError{Reason: ReasonTooLong, Input: strings.Repeat("é", 200)}).Error()
	require.Less(t, len(long), 160)
	require.NotContains(t, long, `\x`, "cut on a rune boundary")
	require.NotPanics(t, func() { _ = (&URLError{Input: "\xff\xfe"}).Error() })
}

func TestTrackingParamsAreLowerCaseAndShort(t *testing.T) {
	t.Parallel()
	for _, p := range append(append([]string{}, trackingParams...), trackingPrefixes...) {
		require.Equal(t, strings.ToLower(p), p)
		require.LessOrEqual(t, len(p), 32)
	}
}
