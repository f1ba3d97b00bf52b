package cms

// profiles are the systems we recognise, with their fingerprints and
// default locations. Sources: each system's own documentation (WordPress
// feeds and wp-sitemap; Yoast and Rank Math sitemaps and Yoast News SEO;
// Arc XP Outbound Feeds' path table; Drupal core's /rss.xml and
// simple_sitemap variants; TYPO3 tx_news' RSS page type 9818 and the seo
// extension's sitemap type 1533906435; Ghost's /rss/ and tag feeds;
// Joomla's format=feed; Blogger's /feeds/posts/default; Brightspot's
// sitemap plugin; BLOX CMS's search feeds and /tncms/sitemap/; Squarespace's
// ?format=rss on collections; the static site generators' defaults).
var profiles = []*Profile{
	{
		Name:         "wordpress",
		Feeds:        []string{"/feed/", "/feed/atom/", "/?feed=rss2"},
		NewsSitemaps: []string{"/news-sitemap.xml", "/sitemap-news.xml", "/sitemap_news.xml"},
		Sitemaps:     []string{"/sitemap.xml", "/sitemap_index.xml", "/wp-sitemap.xml"}, // core and Yoast redirect /sitemap.xml to theirs
		SectionFeed:  sectionSlash("feed/"),
		generators:   []string{"wordpress"},
		markers:      []string{"/wp-content/", "/wp-includes/", "/wp-json/", "wp-emoji-release", "wp-block-"},
		headers:      []header{{"Link", "api.w.org"}},
	},
	{
		Name:         "arc_xp",
		Feeds:        []string{"/arc/outboundfeeds/rss/?outputType=xml", "/arcio/rss/"},
		NewsSitemaps: []string{"/arc/outboundfeeds/news-sitemap/?outputType=xml", "/arc/outboundfeeds/sitemap-news/?outputType=xml"},
		Sitemaps:     []string{"/arc/outboundfeeds/sitemap-index/?outputType=xml", "/arc/outboundfeeds/sitemap/?outputType=xml"},
		SectionFeed: func(p string) string {
			if p == "/" {
				return "/arc/outboundfeeds/rss/?outputType=xml"
			}
			return "/arc/outboundfeeds/rss/category" + trimSlash(p) + "/?outputType=xml"
		},
		markers: []string{"/pf/resources/", "/pf/dist/", "/pf/api/v3/", "window.Fusion", "Fusion.arcSite", "arcpublishing.com", "arc-cdn"},
	},
	{
		Name:         "drupal",
		Feeds:        []string{"/rss.xml"},
		NewsSitemaps: []string{"/news/sitemap.xml", "/googlenews.xml", "/sitemap-news.xml"},
		Sitemaps:     []string{"/sitemap.xml"},
		generators:   []string{"drupal"},
		headers:      []header{{"X-Generator", "drupal"}, {"X-Drupal-Cache", ""}, {"X-Drupal-Dynamic-Cache", ""}},
		markers:      []string{"/sites/default/files/", "drupal-settings-json", "Drupal.settings", "/core/misc/drupal", "data-drupal-"},
	},
	{
		Name:         "typo3",
		Feeds:        []string{"/?type=9818", "/rss.xml", "/index.php?type=100"},
		NewsSitemaps: []string{"/?type=1533906435&sitemap=news", "/sitemap-news.xml"},
		Sitemaps:     []string{"/sitemap.xml", "/?type=1533906435"},
		generators:   []string{"typo3"},
		markers:      []string{"/typo3conf/", "/typo3temp/", "/typo3/", "/fileadmin/"},
	},
	{
		Name:        "ghost",
		Feeds:       []string{"/rss/"},
		Sitemaps:    []string{"/sitemap.xml"},
		SectionFeed: sectionSlash("rss/"),
		generators:  []string{"ghost"},
		markers:     []string{"/ghost/api/", "/assets/built/", "ghost-portal", "data-ghost", "/content/images/"},
	},
	{
		Name:        "joomla",
		Feeds:       []string{"/?format=feed&type=rss", "/index.php?format=feed&type=rss", "/?format=feed&type=atom"},
		Sitemaps:    []string{"/sitemap.xml", "/index.php?option=com_jmap&view=sitemap&format=xml"},
		SectionFeed: sectionQuery("format=feed&type=rss"),
		generators:  []string{"joomla"},
		markers:     []string{"/media/jui/", "/media/system/js/", "/media/templates/site/", "/components/com_", "option=com_"},
	},
	{
		Name:       "blogger",
		Feeds:      []string{"/feeds/posts/default", "/feeds/posts/default?alt=rss"},
		Sitemaps:   []string{"/sitemap.xml"},
		generators: []string{"blogger"},
		markers:    []string{"blogger.com/static", "blogblog.com", "bp.blogspot.com", "blogger.googleusercontent.com"},
	},
	{
		Name:         "brightspot",
		Feeds:        []string{"/rss", "/index.rss"},
		NewsSitemaps: []string{"/news-sitemap.xml", "/news-sitemap-content.xml"},
		Sitemaps:     []string{"/sitemap.xml", "/sitemap-latest.xml"},
		SectionFeed:  func(p string) string { return trimSlash(p) + ".rss" },
		markers:      []string{"brightspot.contentId", "brightspot-", "/_brightspot/", "brightspotcdn"},
	},
	{
		Name: "blox",
		Feeds: []string{
			"/search/?f=rss&t=article&c=news&l=50&s=start_time&sd=desc",
			"/search/?f=rss&t=article&l=50&s=start_time&sd=desc",
		},
		NewsSitemaps: []string{"/tncms/sitemap/news.xml"},
		Sitemaps:     []string{"/tncms/sitemap/editorial.xml", "/sitemap.xml"},
		SectionFeed: func(p string) string {
			if p = trimSlash(p); p == "/" {
				return "/search/?f=rss&t=article&l=50&s=start_time&sd=desc"
			}
			return "/search/?f=rss&t=article&c=" + p[1:] + "&l=50&s=start_time&sd=desc"
		},
		markers: []string{"/tncms/", "tncms.", "bloximages", "TNCMS"},
	},
	{
		Name:        "squarespace",
		Feeds:       []string{"/blog?format=rss", "/news?format=rss"},
		Sitemaps:    []string{"/sitemap.xml"},
		SectionFeed: sectionQuery("format=rss"),
		markers:     []string{"This is Squarespace.", "static1.squarespace.com", "squarespace-cdn.com", "Static.SQUARESPACE_CONTEXT"},
	},
	{
		Name:       "hugo",
		Feeds:      []string{"/index.xml"},
		Sitemaps:   []string{"/sitemap.xml"},
		generators: []string{"hugo"},
	},
	{
		Name:       "jekyll",
		Feeds:      []string{"/feed.xml", "/atom.xml"},
		Sitemaps:   []string{"/sitemap.xml"},
		generators: []string{"jekyll"},
	},
	{
		Name:       "pelican",
		Feeds:      []string{"/feeds/all.atom.xml", "/feeds/all.rss.xml"},
		generators: []string{"pelican"},
	},
	{
		Name:       "hexo",
		Feeds:      []string{"/atom.xml", "/rss2.xml"},
		Sitemaps:   []string{"/sitemap.xml"},
		generators: []string{"hexo"},
	},
	{
		Name:       "gatsby",
		Feeds:      []string{"/rss.xml"},
		Sitemaps:   []string{"/sitemap-index.xml", "/sitemap.xml"},
		generators: []string{"gatsby"},
	},
	{
		Name:       "eleventy",
		Feeds:      []string{"/feed.xml", "/feed/feed.xml"},
		Sitemaps:   []string{"/sitemap.xml"},
		generators: []string{"eleventy"},
	},
	{
		Name:       "wix",
		Feeds:      []string{"/blog-feed.xml"},
		Sitemaps:   []string{"/sitemap.xml"},
		generators: []string{"wix.com"},
		markers:    []string{"static.wixstatic.com", "static.parastorage.com"},
	},
	{
		Name:     "substack",
		Feeds:    []string{"/feed"},
		Sitemaps: []string{"/sitemap.xml"},
		markers:  []string{"substackcdn.com", "substack.com/api"},
	},
	{
		Name:       "hubspot",
		Feeds:      []string{"/blog/rss.xml", "/rss.xml"},
		Sitemaps:   []string{"/sitemap.xml"},
		generators: []string{"hubspot"},
		markers:    []string{"/hs/hsstatic/", "hs-scripts.com", "hubspotusercontent"},
	},
	{
		Name:     "shopify",
		Feeds:    []string{"/blogs/news.atom"},
		Sitemaps: []string{"/sitemap.xml"},
		markers:  []string{"cdn.shopify.com", "Shopify.theme"},
	},
	{
		Name:       "plone",
		Feeds:      []string{"/RSS", "/news/RSS"},
		Sitemaps:   []string{"/sitemap.xml.gz"},
		generators: []string{"plone"},
	},
}

func trimSlash(p string) string {
	for len(p) > 1 && p[len(p)-1] == '/' {
		p = p[:len(p)-1]
	}
	return p
}
