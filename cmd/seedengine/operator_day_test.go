package main_test

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/browsertest"
	"github.com/seedengine/seedengine/internal/simweb"
)

// TestBrowserOperatorDay drives an operator's day through the console,
// by keyboard where the console offers keys, on a real serve process
// whose outbound client reaches two simulated newsrooms (article pages
// with headline, byline, JSON-LD, paragraphs): research of their home
// pages through the form; the batch page's next step (n) to the contract
// form, filled in, its button focused (Enter); the contract batch's next
// step (n) to its drafts; a draft promoted (a), the notice focused and
// linking to the seed promoted (Tab, Enter); its pages turned on (w) and
// its entry read now (c), the notice saying when the read ran, its link
// to the seed's items (Tab, Enter); the newest item opened (j, Enter),
// its archived page shown in a sandboxed frame and its article as text.
// It logs the keys and seconds from a promoted seed to its first item on
// screen, and from an item to its archived page. axe-core runs on every
// page; nothing leaves 127.0.0.1.
func TestBrowserOperatorDay(t *testing.T) {
	t.Parallel()
	b := browsertest.Start(t)
	tab := b.Tab()
	b.RequireOffline(t, tab)

	w, err := simweb.Start(simweb.Config{Seed: 7})
	require.NoError(t, err)
	t.Cleanup(func() { _ = w.Close() })
	// An hour of a newsroom's day has passed when the day starts, so each
	// feed is full; the clock goes on at 60× (an article a minute or so).
	clock := &simweb.Clock{Start: time.Now().Add(-time.Minute), Epoch: time.Date(2026, 11, 28, 8, 0, 0, 0, time.UTC), Speed: 60}
	var urls []string
	for i := range 2 {
		p := &simweb.Publisher{Host: fmt.Sprintf("daily%02d-news.com.sg", i), PerDay: 300, Clock: clock, Pages: true,
			Articles:     simweb.ArticleCases{Text: true},
			Publications: []simweb.Publication{{Path: "/feed/", Format: simweb.PubRSS, Window: 15}}}
		// A WordPress home page, whose <link rel="alternate"> names the
		// feed the newsroom serves at /feed/.
		site := p.Site()
		site.Layout = simweb.LayoutWordPress
		w.AddSite(site)
		urls = append(urls, "https://"+p.Host+"/")
	}
	ca, err := w.WriteCAFile(t.TempDir())
	require.NoError(t, err)
	dataDir := t.TempDir()
	admin := createKey(t, dataDir, "operator", "admin")
	// No scheduled reads (--seed-check-interval 0s): a promoted seed is
	// read when the operator asks, so what shows is what Read now did.
	s := startServer(t, dataDir, "--dns-server", w.DNSAddr(), "--connect-to", strings.Join(w.ConnectTo(), ","),
		"--extra-ca-file", ca, "--allow-private-networks", "127.0.0.0/8", "--per-host-delay", "0s",
		"--seed-check-interval", "0s", "--warc-max-age", "1s", "--item-flush-interval", "1s")
	t.Cleanup(func() { requireNoServerErrors(t, s) })

	ctx, cancel := context.WithTimeout(tab, 4*time.Minute)
	defer cancel()
	run := func(what string, actions ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(ctx, actions...); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	eval := func(js string) string {
		t.Helper()
		v, err := chromedp.Run(ctx, chromedp.Evaluate[string](js))
		require.NoError(t, err, js)
		return v
	}
	// focused describes the element that has the focus.
	focused := func() string {
		return eval(`(() => { const a = document.activeElement;
			return a.tagName.toLowerCase() + (a.id ? "#" + a.id : "") + (a.className ? "." + a.className.split(" ").join(".") : "") + " " + a.textContent.trim().slice(0, 80); })()`)
	}
	axe := func(what string) { t.Helper(); b.RequireAccessible(t, ctx, what) }
	key := func(k string) { t.Helper(); loadAfter(t, ctx, chromedp.KeyEvent(k)) }

	run("open the sign-in form", chromedp.Navigate(s.base+"/console/login"), chromedp.WaitVisible(chromedp.ID("key")),
		chromedp.SendKeys(chromedp.ID("key"), admin))
	loadAfter(t, ctx, chromedp.Click(chromedp.CSS(`form[action="/console/login"] button[type=submit]`)))

	// Research: the two home pages.
	date := time.Now().UTC().Format(seedengine.DateLayout)
	run("fill the research form", chromedp.Navigate(s.base+"/console/work#research"),
		chromedp.SetValue(chromedp.CSS(`#research input[name=country]`), "sg"),
		chromedp.SetValue(chromedp.CSS(`#research input[name=category]`), "news"),
		chromedp.SetValue(chromedp.CSS(`#research input[name=date]`), date),
		chromedp.SetValue(chromedp.ID("research-urls"), strings.Join(urls, "\n")))
	loadAfter(t, ctx, chromedp.Click(chromedp.CSS(`#research button[type=submit]`)))
	require.Contains(t, focused(), "Queued.", "the notice has the focus")
	require.Equal(t, "completed", finalStatus(t, ctx))
	axe("the research batch")

	// Its next step: the contract form for its partition, filled in, the
	// focus on its button.
	key("n")
	require.Equal(t, "/console/work?category=news&country=sg&date="+date, pathOf(t, ctx))
	for field, want := range map[string]string{"country": "sg", "category": "news", "date": date} {
		require.Equal(t, want, eval(`document.querySelector("#contract [name=`+field+`]").value`), "the contract form's %s", field)
	}
	require.Contains(t, focused(), "Queue contracts", "the filled-in form's button has the focus")
	axe("the contract form, filled in")
	key("\r")
	require.True(t, strings.HasPrefix(pathOf(t, ctx), "/console/batches/"), pathOf(t, ctx))
	require.Contains(t, []string{"completed", "completed_with_errors"}, finalStatus(t, ctx))
	axe("the contract batch")

	// Its next step: its drafts.
	key("n")
	require.True(t, strings.HasPrefix(pathOf(t, ctx), "/console/seeds?"), pathOf(t, ctx))
	run("select the first draft", chromedp.KeyEvent("j"))
	key("\r")
	promoted := seedOf(t, ctx)
	require.Contains(t, eval(`document.querySelector("#entry").textContent`), "/feed/", "discovery found the newsroom's feed")
	key("a")
	require.Equal(t, "Promoted "+promoted+".", text(t, ctx, ".notice"))
	require.Contains(t, focused(), "Promoted "+promoted, "the notice has the focus")
	axe("the next draft, the notice of the promotion")

	// From the promoted seed to its first item on screen.
	run("Tab to the promoted seed's link", chromedp.KeyEvent("\t"))
	require.Contains(t, focused(), "a "+promoted)
	key("\r")
	require.Equal(t, promoted, seedOf(t, ctx))
	require.Equal(t, "active", text(t, ctx, ".titlebar .status"))
	start, keys := time.Now(), 0
	key("w")
	keys++
	require.Contains(t, text(t, ctx, "#pages"), "on", "pages are on")
	require.Contains(t, focused(), "Pages on for "+promoted)
	key("c")
	keys++
	require.Contains(t, focused(), "div#read-now.notice Read of "+promoted, "the read's notice has the focus (queued, or already run)")
	ran, err := chromedp.Run(ctx, chromedp.Poll[string](`(() => { const n = document.getElementById("read-now");
		return n.querySelector("[data-final]") ? n.textContent : ""; })()`,
		chromedp.WithPollingInterval(100*time.Millisecond), chromedp.WithPollingTimeout(60*time.Second)))
	require.NoError(t, err, "the read's notice never said it ran")
	require.Contains(t, ran, ": ok")
	require.Contains(t, focused(), "Read of "+promoted+" ran at", "the notice keeps the focus as it changes")
	readAt := time.Since(start)
	run("Tab to the seed's items", chromedp.KeyEvent("\t"))
	keys++
	require.Contains(t, focused(), "Its items, newest first")
	key("\r")
	keys++
	rows := countOf(t, ctx, "table.items tbody tr[data-href]")
	require.Positive(t, rows, "the read recorded items")
	toItems := time.Since(start)
	require.Equal(t, promoted, eval(`document.querySelector("table.items tbody tr[data-href] td:nth-child(3)").textContent.trim()`))
	axe("the seed's items")
	t.Logf("promoted seed → first item on screen: %d keys (w, c, Tab, Enter), %.1f s (the read ran after %.1f s)",
		keys, toItems.Seconds(), readAt.Seconds())

	// The newest item's page is stored and its article read (the WARC
	// file is stored a second after it was opened, then the article is
	// extracted): watched through the API, as an operator would reload.
	first := eval(`document.querySelector("table.items tbody tr[data-href]").dataset.href`)
	itemID, ok := strings.CutPrefix(first, "/console/items/")
	require.True(t, ok, first)
	deadline := time.Now().Add(90 * time.Second)
	for {
		pg := s.do(t, "GET", "/api/v1/items/"+itemID+"/page", admin, nil)
		ar := s.do(t, "GET", "/api/v1/items/"+itemID+"/article", admin, nil)
		if pg.status == 200 && pg.body["state"] == "stored" && ar.status == 200 {
			break
		}
		require.True(t, time.Now().Before(deadline), "the item's page was not stored and read in time: %s %s", pg.raw, ar.raw)
		time.Sleep(250 * time.Millisecond)
	}
	run("reload the items", chromedp.Reload())

	// From the item to its archived page: j, Enter, and the frame shows
	// the page.
	start = time.Now()
	run("select the newest item", chromedp.KeyEvent("j"))
	key("\r")
	require.Equal(t, "/console/items/"+itemID, pathOf(t, ctx))
	shown, err := chromedp.Run(ctx, chromedp.Poll[bool](`(() => { const f = document.querySelector("iframe.archived");
		return !!f && f.getAttribute("sandbox") === "" && performance.getEntriesByName(new URL(f.src, location).href).length > 0; })()`,
		chromedp.WithPollingInterval(20*time.Millisecond), chromedp.WithPollingTimeout(20*time.Second)))
	require.NoError(t, err, "the archived page's frame did not load")
	require.True(t, shown)
	toPage := time.Since(start)
	t.Logf("item → its archived page: 2 keys (j, Enter), %.2f s", toPage.Seconds())
	frameSrc := eval(`document.querySelector("iframe.archived").getAttribute("src")`)
	require.Equal(t, "/console/items/"+itemID+"/page", frameSrc)
	// The frame's answer says sandbox itself, so the page's scripts run
	// nowhere, framed or opened alone.
	csp, err := chromedp.Run(ctx, chromedp.Evaluate[string](`(async () => (await fetch("`+frameSrc+`")).headers.get("Content-Security-Policy"))()`,
		chromedp.EvalAwaitPromise))
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(csp, "sandbox;"), csp)
	paragraphs, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll(".article-text p").length`))
	require.NoError(t, err)
	require.Greater(t, paragraphs, 2, "the article's text, in paragraphs")
	var art map[string]any
	r := s.do(t, "GET", "/api/v1/items/"+itemID+"/article", admin, nil)
	require.Equal(t, 200, r.status)
	art = r.body
	require.Contains(t, strings.Join(strings.Fields(eval(`document.querySelector(".article-text").textContent`)), " "),
		strings.Join(strings.Fields(strings.SplitN(art["text"].(string), "\n\n", 2)[0]), " "), "the page shows the article's first paragraph")
	axe("the item, its archived page and article")
	run("open the seed again", chromedp.Navigate(s.base+"/console/seeds/"+url.PathEscape(promoted)))
	require.Positive(t, countOf(t, ctx, "ol.items li a[href^='/console/items/']"), "the seed's page lists its newest items")
	axe("the seed after its read")

	// At a phone's size: the items and the item fit, and pass axe.
	b.SetViewport(t, ctx, browsertest.PhoneWidth, browsertest.PhoneHeight, true)
	run("open the seed's items at 390", chromedp.Navigate(s.base+"/console/items?seed_id="+url.QueryEscape(promoted)))
	axe("the seed's items at 390")
	b.RequireFits(t, ctx, "the seed's items at 390", "main h1", "header nav a")
	run("open the item at 390", chromedp.Navigate(s.base+"/console/items/"+itemID))
	axe("the item at 390")
	b.RequireFits(t, ctx, "the item at 390", "main h1", "iframe.archived")
	b.SetViewport(t, ctx, browsertest.ViewportWidth, browsertest.ViewportHeight, false)
	b.RequireStayedHome(t)
}
