package seedcheck_test

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/fetch"
	"github.com/seedengine/seedengine/internal/seedcheck"
	"github.com/seedengine/seedengine/internal/simweb"
	"github.com/seedengine/seedengine/internal/simweb/simwebtest"
	"github.com/seedengine/seedengine/internal/sqlstore"
)

// countingFetcher counts the requests a check makes, by path.
type countingFetcher struct {
	*fetch.Client
	mu   sync.Mutex
	seen []string
}

func (f *countingFetcher) Do(ctx context.Context, r fetch.Request) (*fetch.Response, error) {
	f.mu.Lock()
	f.seen = append(f.seen, r.URL)
	f.mu.Unlock()
	return f.Client.Do(ctx, r)
}

func (f *countingFetcher) take() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := f.seen
	f.seen = nil
	return out
}

// feedSeed is an RSS seed of host's WordPress feed, valid to store.
func feedSeed(host string) seedengine.Seed {
	return seedengine.Seed{
		SeedID: "media:sg:" + host + "::news", DomainID: "media:sg:" + host,
		ContentType: seedengine.ContentTypeNews, Category: "news",
		Source: seedengine.SeedSource{Name: host},
		Fetch:  seedengine.SeedFetch{Type: seedengine.FetchRSS, EntryURL: "https://" + host + "/feed/", Schedule: "@hourly"},
		Policy: seedengine.SeedPolicy{RobotsURL: "https://" + host + "/robots.txt", CrawlAllowed: true},
	}
}

// createFeedSeed stores feedSeed(host) as a draft, promoted to active
// when active is set.
func createFeedSeed(tb testing.TB, store *sqlstore.SeedService, host string, active bool) *seedengine.Seed {
	tb.Helper()
	sd := feedSeed(host)
	require.NoError(tb, store.CreateSeed(context.Background(), &sd, "alice"))
	if active {
		_, err := store.TransitionSeed(context.Background(), sd.SeedID, seedengine.SeedPromote, "alice", "")
		require.NoError(tb, err)
	}
	return &sd
}

// A seed's entry changes under the checker as real feeds do: unchanged
// (304 to the validator it got), moved for good, refused, gone, broken,
// and stale once time passes with no new item; each check says so.
func TestCheckOnTheSimulatedWeb(t *testing.T) {
	t.Parallel()
	const host = "daily-news.com.sg"
	w, client := simwebtest.Client(t, []simweb.Site{{Host: host, Layout: simweb.LayoutWordPress}}, 5*time.Second)
	f := &countingFetcher{Client: client}
	now := time.Now()
	var clockMu sync.Mutex
	clock := func() time.Time { clockMu.Lock(); defer clockMu.Unlock(); return now }
	c := seedcheck.NewChecker(f, clock)
	s := feedSeed(host)
	ctx := t.Context()

	first := c.Check(ctx, s, nil)
	require.Equal(t, seedengine.CheckOK, first.Outcome, "%+v", first)
	require.Equal(t, http.StatusOK, first.Status)
	require.Equal(t, "allowed", first.Robots)
	require.Positive(t, first.Items)
	require.NotNil(t, first.Newest)
	require.Positive(t, first.ItemsPerDay)
	require.NotEmpty(t, first.ETag, "simweb sends a validator")
	require.Zero(t, first.NewItems, "a first check counts no new items")
	require.Equal(t, []string{"https://" + host + "/robots.txt", "https://" + host + "/feed/"}, f.take())

	// Unchanged: a 304, and robots.txt is not read again.
	second := c.Check(ctx, s, &first)
	require.Equal(t, seedengine.CheckOK, second.Outcome)
	require.True(t, second.NotModified, "%+v", second)
	require.Equal(t, http.StatusNotModified, second.Status)
	require.Equal(t, first.Items, second.Items)
	require.Equal(t, first.Newest, second.Newest)
	require.Equal(t, []string{"https://" + host + "/feed/"}, f.take())

	// Stale: the clock moves 90 days on, the feed does not.
	clockMu.Lock()
	now = now.Add(90 * 24 * time.Hour)
	clockMu.Unlock()
	later := c.Check(ctx, s, &second)
	require.Equal(t, seedengine.CheckOK, later.Outcome)
	h := seedcheck.Derive([]seedengine.SeedCheck{later, second, first}, seedengine.SeedHealth{}, clock(), seedcheck.Thresholds{})
	require.Equal(t, seedengine.HealthStale, h.State, "%+v", h)
	require.Contains(t, h.Reason, "no new item for")
	clockMu.Lock()
	now = time.Now()
	clockMu.Unlock()

	cases := []struct {
		scenario simweb.Scenario
		outcome  seedengine.SeedCheckOutcome
		reason   string
	}{
		{simweb.ScenarioRedirectExternal, seedengine.CheckMoved, ""},
		{simweb.ScenarioBotWall, seedengine.CheckBlocked, "http_403"},
		{simweb.ScenarioServerError, seedengine.CheckFailed, "http_5"},
		{simweb.ScenarioNXDomain, seedengine.CheckGone, "nxdomain"},
	}
	for _, tc := range cases {
		w.AddSite(simweb.Site{Host: host, Layout: simweb.LayoutWordPress, Scenario: tc.scenario})
		got := c.Check(ctx, s, &first)
		require.Equal(t, tc.outcome, got.Outcome, "%s: %+v", tc.scenario, got)
		require.True(t, strings.HasPrefix(got.Reason, tc.reason), "%s: reason %q", tc.scenario, got.Reason)
		if tc.outcome == seedengine.CheckMoved {
			require.NotEmpty(t, got.MovedTo)
			require.NotContains(t, got.MovedTo, host+"/", "moved to another host")
			require.Positive(t, got.Items, "the target was read as a feed")
			// Checked again, the target answers the redirected request's
			// validator with a 304: still moved.
			again := c.Check(ctx, s, &got)
			require.True(t, again.NotModified, "%+v", again)
			require.Equal(t, seedengine.CheckMoved, again.Outcome, "%+v", again)
			require.Equal(t, got.MovedTo, again.MovedTo)
		}
	}
}

// robots.txt that disallows the entry stops the check before the entry
// is fetched.
func TestCheckObeysRobots(t *testing.T) {
	t.Parallel()
	const host = "closed-news.com.sg"
	robots := "User-agent: *\nAllow: /\n\nUser-agent: seedengine\nDisallow: /feed/\n"
	_, client := simwebtest.Client(t, []simweb.Site{{Host: host, Layout: simweb.LayoutWordPress, Robots: &robots}}, 5*time.Second)
	f := &countingFetcher{Client: client}
	c := seedcheck.NewChecker(f, nil)
	got := c.Check(t.Context(), feedSeed(host), nil)
	require.Equal(t, seedengine.CheckDisallowed, got.Outcome, "%+v", got)
	require.Equal(t, "disallowed", got.Robots)
	require.Equal(t, []string{"https://" + host + "/robots.txt"}, f.take(), "the entry is not fetched")
}

func TestCanonicalises(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		from, to string
		want     bool
	}{
		{"http://news.example.sg/feed", "https://news.example.sg/feed", true},
		{"https://news.example.sg/feed", "https://www.news.example.sg/feed", true},
		{"https://www.news.example.sg/feed", "https://news.example.sg/feed/", true},
		{"http://news.example.sg:80/feed", "https://NEWS.example.sg/feed", true},
		{"https://news.example.sg/feed?x=1", "https://news.example.sg/feed?x=1", true},
		{"https://news.example.sg/feed", "http://news.example.sg/feed", false},
		{"https://news.example.sg/feed", "https://news.example.sg/rss", false},
		{"https://news.example.sg/feed", "https://other.example.sg/feed", false},
		{"https://news.example.sg/feed?x=1", "https://news.example.sg/feed?x=2", false},
		{"https://news.example.sg/feed", "/feed", false},
	} {
		require.Equal(t, tt.want, seedcheck.Canonicalises(tt.from, tt.to), "%s → %s", tt.from, tt.to)
	}
}
