package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/seedengine/seedengine"
)

// Batch list limits.
const (
	defaultBatchLimit = 50
	maxBatchLimit     = 1000
)

// maxLastErrorLen bounds a stored chunk error: the reason is often an
// upstream error text of unknown size.
const maxLastErrorLen = 4000

// chunkInsertRows is how many chunks one INSERT writes: a 10,000-item batch
// in small chunks would otherwise cost a round trip per chunk. 500 rows × 8
// arguments stays far below both engines' parameter limits.
const chunkInsertRows = 500

const batchColumns = `id, kind, status, country, category, chunk_size,
	chunks_total, chunks_done, chunks_failed, items_total, items_succeeded, items_failed,
	params, result, created_at, started_at, finished_at`

const chunkColumns = `batch_id, chunk_index, step, item_key, status, input, items, result,
	succeeded, failed, attempts, last_error, updated_at`

// BatchService stores batches and the progress of their chunks.
//
// Every change to a batch's counters happens in a transaction that first
// locks the batch row (on PostgreSQL; SQLite's single writer serialises
// them anyway), so chunks finishing at the same time on many workers add up
// exactly and exactly one of them sets the final status.
//
// It keeps rows only. The writes the queue makes (a new batch, a chunk's
// outcome, a failure, a reopened chunk) are functions of a transaction the
// caller runs with InTx or InChunkTx, so internal/jobs puts the rows, the
// River jobs they call for and the job's completion in one transaction;
// each reports what it changed (ChunkWrite) for the caller to queue what
// follows.
type BatchService struct {
	db *DB
}

// NewBatchService returns a BatchService on db.
func NewBatchService(db *DB) *BatchService {
	return &BatchService{db: db}
}

// InTx runs fn in a write transaction on the writer: a batch's creation.
func (s *BatchService) InTx(ctx context.Context, fn func(ctx context.Context, tx *sql.Tx) error) error {
	return s.db.inTx(ctx, func(tx *sql.Tx) error { return fn(ctx, tx) })
}

// InChunkTx runs fn in a write transaction for one of the chunk updates that
// every job makes (start, complete, fail). On SQLite the transaction may be
// shared with other such updates (groupCommitter.inTx says how), so fn must
// use the context it is given and tx alone, and return its errors: a
// failure rolls back fn's writes only.
func (s *BatchService) InChunkTx(ctx context.Context, fn func(ctx context.Context, tx *sql.Tx) error) error {
	return s.db.inJobTx(ctx, fn)
}

// InsertBatchTx assigns b an id (UUIDv7) if it has none, sets its status
// to queued and its counters from chunks, and writes the batch and its
// chunks in tx. The chunks get b's id, dense indexes from 0 and status
// queued; b.Params and b.Result are stored as given. EINVALID for a batch
// without chunks, of an unknown kind, with JSON that does not parse or
// with two chunks of the same step and non-empty key; ECONFLICT when the
// id is taken.
func (s *BatchService) InsertBatchTx(ctx context.Context, tx *sql.Tx, b *seedengine.Batch, chunks []*seedengine.BatchChunk) error {
	if err := seedengine.ValidateNewBatch(b, chunks); err != nil {
		return err
	}
	if b.ID == "" {
		id, err := uuid.NewV7()
		if err != nil {
			return fmt.Errorf("create batch: %w", err)
		}
		b.ID = id.String()
	}
	now := nowUTC()
	b.Status = seedengine.BatchQueued
	b.Chunks = seedengine.ChunkCounts{Total: len(chunks)}
	b.Items = seedengine.ItemCounts{}
	b.Progress = 0
	b.CreatedAt = now
	b.StartedAt, b.FinishedAt = nil, nil
	for i, c := range chunks {
		b.Items.Total += c.Items
		*c = seedengine.BatchChunk{
			BatchID:   b.ID,
			Index:     i,
			Step:      c.Step,
			Key:       c.Key,
			Status:    seedengine.ChunkQueued,
			Input:     c.Input,
			Items:     c.Items,
			UpdatedAt: now,
		}
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO batches (`+batchColumns+`, updated_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18)`,
		b.ID, string(b.Kind), string(b.Status), b.Country, b.Category, b.ChunkSize,
		b.Chunks.Total, b.Chunks.Done, b.Chunks.Failed, b.Items.Total, b.Items.Succeeded, b.Items.Failed,
		jsonArg(b.Params), jsonArg(b.Result), s.db.timeArg(now), nil, nil, s.db.timeArg(now)); err != nil {
		if isUniqueViolation(err) {
			return seedengine.Errorf(seedengine.ECONFLICT, "a batch with this id exists")
		}
		return fmt.Errorf("create batch %q: %w", b.ID, err)
	}
	if err := s.insertChunks(ctx, tx, chunks, now); err != nil {
		return fmt.Errorf("create batch %q: %w", b.ID, err)
	}
	return nil
}

// stepKey is what identifies a chunk within its batch besides its index.
type stepKey struct{ step, key string }

func (s *BatchService) insertChunks(ctx context.Context, tx *sql.Tx, chunks []*seedengine.BatchChunk, now time.Time) error {
	const cols = 8
	nowArg := s.db.timeArg(now)
	for start := 0; start < len(chunks); start += chunkInsertRows {
		group := chunks[start:min(start+chunkInsertRows, len(chunks))]
		var q strings.Builder
		q.WriteString(`INSERT INTO batch_chunks (batch_id, chunk_index, step, item_key, status, input, items, updated_at) VALUES `)
		args := make([]any, 0, len(group)*cols)
		for i, c := range group {
			if i > 0 {
				q.WriteString(", ")
			}
			q.WriteByte('(')
			for j := range cols {
				if j > 0 {
					q.WriteString(", ")
				}
				s.db.writeParam(&q, i*cols+j+1)
			}
			q.WriteByte(')')
			args = append(args, c.BatchID, c.Index, c.Step, c.Key, string(c.Status), jsonArg(c.Input), c.Items, nowArg)
		}
		if _, err := tx.ExecContext(ctx, q.String(), args...); err != nil {
			return fmt.Errorf("insert chunks: %w", err)
		}
	}
	return nil
}

// writeParam writes the n-th parameter of a statement built with hundreds
// of them, whose parameters appear in order. SQLite keeps "$N" and "?N" in
// a list of names, and the driver looks each one up in it when binding, so
// 4,000 of them cost more than the insert; a bare "?" has no name.
// Everywhere else "$N" reads the same on both engines.
func (db *DB) writeParam(q *strings.Builder, n int) {
	if db.engine == EngineSQLite {
		q.WriteByte('?')
		return
	}
	q.WriteByte('$')
	q.WriteString(strconv.Itoa(n))
}

// FindBatchByID returns a batch. ENOTFOUND when there is none.
func (s *BatchService) FindBatchByID(ctx context.Context, id string) (*seedengine.Batch, error) {
	b, err := scanBatch(s.db.reader.QueryRowContext(ctx, `SELECT `+batchColumns+` FROM batches WHERE id = $1`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, errBatchNotFound()
	}
	if err == nil {
		err = s.liveResult(ctx, b)
	}
	if err != nil {
		return nil, fmt.Errorf("find batch %q: %w", id, err)
	}
	return b, nil
}

func errBatchNotFound() error {
	return seedengine.Errorf(seedengine.ENOTFOUND, "batch not found")
}

// FindBatches returns batches matching f, newest first (UUIDv7 ids sort by
// creation time), and the total number matching f. Limit defaults to 50 and
// is capped at 1,000. EINVALID for an unknown kind or status filter.
func (s *BatchService) FindBatches(ctx context.Context, f seedengine.BatchFilter) ([]*seedengine.Batch, int, error) {
	var (
		where []string
		args  []any
	)
	if f.Kind != "" {
		if !f.Kind.Valid() {
			return nil, 0, seedengine.FieldErrorf("kind", "kind must be one of research, liveness, contract, orchestration, import")
		}
		args = append(args, string(f.Kind))
		where = append(where, "kind = $"+strconv.Itoa(len(args)))
	}
	if f.Status != "" {
		if !validBatchStatus(f.Status) {
			return nil, 0, seedengine.FieldErrorf("status", "status must be one of queued, running, completed, completed_with_errors, failed, cancelled")
		}
		args = append(args, string(f.Status))
		where = append(where, "status = $"+strconv.Itoa(len(args)))
	}
	limit := f.Limit
	if limit <= 0 {
		limit = defaultBatchLimit
	}
	limit = min(limit, maxBatchLimit)
	offset := max(f.Offset, 0)

	cond := ""
	if len(where) > 0 {
		cond = " WHERE " + strings.Join(where, " AND ")
	}
	// The window count saves a second round trip on the common pages; past
	// the last row it has nothing to ride on, hence the fallback below.
	query := `SELECT ` + batchColumns + `, COUNT(*) OVER () FROM batches` + cond +
		` ORDER BY id DESC LIMIT $` + strconv.Itoa(len(args)+1) + ` OFFSET $` + strconv.Itoa(len(args)+2)
	rows, err := s.db.reader.QueryContext(ctx, query, append(args, limit, offset)...)
	if err != nil {
		return nil, 0, fmt.Errorf("find batches: %w", err)
	}
	defer func() { _ = rows.Close() }()
	batches := []*seedengine.Batch{}
	total := 0
	for rows.Next() {
		b, err := scanBatch(rows, &total)
		if err != nil {
			return nil, 0, fmt.Errorf("find batches: %w", err)
		}
		batches = append(batches, b)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, fmt.Errorf("find batches: %w", err)
	}
	for _, b := range batches {
		if err := s.liveResult(ctx, b); err != nil {
			return nil, 0, fmt.Errorf("find batches: %w", err)
		}
	}
	if len(batches) == 0 && offset > 0 {
		if err := s.db.reader.QueryRowContext(ctx, `SELECT COUNT(*) FROM batches`+cond, args...).Scan(&total); err != nil {
			return nil, 0, fmt.Errorf("find batches: count: %w", err)
		}
	}
	return batches, total, nil
}

func validBatchStatus(st seedengine.BatchStatus) bool {
	return st == seedengine.BatchQueued || st == seedengine.BatchRunning || st.Finished()
}

// FindBatchChunk returns one chunk. ENOTFOUND when there is none.
func (s *BatchService) FindBatchChunk(ctx context.Context, batchID string, index int) (*seedengine.BatchChunk, error) {
	c, err := scanChunk(s.db.reader.QueryRowContext(ctx,
		`SELECT `+chunkColumns+` FROM batch_chunks WHERE batch_id = $1 AND chunk_index = $2`, batchID, index))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, errChunkNotFound(index)
	}
	if err != nil {
		return nil, fmt.Errorf("find batch chunk %q/%d: %w", batchID, index, err)
	}
	return c, nil
}

func errChunkNotFound(index int) error {
	return seedengine.Errorf(seedengine.ENOTFOUND, "chunk %d of the batch not found", index)
}

// StartBatchChunk marks a chunk running, counts an attempt and moves its
// batch from queued to running. A chunk that already finished is left as it
// is, since a job can be delivered again after its chunk was recorded.
// ENOTFOUND when there is no such chunk.
func (s *BatchService) StartBatchChunk(ctx context.Context, batchID string, index int) error {
	if _, _, err := s.StartFindBatchChunk(ctx, batchID, index); err != nil {
		return err
	}
	return nil
}

// StartFindBatchChunk starts a chunk as StartBatchChunk does and returns it
// and its batch as the same transaction left them, so a worker needs no
// reads of its own before it processes the chunk. ENOTFOUND when there is
// no such chunk.
func (s *BatchService) StartFindBatchChunk(ctx context.Context, batchID string, index int) (*seedengine.Batch, *seedengine.BatchChunk, error) {
	if s.db.engine == EnginePostgres {
		st, _ := s.StartFindBatchChunks(ctx, []seedengine.ChunkRef{{BatchID: batchID, Chunk: index}})
		return st[0].Batch, st[0].Chunk, st[0].Err
	}
	b, c, err := s.startFindTx(ctx, batchID, index)
	if err != nil {
		return nil, nil, fmt.Errorf("start batch chunk %q/%d: %w", batchID, index, err)
	}
	return b, c, nil
}

// ChunkStart is one chunk started by StartFindBatchChunks: the chunk and
// its batch as StartFindBatchChunk returns them, or why it could not be
// started.
type ChunkStart struct {
	Batch *seedengine.Batch
	Chunk *seedengine.BatchChunk
	Err   error
}

// StartFindBatchChunks starts several chunks as StartFindBatchChunk does
// each, and returns them in refs' order. On PostgreSQL they are written
// in one statement that reads their batches without locking them, so a
// start never waits for a batch's completions; a batch still queued
// moves to running unless another transaction holds its row, which then
// moves it (a completion, a failure, another start) or cancels it. On
// SQLite each is started in a transaction of the writer, which group
// commit shares with other chunk writes. A chunk that does not exist has
// ENOTFOUND in its Err; an error of the whole call (the database) fails
// every chunk and is returned.
func (s *BatchService) StartFindBatchChunks(ctx context.Context, refs []seedengine.ChunkRef) ([]ChunkStart, error) {
	starts := make([]ChunkStart, len(refs))
	if s.db.engine != EnginePostgres {
		first := make(map[seedengine.ChunkRef]int, len(refs))
		for i, r := range refs {
			if j, ok := first[r]; ok {
				starts[i] = starts[j] // started once
				continue
			}
			first[r] = i
			b, c, err := s.startFindTx(ctx, r.BatchID, r.Chunk)
			if err != nil {
				err = fmt.Errorf("start batch chunk %q/%d: %w", r.BatchID, r.Chunk, err)
			}
			starts[i] = ChunkStart{Batch: b, Chunk: c, Err: err}
		}
		return starts, nil
	}
	if err := s.startFindPostgres(ctx, refs, starts); err != nil {
		err = fmt.Errorf("start %d batch chunks: %w", len(refs), err)
		for i := range starts {
			starts[i] = ChunkStart{Err: err}
		}
		return starts, err
	}
	return starts, nil
}

// startFindPostgres fills starts, refs' in order.
func (s *BatchService) startFindPostgres(ctx context.Context, refs []seedengine.ChunkRef, starts []ChunkStart) error {
	now := nowUTC()
	ids := make([]string, len(refs))
	indexes := make([]int32, len(refs))
	at := make(map[seedengine.ChunkRef][]int, len(refs))
	for i, r := range refs {
		ids[i], indexes[i] = r.BatchID, int32(r.Chunk)
		at[r] = append(at[r], i)
	}
	cols := qualified("b", batchColumns) + `, ` + qualified("c", chunkColumns)
	scan := func(rows *sql.Rows, err error) error {
		if err != nil {
			return err
		}
		defer func() { _ = rows.Close() }()
		for rows.Next() {
			var d chunkDest
			b, err := scanBatch(rows, d.dest()...)
			if err != nil {
				return err
			}
			c := d.chunk()
			for _, i := range at[seedengine.ChunkRef{BatchID: c.BatchID, Chunk: c.Index}] {
				starts[i] = ChunkStart{Batch: b, Chunk: c}
			}
		}
		return rows.Err()
	}
	// Two refs of one chunk (a job run twice at once) start it once.
	err := scan(s.db.writer.QueryContext(ctx, `UPDATE batch_chunks c
		SET status = $3, attempts = c.attempts + 1, updated_at = $4
		FROM batches b, (SELECT DISTINCT * FROM unnest($1::text[], $2::integer[])) AS v(batch_id, chunk_index)
		WHERE c.batch_id = v.batch_id AND c.chunk_index = v.chunk_index AND c.status IN ($5, $3) AND b.id = c.batch_id
		RETURNING `+cols,
		ids, indexes, string(seedengine.ChunkRunning), s.db.timeArg(now), string(seedengine.ChunkQueued)))
	if err != nil {
		return err
	}
	var rest []string
	var restIdx []int32
	for i, st := range starts {
		if st.Chunk == nil {
			rest, restIdx = append(rest, ids[i]), append(restIdx, indexes[i])
		}
	}
	if len(rest) > 0 {
		// Finished or cancelled already, or missing.
		if err := scan(s.db.writer.QueryContext(ctx, `SELECT `+cols+`
			FROM batch_chunks c JOIN batches b ON b.id = c.batch_id
			JOIN unnest($1::text[], $2::integer[]) AS v(batch_id, chunk_index) ON c.batch_id = v.batch_id AND c.chunk_index = v.chunk_index`,
			rest, restIdx)); err != nil {
			return err
		}
	}
	var queued []string
	for i := range starts {
		st := &starts[i]
		if st.Chunk == nil {
			st.Err = fmt.Errorf("start batch chunk %q/%d: %w", refs[i].BatchID, refs[i].Chunk, errChunkNotFound(refs[i].Chunk))
			continue
		}
		if st.Batch.Status == seedengine.BatchQueued {
			queued = append(queued, st.Batch.ID)
			st.Batch.Status = seedengine.BatchRunning
			if st.Batch.StartedAt == nil {
				st.Batch.StartedAt = &now
			}
		}
	}
	if len(queued) == 0 {
		return nil
	}
	// A batch row another transaction holds is skipped, not waited for:
	// that one moves it from queued (or cancels it).
	_, err = s.db.writer.ExecContext(ctx, `UPDATE batches
		SET status = $2, started_at = COALESCE(started_at, $3), updated_at = $3
		WHERE id IN (SELECT id FROM batches WHERE id = ANY($1::text[]) AND status = $4 FOR UPDATE SKIP LOCKED)`,
		queued, string(seedengine.BatchRunning), s.db.timeArg(now), string(seedengine.BatchQueued))
	return err
}

// startFindTx is StartFindBatchChunk in a transaction of the SQLite
// writer, which group commit shares with other chunk writes.
func (s *BatchService) startFindTx(ctx context.Context, batchID string, index int) (*seedengine.Batch, *seedengine.BatchChunk, error) {
	var (
		b *seedengine.Batch
		c *seedengine.BatchChunk
	)
	err := s.InChunkTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		now := s.db.timeArg(nowUTC())
		// The chunk row is written (and so locked) before the batch row,
		// the order every other transaction here takes them in.
		var err error
		c, err = scanChunk(tx.QueryRowContext(ctx, `UPDATE batch_chunks
			SET status = $3, attempts = attempts + 1, updated_at = $4
			WHERE batch_id = $1 AND chunk_index = $2 AND status IN ($5, $3)
			RETURNING `+chunkColumns,
			batchID, index, string(seedengine.ChunkRunning), now, string(seedengine.ChunkQueued)))
		if errors.Is(err, sql.ErrNoRows) {
			// Finished or cancelled already, or missing.
			c, err = scanChunk(tx.QueryRowContext(ctx,
				`SELECT `+chunkColumns+` FROM batch_chunks WHERE batch_id = $1 AND chunk_index = $2`, batchID, index))
			if errors.Is(err, sql.ErrNoRows) {
				return errChunkNotFound(index)
			}
		}
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE batches
			SET status = $2, started_at = COALESCE(started_at, $3), updated_at = $3
			WHERE id = $1 AND status = $4`,
			batchID, string(seedengine.BatchRunning), now, string(seedengine.BatchQueued)); err != nil {
			return err
		}
		b, err = scanBatch(tx.QueryRowContext(ctx, `SELECT `+batchColumns+` FROM batches WHERE id = $1`, batchID))
		if errors.Is(err, sql.ErrNoRows) {
			return errChunkNotFound(index)
		}
		return err
	})
	return b, c, err
}

// requireChunk turns an update that matched no row into ENOTFOUND when the
// chunk does not exist; a chunk that exists but was past the update's state
// is not an error.
func requireChunk(ctx context.Context, tx *sql.Tx, res sql.Result, batchID string, index int) error {
	n, err := res.RowsAffected()
	if err != nil || n > 0 {
		return err
	}
	var one int
	err = tx.QueryRowContext(ctx, `SELECT 1 FROM batch_chunks WHERE batch_id = $1 AND chunk_index = $2`, batchID, index).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return errChunkNotFound(index)
	}
	return err
}

// ChunkWrite is what a chunk write changed, for the caller to queue what
// follows in the same transaction: the jobs of the chunks it added, and
// what follows the batch once it has its final status (which happens once
// per batch, under its row lock, unless a chunk is reopened and the batch
// finishes again).
type ChunkWrite struct {
	// Batch is the batch as written; nil when the chunk was already done
	// or failed and nothing was written.
	Batch *seedengine.Batch
	// Spawned are the chunks added to the batch, with their indexes.
	Spawned []*seedengine.BatchChunk
	// Finished is set when the write gave the batch its final status.
	Finished bool
}

// CompleteChunkTx records a chunk's outcome in tx and updates its batch's
// counters and, when no chunk is left queued or running, its final status
// and result (its chunks' results merged in chunk order; a batch still
// open shows its chunks' so far when read). A chunk already done or failed
// is left as it is (a zero ChunkWrite).
//
// The chunks of out.Spawn are added to the batch first, so the batch cannot
// finish while they are open: each gets the next index (indexes stay
// dense), its BatchID, Index, Status and UpdatedAt set. A spawned chunk
// whose step and key the batch already holds, or that repeats an earlier
// one of out.Spawn, is skipped and left untouched. The number added is
// merged into the chunk's and the batch's result as "chunks_spawned" (0
// when all were known). A chunk already done or failed spawns nothing:
// the run that finished it did.
//
// EINVALID for an outcome ChunkOutcome.Validate refuses; ENOTFOUND when
// there is no such chunk.
func (s *BatchService) CompleteChunkTx(ctx context.Context, tx *sql.Tx, batchID string, index int, out seedengine.ChunkOutcome) (ChunkWrite, error) {
	if err := out.Validate(); err != nil {
		return ChunkWrite{}, err
	}
	w, err := s.completeChunkTx(ctx, tx, batchID, index, out)
	if err != nil {
		return ChunkWrite{}, fmt.Errorf("complete batch chunk %q/%d: %w", batchID, index, err)
	}
	return w, nil
}

func (s *BatchService) completeChunkTx(ctx context.Context, tx *sql.Tx, batchID string, index int, out seedengine.ChunkOutcome) (ChunkWrite, error) {
	if len(out.Spawn) == 0 {
		return s.completeChunkFast(ctx, tx, batchID, index, out)
	}
	b, c, err := s.lockChunk(ctx, tx, batchID, index)
	if err != nil || !c.Status.Open() {
		return ChunkWrite{}, err
	}
	w := ChunkWrite{Batch: b}
	now := nowUTC()
	result := out.Result
	if len(out.Spawn) > 0 {
		if w.Spawned, err = s.spawnChunks(ctx, tx, b, out.Spawn, now); err != nil {
			return ChunkWrite{}, err
		}
		result, err = seedengine.MergeResults(result, json.RawMessage(`{"chunks_spawned":`+strconv.Itoa(len(w.Spawned))+`}`))
		if err != nil {
			return ChunkWrite{}, fmt.Errorf("merge chunks_spawned: %w", err)
		}
	}
	if _, err := tx.ExecContext(ctx, `UPDATE batch_chunks
		SET status = $3, succeeded = $4, failed = $5, result = $6, updated_at = $7
		WHERE batch_id = $1 AND chunk_index = $2`,
		batchID, index, string(seedengine.ChunkDone), out.Succeeded, out.Failed,
		jsonArg(result), s.db.timeArg(now)); err != nil {
		return ChunkWrite{}, err
	}
	b.Chunks.Done++
	b.Items.Succeeded += out.Succeeded
	b.Items.Failed += out.Failed
	w.Finished, err = s.updateBatch(ctx, tx, b, now)
	return w, err
}

// completeChunkFast records an outcome that spawns nothing, holding its
// batch's row for as little as it can: the chunk row first (which also
// tells a chunk recorded already), then one UPDATE that adds to the
// batch's counters and returns them, then the commit. Only the completion
// that leaves no chunk open does more under the lock: it gives the batch
// its final status and its result, merged from its chunks' (see
// finishBatch). Results are not merged into the batch row as chunks
// finish, so no completion reads or rewrites what the others did
// (FindBatchByID merges a running batch's on read).
//
// The chunk row is locked before the batch row, as everywhere here
// (lockChunk).
func (s *BatchService) completeChunkFast(ctx context.Context, tx *sql.Tx, batchID string, index int, out seedengine.ChunkOutcome) (ChunkWrite, error) {
	now := nowUTC()
	res, err := tx.ExecContext(ctx, `UPDATE batch_chunks
		SET status = $3, succeeded = $4, failed = $5, result = $6, updated_at = $7
		WHERE batch_id = $1 AND chunk_index = $2 AND status IN ($8, $9)`,
		batchID, index, string(seedengine.ChunkDone), out.Succeeded, out.Failed,
		jsonArg(out.Result), s.db.timeArg(now), string(seedengine.ChunkQueued), string(seedengine.ChunkRunning))
	if err != nil {
		return ChunkWrite{}, err
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		// Recorded already (or missing: ENOTFOUND).
		return ChunkWrite{}, requireChunk(ctx, tx, res, batchID, index)
	}
	w, err := s.addDone(ctx, tx, batchID, 1, out.Succeeded, out.Failed, now)
	if errors.Is(err, sql.ErrNoRows) {
		return ChunkWrite{}, errChunkNotFound(index)
	}
	return w, err
}

// addDone adds chunks done and their items to a batch's counters in one
// UPDATE … RETURNING, and finishes the batch (finishBatch) when that
// leaves no chunk open. The caller has written the chunk rows already,
// which keeps the chunk-then-batch lock order. sql.ErrNoRows when there
// is no such batch.
func (s *BatchService) addDone(ctx context.Context, tx *sql.Tx, batchID string, chunks, succeeded, failed int, now time.Time) (ChunkWrite, error) {
	b, err := scanBatch(tx.QueryRowContext(ctx, `UPDATE batches
		SET chunks_done = chunks_done + $7, items_succeeded = items_succeeded + $2, items_failed = items_failed + $3,
			status = CASE WHEN status = $4 THEN $5 ELSE status END,
			started_at = COALESCE(started_at, $6), updated_at = $6
		WHERE id = $1
		RETURNING `+batchColumns,
		batchID, succeeded, failed, string(seedengine.BatchQueued), string(seedengine.BatchRunning), s.db.timeArg(now), chunks))
	if err != nil {
		return ChunkWrite{}, err
	}
	w := ChunkWrite{Batch: b}
	if b.Status.Finished() || b.Chunks.Done+b.Chunks.Failed < b.Chunks.Total {
		return w, nil
	}
	w.Finished, err = s.finishBatch(ctx, tx, b, now)
	return w, err
}

// ChunkDone is one chunk's outcome for CompleteChunksTx.
type ChunkDone struct {
	BatchID string
	Index   int
	Out     seedengine.ChunkOutcome
}

// CompleteChunksTx records the outcomes of several chunks, none of which
// spawns chunks, in tx, as CompleteChunkTx would one by one, in three
// statements however many there are: one writes every chunk row still
// open, one per batch (in id order) adds to its counters, and the
// completion that leaves a batch with no chunk open finishes it. A
// chunk already done or failed is left as it is and counts nothing. It
// returns one ChunkWrite per batch whose counters changed, in batch id
// order.
//
// Every chunk row is written before any batch row, and batch rows are
// taken in id order, so two such transactions (of two processes) and a
// single chunk's never wait for each other in a cycle.
//
// EINVALID for an outcome ChunkOutcome.Validate refuses or one with
// Spawn, and for two outcomes of one chunk; ENOTFOUND when a chunk does
// not exist. Either fails the whole call: the caller may record the
// outcomes one by one to learn which.
func (s *BatchService) CompleteChunksTx(ctx context.Context, tx *sql.Tx, done []ChunkDone) ([]ChunkWrite, error) {
	type key struct {
		batch string
		index int
	}
	seen := make(map[key]bool, len(done))
	for _, d := range done {
		if err := d.Out.Validate(); err != nil {
			return nil, err
		}
		if len(d.Out.Spawn) > 0 {
			return nil, seedengine.Errorf(seedengine.EINVALID, "chunk %d of batch %q spawns chunks: record it alone", d.Index, d.BatchID)
		}
		k := key{d.BatchID, d.Index}
		if seen[k] {
			return nil, seedengine.Errorf(seedengine.EINVALID, "chunk %d of batch %q is recorded twice", d.Index, d.BatchID)
		}
		seen[k] = true
	}
	if len(done) == 0 {
		return nil, nil
	}
	now := nowUTC()
	rows, err := tx.QueryContext(ctx, s.completeChunksQuery(len(done)), s.completeChunksArgs(done, now)...)
	if err != nil {
		return nil, fmt.Errorf("complete %d batch chunks: %w", len(done), err)
	}
	type sums struct{ chunks, succeeded, failed int }
	byBatch := map[string]*sums{}
	for rows.Next() {
		var (
			k    key
			succ int
			fail int
		)
		if err := rows.Scan(&k.batch, &k.index, &succ, &fail); err != nil {
			_ = rows.Close()
			return nil, err
		}
		delete(seen, k)
		t := byBatch[k.batch]
		if t == nil {
			t = &sums{}
			byBatch[k.batch] = t
		}
		t.chunks++
		t.succeeded += succ
		t.failed += fail
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	// The chunks left were done or failed already, or do not exist.
	for k := range seen {
		var one int
		err := tx.QueryRowContext(ctx, `SELECT 1 FROM batch_chunks WHERE batch_id = $1 AND chunk_index = $2`, k.batch, k.index).Scan(&one)
		if errors.Is(err, sql.ErrNoRows) {
			return nil, fmt.Errorf("complete batch chunk %q/%d: %w", k.batch, k.index, errChunkNotFound(k.index))
		}
		if err != nil {
			return nil, err
		}
	}
	ids := slices.Sorted(maps.Keys(byBatch))
	writes := make([]ChunkWrite, 0, len(ids))
	for _, id := range ids {
		t := byBatch[id]
		w, err := s.addDone(ctx, tx, id, t.chunks, t.succeeded, t.failed, now)
		if err != nil {
			return nil, fmt.Errorf("complete chunks of batch %q: %w", id, err)
		}
		writes = append(writes, w)
	}
	return writes, nil
}

// completeChunksQuery is CompleteChunksTx's write of n chunk rows: on
// PostgreSQL from five arrays (one statement text whatever n), on SQLite
// from a VALUES list.
func (s *BatchService) completeChunksQuery(n int) string {
	var b strings.Builder
	first, result := 5, "v.result::jsonb"
	if s.db.engine == EnginePostgres {
		b.WriteString(`WITH v AS (SELECT * FROM unnest($1::text[], $2::integer[], $3::integer[], $4::integer[], $5::text[])
			AS v(batch_id, chunk_index, succeeded, failed, result))`)
	} else {
		first, result = 5*n, "v.result"
		b.WriteString(`WITH v(batch_id, chunk_index, succeeded, failed, result) AS (VALUES `)
		s.db.valueRows(&b, n, 5, 0)
		b.WriteString(`)`)
	}
	p := func(i int) string { return s.db.param(first + i) }
	b.WriteString(` UPDATE batch_chunks
		SET status = ` + p(1) + `, succeeded = v.succeeded, failed = v.failed, result = ` + result + `, updated_at = ` + p(2) + `
		FROM v
		WHERE batch_chunks.batch_id = v.batch_id AND batch_chunks.chunk_index = v.chunk_index
			AND batch_chunks.status IN (` + p(3) + `, ` + p(4) + `)
		RETURNING batch_chunks.batch_id, batch_chunks.chunk_index, batch_chunks.succeeded, batch_chunks.failed`)
	return b.String()
}

// completeChunksArgs are completeChunksQuery's arguments.
func (s *BatchService) completeChunksArgs(done []ChunkDone, now time.Time) []any {
	tail := []any{string(seedengine.ChunkDone), s.db.timeArg(now), string(seedengine.ChunkQueued), string(seedengine.ChunkRunning)}
	if s.db.engine == EnginePostgres {
		var (
			ids     = make([]string, len(done))
			indexes = make([]int32, len(done))
			succ    = make([]int32, len(done))
			fail    = make([]int32, len(done))
			results = make([]*string, len(done))
		)
		for i, d := range done {
			ids[i], indexes[i], succ[i], fail[i] = d.BatchID, int32(d.Index), int32(d.Out.Succeeded), int32(d.Out.Failed)
			if r, ok := jsonArg(d.Out.Result).(string); ok {
				results[i] = &r
			}
		}
		return append([]any{ids, indexes, succ, fail, results}, tail...)
	}
	args := make([]any, 0, len(done)*5+len(tail))
	for _, d := range done {
		args = append(args, d.BatchID, d.Index, d.Out.Succeeded, d.Out.Failed, jsonArg(d.Out.Result))
	}
	return append(args, tail...)
}

// finishBatch gives b, none of whose chunks is open and whose row the
// caller holds locked, its final status and its result: its chunks'
// results merged in chunk order.
func (s *BatchService) finishBatch(ctx context.Context, tx *sql.Tx, b *seedengine.Batch, now time.Time) (bool, error) {
	result, err := chunkResults(ctx, tx, b.ID)
	if err != nil {
		return false, err
	}
	if b.StartedAt == nil {
		b.StartedAt = &now
	}
	b.Status, b.FinishedAt, b.Result = b.FinalStatus(), &now, result
	_, err = tx.ExecContext(ctx, `UPDATE batches SET status = $2, result = $3, started_at = $4, finished_at = $5, updated_at = $5 WHERE id = $1`,
		b.ID, string(b.Status), jsonArg(b.Result), s.db.timePtrArg(b.StartedAt), s.db.timeArg(now))
	return err == nil, err
}

// querier is what chunkResults reads with: a transaction or a pool.
type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// chunkResults merges the results of a batch's chunks, in chunk order,
// each parsed once (seedengine.ResultMerger): the batch's result.
func chunkResults(ctx context.Context, q querier, batchID string) (json.RawMessage, error) {
	rows, err := q.QueryContext(ctx, `SELECT result FROM batch_chunks WHERE batch_id = $1 AND result IS NOT NULL ORDER BY chunk_index`, batchID)
	if err != nil {
		return nil, err
	}
	defer func() { _ = rows.Close() }()
	var m seedengine.ResultMerger
	for rows.Next() {
		var raw []byte
		if err := rows.Scan(&raw); err != nil {
			return nil, err
		}
		if err := m.Add(raw); err != nil {
			return nil, fmt.Errorf("batch %q: a chunk's result cannot be merged: %w", batchID, err)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return m.Result()
}

// liveResult sets the result of a batch still open to its chunks' results
// so far, merged: a batch row holds its result once it has finished.
func (s *BatchService) liveResult(ctx context.Context, b *seedengine.Batch) error {
	if b.Status.Finished() {
		return nil
	}
	r, err := chunkResults(ctx, s.db.reader, b.ID)
	if err != nil {
		return err
	}
	if r != nil {
		b.Result = r
	}
	return nil
}

// spawnChunks adds spawn to b, whose row the caller holds locked, and
// returns the ones added (for the caller to queue) and raises b's
// totals by them. Indexes continue from b.Chunks.Total, which under the
// lock is exactly the number of chunk rows, and every insert of a batch's
// chunks happens under that lock, so the keys read here stay the keys
// there are until the insert. A file may spawn thousands of chunks while
// every other completion in its batch waits for the lock, so the known
// keys are read and the new chunks written in groups of chunkInsertRows:
// an INSERT per chunk (ON CONFLICT DO NOTHING deciding each next index)
// took 130 µs a chunk on PostgreSQL, a quarter second for 2,000.
func (s *BatchService) spawnChunks(ctx context.Context, tx *sql.Tx, b *seedengine.Batch, spawn []*seedengine.BatchChunk, now time.Time) ([]*seedengine.BatchChunk, error) {
	fresh := make([]*seedengine.BatchChunk, 0, len(spawn))
	seen := make(map[stepKey]bool, len(spawn))
	keysByStep := map[string][]string{}
	for _, c := range spawn {
		k := stepKey{c.Step, c.Key}
		if seen[k] {
			continue
		}
		seen[k] = true
		fresh = append(fresh, c)
		keysByStep[c.Step] = append(keysByStep[c.Step], c.Key)
	}
	held, err := heldChunkKeys(ctx, s.db, tx, b.ID, keysByStep)
	if err != nil {
		return nil, fmt.Errorf("spawn chunks: %w", err)
	}
	added := fresh[:0]
	items := 0
	for _, c := range fresh {
		if held[stepKey{c.Step, c.Key}] {
			continue
		}
		c.BatchID, c.Index, c.Status, c.UpdatedAt = b.ID, b.Chunks.Total+len(added), seedengine.ChunkQueued, now
		added = append(added, c)
		items += c.Items
	}
	if len(added) == 0 {
		return nil, nil
	}
	if err := s.insertChunks(ctx, tx, added, now); err != nil {
		return nil, fmt.Errorf("spawn chunks: %w", err)
	}
	b.Chunks.Total += len(added)
	b.Items.Total += items
	return added, nil
}

// heldChunkKeys returns which of the given non-empty keys, by step, the
// batch's chunks already have.
func heldChunkKeys(ctx context.Context, db *DB, tx *sql.Tx, batchID string, keysByStep map[string][]string) (map[stepKey]bool, error) {
	held := map[stepKey]bool{}
	for step, keys := range keysByStep {
		for start := 0; start < len(keys); start += chunkInsertRows {
			group := keys[start:min(start+chunkInsertRows, len(keys))]
			var q strings.Builder
			// item_key <> '' lets PostgreSQL use the partial unique index.
			q.WriteString(`SELECT item_key FROM batch_chunks WHERE batch_id = `)
			db.writeParam(&q, 1)
			q.WriteString(` AND step = `)
			db.writeParam(&q, 2)
			q.WriteString(` AND item_key <> '' AND item_key IN (`)
			args := make([]any, 0, len(group)+2)
			args = append(args, batchID, step)
			for i, k := range group {
				if i > 0 {
					q.WriteString(", ")
				}
				args = append(args, k)
				db.writeParam(&q, len(args))
			}
			q.WriteByte(')')
			if err := scanHeldKeys(ctx, tx, q.String(), args, step, held); err != nil {
				return nil, err
			}
		}
	}
	return held, nil
}

func scanHeldKeys(ctx context.Context, tx *sql.Tx, query string, args []any, step string, held map[stepKey]bool) error {
	rows, err := tx.QueryContext(ctx, query, args...)
	if err != nil {
		return err
	}
	defer func() { _ = rows.Close() }()
	for rows.Next() {
		var k string
		if err := rows.Scan(&k); err != nil {
			return err
		}
		held[stepKey{step, k}] = true
	}
	return rows.Err()
}

// ReopenChunkTx puts a failed chunk back to queued in tx, keeping its
// attempts and last error, and undoes its failure in the batch: one failed
// chunk and its failed items fewer, and a batch that had finished running
// again. ENOTFOUND when there is no such chunk; ECONFLICT when the chunk
// has not failed or its batch was cancelled.
func (s *BatchService) ReopenChunkTx(ctx context.Context, tx *sql.Tx, batchID string, index int) error {
	err := func() error {
		b, c, err := s.lockChunk(ctx, tx, batchID, index)
		if err != nil {
			return err
		}
		if c.Status != seedengine.ChunkFailed {
			return seedengine.Errorf(seedengine.ECONFLICT, "chunk %d of batch %q is %s, not failed",
				index, seedengine.Truncate(batchID, 100), c.Status)
		}
		if b.Status == seedengine.BatchCancelled {
			return seedengine.Errorf(seedengine.ECONFLICT, "batch %q is cancelled", seedengine.Truncate(batchID, 100))
		}
		now := nowUTC()
		if _, err := tx.ExecContext(ctx, `UPDATE batch_chunks
			SET status = $3, succeeded = 0, failed = 0, updated_at = $4
			WHERE batch_id = $1 AND chunk_index = $2`,
			batchID, index, string(seedengine.ChunkQueued), s.db.timeArg(now)); err != nil {
			return err
		}
		b.Chunks.Failed--
		b.Items.Failed -= c.Failed
		if b.Status.Finished() {
			// updateBatch then sees an open chunk and leaves it running.
			b.Status, b.FinishedAt = seedengine.BatchRunning, nil
		}
		_, err = s.updateBatch(ctx, tx, b, now)
		return err
	}()
	if err != nil {
		return fmt.Errorf("reopen batch chunk %q/%d: %w", batchID, index, err)
	}
	return nil
}

// FailChunkTx records a failed attempt in tx. Not final, the chunk keeps
// its place (back to queued, waiting for the queue's retry) with reason as
// its last error. Final, the chunk is failed, all its items count as
// failed and the batch is updated as by CompleteChunkTx. A chunk already
// done or failed is left as it is. ENOTFOUND when there is no such chunk.
func (s *BatchService) FailChunkTx(ctx context.Context, tx *sql.Tx, batchID string, index int, reason string, final bool) (ChunkWrite, error) {
	reason = seedengine.Truncate(reason, maxLastErrorLen)
	var w ChunkWrite
	err := func() error {
		if !final {
			res, err := tx.ExecContext(ctx, `UPDATE batch_chunks
				SET status = $3, last_error = $4, updated_at = $5
				WHERE batch_id = $1 AND chunk_index = $2 AND status IN ($3, $6)`,
				batchID, index, string(seedengine.ChunkQueued), reason,
				s.db.timeArg(nowUTC()), string(seedengine.ChunkRunning))
			if err != nil {
				return err
			}
			return requireChunk(ctx, tx, res, batchID, index)
		}

		b, c, err := s.lockChunk(ctx, tx, batchID, index)
		if err != nil || !c.Status.Open() {
			return err
		}
		now := nowUTC()
		if _, err := tx.ExecContext(ctx, `UPDATE batch_chunks
			SET status = $3, succeeded = 0, failed = items, last_error = $4, updated_at = $5
			WHERE batch_id = $1 AND chunk_index = $2`,
			batchID, index, string(seedengine.ChunkFailed), reason, s.db.timeArg(now)); err != nil {
			return err
		}
		b.Chunks.Failed++
		b.Items.Failed += c.Items
		w.Batch = b
		w.Finished, err = s.updateBatch(ctx, tx, b, now)
		return err
	}()
	if err != nil {
		return ChunkWrite{}, fmt.Errorf("fail batch chunk %q/%d: %w", batchID, index, err)
	}
	return w, nil
}

// lockChunk reads one chunk of a batch and the batch for update, the
// chunk first: every transaction here that writes both takes the chunk
// row before the batch row, so two of them never wait for each other.
// ENOTFOUND when either is missing.
func (s *BatchService) lockChunk(ctx context.Context, tx *sql.Tx, batchID string, index int) (*seedengine.Batch, *seedengine.BatchChunk, error) {
	c, err := scanChunk(tx.QueryRowContext(ctx,
		`SELECT `+chunkColumns+` FROM batch_chunks WHERE batch_id = $1 AND chunk_index = $2`+s.db.forUpdate(),
		batchID, index))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil, errChunkNotFound(index)
	}
	if err != nil {
		return nil, nil, err
	}
	b, err := scanBatch(tx.QueryRowContext(ctx,
		`SELECT `+batchColumns+` FROM batches WHERE id = $1`+s.db.forUpdate(), batchID))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil, errChunkNotFound(index)
	}
	if err != nil {
		return nil, nil, err
	}
	return b, c, nil
}

// updateBatch writes b's counters (totals included, which spawned chunks
// raise) after one of its chunks finished, moving it to running or, when
// no chunk is left open, to its final status with its result
// (finishBatch). The caller holds the batch row lock. Open chunks are
// counted from the counters rather than the chunk rows: each chunk moves
// to done or failed exactly once, with its batch row locked, so the
// counters are exact, and counting rows would make every completion cost
// as much as the batch has chunks.
func (s *BatchService) updateBatch(ctx context.Context, tx *sql.Tx, b *seedengine.Batch, now time.Time) (bool, error) {
	finishing := false
	if !b.Status.Finished() {
		if b.StartedAt == nil {
			b.StartedAt = &now
		}
		b.Status = seedengine.BatchRunning
		finishing = b.Chunks.Done+b.Chunks.Failed >= b.Chunks.Total
	}
	_, err := tx.ExecContext(ctx, `UPDATE batches
		SET status = $2, chunks_total = $3, chunks_done = $4, chunks_failed = $5,
			items_total = $6, items_succeeded = $7, items_failed = $8,
			started_at = $9, finished_at = $10, updated_at = $11
		WHERE id = $1`,
		b.ID, string(b.Status), b.Chunks.Total, b.Chunks.Done, b.Chunks.Failed,
		b.Items.Total, b.Items.Succeeded, b.Items.Failed,
		s.db.timePtrArg(b.StartedAt), s.db.timePtrArg(b.FinishedAt), s.db.timeArg(now))
	if err != nil || !finishing {
		return false, err
	}
	return s.finishBatch(ctx, tx, b, now)
}

func scanBatch(row rowScanner, extra ...any) (*seedengine.Batch, error) {
	var (
		b                          seedengine.Batch
		kind, status               string
		params, result             []byte
		created, started, finished scanTime
	)
	dest := []any{&b.ID, &kind, &status, &b.Country, &b.Category, &b.ChunkSize,
		&b.Chunks.Total, &b.Chunks.Done, &b.Chunks.Failed, &b.Items.Total, &b.Items.Succeeded, &b.Items.Failed,
		&params, &result, &created, &started, &finished}
	if err := row.Scan(append(dest, extra...)...); err != nil {
		return nil, err
	}
	b.Kind = seedengine.BatchKind(kind)
	b.Status = seedengine.BatchStatus(status)
	b.Params = params
	b.Result = result
	b.CreatedAt = created.Time
	b.StartedAt = started.ptr()
	b.FinishedAt = finished.ptr()
	if b.Chunks.Total > 0 {
		b.Progress = float64(b.Chunks.Done+b.Chunks.Failed) / float64(b.Chunks.Total)
	}
	return &b, nil
}

func scanChunk(row rowScanner) (*seedengine.BatchChunk, error) {
	var d chunkDest
	if err := row.Scan(d.dest()...); err != nil {
		return nil, err
	}
	return d.chunk(), nil
}

// chunkDest holds the scan destinations of chunkColumns, for a row that
// has them after other columns (scanBatch's extra).
type chunkDest struct {
	c             seedengine.BatchChunk
	status        string
	input, result []byte
	updated       scanTime
}

func (d *chunkDest) dest() []any {
	c := &d.c
	return []any{&c.BatchID, &c.Index, &c.Step, &c.Key, &d.status, &d.input, &c.Items, &d.result,
		&c.Succeeded, &c.Failed, &c.Attempts, &c.LastError, &d.updated}
}

func (d *chunkDest) chunk() *seedengine.BatchChunk {
	c := d.c
	c.Status = seedengine.ChunkStatus(d.status)
	c.Input = d.input
	c.Result = d.result
	c.UpdatedAt = d.updated.Time
	return &c
}
