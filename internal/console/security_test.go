package console_test

import (
	"crypto/sha256"
	"encoding/base64"
	"html"
	"io"
	"maps"
	"net/http"
	"net/netip"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine/internal/console"
)

// csp splits a Content-Security-Policy into its directives' sources.
func csp(t *testing.T, header string) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	for d := range strings.SplitSeq(header, ";") {
		f := strings.Fields(d)
		if len(f) == 0 {
			continue
		}
		_, dup := out[f[0]]
		require.False(t, dup, "directive %s twice in %q", f[0], header)
		out[f[0]] = f[1:]
	}
	return out
}

// requireStrict holds a policy to the console's promise: everything from
// this origin only, no inline code but by hash, no framing.
func requireStrict(t *testing.T, p map[string][]string) {
	t.Helper()
	require.Equal(t, []string{"'self'"}, p["default-src"])
	require.Equal(t, []string{"'self'"}, p["connect-src"])
	require.Equal(t, []string{"'none'"}, p["frame-ancestors"])
	require.Equal(t, []string{"'none'"}, p["object-src"])
	require.Equal(t, []string{"'none'"}, p["base-uri"])
	for _, d := range []string{"script-src", "style-src"} {
		require.NotEmpty(t, p[d], d)
		require.Equal(t, "'self'", p[d][0], d)
		for _, src := range p[d][1:] {
			require.Regexp(t, `^'sha256-[A-Za-z0-9+/]{43}='$`, src, "%s allows only this origin and hashes", d)
		}
	}
}

var (
	scriptRE = regexp.MustCompile(`(?is)<script\b([^>]*)>(.*?)</script\s*>`)
	srcRE    = regexp.MustCompile(`(?i)\bsrc\s*=\s*"([^"]*)"`)
	styleRE  = regexp.MustCompile(`(?i)<link\b[^>]*\brel="stylesheet"[^>]*\bhref="([^"]*)"`)
)

func sha(s string) string {
	sum := sha256.Sum256([]byte(s))
	return "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
}

// River UI's page is held to the same strict policy as the console's own:
// each of its inline scripts is allowed by its hash and nothing else
// inline is; its scripts, styles and API come from this origin.
func TestQueueUICSP(t *testing.T) {
	t.Parallel()
	e := setupWith(t, options{riverUI: true})
	b := e.browser(t)
	require.Equal(t, http.StatusSeeOther, b.signIn(e.admin).StatusCode)

	own := csp(t, b.get("/console/").Header.Get("Content-Security-Policy"))
	requireStrict(t, own)
	require.Equal(t, []string{"'self'"}, own["script-src"], "the console's pages have no inline script")
	require.Equal(t, []string{"'self'"}, own["style-src"])

	for _, path := range []string{"/console/queue/", "/console/queue/jobs?state=completed", "/console/queue/queues"} {
		p := b.get(path)
		require.Equal(t, http.StatusOK, p.StatusCode, path)
		require.Contains(t, p.Header.Get("Content-Type"), "text/html", path)
		pol := csp(t, p.Header.Get("Content-Security-Policy"))
		requireStrict(t, pol)
		inline := 0
		for _, m := range scriptRE.FindAllStringSubmatch(p.body, -1) {
			if srcRE.MatchString(m[1]) {
				continue
			}
			inline++
			require.Contains(t, pol["script-src"], sha(m[2]), "%s: inline script %q is not allowed by script-src", path, m[2])
		}
		require.NotZero(t, inline, "%s: River UI's page has its config inline; the test would prove nothing", path)
		require.NotContains(t, strings.ToLower(p.body), "<style", path)
		require.NotRegexp(t, `(?i)\sstyle=`, p.body, "a style attribute would need 'unsafe-inline'")

		// Its script and stylesheet load from the console's origin, and
		// the scripts hold the styles the policy allows, word for word.
		var js string
		for _, m := range scriptRE.FindAllStringSubmatch(p.body, -1) {
			if s := srcRE.FindStringSubmatch(m[1]); s != nil {
				// River UI's own, and the console's queue.js.
				require.True(t, strings.HasPrefix(s[1], "/console/queue/") || s[1] == "/console/static/queue.js", s[1])
				a := b.get(html.UnescapeString(s[1]))
				require.Equal(t, http.StatusOK, a.StatusCode, s[1])
				js += a.body
			}
		}
		require.NotEmpty(t, js, path)
		for _, s := range console.RiverUIStyles {
			require.Contains(t, js, s, "River UI no longer adds this style; drop it from riverUIStyles")
			require.Contains(t, pol["style-src"], sha(s))
		}
		css := styleRE.FindStringSubmatch(p.body)
		require.NotNil(t, css, path)
		require.True(t, strings.HasPrefix(css[1], "/console/queue/"), css[1])
		require.Equal(t, http.StatusOK, b.get(html.UnescapeString(css[1])).StatusCode, css[1])
	}
	// Its API answers under the same prefix (connect-src 'self').
	api := b.get("/console/queue/api/features")
	require.Equal(t, http.StatusOK, api.StatusCode, api.body)
	require.NotEmpty(t, api.Header.Get("Content-Security-Policy"))
}

// originCase is a combination of the headers by which a browser says
// where a request comes from; header gets the request's own origin.
type originCase struct {
	name   string
	header func(own *url.URL) http.Header
	// pass: the origin check lets a token-carrying form through; River UI
	// (no token) is let through only when the browser said something.
	pass bool
}

func h(kv ...string) http.Header {
	out := http.Header{}
	for i := 0; i+1 < len(kv); i += 2 {
		out.Add(kv[i], kv[i+1])
	}
	return out
}

func withScheme(u *url.URL, scheme string) string {
	v := *u
	v.Scheme = scheme
	return v.String()
}

func withHost(u *url.URL, host string) string {
	v := *u
	v.Host = host + ":" + u.Port()
	return v.String()
}

func withPort(u *url.URL, port int) string {
	v := *u
	v.Host = u.Hostname() + ":" + strconv.Itoa(port)
	return v.String()
}

func otherScheme(u *url.URL) string {
	if u.Scheme == "https" {
		return "http"
	}
	return "https"
}

var originCases = []originCase{
	{"absent", func(*url.URL) http.Header { return h() }, true},
	{"Origin null", func(*url.URL) http.Header { return h("Origin", "null") }, false},
	{"Origin same", func(o *url.URL) http.Header { return h("Origin", o.String()) }, true},
	{"Origin other scheme", func(o *url.URL) http.Header { return h("Origin", withScheme(o, otherScheme(o))) }, false},
	{"Origin other host", func(o *url.URL) http.Header { return h("Origin", withHost(o, "evil.example")) }, false},
	{"Origin other port", func(o *url.URL) http.Header { p, _ := strconv.Atoi(o.Port()); return h("Origin", withPort(o, p+1)) }, false},
	{"Origin same with a path", func(o *url.URL) http.Header { return h("Origin", o.String()+"/console/") }, false},
	{"Origin same twice", func(o *url.URL) http.Header { return h("Origin", o.String(), "Origin", o.String()) }, false},
	{"Origin garbage", func(*url.URL) http.Header { return h("Origin", "%zz") }, false},
	{"Sec-Fetch-Site same-origin", func(*url.URL) http.Header { return h("Sec-Fetch-Site", "same-origin") }, true},
	{"Sec-Fetch-Site same-site", func(*url.URL) http.Header { return h("Sec-Fetch-Site", "same-site") }, false},
	{"Sec-Fetch-Site cross-site", func(*url.URL) http.Header { return h("Sec-Fetch-Site", "cross-site") }, false},
	{"Sec-Fetch-Site none", func(*url.URL) http.Header { return h("Sec-Fetch-Site", "none") }, false},
	{"same-origin, Origin same", func(o *url.URL) http.Header {
		return h("Sec-Fetch-Site", "same-origin", "Origin", o.String())
	}, true},
	{"same-origin, Origin null", func(*url.URL) http.Header { return h("Sec-Fetch-Site", "same-origin", "Origin", "null") }, false},
	{"same-origin, Origin other scheme", func(o *url.URL) http.Header {
		return h("Sec-Fetch-Site", "same-origin", "Origin", withScheme(o, otherScheme(o)))
	}, false},
	{"same-origin, Origin other host", func(o *url.URL) http.Header {
		return h("Sec-Fetch-Site", "same-origin", "Origin", withHost(o, "evil.example"))
	}, false},
	{"same-origin, Origin other port", func(o *url.URL) http.Header {
		p, _ := strconv.Atoi(o.Port())
		return h("Sec-Fetch-Site", "same-origin", "Origin", withPort(o, p+1))
	}, false},
	{"same-site, Origin same", func(o *url.URL) http.Header { return h("Sec-Fetch-Site", "same-site", "Origin", o.String()) }, false},
	{"cross-site, Origin same", func(o *url.URL) http.Header { return h("Sec-Fetch-Site", "cross-site", "Origin", o.String()) }, false},
	{"none, Origin same", func(o *url.URL) http.Header { return h("Sec-Fetch-Site", "none", "Origin", o.String()) }, false},
}

// formTargets are a request for each console route that changes
// something; every such route of the mux must have one.
var formTargets = map[string][]struct{ method, path string }{
	"POST /console/login":                   {{http.MethodPost, "/console/login"}},
	"POST /console/logout":                  {{http.MethodPost, "/console/logout"}},
	"POST /console/dead-letters/{id}/retry": {{http.MethodPost, "/console/dead-letters/1/retry"}},
	"POST /console/seeds/{id}/{action}":     {{http.MethodPost, "/console/seeds/x/promote"}},
	"POST /console/seeds/bulk":              {{http.MethodPost, "/console/seeds/bulk"}},
	"POST /console/work/{kind}":             {{http.MethodPost, "/console/work/research"}},
	"/console/queue/": {
		{http.MethodPost, "/console/queue/api/jobs/retry"},
		{http.MethodPut, "/console/queue/api/queues/default/pause"},
		{http.MethodPatch, "/console/queue/api/queues/default"},
	},
	"/console/": {{http.MethodPost, "/console/no-such-page"}, {http.MethodPut, "/console/no-such-page"}},
}

const refusedByOrigin = "This form was sent from another site."

// Every route that changes something, under every way of being served,
// takes a request only when each of Sec-Fetch-Site and Origin the browser
// sent names the console's own origin: scheme, host and port.
func TestOriginRule(t *testing.T) {
	t.Parallel()
	loopback := []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}
	for _, d := range []struct {
		name string
		o    options
		// proto is the X-Forwarded-Proto every request carries.
		proto string
		https bool // the origin the browser sees
	}{
		{"http", options{}, "", false},
		{"tls", options{tls: true}, "", true},
		{"tls proxy", options{proxies: loopback}, "https", true},
		{"http proxy", options{proxies: loopback}, "http", false},
		{"untrusted proxy header", options{}, "https", false},
	} {
		t.Run(d.name, func(t *testing.T) {
			t.Parallel()
			e := setupWith(t, d.o)
			b := e.browser(t)
			require.Equal(t, http.StatusSeeOther, b.signIn(e.admin).StatusCode)
			own, err := url.Parse(e.ts.URL)
			require.NoError(t, err)
			if d.https {
				own.Scheme = "https"
			} else {
				own.Scheme = "http"
			}

			var patterns []string
			for _, p := range e.con.Patterns() {
				method, _, found := strings.Cut(p, " ")
				if found && (method == http.MethodGet || method == http.MethodHead) {
					continue
				}
				patterns = append(patterns, p)
				require.Contains(t, formTargets, p, "route %q changes something: give it a request in formTargets", p)
			}
			require.Len(t, patterns, len(formTargets))

			for _, p := range patterns {
				for _, tg := range formTargets[p] {
					for _, c := range originCases {
						req, err := http.NewRequest(tg.method, e.ts.URL+tg.path, strings.NewReader("_csrf=wrong"))
						require.NoError(t, err)
						req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
						if d.proto != "" {
							req.Header.Set("X-Forwarded-Proto", d.proto)
						}
						for k, v := range c.header(own) {
							req.Header[k] = v
						}
						resp, err := b.c.Do(req)
						require.NoError(t, err)
						body := readAll(t, resp)
						strict := p == "/console/queue/"
						want := c.pass && !(strict && c.name == "absent")
						refused := resp.StatusCode == http.StatusForbidden && strings.Contains(body, refusedByOrigin)
						require.Equal(t, !want, refused, "%s %s, %s: status %d, refused for its origin: %v", tg.method, tg.path, c.name, resp.StatusCode, refused)
						if want && strict {
							require.Equal(t, "queue ui", body, "River UI got the request")
						}
					}
				}
			}
		})
	}
}

// An origin without a port is the scheme's default port, and the Host
// header without one is too.
func TestOriginDefaultPorts(t *testing.T) {
	t.Parallel()
	e := setupWith(t, options{proxies: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}})
	for _, tt := range []struct {
		proto, host, origin string
		pass                bool
	}{
		{"http", "console.example", "http://console.example", true},
		{"http", "console.example", "http://console.example:80", true},
		{"http", "console.example:80", "http://console.example", true},
		{"http", "Console.Example", "http://console.example", true},
		{"http", "console.example", "http://console.example:443", false},
		{"http", "console.example", "https://console.example", false},
		{"http", "console.example", "http://console.example.evil", false},
		{"https", "console.example", "https://console.example", true},
		{"https", "console.example", "https://console.example:443", true},
		{"https", "console.example:443", "https://console.example", true},
		{"https", "console.example", "https://console.example:80", false},
		{"https", "console.example", "http://console.example", false},
		{"https", "[::1]", "https://[::1]:443", true},
		{"https", "[::1]:8443", "https://[::1]:443", false},
	} {
		for _, path := range []string{"/console/seeds/x/promote", "/console/queue/api/queues/default/pause"} {
			req, err := http.NewRequest(http.MethodPost, e.ts.URL+path, strings.NewReader("_csrf=wrong"))
			require.NoError(t, err)
			req.Host = tt.host
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			req.Header.Set("X-Forwarded-Proto", tt.proto)
			req.Header.Set("Origin", tt.origin)
			resp, err := e.ts.Client().Do(req)
			require.NoError(t, err)
			body := readAll(t, resp)
			refused := resp.StatusCode == http.StatusForbidden && strings.Contains(body, refusedByOrigin)
			require.Equal(t, !tt.pass, refused, "%s %s, Host %s, Origin %s: status %d", tt.proto, path, tt.host, tt.origin, resp.StatusCode)
		}
	}
}

func readAll(t *testing.T, resp *http.Response) string {
	t.Helper()
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return string(b)
}

// Each review action of a seed's page says what it did in words of its
// own, written out (a suspension once read "Suspendd").
func TestSeedActionNotices(t *testing.T) {
	t.Parallel()
	e := setupWith(t, options{checks: &readQueue{}})
	const id = "gov:sg:mom.gov.sg::news"
	createSeed(t, e, "gov:sg:mom.gov.sg", "MOM")
	b := e.browser(t)
	require.Equal(t, http.StatusSeeOther, b.signIn(e.admin).StatusCode)
	want := map[string]string{
		"edit":       "Saved " + id + ".",
		"choose":     "Chose another entry for " + id + ".",
		"reject":     "Rejected " + id + ".",
		"reopen":     "Reopened " + id + ": it is a draft again.",
		"promote":    "Promoted " + id + ".",
		"accept":     "Accepted the proposed contract of " + id + ".",
		"suspend":    "Suspended " + id + ".",
		"reactivate": "Reactivated " + id + ".",
		"archive":    "Archived " + id + ".",
		"pages_on":   "Pages on for " + id + ": each new item's page will be fetched and kept as WARC.",
		"pages_off":  "Pages off for " + id + ": new items' pages will not be fetched.",
		// Read now's notice is the read's own, in a live region
		// (seed_actions_test.go follows it until the read has run).
		"check": "Read of " + id + " queued at ",
	}
	require.Equal(t, slices.Sorted(maps.Keys(want)), console.SeedActions(), "every action has its notice here")

	actionRE := regexp.MustCompile(`(?:form)?action="/console/seeds/[^/"]+/([a-z_]+)"`)
	offered := map[string]bool{}
	// In the order the seed's life allows each.
	for _, action := range []string{"edit", "pages_on", "pages_off", "choose", "reject", "reopen", "promote", "check", "accept", "suspend", "reactivate", "archive"} {
		if action == "accept" {
			// A later contract run proposes a new version of the active seed.
			sd, err := e.seeds.FindSeedByID(t.Context(), id)
			require.NoError(t, err)
			sd.Fetch.Schedule = "@weekly"
			_, err = e.seeds.RecordDraftSeed(t.Context(), sd, "contract_batch:test", "")
			require.NoError(t, err)
		}
		pg := b.get("/console/seeds/" + url.PathEscape(id))
		require.Equal(t, http.StatusOK, pg.StatusCode, pg.body)
		for _, m := range actionRE.FindAllStringSubmatch(pg.body, -1) {
			offered[m[1]] = true
		}
		require.True(t, offered[action], "the page offers %s", action)
		form := url.Values{"_csrf": {csrf(t, pg)}, "reason": {"test"}, "reason_code": {"other"}, "patch": {`{"fetch":{"schedule":"@daily"}}`}}
		if v := regexp.MustCompile(`name="candidate_url" value="([^"]+)"`).FindStringSubmatch(pg.body); v != nil {
			form.Set("candidate_url", html.UnescapeString(v[1]))
		}
		if v := regexp.MustCompile(`name="version" value="(\d+)"`).FindStringSubmatch(pg.body); v != nil {
			form.Set("version", v[1])
		}
		p := b.do(http.MethodPost, "/console/seeds/"+url.PathEscape(id)+"/"+action, form)
		require.Equal(t, http.StatusSeeOther, p.StatusCode, "%s: %s", action, p.body)
		loc, err := url.Parse(p.Header.Get("Location"))
		require.NoError(t, err)
		require.Empty(t, loc.Query().Get("notice"), "the words are the console's, not the URL's")
		shown := b.get(loc.RequestURI())
		if action == "check" {
			require.Regexp(t, `<div id="read-now" class="notice" role="status"[^>]*><p>`+regexp.QuoteMeta(html.EscapeString(want[action])), shown.body)
			continue
		}
		// The notice's words, the seed's id a link to the seed.
		m := regexp.MustCompile(`<p class="notice" role="status" tabindex="-1">(.*?)</p>`).FindStringSubmatch(shown.body)
		require.NotNil(t, m, "%s: no notice in %s", action, shown.body)
		require.Equal(t, html.EscapeString(want[action]), regexp.MustCompile(`<[^>]+>`).ReplaceAllString(m[1], ""), action)
		require.Contains(t, m[1], `<a href="/console/seeds/`+url.PathEscape(id)+`">`+id+`</a>`, action)
	}
	// A link cannot make a page say what it likes.
	for _, q := range []string{"notice=Your+key+expired%2C+call+us", "done=nope", "done=promoted&what=Call+555+now",
		"done=promoted&what=%3Cb%3Ex", "done=promoted", "done=retried&what=" + strings.Repeat("a", 500)} {
		pg := b.get("/console/seeds?" + q)
		require.Equal(t, http.StatusOK, pg.StatusCode, q)
		require.NotContains(t, pg.body, `class="notice"`, q)
	}
	for a := range offered {
		require.Contains(t, want, a, "the seed page offers %s", a)
	}
	sd, err := e.seeds.FindSeedByID(t.Context(), id)
	require.NoError(t, err)
	require.EqualValues(t, "archived", sd.Status)
	require.Equal(t, "@weekly", sd.Fetch.Schedule, "the proposal was accepted")
}

// After sign-in a person lands where next= says only when that is the
// console itself; anything that could lead elsewhere lands on /console/.
func TestSignInNext(t *testing.T) {
	t.Parallel()
	e := setupWith(t, options{proxies: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}})
	client := 0
	for _, tt := range []struct{ next, want string }{
		{"/console/seeds?status=active", "/console/seeds?status=active"},
		{"/console/queue/jobs?state=completed", "/console/queue/jobs?state=completed"},
		{"/console/seeds/gov:sg:mom.gov.sg::news?status=draft", "/console/seeds/gov:sg:mom.gov.sg::news?status=draft"},
		{"/console/research/sg/news/../news/2026-01-28", "/console/research/sg/news/2026-01-28"},
		{"/console/./seeds", "/console/seeds"},
		{"/console", "/console/"},
		{"/console/queue/", "/console/queue/"},
		{"", "/console/"},
		{"//evil.example", "/console/"},
		{"//evil.example/console/", "/console/"},
		{"///evil.example/console/", "/console/"},
		{`/\evil.example`, "/console/"},
		{`/console/\..\..\x`, "/console/"},
		{"/console/../../x", "/console/"},
		{"/console/..", "/console/"},
		{"/console/%2e%2e/x", "/console/"},
		{"/console/%2E%2E/%2E%2E/x", "/console/"},
		{"/console/.%2e/x", "/console/"},
		{"/console/..%2f..%2fx", "/console/"},
		{"/console/%2F%2Fevil.example", "/console/"},
		{"/console/%5c%5cevil.example", "/console/"},
		{"https://evil/", "/console/"},
		{"https://evil/console/", "/console/"},
		{"http:/console/", "/console/"},
		{"javascript:alert(1)", "/console/"},
		{"/console/queue/../../x", "/console/"},
		{"/console/queue/../../console/seeds", "/console/seeds"},
		{"/console..", "/console/"},
		{"/console../x", "/console/"},
		{"/consolex", "/console/"},
		{"console/seeds", "/console/"},
		{"/console/login", "/console/"},
		{"/console/login?next=//evil.example", "/console/"},
		{"/console/\r\nSet-Cookie: x=y", "/console/"},
		{"/console/\tx", "/console/"},
		{"/console/ü", "/console/"},
		{"/console/seeds#//evil.example", "/console/seeds"},
		{"/console/seeds#x?status=active", "/console/seeds"},
		{"/console/" + strings.Repeat("a", 5000), "/console/"},
		{"/console/seeds?q=" + strings.Repeat("a", 5000), "/console/"},
	} {
		t.Run(strconv.Quote(seedShort(tt.next)), func(t *testing.T) {
			b := e.browser(t)
			// Sign-ins are limited per client address: one each.
			client++
			b.hdr = http.Header{"X-Forwarded-For": {"192.0.2." + strconv.Itoa(client)}}
			login := b.get("/console/login?next=" + url.QueryEscape(tt.next))
			require.Equal(t, http.StatusOK, login.StatusCode)
			m := regexp.MustCompile(`name="next" value="([^"]*)"`).FindStringSubmatch(login.body)
			require.NotNil(t, m)
			require.Equal(t, tt.want, html.UnescapeString(m[1]), "the form's next")

			// The form as a hostile page would fill it, past the page's own.
			p := b.do(http.MethodPost, "/console/login", url.Values{"key": {e.admin}, "_csrf": {csrf(t, login)}, "next": {tt.next}})
			require.Equal(t, http.StatusSeeOther, p.StatusCode, p.body)
			require.Equal(t, tt.want, p.Header.Get("Location"))
			loc, err := url.Parse(e.ts.URL + "/console/login")
			require.NoError(t, err)
			to, err := loc.Parse(p.Header.Get("Location"))
			require.NoError(t, err)
			require.Equal(t, loc.Host, to.Host)
			require.True(t, to.Path == "/console/" || strings.HasPrefix(to.Path, "/console/"), to.Path)

			// Signed in already, the sign-in page sends next= on at once.
			again := b.get("/console/login?next=" + url.QueryEscape(tt.next))
			require.Equal(t, http.StatusSeeOther, again.StatusCode)
			require.Equal(t, tt.want, again.Header.Get("Location"))
		})
	}
}

func seedShort(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}
