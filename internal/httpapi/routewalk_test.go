package httpapi_test

import (
	"io"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"
)

// A path ServeMux would redirect (dot segments, empty segments) is a
// client's mistake: a problem, never a redirect with an HTML body.
func TestNonCanonicalPathIs400Problem(t *testing.T) {
	t.Parallel()
	e := setup(t)
	for _, p := range []string{"/api/v1/seeds/../keys", "/api/v1/./seeds", "/api//v1/seeds", "/api/v1/seeds/..", "/../health"} {
		req, err := http.NewRequest(http.MethodGet, e.ts.URL, nil)
		require.NoError(t, err)
		req.URL.Path, req.URL.RawPath = p, ""
		req.URL.Opaque = p // sent as written
		resp, err := e.ts.Client().Do(req)
		require.NoError(t, err)
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		response{Response: resp, Body: b}.Problem(t, http.StatusBadRequest, "invalid")
	}
	// A trailing slash is canonical: the route table decides (404 here).
	e.do(t, request{Path: "/api/v1/seeds/"}).Problem(t, http.StatusNotFound, "not_found")
}
