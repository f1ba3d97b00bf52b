package fetch

import (
	"net/netip"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestGuardAllowed(t *testing.T) {
	t.Parallel()
	blocked := []string{
		"0.0.0.0", "0.1.2.3", "10.0.0.1", "100.64.0.1", "100.127.255.254",
		"127.0.0.1", "127.255.255.255", "169.254.169.254", "172.16.0.1",
		"172.31.255.255", "192.0.0.8", "192.0.2.1", "192.88.99.1", "192.168.1.1",
		"198.18.0.1", "198.19.255.255", "198.51.100.7", "203.0.113.9",
		"224.0.0.1", "239.255.255.250", "240.0.0.1", "255.255.255.255",
		"::", "::1", "::ffff:127.0.0.1", "::ffff:10.0.0.1", "::ffff:169.254.169.254",
		"::127.0.0.1", "64:ff9b::a00:1", "64:ff9b::7f00:1", "64:ff9b:1::1",
		"100::1", "2001::1", "2001:db8::1", "2002:a00:1::1", "2002:7f00:1::",
		"3fff::1", "5f00::1", "fc00::1", "fd12:3456::1", "fe80::1", "fec0::1",
		"ff02::1", "fe80::1%eth0",
	}
	for _, s := range blocked {
		require.False(t, guard{}.allowed(netip.MustParseAddr(s)), s)
	}
	public := []string{
		"1.1.1.1", "8.8.8.8", "93.184.216.34", "100.63.255.255", "100.128.0.1",
		"172.15.255.255", "172.32.0.1", "192.0.1.1", "198.17.255.255",
		"198.20.0.1", "223.255.255.255", "2606:4700::1111", "2001:4860:4860::8888",
		"64:ff9b::808:808", "2002:808:808::1", "::ffff:8.8.8.8",
	}
	for _, s := range public {
		require.True(t, guard{}.allowed(netip.MustParseAddr(s)), s)
	}
	require.False(t, guard{}.allowed(netip.Addr{}))

	g := guard{allow: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("fd00::/8")}}
	require.True(t, g.allowed(netip.MustParseAddr("127.0.0.1")))
	require.True(t, g.allowed(netip.MustParseAddr("::ffff:127.0.0.2")), "mapped forms follow the allow-list too")
	require.True(t, g.allowed(netip.MustParseAddr("fd00::1")))
	require.False(t, g.allowed(netip.MustParseAddr("10.0.0.1")))
	require.False(t, g.allowed(netip.MustParseAddr("::1")))
}

func TestGuardControl(t *testing.T) {
	t.Parallel()
	g := guard{}
	require.NoError(t, g.control("tcp4", "93.184.216.34:443", nil))
	require.NoError(t, g.control("tcp6", "[2606:4700::1111]:443", nil))
	for _, addr := range []string{"127.0.0.1:80", "[::1]:80", "[::ffff:10.0.0.1]:80", "nonsense"} {
		err := g.control("tcp4", addr, nil)
		require.Error(t, err, addr)
		r, _ := classify(err)
		require.Equal(t, ReasonBlocked, r, addr)
	}
	require.Error(t, g.control("udp4", "93.184.216.34:53", nil), "only TCP is dialled through the guard")
}
