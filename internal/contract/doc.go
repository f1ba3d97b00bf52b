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
// was spent is in the evidence. In order:
//
//  1. robots.txt at https://{domain}/robots.txt (http:// when https
//     gave no HTTP answer for a reason other than DNS; fetch.FetchRobots,
//     shared with the domain collector), following at most five redirects, read
//     with RFC 9309 semantics (internal/robots): 2xx parsed; 4xx allow
//     all; 5xx, 429 or no answer disallow all, and the run stops with
//     outcome robots_unavailable — retry later, no seed. More than five
//     redirects count as unavailable (allow all). The group for our agent
//     decides every later request: a candidate robots.txt disallows is
//     recorded with its verdict and never fetched. Crawl-delay is passed
//     to the fetcher (capped at Config.MaxCrawlDelay) and recorded.
//  2. The home page: its <link rel="alternate"> feeds, the HTTP Link
//     header, <a> links that look like feeds, and links to likely news
//     or press sections (internal/feed). Its final URL settles the origin
//     (apex or www.) later paths are tried on.
//  3. The feed candidates found, each fetched and parsed (gofeed) before
//     it counts: format, item count, newest and oldest item dates.
//     Comment feeds are dropped.
//  4. Sitemaps: the robots.txt Sitemap: lines, or else the known paths
//     (/sitemap.xml, /sitemap_index.xml, /sitemap-index.xml,
//     /sitemap.txt) until one answers; indexes are followed (children
//     whose URL says "news" first) down to Config.MaxSitemapDepth, at
//     most Config.MaxSitemapFetches documents, each URL once (the loop
//     guard); bodies are parsed as streams (internal/sitemap: gzip by
//     magic bytes, DOCTYPE refused). When no news sitemap and no fresh
//     feed is known, the news sitemap paths are tried.
//  5. Without a fresh news feed: the best section pages (they are the
//     HTML fallback, and their feed links are candidates), then the
//     well-known and CMS feed paths (Config.MaxWellKnown of them).
//
// A candidate not fetched says why: not_needed (a fresh feed was already
// found), robots_disallowed, budget_exhausted, deadline, depth_limit.
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
// may fetch the entry URL, the Crawl-delay and the best sitemap.
//
// # Batches
//
// [ChunkProcessor] runs a contract batch chunk: its domains are examined
// ChunkConcurrency at a time, each run's evidence is written to
// prod/contracts/{domain}/{time}.json, and each decision is recorded as a
// draft seed (seed_id {domain_id}::{content_type}) through
// seedengine.SeedService.RecordDraftSeed, which never overwrites a seed a
// person has promoted: it records the new contract as a proposed version
// instead. The batch result lists the seed ids created and refreshed, the
// seeds and domains skipped with their reasons, and per domain the requests
// and time spent.
package contract
