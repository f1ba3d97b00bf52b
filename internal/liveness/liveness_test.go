package liveness_test

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/fetch"
	"github.com/seedengine/seedengine/internal/liveness"
	"github.com/seedengine/seedengine/internal/simweb"
	"github.com/seedengine/seedengine/internal/simweb/simwebtest"
)

// setup starts a simulated web with sites and returns it with a client
// wired to it as cmd/seedengine wires one.
func setup(t *testing.T, sites []simweb.Site, requestTimeout time.Duration) (*simweb.Web, *fetch.Client) {
	t.Helper()
	return simwebtest.Client(t, sites, requestTimeout)
}

func host(sc simweb.Scenario) string {
	return strings.ReplaceAll(string(sc), "_", "-") + ".example.com"
}

func TestProbeScenarios(t *testing.T) {
	t.Parallel()
	type want struct {
		verdict  seedengine.Verdict
		reason   string
		detail   string
		rounds   int
		redirect bool // a redirect chain was recorded
		left     bool
		fallback bool // answered over plain HTTP
		tlsError string
	}
	alive := want{verdict: seedengine.VerdictAlive, reason: liveness.ReasonOK, rounds: 1}
	dead := func(reason string) want { return want{verdict: seedengine.VerdictDead, reason: reason, rounds: 2} }
	blocked := func(reason string) want { return want{verdict: seedengine.VerdictBlocked, reason: reason, rounds: 1} }
	wants := map[simweb.Scenario]want{
		simweb.ScenarioHealthy:          alive,
		simweb.ScenarioRedirectWWW:      {verdict: seedengine.VerdictAlive, reason: liveness.ReasonOK, rounds: 1, redirect: true},
		simweb.ScenarioRedirectExternal: {verdict: seedengine.VerdictAlive, reason: liveness.ReasonOK, rounds: 1, redirect: true, left: true},
		simweb.ScenarioBotWall:          blocked(liveness.ReasonHTTP403),
		simweb.ScenarioRateLimited:      blocked(liveness.ReasonHTTP429),
		simweb.ScenarioChallenge:        blocked(liveness.ReasonChallenge),
		simweb.ScenarioParked:           {verdict: seedengine.VerdictParked, reason: liveness.ReasonParked, rounds: 1},
		simweb.ScenarioSlow:             dead(fetch.ReasonTimeout),
		simweb.ScenarioReset:            dead(fetch.ReasonConnectReset),
		simweb.ScenarioTLSExpired:       {verdict: seedengine.VerdictAlive, reason: liveness.ReasonOK, rounds: 1, fallback: true, tlsError: fetch.TLSExpired},
		simweb.ScenarioTLSWrongName:     {verdict: seedengine.VerdictAlive, reason: liveness.ReasonOK, rounds: 1, fallback: true, tlsError: fetch.TLSNameMismatch},
		simweb.ScenarioHTTPOnly:         {verdict: seedengine.VerdictAlive, reason: liveness.ReasonOK, rounds: 1, fallback: true},
		simweb.ScenarioServerError:      dead(liveness.ReasonHTTP5xx),
		simweb.ScenarioRedirectLoop:     {verdict: seedengine.VerdictDead, reason: fetch.ReasonTooManyRedirects, detail: "loop", rounds: 2, redirect: true},
		simweb.ScenarioNXDomain:         dead(fetch.ReasonNXDomain),
		simweb.ScenarioServFail:         {verdict: seedengine.VerdictDead, reason: fetch.ReasonServfail, detail: "servfail", rounds: 2},
		simweb.ScenarioDNSTimeout:       dead(fetch.ReasonDNSTimeout),
		simweb.ScenarioRefused:          dead(fetch.ReasonConnectRefused),
	}
	var sites []simweb.Site
	for _, sc := range simweb.Scenarios() {
		s := simweb.Site{Host: host(sc), Scenario: sc}
		switch sc {
		case simweb.ScenarioSlow:
			s.Delay = 10 * time.Second // far beyond the client's timeout
		case simweb.ScenarioServerError:
			s.Status = 502
		}
		sites = append(sites, s)
	}
	_, c := setup(t, sites, 1500*time.Millisecond)
	p := liveness.New(c, liveness.Config{RetryDelay: 20 * time.Millisecond})

	for _, sc := range simweb.Scenarios() {
		w, ok := wants[sc]
		require.True(t, ok, "scenario %s has no expectation", sc)
		t.Run(string(sc), func(t *testing.T) {
			t.Parallel()
			r := p.Probe(context.Background(), host(sc))
			require.Equal(t, host(sc), r.Domain)
			require.Equal(t, w.verdict, r.Verdict, "reason %s/%s attempts %+v", r.Reason, r.Detail, r.Attempts)
			require.Equal(t, w.reason, r.Reason)
			if w.detail != "" {
				require.Equal(t, w.detail, r.Detail)
			}
			require.Equal(t, w.rounds, r.Rounds)
			require.False(t, r.CheckedAt.IsZero())
			require.Equal(t, w.left, r.LeftRegistrable)
			require.Equal(t, w.redirect, len(r.Redirects) > 0, "redirects %+v", r.Redirects)
			require.Equal(t, w.fallback, r.HTTPFallback)
			require.NotEmpty(t, r.DNS.Rcode)
			if w.verdict != seedengine.VerdictDead || r.Reason == liveness.ReasonHTTP5xx {
				require.NotZero(t, r.Status)
				require.NotEmpty(t, r.FinalURL)
			}
			switch {
			case w.fallback:
				require.False(t, r.HTTPSOK)
				require.True(t, strings.HasPrefix(r.FinalURL, "http://"), r.FinalURL)
			case r.Status != 0:
				require.True(t, r.HTTPSOK)
			}
			if w.tlsError != "" {
				require.NotNil(t, r.TLS)
				require.False(t, r.TLS.Valid)
				require.Equal(t, w.tlsError, r.TLS.Error)
			}
			if sc == simweb.ScenarioHealthy {
				require.NotNil(t, r.TLS)
				require.True(t, r.TLS.Valid)
				require.True(t, r.TLS.NameMatch)
				require.NotEmpty(t, r.TLS.Issuer)
				require.Equal(t, []string{"127.0.0.1"}, r.DNS.A)
				require.Equal(t, "NOERROR", r.DNS.Rcode)
				require.Len(t, r.Attempts, 1)
				require.Equal(t, 200, r.Attempts[0].Status)
			}
			if sc == simweb.ScenarioNXDomain {
				require.Equal(t, "NXDOMAIN", r.DNS.Rcode)
				require.Empty(t, r.Attempts, "no fetch for a name that does not resolve")
			}
			if sc == simweb.ScenarioRefused {
				// Both schemes, both rounds.
				require.Len(t, r.Attempts, 4)
				require.Equal(t, 2, r.Attempts[3].Round)
			}
		})
	}
}

// TestProbeRecovers checks that a domain failing in the first round and
// working in the retry is alive.
func TestProbeRecovers(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		first *simweb.Site // nil: not registered, so NXDOMAIN
	}{
		{"nxdomain", nil},
		{"server_error", &simweb.Site{Scenario: simweb.ScenarioServerError}},
		{"reset", &simweb.Site{Scenario: simweb.ScenarioReset}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			name := "flaky-" + strings.ReplaceAll(tc.name, "_", "-") + ".example.net"
			var sites []simweb.Site
			if tc.first != nil {
				s := *tc.first
				s.Host = name
				sites = append(sites, s)
			}
			w, c := setup(t, sites, 2*time.Second)
			p := liveness.New(c, liveness.Config{RetryDelay: 10 * time.Millisecond})
			var retries atomic.Int32
			liveness.SetBeforeRetry(p, func(domain string, round int) {
				retries.Add(1)
				w.AddSite(simweb.Site{Host: domain})
			})
			r := p.Probe(context.Background(), name)
			require.Equal(t, seedengine.VerdictAlive, r.Verdict, "%s/%s", r.Reason, r.Detail)
			require.Equal(t, liveness.ReasonOK, r.Reason)
			require.Equal(t, 2, r.Rounds)
			require.EqualValues(t, 1, retries.Load())
			require.NotEmpty(t, r.Attempts)
			require.Equal(t, 2, r.Attempts[len(r.Attempts)-1].Round)
		})
	}
}

// TestProbeNoRetry checks that Retries < 0 gives a verdict after one round.
func TestProbeNoRetry(t *testing.T) {
	t.Parallel()
	_, c := setup(t, []simweb.Site{{Host: "gone.example.com", Scenario: simweb.ScenarioNXDomain}}, time.Second)
	p := liveness.New(c, liveness.Config{Retries: -1})
	r := p.Probe(context.Background(), "Gone.Example.com.")
	require.Equal(t, "gone.example.com", r.Domain)
	require.Equal(t, seedengine.VerdictDead, r.Verdict)
	require.Equal(t, 1, r.Rounds)
}

// TestProbeCanceled checks that a probe the caller gives up on never says
// dead, whether it was canceled before, during a fetch or while waiting to
// retry.
func TestProbeCanceled(t *testing.T) {
	t.Parallel()
	_, c := setup(t, []simweb.Site{
		{Host: "slow.example.com", Scenario: simweb.ScenarioSlow, Delay: 10 * time.Second},
		{Host: "gone.example.com", Scenario: simweb.ScenarioNXDomain},
		{Host: "ok.example.com"},
	}, 20*time.Second)
	p := liveness.New(c, liveness.Config{RetryDelay: 10 * time.Second})

	done, cancel := context.WithCancel(context.Background())
	cancel()
	cases := []struct {
		name   string
		ctx    func() (context.Context, context.CancelFunc)
		domain string
	}{
		{"before", func() (context.Context, context.CancelFunc) { return done, func() {} }, "ok.example.com"},
		{"during_fetch", func() (context.Context, context.CancelFunc) {
			return context.WithTimeout(context.Background(), 300*time.Millisecond)
		}, "slow.example.com"},
		{"waiting_to_retry", func() (context.Context, context.CancelFunc) {
			return context.WithTimeout(context.Background(), 300*time.Millisecond)
		}, "gone.example.com"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := tc.ctx()
			defer cancel()
			start := time.Now()
			r := p.Probe(ctx, tc.domain)
			require.Empty(t, r.Verdict)
			require.NotEqual(t, seedengine.VerdictDead, r.Verdict)
			require.Equal(t, liveness.ReasonCanceled, r.Reason)
			require.Less(t, time.Since(start), 5*time.Second)
		})
	}
}

// TestProbeVariants covers the vendor variants simweb picks by host hash
// (four parking services, three bot walls, challenge served 200 or 503), so
// that every marker family is exercised, and a 404 at / that is alive.
func TestProbeVariants(t *testing.T) {
	t.Parallel()
	type tc struct {
		site    simweb.Site
		verdict seedengine.Verdict
		reason  string
	}
	var cases []tc
	for i := range 12 {
		n := strings.Repeat("x", i+1)
		cases = append(cases,
			tc{simweb.Site{Host: "parked-" + n + ".example.org", Scenario: simweb.ScenarioParked}, seedengine.VerdictParked, liveness.ReasonParked},
			tc{simweb.Site{Host: "wall-" + n + ".example.org", Scenario: simweb.ScenarioBotWall}, seedengine.VerdictBlocked, liveness.ReasonHTTP403})
	}
	cases = append(cases,
		tc{simweb.Site{Host: "parked404.example.org", Scenario: simweb.ScenarioParked, Status: 404}, seedengine.VerdictParked, liveness.ReasonParked},
		tc{simweb.Site{Host: "chl200.example.org", Scenario: simweb.ScenarioChallenge, Status: 200}, seedengine.VerdictBlocked, liveness.ReasonChallenge},
		tc{simweb.Site{Host: "chl503.example.org", Scenario: simweb.ScenarioChallenge, Status: 503}, seedengine.VerdictBlocked, liveness.ReasonChallenge},
		tc{simweb.Site{Host: "auth.example.org", Scenario: simweb.ScenarioBotWall, Status: 401}, seedengine.VerdictBlocked, liveness.ReasonHTTP401},
		tc{simweb.Site{Host: "nohome.example.org", Pages: map[string]simweb.Page{"/": {Status: 404, Body: []byte("<h1>Not Found</h1>")}}}, seedengine.VerdictAlive, liveness.ReasonHTTP4xx},
		tc{simweb.Site{Host: "shop.example.org", Pages: map[string]simweb.Page{"/": {Body: []byte("<h1>Cars for sale</h1><p>Just a moment of your time.</p>")}}}, seedengine.VerdictAlive, liveness.ReasonOK},
	)
	var sites []simweb.Site
	for _, c := range cases {
		sites = append(sites, c.site)
	}
	_, c := setup(t, sites, 2*time.Second)
	p := liveness.New(c, liveness.Config{RetryDelay: 10 * time.Millisecond})
	for _, c := range cases {
		t.Run(c.site.Host, func(t *testing.T) {
			t.Parallel()
			r := p.Probe(context.Background(), c.site.Host)
			require.Equal(t, c.verdict, r.Verdict, "%s/%s %+v", r.Reason, r.Detail, r.Attempts)
			require.Equal(t, c.reason, r.Reason)
			require.Equal(t, 1, r.Rounds)
		})
	}
}
