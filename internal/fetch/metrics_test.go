package fetch

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/require"
)

// The client counts its fetches by kind and outcome (a status is an ok
// fetch, a failure counts under its reason), the bytes it read whole, and
// none in flight once they have returned; a kind that is not one is
// counted as "other", so the labels stay bounded.
func TestClientMetrics(t *testing.T) {
	t.Parallel()
	srv := startHTTP(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/missing" {
			http.NotFound(w, r)
			return
		}
		_, _ = io.WriteString(w, "hello")
	}))
	c := newTestClient(t, Config{})
	_, err := c.Do(t.Context(), Request{URL: srv.URL + "/a", Kind: KindPage})
	require.NoError(t, err)
	_, err = c.Do(t.Context(), Request{URL: srv.URL + "/missing", Kind: KindFeed})
	require.NoError(t, err)
	_, err = c.Do(t.Context(), Request{URL: "ftp://example.test/", Kind: KindFeed})
	require.Error(t, err)
	_, err = c.Do(t.Context(), Request{URL: srv.URL + "/a", Kind: "weird"})
	require.Error(t, err)
	sr, err := c.Stream(t.Context(), Request{URL: srv.URL + "/a", Kind: KindSitemap})
	require.NoError(t, err)
	require.NoError(t, sr.Body.Close())

	want := `
# HELP seedengine_fetch_body_bytes_total Decoded body bytes this process's fetches read whole, by kind.
# TYPE seedengine_fetch_body_bytes_total counter
seedengine_fetch_body_bytes_total{kind="feed"} 19
seedengine_fetch_body_bytes_total{kind="page"} 5
# HELP seedengine_fetch_in_flight Fetches of this process under way, waiting for their host's turn included.
# TYPE seedengine_fetch_in_flight gauge
seedengine_fetch_in_flight 0
# HELP seedengine_fetch_requests_total Outbound fetches of this process by kind (robots, sitemap, feed, page, probe) and outcome: ok (any HTTP status) or the failure's reason.
# TYPE seedengine_fetch_requests_total counter
seedengine_fetch_requests_total{kind="feed",outcome="bad_request"} 1
seedengine_fetch_requests_total{kind="feed",outcome="ok"} 1
seedengine_fetch_requests_total{kind="other",outcome="bad_request"} 1
seedengine_fetch_requests_total{kind="page",outcome="ok"} 1
seedengine_fetch_requests_total{kind="sitemap",outcome="ok"} 1
`
	require.NoError(t, testutil.CollectAndCompare(c.Collector(), strings.NewReader(want)))
}
