package pages_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/benchmem"
	"github.com/seedengine/seedengine/internal/blobstore"
	"github.com/seedengine/seedengine/internal/fetch"
	"github.com/seedengine/seedengine/internal/pages"
	"github.com/seedengine/seedengine/internal/simweb"
	"github.com/seedengine/seedengine/internal/simweb/simwebtest"
	"github.com/seedengine/seedengine/internal/sqlstore"
	"github.com/seedengine/seedengine/internal/sqlstore/sqlstoretest"
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

func (m *memStore) MarkPageDone(_ context.Context, id int64, state seedengine.PageState, status int, reason string, _ time.Time) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.pages[id].State, m.pages[id].Status, m.pages[id].Reason = state, status, reason
	m.done.Add(1)
	return nil
}

func (m *memStore) StoreWARCFile(context.Context, seedengine.WARCFile, string, []seedengine.PageDigest) (int, error) {
	return 0, nil
}

func (m *memStore) SpoolExtent(context.Context, string) (int, int64, error) { return 0, 0, nil }

// sqlPages queues n pages in SQLite as harvest reads do: one read of
// each of the publishers' seeds (harvest.pages on) records its share of
// the n articles, and each item's page is queued in that transaction.
func sqlPages(b *testing.B, pubs []*simweb.Publisher, n int) (pages.Store, []int64) {
	db := sqlstoretest.OpenSQLite(b)
	seeds := sqlstore.NewSeedService(db)
	ctx := context.Background()
	at := time.Date(2026, 11, 27, 8, 0, 0, 0, time.UTC)
	var ids []int64
	for k, p := range pubs {
		sd := &seedengine.Seed{DomainID: "media:sg:" + p.Host, ContentType: seedengine.ContentTypeNews, Category: "news",
			Source:  seedengine.SeedSource{Name: p.Host},
			Fetch:   seedengine.SeedFetch{Type: seedengine.FetchRSS, EntryURL: "https://" + p.Host + "/feed", Schedule: "@hourly"},
			Policy:  seedengine.SeedPolicy{RobotsURL: "https://" + p.Host + "/robots.txt", CrawlAllowed: true},
			Harvest: seedengine.SeedHarvest{Pages: true}, Confidence: 0.8}
		require.NoError(b, seeds.CreateSeed(ctx, sd, "bench"))
		var items []seedengine.Item
		for i := k; i < n; i += len(pubs) {
			u := p.ArticleURL(i / len(pubs))
			items = append(items, seedengine.Item{URL: u, NormalizedURL: u, SeedID: sd.SeedID, DomainID: sd.DomainID,
				Country: "sg", Category: "news", Source: seedengine.ItemSource{EntryURL: sd.Fetch.EntryURL, FetchType: sd.Fetch.Type},
				FirstSeenAt: at})
		}
		c := seedengine.SeedCheck{SeedID: sd.SeedID, CheckedAt: at, EntryURL: sd.Fetch.EntryURL, Outcome: seedengine.CheckOK, Status: 200, Items: len(items)}
		_, _, err := seeds.RecordSeedCheck(ctx, &c, items, false,
			func(*seedengine.SeedCheck, seedengine.ArrivalHistory) (seedengine.SeedHealth, time.Time) {
				return seedengine.SeedHealth{State: seedengine.HealthHealthy}, at.Add(time.Hour)
			},
			func(_ context.Context, _ *sql.Tx, ch seedengine.SeedHealthChange) error {
				ids = append(ids, ch.Pages...)
				return nil
			})
		require.NoError(b, err)
	}
	require.Len(b, ids, n)
	return sqlstore.NewPageService(db), ids
}

// BenchmarkPages fetches b.N article pages (about 1.2 KB of HTML each, one
// in 25 about 300 KB) from 50 simulated hosts on loopback, no per-host
// delay, 64 at a time. to_warc writes them to WARC files in the spool,
// stores the files in a local directory and keeps the pages' rows in
// memory; fetch_only fetches the same pages and drops them;
// to_warc_sqlite is to_warc with the rows in SQLite, queued by harvest
// reads as in a deployment. Files roll at 16 MiB (about 10,000 pages), so
// a run stores several: memory is bounded by the open file's records, not
// by the pages. It reports pages/s, bytes of WARC
// per page, CPU per page (writing's cost is the difference) and the peak
// live heap.
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

	for _, mode := range []string{"fetch_only", "to_warc", "to_warc_sqlite"} {
		b.Run(mode, func(b *testing.B) {
			mem := &memStore{pages: map[int64]*seedengine.Page{}}
			var store pages.Store = mem
			var queued []int64
			if mode == "to_warc_sqlite" {
				store, queued = sqlPages(b, pubs, b.N)
			} else {
				for i := range b.N {
					p := pubs[i%len(pubs)]
					mem.pages[int64(i+1)] = &seedengine.Page{ItemID: int64(i + 1), URL: p.ArticleURL(i / len(pubs)), State: seedengine.PageQueued,
						Partition: seedengine.Partition{Country: "sg", Category: "news", Date: "2026-11-27"}}
					queued = append(queued, int64(i+1))
				}
			}
			blobs, err := blobstore.Open(context.Background(), "file://"+b.TempDir())
			require.NoError(b, err)
			defer blobs.Close()
			f, err := pages.New(pages.Config{Dir: b.TempDir(), Process: "bench", MaxFileBytes: 16 << 20}, store, blobs, client)
			require.NoError(b, err)
			ctx := context.Background()
			ids := make(chan int64, 1024)
			var wg sync.WaitGroup
			var bytes atomic.Int64
			runtime.GC()
			peak := benchmem.SampleHeap()
			b.ResetTimer()
			cpu0, start := benchmem.CPUTime(), time.Now()
			for range 64 {
				wg.Go(func() {
					for id := range ids {
						if mode == "fetch_only" {
							p := mem.pages[id]
							resp, err := client.Do(ctx, fetch.Request{URL: p.URL, Kind: fetch.KindPage})
							if err == nil {
								bytes.Add(int64(len(resp.Body)))
							}
							continue
						}
						err := f.FetchPage(ctx, id, false)
						for d, ok := errors.AsType[*pages.DeferError](err); ok; d, ok = errors.AsType[*pages.DeferError](err) {
							// The host's turn is far off (a loaded machine
							// lets a host's line grow): back after it, as
							// the queue would bring the page.
							time.Sleep(d.Wait)
							err = f.FetchPage(ctx, id, false)
						}
						if err != nil {
							b.Error(err)
						}
					}
				})
			}
			for _, id := range queued {
				ids <- id
			}
			close(ids)
			wg.Wait()
			if mode != "fetch_only" {
				require.NoError(b, f.Close(ctx))
			}
			elapsed, cpu := time.Since(start), benchmem.CPUTime()-cpu0
			b.StopTimer()
			b.ReportMetric(float64(peak())/(1<<20), "peak_heap_MiB")
			b.ReportMetric(float64(b.N)/elapsed.Seconds(), "pages/s")
			b.ReportMetric(float64(cpu.Microseconds())/float64(b.N), "cpu_µs/page")
			if mode != "fetch_only" {
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
