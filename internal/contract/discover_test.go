package contract_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/contract"
	"github.com/seedengine/seedengine/internal/simweb"
	"github.com/seedengine/seedengine/internal/simweb/simwebtest"
)

func ptr[T any](v T) *T { return &v }

// sites are one simulated site per case the contract decision must get
// right.
var sites = []simweb.Site{
	{Host: "wp-example.gov.sg", Layout: simweb.LayoutWordPress},
	{Host: "news-example.com.sg", Layout: simweb.LayoutNews},
	{Host: "gov-example.gov.sg", Layout: simweb.LayoutGov},
	{Host: "blog-example.org.sg", Layout: simweb.LayoutBlog},
	{Host: "static-example.gov.sg", Layout: simweb.LayoutStatic},
	{Host: "blocked-example.gov.sg", Layout: simweb.LayoutWordPress, Robots: ptr("User-agent: *\nDisallow: /\nSitemap: /sitemap.xml\n")},
	{Host: "ours-blocked-example.gov.sg", Layout: simweb.LayoutWordPress, Robots: ptr("User-agent: SeedEngine\nDisallow: /\n\nUser-agent: *\nAllow: /\n")},
	{Host: "robots500-example.gov.sg", Layout: simweb.LayoutWordPress, RobotsStatus: 503},
	{Host: "robots404-example.gov.sg", Layout: simweb.LayoutWordPress, RobotsStatus: 404},
	{Host: "delay-example.gov.sg", Layout: simweb.LayoutWordPress, Robots: ptr("User-agent: *\nCrawl-delay: 0.01\nDisallow: /private/\n")},
	{Host: "feeddisallowed-example.gov.sg", Layout: simweb.LayoutWordPress, Robots: ptr("User-agent: *\nDisallow: /feed/\nSitemap: https://feeddisallowed-example.gov.sg/sitemap.xml\n")},
	{Host: "dead-example.gov.sg", Scenario: simweb.ScenarioNXDomain},
	{Host: "gzindex-example.gov.sg", Layout: simweb.LayoutStatic, Robots: ptr("User-agent: *\nDisallow:\nSitemap: https://gzindex-example.gov.sg/sitemap_index.xml\n"),
		Pages: map[string]simweb.Page{
			"/sitemap_index.xml": {ContentType: "application/xml", Body: []byte(`<?xml version="1.0" encoding="UTF-8"?>
<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
<sitemap><loc>https://gzindex-example.gov.sg/sitemap-1.xml.gz</loc></sitemap>
<sitemap><loc>https://gzindex-example.gov.sg/sitemap-2.xml.gz</loc></sitemap>
</sitemapindex>`)},
			"/sitemap-1.xml.gz": {ContentType: "application/x-gzip", Body: simweb.GzipBytes([]byte(urlset("https://gzindex-example.gov.sg/a/", "https://gzindex-example.gov.sg/b/")))},
			"/sitemap-2.xml.gz": {ContentType: "application/x-gzip", Body: simweb.GzipBytes([]byte(urlset("https://gzindex-example.gov.sg/c/", "https://gzindex-example.gov.sg/d/")))},
		}},
}

func urlset(locs ...string) string {
	s := `<?xml version="1.0" encoding="UTF-8"?>` + "\n" + `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`
	for _, l := range locs {
		s += "<url><loc>" + l + "</loc></url>"
	}
	return s + "</urlset>\n"
}

func discoverer(t *testing.T, cfg contract.Config) *contract.Discoverer {
	t.Helper()
	_, client := simwebtest.Client(t, sites, 2*time.Second)
	return contract.New(client, cfg)
}

func find(ev *contract.Evidence, kind, suffix string) *contract.Candidate {
	for _, c := range ev.Candidates {
		if c.Kind == kind && len(c.URL) >= len(suffix) && c.URL[len(c.URL)-len(suffix):] == suffix {
			return c
		}
	}
	return nil
}

func TestDiscoverLayouts(t *testing.T) {
	t.Parallel()
	d := discoverer(t, contract.Config{})
	tests := []struct {
		domain     string
		fetchType  seedengine.FetchType
		entry      string
		allowed    bool
		method     string
		minConf    float64
		maxConf    float64
		sitemapURL string
	}{
		{"wp-example.gov.sg", seedengine.FetchRSS, "https://wp-example.gov.sg/feed/", true, "rss via link_alternate", 0.95, 0.95, "https://wp-example.gov.sg/sitemap.xml"},
		{"news-example.com.sg", seedengine.FetchNewsSitemap, "https://news-example.com.sg/news-sitemap.xml", true, "news_sitemap via", 0.8, 0.85, "https://news-example.com.sg/sitemap_index.xml"},
		{"gov-example.gov.sg", seedengine.FetchRSS, "https://gov-example.gov.sg/newsroom/rss", true, "rss via anchor", 0.9, 0.9, "https://gov-example.gov.sg/sitemap.xml"},
		{"blog-example.org.sg", seedengine.FetchAtom, "https://blog-example.org.sg/atom.xml", true, "atom via link_alternate", 0.95, 0.95, "https://blog-example.org.sg/sitemap.xml"},
		{"static-example.gov.sg", seedengine.FetchHTML, "https://static-example.gov.sg/news/", true, "html section via home_page", 0.35, 0.35, ""},
		// robots.txt names a sitemap it forbids us to read: the policy names
		// only what was read.
		{"blocked-example.gov.sg", seedengine.FetchHTML, "https://blocked-example.gov.sg/", false, "robots_disallowed", 0.1, 0.1, ""},
		{"ours-blocked-example.gov.sg", seedengine.FetchHTML, "https://ours-blocked-example.gov.sg/", false, "robots_disallowed", 0.1, 0.1, ""},
		{"robots404-example.gov.sg", seedengine.FetchRSS, "https://robots404-example.gov.sg/feed/", true, "rss via link_alternate", 0.95, 0.95, "https://robots404-example.gov.sg/sitemap.xml"},
	}
	for _, tt := range tests {
		t.Run(tt.domain, func(t *testing.T) {
			t.Parallel()
			ev := d.Discover(t.Context(), "gov:sg:"+tt.domain, tt.domain)
			require.Equal(t, contract.OutcomeSeeded, ev.Outcome, "%+v", ev)
			require.NotEmpty(t, ev.Decisions)
			got := ev.Decisions[0]
			require.Equal(t, "news", got.ContentType)
			require.Equal(t, tt.fetchType, got.FetchType, got.Why)
			require.Equal(t, tt.entry, got.EntryURL)
			require.Equal(t, tt.allowed, got.CrawlAllowed)
			require.Contains(t, got.Method, tt.method)
			require.GreaterOrEqual(t, got.Confidence, tt.minConf)
			require.LessOrEqual(t, got.Confidence, tt.maxConf)
			require.NoError(t, seedengine.ValidateCron(got.Schedule))
			require.LessOrEqual(t, ev.Spent.Requests, 40)
			require.False(t, ev.Spent.BudgetExhausted)
			require.False(t, ev.Spent.DeadlineReached)
			s := contract.SeedFrom(ev, got, "prod/contracts/x/2026-01-01T000000Z.json", "news")
			require.NoError(t, s.Validate())
			require.Equal(t, tt.sitemapURL, s.Policy.SitemapURL)
			require.Equal(t, "https://"+tt.domain+"/robots.txt", s.Policy.RobotsURL)
			for _, c := range ev.Candidates {
				require.NotEmpty(t, c.Robots, "every candidate has a robots verdict: %+v", c)
				require.True(t, c.Fetched || c.Skipped != "", "an unfetched candidate says why: %+v", c)
			}
		})
	}
}

func TestDiscoverEvidenceDetails(t *testing.T) {
	t.Parallel()
	d := discoverer(t, contract.Config{})
	ctx := t.Context()

	t.Run("wordpress drops the comments feed and reads the sitemap", func(t *testing.T) {
		t.Parallel()
		ev := d.Discover(ctx, "gov:sg:wp-example.gov.sg", "wp-example.gov.sg")
		require.Nil(t, find(ev, contract.KindFeed, "/comments/feed/"), "comment feeds are not candidates")
		f := find(ev, contract.KindFeed, "/feed/")
		require.NotNil(t, f)
		require.True(t, f.Fetched)
		require.Equal(t, 200, f.Status)
		require.Equal(t, "rss", f.Format)
		require.Equal(t, 10, f.Items)
		require.NotNil(t, f.Newest)
		require.Len(t, f.Preview, 5, "the newest items, for a reviewer")
		require.NotEmpty(t, f.Preview[0].Title)
		require.Equal(t, *f.Newest, *f.Preview[0].Date)
		require.True(t, f.Preview[0].Date.After(*f.Preview[4].Date), "newest first")
		require.Equal(t, contract.RobotsAllowed, f.Robots)
		sm := find(ev, contract.KindSitemap, "/sitemap.xml")
		require.NotNil(t, sm)
		require.Equal(t, contract.ViaRobots, sm.Via)
		require.Equal(t, "urlset", sm.Format)
		require.Equal(t, 20, sm.Items)
		require.Equal(t, "parsed", ev.Robots.Result)
		require.True(t, ev.Robots.HomeAllowed)
		require.NotNil(t, ev.Home)
		require.Equal(t, 200, ev.Home.Status)
	})

	t.Run("a news sitemap named in robots.txt ends the search", func(t *testing.T) {
		t.Parallel()
		ev := d.Discover(ctx, "media:sg:news-example.com.sg", "news-example.com.sg")
		news := find(ev, contract.KindSitemap, "/news-sitemap.xml")
		require.NotNil(t, news)
		require.Equal(t, contract.ViaRobots, news.Via)
		require.True(t, news.Fetched)
		require.Positive(t, news.NewsItems)
		require.Len(t, news.Preview, 5)
		require.NotEmpty(t, news.Preview[0].Title, "a news entry's title")
		// The index robots.txt names first is read for the policy only:
		// its children are listed, ranked, and left.
		idx := find(ev, contract.KindSitemap, "/sitemap_index.xml")
		require.NotNil(t, idx)
		require.True(t, idx.Fetched)
		require.Equal(t, "sitemapindex", idx.Format)
		require.Equal(t, 4, idx.Children)
		for _, child := range []string{"/sitemap-articles-1.xml.gz", "/sitemap-articles-2.xml.gz", "/sitemap-pages.xml"} {
			c := find(ev, contract.KindSitemap, child)
			require.NotNil(t, c, child)
			require.False(t, c.Fetched, child)
			require.Equal(t, contract.SkipNotNeeded, c.Skipped, child)
			require.Equal(t, idx.URL, c.Parent)
			require.Equal(t, 1, c.Depth)
			require.NotNil(t, c.Lastmod, "the index's lastmod is kept: %s", child)
		}
		for _, c := range ev.Candidates {
			if c.Kind == contract.KindFeed {
				require.False(t, c.Fetched, "nothing guessed once the news sitemap is known: %s", c.URL)
			}
		}
		require.Equal(t, 4, ev.Spent.Requests, "robots.txt, home page, news sitemap, index")
	})

	t.Run("an index with gzip children and nothing news-like", func(t *testing.T) {
		t.Parallel()
		ev := d.Discover(ctx, "gov:sg:gzindex-example.gov.sg", "gzindex-example.gov.sg")
		idx := find(ev, contract.KindSitemap, "/sitemap_index.xml")
		require.NotNil(t, idx)
		require.Equal(t, "sitemapindex", idx.Format)
		require.Equal(t, 2, idx.Children)
		for _, child := range []string{"/sitemap-1.xml.gz", "/sitemap-2.xml.gz"} {
			c := find(ev, contract.KindSitemap, child)
			require.NotNil(t, c, child)
			require.True(t, c.Fetched, child)
			require.True(t, c.Gzip, child)
			require.Equal(t, "urlset", c.Format)
			require.Equal(t, 2, c.Items)
			require.Equal(t, idx.URL, c.Parent)
		}
		require.Equal(t, 4, idx.Items, "an index counts its children's URLs")
		got := ev.Decisions[0]
		require.Equal(t, seedengine.FetchSitemap, got.FetchType, got.Why)
		require.Equal(t, idx.URL, got.EntryURL)
	})

	t.Run("robots 5xx disallows everything for now", func(t *testing.T) {
		t.Parallel()
		ev := d.Discover(ctx, "gov:sg:robots500-example.gov.sg", "robots500-example.gov.sg")
		require.Equal(t, contract.OutcomeRobotsUnavailable, ev.Outcome)
		require.Equal(t, 503, ev.Robots.Status)
		require.Equal(t, "unreachable", ev.Robots.Result)
		require.Empty(t, ev.Decisions)
		require.Nil(t, ev.Home, "nothing is fetched past a robots.txt that cannot be read")
	})

	t.Run("dead domain", func(t *testing.T) {
		t.Parallel()
		ev := d.Discover(ctx, "gov:sg:dead-example.gov.sg", "dead-example.gov.sg")
		require.Equal(t, contract.OutcomeUnreachable, ev.Outcome)
		require.Equal(t, "nxdomain", ev.Detail)
		require.Empty(t, ev.Decisions)
	})

	t.Run("crawl delay", func(t *testing.T) {
		t.Parallel()
		ev := d.Discover(ctx, "gov:sg:delay-example.gov.sg", "delay-example.gov.sg")
		require.InDelta(t, 0.01, ev.Robots.CrawlDelay, 1e-9)
		s := contract.SeedFrom(ev, ev.Decisions[0], "k", "news")
		require.InDelta(t, 0.01, s.Policy.CrawlDelay, 1e-9)
	})

	t.Run("a disallowed feed is not fetched", func(t *testing.T) {
		t.Parallel()
		ev := d.Discover(ctx, "gov:sg:feeddisallowed-example.gov.sg", "feeddisallowed-example.gov.sg")
		f := find(ev, contract.KindFeed, "/feed/")
		require.NotNil(t, f)
		require.False(t, f.Fetched)
		require.Equal(t, contract.RobotsDisallowed, f.Robots)
		require.Equal(t, contract.SkipRobots, f.Skipped)
		require.NotEqual(t, "https://feeddisallowed-example.gov.sg/feed/", ev.Decisions[0].EntryURL)
	})
}

func TestDiscoverBudget(t *testing.T) {
	t.Parallel()
	d := discoverer(t, contract.Config{MaxRequests: 5})
	ev := d.Discover(t.Context(), "gov:sg:static-example.gov.sg", "static-example.gov.sg")
	require.Equal(t, 5, ev.Spent.Requests)
	require.True(t, ev.Spent.BudgetExhausted)
	require.Positive(t, ev.Spent.KnownPathsLeft, "guesses left untried are counted, not listed")
	for _, c := range ev.Candidates {
		require.True(t, c.Fetched || c.Skipped != "", "%+v", c)
		require.False(t, c.Via == contract.ViaKnownPath && !c.Fetched, "an untried guess is not listed: %s", c.URL)
		if !c.Fetched && c.Skipped != contract.SkipLowScore {
			require.Equal(t, contract.SkipBudget, c.Skipped, c.URL)
		}
	}
}

func TestDiscoverDeadline(t *testing.T) {
	t.Parallel()
	_, client := simwebtest.Client(t, []simweb.Site{{Host: "slow-example.gov.sg", Scenario: simweb.ScenarioSlow, Delay: 3 * time.Second}}, 10*time.Second)
	d := contract.New(client, contract.Config{Deadline: 300 * time.Millisecond})
	start := time.Now()
	ev := d.Discover(context.Background(), "gov:sg:slow-example.gov.sg", "slow-example.gov.sg")
	require.Less(t, time.Since(start), 3*time.Second, "the deadline ends the run, not the slow server")
	require.True(t, ev.Spent.DeadlineReached)
	require.Empty(t, ev.Decisions)
}
