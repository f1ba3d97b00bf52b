// Package httpapitest calls the API over HTTP in tests: httpapi's own,
// against fakes, and the application's flow tests in internal/app,
// against the real services. It checks a problem+json answer the way
// every client may rely on.
package httpapitest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/httpapi"
)

// Request is one call against a server under test.
type Request struct {
	Method, Path, Token string // Method "" is GET; Token goes in Authorization
	Body                any    // string, []byte, io.Reader or a value to encode as JSON
	Header              http.Header
	Host                string // the Host header; "" is the server's address
}

// Response is a server's answer with its body read. Body, the bytes,
// shadows the embedded http.Response's reader.
type Response struct {
	*http.Response
	Body []byte
}

// Do sends r to ts and reads the answer. A body goes as JSON unless r's
// header names another content type.
func Do(t testing.TB, ts *httptest.Server, r Request) Response {
	t.Helper()
	var body io.Reader
	switch b := r.Body.(type) {
	case nil:
	case string:
		body = strings.NewReader(b)
	case []byte:
		body = bytes.NewReader(b)
	case io.Reader:
		body = b
	default:
		j, err := json.Marshal(b)
		require.NoError(t, err)
		body = bytes.NewReader(j)
	}
	if r.Method == "" {
		r.Method = http.MethodGet
	}
	req, err := http.NewRequest(r.Method, ts.URL+r.Path, body)
	require.NoError(t, err)
	for k, v := range r.Header {
		req.Header[k] = v
	}
	if r.Host != "" {
		req.Host = r.Host
	}
	if body != nil && req.Header.Get("Content-Type") == "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if r.Token != "" {
		req.Header.Set("Authorization", "Bearer "+r.Token)
	}
	resp, err := ts.Client().Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return Response{resp, b}
}

// JSON decodes the body as a JSON object.
func (r Response) JSON(t testing.TB) map[string]any {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.Unmarshal(r.Body, &m), string(r.Body))
	return m
}

// Problem checks that r is a problem with the given status and code, with
// every member a problem must have, and returns it.
func (r Response) Problem(t testing.TB, status int, code string) httpapi.Problem {
	t.Helper()
	require.Equal(t, status, r.StatusCode, string(r.Body))
	require.Equal(t, "application/problem+json", r.Header.Get("Content-Type"))
	var p httpapi.Problem
	require.NoError(t, json.Unmarshal(r.Body, &p), string(r.Body))
	require.Equal(t, status, p.Status)
	require.Equal(t, code, p.Code)
	require.Equal(t, "urn:seedengine:problem:"+code, p.Type)
	require.Equal(t, http.StatusText(status), p.Title)
	require.NotEmpty(t, p.Detail)
	// Instance names the route, and is absent when none matched.
	if p.Instance != "" {
		require.True(t, strings.HasPrefix(p.Instance, "/"), p.Instance)
	}
	require.Equal(t, r.Header.Get("X-Request-ID"), p.RequestID)
	return p
}

// Decode decodes r's body as a T.
func Decode[T any](t testing.TB, r Response) T {
	t.Helper()
	var v T
	require.NoError(t, json.Unmarshal(r.Body, &v), string(r.Body))
	return v
}

// Locations returns the sorted locations of p's field errors.
func Locations(p httpapi.Problem) []string {
	var out []string
	for _, e := range p.Errors {
		out = append(out, e.Location)
	}
	sort.Strings(out)
	return out
}

// DatasetBody is a valid dataset upload for a partition, with n records,
// and members the API must keep as they are (note, x_custom, extra_top).
func DatasetBody(country, category, date string, n int) string {
	recs := make([]string, n)
	for i := range recs {
		recs[i] = fmt.Sprintf(`{"raw_url":"https://www.site%d.gov.sg/news?a=1&b=2","domain_id":"gov:sg:site%d.gov.sg","authority":"gov","confidence":0.9,"x_custom":[%d]}`, i, i, i)
	}
	return fmt.Sprintf(`{"meta":{"dataset_id":"client-id","country":%q,"category":%q,"date":%q,"record_count":%d,"note":"kept"},"records":[%s],"extra_top":true}`,
		strings.ToUpper(country), category, date, n, strings.Join(recs, ","))
}

// SeedBody is a valid seed create request for domainID.
func SeedBody(domainID string) map[string]any {
	_, _, domain, _ := seedengine.ParseDomainID(domainID)
	return map[string]any{
		"domain_id": domainID,
		"category":  "news",
		"source":    map[string]any{"name": "Example " + domain},
		"fetch":     map[string]any{"type": "rss", "entry_url": "https://www." + domain + "/rss.xml"},
		"policy":    map[string]any{"robots_url": "https://www." + domain + "/robots.txt"},
	}
}

// With returns a copy of body with each key of kv (key, value pairs) set
// to its value, or removed when the value is nil: a valid request with
// one thing changed.
func With(body map[string]any, kv ...any) map[string]any {
	m := make(map[string]any, len(body))
	for k, v := range body {
		m[k] = v
	}
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i+1] == nil {
			delete(m, kv[i].(string))
			continue
		}
		m[kv[i].(string)] = kv[i+1]
	}
	return m
}
