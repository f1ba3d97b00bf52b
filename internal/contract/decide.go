package contract

import (
	"bytes"
	"fmt"
	"math"
	"net/url"
	"sort"
	"strings"
	"time"

	"golang.org/x/net/html"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/feed"
)

// Confidences of the methods, before adjustments. They order the methods
// the way the issue asks — fresh feed > news sitemap > sitemap > HTML
// section — and say how much a person can trust the seed without looking.
const (
	confFeedDeclared = 0.95 // fresh feed the site declares (<link rel=alternate>, Link header)
	confFeedFound    = 0.9  // fresh feed found by links or well-known paths
	confNewsSitemap  = 0.8
	confSitemap      = 0.6
	confStaleFeed    = 0.45
	confSection      = 0.35
	confHome         = 0.2
	confBlocked      = 0.1
)

// decide chooses, per content type (news first), the best retrieval
// method among the evidence's usable candidates.
func decide(ev *Evidence, cfg Config) []Decision {
	if hasEditions(ev) || hasOtherDefault(ev) {
		return decideEditions(ev, cfg)
	}
	return decideOne(ev, cfg)
}

// decideOne makes the decisions of one edition's candidates (all of a
// domain's when it has one).
func decideOne(ev *Evidence, cfg Config) []Decision {
	if ev.Outcome == OutcomeUnreachable || ev.Outcome == OutcomeRobotsUnavailable {
		return []Decision{}
	}
	now := cfg.Now()
	types := contentTypes(ev)
	out := []Decision{}
	for _, ct := range types {
		if d, ok := decideFor(ev, ct, now, cfg); ok {
			out = append(out, d)
		}
	}
	if len(out) == 0 {
		// Only a domain with nothing better gets its home page: a site
		// whose one feed is its press releases is seeded by that feed.
		if d, ok := fallbackNews(ev); ok {
			out = append(out, d)
		}
	}
	return out
}

// contentTypes lists the content types of usable candidates, news first,
// then by name.
func contentTypes(ev *Evidence) []string {
	set := map[string]bool{}
	for _, c := range ev.Candidates {
		if c.usable() && c.ContentType != "" {
			set[c.ContentType] = true
		}
	}
	var rest []string
	for ct := range set {
		if ct != seedengine.ContentTypeNews {
			rest = append(rest, ct)
		}
	}
	sort.Strings(rest)
	if set[seedengine.ContentTypeNews] {
		return append([]string{seedengine.ContentTypeNews}, rest...)
	}
	return rest
}

// decideFor picks the candidate of content type ct that goes first in
// decide's order (prefer), the first found among equals. A plain sitemap
// that is a child of an index is read through its index, never named
// alone.
func decideFor(ev *Evidence, ct string, now time.Time, cfg Config) (Decision, bool) {
	var best *Candidate
	var bm method
	for _, c := range ev.Candidates {
		if c.ContentType != ct {
			continue
		}
		m := classify(ev, c, now, cfg.FreshWithin)
		if m == methodNone || (m == methodSitemap && c.Parent != "") {
			continue
		}
		if best == nil {
			best, bm = c, m
		} else if n, _ := prefer(c, m, best, bm); n > 0 {
			best, bm = c, m
		}
	}
	if best == nil {
		return Decision{}, false
	}
	d := decision(ct, best, bm, now, cfg.FreshWithin)
	d.Why = decidedWhy[bm] + d.Why
	return d, true
}

// method is how a candidate would be read as a seed's entry. Methods go
// in decide's order of preference, the best first.
type method int

const (
	methodNone        method = iota // it cannot be an entry
	methodFreshFeed                 // a feed whose newest item is within Config.FreshWithin
	methodNewsSitemap               // a sitemap (not an index) with Google News entries
	methodSitemap                   // any other sitemap
	methodStaleFeed                 // a feed without a recent item
	methodSection                   // an HTML section page with article links
)

// decidedWhy is how decide's Why begins for the method that won: why
// nothing better was taken.
var decidedWhy = map[method]string{
	methodNewsSitemap: "no fresh feed; ",
	methodSitemap:     "no fresh feed or news sitemap; ",
	methodStaleFeed:   "only a ",
	methodSection:     "no feed or sitemap; ",
}

// classify says how c would be read as an entry: methodNone unless it was
// fetched, answered with content of its kind, is allowed by robots.txt
// and is justified as the domain's (see justified).
func classify(ev *Evidence, c *Candidate, now time.Time, freshWithin time.Duration) method {
	if !c.usable() || c.Robots != RobotsAllowed || !justified(ev, c) {
		return methodNone
	}
	switch c.Kind {
	case KindFeed:
		if c.Newest != nil && now.Sub(*c.Newest) <= freshWithin {
			return methodFreshFeed
		}
		return methodStaleFeed
	case KindSitemap:
		if c.NewsItems > 0 && c.Format != "sitemapindex" {
			return methodNewsSitemap
		}
		return methodSitemap
	case KindSection:
		if c.Format == "html" && c.Items > 0 {
			return methodSection
		}
	}
	return methodNone
}

// criterion is the rule of decide's order that sets two candidates apart.
type criterion int

const (
	byNone     criterion = iota // nothing: the one found first goes first
	byMethod                    // fresh feed, news sitemap, sitemap, stale feed, section
	byOrigin                    // feeds: declared by the site, then linked, then guessed paths
	byMainFeed                  // feeds: the whole site's feed over a section's (feed.MainScore)
	byNewest                    // feeds and news sitemaps: the most recent item
	byItems                     // feeds (as recent) and sitemaps: the most items or URLs
	byTopLevel                  // sitemaps: a top-level one over a child of an index
	byScore                     // section pages: the highest score
)

// prefer compares two candidates that can be entries, read by ma and mb,
// in decide's order: above 0 when a goes before b, below 0 when after, 0
// when no rule sets them apart; and the rule that decided. Feeds the site
// declares go before those its pages link, then the CMS's and known
// paths; among those, the feed of the whole site before a section's, then
// the most recent, then the biggest.
func prefer(a *Candidate, ma method, b *Candidate, mb method) (int, criterion) {
	if ma != mb {
		return cmpInt(int(mb), int(ma)), byMethod
	}
	switch ma {
	case methodFreshFeed, methodStaleFeed:
		if oa, ob := feedOrigin(a), feedOrigin(b); oa != ob {
			return cmpInt(ob, oa), byOrigin
		}
		if sa, sb := mainFeed(a), mainFeed(b); sa != sb {
			return cmpInt(sa, sb), byMainFeed
		}
		if n := cmpNewest(a.Newest, b.Newest); n != 0 {
			return n, byNewest
		}
		if a.Items != b.Items {
			return cmpInt(a.Items, b.Items), byItems
		}
	case methodNewsSitemap:
		if n := cmpNewest(a.Newest, b.Newest); n != 0 {
			return n, byNewest
		}
	case methodSitemap:
		if ta, tb := a.Parent == "", b.Parent == ""; ta != tb {
			if ta {
				return 1, byTopLevel
			}
			return -1, byTopLevel
		}
		if a.Items != b.Items {
			return cmpInt(a.Items, b.Items), byItems
		}
	case methodSection:
		if a.Score != b.Score {
			if a.Score > b.Score {
				return 1, byScore
			}
			return -1, byScore
		}
	}
	return 0, byNone
}

// Origins of a feed, the most trusted first.
const (
	originDeclared = iota // <link rel="alternate">, the Link header
	originLinked          // an <a> of a page, a directory page, a section page, a sibling host
	originGuessed         // the CMS's default paths, known paths
)

func feedOrigin(c *Candidate) int {
	switch {
	case c.Via == ViaLinkAlternate || c.Via == ViaLinkHeader:
		return originDeclared
	case strings.HasPrefix(c.Via, ViaSection), c.Via == ViaAnchor, c.Via == ViaDirectory, c.Via == ViaSibling:
		return originLinked
	}
	return originGuessed
}

// mainFeed rates how much a feed looks like the whole site's, in coarse
// steps, so that small differences leave the choice to freshness.
func mainFeed(c *Candidate) int {
	return int(math.Round(feed.MainScore(c.URL, c.Name+" "+c.Title) * 2))
}

func cmpInt(a, b int) int {
	switch {
	case a > b:
		return 1
	case a < b:
		return -1
	}
	return 0
}

// cmpNewest compares two newest-item times, an unknown one the oldest.
func cmpNewest(a, b *time.Time) int {
	switch {
	case after(a, b):
		return 1
	case after(b, a):
		return -1
	}
	return 0
}

// decision is the Decision that makes c, read by m, the entry of ct's
// seed: decide and Choose both build theirs here, so that a reviewer's
// choice gets the fetch type, schedule and confidence the run would have
// given it. Why describes the candidate; each caller says in front of it
// why it was chosen.
func decision(ct string, c *Candidate, m method, now time.Time, freshWithin time.Duration) Decision {
	var d Decision
	switch m {
	case methodFreshFeed:
		conf := confFeedFound
		if c.Via == ViaLinkAlternate || c.Via == ViaLinkHeader {
			conf = confFeedDeclared
		}
		d = feedDecision(ct, c, conf, fmt.Sprintf("fresh %s feed with %d items, newest %s", c.Format, c.Items, c.Newest.Format(time.RFC3339)))
	case methodNewsSitemap:
		conf := confNewsSitemap
		if c.Newest != nil && now.Sub(*c.Newest) <= 48*time.Hour {
			conf += 0.05
		}
		d = Decision{ContentType: ct, FetchType: seedengine.FetchNewsSitemap, EntryURL: entry(c), Schedule: "*/30 * * * *",
			Confidence: conf, Method: "news_sitemap via " + c.Via, candidate: c, CrawlAllowed: true,
			Why: fmt.Sprintf("Google News sitemap with %d news entries", c.NewsItems)}
	case methodSitemap:
		conf := confSitemap
		if c.Newest != nil && now.Sub(*c.Newest) <= freshWithin {
			conf += 0.05
		}
		d = Decision{ContentType: ct, FetchType: seedengine.FetchSitemap, EntryURL: entry(c), Schedule: "0 */6 * * *",
			Confidence: conf, Method: c.Format + " via " + c.Via, candidate: c, CrawlAllowed: true,
			Why: fmt.Sprintf("%s with %d URLs", c.Format, c.Items)}
	case methodStaleFeed:
		why := fmt.Sprintf("stale %s feed (%d items", c.Format, c.Items)
		if c.Newest != nil {
			why += ", newest " + c.Newest.Format(time.RFC3339)
		}
		d = feedDecision(ct, c, confStaleFeed, why+")")
		d.Schedule = "0 6 * * *"
	case methodSection:
		d = Decision{ContentType: ct, FetchType: seedengine.FetchHTML, EntryURL: entry(c), Schedule: "0 */6 * * *",
			Confidence: confSection, Method: "html section via " + c.Via, candidate: c, CrawlAllowed: true,
			Selectors: sectionSelectors(entry(c)),
			Why:       fmt.Sprintf("section page with %d article links", c.Items)}
	}
	d.Confidence = math.Round(d.Confidence*100) / 100
	return d
}

// fallbackNews is the news decision when no candidate was usable: the
// home page as an HTML seed, marked not allowed when robots.txt forbids
// us — a domain that shuts us out still gets a seed that says so.
func fallbackNews(ev *Evidence) (Decision, bool) {
	if ev.Site == "" || ev.Home == nil {
		return Decision{}, false
	}
	home := ev.Home.URL
	if ev.Home.FinalURL != "" {
		home = ev.Home.FinalURL
	}
	if !ev.Robots.HomeAllowed {
		return Decision{ContentType: seedengine.ContentTypeNews, FetchType: seedengine.FetchHTML, EntryURL: home, Schedule: "0 6 * * *",
			Confidence: confBlocked, Method: "robots_disallowed", CrawlAllowed: false,
			Why: "robots.txt disallows our agent; nothing was fetched beyond it"}, true
	}
	if ev.Home.Status >= 200 && ev.Home.Status < 300 && ev.Home.Error == "" {
		return Decision{ContentType: seedengine.ContentTypeNews, FetchType: seedengine.FetchHTML, EntryURL: home, Schedule: "0 6 * * *",
			Confidence: confHome, Method: "html home page", CrawlAllowed: true,
			Why: "no feed, sitemap or section page was found; only the home page answered"}, true
	}
	return Decision{}, false
}

func feedDecision(ct string, c *Candidate, conf float64, why string) Decision {
	ft := seedengine.FetchRSS
	switch c.Format {
	case "atom":
		ft = seedengine.FetchAtom
	case "json_feed":
		ft = seedengine.FetchJSONFeed
	}
	return Decision{ContentType: ct, FetchType: ft, EntryURL: entry(c), Schedule: cadenceSchedule(c), Confidence: conf,
		Method: c.Format + " via " + c.Via, Why: why, CrawlAllowed: true, candidate: c}
}

// entry is where a fetcher should go: the candidate's final URL when its
// redirects stayed on the site, else the URL as found.
func entry(c *Candidate) string {
	if c.FinalURL != "" {
		return c.FinalURL
	}
	return c.URL
}

func after(a, b *time.Time) bool { return a != nil && (b == nil || a.After(*b)) }

// cadenceSchedule reads how often a feed publishes from its items' dates
// and polls a few times per new item.
func cadenceSchedule(c *Candidate) string {
	if c.Newest == nil || c.Oldest == nil || c.Items < 2 {
		return "0 * * * *"
	}
	every := c.Newest.Sub(*c.Oldest) / time.Duration(c.Items-1)
	switch {
	case every <= time.Hour:
		return "*/15 * * * *"
	case every <= 6*time.Hour:
		return "0 * * * *"
	case every <= 24*time.Hour:
		return "0 */3 * * *"
	case every <= 7*24*time.Hour:
		return "0 */12 * * *"
	}
	return "0 6 * * *"
}

// bestSitemap is the sitemap a seed's policy names: the biggest usable
// top-level sitemap, else the freshest news sitemap. Only sitemaps that
// were fetched and read count, and only those of the site itself or
// whose entries are mostly on it: a robots.txt line the fetcher refused
// (an internal address) or that answered nothing stays in the evidence
// with its reason and never reaches a seed.
func bestSitemap(ev *Evidence) string {
	var news, top *Candidate
	for _, c := range ev.Candidates {
		if c.Kind != KindSitemap || !c.usable() || c.Robots != RobotsAllowed || !justified(ev, c) {
			continue
		}
		general := c.Format == "sitemapindex" || c.NewsItems == 0
		if !general && (news == nil || after(c.Newest, news.Newest)) {
			news = c
		}
		if general && c.Parent == "" && (top == nil || c.Items+c.Children > top.Items+top.Children) {
			top = c
		}
	}
	switch {
	case top != nil:
		return entry(top)
	case news != nil:
		return entry(news)
	}
	return ""
}

// justified reports whether the evidence backs a fetched candidate as
// part of the domain's contract: its entry URL is on the domain, or it is
// a sitemap whose entries are mostly on the domain (a sitemap hosted on a
// CDN of another name), or a feed a page of the site linked.
func justified(ev *Evidence, c *Candidate) bool {
	if sameSite(hostOf(entry(c)), ev.Domain) {
		return true
	}
	switch c.Kind {
	case KindSitemap:
		return c.Items+c.Children > 0 && c.OffSite*2 < c.Items+c.Children
	case KindFeed:
		return c.Via != ViaKnownPath && c.Via != ViaCMSPath
	}
	return false
}

func hostOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	return u.Hostname()
}

// sectionSelectors suggests how to read an HTML section: the links under
// the section's path are its articles.
func sectionSelectors(entryURL string) map[string]string {
	u, err := url.Parse(entryURL)
	if err != nil || u.Path == "" || u.Path == "/" {
		return map[string]string{"link": "a[href]"}
	}
	p := strings.TrimSuffix(u.Path, "/") + "/"
	return map[string]string{"link": `a[href*="` + p + `"]`}
}

// articleLinks counts the distinct links of an HTML page that lead below
// the page's own path: on a section page, its articles.
func articleLinks(body []byte, pageURL string) int {
	base, err := url.Parse(pageURL)
	if err != nil {
		return 0
	}
	prefix := strings.TrimSuffix(base.Path, "/") + "/"
	seen := map[string]bool{}
	z := html.NewTokenizer(bytes.NewReader(body))
	for {
		switch z.Next() {
		case html.ErrorToken:
			return len(seen)
		case html.StartTagToken, html.SelfClosingTagToken:
			name, hasAttr := z.TagName()
			if string(name) != "a" || !hasAttr {
				continue
			}
			for {
				k, v, more := z.TagAttr()
				if string(k) == "href" {
					if u, err := base.Parse(string(v)); err == nil && u.Host == base.Host &&
						strings.HasPrefix(u.Path, prefix) && len(u.Path) > len(prefix) {
						seen[u.Path] = true
					}
				}
				if !more {
					break
				}
			}
		}
	}
}

// NewsSitemap returns the freshest news sitemap the run read that a
// contract may name (fetched, parsed with news entries, allowed by
// robots.txt, of the site itself), or nil.
func (ev *Evidence) NewsSitemap() *Candidate {
	var best *Candidate
	for _, c := range ev.Candidates {
		if c.Kind != KindSitemap || !c.usable() || c.NewsItems == 0 || c.Format == "sitemapindex" ||
			c.Robots != RobotsAllowed || !justified(ev, c) {
			continue
		}
		if best == nil || after(c.Newest, best.Newest) {
			best = c
		}
	}
	return best
}

// SitemapURL returns the sitemap a seed's policy names: the biggest
// top-level sitemap the run read, else its news sitemap; "" when it read
// none.
func (ev *Evidence) SitemapURL() string { return bestSitemap(ev) }

// EntryURL is where a fetcher should go for the candidate: its final URL
// after redirects, else the URL as found.
func (c *Candidate) EntryURL() string { return entry(c) }
