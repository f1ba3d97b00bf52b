package sqlstore_test

import (
	"testing"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/sqlstore"
	"github.com/seedengine/seedengine/internal/sqlstore/sqlstoretest"
)

// BenchmarkFindSeeds100k pages through 100,000 seeds, as GET
// /api/v1/seeds does: a page and its total, unfiltered and with each kind
// of filter. DESIGN §11 asks for p99 ≤ 20 ms at 500 req/s on the API, so
// one page must cost a few milliseconds at most.
//
//	go test -run '^$' -bench FindSeeds100k -benchtime 2000x ./internal/sqlstore/
func BenchmarkFindSeeds100k(b *testing.B) {
	const n = 100_000
	benchEngines(b, func(b *testing.B, db *sqlstore.DB) {
		sqlstoretest.FillSeeds(b, db, n)
		s := sqlstore.NewSeedService(db)
		for _, c := range []struct {
			name string
			f    seedengine.SeedFilter
		}{
			{"all", seedengine.SeedFilter{}},
			{"all_offset_1000", seedengine.SeedFilter{Offset: 1000}},
			{"all_offset_50000", seedengine.SeedFilter{Offset: 50_000}},
			{"all_after_50000", seedengine.SeedFilter{After: "gov:sg:site050000.example::news"}},
			{"country", seedengine.SeedFilter{Country: "sg"}},
			{"country_status", seedengine.SeedFilter{Country: "sg", Status: seedengine.SeedActive}},
			{"status", seedengine.SeedFilter{Status: seedengine.SeedSuspended}},
			{"category_fetch_type", seedengine.SeedFilter{Category: "policy", FetchType: seedengine.FetchAtom}},
			{"country_category_status_source_fetch", seedengine.SeedFilter{Country: "jp", Category: "news",
				Status: seedengine.SeedDraft, SourceType: seedengine.SourceGovernment, FetchType: seedengine.FetchRSS}},
			{"source_type", seedengine.SeedFilter{SourceType: seedengine.SourceMedia, Limit: 100}},
			{"domain_id", seedengine.SeedFilter{DomainID: "gov:sg:site000000.example"}},
		} {
			b.Run(c.name, func(b *testing.B) {
				var total int
				b.ReportAllocs()
				for b.Loop() {
					var err error
					if _, total, err = s.FindSeeds(b.Context(), c.f); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(total), "total")
			})
		}
	})
}
