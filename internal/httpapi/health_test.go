package httpapi_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/httpapi"
)

func TestHealth(t *testing.T) {
	t.Parallel()
	e := setup(t)

	r := e.do(t, request{Path: "/health"})
	require.Equal(t, http.StatusOK, r.StatusCode)
	require.Equal(t, "application/json", r.Header.Get("Content-Type"))
	body := r.JSON(t)
	require.Equal(t, "ok", body["status"])
	require.Equal(t, "1.2.3-test", body["version"])
	ts, err := time.Parse(time.RFC3339Nano, body["timestamp"].(string))
	require.NoError(t, err)
	require.WithinDuration(t, time.Now(), ts, time.Minute)

	r = e.do(t, request{Path: "/health/live"})
	require.Equal(t, http.StatusOK, r.StatusCode)
	body = r.JSON(t)
	require.Equal(t, true, body["alive"])
	require.NotEmpty(t, body["timestamp"])
}

func TestHealthReady(t *testing.T) {
	t.Parallel()
	ok := seedengine.CheckerFunc(func(context.Context) error { return nil })
	fail := seedengine.CheckerFunc(func(context.Context) error { return errCheck })
	hang := seedengine.CheckerFunc(func(ctx context.Context) error { <-ctx.Done(); return ctx.Err() })

	t.Run("all ok", func(t *testing.T) {
		t.Parallel()
		e := setup(t, func(_ *httpapi.Config, d *httpapi.Deps) {
			d.Checks = map[string]seedengine.Checker{"database": ok, "object_store": ok, "queue": ok}
		})
		r := e.do(t, request{Path: "/health/ready"})
		require.Equal(t, http.StatusOK, r.StatusCode, string(r.Body))
		body := r.JSON(t)
		require.Equal(t, true, body["ready"])
		checks := body["checks"].(map[string]any)
		require.Len(t, checks, 3)
		for name, c := range checks {
			require.Equal(t, "ok", c.(map[string]any)["status"], name)
			require.Contains(t, c, "duration_ms")
		}
	})

	for _, failing := range []string{"database", "object_store", "queue"} {
		t.Run(failing+" fails", func(t *testing.T) {
			t.Parallel()
			e := setup(t, func(_ *httpapi.Config, d *httpapi.Deps) {
				d.Checks = map[string]seedengine.Checker{"database": ok, "object_store": ok, "queue": ok}
				d.Checks[failing] = fail
			})
			r := e.do(t, request{Path: "/health/ready"})
			require.Equal(t, http.StatusServiceUnavailable, r.StatusCode)
			body := r.JSON(t)
			require.Equal(t, false, body["ready"])
			require.Equal(t, "unavailable", body["code"])
			require.Equal(t, "not ready: "+failing, body["detail"])
			checks := body["checks"].(map[string]any)
			for name, c := range checks {
				want := "ok"
				if name == failing {
					want = "fail"
				}
				require.Equal(t, want, c.(map[string]any)["status"], name)
			}
			// The driver's error names an internal address: logged, not shown.
			require.NotContains(t, string(r.Body), "10.1.2.3")
			require.Contains(t, e.logs.String(), "10.1.2.3")
			logged := e.logs.lines(t, "health_check_failed")
			require.Len(t, logged, 1)
			require.Equal(t, failing, logged[0]["check"])
			require.Equal(t, r.Header.Get("X-Request-ID"), logged[0]["request_id"])
		})
	}

	t.Run("hanging check times out", func(t *testing.T) {
		t.Parallel()
		e := setup(t, func(c *httpapi.Config, d *httpapi.Deps) {
			c.ReadyTimeout = 50 * time.Millisecond
			d.Checks = map[string]seedengine.Checker{"database": ok, "queue": hang}
		})
		start := time.Now()
		r := e.do(t, request{Path: "/health/ready"})
		require.Less(t, time.Since(start), 2*time.Second)
		require.Equal(t, http.StatusServiceUnavailable, r.StatusCode)
		body := r.JSON(t)
		require.Equal(t, "not ready: queue", body["detail"])
		q := body["checks"].(map[string]any)["queue"].(map[string]any)
		require.Equal(t, "fail", q["status"])
		require.True(t, strings.HasPrefix(q["error"].(string), "timed out"), q["error"])
	})

	t.Run("panicking check fails", func(t *testing.T) {
		t.Parallel()
		e := setup(t, func(_ *httpapi.Config, d *httpapi.Deps) {
			d.Checks = map[string]seedengine.Checker{"object_store": seedengine.CheckerFunc(func(context.Context) error { panic("boom") })}
		})
		r := e.do(t, request{Path: "/health/ready"})
		require.Equal(t, http.StatusServiceUnavailable, r.StatusCode)
		require.Equal(t, "not ready: object_store", r.JSON(t)["detail"])
	})
}

func TestRootListsEveryRouteGrouped(t *testing.T) {
	t.Parallel()
	e := setup(t)
	r := e.do(t, request{Path: "/"})
	require.Equal(t, http.StatusOK, r.StatusCode)

	var root struct {
		Name        string
		Version     string
		Environment string
		Categories  []string
		Build       struct {
			Commit    string
			GoVersion string `json:"go_version"`
		}
		APIs []struct {
			Name      string
			Version   string
			BasePath  string `json:"base_path"`
			Endpoints []struct {
				Method, Path, Summary, Scope string
			}
		}
	}
	require.NoError(t, jsonUnmarshal(r.Body, &root))
	require.Equal(t, "seedengine", root.Name)
	require.Equal(t, "1.2.3-test", root.Version)
	require.Equal(t, "test", root.Environment)
	require.Equal(t, "abc123", root.Build.Commit)
	require.True(t, strings.HasPrefix(root.Build.GoVersion, "go"))
	require.Equal(t, []string{"news", "policy"}, root.Categories)

	listed := map[string]httpapi.Route{}
	groups := map[string]bool{}
	for _, api := range root.APIs {
		require.Equal(t, "v1", api.Version)
		require.False(t, groups[api.Name], "group %s listed twice", api.Name)
		groups[api.Name] = true
		for _, ep := range api.Endpoints {
			require.True(t, strings.HasPrefix(ep.Path, api.BasePath), "%s not under %s", ep.Path, api.BasePath)
			if strings.HasPrefix(ep.Path, "/api/v1/") {
				require.Equal(t, "/api/v1/"+api.Name, api.BasePath)
			}
			listed[ep.Method+" "+ep.Path] = httpapi.Route{Method: ep.Method, Path: ep.Path, Summary: ep.Summary,
				Scope: seedengine.Scope(ep.Scope)}
		}
	}
	for _, g := range []string{"health", "queues", "datasets", "metadata", "research", "domains", "seeds", "keys"} {
		require.True(t, groups[g], "group %s missing", g)
	}
	routes := e.srv.Routes()
	require.Len(t, listed, len(routes))
	for _, rt := range routes {
		got, ok := listed[rt.Method+" "+rt.Path]
		require.True(t, ok, "%s %s not listed", rt.Method, rt.Path)
		require.Equal(t, rt.Summary, got.Summary)
		require.Equal(t, rt.Scope, got.Scope)
	}
}
