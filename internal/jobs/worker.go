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
	"github.com/riverqueue/river/riverdriver/riverdatabasesql"
	"github.com/riverqueue/river/riverdriver/riversqlite"
	"github.com/riverqueue/river/rivertype"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/sqlstore"
)

// ChunkProcessor processes one chunk of a batch and reports what it
// produced. The outcome is recorded exactly once, but the processor may run
// more than once for a chunk (after a crash, a timeout or a lost
// completion), so any effect it has outside the database must be
// idempotent. A returned error is retried with backoff up to MaxAttempts; an
// EINVALID error (or river.JobCancel) fails the chunk at once, for input
// that no retry can fix. It must return soon after ctx is done.
type ChunkProcessor func(ctx context.Context, b *seedengine.Batch, c *seedengine.BatchChunk) (seedengine.ChunkOutcome, error)

// interruptedRetryDelay is how soon a job cut short by a shutdown may run
// again, here or in another process.
const interruptedRetryDelay = time.Second

// maxReasonLen caps the error text stored on a chunk.
const maxReasonLen = 1000

// chunkWorker runs the chunk jobs of one job type of a batch kind. It is
// generic only so River can decode each type's args; all the work is in
// Queue.work.
type chunkWorker[J ChunkJob] struct {
	river.WorkerDefaults[J]
	q    *Queue
	kind seedengine.BatchKind
}

// Work implements river.Worker.
func (w *chunkWorker[J]) Work(ctx context.Context, job *river.Job[J]) error {
	ref := struct{ seedengine.ChunkRef }(job.Args).ChunkRef
	return w.q.work(ctx, job.JobRow, w.kind, ref.BatchID, ref.Chunk, func(ctx context.Context, tx *sql.Tx) error {
		return completeJobTx(ctx, w.q.engine, tx, job)
	})
}

// completeJobTx completes job in tx, the transaction that records the
// chunk's outcome, so that outcome and completion commit together.
func completeJobTx[T river.JobArgs](ctx context.Context, engine string, tx *sql.Tx, job *river.Job[T]) error {
	var err error
	if engine == EngineSQLite {
		_, err = river.JobCompleteTx[*riversqlite.Driver](ctx, tx, job)
	} else {
		_, err = river.JobCompleteTx[*riverdatabasesql.Driver](ctx, tx, job)
	}
	if err != nil {
		// Most likely the job is no longer running because it was rescued
		// as stuck; rolling back leaves the chunk to the rescued run.
		return fmt.Errorf("complete job %d: %w", job.ID, err)
	}
	return nil
}

// completeJob completes job in a transaction of its own, at once.
func completeJob[T river.JobArgs](ctx context.Context, q *Queue, job *river.Job[T]) error {
	tx, err := q.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback() }()
	if err := completeJobTx(ctx, q.engine, tx, job); err != nil {
		return err
	}
	return tx.Commit()
}

// jobRun is one execution of one chunk job.
type jobRun struct {
	q       *Queue
	job     *rivertype.JobRow
	batchID string
	index   int
	start   time.Time
}

func (q *Queue) work(ctx context.Context, job *rivertype.JobRow, kind seedengine.BatchKind, batchID string, index int, complete func(context.Context, *sql.Tx) error) error {
	r := &jobRun{q: q, job: job, batchID: batchID, index: index, start: time.Now()}

	p := q.processor(kind)
	if p == nil {
		// Another process accepted the batch; leave the chunk to a process
		// that can run it, within the usual attempts.
		return r.fail(ctx, seedengine.Errorf(seedengine.ENOTIMPLEMENTED, "no processor for %s batches in this process", kind), true)
	}
	b, c, err := q.startChunk(ctx, batchID, index)
	if err != nil {
		if seedengine.ErrorCode(err) == seedengine.ENOTFOUND {
			return r.fail(ctx, river.JobCancel(err), false)
		}
		return r.fail(ctx, err, true)
	}

	out := seedengine.ChunkOutcome{}
	recorded := false
	switch {
	case b.Status == seedengine.BatchCancelled || c.Status == seedengine.ChunkCancelled:
		return r.fail(ctx, river.JobCancel(errors.New("batch cancelled")), false)
	case c.Status == seedengine.ChunkDone || c.Status == seedengine.ChunkFailed:
		// An earlier run recorded the outcome; only the job is left to
		// complete, which completeChunk does without counting again.
		recorded = true
	default:
		out, err = runProcessor(ctx, p, b, c)
		if err != nil {
			return r.fail(ctx, err, true)
		}
	}

	// Work that finished is recorded even if the job's context ends now.
	cctx, cancel := bookkeepingContext(ctx)
	defer cancel()
	if q.groups != nil && len(out.Spawn) == 0 {
		err = q.groups.complete(cctx, job.ID, sqlstore.ChunkDone{BatchID: batchID, Index: index, Out: out})
	} else {
		err = q.completeChunk(cctx, batchID, index, out, complete)
	}
	if err != nil {
		return r.fail(ctx, fmt.Errorf("complete chunk: %w", err), true)
	}
	r.log(ctx, slog.LevelInfo, "job_completed",
		slog.Int("succeeded", out.Succeeded), slog.Int("failed", out.Failed), slog.Bool("already_recorded", recorded))
	if out.AfterCommit != nil {
		if err := out.AfterCommit(cctx); err != nil {
			r.log(ctx, slog.LevelWarn, "job_after_commit_failed", slog.String("error", err.Error()))
		}
	}
	return nil
}

// startChunk marks the chunk running and returns it and its batch, in one
// transaction (on PostgreSQL one statement, shared with the starts that
// queue behind it: complete.go).
func (q *Queue) startChunk(ctx context.Context, batchID string, index int) (*seedengine.Batch, *seedengine.BatchChunk, error) {
	var (
		b   *seedengine.Batch
		c   *seedengine.BatchChunk
		err error
	)
	if q.groups != nil {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		b, c, err = q.groups.start(batchID, index)
	} else {
		b, c, err = q.batches.StartFindBatchChunk(ctx, batchID, index)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("start chunk: %w", err)
	}
	return b, c, nil
}

// runProcessor turns a panic into an error so the attempt is recorded on the
// chunk like any other failure.
func runProcessor(ctx context.Context, p ChunkProcessor, b *seedengine.Batch, c *seedengine.BatchChunk) (out seedengine.ChunkOutcome, err error) {
	defer func() {
		if v := recover(); v != nil {
			err = &panicError{value: v, stack: debug.Stack()}
		}
	}()
	return p(ctx, b, c)
}

type panicError struct {
	value any
	stack []byte
}

func (e *panicError) Error() string { return fmt.Sprintf("chunk processor panicked: %v", e.value) }

// fail records a failed attempt on the chunk (unless record is false, when
// there is no chunk to record on) and returns the error that tells River
// what to do next: retry with backoff, cancel for good, or snooze a job cut
// short by a shutdown without using up an attempt.
func (r *jobRun) fail(ctx context.Context, err error, record bool) error {
	final := r.job.Attempt >= r.job.MaxAttempts
	ret := err
	event := "job_failed"
	var cancelErr *river.JobCancelError
	switch {
	case errors.As(err, &cancelErr):
		final = true
	case seedengine.ErrorCode(err) == seedengine.EINVALID:
		final = true
		ret = river.JobCancel(err)
	case ctx.Err() != nil && r.q.stopping():
		final = false
		ret = river.JobSnooze(interruptedRetryDelay)
		event = "job_interrupted"
	}

	attrs := []slog.Attr{slog.Bool("final", final), slog.String("error", err.Error())}
	if record {
		bctx, cancel := bookkeepingContext(ctx)
		defer cancel()
		if ferr := r.q.failChunk(bctx, r.batchID, r.index, reason(err), final); ferr != nil {
			attrs = append(attrs, slog.String("record_error", ferr.Error()))
		}
	}
	var pe *panicError
	if errors.As(err, &pe) {
		attrs = append(attrs, slog.String("stack", string(pe.stack)))
	}
	level := slog.LevelWarn
	switch {
	case event == "job_interrupted":
		level = slog.LevelInfo
	case final:
		level = slog.LevelError
	}
	r.log(ctx, level, event, attrs...)
	return ret
}

func (r *jobRun) log(ctx context.Context, level slog.Level, event string, attrs ...slog.Attr) {
	base := []slog.Attr{
		slog.String("event", event),
		slog.String("kind", r.job.Kind),
		slog.String("batch_id", r.batchID),
		slog.Int("chunk", r.index),
		slog.Int("attempt", r.job.Attempt),
		slog.Int64("duration_ms", time.Since(r.start).Milliseconds()),
	}
	r.q.log.LogAttrs(ctx, level, event, append(base, attrs...)...)
}

func bookkeepingContext(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), bookkeepingTimeout)
}

func reason(err error) string { return seedengine.Truncate(err.Error(), maxReasonLen) }
