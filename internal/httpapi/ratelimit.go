package httpapi

import (
	"math"
	"net/http"
	"strconv"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/seedengine/seedengine"
)

// maxLimiters bounds the limiter map when many clients are active at
// once; below it, idle entries are dropped on a schedule.
const maxLimiters = 100_000

// limiterSet holds one token bucket per client identity (API key or client
// network).
//
// An entry idle for as long as its bucket takes to refill completely is
// indistinguishable from a new one, so dropping it loses nothing: that is
// the eviction rule, which keeps the map as small as the set of recently
// active clients.
type limiterSet struct {
	limit rate.Limit
	burst int
	idle  time.Duration // an entry idle this long has a full bucket
	every time.Duration // how often to sweep: rarely enough to stay cheap

	mu        sync.Mutex
	m         map[string]*limiterEntry
	lastSweep time.Time
}

type limiterEntry struct {
	lim  *rate.Limiter
	last time.Time // guarded by limiterSet.mu
}

// newLimiterSet returns nil (no limit) for a negative rate.
func newLimiterSet(perSecond float64, burst int) *limiterSet {
	if perSecond < 0 {
		return nil
	}
	refill := time.Duration(float64(burst) / perSecond * float64(time.Second))
	return &limiterSet{
		limit: rate.Limit(perSecond),
		burst: burst,
		idle:  max(refill, time.Second),
		every: max(refill, 10*time.Second),
		m:     map[string]*limiterEntry{},
	}
}

// take spends a token of id's bucket. When none is left it returns how
// long until one is.
func (l *limiterSet) take(id string, now time.Time) (bool, time.Duration) {
	l.mu.Lock()
	if now.Sub(l.lastSweep) >= l.every {
		l.sweep(now)
	}
	e := l.m[id]
	if e == nil {
		if len(l.m) >= maxLimiters {
			l.evictOne()
		}
		e = &limiterEntry{lim: rate.NewLimiter(l.limit, l.burst)}
		l.m[id] = e
	}
	e.last = now
	l.mu.Unlock()

	if e.lim.AllowN(now, 1) {
		return true, 0
	}
	missing := 1 - e.lim.TokensAt(now)
	return false, time.Duration(missing / float64(l.limit) * float64(time.Second))
}

func (l *limiterSet) sweep(now time.Time) {
	for id, e := range l.m {
		if now.Sub(e.last) >= l.idle {
			delete(l.m, id)
		}
	}
	l.lastSweep = now
}

// evictOne drops an arbitrary entry (map order is random) when the map is
// full of active clients; that client merely gets a fresh bucket.
func (l *limiterSet) evictOne() {
	for id := range l.m {
		delete(l.m, id)
		return
	}
}

func (l *limiterSet) size() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.m)
}

// allow applies the rate limit for id and writes a 429 with Retry-After
// when it is exceeded.
func (s *Server) allow(rw *respWriter, id string) bool {
	if s.limiter == nil {
		return true
	}
	ok, wait := s.limiter.take(id, time.Now())
	if ok {
		return true
	}
	secs := int(math.Ceil(wait.Seconds()))
	if secs < 1 {
		secs = 1
	}
	rw.Header().Set("Retry-After", strconv.Itoa(secs))
	writeProblem(rw, newProblem(&rw.st, http.StatusTooManyRequests, seedengine.ERATELIMITED,
		"rate limit exceeded; retry after "+strconv.Itoa(secs)+" s"))
	return false
}
