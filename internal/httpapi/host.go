package httpapi

import (
	"net"
	"net/http"
	"net/netip"
	"strings"

	"github.com/seedengine/seedengine"
)

// Host names the server answers for. A service without keys trusts
// whoever can reach its loopback address, and a browser on the operator's
// machine is such a client: a site whose name an attacker rebinds to
// 127.0.0.1 (DNS rebinding) would drive the API from that browser, with
// its pages' origin, the attacker's, in every request's Host header. So a
// service without keys answers only a request whose Host is a loopback
// name (localhost, 127.0.0.0/8, [::1], any port) or one of
// Config.AllowedHosts; any other gets 421 with a problem body, before a
// route runs. With keys, the check applies when AllowedHosts is set.

// hostAllowed reports whether r may be answered under the Host it names.
func (s *Server) hostAllowed(r *http.Request) bool {
	if len(s.cfg.AllowedHosts) == 0 {
		if s.cfg.RequireKeys {
			return true
		}
		n, err := s.keys.count(r.Context())
		if err != nil || n > 0 {
			// With keys, a name is no credential. When they cannot be
			// counted, the route's own check answers 503.
			return true
		}
	}
	host := hostName(r.Host)
	if loopbackHost(host) {
		return true
	}
	return matchHost(s.cfg.AllowedHosts, host)
}

// hostName is the name of a Host header, without its port, brackets or
// trailing dot, in lower case; an address in its canonical form.
func hostName(h string) string {
	if host, _, err := net.SplitHostPort(h); err == nil {
		h = host
	} else {
		h = strings.TrimSuffix(strings.TrimPrefix(h, "["), "]")
	}
	if a, err := netip.ParseAddr(h); err == nil {
		return a.Unmap().String()
	}
	return strings.ToLower(strings.TrimSuffix(h, "."))
}

// loopbackHost reports whether host names this machine's loopback:
// localhost and the names under it (RFC 6761: a browser resolves them to
// loopback itself, so no outside page can be served under one), or a
// loopback address literal.
func loopbackHost(host string) bool {
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	a, err := netip.ParseAddr(host)
	return err == nil && a.Unmap().IsLoopback()
}

// matchHost reports whether host is one of the allowed names: an exact
// name or address, "*.example.org" for the names under example.org, or
// "*" for any.
func matchHost(allowed []string, host string) bool {
	for _, a := range allowed {
		switch {
		case a == "*" || a == host:
			return true
		case strings.HasPrefix(a, "*.") && strings.HasSuffix(host, a[1:]):
			return true
		}
	}
	return false
}

// ValidAllowedHost checks one entry of AllowedHosts as an operator wrote
// it (a name, an address, *.name or *) and returns it as the server
// compares it.
func ValidAllowedHost(h string) (string, error) {
	h = strings.TrimSpace(h)
	if h == "*" {
		return h, nil
	}
	if a, err := netip.ParseAddr(strings.TrimSuffix(strings.TrimPrefix(h, "["), "]")); err == nil {
		return a.Unmap().String(), nil
	}
	h = strings.ToLower(strings.TrimSuffix(h, "."))
	if !hostLabels(strings.TrimPrefix(h, "*.")) {
		return "", seedengine.Errorf(seedengine.EINVALID, "%q is not a host name, an address, *.name or *", h)
	}
	return h, nil
}

// hostLabels reports whether name is dot-separated labels of letters,
// digits, '-' and '_', none empty.
func hostLabels(name string) bool {
	if name == "" || len(name) > 253 {
		return false
	}
	for label := range strings.SplitSeq(name, ".") {
		if label == "" || len(label) > 63 {
			return false
		}
		for _, c := range []byte(label) {
			if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
				return false
			}
		}
	}
	return true
}

// misdirected answers a request whose Host this server does not answer for.
func (s *Server) misdirected(rw *respWriter) {
	writeProblem(rw, newProblem(&rw.st, http.StatusMisdirectedRequest, seedengine.EMISDIRECTED,
		"this server does not answer for the host name the request was sent to; "+
			"an operator can allow it with --allowed-hosts"))
}
