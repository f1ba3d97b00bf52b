package liveness

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/layout"
)

// ObjectStore is what Finisher needs of the object store; any
// seedengine.ObjectStore is one.
type ObjectStore interface {
	ObjectWriter
	NewReader(ctx context.Context, key string) (io.ReadCloser, int64, error)
	Exists(ctx context.Context, key string) (bool, error)
	Delete(ctx context.Context, key string) error
	List(ctx context.Context, prefix string, fn func(seedengine.Object) error) error
}

// Finisher returns the finisher of liveness batches, to register with the
// queue for seedengine.BatchLiveness: once the batch has finished, it
// merges the JSONL parts its chunks wrote (layout.LivenessChunkKey) in
// chunk order into one object at layout.LivenessKey, streaming them
// through a pipe rather than buffering the file, then deletes the parts.
//
// It is safe to run again at any point. Put replaces the merged object
// whole, and it is written only while no merged object exists, so every
// part is still there; once it exists, a run only deletes the parts left
// over by an earlier run that stopped half way. A batch that wrote no part
// (every item invalid) gets no merged object.
func Finisher(store ObjectStore) func(ctx context.Context, b *seedengine.Batch) error {
	return func(ctx context.Context, b *seedengine.Batch) error {
		date, err := batchDate(b)
		if err != nil {
			return err
		}
		key, err := layout.LivenessKey(b.Country, date, b.ID)
		if err != nil {
			return fmt.Errorf("liveness batch %s: %w", b.ID, err)
		}
		parts, err := listParts(ctx, store, b.Country, date, b.ID)
		if err != nil {
			return fmt.Errorf("liveness batch %s: list parts: %w", b.ID, err)
		}
		merged, err := store.Exists(ctx, key)
		if err != nil {
			return fmt.Errorf("liveness batch %s: %w", b.ID, err)
		}
		if !merged && len(parts) > 0 {
			if err := mergeParts(ctx, store, key, parts); err != nil {
				return fmt.Errorf("liveness batch %s: merge %d parts into %s: %w", b.ID, len(parts), key, err)
			}
		}
		for _, p := range parts {
			if err := store.Delete(ctx, p); err != nil && seedengine.ErrorCode(err) != seedengine.ENOTFOUND {
				return fmt.Errorf("liveness batch %s: delete part: %w", b.ID, err)
			}
		}
		return nil
	}
}

// batchDate is the date of a liveness batch's partition: its params' date,
// or the day it was created.
func batchDate(b *seedengine.Batch) (string, error) {
	var params seedengine.LivenessBatchParams
	if len(b.Params) > 0 {
		if err := json.Unmarshal(b.Params, &params); err != nil {
			return "", seedengine.Errorf(seedengine.EINVALID, "liveness batch %s: params are not valid: %v", b.ID, err)
		}
	}
	if params.Date == "" {
		params.Date = b.CreatedAt.UTC().Format("2006-01-02")
	}
	return params.Date, nil
}

// listParts returns the keys of the batch's parts in chunk order.
func listParts(ctx context.Context, store ObjectStore, country, date, batchID string) ([]string, error) {
	prefix, err := layout.LivenessPrefix(country, date)
	if err != nil {
		return nil, err
	}
	type part struct {
		key   string
		chunk int
	}
	var parts []part
	err = store.List(ctx, prefix+batchID+".", func(o seedengine.Object) error {
		k, err := layout.ParseKey(o.Key)
		if err == nil && k.Kind == layout.KindLivenessChunk && k.BatchID == batchID {
			parts = append(parts, part{o.Key, k.Chunk})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	slices.SortFunc(parts, func(a, b part) int { return cmp.Compare(a.chunk, b.chunk) })
	keys := make([]string, len(parts))
	for i, p := range parts {
		keys[i] = p.key
	}
	return keys, nil
}

// mergeParts streams parts, in order, into one object at key. A part not
// ending in a newline gets one, so lines never run together.
func mergeParts(ctx context.Context, store ObjectStore, key string, parts []string) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	pr, pw := io.Pipe()
	done := make(chan struct{})
	go func() {
		defer close(done)
		pw.CloseWithError(copyParts(ctx, store, pw, parts))
	}()
	_, err := store.Put(ctx, key, pr, "application/x-ndjson")
	// Unblock the writer if Put returned before reading everything.
	pr.CloseWithError(io.ErrClosedPipe)
	cancel()
	<-done
	return err
}

func copyParts(ctx context.Context, store ObjectStore, w io.Writer, parts []string) error {
	for _, p := range parts {
		rd, _, err := store.NewReader(ctx, p)
		if err != nil {
			return err
		}
		lw := &lastByteWriter{w: w}
		_, err = io.Copy(lw, rd)
		if cerr := rd.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("read %s: %w", p, err)
		}
		if lw.n > 0 && lw.last != '\n' {
			if _, err := io.WriteString(w, "\n"); err != nil {
				return err
			}
		}
	}
	return nil
}

// lastByteWriter remembers the last byte written through it.
type lastByteWriter struct {
	w    io.Writer
	n    int64
	last byte
}

func (l *lastByteWriter) Write(p []byte) (int, error) {
	n, err := l.w.Write(p)
	if n > 0 {
		l.n += int64(n)
		l.last = p[n-1]
	}
	return n, err
}
