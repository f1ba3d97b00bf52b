package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/blobstore"
	"github.com/seedengine/seedengine/internal/dataset"
	"github.com/seedengine/seedengine/internal/layout"
	"github.com/seedengine/seedengine/internal/research"
	"github.com/seedengine/seedengine/internal/sqlstore"
)

const uploadSummary = `Upload a local tree of raw dataset files to the object store.

DIR holds raw/country=CC/category=CAT/date=YYYY-MM-DD/raw_NNNN.json files (or
is the raw directory itself). Each file is validated against its partition
(streaming, so files of any size work) and uploaded at the same key, unless
the store already holds that key: the store is listed once, not asked once per
file, and an existing chunk is never overwritten. Uploaded chunks are indexed
with origin "upload:KEY" and their domains are registered, so the research and
dataset APIs see them at once. No .success checkpoint is written: it means the
seed file processor has handled the chunk, which upload has not. Other files
are ignored and listed. With --dry-run nothing is written.

Progress goes to stderr (a bar on a terminal, one line per file otherwise);
the summary goes to stdout. The exit status is 1 when any file was invalid.`

// uploadOutcome is what happened to one file.
type uploadOutcome int

const (
	outcomeUploaded uploadOutcome = iota
	outcomeExists
	outcomeInvalid
)

// uploadFile is one raw chunk file found under DIR.
type uploadFile struct {
	path string // on disk
	key  string // in the store
	k    layout.Key
	size int64
}

// uploadReport is the summary of an upload run.
type uploadReport struct {
	found    int
	uploaded int
	bytes    int64
	records  int
	exists   int
	invalid  []string // "key: reason"
	ignored  []string // paths relative to DIR
}

func runUpload(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	var dryRun bool
	var jobs int
	c, rest, err := parseCommand("upload", uploadSummary, groupStore|groupDiscover, args, getenv, stdout, func(fs *flag.FlagSet) {
		fs.BoolVar(&dryRun, "dry-run", false, "validate and report, write nothing")
		fs.IntVar(&jobs, "jobs", 4, "files validated and uploaded at once")
	})
	if err != nil {
		return err
	}
	if len(rest) != 1 {
		return usageError{errors.New("upload: exactly one DIR is required (seedengine upload [flags] DIR)")}
	}
	if jobs < 1 || jobs > 64 {
		return usageError{fmt.Errorf("--jobs: %d must be from 1 to 64", jobs)}
	}
	dir := rest[0]
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return usageError{fmt.Errorf("upload: %s is not a directory", dir)}
	}
	start := time.Now()

	files, ignored, err := findRawFiles(dir)
	if err != nil {
		return err
	}

	blobs, err := blobstore.Open(ctx, c.BlobURL)
	if err != nil {
		return settingError("blob-url", "open object store", err)
	}
	defer blobs.Close()
	existing := map[string]bool{}
	if err := blobs.List(ctx, layout.RawRoot, func(o blobstore.Object) error {
		existing[o.Key] = true
		return nil
	}); err != nil {
		return fmt.Errorf("list the object store: %w", err)
	}

	classifier, err := newClassifier(c)
	if err != nil {
		return err
	}
	u := &uploader{dryRun: dryRun}
	if !dryRun {
		db, err := sqlstore.Open(ctx, c.DatabaseURL)
		if err != nil {
			return settingError("database-url", "open database", err)
		}
		defer db.Close()
		if err := db.Migrate(ctx); err != nil {
			return fmt.Errorf("migrate database: %w", err)
		}
		u.datasets = dataset.New(blobs, sqlstore.NewDatasetIndex(db), nil)
		u.research = research.New(nil, sqlstore.NewDomainService(db), nil, classifier, nil)
	}

	rep := &uploadReport{found: len(files), ignored: ignored}
	prog := newProgress(stderr, len(files), dryRun)
	var mu sync.Mutex
	record := func(f uploadFile, out uploadOutcome, records int, reason string) {
		mu.Lock()
		defer mu.Unlock()
		switch out {
		case outcomeUploaded:
			rep.uploaded++
			rep.bytes += f.size
			rep.records += records
		case outcomeExists:
			rep.exists++
		case outcomeInvalid:
			rep.invalid = append(rep.invalid, f.key+": "+reason)
		}
		prog.step(f, out, reason, rep)
	}

	work := make(chan uploadFile)
	var wg sync.WaitGroup
	var firstErr error
	var errOnce sync.Once
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	for range jobs {
		wg.Go(func() {
			for f := range work {
				if existing[f.key] {
					record(f, outcomeExists, 0, "")
					continue
				}
				out, records, reason, err := u.upload(wctx, f)
				if err != nil {
					errOnce.Do(func() { firstErr = fmt.Errorf("%s: %w", f.key, err); cancel() })
					continue
				}
				record(f, out, records, reason)
			}
		})
	}
	for _, f := range files {
		if wctx.Err() != nil {
			break
		}
		work <- f
	}
	close(work)
	wg.Wait()
	prog.done()
	if firstErr == nil && ctx.Err() != nil {
		firstErr = ctx.Err()
	}

	slices.Sort(rep.invalid)
	rep.print(stdout, dryRun, time.Since(start))
	if firstErr != nil {
		return fmt.Errorf("upload stopped: %w", firstErr)
	}
	if len(rep.invalid) > 0 {
		return fmt.Errorf("%d of %d files were invalid", len(rep.invalid), rep.found)
	}
	return nil
}

// findRawFiles walks dir for raw chunk files. Everything else (checkpoints,
// raw_metadata.json, stray files) is returned as ignored, relative to dir.
func findRawFiles(dir string) ([]uploadFile, []string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, nil, err
	}
	// DIR may be the raw directory itself rather than its parent.
	prefix := ""
	if filepath.Base(abs) == strings.TrimSuffix(layout.RawRoot, "/") {
		prefix = layout.RawRoot
	}
	var files []uploadFile
	var ignored []string
	err = filepath.WalkDir(abs, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		rel, err := filepath.Rel(abs, path)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		info, err := os.Stat(path) // follows a symlink to a file
		if err != nil || !info.Mode().IsRegular() {
			ignored = append(ignored, rel)
			return nil
		}
		key := prefix + rel
		k, err := layout.ParseKey(key)
		if err != nil || k.Kind != layout.KindRawChunk {
			ignored = append(ignored, rel)
			return nil
		}
		files = append(files, uploadFile{path: path, key: key, k: k, size: info.Size()})
		return nil
	})
	if err != nil {
		return nil, nil, fmt.Errorf("walk %s: %w", dir, err)
	}
	return files, ignored, nil
}

// uploader validates and writes one file at a time; it is shared by the
// upload workers.
type uploader struct {
	datasets *dataset.Service  // imports each file at its own key
	research *research.Service // registers domains only
	dryRun   bool
}

// upload validates f and, unless dry-running, registers its domains and
// imports it through the dataset service (written at its key, validated
// again as it streams, indexed). It writes no .success checkpoint: that marks a chunk
// the seed file processor has handled, and an uploaded chunk has not been.
// Domains come first: a run cut short after the write skips the file next time as existing, and the
// dataset service indexes a chunk it meets unindexed, but nothing would
// register its domains again. A returned error is a failure of the store
// or database, which stops the run; an invalid file is an outcome.
func (u *uploader) upload(ctx context.Context, f uploadFile) (uploadOutcome, int, string, error) {
	p := f.k.Partition
	_, records, err := validateFile(f.path, p)
	if err != nil {
		if seedengine.ErrorCode(err) == seedengine.EINVALID {
			return outcomeInvalid, 0, invalidReason(err), nil
		}
		return 0, 0, "", err
	}
	if u.dryRun {
		return outcomeUploaded, records, "", nil
	}

	if err := u.registerDomains(ctx, f.path, p); err != nil {
		if seedengine.ErrorCode(err) == seedengine.EINVALID {
			return outcomeInvalid, 0, invalidReason(err), nil
		}
		return 0, 0, "", fmt.Errorf("register domains: %w", err)
	}

	file, err := os.Open(f.path)
	if err != nil {
		return 0, 0, "", err
	}
	_, err = u.datasets.ImportChunk(ctx, p, f.k.Chunk, uploadOrigin(f.key), file)
	file.Close()
	if err != nil {
		switch seedengine.ErrorCode(err) {
		case seedengine.ECONFLICT:
			return outcomeExists, 0, "", nil // written since the listing
		case seedengine.EINVALID:
			return outcomeInvalid, 0, invalidReason(err), nil // changed since validated
		}
		return 0, 0, "", err
	}
	return outcomeUploaded, records, "", nil
}

// uploadOrigin names what wrote an uploaded chunk. Origins are unique in
// the index (they make retried writes idempotent), so each upload gets its
// own: "upload:" and the key.
func uploadOrigin(key string) string { return "upload:" + key }

func validateFile(path string, p seedengine.Partition) (seedengine.DatasetMeta, int, error) {
	file, err := os.Open(path)
	if err != nil {
		return seedengine.DatasetMeta{}, 0, err
	}
	defer file.Close()
	return seedengine.ValidateDataset(file, p)
}

// registerDomains registers the domains of a validated file as research
// does for a stored chunk (research.Service.RegisterChunk).
func (u *uploader) registerDomains(ctx context.Context, path string, p seedengine.Partition) error {
	file, err := os.Open(path)
	if err != nil {
		return err
	}
	defer file.Close()
	_, err = u.research.RegisterChunk(ctx, p, file)
	return err
}

// invalidReason is the client-safe message of a validation error, with the
// field it names.
func invalidReason(err error) string {
	msg := seedengine.ErrorMessage(err)
	if f := seedengine.ErrorField(err); f != "" && !strings.HasPrefix(msg, f) {
		return f + ": " + msg
	}
	return msg
}

func (r *uploadReport) print(w io.Writer, dryRun bool, took time.Duration) {
	verb := "uploaded"
	if dryRun {
		verb = "valid, not uploaded (dry run)"
	}
	fmt.Fprintf(w, "raw files found:   %d\n", r.found)
	fmt.Fprintf(w, "%s: %d (%s, %d records)\n", verb, r.uploaded, formatBytes(r.bytes), r.records)
	fmt.Fprintf(w, "skipped, already in the store: %d\n", r.exists)
	fmt.Fprintf(w, "invalid:           %d\n", len(r.invalid))
	for _, s := range r.invalid {
		fmt.Fprintf(w, "  %s\n", s)
	}
	fmt.Fprintf(w, "ignored (not raw_NNNN.json in the layout): %d\n", len(r.ignored))
	const maxListed = 20
	for i, s := range r.ignored {
		if i == maxListed {
			fmt.Fprintf(w, "  … and %d more\n", len(r.ignored)-maxListed)
			break
		}
		fmt.Fprintf(w, "  %s\n", s)
	}
	fmt.Fprintf(w, "duration:          %s\n", took.Round(time.Millisecond))
}

func formatBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}

// progress reports upload progress on stderr: a bar redrawn in place on a
// terminal, where a line per file would scroll the summary away, and one
// line per file otherwise, which a log keeps.
type progress struct {
	w      io.Writer
	tty    bool
	dryRun bool
	total  int
	n      int
	last   time.Time
}

func newProgress(w io.Writer, total int, dryRun bool) *progress {
	return &progress{w: w, tty: isTerminal(w), dryRun: dryRun, total: total}
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// step records one finished file; the caller holds the report's lock.
func (p *progress) step(f uploadFile, out uploadOutcome, reason string, rep *uploadReport) {
	p.n++
	if !p.tty {
		what := "uploaded"
		if p.dryRun {
			what = "valid"
		}
		switch out {
		case outcomeExists:
			what = "skipped, exists"
		case outcomeInvalid:
			what = "invalid: " + reason
		}
		fmt.Fprintf(p.w, "upload: [%d/%d] %s: %s\n", p.n, p.total, f.key, what)
		return
	}
	if out == outcomeInvalid {
		// Above the bar, so it stays on screen.
		fmt.Fprintf(p.w, "\r\033[Kinvalid: %s: %s\n", f.key, reason)
	}
	if p.n < p.total && time.Since(p.last) < 100*time.Millisecond && out != outcomeInvalid {
		return
	}
	p.last = time.Now()
	const width = 30
	filled := width
	if p.total > 0 {
		filled = width * p.n / p.total
	}
	verb := "uploaded"
	if p.dryRun {
		verb = "valid"
	}
	fmt.Fprintf(p.w, "\r\033[K[%s%s] %d/%d files, %s %s, %d skipped, %d invalid",
		strings.Repeat("=", filled), strings.Repeat(" ", width-filled), p.n, p.total,
		formatBytes(rep.bytes), verb, rep.exists, len(rep.invalid))
}

func (p *progress) done() {
	if p.tty && p.total > 0 {
		fmt.Fprintln(p.w)
	}
}
