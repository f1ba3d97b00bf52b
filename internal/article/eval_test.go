package article_test

import (
	"bytes"
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	trafilatura "github.com/markusmobius/go-trafilatura"
	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine/internal/article"
	"github.com/seedengine/seedengine/internal/benchmem"
)

// evalEntry is one annotated page of go-trafilatura's evaluation set:
// snippets its body must hold (with) and boilerplate it must not
// (without), its authors and date.
type evalEntry struct {
	url, file     string
	with, without []string
	authors       []string
	date          string
}

// evalSet reads the evaluation set that ships in the go-trafilatura module
// (test-files/comparison and mock, annotated in scripts/comparison/data.go, read
// here as Go source, not compiled in).
func evalSet(tb testing.TB) (dir string, entries []evalEntry) {
	tb.Helper()
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/markusmobius/go-trafilatura").Output()
	require.NoError(tb, err)
	root := strings.TrimSpace(string(out))
	f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(root, "scripts", "comparison", "data.go"), nil, 0)
	require.NoError(tb, err)
	unquote := func(e ast.Expr) string {
		if lit, ok := e.(*ast.BasicLit); ok && lit.Kind == token.STRING {
			s, err := strconv.Unquote(lit.Value)
			if err == nil {
				return s
			}
		}
		return ""
	}
	list := func(e ast.Expr) []string {
		var out []string
		if cl, ok := e.(*ast.CompositeLit); ok {
			for _, el := range cl.Elts {
				if s := unquote(el); s != "" {
					out = append(out, s)
				}
			}
		}
		return out
	}
	ast.Inspect(f, func(n ast.Node) bool {
		vs, ok := n.(*ast.ValueSpec)
		if !ok || len(vs.Names) != 1 || vs.Names[0].Name != "comparisonData" || len(vs.Values) != 1 {
			return true
		}
		for _, el := range vs.Values[0].(*ast.CompositeLit).Elts {
			kv := el.(*ast.KeyValueExpr)
			e := evalEntry{url: unquote(kv.Key)}
			for _, fel := range kv.Value.(*ast.CompositeLit).Elts {
				field := fel.(*ast.KeyValueExpr)
				switch field.Key.(*ast.Ident).Name {
				case "File":
					e.file = unquote(field.Value)
				case "With":
					e.with = list(field.Value)
				case "Without":
					e.without = list(field.Value)
				case "Authors":
					e.authors = list(field.Value)
				case "Date":
					e.date = unquote(field.Value)
				}
			}
			if e.file != "" {
				entries = append(entries, e)
			}
		}
		return false
	})
	slices.SortFunc(entries, func(a, b evalEntry) int { return strings.Compare(a.file, b.file) })
	require.NotEmpty(tb, entries)
	return filepath.Join(root, "test-files"), entries
}

// evalPages is the evaluation set with each entry's page read.
func evalPages(tb testing.TB) ([]evalEntry, [][]byte) {
	dir, entries := evalSet(tb)
	pages := make([][]byte, len(entries))
	for i, e := range entries {
		var err error
		pages[i], err = readEvalPage(dir, e.file)
		require.NoError(tb, err)
	}
	return entries, pages
}

// readEvalPage reads an entry's page: in test-files/comparison, or for
// the older entries test-files/mock.
func readEvalPage(dir, file string) ([]byte, error) {
	b, err := os.ReadFile(filepath.Join(dir, "comparison", file))
	if errors.Is(err, fs.ErrNotExist) {
		return os.ReadFile(filepath.Join(dir, "mock", file))
	}
	return b, err
}

// score counts snippets: with found (tp) or not (fn), without found (fp)
// or not (tn); authors and dates right of those annotated.
type score struct {
	tp, fn, fp, tn          int
	authors, authorsOf      int
	dates, datesOf          int
	pages, failed, notArtcl int
	elapsed                 time.Duration
}

func (s *score) add(e evalEntry, text string, authors []string, date *time.Time) {
	s.pages++
	norm := func(x string) string { return strings.Join(strings.Fields(x), " ") }
	text = norm(text)
	for _, w := range e.with {
		if strings.Contains(text, norm(w)) {
			s.tp++
		} else {
			s.fn++
		}
	}
	for _, w := range e.without {
		if strings.Contains(text, norm(w)) {
			s.fp++
		} else {
			s.tn++
		}
	}
	if len(e.authors) > 0 {
		s.authorsOf++
		got := strings.ToLower(strings.Join(authors, "; "))
		all := true
		for _, a := range e.authors {
			all = all && strings.Contains(got, strings.ToLower(a))
		}
		if all && len(authors) > 0 {
			s.authors++
		}
	}
	if e.date != "" {
		s.datesOf++
		if date != nil && date.Format("2006-01-02") == e.date {
			s.dates++
		}
	}
}

func (s *score) report(b *testing.B, prefix string) {
	p := float64(s.tp) / float64(s.tp+s.fp)
	r := float64(s.tp) / float64(s.tp+s.fn)
	b.ReportMetric(p, prefix+"precision")
	b.ReportMetric(r, prefix+"recall")
	b.ReportMetric(2*p*r/(p+r), prefix+"f1")
	b.ReportMetric(float64(s.authors)/float64(max(s.authorsOf, 1)), prefix+"authors")
	b.ReportMetric(float64(s.dates)/float64(max(s.datesOf, 1)), prefix+"dates")
	b.ReportMetric(float64(s.pages)/s.elapsed.Seconds(), prefix+"pages/s")
}

// BenchmarkEvaluation extracts every page of go-trafilatura's evaluation
// set (about 950 real pages, annotated with snippets of body and of
// boilerplate) with go-trafilatura alone (fallbacks on, comments out) and
// with this package, on one core, and reports for each the precision,
// recall and F1 of the snippets, the share of annotated authors and dates
// found, and pages per second.
//
//	go test -run '^$' -bench Evaluation -benchtime 1x ./internal/article/
func BenchmarkEvaluation(b *testing.B) {
	entries, pages := evalPages(b)
	prev := runtime.GOMAXPROCS(1)
	defer runtime.GOMAXPROCS(prev)
	for b.Loop() {
		var lib, ours score
		start := time.Now()
		for i, e := range entries {
			var text string
			var authors []string
			var date *time.Time
			u, _ := urlOf(e.url)
			res, err := trafilatura.Extract(bytes.NewReader(pages[i]), trafilatura.Options{EnableFallback: true, ExcludeComments: true, OriginalURL: u})
			if err == nil {
				text = res.ContentText
				if res.Metadata.Author != "" {
					authors = []string{res.Metadata.Author}
				}
				if !res.Metadata.Date.IsZero() {
					date = &res.Metadata.Date
				}
			} else {
				lib.failed++
			}
			lib.add(e, text, authors, date)
		}
		lib.elapsed = time.Since(start)
		start = time.Now()
		for i, e := range entries {
			a, err := article.Extract(bytes.NewReader(pages[i]), "", e.url)
			if err != nil {
				ours.failed++
				ours.add(e, "", nil, nil)
				continue
			}
			if a.NotArticle != "" {
				ours.notArtcl++
			}
			ours.add(e, a.Text, a.Authors, a.PublishedAt)
		}
		ours.elapsed = time.Since(start)
		lib.report(b, "trafilatura_")
		ours.report(b, "ours_")
		b.ReportMetric(float64(ours.notArtcl), "ours_not_articles")
		b.ReportMetric(float64(len(entries)), "pages")
	}
}

func urlOf(s string) (*url.URL, error) { return url.Parse(s) }

// BenchmarkMemoryFlat extracts 10,000 pages (the evaluation set over and
// over) on one core and reports the peak heap over the first 1,000 and
// over all 10,000 (the evaluation pages themselves, about 70 MiB, held
// throughout): equal when memory stays flat.
//
//	go test -run '^$' -bench MemoryFlat -benchtime 1x ./internal/article/
func BenchmarkMemoryFlat(b *testing.B) {
	entries, pages := evalPages(b)
	prev := runtime.GOMAXPROCS(1)
	defer runtime.GOMAXPROCS(prev)
	const n = 10_000
	for b.Loop() {
		runtime.GC()
		stop := benchmem.SampleHeap()
		var first uint64
		start := time.Now()
		for i := range n {
			if i == 1_000 {
				first = stop()
				stop = benchmem.SampleHeap()
			}
			k := i % len(entries)
			_, err := article.Extract(bytes.NewReader(pages[k]), "", entries[k].url)
			require.True(b, err == nil || errors.Is(err, article.ErrNotHTML), "%s: %v", entries[k].file, err)
		}
		rest := stop()
		b.ReportMetric(benchmem.MiB(first), "peak_heap_first_1k_MiB")
		b.ReportMetric(benchmem.MiB(max(first, rest)), "peak_heap_10k_MiB")
		b.ReportMetric(n/time.Since(start).Seconds(), "pages/s")
	}
}
