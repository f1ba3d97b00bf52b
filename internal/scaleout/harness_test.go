// Package scaleout_test runs seedengine as a deployment of several real
// processes: one serve and some workers, as separate OS processes of the
// built binary, sharing a PostgreSQL database and an S3 server (versitygw),
// and fetching from the simulated web. The tests break the shared pieces
// (a worker killed, S3 stopped, PostgreSQL restarted, every process
// restarted in turn) while batches run, and check that every batch still
// completes with nothing lost and nothing done twice. Everything listens
// on and connects to 127.0.0.1 only.
package scaleout_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" database/sql driver, for the test's own queries
	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/sqlstore/sqlstoretest"
)

// binary and simwebBinary are the seedengine and simweb programs, built
// once (without -race) by TestMain. The simulated web runs as a process of
// its own: inside the race-instrumented test binary its DNS server falls
// behind the processes' bursts of queries and the kernel drops them.
var binary, simwebBinary string

// workerHelp is the output of `seedengine worker -h`, to find which of the
// optional flags this build has.
var workerHelp string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "seedengine-scaleout-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binary = filepath.Join(dir, "seedengine")
	simwebBinary = filepath.Join(dir, "simweb")
	build := exec.Command("go", "build", "-o", dir, "github.com/seedengine/seedengine/cmd/seedengine", "github.com/seedengine/seedengine/cmd/simweb")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "build seedengine and simweb:", err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	out, _ := exec.Command(binary, "worker", "-h").CombinedOutput()
	workerHelp = string(out)
	code := m.Run()
	if sharedPG.c != nil {
		if err := sharedPG.c.drop(); err != nil {
			fmt.Fprintln(os.Stderr, err)
		}
	}
	os.RemoveAll(dir)
	os.Exit(code)
}

// statSources looks at every source file of the module the binaries are
// built from, once per run; newCluster calls it, as go test records only
// what tests consult (not TestMain before m.Run). go test caches a passing
// result until the test's own package or the files and variables it
// consulted change; this package imports little of what the binaries run,
// so without these looks a change to, say, the queue would replay a
// cached pass.
var statSources = sync.OnceFunc(func() {
	root := filepath.Join("..", "..")
	_ = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() {
			switch d.Name() {
			case ".git", "node_modules", "testdata", "data":
				return filepath.SkipDir
			}
			return nil
		}
		switch filepath.Ext(path) {
		case ".go", ".mod", ".sum", ".sql", ".html", ".css", ".js", ".json", ".yaml", ".txt", ".dat":
			_, _ = os.Stat(path)
		}
		return nil
	})
})

// hasFlag reports whether the built binary's worker takes --name.
func hasFlag(name string) bool {
	return regexp.MustCompile(`(?m)^\s+--` + regexp.QuoteMeta(name) + `\s*$`).MatchString(workerHelp)
}

// inCI reports whether CI is set to anything but a false value: then a
// test that cannot run for want of a dependency fails instead of skipping.
func inCI() bool {
	switch strings.ToLower(os.Getenv("CI")) {
	case "", "0", "false", "no", "off":
		return false
	}
	return true
}

// skipOrFail skips the test, or fails it under CI.
func skipOrFail(tb testing.TB, format string, args ...any) {
	tb.Helper()
	if inCI() {
		tb.Fatalf("under CI this test must run: "+format, args...)
	}
	tb.Skipf(format, args...)
}

// freePort returns a TCP port on 127.0.0.1 that was free a moment ago.
func freePort(tb testing.TB) int {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(tb, err)
	port := ln.Addr().(*net.TCPAddr).Port
	require.NoError(tb, ln.Close())
	return port
}

func randomHex(tb testing.TB, n int) string {
	tb.Helper()
	b := make([]byte, n)
	_, err := rand.Read(b)
	require.NoError(tb, err)
	return hex.EncodeToString(b)
}

// poll calls cond every interval until it returns true, and fails the test
// with msg (and cond's last error) when timeout passes first.
func poll(tb testing.TB, timeout, interval time.Duration, msg string, cond func() (bool, error)) {
	tb.Helper()
	deadline := time.Now().Add(timeout)
	var last error
	for {
		ok, err := cond()
		if ok {
			return
		}
		last = err
		if time.Now().After(deadline) {
			tb.Fatalf("%s: not within %v (last: %v)", msg, timeout, last)
		}
		time.Sleep(interval)
	}
}

// ---------------------------------------------------------------------------
// versitygw

const (
	s3Access = "scaleout"
	s3Secret = "scaleout-secret-key-0123456789"
	s3Bucket = "bucket"
)

// versitygwBinary finds versitygw v1.8.0: $SEEDENGINE_VERSITYGW, else the
// cache directory .ci/run builds it into.
func versitygwBinary(tb testing.TB) string {
	tb.Helper()
	path := os.Getenv("SEEDENGINE_VERSITYGW")
	if path == "" {
		cache := os.Getenv("XDG_CACHE_HOME")
		if cache == "" {
			home, _ := os.UserHomeDir()
			cache = filepath.Join(home, ".cache")
		}
		path = filepath.Join(cache, "seedengine", "versitygw-v1.8.0", "versitygw")
	}
	if st, err := os.Stat(path); err != nil || st.IsDir() || st.Mode()&0o111 == 0 {
		skipOrFail(tb, "no versitygw at %s (set SEEDENGINE_VERSITYGW, or run .ci/run, which builds it)", path)
	}
	return path
}

// objectStore is a versitygw process serving the posix directory dir, with
// the one bucket s3Bucket, on a fixed loopback port so it can be stopped
// and started again at the same address.
type objectStore struct {
	bin, dir string
	port     int

	mu     sync.Mutex
	cmd    *exec.Cmd
	exited chan struct{}
}

func startObjectStore(tb testing.TB) *objectStore {
	tb.Helper()
	s := &objectStore{bin: versitygwBinary(tb), dir: tb.TempDir()}
	require.NoError(tb, os.Mkdir(filepath.Join(s.dir, s3Bucket), 0o755))
	// A taken port makes versitygw exit; try another one then.
	for attempt := 0; ; attempt++ {
		s.port = freePort(tb)
		err := s.start()
		if err == nil {
			break
		}
		require.Less(tb, attempt, 3, "start versitygw: %v", err)
	}
	tb.Cleanup(func() { s.stop() })
	return s
}

func (s *objectStore) addr() string { return "127.0.0.1:" + strconv.Itoa(s.port) }

// blobURL is the --blob-url of the bucket at endpoint (host:port).
func blobURL(endpoint string) string {
	return "s3://" + s3Bucket + "?endpoint=http://" + endpoint + "&region=us-east-1&use_path_style=true"
}

// start runs versitygw and waits until /health answers 200.
func (s *objectStore) start() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd != nil {
		return errors.New("versitygw is running")
	}
	logf, err := os.OpenFile(filepath.Join(filepath.Dir(s.dir), "versitygw-"+strconv.Itoa(s.port)+".log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	cmd := exec.Command(s.bin, "--access", s3Access, "--secret", s3Secret, "--port", s.addr(),
		"--health", "/health", "--quiet", "--keep-alive", "posix", s.dir)
	cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + s.dir}
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		logf.Close()
		return err
	}
	exited := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		logf.Close()
		close(exited)
	}()
	deadline := time.Now().Add(15 * time.Second)
	client := &http.Client{Timeout: time.Second}
	for {
		select {
		case <-exited:
			return fmt.Errorf("versitygw exited at start (port %d taken?)", s.port)
		default:
		}
		resp, err := client.Get("http://" + s.addr() + "/health")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				break
			}
		}
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			<-exited
			return fmt.Errorf("versitygw not healthy within 15s: %v", err)
		}
		time.Sleep(10 * time.Millisecond)
	}
	s.cmd, s.exited = cmd, exited
	return nil
}

// stop ends versitygw (SIGTERM, SIGKILL after 5 s) and waits for it.
func (s *objectStore) stop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd == nil {
		return
	}
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.exited:
	case <-time.After(5 * time.Second):
		_ = s.cmd.Process.Kill()
		<-s.exited
	}
	s.cmd = nil
}

// objects lists the bucket's objects under prefix from versitygw's posix
// directory: key → size. versitygw's own temporary files are left out.
func (s *objectStore) objects(tb testing.TB, prefix string) map[string]int64 {
	tb.Helper()
	root := filepath.Join(s.dir, s3Bucket)
	out := map[string]int64{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if errors.Is(err, fs.ErrNotExist) {
			return nil // deleted while listed (a finisher merging parts)
		}
		if err != nil {
			return err
		}
		if d.IsDir() && strings.HasPrefix(d.Name(), ".sgw") {
			return filepath.SkipDir
		}
		if d.IsDir() {
			return nil
		}
		key, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		key = filepath.ToSlash(key)
		if !strings.HasPrefix(key, prefix) {
			return nil
		}
		info, err := d.Info()
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		out[key] = info.Size()
		return nil
	})
	require.NoError(tb, err)
	return out
}

// read returns the object at key, read from the posix directory.
func (s *objectStore) read(tb testing.TB, key string) []byte {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join(s.dir, s3Bucket, filepath.FromSlash(key)))
	require.NoError(tb, err)
	return b
}

// ---------------------------------------------------------------------------
// PostgreSQL

// The tests run on PostgreSQL clusters of their own, made with Debian's
// postgresql-common tools: one with room for many connections, shared by
// the tests (a database each), and one per restart test, which stops it.
// Each seedengine process opens up to 40 connections, so three processes
// alone pass the default max_connections of 100; on the shared server of
// SEEDENGINE_TEST_POSTGRES_URL they would also starve the other packages'
// tests running at the same time. Without root or the tools the tests fall
// back to that server.

// pgCluster is a throw-away PostgreSQL cluster.
type pgCluster struct {
	version, name string
	port          int
}

// canCreateCluster says why pg_createcluster cannot be used here, or "".
func canCreateCluster() string {
	if _, err := exec.LookPath("pg_createcluster"); err != nil {
		return "pg_createcluster not found (Debian's postgresql-common)"
	}
	if os.Geteuid() != 0 {
		return fmt.Sprintf("pg_createcluster needs root; running as uid %d", os.Geteuid())
	}
	if _, err := latestPGVersion(); err != nil {
		return err.Error()
	}
	return ""
}

func latestPGVersion() (string, error) {
	vers, err := os.ReadDir("/usr/lib/postgresql")
	if err != nil {
		return "", fmt.Errorf("no PostgreSQL server under /usr/lib/postgresql: %w", err)
	}
	var nums []int
	for _, v := range vers {
		if n, err := strconv.Atoi(v.Name()); err == nil {
			nums = append(nums, n)
		}
	}
	if len(nums) == 0 {
		return "", errors.New("no PostgreSQL version under /usr/lib/postgresql")
	}
	sort.Ints(nums)
	return strconv.Itoa(nums[len(nums)-1]), nil
}

// createPGCluster creates and starts a cluster on a free loopback port
// with trust auth for local and loopback connections. durable keeps
// fsync on, as a production server has it (the tests turn it off).
func createPGCluster(maxConnections int, durable bool, options ...string) (*pgCluster, error) {
	ver, err := latestPGVersion()
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	port := ln.Addr().(*net.TCPAddr).Port
	_ = ln.Close()
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	c := &pgCluster{version: ver, name: "scaleout" + hex.EncodeToString(b), port: port}
	args := []string{c.version, c.name, "-p", strconv.Itoa(c.port), "--start-conf", "manual", "-o", "max_connections=" + strconv.Itoa(maxConnections)}
	if !durable {
		args = append(args, "-o", "fsync=off")
	}
	for _, o := range options {
		args = append(args, "-o", o)
	}
	args = append(args, "--", "--auth-host=trust", "--auth-local=trust")
	out, err := exec.Command("pg_createcluster", args...).CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("pg_createcluster: %w: %s", err, out)
	}
	if err := c.ctl("start"); err != nil {
		_ = c.drop()
		return nil, err
	}
	return c, nil
}

// ctl runs pg_ctlcluster action (start, stop or restart; stops are fast
// shutdowns, which end the sessions).
func (c *pgCluster) ctl(action string) error {
	args := []string{"--skip-systemctl-redirect"}
	if action == "stop" || action == "restart" {
		args = append(args, "-m", "fast")
	}
	args = append(args, c.version, c.name, action)
	if out, err := exec.Command("pg_ctlcluster", args...).CombinedOutput(); err != nil {
		return fmt.Errorf("pg_ctlcluster %v: %w: %s", args, err, out)
	}
	return nil
}

func (c *pgCluster) drop() error {
	if out, err := exec.Command("pg_dropcluster", "--stop", c.version, c.name).CombinedOutput(); err != nil {
		return fmt.Errorf("pg_dropcluster %s %s: %w: %s", c.version, c.name, err, out)
	}
	return nil
}

// url is the URL of database db in the cluster.
func (c *pgCluster) url(db string) string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable", c.port, db)
}

// createDatabase creates a database with a fresh name in c, dropped on
// cleanup, and returns its URL.
func (c *pgCluster) createDatabase(tb testing.TB) string {
	tb.Helper()
	admin, err := sql.Open("pgx", c.url("postgres"))
	require.NoError(tb, err)
	name := "scaleout_" + randomHex(tb, 6)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err = admin.ExecContext(ctx, "CREATE DATABASE "+name)
	require.NoError(tb, err)
	tb.Cleanup(func() {
		defer admin.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if _, err := admin.ExecContext(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
			tb.Errorf("drop database %s: %v", name, err)
		}
	})
	return c.url(name)
}

// sharedPG is the cluster the tests share, made on first use and dropped
// by TestMain.
var sharedPG struct {
	once sync.Once
	c    *pgCluster
	err  error
}

// newDatabase returns the URL of a fresh database for one test: in the
// shared cluster of this package when one can be made, else on the
// server of SEEDENGINE_TEST_POSTGRES_URL. Without that variable the test
// is skipped, or fails under CI, as every PostgreSQL test does.
func newDatabase(tb testing.TB) string {
	tb.Helper()
	if os.Getenv(sqlstoretest.PostgresURLEnv) == "" {
		skipOrFail(tb, "%s is not set; skipping PostgreSQL test", sqlstoretest.PostgresURLEnv)
	}
	if why := canCreateCluster(); why != "" {
		tb.Logf("using the server of %s (%s): more than two processes may exhaust its connections", sqlstoretest.PostgresURLEnv, why)
		return sqlstoretest.NewPostgresURL(tb)
	}
	sharedPG.once.Do(func() { sharedPG.c, sharedPG.err = createPGCluster(1000, false) })
	require.NoError(tb, sharedPG.err)
	return sharedPG.c.createDatabase(tb)
}

// newOwnCluster makes a cluster for one test, which may stop and start
// it, with a database "scaleout"; it is dropped on cleanup. Without root
// or the tools the test is skipped (fails under CI).
func newOwnCluster(tb testing.TB) (*pgCluster, string) {
	tb.Helper()
	if os.Getenv(sqlstoretest.PostgresURLEnv) == "" {
		skipOrFail(tb, "%s is not set; skipping PostgreSQL test", sqlstoretest.PostgresURLEnv)
	}
	if why := canCreateCluster(); why != "" {
		skipOrFail(tb, "a PostgreSQL cluster of its own is needed to restart it: %s", why)
	}
	c, err := createPGCluster(300, false)
	require.NoError(tb, err)
	tb.Cleanup(func() {
		if err := c.drop(); err != nil {
			tb.Error(err)
		}
	})
	return c, c.createDatabase(tb)
}

// ---------------------------------------------------------------------------
// the simulated web

// site is one generated site of the simulated web.
type site struct {
	host, scenario, layout string
}

// webMix is the simulated web's scenario mix: mostly healthy sites, some
// parked, bot-walled or dead names, so liveness gives every verdict.
const webMix = "parked=0.04,bot_wall=0.04,nxdomain=0.02"

// simWeb is a cmd/simweb process serving n generated sites.
type simWeb struct {
	sites []site
	flags []string // the seedengine flags that reach it

	mu   sync.Mutex
	next int // sites handed out so far
}

func startSimWeb(tb testing.TB, dir string, n int, mix string) *simWeb {
	tb.Helper()
	hosts, env := filepath.Join(dir, "hosts.tsv"), filepath.Join(dir, "simweb.env")
	out, err := os.Create(filepath.Join(dir, "simweb.out"))
	require.NoError(tb, err)
	defer out.Close()
	errLog, err := os.Create(filepath.Join(dir, "simweb.log"))
	require.NoError(tb, err)
	defer errLog.Close()
	cmd := exec.Command(simwebBinary, "--sites", strconv.Itoa(n), "--seed", "1", "--mix", mix,
		"--ca-dir", dir, "--hosts-out", hosts, "--env-out", env)
	cmd.Stdout, cmd.Stderr = out, errLog
	require.NoError(tb, cmd.Start())
	exited := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(exited)
	}()
	tb.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
	})
	poll(tb, 60*time.Second, 20*time.Millisecond, "simweb serving", func() (bool, error) {
		select {
		case <-exited:
			b, _ := os.ReadFile(errLog.Name())
			tb.Fatalf("simweb exited: %s", b)
		default:
		}
		b, err := os.ReadFile(out.Name())
		return bytes.Contains(b, []byte("serving until interrupted")), err
	})
	w := &simWeb{}
	b, err := os.ReadFile(hosts)
	require.NoError(tb, err)
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		f := strings.Split(line, "\t")
		require.Len(tb, f, 3, "hosts line %q", line)
		w.sites = append(w.sites, site{f[0], f[1], f[2]})
	}
	require.Len(tb, w.sites, n)
	b, err = os.ReadFile(env)
	require.NoError(tb, err)
	flagOf := map[string]string{
		"SEEDENGINE_DNS_SERVER": "--dns-server", "SEEDENGINE_CONNECT_TO": "--connect-to",
		"SEEDENGINE_EXTRA_CA_FILE": "--extra-ca-file", "SEEDENGINE_ALLOW_PRIVATE_NETWORKS": "--allow-private-networks",
	}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		k, v, _ := strings.Cut(line, "=")
		f, ok := flagOf[k]
		require.True(tb, ok, "unknown simweb setting %q", line)
		if f == "--connect-to" {
			// One flag per entry: thousands of refused hosts would pass
			// Linux's limit of 128 KiB on one argument.
			for _, e := range strings.Split(v, ",") {
				w.flags = append(w.flags, f, e)
			}
			continue
		}
		w.flags = append(w.flags, f, v)
	}
	return w
}

// take hands out the next n sites not handed out before; healthy only
// skips the others.
func (w *simWeb) take(tb testing.TB, n int, healthyOnly bool) []site {
	tb.Helper()
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []site
	for len(out) < n && w.next < len(w.sites) {
		s := w.sites[w.next]
		w.next++
		if healthyOnly && s.scenario != "healthy" {
			continue
		}
		out = append(out, s)
	}
	require.Len(tb, out, n, "the simulated web has too few sites left")
	return out
}

// ---------------------------------------------------------------------------
// seedengine processes

// proc is one seedengine serve or worker process. A restart makes a new
// proc with the same arguments.
type proc struct {
	name string // serve, worker1, …; a restart adds "#2", "#3"
	role string // serve or worker
	args []string
	cmd  *exec.Cmd
	base string // serve: http://127.0.0.1:PORT

	mu      sync.Mutex
	logs    []map[string]any
	started chan struct{} // worker: queue_started seen; serve: http_listening
	done    chan struct{} // stderr closed and the process reaped
	waitErr error
}

func (p *proc) pid() int { return p.cmd.Process.Pid }

func (p *proc) logLines() []map[string]any {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]map[string]any(nil), p.logs...)
}

// alive reports whether the process has not exited.
func (p *proc) alive() bool {
	select {
	case <-p.done:
		return false
	default:
		return true
	}
}

// launch starts the process and reads its JSON log lines.
// With niceness > 0 it runs at that lower CPU priority.
func launch(tb testing.TB, name, role string, args, env []string, logDir string, niceness int) *proc {
	tb.Helper()
	p := &proc{name: name, role: role, args: args, started: make(chan struct{}), done: make(chan struct{})}
	p.cmd = exec.Command(binary, args...)
	if niceness > 0 {
		p.cmd = exec.Command("nice", append([]string{"-n", strconv.Itoa(niceness), binary}, args...)...)
	}
	p.cmd.Env = env
	stderr, err := p.cmd.StderrPipe()
	require.NoError(tb, err)
	logf, err := os.Create(filepath.Join(logDir, strings.ReplaceAll(name, "#", "_")+".log"))
	require.NoError(tb, err)
	require.NoError(tb, p.cmd.Start())
	startEvent := "queue_started"
	if role == "serve" {
		startEvent = "http_listening"
	}
	go func() {
		defer close(p.done)
		defer logf.Close()
		sc := bufio.NewScanner(stderr)
		sc.Buffer(make([]byte, 1<<20), 4<<20)
		once := sync.Once{}
		for sc.Scan() {
			_, _ = logf.Write(append(sc.Bytes(), '\n'))
			var line map[string]any
			if json.Unmarshal(sc.Bytes(), &line) != nil {
				line = map[string]any{"raw": sc.Text()}
			}
			if line["event"] == "http_request" {
				continue // the test's own polling; kept in the file only
			}
			p.mu.Lock()
			p.logs = append(p.logs, line)
			p.mu.Unlock()
			if line["event"] == startEvent {
				if a, ok := line["addr"].(string); ok {
					p.base = "http://" + a
				}
				once.Do(func() { close(p.started) })
			}
		}
		_, _ = io.Copy(io.Discard, stderr)
		p.waitErr = p.cmd.Wait()
	}()
	tb.Cleanup(func() {
		if p.alive() {
			_ = p.cmd.Process.Kill()
			<-p.done
		}
	})
	return p
}

// waitStarted waits for the process's start event (and, for serve, a
// ready answer) within timeout.
func (p *proc) waitStarted(tb testing.TB, timeout time.Duration) {
	tb.Helper()
	select {
	case <-p.started:
	case <-p.done:
		tb.Fatalf("%s exited at start (%v): %s", p.name, p.waitErr, lastLines(p.logLines(), 10))
	case <-time.After(timeout):
		tb.Fatalf("%s did not start within %v: %s", p.name, timeout, lastLines(p.logLines(), 10))
	}
	if p.role != "serve" {
		return
	}
	poll(tb, timeout, 50*time.Millisecond, p.name+" ready", func() (bool, error) {
		r, err := p.try(http.MethodGet, "/health/ready", nil)
		if err != nil {
			return false, err
		}
		return r.status == http.StatusOK, fmt.Errorf("%d %s", r.status, r.raw)
	})
}

// terminate sends SIGTERM and waits for the exit; it returns the exit code.
func (p *proc) terminate(tb testing.TB, timeout time.Duration) int {
	tb.Helper()
	require.NoError(tb, p.cmd.Process.Signal(syscall.SIGTERM))
	select {
	case <-p.done:
	case <-time.After(timeout):
		tb.Fatalf("%s did not exit within %v of SIGTERM", p.name, timeout)
	}
	var ee *exec.ExitError
	if errors.As(p.waitErr, &ee) {
		return ee.ExitCode()
	}
	require.NoError(tb, p.waitErr)
	return 0
}

// kill sends SIGKILL and waits for the process to be reaped.
func (p *proc) kill(tb testing.TB) {
	tb.Helper()
	require.NoError(tb, p.cmd.Process.Signal(syscall.SIGKILL))
	select {
	case <-p.done:
	case <-time.After(10 * time.Second):
		tb.Fatalf("%s not reaped within 10s of SIGKILL", p.name)
	}
}

// vmHWM is the process's peak resident set size in bytes, from
// /proc/PID/status; 0 when it cannot be read (the process has exited).
func vmHWM(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			f := strings.Fields(rest)
			if len(f) >= 1 {
				kb, _ := strconv.ParseInt(f[0], 10, 64)
				return kb * 1024
			}
		}
	}
	return 0
}

func lastLines(lines []map[string]any, n int) string {
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	var b strings.Builder
	for _, l := range lines {
		j, _ := json.Marshal(l)
		b.Write(j)
		b.WriteByte('\n')
	}
	return b.String()
}

// ---------------------------------------------------------------------------
// HTTP

type response struct {
	status int
	header http.Header
	body   map[string]any
	raw    []byte
}

var apiClient = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 16, Proxy: nil}}

// try sends a request to serve; a connection error is returned, not fatal.
func (p *proc) try(method, path string, body any) (response, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return response{}, err
		}
		rd = bytes.NewReader(b)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, p.base+path, rd)
	if err != nil {
		return response{}, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := apiClient.Do(req)
	if err != nil {
		return response{}, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return response{}, err
	}
	r := response{status: resp.StatusCode, header: resp.Header, raw: raw}
	_ = json.Unmarshal(raw, &r.body)
	return r, nil
}

// ---------------------------------------------------------------------------
// the cluster

// clusterConfig shapes a cluster. Zero values take the defaults noted.
type clusterConfig struct {
	workers int    // worker processes besides serve; default 2
	sites   int    // sites of the simulated web; default 1,500
	mix     string // their scenario mix; default webMix
	// polite keeps the default --per-host-delay (1s); the tests turn it
	// off, as each host is asked a few questions only.
	polite     bool
	serveExtra []string // flags for serve only
	// fullPriority runs the processes at normal CPU priority. The tests
	// run them at a lower one than the simulated web (and the stores),
	// which stands for the internet: on a small machine the processes'
	// bursts of DNS queries would otherwise starve its DNS server, the
	// kernel drops queries, and a contract run takes a lost query for a
	// dead name (the fetcher's resolver does not ask again within its 5 s).
	fullPriority bool
	pgURL        string   // database; default a fresh one (newDatabase)
	extra        []string // flags for every process, after the common ones
	// gate puts a gateProxy in front of versitygw, one listener per
	// process, so the test can hold object writes and see who makes them.
	gate bool
}

// cluster is a serve process and workers sharing one database, one
// bucket and one simulated web.
type cluster struct {
	t          testing.TB
	dir        string
	pgURL      string
	s3         *objectStore
	gate       *gateProxy
	web        *simWeb
	common     []string // flags for every process
	serveExtra []string // and for serve
	niceness   int
	env        []string

	mu      sync.Mutex
	serve   *proc
	workers []*proc
	all     []*proc // every process ever started, restarts included
	starts  map[string]int
}

func newCluster(t testing.TB, cfg clusterConfig) *cluster {
	t.Helper()
	statSources()
	if cfg.workers == 0 {
		cfg.workers = 2
	}
	if cfg.pgURL == "" {
		cfg.pgURL = newDatabase(t)
	}
	dir, err := os.MkdirTemp("", "scaleout-")
	require.NoError(t, err)
	// Kept when the test failed, or with SEEDENGINE_SCALEOUT_KEEP=1, for
	// the process logs.
	t.Cleanup(func() {
		if t.Failed() || os.Getenv("SEEDENGINE_SCALEOUT_KEEP") == "1" {
			t.Logf("process logs are kept in %s", dir)
			return
		}
		_ = os.RemoveAll(dir)
	})
	c := &cluster{t: t, dir: dir, pgURL: cfg.pgURL, starts: map[string]int{}}
	c.s3 = startObjectStore(t)
	if cfg.gate {
		c.gate = newGateProxy(t, "http://"+c.s3.addr())
	}

	if cfg.sites == 0 {
		cfg.sites = 1500
	}
	if cfg.mix == "" {
		cfg.mix = webMix
	}
	c.web = startSimWeb(t, dir, cfg.sites, cfg.mix)

	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch {
		case strings.HasPrefix(k, "SEEDENGINE_"), strings.HasPrefix(k, "AWS_"),
			strings.EqualFold(k, "HTTP_PROXY"), strings.EqualFold(k, "HTTPS_PROXY"),
			strings.EqualFold(k, "ALL_PROXY"), strings.EqualFold(k, "NO_PROXY"):
			continue
		}
		c.env = append(c.env, kv)
	}
	c.env = append(c.env,
		"AWS_ACCESS_KEY_ID="+s3Access, "AWS_SECRET_ACCESS_KEY="+s3Secret,
		"AWS_EC2_METADATA_DISABLED=true", "AWS_CONFIG_FILE=/nonexistent", "AWS_SHARED_CREDENTIALS_FILE=/nonexistent")
	c.common = []string{
		"--database-url", c.pgURL,
		"--log-format", "json",
		"--shutdown-timeout", "20s",
	}
	if !cfg.polite {
		c.common = append(c.common, "--per-host-delay", "0s")
	}
	c.serveExtra = cfg.serveExtra
	if !cfg.fullPriority {
		c.niceness = 10
	}
	c.common = append(c.common, c.web.flags...)
	c.common = append(c.common, cfg.extra...)
	// A test that bounds a process's chunks with --workers means its
	// liveness chunks too, which have a queue of their own.
	if i := slices.Index(cfg.extra, "--workers"); i >= 0 && i+1 < len(cfg.extra) &&
		hasFlag("liveness-workers") && !slices.Contains(cfg.extra, "--liveness-workers") {
		c.common = append(c.common, "--liveness-workers", cfg.extra[i+1])
	}

	c.startProc("serve")
	for i := 1; i <= cfg.workers; i++ {
		c.startProc("worker" + strconv.Itoa(i))
	}
	return c
}

// launchProc starts (or starts again) the process named base ("serve",
// "worker1", …) with the cluster's settings, without waiting for it.
func (c *cluster) launchProc(base string) *proc {
	c.t.Helper()
	role := "worker"
	if base == "serve" {
		role = "serve"
	}
	args := []string{role}
	args = append(args, c.common...)
	dataDir := filepath.Join(c.dir, base)
	require.NoError(c.t, os.MkdirAll(dataDir, 0o755))
	endpoint := c.s3.addr()
	if c.gate != nil {
		endpoint = c.gate.listener(c.t, base)
	}
	args = append(args, "--data-dir", dataDir, "--blob-url", blobURL(endpoint))
	if role == "serve" {
		args = append(args, "--addr", "127.0.0.1:0", "--rate-limit", "100000", "--rate-burst", "100000")
		args = append(args, c.serveExtra...)
	}
	c.mu.Lock()
	c.starts[base]++
	name := base
	if n := c.starts[base]; n > 1 {
		name = fmt.Sprintf("%s#%d", base, n)
	}
	c.mu.Unlock()
	p := launch(c.t, name, role, args, c.env, c.dir, c.niceness)
	c.mu.Lock()
	c.all = append(c.all, p)
	c.mu.Unlock()
	return p
}

// startProc starts (or starts again) the process named base ("serve",
// "worker1", …) with the cluster's settings and waits until it works.
func (c *cluster) startProc(base string) *proc {
	c.t.Helper()
	p := c.launchProc(base)
	p.waitStarted(c.t, 90*time.Second)
	c.adopt(base, p)
	return p
}

// adopt makes p, started, the cluster's process base.
func (c *cluster) adopt(base string, p *proc) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if p.role == "serve" {
		c.serve = p
	} else {
		i, _ := strconv.Atoi(strings.TrimPrefix(base, "worker"))
		for len(c.workers) < i {
			c.workers = append(c.workers, nil)
		}
		c.workers[i-1] = p
	}
}

// restart stops p with SIGTERM (it must exit 0) and starts it again.
func (c *cluster) restart(p *proc) *proc {
	c.t.Helper()
	require.Equal(c.t, 0, p.terminate(c.t, 60*time.Second), "%s must exit cleanly on SIGTERM: %s", p.name, lastLines(p.logLines(), 5))
	base, _, _ := strings.Cut(p.name, "#")
	return c.startProc(base)
}

func (c *cluster) api() *proc {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.serve
}

func (c *cluster) processes() []*proc {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]*proc(nil), c.all...)
}

// do sends a request to serve and fails the test on a connection error.
func (c *cluster) do(method, path string, body any) response {
	c.t.Helper()
	r, err := c.api().try(method, path, body)
	require.NoError(c.t, err, "%s %s", method, path)
	return r
}

// post queues a batch and returns its id.
func (c *cluster) post(path string, body any) string {
	c.t.Helper()
	var r response
	// A batch is accepted once; retry only answers that say nothing was
	// accepted (503 during an outage).
	poll(c.t, 60*time.Second, 200*time.Millisecond, "POST "+path, func() (bool, error) {
		var err error
		r, err = c.api().try(http.MethodPost, path, body)
		if err != nil {
			return false, err
		}
		if r.status == http.StatusServiceUnavailable {
			return false, fmt.Errorf("503: %s", r.raw)
		}
		return true, nil
	})
	require.Equal(c.t, http.StatusAccepted, r.status, "POST %s: %s", path, r.raw)
	id, _ := r.body["id"].(string)
	require.NotEmpty(c.t, id, "POST %s: %s", path, r.raw)
	return id
}

// batch returns the batch record, or an error while the API cannot answer.
func (c *cluster) batch(id string) (seedengine.Batch, error) {
	var b seedengine.Batch
	r, err := c.api().try(http.MethodGet, "/api/v1/queues/batch/"+id, nil)
	if err != nil {
		return b, err
	}
	if r.status != http.StatusOK {
		return b, fmt.Errorf("GET batch %s: %d %s", id, r.status, r.raw)
	}
	if err := json.Unmarshal(r.raw, &b); err != nil {
		return b, err
	}
	return b, nil
}

// waitBatches waits until every batch has finished and returns them; it
// fails the test at the deadline, naming the batches still open.
func (c *cluster) waitBatches(timeout time.Duration, ids ...string) map[string]seedengine.Batch {
	c.t.Helper()
	out := map[string]seedengine.Batch{}
	poll(c.t, timeout, 250*time.Millisecond, "batches finished", func() (bool, error) {
		var open []string
		for _, id := range ids {
			if b, ok := out[id]; ok && b.Status.Finished() {
				continue
			}
			b, err := c.batch(id)
			if err != nil {
				return false, err
			}
			out[id] = b
			if !b.Status.Finished() {
				open = append(open, fmt.Sprintf("%s %s %s chunks %d/%d failed %d", b.Kind, id, b.Status, b.Chunks.Done, b.Chunks.Total, b.Chunks.Failed))
			}
		}
		if len(open) > 0 {
			return false, errors.New(strings.Join(open, "; "))
		}
		return true, nil
	})
	return out
}

// requireCompleted asserts that every batch finished with every chunk
// done, and with the failed items failedItems names (by batch id; none
// when absent): completed, or completed_with_errors when items failed.
func requireCompleted(t testing.TB, batches map[string]seedengine.Batch, failedItems map[string]int) {
	t.Helper()
	for id, b := range batches {
		want := seedengine.BatchCompleted
		if failedItems[id] > 0 {
			want = seedengine.BatchCompletedWithErrors
		}
		require.Equal(t, want, b.Status, "%s batch %s: chunks %+v items %+v", b.Kind, id, b.Chunks, b.Items)
		require.Equal(t, b.Chunks.Total, b.Chunks.Done, "%s batch %s: chunks %+v", b.Kind, id, b.Chunks)
		require.Zero(t, b.Chunks.Failed, "%s batch %s", b.Kind, id)
		require.Equal(t, failedItems[id], b.Items.Failed, "%s batch %s: failed items (%+v): %s", b.Kind, id, b.Items, skippedOf(b.Result))
	}
}

// skippedOf returns the "skipped", "rejected" or "invalid" member of a
// batch result, for failure messages that must stay short.
func skippedOf(result []byte) string {
	var r map[string]json.RawMessage
	if json.Unmarshal(result, &r) != nil {
		return seedengine.Truncate(string(result), 2000)
	}
	for _, k := range []string{"skipped", "rejected", "invalid"} {
		if v, ok := r[k]; ok {
			return k + ": " + seedengine.Truncate(string(v), 2000)
		}
	}
	return seedengine.Truncate(string(result), 2000)
}

// ---------------------------------------------------------------------------
// what the processes logged

// jobEvent is one job outcome line of one process (internal/jobs logs
// job_completed, job_failed and job_interrupted with these fields).
type jobEvent struct {
	proc     string
	event    string
	kind     string
	batchID  string
	chunk    int
	attempt  int
	recorded bool // job_completed: the run recorded the outcome (already_recorded false)
	err      string
}

func (c *cluster) jobEvents() []jobEvent {
	var out []jobEvent
	for _, p := range c.processes() {
		for _, l := range p.logLines() {
			ev, _ := l["event"].(string)
			if ev != "job_completed" && ev != "job_failed" && ev != "job_interrupted" {
				continue
			}
			e := jobEvent{proc: p.name, event: ev}
			e.kind, _ = l["kind"].(string)
			if _, ok := l["chunk"]; !ok {
				continue // batch_finished and other jobs that are no chunk
			}
			e.batchID, _ = l["batch_id"].(string)
			if f, ok := l["chunk"].(float64); ok {
				e.chunk = int(f)
			}
			if f, ok := l["attempt"].(float64); ok {
				e.attempt = int(f)
			}
			if ev == "job_completed" {
				already, _ := l["already_recorded"].(bool)
				e.recorded = !already
			}
			e.err, _ = l["error"].(string)
			out = append(out, e)
		}
	}
	return out
}

// eventCounts counts the log lines of the named events over all
// processes.
func (c *cluster) eventCounts(names ...string) map[string]int {
	want := map[string]bool{}
	for _, n := range names {
		want[n] = true
	}
	out := map[string]int{}
	for _, p := range c.processes() {
		for _, l := range p.logLines() {
			if ev, _ := l["event"].(string); want[ev] {
				out[ev]++
			}
		}
	}
	return out
}

// rescueEvents are the events of the queue's rescue of jobs left running.
var rescueEvents = []string{"orphan_jobs_rescued", "dead_process_jobs_rescued", "queue_process_dead", "orphaned_chunks_failed"}

// requireRecordedOnce asserts, from the processes' logs, that every chunk
// of every batch had its outcome recorded by exactly one run, and returns
// how many chunks each process recorded.
func (c *cluster) requireRecordedOnce(t testing.TB, batches map[string]seedengine.Batch) map[string]int {
	t.Helper()
	type chunkKey struct {
		batch string
		chunk int
	}
	recorded := map[chunkKey][]string{}
	byProc := map[string]int{}
	for _, e := range c.jobEvents() {
		if e.event != "job_completed" || !e.recorded {
			continue
		}
		if _, ok := batches[e.batchID]; !ok {
			continue
		}
		k := chunkKey{e.batchID, e.chunk}
		recorded[k] = append(recorded[k], e.proc)
		byProc[e.proc]++
	}
	for id, b := range batches {
		for i := 0; i < b.Chunks.Total; i++ {
			procs := recorded[chunkKey{id, i}]
			require.Len(t, procs, 1, "%s batch %s chunk %d: outcome recorded by %v (want exactly one run)", b.Kind, id, i, procs)
		}
	}
	return byProc
}

// ---------------------------------------------------------------------------
// workloads

// researchURLs returns n distinct URLs over n/4 domains of four
// countries' suffixes, with tracking parameters to strip; tag keeps the
// URLs of two calls apart.
func researchURLs(tag string, n int) []string {
	suffixes := []string{"gov.sg", "edu.sg", "com.sg", "go.jp", "ac.jp", "gouv.fr", "gov.uk", "com"}
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("https://www.%s-site%d.%s/news/%d?utm_source=feed&id=%d", tag, i%max(1, n/4), suffixes[i%len(suffixes)], i, i)
	}
	return out
}

// livenessDomains hands out n sites of the simulated web (of every
// scenario) and returns their host names.
func (c *cluster) livenessDomains(n int) []string {
	var hosts []string
	for _, s := range c.web.take(c.t, n, false) {
		hosts = append(hosts, s.host)
	}
	return hosts
}

// contractDomains hands out n healthy sites of the simulated web and
// returns them as domain_ids of the test's country (a contract batch
// checks the id's country, not the host's suffix).
func (c *cluster) contractDomains(n int) []string {
	var ids []string
	for _, s := range c.web.take(c.t, n, true) {
		ids = append(ids, "gov:"+country+":"+s.host)
	}
	return ids
}

// ---------------------------------------------------------------------------
// what the store holds

// requireRawChunks asserts that the research partition holds exactly the
// chunks its batches wrote: one object per batch chunk, each origin once,
// no normalised URL in two chunks (so no chunk was written twice), want
// URLs in all, and the SQL index listing the same keys and sizes as the
// bucket.
func (c *cluster) requireRawChunks(t testing.TB, country, category, date string, research map[string]seedengine.Batch, wantURLs int) {
	t.Helper()
	prefix := fmt.Sprintf("raw/country=%s/category=%s/date=%s/", country, category, date)
	rawName := regexp.MustCompile(`^raw_\d{4,}\.json$`)
	objects := map[string]int64{}
	for k, size := range c.s3.objects(t, prefix) {
		if rawName.MatchString(strings.TrimPrefix(k, prefix)) {
			objects[k] = size
		}
	}
	wantChunks := 0
	for _, b := range research {
		wantChunks += b.Chunks.Total
	}
	require.Len(t, objects, wantChunks, "raw chunks in the bucket under %s (one per batch chunk)", prefix)

	seen := map[string]string{}
	records := 0
	for key := range objects {
		var ds struct {
			Meta struct {
				Origin string `json:"origin"`
			} `json:"meta"`
			Records []struct {
				NormalizedURL string `json:"normalized_url"`
			} `json:"records"`
		}
		require.NoError(t, json.Unmarshal(c.s3.read(t, key), &ds), "chunk %s", key)
		for _, r := range ds.Records {
			if prev, dup := seen[r.NormalizedURL]; dup {
				t.Fatalf("URL %s is in %s and in %s: a chunk was written twice", r.NormalizedURL, prev, key)
			}
			seen[r.NormalizedURL] = key
		}
		records += len(ds.Records)
	}
	require.Equal(t, wantURLs, records, "records in the raw chunks")

	// The dataset index in PostgreSQL, read directly: a listing through
	// the API would index what it finds missing.
	db, err := sql.Open("pgx", c.pgURL)
	require.NoError(t, err)
	defer db.Close()
	rows, err := db.QueryContext(context.Background(), `SELECT chunk, key, bytes, coalesce(origin, '') FROM dataset_chunks
		WHERE country = $1 AND category = $2 AND date = $3 ORDER BY chunk`, country, category, date)
	require.NoError(t, err)
	sqlIndexed, sqlOrigins := map[string]int64{}, map[string]string{}
	for rows.Next() {
		var n int
		var key, origin string
		var size int64
		require.NoError(t, rows.Scan(&n, &key, &size, &origin))
		require.NotEmpty(t, key, "chunk %d is reserved (by %q) but was never indexed", n, origin)
		sqlIndexed[key] = size
		sqlOrigins[origin] = key
	}
	require.NoError(t, rows.Err())
	require.Equal(t, objects, sqlIndexed, "dataset_chunks must list the bucket's chunks with their sizes")
	for id, b := range research {
		for i := 0; i < b.Chunks.Total; i++ {
			require.Contains(t, sqlOrigins, fmt.Sprintf("batch:%s:%d", id, i), "dataset_chunks has no chunk with the origin of chunk %d of research batch %s", i, id)
		}
	}

	// The same through the API (GET /api/v1/datasets/{partition}).
	indexed := map[string]int64{}
	origins := map[string]string{}
	for offset := 0; ; offset += 1000 {
		r := c.do(http.MethodGet, fmt.Sprintf("/api/v1/datasets/%s/%s/%s?limit=1000&offset=%d", country, category, date, offset), nil)
		require.Equal(t, http.StatusOK, r.status, "%s", r.raw)
		var page struct {
			Items []seedengine.ChunkInfo `json:"items"`
			Total int                    `json:"total"`
		}
		require.NoError(t, json.Unmarshal(r.raw, &page))
		for _, ci := range page.Items {
			indexed[ci.Key] = ci.Bytes
			if prev, dup := origins[ci.Origin]; dup && ci.Origin != "" {
				t.Fatalf("origin %s wrote %s and %s", ci.Origin, prev, ci.Key)
			}
			origins[ci.Origin] = ci.Key
		}
		if offset+1000 >= page.Total {
			break
		}
	}
	require.Equal(t, objects, indexed, "the dataset index in PostgreSQL must list the bucket's chunks with their sizes")
	for id, b := range research {
		for i := 0; i < b.Chunks.Total; i++ {
			require.Contains(t, origins, fmt.Sprintf("batch:%s:%d", id, i), "chunk %d of research batch %s has no indexed raw chunk", i, id)
		}
	}
}

// requireLiveness asserts that a liveness batch has one result row per
// domain and that its merged results object has one line per domain and
// no parts left.
func (c *cluster) requireLiveness(t testing.TB, id string, b seedengine.Batch, domains int) {
	t.Helper()
	r := c.do(http.MethodGet, "/api/v1/queues/batch/"+id+"/results?limit=1", nil)
	require.Equal(t, http.StatusOK, r.status, "%s", r.raw)
	require.EqualValues(t, domains, r.body["total"], "liveness rows of batch %s", id)
	var res struct {
		ResultsKey string         `json:"results_key"`
		Verdicts   map[string]int `json:"verdicts"`
	}
	require.NoError(t, json.Unmarshal(b.Result, &res))
	total := 0
	for _, n := range res.Verdicts {
		total += n
	}
	require.Equal(t, domains, total, "verdicts of batch %s: %v", id, res.Verdicts)
	require.NotEmpty(t, res.ResultsKey)
	// The batch_finished job merges the parts after the batch finished.
	poll(t, 60*time.Second, 200*time.Millisecond, "liveness results merged into "+res.ResultsKey, func() (bool, error) {
		objs := c.s3.objects(t, strings.TrimSuffix(res.ResultsKey, ".jsonl"))
		_, merged := objs[res.ResultsKey]
		if merged && len(objs) == 1 {
			return true, nil
		}
		return false, fmt.Errorf("objects: %v", objs)
	})
	lines := bytes.Count(bytes.TrimSpace(c.s3.read(t, res.ResultsKey)), []byte("\n")) + 1
	require.Equal(t, domains, lines, "lines of %s", res.ResultsKey)
}

// requireContract asserts that every domain of a contract batch ran, that
// its evidence objects are in the bucket, and that every seed it recorded
// has exactly one contract version. It returns the number of seeds.
// With evidenceOnce, each domain must have exactly one evidence object:
// no contract run was repeated.
func (c *cluster) requireContract(t testing.TB, id string, b seedengine.Batch, domains int, evidenceOnce bool) int {
	t.Helper()
	var res struct {
		Created []string `json:"created"`
		Domains []struct {
			DomainID string `json:"domain_id"`
			Evidence string `json:"evidence"`
		} `json:"domains"`
	}
	require.NoError(t, json.Unmarshal(b.Result, &res))
	require.Len(t, res.Domains, domains, "domains run by contract batch %s", id)
	evidence := c.s3.objects(t, "prod/contracts/")
	perDomain := map[string]int{}
	for _, d := range res.Domains {
		require.Contains(t, evidence, d.Evidence, "evidence of %s", d.DomainID)
		perDomain[d.DomainID]++
	}
	for d, n := range perDomain {
		require.Equal(t, 1, n, "domain %s in batch %s's result %d times", d, id, n)
		if evidenceOnce {
			_, _, host, err := seedengine.ParseDomainID(d)
			require.NoError(t, err)
			var objs []string
			for k := range evidence {
				if strings.HasPrefix(k, "prod/contracts/"+host+"/") {
					objs = append(objs, k)
				}
			}
			require.Len(t, objs, 1, "evidence objects of %s: the contract run was repeated", d)
		}
	}

	var seeds []string
	after := ""
	for {
		path := "/api/v1/seeds?limit=100&batch_id=" + id
		if after != "" {
			path += "&after=" + after
		}
		r := c.do(http.MethodGet, path, nil)
		require.Equal(t, http.StatusOK, r.status, "%s", r.raw)
		for _, it := range r.body["items"].([]any) {
			seeds = append(seeds, it.(map[string]any)["seed_id"].(string))
		}
		next, _ := r.body["next_after"].(string)
		if next == "" {
			break
		}
		after = next
	}
	require.ElementsMatch(t, res.Created, seeds, "seeds recorded by contract batch %s", id)
	for _, s := range seeds {
		r := c.do(http.MethodGet, "/api/v1/seeds/"+s+"/versions", nil)
		require.Equal(t, http.StatusOK, r.status, "%s", r.raw)
		require.EqualValues(t, 1, r.body["total"], "seed %s must have one version after one contract batch: %s", s, r.raw)
		v := r.body["items"].([]any)[0].(map[string]any)
		require.EqualValues(t, 1, v["version"], "seed %s", s)
	}
	return len(seeds)
}

// dbCount runs a count query on the cluster's database.
func (c *cluster) dbCount(query string, args ...any) (int, error) {
	db, err := sql.Open("pgx", c.pgURL)
	if err != nil {
		return 0, err
	}
	defer db.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var n int
	err = db.QueryRowContext(ctx, query, args...).Scan(&n)
	return n, err
}

// dumpOnFailure logs each process's last warnings and errors when t failed.
func (c *cluster) dumpOnFailure(t testing.TB) {
	t.Cleanup(func() {
		if !t.Failed() {
			return
		}
		for _, p := range c.processes() {
			var warn []map[string]any
			for _, l := range p.logLines() {
				if lv, _ := l["level"].(string); lv == "WARN" || lv == "ERROR" {
					warn = append(warn, l)
				}
			}
			t.Logf("%s (pid %d): last warnings and errors:\n%s", p.name, p.pid(), lastLines(warn, 15))
		}
	})
}
