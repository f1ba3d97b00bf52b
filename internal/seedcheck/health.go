package seedcheck

import (
	"fmt"
	"slices"
	"time"

	"github.com/seedengine/seedengine"
)

// Thresholds tune Derive. The zero value takes the defaults noted.
type Thresholds struct {
	// FailingAfter consecutive failed checks make a seed failing; default 3.
	FailingAfter int
	// BlockedAfter consecutive refused checks make it blocked; default 2.
	BlockedAfter int
	// GoneAfter consecutive 404/410/NXDOMAIN checks make it gone; default 2.
	GoneAfter int
	// StaleFactor: a seed is stale when its newest item is older than
	// StaleFactor times the gap between items its rate predicts; default 4.
	StaleFactor float64
	// StaleMin and StaleMax bound that age: never stale before StaleMin
	// (default 72h), always stale after StaleMax (default 30 days), and
	// StaleMax applies alone when the rate is unknown.
	StaleMin, StaleMax time.Duration
}

func (t Thresholds) withDefaults() Thresholds {
	if t.FailingAfter <= 0 {
		t.FailingAfter = 3
	}
	if t.BlockedAfter <= 0 {
		t.BlockedAfter = 2
	}
	if t.GoneAfter <= 0 {
		t.GoneAfter = 2
	}
	if t.StaleFactor <= 0 {
		t.StaleFactor = 4
	}
	if t.StaleMin <= 0 {
		t.StaleMin = 72 * time.Hour
	}
	if t.StaleMax <= 0 {
		t.StaleMax = 30 * 24 * time.Hour
	}
	return t
}

// Derive computes a seed's health from its checks, newest first, at now.
// prev is the health recorded before (zero for none): a state that goes
// on keeps its Since. A run of bad checks shorter than its threshold
// leaves the state the checks before it gave (a single timeout does not
// make a healthy seed failing).
func Derive(checks []seedengine.SeedCheck, prev seedengine.SeedHealth, now time.Time, th Thresholds) seedengine.SeedHealth {
	th = th.withDefaults()
	h := seedengine.SeedHealth{State: seedengine.HealthUnknown}
	if len(checks) == 0 {
		return h
	}
	last := checks[0].CheckedAt
	h.LastCheckAt = &last
	h.SuccessRate7d, h.MedianItemsPerDay = window(checks, now)

	state, reason, since := judge(checks, now, th)
	h.State, h.Reason = state, reason
	if prev.State == state && prev.Since != nil {
		h.Since = prev.Since
	} else {
		h.Since = &since
	}
	return h
}

// judge returns the state the checks give, its reason, and the time of
// the first check of the run that gives it.
func judge(checks []seedengine.SeedCheck, now time.Time, th Thresholds) (seedengine.SeedHealthState, string, time.Time) {
	bad := badState(checks[0].Outcome)
	if bad != "" {
		if n := run(checks, bad); n >= threshold(bad, th) {
			return bad, checks[0].Reason, checks[n-1].CheckedAt
		}
		// Bad checks of mixed kinds in a row count as failures.
		m := run(checks, seedengine.HealthFailing)
		if m >= th.FailingAfter {
			return seedengine.HealthFailing, checks[0].Reason, checks[m-1].CheckedAt
		}
		// Too few in a row yet: the state of the checks before the run.
		if m < len(checks) {
			return judge(checks[m:], now, th)
		}
		return seedengine.HealthUnknown, "", checks[len(checks)-1].CheckedAt
	}
	c := checks[0]
	if c.Outcome == seedengine.CheckMoved {
		n := run(checks, seedengine.HealthMoved)
		return seedengine.HealthMoved, "permanent redirect to " + c.MovedTo, checks[n-1].CheckedAt
	}
	// ok: healthy or stale.
	if c.Newest != nil {
		age := now.Sub(*c.Newest)
		limit := staleAfter(c.ItemsPerDay, th)
		if age > limit {
			// Stale since the check that first saw the newest item past the
			// limit; at the latest, this one.
			since := c.CheckedAt
			for _, o := range checks {
				if o.Outcome != seedengine.CheckOK || o.Newest == nil || !o.Newest.Equal(*c.Newest) || o.CheckedAt.Sub(*c.Newest) <= limit {
					break
				}
				since = o.CheckedAt
			}
			return seedengine.HealthStale, fmt.Sprintf("no new item for %s (expected one at least every %s)", roundDuration(age), roundDuration(limit)), since
		}
	}
	if c.Newest == nil {
		// Undated items: judged by when a read last found a new item URL.
		if age, perDay, since, ok := quietFor(checks, now); ok {
			if limit := staleAfter(perDay, th); age > limit {
				return seedengine.HealthStale, fmt.Sprintf("no new item URL for %s (expected one at least every %s)", roundDuration(age), roundDuration(limit)), since
			}
		}
	}
	n := 0
	for _, o := range checks {
		if o.Outcome != seedengine.CheckOK {
			break
		}
		n++
	}
	return seedengine.HealthHealthy, "", checks[n-1].CheckedAt
}

// quietFor reads a harvested seed's checks, newest first: how long since a
// read last found a new item URL (at least, when none of the checks did:
// since the oldest of them), the most items a day its pace expected, and
// the first check that found nothing new. ok is false when the checks
// are not a harvest's (no pace recorded).
func quietFor(checks []seedengine.SeedCheck, now time.Time) (age time.Duration, perDay float64, since time.Time, ok bool) {
	since = checks[0].CheckedAt
	for _, o := range checks {
		if o.IntervalSeconds <= 0 {
			continue // not a harvesting read
		}
		ok = true
		perDay = max(perDay, o.ArrivalsPerHour*24)
		if o.Harvested > 0 {
			return now.Sub(o.CheckedAt), perDay, since, true
		}
		since = o.CheckedAt
	}
	return now.Sub(since), perDay, since, ok
}

// staleAfter is the age of the newest item past which a seed with the
// given rate is stale.
func staleAfter(itemsPerDay float64, th Thresholds) time.Duration {
	if itemsPerDay <= 0 {
		return th.StaleMax
	}
	gap := time.Duration(float64(24*time.Hour) / itemsPerDay)
	return min(max(time.Duration(th.StaleFactor*float64(gap)), th.StaleMin), th.StaleMax)
}

// badState is the state a check's outcome counts toward, or "" for a
// good outcome.
func badState(o seedengine.SeedCheckOutcome) seedengine.SeedHealthState {
	switch o {
	case seedengine.CheckGone:
		return seedengine.HealthGone
	case seedengine.CheckBlocked, seedengine.CheckDisallowed:
		return seedengine.HealthBlocked
	case seedengine.CheckFailed:
		return seedengine.HealthFailing
	}
	return ""
}

func threshold(s seedengine.SeedHealthState, th Thresholds) int {
	switch s {
	case seedengine.HealthGone:
		return th.GoneAfter
	case seedengine.HealthBlocked:
		return th.BlockedAfter
	}
	return th.FailingAfter
}

// run counts the leading checks that count toward s. A failing run
// counts every bad outcome (a seed that is gone on one check and times out
// on the next is failing), the others only their own.
func run(checks []seedengine.SeedCheck, s seedengine.SeedHealthState) int {
	n := 0
	for _, c := range checks {
		b := badState(c.Outcome)
		switch {
		case s == seedengine.HealthMoved && c.Outcome == seedengine.CheckMoved:
		case s == seedengine.HealthFailing && b != "":
		case b == s && s != "":
		default:
			return n
		}
		n++
	}
	return n
}

// window returns the success rate and median publishing rate of the
// checks of the 7 days before now.
func window(checks []seedengine.SeedCheck, now time.Time) (float64, float64) {
	from := now.Add(-7 * 24 * time.Hour)
	var ok, all int
	var rates []float64
	for _, c := range checks {
		if c.CheckedAt.Before(from) {
			break
		}
		all++
		if c.Outcome == seedengine.CheckOK || c.Outcome == seedengine.CheckMoved {
			ok++
			if c.ItemsPerDay > 0 {
				rates = append(rates, c.ItemsPerDay)
			}
		}
	}
	if all == 0 {
		return 0, 0
	}
	med := 0.0
	if len(rates) > 0 {
		slices.Sort(rates)
		med = rates[len(rates)/2]
		if len(rates)%2 == 0 {
			med = (rates[len(rates)/2-1] + rates[len(rates)/2]) / 2
		}
	}
	return float64(ok) / float64(all), med
}

// roundDuration prints a duration in days when it is at least two days,
// else in hours or minutes.
func roundDuration(d time.Duration) string {
	switch {
	case d >= 48*time.Hour:
		return fmt.Sprintf("%.0f days", d.Hours()/24)
	case d >= 2*time.Hour:
		return fmt.Sprintf("%.0f hours", d.Hours())
	}
	return d.Round(time.Minute).String()
}
