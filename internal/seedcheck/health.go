package seedcheck

import (
	"fmt"
	"slices"
	"time"
)

// State is a seed's health.
type State string

// Health states.
const (
	// StateUnknown: no check yet.
	StateUnknown State = "unknown"
	// StateHealthy: the last check read the entry, and its newest item is
	// as recent as the seed's publishing rate predicts.
	StateHealthy State = "healthy"
	// StateStale: the entry answers, but no new item for much longer than
	// the rate predicts.
	StateStale State = "stale"
	// StateFailing: the last Thresholds.FailingAfter checks failed (5xx,
	// timeouts, a body that no longer parses).
	StateFailing State = "failing"
	// StateBlocked: the last Thresholds.BlockedAfter checks were refused
	// (401, 403, 429, a challenge page, robots.txt disallowing the entry).
	StateBlocked State = "blocked"
	// StateMoved: the last check reached the entry through a permanent
	// redirect to another URL, which answered as the seed's type.
	StateMoved State = "moved"
	// StateGone: the last Thresholds.GoneAfter checks found 404, 410 or a
	// name that does not resolve.
	StateGone State = "gone"
)

// Health is a seed's health as its recent checks show it.
type Health struct {
	State State `json:"state"`
	// Since is when the seed entered State: the time of the first check
	// of the run that put it there.
	Since  *time.Time `json:"since,omitempty"`
	Reason string     `json:"reason,omitempty"`
	// LastCheckAt is the newest check's time.
	LastCheckAt *time.Time `json:"last_check_at,omitempty"`
	// SuccessRate7d is the share of the checks of the last 7 days that read
	// the entry (ok or moved); 0 when there were none.
	SuccessRate7d float64 `json:"success_rate_7d"`
	// MedianItemsPerDay is the median of the publishing rates the checks
	// of the last 7 days saw.
	MedianItemsPerDay float64 `json:"median_items_per_day"`
}

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
func Derive(checks []Check, prev Health, now time.Time, th Thresholds) Health {
	th = th.withDefaults()
	h := Health{State: StateUnknown}
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
func judge(checks []Check, now time.Time, th Thresholds) (State, string, time.Time) {
	bad := badState(checks[0].Outcome)
	if bad != "" {
		if n := run(checks, bad); n >= threshold(bad, th) {
			return bad, checks[0].Reason, checks[n-1].CheckedAt
		}
		// Bad checks of mixed kinds in a row count as failures.
		m := run(checks, StateFailing)
		if m >= th.FailingAfter {
			return StateFailing, checks[0].Reason, checks[m-1].CheckedAt
		}
		// Too few in a row yet: the state of the checks before the run.
		if m < len(checks) {
			return judge(checks[m:], now, th)
		}
		return StateUnknown, "", checks[len(checks)-1].CheckedAt
	}
	c := checks[0]
	if c.Outcome == OutcomeMoved {
		n := run(checks, StateMoved)
		return StateMoved, "permanent redirect to " + c.MovedTo, checks[n-1].CheckedAt
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
				if o.Outcome != OutcomeOK || o.Newest == nil || !o.Newest.Equal(*c.Newest) || o.CheckedAt.Sub(*c.Newest) <= limit {
					break
				}
				since = o.CheckedAt
			}
			return StateStale, fmt.Sprintf("no new item for %s (expected one at least every %s)", roundDuration(age), roundDuration(limit)), since
		}
	}
	n := 0
	for _, o := range checks {
		if o.Outcome != OutcomeOK {
			break
		}
		n++
	}
	return StateHealthy, "", checks[n-1].CheckedAt
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
func badState(o Outcome) State {
	switch o {
	case OutcomeGone:
		return StateGone
	case OutcomeBlocked, OutcomeDisallowed:
		return StateBlocked
	case OutcomeFailed:
		return StateFailing
	}
	return ""
}

func threshold(s State, th Thresholds) int {
	switch s {
	case StateGone:
		return th.GoneAfter
	case StateBlocked:
		return th.BlockedAfter
	}
	return th.FailingAfter
}

// run counts the leading checks that count toward s. A failing run
// counts every bad outcome (a seed that is gone on one check and times out
// on the next is failing), the others only their own.
func run(checks []Check, s State) int {
	n := 0
	for _, c := range checks {
		b := badState(c.Outcome)
		switch {
		case s == StateMoved && c.Outcome == OutcomeMoved:
		case s == StateFailing && b != "":
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
func window(checks []Check, now time.Time) (float64, float64) {
	from := now.Add(-7 * 24 * time.Hour)
	var ok, all int
	var rates []float64
	for _, c := range checks {
		if c.CheckedAt.Before(from) {
			break
		}
		all++
		if c.Outcome == OutcomeOK || c.Outcome == OutcomeMoved {
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
