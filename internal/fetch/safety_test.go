package fetch

import (
	"io"
	"net/http"
	"net/netip"
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
)

// countingServer counts the requests it receives.
func countingServer(t *testing.T) (*atomic.Int64, string, string) {
	t.Helper()
	var n atomic.Int64
	srv := startHTTP(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		_, _ = io.WriteString(w, "ok")
	}))
	return &n, srv.URL, srvPort(t, srv)
}

func TestGuardRefusesLoopbackWithoutAllowList(t *testing.T) {
	t.Parallel()
	hits, u, port := countingServer(t)
	stub := startDNS(t, map[string][]string{"loop.test": {"127.0.0.1"}})
	c := newTestClient(t, Config{AllowNetworks: []netip.Prefix{}, DNSServer: stub.Addr})
	for _, target := range []string{u, "http://[::ffff:127.0.0.1]:" + port + "/", "http://loop.test:" + port + "/"} {
		_, err := c.Do(t.Context(), Request{URL: target})
		require.Equal(t, ReasonBlocked, reasonOf(t, err).Reason, target)
	}
	require.Zero(t, hits.Load(), "nothing reached the server")

	// The same request with loopback allowed goes through.
	ok := newTestClient(t, Config{})
	_, err := ok.Do(t.Context(), Request{URL: u})
	require.NoError(t, err)
	require.Equal(t, int64(1), hits.Load())
}

func TestGuardChecksResolvedAddresses(t *testing.T) {
	t.Parallel()
	// The name resolves to a private address: refused in the dialer's
	// control hook, before connect(2), so nothing is ever sent to 10/8.
	stub := startDNS(t, map[string][]string{
		"intranet.test": {"10.0.0.1"},
		"meta.test":     {"169.254.169.254"},
		"v6.test":       {"fd00::1"},
	})
	c := newTestClient(t, Config{DNSServer: stub.Addr})
	for _, host := range []string{"intranet.test", "meta.test", "v6.test"} {
		_, err := c.Do(t.Context(), Request{URL: "http://" + host + "/"})
		fe := reasonOf(t, err)
		require.Equal(t, ReasonBlocked, fe.Reason, host)
		require.True(t, stub.queried(host))
	}
}

func TestGuardOnRedirectHops(t *testing.T) {
	t.Parallel()
	hits, _, port := countingServer(t)
	redir := startHTTP(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://127.0.0.2:"+port+"/admin", http.StatusFound)
	}))
	// Only 127.0.0.1 is allowed: the hop to 127.0.0.2 is refused (its
	// port is allowed, so that it is the address that is refused).
	p, err := strconv.Atoi(port)
	require.NoError(t, err)
	c := newTestClient(t, Config{AllowNetworks: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}, AllowPorts: []int{p}})
	_, err = c.Do(t.Context(), Request{URL: redir.URL})
	fe := reasonOf(t, err)
	require.Equal(t, ReasonBlocked, fe.Reason)
	require.Equal(t, "http://127.0.0.2:"+port+"/admin", fe.URL)
	require.Len(t, fe.Redirects, 1)
	require.Zero(t, hits.Load())
}

func TestGuardOnConnectToTargets(t *testing.T) {
	t.Parallel()
	hits, _, port := countingServer(t)
	rule := "example.com:80:127.0.0.1:" + port

	c := newTestClient(t, Config{ConnectTo: []string{rule}, AllowNetworks: []netip.Prefix{}})
	_, err := c.Do(t.Context(), Request{URL: "http://example.com/"})
	require.Equal(t, ReasonBlocked, reasonOf(t, err).Reason, "a loopback connect-to target needs the allow-list too")
	require.Zero(t, hits.Load())

	allowed := newTestClient(t, Config{ConnectTo: []string{rule}})
	resp, err := allowed.Do(t.Context(), Request{URL: "http://example.com/"})
	require.NoError(t, err)
	require.Equal(t, "ok", string(resp.Body))
	require.Equal(t, int64(1), hits.Load())
}

func TestConnectToWithDNSServer(t *testing.T) {
	t.Parallel()
	hits, _, port := countingServer(t)
	stub := startDNS(t, map[string][]string{
		"staged.test":  {"10.9.9.9"}, // never connected to: connect-to wins
		"gone.test":    {"nxdomain"},
		"literal.test": {"127.0.0.1"},
	})
	c := newTestClient(t, Config{
		DNSServer: stub.Addr,
		ConnectTo: []string{"staged.test::127.0.0.1:" + port, "gone.test::127.0.0.1:" + port},
	})
	resp, err := c.Do(t.Context(), Request{URL: "http://staged.test/"})
	require.NoError(t, err, "the name's own addresses are ignored; the target passes the guard")
	require.Equal(t, "ok", string(resp.Body))
	require.True(t, stub.queried("staged.test"), "with a DNS server the name must still exist")

	_, err = c.Do(t.Context(), Request{URL: "http://gone.test/"})
	require.Equal(t, ReasonNXDomain, reasonOf(t, err).Reason, "a dead name looks dead on a staged web")
	require.Equal(t, int64(1), hits.Load())

	// Without a rule the name's own address is used.
	resp, err = c.Do(t.Context(), Request{URL: "http://literal.test:" + port + "/"})
	require.NoError(t, err)
	require.Equal(t, 200, resp.Status)
}

// The port policy: a fetch reaches 80, 443, the port of the URL asked for
// and Config.AllowPorts; a redirect to any other port of a host is
// refused before anything is sent there, and so is an asked URL on
// another port when the request is strict (an article link).
func TestPortPolicy(t *testing.T) {
	t.Parallel()
	hits, _, port := countingServer(t)
	other, err := strconv.Atoi(port)
	require.NoError(t, err)
	redir := startHTTP(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/other":
			http.Redirect(w, r, "http://127.0.0.1:"+port+"/", http.StatusFound)
		case "/same":
			http.Redirect(w, r, "/here", http.StatusFound)
		default:
			_, _ = io.WriteString(w, "here")
		}
	}))
	own := redir.URL

	c := newTestClient(t, Config{})
	_, err = c.Do(t.Context(), Request{URL: own + "/other"})
	fe := reasonOf(t, err)
	require.Equal(t, ReasonPortNotAllowed, fe.Reason)
	require.Equal(t, "http://127.0.0.1:"+port+"/", fe.URL)
	require.Len(t, fe.Redirects, 1)
	require.Zero(t, hits.Load(), "nothing is sent to a port outside the policy")

	resp, err := c.Do(t.Context(), Request{URL: own + "/same"})
	require.NoError(t, err, "the asked URL's own port, on every hop")
	require.Equal(t, "here", string(resp.Body))

	_, err = c.Do(t.Context(), Request{URL: own + "/same", StrictPorts: true})
	require.Equal(t, ReasonPortNotAllowed, reasonOf(t, err).Reason, "strict: only 80, 443 and the allowed ports")

	allowed := newTestClient(t, Config{AllowPorts: []int{other}})
	resp, err = allowed.Do(t.Context(), Request{URL: own + "/other"})
	require.NoError(t, err)
	require.Equal(t, "ok", string(resp.Body))
	require.Equal(t, int64(1), hits.Load())

	_, err = New(Config{AllowPorts: []int{0}})
	require.Error(t, err)
}
