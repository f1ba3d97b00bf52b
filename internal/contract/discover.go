package contract

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"mime"
	"net"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/seedengine/seedengine/internal/cms"
	"github.com/seedengine/seedengine/internal/feed"
	"github.com/seedengine/seedengine/internal/fetch"
	"github.com/seedengine/seedengine/internal/robots"
)

// Fetcher is what a contract run needs of the outbound client;
// *fetch.Client is one.
type Fetcher interface {
	Do(ctx context.Context, req fetch.Request) (*fetch.Response, error)
	Stream(ctx context.Context, req fetch.Request) (*fetch.StreamResponse, error)
	SetCrawlDelay(host string, d time.Duration)
}

// Config bounds a contract run. Zero fields take the defaults named.
type Config struct {
	// MaxRequests is the hard limit of HTTP exchanges per domain (every
	// redirect hop and retry counts); default 40.
	MaxRequests int
	// Deadline is the hard limit of time per domain; default 30 s.
	Deadline time.Duration
	// Agent is our robots.txt product token; default "seedengine".
	Agent string
	// MaxFeedFetches caps the feed candidates fetched that a page, a
	// directory page or the Link header named; default 12.
	MaxFeedFetches int
	// MaxKnownPaths caps the known feed and news sitemap paths probed
	// without any link naming them; default 16. The recognised CMS's own
	// paths are not counted.
	MaxKnownPaths int
	// MaxSitemapFetches caps the sitemap documents read that robots.txt,
	// a page or an index named; default 10.
	MaxSitemapFetches int
	// MaxSitemapDepth is how deep sitemap indexes are followed (1: the
	// children of a top-level index); default 2.
	MaxSitemapDepth int
	// MaxIndexChildren is how many children of one sitemap index become
	// candidates, the most news-like and freshest first; default 50.
	MaxIndexChildren int
	// MaxSections caps the section pages fetched; default 3.
	MaxSections int
	// FreshWithin is how recent a feed's or news sitemap's newest item
	// must be for it to count as fresh; default 30 days.
	FreshWithin time.Duration
	// MaxCrawlDelay caps the robots Crawl-delay handed to the fetcher
	// (the seed still records the site's value); default 10 s.
	MaxCrawlDelay time.Duration
	// SitemapsOnly limits the search to sitemaps: no feed, section or
	// subscription candidate is made, and the run ends once a fresh news
	// sitemap is known. The domain collector of orchestration runs so.
	SitemapsOnly bool
	// Now is the clock; default time.Now.
	Now func() time.Time
}

func (c Config) withDefaults() Config {
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&c.MaxRequests, 40)
	def(&c.MaxFeedFetches, 12)
	def(&c.MaxKnownPaths, 16)
	def(&c.MaxSitemapFetches, 10)
	def(&c.MaxSitemapDepth, 2)
	def(&c.MaxIndexChildren, 50)
	def(&c.MaxSections, 3)
	if c.Deadline <= 0 {
		c.Deadline = 30 * time.Second
	}
	if c.Agent == "" {
		c.Agent = "seedengine"
	}
	if c.FreshWithin <= 0 {
		c.FreshWithin = 30 * 24 * time.Hour
	}
	if c.MaxCrawlDelay <= 0 {
		c.MaxCrawlDelay = 10 * time.Second
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	return c
}

// Discoverer runs contract discovery for domains. It is safe for
// concurrent use.
type Discoverer struct {
	f   Fetcher
	cfg Config
}

// New returns a Discoverer fetching through f.
func New(f Fetcher, cfg Config) *Discoverer {
	return &Discoverer{f: f, cfg: cfg.withDefaults()}
}

// Config returns the effective configuration.
func (d *Discoverer) Config() Config { return d.cfg }

// What the Admit hook refuses: a request past the budget, or a redirect
// to a URL of the site that robots.txt disallows.
var (
	errBudget = errors.New("contract request budget spent")
	errRobots = errors.New("robots.txt disallows the redirect target")
)

// run is the state of one domain's discovery.
type run struct {
	d        *Discoverer
	ev       *Evidence
	rules    *robots.Group
	used     atomic.Int64
	site     *url.URL // origin settled on
	fetched  map[string]bool
	byURL    map[string]*Candidate // kind + " " + URL
	cms      []*cms.Profile
	known    int // known-path probes made
	deadline time.Time
	// ctx is the run's context, for the robots.txt of another host read
	// from the Admit hook of a redirect that goes there.
	ctx context.Context
	// hostsMu guards hosts: the robots.txt rules of the domain's other
	// hosts, by host, read the first time the run goes there.
	hostsMu sync.Mutex
	hosts   map[string]*robots.Group
	// mainLang is the site's own language, its home page's <html lang>
	// (primary subtag); editions are the others (editions.go).
	mainLang string
	// rulesHost is the host (without port) whose robots.txt rules is,
	// baseHost the one that served it (its redirects followed).
	rulesHost, baseHost string
}

// Discover examines one domain (its registrable name) within the
// configured request budget and deadline and returns the evidence with
// its decisions. It never fails: what went wrong is in the evidence. A
// canceled ctx ends the run early; the caller tells that apart with
// ctx.Err().
func (d *Discoverer) Discover(ctx context.Context, domainID, domain string) *Evidence {
	return d.discover(ctx, domainID, domain, nil)
}

// DiscoverWithRobots is Discover for a caller that has fetched the
// domain's robots.txt itself (the domain collector, which stores it): the
// run starts from rt instead of fetching robots.txt again. rt's
// exchanges count against the budget as if the run had made them.
func (d *Discoverer) DiscoverWithRobots(ctx context.Context, domainID, domain string, rt fetch.RobotsTxt) *Evidence {
	return d.discover(ctx, domainID, domain, &rt)
}

func (d *Discoverer) discover(ctx context.Context, domainID, domain string, rt *fetch.RobotsTxt) *Evidence {
	return d.run(ctx, domainID, domain, func(ctx context.Context, r *run) { r.discover(ctx, rt) })
}

// run is a contract run of one domain within the budget and deadline:
// body fetches, then the decisions are made and the outcome set.
func (d *Discoverer) run(ctx context.Context, domainID, domain string, body func(context.Context, *run)) *Evidence {
	now := d.cfg.Now().UTC()
	ev := &Evidence{DomainID: domainID, Domain: domain, Agent: d.cfg.Agent, StartedAt: now, Candidates: []*Candidate{}, Decisions: []Decision{}}
	ev.Spent.MaxRequests = d.cfg.MaxRequests
	ev.Spent.DeadlineMS = d.cfg.Deadline.Milliseconds()
	r := &run{d: d, ev: ev, fetched: map[string]bool{}, byURL: map[string]*Candidate{}, deadline: now.Add(d.cfg.Deadline), hosts: map[string]*robots.Group{}}
	ctx, cancel := context.WithTimeout(ctx, d.cfg.Deadline)
	defer cancel()
	r.ctx = ctx

	body(ctx, r)

	ev.Spent.Requests = int(r.used.Load())
	ev.FinishedAt = d.cfg.Now().UTC()
	ev.Spent.ElapsedMS = ev.FinishedAt.Sub(ev.StartedAt).Milliseconds()
	ev.Decisions = decide(ev, d.cfg)
	r.chooseArchives(ctx)
	ev.Spent.Requests = int(r.used.Load())
	switch {
	case len(ev.Decisions) > 0:
		ev.Outcome, ev.Detail = OutcomeSeeded, ""
	case ev.Outcome != "":
	case ev.Spent.DeadlineReached:
		ev.Outcome = OutcomeDeadline
	default:
		ev.Outcome = OutcomeNoCandidate
	}
	return ev
}

// discover is the search: robots.txt, the home page, then every candidate
// in order of likelihood until a fresh news entry is known or the limits
// are reached, then what the other content types and the policy need.
func (r *run) discover(ctx context.Context, rt *fetch.RobotsTxt) {
	if !r.applyRobots(ctx, rt, r.ev.Domain) {
		return
	}
	r.addRobotsSitemaps()
	r.fetchHome(ctx)
	if ctx.Err() != nil {
		r.stopped(ctx)
		return
	}
	r.addKnownPaths()
	r.search(ctx)
	r.finish(ctx)
	r.readEditions(ctx)
	r.tagEditions()
	r.stopped(ctx)
	r.markUnfetched()
	r.pruneGuesses()
}

// pruneGuesses drops the known paths never requested from the evidence:
// they were guesses, not something the site showed, and would bury what
// it did show. Spent counts them.
func (r *run) pruneGuesses() {
	kept := r.ev.Candidates[:0]
	for _, c := range r.ev.Candidates {
		if c.Via == ViaKnownPath && !c.Fetched {
			r.ev.Spent.KnownPathsLeft++
			continue
		}
		if c.Via == ViaKnownPath {
			r.ev.Spent.KnownPathsTried++
		}
		kept = append(kept, c)
	}
	r.ev.Candidates = kept
}

// stopped records a limit that ended the run.
func (r *run) stopped(ctx context.Context) {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		r.ev.Spent.DeadlineReached = true
	}
	if r.used.Load() >= int64(r.d.cfg.MaxRequests) {
		r.ev.Spent.BudgetExhausted = true
	}
}

func (r *run) markUnfetched() {
	for _, c := range r.ev.Candidates {
		if !c.Fetched && c.Skipped == "" {
			switch {
			case r.ev.Spent.DeadlineReached:
				c.Skipped = SkipDeadline
			case r.ev.Spent.BudgetExhausted:
				c.Skipped = SkipBudget
			default:
				c.Skipped = SkipNotNeeded
			}
		}
	}
}

// admit lets one exchange to u go ahead: within the budget, and allowed
// by robots.txt once robots.txt is known (another host's read first, when
// a redirect goes there).
func (r *run) admit(u *url.URL) error {
	if r.rules != nil {
		switch r.checkedVerdict(u.String()) {
		case RobotsAllowed:
		case RobotsUnchecked:
			return errBudget // its host's robots.txt could not be read within the limits
		default:
			return errRobots
		}
	}
	return r.spend()
}

// spend takes one exchange from the budget.
func (r *run) spend() error {
	if r.used.Add(1) > int64(r.d.cfg.MaxRequests) {
		r.used.Add(-1)
		return errBudget
	}
	return nil
}

// failReason names a failed fetch: the fetch reason, or which of our own
// limits refused it.
func failReason(err error) string {
	switch {
	case errors.Is(err, errBudget):
		return SkipBudget
	case errors.Is(err, errRobots):
		return "redirect_" + SkipRobots
	}
	return fetch.Reason(err)
}

// canSpend reports whether another fetch may start.
func (r *run) canSpend(ctx context.Context) bool {
	return ctx.Err() == nil && r.used.Load() < int64(r.d.cfg.MaxRequests)
}

func (r *run) do(ctx context.Context, req fetch.Request) (*fetch.Response, error) {
	req.Admit = r.admit
	return r.d.f.Do(ctx, req)
}

// applyRobots fetches host's robots.txt (https first, http when https
// cannot be reached at all; host may carry a port, whose robots.txt it
// then is, RFC 9309 §2.3), or takes the caller's, and applies it. It
// reports whether the run goes on.
func (r *run) applyRobots(ctx context.Context, given *fetch.RobotsTxt, host string) bool {
	ev := &r.ev.Robots
	var rt fetch.RobotsTxt
	if given != nil {
		rt = *given
		r.used.Add(int64(robotsExchanges(rt)))
	} else {
		rt = fetch.FetchRobots(ctx, r.d.f.Do, host, r.admit)
	}
	r.rulesHost = strings.ToLower(hostOnly(host))
	resp, err, rules, result, base := rt.Response, rt.Err, rt.Rules, rt.Status, rt.Base
	ev.URL = rt.URL
	if err != nil {
		ev.Error = failReason(err)
		var fe *fetch.Error
		if errors.As(err, &fe) {
			ev.Redirects = len(fe.Redirects)
		}
	} else {
		ev.Status, ev.FinalURL, ev.Redirects, ev.Bytes = resp.Status, resp.FinalURL, len(resp.Redirects), len(resp.Body)
	}
	ev.Result = string(result)
	if base != nil && sameSite(strings.ToLower(base.Hostname()), r.ev.Domain) {
		r.baseHost = strings.ToLower(base.Hostname())
	}
	r.rules = rules.Group(r.d.cfg.Agent)
	ev.Agents, ev.Rules = r.rules.Agents(), r.rules.Rules()
	if cd, ok := r.rules.CrawlDelay(); ok {
		ev.CrawlDelay = cd.Seconds()
		r.d.f.SetCrawlDelay(r.ev.Domain, min(cd, r.d.cfg.MaxCrawlDelay))
		r.d.f.SetCrawlDelay("www."+r.ev.Domain, min(cd, r.d.cfg.MaxCrawlDelay))
	}
	ev.Sitemaps = rules.Sitemaps(base)
	ev.HomeAllowed = r.rules.Allowed("/")

	switch {
	case ctx.Err() != nil:
		r.stopped(ctx)
		return false
	case err != nil && unreachable(err):
		r.ev.Outcome, r.ev.Detail = OutcomeUnreachable, ev.Error
		return false
	case result == robots.StatusUnreachable:
		r.ev.Outcome = OutcomeRobotsUnavailable
		if ev.Status != 0 {
			r.ev.Detail = fmt.Sprintf("robots.txt answered %d; RFC 9309 disallows everything until it can be read", ev.Status)
		} else {
			r.ev.Detail = "robots.txt could not be read (" + ev.Error + "); RFC 9309 disallows everything until it can"
		}
		return false
	}
	r.site = &url.URL{Scheme: base.Scheme, Host: base.Host}
	if resp == nil {
		r.site = &url.URL{Scheme: "https", Host: r.ev.Domain}
	}
	r.ev.Site = r.site.String()
	return true
}

// robotsExchanges counts the HTTP exchanges a robots.txt fetch made.
func robotsExchanges(rt fetch.RobotsTxt) int {
	switch {
	case rt.Response != nil:
		return 1 + len(rt.Response.Redirects)
	case rt.Err != nil:
		var fe *fetch.Error
		if errors.As(rt.Err, &fe) {
			return 1 + len(fe.Redirects)
		}
	}
	return 1
}

// unreachable reports whether a fetch failed before any HTTP answer:
// nothing was learnt about the site.
func unreachable(err error) bool {
	switch fetch.Reason(err) {
	case fetch.ReasonTooManyRedirects, fetch.ReasonBadRedirect, fetch.ReasonBodyTooLarge, fetch.ReasonDecode, fetch.ReasonNotAdmitted, fetch.ReasonCanceled:
		return false
	}
	return true
}

// robotsVerdict judges raw by the robots.txt of its host as far as the
// run knows it: the domain's own for the domain and its www. twin, that
// of another host of the domain once read (RobotsUnchecked before).
func (r *run) robotsVerdict(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return RobotsDisallowed
	}
	host := strings.ToLower(strings.TrimSuffix(u.Hostname(), "."))
	if !sameSite(host, r.ev.Domain) {
		// Another site's robots.txt is not ours to read here; feeds on
		// feed hosts (feedburner) are fetched like any linked resource.
		return RobotsAllowed
	}
	rules := r.rules
	if !r.mainHost(host) {
		r.hostsMu.Lock()
		g, ok := r.hosts[strings.ToLower(u.Host)]
		r.hostsMu.Unlock()
		if !ok {
			return RobotsUnchecked
		}
		rules = g
	}
	return verdict(rules, u)
}

// verdict is what rules say of u.
func verdict(rules *robots.Group, u *url.URL) string {
	if rules.Allowed(u.RequestURI()) {
		return RobotsAllowed
	}
	return RobotsDisallowed
}

// checkedVerdict is robotsVerdict after reading the robots.txt of raw's
// host when it is another host of the domain not read yet.
func (r *run) checkedVerdict(raw string) string {
	v := r.robotsVerdict(raw)
	if v != RobotsUnchecked {
		return v
	}
	u, _ := url.Parse(raw) // robotsVerdict parsed it
	r.readHostRobots(u.Host)
	return r.robotsVerdict(raw)
}

// mainHost reports whether host is the one whose robots.txt the run read
// first (the domain; an examined entry's own host) or its www. twin (the
// apex's robots.txt usually redirects to www.'s).
func (r *run) mainHost(host string) bool {
	return host == r.rulesHost || host == "www."+r.rulesHost || (r.baseHost != "" && host == r.baseHost)
}

// readHostRobots reads the robots.txt of host (another host of the
// domain, with its port if any), records it in the evidence and keeps
// its group for our agent. Its exchanges count against the budget; one
// the budget refuses leaves the host unread (its URLs then unchecked, so
// not fetched).
func (r *run) readHostRobots(host string) {
	host = strings.ToLower(host)
	r.hostsMu.Lock()
	defer r.hostsMu.Unlock()
	if _, ok := r.hosts[host]; ok {
		return
	}
	rt := fetch.FetchRobots(r.ctx, r.d.f.Do, host, func(*url.URL) error { return r.spend() })
	if errors.Is(rt.Err, errBudget) || r.ctx.Err() != nil {
		return
	}
	g := rt.Rules.Group(r.d.cfg.Agent)
	r.hosts[host] = g
	he := HostRobotsEvidence{Host: host, URL: rt.URL, Result: string(rt.Status), Rules: g.Rules()}
	if rt.Err != nil {
		he.Error = failReason(rt.Err)
	} else {
		he.Status, he.FinalURL = rt.Response.Status, rt.Response.FinalURL
	}
	if cd, ok := g.CrawlDelay(); ok {
		he.CrawlDelay = cd.Seconds()
		r.d.f.SetCrawlDelay(hostOnly(host), min(cd, r.d.cfg.MaxCrawlDelay))
	}
	r.ev.HostRobots = append(r.ev.HostRobots, he)
	// The candidates found there before are judged now. (Not through
	// robotsVerdict: hostsMu is held.)
	for _, c := range r.ev.Candidates {
		if c.Robots != RobotsUnchecked {
			continue
		}
		if u, err := url.Parse(c.URL); err == nil && strings.ToLower(u.Host) == host {
			c.Robots = verdict(g, u)
		}
	}
}

// hostOnly is host without its port.
func hostOnly(host string) string {
	if h, _, err := net.SplitHostPort(host); err == nil {
		return h
	}
	return host
}

// sameSite reports whether host is the domain or one of its subdomains.
func sameSite(host, domain string) bool {
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	return host == domain || strings.HasSuffix(host, "."+domain)
}

// onSite reports whether raw is on the domain or one of its subdomains.
func (r *run) onSite(raw string) bool {
	u, err := url.Parse(raw)
	return err == nil && sameSite(u.Hostname(), r.ev.Domain)
}

// sibling reports whether raw is on another host of the domain than the
// site and its www. twin: rss.example.com for www.example.com.
func (r *run) sibling(raw string) bool {
	u, err := url.Parse(raw)
	if err != nil || r.site == nil || !sameSite(u.Hostname(), r.ev.Domain) {
		return false
	}
	h := strings.TrimPrefix(strings.ToLower(u.Hostname()), "www.")
	return h != strings.TrimPrefix(strings.ToLower(r.site.Hostname()), "www.")
}

// fetchHome fetches the home page and takes its candidates: declared
// feeds and sitemaps, feed-looking and sitemap links, subscription links,
// sections, and the CMS it shows.
func (r *run) fetchHome(ctx context.Context) {
	home := r.site.String() + "/"
	pe := &PageEvidence{URL: home, Robots: r.robotsVerdict(home)}
	r.ev.Home = pe
	if pe.Robots != RobotsAllowed || !r.canSpend(ctx) {
		return
	}
	r.fetched[home] = true
	resp, err := r.do(ctx, fetch.Request{URL: home, Kind: fetch.KindPage})
	if err != nil {
		pe.Error = failReason(err)
		return
	}
	pe.Status, pe.FinalURL, pe.ContentType = resp.Status, resp.FinalURL, mediaType(resp.Header.Get("Content-Type"))
	r.fetched[resp.FinalURL] = true
	if u, err := url.Parse(resp.FinalURL); err == nil && sameSite(u.Hostname(), r.ev.Domain) {
		r.site = &url.URL{Scheme: u.Scheme, Host: u.Host}
		r.ev.Site = r.site.String()
	}
	if resp.Status < 200 || resp.Status > 299 {
		return
	}
	if !r.d.cfg.SitemapsOnly {
		for _, c := range feed.FromLinkHeader(resp.FinalURL, resp.Header) {
			r.addFeed(c, ViaLinkHeader, "", prioDeclared, 0)
		}
	}
	if !isHTML(pe.ContentType, resp.Body) {
		return
	}
	page, _ := feed.FromHTML(resp.FinalURL, bytes.NewReader(resp.Body), int64(len(resp.Body)))
	for _, m := range cms.Detect(page.Generator, resp.Body, resp.Header) {
		r.ev.CMS = append(r.ev.CMS, CMSMatch{Name: m.Profile.Name, Evidence: m.Evidence})
		r.cms = append(r.cms, m.Profile)
	}
	if !r.d.cfg.SitemapsOnly {
		r.noteEditions(page)
		r.ev.Language = r.mainLang
	}
	r.addPage(page, "", 0)
	if !r.d.cfg.SitemapsOnly {
		for _, s := range page.Sections {
			if s.Score <= 0 || r.find(KindSection, s.URL) != nil {
				continue
			}
			c := r.add(&Candidate{Kind: KindSection, URL: s.URL, Via: ViaHomePage, Title: s.Text, ContentType: s.ContentType, Score: s.Score},
				sectionPriority(s.Score))
			if c != nil && s.Score < minSectionScore {
				c.Skipped = SkipLowScore
			}
		}
	}
}

// addPage records the feed, sitemap and subscription links of an HTML
// page at depth: the home page (parent "") or a page found from it.
func (r *run) addPage(page feed.Page, parent string, depth int) {
	if !r.d.cfg.SitemapsOnly {
		for i, f := range page.Feeds {
			via, prio := ViaAnchor, float64(prioFeedAnchor)
			switch {
			case f.Source == feed.SourceLinkAlternate && parent == "":
				via, prio = ViaLinkAlternate, prioDeclared
			case parent != "":
				via, prio = ViaDirectory, prioDirectoryFeed+4*feed.MainScore(f.URL, f.Title)-0.001*float64(i)
			}
			if r.sibling(f.URL) && via == ViaAnchor {
				via = ViaSibling
			}
			r.addFeed(f, via, parent, prio, depth)
		}
		if depth == 0 {
			for _, h := range page.Hubs {
				if !r.onSite(h.URL) {
					continue // a subscription shop elsewhere
				}
				via := ViaAnchor
				if r.sibling(h.URL) {
					via = ViaSibling
				}
				r.addFeed(h, via, parent, prioHub, depth)
			}
		}
	}
	for _, s := range page.Sitemaps {
		if !r.onSite(s.URL) {
			continue // a sitemap elsewhere is not this site's to offer
		}
		via := ViaAnchor
		if s.Source == feed.SourceLinkSitemap {
			via = ViaLinkSitemap
		}
		if r.sibling(s.URL) {
			via = ViaSibling
		}
		prio := float64(prioHTMLSitemap)
		switch {
		case newsScore(s.URL, s.Title) > 0.5:
			prio = prioNewsMap + 5*newsScore(s.URL, s.Title)
			if via == ViaLinkSitemap {
				prio = prioDeclaredMap
			}
		case s.XML || via == ViaLinkSitemap:
			prio = prioSitemap + 5
		}
		c := r.addSitemap(s.URL, via, "", 0, prio)
		if c != nil && !s.XML {
			c.Title = s.Title
		}
	}
}

// add appends a candidate with its priority, unless one of its kind and
// URL is known, and returns it (nil when known). A known candidate keeps
// its origin but takes the higher priority.
func (r *run) add(c *Candidate, prio float64) *Candidate {
	k := c.Kind + " " + c.URL
	if old := r.byURL[k]; old != nil {
		if prio > old.Priority && !old.Fetched {
			old.Priority = round2(prio)
		}
		return nil
	}
	if c.Robots == "" {
		c.Robots = r.robotsVerdict(c.URL)
	}
	c.Priority = round2(prio)
	r.byURL[k] = c
	r.ev.Candidates = append(r.ev.Candidates, c)
	return c
}

func (r *run) addFeed(c feed.Candidate, via, parent string, prio float64, depth int) *Candidate {
	if feed.IsCommentFeed(c) {
		return nil
	}
	ct := feed.ContentTypeOf(c.URL, c.Title)
	if (via == ViaLinkAlternate || via == ViaLinkHeader) && ct == feed.ContentBlog && feed.ContentTypeOf("", c.Title) != feed.ContentBlog {
		// The home page's own feed is the site's output whatever its
		// file is called (Wix names every site's feed /blog-feed.xml);
		// only its title can make it a blog's.
		ct = feed.ContentNews
	}
	return r.add(&Candidate{Kind: KindFeed, URL: c.URL, Via: via, Title: c.Title, MIMEType: c.Type, Parent: parent, Depth: depth,
		ContentType: ct}, prio)
}

func (r *run) addSitemap(u, via, parent string, depth int, prio float64) *Candidate {
	ct := "news"
	if g := feed.ContentTypeOf(u, ""); g != "news" {
		ct = g
	}
	return r.add(&Candidate{Kind: KindSitemap, URL: u, Via: via, Parent: parent, Depth: depth, ContentType: ct}, prio)
}

func (r *run) find(kind, u string) *Candidate { return r.byURL[kind+" "+u] }

// addRobotsSitemaps makes candidates of the robots.txt Sitemap: lines,
// ranked by how news-like their names are; the first few others are read
// early, since an index names its children and so guides the search.
func (r *run) addRobotsSitemaps() {
	plain := 0
	for i, u := range r.ev.Robots.Sitemaps {
		ns := newsScore(u, "")
		prio := prioSitemap - 0.01*float64(i)
		switch {
		case ns > 0.5:
			prio = prioNewsMap + 5*ns - 0.01*float64(i)
		case ns >= 0 && plain < 3:
			prio = prioEarlySitemap - float64(plain)
			plain++
		case ns < 0:
			prio = prioSitemap + 5*ns - 0.01*float64(i)
		}
		r.addSitemap(u, ViaRobots, "", 0, prio)
	}
}

// addKnownPaths makes candidates of the recognised CMS's feed and sitemap
// paths, and of the known feed and news sitemap paths, interleaved and in
// the order they are most often found.
func (r *run) addKnownPaths() {
	base := r.site.String()
	feedsOK := !r.d.cfg.SitemapsOnly
	for _, p := range r.cms {
		for i, fp := range p.Feeds {
			if feedsOK {
				if c := r.addFeed(feed.Candidate{URL: base + fp}, ViaCMSPath, "", prioCMSFeed-float64(i), 0); c != nil {
					c.Title = p.Name
				}
			}
		}
		for i, sp := range p.NewsSitemaps {
			if c := r.addSitemap(base+sp, ViaCMSPath, "", 0, prioCMSNewsMap-float64(i)); c != nil {
				c.Title = p.Name
			}
		}
		if !r.robotsNamesSitemap() {
			for i, sp := range p.Sitemaps {
				if c := r.addSitemap(base+sp, ViaCMSPath, "", 0, prioEarlySitemap-float64(i)); c != nil {
					c.Title = p.Name
				}
			}
		}
		if p.SectionFeed != nil && feedsOK {
			for _, c := range r.ev.Candidates {
				if c.Kind != KindSection || c.Score < minSectionScore {
					continue
				}
				u, err := url.Parse(c.URL)
				if err != nil {
					continue
				}
				f := r.addFeed(feed.Candidate{URL: base + p.SectionFeed(u.Path)}, ViaCMSPath, "", prioCMSSectionFeed+5*c.Score, 0)
				if f != nil {
					f.Title = p.Name + " section " + u.Path
					if f.ContentType == "news" {
						f.ContentType = c.ContentType
					}
				}
			}
		}
	}
	if feedsOK {
		for i, wk := range feed.WellKnownPaths() {
			if c := r.addFeed(feed.Candidate{URL: base + wk.Path}, ViaKnownPath, "", prioKnownFeed-float64(i), 0); c != nil && wk.ContentType != "" {
				c.ContentType = wk.ContentType
			}
		}
	}
	for i, p := range sitemapKnownNewsPaths() {
		r.addSitemap(base+p, ViaKnownPath, "", 0, prioKnownNewsMap-float64(i))
	}
	if !r.robotsNamesSitemap() {
		for i, p := range sitemapKnownPaths() {
			prio := prioSitemap - 10 - float64(i)
			if i == 0 {
				prio = prioEarlySitemap - 3 // /sitemap.xml: often an index that names the news sitemap
			}
			r.addSitemap(base+p, ViaKnownPath, "", 0, prio)
		}
	}
}

// robotsNamesSitemap reports whether robots.txt names a sitemap on the
// domain; lines naming other hosts (or internal addresses) do not count.
func (r *run) robotsNamesSitemap() bool {
	for _, u := range r.ev.Robots.Sitemaps {
		if r.onSite(u) {
			return true
		}
	}
	return false
}

// search fetches candidates, the most likely first, until a fresh news
// entry is known, nothing is left, or a limit is reached.
func (r *run) search(ctx context.Context) {
	for !r.found() {
		c := r.next()
		if c == nil || !r.canSpend(ctx) {
			return
		}
		r.fetch(ctx, c)
	}
}

// found reports whether the search can end: a fresh news feed, or (with
// SitemapsOnly, or without a feed) a fresh news sitemap is known.
func (r *run) found() bool {
	for _, c := range r.ev.Candidates {
		if c.ContentType != "news" || !c.usable() || c.Robots != RobotsAllowed || r.onEdition(c) {
			continue
		}
		switch {
		case c.Kind == KindFeed && !r.d.cfg.SitemapsOnly && r.fresh(c):
			return true
		case c.Kind == KindSitemap && c.NewsItems > 0 && c.Format != "sitemapindex" && r.fresh(c):
			return true
		}
	}
	return false
}

// onEdition reports whether c is on the host of an edition the home page
// named: the site's own search does not end on it.
func (r *run) onEdition(c *Candidate) bool {
	h := hostFor(c)
	return slices.ContainsFunc(r.ev.Editions, func(e EditionEvidence) bool { return e.Host == h })
}

// next returns the unfetched candidate of highest priority whose group
// still has room, marking those whose group is full over_cap on the way.
func (r *run) next() *Candidate {
	for {
		var best *Candidate
		for _, c := range r.ev.Candidates {
			if c.Fetched || c.Skipped != "" {
				continue
			}
			if best == nil || c.Priority > best.Priority {
				best = c
			}
		}
		if best == nil {
			return nil
		}
		if r.full(best) {
			best.Skipped = SkipOverCap
			continue
		}
		return best
	}
}

// full reports whether the candidate's group has used its cap.
func (r *run) full(c *Candidate) bool {
	switch {
	case c.Via == ViaCMSPath:
		return false
	case c.Via == ViaKnownPath:
		return r.known >= r.d.cfg.MaxKnownPaths
	case c.Kind == KindSection:
		return r.fetches(KindSection, false) >= r.d.cfg.MaxSections
	case c.Kind == KindFeed:
		return r.fetches(KindFeed, false) >= r.d.cfg.MaxFeedFetches
	case c.Kind == KindSitemap:
		if c.Depth > r.d.cfg.MaxSitemapDepth {
			return true
		}
		return r.fetches(KindSitemap, false) >= r.d.cfg.MaxSitemapFetches
	}
	return false
}

// fetches counts the requested candidates of a kind, the probes of known
// and CMS paths included or not.
func (r *run) fetches(kind string, probes bool) int {
	n := 0
	for _, c := range r.ev.Candidates {
		if c.Kind == kind && c.Fetched && (probes || (c.Via != ViaKnownPath && c.Via != ViaCMSPath)) {
			n++
		}
	}
	return n
}

// fetch requests one candidate and takes what it teaches.
func (r *run) fetch(ctx context.Context, c *Candidate) {
	if c.Robots == RobotsUnchecked {
		if c.Robots = r.checkedVerdict(c.URL); c.Robots == RobotsUnchecked {
			// Its host's robots.txt could not be read within the limits.
			c.Skipped = SkipBudget
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				c.Skipped = SkipDeadline
			}
			return
		}
	}
	if !r.claim(c) {
		return
	}
	if c.Via == ViaKnownPath {
		r.known++
	}
	switch c.Kind {
	case KindFeed:
		r.fetchFeed(ctx, c)
	case KindSitemap:
		r.fetchSitemap(ctx, c)
	case KindSection:
		r.fetchSection(ctx, c)
	}
}

// finish spends what the seeds still need once the search has ended: the
// declared feeds of content types other than news, and a top-level
// sitemap for the seed's policy when none was read.
func (r *run) finish(ctx context.Context) {
	if !r.d.cfg.SitemapsOnly {
		for _, c := range r.ev.Candidates {
			if c.Kind != KindFeed || c.Fetched || c.Skipped != "" || c.Priority < prioDeclared {
				continue
			}
			if !r.canSpend(ctx) {
				return
			}
			if r.haveFreshFeedFor(c.ContentType) {
				continue
			}
			r.fetch(ctx, c)
		}
	}
	if r.d.cfg.SitemapsOnly {
		return // the domain collector reads the main sitemap itself
	}
	for range 2 {
		if r.policySitemap() != nil || !r.canSpend(ctx) {
			return
		}
		var best *Candidate
		for _, c := range r.ev.Candidates {
			if c.Kind != KindSitemap || c.Fetched || c.Parent != "" || !r.onSite(c.URL) ||
				(c.Skipped != "" && c.Skipped != SkipOverCap) || policyRank(c) == 0 {
				continue
			}
			if best == nil || policyRank(c) > policyRank(best) || (policyRank(c) == policyRank(best) && c.Priority > best.Priority) {
				best = c
			}
		}
		if best == nil {
			return
		}
		best.Skipped = ""
		r.fetch(ctx, best)
	}
}

// policyRank orders the sitemaps a policy may name: those robots.txt
// lists first (general ones before news ones), then those a page
// declares or links, then the CMS's and the common general paths; 0 for
// guessed news paths, which are the search's business.
func policyRank(c *Candidate) int {
	general := newsScore(c.URL, "") <= 0.5
	switch c.Via {
	case ViaRobots:
		if general {
			return 5
		}
		return 4
	case ViaLinkSitemap, ViaAnchor, ViaSibling:
		if sitemapLooksXML(c.URL) {
			return 3
		}
	case ViaCMSPath, ViaKnownPath:
		if general {
			return 1
		}
	}
	return 0
}

// policySitemap is the sitemap a seed's policy may name: a usable
// top-level general (not news) sitemap of the site itself.
func (r *run) policySitemap() *Candidate {
	for _, c := range r.ev.Candidates {
		if c.Kind == KindSitemap && c.Parent == "" && c.usable() && c.NewsItems == 0 && r.onSite(entry(c)) {
			return c
		}
	}
	return nil
}

// claim marks a candidate as requested, or says why it is not: robots.txt
// disallows it, or its URL was already requested in this run.
func (r *run) claim(c *Candidate) bool {
	switch {
	case c.Robots != RobotsAllowed:
		c.Skipped = SkipRobots
	case r.fetched[c.URL]:
		c.Skipped = SkipSeen
	default:
		r.fetched[c.URL] = true
		c.Fetched = true
		return true
	}
	return false
}

// answered records a candidate's response and reports whether it is a 2xx
// worth reading.
func (c *Candidate) answered(resp *fetch.Response) bool {
	c.Status, c.FinalURL = resp.Status, resp.FinalURL
	c.MIMEType = mediaType(resp.Header.Get("Content-Type"))
	return resp.Status >= 200 && resp.Status <= 299
}

// fetchFeed reads a feed candidate; one that turns out to be an HTML page
// is read for the feeds and sitemaps it lists (a feed directory).
func (r *run) fetchFeed(ctx context.Context, c *Candidate) {
	resp, err := r.do(ctx, fetch.Request{URL: c.URL, Kind: fetch.KindFeed})
	if err != nil {
		c.Error = failReason(err)
		return
	}
	if !c.answered(resp) {
		return
	}
	info, err := feed.ParseAt(resp.Body, r.d.cfg.Now())
	if err == nil {
		c.Format, c.Items, c.Name = info.Format, info.Items, info.Title
		c.Newest, c.Oldest = timePtr(info.Newest), timePtr(info.Oldest)
		for _, it := range info.Latest {
			c.Preview = append(c.Preview, PreviewItem{Title: it.Title, URL: it.Link, Date: timePtr(it.Published)})
		}
		return
	}
	if !errors.Is(err, feed.ErrNotFeed) {
		c.Error = "feed_parse_error"
		return
	}
	if !isHTML(c.MIMEType, resp.Body) {
		c.Error = "not_a_feed"
		return
	}
	c.Format = "html"
	if c.Depth >= maxPageDepth {
		c.Error = "not_a_feed"
		return
	}
	page, _ := feed.FromHTML(resp.FinalURL, bytes.NewReader(resp.Body), int64(len(resp.Body)))
	// Reached as a feed, the page's links to feed-type files of the
	// domain are its feeds too: directories list "Top Stories" →
	// /topstories.xml.
	for _, f := range page.Files {
		if r.onSite(f.URL) {
			page.Feeds = append(page.Feeds, f)
		}
	}
	// So are its subscription links, wherever they lead, when the page is
	// the site's own: an "RSS" page whose one link is "Subscribe to
	// Latest headlines", or "Click here to subscribe" to a feed host. Each
	// is judged by what it serves. (A page elsewhere, a paywall's shop
	// reached so, offers none: its "Subscribe now" is a sale.)
	if r.onSite(resp.FinalURL) {
		page.Feeds = append(page.Feeds, page.Hubs...)
	}
	page.Hubs = nil
	before := len(r.ev.Candidates)
	r.addPage(page, c.URL, c.Depth+1)
	found := 0
	for _, nc := range r.ev.Candidates[before:] {
		if nc.Kind == KindFeed {
			found++
		}
	}
	c.Items = found
	// A page listing one feed is a directory as much as one listing
	// twelve: the feed is a candidate like any other.
	if found >= 1 {
		c.Format = FormatDirectory
	} else {
		c.Error = "not_a_feed"
	}
}

// maxPageDepth is how far from the home page an HTML page is still read
// for links: the home page (0) and the pages it links (1).
const maxPageDepth = 2

func (r *run) haveFreshFeedFor(ct string) bool {
	for _, c := range r.ev.Candidates {
		if c.Kind == KindFeed && c.ContentType == ct && r.fresh(c) {
			return true
		}
	}
	return false
}

func (r *run) fresh(c *Candidate) bool {
	return c.usable() && c.Newest != nil && r.d.cfg.Now().Sub(*c.Newest) <= r.d.cfg.FreshWithin
}

// fetchSection reads a section page: it is the HTML fallback, and the
// feeds and sitemaps it links are candidates.
func (r *run) fetchSection(ctx context.Context, c *Candidate) {
	resp, err := r.do(ctx, fetch.Request{URL: c.URL, Kind: fetch.KindPage})
	if err != nil {
		c.Error = failReason(err)
		return
	}
	if !c.answered(resp) || !isHTML(c.MIMEType, resp.Body) {
		return
	}
	c.Format = "html"
	page, _ := feed.FromHTML(resp.FinalURL, bytes.NewReader(resp.Body), int64(len(resp.Body)))
	c.Items = articleLinks(resp.Body, resp.FinalURL)
	for _, f := range page.Feeds {
		cand := r.addFeed(f, "", c.URL, prioSectionFeed+2*feed.MainScore(f.URL, f.Title), c.Depth+1)
		if cand == nil {
			continue
		}
		cand.Via = ViaSection + ":" + string(f.Source)
		if cand.ContentType == "news" && c.ContentType != "" {
			cand.ContentType = c.ContentType
		}
	}
	page.Feeds = nil
	r.addPage(page, c.URL, c.Depth+1)
	if c.Depth+1 >= maxPageDepth {
		return
	}
	// A section's own sections: /news/ lists /news/media-releases/, whose
	// page declares the feed.
	for _, s := range page.Sections {
		if s.Score < minSectionScore || r.find(KindSection, s.URL) != nil {
			continue
		}
		r.add(&Candidate{Kind: KindSection, URL: s.URL, Via: ViaSection, Title: s.Text, ContentType: s.ContentType,
			Score: s.Score, Parent: c.URL, Depth: c.Depth + 1}, sectionPriority(s.Score))
	}
}

// minSectionScore is the lowest section score worth a request: below it
// a link is more likely an article than a listing.
const minSectionScore = 0.5

func mediaType(ct string) string {
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		return strings.ToLower(strings.TrimSpace(ct))
	}
	return mt
}

func isHTML(mt string, body []byte) bool {
	if mt == "text/html" || mt == "application/xhtml+xml" {
		return true
	}
	head := bytes.ToLower(bytes.TrimSpace(body[:min(len(body), 512)]))
	return bytes.HasPrefix(head, []byte("<!doctype html")) || bytes.HasPrefix(head, []byte("<html"))
}

func timePtr(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	t = t.UTC()
	return &t
}

func round2(f float64) float64 { return float64(int64(f*100+0.5*sign(f))) / 100 }

func sign(f float64) float64 {
	if f < 0 {
		return -1
	}
	return 1
}
