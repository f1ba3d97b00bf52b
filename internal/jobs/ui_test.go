package jobs_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/jobs"
	"github.com/seedengine/seedengine/internal/sqlstore"
	"github.com/seedengine/seedengine/internal/sqlstore/sqlstoretest"
)

// uiPrefix is where the console mounts River UI.
const uiPrefix = "/console/queue"

// uiClient calls River UI's JSON API on a test server.
type uiClient struct {
	t    *testing.T
	base string
}

// do sends method path (below the prefix) with an optional JSON body and
// returns the status and body.
func (c uiClient) do(method, path string, body any) (int, []byte) {
	c.t.Helper()
	var r io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		require.NoError(c.t, err)
		r = strings.NewReader(string(b))
	}
	req, err := http.NewRequestWithContext(c.t.Context(), method, c.base+uiPrefix+path, r)
	require.NoError(c.t, err)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := http.DefaultClient.Do(req)
	require.NoError(c.t, err)
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	require.NoError(c.t, err)
	return res.StatusCode, b
}

// json sends the request, requires want and decodes the body into v.
func (c uiClient) json(method, path string, body any, want int, v any) {
	c.t.Helper()
	status, b := c.do(method, path, body)
	require.Equal(c.t, want, status, "%s %s: %s", method, path, b)
	if v != nil {
		require.NoError(c.t, json.Unmarshal(b, v), "%s %s: %s", method, path, b)
	}
}

type uiJob struct {
	ID          int64  `json:"id"`
	Args        string `json:"args"`
	Attempt     int    `json:"attempt"`
	Kind        string `json:"kind"`
	MaxAttempts int    `json:"max_attempts"`
	Queue       string `json:"queue"`
	State       string `json:"state"`
	Errors      []struct {
		Attempt int    `json:"attempt"`
		Error   string `json:"error"`
	} `json:"errors"`
}

type uiQueue struct {
	Name           string     `json:"name"`
	CountAvailable int        `json:"count_available"`
	CountRunning   int        `json:"count_running"`
	PausedAt       *time.Time `json:"paused_at"`
}

type uiCount struct {
	Accuracy string `json:"accuracy"`
	Count    int    `json:"count"`
}

// TestUIHandler drives River UI's JSON API for the queue's own client on
// each engine: everything the open-source UI offers works on both; the
// River Pro pages answer 404 on both.
func TestUIHandler(t *testing.T) {
	t.Parallel()
	sqlstoretest.Engines(t, func(t *testing.T, db *sqlstore.DB) {
		var runs counter
		tb := setup(t, db, testConfig(), map[seedengine.BatchKind]jobs.ChunkProcessor{
			seedengine.BatchResearch: func(ctx context.Context, b *seedengine.Batch, c *seedengine.BatchChunk) (seedengine.ChunkOutcome, error) {
				if runs.add(c.Index) == 1 && c.Index == 1 {
					return seedengine.ChunkOutcome{}, seedengine.FieldErrorf("urls", "chunk %d is malformed", c.Index)
				}
				return seedengine.ChunkOutcome{Succeeded: c.Items}, nil
			},
		})
		start(t, tb)
		h, err := tb.q.UIHandler(uiPrefix + "/")
		require.NoError(t, err)
		srv := httptest.NewServer(h)
		t.Cleanup(srv.Close)
		ui := uiClient{t: t, base: srv.URL}

		// Chunk 1 fails at once (EINVALID): its job is cancelled, a dead
		// letter, and the batch finishes failed with errors.
		b, chunks := newBatch(2)
		require.NoError(t, tb.q.CreateBatch(t.Context(), b, chunks))
		got := waitBatch(t, tb.bs, b.ID, 30*time.Second)
		require.Equal(t, seedengine.ChunkCounts{Total: 2, Done: 1, Failed: 1}, got.Chunks)
		require.Eventually(t, func() bool {
			return jobStates(t, tb.q, "research_chunk")["cancelled"] == 1
		}, 10*time.Second, 20*time.Millisecond)

		// A metadata sync job scheduled an hour ahead, to cancel and delete.
		_, created, err := tb.q.MetadataTasks(sqlstore.NewMetadataService(db)).RequestMetadataTask(t.Context(), seedengine.TriggerAPI, time.Hour)
		require.NoError(t, err)
		require.True(t, created)

		t.Run("app", func(t *testing.T) {
			status, page := ui.do(http.MethodGet, "/", nil)
			require.Equal(t, http.StatusOK, status)
			// Every script and style comes from the handler, under the
			// prefix: nothing from a CDN.
			refs := regexp.MustCompile(`(?:src|href)="([^"]+)"`).FindAllStringSubmatch(string(page), -1)
			require.NotEmpty(t, refs)
			for _, m := range refs {
				require.True(t, strings.HasPrefix(m[1], uiPrefix+"/"), "asset %s is not served under the prefix", m[1])
				res, err := http.Get(srv.URL + m[1])
				require.NoError(t, err)
				res.Body.Close()
				require.Equal(t, http.StatusOK, res.StatusCode, m[1])
			}
			require.Regexp(t, `<script type="module" src="`+uiPrefix+`/assets/main-[^"]+\.js"`, string(page))

			// A client-side route is answered with the app too.
			status, deep := ui.do(http.MethodGet, "/jobs?state=cancelled", nil)
			require.Equal(t, http.StatusOK, status)
			require.Contains(t, string(deep), `id="root"`)
		})

		t.Run("health, version and features", func(t *testing.T) {
			var st map[string]string
			ui.json(http.MethodGet, "/api/health-checks/complete", nil, http.StatusOK, &st)
			require.Equal(t, "ok", st["status"])
			var features struct {
				Extensions map[string]bool `json:"extensions"`
			}
			ui.json(http.MethodGet, "/api/features", nil, http.StatusOK, &features)
			require.Empty(t, features.Extensions, "no River Pro extension is on")
			ui.json(http.MethodGet, "/api/version", nil, http.StatusOK, nil)
		})

		var deadID int64
		t.Run("job list and detail", func(t *testing.T) {
			var list struct{ Data []uiJob }
			ui.json(http.MethodGet, "/api/jobs?state=cancelled&kinds=research_chunk", nil, http.StatusOK, &list)
			require.Len(t, list.Data, 1)
			dead := list.Data[0]
			require.Equal(t, "research_chunk", dead.Kind)
			require.Equal(t, "cancelled", dead.State)
			require.JSONEq(t, fmt.Sprintf(`{"batch_id":%q,"chunk":1}`, b.ID), dead.Args)
			deadID = dead.ID

			ui.json(http.MethodGet, "/api/jobs?state=completed&limit=10", nil, http.StatusOK, &list)
			require.Len(t, list.Data, 1)
			require.Equal(t, "research_chunk", list.Data[0].Kind)

			ui.json(http.MethodGet, "/api/jobs?state=scheduled&queues="+jobs.QueueMetadata, nil, http.StatusOK, &list)
			require.Len(t, list.Data, 1)
			require.Equal(t, "metadata_sync", list.Data[0].Kind)

			ui.json(http.MethodGet, fmt.Sprintf("/api/jobs?state=cancelled&ids=%d&priorities=1", deadID), nil, http.StatusOK, &list)
			require.Len(t, list.Data, 1)
			require.Equal(t, deadID, list.Data[0].ID)

			var job uiJob
			ui.json(http.MethodGet, fmt.Sprintf("/api/jobs/%d", deadID), nil, http.StatusOK, &job)
			require.Equal(t, deadID, job.ID)
			require.Equal(t, 1, job.Attempt)
			require.Len(t, job.Errors, 1)
			require.Contains(t, job.Errors[0].Error, "chunk 1 is malformed")

			ui.json(http.MethodGet, "/api/jobs/999999", nil, http.StatusNotFound, nil)
		})

		t.Run("states and autocomplete", func(t *testing.T) {
			var states map[string]uiCount
			ui.json(http.MethodGet, "/api/states", nil, http.StatusOK, &states)
			require.Equal(t, uiCount{Accuracy: "exact", Count: 1}, states["cancelled"])
			require.Equal(t, uiCount{Accuracy: "exact", Count: 1}, states["completed"])
			require.Equal(t, uiCount{Accuracy: "exact", Count: 1}, states["scheduled"])
			require.Equal(t, 0, states["running"].Count)

			var kinds struct{ Data []string }
			ui.json(http.MethodGet, "/api/autocomplete?facet=job_kind", nil, http.StatusOK, &kinds)
			require.ElementsMatch(t, []string{"metadata_sync", "research_chunk"}, kinds.Data)
			var queues struct{ Data []string }
			ui.json(http.MethodGet, "/api/autocomplete?facet=queue_name&match=meta", nil, http.StatusOK, &queues)
			require.Equal(t, []string{jobs.QueueMetadata}, queues.Data)
		})

		t.Run("queues", func(t *testing.T) {
			var list struct{ Data []uiQueue }
			ui.json(http.MethodGet, "/api/queues", nil, http.StatusOK, &list)
			names := []string{}
			for _, q := range list.Data {
				names = append(names, q.Name)
			}
			require.ElementsMatch(t, []string{"default", jobs.QueueDomains, jobs.QueueLiveness, jobs.QueueMetadata, jobs.QueueSeedChecks, jobs.QueueAlerts, jobs.QueueItems, jobs.QueuePages, jobs.QueueArticles}, names)

			var q uiQueue
			ui.json(http.MethodPut, "/api/queues/"+jobs.QueueMetadata+"/pause", nil, http.StatusOK, nil)
			ui.json(http.MethodGet, "/api/queues/"+jobs.QueueMetadata, nil, http.StatusOK, &q)
			require.NotNil(t, q.PausedAt)
			ui.json(http.MethodPut, "/api/queues/"+jobs.QueueMetadata+"/resume", nil, http.StatusOK, nil)
			ui.json(http.MethodGet, "/api/queues/"+jobs.QueueMetadata, nil, http.StatusOK, &q)
			require.Nil(t, q.PausedAt)
			ui.json(http.MethodGet, "/api/queues/nope", nil, http.StatusNotFound, nil)
		})

		t.Run("retry reopens the chunk", func(t *testing.T) {
			var st map[string]string
			ui.json(http.MethodPost, "/api/jobs/retry", map[string]any{"ids": []string{fmt.Sprint(deadID)}}, http.StatusOK, &st)
			require.Equal(t, "ok", st["status"])
			got := waitBatch(t, tb.bs, b.ID, 30*time.Second)
			require.Equal(t, seedengine.BatchCompleted, got.Status)
			require.Equal(t, seedengine.ChunkCounts{Total: 2, Done: 2}, got.Chunks)
			require.Equal(t, seedengine.ItemCounts{Total: 3, Succeeded: 3}, got.Items)
			require.Equal(t, 2, runs.get(1))
			require.Eventually(t, func() bool {
				return jobStates(t, tb.q, "research_chunk")["completed"] == 2
			}, 10*time.Second, 20*time.Millisecond)

			// Any id that is not a dead letter is River UI's to answer.
			ui.json(http.MethodPost, "/api/jobs/retry", map[string]any{"ids": []int64{999999}}, http.StatusNotFound, nil)
		})

		t.Run("cancel and delete", func(t *testing.T) {
			var list struct{ Data []uiJob }
			ui.json(http.MethodGet, "/api/jobs?state=scheduled", nil, http.StatusOK, &list)
			require.Len(t, list.Data, 1)
			id := list.Data[0].ID

			ui.json(http.MethodPost, "/api/jobs/cancel", map[string]any{"ids": []string{fmt.Sprint(id)}}, http.StatusOK, nil)
			var job uiJob
			ui.json(http.MethodGet, fmt.Sprintf("/api/jobs/%d", id), nil, http.StatusOK, &job)
			require.Equal(t, "cancelled", job.State)

			ui.json(http.MethodPost, "/api/jobs/delete", map[string]any{"ids": []string{fmt.Sprint(id)}}, http.StatusOK, nil)
			ui.json(http.MethodGet, fmt.Sprintf("/api/jobs/%d", id), nil, http.StatusNotFound, nil)
		})

		t.Run("pro APIs are absent", func(t *testing.T) {
			// River UI has no route for them, so its fallback answers with
			// the app's page instead of JSON; the app then shows its River
			// Pro notice because /api/features lists no extension.
			for _, p := range []string{"/api/pro/workflows", "/api/pro/producers", "/api/pro/periodic-jobs", "/api/pro/dead-letter-jobs"} {
				status, b := ui.do(http.MethodGet, p, nil)
				require.Equal(t, http.StatusOK, status, p)
				require.Contains(t, string(b), `id="root"`, p)
				require.False(t, json.Valid(b), p)
			}
		})
	})
}

func TestUIHandlerPrefix(t *testing.T) {
	t.Parallel()
	db := sqlstoretest.OpenSQLite(t)
	tb := setup(t, db, testConfig(), nil)
	_, err := tb.q.UIHandler("console/queue")
	require.Equal(t, seedengine.EINVALID, seedengine.ErrorCode(err))
}
