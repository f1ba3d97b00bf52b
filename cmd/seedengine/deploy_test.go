package main_test

import (
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
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
// one is started with --record-settings.
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

	// An API-only serve is held to them as well (it enqueues jobs).
	_, stderr, code = runCLI(t, nil, "serve", "--addr", "127.0.0.1:0", "--data-dir", dir, "--database-url", db, "--workers", "0", "--max-attempts", "9")
	require.Equal(t, 2, code, stderr)
	require.Contains(t, stderr, "--max-attempts: this process has \"9\"")
	api := startServer(t, dir, "--database-url", db, "--workers", "0", "--job-timeout", "10m")
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

	_, stderr, code = runCLI(t, nil, "worker", "--data-dir", dir, "--database-url", db, "--metrics-addr", "localhost")
	require.Equal(t, 2, code, stderr)
	require.Contains(t, stderr, "--metrics-addr")

	w := launch(t, "worker", "--data-dir", dir, "--log-format", "json", "--database-url", db, "--metrics-addr", "127.0.0.1:0")
	w.base = "http://" + w.waitEvent(t, "worker_started", 30*time.Second)["metrics_addr"].(string)
	require.Eventually(t, func() bool {
		return api.do(t, "GET", "/api/v1/queues/batch/"+id, "", nil).body["status"] == "completed"
	}, 60*time.Second, 50*time.Millisecond)

	// The worker's own endpoints: health, and metrics of its queue, its
	// fetcher and its process; nothing else of the API.
	r = w.do(t, "GET", "/health/live", "", nil)
	require.Equal(t, http.StatusOK, r.status, "body: %s", r.raw)
	r = w.do(t, "GET", "/health/ready", "", nil)
	require.Equal(t, http.StatusOK, r.status, "body: %s", r.raw)
	require.Equal(t, true, r.body["ready"])
	// River reports a job's end to the metrics a moment after its batch
	// shows it.
	require.Eventually(t, func() bool {
		r = w.do(t, "GET", "/metrics", "", nil)
		return strings.Contains(string(r.raw), `seedengine_jobs_worked_total{kind="research_chunk",outcome="completed"} 1`)
	}, 10*time.Second, 50*time.Millisecond, "worked jobs counted")
	require.Equal(t, http.StatusOK, r.status)
	for _, want := range []string{
		`seedengine_jobs_worked_total{kind="research_chunk",outcome="completed"} 1`,
		`seedengine_job_run_seconds_count{kind="research_chunk"} 1`,
		`seedengine_fetch_in_flight 0`,
		`seedengine_jobs{kind=`,
		`process_resident_memory_bytes`,
	} {
		require.Contains(t, string(r.raw), want)
	}
	for _, path := range []string{"/api/v1/seeds", "/", "/console/"} {
		require.Equal(t, http.StatusNotFound, w.do(t, "GET", path, "", nil).status, path)
	}
	require.Equal(t, 0, w.stop(t))
	for _, l := range w.logLines() {
		require.NotEqual(t, "metrics_open", l["event"], "a loopback metrics address is not open")
	}

	// On an address others can reach, the worker says its open routes
	// are open, as serve does of an API without keys.
	open := launch(t, "worker", "--data-dir", dir, "--log-format", "json", "--database-url", db, "--metrics-addr", "0.0.0.0:0", "--workers", "1")
	open.waitEvent(t, "metrics_open", 30*time.Second)
	open.waitEvent(t, "worker_started", 30*time.Second)
	require.Equal(t, 0, open.stop(t))
}

// An object store that answers but refuses (here: no such bucket) stops
// serve at start naming --blob-url; one that does not answer lets it
// start, with readiness naming the object store until it comes back.
func TestObjectStoreAtStart(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(gofakes3.New(s3mem.New(), gofakes3.WithLogger(gofakes3.DiscardLog())).Server())
	t.Cleanup(srv.Close)
	s3 := func(endpoint string) string {
		q := url.Values{"endpoint": {endpoint}, "use_path_style": {"true"}, "region": {"us-east-1"}, "anonymous": {"true"}}
		return "s3://missing-bucket?" + q.Encode()
	}
	_, stderr, code := runCLI(t, nil, "serve", "--addr", "127.0.0.1:0", "--data-dir", t.TempDir(), "--blob-url", s3(srv.URL))
	require.Equal(t, 2, code, stderr)
	require.Contains(t, stderr, "--blob-url: the object store refused")

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	down := "http://" + ln.Addr().String()
	require.NoError(t, ln.Close()) // nothing listens there now
	s := launch(t, "serve", "--addr", "127.0.0.1:0", "--data-dir", t.TempDir(), "--log-format", "json", "--blob-url", s3(down))
	s.waitEvent(t, "blob_unavailable", 60*time.Second)
	s.base = "http://" + s.waitEvent(t, "http_listening", 30*time.Second)["addr"].(string)
	r := s.do(t, "GET", "/health/ready", "", nil)
	require.Equal(t, http.StatusServiceUnavailable, r.status, "body: %s", r.raw)
	require.Equal(t, "5", r.header.Get("Retry-After"))
	require.Equal(t, "fail", r.body["checks"].(map[string]any)["object_store"].(map[string]any)["status"])
	require.Equal(t, 0, s.stop(t))
}

// Without an API key serve refuses a listener others can reach, and a
// proxy in front: exit status 2, the setting named.
func TestServeWithoutKeysStaysLocal(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"--addr", "0.0.0.0:0"}, {"--addr", "127.0.0.1:0", "--trusted-proxies", "127.0.0.1"}} {
		_, stderr, code := runCLI(t, nil, append([]string{"serve", "--data-dir", t.TempDir()}, args...)...)
		require.Equal(t, 2, code, stderr)
		require.Contains(t, stderr, args[len(args)-2]+": ", "the setting is named")
		require.Contains(t, stderr, "no API key exists")
	}
}
