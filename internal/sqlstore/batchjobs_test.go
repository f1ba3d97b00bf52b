package sqlstore_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/sqlstore"
)

// jobsStore drives the store's batch writes as internal/jobs does: each
// runs in a transaction of the store (InTx, InChunkTx), and what the write
// calls for — the jobs of new chunks, what follows a finished batch — is
// handed to Enqueuer inside it, so the tests see what the queue would be
// asked for and that a failure there rolls the write back.
type jobsStore struct {
	*sqlstore.BatchService
	Enqueuer batchEnqueuer
}

type batchEnqueuer interface {
	EnqueueBatchTx(ctx context.Context, tx *sql.Tx, b *seedengine.Batch, chunks []*seedengine.BatchChunk) error
}

// batchFinisher is a batchEnqueuer that also hears of finished batches.
type batchFinisher interface {
	EnqueueBatchFinishedTx(ctx context.Context, tx *sql.Tx, b *seedengine.Batch) error
}

func newJobsStore(db *sqlstore.DB) *jobsStore {
	return &jobsStore{BatchService: sqlstore.NewBatchService(db)}
}

var errNoEnqueuer = errors.New("jobsStore: no Enqueuer")

func (s *jobsStore) CreateBatch(ctx context.Context, b *seedengine.Batch, chunks []*seedengine.BatchChunk) error {
	if s.Enqueuer == nil {
		return errNoEnqueuer
	}
	return s.InTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		if err := s.InsertBatchTx(ctx, tx, b, chunks); err != nil {
			return err
		}
		return s.Enqueuer.EnqueueBatchTx(ctx, tx, b, chunks)
	})
}

func (s *jobsStore) follow(ctx context.Context, tx *sql.Tx, w sqlstore.ChunkWrite) error {
	if len(w.Spawned) > 0 {
		if s.Enqueuer == nil {
			return errNoEnqueuer
		}
		if err := s.Enqueuer.EnqueueBatchTx(ctx, tx, w.Batch, w.Spawned); err != nil {
			return fmt.Errorf("enqueue %d spawned chunks: %w", len(w.Spawned), err)
		}
	}
	if f, ok := s.Enqueuer.(batchFinisher); ok && w.Finished {
		if err := f.EnqueueBatchFinishedTx(ctx, tx, w.Batch); err != nil {
			return fmt.Errorf("enqueue batch finished: %w", err)
		}
	}
	return nil
}

func (s *jobsStore) CompleteBatchChunk(ctx context.Context, batchID string, index int, out seedengine.ChunkOutcome, inTx func(*sql.Tx) error) error {
	return s.InChunkTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		w, err := s.CompleteChunkTx(ctx, tx, batchID, index, out)
		if err != nil {
			return err
		}
		if err := s.follow(ctx, tx, w); err != nil {
			return err
		}
		if inTx != nil {
			return inTx(tx)
		}
		return nil
	})
}

func (s *jobsStore) FailBatchChunk(ctx context.Context, batchID string, index int, reason string, final bool) error {
	return s.InChunkTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		w, err := s.FailChunkTx(ctx, tx, batchID, index, reason, final)
		if err != nil {
			return err
		}
		return s.follow(ctx, tx, w)
	})
}

func (s *jobsStore) ReopenBatchChunk(ctx context.Context, batchID string, index int, inTx func(*sql.Tx) error) error {
	return s.InTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		if err := s.ReopenChunkTx(ctx, tx, batchID, index); err != nil {
			return err
		}
		if inTx != nil {
			return inTx(tx)
		}
		return nil
	})
}

// CompleteBatchChunks records several outcomes in one transaction
// (CompleteChunksTx) and follows each batch's write, as the queue's
// grouped completer does on PostgreSQL.
func (s *jobsStore) CompleteBatchChunks(ctx context.Context, done []sqlstore.ChunkDone) ([]sqlstore.ChunkWrite, error) {
	var writes []sqlstore.ChunkWrite
	err := s.InChunkTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		var err error
		if writes, err = s.CompleteChunksTx(ctx, tx, done); err != nil {
			return err
		}
		for _, w := range writes {
			if err := s.follow(ctx, tx, w); err != nil {
				return err
			}
		}
		return nil
	})
	return writes, err
}
