package sitemap

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/stretchr/testify/require"
)

const nsSitemap = `xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"`

func urlset(body string) string {
	return `<?xml version="1.0" encoding="UTF-8"?><urlset ` + nsSitemap + `>` + body + `</urlset>`
}

func gzipBytes(t testing.TB, data []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	_, err := zw.Write(data)
	require.NoError(t, err)
	require.NoError(t, zw.Close())
	return buf.Bytes()
}

func locs(entries []Entry) []string {
	out := make([]string, len(entries))
	for i, e := range entries {
		out[i] = e.Loc
	}
	return out
}

func TestParseDocuments(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		doc     string
		typ     Type
		locs    []string
		invalid int
	}{
		{"entities and CDATA", urlset(
			`<url><loc>https://a.example/x?a=1&amp;b=&#50;&#x33;&lt;&gt;&quot;&apos;</loc></url>` +
				`<url><loc><![CDATA[https://a.example/cdata?a=1&amp;b]]></loc></url>` +
				`<url><loc>https://a.example/lit?at&t=1&nbsp;</loc></url>`),
			TypeURLSet, []string{`https://a.example/x?a=1&b=23<>"'`, "https://a.example/cdata?a=1&amp;b", "https://a.example/lit?at&t=1&nbsp;"}, 0},
		{"comments and PIs inside", urlset(
			`<!-- <url><loc>https://a.example/commented</loc></url> --><?pi x?>` +
				`<url><!-- c --><loc>https://a.example/<!-- mid -->1</loc></url>`),
			TypeURLSet, []string{"https://a.example/1"}, 0},
		{"first loc wins", urlset(`<url><loc>https://a.example/1</loc><loc>https://a.example/2</loc></url>`),
			TypeURLSet, []string{"https://a.example/1"}, 0},
		{"no namespace", `<urlset><url><loc>https://a.example/1</loc></url></urlset>`,
			TypeURLSet, []string{"https://a.example/1"}, 0},
		{"old google 0.84 namespace", `<urlset xmlns="http://www.google.com/schemas/sitemap/0.84"><url><loc>https://a.example/1</loc></url></urlset>`,
			TypeURLSet, []string{"https://a.example/1"}, 0},
		{"loc in a foreign namespace is not the loc", urlset(
			`<url xmlns:x="urn:x"><x:loc>https://a.example/foreign</x:loc><loc>https://a.example/1</loc></url>`),
			TypeURLSet, []string{"https://a.example/1"}, 0},
		{"url outside urlset namespace ignored", urlset(`<x:url xmlns:x="urn:x"><x:loc>https://a.example/foreign</x:loc></x:url>`),
			TypeURLSet, []string{}, 0},
		{"nested loc not taken", urlset(`<url><image:image xmlns:image="urn:i"><loc>https://a.example/img</loc></image:image><loc>https://a.example/1</loc></url>`),
			TypeURLSet, []string{"https://a.example/1"}, 0},
		{"self-closing and attributes with >", urlset(`<url a='x>y' b="1"><loc>https://a.example/1</loc><empty/></url>`),
			TypeURLSet, []string{"https://a.example/1"}, 0},
		{"sitemap index with loc", `<sitemapindex ` + nsSitemap + `><sitemap><loc>https://a.example/s1.xml.gz</loc><lastmod>2024-01-02</lastmod></sitemap></sitemapindex>`,
			TypeIndex, []string{"https://a.example/s1.xml.gz"}, 0},
		{"rss 2.0 guid fallback", `<rss version="2.0"><channel><link>https://a.example/</link><item><guid>https://a.example/g</guid></item>` +
			`<item><guid isPermaLink="false">tag:x</guid></item><item><link>https://a.example/l</link><guid>https://a.example/g2</guid></item></channel></rss>`,
			TypeRSS, []string{"https://a.example/g", "https://a.example/l"}, 1},
		{"rss atom:link in item ignored", `<rss version="2.0" xmlns:atom="http://www.w3.org/2005/Atom"><channel><item><atom:link href="https://a.example/self"/><link>https://a.example/1</link></item></channel></rss>`,
			TypeRSS, []string{"https://a.example/1"}, 0},
		{"rss 1.0 rdf", `<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns="http://purl.org/rss/1.0/" xmlns:dc="http://purl.org/dc/elements/1.1/">` +
			`<channel rdf:about="https://a.example/"><link>https://a.example/</link></channel>` +
			`<item rdf:about="https://a.example/about"><title>t</title><link>https://a.example/1</link><dc:date>2024-01-02T03:04:05Z</dc:date></item>` +
			`<item rdf:about="https://a.example/2"></item></rdf:RDF>`,
			TypeRSS, []string{"https://a.example/1", "https://a.example/2"}, 0},
		{"atom links", `<feed xmlns="http://www.w3.org/2005/Atom"><link href="https://a.example/"/>` +
			`<entry><link rel="self" href="https://a.example/self"/><link rel="alternate" href="https://a.example/1?a&amp;b"/></entry>` +
			`<entry><link rel="edit" href="https://a.example/edit"/></entry>` +
			`<entry><link href="/relative"/></entry></feed>`,
			TypeAtom, []string{"https://a.example/1?a&b"}, 2},
		{"text with blank lines and CRLF", "\r\n  https://a.example/1 \r\n\r\nnot a url\r\nHTTPS://A.EXAMPLE/2\r\n",
			TypeText, []string{"https://a.example/1", "HTTPS://A.EXAMPLE/2"}, 1},
		{"text starting with BOM and spaces", "\ufeff  \nhttps://a.example/1",
			TypeText, []string{"https://a.example/1"}, 0},
		{"xml with BOM", "\ufeff" + urlset(`<url><loc>https://a.example/1</loc></url>`),
			TypeURLSet, []string{"https://a.example/1"}, 0},
		{"trailing content after root ignored", urlset(`<url><loc>https://a.example/1</loc></url>`) + "<garbage",
			TypeURLSet, []string{"https://a.example/1"}, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			res, got, err := parseAll(t, []byte(tc.doc), Options{})
			require.NoError(t, err)
			require.Equal(t, tc.typ, res.Type)
			require.Equal(t, tc.locs, locs(got))
			require.Equal(t, tc.invalid, res.Invalid)
		})
	}
}

func TestParseDates(t *testing.T) {
	t.Parallel()
	doc := urlset(`<url><loc>https://a.example/1</loc><lastmod>2024-02-29T23:59:59.5-01:30</lastmod></url>` +
		`<url><loc>https://a.example/2</loc><lastmod>not a date</lastmod></url>` +
		`<url><loc>https://a.example/3</loc><lastmod>2025</lastmod></url>`)
	res, got, err := parseAll(t, []byte(doc), Options{})
	require.NoError(t, err)
	require.Equal(t, date("2024-03-01T01:29:59.5Z"), got[0].LastMod)
	require.True(t, got[1].LastMod.IsZero())
	require.Equal(t, date("2025-01-01T00:00:00Z"), got[2].LastMod)
	require.Equal(t, date("2025-01-01T00:00:00Z"), res.Newest)
}

func TestParseDate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want string // RFC 3339; "" for the zero time
	}{
		{"1997", "1997-01-01T00:00:00Z"},
		{"1997-07", "1997-07-01T00:00:00Z"},
		{"1997-07-16", "1997-07-16T00:00:00Z"},
		{" 1997-07-16T19:20+01:00 ", "1997-07-16T18:20:00Z"},
		{"1997-07-16T19:20:30+01:00", "1997-07-16T18:20:30Z"},
		{"1997-07-16T19:20:30.45+01:00", "1997-07-16T18:20:30.45Z"},
		{"1997-07-16T19:20:30Z", "1997-07-16T19:20:30Z"},
		{"1997-07-16T19:20:30", "1997-07-16T19:20:30Z"},
		{"1997-07-16 19:20:30", "1997-07-16T19:20:30Z"},
		{"1997-07-16T19:20:30+0100", "1997-07-16T18:20:30Z"},
		{"1997-07-16T19:20:30-05", "1997-07-17T00:20:30Z"},
		{"Fri, 24 Jan 2025 15:32:41 -0500", "2025-01-24T20:32:41Z"},
		{"Fri, 24 Jan 2025 15:32:41 GMT", "2025-01-24T15:32:41Z"},
		{"Fri, 24 Jan 2025 15:32:41 EST", "2025-01-24T20:32:41Z"},
		{"24 Jan 2025 15:32 +0000", "2025-01-24T15:32:00Z"},
		{"Sat, 4 Jan 25 09:00:00 PDT", "2025-01-04T16:00:00Z"},
		{"", ""},
		{"yesterday", ""},
		{"1997-13-01", ""},
		{"1997-02-30", ""},
		{"1997-07-16T25:00:00Z", ""},
		{"1997-07-16T19:20:30+1:00", ""},
		{"19970716", ""},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			t.Parallel()
			got := parseDate([]byte(tc.in))
			if tc.want == "" {
				require.True(t, got.IsZero(), "got %v", got)
				return
			}
			require.Equal(t, date(tc.want), got)
			require.Equal(t, time.UTC, got.Location())
		})
	}
}

func TestParseInvalidLocs(t *testing.T) {
	t.Parallel()
	long := "https://a.example/" + strings.Repeat("x", MaxLocBytes-len("https://a.example/"))
	tests := []struct {
		name  string
		loc   string
		valid bool
	}{
		{"plain", "https://a.example/", true},
		{"http with port and userinfo", "http://u:p@a.example:8080/x", true},
		{"ipv6", "http://[::1]/", true},
		{"exactly 2048 bytes", long, true},
		{"2049 bytes", long + "x", false},
		{"empty", "", false},
		{"white space only", "  \n ", false},
		{"relative", "/page.html", false},
		{"scheme-relative", "//a.example/", false},
		{"ftp", "ftp://a.example/", false},
		{"mailto", "mailto:a@a.example", false},
		{"no host", "https:///path", false},
		{"port only", "http://:80/", false},
		{"inner space", "https://a.example/a b", false},
		{"control character", "https://a.example/a&#9;b", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			doc := urlset(`<url><loc>` + tc.loc + `</loc></url><url><loc>https://a.example/ok</loc></url>`)
			res, got, err := parseAll(t, []byte(doc), Options{})
			require.NoError(t, err)
			if tc.valid {
				require.Equal(t, 0, res.Invalid)
				require.Equal(t, []string{tc.loc, "https://a.example/ok"}, locs(got))
			} else {
				require.Equal(t, 1, res.Invalid)
				require.Equal(t, []string{"https://a.example/ok"}, locs(got))
			}
		})
	}
	t.Run("missing loc and overlong text", func(t *testing.T) {
		t.Parallel()
		doc := urlset(`<url><lastmod>2024-01-01</lastmod></url><url><loc>https://a.example/` +
			strings.Repeat("y", 100_000) + `</loc></url><url><loc>https://a.example/ok</loc></url>`)
		res, got, err := parseAll(t, []byte(doc), Options{})
		require.NoError(t, err)
		require.Equal(t, 2, res.Invalid)
		require.Equal(t, []string{"https://a.example/ok"}, locs(got))
	})
	t.Run("text line over 8 KiB", func(t *testing.T) {
		t.Parallel()
		doc := "https://a.example/" + strings.Repeat("z", 100_000) + "\nhttps://a.example/ok\n"
		res, got, err := parseAll(t, []byte(doc), Options{})
		require.NoError(t, err)
		require.Equal(t, 1, res.Invalid)
		require.Equal(t, []string{"https://a.example/ok"}, locs(got))
	})
}

func TestParseRefusesDeclarations(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		doc  string
		want error
	}{
		{"billion laughs", `<?xml version="1.0"?>
<!DOCTYPE urlset [
 <!ENTITY lol "lol">
 <!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
 <!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;">
]>
<urlset><url><loc>https://a.example/&lol2;</loc></url></urlset>`, ErrDoctype},
		{"external entity (XXE)", `<?xml version="1.0"?><!DOCTYPE urlset [<!ENTITY xxe SYSTEM "file:///etc/passwd">]><urlset><url><loc>&xxe;</loc></url></urlset>`, ErrDoctype},
		{"external DTD", `<!DOCTYPE urlset SYSTEM "http://a.example/evil.dtd"><urlset/>`, ErrDoctype},
		{"lower-case doctype", `<!doctype urlset><urlset/>`, ErrDoctype},
		{"ENTITY without DOCTYPE", `<!ENTITY x "y"><urlset/>`, ErrDoctype},
		{"DOCTYPE inside the root", urlset(`<url><loc>https://a.example/1</loc></url><!DOCTYPE x>`), ErrDoctype},
		{"HTML doctype is an HTML page", "<!DOCTYPE html>\n<html><head><title>404</title></head></html>", ErrNotSitemap},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, got, err := parseAll(t, []byte(tc.doc), Options{})
			require.ErrorIs(t, err, tc.want)
			for _, e := range got {
				require.NotContains(t, e.Loc, "lol")
			}
		})
	}
}

func TestParseNotSitemap(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		doc  []byte
	}{
		{"empty", nil},
		{"white space", []byte(" \n\t\r\n")},
		{"BOM only", []byte("\ufeff")},
		{"html", []byte("<html><body><a href='https://a.example/'>x</a></body></html>")},
		{"html after comment", []byte("<!-- cms --><HTML><body>Not found</body></HTML>")},
		{"unknown root", []byte(`<?xml version="1.0"?><opml version="2.0"><body/></opml>`)},
		{"xml declaration only", []byte(`<?xml version="1.0"?>`)},
		{"text before root", []byte(`<?xml version="1.0"?>oops<urlset/>`)},
		{"not xml after <", []byte("< this is not xml")},
		{"png", []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")},
		{"utf-16 xml", []byte("\xff\xfe<\x00u\x00r\x00l\x00")},
		{"text without a url", []byte("Not Found\n")},
		{"json", []byte(`{"urls":["https://a.example/"]}`)},
		{"gzip html", gzipBytes(t, []byte("<!DOCTYPE html><html></html>"))},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			res, got, err := parseAll(t, tc.doc, Options{})
			require.ErrorIs(t, err, ErrNotSitemap)
			require.Empty(t, got)
			require.Zero(t, res.Entries)
		})
	}
}

func TestParseMaxEntries(t *testing.T) {
	t.Parallel()
	var xmlBody, text strings.Builder
	for i := range 10 {
		xmlBody.WriteString(`<url><loc>https://a.example/` + string(rune('a'+i)) + `</loc></url>`)
		text.WriteString("https://a.example/" + string(rune('a'+i)) + "\n")
	}
	docs := map[string]string{"xml": urlset(xmlBody.String()), "text": text.String()}
	tests := []struct {
		max       int
		entries   int
		truncated bool
	}{
		{3, 3, true},
		{9, 9, true},
		{10, 10, false}, // exactly the limit: nothing was left out
		{11, 10, false},
		{-1, 10, false},
		{0, 10, false}, // the default, 50,000
	}
	for name, doc := range docs {
		for _, tc := range tests {
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				res, got, err := parseAll(t, []byte(doc), Options{MaxEntries: tc.max})
				require.NoError(t, err)
				require.Equal(t, tc.entries, res.Entries)
				require.Len(t, got, tc.entries)
				require.Equal(t, tc.truncated, res.Truncated)
				require.Equal(t, "https://a.example/a", got[0].Loc)
			})
		}
	}
}

func TestParseMaxBytes(t *testing.T) {
	t.Parallel()
	// A gzip bomb: two entries, then 64 MiB of white space inside the urlset,
	// as 66 concatenated gzip members (a valid multi-member stream, cheap to
	// build) of about 1 KiB each.
	var buf bytes.Buffer
	buf.Write(gzipBytes(t, []byte(`<urlset `+nsSitemap+`><url><loc>https://a.example/1</loc></url><url><loc>https://a.example/2</loc></url>`)))
	spaces := gzipBytes(t, bytes.Repeat([]byte{' '}, 1<<20))
	for range 64 {
		buf.Write(spaces)
	}
	buf.Write(gzipBytes(t, []byte(`<url><loc>https://a.example/3</loc></url></urlset>`)))
	bomb := buf.Bytes()
	require.Less(t, len(bomb), 1<<20)

	tests := []struct {
		name string
		max  int64
		want int64 // bytes read when stopped
	}{
		{"default 50 MiB", 0, DefaultMaxBytes},
		{"1 MiB", 1 << 20, 1 << 20},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			res, got, err := parseAll(t, bomb, Options{MaxBytes: tc.max})
			require.ErrorIs(t, err, ErrTooLarge)
			require.True(t, res.Gzip)
			require.Equal(t, tc.want, res.Bytes)
			require.Equal(t, 2, res.Entries)
			require.Equal(t, []string{"https://a.example/1", "https://a.example/2"}, locs(got))
		})
	}
	t.Run("no limit", func(t *testing.T) {
		t.Parallel()
		res, _, err := parseAll(t, bomb, Options{MaxBytes: -1})
		require.NoError(t, err)
		require.Equal(t, 3, res.Entries)
	})
	t.Run("exactly the limit", func(t *testing.T) {
		t.Parallel()
		doc := []byte("https://a.example/1\nhttps://a.example/2\n")
		res, _, err := parseAll(t, doc, Options{MaxBytes: int64(len(doc))})
		require.NoError(t, err)
		require.Equal(t, 2, res.Entries)
		res, _, err = parseAll(t, doc, Options{MaxBytes: int64(len(doc) - 1)})
		require.ErrorIs(t, err, ErrTooLarge)
		require.Equal(t, 1, res.Entries)
	})
}

func TestParseCallbackError(t *testing.T) {
	t.Parallel()
	stop := errors.New("stop here")
	docs := map[string]string{
		"xml":  urlset(`<url><loc>https://a.example/1</loc></url><url><loc>https://a.example/2</loc></url><url><loc>https://a.example/3</loc></url>`),
		"text": "https://a.example/1\nhttps://a.example/2\nhttps://a.example/3\n",
	}
	for name, doc := range docs {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			calls := 0
			res, err := Parse(strings.NewReader(doc), Options{}, func(e Entry) error {
				calls++
				if e.Loc == "https://a.example/2" {
					return stop
				}
				return nil
			})
			require.ErrorIs(t, err, stop)
			require.Equal(t, 2, calls)
			require.Equal(t, 1, res.Entries) // the refused entry is not counted
		})
	}
}

func TestParseMalformed(t *testing.T) {
	t.Parallel()
	two := `<url><loc>https://a.example/1</loc></url><url><loc>https://a.example/2</loc></url>`
	tests := []struct {
		name    string
		doc     string
		entries int
		is      []error
	}{
		{"truncated", `<urlset ` + nsSitemap + `>` + two + `<url><loc>https://a.exa`, 2, []error{ErrMalformed, io.ErrUnexpectedEOF}},
		{"truncated in tag", `<urlset>` + two + `<url a="`, 2, []error{ErrMalformed, io.ErrUnexpectedEOF}},
		{"truncated in comment", `<urlset>` + two + `<!-- x`, 2, []error{ErrMalformed, io.ErrUnexpectedEOF}},
		{"truncated in CDATA", `<urlset>` + two + `<url><loc><![CDATA[x`, 2, []error{ErrMalformed, io.ErrUnexpectedEOF}},
		{"mismatched end tag", `<urlset>` + two + `<url><loc>https://a.example/3</lock></url></urlset>`, 2, []error{ErrMalformed}},
		{"unquoted attribute", `<urlset>` + two + `<url a=b></url></urlset>`, 2, []error{ErrMalformed}},
		{"stray <", `<urlset>` + two + `<url>< loc></url></urlset>`, 2, []error{ErrMalformed}},
		{"unknown markup", `<urlset>` + two + `<!FOO></urlset>`, 2, []error{ErrMalformed}},
		{"too deep", `<urlset>` + two + strings.Repeat("<a>", 300), 2, []error{ErrMalformed}},
		{"tag over 1 MiB", `<urlset>` + two + `<url a="` + strings.Repeat("x", 2<<20) + `"/></urlset>`, 2, []error{ErrMalformed}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			res, got, err := parseAll(t, []byte(tc.doc), Options{})
			for _, want := range tc.is {
				require.ErrorIs(t, err, want)
			}
			require.Equal(t, TypeURLSet, res.Type)
			require.Equal(t, tc.entries, res.Entries)
			require.Len(t, got, tc.entries)
		})
	}
}

func TestParseLongCommentAndCDATAStream(t *testing.T) {
	t.Parallel()
	// Comments and CDATA are streamed, not buffered: 3 MiB of each is fine.
	doc := urlset(`<!--` + strings.Repeat("c", 3<<20) + `-->` +
		`<url><loc>https://a.example/1</loc><x><![CDATA[` + strings.Repeat("d", 3<<20) + `]]></x></url>`)
	res, got, err := parseAll(t, []byte(doc), Options{})
	require.NoError(t, err)
	require.Equal(t, 1, res.Entries)
	require.Equal(t, "https://a.example/1", got[0].Loc)
}

func TestParseGzip(t *testing.T) {
	t.Parallel()
	doc := []byte(urlset(`<url><loc>https://a.example/1</loc></url><url><loc>https://a.example/2</loc></url>`))
	gz := gzipBytes(t, doc)
	t.Run("detected by magic", func(t *testing.T) {
		t.Parallel()
		res, got, err := parseAll(t, gz, Options{})
		require.NoError(t, err)
		require.True(t, res.Gzip)
		require.Equal(t, int64(len(doc)), res.Bytes)
		require.Len(t, got, 2)
	})
	t.Run("corrupt stream keeps the entries seen", func(t *testing.T) {
		t.Parallel()
		big := []byte(urlset(strings.Repeat(`<url><loc>https://a.example/1</loc></url>`, 20000)))
		z := gzipBytes(t, big)
		res, _, err := parseAll(t, z[:len(z)/2], Options{})
		require.Error(t, err)
		require.ErrorIs(t, err, io.ErrUnexpectedEOF)
		require.True(t, res.Gzip)
		require.Positive(t, res.Entries)
		require.Less(t, res.Entries, 20000)
	})
	t.Run("bad header", func(t *testing.T) {
		t.Parallel()
		_, _, err := parseAll(t, []byte{0x1f, 0x8b, 0, 0}, Options{})
		require.ErrorIs(t, err, ErrNotSitemap)
	})
}

func TestParseReadError(t *testing.T) {
	t.Parallel()
	boom := errors.New("connection reset")
	doc := urlset(`<url><loc>https://a.example/1</loc></url>`)
	r := io.MultiReader(strings.NewReader(doc[:len(doc)-len("</urlset>")]), iotest.ErrReader(boom))
	res, err := Parse(r, Options{}, func(Entry) error { return nil })
	require.ErrorIs(t, err, boom)
	require.Equal(t, 1, res.Entries)
}

func TestParseNewest(t *testing.T) {
	t.Parallel()
	doc := `<urlset ` + nsSitemap + ` xmlns:news="http://www.google.com/schemas/sitemap-news/0.9">` +
		`<url><loc>https://a.example/1</loc><lastmod>2024-01-01</lastmod></url>` +
		`<url><loc>https://a.example/2</loc><lastmod>2023-01-01</lastmod><news:news><news:publication_date>2024-06-01T10:00:00Z</news:publication_date></news:news></url>` +
		`<url><loc>bad</loc><lastmod>2030-01-01</lastmod></url></urlset>`
	res, got, err := parseAll(t, []byte(doc), Options{})
	require.NoError(t, err)
	require.Equal(t, date("2024-06-01T10:00:00Z"), res.Newest) // the invalid entry's date does not count
	require.Equal(t, 1, res.News)
	require.Nil(t, got[0].News)
	require.Equal(t, date("2024-06-01T10:00:00Z"), got[1].News.PublicationDate)
}

func TestParseLargeDocumentChunked(t *testing.T) {
	t.Parallel()
	// 1 MB through odd-sized reads: tokens straddle every refill position.
	data, err := io.ReadAll(newURLSetReader(1_000_000))
	require.NoError(t, err)
	want, wantEntries, err := parseAll(t, data, Options{})
	require.NoError(t, err)
	require.Greater(t, want.Entries, 4000)
	var got []Entry
	res, err := Parse(iotest.HalfReader(bytes.NewReader(data)), Options{}, func(e Entry) error {
		got = append(got, e)
		return nil
	})
	require.NoError(t, err)
	require.Equal(t, want, res)
	require.Equal(t, wantEntries, got)
	require.Equal(t, "https://www.example-news.co.uk/section-0/2024/05/article-0.html?ref=sitemap&page=1", got[0].Loc)
	require.Equal(t, date("2024-05-10T10:34:56Z"), got[0].LastMod)
}
