// Package simweb is a simulated web on 127.0.0.1: one HTTP listener, one TLS
// listener and one DNS server (UDP and TCP on one port) that together serve
// any number of virtual hosts, each healthy or broken in a chosen way. Every
// test and benchmark of the fetcher, liveness, contract and orchestration
// work runs against it instead of the internet (DESIGN §10), so that results
// are repeatable and nothing leaves the machine.
//
// # Wiring a client
//
// A client reaches simweb the way the fetcher is configured for staging
// (DESIGN §7): resolve names through [Web.DNSAddr], route connections with
// the curl-style entries of [Web.ConnectTo] (first match wins), and trust
// [Web.CACertPEM] (or the file from [Web.WriteCAFile]). Resolving first
// matters: the DNS scenarios only exist in DNS, and a client that skips it
// gets dead hosts' connections reset rather than served. Host names are
// matched without regard to case, port or a trailing dot; a site's "www."
// name belongs to it.
//
// # Scenarios
//
// Each site has one [Scenario]; [Web.Generate] mixes them by proportion and
// [Web.AddSite] sets them one by one. What a client sees:
//
//	healthy            200 with the layout's content (below), over HTTP and HTTPS
//	redirect_www       apex: 301 to scheme://www.<host><path>; www.: healthy
//	redirect_external  301 to Site.RedirectTo, by default <host-with-dashes>.moved.example
//	                   (another registrable domain, registered healthy so it can be followed)
//	bot_wall           403 access-denied page: Akamai, Cloudflare "Sorry, you have been
//	                   blocked" or Incapsula, chosen by host, with their Server headers
//	rate_limited       429 with Retry-After in seconds (Site.RetryAfter, default 30)
//	challenge          503 or 200 (by host) Cloudflare managed challenge: "Just a moment...",
//	                   "Checking your browser", window._cf_chl_opt, __cf_chl_f_tk, cf-mitigated
//	parked             200 parking page, "This domain is for sale" with Sedo, Bodis,
//	                   ParkingCrew or Dan.com markers (by host), on every path
//	slow               healthy after Site.Delay (default 5 s); the wait ends and the
//	                   connection is dropped as soon as the client gives up
//	reset              request read, then TCP RST (SO_LINGER 0): "connection reset by peer"
//	tls_expired        certificate for the name, expired 30 days ago; HTTP healthy
//	tls_wrong_name     certificate for default.shared-hosting.example; HTTP healthy
//	http_only          TLS connection reset on seeing the SNI; HTTP healthy, links use http://
//	server_error       500, 502 or 503 (by host), no Retry-After
//	redirect_loop      302 /loop/a ⇄ /loop/b, for ever
//	nxdomain           DNS NXDOMAIN for the name and its www.
//	servfail           DNS SERVFAIL
//	dns_timeout        DNS never answers (UDP or TCP)
//	refused            DNS answers A 127.0.0.1, and ConnectTo sends the host's ports 80
//	                   and 443 to a reserved port where connections are refused
//
// Site.Status replaces the status code of the HTTP-level scenarios. Site.Pages
// and an explicit Site.Robots or Site.RobotsStatus are served before the
// scenario's page (a bot-walled site can still have a robots.txt), but after
// the connection-level scenarios (reset, slow, TLS, DNS).
//
// # DNS
//
// Answers are authoritative: A 127.0.0.1 (TTL 300) for every live name and
// its www.; NODATA (NOERROR, no answer, an SOA in authority) for AAAA and
// other types, so clients fall back to IPv4 at once; NXDOMAIN for unknown
// names. IPv6 is never offered, as only 127.0.0.1 is used.
//
// # TLS
//
// Certificates are issued on the fly for the SNI name by a CA created at
// Start (ECDSA P-256, one leaf key shared by all leaves), and cached per name
// and kind. A client without SNI gets a certificate for 127.0.0.1. simweb
// speaks HTTP/1.1 only, because the reset scenario hijacks the connection.
//
// # Content
//
// A reachable site serves content generated on each request from its host
// name and the clock, so 10,000 sites cost a few hundred bytes each (only a
// Site's own Pages take more). Titles, names, article counts (24–63) and
// publishing rhythm (every 3 to 48 hours) vary by host; links are absolute
// with the requested name. Dates count back from the start of the current UTC
// day of Config.Now (default time.Now): feeds are always fresh, and content
// is identical for every request of a test; a fixed Config.Now makes it
// byte-identical across runs. Every site serves "/", "/about/", "/contact/",
// its section page and the articles under it, and a 404 page for anything
// else. The [Layout] decides the rest:
//
//	wordpress  <link rel="alternate"> RSS /feed/ (10 items) and /comments/feed/;
//	           /feed → 301 /feed/; robots.txt "Disallow:" + Sitemap /sitemap.xml
//	           (urlset of 20 URLs with lastmod); articles under /news/
//	news       no feed; robots.txt names /sitemap_index.xml (an index of
//	           /news-sitemap.xml, /sitemap-pages.xml and two gzip files
//	           /sitemap-articles-{1,2}.xml.gz) and /news-sitemap.xml (Google
//	           News, 10 items); articles under /news/
//	gov        no <link rel="alternate">; "/" links to /newsroom/, which links
//	           the RSS feed /newsroom/rss; robots.txt "Allow: /" + Sitemap
//	blog       <link rel="alternate"> Atom /atom.xml and JSON Feed /feed.json;
//	           /sitemap.xml; articles under /posts/
//	static     no feed, no sitemap, robots.txt allows all and names none; the
//	           HTML section /news/ lists 20 articles
//
// Site.Pages adds or replaces any path (with or without query), including
// gzip files ([GzipBytes]) and gzip-encoded responses (Page.Gzip), for the
// robots, sitemap and feed cases a test needs beyond these. Site.NotFound
// turns the built-in content off: every path that Pages (and Robots) do not
// answer then gets that page, with status 404 unless it says otherwise, so
// a site can be made of its Pages alone.
//
// # Catalogue
//
// The layouts above exercise the fetcher; they are too regular to judge
// contract discovery by. [Catalogue] is a fixed list of realistic sites
// (37 entries) modelled closely on real publishers and CMSs — WordPress with
// and without Yoast, Arc XP, Drupal, TYPO3, Ghost, Joomla, Blogger,
// Brightspot, BLOX/TownNews, Hugo, Pelican, Squarespace, Wix, in-house CMSs
// and hand-coded HTML, in English, German, Japanese, Spanish, French,
// Italian, Dutch and Catalan —
// with their real generator tags, asset paths, API links, feed and sitemap
// URLs, menus, footers, paywall and newsletter links, HTML sitemap pages,
// and robots.txt files (six copied from real publishers, see
// testdata/robots/LICENSE-NOTE.md). Each [CatalogueEntry] names the real
// thing it imitates, its domain_id and the [ExpectedSeed] a careful person
// would choose: the main fresh news feed; else the fresh Google News urlset
// (the urlset itself, not an index); else a plain sitemap; else the HTML
// news section. Around it are decoys a careless search would take: comment,
// section, podcast and stale feeds, feeds that robots.txt disallows, sitemap
// indexes, image and video sitemaps, dead Sitemap lines, JSON API links,
// "Sitemap" anchors to HTML pages, "Subscribe" anchors to paywalls. A
// publisher with language editions on hosts of its domain (de., fr., en.,
// each with its own home page, language and feed) has one seed per
// edition: Expect is the default edition's (in a language of the
// domain_id's country), [CatalogueEntry.Editions] the others', each with
// its [ExpectedSeed.Edition].
//
//	web.AddCatalogue(now)            // every entry's sites (apex, www., siblings)
//	for _, e := range simweb.Catalogue() {
//		sites := e.Sites(now)        // or one entry at a time
//		... run discovery for e.DomainID, compare with e.Expect
//	}
//
// Content is dated relative to now (the newest feed item is under 12 hours
// old, news sitemaps list the last 48 hours), so pass the clock the engine
// judges freshness by; for a fixed now the sites are identical on every
// call. Every site answers unknown paths with its own 404 page, every
// robots.txt allows "seedengine" to fetch the expected entry and the pages
// that lead to it, and a sensible search finds it within 40 requests. The
// entries were written from the real web, not from any search code: do not
// tune them to a strategy.
//
// # Publishers
//
// A [Publisher] publishes articles over time on a [Clock] and serves its
// [Publication]s (feeds, news sitemaps, daily sitemaps) as a window of the
// newest, with ETag and Last-Modified: evenly PerDay a day, or as its
// [Pattern] says (random arrivals, bursts of many articles within a
// minute, a morning edition). A publication can list oldest first, serve
// its older windows at ?paged=2, 3, … as WordPress does, or show the last
// MaxAge (a news sitemap's 48 hours). A clock runs at a speed against real
// time, or, made by [NewManualClock], stands still until the test moves it:
// a harness that reads every seed due and then moves the clock to the next
// due time measures the same on any machine.
//
// # Accounting
//
// [Web.Requests] counts the requests that reached the HTTP handler per host
// name, for request-budget assertions. DNS queries and failed handshakes are
// not requests. [Web.Observe] sees every request as it arrives (its Host
// with the port it was sent to).
package simweb
