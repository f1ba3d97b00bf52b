package simweb

import (
	"net/http"
	"strconv"
	"time"
)

func hugoIndexXML() CatalogueEntry {
	const host = "signal-and-noise-example.com"
	return CatalogueEntry{
		Name:       "hugo_index_xml",
		ModelledOn: "Hugo-built news blog whose theme leaves out the RSS <link>: the home feed is /index.xml by Hugo's default; section and tag feeds (/news/index.xml, /analysis/index.xml, /tags/*/index.xml) sit beside it",
		DomainID:   "media:us:" + host,
		Expect:     ExpectedSeed{ContentType: "news", FetchType: "rss", EntryURL: "https://" + host + "/index.xml"},
		build: func(b *builder) {
			base := "https://" + host
			h := b.host(host)
			sectionOf := func(slug string) string { return "/" + slug + "/" }
			labels, slugs, nav := labelsOf(base, sectionOf, "news:News", "analysis:Analysis")
			list := b.articles("signal", articleSpec{lang: "en", n: 20, newest: 6*time.Hour + 15*time.Minute, every: 11 * time.Hour, sections: slugs,
				authors: []string{"R. Alvarez"},
				path:    func(a article) string { return "/" + a.section + "/" + slugify(a.title) + "/" }})
			f := frame{lang: "en-us", name: "Signal & Noise", base: base, loc: zoneEST,
				head:        "<meta name=\"generator\" content=\"Hugo 0.125.4\">\n<link rel=\"stylesheet\" href=\"/css/main.min.7d3c2b1a0f9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3a2f1e0d9c8b7a6f5e4d3c.css\" integrity=\"sha256-fTwrGg+ejXxrWk8+LRwLmo9+bVxLOi8eDZyLem9eTTw=\" crossorigin=\"anonymous\">\n",
				sections:    append([]link{{base + "/", "Home"}}, append(nav, link{base + "/about/", "About"}, link{base + "/tags/", "Tags"})...),
				footerExtra: "<p>Built with <a href=\"https://gohugo.io/\">Hugo</a> · <a href=\"https://buttondown.com/signalandnoise\">Subscribe by email</a></p>",
				copyright:   "© " + strconv.Itoa(b.now.Year()) + " Signal & Noise", dateFmt: "Jan 2, 2006",
				notFoundTitle: "404 Page not found", notFoundText: "This page does not exist."}
			c := f.chrome()
			p := &pubSite{h: h, c: c, list: list, sectionOf: sectionOf, labels: labels, by: "By", teaserClass: "post-entry", homeDesc: "Independent reporting on technology policy."}
			p.serve()
			p.simple("/about/", "About", "<p>Signal &amp; Noise is an independent newsroom covering technology policy.</p>")
			ch := channel{title: "Signal & Noise", link: base + "/", description: "Recent content on Signal & Noise", lang: "en-us", generator: "Hugo", self: base + "/index.xml", loc: zoneEST}
			h.put("/index.xml", "application/rss+xml", rss2(ch, base, list, rssOpts{}))
			for _, s := range slugs {
				sch := ch
				sch.title, sch.description, sch.self = labels[s]+" on Signal & Noise", "Recent content in "+labels[s]+" on Signal & Noise", base+"/"+s+"/index.xml"
				h.put("/"+s+"/index.xml", "application/rss+xml", rss2(sch, base, inSection(list, s), rssOpts{}))
			}
			tch := ch
			tch.title, tch.self = "privacy on Signal & Noise", base+"/tags/privacy/index.xml"
			h.put("/tags/privacy/index.xml", "application/rss+xml", rss2(tch, base, list[3:6], rssOpts{}))
			h.html("/tags/", c.page("Tags", "/tags/", "", "", "<h1>Tags</h1>"+menu("tags", link{base + "/tags/privacy/", "privacy"})))
			h.html("/tags/privacy/", c.page("privacy", "/tags/privacy/", "", "", "<h1>privacy</h1>"+c.teasers("post-entry", list[3:6])))
			h.xml("/sitemap.xml", urlset(zoneEST, append([]smURL{{loc: base + "/", lastmod: list[0].time}}, articleURLs(base, list)...), false))
			h.text("/robots.txt", "User-agent: *\n")
		},
	}
}

func squarespaceFormatRSS() CatalogueEntry {
	const apex = "northshore-weekly-example.ca"
	const host = "www." + apex
	const siteID = "65a1b2c3d4e5f6a7b8c9d0e1"
	return CatalogueEntry{
		Name:       "squarespace_format_rss",
		ModelledOn: "Squarespace community weekly: the News blog collection at /news declares its feed /news?format=rss on that page only; Squarespace's robots.txt disallows ?format=json and friends but not rss; an Events collection beside it",
		DomainID:   "media:ca:" + apex,
		Expect:     ExpectedSeed{ContentType: "news", FetchType: "rss", EntryURL: "https://" + host + "/news?format=rss"},
		build: func(b *builder) {
			base := "https://" + host
			b.redirectWWW(apex)
			h := b.host(host)
			list := b.articles("northshore", articleSpec{lang: "en", n: 20, newest: 8 * time.Hour, every: 17 * time.Hour, authors: []string{"Northshore Weekly"},
				path: func(a article) string {
					t := a.time.In(zonePST)
					return "/news/" + strconv.Itoa(t.Year()) + "/" + strconv.Itoa(int(t.Month())) + "/" + strconv.Itoa(t.Day()) + "/" + slugify(a.title)
				}})
			ctx := "<script>Static.SQUARESPACE_CONTEXT = {\"website\":{\"id\":\"" + siteID + "\",\"identifier\":\"northshore-weekly\",\"siteTitle\":\"Northshore Weekly\",\"primaryDomain\":\"" + host + "\"},\"templateId\":\"5c5a519771c10ba3470d8101\"};</script>\n"
			f := frame{lang: "en-CA", name: "Northshore Weekly", base: base, loc: zonePST,
				head: "<!-- This is Squarespace. --><!-- northshore-weekly -->\n<base href=\"\">\n" +
					"<link rel=\"stylesheet\" type=\"text/css\" href=\"https://static1.squarespace.com/static/versioned-site-css/" + siteID + "/12/5c5a519771c10ba3470d8101/65a1b2c3d4e5f6a7b8c9d0f2/1540/site.css\"/>\n" +
					"<script src=\"https://assets.squarespace.com/universal/scripts-compressed/common-vendors-stable-2e1f0a9b8c7d6e5f-min.en-US.js\" defer></script>\n" + ctx,
				bodyAttr:    " id=\"collection-" + siteID[:20] + "0001\" class=\"tweak-blog-list-style-stacked\"",
				sections:    []link{{base + "/", "Home"}, {base + "/news", "News"}, {base + "/events", "Events"}, {base + "/advertise", "Advertise"}, {base + "/about", "About"}},
				footerExtra: social("northshoreweekly", "facebook", "instagram") + "<p><a href=\"" + base + "/subscribe\">Subscribe to the print edition</a></p>",
				copyright:   "© " + strconv.Itoa(b.now.Year()) + " Northshore Weekly", dateFmt: "January 2, 2006",
				notFoundTitle: "Page Not Found", notFoundText: "We couldn't find the page you were looking for. This is either because: There is an error in the URL entered into your web browser. Please check the URL and try again. The page you are looking for has been moved or deleted.",
				tail: "<script type=\"text/javascript\" data-sqs-type=\"imageloader-bootstrapper\">(function() {if(window.ImageLoader) { window.ImageLoader.bootstrap({}, document); }})();</script>"}
			c := f.chrome()
			h.notFound, h.stub = c.notFound(), c.stubPage
			feedLink := "<link rel=\"alternate\" type=\"application/rss+xml\" title=\"News - Northshore Weekly\" href=\"" + base + "/news?format=rss\" />\n"
			h.html("/", c.page("", "/", "The community paper of the North Shore.", "", "<h1>Northshore Weekly</h1>\n<section class=\"summary-block\"><h2><a href=\""+base+"/news\">Latest news</a></h2>\n"+c.teasers("summary-item", list[:4])+"</section>"))
			h.html("/news", c.page("News", "/news", "", feedLink, "<h1>News</h1>\n"+c.teasers("blog-item", list)))
			for _, a := range list {
				h.html(a.path, c.articlePage(a, "Written by", feedLink))
			}
			for _, pg := range [][2]string{{"/about", "About"}, {"/advertise", "Advertise"}} {
				h.html(pg[0], c.page(pg[1], pg[0], "", "", "<h1>"+pg[1]+"</h1><p>Northshore Weekly is delivered free to 22,000 homes.</p>"))
			}
			h.html("/subscribe", c.page("Subscribe", "/subscribe", "", "", paywall("Print subscription", "Get the paper mailed to you: $60 a year.", "Subscribe", base+"/commerce/checkout")))
			events := b.articles("northshore-events", articleSpec{lang: "en", n: 5, newest: 40 * 24 * time.Hour, every: 30 * 24 * time.Hour,
				path: func(a article) string { return "/events/event-" + strconv.Itoa(a.id) }})
			h.html("/events", c.page("Events", "/events", "", "", "<h1>Events</h1>\n"+c.teasers("eventlist-event", events)))
			guid := func(a article) string {
				return siteID + ":65a1b2c3d4e5f6a7b8c9d0e2:" + uuidFor("northshore", a.id)[:24]
			}
			h.rss("/news?format=rss", rss2(channel{title: "News - Northshore Weekly", link: base + "/news/", description: "", lang: "en-CA",
				generator: "Site-Server v6.0.0-5b2f3c1e0-1719000000000 (http://www.squarespace.com)", loc: zonePST}, base, list,
				rssOpts{creator: true, guid: guid, extraNS: "\txmlns:itunes=\"http://www.itunes.com/dtds/podcast-1.0.dtd\"\n\txmlns:media=\"http://www.rssboard.org/media-rss\"\n"}))
			h.rss("/events?format=rss", rss2(channel{title: "Events - Northshore Weekly", link: base + "/events/", lang: "en-CA", loc: zonePST}, base, events, rssOpts{}))
			h.put("/news?format=json", "application/json", []byte(`{"website":{"id":"`+siteID+`"},"collection":{"urlId":"news","typeName":"blog"},"items":[]}`))
			h.xml("/sitemap.xml", urlset(zonePST, append([]smURL{{loc: base + "/", changefreq: "daily", priority: "1.0"}, {loc: base + "/news", changefreq: "daily", priority: "0.75"}}, articleURLs(base, list)...), true))
			h.text("/robots.txt", squarespaceRobots+"\nSitemap: "+base+"/sitemap.xml\n")
		},
	}
}

// squarespaceRobots is the robots.txt Squarespace serves for every site
// (search-engine part; the optional AI-crawler block is left out).
const squarespaceRobots = `# Squarespace Robots Txt

User-agent: *
Disallow: /config
Disallow: /search
Disallow: /account$
Disallow: /api/
Disallow: /static/
Disallow: /*?author=*
Disallow: /*&author=*
Disallow: /*?tag=*
Disallow: /*&tag=*
Disallow: /*?month=*
Disallow: /*&month=*
Disallow: /*?view=*
Disallow: /*&view=*
Disallow: /*?format=json
Disallow: /*&format=json
Disallow: /*?format=page-context
Disallow: /*&format=page-context
Disallow: /*?format=main-content
Disallow: /*&format=main-content
Disallow: /*?format=json-pretty
Disallow: /*&format=json-pretty
Disallow: /*?format=ical
Disallow: /*&format=ical
Disallow: /*?reversePaginate=*
Disallow: /*&reversePaginate=*
`

func feedBurnerSubscribe() CatalogueEntry {
	const apex = "harbourlights-gazette-example.com"
	const host = "www." + apex
	const fbHost = "feeds.feedburner.com"
	const fbName = "HarbourLightsGazette"
	return CatalogueEntry{
		Name:       "feedburner_subscribe",
		ModelledOn: "Older in-house CMS whose only feed is burned on FeedBurner: a header \"Subscribe\" (RSS icon) goes to feeds.feedburner.com, while another \"Subscribe\" goes to the print/digital paywall; nothing on the site's own host",
		DomainID:   "media:us:" + apex,
		Expect:     ExpectedSeed{ContentType: "news", FetchType: "rss", EntryURL: "https://" + fbHost + "/" + fbName},
		build: func(b *builder) {
			base := "https://" + host
			fb := "https://" + fbHost + "/" + fbName
			b.redirectWWW(apex)
			p := b.stdSite(stdConfig{host: host, name: "Harbour Lights Gazette", desc: "News from Cape Ann since 1887.", lang: "en", loc: zoneEST, seed: "harbour",
				sections: []string{"news:News", "police-fire:Police & Fire", "schools:Schools", "sports:Sports", "obituaries:Obituaries"},
				path:     func(a article) string { return "/" + a.section + "/story.php?id=" + strconv.Itoa(a.id) },
				newest:   2*time.Hour + 45*time.Minute, every: 4 * time.Hour, n: 24,
				topLinks:   []link{{fb, "Subscribe"}, {base + "/subscribe/", "Subscribe"}, {base + "/login/", "Log in"}},
				homeTop:    "<div class=\"rss-badge\"><a href=\"" + fb + "\" title=\"Subscribe to our feed\"><img src=\"" + base + "/images/feed-icon-14x14.png\" alt=\"RSS\"> Subscribe</a></div>\n",
				footerCols: enFooter(base), footerExtra: social("HarbourLights", "facebook", "x"),
			})
			p.subscribePages("Home delivery and full digital access from $12.99 a month.")
			h, list := p.h, p.list
			h.xml("/sitemap.xml", urlset(zoneEST, articleURLs(base, list), false))
			h.text("/robots.txt", "User-agent: *\nDisallow: /admin/\nDisallow: /cgi-bin/\n\nSitemap: "+base+"/sitemap.xml\n")
			h.redirect("/rss.php", fb, http.StatusMovedPermanently)

			f := b.host(fbHost)
			body := rss2(channel{title: "Harbour Lights Gazette", link: base + "/", description: "News from Cape Ann since 1887.", lang: "en-us", loc: zoneEST}, base, list[:15],
				rssOpts{itemLink: func(a article) string { return base + a.path },
					extraNS:     "\txmlns:feedburner=\"http://rssnamespace.org/feedburner/ext/1.0\"\n",
					channelTail: "\t<atom10:link xmlns:atom10=\"http://www.w3.org/2005/Atom\" rel=\"self\" type=\"application/rss+xml\" href=\"" + fb + "\" />\n\t<feedburner:info uri=\"harbourlightsgazette\" />\n\t<atom10:link xmlns:atom10=\"http://www.w3.org/2005/Atom\" rel=\"hub\" href=\"http://pubsubhubbub.appspot.com/\" />\n"})
			f.put("/"+fbName, "text/xml; charset=UTF-8", body)
			f.text("/robots.txt", "User-agent: *\nDisallow: /~a/\nDisallow: /~r/\n")
			f.notFound = []byte("<html><head><title>Not Found</title></head><body><h1>Not Found</h1><p>The feed you requested cannot be found.</p></body></html>\n")
		},
	}
}

func pelicanAtom() CatalogueEntry {
	const host = "polderpost-example.nl"
	return CatalogueEntry{
		Name:       "pelican_atom",
		ModelledOn: "Dutch local news site built with Pelican (default feed settings): Atom /feeds/all.atom.xml declared with per-category Atom feeds beside it; no robots.txt (404) and no sitemap",
		DomainID:   "media:nl:" + host,
		Expect:     ExpectedSeed{ContentType: "news", FetchType: "atom", EntryURL: "https://" + host + "/feeds/all.atom.xml"},
		build: func(b *builder) {
			base := "https://" + host
			h := b.host(host)
			sectionOf := func(slug string) string { return "/category/" + slug + ".html" }
			labels, slugs, nav := labelsOf(base, sectionOf, "nieuws:Nieuws", "politiek:Politiek", "sport:Sport")
			list := b.articles("polder", articleSpec{lang: "nl", n: 20, newest: 5*time.Hour + 30*time.Minute, every: 8 * time.Hour, sections: slugs,
				authors: []string{"Redactie"},
				path:    func(a article) string { return "/" + slugify(a.title) + "-" + strconv.Itoa(a.id) + ".html" }})
			f := frame{lang: "nl", name: "Polderpost", base: base, loc: zoneCEST,
				head: "<meta name=\"generator\" content=\"Pelican\" />\n<link rel=\"stylesheet\" href=\"" + base + "/theme/css/main.css\" />\n" +
					"<link href=\"" + base + "/feeds/all.atom.xml\" type=\"application/atom+xml\" rel=\"alternate\" title=\"Polderpost Full Atom Feed\" />\n",
				sections:    append([]link{{base + "/", "Home"}}, nav...),
				footerExtra: "<address id=\"about\" class=\"vcard body\">Proudly powered by <a href=\"https://getpelican.com/\">Pelican</a>, which takes great advantage of <a href=\"https://www.python.org/\">Python</a>.</address>",
				copyright:   "© " + strconv.Itoa(b.now.Year()) + " Stichting Polderpost", dateFmt: "02-01-2006",
				notFoundTitle: "Pagina niet gevonden", notFoundText: "Deze pagina bestaat niet."}
			c := f.chrome()
			p := &pubSite{h: h, c: c, list: list, sectionOf: sectionOf, labels: labels, by: "Door", teaserClass: "hentry", moreText: "Meer",
				homeDesc: "Nieuws uit de polder.",
				sectionHead: func(slug string) string {
					return "<link href=\"" + base + "/feeds/" + slug + ".atom.xml\" type=\"application/atom+xml\" rel=\"alternate\" title=\"Polderpost Categories Atom Feed\" />\n"
				}}
			p.serve()
			ch := channel{title: "Polderpost", link: base + "/", self: base + "/feeds/all.atom.xml", loc: zoneCEST}
			h.put("/feeds/all.atom.xml", ctAtom, atom(ch, base, list, atomOpts{id: base + "/", entryID: func(a article) string {
				return "tag:" + host + "," + a.time.Format("2006-01-02") + ":" + a.path
			}}))
			for _, s := range slugs {
				sch := ch
				sch.title, sch.self = "Polderpost - "+labels[s], base+"/feeds/"+s+".atom.xml"
				h.put("/feeds/"+s+".atom.xml", ctAtom, atom(sch, base, inSection(list, s), atomOpts{id: base + "/"}))
			}
		},
	}
}

func wixBlogFeed() CatalogueEntry {
	const apex = "lagos-ledger-example.com.ng"
	const host = "www." + apex
	return CatalogueEntry{
		Name:       "wix_blog_feed",
		ModelledOn: "Wix site with Wix Blog: generator \"Wix.com Website Builder\", parastorage/wixstatic assets, /blog-feed.xml declared; Wix's robots.txt and sitemap index (pages, blog posts, blog categories)",
		DomainID:   "media:ng:" + apex,
		Expect:     ExpectedSeed{ContentType: "news", FetchType: "rss", EntryURL: "https://" + host + "/blog-feed.xml"},
		build: func(b *builder) {
			base := "https://" + host
			b.redirectWWW(apex)
			h := b.host(host)
			sectionOf := func(slug string) string { return "/blog/categories/" + slug }
			labels, slugs, nav := labelsOf(base, sectionOf, "politics:Politics", "business:Business", "lagos:Lagos", "sports:Sports")
			list := b.articles("lagos", articleSpec{lang: "en", n: 20, newest: 3 * time.Hour, every: 7 * time.Hour, sections: slugs,
				authors: []string{"Lagos Ledger"},
				path:    func(a article) string { return "/post/" + slugify(a.title) }})
			feedLink := "<link rel=\"alternate\" type=\"application/rss+xml\" title=\"Lagos Ledger - RSS\" href=\"" + base + "/blog-feed.xml\">\n"
			f := frame{lang: "en", name: "Lagos Ledger", base: base, loc: zoneWAT,
				head: "<meta name=\"generator\" content=\"Wix.com Website Builder\"/>\n<link rel=\"preconnect\" href=\"https://static.parastorage.com\" crossorigin>\n" +
					"<link rel=\"preload\" href=\"https://static.parastorage.com/unpkg/react@18.3.1/umd/react.production.min.js\" as=\"script\">\n" +
					"<link rel=\"icon\" sizes=\"192x192\" href=\"https://static.wixstatic.com/media/a1b2c3_d4e5f6~mv2.png/v1/fill/w_192,h_192,lg_1,usm_0.66_1.00_0.01/a1b2c3_d4e5f6~mv2.png\" type=\"image/png\"/>\n" + feedLink,
				sections:    append([]link{{base + "/", "Home"}, {base + "/blog", "News"}}, nav...),
				footerExtra: social("LagosLedger", "facebook", "x", "instagram"),
				copyright:   "© " + strconv.Itoa(b.now.Year()) + " by Lagos Ledger. Proudly created with Wix.com", dateFmt: "Jan 2",
				notFoundTitle: "This page isn’t available.", notFoundText: "Sorry about that. Try going back to the homepage.",
				tail: "<script src=\"https://static.parastorage.com/services/wix-thunderbolt/dist/main.5e4f3a2b.bundle.min.js\" async></script>"}
			c := f.chrome()
			p := &pubSite{h: h, c: c, list: list, sectionOf: sectionOf, labels: labels, by: "By", teaserClass: "blog-post-homepage", homeDesc: "Lagos news and analysis."}
			p.serve()
			h.html("/blog", c.page("News", "/blog", "", "", "<h1>News</h1>\n"+c.teasers("blog-post", list)))
			h.rss("/blog-feed.xml", rss2(channel{title: "Lagos Ledger", link: base + "/blog", description: "Lagos news and analysis.", self: base + "/blog-feed.xml",
				generator: "RSS for Node", loc: zoneWAT}, base, list, rssOpts{creator: true, content: true}))
			h.xml("/sitemap.xml", sitemapIndex(zoneWAT, []smChild{{base + "/pages-sitemap.xml", list[10].time}, {base + "/blog-posts-sitemap.xml", list[0].time},
				{base + "/blog-categories-sitemap.xml", list[0].time}}, ""))
			h.xml("/pages-sitemap.xml", urlset(zoneWAT, []smURL{{loc: base + "/"}, {loc: base + "/blog"}}, true))
			h.xml("/blog-posts-sitemap.xml", urlset(zoneWAT, articleURLs(base, list), true))
			var cats []smURL
			for _, s := range slugs {
				cats = append(cats, smURL{loc: base + sectionOf(s)})
			}
			h.xml("/blog-categories-sitemap.xml", urlset(zoneWAT, cats, true))
			h.text("/robots.txt", "# By Wix\n\nUser-agent: *\nAllow: /\nDisallow: *?lightbox=\n\n# Optimization for Google Ads Bot\nUser-agent: AdsBot-Google-Mobile\nUser-agent: AdsBot-Google\nDisallow: /_api/*\nDisallow: /_partials*\nDisallow: /pro-gallery-webapp/v1/galleries/*\n\n# Block PetalBot\nUser-agent: PetalBot\nDisallow: /\n\n# Crawl delay for overly enthusiastic bots\nUser-agent: dotbot\nCrawl-delay: 10\nUser-agent: AhrefsBot\nCrawl-delay: 10\n\nSitemap: "+base+"/sitemap.xml\n")
		},
	}
}
