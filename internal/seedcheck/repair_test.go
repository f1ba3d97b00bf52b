package seedcheck_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/seedcheck"
	"github.com/seedengine/seedengine/internal/simweb"
	"github.com/seedengine/seedengine/internal/simweb/simwebtest"
	"github.com/seedengine/seedengine/internal/sqlstore"
	"github.com/seedengine/seedengine/internal/sqlstore/sqlstoretest"
)

// A read that finds its whole window new reads back through the seed's
// archive until the last item known before is found again: every
// article in between is recorded once, marked recovered, with the
// document it came from. A paged feed is read page after page (three
// windows scrolled out: four pages); a news sitemap once; a feed without
// an archive only flags the gap and counts half a window as missed; a
// paged feed whose pages run out says so (archive_end).
func TestRepairFromArchive(t *testing.T) {
	t.Parallel()
	sqlstoretest.Engines(t, func(t *testing.T, db *sqlstore.DB) {
		ctx := t.Context()
		clock := simweb.NewManualClock(time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC))
		feedPub := simweb.Publication{Path: "/feed", Format: simweb.PubRSS, Window: 10}
		paged := &simweb.Publisher{Host: "paged-news.com.sg", PerDay: 1440, Clock: clock,
			Publications: []simweb.Publication{{Path: "/feed", Format: simweb.PubRSS, Window: 10, Paged: true}}}
		news := &simweb.Publisher{Host: "map-news.com.sg", PerDay: 1440, Clock: clock,
			Publications: []simweb.Publication{feedPub, {Path: "/news-sitemap.xml", Format: simweb.PubNewsSitemap, MaxAge: 48 * time.Hour}}}
		plain := &simweb.Publisher{Host: "plain-news.com.sg", PerDay: 1440, Clock: clock, Publications: []simweb.Publication{feedPub}}
		short := &simweb.Publisher{Host: "short-news.com.sg", PerDay: 1440, Clock: clock,
			Publications: []simweb.Publication{{Path: "/feed", Format: simweb.PubRSS, Window: 10, Paged: true}}}
		// short-news keeps two pages: page 3 is not found.
		shortSite := short.Site()
		shortSite.Pages = map[string]simweb.Page{"/feed?paged=3": {Status: 404, Body: []byte("no such page")}}
		_, client := simwebtest.Client(t, []simweb.Site{paged.Site(), news.Site(), plain.Site(), shortSite}, 5*time.Second)
		store := sqlstore.NewSeedService(db)
		items := sqlstore.NewItemService(db)
		svc := seedcheck.NewService(store, seedcheck.NewChecker(client, clock.Current), seedcheck.Config{Now: clock.Current})

		seeds := map[string]*seedengine.PublisherArchive{
			paged.Host: {Kind: seedengine.ArchivePagedFeed, URL: "https://" + paged.Host + "/feed"},
			news.Host:  {Kind: seedengine.ArchiveNewsSitemap, URL: "https://" + news.Host + "/news-sitemap.xml"},
			plain.Host: nil,
			short.Host: {Kind: seedengine.ArchivePagedFeed, URL: "https://" + short.Host + "/feed"},
		}
		ids := map[string]string{}
		for host, a := range seeds {
			sd := &seedengine.Seed{DomainID: "media:sg:" + host, ContentType: "news", Category: "news",
				Fetch: seedengine.SeedFetch{Type: seedengine.FetchRSS, EntryURL: "https://" + host + "/feed", Schedule: "@hourly"}}
			sd.Harvest.Archive = a
			require.NoError(t, store.CreateSeed(ctx, sd, "test"))
			_, err := store.TransitionSeed(ctx, sd.SeedID, seedengine.SeedPromote, "test", "")
			require.NoError(t, err)
			ids[host] = sd.SeedID
		}
		// A day of publishing, a first read of each; then 40 minutes:
		// 40 articles a publisher, four windows, of which one shows.
		clock.Set(clock.Epoch.Add(24 * time.Hour))
		for _, id := range ids {
			_, _, err := svc.Check(ctx, id, nil)
			require.NoError(t, err)
		}
		before := clock.Current()
		clock.Set(before.Add(40 * time.Minute))
		checks := map[string]seedengine.SeedCheck{}
		for host, id := range ids {
			c, _, err := svc.Check(ctx, id, nil)
			require.NoError(t, err)
			checks[host] = c
		}

		published := func(p *simweb.Publisher) int { return p.Count(clock.Current()) - p.Count(before) }
		c := checks[paged.Host]
		require.Equal(t, published(paged)-10, c.Repaired, "%+v", c)
		require.Equal(t, 4, c.RepairReads, "pages 2 to 5: the fifth has the last known item")
		require.Empty(t, c.RepairReason)
		require.False(t, c.PossibleGap)
		require.Zero(t, c.EstimatedMissed)

		c = checks[news.Host]
		// The gap, and what the sitemap dates within the hour before the
		// last read that was never seen (here: before the first read).
		require.GreaterOrEqual(t, c.Repaired, published(news)-10)
		require.LessOrEqual(t, c.Repaired, published(news)-10+60)
		require.Equal(t, 1, c.RepairReads)
		require.False(t, c.PossibleGap)

		c = checks[short.Host]
		require.Equal(t, 10, c.Repaired, "page 2")
		require.Equal(t, 2, c.RepairReads)
		require.Equal(t, seedcheck.RepairEnd, c.RepairReason)
		require.True(t, c.PossibleGap, "a repair that stopped short leaves the gap")
		require.Equal(t, 5, c.EstimatedMissed)

		c = checks[plain.Host]
		require.Zero(t, c.Repaired)
		require.True(t, c.PossibleGap)
		require.Equal(t, 5, c.EstimatedMissed)

		// Every recovered item once, with where it came from.
		var all []seedengine.Item
		var since int64
		for {
			page, err := items.FindItems(ctx, seedengine.ItemFilter{Since: since, Limit: 1000})
			require.NoError(t, err)
			if len(page) == 0 {
				break
			}
			all = append(all, page...)
			since = page[len(page)-1].ID
		}
		seen := map[string]int{}
		docs := map[string]bool{}
		for _, it := range all {
			seen[it.NormalizedURL]++
			if it.Recovered {
				docs[it.Source.Document] = true
				require.Equal(t, clock.Current(), it.FirstSeenAt.UTC(), "first seen when recovered")
			}
		}
		for u, n := range seen {
			require.Equal(t, 1, n, u)
		}
		for _, p := range []*simweb.Publisher{paged, news} {
			for i := p.Count(before) - 10; i < p.Count(clock.Current()); i++ {
				require.Contains(t, seen, p.ArticleURL(i), "%s: article %d", p.Host, i)
			}
		}
		require.True(t, docs["https://"+paged.Host+"/feed?paged=2"])
		require.True(t, docs["https://"+paged.Host+"/feed?paged=4"])
		require.False(t, docs["https://"+paged.Host+"/feed?paged=5"], "page 5 held what was known")
		require.True(t, docs["https://"+news.Host+"/news-sitemap.xml"])
	})
}
