package pages_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/blobstore"
	"github.com/seedengine/seedengine/internal/fetch"
	"github.com/seedengine/seedengine/internal/pages"
)

// fakeFetch answers from a map of URL → status and body, and notes every
// request and crawl delay.
type fakeFetch struct {
	mu      sync.Mutex
	pages   map[string]*fetch.Response
	asked   []string
	delays  map[string]time.Duration
	robotsS int
	errs    map[string]error // by host: every request fails so
	urlErrs map[string]error // by URL
}

// Book always holds a place: this fetcher has no line.
func (f *fakeFetch) Book(string, time.Duration, bool) (*fetch.Booking, time.Duration) {
	return &fetch.Booking{}, 0
}

func (f *fakeFetch) Do(_ context.Context, req fetch.Request) (*fetch.Response, error) {
	// As the client does: the port policy first, then Admit before the
	// exchange, outside the lock (it fetches robots.txt through Do).
	u, err := url.Parse(req.URL)
	if err != nil {
		return nil, &fetch.Error{Reason: fetch.ReasonBadRequest, Err: err}
	}
	if p := u.Port(); req.StrictPorts && p != "" && p != "80" && p != "443" {
		return nil, &fetch.Error{Reason: fetch.ReasonPortNotAllowed, URL: req.URL}
	}
	if req.Admit != nil {
		if err := req.Admit(u); err != nil {
			return nil, &fetch.Error{Reason: fetch.ReasonNotAdmitted, URL: req.URL, Err: err}
		}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.asked = append(f.asked, req.URL)
	if err, ok := f.errs[u.Hostname()]; ok {
		return nil, err
	}
	if err, ok := f.urlErrs[req.URL]; ok {
		return nil, err
	}
	if strings.HasSuffix(req.URL, "/robots.txt") && f.robotsS != 0 {
		return &fetch.Response{URL: req.URL, FinalURL: req.URL, Status: f.robotsS}, nil
	}
	r, ok := f.pages[req.URL]
	if !ok {
		return &fetch.Response{URL: req.URL, FinalURL: req.URL, Status: http.StatusNotFound, Header: http.Header{}}, nil
	}
	cp := *r
	cp.URL, cp.FinalURL = req.URL, req.URL
	if req.Capture {
		cp.Exchanges = []fetch.Exchange{wire(u, &cp)}
	}
	return &cp, nil
}

// wire is the exchange a server would have had for r: a GET of u and r
// as written with a Content-Length.
func wire(u *url.URL, r *fetch.Response) fetch.Exchange {
	var b strings.Builder
	fmt.Fprintf(&b, "HTTP/1.1 %d %s\r\n", r.Status, http.StatusText(r.Status))
	for k, vs := range r.Header {
		for _, v := range vs {
			fmt.Fprintf(&b, "%s: %s\r\n", k, v)
		}
	}
	fmt.Fprintf(&b, "Content-Length: %d\r\n\r\n%s", len(r.Body), r.Body)
	return fetch.Exchange{URL: u.String(), Start: time.Now(), IP: "192.0.2.1", Status: r.Status,
		Request:  []byte("GET " + u.RequestURI() + " HTTP/1.1\r\nHost: " + u.Host + "\r\n\r\n"),
		Response: []byte(b.String())}
}

func (f *fakeFetch) SetCrawlDelay(host string, d time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.delays[host] = d
}

func html(body string) *fetch.Response {
	return &fetch.Response{Status: 200, Header: http.Header{"Content-Type": {"text/html"}}, Body: []byte(body)}
}

func newFetcher(t *testing.T, ff *fakeFetch, urls ...string) (*pages.Fetcher, *memStore) {
	t.Helper()
	store := &memStore{pages: map[int64]*seedengine.Page{}}
	for i, u := range urls {
		store.pages[int64(i+1)] = &seedengine.Page{ItemID: int64(i + 1), URL: u, State: seedengine.PageQueued,
			Partition: seedengine.Partition{Country: "sg", Category: "news", Date: "2026-11-27"}}
	}
	blobs, err := blobstore.Open(t.Context(), "mem://")
	require.NoError(t, err)
	t.Cleanup(func() { _ = blobs.Close() })
	f, err := pages.New(pages.Config{Dir: t.TempDir(), Process: "unit"}, store, blobs, ff)
	require.NoError(t, err)
	return f, store
}

// robots.txt decides before any request for the page: a disallowed page
// is skipped and never asked for; the group's Crawl-delay (capped at
// 10 s) is handed to the fetcher before each fetch of the host.
func TestRobotsAndCrawlDelay(t *testing.T) {
	t.Parallel()
	ff := &fakeFetch{delays: map[string]time.Duration{}, pages: map[string]*fetch.Response{
		"https://news.example.com/robots.txt": {Status: 200, Body: []byte("User-agent: *\nDisallow: /private\nCrawl-delay: 30\n")},
		"https://news.example.com/ok":         html("<p>ok</p>"),
		"https://news.example.com/private/x":  html("<p>secret</p>"),
	}}
	f, store := newFetcher(t, ff, "https://news.example.com/ok", "https://news.example.com/private/x")
	require.NoError(t, f.FetchPage(t.Context(), 1, false))
	require.NoError(t, f.FetchPage(t.Context(), 2, false))
	require.Equal(t, seedengine.PageFetched, store.pages[1].State)
	require.Equal(t, seedengine.PageSkipped, store.pages[2].State)
	require.NotContains(t, ff.asked, "https://news.example.com/private/x", "a disallowed page is never requested")
	require.Equal(t, 10*time.Second, ff.delays["news.example.com"], "Crawl-delay, capped")
	// A page no longer queued (a job run twice) is left alone.
	n := len(ff.asked)
	require.NoError(t, f.FetchPage(t.Context(), 1, false))
	require.Len(t, ff.asked, n)
	require.NoError(t, f.Close(t.Context()))
}

// A robots.txt that answers 5xx means "disallow for now" (RFC 9309): the
// fetch fails to be tried again, and the page stays queued, not skipped.
func TestRobotsUnreachableRetries(t *testing.T) {
	t.Parallel()
	ff := &fakeFetch{delays: map[string]time.Duration{}, robotsS: 503, pages: map[string]*fetch.Response{
		"https://down.example.com/a": html("<p>a</p>"),
	}}
	f, store := newFetcher(t, ff, "https://down.example.com/a")
	require.Error(t, f.FetchPage(t.Context(), 1, false))
	require.Equal(t, seedengine.PageQueued, store.pages[1].State)
	require.NotContains(t, ff.asked, "https://down.example.com/a")
	require.NoError(t, f.Close(t.Context()))
}

// A host that will never answer fails its page at once with the reason,
// instead of being retried until the job is dead: a name that does not
// exist, one whose addresses the SSRF guard refuses (a name resolving to
// 169.254.169.254, an address literal of loopback), no host at all. A
// link to a port outside the policy is never asked for, robots.txt
// included.
func TestRefusedHostsFailAtOnce(t *testing.T) {
	t.Parallel()
	ff := &fakeFetch{delays: map[string]time.Duration{}, pages: map[string]*fetch.Response{}, errs: map[string]error{
		"metadata.example.com": &fetch.Error{Reason: fetch.ReasonBlocked},
		"127.0.0.1":            &fetch.Error{Reason: fetch.ReasonBlocked},
		"gone.example.com":     &fetch.Error{Reason: fetch.ReasonNXDomain},
		"slow.example.com":     &fetch.Error{Reason: fetch.ReasonTimeout},
	}}
	f, store := newFetcher(t, ff, "https://metadata.example.com/a", "http://127.0.0.1/a", "https://gone.example.com/a",
		"https://slow.example.com/a", "https://news.example.com:81/a")
	for id, want := range map[int64]string{1: fetch.ReasonBlocked, 2: fetch.ReasonBlocked, 3: fetch.ReasonNXDomain, 5: fetch.ReasonPortNotAllowed} {
		require.NoError(t, f.FetchPage(t.Context(), id, false), "item %d", id)
		require.Equal(t, seedengine.PageFailed, store.pages[id].State, "item %d", id)
		require.Equal(t, want, store.pages[id].Reason, "item %d", id)
	}
	// A timeout may pass: robots.txt unreachable is "try later".
	require.Error(t, f.FetchPage(t.Context(), 4, false))
	require.Equal(t, seedengine.PageQueued, store.pages[4].State)
	for _, u := range ff.asked {
		require.NotContains(t, u, ":81", "nothing is asked of a port outside the policy")
	}
	require.NoError(t, f.Close(t.Context()))
}

// A page whose fetch fails for a reason that may pass (a DNS timeout, a
// reset) stays queued for a later try, and only its last try records the
// failure; robots.txt unreachable on the last try fails the page too. A
// failure no try changes is recorded at once.
func TestTransientFailuresTriedAgain(t *testing.T) {
	t.Parallel()
	ff := &fakeFetch{delays: map[string]time.Duration{}, pages: map[string]*fetch.Response{
		"https://news.example.com/robots.txt": {Status: 200, Body: []byte("User-agent: *\nAllow: /\n")},
	}, urlErrs: map[string]error{
		"https://news.example.com/dns":   &fetch.Error{Reason: fetch.ReasonDNSTimeout},
		"https://news.example.com/reset": &fetch.Error{Reason: fetch.ReasonConnectReset},
		"https://news.example.com/loop":  &fetch.Error{Reason: fetch.ReasonTooManyRedirects},
	}, errs: map[string]error{
		"down.example.com": &fetch.Error{Reason: fetch.ReasonConnectTimeout},
	}}
	f, store := newFetcher(t, ff, "https://news.example.com/dns", "https://news.example.com/reset",
		"https://news.example.com/loop", "https://down.example.com/a")
	for _, id := range []int64{1, 2, 4} {
		require.Error(t, f.FetchPage(t.Context(), id, false), "item %d", id)
		require.Equal(t, seedengine.PageQueued, store.pages[id].State, "item %d", id)
	}
	require.NoError(t, f.FetchPage(t.Context(), 3, false))
	require.Equal(t, seedengine.PageFailed, store.pages[3].State)
	require.Equal(t, fetch.ReasonTooManyRedirects, store.pages[3].Reason)

	// The next try of item 1 finds the page.
	ff.mu.Lock()
	delete(ff.urlErrs, "https://news.example.com/dns")
	ff.pages["https://news.example.com/dns"] = html("<p>back</p>")
	ff.mu.Unlock()
	require.NoError(t, f.FetchPage(t.Context(), 1, false))
	require.Equal(t, seedengine.PageFetched, store.pages[1].State)

	// The last tries record what stood in the way.
	require.NoError(t, f.FetchPage(t.Context(), 2, true))
	require.Equal(t, seedengine.PageFailed, store.pages[2].State)
	require.Equal(t, fetch.ReasonConnectReset, store.pages[2].Reason)
	require.NoError(t, f.FetchPage(t.Context(), 4, true))
	require.Equal(t, seedengine.PageFailed, store.pages[4].State)
	require.Equal(t, "robots_unreachable", store.pages[4].Reason)
	require.NoError(t, f.Close(t.Context()))
}
