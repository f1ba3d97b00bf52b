package scaleout_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine"
)

const (
	country  = "sg"
	category = "news"
	date     = "2026-01-28"
)

// workload is one research, one liveness and one contract batch queued
// together, and what they should produce.
type workload struct {
	research, liveness, contract string // batch ids
	urls, domains, contracts     int
	// evidenceOnce: no contract run may be repeated (set where no attempt
	// can fail once it has written evidence).
	evidenceOnce bool
}

type workloadSize struct {
	tag                                  string // keeps the URLs of two workloads apart
	urls, domains, contracts             int
	urlChunk, domainChunk, contractChunk int
	researchLast                         bool // queue liveness and contract first
}

// queueWorkload posts the three batches through the API, one after the
// other, on sites of the simulated web not used before.
func (c *cluster) queueWorkload(sz workloadSize) workload {
	c.t.Helper()
	hosts := c.livenessDomains(sz.domains)
	ids := c.contractDomains(sz.contracts)
	w := workload{urls: sz.urls, domains: sz.domains, contracts: sz.contracts}
	research := func() {
		w.research = c.post("/api/v1/queues/research", map[string]any{
			"country": country, "category": category, "date": date, "urls": researchURLs(sz.tag, sz.urls), "chunkSize": sz.urlChunk})
	}
	if !sz.researchLast {
		research()
	}
	w.liveness = c.post("/api/v1/queues/liveness", map[string]any{"country": country, "domains": hosts, "chunkSize": sz.domainChunk})
	w.contract = c.post("/api/v1/queues/contract", map[string]any{"country": country, "category": category, "domainIds": ids, "chunkSize": sz.contractChunk})
	if sz.researchLast {
		research()
	}
	return w
}

func (w workload) ids() []string { return []string{w.research, w.liveness, w.contract} }

// check waits for the workload's batches and asserts nothing was lost or
// done twice (see checkBatches). It returns how many chunks each process
// recorded.
func (c *cluster) check(t *testing.T, w workload, timeout time.Duration) map[string]int {
	t.Helper()
	return c.checkBatches(t, []workload{w}, c.waitBatches(timeout, w.ids()...))
}

// checkBatches asserts that the workloads' batches completed with
// nothing lost or done twice: each chunk's outcome recorded by exactly one
// run, the raw chunks in the bucket once each and indexed, one liveness
// row and result line per domain, evidence for every contract run and one
// version per seed. Every workload writes research into the same
// partition. It returns how many chunks each process recorded.
func (c *cluster) checkBatches(t *testing.T, ws []workload, batches map[string]seedengine.Batch) map[string]int {
	t.Helper()
	timeouts := map[string]int{}
	for _, w := range ws {
		if n := contractDNSTimeouts(t, w.contract, batches[w.contract]); n > 0 {
			timeouts[w.contract] = n
			t.Logf("contract batch %s: %d domains skipped as unreachable: dns_timeout (a DNS query of the simulated web went unanswered; the machine is loaded)", w.contract, n)
		}
	}
	requireCompleted(t, batches, timeouts)
	byProc := c.requireRecordedOnce(t, batches)
	research := map[string]seedengine.Batch{}
	urls := 0
	for _, w := range ws {
		research[w.research] = batches[w.research]
		urls += w.urls
	}
	c.requireRawChunks(t, country, category, date, research, urls)
	for _, w := range ws {
		c.requireLiveness(t, w.liveness, batches[w.liveness], w.domains)
		seeds := c.requireContract(t, w.contract, batches[w.contract], w.contracts, w.evidenceOnce)
		require.Equal(t, w.contracts-timeouts[w.contract], seeds, "one seed per contract domain")
	}
	return byProc
}

// contractDNSTimeouts returns how many domains of a contract batch were
// skipped because the fetcher's resolver got no answer in time. On a
// loaded machine the simulated web's DNS server can fall behind the
// processes' bursts (the kernel drops queries), and the fetcher's
// resolver does not ask again within its 5 s: such a domain is a failed
// item, which the tests tolerate and log. Any other skip fails the test:
// every contract domain is a healthy site.
func contractDNSTimeouts(t *testing.T, id string, b seedengine.Batch) int {
	t.Helper()
	var res struct {
		Skipped []struct {
			DomainID string `json:"domain_id"`
			Reason   string `json:"reason"`
			Detail   string `json:"detail"`
		} `json:"skipped"`
	}
	require.NoError(t, json.Unmarshal(b.Result, &res), "contract batch %s", id)
	for _, sk := range res.Skipped {
		require.True(t, sk.Reason == "unreachable" && sk.Detail == "dns_timeout",
			"contract batch %s skipped %s: %s %s", id, sk.DomainID, sk.Reason, sk.Detail)
	}
	return len(res.Skipped)
}

// waitProgress waits until at least frac of the chunks of the batches
// are done.
func (c *cluster) waitProgress(t *testing.T, frac float64, ids ...string) {
	t.Helper()
	poll(t, 60*time.Second, 100*time.Millisecond, fmt.Sprintf("%.0f%% of the chunks done", 100*frac), func() (bool, error) {
		done, total := 0, 0
		for _, id := range ids {
			b, err := c.batch(id)
			if err != nil {
				return false, err
			}
			done += b.Chunks.Done
			total += b.Chunks.Total
		}
		return float64(done) >= frac*float64(total), fmt.Errorf("%d of %d chunks done", done, total)
	})
}

// requireAlive asserts that no process of the cluster has exited.
func (c *cluster) requireAlive(t *testing.T) {
	t.Helper()
	c.mu.Lock()
	procs := append([]*proc{c.serve}, c.workers...)
	c.mu.Unlock()
	for _, p := range procs {
		if !p.alive() {
			t.Fatalf("%s exited (%v): %s", p.name, p.waitErr, lastLines(p.logLines(), 10))
		}
	}
}

// waitReady polls /health/ready until cond holds for its status and
// checks.
func (c *cluster) waitReady(t *testing.T, timeout time.Duration, what string, cond func(status int, checks map[string]string) bool) {
	t.Helper()
	poll(t, timeout, 100*time.Millisecond, what, func() (bool, error) {
		status, checks, err := c.readiness()
		if err != nil {
			return false, err
		}
		return cond(status, checks), fmt.Errorf("ready: %d %v", status, checks)
	})
}

// failedAttempts counts the job_failed events of the batches' chunks.
func (c *cluster) failedAttempts(ids ...string) int {
	want := map[string]bool{}
	for _, id := range ids {
		want[id] = true
	}
	n := 0
	for _, e := range c.jobEvents() {
		if e.event == "job_failed" && want[e.batchID] {
			n++
		}
	}
	return n
}

// requireStillRunning asserts that some of the batches have not finished,
// so what the test does next happens in the middle of the work.
func (c *cluster) requireStillRunning(t *testing.T, ids ...string) {
	t.Helper()
	var open []string
	for _, id := range ids {
		b, err := c.batch(id)
		require.NoError(t, err)
		if !b.Status.Finished() {
			open = append(open, fmt.Sprintf("%s %d/%d", b.Kind, b.Chunks.Done, b.Chunks.Total))
		}
	}
	require.NotEmpty(t, open, "every batch finished already: the test would break nothing in the middle of the work")
	t.Logf("unfinished batches: %s", strings.Join(open, ", "))
}

// 2. A worker killed with SIGKILL while it holds chunks of every kind: the
// other processes run those chunks again and every batch completes, with
// no raw chunk written twice, no seed version added twice and no liveness
// row lost.
//
// The harness holds every object write in a proxy in front of versitygw
// (one listener per process), so chunks stay in flight: serve and worker1
// (10 workers each) fill up first; then worker2 starts and takes the next
// ten chunks in queue order, which, as the batches are small and queued in
// rounds of research, liveness, contract (two chunks each), hold every
// kind. Once the proxy holds a write of each kind from worker2, it is
// killed, and the held writes of the others go through.
func TestKillWorkerHoldingChunks(t *testing.T) {
	t.Parallel()
	extra := []string{"--workers", "10"}
	// serve and worker1 saturate: 10 default-queue chunks each, and as
	// many liveness chunks as their queue of its own takes.
	saturated := 20
	if hasFlag("liveness-workers") {
		extra = append(extra, "--liveness-workers", "2")
		saturated = 24
	}
	rescue := "the heartbeat rescue (--dead-process-after, default 1m)"
	if !hasFlag("dead-process-after") {
		extra = append(extra, "--job-timeout", "15s", "--job-rescue-after", "20s")
		rescue = "River's rescuer (--job-rescue-after 20s)"
	}
	c := newCluster(t, clusterConfig{workers: 1, gate: true, extra: extra, sites: 600})
	c.dumpOnFailure(t)
	c.gate.shutGate()

	const rounds = 8
	var ws []workload
	var ids []string
	for r := range rounds {
		w := c.queueWorkload(workloadSize{tag: fmt.Sprintf("k%d", r), urls: 200, domains: 50, contracts: 10, urlChunk: 100, domainChunk: 25, contractChunk: 5})
		// worker2's contract runs were cut off at their first write; with
		// the short --job-timeout of the fallback, held runs may time out.
		w.evidenceOnce = hasFlag("dead-process-after")
		ws = append(ws, w)
		ids = append(ids, w.ids()...)
	}
	running := func(want int) func() (bool, error) {
		return func() (bool, error) {
			n, err := c.dbCount(`SELECT count(*) FROM river_job WHERE state = 'running' AND kind LIKE '%_chunk'`)
			return n == want, fmt.Errorf("%d chunk jobs running (%v)", n, err)
		}
	}
	poll(t, 60*time.Second, 50*time.Millisecond, "serve and worker1 hold all the chunks they can", running(saturated))

	victim := c.startProc("worker2")
	poll(t, 60*time.Second, 50*time.Millisecond, "worker2 holds a write of each kind", func() (bool, error) {
		held := c.gate.heldBy("worker2")
		return held["research"] > 0 && held["liveness"] > 0 && held["contract"] > 0, fmt.Errorf("held: %v", held)
	})
	t.Logf("worker2 (pid %d) holds writes %v; killing it", victim.pid(), c.gate.heldBy("worker2"))
	victim.kill(t)
	killed := time.Now()
	poll(t, 10*time.Second, 20*time.Millisecond, "the proxy lets go of worker2's writes", func() (bool, error) {
		held := c.gate.heldBy("worker2")
		return len(held) == 0, fmt.Errorf("held: %v", held)
	})
	c.gate.openGate()

	batches := c.waitBatches(150*time.Second, ids...)
	t.Logf("all %d batches finished %v after the kill, through %s; rescue events: %v", len(ids), time.Since(killed).Round(time.Second), rescue, c.eventCounts(rescueEvents...))
	if hasFlag("dead-process-after") {
		require.Positive(t, c.eventCounts("queue_process_dead")["queue_process_dead"], "a process must have taken worker2 for dead")
	}
	byProc := c.checkBatches(t, ws, batches)
	require.Zero(t, byProc[victim.name], "worker2 was killed before it could record anything")
	t.Logf("chunks recorded per process: %v", byProc)
}

// 1. A 10,000-URL research batch, a 1,000-domain liveness batch and a
// 200-domain contract batch queued together run on all the processes and
// complete, every chunk once.
func TestAllAtOnce(t *testing.T) {
	t.Parallel()
	c := newCluster(t, clusterConfig{})
	c.dumpOnFailure(t)
	start := time.Now()
	w := c.queueWorkload(workloadSize{tag: "a", urls: 10_000, domains: 1_000, contracts: 200, urlChunk: 100, domainChunk: 50, contractChunk: 20})
	w.evidenceOnce = true
	byProc := c.check(t, w, 2*time.Minute)
	t.Logf("done in %v; chunks recorded per process: %v", time.Since(start).Round(time.Millisecond), byProc)
	require.GreaterOrEqual(t, len(byProc), 2, "more than one process must have done work: %v", byProc)
}

// readiness returns /health/ready's status and its checks by name.
func (c *cluster) readiness() (int, map[string]string, error) {
	r, err := c.api().try(http.MethodGet, "/health/ready", nil)
	if err != nil {
		return 0, nil, err
	}
	checks := map[string]string{}
	if m, ok := r.body["checks"].(map[string]any); ok {
		for name, v := range m {
			if cm, ok := v.(map[string]any); ok {
				checks[name], _ = cm["status"].(string)
			}
		}
	}
	return r.status, checks, nil
}

// 3. S3 stopped for 20 s in the middle of the batches: readiness turns 503
// naming the object store, chunk jobs fail their attempts and are retried,
// and once S3 is back every batch completes with nothing lost. Default job
// settings (four workers per process, so the batches last long enough).
func TestObjectStoreOutage(t *testing.T) {
	t.Parallel()
	c := newCluster(t, clusterConfig{extra: []string{"--workers", "4"}, sites: 800})
	c.dumpOnFailure(t)
	w := c.queueWorkload(workloadSize{tag: "s", urls: 4000, domains: 600, contracts: 60, urlChunk: 20, domainChunk: 10, contractChunk: 5})
	c.waitProgress(t, 0.2, w.ids()...)
	c.requireStillRunning(t, w.ids()...)

	c.s3.stop()
	stopped := time.Now()
	c.waitReady(t, 20*time.Second, "readiness names the object store", func(status int, checks map[string]string) bool {
		return status == http.StatusServiceUnavailable && checks["object_store"] == "fail" && checks["database"] == "ok"
	})
	// A route that reads the store answers 503 with Retry-After.
	r := c.do(http.MethodGet, fmt.Sprintf("/api/v1/datasets/%s/%s/%s/raw_0001", country, category, date), nil)
	require.Equal(t, http.StatusServiceUnavailable, r.status, "a chunk download while S3 is down: %s", r.raw)
	require.NotEmpty(t, r.header.Get("Retry-After"), "503 without Retry-After")
	require.Equal(t, "unavailable", r.body["code"], "%s", r.raw)
	time.Sleep(time.Until(stopped.Add(20 * time.Second))) // the outage itself
	require.NoError(t, c.s3.start())
	back := time.Now()
	c.waitReady(t, 20*time.Second, "ready again", func(status int, _ map[string]string) bool { return status == http.StatusOK })

	batches := c.waitBatches(150*time.Second, w.ids()...)
	t.Logf("batches finished %v after S3 came back", time.Since(back).Round(time.Second))
	failed := c.failedAttempts(w.ids()...)
	require.Positive(t, failed, "chunk jobs must have failed attempts while S3 was down")
	byProc := c.checkBatches(t, []workload{w}, batches)
	c.requireAlive(t)
	t.Logf("failed attempts: %d; chunks recorded per process: %v", failed, byProc)
}

// 4. PostgreSQL stopped for 20 s in the middle of the batches and started
// again, on a cluster of the test's own: readiness is 503 meanwhile, no
// process exits, and the batches complete within 90 s of the database's
// return with DEFAULT job settings (--job-rescue-after 15m): jobs whose
// outcome River could not record during the outage must not wait for
// River's rescuer.
func TestPostgresRestart(t *testing.T) {
	t.Parallel()
	pg, url := newOwnCluster(t)
	c := newCluster(t, clusterConfig{pgURL: url, extra: []string{"--workers", "4"}, sites: 800})
	c.dumpOnFailure(t)
	w := c.queueWorkload(workloadSize{tag: "p", urls: 4000, domains: 600, contracts: 60, urlChunk: 20, domainChunk: 10, contractChunk: 5})
	c.waitProgress(t, 0.2, w.ids()...)
	c.requireStillRunning(t, w.ids()...)

	require.NoError(t, pg.ctl("stop"))
	stopped := time.Now()
	c.waitReady(t, 20*time.Second, "readiness names the database", func(status int, checks map[string]string) bool {
		return status == http.StatusServiceUnavailable && checks["database"] == "fail"
	})
	// The API answers 503 with Retry-After.
	r := c.do(http.MethodGet, "/api/v1/queues/batch/"+w.research, nil)
	require.Equal(t, http.StatusServiceUnavailable, r.status, "a batch read while PostgreSQL is down: %s", r.raw)
	require.NotEmpty(t, r.header.Get("Retry-After"), "503 without Retry-After")
	// A worker started now waits for the database (--db-wait) instead of
	// exiting.
	var late *proc
	if hasFlag("db-wait") {
		late = c.launchProc("worker3")
	}
	time.Sleep(time.Until(stopped.Add(20 * time.Second))) // the outage itself
	c.requireAlive(t)
	if late != nil {
		if !late.alive() {
			t.Fatalf("worker3, started while PostgreSQL was down, exited (%v): %s", late.waitErr, lastLines(late.logLines(), 5))
		}
	}
	require.NoError(t, pg.ctl("start"))
	back := time.Now()
	c.waitReady(t, 30*time.Second, "ready again", func(status int, _ map[string]string) bool { return status == http.StatusOK })
	if late != nil {
		late.waitStarted(t, 60*time.Second)
		c.adopt("worker3", late)
		t.Logf("worker3, started during the outage, began working %v after PostgreSQL came back", time.Since(back).Round(100*time.Millisecond))
	}

	batches := c.waitBatches(90*time.Second-time.Since(back), w.ids()...)
	t.Logf("batches finished %v after PostgreSQL came back; rescue events: %v", time.Since(back).Round(time.Second), c.eventCounts(rescueEvents...))
	byProc := c.checkBatches(t, []workload{w}, batches)
	c.requireAlive(t)
	t.Logf("chunks recorded per process: %v", byProc)
}

// 5. Every process in turn stopped with SIGTERM and started again with the
// same settings while the batches run, the next one once the restarted
// process has recorded a chunk: nothing lost, nothing done twice. A short
// --shutdown-timeout lets a shutdown cut chunks short, to run again.
func TestRollingRestart(t *testing.T) {
	t.Parallel()
	extra := []string{"--workers", "4", "--shutdown-timeout", "3s"}
	if hasFlag("liveness-workers") {
		// Two liveness chunks at a time per process keep the liveness
		// batch running through the three restarts, as when it shared
		// the four workers with the others.
		extra = append(extra, "--liveness-workers", "2")
	}
	c := newCluster(t, clusterConfig{extra: extra, sites: 1300})
	c.dumpOnFailure(t)
	w := c.queueWorkload(workloadSize{tag: "r", urls: 6000, domains: 1000, contracts: 60, urlChunk: 20, domainChunk: 10, contractChunk: 5, researchLast: true})
	c.waitProgress(t, 0.05, w.ids()...)
	for _, name := range []string{"worker1", "worker2", "serve"} {
		c.requireStillRunning(t, w.ids()...)
		c.mu.Lock()
		p := c.serve
		if name != "serve" {
			i, _ := strconv.Atoi(strings.TrimPrefix(name, "worker"))
			p = c.workers[i-1]
		}
		c.mu.Unlock()
		start := time.Now()
		np := c.restart(p)
		t.Logf("%s restarted in %v", name, time.Since(start).Round(time.Millisecond))
		// The restarted process records a chunk, unless the others
		// finished the work first (the last chunks were theirs while it
		// started): then there is nothing left for it to take.
		poll(t, 60*time.Second, 50*time.Millisecond, np.name+" records a chunk", func() (bool, error) {
			for _, e := range c.jobEvents() {
				if e.proc == np.name && e.event == "job_completed" && e.recorded {
					return true, nil
				}
			}
			for _, id := range w.ids() {
				b, err := c.batch(id)
				if err != nil || !b.Status.Finished() {
					return false, nil
				}
			}
			t.Logf("%s restarted as the last chunks finished: none left for it", np.name)
			return true, nil
		})
	}
	byProc := c.check(t, w, 2*time.Minute)
	interrupted := 0
	for _, e := range c.jobEvents() {
		if e.event == "job_interrupted" {
			interrupted++
		}
	}
	t.Logf("chunks recorded per process: %v; jobs cut short by a shutdown: %d", byProc, interrupted)
}
