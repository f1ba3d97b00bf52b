package blobstore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"gocloud.dev/blob"
	"gocloud.dev/blob/fileblob"
	"gocloud.dev/blob/memblob"
	"gocloud.dev/blob/s3blob"
	"gocloud.dev/gcerrors"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/outage"
)

// URLField names the setting that holds the object store URL in EINVALID
// errors from Open, so the operator sees which flag to fix.
const URLField = "blob-url"

// ListPageSize is how many keys one listing request asks for; S3 serves at
// most 1,000 a page, so a larger value would not save requests.
const ListPageSize = 1000

// DefaultContentType is stored when Put is given no content type. A fixed
// default keeps writes streaming: gocloud would otherwise buffer the first
// 512 bytes to sniff one.
const DefaultContentType = "application/octet-stream"

const (
	maxKeyLen     = 1024 // S3's limit, in bytes
	maxSegmentLen = 255  // NAME_MAX on common file systems
)

// Driver names, as in the URL scheme.
const (
	driverFile = "file"
	driverMem  = "mem"
	driverS3   = "s3"
)

// Object is one object of a listing.
type Object = seedengine.Object

// Attributes describe a stored object. On the file driver, which keeps no
// sidecar metadata, ContentType is always DefaultContentType.
type Attributes struct {
	Size        int64
	ContentType string
	ModTime     time.Time
}

// Store is an object store. It is safe for concurrent use.
type Store struct {
	bucket *blob.Bucket
	driver string
	dir    string // file driver: absolute root directory
	tmpDir string // file driver: where writes are staged before they appear

	probeMu     chan struct{} // s3: a token, held while probing; guards the two below
	probed      bool          // s3: whether ifNoneMatch is known
	ifNoneMatch bool          // s3: the server refuses a create-only upload of a key that exists
}

// Open opens the object store at rawURL:
//
//   - file:///abs/dir: a local directory, created if missing.
//   - mem://: a new, empty in-memory store (tests).
//   - s3://bucket?endpoint=http://host:port&use_path_style=true&region=…: any
//     S3-compatible store, with the query parameters of gocloud's s3blob;
//     credentials come from the usual AWS environment (AWS_ACCESS_KEY_ID,
//     AWS_SECRET_ACCESS_KEY, profiles), or anonymous=true.
//
// A URL that cannot be used is an EINVALID error with Field URLField. Open
// does no network I/O; call Check for that.
func Open(ctx context.Context, rawURL string) (*Store, error) {
	if rawURL == "" {
		return nil, urlError("object store URL is required, e.g. file:///var/lib/seedengine/blobs")
	}
	u, err := url.Parse(rawURL)
	if err != nil {
		// The parse error quotes the URL; keep it out of the message.
		return nil, urlError("object store URL is not a valid URL")
	}
	if u.User != nil {
		return nil, urlError("object store URL must not carry credentials; S3 credentials come from the AWS environment")
	}
	switch u.Scheme {
	case "":
		return nil, urlError("object store URL needs a scheme: file:///abs/dir, mem:// or s3://bucket?endpoint=…")
	case driverFile:
		return openFile(u)
	case driverMem:
		return openMem(u)
	case driverS3:
		return openS3(ctx, u)
	}
	return nil, urlError("object store URL scheme %q is not supported; use file:///abs/dir, mem:// or s3://bucket?endpoint=…", seedengine.Truncate(u.Scheme, 16))
}

func openFile(u *url.URL) (*Store, error) {
	if u.Opaque != "" || (u.Host != "" && u.Host != "localhost") {
		return nil, urlError("file object store URL must name an absolute directory, like file:///var/lib/seedengine/blobs")
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return nil, urlError("file object store URL takes no query parameters")
	}
	dir := filepath.Clean(filepath.FromSlash(u.Path))
	if !filepath.IsAbs(dir) {
		return nil, urlError("file object store URL must name an absolute directory, like file:///var/lib/seedengine/blobs")
	}
	tmp := filepath.Join(dir, tmpDirName)
	if err := os.MkdirAll(tmp, 0o777); err != nil {
		return nil, fmt.Errorf("open object store: %w: %w", urlError("object store directory cannot be created"), err)
	}
	b, err := fileblob.OpenBucket(dir, &fileblob.Options{Metadata: fileblob.MetadataDontWrite})
	if err != nil {
		return nil, fmt.Errorf("open object store: %w: %w", urlError("object store directory cannot be opened"), err)
	}
	removeStaleTemp(tmp, time.Now())
	return &Store{bucket: b, driver: driverFile, dir: dir, tmpDir: tmp}, nil
}

func openMem(u *url.URL) (*Store, error) {
	if u.RawQuery != "" || (u.Path != "" && u.Path != "/") {
		return nil, urlError("mem object store URL is just mem://")
	}
	return &Store{bucket: memblob.OpenBucket(nil), driver: driverMem}, nil
}

func openS3(ctx context.Context, u *url.URL) (*Store, error) {
	if u.Host == "" {
		return nil, urlError("s3 object store URL must name a bucket, like s3://bucket?endpoint=…")
	}
	if u.Path != "" && u.Path != "/" {
		return nil, urlError("s3 object store URL must not have a path: keys start at the bucket root")
	}
	b, err := new(s3blob.URLOpener).OpenBucketURL(ctx, u)
	if err != nil {
		return nil, fmt.Errorf("open object store: %w: %w", urlError("s3 object store URL is not valid"), err)
	}
	return &Store{bucket: b, driver: driverS3, probeMu: make(chan struct{}, 1)}, nil
}

func urlError(format string, args ...any) error {
	return &seedengine.Error{Code: seedengine.EINVALID, Field: URLField, Message: fmt.Sprintf(format, args...)}
}

// Close releases the store.
func (s *Store) Close() error {
	return s.bucket.Close()
}

// Check reports whether the store can serve requests, for the readiness
// probe: a stat of the directory on the file driver, a one-key listing
// otherwise. Failure is EUNAVAILABLE.
func (s *Store) Check(ctx context.Context) error {
	if s.driver == driverFile {
		for _, d := range []string{s.dir, s.tmpDir} {
			fi, err := os.Stat(d)
			if err == nil && !fi.IsDir() {
				err = fmt.Errorf("%s is not a directory", d)
			}
			if err != nil {
				return unavailable(err)
			}
		}
		return nil
	}
	ok, err := s.bucket.IsAccessible(ctx)
	if err == nil && !ok {
		err = errors.New("bucket does not exist")
	}
	if err != nil {
		return unavailable(err)
	}
	return nil
}

func unavailable(cause error) error {
	return fmt.Errorf("check object store: %w: %w", seedengine.Errorf(seedengine.EUNAVAILABLE, "object store is not available"), cause)
}

// Put stores r at key, replacing any object there, and returns the number of
// bytes stored. It streams: r is never held in memory whole (on S3 the SDK
// buffers up to 16 MiB, its single-request limit, and 8 MiB parts beyond
// that). Readers see the old object or the new one, never a part, and a
// failing r stores nothing. An empty contentType stores DefaultContentType.
// On error nothing was stored and the count is 0.
func (s *Store) Put(ctx context.Context, key string, r io.Reader, contentType string) (int64, error) {
	if err := validatePut(key, contentType); err != nil {
		return 0, err
	}
	if s.driver == driverFile {
		return s.putFile(ctx, "put", key, r, false)
	}
	return s.putBlob(ctx, "put", key, r, contentType, false)
}

// PutIfAbsent is Put that fails with ECONFLICT, leaving the object alone,
// when key already exists. It is how a raw chunk number is claimed.
//
// What each driver guarantees when writers race for one key:
//
//   - file: atomic, also across processes sharing the directory. The data
//     is staged and then hard-linked into place, which the OS refuses when
//     the name exists. (fileblob's own IfNotExist is a stat then a rename
//     and lets two writers both win.)
//   - mem: atomic (memblob checks under its lock).
//   - s3: an If-None-Match: * upload, which makes it atomic on AWS S3 and
//     on servers that honour the header. gofakes3 v1.2.0 honours it for
//     single-request uploads (bodies under 16 MiB, the AWS SDK's multipart
//     threshold) but not when completing a multipart upload, so there two
//     racing writers of a large object can both succeed. Check your server
//     before relying on it. Before that upload comes a HEAD, so that the
//     answer is right on every server when writers do not race, unless
//     the body is under smallBody and the server has shown it honours the
//     header for such uploads: the first PutIfAbsent of a Store writes
//     ifNoneMatchProbeKey twice with the header and trusts the server
//     when the second write, or the first, is refused.
func (s *Store) PutIfAbsent(ctx context.Context, key string, r io.Reader, contentType string) (int64, error) {
	const op = "put-if-absent"
	if err := validatePut(key, contentType); err != nil {
		return 0, err
	}
	if s.driver == driverFile {
		return s.putFile(ctx, op, key, r, true)
	}
	if s.driver == driverS3 {
		// Read up to smallBody+1 bytes to learn whether the body is small;
		// what was read is sent first either way.
		head := bodyBuffers.Get().(*bytes.Buffer)
		defer func() { head.Reset(); bodyBuffers.Put(head) }()
		n, err := io.CopyN(head, r, smallBody+1)
		if err != nil && !errors.Is(err, io.EOF) {
			return 0, fmt.Errorf("%s %q: read the body: %w", op, key, err)
		}
		if n <= smallBody && s.honoursIfNoneMatch(ctx) {
			return s.putBlob(ctx, op, key, bytes.NewReader(head.Bytes()), contentType, true)
		}
		r = io.MultiReader(bytes.NewReader(head.Bytes()), r)
	}
	exists, err := s.bucket.Exists(ctx, key)
	if err != nil {
		return 0, mapErr(op, key, err)
	}
	if exists {
		return 0, conflict(op, key, nil)
	}
	return s.putBlob(ctx, op, key, r, contentType, true)
}

// bodyBuffers hold the start of PutIfAbsent's bodies on S3.
var bodyBuffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// smallBody is the body size under which PutIfAbsent on S3 may leave out
// its HEAD: far under the AWS SDK's 16 MiB single-request limit, and big
// enough for a research chunk (about 50 KB for 100 URLs).
const smallBody = 1 << 20

// ifNoneMatchProbeKey is where a Store on S3 finds out whether the server
// honours If-None-Match: * on a single-request upload. The object stays
// (a few bytes, written once per bucket), so the probe needs no delete
// permission; no listing of the store's data prefixes sees it.
const ifNoneMatchProbeKey = "_seedengine/if-none-match-probe"

// honoursIfNoneMatch says whether the server refuses a create-only
// upload of a key that exists, asking it on the first call that gets an
// answer. An error (a store down, a permission missing) answers false
// for this call and is asked again on the next; so does a context that
// ends while another call is asking.
func (s *Store) honoursIfNoneMatch(ctx context.Context) bool {
	select {
	case s.probeMu <- struct{}{}:
	case <-ctx.Done():
		return false
	}
	defer func() { <-s.probeMu }()
	if s.probed {
		return s.ifNoneMatch
	}
	for range 2 {
		_, err := s.putBlob(ctx, "probe", ifNoneMatchProbeKey, strings.NewReader("if-none-match probe\n"), "text/plain", true)
		switch {
		case seedengine.ErrorCode(err) == seedengine.ECONFLICT:
			s.probed, s.ifNoneMatch = true, true
			return true
		case err != nil:
			return false
		}
	}
	// Written twice: the server ignores the header.
	s.probed = true
	return false
}

func (s *Store) putBlob(ctx context.Context, op, key string, r io.Reader, contentType string, ifNotExist bool) (int64, error) {
	if contentType == "" {
		contentType = DefaultContentType
	}
	// gocloud closes, and so commits, a write even when reading r failed;
	// memblob would store the bytes read so far. Cancelling the write's
	// context on a read error makes Close abort it instead.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	cr := &countingReader{r: r, abort: cancel}
	// Upload hands the reader to the driver in one piece, which lets s3blob
	// stream it as a multipart upload without an extra copy.
	err := s.bucket.Upload(ctx, key, cr, &blob.WriterOptions{ContentType: contentType, IfNotExist: ifNotExist})
	if err != nil {
		return 0, mapErr(op, key, err)
	}
	return cr.n, nil
}

// NewReader opens the object at key for streaming; ENOTFOUND when it does
// not exist. ctx must stay live until the reader is closed, and the caller
// must close it. size is the object's size in bytes; Attributes tells
// the rest.
func (s *Store) NewReader(ctx context.Context, key string) (rc io.ReadCloser, size int64, err error) {
	if err := validateKey(key); err != nil {
		return nil, 0, err
	}
	r, err := s.bucket.NewReader(ctx, key, nil)
	if err != nil {
		return nil, 0, mapErr("get", key, err)
	}
	return r, r.Size(), nil
}

// NewRangeReader opens length bytes of the object at key from offset (a
// WARC record of a stored file); ENOTFOUND when it does not exist.
func (s *Store) NewRangeReader(ctx context.Context, key string, offset, length int64) (io.ReadCloser, error) {
	if err := validateKey(key); err != nil {
		return nil, err
	}
	if offset < 0 || length <= 0 {
		return nil, seedengine.Errorf(seedengine.EINVALID, "a range needs an offset of 0 or more and a length above 0")
	}
	r, err := s.bucket.NewRangeReader(ctx, key, offset, length, nil)
	if err != nil {
		return nil, mapErr("get", key, err)
	}
	return r, nil
}

// Attributes returns the attributes of the object at key; ENOTFOUND when it
// does not exist.
func (s *Store) Attributes(ctx context.Context, key string) (Attributes, error) {
	if err := validateKey(key); err != nil {
		return Attributes{}, err
	}
	a, err := s.bucket.Attributes(ctx, key)
	if err != nil {
		return Attributes{}, mapErr("attributes", key, err)
	}
	return Attributes{Size: a.Size, ContentType: a.ContentType, ModTime: a.ModTime}, nil
}

// Exists reports whether an object is stored at key.
func (s *Store) Exists(ctx context.Context, key string) (bool, error) {
	if err := validateKey(key); err != nil {
		return false, err
	}
	ok, err := s.bucket.Exists(ctx, key)
	if err != nil {
		return false, mapErr("exists", key, err)
	}
	return ok, nil
}

// Delete removes the object at key; ENOTFOUND when it does not exist. On S3
// the existence check and the delete are two requests, so a concurrent
// delete of the same key may make both callers succeed.
func (s *Store) Delete(ctx context.Context, key string) error {
	if err := validateKey(key); err != nil {
		return err
	}
	if s.driver == driverFile {
		return s.deleteFile(key)
	}
	if err := s.bucket.Delete(ctx, key); err != nil {
		return mapErr("delete", key, err)
	}
	return nil
}

// List calls fn for every object whose key starts with prefix, in key order
// (byte-wise, as S3 sorts), fetching ListPageSize keys per request. It stops
// at the first error from fn and returns that error unchanged.
func (s *Store) List(ctx context.Context, prefix string, fn func(Object) error) error {
	if err := validatePrefix(prefix); err != nil {
		return err
	}
	if s.driver == driverFile {
		return s.listFile(ctx, prefix, fn)
	}
	return s.listPages(ctx, &blob.ListOptions{Prefix: prefix}, func(o *blob.ListObject) error {
		if o.IsDir {
			return nil
		}
		return fn(Object{Key: o.Key, Size: o.Size, ModTime: o.ModTime})
	})
}

// ListDirs returns the immediate "subdirectories" of prefix, as full
// prefixes ending in "/" and sorted, so each can be passed back to List or
// ListDirs: ListDirs("raw/") gives "raw/country=sg/", …. A directory counts
// only if it holds at least one object, as on S3.
func (s *Store) ListDirs(ctx context.Context, prefix string) ([]string, error) {
	if err := validatePrefix(prefix); err != nil {
		return nil, err
	}
	if s.driver == driverFile {
		return s.listDirsFile(ctx, prefix)
	}
	var dirs []string
	err := s.listPages(ctx, &blob.ListOptions{Prefix: prefix, Delimiter: "/"}, func(o *blob.ListObject) error {
		if o.IsDir {
			dirs = append(dirs, o.Key)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return dirs, nil
}

// listPages pages through a gocloud listing. Errors from fn are returned
// unchanged; errors from the store are wrapped.
func (s *Store) listPages(ctx context.Context, opts *blob.ListOptions, fn func(*blob.ListObject) error) error {
	token := blob.FirstPageToken
	for {
		objs, next, err := s.bucket.ListPage(ctx, token, ListPageSize, opts)
		if err != nil {
			return fmt.Errorf("list %q: %w", opts.Prefix, err)
		}
		for _, o := range objs {
			if err := fn(o); err != nil {
				return err
			}
		}
		if len(next) == 0 {
			return nil
		}
		token = next
	}
}

// mapErr translates a gocloud error into a seedengine code, keeping the
// original in the chain so errors.Is still sees context cancellation.
func mapErr(op, key string, err error) error {
	switch gcerrors.Code(err) {
	case gcerrors.NotFound:
		return fmt.Errorf("%s %q: %w: %w", op, key, seedengine.Errorf(seedengine.ENOTFOUND, "object not found"), err)
	case gcerrors.FailedPrecondition, gcerrors.AlreadyExists:
		return conflict(op, key, err)
	case gcerrors.InvalidArgument:
		return fmt.Errorf("%s %q: %w: %w", op, key, seedengine.FieldErrorf("key", "key is not accepted by the object store"), err)
	}
	// S3 answers 409 ConditionalRequestConflict when another conditional
	// write of the key is in flight; s3blob maps it to Unknown.
	var api interface{ ErrorCode() string }
	if errors.As(err, &api) && api.ErrorCode() == "ConditionalRequestConflict" {
		return conflict(op, key, err)
	}
	// A store that refuses connections, throttles (503 SlowDown) or does
	// not answer in time is an outage: callers answer 503 and retry.
	if (api != nil && (api.ErrorCode() == "SlowDown" || api.ErrorCode() == "ServiceUnavailable")) || outage.Is(err) {
		return fmt.Errorf("%s %q: %w: %w", op, key, seedengine.Errorf(seedengine.EUNAVAILABLE, "the object store is not available"), err)
	}
	return fmt.Errorf("%s %q: %w", op, key, err)
}

func conflict(op, key string, cause error) error {
	e := seedengine.Errorf(seedengine.ECONFLICT, "object already exists")
	if cause == nil {
		return fmt.Errorf("%s %q: %w", op, key, e)
	}
	return fmt.Errorf("%s %q: %w: %w", op, key, e, cause)
}

// validatePut checks a content type even where the driver ignores it, so a
// bad one fails on every driver alike.
func validatePut(key, contentType string) error {
	if err := validateKey(key); err != nil {
		return err
	}
	if contentType != "" {
		if _, _, err := mime.ParseMediaType(contentType); err != nil {
			return seedengine.FieldErrorf("content_type", "content type must be a media type")
		}
	}
	return nil
}

// validateKey accepts keys that mean the same object on every driver and
// OS, so data can move between a directory and a bucket and no key can
// reach outside the store's directory.
func validateKey(key string) error {
	if msg := checkPath(key, false); msg != "" {
		return seedengine.FieldErrorf("key", "key %s", msg)
	}
	return nil
}

// validatePrefix is validateKey for listing prefixes, which may be empty,
// end in "/" or end in part of a name.
func validatePrefix(prefix string) error {
	if msg := checkPath(prefix, true); msg != "" {
		return seedengine.FieldErrorf("prefix", "prefix %s", msg)
	}
	return nil
}

func checkPath(s string, isPrefix bool) string {
	switch {
	case s == "" && !isPrefix:
		return "is empty"
	case len(s) > maxKeyLen:
		return fmt.Sprintf("is longer than %d bytes", maxKeyLen)
	case !utf8.ValidString(s):
		return "is not valid UTF-8"
	case strings.HasPrefix(s, "/"):
		return `must not start with "/"`
	case !isPrefix && strings.HasSuffix(s, "/"):
		return `must not end with "/"`
	case strings.Contains(s, "__0x"):
		// gocloud escapes some characters as __0x..__ and would turn such a
		// key into a different file name or S3 key than the one given.
		return `must not contain "__0x"`
	case !isPrefix && strings.HasSuffix(s, ".attrs"):
		return `must not end with ".attrs" (reserved by the file driver)`
	}
	for _, r := range s {
		if r < 0x20 || r == 0x7f || strings.ContainsRune(`\<>:"|?*`, r) {
			return fmt.Sprintf("must not contain %q", r)
		}
	}
	segs := strings.Split(s, "/")
	for i, seg := range segs {
		last := i == len(segs)-1
		switch {
		case isPrefix && last:
			// A partial name only filters; it never becomes a path.
		case seg == "":
			return `must not contain an empty segment ("//")`
		case seg == "." || seg == "..":
			return `must not contain "." or ".." segments`
		case len(seg) > maxSegmentLen:
			return fmt.Sprintf("has a segment longer than %d bytes", maxSegmentLen)
		}
	}
	if segs[0] == tmpDirName && (!isPrefix || len(segs) > 1) {
		return fmt.Sprintf("must not start with %q (reserved by the file driver)", tmpDirName+"/")
	}
	return ""
}

// countingReader counts the bytes a driver consumed, which is the size
// stored once the write succeeds, and calls abort when reading fails.
type countingReader struct {
	r     io.Reader
	n     int64
	abort func()
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	if err != nil && err != io.EOF {
		c.abort()
	}
	return n, err
}
