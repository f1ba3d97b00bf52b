package jobs

import (
	"context"
	"fmt"

	"github.com/riverqueue/river"

	"github.com/seedengine/seedengine"
)

// SeedDriftArgs are the args of the job that asks for a new contract run
// for a seed whose health turned moved, gone, failing or stale.
type SeedDriftArgs struct {
	Change seedengine.SeedHealthChange `json:"change"`
}

// Kind names the job's worker. It is stored with every job, so it never
// changes.
func (SeedDriftArgs) Kind() string { return "seed_drift" }

// InsertOpts puts drift jobs on QueueSeedChecks.
func (SeedDriftArgs) InsertOpts() river.InsertOpts { return river.InsertOpts{Queue: QueueSeedChecks} }

// DriftFunc starts the contract run of a drifting seed (cmd queues a
// one-domain contract batch, whose result becomes a proposed version).
type DriftFunc func(ctx context.Context, c seedengine.SeedHealthChange) error

// RegisterSeedDrift makes fn handle drift jobs. Call it before Start.
func (q *Queue) RegisterSeedDrift(fn DriftFunc) {
	q.mustWire("RegisterSeedDrift", fn == nil)
	q.mu.Lock()
	q.drift = fn
	q.mu.Unlock()
}

type seedDriftWorker struct {
	river.WorkerDefaults[SeedDriftArgs]
	q *Queue
}

// Work implements river.Worker.
func (w *seedDriftWorker) Work(ctx context.Context, job *river.Job[SeedDriftArgs]) error {
	w.q.mu.RLock()
	fn := w.q.drift
	w.q.mu.RUnlock()
	if fn == nil {
		return fmt.Errorf("no drift handler in this process")
	}
	return fn(ctx, job.Args.Change)
}
