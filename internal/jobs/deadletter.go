package jobs

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/seedengine/seedengine"
)

// Dead letters are River jobs in the discarded state (every attempt used)
// or the cancelled state (failed at once: input no retry can fix). They are
// read with River's own listing, so both engines' schemas are handled by
// River, and counted with one SQL query on the read pool.

// deadStates are the River states of a dead letter.
var deadStates = []rivertype.JobState{rivertype.JobStateDiscarded, rivertype.JobStateCancelled}

// maxDeadLetterWindow bounds offset+limit: River lists at most 10,000 jobs
// at a time.
const maxDeadLetterWindow = 10_000

// FindDeadLetters returns dead letters, newest first, optionally of one job
// kind, and how many there are. Offset and limit together are at most
// 10,000 (EINVALID beyond).
func (q *Queue) FindDeadLetters(ctx context.Context, kind string, limit, offset int) ([]*seedengine.DeadLetter, int, error) {
	if limit < 1 || offset < 0 || offset+limit > maxDeadLetterWindow {
		return nil, 0, seedengine.FieldErrorf("offset", "offset plus limit must be at most %d", maxDeadLetterWindow)
	}
	countSQL := `SELECT COUNT(*) FROM river_job WHERE state IN ('discarded', 'cancelled')`
	args := []any{}
	if kind != "" {
		countSQL += ` AND kind = $1`
		args = append(args, kind)
	}
	var total int
	if err := q.readDB().QueryRowContext(ctx, countSQL, args...).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("count dead letters: %w", err)
	}
	if total <= offset {
		return []*seedengine.DeadLetter{}, total, nil
	}
	params := river.NewJobListParams().States(deadStates...).OrderBy(river.JobListOrderByID, river.SortOrderDesc).First(offset + limit)
	if kind != "" {
		params = params.Kinds(kind)
	}
	res, err := q.client.JobList(ctx, params)
	if err != nil {
		return nil, 0, fmt.Errorf("list dead letters: %w", err)
	}
	out := []*seedengine.DeadLetter{}
	for i, j := range res.Jobs {
		if i >= offset {
			out = append(out, deadLetter(j))
		}
	}
	return out, total, nil
}

// RetryDeadLetter puts a dead letter back on the queue with one more
// attempt. When the job is a batch chunk's, the chunk goes back to queued
// (its failure undone in the batch's counters) in the same transaction, so
// the batch is open again exactly when its job is. ENOTFOUND for an
// unknown job; ECONFLICT for a job that is not a dead letter.
func (q *Queue) RetryDeadLetter(ctx context.Context, id int64) (*seedengine.DeadLetter, error) {
	j, err := q.client.JobGet(ctx, id)
	if errors.Is(err, river.ErrNotFound) {
		return nil, seedengine.Errorf(seedengine.ENOTFOUND, "job %d does not exist", id)
	}
	if err != nil {
		return nil, fmt.Errorf("find job %d: %w", id, err)
	}
	if j.State != rivertype.JobStateDiscarded && j.State != rivertype.JobStateCancelled {
		return nil, &seedengine.Error{Code: seedengine.ECONFLICT, Field: "id",
			Message: fmt.Sprintf("job %d is %s, not a dead letter (discarded or cancelled)", id, j.State)}
	}
	dl := deadLetter(j)
	retry := func(tx *sql.Tx) error {
		row, err := q.client.JobRetryTx(ctx, tx, id)
		if err != nil {
			return fmt.Errorf("retry job %d: %w", id, err)
		}
		dl = deadLetter(row)
		return nil
	}
	if dl.BatchID != "" && dl.Chunk != nil && j.Kind != (BatchFinishedArgs{}).Kind() {
		err := q.batches.InTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
			if err := q.batches.ReopenChunkTx(ctx, tx, dl.BatchID, *dl.Chunk); err != nil {
				return err
			}
			return retry(tx)
		})
		if err != nil {
			return nil, err
		}
	} else {
		tx, err := q.db.BeginTx(ctx, nil)
		if err != nil {
			return nil, fmt.Errorf("retry job %d: %w", id, err)
		}
		defer func() { _ = tx.Rollback() }()
		if err := retry(tx); err != nil {
			return nil, err
		}
		if err := tx.Commit(); err != nil {
			return nil, fmt.Errorf("retry job %d: %w", id, err)
		}
	}
	q.log.Info("dead letter retried", "event", "dead_letter_retried", "job_id", id, "kind", j.Kind, "batch_id", dl.BatchID)
	return dl, nil
}

// deadLetter describes a job row; the batch and chunk come from its args
// when it has them.
func deadLetter(j *rivertype.JobRow) *seedengine.DeadLetter {
	dl := &seedengine.DeadLetter{
		ID: j.ID, Kind: j.Kind, Queue: j.Queue, State: string(j.State), Args: json.RawMessage(j.EncodedArgs),
		Attempts: j.Attempt, MaxAttempts: j.MaxAttempts, CreatedAt: j.CreatedAt.UTC(), FailedAt: j.FinalizedAt,
	}
	if n := len(j.Errors); n > 0 {
		dl.LastError = j.Errors[n-1].Error
	}
	var ref struct {
		BatchID string `json:"batch_id"`
		Chunk   *int   `json:"chunk"`
	}
	if json.Unmarshal(j.EncodedArgs, &ref) == nil {
		dl.BatchID, dl.Chunk = ref.BatchID, ref.Chunk
	}
	return dl
}

var _ seedengine.DeadLetterService = (*Queue)(nil)
