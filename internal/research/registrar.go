package research

import (
	"context"
	"sync"
	"time"

	"github.com/seedengine/seedengine"
)

// flushTimeout bounds one merged registration. It runs detached from the
// context of the call that leads it, because other calls wait for it.
const flushTimeout = time.Minute

// registrar merges concurrent domain registrations of one partition into
// one RegisterDomains call. The chunk jobs of a research batch all write
// the same partition at about the same time, and on SQLite every
// registration is a transaction on the one writer: merged, they share its
// statements and its commit instead of queueing one by one.
//
// At most one registration per partition is in flight. Calls arriving
// meanwhile join the next one, which the first of them leads once the
// flight lands; every call returns the error of the registration that
// carried its sightings.
//
// The leader does not give up with its context: the others' sightings
// ride on its registration, so it waits for the flight, registers with a
// context detached from its own (bounded by flushTimeout) and returns that
// registration's error. A call that joined gives up as soon as its context
// ends, returning ctx.Err(); its sightings are still registered by the
// leader, so a retry upserts them again.
type registrar struct {
	domains seedengine.DomainService

	mu    sync.Mutex
	parts map[seedengine.Partition]*partitionQueue
}

type partitionQueue struct {
	flight  chan struct{} // holds a token while a registration is in flight
	pending *registration // open for joining; nil when none
	users   int           // calls holding this queue, to drop it when idle
}

type registration struct {
	seen      time.Time
	sightings []seedengine.DomainSighting
	done      chan struct{}
	err       error
}

func newRegistrar(domains seedengine.DomainService) *registrar {
	return &registrar{domains: domains, parts: map[seedengine.Partition]*partitionQueue{}}
}

// register registers ds as seen in p at seen, merged with the concurrent
// calls for p.
func (r *registrar) register(ctx context.Context, p seedengine.Partition, seen time.Time, ds []seedengine.DomainSighting) error {
	r.mu.Lock()
	q := r.parts[p]
	if q == nil {
		q = &partitionQueue{flight: make(chan struct{}, 1)}
		r.parts[p] = q
	}
	q.users++
	reg := q.pending
	lead := reg == nil
	if lead {
		reg = &registration{done: make(chan struct{})}
		q.pending = reg
	}
	reg.sightings = append(reg.sightings, ds...)
	if seen.After(reg.seen) {
		reg.seen = seen
	}
	r.mu.Unlock()
	defer r.release(p, q)

	if lead {
		fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), flushTimeout)
		defer cancel()
		q.flight <- struct{}{} // wait for the registration in flight to land
		r.mu.Lock()
		q.pending = nil // closed: later calls start the next one
		r.mu.Unlock()
		reg.err = r.domains.RegisterDomains(fctx, p, reg.seen, reg.sightings)
		<-q.flight
		close(reg.done)
		return reg.err
	}
	select {
	case <-reg.done:
		return reg.err
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (r *registrar) release(p seedengine.Partition, q *partitionQueue) {
	r.mu.Lock()
	defer r.mu.Unlock()
	q.users--
	if q.users == 0 {
		delete(r.parts, p)
	}
}
