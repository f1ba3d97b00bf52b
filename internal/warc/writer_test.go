package warc

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

var t0 = time.Date(2026, 3, 4, 5, 6, 7, 250_000_000, time.UTC)

// page is a capture of url with an HTML body of about size bytes.
func page(url string, date time.Time, body []byte, extraHeader string) Capture {
	host := strings.SplitN(strings.SplitN(url, "//", 2)[1], "/", 2)[0]
	req := fmt.Sprintf("GET %s HTTP/1.1\r\nHost: %s\r\nUser-Agent: seedengine-test\r\nAccept-Encoding: gzip\r\n\r\n",
		strings.TrimPrefix(url, "https://"+host), host)
	resp := fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: %d\r\n%s\r\n", len(body), extraHeader)
	return Capture{
		TargetURI: url,
		IP:        "127.0.0.1",
		Date:      date,
		Request:   []byte(req),
		Response:  append([]byte(resp), body...),
	}
}

// html is a deterministic page body of about size bytes that compresses
// about as well as real HTML.
func html(seed uint64, size int) []byte {
	words := strings.Fields("the of seed engine archive page news policy press release statistics " +
		"government ministry report data open public service notice update procurement event research")
	r := rand.New(rand.NewPCG(seed, seed))
	var b bytes.Buffer
	b.WriteString("<!doctype html><html><head><title>Page</title></head><body>\n")
	for b.Len() < size {
		fmt.Fprintf(&b, `<p class="c%d"><a href="/item/%d">`, r.IntN(20), r.IntN(100000))
		for range 8 + r.IntN(20) {
			b.WriteString(words[r.IntN(len(words))])
			b.WriteByte(' ')
		}
		b.WriteString("</a></p>\n")
	}
	b.WriteString("</body></html>\n")
	return b.Bytes()
}

// member is one gzip member of a file, found by decompressing them one
// after another (not from any index).
type member struct {
	offset, length int64
}

func members(t *testing.T, file []byte) []member {
	t.Helper()
	var out []member
	r := bytes.NewReader(file)
	for r.Len() > 0 {
		start := int64(len(file) - r.Len())
		zr, err := gzip.NewReader(r) // *bytes.Reader is a ByteReader: no read-ahead
		require.NoError(t, err)
		zr.Multistream(false)
		_, err = io.Copy(io.Discard, zr)
		require.NoError(t, err)
		out = append(out, member{start, int64(len(file)-r.Len()) - start})
	}
	return out
}

type written struct {
	file     []byte
	captures []Capture
	records  []Record
}

// writeSample writes a warcinfo, three pages and a revisit of the first.
func writeSample(t testing.TB) written {
	var buf bytes.Buffer
	w, err := NewWriter(&buf, "sample.warc.gz", map[string]string{"software": "seedengine test", "operator": "tests"})
	require.NoError(t, err)

	body := html(1, 50_000)
	caps := []Capture{
		page("https://www.example.com/news?b=2&a=1", t0, body, ""),
		page("https://example.org/policy.html", t0.Add(time.Second), html(2, 20_000), ""),
		{
			TargetURI: "https://example.net/missing",
			Date:      t0.Add(2 * time.Second),
			Response:  []byte("HTTP/1.1 404 Not Found\r\nServer: test\r\n\r\n"),
		},
		page("https://www.example.com/news?b=2&a=1", t0.Add(24*time.Hour), body, "X-Later: yes\r\n"),
	}
	var recs []Record
	for i, c := range caps {
		var rv *Revisit
		if i == 3 {
			r := recs[0].Revisit()
			rv = &r
		}
		rec, err := w.Write(c, rv)
		require.NoError(t, err)
		recs = append(recs, rec)
	}
	require.Equal(t, int64(buf.Len()), w.Size())
	return written{file: buf.Bytes(), captures: caps, records: recs}
}

func TestWriteReadRoundTrip(t *testing.T) {
	t.Parallel()
	s := writeSample(t)
	file := bytes.NewReader(s.file)

	// Every record is its own gzip member: warcinfo, then request and
	// response per page (the 404 was sent without a request).
	ms := members(t, s.file)
	require.Len(t, ms, 1+2+2+1+2)
	var stored []StoredRecord
	for _, m := range ms {
		rec, err := ReadRecord(file, m.offset, m.length)
		require.NoError(t, err)
		require.Equal(t, "WARC/1.1", rec.Version)
		stored = append(stored, rec)
	}
	types := make([]string, len(stored))
	for i, r := range stored {
		types[i] = r.Type()
	}
	require.Equal(t, []string{"warcinfo", "request", "response", "request", "response", "response", "request", "revisit"}, types)

	info := stored[0]
	require.Equal(t, "sample.warc.gz", info.Header.Get("WARC-Filename"))
	require.Equal(t, "application/warc-fields", info.Header.Get("Content-Type"))
	require.Contains(t, string(info.Block), "software: seedengine test\r\n")
	require.Contains(t, string(info.Block), "format: WARC File Format 1.1\r\n")
	infoID := info.Header.Get("WARC-Record-ID")
	require.Regexp(t, `^<urn:uuid:[0-9a-f-]{36}>$`, infoID)

	// The returned records point at the response (or revisit) members.
	respMembers := []member{ms[2], ms[4], ms[5], ms[7]}
	reqOf := map[int]StoredRecord{0: stored[1], 1: stored[3], 3: stored[6]}
	for i, rec := range s.records {
		c := s.captures[i]
		require.Equal(t, respMembers[i], member{rec.Offset, rec.Length}, "record %d", i)

		got, err := ReadRecord(file, rec.Offset, rec.Length)
		require.NoError(t, err)
		h := got.Header
		require.Equal(t, rec.Type, got.Type())
		require.Equal(t, rec.RecordID, h.Get("WARC-Record-ID"))
		require.Equal(t, c.TargetURI, h.Get("WARC-Target-URI"))
		require.Equal(t, formatDate(c.Date), h.Get("WARC-Date"))
		require.Empty(t, h.Get("WARC-Warcinfo-ID"), "the warcinfo is the file's first record")
		require.Equal(t, "application/http; msgtype=response", h.Get("Content-Type"))
		require.Equal(t, digestOf(got.Block), h.Get("WARC-Block-Digest"))
		if c.IP != "" {
			require.Equal(t, c.IP, h.Get("WARC-IP-Address"))
		}

		want, err := ParseResponse(c.Response)
		require.NoError(t, err)
		wantDigest, err := PayloadDigest(c.Response)
		require.NoError(t, err)
		require.Equal(t, wantDigest, rec.PayloadDigest)
		require.Equal(t, wantDigest, h.Get("WARC-Payload-Digest"))
		require.Equal(t, want.Status, rec.Status)
		require.Equal(t, want.MIME(), rec.MIME)

		resp, err := got.HTTPResponse()
		require.NoError(t, err)
		require.Equal(t, want.Status, resp.Status)
		if rec.Type == "response" {
			require.Equal(t, c.Response, got.Block)
			require.Equal(t, want.Body, resp.Body)
		} else {
			require.Equal(t, c.Response[:want.HeaderLen], got.Block, "a revisit holds the header only")
			require.Empty(t, resp.Body)
			require.Equal(t, "yes", resp.Header.Get("X-Later"))
			orig := s.records[0]
			require.Equal(t, "http://netpreserve.org/warc/1.1/revisit/identical-payload-digest", h.Get("WARC-Profile"))
			require.Equal(t, orig.RecordID, h.Get("WARC-Refers-To"))
			require.Equal(t, orig.TargetURI, h.Get("WARC-Refers-To-Target-URI"))
			require.Equal(t, formatDate(orig.Date), h.Get("WARC-Refers-To-Date"))
			require.Equal(t, orig.PayloadDigest, rec.PayloadDigest)
			require.Empty(t, h.Get("WARC-Truncated"))
		}

		req, ok := reqOf[i]
		if !ok {
			require.Empty(t, h.Values("WARC-Concurrent-To"))
			continue
		}
		require.Equal(t, []string{req.Header.Get("WARC-Record-ID")}, h.Values("WARC-Concurrent-To"))
		require.Empty(t, req.Header.Values("WARC-Concurrent-To"), "the response names the request, not the other way")
		require.Equal(t, c.Request, req.Block)
		require.Equal(t, c.TargetURI, req.Header.Get("WARC-Target-URI"))
		require.Equal(t, "application/http; msgtype=request", req.Header.Get("Content-Type"))
	}
}

func TestWriteRejects(t *testing.T) {
	t.Parallel()
	ok := page("https://example.com/", t0, []byte("hello"), "")
	with := func(f func(*Capture)) Capture {
		c := ok
		f(&c)
		return c
	}
	otherDigest := Revisit{RecordID: "<urn:uuid:00000000-0000-4000-8000-000000000000>", TargetURI: "https://example.com/",
		Date: t0, PayloadDigest: "sha1:3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ"}
	for _, tc := range []struct {
		name    string
		capture Capture
		revisit *Revisit
		want    string
	}{
		{"no blank line", with(func(c *Capture) { c.Response = []byte("HTTP/1.1 200 OK\r\nA: b\r\n") }), nil, "no blank line"},
		{"not http", with(func(c *Capture) { c.Response = []byte("<html>\r\n\r\n") }), nil, "does not start with HTTP/"},
		{"bare LF", with(func(c *Capture) { c.Response = []byte("HTTP/1.1 200 OK\nA: b\r\n\r\n") }), nil, "bare CR or LF"},
		{"chunked", with(func(c *Capture) {
			c.Response = []byte("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nhello")
		}), nil, "Transfer-Encoding"},
		{"request without blank line", with(func(c *Capture) { c.Request = []byte("GET / HTTP/1.1\r\nHost: a\r\n") }), nil, "http request: no blank line"},
		{"no URI", with(func(c *Capture) { c.TargetURI = "" }), nil, "bad target URI"},
		{"no date", with(func(c *Capture) { c.Date = time.Time{} }), nil, "no date"},
		{"bad IP", with(func(c *Capture) { c.IP = "example.com" }), nil, "bad IP"},
		{"revisit of other payload", ok, &otherDigest, "digest mismatch"},
		{"revisit without id", ok, &Revisit{TargetURI: "https://example.com/", Date: t0, PayloadDigest: "sha1:X"}, "bad record id"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var buf bytes.Buffer
			w, err := NewWriter(&buf, "x.warc.gz", nil)
			require.NoError(t, err)
			before := w.Size()
			_, err = w.Write(tc.capture, tc.revisit)
			require.ErrorContains(t, err, tc.want)
			require.Equal(t, before, w.Size(), "nothing written")
		})
	}

	_, err := NewWriter(io.Discard, "a\r\nb", nil)
	require.Error(t, err)
	_, err = NewWriter(io.Discard, "a.warc.gz", map[string]string{"bad name": "x"})
	require.Error(t, err)
}

func TestWriteAfterFailedWrite(t *testing.T) {
	t.Parallel()
	fw := &failingWriter{left: 1 << 20}
	w, err := NewWriter(fw, "x.warc.gz", nil)
	require.NoError(t, err)
	fw.left = 10
	_, err = w.Write(page("https://example.com/", t0, html(3, 5000), ""), nil)
	require.ErrorContains(t, err, "warc file broken")
	fw.left = 1 << 20
	_, err = w.Write(page("https://example.com/", t0, []byte("x"), ""), nil)
	require.ErrorContains(t, err, "warc file broken", "a broken file stays broken")
}

type failingWriter struct{ left int }

func (f *failingWriter) Write(p []byte) (int, error) {
	if len(p) > f.left {
		n := f.left
		f.left = 0
		return n, io.ErrClosedPipe
	}
	f.left -= len(p)
	return len(p), nil
}

func TestWriteConcurrent(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	w, err := NewWriter(&buf, "x.warc.gz", nil)
	require.NoError(t, err)
	const n = 40
	recs := make([]Record, n)
	bodies := make([][]byte, n)
	var wg sync.WaitGroup
	for i := range n {
		bodies[i] = html(uint64(i), 2000+i*100)
		wg.Go(func() {
			rec, err := w.Write(page(fmt.Sprintf("https://example.com/p/%d", i), t0, bodies[i], ""), nil)
			require.NoError(t, err)
			recs[i] = rec
		})
	}
	wg.Wait()
	require.Len(t, members(t, buf.Bytes()), 1+2*n)
	for i, rec := range recs {
		got, err := ReadRecord(bytes.NewReader(buf.Bytes()), rec.Offset, rec.Length)
		require.NoError(t, err)
		require.Equal(t, fmt.Sprintf("https://example.com/p/%d", i), got.Header.Get("WARC-Target-URI"))
		resp, err := got.HTTPResponse()
		require.NoError(t, err)
		require.Equal(t, bodies[i], resp.Body)
	}
}

func TestReadRecordRejects(t *testing.T) {
	t.Parallel()
	s := writeSample(t)
	rec := s.records[0]
	file := bytes.NewReader(s.file)

	_, err := ReadRecord(file, rec.Offset, rec.Length+10)
	require.ErrorContains(t, err, "bytes after the record's gzip member")
	_, err = ReadRecord(file, rec.Offset+1, rec.Length)
	require.Error(t, err)
	_, err = ReadRecord(file, rec.Offset, rec.Length-1)
	require.Error(t, err)

	// One byte of the body changed, the member recompressed: a valid
	// gzip member whose digests no longer hold.
	bad := corruptPayload(t, s.file, rec.Offset, rec.Length)
	ms := members(t, bad)
	require.Len(t, ms, len(members(t, s.file)))
	_, err = ReadRecord(bytes.NewReader(bad), ms[2].offset, ms[2].length)
	require.ErrorIs(t, err, ErrDigestMismatch)
	require.ErrorContains(t, err, "block digest mismatch")
}

// corruptPayload returns file with one byte of the body of the record at
// offset changed, its gzip member recompressed and the rest unchanged.
func corruptPayload(t *testing.T, file []byte, offset, length int64) []byte {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(file[offset : offset+length]))
	require.NoError(t, err)
	raw, err := io.ReadAll(zr)
	require.NoError(t, err)
	i := len(raw) - len("\r\n\r\n") - 100 // inside the body
	raw[i] ^= 0x01
	var m bytes.Buffer
	zw := gzip.NewWriter(&m)
	_, err = zw.Write(raw)
	require.NoError(t, err)
	require.NoError(t, zw.Close())
	out := append([]byte{}, file[:offset]...)
	out = append(out, m.Bytes()...)
	return append(out, file[offset+length:]...)
}

func TestParseResponse(t *testing.T) {
	t.Parallel()
	r, err := ParseResponse([]byte("HTTP/1.1 301 Moved Permanently\r\nLocation: /b\r\nContent-Type: Text/HTML ; charset=x\r\nX-Long: a\r\n  b\r\n\r\nbody\r\n\r\n"))
	require.NoError(t, err)
	require.Equal(t, "HTTP/1.1", r.Proto)
	require.Equal(t, 301, r.Status)
	require.Equal(t, "/b", r.Header.Get("Location"))
	require.Equal(t, "a b", r.Header.Get("X-Long"))
	require.Equal(t, "Text/HTML", r.MIME(), "as sent, as warcio reads it")
	require.Equal(t, "body\r\n\r\n", string(r.Body))

	d, err := PayloadDigest([]byte("HTTP/1.1 204 No Content\r\n\r\n"))
	require.NoError(t, err)
	require.Equal(t, "sha1:3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ", d, "SHA-1 of nothing")
}

// BenchmarkWrite measures what archiving one ~50 KB page costs: the
// request and response records built, digested, compressed and appended.
func BenchmarkWrite(b *testing.B) {
	body := html(7, 50_000)
	c := page("https://www.example.com/news/2026/03/04/a-long-article-path", t0, body, "")
	size := int64(len(c.Request) + len(c.Response))

	run := func(b *testing.B, revisit bool) {
		w, err := NewWriter(io.Discard, "bench.warc.gz", nil)
		require.NoError(b, err)
		first, err := w.Write(c, nil)
		require.NoError(b, err)
		var rv *Revisit
		if revisit {
			r := first.Revisit()
			rv = &r
		}
		before := w.Size()
		b.SetBytes(size)
		b.ReportAllocs()
		b.ResetTimer()
		for b.Loop() {
			if _, err := w.Write(c, rv); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "pages/s")
		b.ReportMetric(float64(w.Size()-before)/float64(b.N), "gz-bytes/page")
	}
	b.Run("response", func(b *testing.B) { run(b, false) })
	b.Run("revisit", func(b *testing.B) { run(b, true) })
	b.Run("response-parallel", func(b *testing.B) {
		w, err := NewWriter(io.Discard, "bench.warc.gz", nil)
		require.NoError(b, err)
		b.SetBytes(size)
		b.ReportAllocs()
		b.ResetTimer()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if _, err := w.Write(c, nil); err != nil {
					b.Error(err)
					return
				}
			}
		})
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "pages/s")
	})
}

// BenchmarkReadRecord measures serving one stored ~50 KB page: one gzip
// member decompressed, parsed and its digests checked.
func BenchmarkReadRecord(b *testing.B) {
	var buf bytes.Buffer
	w, err := NewWriter(&buf, "bench.warc.gz", nil)
	require.NoError(b, err)
	rec, err := w.Write(page("https://www.example.com/", t0, html(7, 50_000), ""), nil)
	require.NoError(b, err)
	file := bytes.NewReader(buf.Bytes())
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ReadRecord(file, rec.Offset, rec.Length); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "pages/s")
}
