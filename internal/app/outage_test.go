package app_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine/internal/outage/outagetest"
	"github.com/seedengine/seedengine/internal/sqlstore/sqlstoretest"
)

// A database outage is answered 503 unavailable with Retry-After on every
// route that needs the database, never 500 internal: clients retry, and
// alerts tell an outage from a bug. When it comes back, the same routes
// answer again without a restart. The server runs without API keys, the
// path where no key lookup notices the outage first.
func TestDatabaseOutageIs503(t *testing.T) {
	t.Parallel()
	raw := sqlstoretest.NewPostgresURL(t)
	u, err := url.Parse(raw)
	require.NoError(t, err)
	proxy := outagetest.NewProxy(t, u.Host)
	u.Host = proxy.Addr()
	s := newStack(t, sqlstoretest.Open(t, u.String()))

	var doc struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	r := s.do(t, request{Path: "/openapi.json"})
	require.Equal(t, http.StatusOK, r.StatusCode)
	require.NoError(t, json.Unmarshal(r.Body, &doc))
	var paths []string
	for tmpl, ops := range doc.Paths {
		if _, ok := ops["get"]; ok {
			paths = append(paths, samplePath(tmpl))
		}
	}
	statuses := func() map[string]int {
		out := map[string]int{}
		for _, p := range paths {
			r := s.do(t, request{Path: p})
			out[p] = r.StatusCode
			require.NotEqual(t, http.StatusInternalServerError, r.StatusCode, "GET %s: %s", p, r.Body)
			if r.StatusCode == http.StatusServiceUnavailable {
				if p != "/health/ready" { // a readiness report, not a problem
					r.Problem(t, http.StatusServiceUnavailable, "unavailable")
				}
				require.Equal(t, "5", r.Header.Get("Retry-After"), "GET %s", p)
			}
		}
		return out
	}
	before := statuses()

	proxy.Cut()
	during := statuses()
	var down []string
	for p, st := range during {
		if st == http.StatusServiceUnavailable {
			down = append(down, p)
		}
	}
	require.Equal(t, http.StatusServiceUnavailable, during["/health/ready"])
	require.Equal(t, http.StatusOK, during["/health/live"], "the process is alive")
	require.GreaterOrEqual(t, len(down), 20, "routes that need the database: %v", during)
	// The problem names what is down, whichever step meets the outage
	// first: the route's query, or the key check (a token is always
	// looked up; without one, the count of keys is, once its cache ends).
	for _, token := range []string{"", "se_" + strings.Repeat("x", 40)} {
		var p struct {
			Detail string `json:"detail"`
		}
		r = s.do(t, request{Path: "/api/v1/seeds", Token: token})
		require.Equal(t, http.StatusServiceUnavailable, r.StatusCode, string(r.Body))
		require.NoError(t, json.Unmarshal(r.Body, &p))
		require.Contains(t, p.Detail, "database", "the problem names what is down (token %q)", token)
	}

	proxy.Restore()
	require.Eventually(t, func() bool {
		return s.do(t, request{Path: "/health/ready"}).StatusCode == http.StatusOK
	}, 30*time.Second, 50*time.Millisecond, "ready again once the database is back")
	after := statuses()
	for _, path := range down {
		require.Equal(t, before[path], after[path], "GET %s answers as before the outage", path)
	}
	require.False(t, strings.Contains(strings.Join(down, " "), "/health/live"))
}
