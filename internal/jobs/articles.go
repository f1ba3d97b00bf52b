package jobs

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/riverqueue/river"
)

// QueueArticles is the River queue of article extractions
// (internal/article): their own, so extraction never holds up a read or
// a page fetch.
const QueueArticles = "articles"

// DefaultArticleWorkers is Config.ArticleWorkers' default: extraction is
// all CPU (a page takes about 10 ms), and one worker a process leaves the
// other cores to the harvest and the fetches.
const DefaultArticleWorkers = 1

// ArticleExtractArgs are the args of one article extraction: the item
// whose stored page it reads. Queued with the transaction that stores
// the page's WARC file, and by the article sweep.
type ArticleExtractArgs struct {
	ItemID int64 `json:"item_id"`
}

// Kind names the job's worker. It is stored with every job, so it never
// changes.
func (ArticleExtractArgs) Kind() string { return "article_extract" }

// InsertOpts puts extractions on QueueArticles, one waiting or running
// per item: the sweep's insert of one already queued is skipped.
func (ArticleExtractArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: QueueArticles, UniqueOpts: river.UniqueOpts{ByArgs: true, ByState: unfinished}}
}

// ArticleExtractor records an item's article; internal/article's
// Extractor is one.
type ArticleExtractor interface {
	ExtractArticle(ctx context.Context, itemID int64) error
}

// RegisterArticles makes this process extract articles with e. Call it
// before Start; a process without it leaves extraction jobs to one that
// has it.
func (q *Queue) RegisterArticles(e ArticleExtractor) {
	q.mustWire("RegisterArticles", e == nil)
	q.mu.Lock()
	q.articleExtractor = e
	q.mu.Unlock()
}

// QueueArticleExtractsTx queues, in tx, the extraction of each item's
// article (sqlstore.PageService calls it in the transaction that marks
// their pages stored).
func (q *Queue) QueueArticleExtractsTx(ctx context.Context, tx *sql.Tx, itemIDs []int64) error {
	if len(itemIDs) == 0 {
		return nil
	}
	params := make([]river.InsertManyParams, len(itemIDs))
	for i, id := range itemIDs {
		params[i] = river.InsertManyParams{Args: ArticleExtractArgs{ItemID: id}}
	}
	if _, err := q.client.InsertManyTx(ctx, tx, params); err != nil {
		return fmt.Errorf("queue article extractions: %w", err)
	}
	return nil
}

type articleExtractWorker struct {
	river.WorkerDefaults[ArticleExtractArgs]
	q *Queue
}

// Work implements river.Worker.
func (w *articleExtractWorker) Work(ctx context.Context, job *river.Job[ArticleExtractArgs]) error {
	w.q.mu.RLock()
	e := w.q.articleExtractor
	w.q.mu.RUnlock()
	if e == nil {
		return fmt.Errorf("no article extractor in this process")
	}
	return e.ExtractArticle(ctx, job.Args.ItemID)
}

// ArticleSweepArgs are the args of the periodic job that queues the
// extraction of stored pages that have no article and no job (a job
// discarded after its attempts, a page stored before this version).
type ArticleSweepArgs struct{}

// Kind names the job's worker.
func (ArticleSweepArgs) Kind() string { return "article_sweep" }

// InsertOpts: one waiting or running at a time.
func (ArticleSweepArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{UniqueOpts: river.UniqueOpts{ByState: unfinished}}
}

// RegisterArticleSweep runs sweep every so often on the leader (0:
// never). Call it before Start.
func (q *Queue) RegisterArticleSweep(sweep func(context.Context) (int, error), every time.Duration) {
	q.mustWire("RegisterArticleSweep", sweep == nil)
	q.mu.Lock()
	q.articleSweep = sweep
	q.mu.Unlock()
	q.addPeriodic(every, ArticleSweepArgs{}, false)
}

type articleSweepWorker struct {
	river.WorkerDefaults[ArticleSweepArgs]
	q *Queue
}

// Work implements river.Worker.
func (w *articleSweepWorker) Work(ctx context.Context, _ *river.Job[ArticleSweepArgs]) error {
	w.q.mu.RLock()
	sweep := w.q.articleSweep
	w.q.mu.RUnlock()
	if sweep == nil {
		return nil
	}
	n, err := sweep(ctx)
	if n > 0 {
		w.q.log.Info("stored pages without an article passed to the queue (one already waiting is not doubled)", "event", "articles_queued", "pages", n)
	}
	return err
}
