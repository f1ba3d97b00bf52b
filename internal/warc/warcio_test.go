package warc

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine/internal/warc/warciotest"
)

// warcioDir is where package.json's pinned warcio is installed
// (warciotest.Dir: $SEEDENGINE_WARCIO_DIR, which .ci/run sets).
func warcioDir(t *testing.T) string { return warciotest.Dir(t) }

// runWarcio has warciotest run warcio on file; its error is warcio's
// exit status, not nil when a digest does not match.
func runWarcio(t *testing.T, dir string, file []byte) (warciotest.Report, error) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "sample.warc.gz")
	require.NoError(t, os.WriteFile(path, file, 0o644))
	return warciotest.Run(t, dir, path, "sample.warc.gz")
}

// TestWarcioReadsOurFiles has Webrecorder's warcio, an independent
// reader, parse files we wrote: it must find every record at the offset
// and length we index, with the links between them and the target URIs
// we wrote, and the block and payload digests it computes must match
// ours; its own CDX indexer (warcio cdx-index) must write exactly the
// lines CDXJLine writes, key, timestamp and every field. The hostile
// sample's pages have URLs and Content-Types a server or a page's links
// could send.
func TestWarcioReadsOurFiles(t *testing.T) {
	t.Parallel()
	dir := warcioDir(t)
	for name, s := range map[string]written{"sample": writeSample(t), "hostile": writeHostileSample(t)} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			checkWarcioReads(t, dir, s)
		})
	}
}

func checkWarcioReads(t *testing.T, dir string, s written) {
	rep, err := runWarcio(t, dir, s.file)
	require.NoError(t, err, "errors: %v", rep.Errors)
	require.Empty(t, rep.Errors)

	ms := members(t, s.file)
	require.Len(t, rep.Records, len(ms))
	ids := map[string]string{}
	for i, r := range rep.Records {
		require.Equal(t, ms[i], member{r.Offset, r.Length}, "record %d (%s)", i, r.Type)
		require.True(t, r.BlockDigestOK, "record %d", i)
		if r.Type == "request" || r.Type == "response" {
			require.NotNil(t, r.PayloadDigestOK, "record %d", i)
			require.True(t, *r.PayloadDigestOK, "record %d", i)
		}
		ids[r.ID] = r.Type
	}
	for _, r := range rep.Records {
		for _, c := range r.ConcurrentTo {
			require.Contains(t, ids, c, "WARC-Concurrent-To of %s names a record in the file", r.ID)
		}
	}

	// Every record after the warcinfo, requests included, has the
	// target as TargetURI serialises it.
	type typeURI struct{ typ, uri string }
	var want, got []typeURI
	for i, c := range s.captures {
		if len(c.Request) > 0 {
			want = append(want, typeURI{"request", TargetURI(c.TargetURI)})
		}
		want = append(want, typeURI{s.records[i].Type, TargetURI(c.TargetURI)})
	}
	require.Equal(t, "warcinfo", rep.Records[0].Type)
	for _, r := range rep.Records[1:] {
		require.NotNil(t, r.URI, "record %s", r.ID)
		got = append(got, typeURI{r.Type, *r.URI})
	}
	require.Equal(t, want, got)

	byOffset := map[int64]int{}
	for i, r := range rep.Records {
		byOffset[r.Offset] = i
	}
	for i, rec := range s.records {
		r := rep.Records[byOffset[rec.Offset]]
		require.Equal(t, rec.Type, r.Type)
		require.Equal(t, rec.RecordID, r.ID)
		require.Equal(t, rec.TargetURI, *r.URI)
		require.NotNil(t, r.Status)
		require.Equal(t, rec.Status, *r.Status)
		if rec.Type == "revisit" {
			require.Equal(t, s.records[0].RecordID, *r.RefersTo)
			require.Equal(t, s.records[0].PayloadDigest, *r.PayloadDigest)
		}
		if len(s.captures[i].Request) > 0 {
			require.Len(t, r.ConcurrentTo, 1)
			require.Equal(t, "request", ids[r.ConcurrentTo[0]])
		}
	}

	// warcio's CDX indexer and ours write the same lines.
	lines := make([]string, len(s.records))
	for i, rec := range s.records {
		lines[i] = CDXJLine(rec, "sample.warc.gz")
	}
	require.Equal(t, rep.CDXJ, lines)
	require.Len(t, rep.CDX, len(s.records))
}

// hostilePages are the pages of writeHostileSample: URLs as links and
// redirects may give them, with the target each must be written under,
// and Content-Type fields (as raw header lines) a server may send, with
// the mime warcio's indexer reads from them (nil: none).
var hostilePages = []struct {
	url, target string
	status      string
	header      string
	mime        *string
}{
	{`https://example.com/a b/<script>alert("x")</script>?q=<script>"x" y&z=1 2#frag`,
		"https://example.com/a%20b/%3Cscript%3Ealert(%22x%22)%3C/script%3E?q=%3Cscript%3E%22x%22%20y&z=1%202",
		"200 OK", "Content-Type: text/html; charset=utf-8\r\n", ptr("text/html")},
	{"https://example.com/café/naïve?é=ü", "https://example.com/caf%C3%A9/na%C3%AFve?%C3%A9=%C3%BC",
		"200 OK", "Content-Type: text/html charset=utf-8\r\n", ptr("text/html charset=utf-8")},
	{"https://Bücher.Example/Straße", "https://xn--bcher-kva.example/Stra%C3%9Fe",
		"200 OK", "Content-Type: text/plain\r\nX-A: b\r\ncontent-type: text/html; q=1\r\n", ptr("text/plain, text/html")},
	{"HTTPS://EXAMPLE.ORG/UPPER/Case.HTML?Q=Up", "https://example.org/UPPER/Case.HTML?Q=Up",
		"200 OK", "CONTENT-TYPE:  Text/HTML \r\n", ptr("Text/HTML")},
	{"https://www2.example.net/trailing/", "https://www2.example.net/trailing/",
		"200 OK", "Content-Type: ;charset=utf-8\r\n", ptr("")},
	{"http://example.com:80/default-port", "http://example.com/default-port",
		"200 OK", "", nil},
	{"https://example.com:8443/non-default", "https://example.com:8443/non-default",
		"200 OK", "Content-Type: tëxt/html\r\n", ptr("tëxt/html")},
	{"https://example.com/search?b=2&a=1&b=1&a=2&&c", "https://example.com/search?b=2&a=1&b=1&a=2&&c",
		"200 OK", "Content-Type: text/€\r\n", ptr("text/\u00e2\u0082\u00ac")},
	{"https://example.com/empty?", "https://example.com/empty?",
		"200 OK", "Content-Type: te\xe2\x82xt/\xff; y\r\n", ptr("te\u00ef\u00bf\u00bdxt/\u00ef\u00bf\u00bd")},
	{"https://example.com/page#section-2", "https://example.com/page",
		"200 OK", "Content-Type: text/\r\n \thtml\r\n", ptr("text/ \thtml")},
	{"https://example.com/a/%2e%2e/b/%2E%2E/c/./d/.", "https://example.com/c/d/",
		"200 OK", "Content-Type: a\x00b\r\nContent-Type: text/css\r\n", ptr("text/css")},
	{"https://example.com/p|^[]{}`\\x?q={y}|z^`\\w'k", "https://example.com/p|^[]%7B%7D%60/x?q={y}|z^`\\w%27k",
		"200 OK", " Content-Type: lead/space\r\n", ptr("lead/space")},
	{"https://example.com/%zz%4a%4A?%41=%zz", "https://example.com/%zz%4a%4A?%41=%zz",
		"200 OK", "Content-Type:\r\n text/x\r\n", nil},
	{"https://user:p w@example.com/auth", "https://user:p%20w@example.com/auth",
		"401 Unauthorized", "Content-Type: text/html\r\n", ptr("text/html")},
	{"http://[2001:DB8::1]:8080/v6", "http://[2001:db8::1]:8080/v6",
		"301 Moved Permanently", "Location: /x\r\nContent-Type: text/html\r\n", ptr("text/html")},
	{`http://a"b.example/"q"`, "http://a%22b.example/%22q%22", "200 OK", "Content-Type: text/html\r\n", ptr("text/html")},
	{"not a url <x>", "not%20a%20url%20%3Cx%3E", "200 OK", "Content-Type: text/html\r\n", ptr("text/html")},
	{"http://ΑΣ.gr/ΑΣ?Σ", "http://xn--mxa0b.gr/%CE%91%CE%A3?%CE%A3", "200 OK", "Content-Type: text/html\r\n", ptr("text/html")},
	{"https://www.example.com/", "https://www.example.com/", "404 Not Found", "Server: test\r\n", nil},
}

func ptr(s string) *string { return &s }

// writeHostileSample writes a warcinfo and hostilePages, each with a
// request but the last; then the second page again without a request,
// and a revisit of the first page under another spelling of its URL
// that refers to the first by its URL as given.
func writeHostileSample(t testing.TB) written {
	var buf bytes.Buffer
	w, err := NewWriter(&buf, "sample.warc.gz", map[string]string{"software": "seedengine test"})
	require.NoError(t, err)
	var caps []Capture
	for i, p := range hostilePages {
		c := hostileCapture(p.url, t0.Add(time.Duration(i)*time.Second), p.status, p.header, html(uint64(10+i), 2000))
		if i == len(hostilePages)-1 {
			c.Request = nil
		}
		caps = append(caps, c)
	}
	again := hostileCapture(hostilePages[1].url, t0.Add(time.Hour), "200 OK", hostilePages[1].header, html(99, 500))
	again.Request = nil
	revisit := hostileCapture(`https://EXAMPLE.com/a b/<script>alert("x")</script>?q=<script>"x" y&z=1 2`,
		t0.Add(24*time.Hour), "200 OK", hostilePages[0].header, html(10, 2000))
	caps = append(caps, again, revisit)

	var recs []Record
	for i, c := range caps {
		var rv *Revisit
		if i == len(caps)-1 {
			r := recs[0].Revisit()
			r.TargetURI = hostilePages[0].url
			rv = &r
		}
		rec, err := w.Write(c, rv)
		require.NoError(t, err)
		recs = append(recs, rec)
	}
	return written{file: buf.Bytes(), captures: caps, records: recs}
}

// hostileCapture is a GET of rawURL and a response with the given
// status, header lines (each ending in CRLF) and body.
func hostileCapture(rawURL string, date time.Time, status, header string, body []byte) Capture {
	path, host := "/", "example.com"
	if u, err := url.Parse(TargetURI(rawURL)); err == nil && u.Host != "" {
		path, host = u.RequestURI(), u.Host
	}
	return Capture{
		TargetURI: rawURL,
		Date:      date,
		Request:   []byte("GET " + path + " HTTP/1.1\r\nHost: " + host + "\r\n\r\n"),
		Response:  []byte(fmt.Sprintf("HTTP/1.1 %s\r\n%sContent-Length: %d\r\n\r\n%s", status, header, len(body), body)),
	}
}

// TestHostileSample: the hostile sample's targets and mimes are the ones
// hostilePages expects, and a revisit's reference is serialised too.
func TestHostileSample(t *testing.T) {
	t.Parallel()
	s := writeHostileSample(t)
	for i, p := range hostilePages {
		rec := s.records[i]
		require.Equal(t, p.target, rec.TargetURI, "%q", p.url)
		resp, err := ParseResponse(s.captures[i].Response)
		require.NoError(t, err)
		mime, ok := resp.cdxMIME()
		require.Equal(t, p.mime != nil, ok, "%q", p.header)
		if ok {
			require.Equal(t, *p.mime, mime, "%q", p.header)
			require.Equal(t, *p.mime, rec.MIME)
		}
	}
	rv := s.records[len(s.records)-1]
	require.Equal(t, "revisit", rv.Type)
	require.Equal(t, hostilePages[0].target, rv.TargetURI)
	got, err := ReadRecord(bytes.NewReader(s.file), rv.Offset, rv.Length)
	require.NoError(t, err)
	require.Equal(t, hostilePages[0].target, got.Header.Get("WARC-Target-URI"))
	require.Equal(t, hostilePages[0].target, got.Header.Get("WARC-Refers-To-Target-URI"))
}

// TestURLsAsWarcioSees holds TargetURI to Node's WHATWG URL parser and
// SURT to warcio's getSurt, on the URLs of the tests here and on the
// targets TargetURI makes of them.
func TestURLsAsWarcioSees(t *testing.T) {
	t.Parallel()
	dir := warcioDir(t)
	var urls []string
	for _, tc := range targetURICases {
		urls = append(urls, tc.in, TargetURI(tc.in))
	}
	for _, tc := range surtCases {
		urls = append(urls, tc.in, TargetURI(tc.in))
	}
	for _, p := range hostilePages {
		urls = append(urls, p.url, TargetURI(p.url))
	}
	in, err := json.Marshal(urls)
	require.NoError(t, err)
	_, self, _, _ := runtime.Caller(0)
	cmd := exec.Command("node", filepath.Join(filepath.Dir(self), "testdata", "warcio", "urls.mjs"), dir)
	cmd.Stdin = bytes.NewReader(in)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, "stderr: %s", stderr.String())
	var seen []struct {
		Href *string `json:"href"`
		SURT string  `json:"surt"`
	}
	require.NoError(t, json.Unmarshal(out, &seen))
	require.Len(t, seen, len(urls))
	for i, u := range urls {
		require.Equal(t, seen[i].SURT, SURT(u), "SURT(%q)", u)
		if seen[i].Href == nil || !isSpecial(*seen[i].Href) {
			continue // TargetURI percent-encodes these as RFC 3986 allows
		}
		// Only in a host can the browser's serialisation hold a '"'.
		require.Equal(t, strings.ReplaceAll(*seen[i].Href, `"`, "%22"), TargetURI(u), "TargetURI(%q)", u)
	}
}

// isSpecial: the URL's scheme is one the WHATWG standard calls special.
func isSpecial(href string) bool {
	scheme, _, _ := strings.Cut(href, ":")
	return slices.Contains([]string{"http", "https", "ws", "wss", "ftp", "file"}, scheme)
}

// TestWarcioCatchesCorruption checks that the warcio check can fail: one
// byte of a stored page changed (its gzip member recompressed, so the
// file still reads) must show as block and payload digest mismatches.
func TestWarcioCatchesCorruption(t *testing.T) {
	t.Parallel()
	dir := warcioDir(t)
	s := writeSample(t)
	rec := s.records[1]
	bad := corruptPayload(t, s.file, rec.Offset, rec.Length)

	rep, err := runWarcio(t, dir, bad)
	var exit *exec.ExitError
	require.ErrorAs(t, err, &exit)
	require.Equal(t, 1, exit.ExitCode())
	require.Len(t, rep.Errors, 2, "%v", rep.Errors)
	require.Contains(t, rep.Errors[0], "block digest mismatch in "+rec.RecordID)
	require.Contains(t, rep.Errors[1], "payload digest mismatch in "+rec.RecordID)
}
