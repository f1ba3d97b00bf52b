// Package orchestrate holds the two library halves of seed orchestration
// (DESIGN §3): the file processor's domain extraction, run once per raw
// file (the SEED_QUEUE step), and the domain collector, run once per
// unique domain of a partition (the DOMAIN_QUEUE step), and the chunk
// processor that runs both as queue jobs ([ChunkProcessor]: the raw files'
// checkpoints, the domain chunks spawned in the transaction that records a
// file).
//
// # Extracting domains from a raw file
//
// [ExtractDomains] reads an EnhancedResearchDataset as a stream with
// seedengine.NewDatasetReader and returns its unique registrable domains in
// first-seen order. Memory follows the number of unique domains, not the
// size of the file: only the current record and the set of domains seen are
// held (BenchmarkExtractDomains20MB reports the peak).
//
// What fails the file and what only skips a record:
//
//   - The file is malformed, and ExtractDomains returns an EINVALID
//     *seedengine.Error whose Field locates the problem ("records[12]",
//     "meta.country") and whose Message repeats it, when: the JSON is
//     broken or ends early; a record, meta or unknown top-level member is
//     over seedengine.MaxDatasetValue; a known field has the wrong JSON
//     type; meta is missing; meta's country (any case), category or date
//     is not the partition's; meta.record_count differs from the records
//     read; or there are no records. These are the rules of
//     seedengine.ValidateDataset for the file as a whole: every chunk was
//     checked by them when it was saved, so a file that breaks them is
//     damaged or misplaced, and extracting domains from it would write
//     prod output under a partition it does not belong to. Errors of the
//     reader itself (the object store) are returned wrapped and are not
//     EINVALID, so the job retries them.
//   - A record whose domain cannot be derived is counted as bad, with a
//     reason, and skipped. The rules of ValidateDataset for single records
//     (raw_url required, a well-formed domain_id) are deliberately not
//     applied: one odd record should not lose a whole file.
//
// A record's domain is its domain_id's, when the domain_id parses
// (seedengine.ParseDomainID) and its registrable domain can name a prod
// directory (layout.ValidateDomain); otherwise raw_url goes through
// discover.Classifier.Analyze with the partition's country, and when that
// fails normalized_url does. The reason of a bad record is the discover
// reason code of raw_url (normalized_url's when raw_url is empty), or
// ReasonUnsupportedDomain when the URL gave a registrable domain that
// cannot be a key (an IPv6 literal).
//
// Records are de-duplicated by registrable domain; the first record of a
// domain decides its domain_id. Records = len(Domains) + Duplicates + Bad.
//
// # Collecting a domain
//
// [Collector.Collect] gathers the evidence of one domain for one partition
// and writes, under prod/country=…/category=…/date=…/{domain}/:
//
//	robots.txt                     the robots.txt body as fetched, when it answered 2xx
//	sitemap.xml                    the sitemap body as fetched, when it answered 2xx
//	domain_metadata.json           DomainMetadata, pretty-printed
//	domain_metadata.json.success   "{}", the checkpoint, written last
//
// When the checkpoint exists Collect returns at once with Skipped set
// (unless forced), so a domain found in several files of a partition is
// collected once. The steps:
//
//  1. robots.txt from https://{domain}/robots.txt, following up to 5
//     redirects; http://{domain}/robots.txt when https gave no HTTP answer
//     at all (refused, reset, TLS failure, timeout — not a DNS failure,
//     which http would repeat). The status is applied with RFC 9309
//     (robots.ForStatus): 2xx parsed, 4xx allow all, 5xx, 429 and no
//     answer disallow all; more than 5 redirects allow all. The group for
//     our agent gives the Crawl-delay, which is handed to the fetcher
//     (capped by CollectorConfig.MaxCrawlDelay) when it has SetCrawlDelay.
//  2. The news sitemap search, unless robots.txt is unreachable: the
//     contract run's search (internal/contract) in its sitemaps-only mode,
//     started from the robots.txt just fetched (not fetched again). It
//     ranks the robots.txt Sitemap: lines and the children of the indexes
//     it reads by how news-like their names are (and children by
//     lastmod), reads the <link rel="sitemap"> and sitemap anchors of the
//     home page, recognises the CMS and tries its news sitemap paths, then
//     the common news sitemap paths, and stops at the first fresh news
//     sitemap (then reads up to two general sitemaps if it has read
//     none). It is bounded by CollectorConfig.MaxSearchRequests (24 HTTP
//     exchanges, robots.txt's included) and SearchDeadline (20 s), within
//     Deadline. Its fetches go through the same Fetcher, so politeness and
//     robots.txt apply as to every other fetch. The news sitemap a contract
//     would name (contract.Evidence.NewsSitemap) is news_sitemap in the
//     metadata, with where it was found (via) and what the search spent
//     (news_sitemap.search); exists is false when there is none. It is not
//     stored as evidence.
//  3. The sitemap, only when robots.txt allows our agent to fetch it
//     (sitemaps on other hosts, which robots.txt may name, are not ours to
//     judge and are allowed). Candidates are the biggest top-level sitemap
//     the search read (contract.Evidence.SitemapURL) unless it is the news
//     sitemap, the first CollectorConfig.MaxSitemapCandidates (3) robots
//     Sitemap: lines in file order, /sitemap.xml on the site robots.txt
//     was served from, and last the news sitemap, each once. They are
//     tried in order until one answers 2xx; that one is the sitemap of the
//     metadata, stored as evidence and counted (fetched again: the search
//     keeps no bodies). So sitemap.url, sitemap.xml and url_count always
//     describe one document, the site's main sitemap where it has one. A
//     gzip file (sitemap.xml.gz) is stored as fetched, compressed, and
//     marked "gzip": true.
//  4. A sitemap index is counted through its children: the first
//     CollectorConfig.MaxSitemapChildren (10) children are fetched (depth
//     1: a child that is itself an index adds nothing) and url_count is the
//     sum of their entries, without de-duplication across children.
//     Children are not stored. sitemap.children is the number the index
//     lists, children_counted how many were read.
//
// Each document is parsed with internal/sitemap's default limits (50,000
// entries, 50 MiB decoded; "truncated": true when a document had more
// entries). The sitemap body is streamed: the fetcher's body goes through
// a tee into the store's Put and into the parser at once, so even a 50 MiB
// sitemap is never held whole.
//
// A failed or refused fetch is recorded in the metadata (status_code 0
// when no HTTP answer came, an "error" reason) and never fails Collect.
// Every fetch of one Collect shares CollectorConfig.Deadline (45 s, under
// River's default job timeout of one minute); when it runs out, the fetch
// in progress is recorded as failed with reason "canceled" (a search cut
// short ends with outcome deadline_reached) and the metadata is written
// anyway. Collect fails, so that the job is retried,
// when a store call fails or when the caller's ctx ends; it writes no
// checkpoint then. An invalid partition or domain is an EINVALID error,
// which retrying cannot fix.
//
// A run deletes the evidence it did not fetch (robots.txt now 404, a
// sitemap gone) before it writes domain_metadata.json, so after a forced
// rerun — or a run that failed after writing some evidence — the files of
// a domain directory describe one collection.
//
// A domain without a news sitemap costs the whole search: about 20
// requests where robots.txt and a sitemap were 2, so at one request per
// second per host a collection takes some 20 s instead of 2
// (BenchmarkCollectDomain counts the requests per layout).
//
// Log events (slog, key "event"): domain_collector_start,
// robots_fetched, news_sitemap_searched, sitemap_fetched and
// domain_collector_complete, each with the partition and the domain.
package orchestrate
