package simweb

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/miekg/dns"
)

// Config configures a simulated web. The zero value is ready to use.
type Config struct {
	// Seed drives Generate: the same seed and the same sequence of Generate
	// calls give the same sites, so benchmark runs can be repeated.
	Seed int64
	// Logger receives simweb_started at Info and one event per HTTP request
	// and DNS query at Debug; nil discards everything.
	Logger *slog.Logger
	// Now is the clock for the dates in pages, feeds and sitemaps; nil
	// means time.Now. Content dates are counted back from the start of
	// Now's UTC day, so they stay fresh (the newest item is at most a few
	// days old) yet do not change between two requests of one test. Set a
	// fixed clock to get byte-identical content. Certificates always use
	// the real clock, because clients check them against it.
	Now func() time.Time
	// HTTPAddr, HTTPSAddr and DNSAddr fix the listen addresses for manual
	// runs; empty means 127.0.0.1 with a port chosen by the OS, which lets
	// tests run in parallel. The host must be 127.0.0.1: simweb never
	// listens beyond loopback.
	HTTPAddr, HTTPSAddr, DNSAddr string
}

// Web is a running simulated web: HTTP, HTTPS and DNS on 127.0.0.1 for any
// number of virtual hosts. Its methods are safe for concurrent use.
type Web struct {
	cfg Config
	log *slog.Logger
	now func() time.Time
	ca  *authority

	httpLn, httpsLn   net.Listener
	httpSrv, httpsSrv *http.Server
	dnsUDP, dnsTCP    *dns.Server
	dnsPC             net.PacketConn
	dnsLn             net.Listener
	dnsAddr           string
	refusedPort       int
	releaseRefused    func() error

	mu       sync.RWMutex
	sites    map[string]*Site
	genNext  int
	genCalls uint64

	requests sync.Map // host → *atomic.Int64
	inflight atomic.Int64
	observe  atomic.Pointer[func(*http.Request)]

	wg        sync.WaitGroup
	closeOnce sync.Once
	closeErr  error
}

// Start starts the listeners and servers and returns once all of them accept
// connections.
func Start(cfg Config) (*Web, error) {
	w := &Web{
		cfg:   cfg,
		log:   cfg.Logger,
		now:   cfg.Now,
		sites: make(map[string]*Site),
	}
	if w.log == nil {
		w.log = slog.New(slog.DiscardHandler)
	}
	if w.now == nil {
		w.now = time.Now
	}
	if err := w.start(); err != nil {
		w.Close()
		return nil, err
	}
	w.log.LogAttrs(context.Background(), slog.LevelInfo, "simweb_started",
		slog.String("event", "simweb_started"),
		slog.String("http_addr", w.HTTPAddr()),
		slog.String("https_addr", w.HTTPSAddr()),
		slog.String("dns_addr", w.DNSAddr()),
		slog.Int("refused_port", w.refusedPort))
	return w, nil
}

func loopbackAddr(addr string) (string, error) {
	if addr == "" {
		return "127.0.0.1:0", nil
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", fmt.Errorf("simweb: listen address %q: %w", addr, err)
	}
	if host != "127.0.0.1" {
		return "", fmt.Errorf("simweb: listen address %q: host must be 127.0.0.1", addr)
	}
	if _, err := strconv.ParseUint(port, 10, 16); err != nil {
		return "", fmt.Errorf("simweb: listen address %q: bad port", addr)
	}
	return addr, nil
}

func (w *Web) start() error {
	httpAddr, err := loopbackAddr(w.cfg.HTTPAddr)
	if err != nil {
		return err
	}
	httpsAddr, err := loopbackAddr(w.cfg.HTTPSAddr)
	if err != nil {
		return err
	}
	dnsAddr, err := loopbackAddr(w.cfg.DNSAddr)
	if err != nil {
		return err
	}
	if w.ca, err = newAuthority(); err != nil {
		return fmt.Errorf("simweb: %w", err)
	}
	if w.refusedPort, w.releaseRefused, err = reserveClosedPort(); err != nil {
		return fmt.Errorf("simweb: reserve a closed port: %w", err)
	}
	if w.httpLn, err = net.Listen("tcp4", httpAddr); err != nil {
		return fmt.Errorf("simweb: listen http: %w", err)
	}
	if w.httpsLn, err = net.Listen("tcp4", httpsAddr); err != nil {
		return fmt.Errorf("simweb: listen https: %w", err)
	}
	pc, ln, err := listenDNS(dnsAddr)
	if err != nil {
		return fmt.Errorf("simweb: %w", err)
	}
	w.dnsPC, w.dnsLn, w.dnsAddr = pc, ln, pc.LocalAddr().String()
	if err := w.startDNS(); err != nil {
		return fmt.Errorf("simweb: %w", err)
	}

	errLog := log.New(io.Discard, "", 0)
	if w.cfg.Logger != nil {
		// Handshake failures are the point of several scenarios; keep them
		// out of the way at Debug.
		errLog = slog.NewLogLogger(w.cfg.Logger.Handler(), slog.LevelDebug)
	}
	newServer := func() *http.Server {
		return &http.Server{
			Handler:           http.HandlerFunc(w.serveHTTP),
			ReadHeaderTimeout: 10 * time.Second,
			IdleTimeout:       90 * time.Second,
			MaxHeaderBytes:    64 << 10,
			ErrorLog:          errLog,
			// HTTP/1.1 only: the reset scenario needs to hijack the
			// connection, which HTTP/2 does not allow.
			TLSNextProto: map[string]func(*http.Server, *tls.Conn, http.Handler){},
		}
	}
	w.httpSrv, w.httpsSrv = newServer(), newServer()
	tlsLn := tls.NewListener(w.httpsLn, &tls.Config{
		GetCertificate: w.getCertificate,
		MinVersion:     tls.VersionTLS12,
		NextProtos:     []string{"http/1.1"},
	})
	serve := func(srv *http.Server, ln net.Listener) {
		defer w.wg.Done()
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			w.log.LogAttrs(context.Background(), slog.LevelError, "simweb_serve_failed",
				slog.String("event", "simweb_serve_failed"), slog.String("error", err.Error()))
		}
	}
	w.wg.Add(2)
	go serve(w.httpSrv, w.httpLn)
	go serve(w.httpsSrv, tlsLn)
	return nil
}

// Close stops every server and closes every connection, including those of
// requests still waiting in a slow scenario. It is safe to call more than once.
func (w *Web) Close() error {
	w.closeOnce.Do(func() {
		var errs []error
		if w.httpSrv != nil {
			// Serve closes its listener on return, also when Close came first.
			errs = append(errs, w.httpSrv.Close(), w.httpsSrv.Close())
		} else {
			for _, ln := range []net.Listener{w.httpLn, w.httpsLn} {
				if ln != nil {
					errs = append(errs, ln.Close())
				}
			}
		}
		errs = append(errs, w.stopDNS())
		if w.releaseRefused != nil {
			errs = append(errs, w.releaseRefused())
		}
		w.wg.Wait()
		w.closeErr = errors.Join(errs...)
	})
	return w.closeErr
}

// HTTPAddr is the plain HTTP listener, "127.0.0.1:port".
func (w *Web) HTTPAddr() string { return addrString(w.httpLn) }

// HTTPSAddr is the TLS listener, "127.0.0.1:port".
func (w *Web) HTTPSAddr() string { return addrString(w.httpsLn) }

// DNSAddr is the DNS server, "127.0.0.1:port", on UDP and TCP alike.
func (w *Web) DNSAddr() string { return w.dnsAddr }

func addrString(ln net.Listener) string {
	if ln == nil {
		return ""
	}
	return ln.Addr().String()
}

func port(addr string) string {
	_, p, _ := net.SplitHostPort(addr)
	return p
}

// CACertPEM is the certificate of simweb's CA, which clients must trust to
// see the valid certificates as valid (and only then the TLS scenarios as
// the errors they are).
func (w *Web) CACertPEM() []byte { return append([]byte(nil), w.ca.caPEM...) }

// WriteCAFile writes the CA certificate to dir/simweb-ca.pem, for settings
// such as --extra-ca-file that take a path, and returns the path.
func (w *Web) WriteCAFile(dir string) (string, error) {
	path := filepath.Join(dir, "simweb-ca.pem")
	if err := os.WriteFile(path, w.ca.caPEM, 0o644); err != nil {
		return "", fmt.Errorf("simweb: write CA file: %w", err)
	}
	return path, nil
}

// ConnectTo returns curl-style connect-to entries (HOST:PORT:ADDR:PORT) that
// send every connection to simweb: first one pair per refused host (and its
// www.) pointing ports 80 and 443 at a reserved closed port, so connecting
// is refused as the scenario needs, then ":80:127.0.0.1:<http port>" and
// ":443:127.0.0.1:<https port>" for everything else. The first matching entry
// wins, as in curl. The list is a snapshot: call it again after adding
// refused sites.
func (w *Web) ConnectTo() []string {
	w.mu.RLock()
	var refused []string
	for host, s := range w.sites {
		if s.Scenario == ScenarioRefused {
			refused = append(refused, host, "www."+host)
		}
	}
	w.mu.RUnlock()
	sort.Strings(refused)
	out := make([]string, 0, 2*len(refused)+2)
	closed := strconv.Itoa(w.refusedPort)
	for _, h := range refused {
		out = append(out, h+":80:127.0.0.1:"+closed, h+":443:127.0.0.1:"+closed)
	}
	return append(out,
		":80:127.0.0.1:"+port(w.HTTPAddr()),
		":443:127.0.0.1:"+port(w.HTTPSAddr()))
}

// RefusedAddr is the reserved loopback address where connections are
// refused (the target of the refused hosts' connect-to entries), for clients
// that route by other means.
func (w *Web) RefusedAddr() string {
	return net.JoinHostPort("127.0.0.1", strconv.Itoa(w.refusedPort))
}

// AddSite adds s, replacing any site with the same host; requests already
// in progress finish with the old configuration. A redirect_external site
// without RedirectTo also gets its default target registered as a healthy
// site.
//
// AddSite panics on an empty host, an unknown scenario or an unknown
// layout: those are mistakes in a test, and a site silently behaving as
// healthy would hide them.
func (w *Web) AddSite(s Site) {
	s.Host = normalizeHost(s.Host)
	if s.Scenario == "" {
		s.Scenario = ScenarioHealthy
	}
	if s.Layout == "" {
		s.Layout = LayoutWordPress
	}
	if err := s.validate(); err != nil {
		panic(err)
	}
	var target string
	if s.Scenario == ScenarioRedirectExternal && s.RedirectTo == "" {
		target = movedTarget(s.Host)
		s.RedirectTo = target
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.sites[s.Host] = &s
	if target != "" {
		if _, ok := w.sites[target]; !ok {
			w.sites[target] = &Site{Host: target, Scenario: ScenarioHealthy, Layout: s.Layout}
		}
	}
}

// Site returns the configuration of host as AddSite stored it (host name
// normalised, defaults filled in).
func (w *Web) Site(host string) (Site, bool) {
	w.mu.RLock()
	defer w.mu.RUnlock()
	s, ok := w.sites[normalizeHost(host)]
	if !ok {
		return Site{}, false
	}
	return *s, true
}

// Requests is the number of HTTP requests that reached the handler for this
// exact host name (a site's www. name counts separately), including requests
// that were then reset or delayed, and requests for unknown hosts.
func (w *Web) Requests(host string) int {
	if c, ok := w.requests.Load(normalizeHost(host)); ok {
		return int(c.(*atomic.Int64).Load())
	}
	return 0
}

// Observe has fn called with every request, before it is answered (its
// Host as sent, port and all); nil stops it. fn must not keep r.
func (w *Web) Observe(fn func(r *http.Request)) {
	if fn == nil {
		w.observe.Store(nil)
		return
	}
	w.observe.Store(&fn)
}

func (w *Web) countRequest(host string) {
	c, ok := w.requests.Load(host)
	if !ok {
		c, _ = w.requests.LoadOrStore(host, new(atomic.Int64))
	}
	c.(*atomic.Int64).Add(1)
}

// lookup finds the site serving a name: the site of that exact host, or the
// site whose www. name it is (www reports the latter).
func (w *Web) lookup(name string) (site *Site, www bool) {
	w.mu.RLock()
	defer w.mu.RUnlock()
	if s, ok := w.sites[name]; ok {
		return s, false
	}
	if len(name) > 4 && name[:4] == "www." {
		if s, ok := w.sites[name[4:]]; ok {
			return s, true
		}
	}
	return nil, false
}

// effective is the scenario that applies to the apex (www false) or to the
// www. name: the www. name of a redirect_www site is the healthy target.
func (s *Site) effective(www bool) Scenario {
	if www && s.Scenario == ScenarioRedirectWWW {
		return ScenarioHealthy
	}
	return s.Scenario
}
