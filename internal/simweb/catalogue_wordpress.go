package simweb

import (
	"net/http"
	"strconv"
	"time"
)

// wpConfig is one WordPress site of the catalogue.
type wpConfig struct {
	host, name, tagline, locale string
	loc                         *time.Location
	theme, themeVer             string
	declareFeeds                bool   // the theme keeps wp_head's feed links
	yoast                       bool   // Yoast SEO: sitemap_index.xml and its children; else core wp-sitemap.xml
	seed                        string // varies titles
	sections                    []string
	topLinks                    []link
	footerCols                  []footerCol
	footerExtra, cookie         string
	authors                     []string
}

const wpVersion = "6.5.3"

// wordpressSite builds a WordPress site the way WordPress 6 serves it:
// /feed/ (RSS 2.0), /comments/feed/, /category/<slug>/ with its own feed,
// the REST API and oEmbed discovery links, and a sitemap (Yoast's or core's).
func (b *builder) wordpressSite(cfg wpConfig) *pubSite {
	base := "https://" + cfg.host
	h := b.host(cfg.host)
	sectionOf := func(slug string) string { return "/category/" + slug + "/" }
	labels, slugs, nav := labelsOf(base, sectionOf, cfg.sections...)
	list := b.articles(cfg.seed, articleSpec{lang: "en", n: 30, newest: 47 * time.Minute, every: 2*time.Hour + 20*time.Minute,
		sections: slugs, authors: cfg.authors,
		path: func(a article) string {
			return "/" + a.section + "/" + slugify(a.title) + "-" + strconv.Itoa(a.id) + "/"
		}})

	assets := base + "/wp-content/themes/" + cfg.theme
	head := "<link rel='dns-prefetch' href='//fonts.googleapis.com' />\n"
	if cfg.yoast {
		head = "<!-- This site is optimized with the Yoast SEO plugin v22.7 - https://yoast.com/wordpress/plugins/seo/ -->\n" +
			"<meta name=\"robots\" content=\"index, follow, max-image-preview:large, max-snippet:-1, max-video-preview:-1\" />\n" +
			"<meta property=\"og:locale\" content=\"" + cfg.locale + "\" />\n<meta property=\"og:type\" content=\"website\" />\n" +
			"<meta name=\"twitter:card\" content=\"summary_large_image\" />\n" +
			"<script type=\"application/ld+json\" class=\"yoast-schema-graph\">{\"@context\":\"https://schema.org\",\"@graph\":[{\"@type\":\"WebSite\",\"@id\":\"" + base + "/#website\",\"url\":\"" + base + "/\",\"name\":\"" + cfg.name + "\",\"potentialAction\":[{\"@type\":\"SearchAction\",\"target\":{\"@type\":\"EntryPoint\",\"urlTemplate\":\"" + base + "/?s={search_term_string}\"},\"query-input\":\"required name=search_term_string\"}]}]}</script>\n" +
			"<!-- / Yoast SEO plugin. -->\n\n" + head
	}
	if cfg.declareFeeds {
		head += "<link rel=\"alternate\" type=\"application/rss+xml\" title=\"" + esc(cfg.name) + " &raquo; Feed\" href=\"" + base + "/feed/\" />\n" +
			"<link rel=\"alternate\" type=\"application/rss+xml\" title=\"" + esc(cfg.name) + " &raquo; Comments Feed\" href=\"" + base + "/comments/feed/\" />\n"
	}
	head += "<link rel='stylesheet' id='wp-block-library-css' href='" + base + "/wp-includes/css/dist/block-library/style.min.css?ver=" + wpVersion + "' media='all' />\n" +
		"<link rel='stylesheet' id='" + cfg.theme + "-style-css' href='" + assets + "/style.css?ver=" + cfg.themeVer + "' media='all' />\n" +
		"<script src=\"" + base + "/wp-includes/js/jquery/jquery.min.js?ver=3.7.1\" id=\"jquery-core-js\"></script>\n" +
		"<link rel=\"https://api.w.org/\" href=\"" + base + "/wp-json/\" />\n" +
		"<link rel=\"EditURI\" type=\"application/rsd+xml\" title=\"RSD\" href=\"" + base + "/xmlrpc.php?rsd\" />\n" +
		"<meta name=\"generator\" content=\"WordPress " + wpVersion + "\" />\n"
	f := frame{
		lang: "en", name: cfg.name, base: base, loc: cfg.loc, head: head,
		bodyAttr:   " class=\"home blog wp-embed-responsive theme-" + cfg.theme + "\"",
		topLinks:   cfg.topLinks,
		sections:   append([]link{{base + "/", "Home"}}, nav...),
		footerCols: cfg.footerCols, footerExtra: cfg.footerExtra, cookie: cfg.cookie,
		copyright: "© " + strconv.Itoa(b.now.Year()) + " " + cfg.name + ". All rights reserved. Proudly powered by WordPress.",
		titleSep:  " - ", dateFmt: "January 2, 2006",
		notFoundTitle: "Page not found", notFoundText: "It looks like nothing was found at this location. Maybe try a search?",
		tail: "<script src=\"" + assets + "/js/navigation.js?ver=" + cfg.themeVer + "\" id=\"" + cfg.theme + "-navigation-js\"></script>\n" +
			"<script src=\"" + base + "/wp-includes/js/wp-embed.min.js?ver=" + wpVersion + "\" id=\"wp-embed-js\"></script>",
	}
	c := f.chrome()
	p := &pubSite{h: h, c: c, list: list, sectionOf: sectionOf, labels: labels, by: "By", homeTitle: cfg.tagline,
		teaserClass: "entry",
		homeHead:    "<link rel=\"alternate\" type=\"application/json+oembed\" href=\"" + base + "/wp-json/oembed/1.0/embed?url=" + base + "%2F\" />\n",
		sectionHead: func(slug string) string {
			if !cfg.declareFeeds {
				return ""
			}
			return "<link rel=\"alternate\" type=\"application/rss+xml\" title=\"" + esc(cfg.name) + " &raquo; " + esc(labels[slug]) + " Category Feed\" href=\"" + base + "/category/" + slug + "/feed/\" />\n"
		},
		articleHead: func(a article) string {
			return "<link rel=\"alternate\" type=\"application/json\" href=\"" + base + "/wp-json/wp/v2/posts/" + strconv.Itoa(a.id) + "\" />\n" +
				"<link rel=\"alternate\" type=\"application/json+oembed\" href=\"" + base + "/wp-json/oembed/1.0/embed?url=" + base + a.path + "\" />\n" +
				"<link rel=\"alternate\" type=\"text/xml+oembed\" href=\"" + base + "/wp-json/oembed/1.0/embed?url=" + base + a.path + "&#038;format=xml\" />\n" +
				"<link rel='shortlink' href='" + base + "/?p=" + strconv.Itoa(a.id) + "' />\n"
		},
	}
	p.serve()

	ch := channel{title: cfg.name, link: base, description: cfg.tagline, lang: "en-US", self: base + "/feed/",
		generator: "https://wordpress.org/?v=" + wpVersion, loc: cfg.loc}
	wp := rssOpts{wordpress: true, creator: true, content: true, categoryTag: true,
		guid: func(a article) string { return base + "/?p=" + strconv.Itoa(a.id) }}
	h.rss("/feed/", rss2(ch, base, list[:10], wp))
	h.redirect("/feed", base+"/feed/", http.StatusMovedPermanently)
	for _, slug := range slugs {
		sch := ch
		sch.title = cfg.name + " - " + labels[slug]
		sch.self = base + "/category/" + slug + "/feed/"
		sch.link = base + "/category/" + slug + "/"
		in := inSection(list, slug)
		h.rss("/category/"+slug+"/feed/", rss2(sch, base, in, wp))
	}
	comments := b.articles(cfg.seed+"-comments", articleSpec{lang: "en", n: 3, newest: 5 * 24 * time.Hour, every: 4 * 24 * time.Hour,
		path: func(a article) string { return list[a.id%len(list)].path + "#comment-" + strconv.Itoa(a.id) }})
	for i := range comments {
		comments[i].title = "Comment on " + list[(comments[i].id)%len(list)].title + " by Reader"
		comments[i].summary = "Thanks for covering this."
	}
	cch := ch
	cch.title = "Comments for " + cfg.name
	cch.self = base + "/comments/feed/"
	h.rss("/comments/feed/", rss2(cch, base, comments, rssOpts{creator: true}))

	h.put("/wp-json/", "application/json; charset=UTF-8", []byte(`{"name":`+strconv.Quote(cfg.name)+`,"description":`+strconv.Quote(cfg.tagline)+
		`,"url":"`+base+`","home":"`+base+`","gmt_offset":"0","timezone_string":"","namespaces":["oembed/1.0","wp/v2","wp-site-health/v1"],"authentication":[],"routes":{}}`))
	h.put("/wp-json/oembed/1.0/embed", "application/json; charset=UTF-8", []byte(`{"version":"1.0","provider_name":`+strconv.Quote(cfg.name)+`,"provider_url":"`+base+`","type":"rich","width":600,"height":338}`))
	for _, a := range list[:5] {
		h.put("/wp-json/wp/v2/posts/"+strconv.Itoa(a.id), "application/json; charset=UTF-8",
			[]byte(`{"id":`+strconv.Itoa(a.id)+`,"date":"`+a.time.In(cfg.loc).Format("2006-01-02T15:04:05")+`","link":"`+base+a.path+`","title":{"rendered":`+strconv.Quote(a.title)+`}}`))
	}

	lastmod := list[0].time
	if cfg.yoast {
		xsl := base + "/main-sitemap.xsl"
		h.xml("/sitemap_index.xml", sitemapIndex(cfg.loc, []smChild{
			{base + "/post-sitemap.xml", lastmod}, {base + "/page-sitemap.xml", lastmod.Add(-40 * 24 * time.Hour)},
			{base + "/category-sitemap.xml", lastmod}, {base + "/author-sitemap.xml", lastmod.Add(-3 * 24 * time.Hour)},
		}, xsl))
		h.xml("/post-sitemap.xml", urlset(cfg.loc, articleURLs(base, list), false))
		h.xml("/page-sitemap.xml", urlset(cfg.loc, []smURL{{loc: base + "/", lastmod: lastmod}, {loc: base + "/about/", lastmod: lastmod.Add(-300 * 24 * time.Hour)},
			{loc: base + "/contact/", lastmod: lastmod.Add(-300 * 24 * time.Hour)}, {loc: base + "/subscribe/", lastmod: lastmod.Add(-90 * 24 * time.Hour)}}, false))
		var cats, authors []smURL
		for _, slug := range slugs {
			cats = append(cats, smURL{loc: base + "/category/" + slug + "/", lastmod: lastmod})
		}
		for _, a := range cfg.authors {
			authors = append(authors, smURL{loc: base + "/author/" + slugify(a) + "/", lastmod: lastmod})
		}
		h.xml("/category-sitemap.xml", urlset(cfg.loc, cats, false))
		h.xml("/author-sitemap.xml", urlset(cfg.loc, authors, false))
		h.redirect("/wp-sitemap.xml", base+"/sitemap_index.xml", http.StatusMovedPermanently)
		h.redirect("/sitemap.xml", base+"/sitemap_index.xml", http.StatusMovedPermanently)
		h.text("/robots.txt", robotsWP(base+"/sitemap_index.xml"))
	} else {
		h.xml("/wp-sitemap.xml", sitemapIndex(cfg.loc, []smChild{
			{loc: base + "/wp-sitemap-posts-post-1.xml"}, {loc: base + "/wp-sitemap-posts-page-1.xml"},
			{loc: base + "/wp-sitemap-taxonomies-category-1.xml"}, {loc: base + "/wp-sitemap-users-1.xml"},
		}, base+"/wp-sitemap-index.xsl"))
		h.xml("/wp-sitemap-posts-post-1.xml", urlset(cfg.loc, articleURLs(base, list), false))
		h.xml("/wp-sitemap-posts-page-1.xml", urlset(cfg.loc, []smURL{{loc: base + "/about/"}, {loc: base + "/contact/"}}, false))
		var cats, users []smURL
		for _, slug := range slugs {
			cats = append(cats, smURL{loc: base + "/category/" + slug + "/"})
		}
		for _, a := range cfg.authors {
			users = append(users, smURL{loc: base + "/author/" + slugify(a) + "/"})
		}
		h.xml("/wp-sitemap-taxonomies-category-1.xml", urlset(cfg.loc, cats, false))
		h.xml("/wp-sitemap-users-1.xml", urlset(cfg.loc, users, false))
		h.text("/robots.txt", robotsWP(base+"/wp-sitemap.xml"))
	}
	p.simple("/about/", "About us", "<p>"+esc(cfg.name)+" is an independent, locally owned news publisher.</p>")
	p.simple("/contact/", "Contact", "<p>Newsroom: news@"+cfg.host+"</p>")
	return p
}

func wordpressYoast() CatalogueEntry {
	const apex = "bayside-chronicle-example.com.au"
	const host = "www." + apex
	return CatalogueEntry{
		Name:       "wordpress_yoast",
		ModelledOn: "WordPress 6 + Yoast SEO local paper (Newspack theme): declared /feed/ beside comments, category and podcast feeds, wp-json/oEmbed links, Yoast sitemap_index.xml in robots",
		DomainID:   "media:au:" + apex,
		Expect:     ExpectedSeed{ContentType: "news", FetchType: "rss", EntryURL: "https://" + host + "/feed/"},
		build: func(b *builder) {
			base := "https://" + host
			b.redirectWWW(apex)
			p := b.wordpressSite(wpConfig{
				host: host, name: "Bayside Chronicle", tagline: "News for the Bayside and Peninsula communities", locale: "en_AU",
				loc: zoneAEST, theme: "newspack-theme", themeVer: "2.1.0", declareFeeds: true, yoast: true, seed: "bayside",
				sections: []string{"news:News", "sport:Sport", "business:Business", "community:Community", "opinion:Opinion"},
				authors:  []string{"Megan Doyle", "Tom Nguyen", "Priya Raman", "Staff Reporter"},
				topLinks: []link{{base + "/subscribe/", "Subscribe"}, {base + "/newsletters/", "Newsletters"}, {base + "/my-account/", "Sign in"},
					{base + "/podcast/", "Podcast"}},
				footerCols: []footerCol{
					{"About", []link{{base + "/about/", "About us"}, {base + "/contact/", "Contact"}, {base + "/advertise/", "Advertise"}, {base + "/careers/", "Careers"}}},
					{"Subscribe", []link{{base + "/subscribe/", "Subscribe"}, {base + "/newsletters/", "Newsletters"}, {base + "/my-account/", "My account"}}},
					{"Legal", []link{{base + "/privacy-policy/", "Privacy policy"}, {base + "/terms-of-use/", "Terms of use"}, {base + "/code-of-conduct/", "Editorial standards"}}},
				},
				footerExtra: social("BaysideChronicle", "facebook", "x", "instagram", "youtube") +
					appBadges("1588001234", "au.com.baysidechronicle.app", "Download on the App Store", "Get it on Google Play"),
				cookie: "<div id=\"cmplz-cookiebanner-container\"><div class=\"cmplz-cookiebanner\" role=\"dialog\" aria-live=\"polite\"><div class=\"cmplz-message\">We use cookies to improve your experience.</div><button class=\"cmplz-accept\">Accept</button> <a href=\"" + base + "/privacy-policy/\">Privacy policy</a></div></div>\n",
			})
			h, c := p.h, p.c
			p.simple("/subscribe/", "Subscribe", paywall("Support local journalism", "Unlimited digital access from $4 a week. Cancel anytime.", "Subscribe now", base+"/checkout/"))
			p.simple("/newsletters/", "Newsletters", newsletterForm(base+"/wp-admin/admin-post.php", "Your email", "Sign up"))
			episodes := b.articles("bayside-podcast", articleSpec{lang: "en", n: 8, newest: 3*24*time.Hour + 5*time.Hour, every: 7 * 24 * time.Hour,
				path: func(a article) string { return "/podcast/episode-" + strconv.Itoa(a.id) + "/" }})
			h.rss("/feed/podcast/", rss2(channel{title: "The Bayside Briefing", link: base + "/podcast/", description: "A weekly look at the stories that matter on the Bay.",
				lang: "en-AU", self: base + "/feed/podcast/", generator: "https://wordpress.org/?v=" + wpVersion, loc: zoneAEST}, base, episodes,
				rssOpts{extraNS: "\txmlns:itunes=\"http://www.itunes.com/dtds/podcast-1.0.dtd\"\n", channelTail: "\t<itunes:author>Bayside Chronicle</itunes:author>\n\t<itunes:category text=\"News\" />\n"}))
			h.html("/podcast/", c.page("Podcast", "/podcast/", "", "<link rel=\"alternate\" type=\"application/rss+xml\" title=\"The Bayside Briefing\" href=\""+base+"/feed/podcast/\" />\n",
				"<h1>The Bayside Briefing</h1><p>Listen on <a href=\"https://podcasts.apple.com/au/podcast/the-bayside-briefing/id1588007777\">Apple Podcasts</a>, <a href=\"https://open.spotify.com/show/4bayside\">Spotify</a> or via <a href=\""+base+"/feed/podcast/\">RSS</a>.</p>"))
		},
	}
}

func wordpressFeedLinksRemoved() CatalogueEntry {
	const host = "lakeshore-ledger-example.com"
	return CatalogueEntry{
		Name:       "wordpress_feed_links_removed",
		ModelledOn: "WordPress whose theme strips wp_head's feed links (remove_action feed_links): only wp-content, wp-json and generator markers; /feed/ still served; core wp-sitemap.xml",
		DomainID:   "media:us:" + host,
		Expect:     ExpectedSeed{ContentType: "news", FetchType: "rss", EntryURL: "https://" + host + "/feed/"},
		build: func(b *builder) {
			base := "https://" + host
			p := b.wordpressSite(wpConfig{
				host: host, name: "The Lakeshore Ledger", tagline: "Independent news from the North Shore", locale: "en_US",
				loc: zoneCST, theme: "generatepress", themeVer: "3.4.0", seed: "lakeshore",
				sections: []string{"local-news:Local News", "politics:Politics", "schools:Schools", "sports:Sports", "obituaries:Obituaries", "business:Business"},
				authors:  []string{"Dana Whitfield", "Carlos Ortega", "Ledger Staff"},
				topLinks: []link{{base + "/donate/", "Donate"}, {base + "/newsletter/", "Get the newsletter"}},
				footerCols: []footerCol{
					{"The Ledger", []link{{base + "/about/", "About"}, {base + "/contact/", "Contact"}, {base + "/ethics-policy/", "Ethics policy"}, {base + "/donate/", "Support us"}}},
					{"Follow", []link{{"https://www.facebook.com/lakeshoreledger", "Facebook"}, {"https://www.instagram.com/lakeshoreledger/", "Instagram"}, {"https://bsky.app/profile/lakeshoreledger.bsky.social", "Bluesky"}}},
				},
				footerExtra: "<p class=\"inn-member\">A member of the <a href=\"https://inn.org/\">Institute for Nonprofit News</a>.</p>",
			})
			p.simple("/donate/", "Support The Lakeshore Ledger", paywall("Become a member", "Your donation keeps local news free for everyone.", "Donate", "https://donorbox.org/lakeshore-ledger"))
			p.simple("/newsletter/", "Newsletter", newsletterForm("https://lakeshoreledger.us21.list-manage.com/subscribe/post", "Email address", "Subscribe"))
		},
	}
}
