package sitemap

import (
	"bytes"
	"compress/gzip"
	"encoding/xml"
	"fmt"
	"io"
	"os"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine/internal/benchmem"
)

// benchSize is the decoded size of the benchmark sitemap: 50 MB, just under
// the sitemaps.org limit of 50 MiB.
const benchSize = 50_000_000

const (
	benchHeader = `<?xml version="1.0" encoding="UTF-8"?>` + "\n" +
		`<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:image="http://www.google.com/schemas/sitemap-image/1.1">` + "\n"
	benchFooter = "</urlset>\n"
)

// urlsetReader produces a urlset of about size bytes on the fly, so the input
// itself takes no memory. Entries look like a CMS's: a loc with a query
// string (an &amp;), a lastmod with a zone, changefreq and priority; every
// tenth has an image:image.
type urlsetReader struct {
	size    int64
	n       int64
	i       int
	state   int    // 0 header, 1 entries, 2 footer, 3 done
	pending []byte // pending[off:] is still to be read
	off     int
	scratch []byte
}

func newURLSetReader(size int64) *urlsetReader { return &urlsetReader{size: size} }

func (g *urlsetReader) next() {
	switch g.state {
	case 0:
		g.pending, g.off = append(g.pending[:0], benchHeader...), 0
		g.state = 1
	case 1:
		b := g.scratch[:0]
		b = append(b, "<url><loc>https://www.example-news.co.uk/section-"...)
		b = strconv.AppendInt(b, int64(g.i%97), 10)
		b = append(b, "/2024/05/article-"...)
		b = strconv.AppendInt(b, int64(g.i), 10)
		b = append(b, ".html?ref=sitemap&amp;page=1</loc><lastmod>2024-05-"...)
		b = strconv.AppendInt(b, int64(10+g.i%20), 10)
		b = append(b, "T12:34:56+02:00</lastmod><changefreq>daily</changefreq><priority>0.8</priority>"...)
		if g.i%10 == 0 {
			b = append(b, "<image:image><image:loc>https://cdn.example-news.co.uk/img/"...)
			b = strconv.AppendInt(b, int64(g.i), 10)
			b = append(b, ".jpg</image:loc></image:image>"...)
		}
		b = append(b, "</url>\n"...)
		g.scratch = b
		if g.n+int64(len(b)+len(benchFooter)) > g.size {
			g.state = 2
			g.next()
			return
		}
		g.pending, g.off = append(g.pending[:0], b...), 0
		g.i++
	case 2:
		g.pending, g.off = append(g.pending[:0], benchFooter...), 0
		g.state = 3
	}
}

func (g *urlsetReader) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		if g.off == len(g.pending) {
			if g.state == 3 {
				break
			}
			g.next()
			continue
		}
		c := copy(p[n:], g.pending[g.off:])
		g.off += c
		n += c
		g.n += int64(c)
	}
	if n == 0 {
		return 0, io.EOF
	}
	return n, nil
}

func gzipBenchInput(tb testing.TB) []byte {
	tb.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	_, err := io.Copy(zw, newURLSetReader(benchSize))
	require.NoError(tb, err)
	require.NoError(tb, zw.Close())
	return buf.Bytes()
}

// benchOptions lift both limits: the benchmark sitemap has ~300,000 URLs, six
// times the sitemaps.org count limit, to measure the parser and not the cap.
var benchOptions = Options{MaxEntries: -1}

// BenchmarkParse50MB parses a generated 50 MB urlset. Metrics: URLs/s (wall
// and CPU), MB/s of decoded XML, peak-heap-MiB (highest heap object bytes
// sampled every millisecond while parsing, whole process) and peak-RSS-MiB
// (maximum resident set of a child process that does one parse and nothing
// else, from getrusage; includes the Go runtime and the test binary).
func BenchmarkParse50MB(b *testing.B) { benchParse(b, false) }

// BenchmarkParse50MBGzip is BenchmarkParse50MB on gzip input (about 4 MB,
// held in memory and counted in peak-heap-MiB; the child process for
// peak-RSS-MiB compresses on the fly instead).
func BenchmarkParse50MBGzip(b *testing.B) { benchParse(b, true) }

func benchParse(b *testing.B, gz bool) {
	var compressed []byte
	if gz {
		compressed = gzipBenchInput(b)
	}
	b.SetBytes(benchSize)
	b.ReportAllocs()
	stop := benchmem.SampleHeap()
	cpu0 := benchmem.CPUTime()
	urls := 0
	for b.Loop() {
		var r io.Reader = newURLSetReader(benchSize)
		if gz {
			r = bytes.NewReader(compressed)
		}
		res, err := Parse(r, benchOptions, func(Entry) error { return nil })
		if err != nil {
			b.Fatal(err)
		}
		urls += res.Entries
	}
	cpu := benchmem.CPUTime() - cpu0
	peak := stop()
	b.ReportMetric(float64(urls)/b.Elapsed().Seconds(), "URLs/s")
	if cpu > 0 {
		b.ReportMetric(float64(urls)/cpu.Seconds(), "URLs/cpu-s")
	}
	b.ReportMetric(benchmem.MiB(peak), "peak-heap-MiB")
	mode := "plain"
	if gz {
		mode = "gzip"
	}
	benchmem.ReportChildPeakRSS(b, "peak-RSS-MiB", rssChildEnv, mode)
}

// BenchmarkEncodingXMLRawToken is the baseline that decided against
// encoding/xml: RawToken over the same 50 MB, doing nothing with the tokens.
func BenchmarkEncodingXMLRawToken(b *testing.B) {
	b.SetBytes(benchSize)
	b.ReportAllocs()
	urls := 0
	for b.Loop() {
		d := xml.NewDecoder(newURLSetReader(benchSize))
		for {
			tok, err := d.RawToken()
			if err == io.EOF {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
			if e, ok := tok.(xml.EndElement); ok && e.Name.Local == "url" {
				urls++
			}
		}
	}
	b.ReportMetric(float64(urls)/b.Elapsed().Seconds(), "URLs/s")
}

// rssChildEnv makes the test binary run one parse and exit (see TestMain).
const rssChildEnv = "SEEDENGINE_SITEMAP_RSS_CHILD"

func TestMain(m *testing.M) { benchmem.Main(m, rssChildEnv, rssChild) }

// rssChild parses one generated 50 MB urlset; gzip input is compressed on the
// fly through a pipe so that it is not held in memory.
func rssChild(mode string) int {
	var r io.Reader = newURLSetReader(benchSize)
	if mode == "gzip" {
		pr, pw := io.Pipe()
		go func() {
			zw := gzip.NewWriter(pw)
			_, err := io.Copy(zw, newURLSetReader(benchSize))
			if err == nil {
				err = zw.Close()
			}
			pw.CloseWithError(err)
		}()
		r = pr
	}
	res, err := Parse(r, benchOptions, func(Entry) error { return nil })
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Println(res.Entries)
	return 0
}
