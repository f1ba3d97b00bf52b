package httpapi_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/httpapi"
	"github.com/seedengine/seedengine/internal/seedcheck"
	"github.com/seedengine/seedengine/internal/simweb"
	"github.com/seedengine/seedengine/internal/simweb/simwebtest"
	"github.com/seedengine/seedengine/internal/sqlstore"
	"github.com/seedengine/seedengine/internal/sqlstore/sqlstoretest"
)

// checkNow stands in for the queue: it runs the check at once through a
// real seedcheck.Service, so the API's answers can be read right after.
type checkNow struct {
	svc  *seedcheck.Service
	mu   sync.Mutex
	jobs int64
}

func (c *checkNow) EnqueueSeedCheck(ctx context.Context, id string) (int64, bool, error) {
	if err := c.svc.CheckSeed(ctx, id, nil); err != nil {
		return 0, false, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.jobs++
	return c.jobs, true, nil
}

// A seed checked through the API: only active or suspended seeds, its
// checks newest first and paged, its health with them; a seed whose name
// went dead is gone after two checks.
func TestSeedChecksAPI(t *testing.T) {
	t.Parallel()
	sqlstoretest.Engines(t, func(t *testing.T, db *sqlstore.DB) {
		const host = "daily-news.com.sg"
		w, client := simwebtest.Client(t, []simweb.Site{{Host: host, Layout: simweb.LayoutWordPress}}, 5*time.Second)
		store := sqlstore.NewSeedService(db)
		q := &checkNow{svc: seedcheck.NewService(store, seedcheck.NewChecker(client, nil), seedcheck.Config{})}
		s := &seedEnv{seeds: store, batches: sqlstore.NewBatchService(db)}
		s.env = setup(t, func(_ *httpapi.Config, d *httpapi.Deps) {
			d.Seeds, d.Batches, d.SeedChecks, d.SeedCheckQueue = store, sqlstoretest.RowsOnlyBatches(s.batches), store, q
		})
		s.admin = s.keys.mustCreate(t, "ops-alice", seedengine.ScopeAdmin)
		s.writer = s.keys.mustCreate(t, "bot-bob", seedengine.ScopeWrite)
		s.reader = s.keys.mustCreate(t, "dash", seedengine.ScopeRead)

		body := map[string]any{
			"domain_id": "media:sg:" + host, "category": "news", "source": map[string]any{"name": "Daily News"},
			"fetch":  map[string]any{"type": "rss", "entry_url": "https://" + host + "/feed/"},
			"policy": map[string]any{"robots_url": "https://" + host + "/robots.txt"},
		}
		r := s.call(t, http.MethodPost, "/api/v1/seeds", s.writer, body)
		require.Equal(t, http.StatusCreated, r.StatusCode, string(r.Body))
		id := "media:sg:" + host + "::news"
		path := "/api/v1/seeds/" + url.PathEscape(id)

		s.call(t, http.MethodPost, path+"/check", s.writer, nil).Problem(t, http.StatusConflict, "conflict")
		s.call(t, http.MethodPost, path+"/check", s.reader, nil).Problem(t, http.StatusForbidden, "forbidden")
		s.call(t, http.MethodPost, "/api/v1/seeds/media:sg:nobody.com::news/check", s.writer, nil).Problem(t, http.StatusNotFound, "not_found")
		s.call(t, http.MethodGet, path+"/checks?limit=0", s.reader, nil).Problem(t, http.StatusUnprocessableEntity, "invalid")
		s.call(t, http.MethodGet, path+"/checks?limit=501", s.reader, nil).Problem(t, http.StatusUnprocessableEntity, "invalid")
		r = s.call(t, http.MethodGet, path+"/checks?limit=500", s.reader, nil)
		require.Equal(t, http.StatusOK, r.StatusCode, "the largest page: %s", r.Body)

		r = s.call(t, http.MethodPost, "/api/v1/seeds/promote", s.admin, map[string]any{"seedId": id})
		require.Equal(t, http.StatusOK, r.StatusCode, string(r.Body))

		var list struct {
			Health      seedengine.SeedHealth  `json:"health"`
			NextCheckAt *time.Time             `json:"next_check_at"`
			Items       []seedengine.SeedCheck `json:"items"`
			NextBefore  int64                  `json:"next_before"`
		}
		r = s.call(t, http.MethodGet, path+"/checks", s.reader, nil)
		require.Equal(t, http.StatusOK, r.StatusCode, string(r.Body))
		require.NoError(t, json.Unmarshal(r.Body, &list))
		require.Equal(t, seedengine.HealthUnknown, list.Health.State)
		require.Empty(t, list.Items)
		require.Nil(t, list.NextCheckAt)

		check := func() {
			t.Helper()
			r := s.call(t, http.MethodPost, path+"/check", s.writer, nil)
			require.Equal(t, http.StatusAccepted, r.StatusCode, string(r.Body))
			var q struct {
				SeedID string `json:"seed_id"`
				JobID  int64  `json:"job_id"`
				Queued bool   `json:"queued"`
			}
			require.NoError(t, json.Unmarshal(r.Body, &q))
			require.Equal(t, id, q.SeedID)
			require.Positive(t, q.JobID)
			require.True(t, q.Queued)
		}
		check()
		r = s.call(t, http.MethodGet, path+"/checks", s.reader, nil)
		require.NoError(t, json.Unmarshal(r.Body, &list))
		require.Equal(t, seedengine.HealthHealthy, list.Health.State, string(r.Body))
		require.NotNil(t, list.NextCheckAt)
		require.Len(t, list.Items, 1)
		require.Equal(t, seedengine.CheckOK, list.Items[0].Outcome)
		require.Positive(t, list.Items[0].Items)

		w.AddSite(simweb.Site{Host: host, Layout: simweb.LayoutWordPress, Scenario: simweb.ScenarioNXDomain})
		check()
		check()
		r = s.call(t, http.MethodGet, path+"/checks?limit=2", s.reader, nil)
		require.NoError(t, json.Unmarshal(r.Body, &list))
		require.Equal(t, seedengine.HealthGone, list.Health.State, string(r.Body))
		require.Equal(t, "nxdomain", list.Health.Reason)
		sd := s.seed(t, id)
		require.NotNil(t, sd.Health, "the seed shows its health")
		require.Equal(t, seedengine.HealthGone, sd.Health.State)
		var page struct {
			Items []seedengine.Seed `json:"items"`
			Total int               `json:"total"`
		}
		r = s.call(t, http.MethodGet, "/api/v1/seeds?health=gone", s.reader, nil)
		require.Equal(t, http.StatusOK, r.StatusCode, string(r.Body))
		require.NoError(t, json.Unmarshal(r.Body, &page))
		require.Equal(t, 1, page.Total)
		require.Equal(t, id, page.Items[0].SeedID)
		require.Equal(t, seedengine.HealthGone, page.Items[0].Health.State, "list items carry their health")
		r = s.call(t, http.MethodGet, "/api/v1/seeds?health=healthy", s.reader, nil)
		require.NoError(t, json.Unmarshal(r.Body, &page))
		require.Zero(t, page.Total)
		r = s.call(t, http.MethodGet, "/api/v1/seeds?health=unknown", s.reader, nil)
		require.NoError(t, json.Unmarshal(r.Body, &page))
		require.Zero(t, page.Total, "the one seed was checked")
		s.call(t, http.MethodGet, "/api/v1/seeds?health=sick", s.reader, nil).Problem(t, http.StatusUnprocessableEntity, "invalid")
		m := s.call(t, http.MethodGet, "/metrics", s.reader, nil)
		require.Equal(t, http.StatusOK, m.StatusCode)
		require.Contains(t, string(m.Body), `seedengine_seed_health{state="gone"} 1`)
		require.Contains(t, string(m.Body), `seedengine_seed_health{state="healthy"} 0`)
		require.Len(t, list.Items, 2)
		require.Equal(t, seedengine.CheckGone, list.Items[0].Outcome)
		require.Positive(t, list.NextBefore)
		r = s.call(t, http.MethodGet, path+"/checks?limit=2&before="+jsonNumber(list.NextBefore), s.reader, nil)
		list.NextBefore = 0
		require.NoError(t, json.Unmarshal(r.Body, &list))
		require.Len(t, list.Items, 1, "the first check, on the last page")
		require.Equal(t, seedengine.CheckOK, list.Items[0].Outcome)
		require.Zero(t, list.NextBefore)
	})
}

func jsonNumber(n int64) string {
	b, _ := json.Marshal(n)
	return string(b)
}
