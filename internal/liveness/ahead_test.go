package liveness_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/miekg/dns"
	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/discover"
	"github.com/seedengine/seedengine/internal/fetch"
	"github.com/seedengine/seedengine/internal/liveness"
	"github.com/seedengine/seedengine/internal/simweb"
	"github.com/seedengine/seedengine/internal/simweb/simwebtest"
)

// stallingDNS starts a DNS server on loopback that answers A 127.0.0.1
// for the names in live at once and holds every other question until
// release is closed, then answers it SERVFAIL. It returns its address.
func stallingDNS(t *testing.T, live map[string]bool, release <-chan struct{}) string {
	t.Helper()
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	require.NoError(t, err)
	started := make(chan struct{})
	srv := &dns.Server{
		PacketConn:        pc,
		NotifyStartedFunc: func() { close(started) },
		Handler: dns.HandlerFunc(func(w dns.ResponseWriter, r *dns.Msg) {
			q := r.Question[0]
			m := new(dns.Msg)
			m.SetReply(r)
			if live[strings.TrimSuffix(strings.ToLower(q.Name), ".")] {
				if q.Qtype == dns.TypeA {
					m.Answer = append(m.Answer, &dns.A{
						Hdr: dns.RR_Header{Name: q.Name, Rrtype: dns.TypeA, Class: dns.ClassINET, Ttl: 60},
						A:   net.IPv4(127, 0, 0, 1).To4(),
					})
				}
				_ = w.WriteMsg(m)
				return
			}
			<-release
			m.SetRcode(r, dns.RcodeServerFailure)
			_ = w.WriteMsg(m)
		}),
	}
	go func() { _ = srv.ActivateAndServe() }()
	<-started
	t.Cleanup(func() { _ = srv.Shutdown() })
	return pc.LocalAddr().String()
}

// A name whose DNS has not answered holds no fetch slot: in a chunk that
// starts with twice ChunkConcurrency such names, the live host at its end
// is fetched while all of them are still waiting for their answers, and
// they get their verdict from DNS alone, never fetched.
func TestChunkLookupsAhead(t *testing.T) {
	t.Parallel()
	const live = "live.example"
	w := simwebtest.Start(t)
	w.AddSite(simweb.Site{Host: live})
	release := make(chan struct{})
	var releaseOnce sync.Once
	unstall := func() { releaseOnce.Do(func() { close(release) }) }
	addr := stallingDNS(t, map[string]bool{live: true}, release)
	t.Cleanup(unstall) // runs before the server's shutdown, which waits for its handlers
	c := simwebtest.ClientWith(t, w, func(cfg *fetch.Config) {
		cfg.DNSServer = addr
		cfg.DNSTimeout = time.Minute // only release ends the stalled lookups
	})
	p := liveness.New(c, liveness.Config{RetryDelay: 10 * time.Millisecond})

	var domains []string
	for i := range 2 * liveness.ChunkConcurrency {
		domains = append(domains, fmt.Sprintf("stalled-%02d.example", i))
	}
	domains = append(domains, live)
	fetched := make(chan struct{})
	var fetchedOnce sync.Once
	w.Observe(func(r *http.Request) {
		if h, _, _ := strings.Cut(r.Host, ":"); h == live {
			fetchedOnce.Do(func() { close(fetched) })
		}
	})

	store := &fakeStore{results: map[string]seedengine.LivenessResult{}}
	proc := liveness.ChunkProcessor(p, discover.DefaultClassifier(), store, &fakeObjects{objects: map[string]string{}})
	input, err := json.Marshal(liveness.ChunkInput{Domains: domains})
	require.NoError(t, err)
	b := &seedengine.Batch{ID: "B1", Kind: seedengine.BatchLiveness, Country: "sg", ChunkSize: len(domains),
		Params: json.RawMessage(`{"date":"2026-01-28"}`)}
	type done struct {
		out seedengine.ChunkOutcome
		err error
	}
	doneC := make(chan done, 1)
	go func() {
		out, err := proc(t.Context(), b, &seedengine.BatchChunk{BatchID: "B1", Input: input, Items: len(domains)})
		doneC <- done{out, err}
	}()
	select {
	case <-fetched:
	case <-time.After(30 * time.Second):
		t.Fatal("the live host was not fetched while the other names waited for DNS")
	}
	unstall()
	d := <-doneC
	require.NoError(t, d.err)

	var res liveness.ChunkResult
	require.NoError(t, json.Unmarshal(d.out.Result, &res))
	require.Equal(t, map[seedengine.Verdict]int{seedengine.VerdictAlive: 1, seedengine.VerdictDead: 2 * liveness.ChunkConcurrency}, res.Verdicts)
	require.Equal(t, liveness.ReasonOK, store.results[live].Reason)
	for _, name := range domains[:len(domains)-1] {
		r := store.results[name]
		require.Equal(t, seedengine.VerdictDead, r.Verdict, name)
		require.Equal(t, fetch.ReasonServfail, r.Reason, name)
		require.Equal(t, 2, r.Rounds, "%s: one failure does not kill a domain", name)
		require.Equal(t, "SERVFAIL", r.DNS.Rcode, name)
		require.Empty(t, r.Attempts, name)
		require.Zero(t, w.Requests(name), name)
	}
}

// A liveness batch over the benchmark's mix of sites (bench/liveness.sh:
// 10 % dead, 5 % slow, 5 % blocked), its chunks run at once with few
// lookup slots, gives every domain the verdict and reason of its
// scenario.
func TestChunksVerdictsOnBenchMix(t *testing.T) {
	t.Parallel()
	w := simwebtest.Start(t)
	mix, err := simweb.ParseMix("dead=0.1,slow=0.05,blocked=0.05")
	require.NoError(t, err)
	sites := w.Generate(200, mix)
	for _, s := range sites {
		if s.Scenario == simweb.ScenarioSlow {
			s.Delay = 200 * time.Millisecond // slow, within the request timeout
			w.AddSite(s)
		}
	}
	c := simwebtest.ClientWith(t, w, func(cfg *fetch.Config) {
		cfg.DNSTimeout = 2 * time.Second
		cfg.RequestTimeout = 5 * time.Second
	})
	// Fewer lookup slots than the chunks' names, so that lookups wait for
	// slots held by names that time out.
	p := liveness.New(c, liveness.Config{RetryDelay: 10 * time.Millisecond, Lookups: 8})

	type want struct {
		verdict seedengine.Verdict
		reason  string
	}
	wants := map[simweb.Scenario]want{
		simweb.ScenarioHealthy:     {seedengine.VerdictAlive, liveness.ReasonOK},
		simweb.ScenarioSlow:        {seedengine.VerdictAlive, liveness.ReasonOK},
		simweb.ScenarioNXDomain:    {seedengine.VerdictDead, fetch.ReasonNXDomain},
		simweb.ScenarioRefused:     {seedengine.VerdictDead, fetch.ReasonConnectRefused},
		simweb.ScenarioServFail:    {seedengine.VerdictDead, fetch.ReasonServfail},
		simweb.ScenarioDNSTimeout:  {seedengine.VerdictDead, fetch.ReasonDNSTimeout},
		simweb.ScenarioBotWall:     {seedengine.VerdictBlocked, liveness.ReasonHTTP403},
		simweb.ScenarioRateLimited: {seedengine.VerdictBlocked, liveness.ReasonHTTP429},
		simweb.ScenarioChallenge:   {seedengine.VerdictBlocked, liveness.ReasonChallenge},
	}
	wantCounts := map[seedengine.Verdict]int{}
	for _, s := range sites {
		wt, ok := wants[s.Scenario]
		require.True(t, ok, "scenario %s is not in the benchmark's mix", s.Scenario)
		wantCounts[wt.verdict]++
	}
	require.Equal(t, map[seedengine.Verdict]int{seedengine.VerdictAlive: 170, seedengine.VerdictDead: 20, seedengine.VerdictBlocked: 10}, wantCounts)

	store := &fakeStore{results: map[string]seedengine.LivenessResult{}}
	proc := liveness.ChunkProcessor(p, discover.DefaultClassifier(), store, &fakeObjects{objects: map[string]string{}})
	b := &seedengine.Batch{ID: "B1", Kind: seedengine.BatchLiveness, Country: "sg", ChunkSize: 50,
		Params: json.RawMessage(`{"date":"2026-01-28"}`)}
	n := len(sites) / b.ChunkSize
	outs := make([]seedengine.ChunkOutcome, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		var domains []string
		for _, s := range sites[i*b.ChunkSize : (i+1)*b.ChunkSize] {
			domains = append(domains, s.Host)
		}
		input, err := json.Marshal(liveness.ChunkInput{Domains: domains})
		require.NoError(t, err)
		wg.Go(func() {
			outs[i], errs[i] = proc(t.Context(), b, &seedengine.BatchChunk{BatchID: "B1", Index: i, Input: input, Items: len(domains)})
		})
	}
	wg.Wait()
	counts := map[seedengine.Verdict]int{}
	for i := range n {
		require.NoError(t, errs[i])
		var res liveness.ChunkResult
		require.NoError(t, json.Unmarshal(outs[i].Result, &res))
		for v, k := range res.Verdicts {
			counts[v] += k
		}
	}
	require.Equal(t, wantCounts, counts)
	for _, s := range sites {
		r := store.results[s.Host]
		wt := wants[s.Scenario]
		require.Equal(t, wt.verdict, r.Verdict, "%s (%s): %s/%s", s.Host, s.Scenario, r.Reason, r.Detail)
		require.Equal(t, wt.reason, r.Reason, "%s (%s)", s.Host, s.Scenario)
		if wt.verdict == seedengine.VerdictDead {
			require.Equal(t, 2, r.Rounds, "%s: one failure does not kill a domain", s.Host)
		}
	}
}

// runChunk runs one chunk of domains through proc as chunk index of
// batch B1.
func runChunk(t *testing.T, proc func(context.Context, *seedengine.Batch, *seedengine.BatchChunk) (seedengine.ChunkOutcome, error), index int, domains []string) liveness.ChunkResult {
	t.Helper()
	input, err := json.Marshal(liveness.ChunkInput{Domains: domains})
	require.NoError(t, err)
	b := &seedengine.Batch{ID: "B1", Kind: seedengine.BatchLiveness, Country: "sg", ChunkSize: 50,
		Params: json.RawMessage(`{"date":"2026-01-28"}`)}
	out, err := proc(t.Context(), b, &seedengine.BatchChunk{BatchID: "B1", Index: index, Input: input, Items: len(domains)})
	require.NoError(t, err)
	var res liveness.ChunkResult
	require.NoError(t, json.Unmarshal(out.Result, &res))
	return res
}

// Chunks running at once fetch Config.Fetches domains at a time, all
// together: twelve slow hosts in two chunks, two fetches at a time,
// take at least six of their delays.
func TestChunksShareFetches(t *testing.T) {
	t.Parallel()
	const delay = 150 * time.Millisecond
	var sites []simweb.Site
	var chunks [2][]string
	for i := range 12 {
		s := simweb.Site{Host: fmt.Sprintf("slow-%02d.example", i), Scenario: simweb.ScenarioSlow, Delay: delay}
		sites = append(sites, s)
		chunks[i%2] = append(chunks[i%2], s.Host)
	}
	_, c := setup(t, sites, 5*time.Second)
	p := liveness.New(c, liveness.Config{Fetches: 2})
	proc := liveness.ChunkProcessor(p, discover.DefaultClassifier(), &fakeStore{results: map[string]seedengine.LivenessResult{}}, &fakeObjects{objects: map[string]string{}})

	start := time.Now()
	var wg sync.WaitGroup
	for i, domains := range chunks {
		wg.Go(func() {
			res := runChunk(t, proc, i, domains)
			require.Equal(t, map[seedengine.Verdict]int{seedengine.VerdictAlive: len(domains)}, res.Verdicts)
		})
	}
	wg.Wait()
	require.GreaterOrEqual(t, time.Since(start), 6*delay)
}

// A domain waiting for its retry gives its fetch slot back: with one
// slot, a refused host's wait lets the live host of its chunk be fetched.
func TestRetryFreesFetchSlot(t *testing.T) {
	t.Parallel()
	const refused, live = "refused.example", "live.example"
	w, c := setup(t, []simweb.Site{{Host: refused, Scenario: simweb.ScenarioRefused}, {Host: live}}, 5*time.Second)
	fetched := make(chan struct{})
	var once sync.Once
	w.Observe(func(r *http.Request) {
		if h, _, _ := strings.Cut(r.Host, ":"); h == live {
			once.Do(func() { close(fetched) })
		}
	})
	// One lookup at a time: the refused host, first in the chunk, is
	// ready first and takes the one fetch slot.
	p := liveness.New(c, liveness.Config{Fetches: 1, Lookups: 1, RetryDelay: 10 * time.Millisecond})
	liveness.SetBeforeRetry(p, func(domain string, round int) {
		if domain != refused {
			return
		}
		select {
		case <-fetched:
		case <-time.After(10 * time.Second):
			t.Error("the live host was not fetched while the refused one waited for its retry")
		}
	})
	proc := liveness.ChunkProcessor(p, discover.DefaultClassifier(), &fakeStore{results: map[string]seedengine.LivenessResult{}}, &fakeObjects{objects: map[string]string{}})
	res := runChunk(t, proc, 0, []string{refused, live})
	require.Equal(t, map[seedengine.Verdict]int{seedengine.VerdictAlive: 1, seedengine.VerdictDead: 1}, res.Verdicts)
}
