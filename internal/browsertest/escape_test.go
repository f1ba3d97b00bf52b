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

// A page on 127.0.0.1 that loads an image from outside: the request shows
// among the pages' and at the tripwire, and the image does not load.
func TestEscapeIsSeen(t *testing.T) {
	t.Parallel()
	b := Start(t)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write([]byte(`<!doctype html><title>leaky</title><img id="i" src="https://cdn.outside.example/logo.png">`))
	}))
	t.Cleanup(ts.Close)
	ctx, cancel := context.WithTimeout(b.Tab(), 20*time.Second)
	defer cancel()
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(ts.URL)))
	loaded, err := chromedp.Run(ctx, chromedp.Poll[bool](`document.getElementById("i").complete && document.getElementById("i").naturalWidth === 0`,
		chromedp.WithPollingTimeout(10*time.Second)))
	require.NoError(t, err)
	require.True(t, loaded, "the image failed")
	require.Eventually(t, func() bool {
		_, leaked, _, _ := b.escapes()
		return len(leaked) > 0
	}, 10*time.Second, 20*time.Millisecond, "the image request never reached the tripwire")
	away, leaked, _, _ := b.escapes()
	require.Equal(t, []string{"https://cdn.outside.example/logo.png"}, away)
	require.Contains(t, leaked, "CONNECT cdn.outside.example:443")
}
