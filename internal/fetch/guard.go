package fetch

import (
	"net/netip"
	"syscall"
)

// specialNetworks are the IANA special-purpose ranges (RFC 6890 and its
// registries) that are not globally reachable, plus the deprecated ones
// still routed inside some networks. A fetch of a public web site never
// needs them; an attacker who controls a URL or a DNS answer wants exactly
// them (cloud metadata at 169.254.169.254, admin interfaces on 10/8, …).
var specialNetworks = mustPrefixes(
	// IPv4
	"0.0.0.0/8",          // "this network", includes 0.0.0.0 unspecified
	"10.0.0.0/8",         // private
	"100.64.0.0/10",      // shared address space (CGNAT)
	"127.0.0.0/8",        // loopback
	"169.254.0.0/16",     // link-local, cloud metadata
	"172.16.0.0/12",      // private
	"192.0.0.0/24",       // IETF protocol assignments
	"192.0.2.0/24",       // documentation TEST-NET-1
	"192.88.99.0/24",     // deprecated 6to4 relay anycast
	"192.168.0.0/16",     // private
	"198.18.0.0/15",      // benchmarking
	"198.51.100.0/24",    // documentation TEST-NET-2
	"203.0.113.0/24",     // documentation TEST-NET-3
	"224.0.0.0/4",        // multicast
	"240.0.0.0/4",        // reserved, includes 255.255.255.255 broadcast
	"255.255.255.255/32", // limited broadcast (inside 240/4; listed for the reader)
	// IPv6 (IPv4-mapped, NAT64 and 6to4 forms are unwrapped first)
	"::/8",           // unspecified, loopback, IPv4-compatible, reserved
	"64:ff9b:1::/48", // local-use IPv4/IPv6 translation
	"100::/64",       // discard-only
	"2001::/23",      // IETF protocol assignments (Teredo, ORCHID, …)
	"2001:db8::/32",  // documentation
	"3fff::/20",      // documentation (RFC 9637)
	"5f00::/16",      // segment routing SIDs
	"fc00::/7",       // unique local
	"fe80::/10",      // link-local
	"fec0::/10",      // deprecated site-local
	"ff00::/8",       // multicast
)

var (
	nat64Prefix = netip.MustParsePrefix("64:ff9b::/96")
	sixToFour   = netip.MustParsePrefix("2002::/16")
)

func mustPrefixes(ss ...string) []netip.Prefix {
	ps := make([]netip.Prefix, len(ss))
	for i, s := range ss {
		ps[i] = netip.MustParsePrefix(s)
	}
	return ps
}

// guard is the SSRF guard: it decides which addresses may be dialled.
type guard struct {
	allow []netip.Prefix
}

// allowed reports whether a connection to addr may be made: addr is
// either a globally reachable address or inside an allowed network. An
// IPv6 address that embeds an IPv4 one (IPv4-mapped, NAT64, 6to4) is judged
// by the embedded address too, so "::ffff:127.0.0.1" is loopback.
func (g guard) allowed(addr netip.Addr) bool {
	if !addr.IsValid() {
		return false
	}
	addr = addr.WithZone("")
	embedded, only := embeddedIPv4(addr)
	for _, p := range g.allow {
		if p.Contains(addr) || (embedded.IsValid() && p.Contains(embedded)) {
			return true
		}
	}
	for _, p := range specialNetworks {
		if (!only && p.Contains(addr)) || (embedded.IsValid() && p.Contains(embedded)) {
			return false
		}
	}
	return true
}

// embeddedIPv4 returns the IPv4 address carried by an IPv4-mapped, NAT64
// (64:ff9b::/96) or 6to4 address. only says the IPv6 address itself means
// nothing beyond it (mapped and NAT64 forms, which sit inside the reserved
// ::/8).
func embeddedIPv4(addr netip.Addr) (v4 netip.Addr, only bool) {
	if addr.Is4In6() {
		return addr.Unmap(), true
	}
	if !addr.Is6() {
		return netip.Addr{}, false
	}
	b := addr.As16()
	switch {
	case nat64Prefix.Contains(addr):
		return netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]}), true
	case sixToFour.Contains(addr):
		return netip.AddrFrom4([4]byte{b[2], b[3], b[4], b[5]}), false
	}
	return netip.Addr{}, false
}

// control is the net.Dialer control hook. It runs after name resolution,
// once per address, with the socket created but before connect(2): the
// address it sees is the one that would really be connected to, so neither
// a DNS answer nor a redirect nor a connect-to rule can slip a private
// address past it (DNS rebinding included).
func (g guard) control(network, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil || !g.allowed(ap.Addr()) {
		return &blockedError{addr: address}
	}
	switch network {
	case "tcp", "tcp4", "tcp6":
		return nil
	}
	return &blockedError{addr: network + " " + address}
}
