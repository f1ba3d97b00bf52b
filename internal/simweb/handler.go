package simweb

import (
	"bytes"
	"compress/gzip"
	"crypto/tls"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// serveHTTP is the one handler behind both listeners. Order matters:
// connection-level scenarios first (nothing else may be sent), then the
// explicit configuration of the site, then the scenario's page, then the
// built-in content.
func (w *Web) serveHTTP(rw http.ResponseWriter, r *http.Request) {
	w.inflight.Add(1)
	defer w.inflight.Add(-1)

	host := normalizeHost(r.Host)
	w.countRequest(host)
	if fn := w.observe.Load(); fn != nil {
		(*fn)(r)
	}
	site, www := w.lookup(host)
	var sc Scenario
	if site != nil {
		sc = site.effective(www)
	}
	w.logRequest(r, host, sc)
	if site == nil {
		// A client only gets here by ignoring simweb's DNS, which says
		// NXDOMAIN for unknown names.
		writeBody(rw, http.StatusMisdirectedRequest, "text/plain; charset=utf-8",
			[]byte("simweb: no site named "+host+"\n"))
		return
	}

	switch {
	case sc == ScenarioReset, sc.dead():
		// Dead hosts are unreachable through simweb's DNS and connect-to
		// entries; a client that still arrives must not see a live site.
		resetConn(rw)
		return
	case sc == ScenarioSlow:
		d := site.Delay
		if d <= 0 {
			d = defaultDelay
		}
		t := time.NewTimer(d)
		select {
		case <-t.C:
		case <-r.Context().Done():
			// The client has gone. Returning would send an empty 200,
			// which a client racing its own cancellation can still read;
			// abort the connection instead.
			t.Stop()
			panic(http.ErrAbortHandler)
		}
	}

	if p, ok := findPage(site, r.URL); ok {
		servePage(rw, p)
		return
	}
	if site.Dynamic != nil {
		if p, ok := site.Dynamic(r); ok {
			servePage(rw, p)
			return
		}
	}
	if r.URL.Path == "/robots.txt" && (site.Robots != nil || site.RobotsStatus != 0) {
		serveRobots(rw, site)
		return
	}
	if w.serveScenario(rw, r, site, sc, host) {
		return
	}
	if site.NotFound != nil {
		p := *site.NotFound
		if p.Status == 0 {
			p.Status = http.StatusNotFound
		}
		servePage(rw, p)
		return
	}
	w.serveContent(rw, r, site, sc, host)
}

func (w *Web) logRequest(r *http.Request, host string, sc Scenario) {
	if !w.log.Enabled(r.Context(), slog.LevelDebug) {
		return
	}
	w.log.LogAttrs(r.Context(), slog.LevelDebug, "simweb_request",
		slog.String("event", "simweb_request"),
		slog.String("host", host),
		slog.String("method", r.Method),
		slog.String("path", r.URL.RequestURI()),
		slog.Bool("tls", r.TLS != nil),
		slog.String("scenario", string(sc)))
}

// resetConn takes the connection from the server and closes it with
// SO_LINGER 0, so the peer gets a TCP RST ("connection reset by peer")
// instead of an orderly close.
func resetConn(rw http.ResponseWriter) {
	conn, _, err := http.NewResponseController(rw).Hijack()
	if err != nil {
		panic(http.ErrAbortHandler) // closes the connection, without RST
	}
	abortConn(conn)
}

func abortConn(c net.Conn) {
	if tc, ok := c.(*tls.Conn); ok {
		c = tc.NetConn()
	}
	if tcp, ok := c.(*net.TCPConn); ok {
		_ = tcp.SetLinger(0)
	}
	_ = c.Close()
}

func findPage(site *Site, u *url.URL) (Page, bool) {
	if len(site.Pages) == 0 {
		return Page{}, false
	}
	if u.RawQuery != "" {
		if p, ok := site.Pages[u.Path+"?"+u.RawQuery]; ok {
			return p, true
		}
	}
	p, ok := site.Pages[u.Path]
	return p, ok
}

func servePage(rw http.ResponseWriter, p Page) {
	if p.Wire != nil {
		conn, buf, err := http.NewResponseController(rw).Hijack()
		if err != nil {
			panic(http.ErrAbortHandler)
		}
		_, _ = buf.Write(p.Wire)
		_ = buf.Flush()
		_ = conn.Close()
		return
	}
	h := rw.Header()
	for k, vs := range p.Header {
		h[http.CanonicalHeaderKey(k)] = append([]string(nil), vs...)
	}
	ctype := p.ContentType
	if ctype == "" {
		ctype = "text/html; charset=utf-8"
	}
	status := p.Status
	if status == 0 {
		status = http.StatusOK
	}
	body := p.Body
	if p.Gzip {
		body = GzipBytes(body)
		h.Set("Content-Encoding", "gzip")
		h.Add("Vary", "Accept-Encoding")
	}
	writeBody(rw, status, ctype, body)
}

func serveRobots(rw http.ResponseWriter, site *Site) {
	status := site.RobotsStatus
	if status == 0 {
		status = http.StatusOK
	}
	if site.Robots != nil {
		writeBody(rw, status, "text/plain; charset=utf-8", []byte(*site.Robots))
		return
	}
	writeBody(rw, status, "text/html; charset=utf-8", errorPage(status))
}

// GzipBytes compresses b, for Page bodies that are gzip files (such as
// sitemap.xml.gz) rather than gzip-encoded responses.
func GzipBytes(b []byte) []byte {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	_, _ = zw.Write(b) // writes to a bytes.Buffer do not fail
	_ = zw.Close()
	return buf.Bytes()
}

func writeBody(rw http.ResponseWriter, status int, ctype string, body []byte) {
	h := rw.Header()
	if ctype == NoContentType {
		h["Content-Type"] = nil // present and empty: net/http sends none and does not sniff
	} else {
		h.Set("Content-Type", ctype)
	}
	h.Set("Content-Length", strconv.Itoa(len(body)))
	if h.Get("Server") == "" {
		h.Set("Server", "nginx")
	}
	rw.WriteHeader(status)
	_, _ = rw.Write(body)
}

func redirect(rw http.ResponseWriter, status int, location string) {
	rw.Header().Set("Location", location)
	writeBody(rw, status, "text/html; charset=utf-8", errorPage(status))
}

func errorPage(status int) []byte {
	text := fmt.Sprintf("%d %s", status, http.StatusText(status))
	return []byte("<html>\r\n<head><title>" + text + "</title></head>\r\n<body>\r\n<center><h1>" +
		text + "</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n")
}

func scheme(r *http.Request) string {
	if r.TLS != nil {
		return "https"
	}
	return "http"
}

func statusOr(site *Site, def int) int {
	if site.Status != 0 {
		return site.Status
	}
	return def
}

// externalTarget is the Location of a redirect_external site: RedirectTo as
// it is when it is a URL, else that host with the request's scheme and path.
func externalTarget(to string, r *http.Request) string {
	if strings.Contains(to, "://") {
		return to
	}
	return scheme(r) + "://" + to + r.URL.RequestURI()
}

// serveScenario writes the response of an HTTP-level scenario and reports
// whether there was one.
func (w *Web) serveScenario(rw http.ResponseWriter, r *http.Request, site *Site, sc Scenario, host string) bool {
	h := hashString(site.Host)
	switch sc {
	case ScenarioRedirectWWW:
		redirect(rw, statusOr(site, http.StatusMovedPermanently), scheme(r)+"://www."+host+r.URL.RequestURI())
	case ScenarioRedirectExternal:
		redirect(rw, statusOr(site, http.StatusMovedPermanently), externalTarget(site.RedirectTo, r))
	case ScenarioRedirectLoop:
		next := "/loop/a"
		if r.URL.Path == next {
			next = "/loop/b"
		}
		redirect(rw, statusOr(site, http.StatusFound), next)
	case ScenarioBotWall:
		serveBotWall(rw, statusOr(site, http.StatusForbidden), host, h)
	case ScenarioRateLimited:
		ra := site.RetryAfter
		if ra <= 0 {
			ra = defaultRetryAfter
		}
		rw.Header().Set("Retry-After", strconv.Itoa(int((ra+time.Second-1)/time.Second)))
		writeBody(rw, statusOr(site, http.StatusTooManyRequests), "text/html; charset=utf-8",
			errorPage(http.StatusTooManyRequests))
	case ScenarioChallenge:
		def := http.StatusServiceUnavailable
		if h%2 == 1 {
			def = http.StatusOK
		}
		serveChallenge(rw, statusOr(site, def), host, h)
	case ScenarioParked:
		serveParked(rw, statusOr(site, http.StatusOK), host, h)
	case ScenarioServerError:
		def := [...]int{http.StatusInternalServerError, http.StatusBadGateway, http.StatusServiceUnavailable}[h%3]
		status := statusOr(site, def)
		writeBody(rw, status, "text/html; charset=utf-8", errorPage(status))
	default:
		return false
	}
	return true
}

// serveContent serves the site's built-in pages, generated from the host
// name on every request so that ten thousand sites cost no content memory.
func (w *Web) serveContent(rw http.ResponseWriter, r *http.Request, site *Site, sc Scenario, host string) {
	c := newContent(site, sc, host, w.now())
	res := c.route(r.URL.Path)
	if res.location != "" {
		redirect(rw, http.StatusMovedPermanently, res.location)
		return
	}
	if res.status == 0 {
		res.status = http.StatusOK
	}
	if c.layout == LayoutWordPress && res.status == http.StatusOK && strings.HasPrefix(res.ctype, "text/html") {
		rw.Header().Set("Link", "<"+c.base+"/wp-json/>; rel=\"https://api.w.org/\"")
	}
	if res.status == http.StatusOK {
		// As nginx and WordPress do: a validator, and 304 to a request
		// that holds it.
		etag := fmt.Sprintf("\"%x\"", hashString(string(res.body)))
		rw.Header().Set("ETag", etag)
		if r.Header.Get("If-None-Match") == etag {
			rw.Header().Set("Server", "nginx")
			rw.WriteHeader(http.StatusNotModified)
			return
		}
	}
	writeBody(rw, res.status, res.ctype, res.body)
}

// hashString is FNV-1a: stable, so a host's content and variants never change.
func hashString(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}
