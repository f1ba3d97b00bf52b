package warc

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestSURT holds SURT to the surt package pywb uses: the cases of its
// test_surt.py (from WaybackURLKeyMakerTest.java) and, run through the
// SURT form, those of its canonicaliser tests.
func TestSURT(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		// test_surt.py: test_surt
		{"", "-"},
		{"filedesc:foo.arc.gz", "filedesc:foo.arc.gz"},
		{"http://www.archive.org/", "org,archive)/"},
		{"http://archive.org/", "org,archive)/"},
		{"http://archive.org/goo/", "org,archive)/goo"},
		{"http://archive.org/goo/?", "org,archive)/goo"},
		{"http://archive.org/goo/?b&a", "org,archive)/goo?a&b"},
		{"http://archive.org/goo/?a=2&b&a=1", "org,archive)/goo?a=1&a=2&b"},
		{"http://archive.org/index.php?PHPSESSID=0123456789abcdefghijklemopqrstuv&action=profile;u=4221",
			"org,archive)/index.php?action=profile;u=4221"},
		{"whois://whois.isoc.org.il/shaveh.co.il", "il,org,isoc,whois)/shaveh.co.il"},
		{"http://visit.webhosting.yahoo.com/visit.gif?&r=http%3A//web.archive.org/web/20090517140029/http%3A//anthonystewarthead.electric-chi.com/&b=Netscape%205.0%20%28Windows%3B%20en-US%29&s=1366x768&o=Win32&c=24&j=true&v=1.2",
			"com,yahoo,webhosting,visit)/visit.gif?&b=netscape%205.0%20(windows;%20en-us)&c=24&j=true&o=win32&r=http://web.archive.org/web/20090517140029/http://anthonystewarthead.electric-chi.com/&s=1366x768&v=1.2"},
		{"mailto:foo@example.com", "mailto:foo@example.com"},
		{"http://www.example.com/", "com,example)/"},
		{"ftp://www.example.com/", "com,example)/"},

		// IAURLCanonicalizer and DefaultIAURLCanonicalizer tests
		{"http://ARCHIVE.ORG/", "org,archive)/"},
		{"http://www.archive.org:80/", "org,archive)/"},
		{"https://www.archive.org:80/", "org,archive:80)/"},
		{"http://www.archive.org:443/", "org,archive:443)/"},
		{"https://www.archive.org:443/", "org,archive)/"},
		{"http://www.archive.org/big/", "org,archive)/big"},
		{"http://www.alexa.com/", "com,alexa)/"},
		{"http://archive.org/index.html?", "org,archive)/index.html"},
		{"http://archive.org/index.html?b=b&a=b", "org,archive)/index.html?a=b&b=b"},
		{"http://archive.org/index.html?b=a&b=b&a=b", "org,archive)/index.html?a=b&b=a&b=b"},
		{"http://www34.archive.org/index.html?b=a&b=b&a=b", "org,archive)/index.html?a=b&b=a&b=b"},
		{"http://example.com/foo?X=Y", "com,example)/foo?x=y"},
		{"http://www2foo.com/", "com,www2foo)/"},

		// GoogleURLCanonicalizer tests
		{"http://host/%25%32%35", "host)/%25"},
		{"http://host/%25%32%35%25%32%35", "host)/%25%25"},
		{"http://host/%2525252525252525", "host)/%25"},
		{"http://host/asdf%25%32%35asd", "host)/asdf%25asd"},
		{"http://host/%%%25%32%35asd%%", "host)/%25%25%25asd%25%25"},
		{"http://%31%36%38%2e%31%38%38%2e%39%39%2e%32%36/%2E%73%65%63%75%72%65/%77%77%77%2E%65%62%61%79%2E%63%6F%6D/",
			"26,99,188,168)/.secure/www.ebay.com"},
		{"http://3279880203/blah", "11,0,127,195)/blah"},
		{"http://www.google.com/blah/..", "com,google)/"},
		{"www.google.com/", "com,google)/"},
		{"www.google.com", "com,google)/"},
		{"http://www.evil.com/blah#frag", "com,evil)/blah"},
		{"http://www.GOOgle.com/", "com,google)/"},
		{"http://www.google.com.../", "com,google)/"},
		{"http://www.google.com/foo\tbar\rbaz\n2", "com,google)/foobarbaz2"},
		{"http://www.google.com/q?r?s", "com,google)/q?r?s"},
		{"http://evil.com/foo#bar#baz", "com,evil)/foo"},
		{"http://evil.com/foo;", "com,evil)/foo;"},
		{"http://evil.com/foo?bar;", "com,evil)/foo?bar;"},
		{"B\u00fccher.ch:8080", "ch,xn--bcher-kva:8080)/"},
		{"http://notrailingslash.com", "com,notrailingslash)/"},
		{"http://www.gotaport.com:1234/", "com,gotaport:1234)/"},
		{"  http://www.google.com/  ", "com,google)/"},
		{"http://host.com/ab%23cd", "com,host)/ab%23cd"},
		{"http://host.com//twoslashes?more//slashes", "com,host)/twoslashes?more//slashes"},
		{"http:////////////////www.vikings.com", "com,vikings)/"},
		{"http://https://order.1and1.com", "com,1and1,order)/"},
		{"http://mineral.galleries.com:/minerals/silicate/chabazit/chabazit.htm",
			"com,galleries,mineral)/minerals/silicate/chabazit/chabazit.htm"},
		{"http://017.0.0.1/", "1,0,0,15)/"},
		{"http://10.0.258/", "2,1,0,10)/"},

		// the brief's example, pywb's docs', and a page with UTF-8
		{"https://www.Example.com/a?b=1", "com,example)/a?b=1"},
		{"http://example.com", "com,example)/"},
		{"https://www.example.com/a/?b=1&A=2#top", "com,example)/a?a=2&b=1"},
		{"https://example.com/caf%C3%A9/", "com,example)/caf%c3%a9"},
		{"https://example.com/café", "com,example)/caf%c3%a9"},
		{"https://example.com/a b", "com,example)/a%20b"},
		{"https://example.com/;jsessionid?jsessionid=0123456789abcdefghijklemopqrstuv&x=y", "com,example)/;jsessionid?x=y"},
		{"http://example.com:notaport/", "http://example.com:notaport/"},
	} {
		require.Equal(t, tc.want, SURT(tc.in), "SURT(%q)", tc.in)
	}
}

// TestCDXJLine reproduces cdxj-indexer's own test output for its
// example.warc.gz, a response and a revisit.
func TestCDXJLine(t *testing.T) {
	t.Parallel()
	resp := Record{
		Type: "response", TargetURI: "http://example.com/", Date: time.Date(2017, 3, 6, 4, 2, 6, 0, time.UTC),
		MIME: "text/html", Status: 200, PayloadDigest: "sha1:G7HRM7BGOKSKMSXZAHMUQTTV53QOFSMK", Length: 1228, Offset: 784,
	}
	require.Equal(t,
		`com,example)/ 20170306040206 {"url": "http://example.com/", "mime": "text/html", "status": "200", "digest": "G7HRM7BGOKSKMSXZAHMUQTTV53QOFSMK", "length": "1228", "offset": "784", "filename": "example.warc.gz"}`,
		CDXJLine(resp, "example.warc.gz"))

	revisit := resp
	revisit.Type, revisit.Date, revisit.Length, revisit.Offset = "revisit", time.Date(2017, 3, 6, 4, 3, 48, 0, time.UTC), 585, 2538
	require.Equal(t,
		`com,example)/ 20170306040348 {"url": "http://example.com/", "mime": "warc/revisit", "status": "200", "digest": "G7HRM7BGOKSKMSXZAHMUQTTV53QOFSMK", "length": "585", "offset": "2538", "filename": "example.warc.gz"}`,
		CDXJLine(revisit, "example.warc.gz"))

	// No MIME: left out, as cdxj-indexer does. Time zones do not leak
	// into the timestamp; sub-seconds are cut.
	bare := Record{Type: "response", TargetURI: "http://example.com/a", Status: 404,
		Date: time.Date(2017, 3, 6, 5, 2, 6, 900_000_000, time.FixedZone("x", 3600)), Length: 1, Offset: 2}
	require.Equal(t,
		`com,example)/a 20170306040206 {"url": "http://example.com/a", "status": "404", "length": "1", "offset": "2", "filename": "f.warc.gz"}`,
		CDXJLine(bare, "f.warc.gz"))
}

// TestCDXJLineJSON: the JSON is what Python's json.dumps writes, and
// still valid JSON.
func TestCDXJLineJSON(t *testing.T) {
	t.Parallel()
	r := Record{Type: "response", TargetURI: "http://example.com/\"é\U0001F600\x7f<&>/", Date: time.Unix(0, 0), Length: 1}
	line := CDXJLine(r, "a\\b.warc.gz")
	js := strings.SplitN(line, " ", 3)[2]
	require.Equal(t, `{"url": "http://example.com/\"\u00e9\ud83d\ude00\u007f<&>/", "length": "1", "offset": "0", "filename": "a\\b.warc.gz"}`, js)
	var m map[string]string
	require.NoError(t, json.Unmarshal([]byte(js), &m))
	require.Equal(t, r.TargetURI, m["url"])
}
