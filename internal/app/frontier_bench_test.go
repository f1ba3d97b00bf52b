package app_test

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/benchmem"
	"github.com/seedengine/seedengine/internal/fetch"
	"github.com/seedengine/seedengine/internal/jobs"
	"github.com/seedengine/seedengine/internal/pages"
	"github.com/seedengine/seedengine/internal/simweb"
	"github.com/seedengine/seedengine/internal/simweb/simwebtest"
	"github.com/seedengine/seedengine/internal/sqlstore"
	"github.com/seedengine/seedengine/internal/sqlstore/sqlstoretest"
)

// BenchmarkPageFrontier queues article pages of many hosts at once, as
// harvest reads do (the pages of one host in one transaction, the
// biggest host first, 16 reads at a time), and times the queue of page jobs of a process on
// its defaults (SQLite, the default poll interval and page workers)
// until every page is fetched, at the default per-host delay of 1 s:
//
//   - 10x30: 10 hosts with 30 pages each (bar: ≤ 36 s);
//   - 1000x10: 1,000 hosts with 10 pages (bar: ≥ 0.8 × the politeness
//     limit, or of the CPU ceiling when lower);
//   - 1000x10_nodelay: the same with no per-host delay: the CPU ceiling;
//   - 5000+100x10: one host with 5,000 pages queued before 100 hosts
//     with 10 (bar: every small host's pages done within 15 s); the big
//     host's pages are not waited for.
//
// It reports the wall time to the last page waited for (s), pages/s, the
// cores the process used meanwhile (the simulated web's serving included),
// and for the mixed case small_s, when the last small host's page was
// done; and where the time went: queued_s, when the last page was queued,
// limit_s, the earliest the run could end given when each host's pages
// were queued and the per-host delay (of_limit is limit_s / s, 1 at
// best), last_start_s, when the last waited-for host had its first
// page, and span_p50_s, the median time from a host's first page to its
// last. A run is waited for 3 minutes at most; one that takes longer
// reports the pages/s of what was done by then.
//
//	go test -run '^$' -bench PageFrontier -benchtime 1x -timeout 30m ./internal/app/
func BenchmarkPageFrontier(b *testing.B) {
	cases := []struct {
		name  string
		hosts []int // pages per host, queued in this order
		delay time.Duration
		wait  int // hosts from this one on are waited for
		// files, when set, stores the WARC files this often, so that
		// their pages' articles are extracted while pages are fetched;
		// extract -1 turns extraction off (ArticleWorkers).
		files   time.Duration
		extract int
	}{
		{"10x30", repeat(10, 30), time.Second, 0, 0, 0},
		{"1000x10", repeat(1000, 10), time.Second, 0, 0, 0},
		{"1000x10_nodelay", repeat(1000, 10), fetch.NoPerHostDelay, 0, 0, 0},
		{"5000+100x10", append([]int{5000}, repeat(100, 10)...), time.Second, 1, 0, 0},
		// Extraction on and off, files stored every 2 s.
		{"1000x10_articles", repeat(1000, 10), time.Second, 0, 2 * time.Second, 0},
		{"1000x10_noarticles", repeat(1000, 10), time.Second, 0, 2 * time.Second, -1},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				b.StopTimer()
				elapsed, waited, cpu, tl := frontierRun(b, c.hosts, c.delay, c.wait, c.files, c.extract)
				b.ReportMetric(elapsed.Seconds(), "s")
				b.ReportMetric(tl.queued.Seconds(), "queued_s")
				b.ReportMetric(tl.limit.Seconds(), "limit_s")
				b.ReportMetric(tl.limit.Seconds()/elapsed.Seconds(), "of_limit")
				b.ReportMetric(tl.lastStart.Seconds(), "last_start_s")
				b.ReportMetric(tl.spanP50.Seconds(), "span_p50_s")
				b.ReportMetric(cpu.Seconds()/elapsed.Seconds(), "cores")
				b.ReportMetric(float64(waited)/elapsed.Seconds(), "pages/s")
				if c.wait > 0 {
					b.ReportMetric(elapsed.Seconds(), "small_s")
				}
				if c.files > 0 {
					b.ReportMetric(float64(tl.articles)/elapsed.Seconds(), "articles/s")
				}
				b.StartTimer()
			}
		})
	}
}

// frontierReaders is how many harvest reads queue pages at once in the
// benchmark, as the harvest's seed-check workers (50 by default) do.
const frontierReaders = 16

// frontierCap is the longest a run is waited for; one that takes longer
// reports the pages done by then.
const frontierCap = 3 * time.Minute

func repeat(n, v int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = v
	}
	return out
}

// timeline is where a run's time went: when the last page was queued;
// limit, the earliest the waited-for pages could all be done given when
// each host's were queued and the per-host delay (robots.txt first, then
// each page a delay after the one before); when the last waited-for host
// had its first page fetched; and the median time from a host's first
// page to its last.
type timeline struct {
	queued, limit, lastStart, spanP50 time.Duration
	articles                          int // extracted by the end
}

// frontierRun queues the pages and waits until those of hosts[wait:] are
// done; it returns how long that took, how many pages those were, the
// CPU the process used and the run's timeline.
func frontierRun(b *testing.B, hosts []int, delay time.Duration, wait int, files time.Duration, extract int) (time.Duration, int, time.Duration, timeline) {
	opts := []stackOption{withJobs(func(c *jobs.Config) { c.PollInterval, c.FetchCooldown, c.ArticleWorkers = 0, 0, extract })}
	if files > 0 {
		opts = append(opts, withPages(pages.Config{Dir: b.TempDir(), Process: "frontier", MaxFileAge: files}))
	}
	fr := newFrontier(b, hosts, delay, opts...)
	if files > 0 {
		// The files stored as they come due, as serve stores them.
		roll, stop := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { defer close(done); fr.s.app.RollPages(roll, files/4) }()
		defer func() { stop(); <-done }()
	}
	waited := 0
	for _, n := range hosts[wait:] {
		waited += n
	}
	start, cpu0 := time.Now(), benchmem.CPUTime()
	queuedAt := fr.queue(b, frontierReaders)
	tl := timeline{queued: time.Since(start)}
	for k, at := range queuedAt[wait:] {
		tl.limit = max(tl.limit, at.Sub(start)+time.Duration(hosts[wait+k])*max(delay, 0))
	}

	// Done when no page of the waited-for hosts is queued any more.
	ctx := context.Background()
	q, args := fr.queuedOf(wait)
	for {
		var n int
		require.NoError(b, fr.db.Reader().QueryRowContext(ctx, q, args...).Scan(&n))
		if n == 0 {
			break
		}
		if time.Since(start) > frontierCap {
			// Too slow to wait for: what was done in the time.
			b.Logf("%d of %d pages done after %v", waited-n, waited, frontierCap)
			waited -= n
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	elapsed, cpu := time.Since(start), benchmem.CPUTime()-cpu0
	require.NoError(b, fr.db.Reader().QueryRowContext(ctx, `SELECT COUNT(*) FROM articles`).Scan(&tl.articles))
	var failed int
	require.NoError(b, fr.db.Reader().QueryRowContext(ctx, `SELECT COUNT(*) FROM pages WHERE state = 'failed'`).Scan(&failed))
	require.Zero(b, failed, "no page failed")
	// What is left (the big host's pages) is cancelled, not waited for.
	stop, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	_ = fr.s.queue.Stop(stop)

	waitedFor := map[string]bool{}
	for _, id := range fr.seedIDs[wait:] {
		waitedFor[id] = true
	}
	rows, err := fr.db.Reader().QueryContext(ctx, `SELECT seed_id, min(fetched_at), max(fetched_at) FROM pages WHERE fetched_at IS NOT NULL GROUP BY seed_id`)
	require.NoError(b, err)
	var spans []time.Duration
	for rows.Next() {
		var seed, first, last string
		require.NoError(b, rows.Scan(&seed, &first, &last))
		if !waitedFor[seed] {
			continue
		}
		f, err := time.Parse(time.RFC3339Nano, first)
		require.NoError(b, err)
		l, err := time.Parse(time.RFC3339Nano, last)
		require.NoError(b, err)
		tl.lastStart = max(tl.lastStart, f.Sub(start))
		spans = append(spans, l.Sub(f))
	}
	require.NoError(b, rows.Err())
	slices.Sort(spans)
	if len(spans) > 0 {
		tl.spanP50 = spans[len(spans)/2]
	}
	return elapsed, waited, cpu, tl
}

// frontier is a stack with page fetching on SQLite over a simulated web
// of publishers, one per entry of hosts, whose seeds (drafts: no
// harvest reads them) fetch pages.
type frontier struct {
	s       *stack
	db      *sqlstore.DB
	web     *simweb.Web
	pubs    []*simweb.Publisher
	hosts   []int
	seedIDs []string
}

func newFrontier(tb testing.TB, hosts []int, delay time.Duration, opts ...stackOption) *frontier {
	// Articles published long ago, ten a second per host: every page
	// asked for exists.
	clock := &simweb.Clock{Start: time.Now().Add(-48 * time.Hour), Epoch: time.Date(2026, 11, 25, 0, 0, 0, 0, time.UTC), Speed: 1}
	fr := &frontier{hosts: hosts}
	var sites []simweb.Site
	for i := range hosts {
		p := &simweb.Publisher{Host: fmt.Sprintf("frontier%04d-daily.com.sg", i), PerDay: 86400 * 10, Clock: clock, Pages: true,
			Publications: []simweb.Publication{{Path: "/feed", Format: simweb.PubRSS, Window: 20}}}
		fr.pubs = append(fr.pubs, p)
		sites = append(sites, p.Site())
	}
	fr.web, _ = simwebtest.Client(tb, sites, 10*time.Second)
	client := simwebtest.ClientWith(tb, fr.web, func(c *fetch.Config) { c.PerHostDelay = delay })
	fr.db = sqlstoretest.OpenSQLite(tb)
	fr.s = newStack(tb, fr.db, append([]stackOption{withQueue(), withHarvest(harvestOpts{fetch: client, interval: time.Hour}),
		withPages(pages.Config{Dir: tb.TempDir(), Process: "frontier"})}, opts...)...)

	ctx := context.Background()
	for _, p := range fr.pubs {
		sd := &seedengine.Seed{DomainID: "media:sg:" + p.Host, ContentType: seedengine.ContentTypeNews, Category: "news",
			Source:  seedengine.SeedSource{Name: p.Host},
			Fetch:   seedengine.SeedFetch{Type: seedengine.FetchRSS, EntryURL: "https://" + p.Host + "/feed", Schedule: "@hourly"},
			Policy:  seedengine.SeedPolicy{RobotsURL: "https://" + p.Host + "/robots.txt", CrawlAllowed: true},
			Harvest: seedengine.SeedHarvest{Pages: true}, Confidence: 0.8}
		require.NoError(tb, fr.s.seeds.CreateSeed(ctx, sd, "test"))
		fr.seedIDs = append(fr.seedIDs, sd.SeedID)
	}
	return fr
}

// queue records one read's worth of items of each seed in hosts' order,
// their pages queued in the read's transaction, as a harvest read does,
// readers at once as the harvest's seed-check workers read; it returns
// when each host's read committed.
func (fr *frontier) queue(tb testing.TB, readers int) []time.Time {
	committed := make([]time.Time, len(fr.pubs))
	ctx := context.Background()
	at := time.Date(2026, 11, 27, 8, 0, 0, 0, time.UTC)
	var next atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, readers)
	for range readers {
		wg.Go(func() {
			for {
				k := int(next.Add(1) - 1)
				if k >= len(fr.pubs) {
					return
				}
				p := fr.pubs[k]
				items := make([]seedengine.Item, fr.hosts[k])
				for i := range items {
					u := p.ArticleURL(i)
					items[i] = seedengine.Item{URL: u, NormalizedURL: u, SeedID: fr.seedIDs[k], DomainID: "media:sg:" + p.Host,
						Country: "sg", Category: "news", Source: seedengine.ItemSource{EntryURL: "https://" + p.Host + "/feed", FetchType: seedengine.FetchRSS},
						FirstSeenAt: at}
				}
				c := seedengine.SeedCheck{SeedID: fr.seedIDs[k], CheckedAt: at, EntryURL: "https://" + p.Host + "/feed", Outcome: seedengine.CheckOK, Status: 200, Items: len(items)}
				_, _, err := fr.s.seeds.RecordSeedCheck(ctx, &c, items, false,
					func(*seedengine.SeedCheck, seedengine.ArrivalHistory) (seedengine.SeedHealth, time.Time) {
						return seedengine.SeedHealth{State: seedengine.HealthHealthy}, at.Add(time.Hour)
					},
					func(ctx context.Context, tx *sql.Tx, ch seedengine.SeedHealthChange) error {
						return fr.s.queue.QueuePageFetchesTx(ctx, tx, ch.Pages)
					})
				if err != nil {
					errs <- err
					return
				}
				committed[k] = time.Now()
			}
		})
	}
	wg.Wait()
	close(errs)
	require.NoError(tb, <-errs)
	return committed
}

// queuedOf is the query counting the queued pages of the hosts from
// index from on, and its arguments.
func (fr *frontier) queuedOf(from int) (string, []any) {
	if from == 0 {
		return `SELECT COUNT(*) FROM pages WHERE state = 'queued'`, nil
	}
	args := make([]any, 0, from)
	marks := make([]string, 0, from)
	for i, id := range fr.seedIDs[:from] {
		args = append(args, id)
		marks = append(marks, fmt.Sprintf("$%d", i+1))
	}
	return `SELECT COUNT(*) FROM pages WHERE state = 'queued' AND seed_id NOT IN (` + strings.Join(marks, ",") + `)`, args
}
