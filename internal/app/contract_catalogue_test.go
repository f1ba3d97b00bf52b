package app_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/contract"
	"github.com/seedengine/seedengine/internal/simweb"
	"github.com/seedengine/seedengine/internal/simweb/simwebtest"
	"github.com/seedengine/seedengine/internal/sqlstore"
	"github.com/seedengine/seedengine/internal/sqlstore/sqlstoretest"
)

// TestContractBatchCatalogue is the catalogue test of the contract work:
// research for one partition lists the home pages of every realistic
// layout of internal/simweb's catalogue (real CMSs, real robots.txt files,
// feed directories, sibling hosts, news sitemaps hidden in many ways), a
// contract batch takes the whole partition, and every layout must get the
// seed a person would choose. It fails naming the layout that did not.
func TestContractBatchCatalogue(t *testing.T) {
	t.Parallel()
	entries, _, client := simwebtest.Catalogue(t, 10*time.Second)
	d := contract.New(client, contract.Config{})

	sqlstoretest.Engines(t, func(t *testing.T, db *sqlstore.DB) {
		s := newStack(t, db, withQueue(), withContract(d))
		const date = "2026-11-20"
		urls := make([]string, len(entries))
		for i, e := range entries {
			_, _, domain, err := seedengine.ParseDomainID(e.DomainID)
			require.NoError(t, err)
			urls[i] = "https://" + domain + "/"
		}
		r := s.post(t, "/api/v1/research", map[string]any{"country": "intl", "category": "news", "date": date, "urls": urls})
		require.Equal(t, http.StatusCreated, r.StatusCode, string(r.Body))

		r = s.post(t, "/api/v1/queues/contract", map[string]any{"country": "intl", "category": "news", "date": date, "chunkSize": 8})
		require.Equal(t, http.StatusAccepted, r.StatusCode, string(r.Body))
		b := s.waitBatch(t, strings.TrimPrefix(r.Header.Get("Location"), "/api/v1/queues/batch/"))
		require.Equal(t, seedengine.BatchCompleted, b.Status, string(b.Result))
		require.Equal(t, len(entries), b.Items.Succeeded)

		// Research gave each domain its own domain_id; find its seeds by
		// the registrable domain.
		type key struct{ domain, contentType string }
		seeds := map[key]seedengine.Seed{}
		// A publisher's editions: news seeds by domain, then language.
		editions := map[string]map[string]seedengine.Seed{}
		var page struct {
			Items     []seedengine.Seed `json:"items"`
			NextAfter string            `json:"next_after"`
		}
		for after := ""; ; after = page.NextAfter {
			page.Items, page.NextAfter = nil, ""
			r := s.get(t, "/api/v1/seeds?limit=100&status=draft&after="+after, &page)
			require.Equal(t, http.StatusOK, r.StatusCode, string(r.Body))
			for _, sd := range page.Items {
				if e := sd.Source.Edition; e != nil {
					if editions[sd.Source.Domain] == nil {
						editions[sd.Source.Domain] = map[string]seedengine.Seed{}
					}
					editions[sd.Source.Domain][e.Language] = sd
					continue
				}
				seeds[key{sd.Source.Domain, sd.ContentType}] = sd
			}
			if page.NextAfter == "" {
				break
			}
		}
		for _, e := range entries {
			_, _, domain, _ := seedengine.ParseDomainID(e.DomainID)
			if len(e.Editions) > 0 {
				// Researched as intl, the site's own edition is the
				// default; each edition has its seed all the same.
				got := map[string]string{}
				defaults := 0
				for lang, sd := range editions[domain] {
					got[lang] = sd.Fetch.EntryURL
					if sd.Source.Edition.Default {
						defaults++
						require.Equal(t, seedengine.SeedID(sd.DomainID, "news"), sd.SeedID, e.Name)
					} else {
						require.Equal(t, seedengine.EditionSeedID(sd.DomainID, "news", lang), sd.SeedID, e.Name)
					}
				}
				want := map[string]string{e.Expect.Edition: e.Expect.EntryURL}
				for _, ed := range e.Editions {
					want[ed.Edition] = ed.EntryURL
				}
				require.Equal(t, want, got, "%s: one seed per edition (%s)", e.Name, e.ModelledOn)
				require.Equal(t, 1, defaults, e.Name)
				continue
			}
			sd, ok := seeds[key{domain, e.Expect.ContentType}]
			require.True(t, ok, "%s: no %s seed for %s", e.Name, e.Expect.ContentType, domain)
			require.Equal(t, e.Expect.EntryURL, sd.Fetch.EntryURL, "%s (%s)", e.Name, e.ModelledOn)
			require.Equal(t, seedengine.FetchType(e.Expect.FetchType), sd.Fetch.Type, e.Name)
			require.LessOrEqual(t, sd.Evidence.Requests, 40, e.Name)
			if sd.Policy.SitemapURL != "" {
				require.Contains(t, sd.Policy.SitemapURL, domain, "%s: the policy names the site's own sitemap", e.Name)
			}
		}
	})
}

// A publisher with editions on other hosts, researched for the country of
// one of them: the contract batch makes one seed per edition, the
// country's language's with the plain seed_id; each edition's seed is
// reviewed on its own edition's candidates (the others' say
// other_edition and cannot be chosen), and promoting one leaves the
// others drafts.
func TestEditionSeedsReview(t *testing.T) {
	t.Parallel()
	entries, _, client := simwebtest.Catalogue(t, 10*time.Second)
	d := contract.New(client, contract.Config{})
	var e simweb.CatalogueEntry
	for _, c := range entries {
		if c.Name == "editions_hreflang" {
			e = c
		}
	}
	require.NotEmpty(t, e.Editions)
	_, country, domain, err := seedengine.ParseDomainID(e.DomainID)
	require.NoError(t, err)
	s := newStack(t, sqlstoretest.OpenSQLite(t), withQueue(), withContract(d))
	const date = "2026-11-21"
	r := s.post(t, "/api/v1/research", map[string]any{"country": country, "category": "news", "date": date, "urls": []string{"https://" + domain + "/"}})
	require.Equal(t, http.StatusCreated, r.StatusCode, string(r.Body))
	r = s.post(t, "/api/v1/queues/contract", map[string]any{"country": country, "category": "news", "date": date})
	require.Equal(t, http.StatusAccepted, r.StatusCode, string(r.Body))
	b := s.waitBatch(t, strings.TrimPrefix(r.Header.Get("Location"), "/api/v1/queues/batch/"))
	require.Equal(t, seedengine.BatchCompleted, b.Status, string(b.Result))

	seed := func(id string) seedengine.Seed {
		t.Helper()
		var sd seedengine.Seed
		r := s.get(t, "/api/v1/seeds/"+url.PathEscape(id), &sd)
		require.Equal(t, http.StatusOK, r.StatusCode, string(r.Body))
		return sd
	}
	// Research classified the domain itself (com:de:…).
	var all struct {
		Items []seedengine.Seed `json:"items"`
	}
	r = s.get(t, "/api/v1/seeds?status=draft&limit=100", &all)
	require.Equal(t, http.StatusOK, r.StatusCode, string(r.Body))
	require.Len(t, all.Items, 1+len(e.Editions), "one seed per edition")
	domainID := all.Items[0].DomainID
	def := seed(seedengine.SeedID(domainID, "news"))
	require.Equal(t, e.Expect.EntryURL, def.Fetch.EntryURL)
	require.Equal(t, &seedengine.SeedEdition{Language: e.Expect.Edition, Host: hostOf(t, e.Expect.EntryURL), Default: true}, def.Source.Edition)
	for _, want := range e.Editions {
		sd := seed(seedengine.EditionSeedID(domainID, "news", want.Edition))
		require.Equal(t, want.EntryURL, sd.Fetch.EntryURL)
		require.Equal(t, &seedengine.SeedEdition{Language: want.Edition, Host: hostOf(t, want.EntryURL), Default: false}, sd.Source.Edition)
		if h := hostOf(t, want.EntryURL); h != "www."+domain {
			require.Equal(t, "https://"+h+"/robots.txt", sd.Policy.RobotsURL, "its own host's robots.txt governs it")
		}
	}

	// The French edition's candidates: its feed chosen, the others'
	// feeds another edition's, which choose refuses.
	fr := seedengine.EditionSeedID(domainID, "news", "fr")
	var cands struct {
		Items []seedengine.SeedCandidate `json:"items"`
	}
	r = s.get(t, "/api/v1/seeds/"+url.PathEscape(fr)+"/candidates", &cands)
	require.Equal(t, http.StatusOK, r.StatusCode, string(r.Body))
	others := 0
	for _, c := range cands.Items {
		switch {
		case c.Chosen:
			require.Equal(t, seed(fr).Fetch.EntryURL, c.EntryURL)
		case c.URL == e.Expect.EntryURL:
			require.Equal(t, contract.RuleOtherEdition, c.Rule, "%+v", c)
			require.False(t, c.Usable)
			others++
		}
	}
	require.Equal(t, 1, others, "the German feed is listed as another edition's")
	r = s.post(t, "/api/v1/seeds/"+url.PathEscape(fr)+"/choose", map[string]any{"candidate_url": e.Expect.EntryURL})
	require.Equal(t, http.StatusUnprocessableEntity, r.StatusCode, string(r.Body))
	require.Contains(t, string(r.Body), "candidate_url")

	// Promoting the French edition leaves the others drafts.
	r = s.post(t, "/api/v1/seeds/promote", map[string]any{"seedId": fr})
	require.Equal(t, http.StatusOK, r.StatusCode, string(r.Body))
	require.Equal(t, seedengine.SeedActive, seed(fr).Status)
	require.Equal(t, seedengine.SeedDraft, seed(def.SeedID).Status)
}

func hostOf(t *testing.T, raw string) string {
	t.Helper()
	u, err := url.Parse(raw)
	require.NoError(t, err)
	return u.Hostname()
}
