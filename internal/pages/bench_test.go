package pages_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/blobstore"
	"github.com/seedengine/seedengine/internal/fetch"
	"github.com/seedengine/seedengine/internal/pages"
	"github.com/seedengine/seedengine/internal/simweb"
	"github.com/seedengine/seedengine/internal/simweb/simwebtest"
)

// memStore is pages.Store in memory: the benchmark measures fetching and
// writing, not SQL.
type memStore struct {
	mu    sync.Mutex
	pages map[int64]*seedengine.Page
	done  atomic.Int64
}

func (m *memStore) FindPage(_ context.Context, id int64) (*seedengine.Page, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	p, ok := m.pages[id]
	if !ok {
		return nil, seedengine.Errorf(seedengine.ENOTFOUND, "no page")
	}
	cp := *p
	return &cp, nil
}

func (m *memStore) FindPageDigest(context.Context, string) (seedengine.PageDigest, bool, error) {
	return seedengine.PageDigest{}, false, nil
}

func (m *memStore) MarkPageFetched(_ context.Context, p *seedengine.Page) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.pages[p.ItemID].State = seedengine.PageFetched
	m.done.Add(1)
	return true, nil
}

func (m *memStore) MarkPageDone(_ context.Context, id int64, state seedengine.PageState, _ int, _ string, _ time.Time) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.pages[id].State = state
	m.done.Add(1)
	return nil
}

func (m *memStore) StoreWARCFile(context.Context, seedengine.WARCFile, string, []seedengine.PageDigest) (int, error) {
	return 0, nil
}

func (m *memStore) SpoolExtent(context.Context, string) (int, int64, error) { return 0, 0, nil }

// cpuTime is the process's user and system CPU time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkPages fetches b.N article pages (about 1.2 KB of HTML each, one
// in 25 about 300 KB) from 50 simulated hosts on loopback, no per-host
// delay, 64 at a time, and writes them to WARC files in the spool and a
// store in memory (to_warc); fetch_only fetches the same pages and drops
// them. It reports pages/s, bytes of WARC per page and CPU per page:
// writing's cost is the difference.
//
//	go test -run '^$' -bench Pages -benchtime 20000x ./internal/pages/
func BenchmarkPages(b *testing.B) {
	// Two days of articles published already, ten a second per host.
	clock := &simweb.Clock{Start: time.Now().Add(-48 * time.Hour), Epoch: time.Date(2026, 11, 25, 0, 0, 0, 0, time.UTC), Speed: 1}
	var pubs []*simweb.Publisher
	var sites []simweb.Site
	for i := range 50 {
		p := &simweb.Publisher{Host: fmt.Sprintf("bench%02d-daily.com.sg", i), PerDay: 86400 * 10, Clock: clock, Pages: true,
			Articles:     simweb.ArticleCases{LargeEvery: 25, LargeBytes: 300 << 10},
			Publications: []simweb.Publication{{Path: "/feed", Format: simweb.PubRSS, Window: 20}}}
		pubs = append(pubs, p)
		sites = append(sites, p.Site())
	}
	_, client := simwebtest.Client(b, sites, 10*time.Second)

	for _, mode := range []string{"fetch_only", "to_warc"} {
		b.Run(mode, func(b *testing.B) {
			store := &memStore{pages: map[int64]*seedengine.Page{}}
			for i := range b.N {
				p := pubs[i%len(pubs)]
				n := i / len(pubs)
				store.pages[int64(i+1)] = &seedengine.Page{ItemID: int64(i + 1), URL: p.ArticleURL(n), State: seedengine.PageQueued,
					Partition: seedengine.Partition{Country: "sg", Category: "news", Date: "2026-11-27"}}
			}
			blobs, err := blobstore.Open(context.Background(), "mem://")
			require.NoError(b, err)
			defer blobs.Close()
			f, err := pages.New(pages.Config{Dir: b.TempDir(), Process: "bench"}, store, blobs, client)
			require.NoError(b, err)
			ctx := context.Background()
			ids := make(chan int64, 1024)
			var wg sync.WaitGroup
			var bytes atomic.Int64
			b.ResetTimer()
			cpu0, start := cpuTime(), time.Now()
			for range 64 {
				wg.Go(func() {
					for id := range ids {
						if mode == "fetch_only" {
							p := store.pages[id]
							resp, err := client.Do(ctx, fetch.Request{URL: p.URL, Kind: fetch.KindPage})
							if err == nil {
								bytes.Add(int64(len(resp.Body)))
							}
							continue
						}
						if err := f.FetchPage(ctx, id); err != nil {
							b.Error(err)
						}
					}
				})
			}
			for i := range b.N {
				ids <- int64(i + 1)
			}
			close(ids)
			wg.Wait()
			if mode == "to_warc" {
				require.NoError(b, f.Close(ctx))
			}
			elapsed, cpu := time.Since(start), cpuTime()-cpu0
			b.StopTimer()
			b.ReportMetric(float64(b.N)/elapsed.Seconds(), "pages/s")
			b.ReportMetric(float64(cpu.Microseconds())/float64(b.N), "cpu_µs/page")
			if mode == "to_warc" {
				var total int64
				require.NoError(b, blobs.List(ctx, "warc/", func(o blobstore.Object) error {
					if len(o.Key) > 8 && o.Key[len(o.Key)-8:] == ".warc.gz" {
						total += o.Size
					}
					return nil
				}))
				b.ReportMetric(float64(total)/float64(b.N), "warc_bytes/page")
			} else {
				b.ReportMetric(float64(bytes.Load())/float64(b.N), "body_bytes/page")
			}
		})
	}
}
