package main_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine/internal/outage/outagetest"
	"github.com/seedengine/seedengine/internal/sqlstore/sqlstoretest"
)

// serve started while PostgreSQL does not answer waits for it (a log line
// per try) and serves once it does; with --db-wait 0s it exits at once,
// and an error waiting cannot mend ends the wait at once too.
func TestServeWaitsForDatabase(t *testing.T) {
	t.Parallel()
	u, err := url.Parse(sqlstoretest.NewPostgresURL(t))
	require.NoError(t, err)
	proxy := outagetest.NewProxy(t, u.Host)
	u.Host = proxy.Addr()
	proxy.Cut()

	_, stderr, code := runCLI(t, nil, "migrate", "--database-url", u.String(), "--db-wait", "0s", "--data-dir", t.TempDir())
	require.Equal(t, 1, code, stderr)
	require.Contains(t, stderr, "connection refused")

	s := launch(t, "serve", "--addr", "127.0.0.1:0", "--data-dir", t.TempDir(), "--log-format", "json", "--database-url", u.String())
	l := s.waitEvent(t, "db_wait", 30*time.Second)
	require.Contains(t, l["err"], "connection refused")
	proxy.Restore()
	s.waitListening(t, 60*time.Second)
	require.NotNil(t, s.waitEvent(t, "db_ready", time.Second)["attempts"])
	require.Equal(t, 0, s.stop(t))

	bad := *u
	bad.Path = "/no_such_database_here"
	start := time.Now()
	_, stderr, code = runCLI(t, nil, "migrate", "--database-url", bad.String(), "--db-wait", "1m", "--data-dir", t.TempDir())
	require.Equal(t, 1, code, stderr)
	require.Contains(t, stderr, "no_such_database_here")
	require.Less(t, time.Since(start), 30*time.Second, "a missing database is not waited for")
}

// The settings every working process must share are recorded by the first;
// a process with another value refuses to start, naming the setting, until
// one is started with --record-settings. An API-only serve checks none.
func TestSharedSettingsMustAgree(t *testing.T) {
	t.Parallel()
	db := sqlstoretest.NewPostgresURL(t)
	dir := t.TempDir()
	first := launch(t, "worker", "--data-dir", dir, "--log-format", "json", "--database-url", db, "--job-timeout", "10m")
	first.waitEvent(t, "worker_started", 30*time.Second)
	require.Equal(t, 0, first.stop(t))

	_, stderr, code := runCLI(t, nil, "worker", "--data-dir", dir, "--database-url", db, "--job-timeout", "20m", "--job-rescue-after", "30m")
	require.Equal(t, 2, code, stderr)
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	last := lines[len(lines)-1]
	require.Contains(t, last, "--job-timeout: this process has \"20m0s\" but the deployment's processes share \"10m0s\"")
	require.Contains(t, last, "--record-settings")

	api := startServer(t, dir, "--database-url", db, "--workers", "0", "--job-timeout", "20m", "--job-rescue-after", "30m")
	require.Equal(t, http.StatusOK, api.do(t, "GET", "/health/ready", "", nil).status)
	require.Equal(t, 0, api.stop(t))

	changed := launch(t, "worker", "--data-dir", dir, "--log-format", "json", "--database-url", db,
		"--job-timeout", "20m", "--job-rescue-after", "30m", "--record-settings")
	changed.waitEvent(t, "deployment_settings_recorded", 30*time.Second)
	changed.waitEvent(t, "worker_started", 30*time.Second)
	require.Equal(t, 0, changed.stop(t))

	_, stderr, code = runCLI(t, nil, "worker", "--data-dir", dir, "--database-url", db)
	require.Equal(t, 2, code, stderr)
	require.Contains(t, stderr, "--job-timeout: this process has \"10m0s\"")
}

// serve --workers 0 accepts batches and leaves them to worker processes.
func TestAPIOnlyServe(t *testing.T) {
	t.Parallel()
	db := sqlstoretest.NewPostgresURL(t)
	dir := t.TempDir()
	api := startServer(t, dir, "--database-url", db, "--workers", "0")
	r := api.do(t, "POST", "/api/v1/queues/research", "", map[string]any{
		"country": "sg", "category": "news", "urls": []string{"https://www.mom.gov.sg/newsroom", "https://www.moh.gov.sg/"},
	})
	require.Equal(t, http.StatusAccepted, r.status, "body: %s", r.raw)
	id := r.body["id"].(string)
	require.Never(t, func() bool {
		return api.do(t, "GET", "/api/v1/queues/batch/"+id, "", nil).body["status"] != "queued"
	}, 500*time.Millisecond, 50*time.Millisecond, "nobody works it")

	_, stderr, code := runCLI(t, nil, "worker", "--data-dir", dir, "--database-url", db, "--workers", "0")
	require.Equal(t, 2, code, stderr)
	require.Contains(t, stderr, "--workers: 0 leaves a worker nothing to do")

	w := launch(t, "worker", "--data-dir", dir, "--log-format", "json", "--database-url", db)
	w.waitEvent(t, "worker_started", 30*time.Second)
	require.Eventually(t, func() bool {
		return api.do(t, "GET", "/api/v1/queues/batch/"+id, "", nil).body["status"] == "completed"
	}, 60*time.Second, 50*time.Millisecond)
	require.Equal(t, 0, w.stop(t))
}
