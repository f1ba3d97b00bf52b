package simweb

import (
	"net/http"
	"strconv"
	"strings"
	"time"
)

// The entries of this file imitate publishers whose feed open-source feed
// finders get by following links a step further than the home page: an
// "RSS" page that lists one feed only (no directory of many), and feeds on
// another host of the publisher's domain, with that host's own robots.txt
// or none at all.

// zoneMYT is Malaysia's time zone.
var zoneMYT = time.FixedZone("MYT", 8*3600)

func drupalRSSPageOneFeed() CatalogueEntry {
	const apex = "strathearn-herald-example.co.uk"
	const host = "www." + apex
	const feedPath = "/syndication/latest-headlines"
	return CatalogueEntry{
		Name:       "drupal_rss_page_one_feed",
		ModelledOn: "Drupal 10 Scottish weekly: front-page feed /rss.xml switched off (404), nothing in <head>; the footer \"RSS\" goes to an \"RSS Feeds\" basic page (/rss-feeds, sidebar and all) whose only feed link is Drupal's feed icon \"Subscribe to Latest headlines\" → a Views feed at /syndication/latest-headlines; robots names a plain simple_sitemap /sitemap.xml",
		DomainID:   "media:gb:" + apex,
		Expect:     ExpectedSeed{ContentType: "news", FetchType: "rss", EntryURL: "https://" + host + feedPath},
		build: func(b *builder) {
			base := "https://" + host
			b.redirectWWW(apex)
			h := b.host(host)
			sectionOf := func(slug string) string { return "/" + slug }
			labels, slugs, nav := labelsOf(base, sectionOf, "news:News", "sport:Sport", "community:Community", "farming:Farming", "business:Business", "opinion:Opinion")
			list := b.articles("strathearn", articleSpec{lang: "en", n: 30, newest: 2*time.Hour + 15*time.Minute, every: 3*time.Hour + 20*time.Minute, sections: slugs,
				authors: []string{"Morag Stewart", "Callum Reid", "Herald Reporter"},
				path:    func(a article) string { return "/" + a.section + "/" + slugify(a.title) + "-" + strconv.Itoa(a.id) }})
			theme := "/themes/custom/herald_olivero"
			head := "<meta name=\"Generator\" content=\"Drupal 10 (https://www.drupal.org)\" />\n<meta name=\"MobileOptimized\" content=\"width\" />\n<meta name=\"HandheldFriendly\" content=\"true\" />\n" +
				"<link rel=\"icon\" href=\"" + theme + "/favicon.ico\" type=\"image/vnd.microsoft.icon\" />\n" +
				"<link rel=\"stylesheet\" media=\"all\" href=\"/sites/default/files/css/css_T7mQ2x9Lr0vA.css?delta=0&amp;language=en&amp;theme=herald_olivero&amp;include=eJxdj0EOwjAMBD9k4ifwFkqTFbFq4ip2gf6eVsAFbrN7mFmmDlWSiaLOAgwd15XkpNd50yBjVNu9ybDk0Vq8eCRP8Hs8MMXZAuUdl9Csz6MBv8QjBbCxq93PgAvTaekcP5DO9wb\" />\n" +
				"<link rel=\"stylesheet\" media=\"all\" href=\"/sites/default/files/css/css_p1Vx7d0QwYk3.css?delta=1&amp;language=en&amp;theme=herald_olivero&amp;include=eJxdj0EOwjAMBD9k4ifwFkqTFbFq4ip2gf6eVsAFbrN7mFmmDlWSiaLOAgwd15XkpNd50yBjVNu9ybDk0Vq8eCRP8Hs8MMXZAuUdl9Csz6MBv8QjBbCxq93PgAvTaekcP5DO9wb\" />\n" +
				"<script type=\"application/ld+json\">{\"@context\":\"https://schema.org\",\"@graph\":[{\"@type\":\"NewsMediaOrganization\",\"name\":\"The Strathearn Herald\",\"url\":\"" + base + "/\"}]}</script>\n"
			settings := "<script type=\"application/json\" data-drupal-selector=\"drupal-settings-json\">{\"path\":{\"baseUrl\":\"\\/\",\"pathPrefix\":\"\",\"currentPath\":\"node\\/12\",\"currentPathIsAdmin\":false,\"isFront\":true,\"currentLanguage\":\"en\"},\"pluralDelimiter\":\"\\u0003\",\"suppressDeprecationErrors\":true,\"gtag\":{\"tagId\":\"G-4H7K2M9P1Q\",\"otherIds\":[],\"events\":[],\"additionalConfigInfo\":[]},\"ajaxTrustedUrl\":{\"\\/search\\/node\":true},\"user\":{\"uid\":0,\"permissionsHash\":\"7d1f3b\"}}</script>\n" +
				"<script src=\"/sites/default/files/js/js_Q2c9Zp0uXw.js?scope=footer&amp;delta=0&amp;language=en&amp;theme=herald_olivero&amp;include=eJxdj0EOwjAMBD9k4ifwFkqTFbFq4ip2gf6eVsAFbrN7mFmmDlWSiaLOAgwd15XkpNd50yBjVNu9ybDk0Vq8eCRP8Hs8MMXZAuUdl9Csz6MBv8QjBbCxq93PgAvTaekcP5DO9wb\"></script>"
			f := frame{
				lang: "en", name: "The Strathearn Herald", base: base, loc: zoneLondon, head: head, tail: settings,
				htmlAttr: " dir=\"ltr\" prefix=\"og: https://ogp.me/ns#\"", bodyAttr: " class=\"path-frontpage page-node-type-landing-page\"",
				topLinks: []link{{base + "/digital-edition", "Digital edition"}, {base + "/newsletters", "Newsletters"}, {base + "/user/login", "Log in"}},
				sections: append([]link{{base + "/", "Home"}}, append(nav, link{base + "/announcements", "Announcements"}, link{base + "/whats-on", "What's on"})...),
				footerCols: []footerCol{
					{"The Herald", []link{{base + "/about-us", "About us"}, {base + "/contact", "Contact"}, {base + "/advertise", "Advertise"}, {base + "/jobs", "Jobs"}}},
					{"Reader services", []link{{base + "/newsletters", "Newsletters"}, {base + "/digital-edition", "Digital edition"}, {base + "/rss-feeds", "RSS"}, {base + "/sitemap", "Sitemap"}}},
					{"Legal", []link{{base + "/privacy-notice", "Privacy notice"}, {base + "/cookie-policy", "Cookie policy"}, {base + "/terms-and-conditions", "Terms and conditions"}, {base + "/complaints", "Complaints"}}},
				},
				footerExtra: social("StrathearnHerald", "facebook", "x", "instagram") +
					"<p class=\"ipso\">The Strathearn Herald is regulated by the <a href=\"https://www.ipso.co.uk/\">Independent Press Standards Organisation</a>.</p>",
				cookie:    "<div id=\"sliding-popup\" class=\"sliding-popup-bottom\"><div class=\"eu-cookie-compliance-message\"><h2>We use cookies on this site to enhance your user experience</h2><p>By clicking the Accept button, you agree to us doing so.</p></div><button type=\"button\" class=\"agree-button eu-cookie-compliance-default-button\">Accept</button></div>\n",
				copyright: "© " + strconv.Itoa(b.now.Year()) + " Strathearn Newspapers Ltd, 27 High Street, Crieff PH7 3HU. Registered in Scotland SC081234.",
				titleSep:  " | ", dateFmt: "Monday, 2 January 2006 - 3:04pm",
				notFoundTitle: "Page not found", notFoundText: "The requested page could not be found.",
			}
			c := f.chrome()
			var most []link
			for _, a := range list[3:8] {
				most = append(most, link{base + a.path, a.title})
			}
			sidebar := "<aside class=\"layout-sidebar-first\" role=\"complementary\">\n" +
				"<div id=\"block-herald-olivero-mostread\" class=\"block block-views block-views-blockmost-read-block-1\"><h2 class=\"block__title\">Most read</h2>" + menu("item-list", most...) + "</div>\n" +
				"<div id=\"block-herald-olivero-briefing\" class=\"block block-simplenews block-simplenews-subscription-block\"><h2 class=\"block__title\">The Herald briefing</h2><p>Our pick of the week's news, every Friday.</p>" +
				newsletterForm(base+"/newsletters", "Email address", "Sign up") + "</div>\n" +
				"<div id=\"block-herald-olivero-advert\" class=\"block block-block-content\"><div class=\"dfp-tag-wrapper\"><div id=\"div-gpt-ad-mpu-1\" class=\"dfp-tag\"></div></div></div>\n</aside>\n"
			p := &pubSite{h: h, c: c, list: list, sectionOf: sectionOf, labels: labels, by: "By", teaserClass: "node--type-article node--view-mode-teaser",
				homeDesc: "News, sport and community from Crieff, Comrie, Auchterarder and Strathearn.", homeBottom: sidebar,
				articleHead: func(a article) string {
					return "<link rel=\"shortlink\" href=\"" + base + "/node/" + strconv.Itoa(a.id) + "\" />\n"
				}}
			p.serve()
			p.simple("/newsletters", "Newsletters", newsletterForm(base+"/newsletters", "Email address", "Sign up"))
			p.simple("/digital-edition", "Digital edition", paywall("The Herald digital edition", "Every page of the paper on your tablet from £1.50 a week.", "Get the digital edition", base+"/digital-edition/order"))
			p.htmlSitemapPage("/sitemap", "Sitemap", link{base + "/about-us", "About us"}, link{base + "/contact", "Contact"})

			// The basic page the footer's "RSS" goes to: editorial text, one
			// feed icon, the sidebar.
			rssPage := "<div class=\"layout-content\">\n<article class=\"node node--type-page node--view-mode-full\">\n<div class=\"text-content clearfix field field--name-body field--type-text-with-summary field--label-hidden field__item\">\n" +
				"<p>RSS lets you follow the latest headlines from The Strathearn Herald in a news reader or app of your choice, without having to visit the site.</p>\n" +
				"<h2>How do I use it?</h2>\n<p>Most news readers, such as Feedly or Inoreader, will ask for the address of the feed: copy the link below and paste it in. Some browsers and email programs can show feeds too.</p>\n" +
				"<div class=\"feed-icons\"><a href=\"" + base + feedPath + "\" class=\"feed-icon\"><svg xmlns=\"http://www.w3.org/2000/svg\" width=\"14\" height=\"14\" viewBox=\"0 0 14 14\" aria-hidden=\"true\"><path d=\"M0 0v2.2c6.5 0 11.8 5.3 11.8 11.8H14C14 6.3 7.7 0 0 0zm0 4.4v2.2c4.1 0 7.4 3.3 7.4 7.4h2.2c0-5.3-4.3-9.6-9.6-9.6zM1.9 10.2a1.9 1.9 0 1 0 0 3.8 1.9 1.9 0 0 0 0-3.8z\"/></svg> Subscribe to Latest headlines</a></div>\n" +
				"<h2>Terms of use</h2>\n<p>Our headlines are free for personal, non-commercial use. If you would like to use them on a website, please <a href=\"" + base + "/contact\">contact us</a> first.</p>\n" +
				"</div>\n</article>\n</div>\n" + sidebar
			h.html("/rss-feeds", c.page("RSS Feeds", "/rss-feeds", "", "<link rel=\"shortlink\" href=\""+base+"/node/41\" />\n", "<h1 class=\"page-title\"><span class=\"field field--name-title\">RSS Feeds</span></h1>\n"+rssPage))

			ns := "\txmlns:foaf=\"http://xmlns.com/foaf/0.1/\"\n\txmlns:og=\"http://ogp.me/ns#\"\n\txmlns:rdfs=\"http://www.w3.org/2000/01/rdf-schema#\"\n\txmlns:schema=\"http://schema.org/\"\n\txmlns:sioc=\"http://rdfs.org/sioc/ns#\"\n\txmlns:siocn=\"http://rdfs.org/sioc/types#\"\n\txmlns:skos=\"http://www.w3.org/2004/02/skos/core#\"\n\txmlns:xsd=\"http://www.w3.org/2001/XMLSchema#\"\n"
			h.put(feedPath, "application/rss+xml; charset=utf-8", rss2(channel{title: "Latest headlines", link: base + "/", description: "The latest news from The Strathearn Herald", lang: "en",
				self: base + feedPath, loc: zoneLondon}, base, list[:15],
				rssOpts{creator: true, extraNS: ns, guid: func(a article) string { return strconv.Itoa(a.id) + " at " + base }}))

			urls := []smURL{{loc: base + "/", lastmod: list[0].time, changefreq: "hourly", priority: "1.0"}}
			for _, s := range slugs {
				urls = append(urls, smURL{loc: base + sectionOf(s), lastmod: inSection(list, s)[0].time, changefreq: "daily", priority: "0.7"})
			}
			urls = append(urls, articleURLs(base, list)...)
			h.xml("/sitemap.xml", urlset(zoneLondon, urls, false))
			h.text("/robots.txt", drupalRobots+"\nSitemap: "+base+"/sitemap.xml\n")
		},
	}
}

func handmadeRSSPageFeedHost() CatalogueEntry {
	const apex = "pinehollow-courier-example.com"
	const host = "www." + apex
	const fbHost = "feeds.feedblitz.com"
	const fbName = "pinehollowcourier"
	return CatalogueEntry{
		Name:       "handmade_rss_page_feedhost",
		ModelledOn: "Hand-coded small-town paper (Dreamweaver-era tables, no CMS, no robots.txt): nothing in <head>; the side menu's \"RSS\" goes to a bare /rss.html whose one link, \"Click here to subscribe\", is its FeedBlitz feed (feeds.feedblitz.com/<name>, no extension); an online generator's /sitemap.xml sits at the usual path",
		DomainID:   "media:us:" + apex,
		Expect:     ExpectedSeed{ContentType: "news", FetchType: "rss", EntryURL: "https://" + fbHost + "/" + fbName},
		build: func(b *builder) {
			base := "https://" + host
			feedURL := "https://" + fbHost + "/" + fbName
			b.redirectWWW(apex)
			h := b.host(host)
			list := b.articles("pinehollow", articleSpec{lang: "en", n: 20, newest: 3*time.Hour + 50*time.Minute, every: 9 * time.Hour, sections: []string{"news", "news", "sports"},
				path: func(a article) string {
					t := a.time.In(zoneCST)
					return "/" + a.section + "/" + t.Format("2006") + "/" + t.Format("0102") + "-" + slugify(a.title) + ".html"
				}})
			date := func(t time.Time) string { return t.In(zoneCST).Format("Monday, January 2, 2006") }
			page := func(title, body string) []byte {
				return []byte("<!DOCTYPE HTML PUBLIC \"-//W3C//DTD HTML 4.01 Transitional//EN\" \"http://www.w3.org/TR/html4/loose.dtd\">\n<html>\n<head>\n" +
					"<meta http-equiv=\"Content-Type\" content=\"text/html; charset=iso-8859-1\">\n<title>" + esc(title) + "</title>\n" +
					"<meta name=\"keywords\" content=\"Pine Hollow, Tamarack County, newspaper, news, sports, obituaries\">\n" +
					"<link href=\"/courier.css\" rel=\"stylesheet\" type=\"text/css\">\n" +
					"<script type=\"text/javascript\">\n<!--\nfunction MM_preloadImages() { //v3.0\n  var d=document; if(d.images){ if(!d.MM_p) d.MM_p=new Array();\n    var i,j=d.MM_p.length,a=MM_preloadImages.arguments; for(i=0; i<a.length; i++)\n    if (a[i].indexOf(\"#\")!=0){ d.MM_p[j]=new Image; d.MM_p[j++].src=a[i];}}\n}\n//-->\n</script>\n" +
					"</head>\n<body bgcolor=\"#FFFFFF\" onLoad=\"MM_preloadImages('/images/nav_on.gif')\">\n" +
					"<table width=\"760\" border=\"0\" align=\"center\" cellpadding=\"4\" cellspacing=\"0\">\n" +
					"<tr><td colspan=\"2\"><a href=\"/index.html\"><img src=\"/images/masthead.gif\" alt=\"The Pine Hollow Courier\" width=\"760\" height=\"90\" border=\"0\"></a></td></tr>\n" +
					"<tr>\n<td width=\"150\" valign=\"top\" bgcolor=\"#E8E8D0\"><font face=\"Arial, Helvetica, sans-serif\" size=\"2\">\n" +
					"<a href=\"/index.html\">Home</a><br>\n<a href=\"/news.html\">Local News</a><br>\n<a href=\"/sports.html\">Sports</a><br>\n<a href=\"/obits.html\">Obituaries</a><br>\n" +
					"<a href=\"/classifieds.html\">Classifieds</a><br>\n<a href=\"/delivery.html\">Home Delivery</a><br>\n<a href=\"/rss.html\">RSS</a><br>\n<a href=\"/contact.html\">Contact Us</a><br>\n" +
					"<br><img src=\"/images/weather_sticker.gif\" alt=\"Pine Hollow weather\" width=\"140\" height=\"90\"></font></td>\n" +
					"<td valign=\"top\"><font face=\"Georgia, Times New Roman, Times, serif\">\n" + body + "\n</font></td>\n</tr>\n" +
					"<tr><td colspan=\"2\" align=\"center\"><hr size=\"1\" noshade><font face=\"Arial, Helvetica, sans-serif\" size=\"1\">&copy; 1998-" + strconv.Itoa(b.now.Year()) +
					" The Pine Hollow Courier &middot; 112 Main Street, Pine Hollow, MN 56470 &middot; (218) 555-0142 &middot; <a href=\"mailto:editor@" + apex + "\">editor@" + apex + "</a><br>\n" +
					"You are visitor number <img src=\"/cgi-bin/Count.cgi?df=courier.dat&amp;dd=C\" alt=\"counter\" align=\"absmiddle\"> since March 1, 1998</font></td></tr>\n" +
					"</table>\n</body>\n</html>\n")
			}
			items := func(list []article) string {
				var s strings.Builder
				for _, a := range list {
					s.WriteString("<p><b><a href=\"" + a.path + "\">" + esc(a.title) + "</a></b><br>\n<font size=\"2\" color=\"#666666\">" + date(a.time) + "</font><br>\n" + esc(a.summary) + "</p>\n")
				}
				return s.String()
			}
			home := page("The Pine Hollow Courier - Serving Pine Hollow and Tamarack County since 1921",
				"<h2>This Week's Headlines</h2>\n"+items(list[:8])+"<p><a href=\"/news.html\">More local news &gt;&gt;</a></p>\n"+
					"<p><i>Deadline for letters to the editor is Monday at noon.</i></p>")
			h.html("/", home)
			h.html("/index.html", home)
			h.html("/news.html", page("Local News - The Pine Hollow Courier", "<h2>Local News</h2>\n"+items(inSection(list, "news"))))
			h.html("/sports.html", page("Sports - The Pine Hollow Courier", "<h2>Sports</h2>\n"+items(inSection(list, "sports"))))
			for _, a := range list {
				h.html(a.path, page(a.title+" - The Pine Hollow Courier", "<h2>"+esc(a.title)+"</h2>\n<p><font size=\"2\">"+date(a.time)+"</font></p>\n<p>"+
					esc(a.summary)+"</p>\n<p>"+esc(a.summary)+"</p>\n<p><a href=\"/news.html\">&lt;&lt; Back to Local News</a></p>"))
			}
			obits := b.articles("pinehollow-obits", articleSpec{lang: "en", n: 6, newest: 2 * 24 * time.Hour, every: 3 * 24 * time.Hour,
				path: func(a article) string { return "/obits.html#obit" + strconv.Itoa(a.id) }})
			var ob strings.Builder
			ob.WriteString("<h2>Obituaries</h2>\n")
			for i, a := range obits {
				ob.WriteString("<p><a name=\"obit" + strconv.Itoa(a.id) + "\"></a><b>" + []string{"Harold J. Lindqvist", "Marjorie A. Olson", "Dale R. Pederson", "Evelyn M. Kowalski", "Arnold T. Haugen", "Bernice L. Nyberg"}[i] +
					"</b>, " + date(a.time) + "<br>\nServices will be held at Our Savior's Lutheran Church.</p>\n")
			}
			h.html("/obits.html", page("Obituaries - The Pine Hollow Courier", ob.String()))
			h.html("/classifieds.html", page("Classifieds - The Pine Hollow Courier", "<h2>Classifieds</h2>\n<p>Classified ads are $6.00 for the first 20 words. Call (218) 555-0142 or stop by the office by Monday at 5 p.m.</p>\n<p><b>FOR SALE:</b> 2009 Arctic Cat snowmobile, runs good. 555-0188.</p>\n<p><b>HELP WANTED:</b> Part-time cook, Lakeside Cafe. Apply in person.</p>"))
			h.html("/delivery.html", page("Home Delivery - The Pine Hollow Courier", "<h2>Home Delivery</h2>\n<p>Get The Courier delivered to your mailbox every Thursday: $38 a year in Tamarack County, $48 elsewhere in Minnesota.</p>\n<p>Mail a check to The Pine Hollow Courier, PO Box 17, Pine Hollow, MN 56470.</p>"))
			h.html("/contact.html", page("Contact Us - The Pine Hollow Courier", "<h2>Contact Us</h2>\n<p>Editor: Gary Lindahl, <a href=\"mailto:editor@"+apex+"\">editor@"+apex+"</a><br>\nAdvertising: Sue Halvorson, <a href=\"mailto:ads@"+apex+"\">ads@"+apex+"</a><br>\nPhone: (218) 555-0142</p>"))
			// The page the menu's "RSS" goes to, written by hand: one link.
			h.html("/rss.html", []byte("<html>\n<head>\n<title>RSS</title>\n</head>\n<body>\n<h2>Get our headlines by RSS</h2>\n"+
				"<p>RSS lets you read the latest Courier headlines in a news reader program, without visiting our web site.</p>\n"+
				"<p><a href=\""+feedURL+"\">Click here to subscribe</a></p>\n"+
				"<p>Questions? Call the office at (218) 555-0142.</p>\n</body>\n</html>\n"))
			h.put("/courier.css", "text/css", []byte("body { margin: 0; }\na { color: #003366; }\n"))
			// An online generator's sitemap, uploaded by hand.
			urls := []smURL{{loc: base + "/", lastmod: list[0].time, priority: "1.00"}, {loc: base + "/news.html", lastmod: list[0].time, priority: "0.80"},
				{loc: base + "/sports.html", lastmod: inSection(list, "sports")[0].time, priority: "0.80"}, {loc: base + "/obits.html", lastmod: obits[0].time, priority: "0.80"}}
			for _, a := range list {
				urls = append(urls, smURL{loc: base + a.path, lastmod: a.time, priority: "0.64"})
			}
			sm := strings.Replace(string(urlset(zoneCST, urls, false)), "<urlset", "<!--  created with Free Online Sitemap Generator www.xml-sitemaps.com  -->\n<urlset", 1)
			h.xml("/sitemap.xml", []byte(sm))

			fb := b.host(fbHost)
			fb.put("/"+fbName, "text/xml; charset=UTF-8", rss2(channel{title: "The Pine Hollow Courier", link: base + "/", description: "News from Pine Hollow and Tamarack County, Minnesota",
				lang: "en-us", self: feedURL, ttl: "60", loc: zoneCST}, base, list[:15], rssOpts{
				extraNS:     "\txmlns:feedburner=\"http://rssnamespace.org/feedburner/ext/1.0\"\n",
				channelTail: "\t<image><url>https://assets.feedblitz.com/i/fblogo.png</url><title>The Pine Hollow Courier</title><link>" + base + "/</link></image>\n\t<atom:link rel=\"hub\" href=\"https://feedblitz.superfeedr.com/\" />\n",
			}))
			fb.text("/robots.txt", "User-agent: *\nDisallow: /f/\nDisallow: /f.fblz\n")
			fb.notFound = []byte("<html><head><title>FeedBlitz - Feed Not Found</title></head><body><h1>Feed not found</h1><p>The feed you requested does not exist or has been deleted.</p></body></html>\n")
		},
	}
}

func siblingFeedsHostRobots() CatalogueEntry {
	const apex = "greatplains-public-media-example.org"
	const host = "www." + apex
	const feedsHost = "feeds." + apex
	return CatalogueEntry{
		Name:       "sibling_feeds_host_robots",
		ModelledOn: "US public radio newsroom whose feeds moved to https://feeds.<domain>/news-rss/: only a footer \"RSS\" anchor links the latest-news feed; www's robots.txt still disallows the old /news-rss/ path, while the feeds host's own robots.txt allows it (it disallows /private/); robots names a plain sitemap index",
		DomainID:   "media:us:" + apex,
		Expect:     ExpectedSeed{ContentType: "news", FetchType: "rss", EntryURL: "https://" + feedsHost + "/news-rss/latest.xml"},
		build: func(b *builder) {
			base := "https://" + host
			fbase := "https://" + feedsHost
			b.redirectWWW(apex)
			p := b.stdSite(stdConfig{host: host, name: "Great Plains Public Media", desc: "News from the High Plains, from your public radio station.", lang: "en", loc: zoneCST, seed: "greatplains",
				sections: []string{"news:News", "politics:Politics", "agriculture:Agriculture", "education:Education", "arts-culture:Arts & Culture", "environment:Environment"},
				path: func(a article) string {
					return "/" + a.section + "/" + a.time.In(zoneCST).Format("2006-01-02") + "/" + slugify(a.title)
				},
				newest: 1*time.Hour + 35*time.Minute, every: 2*time.Hour + 40*time.Minute, n: 36,
				head:     "<link rel=\"stylesheet\" href=\"" + base + "/resource/styles/main.8c41e2.css\">\n<meta name=\"apple-itunes-app\" content=\"app-id=1170000007\">\n",
				topLinks: []link{{base + "/listen-live", "Listen Live"}, {base + "/schedule", "Schedule"}, {base + "/donate", "Donate"}},
				footerCols: []footerCol{
					{"About", []link{{base + "/about", "About us"}, {base + "/careers", "Careers"}, {base + "/contact", "Contact"}, {base + "/fcc-public-files", "FCC public files"}}},
					{"Support", []link{{base + "/donate", "Donate"}, {base + "/underwriting", "Underwriting"}, {base + "/vehicle-donation", "Vehicle donation"}, {base + "/volunteer", "Volunteer"}}},
					{"Connect", []link{{base + "/newsletters", "Newsletters"}, {base + "/podcasts", "Podcasts"}, {base + "/apps", "Apps"}, {fbase + "/news-rss/latest.xml", "RSS"}}},
				},
				footerExtra: social("GreatPlainsPM", "facebook", "instagram", "youtube") + "<p class=\"npr-member\">A member station of NPR.</p>",
				copyright:   "© " + strconv.Itoa(b.now.Year()) + " Great Plains Public Media",
			})
			p.simple("/donate", "Donate", paywall("Keep public media strong", "Give $10 a month and get our tote bag.", "Donate now", base+"/donate/checkout/"))
			p.simple("/newsletters", "Newsletters", newsletterForm(base+"/newsletters/signup", "Email address", "Sign up"))
			p.simple("/podcasts", "Podcasts", "<p>Listen to <i>High Plains Morning</i> on <a href=\"https://podcasts.apple.com/us/podcast/high-plains-morning/id1170000008\">Apple Podcasts</a> or <a href=\"https://open.spotify.com/show/7hpm\">Spotify</a>.</p>")
			h, list := p.h, p.list
			// The feeds' old home on www now sends readers to the feeds host.
			h.redirect("/news-rss/latest.xml", fbase+"/news-rss/latest.xml", http.StatusMovedPermanently)
			var months []smChild
			for i := 0; i < 3; i++ {
				m := b.now.AddDate(0, -i, 0)
				path := "/sitemap-" + m.Format("2006-01") + ".xml"
				months = append(months, smChild{base + path, m})
				items := list
				if i > 0 {
					items = b.articles("greatplains-"+m.Format("200601"), articleSpec{lang: "en", n: 6, newest: b.now.Sub(m) + 24*time.Hour, every: 4 * 24 * time.Hour, sections: []string{"news"},
						path: func(a article) string {
							return "/news/" + a.time.In(zoneCST).Format("2006-01-02") + "/" + slugify(a.title)
						}})
				}
				h.xml(path, urlset(zoneCST, articleURLs(base, items), false))
			}
			months = append(months, smChild{base + "/sitemap-pages.xml", list[20].time})
			h.xml("/sitemap-pages.xml", urlset(zoneCST, []smURL{{loc: base + "/"}, {loc: base + "/about"}, {loc: base + "/schedule"}, {loc: base + "/donate"}}, false))
			h.xml("/sitemap.xml", sitemapIndex(zoneCST, months, ""))
			h.text("/robots.txt", "User-agent: *\nDisallow: /search\nDisallow: /donate/checkout/\nDisallow: /news-rss/\nDisallow: /api/\nDisallow: /*?page=\n\n"+
				"User-agent: GPTBot\nDisallow: /\n\nSitemap: "+base+"/sitemap.xml\n")

			fh := b.host(feedsHost)
			ch := channel{title: "Great Plains Public Media: Latest News", link: base + "/", description: "The latest stories from Great Plains Public Media", lang: "en-us",
				copyright: "Copyright " + strconv.Itoa(b.now.Year()) + " Great Plains Public Media", loc: zoneCST}
			opts := rssOpts{creator: true, media: base + "/resource/images", guid: func(a article) string { return "gppm-" + strconv.Itoa(a.id) }}
			ch.self = fbase + "/news-rss/latest.xml"
			fh.rss("/news-rss/latest.xml", rss2(ch, base, list[:20], opts))
			for _, s := range []string{"politics", "agriculture", "education"} {
				sch := ch
				sch.title, sch.self = "Great Plains Public Media: "+p.labels[s], fbase+"/news-rss/"+s+".xml"
				fh.rss("/news-rss/"+s+".xml", rss2(sch, base, inSection(list, s), opts))
			}
			fh.text("/robots.txt", "User-agent: *\nDisallow: /private/\nAllow: /news-rss/\n")
			fh.notFound = []byte("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>NoSuchKey</Code><Message>The specified key does not exist.</Message></Error>\n")
		},
	}
}

func rssRedirectSiblingHost() CatalogueEntry {
	const apex = "borneo-herald-example.com.my"
	const host = "www." + apex
	const rssHost = "rss." + apex
	return CatalogueEntry{
		Name:       "rss_redirect_sibling_host",
		ModelledOn: "Malaysian daily whose header \"RSS\" anchor, https://www.<domain>/rss, answers 301 to https://rss.<domain>/news/all.rss; the rss. host serves only feeds and has no robots.txt (404); nothing in <head>; robots names a plain sitemap index",
		DomainID:   "media:my:" + apex,
		Expect:     ExpectedSeed{ContentType: "news", FetchType: "rss", EntryURL: "https://" + rssHost + "/news/all.rss"},
		build: func(b *builder) {
			base := "https://" + host
			rbase := "https://" + rssHost
			b.redirectWWW(apex)
			p := b.stdSite(stdConfig{host: host, name: "Borneo Herald", desc: "Latest news from Sabah, Sarawak, Malaysia and the world.", lang: "en", loc: zoneMYT, seed: "borneo",
				sections:  []string{"sabah:Sabah", "sarawak:Sarawak", "nation:Nation", "world:World", "business:Business", "sports:Sports", "lifestyle:Lifestyle"},
				sectionOf: func(slug string) string { return "/news/" + slug },
				path: func(a article) string {
					return "/news/" + a.section + "/" + a.time.In(zoneMYT).Format("2006/01") + "/" + strconv.Itoa(a.id) + "/" + slugify(a.title)
				},
				newest: 48 * time.Minute, every: 85 * time.Minute, n: 40,
				head:     "<link rel=\"stylesheet\" href=\"" + base + "/assets/css/app.3e9d.css\">\n" + jsonLD("Borneo Herald", base),
				topLinks: []link{{base + "/epaper", "ePaper"}, {base + "/newsletters", "Newsletters"}, {base + "/rss", "RSS"}, {base + "/login", "Log in"}},
				footerCols: []footerCol{
					{"Borneo Herald", []link{{base + "/about-us", "About us"}, {base + "/contact-us", "Contact us"}, {base + "/advertise", "Advertise"}, {base + "/careers", "Careers"}}},
					{"Legal", []link{{base + "/privacy-policy", "Privacy policy"}, {base + "/terms-of-use", "Terms of use"}, {base + "/pdpa-notice", "PDPA notice"}}},
				},
				footerExtra: social("BorneoHerald", "facebook", "x", "instagram", "tiktok") + appBadges("1550000009", "my.com.borneoherald", "App Store", "Google Play"),
				cookie:      oneTrust("bh-my"),
				copyright:   "© " + strconv.Itoa(b.now.Year()) + " Borneo Herald Sdn Bhd (123456-K). All rights reserved.",
			})
			p.simple("/epaper", "ePaper", paywall("Borneo Herald ePaper", "Read the print edition on any device from RM9.90 a month.", "Get the ePaper", base+"/epaper/checkout"))
			p.simple("/newsletters", "Newsletters", newsletterForm(base+"/newsletters/signup", "Email address", "Sign up"))
			h, list := p.h, p.list
			h.redirect("/rss", rbase+"/news/all.rss", http.StatusMovedPermanently)
			var children []smChild
			for i := 0; i < 4; i++ {
				m := b.now.AddDate(0, -i, 0)
				path := "/sitemap-" + m.Format("2006-01") + ".xml"
				children = append(children, smChild{base + path, m})
				items := list
				if i > 0 {
					items = b.articles("borneo-"+m.Format("200601"), articleSpec{lang: "en", n: 8, newest: b.now.Sub(m) + 24*time.Hour, every: 3 * 24 * time.Hour, sections: []string{"nation"},
						path: func(a article) string {
							return "/news/nation/" + a.time.In(zoneMYT).Format("2006/01") + "/" + strconv.Itoa(a.id) + "/" + slugify(a.title)
						}})
				}
				h.xml(path, urlset(zoneMYT, articleURLs(base, items), false))
			}
			h.xml("/sitemap_index.xml", sitemapIndex(zoneMYT, children, ""))
			h.text("/robots.txt", "User-agent: *\nDisallow: /search/\nDisallow: /epaper/reader/\nDisallow: /login\nDisallow: /*?amp\n\nSitemap: "+base+"/sitemap_index.xml\n")

			r := b.host(rssHost)
			ch := channel{title: "Borneo Herald - Latest News", link: base + "/", description: "Latest news from the Borneo Herald", lang: "en-MY", self: rbase + "/news/all.rss", ttl: "15", loc: zoneMYT}
			r.rss("/news/all.rss", rss2(ch, base, list[:20], rssOpts{media: "https://cdn." + apex + "/images", categoryTag: true}))
			for _, s := range []string{"sabah", "sarawak", "nation", "business", "sports"} {
				sch := ch
				sch.title, sch.self = "Borneo Herald - "+p.labels[s], rbase+"/news/"+s+".rss"
				r.rss("/news/"+s+".rss", rss2(sch, base, inSection(list, s), rssOpts{media: "https://cdn." + apex + "/images", categoryTag: true}))
			}
		},
	}
}
