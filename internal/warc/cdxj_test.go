package warc

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// targetURICases are URLs as a page may give them and their WHATWG
// serialisation without the fragment, as Node's new URL(url).href gives
// it (TestURLsAsWarcioSees checks that with Node), but for a '"' in a
// host, which TargetURI encodes and a browser does not. The last ones do
// not parse, or have a non-special scheme, and are percent-encoded as
// RFC 3986 allows.
var targetURICases = []struct{ in, want string }{
	{"https://example.com/", "https://example.com/"},
	{"http://example.com", "http://example.com/"},
	{`https://example.com/a b/<script>alert("x")</script>?q=<script>"x" y&z=1 2#frag`,
		"https://example.com/a%20b/%3Cscript%3Ealert(%22x%22)%3C/script%3E?q=%3Cscript%3E%22x%22%20y&z=1%202"},
	{"https://example.com/café/naïve?é=ü", "https://example.com/caf%C3%A9/na%C3%AFve?%C3%A9=%C3%BC"},
	{"https://Bücher.Example/Straße", "https://xn--bcher-kva.example/Stra%C3%9Fe"},
	{"http://faß.de/", "http://xn--fa-hia.de/"},
	{"https://☃.net/💩?💩", "https://xn--n3h.net/%F0%9F%92%A9?%F0%9F%92%A9"},
	{"HTTPS://EXAMPLE.ORG/UPPER/Case.HTML?Q=Up", "https://example.org/UPPER/Case.HTML?Q=Up"},
	{"https://www2.example.net/trailing/", "https://www2.example.net/trailing/"},
	{"http://example.com:80/default-port", "http://example.com/default-port"},
	{"https://example.com:443/default-port", "https://example.com/default-port"},
	{"https://example.com:8443/non-default", "https://example.com:8443/non-default"},
	{"http://example.com:443/", "http://example.com:443/"},
	{"https://example.com/search?b=2&a=1&b=1&a=2&&c", "https://example.com/search?b=2&a=1&b=1&a=2&&c"},
	{"https://example.com/empty?", "https://example.com/empty?"},
	{"https://example.com/page#section-2", "https://example.com/page"},
	{"https://example.com/page?a#b#c", "https://example.com/page?a"},
	{"https://example.com/a/%2e%2e/b/%2E%2E/c/./d/.", "https://example.com/c/d/"},
	{"https://example.com/a/b/../../../../c", "https://example.com/c"},
	{"https://example.com//double//slash", "https://example.com//double//slash"},
	{"https://example.com/p|^[]{}`\\x?q={y}|z^`\\w'k", "https://example.com/p|^[]%7B%7D%60/x?q={y}|z^`\\w%27k"},
	{"https://example.com/%zz%4a%4A?%41=%zz", "https://example.com/%zz%4a%4A?%41=%zz"},
	{"https://user:p w@example.com/auth", "https://user:p%20w@example.com/auth"},
	{"http://[2001:DB8::1]:8080/v6", "http://[2001:db8::1]:8080/v6"},
	{"http://0x7f.1/", "http://127.0.0.1/"},
	{"http://ex%41mple.com./", "http://example.com./"},
	{"  http://example.com/a\tb\nc\x7f\x01 ", "http://example.com/abc%7F"},
	{"https://example.com/\u2028", "https://example.com/%E2%80%A8"},
	{"ftp://www.example.com/x y", "ftp://www.example.com/x%20y"},
	// The standard leaves a '"' in a host; TargetURI does not.
	{`http://a"b.example/"`, "http://a%22b.example/%22"},
	{`HTTP:"0`, "http://%220/"},
	{"foo://host/a b?c d#e", "foo://host/a%20b?c%20d"},

	{"mailto:a b<c>\"d\"", "mailto:a%20b%3Cc%3E%22d%22"},
	{"javascript:alert(<x> \"y\")", "javascript:alert(%3Cx%3E%20%22y%22)"},
	{"not a url <x>", "not%20a%20url%20%3Cx%3E"},
	{"/relative/päth", "/relative/p%C3%A4th"},
	{"http://exa mple.com/", "http://exa%20mple.com/"},
	{"http://example.com:99999/", "http://example.com:99999/"},
	{"", ""},
}

// TestTargetURI: the WHATWG serialisation, which is a URI and a fixed
// point.
func TestTargetURI(t *testing.T) {
	t.Parallel()
	for _, tc := range targetURICases {
		got := TargetURI(tc.in)
		require.Equal(t, tc.want, got, "TargetURI(%q)", tc.in)
		require.Equal(t, got, TargetURI(got), "TargetURI(TargetURI(%q))", tc.in)
		require.NotContains(t, got, " ")
		require.NotContains(t, got, `"`)
		require.NotContains(t, got, "<")
		require.NotContains(t, got, ">")
		require.NoError(t, checkFieldValue("", got))
	}
}

// surtCases are URLs and their key as warcio's getSurt computes it
// (TestURLsAsWarcioSees checks that with warcio).
var surtCases = []struct{ in, want string }{
	{"http://example.com/", "com,example)/"},
	{"http://example.com", "com,example)/"},
	{"https://www.example.com/a/?b=1&A=2#top", "com,example)/a/?a=2&b=1"},
	{"https://www.Example.com/a?b=1", "com,example)/a?b=1"},
	{"http://www.example.com", "com,example)/"},
	{"https://www2.example.com/x", "com,example)/x"},
	{"https://www10.example.com:8443/a/", "com,example:8443)/a/"},
	{"http://www.com/", "com)/"},
	{"http://www.www.example.com/", "com,example,www)/"},
	{"https://www2foo.com/", "com,www2foo)/"},
	{"http://user@www.example.com/", "com,example,www)/"},
	// www is dropped before lowercasing, so only as written in lower case.
	{"http://WWW.example.com/", "com,example,www)/"},
	{"https://EXAMPLE.COM/UPPER/Path?Q=UP", "com,example)/upper/path?q=up"},
	{"http://example.com:80/default", "com,example)/default"},
	{"https://example.com:443/default", "com,example)/default"},
	{"http://example.com:443/", "com,example:443)/"},
	{"https://example.com/?b=2&a=1&b=1&a=2", "com,example)/?a=1&a=2&b=1&b=2"},
	{"http://example.com/?&&a=&=b", "com,example)/?&&=b&a="},
	{"https://example.com/?a=1&A=2&_=3&~=4&%41=5", "com,example)/?%41=5&_=3&a=1&a=2&~=4"},
	{"http://example.com/?q=a+b&q=a%2Bb", "com,example)/?q=a%2bb&q=a+b"},
	{"https://example.com/p?", "com,example)/p"},
	{"https://example.com/p#only-frag", "com,example)/p"},
	{"https://example.com/a/%2e%2e/b/%2E%2E/c", "com,example)/c"},
	{"https://example.com/a%20b?c%20d", "com,example)/a%20b?c%20d"},
	{"https://example.com/%zz%4a%4A?%zz", "com,example)/%zz%4a%4a?%zz"},
	{`https://example.com/a b?q=<script>"x"`, "com,example)/a%20b?q=%3Cscript%3E%22x%22"},
	{"https://example.com/café", "com,example)/caf%C3%A9"},
	{"https://example.com/caf%C3%A9", "com,example)/caf%c3%a9"},
	{"https://example.com/x?q=%E2%82%AC&r=€", "com,example)/x?q=%e2%82%ac&r=%E2%82%AC"},
	{"https://Bücher.example/path", "example,xn--bcher-kva)/path"},
	{"https://münchen.DE/Straße", "de,xn--mnchen-3ya)/stra%C3%9Fe"},
	{"http://example.com/İ/", "com,example)/i%CC%87/"},
	{"http://ΑΣ.com/ΑΣ/", "com,xn--mxa0b)/%CE%B1%CF%82/"},
	{"http://example.com/aΣb", "com,example)/a%CF%83b"},
	{"http://example.com/aΣ.b", "com,example)/a%CF%83.b"},
	{"http://example.com/a'Σ", "com,example)/a'%CF%82"},
	{"http://[2001:DB8::1]/", "[2001:db8::1])/"},
	{"http://[::1]:8080/x", "[::1]:8080)/x"},
	{"http://3279880203/", "11,0,127,195)/"},
	{"http://example.com./trail", ",com,example)/trail"},
	{"http://example.com/a\tb\nc", "com,example)/abc"},
	{"http://example.com/;jsessionid=0123456789abcdefghijklemopqrstuv",
		"com,example)/;jsessionid=0123456789abcdefghijklemopqrstuv"},

	// Not http(s), or not a URL: as it is (after the www step).
	{"", ""},
	{"HTTP://WWW.EXAMPLE.COM/", "HTTP://WWW.EXAMPLE.COM/"},
	{"  http://example.com/", "  http://example.com/"},
	{"ftp://www.example.com/x", "ftp://www.example.com/x"},
	{"mailto:foo@example.com", "mailto:foo@example.com"},
	{"urn:isbn:0451450523", "urn:isbn:0451450523"},
	{"http://", "http://"},
	{"http://www.exa mple.com/", "http://exa mple.com/"},
	{"https://www.example.com:99999/", "https://example.com:99999/"},
}

// TestSURT holds SURT to warcio.js's getSurt.
func TestSURT(t *testing.T) {
	t.Parallel()
	for _, tc := range surtCases {
		require.Equal(t, tc.want, SURT(tc.in), "SURT(%q)", tc.in)
	}
}

// TestCDXJLine: the lines warcio cdx-index writes for cdxj-indexer's
// example.warc.gz, a response and a revisit (TestWarcioReadsOurFiles
// holds CDXJLine to warcio on our own files).
func TestCDXJLine(t *testing.T) {
	t.Parallel()
	resp := Record{
		Type: "response", TargetURI: "http://example.com/", Date: time.Date(2017, 3, 6, 4, 2, 6, 0, time.UTC),
		MIME: "text/html", Status: 200, PayloadDigest: "sha1:G7HRM7BGOKSKMSXZAHMUQTTV53QOFSMK", Length: 1228, Offset: 784,
	}
	require.Equal(t,
		`com,example)/ 20170306040206 {"url":"http://example.com/","mime":"text/html","status":"200","digest":"G7HRM7BGOKSKMSXZAHMUQTTV53QOFSMK","length":"1228","offset":"784","filename":"example.warc.gz"}`,
		CDXJLine(resp, "example.warc.gz"))

	revisit := resp
	revisit.Type, revisit.Date, revisit.Length, revisit.Offset = "revisit", time.Date(2017, 3, 6, 4, 3, 48, 0, time.UTC), 585, 2538
	require.Equal(t,
		`com,example)/ 20170306040348 {"url":"http://example.com/","mime":"warc/revisit","status":"200","digest":"G7HRM7BGOKSKMSXZAHMUQTTV53QOFSMK","length":"585","offset":"2538","filename":"example.warc.gz"}`,
		CDXJLine(revisit, "example.warc.gz"))

	// No MIME: left out, as warcio does when there is no Content-Type.
	// Time zones do not leak into the timestamp; sub-seconds are cut.
	bare := Record{Type: "response", TargetURI: "http://example.com/a", Status: 404,
		Date: time.Date(2017, 3, 6, 5, 2, 6, 900_000_000, time.FixedZone("x", 3600)), Length: 1, Offset: 2}
	require.Equal(t,
		`com,example)/a 20170306040206 {"url":"http://example.com/a","status":"404","length":"1","offset":"2","filename":"f.warc.gz"}`,
		CDXJLine(bare, "f.warc.gz"))

	// A Content-Type with an empty media type: an empty mime.
	bare.emptyMIME = true
	require.Equal(t,
		`com,example)/a 20170306040206 {"url":"http://example.com/a","mime":"","status":"404","length":"1","offset":"2","filename":"f.warc.gz"}`,
		CDXJLine(bare, "f.warc.gz"))
}

// TestCDXJLineJSON: the JSON is what JavaScript's JSON.stringify writes,
// and valid JSON.
func TestCDXJLineJSON(t *testing.T) {
	t.Parallel()
	r := Record{Type: "response", TargetURI: "http://example.com/\"é\U0001F600\x7f<&>\u2028\x01/", Date: time.Unix(0, 0), Length: 1}
	line := CDXJLine(r, "a\\b\t.warc.gz")
	js := strings.SplitN(line, " ", 3)[2]
	require.Equal(t, `{"url":"http://example.com/\"é`+"\U0001F600\x7f"+`<&>`+"\u2028"+`\u0001/",`+
		`"length":"1","offset":"0","filename":"a\\b\t.warc.gz"}`, js)
	var m map[string]string
	require.NoError(t, json.Unmarshal([]byte(js), &m))
	require.Equal(t, r.TargetURI, m["url"])
}

// FuzzTargetURI: whatever the input, the target breaks no header line,
// holds none of the characters the review found ('"', '<', '>',
// spaces, non-ASCII), and is its own TargetURI.
func FuzzTargetURI(f *testing.F) {
	for _, tc := range targetURICases {
		f.Add(tc.in)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		got := TargetURI(raw)
		for i := 0; i < len(got); i++ {
			if c := got[i]; c <= ' ' || c >= 0x7f || c == '"' || c == '<' || c == '>' {
				t.Fatalf("TargetURI(%q) = %q: byte %#x at %d", raw, got, c, i)
			}
		}
		if again := TargetURI(got); again != got {
			t.Fatalf("TargetURI(%q) = %q, but TargetURI of that is %q", raw, got, again)
		}
	})
}

// TestPlainURL: a URL TargetURI and SURT take as written, without the
// WHATWG parser, gets the parser's answer. The URLs are made of parts
// near the edges of what plainURL takes.
func TestPlainURL(t *testing.T) {
	t.Parallel()
	schemes := []string{"http://", "https://", "HTTP://", "Https://", "ftp://", "http:/", "http:"}
	hosts := []string{"example.com", "a.b", "www.example.com", "www2.example.org", "Example.com", "xn--bcher-kva.example",
		"xn--zz.com", "ab--c.com", "a-b.com", "-a.com", "a-.com", "1.2.3.4", "0x7f.1", "a.1com", "a.123", "a.0x1f", "a.x1",
		"a..b", "a.com.", ".a.com", "", "a.com:80", "a.com:8080", "u@a.com", "a.com:", "a b.com", "a_b.com", "é.com", "a%41.com"}
	parts := []string{"", "a", "B", "-", ".", "..", "%2e", "%2E", ".%2e", "%2e%2E", "...", "%", "%zz", "%41", "'", "\\", " ",
		"~", "_", "!", "$", "&", "(", ")", "*", "+", ",", ";", "=", ":", "@", "?", "#", "/", "//", "|", "^", "`", "{", "}",
		"[", "]", "<", ">", "\"", "é", "\t", "\x7f", "x.y", "a=1", "b=2&a=1"}
	rnd := rand.New(rand.NewPCG(1, 2))
	pick := func(xs []string) string { return xs[rnd.IntN(len(xs))] }
	// Mostly parts of plain URLs, so that the dot segments and the
	// characters at the edge are tried in URLs that are plain otherwise.
	pickOften := func(xs []string, often int) string {
		if rnd.IntN(4) > 0 {
			return xs[rnd.IntN(often)]
		}
		return pick(xs)
	}
	plains := 0
	for range 200_000 {
		var b strings.Builder
		b.WriteString(pickOften(schemes, 2))
		b.WriteString(pickOften(hosts, 4))
		if rnd.IntN(8) > 0 {
			b.WriteByte('/')
		}
		for range rnd.IntN(8) {
			if rnd.IntN(3) == 0 {
				b.WriteByte('/')
			}
			b.WriteString(pickOften(parts, 33))
		}
		u := b.String()
		if _, ok := plainURL(u); ok {
			plains++
			require.Equal(t, parsedTargetURI(u), TargetURI(u), "TargetURI(%q)", u)
		}
		if url := dropWWW(u); strings.HasPrefix(url, "http") {
			if _, ok := plainURL(jsToLower(url)); ok {
				require.Equal(t, parsedSURT(url, jsToLower(url)), SURT(u), "SURT(%q)", u)
			}
		}
	}
	require.Greater(t, plains, 10_000)
}
