package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/seedengine/seedengine"
)

// Metadata task list limits.
const (
	defaultMetadataTaskLimit = 50
	maxMetadataTaskLimit     = 1000
)

// Bounds of what a finished metadata task stores. An error is an upstream
// text of unknown size (git's output, say), so it is cut rather than
// refused; a commit id (40 or 64 hex digits) or a remote URL that long is
// a caller's mistake.
const (
	maxMetadataTaskError = 2000
	maxMetadataCommitLen = 100
	maxMetadataRemoteLen = 2000
)

const (
	metadataTaskColumns   = `id, trigger, status, requests, created_at, started_at, finished_at, commit_id, remote, error`
	metadataTaskFromWhere = ` FROM metadata_tasks WHERE id = $1`
)

// MetadataService computes metadata snapshots from the SQL store (never the
// object store) and keeps the metadata sync tasks.
//
// A snapshot is a handful of GROUP BY queries, each streaming through an
// index in its own order (dataset_chunks' primary key on SQLite and a
// covering index on PostgreSQL, domain_partitions' partition index, and
// the domains (country, authority) and domain_liveness (verdict) indexes
// of migration 0006) plus a sum over seed_counts, all in one read-only
// transaction, so every count is of the same moment. Its cost grows with
// the rows counted: 100,000 partitions of 200,000 chunks and 150,000
// domain links take about 130 ms on PostgreSQL and 340 ms on SQLite, most
// of it SQLite's GROUP BY itself (BenchmarkSnapshot100k). Below that would
// take counts kept per partition on every write.
//
// Tasks: at most one is queued and at most one runs, each held by a partial
// unique index. A request that finds a task queued joins it (requests + 1)
// instead of queueing another, through one upsert whose conflict target is
// that index; on PostgreSQL a concurrent request therefore waits for the
// transaction that inserted the queued task and then joins it, and on
// SQLite the single writer serialises them.
//
// A task's request is RequestMetadataTaskTx, in a transaction the queue
// runs (InTx) with the task's sync job (jobs.Queue.MetadataTasks).
type MetadataService struct {
	db *DB
}

// NewMetadataService returns a MetadataService on db.
func NewMetadataService(db *DB) *MetadataService { return &MetadataService{db: db} }

// InTx runs fn in a write transaction on the writer.
func (s *MetadataService) InTx(ctx context.Context, fn func(ctx context.Context, tx *sql.Tx) error) error {
	return s.db.inTx(ctx, func(tx *sql.Tx) error { return fn(ctx, tx) })
}

// Snapshot computes the snapshot of the whole store. GeneratedAt is the
// current time in UTC truncated to the second: the snapshot is committed as
// a file, where sub-second digits are noise. Engine is left for the caller.
// Every map is non-nil, and a count of zero is left out of the maps rather
// than shown, so an empty store gives empty objects. Domains are the
// registry's; LivenessByVerdict counts every registrable domain's latest
// verdict (domain_liveness), including domains a liveness batch probed
// without registering them. LastSync is the newest succeeded or
// skipped_unchanged task with a commit, at its finished_at.
func (s *MetadataService) Snapshot(ctx context.Context) (*seedengine.MetadataSnapshot, error) {
	snap := &seedengine.MetadataSnapshot{
		GeneratedAt: time.Now().UTC().Truncate(time.Second),
		Totals:      newMetadataTotals(),
		Countries:   map[string]map[string]map[string]seedengine.PartitionCounts{},
	}
	err := s.db.readTx(ctx, func(tx *sql.Tx) error {
		if err := s.partitions(ctx, tx, "", snap.Countries); err != nil {
			return err
		}
		if err := s.domainCounts(ctx, tx, "", &snap.Totals); err != nil {
			return err
		}
		if err := countInto(ctx, tx, snap.Totals.LivenessByVerdict,
			`SELECT verdict, COUNT(*) FROM domain_liveness GROUP BY verdict`); err != nil {
			return fmt.Errorf("liveness: %w", err)
		}
		if err := countInto(ctx, tx, snap.Totals.SeedsByStatus,
			`SELECT status, SUM(n) FROM seed_counts GROUP BY status`); err != nil {
			return fmt.Errorf("seeds: %w", err)
		}
		if err := countInto(ctx, tx, snap.Totals.SeedsByHealth, seedHealthCountSQL(false)); err != nil {
			return fmt.Errorf("seed health: %w", err)
		}
		var err error
		snap.LastSync, err = lastSync(ctx, tx)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("metadata snapshot: %w", err)
	}
	addPartitionTotals(&snap.Totals, snap.Countries)
	return snap, nil
}

// CountryMetadata computes one country's slice of the snapshot: its
// partitions, its domains (domains.country) by authority, their latest
// liveness (a registrable domain registered under several domain_ids
// counts for each), and its seeds by status and fetch type. The country is
// matched in any case. EINVALID for an invalid country code; ENOTFOUND when
// the country has no partition, domain or seed.
func (s *MetadataService) CountryMetadata(ctx context.Context, country string) (*seedengine.CountryMetadata, error) {
	country = seedengine.NormalizeCountry(country)
	if err := seedengine.ValidateCountry(country); err != nil {
		return nil, err
	}
	m := &seedengine.CountryMetadata{
		GeneratedAt:      time.Now().UTC().Truncate(time.Second),
		Country:          country,
		Totals:           newMetadataTotals(),
		Categories:       map[string]map[string]seedengine.PartitionCounts{},
		SeedsByFetchType: map[string]int{},
	}
	countries := map[string]map[string]map[string]seedengine.PartitionCounts{}
	err := s.db.readTx(ctx, func(tx *sql.Tx) error {
		if err := s.partitions(ctx, tx, country, countries); err != nil {
			return err
		}
		if err := s.domainCounts(ctx, tx, country, &m.Totals); err != nil {
			return err
		}
		if err := countInto(ctx, tx, m.Totals.LivenessByVerdict, `SELECT l.verdict, COUNT(*)
			FROM domains d JOIN domain_liveness l ON l.domain = d.registrable_domain
			WHERE d.country = $1 GROUP BY l.verdict`, country); err != nil {
			return fmt.Errorf("liveness: %w", err)
		}
		if err := countInto(ctx, tx, m.Totals.SeedsByStatus,
			`SELECT status, SUM(n) FROM seed_counts WHERE country = $1 GROUP BY status`, country); err != nil {
			return fmt.Errorf("seeds: %w", err)
		}
		if err := countInto(ctx, tx, m.Totals.SeedsByHealth, seedHealthCountSQL(true), country); err != nil {
			return fmt.Errorf("seed health: %w", err)
		}
		if err := countInto(ctx, tx, m.SeedsByFetchType,
			`SELECT fetch_type, SUM(n) FROM seed_counts WHERE country = $1 GROUP BY fetch_type`, country); err != nil {
			return fmt.Errorf("seeds: %w", err)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("metadata of country %q: %w", country, err)
	}
	if cats := countries[country]; cats != nil {
		m.Categories = cats
	}
	addPartitionTotals(&m.Totals, countries)
	if m.Totals.Partitions == 0 && m.Totals.Domains == 0 && len(m.Totals.SeedsByStatus) == 0 {
		return nil, seedengine.Errorf(seedengine.ENOTFOUND, "the country has no partition, domain or seed")
	}
	return m, nil
}

func newMetadataTotals() seedengine.MetadataTotals {
	return seedengine.MetadataTotals{
		DomainsByAuthority: map[string]int{},
		LivenessByVerdict:  map[string]int{},
		SeedsByStatus:      map[string]int{},
		SeedsByHealth:      map[string]int{},
	}
}

// seedHealthCountSQL counts active and suspended seeds by health state,
// of the country $1 when byCountry.
func seedHealthCountSQL(byCountry bool) string {
	q := `SELECT COALESCE(h.state, 'unknown'), COUNT(*) FROM seeds s
		LEFT JOIN seed_health h ON h.seed_id = s.seed_id
		WHERE s.status IN ('active', 'suspended')`
	if byCountry {
		q += ` AND s.country = $1`
	}
	return q + ` GROUP BY COALESCE(h.state, 'unknown')`
}

// readTx runs fn in a read-only transaction on the reader pool, so that
// several queries read the same moment: on PostgreSQL at REPEATABLE READ
// (one snapshot for the transaction), on SQLite in a deferred transaction,
// whose first read fixes its view of the WAL.
func (db *DB) readTx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	opts := &sql.TxOptions{ReadOnly: true}
	if db.engine == EnginePostgres {
		opts.Isolation = sql.LevelRepeatableRead
	}
	tx, err := db.reader.BeginTx(ctx, opts)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback() }()
	if err := fn(tx); err != nil {
		return err
	}
	return tx.Commit()
}

// partitions adds the partitions of country (of every country when empty)
// to countries: the indexed chunks and known records of each (placeholders
// left out, records of -1 counted as 0) and its domain links. A partition
// without an indexed chunk is left out, as the research list leaves it
// out, even when domains still link to it.
//
// The two aggregates run one after the other and meet in the map rather
// than in a join: each streams through its own index in partition order,
// while a join of the two (full outer, to keep partitions that are only in
// one) would make SQLite sort one side first.
//
// On PostgreSQL hash aggregation is turned off for the rest of tx. There
// are about half as many groups as rows, so a hash table holds every
// partition, spills to disk past work_mem and sends nothing until it is
// done, while the indexes' partition order lets a GroupAggregate stream
// (100,000 chunk partitions: 55 ms against 110 ms and more). The planner
// prefers hashing here, underestimating the groups and overestimating the
// index-only scans.
func (s *MetadataService) partitions(ctx context.Context, tx *sql.Tx, country string, countries map[string]map[string]map[string]seedengine.PartitionCounts) error {
	if s.db.engine == EnginePostgres {
		if _, err := tx.ExecContext(ctx, `SET LOCAL enable_hashagg = off`); err != nil {
			return err
		}
	}
	cond, args := "", []any(nil)
	if country != "" {
		cond, args = " AND country = $1", []any{country}
	}
	var pm partitionMap
	pm.countries = countries
	err := pm.scan(ctx, tx, `SELECT country, category, date, COUNT(*),
			COALESCE(SUM(CASE WHEN records > 0 THEN records ELSE 0 END), 0)
		FROM dataset_chunks WHERE key <> ''`+cond+`
		GROUP BY country, category, date`, args, func(pc *seedengine.PartitionCounts, n, records int) {
		pc.Chunks, pc.Records = n, records
	})
	if err != nil {
		return fmt.Errorf("chunks by partition: %w", err)
	}
	if country != "" {
		cond = " WHERE country = $1"
	}
	err = pm.scan(ctx, tx, `SELECT country, category, date, COUNT(*), 0
		FROM domain_partitions`+cond+`
		GROUP BY country, category, date`, args, func(pc *seedengine.PartitionCounts, n, _ int) {
		pc.Domains = n
	})
	if err != nil {
		return fmt.Errorf("domains by partition: %w", err)
	}
	// A partition is research that is there: one whose chunks were all
	// deleted is gone from the research list, so it is gone from here too
	// (its domains keep the link, shown by GET /api/v1/domains/{id}).
	for c, cats := range countries {
		for cat, dates := range cats {
			for d, pc := range dates {
				if pc.Chunks == 0 {
					delete(dates, d)
				}
			}
			if len(dates) == 0 {
				delete(cats, cat)
			}
		}
		if len(cats) == 0 {
			delete(countries, c)
		}
	}
	// Items, added after: a day with items but no research is an item
	// partition only.
	err = pm.scan(ctx, tx, `SELECT country, category, day, items, files
		FROM item_partitions WHERE items > 0`+strings.Replace(cond, "WHERE", "AND", 1), args, func(pc *seedengine.PartitionCounts, n, files int) {
		pc.Items, pc.ItemFiles = n, files
	})
	if err != nil {
		return fmt.Errorf("items by partition: %w", err)
	}
	err = pm.scan(ctx, tx, `SELECT country, category, day, articles - not_articles, files
		FROM article_partitions WHERE articles > 0`+strings.Replace(cond, "WHERE", "AND", 1), args, func(pc *seedengine.PartitionCounts, n, files int) {
		pc.Articles, pc.ArticleFiles = n, files
	})
	if err != nil {
		return fmt.Errorf("articles by partition: %w", err)
	}
	err = pm.scan(ctx, tx, `SELECT country, category, day, COUNT(*), COALESCE(SUM(records), 0)
		FROM warc_files`+cond+` GROUP BY country, category, day ORDER BY country, category`, args, func(pc *seedengine.PartitionCounts, files, records int) {
		pc.WARCFiles, pc.WARCRecords = files, records
	})
	if err != nil {
		return fmt.Errorf("warc files by partition: %w", err)
	}
	return nil
}

// partitionMap fills country → category → date → counts from rows that
// come grouped by country and category, keeping the last category's map
// at hand and sharing one string per distinct value, so 100,000 rows cost
// few map walks and allocations.
type partitionMap struct {
	countries map[string]map[string]map[string]seedengine.PartitionCounts
	strs      map[string]string
}

func (pm *partitionMap) intern(b []byte) string {
	if s, ok := pm.strs[string(b)]; ok {
		return s
	}
	s := string(b)
	pm.strs[s] = s
	return s
}

func (pm *partitionMap) scan(ctx context.Context, tx *sql.Tx, query string, args []any, set func(pc *seedengine.PartitionCounts, n, records int)) error {
	if pm.strs == nil {
		pm.strs = map[string]string{}
	}
	rows, err := tx.QueryContext(ctx, query, args...)
	if err != nil {
		return err
	}
	defer func() { _ = rows.Close() }()
	var (
		country, category, date sql.RawBytes
		n, records              int
		lastCountry, lastCat    string
		dates                   map[string]seedengine.PartitionCounts
	)
	for rows.Next() {
		if err := rows.Scan(&country, &category, &date, &n, &records); err != nil {
			return err
		}
		if dates == nil || string(country) != lastCountry || string(category) != lastCat {
			lastCountry, lastCat = pm.intern(country), pm.intern(category)
			cats := pm.countries[lastCountry]
			if cats == nil {
				cats = map[string]map[string]seedengine.PartitionCounts{}
				pm.countries[lastCountry] = cats
			}
			dates = cats[lastCat]
			if dates == nil {
				dates = map[string]seedengine.PartitionCounts{}
				cats[lastCat] = dates
			}
		}
		d := pm.intern(date)
		pc := dates[d]
		set(&pc, n, records)
		dates[d] = pc
	}
	return rows.Err()
}

// addPartitionTotals adds the partitions of countries to t.
func addPartitionTotals(t *seedengine.MetadataTotals, countries map[string]map[string]map[string]seedengine.PartitionCounts) {
	for _, cats := range countries {
		for _, dates := range cats {
			for _, pc := range dates {
				if pc.Chunks > 0 {
					t.Partitions++
					t.Chunks += pc.Chunks
					t.Records += pc.Records
				}
				if pc.Items > 0 {
					t.ItemPartitions++
					t.Items += pc.Items
					t.ItemFiles += pc.ItemFiles
				}
				t.WARCFiles += pc.WARCFiles
				t.WARCRecords += pc.WARCRecords
				t.Articles += pc.Articles
				t.ArticleFiles += pc.ArticleFiles
			}
		}
	}
}

// domainCounts sets t's domain total and counts by authority, of country
// or of every country when empty. Grouping by country too, even for the
// whole store, is what lets the GROUP BY stream through the (country,
// authority) index instead of sorting every domain.
func (s *MetadataService) domainCounts(ctx context.Context, tx *sql.Tx, country string, t *seedengine.MetadataTotals) error {
	query := `SELECT authority, COUNT(*) FROM domains GROUP BY country, authority`
	var args []any
	if country != "" {
		query = `SELECT authority, COUNT(*) FROM domains WHERE country = $1 GROUP BY country, authority`
		args = append(args, country)
	}
	if err := countInto(ctx, tx, t.DomainsByAuthority, query, args...); err != nil {
		return fmt.Errorf("domains by authority: %w", err)
	}
	for _, n := range t.DomainsByAuthority {
		t.Domains += n
	}
	return nil
}

// countInto adds to m the (key, count) rows of query, leaving out counts
// of zero (seed_counts keeps rows whose seeds all moved on).
func countInto(ctx context.Context, q queryer, m map[string]int, query string, args ...any) error {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return err
	}
	defer func() { _ = rows.Close() }()
	for rows.Next() {
		var (
			k string
			n int
		)
		if err := rows.Scan(&k, &n); err != nil {
			return err
		}
		if n != 0 {
			m[k] += n
		}
	}
	return rows.Err()
}

// lastSync returns the newest finished task that reached the remote, or
// nil. It asks once per status rather than with status IN (…): each is a
// backward seek on (status, finished_at), which SQLite picks without
// statistics, where for the IN it would sort every task of both statuses.
func lastSync(ctx context.Context, tx *sql.Tx) (*seedengine.MetadataSync, error) {
	var last *seedengine.MetadataSync
	for _, st := range []seedengine.MetadataTaskStatus{seedengine.TaskSucceeded, seedengine.TaskSkippedUnchanged} {
		var (
			at             scanTime
			commit, remote string
		)
		err := tx.QueryRowContext(ctx, `SELECT finished_at, commit_id, remote FROM metadata_tasks
			WHERE status = $1 AND commit_id <> '' ORDER BY finished_at DESC LIMIT 1`, string(st)).Scan(&at, &commit, &remote)
		if errors.Is(err, sql.ErrNoRows) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("last sync: %w", err)
		}
		if last == nil || at.Time.After(last.At) {
			last = &seedengine.MetadataSync{At: at.Time, Commit: commit, Remote: remote}
		}
	}
	return last, nil
}

// RequestMetadataTaskTx returns, in tx, the queued task with one more
// request counted, or, when none is queued, creates a task (UUIDv7 id,
// status queued, one request) and reports it created: the caller queues
// its sync job in tx. A request that joins a queued task leaves that
// task's trigger (and job) as they are. EINVALID for an unknown trigger.
func (s *MetadataService) RequestMetadataTaskTx(ctx context.Context, tx *sql.Tx, trigger seedengine.MetadataTrigger) (*seedengine.MetadataTask, bool, error) {
	if !trigger.Valid() {
		return nil, false, seedengine.FieldErrorf("trigger", "trigger must be one of api, queue, schedule, batch_completed")
	}
	id, err := uuid.NewV7()
	if err != nil {
		return nil, false, fmt.Errorf("request metadata task: %w", err)
	}
	t, err := scanMetadataTask(tx.QueryRowContext(ctx, `INSERT INTO metadata_tasks (id, trigger, status, requests, created_at)
		VALUES ($1, $2, 'queued', 1, $3)
		ON CONFLICT (status) WHERE status = 'queued' DO UPDATE SET requests = metadata_tasks.requests + 1
		RETURNING `+metadataTaskColumns, id.String(), string(trigger), s.db.timeArg(nowUTC())))
	if err != nil {
		return nil, false, fmt.Errorf("request metadata task: %w", err)
	}
	return t, t.ID == id.String(), nil
}

// StartMetadataTask moves a queued task to running, setting started_at.
// ENOTFOUND when there is no such task; ECONFLICT when it is not queued
// (the message names its status) or another task is running.
func (s *MetadataService) StartMetadataTask(ctx context.Context, id string) (*seedengine.MetadataTask, error) {
	var t *seedengine.MetadataTask
	err := s.db.inTx(ctx, func(tx *sql.Tx) error {
		var err error
		if t, err = s.lockMetadataTask(ctx, tx, id); err != nil {
			return err
		}
		if t.Status != seedengine.TaskQueued {
			return seedengine.Errorf(seedengine.ECONFLICT, "metadata task %q is %s, not queued", seedengine.Truncate(id, 100), t.Status)
		}
		var running string
		err = tx.QueryRowContext(ctx, `SELECT id FROM metadata_tasks WHERE status = 'running' LIMIT 1`).Scan(&running)
		if err == nil {
			return seedengine.Errorf(seedengine.ECONFLICT, "metadata task %q is running; one sync runs at a time", running)
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		now := nowUTC()
		// The unique index on running tasks settles a start that raced
		// past the check above (PostgreSQL only).
		if _, err := tx.ExecContext(ctx, `UPDATE metadata_tasks SET status = 'running', started_at = $2 WHERE id = $1`,
			id, s.db.timeArg(now)); err != nil {
			if isUniqueViolation(err) {
				return seedengine.Errorf(seedengine.ECONFLICT, "another metadata task is running; one sync runs at a time")
			}
			return err
		}
		t.Status, t.StartedAt = seedengine.TaskRunning, &now
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("start metadata task %q: %w", seedengine.Truncate(id, 100), err)
	}
	return t, nil
}

// FinishMetadataTask records a running task's outcome: a final status,
// finished_at, the commit and remote, and errMsg cut to 2,000 bytes.
// EINVALID for a status that is not final or a commit or remote that is
// too long; ENOTFOUND when there is no such task; ECONFLICT when it is not
// running (the message names its status).
func (s *MetadataService) FinishMetadataTask(ctx context.Context, id string, status seedengine.MetadataTaskStatus, commit, remote, errMsg string) (*seedengine.MetadataTask, error) {
	switch {
	case !status.Finished():
		return nil, seedengine.FieldErrorf("status", "status must be one of succeeded, failed, skipped_unchanged")
	case len(commit) > maxMetadataCommitLen:
		return nil, seedengine.FieldErrorf("commit", "commit is longer than %d bytes", maxMetadataCommitLen)
	case len(remote) > maxMetadataRemoteLen:
		return nil, seedengine.FieldErrorf("remote", "remote is longer than %d bytes", maxMetadataRemoteLen)
	}
	errMsg = seedengine.Truncate(errMsg, maxMetadataTaskError)
	var t *seedengine.MetadataTask
	err := s.db.inTx(ctx, func(tx *sql.Tx) error {
		var err error
		if t, err = s.lockMetadataTask(ctx, tx, id); err != nil {
			return err
		}
		if t.Status != seedengine.TaskRunning {
			return seedengine.Errorf(seedengine.ECONFLICT, "metadata task %q is %s, not running", seedengine.Truncate(id, 100), t.Status)
		}
		now := nowUTC()
		if _, err := tx.ExecContext(ctx, `UPDATE metadata_tasks
			SET status = $2, finished_at = $3, commit_id = $4, remote = $5, error = $6 WHERE id = $1`,
			id, string(status), s.db.timeArg(now), commit, remote, errMsg); err != nil {
			return err
		}
		t.Status, t.FinishedAt, t.Commit, t.Remote, t.Error = status, &now, commit, remote, errMsg
		t.DurationMS = taskDuration(t.StartedAt, t.FinishedAt)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("finish metadata task %q: %w", seedengine.Truncate(id, 100), err)
	}
	return t, nil
}

// lockMetadataTask reads a task for a write in tx. ENOTFOUND when there is
// none.
func (s *MetadataService) lockMetadataTask(ctx context.Context, tx *sql.Tx, id string) (*seedengine.MetadataTask, error) {
	t, err := scanMetadataTask(tx.QueryRowContext(ctx, `SELECT `+metadataTaskColumns+metadataTaskFromWhere+s.db.forUpdate(), id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, errMetadataTaskNotFound()
	}
	return t, err
}

func errMetadataTaskNotFound() error {
	return seedengine.Errorf(seedengine.ENOTFOUND, "metadata task not found")
}

// FindMetadataTaskByID returns a task. ENOTFOUND when there is none.
func (s *MetadataService) FindMetadataTaskByID(ctx context.Context, id string) (*seedengine.MetadataTask, error) {
	t, err := scanMetadataTask(s.db.reader.QueryRowContext(ctx, `SELECT `+metadataTaskColumns+metadataTaskFromWhere, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, errMetadataTaskNotFound()
	}
	if err != nil {
		return nil, fmt.Errorf("find metadata task %q: %w", seedengine.Truncate(id, 100), err)
	}
	return t, nil
}

// FindMetadataTasks returns tasks matching f, newest first (UUIDv7 ids
// sort by creation time), and the total number matching f. Limit defaults
// to 50 and is capped at 1,000. EINVALID for an unknown status filter.
func (s *MetadataService) FindMetadataTasks(ctx context.Context, f seedengine.MetadataTaskFilter) ([]*seedengine.MetadataTask, int, error) {
	var (
		cond string
		args []any
	)
	if f.Status != "" {
		if !f.Status.Valid() {
			return nil, 0, seedengine.FieldErrorf("status", "status must be one of queued, running, succeeded, failed, skipped_unchanged")
		}
		cond, args = ` WHERE status = $1`, []any{string(f.Status)}
	}
	limit, offset := pageBounds(f.Limit, f.Offset, defaultMetadataTaskLimit, maxMetadataTaskLimit)
	// The window count saves a second round trip on the common pages; past
	// the last row it has nothing to ride on, hence the fallback below.
	query := `SELECT ` + metadataTaskColumns + `, COUNT(*) OVER () FROM metadata_tasks` + cond +
		` ORDER BY id DESC LIMIT $` + strconv.Itoa(len(args)+1) + ` OFFSET $` + strconv.Itoa(len(args)+2)
	rows, err := s.db.reader.QueryContext(ctx, query, append(args, limit, offset)...)
	if err != nil {
		return nil, 0, fmt.Errorf("find metadata tasks: %w", err)
	}
	defer func() { _ = rows.Close() }()
	tasks := []*seedengine.MetadataTask{}
	total := 0
	for rows.Next() {
		t, err := scanMetadataTask(rows, &total)
		if err != nil {
			return nil, 0, fmt.Errorf("find metadata tasks: %w", err)
		}
		tasks = append(tasks, t)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, fmt.Errorf("find metadata tasks: %w", err)
	}
	if len(tasks) == 0 && offset > 0 {
		if err := s.db.reader.QueryRowContext(ctx, `SELECT COUNT(*) FROM metadata_tasks`+cond, args...).Scan(&total); err != nil {
			return nil, 0, fmt.Errorf("find metadata tasks: count: %w", err)
		}
	}
	return tasks, total, nil
}

func scanMetadataTask(row rowScanner, extra ...any) (*seedengine.MetadataTask, error) {
	var (
		t                          seedengine.MetadataTask
		trigger, status            string
		created, started, finished scanTime
	)
	dest := []any{&t.ID, &trigger, &status, &t.Requests, &created, &started, &finished, &t.Commit, &t.Remote, &t.Error}
	if err := row.Scan(append(dest, extra...)...); err != nil {
		return nil, err
	}
	t.Trigger = seedengine.MetadataTrigger(trigger)
	t.Status = seedengine.MetadataTaskStatus(status)
	t.CreatedAt = created.Time
	t.StartedAt = started.ptr()
	t.FinishedAt = finished.ptr()
	t.DurationMS = taskDuration(t.StartedAt, t.FinishedAt)
	return &t, nil
}

// taskDuration is finished − started in milliseconds, nil until both are
// set, and never negative (the clocks of two processes may disagree).
func taskDuration(started, finished *time.Time) *int64 {
	if started == nil || finished == nil {
		return nil
	}
	ms := max(finished.Sub(*started).Milliseconds(), 0)
	return &ms
}
