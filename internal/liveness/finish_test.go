package liveness_test

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/blobstore"
	"github.com/seedengine/seedengine/internal/layout"
	"github.com/seedengine/seedengine/internal/liveness"
)

func memStore(t *testing.T) *blobstore.Store {
	t.Helper()
	s, err := blobstore.Open(t.Context(), "mem://")
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	return s
}

func putString(t *testing.T, s *blobstore.Store, key, body string) {
	t.Helper()
	_, err := s.Put(t.Context(), key, strings.NewReader(body), "application/x-ndjson")
	require.NoError(t, err)
}

func getString(t *testing.T, s *blobstore.Store, key string) string {
	t.Helper()
	rd, _, err := s.NewReader(t.Context(), key)
	require.NoError(t, err)
	defer rd.Close()
	b, err := io.ReadAll(rd)
	require.NoError(t, err)
	return string(b)
}

func listKeys(t *testing.T, s *blobstore.Store, prefix string) []string {
	t.Helper()
	var keys []string
	require.NoError(t, s.List(t.Context(), prefix, func(o blobstore.Object) error {
		keys = append(keys, o.Key)
		return nil
	}))
	return keys
}

func partKey(t *testing.T, batchID string, i int) string {
	t.Helper()
	k, err := layout.LivenessChunkKey("sg", "2026-01-28", batchID, i)
	require.NoError(t, err)
	return k
}

func TestFinisherMergesParts(t *testing.T) {
	t.Parallel()
	s := memStore(t)
	ctx := t.Context()
	b := &seedengine.Batch{ID: "batch-1", Kind: seedengine.BatchLiveness, Country: "sg",
		Params: []byte(`{"date":"2026-01-28"}`), CreatedAt: time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)}

	// Parts of chunks 0, 2 and 10 (chunk 1 wrote none), written out of
	// order; another batch's part and its merged file stay alone.
	putString(t, s, partKey(t, b.ID, 10), "{\"n\":10}\n")
	putString(t, s, partKey(t, b.ID, 0), "{\"n\":0}\n{\"n\":1}\n")
	putString(t, s, partKey(t, b.ID, 2), "{\"n\":2}") // no final newline
	other := partKey(t, "batch-10", 0)
	putString(t, s, other, "{\"other\":true}\n")

	fin := liveness.Finisher(s)
	require.NoError(t, fin(ctx, b))

	key, err := layout.LivenessKey("sg", "2026-01-28", b.ID)
	require.NoError(t, err)
	require.Equal(t, "{\"n\":0}\n{\"n\":1}\n{\"n\":2}\n{\"n\":10}\n", getString(t, s, key))
	require.ElementsMatch(t, []string{other, key}, listKeys(t, s, layout.LivenessRoot))

	// Idempotent: a second run changes nothing.
	require.NoError(t, fin(ctx, b))
	require.ElementsMatch(t, []string{other, key}, listKeys(t, s, layout.LivenessRoot))
	require.Equal(t, "{\"n\":0}\n{\"n\":1}\n{\"n\":2}\n{\"n\":10}\n", getString(t, s, key))

	// A run that stopped after the merge, with parts left over: they are
	// deleted, the merged file is kept as it is.
	putString(t, s, partKey(t, b.ID, 2), "{\"n\":2}\n")
	require.NoError(t, fin(ctx, b))
	require.ElementsMatch(t, []string{other, key}, listKeys(t, s, layout.LivenessRoot))
	require.Equal(t, "{\"n\":0}\n{\"n\":1}\n{\"n\":2}\n{\"n\":10}\n", getString(t, s, key))
}

func TestFinisherNoParts(t *testing.T) {
	t.Parallel()
	s := memStore(t)
	// The date defaults to the day the batch was created.
	b := &seedengine.Batch{ID: "batch-2", Kind: seedengine.BatchLiveness, Country: "sg",
		CreatedAt: time.Date(2026, 1, 28, 23, 0, 0, 0, time.UTC)}
	require.NoError(t, liveness.Finisher(s)(t.Context(), b))
	require.Empty(t, listKeys(t, s, layout.LivenessRoot), "a batch without parts gets no merged object")

	putString(t, s, partKey(t, b.ID, 0), "{}\n")
	require.NoError(t, liveness.Finisher(s)(t.Context(), b))
	key, err := layout.LivenessKey("sg", "2026-01-28", b.ID)
	require.NoError(t, err)
	require.Equal(t, []string{key}, listKeys(t, s, layout.LivenessRoot))
}

// failingReads is a store whose reads of one key fail part way.
type failingReads struct {
	*blobstore.Store
	key string
}

func (f failingReads) NewReader(ctx context.Context, key string) (io.ReadCloser, int64, error) {
	if key == f.key {
		return nil, 0, errors.New("read failed")
	}
	return f.Store.NewReader(ctx, key)
}

func TestFinisherFailedMergeLeavesParts(t *testing.T) {
	t.Parallel()
	s := memStore(t)
	b := &seedengine.Batch{ID: "batch-3", Kind: seedengine.BatchLiveness, Country: "sg", Params: []byte(`{"date":"2026-01-28"}`)}
	p0, p1 := partKey(t, b.ID, 0), partKey(t, b.ID, 1)
	putString(t, s, p0, "{\"n\":0}\n")
	putString(t, s, p1, "{\"n\":1}\n")

	err := liveness.Finisher(failingReads{Store: s, key: p1})(t.Context(), b)
	require.ErrorContains(t, err, "read failed")
	require.Equal(t, []string{p0, p1}, listKeys(t, s, layout.LivenessRoot), "nothing merged, nothing deleted")

	// The retry merges.
	require.NoError(t, liveness.Finisher(s)(t.Context(), b))
	key, err := layout.LivenessKey("sg", "2026-01-28", b.ID)
	require.NoError(t, err)
	require.Equal(t, "{\"n\":0}\n{\"n\":1}\n", getString(t, s, key))
	require.Equal(t, []string{key}, listKeys(t, s, layout.LivenessRoot))
}
