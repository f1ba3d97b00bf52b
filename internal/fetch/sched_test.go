package fetch

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// fakeClock is a settable clock for the scheduler's bookkeeping.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

func TestSchedulerEvictsIdleHosts(t *testing.T) {
	t.Parallel()
	clock := &fakeClock{t: time.Now()}
	s := newScheduler(4, 4, time.Second)
	s.now = clock.now
	ctx := t.Context()

	s.setCrawlDelay("robots.test", 5*time.Second)
	for i := range 10_000 {
		sl, err := s.acquire(ctx, fmt.Sprintf("h%d.test", i))
		require.NoError(t, err)
		sl.release(true, time.Time{})
		if i%100 == 99 {
			clock.add(2 * time.Second) // the hosts of the last round cooled down
		}
	}
	require.Less(t, s.size(), 2*minSweep, "the table holds hosts in use, not hosts ever seen")
	s.mu.Lock()
	_, kept := s.hosts["robots.test"]
	s.mu.Unlock()
	require.True(t, kept, "a crawl delay is remembered while fresh")

	clock.add(crawlDelayTTL)
	for i := range 2 * minSweep {
		sl, err := s.acquire(ctx, fmt.Sprintf("late%d.test", i))
		require.NoError(t, err)
		sl.release(false, time.Time{})
	}
	s.mu.Lock()
	_, kept = s.hosts["robots.test"]
	s.mu.Unlock()
	require.False(t, kept, "and forgotten after a long idleness")
}

func TestSchedulerNeverEvictsBusyHosts(t *testing.T) {
	t.Parallel()
	s := newScheduler(1000, 1000, 0)
	ctx := t.Context()
	held, err := s.acquire(ctx, "busy.test")
	require.NoError(t, err)
	for i := range 3 * minSweep {
		sl, err := s.acquire(ctx, fmt.Sprintf("h%d.test", i))
		require.NoError(t, err)
		sl.release(true, time.Time{})
	}
	// A second request to the busy host must queue behind the holder.
	got := make(chan struct{})
	go func() {
		sl, err := s.acquire(ctx, "busy.test")
		if err == nil {
			sl.release(true, time.Time{})
		}
		close(got)
	}()
	select {
	case <-got:
		t.Fatal("a second holder got a busy host")
	case <-time.After(20 * time.Millisecond):
	}
	held.release(true, time.Time{})
	<-got
}

func TestSchedulerCanceledWaiterLeavesQueue(t *testing.T) {
	t.Parallel()
	s := newScheduler(10, 10, 0)
	held, err := s.acquire(t.Context(), "q.test")
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(t.Context())
	errc := make(chan error)
	go func() {
		_, err := s.acquire(ctx, "q.test")
		errc <- err
	}()
	for {
		s.mu.Lock()
		n := len(s.hosts["q.test"].waiters)
		s.mu.Unlock()
		if n == 1 {
			break
		}
		time.Sleep(time.Millisecond)
	}
	cancel()
	require.ErrorIs(t, <-errc, context.Canceled)
	held.release(true, time.Time{})
	s.mu.Lock()
	h := s.hosts["q.test"]
	require.False(t, h.busy)
	require.Empty(t, h.waiters)
	s.mu.Unlock()
	require.Len(t, s.global, 0, "no global slot leaked")
}

// A parked exchange gives its global slot to the next host's but keeps
// its host busy; parking stops at the park limit; a release gives back
// what the slot holds.
func TestSchedulerPark(t *testing.T) {
	t.Parallel()
	s := newScheduler(1, 1, 0)
	slow, err := s.acquire(t.Context(), "slow.test")
	require.NoError(t, err)
	slow.park()
	require.Len(t, s.global, 0, "the global slot is free again")
	require.Len(t, s.parked, 1)

	next, err := s.acquire(t.Context(), "next.test")
	require.NoError(t, err, "the next host is asked meanwhile")
	next.park() // the park limit is reached: it keeps its global slot
	require.Len(t, s.global, 1)
	require.Len(t, s.parked, 1)

	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	_, err = s.acquire(ctx, "slow.test")
	require.ErrorIs(t, err, context.DeadlineExceeded, "the parked host stays busy")

	slow.release(true, time.Time{})
	slow.release(true, time.Time{}) // only the first counts
	require.Len(t, s.parked, 0)
	next.release(true, time.Time{})
	require.Len(t, s.global, 0)
}

// Book holds a place for requests whose turn at the host is within the
// horizon, counting those in flight, waiting and booked before them a
// pace apart (the delay plus the host's usual exchange time); it sends
// the others away, each to a later time than the one before, one pace
// apart; a caller sent away before comes back to its own turn; and a
// place given back counts no more.
func TestSchedulerBook(t *testing.T) {
	t.Parallel()
	clock := &fakeClock{t: time.Now()}
	s := newScheduler(4, 4, time.Second)
	s.now = clock.now
	ctx := t.Context()

	// One exchange that took 200 ms: the host's pace is 1.2 s.
	sl, err := s.acquire(ctx, "busy.test")
	require.NoError(t, err)
	clock.add(200 * time.Millisecond)
	sl.release(true, time.Time{})

	// The next turn is 1 s off; 4 s of horizon holds that one and the
	// two after it (2.2 s, 3.4 s), not a fourth (4.6 s).
	var held []*hostState
	for range 3 {
		h, wait := s.book("busy.test", 4*time.Second, false)
		require.NotNil(t, h)
		require.Zero(t, wait)
		held = append(held, h)
	}
	_, first := s.book("busy.test", 4*time.Second, false)
	// Back when its turn (4.6 s) is within the horizon less a pace.
	require.Equal(t, 4600*time.Millisecond+1200*time.Millisecond-4*time.Second, first)
	_, second := s.book("busy.test", 4*time.Second, false)
	require.Equal(t, first+1200*time.Millisecond, second, "the next one sent away comes back a pace later")
	_, again := s.book("busy.test", 4*time.Second, true)
	require.Equal(t, first, again, "one sent away before is not put behind the others")

	// Another host's line is its own.
	h, wait := s.book("idle.test", 4*time.Second, false)
	require.NotNil(t, h)
	require.Zero(t, wait)

	// Places given back make room.
	for _, h := range held {
		s.unbook(h)
	}
	h, wait = s.book("busy.test", 4*time.Second, false)
	require.NotNil(t, h)
	require.Zero(t, wait)

	// An entry with a place held or callers sent away is not swept.
	clock.add(time.Minute)
	s.mu.Lock()
	s.sweep(clock.now().Add(-30 * time.Second))
	_, kept := s.hosts["busy.test"]
	s.mu.Unlock()
	require.True(t, kept)
}
