package app_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/httpapi/httpapitest"
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
		"{id}", "1", "{keyId}", "1", "{file}", "items_0001",
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
	r := s.do(t, request{Path: "/openapi.json"})
	require.Equal(t, http.StatusOK, r.StatusCode)
	require.NoError(t, json.Unmarshal(r.Body, &doc))
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
		r := s.do(t, request{Method: c.method, Path: c.path, Body: body})
		require.NotEqual(t, http.StatusMethodNotAllowed, r.StatusCode, "%s %s (from %s): %s", c.method, c.path, c.from, r.Body)
		if r.StatusCode == http.StatusNotFound {
			var p struct {
				Detail string `json:"detail"`
			}
			_ = json.Unmarshal(r.Body, &p)
			require.NotEqual(t, "no such route", p.Detail, "%s %s (from %s) reaches no route", c.method, c.path, c.from)
		}
	}
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
		{"/api/v1/items?country=zz", "query.country"},
		{"/api/v1/items?category=Bad!", "query.category"},
		{"/api/v1/items?date=2026-02-30", "query.date"},
		{"/api/v1/items?seed_id=junk", "query.seed_id"},
		{"/api/v1/items?domain_id=junk", "query.domain_id"},
		{"/api/v1/items/export?country=zz", "query.country"},
		{"/api/v1/items/export?since=5&until=5", "query.until"},
		{"/api/v1/items/partitions?country=zz", "query.country"},
		{"/api/v1/items/partitions?date_from=2026-13-01", "query.date_from"},
	} {
		p := s.do(t, request{Path: tt.path}).Problem(t, http.StatusUnprocessableEntity, "invalid")
		require.Contains(t, httpapitest.Locations(p), tt.loc, tt.path)
	}
}

// bodyRoutes are the routes that take a body, with a valid one each, so
// that each strict rule is tried on every one of them;
// TestBodyRoutesAreEveryBody holds it to the OpenAPI document.
func bodyRoutes() []struct{ method, path, body string } {
	ds := httpapitest.DatasetBody("sg", "news", "2026-01-28", 1)
	reason := `{"reason":"checked by hand"}`
	return []struct{ method, path, body string }{
		{"POST", "/api/v1/keys", `{"name":"k1","scope":"read"}`},
		{"POST", "/api/v1/research", `{"country":"sg","category":"news","urls":["https://www.mom.gov.sg/"]}`},
		{"POST", "/api/v1/queues/research", `{"country":"sg","category":"news","urls":["https://www.mom.gov.sg/"]}`},
		{"POST", "/api/v1/queues/liveness", `{"country":"sg","domains":["mom.gov.sg"]}`},
		{"POST", "/api/v1/queues/contract", `{"country":"sg","category":"news","domainIds":["gov:sg:mom.gov.sg"]}`},
		{"POST", "/api/v1/seeds", `{"domain_id":"gov:sg:mom.gov.sg","category":"news","fetch":{"type":"rss","entry_url":"https://www.mom.gov.sg/feed"}}`},
		{"PATCH", samplePath("/api/v1/seeds/{seedId}"), `{"category":"news","fetch":{"schedule":"@daily"},"policy":{"crawl_delay":2}}`},
		{"POST", "/api/v1/seeds/promote", `{"seedId":"gov:sg:mom.gov.sg::news"}`},
		{"POST", samplePath("/api/v1/seeds/{seedId}/reject"), `{"reason_code":"duplicate","reason":"checked by hand"}`},
		{"POST", samplePath("/api/v1/seeds/{seedId}/reopen"), reason},
		{"POST", samplePath("/api/v1/seeds/{seedId}/choose"), `{"candidate_url":"https://www.mom.gov.sg/feed"}`},
		{"POST", "/api/v1/seeds/bulk", `{"action":"promote","filter":{"country":"sg","min_confidence":0.8},"dry_run":true}`},
		{"POST", samplePath("/api/v1/seeds/{seedId}/suspend"), reason},
		{"POST", samplePath("/api/v1/seeds/{seedId}/reactivate"), reason},
		{"POST", samplePath("/api/v1/seeds/{seedId}/archive"), reason},
		{"POST", "/api/v1/seeds/orchestrate", `{"country":"sg","category":"news","date":"2026-01-28"}`},
		{"POST", "/api/v1/datasets", ds},
		{"POST", "/api/v1/datasets/sg/news/2026-01-28", ds},
	}
}

func TestStrictJSONBodies(t *testing.T) {
	t.Parallel()
	s := newStack(t, sqlstoretest.OpenSQLite(t))
	send := func(method, path, body string, h http.Header) response {
		return s.do(t, request{Method: method, Path: path, Body: body, Header: h})
	}
	jsonCT := http.Header{"Content-Type": {"application/json"}}
	for _, rt := range bodyRoutes() {
		name := rt.method + " " + rt.path
		// Which member a rule is tried on: the first one of the body.
		first := rt.body[1 : strings.Index(rt.body, `":`)+1] // `"name"`
		member := strings.Trim(first, `"`)

		// A JSON body with another or no Content-Type: 415.
		for _, ct := range []string{"text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x"} {
			send(rt.method, rt.path, rt.body, http.Header{"Content-Type": {ct}}).Problem(t, http.StatusUnsupportedMediaType, "invalid")
		}
		req, err := http.NewRequest(rt.method, s.ts.URL+rt.path, strings.NewReader(rt.body))
		require.NoError(t, err)
		resp, err := s.ts.Client().Do(req)
		require.NoError(t, err)
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		response{Response: resp, Body: b}.Problem(t, http.StatusUnsupportedMediaType, "invalid")

		// A repeated key: 422 naming it, whichever copy a reader would take.
		dup := strings.Replace(rt.body, first, first+`:"x",`+first, 1)
		p := send(rt.method, rt.path, dup, jsonCT).Problem(t, http.StatusUnprocessableEntity, "invalid")
		require.Equal(t, []string{"body." + member}, httpapitest.Locations(p), name)
		require.Contains(t, p.Detail, "duplicate", name)

		// Invalid UTF-8 in a string: 400 naming where.
		bad := strings.Replace(rt.body, first, "\"z\xff\xfe\":1,"+first, 1)
		p = send(rt.method, rt.path, bad, jsonCT).Problem(t, http.StatusBadRequest, "invalid")
		require.Contains(t, p.Detail, "invalid UTF-8", name)
		require.Len(t, p.Errors, 1, name)

		// A lone surrogate escape is the same mistake.
		lone := strings.Replace(rt.body, first, `"z":"\ud800x",`+first, 1)
		p = send(rt.method, rt.path, lone, jsonCT).Problem(t, http.StatusBadRequest, "invalid")
		require.Equal(t, []string{"body.z"}, httpapitest.Locations(p), name)

		// A number no double holds.
		huge := strings.Replace(rt.body, first, `"z":1e400,`+first, 1)
		p = send(rt.method, rt.path, huge, jsonCT).Problem(t, http.StatusUnprocessableEntity, "invalid")
		require.Equal(t, []string{"body.z"}, httpapitest.Locations(p), name)
	}

	// Nested, escaped and valid: accepted by the checker (the route may
	// still refuse it for its own reasons, never for these).
	ok := `{"name":"k\u00e9\ud83d\ude00 ü","scope":"read","x":[{"a":1,"b":2},{"a":1e308,"b":-0.5E-3}],"y":{"a":{"a":[]}}}`
	r := send("POST", "/api/v1/keys", ok, jsonCT)
	p := r.Problem(t, http.StatusUnprocessableEntity, "invalid")
	require.Equal(t, []string{"body.x", "body.y"}, httpapitest.Locations(p), "unknown fields are refused by the route, after the checker passed it")
	// The same key in two objects is no repeat.
	r = send("POST", "/api/v1/keys", `{"name":"k2","scope":"admin","x":null}`, jsonCT)
	r.Problem(t, http.StatusUnprocessableEntity, "invalid")
	r = send("POST", "/api/v1/keys", `{"name":"k2","scope":"admin"}`, jsonCT)
	require.Equal(t, http.StatusCreated, r.StatusCode, string(r.Body))
	token, _ := r.JSON(t)["token"].(string)
	// {"scope":"read","scope":"admin"} never makes an admin key.
	r = s.do(t, request{Method: "POST", Path: "/api/v1/keys", Token: token, Body: `{"name":"k3","scope":"read","scope":"admin"}`})
	r.Problem(t, http.StatusUnprocessableEntity, "invalid")
	var keys struct {
		Items []seedengine.APIKey `json:"items"`
	}
	r = s.do(t, request{Path: "/api/v1/keys", Token: token})
	require.Equal(t, http.StatusOK, r.StatusCode, string(r.Body))
	require.NoError(t, json.Unmarshal(r.Body, &keys))
	require.Len(t, keys.Items, 1)
	require.Equal(t, "k2", keys.Items[0].Name)
}

// A seed made by hand has no contract run behind it: its evidence is 404.
func TestSeedEvidenceOfHandMadeSeedIs404(t *testing.T) {
	t.Parallel()
	s := newStack(t, sqlstoretest.OpenSQLite(t))
	r := s.post(t, "/api/v1/seeds", httpapitest.SeedBody("gov:sg:mom.gov.sg"))
	require.Equal(t, http.StatusCreated, r.StatusCode, string(r.Body))
	p := s.do(t, request{Path: "/api/v1/seeds/" + url.PathEscape("gov:sg:mom.gov.sg::news") + "/evidence"}).Problem(t, http.StatusNotFound, "not_found")
	require.Contains(t, p.Detail, "by hand")
	s.do(t, request{Path: "/api/v1/seeds/" + url.PathEscape("gov:sg:nope.gov.sg::news") + "/evidence"}).Problem(t, http.StatusNotFound, "not_found")
}

// The dead-letter filter accepts every job kind the queue runs (a seed
// alert that used its attempts is a dead letter too) and no other.
func TestDeadLetterKindsAreTheQueuesJobs(t *testing.T) {
	t.Parallel()
	s := newStack(t, sqlstoretest.OpenSQLite(t))
	var doc struct {
		Paths map[string]map[string]struct {
			Parameters []struct {
				Name   string `json:"name"`
				Schema struct {
					Enum []string `json:"enum"`
				} `json:"schema"`
			} `json:"parameters"`
		} `json:"paths"`
	}
	r := s.do(t, request{Path: "/openapi.json"})
	require.Equal(t, http.StatusOK, r.StatusCode)
	require.NoError(t, json.Unmarshal(r.Body, &doc))
	var enum []string
	for _, p := range doc.Paths["/api/v1/queues/dead-letters"]["get"].Parameters {
		if p.Name == "kind" {
			enum = p.Schema.Enum
		}
	}
	require.ElementsMatch(t, s.queue.JobKinds(), enum)

	for _, kind := range s.queue.JobKinds() {
		r := s.do(t, request{Path: "/api/v1/queues/dead-letters?kind=" + kind})
		require.Equal(t, http.StatusOK, r.StatusCode, "%s: %s", kind, r.Body)
	}
}
