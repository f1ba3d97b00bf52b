package contract

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The default edition is the one in the domain_id's country's language
// that has a news entry: the site's own first, else the country's
// languages in order, else the site's own, else the first edition.
func TestEditionDefault(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	fresh := now.Add(-time.Hour)
	feed := func(u, edition string) *Candidate {
		return &Candidate{Kind: KindFeed, URL: u, Via: ViaLinkAlternate, Priority: prioDeclared, Fetched: true, Status: 200,
			Format: "rss", Items: 10, Newest: &fresh, ContentType: "news", Robots: RobotsAllowed, Edition: edition}
	}
	evidence := func(domainID string, cands ...*Candidate) *Evidence {
		return &Evidence{DomainID: domainID, Domain: "x-example.com", Site: "https://www.x-example.com", Language: "en",
			Home:   &PageEvidence{URL: "https://www.x-example.com/", Status: 200},
			Robots: RobotsEvidence{HomeAllowed: true}, Candidates: cands,
			Editions: []EditionEvidence{{Language: "de", Host: "de.x-example.com"}, {Language: "fr", Host: "fr.x-example.com"}}}
	}
	www, de, fr := feed("https://www.x-example.com/feed", ""), feed("https://de.x-example.com/feed", "de"), feed("https://fr.x-example.com/feed", "fr")
	cfg := Config{Now: func() time.Time { return now }}.withDefaults()
	defaults := func(ev *Evidence) map[string]bool {
		out := map[string]bool{}
		for _, d := range decide(ev, cfg) {
			require.NotNil(t, d.Edition, "%+v", d)
			out[d.Edition.Language] = d.Edition.Default
		}
		return out
	}
	for _, tt := range []struct {
		domainID string
		cands    []*Candidate
		want     map[string]bool
	}{
		{"com:de:x-example.com", []*Candidate{www, de, fr}, map[string]bool{"en": false, "de": true, "fr": false}},
		{"com:gb:x-example.com", []*Candidate{www, de, fr}, map[string]bool{"en": true, "de": false, "fr": false}},
		{"com:intl:x-example.com", []*Candidate{www, de, fr}, map[string]bool{"en": true, "de": false, "fr": false}},
		// Belgium: Dutch, French, German; no Dutch edition, so French.
		{"com:be:x-example.com", []*Candidate{www, de, fr}, map[string]bool{"en": false, "de": false, "fr": true}},
		// The German edition has no entry: the site's own is the default.
		{"com:de:x-example.com", []*Candidate{www, fr}, map[string]bool{"en": true, "fr": false}},
		// The site has no news entry of its own (its home page is a seed
		// all the same), the country's language is not there: the first edition.
		{"com:jp:x-example.com", []*Candidate{de, fr}, map[string]bool{"en": false, "de": true, "fr": false}},
	} {
		require.Equal(t, tt.want, defaults(evidence(tt.domainID, tt.cands...)), tt.domainID)
	}
	// An edition without a news entry of its own is no edition: one
	// edition left, no edition at all.
	for _, d := range decide(evidence("com:de:x-example.com", www), cfg) {
		require.Nil(t, d.Edition)
	}
}
