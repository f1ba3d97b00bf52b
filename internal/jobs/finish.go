package jobs

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"time"

	"github.com/riverqueue/river"

	"github.com/seedengine/seedengine"
)

// BatchFinisherFunc runs once a batch has its final status, for work on
// the batch as a whole (merging the objects its chunks wrote, for example).
// It may run more than once for a batch (after a crash, a timeout or a lost
// completion), so it must be idempotent. A returned error is retried with
// backoff up to MaxAttempts, like a chunk job's.
type BatchFinisherFunc func(ctx context.Context, b *seedengine.Batch) error

// BatchFinishedArgs are the args of the job that runs a batch's finisher
// once the batch has its final status.
type BatchFinishedArgs struct {
	BatchID string `json:"batch_id"`
}

// Kind names the job's worker. It is stored with every job, so it never
// changes.
func (BatchFinishedArgs) Kind() string { return "batch_finished" }

// RegisterFinisher makes fn run once each batch of kind has finished. Call
// it before Start; it panics for an unknown kind, a nil fn, a kind
// registered twice or a queue already started, all of which are wiring
// mistakes.
func (q *Queue) RegisterFinisher(kind seedengine.BatchKind, fn func(ctx context.Context, b *seedengine.Batch) error) {
	if !kind.Valid() {
		panic(fmt.Sprintf("jobs: RegisterFinisher of unknown batch kind %q", kind))
	}
	q.mustWire("RegisterFinisher", fn == nil)
	q.mu.Lock()
	defer q.mu.Unlock()
	if _, dup := q.finishers[kind]; dup {
		panic(fmt.Sprintf("jobs: RegisterFinisher of %q twice", kind))
	}
	q.finishers[kind] = fn
}

func (q *Queue) finisher(kind seedengine.BatchKind) BatchFinisherFunc {
	q.mu.RLock()
	defer q.mu.RUnlock()
	return q.finishers[kind]
}

// enqueueFinishedTx inserts the batch_finished job of b in tx, the
// transaction that gives b its final status, when a finisher is registered
// for b's kind; otherwise it does nothing.
func (q *Queue) enqueueFinishedTx(ctx context.Context, tx *sql.Tx, b *seedengine.Batch) error {
	if b == nil || b.ID == "" {
		return seedengine.Errorf(seedengine.EINVALID, "finished batch to enqueue has no id")
	}
	if q.finisher(b.Kind) == nil {
		return nil
	}
	if _, err := q.client.InsertTx(ctx, tx, BatchFinishedArgs{BatchID: b.ID}, nil); err != nil {
		return fmt.Errorf("enqueue finisher of batch %s: %w", b.ID, err)
	}
	return nil
}

// finishWorker runs batch_finished jobs: it loads the batch and calls the
// finisher of its kind.
type finishWorker struct {
	river.WorkerDefaults[BatchFinishedArgs]
	q *Queue
}

// Work implements river.Worker.
func (w *finishWorker) Work(ctx context.Context, job *river.Job[BatchFinishedArgs]) error {
	q, start := w.q, time.Now()
	logf := func(level slog.Level, event string, attrs ...slog.Attr) {
		base := []slog.Attr{
			slog.String("event", event),
			slog.String("kind", job.Kind),
			slog.String("batch_id", job.Args.BatchID),
			slog.Int("attempt", job.Attempt),
			slog.Int64("duration_ms", time.Since(start).Milliseconds()),
		}
		q.log.LogAttrs(ctx, level, event, append(base, attrs...)...)
	}
	fail := func(err error) error {
		level := slog.LevelWarn
		if job.Attempt >= job.MaxAttempts {
			level = slog.LevelError
		}
		attrs := []slog.Attr{slog.Bool("final", job.Attempt >= job.MaxAttempts), slog.String("error", err.Error())}
		var pe *panicError
		if errors.As(err, &pe) {
			attrs = append(attrs, slog.String("stack", string(pe.stack)))
		}
		logf(level, "job_failed", attrs...)
		return err
	}

	b, err := q.batches.FindBatchByID(ctx, job.Args.BatchID)
	if err != nil {
		if seedengine.ErrorCode(err) == seedengine.ENOTFOUND {
			return fail(river.JobCancel(fmt.Errorf("find batch: %w", err)))
		}
		return fail(fmt.Errorf("find batch: %w", err))
	}
	fn := q.finisher(b.Kind)
	if fn == nil {
		// Another process finished the batch; leave the job to a process
		// that has the finisher, within the usual attempts.
		return fail(seedengine.Errorf(seedengine.ENOTIMPLEMENTED, "no finisher for %s batches in this process", b.Kind))
	}
	if err := runFinisher(ctx, fn, b); err != nil {
		return fail(err)
	}
	logf(slog.LevelInfo, "job_completed", slog.String("status", string(b.Status)))
	return nil
}

// runFinisher turns a panic into an error so the attempt is retried like
// any other failure.
func runFinisher(ctx context.Context, fn BatchFinisherFunc, b *seedengine.Batch) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = &panicError{value: v, stack: debug.Stack()}
		}
	}()
	return fn(ctx, b)
}
