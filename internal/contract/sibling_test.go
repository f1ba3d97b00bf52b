package contract_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine/internal/contract"
	"github.com/seedengine/seedengine/internal/simweb"
	"github.com/seedengine/seedengine/internal/simweb/simwebtest"
)

// homeLinking is a home page whose only way to a feed is an "RSS" anchor
// to href.
func homeLinking(href string) map[string]simweb.Page {
	return map[string]simweb.Page{"/": {ContentType: "text/html; charset=utf-8", Body: []byte(`<!doctype html><html lang="en"><head><title>Home</title></head>
<body><h1>The Example Times</h1><ul><li><a href="/news/">News</a></li></ul><footer><a href="` + href + `">RSS</a></footer></body></html>`)}}
}

// A feed on another host of the domain is judged by that host's
// robots.txt, read the first time the run goes there and kept in the
// evidence: the www host forbidding the feed's path does not forbid it
// on rss., and rss.'s own Disallow does.
func TestDiscoverSiblingHostRobots(t *testing.T) {
	t.Parallel()
	_, client := simwebtest.Client(t, []simweb.Site{
		// The domain's robots.txt disallows /feed/; rss. allows it.
		{Host: "sibok-example.com.sg", Layout: simweb.LayoutStatic, Robots: ptr("User-agent: *\nDisallow: /feed/\n"),
			Pages: homeLinking("https://rss.sibok-example.com.sg/feed/")},
		{Host: "rss.sibok-example.com.sg", Layout: simweb.LayoutWordPress, Robots: ptr("User-agent: *\nDisallow: /private/\n")},
		// The domain allows all; feeds.'s robots.txt disallows the feed.
		{Host: "sibno-example.com.sg", Layout: simweb.LayoutStatic, Pages: homeLinking("https://feeds.sibno-example.com.sg/feed/")},
		{Host: "feeds.sibno-example.com.sg", Layout: simweb.LayoutWordPress, Robots: ptr("User-agent: *\nDisallow: /feed/\n")},
	}, 2*time.Second)
	d := contract.New(client, contract.Config{})

	ev := d.Discover(t.Context(), "media:sg:sibok-example.com.sg", "sibok-example.com.sg")
	require.NotEmpty(t, ev.Decisions)
	require.Equal(t, "https://rss.sibok-example.com.sg/feed/", ev.Decisions[0].EntryURL, ev.Decisions[0].Why)
	c := find(ev, contract.KindFeed, "rss.sibok-example.com.sg/feed/")
	require.NotNil(t, c)
	require.Equal(t, contract.ViaSibling, c.Via, "the evidence says where it was found")
	require.Equal(t, contract.RobotsAllowed, c.Robots)
	require.Len(t, ev.HostRobots, 1, "%+v", ev.HostRobots)
	require.Equal(t, contract.HostRobotsEvidence{Host: "rss.sibok-example.com.sg", URL: "https://rss.sibok-example.com.sg/robots.txt",
		FinalURL: "https://rss.sibok-example.com.sg/robots.txt", Status: 200, Result: "parsed", Rules: 1}, ev.HostRobots[0])

	ev = d.Discover(t.Context(), "media:sg:sibno-example.com.sg", "sibno-example.com.sg")
	c = find(ev, contract.KindFeed, "feeds.sibno-example.com.sg/feed/")
	require.NotNil(t, c)
	require.Equal(t, contract.RobotsDisallowed, c.Robots)
	require.False(t, c.Fetched)
	require.Equal(t, contract.SkipRobots, c.Skipped)
	require.Len(t, ev.HostRobots, 1)
	require.Equal(t, "feeds.sibno-example.com.sg", ev.HostRobots[0].Host)
	for _, dec := range ev.Decisions {
		require.NotContains(t, dec.EntryURL, "feeds.sibno-example.com.sg", "a feed its host's robots.txt forbids is no entry")
	}
}

// A one-feed "RSS" page's subscription link is a candidate, judged by
// what it serves; a page elsewhere reached so (a paywall's shop) offers
// nothing further: its "Subscribe now" links are never fetched.
func TestDirectoryHubsStayOnSite(t *testing.T) {
	t.Parallel()
	page := func(body string) map[string]simweb.Page {
		return map[string]simweb.Page{"/": {ContentType: "text/html; charset=utf-8", Body: []byte(`<!doctype html><html lang="en"><head><title>x</title></head><body>` + body + `</body></html>`)}}
	}
	home := page(`<h1>The Hub Times</h1><footer><a href="/rss-feeds/">RSS</a></footer>`)
	home["/rss-feeds/"] = simweb.Page{ContentType: "text/html; charset=utf-8",
		Body: []byte(`<html><body><p>Get our news:</p><a href="https://shop.paywall-example.com/">Subscribe</a></body></html>`)}
	w, client := simwebtest.Client(t, []simweb.Site{
		{Host: "hubs-example.com.sg", Layout: simweb.LayoutStatic, Pages: home},
		{Host: "shop.paywall-example.com", Layout: simweb.LayoutStatic,
			Pages: page(`<a href="https://checkout.thirdparty-example.com/">Subscribe now</a>`)},
		{Host: "checkout.thirdparty-example.com", Layout: simweb.LayoutWordPress},
	}, 2*time.Second)
	ev := contract.New(client, contract.Config{}).Discover(t.Context(), "media:sg:hubs-example.com.sg", "hubs-example.com.sg")
	dir := find(ev, contract.KindFeed, "/rss-feeds/")
	require.NotNil(t, dir)
	require.Equal(t, contract.FormatDirectory, dir.Format, "a page listing one feed (its Subscribe link) is a directory")
	shop := find(ev, contract.KindFeed, "shop.paywall-example.com/")
	require.NotNil(t, shop, "the directory's subscription link is a candidate")
	require.True(t, shop.Fetched)
	require.Nil(t, find(ev, contract.KindFeed, "checkout.thirdparty-example.com/"), "the shop's own links are not followed")
	require.Zero(t, w.Requests("checkout.thirdparty-example.com"), "nothing was asked of the shop's checkout")
}
