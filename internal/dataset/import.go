package dataset

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/layout"
)

// ImportChunk stores the dataset read from r as chunk n of p, byte for
// byte, unless chunk n is taken: ECONFLICT then, and the stored chunk is
// left alone. It is how raw files made elsewhere enter the store at the
// numbers they already have (seedengine upload), where a save takes the
// next free number.
//
// The dataset is validated against p as it streams to the store, so
// nothing is staged and an invalid one stores nothing (EINVALID naming the
// field). The stored chunk is indexed with origin and records, not yet
// completed (no seed file processor has handled it); an error indexing it
// is returned, with the chunk stored.
func (s *Service) ImportChunk(ctx context.Context, p seedengine.Partition, n int, origin string, r io.Reader) (seedengine.ChunkInfo, error) {
	if err := p.Validate(); err != nil {
		return seedengine.ChunkInfo{}, err
	}
	key, err := layout.RawChunkKey(p, n)
	if err != nil {
		return seedengine.ChunkInfo{}, err
	}
	name, _ := layout.ChunkName(n)

	// The validator reads r and hands every byte it read to the store
	// through the pipe; its verdict closes the pipe, so an invalid dataset
	// fails the store's read and nothing is stored.
	pr, pw := io.Pipe()
	type verdict struct {
		records int
		err     error
	}
	done := make(chan verdict, 1)
	go func() {
		_, records, err := seedengine.ValidateDataset(io.TeeReader(r, pw), p)
		pw.CloseWithError(err) // nil: EOF, the store commits
		done <- verdict{records, err}
	}()
	size, err := s.store.PutIfAbsent(ctx, key, pr, ContentType)
	// A store that stopped reading (a conflict, an outage) stops the
	// validator at its next write.
	pr.CloseWithError(errAbandoned)
	v := <-done
	if v.err != nil && !errors.Is(v.err, errAbandoned) {
		return seedengine.ChunkInfo{}, v.err
	}
	if err != nil {
		return seedengine.ChunkInfo{}, fmt.Errorf("import %s: %w", key, err)
	}
	info := seedengine.ChunkInfo{
		Partition: p, Chunk: n, Name: name, Key: key, Bytes: size,
		Records: v.records, Origin: origin, ModTime: s.now(),
	}
	if err := s.index.IndexChunk(ctx, info); err != nil {
		return info, fmt.Errorf("index %s: %w", key, err)
	}
	s.logger.InfoContext(ctx, "dataset chunk imported", "event", "dataset_chunk_imported",
		"key", key, "bytes", size, "records", v.records)
	return info, nil
}
