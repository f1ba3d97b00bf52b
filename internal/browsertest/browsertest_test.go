package browsertest_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine/internal/browsertest"
)

// The fences hold: the probes fail at the tripwire, a page on 127.0.0.1
// loads, and its attempt to load an image from outside shows up as a
// request beyond loopback.
func TestBrowserIsCutOff(t *testing.T) {
	t.Parallel()
	b := browsertest.Start(t)
	b.RequireOffline(t, b.Tab())

	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write([]byte(`<!doctype html><title>home</title><h1 id="h">at home</h1>`))
	}))
	t.Cleanup(ts.Close)
	ctx, cancel := context.WithTimeout(b.Tab(), 20*time.Second)
	defer cancel()
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(ts.URL), chromedp.WaitVisible(chromedp.ID("h"))))
	text, err := chromedp.Run(ctx, chromedp.Text(chromedp.ID("h")))
	require.NoError(t, err)
	require.Equal(t, "at home", text)
	b.RequireStayedHome(t)
}
