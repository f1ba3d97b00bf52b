package seedcheck_test

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/benchmem"
	"github.com/seedengine/seedengine/internal/fetch"
	"github.com/seedengine/seedengine/internal/seedcheck"
	"github.com/seedengine/seedengine/internal/simweb"
	"github.com/seedengine/seedengine/internal/simweb/simwebtest"
	"github.com/seedengine/seedengine/internal/sqlstore"
	"github.com/seedengine/seedengine/internal/sqlstore/sqlstoretest"
)

// requestCounter counts the fetcher's requests.
type requestCounter struct {
	*fetch.Client
	n atomic.Int64
}

func (c *requestCounter) Do(ctx context.Context, r fetch.Request) (*fetch.Response, error) {
	c.n.Add(1)
	return c.Client.Do(ctx, r)
}

// BenchmarkCheck10kSeeds checks 10,000 active RSS seeds on the simulated
// web (one WordPress site each), 50 at a time as the queue's default
// --seed-check-workers runs them, on SQLite: a first pass (robots.txt and
// the feed of each, every check recorded with its health) and a second
// (robots.txt cached, every feed a 304). It reports the time, requests
// and CPU per check of each pass; the simulated web runs in the same
// process, so the CPU includes its side. SEEDENGINE_BENCH_SEEDS changes
// the count.
//
//	go test -run '^$' -bench Check10kSeeds -benchtime 1x ./internal/seedcheck/
func BenchmarkCheck10kSeeds(b *testing.B) {
	n := 10_000
	if v := os.Getenv("SEEDENGINE_BENCH_SEEDS"); v != "" {
		var err error
		n, err = strconv.Atoi(v)
		require.NoError(b, err)
	}
	sites := make([]simweb.Site, n)
	for i := range sites {
		sites[i] = simweb.Site{Host: fmt.Sprintf("news%05d.com.sg", i), Layout: simweb.LayoutWordPress}
	}
	_, client := simwebtest.Client(b, sites, 10*time.Second)
	counter := &requestCounter{Client: client}
	db := sqlstoretest.OpenSQLite(b)
	store := sqlstore.NewSeedService(db)
	ctx := context.Background()
	ids := make([]string, n)
	for i, s := range sites {
		ids[i] = createFeedSeed(b, store, s.Host, true).SeedID
	}
	var mu sync.Mutex
	now := time.Now()
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	svc := seedcheck.NewService(store, seedcheck.NewChecker(counter, clock), seedcheck.Config{Now: clock})

	pass := func(name string) {
		b.Helper()
		counter.n.Store(0)
		cpu0, start := benchmem.CPUTime(), time.Now()
		work := make(chan string)
		var wg sync.WaitGroup
		var failed, notModified atomic.Int64
		for range 50 {
			wg.Go(func() {
				for id := range work {
					c, _, err := svc.Check(ctx, id, nil)
					if err != nil || c.Outcome != seedengine.CheckOK {
						failed.Add(1)
					}
					if c.NotModified {
						notModified.Add(1)
					}
				}
			})
		}
		for _, id := range ids {
			work <- id
		}
		close(work)
		wg.Wait()
		wall, cpu := time.Since(start), benchmem.CPUTime()-cpu0
		require.Zero(b, failed.Load(), "%s: checks that failed", name)
		b.ReportMetric(wall.Seconds(), name+"-s")
		b.ReportMetric(float64(n)/wall.Seconds(), name+"-checks/s")
		b.ReportMetric(float64(counter.n.Load())/float64(n), name+"-req/check")
		b.ReportMetric(float64(cpu.Microseconds())/1000/float64(n), name+"-cpu-ms/check")
		b.ReportMetric(float64(notModified.Load())/float64(n), name+"-304-share")
	}
	b.ResetTimer()
	for range b.N {
		pass("first")
		mu.Lock()
		now = now.Add(time.Hour)
		mu.Unlock()
		pass("again")
	}
}
