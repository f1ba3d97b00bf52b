package fetch

import (
	"context"
	"net"
	"net/netip"
	"os"
	"path/filepath"
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
