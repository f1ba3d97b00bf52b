package dataset

import (
	"context"
	"io"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/blobstore"
)

// Objects adapts a *blobstore.Store to seedengine.ObjectStore, whose
// NewReader and List speak root types rather than blobstore's, so the
// service depends on the interface and tests can substitute any store.
func Objects(s *blobstore.Store) seedengine.ObjectStore { return objects{s} }

type objects struct{ s *blobstore.Store }

func (o objects) Put(ctx context.Context, key string, r io.Reader, contentType string) (int64, error) {
	return o.s.Put(ctx, key, r, contentType)
}

func (o objects) PutIfAbsent(ctx context.Context, key string, r io.Reader, contentType string) (int64, error) {
	return o.s.PutIfAbsent(ctx, key, r, contentType)
}

func (o objects) NewReader(ctx context.Context, key string) (io.ReadCloser, int64, error) {
	rc, attrs, err := o.s.NewReader(ctx, key)
	if err != nil {
		return nil, 0, err
	}
	return rc, attrs.Size, nil
}

func (o objects) Exists(ctx context.Context, key string) (bool, error) { return o.s.Exists(ctx, key) }

func (o objects) Delete(ctx context.Context, key string) error { return o.s.Delete(ctx, key) }

func (o objects) List(ctx context.Context, prefix string, fn func(seedengine.Object) error) error {
	return o.s.List(ctx, prefix, func(obj blobstore.Object) error {
		return fn(seedengine.Object{Key: obj.Key, Size: obj.Size, ModTime: obj.ModTime})
	})
}
