package simweb

import (
	"fmt"
	"net/http"
	"strings"
	"time"
)

// Scenario is what a simulated host does wrong (or right). It is a string so
// that mixes can be written on a command line and scenarios read in logs.
type Scenario string

// The scenarios. Each is described in the package documentation; the
// constants are in the order Scenarios returns them.
const (
	ScenarioHealthy          Scenario = "healthy"
	ScenarioRedirectWWW      Scenario = "redirect_www"
	ScenarioRedirectExternal Scenario = "redirect_external"
	ScenarioBotWall          Scenario = "bot_wall"
	ScenarioRateLimited      Scenario = "rate_limited"
	ScenarioChallenge        Scenario = "challenge"
	ScenarioParked           Scenario = "parked"
	ScenarioSlow             Scenario = "slow"
	ScenarioReset            Scenario = "reset"
	ScenarioTLSExpired       Scenario = "tls_expired"
	ScenarioTLSWrongName     Scenario = "tls_wrong_name"
	ScenarioHTTPOnly         Scenario = "http_only"
	ScenarioServerError      Scenario = "server_error"
	ScenarioRedirectLoop     Scenario = "redirect_loop"
	ScenarioNXDomain         Scenario = "nxdomain"
	ScenarioServFail         Scenario = "servfail"
	ScenarioDNSTimeout       Scenario = "dns_timeout"
	ScenarioRefused          Scenario = "refused"
)

var allScenarios = []Scenario{
	ScenarioHealthy, ScenarioRedirectWWW, ScenarioRedirectExternal,
	ScenarioBotWall, ScenarioRateLimited, ScenarioChallenge, ScenarioParked,
	ScenarioSlow, ScenarioReset, ScenarioTLSExpired, ScenarioTLSWrongName,
	ScenarioHTTPOnly, ScenarioServerError, ScenarioRedirectLoop,
	ScenarioNXDomain, ScenarioServFail, ScenarioDNSTimeout, ScenarioRefused,
}

// Scenarios lists every scenario in a fixed order, so that tests can cover
// them all and the generator's allocation does not depend on map order.
func Scenarios() []Scenario { return append([]Scenario(nil), allScenarios...) }

// Valid reports whether s is one of the Scenario constants.
func (s Scenario) Valid() bool {
	for _, v := range allScenarios {
		if s == v {
			return true
		}
	}
	return false
}

// dead reports whether a client that resolves names through simweb's DNS
// can never reach the host's web server.
func (s Scenario) dead() bool {
	switch s {
	case ScenarioNXDomain, ScenarioServFail, ScenarioDNSTimeout, ScenarioRefused:
		return true
	}
	return false
}

// Layout selects the built-in content of a reachable site: which feeds and
// sitemaps it has and where, so that the contract work can be tested against
// the shapes real sites come in without storing any content per site.
type Layout string

// The layouts. The zero value is LayoutWordPress, the shape the fetcher and
// liveness work assume.
const (
	// LayoutWordPress has a home page with <link rel="alternate"> to /feed/ (RSS
	// 2.0) and /comments/feed/, robots.txt with a Sitemap line, /sitemap.xml
	// (urlset), articles under /news/.
	LayoutWordPress Layout = "wordpress"
	// LayoutNews has no feed at all; robots.txt lists /sitemap_index.xml (an
	// index of /news-sitemap.xml, /sitemap-pages.xml and two gzipped
	// children) and /news-sitemap.xml (Google News); articles under /news/.
	LayoutNews Layout = "news"
	// LayoutGov has no <link rel="alternate">; the home page links to
	// /newsroom/, which links to the RSS feed at /newsroom/rss; robots.txt
	// with a Sitemap line and /sitemap.xml.
	LayoutGov Layout = "gov"
	// LayoutBlog has <link rel="alternate"> to an Atom feed (/atom.xml) and a
	// JSON Feed (/feed.json); /sitemap.xml; articles under /posts/.
	LayoutBlog Layout = "blog"
	// LayoutStatic has no feed and no sitemap (robots.txt allows all and names
	// none); the only way in is the HTML section page /news/.
	LayoutStatic Layout = "static"
)

var allLayouts = []Layout{LayoutWordPress, LayoutNews, LayoutGov, LayoutBlog, LayoutStatic}

// Layouts lists every layout in a fixed order.
func Layouts() []Layout { return append([]Layout(nil), allLayouts...) }

// Valid reports whether l is one of the Layout constants.
func (l Layout) Valid() bool {
	for _, v := range allLayouts {
		if l == v {
			return true
		}
	}
	return false
}

// Site configures one simulated host. The zero value of every field but Host
// gives a healthy WordPress-like site. Sites are values: AddSite keeps its own
// copy, but Pages and Robots are shared, so do not change them after adding.
//
// The host's "www." name belongs to the site too: it resolves and serves like
// the apex (for ScenarioRedirectWWW it is the healthy target), unless it was
// added as a site of its own.
type Site struct {
	// Host is the apex host name, e.g. "site00042-example.gov.sg";
	// AddSite lower-cases it and drops a trailing dot.
	Host string
	// Scenario is the behaviour; empty means ScenarioHealthy.
	Scenario Scenario
	// Layout picks the built-in content; empty means LayoutWordPress.
	Layout Layout
	// Robots replaces the robots.txt body (served 200 text/plain, or with
	// RobotsStatus). Nil keeps the layout's default.
	Robots *string
	// RobotsStatus makes /robots.txt answer this status (404, 500, 503, …)
	// with Robots as the body, or a short error page when Robots is nil.
	RobotsStatus int
	// Pages overrides and extends the built-in content. A key is a path
	// ("/feed/") or a path with its query ("/index.php?format=feed&type=rss");
	// the request's path with query is tried first, then the path alone.
	// Pages, Robots and RobotsStatus win over HTTP-level scenarios, so a
	// bot-walled site can still have a reachable robots.txt.
	Pages map[string]Page
	// Dynamic, when set, answers requests Pages does not, before the
	// rest: content that changes as time passes (a Publisher's feeds).
	Dynamic func(r *http.Request) (Page, bool)
	// Delay is how long ScenarioSlow waits before answering; 0 means 5 s.
	Delay time.Duration
	// RedirectTo is where ScenarioRedirectExternal sends clients: a host
	// name (the request's scheme and path are kept) or an absolute URL
	// (used as it is). Empty means "<host with dashes>.moved.example", which
	// AddSite registers as a healthy site so the redirect can be followed.
	RedirectTo string
	// Status replaces the scenario's status code: 301/302/307/308 for the
	// redirect scenarios, 401/403 for bot_wall, 200/403/503 for challenge,
	// 500/502/503/504 for server_error, 200/404 for parked. Zero keeps the
	// default, which for challenge and server_error varies by host.
	Status int
	// RetryAfter is the Retry-After of ScenarioRateLimited, in whole
	// seconds; 0 means 30 s.
	RetryAfter time.Duration
	// NotFound, when set, answers every request that Pages, Robots and the
	// scenario leave unanswered, in place of the layout's built-in content
	// (its home page, articles, feeds and robots.txt alike): a site made of
	// Pages alone then serves nothing else. Its Status defaults to 404.
	NotFound *Page
}

// Page is one configured response.
type Page struct {
	// Status defaults to 200.
	Status int
	// ContentType defaults to "text/html; charset=utf-8"; NoContentType
	// sends none (a browser would sniff the body).
	ContentType string
	// Body is sent as it is (or gzip-compressed with Gzip). For a gzip
	// file such as a sitemap.xml.gz, put the compressed bytes here (see
	// GzipBytes) and leave Gzip false.
	Body []byte
	// Header holds extra response headers (Location, Retry-After, Link, …).
	Header http.Header
	// Gzip sends Body with Content-Encoding: gzip whatever the client's
	// Accept-Encoding said, as some real servers do.
	Gzip bool
	// Wire, when set, is the whole response as written on the
	// connection — status line, header fields, body and any framing —
	// for bytes net/http would not write (its own order and spelling of
	// fields, chunks of its own). The other fields are ignored and the
	// connection is closed after it.
	Wire []byte
}

// NoContentType as a Page's ContentType sends no Content-Type at all.
const NoContentType = "none"

const (
	defaultDelay      = 5 * time.Second
	defaultRetryAfter = 30 * time.Second
	movedZone         = "moved.example"
)

// normalizeHost lower-cases a host name and drops a port and a trailing dot,
// so that Host headers, SNI and DNS questions all find the same site.
func normalizeHost(h string) string {
	if i := strings.LastIndexByte(h, ':'); i >= 0 && isPort(h[i+1:]) &&
		(!strings.Contains(h[:i], ":") || strings.HasSuffix(h[:i], "]")) {
		h = h[:i]
	}
	h = strings.TrimSuffix(h, ".")
	for i := 0; i < len(h); i++ {
		if c := h[i]; c >= 'A' && c <= 'Z' {
			return strings.ToLower(h)
		}
	}
	return h
}

func isPort(s string) bool {
	if s == "" || len(s) > 5 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// movedTarget is the default redirect target of ScenarioRedirectExternal: a
// name whose registrable domain ("moved.example") is never the source's.
func movedTarget(host string) string {
	return strings.ReplaceAll(host, ".", "-") + "." + movedZone
}

func (s *Site) validate() error {
	if s.Host == "" {
		return fmt.Errorf("simweb: site without a host")
	}
	if strings.ContainsAny(s.Host, " /:@?#") {
		return fmt.Errorf("simweb: invalid host %q", s.Host)
	}
	if !s.Scenario.Valid() {
		return fmt.Errorf("simweb: site %s: unknown scenario %q", s.Host, s.Scenario)
	}
	if !s.Layout.Valid() {
		return fmt.Errorf("simweb: site %s: unknown layout %q", s.Host, s.Layout)
	}
	return nil
}
