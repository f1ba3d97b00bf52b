package contract

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The default edition follows from languages alone, so that the plain
// seed_id names the same edition run after run: the site's own when its
// language is the domain_id's country's, else the first of the country's
// languages among the editions, else the site's own.
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
		// The German edition has no entry this run: no seed is the
		// default, and the plain seed_id stays the German edition's.
		{"com:de:x-example.com", []*Candidate{www, fr}, map[string]bool{"en": false, "fr": false}},
		// No edition in the country's language: the site's own, even
		// with only its home page to offer.
		{"com:jp:x-example.com", []*Candidate{de, fr}, map[string]bool{"en": true, "de": false, "fr": false}},
	} {
		require.Equal(t, tt.want, defaults(evidence(tt.domainID, tt.cands...)), tt.domainID)
	}
	// Editions read without a news entry, on a site whose own language is
	// the country's: one edition, no edition at all.
	for _, d := range decide(evidence("com:gb:x-example.com", www), cfg) {
		require.Nil(t, d.Edition)
	}
	// The German edition could not be read this run (the budget): the
	// site's own seed keeps its edition, not the plain seed_id.
	ev := evidence("com:de:x-example.com", www)
	ev.Editions = []EditionEvidence{{Language: "de", Host: "de.x-example.com", Dropped: SkipBudget}}
	ds := decide(ev, cfg)
	require.Len(t, ds, 1)
	require.Equal(t, "en", ds[0].Edition.Language)
	require.False(t, ds[0].Edition.Default)
}
