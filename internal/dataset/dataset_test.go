package dataset_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/blobstore"
	"github.com/seedengine/seedengine/internal/dataset"
	"github.com/seedengine/seedengine/internal/dataset/datasettest"
	"github.com/seedengine/seedengine/internal/layout"
	"github.com/seedengine/seedengine/internal/sqlstore"
	"github.com/seedengine/seedengine/internal/sqlstore/sqlstoretest"
)

var (
	sgNews   = seedengine.Partition{Country: "sg", Category: "news", Date: "2026-01-28"}
	sgPolicy = seedengine.Partition{Country: "sg", Category: "policy", Date: "2026-01-28"}
	jpNews   = seedengine.Partition{Country: "jp", Category: "news", Date: "2026-01-29"}
)

// bundle is one service under test with what it runs on.
type bundle struct {
	svc   *dataset.Service
	blobs *blobstore.Store
	store *spyStore
	index seedengine.DatasetIndex
	mem   *datasettest.Index // nil with the SQL index
	tmp   string
}

type setupOpts struct {
	driver string // "mem" (default) or "file"
	sql    bool   // the real SQLite index instead of the in-memory one
}

func setup(t *testing.T, o setupOpts) *bundle {
	t.Helper()
	url := "mem://"
	if o.driver == "file" {
		url = "file://" + t.TempDir()
	}
	bs, err := blobstore.Open(context.Background(), url)
	require.NoError(t, err)
	t.Cleanup(func() { _ = bs.Close() })
	b := &bundle{blobs: bs, store: &spyStore{ObjectStore: bs}, tmp: t.TempDir()}
	if o.sql {
		b.index = sqlstore.NewDatasetIndex(sqlstoretest.OpenSQLite(t))
	} else {
		b.mem = datasettest.NewIndex()
		b.index = b.mem
	}
	b.svc = dataset.New(b.store, b.index, nil)
	b.svc.TempDir = b.tmp
	return b
}

// spyStore counts reads and can hide keys from listings (a store whose
// listing lags its writes) or fail writes.
type spyStore struct {
	seedengine.ObjectStore
	mu       sync.Mutex
	reads    map[string]int
	hidden   map[string]bool
	failPuts error
	opened   func(key string) // runs once a reader is open
	readErr  error            // fails every NewReader
	prefixes []string         // of every listing, in order
}

func (s *spyStore) NewReader(ctx context.Context, key string) (io.ReadCloser, int64, error) {
	s.mu.Lock()
	if s.reads == nil {
		s.reads = map[string]int{}
	}
	s.reads[key]++
	opened, readErr := s.opened, s.readErr
	s.mu.Unlock()
	if readErr != nil {
		return nil, 0, readErr
	}
	rc, size, err := s.ObjectStore.NewReader(ctx, key)
	if err == nil && opened != nil {
		opened(key)
	}
	return rc, size, err
}

func (s *spyStore) readsOf(key string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.reads[key]
}

func (s *spyStore) hide(key string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.hidden == nil {
		s.hidden = map[string]bool{}
	}
	s.hidden[key] = true
}

func (s *spyStore) List(ctx context.Context, prefix string, fn func(seedengine.Object) error) error {
	s.mu.Lock()
	s.prefixes = append(s.prefixes, prefix)
	s.mu.Unlock()
	return s.ObjectStore.List(ctx, prefix, func(o seedengine.Object) error {
		s.mu.Lock()
		hidden := s.hidden[o.Key]
		s.mu.Unlock()
		if hidden {
			return nil
		}
		return fn(o)
	})
}

func (s *spyStore) PutIfAbsent(ctx context.Context, key string, r io.Reader, ct string) (int64, error) {
	s.mu.Lock()
	fail := s.failPuts
	s.mu.Unlock()
	if fail != nil {
		return 0, fail
	}
	return s.ObjectStore.PutIfAbsent(ctx, key, r, ct)
}

// body returns a valid dataset of n records for p.
func body(p seedengine.Partition, n int) string {
	var recs []string
	for i := range n {
		recs = append(recs, fmt.Sprintf(`{"raw_url":"https://www.example%d.gov.sg/","domain_id":"gov:sg:example%d.gov.sg","authority":"gov","confidence":0.9,"kept":%d}`, i, i, i))
	}
	return fmt.Sprintf(`{"meta":{"dataset_id":"x","country":%q,"category":%q,"date":%q,"record_count":%d,"producer":"test"},"records":[%s]}`,
		strings.ToUpper(p.Country), p.Category, p.Date, n, strings.Join(recs, ","))
}

// put writes a file straight to the store, as an upload by other means
// would.
func (b *bundle) put(t *testing.T, key, content string) {
	t.Helper()
	_, err := b.blobs.Put(context.Background(), key, strings.NewReader(content), "")
	require.NoError(t, err)
}

func chunkKey(t *testing.T, p seedengine.Partition, n int) string {
	t.Helper()
	k, err := layout.RawChunkKey(p, n)
	require.NoError(t, err)
	return k
}

func (b *bundle) read(t *testing.T, key string) string {
	t.Helper()
	rc, _, err := b.blobs.NewReader(context.Background(), key)
	require.NoError(t, err)
	defer rc.Close()
	data, err := io.ReadAll(rc)
	require.NoError(t, err)
	return string(data)
}

func TestSaveDatasetWritesNextNumberAsSent(t *testing.T) {
	t.Parallel()
	for _, driver := range []string{"mem", "file"} {
		t.Run(driver, func(t *testing.T) {
			t.Parallel()
			b := setup(t, setupOpts{driver: driver})
			ctx := context.Background()
			in := body(sgNews, 3)
			c1, err := b.svc.SaveDataset(ctx, sgNews, strings.NewReader(in))
			require.NoError(t, err)
			require.Equal(t, 1, c1.Chunk)
			require.Equal(t, "raw_0001", c1.Name)
			require.Equal(t, "raw/country=sg/category=news/date=2026-01-28/raw_0001.json", c1.Key)
			require.Equal(t, int64(len(in)), c1.Bytes)
			require.Equal(t, 3, c1.Records)
			require.Equal(t, in, b.read(t, c1.Key), "stored byte for byte, extras and all")

			c2, err := b.svc.SaveDataset(ctx, sgNews, strings.NewReader(body(sgNews, 1)))
			require.NoError(t, err)
			require.Equal(t, 2, c2.Chunk)

			c3, err := b.svc.SaveDataset(ctx, jpNews, strings.NewReader(body(jpNews, 1)))
			require.NoError(t, err)
			require.Equal(t, 1, c3.Chunk, "numbers are per partition")

			entries, err := os.ReadDir(b.tmp)
			require.NoError(t, err)
			require.Empty(t, entries, "staging files are removed")
		})
	}
}

func TestSaveDatasetInvalidWritesNothing(t *testing.T) {
	t.Parallel()
	b := setup(t, setupOpts{})
	ctx := context.Background()
	bad := strings.Replace(body(sgNews, 3), `"domain_id":"gov:sg:example1.gov.sg"`, `"domain_id":"nonsense"`, 1)
	_, err := b.svc.SaveDataset(ctx, sgNews, strings.NewReader(bad))
	require.Equal(t, seedengine.EINVALID, seedengine.ErrorCode(err))
	require.Equal(t, "records[1].domain_id", seedengine.ErrorField(err))

	_, err = b.svc.SaveDataset(ctx, sgNews, strings.NewReader(body(jpNews, 1)))
	require.Equal(t, "meta.country", seedengine.ErrorField(err))

	_, err = b.svc.SaveDataset(ctx, seedengine.Partition{Country: "xx", Category: "news", Date: "2026-01-28"}, strings.NewReader(body(sgNews, 1)))
	require.Equal(t, "country", seedengine.ErrorField(err))

	n := 0
	require.NoError(t, b.blobs.List(ctx, "", func(blobstore.Object) error { n++; return nil }))
	require.Zero(t, n)
	require.Zero(t, b.mem.Len(), "nothing reserved")
	entries, err := os.ReadDir(b.tmp)
	require.NoError(t, err)
	require.Empty(t, entries)
}

func TestSaveDatasetStartsAboveFilesWrittenOutside(t *testing.T) {
	t.Parallel()
	b := setup(t, setupOpts{})
	b.put(t, chunkKey(t, sgNews, 7), body(sgNews, 1))
	b.put(t, chunkKey(t, sgNews, 9)+layout.SuccessSuffix, "") // a checkpoint whose chunk is gone
	c, err := b.svc.SaveDataset(context.Background(), sgNews, strings.NewReader(body(sgNews, 1)))
	require.NoError(t, err)
	require.Equal(t, 10, c.Chunk)
}

func TestSaveDatasetSkipsANumberTakenBehindTheListing(t *testing.T) {
	t.Parallel()
	b := setup(t, setupOpts{})
	// raw_0001 exists but the listing does not show it yet, so the index
	// hands out 1 and PutIfAbsent finds it taken.
	taken := chunkKey(t, sgNews, 1)
	b.put(t, taken, "not ours")
	b.store.hide(taken)
	c, err := b.svc.SaveDataset(context.Background(), sgNews, strings.NewReader(body(sgNews, 2)))
	require.NoError(t, err)
	require.Equal(t, 2, c.Chunk)
	require.Equal(t, "not ours", b.read(t, taken), "a raw chunk is never overwritten")
	_, ok := b.mem.Chunk(sgNews, 1)
	require.False(t, ok, "the reservation of the taken number is released")
}

func TestSaveDatasetReleasesItsNumberOnFailure(t *testing.T) {
	t.Parallel()
	b := setup(t, setupOpts{})
	b.store.failPuts = errors.New("disk on fire")
	_, err := b.svc.SaveDataset(context.Background(), sgNews, strings.NewReader(body(sgNews, 1)))
	require.Error(t, err)
	require.Equal(t, seedengine.EINTERNAL, seedengine.ErrorCode(err))
	require.Zero(t, b.mem.Len())
	require.Equal(t, 1, b.mem.CallCount("ReleaseChunk"))
}

func TestSaveDatasetPassesReaderErrorsThrough(t *testing.T) {
	t.Parallel()
	b := setup(t, setupOpts{})
	tooBig := errors.New("http: request body too large")
	valid := body(sgNews, 1)
	r := io.MultiReader(strings.NewReader(valid[:len(valid)-10]), &errReader{tooBig})
	_, err := b.svc.SaveDataset(context.Background(), sgNews, r)
	require.ErrorIs(t, err, tooBig)
	require.Zero(t, b.mem.Len())
}

type errReader struct{ err error }

func (e *errReader) Read([]byte) (int, error) { return 0, e.err }

func TestConcurrentSavesNeverCollide(t *testing.T) {
	t.Parallel()
	for _, o := range []setupOpts{{driver: "mem"}, {driver: "file"}, {driver: "file", sql: true}} {
		t.Run(fmt.Sprintf("%s/sql=%v", o.driver, o.sql), func(t *testing.T) {
			t.Parallel()
			b := setup(t, o)
			const writers = 12
			var wg sync.WaitGroup
			chunks := make([]seedengine.ChunkInfo, writers)
			errs := make([]error, writers)
			for i := range writers {
				wg.Go(func() {
					chunks[i], errs[i] = b.svc.SaveDataset(context.Background(), sgNews, strings.NewReader(body(sgNews, i+1)))
				})
			}
			wg.Wait()
			seen := map[int]bool{}
			for i, c := range chunks {
				require.NoError(t, errs[i])
				require.False(t, seen[c.Chunk], "chunk %d handed out twice", c.Chunk)
				seen[c.Chunk] = true
				require.Equal(t, body(sgNews, i+1), b.read(t, c.Key))
			}
			for n := 1; n <= writers; n++ {
				require.True(t, seen[n], "numbers are dense: %d missing", n)
			}
			list, err := b.svc.ListChunks(context.Background(), sgNews)
			require.NoError(t, err)
			require.Len(t, list, writers)
		})
	}
}

func TestListingsComeFromTheStoreAndBackfillTheIndex(t *testing.T) {
	t.Parallel()
	for _, useSQL := range []bool{false, true} {
		t.Run(fmt.Sprintf("sql=%v", useSQL), func(t *testing.T) {
			t.Parallel()
			b := setup(t, setupOpts{sql: useSQL})
			ctx := context.Background()

			// Saved through the service: indexed on write.
			_, err := b.svc.SaveDataset(ctx, sgNews, strings.NewReader(body(sgNews, 2)))
			require.NoError(t, err)
			// Uploaded by other means: meta first with record_count, meta
			// last without one, and a damaged file.
			metaLast := `{"records":[{"raw_url":"a"},{"raw_url":"b"},{"raw_url":"c"}],"meta":{"country":"SG","category":"news","date":"2026-01-28"}}`
			b.put(t, chunkKey(t, sgNews, 2), metaLast)
			b.put(t, chunkKey(t, sgNews, 2)+layout.SuccessSuffix, "")
			b.put(t, chunkKey(t, sgPolicy, 1), body(sgPolicy, 4))
			b.put(t, chunkKey(t, jpNews, 3), `{"meta":{"country":"JP"`)
			// Not chunks: ignored.
			prefix, err := layout.PartitionPrefix(sgNews)
			require.NoError(t, err)
			b.put(t, prefix+layout.RawMetadataName, `{}`)
			b.put(t, prefix+".DS_Store", "junk")
			b.put(t, prefix+"raw_0005.json.tmp", "junk")
			b.put(t, prefix+"notes.txt", "junk")
			b.put(t, "raw/country=zz/category=news/date=2026-01-28/raw_0001.json", "bad country")
			b.put(t, "raw/readme.md", "junk")

			chunks, err := b.svc.ListChunks(ctx, sgNews)
			require.NoError(t, err)
			require.Len(t, chunks, 2)
			require.Equal(t, []int{1, 2}, []int{chunks[0].Chunk, chunks[1].Chunk})
			require.Equal(t, 2, chunks[0].Records)
			require.False(t, chunks[0].Completed)
			require.Equal(t, 3, chunks[1].Records, "counted record by record")
			require.True(t, chunks[1].Completed, "the .success checkpoint marks it")
			require.Equal(t, int64(len(metaLast)), chunks[1].Bytes)
			require.False(t, chunks[1].ModTime.IsZero())

			indexed, err := b.index.FindIndexedChunks(ctx, &sgNews)
			require.NoError(t, err)
			require.Len(t, indexed, 2, "the uploaded chunk was indexed")
			require.Equal(t, 3, indexed[1].Records)
			require.True(t, indexed[1].Completed)

			stats, err := b.svc.DatasetStats(ctx)
			require.NoError(t, err)
			require.Equal(t, 3, stats.Partitions)
			require.Equal(t, 4, stats.Chunks)
			require.Equal(t, 2+3+4, stats.Records, "the damaged file adds no records")
			wantBytes := int64(len(body(sgNews, 2)) + len(metaLast) + len(body(sgPolicy, 4)) + len(`{"meta":{"country":"JP"`))
			require.Equal(t, wantBytes, stats.Bytes)
			require.Equal(t, seedengine.DatasetCount{Partitions: 2, Chunks: 3, Records: 9, Bytes: wantBytes - int64(len(`{"meta":{"country":"JP"`))}, stats.ByCountry["sg"])
			require.Equal(t, seedengine.DatasetCount{Partitions: 1, Chunks: 1, Records: 0, Bytes: int64(len(`{"meta":{"country":"JP"`))}, stats.ByCountry["jp"])
			require.Equal(t, 2, stats.ByCategory["news"].Partitions)
			require.Equal(t, 4, stats.ByCategory["policy"].Records)

			if b.mem != nil {
				// Indexed chunks are not read again.
				before := b.store.readsOf(chunkKey(t, sgNews, 2))
				_, err = b.svc.ListChunks(ctx, sgNews)
				require.NoError(t, err)
				require.Equal(t, before, b.store.readsOf(chunkKey(t, sgNews, 2)))
				require.Zero(t, b.store.readsOf(chunkKey(t, sgNews, 1)), "written through the service: never read")
			}

			_, err = b.svc.ListChunks(ctx, seedengine.Partition{Country: "fr", Category: "news", Date: "2026-01-28"})
			require.Equal(t, seedengine.ENOTFOUND, seedengine.ErrorCode(err))
		})
	}
}

func TestListingsPruneChunksDeletedInTheStore(t *testing.T) {
	t.Parallel()
	for _, useSQL := range []bool{false, true} {
		t.Run(fmt.Sprintf("sql=%v", useSQL), func(t *testing.T) {
			t.Parallel()
			b := setup(t, setupOpts{sql: useSQL})
			ctx := context.Background()
			for _, p := range []seedengine.Partition{sgNews, sgNews, sgPolicy, jpNews} {
				_, err := b.svc.SaveDataset(ctx, p, strings.NewReader(body(p, 1)))
				require.NoError(t, err)
			}
			indexed := func(p *seedengine.Partition) []int {
				t.Helper()
				cs, err := b.index.FindIndexedChunks(ctx, p)
				require.NoError(t, err)
				var out []int
				for _, c := range cs {
					out = append(out, c.Chunk)
				}
				return out
			}
			del := func(p seedengine.Partition, n int) {
				t.Helper()
				require.NoError(t, b.blobs.Delete(ctx, chunkKey(t, p, n)))
			}

			del(sgNews, 1) // behind the engine's back
			chunks, err := b.svc.ListChunks(ctx, sgNews)
			require.NoError(t, err)
			require.Len(t, chunks, 1)
			require.Equal(t, []int{2}, indexed(&sgNews), "ListChunks pruned the index")

			del(sgPolicy, 1) // the whole partition
			_, err = b.svc.ListChunks(ctx, sgPolicy)
			require.Equal(t, seedengine.ENOTFOUND, seedengine.ErrorCode(err))
			require.Empty(t, indexed(&sgPolicy))

			del(sgNews, 2)
			_, _, err = b.svc.ListPartitions(ctx, seedengine.PartitionFilter{})
			require.NoError(t, err)
			del(jpNews, 1)
			st, err := b.svc.DatasetStats(ctx)
			require.NoError(t, err)
			require.Zero(t, st.Chunks)
			require.Empty(t, indexed(nil), "DatasetStats pruned every partition")
		})
	}
}

func TestListingsKeepChunksTheListingMissed(t *testing.T) {
	t.Parallel()
	b := setup(t, setupOpts{})
	ctx := context.Background()
	_, err := b.svc.SaveDataset(ctx, sgNews, strings.NewReader(body(sgNews, 1)))
	require.NoError(t, err)
	b.store.hide(chunkKey(t, sgNews, 1)) // a listing that lags
	_, err = b.svc.DatasetStats(ctx)
	require.NoError(t, err)
	_, ok := b.mem.Chunk(sgNews, 1)
	require.True(t, ok, "the object exists: the index keeps it")
}

func TestBackfillDoesNotReindexAChunkDeletedWhileRead(t *testing.T) {
	t.Parallel()
	b := setup(t, setupOpts{sql: true})
	ctx := context.Background()
	key := chunkKey(t, sgNews, 1)
	b.put(t, key, body(sgNews, 2))
	b.put(t, chunkKey(t, sgNews, 2), body(sgNews, 3))
	var once sync.Once
	b.store.opened = func(k string) {
		if k == key {
			// DeleteChunk runs to its end (unindexing nothing yet) while
			// the backfill holds what it read.
			once.Do(func() { require.NoError(t, b.svc.DeleteChunk(ctx, sgNews, 1)) })
		}
	}
	_, err := b.svc.ListChunks(ctx, sgNews)
	require.NoError(t, err)
	indexed, err := b.index.FindIndexedChunks(ctx, &sgNews)
	require.NoError(t, err)
	require.Len(t, indexed, 1)
	require.Equal(t, 2, indexed[0].Chunk)
}

func TestBackfillRereadsAChunkWhoseSizeChanged(t *testing.T) {
	t.Parallel()
	b := setup(t, setupOpts{})
	ctx := context.Background()
	key := chunkKey(t, sgNews, 1)
	b.put(t, key, body(sgNews, 2))
	list, err := b.svc.ListChunks(ctx, sgNews)
	require.NoError(t, err)
	require.Equal(t, 2, list[0].Records)
	b.put(t, key, body(sgNews, 5)) // replaced behind the engine's back
	list, err = b.svc.ListChunks(ctx, sgNews)
	require.NoError(t, err)
	require.Equal(t, 5, list[0].Records)
}

func TestListPartitionsFiltersAndPages(t *testing.T) {
	t.Parallel()
	b := setup(t, setupOpts{})
	ctx := context.Background()
	var all []seedengine.Partition
	for _, c := range []string{"jp", "sg"} {
		for _, cat := range []string{"news", "policy"} {
			for d := 1; d <= 3; d++ {
				p := seedengine.Partition{Country: c, Category: cat, Date: fmt.Sprintf("2026-02-%02d", d)}
				all = append(all, p)
				for range d {
					_, err := b.svc.SaveDataset(ctx, p, strings.NewReader(body(p, 2)))
					require.NoError(t, err)
				}
			}
		}
	}
	items, total, err := b.svc.ListPartitions(ctx, seedengine.PartitionFilter{})
	require.NoError(t, err)
	require.Equal(t, 12, total)
	require.Len(t, items, 12)
	for i, it := range items {
		require.Equal(t, all[i], it.Partition, "ordered by country, category, date")
	}
	require.Equal(t, 3, items[2].Chunks)
	require.Equal(t, 6, items[2].Records)
	require.Equal(t, int64(3*len(body(all[2], 2))), items[2].Bytes)

	items, total, err = b.svc.ListPartitions(ctx, seedengine.PartitionFilter{Country: "SG", Category: "policy", DateFrom: "2026-02-02"})
	require.NoError(t, err)
	require.Equal(t, 2, total)
	require.Equal(t, []string{"2026-02-02", "2026-02-03"}, []string{items[0].Date, items[1].Date})

	items, total, err = b.svc.ListPartitions(ctx, seedengine.PartitionFilter{DateTo: "2026-02-01", Limit: 2, Offset: 1})
	require.NoError(t, err)
	require.Equal(t, 4, total)
	require.Len(t, items, 2)
	require.Equal(t, "policy", items[0].Category)

	items, total, err = b.svc.ListPartitions(ctx, seedengine.PartitionFilter{Offset: 50})
	require.NoError(t, err)
	require.Equal(t, 12, total)
	require.Empty(t, items)

	for f, field := range map[*seedengine.PartitionFilter]string{
		{Country: "xx"}:             "country",
		{Category: "Bad-Cat"}:       "category",
		{DateFrom: "2026-02-30"}:    "date_from",
		{DateTo: "yesterday"}:       "date_to",
		{Limit: -1}:                 "limit",
		{Offset: -1}:                "offset",
		{Country: "sg", DateTo: ""}: "",
	} {
		_, _, err := b.svc.ListPartitions(ctx, *f)
		require.Equal(t, field, seedengine.ErrorField(err))
	}
}

func TestListPartitionsListsOnlyTheFilteredPrefix(t *testing.T) {
	t.Parallel()
	b := setup(t, setupOpts{})
	ctx := context.Background()
	for _, p := range []seedengine.Partition{sgNews, sgPolicy, jpNews} {
		_, err := b.svc.SaveDataset(ctx, p, strings.NewReader(body(p, 1)))
		require.NoError(t, err)
	}
	for _, tt := range []struct {
		f      seedengine.PartitionFilter
		prefix string
		want   int
	}{
		{seedengine.PartitionFilter{}, "raw/", 3},
		{seedengine.PartitionFilter{Category: "news"}, "raw/", 2},
		{seedengine.PartitionFilter{Country: "SG"}, "raw/country=sg/", 2},
		{seedengine.PartitionFilter{Country: "sg", Category: "news"}, "raw/country=sg/category=news/", 1},
	} {
		b.store.mu.Lock()
		b.store.prefixes = nil
		b.store.mu.Unlock()
		items, total, err := b.svc.ListPartitions(ctx, tt.f)
		require.NoError(t, err)
		require.Equal(t, tt.want, total)
		require.Len(t, items, tt.want)
		b.store.mu.Lock()
		require.Equal(t, []string{tt.prefix}, b.store.prefixes, "%+v", tt.f)
		b.store.mu.Unlock()
	}
}

func TestSaveDatasetWritesNoCheckpoint(t *testing.T) {
	t.Parallel()
	b := setup(t, setupOpts{})
	ctx := context.Background()
	// .success means "processed by the seed file processor": a save must
	// never claim that.
	c1, err := b.svc.SaveDataset(ctx, sgNews, strings.NewReader(body(sgNews, 1)))
	require.NoError(t, err)
	c2, err := b.svc.SaveDatasetFrom(ctx, sgNews, "batch:b6:1", researchDataset(1))
	require.NoError(t, err)
	for _, c := range []seedengine.ChunkInfo{c1, c2} {
		require.False(t, c.Completed)
		ok, err := b.blobs.Exists(ctx, c.Key+layout.SuccessSuffix)
		require.NoError(t, err)
		require.False(t, ok, c.Key)
	}
}

func TestOpenChunkStreamsAsStored(t *testing.T) {
	t.Parallel()
	b := setup(t, setupOpts{driver: "file"})
	ctx := context.Background()
	in := body(sgNews, 3)
	saved, err := b.svc.SaveDataset(ctx, sgNews, strings.NewReader(in))
	require.NoError(t, err)
	b.put(t, chunkKey(t, sgNews, 1)+layout.SuccessSuffix, "")

	rc, info, err := b.svc.OpenChunk(ctx, sgNews, 1)
	require.NoError(t, err)
	data, err := io.ReadAll(rc)
	require.NoError(t, err)
	require.NoError(t, rc.Close())
	require.Equal(t, in, string(data))
	require.Equal(t, saved.Key, info.Key)
	require.Equal(t, int64(len(in)), info.Bytes)
	require.Equal(t, 3, info.Records)
	require.True(t, info.Completed)

	_, _, err = b.svc.OpenChunk(ctx, sgNews, 2)
	require.Equal(t, seedengine.ENOTFOUND, seedengine.ErrorCode(err))
	_, _, err = b.svc.OpenChunk(ctx, sgNews, 0)
	require.Equal(t, seedengine.EINVALID, seedengine.ErrorCode(err))
}

func TestDeleteChunkRemovesCheckpointAndIndex(t *testing.T) {
	t.Parallel()
	for _, useSQL := range []bool{false, true} {
		t.Run(fmt.Sprintf("sql=%v", useSQL), func(t *testing.T) {
			t.Parallel()
			b := setup(t, setupOpts{sql: useSQL})
			ctx := context.Background()
			for range 2 {
				_, err := b.svc.SaveDataset(ctx, sgNews, strings.NewReader(body(sgNews, 1)))
				require.NoError(t, err)
			}
			b.put(t, chunkKey(t, sgNews, 1)+layout.SuccessSuffix, "")

			require.NoError(t, b.svc.DeleteChunk(ctx, sgNews, 1))
			for _, k := range []string{chunkKey(t, sgNews, 1), chunkKey(t, sgNews, 1) + layout.SuccessSuffix} {
				ok, err := b.blobs.Exists(ctx, k)
				require.NoError(t, err)
				require.False(t, ok, k)
			}
			indexed, err := b.index.FindIndexedChunks(ctx, &sgNews)
			require.NoError(t, err)
			require.Len(t, indexed, 1)
			require.Equal(t, 2, indexed[0].Chunk)

			err = b.svc.DeleteChunk(ctx, sgNews, 1)
			require.Equal(t, seedengine.ENOTFOUND, seedengine.ErrorCode(err))

			require.NoError(t, b.svc.DeleteChunk(ctx, sgNews, 2))
			_, err = b.svc.ListChunks(ctx, sgNews)
			require.Equal(t, seedengine.ENOTFOUND, seedengine.ErrorCode(err), "a partition without chunks does not exist")
		})
	}
}

func researchDataset(n int) *seedengine.Dataset {
	ds := &seedengine.Dataset{Meta: seedengine.DatasetMeta{ResearchMethods: []string{"search"}, Engine: seedengine.EngineInfo{Name: "seedengine", Version: "test"}}}
	for i := range n {
		ds.Records = append(ds.Records, seedengine.DatasetRecord{RawURL: fmt.Sprintf("https://a%d.example/?x=1&y=2", i), Confidence: 0.5})
	}
	return ds
}

func TestSaveDatasetFromFillsMetaAndIsIdempotentByOrigin(t *testing.T) {
	t.Parallel()
	for _, useSQL := range []bool{false, true} {
		t.Run(fmt.Sprintf("sql=%v", useSQL), func(t *testing.T) {
			t.Parallel()
			b := setup(t, setupOpts{sql: useSQL})
			ctx := context.Background()
			ds := researchDataset(3)
			c, err := b.svc.SaveDatasetFrom(ctx, sgNews, "batch:b1:1", ds)
			require.NoError(t, err)
			require.Equal(t, 1, c.Chunk)
			require.Equal(t, 3, c.Records)
			require.Equal(t, "batch:b1:1", c.Origin)
			require.Empty(t, ds.Meta.DatasetID, "the caller's dataset is left alone")

			stored := b.read(t, c.Key)
			require.Equal(t, int64(len(stored)), c.Bytes)
			meta, n, err := seedengine.ValidateDataset(strings.NewReader(stored), sgNews)
			require.NoError(t, err)
			require.Equal(t, 3, n)
			require.Equal(t, "sg-news-2026-01-28-0001", meta.DatasetID)
			require.Equal(t, "SG", meta.Country)
			require.Contains(t, stored, `x=1&y=2`, "URLs are not HTML-escaped")

			again, err := b.svc.SaveDatasetFrom(ctx, sgNews, "batch:b1:1", researchDataset(3))
			require.NoError(t, err)
			require.Equal(t, c.Key, again.Key)
			chunks, err := b.svc.ListChunks(ctx, sgNews)
			require.NoError(t, err)
			require.Len(t, chunks, 1, "a retry writes nothing new")

			other, err := b.svc.SaveDatasetFrom(ctx, sgNews, "batch:b1:2", researchDataset(1))
			require.NoError(t, err)
			require.Equal(t, 2, other.Chunk)

			_, err = b.svc.SaveDatasetFrom(ctx, jpNews, "batch:b1:1", researchDataset(1))
			require.Equal(t, seedengine.ECONFLICT, seedengine.ErrorCode(err))

			bad := researchDataset(1)
			bad.Records[0].Confidence = 3
			_, err = b.svc.SaveDatasetFrom(ctx, sgNews, "batch:b1:3", bad)
			require.Equal(t, "records[0].confidence", seedengine.ErrorField(err))
		})
	}
}

func TestSaveDatasetFromResumesAfterACrash(t *testing.T) {
	t.Parallel()
	for _, useSQL := range []bool{false, true} {
		t.Run(fmt.Sprintf("sql=%v", useSQL), func(t *testing.T) {
			t.Parallel()
			b := setup(t, setupOpts{sql: useSQL})
			ctx := context.Background()
			_, err := b.svc.SaveDataset(ctx, sgNews, strings.NewReader(body(sgNews, 1)))
			require.NoError(t, err)

			// Crash between reserving and writing: the number is reused.
			n, err := b.index.ReserveChunk(ctx, sgNews, "batch:b2:1", 1)
			require.NoError(t, err)
			require.Equal(t, 2, n)
			_, err = b.svc.SaveDataset(ctx, sgNews, strings.NewReader(body(sgNews, 1)))
			require.NoError(t, err) // takes 3
			c, err := b.svc.SaveDatasetFrom(ctx, sgNews, "batch:b2:1", researchDataset(2))
			require.NoError(t, err)
			require.Equal(t, 2, c.Chunk)

			// Crash between writing and indexing: the object is adopted.
			n, err = b.index.ReserveChunk(ctx, sgNews, "batch:b2:2", 1)
			require.NoError(t, err)
			require.Equal(t, 4, n)
			ds := researchDataset(4)
			ds.Meta.Country, ds.Meta.Category, ds.Meta.Date = "SG", "news", "2026-01-28"
			ds.Meta.DatasetID, ds.Meta.RecordCount = dataset.DatasetID(sgNews, 4), 4
			ds.Meta.Extra = map[string]json.RawMessage{dataset.MetaOriginField: json.RawMessage(`"batch:b2:2"`)}
			var buf bytes.Buffer
			_, err = ds.WriteTo(&buf)
			require.NoError(t, err)
			b.put(t, chunkKey(t, sgNews, 4), buf.String())
			c, err = b.svc.SaveDatasetFrom(ctx, sgNews, "batch:b2:2", researchDataset(4))
			require.NoError(t, err)
			require.Equal(t, 4, c.Chunk)
			require.Equal(t, 4, c.Records)
			chunks, err := b.svc.ListChunks(ctx, sgNews)
			require.NoError(t, err)
			require.Len(t, chunks, 4)
			found, err := b.index.FindChunkByOrigin(ctx, "batch:b2:2")
			require.NoError(t, err)
			require.Equal(t, 4, found.Chunk)
		})
	}
}

func TestSaveDatasetFromDoesNotAdoptAForeignFile(t *testing.T) {
	t.Parallel()
	b := setup(t, setupOpts{})
	ctx := context.Background()
	// The origin holds number 1, but a foreign upload took it.
	_, err := b.index.ReserveChunk(ctx, sgNews, "batch:b3:1", 1)
	require.NoError(t, err)
	b.put(t, chunkKey(t, sgNews, 1), body(sgNews, 1))
	b.store.hide(chunkKey(t, sgNews, 1))
	c, err := b.svc.SaveDatasetFrom(ctx, sgNews, "batch:b3:1", researchDataset(2))
	require.NoError(t, err)
	require.Equal(t, 2, c.Chunk)
	require.Equal(t, body(sgNews, 1), b.read(t, chunkKey(t, sgNews, 1)))
}

// writeAs stores a dataset of n records at chunk n of sgNews whose meta
// carries that number's dataset_id and, when not empty, origin.
func (b *bundle) writeAs(t *testing.T, n int, origin string) string {
	t.Helper()
	ds := researchDataset(n)
	ds.Meta.Country, ds.Meta.Category, ds.Meta.Date = "SG", "news", "2026-01-28"
	ds.Meta.DatasetID, ds.Meta.RecordCount = dataset.DatasetID(sgNews, n), n
	if origin != "" {
		ds.Meta.Extra = map[string]json.RawMessage{dataset.MetaOriginField: json.RawMessage(strconv.Quote(origin))}
	}
	var buf bytes.Buffer
	_, err := ds.WriteTo(&buf)
	require.NoError(t, err)
	b.put(t, chunkKey(t, sgNews, n), buf.String())
	return buf.String()
}

func TestSaveDatasetFromAdoptsOnlyItsOwnOrigin(t *testing.T) {
	t.Parallel()
	for _, foreign := range []string{"", "batch:other:1"} {
		t.Run("origin="+foreign, func(t *testing.T) {
			t.Parallel()
			b := setup(t, setupOpts{sql: true})
			ctx := context.Background()
			n, err := b.index.ReserveChunk(ctx, sgNews, "batch:b4:1", 1)
			require.NoError(t, err)
			require.Equal(t, 1, n)
			// Same dataset_id as the engine would write, another origin.
			stored := b.writeAs(t, 1, foreign)
			c, err := b.svc.SaveDatasetFrom(ctx, sgNews, "batch:b4:1", researchDataset(2))
			require.NoError(t, err)
			require.Equal(t, 2, c.Chunk, "not adopted: written at the next number")
			require.Equal(t, stored, b.read(t, chunkKey(t, sgNews, 1)))
			m, _, err := seedengine.ValidateDataset(strings.NewReader(b.read(t, c.Key)), sgNews)
			require.NoError(t, err)
			require.JSONEq(t, `"batch:b4:1"`, string(m.Extra[dataset.MetaOriginField]), "the engine marks what it writes")
		})
	}
}

func TestSaveDatasetFromKeepsItsNumberWhenTheFileCannotBeRead(t *testing.T) {
	t.Parallel()
	b := setup(t, setupOpts{sql: true})
	ctx := context.Background()
	_, err := b.index.ReserveChunk(ctx, sgNews, "batch:b5:1", 1)
	require.NoError(t, err)
	b.writeAs(t, 3, "")                     // unrelated, so numbers would move on
	stored := b.writeAs(t, 1, "batch:b5:1") // the first attempt died before indexing
	boom := errors.New("connection reset")
	b.store.mu.Lock()
	b.store.readErr = boom
	b.store.mu.Unlock()
	_, err = b.svc.SaveDatasetFrom(ctx, sgNews, "batch:b5:1", researchDataset(1))
	require.ErrorIs(t, err, boom)
	require.Equal(t, seedengine.EINTERNAL, seedengine.ErrorCode(err))
	ok, err := b.blobs.Exists(ctx, chunkKey(t, sgNews, 4))
	require.NoError(t, err)
	require.False(t, ok, "nothing written twice")

	b.store.mu.Lock()
	b.store.readErr = nil
	b.store.mu.Unlock()
	c, err := b.svc.SaveDatasetFrom(ctx, sgNews, "batch:b5:1", researchDataset(1))
	require.NoError(t, err)
	require.Equal(t, 1, c.Chunk, "the retry adopts the first attempt's file")
	require.Equal(t, stored, b.read(t, c.Key))
}

func TestDatasetID(t *testing.T) {
	t.Parallel()
	require.Equal(t, "sg-news-2026-01-28-0001", dataset.DatasetID(sgNews, 1))
	require.Equal(t, "sg-news-2026-01-28-12345", dataset.DatasetID(sgNews, 12345))
}
