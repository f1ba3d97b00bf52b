package harvest

import (
	"math"
	"math/rand/v2"
	"sort"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine"
)

var paceEpoch = time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC)

// arrivals makes a history of span: steady Poisson arrivals at perHour
// and, every burstEvery (jittered by half), burst items within a minute.
func arrivals(seed uint64, span time.Duration, perHour float64, burstEvery time.Duration, burst int) seedengine.ArrivalHistory {
	r := rand.New(rand.NewPCG(seed, 7))
	var ts []time.Time
	if perHour > 0 {
		for t := paceEpoch; ; {
			t = t.Add(time.Duration(r.ExpFloat64() / perHour * float64(time.Hour)))
			if t.After(paceEpoch.Add(span)) {
				break
			}
			ts = append(ts, t)
		}
	}
	if burstEvery > 0 {
		for t := paceEpoch.Add(burstEvery / 2); t.Before(paceEpoch.Add(span)); t = t.Add(time.Duration((0.5 + r.Float64()) * float64(burstEvery))) {
			for range burst {
				if at := t.Add(time.Duration(r.Float64() * float64(time.Minute))); !at.After(paceEpoch.Add(span)) {
					ts = append(ts, at)
				}
			}
		}
	}
	sort.Slice(ts, func(i, j int) bool { return ts[i].Before(ts[j]) })
	return seedengine.ArrivalHistory{Since: paceEpoch, Times: ts}
}

// lostShare is what a reader every iv would lose of h's items with a
// window of w and capacity beyond it: the share of the items that
// arrive while more than w+capacity did since the last read, at a
// random phase (averaged over 64).
func lostShare(h seedengine.ArrivalHistory, iv time.Duration, w int) float64 {
	lost, total := 0, 0
	for k := range 64 {
		phase := time.Duration(float64(k) / 64 * float64(iv))
		j := 0
		for t := h.Since.Add(phase + iv); !t.After(h.Times[len(h.Times)-1]); t = t.Add(iv) {
			n := sort.Search(len(h.Times), func(i int) bool { return h.Times[i].After(t) })
			if n-j > w {
				lost += n - j - w
			}
			total += n - j
			j = n
		}
	}
	return float64(lost) / float64(total)
}

// A steady publisher is read at the longest interval after which its
// window overflows in under Loss of the cases: a little more often than
// the window turns over on average, and it loses (next to) nothing.
func TestPaceSteady(t *testing.T) {
	t.Parallel()
	h := arrivals(1, 3*24*time.Hour, 60, 0, 0) // 60 an hour, window 20: turns over every 20 min
	now := paceEpoch.Add(3 * 24 * time.Hour)
	iv, rate := Pace(PaceConfig{}, PaceInput{Window: 20, History: h, Now: now})
	require.InDelta(t, 60, rate, 3)
	require.Greater(t, iv, 8*time.Minute)
	require.Less(t, iv, 20*time.Minute)
	require.LessOrEqual(t, newHistory(h.Times, h.Since, now).share(iv, 20), 0.01)
	require.Less(t, lostShare(h, iv, 20), 0.005, "under half a percent of the items")
}

// A publisher that posts two windows in a minute every ten minutes and
// little between: a quiet last read changes nothing (the history keeps
// the bursts); no affordable interval keeps its window from overflowing,
// so it is read as often as a read still saves an item (here, more often
// than the budget: each burst loses a window to a slow reader); with a
// paged archive it is read about once a window's worth, and what
// overflows is repaired.
func TestPaceBursty(t *testing.T) {
	t.Parallel()
	h := arrivals(2, 3*24*time.Hour, 6, 10*time.Minute, 40) // window 20: bursts of two windows
	now := paceEpoch.Add(3 * 24 * time.Hour)
	hist := newHistory(h.Times, h.Since, now)
	rate := hist.rate()
	fewest := time.Duration(20 / rate * float64(time.Hour))

	iv, _ := Pace(PaceConfig{}, PaceInput{Window: 20, History: h, Now: now, PrevInterval: time.Minute})
	require.Greater(t, hist.share(fewest/4, 20), 0.01, "the budget does not keep the window from overflowing")
	require.Less(t, iv, fewest/2)
	// Reads and lost items, a read worth an item: reading more often or
	// less often costs more.
	cost := func(d time.Duration) float64 { return 1/d.Hours() + lostShare(h, d, 20)*rate }
	require.LessOrEqual(t, cost(iv), 1.1*cost(iv*7/10), "%v against %v", iv, iv*7/10)
	require.LessOrEqual(t, cost(iv), 1.1*cost(iv*14/10), "%v against %v", iv, iv*14/10)

	// The same after a read that found nothing: the history decides.
	iv2, _ := Pace(PaceConfig{}, PaceInput{Window: 20, History: h, Now: now.Add(5 * time.Minute), PrevInterval: iv})
	require.InDelta(t, float64(iv), float64(iv2), float64(iv)/5)

	paged := PaceInput{Window: 20, History: h, Now: now, Archive: ArchiveCapacity(seedengine.ArchivePagedFeed, 20, 10),
		Repair: RepairCost(seedengine.ArchivePagedFeed)}
	iv3, _ := Pace(PaceConfig{}, paged)
	require.LessOrEqual(t, iv3, fewest)
	require.LessOrEqual(t, hist.share(iv3, 20+200), 0.01, "what a repair cannot read back stays under Loss")
	require.Less(t, lostShare(h, iv3, 220), 0.001)
	require.Greater(t, iv3, iv, "an archive makes reading for the bursts needless")
}

// The bounds: Min, Max, the Crawl-delay; a history with nothing in it
// backs off; the first read goes by the entry's dates, or looks again
// soon without them.
func TestPaceBounds(t *testing.T) {
	t.Parallel()
	now := paceEpoch.Add(24 * time.Hour)
	busy := arrivals(3, 24*time.Hour, 3000, 0, 0)
	iv, _ := Pace(PaceConfig{}, PaceInput{Window: 10, History: busy, Now: now})
	require.Equal(t, 30*time.Second, iv, "Min")
	iv, _ = Pace(PaceConfig{}, PaceInput{Window: 10, History: busy, Now: now, CrawlDelay: 2 * time.Minute})
	require.Equal(t, 2*time.Minute, iv, "Crawl-delay")

	empty := seedengine.ArrivalHistory{Since: paceEpoch}
	iv, rate := Pace(PaceConfig{}, PaceInput{Window: 10, History: empty, Now: now, PrevInterval: time.Hour})
	require.Zero(t, rate)
	require.Equal(t, 2*time.Hour, iv)
	iv, _ = Pace(PaceConfig{}, PaceInput{Window: 10, History: empty, Now: now, PrevInterval: 20 * time.Hour})
	require.Equal(t, 24*time.Hour, iv, "Max")

	iv, _ = Pace(PaceConfig{}, PaceInput{Window: 20, History: seedengine.ArrivalHistory{Since: now}, Now: now, First: true, DocRate: 10})
	require.Equal(t, 96*time.Minute, iv, "0.8 of the window at the dates' rate")
	iv, _ = Pace(PaceConfig{}, PaceInput{Window: 20, History: seedengine.ArrivalHistory{Since: now}, Now: now, First: true})
	require.Equal(t, 2*time.Minute, iv)

	// A gap without an archive, while the history is short, halves the
	// interval.
	short := seedengine.ArrivalHistory{Since: now.Add(-time.Hour), Times: []time.Time{now.Add(-30 * time.Minute), now.Add(-10 * time.Minute)}}
	iv, _ = Pace(PaceConfig{}, PaceInput{Window: 20, History: short, Now: now, Gap: true, PrevInterval: 40 * time.Minute})
	require.Equal(t, 20*time.Minute, iv)
	// The lag is asked early, at most half the interval.
	iv, _ = Pace(PaceConfig{Lag: time.Hour}, PaceInput{Window: 20, History: short, Now: now, Gap: true, PrevInterval: 40 * time.Minute})
	require.Equal(t, 10*time.Minute, iv)
}

// share is exact: the phases at which more than c items fall within an
// interval, worked out by hand.
func TestShare(t *testing.T) {
	t.Parallel()
	at := func(m int) time.Time { return paceEpoch.Add(time.Duration(m) * time.Minute) }
	h := newHistory([]time.Time{at(10), at(11), at(50)}, at(0), at(100))
	// More than 1 item in (t, t+5m]: t in [11-5, 10) = [6, 10): 4 of 95 minutes.
	require.InDelta(t, 4.0/95, h.share(5*time.Minute, 1), 1e-9)
	// More than 0: [5,10) ∪ [6,11) ∪ [45,50) = [5,11) ∪ [45,50): 11 of 95.
	require.InDelta(t, 11.0/95, h.share(5*time.Minute, 0), 1e-9)
	require.Zero(t, h.share(5*time.Minute, 2))
	require.Equal(t, 2, h.count(int64(9*time.Minute), int64(11*time.Minute)))
	require.False(t, math.IsNaN(newHistory(nil, at(0), at(0)).share(time.Minute, 0)))
}

// mean is exact: what sampling many phases finds.
func TestMeanIsExact(t *testing.T) {
	t.Parallel()
	h := arrivals(2, 24*time.Hour, 6, 10*time.Minute, 40)
	hist := newHistory(h.Times, h.Since, paceEpoch.Add(24*time.Hour))
	for _, iv := range []time.Duration{30 * time.Second, 2 * time.Minute, 7 * time.Minute} {
		const phases = 20000
		total := hist.span - iv
		sum := 0
		for k := range phases {
			at := int64((float64(k) + 0.5) / phases * float64(total))
			sum += max(hist.count(at, at+int64(iv))-20, 0)
		}
		require.InDelta(t, float64(sum)/phases, hist.meanOverflow(iv, 20), 0.05, "%v", iv)
	}
}
