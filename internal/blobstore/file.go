package blobstore

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/seedengine/seedengine"
)

// The file driver stages writes in tmpDirName under the store root: on the
// same file system as the objects (so rename and link work, which
// os.TempDir does not promise) and outside every key a caller can use (so a
// half-written object never shows up in a listing).
const tmpDirName = ".seedengine-tmp"

// staleTempAge is how old a staged file must be before Open removes it as
// left over from a crash. Other processes may be writing into the same
// directory, so fresh files are left alone.
const staleTempAge = 24 * time.Hour

func (s *Store) path(key string) string {
	return filepath.Join(s.dir, filepath.FromSlash(key))
}

// putFile writes r to a staged file, syncs it and moves it into place:
// rename to replace, hard link to create only if absent. A crash leaves
// either the old object or the whole new one.
func (s *Store) putFile(ctx context.Context, op, key string, r io.Reader, exclusive bool) (int64, error) {
	final := s.path(key)
	if exclusive {
		if _, err := os.Lstat(final); err == nil {
			return 0, conflict(op, key, nil)
		}
	}
	f, err := createTemp(s.tmpDir)
	if err != nil {
		return 0, fmt.Errorf("%s %q: %w", op, key, err)
	}
	tmp := f.Name()
	// After a rename this fails harmlessly; after a link it drops the
	// staging name; after an error it discards the partial file.
	defer os.Remove(tmp)

	n, err := io.Copy(f, ctxReader{ctx: ctx, r: r})
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = ctx.Err()
	}
	if err == nil {
		err = os.MkdirAll(filepath.Dir(final), 0o777)
	}
	if err != nil {
		return 0, fmt.Errorf("%s %q: %w", op, key, err)
	}
	if exclusive {
		err = os.Link(tmp, final)
		if errors.Is(err, fs.ErrExist) {
			return 0, conflict(op, key, err)
		}
	} else {
		err = os.Rename(tmp, final)
	}
	if err != nil {
		return 0, fmt.Errorf("%s %q: %w", op, key, err)
	}
	syncDir(filepath.Dir(final))
	return n, nil
}

// deleteFile removes one object. fileblob would also remove an empty
// directory named by the key and report success, although no object was
// there.
func (s *Store) deleteFile(key string) error {
	path := s.path(key)
	fi, err := os.Lstat(path)
	if err == nil && fi.IsDir() {
		err = fs.ErrNotExist
	}
	if err == nil {
		err = os.Remove(path)
	}
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("delete %q: %w: %w", key, seedengine.Errorf(seedengine.ENOTFOUND, "object not found"), err)
	}
	if err != nil {
		return fmt.Errorf("delete %q: %w", key, err)
	}
	return nil
}

// createTemp is os.CreateTemp with mode 0666 before umask, like every other
// file the store creates, instead of 0600.
func createTemp(dir string) (*os.File, error) {
	for range 100 {
		name := filepath.Join(dir, "put-"+strconv.FormatUint(rand.Uint64(), 36)+".tmp")
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		return f, err
	}
	return nil, fmt.Errorf("create staging file in %s: too many name collisions", dir)
}

// syncDir makes a rename durable. It is best effort: some systems (Windows)
// cannot sync a directory, and the data itself is already synced.
func syncDir(dir string) {
	d, err := os.Open(dir)
	if err != nil {
		return
	}
	_ = d.Sync()
	_ = d.Close()
}

func removeStaleTemp(dir string, now time.Time) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		if info, err := e.Info(); err == nil && now.Sub(info.ModTime()) > staleTempAge {
			_ = os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}

// ctxReader stops a long copy when ctx ends, as the S3 driver does.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

// fileEntry is one directory entry with the name it sorts by: a directory
// sorts as name+"/", because that is how every key inside it begins.
type fileEntry struct {
	name    string
	sortKey string
	isDir   bool
	size    int64
	modTime time.Time
}

// listFile walks the tree itself, sorting each directory by sortKey, which
// yields keys in exact byte order. fileblob sorts by plain name and then
// drops keys at page boundaries when "abc.com/" and "abc.com.au/" are
// siblings.
func (s *Store) listFile(ctx context.Context, prefix string, fn func(Object) error) error {
	i := strings.LastIndex(prefix, "/")
	err := s.walk(ctx, prefix[:i+1], prefix[i+1:], fn)
	var fe fnError
	if errors.As(err, &fe) {
		return fe.err
	}
	if err != nil {
		return fmt.Errorf("list %q: %w", prefix, err)
	}
	return nil
}

// fnError carries an error from a List callback through walk, so List can
// return it unchanged while wrapping errors of its own.
type fnError struct{ err error }

func (e fnError) Error() string { return e.err.Error() }

// walk calls fn for each object under keyDir (a key prefix ending in "/" or
// empty) whose name at this level starts with match.
func (s *Store) walk(ctx context.Context, keyDir, match string, fn func(Object) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	entries, err := s.readDir(keyDir, match)
	if err != nil {
		return err
	}
	for _, e := range entries {
		key := keyDir + e.name
		if e.isDir {
			if err := s.walk(ctx, key+"/", "", fn); err != nil {
				return err
			}
			continue
		}
		if err := fn(Object{Key: key, Size: e.size, ModTime: e.modTime}); err != nil {
			return fnError{err}
		}
	}
	return nil
}

// readDir returns the entries of keyDir whose names start with match, in
// key order. Only directories and regular files count; staging files, the
// sidecars of an older fileblob and entries that vanish while listing are
// skipped. A missing directory is empty, as a missing prefix is on S3.
func (s *Store) readDir(keyDir, match string) ([]fileEntry, error) {
	dir := s.path(keyDir)
	des, err := os.ReadDir(dir)
	if err != nil {
		// Missing when read (even if a writer creates it a moment later)
		// or not a directory: nothing under this prefix at that instant.
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		if fi, serr := os.Stat(dir); serr == nil && !fi.IsDir() {
			return nil, nil
		}
		return nil, err
	}
	entries := make([]fileEntry, 0, len(des))
	for _, de := range des {
		name := de.Name()
		switch {
		case !strings.HasPrefix(name, match):
			continue
		case keyDir == "" && name == tmpDirName:
			continue
		case de.IsDir():
			entries = append(entries, fileEntry{name: name, sortKey: name + "/", isDir: true})
			continue
		case !de.Type().IsRegular() || strings.HasSuffix(name, ".attrs"):
			continue
		}
		info, err := de.Info()
		if err != nil {
			continue
		}
		entries = append(entries, fileEntry{name: name, sortKey: name, size: info.Size(), modTime: info.ModTime()})
	}
	slices.SortFunc(entries, func(a, b fileEntry) int { return cmp.Compare(a.sortKey, b.sortKey) })
	return entries, nil
}

func (s *Store) listDirsFile(ctx context.Context, prefix string) ([]string, error) {
	i := strings.LastIndex(prefix, "/")
	keyDir := prefix[:i+1]
	entries, err := s.readDir(keyDir, prefix[i+1:])
	if err != nil {
		return nil, fmt.Errorf("list dirs %q: %w", prefix, err)
	}
	var dirs []string
	for _, e := range entries {
		if !e.isDir {
			continue
		}
		d := keyDir + e.name + "/"
		ok, err := s.hasObject(ctx, d)
		if err != nil {
			return nil, fmt.Errorf("list dirs %q: %w", prefix, err)
		}
		if ok {
			dirs = append(dirs, d)
		}
	}
	return dirs, nil
}

// hasObject reports whether any object lies under keyDir. Deleting objects
// leaves their directories behind; on S3 such a "directory" would not exist.
func (s *Store) hasObject(ctx context.Context, keyDir string) (bool, error) {
	err := s.walk(ctx, keyDir, "", func(Object) error { return errFound })
	var fe fnError
	if errors.As(err, &fe) {
		return true, nil
	}
	return false, err
}

var errFound = errors.New("found")
