package sqlstore

import (
	"context"
	"fmt"
	"time"

	"github.com/seedengine/seedengine"
)

// FindOpenChunks lists the chunks still queued or running that were last
// touched before t, for the queue's sweep (internal/jobs), which fails those
// whose job can no longer run. One linear scan: the sweep joins it with
// the queue's jobs in memory, since a job's batch and chunk live in its
// JSON args, which no index covers.
func (s *BatchService) FindOpenChunks(ctx context.Context, before time.Time) ([]seedengine.ChunkRef, error) {
	rows, err := s.db.reader.QueryContext(ctx, `SELECT batch_id, chunk_index FROM batch_chunks
		WHERE status IN ($1, $2) AND updated_at < $3`,
		string(seedengine.ChunkQueued), string(seedengine.ChunkRunning), s.db.timeArg(before.UTC()))
	if err != nil {
		return nil, fmt.Errorf("find open chunks: %w", err)
	}
	defer rows.Close()
	var open []seedengine.ChunkRef
	for rows.Next() {
		var r seedengine.ChunkRef
		if err := rows.Scan(&r.BatchID, &r.Chunk); err != nil {
			return nil, fmt.Errorf("find open chunks: %w", err)
		}
		open = append(open, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("find open chunks: %w", err)
	}
	return open, nil
}
