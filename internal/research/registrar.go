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
//
// It also remembers what it registered lately, per partition, at one time
// of sighting: a research batch's chunks all see at the batch's time, so a
// domain that several chunks name is registered with the first and then
// left out (registering it again would change nothing, as a sighting only
// widens first_seen and last_seen and nothing removes a domain or a
// link). At most maxRecent sightings are remembered across partitions
// (the partitions called least lately are forgotten first), and a
// partition's are forgotten after recentFor without a call.
type registrar struct {
	domains seedengine.DomainService
	now     func() time.Time

	mu     sync.Mutex
	parts  map[seedengine.Partition]*partitionQueue
	recent map[seedengine.Partition]*recentSightings
	nrec   int // sightings in recent
}

// recentSightings are the sightings of a partition registered at seen.
type recentSightings struct {
	seen time.Time
	used time.Time // the last call for the partition
	set  map[seedengine.DomainSighting]struct{}
}

const (
	// maxRecent bounds the sightings remembered: a 10,000-URL batch names
	// at most 10,000 domains; about 100 bytes each.
	maxRecent = 20_000
	// recentFor is how long a partition's sightings are remembered after
	// its last call.
	recentFor = time.Minute
)

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
	return &registrar{domains: domains, now: time.Now,
		parts: map[seedengine.Partition]*partitionQueue{}, recent: map[seedengine.Partition]*recentSightings{}}
}

// register registers ds as seen in p at seen, merged with the concurrent
// calls for p, leaving out what it registered lately.
func (r *registrar) register(ctx context.Context, p seedengine.Partition, seen time.Time, ds []seedengine.DomainSighting) error {
	r.mu.Lock()
	ds = r.unregistered(p, seen, ds)
	if len(ds) == 0 {
		r.mu.Unlock()
		return nil
	}
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
		if reg.err == nil {
			r.remember(p, reg.seen, reg.sightings)
		}
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

// unregistered returns ds less the sightings of p registered lately at
// seen; r.mu must be held. It forgets partitions idle for recentFor.
func (r *registrar) unregistered(p seedengine.Partition, seen time.Time, ds []seedengine.DomainSighting) []seedengine.DomainSighting {
	now := r.now()
	for k, rec := range r.recent {
		if now.Sub(rec.used) > recentFor {
			r.nrec -= len(rec.set)
			delete(r.recent, k)
		}
	}
	rec := r.recent[p]
	if rec == nil || !rec.seen.Equal(seen) {
		return ds
	}
	rec.used = now
	out := ds[:0:0]
	for _, d := range ds {
		if _, ok := rec.set[d]; !ok {
			out = append(out, d)
		}
	}
	return out
}

// remember notes ds as registered in p at seen. A partition remembers one
// time of sighting: the batch whose chunks are running.
func (r *registrar) remember(p seedengine.Partition, seen time.Time, ds []seedengine.DomainSighting) {
	r.mu.Lock()
	defer r.mu.Unlock()
	rec := r.recent[p]
	if rec == nil || !rec.seen.Equal(seen) {
		if rec != nil {
			r.nrec -= len(rec.set)
		}
		rec = &recentSightings{seen: seen, set: map[seedengine.DomainSighting]struct{}{}}
		r.recent[p] = rec
	}
	rec.used = r.now()
	// Room is made by forgetting the partitions called least lately.
	for r.nrec+len(ds) > maxRecent {
		var oldest seedengine.Partition
		var found *recentSightings
		for k, o := range r.recent {
			if o != rec && (found == nil || o.used.Before(found.used)) {
				oldest, found = k, o
			}
		}
		if found == nil {
			break
		}
		r.nrec -= len(found.set)
		delete(r.recent, oldest)
	}
	for _, d := range ds {
		if r.nrec >= maxRecent {
			return
		}
		if _, ok := rec.set[d]; !ok {
			rec.set[d] = struct{}{}
			r.nrec++
		}
	}
}
