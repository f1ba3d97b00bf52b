package sqlstore_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/sqlstore"
	"github.com/seedengine/seedengine/internal/sqlstore/sqlstoretest"
)

// newSeed returns a valid seed of domainID for content type news, as a
// contract run or a client would hand it over (identity derived fields
// left for Normalize).
func newSeed(domainID string) *seedengine.Seed {
	_, _, domain, _ := seedengine.ParseDomainID(domainID)
	checked := time.Date(2026, 1, 28, 10, 0, 0, 0, time.UTC)
	return &seedengine.Seed{
		DomainID:    domainID,
		ContentType: seedengine.ContentTypeNews,
		Category:    "news",
		Source:      seedengine.SeedSource{Name: "Example " + domain},
		Fetch: seedengine.SeedFetch{
			Type:     seedengine.FetchRSS,
			EntryURL: "https://www." + domain + "/rss.xml",
			Schedule: "@hourly",
		},
		Policy: seedengine.SeedPolicy{
			RobotsURL:    "https://www." + domain + "/robots.txt",
			CrawlAllowed: true,
		},
		Evidence:   seedengine.SeedEvidence{Method: "rss via link_alternate", Candidates: 3, CheckedAt: &checked},
		Confidence: 0.8,
	}
}

func createSeed(t *testing.T, s *sqlstore.SeedService, domainID, actor string) *seedengine.Seed {
	t.Helper()
	sd := newSeed(domainID)
	require.NoError(t, s.CreateSeed(t.Context(), sd, actor))
	return sd
}

func requireSeedErr(t *testing.T, code, field string, err error) {
	t.Helper()
	require.Error(t, err)
	require.Equal(t, code, seedengine.ErrorCode(err), "%v", err)
	if field != "" {
		require.Equal(t, field, seedengine.ErrorField(err), "%v", err)
	}
}

func versionStates(t *testing.T, s *sqlstore.SeedService, id string) []string {
	t.Helper()
	vs, err := s.FindSeedVersions(t.Context(), id)
	require.NoError(t, err)
	var out []string
	for _, v := range vs {
		out = append(out, fmt.Sprintf("%d:%s", v.Version, v.State))
	}
	return out
}

func TestSeedCreateAndFind(t *testing.T) {
	t.Parallel()
	sqlstoretest.Engines(t, func(t *testing.T, db *sqlstore.DB) {
		ctx := t.Context()
		s := sqlstore.NewSeedService(db)

		sd := newSeed("gov:sg:mom.gov.sg")
		sd.Metadata = map[string]any{"note": "first", "tags": []any{"a", "b"}}
		sd.Fetch.Selectors = map[string]string{"item": "article"}
		sd.Status = seedengine.SeedActive // ignored: a seed starts as a draft
		require.NoError(t, s.CreateSeed(ctx, sd, "alice"))
		require.Equal(t, "gov:sg:mom.gov.sg::news", sd.SeedID)
		require.Equal(t, seedengine.SeedDraft, sd.Status)
		require.Equal(t, 1, sd.Version)

		got, err := s.FindSeedByID(ctx, sd.SeedID)
		require.NoError(t, err)
		require.Equal(t, "sg", got.Country)
		require.Equal(t, "mom.gov.sg", got.Source.Domain)
		require.Equal(t, seedengine.SourceGovernment, got.Source.SourceType, "source type from the authority")
		require.Equal(t, sd.Fetch, got.Fetch)
		require.Equal(t, sd.Policy, got.Policy)
		require.Equal(t, sd.Evidence, got.Evidence)
		require.Equal(t, sd.Metadata, got.Metadata)
		require.Equal(t, 0.8, got.Confidence)
		require.Equal(t, sd.CreatedAt, got.CreatedAt)
		require.Equal(t, sd.CreatedAt, got.UpdatedAt)
		require.Nil(t, got.PromotedAt)
		require.Zero(t, got.ProposedVersion)
		require.Equal(t, []seedengine.SeedTransition{{Action: "create", To: seedengine.SeedDraft, At: sd.CreatedAt, Actor: "alice"}}, got.History)
		require.Equal(t, sd.History, got.History)

		vs, err := s.FindSeedVersions(ctx, sd.SeedID)
		require.NoError(t, err)
		require.Len(t, vs, 1)
		require.Equal(t, seedengine.SeedVersion{SeedID: sd.SeedID, Version: 1, State: seedengine.SeedVersionCurrent,
			Contract: sd.Contract(), Confidence: 0.8, Evidence: sd.Evidence, Actor: "alice", CreatedAt: sd.CreatedAt}, *vs[0])

		// Errors.
		requireSeedErr(t, seedengine.ECONFLICT, "", s.CreateSeed(ctx, newSeed("gov:sg:mom.gov.sg"), "bob"))
		bad := newSeed("gov:sg:mti.gov.sg")
		bad.Fetch.EntryURL = "ftp://x"
		requireSeedErr(t, seedengine.EINVALID, "fetch.entry_url", s.CreateSeed(ctx, bad, "bob"))
		bad = newSeed("gov:zz:mti.gov.sg")
		requireSeedErr(t, seedengine.EINVALID, "domain_id", s.CreateSeed(ctx, bad, "bob"))
		_, err = s.FindSeedByID(ctx, "gov:sg:nope.gov.sg::news")
		requireSeedErr(t, seedengine.ENOTFOUND, "", err)
		_, err = s.FindSeedVersions(ctx, "gov:sg:nope.gov.sg::news")
		requireSeedErr(t, seedengine.ENOTFOUND, "", err)
	})
}

func TestFindSeeds(t *testing.T) {
	t.Parallel()
	sqlstoretest.Engines(t, func(t *testing.T, db *sqlstore.DB) {
		ctx := t.Context()
		s := sqlstore.NewSeedService(db)
		for _, id := range []string{"gov:sg:mom.gov.sg", "com:sg:a_.example", "com:sg:a1.example", "media:jp:nhk.or.jp", "ngo:intl:who.int"} {
			sd := newSeed(id)
			if id == "media:jp:nhk.or.jp" {
				sd.Category = "policy"
				sd.Fetch.Type = seedengine.FetchSitemap
				sd.Confidence = 0.96
			}
			require.NoError(t, s.CreateSeed(ctx, sd, "a"))
		}
		sd := newSeed("gov:sg:mom.gov.sg")
		sd.ContentType = "press_release"
		require.NoError(t, s.CreateSeed(ctx, sd, "a"))
		_, err := s.TransitionSeed(ctx, "gov:sg:mom.gov.sg::news", seedengine.SeedPromote, "a", "")
		require.NoError(t, err)

		ids := func(f seedengine.SeedFilter) ([]string, int) {
			t.Helper()
			got, total, err := s.FindSeeds(ctx, f)
			require.NoError(t, err)
			out := []string{}
			for _, sd := range got {
				out = append(out, sd.SeedID)
				require.Nil(t, sd.History)
			}
			return out, total
		}
		got, total := ids(seedengine.SeedFilter{})
		require.Equal(t, 6, total)
		require.Equal(t, []string{"com:sg:a1.example::news", "com:sg:a_.example::news", "gov:sg:mom.gov.sg::news",
			"gov:sg:mom.gov.sg::press_release", "media:jp:nhk.or.jp::news", "ngo:intl:who.int::news"}, got, "byte order")

		for _, tt := range []struct {
			f     seedengine.SeedFilter
			want  []string
			total int
		}{
			{seedengine.SeedFilter{Country: "SG"}, []string{"com:sg:a1.example::news", "com:sg:a_.example::news", "gov:sg:mom.gov.sg::news", "gov:sg:mom.gov.sg::press_release"}, 4},
			{seedengine.SeedFilter{Country: "sg", Limit: 2, Offset: 1}, []string{"com:sg:a_.example::news", "gov:sg:mom.gov.sg::news"}, 4},
			{seedengine.SeedFilter{Country: "sg", Offset: 10}, []string{}, 4},
			{seedengine.SeedFilter{Status: seedengine.SeedActive}, []string{"gov:sg:mom.gov.sg::news"}, 1},
			{seedengine.SeedFilter{Country: "sg", Status: seedengine.SeedDraft, Limit: 1}, []string{"com:sg:a1.example::news"}, 3},
			{seedengine.SeedFilter{Category: "policy"}, []string{"media:jp:nhk.or.jp::news"}, 1},
			{seedengine.SeedFilter{FetchType: seedengine.FetchRSS, Limit: 1, Offset: 4}, []string{"ngo:intl:who.int::news"}, 5},
			{seedengine.SeedFilter{SourceType: seedengine.SourceCompany}, []string{"com:sg:a1.example::news", "com:sg:a_.example::news"}, 2},
			{seedengine.SeedFilter{SourceType: seedengine.SourceNGO, Country: "intl"}, []string{"ngo:intl:who.int::news"}, 1},
			{seedengine.SeedFilter{DomainID: "gov:sg:mom.gov.sg"}, []string{"gov:sg:mom.gov.sg::news", "gov:sg:mom.gov.sg::press_release"}, 2},
			{seedengine.SeedFilter{DomainID: "gov:sg:mom.gov.sg", Status: seedengine.SeedDraft, Limit: 1}, []string{"gov:sg:mom.gov.sg::press_release"}, 1},
			{seedengine.SeedFilter{DomainID: "gov:sg:mom.gov.sg", Limit: 1}, []string{"gov:sg:mom.gov.sg::news"}, 2},
			{seedengine.SeedFilter{DomainID: "gov:sg:mom.gov", Limit: 1}, []string{}, 0},
			{seedengine.SeedFilter{Authority: seedengine.AuthorityCom}, []string{"com:sg:a1.example::news", "com:sg:a_.example::news"}, 2},
			{seedengine.SeedFilter{Authority: seedengine.AuthorityCom, Limit: 1}, []string{"com:sg:a1.example::news"}, 2},
			{seedengine.SeedFilter{Authority: seedengine.AuthorityGov, Status: seedengine.SeedDraft}, []string{"gov:sg:mom.gov.sg::press_release"}, 1},
			{seedengine.SeedFilter{MinConfidence: 0.95, Limit: 1}, []string{"media:jp:nhk.or.jp::news"}, 1},
			{seedengine.SeedFilter{MinConfidence: 0.5, Country: "jp"}, []string{"media:jp:nhk.or.jp::news"}, 1},
			{seedengine.SeedFilter{Before: "media:jp:nhk.or.jp::news", Limit: 2}, []string{"gov:sg:mom.gov.sg::news", "gov:sg:mom.gov.sg::press_release"}, 6},
			{seedengine.SeedFilter{Before: "gov:sg:mom.gov.sg::press_release", Country: "sg", Limit: 1}, []string{"gov:sg:mom.gov.sg::news"}, 4},
			{seedengine.SeedFilter{Before: "com:sg:a1.example::news", Limit: 5}, []string{}, 6},
			{seedengine.SeedFilter{Limit: 1000}, got, 6},
		} {
			g, total := ids(tt.f)
			require.Equal(t, tt.want, g, "%+v", tt.f)
			require.Equal(t, tt.total, total, "%+v", tt.f)
		}
		many, _, err := s.FindSeeds(ctx, seedengine.SeedFilter{Limit: 1000})
		require.NoError(t, err)
		require.Len(t, many, 6)

		// A contract batch's seeds: the draft it created, the draft it
		// refreshed and the active seed it proposed a change to, not the
		// seeds another batch touched.
		for _, rec := range []struct{ id, batch string }{
			{"edu:sg:nus.edu.sg", "b1"}, {"com:sg:a1.example", "b1"}, {"gov:sg:mom.gov.sg", "b1"}, {"ngo:intl:who.int", "b2"},
		} {
			sd := newSeed(rec.id)
			sd.Fetch.EntryURL += "?from=" + rec.batch
			_, err := s.RecordDraftSeed(ctx, sd, "contract", rec.batch)
			require.NoError(t, err)
		}
		b1 := []string{"com:sg:a1.example::news", "edu:sg:nus.edu.sg::news", "gov:sg:mom.gov.sg::news"}
		g, total := ids(seedengine.SeedFilter{BatchID: "b1"})
		require.Equal(t, b1, g)
		require.Equal(t, 3, total)
		g, total = ids(seedengine.SeedFilter{BatchID: "b1", Status: seedengine.SeedDraft, Limit: 1})
		require.Equal(t, b1[:1], g)
		require.Equal(t, 2, total, "counted with the batch, not from seed_counts")
		g, total = ids(seedengine.SeedFilter{BatchID: "nope"})
		require.Empty(t, g)
		require.Zero(t, total)

		for _, tt := range []struct {
			f     seedengine.SeedFilter
			field string
		}{
			{seedengine.SeedFilter{Country: "xx"}, "country"},
			{seedengine.SeedFilter{Category: "Bad-Cat"}, "category"},
			{seedengine.SeedFilter{Status: "gone"}, "status"},
			{seedengine.SeedFilter{SourceType: "army"}, "source_type"},
			{seedengine.SeedFilter{FetchType: "gopher"}, "fetch_type"},
			{seedengine.SeedFilter{DomainID: "mom.gov.sg"}, "domain_id"},
			{seedengine.SeedFilter{Authority: "army"}, "authority"},
			{seedengine.SeedFilter{MinConfidence: 1.5}, "min_confidence"},
			{seedengine.SeedFilter{Before: "a", After: "b"}, "before"},
		} {
			_, _, err := s.FindSeeds(ctx, tt.f)
			requireSeedErr(t, seedengine.EINVALID, tt.field, err)
		}
	})
}

func TestSeedTransitions(t *testing.T) {
	t.Parallel()
	sqlstoretest.Engines(t, func(t *testing.T, db *sqlstore.DB) {
		ctx := t.Context()
		s := sqlstore.NewSeedService(db)
		sd := createSeed(t, s, "gov:sg:mom.gov.sg", "alice")
		id := sd.SeedID

		_, err := s.TransitionSeed(ctx, id, seedengine.SeedSuspend, "bob", "")
		requireSeedErr(t, seedengine.ECONFLICT, "status", err)
		require.Contains(t, seedengine.ErrorMessage(err), "is draft")
		_, err = s.TransitionSeed(ctx, id, seedengine.SeedReactivate, "bob", "")
		requireSeedErr(t, seedengine.ECONFLICT, "status", err)

		got, err := s.TransitionSeed(ctx, id, seedengine.SeedPromote, "bob", "looks good")
		require.NoError(t, err)
		require.Equal(t, seedengine.SeedActive, got.Status)
		require.NotNil(t, got.PromotedAt)
		require.Equal(t, got.UpdatedAt, *got.PromotedAt)
		promoted := *got.PromotedAt

		_, err = s.TransitionSeed(ctx, id, seedengine.SeedPromote, "bob", "")
		requireSeedErr(t, seedengine.ECONFLICT, "status", err)
		require.Contains(t, seedengine.ErrorMessage(err), "is active")

		got, err = s.TransitionSeed(ctx, id, seedengine.SeedSuspend, "carol", "feed broken")
		require.NoError(t, err)
		require.Equal(t, seedengine.SeedSuspended, got.Status)
		got, err = s.TransitionSeed(ctx, id, seedengine.SeedReactivate, "carol", "")
		require.NoError(t, err)
		require.Equal(t, seedengine.SeedActive, got.Status)
		got, err = s.TransitionSeed(ctx, id, seedengine.SeedArchive, "dave", "gone")
		require.NoError(t, err)
		require.Equal(t, seedengine.SeedArchived, got.Status)
		require.Equal(t, promoted, *got.PromotedAt, "promoted_at stays")
		for _, a := range []seedengine.SeedAction{seedengine.SeedPromote, seedengine.SeedSuspend, seedengine.SeedReactivate, seedengine.SeedArchive} {
			_, err = s.TransitionSeed(ctx, id, a, "x", "")
			requireSeedErr(t, seedengine.ECONFLICT, "status", err)
		}

		got, err = s.FindSeedByID(ctx, id)
		require.NoError(t, err)
		type step struct{ action, from, to, actor, reason string }
		var steps []step
		for _, h := range got.History {
			steps = append(steps, step{h.Action, string(h.From), string(h.To), h.Actor, h.Reason})
			require.False(t, h.At.IsZero())
		}
		require.Equal(t, []step{
			{"create", "", "draft", "alice", ""},
			{"promote", "draft", "active", "bob", "looks good"},
			{"suspend", "active", "suspended", "carol", "feed broken"},
			{"reactivate", "suspended", "active", "carol", ""},
			{"archive", "active", "archived", "dave", "gone"},
		}, steps)
		require.Equal(t, 1, got.Version, "transitions do not version")

		_, err = s.TransitionSeed(ctx, "gov:sg:nope.gov.sg::news", seedengine.SeedPromote, "x", "")
		requireSeedErr(t, seedengine.ENOTFOUND, "", err)
		_, err = s.TransitionSeed(ctx, id, "explode", "x", "")
		requireSeedErr(t, seedengine.EINVALID, "action", err)
		other := createSeed(t, s, "gov:sg:mti.gov.sg", "alice")
		_, err = s.TransitionSeed(ctx, other.SeedID, seedengine.SeedPromote, "x", string(make([]byte, 501)))
		requireSeedErr(t, seedengine.EINVALID, "reason", err)

		// Archive works from draft too; the list counts follow the status.
		_, err = s.TransitionSeed(ctx, other.SeedID, seedengine.SeedArchive, "x", "")
		require.NoError(t, err)
		_, total, err := s.FindSeeds(ctx, seedengine.SeedFilter{Status: seedengine.SeedArchived, Limit: 1})
		require.NoError(t, err)
		require.Equal(t, 2, total)
	})
}

func TestUpdateSeedVersions(t *testing.T) {
	t.Parallel()
	sqlstoretest.Engines(t, func(t *testing.T, db *sqlstore.DB) {
		ctx := t.Context()
		s := sqlstore.NewSeedService(db)
		sd := createSeed(t, s, "gov:sg:mom.gov.sg", "alice")
		id := sd.SeedID

		version := 1
		for _, tt := range []struct {
			name    string
			edit    func(*seedengine.Seed)
			bumps   bool
			checked func(*seedengine.Seed)
		}{
			{"metadata", func(s *seedengine.Seed) { s.Metadata = map[string]any{"owner": "news desk"} }, false, nil},
			{"name", func(s *seedengine.Seed) { s.Source.Name = "Ministry of Manpower" }, false, nil},
			{"confidence", func(s *seedengine.Seed) { s.Confidence = 0.95 }, false, nil},
			{"category", func(s *seedengine.Seed) { s.Category = "policy" }, false, nil},
			{"source type", func(s *seedengine.Seed) { s.Source.SourceType = seedengine.SourceOrganization }, false, nil},
			{"nothing", func(*seedengine.Seed) {}, false, nil},
			{"entry url", func(s *seedengine.Seed) { s.Fetch.EntryURL = "https://www.mom.gov.sg/feed" }, true, nil},
			{"type", func(s *seedengine.Seed) { s.Fetch.Type = seedengine.FetchAtom }, true, nil},
			{"schedule", func(s *seedengine.Seed) { s.Fetch.Schedule = "*/30 * * * *" }, true, nil},
			{"selectors", func(s *seedengine.Seed) { s.Fetch.Selectors = map[string]string{"item": "li"} }, true, nil},
			{"same selectors", func(s *seedengine.Seed) { s.Fetch.Selectors = map[string]string{"item": "li"} }, false, nil},
			{"policy", func(s *seedengine.Seed) { s.Policy.CrawlDelay = 5 }, true, nil},
			{"sitemap", func(s *seedengine.Seed) { s.Policy.SitemapURL = "https://www.mom.gov.sg/sitemap.xml" }, true, nil},
		} {
			before, err := s.FindSeedByID(ctx, id)
			require.NoError(t, err)
			got, err := s.UpdateSeed(ctx, id, "bob", func(s *seedengine.Seed) error {
				tt.edit(s)
				return nil
			})
			require.NoError(t, err, tt.name)
			if tt.bumps {
				version++
			}
			require.Equal(t, version, got.Version, tt.name)
			require.True(t, got.UpdatedAt.After(before.UpdatedAt) || got.UpdatedAt.Equal(before.UpdatedAt), tt.name)
			stored, err := s.FindSeedByID(ctx, id)
			require.NoError(t, err)
			require.Equal(t, got, stored, tt.name)
		}
		stored, err := s.FindSeedByID(ctx, id)
		require.NoError(t, err)
		require.Equal(t, map[string]any{"owner": "news desk"}, stored.Metadata)
		require.Equal(t, "policy", stored.Category)
		require.Equal(t, seedengine.SourceOrganization, stored.Source.SourceType)
		require.Equal(t, []string{"7:current", "6:superseded", "5:superseded", "4:superseded", "3:superseded", "2:superseded", "1:superseded"}, versionStates(t, s, id))
		vs, err := s.FindSeedVersions(ctx, id)
		require.NoError(t, err)
		require.Equal(t, "bob", vs[0].Actor)
		require.Equal(t, stored.Contract(), vs[0].Contract)
		require.Equal(t, "alice", vs[6].Actor)

		_, total, err := s.FindSeeds(ctx, seedengine.SeedFilter{Category: "policy", SourceType: seedengine.SourceOrganization, FetchType: seedengine.FetchAtom, Limit: 1})
		require.NoError(t, err)
		require.Equal(t, 1, total, "counts follow the edits")
		_, total, err = s.FindSeeds(ctx, seedengine.SeedFilter{Category: "news", Limit: 1})
		require.NoError(t, err)
		require.Zero(t, total)

		// Refused edits leave the seed as it was.
		for _, tt := range []struct {
			field string
			edit  func(*seedengine.Seed)
		}{
			{"seed_id", func(s *seedengine.Seed) { s.SeedID = "gov:sg:mom.gov.sg::other" }},
			{"domain_id", func(s *seedengine.Seed) { s.DomainID = "gov:sg:mti.gov.sg" }},
			{"content_type", func(s *seedengine.Seed) { s.ContentType = "press_release" }},
			{"country", func(s *seedengine.Seed) { s.Country = "jp" }},
			{"status", func(s *seedengine.Seed) { s.Status = seedengine.SeedActive }},
			{"fetch.schedule", func(s *seedengine.Seed) { s.Fetch.Schedule = "every minute" }},
			{"confidence", func(s *seedengine.Seed) { s.Confidence = 2 }},
			{"source.domain", func(s *seedengine.Seed) { s.Source.Domain = "evil.example" }},
		} {
			_, err := s.UpdateSeed(ctx, id, "bob", func(s *seedengine.Seed) error {
				tt.edit(s)
				return nil
			})
			requireSeedErr(t, seedengine.EINVALID, tt.field, err)
		}
		_, err = s.UpdateSeed(ctx, id, "bob", func(s *seedengine.Seed) error {
			s.Fetch.EntryURL = "https://changed.example/"
			return seedengine.Errorf(seedengine.ECONFLICT, "changed my mind")
		})
		requireSeedErr(t, seedengine.ECONFLICT, "", err)
		after, err := s.FindSeedByID(ctx, id)
		require.NoError(t, err)
		require.Equal(t, stored, after)

		// Store-managed fields cannot be set through fn.
		got, err := s.UpdateSeed(ctx, id, "bob", func(s *seedengine.Seed) error {
			s.Version, s.ProposedVersion = 99, 7
			s.CreatedAt = time.Time{}
			return nil
		})
		require.NoError(t, err)
		require.Equal(t, 7, got.Version)
		require.Zero(t, got.ProposedVersion)
		require.Equal(t, stored.CreatedAt, got.CreatedAt)

		_, err = s.UpdateSeed(ctx, "gov:sg:nope.gov.sg::news", "bob", func(*seedengine.Seed) error { return nil })
		requireSeedErr(t, seedengine.ENOTFOUND, "", err)
	})
}

// TestUpdateSeedConcurrent: concurrent updates of one seed apply one after
// the other, so none is lost.
func TestUpdateSeedConcurrent(t *testing.T) {
	t.Parallel()
	sqlstoretest.Engines(t, func(t *testing.T, db *sqlstore.DB) {
		ctx := t.Context()
		s := sqlstore.NewSeedService(db)
		sd := createSeed(t, s, "gov:sg:mom.gov.sg", "alice")
		const n = 16
		var wg sync.WaitGroup
		errs := make(chan error, n)
		for i := range n {
			wg.Go(func() {
				_, err := s.UpdateSeed(ctx, sd.SeedID, "w", func(s *seedengine.Seed) error {
					if s.Metadata == nil {
						s.Metadata = map[string]any{}
					}
					s.Metadata[fmt.Sprintf("k%02d", i)] = true
					s.Fetch.Selectors = map[string]string{"last": fmt.Sprint(i)}
					return nil
				})
				errs <- err
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			require.NoError(t, err)
		}
		got, err := s.FindSeedByID(ctx, sd.SeedID)
		require.NoError(t, err)
		require.Len(t, got.Metadata, n, "no update lost")
		require.Equal(t, 1+n, got.Version, "each update changed the contract")
		require.Len(t, versionStates(t, s, sd.SeedID), 1+n)
	})
}

func TestRecordDraftSeed(t *testing.T) {
	t.Parallel()
	sqlstoretest.Engines(t, func(t *testing.T, db *sqlstore.DB) {
		ctx := t.Context()
		s := sqlstore.NewSeedService(db)
		const actor = "contract_batch:b1"

		// None → created.
		found := newSeed("gov:sg:mom.gov.sg")
		found.Metadata = map[string]any{"from": "batch"}
		out, err := s.RecordDraftSeed(ctx, found, actor, "b1")
		require.NoError(t, err)
		require.Equal(t, seedengine.SeedRecordOutcome{Result: seedengine.SeedCreated, Version: 1}, out)
		id := "gov:sg:mom.gov.sg::news"
		got, err := s.FindSeedByID(ctx, id)
		require.NoError(t, err)
		require.Equal(t, seedengine.SeedDraft, got.Status)
		require.Equal(t, actor, got.History[0].Actor)
		vs, err := s.FindSeedVersions(ctx, id)
		require.NoError(t, err)
		require.Equal(t, "b1", vs[0].BatchID)
		require.Equal(t, actor, vs[0].Actor)

		// A person's metadata edit survives refreshes.
		_, err = s.UpdateSeed(ctx, id, "alice", func(s *seedengine.Seed) error {
			s.Metadata = map[string]any{"owner": "alice"}
			return nil
		})
		require.NoError(t, err)

		// Draft, same contract → refreshed, no new version, fields replaced.
		found = newSeed("gov:sg:mom.gov.sg")
		found.Confidence = 0.5
		found.Category = "policy"
		found.Source.Name = "MOM"
		found.Evidence.Candidates = 9
		out, err = s.RecordDraftSeed(ctx, found, "contract_batch:b2", "b2")
		require.NoError(t, err)
		require.Equal(t, seedengine.SeedRecordOutcome{Result: seedengine.SeedRefreshed, Version: 1}, out)
		got, err = s.FindSeedByID(ctx, id)
		require.NoError(t, err)
		require.Equal(t, 0.5, got.Confidence)
		require.Equal(t, "policy", got.Category)
		require.Equal(t, "MOM", got.Source.Name)
		require.Equal(t, 9, got.Evidence.Candidates)
		require.Equal(t, map[string]any{"owner": "alice"}, got.Metadata)
		require.Len(t, got.History, 1, "a refresh is no transition")

		// Draft, new contract → refreshed at version 2.
		found.Fetch.Type = seedengine.FetchNewsSitemap
		found.Fetch.EntryURL = "https://www.mom.gov.sg/news-sitemap.xml"
		out, err = s.RecordDraftSeed(ctx, found, "contract_batch:b3", "b3")
		require.NoError(t, err)
		require.Equal(t, seedengine.SeedRecordOutcome{Result: seedengine.SeedRefreshed, Version: 2}, out)
		vs, err = s.FindSeedVersions(ctx, id)
		require.NoError(t, err)
		require.Equal(t, "b3", vs[0].BatchID)
		require.Equal(t, []string{"2:current", "1:superseded"}, versionStates(t, s, id))

		// Active: same contract → kept, nothing proposed.
		_, err = s.TransitionSeed(ctx, id, seedengine.SeedPromote, "alice", "")
		require.NoError(t, err)
		out, err = s.RecordDraftSeed(ctx, found, "contract_batch:b4", "b4")
		require.NoError(t, err)
		require.Equal(t, seedengine.SeedRecordOutcome{Result: seedengine.SeedKept, Version: 2, Reason: "active_seed_kept"}, out)

		// Active, new contract → a proposal, version 3; the seed is untouched.
		before, err := s.FindSeedByID(ctx, id)
		require.NoError(t, err)
		proposal := newSeed("gov:sg:mom.gov.sg")
		proposal.Fetch.EntryURL = "https://www.mom.gov.sg/atom.xml"
		proposal.Fetch.Type = seedengine.FetchAtom
		proposal.Confidence = 0.99
		out, err = s.RecordDraftSeed(ctx, proposal, "contract_batch:b5", "b5")
		require.NoError(t, err)
		require.Equal(t, seedengine.SeedRecordOutcome{Result: seedengine.SeedKept, Version: 3, Reason: "active_seed_kept", ProposedVersion: 3}, out)
		after, err := s.FindSeedByID(ctx, id)
		require.NoError(t, err)
		require.Equal(t, 3, after.ProposedVersion)
		after.ProposedVersion = 0
		require.Equal(t, before, after, "only proposed_version changed")
		require.Equal(t, []string{"3:proposed", "2:current", "1:superseded"}, versionStates(t, s, id))
		vs, err = s.FindSeedVersions(ctx, id)
		require.NoError(t, err)
		require.Equal(t, proposal.Contract(), vs[0].Contract)
		require.Equal(t, 0.99, vs[0].Confidence)
		require.Equal(t, "b5", vs[0].BatchID)

		// The same proposal again (a repeated run) → nothing new, and
		// the outcome names the pending proposal.
		out, err = s.RecordDraftSeed(ctx, proposal, "contract_batch:b6", "b6")
		require.NoError(t, err)
		require.Equal(t, seedengine.SeedRecordOutcome{Result: seedengine.SeedKept, Version: 2, Reason: "active_seed_kept", ProposedVersion: 3}, out)
		require.Equal(t, []string{"3:proposed", "2:current", "1:superseded"}, versionStates(t, s, id))

		// Suspended, another contract → proposal 4.
		_, err = s.TransitionSeed(ctx, id, seedengine.SeedSuspend, "alice", "")
		require.NoError(t, err)
		proposal2 := newSeed("gov:sg:mom.gov.sg")
		proposal2.Fetch.Schedule = "@daily"
		out, err = s.RecordDraftSeed(ctx, proposal2, "contract_batch:b7", "b7")
		require.NoError(t, err)
		require.Equal(t, seedengine.SeedRecordOutcome{Result: seedengine.SeedKept, Version: 4, Reason: "suspended_seed_kept", ProposedVersion: 4}, out)

		// An edit that does not apply the proposal takes version 5 and
		// keeps it pending; one that applies it takes 6 and clears it.
		got, err = s.UpdateSeed(ctx, id, "alice", func(s *seedengine.Seed) error {
			s.Policy.CrawlDelay = 2
			return nil
		})
		require.NoError(t, err)
		require.Equal(t, 5, got.Version)
		require.Equal(t, 4, got.ProposedVersion)
		got, err = s.UpdateSeed(ctx, id, "alice", func(s *seedengine.Seed) error {
			s.Fetch, s.Policy = proposal2.Fetch, proposal2.Policy
			return nil
		})
		require.NoError(t, err)
		require.Equal(t, 6, got.Version)
		require.Zero(t, got.ProposedVersion)
		require.Equal(t, []string{"6:current", "5:superseded", "4:proposed", "3:proposed", "2:superseded", "1:superseded"}, versionStates(t, s, id))

		// Archived → kept with its reason.
		_, err = s.TransitionSeed(ctx, id, seedengine.SeedArchive, "alice", "")
		require.NoError(t, err)
		out, err = s.RecordDraftSeed(ctx, proposal, "contract_batch:b8", "b8")
		require.NoError(t, err)
		require.Equal(t, seedengine.SeedRecordOutcome{Result: seedengine.SeedKept, Version: 7, Reason: "archived_seed_kept", ProposedVersion: 7}, out,
			"compared with the newest proposal (4), not with older ones")

		// Invalid findings are refused.
		bad := newSeed("gov:sg:mti.gov.sg")
		bad.Fetch.Schedule = ""
		_, err = s.RecordDraftSeed(ctx, bad, actor, "b9")
		requireSeedErr(t, seedengine.EINVALID, "fetch.schedule", err)
	})
}

// TestRecordDraftSeedConcurrent: contract runs finding the same new seed
// at once create it once; the others refresh it.
func TestRecordDraftSeedConcurrent(t *testing.T) {
	t.Parallel()
	sqlstoretest.Engines(t, func(t *testing.T, db *sqlstore.DB) {
		s := sqlstore.NewSeedService(db)
		const n = 8
		var (
			wg      sync.WaitGroup
			mu      sync.Mutex
			results = map[seedengine.SeedRecordResult]int{}
		)
		for i := range n {
			wg.Go(func() {
				out, err := s.RecordDraftSeed(context.Background(), newSeed("gov:sg:mom.gov.sg"), "contract_batch:x", fmt.Sprint(i))
				if !assertNoError(t, err) {
					return
				}
				mu.Lock()
				results[out.Result]++
				mu.Unlock()
			})
		}
		wg.Wait()
		require.Equal(t, map[seedengine.SeedRecordResult]int{seedengine.SeedCreated: 1, seedengine.SeedRefreshed: n - 1}, results)
		_, total, err := s.FindSeeds(t.Context(), seedengine.SeedFilter{Limit: 1, Offset: 1})
		require.NoError(t, err)
		require.Equal(t, 1, total, "counted once")
	})
}

func assertNoError(t *testing.T, err error) bool {
	t.Helper()
	if err != nil {
		t.Error(err)
		return false
	}
	return true
}
