package app_test

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/discover"
	"github.com/seedengine/seedengine/internal/feed"
	"github.com/seedengine/seedengine/internal/fetch"
	"github.com/seedengine/seedengine/internal/harvest"
	"github.com/seedengine/seedengine/internal/seedcheck"
	"github.com/seedengine/seedengine/internal/simweb"
	"github.com/seedengine/seedengine/internal/simweb/simwebtest"
	"github.com/seedengine/seedengine/internal/sqlstore"
	"github.com/seedengine/seedengine/internal/sqlstore/sqlstoretest"
)

// A publishing web as messy as the real one (issue 33): publishers of 30
// to 3,000 articles a day with windows of 10 to 50 items, a fifth of them
// bursty (one to two windows' worth within a minute, every ten minutes
// or so), a morning edition at some, a tenth undated, a quarter listing
// oldest first, every document with ETag and Last-Modified. Four kinds:
//
//   - feed: a feed and nothing else (no archive: a burst bigger than
//     the window can only be caught by reading during it);
//   - paged: a WordPress feed whose older posts are at ?paged=2, 3, …;
//   - news: a feed beside a Google News sitemap of the last 48 hours,
//     each a seed of its own;
//   - daily: a feed beside a sitemap index of one sitemap a day.
//
// The harness runs the engine on a clock that waits for the reader: it
// reads every seed that is due, then moves the clock to the next due
// time, so what it measures is the same on a fast machine and a loaded
// one.

// burstyKinds are the kinds of publisher, in report order.
var burstyKinds = []string{"feed", "feed_bursty", "paged", "news", "daily"}

// burstyPublisher is one publisher with its seeds and its kind.
type burstyPublisher struct {
	*simweb.Publisher
	kind  string
	feed  simweb.Publication // the main feed
	seeds []seedengine.Seed
}

// burstyWeb is the publishing web, on a manual clock.
type burstyWeb struct {
	clock      *simweb.Clock
	publishers []*burstyPublisher
}

// newBurstyWeb builds n publishers, the kinds in turn.
func newBurstyWeb(n int, epoch time.Time) *burstyWeb {
	clock := simweb.NewManualClock(epoch)
	rates := []float64{30, 100, 300, 1000, 3000, 200, 600}
	windows := []int{10, 20, 50, 20, 10, 50}
	formats := []string{simweb.PubRSS, simweb.PubAtom, simweb.PubRSS, simweb.PubJSONFeed}
	kinds := []string{"feed", "paged", "news", "daily", "feed_bursty", "paged", "news", "feed", "daily", "paged"}
	w := &burstyWeb{clock: clock}
	for i := range n {
		kind := kinds[i%len(kinds)]
		host := fmt.Sprintf("burst%03d-%s.com.sg", i, strings.ReplaceAll(kind, "_", "-"))
		window := windows[i%len(windows)]
		p := &simweb.Publisher{Host: host, PerDay: rates[i%len(rates)], Clock: clock}
		// About a fifth bursty: every feed_bursty publisher and one in
		// seven of the others, a window or two within a minute, about
		// every ten minutes. A morning edition (half a window at once)
		// at some of the rest.
		bursty := kind == "feed_bursty" || i%20 == 1 || i%20 == 6 || i%20 == 18
		switch {
		case bursty:
			p.Pattern = simweb.Pattern{Poisson: true, BurstEvery: 10 * time.Minute, BurstSize: window + (i%3)*window/2, BurstSpan: time.Minute}
		case i%4 == 3:
			p.Pattern = simweb.Pattern{Poisson: true, DailyBatch: window / 2, DailyAt: 6 * time.Hour}
		case i%2 == 0:
			p.Pattern = simweb.Pattern{Poisson: true}
		}
		main := simweb.Publication{Path: "/feed", Format: formats[i%len(formats)], Window: window,
			Undated: i%10 == 7, OldestFirst: i%4 == 1, Paged: kind == "paged"}
		if main.Format != simweb.PubRSS && kind == "paged" {
			main.Format = simweb.PubRSS // WordPress
		}
		p.Publications = []simweb.Publication{main}
		bp := &burstyPublisher{Publisher: p, kind: kind, feed: main}
		feedSeed := seedengine.Seed{DomainID: "media:sg:" + host, ContentType: "news", Category: "news",
			Fetch: seedengine.SeedFetch{Type: seedengine.FetchType(main.Format), EntryURL: "https://" + host + "/feed", Schedule: "@hourly"}}
		switch kind {
		case "paged":
			feedSeed.Harvest.Archive = &seedengine.PublisherArchive{Kind: seedengine.ArchivePagedFeed, URL: feedSeed.Fetch.EntryURL}
		case "news":
			p.Publications = append(p.Publications, simweb.Publication{Path: "/news-sitemap.xml", Format: simweb.PubNewsSitemap, MaxAge: 48 * time.Hour, Window: 1000})
			feedSeed.Harvest.Archive = &seedengine.PublisherArchive{Kind: seedengine.ArchiveNewsSitemap, URL: "https://" + host + "/news-sitemap.xml"}
			bp.seeds = append(bp.seeds, seedengine.Seed{DomainID: "media:sg:" + host, ContentType: "sitemap", Category: "news",
				Fetch: seedengine.SeedFetch{Type: seedengine.FetchNewsSitemap, EntryURL: "https://" + host + "/news-sitemap.xml", Schedule: "@hourly"}})
		case "daily":
			p.Publications = append(p.Publications, simweb.Publication{Path: "/sitemap_index.xml", Format: simweb.PubDailySitemaps})
			feedSeed.Harvest.Archive = &seedengine.PublisherArchive{Kind: seedengine.ArchiveDailySitemaps, URL: "https://" + host + "/sitemap_index.xml"}
		}
		bp.seeds = append([]seedengine.Seed{feedSeed}, bp.seeds...)
		w.publishers = append(w.publishers, bp)
	}
	return w
}

// published are the canonical URLs of the articles a reader subscribed
// from start could have seen by end: those its feed listed at start and
// every one published after.
func (p *burstyPublisher) published(start, end time.Time) []string {
	first := max(p.Count(start)-p.feed.Window, 0)
	var out []string
	for i := first; i < p.Count(end); i++ {
		out = append(out, p.ArticleURL(i))
	}
	return out
}

func (w *burstyWeb) sites() []simweb.Site {
	out := make([]simweb.Site, len(w.publishers))
	for i, p := range w.publishers {
		out[i] = p.Site()
	}
	return out
}

// kindResult is what a run measured of one kind of publisher.
type kindResult struct {
	published, recorded, dup, recovered int
	requests, notModified, fewest       int
	gaps                                int
}

func (k kindResult) coverage() float64 { return float64(k.recorded) / float64(max(k.published, 1)) }
func (k kindResult) ratio() float64    { return float64(k.requests) / float64(max(k.fewest, 1)) }

// burstyResult is a run's measures, by kind and in all.
type burstyResult struct {
	byKind map[string]*kindResult
	all    kindResult
	reads  int
}

func (r burstyResult) String() string {
	var b strings.Builder
	line := func(name string, k kindResult) {
		fmt.Fprintf(&b, "%-12s coverage %.4f (%d of %d, %d recovered), duplicates %d, requests %d (%d not modified) = %.2f × the fewest (%d), gaps left %d\n",
			name, k.coverage(), k.recorded, k.published, k.recovered, k.dup, k.requests, k.notModified, k.ratio(), k.fewest, k.gaps)
	}
	for _, kind := range burstyKinds {
		if k := r.byKind[kind]; k != nil {
			line(kind, *k)
		}
	}
	line("all", r.all)
	return b.String()
}

// requestLog counts the requests each host got.
type requestLog struct {
	mu       sync.Mutex
	requests map[string]int
}

func (l *requestLog) observe(r *http.Request) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.requests[strings.ToLower(r.Host)]++
}

// driveHarvest runs the harvest of the active seeds ids on a manual
// clock until end: it reads every seed that is due (in seed id order),
// then moves the clock to the next due time, so the harvest never waits
// for the machine and the machine never makes it late. When publishing
// stops at end, every seed is read once more (a read finds what was
// still to be seen; what is missing then is lost for good). between runs
// after each round. It returns the reads made.
func driveHarvest(tb testing.TB, s *stack, clock *simweb.Clock, ids []string, end time.Time, between func()) int {
	tb.Helper()
	ctx := tb.Context()
	next := map[string]time.Time{}
	for _, id := range ids {
		next[id] = clock.Current()
	}
	reads := 0
	check := func(id string) {
		_, _, err := s.app.SeedChecks.Check(ctx, id, nil)
		require.NoError(tb, err)
		reads++
	}
	for {
		now := clock.Current()
		var due []string
		for id, at := range next {
			if !at.After(now) {
				due = append(due, id)
			}
		}
		sort.Strings(due)
		for _, id := range due {
			check(id)
			_, at, err := s.seeds.FindSeedHealth(ctx, id)
			require.NoError(tb, err)
			require.True(tb, at.After(now), "seed %s is due again at %v, not after %v", id, at, now)
			next[id] = at
		}
		if between != nil {
			between()
		}
		soonest := end
		for _, at := range next {
			if at.Before(soonest) {
				soonest = at
			}
		}
		if !soonest.Before(end) {
			break
		}
		clock.Set(soonest)
	}
	clock.Set(end)
	for _, id := range ids {
		check(id)
	}
	return reads
}

// runBursty harvests w with the engine on its manual clock for d of
// simulated time and measures it against what was published.
func runBursty(tb testing.TB, db *sqlstore.DB, w *burstyWeb, d time.Duration, pace harvest.PaceConfig) burstyResult {
	tb.Helper()
	web, client := simwebtest.Client(tb, w.sites(), 5*time.Second)
	log := &requestLog{requests: map[string]int{}}
	notModified := map[string]int{}
	var nmMu sync.Mutex
	web.Observe(log.observe)
	s := newStack(tb, db, withHarvest(harvestOpts{
		fetch: countingFetcher{client, func(host string, status int) {
			if status == http.StatusNotModified {
				nmMu.Lock()
				notModified[host]++
				nmMu.Unlock()
			}
		}},
		checks: seedcheck.Config{Now: w.clock.Current, Pace: pace},
	}))
	ctx := tb.Context()
	// The publishers have published for a day when their seeds are
	// promoted: a reader meets their feeds as they are.
	w.clock.Set(w.clock.Epoch.Add(24 * time.Hour))
	for _, p := range w.publishers {
		for i := range p.seeds {
			sd := p.seeds[i]
			require.NoError(tb, s.seeds.CreateSeed(ctx, &sd, "test"))
			_, err := s.seeds.TransitionSeed(ctx, sd.SeedID, seedengine.SeedPromote, "test", "")
			require.NoError(tb, err)
			p.seeds[i] = sd
		}
	}
	start := w.clock.Current()
	end := start.Add(d)
	var ids []string
	for _, p := range w.publishers {
		for _, sd := range p.seeds {
			ids = append(ids, sd.SeedID)
		}
	}
	reads := driveHarvest(tb, s, w.clock, ids, end, nil)
	// What was recorded, against what was published by the end.
	recorded := map[string]int{}
	recovered := map[string]bool{}
	items, _ := followItems(tb, s, 0)
	for _, it := range items {
		recorded[it.NormalizedURL]++
		if it.Recovered {
			recovered[it.NormalizedURL] = true
			// Where it was read back from: an archive document of its site.
			require.True(tb, strings.HasPrefix(it.Source.Document, "https://"+strings.Split(strings.TrimPrefix(it.URL, "https://"), "/")[0]+"/"),
				"recovered item %s from %q", it.URL, it.Source.Document)
			require.NotEqual(tb, it.Source.EntryURL, it.Source.Document)
		}
	}
	res := burstyResult{byKind: map[string]*kindResult{}, reads: reads}
	days := int(d.Hours()/24) + 1
	for _, p := range w.publishers {
		k := res.byKind[p.kind]
		if k == nil {
			k = &kindResult{}
			res.byKind[p.kind] = k
		}
		for _, u := range p.published(start, end) {
			k.published++
			if n := recorded[u]; n > 0 {
				k.recorded++
				if n > 1 {
					k.dup++
				}
				if recovered[u] {
					k.recovered++
				}
			}
		}
		if os.Getenv("SEEDENGINE_BURSTY_DEBUG") != "" {
			got := 0
			pub := p.published(start, end)
			for _, u := range pub {
				if recorded[u] > 0 {
					got++
				}
			}
			checks, _ := s.seeds.FindSeedChecks(ctx, p.seeds[0].SeedID, 0, time.Time{}, 500)
			var trail []string
			for i := len(checks) - 1; i >= 0 && len(trail) < 12; i-- {
				c := checks[i]
				trail = append(trail, fmt.Sprintf("%s n%d u%d h%d r%d/%d%s iv%.0f", c.CheckedAt.Format("15:04:05"), c.Items, c.Unseen, c.Harvested, c.Repaired, c.RepairReads, c.RepairReason, c.IntervalSeconds))
			}
			tb.Logf("%s %s perDay %.0f window %d pattern %+v: %d of %d, requests %d\n  %s", p.Host, p.kind, p.PerDay, p.feed.Window, p.Pattern, got, len(pub), log.requests[p.Host], strings.Join(trail, "\n  "))
		}
		k.requests += log.requests[p.Host]
		k.notModified += notModified[p.Host]
		k.fewest += max(days, (len(p.published(start, end))+p.feed.Window-1)/p.feed.Window)
		for _, sd := range p.seeds {
			checks, err := s.seeds.FindSeedChecks(ctx, sd.SeedID, 0, time.Time{}, 500)
			require.NoError(tb, err)
			for _, c := range checks {
				if c.PossibleGap {
					k.gaps++
				}
			}
		}
	}
	for _, k := range res.byKind {
		res.all.published += k.published
		res.all.recorded += k.recorded
		res.all.dup += k.dup
		res.all.recovered += k.recovered
		res.all.requests += k.requests
		res.all.notModified += k.notModified
		res.all.fewest += k.fewest
		res.all.gaps += k.gaps
	}
	// Nothing but articles: every item is a published article's URL.
	published := map[string]bool{}
	for _, p := range w.publishers {
		for _, u := range p.Published(end) { // a first read records older ones too
			published[u] = true
		}
	}
	for u := range recorded {
		require.True(tb, published[u], "an item that is no article: %s", u)
	}
	return res
}

// countingFetcher tells each answer's status to note.
type countingFetcher struct {
	*fetch.Client
	note func(host string, status int)
}

func (c countingFetcher) Do(ctx context.Context, req fetch.Request) (*fetch.Response, error) {
	resp, err := c.Client.Do(ctx, req)
	if err == nil {
		host := req.URL
		if i := strings.Index(host, "://"); i >= 0 {
			host = host[i+3:]
		}
		host, _, _ = strings.Cut(host, "/")
		c.note(strings.ToLower(host), resp.Status)
	}
	return resp, err
}

// The harvest on the bursty publishing web, on a clock that waits for
// the reader, both engines: every article of a steady feed or of a
// publisher with an archive (older feed pages, a news sitemap, daily
// sitemaps) that a document listed at some moment is recorded (99.5 % at
// least), each exactly once, with at most three times the fewest
// requests; on publishers that burst into a feed with no archive, where
// only reading during the burst could see it all, the harvest sees more
// than Miniflux's entry_frequency scheduler at its minimum interval, with
// fewer requests.
func TestHarvestBursty(t *testing.T) {
	t.Parallel()
	hoursRun, d := burstyHours(t, 8)
	epoch := time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC)
	miniflux := runMiniflux(t, newBurstyWeb(40, epoch), d, time.Minute, 24*time.Hour)
	t.Logf("Miniflux, entry_frequency at a 1 min minimum:\n%s", miniflux)
	sqlstoretest.Engines(t, func(t *testing.T, db *sqlstore.DB) {
		res := runBursty(t, db, newBurstyWeb(40, epoch), d, harvest.PaceConfig{})
		t.Logf("%d reads in %.0f simulated hours:\n%s", res.reads, hoursRun, res)
		require.Zero(t, res.all.dup, "every article once")
		for _, kind := range []string{"feed", "paged", "news", "daily"} {
			k := res.byKind[kind]
			require.GreaterOrEqual(t, k.coverage(), 0.995, kind)
			if kind != "feed" {
				require.Positive(t, k.recovered, "%s: gaps repaired from the archive", kind)
			}
		}
		require.LessOrEqual(t, res.all.ratio(), 3.0, "requests against the fewest")
		ours, theirs := res.byKind["feed_bursty"], miniflux.byKind["feed_bursty"]
		require.Greater(t, ours.coverage(), theirs.coverage(), "bursts into a feed alone: more than Miniflux sees")
		require.Less(t, ours.requests, theirs.requests, "with fewer requests")
	})
}

// burstyHours is how many simulated hours a bursty run lasts:
// $SEEDENGINE_BURSTY_HOURS, else def.
func burstyHours(tb testing.TB, def float64) (float64, time.Duration) {
	tb.Helper()
	h := def
	if v := os.Getenv("SEEDENGINE_BURSTY_HOURS"); v != "" {
		var err error
		h, err = strconv.ParseFloat(v, 64)
		require.NoError(tb, err)
	}
	return h, time.Duration(h * float64(time.Hour))
}

// runMiniflux reads w's main feeds as Miniflux 2's entry_frequency
// scheduler does, for comparison on the same web: after each read the
// next is due after a week divided by the entries a week its entries
// show (a week over the mean gap between the published dates of its
// entries of the last week; an undated entry's date is when it was
// read), within [min, max]; every request conditional on the last
// ETag and Last-Modified. It reads no archive.
func runMiniflux(tb testing.TB, w *burstyWeb, d, minInterval, maxInterval time.Duration) burstyResult {
	tb.Helper()
	web, client := simwebtest.Client(tb, w.sites(), 5*time.Second)
	log := &requestLog{requests: map[string]int{}}
	web.Observe(log.observe)
	ctx := tb.Context()
	type reader struct {
		p         *burstyPublisher
		next      time.Time
		etag, lm  string
		published map[string]time.Time
		notMod    int
	}
	w.clock.Set(w.clock.Epoch.Add(24 * time.Hour))
	start := w.clock.Current()
	end := start.Add(d)
	var rs []*reader
	for _, p := range w.publishers {
		rs = append(rs, &reader{p: p, next: start, published: map[string]time.Time{}})
	}
	read := func(r *reader) {
		now := w.clock.Current()
		req := fetch.Request{URL: "https://" + r.p.Host + r.p.feed.Path, Kind: fetch.KindFeed, Header: http.Header{}}
		if r.etag != "" {
			req.Header.Set("If-None-Match", r.etag)
		}
		if r.lm != "" {
			req.Header.Set("If-Modified-Since", r.lm)
		}
		resp, err := client.Do(ctx, req)
		require.NoError(tb, err)
		switch resp.Status {
		case http.StatusNotModified:
			r.notMod++
		case http.StatusOK:
			r.etag, r.lm = resp.Header.Get("ETag"), resp.Header.Get("Last-Modified")
			_, entries, err := feed.ParseEntries(resp.Body, now)
			require.NoError(tb, err)
			for _, e := range entries {
				u, _, err := discover.NormalizeURL(e.Link)
				if err != nil {
					continue
				}
				if _, ok := r.published[u]; !ok {
					at := e.Published
					if at.IsZero() {
						at = now
					}
					r.published[u] = at
				}
			}
		}
		// The weekly count: a week over the mean gap of the last week's
		// entries (0 with fewer than two).
		var times []time.Time
		for _, at := range r.published {
			if !at.Before(now.Add(-7 * 24 * time.Hour)) {
				times = append(times, at)
			}
		}
		weekly := 0
		if len(times) > 1 {
			sort.Slice(times, func(i, j int) bool { return times[i].Before(times[j]) })
			if gap := times[len(times)-1].Sub(times[0]) / time.Duration(len(times)-1); gap > 0 {
				weekly = int((7*24*time.Hour + gap - 1) / gap)
			}
		}
		iv := maxInterval
		if weekly > 0 {
			iv = min(max(time.Duration(float64(7*24*time.Hour)/float64(weekly)).Round(time.Minute), minInterval), maxInterval)
		}
		r.next = now.Add(iv)
	}
	for {
		now := w.clock.Current()
		for _, r := range rs {
			if !r.next.After(now) {
				read(r)
			}
		}
		soonest := end
		for _, r := range rs {
			if r.next.Before(soonest) {
				soonest = r.next
			}
		}
		if !soonest.Before(end) {
			break
		}
		w.clock.Set(soonest)
	}
	w.clock.Set(end)
	for _, r := range rs {
		read(r)
	}
	res := burstyResult{byKind: map[string]*kindResult{}}
	days := int(d.Hours()/24) + 1
	for _, r := range rs {
		k := res.byKind[r.p.kind]
		if k == nil {
			k = &kindResult{}
			res.byKind[r.p.kind] = k
		}
		pub := r.p.published(start, end)
		k.published += len(pub)
		for _, u := range pub {
			if _, ok := r.published[u]; ok {
				k.recorded++
			}
		}
		k.requests += log.requests[r.p.Host]
		k.notModified += r.notMod
		k.fewest += max(days, (len(pub)+r.p.feed.Window-1)/r.p.feed.Window)
	}
	for _, k := range res.byKind {
		res.all.published += k.published
		res.all.recorded += k.recorded
		res.all.requests += k.requests
		res.all.notModified += k.notModified
		res.all.fewest += k.fewest
	}
	return res
}

// BenchmarkHarvestBursty runs the bursty publishing web for a simulated
// day (SEEDENGINE_BURSTY_HOURS changes it) with the engine on SQLite and
// with Miniflux's entry_frequency scheduler at its minimum interval (1
// min) and at its defaults (5 min), and reports coverage and requests
// against the fewest, by kind of publisher:
//
//	go test -run '^$' -bench HarvestBursty -benchtime 1x ./internal/app/
func BenchmarkHarvestBursty(b *testing.B) {
	hoursRun, d := burstyHours(b, 24)
	epoch := time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC)
	for range b.N {
		res := runBursty(b, sqlstoretest.OpenSQLite(b), newBurstyWeb(40, epoch), d, harvest.PaceConfig{})
		b.Logf("seedengine, %d reads in %.0f simulated hours:\n%s", res.reads, hoursRun, res)
		for _, mf := range []struct {
			name     string
			min, max time.Duration
		}{{"miniflux-min", time.Minute, 24 * time.Hour}, {"miniflux-default", 5 * time.Minute, 24 * time.Hour}} {
			m := runMiniflux(b, newBurstyWeb(40, epoch), d, mf.min, mf.max)
			b.Logf("%s:\n%s", mf.name, m)
			if bursty := m.byKind["feed_bursty"]; bursty != nil {
				b.ReportMetric(bursty.coverage()*100, "%"+mf.name+"_bursty_feed")
			}
		}
		b.ReportMetric(res.all.coverage()*100, "%coverage")
		b.ReportMetric(res.byKind["feed_bursty"].coverage()*100, "%bursty_feed")
		b.ReportMetric(res.all.ratio(), "requests/fewest")
		b.ReportMetric(float64(res.all.dup), "duplicates")
	}
}
