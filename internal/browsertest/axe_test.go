package browsertest

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"
)

// strictCSP is the console's policy: no inline script, no eval. axe-core
// still runs, since it goes in through the DevTools protocol.
const strictCSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'"

// Axe finds what a page breaks under a strict Content-Security-Policy, and
// the layout check finds what sticks out of a phone's viewport.
func TestAxeAndFit(t *testing.T) {
	t.Parallel()
	b := Start(t)
	pages := map[string]string{
		"/bad": `<!doctype html><html><head><title>bad</title><meta name="viewport" content="width=device-width, initial-scale=1"><link rel="stylesheet" href="/fit.css"></head>
<body><main><h1>bad</h1><img src="/x.png"><p>A <span id="wide" class="wide">` + wideBlock + `</span></p><p id="text">` + wideBlock + `</p>` +
			`<div id="box" class="box"><p>` + wideBlock + `<span id="escapee" class="escapee">!</span></p></div><a id="in" href="/">home</a></main></body></html>`,
		"/good": `<!doctype html><html lang="en"><head><title>good</title><meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body><main><h1>good</h1><p>All <a href="/"><u>fine</u></a>.</p><nav aria-label="Main"><a id="in" href="/">home</a></nav></main></body></html>`,
	}
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/fit.css" {
			w.Header().Set("Content-Type", "text/css")
			_, _ = w.Write([]byte(".box { overflow-x: auto } .escapee { position: absolute; left: 600px }"))
			return
		}
		body, ok := pages[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Security-Policy", strictCSP)
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write([]byte(body))
	}))
	t.Cleanup(ts.Close)
	ctx, cancel := context.WithTimeout(b.Tab(), 60*time.Second)
	defer cancel()

	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(ts.URL+"/bad")))
	vs := b.Axe(t, ctx)
	rules := map[string]string{}
	for _, v := range vs {
		rules[v.ID] = v.Impact
	}
	require.Equal(t, "critical", rules["image-alt"], "%v", vs)
	require.Equal(t, "serious", rules["html-has-lang"], "%v", vs)
	require.Contains(t, AxeSummary(vs), "image-alt (critical, 1)")
	for _, v := range vs {
		if v.ID == "image-alt" {
			require.Equal(t, []string{"img"}, v.Nodes[0].Target)
		}
	}

	b.SetViewport(t, ctx, PhoneWidth, PhoneHeight, true)
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(ts.URL+"/bad")))
	r, err := fit(ctx, []string{"#in", "#nothing", "#wide"})
	require.NoError(t, err)
	require.Equal(t, float64(PhoneWidth), r.Viewport)
	require.Greater(t, r.ScrollWidth, float64(PhoneWidth))
	// The text in the scrolling box does not count; what escapes it does.
	require.Len(t, r.Overflowing, 3, "%v", r.Overflowing)
	require.Contains(t, r.Overflowing[0], "span#wide.wide")
	require.Contains(t, r.Overflowing[2], "span#escapee.escapee")
	require.Contains(t, r.Overflowing[2], "(positioned)")
	require.Contains(t, r.Overflowing[1], "p#text")
	require.Contains(t, r.Overflowing[1], "(its text)")
	require.Equal(t, []string{"#nothing"}, r.Missing)
	require.Len(t, r.Outside, 1)
	require.Contains(t, r.Outside[0], "#wide")

	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(ts.URL+"/good")))
	require.Empty(t, b.Axe(t, ctx), "a page with nothing wrong")
	require.Equal(t, PhoneWidth, b.RequireFits(t, ctx, "good", "nav a"))
	b.SetViewport(t, ctx, ViewportWidth, ViewportHeight, false)
}

// wideBlock is a word no browser breaks: 120 characters of it.
const wideBlock = "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
