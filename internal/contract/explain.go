package contract

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/fetch"
)

// Verdict says, for one candidate of a contract run, whether it is the
// seed's entry and, when not, the rule that ruled it out, in plain words.
type Verdict struct {
	URL    string `json:"url"`    // the candidate's URL as found
	Chosen bool   `json:"chosen"` // it is the seed's entry
	Usable bool   `json:"usable"` // Choose would accept it ("use this" is offered)
	Rule   string `json:"rule"`   // one of the Rule* constants
	Reason string `json:"reason"` // the rule in plain words for a reviewer
}

// Rules of a Verdict. A candidate that cannot be an entry (Usable false)
// gets one of the first group; a usable one that is not the entry, one
// of the second, which follow decide's order.
const (
	RuleChosen = "chosen" // the seed's entry

	RuleNotFetched       = "not_fetched"       // never requested; Reason says why (a fresh news entry was found, a cap, the budget…)
	RuleRobotsDisallowed = "robots_disallowed" // robots.txt blocks it, or the URL it redirected to
	RuleFailed           = "failed"            // no usable answer: a network failure, a non-2xx status, a body that does not parse
	RuleOffSite          = "off_site"          // on another site, and the evidence does not justify it (see justified)
	RuleNotAFeed         = "not_a_feed"        // a feed candidate that is an HTML page or a feed directory
	RuleNotASitemap      = "not_a_sitemap"     // a sitemap candidate that is not a sitemap
	RuleNotAPage         = "not_a_page"        // a section candidate that is not an HTML page
	RuleEmpty            = "empty"             // a feed without items, a sitemap without URLs, a page without article links

	RuleSameEntry        = "same_entry"         // leads to the same entry URL as the chosen one (or the run's choice)
	RuleReplaced         = "replaced"           // the run's choice, replaced by a reviewer's
	RuleSiblingEntry     = "sibling_entry"      // the entry of the seed of another content type
	RuleOtherContentType = "other_content_type" // carries another content type than the seed's
	RuleOtherEdition     = "other_edition"      // belongs to another of the publisher's editions than the seed's
	RuleStale            = "stale"              // a stale feed, below the chosen one's method
	RuleWeakerMethod     = "weaker_method"      // a method below the chosen one's: fresh feed, news sitemap, sitemap, stale feed, section
	RuleRankedLower      = "ranked_lower"       // a feed from a less trusted place: declared, then linked, then guessed
	RuleNotMainFeed      = "not_main_feed"      // a feed that looks less like the whole site's than the chosen one
	RuleOlder            = "older"              // its newest item is older than the chosen one's
	RuleFewerItems       = "fewer_items"        // as good otherwise, with fewer items or URLs
	RuleChildSitemap     = "child_sitemap"      // a child of a sitemap index, read through the index
	RuleLowerScore       = "lower_score"        // a section page with a lower score
	RuleTie              = "tie"                // as good as the chosen one by every rule
	RuleOverruled        = "overruled"          // the rules rank it above the entry, which a reviewer chose
	RuleNotChosen        = "not_chosen"         // usable, with no entry among the candidates to compare it with
)

// Choose makes the candidate of ev named by candidateURL (its URL as
// found, or its entry URL) the entry of the seed of contentType, as
// decide would have had it won: the same fetch type, entry, schedule,
// confidence and method, with a Why that says a reviewer chose it. A
// candidate of another content type may be chosen. Errors: EINVALID
// naming candidate_url when it is not a candidate of ev or cannot be an
// entry (the reason in plain words, as Explain gives it), EINVALID naming
// content_type, ECONFLICT when there is no evidence to choose from.
//
// cfg.Now defaults to ev.FinishedAt, so that freshness is judged as the
// run judged it.
//
// edition is the seed's edition language (SeedEdition.Language), "" for
// a domain with one edition: only that edition's candidates can be
// chosen, and the decision carries the edition.
func Choose(ev *Evidence, contentType, edition, candidateURL string, cfg Config) (Decision, error) {
	if ev == nil {
		return Decision{}, seedengine.Errorf(seedengine.ECONFLICT, "the seed has no contract evidence to choose a candidate from")
	}
	if err := seedengine.ValidateContentType(contentType); err != nil {
		return Decision{}, err
	}
	if candidateURL == "" {
		return Decision{}, seedengine.FieldErrorf("candidate_url", "candidate_url is required")
	}
	x := newExplainer(ev, contentType, edition, cfg)
	c := x.find(candidateURL, true)
	if c == nil {
		return Decision{}, seedengine.FieldErrorf("candidate_url", "candidate_url is not a candidate of the seed's evidence")
	}
	m := x.methods[c]
	if m == methodNone {
		_, why := x.unusable(c)
		return Decision{}, seedengine.FieldErrorf("candidate_url", "candidate_url cannot be the seed's entry: %s", why)
	}
	d := decision(contentType, c, m, x.now, x.cfg.FreshWithin)
	d.Why = "chosen by a reviewer: " + d.Why
	d.Edition = x.editionOf()
	d.Archive, d.ArchiveWhy = knownArchive(ev, d, x.now)
	return d, nil
}

// Explain gives a Verdict for each candidate of ev, in the evidence's
// order, for the seed of contentType whose entry is chosenURL: the
// candidate it names (by URL as found or by entry URL) is chosen, the
// others say the most specific rule that ruled them out, compared with
// the chosen one in decide's order. chosenURL "" means the run's own
// decision for contentType; one that names no candidate (an entry a
// person typed) leaves every candidate unchosen, and they are compared
// with the run's decision.
//
// cfg.Now defaults to ev.FinishedAt, so that freshness is judged as the
// run judged it.
//
// edition is the seed's edition language, "" for a domain with one: the
// other editions' candidates are not the seed's (other_edition).
func Explain(ev *Evidence, contentType, edition, chosenURL string, cfg Config) []Verdict {
	out := []Verdict{}
	if ev == nil {
		return out
	}
	x := newExplainer(ev, contentType, edition, cfg)
	var decided *Candidate
	for _, d := range ev.Decisions {
		if d.ContentType == contentType && d.Edition.Lang() == x.edition {
			decided = x.find(d.EntryURL, false)
			break
		}
	}
	if chosenURL == "" {
		x.chosen = decided
	} else {
		x.chosen = x.find(chosenURL, false)
	}
	x.decided = decided
	switch {
	case x.chosen != nil && x.methods[x.chosen] != methodNone:
		x.ref, x.refName = x.chosen, "the chosen one"
	case decided != nil && x.methods[decided] != methodNone:
		x.ref, x.refName = decided, "the run's choice"
	}
	for _, c := range ev.Candidates {
		v := Verdict{URL: c.URL, Chosen: c == x.chosen, Usable: x.methods[c] != methodNone}
		switch {
		case v.Chosen:
			v.Rule, v.Reason = RuleChosen, x.chosenReason(c)
		case !v.Usable:
			v.Rule, v.Reason = x.unusable(c)
		default:
			v.Rule, v.Reason = x.compare(c)
		}
		out = append(out, v)
	}
	return out
}

// explainer holds what the verdicts on one evidence share.
type explainer struct {
	ev      *Evidence
	ct      string
	cfg     Config
	now     time.Time
	methods map[*Candidate]method
	// edition is the seed's edition ("" for a domain with one); others
	// are the candidates of the other editions.
	edition string
	others  map[*Candidate]string
	// siblings maps the entry URLs of the other content types'
	// decisions to their content type.
	siblings map[string]string
	chosen   *Candidate // the seed's entry, if a candidate
	decided  *Candidate // the run's decision for ct, if a candidate
	ref      *Candidate // what usable candidates are compared with
	refName  string     // how reasons name ref
}

func newExplainer(ev *Evidence, ct, edition string, cfg Config) *explainer {
	if cfg.Now == nil && !ev.FinishedAt.IsZero() {
		at := ev.FinishedAt
		cfg.Now = func() time.Time { return at }
	}
	cfg = cfg.withDefaults()
	if !hasEditions(ev) {
		edition = "" // evidence from before the domain had editions: all its candidates are the seed's
	}
	x := &explainer{ev: ev, ct: ct, cfg: cfg, now: cfg.Now(), methods: map[*Candidate]method{}, siblings: map[string]string{},
		edition: edition, others: map[*Candidate]string{}}
	for _, c := range ev.Candidates {
		x.methods[c] = classify(ev, c, x.now, cfg.FreshWithin)
		if e := candidateEdition(ev, c); e != edition {
			x.methods[c], x.others[c] = methodNone, e
		}
	}
	for _, d := range ev.Decisions {
		if d.ContentType != ct && d.EntryURL != "" {
			if _, ok := x.siblings[d.EntryURL]; !ok {
				x.siblings[d.EntryURL] = d.ContentType
			}
		}
	}
	return x
}

// find returns the candidate u names, or nil. Several may: the same URL
// found as a feed and as a sitemap, or URLs that redirect to one entry.
// Then one that can be an entry goes first, then one of the seed's
// content type, then one whose URL as found (byURL) or entry URL is u,
// then the first in decide's order.
func (x *explainer) find(u string, byURL bool) *Candidate {
	if u == "" {
		return nil
	}
	var best *Candidate
	for _, c := range x.ev.Candidates {
		if c.URL != u && entry(c) != u {
			continue
		}
		if best == nil || x.before(c, best, u, byURL) {
			best = c
		}
	}
	return best
}

func (x *explainer) before(a, b *Candidate, u string, byURL bool) bool {
	ma, mb := x.methods[a], x.methods[b]
	if ua, ub := ma != methodNone, mb != methodNone; ua != ub {
		return ua
	}
	if ca, cb := a.ContentType == x.ct, b.ContentType == x.ct; ca != cb {
		return ca
	}
	ea, eb := entry(a) == u, entry(b) == u
	if byURL {
		ea, eb = a.URL == u, b.URL == u
	}
	if ea != eb {
		return ea
	}
	if ma == methodNone {
		return false
	}
	n, _ := prefer(a, ma, b, mb)
	return n > 0
}

func (x *explainer) chosenReason(c *Candidate) string {
	s := fmt.Sprintf("the %s seed's entry", x.ct)
	if c != x.decided {
		s += ", chosen by a reviewer"
	}
	if x.methods[c] == methodNone {
		_, why := x.unusable(c)
		s += ", though " + why
	}
	return s
}

// unusable says why a candidate cannot be an entry, in the order a
// reviewer asks: was it fetched, did it answer, is it the site's, is it
// what its kind should be.
func (x *explainer) unusable(c *Candidate) (rule, reason string) {
	if e, ok := x.others[c]; ok {
		return RuleOtherEdition, "a candidate of the publisher's " + e + " edition, not this seed's"
	}
	switch {
	case c.Error == "redirect_"+SkipRobots:
		return RuleRobotsDisallowed, "redirected to a URL robots.txt blocks"
	case c.Robots == RobotsDisallowed || c.Skipped == SkipRobots:
		return RuleRobotsDisallowed, "blocked by robots.txt"
	case !c.Fetched:
		if why := skipWords[c.Skipped]; why != "" {
			return RuleNotFetched, "not fetched: " + why
		}
		return RuleNotFetched, "not fetched"
	case c.Error != "":
		return errorVerdict(c)
	case c.Status == 0:
		return RuleFailed, "got no answer"
	case c.Status < 200 || c.Status > 299:
		return RuleFailed, fmt.Sprintf("answered %d", c.Status)
	case !justified(x.ev, c):
		if sameSite(hostOf(c.URL), x.ev.Domain) {
			return RuleOffSite, "redirected to another site"
		}
		return RuleOffSite, "on another site"
	}
	switch c.Kind {
	case KindFeed:
		switch {
		case c.Format == FormatDirectory:
			return RuleNotAFeed, fmt.Sprintf("a directory page listing %d feeds, not a feed itself", c.Items)
		case c.Format == "html":
			return RuleNotAFeed, "an HTML page, not a feed"
		case c.Items == 0:
			return RuleEmpty, "a feed with no items"
		}
	case KindSitemap:
		if c.Items == 0 && c.Children == 0 {
			return RuleEmpty, "a sitemap with no URLs"
		}
	case KindSection:
		switch {
		case c.Format != "html":
			return RuleNotAPage, "not an HTML page"
		case c.Items == 0:
			return RuleEmpty, "a page with no article links"
		}
	default:
		return RuleNotAFeed, "neither a feed, a sitemap nor a section page"
	}
	return RuleFailed, "cannot be an entry"
}

// skipWords says why a candidate was not fetched (Candidate.Skipped).
var skipWords = map[string]string{
	SkipNotNeeded: "a fresh news entry was already found",
	SkipOverCap:   "enough candidates of its kind were fetched first",
	SkipBudget:    "the domain's request budget was spent",
	SkipDeadline:  "the domain's time was up",
	SkipSeen:      "its URL was fetched as another candidate",
	SkipDepth:     "nested deeper in sitemap indexes than the run reads",
	SkipLowScore:  "it looks more like an article than a section",
}

// errorVerdict words a candidate's Error: what the body turned out to be,
// or the kind of failure, never the message of a fetch (it may hold the
// URL).
func errorVerdict(c *Candidate) (rule, reason string) {
	switch c.Error {
	case "not_a_feed":
		if c.Format == "html" {
			return RuleNotAFeed, "an HTML page, not a feed"
		}
		return RuleNotAFeed, "not a feed"
	case "not_a_sitemap":
		if c.Format == "html" {
			return RuleNotASitemap, "an HTML page, not a sitemap"
		}
		return RuleNotASitemap, "not a sitemap"
	case "feed_parse_error":
		return RuleFailed, "a feed that does not parse"
	case "sitemap_parse_error":
		return RuleFailed, "a sitemap that does not parse"
	case "doctype_refused":
		return RuleFailed, "a sitemap with a DOCTYPE, refused"
	case "too_large":
		return RuleFailed, "a sitemap too large to read"
	}
	if why, ok := failWords[c.Error]; ok {
		return RuleFailed, "could not be fetched: " + why
	}
	return RuleFailed, "could not be fetched"
}

// failWords says what a fetch failure (fetch.Reason) was.
var failWords = map[string]string{
	fetch.ReasonNXDomain:         "the host does not exist",
	fetch.ReasonDNSTimeout:       "DNS timed out",
	fetch.ReasonServfail:         "DNS failed",
	fetch.ReasonDNSError:         "DNS failed",
	fetch.ReasonNoAddress:        "the host has no address",
	fetch.ReasonConnectRefused:   "connection refused",
	fetch.ReasonConnectTimeout:   "connection timed out",
	fetch.ReasonConnectReset:     "connection reset",
	fetch.ReasonUnreachable:      "network unreachable",
	fetch.ReasonTLS:              "TLS failed",
	fetch.ReasonTooManyRedirects: "too many redirects",
	fetch.ReasonBadRedirect:      "a bad redirect",
	fetch.ReasonTimeout:          "timed out",
	fetch.ReasonBodyTooLarge:     "the body is too large",
	fetch.ReasonDecode:           "the body could not be decoded",
	fetch.ReasonProtocol:         "an HTTP protocol error",
	fetch.ReasonBlocked:          "its address is not a public one",
	fetch.ReasonBadRequest:       "the URL cannot be requested",
	fetch.ReasonCanceled:         "the run ended first",
	fetch.ReasonNotAdmitted:      "the run did not admit the request",
	fetch.ReasonNetwork:          "a network error",
	SkipBudget:                   "the domain's request budget ran out",
}

// compare says why a usable candidate that is not the entry is not: it
// leads to the entry anyway, was the run's choice, is another seed's
// entry, carries another content type, or decide's order puts it after
// the entry (or, when a reviewer chose, before).
func (x *explainer) compare(c *Candidate) (rule, reason string) {
	ref := x.ref
	switch {
	case c == x.decided:
		why := "the run's choice"
		if x.chosen != nil {
			why += ", replaced by a reviewer's"
		} else {
			why += ", replaced by an entry the run did not find"
		}
		if ref != nil && ref != c {
			n, by := prefer(c, x.methods[c], ref, x.methods[ref])
			why += ": " + x.contrast(c, ref, n, by)
		}
		return RuleReplaced, why
	case ref != nil && entry(c) == entry(ref):
		return RuleSameEntry, "leads to the same URL as " + x.refName
	}
	if ct, ok := x.siblings[entry(c)]; ok {
		return RuleSiblingEntry, fmt.Sprintf("the %s seed's entry", ct)
	}
	if c.ContentType != x.ct {
		if c.ContentType == "" {
			return RuleOtherContentType, fmt.Sprintf("carries no content type the run recognised, not %s", x.ct)
		}
		return RuleOtherContentType, fmt.Sprintf("carries %s, not %s", c.ContentType, x.ct)
	}
	if ref == nil {
		return RuleNotChosen, "usable, but not the seed's entry"
	}
	n, by := prefer(c, x.methods[c], ref, x.methods[ref])
	why := x.contrast(c, ref, n, by)
	if n > 0 {
		if ref == x.chosen && ref != x.decided {
			return RuleOverruled, "ranked first by the rules (" + why + "), but a reviewer chose the other"
		}
		return RuleOverruled, "ranked first by the rules now (" + why + ")"
	}
	switch by {
	case byMethod:
		if x.methods[c] == methodStaleFeed {
			return RuleStale, why
		}
		return RuleWeakerMethod, why
	case byOrigin:
		return RuleRankedLower, why
	case byMainFeed:
		return RuleNotMainFeed, why
	case byNewest:
		return RuleOlder, why
	case byItems:
		return RuleFewerItems, why
	case byTopLevel:
		return RuleChildSitemap, why
	case byScore:
		return RuleLowerScore, why
	}
	return RuleTie, why
}

// contrast words how c compares with ref by the rule that sets them
// apart, n > 0 when c goes first.
func (x *explainer) contrast(c, ref *Candidate, n int, by criterion) string {
	name := x.refName
	mc, mr := x.methods[c], x.methods[ref]
	switch by {
	case byMethod:
		return fmt.Sprintf("%s, while %s is %s", methodWords(c, mc), name, methodWords(ref, mr))
	case byOrigin:
		return fmt.Sprintf("%s, while %s is %s", originWords(c), name, originWords(ref))
	case byMainFeed:
		return fmt.Sprintf("looks %s like the site's main feed than %s", moreOrLess(n, "more", "less"), name)
	case byNewest:
		return fmt.Sprintf("%s than %s (%s)", moreOrLess(n, "newer", "older"), name, newestAgainst(c.Newest, ref.Newest))
	case byItems:
		unit := "items"
		if c.Kind == KindSitemap {
			unit = "URLs"
		}
		return fmt.Sprintf("%s %s than %s (%d against %d)", moreOrLess(n, "more", "fewer"), unit, name, c.Items, ref.Items)
	case byTopLevel:
		if n > 0 {
			return fmt.Sprintf("a top-level sitemap, while %s is a child of a sitemap index", name)
		}
		if x.ancestor(ref, c) {
			return "part of the sitemap index that is " + name
		}
		return fmt.Sprintf("a child of a sitemap index, while %s is a top-level sitemap", name)
	case byScore:
		return fmt.Sprintf("a %s section score than %s (%.2g against %.2g)", moreOrLess(n, "higher", "lower"), name, c.Score, ref.Score)
	}
	return "as good as " + name + " by every rule"
}

// ancestor reports whether sitemap a is an index above sitemap c.
func (x *explainer) ancestor(a, c *Candidate) bool {
	seen := map[string]bool{}
	for p := c.Parent; p != "" && !seen[p]; {
		if p == a.URL {
			return true
		}
		seen[p] = true
		next := ""
		for _, s := range x.ev.Candidates {
			if s.Kind == KindSitemap && s.URL == p {
				next = s.Parent
				break
			}
		}
		p = next
	}
	return false
}

func moreOrLess(n int, more, less string) string {
	if n > 0 {
		return more
	}
	return less
}

// methodWords names how a candidate would be read.
func methodWords(c *Candidate, m method) string {
	switch m {
	case methodFreshFeed:
		return "a fresh " + c.Format + " feed"
	case methodNewsSitemap:
		return "a Google News sitemap"
	case methodSitemap:
		return "a sitemap"
	case methodStaleFeed:
		if c.Newest == nil {
			return "a stale " + c.Format + " feed (undated)"
		}
		return "a stale " + c.Format + " feed (newest " + c.Newest.UTC().Format(time.DateOnly) + ")"
	case methodSection:
		return "a section page"
	}
	return "not an entry"
}

// originWords says where a feed was found, as feedOrigin ranks it.
func originWords(c *Candidate) string {
	switch feedOrigin(c) {
	case originDeclared:
		return "declared by the site"
	case originLinked:
		return "linked from a page"
	}
	if c.Via == ViaCMSPath {
		return "found at the CMS's default path"
	}
	return "found at a guessed path"
}

// newestAgainst words two newest-item times: by day, or by minute when
// they fall on one day.
func newestAgainst(a, b *time.Time) string {
	layout := time.DateOnly
	if a != nil && b != nil && a.UTC().Format(time.DateOnly) == b.UTC().Format(time.DateOnly) {
		layout = "2006-01-02 15:04 UTC"
	}
	at := func(t *time.Time) string {
		if t == nil {
			return "undated"
		}
		return t.UTC().Format(layout)
	}
	s := at(a) + " against " + at(b)
	if a != nil {
		s = "newest " + s
	}
	return s
}

// candidateEdition is the edition c belongs to: its own, else, when the
// domain has editions, the site's (Evidence.Language, "und" when the
// site's home page names none); "" when the domain has one edition.
func candidateEdition(ev *Evidence, c *Candidate) string {
	if c.Edition != "" {
		return c.Edition
	}
	if !hasEditions(ev) {
		return ""
	}
	return ev.siteLanguage()
}

// editionOf is the edition of the explainer's seed as the run's decision
// of it says (default or not), nil for a domain with one edition.
func (x *explainer) editionOf() *seedengine.SeedEdition {
	if x.edition == "" {
		return nil
	}
	for _, d := range x.ev.Decisions {
		if d.Edition != nil && d.Edition.Language == x.edition {
			e := *d.Edition
			return &e
		}
	}
	e := &seedengine.SeedEdition{Language: x.edition, Host: strings.ToLower(hostOf(x.ev.Site))}
	for _, ed := range x.ev.Editions {
		if ed.Language == x.edition && ed.Dropped == "" {
			e.Host = ed.Host
		}
	}
	return e
}

// hasEditions reports whether the run found the publisher's editions.
func hasEditions(ev *Evidence) bool {
	return slices.ContainsFunc(ev.Editions, func(e EditionEvidence) bool { return e.Dropped == "" })
}
