package harvest

import (
	"math"
	"time"
)

// An entry shows its newest items only (a feed its last 20, a news
// sitemap its last two days): an item that arrives and scrolls out
// between two reads is never seen. The pace reads a seed often enough
// that a read expects to find Fill of its window new, from the rate at
// which new items have been arriving.

// PaceConfig bounds the pace. The zero value takes the defaults noted.
type PaceConfig struct {
	// Min and Max bound the time between two reads: defaults 5 min and
	// 24 h.
	Min, Max time.Duration
	// Fill is the share of the entry's window a read should expect to
	// find new: default 0.8, so reads are 1.25 times the fewest that see
	// every item of a steady publisher, with room for one that speeds up.
	Fill float64
	// Lag is how late a read comes after the time it was due (the
	// schedule round, the queue, the politeness wait): the pace asks that
	// much earlier, at most half the interval. Default 0.
	Lag time.Duration
	// First is the longest wait after a seed's first read when the
	// entry's dates cannot tell its rate (undated, one item): the second
	// read observes one. Default three times Min (15 min).
	First time.Duration
}

func (c PaceConfig) withDefaults() PaceConfig {
	if c.Min <= 0 {
		c.Min = 5 * time.Minute
	}
	if c.Max <= 0 {
		c.Max = 24 * time.Hour
	}
	c.Max = max(c.Max, c.Min)
	if c.Fill <= 0 || c.Fill > 1 {
		c.Fill = 0.8
	}
	if c.First <= 0 {
		c.First = 3 * c.Min
	}
	return c
}

// PaceInput is what one read tells the pace.
type PaceInput struct {
	// Window is the number of items the entry shows now; New how many of
	// them this read found new.
	Window, New int
	// First is set on the seed's first harvesting read: everything is new
	// then, and says nothing of the rate.
	First bool
	// Elapsed is the time since the previous harvesting read.
	Elapsed time.Duration
	// PrevRate is the estimate of new items an hour before this read;
	// PrevInterval the interval the previous read chose (0: none).
	PrevRate     float64
	PrevInterval time.Duration
	// PrevFirst is set when the previous read was the first: PrevRate is
	// then the entry's dates' guess, and this read's observation replaces
	// it rather than averaging with it.
	PrevFirst bool
	// DocRate is the items an hour the entry's own dates show, 0 when it
	// cannot tell (undated, one item): the first read's estimate.
	DocRate float64
	// Gap is set when this read found its whole window new.
	Gap bool
	// CrawlDelay is robots.txt's Crawl-delay for the host: never read
	// faster.
	CrawlDelay time.Duration
}

// Pace returns the time to the next read and the rate estimate (new items
// an hour) it follows from.
func Pace(cfg PaceConfig, in PaceInput) (time.Duration, float64) {
	cfg = cfg.withDefaults()
	rate := in.PrevRate
	switch {
	case in.First:
		rate = in.DocRate
	case in.Elapsed > 0:
		observed := float64(in.New) / in.Elapsed.Hours()
		if rate <= 0 || in.PrevFirst {
			rate = observed
		} else {
			rate = (rate + observed) / 2
		}
		if in.Gap {
			// More arrived than the window held: what was seen is a floor.
			rate = max(rate, 2*observed, 2*in.PrevRate)
		}
	}
	if math.IsNaN(rate) || math.IsInf(rate, 0) || rate < 0 {
		rate = 0
	}

	var interval time.Duration
	switch {
	case rate > 0 && in.Window > 0:
		hours := cfg.Fill * float64(in.Window) / rate
		interval = cfg.Max
		if hours < cfg.Max.Hours() {
			interval = time.Duration(hours * float64(time.Hour))
		}
	case in.PrevInterval > 0:
		// Nothing new for a while: back off.
		interval = min(2*in.PrevInterval, cfg.Max)
	default:
		interval = time.Hour
	}
	if in.First && in.DocRate <= 0 {
		// No dates to go by: look again soon, and learn the rate.
		interval = min(interval, cfg.First)
	}
	if in.Gap && in.PrevInterval > 0 {
		interval = min(interval, in.PrevInterval/2)
	}
	// Asked early by the lag, but never more than half the interval:
	// reads that come late because the queue is busy must not make it
	// busier without bound.
	interval -= min(cfg.Lag, interval/2)
	interval = min(max(interval, cfg.Min, in.CrawlDelay), cfg.Max)
	return interval, rate
}
