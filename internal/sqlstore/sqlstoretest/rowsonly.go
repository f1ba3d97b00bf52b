package sqlstoretest

import (
	"context"
	"database/sql"
	"time"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/sqlstore"
)

// RowsOnlyBatches is a seedengine.BatchService over bs whose CreateBatch
// writes the batch's rows and queues no job: for tests of what creates and
// reads batches, where nothing is to run them (internal/jobs creates
// batches with their jobs).
func RowsOnlyBatches(bs *sqlstore.BatchService) seedengine.BatchService { return rowsOnly{bs} }

type rowsOnly struct{ *sqlstore.BatchService }

func (s rowsOnly) CreateBatch(ctx context.Context, b *seedengine.Batch, chunks []*seedengine.BatchChunk) error {
	return s.InTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		return s.InsertBatchTx(ctx, tx, b, chunks)
	})
}

// RowsOnlyMetadata is a seedengine.MetadataService over s whose
// RequestMetadataTask writes the task and queues no sync job: for tests
// that run tasks themselves.
func RowsOnlyMetadata(s *sqlstore.MetadataService) seedengine.MetadataService {
	return rowsOnlyMetadata{s}
}

type rowsOnlyMetadata struct{ *sqlstore.MetadataService }

func (s rowsOnlyMetadata) RequestMetadataTask(ctx context.Context, trigger seedengine.MetadataTrigger, _ time.Duration) (*seedengine.MetadataTask, bool, error) {
	var (
		t       *seedengine.MetadataTask
		created bool
	)
	err := s.InTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		var err error
		t, created, err = s.RequestMetadataTaskTx(ctx, tx, trigger)
		return err
	})
	return t, created, err
}
