package seedcheck_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/seedcheck"
	"github.com/seedengine/seedengine/internal/simweb"
	"github.com/seedengine/seedengine/internal/simweb/simwebtest"
	"github.com/seedengine/seedengine/internal/sqlstore"
	"github.com/seedengine/seedengine/internal/sqlstore/sqlstoretest"
)

// An active seed checked again and again as its site changes: healthy,
// unchanged (304), then gone after two checks of a dead name, with its
// next check an hour after each (its schedule is @hourly). A draft is
// never checked.
func TestServiceChecksActiveSeeds(t *testing.T) {
	t.Parallel()
	sqlstoretest.Engines(t, func(t *testing.T, db *sqlstore.DB) {
		ctx := t.Context()
		const host = "daily-news.com.sg"
		w, client := simwebtest.Client(t, []simweb.Site{{Host: host, Layout: simweb.LayoutWordPress}}, 5*time.Second)
		store := sqlstore.NewSeedService(db)
		sd := createFeedSeed(t, store, host, true)
		draft := createFeedSeed(t, store, "other.com.sg", false)

		var mu sync.Mutex
		now := time.Now().UTC().Truncate(time.Second)
		clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
		advance := func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }
		batches := sqlstoretest.RowsOnlyBatches(sqlstore.NewBatchService(db))
		svc := seedcheck.NewService(store, seedcheck.NewChecker(client, clock), seedcheck.Config{Now: clock, Batches: batches})
		drift := &recordDrift{}

		due, err := svc.DueSeeds(ctx, 10)
		require.NoError(t, err)
		require.Equal(t, []string{sd.SeedID}, due, "the active seed, not the draft")

		c, hs, err := svc.Check(ctx, sd.SeedID, drift.inTx)
		require.NoError(t, err)
		require.Equal(t, seedengine.CheckOK, c.Outcome, "%+v", c)
		require.Equal(t, seedengine.HealthUnknown, hs[0].State)
		require.Equal(t, seedengine.HealthHealthy, hs[1].State)
		// An active feed's items are harvested, all new on the first read,
		// and its pace picks the next read.
		require.Positive(t, c.Items)
		require.Equal(t, c.Items, c.Harvested)
		require.False(t, c.PossibleGap, "the first read finds everything new, and misses nothing")
		pace := time.Duration(c.IntervalSeconds * float64(time.Second))
		require.GreaterOrEqual(t, pace, 5*time.Minute)
		require.LessOrEqual(t, pace, 24*time.Hour)
		h, next, err := store.FindSeedHealth(ctx, sd.SeedID)
		require.NoError(t, err)
		require.Equal(t, seedengine.HealthHealthy, h.State)
		require.WithinDuration(t, now.Add(pace), next, time.Second)
		due, err = svc.DueSeeds(ctx, 10)
		require.NoError(t, err)
		require.Empty(t, due, "checked: due again at its pace")
		isDue, err := svc.DueSeed(ctx, sd.SeedID)
		require.NoError(t, err)
		require.False(t, isDue)

		advance(pace)
		isDue, err = svc.DueSeed(ctx, sd.SeedID)
		require.NoError(t, err)
		require.True(t, isDue, "its pace on")
		c, _, err = svc.Check(ctx, sd.SeedID, drift.inTx)
		require.NoError(t, err)
		require.True(t, c.NotModified, "the validator of the first check gets a 304: %+v", c)

		w.AddSite(simweb.Site{Host: host, Layout: simweb.LayoutWordPress, Scenario: simweb.ScenarioNXDomain})
		advance(time.Hour)
		_, hs, err = svc.Check(ctx, sd.SeedID, drift.inTx)
		require.NoError(t, err)
		require.Equal(t, seedengine.HealthHealthy, hs[1].State, "one dead answer is not gone yet")
		advance(time.Hour)
		_, hs, err = svc.Check(ctx, sd.SeedID, drift.inTx)
		require.NoError(t, err)
		require.Equal(t, seedengine.HealthHealthy, hs[0].State)
		require.Equal(t, seedengine.HealthGone, hs[1].State)
		require.Equal(t, "nxdomain", hs[1].Reason)

		checks, err := store.FindSeedChecks(ctx, sd.SeedID, 0, time.Time{}, 10)
		require.NoError(t, err)
		require.Len(t, checks, 4)

		// The change to gone was queued for a drift contract run with the
		// check that recorded it; the run is a one-domain contract batch.
		require.Len(t, drift.changes, 1)
		change := drift.changes[0]
		require.Equal(t, seedengine.HealthHealthy, change.From)
		require.Equal(t, seedengine.HealthGone, change.To)
		require.Equal(t, checks[0].ID, change.CheckID)
		require.NoError(t, svc.Drift(ctx, change))
		bs, _, err := batches.FindBatches(ctx, seedengine.BatchFilter{Kind: seedengine.BatchContract, Limit: 10})
		require.NoError(t, err)
		require.Len(t, bs, 1)
		require.Equal(t, "sg", bs[0].Country)
		require.Equal(t, 1, bs[0].Chunks.Total)
		var params struct {
			Drift seedengine.SeedHealthChange `json:"drift"`
		}
		require.NoError(t, json.Unmarshal(bs[0].Params, &params))
		require.Equal(t, seedengine.HealthGone, params.Drift.To)
		require.Equal(t, sd.SeedID, params.Drift.SeedID)
		require.NoError(t, svc.Drift(ctx, change), "a drift job run again")
		bs, _, err = batches.FindBatches(ctx, seedengine.BatchFilter{Kind: seedengine.BatchContract, Limit: 10})
		require.NoError(t, err)
		require.Len(t, bs, 1, "creates no second batch")

		c, _, err = svc.Check(ctx, draft.SeedID, drift.inTx)
		require.NoError(t, err)
		require.Empty(t, c.Outcome, "a draft is not checked")
	})
}

// recordDrift records the changes that call for a drift run, as the
// check job queues them in the transaction that records a check.
type recordDrift struct{ changes []seedengine.SeedHealthChange }

func (r *recordDrift) inTx(_ context.Context, _ *sql.Tx, c seedengine.SeedHealthChange) error {
	if c.Drifting() {
		r.changes = append(r.changes, c)
	}
	return nil
}

// WARN is for what an operator should look at: a routine check (the
// first that finds a seed healthy, a 304, one failure below its
// threshold, a recovery) logs below it; a seed turning gone logs at it.
func TestServiceLogsOnlyBadChangesAtWarn(t *testing.T) {
	t.Parallel()
	sqlstoretest.Engines(t, func(t *testing.T, db *sqlstore.DB) {
		ctx := t.Context()
		const host = "steady-news.com.sg"
		w, client := simwebtest.Client(t, []simweb.Site{{Host: host, Layout: simweb.LayoutWordPress}}, 5*time.Second)
		store := sqlstore.NewSeedService(db)
		sd := createFeedSeed(t, store, host, true)
		logs := &recordLevels{}
		svc := seedcheck.NewService(store, seedcheck.NewChecker(client, nil), seedcheck.Config{Logger: slog.New(logs)})
		check := func(want seedengine.SeedHealthState) []slog.Level {
			t.Helper()
			c, hs, err := svc.Check(ctx, sd.SeedID, nil)
			require.NoError(t, err)
			require.Equal(t, want, hs[1].State, "%+v", c)
			return logs.take()
		}
		routine := func(what string, levels []slog.Level) {
			t.Helper()
			require.NotEmpty(t, levels, "%s: the check is logged", what)
			for _, l := range levels {
				require.Less(t, l, slog.LevelWarn, "%s is routine", what)
			}
		}

		routine("a first check of a healthy seed", check(seedengine.HealthHealthy))
		routine("an unchanged feed (304)", check(seedengine.HealthHealthy))
		w.AddSite(simweb.Site{Host: host, Layout: simweb.LayoutWordPress, Scenario: simweb.ScenarioNXDomain})
		routine("one dead answer", check(seedengine.HealthHealthy))
		require.Equal(t, []slog.Level{slog.LevelWarn}, check(seedengine.HealthGone), "the seed turned gone")
		w.AddSite(simweb.Site{Host: host, Layout: simweb.LayoutWordPress})
		routine("a recovery", check(seedengine.HealthHealthy))
	})
}

// recordLevels is a slog.Handler that keeps the level of each record.
type recordLevels struct {
	mu     sync.Mutex
	levels []slog.Level
}

func (r *recordLevels) Enabled(context.Context, slog.Level) bool { return true }

func (r *recordLevels) Handle(_ context.Context, rec slog.Record) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.levels = append(r.levels, rec.Level)
	return nil
}

func (r *recordLevels) WithAttrs([]slog.Attr) slog.Handler { return r }

func (r *recordLevels) WithGroup(string) slog.Handler { return r }

func (r *recordLevels) take() []slog.Level {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.levels
	r.levels = nil
	return out
}

func TestCronPeriod(t *testing.T) {
	t.Parallel()
	for expr, want := range map[string]time.Duration{
		"@hourly": time.Hour, "@daily": 24 * time.Hour, "@weekly": 7 * 24 * time.Hour,
		"*/15 * * * *": 15 * time.Minute, "0 * * * *": time.Hour, "0 */6 * * *": 6 * time.Hour,
		"0 6,18 * * *": 12 * time.Hour, "30 5 * * 1": 24 * time.Hour, "nonsense": 24 * time.Hour,
	} {
		require.Equal(t, want, seedcheck.CronPeriod(expr), expr)
	}
}

// A seed whose feed moved for good, to a URL that reads as the same feed,
// gets its contract with the new entry as a proposed version; the active
// seed itself is left as it is.
func TestDriftProposesMovedEntry(t *testing.T) {
	t.Parallel()
	sqlstoretest.Engines(t, func(t *testing.T, db *sqlstore.DB) {
		ctx := t.Context()
		const host = "moving-news.com.sg"
		w, client := simwebtest.Client(t, []simweb.Site{{Host: host, Layout: simweb.LayoutWordPress}}, 5*time.Second)
		store := sqlstore.NewSeedService(db)
		sd := createFeedSeed(t, store, host, true)
		drift := &recordDrift{}
		svc := seedcheck.NewService(store, seedcheck.NewChecker(client, nil), seedcheck.Config{})

		_, hs, err := svc.Check(ctx, sd.SeedID, drift.inTx)
		require.NoError(t, err)
		require.Equal(t, seedengine.HealthHealthy, hs[1].State)
		w.AddSite(simweb.Site{Host: host, Layout: simweb.LayoutWordPress, Scenario: simweb.ScenarioRedirectExternal})
		c, hs, err := svc.Check(ctx, sd.SeedID, drift.inTx)
		require.NoError(t, err)
		require.Equal(t, seedengine.HealthMoved, hs[1].State, "%+v", c)
		require.Len(t, drift.changes, 1)
		require.Equal(t, c.MovedTo, drift.changes[0].MovedTo)

		require.NoError(t, svc.Drift(ctx, drift.changes[0]))
		vs, err := store.FindSeedVersions(ctx, sd.SeedID)
		require.NoError(t, err)
		require.Equal(t, seedengine.SeedVersionProposed, vs[0].State)
		require.Equal(t, c.MovedTo, vs[0].Contract.Fetch.EntryURL)
		got, err := store.FindSeedByID(ctx, sd.SeedID)
		require.NoError(t, err)
		require.Equal(t, seedengine.SeedActive, got.Status)
		require.Equal(t, "https://"+host+"/feed/", got.Fetch.EntryURL, "the active seed is not changed")
		require.Equal(t, vs[0].Version, got.ProposedVersion)
	})
}

// A permanent redirect that only respells the entry (here the bare host
// to www.) keeps the seed healthy, raises no drift or alert, records the
// spelling, and proposes it quietly once.
func TestServiceCanonicalRedirectIsQuiet(t *testing.T) {
	t.Parallel()
	sqlstoretest.Engines(t, func(t *testing.T, db *sqlstore.DB) {
		ctx := t.Context()
		const host = "respelt-news.com.sg"
		_, client := simwebtest.Client(t, []simweb.Site{{Host: host, Layout: simweb.LayoutWordPress, Scenario: simweb.ScenarioRedirectWWW}}, 5*time.Second)
		store := sqlstore.NewSeedService(db)
		sd := createFeedSeed(t, store, host, true)
		svc := seedcheck.NewService(store, seedcheck.NewChecker(client, nil), seedcheck.Config{})
		drift := &recordDrift{}
		for range 2 {
			c, hs, err := svc.Check(ctx, sd.SeedID, drift.inTx)
			require.NoError(t, err)
			require.Equal(t, seedengine.CheckOK, c.Outcome, "%+v", c)
			require.Empty(t, c.MovedTo)
			require.Equal(t, "https://www."+host+"/feed/", c.CanonicalURL)
			require.Equal(t, seedengine.HealthHealthy, hs[1].State)
		}
		require.Empty(t, drift.changes, "no drift, no alert")
		got, err := store.FindSeedByID(ctx, sd.SeedID)
		require.NoError(t, err)
		require.Equal(t, "https://"+host+"/feed/", got.Fetch.EntryURL, "the active contract is not changed")
		versions, err := store.FindSeedVersions(ctx, sd.SeedID)
		require.NoError(t, err)
		proposed := 0
		for _, v := range versions {
			if v.State == "proposed" {
				proposed++
				require.Equal(t, "https://www."+host+"/feed/", v.Contract.Fetch.EntryURL)
				require.Equal(t, "seed_check:canonical", v.Actor)
			}
		}
		require.Equal(t, 1, proposed, "one quiet proposal, however many checks see it")
	})
}
