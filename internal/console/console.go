// Package console is the operator console: HTML pages served by
// `seedengine serve` under /console/ for the people who watch batches and
// review, promote and fix seeds.
//
// The console is a thin layer over the HTTP API. A person signs in with
// an API key; the console keeps a server-side session for the key (the
// browser holds only a random session secret in an HttpOnly,
// SameSite=Strict cookie) and makes every read and every action an API
// request on the key's behalf (httpapi's ServeAs), so the API's
// validation, scopes, rate limit, access log and metrics apply to the
// console exactly as to curl, and the key's name is the actor in every
// seed's history. The key's scope decides what a page offers: read keys
// browse, write keys start work and edit seeds, admin keys promote,
// suspend, archive, retry dead letters and open the queue UI.
//
// Pages are rendered on the server with html/template (which escapes
// everything a site published: a feed title "<script>" shows as text);
// the stylesheet and one small script (progress refresh, keyboard
// shortcuts) are embedded; nothing is loaded from another origin. Every
// form carries the session's CSRF token, and POSTs from another origin
// are refused.
package console

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"embed"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/time/rate"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/httpapi"
)

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static
var staticFS embed.FS

// API serves API requests on a key's behalf; *httpapi.Server is one.
type API interface {
	ServeAs(w http.ResponseWriter, r *http.Request, key *seedengine.APIKey)
}

// Deps are what the console works with.
type Deps struct {
	API      API
	Keys     seedengine.APIKeyService
	Sessions seedengine.ConsoleSessionService
	// QueueUI is River UI, mounted at /console/queue/ for admin keys;
	// nil when the queue offers none.
	QueueUI http.Handler
	// QueueUINote says what River UI cannot do on this database, shown
	// beside its link; empty when nothing.
	QueueUINote string
}

// Config tunes the console. Zero fields take the defaults named.
type Config struct {
	// IdleTimeout ends a session after this long without a request;
	// default 12 h.
	IdleTimeout time.Duration
	// MaxAge ends a session this long after sign-in; default 7 days.
	MaxAge time.Duration
	// Version is shown in the footer.
	Version string
	// Logger receives the console's events; default discards.
	Logger *slog.Logger
	// Now is the clock; default time.Now.
	Now func() time.Time
}

func (c Config) withDefaults() Config {
	if c.IdleTimeout <= 0 {
		c.IdleTimeout = 12 * time.Hour
	}
	if c.MaxAge <= 0 {
		c.MaxAge = 7 * 24 * time.Hour
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	return c
}

// Console is the console's http.Handler.
type Console struct {
	cfg   Config
	deps  Deps
	mux   *http.ServeMux
	pages map[string]*template.Template
	// csp is the Content-Security-Policy of the console's own pages,
	// queueCSP that of River UI's (policy).
	csp, queueCSP string
	// sign-in attempts are limited per client address.
	mu      sync.Mutex
	signins map[string]*rate.Limiter
	// itemTop and articleTop are the highest item and article ids the
	// items page has seen: where it looks for the newest (itemlist.go).
	itemTop, articleTop atomic.Int64
}

// Paths.
const (
	prefix        = "/console"
	queuePrefix   = "/console/queue/"
	sessionCookie = "seedengine_console"
	loginCookie   = "seedengine_console_login"
	maxFormBytes  = 16 << 20
)

// New returns the console.
func New(cfg Config, deps Deps) *Console {
	c := &Console{cfg: cfg.withDefaults(), deps: deps, mux: http.NewServeMux(), signins: map[string]*rate.Limiter{}}
	c.pages = parseTemplates()
	c.csp, c.queueCSP = policy(nil, nil), policy(nil, nil)
	if deps.QueueUI != nil {
		c.queueCSP = queuePolicy(deps.QueueUI)
	}
	for _, rt := range c.routes() {
		c.mux.Handle(rt.pattern, rt.h)
	}
	return c
}

// route is one pattern of the console's mux.
type route struct {
	pattern string
	h       http.Handler
}

// routes are every page and form of the console.
func (c *Console) routes() []route {
	static, _ := fs.Sub(staticFS, "static")
	rs := []route{
		{"GET /console/static/", http.StripPrefix("/console/static/", staticHandler(static))},
		{"GET /favicon.ico", faviconHandler(static)},
		{"GET /console/login", http.HandlerFunc(c.handleLoginPage)},
		{"POST /console/login", http.HandlerFunc(c.handleLogin)},
		{"POST /console/logout", c.session(read, c.handleLogout)},
		{"GET /console/{$}", c.session(read, c.handleDashboard)},
		{"GET /console/fragments/batches", c.session(read, c.handleBatchesFragment)},
		{"GET /console/batches/{id}", c.session(read, c.handleBatch)},
		{"GET /console/batches/{id}/progress", c.session(read, c.handleBatchProgress)},
		{"POST /console/dead-letters/{id}/retry", c.session(admin, c.handleDeadLetterRetry)},
		{"GET /console/research", c.session(read, c.handleResearchIndex)},
		{"GET /console/research/{country}/{category}/{date}", c.session(read, c.handlePartition)},
		{"GET /console/domains/{id}", c.session(read, c.handleDomain)},
		{"GET /console/seeds", c.session(read, c.handleSeeds)},
		{"GET /console/seeds/export", c.session(read, c.handleSeedsExport)},
		{"GET /console/seeds/{id}", c.session(read, c.handleSeed)},
		{"GET /console/items", c.session(read, c.handleItems)},
		{"GET /console/items/{id}", c.session(read, c.handleItem)},
		{"GET /console/items/{id}/page", c.session(read, c.handleItemPageContent)},
		{"GET /console/items/{country}/{category}/{date}/{file}", c.session(read, c.fileDownload(itemFiles))},
		{"GET /console/items/{country}/{category}/{date}/warc/{file}", c.session(read, c.fileDownload(warcFiles))},
		{"GET /console/articles/{country}/{category}/{date}/{file}", c.session(read, c.fileDownload(articleFiles))},
		{"POST /console/seeds/bulk", c.session(admin, c.handleSeedsBulk)},
		{"POST /console/seeds/{id}/{action}", c.session(write, c.handleSeedAction)},
		{"GET /console/work", c.session(read, c.handleWork)},
		{"POST /console/work/{kind}", c.session(write, c.handleWorkSubmit)},
	}
	if c.deps.QueueUI != nil {
		rs = append(rs, route{queuePrefix, c.sessionHandler(admin, withBackLink(c.deps.QueueUI))})
	}
	return append(rs, route{"/console/", http.HandlerFunc(c.handleNotFound)})
}

// ServeHTTP implements http.Handler.
func (c *Console) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	queue := strings.HasPrefix(r.URL.Path, queuePrefix)
	if queue {
		h.Set("Content-Security-Policy", c.queueCSP)
	} else {
		h.Set("Content-Security-Policy", c.csp)
	}
	h.Set("X-Frame-Options", "DENY")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "same-origin")
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		// River UI's requests carry no CSRF token of ours: a browser's
		// own word that they come from this site is required there.
		if !sameOrigin(r, queue) {
			c.renderError(w, r, nil, http.StatusForbidden, "This form was sent from another site.")
			return
		}
	}
	c.mux.ServeHTTP(w, r)
}

// sameOrigin reports whether a request that changes something comes from
// a page of this console. Each of Sec-Fetch-Site and Origin that the
// browser sent must say so: Sec-Fetch-Site "same-origin" ("none", a
// typed URL or a bookmark, is never a form's or a script's), and an
// Origin of this scheme, host and port ("null", an opaque origin such as a
// sandboxed frame's or a data: page's, is no origin of ours). Without
// either (old browsers, curl) the CSRF token alone decides, unless strict.
func sameOrigin(r *http.Request, strict bool) bool {
	site, origin := r.Header.Values("Sec-Fetch-Site"), r.Header.Values("Origin")
	if len(site) == 0 && len(origin) == 0 {
		return !strict
	}
	if len(site) > 1 || len(origin) > 1 {
		return false
	}
	if len(site) == 1 && site[0] != "same-origin" {
		return false
	}
	return len(origin) == 0 || isOwnOrigin(r, origin[0])
}

// isOwnOrigin compares an Origin header with the request's own origin:
// the scheme the request came by (httpapi.IsHTTPS, the decision the
// cookies' Secure flag follows too), its Host, and its port, the
// scheme's default when none is written.
func isOwnOrigin(r *http.Request, origin string) bool {
	u, err := url.Parse(origin)
	if err != nil || u.Opaque != "" || u.User != nil || u.Host == "" || u.Path != "" || u.RawQuery != "" || u.Fragment != "" || u.ForceQuery {
		return false
	}
	scheme := "http"
	if httpapi.IsHTTPS(r) {
		scheme = "https"
	}
	own := &url.URL{Host: r.Host}
	return u.Scheme == scheme && own.Hostname() != "" && strings.EqualFold(u.Hostname(), own.Hostname()) &&
		portOr(u.Port(), scheme) == portOr(own.Port(), scheme)
}

func portOr(port, scheme string) string {
	if port != "" {
		return port
	}
	if scheme == "https" {
		return "443"
	}
	return "80"
}

// faviconHandler answers /favicon.ico, where browsers look for an icon
// on every page, with the console's own (an SVG, as the pages name it).
func faviconHandler(fsys fs.FS) http.Handler {
	files := staticHandler(fsys)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r = r.Clone(r.Context())
		r.URL.Path = "/favicon.svg"
		files.ServeHTTP(w, r)
	})
}

func staticHandler(fsys fs.FS) http.Handler {
	files := http.FileServerFS(fsys)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "public, max-age=3600")
		files.ServeHTTP(w, r)
	})
}

// Scopes a route needs.
const (
	read  = seedengine.ScopeRead
	write = seedengine.ScopeWrite
	admin = seedengine.ScopeAdmin
)

// sess is a signed-in request's session with its key.
type sess struct {
	*seedengine.ConsoleSession
	key   *seedengine.APIKey
	reqID string // the request id the API middleware gave this request
}

type sessKey struct{}

func sessFrom(ctx context.Context) *sess {
	s, _ := ctx.Value(sessKey{}).(*sess)
	return s
}

// session wraps a handler that needs a signed-in key with scope: it finds
// the session, checks its times and its key, checks the CSRF token of a
// POST, and sends a person without one to the sign-in page.
func (c *Console) session(scope seedengine.Scope, h http.HandlerFunc) http.HandlerFunc {
	return c.sessionHandler(scope, h).ServeHTTP
}

func (c *Console) sessionHandler(scope seedengine.Scope, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s, err := c.findSession(r)
		if err != nil {
			if seedengine.ErrorCode(err) == seedengine.EUNAVAILABLE || errors.Is(err, context.Canceled) {
				c.renderError(w, r, nil, http.StatusServiceUnavailable, "The database is not available; try again in a moment.")
				return
			}
			c.clearCookie(w, r, sessionCookie)
			if r.Method == http.MethodGet && !strings.HasPrefix(r.URL.Path, "/console/fragments/") {
				http.Redirect(w, r, "/console/login?next="+url.QueryEscape(r.URL.RequestURI()), http.StatusSeeOther)
				return
			}
			c.renderError(w, r, nil, http.StatusUnauthorized, "Your session has ended; sign in again.")
			return
		}
		if r.Method == http.MethodPost && !strings.HasPrefix(r.URL.Path, queuePrefix) {
			r.Body = http.MaxBytesReader(w, r.Body, maxFormBytes)
			if !validCSRF(r, s.CSRF) {
				c.renderError(w, r, s, http.StatusForbidden, "This form has expired or did not come from this console; reload the page and try again.")
				return
			}
		}
		if !s.key.Scope.Allows(scope) {
			c.renderError(w, r, s, http.StatusForbidden, "Your key ("+string(s.key.Scope)+") cannot do this; it needs the "+string(scope)+" scope.")
			return
		}
		s.reqID = w.Header().Get("X-Request-Id")
		h.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), sessKey{}, s)))
	})
}

// validCSRF compares the form's token with the session's in constant time.
func validCSRF(r *http.Request, want string) bool {
	var got string
	if strings.HasPrefix(r.Header.Get("Content-Type"), "multipart/form-data") {
		if err := r.ParseMultipartForm(maxFormBytes); err != nil {
			return false
		}
		got = r.FormValue("_csrf")
	} else {
		got = r.PostFormValue("_csrf")
	}
	return got != "" && subtle.ConstantTimeCompare([]byte(got), []byte(want)) == 1
}

// findSession returns the request's session if it is valid: known, within
// its idle and absolute limits, and its key still active.
func (c *Console) findSession(r *http.Request) (*sess, error) {
	ck, err := r.Cookie(sessionCookie)
	if err != nil || ck.Value == "" || len(ck.Value) > 100 {
		return nil, seedengine.Errorf(seedengine.EUNAUTHORIZED, "no session")
	}
	id := hashSecret(ck.Value)
	cs, err := c.deps.Sessions.FindConsoleSession(r.Context(), id)
	if err != nil {
		if seedengine.ErrorCode(err) == seedengine.ENOTFOUND {
			return nil, seedengine.Errorf(seedengine.EUNAUTHORIZED, "no session")
		}
		return nil, seedengine.Errorf(seedengine.EUNAVAILABLE, "sessions unavailable: %v", err)
	}
	now := c.cfg.Now()
	if !now.Before(cs.ExpiresAt) || now.Sub(cs.SeenAt) >= c.cfg.IdleTimeout {
		_ = c.deps.Sessions.DeleteConsoleSession(r.Context(), id)
		return nil, seedengine.Errorf(seedengine.EUNAUTHORIZED, "session expired")
	}
	key, err := c.deps.Keys.FindAPIKeyByID(r.Context(), cs.KeyID)
	switch {
	case seedengine.ErrorCode(err) == seedengine.ENOTFOUND, err == nil && !key.Active():
		_ = c.deps.Sessions.DeleteConsoleSession(r.Context(), id)
		return nil, seedengine.Errorf(seedengine.EUNAUTHORIZED, "key revoked")
	case err != nil:
		return nil, seedengine.Errorf(seedengine.EUNAVAILABLE, "keys unavailable: %v", err)
	}
	if now.Sub(cs.SeenAt) > time.Minute {
		// At most one write a minute per session.
		_ = c.deps.Sessions.TouchConsoleSession(r.Context(), id, now)
	}
	return &sess{ConsoleSession: cs, key: key}, nil
}

func hashSecret(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(sum[:])
}

func randomToken() string {
	var b [32]byte
	_, _ = rand.Read(b[:])
	return base64.RawURLEncoding.EncodeToString(b[:])
}

func (c *Console) setCookie(w http.ResponseWriter, r *http.Request, name, value string, maxAge time.Duration) {
	http.SetCookie(w, &http.Cookie{
		Name: name, Value: value, Path: prefix + "/", MaxAge: int(maxAge.Seconds()),
		HttpOnly: true, Secure: httpapi.IsHTTPS(r), SameSite: http.SameSiteStrictMode,
	})
}

func (c *Console) clearCookie(w http.ResponseWriter, r *http.Request, name string) {
	http.SetCookie(w, &http.Cookie{Name: name, Value: "", Path: prefix + "/", MaxAge: -1,
		HttpOnly: true, Secure: httpapi.IsHTTPS(r), SameSite: http.SameSiteStrictMode})
}

// allowSignin limits sign-in attempts per client address, good or bad
// (a person signs in once a day; a guesser tries many): a burst of 10,
// then one every 6 seconds.
func (c *Console) allowSignin(r *http.Request) bool {
	host := r.RemoteAddr
	if i := strings.LastIndexByte(host, ':'); i > 0 {
		host = host[:i]
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	l := c.signins[host]
	if l == nil {
		if len(c.signins) > 10000 {
			c.signins = map[string]*rate.Limiter{}
		}
		l = rate.NewLimiter(rate.Every(6*time.Second), 10)
		c.signins[host] = l
	}
	return l.Allow()
}

// apiResult is the answer of an API request made on the session's key.
type apiResult struct {
	Status int
	Header http.Header
	Body   []byte
}

// problem is the API's error body.
type problem struct {
	Status int    `json:"status"`
	Detail string `json:"detail"`
	Code   string `json:"code"`
	Errors []struct {
		Location string `json:"location"`
		Message  string `json:"message"`
	} `json:"errors"`
}

// Error reads the API's answer as a problem, or nil for a 2xx.
func (res *apiResult) Error() *problem {
	if res.Status >= 200 && res.Status < 300 {
		return nil
	}
	p := &problem{Status: res.Status}
	if json.Unmarshal(res.Body, p) != nil || p.Detail == "" {
		p.Detail = http.StatusText(res.Status)
	}
	return p
}

// call makes an API request on behalf of the session's key, with the
// incoming request's id so the console's request and its API requests
// share it in the logs.
func (c *Console) call(r *http.Request, method, path, contentType string, body []byte) *apiResult {
	req, err := apiRequest(r, method, path, bytes.NewReader(body))
	if err != nil {
		return &apiResult{Status: http.StatusInternalServerError, Body: []byte(`{"detail":"bad console request"}`)}
	}
	if body != nil {
		req.Header.Set("Content-Type", contentType)
		req.ContentLength = int64(len(body))
	} else {
		req.Body = http.NoBody
	}
	rec := &recorder{header: http.Header{}}
	c.deps.API.ServeAs(rec, req, sessFrom(r.Context()).key)
	if rec.status == 0 {
		rec.status = http.StatusOK
	}
	return &apiResult{Status: rec.status, Header: rec.header, Body: rec.buf.Bytes()}
}

// apiRequest is an API request made for the console's request r: from
// its client address and host, under its request id.
func apiRequest(r *http.Request, method, path string, body io.Reader) (*http.Request, error) {
	req, err := http.NewRequestWithContext(r.Context(), method, path, body)
	if err != nil {
		return nil, err
	}
	req.RemoteAddr, req.Host = r.RemoteAddr, r.Host
	if id := sessFrom(r.Context()).reqID; id != "" {
		req.Header.Set("X-Request-Id", id)
	}
	return req, nil
}

// get calls the API and decodes a 2xx JSON answer into v.
func (c *Console) get(r *http.Request, path string, v any) *problem {
	res := c.call(r, http.MethodGet, path, "", nil)
	if p := res.Error(); p != nil {
		return p
	}
	if v != nil {
		if err := json.Unmarshal(res.Body, v); err != nil {
			return &problem{Status: http.StatusBadGateway, Detail: "the API answered something the console cannot read"}
		}
	}
	return nil
}

// send calls the API with a JSON body and decodes a 2xx answer into v.
func (c *Console) send(r *http.Request, method, path, contentType string, body, v any) *problem {
	b, err := json.Marshal(body)
	if err != nil {
		return &problem{Status: http.StatusBadRequest, Detail: "the form could not be encoded"}
	}
	res := c.call(r, method, path, contentType, b)
	if p := res.Error(); p != nil {
		return p
	}
	if v != nil && len(res.Body) > 0 {
		_ = json.Unmarshal(res.Body, v)
	}
	return nil
}

// recorder captures an in-process API answer.
type recorder struct {
	header http.Header
	status int
	buf    bytes.Buffer
}

func (r *recorder) Header() http.Header { return r.header }
func (r *recorder) WriteHeader(code int) {
	if r.status == 0 {
		r.status = code
	}
}
func (r *recorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	return r.buf.Write(b)
}

// Flush lets streamed answers through.
func (r *recorder) Flush() {}

var _ io.Writer = (*recorder)(nil)

// pathEscape escapes one path segment, as the API expects ids.
func pathEscape(s string) string { return url.PathEscape(s) }

func fmtTime(t time.Time) string {
	if t.IsZero() {
		return "—"
	}
	return t.UTC().Format("2006-01-02 15:04 UTC")
}

func fmtTimePtr(t *time.Time) string {
	if t == nil {
		return "—"
	}
	return fmtTime(*t)
}

func ago(now time.Time, t time.Time) string {
	if t.IsZero() {
		return ""
	}
	d := now.Sub(t)
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return fmt.Sprintf("%d min ago", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%d h ago", int(d.Hours()))
	}
	return fmt.Sprintf("%d days ago", int(d.Hours()/24))
}
