package sqlstore_test

import (
	"testing"

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
		s := sqlstore.NewBatchService(db)
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
		s := sqlstore.NewBatchService(db)
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
