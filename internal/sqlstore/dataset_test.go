package sqlstore_test

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/sqlstore"
	"github.com/seedengine/seedengine/internal/sqlstore/sqlstoretest"
)

// chunkInfo returns a fully set chunk of p.
func chunkInfo(p seedengine.Partition, n, records int, bytes int64, origin string) seedengine.ChunkInfo {
	name := fmt.Sprintf("raw_%04d", n)
	return seedengine.ChunkInfo{
		Partition: p,
		Chunk:     n,
		Name:      name,
		Key:       fmt.Sprintf("raw/country=%s/category=%s/date=%s/%s.json", p.Country, p.Category, p.Date, name),
		Bytes:     bytes,
		Records:   records,
		Completed: true,
		Origin:    origin,
		ModTime:   at(12, n),
	}
}

func indexChunks(t *testing.T, x *sqlstore.DatasetIndex, cs ...seedengine.ChunkInfo) {
	t.Helper()
	for _, c := range cs {
		require.NoError(t, x.IndexChunk(t.Context(), c))
	}
}

func findChunks(t *testing.T, x *sqlstore.DatasetIndex, p *seedengine.Partition) []seedengine.ChunkInfo {
	t.Helper()
	cs, err := x.FindIndexedChunks(t.Context(), p)
	require.NoError(t, err)
	return cs
}

func TestIndexChunk(t *testing.T) {
	t.Parallel()
	sqlstoretest.Engines(t, func(t *testing.T, db *sqlstore.DB) {
		ctx := t.Context()
		x := sqlstore.NewDatasetIndex(db)

		require.Empty(t, findChunks(t, x, &pSGNews1))
		require.NotNil(t, findChunks(t, x, nil), "an empty list, not nil")

		c1 := chunkInfo(pSGNews1, 1, 10, 1000, "api")
		c2 := chunkInfo(pSGNews1, 2, -1, 2000, "")
		c2.Completed = false
		c2.ModTime = time.Time{}
		other := chunkInfo(pJPNews, 1, 5, 500, "upload:1")
		// Nanoseconds beyond microseconds are not kept by PostgreSQL, so
		// neither engine keeps them.
		c1.ModTime = c1.ModTime.Add(789 * time.Nanosecond).In(time.FixedZone("SGT", 8*3600))
		indexChunks(t, x, c2, other, c1)

		want1 := c1
		want1.ModTime = c1.ModTime.UTC().Truncate(time.Microsecond)
		require.Equal(t, []seedengine.ChunkInfo{want1, c2}, findChunks(t, x, &pSGNews1), "chunks round-trip in chunk order")
		require.Equal(t, []seedengine.ChunkInfo{other, want1, c2}, findChunks(t, x, nil), "every partition, in partition order")

		// Indexing again updates the row.
		c2.Records, c2.Completed, c2.ModTime, c2.Origin = 20, true, at(13, 0), "batch:b:2"
		indexChunks(t, x, c2)
		require.Equal(t, []seedengine.ChunkInfo{want1, c2}, findChunks(t, x, &pSGNews1))

		// An empty origin keeps the one the row has.
		c2.Origin = ""
		indexChunks(t, x, c2)
		got, err := x.FindChunkByOrigin(ctx, "batch:b:2")
		require.NoError(t, err)
		require.Equal(t, 2, got.Chunk)

		// An origin names one chunk only.
		c3 := chunkInfo(pSGNews1, 3, 1, 1, "batch:b:2")
		requireCode(t, x.IndexChunk(ctx, c3), seedengine.ECONFLICT)
		requireCode(t, x.IndexChunk(ctx, chunkInfo(pSGNews2, 1, 1, 1, "api")), seedengine.ECONFLICT)
		require.Len(t, findChunks(t, x, nil), 3, "nothing was written by the conflicts")

		_, err = x.FindChunkByOrigin(ctx, "nobody")
		requireCode(t, err, seedengine.ENOTFOUND)
		_, err = x.FindChunkByOrigin(ctx, "")
		requireCode(t, err, seedengine.EINVALID)
		got, err = x.FindChunkByOrigin(ctx, "upload:1")
		require.NoError(t, err)
		require.Equal(t, other, got)
	})
}

func TestIndexChunkInvalid(t *testing.T) {
	t.Parallel()
	good := chunkInfo(pSGNews1, 1, 1, 1, "")
	tests := []struct {
		name      string
		edit      func(*seedengine.ChunkInfo)
		wantField string
	}{
		{"bad partition", func(c *seedengine.ChunkInfo) { c.Country = "SG" }, "country"},
		{"chunk 0", func(c *seedengine.ChunkInfo) { c.Chunk = 0 }, "chunk"},
		{"no key", func(c *seedengine.ChunkInfo) { c.Key = "" }, "key"},
		{"negative bytes", func(c *seedengine.ChunkInfo) { c.Bytes = -1 }, "bytes"},
		{"records below -1", func(c *seedengine.ChunkInfo) { c.Records = -2 }, "records"},
		{"long origin", func(c *seedengine.ChunkInfo) { c.Origin = strings.Repeat("o", 501) }, "origin"},
	}
	sqlstoretest.Engines(t, func(t *testing.T, db *sqlstore.DB) {
		x := sqlstore.NewDatasetIndex(db)
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				c := good
				tt.edit(&c)
				err := x.IndexChunk(t.Context(), c)
				requireCode(t, err, seedengine.EINVALID)
				require.Equal(t, tt.wantField, seedengine.ErrorField(err))
			})
		}
		require.Empty(t, findChunks(t, x, nil))
	})
}

func TestUnindexChunk(t *testing.T) {
	t.Parallel()
	sqlstoretest.Engines(t, func(t *testing.T, db *sqlstore.DB) {
		ctx := t.Context()
		x := sqlstore.NewDatasetIndex(db)
		c1, c2 := chunkInfo(pSGNews1, 1, 1, 1, "a"), chunkInfo(pSGNews1, 2, 1, 1, "")
		indexChunks(t, x, c1, c2)

		require.NoError(t, x.UnindexChunk(ctx, pSGNews1, 1))
		require.Equal(t, []seedengine.ChunkInfo{c2}, findChunks(t, x, &pSGNews1))
		require.NoError(t, x.UnindexChunk(ctx, pSGNews1, 1), "forgetting twice is no error")
		require.NoError(t, x.UnindexChunk(ctx, pSGNews2, 2), "nor is another partition")
		require.Equal(t, []seedengine.ChunkInfo{c2}, findChunks(t, x, &pSGNews1))

		// The origin is free again.
		indexChunks(t, x, chunkInfo(pSGNews1, 3, 1, 1, "a"))
	})
}

func TestReserveChunk(t *testing.T) {
	t.Parallel()
	sqlstoretest.Engines(t, func(t *testing.T, db *sqlstore.DB) {
		ctx := t.Context()
		x := sqlstore.NewDatasetIndex(db)
		reserve := func(p seedengine.Partition, origin string, atLeast int) int {
			t.Helper()
			n, err := x.ReserveChunk(ctx, p, origin, atLeast)
			require.NoError(t, err)
			return n
		}

		require.Equal(t, 1, reserve(pSGNews1, "", 0), "an empty partition starts at 1")
		require.Equal(t, 2, reserve(pSGNews1, "", 1))
		require.Equal(t, 7, reserve(pSGNews1, "batch:x:0", 7), "at least atLeast")
		require.Equal(t, 8, reserve(pSGNews1, "", 3), "above every reserved chunk")
		require.Equal(t, 1, reserve(pSGNews2, "", 0), "partitions count separately")

		// The same origin gets the same number, whatever atLeast says.
		require.Equal(t, 7, reserve(pSGNews1, "batch:x:0", 100))
		_, err := x.ReserveChunk(ctx, pSGNews2, "batch:x:0", 0)
		requireCode(t, err, seedengine.ECONFLICT)

		// Placeholders are not chunks yet.
		require.Empty(t, findChunks(t, x, nil))
		_, err = x.FindChunkByOrigin(ctx, "batch:x:0")
		requireCode(t, err, seedengine.ENOTFOUND)
		sums, total, err := x.FindPartitionSummaries(ctx, seedengine.PartitionFilter{})
		require.NoError(t, err)
		require.Zero(t, total)
		require.Empty(t, sums)

		// Indexing fills the placeholder and keeps its origin.
		c := chunkInfo(pSGNews1, 7, 3, 30, "")
		indexChunks(t, x, c)
		got, err := x.FindChunkByOrigin(ctx, "batch:x:0")
		require.NoError(t, err)
		c.Origin = "batch:x:0"
		require.Equal(t, c, got)
		require.Equal(t, 7, reserve(pSGNews1, "batch:x:0", 0), "a written chunk is still its origin's")

		// Indexed chunks count too.
		indexChunks(t, x, chunkInfo(pSGNews2, 20, 1, 1, ""))
		require.Equal(t, 21, reserve(pSGNews2, "", 0))

		// Release removes placeholders only.
		require.NoError(t, x.ReleaseChunk(ctx, pSGNews1, 7))
		require.Len(t, findChunks(t, x, &pSGNews1), 1, "an indexed chunk is not released")
		require.Equal(t, 9, reserve(pSGNews1, "batch:y:0", 0))
		require.NoError(t, x.ReleaseChunk(ctx, pSGNews1, 9))
		require.NoError(t, x.ReleaseChunk(ctx, pSGNews1, 9), "releasing twice is no error")
		require.Equal(t, 9, reserve(pSGNews1, "batch:y:1", 0), "a released number at the top is free again")
		require.Equal(t, 10, reserve(pSGNews1, "batch:y:0", 0), "a released origin reserves anew")

		// Unindexing forgets a placeholder too.
		require.NoError(t, x.UnindexChunk(ctx, pSGNews1, 10))
		require.Equal(t, 10, reserve(pSGNews1, "", 0))

		_, err = x.ReserveChunk(ctx, seedengine.Partition{Country: "sg", Category: "news"}, "", 0)
		requireCode(t, err, seedengine.EINVALID)
		_, err = x.ReserveChunk(ctx, pSGNews1, strings.Repeat("o", 501), 0)
		requireCode(t, err, seedengine.EINVALID)
	})
}

// TestReserveChunkConcurrent reserves from many goroutines at once in one
// partition: no number may be handed out twice, and one origin asked for by
// several goroutines gets one number.
func TestReserveChunkConcurrent(t *testing.T) {
	t.Parallel()
	sqlstoretest.Engines(t, func(t *testing.T, db *sqlstore.DB) {
		ctx := t.Context()
		x := sqlstore.NewDatasetIndex(db)
		const workers = 16
		const perWorker = 8
		type result struct {
			origin string
			n      int
		}
		results := make(chan result, workers*perWorker)
		errs := make(chan error, workers*perWorker)
		var wg sync.WaitGroup
		for w := range workers {
			wg.Go(func() {
				for i := range perWorker {
					origin := ""
					switch i % 3 {
					case 1:
						origin = fmt.Sprintf("own:%d:%d", w, i)
					case 2:
						// Every pair of workers shares these origins.
						origin = fmt.Sprintf("shared:%d:%d", w/2, i)
					}
					n, err := x.ReserveChunk(ctx, pSGNews1, origin, 0)
					if err != nil {
						errs <- err
						continue
					}
					results <- result{origin, n}
				}
			})
		}
		wg.Wait()
		close(results)
		close(errs)
		for err := range errs {
			require.NoError(t, err)
		}

		byOrigin := map[string]int{}
		var numbers []int
		for r := range results {
			if r.origin == "" {
				numbers = append(numbers, r.n)
				continue
			}
			if n, ok := byOrigin[r.origin]; ok {
				require.Equal(t, n, r.n, "origin %s got two numbers", r.origin)
				continue
			}
			byOrigin[r.origin] = r.n
			numbers = append(numbers, r.n)
		}
		slices.Sort(numbers)
		want := make([]int, len(numbers))
		for i := range want {
			want[i] = i + 1
		}
		require.Equal(t, want, numbers, "every reservation has its own number, with no gaps")

		var rows int
		require.NoError(t, db.Reader().QueryRowContext(ctx, `SELECT COUNT(*) FROM dataset_chunks`).Scan(&rows))
		require.Equal(t, len(numbers), rows)
	})
}

// TestReserveChunkOriginRace reserves one origin in different partitions at
// once: the partition locks do not order these, so the origin's unique key
// must, giving it to exactly one of them.
func TestReserveChunkOriginRace(t *testing.T) {
	t.Parallel()
	sqlstoretest.Engines(t, func(t *testing.T, db *sqlstore.DB) {
		ctx := t.Context()
		x := sqlstore.NewDatasetIndex(db)
		partitions := []seedengine.Partition{pSGNews1, pSGNews2, pSGPol, pJPNews}
		for round := range 10 {
			origin := fmt.Sprintf("race:%d", round)
			errs := make([]error, len(partitions)*2)
			var wg sync.WaitGroup
			for i := range errs {
				wg.Go(func() {
					_, errs[i] = x.ReserveChunk(ctx, partitions[i%len(partitions)], origin, 0)
				})
			}
			wg.Wait()
			winners := map[seedengine.Partition]bool{}
			for i, err := range errs {
				if err == nil {
					winners[partitions[i%len(partitions)]] = true
					continue
				}
				requireCode(t, err, seedengine.ECONFLICT)
			}
			require.Len(t, winners, 1, "round %d: one partition gets the origin", round)
		}
	})
}

func TestFindPartitionSummaries(t *testing.T) {
	t.Parallel()
	sqlstoretest.Engines(t, func(t *testing.T, db *sqlstore.DB) {
		ctx := t.Context()
		x := sqlstore.NewDatasetIndex(db)
		domains := sqlstore.NewDomainService(db)

		indexChunks(t, x,
			chunkInfo(pSGNews1, 1, 10, 100, ""),
			chunkInfo(pSGNews1, 2, -1, 50, ""), // records unknown
			chunkInfo(pSGNews1, 3, 5, 7, ""),
			chunkInfo(pSGNews2, 1, 0, 3_000_000_000, ""), // bytes past 32 bits
			chunkInfo(pSGPol, 1, 2, 20, ""),
			chunkInfo(pJPNews, 4, 1, 1, ""),
		)
		// A placeholder adds nothing.
		_, err := x.ReserveChunk(ctx, pSGNews1, "pending", 0)
		require.NoError(t, err)
		require.NoError(t, domains.RegisterDomains(ctx, pSGNews1, at(10, 0), manySightings("s", 7)))
		require.NoError(t, domains.RegisterDomains(ctx, pSGNews1, at(11, 0), manySightings("s", 3)))
		require.NoError(t, domains.RegisterDomains(ctx, pJPNews, at(10, 0), manySightings("s", 2)))
		// Domains of a partition without chunks do not make it a partition
		// of the index.
		require.NoError(t, domains.RegisterDomains(ctx, seedengine.Partition{Country: "fr", Category: "news", Date: "2026-01-28"}, at(10, 0), manySightings("s", 2)))

		sJP := seedengine.PartitionSummary{Partition: pJPNews, Chunks: 1, Records: 1, Bytes: 1, Domains: 2}
		sSG1 := seedengine.PartitionSummary{Partition: pSGNews1, Chunks: 3, Records: 15, Bytes: 157, Domains: 7}
		sSG2 := seedengine.PartitionSummary{Partition: pSGNews2, Chunks: 1, Records: 0, Bytes: 3_000_000_000}
		sPol := seedengine.PartitionSummary{Partition: pSGPol, Chunks: 1, Records: 2, Bytes: 20}

		tests := []struct {
			name      string
			f         seedengine.PartitionFilter
			want      []seedengine.PartitionSummary
			wantTotal int
		}{
			{"all", seedengine.PartitionFilter{}, []seedengine.PartitionSummary{sJP, sSG1, sSG2, sPol}, 4},
			{"country", seedengine.PartitionFilter{Country: "sg"}, []seedengine.PartitionSummary{sSG1, sSG2, sPol}, 3},
			{"country any case", seedengine.PartitionFilter{Country: "SG"}, []seedengine.PartitionSummary{sSG1, sSG2, sPol}, 3},
			{"category", seedengine.PartitionFilter{Category: "news"}, []seedengine.PartitionSummary{sJP, sSG1, sSG2}, 3},
			{"date from", seedengine.PartitionFilter{DateFrom: "2026-01-29"}, []seedengine.PartitionSummary{sSG2}, 1},
			{"date to", seedengine.PartitionFilter{Country: "sg", DateTo: "2026-01-28"}, []seedengine.PartitionSummary{sSG1, sPol}, 2},
			{"date range", seedengine.PartitionFilter{DateFrom: "2026-01-28", DateTo: "2026-01-28", Category: "news"}, []seedengine.PartitionSummary{sJP, sSG1}, 2},
			{"page", seedengine.PartitionFilter{Limit: 2, Offset: 1}, []seedengine.PartitionSummary{sSG1, sSG2}, 4},
			{"last page", seedengine.PartitionFilter{Limit: 2, Offset: 3}, []seedengine.PartitionSummary{sPol}, 4},
			{"past the end", seedengine.PartitionFilter{Limit: 2, Offset: 4}, []seedengine.PartitionSummary{}, 4},
			{"past the end filtered", seedengine.PartitionFilter{Country: "sg", Offset: 10}, []seedengine.PartitionSummary{}, 3},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				got, total, err := x.FindPartitionSummaries(ctx, tt.f)
				require.NoError(t, err)
				require.Equal(t, tt.want, got)
				require.Equal(t, tt.wantTotal, total)
			})
		}

		for _, tt := range []struct {
			f     seedengine.PartitionFilter
			field string
		}{
			{seedengine.PartitionFilter{Country: "xx"}, "country"},
			{seedengine.PartitionFilter{Category: "No"}, "category"},
			{seedengine.PartitionFilter{DateFrom: "2026-13-01"}, "date_from"},
			{seedengine.PartitionFilter{DateTo: "yesterday"}, "date_to"},
			{seedengine.PartitionFilter{DateFrom: "2026-01-29", DateTo: "2026-01-28"}, "date_to"},
			{seedengine.PartitionFilter{Limit: -1}, "limit"},
			{seedengine.PartitionFilter{Offset: -1}, "offset"},
		} {
			_, _, err := x.FindPartitionSummaries(ctx, tt.f)
			requireCode(t, err, seedengine.EINVALID)
			require.Equal(t, tt.field, seedengine.ErrorField(err))
		}
	})
}

func TestFindPartitionSummariesLimit(t *testing.T) {
	t.Parallel()
	sqlstoretest.Engines(t, func(t *testing.T, db *sqlstore.DB) {
		ctx := t.Context()
		x := sqlstore.NewDatasetIndex(db)
		// 1,100 partitions: one a day from 2023-01-01.
		day := time.Date(2023, 1, 1, 0, 0, 0, 0, time.UTC)
		tx, err := db.Writer().BeginTx(ctx, nil)
		require.NoError(t, err)
		for i := range 1100 {
			_, err := tx.ExecContext(ctx, `INSERT INTO dataset_chunks (country, category, date, chunk, key, indexed_at)
				VALUES ('sg', 'news', $1, 1, 'k', $2)`, day.AddDate(0, 0, i).Format(seedengine.DateLayout), time.Now().UTC().Format(time.RFC3339))
			require.NoError(t, err)
		}
		require.NoError(t, tx.Commit())

		got, total, err := x.FindPartitionSummaries(ctx, seedengine.PartitionFilter{})
		require.NoError(t, err)
		require.Equal(t, 1100, total)
		require.Len(t, got, 50, "default limit")
		require.Equal(t, "2023-01-01", got[0].Date)
		got, _, err = x.FindPartitionSummaries(ctx, seedengine.PartitionFilter{Limit: 2000})
		require.NoError(t, err)
		require.Len(t, got, 1000, "limit is capped")
	})
}

func TestFindPartitionAuthorities(t *testing.T) {
	t.Parallel()
	sqlstoretest.Engines(t, func(t *testing.T, db *sqlstore.DB) {
		ctx := t.Context()
		x := sqlstore.NewDatasetIndex(db)
		domains := sqlstore.NewDomainService(db)

		got, err := x.FindPartitionAuthorities(ctx, pSGNews1)
		require.NoError(t, err)
		require.Equal(t, map[seedengine.Authority]int{}, got)

		// manySightings cycles gov, edu, com, media.
		require.NoError(t, domains.RegisterDomains(ctx, pSGNews1, at(10, 0), manySightings("a", 10)))
		require.NoError(t, domains.RegisterDomains(ctx, pSGNews1, at(11, 0), manySightings("a", 6)))
		require.NoError(t, domains.RegisterDomains(ctx, pSGNews2, at(10, 0), manySightings("b", 3)))
		got, err = x.FindPartitionAuthorities(ctx, pSGNews1)
		require.NoError(t, err)
		require.Equal(t, map[seedengine.Authority]int{
			seedengine.AuthorityGov: 3, seedengine.AuthorityEdu: 3, seedengine.AuthorityCom: 2, seedengine.AuthorityMedia: 2,
		}, got)
		got, err = x.FindPartitionAuthorities(ctx, pSGNews2)
		require.NoError(t, err)
		require.Equal(t, map[seedengine.Authority]int{
			seedengine.AuthorityGov: 1, seedengine.AuthorityEdu: 1, seedengine.AuthorityCom: 1,
		}, got)
	})
}

func TestFindResearchIndex(t *testing.T) {
	t.Parallel()
	sqlstoretest.Engines(t, func(t *testing.T, db *sqlstore.DB) {
		ctx := t.Context()
		x := sqlstore.NewDatasetIndex(db)
		domains := sqlstore.NewDomainService(db)

		idx, err := x.FindResearchIndex(ctx)
		require.NoError(t, err)
		require.Equal(t, &seedengine.ResearchIndex{Countries: map[string]map[string][]seedengine.PartitionSummary{}}, idx)

		indexChunks(t, x,
			chunkInfo(pSGNews2, 1, 4, 40, ""),
			chunkInfo(pSGNews1, 1, 10, 100, ""),
			chunkInfo(pSGNews1, 2, -1, 50, ""),
			chunkInfo(pSGPol, 1, 2, 20, ""),
			chunkInfo(pJPNews, 1, 1, 1, ""),
		)
		_, err = x.ReserveChunk(ctx, pSGNews1, "", 0)
		require.NoError(t, err)
		_, err = x.ReserveChunk(ctx, seedengine.Partition{Country: "fr", Category: "news", Date: "2026-01-28"}, "", 0)
		require.NoError(t, err)
		require.NoError(t, domains.RegisterDomains(ctx, pSGNews1, at(10, 0), manySightings("i", 5)))
		require.NoError(t, domains.RegisterDomains(ctx, pSGPol, at(10, 0), manySightings("i", 2)))

		idx, err = x.FindResearchIndex(ctx)
		require.NoError(t, err)
		require.Equal(t, &seedengine.ResearchIndex{
			Countries: map[string]map[string][]seedengine.PartitionSummary{
				"jp": {"news": {{Partition: pJPNews, Chunks: 1, Records: 1, Bytes: 1}}},
				"sg": {
					"news": {
						{Partition: pSGNews1, Chunks: 2, Records: 10, Bytes: 150, Domains: 5},
						{Partition: pSGNews2, Chunks: 1, Records: 4, Bytes: 40},
					},
					"policy": {{Partition: pSGPol, Chunks: 1, Records: 2, Bytes: 20, Domains: 2}},
				},
			},
			Totals: seedengine.DatasetCount{Partitions: 4, Chunks: 5, Records: 17, Bytes: 211},
		}, idx)
	})
}
