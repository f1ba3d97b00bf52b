package jobs

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/riverqueue/river"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/sqlstore"
)

// Batches and their jobs. The queue owns the transactions that carry
// both: it creates a batch (rows, one River job per chunk, commit) and
// records a chunk's outcome (rows, the jobs of chunks it spawned, the
// batch's finisher job when it finished, the job's completion, commit).
// The store writes rows inside them and says what changed
// (sqlstore.ChunkWrite); nothing in the store knows River.

// Batches is the application's seedengine.BatchService: batches are read
// from the store and created through the queue.
func (q *Queue) Batches() seedengine.BatchService { return batchService{q.batches, q} }

type batchService struct {
	*sqlstore.BatchService
	q *Queue
}

// CreateBatch creates b with its chunks and their jobs; see
// Queue.CreateBatch.
func (s batchService) CreateBatch(ctx context.Context, b *seedengine.Batch, chunks []*seedengine.BatchChunk) error {
	return s.q.CreateBatch(ctx, b, chunks)
}

// CreateBatch writes b and its chunks (sqlstore.BatchService.InsertBatchTx
// says how they are filled in) and one job per chunk in one transaction,
// so a batch and its jobs commit or roll back together. It refuses with
// ENOTIMPLEMENTED a kind no processor is registered for, so no batch is
// accepted that nothing can run.
func (q *Queue) CreateBatch(ctx context.Context, b *seedengine.Batch, chunks []*seedengine.BatchChunk) error {
	return q.batches.InTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		// The store validates the batch first: a bad batch is EINVALID
		// whatever its kind.
		if err := q.batches.InsertBatchTx(ctx, tx, b, chunks); err != nil {
			return err
		}
		if q.processor(b.Kind) == nil {
			return seedengine.Errorf(seedengine.ENOTIMPLEMENTED, "%s batches cannot be processed yet", b.Kind)
		}
		return q.enqueueChunksTx(ctx, tx, b, chunks)
	})
}

// enqueueChunksTx inserts one job per chunk of b in tx.
func (q *Queue) enqueueChunksTx(ctx context.Context, tx *sql.Tx, b *seedengine.Batch, chunks []*seedengine.BatchChunk) error {
	params := make([]river.InsertManyParams, len(chunks))
	for i, c := range chunks {
		p, err := q.chunkJobArgs(b, c)
		if err != nil {
			return err
		}
		params[i] = p
	}
	if _, err := q.client.InsertManyTx(ctx, tx, params); err != nil {
		return fmt.Errorf("enqueue %d jobs of batch %s: %w", len(params), b.ID, err)
	}
	return nil
}

// followTx queues, in the transaction of a chunk write, what the write
// calls for: the jobs of the chunks it spawned and, when it gave the batch
// its final status, the batch's finisher.
func (q *Queue) followTx(ctx context.Context, tx *sql.Tx, w sqlstore.ChunkWrite) error {
	if len(w.Spawned) > 0 {
		if err := q.enqueueChunksTx(ctx, tx, w.Batch, w.Spawned); err != nil {
			return fmt.Errorf("enqueue %d spawned chunks: %w", len(w.Spawned), err)
		}
	}
	if w.Finished {
		if err := q.enqueueFinishedTx(ctx, tx, w.Batch); err != nil {
			return fmt.Errorf("enqueue batch finished: %w", err)
		}
	}
	return nil
}

// completeChunk records a chunk's outcome, queues what follows and calls
// complete (the job's completion), in one transaction: the outcome counts
// exactly once. A chunk already recorded is left as it is and complete is
// still called.
func (q *Queue) completeChunk(ctx context.Context, batchID string, index int, out seedengine.ChunkOutcome, complete func(context.Context, *sql.Tx) error) error {
	return q.batches.InChunkTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		// The job's row first: on PostgreSQL the batch row stays locked
		// from CompleteChunkTx to the commit, so the less comes after it,
		// the sooner the batch's next chunk may record its outcome.
		if err := complete(ctx, tx); err != nil {
			return err
		}
		w, err := q.batches.CompleteChunkTx(ctx, tx, batchID, index, out)
		if err != nil {
			return err
		}
		return q.followTx(ctx, tx, w)
	})
}

// failChunk records a failed attempt of a chunk (final: the chunk failed)
// and queues what follows.
func (q *Queue) failChunk(ctx context.Context, batchID string, index int, reason string, final bool) error {
	return q.batches.InChunkTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		w, err := q.batches.FailChunkTx(ctx, tx, batchID, index, reason, final)
		if err != nil {
			return err
		}
		return q.followTx(ctx, tx, w)
	})
}
