package pages_test

import (
	"context"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/benchmem"
	"github.com/seedengine/seedengine/internal/blobstore"
	"github.com/seedengine/seedengine/internal/pages"
	"github.com/seedengine/seedengine/internal/simweb"
	"github.com/seedengine/seedengine/internal/simweb/simwebtest"
)

// BenchmarkAgainstWget archives the same real pages as wget 1.21 does, in
// one run, one page at a time each: the HTML pages of 20–120 KB of the
// directory SEEDENGINE_HTML_CORPUS (trafilatura's evaluation pages, see
// docs/performance.md) served by the simulated web at one host, wget
// through it as a proxy (so its records name the same URLs), the page
// fetcher through its connect-to map. It reports the WARC bytes per page
// of each (wget's files with its warcinfo and log records, ours with the
// request and response records), their CPU seconds (wget's process; this
// process less what serving wget's requests cost it) and wall times.
//
//	go mod download -json github.com/markusmobius/go-trafilatura@v1.12.2   # its Dir
//	SEEDENGINE_HTML_CORPUS=$Dir/test-files/comparison \
//	  go test -run '^$' -bench AgainstWget -benchtime 1x ./internal/pages/
func BenchmarkAgainstWget(b *testing.B) {
	dir := os.Getenv("SEEDENGINE_HTML_CORPUS")
	if dir == "" {
		b.Skip("SEEDENGINE_HTML_CORPUS names no directory of HTML pages")
	}
	wget, err := exec.LookPath("wget")
	if err != nil {
		b.Skip("no wget")
	}
	const host, maxPages = "corpus-daily.com.sg", 300
	site := simweb.Site{Host: host, Pages: map[string]simweb.Page{}, NotFound: &simweb.Page{Body: []byte("not here")},
		Robots: new("User-agent: *\nAllow: /\n")}
	var urls []string
	var html int
	require.NoError(b, filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".html") || len(urls) == maxPages {
			return err
		}
		body, err := os.ReadFile(path)
		if err != nil || len(body) < 20<<10 || len(body) > 120<<10 {
			return err
		}
		p := fmt.Sprintf("/pages/%d.html", len(urls))
		site.Pages[p] = simweb.Page{Body: body}
		urls = append(urls, "http://"+host+p)
		html += len(body)
		return nil
	}))
	require.NotEmpty(b, urls)
	web, client := simwebtest.Client(b, []simweb.Site{site}, 10*time.Second)
	n := float64(len(urls))

	for b.Loop() {
		// wget, as an archivist runs it: a list of URLs, a gzipped WARC,
		// and the crawler's own User-Agent with its contact URL, as a
		// polite crawler sends it (wget's default names no contact), so
		// that the bytes compared are the archives', not the identities'.
		work := b.TempDir()
		if d := os.Getenv("KEEP"); d != "" {
			work = d
		}
		list := filepath.Join(work, "urls.txt")
		require.NoError(b, os.WriteFile(list, []byte(strings.Join(urls, "\n")+"\n"), 0o644))
		cmd := exec.Command(wget, "-q", "--warc-file="+filepath.Join(work, "wget"), "--delete-after", "-U", client.UserAgent(), "-P", filepath.Join(work, "files"),
			"-e", "use_proxy=yes", "-e", "http_proxy=http://"+web.HTTPAddr(), "-i", list)
		cpu0, start := benchmem.CPUTime(), time.Now()
		out, err := cmd.CombinedOutput()
		require.NoError(b, err, "%s", out)
		wgetWall, served := time.Since(start), benchmem.CPUTime()-cpu0
		ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
		wgetCPU := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
		st, err := os.Stat(filepath.Join(work, "wget.warc.gz"))
		require.NoError(b, err)
		wgetBytes := st.Size()

		// The page fetcher, one page at a time as wget goes.
		mem := &memStore{pages: map[int64]*seedengine.Page{}}
		for i, u := range urls {
			mem.pages[int64(i+1)] = &seedengine.Page{ItemID: int64(i + 1), URL: u, State: seedengine.PageQueued,
				Partition: seedengine.Partition{Country: "sg", Category: "news", Date: "2026-11-29"}}
		}
		bdir := b.TempDir()
		if d := os.Getenv("KEEP"); d != "" {
			bdir = d + "/ours"
		}
		blobs, err := blobstore.Open(context.Background(), "file://"+bdir)
		require.NoError(b, err)
		f, err := pages.New(pages.Config{Dir: b.TempDir(), Process: "bench"}, mem, blobs, client)
		require.NoError(b, err)
		ctx := context.Background()
		cpu0, start = benchmem.CPUTime(), time.Now()
		for id := range slices.Values(slices.Sorted(maps.Keys(mem.pages))) {
			require.NoError(b, f.FetchPage(ctx, id, false))
		}
		require.NoError(b, f.Close(ctx))
		ourWall, ourCPU := time.Since(start), benchmem.CPUTime()-cpu0
		var ourBytes int64
		require.NoError(b, blobs.List(ctx, "warc/", func(o blobstore.Object) error {
			if strings.HasSuffix(o.Key, ".warc.gz") {
				ourBytes += o.Size
			}
			return nil
		}))
		require.NoError(b, blobs.Close())
		for id, p := range mem.pages {
			require.Equal(b, seedengine.PageFetched, p.State, "page %d", id)
		}

		b.ReportMetric(float64(html)/n, "html_bytes/page")
		b.ReportMetric(float64(wgetBytes)/n, "wget_bytes/page")
		b.ReportMetric(float64(ourBytes)/n, "our_bytes/page")
		b.ReportMetric(wgetCPU.Seconds(), "wget_cpu_s")
		b.ReportMetric((ourCPU - served).Seconds(), "our_cpu_s")
		b.ReportMetric(wgetWall.Seconds(), "wget_wall_s")
		b.ReportMetric(ourWall.Seconds(), "our_wall_s")
		b.ReportMetric(n, "pages")
	}
}
