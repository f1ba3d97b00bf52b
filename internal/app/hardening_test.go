package app_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/httpapi/httpapitest"
	"github.com/seedengine/seedengine/internal/sqlstore"
	"github.com/seedengine/seedengine/internal/sqlstore/sqlstoretest"
)

// Media types compare case-insensitively (RFC 9110 §8.3.1), and JSON is
// read only as UTF-8 (RFC 8259 §8.1): a body said to be UTF-16 is refused
// rather than read as if it were UTF-8, on every body route.
func TestBodyMediaTypes(t *testing.T) {
	t.Parallel()
	s := newStack(t, sqlstoretest.OpenSQLite(t))
	admin := adminToken(t, s)
	for _, rt := range bodyRoutes() {
		name := rt.method + " " + rt.path
		for _, ct := range []string{"APPLICATION/JSON", "Application/Json; Charset=UTF-8", "application/json;charset=\"utf-8\""} {
			r := s.do(t, request{Method: rt.method, Path: rt.path, Body: rt.body, Token: admin, Header: http.Header{"Content-Type": {ct}}})
			// Past the body rules: what the route makes of it (201, 202,
			// 404 for a seed not there, 501 for a kind this stack lacks).
			require.NotContains(t, []int{http.StatusBadRequest, http.StatusUnsupportedMediaType, http.StatusUnprocessableEntity}, r.StatusCode,
				"%s %s: %s", name, ct, r.Body)
		}
		for _, h := range []http.Header{
			{"Content-Type": {"application/json; charset=utf-16"}},
			{"Content-Type": {"application/json; charset=iso-8859-1"}},
			{"Content-Type": {"application/json", "text/plain"}},
			{"Content-Type": {"application/jsonx"}},
		} {
			s.do(t, request{Method: rt.method, Path: rt.path, Body: rt.body, Token: admin, Header: h}).Problem(t, http.StatusUnsupportedMediaType, "invalid")
		}
	}
}

// Two Authorization headers are refused, never "the first one wins".
func TestTwoAuthorizationHeadersAre400(t *testing.T) {
	t.Parallel()
	s := newStack(t, sqlstoretest.OpenSQLite(t))
	admin := "Bearer " + adminToken(t, s)
	for _, path := range []string{"/api/v1/seeds", "/api/v1/keys", "/api/v1/queues/batches"} {
		for _, h := range [][]string{{admin, "Bearer se_nope"}, {"Bearer se_nope", admin}, {admin, admin}} {
			p := s.do(t, request{Path: path, Header: http.Header{"Authorization": h}}).Problem(t, http.StatusBadRequest, "invalid")
			require.Contains(t, p.Detail, "one Authorization header", path)
		}
		r := s.do(t, request{Path: path, Header: http.Header{"Authorization": {admin}}})
		require.Equal(t, http.StatusOK, r.StatusCode, "%s: %s", path, r.Body)
	}
}

// Every number and paging parameter of every route refuses NaN,
// infinities, huge, negative and malformed values with 422 naming it,
// never a 5xx or a silently empty answer.
func TestParameterValuesOutOfRange(t *testing.T) {
	t.Parallel()
	s := newStack(t, sqlstoretest.OpenSQLite(t))
	var doc struct {
		Paths map[string]map[string]struct {
			Parameters []struct {
				Name   string `json:"name"`
				In     string `json:"in"`
				Schema struct {
					Type    string   `json:"type"`
					Minimum *float64 `json:"minimum"`
				} `json:"schema"`
			} `json:"parameters"`
		} `json:"paths"`
	}
	r := s.do(t, request{Path: "/openapi.json"})
	require.Equal(t, http.StatusOK, r.StatusCode)
	require.NoError(t, json.Unmarshal(r.Body, &doc))
	tried := 0
	for tmpl, ops := range doc.Paths {
		op, ok := ops["get"]
		if !ok {
			continue
		}
		for _, p := range op.Parameters {
			if p.In != "query" || (p.Schema.Type != "number" && p.Schema.Type != "integer") {
				continue
			}
			bad := []string{"NaN", "nan", "Inf", "-Infinity", "+inf", "1e999", "99999999999999999999999", "x", "0x10"}
			if p.Schema.Minimum != nil && *p.Schema.Minimum >= 0 {
				bad = append(bad, "-1", "-0.5")
			}
			if p.Schema.Type == "integer" {
				bad = append(bad, "1.5", "1e3")
			}
			for _, v := range bad {
				path := samplePath(tmpl) + "?" + p.Name + "=" + v
				r := s.do(t, request{Path: path})
				prob := r.Problem(t, http.StatusUnprocessableEntity, "invalid")
				require.Contains(t, httpapitest.Locations(prob), "query."+p.Name, path)
				require.NotContains(t, strings.ToLower(string(r.Body)), "infinity", path)
				tried++
			}
		}
	}
	require.Greater(t, tried, 50)
}

// adminToken creates an admin key, which closes the stack's open mode,
// and returns its token.
func adminToken(t *testing.T, s *stack) string {
	t.Helper()
	r := s.do(t, request{Method: "POST", Path: "/api/v1/keys", Body: `{"name":"test-admin","scope":"admin"}`})
	require.Equal(t, http.StatusCreated, r.StatusCode, string(r.Body))
	return r.JSON(t)["token"].(string)
}

// U+0000 is refused in every body string, path and query value, on both
// engines, before it reaches a store: PostgreSQL's text cannot hold it,
// so it would be stored by one engine and a 500 on the other.
func TestNULIsRefusedEverywhere(t *testing.T) {
	t.Parallel()
	sqlstoretest.Engines(t, func(t *testing.T, db *sqlstore.DB) {
		s := newStack(t, db)
		admin := adminToken(t, s)
		for _, rt := range bodyRoutes() {
			for _, v := range []string{`"a\u0000b"`, `"\u0000"`} {
				body := `{"z":` + v + `,` + rt.body[1:]
				p := s.do(t, request{Method: rt.method, Path: rt.path, Body: body, Token: admin}).Problem(t, http.StatusUnprocessableEntity, "invalid")
				require.Equal(t, []string{"body.z"}, httpapitest.Locations(p), rt.method+" "+rt.path)
			}
		}
		// Where the probe found 500s: strings a store would keep.
		seed := `{"domain_id":"gov:sg:mom.gov.sg","category":"news","source":{"name":"a\u0000"},"fetch":{"type":"rss","entry_url":"https://www.mom.gov.sg/feed"}}`
		p := s.do(t, request{Method: "POST", Path: "/api/v1/seeds", Body: seed, Token: admin}).Problem(t, http.StatusUnprocessableEntity, "invalid")
		require.Equal(t, []string{"body.source.name"}, httpapitest.Locations(p))
		for _, path := range []string{"/api/v1/seeds?after=a%00b", "/api/v1/seeds?q%00=1", "/api/v1/domains?country=s%00g"} {
			s.do(t, request{Path: path, Token: admin}).Problem(t, http.StatusUnprocessableEntity, "invalid")
		}
		for _, path := range []string{"/api/v1/seeds/gov:sg:mom.gov.sg::n%00ews", "/api/v1/keys/a%00b"} {
			method := "GET"
			if strings.HasPrefix(path, "/api/v1/keys/") {
				method = "DELETE"
			}
			s.do(t, request{Method: method, Path: path, Token: admin}).Problem(t, http.StatusBadRequest, "invalid")
		}
	})
}

// A URL is read as the URL Standard reads it: a U+0000 in its path,
// query or fragment is percent-encoded there, so such a URL is a URL, and
// one odd line of a list sinks neither the list nor anything stored. It
// is kept as %00 (no store holds U+0000); one whose host has it is
// refused as that one item. Everywhere else U+0000 stays refused.
func TestNULInAURLIsThatURLsBusiness(t *testing.T) {
	t.Parallel()
	sqlstoretest.Engines(t, func(t *testing.T, db *sqlstore.DB) {
		s := newStack(t, db, withQueue())
		urls := `["https://www.mom.gov.sg/test?a#b\u0000c","https://www.mo\u0000h.gov.sg/","https://www.mti.gov.sg/a\u0000b"]`
		r := s.do(t, request{Method: "POST", Path: "/api/v1/research",
			Body: `{"country":"sg","category":"news","date":"2026-01-28","urls":` + urls + `}`})
		require.Equal(t, http.StatusCreated, r.StatusCode, string(r.Body))
		var res seedengine.ResearchResult
		require.NoError(t, json.Unmarshal(r.Body, &res))
		require.Equal(t, 2, res.Accepted)
		require.Len(t, res.Rejected, 1)
		require.Equal(t, 1, res.Rejected[0].Index)
		require.Equal(t, "invalid_host", res.Rejected[0].Reason)
		require.Equal(t, "https://www.mo%00h.gov.sg/", res.Rejected[0].URL)
		ds := s.chunkRecords(t, seedengine.Partition{Country: "sg", Category: "news", Date: "2026-01-28"}, 1)
		require.Equal(t, "https://www.mom.gov.sg/test?a#b%00c", ds.Records[0].RawURL)
		require.Equal(t, "https://www.mti.gov.sg/a%00b", ds.Records[1].RawURL)

		// The same list as a research batch: its URLs go into the queue's
		// job arguments (JSONB on PostgreSQL, which refuses U+0000 too).
		r = s.do(t, request{Method: "POST", Path: "/api/v1/queues/research",
			Body: `{"country":"sg","category":"policy","date":"2026-01-28","urls":` + urls + `}`})
		require.Equal(t, http.StatusAccepted, r.StatusCode, string(r.Body))
		b := s.waitBatch(t, r.JSON(t)["id"].(string))
		require.Equal(t, seedengine.BatchCompletedWithErrors, b.Status, "%+v", b)
		require.Equal(t, 2, b.Items.Succeeded)
		require.Equal(t, 1, b.Items.Failed, "the URL with U+0000 in its host, alone")

		r = s.do(t, request{Method: "POST", Path: "/api/v1/research",
			Body: `{"country":"sg","category":"news","records":[{"raw_url":"https://www.mom.gov.sg/r?x=\u0000"}]}`})
		require.Equal(t, http.StatusCreated, r.StatusCode, string(r.Body))

		// Not a URL: refused as before.
		p := s.do(t, request{Method: "POST", Path: "/api/v1/research",
			Body: `{"country":"sg","category":"news","queries":["a\u0000"],"urls":["https://www.mom.gov.sg/"]}`}).Problem(t, http.StatusUnprocessableEntity, "invalid")
		require.Contains(t, strings.Join(httpapitest.Locations(p), " "), "body.queries")
		s.do(t, request{Method: "POST", Path: "/api/v1/research",
			Body: `{"country":"sg","category":"news","records":[{"raw_url":"https://www.mom.gov.sg/","note":"a\u0000"}]}`}).Problem(t, http.StatusUnprocessableEntity, "invalid")
	})
}
