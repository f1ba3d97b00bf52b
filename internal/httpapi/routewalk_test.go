package httpapi_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine/internal/sqlstore/sqlstoretest"
)

// describedRoutes are the routes of the service description (DESIGN §6
// and the issues that specified the API), by method and a concrete path.
// A client written against the description calls exactly these; each must
// reach a handler, whatever it then answers.
var describedRoutes = []struct{ method, path string }{
	{"GET", "/"},
	{"GET", "/health"},
	{"GET", "/health/ready"},
	{"GET", "/health/live"},
	{"GET", "/openapi.json"},
	{"GET", "/docs"},
	{"POST", "/api/v1/queues/research"},
	{"POST", "/api/v1/queues/liveness"},
	{"POST", "/api/v1/queues/contract"},
	{"GET", "/api/v1/queues/batch/01JBATCHDOESNOTEXIST000000"},
	{"POST", "/api/v1/queues/trigger/metadata-sync"},
	{"POST", "/api/v1/datasets"},
	{"GET", "/api/v1/datasets"},
	{"GET", "/api/v1/datasets/stats"},
	{"GET", "/api/v1/datasets/sg/news/2026-01-28"},
	{"POST", "/api/v1/datasets/sg/news/2026-01-28"},
	{"GET", "/api/v1/datasets/sg/news/2026-01-28/raw_0001"},
	{"DELETE", "/api/v1/datasets/sg/news/2026-01-28/raw_0001"},
	{"GET", "/api/v1/metadata/snapshot"},
	{"GET", "/api/v1/metadata/by-country/sg"},
	{"GET", "/api/v1/metadata/tasks"},
	{"POST", "/api/v1/metadata/sync"},
	{"POST", "/api/v1/research"},
	{"GET", "/api/v1/research"},
	{"GET", "/api/v1/research/index"},
	{"GET", "/api/v1/research/sg/news/2026-01-28"},
	{"GET", "/api/v1/seeds"},
	{"POST", "/api/v1/seeds"},
	{"GET", "/api/v1/seeds/" + url.PathEscape("gov:sg:mom.gov.sg::news")},
	{"PATCH", "/api/v1/seeds/" + url.PathEscape("gov:sg:mom.gov.sg::news")},
	{"POST", "/api/v1/seeds/promote"},
	{"POST", "/api/v1/seeds/orchestrate"},
}

// samplePath fills an OpenAPI path template with values of the right form.
func samplePath(tmpl string) string {
	r := strings.NewReplacer(
		"{batchId}", "01JBATCHDOESNOTEXIST000000",
		"{country}", "sg", "{category}", "news", "{date}", "2026-01-28", "{chunk}", "raw_0001",
		"{seedId}", url.PathEscape("gov:sg:mom.gov.sg::news"), "{domainId}", url.PathEscape("gov:sg:mom.gov.sg"),
		"{id}", "1", "{keyId}", "1",
	)
	return r.Replace(tmpl)
}

// TestEveryRouteAnswers walks the service description's routes and every
// operation of our own OpenAPI document, by method and path, and fails
// when one answers 405 or the 404 of a path no route serves. What a route
// answers past that (201, 202, 404 for a missing seed, 422 for an empty
// body) is the business of its own tests.
func TestEveryRouteAnswers(t *testing.T) {
	t.Parallel()
	s := newStack(t, sqlstoretest.OpenSQLite(t))

	var doc struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	r := s.do(t, request{path: "/openapi.json"})
	require.Equal(t, http.StatusOK, r.StatusCode)
	require.NoError(t, json.Unmarshal(r.body, &doc))
	type call struct{ method, path, from string }
	var calls []call
	for _, d := range describedRoutes {
		calls = append(calls, call{d.method, d.path, "the service description"})
	}
	for tmpl, ops := range doc.Paths {
		for m := range ops {
			switch m {
			case "get", "post", "patch", "delete", "put":
				calls = append(calls, call{strings.ToUpper(m), samplePath(tmpl), "/openapi.json"})
			}
		}
	}
	require.Greater(t, len(calls), len(describedRoutes)+40)

	for _, c := range calls {
		var body any
		if c.method == http.MethodPost || c.method == http.MethodPatch {
			body = map[string]any{}
		}
		r := s.do(t, request{method: c.method, path: c.path, body: body})
		require.NotEqual(t, http.StatusMethodNotAllowed, r.StatusCode, "%s %s (from %s): %s", c.method, c.path, c.from, r.body)
		if r.StatusCode == http.StatusNotFound {
			var p struct {
				Detail string `json:"detail"`
			}
			_ = json.Unmarshal(r.body, &p)
			require.NotEqual(t, "no such route", p.Detail, "%s %s (from %s) reaches no route", c.method, c.path, c.from)
		}
	}
}

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
		response{resp, b}.problem(t, http.StatusBadRequest, "invalid")
	}
	// A trailing slash is canonical: the route table decides (404 here).
	e.do(t, request{path: "/api/v1/seeds/"}).problem(t, http.StatusNotFound, "not_found")
}

// Every list refuses a filter value it does not know with 422 naming the
// parameter, rather than answering an empty list a client would take for
// "nothing there".
func TestUnknownFilterValuesAre422(t *testing.T) {
	t.Parallel()
	s := newStack(t, sqlstoretest.OpenSQLite(t))
	for _, tt := range []struct{ path, loc string }{
		{"/api/v1/queues/batches?kind=junk", "query.kind"},
		{"/api/v1/queues/batches?status=junk", "query.status"},
		{"/api/v1/queues/dead-letters?kind=junk", "query.kind"},
		{"/api/v1/queues/batch/01JBATCHDOESNOTEXIST000000/results?verdict=junk", "query.verdict"},
		{"/api/v1/datasets?country=zz", "query.country"},
		{"/api/v1/datasets?category=Bad!", "query.category"},
		{"/api/v1/datasets?date_from=2026-02-30", "query.date_from"},
		{"/api/v1/metadata/tasks?status=junk", "query.status"},
		{"/api/v1/research?country=zz", "query.country"},
		{"/api/v1/research?category=Bad!", "query.category"},
		{"/api/v1/domains?country=zz", "query.country"},
		{"/api/v1/domains?authority=junk", "query.authority"},
		{"/api/v1/seeds?country=zz", "query.country"},
		{"/api/v1/seeds?category=Bad!", "query.category"},
		{"/api/v1/seeds?status=junk", "query.status"},
		{"/api/v1/seeds?source_type=junk", "query.source_type"},
		{"/api/v1/seeds?fetch_type=junk", "query.fetch_type"},
		{"/api/v1/seeds?domain_id=junk", "query.domain_id"},
		{"/api/v1/seeds?authority=junk", "query.authority"},
		{"/api/v1/seeds?min_confidence=2", "query.min_confidence"},
		{"/api/v1/seeds?batch_id=a%20b", "query.batch_id"},
	} {
		p := s.do(t, request{path: tt.path}).problem(t, http.StatusUnprocessableEntity, "invalid")
		require.Contains(t, locations(p), tt.loc, tt.path)
	}
}
