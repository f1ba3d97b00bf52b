package article

import (
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"log/slog"
	"time"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/layout"
)

// ParquetStore is what the compactor reads and marks;
// sqlstore.ArticleService is one.
type ParquetStore interface {
	ParquetDue(ctx context.Context, today string, limit int) ([]seedengine.Partition, error)
	ArticlesOfPartition(ctx context.Context, p seedengine.Partition, fn func(*seedengine.Article) error) error
	MarkParquetWritten(ctx context.Context, p seedengine.Partition, n, bytes int64) error
}

// Compactor writes, once a day is over, each of its partitions' articles
// as one Parquet file (layout.ArticleParquetKey), in ID order, beside the
// day's JSON Lines files. A partition that gains articles later (a page
// stored or extracted late) has its file written again, whole: the JSON
// Lines files are the record, the Parquet file their columnar copy.
type Compactor struct {
	store   ParquetStore
	objects seedengine.ObjectStore
	log     *slog.Logger
	now     func() time.Time
}

// NewCompactor returns a Compactor.
func NewCompactor(store ParquetStore, objects seedengine.ObjectStore, log *slog.Logger) *Compactor {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Compactor{store: store, objects: objects, log: log, now: time.Now}
}

// SetClock sets the compactor's clock (tests).
func (c *Compactor) SetClock(now func() time.Time) { c.now = now }

// errStop ends a partition's read early.
var errStop = errors.New("stop")

// Compact writes the Parquet files that are due: partitions of days
// before today whose articles are all in written JSON Lines files and
// not all in their Parquet file. It returns how many it wrote.
func (c *Compactor) Compact(ctx context.Context) (int, error) {
	today := c.now().UTC().Format(seedengine.DateLayout)
	written := 0
	for {
		due, err := c.store.ParquetDue(ctx, today, 100)
		if err != nil || len(due) == 0 {
			return written, err
		}
		for _, p := range due {
			if err := c.write(ctx, p); err != nil {
				return written, err
			}
			written++
		}
	}
}

// write writes partition p's Parquet file and marks it.
func (c *Compactor) write(ctx context.Context, p seedengine.Partition) error {
	key, err := layout.ArticleParquetKey(p)
	if err != nil {
		return err
	}
	var seq iter.Seq2[*seedengine.Article, error] = func(yield func(*seedengine.Article, error) bool) {
		err := c.store.ArticlesOfPartition(ctx, p, func(a *seedengine.Article) error {
			if !yield(a, nil) {
				return errStop
			}
			return nil
		})
		if err != nil && !errors.Is(err, errStop) {
			yield(nil, err)
		}
	}
	pr, pw := io.Pipe()
	var rows int64
	go func() {
		next, stop := iter.Pull2(seq)
		defer stop()
		n, err := WriteParquet(pw, func() (*seedengine.Article, error) {
			a, err, ok := next()
			if !ok {
				return nil, nil
			}
			return a, err
		})
		rows = n
		pw.CloseWithError(err)
	}()
	size, err := c.objects.Put(ctx, key, pr, "application/vnd.apache.parquet")
	_ = pr.CloseWithError(io.ErrClosedPipe) // stops the writer if Put gave up early
	if err != nil {
		return fmt.Errorf("write %s: %w", key, err)
	}
	if err := c.store.MarkParquetWritten(ctx, p, rows, size); err != nil {
		return err
	}
	c.log.Info("article parquet file written", "event", "article_parquet_written", "key", key, "articles", rows, "bytes", size)
	return nil
}
