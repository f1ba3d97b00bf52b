package seedcheck_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/seedcheck"
)

var t0 = time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)

// history builds checks an hour apart, the last one at t0, from oldest to
// newest, and returns them newest first as Derive takes them. Every OK
// check sees a newest item an hour before it and 24 items a day.
func history(outcomes ...seedengine.SeedCheckOutcome) []seedengine.SeedCheck {
	out := make([]seedengine.SeedCheck, len(outcomes))
	for i, o := range outcomes {
		at := t0.Add(-time.Duration(len(outcomes)-1-i) * time.Hour)
		c := seedengine.SeedCheck{CheckedAt: at, Outcome: o}
		switch o {
		case seedengine.CheckOK, seedengine.CheckMoved:
			n := at.Add(-time.Hour)
			c.Newest, c.ItemsPerDay, c.Items = &n, 24, 20
			if o == seedengine.CheckMoved {
				c.MovedTo = "https://new.example/feed/"
			}
		case seedengine.CheckGone:
			c.Reason = "http_404"
		case seedengine.CheckBlocked:
			c.Reason = "http_403"
		case seedengine.CheckFailed:
			c.Reason = "timeout"
		}
		out[len(outcomes)-1-i] = c
	}
	return out
}

func TestDerive(t *testing.T) {
	t.Parallel()
	const (
		ok      = seedengine.CheckOK
		moved   = seedengine.CheckMoved
		gone    = seedengine.CheckGone
		blocked = seedengine.CheckBlocked
		failed  = seedengine.CheckFailed
		robots  = seedengine.CheckDisallowed
	)
	hoursAgo := func(n int) time.Time { return t0.Add(-time.Duration(n) * time.Hour) }
	cases := []struct {
		name   string
		checks []seedengine.SeedCheck
		state  seedengine.SeedHealthState
		since  time.Time
		reason string
	}{
		{"no checks", nil, seedengine.HealthUnknown, time.Time{}, ""},
		{"all well", history(ok, ok, ok), seedengine.HealthHealthy, hoursAgo(2), ""},
		{"one timeout is not failing", history(ok, ok, failed), seedengine.HealthHealthy, hoursAgo(2), ""},
		{"two timeouts are not failing", history(ok, failed, failed), seedengine.HealthHealthy, hoursAgo(2), ""},
		{"three are", history(ok, failed, failed, failed), seedengine.HealthFailing, hoursAgo(2), "timeout"},
		{"one 404 is not gone", history(ok, ok, gone), seedengine.HealthHealthy, hoursAgo(2), ""},
		{"two are", history(ok, gone, gone), seedengine.HealthGone, hoursAgo(1), "http_404"},
		{"blocked after two", history(ok, blocked, blocked), seedengine.HealthBlocked, hoursAgo(1), "http_403"},
		{"robots.txt refusing counts as blocked", history(ok, blocked, robots), seedengine.HealthBlocked, hoursAgo(1), ""},
		{"mixed bad checks in a row fail", history(ok, gone, blocked, failed), seedengine.HealthFailing, hoursAgo(2), "timeout"},
		{"moved at once", history(ok, ok, moved), seedengine.HealthMoved, hoursAgo(0), "permanent redirect to https://new.example/feed/"},
		{"recovered", history(failed, failed, failed, ok), seedengine.HealthHealthy, hoursAgo(0), ""},
		{"bad checks only, too few", history(failed, gone), seedengine.HealthUnknown, hoursAgo(1), ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h := seedcheck.Derive(tc.checks, seedengine.SeedHealth{}, t0, seedcheck.Thresholds{})
			require.Equal(t, tc.state, h.State, "%+v", h)
			if tc.reason != "" {
				require.Equal(t, tc.reason, h.Reason)
			}
			if len(tc.checks) == 0 {
				require.Nil(t, h.LastCheckAt)
				return
			}
			require.Equal(t, t0, *h.LastCheckAt)
			require.Equal(t, tc.since, *h.Since, "since")
		})
	}
}

// A state that goes on keeps the Since recorded before; a new state takes
// the time of the check that started it.
func TestDeriveKeepsSince(t *testing.T) {
	t.Parallel()
	earlier := t0.Add(-30 * 24 * time.Hour)
	prev := seedengine.SeedHealth{State: seedengine.HealthHealthy, Since: &earlier}
	h := seedcheck.Derive(history(seedengine.CheckOK, seedengine.CheckOK), prev, t0, seedcheck.Thresholds{})
	require.Equal(t, earlier, *h.Since)
	prev.State = seedengine.HealthFailing
	h = seedcheck.Derive(history(seedengine.CheckOK, seedengine.CheckOK), prev, t0, seedcheck.Thresholds{})
	require.Equal(t, t0.Add(-time.Hour), *h.Since)
}

// Stale follows the seed's own rate: a feed of 24 items a day is stale
// after StaleMin (3 days, as 4 gaps of an hour are less), one of an item
// a week after 4 weeks, one with no rate after StaleMax.
func TestDeriveStale(t *testing.T) {
	t.Parallel()
	check := func(age time.Duration, perDay float64) seedengine.SeedHealth {
		n := t0.Add(-age)
		c := seedengine.SeedCheck{CheckedAt: t0, Outcome: seedengine.CheckOK, Newest: &n, ItemsPerDay: perDay}
		return seedcheck.Derive([]seedengine.SeedCheck{c}, seedengine.SeedHealth{}, t0, seedcheck.Thresholds{})
	}
	day := 24 * time.Hour
	require.Equal(t, seedengine.HealthHealthy, check(2*day, 24).State)
	require.Equal(t, seedengine.HealthStale, check(4*day, 24).State)
	require.Equal(t, seedengine.HealthHealthy, check(20*day, 1.0/7).State)
	require.Equal(t, seedengine.HealthStale, check(29*day, 1.0/7).State)
	require.Equal(t, seedengine.HealthHealthy, check(29*day, 0).State)
	h := check(31*day, 0)
	require.Equal(t, seedengine.HealthStale, h.State)
	require.Equal(t, "no new item for 31 days (expected one at least every 30 days)", h.Reason)
}

// The 7-day window: the share of checks that read the entry and the
// median of the rates they saw.
func TestDeriveWindow(t *testing.T) {
	t.Parallel()
	cs := history(seedengine.CheckOK, seedengine.CheckFailed, seedengine.CheckOK, seedengine.CheckOK)
	cs[0].ItemsPerDay, cs[1].ItemsPerDay, cs[3].ItemsPerDay = 10, 99, 30
	// One more, 8 days old, outside the window.
	old := t0.Add(-8 * 24 * time.Hour)
	cs = append(cs, seedengine.SeedCheck{CheckedAt: old, Outcome: seedengine.CheckFailed})
	h := seedcheck.Derive(cs, seedengine.SeedHealth{}, t0, seedcheck.Thresholds{})
	require.InDelta(t, 0.75, h.SuccessRate7d, 1e-9)
	require.InDelta(t, 30, h.MedianItemsPerDay, 1e-9)
}

// An entry without dates turns stale by its item URLs: no harvesting read
// found a new one for longer than its pace predicts (at least three
// days); one that never harvested is never stale this way.
func TestDeriveStaleUndated(t *testing.T) {
	t.Parallel()
	reads := func(days int, lastNew int) []seedengine.SeedCheck {
		var out []seedengine.SeedCheck
		for d := range days {
			c := seedengine.SeedCheck{CheckedAt: t0.Add(-time.Duration(d) * 24 * time.Hour), Outcome: seedengine.CheckOK,
				Items: 20, IntervalSeconds: 86400, ArrivalsPerHour: 0.5}
			if d == lastNew {
				c.Harvested = 3
			}
			out = append(out, c) // newest first
		}
		return out
	}
	h := seedcheck.Derive(reads(10, 1), seedengine.SeedHealth{}, t0, seedcheck.Thresholds{})
	require.Equal(t, seedengine.HealthHealthy, h.State, "a new item URL a day ago")
	h = seedcheck.Derive(reads(10, 5), seedengine.SeedHealth{}, t0, seedcheck.Thresholds{})
	require.Equal(t, seedengine.HealthStale, h.State, "none for five days at 12 a day: %+v", h)
	require.Contains(t, h.Reason, "no new item URL for 5 days")
	h = seedcheck.Derive(reads(10, -1), seedengine.SeedHealth{}, t0, seedcheck.Thresholds{})
	require.Equal(t, seedengine.HealthStale, h.State, "none in ten days of reads")
	unpaced := reads(10, -1)
	for i := range unpaced {
		unpaced[i].IntervalSeconds = 0
	}
	h = seedcheck.Derive(unpaced, seedengine.SeedHealth{}, t0, seedcheck.Thresholds{})
	require.Equal(t, seedengine.HealthHealthy, h.State, "checks that never harvested say nothing of item URLs")
}
