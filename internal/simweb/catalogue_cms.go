package simweb

import (
	"net/http"
	"strconv"
	"strings"
	"time"
)

func arcXPOutboundFeeds() CatalogueEntry {
	const apex = "potomac-courier-example.com"
	const host = "www." + apex
	const site = "potomac-courier"
	return CatalogueEntry{
		Name:       "arc_xp_outboundfeeds",
		ModelledOn: "Arc XP (Fusion) daily, Washington-Post-style: no feed declared or linked; Outbound Feeds RSS and news sitemap at their default /arc/outboundfeeds/ paths; robots names only the sitemap index",
		DomainID:   "media:us:" + apex,
		Expect:     ExpectedSeed{ContentType: "news", FetchType: "rss", EntryURL: "https://" + host + "/arc/outboundfeeds/rss/?outputType=xml"},
		build: func(b *builder) {
			base := "https://" + host
			b.redirectWWW(apex)
			h := b.host(host)
			sectionOf := func(slug string) string { return "/" + slug + "/" }
			labels, slugs, nav := labelsOf(base, sectionOf, "local:Local", "politics:Politics", "business:Business", "sports:Sports", "opinions:Opinions", "weather:Weather", "lifestyle:Lifestyle")
			list := b.articles("potomac", articleSpec{lang: "en", n: 40, newest: 26 * time.Minute, every: 95 * time.Minute, sections: slugs,
				authors: []string{"Elaine Porter", "Marcus Reed", "Hannah Cho", "Associated Press"},
				path: func(a article) string {
					return "/" + a.section + a.time.In(zoneEST).Format("/2006/01/02/") + slugify(a.title) + "/"
				}})
			const dep = "4217"
			head := "<link rel=\"preconnect\" href=\"https://" + site + "-" + site + "-prod.cdn.arcpublishing.com\">\n" +
				"<link rel=\"preload\" as=\"font\" type=\"font/woff2\" href=\"/pf/resources/fonts/franklin-gothic-book.woff2?d=" + dep + "\" crossorigin>\n" +
				"<link rel=\"stylesheet\" href=\"/pf/resources/dist/potomac-courier/css/style.css?d=" + dep + "\">\n" +
				"<script id=\"fusion-engine-script\" type=\"application/javascript\" src=\"/pf/dist/engine/react.js?d=" + dep + "&amp;mxId=00000000\" defer></script>\n" +
				"<script type=\"application/javascript\" id=\"fusion-template-script\" defer src=\"/pf/dist/components/combinations/default.js?d=" + dep + "&amp;mxId=00000000\"></script>\n" +
				"<link rel=\"preload\" as=\"fetch\" crossorigin href=\"/pf/api/v3/content/fetch/site-service-hierarchy?query=%7B%22hierarchy%22%3A%22default%22%7D&amp;d=" + dep + "&amp;_website=" + site + "\">\n" +
				jsonLD("The Potomac Courier", base)
			fusion := "<script id=\"fusion-metadata\" type=\"application/javascript\">window.Fusion=window.Fusion||{};Fusion.arcSite=\"" + site +
				"\";Fusion.contextPath=\"/pf\";Fusion.mxId=\"00000000\";Fusion.deployment=\"" + dep + "\";Fusion.globalContentConfig={\"source\":\"content-api-collections\",\"query\":{\"_id\":\"HOMEPAGE\"}};" +
				"Fusion.lastModified=" + strconv.FormatInt(b.now.Add(-3*time.Minute).UnixMilli(), 10) + ";Fusion.contentCache={\"site-service-hierarchy\":{}};Fusion.layout=\"homepage-layout\";Fusion.metas={\"title\":{\"value\":\"The Potomac Courier\"}};Fusion.outputType=\"default\";</script>\n" +
				"<script src=\"https://cdn.cookielaw.org/scripttemplates/otSDKStub.js\" data-domain-script=\"8c2f0a5e-potomac\" async></script>\n" +
				"<script async src=\"https://securepubads.g.doubleclick.net/tag/js/gpt.js\"></script>"
			f := frame{
				lang: "en", name: "The Potomac Courier", base: base, loc: zoneEST, head: head, tail: fusion,
				bodyAttr: " class=\"b-homepage\"",
				topLinks: []link{{base + "/subscribe/", "Subscribe"}, {base + "/account/login/", "Sign in"}, {base + "/newsletters/", "Newsletters"},
					{base + "/e-edition/", "e-Edition"}},
				sections: append(nav, link{base + "/podcasts/", "Podcasts"}, link{base + "/obituaries/", "Obituaries"}),
				footerCols: []footerCol{
					{"Company", []link{{base + "/about/", "About Us"}, {base + "/careers/", "Careers"}, {base + "/contact-us/", "Contact Us"}, {base + "/advertise/", "Advertise"}}},
					{"Subscriptions", []link{{base + "/subscribe/", "Subscribe"}, {base + "/subscriber-services/", "Subscriber Services"}, {base + "/e-edition/", "e-Edition"}, {base + "/newsletters/", "Newsletters"}}},
					{"Policies", []link{{base + "/terms-of-service/", "Terms of Service"}, {base + "/privacy-policy/", "Privacy Policy"}, {base + "/privacy-policy/#ccpa", "Do Not Sell My Personal Information"}}},
				},
				footerExtra: social("PotomacCourier", "facebook", "x", "instagram", "linkedin") +
					appBadges("1460000001", "com.potomaccourier.android", "Download on the App Store", "Get it on Google Play"),
				copyright: "© 1996-" + strconv.Itoa(b.now.Year()) + " The Potomac Courier", titleSep: " - ", dateFmt: "January 2, 2006 at 3:04 pm MST",
				notFoundTitle: "Page not found", notFoundText: "We're sorry, but the page you requested could not be found.",
			}
			c := f.chrome()
			p := &pubSite{h: h, c: c, list: list, sectionOf: sectionOf, labels: labels, by: "By", teaserClass: "c-story",
				homeTitle: "", homeDesc: "Breaking news, politics, sports and weather from Maryland and the Washington region."}
			p.serve()
			p.simple("/subscribe/", "Subscribe", paywall("Get unlimited digital access", "$1 every 4 weeks for the first year.", "Subscribe", base+"/subscribe/checkout/"))
			p.simple("/newsletters/", "Newsletters", newsletterForm(base+"/newsletters/signup/", "Email address", "Sign up"))

			ch := channel{title: "The Potomac Courier", link: base, description: "The Potomac Courier", lang: "en", loc: zoneEST}
			guid := func(a article) string {
				return strings.ToUpper(strings.ReplaceAll(uuidFor("potomac", a.id), "-", ""))[:26]
			}
			opts := rssOpts{creator: true, media: "https://" + site + "-" + site + "-prod.cdn.arcpublishing.com/resizer/v2", guid: guid, content: true}
			ch.self = base + "/arc/outboundfeeds/rss/?outputType=xml"
			h.rss("/arc/outboundfeeds/rss/?outputType=xml", rss2(ch, base, list[:20], opts))
			for _, slug := range []string{"politics", "sports", "weather"} {
				sch := ch
				sch.title = "The Potomac Courier - " + labels[slug]
				sch.self = base + "/arc/outboundfeeds/rss/category/" + slug + "/?outputType=xml"
				h.rss("/arc/outboundfeeds/rss/category/"+slug+"/?outputType=xml", rss2(sch, base, inSection(list, slug), opts))
			}
			h.xml("/arc/outboundfeeds/news-sitemap/?outputType=xml", newsSitemap("The Potomac Courier", "en", base, zoneEST, b.last48h(list), newsOpts{image: true, keywords: true}))
			h.xml("/arc/outboundfeeds/sitemap-index/?outputType=xml", sitemapIndex(zoneEST, []smChild{
				{base + "/arc/outboundfeeds/sitemap/?from=0&outputType=xml", list[0].time},
				{base + "/arc/outboundfeeds/sitemap/?from=100&outputType=xml", list[0].time},
				{base + "/arc/outboundfeeds/sitemap/?from=200&outputType=xml", list[0].time},
				{base + "/arc/outboundfeeds/sitemap-section/?outputType=xml", list[0].time},
			}, ""))
			h.xml("/arc/outboundfeeds/sitemap/?from=0&outputType=xml", urlset(zoneEST, articleURLs(base, list), false))
			older := b.articles("potomac-old", articleSpec{lang: "en", n: 25, newest: 3 * 24 * time.Hour, every: 4 * time.Hour, sections: slugs,
				path: func(a article) string {
					return "/" + a.section + a.time.In(zoneEST).Format("/2006/01/02/") + slugify(a.title) + "/"
				}})
			h.xml("/arc/outboundfeeds/sitemap/?from=100&outputType=xml", urlset(zoneEST, articleURLs(base, older[:12]), false))
			h.xml("/arc/outboundfeeds/sitemap/?from=200&outputType=xml", urlset(zoneEST, articleURLs(base, older[12:]), false))
			var secs []smURL
			for _, s := range slugs {
				secs = append(secs, smURL{loc: base + sectionOf(s), changefreq: "hourly"})
			}
			h.xml("/arc/outboundfeeds/sitemap-section/?outputType=xml", urlset(zoneEST, secs, false))
			h.put("/pf/api/v3/content/fetch/site-service-hierarchy", "application/json", []byte(`{"_id":"/","name":"The Potomac Courier","children":[{"_id":"/local","name":"Local"},{"_id":"/politics","name":"Politics"}]}`))
			h.text("/robots.txt", "User-agent: *\nDisallow: /pf/api/\nDisallow: /search/\nDisallow: /*?*outputType=amp\nDisallow: /arcio/\nDisallow: /account/\n\n"+
				"User-agent: GPTBot\nDisallow: /\n\nUser-agent: CCBot\nDisallow: /\n\nSitemap: "+base+"/arc/outboundfeeds/sitemap-index/?outputType=xml\n")
		},
	}
}

func drupalRSSXML() CatalogueEntry {
	const apex = "midlands-observer-example.ie"
	const host = "www." + apex
	return CatalogueEntry{
		Name:       "drupal_rss_xml",
		ModelledOn: "Drupal 10 regional weekly: front page is a custom landing page, so the default front-page feed /rss.xml is served but not declared; taxonomy term pages declare their own section feeds",
		DomainID:   "media:ie:" + apex,
		Expect:     ExpectedSeed{ContentType: "news", FetchType: "rss", EntryURL: "https://" + host + "/rss.xml"},
		build: func(b *builder) {
			base := "https://" + host
			b.redirectWWW(apex)
			h := b.host(host)
			terms := map[string]int{"news": 1, "sport": 2, "farming": 3, "business": 4, "community": 5, "opinion": 6}
			sectionOf := func(slug string) string { return "/" + slug }
			labels, slugs, nav := labelsOf(base, sectionOf, "news:News", "sport:Sport", "farming:Farming", "business:Business", "community:Community", "opinion:Opinion")
			list := b.articles("midlands", articleSpec{lang: "en", n: 30, newest: 2*time.Hour + 10*time.Minute, every: 3 * time.Hour, sections: slugs,
				authors: []string{"Siobhán Kelly", "Declan Moran", "Aoife Brennan"},
				path:    func(a article) string { return "/" + a.section + "/" + slugify(a.title) }})
			css := "/sites/default/files/css/css_q8Jw2pV0e5u1.css?delta=0&amp;language=en&amp;theme=observer&amp;include=eJxLz0nKz9ZPKSpNzMvJzAMAJu0Fpg"
			head := "<meta name=\"Generator\" content=\"Drupal 10 (https://www.drupal.org)\" />\n<meta name=\"MobileOptimized\" content=\"width\" />\n<meta name=\"HandheldFriendly\" content=\"true\" />\n" +
				"<link rel=\"icon\" href=\"/themes/custom/observer/favicon.ico\" type=\"image/vnd.microsoft.icon\" />\n" +
				"<link rel=\"stylesheet\" media=\"all\" href=\"" + css + "\" />\n" +
				"<script src=\"/core/assets/vendor/once/once.min.js?v=1.0.1\"></script>\n"
			settings := "<script type=\"application/json\" data-drupal-selector=\"drupal-settings-json\">{\"path\":{\"baseUrl\":\"\\/\",\"pathPrefix\":\"\",\"currentPath\":\"node\\/1\",\"currentPathIsAdmin\":false,\"isFront\":true,\"currentLanguage\":\"en\"},\"pluralDelimiter\":\"\\u0003\",\"suppressDeprecationErrors\":true,\"user\":{\"uid\":0,\"permissionsHash\":\"b1c2\"}}</script>\n" +
				"<script src=\"/sites/default/files/js/js_Ab3xYz.js?scope=footer&amp;delta=0&amp;language=en&amp;theme=observer&amp;include=eJxLz0nKz9ZPKSpNzMvJzAMAJu0Fpg\"></script>\n" +
				"<script src=\"/core/misc/drupal.js?v=10.2.6\"></script>"
			f := frame{
				lang: "en", name: "Midlands Observer", base: base, loc: zoneIrish, head: head, tail: settings,
				htmlAttr: " dir=\"ltr\" prefix=\"og: https://ogp.me/ns#\"", bodyAttr: " class=\"path-frontpage page-node-type-landing-page\"",
				topLinks: []link{{base + "/subscribe", "Subscribe"}, {base + "/user/login", "Log in"}, {base + "/digital-edition", "Digital edition"}},
				sections: append([]link{{base + "/", "Home"}}, append(nav, link{base + "/death-notices", "Death notices"}, link{base + "/whats-on", "What's on"})...),
				footerCols: []footerCol{
					{"Midlands Observer", []link{{base + "/about-us", "About us"}, {base + "/contact-us", "Contact us"}, {base + "/advertise", "Advertise"}}},
					{"Legal", []link{{base + "/privacy-statement", "Privacy statement"}, {base + "/cookie-policy", "Cookie policy"}, {base + "/terms-and-conditions", "Terms and conditions"}}},
				},
				footerExtra: social("MidlandsObserver", "facebook", "x", "instagram"),
				cookie:      "<div id=\"sliding-popup\" class=\"sliding-popup-bottom\"><div class=\"eu-cookie-compliance-message\">We use cookies on this site to enhance your user experience.</div><button type=\"button\" class=\"agree-button eu-cookie-compliance-default-button\">OK, I agree</button></div>\n",
				copyright:   "© " + strconv.Itoa(b.now.Year()) + " Midlands Observer Ltd.", titleSep: " | ", dateFmt: "Mon, 2 Jan 2006 - 15:04",
				notFoundTitle: "Page not found", notFoundText: "The requested page could not be found.",
			}
			c := f.chrome()
			p := &pubSite{h: h, c: c, list: list, sectionOf: sectionOf, labels: labels, by: "By", teaserClass: "node--type-article",
				homeDesc: "News, sport and farming from the Irish midlands.",
				sectionHead: func(slug string) string {
					return "<link rel=\"alternate\" type=\"application/rss+xml\" title=\"" + labels[slug] + "\" href=\"" + base + "/taxonomy/term/" + strconv.Itoa(terms[slug]) + "/feed\" />\n"
				},
				articleHead: func(a article) string {
					return "<link rel=\"shortlink\" href=\"" + base + "/node/" + strconv.Itoa(a.id) + "\" />\n"
				}}
			p.serve()
			p.simple("/subscribe", "Subscribe", paywall("Subscribe to the Midlands Observer", "Print and digital packages from €2.50 a week.", "Choose a package", base+"/subscribe/checkout"))

			ns := "\txmlns:foaf=\"http://xmlns.com/foaf/0.1/\"\n\txmlns:og=\"http://ogp.me/ns#\"\n\txmlns:rdfs=\"http://www.w3.org/2000/01/rdf-schema#\"\n\txmlns:schema=\"http://schema.org/\"\n\txmlns:sioc=\"http://rdfs.org/sioc/ns#\"\n\txmlns:siocn=\"http://rdfs.org/sioc/types#\"\n\txmlns:skos=\"http://www.w3.org/2004/02/skos/core#\"\n\txmlns:xsd=\"http://www.w3.org/2001/XMLSchema#\"\n"
			opts := rssOpts{creator: true, extraNS: ns, guid: func(a article) string { return strconv.Itoa(a.id) + " at " + base }}
			h.rss("/rss.xml", rss2(channel{title: "Midlands Observer", link: base + "/", lang: "en", loc: zoneIrish}, base, list[:10], opts))
			for _, slug := range slugs {
				h.rss("/taxonomy/term/"+strconv.Itoa(terms[slug])+"/feed", rss2(channel{title: labels[slug], link: base + sectionOf(slug), lang: "en", loc: zoneIrish}, base, inSection(list, slug), opts))
			}
			urls := []smURL{{loc: base + "/", lastmod: list[0].time, changefreq: "daily", priority: "1.0"}}
			urls = append(urls, articleURLs(base, list)...)
			h.xml("/sitemap.xml", urlset(zoneIrish, urls, false))
			h.text("/robots.txt", drupalRobots+"\nSitemap: "+base+"/sitemap.xml\n")
		},
	}
}

// drupalRobots is the rule part of the robots.txt Drupal 10 ships.
const drupalRobots = `User-agent: *
# CSS, JS, Images
Allow: /core/*.css$
Allow: /core/*.css?
Allow: /core/*.js$
Allow: /core/*.js?
Allow: /core/*.gif
Allow: /core/*.jpg
Allow: /core/*.jpeg
Allow: /core/*.png
Allow: /core/*.svg
Allow: /profiles/*.css$
Allow: /profiles/*.css?
Allow: /profiles/*.js$
Allow: /profiles/*.js?
# Directories
Disallow: /core/
Disallow: /profiles/
# Files
Disallow: /README.md
Disallow: /web.config
# Paths (clean URLs)
Disallow: /admin/
Disallow: /comment/reply/
Disallow: /filter/tips
Disallow: /node/add/
Disallow: /search/
Disallow: /user/register
Disallow: /user/password
Disallow: /user/login
Disallow: /user/logout
Disallow: /media/oembed
Disallow: /*/media/oembed
# Paths (no clean URLs)
Disallow: /index.php/admin/
Disallow: /index.php/comment/reply/
Disallow: /index.php/filter/tips
Disallow: /index.php/node/add/
Disallow: /index.php/search/
Disallow: /index.php/user/password
Disallow: /index.php/user/register
Disallow: /index.php/user/login
Disallow: /index.php/user/logout
Disallow: /index.php/media/oembed
Disallow: /index.php/*/media/oembed
`

func typo3FeedDirectory() CatalogueEntry {
	const apex = "moselkurier-example.de"
	const host = "www." + apex
	return CatalogueEntry{
		Name:       "typo3_feed_directory",
		ModelledOn: "TYPO3 v11 regional paper with EXT:news: no feed in <head>; footer \"RSS-Feeds\" leads to a service page listing the tx_news feeds (alle Nachrichten first, then Ressorts); TYPO3 XML sitemap children carry cHash, which robots disallows",
		DomainID:   "media:de:" + apex,
		Expect:     ExpectedSeed{ContentType: "news", FetchType: "rss", EntryURL: "https://" + host + "/nachrichten/rss.xml"},
		build: func(b *builder) {
			base := "https://" + host
			b.redirectWWW(apex)
			h := b.host(host)
			sectionOf := func(slug string) string { return "/" + slug + "/" }
			labels, slugs, nav := labelsOf(base, sectionOf, "lokales:Lokales", "region:Region", "politik:Politik", "wirtschaft:Wirtschaft", "sport:Sport", "kultur:Kultur")
			list := b.articles("moselkurier", articleSpec{lang: "de", n: 36, newest: 35 * time.Minute, every: 110 * time.Minute, sections: slugs,
				authors: []string{"Jürgen Becker", "Katrin Scholl", "Redaktion"},
				path:    func(a article) string { return "/nachrichten/artikel/" + slugify(a.title) + "-" + strconv.Itoa(a.id) }})
			head := "<!--\n\tThis website is powered by TYPO3 - inspiring people to share!\n\tTYPO3 is a free open source Content Management Framework initially created by Kasper Skaarhoj and licensed under GNU/GPL.\n\tTYPO3 is copyright 1998-2024 of Kasper Skaarhoj. Extensions are copyright of their respective owners.\n\tInformation and contribution at https://typo3.org/\n-->\n" +
				"<meta name=\"generator\" content=\"TYPO3 CMS\" />\n<meta name=\"twitter:card\" content=\"summary\" />\n" +
				"<link rel=\"stylesheet\" href=\"/typo3temp/assets/compressed/merged-9c0e5b1f7f1d2a3b4c5d6e7f8a9b0c1d-min.css.gz?1718012345\" media=\"all\">\n" +
				"<link rel=\"stylesheet\" href=\"/typo3conf/ext/mk_sitepackage/Resources/Public/Css/main.min.css?1717000000\" media=\"all\">\n" +
				"<script src=\"/typo3temp/assets/compressed/merged-1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d-min.js.gz?1718012345\"></script>\n"
			f := frame{
				lang: "de", name: "Mosel-Kurier", base: base, loc: zoneCEST, head: head,
				tail:     "<script src=\"/typo3conf/ext/mk_sitepackage/Resources/Public/JavaScript/app.min.js?1717000000\"></script>",
				topLinks: []link{{base + "/abo/", "Abonnieren"}, {base + "/epaper/", "E-Paper"}, {base + "/login/", "Anmelden"}},
				sections: append([]link{{base + "/", "Startseite"}}, append(nav, link{base + "/traueranzeigen/", "Traueranzeigen"}, link{base + "/veranstaltungen/", "Veranstaltungen"})...),
				footerCols: []footerCol{
					{"Service", []link{{base + "/service/rss-feeds/", "RSS-Feeds"}, {base + "/service/newsletter/", "Newsletter"}, {base + "/service/apps/", "Apps"}, {base + "/epaper/", "E-Paper"}, {base + "/abo/", "Abo-Service"}}},
					{"Verlag", []link{{base + "/impressum/", "Impressum"}, {base + "/datenschutz/", "Datenschutz"}, {base + "/agb/", "AGB"}, {base + "/kontakt/", "Kontakt"}, {base + "/mediadaten/", "Mediadaten"}}},
				},
				footerExtra: social("Moselkurier", "facebook", "instagram", "whatsapp") + appBadges("1497000002", "de.moselkurier.news", "Laden im App Store", "Jetzt bei Google Play"),
				cookie:      "<div id=\"cmpbox\" class=\"cmpbox\" role=\"dialog\"><p>Wir verwenden Cookies und ähnliche Technologien. <a href=\"" + base + "/datenschutz/\">Datenschutz</a></p><a class=\"cmpboxbtn cmpboxbtnyes\" href=\"#\">Akzeptieren</a></div>\n",
				copyright:   "© " + strconv.Itoa(b.now.Year()) + " Mosel-Kurier Verlag GmbH & Co. KG", titleSep: " - ", dateFmt: "02.01.2006, 15:04 Uhr",
				notFoundTitle: "Seite nicht gefunden (404)", notFoundText: "Die angeforderte Seite existiert leider nicht oder wurde verschoben.",
			}
			c := f.chrome()
			p := &pubSite{h: h, c: c, list: list, sectionOf: sectionOf, labels: labels, by: "Von", teaserClass: "news-list-item", moreText: "Mehr aus",
				homeTitle: "Nachrichten von Mosel, Hunsrück und Eifel", homeDesc: "Aktuelle Nachrichten aus der Region Trier, Bernkastel-Kues und Cochem."}
			p.serve()
			p.simple("/abo/", "Abonnieren", paywall("Mosel-Kurier Digital", "Alle Artikel, E-Paper und App – 4 Wochen für 0,99 €.", "Jetzt abonnieren", base+"/abo/bestellen/"))
			p.simple("/impressum/", "Impressum", "<p>Mosel-Kurier Verlag GmbH &amp; Co. KG, Moselstraße 12, 54470 Bernkastel-Kues</p>")
			p.simple("/datenschutz/", "Datenschutz", "<p>Informationen zur Verarbeitung personenbezogener Daten.</p>")

			gen := "TYPO3 EXT:news"
			feeds := []struct{ path, title string }{{"/nachrichten/rss.xml", "Alle Nachrichten"}}
			for _, s := range slugs {
				feeds = append(feeds, struct{ path, title string }{"/" + s + "/rss.xml", labels[s]})
			}
			var dir strings.Builder
			dir.WriteString("<p>Mit unseren RSS-Feeds erhalten Sie die neuesten Nachrichten direkt in Ihren Feedreader.</p>\n<ul class=\"rss-list\">")
			for i, fd := range feeds {
				items := list[:15]
				if i > 0 {
					items = inSection(list, slugs[i-1])
				}
				h.rss(fd.path, rss2(channel{title: "Mosel-Kurier – " + fd.title, link: base + "/", description: "Nachrichten aus der Region", lang: "de-DE",
					self: base + fd.path, generator: gen, copyright: "Mosel-Kurier", loc: zoneCEST}, base, items, rssOpts{categoryTag: true}))
				dir.WriteString("<li><a href=\"" + base + fd.path + "\">" + esc(fd.title) + "</a> <code>" + esc(base+fd.path) + "</code></li>")
			}
			dir.WriteString("</ul>\n<p>Hinweis: Die Nutzung der Feeds ist nur für private Zwecke gestattet.</p>")
			p.simple("/service/rss-feeds/", "RSS-Feeds", dir.String())

			ch := "3f8a1c2b4d5e6f708192a3b4c5d6e7f8"
			h.xml("/sitemap.xml", sitemapIndex(zoneCEST, []smChild{
				{base + "/sitemap.xml?sitemap=pages&cHash=" + ch, list[0].time},
				{base + "/sitemap.xml?sitemap=news&cHash=" + ch[:16] + "9a0b1c2d3e4f5a6b", list[0].time},
			}, ""))
			h.xml("/sitemap.xml?sitemap=pages&cHash="+ch, urlset(zoneCEST, []smURL{{loc: base + "/"}, {loc: base + "/impressum/"}}, false))
			h.xml("/sitemap.xml?sitemap=news&cHash="+ch[:16]+"9a0b1c2d3e4f5a6b", urlset(zoneCEST, articleURLs(base, list), false))
			h.text("/robots.txt", "User-agent: *\nDisallow: /typo3/\nDisallow: /typo3_src/\nAllow: /typo3/sysext/frontend/Resources/Public/*\nDisallow: /*?id=*\nDisallow: /*&id=*\nDisallow: /*cHash\nDisallow: /*tx_powermail_pi1\nDisallow: /suche/\n\nSitemap: "+base+"/sitemap.xml\n")
		},
	}
}

func ghostRSS() CatalogueEntry {
	const apex = "northern-dispatch-example.co.uk"
	const host = "www." + apex
	return CatalogueEntry{
		Name:       "ghost_rss",
		ModelledOn: "Ghost 5 independent newsroom: ghost_head declares /rss/ (Ghost always does), tag and author feeds beside it, \"Subscribe\" buttons open the members portal (#/portal/signup), Content API key in the page",
		DomainID:   "media:gb:" + apex,
		Expect:     ExpectedSeed{ContentType: "news", FetchType: "rss", EntryURL: "https://" + host + "/rss/"},
		build: func(b *builder) {
			base := "https://" + host
			b.redirectWWW(apex)
			h := b.host(host)
			sectionOf := func(slug string) string { return "/tag/" + slug + "/" }
			labels, slugs, nav := labelsOf(base, sectionOf, "politics:Politics", "health:Health", "transport:Transport", "culture:Culture", "investigations:Investigations")
			list := b.articles("dispatch", articleSpec{lang: "en", n: 24, newest: 3*time.Hour + 12*time.Minute, every: 5 * time.Hour, sections: slugs,
				authors: []string{"Joe Whitaker", "Ellie Marsh"},
				path:    func(a article) string { return "/" + slugify(a.title) + "/" }})
			key := "8e2d9c71a5b04f6e3c1d0b9a87"
			head := "<link rel=\"stylesheet\" type=\"text/css\" href=\"" + base + "/assets/built/screen.css?v=5a4c3b2d1e\">\n" +
				"<meta name=\"referrer\" content=\"no-referrer-when-downgrade\">\n" +
				"<meta name=\"generator\" content=\"Ghost 5.82\">\n" +
				"<link rel=\"alternate\" type=\"application/rss+xml\" title=\"The Northern Dispatch\" href=\"" + base + "/rss/\">\n" +
				"<script defer src=\"https://cdn.jsdelivr.net/ghost/portal@~2.37/umd/portal.min.js\" data-i18n=\"false\" data-ghost=\"" + base + "/\" data-key=\"" + key + "\" data-api=\"" + base + "/ghost/api/content/\" crossorigin=\"anonymous\"></script>\n" +
				"<script defer src=\"https://cdn.jsdelivr.net/ghost/sodo-search@~1.1/umd/sodo-search.min.js\" data-key=\"" + key + "\" data-styles=\"https://cdn.jsdelivr.net/ghost/sodo-search@~1.1/umd/main.css\" data-sodo-search=\"" + base + "/\" crossorigin=\"anonymous\"></script>\n" +
				"<link href=\"" + base + "/webmentions/receive/\" rel=\"webmention\">\n"
			f := frame{
				lang: "en", name: "The Northern Dispatch", base: base, loc: zoneLondon, head: head,
				tail:        "<script src=\"" + base + "/assets/built/casper.js?v=5a4c3b2d1e\"></script>",
				bodyAttr:    " class=\"home-template is-head-left-logo has-cover\"",
				topLinks:    []link{{"#/portal/signin", "Sign in"}, {"#/portal/signup", "Subscribe"}},
				sections:    append([]link{{base + "/", "Home"}}, append(nav, link{base + "/about/", "About"})...),
				footerCols:  []footerCol{{"The Dispatch", []link{{base + "/about/", "About"}, {base + "/membership/", "Membership"}, {base + "/privacy/", "Privacy"}, {"#/portal/signup", "Subscribe"}}}},
				footerExtra: social("NorthDispatch", "x", "facebook", "threads"),
				copyright:   "The Northern Dispatch © " + strconv.Itoa(b.now.Year()) + ". Powered by Ghost",
				titleSep:    " | ", dateFmt: "2 Jan 2006",
				notFoundTitle: "Page not found", notFoundText: "404 — Page not found. Go to the front page →",
			}
			c := f.chrome()
			p := &pubSite{h: h, c: c, list: list, sectionOf: sectionOf, labels: labels, by: "By", teaserClass: "post-card",
				homeDesc: "Independent journalism for the North of England.",
				homeTop:  "<section class=\"cta\"><p>Get our reporting in your inbox.</p><a class=\"gh-button\" href=\"#/portal/signup\" data-portal=\"signup\">Subscribe</a></section>\n",
				sectionHead: func(slug string) string {
					return "<link rel=\"alternate\" type=\"application/rss+xml\" title=\"The Northern Dispatch\" href=\"" + base + "/rss/\">\n"
				}}
			p.serve()
			p.simple("/about/", "About", "<p>The Northern Dispatch is a reader-funded newsroom.</p>")
			p.simple("/membership/", "Membership", paywall("Become a member", "£5 a month or £50 a year.", "Subscribe", "#/portal/signup/paid"))
			opts := rssOpts{creator: true, content: true, media: base + "/content/images/size/w1200", categoryTag: true,
				guid: func(a article) string { return uuidFor("dispatch", a.id)[:24] }}
			ch := channel{title: "The Northern Dispatch", link: base + "/", description: "Independent journalism for the North of England.",
				self: base + "/rss/", generator: "Ghost 5.82", ttl: "60", loc: zoneLondon}
			h.rss("/rss/", rss2(ch, base, list[:15], opts))
			h.redirect("/rss", base+"/rss/", http.StatusMovedPermanently)
			for _, slug := range slugs {
				tch := ch
				tch.title = labels[slug] + " - The Northern Dispatch"
				tch.self = base + "/tag/" + slug + "/rss/"
				h.rss("/tag/"+slug+"/rss/", rss2(tch, base, inSection(list, slug), opts))
			}
			h.xml("/sitemap.xml", sitemapIndex(zoneLondon, []smChild{{base + "/sitemap-pages.xml", list[5].time}, {base + "/sitemap-posts.xml", list[0].time},
				{base + "/sitemap-authors.xml", list[0].time}, {base + "/sitemap-tags.xml", list[0].time}}, "//"+host+"/sitemap.xsl"))
			h.xml("/sitemap-posts.xml", urlset(zoneLondon, articleURLs(base, list), false))
			h.xml("/sitemap-pages.xml", urlset(zoneLondon, []smURL{{loc: base + "/about/"}, {loc: base + "/membership/"}}, false))
			h.xml("/sitemap-authors.xml", urlset(zoneLondon, []smURL{{loc: base + "/author/joe/"}, {loc: base + "/author/ellie/"}}, false))
			var tags []smURL
			for _, s := range slugs {
				tags = append(tags, smURL{loc: base + sectionOf(s)})
			}
			h.xml("/sitemap-tags.xml", urlset(zoneLondon, tags, false))
			h.put("/ghost/api/content/posts/", "application/json; charset=utf-8", []byte(`{"errors":[{"message":"Authorization failed","context":"Unknown Content API Key","type":"UnauthorizedError"}]}`))
			h.text("/robots.txt", "User-agent: *\nSitemap: "+base+"/sitemap.xml\nDisallow: /ghost/\nDisallow: /email/\nDisallow: /members/api/comments/counts/\nDisallow: /r/\nDisallow: /webmentions/receive/\n")
		},
	}
}

func joomlaFormatFeed() CatalogueEntry {
	const apex = "gazzettadellago-example.it"
	const host = "www." + apex
	return CatalogueEntry{
		Name:       "joomla_format_feed",
		ModelledOn: "Joomla 3.10 Italian local paper without URL rewriting (/index.php/…): home feed link switched off, so /index.php?format=feed&type=rss is only known by convention; category blogs declare their own feeds",
		DomainID:   "media:it:" + apex,
		Expect:     ExpectedSeed{ContentType: "news", FetchType: "rss", EntryURL: "https://" + host + "/index.php?format=feed&type=rss"},
		build: func(b *builder) {
			base := "https://" + host
			b.redirectWWW(apex)
			h := b.host(host)
			sectionOf := func(slug string) string { return "/index.php/" + slug }
			labels, slugs, nav := labelsOf(base, sectionOf, "cronaca:Cronaca", "politica:Politica", "economia:Economia", "sport:Sport", "cultura:Cultura e spettacoli")
			list := b.articles("gazzetta", articleSpec{lang: "it", n: 30, newest: 75 * time.Minute, every: 150 * time.Minute, sections: slugs,
				authors: []string{"Redazione", "Giulia Ferri", "Marco Bellini"},
				path: func(a article) string {
					return "/index.php/" + a.section + "/" + strconv.Itoa(a.id) + "-" + slugify(a.title)
				}})
			v := "3f1b9a2c7d4e5f60"
			head := "<meta name=\"generator\" content=\"Joomla! - Open Source Content Management\" />\n" +
				"<link href=\"/templates/gazzetta/favicon.ico\" rel=\"shortcut icon\" type=\"image/vnd.microsoft.icon\" />\n" +
				"<link href=\"/media/jui/css/bootstrap.min.css?" + v + "\" rel=\"stylesheet\" />\n<link href=\"/templates/gazzetta/css/template.css?" + v + "\" rel=\"stylesheet\" />\n" +
				"<script type=\"application/json\" class=\"joomla-script-options new\">{\"csrf.token\":\"9d1f0c2b7e6a5d4c3b2a1f0e9d8c7b6a\",\"system.paths\":{\"root\":\"\",\"base\":\"\"}}</script>\n" +
				"<script src=\"/media/jui/js/jquery.min.js?" + v + "\"></script>\n<script src=\"/media/jui/js/jquery-noconflict.js?" + v + "\"></script>\n" +
				"<script src=\"/media/system/js/caption.js?" + v + "\"></script>\n<script src=\"/media/system/js/core.js?" + v + "\"></script>\n"
			f := frame{
				lang: "it-it", name: "Gazzetta del Lago", base: base, loc: zoneCEST, head: head,
				bodyAttr: " class=\"site com_content view-featured no-layout no-task itemid-101\"",
				topLinks: []link{{base + "/index.php/abbonati", "Abbonati"}, {base + "/index.php/edicola-digitale", "Edicola digitale"}, {base + "/index.php/accedi", "Accedi"}},
				sections: append([]link{{base + "/index.php", "Home"}}, nav...),
				footerCols: []footerCol{
					{"Gazzetta del Lago", []link{{base + "/index.php/chi-siamo", "Chi siamo"}, {base + "/index.php/contatti", "Contatti"}, {base + "/index.php/pubblicita", "Pubblicità"}}},
					{"Note legali", []link{{base + "/index.php/privacy", "Privacy policy"}, {base + "/index.php/cookie-policy", "Cookie policy"}, {base + "/index.php/mappa-del-sito", "Mappa del sito"}}},
				},
				footerExtra: social("GazzettaDelLago", "facebook", "instagram", "youtube"),
				cookie:      "<div id=\"cookie-law\" class=\"cookie-bar\">Questo sito utilizza cookie tecnici e di terze parti. <a href=\"" + base + "/index.php/cookie-policy\">Informativa</a> <button>Accetto</button></div>\n",
				copyright:   "© " + strconv.Itoa(b.now.Year()) + " Gazzetta del Lago – P.IVA 01234567890 – Reg. Trib. di Como n. 12/1998",
				titleSep:    " - ", dateFmt: "02/01/2006 15:04",
				notFoundTitle: "404 - Articolo non trovato", notFoundText: "La pagina richiesta non è stata trovata.",
			}
			c := f.chrome()
			p := &pubSite{h: h, c: c, list: list, sectionOf: sectionOf, labels: labels, by: "Scritto da", teaserClass: "item", moreText: "Altre notizie:",
				homeTitle: "Home", homeDesc: "Notizie dal lago di Como e dalla Brianza.",
				sectionHead: func(slug string) string {
					return "<link href=\"/index.php/" + slug + "?format=feed&amp;type=rss\" rel=\"alternate\" type=\"application/rss+xml\" title=\"RSS 2.0\" />\n" +
						"<link href=\"/index.php/" + slug + "?format=feed&amp;type=atom\" rel=\"alternate\" type=\"application/atom+xml\" title=\"Atom 1.0\" />\n"
				}}
			p.serve()
			h.pages["/index.php"] = h.pages["/"]
			p.simple("/index.php/abbonati", "Abbonati", paywall("Abbonamento digitale", "Tutti gli articoli e l'edicola digitale a 4,99 € al mese.", "Abbonati ora", base+"/index.php/abbonati/checkout"))
			p.simple("/index.php/mappa-del-sito", "Mappa del sito", "<ul><li><a href=\""+base+"/index.php/cronaca\">Cronaca</a></li><li><a href=\""+base+"/index.php/sport\">Sport</a></li></ul>")

			gen := "Joomla! - Open Source Content Management"
			feed := func(title, self, link string, items []article) []byte {
				body := rss2(channel{title: title, link: link, description: "Notizie dal lago di Como e dalla Brianza.", lang: "it-it", self: self, generator: gen, loc: zoneCEST},
					base, items, rssOpts{categoryTag: true})
				return []byte(strings.Replace(string(body), "?>\n", "?>\n<!-- generator=\""+gen+"\" -->\n", 1))
			}
			h.rss("/index.php?format=feed&type=rss", feed("Home", base+"/index.php?format=feed&type=rss", base+"/index.php", list[:20]))
			h.redirect("/?format=feed&type=rss", base+"/index.php?format=feed&type=rss", http.StatusMovedPermanently)
			for _, slug := range slugs {
				self := base + "/index.php/" + slug + "?format=feed&type=rss"
				h.rss("/index.php/"+slug+"?format=feed&type=rss", feed(labels[slug], self, base+"/index.php/"+slug, inSection(list, slug)))
			}
			h.text("/robots.txt", "# If the Joomla site is installed within a folder\n# eg www.example.com/joomla/ then the robots.txt file\n# MUST be moved to the site root\n# eg www.example.com/robots.txt\n# AND the joomla folder name MUST be prefixed to all of the\n# paths.\n\nUser-agent: *\nDisallow: /administrator/\nDisallow: /bin/\nDisallow: /cache/\nDisallow: /cli/\nDisallow: /components/\nDisallow: /includes/\nDisallow: /installation/\nDisallow: /language/\nDisallow: /layouts/\nDisallow: /libraries/\nDisallow: /logs/\nDisallow: /modules/\nDisallow: /plugins/\nDisallow: /tmp/\n")
		},
	}
}

func bloggerAtom() CatalogueEntry {
	const apex = "konkantimes-example.in"
	const host = "www." + apex
	const blogID = "4785120936617290118"
	return CatalogueEntry{
		Name:       "blogger_atom",
		ModelledOn: "Blogger on a custom domain with a third-party template that drops all-head-content: no feed link; Atom at /feeds/posts/default by convention; label pages under /search are disallowed; comments and label feeds beside it",
		DomainID:   "media:in:" + apex,
		Expect:     ExpectedSeed{ContentType: "news", FetchType: "atom", EntryURL: "https://" + host + "/feeds/posts/default"},
		build: func(b *builder) {
			base := "https://" + host
			b.redirectWWW(apex)
			h := b.host(host)
			sectionOf := func(slug string) string { return "/search/label/" + slug }
			labels, slugs, nav := labelsOf(base, sectionOf, "Goa:Goa", "Konkan:Konkan", "Politics:Politics", "Sports:Sports", "Fisheries:Fisheries")
			list := b.articles("konkan", articleSpec{lang: "en", n: 25, newest: 4*time.Hour + 5*time.Minute, every: 4 * time.Hour, sections: slugs,
				authors: []string{"Konkan Times"},
				path: func(a article) string {
					return a.time.In(zoneIST).Format("/2006/01/") + trimSlug(slugify(a.title), 40) + ".html"
				}})
			head := "<meta content='blogger' name='generator'/>\n<link href='" + base + "/favicon.ico' rel='icon' type='image/x-icon'/>\n" +
				"<link href='https://www.blogger.com/static/v1/widgets/2975350028-css_bundle_v2.css' rel='stylesheet' type='text/css'/>\n" +
				"<link href='https://www.blogger.com/dyn-css/authorization.css?targetBlogID=" + blogID + "&amp;zx=6b1c0f2e-9d3a' media='none' onload='if(media!=&#39;all&#39;)media=&#39;all&#39;' rel='stylesheet'/>\n"
			tail := "<script type='text/javascript' src='https://www.blogger.com/static/v1/widgets/1529571102-widgets.js'></script>\n" +
				"<script type='text/javascript'>window['__wavt'] = 'AOuZoY5x:1718000000000';_WidgetManager._Init('//www.blogger.com/rearrange?blogID=" + blogID + "','//" + host + "/','" + blogID + "');</script>\n" +
				"<img src='https://resources.blogblog.com/img/icon18_wrench_allbkg.png' alt='' class='icon-action'/>"
			f := frame{
				lang: "en", name: "Konkan Times", base: base, loc: zoneIST, head: head, tail: tail,
				htmlAttr: " dir='ltr' xmlns='http://www.w3.org/1999/xhtml' xmlns:b='http://www.google.com/2005/gml/b'", bodyAttr: " class='item-view version-1-3-3'",
				sections: append([]link{{base + "/", "Home"}}, nav...),
				footerCols: []footerCol{{"Pages", []link{{base + "/p/about-us.html", "About Us"}, {base + "/p/contact-us.html", "Contact Us"},
					{base + "/p/privacy-policy.html", "Privacy Policy"}, {base + "/p/disclaimer.html", "Disclaimer"}}}},
				footerExtra: social("konkantimes", "facebook", "x", "youtube", "whatsapp"),
				copyright:   "Copyright © " + strconv.Itoa(b.now.Year()) + " Konkan Times. Powered by Blogger.",
				titleSep:    " - ", dateFmt: "January 02, 2006",
				notFoundTitle: "Sorry, the page you were looking for in this blog does not exist.", notFoundText: "Go to the home page.",
			}
			c := f.chrome()
			p := &pubSite{h: h, c: c, list: list, sectionOf: sectionOf, labels: labels, by: "Posted by", teaserClass: "post-outer", noSections: true,
				homeDesc: "Latest news from Goa and the Konkan coast."}
			p.serve()
			p.simple("/p/about-us.html", "About Us", "<p>Konkan Times is a digital news portal from Panaji, Goa.</p>")
			ch := channel{title: "Konkan Times", link: base + "/", description: "Latest news from Goa and the Konkan coast.", self: base + "/feeds/posts/default",
				generator: "Blogger", loc: zoneIST}
			entryID := func(a article) string {
				return "tag:blogger.com,1999:blog-" + blogID + ".post-" + strconv.Itoa(7000000000000000000+a.id)
			}
			h.put("/feeds/posts/default", ctAtom, atom(ch, base, list, atomOpts{id: "tag:blogger.com,1999:blog-" + blogID, entryID: entryID, blogger: true}))
			sch := ch
			sch.self = base + "/feeds/posts/summary"
			h.put("/feeds/posts/summary", ctAtom, atom(sch, base, list, atomOpts{id: "tag:blogger.com,1999:blog-" + blogID, entryID: entryID, blogger: true}))
			lch := ch
			lch.self = base + "/feeds/posts/default/-/Sports"
			h.put("/feeds/posts/default/-/Sports", ctAtom, atom(lch, base, inSection(list, "Sports"), atomOpts{id: "tag:blogger.com,1999:blog-" + blogID, entryID: entryID, blogger: true}))
			comments := b.articles("konkan-comments", articleSpec{lang: "en", n: 4, newest: 9 * 24 * time.Hour, every: 6 * 24 * time.Hour,
				path: func(a article) string { return list[a.id%len(list)].path + "?showComment=" + strconv.Itoa(a.id) }})
			cch := ch
			cch.title = "Konkan Times - Comments"
			cch.self = base + "/feeds/comments/default"
			h.put("/feeds/comments/default", ctAtom, atom(cch, base, comments, atomOpts{id: "tag:blogger.com,1999:blog-" + blogID + ".comments", blogger: true}))
			h.xml("/sitemap.xml", sitemapIndex(zoneIST, []smChild{{base + "/sitemap.xml?page=1", time.Time{}}}, ""))
			h.xml("/sitemap.xml?page=1", urlset(zoneIST, articleURLs(base, list), false))
			h.xml("/sitemap-pages.xml", urlset(zoneIST, []smURL{{loc: base + "/p/about-us.html"}, {loc: base + "/p/contact-us.html"}}, false))
			h.text("/robots.txt", "User-agent: Mediapartners-Google\nDisallow: \n\nUser-agent: *\nDisallow: /search\nAllow: /\n\nSitemap: "+base+"/sitemap.xml\nSitemap: "+base+"/sitemap-pages.xml\n")
		},
	}
}

// trimSlug cuts a slug at a word boundary, as Blogger does with long titles.
func trimSlug(s string, max int) string {
	if len(s) <= max {
		return s
	}
	s = s[:max]
	if i := strings.LastIndexByte(s, '-'); i > 0 {
		s = s[:i]
	}
	return s
}

func brightspotNewsSitemap() CatalogueEntry {
	const apex = "tidewater-times-example.com"
	const host = "www." + apex
	return CatalogueEntry{
		Name:       "brightspot_news_sitemap",
		ModelledOn: "Brightspot CMS daily with its Sitemap plugin and no feed: /sitemap.xml indexes 13 year-month partitions plus sitemap-latest.xml; /news-sitemap.xml is an index whose one child news-sitemap-content.xml holds the last 48 h; a video sitemap beside them",
		DomainID:   "media:us:" + apex,
		Expect:     ExpectedSeed{ContentType: "news", FetchType: "news_sitemap", EntryURL: "https://" + host + "/news-sitemap-content.xml"},
		build: func(b *builder) {
			base := "https://" + host
			b.redirectWWW(apex)
			h := b.host(host)
			sectionOf := func(slug string) string { return "/" + slug }
			labels, slugs, nav := labelsOf(base, sectionOf, "local-news:Local News", "government:Government", "education:Education", "environment:Environment", "sports:Sports", "things-to-do:Things To Do")
			list := b.articles("tidewater", articleSpec{lang: "en", n: 30, newest: 55 * time.Minute, every: 105 * time.Minute, sections: slugs,
				authors: []string{"Renee Baptiste", "Colin McCoy"},
				path: func(a article) string {
					return "/" + a.section + "/" + a.time.In(zoneEST).Format("2006-01-02") + "/" + slugify(a.title)
				}})
			res := base + "/resource/00000187-6a3b-d0f1-a5bf-6ffb1c2d0000/styles/default"
			head := "<meta name=\"brightspot.contentId\" content=\"00000187-6a3b-d0f1-a5bf-6ffb2e3f0000\">\n<meta name=\"brightspot.cached\" content=\"true\">\n" +
				"<link data-cssvarsponyfill=\"true\" class=\"Webpack-css\" rel=\"stylesheet\" href=\"" + res + "/All.min.7c1a2b.gz.css\">\n" +
				"<script src=\"" + res + "/All.min.3d4e5f.gz.js\" async></script>\n" + jsonLD("The Tidewater Times", base)
			f := frame{
				lang: "en", name: "The Tidewater Times", base: base, loc: zoneEST, head: head,
				bodyAttr: " class=\"Page-body\" data-brightspot-page",
				topLinks: []link{{base + "/subscribe", "Subscribe"}, {base + "/newsletters", "Newsletters"}},
				sections: nav,
				footerCols: []footerCol{
					{"About", []link{{base + "/about", "About Us"}, {base + "/staff", "Staff"}, {base + "/contact", "Contact"}, {base + "/corrections", "Corrections"}}},
					{"Legal", []link{{base + "/privacy", "Privacy Policy"}, {base + "/terms", "Terms of Use"}, {base + "/site-map", "Sitemap"}}},
				},
				footerExtra: social("TidewaterTimes", "facebook", "x", "instagram"), copyright: "© " + strconv.Itoa(b.now.Year()) + " The Tidewater Times",
				titleSep: " | ", dateFmt: "January 2, 2006 at 3:04 PM MST",
				notFoundTitle: "Page Not Found", notFoundText: "Sorry, we couldn't find the page you're looking for.",
			}
			c := f.chrome()
			p := &pubSite{h: h, c: c, list: list, sectionOf: sectionOf, labels: labels, by: "By", teaserClass: "PagePromo",
				homeDesc: "News from Virginia's Eastern Shore and Hampton Roads."}
			p.serve()
			p.htmlSitemapPage("/site-map", "Sitemap")
			p.simple("/subscribe", "Subscribe", paywall("Subscribe", "Unlimited access for $2.99 a month.", "Start subscription", base+"/subscribe/checkout"))

			var months []smChild
			for i := 0; i < 13; i++ {
				m := time.Date(b.now.Year(), b.now.Month(), 1, 12, 0, 0, 0, time.UTC).AddDate(0, -i, 0)
				path := "/sitemap-" + m.Format("2006-01") + ".xml"
				months = append(months, smChild{base + path, m})
				olds := b.articles("tidewater-"+m.Format("200601"), articleSpec{lang: "en", n: 3, newest: b.now.Sub(m.AddDate(0, 0, 20)), every: 5 * 24 * time.Hour, sections: slugs,
					path: func(a article) string {
						return "/" + a.section + "/" + a.time.In(zoneEST).Format("2006-01-02") + "/" + slugify(a.title)
					}})
				h.xml(path, urlset(zoneEST, articleURLs(base, olds), false))
			}
			h.xml("/sitemap.xml", sitemapIndex(zoneEST, append(months, smChild{base + "/sitemap-latest.xml", list[0].time}), ""))
			h.xml("/sitemap-latest.xml", urlset(zoneEST, articleURLs(base, list[:12]), false))
			h.xml("/news-sitemap.xml", sitemapIndex(zoneEST, []smChild{{base + "/news-sitemap-content.xml", list[0].time}}, ""))
			h.xml("/news-sitemap-content.xml", newsSitemap("The Tidewater Times", "en", base, zoneEST, b.last48h(list), newsOpts{}))
			h.xml("/video-sitemap.xml", sitemapIndex(zoneEST, []smChild{{base + "/video-sitemap-" + b.now.Format("2006-01") + ".xml", list[3].time}}, ""))
			h.xml("/video-sitemap-"+b.now.Format("2006-01")+".xml", videoSitemap(base, zoneEST, list[2:5]))
			h.text("/robots.txt", "User-agent: *\nDisallow: /_debug/\nDisallow: /_preview/\nDisallow: /search\nDisallow: /cms/\n\nSitemap: "+base+"/sitemap.xml\nSitemap: "+base+"/news-sitemap.xml\nSitemap: "+base+"/video-sitemap.xml\n")
		},
	}
}

// videoSitemap renders a Google video sitemap of the given stories' videos.
func videoSitemap(base string, loc *time.Location, list []article) []byte {
	var b strings.Builder
	b.WriteString("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\" xmlns:video=\"http://www.google.com/schemas/sitemap-video/1.1\">\n")
	for _, a := range list {
		b.WriteString("  <url>\n    <loc>" + esc(base+a.path) + "</loc>\n    <video:video>\n      <video:thumbnail_loc>" + esc(base+"/images/video-"+itoa(a.id)+".jpg") + "</video:thumbnail_loc>\n")
		b.WriteString("      <video:title>" + esc(a.title) + "</video:title>\n      <video:description>" + esc(a.summary) + "</video:description>\n")
		b.WriteString("      <video:content_loc>" + esc(base+"/video/"+itoa(a.id)+".mp4") + "</video:content_loc>\n      <video:publication_date>" + a.time.In(loc).Format(time.RFC3339) + "</video:publication_date>\n    </video:video>\n  </url>\n")
	}
	b.WriteString("</urlset>\n")
	return []byte(b.String())
}
