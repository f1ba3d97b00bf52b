package simweb

import (
	"strconv"
	"strings"
	"time"
)

func germanPublisherSchlagzeilen() CatalogueEntry {
	const apex = "rheinblatt-example.de"
	const host = "www." + apex
	return CatalogueEntry{
		Name:       "german_publisher_schlagzeilen",
		ModelledOn: "German national news site in the manner of SPIEGEL: <head> declares \"Schlagzeilen\" /schlagzeilen/index.rss, Ressort pages declare their own feeds, footer \"RSS\" page, \"Abonnieren\" leads to the paywall, news sitemap in robots too",
		DomainID:   "media:de:" + apex,
		Expect:     ExpectedSeed{ContentType: "news", FetchType: "rss", EntryURL: "https://" + host + "/schlagzeilen/index.rss"},
		build: func(b *builder) {
			base := "https://" + host
			b.redirectWWW(apex)
			sections := []string{"politik:Politik", "wirtschaft:Wirtschaft", "panorama:Panorama", "sport:Sport", "kultur:Kultur", "wissenschaft:Wissenschaft", "netzwelt:Netzwelt"}
			labels := map[string]string{}
			for _, s := range sections {
				slug, label, _ := strings.Cut(s, ":")
				labels[slug] = label
			}
			p := b.stdSite(stdConfig{host: host, name: "RHEINBLATT", desc: "Nachrichten, Hintergründe und Debatten aus Deutschland und der Welt.", lang: "de", loc: zoneCEST, seed: "rheinblatt",
				sections: sections,
				path: func(a article) string {
					return "/" + a.section + "/" + slugify(a.title) + "-a-" + uuidFor("rheinblatt", a.id)
				},
				newest: 14 * time.Minute, every: 50 * time.Minute, n: 50, by: "Von", moreText: "Mehr", dateFmt: "02.01.2006, 15.04 Uhr",
				head: "<link rel=\"alternate\" type=\"application/rss+xml\" title=\"RHEINBLATT - Schlagzeilen\" href=\"" + base + "/schlagzeilen/index.rss\">\n" +
					"<link rel=\"stylesheet\" href=\"" + base + "/public/rheinblatt/css/app.3b1e0c.css\">\n",
				topLinks: []link{{base + "/abo/", "Abonnieren"}, {base + "/meinrheinblatt/", "Anmelden"}, {base + "/newsletter/", "Newsletter"}, {base + "/podcasts/", "Podcasts"}},
				footerCols: []footerCol{
					{"Service", []link{{base + "/dienste/rss-uebersicht/", "RSS"}, {base + "/newsletter/", "Newsletter"}, {base + "/apps/", "Apps"}, {base + "/abo/", "Abonnement"}, {base + "/archiv/", "Nachrichtenarchiv"}}},
					{"Rechtliches", []link{{base + "/impressum/", "Impressum"}, {base + "/datenschutz/", "Datenschutz"}, {base + "/nutzungsbedingungen/", "Nutzungsbedingungen"}, {base + "/kontakt/", "Kontakt"}, {"#cmp", "Cookies & Tracking"}}},
				},
				footerExtra:   social("rheinblatt", "facebook", "x", "instagram", "youtube", "whatsapp") + appBadges("1100000007", "de.rheinblatt.android", "Laden im App Store", "Jetzt bei Google Play"),
				cookie:        "<script src=\"https://sourcepoint.rheinblatt-example.de/unified/wrapperMessagingWithoutDetection.js\"></script>\n",
				copyright:     "© RHEINBLATT GmbH & Co. KG",
				notFoundTitle: "Seite nicht gefunden", notFoundText: "Die angeforderte Seite existiert leider nicht. Zur Startseite",
				sectionHead: func(slug string) string {
					return "<link rel=\"alternate\" type=\"application/rss+xml\" title=\"RHEINBLATT - " + labels[slug] + "\" href=\"" + base + "/" + slug + "/index.rss\">\n"
				},
			})
			h, list := p.h, p.list
			ch := channel{title: "RHEINBLATT - Schlagzeilen", link: base + "/", description: "Deutschlands führende Nachrichtenseite. Alles Wichtige aus Politik, Wirtschaft, Sport, Kultur, Wissenschaft, Technik und mehr.",
				lang: "de", self: base + "/schlagzeilen/index.rss", loc: zoneCEST}
			h.rss("/schlagzeilen/index.rss", rss2(ch, base, list[:20], rssOpts{categoryTag: true}))
			var dir strings.Builder
			dir.WriteString("<p>Mit RSS-Feeds verpassen Sie keine Nachricht. Hier finden Sie alle Feeds des RHEINBLATT.</p><ul>")
			dir.WriteString("<li><a href=\"" + base + "/schlagzeilen/index.rss\">Schlagzeilen</a></li>")
			for _, s := range p.slugs() {
				sch := ch
				sch.title = "RHEINBLATT - " + labels[s]
				sch.self = base + "/" + s + "/index.rss"
				h.rss("/"+s+"/index.rss", rss2(sch, base, inSection(list, s), rssOpts{categoryTag: true}))
				dir.WriteString("<li><a href=\"" + base + "/" + s + "/index.rss\">" + esc(labels[s]) + "</a></li>")
			}
			dir.WriteString("</ul>")
			p.simple("/dienste/rss-uebersicht/", "RSS-Feeds", dir.String())
			p.simple("/abo/", "RHEINBLATT+ abonnieren", paywall("RHEINBLATT+", "Alle Artikel, Podcasts und die digitale Ausgabe – 1 Monat für 1 €.", "Jetzt abonnieren", base+"/abo/bestellen/"))
			p.simple("/impressum/", "Impressum", "<p>RHEINBLATT GmbH &amp; Co. KG, Rheinufer 1, 50667 Köln</p>")
			p.simple("/datenschutz/", "Datenschutzerklärung", "<p>Verantwortlich für die Datenverarbeitung ist die RHEINBLATT GmbH &amp; Co. KG.</p>")
			p.simple("/podcasts/", "Podcasts", "<p>Unsere Podcasts hören Sie bei <a href=\"https://open.spotify.com/show/rheinblatt-tag\">Spotify</a> und <a href=\"https://podcasts.apple.com/de/podcast/rheinblatt-der-tag/id1200000008\">Apple Podcasts</a>.</p>")
			h.xml("/sitemaps/news-de.xml", newsSitemap("RHEINBLATT", "de", base, zoneCEST, b.last48h(list), newsOpts{keywords: true}))
			var idx []smChild
			for i := 0; i < 3; i++ {
				d := b.now.AddDate(0, 0, -i)
				path := "/sitemaps/" + d.Format("2006-01-02") + ".xml"
				idx = append(idx, smChild{base + path, d})
				var day []article
				for _, a := range list {
					if a.time.In(zoneCEST).Format("2006-01-02") == d.In(zoneCEST).Format("2006-01-02") {
						day = append(day, a)
					}
				}
				h.xml(path, urlset(zoneCEST, articleURLs(base, day), false))
			}
			h.xml("/sitemap.xml", sitemapIndex(zoneCEST, idx, ""))
			h.text("/robots.txt", "User-agent: *\nDisallow: /suche/\nDisallow: /fragments/\nDisallow: /services/\nAllow: /\n\nUser-agent: GPTBot\nDisallow: /\n\nSitemap: "+base+"/sitemap.xml\nSitemap: "+base+"/sitemaps/news-de.xml\n")
		},
	}
}

func japaneseRDF() CatalogueEntry {
	const apex = "kansai-nippo-example.co.jp"
	const host = "www." + apex
	return CatalogueEntry{
		Name:       "japanese_rdf",
		ModelledOn: "Japanese regional paper on NHK's real robots.txt: header and footer \"RSS\" go to an RSS配信 page listing RSS 1.0 (.rdf) feeds, 主要ニュース first; nothing declared; robots Sitemap line is plain http",
		DomainID:   "media:jp:" + apex,
		Expect:     ExpectedSeed{ContentType: "news", FetchType: "rss", EntryURL: "https://" + host + "/rss/headlines.rdf"},
		build: func(b *builder) {
			base := "https://" + host
			b.redirectWWW(apex)
			p := b.stdSite(stdConfig{host: host, name: "関西日報", desc: "関西の最新ニュース、速報をお届けします。", lang: "ja", loc: zoneJST, seed: "kansai",
				sections: []string{"national:社会", "politics:政治", "business:経済", "international:国際", "sports:スポーツ", "culture:文化・芸能"},
				path: func(a article) string {
					return "/articles/" + a.time.In(zoneJST).Format("20060102") + "/k10" + strconv.Itoa(a.id) + "000.html"
				},
				newest: 28 * time.Minute, every: 65 * time.Minute, n: 40, by: "記者", moreText: "もっと見る", dateFmt: "2006年1月2日 15時04分",
				head:     "<meta name=\"format-detection\" content=\"telephone=no\">\n<link rel=\"stylesheet\" href=\"/common/css/style.css?v=20240601\">\n",
				topLinks: []link{{base + "/rss/", "RSS"}, {base + "/member/", "会員登録"}, {base + "/login/", "ログイン"}, {base + "/denshiban/", "電子版"}},
				footerCols: []footerCol{
					{"サービス", []link{{base + "/rss/", "RSS配信"}, {base + "/app/", "アプリ"}, {base + "/newsletter/", "メールマガジン"}, {base + "/denshiban/", "電子版のお申し込み"}}},
					{"会社情報", []link{{base + "/company/", "会社概要"}, {base + "/privacy/", "個人情報保護方針"}, {base + "/policy/", "著作権・リンクについて"}, {base + "/contact/", "お問い合わせ"}, {base + "/sitemap/", "サイトマップ"}}},
				},
				footerExtra:   social("kansainippo", "x", "line", "facebook", "youtube") + appBadges("1200000009", "jp.co.kansainippo.app", "App Storeからダウンロード", "Google Playで手に入れよう"),
				copyright:     "Copyright © 関西日報社 All rights reserved. 無断転載を禁じます。",
				notFoundTitle: "ページが見つかりません", notFoundText: "お探しのページは移動または削除された可能性があります。",
			})
			p.htmlSitemapPage("/sitemap/", "サイトマップ", link{base + "/rss/", "RSS配信"})
			p.simple("/denshiban/", "電子版のお申し込み", paywall("関西日報 電子版", "月額1,980円（税込）で全ての記事が読み放題。", "申し込む", base+"/denshiban/apply/"))
			h, list := p.h, p.list
			ch := channel{title: "関西日報 主要ニュース", link: base + "/", description: "関西日報の主要ニュース", lang: "ja", self: base + "/rss/headlines.rdf",
				copyright: "Copyright © 関西日報社", loc: zoneJST}
			h.put("/rss/headlines.rdf", "application/rdf+xml; charset=UTF-8", rdf(ch, base, list[:20]))
			var dir strings.Builder
			dir.WriteString("<p>関西日報では、ニュースの見出しをRSS（RDF Site Summary 1.0）で配信しています。RSSリーダーに下記のURLを登録してご利用ください。</p>\n<dl class=\"rss-list\">")
			dir.WriteString("<dt>主要ニュース</dt><dd><a href=\"" + base + "/rss/headlines.rdf\">" + base + "/rss/headlines.rdf</a></dd>")
			for _, s := range p.slugs() {
				sch := ch
				sch.title = "関西日報 " + p.labels[s]
				sch.self = base + "/rss/" + s + ".rdf"
				h.put("/rss/"+s+".rdf", "application/rdf+xml; charset=UTF-8", rdf(sch, base, inSection(list, s)))
				dir.WriteString("<dt>" + esc(p.labels[s]) + "</dt><dd><a href=\"" + base + "/rss/" + s + ".rdf\">" + base + "/rss/" + s + ".rdf</a></dd>")
			}
			wx := b.articles("kansai-wx", articleSpec{lang: "ja", n: 4, newest: 9 * 24 * time.Hour, every: 5 * 24 * time.Hour,
				path: func(a article) string { return "/weather/" + strconv.Itoa(a.id) + ".html" }})
			wch := ch
			wch.title, wch.self = "関西日報 天気・防災", base+"/rss/weather.rdf"
			h.put("/rss/weather.rdf", "application/rdf+xml; charset=UTF-8", rdf(wch, base, wx))
			dir.WriteString("<dt>天気・防災</dt><dd><a href=\"" + base + "/rss/weather.rdf\">" + base + "/rss/weather.rdf</a></dd></dl>\n<p>※RSSの利用は個人の非営利目的に限ります。</p>")
			p.simple("/rss/", "RSS配信", dir.String())
			h.xml("/sitemap.xml", urlset(zoneJST, articleURLs(base, list), false))
			h.text("/robots.txt", robotsOf("www.nhk.or.jp", host))
		},
	}
}

func govPressReleases() CatalogueEntry {
	const apex = "northvale-example.gov.uk"
	const host = "www." + apex
	return CatalogueEntry{
		Name:       "gov_press_releases",
		ModelledOn: "English district council on GOV.UK's real robots.txt: its only feed is the Atom feed of \"Media releases\", declared on that section page alone (\"Subscribe to feed\"); e-mail alerts go to GovDelivery; press_release content",
		DomainID:   "gov:gb:" + apex,
		Expect:     ExpectedSeed{ContentType: "press_release", FetchType: "atom", EntryURL: "https://" + host + "/news/media-releases.atom"},
		build: func(b *builder) {
			base := "https://" + host
			b.redirectWWW(apex)
			h := b.host(host)
			list := b.articles("northvale", articleSpec{lang: "en", n: 20, newest: 5*time.Hour + 20*time.Minute, every: 26 * time.Hour,
				authors: []string{"Communications team"},
				path:    func(a article) string { return "/news/media-releases/" + slugify(a.title) }})
			f := frame{lang: "en", name: "Northvale District Council", base: base, loc: zoneLondon,
				head:     "<link rel=\"stylesheet\" href=\"/assets/stylesheets/application-5e3f2a.css\">\n<meta name=\"govuk:format\" content=\"council\">\n",
				bodyAttr: " class=\"govuk-template__body\"",
				topLinks: []link{{base + "/council-tax/", "Council tax"}, {base + "/bins-and-recycling/", "Bins and recycling"}, {base + "/planning/", "Planning"}, {base + "/report-it/", "Report it"}},
				sections: []link{{base + "/", "Home"}, {base + "/your-council/", "Your council"}, {base + "/news/", "News"}, {base + "/jobs/", "Jobs"}, {base + "/contact-us/", "Contact us"}},
				footerCols: []footerCol{{"Support links", []link{{base + "/accessibility-statement/", "Accessibility statement"}, {base + "/privacy-notice/", "Privacy notice"},
					{base + "/cookies/", "Cookies"}, {base + "/freedom-of-information/", "Freedom of information"}, {base + "/site-map/", "Site map"}}}},
				footerExtra: social("NorthvaleDC", "facebook", "x", "linkedin"), copyright: "© Northvale District Council",
				cookie:   "<div class=\"govuk-cookie-banner\" role=\"region\" aria-label=\"Cookies on Northvale District Council\"><p>We use some essential cookies to make this website work.</p><button class=\"govuk-button\">Accept analytics cookies</button> <a class=\"govuk-link\" href=\"" + base + "/cookies/\">View cookies</a></div>\n",
				titleSep: " - ", dateFmt: "2 January 2006",
				notFoundTitle: "Page not found", notFoundText: "If you typed the web address, check it is correct. If you pasted the web address, check you copied the entire address."}
			c := f.chrome()
			h.notFound, h.stub = c.notFound(), c.stubPage
			h.html("/", c.page("Home", "/", "Council services for Northvale residents and businesses.", "",
				"<h1 class=\"govuk-heading-xl\">Northvale District Council</h1>\n<ul class=\"services\"><li><a href=\""+base+"/council-tax/\">Pay your council tax</a></li><li><a href=\""+base+"/bins-and-recycling/\">Bin collection days</a></li><li><a href=\""+base+"/planning/\">Planning applications</a></li></ul>\n"+
					"<h2>News</h2><p><a href=\""+base+"/news/\">Latest council news</a></p>"))
			h.html("/news/", c.page("News", "/news/", "", "", "<h1 class=\"govuk-heading-xl\">News</h1>\n<ul><li><a href=\""+base+"/news/media-releases/\">Media releases</a></li><li><a href=\""+base+"/news/public-notices/\">Public notices</a></li><li><a href=\""+base+"/news/consultations/\">Consultations</a></li></ul>"))
			h.html("/news/media-releases/", c.page("Media releases", "/news/media-releases/", "",
				"<link rel=\"alternate\" type=\"application/atom+xml\" title=\"Northvale District Council media releases\" href=\""+base+"/news/media-releases.atom\">\n",
				"<h1 class=\"govuk-heading-xl\">Media releases</h1>\n<p class=\"govuk-body\"><a class=\"govuk-link\" href=\""+base+"/news/media-releases.atom\">Subscribe to feed</a> · <a class=\"govuk-link\" href=\"https://public.govdelivery.com/accounts/UKNORTHVALE/subscriber/new\">Get email alerts</a></p>\n"+
					c.teasers("gem-c-document-list__item", list)))
			h.html("/news/public-notices/", c.page("Public notices", "/news/public-notices/", "", "", "<h1>Public notices</h1><p>Statutory notices are published in the local press and listed here.</p>"))
			h.html("/news/consultations/", c.page("Consultations", "/news/consultations/", "", "", "<h1>Consultations</h1><p>There are no open consultations.</p>"))
			for _, a := range list {
				h.html(a.path, c.articlePage(a, "From:", ""))
			}
			for _, pg := range [][2]string{{"/council-tax/", "Council tax"}, {"/bins-and-recycling/", "Bins and recycling"}, {"/planning/", "Planning"}, {"/your-council/", "Your council"}, {"/contact-us/", "Contact us"}, {"/site-map/", "Site map"}} {
				h.html(pg[0], c.page(pg[1], pg[0], "", "", "<h1 class=\"govuk-heading-xl\">"+pg[1]+"</h1><p class=\"govuk-body\">Information about "+strings.ToLower(pg[1])+".</p>"))
			}
			h.put("/news/media-releases.atom", ctAtom, atom(channel{title: "Northvale District Council - Media releases", link: base + "/news/media-releases/",
				self: base + "/news/media-releases.atom", loc: zoneLondon}, base, list, atomOpts{id: "tag:" + host + ",2005:/news/media-releases"}))
			h.xml("/sitemap.xml", sitemapIndex(zoneLondon, []smChild{{base + "/sitemaps/sitemap_1.xml", list[0].time}}, ""))
			h.xml("/sitemaps/sitemap_1.xml", urlset(zoneLondon, append([]smURL{{loc: base + "/"}, {loc: base + "/news/"}, {loc: base + "/council-tax/"}}, articleURLs(base, list)...), false))
			h.text("/robots.txt", robotsOf("www.gov.uk", host))
		},
	}
}

func bloxTownNews() CatalogueEntry {
	const apex = "riverbend-tribune-example.com"
	const host = "www." + apex
	return CatalogueEntry{
		Name:       "blox_tncms",
		ModelledOn: "BLOX/TownNews (tncms) daily on the Omaha World-Herald's real robots.txt, which disallows /search/? — so the search-URL RSS the pages declare is off limits; the Google News sitemap /tncms/sitemap/news.xml is named nowhere; robots names /sitemap.xml and the editorial index",
		DomainID:   "media:us:" + apex,
		Expect:     ExpectedSeed{ContentType: "news", FetchType: "news_sitemap", EntryURL: "https://" + host + "/tncms/sitemap/news.xml"},
		build: func(b *builder) {
			base := "https://" + host
			b.redirectWWW(apex)
			rssURL := func(c string) string {
				return base + "/search/?f=rss&t=article&c=" + c + "&l=50&s=start_time&sd=desc"
			}
			p := b.stdSite(stdConfig{host: host, name: "Riverbend Tribune", desc: "Riverbend and Douglas County news, sports, weather and obituaries.", lang: "en", loc: zoneCST, seed: "riverbend",
				sections:  []string{"news/local:Local News", "news/state-and-regional:State & Regional", "news/crime-and-courts:Crime & Courts", "sports:Sports", "business:Business", "opinion:Opinion"},
				sectionOf: func(slug string) string { return "/" + slug + "/" },
				path:      func(a article) string { return "/" + a.section + "/article_" + uuidFor("riverbend", a.id) + ".html" },
				newest:    37 * time.Minute, every: 80 * time.Minute, n: 40,
				head: "<link rel=\"stylesheet\" href=\"https://bloximages.chicago2.vip.townnews.com/" + host + "/shared-content/art/tncms/templates/libraries/flex/components/bootstrap/resources/styles/bootstrap.min.9a8b7c6d.css\"/>\n" +
					"<link rel=\"stylesheet\" href=\"/shared-content/art/tncms/templates/libraries/flex/components/template/resources/styles/layout.1f2e3d4c.css\"/>\n" +
					"<link rel=\"alternate\" type=\"application/rss+xml\" title=\"" + host + " - RSS Results in news* of type article\" href=\"" + strings.ReplaceAll(rssURL("news*"), "&", "&amp;") + "\" />\n" +
					"<script src=\"/shared-content/art/tncms/user/user.js?_dc=1718000000\"></script>\n",
				tail:        "<script src=\"https://bloximages.chicago2.vip.townnews.com/" + host + "/shared-content/art/tncms/templates/libraries/flex/components/template/resources/scripts/tnt.c7d8e9f0.js\"></script>",
				topLinks:    []link{{base + "/subscribe/", "Subscribe"}, {base + "/eedition/", "e-Edition"}, {base + "/users/login/", "Log In"}, {base + "/newsletters/", "Newsletters"}},
				footerCols:  enFooter(base, link{base + "/site/sitemap.html", "Site Map"}, link{base + "/site/terms.html", "Terms of Use"}),
				footerExtra: social("RiverbendTribune", "facebook", "x", "instagram") + appBadges("1700000010", "com.townnews.riverbendtribune", "Download on the App Store", "Get it on Google Play"),
				homeTop:     "<div class=\"tnt-ads-container\"></div>\n",
			})
			p.subscribePages("Digital access for $1 for 3 months.")
			p.htmlSitemapPage("/site/sitemap.html", "Site Map")
			h, list := p.h, p.list
			h.rss("/search/?f=rss&t=article&c=news*&l=50&s=start_time&sd=desc", rss2(channel{title: host + " - RSS Results in news* of type article", link: base + "/search/?f=rss&t=article&c=news*&l=50&s=start_time&sd=desc",
				description: "Search results", lang: "en-US", generator: "TNCMS 1.72.1", ttl: "30", loc: zoneCST}, base, list[:20], rssOpts{creator: true}))
			h.xml("/tncms/sitemap/news.xml", newsSitemap("Riverbend Tribune", "en", base, zoneCST, b.last48h(list), newsOpts{keywords: true}))
			var days []smChild
			for i := 0; i < 7; i++ {
				d := b.now.In(zoneCST).AddDate(0, 0, -i).Format("2006-01-02")
				days = append(days, smChild{base + "/tncms/sitemap/editorial.xml?date=" + d, b.now.AddDate(0, 0, -i)})
				var day []article
				for _, a := range list {
					if a.time.In(zoneCST).Format("2006-01-02") == d {
						day = append(day, a)
					}
				}
				h.xml("/tncms/sitemap/editorial.xml?date="+d, urlset(zoneCST, articleURLs(base, day), false))
			}
			h.xml("/tncms/sitemap/editorial.xml", sitemapIndex(zoneCST, days, ""))
			var secs []smURL
			for _, s := range p.slugs() {
				secs = append(secs, smURL{loc: base + "/" + s + "/", changefreq: "hourly"})
			}
			h.xml("/tncms/sitemap/sections.xml", urlset(zoneCST, secs, false))
			h.xml("/sitemap.xml", sitemapIndex(zoneCST, []smChild{{base + "/tncms/sitemap/sections.xml", list[0].time}, {base + "/tncms/sitemap/editorial.xml", list[0].time}}, ""))
			h.text("/robots.txt", robotsOf("www.omaha.com", host))
		},
	}
}

func spanishSitemaps() CatalogueEntry {
	const apex = "diariodelebro-example.es"
	const host = "www." + apex
	return CatalogueEntry{
		Name:       "spanish_sitemaps",
		ModelledOn: "Spanish regional daily: robots.txt lists a dozen sitemaps named in Spanish (portada, secciones, noticias-2019, hemeroteca, opinión, deportes, vídeos…); the Google News one is ultimas-noticias.xml, last; the footer \"RSS\" feed was abandoned years ago",
		DomainID:   "media:es:" + apex,
		Expect:     ExpectedSeed{ContentType: "news", FetchType: "news_sitemap", EntryURL: "https://" + host + "/sitemaps/ultimas-noticias.xml"},
		build: func(b *builder) {
			base := "https://" + host
			b.redirectWWW(apex)
			p := b.stdSite(stdConfig{host: host, name: "Diario del Ebro", desc: "Noticias de Zaragoza, Aragón y el valle del Ebro.", lang: "es", loc: zoneCEST, seed: "ebro",
				sections: []string{"aragon:Aragón", "zaragoza:Zaragoza", "espana:España", "economia:Economía", "deportes:Deportes", "opinion:Opinión", "cultura:Cultura"},
				path: func(a article) string {
					return "/" + a.section + "/" + a.time.In(zoneCEST).Format("2006/01/02/") + slugify(a.title) + "-" + strconv.Itoa(a.id) + ".html"
				},
				newest: 44 * time.Minute, every: 70 * time.Minute, n: 45, by: "Por", moreText: "Más", dateFmt: "02/01/2006 a las 15:04h",
				topLinks: []link{{base + "/suscripcion/", "Suscríbete"}, {base + "/usuarios/acceso/", "Iniciar sesión"}, {base + "/newsletters/", "Newsletters"}},
				footerCols: []footerCol{
					{"Diario del Ebro", []link{{base + "/quienes-somos/", "Quiénes somos"}, {base + "/contacto/", "Contacto"}, {base + "/publicidad/", "Publicidad"}, {base + "/rss/portada.xml", "RSS"}}},
					{"Legal", []link{{base + "/aviso-legal/", "Aviso legal"}, {base + "/politica-de-privacidad/", "Política de privacidad"}, {base + "/politica-de-cookies/", "Política de cookies"}, {base + "/mapa-web/", "Mapa web"}}},
				},
				footerExtra:   social("DiarioDelEbro", "facebook", "x", "instagram", "tiktok") + appBadges("1800000011", "es.diariodelebro.app", "Descargar en App Store", "Disponible en Google Play"),
				cookie:        "<div id=\"didomi-host\"></div>\n",
				copyright:     "© Ediciones del Ebro S.L. " + strconv.Itoa(b.now.Year()),
				notFoundTitle: "Página no encontrada", notFoundText: "Lo sentimos, la página que busca no existe o ha sido eliminada.",
			})
			h, list := p.h, p.list
			p.simple("/suscripcion/", "Suscríbete", paywall("Suscríbete al Diario del Ebro", "Acceso ilimitado por 1 € el primer mes.", "Suscribirme", base+"/suscripcion/pago/"))
			p.htmlSitemapPage("/mapa-web/", "Mapa web")
			stale := b.staleArticles("ebro-rss", "es", 6, func(a article) string { return "/noticias/" + strconv.Itoa(a.id) + ".html" })
			h.rss("/rss/portada.xml", rss2(channel{title: "Diario del Ebro - Portada", link: base + "/", description: "Portada", lang: "es-es", self: base + "/rss/portada.xml", loc: zoneCEST}, base, stale, rssOpts{}))
			sm := func(name string) string { return base + "/sitemaps/" + name }
			h.xml("/sitemaps/sitemap-index.xml", sitemapIndex(zoneCEST, []smChild{{sm("portada.xml"), list[0].time}, {sm("secciones.xml"), list[0].time}, {sm("hemeroteca.xml"), list[20].time}}, ""))
			h.xml("/sitemaps/portada.xml", urlset(zoneCEST, []smURL{{loc: base + "/", lastmod: list[0].time, changefreq: "always", priority: "1.0"}}, false))
			var secs []smURL
			for _, s := range p.slugs() {
				secs = append(secs, smURL{loc: base + "/" + s + "/", lastmod: list[0].time, changefreq: "hourly"})
			}
			h.xml("/sitemaps/secciones.xml", urlset(zoneCEST, secs, false))
			h.xml("/sitemaps/noticias-2019.xml", urlset(zoneCEST, articleURLs(base, stale), false))
			h.xml("/sitemaps/hemeroteca.xml", urlset(zoneCEST, articleURLs(base, list[20:]), false))
			h.xml("/sitemaps/opinion.xml", urlset(zoneCEST, articleURLs(base, inSection(list, "opinion")), false))
			h.xml("/sitemaps/deportes.xml", urlset(zoneCEST, articleURLs(base, inSection(list, "deportes")), false))
			h.xml("/sitemaps/videos.xml", videoSitemap(base, zoneCEST, list[3:6]))
			h.xml("/sitemaps/fotogalerias.xml", imageSitemap(base, list[:8]))
			h.xml("/sitemaps/autores.xml", urlset(zoneCEST, []smURL{{loc: base + "/autores/redaccion/"}, {loc: base + "/autores/agencias/"}}, false))
			h.xml("/sitemaps/etiquetas.xml", urlset(zoneCEST, []smURL{{loc: base + "/temas/real-zaragoza/"}, {loc: base + "/temas/pilar/"}}, false))
			h.xml("/sitemaps/ultimas-noticias.xml", newsSitemap("Diario del Ebro", "es", base, zoneCEST, b.last48h(list), newsOpts{keywords: true}))
			var r strings.Builder
			r.WriteString("User-agent: *\nDisallow: /buscador/\nDisallow: /usuarios/\nDisallow: /*?*utm_\nDisallow: /suscripcion/pago/\n\nUser-agent: GPTBot\nDisallow: /\n\n")
			for _, n := range []string{"sitemap-index.xml", "portada.xml", "secciones.xml", "noticias-2019.xml", "hemeroteca.xml", "opinion.xml", "deportes.xml", "videos.xml", "fotogalerias.xml", "autores.xml", "etiquetas.xml", "ultimas-noticias.xml"} {
				r.WriteString("Sitemap: " + sm(n) + "\n")
			}
			h.text("/robots.txt", r.String())
		},
	}
}

func gouvFrFluxRSS() CatalogueEntry {
	const apex = "cohesion-rurale-example.gouv.fr"
	const host = "www." + apex
	return CatalogueEntry{
		Name:       "gouv_fr_flux_rss",
		ModelledOn: "French ministry site (Drupal 9, DSFR design system) on service-public.fr's real robots.txt: footer \"Flux RSS\" leads to a directory page; \"Toutes les actualités\" comes first, then communiqués, discours, agenda",
		DomainID:   "gov:fr:" + apex,
		Expect:     ExpectedSeed{ContentType: "news", FetchType: "rss", EntryURL: "https://" + host + "/rss/actualites.xml"},
		build: func(b *builder) {
			base := "https://" + host
			b.redirectWWW(apex)
			p := b.stdSite(stdConfig{host: host, name: "Ministère de la Cohésion rurale", desc: "Actualités, dossiers et démarches du ministère.", lang: "fr", loc: zoneCEST, seed: "cohesion",
				sections:  []string{"actualites:Actualités", "communiques:Communiqués de presse", "dossiers:Dossiers"},
				sectionOf: func(slug string) string { return "/" + slug },
				path:      func(a article) string { return "/" + a.section + "/" + slugify(a.title) },
				newest:    3*time.Hour + 50*time.Minute, every: 9 * time.Hour, n: 24, by: "Par", moreText: "Toutes les", dateFmt: "02/01/2006",
				head: "<meta name=\"Generator\" content=\"Drupal 9 (https://www.drupal.org)\" />\n<link rel=\"stylesheet\" media=\"all\" href=\"/themes/custom/dsfr_ministere/dist/dsfr/dsfr.min.css?s2k1x0\" />\n" +
					"<script type=\"application/json\" data-drupal-selector=\"drupal-settings-json\">{\"path\":{\"baseUrl\":\"\\/\",\"currentLanguage\":\"fr\"}}</script>\n",
				topLinks: []link{{base + "/espace-presse", "Espace presse"}, {base + "/contact", "Contact"}},
				footerCols: []footerCol{
					{"Liens officiels", []link{{"https://www.legifrance.gouv.fr", "legifrance.gouv.fr"}, {"https://www.gouvernement.fr", "gouvernement.fr"}, {"https://www.service-public.fr", "service-public.fr"}, {"https://www.data.gouv.fr", "data.gouv.fr"}}},
					{"Informations", []link{{base + "/plan-du-site", "Plan du site"}, {base + "/accessibilite", "Accessibilité : partiellement conforme"}, {base + "/mentions-legales", "Mentions légales"},
						{base + "/donnees-personnelles", "Données personnelles"}, {"#tarteaucitron", "Gestion des cookies"}, {base + "/flux-rss", "Flux RSS"}}},
				},
				footerExtra:   social("CohesionRurale", "x", "linkedin", "facebook"),
				cookie:        "<script src=\"/libraries/tarteaucitron/tarteaucitron.js\"></script>\n",
				copyright:     "Sauf mention explicite de propriété intellectuelle détenue par des tiers, les contenus de ce site sont proposés sous licence etalab-2.0",
				notFoundTitle: "Page non trouvée", notFoundText: "La page que vous cherchez est introuvable. Excusez-nous pour la gêne occasionnée.",
			})
			h, list := p.h, p.list
			p.htmlSitemapPage("/plan-du-site", "Plan du site", link{base + "/flux-rss", "Flux RSS"})
			ch := channel{title: "Ministère de la Cohésion rurale - Toutes les actualités", link: base + "/actualites", description: "Les dernières actualités du ministère", lang: "fr", self: base + "/rss/actualites.xml", loc: zoneCEST}
			h.rss("/rss/actualites.xml", rss2(ch, base, list[:15], rssOpts{creator: true}))
			var dir strings.Builder
			dir.WriteString("<p>Abonnez-vous aux flux RSS du ministère pour suivre l'actualité.</p><ul class=\"fr-links-group\">")
			dir.WriteString("<li><a class=\"fr-link\" href=\"" + base + "/rss/actualites.xml\">Toutes les actualités</a></li>")
			extra := []struct{ path, title string }{{"/rss/communiques-de-presse.xml", "Communiqués de presse"}, {"/rss/discours.xml", "Discours"}, {"/rss/agenda.xml", "Agenda de la ministre"}, {"/rss/appels-a-projets.xml", "Appels à projets"}}
			for i, e := range extra {
				items := inSection(list, "communiques")
				switch i {
				case 1:
					items = b.staleArticles("cohesion-discours", "fr", 2, func(a article) string { return "/discours/" + strconv.Itoa(a.id) })
				case 2:
					items = b.articles("cohesion-agenda", articleSpec{lang: "fr", n: 5, newest: 20 * time.Hour, every: 24 * time.Hour, path: func(a article) string { return "/agenda/" + strconv.Itoa(a.id) }})
				case 3:
					items = b.staleArticles("cohesion-aap", "fr", 1, func(a article) string { return "/appels-a-projets/" + strconv.Itoa(a.id) })
				}
				sch := ch
				sch.title, sch.self = "Ministère de la Cohésion rurale - "+e.title, base+e.path
				h.rss(e.path, rss2(sch, base, items, rssOpts{creator: true}))
				dir.WriteString("<li><a class=\"fr-link\" href=\"" + base + e.path + "\">" + esc(e.title) + "</a></li>")
			}
			dir.WriteString("</ul>")
			p.simple("/flux-rss", "Flux RSS", dir.String())
			p.simple("/espace-presse", "Espace presse", "<p>Contact presse : presse@"+apex+"</p>")
			h.xml("/sitemap.xml", urlset(zoneCEST, articleURLs(base, list), false))
			h.text("/robots.txt", robotsOf("www.service-public.fr", host))
		},
	}
}
