package jobs

import (
	"context"
	"fmt"
	"time"

	"github.com/seedengine/seedengine"
)

// orphanReason is recorded on a chunk failed by FailOrphanedChunks.
const orphanReason = "the chunk's job ended without recording an outcome (its process was killed during the last attempt)"

// sweepGrace keeps the sweep away from chunks touched moments ago.
const sweepGrace = time.Minute

// startSweeper runs the sweep at start and every SweepInterval until
// stopSweeper. Every process sweeps; failing a chunk twice is harmless.
func (q *Queue) startSweeper() {
	q.sweepStop, q.sweepDone = make(chan struct{}), make(chan struct{})
	go func(stop, done chan struct{}) {
		defer close(done)
		t := time.NewTicker(q.cfg.SweepInterval)
		defer t.Stop()
		for {
			q.sweepOnce()
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

func (q *Queue) sweepOnce() {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	n, err := q.FailOrphanedChunks(ctx, sweepGrace)
	switch {
	case err != nil:
		q.log.Error("sweep for orphaned chunks failed", "event", "orphan_sweep_failed", "err", err)
	case n > 0:
		q.log.Warn("failed chunks whose job can no longer run", "event", "orphaned_chunks_failed", "chunks", n)
	}
}

// FailOrphanedChunks fails, as final, every chunk still queued or running
// whose job can no longer run: discarded, cancelled or gone. River's
// rescuer discards a job whose process was killed during its last attempt
// without calling the worker, so without this sweep the chunk — and its
// batch — would stay open forever. Chunks touched within grace are left
// alone, so a job that is being inserted or picked up is never mistaken
// for an orphan. It returns how many chunks it failed.
func (q *Queue) FailOrphanedChunks(ctx context.Context, grace time.Duration) (int, error) {
	open, err := q.batches.FindOpenChunks(ctx, time.Now().Add(-grace))
	if err != nil || len(open) == 0 {
		return 0, err
	}
	// Two linear scans joined here, not a correlated subquery: the job's
	// batch and chunk live inside its JSON args, which no index covers, and
	// an orchestration can hold tens of thousands of open chunks and jobs.
	argBatch, argChunk := `json_extract(args, '$.batch_id')`, `json_extract(args, '$.chunk')`
	if q.engine == EnginePostgres {
		argBatch, argChunk = `args->>'batch_id'`, `(args->>'chunk')::bigint`
	}
	rows, err := q.readDB().QueryContext(ctx, `SELECT `+argBatch+`, `+argChunk+` FROM river_job
		WHERE state IN ('available', 'pending', 'retryable', 'running', 'scheduled')
		AND `+argBatch+` IS NOT NULL AND `+argChunk+` IS NOT NULL`)
	if err != nil {
		return 0, fmt.Errorf("find orphaned chunks: %w", err)
	}
	defer rows.Close()
	live := make(map[seedengine.ChunkRef]bool)
	for rows.Next() {
		var r seedengine.ChunkRef
		if err := rows.Scan(&r.BatchID, &r.Chunk); err != nil {
			return 0, fmt.Errorf("find orphaned chunks: %w", err)
		}
		live[r] = true
	}
	if err := rows.Err(); err != nil {
		return 0, fmt.Errorf("find orphaned chunks: %w", err)
	}
	n := 0
	for _, r := range open {
		if live[r] {
			continue
		}
		if err := q.failChunk(ctx, r.BatchID, r.Chunk, orphanReason, true); err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}
