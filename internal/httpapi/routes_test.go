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
	}{
		{"GET", "/", open},
		{"GET", "/health", open},
		{"GET", "/health/ready", open},
		{"GET", "/health/live", open},
		{"GET", "/metrics", open},
		{"GET", "/openapi.json", open},
		{"GET", "/openapi-3.0.json", open},
		{"GET", "/docs", open},
		{"GET", "/docs/assets/{version}/{file}", open},
		{"GET", "/console/", open},
		{"POST", "/console/", open},
		{"PUT", "/console/", open},
		{"PATCH", "/console/", open},
		{"GET", "/favicon.ico", open},
		{"POST", "/api/v1/queues/research", write},
		{"POST", "/api/v1/queues/liveness", write},
		{"POST", "/api/v1/queues/contract", write},
		{"GET", "/api/v1/queues/batches", read},
		{"GET", "/api/v1/queues/batch/{batchId}", read},
		{"GET", "/api/v1/queues/batch/{batchId}/results", read},
		{"GET", "/api/v1/queues/stats", read},
		{"GET", "/api/v1/queues/dead-letters", admin},
		{"POST", "/api/v1/queues/dead-letters/{id}/retry", admin},
		{"POST", "/api/v1/queues/trigger/metadata-sync", admin},
		{"GET", "/api/v1/datasets", read},
		{"GET", "/api/v1/datasets/stats", read},
		{"GET", "/api/v1/datasets/{country}/{category}/{date}", read},
		{"GET", "/api/v1/datasets/{country}/{category}/{date}/{chunk}", read},
		{"POST", "/api/v1/datasets", write},
		{"POST", "/api/v1/datasets/{country}/{category}/{date}", write},
		{"DELETE", "/api/v1/datasets/{country}/{category}/{date}/{chunk}", admin},
		{"GET", "/api/v1/metadata/snapshot", read},
		{"GET", "/api/v1/metadata/by-country/{country}", read},
		{"GET", "/api/v1/metadata/tasks", read},
		{"POST", "/api/v1/metadata/sync", admin},
		{"POST", "/api/v1/research", write},
		{"GET", "/api/v1/research", read},
		{"GET", "/api/v1/research/index", read},
		{"GET", "/api/v1/research/{country}/{category}/{date}", read},
		{"GET", "/api/v1/domains", read},
		{"GET", "/api/v1/domains/{domainId}", read},
		{"GET", "/api/v1/seeds", read},
		{"POST", "/api/v1/seeds", write},
		{"POST", "/api/v1/seeds/import", write},
		{"GET", "/api/v1/seeds/export", read},
		{"GET", "/api/v1/seeds/{seedId}", read},
		{"PATCH", "/api/v1/seeds/{seedId}", write},
		{"GET", "/api/v1/seeds/{seedId}/versions", read},
		{"GET", "/api/v1/seeds/{seedId}/checks", read},
		{"POST", "/api/v1/seeds/{seedId}/check", write},
		{"GET", "/api/v1/seeds/{seedId}/evidence", read},
		{"POST", "/api/v1/seeds/promote", admin},
		{"POST", "/api/v1/seeds/{seedId}/reject", admin},
		{"POST", "/api/v1/seeds/{seedId}/reopen", admin},
		{"GET", "/api/v1/seeds/{seedId}/candidates", read},
		{"POST", "/api/v1/seeds/{seedId}/choose", write},
		{"POST", "/api/v1/seeds/bulk", admin},
		{"POST", "/api/v1/seeds/{seedId}/suspend", admin},
		{"POST", "/api/v1/seeds/{seedId}/reactivate", admin},
		{"POST", "/api/v1/seeds/{seedId}/archive", admin},
		{"POST", "/api/v1/seeds/orchestrate", write},
		{"GET", "/api/v1/items", read},
		{"GET", "/api/v1/items/export", read},
		{"GET", "/api/v1/items/partitions", read},
		{"GET", "/api/v1/items/{itemId}/page", read},
		{"GET", "/api/v1/items/{itemId}/page/content", read},
		{"GET", "/api/v1/items/{itemId}/article", read},
		{"GET", "/api/v1/articles", read},
		{"GET", "/api/v1/articles/export", read},
		{"GET", "/api/v1/articles/{country}/{category}/{date}", read},
		{"GET", "/api/v1/articles/{country}/{category}/{date}/{file}", read},
		{"GET", "/api/v1/items/{country}/{category}/{date}/warc", read},
		{"GET", "/api/v1/items/{country}/{category}/{date}/warc/{file}", read},
		{"GET", "/api/v1/items/{country}/{category}/{date}", read},
		{"GET", "/api/v1/items/{country}/{category}/{date}/{file}", read},
		{"GET", "/api/v1/keys", admin},
		{"POST", "/api/v1/keys", admin},
		{"DELETE", "/api/v1/keys/{keyId}", admin},
	}
	routes := e.srv.Routes()
	require.Len(t, routes, len(want))
	for i, w := range want {
		rt := routes[i]
		require.Equal(t, w.method+" "+w.path, rt.Method+" "+rt.Path)
		require.Equal(t, w.scope, rt.Scope, rt.Path)
		require.NotEmpty(t, rt.Summary, rt.Path)
		require.NotEmpty(t, rt.OperationID, rt.Path)
	}
}

func TestOpenAPI(t *testing.T) {
	t.Parallel()
	e := setup(t)
	r := e.do(t, request{Path: "/openapi.json"})
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
	require.NoError(t, json.Unmarshal(r.Body, &doc))
	require.Equal(t, "3.1.0", doc.OpenAPI)
	require.Equal(t, "seedengine", doc.Info.Title)
	require.Equal(t, "1.2.3-test", doc.Info.Version)
	require.Equal(t, "http", doc.Components.SecuritySchemes["bearer"].Type)
	require.Equal(t, "bearer", doc.Components.SecuritySchemes["bearer"].Scheme)
	require.Contains(t, doc.Components.Schemas, "Problem")
	require.Contains(t, doc.Components.Schemas, "Batch")
	require.NotContains(t, string(r.Body), `"$schema"`, "huma's $schema response field must be dropped")

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
	}
	require.Equal(t, "list-batches", doc.Paths["/api/v1/queues/batches"]["get"].OperationID)
	require.Contains(t, doc.Paths["/health/ready"]["get"].Responses, "503")
}

func TestDocs(t *testing.T) {
	t.Parallel()
	e := setup(t)
	r := e.do(t, request{Path: "/docs"})
	require.Equal(t, http.StatusOK, r.StatusCode)
	require.True(t, strings.HasPrefix(r.Header.Get("Content-Type"), "text/html"))
	require.Contains(t, string(r.Body), "<html")
	require.Contains(t, string(r.Body), "/openapi.json")
}

func TestUnknownRouteIs404Problem(t *testing.T) {
	t.Parallel()
	e := setup(t)
	for _, path := range []string{"/nope", "/api/v1/nope", "/api/v1/queues/batch/x/y/z", "/health/nope"} {
		r := e.do(t, request{Path: path})
		p := r.Problem(t, http.StatusNotFound, "not_found")
		require.Empty(t, p.Instance, "the path is the client's: not echoed")
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
		r := e.do(t, request{Method: tt.method, Path: tt.path})
		r.Problem(t, http.StatusMethodNotAllowed, "invalid")
		require.Equal(t, tt.allow, r.Header.Get("Allow"), tt.path)
	}
}
