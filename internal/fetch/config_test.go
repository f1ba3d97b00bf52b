package fetch

import (
	"net/netip"
	"testing"
	"time"

	"github.com/seedengine/seedengine"
	"github.com/stretchr/testify/require"
)

func TestParseConnectTo(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want ConnectToRule
		err  bool
	}{
		{in: "example.com:443:127.0.0.1:8443", want: ConnectToRule{"example.com", "443", "127.0.0.1", "8443"}},
		{in: ":443:127.0.0.1:8443", want: ConnectToRule{"", "443", "127.0.0.1", "8443"}},
		{in: "::127.0.0.1:8080", want: ConnectToRule{"", "", "127.0.0.1", "8080"}},
		{in: "Example.COM.::other.test:", want: ConnectToRule{"example.com", "", "other.test", ""}},
		{in: "[::1]:80:[2001:db8::1]:8080", want: ConnectToRule{"::1", "80", "2001:db8::1", "8080"}},
		{in: ":::", want: ConnectToRule{}},
		{in: "a.test:443:127.0.0.1", err: true},
		{in: "a.test:443:127.0.0.1:80:1", err: true},
		{in: "a.test:https:127.0.0.1:80", err: true},
		{in: "a.test:443:127.0.0.1:70000", err: true},
		{in: "a.test:443:127.0.0.1:0", err: true},
		{in: "a.test:443:[::1:80", err: true},
		{in: "a.test:443:[]:80", err: true},
		{in: "a/b:443:127.0.0.1:80", err: true},
		{in: "", err: true},
	}
	for _, tt := range tests {
		got, err := ParseConnectTo(tt.in)
		if tt.err {
			require.Error(t, err, tt.in)
			require.Contains(t, err.Error(), tt.in, "the error names the entry")
			continue
		}
		require.NoError(t, err, tt.in)
		require.Equal(t, tt.want, got, tt.in)
	}
}

func TestConnectToRoute(t *testing.T) {
	t.Parallel()
	routes, err := parseRoutes([]string{
		"a.test:443:127.0.0.1:9443",
		"a.test::127.0.0.2:",
		":80:127.0.0.3:8080",
	})
	require.NoError(t, err)
	tests := []struct{ host, port, wantHost, wantPort string }{
		{"a.test", "443", "127.0.0.1", "9443"}, // first match wins
		{"A.Test.", "80", "127.0.0.2", "80"},   // empty target port keeps the port
		{"b.test", "80", "127.0.0.3", "8080"},
		{"b.test", "443", "b.test", "443"}, // no match: unchanged
	}
	for _, tt := range tests {
		h, p, _ := routes.route(tt.host, tt.port)
		require.Equal(t, tt.wantHost+":"+tt.wantPort, h+":"+p, tt.host+":"+tt.port)
	}
	r, err := ParseConnectTo("[::1]:80:[2001:db8::1]:8080")
	require.NoError(t, err)
	require.Equal(t, "[::1]:80:[2001:db8::1]:8080", r.String())
}

func TestConfigDefaults(t *testing.T) {
	t.Parallel()
	c, err := Config{}.withDefaults()
	require.NoError(t, err)
	require.Equal(t, DefaultUserAgentContact, c.UserAgentContact)
	require.Equal(t, seedengine.Version, c.Version)
	require.Equal(t, 5*time.Second, c.ConnectTimeout)
	require.Equal(t, 5*time.Second, c.TLSTimeout)
	require.Equal(t, 20*time.Second, c.RequestTimeout)
	require.Equal(t, 10, c.MaxRedirects)
	require.Equal(t, 64, c.Concurrency)
	require.Equal(t, time.Second, c.PerHostDelay, "a zero Config is polite")
	require.Equal(t, 30*time.Second, c.MaxRetryAfter)
	require.Equal(t, int64(512<<10), c.BodyLimits[KindRobots])
	require.Equal(t, int64(50<<20), c.BodyLimits[KindSitemap])
	require.Equal(t, int64(10<<20), c.BodyLimits[KindFeed])
	require.Equal(t, int64(5<<20), c.BodyLimits[KindPage])
	require.Equal(t, int64(256<<10), c.BodyLimits[KindProbe])

	c, err = Config{PerHostDelay: NoPerHostDelay, BodyLimits: map[Kind]int64{KindPage: 10}, DNSServer: "127.0.0.1"}.withDefaults()
	require.NoError(t, err)
	require.Zero(t, c.PerHostDelay)
	require.Equal(t, int64(10), c.BodyLimits[KindPage])
	require.Equal(t, int64(256<<10), c.BodyLimits[KindProbe])
	require.Equal(t, "127.0.0.1:53", c.DNSServer)

	allow := []netip.Prefix{netip.MustParsePrefix("10.1.2.3/8")}
	c, err = Config{AllowNetworks: allow}.withDefaults()
	require.NoError(t, err)
	require.Equal(t, "10.0.0.0/8", c.AllowNetworks[0].String())
	require.Equal(t, "10.1.2.3/8", allow[0].String(), "the caller's slice is not modified")

	for _, bad := range []Config{
		{ConnectTimeout: -1},
		{MaxRedirects: -1},
		{Concurrency: -1},
		{BodyLimits: map[Kind]int64{"video": 1}},
		{BodyLimits: map[Kind]int64{KindPage: 0}},
		{DNSServer: "127.0.0.1:dns"},
		{UserAgentContact: "a (b)"},
		{AllowNetworks: []netip.Prefix{{}}},
	} {
		_, err := New(bad)
		require.Error(t, err, "%+v", bad)
	}
	_, err = New(Config{ConnectTo: []string{"nope"}})
	require.ErrorContains(t, err, `"nope"`)
	_, err = New(Config{ExtraCAFile: "/does/not/exist.pem"})
	require.Error(t, err)
}

func TestRetryAfter(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 28, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"0", 0, true},
		{"7", 7 * time.Second, true},
		{" 120 ", 2 * time.Minute, true},
		{"Wed, 28 Jan 2026 12:00:30 GMT", 30 * time.Second, true},
		{"Wed, 28 Jan 2026 11:00:00 GMT", 0, true},
		{"-1", 0, false},
		{"soon", 0, false},
		{"", 0, false},
	}
	for _, tt := range tests {
		got, ok := retryAfter(tt.in, now)
		require.Equal(t, tt.ok, ok, tt.in)
		require.Equal(t, tt.want, got, tt.in)
	}
}

func TestRegistrable(t *testing.T) {
	t.Parallel()
	require.Equal(t, "example.com", registrable("www.Example.com."))
	require.Equal(t, "mom.gov.sg", registrable("www.mom.gov.sg"))
	require.Equal(t, "gov.br", registrable("gov.br"))
	require.Equal(t, "127.0.0.1", registrable("127.0.0.1"))
}
