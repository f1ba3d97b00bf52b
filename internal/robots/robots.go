package robots

import (
	"net/url"
	"slices"
	"strings"
	"time"
)

// Robots is a parsed robots.txt. It is immutable after Parse and safe for
// concurrent use. A nil *Robots allows everything.
type Robots struct {
	groups      []group
	byToken     map[string][]int32 // lower-case product token → groups naming it
	star        []int32            // groups naming "*"
	sitemaps    []string           // raw Sitemap values in file order
	disallowAll bool               // DisallowAll: the one group applies to every agent
}

type agent struct {
	raw   string // the user-agent value as written ("*" for the global agent)
	token string // lower-case product token, "" for "*" or no token
	star  bool
}

// group is one group as written in the file, before merging.
type group struct {
	agents   []agent
	rules    []rule // sorted by compareRules; empty patterns dropped
	nrules   int    // Allow/Disallow lines, empty ones included
	delay    time.Duration
	hasDelay bool
}

// AllowAll returns rules allowing everything, what RFC 9309 §2.3.1.3 asks
// for when robots.txt is "unavailable" (a 4xx answer).
func AllowAll() *Robots { return &Robots{} }

// DisallowAll returns rules disallowing everything (except /robots.txt) for
// every agent, what RFC 9309 §2.3.1.4 asks for when robots.txt is
// "unreachable" (5xx, network failure).
func DisallowAll() *Robots {
	return &Robots{
		groups: []group{{
			agents: []agent{{raw: "*", star: true}},
			rules:  []rule{newRule("/", false)},
			nrules: 1,
		}},
		star:        []int32{0},
		disallowAll: true,
	}
}

// Status is how a robots.txt answer was classified by ForStatus.
type Status string

// The classifications of RFC 9309 §2.3.1.
const (
	// StatusParsed: a 2xx answer whose body was parsed.
	StatusParsed Status = "parsed"
	// StatusUnavailable: a 4xx answer other than 429, or a redirect chain
	// that ended on a 3xx; everything is allowed.
	StatusUnavailable Status = "unavailable"
	// StatusUnreachable: a 5xx or 429 answer, or no answer at all;
	// everything is disallowed and the fetch should be retried later.
	StatusUnreachable Status = "unreachable"
)

// ForStatus applies RFC 9309 §2.3.1 to the final HTTP status of a robots.txt
// fetch (after following redirects) and its body:
//
//   - 2xx: the body is parsed (StatusParsed).
//   - 3xx: the fetcher stopped following redirects (RFC 9309 §2.3.1.2 lets
//     a crawler treat more than five as unavailable): allow all
//     (StatusUnavailable).
//   - 4xx except 429: allow all (StatusUnavailable).
//   - 429: disallow all (StatusUnreachable). RFC 9309 does not single it
//     out, but a rate-limited answer says nothing about the rules and Google
//     treats 429 like a 5xx.
//   - 5xx, 0 (no response: network failure, timeout) and anything else
//     (1xx, out-of-range codes): disallow all (StatusUnreachable).
func ForStatus(status int, body []byte) (*Robots, Status) {
	switch {
	case status >= 200 && status < 300:
		return Parse(body), StatusParsed
	case status >= 300 && status < 400:
		return AllowAll(), StatusUnavailable
	case status >= 400 && status < 500 && status != 429:
		return AllowAll(), StatusUnavailable
	default:
		return DisallowAll(), StatusUnreachable
	}
}

// lookup returns the groups that apply to agent: those naming it, else those
// naming "*". The agent is compared whole and case-insensitively with each
// group's product tokens, so callers pass a token ("seedengine"), not a
// full User-Agent header (see ProductToken).
func (r *Robots) lookup(agent string) (idx []int32, specific bool) {
	if r.disallowAll {
		return r.star, false
	}
	if len(r.byToken) > 0 && agent != "" {
		if idx := r.byToken[lowerASCII(agent)]; len(idx) > 0 {
			return idx, true
		}
	}
	return r.star, false
}

// Group returns the rules that apply to the user-agent product token agent:
// all groups naming that token (case-insensitive) merged as RFC 9309 §2.2.1
// asks; otherwise all "*" groups merged; otherwise an empty group that allows
// everything. It never returns nil.
func (r *Robots) Group(agent string) *Group {
	if r == nil {
		return &Group{}
	}
	idx, specific := r.lookup(agent)
	g := &Group{}
	if len(idx) == 1 {
		g.rules = r.groups[idx[0]].rules
	}
	key := lowerASCII(agent)
	for _, i := range idx {
		src := &r.groups[i]
		if len(idx) > 1 {
			g.rules = append(g.rules, src.rules...)
		}
		g.nrules += src.nrules
		if src.hasDelay && (!g.hasDelay || src.delay > g.delay) {
			g.delay, g.hasDelay = src.delay, true
		}
		if specific {
			for _, a := range src.agents {
				if a.token == key && !slices.Contains(g.agents, a.raw) {
					g.agents = append(g.agents, a.raw)
				}
			}
		}
	}
	if len(idx) > 1 {
		slices.SortFunc(g.rules, compareRules)
	}
	if len(idx) > 0 && !specific {
		g.agents = []string{"*"}
	}
	return g
}

// Allowed reports whether agent may fetch rawURL, an absolute URL or a path
// with query (see PathQuery). "/robots.txt" is always allowed. It gives the
// same answer as r.Group(agent).Allowed but does not allocate for typical
// input, so it suits checking many URLs against one parsed file.
func (r *Robots) Allowed(agent, rawURL string) bool {
	path := EscapePattern(PathQuery(rawURL))
	if r == nil || isRobotsTxt(path) {
		return true
	}
	idx, _ := r.lookup(agent)
	bestLen, bestAllow := -1, true
	for _, i := range idx {
		rules := r.groups[i].rules
		for j := range rules {
			ru := &rules[j]
			if len(ru.pattern) < bestLen || len(ru.pattern) == bestLen && (bestAllow || !ru.allow) {
				break // sorted: nothing later can beat the best so far
			}
			if ru.matches(path) {
				bestLen, bestAllow = len(ru.pattern), ru.allow
				break
			}
		}
	}
	return bestAllow
}

// Sitemaps returns the values of the file's Sitemap lines in file order,
// resolved against base (RFC 9309 §2.2.4 wants absolute URLs, but relative
// ones are common and unambiguous), without duplicates. Values that are not
// http or https URLs with a host after resolution are dropped. base may be
// nil, in which case only absolute values are kept. Sitemap lines are global:
// they count wherever they appear, inside groups or not.
func (r *Robots) Sitemaps(base *url.URL) []string {
	if r == nil {
		return nil
	}
	var out []string
	for _, v := range r.sitemaps {
		u, err := url.Parse(v)
		if err != nil {
			continue
		}
		if base != nil {
			u = base.ResolveReference(u)
		}
		if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			continue
		}
		s := u.String()
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// Group is the merged set of rules that apply to one agent. It is immutable
// and safe for concurrent use. A nil *Group allows everything.
type Group struct {
	agents   []string
	rules    []rule
	nrules   int
	delay    time.Duration
	hasDelay bool
}

// Allowed reports whether pathQuery (path plus query, e.g. "/a/b?c=d") may
// be fetched under this group, with Google's longest-match rule (RFC 9309
// §2.2.2): the matching pattern with the most bytes wins, Allow wins a tie,
// and a path no rule matches is allowed. Patterns support '*' and a final
// '$'; path and patterns are normalised with EscapePattern. An empty
// Disallow disallows nothing. "/robots.txt" is always allowed. A value that
// does not start with "/" is taken as a URL and reduced with PathQuery.
func (g *Group) Allowed(pathQuery string) bool {
	if !strings.HasPrefix(pathQuery, "/") {
		pathQuery = PathQuery(pathQuery)
	}
	path := EscapePattern(pathQuery)
	if g == nil || isRobotsTxt(path) {
		return true
	}
	for i := range g.rules {
		if g.rules[i].matches(path) {
			return g.rules[i].allow
		}
	}
	return true
}

// CrawlDelay returns the group's Crawl-delay and whether it had one. The
// value is in (possibly fractional) seconds as written, e.g. "0.5" → 500ms;
// unparsable values are ignored. When several Crawl-delay lines apply
// (repeated in a group, or groups merged for one agent), the largest wins,
// the polite choice. The value is not capped (a huge one saturates at the
// largest time.Duration): callers apply their own ceiling.
func (g *Group) CrawlDelay() (time.Duration, bool) {
	if g == nil {
		return 0, false
	}
	return g.delay, g.hasDelay
}

// Agents returns the user-agent values (as written in the file) whose
// product token matched, in file order, or ["*"] when the group is the
// global fallback, or nothing when no group applied. It is for evidence.
func (g *Group) Agents() []string {
	if g == nil {
		return nil
	}
	return slices.Clone(g.agents)
}

// Rules returns the number of Allow and Disallow lines in the group,
// including empty ones ("Disallow:"), for evidence.
func (g *Group) Rules() int {
	if g == nil {
		return 0
	}
	return g.nrules
}
