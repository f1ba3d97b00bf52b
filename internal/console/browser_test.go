package console_test

import (
	"context"
	"encoding/json"
	"net/url"
	"strings"
	"testing"
	"time"

	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/browsertest"
	"github.com/seedengine/seedengine/internal/sqlstore"
)

// recordViolations keeps every Content-Security-Policy violation of the
// tab's pages in window.__csp, from before any script of theirs runs.
const recordViolations = `window.__csp = [];
document.addEventListener("securitypolicyviolation", e => window.__csp.push({
	directive: e.effectiveDirective, blocked: e.blockedURI, sample: e.sample, source: e.sourceFile,
	target: e.target && e.target.id ? e.target.tagName + "#" + e.target.id : String(e.target && e.target.tagName)}), true);`

type violation struct{ Directive, Blocked, Sample, Source, Target string }

// River UI works under the console's strict policy in a real browser:
// it signs in through next=, lists a job, and its API takes a change
// (a cancel, sent by the page as River UI sends its own). The policy
// stops one thing River UI does not need: zod's probe for eval.
func TestBrowserQueueUI(t *testing.T) {
	t.Parallel()
	b := browsertest.Start(t)
	tab := b.Tab()
	b.RequireOffline(t, tab)
	e := setupWith(t, options{riverUI: true})
	_, created, err := e.queue.MetadataTasks(sqlstore.NewMetadataService(e.db)).RequestMetadataTask(t.Context(), seedengine.TriggerAPI, time.Hour)
	require.NoError(t, err)
	require.True(t, created)

	ctx, cancel := context.WithTimeout(tab, 60*time.Second)
	defer cancel()
	_, err = chromedp.Call(ctx, cdppage.AddScriptToEvaluateOnNewDocument, cdppage.AddScriptToEvaluateOnNewDocumentParams{Source: recordViolations})
	require.NoError(t, err)
	run := func(what string, actions ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		require.NoError(t, chromedp.Do(ctx, actions...), what)
	}
	run("open the sign-in form", chromedp.Navigate(e.ts.URL+"/console/login?next="+url.QueryEscape("/console/queue/jobs?state=scheduled")),
		chromedp.WaitVisible(chromedp.ID("key")), chromedp.SendKeys(chromedp.ID("key"), e.admin))
	_, err = chromedp.Run(ctx, chromedp.WaitEvent(cdppage.LoadEventFired, nil,
		chromedp.Click(chromedp.CSS(`form[action="/console/login"] button[type=submit]`))))
	require.NoError(t, err, "sign in")
	listed, err := chromedp.Run(ctx, chromedp.Poll[bool](`document.body.innerText.includes("metadata_sync")`,
		chromedp.WithPollingInterval(100*time.Millisecond), chromedp.WithPollingTimeout(20*time.Second)))
	require.NoError(t, err, "River UI did not list the scheduled job")
	require.True(t, listed)
	loc, err := chromedp.Run(ctx, chromedp.Location())
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(loc, e.ts.URL+"/console/queue/jobs"), loc)
	// The way back to the console, first in the page, styled by the
	// console's own stylesheet.
	back, err := chromedp.Run(ctx, chromedp.Evaluate[string](`(() => {
		const a = document.querySelector("body > a.console-back");
		return a ? a.getAttribute("href") + " " + getComputedStyle(a).display + " " + a.textContent : "";
	})()`))
	require.NoError(t, err)
	require.Equal(t, "/console/ block ← Back to the console", back)

	// A change through River UI's API, with the browser's own Origin and
	// Sec-Fetch-Site.
	status, err := chromedp.Run(ctx, chromedp.Evaluate[int](`(async () => {
		const list = await (await fetch("/console/queue/api/jobs?state=scheduled")).json();
		const r = await fetch("/console/queue/api/jobs/cancel", {method: "POST",
			headers: {"Content-Type": "application/json"}, body: JSON.stringify({ids: list.data.map(j => String(j.id))})});
		return r.status;
	})()`, chromedp.EvalAwaitPromise))
	require.NoError(t, err)
	require.Equal(t, 200, status, "River UI's change was refused")
	run("open the cancelled jobs", chromedp.Navigate(e.ts.URL+"/console/queue/jobs?state=cancelled"))
	_, err = chromedp.Run(ctx, chromedp.Poll[bool](`document.body.innerText.includes("metadata_sync")`,
		chromedp.WithPollingInterval(100*time.Millisecond), chromedp.WithPollingTimeout(20*time.Second)))
	require.NoError(t, err, "the job was not cancelled")
	b.Screenshot(t, ctx, "queue-ui-csp")

	raw, err := chromedp.Run(ctx, chromedp.Evaluate[string](`JSON.stringify(window.__csp)`))
	require.NoError(t, err)
	var vs []violation
	require.NoError(t, json.Unmarshal([]byte(raw), &vs))
	for _, v := range vs {
		t.Logf("blocked: %+v", v)
		// zod's probe of whether it may compile parsers (try Function(""),
		// catch): it parses without, as it does on Cloudflare. goober's
		// <style id="_goober"> is blocked no more: queue.js gives goober a
		// sheet outside the document.
		zod := v.Directive == "script-src" && v.Blocked == "eval" && strings.Contains(v.Source, "/console/queue/assets/main-")
		require.True(t, zod, "the policy blocked part of River UI: %+v", v)
	}
	goober, err := chromedp.Run(ctx, chromedp.Evaluate[string](`(window._goober && !window._goober.isConnected ? "detached " : "") +
		(document.getElementById("_goober") ? "in the page" : "")`))
	require.NoError(t, err)
	require.Equal(t, "detached ", goober, "goober writes to queue.js's sheet, not the page")
	b.RequireStayedHome(t)
}
