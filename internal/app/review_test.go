package app_test

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/contract"
	"github.com/seedengine/seedengine/internal/httpapi/httpapitest"
	"github.com/seedengine/seedengine/internal/simweb/simwebtest"
	"github.com/seedengine/seedengine/internal/sqlstore"
	"github.com/seedengine/seedengine/internal/sqlstore/sqlstoretest"
)

type candidateList struct {
	SeedID string                     `json:"seed_id"`
	Items  []seedengine.SeedCandidate `json:"items"`
	Total  int                        `json:"total"`
}

func (s *stack) candidates(t *testing.T, id string) []seedengine.SeedCandidate {
	t.Helper()
	var l candidateList
	r := s.get(t, "/api/v1/seeds/"+url.PathEscape(id)+"/candidates", &l)
	require.Equal(t, http.StatusOK, r.StatusCode, string(r.Body))
	require.Equal(t, len(l.Items), l.Total)
	return l.Items
}

// A reviewer's decisions through the API on drafts a contract batch made
// on the simulated web: every candidate says why it is or is not the
// entry; choosing another makes it the entry (contract, confidence,
// reason, version, chosen row agree); reject with a reason, reopen; a
// rejected draft stays rejected when the next batch finds the same.
func TestReviewDecisions(t *testing.T) {
	t.Parallel()
	_, client := simwebtest.Client(t, contractSites, 2*time.Second)
	d := contract.New(client, contract.Config{})
	sqlstoretest.Engines(t, func(t *testing.T, db *sqlstore.DB) {
		s := newStack(t, db, withQueue(), withContract(d))
		ids := []string{"gov:sg:wordpress-site.gov.sg", "gov:sg:ministry-site.gov.sg", "gov:sg:plain-site.gov.sg", "gov:sg:newsonly-site.gov.sg"}
		_, res := s.runContract(t, ids, 4)
		require.Len(t, res.Created, 4)

		// Candidates: one chosen (the entry), every other with a reason.
		const wp = "gov:sg:wordpress-site.gov.sg::news"
		before := s.seed(t, wp)
		cs := s.candidates(t, wp)
		require.Greater(t, len(cs), 2)
		var chosen []seedengine.SeedCandidate
		var alt *seedengine.SeedCandidate
		for i, c := range cs {
			if c.Chosen {
				chosen = append(chosen, c)
				continue
			}
			require.NotEmpty(t, c.Reason, "candidate %s says why it is not the entry", c.URL)
			require.NotEmpty(t, c.Rule)
			if c.Usable && alt == nil && c.EntryURL != before.Fetch.EntryURL {
				alt = &cs[i]
			}
		}
		require.Len(t, chosen, 1)
		require.Equal(t, before.Fetch.EntryURL, chosen[0].EntryURL)
		require.NotNil(t, alt, "the wordpress site offers a second usable candidate: %+v", cs)

		// Choose it: the contract is built from it, a new version by the
		// key, and the candidates now mark it chosen.
		r := s.post(t, "/api/v1/seeds/"+url.PathEscape(wp)+"/choose", map[string]any{"candidate_url": alt.URL})
		require.Equal(t, http.StatusOK, r.StatusCode, string(r.Body))
		after := httpapitest.Decode[seedengine.Seed](t, r)
		require.Equal(t, alt.EntryURL, after.Fetch.EntryURL)
		require.Equal(t, 2, after.Version)
		require.Equal(t, seedengine.SeedDraft, after.Status)
		require.Equal(t, seedengine.AnonymousActor, after.Evidence.ChosenBy)
		require.Contains(t, after.Evidence.Why, "reviewer")
		require.NotEqual(t, before.Evidence.Why, after.Evidence.Why)
		require.NoError(t, seedengine.ValidateCron(after.Fetch.Schedule))
		switch alt.Kind {
		case contract.KindSitemap:
			require.Contains(t, []seedengine.FetchType{seedengine.FetchSitemap, seedengine.FetchNewsSitemap}, after.Fetch.Type)
		case contract.KindFeed:
			require.Contains(t, []seedengine.FetchType{seedengine.FetchRSS, seedengine.FetchAtom, seedengine.FetchJSONFeed}, after.Fetch.Type)
		}
		for _, c := range s.candidates(t, wp) {
			require.Equal(t, c.URL == alt.URL, c.Chosen, "only the chosen candidate is marked chosen: %+v", c)
			if c.URL == chosen[0].URL {
				require.NotEmpty(t, c.Reason, "the former entry says why it is no longer")
			}
		}
		var versions struct {
			Items []seedengine.SeedVersion `json:"items"`
		}
		s.get(t, "/api/v1/seeds/"+url.PathEscape(wp)+"/versions", &versions)
		require.Equal(t, 2, versions.Items[0].Version)
		require.Equal(t, seedengine.SeedVersionCurrent, versions.Items[0].State)
		require.Equal(t, seedengine.AnonymousActor, versions.Items[0].Actor)
		require.Equal(t, after.Confidence, versions.Items[0].Confidence)

		// Choosing what is not a candidate, or cannot be an entry, is
		// refused naming the field, without echoing it.
		bogus := "https://wordpress-site.gov.sg/not-a-candidate-" + strings.Repeat("x", 20)
		r = s.post(t, "/api/v1/seeds/"+url.PathEscape(wp)+"/choose", map[string]any{"candidate_url": bogus})
		p := r.Problem(t, http.StatusUnprocessableEntity, seedengine.EINVALID)
		require.Equal(t, []string{"body.candidate_url"}, httpapitest.Locations(p))
		require.NotContains(t, string(r.Body), "not-a-candidate")
		for _, c := range cs {
			if !c.Usable {
				r = s.post(t, "/api/v1/seeds/"+url.PathEscape(wp)+"/choose", map[string]any{"candidate_url": c.URL})
				p = r.Problem(t, http.StatusUnprocessableEntity, seedengine.EINVALID)
				require.Equal(t, []string{"body.candidate_url"}, httpapitest.Locations(p))
				break
			}
		}

		// Reject: a reason code is required; the draft leaves the drafts
		// with its evidence and can be reopened.
		const plain = "gov:sg:plain-site.gov.sg::news"
		r = s.post(t, "/api/v1/seeds/"+url.PathEscape(plain)+"/reject", map[string]any{"reason": "no"})
		p = r.Problem(t, http.StatusUnprocessableEntity, seedengine.EINVALID)
		require.Equal(t, []string{"body.reason_code"}, httpapitest.Locations(p))
		r = s.post(t, "/api/v1/seeds/"+url.PathEscape(plain)+"/reject", map[string]any{"reason_code": "meh"})
		p = r.Problem(t, http.StatusUnprocessableEntity, seedengine.EINVALID)
		require.Equal(t, []string{"body.reason_code"}, httpapitest.Locations(p))
		r = s.post(t, "/api/v1/seeds/"+url.PathEscape(plain)+"/reject", map[string]any{"reason_code": "low_quality", "reason": "a page of links"})
		require.Equal(t, http.StatusOK, r.StatusCode, string(r.Body))
		rej := httpapitest.Decode[seedengine.Seed](t, r)
		require.Equal(t, seedengine.SeedRejected, rej.Status)
		last := rej.History[len(rej.History)-1]
		require.Equal(t, seedengine.RejectLowQuality, last.ReasonCode)
		require.Equal(t, "a page of links", last.Reason)
		require.Equal(t, http.StatusOK, s.do(t, request{Path: "/api/v1/seeds/" + url.PathEscape(plain) + "/evidence"}).StatusCode)
		var list struct {
			Items []seedengine.Seed `json:"items"`
			Total int               `json:"total"`
		}
		s.get(t, "/api/v1/seeds?status=draft", &list)
		require.Equal(t, 3, list.Total)
		s.get(t, "/api/v1/seeds?status=rejected", &list)
		require.Equal(t, 1, list.Total)
		r = s.post(t, "/api/v1/seeds/"+url.PathEscape(plain)+"/reject", map[string]any{"reason_code": "other"})
		r.Problem(t, http.StatusConflict, seedengine.ECONFLICT)

		// The next batch finds the same entry: the rejection stands.
		_, res2 := s.runContract(t, []string{"gov:sg:plain-site.gov.sg"}, 1)
		require.Empty(t, res2.Created)
		require.Empty(t, res2.Refreshed)
		require.Len(t, res2.Skipped, 1)
		require.Equal(t, "rejected_seed_kept", res2.Skipped[0].Reason)
		require.Equal(t, seedengine.SeedRejected, s.seed(t, plain).Status)

		r = s.post(t, "/api/v1/seeds/"+url.PathEscape(plain)+"/reopen", map[string]any{"reason": "second look"})
		require.Equal(t, http.StatusOK, r.StatusCode, string(r.Body))
		require.Equal(t, seedengine.SeedDraft, httpapitest.Decode[seedengine.Seed](t, r).Status)
	})
}

// Bulk actions by ids and by filter, dry run first; search and sort on
// the list.
func TestReviewBulkSearchSort(t *testing.T) {
	t.Parallel()
	sqlstoretest.Engines(t, func(t *testing.T, db *sqlstore.DB) {
		s := newStack(t, db)
		confs := map[string]float64{"alpha": 0.95, "bravo": 0.9, "charlie": 0.6, "delta": 0.45, "echo": 0.2}
		var all []string
		for name, conf := range confs {
			r := s.post(t, "/api/v1/seeds", map[string]any{"domain_id": "media:sg:" + name + "-news.com.sg", "category": "news",
				"source": map[string]any{"name": strings.ToUpper(name[:1]) + name[1:] + " Daily"}, "confidence": conf,
				"fetch": map[string]any{"type": "rss", "entry_url": "https://" + name + "-news.com.sg/feed"}})
			require.Equal(t, http.StatusCreated, r.StatusCode, string(r.Body))
			all = append(all, "media:sg:"+name+"-news.com.sg::news")
		}
		slices.Sort(all)
		var list struct {
			Items []seedengine.Seed `json:"items"`
			Total int               `json:"total"`
		}

		// Search and sort.
		s.get(t, "/api/v1/seeds?q=CHARLIE", &list)
		require.Equal(t, 1, list.Total)
		s.get(t, "/api/v1/seeds?q=daily&sort=-confidence", &list)
		require.Equal(t, 5, list.Total)
		var got []float64
		for _, sd := range list.Items {
			got = append(got, sd.Confidence)
		}
		require.Equal(t, []float64{0.95, 0.9, 0.6, 0.45, 0.2}, got)
		s.get(t, "/api/v1/seeds?sort=-confidence&limit=2&after="+url.QueryEscape("media:sg:bravo-news.com.sg::news"), &list)
		require.Len(t, list.Items, 2)
		require.Equal(t, "media:sg:charlie-news.com.sg::news", list.Items[0].SeedID, "after pages in the list's order")
		r := s.do(t, request{Path: "/api/v1/seeds?sort=size"})
		require.Equal(t, []string{"query.sort"}, httpapitest.Locations(r.Problem(t, http.StatusUnprocessableEntity, seedengine.EINVALID)))

		// Bulk: both selections, neither, a rejection without a code.
		for _, body := range []map[string]any{
			{"action": "promote", "seed_ids": []string{all[0]}, "filter": map[string]any{"country": "sg"}},
			{"action": "promote"},
		} {
			r = s.post(t, "/api/v1/seeds/bulk", body)
			require.Equal(t, []string{"body.seed_ids"}, httpapitest.Locations(r.Problem(t, http.StatusUnprocessableEntity, seedengine.EINVALID)))
		}
		r = s.post(t, "/api/v1/seeds/bulk", map[string]any{"action": "reject", "seed_ids": all})
		require.Equal(t, []string{"body.reason_code"}, httpapitest.Locations(r.Problem(t, http.StatusUnprocessableEntity, seedengine.EINVALID)))
		r = s.post(t, "/api/v1/seeds/bulk", map[string]any{"action": "promote", "filter": map[string]any{"country": "zz9"}})
		require.Equal(t, http.StatusUnprocessableEntity, r.StatusCode, string(r.Body))

		// A dry run by filter reports and changes nothing.
		r = s.post(t, "/api/v1/seeds/bulk", map[string]any{"action": "promote", "dry_run": true,
			"filter": map[string]any{"status": "draft", "min_confidence": 0.8}})
		require.Equal(t, http.StatusOK, r.StatusCode, string(r.Body))
		dry := httpapitest.Decode[seedengine.SeedBulkResult](t, r)
		require.True(t, dry.DryRun)
		require.Equal(t, 2, dry.Matched)
		require.Equal(t, []seedengine.SeedBulkChange{
			{SeedID: "media:sg:alpha-news.com.sg::news", From: seedengine.SeedDraft, To: seedengine.SeedActive},
			{SeedID: "media:sg:bravo-news.com.sg::news", From: seedengine.SeedDraft, To: seedengine.SeedActive},
		}, dry.Changed)
		s.get(t, "/api/v1/seeds?status=active", &list)
		require.Zero(t, list.Total)

		r = s.post(t, "/api/v1/seeds/bulk", map[string]any{"action": "promote", "filter": map[string]any{"status": "draft", "min_confidence": 0.8}, "reason": "confident"})
		require.Equal(t, http.StatusOK, r.StatusCode, string(r.Body))
		done := httpapitest.Decode[seedengine.SeedBulkResult](t, r)
		require.Equal(t, dry.Changed, done.Changed)
		require.Empty(t, done.Skipped)
		s.get(t, "/api/v1/seeds?status=active", &list)
		require.Equal(t, 2, list.Total)
		alpha := s.seed(t, "media:sg:alpha-news.com.sg::news")
		require.Equal(t, "confident", alpha.History[len(alpha.History)-1].Reason)

		// By ids: the active ones are skipped with the reason, an unknown
		// one is reported, the rest rejected with the code.
		ids := append(slices.Clone(all), "media:sg:nobody.com.sg::news", strings.ToUpper(all[2]))
		r = s.post(t, "/api/v1/seeds/bulk", map[string]any{"action": "reject", "seed_ids": ids, "reason_code": "not_relevant"})
		require.Equal(t, http.StatusOK, r.StatusCode, string(r.Body))
		rej := httpapitest.Decode[seedengine.SeedBulkResult](t, r)
		require.Equal(t, 6, rej.Matched, "ids are read in any case, once each")
		require.Len(t, rej.Changed, 3)
		require.Len(t, rej.Skipped, 3)
		skipped := map[string]string{}
		for _, sk := range rej.Skipped {
			skipped[sk.SeedID] = sk.Reason
		}
		require.Equal(t, "no such seed", skipped["media:sg:nobody.com.sg::news"])
		require.Contains(t, skipped["media:sg:alpha-news.com.sg::news"], "is active")
		s.get(t, "/api/v1/seeds?status=rejected", &list)
		require.Equal(t, 3, list.Total)
		for _, sd := range list.Items {
			full := s.seed(t, sd.SeedID)
			require.Equal(t, seedengine.RejectNotRelevant, full.History[len(full.History)-1].ReasonCode)
		}
	})
}

// A seed's contract says whether its items' pages are fetched
// (harvest.pages): a contract batch can turn it on for the drafts it
// records, never off; PATCH and the bulk actions pages_on / pages_off
// change it, each a new version.
func TestHarvestPagesSetting(t *testing.T) {
	t.Parallel()
	_, client := simwebtest.Client(t, contractSites, 2*time.Second)
	d := contract.New(client, contract.Config{})
	sqlstoretest.Engines(t, func(t *testing.T, db *sqlstore.DB) {
		s := newStack(t, db, withQueue(), withContract(d))
		r := s.post(t, "/api/v1/queues/contract", map[string]any{"country": "sg", "category": "news", "harvest_pages": true,
			"domainIds": []string{"gov:sg:wordpress-site.gov.sg", "gov:sg:ministry-site.gov.sg"}})
		require.Equal(t, http.StatusAccepted, r.StatusCode, string(r.Body))
		s.waitBatch(t, strings.TrimPrefix(r.Header.Get("Location"), "/api/v1/queues/batch/"))
		const wp, ministry = "gov:sg:wordpress-site.gov.sg::news", "gov:sg:ministry-site.gov.sg::news"
		require.True(t, s.seed(t, wp).Harvest.Pages)
		require.True(t, s.seed(t, ministry).Harvest.Pages)

		// A later batch without the flag leaves it on.
		_, res := s.runContract(t, []string{"gov:sg:wordpress-site.gov.sg"}, 1)
		require.Equal(t, []string{wp}, res.Refreshed)
		sd := s.seed(t, wp)
		require.True(t, sd.Harvest.Pages)
		require.Equal(t, 1, sd.Version, "the same contract: no new version")

		// PATCH turns it off: a new version.
		r = s.do(t, request{Method: http.MethodPatch, Path: "/api/v1/seeds/" + url.PathEscape(wp), Body: map[string]any{"harvest": map[string]any{"pages": false}}})
		require.Equal(t, http.StatusOK, r.StatusCode, string(r.Body))
		sd = httpapitest.Decode[seedengine.Seed](t, r)
		require.False(t, sd.Harvest.Pages)
		require.Equal(t, 2, sd.Version)
		r = s.do(t, request{Method: http.MethodPatch, Path: "/api/v1/seeds/" + url.PathEscape(wp), Body: map[string]any{"harvest": map[string]any{"pages": "yes"}}})
		require.Equal(t, []string{"body.harvest.pages"}, httpapitest.Locations(r.Problem(t, http.StatusUnprocessableEntity, seedengine.EINVALID)))

		// Bulk: on for both; the one already on is skipped with the reason.
		r = s.post(t, "/api/v1/seeds/bulk", map[string]any{"action": "pages_on", "seed_ids": []string{wp, ministry}})
		require.Equal(t, http.StatusOK, r.StatusCode, string(r.Body))
		res2 := httpapitest.Decode[seedengine.SeedBulkResult](t, r)
		require.Len(t, res2.Changed, 1)
		require.Equal(t, wp, res2.Changed[0].SeedID)
		require.Len(t, res2.Skipped, 1)
		require.Equal(t, "page fetching is already on", res2.Skipped[0].Reason)
		sd = s.seed(t, wp)
		require.True(t, sd.Harvest.Pages)
		require.Equal(t, 3, sd.Version)
	})
}
