package contract

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"mime"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"github.com/seedengine/seedengine/internal/feed"
	"github.com/seedengine/seedengine/internal/fetch"
	"github.com/seedengine/seedengine/internal/robots"
	"github.com/seedengine/seedengine/internal/sitemap"
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
	// MaxFeedFetches caps the feed candidates fetched; default 8.
	MaxFeedFetches int
	// MaxWellKnown caps the well-known feed paths tried; default 8.
	MaxWellKnown int
	// MaxSitemapFetches caps sitemap documents read, index children
	// included; default 8.
	MaxSitemapFetches int
	// MaxSitemapDepth is how deep sitemap indexes are followed (1: the
	// children of a top-level index); default 2.
	MaxSitemapDepth int
	// MaxSections caps the section pages fetched; default 2.
	MaxSections int
	// FreshWithin is how recent a feed's newest item must be for the feed
	// to count as fresh; default 30 days.
	FreshWithin time.Duration
	// MaxCrawlDelay caps the robots Crawl-delay handed to the fetcher
	// (the seed still records the site's value); default 10 s.
	MaxCrawlDelay time.Duration
	// Now is the clock; default time.Now.
	Now func() time.Time
}

func (c Config) withDefaults() Config {
	if c.MaxRequests <= 0 {
		c.MaxRequests = 40
	}
	if c.Deadline <= 0 {
		c.Deadline = 30 * time.Second
	}
	if c.Agent == "" {
		c.Agent = "seedengine"
	}
	if c.MaxFeedFetches <= 0 {
		c.MaxFeedFetches = 8
	}
	if c.MaxWellKnown <= 0 {
		c.MaxWellKnown = 8
	}
	if c.MaxSitemapFetches <= 0 {
		c.MaxSitemapFetches = 8
	}
	if c.MaxSitemapDepth <= 0 {
		c.MaxSitemapDepth = 2
	}
	if c.MaxSections <= 0 {
		c.MaxSections = 2
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
	deadline time.Time
}

// Discover examines one domain (its registrable name) within the
// configured request budget and deadline and returns the evidence with
// its decisions. It never fails: what went wrong is in the evidence. A
// canceled ctx ends the run early; the caller tells that apart with
// ctx.Err().
func (d *Discoverer) Discover(ctx context.Context, domainID, domain string) *Evidence {
	now := d.cfg.Now().UTC()
	ev := &Evidence{DomainID: domainID, Domain: domain, Agent: d.cfg.Agent, StartedAt: now, Candidates: []*Candidate{}, Decisions: []Decision{}}
	ev.Spent.MaxRequests = d.cfg.MaxRequests
	ev.Spent.DeadlineMS = d.cfg.Deadline.Milliseconds()
	r := &run{d: d, ev: ev, fetched: map[string]bool{}, deadline: now.Add(d.cfg.Deadline)}
	ctx, cancel := context.WithTimeout(ctx, d.cfg.Deadline)
	defer cancel()

	r.discover(ctx)

	ev.Spent.Requests = int(r.used.Load())
	ev.FinishedAt = d.cfg.Now().UTC()
	ev.Spent.ElapsedMS = ev.FinishedAt.Sub(ev.StartedAt).Milliseconds()
	ev.Decisions = decide(ev, d.cfg)
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

func (r *run) discover(ctx context.Context) {
	if !r.fetchRobots(ctx) {
		return
	}
	r.fetchHome(ctx)
	if ctx.Err() != nil {
		r.stopped(ctx)
		return
	}
	r.readFeeds(ctx)
	r.readSitemaps(ctx)
	if !r.haveFreshFeed() {
		r.readSections(ctx)
	}
	if !r.haveFreshFeed() {
		r.tryWellKnownFeeds(ctx)
	}
	r.stopped(ctx)
	r.markUnfetched()
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
// by robots.txt once robots.txt is known.
func (r *run) admit(u *url.URL) error {
	if r.rules != nil && r.robotsVerdict(u.String()) != RobotsAllowed {
		return errRobots
	}
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

// fetchRobots fetches and applies robots.txt: https first, http when
// https cannot be reached at all. It reports whether the run goes on.
func (r *run) fetchRobots(ctx context.Context) bool {
	ev := &r.ev.Robots
	rt := fetch.FetchRobots(ctx, r.d.f.Do, r.ev.Domain, r.admit)
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

// unreachable reports whether a fetch failed before any HTTP answer:
// nothing was learnt about the site.
func unreachable(err error) bool {
	switch fetch.Reason(err) {
	case fetch.ReasonTooManyRedirects, fetch.ReasonBadRedirect, fetch.ReasonBodyTooLarge, fetch.ReasonDecode, fetch.ReasonNotAdmitted, fetch.ReasonCanceled:
		return false
	}
	return true
}

func (r *run) robotsVerdict(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return RobotsDisallowed
	}
	if !sameSite(u.Hostname(), r.ev.Domain) {
		// Another site's robots.txt is not ours to read here; feeds on
		// feed hosts (feedburner) are fetched like any linked resource.
		return RobotsAllowed
	}
	if r.rules.Allowed(u.RequestURI()) {
		return RobotsAllowed
	}
	return RobotsDisallowed
}

// sameSite reports whether host is the domain or one of its subdomains.
func sameSite(host, domain string) bool {
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	return host == domain || strings.HasSuffix(host, "."+domain)
}

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
	for _, c := range feed.FromLinkHeader(resp.FinalURL, resp.Header) {
		r.addFeed(c, "")
	}
	if !isHTML(pe.ContentType, resp.Body) {
		return
	}
	page, _ := feed.FromHTML(resp.FinalURL, bytes.NewReader(resp.Body), int64(len(resp.Body)))
	r.addPage(page, ViaHomePage)
}

// addPage records the feed and section candidates of an HTML page.
func (r *run) addPage(page feed.Page, sectionVia string) {
	for _, c := range page.Feeds {
		r.addFeed(c, "")
	}
	for _, s := range page.Sections {
		if s.Score <= 0 || r.find(KindSection, s.URL) != nil {
			continue
		}
		r.ev.Candidates = append(r.ev.Candidates, &Candidate{Kind: KindSection, URL: s.URL, Via: sectionVia, Title: s.Text,
			ContentType: s.ContentType, Robots: r.robotsVerdict(s.URL), Score: s.Score})
	}
}

func (r *run) addFeed(c feed.Candidate, via string) *Candidate {
	if feed.IsCommentFeed(c) {
		return nil
	}
	if old := r.find(KindFeed, c.URL); old != nil {
		return nil
	}
	if via == "" {
		via = string(c.Source)
	}
	cand := &Candidate{Kind: KindFeed, URL: c.URL, Via: via, Title: c.Title, MIMEType: c.Type,
		ContentType: feed.ContentTypeOf(c.URL, c.Title), Robots: r.robotsVerdict(c.URL)}
	r.ev.Candidates = append(r.ev.Candidates, cand)
	return cand
}

func (r *run) find(kind, u string) *Candidate {
	for _, c := range r.ev.Candidates {
		if c.Kind == kind && c.URL == u {
			return c
		}
	}
	return nil
}

// readFeeds fetches and parses the feed candidates not yet fetched, in the
// order found, stopping once a fresh news feed is known.
func (r *run) readFeeds(ctx context.Context) {
	for _, c := range r.ev.Candidates {
		if c.Kind != KindFeed || c.Fetched || c.Skipped != "" {
			continue
		}
		if r.fetches(KindFeed) >= r.d.cfg.MaxFeedFetches || !r.canSpend(ctx) {
			return
		}
		if r.haveFreshFeedFor(c.ContentType) {
			c.Skipped = SkipNotNeeded
			continue
		}
		r.fetchFeed(ctx, c)
	}
}

// fetches counts the candidates of a kind that were requested.
func (r *run) fetches(kind string) int {
	n := 0
	for _, c := range r.ev.Candidates {
		if c.Kind == kind && c.Fetched {
			n++
		}
	}
	return n
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

func (r *run) fetchFeed(ctx context.Context, c *Candidate) {
	if !r.claim(c) {
		return
	}
	resp, err := r.do(ctx, fetch.Request{URL: c.URL, Kind: fetch.KindFeed})
	if err != nil {
		c.Error = failReason(err)
		return
	}
	if !c.answered(resp) {
		return
	}
	info, err := feed.Parse(resp.Body)
	if err != nil {
		if errors.Is(err, feed.ErrNotFeed) {
			c.Error = "not_a_feed"
			if isHTML(c.MIMEType, resp.Body) {
				c.Format = "html"
			}
		} else {
			c.Error = "feed_parse_error"
		}
		return
	}
	c.Format, c.Items, c.Name = info.Format, info.Items, info.Title
	c.Newest, c.Oldest = timePtr(info.Newest), timePtr(info.Oldest)
}

// haveFreshFeed reports whether a fresh feed carries news.
func (r *run) haveFreshFeed() bool { return r.haveFreshFeedFor("news") }

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

// knownSitemapPaths are tried, in order, when robots.txt names no
// sitemap; newsSitemapPaths when no news sitemap was found either.
var (
	knownSitemapPaths = []string{"/sitemap.xml", "/sitemap_index.xml", "/sitemap-index.xml", "/sitemap.txt"}
	newsSitemapPaths  = []string{"/news-sitemap.xml", "/sitemap_news.xml", "/sitemap/news.xml", "/news_sitemap.xml"}
)

// readSitemaps reads the robots.txt sitemaps (or the known paths when it
// names none), following indexes, then looks for a news sitemap at the
// known news paths when none was found and no fresh feed is known.
func (r *run) readSitemaps(ctx context.Context) {
	if len(r.ev.Robots.Sitemaps) > 0 {
		for _, u := range r.ev.Robots.Sitemaps {
			r.addSitemap(u, ViaRobots, "", 0)
		}
		r.walkSitemaps(ctx)
	} else {
		for _, p := range knownSitemapPaths {
			c := r.addSitemap(r.site.String()+p, ViaKnownPath, "", 0)
			r.walkSitemaps(ctx)
			if c != nil && c.usable() {
				break
			}
		}
	}
	if r.haveNewsSitemap() || r.haveFreshFeed() {
		return
	}
	for _, p := range newsSitemapPaths {
		c := r.addSitemap(r.site.String()+p, ViaKnownPath, "", 0)
		r.walkSitemaps(ctx)
		if c != nil && c.usable() && c.NewsItems > 0 {
			return
		}
	}
}

func (r *run) haveNewsSitemap() bool {
	for _, c := range r.ev.Candidates {
		if c.Kind == KindSitemap && c.usable() && c.NewsItems > 0 {
			return true
		}
	}
	return false
}

func (r *run) addSitemap(u, via, parent string, depth int) *Candidate {
	if r.find(KindSitemap, u) != nil {
		return nil
	}
	ct := "news"
	if g := feed.ContentTypeOf(u, ""); g != "news" {
		ct = g
	}
	c := &Candidate{Kind: KindSitemap, URL: u, Via: via, Parent: parent, Depth: depth, ContentType: ct, Robots: r.robotsVerdict(u)}
	r.ev.Candidates = append(r.ev.Candidates, c)
	return c
}

// walkSitemaps reads sitemap candidates not yet fetched, children of
// indexes included (news-looking children first), within the sitemap
// fetch cap, the depth cap and the budget.
func (r *run) walkSitemaps(ctx context.Context) {
	for {
		c := r.nextSitemap()
		if c == nil {
			return
		}
		if r.fetches(KindSitemap) >= r.d.cfg.MaxSitemapFetches || !r.canSpend(ctx) {
			return
		}
		r.fetchSitemap(ctx, c)
	}
}

func (r *run) nextSitemap() *Candidate {
	var best *Candidate
	for _, c := range r.ev.Candidates {
		if c.Kind != KindSitemap || c.Fetched || c.Skipped != "" {
			continue
		}
		if best == nil || (newsLike(c.URL) && !newsLike(best.URL)) {
			best = c
		}
	}
	return best
}

func newsLike(u string) bool { return strings.Contains(strings.ToLower(u), "news") }

func (r *run) fetchSitemap(ctx context.Context, c *Candidate) {
	if !r.claim(c) {
		return
	}
	resp, err := r.d.f.Stream(ctx, fetch.Request{URL: c.URL, Kind: fetch.KindSitemap, Admit: r.admit})
	if err != nil {
		c.Error = failReason(err)
		return
	}
	defer resp.Body.Close()
	if !c.answered(&resp.Response) {
		return
	}
	var children []string
	res, err := sitemap.Parse(resp.Body, sitemap.Options{}, func(e sitemap.Entry) error {
		if len(children) < 1000 {
			children = append(children, e.Loc)
		}
		return nil
	})
	c.Format, c.Gzip, c.NewsItems = string(res.Type), res.Gzip, res.News
	if !res.Newest.IsZero() {
		c.Newest = timePtr(res.Newest)
	}
	if err != nil {
		switch {
		case errors.Is(err, sitemap.ErrNotSitemap):
			c.Error = "not_a_sitemap"
		case errors.Is(err, sitemap.ErrDoctype):
			c.Error = "doctype_refused"
		case errors.Is(err, sitemap.ErrTooLarge):
			c.Error = "too_large"
		default:
			c.Error = "sitemap_parse_error"
		}
		if res.Entries == 0 || c.Error == "not_a_sitemap" || c.Error == "doctype_refused" {
			return
		}
		c.Error = ""
	}
	if res.Type != sitemap.TypeIndex {
		c.Items = res.Entries
		r.addToParents(c)
		return
	}
	c.Children = res.Entries
	for _, child := range children {
		cc := r.addSitemap(child, ViaSitemapIndex, c.URL, c.Depth+1)
		if cc != nil && cc.Depth > r.d.cfg.MaxSitemapDepth {
			cc.Skipped = SkipDepth
		}
	}
}

// addToParents adds a child sitemap's counts to the indexes above it.
func (r *run) addToParents(c *Candidate) {
	for p := c.Parent; p != ""; {
		pc := r.find(KindSitemap, p)
		if pc == nil {
			return
		}
		pc.Items += c.Items
		pc.NewsItems += c.NewsItems
		if c.Newest != nil && (pc.Newest == nil || c.Newest.After(*pc.Newest)) {
			pc.Newest = c.Newest
		}
		p = pc.Parent
	}
}

// readSections fetches the best section pages: they are the HTML
// fallback, and their feed links are candidates too.
func (r *run) readSections(ctx context.Context) {
	fetched := 0
	for _, c := range r.sectionsByScore() {
		if fetched >= r.d.cfg.MaxSections || !r.canSpend(ctx) {
			return
		}
		if !r.claim(c) {
			continue
		}
		fetched++
		resp, err := r.do(ctx, fetch.Request{URL: c.URL, Kind: fetch.KindPage})
		if err != nil {
			c.Error = failReason(err)
			continue
		}
		if !c.answered(resp) || !isHTML(c.MIMEType, resp.Body) {
			continue
		}
		c.Format = "html"
		page, _ := feed.FromHTML(resp.FinalURL, bytes.NewReader(resp.Body), int64(len(resp.Body)))
		c.Items = articleLinks(resp.Body, resp.FinalURL)
		for _, f := range page.Feeds {
			if cand := r.addFeed(f, ""); cand != nil {
				cand.Via = ViaSection + ":" + string(f.Source)
				if cand.ContentType == "news" && c.ContentType != "" {
					cand.ContentType = c.ContentType
				}
			}
		}
		r.readFeeds(ctx)
		if r.haveFreshFeed() {
			return
		}
	}
}

// minSectionScore is the lowest section score worth a request: below it
// a link is more likely an article than a listing.
const minSectionScore = 0.5

func (r *run) sectionsByScore() []*Candidate {
	var out []*Candidate
	for _, c := range r.ev.Candidates {
		if c.Kind == KindSection && !c.Fetched && c.Skipped == "" && c.Score >= minSectionScore {
			out = append(out, c)
		}
	}
	// Stable insertion sort: few sections, keep discovery order on ties.
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j].Score > out[j-1].Score; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

// tryWellKnownFeeds probes the well-known and CMS feed paths not yet
// tried, stopping at the first fresh news feed.
func (r *run) tryWellKnownFeeds(ctx context.Context) {
	tried := 0
	for _, wk := range feed.WellKnownPaths() {
		if tried >= r.d.cfg.MaxWellKnown || !r.canSpend(ctx) || r.haveFreshFeed() {
			return
		}
		u := r.site.String() + wk.Path
		if r.find(KindFeed, u) != nil || r.fetched[u] {
			continue
		}
		c := r.addFeed(feed.Candidate{URL: u, Source: feed.SourceWellKnown}, "")
		if c == nil {
			continue
		}
		if wk.ContentType != "" {
			c.ContentType = wk.ContentType
		}
		tried++
		r.fetchFeed(ctx, c)
	}
}

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
