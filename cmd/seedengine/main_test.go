package main_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine"
)

// binary is the seedengine program built once for the end-to-end tests.
var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "seedengine-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binary = filepath.Join(dir, "seedengine")
	build := exec.Command("go", "build", "-o", binary, ".")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "build seedengine:", err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// command runs the binary with a clean SEEDENGINE_* environment.
func command(t *testing.T, env []string, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(binary, args...)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "SEEDENGINE_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, env...)
	return cmd
}

// runCLI runs a short-lived subcommand and returns its stdout, stderr and
// exit code.
func runCLI(t *testing.T, env []string, args ...string) (string, string, int) {
	t.Helper()
	cmd := command(t, env, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("run %v: %v", args, err)
	}
	return stdout.String(), stderr.String(), code
}

func createKey(t *testing.T, dataDir, name, scope string) string {
	t.Helper()
	stdout, stderr, code := runCLI(t, nil, "apikey", "create", "--data-dir", dataDir, "--name", name, "--scope", scope)
	require.Equal(t, 0, code, "apikey create: %s", stderr)
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	key := lines[len(lines)-1]
	require.NotContains(t, key, " ", "the key must be alone on the last line")
	require.True(t, strings.HasPrefix(key, "se_"), "key %q", key)
	return key
}

// server is a running seedengine serve process.
type server struct {
	cmd  *exec.Cmd
	base string
	mu   sync.Mutex
	logs []map[string]any
	done chan struct{}
}

// startServer runs serve on 127.0.0.1:0 and waits until it is ready.
func startServer(t *testing.T, dataDir string, extra ...string) *server {
	t.Helper()
	args := append([]string{"serve", "--addr", "127.0.0.1:0", "--data-dir", dataDir, "--log-format", "json"}, extra...)
	start := time.Now()
	s := launch(t, args...)
	s.waitListening(t, 30*time.Second)
	t.Logf("serve ready in %v", time.Since(start))
	return s
}

// launch starts the binary (serve or worker, with --log-format json) and
// collects its log lines; it is killed at cleanup if still running.
func launch(t *testing.T, args ...string) *server {
	t.Helper()
	cmd := command(t, nil, args...)
	stderr, err := cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	s := &server{cmd: cmd, done: make(chan struct{})}
	go func() {
		defer close(s.done)
		sc := bufio.NewScanner(stderr)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			var line map[string]any
			if json.Unmarshal(sc.Bytes(), &line) != nil {
				line = map[string]any{"raw": sc.Text()}
			}
			s.mu.Lock()
			s.logs = append(s.logs, line)
			s.mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	})
	return s
}

// waitEvent waits for a log line with the event and returns it; it fails
// the test when the process exits first or the time runs out.
func (s *server) waitEvent(t *testing.T, event string, timeout time.Duration) map[string]any {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		for _, l := range s.logLines() {
			if l["event"] == event {
				return l
			}
		}
		select {
		case <-s.done:
			for _, l := range s.logLines() { // lines read before the end
				if l["event"] == event {
					return l
				}
			}
			t.Fatalf("%s exited before %s: %v", s.cmd.Args[1], event, s.logLines())
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %s from %s within %s: %v", event, s.cmd.Args[1], timeout, s.logLines())
		}
	}
}

// waitListening waits for serve to listen and answer ready.
func (s *server) waitListening(t *testing.T, timeout time.Duration) {
	t.Helper()
	s.base = "http://" + s.waitEvent(t, "http_listening", timeout)["addr"].(string)
	deadline := time.Now().Add(timeout)
	for {
		resp, err := http.Get(s.base + "/health/ready")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("serve not ready within %s: %v", timeout, s.logLines())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (s *server) logLines() []map[string]any {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]map[string]any(nil), s.logs...)
}

// stop sends SIGTERM and returns the exit code.
func (s *server) stop(t *testing.T) int {
	t.Helper()
	require.NoError(t, s.cmd.Process.Signal(syscall.SIGTERM))
	select {
	case <-s.done:
	case <-time.After(30 * time.Second):
		t.Fatal("serve did not exit within 30s of SIGTERM")
	}
	err := s.cmd.Wait()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	require.NoError(t, err)
	return 0
}

type response struct {
	status int
	header http.Header
	body   map[string]any
	raw    []byte
}

func (s *server) do(t *testing.T, method, path, key string, body any) response {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		require.NoError(t, err)
		rd = bytes.NewReader(b)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, s.base+path, rd)
	require.NoError(t, err)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	r := response{status: resp.StatusCode, header: resp.Header, raw: raw}
	_ = json.Unmarshal(raw, &r.body)
	return r
}

func requireProblem(t *testing.T, r response, status int, code string) {
	t.Helper()
	require.Equal(t, status, r.status, "body: %s", r.raw)
	require.Equal(t, "application/problem+json", r.header.Get("Content-Type"))
	require.Equal(t, code, r.body["code"], "body: %s", r.raw)
	require.EqualValues(t, status, r.body["status"])
}

func TestServeEndToEnd(t *testing.T) {
	t.Parallel()
	dataDir := t.TempDir()
	admin := createKey(t, dataDir, "ops", "admin")
	reader := createKey(t, dataDir, "dashboard", "read")

	s := startServer(t, dataDir)

	r := s.do(t, "GET", "/health", "", nil)
	require.Equal(t, 200, r.status)
	require.Equal(t, "ok", r.body["status"])
	require.NotEmpty(t, r.body["version"])
	require.NotEmpty(t, r.body["timestamp"])

	r = s.do(t, "GET", "/health/ready", "", nil)
	require.Equal(t, 200, r.status)
	require.Equal(t, true, r.body["ready"])
	checks := r.body["checks"].(map[string]any)
	for _, name := range []string{"database", "object_store", "queue"} {
		require.Contains(t, checks, name)
	}

	r = s.do(t, "GET", "/health/live", "", nil)
	require.Equal(t, 200, r.status)
	require.Equal(t, true, r.body["alive"])

	r = s.do(t, "GET", "/", "", nil)
	require.Equal(t, 200, r.status)
	require.Equal(t, "seedengine", r.body["name"])
	var groups []string
	for _, a := range r.body["apis"].([]any) {
		api := a.(map[string]any)
		groups = append(groups, api["name"].(string))
		require.NotEmpty(t, api["endpoints"])
	}
	for _, g := range []string{"queues", "datasets", "metadata", "research", "seeds"} {
		require.Contains(t, groups, g)
	}

	// Auth: no key, bad key, read key on a write route, admin key.
	requireProblem(t, s.do(t, "GET", "/api/v1/queues/batches", "", nil), 401, "unauthorized")
	requireProblem(t, s.do(t, "GET", "/api/v1/queues/batches", "se_not_a_real_key", nil), 401, "unauthorized")
	r = s.do(t, "GET", "/api/v1/queues/batches", reader, nil)
	require.Equal(t, 200, r.status, "body: %s", r.raw)
	requireProblem(t, s.do(t, "POST", "/api/v1/queues/research", reader, map[string]any{"country": "sg", "category": "news", "urls": []string{"https://www.mom.gov.sg/"}}), 403, "forbidden")
	requireProblem(t, s.do(t, "POST", "/api/v1/keys", reader, map[string]any{"name": "x", "scope": "read"}), 403, "forbidden")
	r = s.do(t, "POST", "/api/v1/keys", admin, map[string]any{"name": "ci", "scope": "write"})
	require.Equal(t, 201, r.status, "body: %s", r.raw)
	r = s.do(t, "GET", "/api/v1/keys", admin, nil)
	require.Equal(t, 200, r.status, "body: %s", r.raw)
	require.NotContains(t, string(r.raw), admin, "key listings must never contain secrets")

	requireProblem(t, s.do(t, "GET", "/api/v1/no-such-route", admin, nil), 404, "not_found")
	requireProblem(t, s.do(t, "GET", "/api/v1/queues/batch/0190b3d2-0000-7000-8000-000000000000", admin, nil), 404, "not_found")

	// A research batch runs to completion on the embedded defaults.
	r = s.do(t, "POST", "/api/v1/queues/research", admin, map[string]any{
		"country": "SG", "category": "news", "date": "2026-01-28", "chunkSize": 2,
		"urls": []string{"https://www.mom.gov.sg/newsroom", "https://www.nus.edu.sg/", "https://www.who.int/news"},
	})
	require.Equal(t, 202, r.status, "body: %s", r.raw)
	loc := r.header.Get("Location")
	require.Equal(t, "/api/v1/queues/batch/"+r.body["id"].(string), loc)
	deadline := time.Now().Add(30 * time.Second)
	for r = s.do(t, "GET", loc, reader, nil); r.body["status"] != "completed"; r = s.do(t, "GET", loc, reader, nil) {
		require.Contains(t, []any{"queued", "running"}, r.body["status"], "body: %s", r.raw)
		require.True(t, time.Now().Before(deadline), "batch not completed within 30s: %s", r.raw)
		time.Sleep(20 * time.Millisecond)
	}
	require.Len(t, r.body["result"].(map[string]any)["keys"], 2)
	r = s.do(t, "GET", "/api/v1/research/sg/news/2026-01-28", reader, nil)
	require.Equal(t, 200, r.status, "body: %s", r.raw)
	require.EqualValues(t, 3, r.body["domain_total"])

	require.Equal(t, 0, s.stop(t), "serve must exit cleanly on SIGTERM")
	var sawComplete bool
	for _, l := range s.logLines() {
		if l["event"] == "shutdown_complete" {
			sawComplete = true
		}
		if l["event"] == "config" {
			require.NotContains(t, fmt.Sprint(l), admin)
		}
	}
	require.True(t, sawComplete, "no shutdown_complete log line")
}

// A dataset saved through the datasets API has its domains registered, as
// research and upload do, so the research API shows them.
func TestServeDatasetSaveRegistersDomains(t *testing.T) {
	t.Parallel()
	dataDir := t.TempDir()
	admin := createKey(t, dataDir, "ops", "admin")
	s := startServer(t, dataDir)

	st, err := os.Stat(filepath.Join(dataDir, "tmp"))
	require.NoError(t, err, "saves are staged under the data directory")
	require.True(t, st.IsDir())

	gov := func(host string) seedengine.DatasetRecord {
		return seedengine.DatasetRecord{
			RawURL: "https://www." + host + "/", NormalizedURL: "https://www." + host + "/",
			NormalizedDomain: host, DomainID: "gov:sg:" + host, Authority: seedengine.AuthorityGov,
			AuthorityRule: "suffix:gov.sg", SourceType: "government", Confidence: 0.9,
		}
	}
	unclassified := seedengine.DatasetRecord{RawURL: "https://www.mof.gov.sg/news"}
	ds := seedengine.Dataset{
		Meta: seedengine.DatasetMeta{
			Country: "SG", Category: "news", Date: "2026-01-28",
			ResearchMethods: []string{"import"}, Queries: []string{},
			Engine: seedengine.EngineInfo{Name: "legacy", Version: "1"}, RecordCount: 3,
		},
		Records: []seedengine.DatasetRecord{gov("mom.gov.sg"), gov("mom.gov.sg"), unclassified},
	}
	body, err := json.Marshal(ds)
	require.NoError(t, err)
	r := s.do(t, "POST", "/api/v1/datasets/sg/news/2026-01-28", admin, json.RawMessage(body))
	require.Equal(t, 201, r.status, "body: %s", r.raw)

	r = s.do(t, "GET", "/api/v1/research/sg/news/2026-01-28", admin, nil)
	require.Equal(t, 200, r.status, "body: %s", r.raw)
	require.EqualValues(t, 2, r.body["domains"])
	require.EqualValues(t, 2, r.body["domain_total"])
	var ids []string
	for _, d := range r.body["domain_list"].([]any) {
		ids = append(ids, d.(map[string]any)["domain_id"].(string))
	}
	require.Equal(t, []string{"gov:sg:mof.gov.sg", "gov:sg:mom.gov.sg"}, ids,
		"a record without a domain_id is classified from its raw_url")
	require.Equal(t, 0, s.stop(t))
}

func TestServeOpenOnLoopbackWithoutKeys(t *testing.T) {
	t.Parallel()
	s := startServer(t, t.TempDir())
	r := s.do(t, "GET", "/api/v1/queues/batches", "", nil)
	require.Equal(t, 200, r.status, "body: %s", r.raw)
	require.Equal(t, 0, s.stop(t))
}

func TestServeRefusesPublicAddressWithoutKeys(t *testing.T) {
	t.Parallel()
	_, stderr, code := runCLI(t, nil, "serve", "--addr", "0.0.0.0:0", "--data-dir", t.TempDir(), "--log-format", "json")
	require.NotEqual(t, 0, code)
	last := lastLine(stderr)
	require.Contains(t, last, "--addr")
	require.Contains(t, last, "apikey create")
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

func TestConfigErrorsNameTheSetting(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		env  []string
		args []string
		want string
	}{
		{"bad log format flag", nil, []string{"serve", "--log-format", "xml"}, "--log-format"},
		{"unknown flag", nil, []string{"serve", "--no-such-flag"}, "no-such-flag"},
		{"bad workers env", []string{"SEEDENGINE_WORKERS=many"}, []string{"worker"}, "SEEDENGINE_WORKERS"},
		{"bad database url", nil, []string{"migrate", "--database-url", "mysql://x"}, "--database-url"},
		{"bad blob url", nil, []string{"migrate", "--blob-url", "ftp://x"}, "--blob-url"},
		{"bad addr", nil, []string{"serve", "--addr", "nonsense"}, "--addr"},
		{"rescue before timeout", nil, []string{"worker", "--job-timeout", "1h", "--job-rescue-after", "1m"}, "--job-rescue-after"},
		{"unknown command", nil, []string{"frobnicate"}, "frobnicate"},
		{"bad scope", nil, []string{"apikey", "create", "--name", "x", "--scope", "root"}, "--scope"},
		{"missing name", nil, []string{"apikey", "create", "--scope", "read"}, "--name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			args := append(tt.args, "--data-dir", t.TempDir())
			if tt.args[0] == "frobnicate" {
				args = tt.args
			}
			_, stderr, code := runCLI(t, tt.env, args...)
			require.Equal(t, 2, code, "stderr: %s", stderr)
			line := lastLine(stderr)
			require.True(t, strings.HasPrefix(line, "seedengine: "), "error line %q", line)
			require.Contains(t, line, tt.want)
		})
	}
}

func TestHelpAndVersion(t *testing.T) {
	t.Parallel()
	for _, cmd := range [][]string{{"--help"}, {"serve", "--help"}, {"worker", "--help"}, {"migrate", "--help"}, {"apikey", "--help"}, {"apikey", "create", "--help"}, {"upload", "--help"}, {"version", "--help"}} {
		stdout, stderr, code := runCLI(t, nil, cmd...)
		require.Equal(t, 0, code, "%v: %s", cmd, stderr)
		require.Equal(t, 1, strings.Count(stdout, "Usage: seedengine"), "%v: the usage, once: %s", cmd, stdout)
	}
	stdout, _, code := runCLI(t, nil, "serve", "--help")
	require.Equal(t, 0, code)
	for _, flag := range []string{"--addr", "--data-dir", "--database-url", "--blob-url", "--log-format", "SEEDENGINE_ADDR"} {
		require.Contains(t, stdout, flag)
	}
	stdout, _, code = runCLI(t, nil, "version")
	require.Equal(t, 0, code)
	require.True(t, strings.HasPrefix(stdout, "seedengine "), stdout)
}

func TestAPIKeyLifecycleCLI(t *testing.T) {
	t.Parallel()
	dataDir := t.TempDir()
	key := createKey(t, dataDir, "robot", "write")
	stdout, stderr, code := runCLI(t, nil, "apikey", "list", "--data-dir", dataDir)
	require.Equal(t, 0, code, stderr)
	require.Contains(t, stdout, "robot")
	require.Contains(t, stdout, "write")
	require.NotContains(t, stdout, key, "list must never print a secret")

	stdout, stderr, code = runCLI(t, nil, "apikey", "revoke", "robot", "--data-dir", dataDir)
	require.Equal(t, 0, code, stderr)
	require.Contains(t, stdout, "revoked")
	_, stderr, code = runCLI(t, nil, "apikey", "revoke", "nobody", "--data-dir", dataDir)
	require.Equal(t, 1, code)
	require.Contains(t, lastLine(stderr), "nobody")

	// With its only key revoked, the data directory is back to open mode.
	s := startServer(t, dataDir)
	r := s.do(t, "GET", "/api/v1/queues/batches", key, nil)
	requireProblem(t, r, 401, "unauthorized")
	r = s.do(t, "GET", "/api/v1/queues/batches", "", nil)
	require.Equal(t, 200, r.status, "body: %s", r.raw)
	require.Equal(t, 0, s.stop(t))
}

func TestMigrateCommand(t *testing.T) {
	t.Parallel()
	dataDir := t.TempDir()
	for range 2 {
		stdout, stderr, code := runCLI(t, nil, "migrate", "--data-dir", dataDir)
		require.Equal(t, 0, code, stderr)
		require.Contains(t, stdout, "migrations applied")
	}
	_, err := os.Stat(filepath.Join(dataDir, "seedengine.db"))
	require.NoError(t, err)
}

// TestServeMetadataSyncToGit runs serve with a file:// metadata remote: a
// research batch's completion and the sync route both push the snapshot,
// and the token given for the remote never appears in the output.
func TestServeMetadataSyncToGit(t *testing.T) {
	t.Parallel()
	dataDir := t.TempDir()
	remote := filepath.Join(t.TempDir(), "metadata.git")
	out, err := exec.Command("git", "init", "--bare", "--initial-branch=main", remote).CombinedOutput()
	require.NoError(t, err, string(out))
	admin := createKey(t, dataDir, "ops", "admin")
	const token = "tok-e2e-never-shown"
	s := startServer(t, dataDir, "--metadata-git-url", "file://"+remote, "--metadata-git-token", token,
		"--metadata-sync-debounce", "100ms", "--metadata-git-path", "snapshots/seedengine.json")

	r := s.do(t, "POST", "/api/v1/queues/research", admin, map[string]any{
		"country": "sg", "category": "news", "date": "2026-01-28", "urls": []string{"https://www.mom.gov.sg/newsroom"}})
	require.Equal(t, 202, r.status, "body: %s", r.raw)
	task := waitMetadataTask(t, s, admin, "batch_completed")
	require.Equal(t, "succeeded", task["status"], "%v", task)
	head := strings.TrimSpace(gitOutput(t, remote, "rev-parse", "main"))
	require.Equal(t, head, task["commit"])
	require.Contains(t, gitOutput(t, remote, "show", "main:snapshots/seedengine.json"), `"partitions": 1`)

	r = s.do(t, "POST", "/api/v1/metadata/sync", admin, nil)
	require.Equal(t, 202, r.status, "body: %s", r.raw)
	task = waitMetadataTask(t, s, admin, "api")
	require.Equal(t, "skipped_unchanged", task["status"], "%v", task)

	require.Equal(t, 0, s.stop(t))
	logs, err := json.Marshal(s.logLines())
	require.NoError(t, err)
	require.NotContains(t, string(logs), token)
	require.Contains(t, string(logs), "metadata_git_token")
}

func gitOutput(t *testing.T, gitDir string, args ...string) string {
	t.Helper()
	out, err := exec.Command("git", append([]string{"--git-dir", gitDir}, args...)...).CombinedOutput()
	require.NoError(t, err, string(out))
	return string(out)
}

// waitMetadataTask waits for a finished metadata task with trigger.
func waitMetadataTask(t *testing.T, s *server, key, trigger string) map[string]any {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		r := s.do(t, "GET", "/api/v1/metadata/tasks", key, nil)
		require.Equal(t, 200, r.status, "body: %s", r.raw)
		for _, it := range r.body["items"].([]any) {
			task := it.(map[string]any)
			if task["trigger"] == trigger && task["status"] != "queued" && task["status"] != "running" {
				return task
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("no finished %s metadata task", trigger)
	return nil
}
