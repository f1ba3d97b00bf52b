package app_test

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/harvest"
	"github.com/seedengine/seedengine/internal/layout"
	"github.com/seedengine/seedengine/internal/seedcheck"
	"github.com/seedengine/seedengine/internal/simweb"
	"github.com/seedengine/seedengine/internal/simweb/simwebtest"
	"github.com/seedengine/seedengine/internal/sqlstore"
	"github.com/seedengine/seedengine/internal/sqlstore/sqlstoretest"
)

// harvestWeb is a simulated web of publishers, each with the seeds that
// read it.
type harvestWeb struct {
	clock      *simweb.Clock
	publishers []*simweb.Publisher
	seeds      []seedengine.Seed
}

// newHarvestWeb builds n publishers publishing from 1 to 500 articles a
// simulated day, on clock: windows of 10, 20 and 50 items; RSS, Atom,
// JSON Feed and news sitemaps; some undated, some with tracking
// parameters, some with a section feed carrying every other article and
// a news sitemap carrying them all (one article, several entries).
func newHarvestWeb(n int, clock *simweb.Clock) *harvestWeb {
	rates := []float64{1, 5, 20, 60, 150, 300, 500}
	windows := []int{10, 20, 50}
	formats := []string{simweb.PubRSS, simweb.PubAtom, simweb.PubJSONFeed, simweb.PubRSS}
	hw := &harvestWeb{clock: clock}
	for i := range n {
		host := fmt.Sprintf("pub%03d-news.com.sg", i)
		p := &simweb.Publisher{Host: host, PerDay: rates[i%len(rates)], Clock: clock}
		w := windows[(i/len(rates))%len(windows)]
		main := simweb.Publication{Path: "/feed", Format: formats[i%len(formats)], Window: w, Undated: i%5 == 3, Tracking: i%3 == 1}
		p.Publications = append(p.Publications, main)
		if i%4 == 2 {
			p.Publications = append(p.Publications,
				simweb.Publication{Path: "/section/politics", Format: simweb.PubRSS, Window: w, Every: 2, Tracking: true},
				simweb.Publication{Path: "/news-sitemap.xml", Format: simweb.PubNewsSitemap, Window: 2 * w})
		}
		hw.publishers = append(hw.publishers, p)
		for j, pub := range p.Publications {
			ft := seedengine.FetchType(pub.Format)
			if pub.Format == simweb.PubNewsSitemap {
				ft = seedengine.FetchNewsSitemap
			}
			ct := []string{"news", "politics", "sitemap"}[j]
			hw.seeds = append(hw.seeds, seedengine.Seed{
				DomainID: "media:sg:" + host, ContentType: ct, Category: "news",
				Fetch: seedengine.SeedFetch{Type: ft, EntryURL: "https://" + host + pub.Path, Schedule: "@hourly"},
			})
		}
	}
	return hw
}

func (hw *harvestWeb) sites() []simweb.Site {
	out := make([]simweb.Site, len(hw.publishers))
	for i, p := range hw.publishers {
		out[i] = p.Site()
	}
	return out
}

// promote creates and promotes every seed.
func (hw *harvestWeb) promote(t testing.TB, seeds *sqlstore.SeedService) {
	t.Helper()
	for i := range hw.seeds {
		sd := hw.seeds[i]
		require.NoError(t, seeds.CreateSeed(t.Context(), &sd, "test"))
		_, err := seeds.TransitionSeed(t.Context(), sd.SeedID, seedengine.SeedPromote, "test", "")
		require.NoError(t, err)
		hw.seeds[i] = sd
	}
}

// published are the canonical URLs of the articles a reader subscribed
// at start could have seen by end: those some publication listed at start
// and every one published after.
func (hw *harvestWeb) published(start, end time.Time) map[string]bool {
	out := map[string]bool{}
	for _, p := range hw.publishers {
		for _, pub := range p.Publications {
			for _, i := range p.Shown(pub, start) {
				out[p.ArticleURL(i)] = true
			}
		}
		for i := p.Count(start); i < p.Count(end); i++ {
			out[p.ArticleURL(i)] = true
		}
	}
	return out
}

// followItems reads every item through the API's cursor.
func followItems(t testing.TB, s *stack, since int64) ([]seedengine.Item, int64) {
	t.Helper()
	var all []seedengine.Item
	for {
		var page struct {
			Items     []seedengine.Item `json:"items"`
			NextSince int64             `json:"next_since"`
		}
		r := s.get(t, fmt.Sprintf("/api/v1/items?since=%d&limit=1000", since), &page)
		require.Equal(t, http.StatusOK, r.StatusCode, string(r.Body))
		all = append(all, page.Items...)
		if len(page.Items) == 0 {
			return all, since
		}
		since = page.NextSince
	}
}

// harvestResult is what a harvest run measured.
type harvestResult struct {
	s                                    *stack
	followed                             map[string]int // normalized URL → times the cursor handed it out
	published, dup, stray, reads, fewest int
	gaps                                 int
	coverage                             float64
}

func (r harvestResult) String() string {
	return fmt.Sprintf("published %d, recorded %d (coverage %.4f), duplicates %d, strays %d, reads %d (%.2f times the fewest, %d), possible gaps %d",
		r.published, len(r.followed), r.coverage, r.dup, r.stray, r.reads, float64(r.reads)/float64(max(r.fewest, 1)), r.fewest, r.gaps)
}

// runHarvest promotes hw's seeds on a stack that harvests them on hw's
// manual clock (driveHarvest) for d of simulated time, a consumer
// following the items' cursor between rounds, then measures what was
// recorded against what was published.
func runHarvest(tb testing.TB, db *sqlstore.DB, hw *harvestWeb, d time.Duration, pace harvest.PaceConfig) harvestResult {
	tb.Helper()
	_, client := simwebtest.Client(tb, hw.sites(), 5*time.Second)
	s := newStack(tb, db, withHarvest(harvestOpts{fetch: client, checks: seedcheck.Config{Now: hw.clock.Current, Pace: pace}}))
	// The publishers have published for a day when their seeds are
	// promoted.
	hw.clock.Set(hw.clock.Epoch.Add(24 * time.Hour))
	start := hw.clock.Current()
	hw.promote(tb, s.seeds)
	ids := make([]string, len(hw.seeds))
	for i, sd := range hw.seeds {
		ids[i] = sd.SeedID
	}

	// A consumer follows the cursor while the harvest runs.
	res := harvestResult{s: s, followed: map[string]int{}}
	var since int64
	follow := func() {
		var page []seedengine.Item
		page, since = followItems(tb, s, since)
		for _, it := range page {
			res.followed[it.NormalizedURL]++
		}
	}
	rounds := 0
	end := hw.clock.Current().Add(d)
	res.reads = driveHarvest(tb, s, hw.clock, ids, end, func() {
		if rounds++; rounds%25 == 0 {
			follow()
		}
	})
	res.reads -= len(ids) // the last reads, after the end
	follow()

	published := hw.published(start, end)
	res.published = len(published)
	seen := 0
	for u, n := range res.followed {
		if n > 1 {
			res.dup++
		}
		if published[u] {
			seen++
		} else {
			res.stray++
		}
	}
	res.coverage = float64(seen) / float64(max(len(published), 1))
	// The fewest reads that see every article: one per window's worth of
	// what each entry carried, and one a day (the longest interval).
	days := int(d.Hours()/24) + 1
	for _, p := range hw.publishers {
		for _, pub := range p.Publications {
			carried := (p.Count(end) - p.Count(start) + max(pub.Every, 1) - 1) / max(pub.Every, 1)
			res.fewest += max(days, (carried+pub.Window-1)/pub.Window)
		}
	}
	for _, sd := range hw.seeds {
		checks, err := s.seeds.FindSeedChecks(context.Background(), sd.SeedID, 0, time.Time{}, 500)
		require.NoError(tb, err)
		for _, c := range checks {
			if c.PossibleGap {
				res.gaps++
			}
		}
	}
	return res
}

// The harvest of active seeds on a simulated web that publishes over
// time: every published article is recorded once (a story in a feed, its
// section feed and the news sitemap is one item; tracking parameters do
// not make a second), a consumer following the cursor while the harvest
// runs gets each exactly once, and the item files hold what the index
// does.
func TestHarvestCoverage(t *testing.T) {
	t.Parallel()
	sqlstoretest.Engines(t, func(t *testing.T, db *sqlstore.DB) {
		// Eight simulated hours on a clock that waits for the reader
		// (driveHarvest): what it measures does not depend on the
		// machine's speed or load.
		hw := newHarvestWeb(28, simweb.NewManualClock(time.Date(2026, 11, 27, 6, 0, 0, 0, time.UTC)))
		res := runHarvest(t, db, hw, 8*time.Hour, harvest.PaceConfig{})
		s, followed := res.s, res.followed
		t.Log(res)
		require.Greater(t, res.published, 400)
		dup, stray, coverage := res.dup, res.stray, res.coverage
		require.Zero(t, dup, "every item once")
		require.Zero(t, stray, "nothing but articles")
		require.GreaterOrEqual(t, coverage, 0.995)

		// The files hold what the index does, once each.
		n, err := s.itemFiles.Flush(t.Context(), true)
		require.NoError(t, err)
		require.Positive(t, n)
		var parts struct {
			Items []seedengine.ItemPartition `json:"items"`
		}
		s.get(t, "/api/v1/items/partitions?limit=1000", &parts)
		inFiles := map[string]int{}
		total := 0
		for _, p := range parts.Items {
			require.Zero(t, p.Pending, "%+v", p)
			total += p.Items
			var files struct {
				Items []seedengine.ItemFile `json:"items"`
			}
			s.get(t, "/api/v1/items/"+p.Country+"/"+p.Category+"/"+p.Date, &files)
			require.Len(t, files.Items, p.Files)
			for _, f := range files.Items {
				key, err := layout.ItemFileKey(p.Partition, f.File)
				require.NoError(t, err)
				require.Equal(t, key, f.Key)
				r := s.do(t, request{Path: "/api/v1/items/" + p.Country + "/" + p.Category + "/" + p.Date + "/" + f.Name})
				require.Equal(t, http.StatusOK, r.StatusCode, string(r.Body))
				require.EqualValues(t, f.Bytes, len(r.Body))
				lines := 0
				sc := bufio.NewScanner(bytes.NewReader(r.Body))
				sc.Buffer(nil, 1<<20)
				for sc.Scan() {
					var it seedengine.Item
					require.NoError(t, json.Unmarshal(sc.Bytes(), &it))
					require.Equal(t, p.Partition, it.Partition())
					inFiles[it.NormalizedURL]++
					lines++
				}
				require.Equal(t, f.Items, lines)
			}
		}
		require.Equal(t, len(followed), total)
		require.Len(t, inFiles, len(followed))
		for u, n := range inFiles {
			require.Equal(t, 1, n, u)
		}

		// Metrics count what the store holds, whichever process recorded it.
		r := s.do(t, request{Path: "/metrics"})
		require.Equal(t, http.StatusOK, r.StatusCode)
		require.Contains(t, string(r.Body), fmt.Sprintf(`seedengine_items_total{country="sg"} %d`, len(followed)))
		require.Regexp(t, `seedengine_harvest_reads_total [1-9]`, string(r.Body))
		require.Regexp(t, `seedengine_harvest_dedupe_hits_total [1-9]`, string(r.Body))

		// The export streams the same items, gzip when asked (a request
		// that names the encoding itself gets the compressed bytes).
		r = s.do(t, request{Path: "/api/v1/items/export", Header: http.Header{"Accept-Encoding": {"gzip"}}})
		require.Equal(t, http.StatusOK, r.StatusCode, string(r.Body))
		require.Equal(t, "gzip", r.Header.Get("Content-Encoding"))
		require.Equal(t, len(followed), strings.Count(string(gunzip(t, r.Body)), "\n"))
		r = s.do(t, request{Path: "/api/v1/items/export?country=sg&category=news&date=" + parts.Items[0].Date})
		require.Equal(t, http.StatusOK, r.StatusCode, string(r.Body))
		require.Equal(t, "application/x-ndjson", r.Header.Get("Content-Type"))
		require.Equal(t, parts.Items[0].Items, strings.Count(string(r.Body), "\n"))
	})
}

func gunzip(t *testing.T, b []byte) []byte {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(b))
	require.NoError(t, err)
	out, err := io.ReadAll(zr)
	require.NoError(t, err)
	return out
}

// BenchmarkHarvestDay harvests one simulated day of 1,000 publishers
// (1 to 500 articles a day, windows of 10 to 50, the mix of
// TestHarvestCoverage) on SQLite, on a clock that waits for the reader
// (driveHarvest), with the pace's defaults. It reports the share of
// published articles recorded, repeats, and reads against the fewest
// that see every article. SEEDENGINE_BENCH_PUBLISHERS and
// SEEDENGINE_BENCH_DAY (a duration of simulated time) change the size and
// the length of the day.
//
//	go test -run '^$' -bench HarvestDay -benchtime 1x -timeout 60m ./internal/app/
func BenchmarkHarvestDay(b *testing.B) {
	n, day := 1000, 24*time.Hour
	if v := os.Getenv("SEEDENGINE_BENCH_PUBLISHERS"); v != "" {
		var err error
		n, err = strconv.Atoi(v)
		require.NoError(b, err)
	}
	if v := os.Getenv("SEEDENGINE_BENCH_DAY"); v != "" {
		var err error
		day, err = time.ParseDuration(v)
		require.NoError(b, err)
	}
	for range b.N {
		hw := newHarvestWeb(n, simweb.NewManualClock(time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC)))
		res := runHarvest(b, sqlstoretest.OpenSQLite(b), hw, day, harvest.PaceConfig{})
		b.Log(res)
		b.ReportMetric(res.coverage*100, "%coverage")
		b.ReportMetric(float64(res.dup), "duplicates")
		b.ReportMetric(float64(res.reads)/float64(res.fewest), "reads/fewest")
		b.ReportMetric(float64(res.gaps), "gaps")
	}
}
