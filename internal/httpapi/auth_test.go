package httpapi_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/httpapi"
)

func TestOpenModeWithoutKeys(t *testing.T) {
	t.Parallel()
	e := setup(t)
	for i := 0; i < 20; i++ {
		r := e.do(t, request{Path: "/api/v1/queues/batches"})
		require.Equal(t, http.StatusOK, r.StatusCode, string(r.Body))
	}
	r := e.do(t, request{Method: "DELETE", Path: "/api/v1/keys/nobody"})
	r.Problem(t, http.StatusNotFound, "not_found")

	e.keys.mu.Lock()
	counts := e.keys.counts
	e.keys.mu.Unlock()
	require.LessOrEqual(t, counts, 3, "the active key count must be cached, not queried per request")

	// A token is checked even when the API is open.
	r = e.do(t, request{Path: "/api/v1/queues/batches", Token: "made-up"})
	r.Problem(t, http.StatusUnauthorized, "unauthorized")
	require.Contains(t, r.Header.Get("WWW-Authenticate"), "Bearer")
}

func TestRequireKeysClosesAnEmptyAPI(t *testing.T) {
	t.Parallel()
	e := setup(t, func(c *httpapi.Config, _ *httpapi.Deps) { c.RequireKeys = true })
	r := e.do(t, request{Path: "/api/v1/queues/batches"})
	r.Problem(t, http.StatusUnauthorized, "unauthorized")
	// Open routes stay open.
	require.Equal(t, http.StatusOK, e.do(t, request{Path: "/health"}).StatusCode)
}

func TestAuthWithKeys(t *testing.T) {
	t.Parallel()
	e := setup(t)
	readTok := e.keys.mustCreate(t, "reader", seedengine.ScopeRead)
	writeTok := e.keys.mustCreate(t, "writer", seedengine.ScopeWrite)
	adminTok := e.keys.mustCreate(t, "admin", seedengine.ScopeAdmin)

	tests := []struct {
		name   string
		method string
		path   string
		token  string
		header string // raw Authorization header, when token is not enough
		status int
		code   string
	}{
		{"no header", "GET", "/api/v1/queues/batches", "", "", 401, "unauthorized"},
		{"unknown token", "GET", "/api/v1/queues/batches", "sek_nope", "", 401, "unauthorized"},
		{"basic auth", "GET", "/api/v1/queues/batches", "", "Basic YWRtaW46YWRtaW4=", 401, "unauthorized"},
		{"empty bearer", "GET", "/api/v1/queues/batches", "", "Bearer ", 401, "unauthorized"},
		{"read on read route", "GET", "/api/v1/queues/batches", readTok, "", 200, ""},
		{"lower-case scheme", "GET", "/api/v1/queues/batches", "", "bearer " + readTok, 200, ""},
		{"read on write route", "POST", "/api/v1/queues/research", readTok, "", 403, "forbidden"},
		{"read on admin route", "GET", "/api/v1/keys", readTok, "", 403, "forbidden"},
		{"write on write route", "POST", "/api/v1/seeds/orchestrate", writeTok, "", 400, "invalid"}, // past auth: the body is missing
		{"write on read route", "GET", "/api/v1/queues/stats", writeTok, "", 200, ""},
		{"write on admin route", "GET", "/api/v1/keys", writeTok, "", 403, "forbidden"},
		{"admin on admin route", "GET", "/api/v1/keys", adminTok, "", 200, ""},
		{"admin on read route", "GET", "/api/v1/queues/batches", adminTok, "", 200, ""},
		{"open route without key", "GET", "/health", "", "", 200, ""},
		{"open route with bad key", "GET", "/", "sek_nope", "", 200, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := http.Header{}
			if tt.header != "" {
				h.Set("Authorization", tt.header)
			}
			r := e.do(t, request{Method: tt.method, Path: tt.path, Token: tt.token, Header: h})
			if tt.code != "" {
				p := r.Problem(t, tt.status, tt.code)
				if tt.status == http.StatusUnauthorized {
					require.Equal(t, `Bearer realm="seedengine"`, r.Header.Get("WWW-Authenticate"))
				}
				if tt.status == http.StatusForbidden {
					require.Contains(t, p.Detail, "scope")
				}
				return
			}
			require.Equal(t, tt.status, r.StatusCode, string(r.Body))
		})
	}
}

func TestAccessLogNamesTheKey(t *testing.T) {
	t.Parallel()
	e := setup(t)
	tok := e.keys.mustCreate(t, "ci-reader", seedengine.ScopeRead)
	e.do(t, request{Path: "/api/v1/queues/stats", Token: tok})
	lines := e.logs.lines(t, "http_request")
	require.Len(t, lines, 1)
	require.Equal(t, "ci-reader", lines[0]["key"])
}

func TestKeyRoutes(t *testing.T) {
	t.Parallel()
	e := setup(t)

	// Open API: the first key is created over HTTP and closes it at once.
	r := e.do(t, request{Method: "POST", Path: "/api/v1/keys", Body: map[string]string{"name": "root", "scope": "admin"}})
	require.Equal(t, http.StatusCreated, r.StatusCode, string(r.Body))
	created := r.JSON(t)
	adminTok := created["token"].(string)
	require.NotEmpty(t, adminTok)
	require.Equal(t, "root", created["name"])
	require.Equal(t, "admin", created["scope"])
	require.NotEmpty(t, created["id"])
	require.Nil(t, created["revoked_at"])

	r = e.do(t, request{Path: "/api/v1/keys"})
	r.Problem(t, http.StatusUnauthorized, "unauthorized")

	r = e.do(t, request{Method: "POST", Path: "/api/v1/keys", Token: adminTok, Body: map[string]string{"name": "reader", "scope": "read"}})
	require.Equal(t, http.StatusCreated, r.StatusCode, string(r.Body))
	readTok := r.JSON(t)["token"].(string)
	readID := r.JSON(t)["id"].(string)

	r = e.do(t, request{Method: "POST", Path: "/api/v1/keys", Token: adminTok, Body: map[string]string{"name": "reader", "scope": "read"}})
	r.Problem(t, http.StatusConflict, "conflict")

	r = e.do(t, request{Path: "/api/v1/keys", Token: adminTok})
	require.Equal(t, http.StatusOK, r.StatusCode)
	require.NotContains(t, string(r.Body), adminTok)
	require.NotContains(t, string(r.Body), readTok)
	require.NotContains(t, string(r.Body), `"token"`)
	list := r.JSON(t)
	require.EqualValues(t, 2, list["total"])
	require.EqualValues(t, 50, list["limit"])
	require.EqualValues(t, 0, list["offset"])
	require.Len(t, list["items"], 2)

	r = e.do(t, request{Path: "/api/v1/keys?limit=1&offset=1", Token: adminTok})
	items := r.JSON(t)["items"].([]any)
	require.Len(t, items, 1)
	require.Equal(t, "reader", items[0].(map[string]any)["name"])

	require.Equal(t, http.StatusOK, e.do(t, request{Path: "/api/v1/queues/stats", Token: readTok}).StatusCode)
	r = e.do(t, request{Method: "DELETE", Path: "/api/v1/keys/" + readID, Token: adminTok})
	require.Equal(t, http.StatusOK, r.StatusCode, string(r.Body))
	revoked := r.JSON(t)
	require.Equal(t, readID, revoked["id"])
	require.NotEmpty(t, revoked["revoked_at"])
	require.NotContains(t, revoked, "token")
	r = e.do(t, request{Path: "/api/v1/queues/stats", Token: readTok})
	r.Problem(t, http.StatusUnauthorized, "unauthorized")

	r = e.do(t, request{Method: "DELETE", Path: "/api/v1/keys/nope", Token: adminTok})
	r.Problem(t, http.StatusNotFound, "not_found")

	// Revoking by name works too.
	r = e.do(t, request{Method: "DELETE", Path: "/api/v1/keys/root", Token: adminTok})
	require.Equal(t, http.StatusOK, r.StatusCode, string(r.Body))
	require.True(t, strings.HasPrefix(r.JSON(t)["revoked_at"].(string), "20"))
}
