package console_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/app"
	"github.com/seedengine/seedengine/internal/blobstore"
	"github.com/seedengine/seedengine/internal/browsertest"
	"github.com/seedengine/seedengine/internal/console"
	"github.com/seedengine/seedengine/internal/contract"
	"github.com/seedengine/seedengine/internal/httpapi"
	"github.com/seedengine/seedengine/internal/jobs"
	"github.com/seedengine/seedengine/internal/sqlstore"
	"github.com/seedengine/seedengine/internal/sqlstore/sqlstoretest"
)

// fullEnv is the console on the whole application (internal/app) with a
// running queue, a contract runner and a liveness prober that stay in the
// process, so every page has something to show.
type fullEnv struct {
	ts    *httptest.Server
	db    *sqlstore.DB
	blobs *blobstore.Store
	admin string // an admin key
}

// partitionDate is the date of the research the test queues.
const partitionDate = "2026-01-28"

func setupFull(t *testing.T) *fullEnv {
	t.Helper()
	db := sqlstoretest.OpenSQLite(t)
	blobs, err := blobstore.Open(t.Context(), "mem://")
	require.NoError(t, err)
	t.Cleanup(func() { _ = blobs.Close() })
	log := slog.New(slog.DiscardHandler)
	a, err := app.New(app.Config{DB: db, Blobs: blobs, Logger: log, Version: "test",
		Contract: evidenceRunner{}, Prober: fixedProber{},
		Queue: jobs.Config{Workers: 4, PollInterval: 20 * time.Millisecond, FetchCooldown: 5 * time.Millisecond, MaxAttempts: 2, Logger: log}})
	require.NoError(t, err)
	require.NoError(t, a.Queue.Start(t.Context()))
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		_ = a.Queue.Stop(ctx)
	})
	queueUI, err := a.Queue.UIHandler("/console/queue/")
	require.NoError(t, err)
	deps := a.Deps()
	var con *console.Console
	deps.Console = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { con.ServeHTTP(w, r) })
	api := httpapi.New(httpapi.Config{Logger: log, Version: "test", RateLimit: -1, Categories: []string{"news"}}, deps)
	con = console.New(console.Config{Version: "test"}, console.Deps{API: api, Keys: a.Keys,
		Sessions: sqlstore.NewConsoleSessionService(db), QueueUI: queueUI})
	e := &fullEnv{ts: httptest.NewServer(api.Handler()), db: db, blobs: blobs}
	t.Cleanup(e.ts.Close)
	_, e.admin, err = a.Keys.CreateAPIKey(t.Context(), "alice", seedengine.ScopeAdmin)
	require.NoError(t, err)
	return e
}

// api calls the API with the admin key and decodes its answer.
func (e *fullEnv) api(t *testing.T, method, path string, body, v any) {
	t.Helper()
	var rd *bytes.Reader
	if body != nil {
		raw, err := json.Marshal(body)
		require.NoError(t, err)
		rd = bytes.NewReader(raw)
	} else {
		rd = bytes.NewReader(nil)
	}
	req, err := http.NewRequestWithContext(t.Context(), method, e.ts.URL+path, rd)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+e.admin)
	req.Header.Set("Content-Type", "application/json")
	resp, err := e.ts.Client().Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Less(t, resp.StatusCode, 300, "%s %s: %d", method, path, resp.StatusCode)
	if v != nil {
		require.NoError(t, json.NewDecoder(resp.Body).Decode(v))
	}
}

// waitBatch waits for a batch to finish and returns it.
func (e *fullEnv) waitBatch(t *testing.T, id string) seedengine.Batch {
	t.Helper()
	var b seedengine.Batch
	require.Eventually(t, func() bool {
		e.api(t, http.MethodGet, "/api/v1/queues/batch/"+url.PathEscape(id), nil, &b)
		return b.Status.Finished()
	}, 30*time.Second, 50*time.Millisecond, "batch %s did not finish", id)
	return b
}

// evidenceRunner stands in for contract runs: every domain gets a feed
// chosen among candidates with long URLs, one of them on an address no
// link may lead to.
type evidenceRunner struct{}

func (evidenceRunner) Discover(_ context.Context, domainID, domain string) *contract.Evidence {
	at := time.Date(2026, 1, 28, 3, 0, 0, 0, time.UTC)
	entry := "https://www." + domain + "/sites/default/files/newsroom/press-releases/feeds/rss.xml?category=all&format=rss2&lang=en"
	return &contract.Evidence{
		DomainID: domainID, Domain: domain, StartedAt: at, FinishedAt: at.Add(3 * time.Second), Outcome: contract.OutcomeSeeded,
		Robots: contract.RobotsEvidence{URL: "https://" + domain + "/robots.txt", Status: 200, Result: "parsed", HomeAllowed: true},
		Candidates: []*contract.Candidate{
			{Kind: contract.KindFeed, URL: entry, Via: contract.ViaLinkAlternate, Priority: 100, Fetched: true, Status: 200, Format: "rss",
				Items: 10, Name: "Press releases and speeches of the ministry, newest first", ContentType: "news", Robots: contract.RobotsAllowed, Newest: &at,
				Preview: []contract.PreviewItem{{Title: "Budget statement", URL: "https://www." + domain + "/newsroom/2026/01/budget-statement-by-the-minister-for-finance", Date: &at}}},
			{Kind: contract.KindSitemap, URL: "https://www." + domain + "/news-sitemap.xml", Via: contract.ViaKnownPath, Priority: 57.5,
				Skipped: contract.SkipNotNeeded, ContentType: "news", Robots: contract.RobotsAllowed},
			{Kind: contract.KindFeed, URL: "http://169.254.169.254/latest/meta-data/iam/security-credentials/", Via: contract.ViaLinkAlternate,
				Priority: 10, Fetched: true, Error: "refused: 169.254.169.254 is not a public address", ContentType: "news", Robots: contract.RobotsAllowed},
		},
		Decisions: []contract.Decision{{ContentType: "news", FetchType: seedengine.FetchRSS, EntryURL: entry,
			Schedule: "@hourly", Confidence: 0.9, Method: "rss via link_alternate", Why: "fresh rss feed with 10 items", CrawlAllowed: true}},
	}
}

// fixedProber says every domain is alive but one, which is parked.
type fixedProber struct{}

func (fixedProber) Probe(_ context.Context, domain string) seedengine.LivenessResult {
	r := seedengine.LivenessResult{Domain: domain, CheckedAt: time.Now().UTC(), Verdict: seedengine.VerdictAlive, Reason: "ok"}
	if strings.HasPrefix(domain, "parked") {
		r.Verdict, r.Reason = seedengine.VerdictParked, "parked"
	}
	return r
}

// researchURLs are what the research form gets: six good lines, a line
// that is no URL and one of a scheme research refuses.
var researchURLs = []string{
	"https://www.mom.gov.sg/newsroom", "https://www.mti.gov.sg/", "https://www.nus.edu.sg/news",
	"https://www.straitstimes.com/singapore", "https://www.example-company.com.sg/about-us/press",
	"https://www.who.int/news", "not a url", "ftp://files.example.sg/list.txt",
}

// axePage is one page the accessibility test opens: by URL, or by sending
// a form.
type axePage struct {
	name string
	path string
	// send, when set, opens the page by filling a form on path and
	// submitting it (the page is the answer to a POST).
	send func(t *testing.T, ctx context.Context)
	// third is a page the console serves but does not write (River UI):
	// its violations are logged, not failed.
	third bool
	// signedOut pages have no header nav to check.
	signedOut bool
}

// TestBrowserAccessibility runs axe-core on every page of the console,
// with data on each, at 1280×800 and at a phone's 390×844, where no page
// may scroll sideways and the header's links and Sign out must stay in
// view. A violation of impact serious or critical fails the test; the
// log ends with each page's violations, rule by rule.
func TestBrowserAccessibility(t *testing.T) {
	t.Parallel()
	b := browsertest.Start(t)
	tab := b.Tab()
	b.RequireOffline(t, tab)
	e := setupFull(t)
	ctx, cancel := context.WithTimeout(tab, 4*time.Minute)
	defer cancel()
	do := func(what string, actions ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		require.NoError(t, chromedp.Do(ctx, actions...), what)
	}
	submit := func(what, sel string) {
		t.Helper()
		_, err := chromedp.Run(ctx, chromedp.WaitEvent(cdppage.LoadEventFired, nil, chromedp.Click(chromedp.CSS(sel))))
		require.NoError(t, err, what)
	}

	var (
		mu      sync.Mutex
		results = map[string]map[string]string{} // page → viewport → summary
		widths  = map[string]int{}               // page → width at 390
	)
	check := func(t *testing.T, p axePage) {
		for _, vp := range []struct {
			name          string
			width, height int64
			mobile        bool
		}{{"1280", browsertest.ViewportWidth, browsertest.ViewportHeight, false}, {"390", browsertest.PhoneWidth, browsertest.PhoneHeight, true}} {
			t.Run(p.name+"@"+vp.name, func(t *testing.T) {
				b.SetViewport(t, ctx, vp.width, vp.height, vp.mobile)
				if p.send != nil {
					p.send(t, ctx)
				} else {
					require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(e.ts.URL+p.path)))
				}
				if p.third {
					_, _ = chromedp.Run(ctx, chromedp.Poll[bool](`document.body.innerText.length > 200`,
						chromedp.WithPollingTimeout(10*time.Second)))
				}
				b.ScreenshotDownTo(t, ctx, "a11y-"+strings.NewReplacer(" ", "-", ",", "", "(", "", ")", "").Replace(p.name)+"-"+vp.name, "body")
				// River UI too: queue.js mends the one serious finding it
				// had (a button's name at 390).
				vs := b.RequireAccessible(t, ctx, p.name+" at "+vp.name)
				mu.Lock()
				if results[p.name] == nil {
					results[p.name] = map[string]string{}
				}
				results[p.name][vp.name] = browsertest.AxeSummary(vs)
				mu.Unlock()
				if vp.mobile && !p.third {
					sels := []string{"main h1"}
					if !p.signedOut {
						sels = append(sels, "header nav a", "header .who button")
					}
					w := b.RequireFits(t, ctx, p.name+" at 390", sels...)
					mu.Lock()
					widths[p.name] = w
					mu.Unlock()
				}
			})
		}
	}
	t.Cleanup(func() {
		var names []string
		for n := range results {
			names = append(names, n)
		}
		slices.Sort(names)
		var sb strings.Builder
		sb.WriteString("axe-core 4.14.1 violations, rule (impact, elements):\n| Page | 1280×800 | 390×844 | width at 390 |\n|---|---|---|---|\n")
		for _, n := range names {
			fmt.Fprintf(&sb, "| %s | %s | %s | %d |\n", n, results[n]["1280"], results[n]["390"], widths[n])
		}
		t.Log(sb.String())
	})

	// Signed out: the sign-in page.
	check(t, axePage{name: "sign-in", path: "/console/login", signedOut: true})
	b.SetViewport(t, ctx, browsertest.ViewportWidth, browsertest.ViewportHeight, false)
	do("open the sign-in form", chromedp.Navigate(e.ts.URL+"/console/login"), chromedp.WaitVisible(chromedp.ID("key")),
		chromedp.SendKeys(chromedp.ID("key"), e.admin))
	submit("sign in", `form[action="/console/login"] button[type=submit]`)

	// A research batch through the form: six URLs, a line that is no URL,
	// and one research refuses.
	do("fill the research form", chromedp.Navigate(e.ts.URL+"/console/work"),
		chromedp.SetValue(chromedp.CSS(`#research input[name=country]`), "sg"),
		chromedp.SetValue(chromedp.CSS(`#research input[name=category]`), "news"),
		chromedp.SetValue(chromedp.CSS(`#research input[name=date]`), partitionDate),
		chromedp.SetValue(chromedp.ID("research-urls"), strings.Join(researchURLs, "\n")))
	submit("queue research", `#research button[type=submit]`)
	loc, err := chromedp.Run(ctx, chromedp.Location())
	require.NoError(t, err)
	u, err := url.Parse(loc)
	require.NoError(t, err)
	researchID, ok := strings.CutPrefix(u.Path, "/console/batches/")
	require.True(t, ok, loc)
	research := e.waitBatch(t, researchID)

	var contractOut, livenessOut struct {
		ID string `json:"id"`
	}
	e.api(t, http.MethodPost, "/api/v1/queues/contract", map[string]any{"country": "sg", "category": "news", "date": partitionDate}, &contractOut)
	e.api(t, http.MethodPost, "/api/v1/queues/liveness", map[string]any{"country": "sg",
		"domains": []string{"mom.gov.sg", "parked-example.com.sg", "straitstimes.com"}}, &livenessOut)
	e.waitBatch(t, contractOut.ID)
	e.waitBatch(t, livenessOut.ID)
	var drafts struct {
		Items []seedengine.Seed `json:"items"`
	}
	e.api(t, http.MethodGet, "/api/v1/seeds?status=draft&limit=100", nil, &drafts)
	require.NotEmpty(t, drafts.Items)
	seed := drafts.Items[0]
	sgDrafts := 0
	for _, d := range drafts.Items {
		if d.Country == "sg" {
			sgDrafts++
		}
	}

	// An active seed that fetches pages: an article, its copy, and a page
	// that is not an article.
	const itemSeed = "gov:sg:mof.gov.sg::news"
	createActiveSeed(t, e.db, "gov:sg:mof.gov.sg")
	notArticle := &seedengine.Article{ArticleFields: seedengine.ArticleFields{Title: "Video: the minister on the budget",
		NotArticle: "not_article_type", Methods: map[string]string{"title": "opengraph"}}}
	its := harvestPagesIn(t, e.db, e.blobs, itemSeed, []pageCase{
		{title: "Budget 2027", state: seedengine.PageStored, status: 200, article: budgetArticle(), hash: 0x5eed},
		{title: "Budget 2027, the wire's copy", state: seedengine.PageStored, status: 200, article: budgetArticle(), hash: 0x5eed},
		{title: "Video", state: seedengine.PageStored, status: 200, article: notArticle},
		{title: "Gone", state: seedengine.PageFailed, status: 404, reason: "http_404"},
		{title: "Budget 2027, as archived", state: seedengine.PageStored, status: 200, article: budgetArticle(), hash: 0xa7c,
			content: archivedHTML("a11y")},
	})
	itemDate := time.Now().UTC().Format(seedengine.DateLayout)

	// What the issue asked for besides axe's rules, at 1280.
	expect := func(what, js string) {
		t.Helper()
		got, err := chromedp.Run(ctx, chromedp.Evaluate[bool](js))
		require.NoError(t, err, what)
		if !got {
			main, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector("main").innerHTML`))
			t.Fatalf("%s; the page's main:\n%s", what, main)
		}
	}
	do("open the dashboard", chromedp.Navigate(e.ts.URL+"/console/"), chromedp.KeyEvent("\t"))
	expect("Tab reaches Skip to content first, shown with an outline", `(() => {
		const a = document.activeElement, r = a.getBoundingClientRect(), s = getComputedStyle(a);
		return a.matches("a.skip[href='#content']") && a.textContent === "Skip to content" && r.top >= 0 && r.bottom <= innerHeight &&
			s.outlineStyle !== "none" && parseFloat(s.outlineWidth) >= 2 && document.getElementById("content").tagName === "MAIN";
	})()`)
	expect("the batches have short ids that differ, the full id in the title", `(() => {
		const ids = Array.from(document.querySelectorAll("#batches tbody td:first-child a"));
		return ids.length === 3 && new Set(ids.map(a => a.textContent)).size === 3 && ids.every(a => a.title.endsWith(a.textContent));
	})()`)
	expect("every progress bar has a name", `Array.from(document.querySelectorAll("[role=progressbar]")).every(b => /^Progress of \w+ batch \w{8}$/.test(b.getAttribute("aria-label")))`)
	expect("the drafts waiting in SG are counted", `Array.from(document.querySelectorAll("table a[href*='status=draft'][href*='country=sg']")).some(a =>
		a.textContent === "SG" && +a.closest("tr").cells[1].textContent === `+fmt.Sprint(sgDrafts)+`)`)

	do("open the research batch as queued", chromedp.Navigate(e.ts.URL+"/console/batches/"+url.PathEscape(research.ID)+"?done=queued"))
	expect("the research batch lists its two rejected lines, each in words", `(() => {
		const li = Array.from(document.querySelectorAll("#progress ul.rejected li"));
		return li.length === 2 && li[0].textContent.includes("not a url") && li[1].textContent.includes("not an http or https URL");
	})()`)
	expect("the notice shows on the finished batch's page", `document.querySelector(".notice").textContent === "Queued."`)
	_, err = chromedp.Run(ctx, chromedp.Poll[bool](`!document.querySelector(".notice")`, chromedp.WithPollingTimeout(10*time.Second)))
	require.NoError(t, err, "the notice \"Queued.\" went with the first redraw of the finished batch")

	do("open the contract batch", chromedp.Navigate(e.ts.URL+"/console/batches/"+url.PathEscape(contractOut.ID)))
	expect("each seed created shows its status and confidence", `(() => {
		const li = Array.from(document.querySelectorAll("#progress ul.seedlist li"));
		return li.length > 0 && li.every(l => l.querySelector("a[href^='/console/seeds/']") && l.querySelector(".status-draft") && l.textContent.includes("confidence 0.90"));
	})()`)

	do("open the partition", chromedp.Navigate(e.ts.URL+"/console/research/sg/news/"+partitionDate))
	expect("authorities are shown in words", `(() => {
		const words = Array.from(document.querySelectorAll(".authority"), s => s.textContent);
		return words.includes("government") && words.includes("education") && words.every(w => ["government", "military", "education",
			"NGO or international", "organisation", "media", "company", "other"].includes(w));
	})()`)

	do("open the seed", chromedp.Navigate(e.ts.URL+"/console/seeds/"+url.PathEscape(seed.SeedID)))
	expect("no link leads to a private address", `!document.querySelector("a[href*='169.254']")`)

	sendForm := func(form string, fields map[string]string) func(t *testing.T, ctx context.Context) {
		return func(t *testing.T, ctx context.Context) {
			var acts []chromedp.Action[chromedp.Void]
			acts = append(acts, chromedp.Navigate(e.ts.URL+"/console/work"))
			for name, v := range fields {
				acts = append(acts, chromedp.SetValue(chromedp.CSS(`#`+form+` [name=`+name+`]`), v))
			}
			require.NoError(t, chromedp.Do(ctx, acts...))
			_, err := chromedp.Run(ctx, chromedp.WaitEvent(cdppage.LoadEventFired, nil, chromedp.Click(chromedp.CSS(`#`+form+` button[type=submit]`))))
			require.NoError(t, err)
		}
	}
	sendForm("research", map[string]string{"country": "sg", "category": "Bad Category!", "date": partitionDate,
		"urls": "https://www.mom.gov.sg/"})(t, ctx)
	expect("the research form's error is in words beside its field, and only there", `(() => {
		const input = document.getElementById("research-category"), err = document.getElementById("research-category-error");
		return input.getAttribute("aria-invalid") === "true" && input.getAttribute("aria-describedby") === "research-category-error" &&
			err.textContent === "Use lower-case letters, digits and _ (at most 40)." &&
			document.querySelector("#research .problem a[href='#research-category']") !== null &&
			document.getElementById("research-category").value === "Bad Category!" &&
			document.querySelectorAll(".field-error, [aria-invalid], .problem").length === 3 &&
			document.getElementById("contract-category").value === "" && !document.querySelector("#contract .problem");
	})()`)

	// Where the focus goes: a refused form's summary of errors; a link to
	// a form, its first field.
	focusIs := func(what, id string) {
		t.Helper()
		_, err := chromedp.Run(ctx, chromedp.Poll[bool](`document.activeElement.id === "`+id+`"`,
			chromedp.WithPollingInterval(20*time.Millisecond), chromedp.WithPollingTimeout(5*time.Second)))
		if err != nil {
			got, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.activeElement.outerHTML.slice(0, 200)`))
			t.Fatalf("%s: the focus is not on #%s but on %s", what, id, got)
		}
	}
	focusIs("a refused form", "research-problem")
	do("open the import form by its link", chromedp.Navigate(e.ts.URL+"/console/work"), chromedp.Click(chromedp.CSS(`ul.jump a[href="#import"]`)))
	focusIs("a form reached by a link", "import-country")
	do("open the liveness form by its key", chromedp.Navigate(e.ts.URL+"/console/work"), chromedp.KeyEvent("3"))
	focusIs("a form reached by its key", "liveness-country")

	for _, p := range []axePage{
		{name: "dashboard", path: "/console/"},
		{name: "batch (research)", path: "/console/batches/" + url.PathEscape(research.ID) + "?done=queued"},
		{name: "batch (contract)", path: "/console/batches/" + url.PathEscape(contractOut.ID)},
		{name: "batch (liveness)", path: "/console/batches/" + url.PathEscape(livenessOut.ID)},
		{name: "research", path: "/console/research"},
		{name: "partition", path: "/console/research/sg/news/" + partitionDate},
		{name: "domain", path: "/console/domains/" + url.PathEscape(seed.DomainID)},
		{name: "seeds", path: "/console/seeds?status=draft"},
		{name: "seed", path: "/console/seeds/" + url.PathEscape(seed.SeedID) + "?status=draft"},
		{name: "seed (active, its items)", path: "/console/seeds/" + url.PathEscape(itemSeed)},
		// Read now's notice: waiting for the read (redrawn), and once it ran.
		{name: "seed (read now queued)", path: "/console/seeds/" + url.PathEscape(itemSeed) + "?read=999999&read_at=" + strconv.FormatInt(time.Now().Unix(), 10)},
		{name: "seed (read now ran)", path: "/console/seeds/" + url.PathEscape(itemSeed) + "?read=0"},
		{name: "item (an article's copy)", path: "/console/items/" + strconv.FormatInt(its[1].ID, 10)},
		{name: "item (not an article)", path: "/console/items/" + strconv.FormatInt(its[2].ID, 10)},
		{name: "item (no page)", path: "/console/items/" + strconv.FormatInt(its[3].ID, 10)},
		{name: "item (its archived page, framed)", path: "/console/items/" + strconv.FormatInt(its[4].ID, 10)},
		{name: "items", path: "/console/items"},
		{name: "items (a partition and its files)", path: "/console/items?country=sg&category=news&date=" + itemDate},
		{name: "items (a search)", path: "/console/items?q=budget"},
		{name: "work", path: "/console/work"},
		{name: "work, research form error", send: sendForm("research", map[string]string{
			"country": "sg", "category": "Bad Category!", "date": partitionDate, "urls": "https://www.mom.gov.sg/"})},
		{name: "work, contract form error", send: sendForm("contract", map[string]string{
			"country": "sg", "category": "Bad Category!", "date": partitionDate})},
		{name: "not found", path: "/console/no-such-page"},
		{name: "problem (no such batch)", path: "/console/batches/no-such-batch"},
		{name: "queue (River UI)", path: "/console/queue/", third: true},
	} {
		check(t, p)
	}
	b.SetViewport(t, ctx, browsertest.ViewportWidth, browsertest.ViewportHeight, false)
	b.RequireStayedHome(t)
}
