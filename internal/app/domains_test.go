package app_test

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/httpapi/httpapitest"
	"github.com/seedengine/seedengine/internal/sqlstore"
	"github.com/seedengine/seedengine/internal/sqlstore/sqlstoretest"
)

type domainList struct {
	Items  []seedengine.Domain `json:"items"`
	Total  int                 `json:"total"`
	Limit  int                 `json:"limit"`
	Offset int                 `json:"offset"`
}

func domainIDs(l domainList) []string {
	ids := []string{}
	for _, d := range l.Items {
		ids = append(ids, d.ID)
	}
	return ids
}

func TestDomains(t *testing.T) {
	t.Parallel()
	sqlstoretest.Engines(t, func(t *testing.T, db *sqlstore.DB) {
		s := newStack(t, db)
		for _, w := range []struct {
			country, date string
			urls          []string
		}{
			{"sg", "2026-01-27", []string{"https://www.mom.gov.sg/", "https://www.nus.edu.sg/", "https://www.who.int/"}},
			{"sg", "2026-01-28", []string{"https://www.mom.gov.sg/newsroom", "https://example.com/"}},
			{"jp", "2026-01-28", []string{"https://www.mhlw.go.jp/"}},
		} {
			r := s.post(t, "/api/v1/research", map[string]any{"country": w.country, "category": "news", "date": w.date, "urls": w.urls})
			require.Equal(t, http.StatusCreated, r.StatusCode, string(r.Body))
		}

		var l domainList
		s.get(t, "/api/v1/domains", &l)
		require.Equal(t, 5, l.Total)
		require.Equal(t, 50, l.Limit)
		require.Equal(t, []string{"com:sg:example.com", "edu:sg:nus.edu.sg", "gov:jp:mhlw.go.jp", "gov:sg:mom.gov.sg", "ngo:intl:who.int"}, domainIDs(l))

		s.get(t, "/api/v1/domains?country=SG", &l)
		require.Equal(t, []string{"com:sg:example.com", "edu:sg:nus.edu.sg", "gov:sg:mom.gov.sg"}, domainIDs(l))
		s.get(t, "/api/v1/domains?country=intl", &l)
		require.Equal(t, []string{"ngo:intl:who.int"}, domainIDs(l))
		s.get(t, "/api/v1/domains?authority=gov", &l)
		require.Equal(t, []string{"gov:jp:mhlw.go.jp", "gov:sg:mom.gov.sg"}, domainIDs(l))
		s.get(t, "/api/v1/domains?authority=gov&limit=1&offset=1", &l)
		require.Equal(t, 2, l.Total)
		require.Equal(t, []string{"gov:sg:mom.gov.sg"}, domainIDs(l))
		s.get(t, "/api/v1/domains?country=sg&authority=mil", &l)
		require.Zero(t, l.Total)
		require.Empty(t, l.Items)

		var d seedengine.Domain
		r := s.get(t, "/api/v1/domains/gov:sg:mom.gov.sg", &d)
		require.Equal(t, http.StatusOK, r.StatusCode, string(r.Body))
		require.Equal(t, "gov:sg:mom.gov.sg", d.ID)
		require.Equal(t, "mom.gov.sg", d.RegistrableDomain)
		require.Equal(t, seedengine.AuthorityGov, d.Authority)
		require.NotEmpty(t, d.AuthorityRule)
		require.Equal(t, "government", d.SourceType)
		require.Equal(t, "sg", d.Country)
		require.Equal(t, 2, d.PartitionCount)
		require.Equal(t, []seedengine.Partition{
			{Country: "sg", Category: "news", Date: "2026-01-27"},
			{Country: "sg", Category: "news", Date: "2026-01-28"},
		}, d.Partitions)
		require.False(t, d.FirstSeen.IsZero())
		require.False(t, d.LastSeen.Before(d.FirstSeen))

		// Escaped and upper-cased ids name the same domain.
		r = s.get(t, "/api/v1/domains/"+url.PathEscape("GOV:SG:mom.gov.sg"), &d)
		require.Equal(t, http.StatusOK, r.StatusCode, string(r.Body))
		r = s.get(t, "/api/v1/domains/ngo%3Aintl%3Awho.int", &d)
		require.Equal(t, http.StatusOK, r.StatusCode, string(r.Body))
		require.Equal(t, seedengine.AuthorityNGO, d.Authority)

		s.do(t, request{Path: "/api/v1/domains/gov:sg:unknown.gov.sg"}).Problem(t, http.StatusNotFound, "not_found")
		for _, bad := range []string{"mom.gov.sg", "boss:sg:mom.gov.sg", "gov:zz:mom.gov.sg", "gov:sg:bad_host!"} {
			p := s.do(t, request{Path: "/api/v1/domains/" + url.PathEscape(bad)}).Problem(t, http.StatusUnprocessableEntity, "invalid")
			require.Equal(t, []string{"path.domainId"}, httpapitest.Locations(p), bad)
		}
		p := s.do(t, request{Path: "/api/v1/domains?country=xx"}).Problem(t, http.StatusUnprocessableEntity, "invalid")
		require.Equal(t, []string{"query.country"}, httpapitest.Locations(p))
		p = s.do(t, request{Path: "/api/v1/domains?authority=royal"}).Problem(t, http.StatusUnprocessableEntity, "invalid")
		require.Len(t, p.Errors, 1)
		p = s.do(t, request{Path: "/api/v1/domains?limit=1001"}).Problem(t, http.StatusUnprocessableEntity, "invalid")
		require.Len(t, p.Errors, 1)
	})
}
