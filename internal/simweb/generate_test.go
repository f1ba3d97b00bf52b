package simweb_test

import (
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/net/publicsuffix"

	"github.com/seedengine/seedengine/internal/simweb"
)

func startWeb(t *testing.T, seed int64) *simweb.Web {
	t.Helper()
	web, err := simweb.Start(simweb.Config{Seed: seed})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, web.Close()) })
	return web
}

func countScenarios(sites []simweb.Site) map[simweb.Scenario]int {
	n := map[simweb.Scenario]int{}
	for _, s := range sites {
		n[s.Scenario]++
	}
	return n
}

func TestGenerateIsDeterministic(t *testing.T) {
	t.Parallel()
	mix, err := simweb.ParseMix("dead=0.1,slow=0.05,blocked=0.05,tls=2%")
	require.NoError(t, err)
	a, b, c := startWeb(t, 7), startWeb(t, 7), startWeb(t, 8)
	a1, a2 := a.Generate(500, mix), a.Generate(100, mix)
	b1, b2 := b.Generate(500, mix), b.Generate(100, mix)
	require.Equal(t, a1, b1)
	require.Equal(t, a2, b2)
	require.NotEqual(t, a1[:100], a2, "each call makes new sites")
	require.Equal(t, "site00501", strings.SplitN(a2[0].Host, "-", 2)[0], "numbering continues")
	require.NotEqual(t, a1, c.Generate(500, mix), "another seed, another web")

	for _, s := range a1 {
		got, ok := a.Site(s.Host)
		require.True(t, ok)
		require.Equal(t, s, got)
	}
}

func TestGenerateProportions(t *testing.T) {
	t.Parallel()
	mix, err := simweb.ParseMix("dead=0.1,slow=0.05,blocked=0.05")
	require.NoError(t, err)
	sites := startWeb(t, 1).Generate(1000, mix)
	n := countScenarios(sites)
	require.Equal(t, 800, n[simweb.ScenarioHealthy])
	require.Equal(t, 50, n[simweb.ScenarioSlow])
	require.Equal(t, 60, n[simweb.ScenarioNXDomain])
	require.Equal(t, 20, n[simweb.ScenarioRefused])
	require.Equal(t, 10, n[simweb.ScenarioServFail])
	require.Equal(t, 10, n[simweb.ScenarioDNSTimeout])
	require.Equal(t, 25, n[simweb.ScenarioBotWall])
	require.Equal(t, 25, n[simweb.ScenarioRateLimited]+n[simweb.ScenarioChallenge])
	require.InDelta(t, 12.5, n[simweb.ScenarioRateLimited], 0.5)

	// Shares that do not divide n still add up to n.
	sites = startWeb(t, 1).Generate(7, simweb.Mix{simweb.ScenarioParked: 1.0 / 3, simweb.ScenarioReset: 1.0 / 3})
	n = countScenarios(sites)
	require.Len(t, sites, 7)
	require.Equal(t, 5, n[simweb.ScenarioParked]+n[simweb.ScenarioReset])

	// Scenarios are spread over the run, not in blocks.
	sites = startWeb(t, 1).Generate(100, simweb.Mix{simweb.ScenarioParked: 0.5})
	require.Positive(t, countScenarios(sites[:50])[simweb.ScenarioParked])
	require.Positive(t, countScenarios(sites[50:])[simweb.ScenarioParked])

	require.Panics(t, func() { startWeb(t, 1).Generate(10, simweb.Mix{simweb.ScenarioParked: 0.7, simweb.ScenarioSlow: 0.4}) })
	require.Panics(t, func() { startWeb(t, 1).Generate(10, simweb.Mix{"dead": 0.1}) })
}

func TestGeneratedHosts(t *testing.T) {
	t.Parallel()
	sites := startWeb(t, 3).Generate(300, nil)
	suffixes, layouts := map[string]bool{}, map[simweb.Layout]bool{}
	for _, s := range sites {
		require.Equal(t, simweb.ScenarioHealthy, s.Scenario)
		// Each site is its own registrable domain, so discover keeps
		// them apart.
		reg, err := publicsuffix.EffectiveTLDPlusOne(s.Host)
		require.NoError(t, err)
		require.Equal(t, s.Host, reg)
		suffix, _ := publicsuffix.PublicSuffix(s.Host)
		suffixes[suffix] = true
		layouts[s.Layout] = true
	}
	require.GreaterOrEqual(t, len(suffixes), 10)
	require.Len(t, layouts, len(simweb.Layouts()))
}

func TestParseMix(t *testing.T) {
	t.Parallel()
	m, err := simweb.ParseMix(" slow = 5% , parked=0.01,parked=0.01, redirect=0.1 ")
	require.NoError(t, err)
	require.InDelta(t, 0.05, m[simweb.ScenarioSlow], 1e-12)
	require.InDelta(t, 0.02, m[simweb.ScenarioParked], 1e-12)
	require.InDelta(t, 0.06, m[simweb.ScenarioRedirectWWW], 1e-12)
	require.InDelta(t, 0.04, m[simweb.ScenarioRedirectExternal], 1e-12)

	m, err = simweb.ParseMix("")
	require.NoError(t, err)
	require.Empty(t, m)

	for _, bad := range []string{"dead", "dead=x", "dead=-0.1", "zombie=0.1", "dead=0.6,blocked=0.6", "slow=NaN"} {
		_, err := simweb.ParseMix(bad)
		require.Error(t, err, bad)
	}
}

// TestManySites is not parallel: it measures the heap, which other tests
// running at the same time would disturb.
func TestManySites(t *testing.T) {
	mix, err := simweb.ParseMix("dead=0.1,slow=0.05,blocked=0.05,redirect=0.05,tls=0.02")
	require.NoError(t, err)
	web := startWeb(t, 1)

	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	sites := web.Generate(10_000, mix)
	runtime.GC()
	runtime.ReadMemStats(&after)
	grown := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	t.Logf("heap for 10,000 sites (and the returned slice): %.1f MiB", float64(grown)/(1<<20))
	require.Less(t, grown, int64(16<<20))

	// And they are all served.
	for _, s := range sites[:50] {
		if s.Scenario != simweb.ScenarioHealthy {
			continue
		}
		req, err := http.NewRequest(http.MethodGet, "http://"+web.HTTPAddr()+"/", nil)
		require.NoError(t, err)
		req.Host = s.Host
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		resp.Body.Close()
		require.Equal(t, http.StatusOK, resp.StatusCode)
	}
	runtime.KeepAlive(sites)
}

func TestConnectToAndCA(t *testing.T) {
	t.Parallel()
	web := startWeb(t, 1)
	_, httpPort, _ := strings.Cut(web.HTTPAddr(), ":")
	_, httpsPort, _ := strings.Cut(web.HTTPSAddr(), ":")
	require.Equal(t, []string{":80:127.0.0.1:" + httpPort, ":443:127.0.0.1:" + httpsPort}, web.ConnectTo())
	require.True(t, strings.HasPrefix(web.DNSAddr(), "127.0.0.1:"))

	web.AddSite(simweb.Site{Host: "b.example", Scenario: simweb.ScenarioRefused})
	web.AddSite(simweb.Site{Host: "a.example", Scenario: simweb.ScenarioRefused})
	_, closed, _ := strings.Cut(web.RefusedAddr(), ":")
	entries := web.ConnectTo()
	require.Equal(t, []string{
		"a.example:80:127.0.0.1:" + closed, "a.example:443:127.0.0.1:" + closed,
		"b.example:80:127.0.0.1:" + closed, "b.example:443:127.0.0.1:" + closed,
		"www.a.example:80:127.0.0.1:" + closed, "www.a.example:443:127.0.0.1:" + closed,
		"www.b.example:80:127.0.0.1:" + closed, "www.b.example:443:127.0.0.1:" + closed,
		":80:127.0.0.1:" + httpPort, ":443:127.0.0.1:" + httpsPort,
	}, entries)

	path, err := web.WriteCAFile(t.TempDir())
	require.NoError(t, err)
	require.Equal(t, "simweb-ca.pem", filepath.Base(path))
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, web.CACertPEM(), data)
	block, _ := pem.Decode(data)
	require.NotNil(t, block)
	ca, err := x509.ParseCertificate(block.Bytes)
	require.NoError(t, err)
	require.True(t, ca.IsCA)

	require.NotEqual(t, web.CACertPEM(), startWeb(t, 1).CACertPEM(), "every web has its own CA")
}

func TestStartRejectsNonLoopback(t *testing.T) {
	t.Parallel()
	for _, cfg := range []simweb.Config{
		{HTTPAddr: "0.0.0.0:0"},
		{HTTPSAddr: ":8443"},
		{DNSAddr: "localhost:53"},
		{HTTPAddr: "127.0.0.1"},
	} {
		_, err := simweb.Start(cfg)
		require.Error(t, err, fmt.Sprint(cfg))
	}
}
