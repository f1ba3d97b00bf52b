package fetch

import (
	"fmt"
	"io"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// visit is one request as the server saw it.
type visit struct {
	host       string
	start, end time.Time
}

// recorder is a handler that records every visit and the highest number
// of requests it served at once, overall and per host.
type recorder struct {
	mu          sync.Mutex
	visits      []visit
	inFlight    map[string]int
	total       int
	maxTotal    int
	maxPerHost  int
	hold        time.Duration // how long each request is held
	waitForPeer int           // hold each request until this many are in flight (bounded)
	respond     func(w http.ResponseWriter, r *http.Request, n int)
}

func (rec *recorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	rec.mu.Lock()
	if rec.inFlight == nil {
		rec.inFlight = map[string]int{}
	}
	rec.inFlight[r.Host]++
	rec.total++
	rec.maxTotal = max(rec.maxTotal, rec.total)
	rec.maxPerHost = max(rec.maxPerHost, rec.inFlight[r.Host])
	n := len(rec.visits)
	rec.visits = append(rec.visits, visit{host: r.Host, start: start})
	rec.mu.Unlock()

	for deadline := time.Now().Add(time.Second); rec.waitForPeer > 0 && time.Now().Before(deadline); {
		rec.mu.Lock()
		enough := rec.total >= rec.waitForPeer
		rec.mu.Unlock()
		if enough {
			break
		}
		time.Sleep(2 * time.Millisecond)
	}
	time.Sleep(rec.hold)
	if rec.respond != nil {
		rec.respond(w, r, n)
	} else {
		_, _ = io.WriteString(w, "ok")
	}

	rec.mu.Lock()
	rec.inFlight[r.Host]--
	rec.total--
	rec.visits[n].end = time.Now()
	rec.mu.Unlock()
}

func (rec *recorder) snapshot() []visit {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	v := slices.Clone(rec.visits)
	slices.SortFunc(v, func(a, b visit) int { return a.start.Compare(b.start) })
	return v
}

// requireGaps asserts that visits to one host never overlapped and that
// each started at least gap after the previous one ended.
func requireGaps(t *testing.T, visits []visit, gap time.Duration) {
	t.Helper()
	for i := 1; i < len(visits); i++ {
		got := visits[i].start.Sub(visits[i-1].end)
		require.GreaterOrEqualf(t, got, gap, "visit %d started %s after visit %d ended", i, got, i-1)
	}
}

func TestPerHostSerialisationAndDelay(t *testing.T) {
	t.Parallel()
	rec := &recorder{hold: 5 * time.Millisecond}
	srv := startHTTP(t, rec)
	const delay = 50 * time.Millisecond
	c := newTestClient(t, Config{PerHostDelay: delay, ConnectTo: []string{routeTo(t, srv)}})

	var wg sync.WaitGroup
	for i := range 5 {
		wg.Go(func() {
			_, err := c.Do(t.Context(), Request{URL: fmt.Sprintf("http://polite.test/%d", i)})
			require.NoError(t, err)
		})
	}
	wg.Wait()
	require.Equal(t, 1, rec.maxPerHost, "never two requests to one host at once")
	visits := rec.snapshot()
	require.Len(t, visits, 5)
	requireGaps(t, visits, delay)
}

func TestRedirectHopsArePolite(t *testing.T) {
	t.Parallel()
	rec := &recorder{respond: func(w http.ResponseWriter, r *http.Request, n int) {
		if r.URL.Path != "/end" {
			http.Redirect(w, r, map[string]string{"/": "/a", "/a": "/b", "/b": "/end"}[r.URL.Path], http.StatusFound)
		}
	}}
	srv := startHTTP(t, rec)
	const delay = 30 * time.Millisecond
	c := newTestClient(t, Config{PerHostDelay: delay, ConnectTo: []string{routeTo(t, srv)}})
	resp, err := c.Do(t.Context(), Request{URL: "http://hops.test/"})
	require.NoError(t, err)
	require.Len(t, resp.Redirects, 3)
	requireGaps(t, rec.snapshot(), delay)
}

func TestCrawlDelay(t *testing.T) {
	t.Parallel()
	rec := &recorder{}
	srv := startHTTP(t, rec)
	c := newTestClient(t, Config{ConnectTo: []string{routeTo(t, srv)}})

	// The robots.txt fetch ends; the crawl delay it announces applies to
	// the gap after it already.
	_, err := c.Do(t.Context(), Request{URL: "http://slow.test/robots.txt", Kind: KindRobots})
	require.NoError(t, err)
	const delay = 60 * time.Millisecond
	c.SetCrawlDelay("Slow.Test", delay)
	for range 2 {
		_, err := c.Do(t.Context(), Request{URL: "http://slow.test/page"})
		require.NoError(t, err)
	}
	visits := rec.snapshot()
	require.Len(t, visits, 3)
	requireGaps(t, visits, delay)
}

func TestGlobalConcurrencyLimit(t *testing.T) {
	t.Parallel()
	rec := &recorder{hold: 10 * time.Millisecond, waitForPeer: 2}
	srv := startHTTP(t, rec)
	c := newTestClient(t, Config{Concurrency: 2, ConnectTo: []string{routeTo(t, srv)}})
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			_, err := c.Do(t.Context(), Request{URL: fmt.Sprintf("http://h%d.test/", i)})
			require.NoError(t, err)
		})
	}
	wg.Wait()
	require.Equal(t, 2, rec.maxTotal, "two in flight, never more")
	require.Equal(t, 1, rec.maxPerHost)
}

func TestRetryAfterHonoured(t *testing.T) {
	t.Parallel()
	for _, status := range []int{http.StatusTooManyRequests, http.StatusServiceUnavailable} {
		t.Run(http.StatusText(status), func(t *testing.T) {
			t.Parallel()
			rec := &recorder{respond: func(w http.ResponseWriter, r *http.Request, n int) {
				if n == 0 {
					w.Header().Set("Retry-After", "1")
					w.WriteHeader(status)
					return
				}
				_, _ = io.WriteString(w, "ok")
			}}
			srv := startHTTP(t, rec)
			c := newTestClient(t, Config{})
			resp, err := c.Do(t.Context(), Request{URL: srv.URL})
			require.NoError(t, err)
			require.Equal(t, 200, resp.Status)
			visits := rec.snapshot()
			require.Len(t, visits, 2, "retried once")
			requireGaps(t, visits, time.Second)
		})
	}
}

func TestRetryAfterNotWaitedWhenAsked(t *testing.T) {
	t.Parallel()
	rec := &recorder{respond: func(w http.ResponseWriter, r *http.Request, n int) {
		if n == 0 {
			w.Header().Set("Retry-After", "1")
			w.WriteHeader(http.StatusTooManyRequests)
			return
		}
		_, _ = io.WriteString(w, "ok")
	}}
	srv := startHTTP(t, rec)
	c := newTestClient(t, Config{})
	resp, err := c.Do(t.Context(), Request{URL: srv.URL, NoRetryAfterWait: true})
	require.NoError(t, err)
	require.Equal(t, 429, resp.Status, "the 429 is the answer")
	require.Len(t, rec.snapshot(), 1, "not retried")

	// The host is still pushed back by its Retry-After.
	resp, err = c.Do(t.Context(), Request{URL: srv.URL})
	require.NoError(t, err)
	require.Equal(t, 200, resp.Status)
	requireGaps(t, rec.snapshot(), time.Second)
}

func TestRetryAfterOnlyOnce(t *testing.T) {
	t.Parallel()
	rec := &recorder{respond: func(w http.ResponseWriter, r *http.Request, n int) {
		w.Header().Set("Retry-After", "0")
		w.WriteHeader(http.StatusTooManyRequests)
	}}
	srv := startHTTP(t, rec)
	c := newTestClient(t, Config{})
	resp, err := c.Do(t.Context(), Request{URL: srv.URL})
	require.NoError(t, err)
	require.Equal(t, 429, resp.Status)
	require.Len(t, rec.snapshot(), 2)
}

func TestRetryAfterCapped(t *testing.T) {
	t.Parallel()
	rec := &recorder{respond: func(w http.ResponseWriter, r *http.Request, n int) {
		if n == 0 {
			w.Header().Set("Retry-After", "3600")
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		_, _ = io.WriteString(w, "ok")
	}}
	srv := startHTTP(t, rec)
	const maxWait = 80 * time.Millisecond
	c := newTestClient(t, Config{MaxRetryAfter: maxWait})
	resp, err := c.Do(t.Context(), Request{URL: srv.URL})
	require.NoError(t, err)
	require.Equal(t, 503, resp.Status, "too long to wait: the response is returned")
	require.Len(t, rec.snapshot(), 1, "and not retried")

	// The host is still pushed back, by at most MaxRetryAfter.
	resp, err = c.Do(t.Context(), Request{URL: srv.URL})
	require.NoError(t, err)
	require.Equal(t, 200, resp.Status)
	requireGaps(t, rec.snapshot(), maxWait)

	// A 503 without Retry-After is not retried.
	plain := &recorder{respond: func(w http.ResponseWriter, r *http.Request, n int) {
		w.WriteHeader(http.StatusServiceUnavailable)
	}}
	srv2 := startHTTP(t, plain)
	resp, err = c.Do(t.Context(), Request{URL: srv2.URL})
	require.NoError(t, err)
	require.Equal(t, 503, resp.Status)
	require.Len(t, plain.snapshot(), 1)
}

func TestStreamHoldsHostSlotUntilClose(t *testing.T) {
	t.Parallel()
	rec := &recorder{}
	srv := startHTTP(t, rec)
	c := newTestClient(t, Config{ConnectTo: []string{routeTo(t, srv)}})
	sr, err := c.Stream(t.Context(), Request{URL: "http://s.test/sitemap.xml", Kind: KindSitemap})
	require.NoError(t, err)

	done := make(chan time.Time)
	go func() {
		_, err := c.Do(t.Context(), Request{URL: "http://s.test/other"})
		require.NoError(t, err)
		done <- time.Now()
	}()
	time.Sleep(30 * time.Millisecond)
	b, err := io.ReadAll(sr.Body)
	require.NoError(t, err)
	require.Equal(t, "ok", string(b))
	closed := time.Now()
	require.NoError(t, sr.Body.Close())
	require.NoError(t, sr.Body.Close(), "Close twice is harmless")
	<-done
	visits := rec.snapshot()
	require.Len(t, visits, 2)
	require.True(t, visits[1].start.After(closed), "the second request waited for Close")
}

// With one global slot, a host that keeps its answer waits parked: the
// next host is asked and answered meanwhile. Without parking the second
// fetch could not start until the first ended, which waits for it.
func TestSlowHostParks(t *testing.T) {
	t.Parallel()
	arrived, release := make(chan struct{}), make(chan struct{})
	srv := startHTTP(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Host == "slow.test" {
			close(arrived)
			<-release
		}
		_, _ = io.WriteString(w, "ok")
	}))
	c := newTestClient(t, Config{Concurrency: 1, ParkAfter: 20 * time.Millisecond, ConnectTo: []string{routeTo(t, srv)}})
	slow := make(chan error, 1)
	go func() {
		_, err := c.Do(t.Context(), Request{URL: "http://slow.test/"})
		slow <- err
	}()
	<-arrived
	_, err := c.Do(t.Context(), Request{URL: "http://fast.test/"})
	require.NoError(t, err, "the fast host is answered while the slow one waits")
	close(release)
	require.NoError(t, <-slow)
}
