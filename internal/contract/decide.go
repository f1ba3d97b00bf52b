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
	if ev.Outcome == OutcomeUnreachable || ev.Outcome == OutcomeRobotsUnavailable {
		return []Decision{}
	}
	now := cfg.Now()
	types := contentTypes(ev)
	out := []Decision{}
	for _, ct := range types {
		if d, ok := decideFor(ev, ct, now, cfg); ok {
			d.Confidence = math.Round(d.Confidence*100) / 100
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

func decideFor(ev *Evidence, ct string, now time.Time, cfg Config) (Decision, bool) {
	var feeds, stale, news, maps, sections []*Candidate
	for _, c := range ev.Candidates {
		if c.ContentType != ct || !c.usable() || c.Robots != RobotsAllowed || !justified(ev, c) {
			continue
		}
		switch c.Kind {
		case KindFeed:
			if c.Newest != nil && now.Sub(*c.Newest) <= cfg.FreshWithin {
				feeds = append(feeds, c)
			} else {
				stale = append(stale, c)
			}
		case KindSitemap:
			if c.NewsItems > 0 && c.Format != string("sitemapindex") {
				news = append(news, c)
			} else if c.Parent == "" {
				maps = append(maps, c)
			}
		case KindSection:
			if c.Format == "html" && c.Items > 0 {
				sections = append(sections, c)
			}
		}
	}
	switch {
	case len(feeds) > 0:
		c := bestFeed(feeds)
		conf := confFeedFound
		if c.Via == ViaLinkAlternate || c.Via == ViaLinkHeader {
			conf = confFeedDeclared
		}
		return feedDecision(ct, c, conf, fmt.Sprintf("fresh %s feed with %d items, newest %s", c.Format, c.Items, c.Newest.Format(time.RFC3339))), true
	case len(news) > 0:
		c := newest(news)
		conf := confNewsSitemap
		if c.Newest != nil && now.Sub(*c.Newest) <= 48*time.Hour {
			conf += 0.05
		}
		return Decision{ContentType: ct, FetchType: seedengine.FetchNewsSitemap, EntryURL: entry(c), Schedule: "*/30 * * * *",
			Confidence: conf, Method: "news_sitemap via " + c.Via, candidate: c, CrawlAllowed: true,
			Why: fmt.Sprintf("no fresh feed; Google News sitemap with %d news entries", c.NewsItems)}, true
	case len(maps) > 0:
		c := largest(maps)
		conf := confSitemap
		if c.Newest != nil && now.Sub(*c.Newest) <= cfg.FreshWithin {
			conf += 0.05
		}
		return Decision{ContentType: ct, FetchType: seedengine.FetchSitemap, EntryURL: entry(c), Schedule: "0 */6 * * *",
			Confidence: conf, Method: c.Format + " via " + c.Via, candidate: c, CrawlAllowed: true,
			Why: fmt.Sprintf("no fresh feed or news sitemap; %s with %d URLs", c.Format, c.Items)}, true
	case len(stale) > 0:
		c := bestFeed(stale)
		why := fmt.Sprintf("only a stale %s feed (%d items", c.Format, c.Items)
		if c.Newest != nil {
			why += ", newest " + c.Newest.Format(time.RFC3339)
		}
		d := feedDecision(ct, c, confStaleFeed, why+")")
		d.Schedule = "0 6 * * *"
		return d, true
	case len(sections) > 0:
		c := sections[0]
		for _, s := range sections[1:] {
			if s.Score > c.Score {
				c = s
			}
		}
		return Decision{ContentType: ct, FetchType: seedengine.FetchHTML, EntryURL: entry(c), Schedule: "0 */6 * * *",
			Confidence: confSection, Method: "html section via " + c.Via, candidate: c, CrawlAllowed: true,
			Selectors: sectionSelectors(entry(c)),
			Why:       fmt.Sprintf("no feed or sitemap; section page with %d article links", c.Items)}, true
	}
	return Decision{}, false
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

// bestFeed prefers feeds the site declares, then those its pages link,
// then the CMS's and known paths; among those, the feed of the whole site
// over a section's (feed.MainScore), then the most recent, then the
// biggest.
func bestFeed(cs []*Candidate) *Candidate {
	rank := func(c *Candidate) int {
		switch {
		case c.Via == ViaLinkAlternate || c.Via == ViaLinkHeader:
			return 0
		case strings.HasPrefix(c.Via, ViaSection), c.Via == ViaAnchor, c.Via == ViaDirectory, c.Via == ViaSibling:
			return 1
		}
		return 2
	}
	main := func(c *Candidate) int {
		// Coarse steps, so that small differences leave the choice to
		// freshness.
		return int(math.Round(feed.MainScore(c.URL, c.Name+" "+c.Title) * 2))
	}
	best := cs[0]
	for _, c := range cs[1:] {
		rb, rc := rank(best), rank(c)
		mb, mc := main(best), main(c)
		switch {
		case rc != rb:
			if rc < rb {
				best = c
			}
		case mc != mb:
			if mc > mb {
				best = c
			}
		case after(c.Newest, best.Newest):
			best = c
		case equalTime(c.Newest, best.Newest) && c.Items > best.Items:
			best = c
		}
	}
	return best
}

func newest(cs []*Candidate) *Candidate {
	best := cs[0]
	for _, c := range cs[1:] {
		if after(c.Newest, best.Newest) {
			best = c
		}
	}
	return best
}

func largest(cs []*Candidate) *Candidate {
	best := cs[0]
	for _, c := range cs[1:] {
		if c.Items > best.Items {
			best = c
		}
	}
	return best
}

func after(a, b *time.Time) bool { return a != nil && (b == nil || a.After(*b)) }

func equalTime(a, b *time.Time) bool {
	return (a == nil && b == nil) || (a != nil && b != nil && a.Equal(*b))
}

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
