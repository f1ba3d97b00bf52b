// Package contract turns what a domain publishes — robots.txt, sitemaps,
// feeds, section pages — into retrieval contracts: draft seeds with the
// evidence they rest on (DESIGN §1, §7).
//
// # A contract run
//
// [Discoverer.Discover] examines one registrable domain through the one
// outbound client (internal/fetch), within hard limits: at most
// Config.MaxRequests HTTP exchanges (default 40; every redirect hop and
// Retry-After retry counts, enforced by the fetch's Admit hook so no
// request is ever sent past it) and Config.Deadline (default 30 s). What
// was spent is in the evidence.
//
// The run is a search over candidates, each with a priority (how likely
// it is the site's news entry; see priority.go and docs/seeds.md): the
// candidate of highest priority is fetched next, and what it teaches
// adds candidates. It ends once a fresh news feed or a fresh Google News
// sitemap is known (with Config.SitemapsOnly: a fresh news sitemap), when
// nothing is left, or at a limit. In order of discovery:
//
//  1. robots.txt at https://{domain}/robots.txt (http:// when https
//     gave no HTTP answer for a reason other than DNS; fetch.FetchRobots,
//     shared with the domain collector, which may hand its own result to
//     [Discoverer.DiscoverWithRobots]), following at most five redirects,
//     read with RFC 9309 semantics (internal/robots): 2xx parsed; 4xx
//     allow all; 5xx, 429 or no answer disallow all, and the run stops
//     with outcome robots_unavailable — retry later, no seed. More than
//     five redirects count as unavailable (allow all). The group for our
//     agent decides every later request: a candidate robots.txt disallows
//     is recorded with its verdict and never fetched. Crawl-delay is
//     passed to the fetcher (capped at Config.MaxCrawlDelay) and recorded.
//     It governs the domain and its www. twin; another host of the domain
//     (rss., feeds.) is governed by its own robots.txt, read the first
//     time the run goes there (Evidence.HostRobots; a candidate there is
//     RobotsUnchecked until then).
//     Its Sitemap: lines become candidates ranked by how news-like their
//     names are (sitemap.NewsScore), whatever their line.
//  2. The home page: its <link rel="alternate"> feeds and HTTP Link
//     header (declared), <a> links that look like feeds or feed
//     directories, <link rel="sitemap"> and sitemap anchors, subscription
//     links, links to likely news or press sections (internal/feed), and
//     the CMS its markup shows (internal/cms), whose default feed and
//     news sitemap paths become candidates. Links to other hosts of the
//     domain are sibling_host candidates. Its final URL settles the
//     origin (apex or www.) later paths are tried on.
//  3. The known feed and news sitemap paths publishers use (feed.
//     WellKnownPaths, sitemap.KnownNewsPaths), interleaved, most common
//     first, at most Config.MaxKnownPaths of them; they rank below
//     everything a page or robots.txt named.
//
// Fetching teaches more: a feed candidate that answers with an HTML page
// listing feeds — one or many: links that look like feeds, its links to
// feed-type files of the domain, its subscription links wherever they
// lead — is a feed directory (its feeds become candidates, the site's
// main feed first by feed.MainScore); a sitemap
// index's children become candidates, the most news-like and freshest
// first (at most Config.MaxIndexChildren, down to Config.MaxSitemapDepth);
// a section page's feeds and sitemaps become candidates and the page is
// the HTML fallback. Bodies are parsed as they are fetched: feeds with
// gofeed, sitemaps as streams (internal/sitemap: gzip by magic bytes,
// DOCTYPE refused). Each group has a cap (Config.MaxFeedFetches,
// MaxSitemapFetches, MaxSections, MaxKnownPaths); the CMS's own paths
// have none. Once the search ends, the declared feeds of other content
// types are read, and a top-level sitemap for the seed's policy when none
// was read.
//
// Every candidate says where it came from (Via: link_alternate,
// link_header, link_sitemap, anchor, sibling_host, directory_page,
// robots, sitemap_index, cms_path, known_path, home_page, section_page,
// edition_home: a feed an edition's home page links; one it declares is
// link_alternate, with the candidate's edition)
// and, when not fetched, why: not_needed (a fresh news entry was already
// found), over_cap (its group's cap), robots_disallowed,
// budget_exhausted, deadline, depth_limit, already_fetched, low_score.
//
// # The decision
//
// Per content type — news first, then others such as press_release that
// candidates' URLs and titles reveal — the best usable candidate wins:
//
//	fresh feed (newest item within 30 days)  0.95 declared by the site, 0.9 found
//	Google News sitemap                      0.8, 0.85 when updated within 48 h
//	sitemap (urlset, index, text)            0.6, 0.65 when updated within 30 days
//	stale feed                               0.45
//	HTML section page with article links     0.35
//	the home page, nothing else found        0.2
//	robots.txt forbids us                    0.1, crawl_allowed false
//
// A feed's schedule follows its publishing cadence (every 15 minutes for
// feeds that publish hourly, daily for those that publish weekly or less);
// news sitemaps are read every 30 minutes, sitemaps and sections every
// 6 hours. The seed's policy records the robots.txt URL, whether our agent
// may fetch the entry URL, the Crawl-delay and the best sitemap read.
//
// Only what the run fetched and read may enter a contract: a URL the
// fetcher refused (an internal address named in robots.txt), one that
// answered nothing usable, or one on another registrable domain that the
// evidence does not justify (a sitemap whose entries are mostly elsewhere;
// a guessed path that redirected away) stays in the evidence with its
// reason and never reaches a seed's entry or policy. A domain gets a
// home-page seed (0.2) only when nothing else was usable.
//
// # Batches
//
// [ChunkProcessor] runs a contract batch chunk: its domains are examined
// ChunkConcurrency at a time, each run's evidence is written to an object
// of its own, prod/contracts/{domain}/{time}-{run}.json (the run id keeps
// runs of one domain in one second apart; written with PutIfAbsent), and
// each decision is recorded as a draft seed (seed_id
// {domain_id}::{content_type}) through
// seedengine.SeedService.RecordDraftSeed, which never overwrites a seed a
// person has promoted: it records the new contract as a proposed version
// instead. The batch result lists the seed ids created and refreshed, the
// seeds and domains skipped with their reasons, and per domain the requests
// and time spent.
package contract
