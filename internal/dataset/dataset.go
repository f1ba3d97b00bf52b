// Package dataset stores raw research datasets (EnhancedResearchDataset
// chunks, DESIGN §5) in the object store and keeps the SQL index of them
// current.
//
// The object store is the truth: partitions, chunks, sizes and checkpoints
// come from one paged listing, so files uploaded by other means count. The
// index (seedengine.DatasetIndex) supplies record counts and allocates
// chunk numbers. A chunk the index does not know, or knows with another
// size, is read up to its meta (or counted record by record when meta has
// no record_count) and indexed on the way: that backfill keeps statistics
// right without a separate repair job. The other way round, an indexed
// chunk whose object is gone (deleted in the store directly) is unindexed
// by the listing that misses it, once the store confirms it is gone.
//
// Saving never overwrites: a number is reserved in the index at or above
// the highest one in the store, and the object is written with
// PutIfAbsent; a number taken by a file written outside the engine is
// skipped. Bodies are streamed to a temporary file while they are
// validated, so a 20 MB dataset is never held in memory.
package dataset

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/layout"
)

// Page bounds of ListPartitions: those of every partition list.
const (
	DefaultLimit = seedengine.DefaultListLimit
	MaxLimit     = seedengine.MaxListLimit
)

// ContentType is stored with every chunk.
const ContentType = "application/json"

// backfillWorkers bounds how many unindexed chunks are read at once, so a
// listing that meets thousands of uploaded files does not open thousands of
// readers.
const backfillWorkers = 4

// Service implements seedengine.DatasetService. It is safe for concurrent
// use.
type Service struct {
	store  seedengine.ObjectStore
	index  seedengine.DatasetIndex
	logger *slog.Logger

	// TempDir is where SaveDataset stages request bodies while validating
	// them; os.TempDir when empty. It needs room for the largest body
	// accepted, not for the store. cmd should set it to a directory under
	// the data dir: /tmp is often a small tmpfs (RAM), which would undo
	// the point of staging to disk.
	TempDir string

	// now is the clock of ModTime on written chunks; replaced in tests.
	now func() time.Time

	// floors holds, per partition, the highest chunk number the store
	// held when this process first wrote there (see writeChunk).
	floorsMu sync.Mutex
	floors   map[seedengine.Partition]int
}

// maxFloors bounds floors; past it the map starts again empty (a
// partition then costs one more listing).
const maxFloors = 10_000

var _ seedengine.DatasetService = (*Service)(nil)

// New returns a Service over store and index. A nil logger discards logs.
func New(store seedengine.ObjectStore, index seedengine.DatasetIndex, logger *slog.Logger) *Service {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return &Service{store: store, index: index, logger: logger, now: func() time.Time { return time.Now().UTC() },
		floors: map[seedengine.Partition]int{}}
}

// listed is one partition as the store listing shows it.
type listed struct {
	p      seedengine.Partition
	chunks map[int]*seedengine.ChunkInfo
	done   map[int]bool // checkpoints, which may be listed before or without their chunk
}

// scan lists prefix once and groups the raw chunks it holds by partition.
// Keys outside the layout (.DS_Store, raw_metadata.json, stray temp files)
// are skipped; keep filters partitions before any chunk is kept.
func (s *Service) scan(ctx context.Context, prefix string, keep func(seedengine.Partition) bool) (map[seedengine.Partition]*listed, error) {
	parts := map[seedengine.Partition]*listed{}
	err := s.store.List(ctx, prefix, func(o seedengine.Object) error {
		k, err := layout.ParseKey(o.Key)
		if err != nil || (k.Kind != layout.KindRawChunk && k.Kind != layout.KindRawCheckpoint) {
			return nil
		}
		if keep != nil && !keep(k.Partition) {
			return nil
		}
		l := parts[k.Partition]
		if l == nil {
			l = &listed{p: k.Partition, chunks: map[int]*seedengine.ChunkInfo{}, done: map[int]bool{}}
			parts[k.Partition] = l
		}
		if k.Kind == layout.KindRawCheckpoint {
			l.done[k.Chunk] = true
			return nil
		}
		name, err := layout.ChunkName(k.Chunk)
		if err != nil {
			return nil
		}
		l.chunks[k.Chunk] = &seedengine.ChunkInfo{
			Partition: k.Partition,
			Chunk:     k.Chunk,
			Name:      name,
			Key:       o.Key,
			Bytes:     o.Size,
			Records:   -1,
			ModTime:   o.ModTime,
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list %q: %w", prefix, err)
	}
	for p, l := range parts {
		if len(l.chunks) == 0 {
			delete(parts, p) // only checkpoints: no data to count
			continue
		}
		for n := range l.done {
			if c := l.chunks[n]; c != nil {
				c.Completed = true
			}
		}
	}
	return parts, nil
}

// sortedChunks returns the chunks of l in chunk order.
func (l *listed) sortedChunks() []*seedengine.ChunkInfo {
	out := make([]*seedengine.ChunkInfo, 0, len(l.chunks))
	for _, c := range l.chunks {
		out = append(out, c)
	}
	slices.SortFunc(out, func(a, b *seedengine.ChunkInfo) int { return cmp.Compare(a.Chunk, b.Chunk) })
	return out
}

func comparePartitions(a, b seedengine.Partition) int {
	return cmp.Or(cmp.Compare(a.Country, b.Country), cmp.Compare(a.Category, b.Category), cmp.Compare(a.Date, b.Date))
}

type chunkID struct {
	p seedengine.Partition
	n int
}

// resolve fills in the record counts of chunks: from the index when it
// holds the chunk with the stored size, otherwise by reading the chunk and
// indexing what was found. A chunk that cannot be read keeps Records -1;
// a listing never fails because one file is damaged. Indexed chunks the
// listing did not show are pruned from the index when their object is
// really gone (deleted in the store directly), so the index reads of the
// research API stop counting them.
func (s *Service) resolve(ctx context.Context, chunks []*seedengine.ChunkInfo, indexed []seedengine.ChunkInfo) {
	byID := make(map[chunkID]seedengine.ChunkInfo, len(indexed))
	for _, c := range indexed {
		byID[chunkID{c.Partition, c.Chunk}] = c
	}
	var work []func()
	for _, c := range chunks {
		id := chunkID{c.Partition, c.Chunk}
		ic, ok := byID[id]
		delete(byID, id)
		if !ok || ic.Bytes != c.Bytes || ic.Records < 0 {
			work = append(work, func() { s.backfill(ctx, c) })
			continue
		}
		c.Records = ic.Records
		c.Origin = ic.Origin
		if ic.Completed != c.Completed {
			// The checkpoint appeared (or went) since the chunk was
			// indexed; the index follows the store.
			s.reindex(ctx, *c)
		}
	}
	for _, ic := range byID {
		work = append(work, func() { s.prune(ctx, ic) })
	}
	s.parallel(work)
}

// parallel runs work on at most backfillWorkers goroutines.
func (s *Service) parallel(work []func()) {
	if len(work) == 0 {
		return
	}
	ch := make(chan func())
	var wg sync.WaitGroup
	for range min(backfillWorkers, len(work)) {
		wg.Go(func() {
			for f := range ch {
				f()
			}
		})
	}
	for _, f := range work {
		ch <- f
	}
	close(ch)
	wg.Wait()
}

// prune forgets an indexed chunk that a listing did not show, once the
// store confirms its object is gone: a chunk written and indexed after the
// listing, or one the listing lags behind, still exists and is kept.
func (s *Service) prune(ctx context.Context, c seedengine.ChunkInfo) {
	key, err := layout.RawChunkKey(c.Partition, c.Chunk)
	if err != nil {
		return
	}
	ok, err := s.store.Exists(ctx, key)
	if err != nil || ok {
		if err != nil && ctx.Err() == nil {
			s.logger.WarnContext(ctx, "cannot check an indexed chunk missing from the listing", "event", "dataset_prune_failed",
				"key", key, "error", err)
		}
		return
	}
	if err := s.index.UnindexChunk(ctx, c.Partition, c.Chunk); err != nil {
		if ctx.Err() == nil {
			s.logger.WarnContext(ctx, "cannot unindex a chunk gone from the store", "event", "dataset_prune_failed",
				"key", key, "error", err)
		}
		return
	}
	s.logger.InfoContext(ctx, "unindexed a chunk gone from the store", "event", "dataset_chunk_pruned",
		"key", key, "records", c.Records, "origin", c.Origin)
}

// backfill reads the record count of c from the store and indexes it.
func (s *Service) backfill(ctx context.Context, c *seedengine.ChunkInfo) {
	n, err := s.countRecords(ctx, c.Key)
	if err != nil {
		if ctx.Err() == nil {
			s.logger.WarnContext(ctx, "cannot count the records of a chunk", "event", "dataset_backfill_failed",
				"key", c.Key, "error", err)
		}
		return
	}
	c.Records = n
	s.reindex(ctx, *c)
	s.logger.InfoContext(ctx, "indexed a chunk found in the store", "event", "dataset_backfilled",
		"key", c.Key, "bytes", c.Bytes, "records", n)
}

// reindex indexes a chunk a listing found, then checks that its object is
// still there: a DeleteChunk that ran while the chunk was being read has
// already unindexed it, and the row written here would otherwise bring it
// back. Checking after the write, not before, leaves no window.
func (s *Service) reindex(ctx context.Context, c seedengine.ChunkInfo) {
	if s.indexChunk(ctx, c) {
		s.prune(ctx, c)
	}
}

// indexChunk indexes c, logging a failure: the store stays the truth and a
// later listing indexes the chunk again.
func (s *Service) indexChunk(ctx context.Context, c seedengine.ChunkInfo) bool {
	err := s.index.IndexChunk(ctx, c)
	if err != nil && ctx.Err() == nil {
		s.logger.WarnContext(ctx, "cannot index a chunk", "event", "dataset_index_failed", "key", c.Key, "error", err)
	}
	return err == nil
}

// countRecords reads a chunk only as far as needed: up to meta when meta
// comes first and declares record_count, through the records otherwise.
func (s *Service) countRecords(ctx context.Context, key string) (int, error) {
	rc, _, err := s.store.NewReader(ctx, key)
	if err != nil {
		return 0, err
	}
	defer func() { _ = rc.Close() }()
	dr := seedengine.NewDatasetReader(rc)
	if m, ok := dr.Meta(); ok && m.RecordCount > 0 {
		return m.RecordCount, nil
	}
	n := 0
	for dr.Next() {
		n++
	}
	if err := dr.Err(); err != nil {
		return 0, err
	}
	return n, nil
}

// ListPartitions lists the partitions in the store that match f, ordered
// by country, category and date, with chunk, record and byte counts (and
// domain counts from the index); and the total number matching. Limit
// defaults to 50 and is capped at 1,000. EINVALID for a bad filter, naming
// the field (see seedengine.PartitionFilter.Validate).
func (s *Service) ListPartitions(ctx context.Context, f seedengine.PartitionFilter) ([]seedengine.PartitionSummary, int, error) {
	if err := f.Validate(); err != nil {
		return nil, 0, err
	}
	prefix, err := layout.RawFilterPrefix(f.Country, f.Category)
	if err != nil {
		return nil, 0, err
	}
	parts, err := s.scan(ctx, prefix, func(p seedengine.Partition) bool {
		return (f.Country == "" || p.Country == f.Country) &&
			(f.Category == "" || p.Category == f.Category) &&
			(f.DateFrom == "" || p.Date >= f.DateFrom) &&
			(f.DateTo == "" || p.Date <= f.DateTo)
	})
	if err != nil {
		return nil, 0, err
	}
	all := make([]*listed, 0, len(parts))
	for _, l := range parts {
		all = append(all, l)
	}
	slices.SortFunc(all, func(a, b *listed) int { return comparePartitions(a.p, b.p) })
	total := len(all)
	start := min(f.Offset, total)
	page := all[start : start+min(f.Limit, total-start)]

	// Per partition rather than the whole index: the cost follows the page,
	// not the number of chunks ever indexed.
	for _, l := range page {
		indexed, err := s.index.FindIndexedChunks(ctx, &l.p)
		if err != nil {
			return nil, 0, fmt.Errorf("list partitions: %w", err)
		}
		s.resolve(ctx, l.sortedChunks(), indexed)
	}
	out := make([]seedengine.PartitionSummary, len(page))
	for i, l := range page {
		out[i] = summarize(l)
	}
	if err := s.addDomainCounts(ctx, f, out); err != nil {
		return nil, 0, err
	}
	return out, total, nil
}

func summarize(l *listed) seedengine.PartitionSummary {
	ps := seedengine.PartitionSummary{Partition: l.p, Chunks: len(l.chunks)}
	for _, c := range l.chunks {
		ps.Bytes += c.Bytes
		if c.Records > 0 {
			ps.Records += c.Records
		}
	}
	return ps
}

// addDomainCounts copies the distinct domain counts the index keeps (from
// the domain registry) onto a page of summaries. It asks only for the
// page's date range, in pages of MaxLimit.
func (s *Service) addDomainCounts(ctx context.Context, f seedengine.PartitionFilter, out []seedengine.PartitionSummary) error {
	if len(out) == 0 {
		return nil
	}
	pos := make(map[seedengine.Partition]int, len(out))
	q := seedengine.PartitionFilter{Country: f.Country, Category: f.Category, DateFrom: out[0].Date, DateTo: out[0].Date, Limit: MaxLimit}
	for i, ps := range out {
		pos[ps.Partition] = i
		q.DateFrom = min(q.DateFrom, ps.Date)
		q.DateTo = max(q.DateTo, ps.Date)
	}
	for {
		sums, total, err := s.index.FindPartitionSummaries(ctx, q)
		if err != nil {
			return fmt.Errorf("list partitions: domain counts: %w", err)
		}
		for _, sum := range sums {
			if i, ok := pos[sum.Partition]; ok {
				out[i].Domains = sum.Domains
			}
		}
		q.Offset += len(sums)
		if len(sums) == 0 || q.Offset >= total {
			return nil
		}
	}
}

// DatasetStats counts every partition, chunk, record and byte in the
// store, in total and by country and by category. Chunks whose record
// count cannot be read add no records.
func (s *Service) DatasetStats(ctx context.Context) (*seedengine.DatasetStats, error) {
	parts, err := s.scan(ctx, layout.RawRoot, nil)
	if err != nil {
		return nil, err
	}
	st := &seedengine.DatasetStats{
		ByCountry:  map[string]seedengine.DatasetCount{},
		ByCategory: map[string]seedengine.DatasetCount{},
	}
	var chunks []*seedengine.ChunkInfo
	for _, l := range parts {
		chunks = append(chunks, l.sortedChunks()...)
	}
	// Every partition is needed: one query for the whole index, which also
	// finds indexed partitions the store no longer holds.
	indexed, err := s.index.FindIndexedChunks(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("dataset stats: %w", err)
	}
	s.resolve(ctx, chunks, indexed)
	for _, l := range parts {
		ps := summarize(l)
		add := func(m map[string]seedengine.DatasetCount, k string) {
			c := m[k]
			c.Partitions++
			c.Chunks += ps.Chunks
			c.Records += ps.Records
			c.Bytes += ps.Bytes
			m[k] = c
		}
		add(st.ByCountry, l.p.Country)
		add(st.ByCategory, l.p.Category)
		st.Partitions++
		st.Chunks += ps.Chunks
		st.Records += ps.Records
		st.Bytes += ps.Bytes
	}
	return st, nil
}

// ListChunks lists the chunks of p in chunk order with sizes, record
// counts and checkpoints. ENOTFOUND when p has no chunk; EINVALID for an
// invalid partition.
func (s *Service) ListChunks(ctx context.Context, p seedengine.Partition) ([]seedengine.ChunkInfo, error) {
	prefix, err := layout.PartitionPrefix(p)
	if err != nil {
		return nil, err
	}
	parts, err := s.scan(ctx, prefix, nil)
	if err != nil {
		return nil, err
	}
	indexed, err := s.index.FindIndexedChunks(ctx, &p)
	if err != nil {
		return nil, fmt.Errorf("list chunks: %w", err)
	}
	l := parts[p]
	if l == nil {
		s.resolve(ctx, nil, indexed) // prunes what the index still holds
		return nil, notFoundPartition(p)
	}
	chunks := l.sortedChunks()
	s.resolve(ctx, chunks, indexed)
	out := make([]seedengine.ChunkInfo, len(chunks))
	for i, c := range chunks {
		out[i] = *c
	}
	return out, nil
}

// The not-found errors name the partition only as "the partition": its
// country, category and date are the client's (decisions.md: input values
// are never echoed back). A chunk is named in its canonical form.
func notFoundPartition(seedengine.Partition) error {
	return seedengine.Errorf(seedengine.ENOTFOUND, "the partition has no dataset chunk")
}

func notFoundChunk(_ seedengine.Partition, n int) error {
	name, _ := layout.ChunkName(n)
	return seedengine.Errorf(seedengine.ENOTFOUND, "chunk %s of the partition does not exist", name)
}

// OpenChunk opens chunk n of p for streaming exactly as stored; the caller
// closes the reader. Bytes is the size of what the reader will return.
// ENOTFOUND when the chunk does not exist.
func (s *Service) OpenChunk(ctx context.Context, p seedengine.Partition, n int) (io.ReadCloser, seedengine.ChunkInfo, error) {
	// Listing the key as a prefix finds the chunk and its checkpoint, with
	// the modification time, in one request.
	info, err := s.statChunk(ctx, p, n)
	if err != nil {
		return nil, seedengine.ChunkInfo{}, fmt.Errorf("open chunk: %w", err)
	}
	if info == nil {
		return nil, seedengine.ChunkInfo{}, notFoundChunk(p, n)
	}
	rc, size, err := s.store.NewReader(ctx, info.Key)
	if seedengine.ErrorCode(err) == seedengine.ENOTFOUND {
		return nil, seedengine.ChunkInfo{}, notFoundChunk(p, n) // deleted since the listing
	}
	if err != nil {
		return nil, seedengine.ChunkInfo{}, fmt.Errorf("open chunk: %w", err)
	}
	info.Bytes = size
	// The record count is a courtesy: a failing index does not stop a
	// download.
	if indexed, err := s.index.FindIndexedChunks(ctx, &p); err == nil {
		for _, c := range indexed {
			if c.Chunk == n && c.Bytes == size && c.Records >= 0 {
				info.Records, info.Origin = c.Records, c.Origin
			}
		}
	}
	return rc, *info, nil
}

// DeleteChunk removes chunk n of p, its checkpoint first (so a failure
// half way leaves the chunk, which a retry deletes, never a checkpoint
// without data), then its index entry. ENOTFOUND when the chunk does not
// exist.
func (s *Service) DeleteChunk(ctx context.Context, p seedengine.Partition, n int) error {
	key, err := layout.RawChunkKey(p, n)
	if err != nil {
		return err
	}
	checkpoint, err := layout.RawCheckpointKey(p, n)
	if err != nil {
		return err
	}
	ok, err := s.store.Exists(ctx, key)
	if err != nil {
		return fmt.Errorf("delete chunk: %w", err)
	}
	if err := s.store.Delete(ctx, checkpoint); err != nil && seedengine.ErrorCode(err) != seedengine.ENOTFOUND {
		return fmt.Errorf("delete chunk checkpoint: %w", err)
	}
	if !ok {
		return notFoundChunk(p, n)
	}
	if err := s.store.Delete(ctx, key); err != nil {
		if seedengine.ErrorCode(err) == seedengine.ENOTFOUND {
			return notFoundChunk(p, n)
		}
		return fmt.Errorf("delete chunk: %w", err)
	}
	if err := s.index.UnindexChunk(ctx, p, n); err != nil {
		// The chunk is gone from the store, so listings no longer show it,
		// but the index reads (research index, partition summaries) keep
		// counting the row until a listing of the partition prunes it.
		s.logger.WarnContext(ctx, "cannot unindex a deleted chunk", "event", "dataset_unindex_failed", "key", key, "error", err)
	}
	s.logger.InfoContext(ctx, "dataset chunk deleted", "event", "dataset_chunk_deleted", "key", key)
	return nil
}
