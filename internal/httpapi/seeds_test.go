package httpapi_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/httpapi"
	"github.com/seedengine/seedengine/internal/httpapi/httpapitest"
	"github.com/seedengine/seedengine/internal/sqlstore"
	"github.com/seedengine/seedengine/internal/sqlstore/sqlstoretest"
)

// seedEnv is the API on a real seed store, closed by API keys: admin is
// named "ops-alice", writer "bot-bob", reader "dash".
type seedEnv struct {
	*env
	seeds                 *sqlstore.SeedService
	batches               *sqlstore.BatchService
	admin, writer, reader string
}

func newSeedEnv(t *testing.T, db *sqlstore.DB) *seedEnv {
	t.Helper()
	s := &seedEnv{seeds: sqlstore.NewSeedService(db), batches: sqlstore.NewBatchService(db)}
	s.env = setup(t, func(_ *httpapi.Config, d *httpapi.Deps) {
		d.Seeds = s.seeds
		// These tests only look at what the API stored: no job runs.
		d.Batches = sqlstoretest.RowsOnlyBatches(s.batches)
	})
	s.admin = s.keys.mustCreate(t, "ops-alice", seedengine.ScopeAdmin)
	s.writer = s.keys.mustCreate(t, "bot-bob", seedengine.ScopeWrite)
	s.reader = s.keys.mustCreate(t, "dash", seedengine.ScopeRead)
	return s
}

func (s *seedEnv) call(t *testing.T, method, path, token string, body any) response {
	t.Helper()
	return s.do(t, request{Method: method, Path: path, Token: token, Body: body})
}

func (s *seedEnv) seed(t *testing.T, id string) seedengine.Seed {
	t.Helper()
	r := s.call(t, http.MethodGet, "/api/v1/seeds/"+url.PathEscape(id), s.reader, nil)
	require.Equal(t, http.StatusOK, r.StatusCode, string(r.Body))
	var sd seedengine.Seed
	require.NoError(t, json.Unmarshal(r.Body, &sd))
	return sd
}

func TestSeedsCreateGetList(t *testing.T) {
	t.Parallel()
	sqlstoretest.Engines(t, func(t *testing.T, db *sqlstore.DB) {
		s := newSeedEnv(t, db)

		body := httpapitest.SeedBody("GOV:SG:mom.gov.sg")
		body["metadata"] = map[string]any{"desk": "news"}
		body["confidence"] = 0.7
		r := s.call(t, http.MethodPost, "/api/v1/seeds", s.writer, body)
		require.Equal(t, http.StatusCreated, r.StatusCode, string(r.Body))
		var created seedengine.Seed
		require.NoError(t, json.Unmarshal(r.Body, &created))
		require.Equal(t, "gov:sg:mom.gov.sg::news", created.SeedID, "content type news by default, id lower case")
		require.Equal(t, "/api/v1/seeds/"+url.PathEscape(created.SeedID), r.Header.Get("Location"))
		require.Equal(t, seedengine.SeedDraft, created.Status)
		require.Equal(t, 1, created.Version)
		require.Equal(t, "sg", created.Country)
		require.Equal(t, "@hourly", created.Fetch.Schedule, "the default schedule")
		require.True(t, created.Policy.CrawlAllowed, "allowed unless said otherwise")
		require.Equal(t, seedengine.SourceGovernment, created.Source.SourceType)
		require.Equal(t, "mom.gov.sg", created.Source.Domain)
		require.Equal(t, map[string]any{"desk": "news"}, created.Metadata)
		require.Equal(t, "bot-bob", created.History[0].Actor)

		// The raw JSON is snake_case, as seedengine.Seed.
		var raw map[string]any
		require.NoError(t, json.Unmarshal(r.Body, &raw))
		for _, k := range []string{"seed_id", "domain_id", "country", "category", "content_type", "source", "fetch", "policy", "evidence", "confidence", "status", "version", "created_at", "updated_at", "history"} {
			require.Contains(t, raw, k)
		}

		for _, b := range []map[string]any{
			httpapitest.SeedBody("com:sg:a1.example"), httpapitest.SeedBody("com:sg:a_.example"), httpapitest.SeedBody("media:jp:nhk.or.jp"), httpapitest.SeedBody("ngo:intl:who.int"),
		} {
			if b["domain_id"] == "media:jp:nhk.or.jp" {
				b["category"] = "policy"
				b["fetch"].(map[string]any)["type"] = "sitemap"
			}
			r := s.call(t, http.MethodPost, "/api/v1/seeds", s.writer, b)
			require.Equal(t, http.StatusCreated, r.StatusCode, string(r.Body))
		}
		b := httpapitest.SeedBody("gov:sg:mom.gov.sg")
		b["content_type"] = "press_release"
		b["fetch"].(map[string]any)["schedule"] = "*/15 * * * *"
		r = s.call(t, http.MethodPost, "/api/v1/seeds", s.writer, b)
		require.Equal(t, http.StatusCreated, r.StatusCode, string(r.Body))

		// Get: escaped or not, any case.
		got := s.seed(t, "gov:sg:mom.gov.sg::news")
		require.Equal(t, created, got)
		r = s.call(t, http.MethodGet, "/api/v1/seeds/gov%3Asg%3Amom.gov.sg%3A%3Apress_release", s.reader, nil)
		require.Equal(t, http.StatusOK, r.StatusCode, string(r.Body))
		r = s.call(t, http.MethodGet, "/api/v1/seeds/GOV:SG:mom.gov.sg::news", s.reader, nil)
		require.Equal(t, http.StatusOK, r.StatusCode, string(r.Body))
		s.call(t, http.MethodGet, "/api/v1/seeds/gov:sg:nope.gov.sg::news", s.reader, nil).Problem(t, http.StatusNotFound, "not_found")
		for _, bad := range []string{"gov:sg:mom.gov.sg", "gov:zz:mom.gov.sg::news", "gov:sg:mom.gov.sg::News-X"} {
			p := s.call(t, http.MethodGet, "/api/v1/seeds/"+url.PathEscape(bad), s.reader, nil).Problem(t, http.StatusUnprocessableEntity, "invalid")
			require.Equal(t, []string{"path.seedId"}, locations(p), bad)
		}

		// Lists.
		type list struct {
			Items                []seedengine.Seed
			Total, Limit, Offset int
			NextAfter            string `json:"next_after"`
		}
		ids := func(q string) ([]string, list) {
			t.Helper()
			r := s.call(t, http.MethodGet, "/api/v1/seeds"+q, s.reader, nil)
			require.Equal(t, http.StatusOK, r.StatusCode, string(r.Body))
			var l list
			require.NoError(t, json.Unmarshal(r.Body, &l))
			out := []string{}
			for _, sd := range l.Items {
				out = append(out, sd.SeedID)
				require.Nil(t, sd.History, "lists carry no history")
			}
			return out, l
		}
		all, l := ids("")
		require.Equal(t, []string{"com:sg:a1.example::news", "com:sg:a_.example::news", "gov:sg:mom.gov.sg::news",
			"gov:sg:mom.gov.sg::press_release", "media:jp:nhk.or.jp::news", "ngo:intl:who.int::news"}, all)
		require.Equal(t, 6, l.Total)
		require.Equal(t, 50, l.Limit)
		got2, l := ids("?country=SG&limit=2&offset=1")
		require.Equal(t, []string{"com:sg:a_.example::news", "gov:sg:mom.gov.sg::news"}, got2)
		require.Equal(t, 4, l.Total)
		require.Equal(t, 2, l.Limit)
		require.Equal(t, 1, l.Offset)
		got2, l = ids("?category=policy")
		require.Equal(t, []string{"media:jp:nhk.or.jp::news"}, got2)
		got2, l = ids("?fetch_type=rss&source_type=company&limit=1")
		require.Equal(t, []string{"com:sg:a1.example::news"}, got2)
		require.Equal(t, 2, l.Total)
		got2, _ = ids("?domain_id=gov:sg:mom.gov.sg")
		require.Equal(t, []string{"gov:sg:mom.gov.sg::news", "gov:sg:mom.gov.sg::press_release"}, got2)
		got2, l = ids("?status=active")
		require.Empty(t, got2)
		require.Zero(t, l.Total)
		_, l = ids("?offset=100")
		require.Equal(t, 6, l.Total, "the total past the last page")

		// Paging by key gives the same pages as offsets, with the total.
		var keyed []string
		q := "?limit=4"
		for {
			page, l := ids(q)
			require.Equal(t, 6, l.Total)
			keyed = append(keyed, page...)
			if l.NextAfter == "" {
				break
			}
			require.Equal(t, page[len(page)-1], l.NextAfter)
			q = "?limit=4&after=" + url.QueryEscape(l.NextAfter)
		}
		require.Equal(t, all, keyed)
		page, l := ids("?country=sg&after=" + url.QueryEscape("com:sg:a_.example::news"))
		require.Equal(t, []string{"gov:sg:mom.gov.sg::news", "gov:sg:mom.gov.sg::press_release"}, page)
		require.Equal(t, 4, l.Total)
		require.Empty(t, l.NextAfter)
		p := s.call(t, http.MethodGet, "/api/v1/seeds?after=x&offset=2", s.reader, nil).Problem(t, http.StatusUnprocessableEntity, "invalid")
		require.Contains(t, locations(p), "query.offset")

		for q, loc := range map[string]string{
			"?country=xx":        "query.country",
			"?category=Bad":      "query.category",
			"?domain_id=nope":    "query.domain_id",
			"?status=zombie":     "query.status",
			"?fetch_type=gopher": "query.fetch_type",
			"?source_type=army":  "query.source_type",
			"?limit=101":         "query.limit",
			"?offset=-1":         "query.offset",
			"?statuss=active":    "query.statuss",
		} {
			p := s.call(t, http.MethodGet, "/api/v1/seeds"+q, s.reader, nil).Problem(t, http.StatusUnprocessableEntity, "invalid")
			require.Contains(t, locations(p), loc, q)
		}
	})
}

func TestSeedsCreateValidation(t *testing.T) {
	t.Parallel()
	s := newSeedEnv(t, sqlstoretest.OpenSQLite(t))
	r := s.call(t, http.MethodPost, "/api/v1/seeds", s.writer, httpapitest.SeedBody("gov:sg:mom.gov.sg"))
	require.Equal(t, http.StatusCreated, r.StatusCode, string(r.Body))
	p := s.call(t, http.MethodPost, "/api/v1/seeds", s.writer, httpapitest.SeedBody("gov:sg:mom.gov.sg")).Problem(t, http.StatusConflict, "conflict")
	require.Equal(t, "a seed with this domain_id and content_type exists", p.Detail)

	with := func(edit func(map[string]any)) map[string]any {
		b := httpapitest.SeedBody("gov:sg:mti.gov.sg")
		edit(b)
		return b
	}
	fetch := func(b map[string]any) map[string]any { return b["fetch"].(map[string]any) }
	tests := []struct {
		name string
		body map[string]any
		loc  string
	}{
		{"status", with(func(b map[string]any) { b["status"] = "active" }), "body.status"},
		{"version", with(func(b map[string]any) { b["version"] = 3 }), "body.version"},
		{"created_at", with(func(b map[string]any) { b["created_at"] = "2026-01-01T00:00:00Z" }), "body.created_at"},
		{"unknown", with(func(b map[string]any) { b["colour"] = "red" }), "body.colour"},
		{"domain_id missing", with(func(b map[string]any) { delete(b, "domain_id") }), "body.domain_id"},
		{"domain_id bad", with(func(b map[string]any) { b["domain_id"] = "boss:sg:x.example" }), "body.domain_id"},
		{"category bad", with(func(b map[string]any) { b["category"] = "News!" }), "body.category"},
		{"fetch missing", with(func(b map[string]any) { delete(b, "fetch") }), "body.fetch"},
		{"fetch type bad", with(func(b map[string]any) { fetch(b)["type"] = "gopher" }), "body.fetch.type"},
		{"entry_url missing", with(func(b map[string]any) { delete(fetch(b), "entry_url") }), "body.fetch.entry_url"},
		{"entry_url not http", with(func(b map[string]any) { fetch(b)["entry_url"] = "ftp://x.example/" }), "body.fetch.entry_url"},
		{"schedule bad", with(func(b map[string]any) { fetch(b)["schedule"] = "61 * * * *" }), "body.fetch.schedule"},
		{"source type bad", with(func(b map[string]any) { b["source"] = map[string]any{"source_type": "army"} }), "body.source.source_type"},
		{"confidence", with(func(b map[string]any) { b["confidence"] = 1.5 }), "body.confidence"},
		{"crawl delay", with(func(b map[string]any) { b["policy"] = map[string]any{"crawl_delay": -1} }), "body.policy.crawl_delay"},
		{"robots url", with(func(b map[string]any) { b["policy"] = map[string]any{"robots_url": "not a url"} }), "body.policy.robots_url"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := s.call(t, http.MethodPost, "/api/v1/seeds", s.writer, tt.body).Problem(t, http.StatusUnprocessableEntity, "invalid")
			require.Contains(t, locations(p), tt.loc, "%+v", p)
		})
	}
	s.call(t, http.MethodPost, "/api/v1/seeds", s.reader, httpapitest.SeedBody("gov:sg:mti.gov.sg")).Problem(t, http.StatusForbidden, "forbidden")
}

func patchSeed(t *testing.T, s *seedEnv, id, token string, patch any) response {
	t.Helper()
	return s.do(t, request{Method: http.MethodPatch, Path: "/api/v1/seeds/" + url.PathEscape(id), Token: token, Body: patch,
		Header: http.Header{"Content-Type": {"application/merge-patch+json"}}})
}

func TestSeedsPatch(t *testing.T) {
	t.Parallel()
	sqlstoretest.Engines(t, func(t *testing.T, db *sqlstore.DB) {
		s := newSeedEnv(t, db)
		b := httpapitest.SeedBody("gov:sg:mom.gov.sg")
		b["metadata"] = map[string]any{"desk": "news", "keep": map[string]any{"a": 1, "b": 2}}
		b["fetch"].(map[string]any)["selectors"] = map[string]any{"item": "li", "title": "h2"}
		r := s.call(t, http.MethodPost, "/api/v1/seeds", s.writer, b)
		require.Equal(t, http.StatusCreated, r.StatusCode, string(r.Body))
		const id = "gov:sg:mom.gov.sg::news"

		version := 1
		for _, tt := range []struct {
			name  string
			patch string
			bumps bool
			check func(seedengine.Seed)
		}{
			{"metadata merge", `{"metadata": {"desk": null, "keep": {"b": null, "c": 3}, "new": true}}`, false, func(sd seedengine.Seed) {
				require.Equal(t, map[string]any{"keep": map[string]any{"a": 1.0, "c": 3.0}, "new": true}, sd.Metadata)
			}},
			{"name", `{"source": {"name": "MOM"}}`, false, func(sd seedengine.Seed) { require.Equal(t, "MOM", sd.Source.Name) }},
			{"source type", `{"source": {"source_type": "organization"}}`, false, func(sd seedengine.Seed) {
				require.Equal(t, seedengine.SourceOrganization, sd.Source.SourceType)
			}},
			{"source type reset", `{"source": {"source_type": null}}`, false, func(sd seedengine.Seed) {
				require.Equal(t, seedengine.SourceGovernment, sd.Source.SourceType)
			}},
			{"confidence and category", `{"confidence": 0.3, "category": "policy"}`, false, func(sd seedengine.Seed) {
				require.Equal(t, 0.3, sd.Confidence)
				require.Equal(t, "policy", sd.Category)
			}},
			{"empty patch", `{}`, false, nil},
			{"same entry url", `{"fetch": {"entry_url": "https://www.mom.gov.sg/rss.xml"}}`, false, nil},
			{"entry url", `{"fetch": {"entry_url": "https://www.mom.gov.sg/news.xml"}}`, true, nil},
			{"type", `{"fetch": {"type": "atom"}}`, true, nil},
			{"schedule", `{"fetch": {"schedule": "0 */2 * * *"}}`, true, nil},
			{"schedule reset", `{"fetch": {"schedule": null}}`, true, func(sd seedengine.Seed) { require.Equal(t, "@hourly", sd.Fetch.Schedule) }},
			{"selector merge", `{"fetch": {"selectors": {"title": null, "date": "time"}}}`, true, func(sd seedengine.Seed) {
				require.Equal(t, map[string]string{"item": "li", "date": "time"}, sd.Fetch.Selectors)
			}},
			{"selectors removed", `{"fetch": {"selectors": null}}`, true, func(sd seedengine.Seed) { require.Nil(t, sd.Fetch.Selectors) }},
			{"policy", `{"policy": {"crawl_delay": 10, "crawl_allowed": false}}`, true, func(sd seedengine.Seed) {
				require.Equal(t, 10.0, sd.Policy.CrawlDelay)
				require.False(t, sd.Policy.CrawlAllowed)
			}},
			{"metadata removed", `{"metadata": null}`, false, func(sd seedengine.Seed) { require.Nil(t, sd.Metadata) }},
		} {
			r := patchSeed(t, s, id, s.writer, tt.patch)
			require.Equal(t, http.StatusOK, r.StatusCode, "%s: %s", tt.name, r.Body)
			var sd seedengine.Seed
			require.NoError(t, json.Unmarshal(r.Body, &sd))
			if tt.bumps {
				version++
			}
			require.Equal(t, version, sd.Version, tt.name)
			if tt.check != nil {
				tt.check(sd)
			}
			require.Equal(t, sd, s.seed(t, id), tt.name)
		}

		// application/json is accepted too.
		r = s.do(t, request{Method: http.MethodPatch, Path: "/api/v1/seeds/" + id, Token: s.writer, Body: `{"confidence": 0.4}`})
		require.Equal(t, http.StatusOK, r.StatusCode, string(r.Body))

		// Versions, newest first, by key name.
		r = s.call(t, http.MethodGet, "/api/v1/seeds/"+url.PathEscape(id)+"/versions", s.reader, nil)
		require.Equal(t, http.StatusOK, r.StatusCode, string(r.Body))
		var vl struct {
			Items []seedengine.SeedVersion
			Total int
		}
		require.NoError(t, json.Unmarshal(r.Body, &vl))
		require.Equal(t, version, vl.Total)
		require.Equal(t, version, vl.Items[0].Version)
		require.Equal(t, seedengine.SeedVersionCurrent, vl.Items[0].State)
		require.Equal(t, seedengine.SeedVersionSuperseded, vl.Items[1].State)
		require.Equal(t, "bot-bob", vl.Items[0].Actor)
		require.Equal(t, 1, vl.Items[version-1].Version)
		s.call(t, http.MethodGet, "/api/v1/seeds/gov:sg:nope.gov.sg::news/versions", s.reader, nil).Problem(t, http.StatusNotFound, "not_found")

		// Refusals name the field.
		for _, tt := range []struct{ patch, loc string }{
			{`{"status": "active"}`, "body.status"},
			{`{"status": "draft"}`, "body.status"},
			{`{"domain_id": "gov:sg:mti.gov.sg"}`, "body.domain_id"},
			{`{"seed_id": "x"}`, "body.seed_id"},
			{`{"country": "jp"}`, "body.country"},
			{`{"content_type": "blog"}`, "body.content_type"},
			{`{"source": {"domain": "evil.example"}}`, "body.source.domain"},
			{`{"version": 9}`, "body.version"},
			{`{"evidence": {}}`, "body.evidence"},
			{`{"colour": "red"}`, "body.colour"},
			{`{"fetch": {"colour": "red"}}`, "body.fetch.colour"},
			{`{"fetch": null}`, "body.fetch"},
			{`{"fetch": {"entry_url": null}}`, "body.fetch.entry_url"},
			{`{"fetch": {"entry_url": 7}}`, "body.fetch.entry_url"},
			{`{"fetch": {"type": "gopher"}}`, "body.fetch.type"},
			{`{"fetch": {"schedule": "sometimes"}}`, "body.fetch.schedule"},
			{`{"confidence": "high"}`, "body.confidence"},
			{`{"confidence": 3}`, "body.confidence"},
			{`{"category": null}`, "body.category"},
			{`{"metadata": [1]}`, "body.metadata"},
		} {
			p := patchSeed(t, s, id, s.writer, tt.patch).Problem(t, http.StatusUnprocessableEntity, "invalid")
			require.Equal(t, []string{tt.loc}, locations(p), tt.patch)
		}
		p := patchSeed(t, s, id, s.writer, `{"status": "active"}`).Problem(t, http.StatusUnprocessableEntity, "invalid")
		require.Contains(t, p.Detail, "promote")
		patchSeed(t, s, id, s.writer, `[1, 2]`).Problem(t, http.StatusBadRequest, "invalid")
		patchSeed(t, s, id, s.writer, `{`).Problem(t, http.StatusBadRequest, "invalid")
		s.do(t, request{Method: http.MethodPatch, Path: "/api/v1/seeds/" + id, Token: s.writer, Body: `{}`,
			Header: http.Header{"Content-Type": {"text/plain"}}}).Problem(t, http.StatusUnsupportedMediaType, "invalid")
		patchSeed(t, s, "gov:sg:nope.gov.sg::news", s.writer, `{}`).Problem(t, http.StatusNotFound, "not_found")
		patchSeed(t, s, id, s.reader, `{}`).Problem(t, http.StatusForbidden, "forbidden")
		require.Equal(t, version, s.seed(t, id).Version, "refused patches change nothing")
	})
}

func TestSeedsTransitions(t *testing.T) {
	t.Parallel()
	sqlstoretest.Engines(t, func(t *testing.T, db *sqlstore.DB) {
		s := newSeedEnv(t, db)
		r := s.call(t, http.MethodPost, "/api/v1/seeds", s.writer, httpapitest.SeedBody("gov:sg:mom.gov.sg"))
		require.Equal(t, http.StatusCreated, r.StatusCode, string(r.Body))
		const id = "gov:sg:mom.gov.sg::news"
		path := "/api/v1/seeds/" + url.PathEscape(id)

		s.call(t, http.MethodPost, "/api/v1/seeds/promote", s.writer, map[string]any{"seedId": id}).Problem(t, http.StatusForbidden, "forbidden")
		p := s.call(t, http.MethodPost, path+"/suspend", s.admin, nil).Problem(t, http.StatusConflict, "conflict")
		require.Contains(t, p.Detail, "draft")

		r = s.call(t, http.MethodPost, "/api/v1/seeds/promote", s.admin, map[string]any{"seedId": id, "reason": "checked by hand"})
		require.Equal(t, http.StatusOK, r.StatusCode, string(r.Body))
		var sd seedengine.Seed
		require.NoError(t, json.Unmarshal(r.Body, &sd))
		require.Equal(t, seedengine.SeedActive, sd.Status)
		require.NotNil(t, sd.PromotedAt)

		p = s.call(t, http.MethodPost, "/api/v1/seeds/promote", s.admin, map[string]any{"seedId": id}).Problem(t, http.StatusConflict, "conflict")
		require.Contains(t, p.Detail, "is active")
		s.call(t, http.MethodPost, "/api/v1/seeds/promote", s.admin, map[string]any{"seedId": "gov:sg:nope.gov.sg::news"}).Problem(t, http.StatusNotFound, "not_found")
		p = s.call(t, http.MethodPost, "/api/v1/seeds/promote", s.admin, map[string]any{"seedId": "nope"}).Problem(t, http.StatusUnprocessableEntity, "invalid")
		require.Equal(t, []string{"body.seedId"}, locations(p))
		p = s.call(t, http.MethodPost, "/api/v1/seeds/promote", s.admin, map[string]any{}).Problem(t, http.StatusUnprocessableEntity, "invalid")
		require.Equal(t, []string{"body.seedId"}, locations(p))

		s.call(t, http.MethodPost, path+"/reactivate", s.admin, nil).Problem(t, http.StatusConflict, "conflict")
		r = s.call(t, http.MethodPost, path+"/suspend", s.admin, map[string]any{"reason": "feed down"})
		require.Equal(t, http.StatusOK, r.StatusCode, string(r.Body))
		r = s.call(t, http.MethodPost, path+"/reactivate", s.admin, nil)
		require.Equal(t, http.StatusOK, r.StatusCode, string(r.Body))
		r = s.call(t, http.MethodPost, path+"/archive", s.admin, `{}`)
		require.Equal(t, http.StatusOK, r.StatusCode, string(r.Body))
		p = s.call(t, http.MethodPost, path+"/archive", s.admin, nil).Problem(t, http.StatusConflict, "conflict")
		require.Contains(t, p.Detail, "archived")
		s.call(t, http.MethodPost, "/api/v1/seeds/gov:sg:nope.gov.sg::news/archive", s.admin, nil).Problem(t, http.StatusNotFound, "not_found")
		p = s.call(t, http.MethodPost, path+"/suspend", s.admin, map[string]any{"reason": strings.Repeat("x", 501)}).Problem(t, http.StatusUnprocessableEntity, "invalid")
		require.Equal(t, []string{"body.reason"}, locations(p))

		sd = s.seed(t, id)
		type step struct{ action, from, to, actor, reason string }
		var steps []step
		for _, h := range sd.History {
			steps = append(steps, step{h.Action, string(h.From), string(h.To), h.Actor, h.Reason})
		}
		require.Equal(t, []step{
			{"create", "", "draft", "bot-bob", ""},
			{"promote", "draft", "active", "ops-alice", "checked by hand"},
			{"suspend", "active", "suspended", "ops-alice", "feed down"},
			{"reactivate", "suspended", "active", "ops-alice", ""},
			{"archive", "active", "archived", "ops-alice", ""},
		}, steps)
		r = s.call(t, http.MethodGet, "/api/v1/seeds?status=archived", s.reader, nil)
		require.Contains(t, string(r.Body), `"total":1`)
	})
}

// With no key configured, changes are recorded as anonymous.
func TestSeedsAnonymousActor(t *testing.T) {
	t.Parallel()
	db := sqlstoretest.OpenSQLite(t)
	e := setup(t, func(_ *httpapi.Config, d *httpapi.Deps) { d.Seeds = sqlstore.NewSeedService(db) })
	r := e.do(t, request{Method: http.MethodPost, Path: "/api/v1/seeds", Body: httpapitest.SeedBody("gov:sg:mom.gov.sg")})
	require.Equal(t, http.StatusCreated, r.StatusCode, string(r.Body))
	r = e.do(t, request{Method: http.MethodPost, Path: "/api/v1/seeds/promote", Body: map[string]any{"seedId": "gov:sg:mom.gov.sg::news"}})
	require.Equal(t, http.StatusOK, r.StatusCode, string(r.Body))
	var sd seedengine.Seed
	require.NoError(t, json.Unmarshal(r.Body, &sd))
	require.Equal(t, seedengine.AnonymousActor, sd.History[0].Actor)
	require.Equal(t, seedengine.AnonymousActor, sd.History[1].Actor)

	// Without a seed service the routes say so.
	e = setup(t)
	e.do(t, request{Path: "/api/v1/seeds"}).Problem(t, http.StatusServiceUnavailable, "unavailable")
}

// The schema types documenting the seed routes have exactly the JSON
// fields of the root types they stand for.
func TestSeedSchemasMatchRootTypes(t *testing.T) {
	t.Parallel()
	e := setup(t)
	r := e.do(t, request{Path: "/openapi.json"})
	var doc struct {
		Components struct {
			Schemas map[string]struct {
				Properties map[string]map[string]any `json:"properties"`
			} `json:"schemas"`
		} `json:"components"`
	}
	require.NoError(t, json.Unmarshal(r.Body, &doc))
	for name, typ := range map[string]reflect.Type{
		"Seed":           reflect.TypeFor[seedengine.Seed](),
		"SeedSource":     reflect.TypeFor[seedengine.SeedSource](),
		"SeedFetch":      reflect.TypeFor[seedengine.SeedFetch](),
		"SeedPolicy":     reflect.TypeFor[seedengine.SeedPolicy](),
		"SeedEvidence":   reflect.TypeFor[seedengine.SeedEvidence](),
		"SeedTransition": reflect.TypeFor[seedengine.SeedTransition](),
		"SeedVersion":    reflect.TypeFor[seedengine.SeedVersion](),
		"SeedHealth":     reflect.TypeFor[seedengine.SeedHealth](),
		"SeedCheck":      reflect.TypeFor[seedengine.SeedCheck](),
	} {
		schema, ok := doc.Components.Schemas[name]
		require.True(t, ok, "schema %s missing", name)
		var want []string
		for i := range typ.NumField() {
			tag, _, _ := strings.Cut(typ.Field(i).Tag.Get("json"), ",")
			want = append(want, tag)
		}
		var got []string
		for k := range schema.Properties {
			got = append(got, k)
		}
		require.ElementsMatch(t, want, got, name)
	}
	status := doc.Components.Schemas["Seed"].Properties["status"]
	var statuses []any
	for _, st := range seedengine.SeedStatuses {
		statuses = append(statuses, string(st))
	}
	require.Equal(t, statuses, status["enum"])
}
