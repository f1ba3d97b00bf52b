package liveness

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/fetch"
)

// Reasons of a LivenessResult set here. The network and DNS reasons
// (nxdomain, dns_timeout, servfail, no_address, connect_refused,
// connect_timeout, connect_reset, unreachable, timeout, tls_error,
// too_many_redirects, bad_redirect, protocol_error, blocked_address,
// dns_error, …) are fetch's Reason values, passed through unchanged.
const (
	ReasonOK        = "ok"        // alive: a 2xx or final 3xx page
	ReasonHTTP4xx   = "http_4xx"  // alive: another 4xx (404 at /); Detail is the status
	ReasonHTTP401   = "http_401"  // blocked
	ReasonHTTP403   = "http_403"  // blocked (bot walls)
	ReasonHTTP429   = "http_429"  // blocked (rate limited)
	ReasonChallenge = "challenge" // blocked: an interstitial challenge page
	ReasonParked    = "parked"    // parked
	ReasonHTTP5xx   = "http_5xx"  // dead after the retry; Detail is the status
	// ReasonCanceled comes with no verdict: the caller's context ended.
	ReasonCanceled = fetch.ReasonCanceled
)

// Defaults of Config.
const (
	DefaultRetries    = 1
	DefaultRetryDelay = 2 * time.Second
	DefaultLookups    = 512
	DefaultFetches    = 512
)

// Config configures a Prober. Zero fields take their defaults.
type Config struct {
	// Retries is how many more rounds a domain gets before a dead
	// verdict; default 1 (DESIGN: one timeout does not kill a domain),
	// negative for none.
	Retries int
	// RetryDelay is the wait before a retry round; default 2s, negative
	// for none.
	RetryDelay time.Duration
	// Lookups is how many DNS lookups batch chunks run ahead of their
	// fetches at once, all chunks together (ChunkProcessor); default 512.
	// A name whose server does not answer holds one for DNSTimeout.
	Lookups int
	// Fetches is how many domains batch chunks fetch at once, all chunks
	// together (ChunkProcessor); default 512. The fetch client lets
	// fewer exchanges run at once (its Concurrency, and the slow ones
	// parked): this only keeps the rest of a batch from waiting in its
	// queue as thousands of goroutines, each with its stack and request.
	Fetches int
	// Now is the clock for CheckedAt; default time.Now.
	Now func() time.Time
}

// Prober probes domains for liveness through a fetch.Client, which
// enforces politeness, timeouts and the SSRF guard. It is safe for
// concurrent use.
type Prober struct {
	client  *fetch.Client
	cfg     Config
	lookups chan struct{} // slots of Config.Lookups
	fetches chan struct{} // slots of Config.Fetches
	// beforeRetry, when set (by tests), runs after a round that asks for a
	// retry and before the wait.
	beforeRetry func(domain string, round int)
}

// New returns a Prober that fetches through client.
func New(client *fetch.Client, cfg Config) *Prober {
	switch {
	case cfg.Retries == 0:
		cfg.Retries = DefaultRetries
	case cfg.Retries < 0:
		cfg.Retries = 0
	}
	switch {
	case cfg.RetryDelay == 0:
		cfg.RetryDelay = DefaultRetryDelay
	case cfg.RetryDelay < 0:
		cfg.RetryDelay = 0
	}
	if cfg.Lookups <= 0 {
		cfg.Lookups = DefaultLookups
	}
	if cfg.Fetches <= 0 {
		cfg.Fetches = DefaultFetches
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Prober{client: client, cfg: cfg, lookups: make(chan struct{}, cfg.Lookups), fetches: make(chan struct{}, cfg.Fetches)}
}

// outcome is a round's verdict before retries are considered.
type outcome struct {
	verdict seedengine.Verdict
	reason  string
	detail  string
}

// Probe probes domain (a registrable host name) and returns what it
// found; the rules are in the package documentation. It never fails: a
// probe that could not be made has an empty Verdict and a Reason
// (canceled when ctx ended), which must not be taken as the domain's
// state.
func (p *Prober) Probe(ctx context.Context, domain string) seedengine.LivenessResult {
	return p.finish(ctx, p.resolve(ctx, domain, nil), nil)
}

// pending is a probe whose DNS ran ahead of its fetches: either DNS alone
// decided it (done, res is the result), or round's lookup found addresses
// (dns) and that round's fetches come next.
type pending struct {
	domain string
	res    seedengine.LivenessResult
	round  int
	dns    fetch.DNSResult
	done   bool
}

// resolve runs a probe's rounds for as long as they end at DNS: a name
// that resolves stops it at that round's fetches; a name that does not
// resolve is retried as any dead round is, and when its last round fails
// too, DNS alone gave the verdict. It is called holding one slot of gate
// (when gate is not nil), gives the slot back while it waits to retry,
// takes one again for the next lookup and has given it back when it
// returns: lookups are bounded, waits are not.
func (p *Prober) resolve(ctx context.Context, domain string, gate chan struct{}) *pending {
	domain = strings.TrimSuffix(strings.ToLower(strings.TrimSpace(domain)), ".")
	pr := &pending{domain: domain, res: seedengine.LivenessResult{Domain: domain, CheckedAt: p.cfg.Now().UTC()}}
	g := held(gate)
	defer g.release()
	for round := 1; ; round++ {
		pr.res.Rounds = round
		d, err := p.client.Lookup(ctx, domain)
		pr.res.DNS = dnsFacts(d)
		if err == nil {
			pr.round, pr.dns = round, d
			return pr
		}
		if p.over(ctx, &pr.res, dnsOutcome(err), round) {
			pr.done = true
			return pr
		}
		if !p.waitFree(ctx, domain, round, &g) {
			pr.res, pr.done = canceled(pr.res), true
			return pr
		}
	}
}

// gateSlot is a slot of a gate (a counting semaphore) that a probe holds
// while it works and gives back while it waits to retry; a nil gate is
// none.
type gateSlot struct {
	gate chan struct{}
	held bool
}

// held is the slot of gate its caller already took.
func held(gate chan struct{}) gateSlot { return gateSlot{gate: gate, held: gate != nil} }

func (g *gateSlot) release() {
	if g.held {
		<-g.gate
		g.held = false
	}
}

// waitFree waits RetryDelay before the round after round holding no slot
// of g's gate, and takes one again for that round; false when ctx ended
// first.
func (p *Prober) waitFree(ctx context.Context, domain string, round int, g *gateSlot) bool {
	g.release()
	if !p.wait(ctx, domain, round) {
		return false
	}
	if g.gate == nil {
		return true
	}
	select {
	case g.gate <- struct{}{}:
		g.held = true
		return true
	case <-ctx.Done():
		return false
	}
}

// finish runs the rest of a probe that resolve left pending: the fetches
// of the round whose name resolved, at the addresses found, then any
// retry rounds (DNS and fetches each). Like resolve, it is called holding
// one slot of gate (when gate is not nil), gives it back while it waits
// to retry and has given it back when it returns.
func (p *Prober) finish(ctx context.Context, pr *pending, gate chan struct{}) seedengine.LivenessResult {
	g := held(gate)
	defer g.release()
	res := pr.res
	if pr.done {
		return res
	}
	for round := pr.round; ; round++ {
		res.Rounds = round
		var o outcome
		if round == pr.round {
			o = p.fetchRound(ctx, pr.domain, round, pr.dns, &res)
		} else {
			o = p.round(ctx, pr.domain, round, &res)
		}
		if p.over(ctx, &res, o, round) {
			return res
		}
		if !p.waitFree(ctx, pr.domain, round, &g) {
			return canceled(res)
		}
	}
}

// over applies a round's outcome to res and reports whether the probe is
// over: with a verdict, or canceled (a failure while the caller gave up is
// the caller's doing). A dead round with retries left is not over.
func (p *Prober) over(ctx context.Context, res *seedengine.LivenessResult, o outcome, round int) bool {
	if o.reason == ReasonCanceled || (ctx.Err() != nil && o.verdict != seedengine.VerdictAlive) {
		*res = canceled(*res)
		return true
	}
	if o.verdict != seedengine.VerdictDead || round > p.cfg.Retries {
		res.Verdict, res.Reason, res.Detail = o.verdict, o.reason, o.detail
		return true
	}
	return false
}

// wait waits RetryDelay before the round after round; false when ctx
// ended first.
func (p *Prober) wait(ctx context.Context, domain string, round int) bool {
	if p.beforeRetry != nil {
		p.beforeRetry(domain, round)
	}
	return sleep(ctx, p.cfg.RetryDelay) == nil
}

func canceled(res seedengine.LivenessResult) seedengine.LivenessResult {
	res.Verdict, res.Reason, res.Detail = "", ReasonCanceled, ""
	return res
}

func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// round runs one DNS lookup and the HTTPS (then HTTP) fetch, replacing
// res's per-round facts; attempts accumulate.
func (p *Prober) round(ctx context.Context, domain string, round int, res *seedengine.LivenessResult) outcome {
	d, err := p.client.Lookup(ctx, domain)
	res.DNS = dnsFacts(d)
	if err != nil {
		resetFetchFacts(res)
		return dnsOutcome(err)
	}
	return p.fetchRound(ctx, domain, round, d, res)
}

// dnsOutcome is the outcome of a round whose lookup failed: dead, unless
// our resolver, the input or the caller failed, not the domain.
func dnsOutcome(err error) outcome {
	reason, detail := failure(err)
	switch reason {
	case fetch.ReasonDNSError, fetch.ReasonBadRequest, ReasonCanceled:
		return outcome{reason: reason, detail: detail}
	}
	return outcome{verdict: seedengine.VerdictDead, reason: reason, detail: detail}
}

func resetFetchFacts(res *seedengine.LivenessResult) {
	res.HTTPSOK, res.HTTPFallback = false, false
	res.Redirects, res.FinalURL, res.LeftRegistrable = nil, "", false
	res.Status, res.TLS, res.ResponseMS = 0, nil, 0
}

// fetchRound runs a round's HTTPS (then HTTP) fetch of domain, whose
// lookup found d: the connections go to d's addresses, which res.DNS
// records, without asking DNS again.
func (p *Prober) fetchRound(ctx context.Context, domain string, round int, d fetch.DNSResult, res *seedengine.LivenessResult) outcome {
	resetFetchFacts(res)
	ctx = fetch.WithLookup(ctx, d)

	resp, err := p.fetch(ctx, "https://"+domain+"/", round, res)
	if err == nil {
		res.HTTPSOK = true
		return p.judge(resp, res)
	}
	reason, detail := failure(err)
	var fe *fetch.Error
	if errors.As(err, &fe) {
		res.Redirects = hops(fe.Redirects)
		if fe.TLS != nil {
			res.TLS = tlsFacts(fe.TLS, detail)
		} else if reason == fetch.ReasonTLS {
			res.TLS = &seedengine.LivenessTLS{Error: detail}
		}
	}
	if reason == ReasonCanceled {
		return outcome{reason: reason}
	}
	if len(res.Redirects) > 0 || reason == fetch.ReasonBadRequest {
		// A server answered HTTPS and the chain failed later: plain HTTP
		// would tell nothing new.
		return outcome{verdict: seedengine.VerdictDead, reason: reason, detail: detail}
	}

	resp, herr := p.fetch(ctx, "http://"+domain+"/", round, res)
	if herr == nil {
		res.HTTPFallback = true
		tls := res.TLS
		o := p.judge(resp, res)
		if res.TLS == nil {
			res.TLS = tls // keep the rejected certificate's facts
		}
		return o
	}
	hreason, hdetail := failure(herr)
	if hreason == ReasonCanceled {
		return outcome{reason: hreason}
	}
	if errors.As(herr, &fe) && len(fe.Redirects) > 0 {
		res.Redirects = hops(fe.Redirects)
	}
	if depth(hreason) > depth(reason) {
		reason, detail = hreason, hdetail
	}
	return outcome{verdict: seedengine.VerdictDead, reason: reason, detail: detail}
}

// fetch fetches one URL and records the attempt.
func (p *Prober) fetch(ctx context.Context, url string, round int, res *seedengine.LivenessResult) (*fetch.Response, error) {
	start := time.Now()
	// A 429 is already the verdict (blocked); waiting out its Retry-After
	// would hold the chunk for nothing. A host is asked once: its
	// connection is not kept.
	resp, err := p.client.Do(ctx, fetch.Request{URL: url, Kind: fetch.KindProbe, NoRetryAfterWait: true, NoKeepAlive: true})
	a := seedengine.LivenessAttempt{Round: round, URL: url, DurationMS: time.Since(start).Milliseconds()}
	if err != nil {
		a.Error, a.Detail = failure(err)
	} else {
		a.Status = resp.Status
		a.DurationMS = resp.Duration.Milliseconds()
	}
	res.Attempts = append(res.Attempts, a)
	return resp, err
}

// judge records a response's facts and gives its verdict.
func (p *Prober) judge(resp *fetch.Response, res *seedengine.LivenessResult) outcome {
	res.Status = resp.Status
	res.FinalURL = resp.FinalURL
	res.LeftRegistrable = resp.LeftRegistrable
	res.Redirects = hops(resp.Redirects)
	res.ResponseMS = resp.Duration.Milliseconds()
	if resp.TLS != nil {
		res.TLS = tlsFacts(resp.TLS, "")
	}
	lower := bytes.ToLower(resp.Body)
	s := resp.Status
	switch {
	case isChallenge(resp.Header, lower):
		return outcome{verdict: seedengine.VerdictBlocked, reason: ReasonChallenge}
	case s < 500 && isParked(lower):
		return outcome{verdict: seedengine.VerdictParked, reason: ReasonParked}
	case s == http.StatusUnauthorized:
		return outcome{verdict: seedengine.VerdictBlocked, reason: ReasonHTTP401}
	case s == http.StatusForbidden:
		return outcome{verdict: seedengine.VerdictBlocked, reason: ReasonHTTP403}
	case s == http.StatusTooManyRequests:
		return outcome{verdict: seedengine.VerdictBlocked, reason: ReasonHTTP429}
	case s >= 500:
		return outcome{verdict: seedengine.VerdictDead, reason: ReasonHTTP5xx, detail: strconv.Itoa(s)}
	case s >= 400:
		return outcome{verdict: seedengine.VerdictAlive, reason: ReasonHTTP4xx, detail: strconv.Itoa(s)}
	}
	return outcome{verdict: seedengine.VerdictAlive, reason: ReasonOK}
}

// failure returns the fetch reason and detail of err.
func failure(err error) (string, string) {
	var fe *fetch.Error
	if errors.As(err, &fe) {
		return fe.Reason, fe.Detail
	}
	return fetch.Reason(err), ""
}

// depth ranks how far a failed fetch got, so that a dead verdict names the
// attempt that learned the most: a TLS handshake beats a reset or a
// timeout, which beat a connection never made.
func depth(reason string) int {
	switch reason {
	case fetch.ReasonTLS, fetch.ReasonTooManyRedirects, fetch.ReasonBadRedirect, fetch.ReasonProtocol, fetch.ReasonDecode:
		return 3
	case fetch.ReasonConnectReset, fetch.ReasonTimeout:
		return 2
	case fetch.ReasonConnectRefused, fetch.ReasonConnectTimeout, fetch.ReasonUnreachable:
		return 1
	}
	return 0
}

func dnsFacts(d fetch.DNSResult) seedengine.LivenessDNS {
	out := seedengine.LivenessDNS{Rcode: d.Rcode, DurationMS: d.Duration.Milliseconds()}
	for _, a := range d.A {
		out.A = append(out.A, a.String())
	}
	for _, a := range d.AAAA {
		out.AAAA = append(out.AAAA, a.String())
	}
	return out
}

func tlsFacts(t *fetch.TLSInfo, detail string) *seedengine.LivenessTLS {
	out := &seedengine.LivenessTLS{Valid: t.Valid, Issuer: t.Issuer, NotAfter: t.NotAfter, NameMatch: t.NameMatch}
	if !t.Valid {
		out.Error = detail
		if out.Error == "" {
			out.Error = t.Error
		}
	}
	return out
}

func hops(hs []fetch.Hop) []seedengine.LivenessRedirect {
	if len(hs) == 0 {
		return nil
	}
	out := make([]seedengine.LivenessRedirect, len(hs))
	for i, h := range hs {
		out[i] = seedengine.LivenessRedirect{URL: h.URL, Status: h.Status, Location: h.Location}
	}
	return out
}
