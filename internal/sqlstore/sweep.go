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
	argBatch, argChunk := `json_extract(j.args, '$.batch_id')`, `json_extract(j.args, '$.chunk')`
	if s.db.engine == EnginePostgres {
		argBatch, argChunk = `j.args->>'batch_id'`, `(j.args->>'chunk')::bigint`
	}
	rows, err := s.db.reader.QueryContext(ctx, `SELECT c.batch_id, c.chunk_index FROM batch_chunks c
		WHERE c.status IN ($1, $2) AND c.updated_at < $3
		AND NOT EXISTS (SELECT 1 FROM river_job j
			WHERE `+argBatch+` = c.batch_id AND `+argChunk+` = c.chunk_index
			AND j.state IN ('available', 'pending', 'retryable', 'running', 'scheduled'))`,
		string(seedengine.ChunkQueued), string(seedengine.ChunkRunning), s.db.timeArg(nowUTC().Add(-grace)))
	if err != nil {
		return 0, fmt.Errorf("find orphaned chunks: %w", err)
	}
	type ref struct {
		batchID string
		index   int
	}
	var orphans []ref
	for rows.Next() {
		var r ref
		if err := rows.Scan(&r.batchID, &r.index); err != nil {
			rows.Close()
			return 0, fmt.Errorf("find orphaned chunks: %w", err)
		}
		orphans = append(orphans, r)
	}
	if err := rows.Close(); err != nil {
		return 0, fmt.Errorf("find orphaned chunks: %w", err)
	}
	if err := rows.Err(); err != nil {
		return 0, fmt.Errorf("find orphaned chunks: %w", err)
	}
	for _, o := range orphans {
		if err := s.FailBatchChunk(ctx, o.batchID, o.index, orphanReason, true); err != nil {
			return 0, err
		}
	}
	return len(orphans), nil
}
