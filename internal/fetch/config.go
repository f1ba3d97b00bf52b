package fetch

import (
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"github.com/seedengine/seedengine"
)

// DefaultUserAgentContact is the contact URL put in the User-Agent when the
// operator names none, so a site owner can always find out who we are.
const DefaultUserAgentContact = "https://github.com/seedengine/seedengine"

// NoPerHostDelay turns the minimum per-host delay off. A zero PerHostDelay
// means the default (1 s), so that a Config built without thought is polite;
// operators who really want no delay (a simulated web, a benchmark) say so
// with this value. A robots Crawl-delay still applies.
const NoPerHostDelay time.Duration = -1

// Defaults of Config; a zero field takes its default.
const (
	DefaultConnectTimeout = 5 * time.Second
	DefaultTLSTimeout     = 5 * time.Second
	DefaultDNSTimeout     = 5 * time.Second
	DefaultRequestTimeout = 20 * time.Second
	DefaultMaxRedirects   = 10
	DefaultConcurrency    = 64
	DefaultPerHostDelay   = time.Second
	DefaultMaxRetryAfter  = 30 * time.Second
)

// Kind says what a fetch is for. Each kind has its own body cap because the
// sizes worth reading differ by orders of magnitude: a robots.txt beyond
// 512 KiB is garbage, a sitemap may legitimately be 50 MiB.
type Kind string

// Kinds of fetch.
const (
	KindRobots  Kind = "robots"
	KindSitemap Kind = "sitemap"
	KindFeed    Kind = "feed"
	KindPage    Kind = "page"
	KindProbe   Kind = "probe"
)

// DefaultLimit returns the default body cap of k in bytes (after
// decompression), or 0 for an unknown kind. The robots cap is above the
// 500 KiB RFC 9309 asks parsers to read; the sitemap cap is the sitemaps.org
// limit for an uncompressed file.
func (k Kind) DefaultLimit() int64 {
	switch k {
	case KindRobots:
		return 512 << 10
	case KindSitemap:
		return 50 << 20
	case KindFeed:
		return 10 << 20
	case KindPage:
		return 5 << 20
	case KindProbe:
		return 256 << 10
	}
	return 0
}

// Valid reports whether k is a known kind.
func (k Kind) Valid() bool { return k.DefaultLimit() > 0 }

// Config configures a Client. Every zero field takes the default named in its
// comment, so Config{} is a safe, polite client for the public web.
type Config struct {
	// UserAgentContact is the URL in "seedengine/<version> (+<contact>)";
	// default DefaultUserAgentContact.
	UserAgentContact string
	// Version is the version in the User-Agent; default seedengine.Version.
	Version string

	// ConnectTimeout bounds one TCP connect (per address tried); default 5s.
	ConnectTimeout time.Duration
	// TLSTimeout bounds the TLS handshake; default 5s.
	TLSTimeout time.Duration
	// DNSTimeout bounds one name resolution; default 5s.
	DNSTimeout time.Duration
	// RequestTimeout bounds one HTTP exchange, from dial to the last body
	// byte, for every hop and retry; default 20s. Time spent queueing for
	// politeness is not counted: only the caller's context bounds that.
	RequestTimeout time.Duration

	// MaxRedirects is how many redirects one fetch follows; default 10.
	MaxRedirects int
	// Concurrency is the global limit of exchanges in flight; default 64.
	// An exchange still waiting for its response after ParkAfter (a slow
	// or unreachable host) gives its place up and waits parked, so that
	// the next hosts are asked meanwhile; at most ParkLimit wait parked
	// (default 16 × Concurrency), the others keep their place. Its host
	// stays busy: politeness does not change. ParkAfter default 250 ms.
	Concurrency int
	ParkAfter   time.Duration
	ParkLimit   int
	// PerHostDelay is the minimum time between the end of one request to a
	// host and the start of the next; default 1s, NoPerHostDelay for none.
	// SetCrawlDelay raises it per host.
	PerHostDelay time.Duration
	// MaxRetryAfter is the longest 429/503 Retry-After that is waited for
	// (and retried once); longer ones return the response as is. Default
	// 30s; a negative value never waits.
	MaxRetryAfter time.Duration
	// BodyLimits overrides the body cap of some kinds, in bytes after
	// decompression; the others keep Kind.DefaultLimit.
	BodyLimits map[Kind]int64

	// DNSServer ("host:port", port 53 when left out) receives every DNS
	// query, for HTTP fetches and Lookup alike. Empty means the system
	// resolver (and, for Lookup, the first server of /etc/resolv.conf).
	DNSServer string
	// ConnectTo reroutes connections at dial time like curl --connect-to
	// ("HOST:PORT:ADDR:PORT", see ParseConnectTo); the first matching entry
	// wins. TLS still uses the URL's host for SNI and verification.
	ConnectTo []string
	// ExtraCAFile is a PEM file of certificates trusted besides the system
	// roots.
	ExtraCAFile string
	// AllowNetworks are special-purpose networks (private, loopback, …) that
	// the SSRF guard lets through.
	AllowNetworks []netip.Prefix
	// AllowPorts are ports a fetch may reach besides 80 and 443 (and the
	// port of the URL it was asked for, unless Request.StrictPorts): a
	// redirect or a link to any other port of a public host is refused
	// with port_not_allowed (see portAllowed).
	AllowPorts []int

	// Logger receives debug events; default discards.
	Logger *slog.Logger
}

// withDefaults returns c with every zero field set, or an EINVALID error
// naming the first bad field.
func (c Config) withDefaults() (Config, error) {
	if c.UserAgentContact == "" {
		c.UserAgentContact = DefaultUserAgentContact
	}
	if strings.ContainsAny(c.UserAgentContact, "()\r\n") {
		return c, fmt.Errorf("user agent contact %q must not contain parentheses or line breaks", c.UserAgentContact)
	}
	if c.Version == "" {
		c.Version = seedengine.Version
	}
	durations := []struct {
		name string
		v    *time.Duration
		def  time.Duration
	}{
		{"connect timeout", &c.ConnectTimeout, DefaultConnectTimeout},
		{"TLS timeout", &c.TLSTimeout, DefaultTLSTimeout},
		{"DNS timeout", &c.DNSTimeout, DefaultDNSTimeout},
		{"request timeout", &c.RequestTimeout, DefaultRequestTimeout},
		{"park after", &c.ParkAfter, 250 * time.Millisecond},
	}
	for _, d := range durations {
		if *d.v < 0 {
			return c, fmt.Errorf("%s must not be negative, got %s", d.name, *d.v)
		}
		if *d.v == 0 {
			*d.v = d.def
		}
	}
	switch {
	case c.PerHostDelay == 0:
		c.PerHostDelay = DefaultPerHostDelay
	case c.PerHostDelay < 0:
		c.PerHostDelay = 0
	}
	switch {
	case c.MaxRetryAfter == 0:
		c.MaxRetryAfter = DefaultMaxRetryAfter
	case c.MaxRetryAfter < 0:
		c.MaxRetryAfter = -1
	}
	if c.MaxRedirects < 0 {
		return c, fmt.Errorf("max redirects must not be negative, got %d", c.MaxRedirects)
	}
	if c.MaxRedirects == 0 {
		c.MaxRedirects = DefaultMaxRedirects
	}
	if c.Concurrency < 0 {
		return c, fmt.Errorf("fetch concurrency must not be negative, got %d", c.Concurrency)
	}
	if c.Concurrency == 0 {
		c.Concurrency = DefaultConcurrency
	}
	if c.ParkLimit < 0 {
		return c, fmt.Errorf("fetch park limit must not be negative, got %d", c.ParkLimit)
	}
	if c.ParkLimit == 0 {
		c.ParkLimit = 16 * c.Concurrency
	}
	limits := make(map[Kind]int64, 5)
	for _, k := range []Kind{KindRobots, KindSitemap, KindFeed, KindPage, KindProbe} {
		limits[k] = k.DefaultLimit()
	}
	for k, v := range c.BodyLimits {
		if !k.Valid() {
			return c, fmt.Errorf("unknown fetch kind %q", k)
		}
		if v <= 0 {
			return c, fmt.Errorf("body limit of %s must be positive, got %d", k, v)
		}
		limits[k] = v
	}
	c.BodyLimits = limits
	if c.DNSServer != "" {
		s, err := normalizeDNSServer(c.DNSServer)
		if err != nil {
			return c, err
		}
		c.DNSServer = s
	}
	allow := make([]netip.Prefix, len(c.AllowNetworks))
	for i, p := range c.AllowNetworks {
		if !p.IsValid() {
			return c, fmt.Errorf("invalid network at position %d", i)
		}
		allow[i] = p.Masked()
	}
	c.AllowNetworks = allow
	for _, p := range c.AllowPorts {
		if p < 1 || p > 65535 {
			return c, fmt.Errorf("allowed port %d must be from 1 to 65535", p)
		}
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	return c, nil
}

// normalizeDNSServer checks a DNS server address and adds port 53 when it
// has none.
func normalizeDNSServer(s string) (string, error) {
	host, port, err := net.SplitHostPort(s)
	if err != nil {
		// No port: a bare host name, IPv4 or (bracketed or not) IPv6.
		host, port = strings.TrimSuffix(strings.TrimPrefix(s, "["), "]"), "53"
	}
	if host == "" || !validPort(port) || strings.ContainsAny(host, "/ ") {
		return "", fmt.Errorf("dns server %q must be host:port", s)
	}
	return net.JoinHostPort(host, port), nil
}

// ConnectToRule is one parsed --connect-to entry: connections for
// (Host, Port) go to (ToHost, ToPort). An empty Host or Port matches any;
// an empty ToHost or ToPort keeps the original, as in curl.
type ConnectToRule struct {
	Host, Port     string
	ToHost, ToPort string
}

// String returns the rule in its HOST:PORT:ADDR:PORT form.
func (r ConnectToRule) String() string {
	b := func(h string) string {
		if strings.Contains(h, ":") {
			return "[" + h + "]"
		}
		return h
	}
	return b(r.Host) + ":" + r.Port + ":" + b(r.ToHost) + ":" + r.ToPort
}

// matches reports whether the rule applies to a dial of host:port; host
// is normalized (normalizeHost).
func (r ConnectToRule) matches(host, port string) bool {
	return (r.Host == "" || r.Host == host) && (r.Port == "" || r.Port == port)
}

// ParseConnectTo parses one curl-style connect-to entry
// "HOST:PORT:ADDR:PORT", where IPv6 addresses are written in brackets
// ("[::1]"), an empty HOST or PORT matches any and an empty ADDR or PORT
// keeps the original. It exists apart from New so that commands can reject a
// bad flag with a message that names the entry.
func ParseConnectTo(s string) (ConnectToRule, error) {
	fields, ok := splitConnectTo(s)
	if !ok {
		return ConnectToRule{}, fmt.Errorf("connect-to entry %q must be HOST:PORT:ADDR:PORT", s)
	}
	for i, f := range fields {
		if f == "" {
			continue
		}
		if i%2 == 1 {
			if !validPort(f) {
				return ConnectToRule{}, fmt.Errorf("connect-to entry %q has an invalid port %q", s, f)
			}
			continue
		}
		if strings.ContainsAny(f, "/@?#[] \t") {
			return ConnectToRule{}, fmt.Errorf("connect-to entry %q has an invalid host %q", s, f)
		}
	}
	return ConnectToRule{
		Host:   normalizeHost(fields[0]),
		Port:   fields[1],
		ToHost: normalizeHost(fields[2]),
		ToPort: fields[3],
	}, nil
}

// splitConnectTo splits s into exactly four colon-separated fields, where a
// field may be an IPv6 address in brackets (returned without them).
func splitConnectTo(s string) ([]string, bool) {
	fields := make([]string, 0, 4)
	for len(fields) < 4 {
		var f string
		if strings.HasPrefix(s, "[") {
			end := strings.IndexByte(s, ']')
			if end < 0 {
				return nil, false
			}
			f, s = s[1:end], s[end+1:]
			if f == "" || !strings.Contains(f, ":") {
				return nil, false
			}
		} else {
			end := strings.IndexByte(s, ':')
			if end < 0 {
				end = len(s)
			}
			f, s = s[:end], s[end:]
		}
		fields = append(fields, f)
		if len(fields) == 4 {
			break
		}
		if !strings.HasPrefix(s, ":") {
			return nil, false
		}
		s = s[1:]
	}
	return fields, s == ""
}

func validPort(p string) bool {
	n, err := strconv.Atoi(p)
	return err == nil && n > 0 && n < 65536 && p[0] != '+' && p[0] != '-'
}

// normalizeHost lower-cases a host name and drops one trailing dot, so that
// "Example.COM." and "example.com" are one host for routing and politeness.
func normalizeHost(h string) string {
	return strings.TrimSuffix(strings.ToLower(h), ".")
}

// routeTable holds the parsed ConnectTo rules.
type routeTable []ConnectToRule

func parseRoutes(entries []string) (routeTable, error) {
	var t routeTable
	for _, e := range entries {
		r, err := ParseConnectTo(e)
		if err != nil {
			return nil, err
		}
		t = append(t, r)
	}
	return t, nil
}

// route returns where a dial of host:port really goes, and whether a rule
// replaced the host.
func (t routeTable) route(host, port string) (string, string, bool) {
	h := normalizeHost(host) // once, not once per rule: a simulated web has thousands
	for _, r := range t {
		if r.matches(h, port) {
			if r.ToPort != "" {
				port = r.ToPort
			}
			if r.ToHost != "" {
				return r.ToHost, port, true
			}
			return host, port, false
		}
	}
	return host, port, false
}
