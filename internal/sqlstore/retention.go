package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/seedengine/seedengine"
)

// pruneRows is how many rows one pruning transaction deletes at most: a
// few milliseconds of the writer on either engine, so jobs' writes wait
// no longer than that.
const pruneRows = 500

// Pruned counts what one Prune removed, by table.
type Pruned struct {
	Batches         int64 `json:"batches"`
	BatchChunks     int64 `json:"batch_chunks"`
	LivenessResults int64 `json:"liveness_results"`
	MetadataTasks   int64 `json:"metadata_tasks"`
	ConsoleSessions int64 `json:"console_sessions"`
}

// Total is the number of rows removed.
func (p Pruned) Total() int64 {
	return p.Batches + p.BatchChunks + p.LivenessResults + p.MetadataTasks + p.ConsoleSessions
}

// RetentionService deletes what the deployment no longer keeps.
type RetentionService struct{ db *DB }

// NewRetentionService returns a RetentionService on db.
func NewRetentionService(db *DB) *RetentionService { return &RetentionService{db: db} }

// Prune deletes, in transactions of at most a few hundred rows each:
//   - batches that finished before `before`, with their chunks and their
//     liveness results, except each domain's latest result (the one its
//     verdict in domain_liveness comes from, kept forever);
//   - metadata tasks that finished before `before`, except the newest of
//     each status (the snapshot's last sync reads them);
//   - console sessions past their end at now.
//
// A batch's rows go chunks and results first, the batch row last, so a
// Prune cut short leaves a batch whole or partly pruned, never a chunk
// without its batch; the next Prune finishes it.
func (s *RetentionService) Prune(ctx context.Context, before, now time.Time) (Pruned, error) {
	var p Pruned
	for {
		ids, err := s.finishedBatches(ctx, before)
		if err != nil {
			return p, err
		}
		for _, id := range ids {
			if err := s.pruneBatch(ctx, id, &p); err != nil {
				return p, err
			}
		}
		if len(ids) < pruneRows {
			break
		}
	}
	n, err := s.deleteInSteps(ctx, `DELETE FROM metadata_tasks WHERE id IN (SELECT id FROM metadata_tasks
		WHERE status IN ('succeeded', 'failed', 'skipped_unchanged') AND finished_at < $1
		AND id NOT IN (SELECT max(id) FROM metadata_tasks GROUP BY status) LIMIT `+fmt.Sprint(pruneRows)+`)`, s.db.timeArg(before))
	p.MetadataTasks += n
	if err != nil {
		return p, fmt.Errorf("prune metadata tasks: %w", err)
	}
	n, err = s.deleteInSteps(ctx, `DELETE FROM console_sessions WHERE id IN (SELECT id FROM console_sessions
		WHERE expires_at < $1 LIMIT `+fmt.Sprint(pruneRows)+`)`, s.db.timeArg(now))
	p.ConsoleSessions += n
	if err != nil {
		return p, fmt.Errorf("prune console sessions: %w", err)
	}
	return p, nil
}

// finishedBatches is up to pruneRows batches that finished before t.
func (s *RetentionService) finishedBatches(ctx context.Context, t time.Time) ([]string, error) {
	rows, err := s.db.reader.QueryContext(ctx, `SELECT id FROM batches
		WHERE status IN ($2, $3, $4, $5) AND finished_at < $1 ORDER BY id LIMIT `+fmt.Sprint(pruneRows), s.db.timeArg(t),
		seedengine.BatchCompleted, seedengine.BatchCompletedWithErrors, seedengine.BatchFailed, seedengine.BatchCancelled)
	if err != nil {
		return nil, fmt.Errorf("prune batches: %w", err)
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("prune batches: %w", err)
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}

// pruneBatch deletes one finished batch: its liveness results but the
// latest of each domain, its chunks, then the batch.
func (s *RetentionService) pruneBatch(ctx context.Context, id string, p *Pruned) error {
	n, err := s.deleteInSteps(ctx, `DELETE FROM liveness_results WHERE id IN (SELECT r.id FROM liveness_results r
		WHERE r.batch_id = $1 AND NOT EXISTS (SELECT 1 FROM domain_liveness d WHERE d.domain = r.domain AND d.batch_id = r.batch_id)
		LIMIT `+fmt.Sprint(pruneRows)+`)`, id)
	p.LivenessResults += n
	if err != nil {
		return fmt.Errorf("prune batch %s: %w", id, err)
	}
	n, err = s.deleteInSteps(ctx, `DELETE FROM batch_chunks WHERE batch_id = $1 AND chunk_index IN (SELECT chunk_index FROM batch_chunks
		WHERE batch_id = $1 LIMIT `+fmt.Sprint(pruneRows)+`)`, id)
	p.BatchChunks += n
	if err != nil {
		return fmt.Errorf("prune batch %s: %w", id, err)
	}
	n, err = s.deleteInSteps(ctx, `DELETE FROM batches WHERE id = $1`, id)
	p.Batches += n
	if err != nil {
		return fmt.Errorf("prune batch %s: %w", id, err)
	}
	return nil
}

// deleteInSteps runs query, a DELETE of at most pruneRows rows, in
// transactions of its own until it deletes fewer, and returns how many
// rows it deleted.
func (s *RetentionService) deleteInSteps(ctx context.Context, query string, args ...any) (int64, error) {
	var total int64
	for {
		var n int64
		err := s.db.inTx(ctx, func(tx *sql.Tx) error {
			res, err := tx.ExecContext(ctx, query, args...)
			if err != nil {
				return err
			}
			n, err = res.RowsAffected()
			return err
		})
		total += n
		if err != nil || n < pruneRows {
			return total, err
		}
		if err := ctx.Err(); err != nil {
			return total, err
		}
	}
}
