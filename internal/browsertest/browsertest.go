// Package browsertest runs headless Chromium for the tests that drive the
// operator console and /docs through a real browser (cmd/seedengine's
// browser tests), with the network cut off: the browser can reach
// 127.0.0.1 and nothing else, and the test can prove it.
//
// Two fences keep the browser on loopback. Every host name resolves to
// nothing (--host-resolver-rules), and every request that does not go to
// a loopback address is sent to a proxy of the test's own, the tripwire,
// which records what arrived and lets nothing through. A test asserts
// both sides: a deliberate probe of an outside address fails and reaches
// the tripwire (so the fence is really in the way), and at the end no
// tab asked for anything beyond 127.0.0.1 and nothing else reached the
// tripwire.
package browsertest

import (
	"bufio"
	"bytes"
	"context"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// Viewport is the size of every tab: screenshots of it stay small enough to
// commit.
const (
	ViewportWidth  = 1280
	ViewportHeight = 800
)

// ProbeURLs are the outside addresses RequireOffline tries: a name and an
// address literal (TEST-NET-3, never routed), over HTTP and HTTPS.
var ProbeURLs = []string{"https://example.com/", "http://example.org/", "http://203.0.113.7/"}

// names Chromium goes by on the machines we run on, in the order tried.
var names = []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "headless_shell", "headless-shell", "chrome"}

// Chromium returns the browser program: $SEEDENGINE_CHROMIUM (which must
// run), else the first of the usual names on PATH. Without one the test
// is skipped, except under CI, where it fails: .ci/run installs Chromium,
// so a missing browser there is a broken setup, not a reason to skip.
func Chromium(tb testing.TB) string {
	tb.Helper()
	if p := os.Getenv("SEEDENGINE_CHROMIUM"); p != "" {
		found, err := exec.LookPath(p)
		if err != nil {
			tb.Fatalf("SEEDENGINE_CHROMIUM=%s: %v", p, err)
		}
		return found
	}
	for _, n := range names {
		if p, err := exec.LookPath(n); err == nil {
			return p
		}
	}
	if inCI() {
		tb.Fatalf("no Chromium found (SEEDENGINE_CHROMIUM, or one of %v on PATH); .ci/run installs it", names)
	}
	tb.Skipf("no Chromium found (set SEEDENGINE_CHROMIUM, or apt-get install chromium); the browser tests are skipped")
	return ""
}

// inCI reports whether CI is set to anything but a false value.
func inCI() bool {
	switch strings.ToLower(os.Getenv("CI")) {
	case "", "0", "false", "no", "off":
		return false
	}
	return true
}

// Browser is one headless Chromium with a fresh profile, started for one
// test and stopped when it ends.
type Browser struct {
	root      context.Context // the first tab; its context holds the browser
	tabs      []context.Context
	shot      bool // shootTabs ran
	wire      *tripwire
	artefacts string

	mu       sync.Mutex
	requests []string // every URL a tab asked for, in order
	output   bytes.Buffer
}

// Start starts Chromium headless, cut off from everything but loopback,
// with one tab open on about:blank. The browser lives until the test's
// cleanup, which first saves a screenshot of every tab if the test failed
// (failed-N.png among the artefacts).
func Start(t *testing.T) *Browser {
	t.Helper()
	path := Chromium(t)
	b := &Browser{wire: startTripwire(t), artefacts: artefactDir(t)}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		chromedp.NoSandbox, // the tests run as root in CI containers
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-default-apps", true),
		chromedp.Flag("disable-domain-reliability", true),
		chromedp.Flag("no-pings", true),
		chromedp.Flag("dns-prefetch-disable", true),
		// Fewer calls home to log: no field trials, network time,
		// optimisation hints or autofill queries.
		chromedp.Flag("disable-field-trial-config", true),
		chromedp.Flag("disable-features", "Translate,BlinkGenPropertyTrees,NetworkTimeServiceQuerying,OptimizationHints,OptimizationGuideModelDownloading,AutofillServerCommunication"),
		chromedp.NoFirstRun,
		// chromedp gives every browser a fresh --user-data-dir and removes
		// it (after any leftover child) when the browser ends.
		//
		// The fences: no name resolves but 127.0.0.1, and everything that
		// is not loopback (which Chromium never proxies) goes to the
		// tripwire. The two do not overlap: with a proxy the browser
		// resolves nothing itself, so the resolver rules only catch what
		// would slip past a proxy.
		chromedp.Flag("host-resolver-rules", "MAP * ~NOTFOUND , EXCLUDE 127.0.0.1"),
		chromedp.ProxyServer("http://"+b.wire.addr()),
		chromedp.WindowSize(ViewportWidth, ViewportHeight),
		chromedp.CombinedOutput(lockedWriter{&b.mu, &b.output}),
	)
	// Not t.Context(): that ends before the cleanups, and a failed test's
	// tabs are worth a look first.
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.WithoutCancel(t.Context()), opts...)
	tab, cancelTab := chromedp.NewContext(alloc)
	t.Cleanup(func() {
		if t.Failed() {
			b.shootTabs(t)
		}
		cancelTab()
		cancelAlloc() // waits for the browser to exit
		if t.Failed() {
			b.mu.Lock()
			t.Logf("chromium output:\n%s", tail(b.output.String(), 40))
			b.mu.Unlock()
		}
	})
	start := time.Now()
	if err := chromedp.Do(tab); err != nil { // starts the browser, bound to the test
		t.Fatalf("start %s: %v", path, err)
	}
	b.root = tab
	b.watch(t, tab)
	b.tabs = append(b.tabs, tab)
	t.Logf("chromium %s started in %v; screenshots go to %s", path, time.Since(start).Round(time.Millisecond), b.artefacts)
	return b
}

// Tab is the browser's first tab. Derive deadlines from it for each step
// (context.WithTimeout(b.Tab(), …)): a deadline on the tab's own context
// would end the browser.
func (b *Browser) Tab() context.Context { return b.root }

// NewTab opens another tab of the same browser (sharing its cookies),
// closed when the test ends.
func (b *Browser) NewTab(t *testing.T) context.Context {
	t.Helper()
	tab, cancel := chromedp.NewContext(b.root)
	t.Cleanup(func() {
		if t.Failed() {
			b.shootTabs(t)
		}
		cancel()
	})
	if err := chromedp.Do(tab); err != nil {
		t.Fatalf("open a tab: %v", err)
	}
	b.watch(t, tab)
	b.tabs = append(b.tabs, tab)
	return tab
}

// shootTabs saves a screenshot of every open tab, once.
func (b *Browser) shootTabs(t *testing.T) {
	if b.shot {
		return
	}
	b.shot = true
	for i, tab := range b.tabs {
		ctx, cancel := context.WithTimeout(tab, 5*time.Second)
		png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
		loc, _ := chromedp.Run(ctx, chromedp.Location())
		cancel()
		if err != nil {
			t.Logf("screenshot of tab %d: %v", i, err)
			continue
		}
		name := filepath.Join(b.artefacts, "failed-"+strconv.Itoa(i)+".png")
		if err := os.WriteFile(name, png, 0o644); err == nil {
			t.Logf("tab %d was at %s: %s", i, loc, name)
		}
	}
}

// watch records every request the tab's pages make and sizes its
// viewport.
func (b *Browser) watch(t *testing.T, tab context.Context) {
	t.Helper()
	err := chromedp.Listen(tab, func(ev any) {
		if e, ok := ev.(*network.EventRequestWillBeSent); ok && e.Request != nil {
			b.mu.Lock()
			b.requests = append(b.requests, e.Request.URL)
			b.mu.Unlock()
		}
	})
	if err == nil {
		err = chromedp.Do(tab, chromedp.EmulateViewport(ViewportWidth, ViewportHeight))
	}
	if err != nil {
		t.Fatalf("watch a tab: %v", err)
	}
}

// Requests are the URLs every tab asked for so far, in order.
func (b *Browser) Requests() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Clone(b.requests)
}

// Screenshot saves the tab's viewport as name.png in the artefact
// directory and returns the PNG.
func (b *Browser) Screenshot(t *testing.T, ctx context.Context, name string) []byte {
	t.Helper()
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	if err := os.WriteFile(filepath.Join(b.artefacts, name+".png"), png, 0o644); err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	return png
}

// ScreenshotDownTo is Screenshot of the page from its top down to the
// bottom of the first element sel (a CSS selector) matches, however far
// below the viewport that is, as wide as the viewport.
func (b *Browser) ScreenshotDownTo(t *testing.T, ctx context.Context, name, sel string) []byte {
	t.Helper()
	size, err := chromedp.Run(ctx, chromedp.Evaluate[[2]float64](
		`[window.innerWidth, document.querySelector(`+strconv.Quote(sel)+`).getBoundingClientRect().bottom + window.scrollY + 16]`))
	if err != nil {
		t.Fatalf("screenshot %s: find %s: %v", name, sel, err)
	}
	res, err := chromedp.Call(ctx, page.CaptureScreenshot, page.CaptureScreenshotParams{
		Format:                page.CaptureScreenshotFormatPng,
		Clip:                  &page.Viewport{Width: size[0], Height: size[1], Scale: 1},
		CaptureBeyondViewport: new(true),
	})
	if err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	if err := os.WriteFile(filepath.Join(b.artefacts, name+".png"), res.Data, 0o644); err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	return res.Data
}

// RequireOffline checks the fences from inside a tab: navigating to each
// of ProbeURLs fails, a page's fetch of each fails, and each reached the
// tripwire, so it is the fence that stopped it. The tab is left on
// about:blank.
func (b *Browser) RequireOffline(t *testing.T, tab context.Context) {
	t.Helper()
	ctx, cancel := context.WithTimeout(tab, 20*time.Second)
	defer cancel()
	for _, u := range ProbeURLs {
		err := chromedp.Do(ctx, chromedp.Navigate(u))
		if err == nil {
			loc, _ := chromedp.Run(ctx, chromedp.Location())
			t.Fatalf("navigating to %s succeeded (now at %s): the browser is not cut off", u, loc)
		}
		t.Logf("navigate to %s: %v, as it should", u, err)
	}
	if err := chromedp.Do(ctx, chromedp.Navigate("about:blank")); err != nil {
		t.Fatalf("navigate to about:blank: %v", err)
	}
	for _, u := range ProbeURLs {
		got, err := chromedp.Run(ctx, chromedp.Evaluate[string](
			`fetch(`+strconv.Quote(u)+`, {mode: "no-cors", cache: "no-store"}).then(() => "reached", e => "failed: " + e)`,
			chromedp.EvalAwaitPromise))
		if err != nil {
			t.Fatalf("fetch %s from the page: %v", u, err)
		}
		if !strings.HasPrefix(got, "failed") {
			t.Fatalf("the page fetched %s: %s", u, got)
		}
	}
	hosts := map[string]bool{}
	for _, h := range b.wire.seen() {
		hosts[h.host] = true
	}
	for _, u := range ProbeURLs {
		if !hosts[hostname(u)] {
			t.Fatalf("%s failed but never reached the tripwire (it saw %v): what stopped it?", u, b.wire.seen())
		}
	}
}

// RequireStayedHome fails unless every request of every tab went to
// 127.0.0.1 (or was a data:, blob: or about: URL), and nothing but
// RequireOffline's probes and the browser's own calls home (see
// vendorHost) reached the tripwire. Those calls home are logged: the
// tripwire stopped them, and which ones a given Chromium makes changes
// from one version to the next.
func (b *Browser) RequireStayedHome(t *testing.T) {
	t.Helper()
	away, leaked, vendor, n := b.escapes()
	if len(away) > 0 {
		t.Errorf("pages asked for something beyond 127.0.0.1: %q", away)
	}
	if len(leaked) > 0 {
		t.Errorf("the browser tried to leave loopback: %q", leaked)
	}
	if len(vendor) > 0 {
		t.Logf("the tripwire stopped the browser's own calls home: %q", vendor)
	}
	t.Logf("%d page requests, %d beyond 127.0.0.1 besides the probes", n, len(away))
}

// escapes sorts what tried to leave loopback: the pages' requests that
// did (away), what reached the tripwire that was neither a probe nor the
// browser's own (leaked) and the browser's own (vendor); n is how many
// requests the pages made.
func (b *Browser) escapes() (away, leaked, vendor []string, n int) {
	b.mu.Lock()
	reqs := slices.Clone(b.requests)
	b.mu.Unlock()
	for _, r := range reqs {
		if !local(r) && !probe(hostname(r)) {
			away = append(away, r)
		}
	}
	for _, h := range b.wire.seen() {
		switch {
		case probe(h.host):
		case vendorHost(h.host):
			vendor = append(vendor, h.line)
		default:
			leaked = append(leaked, h.line)
		}
	}
	return away, leaked, vendor, len(reqs)
}

func local(raw string) bool {
	u, err := url.Parse(raw)
	if err != nil {
		return false
	}
	switch u.Scheme {
	case "data", "blob", "about":
		return true
	case "http", "https", "ws", "wss":
		return u.Hostname() == "127.0.0.1"
	}
	return false
}

func hostname(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	return u.Hostname()
}

// probe reports whether host is one of ProbeURLs' (Chromium upgrades an
// http:// navigation to https://, so the scheme can differ).
func probe(host string) bool {
	return slices.ContainsFunc(ProbeURLs, func(u string) bool { return hostname(u) == host })
}

// vendorHost reports whether host is one the browser calls on its own,
// whatever the page: Google's update, time and account services.
// Anything a page asks for shows up in its requests too, and fails there.
func vendorHost(host string) bool {
	for _, d := range []string{"google.com", "googleapis.com", "gvt1.com"} {
		if host == d || strings.HasSuffix(host, "."+d) {
			return true
		}
	}
	return false
}

// artefactDir is $SEEDENGINE_ARTEFACTS (created if needed), else the
// test's artefact directory (kept by go test -artifacts, else removed).
func artefactDir(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("SEEDENGINE_ARTEFACTS")
	if dir == "" {
		return t.ArtifactDir()
	}
	dir = filepath.Join(dir, strings.ReplaceAll(t.Name(), "/", "_"))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatalf("SEEDENGINE_ARTEFACTS: %v", err)
	}
	return dir
}

// tripwire is the browser's only proxy. It reads each request's first
// line and headers, records where it wanted to go, and hangs up without
// an answer, so the request fails in the browser as a network error.
type tripwire struct {
	ln   net.Listener
	mu   sync.Mutex
	hits []hit
}

// hit is one request that reached the tripwire.
type hit struct {
	host string // where it wanted to go
	line string // its method and URL (host:port for CONNECT)
}

func startTripwire(t *testing.T) *tripwire {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("tripwire: %v", err)
	}
	w := &tripwire{ln: ln}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go w.refuse(c)
		}
	}()
	t.Cleanup(func() {
		_ = ln.Close()
		<-done
	})
	return w
}

func (w *tripwire) addr() string { return w.ln.Addr().String() }

func (w *tripwire) refuse(c net.Conn) {
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(5 * time.Second))
	br := bufio.NewReader(c)
	if _, err := br.Peek(1); err != nil {
		return // a connection opened ahead of need and never used
	}
	h := hit{line: "unreadable request"}
	if req, err := http.ReadRequest(br); err == nil {
		h.line = req.Method + " " + req.URL.String()
		if req.Method == http.MethodConnect {
			h.line = req.Method + " " + req.Host
		}
		h.host = req.Host
		if host, _, err := net.SplitHostPort(req.Host); err == nil {
			h.host = host
		}
	}
	w.mu.Lock()
	w.hits = append(w.hits, h)
	w.mu.Unlock()
}

func (w *tripwire) seen() []hit {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.hits)
}

// lockedWriter appends to a buffer under the browser's lock.
type lockedWriter struct {
	mu  *sync.Mutex
	buf *bytes.Buffer
}

func (w lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.Write(p)
}

func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
