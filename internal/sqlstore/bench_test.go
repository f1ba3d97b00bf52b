package sqlstore_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/sqlstore"
	"github.com/seedengine/seedengine/internal/sqlstore/sqlstoretest"
)

// benchEngines runs fn on a fresh store of each engine.
func benchEngines(b *testing.B, fn func(b *testing.B, db *sqlstore.DB)) {
	b.Run(string(sqlstore.EngineSQLite), func(b *testing.B) { fn(b, sqlstoretest.OpenSQLite(b)) })
	b.Run(string(sqlstore.EnginePostgres), func(b *testing.B) { fn(b, sqlstoretest.OpenPostgres(b)) })
}

// BenchmarkFindAPIKeyByToken is the cost every authenticated request pays.
func BenchmarkFindAPIKeyByToken(b *testing.B) {
	benchEngines(b, func(b *testing.B, db *sqlstore.DB) {
		s := sqlstore.NewAPIKeyService(db)
		_, token, err := s.CreateAPIKey(b.Context(), "bench", seedengine.ScopeRead)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if _, err := s.FindAPIKeyByToken(b.Context(), token); err != nil {
					b.Error(err)
					return
				}
			}
		})
	})
}

// BenchmarkCreateBatch writes a 10,000-item batch in 100 chunks, the size of
// the research batch in the performance targets.
func BenchmarkCreateBatch(b *testing.B) {
	benchEngines(b, func(b *testing.B, db *sqlstore.DB) {
		s := newJobsStore(db)
		s.Enqueuer = &fakeEnqueuer{}
		items := make([]int, 100)
		for i := range items {
			items[i] = 100
		}
		chunks := chunksOf(items...)
		b.ResetTimer()
		for b.Loop() {
			if err := s.CreateBatch(b.Context(), &seedengine.Batch{Kind: seedengine.BatchResearch}, chunks); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkStartCompleteBatchChunk is the store's share of processing one
// chunk: two write transactions.
func BenchmarkStartCompleteBatchChunk(b *testing.B) {
	benchEngines(b, func(b *testing.B, db *sqlstore.DB) {
		s := newJobsStore(db)
		s.Enqueuer = &fakeEnqueuer{}
		batch := &seedengine.Batch{Kind: seedengine.BatchLiveness}
		items := make([]int, b.N)
		for i := range items {
			items[i] = 1
		}
		if err := s.CreateBatch(b.Context(), batch, chunksOf(items...)); err != nil {
			b.Fatal(err)
		}
		out := seedengine.ChunkOutcome{Succeeded: 1, Result: []byte(`{"verdicts":{"alive":1}}`)}
		b.ResetTimer()
		for i := range b.N {
			if err := s.StartBatchChunk(b.Context(), batch.ID, i); err != nil {
				b.Fatal(err)
			}
			if err := s.CompleteBatchChunk(b.Context(), batch.ID, i, out, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkRegisterDomains registers the 10,000 domains of a research batch
// in one call: all new, all known but new to the partition, and all known
// in the partition already (a retried job).
func BenchmarkRegisterDomains(b *testing.B) {
	const n = 10_000
	benchEngines(b, func(b *testing.B, db *sqlstore.DB) {
		s := sqlstore.NewDomainService(db)
		ctx := b.Context()
		day := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
		partition := func(i int) seedengine.Partition {
			return seedengine.Partition{Country: "sg", Category: "news", Date: day.AddDate(0, 0, i).Format(seedengine.DateLayout)}
		}
		report := func(b *testing.B) {
			b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "sightings/s")
		}

		b.Run("new", func(b *testing.B) {
			i := 0
			for b.Loop() {
				b.StopTimer()
				ds := manySightings(fmt.Sprintf("new%d-", i), n)
				b.StartTimer()
				if err := s.RegisterDomains(ctx, partition(i), day, ds); err != nil {
					b.Fatal(err)
				}
				i++
			}
			report(b)
		})

		known := manySightings("known", n)
		if err := s.RegisterDomains(ctx, partition(0), day, known); err != nil {
			b.Fatal(err)
		}
		b.Run("new_partition", func(b *testing.B) {
			i := 1
			for b.Loop() {
				if err := s.RegisterDomains(ctx, partition(i), day.Add(time.Duration(i)*time.Second), known); err != nil {
					b.Fatal(err)
				}
				i++
			}
			report(b)
		})
		b.Run("repeat", func(b *testing.B) {
			for b.Loop() {
				if err := s.RegisterDomains(ctx, partition(0), day, known); err != nil {
					b.Fatal(err)
				}
			}
			report(b)
		})
	})
}
