package httpapi_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine"
)

// TestRouteTable pins the routes the foundation issue asks for, with
// their scopes and whether they are built, so none goes missing.
func TestRouteTable(t *testing.T) {
	t.Parallel()
	e := setup(t)
	const (
		open  = ""
		read  = seedengine.ScopeRead
		write = seedengine.ScopeWrite
		admin = seedengine.ScopeAdmin
	)
	want := []struct {
		method, path string
		scope        seedengine.Scope
		implemented  bool
	}{
		{"GET", "/", open, true},
		{"GET", "/health", open, true},
		{"GET", "/health/ready", open, true},
		{"GET", "/health/live", open, true},
		{"GET", "/metrics", open, true},
		{"GET", "/openapi.json", open, true},
		{"GET", "/docs", open, true},
		{"POST", "/api/v1/queues/research", write, true},
		{"POST", "/api/v1/queues/liveness", write, true},
		{"POST", "/api/v1/queues/contract", write, true},
		{"GET", "/api/v1/queues/batches", read, true},
		{"GET", "/api/v1/queues/batch/{batchId}", read, true},
		{"GET", "/api/v1/queues/batch/{batchId}/results", read, true},
		{"GET", "/api/v1/queues/stats", read, true},
		{"GET", "/api/v1/queues/dead-letters", read, true},
		{"POST", "/api/v1/queues/dead-letters/{id}/retry", admin, true},
		{"POST", "/api/v1/queues/trigger/metadata-sync", admin, false},
		{"GET", "/api/v1/datasets", read, true},
		{"GET", "/api/v1/datasets/stats", read, true},
		{"GET", "/api/v1/datasets/{country}/{category}/{date}", read, true},
		{"GET", "/api/v1/datasets/{country}/{category}/{date}/{chunk}", read, true},
		{"POST", "/api/v1/datasets/{country}/{category}/{date}", write, true},
		{"DELETE", "/api/v1/datasets/{country}/{category}/{date}/{chunk}", admin, true},
		{"GET", "/api/v1/metadata/snapshot", read, false},
		{"GET", "/api/v1/metadata/by-country/{country}", read, false},
		{"GET", "/api/v1/metadata/tasks", read, false},
		{"POST", "/api/v1/metadata/sync", admin, false},
		{"POST", "/api/v1/research", write, true},
		{"GET", "/api/v1/research", read, true},
		{"GET", "/api/v1/research/index", read, true},
		{"GET", "/api/v1/research/{country}/{category}/{date}", read, true},
		{"GET", "/api/v1/domains", read, true},
		{"GET", "/api/v1/domains/{domainId}", read, true},
		{"GET", "/api/v1/seeds", read, true},
		{"POST", "/api/v1/seeds", write, true},
		{"GET", "/api/v1/seeds/{seedId}", read, true},
		{"PATCH", "/api/v1/seeds/{seedId}", write, true},
		{"GET", "/api/v1/seeds/{seedId}/versions", read, true},
		{"POST", "/api/v1/seeds/promote", admin, true},
		{"POST", "/api/v1/seeds/{seedId}/suspend", admin, true},
		{"POST", "/api/v1/seeds/{seedId}/reactivate", admin, true},
		{"POST", "/api/v1/seeds/{seedId}/archive", admin, true},
		{"POST", "/api/v1/seeds/orchestrate", write, true},
		{"GET", "/api/v1/keys", admin, true},
		{"POST", "/api/v1/keys", admin, true},
		{"DELETE", "/api/v1/keys/{keyId}", admin, true},
	}
	routes := e.srv.Routes()
	require.Len(t, routes, len(want))
	for i, w := range want {
		rt := routes[i]
		require.Equal(t, w.method+" "+w.path, rt.Method+" "+rt.Path)
		require.Equal(t, w.scope, rt.Scope, rt.Path)
		require.Equal(t, w.implemented, rt.Implemented, rt.Path)
		require.NotEmpty(t, rt.Summary, rt.Path)
		require.NotEmpty(t, rt.OperationID, rt.Path)
		if !rt.Implemented {
			require.NotEmpty(t, rt.Capability, rt.Path)
		}
	}
}

func TestOpenAPI(t *testing.T) {
	t.Parallel()
	e := setup(t)
	r := e.do(t, request{path: "/openapi.json"})
	require.Equal(t, http.StatusOK, r.StatusCode)

	var doc struct {
		OpenAPI string `json:"openapi"`
		Info    struct{ Title, Version string }
		Paths   map[string]map[string]struct {
			OperationID string                `json:"operationId"`
			Tags        []string              `json:"tags"`
			Security    []map[string][]string `json:"security"`
			Responses   map[string]any        `json:"responses"`
		}
		Components struct {
			SecuritySchemes map[string]struct{ Type, Scheme string } `json:"securitySchemes"`
			Schemas         map[string]any
		}
	}
	require.NoError(t, json.Unmarshal(r.body, &doc))
	require.Equal(t, "3.1.0", doc.OpenAPI)
	require.Equal(t, "seedengine", doc.Info.Title)
	require.Equal(t, "1.2.3-test", doc.Info.Version)
	require.Equal(t, "http", doc.Components.SecuritySchemes["bearer"].Type)
	require.Equal(t, "bearer", doc.Components.SecuritySchemes["bearer"].Scheme)
	require.Contains(t, doc.Components.Schemas, "Problem")
	require.Contains(t, doc.Components.Schemas, "Batch")
	require.NotContains(t, string(r.body), `"$schema"`, "huma's $schema response field must be dropped")

	ids := map[string]bool{}
	for _, rt := range e.srv.Routes() {
		if !strings.HasPrefix(rt.Path, "/api/") {
			continue
		}
		op, ok := doc.Paths[rt.Path][strings.ToLower(rt.Method)]
		require.True(t, ok, "%s %s missing from the OpenAPI document", rt.Method, rt.Path)
		require.Equal(t, rt.OperationID, op.OperationID)
		require.False(t, ids[op.OperationID], "duplicate operation id %s", op.OperationID)
		ids[op.OperationID] = true
		require.Len(t, op.Tags, 1)
		require.Equal(t, []map[string][]string{{"bearer": {}}}, op.Security, rt.Path)
		require.Contains(t, op.Responses, "401", rt.Path)
		if !rt.Implemented {
			require.Contains(t, op.Responses, "501", rt.Path)
		}
	}
	require.Equal(t, "list-batches", doc.Paths["/api/v1/queues/batches"]["get"].OperationID)
	require.Contains(t, doc.Paths["/health/ready"]["get"].Responses, "503")
}

func TestDocs(t *testing.T) {
	t.Parallel()
	e := setup(t)
	r := e.do(t, request{path: "/docs"})
	require.Equal(t, http.StatusOK, r.StatusCode)
	require.True(t, strings.HasPrefix(r.Header.Get("Content-Type"), "text/html"))
	require.Contains(t, string(r.body), "<html")
	require.Contains(t, string(r.body), "/openapi.json")
}

func TestUnknownRouteIs404Problem(t *testing.T) {
	t.Parallel()
	e := setup(t)
	for _, path := range []string{"/nope", "/api/v1/nope", "/api/v1/queues/batch/x/y/z", "/health/nope"} {
		r := e.do(t, request{path: path})
		p := r.problem(t, http.StatusNotFound, "not_found")
		require.Equal(t, path, p.Instance)
	}
}

func TestWrongMethodIs405WithAllow(t *testing.T) {
	t.Parallel()
	e := setup(t)
	tests := []struct{ method, path, allow string }{
		{"POST", "/health", "GET, HEAD"},
		{"DELETE", "/", "GET, HEAD"},
		{"PUT", "/api/v1/keys", "GET, HEAD, POST"},
		{"DELETE", "/api/v1/seeds/abc", "GET, HEAD, PATCH"},
		{"GET", "/api/v1/queues/research", "POST"},
	}
	for _, tt := range tests {
		r := e.do(t, request{method: tt.method, path: tt.path})
		r.problem(t, http.StatusMethodNotAllowed, "invalid")
		require.Equal(t, tt.allow, r.Header.Get("Allow"), tt.path)
	}
}

// TestUnimplementedRoutesAnswer501 walks the route table: every route
// whose capability is not built answers 501 with a problem naming it,
// never a fake success, whatever the request carries.
func TestUnimplementedRoutesAnswer501(t *testing.T) {
	t.Parallel()
	e := setup(t)
	token := e.keys.mustCreate(t, "admin", seedengine.ScopeAdmin)
	fill := strings.NewReplacer("{country}", "sg", "{category}", "news", "{date}", "2026-01-28",
		"{chunk}", "raw_0001", "{batchId}", "b1", "{id}", "j1", "{domainId}", "gov:sg:mom.gov.sg",
		"{seedId}", "gov:sg:mom.gov.sg::news")
	n := 0
	for _, rt := range e.srv.Routes() {
		if rt.Implemented {
			continue
		}
		n++
		var body any
		if rt.Method == http.MethodPost || rt.Method == http.MethodPatch {
			body = `{"not":"what the route expects"}`
		}
		r := e.do(t, request{method: rt.Method, path: fill.Replace(rt.Path), token: token, body: body})
		p := r.problem(t, http.StatusNotImplemented, "not_implemented")
		require.Contains(t, p.Detail, rt.Capability, rt.Path)
		require.Contains(t, p.Detail, rt.Path)
	}
	require.Positive(t, n, "the walk must have met planned routes")
}
