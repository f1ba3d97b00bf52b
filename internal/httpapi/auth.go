package httpapi

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/seedengine/seedengine"
)

// authorize authenticates the request, applies the rate limit and checks
// the route's scope. It writes the problem and returns false when the
// request must stop.
//
// A token that is present but wrong is always 401, even when the API is
// open: a client that believes it authenticates should learn that it does
// not. Failed attempts count against the client's IP limit, which slows
// token guessing.
func (s *Server) authorize(rw *respWriter, r *http.Request, rt *route) bool {
	st := &rw.st
	if key, ok := r.Context().Value(actingKey{}).(*seedengine.APIKey); ok && key != nil {
		// An in-process request on a key's behalf (ServeAs): the key was
		// checked by the caller; its scope and rate limit still apply.
		st.key = key
		if !s.allow(rw, "key:"+key.ID) {
			return false
		}
		if !key.Scope.Allows(rt.Scope) {
			writeProblem(rw, newProblem(st, http.StatusForbidden, seedengine.EFORBIDDEN,
				"this route needs the "+string(rt.Scope)+" scope; the key has "+string(key.Scope)))
			return false
		}
		return true
	}
	if len(r.Header.Values("Authorization")) > 1 {
		// Which one counts would be this server's guess, and a proxy's
		// may differ.
		writeProblem(rw, newProblem(st, http.StatusBadRequest, seedengine.EINVALID, "send one Authorization header, not several"))
		return false
	}
	token, present, wellFormed := bearerToken(r)
	if present {
		if !wellFormed || s.deps.APIKeys == nil {
			if !s.allow(rw, clientNet(r)) {
				return false
			}
			s.unauthorized(rw, "the Authorization header must be \"Bearer <token>\" with a valid API key")
			return false
		}
		key, err := s.deps.APIKeys.FindAPIKeyByToken(r.Context(), token)
		if err != nil {
			switch seedengine.ErrorCode(err) {
			case seedengine.EUNAUTHORIZED, seedengine.ENOTFOUND:
				if !s.allow(rw, clientNet(r)) {
					return false
				}
				s.unauthorized(rw, "the API key is not valid or has been revoked")
			default:
				writeProblem(rw, s.authDependencyProblem(st, err))
			}
			return false
		}
		st.key = key
		if !s.allow(rw, "key:"+key.ID) {
			return false
		}
		if !key.Scope.Allows(rt.Scope) {
			writeProblem(rw, newProblem(st, http.StatusForbidden, seedengine.EFORBIDDEN,
				"this route needs the "+string(rt.Scope)+" scope; the key has "+string(key.Scope)))
			return false
		}
		return true
	}

	n := 0
	var err error
	if !s.cfg.RequireKeys {
		n, err = s.keys.count(r.Context())
	}
	if err != nil {
		writeProblem(rw, s.authDependencyProblem(st, err))
		return false
	}
	if !s.allow(rw, clientNet(r)) {
		return false
	}
	if n > 0 || s.cfg.RequireKeys {
		s.unauthorized(rw, "an API key is required: send Authorization: Bearer <token>")
		return false
	}
	// No key exists: the API is open with full access. cmd/seedengine only
	// allows this on a loopback listener.
	return true
}

func (s *Server) unauthorized(rw *respWriter, detail string) {
	rw.Header().Set("WWW-Authenticate", `Bearer realm="seedengine"`)
	writeProblem(rw, newProblem(&rw.st, http.StatusUnauthorized, seedengine.EUNAUTHORIZED, detail))
}

// authDependencyProblem answers when keys cannot be checked. It fails
// closed: 503 rather than letting the request through.
func (s *Server) authDependencyProblem(st *reqState, err error) *Problem {
	if clientGone(err) {
		return clientClosedProblem(st, err)
	}
	st.logError("api key lookup failed", err)
	// Keys live in the database: whichever step meets an outage first,
	// the key check or the route, the answer names what is down.
	return newProblem(st, http.StatusServiceUnavailable, seedengine.EUNAVAILABLE,
		"the database is not available right now, so API keys cannot be checked; try again later")
}

// bearerToken reads "Authorization: Bearer <token>". present reports a
// header at all; wellFormed that it holds a bearer token.
func bearerToken(r *http.Request) (token string, present, wellFormed bool) {
	h := r.Header.Get("Authorization")
	if h == "" {
		return "", false, false
	}
	scheme, tok, ok := strings.Cut(h, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", true, false
	}
	tok = strings.TrimSpace(tok)
	if tok == "" || len(tok) > 512 {
		return "", true, false
	}
	return tok, true, true
}

// keyCounter caches CountActiveAPIKeys, which decides whether the API is
// open, so it is not a query per request. Keys created or revoked through
// this server reset it at once; others (the apikey command) are seen
// within the TTL.
type keyCounter struct {
	svc seedengine.APIKeyService
	ttl time.Duration

	cur atomic.Pointer[keyCount]
	gen atomic.Uint64 // bumped by invalidate; a refresh begun before it is not stored
	mu  sync.Mutex    // one refresh at a time
}

type keyCount struct {
	n  int
	at time.Time
}

func newKeyCounter(svc seedengine.APIKeyService, ttl time.Duration) *keyCounter {
	return &keyCounter{svc: svc, ttl: ttl}
}

func (c *keyCounter) count(ctx context.Context) (int, error) {
	if c.svc == nil {
		return 0, nil
	}
	if kc := c.cur.Load(); kc != nil && time.Since(kc.at) < c.ttl {
		return kc.n, nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if kc := c.cur.Load(); kc != nil && time.Since(kc.at) < c.ttl {
		return kc.n, nil
	}
	gen := c.gen.Load()
	n, err := c.svc.CountActiveAPIKeys(ctx)
	if err != nil {
		return 0, err
	}
	// A key created while the count ran must not be hidden for a TTL by a
	// count taken before it existed.
	if c.gen.Load() == gen {
		c.cur.Store(&keyCount{n: n, at: time.Now()})
	}
	return n, nil
}

func (c *keyCounter) invalidate() {
	c.gen.Add(1)
	c.cur.Store(nil)
}

// actingKey is the context key of ServeAs. Its type is unexported, so no
// request from the network can carry it.
type actingKey struct{}

// ServeAs serves r as if it had come with key's bearer token: the same
// routes, validation, scope checks, rate limit, access log and metrics,
// the key's name as the actor. The operator console serves people signed
// in with a key through it, holding a session for the key and never its
// token. The caller must have checked that key is active.
func (s *Server) ServeAs(w http.ResponseWriter, r *http.Request, key *seedengine.APIKey) {
	s.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), actingKey{}, key)))
}
