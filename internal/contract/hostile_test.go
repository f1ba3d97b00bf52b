package contract_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine/internal/contract"
	"github.com/seedengine/seedengine/internal/fetch"
	"github.com/seedengine/seedengine/internal/simweb"
	"github.com/seedengine/seedengine/internal/simweb/simwebtest"
)

// A robots.txt can name any URL as a sitemap. The fetcher refuses the
// internal ones; the contract must not hand them on either: a seed's
// policy names only a sitemap the run read from the site.
func TestHostileRobotsSitemapsNeverReachASeed(t *testing.T) {
	t.Parallel()
	const domain = "hostile-example.gov.sg"
	hostile := []string{
		"http://169.254.169.254/latest/meta-data/sitemap.xml",
		"http://10.0.0.1/sitemap.xml",
		"http://[::1]/sitemap.xml",
		"http://0.0.0.0/sitemap.xml",
		"https://intranet-example.gov.sg/sitemap.xml", // resolves (below) to a private address
		"https://elsewhere-example.com/sitemap.xml",   // another domain's sitemap of its own pages
	}
	robots := "User-agent: *\nDisallow:\n\n"
	for _, u := range hostile {
		robots += "Sitemap: " + u + "\n"
	}
	w := simwebtest.Start(t)
	w.AddSite(simweb.Site{Host: domain, Layout: simweb.LayoutWordPress, Robots: &robots})
	w.AddSite(simweb.Site{Host: "intranet-example.gov.sg"})
	w.AddSite(simweb.Site{Host: "elsewhere-example.com", Layout: simweb.LayoutWordPress})
	// The intranet name is dialled at a private address, as if its DNS
	// said so: the guard refuses it before any packet is sent.
	client := simwebtest.NewClient(t, w, 2*time.Second, "intranet-example.gov.sg::10.1.2.3:")

	ev := contract.New(client, contract.Config{}).Discover(t.Context(), "gov:sg:"+domain, domain)
	require.Equal(t, contract.OutcomeSeeded, ev.Outcome)
	for _, u := range hostile[:5] {
		c := find(ev, contract.KindSitemap, strings.TrimPrefix(u, "http"))
		require.NotNil(t, c, u)
		if c.Fetched {
			require.Equal(t, fetch.ReasonBlocked, c.Error, "%s was refused by the fetcher", u)
		} else {
			require.NotEmpty(t, c.Skipped, u)
		}
	}
	for _, d := range ev.Decisions {
		s := contract.SeedFrom(ev, d, "prod/contracts/x/2026-01-01T000000Z-abcdefgh.json", "news")
		require.NoError(t, s.Validate())
		raw, err := json.Marshal(s)
		require.NoError(t, err)
		for _, u := range hostile {
			require.NotContains(t, string(raw), strings.TrimSuffix(u, "/sitemap.xml"), "the seed never names %s", u)
		}
		require.Equal(t, "https://"+domain+"/sitemap.xml", s.Policy.SitemapURL,
			"with no usable sitemap named, the site's own /sitemap.xml is read for the policy")
	}
}
