package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/seedengine/seedengine"
)

// fileSet is one kind of record written to immutable files per partition
// (items, articles): a table of rows, each with its partition, a time and
// a JSON body; a table of counts per partition; a table of the files,
// each a range of the rows' ids. A file's rows are fixed in SQL first (allocate),
// then the object is written, then marked written.
type fileSet struct {
	db         *DB
	rows       string // the records: id, country, category, day, and the columns below
	partitions string // counts per partition: {count}, filed, files, bytes, oldest_pending_at
	files      string // the files: {count}, bytes, first_id, last_id, created_at, written_at
	count      string // the column counting records in partitions and files
	at         string // the rows' time column: a partition waits for its oldest unfiled row
	body       string // the rows' JSON column
	name       string // the file name's format, from its number
}

var (
	itemSet = fileSet{rows: "items", partitions: "item_partitions", files: "item_files", count: "items",
		at: "first_seen_at", body: "item_json", name: "items_%04d"}
	articleSet = fileSet{rows: "articles", partitions: "article_partitions", files: "article_files", count: "articles",
		at: "extracted_at", body: "article_json", name: "articles_%04d"}
)

// on returns the set on db.
func (s fileSet) on(db *DB) fileSet {
	s.db = db
	return s
}

func (s fileSet) scanFile(row rowScanner) (seedengine.ItemFile, error) {
	var f seedengine.ItemFile
	var written scanTime
	if err := row.Scan(&f.Country, &f.Category, &f.Date, &f.File, &f.Items, &f.Bytes, &f.FirstID, &f.LastID, &written); err != nil {
		return f, err
	}
	f.WrittenAt = written.ptr()
	f.Name = fmt.Sprintf(s.name, f.File)
	return f, nil
}

// filesWhere lists the files matching cond.
func (s fileSet) filesWhere(ctx context.Context, cond string, args ...any) ([]seedengine.ItemFile, error) {
	rows, err := s.db.reader.QueryContext(ctx, `SELECT country, category, day, file, `+s.count+`, bytes, first_id, last_id, written_at
		FROM `+s.files+` WHERE `+cond, args...)
	if err != nil {
		return nil, fmt.Errorf("find %s: %w", s.files, err)
	}
	defer rows.Close()
	out := []seedengine.ItemFile{}
	for rows.Next() {
		f, err := s.scanFile(rows)
		if err != nil {
			return nil, fmt.Errorf("find %s: %w", s.files, err)
		}
		out = append(out, f)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("find %s: %w", s.files, err)
	}
	return out, nil
}

// partitionFiles lists partition p's files in order.
func (s fileSet) partitionFiles(ctx context.Context, p seedengine.Partition) ([]seedengine.ItemFile, error) {
	return s.filesWhere(ctx, `country = $1 AND category = $2 AND day = $3 ORDER BY file`, p.Country, p.Category, p.Date)
}

// unwritten lists the files whose rows are fixed but whose object is not
// known to be written (a flush cut short), oldest first.
func (s fileSet) unwritten(ctx context.Context) ([]seedengine.ItemFile, error) {
	return s.filesWhere(ctx, `written_at IS NULL ORDER BY created_at LIMIT 1000`)
}

// pending lists up to limit partitions with rows in no file whose oldest
// such row is from before olderThan, or with at least full of them, or of
// a day before olderThan's: what a flush writes now.
func (s fileSet) pending(ctx context.Context, olderThan time.Time, full, limit int) ([]seedengine.Partition, error) {
	today := olderThan.UTC().Format(seedengine.DateLayout)
	rows, err := s.db.reader.QueryContext(ctx, `SELECT country, category, day FROM `+s.partitions+`
		WHERE `+s.count+` > filed AND (oldest_pending_at < $1 OR `+s.count+` - filed >= $2 OR day < $3)
		ORDER BY oldest_pending_at LIMIT `+strconv.Itoa(limit), s.db.timeArg(olderThan), full, today)
	if err != nil {
		return nil, fmt.Errorf("find pending %s: %w", s.partitions, err)
	}
	defer rows.Close()
	var out []seedengine.Partition
	for rows.Next() {
		var p seedengine.Partition
		if err := rows.Scan(&p.Country, &p.Category, &p.Date); err != nil {
			return nil, fmt.Errorf("find pending %s: %w", s.partitions, err)
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

// allocate fixes the next file of partition p: up to max of its rows in
// no file yet, the oldest first, become file n (the next number), in one
// transaction with the file's row. nil when the partition has no such
// rows.
//
// A file is a range of ids: its partition's rows from first_id to
// last_id. Rows commit in id order (SQLite's one writer; on PostgreSQL
// the items and articles locks, held to the commit), so the rows of a
// partition in no file are those above its last file's last_id, and none
// can appear below it later. The file's row is all that fixes it: the
// rows themselves are not written again (rows.file stays NULL; rows
// filed before kept theirs).
func (s fileSet) allocate(ctx context.Context, p seedengine.Partition, max int) (*seedengine.ItemFile, error) {
	var out *seedengine.ItemFile
	err := s.db.inTx(ctx, func(tx *sql.Tx) error {
		var filed int
		err := tx.QueryRowContext(ctx, `SELECT filed FROM `+s.partitions+` WHERE country = $1 AND category = $2 AND day = $3`+s.db.forUpdate(),
			p.Country, p.Category, p.Date).Scan(&filed)
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		if err != nil {
			return err
		}
		var file int
		var after int64
		if err := tx.QueryRowContext(ctx, `SELECT COALESCE(MAX(file), 0) + 1, COALESCE(MAX(last_id), 0) FROM `+s.files+`
			WHERE country = $1 AND category = $2 AND day = $3`, p.Country, p.Category, p.Date).Scan(&file, &after); err != nil {
			return err
		}
		var first, last sql.NullInt64
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT MIN(id), MAX(id), COUNT(*) FROM (SELECT id FROM `+s.rows+`
			WHERE country = $1 AND category = $2 AND day = $3 AND id > $4 ORDER BY id LIMIT `+strconv.Itoa(max)+`) AS next`,
			p.Country, p.Category, p.Date, after).Scan(&first, &last, &n); err != nil {
			return err
		}
		if n == 0 {
			return nil
		}
		now := nowUTC()
		if _, err := tx.ExecContext(ctx, `INSERT INTO `+s.files+` (country, category, day, file, `+s.count+`, first_id, last_id, created_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`, p.Country, p.Category, p.Date, file, n, first.Int64, last.Int64, s.db.timeArg(now)); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE `+s.partitions+` SET filed = filed + $4, files = files + 1,
			oldest_pending_at = (SELECT MIN(`+s.at+`) FROM `+s.rows+` WHERE country = $1 AND category = $2 AND day = $3 AND id > $5)
			WHERE country = $1 AND category = $2 AND day = $3`, p.Country, p.Category, p.Date, n, last.Int64); err != nil {
			return err
		}
		f := seedengine.ItemFile{Partition: p, File: file, Name: fmt.Sprintf(s.name, file), Items: n, FirstID: first.Int64, LastID: last.Int64}
		out = &f
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("allocate a file of %s: %w", s.rows, err)
	}
	return out, nil
}

// eachOfFile calls fn with the id and JSON body of file f's rows in ID
// order, reading in pages so memory stays flat.
func (s fileSet) eachOfFile(ctx context.Context, f seedengine.ItemFile, fn func(id int64, body string) error) error {
	after := f.FirstID - 1
	for {
		// The file is its partition's rows from its first id to its last
		// (allocate).
		rows, err := s.db.reader.QueryContext(ctx, `SELECT id, `+s.body+` FROM `+s.rows+`
			WHERE country = $1 AND category = $2 AND day = $3 AND id > $4 AND id <= $5 ORDER BY id LIMIT 1000`,
			f.Country, f.Category, f.Date, after, f.LastID)
		if err != nil {
			return fmt.Errorf("read %s of a file: %w", s.rows, err)
		}
		n := 0
		for rows.Next() {
			var body string
			if err := rows.Scan(&after, &body); err != nil {
				rows.Close()
				return fmt.Errorf("read %s of a file: %w", s.rows, err)
			}
			n++
			if err := fn(after, body); err != nil {
				rows.Close()
				return err
			}
		}
		if err := rows.Close(); err != nil {
			return fmt.Errorf("read %s of a file: %w", s.rows, err)
		}
		if err := rows.Err(); err != nil {
			return fmt.Errorf("read %s of a file: %w", s.rows, err)
		}
		if n < 1000 {
			return nil
		}
	}
}

// markWritten records that file f's object is stored, with its size.
// Marking a written file again changes nothing.
func (s fileSet) markWritten(ctx context.Context, f seedengine.ItemFile, bytes int64) error {
	err := s.db.inTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE `+s.files+` SET written_at = $5, bytes = $6
			WHERE country = $1 AND category = $2 AND day = $3 AND file = $4 AND written_at IS NULL`,
			f.Country, f.Category, f.Date, f.File, s.db.timeArg(nowUTC()), bytes)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return nil
		}
		_, err = tx.ExecContext(ctx, `UPDATE `+s.partitions+` SET bytes = bytes + $4 WHERE country = $1 AND category = $2 AND day = $3`,
			f.Country, f.Category, f.Date, bytes)
		return err
	})
	if err != nil {
		return fmt.Errorf("mark a file of %s written: %w", s.rows, err)
	}
	return nil
}

// Files is a kind of record's files as the flusher (harvest.Store) sees
// them.
type Files struct {
	set    fileSet
	record func(id int64, body string) (any, error)
}

// PendingPartitions lists up to limit partitions with records in no
// file whose oldest such record is from before olderThan, or with at
// least full of them, or of a day before olderThan's.
func (f Files) PendingPartitions(ctx context.Context, olderThan time.Time, full, limit int) ([]seedengine.Partition, error) {
	return f.set.pending(ctx, olderThan, full, limit)
}

// AllocateFile fixes the next file of partition p (at most max records);
// nil when none wait.
func (f Files) AllocateFile(ctx context.Context, p seedengine.Partition, max int) (*seedengine.ItemFile, error) {
	return f.set.allocate(ctx, p, max)
}

// UnwrittenFiles lists the files fixed but not known to be written.
func (f Files) UnwrittenFiles(ctx context.Context) ([]seedengine.ItemFile, error) {
	return f.set.unwritten(ctx)
}

// RecordsOfFile calls fn with each record of file in ID order.
func (f Files) RecordsOfFile(ctx context.Context, file seedengine.ItemFile, fn func(any) error) error {
	return f.set.eachOfFile(ctx, file, func(id int64, body string) error {
		v, err := f.record(id, body)
		if err != nil {
			return fmt.Errorf("read %s of a file: %d: %w", f.set.rows, id, err)
		}
		return fn(v)
	})
}

// MarkFileWritten records that file's object is stored.
func (f Files) MarkFileWritten(ctx context.Context, file seedengine.ItemFile, bytes int64) error {
	return f.set.markWritten(ctx, file, bytes)
}
