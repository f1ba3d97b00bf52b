package simweb

import (
	"hash/fnv"
	"math/rand/v2"
	"sort"
	"time"
)

// Pattern is when a Publisher's articles appear, beyond an even spread:
// what real newsrooms do. Every field adds to the others; the zero value
// is the even spread of PerDay articles a day.
type Pattern struct {
	// Poisson spaces the PerDay articles at random (exponential gaps
	// with the even spread's mean), as independent stories arrive.
	Poisson bool
	// BurstEvery, when set, adds a burst about every BurstEvery (each
	// gap drawn from half to one and a half times it): BurstSize articles
	// within BurstSpan (default one minute), as a newsroom posting a
	// morning batch, a live blog or breaking news does.
	BurstEvery time.Duration
	BurstSize  int
	BurstSpan  time.Duration
	// DailyBatch, when set, adds that many articles at DailyAt past
	// midnight (UTC) of every simulated day, within BurstSpan: a
	// morning edition.
	DailyBatch int
	DailyAt    time.Duration
}

func (p Pattern) zero() bool { return p == Pattern{} }

// schedule generates a Pattern's publication times in order, as far as
// asked, from a random source seeded by the host: the same publisher
// publishes at the same times in every run.
type schedule struct {
	rng       *rand.Rand
	pattern   Pattern
	gap       time.Duration // mean gap of the steady part; 0: none
	epoch     time.Time
	nextBase  time.Time // next steady article
	nextBurst time.Time // next burst's start
	nextDaily time.Time // next daily batch
	pending   []time.Time
	last      time.Time
	horizon   time.Time // generated through
}

func newSchedule(host string, perDay float64, pattern Pattern, epoch time.Time) *schedule {
	h := fnv.New64a()
	_, _ = h.Write([]byte(host))
	seed := h.Sum64()
	s := &schedule{rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), pattern: pattern, epoch: epoch}
	if perDay > 0 {
		s.gap = time.Duration(float64(24*time.Hour) / perDay)
		s.nextBase = epoch.Add(s.drawGap())
	}
	if pattern.BurstEvery > 0 && pattern.BurstSize > 0 {
		s.nextBurst = epoch.Add(s.jitter(pattern.BurstEvery))
	}
	if pattern.DailyBatch > 0 {
		s.nextDaily = epoch.Truncate(24 * time.Hour).Add(pattern.DailyAt)
		if s.nextDaily.Before(epoch) {
			s.nextDaily = s.nextDaily.Add(24 * time.Hour)
		}
	}
	return s
}

func (s *schedule) drawGap() time.Duration {
	if !s.pattern.Poisson {
		return s.gap
	}
	return time.Duration(s.rng.ExpFloat64() * float64(s.gap))
}

// jitter is d times a factor drawn from [0.5, 1.5).
func (s *schedule) jitter(d time.Duration) time.Duration {
	return time.Duration((0.5 + s.rng.Float64()) * float64(d))
}

func (s *schedule) span() time.Duration {
	if s.pattern.BurstSpan > 0 {
		return s.pattern.BurstSpan
	}
	return time.Minute
}

// batch adds n articles spread at random within the span from start.
func (s *schedule) batch(start time.Time, n int) {
	for range n {
		s.pending = append(s.pending, start.Add(time.Duration(s.rng.Float64()*float64(s.span()))))
	}
}

// until appends to times every publication time up to t (and a little
// past it: a burst is generated whole), each after the one before.
func (s *schedule) until(t time.Time, times []time.Time) []time.Time {
	for {
		// The earliest source next; a burst's articles wait in pending,
		// sorted, until nothing earlier can come.
		next := time.Time{}
		for _, c := range []time.Time{s.nextBase, s.nextBurst, s.nextDaily} {
			if !c.IsZero() && (next.IsZero() || c.Before(next)) {
				next = c
			}
		}
		sort.Slice(s.pending, func(i, j int) bool { return s.pending[i].Before(s.pending[j]) })
		for len(s.pending) > 0 && (next.IsZero() || !s.pending[0].After(next)) {
			times = s.emit(times, s.pending[0])
			s.pending = s.pending[1:]
		}
		if next.IsZero() || next.After(t) {
			// Nothing more due by t; what is pending falls later.
			for len(s.pending) > 0 && !s.pending[0].After(t) {
				times = s.emit(times, s.pending[0])
				s.pending = s.pending[1:]
			}
			return times
		}
		switch next {
		case s.nextBase:
			s.pending = append(s.pending, s.nextBase)
			s.nextBase = s.nextBase.Add(max(s.drawGap(), time.Millisecond))
		case s.nextBurst:
			s.batch(s.nextBurst, s.pattern.BurstSize)
			s.nextBurst = s.nextBurst.Add(s.jitter(s.pattern.BurstEvery))
		default:
			s.batch(s.nextDaily, s.pattern.DailyBatch)
			s.nextDaily = s.nextDaily.Add(24 * time.Hour)
		}
	}
}

// emit appends at, moved a millisecond past the last time if it is not
// after it: no two articles appear at once, so each was the newest, and
// listed, at some moment.
func (s *schedule) emit(times []time.Time, at time.Time) []time.Time {
	if !at.After(s.last) {
		at = s.last.Add(time.Millisecond)
	}
	s.last = at
	return append(times, at)
}

// scheduled is how many of a patterned publisher's articles are out by t.
func (p *Publisher) scheduled(t time.Time) int {
	p.gmu.Lock()
	defer p.gmu.Unlock()
	p.extend(t)
	return sort.Search(len(p.times), func(i int) bool { return p.times[i].After(t) })
}

// timeOf is when a patterned publisher's article i appears (zero for a
// pattern that never publishes that many).
func (p *Publisher) timeOf(i int) time.Time {
	p.gmu.Lock()
	defer p.gmu.Unlock()
	for len(p.times) <= i {
		if p.gen != nil && p.gen.nextBase.IsZero() && p.gen.nextBurst.IsZero() && p.gen.nextDaily.IsZero() && len(p.gen.pending) == 0 {
			return time.Time{}
		}
		horizon := p.Clock.Epoch
		if p.gen != nil {
			horizon = p.gen.horizon
		}
		p.extend(horizon.Add(time.Hour))
	}
	return p.times[i]
}

// extend generates the schedule through t; callers hold gmu.
func (p *Publisher) extend(t time.Time) {
	if p.gen == nil {
		p.gen = newSchedule(p.Host, p.PerDay, p.Pattern, p.Clock.Epoch)
	}
	if t.After(p.gen.horizon) {
		p.times = p.gen.until(t, p.times)
		p.gen.horizon = t
	}
}
