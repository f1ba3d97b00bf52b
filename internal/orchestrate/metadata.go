package orchestrate

import (
	"time"
)

// DomainMetadata is domain_metadata.json (DESIGN §5): what the collector
// learnt about one domain for one partition. The fields of DESIGN §5 are
// always written (a time not known is null); the others are additions
// that explain the outcome and are left out when empty.
type DomainMetadata struct {
	DomainID          string `json:"domain_id"`
	RegistrableDomain string `json:"registrable_domain"`
	// Country is upper case (SG), as meta.country in datasets.
	Country  string `json:"country"`
	Category string `json:"category"`
	// Date is the partition's date; an addition to DESIGN §5.
	Date        string          `json:"date"`
	CollectedAt time.Time       `json:"collected_at"`
	Robots      RobotsMetadata  `json:"robots"`
	Sitemap     SitemapMetadata `json:"sitemap"`
	// NewsSitemap is the Google News sitemap the search found; an
	// addition to DESIGN §5, always written (exists:false when none).
	NewsSitemap NewsSitemapMetadata `json:"news_sitemap"`
	Source      SourceMetadata      `json:"source"`
}

// RobotsMetadata is what robots.txt said.
type RobotsMetadata struct {
	// StatusCode is the final HTTP status, 0 when no HTTP answer came.
	StatusCode int `json:"status_code"`
	// ContentLength is the number of body bytes read (decoded), 0 unless
	// the answer was 2xx.
	ContentLength int64 `json:"content_length"`
	// Exists is true when robots.txt answered 2xx.
	Exists bool `json:"exists"`
	// FetchedAt is when the (last) fetch started; null when none was made.
	FetchedAt *time.Time `json:"fetched_at"`
	// SitemapURLs are the Sitemap: lines, resolved and de-duplicated, in
	// file order; [] when there are none.
	SitemapURLs []string `json:"sitemap_urls"`
	// CrawlDelay is the Crawl-delay of the group for our agent in seconds,
	// as written (not capped); null when there is none.
	CrawlDelay *float64 `json:"crawl_delay"`

	// URL is the robots.txt URL asked for last (https, or http after a
	// fallback) and FinalURL where its redirects ended.
	URL      string `json:"url,omitempty"`
	FinalURL string `json:"final_url,omitempty"`
	// Result is the RFC 9309 reading: parsed, unavailable (allow all) or
	// unreachable (disallow all).
	Result string `json:"result"`
	// Truncated says the body went past the fetcher's robots cap (512 KiB).
	Truncated bool `json:"truncated,omitempty"`
	// Error is the fetch failure reason (fetch.Reason* codes) when no
	// answer was read.
	Error string `json:"error,omitempty"`
}

// SitemapMetadata is what the sitemap said.
type SitemapMetadata struct {
	// StatusCode is the final HTTP status of the sitemap chosen (or of the
	// last candidate tried), 0 when no HTTP answer came or none was tried.
	StatusCode int `json:"status_code"`
	// ContentLength is the number of body bytes stored as evidence
	// (decoded of any Content-Encoding; a .gz file stays compressed).
	ContentLength int64 `json:"content_length"`
	// Exists is true when a 2xx answer parsed as a sitemap (urlset,
	// index, text, RSS or Atom).
	Exists bool `json:"exists"`
	// FetchedAt is when the fetch of URL started; null when none was made.
	FetchedAt *time.Time `json:"fetched_at"`
	// URLCount is the number of URL entries counted: of the document, or
	// for an index the sum over the children read.
	URLCount int `json:"url_count"`
	// URL is the sitemap chosen (or the last candidate tried); "" when
	// none was tried.
	URL string `json:"url"`

	// FinalURL is where URL's redirects ended.
	FinalURL string `json:"final_url,omitempty"`
	// Type is the document type: urlset, sitemapindex, text, rss, atom.
	Type string `json:"type,omitempty"`
	// Gzip says the document was a gzip file (stored compressed).
	Gzip bool `json:"gzip,omitempty"`
	// Candidates is the number of candidate URLs tried.
	Candidates int `json:"candidates,omitempty"`
	// Children is the number of child sitemaps an index lists;
	// ChildrenCounted how many of them were read and counted,
	// ChildrenFailed how many of those could not be read or parsed.
	Children        int `json:"children,omitempty"`
	ChildrenCounted int `json:"children_counted,omitempty"`
	ChildrenFailed  int `json:"children_failed,omitempty"`
	// Truncated says a document had more entries than were counted.
	Truncated bool `json:"truncated,omitempty"`
	// Error says why there is no sitemap or why it was not read whole:
	// a fetch.Reason* code, "disallowed_by_robots", "robots_unreachable",
	// "http_status" (the candidate answered non-2xx), "not_a_sitemap",
	// "doctype_refused", "too_large" or "parse_error".
	Error string `json:"error,omitempty"`
}

// NewsSitemapMetadata is the news sitemap the search found: the one a
// contract run would name (contract.Evidence.NewsSitemap), a sitemap with
// Google News entries that robots.txt lets us read, of the site itself.
type NewsSitemapMetadata struct {
	// Exists is true when a news sitemap was found; the fields below
	// Search are then set.
	Exists bool `json:"exists"`
	// URL is the news sitemap as found; "" when none was.
	URL string `json:"url"`
	// FinalURL is where URL's redirects ended, when elsewhere.
	FinalURL string `json:"final_url,omitempty"`
	// Via says where the search found it: robots (a Sitemap: line),
	// sitemap_index (a child of Parent), link_sitemap, anchor (links of
	// the home page), sibling_host (a link to another host of the
	// domain), cms_path (a path of the CMS in Search.CMS) or known_path
	// (a common path nothing named).
	Via    string `json:"via,omitempty"`
	Parent string `json:"parent,omitempty"`
	// StatusCode is the final HTTP status, 0 when none was found.
	StatusCode int `json:"status_code"`
	// NewsItems counts its Google News entries.
	NewsItems int `json:"news_items"`
	// Newest is its newest entry's date (publication date or lastmod);
	// null when none is dated or none was found.
	Newest *time.Time `json:"newest"`
	// FetchedAt is when the search's fetch of URL started; null when none
	// was found.
	FetchedAt *time.Time `json:"fetched_at"`
	// Search is what the search spent.
	Search SearchMetadata `json:"search"`
}

// SearchMetadata is what the news sitemap search spent and how it ended.
type SearchMetadata struct {
	// Requests counts its HTTP exchanges, redirect hops and the
	// robots.txt fetch included (they count against MaxRequests);
	// MaxRequests is CollectorConfig.MaxSearchRequests.
	Requests    int   `json:"requests"`
	MaxRequests int   `json:"max_requests"`
	ElapsedMS   int64 `json:"elapsed_ms"`
	// SitemapsRead counts the sitemap documents requested.
	SitemapsRead int `json:"sitemaps_read"`
	// CMS names the content management systems the home page shows,
	// whose paths were tried; [] when none.
	CMS []string `json:"cms"`
	// Outcome is one of the Search* constants.
	Outcome string `json:"outcome"`
}

// SourceMetadata names the raw file the domain was collected for (the
// first one, when the domain is in several files of the partition).
type SourceMetadata struct {
	RawFilePath string `json:"raw_file_path"`
}

// Reasons of SitemapMetadata.Error besides fetch's Reason* codes. They are
// stored, so they never change.
const (
	SitemapDisallowed        = "disallowed_by_robots" // robots.txt disallows our agent the sitemap
	SitemapRobotsUnreachable = "robots_unreachable"   // robots.txt answered 5xx/429 or not at all: RFC 9309 disallows everything
	SitemapHTTPStatus        = "http_status"          // a status other than 2xx; StatusCode says which
	SitemapNotASitemap       = "not_a_sitemap"        // a 2xx answer that is not a sitemap (an HTML page)
	SitemapDoctype           = "doctype_refused"      // XML with a DOCTYPE or ENTITY declaration, refused unread
	SitemapTooLarge          = "too_large"            // over 50 MiB decoded
	SitemapParseError        = "parse_error"          // malformed XML; what came before counts
)
