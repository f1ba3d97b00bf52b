package harvest_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/blobstore"
	"github.com/seedengine/seedengine/internal/harvest"
	"github.com/seedengine/seedengine/internal/sqlstore"
	"github.com/seedengine/seedengine/internal/sqlstore/sqlstoretest"
)

// BenchmarkRecordItems records items as reads do (100 new items a read,
// with their check, in one transaction each, each read at its own time;
// 4 readers at once, over 8 seeds and one day's partitions) and then
// writes them all to item files in a local object store: items/s into
// the index and the files. Both engines (PostgreSQL with
// SEEDENGINE_TEST_POSTGRES_URL).
//
//	go test -run '^$' -bench RecordItems -benchtime 100000x -count 1 ./internal/harvest/
func BenchmarkRecordItems(b *testing.B) {
	for _, engine := range []string{"sqlite", "postgres"} {
		b.Run(engine, func(b *testing.B) {
			var db *sqlstore.DB
			if engine == "sqlite" {
				db = sqlstoretest.OpenSQLite(b)
			} else {
				url := sqlstoretest.NewPostgresURL(b)
				db = sqlstoretest.Open(b, url)
			}
			benchRecordItems(b, db)
		})
	}
}

func benchRecordItems(b *testing.B, db *sqlstore.DB) {
	ctx := context.Background()
	seeds := sqlstore.NewSeedService(db)
	var sds []seedengine.Seed
	for i := range 8 {
		sd := seedengine.Seed{DomainID: fmt.Sprintf("media:sg:bench%d.com", i), ContentType: "news", Category: fmt.Sprintf("cat%d", i%2),
			Fetch: seedengine.SeedFetch{Type: seedengine.FetchRSS, EntryURL: fmt.Sprintf("https://bench%d.com/feed", i), Schedule: "@hourly"}}
		require.NoError(b, seeds.CreateSeed(ctx, &sd, "bench"))
		sds = append(sds, sd)
	}
	blobs, err := blobstore.Open(ctx, "file://"+b.TempDir())
	require.NoError(b, err)
	b.Cleanup(func() { _ = blobs.Close() })
	flusher := harvest.NewFlusher(sqlstore.NewItemService(db).Files(), blobs, harvest.FlushConfig{})
	const perRead, readers = 100, 4
	reads := (b.N + perRead - 1) / perRead
	// Each read at its own time, as reads are (a microsecond apart: one
	// day's partitions); items first seen then.
	start0 := time.Now().UTC().Truncate(time.Microsecond)
	decide := func(c *seedengine.SeedCheck, _ seedengine.ArrivalHistory) (seedengine.SeedHealth, time.Time) {
		return seedengine.SeedHealth{State: seedengine.HealthHealthy}, c.CheckedAt.Add(time.Hour)
	}
	b.ResetTimer()
	start := time.Now()
	var wg sync.WaitGroup
	for w := range readers {
		wg.Go(func() {
			for r := w; r < reads; r += readers {
				sd := &sds[r%len(sds)]
				at := start0.Add(time.Duration(r) * time.Microsecond)
				items := make([]seedengine.Item, perRead)
				for i := range items {
					u := fmt.Sprintf("https://bench.example/%d/%d", r, i)
					items[i] = seedengine.Item{URL: u, NormalizedURL: u, Title: "A story of the benchmark", SeedID: sd.SeedID,
						DomainID: sd.DomainID, Country: "sg", Category: sd.Category, FirstSeenAt: at,
						Source: seedengine.ItemSource{EntryURL: sd.Fetch.EntryURL, FetchType: sd.Fetch.Type}}
				}
				c := seedengine.SeedCheck{SeedID: sd.SeedID, CheckedAt: at, Outcome: seedengine.CheckOK, Status: 200, Items: perRead}
				if _, _, err := seeds.RecordSeedCheck(ctx, &c, items, false, decide, nil); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	recorded := time.Since(start)
	files, err := flusher.Flush(ctx, true)
	require.NoError(b, err)
	total := time.Since(start)
	b.StopTimer()
	n := float64(reads * perRead)
	b.ReportMetric(n/recorded.Seconds(), "items/s_index")
	b.ReportMetric(n/total.Seconds(), "items/s_index+files")
	b.ReportMetric(float64(files), "files")
}
