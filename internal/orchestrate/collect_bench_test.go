package orchestrate_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine/internal/blobstore"
	"github.com/seedengine/seedengine/internal/orchestrate"
	"github.com/seedengine/seedengine/internal/simweb"
	"github.com/seedengine/seedengine/internal/simweb/simwebtest"
)

// BenchmarkCollectDomain collects one domain of each simulated layout
// (wordpress, news, gov, blog, static) per iteration, forced, against a
// simulated web without per-host delay. It reports the CPU-bound cost as
// ms/domain and the requests each collection makes (req/domain, the mean
// over the layouts; req-<layout> each): at DEFAULT politeness (1 s
// between two requests to a host) a collection takes about its requests
// minus one in seconds, which is what bounds a partition's run
// (BenchmarkOrchestration100x200 in cmd/seedengine).
func BenchmarkCollectDomain(b *testing.B) {
	layouts := simweb.Layouts()
	sites := make([]simweb.Site, len(layouts))
	for i, l := range layouts {
		sites[i] = simweb.Site{Host: "bench-" + string(l) + ".example.sg", Layout: l}
	}
	web, client := simwebtest.Client(b, sites, 5*time.Second)
	store, err := blobstore.Open(b.Context(), "mem://")
	require.NoError(b, err)
	b.Cleanup(func() { _ = store.Close() })
	c := orchestrate.NewCollector(client, store, orchestrate.CollectorConfig{}, nil)

	requests := func(host string) int { return web.Requests(host) + web.Requests("www."+host) }
	per := make([]int, len(sites))
	b.ResetTimer()
	for b.Loop() {
		for i, s := range sites {
			n := requests(s.Host)
			if _, err := c.Collect(b.Context(), testPartition, "com:sg:"+s.Host, s.Host, rawKey, true); err != nil {
				b.Fatal(err)
			}
			per[i] += requests(s.Host) - n
		}
	}
	b.StopTimer()
	total := 0
	for i, l := range layouts {
		total += per[i]
		b.ReportMetric(float64(per[i])/float64(b.N), "req-"+string(l))
	}
	domains := float64(b.N * len(sites))
	b.ReportMetric(float64(total)/domains, "req/domain")
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/domains, "ms/domain")
}
