package orchestrate_test

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine/internal/benchmem"
	"github.com/seedengine/seedengine/internal/discover"
	"github.com/seedengine/seedengine/internal/orchestrate"
)

// benchPool is the number of distinct domains the generated files draw
// from, with a Zipf distribution (a few big sites, a long tail), so that a
// 20 MB file has ~70,000 records over ~10,000 unique domains, and a bigger
// file mostly repeats them: memory should follow the unique domains only.
const benchPool = 20_000

var benchSuffixes = []struct{ suffix, authority, rule, sourceType string }{
	{"gov.sg", "gov", "suffix:gov.sg", "government"},
	{"com.sg", "com", "suffix:com.sg", "company"},
	{"edu.sg", "edu", "suffix:edu.sg", "education"},
	{"org.sg", "org", "suffix:org.sg", "organization"},
	{"com", "com", "default:other", "company"},
	{"sg", "other", "default:other", "other"},
	{"net", "other", "default:other", "other"},
}

// rawFileReader generates a raw dataset file of about size bytes on the
// fly, meta first as research writes it, so the input takes no memory.
// Records look like research output: every field of DESIGN §5, a URL with
// a path and a query. 85% carry a valid domain_id, 10% none and 3% an
// invalid one (both normalised from raw_url), 2% neither a domain_id nor
// a usable URL.
type rawFileReader struct {
	size    int64
	records int // how many records fit, from a dry run
	i       int
	rng     *rand.Rand
	zipf    *rand.Zipf
	state   int // 0 meta, 1 records, 2 end, 3 done
	pending []byte
	off     int
}

func newRawFileReader(size int64) *rawFileReader {
	g := &rawFileReader{size: size}
	// Dry run: count the records that fit, for meta.record_count.
	g.reset()
	n := int64(len(g.metaJSON(0)) + len(`,"records":[`) + len(`]}`))
	var buf []byte
	for {
		buf = g.record(buf[:0], g.i)
		if n+int64(len(buf))+1 > size && g.i > 0 {
			break
		}
		n += int64(len(buf)) + 1
		g.i++
	}
	g.records = g.i
	g.reset()
	return g
}

func (g *rawFileReader) reset() {
	g.i, g.state, g.off, g.pending = 0, 0, 0, g.pending[:0]
	g.rng = rand.New(rand.NewPCG(1, 2))
	g.zipf = rand.NewZipf(g.rng, 1.05, 2, benchPool-1)
}

func (g *rawFileReader) metaJSON(n int) string {
	return `{"meta":{"dataset_id":"sg-news-2026-01-28-0001","country":"SG","category":"news","date":"2026-01-28",` +
		`"discovered_at":"2026-01-28T03:12:00Z","research_methods":["search","sitemap"],"queries":["singapore news","sg policy"],` +
		`"engine":{"name":"seedengine","version":"bench"},"record_count":` + strconv.Itoa(n) + `}`
}

func (g *rawFileReader) record(b []byte, i int) []byte {
	k := int(g.zipf.Uint64())
	s := benchSuffixes[k%len(benchSuffixes)]
	dom := fmt.Appendf(nil, "site%05d-news.%s", k, s.suffix)
	kind := g.rng.IntN(100)
	b = append(b, `{"raw_url":"`...)
	switch {
	case kind < 2:
		b = append(b, "mailto:editor@"...)
		b = append(b, dom...)
	default:
		b = append(b, "https://www."...)
		b = append(b, dom...)
		b = append(b, "/news/2026/01/article-"...)
		b = strconv.AppendInt(b, int64(i), 10)
		b = append(b, ".html?utm_source=newsletter&id="...)
		b = strconv.AppendInt(b, int64(i%977), 10)
	}
	b = append(b, `","normalized_url":"`...)
	if kind >= 2 {
		b = append(b, "https://www."...)
		b = append(b, dom...)
		b = append(b, "/news/2026/01/article-"...)
		b = strconv.AppendInt(b, int64(i), 10)
		b = append(b, `.html?id=`...)
		b = strconv.AppendInt(b, int64(i%977), 10)
	}
	b = append(b, `","normalized_domain":"`...)
	b = append(b, dom...)
	b = append(b, `","domain_id":"`...)
	switch {
	case kind < 12: // none: normalised from raw_url
	case kind < 15:
		b = append(b, "unknown:sg:"...)
		b = append(b, dom...)
	default:
		b = append(b, s.authority...)
		b = append(b, ":sg:"...)
		b = append(b, dom...)
	}
	b = append(b, `","authority":"`...)
	b = append(b, s.authority...)
	b = append(b, `","authority_rule":"`...)
	b = append(b, s.rule...)
	b = append(b, `","source_type":"`...)
	b = append(b, s.sourceType...)
	b = append(b, `","discovery_method":"search","confidence":0.`...)
	b = strconv.AppendInt(b, int64(50+i%50), 10)
	b = append(b, `,"content_hints":["news","press_release"]}`...)
	return b
}

func (g *rawFileReader) next() {
	switch g.state {
	case 0:
		g.pending, g.off = append(g.pending[:0], g.metaJSON(g.records)+`,"records":[`...), 0
		g.state = 1
	case 1:
		if g.i == g.records {
			g.state = 2
			g.next()
			return
		}
		b := g.pending[:0]
		if g.i > 0 {
			b = append(b, ',')
		}
		g.pending, g.off = g.record(b, g.i), 0
		g.i++
	case 2:
		g.pending, g.off = append(g.pending[:0], `]}`...), 0
		g.state = 3
	}
}

func (g *rawFileReader) Read(p []byte) (int, error) {
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
	}
	if n == 0 {
		return 0, io.EOF
	}
	return n, nil
}

func TestRawFileReaderIsValid(t *testing.T) {
	t.Parallel()
	g := newRawFileReader(1 << 20)
	fd, err := orchestrate.ExtractDomains(g, nil, testPartition)
	require.NoError(t, err)
	require.Equal(t, g.records, fd.Records)
	require.Positive(t, fd.Bad)
	require.Positive(t, fd.Duplicates)
	require.Positive(t, fd.FromURL)
	require.Equal(t, map[string]int{discover.ReasonUnsupportedScheme: fd.Bad}, fd.BadReasons)
}

// BenchmarkExtractDomains20MB extracts the domains of a generated 20 MB
// raw file (~70,000 records). Metrics: MB/s, records/s, unique domains,
// peak-heap-MiB (highest heap object bytes sampled every millisecond
// while extracting, minus the heap before; the input is held outside the
// Go heap so that it neither counts nor raises the GC's target) and
// peak-RSS-MiB (maximum resident set of a child process that extracts
// from a generated stream and does nothing else; peak-RSS-gen-MiB is the
// same child only draining the generator, the floor of the test binary).
// The 5 MB and 80 MB variants show that memory does not follow file size.
func BenchmarkExtractDomains20MB(b *testing.B) { benchExtract(b, 20_000_000) }

// BenchmarkExtractDomains5MB is BenchmarkExtractDomains20MB on 5 MB.
func BenchmarkExtractDomains5MB(b *testing.B) { benchExtract(b, 5_000_000) }

// BenchmarkExtractDomains80MB is BenchmarkExtractDomains20MB on 80 MB.
func BenchmarkExtractDomains80MB(b *testing.B) { benchExtract(b, 80_000_000) }

func benchExtract(b *testing.B, size int64) {
	data, free := benchmem.OffHeap(int(size))
	defer free()
	n, err := io.ReadFull(newRawFileReader(size), data)
	require.ErrorIs(b, err, io.ErrUnexpectedEOF)
	data = data[:n]
	c := discover.DefaultClassifier()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	base := benchmem.HeapObjects()
	stop := benchmem.SampleHeap()
	records, unique := 0, 0
	for b.Loop() {
		fd, err := orchestrate.ExtractDomains(bytes.NewReader(data), c, testPartition)
		if err != nil {
			b.Fatal(err)
		}
		records += fd.Records
		unique = len(fd.Domains)
	}
	peak := stop()
	b.ReportMetric(float64(records)/b.Elapsed().Seconds(), "records/s")
	b.ReportMetric(float64(unique), "domains")
	b.ReportMetric(benchmem.MiB(peak-min(peak, base)), "peak-heap-MiB")
	for _, m := range []struct{ mode, unit string }{{"extract", "peak-RSS-MiB"}, {"generate", "peak-RSS-gen-MiB"}} {
		benchmem.ReportChildPeakRSS(b, m.unit, rssChildEnv, m.mode+":"+strconv.FormatInt(size, 10))
	}
}

// rssChildEnv makes the test binary run one extraction and exit (see
// TestMain): "extract:<size>" or "generate:<size>".
const rssChildEnv = "SEEDENGINE_ORCHESTRATE_RSS_CHILD"

func TestMain(m *testing.M) { benchmem.Main(m, rssChildEnv, rssChild) }

func rssChild(v string) int {
	mode, n, _ := strings.Cut(v, ":")
	size, err := strconv.ParseInt(n, 10, 64)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	g := newRawFileReader(size)
	if mode == "generate" {
		n, err := io.Copy(io.Discard, g)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		fmt.Println(n)
		benchmem.ReportPeakRSS(os.Stdout)
		return 0
	}
	fd, err := orchestrate.ExtractDomains(g, nil, testPartition)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Println(fd.Records, len(fd.Domains))
	benchmem.ReportPeakRSS(os.Stdout)
	return 0
}
