package simweb

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"sync"
	"time"
)

// certKind is the flavour of a leaf certificate.
type certKind uint8

const (
	certValid certKind = iota
	certExpired
	certWrongName
)

// wrongName is the name on the certificate of every tls_wrong_name site: the
// default certificate of a shared host, the usual cause of this error.
const wrongName = "default.shared-hosting.example"

// maxCachedCerts bounds the certificate cache. A leaf costs about 600 bytes
// here; the bound only matters for clients that send endless new SNI names.
const maxCachedCerts = 50_000

type certKey struct {
	kind certKind
	name string
}

// authority is simweb's CA. All leaves share one key: key generation is the
// expensive part and nothing here needs distinct keys.
type authority struct {
	caCert  *x509.Certificate
	caKey   *ecdsa.PrivateKey
	caPEM   []byte
	leafKey *ecdsa.PrivateKey

	mu    sync.Mutex
	cache map[certKey]*tls.Certificate
}

func newAuthority() (*authority, error) {
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("generate CA key: %w", err)
	}
	leafKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("generate leaf key: %w", err)
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber:          serial(),
		Subject:               pkix.Name{CommonName: "simweb test CA", Organization: []string{"seedengine simweb"}},
		NotBefore:             now.Add(-2 * 365 * 24 * time.Hour),
		NotAfter:              now.Add(5 * 365 * 24 * time.Hour),
		IsCA:                  true,
		BasicConstraintsValid: true,
		MaxPathLenZero:        true,
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign | x509.KeyUsageDigitalSignature,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &caKey.PublicKey, caKey)
	if err != nil {
		return nil, fmt.Errorf("create CA certificate: %w", err)
	}
	caCert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, fmt.Errorf("parse CA certificate: %w", err)
	}
	return &authority{
		caCert:  caCert,
		caKey:   caKey,
		caPEM:   pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		leafKey: leafKey,
		cache:   make(map[certKey]*tls.Certificate),
	}, nil
}

func serial() *big.Int {
	n, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		panic(err) // crypto/rand does not fail on supported platforms
	}
	return n
}

// certificate returns the leaf for name (an empty name is a client that sent
// no SNI, which gets a certificate for 127.0.0.1).
func (a *authority) certificate(name string, kind certKind) (*tls.Certificate, error) {
	if kind == certWrongName {
		name = wrongName
	}
	key := certKey{kind, name}
	a.mu.Lock()
	c, ok := a.cache[key]
	a.mu.Unlock()
	if ok {
		return c, nil
	}

	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber: serial(),
		Subject:      pkix.Name{CommonName: name},
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     now.Add(90 * 24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	switch {
	case name == "":
		tmpl.Subject.CommonName = "127.0.0.1"
		tmpl.IPAddresses = []net.IP{net.IPv4(127, 0, 0, 1)}
	case kind == certWrongName:
		tmpl.DNSNames = []string{wrongName, "*.shared-hosting.example"}
	default:
		tmpl.DNSNames = []string{name}
	}
	if kind == certExpired {
		tmpl.NotBefore = now.Add(-120 * 24 * time.Hour)
		tmpl.NotAfter = now.Add(-30 * 24 * time.Hour)
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, a.caCert, &a.leafKey.PublicKey, a.caKey)
	if err != nil {
		return nil, fmt.Errorf("issue certificate for %q: %w", name, err)
	}
	c = &tls.Certificate{Certificate: [][]byte{der}, PrivateKey: a.leafKey}

	a.mu.Lock()
	if len(a.cache) >= maxCachedCerts {
		for k := range a.cache {
			delete(a.cache, k)
			break
		}
	}
	a.cache[key] = c
	a.mu.Unlock()
	return c, nil
}

// getCertificate picks the certificate for the SNI name by the host's
// scenario. Hosts that must not complete a TLS handshake get their TCP
// connection reset here, before any ServerHello, which is what a client sees
// from a host with nothing behind port 443 on a load balancer.
func (w *Web) getCertificate(hello *tls.ClientHelloInfo) (*tls.Certificate, error) {
	name := normalizeHost(hello.ServerName)
	if name == "" {
		return w.ca.certificate("", certValid)
	}
	kind := certValid
	if site, www := w.lookup(name); site != nil {
		switch sc := site.effective(www); {
		case sc == ScenarioHTTPOnly || sc.dead():
			if hello.Conn != nil {
				abortConn(hello.Conn)
			}
			return nil, fmt.Errorf("simweb: %s has no TLS (%s)", name, sc)
		case sc == ScenarioTLSExpired:
			kind = certExpired
		case sc == ScenarioTLSWrongName:
			kind = certWrongName
		}
	}
	return w.ca.certificate(name, kind)
}
