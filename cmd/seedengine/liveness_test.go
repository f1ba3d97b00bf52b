package main_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine/internal/simweb"
)

// serve wires the liveness processor to the outbound client its fetch
// settings describe: a batch against a simulated web runs to the end.
func TestServeRunsLivenessBatch(t *testing.T) {
	t.Parallel()
	w, err := simweb.Start(simweb.Config{Seed: 1})
	require.NoError(t, err)
	t.Cleanup(func() { _ = w.Close() })
	w.AddSite(simweb.Site{Host: "up.example", Scenario: simweb.ScenarioHealthy})
	w.AddSite(simweb.Site{Host: "forsale.example", Scenario: simweb.ScenarioParked})
	ca, err := w.WriteCAFile(t.TempDir())
	require.NoError(t, err)

	dataDir := t.TempDir()
	key := createKey(t, dataDir, "ops", "write")
	s := startServer(t, dataDir, "--dns-server", w.DNSAddr(), "--connect-to", strings.Join(w.ConnectTo(), ","),
		"--extra-ca-file", ca, "--allow-private-networks", "127.0.0.0/8", "--per-host-delay", "0s")

	r := s.do(t, "POST", "/api/v1/queues/liveness", key, map[string]any{"country": "sg", "domains": []string{"up.example", "https://forsale.example/"}})
	require.Equal(t, 202, r.status, "body: %s", r.raw)
	loc := r.header.Get("Location")
	deadline := time.Now().Add(30 * time.Second)
	for {
		r = s.do(t, "GET", loc, key, nil)
		require.Equal(t, 200, r.status, "body: %s", r.raw)
		if r.body["status"] == "completed" {
			break
		}
		require.NotContains(t, []any{"failed", "completed_with_errors", "cancelled"}, r.body["status"], "body: %s", r.raw)
		require.True(t, time.Now().Before(deadline), "batch not done in 30s: %s", r.raw)
		time.Sleep(50 * time.Millisecond)
	}
	require.Equal(t, map[string]any{"alive": 1.0, "parked": 1.0}, r.body["result"].(map[string]any)["verdicts"])

	r = s.do(t, "GET", loc+"/results?verdict=parked", key, nil)
	require.Equal(t, 200, r.status, "body: %s", r.raw)
	require.EqualValues(t, 1, r.body["total"])
	require.Equal(t, "forsale.example", r.body["items"].([]any)[0].(map[string]any)["domain"])
	require.Equal(t, 0, s.stop(t))
}
