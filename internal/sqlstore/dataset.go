package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"
	"time"

	"github.com/seedengine/seedengine"
)

// maxOriginLen bounds an origin ("batch:{uuid}:{chunk}" is about 50 bytes):
// it is a unique index key, and PostgreSQL refuses index entries over about
// 2.7 kB with an error that would surface as an internal one.
const maxOriginLen = 500

// maxReserveAttempts bounds ReserveChunk's retries. Reservations of one
// partition are serialised, so a retry needs a write that bypasses them
// (IndexChunk) to take the very number or origin in between; ten in a row
// means something is wrong.
const maxReserveAttempts = 10

const datasetChunkColumns = `country, category, date, chunk, key, bytes, records, completed, origin, mod_time`

// DatasetIndex is the SQL index of stored raw chunks (see
// seedengine.DatasetIndex) and the reads of the research API that join it
// with the domain registry: they live here, not in a type of their own,
// because every one of them is keyed by partition and the research service
// then needs one dependency for its partition reads.
//
// A chunk number is handed out by ReserveChunk before the chunk is written:
// it inserts a placeholder row (empty key, records -1) that IndexChunk later
// fills in, or ReleaseChunk removes when the write failed. Placeholders
// count when allocating numbers but are invisible to every read, since no
// chunk is stored for them (yet). A placeholder left by a process that died
// mid-write keeps its number from being reused; with an origin, the retried
// write reserves and fills the same one.
type DatasetIndex struct {
	db *DB
}

var _ seedengine.DatasetIndex = (*DatasetIndex)(nil)

// NewDatasetIndex returns a DatasetIndex on db.
func NewDatasetIndex(db *DB) *DatasetIndex { return &DatasetIndex{db: db} }

// IndexChunk records a chunk, or updates the row of its partition and
// number, a placeholder included. A zero ModTime is stored as unknown. An
// empty Origin keeps the origin the row was reserved with. EINVALID for an
// invalid partition, chunk number, key, size or record count; ECONFLICT
// when another chunk already has the origin.
func (x *DatasetIndex) IndexChunk(ctx context.Context, c seedengine.ChunkInfo) error {
	if err := validateChunkInfo(c); err != nil {
		return err
	}
	_, err := x.db.writer.ExecContext(ctx, `INSERT INTO dataset_chunks (`+datasetChunkColumns+`, indexed_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
		ON CONFLICT (country, category, date, chunk) DO UPDATE SET
			key = excluded.key, bytes = excluded.bytes, records = excluded.records,
			completed = excluded.completed, origin = COALESCE(excluded.origin, dataset_chunks.origin),
			mod_time = excluded.mod_time, indexed_at = excluded.indexed_at`,
		c.Country, c.Category, c.Date, c.Chunk, c.Key, c.Bytes, c.Records, c.Completed,
		nullString(c.Origin), x.timeOrNull(c.ModTime), x.db.timeArg(nowUTC()))
	if isUniqueViolation(err) {
		return seedengine.Errorf(seedengine.ECONFLICT, "another chunk was written for origin %q", seedengine.Truncate(c.Origin, 100))
	}
	if err != nil {
		return fmt.Errorf("index chunk %s/%s: %w", partitionString(c.Partition), chunkName(c.Chunk), err)
	}
	return nil
}

func validateChunkInfo(c seedengine.ChunkInfo) error {
	if err := c.Partition.Validate(); err != nil {
		return err
	}
	switch {
	case c.Chunk < 1:
		return seedengine.FieldErrorf("chunk", "chunk number must be at least 1")
	case c.Key == "":
		// An empty key marks a placeholder in the table.
		return seedengine.FieldErrorf("key", "key is required")
	case c.Bytes < 0:
		return seedengine.FieldErrorf("bytes", "bytes must not be negative")
	case c.Records < -1:
		return seedengine.FieldErrorf("records", "records must be -1 (unknown) or more")
	case len(c.Origin) > maxOriginLen:
		return seedengine.FieldErrorf("origin", "origin must be at most %d bytes", maxOriginLen)
	}
	return nil
}

// ReserveChunk allocates the next chunk number of p that is at least
// atLeast (1 when lower) and above every chunk indexed or reserved in p, and
// records a placeholder for it. With a non-empty origin that already has a
// chunk, reserved or indexed, in p, it returns that number instead, so a
// retried write lands on the chunk of its first attempt.
//
// The origin lookup and an INSERT of MAX(chunk)+1 … ON CONFLICT DO NOTHING
// run in one transaction. On SQLite the single writer runs it alone. On
// PostgreSQL it first takes a transaction advisory lock on the partition, so
// reservations of one partition queue up instead of computing the same
// number, failing and retrying, which under a batch's worth of concurrent
// chunk jobs would cost each of them a round trip per competitor. The
// unique keys remain the guarantee: should a write that skips the lock (an
// IndexChunk of a chunk found in the object store) take the number or the
// origin first, the insert adds nothing and the reservation starts over.
//
// EINVALID for an invalid partition or an origin over 500 bytes; ECONFLICT
// when the origin already has a chunk in another partition.
func (x *DatasetIndex) ReserveChunk(ctx context.Context, p seedengine.Partition, origin string, atLeast int) (int, error) {
	if err := p.Validate(); err != nil {
		return 0, err
	}
	if len(origin) > maxOriginLen {
		return 0, seedengine.FieldErrorf("origin", "origin must be at most %d bytes", maxOriginLen)
	}
	atLeast = max(atLeast, 1)
	for range maxReserveAttempts {
		var (
			n  int
			ok bool
		)
		err := x.db.inTx(ctx, func(tx *sql.Tx) error {
			var err error
			n, ok, err = x.reserve(ctx, tx, p, origin, atLeast)
			return err
		})
		if err != nil {
			return 0, fmt.Errorf("reserve chunk in %s: %w", partitionString(p), err)
		}
		if ok {
			return n, nil
		}
	}
	return 0, fmt.Errorf("reserve chunk in %s: %w", partitionString(p),
		seedengine.Errorf(seedengine.EUNAVAILABLE, "too many concurrent chunk writes, try again"))
}

// reserveLockClass is the first key of the PostgreSQL advisory locks that
// ReserveChunk takes; the second is a hash of the partition. The two-key
// form is a key space apart from the one-key lock of Migrate.
const reserveLockClass int32 = 0x5eed_0c

// reserve is one attempt of ReserveChunk. ok is false when a concurrent
// write took the number or the origin first.
func (x *DatasetIndex) reserve(ctx context.Context, tx *sql.Tx, p seedengine.Partition, origin string, atLeast int) (n int, ok bool, err error) {
	if x.db.engine == EnginePostgres {
		// Partitions whose hashes collide only share a queue.
		h := fnv.New32a()
		_, _ = h.Write([]byte(partitionString(p)))
		if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock($1, $2)`, reserveLockClass, int32(h.Sum32())); err != nil {
			return 0, false, fmt.Errorf("lock partition: %w", err)
		}
	}
	if origin != "" {
		var got seedengine.Partition
		err := tx.QueryRowContext(ctx, `SELECT country, category, date, chunk FROM dataset_chunks WHERE origin = $1`, origin).
			Scan(&got.Country, &got.Category, &got.Date, &n)
		switch {
		case err == nil && got != p:
			return 0, false, seedengine.Errorf(seedengine.ECONFLICT, "origin %q already has a chunk in %s",
				seedengine.Truncate(origin, 100), partitionString(got))
		case err == nil:
			return n, true, nil
		case !errors.Is(err, sql.ErrNoRows):
			return 0, false, fmt.Errorf("find origin: %w", err)
		}
	}
	greatest := "GREATEST"
	if x.db.engine == EngineSQLite {
		greatest = "MAX" // SQLite's scalar max of several arguments
	}
	// A scalar subquery in VALUES, not INSERT … SELECT, so that PostgreSQL
	// types the arguments from the columns they go into.
	err = tx.QueryRowContext(ctx, `INSERT INTO dataset_chunks
			(country, category, date, chunk, key, bytes, records, completed, origin, indexed_at)
		VALUES ($1, $2, $3,
			(SELECT `+greatest+`(COALESCE(MAX(chunk), 0) + 1, $4) FROM dataset_chunks
				WHERE country = $1 AND category = $2 AND date = $3),
			'', 0, -1, false, $5, $6)
		ON CONFLICT DO NOTHING RETURNING chunk`,
		p.Country, p.Category, p.Date, atLeast, nullString(origin), x.db.timeArg(nowUTC())).Scan(&n)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, fmt.Errorf("insert placeholder: %w", err)
	}
	return n, true, nil
}

// ReleaseChunk deletes the placeholder of a chunk whose write failed,
// freeing its origin and, when it is the highest of its partition, its
// number. A chunk that IndexChunk filled in is left alone, and a number
// that holds nothing is no error.
func (x *DatasetIndex) ReleaseChunk(ctx context.Context, p seedengine.Partition, chunk int) error {
	if _, err := x.db.writer.ExecContext(ctx, `DELETE FROM dataset_chunks
		WHERE country = $1 AND category = $2 AND date = $3 AND chunk = $4 AND key = ''`,
		p.Country, p.Category, p.Date, chunk); err != nil {
		return fmt.Errorf("release chunk %s/%s: %w", partitionString(p), chunkName(chunk), err)
	}
	return nil
}

// FindChunkByOrigin returns the indexed chunk written for origin. ENOTFOUND
// when there is none, also while the origin only holds a placeholder: then
// the write has not finished, and ReserveChunk with the origin hands back
// its number.
func (x *DatasetIndex) FindChunkByOrigin(ctx context.Context, origin string) (seedengine.ChunkInfo, error) {
	if origin == "" {
		return seedengine.ChunkInfo{}, seedengine.FieldErrorf("origin", "origin is required")
	}
	c, err := scanChunkInfo(x.db.reader.QueryRowContext(ctx,
		`SELECT `+datasetChunkColumns+` FROM dataset_chunks WHERE origin = $1 AND key <> ''`, origin))
	if errors.Is(err, sql.ErrNoRows) {
		return seedengine.ChunkInfo{}, seedengine.Errorf(seedengine.ENOTFOUND, "no chunk was written for origin %q", seedengine.Truncate(origin, 100))
	}
	if err != nil {
		return seedengine.ChunkInfo{}, fmt.Errorf("find chunk by origin %q: %w", seedengine.Truncate(origin, 100), err)
	}
	return c, nil
}

// UnindexChunk forgets a chunk, or a placeholder; no error when there is
// neither.
func (x *DatasetIndex) UnindexChunk(ctx context.Context, p seedengine.Partition, chunk int) error {
	if _, err := x.db.writer.ExecContext(ctx, `DELETE FROM dataset_chunks
		WHERE country = $1 AND category = $2 AND date = $3 AND chunk = $4`,
		p.Country, p.Category, p.Date, chunk); err != nil {
		return fmt.Errorf("unindex chunk %s/%s: %w", partitionString(p), chunkName(chunk), err)
	}
	return nil
}

// FindIndexedChunks returns the indexed chunks of p, or of every partition
// when p is nil, in partition and chunk order; an empty slice when there are
// none. Placeholders are left out.
func (x *DatasetIndex) FindIndexedChunks(ctx context.Context, p *seedengine.Partition) ([]seedengine.ChunkInfo, error) {
	query := `SELECT ` + datasetChunkColumns + ` FROM dataset_chunks WHERE key <> ''`
	var args []any
	if p != nil {
		query += ` AND country = $1 AND category = $2 AND date = $3`
		args = append(args, p.Country, p.Category, p.Date)
	}
	query += ` ORDER BY country, category, date, chunk`
	rows, err := x.db.reader.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("find indexed chunks: %w", err)
	}
	defer func() { _ = rows.Close() }()
	chunks := []seedengine.ChunkInfo{}
	for rows.Next() {
		c, err := scanChunkInfo(rows)
		if err != nil {
			return nil, fmt.Errorf("find indexed chunks: %w", err)
		}
		chunks = append(chunks, c)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("find indexed chunks: %w", err)
	}
	return chunks, nil
}

// partitionAggregates groups indexed chunks by partition; records of -1
// (unknown) count as 0. bytes is cast because PostgreSQL sums bigint as
// numeric.
const partitionAggregates = `SELECT country, category, date, COUNT(*) AS chunks,
		COALESCE(SUM(CASE WHEN records > 0 THEN records ELSE 0 END), 0) AS records,
		CAST(COALESCE(SUM(bytes), 0) AS BIGINT) AS bytes
	FROM dataset_chunks`

// FindPartitionSummaries returns the partitions with indexed chunks that
// match f, ordered by country, category, date, with their chunk, record,
// byte and distinct domain counts; and the total number matching f. Limit
// defaults to 50 and is capped at 1,000. The country is matched in any case.
// EINVALID for an invalid filter, naming the field (see
// seedengine.PartitionFilter.Validate).
func (x *DatasetIndex) FindPartitionSummaries(ctx context.Context, f seedengine.PartitionFilter) ([]seedengine.PartitionSummary, int, error) {
	where := []string{"key <> ''"}
	var args []any
	add := func(cond string, v any) {
		args = append(args, v)
		where = append(where, cond+" $"+strconv.Itoa(len(args)))
	}
	if err := f.Validate(); err != nil {
		return nil, 0, err
	}
	if f.Country != "" {
		add("country =", f.Country)
	}
	if f.Category != "" {
		add("category =", f.Category)
	}
	if f.DateFrom != "" {
		add("date >=", f.DateFrom)
	}
	if f.DateTo != "" {
		add("date <=", f.DateTo)
	}
	limit, offset := f.Limit, f.Offset
	grouped := partitionAggregates + ` WHERE ` + strings.Join(where, " AND ") + ` GROUP BY country, category, date`

	// The domain count runs only for the page's rows, after LIMIT.
	query := `SELECT p.country, p.category, p.date, p.chunks, p.records, p.bytes,
			(SELECT COUNT(*) FROM domain_partitions dp
				WHERE dp.country = p.country AND dp.category = p.category AND dp.date = p.date),
			p.total
		FROM (SELECT g.*, COUNT(*) OVER () AS total FROM (` + grouped + `) g
			ORDER BY country, category, date LIMIT $` + strconv.Itoa(len(args)+1) + ` OFFSET $` + strconv.Itoa(len(args)+2) + `) p
		ORDER BY p.country, p.category, p.date`
	rows, err := x.db.reader.QueryContext(ctx, query, append(args, limit, offset)...)
	if err != nil {
		return nil, 0, fmt.Errorf("find partition summaries: %w", err)
	}
	defer func() { _ = rows.Close() }()
	out := []seedengine.PartitionSummary{}
	total := 0
	for rows.Next() {
		var s seedengine.PartitionSummary
		if err := rows.Scan(&s.Country, &s.Category, &s.Date, &s.Chunks, &s.Records, &s.Bytes, &s.Domains, &total); err != nil {
			return nil, 0, fmt.Errorf("find partition summaries: %w", err)
		}
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, fmt.Errorf("find partition summaries: %w", err)
	}
	if len(out) == 0 && offset > 0 {
		if err := x.db.reader.QueryRowContext(ctx, `SELECT COUNT(*) FROM (`+grouped+`) g`, args...).Scan(&total); err != nil {
			return nil, 0, fmt.Errorf("find partition summaries: count: %w", err)
		}
	}
	return out, total, nil
}

// FindPartitionAuthorities counts the domains seen in p by authority; an
// empty map when there are none.
func (x *DatasetIndex) FindPartitionAuthorities(ctx context.Context, p seedengine.Partition) (map[seedengine.Authority]int, error) {
	rows, err := x.db.reader.QueryContext(ctx, `SELECT d.authority, COUNT(*)
		FROM domain_partitions dp JOIN domains d ON d.domain_id = dp.domain_id
		WHERE dp.country = $1 AND dp.category = $2 AND dp.date = $3
		GROUP BY d.authority`, p.Country, p.Category, p.Date)
	if err != nil {
		return nil, fmt.Errorf("find authorities of %s: %w", partitionString(p), err)
	}
	defer func() { _ = rows.Close() }()
	out := map[seedengine.Authority]int{}
	for rows.Next() {
		var (
			a string
			n int
		)
		if err := rows.Scan(&a, &n); err != nil {
			return nil, fmt.Errorf("find authorities of %s: %w", partitionString(p), err)
		}
		out[seedengine.Authority(a)] = n
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("find authorities of %s: %w", partitionString(p), err)
	}
	return out, nil
}

// FindResearchIndex returns the table of contents of research: every
// partition with indexed chunks, as country → category → dates (ascending),
// with chunk, record, byte and domain counts, and the totals. It is one
// query: the chunk and domain aggregates are grouped separately and joined,
// so the cost grows with the number of rows, not of partitions times
// queries.
func (x *DatasetIndex) FindResearchIndex(ctx context.Context) (*seedengine.ResearchIndex, error) {
	rows, err := x.db.reader.QueryContext(ctx, `SELECT c.country, c.category, c.date, c.chunks, c.records, c.bytes,
			COALESCE(d.domains, 0)
		FROM (`+partitionAggregates+` WHERE key <> '' GROUP BY country, category, date) c
		LEFT JOIN (SELECT country, category, date, COUNT(*) AS domains FROM domain_partitions
			GROUP BY country, category, date) d
			ON d.country = c.country AND d.category = c.category AND d.date = c.date
		ORDER BY c.country, c.category, c.date`)
	if err != nil {
		return nil, fmt.Errorf("find research index: %w", err)
	}
	defer func() { _ = rows.Close() }()
	idx := &seedengine.ResearchIndex{Countries: map[string]map[string][]seedengine.PartitionSummary{}}
	for rows.Next() {
		var s seedengine.PartitionSummary
		if err := rows.Scan(&s.Country, &s.Category, &s.Date, &s.Chunks, &s.Records, &s.Bytes, &s.Domains); err != nil {
			return nil, fmt.Errorf("find research index: %w", err)
		}
		cats := idx.Countries[s.Country]
		if cats == nil {
			cats = map[string][]seedengine.PartitionSummary{}
			idx.Countries[s.Country] = cats
		}
		cats[s.Category] = append(cats[s.Category], s)
		idx.Totals.Partitions++
		idx.Totals.Chunks += s.Chunks
		idx.Totals.Records += s.Records
		idx.Totals.Bytes += s.Bytes
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("find research index: %w", err)
	}
	return idx, nil
}

func scanChunkInfo(row rowScanner) (seedengine.ChunkInfo, error) {
	var (
		c       seedengine.ChunkInfo
		origin  sql.NullString
		modTime scanTime
	)
	if err := row.Scan(&c.Country, &c.Category, &c.Date, &c.Chunk, &c.Key, &c.Bytes, &c.Records,
		&c.Completed, &origin, &modTime); err != nil {
		return seedengine.ChunkInfo{}, err
	}
	c.Name = chunkName(c.Chunk)
	c.Origin = origin.String
	c.ModTime = modTime.Time
	return c, nil
}

// chunkName is seedengine.ChunkName for messages and ChunkInfo.Name, where
// n comes from a validated row.
func chunkName(n int) string {
	name, err := seedengine.ChunkName(n)
	if err != nil {
		return "chunk " + strconv.Itoa(n)
	}
	return name
}

// nullString stores "" as NULL, which the origin column needs: only
// non-NULL origins must be unique.
func nullString(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// timeOrNull stores a zero time as NULL, meaning unknown.
func (x *DatasetIndex) timeOrNull(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return x.db.timeArg(t)
}
