package app_test

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine/internal/jobs"
	"github.com/seedengine/seedengine/internal/pages"
)

// One busy host does not stall the others. A publisher's 200 new pages
// are queued before eight publishers' 4 each; 32 page workers, a 100 ms
// per-host delay, a 1 s horizon. The big host's page jobs whose turn is
// further off than the horizon go back to the queue (snoozed: no try
// spent) and come back at its pace, so every small host's page is
// requested before the big host's 100th, which politeness alone puts
// 10 s after its first. (Page jobs that waited for their host's turn
// took all 32 workers for the big host, and the small hosts' pages came
// after its 170th.) Every page is fetched, no job spent a second try,
// and no two requests to a host came closer than its delay, by the
// simulated web's log.
//
// Not parallel: its order is the queue's, on a machine not shared with
// the package's parallel tests.
func TestPageFrontier(t *testing.T) {
	const delay = 100 * time.Millisecond
	hosts := append([]int{200}, repeat(8, 4)...)
	fr := newFrontier(t, hosts, delay, withJobs(func(c *jobs.Config) { c.PageWorkers = 32 }),
		withPages(pages.Config{Dir: t.TempDir(), Process: "frontier", Horizon: time.Second}))
	var mu sync.Mutex
	arrived := map[string][]time.Time{}  // every request, by host
	articles := map[string][]time.Time{} // article page requests, by host
	fr.web.Observe(func(r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		arrived[r.Host] = append(arrived[r.Host], time.Now())
		if strings.HasPrefix(r.URL.Path, "/articles/") {
			articles[r.Host] = append(articles[r.Host], time.Now())
		}
	})
	fr.queue(t, 1)

	ctx := context.Background()
	q, args := fr.queuedOf(0)
	require.Eventually(t, func() bool {
		var n int
		require.NoError(t, fr.db.Reader().QueryRowContext(ctx, q, args...).Scan(&n))
		return n == 0
	}, 2*time.Minute, 50*time.Millisecond, "every page fetched")
	var fetched, failed int
	require.NoError(t, fr.db.Reader().QueryRowContext(ctx, `SELECT COUNT(*) FROM pages WHERE state IN ('fetched', 'stored')`).Scan(&fetched))
	require.NoError(t, fr.db.Reader().QueryRowContext(ctx, `SELECT COUNT(*) FROM pages WHERE state = 'failed'`).Scan(&failed))
	require.Zero(t, failed)
	require.Equal(t, 200+8*4, fetched)

	// The queue's view: snoozed jobs, none of which spent a try on it.
	var snoozed, maxAttempt int
	require.NoError(t, fr.db.Reader().QueryRowContext(ctx,
		`SELECT COUNT(*), COALESCE(MAX(attempt), 0) FROM river_job WHERE kind = 'page_fetch' AND json_extract(metadata, '$.snoozes') > 0`).
		Scan(&snoozed, &maxAttempt))
	t.Logf("%d page jobs snoozed", snoozed)
	require.Positive(t, snoozed, "the big host's backlog went back to the queue")
	require.Equal(t, 1, maxAttempt, "a snooze is not a try")

	mu.Lock()
	defer mu.Unlock()
	big := articles[fr.pubs[0].Host]
	require.Len(t, big, 200)
	slices.SortFunc(big, func(a, b time.Time) int { return a.Compare(b) })
	for _, p := range fr.pubs[1:] {
		small := articles[p.Host]
		require.Len(t, small, 4, p.Host)
		for _, at := range small {
			require.True(t, at.Before(big[99]), "%s's pages came after the big host's 100th", p.Host)
		}
	}
	for host, at := range arrived {
		slices.SortFunc(at, func(a, b time.Time) int { return a.Compare(b) })
		for i := 1; i < len(at); i++ {
			require.GreaterOrEqual(t, at[i].Sub(at[i-1]), delay, "%s: requests %d and %d", host, i-1, i)
		}
	}
}
