package sqlstore

import "sync"

// Grouper runs calls in groups: the calls that arrive while a group is
// being written make the next one, up to Max. A call that arrives when
// nothing is being written is written at once, on its caller's goroutine;
// the groups that queue meanwhile are left to a goroutine, so that no
// caller writes other callers' groups for as long as they keep coming.
// The SQLite group commit (groupCommitter) and the queue's grouped chunk
// writes on PostgreSQL (internal/jobs) are its users.
type Grouper[T any] struct {
	// Write writes a group, setting each call's outcome in it. Set
	// before the first Do.
	Write func(group []T)
	// Max bounds a group's size.
	Max int

	mu      sync.Mutex
	queue   []groupCall[T]
	running bool // a group is being written
}

type groupCall[T any] struct {
	v  T
	ok chan struct{}
}

// Do writes v in a group and returns once the group is written.
func (g *Grouper[T]) Do(v T) {
	c := groupCall[T]{v: v, ok: make(chan struct{})}
	g.mu.Lock()
	g.queue = append(g.queue, c)
	if g.running {
		g.mu.Unlock()
		<-c.ok
		return
	}
	g.running = true
	g.mu.Unlock()
	g.writeNext()
	g.mu.Lock()
	if len(g.queue) > 0 {
		go g.drain()
	} else {
		g.running = false
	}
	g.mu.Unlock()
	<-c.ok
}

// drain writes the queued calls until none is left.
func (g *Grouper[T]) drain() {
	for g.writeNext() {
	}
}

// writeNext writes the first Max queued calls together and reports
// whether there were any; with none it marks the grouper idle.
func (g *Grouper[T]) writeNext() bool {
	g.mu.Lock()
	n := min(len(g.queue), max(g.Max, 1))
	if n == 0 {
		g.running = false
		g.mu.Unlock()
		return false
	}
	calls := g.queue[:n:n]
	g.queue = g.queue[n:]
	if len(g.queue) == 0 {
		g.queue = nil
	}
	g.mu.Unlock()
	group := make([]T, n)
	for i, c := range calls {
		group[i] = c.v
	}
	g.Write(group)
	for _, c := range calls {
		close(c.ok)
	}
	return true
}

// queued is how many calls wait for a group, for tests.
func (g *Grouper[T]) queued() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.queue)
}
