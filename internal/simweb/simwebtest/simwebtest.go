// Package simwebtest wires the outbound client to a simulated web for the
// tests of packages built on both (liveness, contract, orchestration, the
// HTTP API), as cmd/seedengine wires them with --dns-server, --connect-to,
// --extra-ca-file and --allow-private-networks. Nothing it sets up reaches
// beyond 127.0.0.1.
package simwebtest

import (
	"net/netip"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine/internal/fetch"
	"github.com/seedengine/seedengine/internal/simweb"
)

// Client starts a simulated web with sites and returns it with an outbound
// client that reaches it (see NewClient). requestTimeout bounds each
// exchange (short enough for the slow scenario to time out). Both are
// closed when the test ends.
func Client(tb testing.TB, sites []simweb.Site, requestTimeout time.Duration) (*simweb.Web, *fetch.Client) {
	tb.Helper()
	w := Start(tb)
	for _, s := range sites {
		w.AddSite(s)
	}
	return w, NewClient(tb, w, requestTimeout)
}

// PatientClient is Client whose DNS waits as long as a request: for
// webs without the dns_timeout scenario, tried with many hosts at once,
// where a loaded machine must not turn a slow answer into a dead site.
func PatientClient(tb testing.TB, sites []simweb.Site, requestTimeout time.Duration) (*simweb.Web, *fetch.Client) {
	tb.Helper()
	w := Start(tb)
	for _, s := range sites {
		w.AddSite(s)
	}
	return w, newClient(tb, w, requestTimeout, requestTimeout, nil)
}

// Catalogue starts a simulated web serving the realistic site catalogue,
// dated from now, and returns its entries, the web and a client that
// reaches it. No catalogue host is dead, so its client waits for DNS as
// long as a request: a loaded machine (CI beside other work) must not
// turn a slow answer into a dead site.
func Catalogue(tb testing.TB, requestTimeout time.Duration) ([]simweb.CatalogueEntry, *simweb.Web, *fetch.Client) {
	tb.Helper()
	w := Start(tb)
	entries := w.AddCatalogue(time.Now())
	return entries, w, newClient(tb, w, requestTimeout, requestTimeout, nil)
}

// Start starts an empty simulated web, closed when the test ends.
func Start(tb testing.TB) *simweb.Web {
	tb.Helper()
	w, err := simweb.Start(simweb.Config{Seed: 1})
	require.NoError(tb, err)
	tb.Cleanup(func() { _ = w.Close() })
	return w
}

// NewClient returns an outbound client that reaches w: its DNS, its
// connect-to entries (after connectTo, which come first) and CA, loopback
// allowed, no per-host delay and short timeouts (DNS 400 ms, so the
// dns_timeout scenario ends quickly). It is closed when the
// test ends.
func NewClient(tb testing.TB, w *simweb.Web, requestTimeout time.Duration, connectTo ...string) *fetch.Client {
	tb.Helper()
	return newClient(tb, w, requestTimeout, 400*time.Millisecond, connectTo)
}

func newClient(tb testing.TB, w *simweb.Web, requestTimeout, dnsTimeout time.Duration, connectTo []string) *fetch.Client {
	return ClientWith(tb, w, func(c *fetch.Config) {
		c.RequestTimeout, c.DNSTimeout = requestTimeout, dnsTimeout
		c.ConnectTo = append(connectTo, c.ConnectTo...)
	})
}

// ClientWith is NewClient's client with what set changes in its
// configuration (a per-host delay, say), closed when the test ends.
func ClientWith(tb testing.TB, w *simweb.Web, set func(*fetch.Config)) *fetch.Client {
	tb.Helper()
	ca, err := w.WriteCAFile(tb.TempDir())
	require.NoError(tb, err)
	cfg := fetch.Config{
		Version:        "test",
		DNSServer:      w.DNSAddr(),
		ConnectTo:      w.ConnectTo(),
		ExtraCAFile:    ca,
		AllowNetworks:  []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")},
		PerHostDelay:   fetch.NoPerHostDelay,
		ConnectTimeout: 2 * time.Second,
		DNSTimeout:     400 * time.Millisecond,
		RequestTimeout: 10 * time.Second,
		MaxRetryAfter:  10 * time.Millisecond,
	}
	if set != nil {
		set(&cfg)
	}
	c, err := fetch.New(cfg)
	require.NoError(tb, err)
	tb.Cleanup(c.Close)
	return c
}
