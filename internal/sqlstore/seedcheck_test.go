package sqlstore_test

import (
	"context"
	"database/sql"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/sqlstore"
	"github.com/seedengine/seedengine/internal/sqlstore/sqlstoretest"
)

// Checks are stored with the health derived from them in one step; the
// health recorded before comes back (for an alert on a change), checks
// page newest first, a seed is due when never checked or past its next
// time, and retention deletes old checks.
func TestSeedChecks(t *testing.T) {
	t.Parallel()
	sqlstoretest.Engines(t, func(t *testing.T, db *sqlstore.DB) {
		ctx := t.Context()
		s := sqlstore.NewSeedService(db)
		a := createSeed(t, s, "media:sg:straitstimes.com", "alice")
		b := createSeed(t, s, "media:sg:todayonline.com", "alice")
		_ = createSeed(t, s, "media:sg:draft-only.com", "alice")
		for _, sd := range []*seedengine.Seed{a, b} {
			_, err := s.TransitionSeed(ctx, sd.SeedID, seedengine.SeedPromote, "alice", "")
			require.NoError(t, err)
		}
		now := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
		active := []seedengine.SeedStatus{seedengine.SeedActive}

		due, err := s.DueSeedChecks(ctx, now, active, 10)
		require.NoError(t, err)
		require.ElementsMatch(t, []string{a.SeedID, b.SeedID}, due, "never checked active seeds are due; drafts are not")

		h, next, err := s.FindSeedHealth(ctx, a.SeedID)
		require.NoError(t, err)
		require.Equal(t, seedengine.HealthUnknown, h.State)
		require.True(t, next.IsZero())

		var ids []int64
		for i, outcome := range []seedengine.SeedCheckOutcome{seedengine.CheckOK, seedengine.CheckOK, seedengine.CheckFailed} {
			at := now.Add(time.Duration(i) * time.Hour)
			newest := at.Add(-time.Hour)
			c := seedengine.SeedCheck{SeedID: a.SeedID, CheckedAt: at, EntryURL: a.Fetch.EntryURL, Outcome: outcome, Status: 200, Items: 10 + i, Newest: &newest, ETag: `"v1"`}
			state := seedengine.HealthHealthy
			if outcome == seedengine.CheckFailed {
				state = seedengine.HealthFailing
			}
			since := now
			health := seedengine.SeedHealth{State: state, Since: &since, Reason: string(outcome), LastCheckAt: &at, SuccessRate7d: 0.5, MedianItemsPerDay: 24}
			var change seedengine.SeedHealthChange
			prev, _, err := s.RecordSeedCheck(ctx, &c, nil, false, decided(health, at.Add(time.Hour)), func(_ context.Context, _ *sql.Tx, ch seedengine.SeedHealthChange) error {
				change = ch
				return nil
			})
			require.NoError(t, err)
			require.Positive(t, c.ID)
			require.Equal(t, seedengine.SeedHealthChange{SeedID: a.SeedID, From: prev.State, To: state, Reason: string(outcome), At: at, CheckID: c.ID}, change,
				"the transaction's callback hears the change the check recorded")
			ids = append(ids, c.ID)
			if i == 0 {
				require.Equal(t, seedengine.HealthUnknown, prev.State, "nothing recorded before the first check")
			} else {
				require.Equal(t, seedengine.HealthHealthy, prev.State)
			}
		}
		h, next, err = s.FindSeedHealth(ctx, a.SeedID)
		require.NoError(t, err)
		require.Equal(t, seedengine.HealthFailing, h.State)
		require.Equal(t, now, h.Since.UTC())
		require.Equal(t, now.Add(2*time.Hour), h.LastCheckAt.UTC())
		require.InDelta(t, 24, h.MedianItemsPerDay, 1e-9)
		require.Equal(t, now.Add(3*time.Hour), next.UTC())

		got, err := s.FindSeedChecks(ctx, a.SeedID, 0, time.Time{}, 2)
		require.NoError(t, err)
		require.Len(t, got, 2)
		require.Equal(t, []int64{ids[2], ids[1]}, []int64{got[0].ID, got[1].ID}, "newest first")
		require.Equal(t, seedengine.CheckFailed, got[0].Outcome)
		require.Equal(t, 12, got[0].Items)
		require.Equal(t, `"v1"`, got[0].ETag)
		got, err = s.FindSeedChecks(ctx, a.SeedID, got[1].ID, time.Time{}, 2)
		require.NoError(t, err)
		require.Len(t, got, 1, "the next page")
		require.Equal(t, ids[0], got[0].ID)
		got, err = s.FindSeedChecks(ctx, a.SeedID, 0, now.Add(90*time.Minute), 10)
		require.NoError(t, err)
		require.Len(t, got, 1, "since leaves older checks out")
		_, err = s.FindSeedChecks(ctx, a.SeedID, 0, time.Time{}, 0)
		require.Equal(t, "limit", seedengine.ErrorField(err))

		// The page and the health as of one moment: what the two reads
		// answer apart, when nothing is written in between.
		page, ph, pnext, err := s.FindSeedChecksWithHealth(ctx, a.SeedID, 0, 2)
		require.NoError(t, err)
		require.Equal(t, []int64{ids[2], ids[1]}, []int64{page[0].ID, page[1].ID})
		require.Equal(t, h, ph)
		require.Equal(t, next, pnext)
		page, ph, _, err = s.FindSeedChecksWithHealth(ctx, "gov:sg:never.gov.sg::news", 0, 2)
		require.NoError(t, err)
		require.Empty(t, page)
		require.Equal(t, seedengine.HealthUnknown, ph.State)

		// a's next check is at +3h: due then, not before; b stays due.
		due, err = s.DueSeedChecks(ctx, now.Add(2*time.Hour), active, 10)
		require.NoError(t, err)
		require.Equal(t, []string{b.SeedID}, due)
		due, err = s.DueSeedChecks(ctx, now.Add(3*time.Hour), active, 10)
		require.NoError(t, err)
		require.Equal(t, []string{b.SeedID, a.SeedID}, due, "never checked first")

		_, _, err = s.RecordSeedCheck(ctx, &seedengine.SeedCheck{SeedID: "media:sg:nobody.com::news", CheckedAt: now, Outcome: seedengine.CheckOK}, nil, false,
			decided(seedengine.SeedHealth{State: seedengine.HealthHealthy}, now), nil)
		require.Equal(t, seedengine.ENOTFOUND, seedengine.ErrorCode(err))

		n, err := s.DeleteSeedChecksBefore(ctx, now.Add(90*time.Minute))
		require.NoError(t, err)
		require.EqualValues(t, 2, n)
		got, err = s.FindSeedChecks(ctx, a.SeedID, 0, time.Time{}, 10)
		require.NoError(t, err)
		require.Len(t, got, 1)
	})
}

// decided is a RecordSeedCheck decision that gives h and next whatever
// the check found.
func decided(h seedengine.SeedHealth, next time.Time) func(*seedengine.SeedCheck, seedengine.ArrivalHistory) (seedengine.SeedHealth, time.Time) {
	return func(*seedengine.SeedCheck, seedengine.ArrivalHistory) (seedengine.SeedHealth, time.Time) {
		return h, next
	}
}
