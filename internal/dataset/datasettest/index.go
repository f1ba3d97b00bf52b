// Package datasettest holds test doubles for the dataset service: an
// in-memory seedengine.DatasetIndex with the semantics of the SQL one, so
// tests of the service and of the HTTP API need no database.
package datasettest

import (
	"cmp"
	"context"
	"slices"
	"sync"

	"github.com/seedengine/seedengine"
)

// Index is an in-memory seedengine.DatasetIndex. Like sqlstore's, a
// reservation is a placeholder with an empty Key and Records -1, invisible
// to reads; IndexChunk fills it in. It is safe for concurrent use.
type Index struct {
	mu     sync.Mutex
	chunks map[key]seedengine.ChunkInfo
	calls  map[string]int
	fail   map[string]bool
}

type key struct {
	p seedengine.Partition
	n int
}

var _ seedengine.DatasetIndex = (*Index)(nil)

// NewIndex returns an empty Index.
func NewIndex() *Index {
	return &Index{chunks: map[key]seedengine.ChunkInfo{}, calls: map[string]int{}, fail: map[string]bool{}}
}

var errFail = seedengine.Errorf(seedengine.EINTERNAL, "index failure injected by the test")

func (x *Index) call(name string) error {
	x.calls[name]++
	if x.fail[name] {
		return errFail
	}
	return nil
}

// IndexChunk implements seedengine.DatasetIndex.
func (x *Index) IndexChunk(_ context.Context, c seedengine.ChunkInfo) error {
	x.mu.Lock()
	defer x.mu.Unlock()
	if err := x.call("IndexChunk"); err != nil {
		return err
	}
	if err := c.Partition.Validate(); err != nil {
		return err
	}
	if c.Key == "" || c.Chunk < 1 {
		return seedengine.FieldErrorf("key", "key and chunk are required")
	}
	k := key{c.Partition, c.Chunk}
	if c.Origin == "" {
		c.Origin = x.chunks[k].Origin
	} else {
		for ok, oc := range x.chunks {
			if ok != k && oc.Origin == c.Origin {
				return seedengine.Errorf(seedengine.ECONFLICT, "another chunk was written for origin %q", c.Origin)
			}
		}
	}
	x.chunks[k] = c
	return nil
}

// ReserveChunk implements seedengine.DatasetIndex.
func (x *Index) ReserveChunk(_ context.Context, p seedengine.Partition, origin string, atLeast int) (int, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if err := x.call("ReserveChunk"); err != nil {
		return 0, err
	}
	if err := p.Validate(); err != nil {
		return 0, err
	}
	next := max(atLeast, 1)
	for k, c := range x.chunks {
		if origin != "" && c.Origin == origin {
			if k.p != p {
				return 0, seedengine.Errorf(seedengine.ECONFLICT, "origin %q already has a chunk elsewhere", origin)
			}
			return k.n, nil
		}
		if k.p == p {
			next = max(next, k.n+1)
		}
	}
	x.chunks[key{p, next}] = seedengine.ChunkInfo{Partition: p, Chunk: next, Records: -1, Origin: origin}
	return next, nil
}

// ReleaseChunk implements seedengine.DatasetIndex.
func (x *Index) ReleaseChunk(_ context.Context, p seedengine.Partition, n int) error {
	x.mu.Lock()
	defer x.mu.Unlock()
	if err := x.call("ReleaseChunk"); err != nil {
		return err
	}
	if c, ok := x.chunks[key{p, n}]; ok && c.Key == "" {
		delete(x.chunks, key{p, n})
	}
	return nil
}

// FindChunkByOrigin implements seedengine.DatasetIndex.
func (x *Index) FindChunkByOrigin(_ context.Context, origin string) (seedengine.ChunkInfo, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if err := x.call("FindChunkByOrigin"); err != nil {
		return seedengine.ChunkInfo{}, err
	}
	for _, c := range x.chunks {
		if c.Origin == origin && c.Key != "" {
			return c, nil
		}
	}
	return seedengine.ChunkInfo{}, seedengine.Errorf(seedengine.ENOTFOUND, "no chunk for origin %q", origin)
}

// UnindexChunk implements seedengine.DatasetIndex.
func (x *Index) UnindexChunk(_ context.Context, p seedengine.Partition, n int) error {
	x.mu.Lock()
	defer x.mu.Unlock()
	if err := x.call("UnindexChunk"); err != nil {
		return err
	}
	delete(x.chunks, key{p, n})
	return nil
}

// FindIndexedChunks implements seedengine.DatasetIndex.
func (x *Index) FindIndexedChunks(_ context.Context, p *seedengine.Partition) ([]seedengine.ChunkInfo, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if err := x.call("FindIndexedChunks"); err != nil {
		return nil, err
	}
	out := []seedengine.ChunkInfo{}
	for k, c := range x.chunks {
		if c.Key != "" && (p == nil || k.p == *p) {
			out = append(out, c)
		}
	}
	slices.SortFunc(out, compareChunks)
	return out, nil
}

// FindPartitionSummaries implements seedengine.DatasetIndex. Domains are
// always 0: this index keeps no domain registry.
func (x *Index) FindPartitionSummaries(_ context.Context, f seedengine.PartitionFilter) ([]seedengine.PartitionSummary, int, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if err := x.call("FindPartitionSummaries"); err != nil {
		return nil, 0, err
	}
	byP := map[seedengine.Partition]*seedengine.PartitionSummary{}
	for k, c := range x.chunks {
		p := k.p
		if c.Key == "" || (f.Country != "" && p.Country != f.Country) || (f.Category != "" && p.Category != f.Category) ||
			(f.DateFrom != "" && p.Date < f.DateFrom) || (f.DateTo != "" && p.Date > f.DateTo) {
			continue
		}
		s := byP[p]
		if s == nil {
			s = &seedengine.PartitionSummary{Partition: p}
			byP[p] = s
		}
		s.Chunks++
		s.Bytes += c.Bytes
		s.Records += max(c.Records, 0)
	}
	out := make([]seedengine.PartitionSummary, 0, len(byP))
	for _, s := range byP {
		out = append(out, *s)
	}
	slices.SortFunc(out, func(a, b seedengine.PartitionSummary) int { return comparePartitions(a.Partition, b.Partition) })
	total := len(out)
	limit := f.Limit
	if limit <= 0 {
		limit = 50
	}
	start := min(max(f.Offset, 0), total)
	out = out[start : start+min(limit, total-start)]
	return out, total, nil
}

// SetFail makes the method named method fail with an internal error, or
// stop failing, to test failure paths.
func (x *Index) SetFail(method string, fail bool) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.fail[method] = fail
}

// CallCount returns how often the method named method was called.
func (x *Index) CallCount(method string) int {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.calls[method]
}

// Chunk returns the entry of chunk n of p, placeholder or not.
func (x *Index) Chunk(p seedengine.Partition, n int) (seedengine.ChunkInfo, bool) {
	x.mu.Lock()
	defer x.mu.Unlock()
	c, ok := x.chunks[key{p, n}]
	return c, ok
}

// Len returns the number of entries, placeholders included.
func (x *Index) Len() int {
	x.mu.Lock()
	defer x.mu.Unlock()
	return len(x.chunks)
}

func comparePartitions(a, b seedengine.Partition) int {
	return cmp.Or(cmp.Compare(a.Country, b.Country), cmp.Compare(a.Category, b.Category), cmp.Compare(a.Date, b.Date))
}

func compareChunks(a, b seedengine.ChunkInfo) int {
	return cmp.Or(comparePartitions(a.Partition, b.Partition), cmp.Compare(a.Chunk, b.Chunk))
}
