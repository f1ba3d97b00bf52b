package fetch

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strings"
	"sync"
	"time"

	"github.com/miekg/dns"
)

// resolvConf is where Lookup finds the system's DNS server when no
// DNSServer is configured.
const resolvConf = "/etc/resolv.conf"

// Rcodes of a DNSResult besides the DNS ones ("NOERROR", "NXDOMAIN",
// "SERVFAIL", "REFUSED", …).
const (
	// RcodeTimeout: no answer came in time.
	RcodeTimeout = "TIMEOUT"
	// RcodeError: the DNS server could not be asked (bad address, network
	// error on our side).
	RcodeError = "ERROR"
)

// DNSResult is what Lookup learned about a name. Liveness records it
// whether or not the name resolved, so its fields are set on failure too.
type DNSResult struct {
	Host string `json:"host"`
	// Rcode is the DNS response code ("NOERROR", "NXDOMAIN", "SERVFAIL",
	// …), RcodeTimeout or RcodeError. When the A and AAAA queries disagree
	// it is the one that explains the outcome: NOERROR when any address
	// was found, else NXDOMAIN if either query said so.
	Rcode    string        `json:"rcode"`
	A        []netip.Addr  `json:"a,omitempty"`
	AAAA     []netip.Addr  `json:"aaaa,omitempty"`
	Server   string        `json:"server"`
	Duration time.Duration `json:"duration"`
}

// Addrs returns the A and AAAA addresses together.
func (r DNSResult) Addrs() []netip.Addr {
	return append(append([]netip.Addr(nil), r.A...), r.AAAA...)
}

// dnsLookup asks one DNS server directly, so the rcode (which net.Resolver
// hides) is known.
type dnsLookup struct {
	timeout time.Duration
	server  func() (string, error)
}

func newDNSLookup(server string, timeout time.Duration) *dnsLookup {
	l := &dnsLookup{timeout: timeout}
	if server != "" {
		l.server = func() (string, error) { return server, nil }
	} else {
		l.server = sync.OnceValues(func() (string, error) { return systemDNSServer(resolvConf) })
	}
	return l
}

// systemDNSServer returns the first nameserver of a resolv.conf file.
func systemDNSServer(path string) (string, error) {
	cc, err := dns.ClientConfigFromFile(path)
	if err != nil {
		return "", fmt.Errorf("read %s: %w", path, err)
	}
	if len(cc.Servers) == 0 {
		return "", fmt.Errorf("%s names no nameserver", path)
	}
	return net.JoinHostPort(cc.Servers[0], cc.Port), nil
}

// Lookup resolves host's A and AAAA records and records the response code,
// for liveness. It does not go through the per-host scheduler: a DNS query
// loads the resolver, not the site. The error is a *Error whose Reason is
// nxdomain, no_address, servfail (Detail: the rcode, lower case),
// dns_timeout, dns_error or canceled when no address was found; the result
// is filled in either case.
func (c *Client) Lookup(ctx context.Context, host string) (DNSResult, error) {
	return c.dns.lookup(ctx, host)
}

type lookupKey struct{}

// WithLookup returns a context under which fetches connect to r.Host at
// the addresses of r, a Lookup answer that found some, instead of
// resolving the name again: a liveness probe fetches the addresses it
// looked up and recorded, without a second query. Only r.Host is
// answered so: a redirect to another host resolves as usual. Connect-to
// rules and the SSRF guard apply to these addresses as to any (the
// guard checks each in the dialer). An answer without addresses leaves
// ctx as it is.
func WithLookup(ctx context.Context, r DNSResult) context.Context {
	if len(r.A)+len(r.AAAA) == 0 || r.Host == "" {
		return ctx
	}
	r.Host = normalizeHost(r.Host)
	return context.WithValue(ctx, lookupKey{}, r)
}

type answer struct {
	rcode string
	addrs []netip.Addr
	err   error
}

func (l *dnsLookup) lookup(ctx context.Context, host string) (DNSResult, error) {
	host = normalizeHost(host)
	res := DNSResult{Host: host}
	if ip, err := netip.ParseAddr(strings.Trim(host, "[]")); err == nil {
		res.Rcode = dns.RcodeToString[dns.RcodeSuccess]
		if ip.Is4() {
			res.A = []netip.Addr{ip}
		} else {
			res.AAAA = []netip.Addr{ip}
		}
		return res, nil
	}
	if !validHostName(host) {
		res.Rcode = RcodeError
		return res, &Error{Reason: ReasonBadRequest, URL: host, Err: fmt.Errorf("invalid host name %q", host)}
	}
	server, err := l.server()
	if err != nil {
		res.Rcode = RcodeError
		return res, &Error{Reason: ReasonDNSError, URL: host, Err: err}
	}
	res.Server = server
	start := time.Now()
	var a, aaaa answer
	var wg sync.WaitGroup
	wg.Go(func() { aaaa = l.query(ctx, server, host, dns.TypeAAAA) })
	a = l.query(ctx, server, host, dns.TypeA) // meanwhile: no third goroutine
	wg.Wait()
	res.Duration = time.Since(start)
	res.A, res.AAAA = a.addrs, aaaa.addrs

	noerror := dns.RcodeToString[dns.RcodeSuccess]
	nxdomain := dns.RcodeToString[dns.RcodeNameError]
	switch {
	case len(res.A)+len(res.AAAA) > 0:
		res.Rcode = noerror
		return res, nil
	case ctx.Err() != nil:
		res.Rcode = RcodeTimeout
		return res, &Error{Reason: ReasonCanceled, URL: host, Err: ctx.Err()}
	case a.rcode == nxdomain || aaaa.rcode == nxdomain:
		res.Rcode = nxdomain
		return res, &Error{Reason: ReasonNXDomain, URL: host}
	}
	// Explain by the more telling answer: a failure rcode beats a
	// timeout, which beats our own error, which beats an empty NOERROR.
	main := a
	if rcodeRank(aaaa.rcode) > rcodeRank(a.rcode) {
		main = aaaa
	}
	res.Rcode = main.rcode
	switch main.rcode {
	case noerror:
		return res, &Error{Reason: ReasonNoAddress, URL: host}
	case RcodeTimeout:
		return res, &Error{Reason: ReasonDNSTimeout, URL: host, Err: main.err}
	case RcodeError:
		return res, &Error{Reason: ReasonDNSError, URL: host, Err: main.err}
	}
	return res, &Error{Reason: ReasonServfail, Detail: strings.ToLower(main.rcode), URL: host}
}

func rcodeRank(rcode string) int {
	switch rcode {
	case dns.RcodeToString[dns.RcodeSuccess]:
		return 0
	case RcodeError:
		return 1
	case RcodeTimeout:
		return 2
	}
	return 3
}

// query asks server one question, over UDP and again over TCP when the
// answer was truncated. A lost UDP packet is asked once more within the
// timeout.
func (l *dnsLookup) query(ctx context.Context, server, host string, qtype uint16) answer {
	m := new(dns.Msg)
	m.SetQuestion(dns.Fqdn(host), qtype)
	m.RecursionDesired = true
	m.SetEdns0(1232, false)
	qctx, cancel := context.WithTimeout(ctx, l.timeout)
	defer cancel()
	const attempts = 2
	var r *dns.Msg
	var err error
	for i := range attempts {
		actx, acancel := context.WithTimeout(qctx, l.timeout/attempts)
		client := &dns.Client{Net: "udp", Timeout: l.timeout}
		r, _, err = client.ExchangeContext(actx, m, server)
		acancel()
		if err == nil && r.Truncated {
			client.Net = "tcp"
			r, _, err = client.ExchangeContext(qctx, m, server)
		}
		if err == nil || !isTimeout(err) || qctx.Err() != nil || i == attempts-1 {
			break
		}
	}
	if err != nil {
		if isTimeout(err) || qctx.Err() != nil {
			return answer{rcode: RcodeTimeout, err: err}
		}
		return answer{rcode: RcodeError, err: err}
	}
	ans := answer{rcode: dns.RcodeToString[r.Rcode]}
	if ans.rcode == "" {
		ans.rcode = fmt.Sprintf("RCODE%d", r.Rcode)
	}
	for _, rr := range r.Answer {
		switch v := rr.(type) {
		case *dns.A:
			if ip, ok := netip.AddrFromSlice(v.A.To4()); ok {
				ans.addrs = append(ans.addrs, ip)
			}
		case *dns.AAAA:
			if ip, ok := netip.AddrFromSlice(v.AAAA.To16()); ok {
				ans.addrs = append(ans.addrs, ip)
			}
		}
	}
	return ans
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout())
}

// validHostName accepts DNS names of letters, digits, hyphens and
// underscores in labels of 1–63 bytes, 253 bytes at most.
func validHostName(h string) bool {
	if h == "" || len(h) > 253 {
		return false
	}
	for label := range strings.SplitSeq(h, ".") {
		if label == "" || len(label) > 63 {
			return false
		}
		for i := 0; i < len(label); i++ {
			b := label[i]
			if !(b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || b == '-' || b == '_') {
				return false
			}
		}
	}
	return true
}
