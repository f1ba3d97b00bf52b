package research

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine"
)

// blockingDomains records RegisterDomains calls; each call waits for a
// value on release, which says what it returns.
type blockingDomains struct {
	seedengine.DomainService
	mu      sync.Mutex
	calls   [][]seedengine.DomainSighting
	started chan struct{}
	release chan error
}

func (d *blockingDomains) RegisterDomains(_ context.Context, _ seedengine.Partition, _ time.Time, ds []seedengine.DomainSighting) error {
	d.mu.Lock()
	d.calls = append(d.calls, ds)
	d.mu.Unlock()
	d.started <- struct{}{}
	return <-d.release
}

func sighting(i int) []seedengine.DomainSighting {
	return []seedengine.DomainSighting{{ID: fmt.Sprintf("gov:sg:site%d.gov.sg", i)}}
}

func TestRegistrarMergesCallsWhileOneIsInFlight(t *testing.T) {
	t.Parallel()
	d := &blockingDomains{started: make(chan struct{}, 10), release: make(chan error, 10)}
	r := newRegistrar(d)
	p := seedengine.Partition{Country: "sg", Category: "news", Date: "2026-01-28"}
	ctx := context.Background()

	errs := make(chan error, 10)
	go func() { errs <- r.register(ctx, p, time.Now(), sighting(0)) }()
	<-d.started // the first registration is in flight

	for i := 1; i <= 5; i++ {
		go func() { errs <- r.register(ctx, p, time.Now(), sighting(i)) }()
	}
	// The five wait for the flight; let them all queue up.
	require.Eventually(t, func() bool {
		r.mu.Lock()
		defer r.mu.Unlock()
		return r.parts[p] != nil && r.parts[p].users == 6
	}, 5*time.Second, time.Millisecond)

	d.release <- nil // first flight lands
	<-d.started      // the five go as one
	failure := errors.New("database is gone")
	d.release <- failure

	var got []error
	for range 6 {
		got = append(got, <-errs)
	}
	require.ElementsMatch(t, []error{nil, failure, failure, failure, failure, failure}, got)
	require.Len(t, d.calls, 2)
	require.Len(t, d.calls[0], 1)
	require.Len(t, d.calls[1], 5)

	r.mu.Lock()
	require.Empty(t, r.parts, "idle partitions are dropped")
	r.mu.Unlock()
}

func TestRegistrarPartitionsAreIndependent(t *testing.T) {
	t.Parallel()
	d := &blockingDomains{started: make(chan struct{}, 10), release: make(chan error, 10)}
	r := newRegistrar(d)
	ctx := context.Background()
	errs := make(chan error, 2)
	go func() {
		errs <- r.register(ctx, seedengine.Partition{Country: "sg", Category: "news", Date: "2026-01-28"}, time.Now(), sighting(1))
	}()
	<-d.started
	go func() {
		errs <- r.register(ctx, seedengine.Partition{Country: "jp", Category: "news", Date: "2026-01-28"}, time.Now(), sighting(2))
	}()
	<-d.started // a second partition does not wait for the first
	d.release <- nil
	d.release <- nil
	require.NoError(t, <-errs)
	require.NoError(t, <-errs)
}

// A cancelled leader still carries its registration through: the
// sightings of the calls that joined it depend on it. It returns that
// registration's result, not its context's error.
func TestRegistrarLeaderFinishesDespiteItsContext(t *testing.T) {
	t.Parallel()
	d := &blockingDomains{started: make(chan struct{}, 10), release: make(chan error, 10)}
	r := newRegistrar(d)
	p := seedengine.Partition{Country: "sg", Category: "news", Date: "2026-01-28"}
	done := make(chan error, 1)
	go func() { done <- r.register(context.Background(), p, time.Now(), sighting(0)) }()
	<-d.started
	ctx, cancel := context.WithCancel(context.Background())
	leader := make(chan error, 1)
	go func() { leader <- r.register(ctx, p, time.Now(), sighting(1)) }()
	require.Eventually(t, func() bool {
		r.mu.Lock()
		defer r.mu.Unlock()
		return r.parts[p].users == 2
	}, 5*time.Second, time.Millisecond)
	cancel()
	select {
	case err := <-leader:
		t.Fatalf("the leader returned (%v) before its registration ran", err)
	case <-time.After(50 * time.Millisecond):
	}
	d.release <- nil
	<-d.started // the cancelled leader's registration runs
	d.release <- nil
	require.NoError(t, <-done)
	require.NoError(t, <-leader, "the leader reports its registration, which succeeded")
	require.Len(t, d.calls, 2)
	require.Equal(t, sighting(1), d.calls[1])
}

// A call that joined another's registration gives up as soon as its
// context ends, while the flight is still blocked; its sightings are
// registered all the same.
func TestRegistrarJoinerGivesUpWithItsContext(t *testing.T) {
	t.Parallel()
	d := &blockingDomains{started: make(chan struct{}, 10), release: make(chan error, 10)}
	r := newRegistrar(d)
	p := seedengine.Partition{Country: "sg", Category: "news", Date: "2026-01-28"}
	ctx := context.Background()
	first := make(chan error, 1)
	go func() { first <- r.register(ctx, p, time.Now(), sighting(0)) }()
	<-d.started
	leader := make(chan error, 1)
	go func() { leader <- r.register(ctx, p, time.Now(), sighting(1)) }()
	require.Eventually(t, func() bool {
		r.mu.Lock()
		defer r.mu.Unlock()
		return r.parts[p].users == 2
	}, 5*time.Second, time.Millisecond)
	jctx, cancel := context.WithCancel(ctx)
	joiner := make(chan error, 1)
	go func() { joiner <- r.register(jctx, p, time.Now(), sighting(2)) }()
	require.Eventually(t, func() bool {
		r.mu.Lock()
		defer r.mu.Unlock()
		return r.parts[p].users == 3
	}, 5*time.Second, time.Millisecond)
	cancel()
	select {
	case err := <-joiner:
		require.ErrorIs(t, err, context.Canceled)
	case <-time.After(5 * time.Second):
		t.Fatal("the joiner did not give up with its context")
	}
	d.mu.Lock()
	require.Len(t, d.calls, 1, "the flight has not landed yet")
	d.mu.Unlock()

	d.release <- nil
	<-d.started
	d.release <- nil
	require.NoError(t, <-first)
	require.NoError(t, <-leader)
	require.Len(t, d.calls, 2)
	require.Equal(t, append(sighting(1), sighting(2)...), d.calls[1], "the joiner's sightings are registered")
}

// countingDomains records the sightings of each RegisterDomains call.
type countingDomains struct {
	seedengine.DomainService
	mu    sync.Mutex
	calls [][]seedengine.DomainSighting
	fail  error
}

func (d *countingDomains) RegisterDomains(_ context.Context, _ seedengine.Partition, _ time.Time, ds []seedengine.DomainSighting) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.calls = append(d.calls, append([]seedengine.DomainSighting(nil), ds...))
	return d.fail
}

// A sighting registered lately in a partition at the same time is left
// out; another time, another partition, a failed registration or a
// minute of quiet registers it again.
func TestRegistrarLeavesOutWhatItRegisteredLately(t *testing.T) {
	t.Parallel()
	d := &countingDomains{}
	r := newRegistrar(d)
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	r.now = func() time.Time { return now }
	ctx := t.Context()
	p := seedengine.Partition{Country: "sg", Category: "news", Date: "2026-11-29"}
	p2 := seedengine.Partition{Country: "sg", Category: "news", Date: "2026-11-30"}
	t1, t2 := now.Add(-time.Hour), now.Add(-time.Minute)
	a, b := sighting(1)[0], sighting(2)[0]

	require.NoError(t, r.register(ctx, p, t1, []seedengine.DomainSighting{a}))
	require.NoError(t, r.register(ctx, p, t1, []seedengine.DomainSighting{a, b}))
	require.NoError(t, r.register(ctx, p, t1, []seedengine.DomainSighting{b, a}))
	require.Equal(t, [][]seedengine.DomainSighting{{a}, {b}}, d.calls, "each sighting once")

	ruled := a
	ruled.AuthorityRule = "suffix:gov.sg"
	require.NoError(t, r.register(ctx, p, t1, []seedengine.DomainSighting{ruled}))
	require.NoError(t, r.register(ctx, p2, t1, []seedengine.DomainSighting{a}))
	require.NoError(t, r.register(ctx, p, t2, []seedengine.DomainSighting{a}))
	require.Len(t, d.calls, 5, "a new rule, another partition, another time are registered")

	d.fail = errors.New("down")
	require.Error(t, r.register(ctx, p, t2, []seedengine.DomainSighting{b}))
	d.fail = nil
	require.NoError(t, r.register(ctx, p, t2, []seedengine.DomainSighting{b}))
	require.Len(t, d.calls, 7, "a failed registration is not remembered")

	now = now.Add(recentFor + time.Second)
	require.NoError(t, r.register(ctx, p, t2, []seedengine.DomainSighting{b}))
	require.Len(t, d.calls, 8, "forgotten after a quiet minute")
}

// Past maxRecent the partitions called least lately are forgotten.
func TestRegistrarRemembersAtMostMaxRecent(t *testing.T) {
	t.Parallel()
	d := &countingDomains{}
	r := newRegistrar(d)
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	r.now = func() time.Time { return now }
	many := func(tag string, n int) []seedengine.DomainSighting {
		out := make([]seedengine.DomainSighting, n)
		for i := range out {
			out[i] = seedengine.DomainSighting{ID: fmt.Sprintf("gov:sg:%s%d.gov.sg", tag, i)}
		}
		return out
	}
	p := seedengine.Partition{Country: "sg", Category: "news", Date: "2026-11-29"}
	p2 := seedengine.Partition{Country: "sg", Category: "news", Date: "2026-11-30"}
	first, second := many("a", maxRecent/2+1), many("b", maxRecent/2+1)
	require.NoError(t, r.register(t.Context(), p, now, first))
	now = now.Add(time.Second)
	require.NoError(t, r.register(t.Context(), p2, now, second))
	require.LessOrEqual(t, r.nrec, maxRecent)
	require.NoError(t, r.register(t.Context(), p2, now, second))
	require.NoError(t, r.register(t.Context(), p, now.Add(-time.Second), first[:1]))
	require.Len(t, d.calls, 3, "the partition called last is remembered, the other forgotten")
}
