package contract_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/contract"
	"github.com/seedengine/seedengine/internal/simweb"
	"github.com/seedengine/seedengine/internal/simweb/simwebtest"
)

// The contract run names each feed's archive, as the simulated web's
// publishers keep theirs: a news sitemap beside the feed, the feed's
// older pages at ?paged=2 (and none where the server ignores paged),
// sitemaps by day; and none where there is none. The evidence says why;
// a reviewer choosing the same entry again keeps it.
func TestArchiveChosen(t *testing.T) {
	t.Parallel()
	clock := simweb.NewManualClock(time.Date(2026, 11, 25, 0, 0, 0, 0, time.UTC))
	pub := func(host string, pubs ...simweb.Publication) *simweb.Publisher {
		return &simweb.Publisher{Host: host, PerDay: 300, Clock: clock,
			Publications: append([]simweb.Publication{{Path: "/feed", Format: simweb.PubRSS, Window: 20, Paged: host == "paged-news.com.sg"}}, pubs...)}
	}
	pubs := []*simweb.Publisher{
		pub("newsmap-news.com.sg", simweb.Publication{Path: "/news-sitemap.xml", Format: simweb.PubNewsSitemap, MaxAge: 48 * time.Hour, Window: 1000}),
		pub("paged-news.com.sg"),
		pub("daily-news.com.sg", simweb.Publication{Path: "/sitemap_index.xml", Format: simweb.PubDailySitemaps}),
		pub("plain-news.com.sg"),
	}
	var sites []simweb.Site
	for _, p := range pubs {
		s := p.Site()
		robots := "User-agent: *\nAllow: /\n"
		for _, pb := range p.Publications[1:] {
			robots += "Sitemap: https://" + p.Host + pb.Path + "\n"
		}
		s.Robots = &robots
		s.Pages = map[string]simweb.Page{"/": {Body: []byte(`<!doctype html><html><head><title>News</title>` +
			`<link rel="alternate" type="application/rss+xml" title="News" href="/feed"></head><body><a href="/news/">News</a></body></html>`)}}
		sites = append(sites, s)
	}
	clock.Set(time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC))
	_, client := simwebtest.Client(t, sites, 2*time.Second)
	disc := contract.New(client, contract.Config{Now: clock.Current})

	want := map[string]*seedengine.PublisherArchive{
		"newsmap-news.com.sg": {Kind: seedengine.ArchiveNewsSitemap, URL: "https://newsmap-news.com.sg/news-sitemap.xml"},
		"paged-news.com.sg":   {Kind: seedengine.ArchivePagedFeed, URL: "https://paged-news.com.sg/feed"},
		"daily-news.com.sg":   {Kind: seedengine.ArchiveDailySitemaps, URL: "https://daily-news.com.sg/sitemap_index.xml"},
		"plain-news.com.sg":   nil,
	}
	for _, p := range pubs {
		ev := disc.Discover(t.Context(), "media:sg:"+p.Host, p.Host)
		require.Equal(t, contract.OutcomeSeeded, ev.Outcome, p.Host)
		var d *contract.Decision
		for i := range ev.Decisions {
			if ev.Decisions[i].FetchType == seedengine.FetchRSS {
				d = &ev.Decisions[i]
			}
		}
		require.NotNil(t, d, "%s: the feed is the entry (%+v)", p.Host, ev.Decisions)
		require.Equal(t, "https://"+p.Host+"/feed", d.EntryURL)
		require.Equal(t, want[p.Host], d.Archive, p.Host)
		if d.Archive != nil {
			require.NotEmpty(t, d.ArchiveWhy)
			s := contract.SeedFrom(ev, *d, "prod/contracts/x.json", "news")
			require.Equal(t, d.Archive, s.Harvest.Archive, "the seed's contract names it")
			require.NoError(t, s.Validate())
			again, err := contract.Choose(ev, d.ContentType, "", d.EntryURL, contract.Config{})
			require.NoError(t, err)
			require.Equal(t, d.Archive, again.Archive, "a reviewer's choice of the same entry keeps it")
		}
		require.LessOrEqual(t, ev.Spent.Requests, 40)
	}
}
