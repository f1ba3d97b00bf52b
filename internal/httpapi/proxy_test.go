package httpapi_test

import (
	"fmt"
	"net/http"
	"net/netip"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine/internal/httpapi"
)

// Behind a trusted reverse proxy the client is the address X-Forwarded-For
// names (the nearest one that is not a proxy) and X-Forwarded-Proto: https
// counts as TLS; from any other peer the headers change nothing.
func TestTrustedProxies(t *testing.T) {
	t.Parallel()
	seen := func(trusted ...string) *env {
		return setup(t, func(c *httpapi.Config, d *httpapi.Deps) {
			for _, p := range trusted {
				c.TrustedProxies = append(c.TrustedProxies, netip.MustParsePrefix(p))
			}
			d.Console = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				fmt.Fprintf(w, "%s %v", r.RemoteAddr, httpapi.IsHTTPS(r))
			})
		})
	}
	fwd := http.Header{"X-Forwarded-For": {"198.51.100.7, 203.0.113.9", "10.1.2.3"}, "X-Forwarded-Proto": {"https"}}
	for _, tt := range []struct {
		name    string
		trusted []string
		header  http.Header
		want    string
	}{
		{"no proxy trusted", nil, fwd, "127.0.0.1:"},
		{"the proxy and an inner hop trusted", []string{"127.0.0.0/8", "10.0.0.0/8"}, fwd, "203.0.113.9:0 true"},
		{"only the proxy trusted", []string{"127.0.0.1/32"}, fwd, "10.1.2.3:0 true"},
		{"a trusted proxy without headers", []string{"127.0.0.0/8"}, http.Header{}, "127.0.0.1:0 false"},
		{"a forged header that is no address", []string{"127.0.0.0/8"}, http.Header{"X-Forwarded-For": {"evil"}}, "127.0.0.1:0 false"},
		{"http", []string{"127.0.0.0/8"}, http.Header{"X-Forwarded-For": {"203.0.113.9"}, "X-Forwarded-Proto": {"http"}}, "203.0.113.9:0 false"},
	} {
		e := seen(tt.trusted...)
		r := e.do(t, request{Path: "/console/", Header: tt.header})
		require.Equal(t, http.StatusOK, r.StatusCode, tt.name)
		require.Contains(t, string(r.Body), tt.want, tt.name)
		if tt.trusted == nil {
			require.Contains(t, string(r.Body), " false", tt.name)
		}
	}
	// The access log names the client.
	e := seen("127.0.0.0/8")
	e.do(t, request{Path: "/health", Header: http.Header{"X-Forwarded-For": {"203.0.113.9"}}})
	require.Contains(t, e.logs.String(), `"remote":"203.0.113.9"`)
}
