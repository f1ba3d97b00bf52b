package contract

import (
	"net/url"

	"github.com/seedengine/seedengine/internal/sitemap"
)

// Priorities order the search: the candidate of highest priority is
// fetched next. They encode how likely a candidate is to be the site's
// news entry, from what we have seen on the web: a feed the site declares
// almost always is; the recognised CMS's default feed usually is; a link
// that looks like a feed or names a sitemap for news often is; a guessed
// path rarely is, so guesses come after everything a page or robots.txt
// named. Within a kind, news-like names, main feeds and fresh lastmods
// rank first. docs/seeds.md explains the order.
const (
	prioDeclared       = 100 // <link rel="alternate">, Link header
	prioDeclaredMap    = 96  // <link rel="sitemap"> with a news-like name
	prioCMSFeed        = 90  // the recognised CMS's feed path, minus its rank
	prioFeedAnchor     = 88  // an <a> that looks like a feed (or a feed directory)
	prioSectionFeed    = 87  // a feed a section page declares or links, +2·MainScore
	prioDirectoryFeed  = 84  // a feed listed on a directory page, +4·MainScore
	prioCMSNewsMap     = 82  // the recognised CMS's news sitemap path
	prioNewsMap        = 80  // a news-named sitemap (robots, anchor, index child), +5·NewsScore
	prioCMSSectionFeed = 70  // the CMS's feed of a section the home page links, +5·score
	prioEarlySitemap   = 64  // the first plain robots.txt sitemaps: indexes name their children
	prioSection        = 55  // a section page, +10·score
	prioKnownFeed      = 58  // known feed paths, minus their rank
	prioKnownNewsMap   = 57.5
	prioHub            = 45 // "Subscribe", "Abonnieren": may list feeds, often a paywall
	prioSitemap        = 40 // other sitemaps: the policy's, and the sitemap fallback
	prioHTMLSitemap    = 20 // a page labelled "Sitemap", usually one for people
)

// SkipLowScore marks a section link that looks more like an article than
// a listing (score below minSectionScore).
const SkipLowScore = "low_score"

func sectionPriority(score float64) float64 { return prioSection + 10*score }

// newsScore rates a sitemap link by its URL and, for anchors, its text.
func newsScore(u, title string) float64 {
	s := sitemap.NewsScore(u)
	if title != "" {
		if t := sitemap.NewsScore("https://x/" + url.PathEscape(title)); t > s {
			s = t
		}
	}
	return s
}

func sitemapKnownNewsPaths() []string { return sitemap.KnownNewsPaths() }
func sitemapKnownPaths() []string     { return sitemap.KnownPaths() }

func sitemapLooksXML(u string) bool { return sitemap.LooksLikeSitemapURL(u) }
