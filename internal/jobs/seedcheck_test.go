package jobs_test

import (
	"context"
	"database/sql"
	"sync"
	"testing"
	"time"

	"github.com/riverqueue/river/rivertype"
	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/jobs"
	"github.com/seedengine/seedengine/internal/sqlstore"
	"github.com/seedengine/seedengine/internal/sqlstore/sqlstoretest"
)

// fakeChecker records the seeds it checked and hands out a due list.
type fakeChecker struct {
	mu      sync.Mutex
	due     []string
	checked map[string]int
	block   chan struct{} // CheckSeed waits on it when set
	pruned  int
	notDue  map[string]bool
}

func (f *fakeChecker) CheckSeed(ctx context.Context, id string, _ func(context.Context, *sql.Tx, seedengine.SeedHealthChange) error) error {
	f.mu.Lock()
	block := f.block
	f.mu.Unlock()
	if block != nil {
		select {
		case <-block:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.checked[id]++
	return nil
}

func (f *fakeChecker) DueSeeds(context.Context, int) ([]string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := f.due
	f.due = nil // due once: the check moves them on
	return out, nil
}

func (f *fakeChecker) DueSeed(_ context.Context, id string) (bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return !f.notDue[id], nil
}

func (f *fakeChecker) PruneChecks(context.Context) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.pruned++
	return nil
}

func (f *fakeChecker) count(id string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.checked[id]
}

// The schedule queues the due seeds, each checked once; a check asked for
// while one of the same seed waits or runs is that one, not a second.
func TestSeedCheckJobs(t *testing.T) {
	t.Parallel()
	sqlstoretest.Engines(t, func(t *testing.T, db *sqlstore.DB) {
		f := &fakeChecker{due: []string{"a::news", "b::news", "c::news"}, checked: map[string]int{}}
		tb := setup(t, db, testConfig(), nil)
		// A short interval, so the spread of the first round is short too.
		tb.q.RegisterSeedChecks(f, 200*time.Millisecond)
		start(t, tb)
		require.Eventually(t, func() bool {
			return f.count("a::news") == 1 && f.count("b::news") == 1 && f.count("c::news") == 1
		}, 60*time.Second, 20*time.Millisecond, "every due seed checked (the periodic round runs on the elected leader)")
		f.mu.Lock()
		require.Equal(t, 1, f.pruned, "old checks pruned once an hour, the first round included")
		f.mu.Unlock()

		f.mu.Lock()
		f.block = make(chan struct{})
		f.mu.Unlock()
		id1, inserted, err := tb.q.EnqueueSeedCheck(t.Context(), "d::news")
		require.NoError(t, err)
		require.True(t, inserted)
		id2, inserted, err := tb.q.EnqueueSeedCheck(t.Context(), "d::news")
		require.NoError(t, err)
		require.False(t, inserted, "one waiting or running check per seed")
		require.Equal(t, id1, id2)
		close(f.block)
		require.Eventually(t, func() bool { return f.count("d::news") == 1 }, 20*time.Second, 20*time.Millisecond)
		require.Never(t, func() bool { return f.count("d::news") > 1 }, 300*time.Millisecond, 20*time.Millisecond)

		// Once done (River records a job's end a moment after its worker
		// returns), a seed can be checked again.
		require.Eventually(t, func() bool {
			_, inserted, err := tb.q.EnqueueSeedCheck(t.Context(), "d::news")
			require.NoError(t, err)
			return inserted
		}, 20*time.Second, 20*time.Millisecond, "a check once the last one ended")
		require.Eventually(t, func() bool { return f.count("d::news") == 2 }, 20*time.Second, 20*time.Millisecond)

		// A scheduled check of a seed checked since its round read it as
		// due does nothing; a check asked for now still checks.
		f.mu.Lock()
		f.notDue = map[string]bool{"e::news": true}
		f.mu.Unlock()
		res, err := tb.q.Client().Insert(t.Context(), jobs.SeedCheckArgs{SeedID: "e::news"}, nil)
		require.NoError(t, err)
		require.Eventually(t, func() bool {
			j, err := tb.q.Client().JobGet(t.Context(), res.Job.ID)
			require.NoError(t, err)
			return j.State == rivertype.JobStateCompleted
		}, 20*time.Second, 20*time.Millisecond)
		require.Zero(t, f.count("e::news"), "not due: not checked")
		_, inserted, err = tb.q.EnqueueSeedCheck(t.Context(), "e::news")
		require.NoError(t, err)
		require.True(t, inserted)
		require.Eventually(t, func() bool { return f.count("e::news") == 1 }, 20*time.Second, 20*time.Millisecond)
	})
}
