package fetch

import (
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/seedengine/seedengine/internal/simweb"
	"github.com/stretchr/testify/require"
)

// startSimweb starts a simulated web with the given sites and a Client wired
// to it the way cmd/seedengine wires one: its DNS server, its connect-to
// entries, its CA, loopback allowed.
func startSimweb(t *testing.T, sites []simweb.Site, cfg Config) (*simweb.Web, *Client) {
	t.Helper()
	w, err := simweb.Start(simweb.Config{Seed: 1})
	require.NoError(t, err)
	t.Cleanup(func() { _ = w.Close() })
	for _, s := range sites {
		w.AddSite(s)
	}
	return w, simwebClient(t, w, cfg)
}

func simwebClient(t *testing.T, w *simweb.Web, cfg Config) *Client {
	t.Helper()
	ca, err := w.WriteCAFile(t.TempDir())
	require.NoError(t, err)
	cfg.DNSServer = w.DNSAddr()
	cfg.ConnectTo = w.ConnectTo()
	cfg.ExtraCAFile = ca
	return newTestClient(t, cfg)
}

func TestSimwebScenarios(t *testing.T) {
	t.Parallel()
	host := func(sc simweb.Scenario) string { return strings.ReplaceAll(string(sc), "_", "-") + ".example.com" }
	var sites []simweb.Site
	for _, sc := range simweb.Scenarios() {
		s := simweb.Site{Host: host(sc), Scenario: sc}
		switch sc {
		case simweb.ScenarioSlow:
			s.Delay = 3 * time.Second
		case simweb.ScenarioRateLimited:
			s.RetryAfter = time.Second
		case simweb.ScenarioRedirectExternal:
			s.RedirectTo = "elsewhere.example.org"
		}
		sites = append(sites, s)
	}
	sites = append(sites, simweb.Site{Host: "elsewhere.example.org"})
	w, patient := startSimweb(t, sites, Config{})
	// Timeouts are asserted with a client that gives up sooner than simweb
	// answers; everything else gets generous timeouts so a loaded machine
	// cannot turn a success into a timeout.
	impatient := simwebClient(t, w, Config{DNSTimeout: 300 * time.Millisecond, RequestTimeout: time.Second})

	type want struct {
		status    int    // when the fetch succeeds
		reason    string // when it fails
		detail    string
		left      bool
		hops      int
		bodyHas   string
		requests  int // requests simweb saw for the apex, when checked
		dnsReason string
	}
	wants := map[simweb.Scenario]want{
		simweb.ScenarioHealthy:          {status: 200, bodyHas: "<html", requests: 1},
		simweb.ScenarioRedirectWWW:      {status: 200, hops: 1, requests: 1},
		simweb.ScenarioRedirectExternal: {status: 200, hops: 1, left: true},
		simweb.ScenarioBotWall:          {status: 403},
		simweb.ScenarioRateLimited:      {status: 429, requests: 2},
		simweb.ScenarioChallenge:        {bodyHas: "Just a moment"},
		simweb.ScenarioParked:           {status: 200, bodyHas: "for sale"},
		simweb.ScenarioSlow:             {reason: ReasonTimeout},
		simweb.ScenarioReset:            {reason: ReasonConnectReset},
		simweb.ScenarioTLSExpired:       {reason: ReasonTLS, detail: TLSExpired},
		simweb.ScenarioTLSWrongName:     {reason: ReasonTLS, detail: TLSNameMismatch},
		simweb.ScenarioHTTPOnly:         {reason: ReasonConnectReset},
		simweb.ScenarioServerError:      {},
		simweb.ScenarioRedirectLoop:     {reason: ReasonTooManyRedirects, detail: "loop"},
		simweb.ScenarioNXDomain:         {reason: ReasonNXDomain, dnsReason: ReasonNXDomain},
		simweb.ScenarioServFail:         {reason: ReasonServfail, dnsReason: ReasonServfail},
		simweb.ScenarioDNSTimeout:       {reason: ReasonDNSTimeout, dnsReason: ReasonDNSTimeout},
		simweb.ScenarioRefused:          {reason: ReasonConnectRefused},
	}
	for _, sc := range simweb.Scenarios() {
		t.Run(string(sc), func(t *testing.T) {
			t.Parallel()
			wt, ok := wants[sc]
			require.True(t, ok, "every simweb scenario has an expectation")
			h := host(sc)
			c := patient
			if sc == simweb.ScenarioSlow || sc == simweb.ScenarioDNSTimeout {
				c = impatient
			}
			resp, err := c.Do(t.Context(), Request{URL: "https://" + h + "/", Kind: KindProbe})
			if wt.reason != "" {
				fe := reasonOf(t, err)
				require.Equal(t, wt.reason, fe.Reason, "%v", err)
				require.Equal(t, wt.detail, fe.Detail, "%v", err)
				if wt.reason == ReasonTLS {
					require.NotNil(t, fe.TLS)
					require.False(t, fe.TLS.Valid)
				}
			} else {
				require.NoError(t, err)
				switch {
				case wt.status != 0:
					require.Equal(t, wt.status, resp.Status)
				case sc == simweb.ScenarioServerError:
					require.GreaterOrEqual(t, resp.Status, 500)
				}
				require.Len(t, resp.Redirects, wt.hops)
				require.Equal(t, wt.left, resp.LeftRegistrable)
				require.Contains(t, string(resp.Body), wt.bodyHas)
				require.NotNil(t, resp.TLS)
				require.True(t, resp.TLS.Valid)
				require.Contains(t, resp.TLS.Issuer, "CN=")
			}
			if wt.requests != 0 {
				require.Equal(t, wt.requests, w.Requests(h))
			}

			res, err := c.Lookup(t.Context(), h)
			if wt.dnsReason == "" {
				require.NoError(t, err)
				require.Equal(t, "NOERROR", res.Rcode)
				require.NotEmpty(t, res.A)
			} else {
				require.Equal(t, wt.dnsReason, reasonOf(t, err).Reason)
			}
		})
	}
}

func TestSimwebHTTPFallbackAndContent(t *testing.T) {
	t.Parallel()
	_, c := startSimweb(t, []simweb.Site{
		{Host: "plain.example.net", Scenario: simweb.ScenarioHTTPOnly},
		{Host: "news.example.net", Layout: simweb.LayoutNews},
	}, Config{})

	resp, err := c.Do(t.Context(), Request{URL: "http://plain.example.net/", Kind: KindPage})
	require.NoError(t, err)
	require.Equal(t, 200, resp.Status)
	require.Nil(t, resp.TLS)

	robots, err := c.Do(t.Context(), Request{URL: "https://news.example.net/robots.txt", Kind: KindRobots})
	require.NoError(t, err)
	require.Equal(t, 200, robots.Status)
	require.Contains(t, string(robots.Body), "Sitemap:")

	sr, err := c.Stream(t.Context(), Request{URL: "https://news.example.net/news-sitemap.xml", Kind: KindSitemap})
	require.NoError(t, err)
	defer sr.Body.Close()
	b, err := io.ReadAll(sr.Body)
	require.NoError(t, err)
	require.Equal(t, 200, sr.Status)
	require.Contains(t, string(b), "<urlset")
}

// Many sites at once through the global limit and per-host politeness: every
// fetch of a healthy site succeeds.
func TestSimwebManySites(t *testing.T) {
	t.Parallel()
	var sites []simweb.Site
	for i := range 200 {
		sites = append(sites, simweb.Site{Host: fmt.Sprintf("s%03d.example.com", i)})
	}
	w, c := startSimweb(t, sites, Config{Concurrency: 16})
	errs := make(chan error, len(sites))
	for _, s := range sites {
		go func() {
			resp, err := c.Do(t.Context(), Request{URL: "https://" + s.Host + "/", Kind: KindProbe})
			if err == nil && resp.Status != 200 {
				err = fmt.Errorf("%s: status %d", s.Host, resp.Status)
			}
			errs <- err
		}()
	}
	for range sites {
		require.NoError(t, <-errs)
	}
	for _, s := range sites {
		require.Equal(t, 1, w.Requests(s.Host))
	}
}
