package main_test

import (
	"context"
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine/internal/browsertest"
	"github.com/seedengine/seedengine/internal/simweb"
	"github.com/seedengine/seedengine/internal/simweb/simwebtest"
)

// payload is a script that, run in a page of the service's origin, would
// mint an admin key on a service without keys (what an outside probe did
// through an archived page) and, whatever the origin, asks for /pwned/…
// so a test sees that it ran.
func payload(kind string) string {
	return `fetch('/api/v1/keys',{method:'POST',headers:{'Content-Type':'application/json'},` +
		`body:JSON.stringify({name:'pwned-` + kind + `',scope:'admin'})});` +
		`fetch('/pwned/fetch-` + kind + `');new Image().src='/pwned/img-` + kind + `';`
}

// hostilePages are pages a publisher could serve, each running payload
// when a browser renders it as a document.
var hostilePages = []struct {
	path, contentType, body string
}{
	{"/a/html", "text/html; charset=utf-8", `<!doctype html><html><head><title>story</title></head><body><p>Story</p>` +
		`<script>` + payload("html") + `</script><img src="x" onerror="` + strings.ReplaceAll(payload("html-onerror"), `'`, `&#39;`) + `"></body></html>`},
	{"/a/svg", "image/svg+xml", `<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><script>` + payload("svg") + `</script></svg>`},
	{"/a/xhtml", "application/xhtml+xml", `<?xml version="1.0"?><html xmlns="http://www.w3.org/1999/xhtml"><head><title>x</title></head>` +
		`<body><script>` + payload("xhtml") + `</script></body></html>`},
	{"/a/xml", "text/xml", `<?xml version="1.0"?><doc><html:script xmlns:html="http://www.w3.org/1999/xhtml">` + payload("xml") + `</html:script></doc>`},
	// A page with no type: a browser would sniff it.
	{"/a/untyped", "", `<html><body><script>` + payload("untyped") + `</script></body></html>`},
	// Two payloads twice each, under two types: the second fetched of
	// each pair is a revisit, served with its own response's type.
	{"/a/same-text", "text/plain; charset=utf-8", `<script>` + payload("revisit-a") + `</script>`},
	{"/a/same-html", "text/html; charset=utf-8", `<script>` + payload("revisit-a") + `</script>`},
	{"/a/other-html", "text/html; charset=utf-8", `<p><script>` + payload("revisit-b") + `</script></p>`},
	{"/a/other-text", "text/plain; charset=utf-8", `<p><script>` + payload("revisit-b") + `</script></p>`},
}

// Bytes from outside never run in the service's origin: a keyless serve
// archives a publisher's pages whose script would mint an admin key, and
// every GET route of the API, read from the OpenAPI document so that a
// new route is covered the day it is added, is fetched (each answer has
// nosniff and a sandbox policy, and is an attachment unless its type
// cannot script) and opened in Chromium: no payload runs, nothing is asked
// of the service but the page itself, and no key exists in the end. The
// same payloads served without those headers do run in the same browser,
// so the test would see it if they ran.
func TestOutsideBytesNeverRun(t *testing.T) {
	t.Parallel()
	b := browsertest.Start(t)
	tab := b.Tab()
	ctx, cancel := context.WithTimeout(tab, 5*time.Minute)
	defer cancel()
	_, err := chromedp.Call(ctx, browser.SetDownloadBehavior, browser.SetDownloadBehaviorParams{Behavior: browser.SetDownloadBehaviorBehaviorDeny})
	require.NoError(t, err)

	// The control: the payloads, as a careless server would send them.
	var mu sync.Mutex
	var pwned []string
	control := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/pwned/") || r.URL.Path == "/api/v1/keys" {
			mu.Lock()
			pwned = append(pwned, r.Method+" "+r.URL.Path)
			mu.Unlock()
			return
		}
		for _, p := range hostilePages[:3] {
			if p.path == r.URL.Path {
				w.Header().Set("Content-Type", p.contentType)
				_, _ = w.Write([]byte(p.body))
				return
			}
		}
		http.NotFound(w, r)
	}))
	t.Cleanup(control.Close)
	for _, p := range hostilePages[:3] {
		require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(control.URL+p.path)))
		kind := strings.TrimPrefix(p.path, "/a/")
		require.Eventually(t, func() bool {
			mu.Lock()
			defer mu.Unlock()
			return slices.Contains(pwned, "GET /pwned/fetch-"+kind) && slices.Contains(pwned, "POST /api/v1/keys")
		}, 10*time.Second, 50*time.Millisecond, "the %s payload runs when served without protection (saw %v)", kind, pwned)
	}

	// The publisher: a feed of the hostile pages, whose titles are
	// hostile too.
	const host = "hostile-news.com.sg"
	pages := map[string]simweb.Page{}
	var feed strings.Builder
	feed.WriteString(`<?xml version="1.0"?><rss version="2.0"><channel><title>&lt;script&gt;` + payload("title") + `&lt;/script&gt;</title><link>https://` + host + `/</link>`)
	for i, p := range hostilePages {
		ct := p.contentType
		if ct == "" {
			ct = simweb.NoContentType
		}
		pages[p.path] = simweb.Page{ContentType: ct, Body: []byte(p.body)}
		fmt.Fprintf(&feed, `<item><title>&lt;script&gt;%s&lt;/script&gt;</title><link>https://%s%s</link><pubDate>%s</pubDate></item>`,
			payload("item"), host, p.path, time.Now().Add(-time.Duration(i)*time.Minute).UTC().Format(time.RFC1123Z))
	}
	feed.WriteString(`</channel></rss>`)
	pages["/feed"] = simweb.Page{ContentType: "application/rss+xml", Body: []byte(feed.String())}
	web := simwebtest.Start(t)
	web.AddSite(simweb.Site{Host: host, Pages: pages})
	ca, err := web.WriteCAFile(t.TempDir())
	require.NoError(t, err)

	dataDir := t.TempDir()
	s := startServer(t, dataDir, "--dns-server", web.DNSAddr(), "--connect-to", strings.Join(web.ConnectTo(), ","),
		"--extra-ca-file", ca, "--allow-private-networks", "127.0.0.0/8", "--per-host-delay", "0s",
		"--seed-check-interval", "1s", "--harvest-min-interval", "1s", "--warc-max-age", "2s", "--item-file-age", "1s",
		"--rate-limit", "10000") // it asks for every route at once, and the limit is not what is tested
	const seedID = "media:sg:" + host + "::news"
	r := s.do(t, "POST", "/api/v1/seeds", "", map[string]any{"domain_id": "media:sg:" + host, "category": "news",
		"harvest": map[string]any{"pages": true}, "fetch": map[string]any{"type": "rss", "entry_url": "https://" + host + "/feed"}})
	require.Equal(t, 201, r.status, "body: %s", r.raw)
	r = s.do(t, "POST", "/api/v1/seeds/promote", "", map[string]any{"seedId": seedID})
	require.Equal(t, 200, r.status, "body: %s", r.raw)
	r = s.do(t, "POST", "/api/v1/research", "", map[string]any{"country": "sg", "category": "news",
		"urls": []string{"https://" + host + "/<script>" + url.PathEscape(payload("research")) + "</script>"}})
	require.Equal(t, 201, r.status, "body: %s", r.raw)

	// Every hostile page stored.
	byPath := map[string]int64{}
	var date string
	require.Eventually(t, func() bool {
		r := s.do(t, "GET", "/api/v1/items?limit=100", "", nil)
		require.Equal(t, 200, r.status, "body: %s", r.raw)
		items, _ := r.body["items"].([]any)
		stored := 0
		for _, x := range items {
			it := x.(map[string]any)
			u, err := url.Parse(it["url"].(string))
			require.NoError(t, err)
			byPath[u.Path] = int64(it["id"].(float64))
			date, _ = it["date"].(string)
			if page, _ := it["page"].(map[string]any); page != nil && page["state"] == "stored" {
				stored++
			}
		}
		return stored == len(hostilePages)
	}, 2*time.Minute, 200*time.Millisecond, "every hostile page stored")

	// A revisit is served with its own response's Content-Type.
	for _, p := range hostilePages {
		id := strconv.FormatInt(byPath[p.path], 10)
		c := s.do(t, "GET", "/api/v1/items/"+id+"/page/content", "", nil)
		require.Equal(t, 200, c.status, "%s: %s", p.path, c.raw)
		want := p.contentType
		if want == "" {
			want = "application/octet-stream"
		}
		require.Equal(t, want, c.header.Get("Content-Type"), p.path)
		require.Equal(t, "200", c.header.Get("X-Page-Status"), p.path)
		require.Equal(t, p.body, string(c.raw), p.path)
	}
	revisits := 0
	for _, p := range hostilePages {
		r := s.do(t, "GET", "/api/v1/items/"+strconv.FormatInt(byPath[p.path], 10)+"/page", "", nil)
		if r.body["revisit"] == true {
			revisits++
		}
	}
	require.Equal(t, 2, revisits, "one of each pair of pages with one payload is a revisit")

	// Every GET route, with the ids of what is stored where it takes one.
	var doc struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	r = s.do(t, "GET", "/openapi.json", "", nil)
	require.NoError(t, json.Unmarshal(r.raw, &doc))
	fill := strings.NewReplacer("{country}", "sg", "{category}", "news", "{date}", date, "{chunk}", "raw_0001",
		"{seedId}", url.PathEscape(seedID), "{domainId}", url.PathEscape("media:sg:"+host), "{file}", "items_0001",
		"{batchId}", "01JBATCHDOESNOTEXIST000000", "{id}", "1", "{keyId}", "1", "{version}", "0", "{file}", "x")
	var paths []string
	for tmpl, ops := range doc.Paths {
		if _, ok := ops["get"]; !ok || strings.HasPrefix(tmpl, "/console") {
			continue
		}
		if strings.Contains(tmpl, "{itemId}") {
			for _, p := range hostilePages {
				paths = append(paths, strings.ReplaceAll(fill.Replace(tmpl), "{itemId}", strconv.FormatInt(byPath[p.path], 10)))
			}
			continue
		}
		paths = append(paths, fill.Replace(tmpl))
	}
	paths = append(paths, "/api/v1/seeds/export?format=opml", "/api/v1/seeds/export?format=csv", "/api/v1/items/export?since=0")
	slices.Sort(paths)
	require.Greater(t, len(paths), 40)
	for _, p := range paths {
		r := s.do(t, "GET", p, "", nil)
		require.NotEqual(t, 500, r.status, "GET %s: %s", p, r.raw)
		require.Equal(t, "nosniff", r.header.Get("X-Content-Type-Options"), "GET %s", p)
		if p == "/docs" {
			continue // our own page, with its own policy
		}
		require.Contains(t, r.header.Get("Content-Security-Policy"), "sandbox", "GET %s", p)
		require.Contains(t, r.header.Get("Content-Security-Policy"), "default-src 'none'", "GET %s", p)
		if strings.HasPrefix(p, "/api/") {
			mt, _, _ := mime.ParseMediaType(r.header.Get("Content-Type"))
			switch mt {
			case "application/json", "application/problem+json", "application/x-ndjson", "text/plain", "text/csv":
			default:
				require.True(t, strings.HasPrefix(r.header.Get("Content-Disposition"), "attachment"),
					"GET %s: a %q body is an attachment (%q)", p, mt, r.header.Get("Content-Disposition"))
			}
		}
	}

	// The browser opens each; nothing but the page itself is asked for.
	for _, p := range paths {
		before := len(b.Requests())
		_ = chromedp.Do(ctx, chromedp.Navigate(s.base+p)) // an attachment aborts the navigation
		time.Sleep(150 * time.Millisecond)                // a script would have run by now
		for _, req := range b.Requests()[before:] {
			u, err := url.Parse(req)
			require.NoError(t, err)
			require.False(t, strings.HasPrefix(u.Path, "/pwned/") || u.Path == "/api/v1/keys" && p != "/api/v1/keys",
				"opening %s asked for %s", p, req)
		}
	}
	mu.Lock()
	controlRuns := len(pwned)
	mu.Unlock()
	r = s.do(t, "GET", "/api/v1/keys", "", nil)
	require.Equal(t, 200, r.status, "body: %s", r.raw)
	require.Empty(t, r.body["items"], "no key was minted")
	for _, l := range s.logLines() {
		if l["event"] == "http_request" {
			path, _ := l["path"].(string)
			require.False(t, strings.HasPrefix(path, "/pwned/") || l["method"] == "POST" && path == "/api/v1/keys", "the service was asked %v", l)
		}
	}
	t.Logf("%d routes opened; the unprotected control ran its payloads %d times", len(paths), controlRuns)
	b.RequireStayedHome(t)
}
