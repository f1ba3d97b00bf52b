package sqlstore

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/seedengine/seedengine"
)

// Harvested items (internal/harvest): recorded with the check that read
// them (recordItems, inside RecordSeedCheck's transaction), read by the
// API, and written to files by the harvest flusher.

// ItemService keeps the harvested items.
type ItemService struct {
	db *DB
}

var _ seedengine.ItemService = (*ItemService)(nil)

// NewItemService returns an ItemService on db.
func NewItemService(db *DB) *ItemService { return &ItemService{db: db} }

// itemsLock is the PostgreSQL advisory lock a transaction holds from
// taking item ids until it commits, so ids commit in order: a reader that
// has seen id n never later sees a smaller one appear. (SQLite has one
// writer at a time and needs none.)
const itemsLock = 0x5eed17e5

// seenBump is how stale a dedupe row's last sighting may be before a
// read that lists the URL again writes the new time: the window counts
// from the last sighting, and most reads write nothing.
const seenBump = 24 * time.Hour

// urlKey is the dedupe key of a normalized URL: 4 bytes of its host's
// SHA-256, then 12 of the URL's. The host first keeps one site's URLs
// side by side in the index, so a read's dozen new keys fill one or two
// pages of it rather than a dozen scattered ones (on SQLite, what a
// commit writes).
func urlKey(normalized string) []byte {
	host := normalized
	if i := strings.Index(host, "://"); i >= 0 {
		host = host[i+3:]
	}
	if i := strings.IndexAny(host, "/?#"); i >= 0 {
		host = host[:i]
	}
	hh := sha256.Sum256([]byte(host))
	uh := sha256.Sum256([]byte(normalized))
	key := make([]byte, 16)
	copy(key, hh[:4])
	copy(key[4:], uh[:12])
	return key
}

// maxRowsPerStatement bounds the rows of one multi-row statement (SQLite
// allows 32,766 parameters).
const maxRowsPerStatement = 500

// A read's seen keys and items are each written in one statement: on
// PostgreSQL from arrays (unnest: a handful of parameters and one
// statement text whatever the count), on SQLite as a VALUES list of
// anonymous parameters, maxRowsPerStatement rows at a time.

// readItems are a read's items with their dedupe keys and their JSON,
// made before the transaction that records them (prepareItems).
type readItems struct {
	items []seedengine.Item
	keys  [][]byte
	// heads and tails are each item's item_json before and after its
	// check's id, which the transaction gives (itemEncoder.split).
	heads, tails []string
	parts        []seedengine.Partition
}

func prepareItems(items []seedengine.Item) (readItems, error) {
	r := readItems{items: items, keys: make([][]byte, len(items)), heads: make([]string, len(items)), tails: make([]string, len(items)),
		parts: make([]seedengine.Partition, len(items))}
	enc := newItemEncoder()
	for i := range items {
		r.keys[i] = urlKey(items[i].NormalizedURL)
		r.parts[i] = items[i].Partition()
		var err error
		if r.heads[i], r.tails[i], err = enc.split(items[i]); err != nil {
			return r, fmt.Errorf("encode item %q: %w", items[i].URL, err)
		}
	}
	return r, nil
}

// newItems returns which of a read's items (their indexes) no read
// listed before within the window, marking them seen, and marks the
// others seen at now when their last sighting is older than seenBump. A
// URL two transactions record at once is new to exactly one of them (the
// second waits on the first's key). The keys are written in key order,
// so two transactions wait on each other's keys in one order, never in a
// cycle.
func (s *SeedService) newItems(ctx context.Context, tx *sql.Tx, read readItems, now time.Time) ([]int, error) {
	itemKeys := read.keys
	keys := slices.Clone(itemKeys)
	slices.SortFunc(keys, bytes.Compare)
	keys = slices.CompactFunc(keys, bytes.Equal)
	inserted := make(map[string]bool, len(keys))
	seenAt := s.db.timeArg(now)
	for start := 0; start < len(keys); start += s.rowsPerStatement() {
		part := keys[start:min(start+s.rowsPerStatement(), len(keys))]
		var q string
		var args []any
		if s.db.engine == EnginePostgres {
			q = `INSERT INTO harvest_seen (url_key, seen_at) SELECT k, $2 FROM unnest($1::bytea[]) AS k
				ON CONFLICT (url_key) DO NOTHING RETURNING url_key`
			args = []any{part, seenAt}
		} else {
			var b strings.Builder
			b.WriteString(`INSERT INTO harvest_seen (url_key, seen_at) VALUES `)
			s.db.valueRows(&b, len(part), 2, 0)
			b.WriteString(` ON CONFLICT (url_key) DO NOTHING RETURNING url_key`)
			q = b.String()
			args = make([]any, 0, 2*len(part))
			for _, k := range part {
				args = append(args, k, seenAt)
			}
		}
		if err := scanKeys(ctx, tx, q, args, inserted); err != nil {
			return nil, fmt.Errorf("mark items seen: %w", err)
		}
	}
	var fresh []int
	var old [][]byte
	for i, k := range itemKeys {
		if inserted[string(k)] {
			// A URL listed twice in one read is one item.
			delete(inserted, string(k))
			fresh = append(fresh, i)
		} else {
			old = append(old, k)
		}
	}
	if len(old) == 0 {
		return fresh, nil
	}
	slices.SortFunc(old, bytes.Compare)
	old = slices.CompactFunc(old, bytes.Equal)
	for start := 0; start < len(old); start += s.rowsPerStatement() {
		part := old[start:min(start+s.rowsPerStatement(), len(old))]
		args := []any{seenAt, s.db.timeArg(now.Add(-seenBump))}
		in := `= ANY($3::bytea[])`
		if s.db.engine == EnginePostgres {
			args = append(args, part)
		} else {
			in = `IN (` + strings.Repeat(",?", len(part))[1:] + `)`
			for _, k := range part {
				args = append(args, k)
			}
		}
		if _, err := tx.ExecContext(ctx, `UPDATE harvest_seen SET seen_at = `+s.db.param(1)+` WHERE seen_at < `+s.db.param(2)+
			` AND url_key `+in, args...); err != nil {
			return nil, fmt.Errorf("mark items seen again: %w", err)
		}
	}
	return fresh, nil
}

// rowsPerStatement is how many rows one statement writes: any number
// from arrays on PostgreSQL.
func (s *SeedService) rowsPerStatement() int {
	if s.db.engine == EnginePostgres {
		return math.MaxInt32
	}
	return maxRowsPerStatement
}

// scanKeys runs q, which returns keys, and adds them to into.
func scanKeys(ctx context.Context, tx *sql.Tx, q string, args []any, into map[string]bool) error {
	rows, err := tx.QueryContext(ctx, q, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var k []byte
		if err := rows.Scan(&k); err != nil {
			return err
		}
		into[string(k)] = true
	}
	return rows.Err()
}

// itemPartitionCount is what a read adds to a partition's counts.
type itemPartitionCount struct {
	seedengine.Partition
	n      int
	oldest time.Time
}

// insertItems stores the fresh items of a read (indexes into it), read by
// check checkID, and counts them in their partitions. It returns them
// with their IDs set, in commit order.
func (s *SeedService) insertItems(ctx context.Context, tx *sql.Tx, read readItems, fresh []int, checkID int64) ([]seedengine.Item, error) {
	if len(fresh) == 0 {
		return nil, nil
	}
	items := make([]seedengine.Item, len(fresh))
	var parts []itemPartitionCount
	cols := itemColumns{
		country: make([]string, len(items)), category: make([]string, len(items)), day: make([]string, len(items)),
		seed: make([]string, len(items)), domain: make([]string, len(items)), seen: make([]any, len(items)), body: make([]string, len(items)),
	}
	id := strconv.FormatInt(checkID, 10)
	for i, r := range fresh {
		items[i] = read.items[r]
		it := &items[i]
		it.Source.CheckID = checkID
		p := read.parts[r]
		cols.country[i], cols.category[i], cols.day[i] = p.Country, p.Category, p.Date
		cols.seed[i], cols.domain[i], cols.seen[i] = it.SeedID, it.DomainID, s.db.timeArg(it.FirstSeenAt)
		cols.body[i] = read.heads[r] + id + read.tails[r]
		k := slices.IndexFunc(parts, func(c itemPartitionCount) bool { return c.Partition == p })
		if k < 0 {
			parts = append(parts, itemPartitionCount{Partition: p, oldest: it.FirstSeenAt})
			k = len(parts) - 1
		}
		parts[k].n++
		if it.FirstSeenAt.Before(parts[k].oldest) {
			parts[k].oldest = it.FirstSeenAt
		}
	}
	// The partitions' rows are locked in one order by every transaction.
	slices.SortFunc(parts, func(a, b itemPartitionCount) int {
		return cmp.Or(cmp.Compare(a.Country, b.Country), cmp.Compare(a.Category, b.Category), cmp.Compare(a.Date, b.Date))
	})
	if s.db.engine == EnginePostgres {
		return items, s.insertItemsPostgres(ctx, tx, items, cols, parts)
	}
	for start := 0; start < len(items); start += maxRowsPerStatement {
		end := min(start+maxRowsPerStatement, len(items))
		var b strings.Builder
		b.WriteString(`INSERT INTO items (country, category, day, seed_id, domain_id, first_seen_at, item_json) VALUES `)
		s.db.valueRows(&b, end-start, 7, 0)
		b.WriteString(` RETURNING id`)
		args := make([]any, 0, 7*(end-start))
		for i := start; i < end; i++ {
			args = append(args, cols.country[i], cols.category[i], cols.day[i], cols.seed[i], cols.domain[i], cols.seen[i], cols.body[i])
		}
		if err := scanItemIDs(ctx, tx, b.String(), args, items[start:end]); err != nil {
			return nil, fmt.Errorf("record items: %w", err)
		}
	}
	var b strings.Builder
	b.WriteString(`INSERT INTO item_partitions (country, category, day, items, oldest_pending_at) VALUES `)
	s.db.valueRows(&b, len(parts), 5, 0)
	b.WriteString(` ON CONFLICT (country, category, day) DO UPDATE SET items = item_partitions.items + excluded.items,
		oldest_pending_at = COALESCE(item_partitions.oldest_pending_at, excluded.oldest_pending_at)`)
	args := make([]any, 0, 5*len(parts))
	for _, c := range parts {
		args = append(args, c.Country, c.Category, c.Date, c.n, s.db.timeArg(c.oldest))
	}
	if _, err := tx.ExecContext(ctx, b.String(), args...); err != nil {
		return nil, fmt.Errorf("count items: %w", err)
	}
	return items, nil
}

// itemColumns are the items' columns, one slice each.
type itemColumns struct {
	country, category, day, seed, domain, body []string
	seen                                       []any
}

// insertItemsPostgres takes the items lock and writes the items and
// their partitions' counts, in one statement: each of its two parts
// takes the lock (an InitPlan, run before its first row) before it
// writes, so the ids are taken, and the partitions' rows locked, under
// it, and a read holding the lock spends no round trip on taking it.
func (s *SeedService) insertItemsPostgres(ctx context.Context, tx *sql.Tx, items []seedengine.Item, cols itemColumns, parts []itemPartitionCount) error {
	seen := make([]time.Time, len(items))
	for i := range items {
		seen[i] = cols.seen[i].(time.Time)
	}
	var (
		pCountry  = make([]string, len(parts))
		pCategory = make([]string, len(parts))
		pDay      = make([]string, len(parts))
		pItems    = make([]int64, len(parts))
		pOldest   = make([]time.Time, len(parts))
	)
	for i, c := range parts {
		pCountry[i], pCategory[i], pDay[i], pItems[i], pOldest[i] = c.Country, c.Category, c.Date, int64(c.n), s.db.timeArg(c.oldest).(time.Time)
	}
	// Rows are inserted, and take their ids, in the arrays' order.
	err := scanItemIDs(ctx, tx, `WITH counted AS (
			INSERT INTO item_partitions (country, category, day, items, oldest_pending_at)
			SELECT * FROM unnest($8::text[], $9::text[], $10::text[], $11::bigint[], $12::timestamptz[])
			WHERE (SELECT pg_advisory_xact_lock($13)) IS NOT NULL
			ON CONFLICT (country, category, day) DO UPDATE SET items = item_partitions.items + excluded.items,
				oldest_pending_at = COALESCE(item_partitions.oldest_pending_at, excluded.oldest_pending_at))
		INSERT INTO items (country, category, day, seed_id, domain_id, first_seen_at, item_json)
		SELECT country, category, day, seed_id, domain_id, first_seen_at, item_json
		FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::timestamptz[], $7::text[]) WITH ORDINALITY
			AS v(country, category, day, seed_id, domain_id, first_seen_at, item_json, n)
		WHERE (SELECT pg_advisory_xact_lock($13)) IS NOT NULL
		ORDER BY n
		RETURNING id`,
		[]any{cols.country, cols.category, cols.day, cols.seed, cols.domain, seen, cols.body, pCountry, pCategory, pDay, pItems, pOldest, int64(itemsLock)}, items)
	if err != nil {
		return fmt.Errorf("record items: %w", err)
	}
	return nil
}

// scanItemIDs runs q, an insert of items' rows in their order that
// returns their ids, and sets the items' IDs: ascending in the rows'
// order, as the rows took them.
func scanItemIDs(ctx context.Context, tx *sql.Tx, q string, args []any, items []seedengine.Item) error {
	rows, err := tx.QueryContext(ctx, q, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	ids := make([]int64, 0, len(items))
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return err
		}
		ids = append(ids, id)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if len(ids) != len(items) {
		return fmt.Errorf("%d ids for %d items", len(ids), len(items))
	}
	slices.Sort(ids)
	for i := range items {
		items[i].ID = ids[i]
	}
	return nil
}

// countRead adds a harvesting read to the running counts.
func (s *SeedService) countRead(ctx context.Context, tx *sql.Tx, seedID string, harvested, listed int, gap bool) error {
	shard := int(urlKey(seedID)[0] % 16)
	g := 0
	if gap {
		g = 1
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO harvest_counts (shard, reads, items, gaps, dedupe_hits) VALUES ($1, 1, $2, $3, $4)
		ON CONFLICT (shard) DO UPDATE SET reads = harvest_counts.reads + 1, items = harvest_counts.items + excluded.items,
			gaps = harvest_counts.gaps + excluded.gaps, dedupe_hits = harvest_counts.dedupe_hits + excluded.dedupe_hits`,
		shard, harvested, g, listed-harvested)
	if err != nil {
		return fmt.Errorf("count the read: %w", err)
	}
	return nil
}

// itemEncoder encodes item_json: an item without its id (0, the row's)
// and its page, as compact JSON with HTML left unescaped, the encoding of
// its line in a file (itemLine).
type itemEncoder struct {
	buf bytes.Buffer
	enc *json.Encoder
}

func newItemEncoder() *itemEncoder {
	e := &itemEncoder{}
	e.enc = json.NewEncoder(&e.buf)
	e.enc.SetEscapeHTML(false)
	return e
}

// checkIDField is how item_json holds the item's check id (0 before the
// check has one). The key is matched with its quotes: a quote inside a
// JSON string is escaped, so only the key itself matches.
const checkIDField = `"check_id":`

// split encodes it with no check id and returns its JSON before and
// after the id's place: head + the check's id + tail is its item_json.
func (e *itemEncoder) split(it seedengine.Item) (head, tail string, err error) {
	it.Source.CheckID = 0
	body, err := e.encode(it)
	if err != nil {
		return "", "", err
	}
	i := strings.Index(body, checkIDField+"0")
	if i < 0 {
		return "", "", fmt.Errorf("no %s in its JSON", checkIDField)
	}
	i += len(checkIDField)
	return body[:i], body[i+1:], nil
}

func (e *itemEncoder) encode(it seedengine.Item) (string, error) {
	it.ID, it.Page = 0, nil
	e.buf.Reset()
	if err := e.enc.Encode(it); err != nil {
		return "", err
	}
	return string(bytes.TrimSuffix(e.buf.Bytes(), []byte("\n"))), nil
}

// DeleteSeenBefore forgets, at most limit at a time, the URLs no read has
// listed since t (the dedupe window's end): seen again, they are new.
// It returns how many it deleted.
func (s *ItemService) DeleteSeenBefore(ctx context.Context, t time.Time, limit int) (int64, error) {
	res, err := s.db.writer.ExecContext(ctx, `DELETE FROM harvest_seen WHERE url_key IN
		(SELECT url_key FROM harvest_seen WHERE seen_at < $1 LIMIT `+strconv.Itoa(limit)+`)`, s.db.timeArg(t))
	if err != nil {
		return 0, fmt.Errorf("prune seen urls: %w", err)
	}
	return res.RowsAffected()
}

// FindItems implements seedengine.ItemService.
func (s *ItemService) FindItems(ctx context.Context, f seedengine.ItemFilter) ([]seedengine.Item, error) {
	return s.findItems(ctx, s.db.reader, f)
}

func (s *ItemService) findItems(ctx context.Context, q queryer, f seedengine.ItemFilter) ([]seedengine.Item, error) {
	if f.Limit <= 0 || f.Limit > seedengine.MaxItemsPage {
		return nil, seedengine.FieldErrorf("limit", "limit must be between 1 and %d", seedengine.MaxItemsPage)
	}
	where := []string{"i.id > $1"}
	args := []any{f.Since}
	add := func(col, v string) {
		if v != "" {
			args = append(args, v)
			where = append(where, "i."+col+" = $"+strconv.Itoa(len(args)))
		}
	}
	add("country", f.Country)
	add("category", f.Category)
	add("day", f.Date)
	add("seed_id", f.SeedID)
	if f.DomainID != "" {
		// A domain's seeds are {domain_id}::{content_type}: a range of the
		// seed index, with no index of its own to keep up.
		args = append(args, f.DomainID+"::", f.DomainID+":;")
		where = append(where, fmt.Sprintf("i.seed_id >= $%d AND i.seed_id < $%d", len(args)-1, len(args)))
	}
	if f.Until > 0 {
		args = append(args, f.Until)
		where = append(where, "i.id <= $"+strconv.Itoa(len(args)))
	}
	// Each item with its page, when its seed fetches pages.
	rows, err := q.QueryContext(ctx, `SELECT i.id, i.item_json, p.state, p.status, p.warc_file, p.record_offset, p.record_length
		FROM items i LEFT JOIN pages p ON p.item_id = i.id WHERE `+strings.Join(where, " AND ")+
		` ORDER BY i.id LIMIT `+strconv.Itoa(f.Limit), args...)
	if err != nil {
		return nil, fmt.Errorf("find items: %w", err)
	}
	defer rows.Close()
	out := []seedengine.Item{}
	for rows.Next() {
		var (
			id             int64
			body           string
			state, file    sql.NullString
			status         sql.NullInt64
			offset, length sql.NullInt64
		)
		if err := rows.Scan(&id, &body, &state, &status, &file, &offset, &length); err != nil {
			return nil, fmt.Errorf("find items: %w", err)
		}
		var it seedengine.Item
		if err := json.Unmarshal([]byte(body), &it); err != nil {
			return nil, fmt.Errorf("find items: item %d: %w", id, err)
		}
		it.ID = id
		if state.Valid {
			it.Page = &seedengine.ItemPage{State: seedengine.PageState(state.String), Status: int(status.Int64)}
			if it.Page.State == seedengine.PageStored {
				it.Page.WARCFile, it.Page.Offset, it.Page.Length = file.String, offset.Int64, length.Int64
			}
		}
		out = append(out, it)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("find items: %w", err)
	}
	return out, nil
}

// FindItemPartitions implements seedengine.ItemService.
func (s *ItemService) FindItemPartitions(ctx context.Context, f seedengine.ItemPartitionFilter) ([]seedengine.ItemPartition, int, error) {
	where := []string{"items > 0"}
	var args []any
	add := func(cond, v string) {
		if v != "" {
			args = append(args, v)
			where = append(where, cond+" $"+strconv.Itoa(len(args)))
		}
	}
	add("country =", f.Country)
	add("category =", f.Category)
	add("day >=", f.DateFrom)
	add("day <=", f.DateTo)
	cond := strings.Join(where, " AND ")
	var total int
	if err := s.db.reader.QueryRowContext(ctx, `SELECT COUNT(*) FROM item_partitions WHERE `+cond, args...).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("find item partitions: %w", err)
	}
	limit := f.Limit
	if limit <= 0 {
		limit = 100
	}
	rows, err := s.db.reader.QueryContext(ctx, `SELECT country, category, day, items, filed, files, bytes FROM item_partitions WHERE `+cond+
		` ORDER BY day DESC, country, category LIMIT `+strconv.Itoa(limit)+` OFFSET `+strconv.Itoa(max(f.Offset, 0)), args...)
	if err != nil {
		return nil, 0, fmt.Errorf("find item partitions: %w", err)
	}
	defer rows.Close()
	out := []seedengine.ItemPartition{}
	for rows.Next() {
		var p seedengine.ItemPartition
		var filed int
		if err := rows.Scan(&p.Country, &p.Category, &p.Date, &p.Items, &filed, &p.Files, &p.Bytes); err != nil {
			return nil, 0, fmt.Errorf("find item partitions: %w", err)
		}
		p.Pending = p.Items - filed
		out = append(out, p)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, fmt.Errorf("find item partitions: %w", err)
	}
	return out, total, nil
}

// FindItemFiles implements seedengine.ItemService.
func (s *ItemService) FindItemFiles(ctx context.Context, p seedengine.Partition) ([]seedengine.ItemFile, error) {
	return itemSet.on(s.db).partitionFiles(ctx, p)
}

// UnwrittenItemFiles lists the files whose items are fixed but whose
// object is not known to be written (a flush cut short), oldest first.
func (s *ItemService) UnwrittenItemFiles(ctx context.Context) ([]seedengine.ItemFile, error) {
	return itemSet.on(s.db).unwritten(ctx)
}

// PendingItemPartitions lists up to limit partitions with items in no
// file whose oldest such item was first seen before olderThan, or with
// at least full of them, or of a day before today's: what a flush
// writes now.
func (s *ItemService) PendingItemPartitions(ctx context.Context, olderThan time.Time, full, limit int) ([]seedengine.Partition, error) {
	return itemSet.on(s.db).pending(ctx, olderThan, full, limit)
}

// AllocateItemFile fixes the next file of partition p: up to maxItems of
// its items in no file yet, the oldest first, become file n (the next
// number), in one transaction with the file's row. nil when the
// partition has no such items. The object is written afterwards
// (MarkItemFileWritten); until then the file is listed unwritten.
func (s *ItemService) AllocateItemFile(ctx context.Context, p seedengine.Partition, maxItems int) (*seedengine.ItemFile, error) {
	return itemSet.on(s.db).allocate(ctx, p, maxItems)
}

// Files are the item files as the flusher sees them: each item's line
// is its stored JSON with its id put in (itemLine).
func (s *ItemService) Files() Files {
	return Files{set: itemSet.on(s.db), record: itemLine}
}

// itemLine is an item's line in its file, json.Encoder's encoding of the
// item (HTML left unescaped) without its newline. The stored JSON is
// that encoding with id 0 (itemJSON), so the line is the stored JSON
// with the id written in: decoding and encoding again cost most of a
// flush. A row whose JSON is otherwise (made before, with <, > and &
// escaped) is decoded and given as the item.
func itemLine(id int64, body string) (any, error) {
	const zero = `{"id":0,`
	if strings.HasPrefix(body, zero) && !strings.Contains(body, `\u00`) {
		line := make([]byte, 0, len(body)+20)
		line = append(line, `{"id":`...)
		line = strconv.AppendInt(line, id, 10)
		line = append(line, body[len(zero)-1:]...)
		return json.RawMessage(line), nil
	}
	return decodeItem(id, body)
}

func decodeItem(id int64, body string) (seedengine.Item, error) {
	var it seedengine.Item
	if err := json.Unmarshal([]byte(body), &it); err != nil {
		return it, err
	}
	it.ID = id
	return it, nil
}

// ItemsOfFile calls fn with the items of file f in ID order, reading in
// pages so memory stays flat.
func (s *ItemService) ItemsOfFile(ctx context.Context, f seedengine.ItemFile, fn func(seedengine.Item) error) error {
	return itemSet.on(s.db).eachOfFile(ctx, f, func(id int64, body string) error {
		it, err := decodeItem(id, body)
		if err != nil {
			return fmt.Errorf("read items of a file: %d: %w", id, err)
		}
		return fn(it)
	})
}

// MarkItemFileWritten records that file f's object is stored, with its
// size. Marking a written file again changes nothing.
func (s *ItemService) MarkItemFileWritten(ctx context.Context, f seedengine.ItemFile, bytes int64) error {
	return itemSet.on(s.db).markWritten(ctx, f, bytes)
}

// ItemStats implements seedengine.ItemService.
func (s *ItemService) ItemStats(ctx context.Context, now time.Time) (seedengine.ItemStats, error) {
	st := seedengine.ItemStats{ByCountry: map[string]seedengine.ItemCount{}, Today: map[string]int{}}
	today := now.UTC().Format(seedengine.DateLayout)
	if err := s.db.reader.QueryRowContext(ctx, `SELECT COALESCE(SUM(reads), 0), COALESCE(SUM(gaps), 0), COALESCE(SUM(dedupe_hits), 0)
		FROM harvest_counts`).Scan(&st.Reads, &st.Gaps, &st.DedupeHits); err != nil {
		return st, fmt.Errorf("count harvest reads: %w", err)
	}
	rows, err := s.db.reader.QueryContext(ctx, `SELECT country, day, items, files, bytes FROM item_partitions WHERE items > 0`)
	if err != nil {
		return st, fmt.Errorf("count items: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var country, day string
		var c seedengine.ItemCount
		if err := rows.Scan(&country, &day, &c.Items, &c.Files, &c.Bytes); err != nil {
			return st, fmt.Errorf("count items: %w", err)
		}
		st.Partitions++
		st.Items += c.Items
		st.Files += c.Files
		st.Bytes += c.Bytes
		bc := st.ByCountry[country]
		bc.Items += c.Items
		bc.Files += c.Files
		bc.Bytes += c.Bytes
		st.ByCountry[country] = bc
		if day == today {
			st.Today[country] += c.Items
		}
	}
	return st, rows.Err()
}
