package seedengine

import (
	"context"
	"io"
	"time"
)

// Object is one object of the object store as listed.
type Object struct {
	Key     string
	Size    int64
	ModTime time.Time
}

// ObjectStore is the object store of raw datasets, prod outputs and
// evidence, with keys as built by internal/blobstore.
type ObjectStore interface {
	// Put writes an object, replacing any object at key, streaming r.
	Put(ctx context.Context, key string, r io.Reader, contentType string) (int64, error)
	// PutIfAbsent writes an object only if key is free; ECONFLICT when it
	// is taken. Atomic where the driver allows.
	PutIfAbsent(ctx context.Context, key string, r io.Reader, contentType string) (int64, error)
	// NewReader opens an object for streaming. ENOTFOUND when missing.
	NewReader(ctx context.Context, key string) (io.ReadCloser, int64, error)
	// Exists reports whether an object exists.
	Exists(ctx context.Context, key string) (bool, error)
	// Delete removes an object. ENOTFOUND when missing.
	Delete(ctx context.Context, key string) error
	// List calls fn for every object under prefix in key order, paging
	// through the store; an error from fn stops the listing and is
	// returned.
	List(ctx context.Context, prefix string, fn func(Object) error) error
}
