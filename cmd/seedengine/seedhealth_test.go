package main_test

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine/internal/simweb"
	"github.com/seedengine/seedengine/internal/sqlstore/sqlstoretest"
)

// Five promoted feeds change under a running service: one goes stale, one
// starts redirecting permanently, one turns 403, one disappears (410) and
// one stays as it is (a 304 on every check after the first). Checks asked
// for through the API bring each to its state; the service is killed
// (SIGKILL) right after the last round of checks is accepted and started
// again on the same store. No accepted check is lost, each change is
// alerted once (the webhook sees one signed delivery per change; a POST
// the kill made the service repeat carries the same X-Seedengine-Delivery
// and body, as docs/seeds.md promises), the moved seed gets its new entry
// as a proposed version, the stale and gone seeds get a contract run of
// their domain, the health shows in the seed, the seeds list's filter and
// the metrics, and only the changes to a bad state log at WARN. Both
// engines.
func TestSeedHealthScenarios(t *testing.T) {
	t.Parallel()
	for _, engine := range []string{"sqlite", "postgres"} {
		t.Run(engine, func(t *testing.T) {
			t.Parallel()
			var db []string
			if engine == "postgres" {
				db = []string{"--database-url", sqlstoretest.NewPostgresURL(t)}
			}
			runSeedHealthScenarios(t, db)
		})
	}
}

// alertReceiver is a webhook on loopback that drops repeats by
// X-Seedengine-Delivery, as docs/seeds.md tells receivers to: delivery is
// at least once, and a process killed around a POST sends it again.
type alertReceiver struct {
	mu         sync.Mutex
	deliveries map[string][]byte // X-Seedengine-Delivery → body of its first POST
	posts      int
	badSig     int
	noID       int
	changed    []string // repeats whose body differs from the first copy
}

func newAlertReceiver(t *testing.T, secret string) (*alertReceiver, string) {
	a := &alertReceiver{deliveries: map[string][]byte{}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mac := hmac.New(sha256.New, []byte(secret))
		mac.Write(body)
		a.mu.Lock()
		defer a.mu.Unlock()
		a.posts++
		if r.Header.Get("X-Seedengine-Signature") != "sha256="+hex.EncodeToString(mac.Sum(nil)) {
			a.badSig++ // accepted all the same: the test fails on it at the end
		}
		id := r.Header.Get("X-Seedengine-Delivery")
		if id == "" {
			a.noID++
			return
		}
		if first, seen := a.deliveries[id]; seen {
			if !bytes.Equal(first, body) {
				a.changed = append(a.changed, fmt.Sprintf("%s: %s, first %s", id, body, first))
			}
			return
		}
		a.deliveries[id] = body
	}))
	t.Cleanup(srv.Close)
	return a, srv.URL + "/hooks/seedengine"
}

// alertsSeen is what the receiver got: each distinct delivery as "seed:
// from → to", and every POST.
type alertsSeen struct {
	changes []string
	posts   int
	badSig  int
	noID    int
	changed []string
}

func (a *alertReceiver) seen() alertsSeen {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := alertsSeen{posts: a.posts, badSig: a.badSig, noID: a.noID, changed: append([]string(nil), a.changed...)}
	for _, body := range a.deliveries {
		var m map[string]any
		_ = json.Unmarshal(body, &m)
		out.changes = append(out.changes, fmt.Sprintf("%v: %v → %v", m["seed_id"], m["from"], m["to"]))
	}
	return out
}

func runSeedHealthScenarios(t *testing.T, db []string) {
	w, err := simweb.Start(simweb.Config{Seed: 1})
	require.NoError(t, err)
	t.Cleanup(func() { _ = w.Close() })
	hosts := map[string]string{ // role → host
		"stale": "stale-news.com.sg", "moved": "moving-news.com.sg", "blocked": "walled-news.com.sg",
		"gone": "vanishing-news.com.sg", "unchanged": "steady-news.com.sg",
	}
	for _, h := range hosts {
		w.AddSite(simweb.Site{Host: h, Layout: simweb.LayoutWordPress})
	}
	ca, err := w.WriteCAFile(t.TempDir())
	require.NoError(t, err)
	const secret = "webhook-secret"
	alerts, hook := newAlertReceiver(t, secret)

	dataDir := t.TempDir()
	stdout, stderr, code := runCLI(t, nil, append([]string{"apikey", "create", "--data-dir", dataDir, "--name", "ops", "--scope", "admin"}, db...)...)
	require.Equal(t, 0, code, "apikey create: %s", stderr)
	key := lastLine(strings.TrimSpace(stdout))
	args := append([]string{"--dns-server", w.DNSAddr(), "--connect-to", strings.Join(w.ConnectTo(), ","),
		"--extra-ca-file", ca, "--allow-private-networks", "127.0.0.0/8", "--per-host-delay", "0s",
		"--seed-check-interval", "1s", "--alert-webhook-url", hook, "--alert-webhook-secret", secret}, db...)
	s := startServer(t, dataDir, args...)
	first := s
	t.Cleanup(func() {
		if t.Failed() {
			for _, l := range append(first.logLines(), s.logLines()...) {
				if ev, _ := l["event"].(string); strings.Contains(ev, "alert") || l["level"] == "ERROR" {
					t.Logf("%v", l)
				}
			}
		}
	})

	// Every wait below is for an event, polled; the limit only ends a test
	// that is stuck. It is generous: on a loaded 2-core machine a killed
	// service's jobs alone take 50–70 s to be rescued.
	const patience = 5 * time.Minute

	ids := map[string]string{}
	for role, h := range hosts {
		r := s.do(t, "POST", "/api/v1/seeds", key, map[string]any{
			"domain_id": "media:sg:" + h, "category": "news", "source": map[string]any{"name": role},
			"fetch":  map[string]any{"type": "rss", "entry_url": "https://" + h + "/feed/", "schedule": "@hourly"},
			"policy": map[string]any{"robots_url": "https://" + h + "/robots.txt"},
		})
		require.Equal(t, 201, r.status, "body: %s", r.raw)
		ids[role] = "media:sg:" + h + "::news"
		r = s.do(t, "POST", "/api/v1/seeds/promote", key, map[string]any{"seedId": ids[role]})
		require.Equal(t, 200, r.status, "body: %s", r.raw)
	}

	// checks waits until every seed has at least n checks and returns the
	// seeds' newest checks pages.
	checks := func(s *server, n int) map[string]response {
		t.Helper()
		out := map[string]response{}
		deadline := time.Now().Add(patience)
		for role, id := range ids {
			for {
				r := s.do(t, "GET", "/api/v1/seeds/"+url.PathEscape(id)+"/checks?limit=10", key, nil)
				require.Equal(t, 200, r.status, "body: %s", r.raw)
				if items, _ := r.body["items"].([]any); len(items) >= n {
					out[role] = r
					break
				}
				require.True(t, time.Now().Before(deadline), "%s: fewer than %d checks within %v: %s", role, n, patience, r.raw)
				time.Sleep(100 * time.Millisecond)
			}
		}
		return out
	}
	// checkNow asks for a check of every seed, the two whose last round
	// changes their health (and so sends an alert) last, so that a kill
	// right after is likely to land while they are checked or alerted.
	checkNow := func(s *server) {
		t.Helper()
		for _, role := range []string{"stale", "moved", "unchanged", "blocked", "gone"} {
			r := s.do(t, "POST", "/api/v1/seeds/"+url.PathEscape(ids[role])+"/check", key, nil)
			require.Equal(t, 202, r.status, "body: %s", r.raw)
			require.Equal(t, true, r.body["queued"], "the last check's job is done: %s", r.raw)
		}
	}
	state := func(r response) string { return r.body["health"].(map[string]any)["state"].(string) }
	// alertJobs counts the seed_alert jobs by state.
	alertJobs := func(s *server) map[string]any {
		t.Helper()
		r := s.do(t, "GET", "/api/v1/queues/stats", key, nil)
		require.Equal(t, 200, r.status, "body: %s", r.raw)
		jobs, _ := r.body["jobs"].(map[string]any)
		states, _ := jobs["seed_alert"].(map[string]any)
		return states
	}

	// The schedule checks each new active seed once: all healthy.
	for role, r := range checks(s, 1) {
		require.Equal(t, "healthy", state(r), "%s: %s", role, r.raw)
	}

	// The sites change.
	w.AddSite(simweb.Site{Host: hosts["stale"], Layout: simweb.LayoutWordPress, Pages: map[string]simweb.Page{
		"/feed/": {ContentType: "application/rss+xml", Body: oldFeed(hosts["stale"], time.Now().AddDate(0, 0, -60))},
	}})
	w.AddSite(simweb.Site{Host: hosts["moved"], Layout: simweb.LayoutWordPress, Scenario: simweb.ScenarioRedirectExternal})
	w.AddSite(simweb.Site{Host: hosts["blocked"], Layout: simweb.LayoutWordPress, Scenario: simweb.ScenarioBotWall})
	w.AddSite(simweb.Site{Host: hosts["gone"], Layout: simweb.LayoutWordPress, Pages: map[string]simweb.Page{
		"/feed/": {Status: http.StatusGone, Body: []byte("gone")},
	}})
	checkNow(s)
	second := checks(s, 2)
	require.Equal(t, "stale", state(second["stale"]), "%s", second["stale"].raw)
	require.Equal(t, "moved", state(second["moved"]), "%s", second["moved"].raw)
	require.Equal(t, "healthy", state(second["blocked"]), "one refusal is not blocked yet: %s", second["blocked"].raw)
	require.Equal(t, "healthy", state(second["gone"]), "one 410 is not gone yet: %s", second["gone"].raw)
	require.Equal(t, "healthy", state(second["unchanged"]), "%s", second["unchanged"].raw)

	// The two changes so far are alerted, and their jobs are done, before
	// the kill: an alert whose POST was answered but whose job the kill
	// left running would go out again (receivers drop such repeats by
	// X-Seedengine-Delivery; docs/seeds.md).
	deadline := time.Now().Add(patience)
	for {
		got, states := alerts.seen(), alertJobs(s)
		if len(got.changes) == 2 && len(states) == 1 && states["completed"] == float64(2) {
			break
		}
		require.True(t, time.Now().Before(deadline), "two alerts delivered and done within %v: %v %v", patience, got.changes, states)
		time.Sleep(50 * time.Millisecond)
	}

	// The last round is accepted, and the service is killed at once, with
	// checks waiting or running.
	checkNow(s)
	require.NoError(t, s.cmd.Process.Kill())
	<-s.done
	_ = s.cmd.Wait()
	s = startServer(t, dataDir, args...)

	third := checks(s, 3)
	want := map[string]string{"stale": "stale", "moved": "moved", "blocked": "blocked", "gone": "gone", "unchanged": "healthy"}
	for role, st := range want {
		require.Equal(t, st, state(third[role]), "%s: %s", role, third[role].raw)
	}
	for _, c := range third["unchanged"].body["items"].([]any)[:2] {
		require.Equal(t, true, c.(map[string]any)["not_modified"], "the unchanged feed costs a 304: %s", third["unchanged"].raw)
	}
	require.Equal(t, float64(http.StatusGone), third["gone"].body["items"].([]any)[0].(map[string]any)["status"])

	// Every alert job is done: each change was delivered, and nothing
	// sends one again (a job that delivered before the kill but was not
	// yet marked done is rescued and sends it again first).
	wantAlerts := []string{
		ids["stale"] + ": healthy → stale", ids["moved"] + ": healthy → moved",
		ids["blocked"] + ": healthy → blocked", ids["gone"] + ": healthy → gone",
	}
	deadline = time.Now().Add(patience)
	for {
		states := alertJobs(s)
		if len(states) == 1 && states["completed"] == float64(len(wantAlerts)) {
			break
		}
		require.True(t, time.Now().Before(deadline), "%d alert jobs done within %v: %v, received %v", len(wantAlerts), patience, states, alerts.seen().changes)
		time.Sleep(100 * time.Millisecond)
	}

	// The moved seed's new entry is proposed; the active seed is unchanged.
	r := s.do(t, "GET", "/api/v1/seeds/"+url.PathEscape(ids["moved"])+"/versions", key, nil)
	require.Equal(t, 200, r.status, "body: %s", r.raw)
	require.Contains(t, string(r.raw), `"state":"proposed"`)
	require.Contains(t, string(r.raw), "moving-news-com-sg.moved.example/feed/", "the proposal has the redirect's target: %s", r.raw)
	r = s.do(t, "GET", "/api/v1/seeds/"+url.PathEscape(ids["moved"]), key, nil)
	require.Equal(t, "https://"+hosts["moved"]+"/feed/", r.body["fetch"].(map[string]any)["entry_url"])
	require.Equal(t, "active", r.body["status"])

	// The stale and gone seeds' domains get a contract run each, which
	// records what it finds as a proposed version of the active seed; the
	// blocked and unchanged ones none.
	deadline = time.Now().Add(patience)
	for {
		r = s.do(t, "GET", "/api/v1/queues/batches?kind=contract", key, nil)
		require.Equal(t, 200, r.status, "body: %s", r.raw)
		items, _ := r.body["items"].([]any)
		done := 0
		for _, it := range items {
			if it.(map[string]any)["status"] == "completed" {
				done++
			}
		}
		if done == len(items) && done >= 2 {
			break
		}
		require.True(t, time.Now().Before(deadline), "the drift contract runs completed within %v: %s", patience, r.raw)
		time.Sleep(200 * time.Millisecond)
	}
	var runs []string
	for _, it := range r.body["items"].([]any) {
		b := it.(map[string]any)
		d := b["params"].(map[string]any)["drift"].(map[string]any)
		kept := b["result"].(map[string]any)["skipped"].([]any)[0].(map[string]any)
		require.Equal(t, "active_seed_kept", kept["reason"], "%s", r.raw)
		require.Positive(t, kept["proposed_version"], "%s", r.raw)
		runs = append(runs, fmt.Sprintf("%v: %v", d["seed_id"], d["to"]))
	}
	require.ElementsMatch(t, []string{ids["stale"] + ": stale", ids["gone"] + ": gone"}, runs,
		"one run per drifting seed, also across the kill")
	for role, proposed := range map[string]bool{"stale": true, "gone": true, "moved": true, "blocked": false, "unchanged": false} {
		r = s.do(t, "GET", "/api/v1/seeds/"+url.PathEscape(ids[role]), key, nil)
		require.Equal(t, "active", r.body["status"], "%s: %s", role, r.raw)
		require.Equal(t, proposed, r.body["proposed_version"] != nil, "%s: %s", role, r.raw)
	}

	r = s.do(t, "GET", "/api/v1/seeds?health=gone", key, nil)
	require.Equal(t, 200, r.status, "body: %s", r.raw)
	require.Len(t, r.body["items"], 1, "body: %s", r.raw)
	metrics := s.do(t, "GET", "/metrics", "", nil)
	for _, st := range []string{"healthy", "stale", "moved", "blocked", "gone"} {
		require.Contains(t, string(metrics.raw), `seedengine_seed_health{state="`+st+`"} 1`)
	}

	// One delivery per change, also across the kill: a repeated POST (the
	// kill may cause one) has its first copy's delivery id and body.
	got := alerts.seen()
	require.ElementsMatch(t, wantAlerts, got.changes, "one delivery per change")
	require.GreaterOrEqual(t, got.posts, len(wantAlerts))
	require.Empty(t, got.changed, "a repeat is its first copy")
	require.Zero(t, got.noID, "every POST names its delivery")
	require.Zero(t, got.badSig, "every POST is signed with the secret")
	if got.posts > len(wantAlerts) {
		t.Logf("%d POSTs for %d deliveries: repeats, dropped by X-Seedengine-Delivery", got.posts, len(wantAlerts))
	}
	// WARN is for what an operator should look at: a seed turning bad,
	// not a routine check (the first rounds, the unchanged feed's 304s).
	routine := 0
	for _, l := range append(first.logLines(), s.logLines()...) {
		if l["event"] != "seed_checked" {
			continue
		}
		if l["level"] != "WARN" {
			routine++
			continue
		}
		require.NotContains(t, []any{"healthy", "unknown", l["health_before"]}, l["health"], "a routine check at WARN: %v", l)
	}
	require.Positive(t, routine)
	require.Equal(t, 0, s.stop(t))
}

// oldFeed is an RSS feed of ten daily items, the newest at newest.
func oldFeed(host string, newest time.Time) []byte {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?><rss version="2.0"><channel><title>News</title><link>https://` + host + `/</link>`)
	for i := range 10 {
		d := newest.AddDate(0, 0, -i).UTC().Format(time.RFC1123Z)
		fmt.Fprintf(&b, `<item><title>Item %d</title><link>https://%s/news/%d/</link><pubDate>%s</pubDate></item>`, i, host, i, d)
	}
	b.WriteString(`</channel></rss>`)
	return []byte(b.String())
}
