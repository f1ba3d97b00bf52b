package httpapi_test

import (
	"context"
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
	"github.com/seedengine/seedengine/internal/httpapi/httpapitest"
)

// A streamed dataset save is checked as it streams: a repeated key deep
// in a record is found, and nothing is stored.
func TestStrictJSONStreamedSave(t *testing.T) {
	t.Parallel()
	e := setupDatasets(t, dsOpts{})
	body := httpapitest.DatasetBody("sg", "news", "2026-01-28", 500)
	at := strings.Index(body, `"raw_url":"https://www.site321.`)
	dup := body[:at] + `"raw_url":"https://x.example/",` + body[at:]
	r := e.do(t, request{Method: http.MethodPost, Path: "/api/v1/datasets/sg/news/2026-01-28", Token: e.write, Body: io.MultiReader(strings.NewReader(dup))})
	p := r.Problem(t, http.StatusUnprocessableEntity, "invalid")
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
	body := []byte(httpapitest.DatasetBody("sg", "news", "2026-01-28", 3))
	for _, path := range []string{"/api/v1/datasets/sg/news/2026-01-28", "/api/v1/datasets", "/api/v1/keys"} {
		slow := &slowReader{parts: [][]byte{body[:20], body[20:]}, pause: 1500 * time.Millisecond}
		r := e.do(t, request{Method: http.MethodPost, Path: path, Token: e.admin, Body: slow})
		r.Problem(t, http.StatusRequestTimeout, "invalid")
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

func (b *blockingStats) Throughput(context.Context, int) ([]seedengine.KindThroughput, error) {
	return nil, nil
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
	body := string(e.do(t, request{Path: "/metrics"}).Body)
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
	r := e.do(t, request{Method: http.MethodPost, Path: "/api/v1/queues/research",
		Body: `{"country":"sg","category":"news","urls":["https://www.mom.gov.sg/"]}`})
	require.Equal(t, http.StatusAccepted, r.StatusCode, string(r.Body))
}
