package fetch

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"os"
	"time"
)

// TLSInfo are the certificate facts of an HTTPS exchange, recorded for
// liveness: a site whose certificate expires next week is alive today but
// worth flagging.
type TLSInfo struct {
	// Valid is true when the chain verified against the trusted roots and
	// the name matched.
	Valid bool `json:"valid"`
	// Issuer is the leaf certificate's issuer distinguished name.
	Issuer string `json:"issuer"`
	// NotAfter is the leaf certificate's expiry.
	NotAfter time.Time `json:"not_after"`
	// NameMatch is true when the leaf certificate covers the host name.
	NameMatch bool `json:"name_match"`
	// Version is the negotiated protocol version ("TLS 1.3"), when known.
	Version string `json:"version,omitempty"`
	// Error is why verification failed; empty when Valid.
	Error string `json:"error,omitempty"`
}

// loadRoots returns the system roots plus the certificates of the PEM file
// extra, if any.
func loadRoots(extra string) (*x509.CertPool, error) {
	pool, err := x509.SystemCertPool()
	if err != nil || pool == nil {
		pool = x509.NewCertPool()
	}
	if extra == "" {
		return pool, nil
	}
	pem, err := os.ReadFile(extra)
	if err != nil {
		return nil, fmt.Errorf("read extra CA file: %w", err)
	}
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("extra CA file %s holds no PEM certificate", extra)
	}
	return pool, nil
}

// dialTLS dials addr (through connect-to and the SSRF guard) and performs
// the TLS handshake with the URL's host as server name, so that rerouted
// connections are still verified for the name that was asked for. The
// handshake is ours rather than the transport's so that a failed
// verification can report the certificate it rejected.
func (c *Client) dialTLS(ctx context.Context, network, addr string) (net.Conn, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, &Error{Reason: ReasonBadRequest, Err: err}
	}
	conn, err := c.dial(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	cfg := c.tlsConfig.Clone()
	cfg.ServerName = host
	tc := tls.Client(conn, cfg)
	hctx, cancel := context.WithTimeout(ctx, c.cfg.TLSTimeout)
	defer cancel()
	if err := tc.HandshakeContext(hctx); err != nil {
		_ = conn.Close()
		return nil, tlsFailure(ctx, hctx, host, tc, err)
	}
	return tc, nil
}

// tlsFailure classifies a failed handshake.
func tlsFailure(ctx, hctx context.Context, host string, tc *tls.Conn, err error) *Error {
	var verr *tls.CertificateVerificationError
	if errors.As(err, &verr) && len(verr.UnverifiedCertificates) > 0 {
		leaf := verr.UnverifiedCertificates[0]
		_, detail, _ := classifyTLS(err)
		if detail == TLSExpired && time.Now().Before(leaf.NotBefore) {
			detail = TLSNotYetValid
		}
		info := leafInfo(leaf, host)
		info.Version = tlsVersion(tc.ConnectionState().Version)
		info.Error = verr.Err.Error()
		return &Error{Reason: ReasonTLS, Detail: detail, TLS: info, Err: err}
	}
	if ctx.Err() == nil && hctx.Err() != nil {
		return &Error{Reason: ReasonTimeout, Detail: "tls_handshake", Err: err}
	}
	r, d := classify(err)
	if r == ReasonNetwork {
		r, d = ReasonTLS, TLSHandshake
	}
	return &Error{Reason: r, Detail: d, Err: err}
}

// leafInfo returns the facts of a certificate that was not verified.
func leafInfo(leaf *x509.Certificate, host string) *TLSInfo {
	return &TLSInfo{
		Issuer:    leaf.Issuer.String(),
		NotAfter:  leaf.NotAfter,
		NameMatch: leaf.VerifyHostname(host) == nil,
	}
}

// connInfo returns the facts of a verified connection.
func connInfo(cs *tls.ConnectionState) *TLSInfo {
	if cs == nil || len(cs.PeerCertificates) == 0 {
		return nil
	}
	leaf := cs.PeerCertificates[0]
	return &TLSInfo{
		Valid:     true,
		Issuer:    leaf.Issuer.String(),
		NotAfter:  leaf.NotAfter,
		NameMatch: true,
		Version:   tlsVersion(cs.Version),
	}
}

func tlsVersion(v uint16) string {
	if v == 0 {
		return ""
	}
	return tls.VersionName(v)
}
