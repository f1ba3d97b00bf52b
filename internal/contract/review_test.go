package contract

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine"
)

// An entry is on its seed's domain when its registrable domain is the
// seed's (www., a feeds. sibling, any case, a Unicode name), when it is
// the domain's www. twin, or on a feed-hosting service; anything else,
// an IP address included, is named in the reason.
func TestEntryOnDomain(t *testing.T) {
	t.Parallel()
	cases := []struct {
		entry, domain, where string
		ok                   bool
	}{
		{"https://www.mom.gov.sg/rss/newsroom", "mom.gov.sg", "mom.gov.sg", true},
		{"https://mom.gov.sg/feed/", "mom.gov.sg", "mom.gov.sg", true},
		{"https://feeds.mom.gov.sg/feed.xml", "mom.gov.sg", "mom.gov.sg", true},
		{"https://RSS.Mom.Gov.SG./feed.xml", "mom.gov.sg", "mom.gov.sg", true},
		{"https://feeds.feedburner.com/MomNews", "mom.gov.sg", "feeds.feedburner.com", true},
		{"https://feedproxy.google.com/MomNews", "mom.gov.sg", "feedproxy.google.com", true},
		{"https://www.gov.br/feed", "gov.br", "gov.br", true},
		{"https://bücher.example/feed", "xn--bcher-kva.example", "xn--bcher-kva.example", true},
		{"https://attacker-feeds.example/feed.xml", "mom.gov.sg", "attacker-feeds.example", false},
		{"https://mom.gov.sg.attacker-feeds.example/feed.xml", "mom.gov.sg", "attacker-feeds.example", false},
		{"https://feeds.feedburner.com.attacker-feeds.example/x", "mom.gov.sg", "attacker-feeds.example", false},
		{"https://www.mti.gov.sg/feed/", "mom.gov.sg", "mti.gov.sg", false},
		{"https://ministry.gov.br/feed", "gov.br", "ministry.gov.br", false},
		{"https://feedburner.com/MomNews", "mom.gov.sg", "feedburner.com", false},
		{"https://203.0.113.7/feed.xml", "mom.gov.sg", "203.0.113.7", false},
	}
	for _, c := range cases {
		where, ok := EntryOnDomain(c.entry, c.domain)
		require.Equal(t, c.ok, ok, c.entry)
		require.Equal(t, c.where, where, c.entry)
	}

	sd := &seedengine.Seed{DomainID: "gov:sg:mom.gov.sg", ContentType: "news",
		Fetch: seedengine.SeedFetch{Type: seedengine.FetchRSS, EntryURL: "https://attacker-feeds.example/feed.xml"}}
	sd.Normalize()
	require.Equal(t, []seedengine.SeedReviewReason{{Code: seedengine.ReviewEntryOffDomain,
		Message: "its entry is on attacker-feeds.example, not on its domain mom.gov.sg"}}, ReviewReasons(sd))
	sd.Fetch.EntryURL = "https://www.mom.gov.sg/rss/newsroom"
	require.Empty(t, ReviewReasons(sd))
}
