package sqlstore_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine/internal/sqlstore"
	"github.com/seedengine/seedengine/internal/sqlstore/sqlstoretest"
)

// Thirty simulated days of a deployment that runs 10 liveness batches a
// day (20 chunks, 40 domains each), syncs metadata and signs in to the
// console, pruned each day with a week's retention: every table levels
// off at about a week's rows, each domain's latest liveness result stays
// (its verdict's source), the newest metadata task of each status stays,
// and nothing unfinished or younger than the week goes.
func TestRetentionLevelsOff(t *testing.T) {
	t.Parallel()
	sqlstoretest.Engines(t, func(t *testing.T, db *sqlstore.DB) {
		ctx := t.Context()
		w := db.Writer()
		ts := func(at time.Time) any {
			if db.Engine() == sqlstore.EngineSQLite {
				return at.UTC().Format("2006-01-02T15:04:05.000000Z")
			}
			return at.UTC()
		}
		exec := func(q string, args ...any) {
			t.Helper()
			_, err := w.ExecContext(ctx, q, args...)
			require.NoError(t, err)
		}
		count := func(table string) int {
			t.Helper()
			var n int
			require.NoError(t, w.QueryRowContext(ctx, `SELECT count(*) FROM `+table).Scan(&n))
			return n
		}
		const keep = 7 * 24 * time.Hour
		start := time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC)
		r := sqlstore.NewRetentionService(db)
		tables := []string{"batches", "batch_chunks", "liveness_results", "metadata_tasks", "console_sessions"}
		sizes := map[string][]int{}
		for day := range 30 {
			at := start.Add(time.Duration(day) * 24 * time.Hour)
			for b := range 10 {
				id := fmt.Sprintf("b-%02d-%02d", day, b)
				finished := at.Add(time.Duration(b) * time.Hour)
				exec(`INSERT INTO batches (id, kind, status, created_at, finished_at, updated_at) VALUES ($1, 'liveness', 'completed', $2, $3, $3)`,
					id, ts(finished.Add(-time.Hour)), ts(finished))
				for c := range 20 {
					exec(`INSERT INTO batch_chunks (batch_id, chunk_index, status, updated_at) VALUES ($1, $2, 'completed', $3)`, id, c, ts(finished))
				}
				// Day after day the same 400 domains, 40 a batch; one in
				// ten of them is probed on day 0 only, so its latest
				// result grows old.
				for d := range 40 {
					domain := fmt.Sprintf("site%03d.sg", b*40+d)
					if d%10 == 9 && day > 0 {
						continue
					}
					exec(`INSERT INTO liveness_results (batch_id, domain, verdict, reason, checked_at, result) VALUES ($1, $2, 'alive', 'ok', $3, '{}')`,
						id, domain, ts(finished))
					exec(`DELETE FROM domain_liveness WHERE domain = $1`, domain)
					exec(`INSERT INTO domain_liveness (domain, batch_id, verdict, reason, checked_at) VALUES ($1, $2, 'alive', 'ok', $3)`,
						domain, id, ts(finished))
				}
			}
			for i, status := range []string{"succeeded", "skipped_unchanged"} {
				exec(`INSERT INTO metadata_tasks (id, trigger, status, created_at, finished_at) VALUES ($1, 'schedule', $2, $3, $3)`,
					fmt.Sprintf("m-%02d-%d", day, i), status, ts(at.Add(time.Hour)))
			}
			if day < 2 {
				// A failed sync early on: the newest failure is kept.
				exec(`INSERT INTO metadata_tasks (id, trigger, status, created_at, finished_at) VALUES ($1, 'schedule', 'failed', $2, $2)`,
					fmt.Sprintf("m-%02d-9", day), ts(at.Add(2*time.Hour)))
			}
			exec(`INSERT INTO console_sessions (id, key_id, csrf, created_at, seen_at, expires_at) VALUES ($1, 'k', 'c', $2, $2, $3)`,
				fmt.Sprintf("s-%02d", day), ts(at), ts(at.Add(3*24*time.Hour)))

			now := at.Add(23 * time.Hour)
			_, err := r.Prune(ctx, now.Add(-keep), now)
			require.NoError(t, err)
			for _, table := range tables {
				sizes[table] = append(sizes[table], count(table))
			}
		}
		// Level from day 8 on: the same rows each day.
		for _, table := range tables {
			s := sizes[table]
			for day := 9; day < 30; day++ {
				require.Equal(t, s[8], s[day], "%s on day %d: %v", table, day, s)
			}
		}
		require.Equal(t, 70, sizes["batches"][29], "a week of batches (the oldest day's went at its hour)")
		require.Equal(t, 70*20, sizes["batch_chunks"][29])
		require.Equal(t, 3, sizes["console_sessions"][29], "the unexpired ones")
		// Each domain's latest result stays, old or not.
		var orphans int
		require.NoError(t, w.QueryRowContext(ctx, `SELECT count(*) FROM domain_liveness d
			WHERE NOT EXISTS (SELECT 1 FROM liveness_results r WHERE r.domain = d.domain AND r.batch_id = d.batch_id)`).Scan(&orphans))
		require.Zero(t, orphans)
		require.Equal(t, 70*36+400/10, sizes["liveness_results"][29], "a week's results and the 40 domains last probed on day 0")
		var failed int
		require.NoError(t, w.QueryRowContext(ctx, `SELECT count(*) FROM metadata_tasks WHERE status = 'failed'`).Scan(&failed))
		require.Equal(t, 1, failed, "the newest failure is kept")
	})
}
