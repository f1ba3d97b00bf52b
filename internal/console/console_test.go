package console_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"mime/multipart"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/blobstore"
	"github.com/seedengine/seedengine/internal/console"
	"github.com/seedengine/seedengine/internal/contract"
	"github.com/seedengine/seedengine/internal/httpapi"
	"github.com/seedengine/seedengine/internal/jobs"
	"github.com/seedengine/seedengine/internal/sqlstore"
	"github.com/seedengine/seedengine/internal/sqlstore/sqlstoretest"
)

// clock is a settable clock for session expiry.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// env is a server with the API and the console on one SQLite store.
type env struct {
	ts                  *httptest.Server
	db                  *sqlstore.DB
	keys                *sqlstore.APIKeyService
	seeds               *sqlstore.SeedService
	blobs               *blobstore.Store
	clock               *clock
	con                 *console.Console
	queue               *jobs.Queue // with options.riverUI; not started
	admin, write, reads string      // tokens
}

func setup(t *testing.T, tls bool) *env {
	t.Helper()
	return setupWith(t, options{tls: tls})
}

// options vary the server setup makes.
type options struct {
	tls bool
	// proxies are the trusted proxies (httpapi.Config.TrustedProxies).
	proxies []netip.Prefix
	// riverUI mounts the real River UI instead of a stand-in.
	riverUI bool
	// checks queues a seed's check now (httpapi.Deps.SeedCheckQueue);
	// nil: the API answers that route 503.
	checks seedengine.SeedCheckEnqueuer
}

func setupWith(t *testing.T, o options) *env {
	t.Helper()
	tls := o.tls
	db := sqlstoretest.OpenSQLite(t)
	blobs, err := blobstore.Open(t.Context(), "mem://")
	require.NoError(t, err)
	t.Cleanup(func() { _ = blobs.Close() })
	e := &env{db: db, keys: sqlstore.NewAPIKeyService(db), seeds: sqlstore.NewSeedService(db), blobs: blobs,
		clock: &clock{t: time.Now().UTC()}}
	batches := sqlstoretest.RowsOnlyBatches(sqlstore.NewBatchService(db))
	var con *console.Console
	api := httpapi.New(httpapi.Config{RateLimit: -1, TrustedProxies: o.proxies}, httpapi.Deps{
		APIKeys: e.keys, Batches: batches, Seeds: e.seeds, Objects: blobs, Ranges: blobs, Review: contract.NewReview(e.seeds, blobs, contract.Config{}),
		SeedChecks: e.seeds, SeedCheckQueue: o.checks, Items: sqlstore.NewItemService(db), Pages: sqlstore.NewPageService(db), Articles: sqlstore.NewArticleService(db),
		Console: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { con.ServeHTTP(w, r) }),
	})
	// A stand-in for River UI unless o.riverUI (internal/jobs tests the real one).
	var queueUI http.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, "queue ui") })
	if o.riverUI {
		q, err := jobs.New(db.Writer(), string(db.Engine()), sqlstore.NewBatchService(db), jobs.Config{Logger: slog.New(slog.DiscardHandler)})
		require.NoError(t, err)
		e.queue = q
		queueUI, err = q.UIHandler("/console/queue/")
		require.NoError(t, err)
	}
	con = console.New(console.Config{Version: "test", Now: e.clock.Now, IdleTimeout: time.Hour, MaxAge: 24 * time.Hour},
		console.Deps{API: api, Keys: e.keys, Sessions: sqlstore.NewConsoleSessionService(db), QueueUI: queueUI})
	e.con = con
	if tls {
		e.ts = httptest.NewTLSServer(api.Handler())
	} else {
		e.ts = httptest.NewServer(api.Handler())
	}
	t.Cleanup(e.ts.Close)
	for _, k := range []struct {
		dst   *string
		name  string
		scope seedengine.Scope
	}{{&e.admin, "alice", seedengine.ScopeAdmin}, {&e.write, "bob", seedengine.ScopeWrite}, {&e.reads, "dana", seedengine.ScopeRead}} {
		_, tok, err := e.keys.CreateAPIKey(t.Context(), k.name, k.scope)
		require.NoError(t, err)
		*k.dst = tok
	}
	return e
}

// browser is a cookie-keeping client that does not follow redirects.
type browser struct {
	t   *testing.T
	e   *env
	c   *http.Client
	jar http.CookieJar
	// hdr is added to every request.
	hdr http.Header
}

func (e *env) browser(t *testing.T) *browser {
	jar, err := cookiejar.New(nil)
	require.NoError(t, err)
	c := e.ts.Client()
	cc := *c
	cc.Jar = jar
	cc.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return &browser{t: t, e: e, c: &cc, jar: jar}
}

type page struct {
	*http.Response
	body string
}

func (b *browser) do(method, path string, form url.Values) page {
	b.t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	contentType := ""
	if form != nil {
		contentType = "application/x-www-form-urlencoded"
	}
	return b.send(method, path, contentType, body)
}

// send makes a request as the browser (its cookies and headers); a body
// goes with contentType and the console's own Origin, as a form would.
func (b *browser) send(method, path, contentType string, body io.Reader) page {
	b.t.Helper()
	req, err := http.NewRequest(method, b.e.ts.URL+path, body)
	require.NoError(b.t, err)
	maps.Copy(req.Header, b.hdr)
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
		req.Header.Set("Origin", b.e.ts.URL)
	}
	resp, err := b.c.Do(req)
	require.NoError(b.t, err)
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	require.NoError(b.t, err)
	return page{resp, string(raw)}
}

func (b *browser) get(path string) page { b.t.Helper(); return b.do(http.MethodGet, path, nil) }

var csrfRE = regexp.MustCompile(`name="_csrf" value="([^"]+)"`)

func csrf(t *testing.T, p page) string {
	t.Helper()
	m := csrfRE.FindStringSubmatch(p.body)
	require.NotNil(t, m, "no CSRF token on the page: %s", p.body)
	return m[1]
}

// post sends a form with the CSRF token of the page at from.
func (b *browser) post(from, path string, form url.Values) page {
	b.t.Helper()
	if form == nil {
		form = url.Values{}
	}
	form.Set("_csrf", csrf(b.t, b.get(from)))
	return b.do(http.MethodPost, path, form)
}

func (b *browser) signIn(token string) page {
	b.t.Helper()
	login := b.get("/console/login")
	require.Equal(b.t, http.StatusOK, login.StatusCode)
	return b.do(http.MethodPost, "/console/login", url.Values{"key": {token}, "_csrf": {csrf(b.t, login)}, "next": {"/console/seeds"}})
}

func TestSignInSessionCookieAndSignOut(t *testing.T) {
	t.Parallel()
	for _, tls := range []bool{false, true} {
		e := setup(t, tls)
		b := e.browser(t)
		// Signed out, pages lead to the sign-in form.
		p := b.get("/console/seeds?status=active")
		require.Equal(t, http.StatusSeeOther, p.StatusCode)
		require.Equal(t, "/console/login?next="+url.QueryEscape("/console/seeds?status=active"), p.Header.Get("Location"))

		// A wrong key is refused and sets no session.
		bad := b.signIn("se_" + strings.Repeat("x", 40))
		require.Equal(t, http.StatusUnauthorized, bad.StatusCode)
		require.Contains(t, bad.body, "not valid")

		p = b.signIn(e.admin)
		require.Equal(t, http.StatusSeeOther, p.StatusCode)
		require.Equal(t, "/console/seeds", p.Header.Get("Location"))
		var session *http.Cookie
		for _, c := range p.Cookies() {
			if c.Name == "seedengine_console" && c.MaxAge > 0 {
				session = c
			}
		}
		require.NotNil(t, session)
		require.True(t, session.HttpOnly)
		require.Equal(t, http.SameSiteStrictMode, session.SameSite)
		require.Equal(t, tls, session.Secure, "Secure when served over TLS")
		require.Equal(t, "/console/", session.Path)
		require.NotContains(t, session.Value, e.admin, "the cookie holds a session secret, never the key")
		require.False(t, strings.HasPrefix(session.Value, "se_"))

		home := b.get("/console/")
		require.Equal(t, http.StatusOK, home.StatusCode)
		require.Contains(t, home.body, "alice")
		require.Equal(t, "no-store", home.Header.Get("Cache-Control"))
		require.Contains(t, home.Header.Get("Content-Security-Policy"), "script-src 'self'")

		out := b.post("/console/", "/console/logout", nil)
		require.Equal(t, http.StatusSeeOther, out.StatusCode)
		require.Equal(t, http.StatusSeeOther, b.get("/console/").StatusCode, "signed out")

		// The old cookie is dead on the server too, not only in the jar.
		old := e.browser(t)
		u, _ := url.Parse(e.ts.URL + "/console/")
		old.jar.SetCookies(u, []*http.Cookie{session})
		require.Equal(t, http.StatusSeeOther, old.get("/console/").StatusCode)
	}
}

func TestCSRFAndOrigin(t *testing.T) {
	t.Parallel()
	e := setup(t, false)
	b := e.browser(t)
	require.Equal(t, http.StatusSeeOther, b.signIn(e.admin).StatusCode)
	createSeed(t, e, "gov:sg:mom.gov.sg", "MOM")

	// No token, a wrong token, a token from another session.
	for _, form := range []url.Values{{}, {"_csrf": {"nope"}}} {
		p := b.do(http.MethodPost, "/console/seeds/"+url.PathEscape("gov:sg:mom.gov.sg::news")+"/promote", form)
		require.Equal(t, http.StatusForbidden, p.StatusCode)
	}
	other := e.browser(t)
	require.Equal(t, http.StatusSeeOther, other.signIn(e.admin).StatusCode)
	p := b.do(http.MethodPost, "/console/seeds/"+url.PathEscape("gov:sg:mom.gov.sg::news")+"/promote",
		url.Values{"_csrf": {csrf(t, other.get("/console/"))}})
	require.Equal(t, http.StatusForbidden, p.StatusCode)

	// The right token from another site.
	form := url.Values{"_csrf": {csrf(t, b.get("/console/"))}}
	req, _ := http.NewRequest(http.MethodPost, e.ts.URL+"/console/seeds/"+url.PathEscape("gov:sg:mom.gov.sg::news")+"/promote", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Sec-Fetch-Site", "cross-site")
	resp, err := b.c.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusForbidden, resp.StatusCode)

	sd, err := e.seeds.FindSeedByID(t.Context(), "gov:sg:mom.gov.sg::news")
	require.NoError(t, err)
	require.Equal(t, seedengine.SeedDraft, sd.Status, "nothing was promoted")

	// The sign-in form has its own token.
	login := e.browser(t)
	p = login.do(http.MethodPost, "/console/login", url.Values{"key": {e.admin}, "_csrf": {"forged"}})
	require.Equal(t, http.StatusForbidden, p.StatusCode)
}

func TestSessionExpiryAndRevokedKey(t *testing.T) {
	t.Parallel()
	e := setup(t, false)
	b := e.browser(t)
	require.Equal(t, http.StatusSeeOther, b.signIn(e.admin).StatusCode)
	e.clock.add(50 * time.Minute)
	require.Equal(t, http.StatusOK, b.get("/console/").StatusCode, "within the idle limit")
	e.clock.add(50 * time.Minute)
	require.Equal(t, http.StatusOK, b.get("/console/").StatusCode, "a request keeps it alive")
	e.clock.add(61 * time.Minute)
	require.Equal(t, http.StatusSeeOther, b.get("/console/").StatusCode, "idle for over an hour")

	// The absolute limit holds however busy the session is.
	require.Equal(t, http.StatusSeeOther, b.signIn(e.admin).StatusCode)
	for range 25 {
		e.clock.add(59 * time.Minute)
		b.get("/console/")
	}
	require.Equal(t, http.StatusSeeOther, b.get("/console/").StatusCode, "over a day after sign-in")

	// A revoked key ends its sessions at once.
	require.Equal(t, http.StatusSeeOther, b.signIn(e.write).StatusCode)
	require.Equal(t, http.StatusOK, b.get("/console/").StatusCode)
	_, err := e.keys.RevokeAPIKey(t.Context(), "bob")
	require.NoError(t, err)
	require.Equal(t, http.StatusSeeOther, b.get("/console/").StatusCode)
}

// createSeed records a draft seed through the store, as a contract batch
// would, with evidence whose feed title is hostile.
func createSeed(t *testing.T, e *env, domainID, name string) {
	t.Helper()
	_, _, domain, err := seedengine.ParseDomainID(domainID)
	require.NoError(t, err)
	entry := "https://" + domain + "/feed/"
	newest := time.Now().UTC().Add(-time.Hour)
	ev := contract.Evidence{DomainID: domainID, Domain: domain, Outcome: contract.OutcomeSeeded,
		Robots: contract.RobotsEvidence{URL: "https://" + domain + "/robots.txt", Status: 200, Result: "parsed", HomeAllowed: true},
		Candidates: []*contract.Candidate{
			{Kind: contract.KindFeed, URL: entry, Via: contract.ViaLinkAlternate, Priority: 100, Fetched: true, Status: 200, Format: "rss",
				Items: 10, Name: `<script>alert("evidence")</script>`, ContentType: "news", Robots: contract.RobotsAllowed, Newest: &newest,
				Preview: []contract.PreviewItem{{Title: `<img src=x onerror=alert(1)>Budget`, URL: "javascript:alert(2)", Date: &newest}}},
			{Kind: contract.KindSitemap, URL: "https://" + domain + "/news-sitemap.xml", Via: contract.ViaKnownPath, Priority: 57.5,
				Skipped: contract.SkipNotNeeded, ContentType: "news", Robots: contract.RobotsAllowed},
			{Kind: contract.KindSitemap, URL: "https://" + domain + "/sitemap.xml", Via: contract.ViaRobots, Priority: 60, Fetched: true,
				Status: 200, Format: "urlset", Items: 50, ContentType: "news", Robots: contract.RobotsAllowed, Newest: &newest},
		},
		Decisions: []contract.Decision{{ContentType: "news", FetchType: seedengine.FetchRSS, EntryURL: entry, Schedule: "0 * * * *",
			Confidence: 0.95, Method: "rss via link_alternate", Why: "fresh rss feed with 10 items", CrawlAllowed: true}},
	}
	raw, err := json.Marshal(ev)
	require.NoError(t, err)
	key := "prod/contracts/" + domain + "/2026-11-25T100000Z-abcdefgh.json"
	_, err = e.blobs.Put(t.Context(), key, strings.NewReader(string(raw)), "application/json")
	require.NoError(t, err)
	s := contract.SeedFrom(&ev, ev.Decisions[0], key, "news")
	s.Source.Name = name
	_, err = e.seeds.RecordDraftSeed(t.Context(), s, "contract_batch:test", "")
	require.NoError(t, err)
}

func TestSeedPageEscapesEvidence(t *testing.T) {
	t.Parallel()
	e := setup(t, false)
	createSeed(t, e, "gov:sg:mom.gov.sg", `<script>alert("name")</script>`)
	b := e.browser(t)
	require.Equal(t, http.StatusSeeOther, b.signIn(e.reads).StatusCode)
	p := b.get("/console/seeds/" + url.PathEscape("gov:sg:mom.gov.sg::news"))
	require.Equal(t, http.StatusOK, p.StatusCode, p.body)
	require.NotContains(t, p.body, "<script>alert")
	require.NotContains(t, p.body, "<img src=x")
	require.Contains(t, p.body, "&lt;script&gt;alert(&#34;evidence&#34;)&lt;/script&gt;", "the hostile feed title shows as text")
	require.Contains(t, p.body, "&lt;img src=x onerror=alert(1)&gt;Budget")
	require.NotContains(t, p.body, `href="javascript:`, "a javascript: link in the evidence is made inert")
	// The evidence table, the decision's reason, the preview.
	require.Contains(t, p.body, "fresh rss feed with 10 items")
	require.Contains(t, p.body, "link_alternate")
	require.Contains(t, p.body, "not fetched: a fresh news entry was already found", "each candidate says why it lost")
	require.Contains(t, p.body, `class="chosen`)
	// A read key is offered no action.
	require.NotContains(t, p.body, `id="promote"`)
	require.NotContains(t, p.body, "/edit")
	require.Contains(t, p.body, "not checked yet")

	// Once checked, the page shows the seed's health.
	at := time.Date(2026, 11, 26, 2, 0, 0, 0, time.UTC)
	c := seedengine.SeedCheck{SeedID: "gov:sg:mom.gov.sg::news", CheckedAt: at, Outcome: seedengine.CheckGone, Reason: "http_404"}
	gone := seedengine.SeedHealth{State: seedengine.HealthGone, Reason: "http_404", LastCheckAt: &at}
	_, _, err := e.seeds.RecordSeedCheck(t.Context(), &c, nil, false,
		func(*seedengine.SeedCheck, seedengine.ArrivalHistory) (seedengine.SeedHealth, time.Time) {
			return gone, at.Add(time.Hour)
		}, nil)
	require.NoError(t, err)
	p = b.get("/console/seeds/" + url.PathEscape("gov:sg:mom.gov.sg::news"))
	require.Contains(t, p.body, `<span class="health health-gone">gone</span> · http_404 · last checked 2026-11-26 02:00 UTC`)
}

func TestScopesDecideActions(t *testing.T) {
	t.Parallel()
	e := setup(t, false)
	createSeed(t, e, "gov:sg:mom.gov.sg", "MOM")
	createSeed(t, e, "gov:sg:mti.gov.sg", "MTI")
	id := url.PathEscape("gov:sg:mom.gov.sg::news")

	reader := e.browser(t)
	require.Equal(t, http.StatusSeeOther, reader.signIn(e.reads).StatusCode)
	p := reader.post("/console/", "/console/seeds/"+id+"/edit", url.Values{"patch": {`{"fetch":{"schedule":"@daily"}}`}})
	require.Equal(t, http.StatusForbidden, p.StatusCode)

	writer := e.browser(t)
	require.Equal(t, http.StatusSeeOther, writer.signIn(e.write).StatusCode)
	page := writer.get("/console/seeds/" + id)
	require.Contains(t, page.body, "/edit")
	require.NotContains(t, page.body, `id="promote"`, "promotion is for admin keys")
	p = writer.post("/console/", "/console/seeds/"+id+"/promote", nil)
	require.Equal(t, http.StatusForbidden, p.StatusCode)
	p = writer.post("/console/", "/console/seeds/"+id+"/edit", url.Values{"patch": {`{"fetch":{"schedule":"@daily"}}`}})
	require.Equal(t, http.StatusSeeOther, p.StatusCode, p.body)
	sd, err := e.seeds.FindSeedByID(t.Context(), "gov:sg:mom.gov.sg::news")
	require.NoError(t, err)
	require.Equal(t, "@daily", sd.Fetch.Schedule)
	// A bad patch comes back as the API's problem, not a 500.
	p = writer.post("/console/", "/console/seeds/"+id+"/edit", url.Values{"patch": {`{"fetch":{"schedule":"whenever"}}`}})
	require.Equal(t, http.StatusUnprocessableEntity, p.StatusCode)
	require.Contains(t, p.body, "fetch.schedule")

	// The review loop: promote, and land on the next draft of the list.
	admin := e.browser(t)
	require.Equal(t, http.StatusSeeOther, admin.signIn(e.admin).StatusCode)
	page = admin.get("/console/seeds/" + id + "?status=draft")
	require.Contains(t, page.body, `id="promote"`)
	next := regexp.MustCompile(`name="next" value="([^"]*)"`).FindStringSubmatch(page.body)
	require.NotNil(t, next)
	require.Equal(t, "gov:sg:mti.gov.sg::news", next[1])
	require.NotContains(t, page.body, `rel="prev"`, "the first of the list has no previous")
	// The list's filters travel with its links, its export links included:
	// the export is the API's, for the filter, streamed through.
	listPage := admin.get("/console/seeds?status=draft&country=sg&authority=gov")
	require.Contains(t, listPage.body, `/console/seeds/gov:sg:mom.gov.sg::news?authority=gov&amp;country=sg&amp;status=draft"`)
	require.Contains(t, listPage.body, `href="/console/seeds/export?format=csv&amp;authority=gov&amp;country=sg&amp;status=draft"`)
	csvPage := admin.get("/console/seeds/export?format=csv&authority=gov&country=sg&status=draft")
	require.Equal(t, http.StatusOK, csvPage.StatusCode, csvPage.body)
	require.True(t, strings.HasPrefix(csvPage.Header.Get("Content-Type"), "text/csv"))
	require.Contains(t, csvPage.Header.Get("Content-Disposition"), "seeds.csv")
	require.True(t, strings.HasPrefix(csvPage.body, "seed_id,domain_id,"), csvPage.body)
	require.Contains(t, csvPage.body, "\ngov:sg:mom.gov.sg::news,")
	require.Equal(t, http.StatusUnprocessableEntity, admin.get("/console/seeds/export?format=yaml").StatusCode)
	prevPage := admin.get("/console/seeds/" + url.PathEscape(next[1]) + "?status=draft")
	require.Regexp(t, `href="/console/seeds/gov:sg:mom.gov.sg::news\?status=draft" rel="prev"`, prevPage.body)
	form := url.Values{"_csrf": {csrf(t, page)}, "next": {next[1]}, "list": {"status=draft"}}
	p = admin.do(http.MethodPost, "/console/seeds/"+id+"/promote", form)
	require.Equal(t, http.StatusSeeOther, p.StatusCode, p.body)
	require.True(t, strings.HasPrefix(p.Header.Get("Location"), "/console/seeds/"+url.PathEscape("gov:sg:mti.gov.sg::news")+"?status=draft"), p.Header.Get("Location"))
	sd, err = e.seeds.FindSeedByID(t.Context(), "gov:sg:mom.gov.sg::news")
	require.NoError(t, err)
	require.Equal(t, seedengine.SeedActive, sd.Status)
	require.Equal(t, "alice", sd.History[len(sd.History)-1].Actor, "the key's name is the actor")
}

func TestStartWorkForms(t *testing.T) {
	t.Parallel()
	e := setup(t, false)
	b := e.browser(t)
	require.Equal(t, http.StatusSeeOther, b.signIn(e.write).StatusCode)
	p := b.post("/console/work", "/console/work/research", url.Values{"country": {"sg"}, "category": {"news"},
		"urls": {"https://www.mom.gov.sg/\nhttps://www.moh.gov.sg/newsroom"}})
	require.Equal(t, http.StatusSeeOther, p.StatusCode, p.body)
	loc := p.Header.Get("Location")
	require.True(t, strings.HasPrefix(loc, "/console/batches/"), loc)
	batch := b.get(loc)
	require.Equal(t, http.StatusOK, batch.StatusCode)
	require.Contains(t, batch.body, "research batch")
	id := strings.TrimPrefix(strings.SplitN(loc, "?", 2)[0], "/console/batches/")

	// The dashboard and its refreshed table list the batch.
	for _, path := range []string{"/console/", "/console/fragments/batches"} {
		dash := b.get(path)
		require.Equal(t, http.StatusOK, dash.StatusCode, "%s: %s", path, dash.body)
		require.Contains(t, dash.body, `href="/console/batches/`+id+`"`, path)
		require.Contains(t, dash.body, "just now", path)
	}
	// So does the batch's refreshed part, which holds all that changes.
	frag := b.get("/console/batches/" + id + "/progress")
	require.Equal(t, http.StatusOK, frag.StatusCode, frag.body)
	require.Contains(t, frag.body, `role="progressbar"`)

	// A bad form comes back with the API's words beside the field.
	p = b.post("/console/work", "/console/work/contract", url.Values{"country": {"zz"}, "category": {"news"}, "date": {"2026-01-28"}})
	require.Equal(t, http.StatusUnprocessableEntity, p.StatusCode)
	require.Contains(t, p.body, "field-error")
	require.Contains(t, p.body, `value="zz"`, "what was typed is kept")
}

// River UI's changes (PUT, PATCH) need the browser's word that they come
// from this site, since they carry no CSRF token; reading needs admin.
func TestQueueUIGuards(t *testing.T) {
	t.Parallel()
	e := setup(t, false)
	b := e.browser(t)
	require.Equal(t, http.StatusSeeOther, b.signIn(e.admin).StatusCode)
	for _, tt := range []struct {
		header, value string
		want          int
	}{
		{"", "", http.StatusForbidden},
		{"Origin", "https://evil.example", http.StatusForbidden},
		{"Sec-Fetch-Site", "cross-site", http.StatusForbidden},
		{"Sec-Fetch-Site", "same-origin", http.StatusOK},
		{"Origin", e.ts.URL, http.StatusOK},
	} {
		req, err := http.NewRequest(http.MethodPut, e.ts.URL+"/console/queue/api/queues/default/pause", strings.NewReader(`{}`))
		require.NoError(t, err)
		req.Header.Set("Content-Type", "application/json")
		if tt.header != "" {
			req.Header.Set(tt.header, tt.value)
		}
		resp, err := b.c.Do(req)
		require.NoError(t, err)
		_ = resp.Body.Close()
		require.Equal(t, tt.want, resp.StatusCode, "%s: %s", tt.header, tt.value)
	}
	// Below admin, no queue UI.
	w := e.browser(t)
	require.Equal(t, http.StatusSeeOther, w.signIn(e.write).StatusCode)
	require.Equal(t, http.StatusForbidden, w.get("/console/queue/").StatusCode)
	require.Equal(t, http.StatusOK, b.get("/console/queue/").StatusCode)
}

// An active seed's page shows its harvest: the pace of its reads, gaps,
// and its newest items; the dashboard counts today's items by country.
func TestHarvestOnSeedPageAndDashboard(t *testing.T) {
	t.Parallel()
	e := setup(t, false)
	const id = "gov:sg:mom.gov.sg::news"
	createSeed(t, e, "gov:sg:mom.gov.sg", "MOM")
	_, err := e.seeds.TransitionSeed(t.Context(), id, seedengine.SeedPromote, "test", "")
	require.NoError(t, err)
	b := e.browser(t)
	require.Equal(t, http.StatusSeeOther, b.signIn(e.admin).StatusCode)
	p := b.get("/console/seeds/" + url.PathEscape(id))
	require.Contains(t, p.body, "Not read yet")

	at := time.Now().UTC()
	var items []seedengine.Item
	for i := range 12 {
		u := fmt.Sprintf("https://www.mom.gov.sg/newsroom/story-%d", i)
		items = append(items, seedengine.Item{URL: u, NormalizedURL: u, Title: fmt.Sprintf("Story <b>%d</b>", i),
			SeedID: id, DomainID: "gov:sg:mom.gov.sg", Country: "sg", Category: "news", FirstSeenAt: at})
	}
	c := seedengine.SeedCheck{SeedID: id, CheckedAt: at, Outcome: seedengine.CheckOK, Status: 200, Items: 12}
	_, _, err = e.seeds.RecordSeedCheck(t.Context(), &c, items, false, func(c *seedengine.SeedCheck, _ seedengine.ArrivalHistory) (seedengine.SeedHealth, time.Time) {
		c.IntervalSeconds, c.ArrivalsPerHour, c.PossibleGap = 600, 4.5, true
		return seedengine.SeedHealth{State: seedengine.HealthHealthy, LastCheckAt: &at}, at.Add(10 * time.Minute)
	}, nil)
	require.NoError(t, err)

	p = b.get("/console/seeds/" + url.PathEscape(id))
	require.Equal(t, http.StatusOK, p.StatusCode)
	require.Contains(t, p.body, "Read every 10m0s · about 4.5 new items an hour")
	require.Contains(t, p.body, "12 new to the entry, 12 recorded")
	require.Contains(t, p.body, "<b>possible gap</b>")
	require.Contains(t, p.body, "1 with a possible gap")
	require.Contains(t, p.body, "Story &lt;b&gt;11&lt;/b&gt;", "the newest first, escaped")
	require.NotContains(t, p.body, "Story &lt;b&gt;1&lt;/b&gt;", "ten at most")

	d := b.get("/console/")
	require.Contains(t, d.body, "Harvested today")
	require.Contains(t, d.body, "<td>SG</td><td>12</td>")
}

// upload posts a multipart form with one file, as a browser sends the
// import form.
func (b *browser) upload(from, path string, fields map[string]string, name string, file []byte) page {
	b.t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	require.NoError(b.t, mw.WriteField("_csrf", csrf(b.t, b.get(from))))
	for k, v := range fields {
		require.NoError(b.t, mw.WriteField(k, v))
	}
	fw, err := mw.CreateFormFile("file", name)
	require.NoError(b.t, err)
	_, err = fw.Write(file)
	require.NoError(b.t, err)
	require.NoError(b.t, mw.Close())
	return b.send(http.MethodPost, path, mw.FormDataContentType(), &body)
}

// The import form sends the file as the media type its extension names
// and leads to the import's batch; a list the API refuses comes back on
// the form with the line it names, and nothing is queued.
func TestImportForm(t *testing.T) {
	t.Parallel()
	e := setup(t, false)
	b := e.browser(t)
	require.Equal(t, http.StatusSeeOther, b.signIn(e.write).StatusCode)
	work := b.get("/console/work")
	require.Contains(t, work.body, `action="/console/work/import"`)

	bad := b.upload("/console/work", "/console/work/import", map[string]string{"country": "sg", "category": "news"},
		"feeds.opml", []byte("<opml version=\"2.0\">\n<body>\n<outline xmlUrl=\"https://a.gov.sg/feed\">\n</body>\n</opml>\n"))
	require.Equal(t, http.StatusUnprocessableEntity, bad.StatusCode, bad.body)
	require.Contains(t, bad.body, "The import was not queued")
	require.Contains(t, bad.body, "Line 4: the OPML is not well-formed XML")

	opml := `<opml version="2.0"><body><outline text="MOM" xmlUrl="https://www.mom.gov.sg/rss.xml"/></body></opml>`
	ok := b.upload("/console/work", "/console/work/import", map[string]string{"country": "sg", "category": "news"}, "feeds.opml", []byte(opml))
	require.Equal(t, http.StatusSeeOther, ok.StatusCode, ok.body)
	loc := ok.Header.Get("Location")
	require.True(t, strings.HasPrefix(loc, "/console/batches/"), loc)
	batch := b.get(loc)
	require.Equal(t, http.StatusOK, batch.StatusCode)
	require.Contains(t, batch.body, "import batch")
}

// Browsers ask for /favicon.ico on every page, the API's documentation
// included: it answers with the console's icon, which every console page
// names too.
func TestFavicon(t *testing.T) {
	t.Parallel()
	e := setup(t, false)
	b := e.browser(t)
	p := b.get("/favicon.ico")
	require.Equal(t, http.StatusOK, p.StatusCode, p.body)
	require.Equal(t, "image/svg+xml", p.Header.Get("Content-Type"))
	require.True(t, strings.HasPrefix(p.body, "<svg "), p.body)
	require.Equal(t, p.body, b.get("/console/static/favicon.svg").body)
	login := b.get("/console/login")
	require.Contains(t, login.body, `<link rel="icon" href="/console/static/favicon.svg" type="image/svg+xml">`)
}

// A seed of a publisher's edition says which: in the seeds list, in its
// page's title and facts, with a link to the default edition's seed.
func TestSeedPageShowsEdition(t *testing.T) {
	t.Parallel()
	e := setup(t, false)
	createSeed(t, e, "media:sg:mom.gov.sg", "MOM")
	sd, err := e.seeds.FindSeedByID(t.Context(), "media:sg:mom.gov.sg::news")
	require.NoError(t, err)
	sd.SeedID, sd.Source.Edition = "", &seedengine.SeedEdition{Language: "zh", Host: "zh.mom.gov.sg"}
	sd.Fetch.EntryURL = "https://zh.mom.gov.sg/feed/"
	sd.Normalize()
	require.Equal(t, "media:sg:mom.gov.sg::news@zh", sd.SeedID)
	_, err = e.seeds.RecordDraftSeed(t.Context(), sd, "contract_batch:test", "")
	require.NoError(t, err)

	b := e.browser(t)
	require.Equal(t, http.StatusSeeOther, b.signIn(e.admin).StatusCode)
	list := b.get("/console/seeds?status=draft")
	require.Contains(t, list.body, `<small>news · zh edition · `)
	p := b.get("/console/seeds/" + url.PathEscape(sd.SeedID))
	require.Equal(t, http.StatusOK, p.StatusCode, p.body)
	require.Contains(t, p.body, `<h1>mom.gov.sg <small>news · zh edition</small>`)
	require.Contains(t, p.body, `<dd id="edition"><b>zh</b> on zh.mom.gov.sg: another edition of the publisher; the default's seed is <a href="/console/seeds/media:sg:mom.gov.sg::news">media:sg:mom.gov.sg::news</a></dd>`)
	// A notice names an edition's seed too.
	n := b.get("/console/seeds?done=rejected&what=" + url.QueryEscape(sd.SeedID))
	require.Contains(t, n.body, `<p class="notice" role="status" tabindex="-1">Rejected <a href="/console/seeds/media:sg:mom.gov.sg::news@zh">media:sg:mom.gov.sg::news@zh</a>.</p>`)
}
