package httpapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/httpapi"
	"github.com/seedengine/seedengine/internal/sqlstore/sqlstoretest"
)

// bodyRoutes are the routes that take a body, with a valid one each, so
// that each strict rule is tried on every one of them.
func bodyRoutes() []struct{ method, path, body string } {
	ds := dsBody("sg", "news", "2026-01-28", 1)
	return []struct{ method, path, body string }{
		{"POST", "/api/v1/keys", `{"name":"k1","scope":"read"}`},
		{"POST", "/api/v1/research", `{"country":"sg","category":"news","urls":["https://www.mom.gov.sg/"]}`},
		{"POST", "/api/v1/queues/research", `{"country":"sg","category":"news","urls":["https://www.mom.gov.sg/"]}`},
		{"POST", "/api/v1/queues/liveness", `{"country":"sg","domains":["mom.gov.sg"]}`},
		{"POST", "/api/v1/queues/contract", `{"country":"sg","category":"news","domainIds":["gov:sg:mom.gov.sg"]}`},
		{"POST", "/api/v1/seeds", `{"domain_id":"gov:sg:mom.gov.sg","fetch":{"type":"rss","entry_url":"https://www.mom.gov.sg/feed"}}`},
		{"POST", "/api/v1/seeds/promote", `{"seedId":"gov:sg:mom.gov.sg::news"}`},
		{"POST", "/api/v1/seeds/orchestrate", `{"country":"sg","category":"news","date":"2026-01-28"}`},
		{"POST", "/api/v1/datasets", ds},
		{"POST", "/api/v1/datasets/sg/news/2026-01-28", ds},
	}
}

func TestStrictJSONBodies(t *testing.T) {
	t.Parallel()
	s := newStack(t, sqlstoretest.OpenSQLite(t))
	send := func(method, path, body string, h http.Header) response {
		return s.do(t, request{method: method, path: path, body: body, header: h})
	}
	jsonCT := http.Header{"Content-Type": {"application/json"}}
	for _, rt := range bodyRoutes() {
		name := rt.method + " " + rt.path
		// Which member a rule is tried on: the first one of the body.
		first := rt.body[1 : strings.Index(rt.body, `":`)+1] // `"name"`
		member := strings.Trim(first, `"`)

		// A JSON body with another or no Content-Type: 415.
		for _, ct := range []string{"text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x"} {
			send(rt.method, rt.path, rt.body, http.Header{"Content-Type": {ct}}).problem(t, http.StatusUnsupportedMediaType, "invalid")
		}
		req, err := http.NewRequest(rt.method, s.ts.URL+rt.path, strings.NewReader(rt.body))
		require.NoError(t, err)
		resp, err := s.ts.Client().Do(req)
		require.NoError(t, err)
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		response{resp, b}.problem(t, http.StatusUnsupportedMediaType, "invalid")

		// A repeated key: 422 naming it, whichever copy a reader would take.
		dup := strings.Replace(rt.body, first, first+`:"x",`+first, 1)
		p := send(rt.method, rt.path, dup, jsonCT).problem(t, http.StatusUnprocessableEntity, "invalid")
		require.Equal(t, []string{"body." + member}, locations(p), name)
		require.Contains(t, p.Detail, "duplicate", name)

		// Invalid UTF-8 in a string: 400 naming where.
		bad := strings.Replace(rt.body, first, "\"z\xff\xfe\":1,"+first, 1)
		p = send(rt.method, rt.path, bad, jsonCT).problem(t, http.StatusBadRequest, "invalid")
		require.Contains(t, p.Detail, "invalid UTF-8", name)
		require.Len(t, p.Errors, 1, name)

		// A lone surrogate escape is the same mistake.
		lone := strings.Replace(rt.body, first, `"z":"\ud800x",`+first, 1)
		p = send(rt.method, rt.path, lone, jsonCT).problem(t, http.StatusBadRequest, "invalid")
		require.Equal(t, []string{"body.z"}, locations(p), name)

		// A number no double holds.
		huge := strings.Replace(rt.body, first, `"z":1e400,`+first, 1)
		p = send(rt.method, rt.path, huge, jsonCT).problem(t, http.StatusUnprocessableEntity, "invalid")
		require.Equal(t, []string{"body.z"}, locations(p), name)
	}

	// Nested, escaped and valid: accepted by the checker (the route may
	// still refuse it for its own reasons, never for these).
	ok := `{"name":"k\u00e9\ud83d\ude00 ü","scope":"read","x":[{"a":1,"b":2},{"a":1e308,"b":-0.5E-3}],"y":{"a":{"a":[]}}}`
	r := send("POST", "/api/v1/keys", ok, jsonCT)
	p := r.problem(t, http.StatusUnprocessableEntity, "invalid")
	require.Equal(t, []string{"body.x", "body.y"}, locations(p), "unknown fields are refused by the route, after the checker passed it")
	// The same key in two objects is no repeat.
	r = send("POST", "/api/v1/keys", `{"name":"k2","scope":"admin","x":null}`, jsonCT)
	r.problem(t, http.StatusUnprocessableEntity, "invalid")
	r = send("POST", "/api/v1/keys", `{"name":"k2","scope":"admin"}`, jsonCT)
	require.Equal(t, http.StatusCreated, r.StatusCode, string(r.body))
	token, _ := r.json(t)["token"].(string)
	// {"scope":"read","scope":"admin"} never makes an admin key.
	r = s.do(t, request{method: "POST", path: "/api/v1/keys", token: token, body: `{"name":"k3","scope":"read","scope":"admin"}`})
	r.problem(t, http.StatusUnprocessableEntity, "invalid")
	var keys struct {
		Items []seedengine.APIKey `json:"items"`
	}
	r = s.do(t, request{path: "/api/v1/keys", token: token})
	require.Equal(t, http.StatusOK, r.StatusCode, string(r.body))
	require.NoError(t, json.Unmarshal(r.body, &keys))
	require.Len(t, keys.Items, 1)
	require.Equal(t, "k2", keys.Items[0].Name)
}

// A streamed dataset save is checked as it streams: a repeated key deep
// in a record is found, and nothing is stored.
func TestStrictJSONStreamedSave(t *testing.T) {
	t.Parallel()
	e := setupDatasets(t, dsOpts{})
	body := dsBody("sg", "news", "2026-01-28", 500)
	at := strings.Index(body, `"raw_url":"https://www.site321.`)
	dup := body[:at] + `"raw_url":"https://x.example/",` + body[at:]
	r := e.do(t, request{method: http.MethodPost, path: "/api/v1/datasets/sg/news/2026-01-28", token: e.write, body: io.MultiReader(strings.NewReader(dup))})
	p := r.problem(t, http.StatusUnprocessableEntity, "invalid")
	require.Equal(t, []string{"body.records[321].raw_url"}, locations(p))
	require.False(t, e.exists(t, "raw/country=sg/category=news/date=2026-01-28/raw_0001.json"))
}

// slowReader sends its body in two parts, with a pause between them.
type slowReader struct {
	parts [][]byte
	pause time.Duration
}

func (s *slowReader) Read(p []byte) (int, error) {
	if len(s.parts) == 0 {
		return 0, io.EOF
	}
	if len(s.parts) == 1 {
		time.Sleep(s.pause)
	}
	n := copy(p, s.parts[0])
	s.parts[0] = s.parts[0][n:]
	if len(s.parts[0]) == 0 {
		s.parts = s.parts[1:]
	}
	return n, nil
}

// A body that stops arriving is cut at the body read timeout with 408, the
// streamed dataset save like every other route, and nothing is stored.
func TestSlowBodyIs408(t *testing.T) {
	t.Parallel()
	e := setupDatasets(t, dsOpts{timeout: 300 * time.Millisecond})
	body := []byte(dsBody("sg", "news", "2026-01-28", 3))
	for _, path := range []string{"/api/v1/datasets/sg/news/2026-01-28", "/api/v1/datasets", "/api/v1/keys"} {
		slow := &slowReader{parts: [][]byte{body[:20], body[20:]}, pause: 1500 * time.Millisecond}
		r := e.do(t, request{method: http.MethodPost, path: path, token: e.admin, body: slow})
		r.problem(t, http.StatusRequestTimeout, "invalid")
	}
	require.False(t, e.exists(t, "raw/country=sg/category=news/date=2026-01-28/raw_0001.json"))
}

// blockingStats waits, the first time, until its caller gives up.
type blockingStats struct {
	entered chan struct{}
	once    sync.Once
}

func (b *blockingStats) CountJobs(ctx context.Context) ([]seedengine.JobCount, error) {
	first := false
	b.once.Do(func() { first = true })
	if !first {
		return nil, nil
	}
	close(b.entered)
	<-ctx.Done()
	return nil, fmt.Errorf("count jobs: %w", ctx.Err())
}

// A client that goes away mid-request is not a server error: the request
// is logged at INFO and counted as 499, never as 5xx.
func TestClientGoneIs499NotServerError(t *testing.T) {
	t.Parallel()
	stats := &blockingStats{entered: make(chan struct{})}
	e := setup(t, func(_ *httpapi.Config, d *httpapi.Deps) { d.QueueStats = stats })
	ctx, cancel := context.WithCancel(t.Context())
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, e.ts.URL+"/api/v1/queues/stats", nil)
	require.NoError(t, err)
	go func() {
		<-stats.entered
		cancel()
	}()
	_, err = e.ts.Client().Do(req)
	require.ErrorIs(t, err, context.Canceled)

	var access map[string]any
	require.Eventually(t, func() bool {
		for _, l := range e.logs.lines(t, "http_request") {
			if l["route"] == "/api/v1/queues/stats" {
				access = l
				return true
			}
		}
		return false
	}, 5*time.Second, 10*time.Millisecond)
	require.EqualValues(t, 499, access["status"])
	require.Equal(t, "INFO", access["level"])
	require.Empty(t, e.logs.lines(t, "http_error"), "nothing logged at ERROR")
	require.Len(t, e.logs.lines(t, "http_client_closed"), 1)
	body := string(e.do(t, request{path: "/metrics"}).body)
	require.Contains(t, body, `seedengine_http_requests_total{method="GET",route="/api/v1/queues/stats",status="499"} 1`)
	require.NotContains(t, body, `route="/api/v1/queues/stats",status="5`)
}

// slowBatches takes its time to create a batch.
type slowBatches struct {
	*fakeBatches
	delay time.Duration
}

func (s slowBatches) CreateBatch(ctx context.Context, b *seedengine.Batch, chunks []*seedengine.BatchChunk) error {
	select {
	case <-time.After(s.delay):
	case <-ctx.Done():
		return ctx.Err()
	}
	return s.fakeBatches.CreateBatch(ctx, b, chunks)
}

// The body's read deadline ends with the body: a handler that runs longer
// than it is not cancelled (net/http's background read would take an
// expired deadline for a client gone).
func TestSlowHandlerAfterBodyIsNotCancelled(t *testing.T) {
	t.Parallel()
	e := setup(t, func(c *httpapi.Config, d *httpapi.Deps) {
		c.BodyReadTimeout = 200 * time.Millisecond
		d.Batches = slowBatches{fakeBatches: &fakeBatches{}, delay: 700 * time.Millisecond}
	})
	r := e.do(t, request{method: http.MethodPost, path: "/api/v1/queues/research",
		body: `{"country":"sg","category":"news","urls":["https://www.mom.gov.sg/"]}`})
	require.Equal(t, http.StatusAccepted, r.StatusCode, string(r.body))
}
