package harvest

import (
	"math"
	"sort"
	"time"

	"github.com/seedengine/seedengine"
)

// An entry shows its newest items only (a feed its last 20, a news
// sitemap its last two days): an item that arrives and scrolls out
// between two reads is never seen, unless the publisher's archive gives
// it back. The pace reads a seed as seldom as it can while keeping the
// chance of that low, from the seed's arrival history (when each item
// new to its entry appeared over the last days), not from a mean: a
// publisher that posts twenty items in a minute every ten minutes and
// nothing in between is read for its bursts, however quiet the last
// read was.
//
// For an interval I, the history says what share of the reads I apart
// (at any phase) would have found more than c items arrived since the
// one before: share(I, c). A seed without an archive is read at the
// longest I whose share(I, window) stays under PaceConfig.Loss, but
// never more often than Budget times the fewest reads that see every
// item at the average rate (a publisher whose bursts outrun its window
// within seconds cannot be followed by reading, only by its archive). A
// seed with an archive can lose only what overflows the window and what
// a repair reads back, so it is read at the I that asks the fewest
// requests an hour (reads, and the repairs they need) among those whose
// share(I, window+archive) stays under Loss, and at least once per
// window's worth of items.

// PaceConfig bounds the pace. The zero value takes the defaults noted.
type PaceConfig struct {
	// Min and Max bound the time between two reads: defaults 30 s and
	// 24 h. A seed's robots.txt Crawl-delay raises Min for it.
	Min, Max time.Duration
	// Loss bounds the share of intervals after which an item could be
	// lost: default 0.01.
	Loss float64
	// Budget is how many times the fewest reads that see every item at
	// the average rate a seed without an archive may be read to keep its
	// window from overflowing (under Loss): default 4. Past it, the seed
	// is read as often as a read saves ReadWorth items.
	Budget float64
	// ReadWorth is how many items a read must save on average, beyond
	// the budget: default 1.
	ReadWorth float64
	// Lag is how late a read comes after the time it was due (the
	// schedule round, the queue, the politeness wait): the pace asks that
	// much earlier, at most half the interval. Default 0.
	Lag time.Duration
	// First is the longest wait after a seed's first read when its
	// entry's dates cannot tell the rate (undated, one item): the second
	// read observes one. Default 2 min.
	First time.Duration
}

func (c PaceConfig) withDefaults() PaceConfig {
	if c.Min <= 0 {
		c.Min = 30 * time.Second
	}
	if c.Max <= 0 {
		c.Max = 24 * time.Hour
	}
	c.Max = max(c.Max, c.Min)
	if c.Loss <= 0 || c.Loss >= 1 {
		c.Loss = 0.01
	}
	if c.Budget < 1 {
		c.Budget = 4
	}
	if c.ReadWorth <= 0 {
		c.ReadWorth = 1
	}
	if c.First <= 0 {
		c.First = 2 * time.Minute
	}
	return c
}

// PaceInput is what one read tells the pace.
type PaceInput struct {
	// Window is the number of items the entry shows now.
	Window int
	// History is when the items new to the entry arrived over the last
	// days, this read's included.
	History seedengine.ArrivalHistory
	// Now is the read's time.
	Now time.Time
	// First is set on the seed's first harvesting read.
	First bool
	// DocRate is the items an hour the entry's own dates show, 0 when it
	// cannot tell: the estimate while the history is too short.
	DocRate float64
	// Gap is set when this read found its whole window new.
	Gap bool
	// Archive is how many items beyond the window a repair can read
	// back (ArchiveCapacity); 0 for a seed without an archive.
	Archive int
	// Repair is what a repair costs in requests when count items arrived
	// between two reads (RepairCost); nil when there is no archive.
	Repair func(count, window int) int
	// PrevInterval is the interval the previous read chose (0: none).
	PrevInterval time.Duration
	// CrawlDelay is robots.txt's Crawl-delay for the host: never read
	// faster.
	CrawlDelay time.Duration
}

// Pace returns the time to the next read and the arrival rate (items an
// hour) it follows from.
func Pace(cfg PaceConfig, in PaceInput) (time.Duration, float64) {
	cfg = cfg.withDefaults()
	h := newHistory(in.History.Times, in.History.Since, in.Now)
	rate := h.rate()
	if rate <= 0 && in.First {
		rate = in.DocRate
	}
	if math.IsNaN(rate) || math.IsInf(rate, 0) || rate < 0 {
		rate = 0
	}
	w := max(in.Window, 1)

	var interval time.Duration
	switch {
	case rate <= 0 && in.PrevInterval > 0:
		// Nothing arrived over the whole history: back off.
		interval = 2 * in.PrevInterval
	case rate <= 0:
		interval = cfg.First
	case len(h.t) < minHistory || h.span < 2*cfg.Min:
		// Too little history to tell bursts from a steady flow: the
		// rate, taken high (a Poisson upper bound: one arrival seen in
		// two minutes may well be five), with room to spare.
		if span := h.span; span > 0 && len(h.t) > 0 {
			n := float64(len(h.t))
			rate = max(rate, (n+2+2*math.Sqrt(n+1))/span.Hours())
		}
		interval = hours(0.8 * float64(w) / rate)
		if in.First && in.DocRate <= 0 {
			interval = min(interval, cfg.First)
		}
	case in.Archive > 0:
		interval = h.cheapest(cfg, w, in.Archive, in.Repair, rate)
	default:
		fewest := hours(float64(w) / rate)
		interval = min(h.longest(cfg, w, cfg.Loss, rate), fewest)
		if interval < time.Duration(float64(fewest)/cfg.Budget) {
			// Bursts outrun the window: no affordable interval keeps it
			// from overflowing. Read as often as a read still saves
			// ReadWorth items on average.
			interval = h.worthwhile(cfg, w, fewest)
		}
	}
	if in.Gap && in.Archive <= 0 && in.PrevInterval > 0 && len(h.t) < minHistory {
		// Items may have been lost, and too little history says how
		// many arrive: look again soon.
		interval = min(interval, in.PrevInterval/2)
	}
	// Asked early by the lag, but never more than half the interval:
	// reads that come late because the queue is busy must not make it
	// busier without bound.
	interval -= min(cfg.Lag, interval/2)
	interval = min(max(interval, cfg.Min, in.CrawlDelay), cfg.Max)
	return interval, rate
}

// minHistory is the fewest arrivals whose spread the pace trusts.
const minHistory = 10

// hours is a duration of h hours, capped to what a Duration holds.
func hours(h float64) time.Duration {
	if h >= float64(math.MaxInt64)/float64(time.Hour) {
		return time.Duration(math.MaxInt64)
	}
	return time.Duration(h * float64(time.Hour))
}

// ArchiveCapacity is how many items beyond the window a repair from an
// archive of kind k can read back, with pages of window items and at
// most maxPages read: a paged feed's pages, a news sitemap's two days
// (unbounded here: its limit is time, which the pace's Max stays well
// under), daily sitemaps' days (likewise).
func ArchiveCapacity(k seedengine.ArchiveKind, window, maxPages int) int {
	switch k {
	case seedengine.ArchivePagedFeed:
		return window * maxPages
	case seedengine.ArchiveNewsSitemap, seedengine.ArchiveDailySitemaps:
		return math.MaxInt32
	}
	return 0
}

// RepairCost is the requests a repair from an archive of kind k takes
// when count items arrived between two reads of an entry of window
// items: none when they fit the window; a paged feed's pages until the
// last known item is found again (and the page after a full one); one
// news sitemap; a sitemap index and the day's sitemap.
func RepairCost(k seedengine.ArchiveKind) func(count, window int) int {
	return func(count, window int) int {
		if count <= window {
			return 0
		}
		switch k {
		case seedengine.ArchivePagedFeed:
			return (count-window)/max(window, 1) + 1
		case seedengine.ArchiveNewsSitemap:
			return 1
		default:
			return 2
		}
	}
}

// history is an arrival history as the pace reads it: the arrival times
// as nanoseconds after since, sorted, within [0, span]. Plain integers,
// not time.Time: the sweeps below run over thousands of times for each
// of some hundred intervals at every read.
type history struct {
	t    []int64
	span time.Duration
}

func newHistory(times []time.Time, since, now time.Time) history {
	h := history{t: make([]int64, 0, len(times)), span: max(now.Sub(since), 0)}
	for _, at := range times {
		d := int64(at.Sub(since))
		if d >= 0 && d <= int64(h.span) {
			h.t = append(h.t, d)
		}
	}
	return h
}

// rate is the items an hour over the whole history.
func (h history) rate() float64 {
	if h.span <= 0 {
		return 0
	}
	return float64(len(h.t)) / h.span.Hours()
}

// share is the share of the phases t in [0, span-I] at which more than c
// items arrived in (t, t+I]: the chance that a read I after the one
// before found its window overflowed by more than c. Exact: more than c
// items in (t, t+I] is t in [a[j+c]-I, a[j]) for some j, and those
// intervals, in order of j, are merged as they come.
func (h history) share(iv time.Duration, c int) float64 {
	total := int64(h.span - iv)
	if total <= 0 || c < 0 {
		return 0
	}
	d := int64(iv)
	var covered, curStart, curEnd int64
	open := false
	for j := 0; j+c < len(h.t); j++ {
		start := max(h.t[j+c]-d, 0)
		end := min(h.t[j], total)
		if end <= start {
			continue
		}
		if open && start <= curEnd {
			curEnd = max(curEnd, end)
			continue
		}
		if open {
			covered += curEnd - curStart
		}
		curStart, curEnd, open = start, end, true
	}
	if open {
		covered += curEnd - curStart
	}
	return float64(covered) / float64(total)
}

// longest is the longest interval, between cfg.Min and cfg.Max, whose
// share of overflows past c stays within loss. Past half the history
// the history cannot tell: the rate decides there, with room to spare.
func (h history) longest(cfg PaceConfig, c int, loss, rate float64) time.Duration {
	lo, hi := cfg.Min, min(cfg.Max, h.span/2)
	if hi <= lo || h.share(lo, c) > loss {
		return lo
	}
	if h.share(hi, c) <= loss {
		return max(hi, min(cfg.Max, hours(0.8*float64(c)/rate)))
	}
	for range 30 {
		mid := lo + (hi-lo)/2
		if h.share(mid, c) <= loss {
			lo = mid
		} else {
			hi = mid
		}
		if hi-lo < time.Second {
			break
		}
	}
	return lo
}

// cheapest is the interval of a seed with an archive: among the
// intervals whose overflow past window+archive stays within cfg.Loss,
// and at most one window's worth of items apart (an item waits no longer
// than the window takes to turn over), the one that asks the fewest
// requests an hour, repairs included.
func (h history) cheapest(cfg PaceConfig, window, archive int, repair func(int, int) int, rate float64) time.Duration {
	capacity := window + archive
	if archive >= math.MaxInt32-window {
		capacity = math.MaxInt32
	}
	top := min(hours(float64(window)/rate), h.longest(cfg, capacity, cfg.Loss, rate))
	return cheapestOf(cfg.Min, top, func(iv time.Duration) float64 {
		return (1 + h.meanRepair(iv, window, repair, rate)) / iv.Hours()
	})
}

// worthwhile is the interval of a seed whose bursts outrun its window
// (no affordable interval keeps it from overflowing): among intervals
// from cfg.Min to the fewest reads' (a window's worth of items apart),
// the one that loses the fewest items an hour, each read costing
// ReadWorth items. A publisher whose bursts are twice its window is
// then read often, one whose bursts barely pass it little.
func (h history) worthwhile(cfg PaceConfig, window int, fewest time.Duration) time.Duration {
	return cheapestOf(cfg.Min, fewest, func(iv time.Duration) float64 {
		return (cfg.ReadWorth + h.meanOverflow(iv, window)) / iv.Hours()
	})
}

// cheapestOf is the interval from lo to hi (at least lo) of the lowest
// cost an hour, on a geometric grid of 32 steps; of two that cost about
// the same, the longer (fewer reads for the same cost).
func cheapestOf(lo, hi time.Duration, cost func(time.Duration) float64) time.Duration {
	hi = max(hi, lo)
	best, bestCost := hi, math.Inf(1)
	ratio := math.Pow(float64(hi)/float64(lo), 1.0/31)
	for i := range 32 {
		iv := time.Duration(float64(lo) * math.Pow(ratio, float64(i)))
		if i == 31 || iv > hi {
			iv = hi
		}
		if c := cost(iv); c <= bestCost*1.0001 {
			best, bestCost = iv, c
		}
	}
	return best
}

// meanOverflow is the mean number of items past the window that arrive
// between two reads I apart, over every phase of the history.
func (h history) meanOverflow(iv time.Duration, window int) float64 {
	return h.mean(iv, func(n int) float64 { return float64(max(n-window, 0)) })
}

// meanRepair is the mean requests of the repair a read I after the one
// before needs, over every phase of the history (or, with too little of
// it, at the average rate).
func (h history) meanRepair(iv time.Duration, window int, repair func(int, int) int, rate float64) float64 {
	if repair == nil {
		return 0
	}
	if h.span <= iv {
		return float64(repair(int(math.Round(rate*iv.Hours())), window))
	}
	return h.mean(iv, func(n int) float64 { return float64(repair(n, window)) })
}

// mean is the mean of f(N(t)) over the phases t in [0, span-I], N(t)
// the arrivals in (t, t+I]: exact, by a sweep over the points where N
// changes (arrival a enters at t = a-I and leaves at t = a).
func (h history) mean(iv time.Duration, f func(int) float64) float64 {
	d := int64(iv)
	hi := int64(h.span) - d
	if hi <= 0 {
		return 0
	}
	n := h.count(0, d)
	// The next to enter (a-I > 0) and the next to leave (a > 0).
	i := sort.Search(len(h.t), func(k int) bool { return h.t[k]-d > 0 })
	j := sort.Search(len(h.t), func(k int) bool { return h.t[k] > 0 })
	var sum float64
	var at int64
	for at < hi {
		next := hi
		if i < len(h.t) && h.t[i]-d < next {
			next = h.t[i] - d
		}
		if j < len(h.t) && h.t[j] < next {
			next = h.t[j]
		}
		sum += f(n) * float64(next-at)
		at = next
		for i < len(h.t) && h.t[i]-d <= at {
			n++
			i++
		}
		for j < len(h.t) && h.t[j] <= at {
			n--
			j++
		}
	}
	return sum / float64(hi)
}

// count is how many arrivals fall in (from, to], in nanoseconds of the
// history.
func (h history) count(from, to int64) int {
	i := sort.Search(len(h.t), func(k int) bool { return h.t[k] > from })
	j := sort.Search(len(h.t), func(k int) bool { return h.t[k] > to })
	return j - i
}
