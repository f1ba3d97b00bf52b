package jobs

import (
	"context"
	"fmt"

	"github.com/riverqueue/river"
)

// QueuePages is the River queue of page fetches (internal/pages).
const QueuePages = "pages"

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
	FetchPage(ctx context.Context, itemID int64) error
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

// QueuePageFetches queues the fetch of each item's page (pages put back
// in the queue after their process's spool was lost).
func (q *Queue) QueuePageFetches(ctx context.Context, itemIDs []int64) error {
	if len(itemIDs) == 0 {
		return nil
	}
	params := make([]river.InsertManyParams, len(itemIDs))
	for i, id := range itemIDs {
		params[i] = river.InsertManyParams{Args: PageFetchArgs{ItemID: id}}
	}
	if _, err := q.client.InsertMany(ctx, params); err != nil {
		return fmt.Errorf("queue page fetches: %w", err)
	}
	return nil
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
	return f.FetchPage(ctx, job.Args.ItemID)
}
