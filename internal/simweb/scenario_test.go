package simweb_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/miekg/dns"
	"github.com/stretchr/testify/require"
	"golang.org/x/net/publicsuffix"

	"github.com/seedengine/seedengine/internal/simweb"
)

const host = "mom.example-gov.sg"

func TestHealthy(t *testing.T) {
	t.Parallel()
	e := setup(t, simweb.Site{Host: host})
	for _, scheme := range []string{"https", "http"} {
		resp, body := e.get(t, scheme+"://"+host+"/")
		require.Equal(t, http.StatusOK, resp.StatusCode)
		require.Contains(t, resp.Header.Get("Content-Type"), "text/html")
		require.Contains(t, body, `<link rel="alternate" type="application/rss+xml"`)
		require.Contains(t, body, `href="/feed/"`)
	}
	resp, err := e.client.Get("https://" + host + "/")
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, []string{host}, resp.TLS.PeerCertificates[0].DNSNames)

	resp, _ = e.get(t, "https://"+host+"/no/such/page")
	require.Equal(t, http.StatusNotFound, resp.StatusCode)
	require.Equal(t, 4, e.web.Requests(host))
	require.Equal(t, 4, e.web.Requests(strings.ToUpper(host)), "host names are case-insensitive")
	require.Zero(t, e.web.Requests("www."+host))

	s, ok := e.web.Site(host)
	require.True(t, ok)
	require.Equal(t, simweb.ScenarioHealthy, s.Scenario)
	require.Equal(t, simweb.LayoutWordPress, s.Layout)
}

func TestWWWServesTheSite(t *testing.T) {
	t.Parallel()
	e := setup(t, simweb.Site{Host: host})
	resp, body := e.get(t, "https://www."+host+"/")
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Contains(t, body, "https://www."+host+"/", "absolute links use the requested name")
	require.Equal(t, 1, e.web.Requests("www."+host))
}

func TestUnknownHost(t *testing.T) {
	t.Parallel()
	e := setup(t)
	_, err := e.client.Get("https://unknown.example/")
	var dnsErr *net.DNSError
	require.ErrorAs(t, err, &dnsErr)
	require.True(t, dnsErr.IsNotFound)

	// A client that skips DNS reaches the listener and is told so.
	req, err := http.NewRequest(http.MethodGet, "http://"+e.web.HTTPAddr()+"/", nil)
	require.NoError(t, err)
	req.Host = "unknown.example"
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusMisdirectedRequest, resp.StatusCode)
	require.Equal(t, 1, e.web.Requests("unknown.example"))
}

func TestRedirectWWW(t *testing.T) {
	t.Parallel()
	e := setup(t, simweb.Site{Host: host, Scenario: simweb.ScenarioRedirectWWW})
	resp, _ := e.get(t, "https://"+host+"/news/?page=2")
	require.Equal(t, http.StatusMovedPermanently, resp.StatusCode)
	require.Equal(t, "https://www."+host+"/news/?page=2", resp.Header.Get("Location"))

	resp, _ = e.get(t, "http://"+host+"/")
	require.Equal(t, "http://www."+host+"/", resp.Header.Get("Location"))

	resp, body := e.get(t, "https://www."+host+"/")
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Contains(t, body, `href="/feed/"`)
}

func TestRedirectExternal(t *testing.T) {
	t.Parallel()
	e := setup(t, simweb.Site{Host: host, Scenario: simweb.ScenarioRedirectExternal})
	s, ok := e.web.Site(host)
	require.True(t, ok)
	require.NotEmpty(t, s.RedirectTo)

	resp, _ := e.get(t, "https://"+host+"/about/")
	require.Equal(t, http.StatusMovedPermanently, resp.StatusCode)
	loc, err := url.Parse(resp.Header.Get("Location"))
	require.NoError(t, err)
	require.Equal(t, "/about/", loc.Path)
	from, err := publicsuffix.EffectiveTLDPlusOne(host)
	require.NoError(t, err)
	to, err := publicsuffix.EffectiveTLDPlusOne(loc.Hostname())
	require.NoError(t, err)
	require.NotEqual(t, from, to, "the redirect leaves the registrable domain")

	resp, _ = e.get(t, loc.String())
	require.Equal(t, http.StatusOK, resp.StatusCode, "the default target is a live site")

	// An explicit target: a host keeps the path, a URL is used as it is.
	e.web.AddSite(simweb.Site{Host: "a.example", Scenario: simweb.ScenarioRedirectExternal, RedirectTo: "b.example", Status: http.StatusFound})
	e.web.AddSite(simweb.Site{Host: "c.example", Scenario: simweb.ScenarioRedirectExternal, RedirectTo: "https://d.example/landing"})
	resp, _ = e.get(t, "http://a.example/x?y=1")
	require.Equal(t, http.StatusFound, resp.StatusCode)
	require.Equal(t, "http://b.example/x?y=1", resp.Header.Get("Location"))
	resp, _ = e.get(t, "https://c.example/x")
	require.Equal(t, "https://d.example/landing", resp.Header.Get("Location"))
}

func TestRedirectLoop(t *testing.T) {
	t.Parallel()
	e := setup(t, simweb.Site{Host: host, Scenario: simweb.ScenarioRedirectLoop})
	resp, _ := e.get(t, "https://"+host+"/")
	require.Equal(t, http.StatusFound, resp.StatusCode)
	require.NotEmpty(t, resp.Header.Get("Location"))

	follow := *e.client
	follow.CheckRedirect = nil // the standard policy: stop after 10
	_, err := follow.Get("https://" + host + "/")
	require.ErrorContains(t, err, "stopped after 10 redirects")
}

func TestBotWall(t *testing.T) {
	t.Parallel()
	// Three hosts whose hashes pick each vendor's page.
	markers := []string{"Access Denied", "Sorry, you have been blocked", "Incapsula incident ID"}
	seen := map[string]bool{}
	e := setup(t)
	for i := 0; i < 30 && len(seen) < len(markers); i++ {
		h := "wall" + strconv.Itoa(i) + ".example"
		e.web.AddSite(simweb.Site{Host: h, Scenario: simweb.ScenarioBotWall})
		resp, body := e.get(t, "https://"+h+"/robots.txt")
		require.Equal(t, http.StatusForbidden, resp.StatusCode)
		for _, m := range markers {
			if strings.Contains(body, m) {
				seen[m] = true
			}
		}
	}
	require.Len(t, seen, len(markers))

	e.web.AddSite(simweb.Site{Host: host, Scenario: simweb.ScenarioBotWall, Status: http.StatusUnauthorized})
	resp, _ := e.get(t, "https://"+host+"/")
	require.Equal(t, http.StatusUnauthorized, resp.StatusCode)
}

func TestRateLimited(t *testing.T) {
	t.Parallel()
	e := setup(t,
		simweb.Site{Host: host, Scenario: simweb.ScenarioRateLimited},
		simweb.Site{Host: "fast.example", Scenario: simweb.ScenarioRateLimited, RetryAfter: 1500 * time.Millisecond})
	resp, _ := e.get(t, "https://"+host+"/")
	require.Equal(t, http.StatusTooManyRequests, resp.StatusCode)
	require.Equal(t, "30", resp.Header.Get("Retry-After"))
	resp, _ = e.get(t, "http://fast.example/feed/")
	require.Equal(t, http.StatusTooManyRequests, resp.StatusCode)
	require.Equal(t, "2", resp.Header.Get("Retry-After"), "rounded up to whole seconds")
}

func TestChallenge(t *testing.T) {
	t.Parallel()
	e := setup(t)
	statuses := map[int]bool{}
	for i := range 8 {
		h := "chl" + strconv.Itoa(i) + ".example"
		e.web.AddSite(simweb.Site{Host: h, Scenario: simweb.ScenarioChallenge})
		resp, body := e.get(t, "https://"+h+"/")
		statuses[resp.StatusCode] = true
		require.Equal(t, "challenge", resp.Header.Get("cf-mitigated"))
		require.Equal(t, "cloudflare", resp.Header.Get("Server"))
		for _, m := range []string{"<title>Just a moment...</title>", "Checking your browser", "_cf_chl_opt", "__cf_chl_f_tk=", "Enable JavaScript and cookies to continue"} {
			require.Contains(t, body, m)
		}
	}
	require.Equal(t, map[int]bool{200: true, 503: true}, statuses)
}

func TestParked(t *testing.T) {
	t.Parallel()
	e := setup(t)
	vendors := map[string]bool{}
	for i := range 20 {
		h := "parked" + strconv.Itoa(i) + ".example"
		e.web.AddSite(simweb.Site{Host: h, Scenario: simweb.ScenarioParked})
		resp, body := e.get(t, "http://"+h+"/")
		require.Equal(t, http.StatusOK, resp.StatusCode)
		require.Contains(t, body, "This domain is for sale")
		for _, v := range []string{"sedo", "bodis", "parkingcrew", "dan.com"} {
			if strings.Contains(strings.ToLower(body), v) {
				vendors[v] = true
			}
		}
	}
	require.Len(t, vendors, 4)
}

func TestServerError(t *testing.T) {
	t.Parallel()
	e := setup(t)
	seen := map[int]bool{}
	for i := range 20 {
		h := "err" + strconv.Itoa(i) + ".example"
		e.web.AddSite(simweb.Site{Host: h, Scenario: simweb.ScenarioServerError})
		resp, _ := e.get(t, "https://"+h+"/")
		require.Empty(t, resp.Header.Get("Retry-After"))
		seen[resp.StatusCode] = true
	}
	require.Equal(t, map[int]bool{500: true, 502: true, 503: true}, seen)

	e.web.AddSite(simweb.Site{Host: host, Scenario: simweb.ScenarioServerError, Status: http.StatusGatewayTimeout})
	resp, _ := e.get(t, "https://"+host+"/")
	require.Equal(t, http.StatusGatewayTimeout, resp.StatusCode)
}

func TestSlow(t *testing.T) {
	t.Parallel()
	e := setup(t,
		simweb.Site{Host: host, Scenario: simweb.ScenarioSlow, Delay: 150 * time.Millisecond},
		simweb.Site{Host: "stuck.example", Scenario: simweb.ScenarioSlow, Delay: time.Hour})

	start := time.Now()
	resp, _ := e.get(t, "https://"+host+"/")
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.GreaterOrEqual(t, time.Since(start), 150*time.Millisecond)

	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "https://stuck.example/", nil)
	require.NoError(t, err)
	_, err = e.client.Do(req)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	// The server gives up on the request as soon as the client has gone.
	require.Eventually(t, func() bool { return simweb.InFlight(e.web) == 0 }, 2*time.Second, 10*time.Millisecond)
}

func TestReset(t *testing.T) {
	t.Parallel()
	e := setup(t, simweb.Site{Host: host, Scenario: simweb.ScenarioReset})
	for _, scheme := range []string{"https", "http"} {
		err := e.fetchErr(t, scheme+"://"+host+"/")
		require.ErrorIs(t, err, syscall.ECONNRESET, scheme)
	}
	require.Equal(t, 2, e.web.Requests(host), "the request arrived before the reset")
}

func TestTLSExpired(t *testing.T) {
	t.Parallel()
	e := setup(t, simweb.Site{Host: host, Scenario: simweb.ScenarioTLSExpired})
	err := e.fetchErr(t, "https://"+host+"/")
	var invalid x509.CertificateInvalidError
	require.ErrorAs(t, err, &invalid)
	require.Equal(t, x509.Expired, invalid.Reason)
	require.True(t, invalid.Cert.NotAfter.Before(time.Now()))
	require.Equal(t, []string{host}, invalid.Cert.DNSNames, "only the dates are wrong")

	resp, _ := e.get(t, "http://"+host+"/")
	require.Equal(t, http.StatusOK, resp.StatusCode)
}

func TestTLSWrongName(t *testing.T) {
	t.Parallel()
	e := setup(t, simweb.Site{Host: host, Scenario: simweb.ScenarioTLSWrongName})
	err := e.fetchErr(t, "https://"+host+"/")
	var hostErr x509.HostnameError
	require.ErrorAs(t, err, &hostErr)
	require.Equal(t, host, hostErr.Host)
	require.NotContains(t, hostErr.Certificate.DNSNames, host)

	// The certificate is otherwise fine: issued by simweb's CA, in date.
	var verr *tls.CertificateVerificationError
	require.ErrorAs(t, err, &verr)
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(e.web.CACertPEM())
	_, err = verr.UnverifiedCertificates[0].Verify(x509.VerifyOptions{Roots: pool})
	require.NoError(t, err)

	resp, _ := e.get(t, "http://"+host+"/")
	require.Equal(t, http.StatusOK, resp.StatusCode)
}

func TestHTTPOnly(t *testing.T) {
	t.Parallel()
	e := setup(t, simweb.Site{Host: host, Scenario: simweb.ScenarioHTTPOnly})
	err := e.fetchErr(t, "https://"+host+"/")
	require.ErrorIs(t, err, syscall.ECONNRESET)

	resp, body := e.get(t, "http://"+host+"/robots.txt")
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Contains(t, body, "Sitemap: http://"+host+"/sitemap.xml", "an http-only site links to itself over http")
}

func TestRefused(t *testing.T) {
	t.Parallel()
	e := setup(t, simweb.Site{Host: host, Scenario: simweb.ScenarioRefused})
	r, err := e.query(t, host, dns.TypeA, "udp", time.Second)
	require.NoError(t, err)
	require.Equal(t, dns.RcodeSuccess, r.Rcode)
	require.Len(t, r.Answer, 1, "the name resolves; only connecting fails")

	for _, scheme := range []string{"https", "http"} {
		err := e.fetchErr(t, scheme+"://"+host+"/")
		require.ErrorIs(t, err, syscall.ECONNREFUSED, scheme)
		err = e.fetchErr(t, scheme+"://www."+host+"/")
		require.ErrorIs(t, err, syscall.ECONNREFUSED, scheme)
	}
	require.Zero(t, e.web.Requests(host))

	_, err = net.DialTimeout("tcp", e.web.RefusedAddr(), time.Second)
	require.ErrorIs(t, err, syscall.ECONNREFUSED)
}

func TestNXDomain(t *testing.T) {
	t.Parallel()
	e := setup(t, simweb.Site{Host: host, Scenario: simweb.ScenarioNXDomain})
	for _, name := range []string{host, "www." + host, "unknown.example"} {
		for _, network := range []string{"udp", "tcp"} {
			r, err := e.query(t, name, dns.TypeA, network, time.Second)
			require.NoError(t, err)
			require.Equal(t, dns.RcodeNameError, r.Rcode, "%s over %s", name, network)
			require.Empty(t, r.Answer)
		}
	}
	err := e.fetchErr(t, "https://"+host+"/")
	var dnsErr *net.DNSError
	require.ErrorAs(t, err, &dnsErr)
	require.True(t, dnsErr.IsNotFound)
	require.Zero(t, e.web.Requests(host))
}

func TestServFail(t *testing.T) {
	t.Parallel()
	e := setup(t, simweb.Site{Host: host, Scenario: simweb.ScenarioServFail})
	r, err := e.query(t, host, dns.TypeA, "udp", time.Second)
	require.NoError(t, err)
	require.Equal(t, dns.RcodeServerFailure, r.Rcode)

	_, err = e.resolver.LookupHost(context.Background(), host)
	var dnsErr *net.DNSError
	require.ErrorAs(t, err, &dnsErr)
	require.False(t, dnsErr.IsNotFound)
	require.True(t, dnsErr.IsTemporary)
}

func TestDNSTimeout(t *testing.T) {
	t.Parallel()
	e := setup(t, simweb.Site{Host: host, Scenario: simweb.ScenarioDNSTimeout})
	for _, network := range []string{"udp", "tcp"} {
		_, err := e.query(t, host, dns.TypeA, network, 200*time.Millisecond)
		var netErr net.Error
		require.ErrorAs(t, err, &netErr, network)
		require.True(t, netErr.Timeout(), network)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	_, err := e.resolver.LookupHost(ctx, host)
	var dnsErr *net.DNSError
	require.ErrorAs(t, err, &dnsErr)
	require.True(t, dnsErr.IsTimeout)

	// Other names on the same server still answer.
	e.web.AddSite(simweb.Site{Host: "alive.example"})
	r, err := e.query(t, "alive.example", dns.TypeA, "udp", time.Second)
	require.NoError(t, err)
	require.Equal(t, dns.RcodeSuccess, r.Rcode)
}

func TestDNSRecords(t *testing.T) {
	t.Parallel()
	e := setup(t, simweb.Site{Host: host})
	for _, name := range []string{host, "www." + host, strings.ToUpper(host)} {
		for _, network := range []string{"udp", "tcp"} {
			r, err := e.query(t, name, dns.TypeA, network, time.Second)
			require.NoError(t, err)
			require.Equal(t, dns.RcodeSuccess, r.Rcode)
			require.True(t, r.Authoritative)
			require.Len(t, r.Answer, 1)
			a := r.Answer[0].(*dns.A)
			require.Equal(t, "127.0.0.1", a.A.String())
			require.Equal(t, dns.Fqdn(name), a.Hdr.Name)
		}
	}
	for _, qt := range []uint16{dns.TypeAAAA, dns.TypeMX, dns.TypeTXT} {
		r, err := e.query(t, host, qt, "udp", time.Second)
		require.NoError(t, err)
		require.Equal(t, dns.RcodeSuccess, r.Rcode, "NODATA, not NXDOMAIN")
		require.Empty(t, r.Answer)
		require.Len(t, r.Ns, 1)
		require.IsType(t, &dns.SOA{}, r.Ns[0])
	}
	addrs, err := e.resolver.LookupHost(context.Background(), host)
	require.NoError(t, err)
	require.Equal(t, []string{"127.0.0.1"}, addrs)
}

func TestEveryScenarioIsCovered(t *testing.T) {
	t.Parallel()
	// Each scenario has a Test<Name> above; this keeps the list honest when
	// a scenario is added.
	tested := map[simweb.Scenario]bool{
		simweb.ScenarioHealthy: true, simweb.ScenarioRedirectWWW: true, simweb.ScenarioRedirectExternal: true,
		simweb.ScenarioBotWall: true, simweb.ScenarioRateLimited: true, simweb.ScenarioChallenge: true,
		simweb.ScenarioParked: true, simweb.ScenarioSlow: true, simweb.ScenarioReset: true,
		simweb.ScenarioTLSExpired: true, simweb.ScenarioTLSWrongName: true, simweb.ScenarioHTTPOnly: true,
		simweb.ScenarioServerError: true, simweb.ScenarioRedirectLoop: true, simweb.ScenarioNXDomain: true,
		simweb.ScenarioServFail: true, simweb.ScenarioDNSTimeout: true, simweb.ScenarioRefused: true,
	}
	for _, s := range simweb.Scenarios() {
		require.True(t, tested[s], "scenario %s has no test", s)
		require.True(t, s.Valid())
	}
	require.Len(t, simweb.Scenarios(), len(tested))
	require.False(t, simweb.Scenario("dead").Valid())
}

func TestErrorsAreTyped(t *testing.T) {
	t.Parallel()
	// A sanity check on the client itself: a refused dial is an *net.OpError,
	// so the fetcher can classify it without matching strings.
	e := setup(t, simweb.Site{Host: host, Scenario: simweb.ScenarioRefused})
	err := e.fetchErr(t, "http://"+host+"/")
	var opErr *net.OpError
	require.True(t, errors.As(err, &opErr))
	require.Equal(t, "dial", opErr.Op)
}

// TestChallengeEveryHostServes guards the challenge page against hosts whose
// hash makes short tokens: every one of many hosts must answer, whatever
// status it is configured with.
func TestChallengeEveryHostServes(t *testing.T) {
	t.Parallel()
	e := setup(t)
	for i := range 1000 {
		host := fmt.Sprintf("challenge%04d-example.gov.sg", i)
		e.web.AddSite(simweb.Site{Host: host, Scenario: simweb.ScenarioChallenge, Status: http.StatusForbidden})
		resp, _ := e.get(t, "http://"+host+"/")
		require.Equal(t, http.StatusForbidden, resp.StatusCode, host)
	}
}
