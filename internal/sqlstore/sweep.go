package sqlstore

import (
	"context"
	"fmt"
	"time"

	"github.com/seedengine/seedengine"
)

// orphanReason is recorded on a chunk failed by FailOrphanedChunks.
const orphanReason = "the chunk's job ended without recording an outcome (its process was killed during the last attempt)"

// FailOrphanedChunks fails, as final, every chunk still queued or running
// whose queue job can no longer run: discarded, cancelled or gone. River's
// rescuer discards a job whose process was killed during its last attempt
// without calling the worker, so without this sweep the chunk — and its
// batch — would stay open forever. Chunks touched within grace are left
// alone, so a job that is being inserted or picked up is never mistaken
// for an orphan. It returns how many chunks it failed.
func (s *BatchService) FailOrphanedChunks(ctx context.Context, grace time.Duration) (int, error) {
	// Two linear scans joined here, not a correlated subquery: the job's
	// batch and chunk live inside its JSON args, which no index covers, and
	// an orchestration can hold tens of thousands of open chunks and jobs.
	type ref struct {
		batchID string
		index   int
	}
	var open []ref
	err := s.scanRows(ctx, `SELECT batch_id, chunk_index FROM batch_chunks
		WHERE status IN ($1, $2) AND updated_at < $3`, func(scan func(...any) error) error {
		var r ref
		if err := scan(&r.batchID, &r.index); err != nil {
			return err
		}
		open = append(open, r)
		return nil
	}, string(seedengine.ChunkQueued), string(seedengine.ChunkRunning), s.db.timeArg(nowUTC().Add(-grace)))
	if err != nil || len(open) == 0 {
		return 0, err
	}
	argBatch, argChunk := `json_extract(args, '$.batch_id')`, `json_extract(args, '$.chunk')`
	if s.db.engine == EnginePostgres {
		argBatch, argChunk = `args->>'batch_id'`, `(args->>'chunk')::bigint`
	}
	live := make(map[ref]bool)
	err = s.scanRows(ctx, `SELECT `+argBatch+`, `+argChunk+` FROM river_job
		WHERE state IN ('available', 'pending', 'retryable', 'running', 'scheduled')
		AND `+argBatch+` IS NOT NULL AND `+argChunk+` IS NOT NULL`, func(scan func(...any) error) error {
		var r ref
		if err := scan(&r.batchID, &r.index); err != nil {
			return err
		}
		live[r] = true
		return nil
	})
	if err != nil {
		return 0, err
	}
	var orphans []ref
	for _, r := range open {
		if !live[r] {
			orphans = append(orphans, r)
		}
	}
	for _, o := range orphans {
		if err := s.FailBatchChunk(ctx, o.batchID, o.index, orphanReason, true); err != nil {
			return 0, err
		}
	}
	return len(orphans), nil
}

// scanRows runs a read-only query and calls fn for each row.
func (s *BatchService) scanRows(ctx context.Context, query string, fn func(scan func(...any) error) error, args ...any) error {
	rows, err := s.db.reader.QueryContext(ctx, query, args...)
	if err != nil {
		return fmt.Errorf("find orphaned chunks: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		if err := fn(rows.Scan); err != nil {
			return fmt.Errorf("find orphaned chunks: %w", err)
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("find orphaned chunks: %w", err)
	}
	return nil
}
