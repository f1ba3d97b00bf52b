package blobstore_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
	"github.com/stretchr/testify/require"
	"gocloud.dev/blob"
	"gocloud.dev/blob/s3blob"
	"gocloud.dev/gcerrors"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/blobstore"
	"github.com/seedengine/seedengine/internal/layout"
)

const testBucket = "seedengine-test"

// env is a fresh, empty store of one driver for one test.
type env struct {
	driver string
	s      *blobstore.Store
	// seed stores an object behind the Store's back: a plain file, or a
	// direct write to the S3 server's backend. It skips fsync and HTTP, so
	// tests about reading and listing can set up thousands of objects fast.
	seed func(key, content string) error
}

var drivers = map[string]func(t *testing.T) env{
	"file": func(t *testing.T) env {
		dir := t.TempDir()
		return env{"file", mustOpen(t, fileURL(dir)), func(key, content string) error {
			p := filepath.Join(dir, filepath.FromSlash(key))
			if err := os.MkdirAll(filepath.Dir(p), 0o777); err != nil {
				return err
			}
			return os.WriteFile(p, []byte(content), 0o666)
		}}
	},
	"mem": func(t *testing.T) env {
		s := mustOpen(t, "mem://")
		return env{"mem", s, func(key, content string) error {
			_, err := s.Put(context.Background(), key, strings.NewReader(content), "")
			return err
		}}
	},
	"s3": func(t *testing.T) env {
		endpoint, backend := newS3Server(t, testBucket)
		return env{"s3", mustOpen(t, s3URL(endpoint, testBucket, true)), func(key, content string) error {
			_, err := backend.PutObject(testBucket, key, map[string]string{"Content-Type": "text/plain"},
				strings.NewReader(content), int64(len(content)), nil)
			return err
		}}
	},
}

// forEachDriver runs test as a parallel subtest against every driver, each
// with its own store, so the drivers are held to one behaviour.

var sgNews = seedengine.Partition{Country: "sg", Category: "news", Date: "2026-01-28"}

func forEachDriver(t *testing.T, test func(t *testing.T, e env)) {
	t.Helper()
	for _, name := range []string{"file", "mem", "s3"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			test(t, drivers[name](t))
		})
	}
}

func mustOpen(t *testing.T, u string) *blobstore.Store {
	t.Helper()
	s, err := blobstore.Open(t.Context(), u)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, s.Close()) })
	return s
}

func fileURL(dir string) string {
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(dir)}).String()
}

// newS3Server starts an in-process S3 server on loopback with the given
// buckets and returns its endpoint and storage.
func newS3Server(t *testing.T, buckets ...string) (string, *s3mem.Backend) {
	t.Helper()
	backend := s3mem.New()
	for _, b := range buckets {
		require.NoError(t, backend.CreateBucket(b))
	}
	srv := httptest.NewServer(gofakes3.New(backend, gofakes3.WithLogger(gofakes3.DiscardLog())).Server())
	t.Cleanup(srv.Close)
	return srv.URL, backend
}

// s3URL uses anonymous credentials unless told otherwise, so parallel tests
// need no environment and the SDK never looks for credentials elsewhere.
func s3URL(endpoint, bucket string, anonymous bool) string {
	q := url.Values{"endpoint": {endpoint}, "use_path_style": {"true"}, "region": {"us-east-1"},
		// gofakes3 sends no response checksums; without this the SDK logs a
		// warning on every read.
		"response_checksum_validation": {"when_required"}}
	if anonymous {
		q.Set("anonymous", "true")
	}
	return "s3://" + bucket + "?" + q.Encode()
}

func put(t *testing.T, s *blobstore.Store, key, content string) {
	t.Helper()
	n, err := s.Put(t.Context(), key, strings.NewReader(content), "text/plain")
	require.NoError(t, err)
	require.EqualValues(t, len(content), n)
}

func get(t *testing.T, s *blobstore.Store, key string) string {
	t.Helper()
	r, _, err := s.NewReader(t.Context(), key)
	require.NoError(t, err)
	defer r.Close()
	b, err := io.ReadAll(r)
	require.NoError(t, err)
	return string(b)
}

func listKeys(t *testing.T, s *blobstore.Store, prefix string) []string {
	t.Helper()
	keys := []string{}
	require.NoError(t, s.List(t.Context(), prefix, func(o blobstore.Object) error {
		keys = append(keys, o.Key)
		return nil
	}))
	return keys
}

func TestPutGet(t *testing.T) {
	t.Parallel()
	forEachDriver(t, func(t *testing.T, e env) {
		s := e.s
		ctx := t.Context()
		key, err := layout.RawChunkKey(sgNews, 1)
		require.NoError(t, err)
		body := `{"meta":{"dataset_id":"sg-news-2026-01-28-0001"},"records":[]}`
		before := time.Now().Add(-time.Minute)

		n, err := s.Put(ctx, key, strings.NewReader(body), "application/json")
		require.NoError(t, err)
		require.EqualValues(t, len(body), n)

		r, size, err := s.NewReader(ctx, key)
		require.NoError(t, err)
		got, err := io.ReadAll(r)
		require.NoError(t, err)
		require.NoError(t, r.Close())
		require.Equal(t, body, string(got))
		require.EqualValues(t, len(body), size)

		a, err := s.Attributes(ctx, key)
		require.NoError(t, err)
		require.EqualValues(t, len(body), a.Size)
		require.True(t, a.ModTime.After(before), "mod time %v", a.ModTime)
		if e.driver == "file" {
			require.Equal(t, blobstore.DefaultContentType, a.ContentType, "the file driver keeps no sidecar metadata")
		} else {
			require.Equal(t, "application/json", a.ContentType)
		}

		ok, err := s.Exists(ctx, key)
		require.NoError(t, err)
		require.True(t, ok)

		// Put replaces.
		put(t, s, key, "second")
		require.Equal(t, "second", get(t, s, key))

		// A checkpoint is empty; no content type falls back to the default.
		n, err = s.Put(ctx, key+layout.SuccessSuffix, bytes.NewReader(nil), "")
		require.NoError(t, err)
		require.Zero(t, n)
		a, err = s.Attributes(ctx, key+layout.SuccessSuffix)
		require.NoError(t, err)
		require.Zero(t, a.Size)
		require.Equal(t, blobstore.DefaultContentType, a.ContentType)
	})
}

// patternReader yields size deterministic pseudo-random bytes without
// holding them, so a large object is generated, not allocated.
func patternReader(seed uint64, size int64) io.Reader {
	var key [32]byte
	key[0] = byte(seed)
	return io.LimitReader(rand.NewChaCha8(key), size)
}

func TestLargeObjectStreams(t *testing.T) {
	t.Parallel()
	const size = 25 << 20
	forEachDriver(t, func(t *testing.T, e env) {
		s := e.s
		ctx := t.Context()
		const key = "large/raw_0001.json"
		sent := sha256.New()
		n, err := s.Put(ctx, key, io.TeeReader(patternReader(1, size), sent), "application/json")
		require.NoError(t, err)
		require.EqualValues(t, size, n)

		r, stored, err := s.NewReader(ctx, key)
		require.NoError(t, err)
		defer r.Close()
		require.EqualValues(t, size, stored)
		got := sha256.New()
		m, err := io.Copy(got, r)
		require.NoError(t, err)
		require.EqualValues(t, size, m)
		require.Equal(t, sent.Sum(nil), got.Sum(nil))
	})
}

func TestPutIfAbsent(t *testing.T) {
	t.Parallel()
	forEachDriver(t, func(t *testing.T, e env) {
		s := e.s
		ctx := t.Context()
		key, err := layout.RawChunkKey(sgNews, 7)
		require.NoError(t, err)

		n, err := s.PutIfAbsent(ctx, key, strings.NewReader("first"), "application/json")
		require.NoError(t, err)
		require.EqualValues(t, 5, n)

		n, err = s.PutIfAbsent(ctx, key, strings.NewReader("second"), "application/json")
		requireCode(t, err, seedengine.ECONFLICT)
		require.Zero(t, n)
		require.Equal(t, "first", get(t, s, key))

		require.NoError(t, s.Delete(ctx, key))
		_, err = s.PutIfAbsent(ctx, key, strings.NewReader("third"), "")
		require.NoError(t, err)
		require.Equal(t, "third", get(t, s, key))
	})
}

// TestPutIfAbsentRace has writers race for one key many times: exactly one
// may win each round and its content must be what is stored. Bodies are
// small, so on S3 each is one PutObject with If-None-Match, which gofakes3
// checks under its lock. 100 rounds of 16 caught fileblob's own IfNotExist
// letting two writers win in most runs; S3 gets fewer because each try is
// an HTTP request.
func TestPutIfAbsentRace(t *testing.T) {
	t.Parallel()
	forEachDriver(t, func(t *testing.T, e env) {
		s := e.s
		ctx := t.Context()
		rounds, writers := 100, 16
		if e.driver == "s3" {
			rounds, writers = 20, 8
		}
		for round := range rounds {
			key := fmt.Sprintf("race/%03d/raw_0001.json", round)
			errs := make([]error, writers)
			var wg sync.WaitGroup
			start := make(chan struct{})
			for w := range writers {
				wg.Go(func() {
					<-start
					_, errs[w] = s.PutIfAbsent(ctx, key, strings.NewReader(fmt.Sprintf("writer %d", w)), "text/plain")
				})
			}
			close(start)
			wg.Wait()
			winner := -1
			for w, err := range errs {
				if err == nil {
					require.Equal(t, -1, winner, "round %d: writers %d and %d both won", round, winner, w)
					winner = w
					continue
				}
				requireCode(t, err, seedengine.ECONFLICT)
			}
			require.NotEqual(t, -1, winner, "round %d: nobody won", round)
			require.Equal(t, fmt.Sprintf("writer %d", winner), get(t, s, key))
		}
	})
}

func TestNotFound(t *testing.T) {
	t.Parallel()
	forEachDriver(t, func(t *testing.T, e env) {
		s := e.s
		ctx := t.Context()
		put(t, s, "dir/present", "x")
		for _, key := range []string{"missing", "dir/missing", "dir"} {
			_, _, err := s.NewReader(ctx, key)
			requireCode(t, err, seedengine.ENOTFOUND)
			require.Contains(t, err.Error(), key)
			_, err = s.Attributes(ctx, key)
			requireCode(t, err, seedengine.ENOTFOUND)
			requireCode(t, s.Delete(ctx, key), seedengine.ENOTFOUND)
			ok, err := s.Exists(ctx, key)
			require.NoError(t, err)
			require.False(t, ok)
		}
	})
}

func TestDelete(t *testing.T) {
	t.Parallel()
	forEachDriver(t, func(t *testing.T, e env) {
		s := e.s
		ctx := t.Context()
		put(t, s, "a/b/one", "1")
		put(t, s, "a/b/two", "2")
		require.NoError(t, s.Delete(ctx, "a/b/one"))
		ok, err := s.Exists(ctx, "a/b/one")
		require.NoError(t, err)
		require.False(t, ok)
		require.Equal(t, []string{"a/b/two"}, listKeys(t, s, "a/"))
		requireCode(t, s.Delete(ctx, "a/b/one"), seedengine.ENOTFOUND)

		// Once its last object is gone a "directory" is gone, as on S3,
		// although the file driver leaves the empty directory behind.
		require.NoError(t, s.Delete(ctx, "a/b/two"))
		dirs, err := s.ListDirs(ctx, "a/")
		require.NoError(t, err)
		require.Empty(t, dirs)
		require.Empty(t, listKeys(t, s, ""))
	})
}

// TestListPaging lists more keys than fit in one page, plus siblings where a
// directory name is a prefix of another name, the case that made fileblob's
// own listing lose keys.
func TestListPaging(t *testing.T) {
	t.Parallel()
	const n = 2500
	forEachDriver(t, func(t *testing.T, e env) {
		s := e.s
		ctx := t.Context()
		want := make([]string, 0, n+8)
		for i := range n {
			// Spread over directories on purpose, in an order that is not
			// key order, so neither write order nor one flat directory can
			// make the listing look sorted.
			want = append(want, fmt.Sprintf("list/%02d/k%04d", (i*7)%25, i))
		}
		for _, dom := range []string{"abc.com", "abc.com.au", "abc.com-x", "abc.co"} {
			want = append(want, "list/zz/"+dom+"/robots.txt", "list/zz/"+dom+"/sitemap.xml")
		}
		want = append(want, "list/zz/abc.com!", "list/zz/abc.comz")
		seedAll(t, e, want)
		slices.Sort(want)

		require.Equal(t, want, listKeys(t, s, "list/"))
		require.Equal(t, want, listKeys(t, s, ""))
		require.Equal(t, want, listKeys(t, s, "lis"))

		var sub []string
		for _, k := range want {
			if strings.HasPrefix(k, "list/zz/abc.com") {
				sub = append(sub, k)
			}
		}
		require.Len(t, sub, 8)
		require.Equal(t, sub, listKeys(t, s, "list/zz/abc.com"))
		require.Empty(t, listKeys(t, s, "list/nothing/"))
		require.Empty(t, listKeys(t, s, "list/00/k0000/")) // a key, not a directory

		// Sizes and times come with the listing.
		require.NoError(t, s.List(ctx, "list/00/", func(o blobstore.Object) error {
			require.EqualValues(t, len(o.Key), o.Size)
			require.False(t, o.ModTime.IsZero())
			return nil
		}))

		// An error from fn stops the listing and comes back unchanged.
		stop := errors.New("stop")
		calls := 0
		err := s.List(ctx, "list/", func(blobstore.Object) error {
			calls++
			if calls == 1500 {
				return stop
			}
			return nil
		})
		require.ErrorIs(t, err, stop)
		require.Same(t, stop, err)
		require.Equal(t, 1500, calls)
	})
}

// seedAll stores each key with its own name as content, several at a time.
func seedAll(t *testing.T, e env, keys []string) {
	t.Helper()
	work := make(chan string)
	errs := make(chan error, 16)
	var wg sync.WaitGroup
	for range cap(errs) {
		wg.Go(func() {
			for k := range work {
				if err := e.seed(k, k); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	for _, k := range keys {
		work <- k
	}
	close(work)
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
}

func TestListDirs(t *testing.T) {
	t.Parallel()
	forEachDriver(t, func(t *testing.T, e env) {
		s := e.s
		ctx := t.Context()
		parts := []seedengine.Partition{
			sgNews,
			{Country: "sg", Category: "policy", Date: "2026-01-28"},
			{Country: "sg", Category: "news", Date: "2026-01-29"},
			{Country: "my", Category: "news", Date: "2026-01-28"},
		}
		for _, p := range parts {
			key, err := layout.RawChunkKey(p, 1)
			require.NoError(t, err)
			put(t, s, key, "{}")
		}
		put(t, s, "raw/README", "a file, not a directory")

		tests := []struct {
			prefix string
			want   []string
		}{
			{"", []string{"raw/"}},
			{"raw/", []string{"raw/country=my/", "raw/country=sg/"}},
			{"raw/country=sg/", []string{"raw/country=sg/category=news/", "raw/country=sg/category=policy/"}},
			{"raw/country=sg/category=news/", []string{"raw/country=sg/category=news/date=2026-01-28/", "raw/country=sg/category=news/date=2026-01-29/"}},
			{"raw/country=s", []string{"raw/country=sg/"}},
			{"raw/country=sg/category=news/date=2026-01-28/", nil},
			{"raw/country=xx/", nil},
			{"nothing/", nil},
		}
		for _, tt := range tests {
			got, err := s.ListDirs(ctx, tt.prefix)
			require.NoError(t, err)
			require.Equal(t, tt.want, got, "prefix %q", tt.prefix)
		}
	})
}

func TestCheck(t *testing.T) {
	t.Parallel()
	forEachDriver(t, func(t *testing.T, e env) {
		s := e.s
		require.NoError(t, s.Check(t.Context()))
	})

	t.Run("file directory removed", func(t *testing.T) {
		t.Parallel()
		dir := filepath.Join(t.TempDir(), "blobs")
		s := mustOpen(t, fileURL(dir))
		require.NoError(t, os.RemoveAll(dir))
		requireCode(t, s.Check(t.Context()), seedengine.EUNAVAILABLE)
	})
	t.Run("s3 bucket missing", func(t *testing.T) {
		t.Parallel()
		endpoint, _ := newS3Server(t)
		s := mustOpen(t, s3URL(endpoint, "absent", true))
		requireCode(t, s.Check(t.Context()), seedengine.EUNAVAILABLE)
	})
	t.Run("s3 server down", func(t *testing.T) {
		t.Parallel()
		srv := httptest.NewServer(nil)
		endpoint := srv.URL
		srv.Close()
		s := mustOpen(t, s3URL(endpoint, testBucket, true))
		ctx, cancel := context.WithTimeout(t.Context(), time.Second)
		defer cancel()
		err := s.Check(ctx)
		requireCode(t, err, seedengine.EUNAVAILABLE)
		require.Equal(t, "object store is not available", seedengine.ErrorMessage(err))
	})
}

func TestOpenRejects(t *testing.T) {
	t.Parallel()
	file := t.TempDir()
	if err := os.WriteFile(filepath.Join(file, "f"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, u := range []string{
		"",
		"gs://bucket",
		"azblob://container",
		"http://127.0.0.1:9000/bucket",
		"/var/lib/blobs",
		"relative/dir",
		"::not a url",
		"file://relative/dir",
		"file:relative",
		"file:///" + strings.TrimPrefix(filepath.ToSlash(file), "/") + "?metadata=skip",
		"file:///" + strings.TrimPrefix(filepath.ToSlash(file), "/") + "/f", // a file, not a directory
		"mem://?x=1",
		"s3://",
		"s3:///bucket",
		"s3://bucket/prefix",
		"s3://key:secret@bucket",
		"s3://bucket?unknown=1",
		"s3://bucket?use_path_style=maybe",
	} {
		s, err := blobstore.Open(t.Context(), u)
		require.Nil(t, s, u)
		requireCode(t, err, seedengine.EINVALID)
		require.Equal(t, blobstore.URLField, seedengine.ErrorField(err), u)
		require.NotContains(t, seedengine.ErrorMessage(err), "secret", u)
	}
}

func TestOpenFileCreatesDirectory(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "a", "b")
	s := mustOpen(t, fileURL(dir))
	put(t, s, "k", "v")
	b, err := os.ReadFile(filepath.Join(dir, "k"))
	require.NoError(t, err)
	require.Equal(t, "v", string(b))
}

// TestBadKeys checks that no key reaches outside the store or means
// different objects on different drivers.
func TestBadKeys(t *testing.T) {
	t.Parallel()
	bad := []string{
		"", "/abs", "../escape", "a/../../escape", "a/./b", "a//b", "a/", ".", "..",
		`a\b`, "a:b", "a*b", "a\x00b", "a\nb", "\xff", "a/__0x2f__/b", "x.attrs",
		".seedengine-tmp/x", strings.Repeat("a", 1025), strings.Repeat("a", 256) + "/b",
	}
	forEachDriver(t, func(t *testing.T, e env) {
		s := e.s
		ctx := t.Context()
		for _, key := range bad {
			_, err := s.Put(ctx, key, strings.NewReader("x"), "")
			requireCode(t, err, seedengine.EINVALID)
			require.Equal(t, "key", seedengine.ErrorField(err), "%q", key)
			_, err = s.PutIfAbsent(ctx, key, strings.NewReader("x"), "")
			requireCode(t, err, seedengine.EINVALID)
			_, _, err = s.NewReader(ctx, key)
			requireCode(t, err, seedengine.EINVALID)
			_, err = s.Attributes(ctx, key)
			requireCode(t, err, seedengine.EINVALID)
			_, err = s.Exists(ctx, key)
			requireCode(t, err, seedengine.EINVALID)
			requireCode(t, s.Delete(ctx, key), seedengine.EINVALID)
		}
		for _, prefix := range []string{"/abs", "../", "a/../b", "a//", "\xff", "a\x00", ".seedengine-tmp/"} {
			requireCode(t, s.List(ctx, prefix, func(blobstore.Object) error { return nil }), seedengine.EINVALID)
			_, err := s.ListDirs(ctx, prefix)
			requireCode(t, err, seedengine.EINVALID)
		}
		_, err := s.Put(ctx, "ok", strings.NewReader("x"), "not a media type;;")
		requireCode(t, err, seedengine.EINVALID)
		require.Equal(t, "content_type", seedengine.ErrorField(err))
		require.Empty(t, listKeys(t, s, ""), "nothing may have been stored")
	})
}

func TestCanceledWrite(t *testing.T) {
	t.Parallel()
	forEachDriver(t, func(t *testing.T, e env) {
		s := e.s
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		_, err := s.Put(ctx, "canceled", patternReader(2, 1<<20), "")
		require.ErrorIs(t, err, context.Canceled)
		_, err = s.PutIfAbsent(ctx, "canceled", patternReader(2, 1<<20), "")
		require.ErrorIs(t, err, context.Canceled)
		ok, err := s.Exists(t.Context(), "canceled")
		require.NoError(t, err)
		require.False(t, ok)
	})
}

// failingReader yields n bytes and then fails, like a dropped upload.
type failingReader struct{ n int }

var errSource = errors.New("source failed")

func (f *failingReader) Read(p []byte) (int, error) {
	if f.n == 0 {
		return 0, errSource
	}
	m := min(len(p), f.n)
	clear(p[:m])
	f.n -= m
	return m, nil
}

func TestFailedSourceStoresNothing(t *testing.T) {
	t.Parallel()
	forEachDriver(t, func(t *testing.T, e env) {
		s := e.s
		ctx := t.Context()
		_, err := s.Put(ctx, "partial", &failingReader{n: 100_000}, "")
		require.ErrorIs(t, err, errSource)
		_, err = s.PutIfAbsent(ctx, "partial", &failingReader{n: 100_000}, "")
		require.ErrorIs(t, err, errSource)
		ok, err := s.Exists(ctx, "partial")
		require.NoError(t, err)
		require.False(t, ok, "a failed write must not leave a partial object")

		// A failed replacement keeps the old object.
		put(t, s, "kept", "old")
		_, err = s.Put(ctx, "kept", &failingReader{n: 10}, "")
		require.ErrorIs(t, err, errSource)
		require.Equal(t, "old", get(t, s, "kept"))
	})
}

// TestFileLayout checks what the file driver leaves on disk: plain files at
// their key paths, no .attrs sidecars, no staging files once writes are
// done, and files dropped in by hand listed but not taken for chunks.
func TestFileLayout(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := mustOpen(t, fileURL(dir))
	key, err := layout.RawChunkKey(sgNews, 1)
	require.NoError(t, err)
	put(t, s, key, "{}")
	_, err = s.PutIfAbsent(t.Context(), key+layout.SuccessSuffix, bytes.NewReader(nil), "")
	require.NoError(t, err)
	_, err = s.PutIfAbsent(t.Context(), key, strings.NewReader("again"), "")
	requireCode(t, err, seedengine.ECONFLICT)

	prefix, err := layout.PartitionPrefix(sgNews)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, filepath.FromSlash(prefix), ".DS_Store"), []byte("x"), 0o600))

	var files []string
	require.NoError(t, filepath.WalkDir(dir, func(p string, e os.DirEntry, err error) error {
		if err == nil && !e.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			files = append(files, filepath.ToSlash(rel))
		}
		return err
	}))
	require.ElementsMatch(t, []string{key, key + layout.SuccessSuffix, prefix + ".DS_Store"}, files)

	var chunks []int
	for _, k := range listKeys(t, s, prefix) {
		pk, err := layout.ParseKey(k)
		if err != nil || pk.Kind != layout.KindRawChunk {
			continue
		}
		chunks = append(chunks, pk.Chunk)
	}
	require.Equal(t, []int{1}, chunks)
	require.Len(t, listKeys(t, s, prefix), 3)
}

func TestFileRemovesStaleStagingFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := mustOpen(t, fileURL(dir))
	put(t, s, "k", "v")
	staging := filepath.Join(dir, ".seedengine-tmp")
	stale, fresh := filepath.Join(staging, "put-stale.tmp"), filepath.Join(staging, "put-fresh.tmp")
	require.NoError(t, os.WriteFile(stale, []byte("left by a crash"), 0o600))
	require.NoError(t, os.WriteFile(fresh, []byte("another process is writing"), 0o600))
	old := time.Now().Add(-48 * time.Hour)
	require.NoError(t, os.Chtimes(stale, old, old))

	require.Equal(t, []string{"k"}, listKeys(t, s, ""), "staging files are never listed")
	dirs, err := s.ListDirs(t.Context(), "")
	require.NoError(t, err)
	require.Empty(t, dirs)

	mustOpen(t, fileURL(dir))
	require.NoFileExists(t, stale)
	require.FileExists(t, fresh)
}

// TestS3CredentialsFromEnvironment opens S3 the way production does, with
// signed requests and credentials from the AWS environment variables.
// t.Setenv rules out t.Parallel here.
func TestS3CredentialsFromEnvironment(t *testing.T) {
	t.Setenv("AWS_ACCESS_KEY_ID", "seedengine-test")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "seedengine-test-secret")
	t.Setenv("AWS_REGION", "us-east-1")
	t.Setenv("AWS_CONFIG_FILE", filepath.Join(t.TempDir(), "none"))
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", filepath.Join(t.TempDir(), "none"))
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")

	endpoint, _ := newS3Server(t, testBucket)
	q := url.Values{"endpoint": {endpoint}, "use_path_style": {"true"}, "response_checksum_validation": {"when_required"}}
	s := mustOpen(t, "s3://"+testBucket+"?"+q.Encode())
	require.NoError(t, s.Check(t.Context()))
	put(t, s, "signed", "v")
	require.Equal(t, "v", get(t, s, "signed"))
}

// TestGofakes3ConditionalWrites pins what the S3 test server does with
// If-None-Match, which the PutIfAbsent documentation relies on: honoured on
// a single-request upload, ignored when a multipart upload completes. It
// talks to gocloud directly because PutIfAbsent's HEAD would hide the
// difference.
func TestGofakes3ConditionalWrites(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	endpoint, _ := newS3Server(t, testBucket)
	u, err := url.Parse(s3URL(endpoint, testBucket, true))
	require.NoError(t, err)
	b, err := new(s3blob.URLOpener).OpenBucketURL(ctx, u)
	require.NoError(t, err)
	defer b.Close()
	opts := &blob.WriterOptions{ContentType: "application/octet-stream", IfNotExist: true}

	require.NoError(t, b.Upload(ctx, "small", strings.NewReader("first"), opts))
	err = b.Upload(ctx, "small", strings.NewReader("second"), opts)
	require.Equal(t, gcerrors.FailedPrecondition, gcerrors.Code(err), "error: %v", err)

	const large = 17 << 20 // over the SDK's 16 MiB multipart threshold
	require.NoError(t, b.Upload(ctx, "large", patternReader(3, large), opts))
	require.NoError(t, b.Upload(ctx, "large", patternReader(4, large), opts),
		"gofakes3 now honours If-None-Match on multipart uploads: update the PutIfAbsent documentation")

	// Without a race, PutIfAbsent's HEAD still refuses the large object.
	s := mustOpen(t, u.String())
	_, err = s.PutIfAbsent(ctx, "large", patternReader(5, large), "")
	requireCode(t, err, seedengine.ECONFLICT)
}

// An object store that does not answer is an outage (EUNAVAILABLE, which
// the API answers 503), not an internal error.
func TestS3DownIsUnavailable(t *testing.T) {
	t.Parallel()
	backend := s3mem.New()
	require.NoError(t, backend.CreateBucket(testBucket))
	srv := httptest.NewServer(gofakes3.New(backend, gofakes3.WithLogger(gofakes3.DiscardLog())).Server())
	s := mustOpen(t, s3URL(srv.URL, testBucket, true))
	put(t, s, "k", "v")
	srv.Close()

	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Second)
	defer cancel()
	_, _, err := s.NewReader(ctx, "k")
	requireCode(t, err, seedengine.EUNAVAILABLE)
	_, err = s.PutIfAbsent(ctx, "other", strings.NewReader("v"), "")
	requireCode(t, err, seedengine.EUNAVAILABLE)
	requireCode(t, s.Check(ctx), seedengine.EUNAVAILABLE)
}

func requireCode(t *testing.T, err error, code string) {
	t.Helper()
	require.Error(t, err)
	require.Equal(t, code, seedengine.ErrorCode(err), "error: %v", err)
}
