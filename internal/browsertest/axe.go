package browsertest

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// axeSource is axe-core 4.14.1 (MPL-2.0), as published on npm; see
// testdata/README.md.
//
//go:embed testdata/axe.min.js
var axeSource string

// Phone is the viewport of the phone-sized checks: an iPhone 12 to 15's
// CSS pixels.
const (
	PhoneWidth  = 390
	PhoneHeight = 844
)

// AxeViolation is one axe-core rule a page breaks, with the elements that
// break it.
type AxeViolation struct {
	ID     string    `json:"id"`     // the rule: "color-contrast", "link-in-text-block"
	Impact string    `json:"impact"` // "minor", "moderate", "serious" or "critical"
	Help   string    `json:"help"`   // what the rule asks, in a line
	URL    string    `json:"helpUrl"`
	Nodes  []AxeNode `json:"nodes"`
}

// AxeNode is one element that breaks a rule.
type AxeNode struct {
	Target  []string `json:"target"`  // CSS selectors, one per frame
	HTML    string   `json:"html"`    // the element's opening tag, shortened
	Summary string   `json:"summary"` // axe's failure summary: what to fix
}

// Serious reports whether the violation is one RequireAccessible fails on.
func (v AxeViolation) Serious() bool { return v.Impact == "serious" || v.Impact == "critical" }

// String is the violation as a test log shows it: rule, impact, help and
// each element's selector.
func (v AxeViolation) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s (%s): %s", v.ID, v.Impact, v.Help)
	for _, n := range v.Nodes {
		fmt.Fprintf(&b, "\n    %s", strings.Join(n.Target, " "))
		if s := strings.TrimSpace(n.Summary); s != "" {
			fmt.Fprintf(&b, " — %s", strings.ReplaceAll(s, "\n", " "))
		}
	}
	return b.String()
}

// runAxe runs axe-core's default rules (WCAG 2.x A and AA and best
// practices) on the document and returns its violations as JSON, trimmed to
// what AxeViolation holds.
const runAxe = `axe.run(document, {resultTypes: ["violations"]}).then(r => JSON.stringify(r.violations.map(v => ({
	id: v.id, impact: v.impact, help: v.help, helpUrl: v.helpUrl,
	nodes: v.nodes.map(n => ({target: n.target.map(String), html: n.html.slice(0, 200), summary: n.failureSummary || ""}))}))))`

// Axe runs axe-core 4.14.1 on the page the tab shows and returns every
// violation, of any impact. The script goes in through the DevTools
// protocol (Runtime.evaluate), which the page's Content-Security-Policy
// does not govern: the console's strict policy stays as it is.
func (b *Browser) Axe(t *testing.T, ctx context.Context) []AxeViolation {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	loaded, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`typeof window.axe === "object"`))
	if err != nil {
		t.Fatalf("axe: %v", err)
	}
	if !loaded {
		if _, err := chromedp.Run(ctx, chromedp.Evaluate[chromedp.Void](axeSource+"\n;undefined")); err != nil {
			t.Fatalf("axe: inject axe-core: %v", err)
		}
	}
	raw, err := chromedp.Run(ctx, chromedp.Evaluate[string](runAxe, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("axe: run: %v", err)
	}
	var vs []AxeViolation
	if err := json.Unmarshal([]byte(raw), &vs); err != nil {
		t.Fatalf("axe: read its result: %v", err)
	}
	return vs
}

// RequireAccessible runs Axe on the tab's page and fails the test (going
// on with the next step) for each violation of impact serious or
// critical, naming its rule, impact, help text and the elements' selectors;
// what names the page in the messages. Lesser violations are logged. It
// returns every violation, for a summary.
func (b *Browser) RequireAccessible(t *testing.T, ctx context.Context, what string) []AxeViolation {
	t.Helper()
	vs := b.Axe(t, ctx)
	for _, v := range vs {
		if v.Serious() {
			t.Errorf("%s: axe: %s", what, v)
		} else {
			t.Logf("%s: axe, not failing: %s", what, v)
		}
	}
	return vs
}

// AxeSummary is violations as one line: each rule with its impact and how
// many elements break it ("none" for none), for a before-and-after table.
func AxeSummary(vs []AxeViolation) string {
	if len(vs) == 0 {
		return "none"
	}
	parts := make([]string, 0, len(vs))
	for _, v := range vs {
		parts = append(parts, v.ID+" ("+v.Impact+", "+strconv.Itoa(len(v.Nodes))+")")
	}
	slices.Sort(parts)
	return strings.Join(parts, ", ")
}

// SetViewport sizes the tab's viewport, as a phone when mobile (the page's
// meta viewport applies, touch events are on). Navigate again, or let the
// page reflow, before measuring.
func (b *Browser) SetViewport(t *testing.T, ctx context.Context, width, height int64, mobile bool) {
	t.Helper()
	var opts []chromedp.EmulateViewportOption
	if mobile {
		opts = append(opts, chromedp.EmulatePortrait, chromedp.EmulateMobile, chromedp.EmulateTouch)
	}
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(width, height, opts...)); err != nil {
		t.Fatalf("set the viewport to %d×%d: %v", width, height, err)
	}
}

// fitReport is what measureFit finds.
type fitReport struct {
	Viewport    float64  `json:"viewport"`    // the layout viewport's width
	ScrollWidth float64  `json:"scrollWidth"` // the document's
	Overflowing []string `json:"overflowing"` // the outermost elements past the right edge
	Missing     []string `json:"missing"`     // selectors that matched nothing visible
	Outside     []string `json:"outside"`     // elements not wholly within the viewport's width
}

// measureFit measures the document against the viewport's width, and the
// elements of the selectors given (a JSON array) against it.
const measureFit = `((sels) => {
	const de = document.documentElement, vw = de.clientWidth;
	const name = el => el.tagName.toLowerCase() + (el.id ? "#" + el.id : "") +
		(el.classList.length ? "." + Array.from(el.classList).join(".") : "") +
		(el.textContent.trim() ? " “" + el.textContent.trim().replace(/\s+/g, " ").slice(0, 40) + "”" : "");
	const over = [];
	// state: "none" outside any box that scrolls or clips; "clip" inside
	// one, where an absolutely positioned element with no positioned
	// ancestor inside the box escapes it (and may widen the page);
	// "contained" inside one, below a positioned element, where only a
	// fixed element escapes.
	const walk = (el, state) => {
		const before = over.length;
		for (const c of el.children) {
			const r = c.getBoundingClientRect(), s = getComputedStyle(c);
			const out = s.position === "fixed" || (s.position === "absolute" && state === "clip");
			if (r.width > 0 && r.right + window.scrollX > vw + 0.5 && (state === "none" || out)) {
				over.push(name(c) + (out ? " (positioned)" : "") + " right=" + Math.round(r.right + window.scrollX));
				continue;
			}
			let next = out ? "none" : state;
			if (next === "none" && s.overflowX !== "visible") next = s.position === "static" ? "clip" : "contained";
			else if (next === "clip" && s.position !== "static") next = "contained";
			walk(c, next);
		}
		// A box that fits but whose own text runs out of it.
		if (state === "none" && over.length === before && el !== document.body && el.scrollWidth > el.clientWidth + 1 &&
			getComputedStyle(el).overflowX === "visible" && el.getBoundingClientRect().left + el.scrollWidth > vw + 0.5) {
			over.push(name(el) + " (its text) right=" + Math.round(el.getBoundingClientRect().left + window.scrollX + el.scrollWidth));
		}
	};
	walk(document.body, "none");
	const missing = [], outside = [];
	for (const sel of sels) {
		const els = Array.from(document.querySelectorAll(sel)).filter(e => e.getClientRects().length > 0);
		if (!els.length) { missing.push(sel); continue; }
		for (const e of els) {
			const r = e.getBoundingClientRect();
			if (r.left + window.scrollX < -0.5 || r.right + window.scrollX > vw + 0.5) outside.push(sel + ": " + name(e) + " spans " + Math.round(r.left) + "–" + Math.round(r.right));
		}
	}
	return JSON.stringify({viewport: vw, scrollWidth: de.scrollWidth, overflowing: over.slice(0, 12), missing, outside});
})`

// RequireFits fails the test (going on) when the tab's page scrolls
// sideways, that is when the document is wider than the viewport
// (documentElement.scrollWidth > clientWidth), naming the outermost
// elements that stick out; and for each selector given, when it matches no
// visible element or an element that is not wholly within the viewport's
// width (the nav links, "Sign out"). It returns the document's width.
func (b *Browser) RequireFits(t *testing.T, ctx context.Context, what string, selectors ...string) int {
	t.Helper()
	r, err := fit(ctx, selectors)
	if err != nil {
		t.Fatalf("%s: measure the layout: %v", what, err)
	}
	if r.ScrollWidth > r.Viewport {
		t.Errorf("%s: the page is %.0f px wide in a %.0f px viewport: it scrolls sideways; sticking out: %s",
			what, r.ScrollWidth, r.Viewport, strings.Join(r.Overflowing, "; "))
	}
	for _, m := range r.Missing {
		t.Errorf("%s: nothing visible matches %s", what, m)
	}
	for _, o := range r.Outside {
		t.Errorf("%s: outside the %.0f px viewport: %s", what, r.Viewport, o)
	}
	return int(r.ScrollWidth)
}

func fit(ctx context.Context, selectors []string) (fitReport, error) {
	var r fitReport
	sels, err := json.Marshal(append([]string{}, selectors...))
	if err != nil {
		return r, err
	}
	raw, err := chromedp.Run(ctx, chromedp.Evaluate[string](measureFit+"("+string(sels)+")"))
	if err != nil {
		return r, err
	}
	err = json.Unmarshal([]byte(raw), &r)
	return r, err
}
