package contract

import (
	"time"

	"github.com/seedengine/seedengine"
)

// Candidate kinds.
const (
	KindFeed    = "feed"
	KindSitemap = "sitemap"
	KindSection = "section"
)

// Where a candidate was found (Candidate.Via).
const (
	ViaLinkAlternate = "link_alternate" // declared: <link rel="alternate"> on the home page
	ViaLinkHeader    = "link_header"    // declared: the home page's HTTP Link header
	ViaLinkSitemap   = "link_sitemap"   // declared: <link rel="sitemap"> on a page
	ViaAnchor        = "anchor"         // an <a> on the home page: feed-looking, a sitemap, "Subscribe"
	ViaSibling       = "sibling_host"   // an <a> to another host of the domain (rss., feeds., static.)
	ViaDirectory     = "directory_page" // listed on a page that lists feeds (a feed directory)
	ViaRobots        = "robots"         // a robots.txt Sitemap: line
	ViaSitemapIndex  = "sitemap_index"  // a child of a sitemap index
	ViaCMSPath       = "cms_path"       // a default path of the CMS the home page shows (Evidence.CMS)
	ViaKnownPath     = "known_path"     // a path publishers commonly use, named by nothing
	ViaHomePage      = "home_page"      // a section link of the home page
	ViaSection       = "section_page"   // found on a section page ("section_page:link_alternate", …)
)

// FormatDirectory is the Format of a feed candidate that answered with an
// HTML page listing two or more feeds; its Items counts them, and they are
// candidates with Via ViaDirectory and the page as Parent.
const FormatDirectory = "feed_directory"

// Robots verdicts of a candidate URL for our agent. A candidate on
// another host of the domain (rss.example.com) is judged by that host's
// robots.txt, read the first time the run goes there: until then, and
// for good when the run never does, its verdict is unchecked.
const (
	RobotsAllowed    = "allowed"
	RobotsDisallowed = "disallowed"
	RobotsUnchecked  = "unchecked"
)

// Reasons a candidate was not fetched.
const (
	SkipNotNeeded = "not_needed"       // a fresh news entry was already found
	SkipOverCap   = "over_cap"         // its group (feeds, sitemaps, sections, known paths) hit its cap first
	SkipBudget    = "budget_exhausted" // the domain's request budget was spent
	SkipDeadline  = "deadline"         // the domain's time was up
	SkipRobots    = "robots_disallowed"
	SkipSeen      = "already_fetched"
	SkipDepth     = "depth_limit" // a sitemap index nested deeper than the cap
)

// Evidence is everything one contract run learned about a domain. It is
// stored whole, as JSON, under prod/contracts/{domain}/{time}.json, and
// the seeds made from it point to that object.
type Evidence struct {
	DomainID   string    `json:"domain_id"`
	Domain     string    `json:"domain"`
	Agent      string    `json:"agent"`
	StartedAt  time.Time `json:"started_at"`
	FinishedAt time.Time `json:"finished_at"`
	// Spent is what the run used of its limits.
	Spent Spent `json:"spent"`
	// Site is the origin the run settled on (after the home page's
	// redirects), e.g. "https://www.example.gov.sg".
	Site   string         `json:"site,omitempty"`
	Robots RobotsEvidence `json:"robots"`
	// HostRobots are the robots.txt files of the domain's other hosts
	// (rss.example.com, feeds.example.com) the run went to, each read the
	// first time, in that order; each host's decides its own URLs.
	HostRobots []HostRobotsEvidence `json:"host_robots,omitempty"`
	// Language is the site's own language, its home page's <html lang>
	// (primary subtag); Editions are the publisher's editions in other
	// languages on other hosts of the domain, as its home page named them
	// (editions.go).
	Language string            `json:"language,omitempty"`
	Editions []EditionEvidence `json:"editions,omitempty"`
	Home     *PageEvidence     `json:"home,omitempty"`
	// CMS lists the content management systems the home page shows, the
	// most certain first; their default paths are tried (ViaCMSPath).
	CMS []CMSMatch `json:"cms,omitempty"`
	// Candidates lists every feed, sitemap and section candidate seen,
	// fetched or not, in the order they were found.
	Candidates []*Candidate `json:"candidates"`
	// Decisions are the chosen methods per content type, news first.
	Decisions []Decision `json:"decisions"`
	// Outcome is "seeded" when at least one decision was made, otherwise
	// the reason there is none (see Outcome* constants).
	Outcome string `json:"outcome"`
	Detail  string `json:"detail,omitempty"`
}

// Outcomes of a contract run.
const (
	OutcomeSeeded = "seeded"
	// OutcomeUnreachable: robots.txt and the home page could not be
	// fetched at all (DNS, connection, TLS failures).
	OutcomeUnreachable = "unreachable"
	// OutcomeRobotsUnavailable: robots.txt answered 5xx or 429, which
	// RFC 9309 reads as "disallow everything for now": retry later.
	OutcomeRobotsUnavailable = "robots_unavailable"
	// OutcomeNoCandidate: the site answered but nothing usable was found.
	OutcomeNoCandidate = "no_candidate"
	// OutcomeDeadline: the domain's time ran out before anything usable
	// was found.
	OutcomeDeadline = "deadline_reached"
)

// Spent is what a run used of its request budget and deadline.
type Spent struct {
	Requests    int   `json:"requests"`
	MaxRequests int   `json:"max_requests"`
	ElapsedMS   int64 `json:"elapsed_ms"`
	DeadlineMS  int64 `json:"deadline_ms"`
	// BudgetExhausted and DeadlineReached say a limit stopped the run
	// before it had looked at every candidate.
	BudgetExhausted bool `json:"budget_exhausted,omitempty"`
	DeadlineReached bool `json:"deadline_reached,omitempty"`
	// KnownPathsTried counts the known feed and sitemap paths requested
	// (they are candidates with Via known_path); KnownPathsLeft those
	// never requested, which the evidence does not list.
	KnownPathsTried int `json:"known_paths_tried"`
	KnownPathsLeft  int `json:"known_paths_left"`
}

// RobotsEvidence is what robots.txt said.
type RobotsEvidence struct {
	URL      string `json:"url"`
	FinalURL string `json:"final_url,omitempty"`
	Status   int    `json:"status"`
	// Result is "parsed" (2xx), "unavailable" (4xx: allow all) or
	// "unreachable" (5xx, 429 or no answer: disallow all).
	Result    string   `json:"result"`
	Error     string   `json:"error,omitempty"` // fetch failure reason
	Redirects int      `json:"redirects,omitempty"`
	Bytes     int      `json:"bytes"`
	Agents    []string `json:"agents,omitempty"` // user-agent lines of the group that applies to us
	Rules     int      `json:"rules"`
	// HomeAllowed says whether our agent may fetch the site's home page.
	HomeAllowed bool `json:"home_allowed"`
	// CrawlDelay is the group's Crawl-delay in seconds, 0 when none.
	CrawlDelay float64  `json:"crawl_delay,omitempty"`
	Sitemaps   []string `json:"sitemaps,omitempty"`
}

// HostRobotsEvidence is the robots.txt of another host of the domain,
// as the run read it: the same RFC 9309 reading as the domain's own
// (2xx parsed, 4xx allow all, 5xx, 429 or no answer disallow all).
type HostRobotsEvidence struct {
	Host       string  `json:"host"`
	URL        string  `json:"url"`
	FinalURL   string  `json:"final_url,omitempty"`
	Status     int     `json:"status"`
	Result     string  `json:"result"`
	Error      string  `json:"error,omitempty"`
	Rules      int     `json:"rules"`
	CrawlDelay float64 `json:"crawl_delay,omitempty"`
}

// CMSMatch is a recognised CMS and what gave it away.
type CMSMatch struct {
	Name     string `json:"name"`
	Evidence string `json:"evidence"`
}

// PageEvidence is one fetched HTML page.
type PageEvidence struct {
	URL         string `json:"url"`
	FinalURL    string `json:"final_url,omitempty"`
	Status      int    `json:"status"`
	ContentType string `json:"content_type,omitempty"`
	Error       string `json:"error,omitempty"`
	Robots      string `json:"robots"`
}

// Candidate is one possible way in: a feed, a sitemap or a section page.
type Candidate struct {
	Kind string `json:"kind"`
	URL  string `json:"url"`
	// Via says where it was found: one of the Via* constants.
	Via string `json:"via"`
	// Priority is the rank it was fetched by (higher first); see
	// docs/seeds.md for the order.
	Priority float64 `json:"priority"`
	Title    string  `json:"title,omitempty"`
	// Name is a feed's own title.
	Name string `json:"name,omitempty"`
	// ContentType is the kind of content the candidate carries ("news",
	// "press_release", "blog", …), guessed from its URL and title.
	ContentType string `json:"content_type"`
	// Edition is the language of the publisher's edition the candidate
	// belongs to, when it is on an edition's host; "" for the site's own.
	Edition string `json:"edition,omitempty"`
	Robots  string `json:"robots"`
	// Fetched is false when the candidate was not requested; Skipped
	// says why.
	Fetched  bool   `json:"fetched"`
	Skipped  string `json:"skipped,omitempty"`
	Status   int    `json:"status,omitempty"`
	FinalURL string `json:"final_url,omitempty"`
	MIMEType string `json:"mime_type,omitempty"`
	Error    string `json:"error,omitempty"`
	// Format is what the body turned out to be: rss, atom, json_feed,
	// urlset, sitemapindex, text, html.
	Format string `json:"format,omitempty"`
	// Items is a feed's item count or a sitemap's URL count (for an
	// index, the URLs of the children that were read).
	Items int `json:"items"`
	// NewsItems counts Google News entries of a sitemap.
	NewsItems int        `json:"news_items,omitempty"`
	Children  int        `json:"children,omitempty"` // entries of a sitemap index
	Newest    *time.Time `json:"newest,omitempty"`
	Oldest    *time.Time `json:"oldest,omitempty"`
	Gzip      bool       `json:"gzip,omitempty"`
	// Lastmod is the <lastmod> the parent index gave a child sitemap.
	Lastmod *time.Time `json:"lastmod,omitempty"`
	// OffSite counts a sitemap's entries on another domain.
	OffSite int `json:"off_site,omitempty"`
	// Parent is the index a child sitemap came from, or the page a feed
	// was listed on (a directory or section page).
	Parent string `json:"parent,omitempty"`
	Depth  int    `json:"depth,omitempty"`
	// Score ranks section pages.
	Score float64 `json:"score,omitempty"`
	// Preview is what a reviewer reads to judge the candidate: a feed's
	// newest items, a sitemap's newest entries (at most 5, newest first).
	Preview []PreviewItem `json:"preview,omitempty"`
}

// PreviewItem is one item of a feed or entry of a sitemap, as a preview
// shows it.
type PreviewItem struct {
	Title string     `json:"title,omitempty"`
	URL   string     `json:"url"`
	Date  *time.Time `json:"date,omitempty"`
}

// usable reports whether a fetched candidate produced content: a section
// page, a feed with items, a sitemap with URLs or children.
func (c *Candidate) usable() bool {
	if !c.Fetched || c.Error != "" || c.Status < 200 || c.Status > 299 {
		return false
	}
	switch c.Kind {
	case KindFeed:
		return c.Items > 0 && c.Format != FormatDirectory && c.Format != "html"
	case KindSitemap:
		return c.Items > 0 || c.Children > 0
	}
	return true
}

// Decision is the method chosen for one content type.
type Decision struct {
	ContentType string               `json:"content_type"`
	FetchType   seedengine.FetchType `json:"fetch_type"`
	EntryURL    string               `json:"entry_url"`
	Schedule    string               `json:"schedule"`
	Confidence  float64              `json:"confidence"`
	// Method names the winning candidate's kind and origin.
	Method string `json:"method"`
	// Why explains the choice in a sentence.
	Why          string            `json:"why"`
	CrawlAllowed bool              `json:"crawl_allowed"`
	Selectors    map[string]string `json:"selectors,omitempty"`
	// Archive is where the publisher keeps what scrolls out of a feed
	// entry (archive.go), ArchiveWhy how the run knows; nil when it found
	// none.
	Archive    *seedengine.PublisherArchive `json:"archive,omitempty"`
	ArchiveWhy string                       `json:"archive_why,omitempty"`
	// Edition is the publisher's edition the decision is for, when the
	// domain has editions in several languages (editions.go); nil when
	// it has one.
	Edition   *seedengine.SeedEdition `json:"edition,omitempty"`
	candidate *Candidate
}
