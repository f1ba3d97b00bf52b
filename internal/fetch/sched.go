package fetch

import (
	"context"
	"sync"
	"time"
)

// crawlDelayTTL is how long an idle host keeps a robots Crawl-delay set with
// SetCrawlDelay before its entry may be evicted. Contract runs fetch a
// domain's robots.txt and then its sitemaps and feeds within seconds; a
// host seen again after this long will have its robots.txt read again.
const crawlDelayTTL = 10 * time.Minute

// minSweep is the host-table size below which no sweep runs.
const minSweep = 256

// scheduler enforces politeness: one exchange in flight per host, a minimum
// delay between exchanges to one host, and a global limit of exchanges in
// flight. It keeps no goroutine per host: waiters queue on their host entry
// and the releasing goroutine hands the slot to the first of them. Idle
// entries are evicted by a sweep that runs whenever the table has doubled
// since the last one, so the table stays within twice the number of hosts
// that are busy, cooling down or carrying a crawl delay.
type scheduler struct {
	mu      sync.Mutex
	hosts   map[string]*hostState
	sweepAt int
	delay   time.Duration // the default per-host delay
	global  chan struct{} // counting semaphore of exchanges in flight
	parked  chan struct{} // counting semaphore of exchanges waiting parked
	now     func() time.Time
}

// hostState is the politeness state of one host.
type hostState struct {
	busy       bool            // a holder owns the host slot
	waiters    []chan struct{} // FIFO; closing one hands it the slot
	next       time.Time       // earliest start of the next exchange
	crawlDelay time.Duration   // robots Crawl-delay, when larger than the default
	lastEnd    time.Time       // end of the last exchange that reached the server
	lastUsed   time.Time

	// The host's line as Book sees it: places held for requests to be
	// made soon, the last time a caller sent away was told to come back,
	// and how long an exchange with the host takes (a moving average,
	// from the holder's start to its release).
	booked     int
	deferUntil time.Time
	started    time.Time
	exchange   time.Duration
}

func newScheduler(concurrency, parkLimit int, delay time.Duration) *scheduler {
	return &scheduler{
		hosts:   make(map[string]*hostState),
		sweepAt: minSweep,
		delay:   delay,
		global:  make(chan struct{}, concurrency),
		parked:  make(chan struct{}, parkLimit),
		now:     time.Now,
	}
}

// slot is a held host slot and a global (or parked) slot; release gives
// both back.
type slot struct {
	s     *scheduler
	h     *hostState
	mu    sync.Mutex
	state slotState
}

type slotState int

const (
	slotGlobal   slotState = iota // holds a global slot
	slotParked                    // gave it up for a parked one
	slotReleased                  // gave everything back
)

// park trades the global slot for a parked one, when one is free: the
// exchange is waiting on its host, and the next exchange may start. Its
// host slot stays held.
func (sl *slot) park() {
	sl.mu.Lock()
	defer sl.mu.Unlock()
	if sl.state != slotGlobal {
		return
	}
	select {
	case sl.s.parked <- struct{}{}:
		<-sl.s.global
		sl.state = slotParked
	default:
	}
}

// entry returns the state of host, creating it; s.mu must be held.
func (s *scheduler) entry(host string) *hostState {
	if h, ok := s.hosts[host]; ok {
		return h
	}
	if len(s.hosts) >= s.sweepAt {
		s.sweep(s.now())
		s.sweepAt = max(2*len(s.hosts), minSweep)
	}
	h := &hostState{}
	s.hosts[host] = h
	return h
}

// sweep removes entries that carry no information any more: no holder, no
// waiter, cooled down, and no crawl delay still worth remembering.
func (s *scheduler) sweep(now time.Time) {
	for k, h := range s.hosts {
		if h.busy || len(h.waiters) > 0 || now.Before(h.next) || h.booked > 0 || now.Before(h.deferUntil) {
			continue
		}
		if h.crawlDelay > 0 && now.Sub(h.lastUsed) < crawlDelayTTL {
			continue
		}
		delete(s.hosts, k)
	}
}

// acquire waits for host's turn (FIFO behind other requests to it), then
// for its delay to pass, then for a global slot. On error (the context
// ended) nothing is held.
func (s *scheduler) acquire(ctx context.Context, host string) (*slot, error) {
	s.mu.Lock()
	h := s.entry(host)
	if h.busy {
		ch := make(chan struct{})
		h.waiters = append(h.waiters, ch)
		s.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			s.mu.Lock()
			for i, w := range h.waiters {
				if w == ch {
					h.waiters = append(h.waiters[:i], h.waiters[i+1:]...)
					s.mu.Unlock()
					return nil, ctx.Err()
				}
			}
			s.mu.Unlock()
			// The slot was handed to us as the context ended: pass it on.
			s.handOff(h, false, time.Time{})
			return nil, ctx.Err()
		}
	} else {
		h.busy = true
		s.mu.Unlock()
	}

	// The host slot is ours. Wait for its delay, reading it again after
	// each wait because SetCrawlDelay may have raised it meanwhile.
	for {
		s.mu.Lock()
		wait := h.next.Sub(s.now())
		s.mu.Unlock()
		if wait <= 0 {
			break
		}
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			s.handOff(h, false, time.Time{})
			return nil, ctx.Err()
		}
	}

	select {
	case s.global <- struct{}{}:
	case <-ctx.Done():
		s.handOff(h, false, time.Time{})
		return nil, ctx.Err()
	}
	s.mu.Lock()
	h.started = s.now()
	s.mu.Unlock()
	return &slot{s: s, h: h}, nil
}

// release gives the slot back. reached says whether a server was reached,
// which starts the host's delay; notBefore, when later, pushes the host's
// next exchange further (a Retry-After). Only the first call counts.
func (sl *slot) release(reached bool, notBefore time.Time) {
	sl.mu.Lock()
	state := sl.state
	sl.state = slotReleased
	sl.mu.Unlock()
	switch state {
	case slotGlobal:
		<-sl.s.global
	case slotParked:
		<-sl.s.parked
	default:
		return
	}
	sl.s.handOff(sl.h, reached, notBefore)
}

// handOff ends a holder's turn on h and gives the host slot to the next
// waiter, if any.
func (s *scheduler) handOff(h *hostState, reached bool, notBefore time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	if reached && !h.started.IsZero() {
		if d := now.Sub(h.started); h.exchange == 0 {
			h.exchange = d
		} else {
			h.exchange += (d - h.exchange) / 4
		}
	}
	h.started = time.Time{}
	if reached {
		h.lastEnd = now
		if next := now.Add(max(s.delay, h.crawlDelay)); next.After(h.next) {
			h.next = next
		}
	}
	if notBefore.After(h.next) {
		h.next = notBefore
	}
	h.lastUsed = now
	if len(h.waiters) > 0 {
		ch := h.waiters[0]
		h.waiters[0] = nil
		h.waiters = h.waiters[1:]
		if len(h.waiters) == 0 {
			h.waiters = nil
		}
		close(ch)
		return
	}
	h.busy = false
}

// book is Client.Book: the host's entry with a place held in its line,
// or nil and how long to come back after.
func (s *scheduler) book(host string, horizon time.Duration, again bool) (*hostState, time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	h := s.entry(host)
	h.lastUsed = now
	pace := max(s.delay, h.crawlDelay) + h.exchange
	ahead := len(h.waiters)
	if h.busy {
		ahead++
	}
	ahead = max(ahead, h.booked)
	start := now
	if h.next.After(start) {
		start = h.next
	}
	start = start.Add(time.Duration(ahead) * pace)
	if start.Sub(now) <= horizon {
		h.booked++
		return h, 0
	}
	// Back when the turn is within the horizon, less a pace for the
	// queue's lateness; a first refusal also comes back after every
	// caller sent away before it, one pace apart, so that they return
	// one by one rather than all at once.
	back := start.Add(pace - horizon)
	if !again {
		if next := h.deferUntil.Add(pace); back.Before(next) {
			back = next
		}
		h.deferUntil = back
	}
	return nil, max(back.Sub(now), time.Millisecond)
}

// unbook gives back a place book held.
func (s *scheduler) unbook(h *hostState) {
	s.mu.Lock()
	defer s.mu.Unlock()
	h.booked--
}

// setCrawlDelay records a host's robots Crawl-delay; d ≤ 0 clears it. It
// also applies to the gap after the exchange that just ended (typically the
// robots.txt fetch that told us the delay).
func (s *scheduler) setCrawlDelay(host string, d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	h := s.entry(host)
	h.crawlDelay = max(d, 0)
	h.lastUsed = s.now()
	if !h.lastEnd.IsZero() {
		if next := h.lastEnd.Add(h.crawlDelay); next.After(h.next) {
			h.next = next
		}
	}
}

// size returns the number of host entries, for tests.
func (s *scheduler) size() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.hosts)
}
