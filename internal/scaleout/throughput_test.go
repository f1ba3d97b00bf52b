package scaleout_test

import (
	"database/sql"
	"fmt"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine"
)

// TestThroughput measures the deployment's throughput on PostgreSQL and
// versitygw with 1, 2 and 4 worker processes beside an API-only serve
// (serve --workers 0, where the build has it): a 1,000,000-URL research
// run (100 batches of 10,000 URLs, posted four at a time) and a
// 100,000-domain liveness run (10 batches of 10,000 domains) on a
// simulated web of 100,000 sites with bench/liveness.sh's mix (10 % dead,
// 5 % slow, 5 % blocked) at default politeness. Each run gets a fresh
// database, bucket and processes with default settings; PostgreSQL is a
// cluster of the test's own with fsync on. It reports the wall time from
// the first POST to the last batch finished, the rate, each process's
// peak RSS (VmHWM) and the CPU seconds of the seedengine processes,
// PostgreSQL and versitygw.
//
// Opt-in (minutes): not run by CI.
//
//	SEEDENGINE_SCALEOUT_BENCH=1 SEEDENGINE_TEST_POSTGRES_URL=postgres://postgres@127.0.0.1:5432/test?sslmode=disable \
//	  go test -count=1 -timeout 2h -run TestThroughput -v ./internal/scaleout/
//
// Knobs: SEEDENGINE_SCALEOUT_BENCH_KINDS (research,liveness),
// _WORKERS (1,2,4), _RUNS (3), _URLS (1000000), _DOMAINS (100000),
// _CHUNK (research chunkSize, 100), _FLAGS (more flags for every
// process, space-separated, e.g. "--workers 10"), _PARTITIONS (research: "batch", one
// partition per batch, or "one"), _PGSTATS (1: load pg_stat_statements
// and log each run's 15 statements of most server time).
func TestThroughput(t *testing.T) {
	if os.Getenv("SEEDENGINE_SCALEOUT_BENCH") != "1" {
		t.Skip("set SEEDENGINE_SCALEOUT_BENCH=1 to measure throughput (takes many minutes)")
	}
	kinds := strings.Split(envOr("SEEDENGINE_SCALEOUT_BENCH_KINDS", "research,liveness"), ",")
	var workerCounts []int
	for _, f := range strings.Split(envOr("SEEDENGINE_SCALEOUT_BENCH_WORKERS", "1,2,4"), ",") {
		n, err := strconv.Atoi(f)
		require.NoError(t, err)
		workerCounts = append(workerCounts, n)
	}
	runs := envInt(t, "SEEDENGINE_SCALEOUT_BENCH_RUNS", 3)
	urls := envInt(t, "SEEDENGINE_SCALEOUT_BENCH_URLS", 1_000_000)
	domains := envInt(t, "SEEDENGINE_SCALEOUT_BENCH_DOMAINS", 100_000)
	chunk := envInt(t, "SEEDENGINE_SCALEOUT_BENCH_CHUNK", 100)
	perBatchPartition := envOr("SEEDENGINE_SCALEOUT_BENCH_PARTITIONS", "batch") == "batch"
	extraFlags := strings.Fields(os.Getenv("SEEDENGINE_SCALEOUT_BENCH_FLAGS"))

	if os.Getenv("SEEDENGINE_TEST_POSTGRES_URL") == "" {
		t.Skip("SEEDENGINE_TEST_POSTGRES_URL is not set")
	}
	if why := canCreateCluster(); why != "" {
		t.Skipf("the throughput runs need a PostgreSQL cluster of their own: %s", why)
	}
	var pgOptions []string
	pgStats := os.Getenv("SEEDENGINE_SCALEOUT_BENCH_PGSTATS") == "1"
	if pgStats {
		pgOptions = append(pgOptions, "shared_preload_libraries=pg_stat_statements", "pg_stat_statements.track=all")
	}
	pg, err := createPGCluster(500, true, pgOptions...)
	require.NoError(t, err)
	t.Cleanup(func() { _ = pg.drop() })

	var serveExtra []string
	if strings.Contains(workerHelp, "--workers 0") {
		serveExtra = []string{"--workers", "0"}
	}
	type result struct {
		kind    string
		workers int
		wall    time.Duration
		items   int
	}
	var results []result
	for _, kind := range kinds {
		for _, n := range workerCounts {
			for run := 1; run <= runs; run++ {
				t.Run(fmt.Sprintf("%s/workers=%d/run=%d", kind, n, run), func(t *testing.T) {
					pgURL := pg.createDatabase(t)
					if pgStats {
						resetStatements(t, pgURL)
					}
					cfg := clusterConfig{workers: n, pgURL: pgURL, serveExtra: serveExtra, sites: 10, fullPriority: true, extra: extraFlags}
					if kind == "liveness" {
						cfg.sites, cfg.mix, cfg.polite = domains, "dead=0.1,slow=0.05,blocked=0.05", true
					}
					c := newCluster(t, cfg)
					c.dumpOnFailure(t)
					var bodies []any
					items := 0
					switch kind {
					case "research":
						for b := 0; b*10_000 < urls; b++ {
							d := date
							if perBatchPartition {
								d = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, b).Format(seedengine.DateLayout)
							}
							u := researchURLs(fmt.Sprintf("b%d", b), min(10_000, urls-b*10_000))
							items += len(u)
							bodies = append(bodies, map[string]any{"country": country, "category": category, "date": d, "urls": u, "chunkSize": chunk})
						}
					case "liveness":
						for b := 0; b*10_000 < domains; b++ {
							h := c.livenessDomains(min(10_000, domains-b*10_000))
							items += len(h)
							bodies = append(bodies, map[string]any{"country": country, "domains": h})
						}
					default:
						t.Fatalf("unknown kind %q", kind)
					}
					path := "/api/v1/queues/" + kind
					cpu0, busy0, load0 := c.cpuSeconds(t, pg), machineBusy(), loadAverage()
					start := time.Now()
					ids := c.postAll(path, bodies, 4)
					posted := time.Since(start)
					batches := c.waitFinished(20*time.Minute, ids)
					wall := time.Since(start)
					cpu1, busy1 := c.cpuSeconds(t, pg), machineBusy()
					for id, b := range batches {
						require.Equal(t, seedengine.BatchCompleted, b.Status, "%s batch %s: %+v %+v", kind, id, b.Chunks, b.Items)
					}
					var rss []string
					for _, p := range c.processes() {
						rss = append(rss, fmt.Sprintf("%s %.0f MiB", p.name, float64(vmHWM(p.pid()))/(1<<20)))
					}
					var cpu []string
					for _, k := range slices.Sorted(maps.Keys(cpu1)) {
						cpu = append(cpu, fmt.Sprintf("%s %.1f s", k, cpu1[k]-cpu0[k]))
					}
					t.Logf("%s, %d worker processes: %d items in %v (posted in %v): %.0f items/s; machine CPU busy %.0f%%, load average %s → %s; CPU %s; peak RSS %s",
						kind, n, items, wall.Round(100*time.Millisecond), posted.Round(100*time.Millisecond), float64(items)/wall.Seconds(),
						100*busyBetween(busy0, busy1), load0, loadAverage(), strings.Join(cpu, ", "), strings.Join(rss, ", "))
					results = append(results, result{kind, n, wall, items})
					if pgStats {
						logStatements(t, pgURL, 15)
					}
				})
			}
		}
	}
	t.Log("summary (wall time, min–median–max, and rate at the median):")
	for _, kind := range kinds {
		for _, n := range workerCounts {
			var walls []time.Duration
			items := 0
			for _, r := range results {
				if r.kind == kind && r.workers == n {
					walls = append(walls, r.wall)
					items = r.items
				}
			}
			if len(walls) == 0 {
				continue
			}
			slices.Sort(walls)
			med := walls[len(walls)/2]
			t.Logf("  %-8s %d workers: %v – %v – %v  (%.0f/s, %d runs)", kind, n,
				walls[0].Round(100*time.Millisecond), med.Round(100*time.Millisecond), walls[len(walls)-1].Round(100*time.Millisecond),
				float64(items)/med.Seconds(), len(walls))
		}
	}
}

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

func envInt(tb testing.TB, name string, def int) int {
	tb.Helper()
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	require.NoError(tb, err, name)
	return n
}

// postAll posts the bodies to path, at most par at once, and returns the
// batch ids in the order of the bodies.
func (c *cluster) postAll(path string, bodies []any, par int) []string {
	c.t.Helper()
	ids := make([]string, len(bodies))
	errs := make([]error, len(bodies))
	sem := make(chan struct{}, par)
	var wg sync.WaitGroup
	for i, b := range bodies {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			r, err := c.api().try(http.MethodPost, path, b)
			switch {
			case err != nil:
				errs[i] = err
			case r.status != http.StatusAccepted:
				errs[i] = fmt.Errorf("POST %s: %d %s", path, r.status, seedengine.Truncate(string(r.raw), 500))
			default:
				ids[i], _ = r.body["id"].(string)
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		require.NoError(c.t, err)
	}
	return ids
}

// waitFinished waits until every batch has finished, looking at the
// oldest unfinished one every 200 ms (batches run roughly in order, so
// this keeps the polling light), and returns them.
func (c *cluster) waitFinished(timeout time.Duration, ids []string) map[string]seedengine.Batch {
	c.t.Helper()
	out := map[string]seedengine.Batch{}
	next := 0
	poll(c.t, timeout, 200*time.Millisecond, "batches finished", func() (bool, error) {
		for next < len(ids) {
			b, err := c.batch(ids[next])
			if err != nil {
				return false, err
			}
			if !b.Status.Finished() {
				return false, fmt.Errorf("batch %d of %d: %s %d/%d chunks", next+1, len(ids), b.Status, b.Chunks.Done, b.Chunks.Total)
			}
			out[ids[next]] = b
			next++
		}
		return true, nil
	})
	return out
}

// cpuSeconds returns the CPU seconds used so far by each seedengine
// process, by versitygw, and by the PostgreSQL cluster (the postmaster
// and its children now alive).
func (c *cluster) cpuSeconds(tb testing.TB, pg *pgCluster) map[string]float64 {
	tb.Helper()
	out := map[string]float64{}
	for _, p := range c.processes() {
		out[p.name] = procCPU(p.pid())
	}
	c.s3.mu.Lock()
	if c.s3.cmd != nil {
		out["versitygw"] = procCPU(c.s3.cmd.Process.Pid)
	}
	c.s3.mu.Unlock()
	b, err := os.ReadFile(filepath.Join("/var/lib/postgresql", pg.version, pg.name, "postmaster.pid"))
	if err == nil {
		pid, _ := strconv.Atoi(strings.TrimSpace(strings.SplitN(string(b), "\n", 2)[0]))
		// The postmaster's own time and that of the backends it has
		// reaped (a closed connection's backend exits), plus those alive.
		total := procCPU(pid) + reapedCPU(pid)
		entries, _ := os.ReadDir("/proc")
		for _, e := range entries {
			child, err := strconv.Atoi(e.Name())
			if err != nil {
				continue
			}
			if ppid, _ := procStat(child); ppid == pid {
				total += procCPU(child)
			}
		}
		out["postgres"] = total
	}
	return out
}

// procStat returns the parent pid and the user+system CPU seconds of pid
// from /proc/PID/stat; zeros when it has exited.
func procStat(pid int) (int, float64) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, 0
	}
	// The command name, in parentheses, may hold spaces.
	rest := string(b)
	if i := strings.LastIndexByte(rest, ')'); i >= 0 {
		rest = rest[i+2:]
	}
	f := strings.Fields(rest)
	if len(f) < 13 {
		return 0, 0
	}
	ppid, _ := strconv.Atoi(f[1])
	utime, _ := strconv.ParseFloat(f[11], 64)
	stime, _ := strconv.ParseFloat(f[12], 64)
	return ppid, (utime + stime) / 100 // USER_HZ
}

// reapedCPU returns the user+system CPU seconds of the children pid has
// waited for (cutime, cstime of /proc/PID/stat).
func reapedCPU(pid int) float64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	rest := string(b)
	if i := strings.LastIndexByte(rest, ')'); i >= 0 {
		rest = rest[i+2:]
	}
	f := strings.Fields(rest)
	if len(f) < 15 {
		return 0
	}
	cu, _ := strconv.ParseFloat(f[13], 64)
	cs, _ := strconv.ParseFloat(f[14], 64)
	return (cu + cs) / 100
}

func procCPU(pid int) float64 {
	_, s := procStat(pid)
	return s
}

// machineBusy returns the busy and total jiffies of all CPUs.
func machineBusy() [2]float64 {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return [2]float64{}
	}
	line := strings.SplitN(string(b), "\n", 2)[0]
	f := strings.Fields(line)[1:]
	var total, idle float64
	for i, v := range f {
		x, _ := strconv.ParseFloat(v, 64)
		total += x
		if i == 3 || i == 4 { // idle, iowait
			idle += x
		}
	}
	return [2]float64{total - idle, total}
}

// loadAverage is the 1-minute load average: other work on the machine
// shows in it.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	return strings.Fields(string(b))[0]
}

func busyBetween(a, b [2]float64) float64 {
	if b[1] == a[1] {
		return 0
	}
	return (b[0] - a[0]) / (b[1] - a[1])
}

// resetStatements creates pg_stat_statements in the database at url and
// empties it.
func resetStatements(t *testing.T, url string) {
	t.Helper()
	db, err := sql.Open("pgx", url)
	require.NoError(t, err)
	defer func() { _ = db.Close() }()
	_, err = db.Exec(`CREATE EXTENSION IF NOT EXISTS pg_stat_statements`)
	require.NoError(t, err)
	_, err = db.Exec(`SELECT pg_stat_statements_reset()`)
	require.NoError(t, err)
}

// logStatements logs the n statements of the database at url that took
// the most server time since resetStatements.
func logStatements(t *testing.T, url string, n int) {
	t.Helper()
	db, err := sql.Open("pgx", url)
	require.NoError(t, err)
	defer func() { _ = db.Close() }()
	rows, err := db.Query(`SELECT calls, rows, total_exec_time, total_plan_time, left(regexp_replace(query, '\s+', ' ', 'g'), 160)
		FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
		ORDER BY total_exec_time + total_plan_time DESC LIMIT $1`, n)
	require.NoError(t, err)
	defer func() { _ = rows.Close() }()
	var total float64
	require.NoError(t, db.QueryRow(`SELECT COALESCE(sum(total_exec_time + total_plan_time), 0) FROM pg_stat_statements
		WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())`).Scan(&total))
	t.Logf("pg_stat_statements: %.1f s of server time in all; the most:", total/1000)
	for rows.Next() {
		var calls, nrows int64
		var exec, plan float64
		var q string
		require.NoError(t, rows.Scan(&calls, &nrows, &exec, &plan, &q))
		t.Logf("  %7.1f s exec %5.1f s plan  %8d calls %9d rows  %s", exec/1000, plan/1000, calls, nrows, q)
	}
	require.NoError(t, rows.Err())
}
