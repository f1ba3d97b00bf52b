package jobs

import (
	"context"
	"time"
)

// orphanSweeper is implemented by batch services that can find chunks whose
// job can no longer run (sqlstore.BatchService). River's rescuer discards a
// job whose process was killed during its last attempt without calling the
// worker; the sweep fails such chunks so their batch finishes.
type orphanSweeper interface {
	FailOrphanedChunks(ctx context.Context, grace time.Duration) (int, error)
}

// sweepGrace keeps the sweep away from chunks touched moments ago.
const sweepGrace = time.Minute

// startSweeper runs the sweep at start and every SweepInterval until
// stopSweeper. Every process sweeps; failing a chunk twice is harmless.
func (q *Queue) startSweeper() {
	sw, ok := q.batches.(orphanSweeper)
	if !ok {
		return
	}
	q.sweepStop, q.sweepDone = make(chan struct{}), make(chan struct{})
	go func(stop, done chan struct{}) {
		defer close(done)
		t := time.NewTicker(q.cfg.SweepInterval)
		defer t.Stop()
		for {
			q.sweepOnce(sw)
			select {
			case <-stop:
				return
			case <-t.C:
			}
		}
	}(q.sweepStop, q.sweepDone)
}

func (q *Queue) stopSweeper() {
	if q.sweepStop == nil {
		return
	}
	close(q.sweepStop)
	<-q.sweepDone
	q.sweepStop, q.sweepDone = nil, nil
}

func (q *Queue) sweepOnce(sw orphanSweeper) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	n, err := sw.FailOrphanedChunks(ctx, sweepGrace)
	switch {
	case err != nil:
		q.log.Error("sweep for orphaned chunks failed", "event", "orphan_sweep_failed", "err", err)
	case n > 0:
		q.log.Warn("failed chunks whose job can no longer run", "event", "orphaned_chunks_failed", "chunks", n)
	}
}
