package seedengine

import (
	"context"
	"time"
)

// Checks of promoted seeds (internal/seedcheck): a check is one look at a
// seed's entry, and a seed's health is what its recent checks show.

// SeedCheckOutcome is what one check of a seed found, in the terms its
// health is derived from.
type SeedCheckOutcome string

// Outcomes of a seed check.
const (
	// CheckOK: the entry answered 2xx and parsed as its fetch type, or
	// 304 Not Modified.
	CheckOK SeedCheckOutcome = "ok"
	// CheckMoved: the entry answered through a permanent redirect (301,
	// 308) to another URL, and the target parsed as its fetch type.
	CheckMoved SeedCheckOutcome = "moved"
	// CheckGone: 404 or 410, or the name does not resolve (NXDOMAIN).
	CheckGone SeedCheckOutcome = "gone"
	// CheckBlocked: 401, 403, 429 or a challenge page.
	CheckBlocked SeedCheckOutcome = "blocked"
	// CheckDisallowed: robots.txt disallows the entry for our agent;
	// nothing was fetched.
	CheckDisallowed SeedCheckOutcome = "disallowed"
	// CheckFailed: anything else (5xx, a timeout, a body that is not a
	// feed or sitemap).
	CheckFailed SeedCheckOutcome = "failed"
)

// SeedCheck is one look at a seed's entry.
type SeedCheck struct {
	// ID orders a seed's checks; set by the store.
	ID        int64            `json:"id,omitempty"`
	SeedID    string           `json:"seed_id"`
	CheckedAt time.Time        `json:"checked_at"`
	EntryURL  string           `json:"entry_url"`
	Outcome   SeedCheckOutcome `json:"outcome"`
	// Status is the final HTTP status; 0 when there was no HTTP answer.
	Status   int    `json:"status"`
	FinalURL string `json:"final_url,omitempty"`
	// MovedTo is where permanent redirects (301, 308 only) led, when that
	// differs from the entry URL by more than its spelling.
	MovedTo string `json:"moved_to,omitempty"`
	// CanonicalURL is where permanent redirects led when they only
	// respell the entry (http to https, "www." added or dropped, a
	// trailing slash): the seed stays healthy, raises no alert, and its
	// contract gets the spelling through a quiet proposal.
	CanonicalURL string `json:"canonical_url,omitempty"`
	NotModified  bool   `json:"not_modified,omitempty"`
	Bytes        int64  `json:"bytes"`
	LatencyMS    int64  `json:"latency_ms"`
	// Items is the number of feed items or sitemap URLs; Newest the newest
	// item date among them; NewItems how many are newer than the newest
	// item of the previous check. A 304 carries the previous figures over
	// with no new items.
	Items    int        `json:"items"`
	Newest   *time.Time `json:"newest,omitempty"`
	NewItems int        `json:"new_items"`
	// ItemsPerDay is the publishing rate the document itself shows: its
	// dated items over the span between the oldest and the newest; 0 when
	// fewer than two are dated.
	ItemsPerDay float64 `json:"items_per_day"`
	// Robots is robots.txt's verdict on the entry: allowed, disallowed or
	// unavailable (no robots.txt could be read: everything allowed).
	Robots string `json:"robots"`
	// Reason names the failure: nxdomain, timeout, http_404, challenge,
	// not_a_feed, … (fetch's reasons and http_NNN); empty when OK.
	Reason string `json:"reason,omitempty"`
	// ETag and LastModified are the validators the next check sends.
	ETag         string `json:"etag,omitempty"`
	LastModified string `json:"last_modified,omitempty"`
	// Harvested counts the entry's items this check recorded as items
	// (article URLs not seen before within the dedupe window; only an
	// active seed's checks harvest).
	Harvested int `json:"harvested"`
	// Unseen counts the entry's items the seed's previous read did not
	// list: new to this entry, whether or not another seed recorded them
	// first. The pace goes by it.
	Unseen int `json:"unseen"`
	// PossibleGap is set when a read after the seed's first found every
	// item of its entry new: items may have scrolled out of the entry
	// since the last read, unseen. The pace tightens.
	PossibleGap bool `json:"possible_gap,omitempty"`
	// ArrivalsPerHour is the seed's pace estimate after this check: new
	// items an hour.
	ArrivalsPerHour float64 `json:"arrivals_per_hour,omitempty"`
	// IntervalSeconds is the time to the next check this one chose.
	IntervalSeconds float64 `json:"interval_s,omitempty"`
	// LateSeconds is how long after its due time this read came (the
	// schedule round, a busy queue): the pace asks that much earlier.
	LateSeconds float64 `json:"late_s,omitempty"`
	// Repaired counts the items a repair read back from the seed's
	// archive (harvest.archive) after this read found a gap, RepairReads
	// the archive documents it read for them (one request each), and
	// RepairReason why a repair stopped short (a page that failed, the
	// page limit), empty when it found the last known item again.
	Repaired     int    `json:"repaired,omitempty"`
	RepairReads  int    `json:"repair_reads,omitempty"`
	RepairReason string `json:"repair_reason,omitempty"`
	// EstimatedMissed is, for a read that found its whole window new and
	// no archive made up for it, how many more items probably arrived
	// unseen: half a window, an estimate the pace counts as arrivals so
	// that a publisher whose bursts outrun its window is not taken for
	// one that posts a window at a time.
	EstimatedMissed int `json:"estimated_missed,omitempty"`
}

// ArrivalHistory is when the items new to a seed's entry appeared over
// the last days, oldest first (a dated item's publication time, else a
// time spread over the interval between the two reads that bracket its
// arrival), and the moment the history starts. The pace reads it
// (harvest.Pace): how many items arrive within an interval, bursts and
// all, not only on average.
type ArrivalHistory struct {
	Since time.Time
	Times []time.Time
}

// SeedHealthState is a seed's health.
type SeedHealthState string

// Seed health states.
const (
	// HealthUnknown: no check yet.
	HealthUnknown SeedHealthState = "unknown"
	// HealthHealthy: the last check read the entry, and its newest item is
	// as recent as the seed's publishing rate predicts.
	HealthHealthy SeedHealthState = "healthy"
	// HealthStale: the entry answers, but no new item for much longer than
	// the rate predicts.
	HealthStale SeedHealthState = "stale"
	// HealthFailing: the last few checks (3 by default) failed: 5xx,
	// timeouts, a body that no longer parses, or bad checks of mixed kinds.
	HealthFailing SeedHealthState = "failing"
	// HealthBlocked: the last few checks (2 by default) were refused
	// (401, 403, 429, a challenge page, robots.txt disallowing the entry).
	HealthBlocked SeedHealthState = "blocked"
	// HealthMoved: the last check reached the entry through a permanent
	// redirect to another URL, which answered as the seed's type.
	HealthMoved SeedHealthState = "moved"
	// HealthGone: the last few checks (2 by default) found 404, 410 or a
	// name that does not resolve.
	HealthGone SeedHealthState = "gone"
)

// SeedHealth is a seed's health as its recent checks show it.
type SeedHealth struct {
	State SeedHealthState `json:"state"`
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

// SeedCheckService reads seeds' checks and health.
type SeedCheckService interface {
	// FindSeedChecks returns a seed's checks newest first: at most limit,
	// with an ID below before when before > 0, none older than since when
	// since is not zero.
	FindSeedChecks(ctx context.Context, seedID string, before int64, since time.Time, limit int) ([]SeedCheck, error)
	// FindSeedChecksWithHealth is FindSeedChecks (no since) with
	// FindSeedHealth's answer, both as of one moment, so a page never
	// shows a check without the health it made.
	FindSeedChecksWithHealth(ctx context.Context, seedID string, before int64, limit int) ([]SeedCheck, SeedHealth, time.Time, error)
	// FindSeedHealth returns a seed's health and when its next check is
	// due; HealthUnknown and a zero time when it was never checked.
	FindSeedHealth(ctx context.Context, seedID string) (SeedHealth, time.Time, error)
	// CountSeedHealth counts the active and suspended seeds by health
	// state; never checked ones are HealthUnknown.
	CountSeedHealth(ctx context.Context) (map[SeedHealthState]int, error)
}

// SeedCheckEnqueuer queues a check of a seed to run now.
type SeedCheckEnqueuer interface {
	// EnqueueSeedCheck returns the check's job id, and false when a check
	// of the seed was already waiting or running (that job's id).
	EnqueueSeedCheck(ctx context.Context, seedID string) (int64, bool, error)
}

// SeedHealthChange is a seed's health turning from one state to another:
// what an alert says.
type SeedHealthChange struct {
	SeedID string          `json:"seed_id"`
	From   SeedHealthState `json:"from"`
	To     SeedHealthState `json:"to"`
	Reason string          `json:"reason,omitempty"`
	// At is the time of the check that made the change.
	At time.Time `json:"at"`
	// CheckID is that check.
	CheckID int64 `json:"check_id"`
	// MovedTo is where the check's permanent redirects led (a change to
	// moved).
	MovedTo string `json:"moved_to,omitempty"`
	// Pages are the items of the check whose pages are to be fetched (the
	// seed's harvest.pages): their fetch jobs are queued with the check.
	Pages []int64 `json:"pages,omitempty"`
}

// Alerting reports whether a change is worth an alert: every change but
// a never-checked seed turning healthy.
func (c SeedHealthChange) Alerting() bool {
	return c.From != c.To && !(c.From == HealthUnknown && c.To == HealthHealthy)
}

// Drifting reports whether a change calls for a new contract run (a drift
// proposal): the seed turned moved, gone, failing or stale.
func (c SeedHealthChange) Drifting() bool {
	if c.From == c.To {
		return false
	}
	switch c.To {
	case HealthMoved, HealthGone, HealthFailing, HealthStale:
		return true
	}
	return false
}
