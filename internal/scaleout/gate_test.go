package scaleout_test

import (
	"bytes"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// gateProxy sits between the processes and versitygw, with one listener
// per process, so the test knows which process makes a request. While the
// gate is shut, object writes (PUT) wait in the proxy, their bodies read:
// a job that writes an object stays in flight, held, until the gate opens
// or its process goes away (a held request whose client disconnected is
// dropped, never forwarded). Everything else, the object store's own
// probe included, passes at once. The Host
// header is passed on unchanged, so the SigV4 signatures still match.
type gateProxy struct {
	proxy *httputil.ReverseProxy

	mu      sync.Mutex
	shut    bool
	open    chan struct{}             // closed when the gate opens
	held    map[string]map[string]int // process → object kind → writes held now
	addrs   map[string]string         // process → listen address
	servers map[string]*http.Server
}

func newGateProxy(tb testing.TB, target string) *gateProxy {
	tb.Helper()
	u, err := url.Parse(target)
	require.NoError(tb, err)
	g := &gateProxy{
		open:    make(chan struct{}),
		held:    map[string]map[string]int{},
		addrs:   map[string]string{},
		servers: map[string]*http.Server{},
	}
	close(g.open)
	g.proxy = &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(u)
			pr.Out.Host = pr.In.Host
		},
		Transport: &http.Transport{Proxy: nil, MaxIdleConnsPerHost: 64},
	}
	tb.Cleanup(func() {
		g.mu.Lock()
		defer g.mu.Unlock()
		for _, s := range g.servers {
			_ = s.Close()
		}
	})
	return g
}

// listener returns the address the process named name reaches the store
// at, listening on it first if needed (a restarted process keeps it).
func (g *gateProxy) listener(tb testing.TB, name string) string {
	tb.Helper()
	g.mu.Lock()
	defer g.mu.Unlock()
	if a, ok := g.addrs[name]; ok {
		return a
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(tb, err)
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { g.serve(name, w, r) })}
	go func() { _ = srv.Serve(ln) }()
	g.addrs[name] = ln.Addr().String()
	g.servers[name] = srv
	g.held[name] = map[string]int{}
	return g.addrs[name]
}

// objectKind names the work an object key belongs to.
func objectKind(path string) string {
	key := strings.TrimPrefix(path, "/"+s3Bucket+"/")
	switch {
	case strings.HasPrefix(key, "raw/"):
		return "research"
	case strings.HasPrefix(key, "prod/liveness/"):
		return "liveness"
	case strings.HasPrefix(key, "prod/contracts/"):
		return "contract"
	}
	return "other"
}

func (g *gateProxy) serve(name string, w http.ResponseWriter, r *http.Request) {
	// The store's own probe (blobstore's _seedengine/ keys) is no job's
	// write: it passes.
	if r.Method == http.MethodPut && !strings.HasPrefix(r.URL.Path, "/"+s3Bucket+"/_seedengine/") {
		g.mu.Lock()
		shut, open := g.shut, g.open
		g.mu.Unlock()
		if shut {
			// Reading the body whole lets the server notice a client
			// that goes away while the request is held.
			body, err := io.ReadAll(r.Body)
			if err != nil {
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
			kind := objectKind(r.URL.Path)
			g.mu.Lock()
			g.held[name][kind]++
			g.mu.Unlock()
			select {
			case <-open:
			case <-r.Context().Done():
			}
			g.mu.Lock()
			g.held[name][kind]--
			g.mu.Unlock()
			if r.Context().Err() != nil {
				return // the client is gone: the write never reaches the store
			}
		}
	}
	g.proxy.ServeHTTP(w, r)
}

// shutGate makes object writes wait from now on.
func (g *gateProxy) shutGate() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.shut {
		g.shut, g.open = true, make(chan struct{})
	}
}

// openGate lets the held writes and all later ones through.
func (g *gateProxy) openGate() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.shut {
		g.shut = false
		close(g.open)
	}
}

// heldBy returns the writes of process name held now, by object kind.
func (g *gateProxy) heldBy(name string) map[string]int {
	g.mu.Lock()
	defer g.mu.Unlock()
	out := map[string]int{}
	for k, n := range g.held[name] {
		if n > 0 {
			out[k] = n
		}
	}
	return out
}
