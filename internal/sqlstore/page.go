package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/seedengine/seedengine"
)

// Pages (internal/pages): the items of a seed whose contract says
// harvest.pages get a pages row in the transaction that records them
// (queuePages, inside RecordSeedCheck); a page fetch writes the page to a
// WARC file of its process's spool and marks the row fetched with its
// record's place; storing the file marks its rows stored, in one
// transaction with the file's warc_files row, the payload digests its
// responses bring and what OnStored adds (their article extractions).

// PageService stores pages and WARC files.
type PageService struct {
	db *DB
	// storedTx runs in the transaction that stores pages, with their
	// item IDs (OnStored).
	storedTx func(ctx context.Context, tx *sql.Tx, itemIDs []int64) error
}

// OnStored makes fn run in each transaction that marks pages stored, with
// their item IDs (the queue's QueueArticleExtractsTx: every stored page
// gets its article, or none is stored). Call it before pages are stored.
func (s *PageService) OnStored(fn func(ctx context.Context, tx *sql.Tx, itemIDs []int64) error) {
	s.storedTx = fn
}

var _ seedengine.PageService = (*PageService)(nil)

// NewPageService returns a PageService on db.
func NewPageService(db *DB) *PageService { return &PageService{db: db} }

// queuePages adds a queued page for each item of a seed that fetches its
// pages (its harvest settings, raw), and returns their item IDs; none
// when the seed does not.
func (s *SeedService) queuePages(ctx context.Context, tx *sql.Tx, raw []byte, items []seedengine.Item, now time.Time) ([]int64, error) {
	if len(items) == 0 {
		return nil, nil
	}
	var h seedengine.SeedHarvest
	if err := json.Unmarshal(raw, &h); err != nil {
		return nil, fmt.Errorf("queue pages: %w", err)
	}
	if !h.Pages {
		return nil, nil
	}
	ids := make([]int64, 0, len(items))
	for start := 0; start < len(items); start += maxRowsPerStatement {
		part := items[start:min(start+maxRowsPerStatement, len(items))]
		var b strings.Builder
		b.WriteString(`INSERT INTO pages (item_id, seed_id, url, country, category, day, state, queued_at) VALUES `)
		s.db.valueRows(&b, len(part), 8, 0)
		args := make([]any, 0, 8*len(part))
		for i := range part {
			it := &part[i]
			p := it.Partition()
			args = append(args, it.ID, it.SeedID, it.URL, p.Country, p.Category, p.Date, string(seedengine.PageQueued), s.db.timeArg(now))
			ids = append(ids, it.ID)
		}
		if _, err := tx.ExecContext(ctx, b.String(), args...); err != nil {
			return nil, fmt.Errorf("queue pages: %w", err)
		}
	}
	return ids, nil
}

const pageColumns = `item_id, seed_id, url, country, category, day, state, status, reason, mime, spool, warc_file,
	record_offset, record_length, payload_digest, revisit, fetched_at, queued_at, final_url, hops_json`

func scanPage(row rowScanner) (*seedengine.Page, error) {
	var (
		p              seedengine.Page
		state          string
		revisit        any
		fetched        scanTime
		queued         scanTime
		warcFile       string
		offset, length int64
		hops           string
	)
	if err := row.Scan(&p.ItemID, &p.SeedID, &p.URL, &p.Partition.Country, &p.Partition.Category, &p.Partition.Date, &state,
		&p.Status, &p.Reason, &p.MIME, &p.Spool, &warcFile, &offset, &length, &p.PayloadDigest, &revisit, &fetched, &queued,
		&p.FinalURL, &hops); err != nil {
		return nil, err
	}
	if hops != "" {
		if err := json.Unmarshal([]byte(hops), &p.Hops); err != nil {
			return nil, fmt.Errorf("page %d hops: %w", p.ItemID, err)
		}
	}
	p.State = seedengine.PageState(state)
	p.Revisit = truthy(revisit)
	p.FetchedAt, p.QueuedAt = fetched.ptr(), queued.Time
	p.SpoolOffset, p.SpoolLength = offset, length
	if p.State == seedengine.PageStored {
		// Where the record is, only once its file is in the store.
		p.WARCFile, p.Offset, p.Length = warcFile, offset, length
	} else {
		for i := range p.Hops {
			p.Hops[i].Offset, p.Hops[i].Length = 0, 0
		}
	}
	return &p, nil
}

// truthy reads a boolean column of either engine.
func truthy(v any) bool {
	switch b := v.(type) {
	case bool:
		return b
	case int64:
		return b != 0
	}
	return false
}

// FindPage returns an item's page. ENOTFOUND when it has none.
func (s *PageService) FindPage(ctx context.Context, itemID int64) (*seedengine.Page, error) {
	p, err := scanPage(s.db.reader.QueryRowContext(ctx, `SELECT `+pageColumns+` FROM pages WHERE item_id = $1`, itemID))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, seedengine.Errorf(seedengine.ENOTFOUND, "item %d has no page (its seed does not fetch pages, or no such item)", itemID)
	}
	if err != nil {
		return nil, fmt.Errorf("find page %d: %w", itemID, err)
	}
	return p, nil
}

// FindPageDigest returns the stored capture of a payload digest; ok is
// false when none is stored.
func (s *PageService) FindPageDigest(ctx context.Context, digest string) (d seedengine.PageDigest, ok bool, err error) {
	var at scanTime
	err = s.db.reader.QueryRowContext(ctx, `SELECT target_uri, warc_date, record_id FROM page_digests WHERE payload_digest = $1`, digest).
		Scan(&d.TargetURI, &at, &d.RecordID)
	if errors.Is(err, sql.ErrNoRows) {
		return seedengine.PageDigest{}, false, nil
	}
	if err != nil {
		return seedengine.PageDigest{}, false, fmt.Errorf("find page digest: %w", err)
	}
	d.PayloadDigest, d.Date = digest, at.Time
	return d, true, nil
}

// MarkPageFetched records that a queued page was written to p.Spool at
// p.SpoolOffset, p.SpoolLength (state fetched). It reports false, changing nothing,
// when the page is no longer queued (a job run twice).
func (s *PageService) MarkPageFetched(ctx context.Context, p *seedengine.Page) (bool, error) {
	var hops []byte
	if len(p.Hops) > 0 {
		var err error
		if hops, err = json.Marshal(p.Hops); err != nil {
			return false, fmt.Errorf("mark page %d fetched: %w", p.ItemID, err)
		}
	}
	res, err := s.db.execJob(ctx, `UPDATE pages SET state = $2, status = $3, mime = $4, spool = $5, record_offset = $6,
		record_length = $7, payload_digest = $8, revisit = $9, fetched_at = $10, reason = '', final_url = $11, hops_json = $12
		WHERE item_id = $1 AND state = 'queued'`,
		p.ItemID, string(seedengine.PageFetched), p.Status, p.MIME, p.Spool, p.SpoolOffset, p.SpoolLength, p.PayloadDigest, s.boolArg(p.Revisit),
		s.db.timePtrArg(p.FetchedAt), p.FinalURL, string(hops))
	if err != nil {
		return false, fmt.Errorf("mark page %d fetched: %w", p.ItemID, err)
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// MarkPageDone records that a queued page was skipped or failed for good.
func (s *PageService) MarkPageDone(ctx context.Context, itemID int64, state seedengine.PageState, status int, reason string, at time.Time) error {
	if state != seedengine.PageSkipped && state != seedengine.PageFailed {
		return fmt.Errorf("mark page %d: %s is not an end without a file", itemID, state)
	}
	_, err := s.db.execJob(ctx, `UPDATE pages SET state = $2, status = $3, reason = $4, fetched_at = $5
		WHERE item_id = $1 AND state = 'queued'`, itemID, string(state), status, seedengine.Truncate(reason, 200), s.db.timeArg(at))
	if err != nil {
		return fmt.Errorf("mark page %d %s: %w", itemID, state, err)
	}
	return nil
}

func (s *PageService) boolArg(b bool) any {
	if s.db.engine == EnginePostgres {
		return b
	}
	if b {
		return 1
	}
	return 0
}

// SpoolExtent returns how many fetched pages a spool file holds and the
// end of its last record (offset + length): a file cut short by a crash is
// good up to there.
func (s *PageService) SpoolExtent(ctx context.Context, spool string) (pages int, end int64, err error) {
	err = s.db.reader.QueryRowContext(ctx, `SELECT COUNT(*), COALESCE(MAX(record_offset + record_length), 0)
		FROM pages WHERE spool = $1 AND state = 'fetched'`, spool).Scan(&pages, &end)
	if err != nil {
		return 0, 0, fmt.Errorf("spool extent: %w", err)
	}
	return pages, end, nil
}

// StoreWARCFile records a spool file stored as f: its row, its pages
// stored (their records now point into f), and the payload digests its
// responses bring (a digest stored before keeps its first capture), in
// one transaction. It returns how many pages it marked.
func (s *PageService) StoreWARCFile(ctx context.Context, f seedengine.WARCFile, spool string, digests []seedengine.PageDigest) (int, error) {
	var n int64
	err := s.db.inTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `INSERT INTO warc_files (object_key, name, country, category, day, records, revisits, bytes, stored_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT (object_key) DO NOTHING`,
			f.Key, f.Name, f.Country, f.Category, f.Date, f.Records, f.Revisits, f.Bytes, s.db.timeArg(f.StoredAt)); err != nil {
			return err
		}
		ids, err := queryIDs(ctx, tx, `UPDATE pages SET state = 'stored', warc_file = $2, spool = ''
			WHERE spool = $1 AND state = 'fetched' RETURNING item_id`, spool, f.Key)
		if err != nil {
			return err
		}
		n = int64(len(ids))
		if s.storedTx != nil {
			if err := s.storedTx(ctx, tx, ids); err != nil {
				return err
			}
		}
		for _, d := range digests {
			if _, err := tx.ExecContext(ctx, `INSERT INTO page_digests (payload_digest, target_uri, warc_date, record_id)
				VALUES ($1, $2, $3, $4) ON CONFLICT (payload_digest) DO NOTHING`,
				d.PayloadDigest, d.TargetURI, s.db.timeArg(d.Date), d.RecordID); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("store warc file %s: %w", f.Key, err)
	}
	return int(n), nil
}

// RequeuePages puts fetched pages that will never be stored back in
// the queue: those of spool when it is set (a spool file a crash cut
// short), else at most limit of those fetched before before (their
// process's spool is gone with its machine: a live process stores its
// files within their age). inTx runs in the same transaction with their
// item IDs, so their fetch jobs are queued with them or not at all. It
// returns the IDs.
func (s *PageService) RequeuePages(ctx context.Context, spool string, before time.Time, limit int,
	inTx func(context.Context, *sql.Tx, []int64) error) ([]int64, error) {
	cond, args := "spool = $2", []any{s.boolArg(false), spool}
	if spool == "" {
		if limit <= 0 {
			limit = 1000
		}
		cond = "item_id IN (SELECT item_id FROM pages WHERE state = 'fetched' AND fetched_at < $2 ORDER BY item_id LIMIT " + strconv.Itoa(limit) + ")"
		args[1] = s.db.timeArg(before)
	}
	var ids []int64
	err := s.db.inTx(ctx, func(tx *sql.Tx) error {
		var err error
		ids, err = queryIDs(ctx, tx, `UPDATE pages SET state = 'queued', spool = '', record_offset = 0, record_length = 0,
			payload_digest = '', revisit = $1, fetched_at = NULL, final_url = '', hops_json = '' WHERE state = 'fetched' AND `+cond+` RETURNING item_id`, args...)
		if err != nil {
			return err
		}
		if len(ids) == 0 || inTx == nil {
			return nil
		}
		return inTx(ctx, tx, ids)
	})
	if err != nil {
		return nil, fmt.Errorf("requeue pages: %w", err)
	}
	return ids, nil
}

// FindOriginal returns the stored page whose response record holds a
// payload digest. ENOTFOUND when none.
func (s *PageService) FindOriginal(ctx context.Context, digest string) (*seedengine.Page, error) {
	p, err := scanPage(s.db.reader.QueryRowContext(ctx, `SELECT `+pageColumns+` FROM pages
		WHERE payload_digest = $1 AND state = 'stored' AND revisit = $2 ORDER BY item_id LIMIT 1`, digest, s.boolArg(false)))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, seedengine.Errorf(seedengine.ENOTFOUND, "no stored page has this payload")
	}
	if err != nil {
		return nil, fmt.Errorf("find original: %w", err)
	}
	return p, nil
}

// FindWARCFiles returns a partition's stored WARC files, oldest first.
func (s *PageService) FindWARCFiles(ctx context.Context, p seedengine.Partition) ([]seedengine.WARCFile, error) {
	rows, err := s.db.reader.QueryContext(ctx, `SELECT object_key, name, records, revisits, bytes, stored_at FROM warc_files
		WHERE country = $1 AND category = $2 AND day = $3 ORDER BY stored_at, object_key`, p.Country, p.Category, p.Date)
	if err != nil {
		return nil, fmt.Errorf("find warc files: %w", err)
	}
	defer func() { _ = rows.Close() }()
	out := []seedengine.WARCFile{}
	for rows.Next() {
		f := seedengine.WARCFile{Partition: p}
		var at scanTime
		if err := rows.Scan(&f.Key, &f.Name, &f.Records, &f.Revisits, &f.Bytes, &at); err != nil {
			return nil, fmt.Errorf("find warc files: %w", err)
		}
		f.StoredAt = at.Time
		f.IndexKey = strings.TrimSuffix(f.Key, ".warc.gz") + ".cdxj"
		out = append(out, f)
	}
	return out, rows.Err()
}

// PageStats counts pages by state and the stored files.
func (s *PageService) PageStats(ctx context.Context) (seedengine.PageStats, error) {
	st := seedengine.PageStats{ByState: map[seedengine.PageState]int{}}
	rows, err := s.db.reader.QueryContext(ctx, `SELECT state, COUNT(*) FROM pages GROUP BY state`)
	if err != nil {
		return st, fmt.Errorf("page stats: %w", err)
	}
	defer func() { _ = rows.Close() }()
	for rows.Next() {
		var state string
		var n int
		if err := rows.Scan(&state, &n); err != nil {
			return st, fmt.Errorf("page stats: %w", err)
		}
		st.ByState[seedengine.PageState(state)] = n
	}
	if err := rows.Err(); err != nil {
		return st, fmt.Errorf("page stats: %w", err)
	}
	if err := s.db.reader.QueryRowContext(ctx, `SELECT COUNT(*), COALESCE(SUM(bytes), 0) FROM warc_files`).Scan(&st.Files, &st.Bytes); err != nil {
		return st, fmt.Errorf("page stats: %w", err)
	}
	return st, nil
}
