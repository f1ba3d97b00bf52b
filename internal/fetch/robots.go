package fetch

import (
	"context"
	"net/url"

	"github.com/seedengine/seedengine/internal/robots"
)

// RobotsTxt is a domain's robots.txt as fetched and read with RFC 9309's
// status semantics.
type RobotsTxt struct {
	// URL is the URL asked for last: https://{domain}/robots.txt, or
	// http:// when https gave no HTTP answer.
	URL string
	// Response is the answer; nil when there was none (Err says why).
	Response *Response
	Err      error
	Rules    *robots.Robots
	Status   robots.Status
	// Base is where robots.txt was served from (the final URL after
	// redirects, else URL): Sitemap: lines resolve against it and later
	// requests go to its scheme and host.
	Base *url.URL
}

// FetchRobots fetches https://{domain}/robots.txt through do, following at
// most five redirects (RFC 9309 §2.3.1.2), and again over http when https
// gave no HTTP answer for a reason http would not share (not a DNS
// failure, a refused address, a stopped fetch). 2xx is parsed, 4xx allows
// all, 5xx, 429 and no answer disallow all, and more than five redirects
// count as unavailable (allow all). admit, when set, is every request's
// Admit hook. It never fails: the fetch's error is in Err.
func FetchRobots(ctx context.Context, do func(context.Context, Request) (*Response, error), domain string, admit func(*url.URL) error) RobotsTxt {
	var r RobotsTxt
	for _, scheme := range []string{"https", "http"} {
		r.URL = scheme + "://" + domain + "/robots.txt"
		r.Response, r.Err = do(ctx, Request{URL: r.URL, Kind: KindRobots, MaxRedirects: 5, Admit: admit})
		if r.Err == nil || !retryOverHTTP(r.Err) || ctx.Err() != nil {
			break
		}
	}
	status, body := 0, []byte(nil)
	if r.Response != nil {
		status, body = r.Response.Status, r.Response.Body
	}
	r.Rules, r.Status = robots.ForStatus(status, body)
	if Reason(r.Err) == ReasonTooManyRedirects {
		r.Rules, r.Status = robots.AllowAll(), robots.StatusUnavailable
	}
	r.Base, _ = url.Parse(r.URL)
	if r.Response != nil {
		if u, err := url.Parse(r.Response.FinalURL); err == nil && u.Host != "" {
			r.Base = u
		}
	}
	return r
}

// retryOverHTTP reports whether a failed https fetch is worth repeating
// over http: the server gave no HTTP answer, and not because the name does
// not resolve or the address is refused (http would fail the same way) or
// the fetch was stopped or refused by its caller.
func retryOverHTTP(err error) bool {
	switch Reason(err) {
	case ReasonNXDomain, ReasonServfail, ReasonDNSTimeout, ReasonNoAddress,
		ReasonDNSError, ReasonBlocked, ReasonCanceled, ReasonNotAdmitted,
		ReasonTooManyRedirects, ReasonBadRedirect, ReasonBodyTooLarge,
		ReasonDecode, ReasonBadRequest:
		return false
	}
	return true
}
