package console

import (
	"context"
	"crypto/subtle"
	"net/http"
	"net/url"
	"path"
	"strings"

	"github.com/seedengine/seedengine"
)

func withSess(ctx context.Context, s *sess) context.Context {
	return context.WithValue(ctx, sessKey{}, s)
}

// loginData is the sign-in page's.
type loginData struct {
	Next      string
	LoginCSRF string
}

// maxNext bounds a post-sign-in destination; the console's own links are
// far shorter.
const maxNext = 2048

// safeNext keeps a post-sign-in destination inside the console: the path
// as http.Redirect will write it (dot segments resolved) must be /console/
// or below it, and anything that might be read as another host or path by
// a browser or a proxy (a scheme, //, a backslash, an encoded slash,
// backslash or dot, a control or non-ASCII byte) leads to /console/.
func safeNext(next string) string {
	const home = prefix + "/"
	if next == "" || len(next) > maxNext || !strings.HasPrefix(next, "/") || strings.HasPrefix(next, "//") {
		return home
	}
	for i := 0; i < len(next); i++ {
		if b := next[i]; b <= ' ' || b >= 0x7f || b == '\\' {
			return home
		}
	}
	next, _, _ = strings.Cut(next, "#")
	raw, query, _ := strings.Cut(next, "?")
	lower := strings.ToLower(raw)
	if strings.Contains(lower, "%2f") || strings.Contains(lower, "%5c") || strings.Contains(lower, "%2e") {
		return home
	}
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "" || u.Host != "" || u.Opaque != "" || u.User != nil {
		return home
	}
	p := path.Clean(raw)
	if strings.HasSuffix(raw, "/") && p != "/" {
		p += "/"
	}
	if p != prefix && !strings.HasPrefix(p, home) || strings.HasPrefix(p, prefix+"/login") {
		return home
	}
	if p == prefix {
		p = home
	}
	if query != "" {
		p += "?" + query
	}
	return p
}

func (c *Console) handleLoginPage(w http.ResponseWriter, r *http.Request) {
	if s, err := c.findSession(r); err == nil && s != nil {
		http.Redirect(w, r, safeNext(r.URL.Query().Get("next")), http.StatusSeeOther)
		return
	}
	c.showLogin(w, r, http.StatusOK, nil)
}

// showLogin renders the sign-in form with a fresh sign-in CSRF token,
// which the form and a cookie both carry (a session has no token yet).
func (c *Console) showLogin(w http.ResponseWriter, r *http.Request, status int, p *problem) {
	token := randomToken()
	c.setCookie(w, r, loginCookie, token, 0)
	c.render(w, r, status, "login", page{Title: "Sign in", Problem: p,
		Data: loginData{Next: safeNext(r.FormValue("next")), LoginCSRF: token}})
}

// handleLogin signs a person in with an API key: the key is checked, a
// session is created for it, and only the session's secret goes to the
// browser.
func (c *Console) handleLogin(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
	if err := r.ParseForm(); err != nil {
		c.showLogin(w, r, http.StatusBadRequest, &problem{Detail: "The form could not be read."})
		return
	}
	ck, err := r.Cookie(loginCookie)
	if err != nil || ck.Value == "" || subtle.ConstantTimeCompare([]byte(ck.Value), []byte(r.PostFormValue("_csrf"))) != 1 {
		c.showLogin(w, r, http.StatusForbidden, &problem{Detail: "The sign-in form expired; try again."})
		return
	}
	if !c.allowSignin(r) {
		w.Header().Set("Retry-After", "6")
		c.showLogin(w, r, http.StatusTooManyRequests, &problem{Detail: "Too many attempts; wait a few seconds."})
		return
	}
	token := strings.TrimSpace(r.PostFormValue("key"))
	key, err := c.deps.Keys.FindAPIKeyByToken(r.Context(), token)
	if err != nil {
		if seedengine.ErrorCode(err) == seedengine.EUNAUTHORIZED || token == "" {
			c.cfg.Logger.InfoContext(r.Context(), "console sign-in refused", "event", "console_signin_refused")
			c.showLogin(w, r, http.StatusUnauthorized, &problem{Detail: "That key is not valid or has been revoked."})
			return
		}
		c.showLogin(w, r, http.StatusServiceUnavailable, &problem{Detail: "Keys cannot be checked right now; try again in a moment."})
		return
	}
	now := c.cfg.Now().UTC()
	secret := randomToken()
	cs := &seedengine.ConsoleSession{ID: hashSecret(secret), KeyID: key.ID, CSRF: randomToken(),
		CreatedAt: now, SeenAt: now, ExpiresAt: now.Add(c.cfg.MaxAge)}
	if err := c.deps.Sessions.CreateConsoleSession(r.Context(), cs); err != nil {
		c.showLogin(w, r, http.StatusServiceUnavailable, &problem{Detail: "The session could not be stored; try again in a moment."})
		return
	}
	// Sign-ins are rare: a good moment to forget ended sessions.
	_, _ = c.deps.Sessions.DeleteConsoleSessions(r.Context(), now, now.Add(-c.cfg.IdleTimeout))
	c.clearCookie(w, r, loginCookie)
	c.setCookie(w, r, sessionCookie, secret, c.cfg.MaxAge)
	c.cfg.Logger.InfoContext(r.Context(), "console sign-in", "event", "console_signin", "key", key.Name, "scope", string(key.Scope))
	http.Redirect(w, r, safeNext(r.PostFormValue("next")), http.StatusSeeOther)
}

func (c *Console) handleLogout(w http.ResponseWriter, r *http.Request) {
	s := sessFrom(r.Context())
	_ = c.deps.Sessions.DeleteConsoleSession(r.Context(), s.ID)
	c.clearCookie(w, r, sessionCookie)
	c.cfg.Logger.InfoContext(r.Context(), "console sign-out", "event", "console_signout", "key", s.key.Name)
	http.Redirect(w, r, "/console/login", http.StatusSeeOther)
}
