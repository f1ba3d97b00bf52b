package blobstore_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/blobstore"
)

// PutIfAbsent on S3 leaves out its HEAD for a small body once the server
// has shown it refuses a create-only upload of a key that exists, and
// keeps it for a large body and on a server that ignores If-None-Match.
func TestPutIfAbsentHeadOnlyWhereNeeded(t *testing.T) {
	t.Parallel()
	for _, ignores := range []bool{false, true} {
		t.Run(fmt.Sprintf("server ignores If-None-Match: %v", ignores), func(t *testing.T) {
			t.Parallel()
			ctx := t.Context()
			backend := s3mem.New()
			require.NoError(t, backend.CreateBucket(testBucket))
			fake := gofakes3.New(backend, gofakes3.WithLogger(gofakes3.DiscardLog())).Server()
			var heads atomic.Int64
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Method == http.MethodHead {
					heads.Add(1)
				}
				if ignores {
					r.Header.Del("If-None-Match")
				}
				fake.ServeHTTP(w, r)
			}))
			t.Cleanup(srv.Close)
			s := mustOpen(t, s3URL(srv.URL, testBucket, true))

			_, err := s.PutIfAbsent(ctx, "a", strings.NewReader("first"), "")
			require.NoError(t, err)
			_, err = s.PutIfAbsent(ctx, "a", strings.NewReader("second"), "")
			requireCode(t, err, seedengine.ECONFLICT)
			got := readAll(t, s, "a")
			require.Equal(t, "first", got, "the object is left alone")
			if ignores {
				require.EqualValues(t, 2, heads.Load(), "every create-only write asks first")
			} else {
				require.Zero(t, heads.Load(), "a small body on a server that honours the header needs no HEAD")
			}

			heads.Store(0)
			big := strings.Repeat("x", 2<<20)
			_, err = s.PutIfAbsent(ctx, "a", strings.NewReader(big), "")
			requireCode(t, err, seedengine.ECONFLICT)
			n, err := s.PutIfAbsent(ctx, "b", strings.NewReader(big), "")
			require.NoError(t, err)
			require.EqualValues(t, len(big), n)
			require.Equal(t, big, readAll(t, s, "b"))
			require.EqualValues(t, 2, heads.Load(), "a large body is asked for first")
		})
	}
}

func readAll(t *testing.T, s *blobstore.Store, key string) string {
	t.Helper()
	r, _, err := s.NewReader(t.Context(), key)
	require.NoError(t, err)
	defer func() { _ = r.Close() }()
	b, err := io.ReadAll(r)
	require.NoError(t, err)
	return string(b)
}
