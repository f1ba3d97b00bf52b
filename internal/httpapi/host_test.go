package httpapi_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/httpapi"
)

// A service without keys is driven by whoever reaches its loopback
// address, a browser on the operator's machine included: a site that
// rebinds its name to 127.0.0.1 would send its own name as Host. Such a
// service answers only loopback names and --allowed-hosts, on every
// route; with keys, --allowed-hosts is enforced when given.
func TestHostCheck(t *testing.T) {
	t.Parallel()
	loopback := []string{"localhost", "localhost:8080", "LOCALHOST.:8080", "app.localhost:1", "127.0.0.1", "127.0.0.1:8080", "127.9.9.9:1", "[::1]", "[::1]:8080"}
	foreign := []string{"attacker.example", "attacker.example:8080", "localhost.attacker.example", "10.0.0.5:8080", "[::2]:80", "127.0.0.1.nip.io"}
	routes := []request{
		{Path: "/api/v1/keys"},
		{Method: http.MethodPost, Path: "/api/v1/keys", Body: map[string]any{"name": "pwned", "scope": "admin"}},
		{Path: "/"},
		{Path: "/health"},
		{Path: "/no/such/route"},
	}

	t.Run("keyless", func(t *testing.T) {
		t.Parallel()
		e := setup(t)
		for _, rt := range routes {
			for _, h := range foreign {
				rt.Host = h
				r := e.do(t, rt)
				r.Problem(t, http.StatusMisdirectedRequest, "misdirected")
				require.Equal(t, "nosniff", r.Header.Get("X-Content-Type-Options"))
			}
		}
		n, err := e.keys.CountActiveAPIKeys(t.Context())
		require.NoError(t, err)
		require.Zero(t, n, "no key was made through a foreign name")
		for _, h := range loopback {
			r := e.do(t, request{Path: "/api/v1/keys", Host: h})
			require.Equal(t, http.StatusOK, r.StatusCode, "Host %s: %s", h, r.Body)
		}
	})

	t.Run("keyless with allowed hosts", func(t *testing.T) {
		t.Parallel()
		e := setup(t, func(c *httpapi.Config, _ *httpapi.Deps) {
			c.AllowedHosts = []string{"seedengine.internal", "*.ops.example", "10.0.0.5"}
		})
		for _, h := range []string{"seedengine.internal", "SeedEngine.Internal:8080", "a.ops.example", "b.a.ops.example:443", "10.0.0.5:8080", "localhost"} {
			r := e.do(t, request{Path: "/api/v1/keys", Host: h})
			require.Equal(t, http.StatusOK, r.StatusCode, "Host %s: %s", h, r.Body)
		}
		for _, h := range []string{"ops.example", "xops.example", "seedengine.internal.example", "attacker.example"} {
			e.do(t, request{Path: "/api/v1/keys", Host: h}).Problem(t, http.StatusMisdirectedRequest, "misdirected")
		}
	})

	t.Run("with keys", func(t *testing.T) {
		t.Parallel()
		e := setup(t)
		admin := e.keys.mustCreate(t, "admin", seedengine.ScopeAdmin)
		// A name is no credential once keys exist: the key decides.
		r := e.do(t, request{Path: "/api/v1/keys", Host: "api.example.org", Token: admin})
		require.Equal(t, http.StatusOK, r.StatusCode, string(r.Body))
		e.do(t, request{Path: "/api/v1/keys", Host: "api.example.org"}).Problem(t, http.StatusUnauthorized, "unauthorized")
	})

	t.Run("with keys and allowed hosts", func(t *testing.T) {
		t.Parallel()
		e := setup(t, func(c *httpapi.Config, _ *httpapi.Deps) { c.AllowedHosts = []string{"api.example.org"} })
		admin := e.keys.mustCreate(t, "admin", seedengine.ScopeAdmin)
		r := e.do(t, request{Path: "/api/v1/keys", Host: "api.example.org", Token: admin})
		require.Equal(t, http.StatusOK, r.StatusCode, string(r.Body))
		e.do(t, request{Path: "/api/v1/keys", Host: "other.example.org", Token: admin}).Problem(t, http.StatusMisdirectedRequest, "misdirected")
		e.do(t, request{Path: "/health", Host: "other.example.org"}).Problem(t, http.StatusMisdirectedRequest, "misdirected")
	})
}

func TestValidAllowedHost(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"Example.ORG.":   "example.org",
		"*.example.org":  "*.example.org",
		"*":              "*",
		"10.0.0.5":       "10.0.0.5",
		"[2001:db8::1]":  "2001:db8::1",
		"::ffff:1.2.3.4": "1.2.3.4",
		" seed-engine ":  "seed-engine",
	} {
		got, err := httpapi.ValidAllowedHost(in)
		require.NoError(t, err, in)
		require.Equal(t, want, got, in)
	}
	for _, in := range []string{"", "*.", "a..b", "http://example.org", "example.org:8080", "ex ample.org", "*x.example.org", "a/b"} {
		_, err := httpapi.ValidAllowedHost(in)
		require.Error(t, err, in)
	}
}
