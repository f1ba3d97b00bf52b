package httpapi

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"mime"
	"net"
	"net/http"
	"net/netip"
	"path"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/seedengine/seedengine"
)

// reqState is what the middleware learns about a request as it goes: the
// route once the mux has matched it, the key once auth has run. It lives
// inside the response writer, so open routes need no context allocation;
// API routes also get it in their context for handlers and huma's errors.
type reqState struct {
	srv   *Server
	id    string
	path  string
	route *route
	key   *seedengine.APIKey
}

func (st *reqState) routeLabel() string {
	if st == nil || st.route == nil {
		return "unmatched"
	}
	return st.route.Path
}

type stateKey struct{}

func stateFrom(ctx context.Context) *reqState {
	st, _ := ctx.Value(stateKey{}).(*reqState)
	return st
}

// KeyFromContext returns the API key that authenticated the request, or
// nil when the API is open (no key configured). Handlers use it for audit
// records.
func KeyFromContext(ctx context.Context) *seedengine.APIKey {
	if st := stateFrom(ctx); st != nil {
		return st.key
	}
	return nil
}

// RequestIDFromContext returns the request id also sent in X-Request-ID,
// so work started by a request can be logged under it.
func RequestIDFromContext(ctx context.Context) string {
	if st := stateFrom(ctx); st != nil {
		return st.id
	}
	return ""
}

// respWriter records what was sent, for the access log and metrics.
// retryAfterUnavailable is the Retry-After of a 503, in seconds: long
// enough not to hammer a store that is restarting, short enough that a
// blip costs a client little.
const retryAfterUnavailable = "5"

type respWriter struct {
	http.ResponseWriter
	st          reqState
	status      int
	bytes       int64
	wroteHeader bool
}

func (w *respWriter) WriteHeader(code int) {
	if !w.wroteHeader && code >= 200 {
		w.status = code
		w.wroteHeader = true
		// Every 503 says when to come back, whoever wrote it.
		if code == http.StatusServiceUnavailable && w.Header().Get("Retry-After") == "" {
			w.Header().Set("Retry-After", retryAfterUnavailable)
		}
		w.finalHeader()
	}
	w.ResponseWriter.WriteHeader(code)
}

// finalHeader completes the header block just before it is sent: an API
// route's body of a type that could script is an attachment (outside.go).
func (w *respWriter) finalHeader() {
	if rt := w.st.route; rt != nil && rt.Scope != "" {
		attachUnlessInert(w.Header())
	}
}

func (w *respWriter) Write(b []byte) (int, error) {
	if !w.wroteHeader {
		w.status = http.StatusOK
		w.wroteHeader = true
		w.finalHeader()
	}
	n, err := w.ResponseWriter.Write(b)
	w.bytes += int64(n)
	return n, err
}

// Unwrap lets http.ResponseController (used by huma for read deadlines)
// reach the connection.
func (w *respWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// Flush implements http.Flusher for handlers that stream.
func (w *respWriter) Flush() {
	if !w.wroteHeader {
		w.status = http.StatusOK
		w.wroteHeader = true
		w.finalHeader()
	}
	_ = http.NewResponseController(w.ResponseWriter).Flush()
}

// ServeHTTP is the outer middleware every request passes: request id,
// panic recovery, metrics and exactly one access-log line. It stays cheap
// because /health must serve tens of thousands of requests a second.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	rw := &respWriter{ResponseWriter: w}
	rw.st.srv = s
	rw.st.path = r.URL.Path
	rw.st.id = s.requestID(r)
	w.Header()["X-Request-Id"] = []string{rw.st.id}
	protect(w.Header())
	if len(s.cfg.TrustedProxies) > 0 {
		r = s.behindProxy(r)
	}
	defer s.finish(rw, r, start)
	if !canonicalPath(r.URL.Path) {
		// ServeMux would answer a redirect with an HTML body; a client of
		// this API sent a path it did not mean.
		writeProblem(rw, newProblem(&rw.st, http.StatusBadRequest, seedengine.EINVALID,
			"the path has empty, \".\" or \"..\" segments; send it in canonical form"))
		return
	}
	if _, acting := r.Context().Value(actingKey{}).(*seedengine.APIKey); !acting && !s.hostAllowed(r) {
		s.misdirected(rw)
		return
	}
	s.mux.ServeHTTP(rw, r)
}

// canonicalPath reports whether p is what ServeMux would not redirect:
// absolute, without empty, "." or ".." segments (a trailing slash is
// fine).
func canonicalPath(p string) bool {
	if p == "" || p[0] != '/' {
		return false
	}
	np := path.Clean(p)
	if p[len(p)-1] == '/' && np != "/" {
		np += "/"
	}
	return np == p
}

func (s *Server) finish(rw *respWriter, r *http.Request, start time.Time) {
	rec := recover()
	if rec != nil && rec != http.ErrAbortHandler {
		s.logger.LogAttrs(context.Background(), slog.LevelError, "panic in handler",
			slog.String("event", "http_panic"),
			slog.String("request_id", rw.st.id),
			slog.String("method", r.Method),
			slog.String("route", rw.st.routeLabel()),
			slog.String("panic", seedengine.Truncate(fmt.Sprint(rec), 1024)),
			slog.String("stack", string(debug.Stack())),
		)
		if !rw.wroteHeader {
			h := rw.Header()
			for k := range h {
				if k != "X-Request-Id" {
					delete(h, k)
				}
			}
			protect(h)
			writeProblem(rw, newProblem(&rw.st, http.StatusInternalServerError, seedengine.EINTERNAL, internalDetail))
		} else {
			// The status line is gone: count the request as failed and
			// abort the connection below, so the client sees a cut-off
			// response rather than a short one that looks complete.
			rw.status = http.StatusInternalServerError
			rec = http.ErrAbortHandler
		}
	}
	status := rw.status
	if !rw.wroteHeader {
		status = http.StatusOK // net/http sends 200 for a handler that wrote nothing
	}
	if status >= 500 && r.Context().Err() != nil {
		// The client went away first: whatever failed after that was
		// answered to nobody and is no server error.
		status = StatusClientClosedRequest
	}
	end := time.Now()
	dur := end.Sub(start)
	s.metrics.observe(r.Method, rw.st.route, status, dur)
	s.logAccess(r, rw, status, end, dur)
	if rec == http.ErrAbortHandler {
		panic(rec) // let net/http abort the connection as the handler asked
	}
}

// logAccess writes the one access-log line of a request. It builds the
// record itself rather than calling Logger.LogAttrs, which would capture
// the caller's program counter on every request for a source location
// this line never needs.
func (s *Server) logAccess(r *http.Request, rw *respWriter, status int, end time.Time, dur time.Duration) {
	h := s.logger.Handler()
	ctx := r.Context()
	if !h.Enabled(ctx, slog.LevelInfo) {
		return
	}
	key := "-"
	if rw.st.key != nil {
		key = rw.st.key.Name
	}
	rec := slog.NewRecord(end, slog.LevelInfo, "http request", 0)
	rec.AddAttrs(
		slog.String("event", "http_request"),
		slog.String("method", r.Method),
		slog.String("route", rw.st.routeLabel()),
		slog.String("path", seedengine.Truncate(r.URL.Path, 512)),
		slog.Int("status", status),
		slog.Int64("bytes", rw.bytes),
		slog.Float64("duration_ms", float64(dur.Microseconds())/1000),
		slog.String("request_id", rw.st.id),
		slog.String("key", key),
		slog.String("remote", clientIP(r)),
	)
	_ = h.Handle(ctx, rec)
}

// wrap is the per-route middleware: it records the route and, for API
// routes, authenticates, rate-limits, answers 501 for routes not built yet
// and caps the body. Open routes return after one assignment.
func (s *Server) wrap(rt *route, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rw, ok := w.(*respWriter)
		if !ok {
			// Only reachable when the mux is served without ServeHTTP.
			rw = &respWriter{ResponseWriter: w, st: reqState{srv: s, path: r.URL.Path, id: s.ids.next()}}
		}
		st := &rw.st
		st.route = rt
		if rt.Scope == "" {
			h.ServeHTTP(rw, r)
			return
		}
		if !s.authorize(rw, r, rt) {
			return
		}
		limit := s.bodyLimit(rt)
		if r.ContentLength > limit {
			writeProblem(rw, newProblem(st, http.StatusRequestEntityTooLarge, seedengine.ETOOLARGE,
				"request body is larger than "+strconv.FormatInt(limit, 10)+" bytes"))
			return
		}
		r = r.WithContext(context.WithValue(r.Context(), stateKey{}, st))
		if p := checkParams(st, r, rt); p != nil {
			writeProblem(rw, p)
			return
		}
		if r.Body != nil && r.Body != http.NoBody {
			// The original writer, so net/http closes the connection
			// after a body that was cut off.
			r.Body = http.MaxBytesReader(rw.ResponseWriter, r.Body, limit)
			if takesBody(r.Method) {
				if p := s.checkBody(rw, r, rt); p != nil {
					writeProblem(rw, p)
					return
				}
			}
		}
		h.ServeHTTP(rw, r)
	})
}

// checkParams holds the path and query of every API request to rules the
// schema cannot state: no U+0000 anywhere (PostgreSQL's text cannot hold
// it, so one engine would store what the other answers 500 to), and no
// NaN or infinity in a number parameter (strconv.ParseFloat, which reads
// them, takes "NaN" and "Inf", and NaN passes every minimum and maximum,
// every comparison with it being false).
func checkParams(st *reqState, r *http.Request, rt *route) *Problem {
	if strings.IndexByte(r.URL.Path, 0) >= 0 {
		return newProblem(st, http.StatusBadRequest, seedengine.EINVALID, "the path may not contain U+0000")
	}
	if r.URL.RawQuery == "" {
		return nil
	}
	q := r.URL.Query()
	invalid := func(name, msg string) *Problem {
		p := newProblem(st, http.StatusUnprocessableEntity, seedengine.EINVALID, "validation failed")
		p.Errors = []FieldError{{Location: "query." + seedengine.Truncate(name, 60), Message: msg}}
		return p
	}
	for _, name := range sortedKeys(q) {
		for _, v := range q[name] {
			if strings.IndexByte(name, 0) >= 0 || strings.IndexByte(v, 0) >= 0 {
				return invalid(strings.ReplaceAll(name, "\x00", ""), "may not contain U+0000")
			}
		}
	}
	for _, name := range rt.numbers {
		for _, v := range q[name] {
			if f, err := strconv.ParseFloat(v, 64); err == nil && (math.IsNaN(f) || math.IsInf(f, 0)) {
				return invalid(name, "must be a finite number")
			}
		}
	}
	return nil
}

// minStreamRate is the slowest a streamed body may arrive on average,
// after its first Config.BodyReadTimeout: a 512 MiB save at this rate takes
// about two hours; one that falls behind gets 408.
const minStreamRate = 64 << 10 // bytes per second

func takesBody(method string) bool {
	return method == http.MethodPost || method == http.MethodPut || method == http.MethodPatch
}

// jsonMediaType returns the media type of a JSON Content-Type, in lower
// case (RFC 9110: types compare case-insensitively): application/json or a
// +json type (application/merge-patch+json). ok is false for any other
// type, and for a charset other than UTF-8, the only encoding of JSON
// this API reads (RFC 8259 §8.1).
func jsonMediaType(ct string) (mt string, ok bool) {
	mt, params, err := mime.ParseMediaType(ct) // lower-cases type and parameter names
	if err != nil {
		return "", false
	}
	if cs, has := params["charset"]; has && !strings.EqualFold(cs, "utf-8") {
		return "", false
	}
	return mt, mt == "application/json" || (strings.HasPrefix(mt, "application/") && strings.HasSuffix(mt, "+json"))
}

// checkBody holds every request body to the same rules before a handler
// sees it: a JSON Content-Type (415 otherwise, also when there is none),
// arrival within Config.BodyReadTimeout (408), and strictJSON's checks (400 for
// invalid UTF-8, 422 for a repeated key or a number out of range). A body
// of a route that streams (dataset saves) is checked as it is read, with a
// deadline that grows with what has arrived; every other body is read
// whole here, as huma would read it anyway.
func (s *Server) checkBody(rw *respWriter, r *http.Request, rt *route) *Problem {
	st := &rw.st
	if rt.text != nil {
		return s.checkTextBody(rw, r, rt)
	}
	mt, ok := jsonMediaType(r.Header.Get("Content-Type"))
	if !ok || len(r.Header.Values("Content-Type")) > 1 {
		return newProblem(st, http.StatusUnsupportedMediaType, seedengine.EINVALID,
			"request bodies are JSON in UTF-8: send one Content-Type: application/json header")
	}
	// What reads the body next (huma, a handler) looks the type up as
	// written: hand it the one spelling.
	r.Header.Set("Content-Type", mt)
	rc := http.NewResponseController(rw.ResponseWriter)
	if rt.maxBody > 0 {
		r.Body = &streamBody{r: r.Body, rc: rc, start: time.Now(), timeout: s.cfg.BodyReadTimeout, strict: strictJSON{next: rt.body}}
		_ = rc.SetReadDeadline(time.Now().Add(s.cfg.BodyReadTimeout))
		return nil
	}
	body, p := s.readBody(st, rc, r)
	if p != nil {
		return p
	}
	if se := checkJSON(body, rt.body); se != nil {
		return se.problem(st)
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	r.ContentLength = int64(len(body))
	return nil
}

// checkTextBody holds a document body (a route with text media types) to
// the same rules as a JSON one, but its own types: one Content-Type
// header naming one of them, any charset parameter utf-8 (415
// otherwise), arrival within Config.BodyReadTimeout (408), within the
// route's limit (413). What the document holds is its handler's to check.
func (s *Server) checkTextBody(rw *respWriter, r *http.Request, rt *route) *Problem {
	st := &rw.st
	mt, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	cs, hasCS := params["charset"]
	if err != nil || len(r.Header.Values("Content-Type")) > 1 || !slices.Contains(rt.text, mt) || (hasCS && !strings.EqualFold(cs, "utf-8")) {
		return newProblem(st, http.StatusUnsupportedMediaType, seedengine.EINVALID,
			"send one Content-Type header naming one of "+strings.Join(rt.text, ", ")+" (UTF-8)")
	}
	r.Header.Set("Content-Type", mt)
	body, p := s.readBody(st, http.NewResponseController(rw.ResponseWriter), r)
	if p != nil {
		return p
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	r.ContentLength = int64(len(body))
	return nil
}

// readBody reads a whole request body within Config.BodyReadTimeout: 413
// past the route's limit, 408 late, 499 when the client went away, 400
// cut short.
func (s *Server) readBody(st *reqState, rc *http.ResponseController, r *http.Request) ([]byte, *Problem) {
	_ = rc.SetReadDeadline(time.Now().Add(s.cfg.BodyReadTimeout))
	body, err := io.ReadAll(r.Body)
	_ = r.Body.Close()
	// The deadline is the body's, not the handler's: left in place, it
	// would expire under a long handler, and net/http's background read
	// would take that for a client gone and cancel the request.
	_ = rc.SetReadDeadline(time.Time{})
	if err == nil {
		return body, nil
	}
	var mbe *http.MaxBytesError
	switch {
	case errors.As(err, &mbe):
		return nil, newProblem(st, http.StatusRequestEntityTooLarge, seedengine.ETOOLARGE,
			"request body is larger than "+strconv.FormatInt(mbe.Limit, 10)+" bytes")
	case isTimeout(err):
		return nil, newProblem(st, http.StatusRequestTimeout, seedengine.EINVALID, "request body not received in time")
	}
	if r.Context().Err() != nil {
		return nil, clientClosedProblem(st, r.Context().Err())
	}
	return nil, newProblem(st, http.StatusBadRequest, seedengine.EINVALID, "request body ended early")
}

// streamBody is a streamed request body held to strictJSON and to a read
// deadline that moves with what has arrived: the body read timeout, plus
// one second per minStreamRate bytes. Its read errors are bodyReadErrors, so
// a timeout is told from a handler's own.
type streamBody struct {
	r       io.ReadCloser
	rc      *http.ResponseController
	start   time.Time
	timeout time.Duration
	n       int64
	strict  strictJSON
}

func (b *streamBody) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	b.n += int64(n)
	if n > 0 {
		_, _ = b.strict.Write(p[:n])
		allowed := b.timeout + time.Duration(b.n/minStreamRate)*time.Second
		_ = b.rc.SetReadDeadline(b.start.Add(allowed))
	}
	if err == io.EOF {
		b.strict.Close()
		_ = b.rc.SetReadDeadline(time.Time{}) // see checkBody
	}
	if se := b.strict.Err(); se != nil {
		return n, se
	}
	if err != nil && err != io.EOF {
		return n, &bodyReadError{err: err}
	}
	return n, err
}

func (b *streamBody) Close() error { return b.r.Close() }

// handleUnmatched answers every request no route matched: 405 with Allow
// when the path is known, 404 otherwise, both as problems.
func (s *Server) handleUnmatched(w http.ResponseWriter, r *http.Request) {
	st := &reqState{srv: s, path: r.URL.Path}
	if rw, ok := w.(*respWriter); ok {
		st = &rw.st
	}
	if _, pattern := s.probe.Handler(r); pattern != "" {
		if allow, ok := s.allowed[pattern]; ok {
			w.Header().Set("Allow", allow)
			writeProblem(w, newProblem(st, http.StatusMethodNotAllowed, seedengine.EINVALID,
				"this method is not allowed here; allowed: "+allow))
			return
		}
	}
	writeProblem(w, newProblem(st, http.StatusNotFound, seedengine.ENOTFOUND, "no such route"))
}

// idGen makes request ids from a random per-process prefix and a counter:
// unique across processes, ordered within one, and free of the syscall a
// random id per request would cost.
type idGen struct {
	prefix string
	n      atomic.Uint64
}

func newIDGen() *idGen {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return &idGen{prefix: hex.EncodeToString(b[:])}
}

func (g *idGen) next() string {
	const digits = "0123456789abcdef"
	n := g.n.Add(1)
	buf := make([]byte, len(g.prefix)+1+12)
	copy(buf, g.prefix)
	buf[len(g.prefix)] = '-'
	for i := len(buf) - 1; i > len(g.prefix); i-- {
		buf[i] = digits[n&0xf]
		n >>= 4
	}
	return string(buf)
}

// requestID keeps a caller's X-Request-ID when it is 1 to 128 visible
// ASCII characters, so a trace can cross services; anything else could
// forge log lines or bloat them, and is replaced.
func (s *Server) requestID(r *http.Request) string {
	v := r.Header["X-Request-Id"]
	if len(v) == 1 && saneRequestID(v[0]) {
		return v[0]
	}
	return s.ids.next()
}

func saneRequestID(id string) bool {
	if id == "" || len(id) > 128 {
		return false
	}
	for i := 0; i < len(id); i++ {
		if id[i] < 0x21 || id[i] > 0x7e {
			return false
		}
	}
	return true
}

// clientIP is the peer address. X-Forwarded-For is not trusted: anyone can
// set it, and a proxy deployment would configure trust explicitly.
type httpsKey struct{}

// behindProxy rewrites a request that a trusted proxy forwarded: its
// RemoteAddr becomes the client's (port 0), and X-Forwarded-Proto: https
// marks it as received over TLS. A request from elsewhere is unchanged.
func (s *Server) behindProxy(r *http.Request) *http.Request {
	peer, err := netip.ParseAddr(clientIP(r))
	if err != nil || !s.trusted(peer) {
		return r
	}
	client := peer
	hops := r.Header.Values("X-Forwarded-For")
	var addrs []string
	for _, h := range hops {
		for a := range strings.SplitSeq(h, ",") {
			addrs = append(addrs, strings.TrimSpace(a))
		}
	}
	// From the nearest hop back: the first address not a trusted proxy
	// is the client; the ones before it are the client's to forge.
	for i := len(addrs) - 1; i >= 0; i-- {
		a, err := netip.ParseAddr(addrs[i])
		if err != nil {
			break
		}
		client = a.Unmap()
		if !s.trusted(client) {
			break
		}
	}
	r2 := r.Clone(r.Context())
	r2.RemoteAddr = netip.AddrPortFrom(client, 0).String()
	protos := r.Header.Values("X-Forwarded-Proto")
	if len(protos) > 0 {
		last := protos[len(protos)-1]
		if i := strings.LastIndexByte(last, ','); i >= 0 {
			last = last[i+1:]
		}
		if strings.EqualFold(strings.TrimSpace(last), "https") {
			r2 = r2.WithContext(context.WithValue(r2.Context(), httpsKey{}, true))
		}
	}
	return r2
}

func (s *Server) trusted(a netip.Addr) bool {
	a = a.Unmap()
	for _, p := range s.cfg.TrustedProxies {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// IsHTTPS reports whether a request arrived over TLS: directly, or through
// a trusted proxy that says so (Config.TrustedProxies).
func IsHTTPS(r *http.Request) bool {
	if r.TLS != nil {
		return true
	}
	v, _ := r.Context().Value(httpsKey{}).(bool)
	return v
}

func clientIP(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// clientNet is the rate-limit identity of a request without a key: the
// IPv4 address, or the IPv6 /64, since one IPv6 host usually holds a whole
// /64 and could otherwise rotate addresses to dodge the limit.
func clientNet(r *http.Request) string {
	ip := clientIP(r)
	addr, err := netip.ParseAddr(ip)
	if err != nil {
		return "ip:" + ip
	}
	addr = addr.Unmap()
	if addr.Is6() {
		if p, err := addr.Prefix(64); err == nil {
			return "ip:" + p.String()
		}
	}
	return "ip:" + addr.String()
}
