package pages

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/layout"
	"github.com/seedengine/seedengine/internal/warc"
)

// spool is one open WARC file of a partition on local disk, with the
// CDXJ lines of its records kept beside it (name.cdxj.part, appended as
// records are written) so that a spool a crash left behind can be
// indexed and stored.
type spool struct {
	p       seedengine.Partition
	name    string // seedengine-{process}-{time}-{serial}.warc.gz
	path    string
	file    *os.File
	index   *os.File
	w       *warc.Writer
	opened  time.Time
	records int
	revisit int
	digests []seedengine.PageDigest
	// marking counts the records written whose pages are not marked
	// fetched yet: the file is stored only once they are, so that the
	// transaction storing it marks every page it holds.
	marking sync.WaitGroup
}

// spoolDir is where a partition's spool files are.
func (f *Fetcher) spoolDir(p seedengine.Partition) string {
	return filepath.Join(f.cfg.Dir, "country="+p.Country, "category="+p.Category, "date="+p.Date)
}

// spoolFor returns p's open spool, opening a new file when none is
// open. f.mu is held.
func (f *Fetcher) spoolFor(p seedengine.Partition) (*spool, error) {
	if sp := f.open[p]; sp != nil {
		return sp, nil
	}
	dir := f.spoolDir(p)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("spool: %w", err)
	}
	now := f.cfg.Now().UTC()
	f.serial++
	name := fmt.Sprintf("seedengine-%s-%s-%05d.warc.gz", f.cfg.Process, now.Format("20060102150405"), f.serial)
	path := filepath.Join(dir, name)
	file, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		return nil, fmt.Errorf("spool: %w", err)
	}
	index, err := os.OpenFile(path+".cdxj.part", os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		_ = file.Close()
		return nil, fmt.Errorf("spool: %w", err)
	}
	w, err := warc.NewWriter(file, name, map[string]string{
		"software": "seedengine", "hostname": f.cfg.Process, "description": "pages of harvested items of " + p.Country + "/" + p.Category + "/" + p.Date,
		"robots": "obey", "http-header-user-agent": f.cfg.Agent,
	})
	if err != nil {
		_ = file.Close()
		_ = index.Close()
		return nil, fmt.Errorf("spool: %w", err)
	}
	sp := &spool{p: p, name: name, path: path, file: file, index: index, w: w, opened: now}
	f.open[p] = sp
	return sp, nil
}

// Roll stores the spool files that are due (as big or as old as the
// limits allow), or every open one with all.
func (f *Fetcher) Roll(ctx context.Context, all bool) error {
	f.mu.Lock()
	var due []*spool
	now := f.cfg.Now()
	for p, sp := range f.open {
		if all || sp.w.Size() >= f.cfg.MaxFileBytes || now.Sub(sp.opened) >= f.cfg.MaxFileAge {
			due = append(due, sp)
			delete(f.open, p)
		}
	}
	f.mu.Unlock()
	var first error
	for _, sp := range due {
		if err := f.closeAndStore(ctx, sp); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// closeAndStore closes a spool file and stores it. Its writes are done:
// a spool leaves f.open under f.mu before its file is closed.
func (f *Fetcher) closeAndStore(ctx context.Context, sp *spool) error {
	f.storing.Add(1)
	defer f.storing.Done()
	sp.marking.Wait()
	cerr := sp.file.Close()
	ierr := sp.index.Close()
	if cerr != nil || ierr != nil {
		return fmt.Errorf("close spool %s: %v %v", sp.name, cerr, ierr)
	}
	return f.storeFile(ctx, sp.p, sp.path, sp.name, sp.records, sp.revisit, sp.digests, -1)
}

// storeFile sorts a spool's index, puts the file and the index under their
// final keys and records them, then removes the spool. end, when not -1,
// is where the file's good records end (a recovered spool): only records
// within it are indexed, and the file is cut there.
func (f *Fetcher) storeFile(ctx context.Context, p seedengine.Partition, path, name string, records, revisits int, digests []seedengine.PageDigest, end int64) error {
	if end >= 0 {
		if err := os.Truncate(path, end); err != nil {
			return fmt.Errorf("store %s: cut: %w", name, err)
		}
	}
	lines, err := readIndex(path+".cdxj.part", end)
	if err != nil {
		return fmt.Errorf("store %s: %w", name, err)
	}
	if end >= 0 {
		records, revisits = len(lines), 0
		for _, l := range lines {
			if _, _, revisit, _ := indexExtent(l); revisit {
				revisits++
			}
		}
	}
	sort.Strings(lines) // bytewise, as pywb searches it
	key, err := layout.WARCFileKey(p, name)
	if err != nil {
		return fmt.Errorf("store %s: %w", name, err)
	}
	file, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("store %s: %w", name, err)
	}
	size, err := f.objects.Put(ctx, key, file, "application/warc")
	_ = file.Close()
	if err != nil {
		return fmt.Errorf("store %s: %w", name, err)
	}
	if _, err := f.objects.Put(ctx, layout.WARCIndexKey(key), &linesReader{lines: lines}, "application/x-ndjson"); err != nil {
		return fmt.Errorf("store %s index: %w", name, err)
	}
	wf := seedengine.WARCFile{Partition: p, Name: name, Key: key, IndexKey: layout.WARCIndexKey(key), Records: records,
		Revisits: revisits, Bytes: size, StoredAt: f.cfg.Now().UTC()}
	n, err := f.store.StoreWARCFile(ctx, wf, name, digests)
	if err != nil {
		return err
	}
	f.mu.Lock()
	for _, d := range digests {
		delete(f.spooled, d.PayloadDigest) // in page_digests now
	}
	f.mu.Unlock()
	f.cfg.Logger.Info("warc file stored", "event", "warc_stored", "key", key, "records", records, "revisits", revisits,
		"bytes", size, "pages", n)
	_ = os.Remove(path + ".cdxj.part")
	return os.Remove(path)
}

// linesReader reads lines, each ended by a newline, without joining
// them into one more copy of the index.
type linesReader struct {
	lines []string
	cur   string // the rest of the line being read
	nl    bool   // its newline is still to come
}

func (r *linesReader) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		switch {
		case r.cur != "":
			k := copy(p[n:], r.cur)
			r.cur, n = r.cur[k:], n+k
		case r.nl:
			p[n], r.nl, n = '\n', false, n+1
		case len(r.lines) > 0:
			r.cur, r.nl, r.lines = r.lines[0], true, r.lines[1:]
		default:
			if n == 0 && len(p) > 0 {
				return 0, io.EOF
			}
			return n, nil
		}
	}
	return n, nil
}

// readIndex reads a spool's CDXJ lines, those of records ending at or
// before end when end is not -1.
func readIndex(path string, end int64) ([]string, error) {
	file, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer func() { _ = file.Close() }()
	var lines []string
	sc := bufio.NewScanner(file)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" {
			continue
		}
		if end >= 0 {
			off, length, _, ok := indexExtent(line)
			if !ok || off+length > end {
				continue
			}
		}
		lines = append(lines, line)
	}
	return lines, sc.Err()
}

// indexExtent reads a CDXJ line's record: its offset, its length and
// whether it is a revisit.
func indexExtent(line string) (off, length int64, revisit, ok bool) {
	_, rest, _ := strings.Cut(line, " ")
	_, fields, _ := strings.Cut(rest, " ")
	var v struct{ Offset, Length, MIME string }
	if json.Unmarshal([]byte(fields), &v) != nil {
		return 0, 0, false, false
	}
	off, err1 := strconv.ParseInt(v.Offset, 10, 64)
	length, err2 := strconv.ParseInt(v.Length, 10, 64)
	return off, length, v.MIME == "warc/revisit", err1 == nil && err2 == nil
}

// Recover stores the spool files a stopped process left in the spool
// directory: each is cut back to the end of the last record its pages'
// rows vouch for and stored with them; a file no row vouches for is
// removed. requeue gets the pages of a file shorter than its rows say
// (a disk that lost writes), whose fetches must be queued again.
func (f *Fetcher) Recover(ctx context.Context, requeue func(ctx context.Context, spool string) error) error {
	var paths []string
	err := filepath.WalkDir(f.cfg.Dir, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(path, ".warc.gz") {
			paths = append(paths, path)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("recover spool: %w", err)
	}
	for _, path := range paths {
		name := filepath.Base(path)
		p, ok := partitionOfDir(filepath.Dir(path))
		if !ok {
			continue
		}
		pages, end, err := f.store.SpoolExtent(ctx, name)
		if err != nil {
			return err
		}
		st, err := os.Stat(path)
		if err != nil {
			return fmt.Errorf("recover spool: %w", err)
		}
		switch {
		case pages == 0:
			_ = os.Remove(path + ".cdxj.part")
			_ = os.Remove(path)
			continue
		case st.Size() < end:
			if requeue != nil {
				if err := requeue(ctx, name); err != nil {
					return err
				}
			}
			_ = os.Remove(path + ".cdxj.part")
			_ = os.Remove(path)
			continue
		}
		f.cfg.Logger.Info("storing a spool file left by a stopped process", "event", "warc_recovered", "file", name, "pages", pages)
		if err := f.storeFile(ctx, p, path, name, 0, 0, nil, end); err != nil {
			return err
		}
	}
	return nil
}

// partitionOfDir reads the partition of a spool directory
// (…/country=sg/category=news/date=2026-11-27).
func partitionOfDir(dir string) (seedengine.Partition, bool) {
	var p seedengine.Partition
	for _, part := range []struct {
		prefix string
		dst    *string
	}{{"date=", &p.Date}, {"category=", &p.Category}, {"country=", &p.Country}} {
		base := filepath.Base(dir)
		v, ok := strings.CutPrefix(base, part.prefix)
		if !ok {
			return p, false
		}
		*part.dst = v
		dir = filepath.Dir(dir)
	}
	return p, p.Validate() == nil
}

// Close stores every open spool file, waits for the stores under way,
// and lets the spool slot go.
func (f *Fetcher) Close(ctx context.Context) error {
	err := f.Roll(ctx, true)
	f.storing.Wait()
	if f.lock != nil {
		_ = f.lock.Close()
		f.lock = nil
	}
	return err
}
