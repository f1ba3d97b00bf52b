package simweb

import (
	"embed"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// realRobots holds robots.txt files of real publishers (see
// testdata/robots/LICENSE-NOTE.md); entries serve them with the host swapped.
//
//go:embed testdata/robots/www.*
var realRobots embed.FS

func robotsOf(file, host string) string {
	b, err := realRobots.ReadFile("testdata/robots/" + file)
	if err != nil {
		panic("simweb: embedded robots.txt " + file + ": " + err.Error())
	}
	return swapHost(string(b), file, host)
}

func rssDirectoryPage() CatalogueEntry {
	const apex = "fraservalley-post-example.ca"
	const host = "www." + apex
	return CatalogueEntry{
		Name:       "rss_directory_page",
		ModelledOn: "Canadian daily with an \"RSS\" footer link to an HTML directory page (/rss/) listing 12 feeds, Top Stories first then sections, weather and a podcast; nothing declared in <head>",
		DomainID:   "media:ca:" + apex,
		Expect:     ExpectedSeed{ContentType: "news", FetchType: "rss", EntryURL: "https://" + host + "/rss/topstories.xml"},
		build: func(b *builder) {
			base := "https://" + host
			b.redirectWWW(apex)
			p := b.stdSite(stdConfig{host: host, name: "Fraser Valley Post", desc: "Local news from Abbotsford, Chilliwack and Mission.", lang: "en", loc: zonePST, seed: "fraser",
				sections: []string{"local-news:Local News", "bc-news:B.C. News", "canada:Canada", "world:World", "business:Business", "sports:Sports", "entertainment:Entertainment", "opinion:Opinion"},
				newest:   18 * time.Minute, every: 80 * time.Minute, n: 40,
				head:     "<link rel=\"stylesheet\" href=\"" + base + "/static/css/main.4f2a1c.css\">\n" + oneTrust("fvp-2024"),
				topLinks: enTopLinks(base), footerCols: enFooter(base, link{base + "/rss/", "RSS"}, link{base + "/site-map/", "Site map"}),
				footerExtra: social("FraserValleyPost", "facebook", "x", "instagram") + appBadges("1234500001", "ca.fraservalleypost.app", "App Store", "Google Play"),
			})
			p.subscribePages("Unlimited digital access for $3.99 a month.")
			p.htmlSitemapPage("/site-map/", "Site map", link{base + "/rss/", "RSS feeds"})
			h, list := p.h, p.list
			type feed struct{ path, title, section string }
			feeds := []feed{{"/rss/topstories.xml", "Top Stories", ""}}
			for _, s := range p.slugs() {
				feeds = append(feeds, feed{"/rss/" + s + ".xml", p.labels[s], s})
			}
			feeds = append(feeds, feed{"/rss/weather.xml", "Weather alerts", "weather"}, feed{"/rss/fvp-daily-podcast.xml", "FVP Daily (podcast)", "podcast"}, feed{"/rss/obituaries.xml", "Obituaries", "obits"})
			var dir strings.Builder
			dir.WriteString("<p>Add our RSS feeds to your reader to get headlines as they happen.</p>\n<table class=\"rss-feeds\"><tbody>")
			for i, f := range feeds {
				items := list[:20]
				switch {
				case i == 0:
				case f.section == "weather":
					items = b.articles("fraser-wx", articleSpec{lang: "en", n: 3, newest: 7 * time.Hour, every: 30 * time.Hour, path: func(a article) string { return "/weather/alert-" + strconv.Itoa(a.id) }})
				case f.section == "podcast":
					items = b.articles("fraser-pod", articleSpec{lang: "en", n: 6, newest: 30 * time.Hour, every: 24 * time.Hour, path: func(a article) string { return "/podcasts/fvp-daily/" + strconv.Itoa(a.id) }})
				case f.section == "obits":
					items = b.staleArticles("fraser-obits", "en", 3, func(a article) string { return "/obituaries/" + strconv.Itoa(a.id) })
				default:
					items = inSection(list, f.section)
				}
				h.rss(f.path, rss2(channel{title: "Fraser Valley Post - " + f.title, link: base + "/", description: f.title + " from the Fraser Valley Post", lang: "en-CA",
					self: base + f.path, loc: zonePST}, base, items, rssOpts{creator: true}))
				dir.WriteString("<tr><td>" + esc(f.title) + "</td><td><a href=\"" + base + f.path + "\">" + esc(base+f.path) + "</a></td></tr>")
			}
			dir.WriteString("</tbody></table>")
			p.simple("/rss/", "RSS feeds", dir.String())
			h.xml("/sitemap.xml", urlset(zonePST, articleURLs(base, list), false))
			h.text("/robots.txt", "User-agent: *\nDisallow: /account/\nDisallow: /search\n\nSitemap: "+base+"/sitemap.xml\n")
		},
	}
}

func robotsManyDeadSitemaps() CatalogueEntry {
	const apex = "thamesford-telegraph-example.co.uk"
	const host = "www." + apex
	return CatalogueEntry{
		Name:       "robots_many_dead_sitemaps",
		ModelledOn: "UK national modelled on The Telegraph's real robots.txt: 30 Sitemap lines, most of them dead (404) including the news_sitemap_index named second; the live news urlset is line 24 (/sitemap-news.xml); /news/sitemap.xml is a plain urlset; no feed",
		DomainID:   "media:gb:" + apex,
		Expect:     ExpectedSeed{ContentType: "news", FetchType: "news_sitemap", EntryURL: "https://" + host + "/sitemap-news.xml"},
		build: func(b *builder) {
			base := "https://" + host
			b.redirectWWW(apex)
			p := b.stdSite(stdConfig{host: host, name: "The Thamesford Telegraph", desc: "Latest news, business, sport, comment and analysis.", lang: "en", loc: zoneLondon, seed: "thamesford",
				sections: []string{"news:News", "politics:Politics", "business:Business", "sport:Sport", "opinion:Opinion", "travel:Travel", "culture:Culture"},
				path: func(a article) string {
					return "/" + a.section + datePath(a.time, zoneLondon) + "/" + slugify(a.title) + "/"
				},
				newest: 41 * time.Minute, every: 70 * time.Minute, n: 45,
				head:     "<link rel=\"stylesheet\" href=\"" + base + "/etc/designs/telegraph/core/clientlibs/core.min.css\">\n",
				topLinks: enTopLinks(base), footerCols: enFooter(base, link{base + "/sitemap/", "Sitemap"}), cookie: oneTrust("ttg-uk"),
				footerExtra: social("Thamesford", "facebook", "x", "instagram", "linkedin", "youtube") + appBadges("1300000003", "uk.co.thamesfordtelegraph", "Download on the App Store", "Get it on Google Play"),
			})
			p.subscribePages("Subscribe for £1 for three months.")
			p.htmlSitemapPage("/sitemap/", "Sitemap")
			h, list := p.h, p.list
			robots := robotsOf("www.telegraph.co.uk", host)
			h.text("/robots.txt", robots)
			h.xml("/sitemap-news.xml", newsSitemap("The Thamesford Telegraph", "en", base, zoneLondon, b.last48h(list), newsOpts{keywords: true}))
			h.xml("/news/sitemap.xml", urlset(zoneLondon, articleURLs(base, inSection(list, "news")), false))
			var months []smChild
			for i := 0; i < 3; i++ {
				m := b.now.AddDate(0, -i, 0)
				path := "/sitemaps/archive/" + m.Format("2006-01") + ".xml"
				months = append(months, smChild{base + path, m})
				h.xml(path, urlset(zoneLondon, articleURLs(base, list[i*10:i*10+10]), false))
			}
			h.xml("/sitemap.xml", sitemapIndex(zoneLondon, months, ""))
			h.xml("/sitemaps/video/video_sitemap_index.xml", sitemapIndex(zoneLondon, []smChild{{base + "/sitemaps/video/video-latest.xml", list[4].time}}, ""))
			h.xml("/sitemaps/video/video-latest.xml", videoSitemap(base, zoneLondon, list[4:7]))
			nf := p.c.notFound()
			for _, line := range strings.Split(robots, "\n") {
				u, ok := strings.CutPrefix(strings.TrimSpace(line), "Sitemap: ")
				if !ok {
					continue
				}
				path := strings.TrimPrefix(strings.TrimSpace(u), base)
				if _, live := h.pages[path]; !live {
					h.status(path, http.StatusNotFound, nf)
				}
			}
		},
	}
}

func sitemapIndexNewsTwelfth() CatalogueEntry {
	const apex = "waikato-wire-example.co.nz"
	const host = "www." + apex
	return CatalogueEntry{
		Name:       "sitemap_index_news_twelfth",
		ModelledOn: "NZ regional news site without a feed whose robots.txt names one sitemap index of 16 children (pages, sections, monthly archives, tags, authors, video, images); the Google News urlset is the 12th child",
		DomainID:   "media:nz:" + apex,
		Expect:     ExpectedSeed{ContentType: "news", FetchType: "news_sitemap", EntryURL: "https://" + host + "/sitemaps/google-news.xml"},
		build: func(b *builder) {
			base := "https://" + host
			b.redirectWWW(apex)
			p := b.stdSite(stdConfig{host: host, name: "Waikato Wire", desc: "News from Hamilton and the Waikato.", lang: "en", loc: zoneNZST, seed: "waikato",
				sections: []string{"news:News", "rural:Rural", "sport:Sport", "business:Business", "lifestyle:Lifestyle"},
				newest:   2*time.Hour + 30*time.Minute, every: 3 * time.Hour,
				topLinks: enTopLinks(base), footerCols: enFooter(base), footerExtra: social("WaikatoWire", "facebook", "instagram"),
			})
			p.subscribePages("Support the Wire from $2 a week.")
			h, list := p.h, p.list
			children := []smChild{{base + "/sitemaps/pages.xml", list[10].time}, {base + "/sitemaps/sections.xml", list[0].time}}
			h.xml("/sitemaps/pages.xml", urlset(zoneNZST, []smURL{{loc: base + "/"}, {loc: base + "/about-us/"}, {loc: base + "/subscribe/"}}, false))
			var secs []smURL
			for _, s := range p.slugs() {
				secs = append(secs, smURL{loc: base + "/" + s + "/"})
			}
			h.xml("/sitemaps/sections.xml", urlset(zoneNZST, secs, false))
			for i := 0; i < 8; i++ {
				m := b.now.AddDate(0, -i, 0)
				path := "/sitemaps/archive-" + m.Format("2006-01") + ".xml"
				children = append(children, smChild{base + path, m})
				items := list[:10]
				if i > 0 {
					items = b.articles("waikato-"+m.Format("200601"), articleSpec{lang: "en", n: 4, newest: b.now.Sub(m) + 24*time.Hour, every: 6 * 24 * time.Hour,
						sections: []string{"news"}, path: func(a article) string { return "/news/" + slugify(a.title) + "-" + strconv.Itoa(a.id) }})
				}
				h.xml(path, urlset(zoneNZST, articleURLs(base, items), false))
			}
			children = append(children, smChild{base + "/sitemaps/tags.xml", list[0].time}, smChild{base + "/sitemaps/google-news.xml", list[0].time},
				smChild{base + "/sitemaps/authors.xml", list[2].time}, smChild{base + "/sitemaps/videos.xml", list[6].time},
				smChild{base + "/sitemaps/images.xml", list[1].time}, smChild{base + "/sitemaps/archive-" + strconv.Itoa(b.now.Year()-1) + ".xml", b.now.AddDate(0, -6, 0)})
			h.xml("/sitemaps/tags.xml", urlset(zoneNZST, []smURL{{loc: base + "/tag/hamilton/"}, {loc: base + "/tag/waikato-river/"}, {loc: base + "/tag/chiefs/"}}, false))
			h.xml("/sitemaps/google-news.xml", newsSitemap("Waikato Wire", "en", base, zoneNZST, b.last48h(list), newsOpts{}))
			h.xml("/sitemaps/authors.xml", urlset(zoneNZST, []smURL{{loc: base + "/author/staff-reporter/"}, {loc: base + "/author/news-desk/"}}, false))
			h.xml("/sitemaps/videos.xml", videoSitemap(base, zoneNZST, list[5:8]))
			h.xml("/sitemaps/images.xml", imageSitemap(base, list[:10]))
			h.xml("/sitemaps/archive-"+strconv.Itoa(b.now.Year()-1)+".xml", urlset(zoneNZST, articleURLs(base, b.staleArticles("waikato-year", "en", 1,
				func(a article) string { return "/news/" + slugify(a.title) + "-" + strconv.Itoa(a.id) })), false))
			h.xml("/sitemap.xml", sitemapIndex(zoneNZST, children, ""))
			h.text("/robots.txt", "User-agent: *\nDisallow: /search/\nDisallow: /account/\n\nSitemap: "+base+"/sitemap.xml\n")
		},
	}
}

// imageSitemap renders a Google image sitemap of the stories' lead images.
func imageSitemap(base string, list []article) []byte {
	var b strings.Builder
	b.WriteString("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\" xmlns:image=\"http://www.google.com/schemas/sitemap-image/1.1\">\n")
	for _, a := range list {
		b.WriteString("  <url>\n    <loc>" + esc(base+a.path) + "</loc>\n    <image:image>\n      <image:loc>" + esc(base+"/images/"+itoa(a.id)+".jpg") + "</image:loc>\n    </image:image>\n  </url>\n")
	}
	b.WriteString("</urlset>\n")
	return []byte(b.String())
}

func footerNewsSitemapAnchor() CatalogueEntry {
	const apex = "alpenpost-example.at"
	const host = "www." + apex
	return CatalogueEntry{
		Name:       "footer_news_sitemap_anchor",
		ModelledOn: "Austrian regional site without a feed whose robots.txt names no sitemap: the footer links \"News-Sitemap\" to the Google News urlset and \"Sitemap\" to an HTML sitemap page",
		DomainID:   "media:at:" + apex,
		Expect:     ExpectedSeed{ContentType: "news", FetchType: "news_sitemap", EntryURL: "https://" + host + "/sitemaps/news-latest.xml"},
		build: func(b *builder) {
			base := "https://" + host
			b.redirectWWW(apex)
			p := b.stdSite(stdConfig{host: host, name: "Alpenpost", desc: "Nachrichten aus Tirol und Vorarlberg.", lang: "de", htmlLang: "de-AT", loc: zoneCEST, seed: "alpenpost",
				sections: []string{"tirol:Tirol", "vorarlberg:Vorarlberg", "oesterreich:Österreich", "welt:Welt", "sport:Sport", "wirtschaft:Wirtschaft"},
				newest:   95 * time.Minute, every: 2 * time.Hour, by: "Von", moreText: "Mehr aus", dateFmt: "02.01.2006, 15:04",
				topLinks: []link{{base + "/abo/", "Abo"}, {base + "/epaper/", "E-Paper"}, {base + "/login/", "Login"}},
				footerCols: []footerCol{
					{"Alpenpost", []link{{base + "/impressum/", "Impressum"}, {base + "/datenschutz/", "Datenschutz"}, {base + "/kontakt/", "Kontakt"}, {base + "/werbung/", "Werbung"}}},
					{"Service", []link{{base + "/sitemap/", "Sitemap"}, {base + "/sitemaps/news-latest.xml", "News-Sitemap"}, {base + "/newsletter/", "Newsletter"}, {base + "/abo/", "Abonnieren"}}},
				},
				footerExtra:   social("Alpenpost", "facebook", "instagram"),
				cookie:        "<div id=\"didomi-host\" data-nosnippet=\"true\" aria-hidden=\"true\"></div>\n",
				copyright:     "© " + strconv.Itoa(b.now.Year()) + " Alpenpost Medien GmbH",
				notFoundTitle: "Seite nicht gefunden", notFoundText: "Die gewünschte Seite wurde leider nicht gefunden.",
			})
			h, list := p.h, p.list
			p.htmlSitemapPage("/sitemap/", "Sitemap", link{base + "/impressum/", "Impressum"})
			p.simple("/abo/", "Abonnieren", paywall("Alpenpost Digital-Abo", "Alle Artikel ab 9,90 € im Monat.", "Jetzt abonnieren", base+"/abo/kasse/"))
			p.simple("/impressum/", "Impressum", "<p>Alpenpost Medien GmbH, Innsbruck</p>")
			h.xml("/sitemaps/news-latest.xml", newsSitemap("Alpenpost", "de", base, zoneCEST, b.last48h(list), newsOpts{}))
			h.text("/robots.txt", "User-agent: *\nDisallow: /suche/\nDisallow: /login/\nDisallow: /abo/kasse/\n")
		},
	}
}

func linkRelSitemap() CatalogueEntry {
	const apex = "lioncity-daily-example.com.sg"
	const host = "www." + apex
	return CatalogueEntry{
		Name:       "link_rel_sitemap",
		ModelledOn: "Singapore daily without a feed that declares its Google News sitemap with <link rel=\"sitemap\" type=\"application/xml\" href=\"/googlenews.xml\">; robots.txt names no sitemap; an undeclared plain /sitemap.xml exists",
		DomainID:   "media:sg:" + apex,
		Expect:     ExpectedSeed{ContentType: "news", FetchType: "news_sitemap", EntryURL: "https://" + host + "/googlenews.xml"},
		build: func(b *builder) {
			base := "https://" + host
			b.redirectWWW(apex)
			p := b.stdSite(stdConfig{host: host, name: "Lion City Daily", desc: "Singapore news, Asia and world.", lang: "en", loc: zoneSGT, seed: "lioncity",
				sections: []string{"singapore:Singapore", "asia:Asia", "world:World", "business:Business", "tech:Tech", "sport:Sport", "life:Life"},
				newest:   33 * time.Minute, every: 75 * time.Minute, n: 40,
				head:     "<link rel=\"sitemap\" type=\"application/xml\" title=\"Sitemap\" href=\"" + base + "/googlenews.xml\">\n<link rel=\"manifest\" href=\"/manifest.json\">\n",
				topLinks: enTopLinks(base), footerCols: enFooter(base), cookie: oneTrust("lcd-sg"),
				footerExtra: social("LionCityDaily", "facebook", "x", "instagram", "tiktok", "youtube") + appBadges("1400000004", "sg.lioncitydaily.app", "App Store", "Google Play"),
			})
			p.subscribePages("Premium access from S$0.99 for the first month.")
			h, list := p.h, p.list
			h.xml("/googlenews.xml", newsSitemap("Lion City Daily", "en", base, zoneSGT, b.last48h(list), newsOpts{image: true}))
			h.xml("/sitemap.xml", urlset(zoneSGT, articleURLs(base, list), false))
			h.put("/manifest.json", "application/manifest+json", []byte(`{"name":"Lion City Daily","short_name":"LCD","start_url":"/","display":"standalone"}`))
			h.text("/robots.txt", "User-agent: *\nDisallow: /search\nDisallow: /account/\nDisallow: /*?ref=\n")
		},
	}
}

func siblingHostRSS() CatalogueEntry {
	const apex = "karoo-courant-example.co.za"
	const host = "www." + apex
	const rssHost = "rss." + apex
	return CatalogueEntry{
		Name:       "sibling_host_rss",
		ModelledOn: "South African daily whose feeds live on a sibling host: the footer \"RSS\" anchor goes to https://rss.<domain>/, an HTML directory of the feeds served by that host; nothing on www",
		DomainID:   "media:za:" + apex,
		Expect:     ExpectedSeed{ContentType: "news", FetchType: "rss", EntryURL: "https://" + rssHost + "/topstories.xml"},
		build: func(b *builder) {
			base := "https://" + host
			rbase := "https://" + rssHost
			b.redirectWWW(apex)
			p := b.stdSite(stdConfig{host: host, name: "Karoo Courant", desc: "News from the Karoo, the Cape and South Africa.", lang: "en", loc: zoneSAST, seed: "karoo",
				sections: []string{"news:News", "politics:Politics", "business:Business", "sport:Sport", "lifestyle:Lifestyle", "opinion:Opinion"},
				newest:   52 * time.Minute, every: 100 * time.Minute,
				topLinks: enTopLinks(base), footerCols: enFooter(base, link{rbase + "/", "RSS"}),
				footerExtra: social("KarooCourant", "facebook", "x", "whatsapp"),
			})
			p.subscribePages("Read without limits from R75 a month.")
			list := p.list
			p.h.xml("/sitemap.xml", urlset(zoneSAST, articleURLs(base, list), false))
			p.h.text("/robots.txt", "User-agent: *\nDisallow: /search/\n\nSitemap: "+base+"/sitemap.xml\n")

			r := b.host(rssHost)
			feeds := [][2]string{{"/topstories.xml", "Top Stories"}}
			for _, s := range p.slugs() {
				feeds = append(feeds, [2]string{"/" + s + ".xml", p.labels[s]})
			}
			var dir strings.Builder
			dir.WriteString("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>Karoo Courant RSS feeds</title></head><body>\n<h1>Karoo Courant RSS feeds</h1>\n<ul>")
			for i, f := range feeds {
				items := list[:20]
				if i > 0 {
					items = inSection(list, strings.TrimSuffix(strings.TrimPrefix(f[0], "/"), ".xml"))
				}
				r.rss(f[0], rss2(channel{title: "Karoo Courant | " + f[1], link: base + "/", description: f[1], lang: "en-za", self: rbase + f[0], loc: zoneSAST}, base, items, rssOpts{}))
				dir.WriteString("<li><a href=\"" + rbase + f[0] + "\">" + esc(f[1]) + "</a></li>")
			}
			dir.WriteString("</ul>\n<p><a href=\"" + base + "/\">Back to karoo-courant</a></p></body></html>\n")
			r.html("/", []byte(dir.String()))
			r.text("/robots.txt", "User-agent: *\nAllow: /\n")
			r.notFound = []byte("<!DOCTYPE html>\n<html><head><title>404 Not Found</title></head><body><h1>Not Found</h1><p>The requested URL was not found on this server.</p></body></html>\n")
		},
	}
}

func siblingHostNewsSitemap() CatalogueEntry {
	const apex = "deccan-ledger-example.in"
	const host = "www." + apex
	const nfHost = "newsfeed." + apex
	return CatalogueEntry{
		Name:       "sibling_host_news_sitemap",
		ModelledOn: "Indian daily without a feed whose robots.txt names a section sitemap index on www and the Google News sitemap on a sibling host (https://newsfeed.<domain>/sitemaps/news-sitemap.xml)",
		DomainID:   "media:in:" + apex,
		Expect:     ExpectedSeed{ContentType: "news", FetchType: "news_sitemap", EntryURL: "https://" + nfHost + "/sitemaps/news-sitemap.xml"},
		build: func(b *builder) {
			base := "https://" + host
			b.redirectWWW(apex)
			p := b.stdSite(stdConfig{host: host, name: "Deccan Ledger", desc: "Latest news from Karnataka, India and the world.", lang: "en", loc: zoneIST, seed: "deccan",
				sections: []string{"karnataka:Karnataka", "india:India", "world:World", "business:Business", "sports:Sports", "entertainment:Entertainment", "opinion:Opinion"},
				newest:   21 * time.Minute, every: 55 * time.Minute, n: 45,
				topLinks: enTopLinks(base), footerCols: enFooter(base), cookie: oneTrust("dl-in"),
				footerExtra: social("DeccanLedger", "facebook", "x", "instagram", "youtube", "whatsapp") + appBadges("1500000005", "in.deccanledger.news", "App Store", "Google Play"),
			})
			p.subscribePages("Subscribe for ₹99 a month.")
			h, list := p.h, p.list
			var children []smChild
			for _, s := range p.slugs() {
				children = append(children, smChild{base + "/sitemap/" + s + ".xml", list[0].time})
				h.xml("/sitemap/"+s+".xml", urlset(zoneIST, articleURLs(base, inSection(list, s)), false))
			}
			h.xml("/sitemap.xml", sitemapIndex(zoneIST, children, ""))
			h.text("/robots.txt", "User-agent: *\nDisallow: /search\nDisallow: /*?utm_\nDisallow: /amp/*/amp_login\n\nSitemap: "+base+"/sitemap.xml\nSitemap: https://"+nfHost+"/sitemaps/news-sitemap.xml\n")
			n := b.host(nfHost)
			n.xml("/sitemaps/news-sitemap.xml", newsSitemap("Deccan Ledger", "en", base, zoneIST, b.last48h(list), newsOpts{keywords: true}))
			n.text("/robots.txt", "User-agent: *\nDisallow:\n")
			n.notFound = []byte("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>NoSuchKey</Code><Message>The specified key does not exist.</Message></Error>\n")
		},
	}
}

func unnamedNewsSitemap() CatalogueEntry {
	const apex = "visayas-bulletin-example.com.ph"
	const host = "www." + apex
	return CatalogueEntry{
		Name:       "unnamed_news_sitemap",
		ModelledOn: "Philippine daily without a feed: robots.txt names only a plain /sitemap.xml; the Google News sitemap sits at the common path /sitemaps/news.xml that no page or robots line names",
		DomainID:   "media:ph:" + apex,
		Expect:     ExpectedSeed{ContentType: "news", FetchType: "news_sitemap", EntryURL: "https://" + host + "/sitemaps/news.xml"},
		build: func(b *builder) {
			base := "https://" + host
			b.redirectWWW(apex)
			p := b.stdSite(stdConfig{host: host, name: "Visayas Bulletin", desc: "News from Cebu and the Visayas.", lang: "en", loc: zonePHT, seed: "visayas",
				sections: []string{"cebu:Cebu", "visayas:Visayas", "nation:Nation", "business:Business", "sports:Sports", "opinion:Opinion"},
				newest:   3*time.Hour + 40*time.Minute, every: 2*time.Hour + 30*time.Minute,
				topLinks: enTopLinks(base), footerCols: enFooter(base), footerExtra: social("VisayasBulletin", "facebook", "x", "youtube"),
			})
			p.subscribePages("Go premium for ₱149 a month.")
			h, list := p.h, p.list
			h.xml("/sitemap.xml", urlset(zonePHT, articleURLs(base, list), false))
			h.xml("/sitemaps/news.xml", newsSitemap("Visayas Bulletin", "en", base, zonePHT, b.last48h(list), newsOpts{}))
			h.text("/robots.txt", "User-agent: *\nDisallow: /wp-admin/\nDisallow: /search/\n\nSitemap: "+base+"/sitemap.xml\n")
		},
	}
}

func plainSitemapOnly() CatalogueEntry {
	const apex = "lakeside-star-example.co.ke"
	const host = "www." + apex
	return CatalogueEntry{
		Name:       "plain_sitemap_only",
		ModelledOn: "Kenyan weekly with neither feed nor news sitemap: robots.txt names a plain urlset with fresh lastmod dates, which is the best entry",
		DomainID:   "media:ke:" + apex,
		Expect:     ExpectedSeed{ContentType: "news", FetchType: "sitemap", EntryURL: "https://" + host + "/sitemap.xml"},
		build: func(b *builder) {
			base := "https://" + host
			b.redirectWWW(apex)
			p := b.stdSite(stdConfig{host: host, name: "Lakeside Star", desc: "News from Kisumu and the Lake Victoria region.", lang: "en", loc: zoneEAT, seed: "lakeside",
				sections: []string{"news:News", "counties:Counties", "business:Business", "sports:Sports", "opinion:Opinion"},
				newest:   6 * time.Hour, every: 9 * time.Hour, n: 24,
				topLinks: enTopLinks(base), footerCols: enFooter(base), footerExtra: social("LakesideStar", "facebook", "x"),
			})
			p.subscribePages("E-paper access for KSh 300 a month.")
			h, list := p.h, p.list
			urls := []smURL{{loc: base + "/", lastmod: list[0].time, changefreq: "hourly", priority: "1.0"}}
			for _, s := range p.slugs() {
				urls = append(urls, smURL{loc: base + "/" + s + "/", lastmod: list[0].time, changefreq: "daily", priority: "0.8"})
			}
			for _, a := range list {
				urls = append(urls, smURL{loc: base + a.path, lastmod: a.time, changefreq: "weekly", priority: "0.6"})
			}
			h.xml("/sitemap.xml", urlset(zoneEAT, urls, false))
			h.text("/robots.txt", "User-agent: *\nDisallow: /admin/\n\nSitemap: "+base+"/sitemap.xml\n")
		},
	}
}

func htmlOnly() CatalogueEntry {
	const apex = "valley-growers-example.org"
	const host = "www." + apex
	return CatalogueEntry{
		Name:       "html_only",
		ModelledOn: "Small association site built by hand: no feed, no sitemap, no robots.txt (404); a footer \"Sitemap\" goes to an HTML page; the only way in is the News page listing its items",
		DomainID:   "org:us:" + apex,
		Expect:     ExpectedSeed{ContentType: "news", FetchType: "html", EntryURL: "https://" + host + "/news/"},
		build: func(b *builder) {
			base := "https://" + host
			b.redirectWWW(apex)
			h := b.host(host)
			list := b.articles("valley", articleSpec{lang: "en", n: 16, newest: 20 * time.Hour, every: 3 * 24 * time.Hour,
				path: func(a article) string { return "/news/" + slugify(a.title) + ".html" }})
			f := frame{lang: "en", name: "Valley Growers Association", base: base, loc: zonePST,
				head:        "<link rel=\"stylesheet\" href=\"/css/style.css\">\n",
				sections:    []link{{base + "/", "Home"}, {base + "/news/", "News"}, {base + "/events/", "Events"}, {base + "/membership/", "Membership"}, {base + "/about/", "About"}, {base + "/contact/", "Contact"}},
				footerCols:  []footerCol{{"Links", []link{{base + "/sitemap/", "Sitemap"}, {base + "/privacy/", "Privacy"}, {base + "/membership/", "Join"}}}},
				footerExtra: social("ValleyGrowers", "facebook"), copyright: "© " + strconv.Itoa(b.now.Year()) + " Valley Growers Association, a 501(c)(5) nonprofit.",
				notFoundTitle: "404 Not Found", notFoundText: "The page you requested was not found.", dateFmt: "January 2, 2006"}
			c := f.chrome()
			h.notFound, h.stub = c.notFound(), c.stubPage
			h.html("/", c.page("Home", "/", "Supporting family farms in the valley since 1952.", "",
				"<h1>Welcome</h1><p>Supporting family farms in the valley since 1952.</p><h2>Latest news</h2>"+c.teasers("news-item", list[:3])+"<p><a href=\""+base+"/news/\">All news</a></p>"))
			h.html("/news/", c.page("News", "/news/", "", "", "<h1>News</h1>\n"+c.teasers("news-item", list)))
			for _, a := range list {
				h.html(a.path, c.articlePage(a, "By", ""))
			}
			for _, pg := range [][2]string{{"/events/", "Events"}, {"/membership/", "Membership"}, {"/about/", "About"}, {"/contact/", "Contact"}, {"/privacy/", "Privacy"}} {
				h.html(pg[0], c.page(pg[1], pg[0], "", "", "<h1>"+pg[1]+"</h1><p>Information about "+strings.ToLower(pg[1])+".</p>"))
			}
			h.html("/sitemap/", c.page("Sitemap", "/sitemap/", "", "", "<h1>Sitemap</h1>"+menu("sitemap", link{base + "/", "Home"}, link{base + "/news/", "News"}, link{base + "/events/", "Events"}, link{base + "/about/", "About"})))
		},
	}
}

func hostileRobots() CatalogueEntry {
	const apex = "outback-herald-example.com.au"
	const host = "www." + apex
	return CatalogueEntry{
		Name:       "hostile_robots",
		ModelledOn: "News Corp Australia-style site on news.com.au's real robots.txt, with hostile Sitemap lines added (cloud metadata address, metadata.google.internal); the real seed is its news sitemap; no feed",
		DomainID:   "media:au:" + apex,
		Expect:     ExpectedSeed{ContentType: "news", FetchType: "news_sitemap", EntryURL: "https://" + host + "/news-sitemap.xml"},
		build: func(b *builder) {
			base := "https://" + host
			b.redirectWWW(apex)
			p := b.stdSite(stdConfig{host: host, name: "Outback Herald", desc: "News from Broken Hill, the Far West and the outback.", lang: "en", loc: zoneAEST, seed: "outback",
				sections: []string{"national:National", "regional:Regional", "world:World", "sport:Sport", "finance:Finance", "lifestyle:Lifestyle"},
				path: func(a article) string {
					return "/" + a.section + "/" + slugify(a.title) + "/news-story/" + strings.ReplaceAll(uuidFor("outback", a.id), "-", "")[:32]
				},
				newest: 64 * time.Minute, every: 85 * time.Minute, n: 40,
				topLinks: enTopLinks(base), footerCols: enFooter(base), cookie: oneTrust("oh-au"),
				footerExtra: social("OutbackHerald", "facebook", "x", "instagram") + appBadges("1600000006", "au.com.outbackherald", "App Store", "Google Play"),
			})
			p.subscribePages("Subscribe for $1 a week for 12 weeks.")
			h, list := p.h, p.list
			robots := robotsOf("www.news.com.au", host)
			hostile := "Sitemap: http://169.254.169.254/latest/meta-data/sitemap.xml\nSitemap: http://metadata.google.internal/computeMetadata/v1/instance/attributes/sitemap.xml\n"
			robots = strings.Replace(robots, "Sitemap: https://"+host+"/sitemap.xml\n", hostile+"Sitemap: https://"+host+"/sitemap.xml\n", 1)
			h.text("/robots.txt", robots)
			h.xml("/news-sitemap.xml", newsSitemap("Outback Herald", "en", base, zoneAEST, b.last48h(list), newsOpts{keywords: true}))
			h.xml("/sitemap.xml", urlset(zoneAEST, articleURLs(base, list), false))
		},
	}
}
