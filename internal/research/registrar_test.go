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

func TestRegistrarWaiterGivesUpWithItsContext(t *testing.T) {
	t.Parallel()
	d := &blockingDomains{started: make(chan struct{}, 10), release: make(chan error, 10)}
	r := newRegistrar(d)
	p := seedengine.Partition{Country: "sg", Category: "news", Date: "2026-01-28"}
	done := make(chan error, 1)
	go func() { done <- r.register(context.Background(), p, time.Now(), sighting(0)) }()
	<-d.started
	ctx, cancel := context.WithCancel(context.Background())
	waiter := make(chan error, 1)
	go func() { waiter <- r.register(ctx, p, time.Now(), sighting(1)) }()
	// The waiter leads the next registration; cancelled, it returns at
	// once while its registration still runs once the flight lands.
	require.Eventually(t, func() bool {
		r.mu.Lock()
		defer r.mu.Unlock()
		return r.parts[p].users == 2
	}, 5*time.Second, time.Millisecond)
	cancel()
	d.release <- nil
	<-d.started
	d.release <- nil
	require.NoError(t, <-done)
	err := <-waiter
	require.True(t, err == nil || errors.Is(err, context.Canceled), "%v", err)
	require.Len(t, d.calls, 2)
}
