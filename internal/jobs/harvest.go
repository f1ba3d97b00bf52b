package jobs

import (
	"context"
	"fmt"
	"time"

	"github.com/riverqueue/river"
)

// QueueItems is the River queue of item file jobs (internal/harvest): one
// worker per process, and one job waiting or running at a time.
const QueueItems = "items"

// ItemFlushArgs are the args of the periodic job that writes the
// harvested items that are due to their files and prunes the dedupe
// window.
type ItemFlushArgs struct{}

// Kind names the job's worker. It is stored with every job, so it never
// changes.
func (ItemFlushArgs) Kind() string { return "item_flush" }

// InsertOpts puts flush jobs on QueueItems, one waiting or running at a
// time: a flush that takes longer than the period is not doubled.
func (ItemFlushArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: QueueItems, UniqueOpts: river.UniqueOpts{
		ByState: unfinished,
	}}
}

// ItemFlusher writes item files; internal/harvest's Flusher is one.
type ItemFlusher interface {
	Flush(ctx context.Context, all bool) (int, error)
	Prune(ctx context.Context) (int64, error)
}

// RegisterItemFlush makes f write the item files every that often (on the
// leader process only; 0 turns the schedule off) and prune the dedupe
// window at most hourly. Call it before Start.
func (q *Queue) RegisterItemFlush(f ItemFlusher, every time.Duration) {
	q.mustWire("RegisterItemFlush", f == nil)
	q.mu.Lock()
	q.itemFlusher = f
	q.mu.Unlock()
	q.addPeriodic(every, ItemFlushArgs{}, false)
}

type itemFlushWorker struct {
	river.WorkerDefaults[ItemFlushArgs]
	q *Queue
}

// Work implements river.Worker.
func (w *itemFlushWorker) Work(ctx context.Context, job *river.Job[ItemFlushArgs]) error {
	w.q.mu.RLock()
	f := w.q.itemFlusher
	w.q.mu.RUnlock()
	if f == nil {
		return fmt.Errorf("no item flusher in this process")
	}
	if last, now := w.q.lastItemPrune.Load(), time.Now().UnixNano(); time.Duration(now-last) >= pruneEvery && w.q.lastItemPrune.CompareAndSwap(last, now) {
		if n, err := f.Prune(ctx); err != nil {
			w.q.log.Warn("forget URLs past the dedupe window", "event", "harvest_prune_failed", "err", err)
			w.q.lastItemPrune.CompareAndSwap(now, last)
		} else if n > 0 {
			w.q.log.Info("forgot URLs past the dedupe window", "event", "harvest_pruned", "urls", n)
		}
	}
	_, err := f.Flush(ctx, false)
	return err
}
