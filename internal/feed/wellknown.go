package feed

import (
	"net/url"
	"slices"
)

// WellKnown is a conventional feed location: a path (with query, if any) to
// resolve against the site root, and the [ContentTypeOf] of what it carries.
type WellKnown struct {
	Path        string
	ContentType string
}

// wellKnown is ordered by how often the location exists on the sites we
// look at: the WordPress feed first, then the short forms many frameworks
// and CMSs serve (Drupal's /rss.xml, Ghost's /rss/, Hugo's /index.xml,
// Jekyll's /feed.xml, Blogger, Joomla), then section feeds and rarer CMS
// forms. A contract has a request budget (DESIGN §7), so callers take a
// prefix; internal/cms tries a recognised CMS's own paths first.
var wellKnown = []WellKnown{
	{"/feed/", ContentNews},                          // WordPress, Substack
	{"/rss", ContentNews},                            // Tumblr, Brightspot, many frameworks
	{"/rss.xml", ContentNews},                        // Drupal, Gatsby, news CMSs
	{"/index.xml", ContentNews},                      // Hugo
	{"/feed.xml", ContentNews},                       // Jekyll, Eleventy
	{"/atom.xml", ContentNews},                       // Jekyll (older), Hexo
	{"/rss/", ContentNews},                           // Ghost, feed directories
	{"/feeds/posts/default", ContentNews},            // Blogger
	{"/?format=feed&type=rss", ContentNews},          // Joomla
	{"/index.rss", ContentNews},                      // news CMSs
	{"/feed/atom/", ContentNews},                     // WordPress Atom, when /feed/ is blocked
	{"/rss/index.xml", ContentNews},                  //
	{"/news/rss.xml", ContentNews},                   // news sections
	{"/news/feed/", ContentNews},                     // WordPress category or page feed
	{"/rss/news", ContentNews},                       // BBC-style feed directories
	{"/news/rss", ContentNews},                       //
	{"/feeds/all.atom.xml", ContentNews},             // Pelican
	{"/feed.json", ContentNews},                      // JSON Feed
	{"/feed", ContentNews},                           // servers that do not redirect /feed → /feed/
	{"/newsroom/rss", ContentNews},                   //
	{"/newsroom/feed/", ContentNews},                 //
	{"/index.php?format=feed&type=rss", ContentNews}, // Joomla without URL rewriting
	{"/?feed=rss2", ContentNews},                     // WordPress without permalinks
	{"/press-releases/rss", ContentPressRelease},
	{"/press-releases/feed/", ContentPressRelease},
	{"/media-releases/rss", ContentPressRelease},
	{"/press/feed/", ContentPressRelease},
	{"/blog/feed/", ContentBlog},      // WordPress blog under /blog
	{"/blog/rss.xml", ContentBlog},    // HubSpot
	{"/blog/rss", ContentBlog},        //
	{"/blog?format=rss", ContentBlog}, // Squarespace
	{"/blogs/news.atom", ContentBlog}, // Shopify (its default blog is named "news")
	{"/blog-feed.xml", ContentBlog},   // Wix
}

// WellKnownPaths lists the well-known and CMS feed locations to try, most
// likely first. The slice is fresh; the caller may change it.
func WellKnownPaths() []WellKnown {
	return slices.Clone(wellKnown)
}

// WellKnownCandidates resolves [WellKnownPaths] against the root of siteURL
// (an absolute http(s) URL; only its scheme and host are used) into
// candidates with [SourceWellKnown]. It returns nil for an unusable siteURL.
func WellKnownCandidates(siteURL string) []Candidate {
	u, err := parseAbs(siteURL)
	if err != nil {
		return nil
	}
	root := &url.URL{Scheme: u.Scheme, Host: u.Host, Path: "/"}
	out := make([]Candidate, 0, len(wellKnown))
	for _, w := range wellKnown {
		r, ok := resolve(root, w.Path)
		if !ok {
			continue
		}
		out = append(out, Candidate{URL: r.String(), Source: SourceWellKnown})
	}
	return out
}
