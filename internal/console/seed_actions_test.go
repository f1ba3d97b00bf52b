package console_test

import (
	"context"
	"encoding/json"
	"fmt"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/seedcheck"
	"github.com/seedengine/seedengine/internal/simweb"
	"github.com/seedengine/seedengine/internal/simweb/simwebtest"
)

// readQueue stands in for the queue of seed checks: a check asked for
// waits until run, and asking again while one waits joins it (as the
// queue's unique jobs do). run reads the seed for real, through svc.
type readQueue struct {
	mu      sync.Mutex
	svc     *seedcheck.Service
	jobs    int64
	waiting map[string]int64
	asked   []string // every seed a new check was queued for
}

func (q *readQueue) EnqueueSeedCheck(_ context.Context, id string) (int64, bool, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if j, ok := q.waiting[id]; ok {
		return j, false, nil
	}
	if q.waiting == nil {
		q.waiting = map[string]int64{}
	}
	q.jobs++
	q.waiting[id] = q.jobs
	q.asked = append(q.asked, id)
	return q.jobs, true, nil
}

// queued are the seeds checks were queued for, in order.
func (q *readQueue) queued() []string {
	q.mu.Lock()
	defer q.mu.Unlock()
	return append([]string(nil), q.asked...)
}

// run runs the check waiting for id, as a worker would.
func (q *readQueue) run(t *testing.T, id string) {
	t.Helper()
	q.mu.Lock()
	_, ok := q.waiting[id]
	delete(q.waiting, id)
	q.mu.Unlock()
	require.True(t, ok, "a check of %s was queued", id)
	require.NoError(t, q.svc.CheckSeed(t.Context(), id, nil))
}

// apiGet calls the API itself with a key and decodes its answer.
func (e *env) apiGet(t *testing.T, token, path string, v any) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, e.ts.URL+path, nil)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := e.ts.Client().Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode, "GET %s", path)
	require.NoError(t, json.NewDecoder(resp.Body).Decode(v))
}

// apiSeed is the seed as GET /api/v1/seeds/{id} answers.
func (e *env) apiSeed(t *testing.T, id string) seedengine.Seed {
	t.Helper()
	var sd seedengine.Seed
	e.apiGet(t, e.reads, "/api/v1/seeds/"+url.PathEscape(id), &sd)
	return sd
}

var refreshRE = regexp.MustCompile(`<div id="read-now" class="notice" role="status" tabindex="-1" data-refresh="([^"]+)" data-every="2000">`)

// Read now queues a check of an active seed through the API and says so
// in a live region, which the page fetches again until the check has run
// and then says when it ran and what it found.
func TestReadNow(t *testing.T) {
	t.Parallel()
	q := &readQueue{}
	e := setupWith(t, options{checks: q})
	_, client := simwebtest.Client(t, []simweb.Site{{Host: "mom.gov.sg", Layout: simweb.LayoutWordPress}}, 5*time.Second)
	q.svc = seedcheck.NewService(e.seeds, seedcheck.NewChecker(client, nil), seedcheck.Config{})
	const id = "gov:sg:mom.gov.sg::news"
	path := "/console/seeds/" + url.PathEscape(id)
	createSeed(t, e, "gov:sg:mom.gov.sg", "MOM")

	writer := e.browser(t)
	require.Equal(t, http.StatusSeeOther, writer.signIn(e.write).StatusCode)
	// A draft is not read: no button, and the API's refusal in words.
	draft := writer.get(path)
	require.NotContains(t, draft.body, `id="check"`)
	require.NotContains(t, draft.body, `<kbd>c</kbd>`)
	p := writer.do(http.MethodPost, path+"/check", url.Values{"_csrf": {csrf(t, draft)}})
	require.Equal(t, http.StatusConflict, p.StatusCode)
	require.Contains(t, p.body, "only active and suspended seeds are checked")

	_, err := e.seeds.TransitionSeed(t.Context(), id, seedengine.SeedPromote, "test", "")
	require.NoError(t, err)

	// A read key sees no button and may not press it.
	reader := e.browser(t)
	require.Equal(t, http.StatusSeeOther, reader.signIn(e.reads).StatusCode)
	require.NotContains(t, reader.get(path).body, `id="check"`)
	require.Equal(t, http.StatusForbidden, reader.post(path, path+"/check", nil).StatusCode)

	pg := writer.get(path + "?status=active")
	require.Equal(t, http.StatusOK, pg.StatusCode, pg.body)
	require.Contains(t, pg.body, `<form method="post" action="/console/seeds/gov:sg:mom.gov.sg::news/check" id="check">`)
	require.Contains(t, pg.body, `aria-keyshortcuts="c"`)
	require.Contains(t, pg.body, `<kbd>c</kbd> read the entry now`, "the key is listed with the page's others")
	require.NotContains(t, pg.body, `id="read-now"`, "no notice before a read is asked for")

	// Without the session's token, or with another, nothing is queued.
	for _, form := range []url.Values{{"list": {"status=active"}}, {"_csrf": {"nope"}}} {
		p := writer.do(http.MethodPost, path+"/check", form)
		require.Equal(t, http.StatusForbidden, p.StatusCode)
	}
	require.Empty(t, q.queued(), "a POST without the token queues nothing")

	p = writer.do(http.MethodPost, path+"/check", url.Values{"_csrf": {csrf(t, pg)}, "list": {"status=active"}})
	require.Equal(t, http.StatusSeeOther, p.StatusCode, p.body)
	require.Equal(t, []string{id}, q.queued(), "the API queued a check of the seed")
	loc, err := url.Parse(p.Header.Get("Location"))
	require.NoError(t, err)
	require.Equal(t, path, loc.Path)
	require.Equal(t, "active", loc.Query().Get("status"), "back to the page as it was opened")
	require.Equal(t, "0", loc.Query().Get("read"), "the seed had no check before")

	// Queued: the notice says so, in a live region fetched again.
	shown := writer.get(loc.RequestURI())
	require.Equal(t, http.StatusOK, shown.StatusCode, shown.body)
	at := e.clock.Now().UTC().Format("15:04:05 UTC")
	require.Contains(t, shown.body, "<p>Read of "+id+" queued at "+at+": waiting for it to run…</p>")
	m := refreshRE.FindStringSubmatch(shown.body)
	require.NotNil(t, m, "the notice is fetched again until the read has run: %s", shown.body)
	refresh := html.UnescapeString(m[1])
	require.True(t, strings.HasPrefix(refresh, path+"?"), refresh)
	frag := writer.get(refresh)
	require.Equal(t, http.StatusOK, frag.StatusCode, frag.body)
	require.Equal(t, "<p>Read of "+id+" queued at "+at+": waiting for it to run…</p>", frag.body, "the notice alone")

	// Asked again while it waits: the same read.
	p = writer.post(path, path+"/check", url.Values{"list": {"status=active"}})
	require.Equal(t, http.StatusSeeOther, p.StatusCode, p.body)
	require.Len(t, q.queued(), 1, "one read waits")
	joined := writer.get(p.Header.Get("Location"))
	require.Contains(t, joined.body, "<p>A read of "+id+" was already queued at ")

	// The read runs: a new check, seen through the API.
	q.run(t, id)
	var checks struct {
		Items []seedengine.SeedCheck `json:"items"`
	}
	e.apiGet(t, e.reads, "/api/v1/seeds/"+url.PathEscape(id)+"/checks?limit=1", &checks)
	require.Len(t, checks.Items, 1)
	c := checks.Items[0]
	require.Equal(t, seedengine.CheckOK, c.Outcome)
	require.Positive(t, c.Items)
	require.Positive(t, c.Harvested, "an active seed's read records its items")

	// The notice now says when it ran and what it found, and is final.
	ran := fmt.Sprintf("<p>Read of %s ran at %s: <b>ok</b>, HTTP 200 · %d items in the entry, %d new to it, %d recorded. "+
		`<a href="/console/items?seed_id=%s">Its items, newest first</a> · <a href="%s?status=active">show the seed again</a> for its harvest as it is now.</p>`,
		id, c.CheckedAt.UTC().Format("2006-01-02 15:04:05 UTC"), c.Items, c.Unseen, c.Harvested, url.QueryEscape(id), path)
	frag = writer.get(refresh)
	require.Equal(t, http.StatusOK, frag.StatusCode)
	require.Equal(t, "<div data-final></div>"+ran, frag.body)
	shown = writer.get(loc.RequestURI())
	require.Contains(t, shown.body, `<div id="read-now" class="notice" role="status" tabindex="-1"><div data-final></div>`+ran+`</div>`,
		"once final, the page fetches it no more")

	// Another read that never runs: after ten minutes the notice stops
	// waiting, and says why it may not have run.
	p = writer.post(path, path+"/check", nil)
	require.Equal(t, http.StatusSeeOther, p.StatusCode, p.body)
	require.Len(t, q.queued(), 2)
	loc, err = url.Parse(p.Header.Get("Location"))
	require.NoError(t, err)
	require.Equal(t, fmt.Sprint(c.ID), loc.Query().Get("read"), "the newest check when it was asked for")
	shown = writer.get(loc.RequestURI())
	m = refreshRE.FindStringSubmatch(shown.body)
	require.NotNil(t, m, shown.body)
	require.Contains(t, shown.body, "waiting for it to run")
	e.clock.add(11 * time.Minute)
	frag = writer.get(html.UnescapeString(m[1]))
	require.Contains(t, frag.body, "<div data-final></div>")
	require.Contains(t, frag.body, "it has not run in 10 minutes; the queue may be busy or stopped")

	// A query that asks for no read shows none.
	for _, bad := range []string{"read=", "read=x", "read=-1"} {
		require.NotContains(t, writer.get(path+"?"+bad).body, `id="read-now"`, bad)
	}
	require.Equal(t, http.StatusNotFound, writer.get(path+"?part=read").StatusCode)
}

// The seed page's Pages toggle flips harvest.pages through the API (a
// merge patch), and shows the state it is in.
func TestPagesToggle(t *testing.T) {
	t.Parallel()
	e := setup(t, false)
	const id = "gov:sg:mom.gov.sg::news"
	path := "/console/seeds/" + url.PathEscape(id)
	createSeed(t, e, "gov:sg:mom.gov.sg", "MOM")
	_, err := e.seeds.TransitionSeed(t.Context(), id, seedengine.SeedPromote, "test", "")
	require.NoError(t, err)
	before := e.apiSeed(t, id)
	require.False(t, before.Harvest.Pages)

	reader := e.browser(t)
	require.Equal(t, http.StatusSeeOther, reader.signIn(e.reads).StatusCode)
	rp := reader.get(path)
	require.Contains(t, rp.body, `<dd id="pages"><b>off</b>: not fetched (items only)</dd>`, "a read key sees the state, no toggle")
	require.Equal(t, http.StatusForbidden, reader.post(path, path+"/pages_on", nil).StatusCode)

	b := e.browser(t)
	require.Equal(t, http.StatusSeeOther, b.signIn(e.write).StatusCode)
	pg := b.get(path)
	require.Contains(t, pg.body, `<dd id="pages"><b>off</b>: not fetched (items only)`)
	require.Contains(t, pg.body, `action="/console/seeds/gov:sg:mom.gov.sg::news/pages_on"`)
	require.Contains(t, pg.body, `<button type="submit" aria-keyshortcuts="w">Turn pages on <kbd>w</kbd></button>`)

	// No token, no change.
	p := b.do(http.MethodPost, path+"/pages_on", url.Values{})
	require.Equal(t, http.StatusForbidden, p.StatusCode)
	require.False(t, e.apiSeed(t, id).Harvest.Pages)

	p = b.do(http.MethodPost, path+"/pages_on", url.Values{"_csrf": {csrf(t, pg)}, "list": {"status=active"}})
	require.Equal(t, http.StatusSeeOther, p.StatusCode, p.body)
	on := e.apiSeed(t, id)
	require.True(t, on.Harvest.Pages, "harvest.pages is on")
	require.Greater(t, on.Version, before.Version, "a change of the contract makes a new version")
	var versions struct {
		Items []seedengine.SeedVersion `json:"items"`
	}
	e.apiGet(t, e.reads, "/api/v1/seeds/"+url.PathEscape(id)+"/versions", &versions)
	require.NotEmpty(t, versions.Items)
	require.Equal(t, on.Version, versions.Items[0].Version)
	require.Equal(t, "bob", versions.Items[0].Actor, "the key's name is the new version's actor")
	require.True(t, versions.Items[0].Contract.Harvest.Pages)
	shown := b.get(p.Header.Get("Location"))
	require.Contains(t, shown.body, `<p class="notice" role="status" tabindex="-1">Pages on for <a href="/console/seeds/`+url.PathEscape(id)+`">`+id+`</a>: each new item&#39;s page will be fetched and kept as WARC.</p>`)
	require.Contains(t, shown.body, `<dd id="pages"><b>on</b>: each new item's page is fetched and kept as WARC`)
	require.Contains(t, shown.body, `action="/console/seeds/gov:sg:mom.gov.sg::news/pages_off"`)
	require.Contains(t, shown.body, `<button type="submit" aria-keyshortcuts="w">Turn pages off <kbd>w</kbd></button>`)

	p = b.post(path, path+"/pages_off", nil)
	require.Equal(t, http.StatusSeeOther, p.StatusCode, p.body)
	require.False(t, e.apiSeed(t, id).Harvest.Pages, "harvest.pages is off again")
	require.Contains(t, b.get(p.Header.Get("Location")).body, "Pages off for <a href=\"/console/seeds/"+url.PathEscape(id)+"\">"+id+"</a>: new items&#39; pages will not be fetched.")
}

// The seeds list's bulk actions turn page fetching on and off for the
// selected seeds, or all that match, after the count's confirmation.
func TestBulkPages(t *testing.T) {
	t.Parallel()
	e := setup(t, false)
	ids := []string{"gov:sg:mom.gov.sg::news", "gov:sg:mti.gov.sg::news", "gov:sg:moh.gov.sg::news"}
	for _, d := range ids {
		createSeed(t, e, strings.TrimSuffix(d, "::news"), d)
	}
	pages := func() []bool {
		var out []bool
		for _, id := range ids {
			out = append(out, e.apiSeed(t, id).Harvest.Pages)
		}
		return out
	}
	b := e.browser(t)
	require.Equal(t, http.StatusSeeOther, b.signIn(e.admin).StatusCode)
	list := b.get("/console/seeds?status=draft")
	require.Contains(t, list.body, `<button type="submit" name="action" value="pages_on"`)
	require.Contains(t, list.body, `<button type="submit" name="action" value="pages_off"`)

	form := func(action string, sel ...string) url.Values {
		f := url.Values{"_csrf": {csrf(t, list)}, "action": {action}, "status": {"draft"}, "reason_code": {"not_relevant"}}
		if sel == nil {
			f.Set("all", "1")
		}
		for _, id := range sel {
			f.Add("id", id)
		}
		return f
	}
	// Without the token: refused, nothing changed.
	f := form("pages_on", ids[0])
	f.Del("_csrf")
	require.Equal(t, http.StatusForbidden, b.do(http.MethodPost, "/console/seeds/bulk", f).StatusCode)
	f.Set("confirm", "1")
	require.Equal(t, http.StatusForbidden, b.do(http.MethodPost, "/console/seeds/bulk", f).StatusCode)
	require.Equal(t, []bool{false, false, false}, pages())

	// Two selected: the count first, then the change.
	ask := b.do(http.MethodPost, "/console/seeds/bulk", form("pages_on", ids[0], ids[1]))
	require.Equal(t, http.StatusOK, ask.StatusCode, ask.body)
	require.Contains(t, ask.body, "<h1>Turn pages on for 2 seeds?</h1>")
	require.Contains(t, ask.body, `<button type="submit" autofocus class="primary">Turn pages on for 2 seeds</button>`)
	require.Contains(t, ask.body, "<li>"+ids[0]+" <small>draft</small></li>", "the status does not change")
	require.Equal(t, []bool{false, false, false}, pages(), "asking changes nothing")
	confirm := form("pages_on", ids[0], ids[1])
	confirm.Set("confirm", "1")
	p := b.do(http.MethodPost, "/console/seeds/bulk", confirm)
	require.Equal(t, http.StatusSeeOther, p.StatusCode, p.body)
	require.Equal(t, []bool{true, true, false}, pages())
	require.Contains(t, b.get(p.Header.Get("Location")).body, `<p class="notice" role="status" tabindex="-1">Turned pages on for 2 seeds.</p>`)

	// All three: the two already on are left as they are, and said so.
	ask = b.do(http.MethodPost, "/console/seeds/bulk", form("pages_on", ids...))
	require.Contains(t, ask.body, "<h1>Turn pages on for 1 seed?</h1>")
	require.Contains(t, ask.body, "page fetching is already on")
	confirm = form("pages_on", ids...)
	confirm.Set("confirm", "1")
	p = b.do(http.MethodPost, "/console/seeds/bulk", confirm)
	require.Equal(t, http.StatusSeeOther, p.StatusCode, p.body)
	require.Equal(t, []bool{true, true, true}, pages())

	// Off for every seed the filter matches.
	ask = b.do(http.MethodPost, "/console/seeds/bulk", form("pages_off"))
	require.Contains(t, ask.body, "<h1>Turn pages off for 3 seeds?</h1>")
	require.Contains(t, ask.body, "Every seed matching the filter: 3.")
	confirm = form("pages_off")
	confirm.Set("confirm", "1")
	p = b.do(http.MethodPost, "/console/seeds/bulk", confirm)
	require.Equal(t, http.StatusSeeOther, p.StatusCode, p.body)
	require.Equal(t, []bool{false, false, false}, pages())
	require.Contains(t, b.get(p.Header.Get("Location")).body, `<p class="notice" role="status" tabindex="-1">Turned pages off for 3 seeds.</p>`)

	// The bulk actions are an admin's.
	w := e.browser(t)
	require.Equal(t, http.StatusSeeOther, w.signIn(e.write).StatusCode)
	require.Equal(t, http.StatusForbidden, w.post("/console/seeds", "/console/seeds/bulk", url.Values{"action": {"pages_on"}, "id": {ids[0]}}).StatusCode)
	require.Equal(t, []bool{false, false, false}, pages())
}
