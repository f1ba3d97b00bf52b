package fetch

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"io"
	"log"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/miekg/dns"
	"github.com/stretchr/testify/require"
)

var loopback = []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}

// newTestClient returns a Client for tests: loopback allowed, no per-host
// delay, short timeouts; cfg's non-zero fields win.
func newTestClient(t *testing.T, cfg Config) *Client {
	t.Helper()
	if cfg.AllowNetworks == nil {
		cfg.AllowNetworks = loopback
	}
	if cfg.PerHostDelay == 0 {
		cfg.PerHostDelay = NoPerHostDelay
	}
	if cfg.ConnectTimeout == 0 {
		cfg.ConnectTimeout = 2 * time.Second
	}
	if cfg.DNSTimeout == 0 {
		cfg.DNSTimeout = time.Second
	}
	if cfg.RequestTimeout == 0 {
		cfg.RequestTimeout = 5 * time.Second
	}
	if cfg.Version == "" {
		cfg.Version = "test"
	}
	c, err := New(cfg)
	require.NoError(t, err)
	t.Cleanup(c.Close)
	return c
}

// routeTo returns a connect-to entry sending every host and port to srv.
func routeTo(t *testing.T, srv *httptest.Server) string {
	t.Helper()
	return "::" + srvAddr(t, srv)
}

func srvAddr(t *testing.T, srv *httptest.Server) string {
	t.Helper()
	return srv.Listener.Addr().String()
}

func srvPort(t *testing.T, srv *httptest.Server) string {
	t.Helper()
	_, port, err := net.SplitHostPort(srvAddr(t, srv))
	require.NoError(t, err)
	return port
}

// dnsStub is an in-process DNS server on loopback. Names map to answers:
// IPv4/IPv6 addresses, or "nxdomain", "servfail", "refused", "silent".
// Unknown names are NXDOMAIN.
type dnsStub struct {
	Addr string
	mu   sync.Mutex
	qs   []string
}

func startDNS(t *testing.T, zone map[string][]string) *dnsStub {
	t.Helper()
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	require.NoError(t, err)
	stub := &dnsStub{Addr: pc.LocalAddr().String()}
	started := make(chan struct{})
	srv := &dns.Server{
		PacketConn:        pc,
		NotifyStartedFunc: func() { close(started) },
		Handler: dns.HandlerFunc(func(w dns.ResponseWriter, r *dns.Msg) {
			q := r.Question[0]
			name := strings.TrimSuffix(strings.ToLower(q.Name), ".")
			stub.mu.Lock()
			stub.qs = append(stub.qs, name)
			stub.mu.Unlock()
			m := new(dns.Msg)
			m.SetReply(r)
			answers, ok := zone[name]
			switch {
			case !ok || (len(answers) == 1 && answers[0] == "nxdomain"):
				m.SetRcode(r, dns.RcodeNameError)
			case len(answers) == 0: // NOERROR, no data
			case answers[0] == "servfail":
				m.SetRcode(r, dns.RcodeServerFailure)
			case answers[0] == "refused":
				m.SetRcode(r, dns.RcodeRefused)
			case answers[0] == "silent":
				return
			default:
				for _, a := range answers {
					ip := net.ParseIP(a)
					hdr := dns.RR_Header{Name: q.Name, Class: dns.ClassINET, Ttl: 60}
					switch {
					case ip.To4() != nil && q.Qtype == dns.TypeA:
						hdr.Rrtype = dns.TypeA
						m.Answer = append(m.Answer, &dns.A{Hdr: hdr, A: ip.To4()})
					case ip.To4() == nil && q.Qtype == dns.TypeAAAA:
						hdr.Rrtype = dns.TypeAAAA
						m.Answer = append(m.Answer, &dns.AAAA{Hdr: hdr, AAAA: ip})
					}
				}
			}
			_ = w.WriteMsg(m)
		}),
	}
	go func() { _ = srv.ActivateAndServe() }()
	<-started
	t.Cleanup(func() { _ = srv.Shutdown() })
	return stub
}

// queried reports whether the stub was asked about name.
func (s *dnsStub) queried(name string) bool {
	return s.queries(name) > 0
}

// queries counts the questions the stub was asked about name (A and AAAA
// count apart).
func (s *dnsStub) queries(name string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, q := range s.qs {
		if q == name {
			n++
		}
	}
	return n
}

// testCA is a certificate authority for TLS tests.
type testCA struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
	pem  []byte
}

func newTestCA(t *testing.T, name string) *testCA {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: name, Organization: []string{"seedengine tests"}},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(24 * time.Hour),
		IsCA:                  true,
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	require.NoError(t, err)
	cert, err := x509.ParseCertificate(der)
	require.NoError(t, err)
	return &testCA{cert: cert, key: key, pem: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})}
}

// file writes the CA certificate to a PEM file and returns its path.
func (ca *testCA) file(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "ca.pem")
	require.NoError(t, os.WriteFile(p, ca.pem, 0o600))
	return p
}

// leaf issues a server certificate for names valid from notBefore to
// notAfter.
func (ca *testCA) leaf(t *testing.T, names []string, notBefore, notAfter time.Time) tls.Certificate {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	serial, err := rand.Int(rand.Reader, big.NewInt(1<<62))
	require.NoError(t, err)
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: names[0]},
		DNSNames:     names,
		NotBefore:    notBefore,
		NotAfter:     notAfter,
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &key.PublicKey, ca.key)
	require.NoError(t, err)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
}

// startTLS starts an HTTPS test server presenting cert.
func startTLS(t *testing.T, h http.Handler, cert tls.Certificate) *httptest.Server {
	t.Helper()
	srv := httptest.NewUnstartedServer(h)
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // rejected handshakes are the point
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{cert}}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return srv
}

// startHTTP starts a plain HTTP test server.
func startHTTP(t *testing.T, h http.Handler) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

// reasonOf returns the *Error of err, failing the test if there is none.
func reasonOf(t *testing.T, err error) *Error {
	t.Helper()
	require.Error(t, err)
	fe, ok := err.(*Error)
	require.Truef(t, ok, "want *fetch.Error, got %T: %v", err, err)
	return fe
}
