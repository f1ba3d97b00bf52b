package simweb_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/miekg/dns"
	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine/internal/simweb"
)

// env is a running simweb and a client wired to it the way the fetcher is:
// names resolved through simweb's DNS first, connections routed by the
// connect-to entries, simweb's CA trusted, redirects not followed.
type env struct {
	web      *simweb.Web
	client   *http.Client
	resolver *net.Resolver
}

func setup(t *testing.T, sites ...simweb.Site) *env {
	t.Helper()
	web, err := simweb.Start(simweb.Config{Seed: 1})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, web.Close()) })
	for _, s := range sites {
		web.AddSite(s)
	}

	resolver := &net.Resolver{
		PreferGo: true,
		Dial: func(ctx context.Context, network, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, network, web.DNSAddr())
		},
	}
	pool := x509.NewCertPool()
	require.True(t, pool.AppendCertsFromPEM(web.CACertPEM()))
	transport := &http.Transport{
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			host, port, err := net.SplitHostPort(addr)
			if err != nil {
				return nil, err
			}
			if _, err := resolver.LookupIPAddr(ctx, host); err != nil {
				return nil, err
			}
			var d net.Dialer
			return d.DialContext(ctx, network, connectTarget(t, web.ConnectTo(), host, port))
		},
		TLSClientConfig:     &tls.Config{RootCAs: pool},
		TLSHandshakeTimeout: 2 * time.Second,
	}
	t.Cleanup(transport.CloseIdleConnections)
	return &env{
		web:      web,
		resolver: resolver,
		client: &http.Client{
			Transport:     transport,
			Timeout:       5 * time.Second,
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		},
	}
}

// connectTarget applies curl's --connect-to rules: the first entry whose
// host and port match (empty matching any) gives the address.
func connectTarget(t *testing.T, entries []string, host, port string) string {
	for _, e := range entries {
		parts := strings.Split(e, ":")
		require.Len(t, parts, 4, "connect-to entry %q", e)
		if (parts[0] == "" || parts[0] == host) && (parts[1] == "" || parts[1] == port) {
			return net.JoinHostPort(parts[2], parts[3])
		}
	}
	return net.JoinHostPort(host, port)
}

// get fetches url and returns the response with its body read.
func (e *env) get(t *testing.T, url string) (*http.Response, string) {
	t.Helper()
	resp, err := e.client.Get(url)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp, string(b)
}

// fetchErr fetches url and returns the error, which must not be nil.
func (e *env) fetchErr(t *testing.T, url string) error {
	t.Helper()
	resp, err := e.client.Get(url)
	if err == nil {
		resp.Body.Close()
	}
	require.Error(t, err, "GET %s: status %v", url, resp)
	return err
}

// query asks simweb's DNS directly, as the liveness check does to record
// the rcode.
func (e *env) query(t *testing.T, name string, qtype uint16, network string, timeout time.Duration) (*dns.Msg, error) {
	t.Helper()
	m := new(dns.Msg)
	m.SetQuestion(dns.Fqdn(name), qtype)
	c := &dns.Client{Net: network, Timeout: timeout}
	r, _, err := c.Exchange(m, e.web.DNSAddr())
	return r, err
}
