package main_test

import (
	"context"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/browsertest"
	"github.com/seedengine/seedengine/internal/simweb/simwebtest"
)

// The README's two console screenshots, written again by the review loop
// test when SEEDENGINE_UPDATE_SCREENSHOTS=1.
var readmeShots = map[string]string{
	"dashboard": "../../docs/img/console-dashboard.png",
	"seed":      "../../docs/img/console-seed-review.png",
}

// TestBrowserReviewLoop drives the operator console through headless
// Chromium, the whole review loop on a real serve process (embedded
// defaults in a temporary directory) whose outbound client reaches the
// simulated web's catalogue of 37 sites, 400 ms apart per host so a
// contract batch runs for a few seconds: sign in with an admin key made
// by apikey create, queue research of the catalogue's home pages with the
// "Start work" form, queue contracts for that partition from the research
// page's link, watch the batch page refresh itself until the batch has
// finished, open the drafts, read a draft's evidence, promote it, check
// through the API that the key's name is the promotion's actor, and walk
// the seeds list with the keyboard. The browser reaches nothing but
// 127.0.0.1 (see internal/browsertest).
func TestBrowserReviewLoop(t *testing.T) {
	t.Parallel()
	b := browsertest.Start(t)
	tab := b.Tab()
	b.RequireOffline(t, tab)

	web := simwebtest.Start(t)
	entries := web.AddCatalogue(time.Now())
	ca, err := web.WriteCAFile(t.TempDir())
	require.NoError(t, err)
	dataDir := t.TempDir()
	const keyName = "reviewer"
	admin := createKey(t, dataDir, keyName, "admin")
	// One worker takes the contract batch's two chunks one after the
	// other, so its progress stops at 50% for a few seconds.
	s := startServer(t, dataDir, "--dns-server", web.DNSAddr(), "--connect-to", strings.Join(web.ConnectTo(), ","),
		"--extra-ca-file", ca, "--allow-private-networks", "127.0.0.0/8", "--per-host-delay", "400ms", "--workers", "1")
	t.Cleanup(func() { requireNoServerErrors(t, s) })

	ctx, cancel := context.WithTimeout(tab, 5*time.Minute)
	defer cancel()
	run := func(what string, actions ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(ctx, actions...); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	// axe-core runs on every console page the loop opens.
	axe := func(what string) { t.Helper(); b.RequireAccessible(t, ctx, what) }

	// Sign in: the console sends a visitor without a session to the form,
	// which refuses a wrong key and takes the right one.
	run("open the console", chromedp.Navigate(s.base+"/console/"), chromedp.WaitVisible(chromedp.ID("key")))
	require.Equal(t, "/console/login?next=%2Fconsole%2F", pathOf(t, ctx))
	b.Screenshot(t, ctx, "1-signin")
	axe("sign-in")
	run("type a wrong key", chromedp.SendKeys(chromedp.ID("key"), "se_not_a_key"))
	loadAfter(t, ctx, chromedp.Click(chromedp.CSS(`form[action="/console/login"] button[type=submit]`)))
	require.Contains(t, text(t, ctx, `[role=alert]`), "That key is not valid")
	run("type the key", chromedp.SendKeys(chromedp.ID("key"), admin))
	loadAfter(t, ctx, chromedp.Click(chromedp.CSS(`form[action="/console/login"] button[type=submit]`)))
	require.Equal(t, "/console/", pathOf(t, ctx))
	require.Equal(t, "Dashboard", text(t, ctx, "main h1"))
	require.Contains(t, text(t, ctx, "header .who"), keyName)
	axe("the dashboard")

	// Research: the catalogue's home pages, through the "Start work" form.
	date := time.Now().UTC().Format(seedengine.DateLayout)
	urls := make([]string, len(entries))
	for i, e := range entries {
		_, _, domain, err := seedengine.ParseDomainID(e.DomainID)
		require.NoError(t, err)
		urls[i] = "https://" + domain + "/"
	}
	run("fill the research form",
		chromedp.Navigate(s.base+"/console/work"),
		chromedp.SetValue(chromedp.CSS(`#research input[name=country]`), "intl"),
		chromedp.SetValue(chromedp.CSS(`#research input[name=category]`), "news"),
		chromedp.SetValue(chromedp.CSS(`#research input[name=date]`), date),
		chromedp.SetValue(chromedp.ID("research-urls"), strings.Join(urls, "\n")),
	)
	axe("the work forms")
	loadAfter(t, ctx, chromedp.Click(chromedp.CSS(`#research button[type=submit]`)))
	require.True(t, strings.HasPrefix(pathOf(t, ctx), "/console/batches/"), pathOf(t, ctx))
	require.Equal(t, "Queued.", text(t, ctx, ".notice"))
	require.Equal(t, "completed", finalStatus(t, ctx))
	axe("a research batch")

	// Contracts for that partition: the research page links to the form,
	// filled in.
	run("open the research index", chromedp.Navigate(s.base+"/console/research"))
	axe("the research index")
	loadAfter(t, ctx, chromedp.Click(chromedp.CSS(`a[href^="/console/work?"][href*="date=`+date+`"]`)))
	for field, want := range map[string]string{"country": "intl", "category": "news", "date": date} {
		got, err := chromedp.Run(ctx, chromedp.Value(chromedp.CSS(`#contract input[name=`+field+`]`)))
		require.NoError(t, err)
		require.Equal(t, want, got, "the contract form's %s", field)
	}
	loadAfter(t, ctx, chromedp.Click(chromedp.CSS(`#contract button[type=submit]`)))
	batchPath := pathOf(t, ctx)
	require.True(t, strings.HasPrefix(batchPath, "/console/batches/"), batchPath)

	// The batch page refreshes its progress block itself (every 1.5 s,
	// console.js): an observer notes every value its progress bar shows.
	_, err = chromedp.Run(ctx, chromedp.Evaluate[bool](`(() => {
		const el = document.getElementById("progress");
		window.seen = [];
		const note = () => {
			const bar = el.querySelector("[role=progressbar]"), pct = el.querySelector("dd.progress > span"), st = el.querySelector(".status");
			const v = bar.getAttribute("aria-valuenow") + " " + pct.textContent + " " + st.textContent;
			if (window.seen[window.seen.length - 1] !== v) window.seen.push(v);
		};
		note();
		new MutationObserver(note).observe(el, {childList: true, subtree: true});
		return true;
	})()`))
	require.NoError(t, err)

	// Meanwhile, in a second tab, the dashboard shows the batch running
	// (its table refreshes itself every 2 s). A dashboard that fails is
	// an error, but the rest of the loop goes on without it.
	dash := b.NewTab(t)
	dctx, dcancel := context.WithTimeout(dash, 20*time.Second)
	defer dcancel()
	require.NoError(t, chromedp.Do(dctx, chromedp.Navigate(s.base+"/console/")))
	shown, err := chromedp.Run(dctx, chromedp.Poll[string](`
		document.querySelector("#batches .status-running") ? "running" :
		document.querySelector("main") ? "" : "no dashboard: " + document.body.innerText`,
		chromedp.WithPollingInterval(50*time.Millisecond), chromedp.WithPollingTimeout(15*time.Second)))
	if err == nil && shown == "running" {
		shot := b.Screenshot(t, dctx, "2-dashboard-running")
		// A bar under way makes a better picture: wait for the first
		// chunk's 50% if the batch is still running when it shows.
		mid, err := chromedp.Run(dctx, chromedp.Poll[string](`(() => {
			const row = Array.from(document.querySelectorAll("#batches tbody tr")).find(tr => tr.querySelector(".status-running"));
			if (!row) return "ended";
			return +row.querySelector("[role=progressbar]").getAttribute("aria-valuenow") > 0 ? "under way" : "";
		})()`, chromedp.WithPollingInterval(50*time.Millisecond), chromedp.WithPollingTimeout(15*time.Second)))
		if err == nil && mid == "under way" {
			shot = b.Screenshot(t, dctx, "2-dashboard-running")
		}
		updateReadmeShot(t, "dashboard", shot)
	} else {
		t.Errorf("the dashboard did not show the batch running: %q %v", shown, err)
	}

	require.Contains(t, []string{"completed", "completed_with_errors"}, finalStatus(t, ctx))
	seen, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`window.seen`))
	require.NoError(t, err)
	t.Logf("the batch page showed: %q", seen)
	var values []int
	for _, v := range seen {
		f := strings.Fields(v) // aria-valuenow, the percentage shown, the status
		require.Len(t, f, 3, v)
		n, err := strconv.Atoi(f[0])
		require.NoError(t, err, v)
		require.Equal(t, f[0]+"%", f[1], "the bar and its text agree: %q", v)
		if !slices.Contains(values, n) {
			values = append(values, n)
		}
	}
	require.GreaterOrEqual(t, len(values), 2, "the progress bar never moved: %q", seen)
	require.True(t, slices.IsSorted(values), "progress only grows: %q", seen)
	require.Equal(t, 100, values[len(values)-1], "the batch ends at 100%%: %q", seen)
	require.True(t, slices.ContainsFunc(values, func(n int) bool { return n > 0 && n < 100 }),
		"the bar showed no value between 0 and 100 (the first of two chunks done): %q", seen)

	// The drafts. The batch page's last refresh lists the seeds it
	// created, without a reload, and links to the list of drafts to
	// review: the batch's drafts, whatever their country.
	created, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](
		`Array.from(document.querySelectorAll("#progress ul.links a[href^='/console/seeds/']"), a => a.textContent)`))
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(created), len(entries), "a draft per site at least")
	loadAfter(t, ctx, chromedp.Click(chromedp.Search(`//a[text()="Review the drafts"]`)))
	require.True(t, strings.HasPrefix(pathOf(t, ctx), "/console/seeds?"), pathOf(t, ctx))
	listed, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](
		`Array.from(document.querySelectorAll("table.seeds tbody tr[data-href]"), tr => decodeURIComponent(tr.dataset.href.split("?")[0].split("/").pop()))`))
	require.NoError(t, err)
	require.NotEmpty(t, listed)
	var missing []string
	for _, id := range created {
		if !slices.Contains(listed, id) {
			missing = append(missing, id)
		}
	}
	assert.Empty(t, missing, "%d of the batch's %d drafts are not in the list its \"Review the drafts\" link opens (%s)",
		len(missing), len(created), pathOf(t, ctx))
	b.Screenshot(t, ctx, "3-seeds")
	axe("the batch's drafts")

	// A draft's review page: its evidence, one candidate chosen, and why.
	loadAfter(t, ctx, chromedp.Click(chromedp.CSS(`table.seeds tbody tr[data-href] a`)))
	seedID := seedOf(t, ctx)
	require.Equal(t, "draft", text(t, ctx, ".titlebar .status"))
	candidates, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("table.evidence tbody tr").length`))
	require.NoError(t, err)
	require.Greater(t, candidates, 1, "the evidence table lists the candidates")
	chosen, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("table.evidence tbody tr.chosen").length`))
	require.NoError(t, err)
	require.Equal(t, 1, chosen, "one candidate is marked chosen")
	require.Contains(t, text(t, ctx, `table.evidence tbody tr.chosen .badge`), "chosen")
	require.NotEmpty(t, text(t, ctx, `p.why`), "the decision says why")
	axe("a draft's review page")
	shot := b.ScreenshotDownTo(t, ctx, "4-seed-review", "table.evidence")
	updateReadmeShot(t, "seed", shot)

	// Promote: the console goes on to the next draft, and the API has the
	// seed active with the key's name as the actor.
	loadAfter(t, ctx, chromedp.Click(chromedp.CSS(`#promote button[type=submit]`)))
	require.Equal(t, "Promoted "+seedID+".", text(t, ctx, ".notice"))
	require.NotEqual(t, seedID, seedOf(t, ctx), "the console went on to the next draft")
	r := s.do(t, "GET", "/api/v1/seeds/"+url.PathEscape(seedID), admin, nil)
	require.Equal(t, 200, r.status, "body: %s", r.raw)
	require.Equal(t, "active", r.body["status"], "body: %s", r.raw)
	history := r.body["history"].([]any)
	last := history[len(history)-1].(map[string]any)
	require.Equal(t, string(seedengine.SeedPromote), last["action"], "history: %v", history)
	require.Equal(t, keyName, last["actor"], "history: %v", history)

	// The keyboard: u goes up to the list, j selects its first row, Enter
	// opens it: another draft, the promoted one having left the list.
	loadAfter(t, ctx, chromedp.KeyEvent("u"))
	require.True(t, strings.HasPrefix(pathOf(t, ctx), "/console/seeds?"), pathOf(t, ctx))
	run("press j", chromedp.KeyEvent("j"), chromedp.WaitVisible(chromedp.CSS(`table.seeds tbody tr.selected`)))
	loadAfter(t, ctx, chromedp.KeyEvent("\r"))
	require.NotEqual(t, seedID, seedOf(t, ctx))
	require.Equal(t, "draft", text(t, ctx, ".titlebar .status"))

	// The queue: the nav's Queue link opens River UI inside the session,
	// whose list of completed jobs holds the contract batch's chunks.
	loadAfter(t, ctx, chromedp.Click(chromedp.Search(`//nav//a[text()="Queue"]`)))
	require.True(t, strings.HasPrefix(pathOf(t, ctx), "/console/queue/"), pathOf(t, ctx))
	run("open the completed jobs", chromedp.Navigate(s.base+"/console/queue/jobs?state=completed"))
	kinds, err := chromedp.Run(ctx, chromedp.Poll[string](
		`document.body.innerText.includes("contract_chunk") ? "contract_chunk" : ""`,
		chromedp.WithPollingInterval(100*time.Millisecond), chromedp.WithPollingTimeout(20*time.Second)))
	require.NoError(t, err, "River UI did not list the contract chunks")
	require.Equal(t, "contract_chunk", kinds)
	b.Screenshot(t, ctx, "6-queue")

	reviewerDay(t, b, ctx, s, web, admin, urls, date)
	b.RequireStayedHome(t)
}

// TestBrowserDocsOffline renders /docs (Stoplight Elements, embedded in
// the binary) in a browser that cannot leave 127.0.0.1, and finds an
// operation's page.
func TestBrowserDocsOffline(t *testing.T) {
	t.Parallel()
	b := browsertest.Start(t)
	tab := b.Tab()
	b.RequireOffline(t, tab)
	s := startServer(t, t.TempDir())
	t.Cleanup(func() { requireNoServerErrors(t, s) })

	ctx, cancel := context.WithTimeout(tab, 30*time.Second)
	defer cancel()
	err := chromedp.Do(ctx, chromedp.Navigate(s.base+"/docs#/operations/list-batches"),
		chromedp.WaitVisible(chromedp.Search(`//h1[contains(., "List batches, newest first")]`)))
	require.NoError(t, err, "the operation's page did not show")
	b.Screenshot(t, ctx, "5-docs")
	b.RequireStayedHome(t)
}

// loadAfter runs action (a click, a key) and waits for the page it leads
// to to load.
func loadAfter(t *testing.T, ctx context.Context, action chromedp.Action[chromedp.Void]) {
	t.Helper()
	if _, err := chromedp.Run(ctx, chromedp.WaitEvent(page.LoadEventFired, nil, action)); err != nil {
		t.Fatalf("no page loaded: %v", err)
	}
}

// pathOf is the tab's path and query.
func pathOf(t *testing.T, ctx context.Context) string {
	t.Helper()
	loc, err := chromedp.Run(ctx, chromedp.Location())
	require.NoError(t, err)
	u, err := url.Parse(loc)
	require.NoError(t, err)
	return u.RequestURI()
}

// seedOf is the id of the seed whose page the tab shows.
func seedOf(t *testing.T, ctx context.Context) string {
	t.Helper()
	p, _, _ := strings.Cut(pathOf(t, ctx), "?")
	esc, ok := strings.CutPrefix(p, "/console/seeds/")
	require.True(t, ok, "not a seed's page: %s", p)
	id, err := url.PathUnescape(esc)
	require.NoError(t, err)
	return id
}

// text is the visible text of the first element sel matches.
func text(t *testing.T, ctx context.Context, sel string) string {
	t.Helper()
	s, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(sel)))
	require.NoError(t, err, sel)
	return strings.TrimSpace(s)
}

// finalStatus waits for the batch page in ctx to show a finished status
// and returns it.
func finalStatus(t *testing.T, ctx context.Context) string {
	t.Helper()
	st, err := chromedp.Run(ctx, chromedp.Poll[string](`(() => {
		const st = document.querySelector("#progress .status");
		return st && ["completed", "completed_with_errors", "failed", "cancelled"].includes(st.textContent) ? st.textContent : "";
	})()`, chromedp.WithPollingInterval(100*time.Millisecond), chromedp.WithPollingTimeout(60*time.Second)))
	require.NoError(t, err, "the batch did not finish")
	return st
}

// updateReadmeShot writes a README screenshot when
// SEEDENGINE_UPDATE_SCREENSHOTS=1.
func updateReadmeShot(t *testing.T, name string, png []byte) {
	t.Helper()
	if os.Getenv("SEEDENGINE_UPDATE_SCREENSHOTS") != "1" {
		return
	}
	require.Less(t, len(png), 400<<10, "%s: keep the README's screenshots under 400 KB", name)
	path := readmeShots[name]
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, png, 0o644))
	t.Logf("wrote %s (%d KB)", path, len(png)>>10)
}

// requireNoServerErrors fails the test if serve logged an error (a
// console template that failed, say: the browser sees only a bare 500).
func requireNoServerErrors(t *testing.T, s *server) {
	t.Helper()
	for _, l := range s.logLines() {
		if l["level"] == "ERROR" {
			t.Errorf("serve logged an error: %v", l)
		}
	}
}
