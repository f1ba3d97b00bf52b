package httpapi_test

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/httpapi"
)

func TestRateLimit(t *testing.T) {
	t.Parallel()
	e := setup(t, func(c *httpapi.Config, _ *httpapi.Deps) {
		c.RateLimit = 0.1 // one token every 10 s: a slow test run cannot refill a bucket
		c.RateBurst = 3
	})
	tokA := e.keys.mustCreate(t, "a", seedengine.ScopeRead)
	tokB := e.keys.mustCreate(t, "b", seedengine.ScopeRead)

	for i := 0; i < 3; i++ {
		r := e.do(t, request{Path: "/api/v1/queues/stats", Token: tokA})
		require.Equal(t, http.StatusOK, r.StatusCode, "request %d", i)
	}
	r := e.do(t, request{Path: "/api/v1/queues/stats", Token: tokA})
	r.Problem(t, http.StatusTooManyRequests, "rate_limited")
	retry, err := strconv.Atoi(r.Header.Get("Retry-After"))
	require.NoError(t, err)
	require.GreaterOrEqual(t, retry, 1)
	require.LessOrEqual(t, retry, 10)

	// Another key has its own bucket.
	require.Equal(t, http.StatusOK, e.do(t, request{Path: "/api/v1/queues/stats", Token: tokB}).StatusCode)

	// Open routes are never limited.
	for i := 0; i < 10; i++ {
		require.Equal(t, http.StatusOK, e.do(t, request{Path: "/health"}).StatusCode)
	}

	// Requests without a valid key are limited by client address, which
	// also slows token guessing.
	for i := 0; i < 3; i++ {
		e.do(t, request{Path: "/api/v1/queues/stats", Token: fmt.Sprint("guess", i)}).Problem(t, http.StatusUnauthorized, "unauthorized")
	}
	e.do(t, request{Path: "/api/v1/queues/stats", Token: "guess"}).Problem(t, http.StatusTooManyRequests, "rate_limited")
}

func TestRequestID(t *testing.T) {
	t.Parallel()
	e := setup(t)

	r := e.do(t, request{Path: "/health", Header: http.Header{"X-Request-Id": {"abc-123_DEF.ghi"}}})
	require.Equal(t, "abc-123_DEF.ghi", r.Header.Get("X-Request-ID"))

	r1 := e.do(t, request{Path: "/health"})
	r2 := e.do(t, request{Path: "/nope"})
	id1, id2 := r1.Header.Get("X-Request-ID"), r2.Header.Get("X-Request-ID")
	require.NotEmpty(t, id1)
	require.NotEqual(t, id1, id2)
	require.Equal(t, id2, r2.Problem(t, http.StatusNotFound, "not_found").RequestID)

	for _, bad := range []string{strings.Repeat("a", 129), "has space", "tab\there", "ünïcode"} {
		r := e.do(t, request{Path: "/health", Header: http.Header{"X-Request-Id": {bad}}})
		got := r.Header.Get("X-Request-ID")
		require.NotEqual(t, bad, got)
		require.NotEmpty(t, got)
		require.LessOrEqual(t, len(got), 128)
	}
}

func TestOneAccessLogLinePerRequest(t *testing.T) {
	t.Parallel()
	e := setup(t)
	reqs := []request{
		{Path: "/health"},
		{Path: "/"},
		{Path: "/nope"},
		{Method: "POST", Path: "/health"},
		{Path: "/api/v1/queues/batch/b-42"},
		{Path: "/api/v1/queues/batches?limit=0"},
		{Method: "POST", Path: "/api/v1/keys", Body: `{`},
		{Path: "/api/v1/seeds"},
		{Path: "/metrics"},
	}
	var wg sync.WaitGroup
	for _, r := range reqs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			e.do(t, r)
		}()
	}
	wg.Wait()
	lines := e.logs.lines(t, "http_request")
	require.Len(t, lines, len(reqs))
	byPath := map[string]map[string]any{}
	for _, l := range lines {
		for _, k := range []string{"method", "route", "path", "status", "bytes", "duration_ms", "request_id", "key"} {
			require.Contains(t, l, k)
		}
		byPath[l["method"].(string)+" "+l["path"].(string)] = l
	}
	got := byPath["GET /api/v1/queues/batch/b-42"]
	require.Equal(t, "/api/v1/queues/batch/{batchId}", got["route"], "the route is the pattern, not the path")
	require.EqualValues(t, 404, got["status"])
	require.Equal(t, "unmatched", byPath["GET /nope"]["route"])
}

func TestMetrics(t *testing.T) {
	t.Parallel()
	e := setup(t)
	e.do(t, request{Path: "/health"})
	e.do(t, request{Path: "/health"})
	e.do(t, request{Path: "/api/v1/queues/batch/b-1"})
	e.do(t, request{Path: "/api/v1/queues/batch/b-2"})
	e.do(t, request{Path: "/no/such/thing"})
	e.do(t, request{Method: "BREW", Path: "/health"})

	r := e.do(t, request{Path: "/metrics"})
	require.Equal(t, http.StatusOK, r.StatusCode)
	body := string(r.Body)
	require.Contains(t, body, `seedengine_http_requests_total{method="GET",route="/health",status="200"} 2`)
	require.Contains(t, body, `seedengine_http_requests_total{method="GET",route="/api/v1/queues/batch/{batchId}",status="404"} 2`)
	require.Contains(t, body, `seedengine_http_requests_total{method="GET",route="unmatched",status="404"} 1`)
	require.Contains(t, body, `seedengine_http_requests_total{method="OTHER",route="unmatched",status="405"} 1`)
	require.NotContains(t, body, "b-1", "raw paths must not become labels")
	require.Contains(t, body, `seedengine_http_request_duration_seconds_bucket{method="GET",route="/health"`)
	require.Contains(t, body, `seedengine_jobs{kind="research_chunk",state="available"} 3`)
	require.Contains(t, body, `seedengine_jobs{kind="liveness_chunk",state="completed"} 7`)
	require.Contains(t, body, "go_goroutines")
	require.Contains(t, body, "process_")
}

func TestMetricsSurviveQueueStatsFailure(t *testing.T) {
	t.Parallel()
	e := setup(t)
	e.stats.err = fmt.Errorf("database is locked")
	r := e.do(t, request{Path: "/metrics"})
	require.Equal(t, http.StatusOK, r.StatusCode)
	require.NotContains(t, string(r.Body), "seedengine_jobs{")
	require.Contains(t, string(r.Body), "go_goroutines")
	require.Len(t, e.logs.lines(t, "metrics_jobs_failed"), 1)
}

func TestBatches(t *testing.T) {
	t.Parallel()
	e := setup(t)
	now := time.Date(2026, 1, 28, 3, 0, 0, 0, time.UTC)
	for i, kind := range []seedengine.BatchKind{"research", "liveness", "research", "contract", "research"} {
		status := seedengine.BatchQueued
		if i%2 == 1 {
			status = seedengine.BatchCompleted
		}
		e.batches.batches = append(e.batches.batches, &seedengine.Batch{
			ID: fmt.Sprintf("b%d", i), Kind: kind, Status: status, Country: "sg", Category: "news",
			ChunkSize: 100, Chunks: seedengine.ChunkCounts{Total: 2}, Items: seedengine.ItemCounts{Total: 150},
			CreatedAt: now.Add(time.Duration(i) * time.Minute), Result: []byte(`{"keys":["raw/x"]}`),
		})
	}

	r := e.do(t, request{Path: "/api/v1/queues/batch/b2"})
	require.Equal(t, http.StatusOK, r.StatusCode)
	b := r.JSON(t)
	require.Equal(t, "b2", b["id"])
	require.Equal(t, "research", b["kind"])
	require.Equal(t, "queued", b["status"])
	require.Equal(t, map[string]any{"total": 2.0, "done": 0.0, "failed": 0.0}, b["chunks"])
	require.Equal(t, map[string]any{"keys": []any{"raw/x"}}, b["result"])
	require.Contains(t, b, "started_at")

	p := e.do(t, request{Path: "/api/v1/queues/batch/nope"}).Problem(t, http.StatusNotFound, "not_found")
	require.Contains(t, p.Detail, "nope")

	r = e.do(t, request{Path: "/api/v1/queues/batches"})
	list := r.JSON(t)
	require.EqualValues(t, 5, list["total"])
	require.EqualValues(t, 50, list["limit"])
	require.EqualValues(t, 0, list["offset"])
	require.Len(t, list["items"], 5)
	require.Equal(t, "b4", list["items"].([]any)[0].(map[string]any)["id"], "newest first")

	r = e.do(t, request{Path: "/api/v1/queues/batches?kind=research&limit=2&offset=1"})
	list = r.JSON(t)
	require.EqualValues(t, 3, list["total"])
	require.EqualValues(t, 2, list["limit"])
	require.EqualValues(t, 1, list["offset"])
	ids := []string{}
	for _, it := range list["items"].([]any) {
		ids = append(ids, it.(map[string]any)["id"].(string))
	}
	require.Equal(t, []string{"b2", "b0"}, ids)

	r = e.do(t, request{Path: "/api/v1/queues/batches?status=completed"})
	require.EqualValues(t, 2, r.JSON(t)["total"])

	r = e.do(t, request{Path: "/api/v1/queues/batches?kind=orchestration"})
	list = r.JSON(t)
	require.EqualValues(t, 0, list["total"])
	require.Equal(t, []any{}, list["items"])
}

func TestQueueStats(t *testing.T) {
	t.Parallel()
	e := setup(t)
	r := e.do(t, request{Path: "/api/v1/queues/stats"})
	require.Equal(t, http.StatusOK, r.StatusCode)
	require.Equal(t, map[string]any{
		"jobs": map[string]any{
			"research_chunk": map[string]any{"available": 3.0, "running": 1.0},
			"liveness_chunk": map[string]any{"completed": 7.0},
		},
		"states":         map[string]any{"available": 3.0, "running": 1.0, "completed": 7.0},
		"total":          11.0,
		"window_minutes": 5.0,
		"throughput":     []any{},
	}, r.JSON(t))
	require.Equal(t, 5, e.stats.minutes, "five minutes unless asked")

	e.stats.through = []seedengine.KindThroughput{{Kind: "research_chunk", Completed: 120, PerSecond: 0.4, ByMinute: []int{60, 60}, Available: 3, OldestWaitingSeconds: 1.5}}
	r = e.do(t, request{Path: "/api/v1/queues/stats?minutes=15"})
	require.Equal(t, http.StatusOK, r.StatusCode)
	require.Equal(t, 15, e.stats.minutes)
	require.Equal(t, []any{map[string]any{"kind": "research_chunk", "completed": 120.0, "discarded": 0.0, "cancelled": 0.0,
		"per_second": 0.4, "by_minute": []any{60.0, 60.0}, "available": 3.0, "running": 0.0, "oldest_waiting_seconds": 1.5}},
		r.JSON(t)["throughput"])
	for _, bad := range []string{"0", "61", "x"} {
		p := e.do(t, request{Path: "/api/v1/queues/stats?minutes=" + bad}).Problem(t, http.StatusUnprocessableEntity, "invalid")
		require.Contains(t, fmt.Sprint(p), "minutes")
	}

	e2 := setup(t, func(_ *httpapi.Config, d *httpapi.Deps) { d.QueueStats = nil })
	e2.do(t, request{Path: "/api/v1/queues/stats"}).Problem(t, http.StatusServiceUnavailable, "unavailable")
}
