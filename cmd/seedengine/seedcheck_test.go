package main_test

import (
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine/internal/simweb"
)

// serve checks a promoted seed on its own: the schedule round queues the
// seed (never checked, so due), the check reads its feed, and the API
// shows the check and the seed's health.
func TestServeChecksPromotedSeeds(t *testing.T) {
	t.Parallel()
	w, err := simweb.Start(simweb.Config{Seed: 1})
	require.NoError(t, err)
	t.Cleanup(func() { _ = w.Close() })
	const host = "daily-news.com.sg"
	w.AddSite(simweb.Site{Host: host, Layout: simweb.LayoutWordPress})
	ca, err := w.WriteCAFile(t.TempDir())
	require.NoError(t, err)

	dataDir := t.TempDir()
	key := createKey(t, dataDir, "ops", "admin")
	s := startServer(t, dataDir, "--dns-server", w.DNSAddr(), "--connect-to", strings.Join(w.ConnectTo(), ","),
		"--extra-ca-file", ca, "--allow-private-networks", "127.0.0.0/8", "--per-host-delay", "0s",
		"--seed-check-interval", "1s")

	r := s.do(t, "POST", "/api/v1/seeds", key, map[string]any{
		"domain_id": "media:sg:" + host, "category": "news", "source": map[string]any{"name": "Daily News"},
		"fetch":  map[string]any{"type": "rss", "entry_url": "https://" + host + "/feed/"},
		"policy": map[string]any{"robots_url": "https://" + host + "/robots.txt"},
	})
	require.Equal(t, 201, r.status, "body: %s", r.raw)
	id := "media:sg:" + host + "::news"
	r = s.do(t, "POST", "/api/v1/seeds/promote", key, map[string]any{"seedId": id})
	require.Equal(t, 200, r.status, "body: %s", r.raw)

	path := "/api/v1/seeds/" + url.PathEscape(id) + "/checks"
	deadline := time.Now().Add(30 * time.Second)
	for {
		r = s.do(t, "GET", path, key, nil)
		require.Equal(t, 200, r.status, "body: %s", r.raw)
		if items, _ := r.body["items"].([]any); len(items) > 0 {
			c := items[0].(map[string]any)
			require.Equal(t, "ok", c["outcome"], "body: %s", r.raw)
			require.Positive(t, c["items"], "body: %s", r.raw)
			break
		}
		require.True(t, time.Now().Before(deadline), "no check within 30s: %s", r.raw)
		time.Sleep(100 * time.Millisecond)
	}
	require.Equal(t, "healthy", r.body["health"].(map[string]any)["state"], "body: %s", r.raw)
	require.NotEmpty(t, r.body["next_check_at"])

	r = s.do(t, "GET", "/api/v1/seeds/"+url.PathEscape(id), key, nil)
	require.Equal(t, "healthy", r.body["health"].(map[string]any)["state"], "body: %s", r.raw)
	require.Equal(t, 0, s.stop(t))
}
