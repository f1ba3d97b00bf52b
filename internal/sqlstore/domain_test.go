package sqlstore_test

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/sqlstore"
	"github.com/seedengine/seedengine/internal/sqlstore/sqlstoretest"
)

var (
	pSGNews1 = seedengine.Partition{Country: "sg", Category: "news", Date: "2026-01-28"}
	pSGNews2 = seedengine.Partition{Country: "sg", Category: "news", Date: "2026-01-29"}
	pSGPol   = seedengine.Partition{Country: "sg", Category: "policy", Date: "2026-01-28"}
	pJPNews  = seedengine.Partition{Country: "jp", Category: "news", Date: "2026-01-28"}
)

// sighting returns a sighting with every field set from its parts.
func sighting(a seedengine.Authority, country, registrable, rule string) seedengine.DomainSighting {
	return seedengine.DomainSighting{
		ID:                seedengine.DomainID(a, country, registrable),
		RegistrableDomain: registrable,
		Authority:         a,
		AuthorityRule:     rule,
		Country:           country,
	}
}

// at returns a time on 2026-01-28 at hh:mm UTC with microseconds, which
// both engines keep.
func at(hh, mm int) time.Time {
	return time.Date(2026, 1, 28, hh, mm, 0, 123456000, time.UTC)
}

func findDomain(t *testing.T, s *sqlstore.DomainService, id string) *seedengine.Domain {
	t.Helper()
	d, err := s.FindDomainByID(t.Context(), id)
	require.NoError(t, err)
	return d
}

func TestRegisterDomains(t *testing.T) {
	t.Parallel()
	sqlstoretest.Engines(t, func(t *testing.T, db *sqlstore.DB) {
		ctx := t.Context()
		s := sqlstore.NewDomainService(db)

		mom := sighting(seedengine.AuthorityGov, "sg", "mom.gov.sg", "suffix:gov.sg")
		who := sighting(seedengine.AuthorityNGO, "intl", "who.int", "suffix:int")
		require.NoError(t, s.RegisterDomains(ctx, pSGNews1, at(10, 0), []seedengine.DomainSighting{mom, who}))

		require.Equal(t, &seedengine.Domain{
			ID:                "gov:sg:mom.gov.sg",
			RegistrableDomain: "mom.gov.sg",
			Authority:         seedengine.AuthorityGov,
			AuthorityRule:     "suffix:gov.sg",
			SourceType:        "government",
			Country:           "sg",
			FirstSeen:         at(10, 0),
			LastSeen:          at(10, 0),
			PartitionCount:    1,
			Partitions:        []seedengine.Partition{pSGNews1},
		}, findDomain(t, s, mom.ID), "a new domain, its times included, round-trips")
		got := findDomain(t, s, who.ID)
		require.Equal(t, "intl", got.Country, "the domain keeps its own country, not the partition's")
		require.Equal(t, "ngo", got.SourceType)

		// Seen later in another partition, with a refined rule.
		mom.AuthorityRule = "suffix:gov.sg (v2)"
		require.NoError(t, s.RegisterDomains(ctx, pSGNews2, at(11, 0), []seedengine.DomainSighting{mom}))
		got = findDomain(t, s, mom.ID)
		require.Equal(t, at(10, 0), got.FirstSeen)
		require.Equal(t, at(11, 0), got.LastSeen)
		require.Equal(t, "suffix:gov.sg (v2)", got.AuthorityRule, "authority fields are refreshed")
		require.Equal(t, 2, got.PartitionCount)
		require.Equal(t, []seedengine.Partition{pSGNews1, pSGNews2}, got.Partitions)

		// An older sighting in a partition it already has: first_seen moves
		// back, last_seen stays, nothing is counted twice.
		require.NoError(t, s.RegisterDomains(ctx, pSGNews1, at(9, 0), []seedengine.DomainSighting{mom}))
		got = findDomain(t, s, mom.ID)
		require.Equal(t, at(9, 0), got.FirstSeen)
		require.Equal(t, at(11, 0), got.LastSeen)
		require.Equal(t, 2, got.PartitionCount)

		// Duplicates within a call count once, the last one's fields win;
		// fields left empty come from the id.
		dup := seedengine.DomainSighting{ID: "com:jp:example.co.jp", AuthorityRule: "first"}
		dup2 := dup
		dup2.AuthorityRule = "last"
		require.NoError(t, s.RegisterDomains(ctx, pJPNews, time.Time{}, []seedengine.DomainSighting{dup, mom, dup2}))
		got = findDomain(t, s, dup.ID)
		require.Equal(t, "last", got.AuthorityRule)
		require.Equal(t, "example.co.jp", got.RegistrableDomain)
		require.Equal(t, seedengine.AuthorityCom, got.Authority)
		require.Equal(t, "jp", got.Country)
		require.Equal(t, "company", got.SourceType)
		require.Equal(t, 1, got.PartitionCount)
		require.WithinDuration(t, time.Now(), got.FirstSeen, time.Minute, "a zero time means now")
		require.Equal(t, time.UTC, got.FirstSeen.Location())
		got = findDomain(t, s, mom.ID)
		require.Equal(t, 3, got.PartitionCount)
		require.Equal(t, []seedengine.Partition{pJPNews, pSGNews1, pSGNews2}, got.Partitions, "partitions in country, category, date order")

		require.NoError(t, s.RegisterDomains(ctx, pJPNews, at(1, 0), nil), "nothing to register is no error")
		requireDomainCountsExact(t, db, 3)
	})
}

func TestRegisterDomainsInvalid(t *testing.T) {
	t.Parallel()
	good := sighting(seedengine.AuthorityGov, "sg", "mom.gov.sg", "suffix:gov.sg")
	tests := []struct {
		name      string
		p         seedengine.Partition
		ds        []seedengine.DomainSighting
		wantField string
	}{
		{"bad partition", seedengine.Partition{Country: "xx", Category: "news", Date: "2026-01-28"}, []seedengine.DomainSighting{good}, "country"},
		{"bad date", seedengine.Partition{Country: "sg", Category: "news", Date: "2026-02-30"}, []seedengine.DomainSighting{good}, "date"},
		{"bad id", pSGNews1, []seedengine.DomainSighting{good, {ID: "gov:sg"}}, "domain_id"},
		{"unknown authority", pSGNews1, []seedengine.DomainSighting{{ID: "king:sg:mom.gov.sg"}}, "domain_id"},
		{"authority disagrees", pSGNews1, []seedengine.DomainSighting{{ID: good.ID, Authority: seedengine.AuthorityCom}}, "domain_id"},
		{"country disagrees", pSGNews1, []seedengine.DomainSighting{{ID: good.ID, Country: "jp"}}, "domain_id"},
		{"domain disagrees", pSGNews1, []seedengine.DomainSighting{{ID: good.ID, RegistrableDomain: "mof.gov.sg"}}, "domain_id"},
		{"long rule", pSGNews1, []seedengine.DomainSighting{{ID: good.ID, AuthorityRule: string(make([]byte, 201))}}, "authority_rule"},
	}
	sqlstoretest.Engines(t, func(t *testing.T, db *sqlstore.DB) {
		s := sqlstore.NewDomainService(db)
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				err := s.RegisterDomains(t.Context(), tt.p, at(10, 0), tt.ds)
				requireCode(t, err, seedengine.EINVALID)
				require.Equal(t, tt.wantField, seedengine.ErrorField(err))
			})
		}
		requireDomainCountsExact(t, db, 0)
	})
}

// manySightings returns n sightings of distinct domains, spread over
// authorities and two countries.
func manySightings(prefix string, n int) []seedengine.DomainSighting {
	authorities := []seedengine.Authority{seedengine.AuthorityGov, seedengine.AuthorityEdu, seedengine.AuthorityCom, seedengine.AuthorityMedia}
	ds := make([]seedengine.DomainSighting, n)
	for i := range ds {
		country := "sg"
		if i%2 == 1 {
			country = "jp"
		}
		ds[i] = sighting(authorities[i%len(authorities)], country, fmt.Sprintf("%s%05d.example", prefix, i), "rule")
	}
	return ds
}

func TestRegisterDomainsManyStatements(t *testing.T) {
	t.Parallel()
	sqlstoretest.Engines(t, func(t *testing.T, db *sqlstore.DB) {
		ctx := t.Context()
		s := sqlstore.NewDomainService(db)
		// More than two statements' worth, the last one partial.
		ds := manySightings("d", 1234)
		require.NoError(t, s.RegisterDomains(ctx, pSGNews1, at(10, 0), ds))
		// Half of them again in the same partition, and all in a second one.
		require.NoError(t, s.RegisterDomains(ctx, pSGNews1, at(11, 0), ds[:617]))
		require.NoError(t, s.RegisterDomains(ctx, pSGNews2, at(12, 0), ds))

		_, total, err := s.FindDomains(ctx, seedengine.DomainFilter{})
		require.NoError(t, err)
		require.Equal(t, 1234, total)
		_, total, err = s.FindDomains(ctx, seedengine.DomainFilter{Partition: &pSGNews1})
		require.NoError(t, err)
		require.Equal(t, 1234, total)
		for _, i := range []int{0, 499, 500, 616, 617, 1233} {
			d := findDomain(t, s, ds[i].ID)
			require.Equal(t, 2, d.PartitionCount, ds[i].ID)
			require.Equal(t, at(12, 0), d.LastSeen)
			require.Equal(t, at(10, 0), d.FirstSeen)
		}
		requireDomainCountsExact(t, db, 1234)
	})
}

// TestRegisterDomainsConcurrent registers overlapping sets of domains in
// overlapping partitions from many goroutines. On PostgreSQL the calls run
// in concurrent transactions; the registry must end with one row per domain,
// partition counts that match the partition rows exactly, and the earliest
// and latest sighting times, without a deadlock.
func TestRegisterDomainsConcurrent(t *testing.T) {
	t.Parallel()
	sqlstoretest.Engines(t, func(t *testing.T, db *sqlstore.DB) {
		ctx := t.Context()
		s := sqlstore.NewDomainService(db)
		// Windows of 600 take two statements each, so the lock order across
		// statements is exercised too.
		all := manySightings("c", 900)
		partitions := []seedengine.Partition{pSGNews1, pSGNews2, pSGPol}

		const workers = 8
		const rounds = 3
		var wg sync.WaitGroup
		errs := make(chan error, workers*rounds)
		for w := range workers {
			wg.Go(func() {
				for r := range rounds {
					// Each worker takes a window of the domains, shifted per
					// worker, in reverse order for odd workers so inputs
					// arrive in different orders.
					start := (w * 37) % 300
					ds := append([]seedengine.DomainSighting(nil), all[start:start+600]...)
					if w%2 == 1 {
						for i, j := 0, len(ds)-1; i < j; i, j = i+1, j-1 {
							ds[i], ds[j] = ds[j], ds[i]
						}
					}
					p := partitions[(w+r)%len(partitions)]
					errs <- s.RegisterDomains(ctx, p, at(10, w), ds)
				}
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			require.NoError(t, err)
		}

		// Which (domain, partition) pairs were registered, computed here.
		want := map[string]map[seedengine.Partition]bool{}
		firstW, lastW := map[string]int{}, map[string]int{}
		for w := range workers {
			start := (w * 37) % 300
			for _, d := range all[start : start+600] {
				if f, ok := firstW[d.ID]; !ok || w < f {
					firstW[d.ID] = w
				}
				lastW[d.ID] = max(lastW[d.ID], w)
			}
			for r := range rounds {
				p := partitions[(w+r)%len(partitions)]
				for _, d := range all[start : start+600] {
					if want[d.ID] == nil {
						want[d.ID] = map[seedengine.Partition]bool{}
					}
					want[d.ID][p] = true
				}
			}
		}
		requireDomainCountsExact(t, db, len(want))
		for id, ps := range want {
			d := findDomain(t, s, id)
			require.Equal(t, len(ps), d.PartitionCount, id)
			require.Len(t, d.Partitions, len(ps), id)
			require.Equal(t, at(10, firstW[id]), d.FirstSeen, id)
			require.Equal(t, at(10, lastW[id]), d.LastSeen, id)
		}
	})
}

// requireDomainCountsExact asserts there are n domains and that every
// partition_count equals the domain's rows in domain_partitions.
func requireDomainCountsExact(t *testing.T, db *sqlstore.DB, n int) {
	t.Helper()
	ctx := t.Context()
	var got int
	require.NoError(t, db.Reader().QueryRowContext(ctx, `SELECT COUNT(*) FROM domains`).Scan(&got))
	require.Equal(t, n, got, "domain rows")
	require.NoError(t, db.Reader().QueryRowContext(ctx, `SELECT COUNT(*) FROM domains d
		WHERE d.partition_count <> (SELECT COUNT(*) FROM domain_partitions dp WHERE dp.domain_id = d.domain_id)`).Scan(&got))
	require.Zero(t, got, "domains whose partition_count is off")
}

func TestFindDomainByIDNotFound(t *testing.T) {
	t.Parallel()
	sqlstoretest.Engines(t, func(t *testing.T, db *sqlstore.DB) {
		d, err := sqlstore.NewDomainService(db).FindDomainByID(t.Context(), "gov:sg:nowhere.gov.sg")
		requireCode(t, err, seedengine.ENOTFOUND)
		require.Nil(t, d)
	})
}

func TestFindDomains(t *testing.T) {
	t.Parallel()
	sqlstoretest.Engines(t, func(t *testing.T, db *sqlstore.DB) {
		ctx := t.Context()
		s := sqlstore.NewDomainService(db)
		// 1,100 domains in pSGNews1: gov/edu/com/media in turn, sg and jp in
		// turn (gov and com are sg, edu and media jp). The first 10 are also in
		// pJPNews.
		ds := manySightings("f", 1100)
		require.NoError(t, s.RegisterDomains(ctx, pSGNews1, at(10, 0), ds))
		require.NoError(t, s.RegisterDomains(ctx, pJPNews, at(11, 0), ds[:10]))

		ids := func(list []*seedengine.Domain) []string {
			out := make([]string, len(list))
			for i, d := range list {
				out[i] = d.ID
				require.Nil(t, d.Partitions, "lists leave partitions out")
			}
			return out
		}

		got, total, err := s.FindDomains(ctx, seedengine.DomainFilter{})
		require.NoError(t, err)
		require.Equal(t, 1100, total)
		require.Len(t, got, 50, "default limit")
		require.IsIncreasing(t, ids(got), "ordered by domain_id")
		require.Equal(t, "com:sg:f00002.example", got[0].ID)

		got, total, err = s.FindDomains(ctx, seedengine.DomainFilter{Limit: 5000})
		require.NoError(t, err)
		require.Equal(t, 1100, total)
		require.Len(t, got, 1000, "limit is capped")

		tests := []struct {
			name      string
			f         seedengine.DomainFilter
			wantTotal int
			wantFirst string
			wantLen   int
		}{
			{"country", seedengine.DomainFilter{Country: "jp"}, 550, "edu:jp:f00001.example", 50},
			{"country any case", seedengine.DomainFilter{Country: " JP "}, 550, "edu:jp:f00001.example", 50},
			{"authority", seedengine.DomainFilter{Authority: seedengine.AuthorityGov}, 275, "gov:sg:f00000.example", 50},
			{"country and authority", seedengine.DomainFilter{Country: "jp", Authority: seedengine.AuthorityEdu}, 275, "edu:jp:f00001.example", 50},
			{"country excludes authority", seedengine.DomainFilter{Country: "sg", Authority: seedengine.AuthorityEdu}, 0, "", 0},
			{"partition", seedengine.DomainFilter{Partition: &pJPNews}, 10, "com:sg:f00002.example", 10},
			{"partition and authority", seedengine.DomainFilter{Partition: &pJPNews, Authority: seedengine.AuthorityMedia}, 2, "media:jp:f00003.example", 2},
			{"empty partition", seedengine.DomainFilter{Partition: &pSGPol}, 0, "", 0},
			{"page", seedengine.DomainFilter{Partition: &pJPNews, Limit: 3, Offset: 3}, 10, "edu:jp:f00005.example", 3},
			{"last page", seedengine.DomainFilter{Partition: &pJPNews, Limit: 3, Offset: 9}, 10, "media:jp:f00007.example", 1},
			{"past the end", seedengine.DomainFilter{Partition: &pJPNews, Limit: 3, Offset: 10}, 10, "", 0},
			{"negative offset", seedengine.DomainFilter{Partition: &pJPNews, Offset: -1}, 10, "com:sg:f00002.example", 10},
			{"partition country", seedengine.DomainFilter{PartitionCountry: "jp"}, 10, "com:sg:f00002.example", 10},
			{"partition country any case", seedengine.DomainFilter{PartitionCountry: "JP"}, 10, "com:sg:f00002.example", 10},
			{"partition country and country", seedengine.DomainFilter{PartitionCountry: "jp", Country: "sg"}, 5, "com:sg:f00002.example", 5},
			{"partition country and authority", seedengine.DomainFilter{PartitionCountry: "jp", Authority: seedengine.AuthorityMedia}, 2, "media:jp:f00003.example", 2},
			{"partition country without domains", seedengine.DomainFilter{PartitionCountry: "gl"}, 0, "", 0},
			{"ids", seedengine.DomainFilter{IDs: []string{"gov:sg:f00000.example", "edu:jp:f00013.example", "gov:sg:nowhere.example"}}, 2, "edu:jp:f00013.example", 2},
			{"ids and partition country", seedengine.DomainFilter{IDs: []string{"gov:sg:f00000.example", "edu:jp:f00013.example"}, PartitionCountry: "jp"}, 1, "gov:sg:f00000.example", 1},
			{"ids in a partition", seedengine.DomainFilter{IDs: []string{"gov:sg:f00000.example", "edu:jp:f00013.example"}, Partition: &pJPNews}, 1, "gov:sg:f00000.example", 1},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				got, total, err := s.FindDomains(ctx, tt.f)
				require.NoError(t, err)
				require.Equal(t, tt.wantTotal, total)
				require.Len(t, got, tt.wantLen)
				require.NotNil(t, got)
				if tt.wantFirst != "" {
					require.Equal(t, tt.wantFirst, got[0].ID)
				}
				for _, d := range got {
					if tt.f.Authority != "" {
						require.Equal(t, tt.f.Authority, d.Authority)
					}
				}
			})
		}

		// A listed domain carries every column.
		got, _, err = s.FindDomains(ctx, seedengine.DomainFilter{Partition: &pJPNews, Limit: 1})
		require.NoError(t, err)
		want := findDomain(t, s, got[0].ID)
		want.Partitions = nil
		require.Equal(t, want, got[0])
		require.Equal(t, 2, got[0].PartitionCount)

		tooMany := make([]string, seedengine.MaxDomainFilterIDs+1)
		for i := range tooMany {
			tooMany[i] = fmt.Sprintf("com:sg:x%d.example", i)
		}
		for _, f := range []seedengine.DomainFilter{
			{Country: "xx"},
			{Authority: "king"},
			{PartitionCountry: "xx"},
			{IDs: []string{}},
			{IDs: tooMany},
			{Partition: &seedengine.Partition{Country: "sg", Category: "News", Date: "2026-01-28"}},
		} {
			_, _, err := s.FindDomains(ctx, f)
			requireCode(t, err, seedengine.EINVALID)
		}
	})
}

// A sighting without a rule (a stored record that carries only its
// domain_id) keeps the registered rule; a new rule replaces it.
// A domain seen again in a partition it has, at no new time and with
// nothing new, is not written: on PostgreSQL its row keeps its version
// (xmin) and no transaction has locked it (xmax).
func TestRegisterDomainsSeenAgainWritesNothing(t *testing.T) {
	t.Parallel()
	sqlstoretest.Engines(t, func(t *testing.T, db *sqlstore.DB) {
		ctx := t.Context()
		s := sqlstore.NewDomainService(db)
		mom := sighting(seedengine.AuthorityGov, "sg", "mom.gov.sg", "suffix:gov.sg")
		who := sighting(seedengine.AuthorityNGO, "intl", "who.int", "suffix:int")
		require.NoError(t, s.RegisterDomains(ctx, pSGNews1, at(10, 0), []seedengine.DomainSighting{mom, who}))
		version := func(id string) string {
			if db.Engine() != sqlstore.EnginePostgres {
				return ""
			}
			var v string
			require.NoError(t, db.Reader().QueryRowContext(ctx, `SELECT xmin::text || '/' || xmax::text FROM domains WHERE domain_id = $1`, id).Scan(&v))
			return v
		}
		before := version(mom.ID)
		// mom again as it was, and again with no rule; who with a new rule,
		// which is written.
		who.AuthorityRule = "suffix:int (v2)"
		require.NoError(t, s.RegisterDomains(ctx, pSGNews1, at(10, 0), []seedengine.DomainSighting{mom, who}))
		require.NoError(t, s.RegisterDomains(ctx, pSGNews1, at(10, 0), []seedengine.DomainSighting{{ID: mom.ID}}))
		require.Equal(t, before, version(mom.ID))
		require.Equal(t, "suffix:int (v2)", findDomain(t, s, who.ID).AuthorityRule)
		require.Equal(t, "suffix:gov.sg", findDomain(t, s, mom.ID).AuthorityRule)

		require.NoError(t, s.RegisterDomains(ctx, pSGNews1, at(9, 30), []seedengine.DomainSighting{{ID: mom.ID}}))
		got := findDomain(t, s, mom.ID)
		require.Equal(t, at(9, 30), got.FirstSeen, "an older sighting still moves first_seen back")
		require.Equal(t, at(10, 0), got.LastSeen)
		require.Equal(t, 1, got.PartitionCount)
	})
}

func TestRegisterDomainsKeepsRuleWhenEmpty(t *testing.T) {
	t.Parallel()
	sqlstoretest.Engines(t, func(t *testing.T, db *sqlstore.DB) {
		ctx := t.Context()
		s := sqlstore.NewDomainService(db)
		mom := sighting(seedengine.AuthorityGov, "sg", "mom.gov.sg", "suffix:gov.sg")
		require.NoError(t, s.RegisterDomains(ctx, pSGNews1, at(10, 0), []seedengine.DomainSighting{mom}))

		bare := seedengine.DomainSighting{ID: mom.ID}
		require.NoError(t, s.RegisterDomains(ctx, pSGNews2, at(11, 0), []seedengine.DomainSighting{bare}))
		d := findDomain(t, s, mom.ID)
		require.Equal(t, "suffix:gov.sg", d.AuthorityRule, "an empty rule never blanks one")
		require.Equal(t, "government", d.SourceType)
		require.Equal(t, 2, d.PartitionCount)
		require.Equal(t, at(11, 0), d.LastSeen)

		// In the same statement as a ruled sighting of another domain, and
		// with nothing else to change: still kept.
		who := sighting(seedengine.AuthorityNGO, "intl", "who.int", "suffix:int")
		require.NoError(t, s.RegisterDomains(ctx, pSGNews2, at(11, 0), []seedengine.DomainSighting{bare, who}))
		require.Equal(t, "suffix:gov.sg", findDomain(t, s, mom.ID).AuthorityRule)

		renamed := mom
		renamed.AuthorityRule = "operator:mom"
		require.NoError(t, s.RegisterDomains(ctx, pSGNews2, at(11, 0), []seedengine.DomainSighting{renamed}))
		require.Equal(t, "operator:mom", findDomain(t, s, mom.ID).AuthorityRule)
	})
}
