package fetch

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/net/publicsuffix"

	"github.com/seedengine/seedengine/internal/contentcoding"
)

// maxDialAddrs is how many addresses of one host are tried before giving
// up; with the connect timeout it bounds a dial to a dead multi-homed host.
const maxDialAddrs = 3

// drainLimit is how much of a redirect's body is read so that its
// connection can be reused; bigger bodies close the connection instead.
const drainLimit = 64 << 10

// Request is one fetch.
type Request struct {
	URL string
	// Kind selects the body cap and the default Accept header; default
	// KindPage.
	Kind Kind
	// Method defaults to GET. A 301/302/303 turns anything but HEAD into
	// GET, as browsers do.
	Method string
	// Header is sent with every hop. User-Agent is always ours, and so is
	// Accept-Encoding unless set here (a capture asks for "identity", as
	// archiving crawlers do); a body in any coding the fetch reads is
	// decoded all the same. Authorization and Cookie are dropped when a
	// redirect leaves the host.
	Header http.Header
	// NoRedirects returns the first response even when it is a redirect.
	NoRedirects bool
	// NoRetryAfterWait returns a 429 or 503 at once instead of waiting out
	// its Retry-After and retrying, for callers to whom the status itself
	// is the answer (a liveness probe). The host is still pushed back.
	NoRetryAfterWait bool
	// NoKeepAlive closes each connection once its exchange is over
	// instead of keeping it for the host's next request, for callers
	// that ask a host once (a liveness probe): a batch's idle
	// connections would only hold memory, here and on the servers.
	NoKeepAlive bool
	// MaxRedirects, when above zero, lowers the client's redirect limit
	// for this fetch (robots.txt follows at most 5, RFC 9309).
	MaxRedirects int
	// Capture keeps every exchange as it went over the wire
	// (Response.Exchanges): for an archive. Do only: Stream ignores it.
	Capture bool
	// StrictPorts holds the URL asked for to the port policy too: only 80,
	// 443 and Config.AllowPorts, for a URL that someone outside wrote (an
	// article link of a feed). Without it the asked URL's own port is
	// allowed for every hop of the fetch (a seed's, a domain's entry).
	StrictPorts bool
	// Admit, when set, is called with the URL of every exchange of the
	// fetch (each redirect hop and each Retry-After retry) before waiting
	// for politeness; an error stops the fetch with a not_admitted *Error
	// wrapping it. Callers hold a fetch to a request budget, or redirect
	// hops to robots.txt, with it.
	Admit func(u *url.URL) error
}

// Hop is one redirect response.
type Hop struct {
	URL    string `json:"url"`
	Status int    `json:"status"`
	// Location is the redirect target resolved against URL (the raw header
	// when it could not be parsed).
	Location string `json:"location"`
}

// Response is a fetched response with its redirect chain and the facts
// liveness records. Any HTTP status, 5xx included, is a Response, not an
// error.
type Response struct {
	URL      string      `json:"url"`
	FinalURL string      `json:"final_url"`
	Status   int         `json:"status"`
	Header   http.Header `json:"-"`
	// Body is the decoded body, at most the kind's cap long.
	Body []byte `json:"-"`
	// Truncated says the body went on past the cap (or a compressed body
	// past the cap plus 64 KiB of wire bytes) and was cut.
	Truncated bool `json:"truncated,omitempty"`
	// Redirects holds every redirect response seen, in order.
	Redirects []Hop `json:"redirects,omitempty"`
	// Exchanges are a captured fetch's exchanges as they went over the
	// wire, every redirect hop then the final response (Request.Capture).
	Exchanges []Exchange `json:"-"`
	// LeftRegistrable is true when the final URL's registrable domain (eTLD+1)
	// differs from the start URL's.
	LeftRegistrable bool `json:"left_registrable"`
	// TLS holds the final hop's certificate facts; nil for plain HTTP.
	TLS *TLSInfo `json:"tls,omitempty"`
	// RemoteAddr is the address the final hop was served from.
	RemoteAddr string `json:"remote_addr,omitempty"`
	// Duration is the time spent in this fetch's exchanges (every hop and
	// retry, up to the last body byte for Do and to the headers for
	// Stream), without time queued for politeness.
	Duration time.Duration `json:"duration"`
	// TTFB is the time from the start of the final exchange (DNS, connect
	// and TLS included when the connection was new) to its first response
	// byte.
	TTFB time.Duration `json:"ttfb"`
}

// StreamResponse is a Response whose body is read by the caller. The
// Body field shadows Response.Body, which stays nil.
type StreamResponse struct {
	Response
	// Body is the decoded body; past the kind's cap Read fails with a
	// body_too_large *Error. It must be closed: until then the host slot
	// and a global slot stay taken.
	Body io.ReadCloser
}

// Client is the one outbound HTTP client of seedengine. Everything the
// engine learns about the web goes through it, so politeness (one request
// per host, per-host delays, Retry-After, a global limit) and safety (the
// SSRF guard, caps, timeouts) are enforced in one place. It is safe for
// concurrent use.
type Client struct {
	cfg       Config
	ua        string
	routes    routeTable
	guard     guard
	resolver  *net.Resolver
	dialer    *net.Dialer
	tlsConfig *tls.Config
	transport *http.Transport
	capture   *http.Transport // captured fetches: connections that record what they carry
	sched     *scheduler
	log       *slog.Logger
	dns       *dnsLookup
	metrics   *clientMetrics
}

// New returns a Client for cfg. It fails on an invalid setting (a bad
// connect-to entry, an unreadable CA file), naming it.
func New(cfg Config) (*Client, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	routes, err := parseRoutes(cfg.ConnectTo)
	if err != nil {
		return nil, err
	}
	roots, err := loadRoots(cfg.ExtraCAFile)
	if err != nil {
		return nil, err
	}
	c := &Client{
		cfg:     cfg,
		ua:      fmt.Sprintf("seedengine/%s (+%s)", cfg.Version, cfg.UserAgentContact),
		routes:  routes,
		guard:   guard{allow: cfg.AllowNetworks},
		sched:   newScheduler(cfg.Concurrency, cfg.ParkLimit, cfg.PerHostDelay),
		log:     cfg.Logger,
		metrics: newClientMetrics(),
		tlsConfig: &tls.Config{
			RootCAs:    roots,
			MinVersion: tls.VersionTLS12,
			NextProtos: []string{"http/1.1"},
			// Classical key exchange only: Go's default leads with the
			// hybrid X25519MLKEM768, whose ML-KEM key generation and
			// decapsulation were 14 % of a liveness batch's CPU here
			// (issue 38), and more on the server's side. What we fetch
			// is public, so post-quantum secrecy of the traffic buys
			// nothing; every server speaks X25519 or the NIST curves.
			CurvePreferences: []tls.CurveID{tls.X25519, tls.CurveP256, tls.CurveP384},
		},
		resolver: net.DefaultResolver,
	}
	if cfg.DNSServer != "" {
		server := cfg.DNSServer
		c.resolver = &net.Resolver{
			PreferGo: true,
			Dial: func(ctx context.Context, network, _ string) (net.Conn, error) {
				var d net.Dialer
				return d.DialContext(ctx, network, server)
			},
		}
	}
	c.dns = newDNSLookup(cfg.DNSServer, cfg.DNSTimeout)
	c.dialer = &net.Dialer{
		Timeout:   cfg.ConnectTimeout,
		KeepAlive: 30 * time.Second,
		Control:   c.guard.control,
	}
	c.transport = &http.Transport{
		Proxy:          nil, // a proxy would dial on our behalf, past the guard
		DialContext:    c.dial,
		DialTLSContext: c.dialTLS,
		// HTTP/1.1 only: with one request per host in flight HTTP/2
		// multiplexing gains nothing, and one connection per exchange keeps
		// the accounting (RemoteAddr, TLS facts, resets) plain.
		TLSNextProto:           map[string]func(string, *tls.Conn) http.RoundTripper{},
		DisableCompression:     true, // we decode ourselves, under the cap
		MaxIdleConns:           2 * cfg.Concurrency,
		MaxIdleConnsPerHost:    1,
		IdleConnTimeout:        30 * time.Second,
		MaxResponseHeaderBytes: 64 << 10,
	}
	c.capture = c.transport.Clone()
	c.capture.DialContext, c.capture.DialTLSContext = c.dialCapture, c.dialTLSCapture
	// Pages come a host's delay apart from many hosts at once: room to
	// keep a connection to each of them between its pages.
	c.capture.MaxIdleConns = max(c.capture.MaxIdleConns, captureIdleConns)
	return c, nil
}

// Close closes idle connections. The Client stays usable.
func (c *Client) Close() {
	c.transport.CloseIdleConnections()
	c.capture.CloseIdleConnections()
}

// UserAgent returns the User-Agent sent with every request, for robots.txt
// group matching.
func (c *Client) UserAgent() string { return c.ua }

// Booking is a place in a host's line held by Client.Book for a request
// the caller is about to make.
type Booking struct {
	s    *scheduler
	h    *hostState
	once sync.Once
}

// Done gives the place back: call it once the request was made (or
// will not be). Later calls do nothing.
func (b *Booking) Done() {
	if b != nil && b.s != nil {
		b.once.Do(func() { b.s.unbook(b.h) })
	}
}

// Book is a crawl frontier's question to the politeness scheduler: when
// would a request to host, made now, get its turn? When within horizon
// (counting the requests in flight, waiting or booked before it, one
// per-host delay plus the host's usual exchange time apart), a place is
// held for it and Book returns the Booking and 0: make the request, then
// call Done. When later, nothing is held and Book returns how long to
// wait before asking again; each caller sent away is given a later time
// than the one before, one pace apart, so that a host's backlog comes
// back at the host's pace instead of all at once. again says the caller
// was sent away before and already has its place in that order.
//
// Politeness does not depend on it: Do waits for the host's turn all the
// same. Book lets a caller that would wait long give its worker to
// another host's request meanwhile.
func (c *Client) Book(host string, horizon time.Duration, again bool) (*Booking, time.Duration) {
	h, wait := c.sched.book(normalizeHost(host), horizon, again)
	if h == nil {
		return nil, wait
	}
	return &Booking{s: c.sched, h: h}, 0
}

// SetCrawlDelay raises the minimum delay between requests to host to d (a
// robots.txt Crawl-delay); a d below the configured per-host delay has no
// effect and d ≤ 0 clears it. host is a host name as in a URL, without
// port.
func (c *Client) SetCrawlDelay(host string, d time.Duration) {
	c.sched.setCrawlDelay(normalizeHost(host), d)
}

// Do fetches req.URL, following redirects, and reads the body up to the
// kind's cap. A body over the cap is cut and Truncated is set rather than
// failing: the first 512 KiB of a robots.txt or the head of a huge page are
// still worth having. Failures are *Error values; HTTP statuses are not
// failures.
func (c *Client) Do(ctx context.Context, req Request) (resp *Response, err error) {
	c.metrics.inFlight.Add(1)
	defer func() {
		c.metrics.inFlight.Add(-1)
		c.metrics.done(req.kind(), err)
		if resp != nil {
			c.metrics.bytes.WithLabelValues(string(req.kind())).Add(float64(len(resp.Body)))
		}
	}()
	resp, o, limit, err := c.start(ctx, req)
	if err != nil {
		return nil, err
	}
	defer func() {
		if o.rec != nil {
			// What was not taken (a body that failed) is not kept
			// for the connection's next exchange.
			o.rec.reset()
		}
		o.close()
	}()
	if !hasBody(o.method, o.resp.StatusCode) {
		resp.Duration += time.Since(o.begin)
		o.captured(resp)
		return resp, nil
	}
	wire := &wireLimit{r: o.resp.Body, n: limit + wireSlack}
	dec, err := contentcoding.Decoder(o.resp.Header.Get("Content-Encoding"), wire)
	var body []byte
	var truncated bool
	switch {
	case errors.Is(err, io.EOF):
		err = nil // an empty encoded body
	case err == nil:
		body, truncated, err = readCapped(dec, limit)
		if err != nil && wire.hit {
			truncated, err = true, nil
		}
	default:
		err = &Error{Reason: ReasonDecode, Err: err}
	}
	resp.Duration += time.Since(o.begin)
	if err != nil {
		return nil, c.failure(ctx, o.url, resp.Redirects, wire.readError(o.url.String(), err))
	}
	resp.Body, resp.Truncated = body, truncated
	o.captured(resp)
	return resp, nil
}

// Stream fetches req.URL like Do but hands the body over as a stream, for
// documents (sitemaps) that are parsed as they arrive. The caller must
// close StreamResponse.Body.
func (c *Client) Stream(ctx context.Context, req Request) (sr *StreamResponse, err error) {
	c.metrics.inFlight.Add(1)
	defer func() {
		c.metrics.inFlight.Add(-1)
		c.metrics.done(req.kind(), err)
	}()
	// A stream's body is read after Stream returns: its exchange could
	// not be taken before its slot is given back.
	req.Capture = false
	resp, o, limit, err := c.start(ctx, req)
	if err != nil {
		return nil, err
	}
	resp.Duration += time.Since(o.begin)
	sr = &StreamResponse{Response: *resp}
	if !hasBody(o.method, o.resp.StatusCode) {
		o.close()
		sr.Body = http.NoBody
		return sr, nil
	}
	wire := &wireLimit{r: o.resp.Body, n: limit + wireSlack}
	dec, err := contentcoding.Decoder(o.resp.Header.Get("Content-Encoding"), wire)
	switch {
	case errors.Is(err, io.EOF):
		o.close()
		sr.Body = http.NoBody
		return sr, nil
	case err != nil:
		o.close()
		return nil, c.failure(ctx, o.url, resp.Redirects, &Error{Reason: ReasonDecode, Err: err})
	}
	sr.Body = &streamBody{
		r: &cappedReader{r: dec, n: limit, limit: limit, url: o.url.String(), wire: wire},
		o: o,
	}
	return sr, nil
}

// streamBody releases the exchange when closed.
type streamBody struct {
	r *cappedReader
	o *open
}

func (b *streamBody) Read(p []byte) (int, error) { return b.r.Read(p) }

func (b *streamBody) Close() error {
	b.o.close()
	return nil
}

func hasBody(method string, status int) bool {
	return method != http.MethodHead && status != http.StatusNoContent && status != http.StatusNotModified && status >= 200
}

// open is an exchange whose response body is still open; close releases
// its connection, timeout and politeness slots.
type open struct {
	url       *url.URL
	method    string
	resp      *http.Response
	slot      *slot
	cancel    context.CancelFunc
	begin     time.Time
	remote    string
	ttfb      time.Duration
	notBefore time.Time // Retry-After push for the host, applied on close
	rec       *recConn  // a captured exchange's connection
}

// captured adds the final exchange of a captured fetch to resp, once its
// body has been read.
func (o *open) captured(resp *Response) {
	if o.rec != nil {
		resp.Exchanges = append(resp.Exchanges, o.rec.exchange(o.url.String(), resp.Status))
	}
}

func (o *open) close() {
	_ = o.resp.Body.Close()
	o.cancel()
	o.slot.release(true, o.notBefore)
}

// discard reads a little of the body so the connection can be reused.
func (o *open) discard() {
	_, _ = io.CopyN(io.Discard, o.resp.Body, drainLimit)
}

// start validates req and runs its exchanges up to the final response,
// whose body is left open.
func (c *Client) start(ctx context.Context, req Request) (*Response, *open, int64, error) {
	kind := req.Kind
	if kind == "" {
		kind = KindPage
	}
	if !kind.Valid() {
		return nil, nil, 0, &Error{Reason: ReasonBadRequest, URL: req.URL, Err: fmt.Errorf("unknown fetch kind %q", kind)}
	}
	u, err := url.Parse(req.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" {
		return nil, nil, 0, &Error{Reason: ReasonBadRequest, URL: req.URL, Err: fmt.Errorf("not an absolute http(s) URL")}
	}
	ownPort := -1
	if !req.StrictPorts {
		ownPort = urlPort(u)
	}
	if !c.portAllowed(u, ownPort) {
		return nil, nil, 0, &Error{Reason: ReasonPortNotAllowed, URL: req.URL, Err: fmt.Errorf("port %d is not one fetches may reach", urlPort(u))}
	}
	// Credentials never leave with a request: net/http would send them as
	// Basic auth, to the start host and to wherever it redirects.
	u.User = nil
	u.Fragment, u.RawFragment = "", ""
	method := strings.ToUpper(req.Method)
	if method == "" {
		method = http.MethodGet
	}
	header := make(http.Header, len(req.Header)+3)
	for k, v := range req.Header {
		header[http.CanonicalHeaderKey(k)] = append([]string(nil), v...)
	}
	if header.Get("Accept") == "" {
		header.Set("Accept", acceptFor(kind))
	}
	header.Set("User-Agent", c.ua)
	if header.Get("Accept-Encoding") == "" {
		header.Set("Accept-Encoding", contentcoding.Accept)
	}

	maxRedirects := c.cfg.MaxRedirects
	if req.MaxRedirects > 0 && req.MaxRedirects < maxRedirects {
		maxRedirects = req.MaxRedirects
	}
	resp := &Response{URL: req.URL}
	startHost := u.Hostname()
	seen := map[string]struct{}{u.String(): {}}
	for {
		o, err := c.exchange(ctx, method, u, header, !req.NoRetryAfterWait, req.NoKeepAlive, req.Capture, req.Admit, &resp.Duration)
		if err != nil {
			return nil, nil, 0, c.failure(ctx, u, resp.Redirects, err)
		}
		status := o.resp.StatusCode
		loc := o.resp.Header.Get("Location")
		if req.NoRedirects || !isRedirect(status) || loc == "" {
			resp.FinalURL = u.String()
			resp.Status = status
			resp.Header = o.resp.Header
			resp.TLS = connInfo(o.resp.TLS)
			resp.RemoteAddr, resp.TTFB = o.remote, o.ttfb
			resp.LeftRegistrable = registrable(startHost) != registrable(u.Hostname())
			return resp, o, c.cfg.BodyLimits[kind], nil
		}
		next, perr := u.Parse(loc)
		hop := Hop{URL: u.String(), Status: status, Location: loc}
		if perr == nil {
			next.User = nil
			next.Fragment, next.RawFragment = "", ""
			hop.Location = next.String()
		}
		resp.Redirects = append(resp.Redirects, hop)
		resp.Duration += time.Since(o.begin)
		o.discard()
		if o.rec != nil {
			// Taken before the slot is given back: the connection may
			// carry the host's next exchange once it is.
			resp.Exchanges = append(resp.Exchanges, o.rec.exchange(u.String(), status))
		}
		o.close()
		switch {
		case perr != nil || (next.Scheme != "http" && next.Scheme != "https") || next.Hostname() == "":
			return nil, nil, 0, c.failure(ctx, u, resp.Redirects, &Error{Reason: ReasonBadRedirect, Err: fmt.Errorf("unusable Location %q", loc)})
		case len(resp.Redirects) > maxRedirects:
			return nil, nil, 0, c.failure(ctx, u, resp.Redirects, &Error{Reason: ReasonTooManyRedirects, Err: fmt.Errorf("stopped after %d redirects", maxRedirects)})
		}
		if !c.portAllowed(next, ownPort) {
			return nil, nil, 0, c.failure(ctx, next, resp.Redirects, &Error{Reason: ReasonPortNotAllowed, Err: fmt.Errorf("redirect to port %d, which fetches may not reach", urlPort(next))})
		}
		if _, ok := seen[next.String()]; ok {
			return nil, nil, 0, c.failure(ctx, u, resp.Redirects, &Error{Reason: ReasonTooManyRedirects, Detail: "loop", Err: fmt.Errorf("redirect loop back to %s", next)})
		}
		seen[next.String()] = struct{}{}
		if status == http.StatusMovedPermanently || status == http.StatusFound || status == http.StatusSeeOther {
			if method != http.MethodHead {
				method = http.MethodGet
			}
		}
		if !strings.EqualFold(next.Hostname(), u.Hostname()) {
			header.Del("Authorization")
			header.Del("Cookie")
		}
		u = next
	}
}

// portAllowed is the port policy: a fetch reaches ports 80 and 443, the
// operator's AllowPorts, and own (the port of the URL asked for, -1 for
// none). Other ports of a public host run other services (mail, SSH,
// databases, admin panels) that a redirect or a link should never make
// us talk to.
func (c *Client) portAllowed(u *url.URL, own int) bool {
	p := urlPort(u)
	return p == 80 || p == 443 || p > 0 && p == own || slices.Contains(c.cfg.AllowPorts, p)
}

// urlPort is u's port, the scheme's default when it names none (0 for a
// port that is not a number).
func urlPort(u *url.URL) int {
	if p := u.Port(); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil {
			return 0
		}
		return n
	}
	if u.Scheme == "http" {
		return 80
	}
	return 443
}

// exchange performs one request to u, waiting for politeness first, and
// retries once after a 429/503 whose Retry-After is short enough. spent
// accumulates the time of exchanges that are not returned.
func (c *Client) exchange(ctx context.Context, method string, u *url.URL, header http.Header, waitRetryAfter, noKeepAlive, capture bool, admit func(*url.URL) error, spent *time.Duration) (*open, error) {
	host := normalizeHost(u.Hostname())
	for attempt := 0; ; attempt++ {
		if admit != nil {
			if err := admit(u); err != nil {
				return nil, &Error{Reason: ReasonNotAdmitted, Err: err}
			}
		}
		sl, err := c.sched.acquire(ctx, host)
		if err != nil {
			return nil, &Error{Reason: ReasonCanceled, Detail: "queued", Err: err}
		}
		ectx, cancel := context.WithTimeout(ctx, c.cfg.RequestTimeout)
		o := &open{url: u, method: method, slot: sl, cancel: cancel, begin: time.Now()}
		var remote string
		var ttfb time.Duration
		var rec *recConn
		trace := &httptrace.ClientTrace{
			GotConn: func(i httptrace.GotConnInfo) {
				if a := i.Conn.RemoteAddr(); a != nil {
					remote = a.String()
				}
				rec, _ = i.Conn.(*recConn)
			},
			GotFirstResponseByte: func() { ttfb = time.Since(o.begin) },
		}
		hreq, err := http.NewRequestWithContext(httptrace.WithClientTrace(ectx, trace), method, u.String(), nil)
		if err != nil {
			cancel()
			sl.release(false, time.Time{})
			return nil, &Error{Reason: ReasonBadRequest, Err: err}
		}
		hreq.Header = header.Clone()
		hreq.Close = noKeepAlive
		// Still waiting after ParkAfter (a slow or unreachable host), the
		// exchange gives its global slot up for a parked one.
		parking := time.AfterFunc(c.cfg.ParkAfter, sl.park)
		transport := c.transport
		if capture {
			transport = c.capture
		}
		resp, err := transport.RoundTrip(hreq)
		parking.Stop()
		if err != nil {
			fe := transportError(ctx, ectx, err)
			cancel()
			sl.release(reachedServer(fe.Reason), time.Time{})
			c.log.Debug("fetch failed", "event", "fetch_failed", "url", u.String(), "reason", fe.Reason, "detail", fe.Detail)
			return nil, fe
		}
		o.resp = resp
		c.log.Debug("fetched", "event", "fetch_done", "url", u.String(), "status", resp.StatusCode, "remote_addr", remote)
		if resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusServiceUnavailable {
			if d, ok := retryAfter(resp.Header.Get("Retry-After"), time.Now()); ok && c.cfg.MaxRetryAfter >= 0 {
				o.notBefore = time.Now().Add(min(d, c.cfg.MaxRetryAfter))
				if attempt == 0 && waitRetryAfter && d <= c.cfg.MaxRetryAfter {
					c.log.Debug("retry after", "event", "fetch_retry_after", "url", u.String(), "status", resp.StatusCode, "wait", d)
					*spent += time.Since(o.begin)
					o.discard()
					if rec != nil {
						// The retry is the exchange kept: this one's
						// bytes must not open its record.
						rec.reset()
					}
					o.close()
					continue
				}
			}
		}
		// The trace callbacks ran before RoundTrip returned.
		o.remote, o.ttfb, o.rec = remote, ttfb, rec
		return o, nil
	}
}

// failure completes an *Error with where it happened, and blames the
// caller rather than the server when the caller's context ended.
func (c *Client) failure(ctx context.Context, u *url.URL, hops []Hop, err error) error {
	var fe *Error
	if !errors.As(err, &fe) {
		r, d := classify(err)
		fe = &Error{Reason: r, Detail: d, Err: err}
	} else {
		cp := *fe
		fe = &cp
	}
	if ctx.Err() != nil && fe.Reason != ReasonBlocked && fe.Reason != ReasonBadRequest {
		fe.Reason, fe.Detail = ReasonCanceled, ""
		if !errors.Is(fe.Err, ctx.Err()) {
			fe.Err = fmt.Errorf("%w (%v)", ctx.Err(), fe.Err)
		}
	}
	if fe.URL == "" {
		fe.URL = u.String()
	}
	fe.Redirects = hops
	return fe
}

// transportError classifies a RoundTrip error. ctx is the caller's
// context, ectx the exchange's (with RequestTimeout).
func transportError(ctx, ectx context.Context, err error) *Error {
	var fe *Error
	if errors.As(err, &fe) {
		cp := *fe
		return &cp
	}
	r, d := classify(err)
	if ctx.Err() == nil && ectx.Err() != nil && (r == ReasonCanceled || r == ReasonNetwork) {
		r, d = ReasonTimeout, ""
	}
	return &Error{Reason: r, Detail: d, Err: err}
}

func isRedirect(status int) bool {
	switch status {
	case http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther,
		http.StatusTemporaryRedirect, http.StatusPermanentRedirect:
		return true
	}
	return false
}

// retryAfter parses a Retry-After value, delay-seconds or an HTTP date.
func retryAfter(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		if n < 0 {
			return 0, false
		}
		if n > 1<<31 {
			n = 1 << 31
		}
		return time.Duration(n) * time.Second, true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0), true
	}
	return 0, false
}

// registrable returns host's registrable domain (eTLD+1), or host itself
// for IP addresses and public suffixes.
func registrable(host string) string {
	host = normalizeHost(host)
	if _, err := netip.ParseAddr(host); err == nil {
		return host
	}
	if d, err := publicsuffix.EffectiveTLDPlusOne(host); err == nil {
		return d
	}
	return host
}

// acceptFor returns the Accept header sent for a kind.
func acceptFor(k Kind) string {
	switch k {
	case KindRobots:
		return "text/plain, */*;q=0.5"
	case KindSitemap:
		return "application/xml, text/xml;q=0.9, text/plain;q=0.8, */*;q=0.5"
	case KindFeed:
		return "application/rss+xml, application/atom+xml, application/feed+json, application/json;q=0.9, application/xml;q=0.9, text/xml;q=0.9, */*;q=0.5"
	}
	return "text/html,application/xhtml+xml;q=0.9,*/*;q=0.8" // as browsers write it
}

// resolve returns the addresses of host, an IP literal, a name whose
// Lookup answer the context carries (WithLookup) or a name looked up
// through our resolver within DNSTimeout.
func (c *Client) resolve(ctx context.Context, host string) ([]netip.Addr, error) {
	if ip, err := netip.ParseAddr(host); err == nil {
		return []netip.Addr{ip}, nil
	}
	if known, ok := ctx.Value(lookupKey{}).(DNSResult); ok && known.Host == normalizeHost(host) {
		return known.Addrs(), nil
	}
	lctx, cancel := context.WithTimeout(ctx, c.cfg.DNSTimeout)
	defer cancel()
	name := host
	if c.cfg.DNSServer != "" {
		// Rooted, so that resolv.conf search domains never turn a dead
		// name into queries for local ones. The system resolver gets the
		// name as it is: it may treat rooted names differently (hosts file).
		name = strings.TrimSuffix(host, ".") + "."
	}
	ips, err := c.resolver.LookupNetIP(lctx, "ip", name)
	if err != nil {
		r, d := classify(err)
		if lctx.Err() != nil && ctx.Err() == nil {
			r, d = ReasonDNSTimeout, ""
		}
		return nil, &Error{Reason: r, Detail: d, Err: err}
	}
	return ips, nil
}

// dial opens a TCP connection for addr, the URL's host:port: connect-to
// rules reroute it, the target name is resolved through our resolver, and
// each address passes the SSRF guard in the dialer's control hook.
func (c *Client) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, &Error{Reason: ReasonBadRequest, Err: err}
	}
	target, port, rerouted := c.routes.route(host, port)
	if rerouted && c.cfg.DNSServer != "" {
		// Unlike curl, the original name must still resolve when a DNS
		// server is configured: on a staged or simulated web that server is
		// the authority on which names exist, and a dead name has to look
		// dead even though every connection goes to one address. Without a
		// DNS server nothing is resolved, as in curl, so a connect-to rule
		// never sends a query for a made-up name to the system resolver.
		if _, err := c.resolve(ctx, host); err != nil {
			return nil, err
		}
	}
	ips, err := c.resolve(ctx, target)
	if err != nil {
		return nil, err
	}
	p, err := strconv.ParseUint(port, 10, 16)
	if err != nil {
		return nil, &Error{Reason: ReasonBadRequest, Err: fmt.Errorf("bad port %q", port)}
	}
	var firstErr error
	tried := 0
	for _, ip := range ips {
		if tried == maxDialAddrs || ctx.Err() != nil {
			break
		}
		ap := netip.AddrPortFrom(ip.Unmap(), uint16(p))
		conn, err := c.dialer.DialContext(ctx, network, ap.String())
		if err == nil {
			return conn, nil
		}
		var be *blockedError
		if errors.As(err, &be) {
			if firstErr == nil {
				firstErr = err
			}
			continue
		}
		if tried == 0 || errors.As(firstErr, &be) {
			firstErr = err
		}
		tried++
	}
	if firstErr == nil {
		firstErr = ctx.Err()
	}
	r, d := classify(firstErr)
	var opErr *net.OpError
	if r == ReasonTimeout || (errors.As(firstErr, &opErr) && opErr.Timeout()) {
		r, d = ReasonConnectTimeout, ""
	}
	return nil, &Error{Reason: r, Detail: d, Err: firstErr}
}
