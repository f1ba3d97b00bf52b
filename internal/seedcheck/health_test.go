package seedcheck_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine/internal/seedcheck"
)

var t0 = time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)

// history builds checks an hour apart, the last one at t0, from oldest to
// newest, and returns them newest first as Derive takes them. Every OK
// check sees a newest item an hour before it and 24 items a day.
func history(outcomes ...seedcheck.Outcome) []seedcheck.Check {
	out := make([]seedcheck.Check, len(outcomes))
	for i, o := range outcomes {
		at := t0.Add(-time.Duration(len(outcomes)-1-i) * time.Hour)
		c := seedcheck.Check{CheckedAt: at, Outcome: o}
		switch o {
		case seedcheck.OutcomeOK, seedcheck.OutcomeMoved:
			n := at.Add(-time.Hour)
			c.Newest, c.ItemsPerDay, c.Items = &n, 24, 20
			if o == seedcheck.OutcomeMoved {
				c.MovedTo = "https://new.example/feed/"
			}
		case seedcheck.OutcomeGone:
			c.Reason = "http_404"
		case seedcheck.OutcomeBlocked:
			c.Reason = "http_403"
		case seedcheck.OutcomeFailed:
			c.Reason = "timeout"
		}
		out[len(outcomes)-1-i] = c
	}
	return out
}

func TestDerive(t *testing.T) {
	t.Parallel()
	const (
		ok      = seedcheck.OutcomeOK
		moved   = seedcheck.OutcomeMoved
		gone    = seedcheck.OutcomeGone
		blocked = seedcheck.OutcomeBlocked
		failed  = seedcheck.OutcomeFailed
		robots  = seedcheck.OutcomeDisallowed
	)
	hoursAgo := func(n int) time.Time { return t0.Add(-time.Duration(n) * time.Hour) }
	cases := []struct {
		name   string
		checks []seedcheck.Check
		state  seedcheck.State
		since  time.Time
		reason string
	}{
		{"no checks", nil, seedcheck.StateUnknown, time.Time{}, ""},
		{"all well", history(ok, ok, ok), seedcheck.StateHealthy, hoursAgo(2), ""},
		{"one timeout is not failing", history(ok, ok, failed), seedcheck.StateHealthy, hoursAgo(2), ""},
		{"two timeouts are not failing", history(ok, failed, failed), seedcheck.StateHealthy, hoursAgo(2), ""},
		{"three are", history(ok, failed, failed, failed), seedcheck.StateFailing, hoursAgo(2), "timeout"},
		{"one 404 is not gone", history(ok, ok, gone), seedcheck.StateHealthy, hoursAgo(2), ""},
		{"two are", history(ok, gone, gone), seedcheck.StateGone, hoursAgo(1), "http_404"},
		{"blocked after two", history(ok, blocked, blocked), seedcheck.StateBlocked, hoursAgo(1), "http_403"},
		{"robots.txt refusing counts as blocked", history(ok, blocked, robots), seedcheck.StateBlocked, hoursAgo(1), ""},
		{"mixed bad checks in a row fail", history(ok, gone, blocked, failed), seedcheck.StateFailing, hoursAgo(2), "timeout"},
		{"moved at once", history(ok, ok, moved), seedcheck.StateMoved, hoursAgo(0), "permanent redirect to https://new.example/feed/"},
		{"recovered", history(failed, failed, failed, ok), seedcheck.StateHealthy, hoursAgo(0), ""},
		{"bad checks only, too few", history(failed, gone), seedcheck.StateUnknown, hoursAgo(1), ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h := seedcheck.Derive(tc.checks, seedcheck.Health{}, t0, seedcheck.Thresholds{})
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
	prev := seedcheck.Health{State: seedcheck.StateHealthy, Since: &earlier}
	h := seedcheck.Derive(history(seedcheck.OutcomeOK, seedcheck.OutcomeOK), prev, t0, seedcheck.Thresholds{})
	require.Equal(t, earlier, *h.Since)
	prev.State = seedcheck.StateFailing
	h = seedcheck.Derive(history(seedcheck.OutcomeOK, seedcheck.OutcomeOK), prev, t0, seedcheck.Thresholds{})
	require.Equal(t, t0.Add(-time.Hour), *h.Since)
}

// Stale follows the seed's own rate: a feed of 24 items a day is stale
// after StaleMin (3 days, as 4 gaps of an hour are less), one of an item
// a week after 4 weeks, one with no rate after StaleMax.
func TestDeriveStale(t *testing.T) {
	t.Parallel()
	check := func(age time.Duration, perDay float64) seedcheck.Health {
		n := t0.Add(-age)
		c := seedcheck.Check{CheckedAt: t0, Outcome: seedcheck.OutcomeOK, Newest: &n, ItemsPerDay: perDay}
		return seedcheck.Derive([]seedcheck.Check{c}, seedcheck.Health{}, t0, seedcheck.Thresholds{})
	}
	day := 24 * time.Hour
	require.Equal(t, seedcheck.StateHealthy, check(2*day, 24).State)
	require.Equal(t, seedcheck.StateStale, check(4*day, 24).State)
	require.Equal(t, seedcheck.StateHealthy, check(20*day, 1.0/7).State)
	require.Equal(t, seedcheck.StateStale, check(29*day, 1.0/7).State)
	require.Equal(t, seedcheck.StateHealthy, check(29*day, 0).State)
	h := check(31*day, 0)
	require.Equal(t, seedcheck.StateStale, h.State)
	require.Equal(t, "no new item for 31 days (expected one at least every 30 days)", h.Reason)
}

// The 7-day window: the share of checks that read the entry and the
// median of the rates they saw.
func TestDeriveWindow(t *testing.T) {
	t.Parallel()
	cs := history(seedcheck.OutcomeOK, seedcheck.OutcomeFailed, seedcheck.OutcomeOK, seedcheck.OutcomeOK)
	cs[0].ItemsPerDay, cs[1].ItemsPerDay, cs[3].ItemsPerDay = 10, 99, 30
	// One more, 8 days old, outside the window.
	old := t0.Add(-8 * 24 * time.Hour)
	cs = append(cs, seedcheck.Check{CheckedAt: old, Outcome: seedcheck.OutcomeFailed})
	h := seedcheck.Derive(cs, seedcheck.Health{}, t0, seedcheck.Thresholds{})
	require.InDelta(t, 0.75, h.SuccessRate7d, 1e-9)
	require.InDelta(t, 30, h.MedianItemsPerDay, 1e-9)
}
