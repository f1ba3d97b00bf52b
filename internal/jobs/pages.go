package jobs

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/riverqueue/river"
)

// QueuePages is the River queue of page fetches (internal/pages).
const QueuePages = "pages"

// DefaultPageWorkers is Config.PageWorkers' default: enough pages in
// hand for a thousand hosts to have one waiting for its turn each.
const DefaultPageWorkers = 1024

// PageFetchArgs are the args of one page fetch: the item whose page it
// is. Queued with the seed check that recorded the item.
type PageFetchArgs struct {
	ItemID int64 `json:"item_id"`
}

// Kind names the job's worker. It is stored with every job, so it never
// changes.
func (PageFetchArgs) Kind() string { return "page_fetch" }

// InsertOpts puts page fetches on QueuePages.
func (PageFetchArgs) InsertOpts() river.InsertOpts { return river.InsertOpts{Queue: QueuePages} }

// PageFetcher fetches an item's page into its process's WARC spool;
// internal/pages' Fetcher is one.
type PageFetcher interface {
	// FetchPage fetches the page; final says it is the job's last
	// attempt, when a failure that may pass is recorded as the page's
	// instead of returned for a retry.
	FetchPage(ctx context.Context, itemID int64, final bool) error
}

// RegisterPages makes this process fetch pages with f. Call it before
// Start; a process without it refuses page fetch jobs (they wait for one
// that has it).
func (q *Queue) RegisterPages(f PageFetcher) {
	q.mustWire("RegisterPages", f == nil)
	q.mu.Lock()
	q.pageFetcher = f
	q.mu.Unlock()
}

// QueuePageFetchesTx queues, in tx, the fetch of each item's page (pages
// put back in the queue: sqlstore.PageService.RequeuePages calls it in
// its transaction).
func (q *Queue) QueuePageFetchesTx(ctx context.Context, tx *sql.Tx, itemIDs []int64) error {
	if len(itemIDs) == 0 {
		return nil
	}
	params := make([]river.InsertManyParams, len(itemIDs))
	for i, id := range itemIDs {
		params[i] = river.InsertManyParams{Args: PageFetchArgs{ItemID: id}}
	}
	if _, err := q.client.InsertManyTx(ctx, tx, params); err != nil {
		return fmt.Errorf("queue page fetches: %w", err)
	}
	// River sends no wake for an insert within FetchCooldown of the
	// queue's last one (its insert notify limiter): when harvest reads
	// commit in quick succession, the later ones' pages would wait for
	// something else to wake the queue. A wake a slot later (after the
	// commit, most likely) finds them.
	q.pageWake.wakeAt(time.Now().Add(pageWakeSlot))
	return nil
}

// PageSweepArgs are the args of the periodic job that puts back in the
// queue the pages whose spool file will never be stored.
type PageSweepArgs struct{}

// Kind names the job's worker.
func (PageSweepArgs) Kind() string { return "page_sweep" }

// InsertOpts: one waiting or running at a time.
func (PageSweepArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{UniqueOpts: river.UniqueOpts{
		ByState: unfinished,
	}}
}

// RegisterPageSweep runs sweep every so often on the leader (0: never).
// Call it before Start.
func (q *Queue) RegisterPageSweep(sweep func(context.Context) (int, error), every time.Duration) {
	q.mustWire("RegisterPageSweep", sweep == nil)
	q.mu.Lock()
	q.pageSweep = sweep
	q.mu.Unlock()
	q.addPeriodic(every, PageSweepArgs{}, false)
}

type pageSweepWorker struct {
	river.WorkerDefaults[PageSweepArgs]
	q *Queue
}

// Work implements river.Worker.
func (w *pageSweepWorker) Work(ctx context.Context, _ *river.Job[PageSweepArgs]) error {
	w.q.mu.RLock()
	sweep := w.q.pageSweep
	w.q.mu.RUnlock()
	if sweep == nil {
		return nil
	}
	n, err := sweep(ctx)
	if n > 0 {
		w.q.log.Warn("pages whose spool file was lost queued again", "event", "pages_requeued", "pages", n)
	}
	return err
}

type pageFetchWorker struct {
	river.WorkerDefaults[PageFetchArgs]
	q *Queue
}

// Work implements river.Worker.
func (w *pageFetchWorker) Work(ctx context.Context, job *river.Job[PageFetchArgs]) error {
	w.q.mu.RLock()
	f := w.q.pageFetcher
	w.q.mu.RUnlock()
	if f == nil {
		return fmt.Errorf("no page fetcher in this process")
	}
	err := f.FetchPage(ctx, job.Args.ItemID, job.Attempt >= job.MaxAttempts)
	// A page whose host's turn is far off comes back when it is near,
	// without spending a try (pages.DeferError).
	var later interface{ SnoozeFor() time.Duration }
	if errors.As(err, &later) {
		w.q.pageWake.wakeAt(time.Now().Add(later.SnoozeFor()))
		return river.JobSnooze(later.SnoozeFor())
	}
	return err
}
