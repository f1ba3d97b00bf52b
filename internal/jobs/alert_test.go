package jobs_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/riverqueue/river/rivertype"
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

// A receiver that answers with a redirect does not get the alert sent on
// to where it points (here another loopback port): the delivery fails, is
// retried, and its log line names the Location. The same holds with a
// client of the caller's, which is left as it was.
func TestSeedAlertRedirectNotFollowed(t *testing.T) {
	t.Parallel()
	for _, own := range []bool{false, true} {
		t.Run(map[bool]string{false: "default_client", true: "own_client"}[own], func(t *testing.T) {
			t.Parallel()
			sqlstoretest.Engines(t, func(t *testing.T, db *sqlstore.DB) {
				var elsewhere atomic.Int64
				target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					elsewhere.Add(1)
				}))
				t.Cleanup(target.Close)
				// Long enough to be cut in the log.
				location := target.URL + "/collect?" + strings.Repeat("x", 1000)
				var posts atomic.Int64
				recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					posts.Add(1)
					http.Redirect(w, r, location, http.StatusTemporaryRedirect)
				}))
				t.Cleanup(recv.Close)

				var logs syncBuffer
				cfg := testConfig()
				cfg.Logger = slog.New(slog.NewJSONHandler(&logs, nil))
				tb := setup(t, db, cfg, nil)
				var client *http.Client
				if own {
					client = &http.Client{Timeout: 5 * time.Second}
				}
				tb.q.SetAlertWebhook(jobs.AlertWebhook{URL: recv.URL, Client: client})
				if own {
					require.Nil(t, client.CheckRedirect, "the caller's client is not changed")
				}
				start(t, tb)

				res, err := tb.q.Client().Insert(t.Context(), jobs.SeedAlertArgs{Change: seedengine.SeedHealthChange{
					SeedID: "media:sg:straitstimes.com::news", From: seedengine.HealthHealthy, To: seedengine.HealthGone,
					Reason: "nxdomain", At: time.Now().UTC(), CheckID: 1,
				}}, nil)
				require.NoError(t, err)

				var job *rivertype.JobRow
				require.Eventually(t, func() bool {
					j, err := tb.q.Client().JobGet(t.Context(), res.Job.ID)
					if err != nil {
						return false
					}
					job = j
					return job.State == rivertype.JobStateCompleted || len(job.Errors) > 0
				}, 60*time.Second, 20*time.Millisecond, "the first attempt ends")
				require.NotEqual(t, rivertype.JobStateCompleted, job.State, "a redirect is not a delivery")
				require.Contains(t, job.Errors[0].Error, target.URL+"/collect?")

				var failed map[string]any
				for _, line := range strings.Split(logs.String(), "\n") {
					var m map[string]any
					if json.Unmarshal([]byte(line), &m) == nil && m["event"] == "seed_alert_failed" {
						failed = m
						break
					}
				}
				require.NotNil(t, failed, "a failed delivery is logged: %s", logs.String())
				require.Equal(t, "WARN", failed["level"])
				require.Equal(t, float64(http.StatusTemporaryRedirect), failed["status"])
				loc, _ := failed["location"].(string)
				require.True(t, strings.HasPrefix(loc, target.URL+"/collect?xxx"), "the log names the Location: %q", loc)
				require.LessOrEqual(t, len(loc), 256, "cut to a sane length")
				require.Positive(t, posts.Load())
				require.Zero(t, elsewhere.Load(), "the redirect's target got nothing")
			})
		})
	}
}

// A webhook URL may carry a token: a failed delivery's error, kept with
// the job and shown in River UI, does not name it.
func TestSeedAlertErrorHidesTheURL(t *testing.T) {
	t.Parallel()
	db := sqlstoretest.OpenSQLite(t)
	// A port nothing listens on: the connection is refused.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())
	tb := setup(t, db, testConfig(), nil)
	tb.q.SetAlertWebhook(jobs.AlertWebhook{URL: "http://hook:tok3nSecret@" + addr + "/alerts?token=tok3nSecret"})
	start(t, tb)
	res, err := tb.q.Client().Insert(t.Context(), jobs.SeedAlertArgs{Change: seedengine.SeedHealthChange{
		SeedID: "media:sg:straitstimes.com::news", From: seedengine.HealthHealthy, To: seedengine.HealthGone, At: time.Now().UTC(), CheckID: 1,
	}}, nil)
	require.NoError(t, err)
	var job *rivertype.JobRow
	require.Eventually(t, func() bool {
		job, err = tb.q.Client().JobGet(t.Context(), res.Job.ID)
		return err == nil && len(job.Errors) > 0
	}, 60*time.Second, 20*time.Millisecond, "the first attempt fails")
	require.Contains(t, job.Errors[0].Error, "refused")
	require.NotContains(t, job.Errors[0].Error, "tok3nSecret")
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
	decide := func(*seedengine.SeedCheck, seedengine.ArrivalHistory) (seedengine.SeedHealth, time.Time) {
		return h, at.Add(time.Hour)
	}
	if _, _, err := c.seeds.RecordSeedCheck(ctx, &ch, nil, false, decide, inTx); err != nil {
		return err
	}
	c.checked <- struct{}{}
	return nil
}

func (c *recordingChecker) DueSeeds(context.Context, int) ([]string, error) { return nil, nil }

func (c *recordingChecker) DueSeed(context.Context, string) (bool, error) { return true, nil }

func (c *recordingChecker) PruneChecks(context.Context) error { return nil }
