package jobs

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/seedengine/seedengine"
)

// Throughput reports, per job kind, the jobs finished in each minute of
// the last minutes (1 to 60; the last bucket is the minute under way) and
// the jobs waiting and running now, read from River's table: it counts the
// work of every process of the deployment. Kinds with nothing finished,
// waiting or running are left out.
func (q *Queue) Throughput(ctx context.Context, minutes int) ([]seedengine.KindThroughput, error) {
	if minutes < 1 || minutes > 60 {
		return nil, seedengine.Errorf(seedengine.EINVALID, "minutes must be from 1 to 60")
	}
	now := time.Now().UTC()
	start := now.Truncate(time.Minute).Add(-time.Duration(minutes-1) * time.Minute)

	// Both engines name a minute "YYYY-MM-DD HH:MM" in UTC: River keeps
	// SQLite's times as text in UTC, PostgreSQL's as timestamptz.
	minute, since := `to_char(finalized_at AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI')`, any(start)
	if q.engine == EngineSQLite {
		minute, since = `substr(finalized_at, 1, 16)`, start.Format(sqliteTime)
	}
	byKind := map[string]*seedengine.KindThroughput{}
	get := func(kind string) *seedengine.KindThroughput {
		t := byKind[kind]
		if t == nil {
			t = &seedengine.KindThroughput{Kind: kind, ByMinute: make([]int, minutes)}
			byKind[kind] = t
		}
		return t
	}
	rows, err := q.readDB().QueryContext(ctx, `SELECT kind, state, `+minute+`, count(*) FROM river_job
		WHERE state IN ('completed', 'discarded', 'cancelled') AND finalized_at >= $1
		GROUP BY kind, state, `+minute, since)
	if err != nil {
		return nil, fmt.Errorf("job throughput: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var kind, state, at string
		var n int
		if err := rows.Scan(&kind, &state, &at, &n); err != nil {
			return nil, fmt.Errorf("job throughput: %w", err)
		}
		t := get(kind)
		switch state {
		case "completed":
			t.Completed += n
			if m, err := time.Parse("2006-01-02 15:04", at); err == nil {
				if i := int(m.Sub(start) / time.Minute); i >= 0 && i < minutes {
					t.ByMinute[i] += n
				}
			}
		case "discarded":
			t.Discarded += n
		case "cancelled":
			t.Cancelled += n
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("job throughput: %w", err)
	}

	rows, err = q.readDB().QueryContext(ctx, `SELECT kind, state, count(*), min(scheduled_at) FROM river_job
		WHERE state IN ('available', 'running') GROUP BY kind, state`)
	if err != nil {
		return nil, fmt.Errorf("job throughput: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var kind, state string
		var n int
		var oldest any
		if err := rows.Scan(&kind, &state, &n, &oldest); err != nil {
			return nil, fmt.Errorf("job throughput: %w", err)
		}
		t := get(kind)
		if state == "running" {
			t.Running = n
			continue
		}
		t.Available = n
		if at, ok := riverTime(oldest); ok && at.Before(now) {
			t.OldestWaitingSeconds = now.Sub(at).Seconds()
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("job throughput: %w", err)
	}

	window := now.Sub(start).Seconds()
	out := make([]seedengine.KindThroughput, 0, len(byKind))
	for _, t := range byKind {
		t.PerSecond = float64(t.Completed) / window
		out = append(out, *t)
	}
	slices.SortFunc(out, func(a, b seedengine.KindThroughput) int { return cmp.Compare(a.Kind, b.Kind) })
	return out, nil
}

// sqliteTime is how River's SQLite driver writes times (UTC).
const sqliteTime = "2006-01-02 15:04:05.000"

// riverTime reads a time River stored: a time.Time from PostgreSQL, text
// from SQLite.
func riverTime(v any) (time.Time, bool) {
	switch v := v.(type) {
	case time.Time:
		return v, true
	case string:
		for _, layout := range []string{sqliteTime, "2006-01-02 15:04:05", time.RFC3339Nano} {
			if t, err := time.Parse(layout, v); err == nil {
				return t, true
			}
		}
	case []byte:
		return riverTime(string(v))
	}
	return time.Time{}, false
}
