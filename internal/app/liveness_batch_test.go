package app_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/blobstore"
	"github.com/seedengine/seedengine/internal/httpapi/httpapitest"
	"github.com/seedengine/seedengine/internal/layout"
	"github.com/seedengine/seedengine/internal/liveness"
	"github.com/seedengine/seedengine/internal/simweb"
	"github.com/seedengine/seedengine/internal/simweb/simwebtest"
	"github.com/seedengine/seedengine/internal/sqlstore"
	"github.com/seedengine/seedengine/internal/sqlstore/sqlstoretest"
)

// withProber registers the liveness processor on p.
func withProber(p liveness.DomainProber) stackOption {
	return func(c *stackConfig) { c.prober = p }
}

// simProber starts a simulated web with sites and returns a prober that
// reaches it (and nothing beyond 127.0.0.1) as cmd/seedengine wires one.
func simProber(t *testing.T, sites []simweb.Site) *liveness.Prober {
	t.Helper()
	_, c := simwebtest.Client(t, sites, 1500*time.Millisecond)
	return liveness.New(c, liveness.Config{RetryDelay: 10 * time.Millisecond})
}

func simHost(sc simweb.Scenario) string {
	return strings.ReplaceAll(string(sc), "_", "-") + ".example"
}

type livenessBatchResult struct {
	Verdicts   map[seedengine.Verdict]int `json:"verdicts"`
	NoVerdict  int                        `json:"no_verdict"`
	Duplicates int                        `json:"duplicates"`
	Invalid    []liveness.InvalidItem     `json:"invalid"`
	ResultsKey string                     `json:"results_key"`
}

type livenessPage struct {
	Items  []seedengine.LivenessResult `json:"items"`
	Total  int                         `json:"total"`
	Limit  int                         `json:"limit"`
	Offset int                         `json:"offset"`
}

func TestLivenessBatchRuns(t *testing.T) {
	t.Parallel()
	scenarios := []simweb.Scenario{simweb.ScenarioHealthy, simweb.ScenarioNXDomain, simweb.ScenarioBotWall,
		simweb.ScenarioParked, simweb.ScenarioServerError, simweb.ScenarioRefused}
	var sites []simweb.Site
	for _, sc := range scenarios {
		s := simweb.Site{Host: simHost(sc), Scenario: sc}
		if sc == simweb.ScenarioServerError {
			s.Status = 502
		}
		sites = append(sites, s)
	}
	p := simProber(t, sites)

	sqlstoretest.Engines(t, func(t *testing.T, db *sqlstore.DB) {
		s := newStack(t, db, withQueue(), withProber(p))
		healthyID := seedengine.DomainID(seedengine.AuthorityOther, "sg", simHost(simweb.ScenarioHealthy))
		require.NoError(t, s.domains.RegisterDomains(t.Context(),
			seedengine.Partition{Country: "sg", Category: "news", Date: "2026-01-28"}, time.Time{},
			[]seedengine.DomainSighting{{ID: healthyID, AuthorityRule: seedengine.AuthorityOther.SourceType()}}))

		domains := []string{
			healthyID,                                // a domain_id keeps its id
			simHost(simweb.ScenarioNXDomain),         // a bare name
			"https://www.bot-wall.example/some/page", // a URL, probed at its registrable domain
			"PARKED.example",                         // any case
			simHost(simweb.ScenarioServerError),
			simHost(simweb.ScenarioRefused),
			"mailto:someone@example.com",    // invalid: not http(s)
			"gov:zz:broken.example",         // invalid: looks like a domain_id, is not one
			"http://nxdomain.example/again", // a duplicate of item 1 in another chunk
		}
		r := s.post(t, "/api/v1/queues/liveness", map[string]any{"country": "SG", "domains": domains, "chunkSize": 4})
		require.Equal(t, http.StatusAccepted, r.StatusCode, string(r.Body))
		loc := r.Header.Get("Location")
		require.True(t, strings.HasPrefix(loc, "/api/v1/queues/batch/"), loc)
		id := strings.TrimPrefix(loc, "/api/v1/queues/batch/")

		b := s.waitBatch(t, id)
		require.Equal(t, seedengine.BatchLiveness, b.Kind)
		require.Equal(t, "sg", b.Country)
		require.Equal(t, seedengine.BatchCompletedWithErrors, b.Status, "invalid items fail")
		require.Equal(t, seedengine.ChunkCounts{Total: 3, Done: 3}, b.Chunks)
		require.Equal(t, seedengine.ItemCounts{Total: 9, Succeeded: 7, Failed: 2}, b.Items)

		var res livenessBatchResult
		require.NoError(t, json.Unmarshal(b.Result, &res), string(b.Result))
		require.Equal(t, map[seedengine.Verdict]int{
			seedengine.VerdictAlive: 1, seedengine.VerdictBlocked: 1, seedengine.VerdictParked: 1, seedengine.VerdictDead: 4,
		}, res.Verdicts, "chunks probe on their own: the duplicate in chunk 2 is probed again")
		require.Zero(t, res.NoVerdict)
		slices.SortFunc(res.Invalid, func(a, b liveness.InvalidItem) int { return a.Index - b.Index })
		require.Equal(t, []liveness.InvalidItem{
			{Index: 6, Input: "mailto:someone@example.com", Reason: "unsupported_scheme"},
			{Index: 7, Input: "gov:zz:broken.example", Reason: liveness.ReasonInvalidDomainID},
		}, res.Invalid)

		// One JSONL part per chunk, each line a result. Once the batch has
		// finished, its finisher merges the parts, in chunk order, into one
		// {batch}.jsonl and deletes them, so wait for that.
		k, err := layout.ParseKey(res.ResultsKey)
		require.NoError(t, err)
		require.Equal(t, layout.KindLiveness, k.Kind)
		require.Equal(t, id, k.BatchID)
		mergedKey := res.ResultsKey
		prefix, err := layout.LivenessPrefix("sg", k.Partition.Date)
		require.NoError(t, err)
		deadline := time.Now().Add(30 * time.Second)
		for {
			var keys []string
			require.NoError(t, s.blobs.List(t.Context(), prefix+id+".", func(o blobstore.Object) error {
				keys = append(keys, o.Key)
				return nil
			}))
			if slices.Equal(keys, []string{mergedKey}) {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("parts of batch %s not merged into %s: %v", id, mergedKey, keys)
			}
			time.Sleep(20 * time.Millisecond)
		}
		rd, _, err := s.blobs.NewReader(t.Context(), mergedKey)
		require.NoError(t, err)
		var merged []string
		sc := bufio.NewScanner(rd)
		for sc.Scan() {
			var lr seedengine.LivenessResult
			require.NoError(t, json.Unmarshal(sc.Bytes(), &lr))
			require.True(t, lr.Verdict.Valid(), "%+v", lr)
			merged = append(merged, lr.Domain)
		}
		require.NoError(t, sc.Err())
		require.NoError(t, rd.Close())
		require.Len(t, merged, 7)
		require.Equal(t, "nxdomain.example", merged[len(merged)-1], "chunk 2's duplicate comes last")

		// Results page in domain order and filter by verdict.
		var page livenessPage
		r = s.get(t, "/api/v1/queues/batch/"+id+"/results", &page)
		require.Equal(t, http.StatusOK, r.StatusCode, string(r.Body))
		require.Equal(t, 6, page.Total, "one result per domain of the batch")
		want := map[string]string{
			"bot-wall.example":     "blocked/http_403",
			"healthy.example":      "alive/ok",
			"nxdomain.example":     "dead/nxdomain",
			"parked.example":       "parked/parked",
			"refused.example":      "dead/connect_refused",
			"server-error.example": "dead/http_5xx",
		}
		got := map[string]string{}
		for _, it := range page.Items {
			got[it.Domain] = string(it.Verdict) + "/" + it.Reason
		}
		require.Equal(t, want, got)
		require.Equal(t, healthyID, page.Items[1].DomainID)

		r = s.get(t, "/api/v1/queues/batch/"+id+"/results?verdict=dead&limit=2&offset=1", &page)
		require.Equal(t, http.StatusOK, r.StatusCode, string(r.Body))
		require.Equal(t, 3, page.Total)
		require.Equal(t, 2, page.Limit)
		require.Equal(t, []string{"refused.example", "server-error.example"}, []string{page.Items[0].Domain, page.Items[1].Domain})

		// The domain shows its latest liveness.
		var d seedengine.Domain
		r = s.get(t, "/api/v1/domains/"+healthyID, &d)
		require.Equal(t, http.StatusOK, r.StatusCode, string(r.Body))
		require.NotNil(t, d.Liveness)
		require.Equal(t, seedengine.VerdictAlive, d.Liveness.Verdict)
		require.Equal(t, id, d.Liveness.BatchID)

		// Errors.
		s.get(t, "/api/v1/queues/batch/nope/results", nil).Problem(t, http.StatusNotFound, "not_found")
		pr := s.get(t, "/api/v1/queues/batch/"+id+"/results?verdict=zombie", nil).Problem(t, http.StatusUnprocessableEntity, "invalid")
		require.Contains(t, httpapitest.Locations(pr), "query.verdict", "%+v", pr)
	})
}

func TestLivenessBatchValidation(t *testing.T) {
	t.Parallel()
	s := newStack(t, sqlstoretest.OpenSQLite(t))
	many := make([]string, 10001)
	for i := range many {
		many[i] = fmt.Sprintf("example%d.com", i)
	}
	body := func(kv ...any) map[string]any {
		return httpapitest.With(map[string]any{"country": "sg", "domains": []string{"example.com"}}, kv...)
	}
	tests := []struct {
		name string
		body map[string]any
		loc  string
	}{
		{"domains missing", body("domains", nil), "body.domains"},
		{"domains empty", body("domains", []string{}), "body.domains"},
		{"more than 10,000 domains", body("domains", many), "body.domains"},
		{"domain over 300 bytes", body("domains", []string{"ok.com", strings.Repeat("a", 301)}), "body.domains[1]"},
		{"chunkSize 0", body("chunkSize", 0), "body.chunkSize"},
		{"chunkSize 1001", body("chunkSize", 1001), "body.chunkSize"},
		{"unknown country", body("country", "zz"), "body.country"},
		{"country missing", body("country", nil), "body.country"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := s.post(t, "/api/v1/queues/liveness", tt.body).Problem(t, http.StatusUnprocessableEntity, "invalid")
			require.Contains(t, httpapitest.Locations(p), tt.loc, "%+v", p)
		})
	}
	var l struct{ Total int }
	s.get(t, "/api/v1/queues/batches", &l)
	require.Zero(t, l.Total, "no invalid request creates a batch")

	// A research batch has no per-domain results.
	r := s.post(t, "/api/v1/queues/research", map[string]any{"country": "sg", "category": "news", "urls": []string{"https://example.com/"}})
	require.Equal(t, http.StatusAccepted, r.StatusCode, string(r.Body))
	pr := s.get(t, r.Header.Get("Location")+"/results", nil).Problem(t, http.StatusUnprocessableEntity, "invalid")
	require.Contains(t, httpapitest.Locations(pr), "path.batchId", "%+v", pr)
}
