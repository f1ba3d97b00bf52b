package jobs_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/jobs"
	"github.com/seedengine/seedengine/internal/sqlstore"
	"github.com/seedengine/seedengine/internal/sqlstore/sqlstoretest"
)

// A health change recorded by a check job is alerted once, signed, even
// when the receiver fails the first delivery; checks that change nothing,
// and a first check that finds a seed healthy, alert nothing.
func TestSeedAlerts(t *testing.T) {
	t.Parallel()
	sqlstoretest.Engines(t, func(t *testing.T, db *sqlstore.DB) {
		ctx := t.Context()
		var mu sync.Mutex
		var got []map[string]any
		var deliveries []string
		failFirst := true
		recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			body, _ := io.ReadAll(r.Body)
			mac := hmac.New(sha256.New, []byte("s3cret"))
			mac.Write(body)
			if r.Header.Get("X-Seedengine-Signature") != "sha256="+hex.EncodeToString(mac.Sum(nil)) {
				http.Error(w, "bad signature", http.StatusUnauthorized)
				return
			}
			mu.Lock()
			defer mu.Unlock()
			if failFirst {
				failFirst = false
				http.Error(w, "try later", http.StatusServiceUnavailable)
				return
			}
			var m map[string]any
			_ = json.Unmarshal(body, &m)
			got = append(got, m)
			deliveries = append(deliveries, r.Header.Get("X-Seedengine-Delivery"))
		}))
		t.Cleanup(recv.Close)

		tb := setup(t, db, testConfig(), nil)
		tb.q.SetAlertWebhook(jobs.AlertWebhook{URL: recv.URL, Secret: "s3cret", ConsoleURL: "https://seeds.example.org/"})
		seeds := sqlstore.NewSeedService(db)
		checker := &recordingChecker{seeds: seeds, checked: make(chan struct{}, 1)}
		tb.q.RegisterSeedChecks(checker, 0)
		start(t, tb)

		sd := &seedengine.Seed{
			DomainID: "media:sg:straitstimes.com", ContentType: seedengine.ContentTypeNews, Category: "news",
			Source: seedengine.SeedSource{Name: "ST"},
			Fetch:  seedengine.SeedFetch{Type: seedengine.FetchRSS, EntryURL: "https://www.straitstimes.com/rss.xml", Schedule: "@hourly"},
			Policy: seedengine.SeedPolicy{RobotsURL: "https://www.straitstimes.com/robots.txt", CrawlAllowed: true},
		}
		require.NoError(t, seeds.CreateSeed(ctx, sd, "alice"))
		record := func(state seedengine.SeedHealthState, reason string) {
			t.Helper()
			checker.set(seedengine.SeedHealth{State: state, Reason: reason})
			_, queued, err := tb.q.EnqueueSeedCheck(ctx, sd.SeedID)
			require.NoError(t, err)
			require.True(t, queued, "the last check's job is done")
			select {
			case <-checker.checked:
			case <-time.After(30 * time.Second):
				t.Fatal("no check within 30s")
			}
		}
		record(seedengine.HealthHealthy, "")      // first check: no alert
		record(seedengine.HealthHealthy, "")      // no change
		record(seedengine.HealthGone, "nxdomain") // alert
		record(seedengine.HealthGone, "nxdomain") // no change

		require.Eventually(t, func() bool { mu.Lock(); defer mu.Unlock(); return len(got) == 1 }, 60*time.Second, 50*time.Millisecond,
			"the change is delivered after the receiver's first 503")
		require.Never(t, func() bool { mu.Lock(); defer mu.Unlock(); return len(got) > 1 }, time.Second, 50*time.Millisecond)
		mu.Lock()
		defer mu.Unlock()
		require.Equal(t, "seed_health_changed", got[0]["event"])
		require.Equal(t, sd.SeedID, got[0]["seed_id"])
		require.Equal(t, "healthy", got[0]["from"])
		require.Equal(t, "gone", got[0]["to"])
		require.Equal(t, "nxdomain", got[0]["reason"])
		require.Equal(t, "https://seeds.example.org/console/seeds/media:sg:straitstimes.com::news", got[0]["link"])
		require.NotEmpty(t, deliveries[0])
	})
}

// recordingChecker stands in for seedcheck.Service: each check records
// the health it is set to through the store, with the job's callback, as
// the service does.
type recordingChecker struct {
	seeds   *sqlstore.SeedService
	checked chan struct{}

	mu     sync.Mutex
	health seedengine.SeedHealth
	at     time.Time
}

func (c *recordingChecker) set(h seedengine.SeedHealth) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.health = h
}

func (c *recordingChecker) CheckSeed(ctx context.Context, id string, inTx func(context.Context, *sql.Tx, seedengine.SeedHealthChange) error) error {
	c.mu.Lock()
	h := c.health
	if c.at.IsZero() {
		c.at = time.Now().UTC()
	}
	c.at = c.at.Add(time.Hour)
	at := c.at
	c.mu.Unlock()
	ch := seedengine.SeedCheck{SeedID: id, CheckedAt: at, Outcome: seedengine.CheckOK}
	if _, err := c.seeds.RecordSeedCheck(ctx, &ch, h, at.Add(time.Hour), inTx); err != nil {
		return err
	}
	c.checked <- struct{}{}
	return nil
}

func (c *recordingChecker) DueSeeds(context.Context, int) ([]string, error) { return nil, nil }

func (c *recordingChecker) DueSeed(context.Context, string) (bool, error) { return true, nil }

func (c *recordingChecker) PruneChecks(context.Context) error { return nil }
