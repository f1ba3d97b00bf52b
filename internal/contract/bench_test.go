package contract_test

import (
	"slices"
	"testing"
	"time"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/contract"
)

// BenchmarkDiscoverCatalogue runs the search over every layout of the
// realistic catalogue (internal/simweb), one domain after another, and
// reports recall (the share of layouts whose seed is the one a person
// would choose), requests per domain (median and maximum) and wall time
// per domain on loopback without per-host delay:
//
//	go test ./internal/contract -run '^$' -bench DiscoverCatalogue -benchtime 20x
//
// With the production default of 1 s between two requests to one host,
// a run takes about (requests to its busiest host − 1) seconds; the
// median request figure is the one to watch.
func BenchmarkDiscoverCatalogue(b *testing.B) {
	entries, _, client := catalogue(b)
	d := contract.New(client, contract.Config{})
	var right, runs int
	var reqs []int
	var elapsed time.Duration
	for b.Loop() {
		for _, e := range entries {
			_, _, domain, _ := seedengine.ParseDomainID(e.DomainID)
			start := time.Now()
			ev := d.Discover(b.Context(), e.DomainID, domain)
			elapsed += time.Since(start)
			runs++
			reqs = append(reqs, ev.Spent.Requests)
			if got, ok := chosenEdition(ev, e.Expect.ContentType, e.Expect.Edition, len(e.Editions) > 0); ok && got.EntryURL == e.Expect.EntryURL && string(got.FetchType) == e.Expect.FetchType {
				right++
			}
		}
	}
	slices.Sort(reqs)
	b.ReportMetric(float64(right)/float64(runs), "recall")
	b.ReportMetric(float64(reqs[len(reqs)/2]), "median-req/domain")
	b.ReportMetric(float64(reqs[len(reqs)-1]), "max-req/domain")
	b.ReportMetric(float64(elapsed.Milliseconds())/float64(runs), "ms/domain")
	b.ReportMetric(0, "ns/op")
}
