package harvest

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/layout"
)

// Store is what the flusher reads and marks: one kind of record filed
// per partition (sqlstore's ItemService.Files and ArticleService.Files).
type Store interface {
	PendingPartitions(ctx context.Context, olderThan time.Time, full, limit int) ([]seedengine.Partition, error)
	AllocateFile(ctx context.Context, p seedengine.Partition, max int) (*seedengine.ItemFile, error)
	UnwrittenFiles(ctx context.Context) ([]seedengine.ItemFile, error)
	// RecordsOfFile calls fn with each record of the file, in ID order:
	// what its lines encode. A json.RawMessage is the line itself, as
	// compact JSON that json.Encoder (HTML left unescaped) would write.
	RecordsOfFile(ctx context.Context, f seedengine.ItemFile, fn func(any) error) error
	MarkFileWritten(ctx context.Context, f seedengine.ItemFile, bytes int64) error
}

// FlushConfig shapes the flusher. The zero value takes the defaults noted.
type FlushConfig struct {
	// Age is how long an item waits for its file at most: a partition
	// whose oldest item in no file is older is written; default 15 min.
	Age time.Duration
	// MaxItems is the most items a file holds; a partition with that
	// many waiting is written at once; default 50,000.
	MaxItems int
	// Window is the dedupe window: a URL no read has listed for this long
	// is forgotten, and an item again when listed later; default 30 days.
	Window time.Duration
	// Key is the object key of a partition's file n; default
	// layout.ItemFileKey. What names the records in logs ("item").
	Key  func(p seedengine.Partition, n int) (string, error)
	What string
	// Forget deletes, at most limit at a time, the dedupe window's URLs
	// last seen before t (Prune); nil: nothing to prune.
	Forget func(ctx context.Context, t time.Time, limit int) (int64, error)
	Logger *slog.Logger
	Now    func() time.Time
}

func (c FlushConfig) withDefaults() FlushConfig {
	if c.Age <= 0 {
		c.Age = 15 * time.Minute
	}
	if c.MaxItems <= 0 {
		c.MaxItems = 50_000
	}
	if c.Window <= 0 {
		c.Window = 30 * 24 * time.Hour
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.Key == nil {
		c.Key = layout.ItemFileKey
	}
	if c.What == "" {
		c.What = "item"
	}
	return c
}

// Flusher writes recorded items (or articles: FlushConfig.Key) to the
// object store as immutable JSON Lines files,
// items/country=…/category=…/date=…/items_NNNN.jsonl, one record per
// line in ID order. A file's records are fixed in SQL first
// (AllocateFile), then the object is written whole, then marked
// written: a flush cut short at any point writes the same bytes under the
// same key the next time, and a reader never sees half a file (the
// object store writes an object atomically).
type Flusher struct {
	store   Store
	objects seedengine.ObjectStore
	cfg     FlushConfig
}

// NewFlusher returns a Flusher.
func NewFlusher(store Store, objects seedengine.ObjectStore, cfg FlushConfig) *Flusher {
	return &Flusher{store: store, objects: objects, cfg: cfg.withDefaults()}
}

// Config is the flusher's configuration, its defaults filled in.
func (f *Flusher) Config() FlushConfig { return f.cfg }

// Flush writes what is due: first any file a flush cut short, then the
// partitions whose waiting items are old enough, many enough or of a
// past day. It returns the files it wrote. all writes every waiting item
// whatever its age (a test, a shutdown).
func (f *Flusher) Flush(ctx context.Context, all bool) (int, error) {
	written := 0
	unwritten, err := f.store.UnwrittenFiles(ctx)
	if err != nil {
		return 0, err
	}
	for _, file := range unwritten {
		if err := f.write(ctx, file); err != nil {
			return written, err
		}
		written++
	}
	olderThan := f.cfg.Now().Add(-f.cfg.Age)
	full := f.cfg.MaxItems
	if all {
		olderThan, full = f.cfg.Now().Add(time.Hour), 1
	}
	for {
		parts, err := f.store.PendingPartitions(ctx, olderThan, full, 100)
		if err != nil {
			return written, err
		}
		if len(parts) == 0 {
			return written, nil
		}
		for _, p := range parts {
			file, err := f.store.AllocateFile(ctx, p, f.cfg.MaxItems)
			if err != nil {
				return written, err
			}
			if file == nil {
				continue // another flush took them
			}
			if err := f.write(ctx, *file); err != nil {
				return written, err
			}
			written++
		}
	}
}

// write stores file's object and marks it written.
func (f *Flusher) write(ctx context.Context, file seedengine.ItemFile) error {
	key, err := f.cfg.Key(file.Partition, file.File)
	if err != nil {
		return err
	}
	pr, pw := io.Pipe()
	go func() {
		bw := bufio.NewWriterSize(pw, 64<<10)
		enc := json.NewEncoder(bw)
		enc.SetEscapeHTML(false)
		err := f.store.RecordsOfFile(ctx, file, func(v any) error {
			if line, ok := v.(json.RawMessage); ok {
				if _, err := bw.Write(line); err != nil {
					return err
				}
				return bw.WriteByte('\n')
			}
			return enc.Encode(v)
		})
		if err == nil {
			err = bw.Flush()
		}
		pw.CloseWithError(err)
	}()
	n, err := f.objects.Put(ctx, key, pr, "application/x-ndjson")
	_ = pr.CloseWithError(io.ErrClosedPipe) // stops the writer if Put gave up early
	if err != nil {
		return fmt.Errorf("write %s: %w", key, err)
	}
	if err := f.store.MarkFileWritten(ctx, file, n); err != nil {
		return err
	}
	f.cfg.Logger.Info(f.cfg.What+" file written", "event", f.cfg.What+"_file_written", "key", key, f.cfg.What+"s", file.Items, "bytes", n)
	return nil
}

// Prune forgets the URLs no read has listed within the dedupe window, a
// batch at a time, and returns how many.
func (f *Flusher) Prune(ctx context.Context) (int64, error) {
	var total int64
	if f.cfg.Forget == nil {
		return 0, nil
	}
	before := f.cfg.Now().Add(-f.cfg.Window)
	for {
		n, err := f.cfg.Forget(ctx, before, 5000)
		total += n
		if err != nil || n < 5000 {
			return total, err
		}
	}
}
