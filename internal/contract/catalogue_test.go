package contract_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/contract"
	"github.com/seedengine/seedengine/internal/fetch"
	"github.com/seedengine/seedengine/internal/simweb"
	"github.com/seedengine/seedengine/internal/simweb/simwebtest"
)

// catalogue serves the realistic site catalogue.
func catalogue(tb testing.TB) ([]simweb.CatalogueEntry, *simweb.Web, *fetch.Client) {
	tb.Helper()
	return simwebtest.Catalogue(tb, 5*time.Second)
}

// chosen is the decision of the expected content type, if any.
func chosen(ev *contract.Evidence, ct string) (contract.Decision, bool) {
	for _, d := range ev.Decisions {
		if d.ContentType == ct {
			return d, true
		}
	}
	return contract.Decision{}, false
}

// chosenEdition is the decision of content type ct for edition lang
// (any, when the entry has no editions).
func chosenEdition(ev *contract.Evidence, ct, lang string, editions bool) (contract.Decision, bool) {
	if !editions {
		return chosen(ev, ct)
	}
	for _, d := range ev.Decisions {
		if d.ContentType == ct && d.Edition != nil && d.Edition.Language == lang {
			return d, true
		}
	}
	return contract.Decision{}, false
}

// TestDiscoverCatalogue runs the search on every layout of the realistic
// catalogue and fails when one does not get the seed a person would
// choose. With -v it prints the table kept in docs/seeds.md.
func TestDiscoverCatalogue(t *testing.T) {
	t.Parallel()
	entries, _, client := catalogue(t)
	d := contract.New(client, contract.Config{})
	rows := make([]string, len(entries))
	for i, e := range entries {
		t.Run(e.Name, func(t *testing.T) {
			t.Parallel()
			_, _, domain, err := seedengine.ParseDomainID(e.DomainID)
			require.NoError(t, err)
			ev := d.Discover(t.Context(), e.DomainID, domain)
			got, ok := chosenEdition(ev, e.Expect.ContentType, e.Expect.Edition, len(e.Editions) > 0)
			rows[i] = fmt.Sprintf("| `%s` | %s `%s` | %d |", e.Name, got.FetchType, got.EntryURL, ev.Spent.Requests)
			require.True(t, ok, "no %s decision: %+v", e.Expect.ContentType, ev.Decisions)
			require.Equal(t, e.Expect.EntryURL, got.EntryURL, "%s: %s", e.ModelledOn, got.Why)
			require.Equal(t, seedengine.FetchType(e.Expect.FetchType), got.FetchType)
			// A publisher with editions on other hosts: one seed each,
			// the default (the domain's country's language) with the
			// plain seed_id, each other with @{language}.
			if len(e.Editions) == 0 {
				for _, dec := range ev.Decisions {
					require.Nil(t, dec.Edition, "%s has one edition: %+v", e.Name, dec)
				}
			} else {
				require.NotNil(t, got.Edition)
				require.True(t, got.Edition.Default, "the %s edition is the default", e.Expect.Edition)
				require.Equal(t, seedengine.SeedID(e.DomainID, "news"), contract.SeedFrom(ev, got, "k", "news").SeedID)
				news := 0
				for _, dec := range ev.Decisions {
					if dec.ContentType == "news" {
						news++
					}
				}
				require.Equal(t, 1+len(e.Editions), news, "one news seed per edition: %+v", ev.Decisions)
				for _, want := range e.Editions {
					ed, ok := chosenEdition(ev, want.ContentType, want.Edition, true)
					require.True(t, ok, "no decision for the %s edition: %+v", want.Edition, ev.Decisions)
					require.Equal(t, want.EntryURL, ed.EntryURL, "the %s edition: %s", want.Edition, ed.Why)
					require.Equal(t, seedengine.FetchType(want.FetchType), ed.FetchType)
					require.False(t, ed.Edition.Default)
					s := contract.SeedFrom(ev, ed, "k", "news")
					require.NoError(t, s.Validate())
					require.Equal(t, seedengine.EditionSeedID(e.DomainID, "news", want.Edition), s.SeedID)
					require.Equal(t, want.Edition, s.Source.Edition.Language)
					if s.Policy.SitemapURL != "" {
						require.Contains(t, s.Policy.SitemapURL, "://"+s.Source.Edition.Host+"/", "the %s edition's own sitemap", want.Edition)
					}
					rows[i] += fmt.Sprintf("<br>%s edition: %s `%s`", want.Edition, ed.FetchType, ed.EntryURL)
				}
			}
			require.LessOrEqual(t, ev.Spent.Requests, 40)
			for _, c := range ev.Candidates {
				require.NotEmpty(t, c.Via, "%+v", c)
				require.True(t, c.Fetched || c.Skipped != "", "an unfetched candidate says why: %+v", c)
			}
			s := contract.SeedFrom(ev, got, "prod/contracts/x/2026-01-01T000000Z-abcdefgh.json", "news")
			require.NoError(t, s.Validate())
			if s.Policy.SitemapURL != "" {
				require.True(t, strings.Contains(s.Policy.SitemapURL, domain), "policy sitemap %s on the domain", s.Policy.SitemapURL)
			}
		})
	}
	t.Cleanup(func() {
		if testing.Verbose() {
			slices.Sort(rows)
			t.Log("\n| Layout | Seed chosen | Requests |\n|---|---|---|\n" + strings.Join(rows, "\n"))
		}
	})
}
