package app_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/contract"
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
		var page struct {
			Items     []seedengine.Seed `json:"items"`
			NextAfter string            `json:"next_after"`
		}
		for after := ""; ; after = page.NextAfter {
			page.Items, page.NextAfter = nil, ""
			r := s.get(t, "/api/v1/seeds?limit=100&status=draft&after="+after, &page)
			require.Equal(t, http.StatusOK, r.StatusCode, string(r.Body))
			for _, sd := range page.Items {
				seeds[key{sd.Source.Domain, sd.ContentType}] = sd
			}
			if page.NextAfter == "" {
				break
			}
		}
		for _, e := range entries {
			_, _, domain, _ := seedengine.ParseDomainID(e.DomainID)
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
