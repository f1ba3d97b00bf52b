package jobs

import (
	"context"
	"time"

	"github.com/riverqueue/river"
)

// RetentionArgs are the args of the periodic job that deletes what the
// deployment keeps no longer (finished batches, old liveness results,
// metadata tasks, console sessions: sqlstore.RetentionService).
type RetentionArgs struct{}

// Kind names the job's worker.
func (RetentionArgs) Kind() string { return "retention" }

// InsertOpts: one waiting or running at a time.
func (RetentionArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{UniqueOpts: river.UniqueOpts{
		ByState: unfinished,
	}}
}

// RegisterRetention runs prune every so often on the leader (0: never),
// and once at start. Call it before Start.
func (q *Queue) RegisterRetention(prune func(context.Context) error, every time.Duration) {
	q.mustWire("RegisterRetention", prune == nil)
	q.mu.Lock()
	q.prune = prune
	q.mu.Unlock()
	q.addPeriodic(every, RetentionArgs{}, true)
}

type retentionWorker struct {
	river.WorkerDefaults[RetentionArgs]
	q *Queue
}

// Work implements river.Worker.
func (w *retentionWorker) Work(ctx context.Context, _ *river.Job[RetentionArgs]) error {
	w.q.mu.RLock()
	prune := w.q.prune
	w.q.mu.RUnlock()
	if prune == nil {
		return nil
	}
	return prune(ctx)
}
