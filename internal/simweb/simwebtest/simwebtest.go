// Package simwebtest wires the outbound client to a simulated web for the
// tests of packages built on both (liveness, the HTTP API), as
// cmd/seedengine wires them with --dns-server, --connect-to,
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
// client that reaches it: simweb's DNS, its connect-to entries and CA,
// loopback allowed, no per-host delay and short timeouts. requestTimeout
// bounds each exchange (short enough for the slow scenario to time out).
// Both are closed when the test ends.
func Client(t *testing.T, sites []simweb.Site, requestTimeout time.Duration) (*simweb.Web, *fetch.Client) {
	t.Helper()
	w, err := simweb.Start(simweb.Config{Seed: 1})
	require.NoError(t, err)
	t.Cleanup(func() { _ = w.Close() })
	for _, s := range sites {
		w.AddSite(s)
	}
	ca, err := w.WriteCAFile(t.TempDir())
	require.NoError(t, err)
	c, err := fetch.New(fetch.Config{
		Version:        "test",
		DNSServer:      w.DNSAddr(),
		ConnectTo:      w.ConnectTo(),
		ExtraCAFile:    ca,
		AllowNetworks:  []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")},
		PerHostDelay:   fetch.NoPerHostDelay,
		ConnectTimeout: 2 * time.Second,
		DNSTimeout:     400 * time.Millisecond,
		RequestTimeout: requestTimeout,
		MaxRetryAfter:  10 * time.Millisecond,
	})
	require.NoError(t, err)
	t.Cleanup(c.Close)
	return w, c
}
