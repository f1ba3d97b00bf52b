package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/seedengine/seedengine"
)

// Seed checks (internal/seedcheck): each check of a seed's entry is a row
// of seed_checks, and seed_health holds the health derived from them with
// the time the seed is next due.

// MaxSeedChecksPage is the largest page FindSeedChecks returns.
const MaxSeedChecksPage = 500

// RecordSeedCheck stores a check of a seed with the items its read
// harvested, the health derived from it and the time of the seed's next
// check, in one transaction, and returns the health recorded before
// (State HealthUnknown when none) and the one recorded. c.ID is set.
//
// items are the entry's items, each with its seed, partition and
// FirstSeenAt set: the ones no read listed before within the dedupe
// window are stored (their IDs set in commit order) and counted in
// c.Harvested, the others are marked seen again; c.Unseen counts those the
// seed's previous read did not list. Recovered items (Item.Recovered,
// read back from the seed's archive) are recorded likewise but are no
// part of the entry's window; they and the entry's new items add their
// arrival times to the seed's history. With baseline, all are
// marked seen and none stored (a plain sitemap's first read: its archive
// is not news). decide then derives the health and the next check's
// time from c and the seed's arrival history (it may set c's pace
// fields) inside the transaction. inTx, when not nil, runs last in the
// transaction with the change of health the check recorded (From equal to
// To when none): the check job queues the change's alert and drift run
// and completes itself there (internal/jobs), so a check, its items, what
// it calls for and its job's completion commit together or not at all:
// a job run twice records its items once. ENOTFOUND when the seed does
// not exist.
func (s *SeedService) RecordSeedCheck(ctx context.Context, c *seedengine.SeedCheck, items []seedengine.Item, baseline bool,
	decide func(*seedengine.SeedCheck, seedengine.ArrivalHistory) (seedengine.SeedHealth, time.Time),
	inTx func(context.Context, *sql.Tx, seedengine.SeedHealthChange) error) (prev, h seedengine.SeedHealth, err error) {
	if c.SeedID == "" || c.CheckedAt.IsZero() || c.Outcome == "" || decide == nil {
		return prev, h, seedengine.Errorf(seedengine.EINVALID, "a seed check needs a seed, a time, an outcome and a decision")
	}
	prev = seedengine.SeedHealth{State: seedengine.HealthUnknown}
	// The items' keys and JSON are made before the transaction: on
	// SQLite its one writer is what every read waits for.
	read, err := prepareItems(items)
	if err != nil {
		return prev, h, fmt.Errorf("record seed check: %w", err)
	}
	// On SQLite the transaction may be shared with other checks' and
	// jobs' (one fsync for all): everything below uses ctx and tx only.
	// On PostgreSQL the items lock, taken to insert the items, is held to
	// the commit, and every read that records items waits for it: all
	// that does not need the items' ids is written before.
	err = s.db.inJobTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		var harvest []byte
		if err := tx.QueryRowContext(ctx, `SELECT harvest_json FROM seeds WHERE seed_id = $1`, c.SeedID).Scan(&harvest); err != nil {
			if errors.Is(err, sql.ErrNoRows) {
				return seedNotFound()
			}
			return err
		}
		if p, _, err := scanSeedHealth(tx.QueryRowContext(ctx, `SELECT `+seedHealthColumns+` FROM seed_health WHERE seed_id = $1`+s.db.forUpdate(), c.SeedID)); err == nil {
			prev = p
		} else if !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		fresh, err := s.newItems(ctx, tx, read, c.CheckedAt)
		if err != nil {
			return err
		}
		if baseline {
			fresh = nil
		}
		c.Harvested = len(fresh)
		c.Repaired = 0
		for _, i := range fresh {
			if items[i].Recovered {
				c.Repaired++
			}
		}
		var hist seedengine.ArrivalHistory
		if len(items) > 0 {
			unseen, hh, ok, err := s.readWindow(ctx, tx, c.SeedID, c.CheckedAt, read, c.EstimatedMissed)
			if err != nil {
				return err
			}
			if !ok {
				unseen = c.Harvested
			}
			c.Unseen, hist = unseen, hh
		} else {
			// Nothing read (a 304, a failure): the history as it stands.
			w, err := s.loadWindow(ctx, tx, c.SeedID)
			if err != nil {
				return err
			}
			hist = w.hist
		}
		var next time.Time
		h, next = decide(c, hist)
		if c.IntervalSeconds > 0 {
			listed := len(items)
			if baseline {
				listed = 0 // seen, not recorded: no repeat
			}
			if err := s.countRead(ctx, tx, c.SeedID, c.Harvested, listed, c.PossibleGap); err != nil {
				return err
			}
		}
		body, err := json.Marshal(c)
		if err != nil {
			return err
		}
		if err := tx.QueryRowContext(ctx, `INSERT INTO seed_checks (seed_id, checked_at, outcome, check_json)
			VALUES ($1, $2, $3, $4) RETURNING id`,
			c.SeedID, s.db.timeArg(c.CheckedAt), string(c.Outcome), string(body)).Scan(&c.ID); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO seed_health (seed_id, state, since, reason, last_check_at,
				success_rate_7d, median_items_per_day, next_check_at, updated_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
			ON CONFLICT (seed_id) DO UPDATE SET state = excluded.state, since = excluded.since,
				reason = excluded.reason, last_check_at = excluded.last_check_at,
				success_rate_7d = excluded.success_rate_7d, median_items_per_day = excluded.median_items_per_day,
				next_check_at = excluded.next_check_at, updated_at = excluded.updated_at`,
			c.SeedID, string(h.State), s.timePtrArg(h.Since), h.Reason, s.timePtrArg(h.LastCheckAt),
			h.SuccessRate7d, h.MedianItemsPerDay, s.db.timeArg(next), s.db.timeArg(nowUTC()))
		if err != nil {
			return err
		}
		stored, err := s.insertItems(ctx, tx, read, fresh, c.ID)
		if err != nil {
			return err
		}
		pages, err := s.queuePages(ctx, tx, harvest, stored, c.CheckedAt)
		if err != nil || inTx == nil {
			return err
		}
		return inTx(ctx, tx, seedengine.SeedHealthChange{SeedID: c.SeedID, From: prev.State, To: h.State,
			Reason: h.Reason, At: c.CheckedAt, CheckID: c.ID, MovedTo: c.MovedTo, Pages: pages})
	})
	if err != nil {
		return seedengine.SeedHealth{}, seedengine.SeedHealth{}, fmt.Errorf("record seed check: %w", err)
	}
	return prev, h, nil
}

func (s *SeedService) timePtrArg(t *time.Time) any {
	if t == nil || t.IsZero() {
		return nil
	}
	return s.db.timeArg(*t)
}

const seedHealthColumns = `state, since, reason, last_check_at, success_rate_7d, median_items_per_day, next_check_at`

// scanSeedHealth reads a seed_health row: the health and its next check
// time, after the columns lead scans into (selected before them).
func scanSeedHealth(row rowScanner, lead ...any) (seedengine.SeedHealth, time.Time, error) {
	var h seedengine.SeedHealth
	var state string
	var since, last, next scanTime
	if err := row.Scan(append(lead, &state, &since, &h.Reason, &last, &h.SuccessRate7d, &h.MedianItemsPerDay, &next)...); err != nil {
		return seedengine.SeedHealth{}, time.Time{}, err
	}
	h.State, h.Since, h.LastCheckAt = seedengine.SeedHealthState(state), since.ptr(), last.ptr()
	return h, next.Time, nil
}

// FindSeedHealth returns a seed's health and when it is next due; State
// HealthUnknown and a zero time when it was never checked.
func (s *SeedService) FindSeedHealth(ctx context.Context, seedID string) (seedengine.SeedHealth, time.Time, error) {
	return findSeedHealth(ctx, s.db.reader, seedID)
}

func findSeedHealth(ctx context.Context, q queryer, seedID string) (seedengine.SeedHealth, time.Time, error) {
	h, next, err := scanSeedHealth(q.QueryRowContext(ctx, `SELECT `+seedHealthColumns+` FROM seed_health WHERE seed_id = $1`, seedID))
	if errors.Is(err, sql.ErrNoRows) {
		return seedengine.SeedHealth{State: seedengine.HealthUnknown}, time.Time{}, nil
	}
	if err != nil {
		return seedengine.SeedHealth{}, time.Time{}, fmt.Errorf("find seed health: %w", err)
	}
	return h, next, nil
}

// FindSeedChecks returns a seed's checks newest first: at most limit
// (1 to MaxSeedChecksPage), with an ID below before when before > 0, and
// none older than since when since is not zero.
func (s *SeedService) FindSeedChecks(ctx context.Context, seedID string, before int64, since time.Time, limit int) ([]seedengine.SeedCheck, error) {
	return s.findSeedChecks(ctx, s.db.reader, seedID, before, since, limit)
}

// FindSeedChecksWithHealth is FindSeedChecks (with no since) and
// FindSeedHealth as of one moment: a check and the health it made are
// seen together or not at all.
func (s *SeedService) FindSeedChecksWithHealth(ctx context.Context, seedID string, before int64, limit int) ([]seedengine.SeedCheck, seedengine.SeedHealth, time.Time, error) {
	var checks []seedengine.SeedCheck
	var h seedengine.SeedHealth
	var next time.Time
	err := s.db.readTx(ctx, func(tx *sql.Tx) error {
		var err error
		if checks, err = s.findSeedChecks(ctx, tx, seedID, before, time.Time{}, limit); err != nil {
			return err
		}
		h, next, err = findSeedHealth(ctx, tx, seedID)
		return err
	})
	if err != nil {
		return nil, seedengine.SeedHealth{}, time.Time{}, err
	}
	return checks, h, next, nil
}

func (s *SeedService) findSeedChecks(ctx context.Context, db queryer, seedID string, before int64, since time.Time, limit int) ([]seedengine.SeedCheck, error) {
	// One more than a page: a caller asks for it to tell whether a next
	// page follows.
	if limit <= 0 || limit > MaxSeedChecksPage+1 {
		return nil, seedengine.FieldErrorf("limit", "limit must be between 1 and %d", MaxSeedChecksPage)
	}
	if before <= 0 {
		before = 1<<63 - 1
	}
	args := []any{seedID, before}
	q := `SELECT id, check_json FROM seed_checks WHERE seed_id = $1 AND id < $2`
	if !since.IsZero() {
		q += ` AND checked_at >= $3`
		args = append(args, s.db.timeArg(since))
	}
	q += fmt.Sprintf(` ORDER BY id DESC LIMIT %d`, limit)
	rows, err := db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("find seed checks: %w", err)
	}
	defer rows.Close()
	out := []seedengine.SeedCheck{}
	for rows.Next() {
		var id int64
		var body []byte
		if err := rows.Scan(&id, &body); err != nil {
			return nil, fmt.Errorf("find seed checks: %w", err)
		}
		var c seedengine.SeedCheck
		if err := json.Unmarshal(body, &c); err != nil {
			return nil, fmt.Errorf("find seed checks: check %d: %w", id, err)
		}
		c.ID = id
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("find seed checks: %w", err)
	}
	return out, nil
}

// DueSeedChecks returns up to limit seeds of the given statuses whose
// next check is due at now, never checked ones first, then the most
// overdue.
func (s *SeedService) DueSeedChecks(ctx context.Context, now time.Time, statuses []seedengine.SeedStatus, limit int) ([]string, error) {
	if len(statuses) == 0 || limit <= 0 {
		return nil, nil
	}
	args := []any{s.db.timeArg(now)}
	in := ""
	for i, st := range statuses {
		if i > 0 {
			in += ", "
		}
		args = append(args, string(st))
		in += fmt.Sprintf("$%d", len(args))
	}
	rows, err := s.db.reader.QueryContext(ctx, `SELECT s.seed_id FROM seeds s
		LEFT JOIN seed_health h ON h.seed_id = s.seed_id
		WHERE s.status IN (`+in+`) AND (h.seed_id IS NULL OR h.next_check_at <= $1)
		ORDER BY h.next_check_at IS NOT NULL, h.next_check_at, s.seed_id
		LIMIT `+fmt.Sprint(limit), args...)
	if err != nil {
		return nil, fmt.Errorf("due seed checks: %w", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("due seed checks: %w", err)
		}
		out = append(out, id)
	}
	return out, rows.Err()
}

// DeleteSeedChecksBefore deletes the checks made before t (retention) and
// returns how many went.
func (s *SeedService) DeleteSeedChecksBefore(ctx context.Context, t time.Time) (int64, error) {
	res, err := s.db.writer.ExecContext(ctx, `DELETE FROM seed_checks WHERE checked_at < $1`, s.db.timeArg(t))
	if err != nil {
		return 0, fmt.Errorf("delete seed checks: %w", err)
	}
	return res.RowsAffected()
}

// CountSeedHealth counts the active and suspended seeds by health state;
// never checked ones are HealthUnknown.
func (s *SeedService) CountSeedHealth(ctx context.Context) (map[seedengine.SeedHealthState]int, error) {
	counts := map[string]int{}
	if err := countInto(ctx, s.db.reader, counts, seedHealthCountSQL(false)); err != nil {
		return nil, fmt.Errorf("count seed health: %w", err)
	}
	out := make(map[seedengine.SeedHealthState]int, len(counts))
	for state, n := range counts {
		out[seedengine.SeedHealthState(state)] = n
	}
	return out, nil
}

// fillHealth sets the Health of the seeds that have been checked, with
// one query.
func (s *SeedService) fillHealth(ctx context.Context, seeds []*seedengine.Seed) error {
	if len(seeds) == 0 {
		return nil
	}
	byID := make(map[string]*seedengine.Seed, len(seeds))
	args := make([]any, 0, len(seeds))
	marks := make([]string, 0, len(seeds))
	for _, sd := range seeds {
		byID[sd.SeedID] = sd
		args = append(args, sd.SeedID)
		marks = append(marks, fmt.Sprintf("$%d", len(args)))
	}
	rows, err := s.db.reader.QueryContext(ctx, `SELECT seed_id, `+seedHealthColumns+` FROM seed_health WHERE seed_id IN (`+strings.Join(marks, ", ")+`)`, args...)
	if err != nil {
		return fmt.Errorf("seed health: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		h, _, err := scanSeedHealth(rows, &id)
		if err != nil {
			return fmt.Errorf("seed health: %w", err)
		}
		if sd := byID[id]; sd != nil {
			sd.Health = &h
		}
	}
	return rows.Err()
}
