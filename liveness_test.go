package seedengine_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/seedengine/seedengine"
	"github.com/stretchr/testify/require"
)

func TestVerdictValid(t *testing.T) {
	t.Parallel()
	for _, v := range []seedengine.Verdict{seedengine.VerdictAlive, seedengine.VerdictBlocked, seedengine.VerdictDead, seedengine.VerdictParked} {
		require.True(t, v.Valid(), v)
	}
	for _, v := range []seedengine.Verdict{"", "Alive", "unknown"} {
		require.False(t, v.Valid(), v)
	}
}

// TestLivenessResultJSON pins the snake_case keys that SQL history and the
// JSONL batch files depend on.
func TestLivenessResultJSON(t *testing.T) {
	t.Parallel()
	r := seedengine.LivenessResult{
		DomainID:   "gov:sg:example.gov.sg",
		Domain:     "example.gov.sg",
		CheckedAt:  time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC),
		Verdict:    seedengine.VerdictAlive,
		Reason:     "ok",
		DNS:        seedengine.LivenessDNS{Rcode: "NOERROR", A: []string{"192.0.2.1"}, DurationMS: 3},
		Attempts:   []seedengine.LivenessAttempt{{Round: 1, URL: "https://example.gov.sg/", Status: 200, DurationMS: 12}},
		Rounds:     1,
		HTTPSOK:    true,
		Redirects:  []seedengine.LivenessRedirect{{URL: "https://example.gov.sg/", Status: 301, Location: "https://www.example.gov.sg/"}},
		FinalURL:   "https://www.example.gov.sg/",
		Status:     200,
		TLS:        &seedengine.LivenessTLS{Valid: true, Issuer: "CN=CA", NotAfter: time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC), NameMatch: true},
		ResponseMS: 12,
	}
	b, err := json.Marshal(r)
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(b, &m))
	for _, k := range []string{"domain_id", "domain", "checked_at", "verdict", "reason", "dns", "attempts", "rounds",
		"https_ok", "http_fallback", "redirects", "final_url", "left_registrable", "status", "tls", "response_ms"} {
		require.Contains(t, m, k)
	}
	require.Equal(t, map[string]any{"rcode": "NOERROR", "a": []any{"192.0.2.1"}, "duration_ms": float64(3)}, m["dns"])
	require.Contains(t, m["tls"], "not_after")
	require.Contains(t, m["tls"], "name_match")
	var back seedengine.LivenessResult
	require.NoError(t, json.Unmarshal(b, &back))
	require.Equal(t, r, back)
}
