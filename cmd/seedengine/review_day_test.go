package main_test

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine/internal/browsertest"
	"github.com/seedengine/seedengine/internal/simweb"
)

// decision is one reviewer decision as the day measured it: the keys
// pressed and the time from the first key to the next page's load.
type decision struct {
	what    string
	keys    int
	elapsed time.Duration
}

// reviewerDay is the second half of TestBrowserReviewLoop: the day of a
// reviewer on about 100 drafts (the catalogue researched for three
// countries), at a desktop's size and a phone's. It promotes, skips,
// rejects with a reason and chooses another candidate each in one key
// (the reject picker's digit aside), checks through the API and the page
// that each did what it says (the page agrees with itself after a
// choice), searches, sorts, bulk-promotes the confident drafts with the
// count confirmed, and runs axe-core on every page it opens.
func reviewerDay(t *testing.T, b *browsertest.Browser, ctx context.Context, s *server, web *simweb.Web, admin string, urls []string, date string) []decision {
	run := func(what string, actions ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(ctx, actions...); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	axe := func(what string) { t.Helper(); b.RequireAccessible(t, ctx, what) }
	eval := func(js string) string {
		t.Helper()
		v, err := chromedp.Run(ctx, chromedp.Evaluate[string](js))
		require.NoError(t, err, js)
		return v
	}
	seed := func(id string) map[string]any {
		t.Helper()
		r := s.do(t, "GET", "/api/v1/seeds/"+url.PathEscape(id), admin, nil)
		require.Equal(t, 200, r.status, "body: %s", r.raw)
		return r.body
	}
	total := func(query string) int {
		t.Helper()
		r := s.do(t, "GET", "/api/v1/seeds?limit=1&"+query, admin, nil)
		require.Equal(t, 200, r.status, "body: %s", r.raw)
		return int(r.body["total"].(float64))
	}

	// Two more copies of the catalogue: its sites researched for sg and
	// gb (a site under a country's own domain keeps its domain_id, so a
	// copy adds the others), with 45 sites of the simulated web's plain
	// layouts for sg, and contracts for both partitions, through the API.
	layouts := []simweb.Layout{simweb.LayoutWordPress, simweb.LayoutNews, simweb.LayoutGov, simweb.LayoutBlog, simweb.LayoutStatic}
	var local []string
	for i := range 45 {
		l := layouts[i%len(layouts)]
		host := fmt.Sprintf("%s-%02d.com.sg", l, i)
		if l == simweb.LayoutGov {
			host = fmt.Sprintf("agency-%02d.gov.sg", i)
		}
		web.AddSite(simweb.Site{Host: host, Layout: l})
		local = append(local, "https://"+host+"/")
	}
	for _, country := range []string{"sg", "gb"} {
		list := urls
		if country == "sg" {
			list = append(slices.Clone(urls), local...)
		}
		r := s.do(t, "POST", "/api/v1/research", admin, map[string]any{"country": country, "category": "news", "date": date, "urls": list})
		require.Equal(t, 201, r.status, "body: %s", r.raw)
		r = s.do(t, "POST", "/api/v1/queues/contract", admin, map[string]any{"country": country, "category": "news", "date": date})
		require.Equal(t, 202, r.status, "body: %s", r.raw)
		waitBatchDone(t, s, admin, r.header.Get("Location"))
	}
	drafts := total("status=draft")
	t.Logf("drafts to review: %d", drafts)
	require.GreaterOrEqual(t, drafts, 90, "three copies of the catalogue make about 100 drafts")

	var day []decision
	timed := func(what string, keys ...string) {
		t.Helper()
		start := time.Now()
		for i, k := range keys {
			if i == len(keys)-1 {
				loadAfter(t, ctx, chromedp.KeyEvent(k))
			} else {
				run("press "+k, chromedp.KeyEvent(k))
			}
		}
		day = append(day, decision{what, len(keys), time.Since(start)})
	}

	for _, size := range []struct {
		name          string
		width, height int64
		mobile        bool
	}{{"1280x800", 1280, 800, false}, {"390x844", 390, 844, true}} {
		b.SetViewport(t, ctx, size.width, size.height, size.mobile)
		at := func(what string) string { return what + " at " + size.name }

		// Search: the list keeps only the seeds whose domain or name
		// matches, in any case.
		run("open the drafts", chromedp.Navigate(s.base+"/console/seeds?status=draft"))
		axe(at("the drafts"))
		b.RequireFits(t, ctx, at("the drafts"), `nav a[href="/console/work"]`, `header .who button`)
		// The list starts on the first screen: on a phone the filters
		// and the bulk actions are folded behind their summaries.
		firstRow := eval(`(() => { const r = document.querySelector("table.seeds tbody tr[data-href]").getBoundingClientRect();
			return r.top < innerHeight - r.height ? "" : "the first row starts at " + r.top + " of " + innerHeight; })()`)
		require.Empty(t, firstRow, at("the drafts"))
		if size.mobile {
			run("unfold the filters", chromedp.Click(chromedp.CSS(`details.fold > summary`)))
		}
		run("search", chromedp.SetValue(chromedp.CSS(`form.filters input[name=q]`), "AGENCY-"))
		loadAfter(t, ctx, chromedp.Click(chromedp.CSS(`form.filters button[type=submit]`)))
		found := eval(`Array.from(document.querySelectorAll("table.seeds tbody tr[data-href] td a")).map(a => a.textContent).join(" ")`)
		require.NotEmpty(t, found, "the search finds the agencies")
		for _, d := range strings.Fields(found) {
			require.Contains(t, d, "agency-", "a search for AGENCY- lists %s", d)
		}
		require.Contains(t, pathOf(t, ctx), "q=AGENCY-")

		// Sort by confidence, highest first: the list is in that order.
		run("sort", chromedp.Navigate(s.base+"/console/seeds?status=draft&sort=-confidence"))
		confs := eval(`Array.from(document.querySelectorAll("table.seeds .conf")).map(c => c.dataset.conf).join(" ")`)
		var last = 2.0
		for _, c := range strings.Fields(confs) {
			v, err := strconv.ParseFloat(c, 64)
			require.NoError(t, err)
			require.LessOrEqual(t, v, last, "sorted by confidence, highest first: %s", confs)
			last = v
		}

		// Skip: the next draft, and nothing changed.
		loadAfter(t, ctx, chromedp.Click(chromedp.CSS(`table.seeds tbody tr[data-href] a`)))
		axe(at("a draft"))
		b.RequireFits(t, ctx, at("a draft"), `#promote button`, `#skip`, `a[rel=next]`)
		first := seedOf(t, ctx)
		timed(at("skip"), "s")
		require.NotEqual(t, first, seedOf(t, ctx))
		require.Equal(t, "draft", seed(first)["status"], "skip changes nothing")

		// Reject with a reason: r, then the reason's digit.
		rejected := seedOf(t, ctx)
		timed(at("reject"), "r", "2")
		require.NotEqual(t, rejected, seedOf(t, ctx), "the console went on to the next draft")
		require.Contains(t, text(t, ctx, ".notice"), "Rejected")
		got := seed(rejected)
		require.Equal(t, "rejected", got["status"])
		hist := got["history"].([]any)
		require.Equal(t, "duplicate", hist[len(hist)-1].(map[string]any)["reason_code"])

		// Choose another candidate: find a draft that offers one, press
		// its key; the page then agrees with itself and with the API.
		for range 20 {
			if eval(`document.querySelector("form[data-choose='1']") ? "yes" : ""`) != "" {
				break
			}
			loadAfter(t, ctx, chromedp.KeyEvent("s"))
		}
		require.NotEmpty(t, eval(`document.querySelector("form[data-choose='1']") ? "yes" : ""`), "a draft with another usable candidate")
		chooser := seedOf(t, ctx)
		want := eval(`document.querySelector("form[data-choose='1'] input[name=candidate_url]").value`)
		timed(at("choose"), "1")
		require.Equal(t, chooser, seedOf(t, ctx), "choosing stays on the seed, to read it again")
		axe(at("a draft after a choice"))
		api := seed(chooser)
		fetch := api["fetch"].(map[string]any)
		ev := api["evidence"].(map[string]any)
		require.Equal(t, 2.0, api["version"])
		require.Equal(t, fetch["entry_url"], strings.ReplaceAll(text(t, ctx, "#entry"), "\u200b", ""), "the contract shows the new entry")
		require.Equal(t, 1, countOf(t, ctx, "table.evidence tbody tr.chosen"), "one chosen row")
		require.Contains(t, text(t, ctx, "table.evidence tbody tr.chosen td.url"), hostPath(want), "the chosen row is the candidate chosen")
		require.Equal(t, ev["why"], text(t, ctx, "p.why"), "the reason is the new choice's")
		require.Contains(t, text(t, ctx, "p.why"), "reviewer")
		require.Contains(t, text(t, ctx, "#confidence"), strconv.FormatFloat(api["confidence"].(float64), 'f', 2, 64))
		require.Contains(t, text(t, ctx, ".why + p small"), "version 2")

		// Promote what was chosen: a, and on to the next draft.
		timed(at("promote"), "a")
		require.NotEqual(t, chooser, seedOf(t, ctx))
		require.Equal(t, "active", seed(chooser)["status"])
	}

	// Bulk: every draft at 0.9 or more, promoted in one request after a
	// confirmation that states the count.
	b.SetViewport(t, ctx, 1280, 800, false)
	confident := total("status=draft&min_confidence=0.9")
	require.Positive(t, confident)
	run("filter the confident drafts", chromedp.Navigate(s.base+"/console/seeds?status=draft&min_confidence=0.9"))
	run("tick all matching", chromedp.Click(chromedp.ID("all-matching")))
	start := time.Now()
	loadAfter(t, ctx, chromedp.KeyEvent("a"))
	axe("the bulk confirmation")
	require.Equal(t, "Promote "+strconv.Itoa(confident)+" seeds?", text(t, ctx, "main h1"))
	_, err := chromedp.Run(ctx, chromedp.Poll[bool](`document.activeElement.form && document.activeElement.form.id === "confirm"`,
		chromedp.WithPollingInterval(20*time.Millisecond), chromedp.WithPollingTimeout(5*time.Second)))
	require.NoError(t, err, "the confirmation's button has the focus")
	loadAfter(t, ctx, chromedp.KeyEvent("\r"))
	day = append(day, decision{"bulk-promote " + strconv.Itoa(confident) + " drafts", 3, time.Since(start)}) // tick, a, Enter
	require.Equal(t, "Promoted "+strconv.Itoa(confident)+" seeds.", text(t, ctx, ".notice"))
	require.Zero(t, total("status=draft&min_confidence=0.9"))
	axe("the drafts after the bulk promotion")

	for _, d := range day {
		t.Logf("decision: %-28s %d key(s) %v", d.what, d.keys, d.elapsed.Round(time.Millisecond))
	}
	return day
}

// waitBatchDone polls a batch (its Location) until it has finished.
func waitBatchDone(t *testing.T, s *server, key, location string) {
	t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	for time.Now().Before(deadline) {
		r := s.do(t, "GET", location, key, nil)
		require.Equal(t, 200, r.status, "body: %s", r.raw)
		switch r.body["status"] {
		case "completed", "completed_with_errors":
			return
		case "failed", "cancelled":
			t.Fatalf("batch %s: %s", location, r.raw)
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatalf("batch %s did not finish", location)
}

// countOf counts the elements sel matches.
func countOf(t *testing.T, ctx context.Context, sel string) int {
	t.Helper()
	n, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll(`+strconv.Quote(sel)+`).length`))
	require.NoError(t, err)
	return n
}

// hostPath is a URL without its scheme, as the evidence table shows it.
func hostPath(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	return u.Host + u.Path
}
