package httpapi_test

import (
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine/internal/httpapi/docsassets"
)

var docsRefs = regexp.MustCompile(`<(?:script|link)\b[^>]*\b(?:src|href)="([^"]*)"`)

// TestDocsNeedsNoNetwork checks that /docs loads its viewer from its own
// origin only, and that every file it loads is served with its type and
// for good.
func TestDocsNeedsNoNetwork(t *testing.T) {
	t.Parallel()
	e := setup(t)
	r := e.do(t, request{Path: "/docs"})
	require.Equal(t, http.StatusOK, r.StatusCode)
	page := string(r.Body)
	require.Contains(t, page, `apiDescriptionUrl="/openapi.json"`)
	require.NotContains(t, page, "http://")
	require.NotContains(t, page, "https://")

	csp := r.Header.Get("Content-Security-Policy")
	require.Contains(t, csp, "script-src 'self';")
	require.Contains(t, csp, "style-src 'self' 'unsafe-inline'")
	require.NotRegexp(t, `https?:|//`, csp)

	wantType := map[string]string{
		docsassets.Script:     "text/javascript; charset=utf-8",
		docsassets.Stylesheet: "text/css; charset=utf-8",
	}
	refs := docsRefs.FindAllStringSubmatch(page, -1)
	require.Len(t, refs, len(wantType))
	prefix := "/docs/assets/" + docsassets.Version + "/"
	for _, m := range refs {
		ref := m[1]
		name, ok := strings.CutPrefix(ref, prefix)
		require.True(t, ok, "%s is not under %s", ref, prefix)
		a, ok := docsassets.Lookup(name)
		require.True(t, ok, ref)

		r := e.do(t, request{Path: ref})
		require.Equal(t, http.StatusOK, r.StatusCode, ref)
		require.Equal(t, wantType[name], r.Header.Get("Content-Type"), ref)
		require.Equal(t, "public, max-age=31536000, immutable", r.Header.Get("Cache-Control"), ref)
		require.Equal(t, "nosniff", r.Header.Get("X-Content-Type-Options"), ref)
		require.Equal(t, a.Body, r.Body, ref)

		r = e.do(t, request{Method: http.MethodHead, Path: ref})
		require.Equal(t, http.StatusOK, r.StatusCode, ref)
		require.Equal(t, strconv.Itoa(len(a.Body)), r.Header.Get("Content-Length"), ref)
		require.Empty(t, r.Body)
	}

	// The licences the bundle's first line points to, next to it.
	r = e.do(t, request{Path: prefix + docsassets.Script + ".LICENSE.txt"})
	require.Equal(t, http.StatusOK, r.StatusCode)
	require.Equal(t, "text/plain; charset=utf-8", r.Header.Get("Content-Type"))
}

func TestDocsAssetUnknownIs404Problem(t *testing.T) {
	t.Parallel()
	e := setup(t)
	// The instance is the route that answered, never the values sent in
	// its place; none where no route matched.
	const route = "/docs/assets/{version}/{file}"
	for path, instance := range map[string]string{
		"/docs/assets/" + docsassets.Version + "/nope.js":                     route,
		"/docs/assets/" + docsassets.Version + "/assets.go":                   route,
		"/docs/assets/0.0.1/" + docsassets.Script:                             route,
		"/docs/assets/" + docsassets.Script:                                   "",
		"/docs/assets/" + docsassets.Version + "/" + docsassets.Script + "/x": "",
	} {
		r := e.do(t, request{Path: path})
		p := r.Problem(t, http.StatusNotFound, "not_found")
		require.Equal(t, instance, p.Instance, path)
		require.Equal(t, "no-store", r.Header.Get("Cache-Control"), path)
	}
}
