package feed_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine/internal/feed"
)

const publisherPage = `<!DOCTYPE html><html lang="de"><head>
<meta charset="utf-8">
<meta name="generator" content="TYPO3 CMS">
<meta name="generator" content="second one is ignored">
<link rel="sitemap" type="application/xml" title="Sitemap" href="/googlenews.xml">
<link rel="stylesheet" href="/typo3temp/assets/css/site.css">
</head><body>
<nav><a href="/politik/">Politik</a> <a href="/abo/">Abonnieren</a></nav>
<footer>
<a href="/service/rss-feeds/">RSS-Feeds</a>
<a href="https://rss.rheinblatt-example.de/">RSS</a>
<a href="/sitemap/">Sitemap</a>
<a href="/sitemaps/news.xml">Sitemap News</a>
<a href="https://static.rheinblatt-example.de/sitemap-news-de.xml.gz">News-Sitemap</a>
<a href="/plan-du-site">Plan du site</a>
<a href="https://shop.example.net/subscribe">Subscribe</a>
<a href="/impressum/">Impressum</a>
</footer></body></html>`

func TestFromHTMLSitemapsHubsGenerator(t *testing.T) {
	t.Parallel()
	p, err := feed.FromHTML("https://www.rheinblatt-example.de/", strings.NewReader(publisherPage), 0)
	require.NoError(t, err)
	require.Equal(t, "TYPO3 CMS", p.Generator)

	require.Equal(t, []feed.SitemapLink{
		{URL: "https://www.rheinblatt-example.de/googlenews.xml", Source: feed.SourceLinkSitemap, Title: "Sitemap", XML: true},
		{URL: "https://www.rheinblatt-example.de/sitemap/", Source: feed.SourceAnchor, Title: "Sitemap", XML: false},
		{URL: "https://www.rheinblatt-example.de/sitemaps/news.xml", Source: feed.SourceAnchor, Title: "Sitemap News", XML: true},
		{URL: "https://static.rheinblatt-example.de/sitemap-news-de.xml.gz", Source: feed.SourceAnchor, Title: "News-Sitemap", XML: true},
		{URL: "https://www.rheinblatt-example.de/plan-du-site", Source: feed.SourceAnchor, Title: "Plan du site", XML: false},
	}, p.Sitemaps)

	var feeds []string
	for _, f := range p.Feeds {
		feeds = append(feeds, f.URL)
	}
	require.Equal(t, []string{
		"https://www.rheinblatt-example.de/service/rss-feeds/", // a directory is fetched like a feed
		"https://rss.rheinblatt-example.de/",                   // "RSS" on a sibling host
	}, feeds)

	var hubs []string
	for _, h := range p.Hubs {
		hubs = append(hubs, h.URL+" "+h.Title)
	}
	require.Equal(t, []string{
		"https://www.rheinblatt-example.de/abo/ Abonnieren",
		"https://shop.example.net/subscribe Subscribe",
	}, hubs, "subscription links on any host; the caller decides which to follow")
}

func TestLooksLikeFeedURLDirectories(t *testing.T) {
	t.Parallel()
	for _, u := range []string{
		"https://x.example/feeds/", "https://x.example/services/rss", "https://x.example/about/rss",
		"https://x.example/service/rss-feeds/", "https://x.example/infoservices/rssfeeds",
	} {
		require.True(t, feed.LooksLikeFeedURL(u), u)
	}
}

func TestMainScore(t *testing.T) {
	t.Parallel()
	type f struct{ url, title string }
	// Each pair: the first is the feed a person would take for the site.
	pairs := [][2]f{
		{{"https://x.example/rss/topstories.xml", "Top stories"}, {"https://x.example/rss/sport.xml", "Sport"}},
		{{"https://x.example/schlagzeilen/index.rss", "Schlagzeilen"}, {"https://x.example/wirtschaft/index.rss", "Wirtschaft"}},
		{{"https://x.example/rss/news.xml", "All news"}, {"https://x.example/rss/weather.xml", "Weather"}},
		{{"https://x.example/rss/main.rdf", "主要ニュース"}, {"https://x.example/rss/sports.rdf", "スポーツ"}},
		{{"https://x.example/feed/", ""}, {"https://x.example/podcasts/daily/feed/", "Daily podcast"}},
		{{"https://x.example/rss/latest.xml", "Latest"}, {"https://x.example/rss/world/europe.xml", "Europe"}},
	}
	for _, p := range pairs {
		a, b := feed.MainScore(p[0].url, p[0].title), feed.MainScore(p[1].url, p[1].title)
		require.Greater(t, a, b, "%v over %v", p[0], p[1])
		require.LessOrEqual(t, a, 1.0)
		require.GreaterOrEqual(t, b, -1.0)
	}
}
