package fetch

import (
	"context"
	"net"
	"net/http"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestLookup(t *testing.T) {
	t.Parallel()
	stub := startDNS(t, map[string][]string{
		"alive.test":    {"192.0.2.10", "2001:db8::10"},
		"v4.test":       {"192.0.2.11"},
		"dead.test":     {"nxdomain"},
		"broken.test":   {"servfail"},
		"refusing.test": {"refused"},
		"mute.test":     {"silent"},
		"empty.test":    {},
	})
	c := newTestClient(t, Config{DNSServer: stub.Addr, DNSTimeout: 5 * time.Second})
	impatient := newTestClient(t, Config{DNSServer: stub.Addr, DNSTimeout: 200 * time.Millisecond})

	res, err := c.Lookup(t.Context(), "Alive.Test.")
	require.NoError(t, err)
	require.Equal(t, "alive.test", res.Host)
	require.Equal(t, "NOERROR", res.Rcode)
	require.Equal(t, []netip.Addr{netip.MustParseAddr("192.0.2.10")}, res.A)
	require.Equal(t, []netip.Addr{netip.MustParseAddr("2001:db8::10")}, res.AAAA)
	require.Len(t, res.Addrs(), 2)
	require.Equal(t, stub.Addr, res.Server)
	require.Positive(t, res.Duration)

	res, err = c.Lookup(t.Context(), "v4.test")
	require.NoError(t, err)
	require.Len(t, res.A, 1)
	require.Empty(t, res.AAAA)

	tests := []struct {
		host, rcode, reason, detail string
	}{
		{"dead.test", "NXDOMAIN", ReasonNXDomain, ""},
		{"unknown.test", "NXDOMAIN", ReasonNXDomain, ""},
		{"broken.test", "SERVFAIL", ReasonServfail, "servfail"},
		{"refusing.test", "REFUSED", ReasonServfail, "refused"},
		{"mute.test", RcodeTimeout, ReasonDNSTimeout, ""},
		{"empty.test", "NOERROR", ReasonNoAddress, ""},
	}
	for _, tt := range tests {
		lc := c
		if tt.rcode == RcodeTimeout {
			lc = impatient
		}
		res, err := lc.Lookup(t.Context(), tt.host)
		fe := reasonOf(t, err)
		require.Equal(t, tt.reason, fe.Reason, tt.host)
		require.Equal(t, tt.detail, fe.Detail, tt.host)
		require.Equal(t, tt.rcode, res.Rcode, tt.host)
		require.Empty(t, res.Addrs(), tt.host)
	}

	res, err = c.Lookup(t.Context(), "192.0.2.1")
	require.NoError(t, err)
	require.Equal(t, []netip.Addr{netip.MustParseAddr("192.0.2.1")}, res.A)

	_, err = c.Lookup(t.Context(), "bad name!")
	require.Equal(t, ReasonBadRequest, reasonOf(t, err).Reason)

	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, err = c.Lookup(ctx, "mute.test")
	require.Equal(t, ReasonCanceled, reasonOf(t, err).Reason)
}

func TestLookupUnreachableServer(t *testing.T) {
	t.Parallel()
	// A UDP port with nobody listening: the kernel answers "port
	// unreachable", which is our problem, not the domain's.
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := pc.LocalAddr().String()
	require.NoError(t, pc.Close())
	c := newTestClient(t, Config{DNSServer: addr, DNSTimeout: 200 * time.Millisecond})
	res, err := c.Lookup(t.Context(), "any.test")
	fe := reasonOf(t, err)
	require.Contains(t, []string{ReasonDNSError, ReasonDNSTimeout}, fe.Reason)
	require.Contains(t, []string{RcodeError, RcodeTimeout}, res.Rcode)
}

func TestSystemDNSServer(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := filepath.Join(dir, "resolv.conf")
	require.NoError(t, os.WriteFile(p, []byte("# comment\nsearch example.org\nnameserver 192.0.2.53\nnameserver 192.0.2.54\n"), 0o600))
	s, err := systemDNSServer(p)
	require.NoError(t, err)
	require.Equal(t, "192.0.2.53:53", s)

	empty := filepath.Join(dir, "empty.conf")
	require.NoError(t, os.WriteFile(empty, []byte("search example.org\n"), 0o600))
	_, err = systemDNSServer(empty)
	require.Error(t, err)
	_, err = systemDNSServer(filepath.Join(dir, "missing"))
	require.Error(t, err)
}

// A fetch under WithLookup connects to the looked-up addresses without
// asking DNS again; other hosts (a redirect's) are resolved as usual, and
// connect-to rules and the SSRF guard still decide where a connection
// goes.
func TestWithLookup(t *testing.T) {
	t.Parallel()
	hits, _, port := countingServer(t)
	redir := startHTTP(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://other.test:"+port+"/", http.StatusFound)
	}))
	stub := startDNS(t, map[string][]string{
		"known.test":  {"127.0.0.1"},
		"other.test":  {"127.0.0.1"},
		"staged.test": {"10.9.9.9"},
	})
	p, err := strconv.Atoi(port)
	require.NoError(t, err)
	c := newTestClient(t, Config{
		DNSServer:  stub.Addr,
		ConnectTo:  []string{"staged.test::127.0.0.1:" + port},
		AllowPorts: []int{p},
	})

	d, err := c.Lookup(t.Context(), "Known.Test")
	require.NoError(t, err)
	asked := stub.queries("known.test")
	resp, err := c.Do(WithLookup(t.Context(), d), Request{URL: "http://known.test:" + srvPort(t, redir) + "/"})
	require.NoError(t, err)
	require.Equal(t, "ok", string(resp.Body), "the redirect was followed to other.test")
	require.Equal(t, asked, stub.queries("known.test"), "the known answer was used, not asked again")
	require.True(t, stub.queried("other.test"), "a redirect's host is resolved")
	require.Equal(t, int64(1), hits.Load())

	// Through a connect-to rule: the rule still picks the address; the
	// name is known to exist, so DNS is not asked again.
	d, err = c.Lookup(t.Context(), "staged.test")
	require.NoError(t, err)
	asked = stub.queries("staged.test")
	_, err = c.Do(WithLookup(t.Context(), d), Request{URL: "http://staged.test/"})
	require.NoError(t, err)
	require.Equal(t, asked, stub.queries("staged.test"))
	require.Equal(t, int64(2), hits.Load())

	// The guard checks known addresses as any: a private one is refused
	// before anything is sent.
	strict := newTestClient(t, Config{DNSServer: stub.Addr, AllowNetworks: []netip.Prefix{}})
	private := DNSResult{Host: "intranet.test", A: []netip.Addr{netip.MustParseAddr("10.0.0.1")}}
	_, err = strict.Do(WithLookup(t.Context(), private), Request{URL: "http://intranet.test/"})
	require.Equal(t, ReasonBlocked, reasonOf(t, err).Reason)
	require.False(t, stub.queried("intranet.test"))
	loop := DNSResult{Host: "known.test", A: []netip.Addr{netip.MustParseAddr("127.0.0.1")}}
	_, err = strict.Do(WithLookup(t.Context(), loop), Request{URL: "http://known.test:" + port + "/"})
	require.Equal(t, ReasonBlocked, reasonOf(t, err).Reason)
	require.Equal(t, int64(2), hits.Load())

	// An answer without addresses changes nothing: the name is resolved.
	_, err = c.Do(WithLookup(t.Context(), DNSResult{Host: "other.test"}), Request{URL: "http://other.test:" + port + "/"})
	require.NoError(t, err)
	require.Equal(t, int64(3), hits.Load())
}
