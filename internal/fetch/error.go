package fetch

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"net"
	"strings"
	"syscall"
)

// Reasons of an *Error. They are stable, machine-readable strings: liveness
// verdicts and contract evidence store them, so they never change. An HTTP
// status (a 5xx, a 403) is never an error: it is a Response.
const (
	// The name did not resolve: NXDOMAIN (also NODATA for HTTP fetches).
	ReasonNXDomain = "nxdomain"
	// The DNS server did not answer in time.
	ReasonDNSTimeout = "dns_timeout"
	// The DNS server answered SERVFAIL, REFUSED or another failure rcode;
	// Detail names it.
	ReasonServfail = "servfail"
	// The name exists but has no A or AAAA record (Lookup only).
	ReasonNoAddress = "no_address"
	// The configured DNS server itself could not be reached or read: a
	// fault on our side, not the domain's.
	ReasonDNSError = "dns_error"
	// The TCP connection was refused (RST to the SYN).
	ReasonConnectRefused = "connect_refused"
	// The TCP connect did not complete within ConnectTimeout.
	ReasonConnectTimeout = "connect_timeout"
	// The connection was reset or closed before a full response; Detail
	// "eof" when it was closed rather than reset.
	ReasonConnectReset = "connect_reset"
	// No route to the host or network.
	ReasonUnreachable = "unreachable"
	// The TLS handshake failed; Detail is expired, not_yet_valid,
	// unknown_authority, name_mismatch, invalid_certificate, not_tls or
	// handshake, and Error.TLS holds the certificate facts when a
	// certificate was seen.
	ReasonTLS = "tls_error"
	// More than MaxRedirects redirects, or (Detail "loop") a redirect back
	// to a URL already visited in this fetch.
	ReasonTooManyRedirects = "too_many_redirects"
	// A redirect without a usable http(s) Location.
	ReasonBadRedirect = "bad_redirect"
	// The exchange did not finish within RequestTimeout (Detail
	// "tls_handshake" when the TLS handshake took longer than TLSTimeout).
	ReasonTimeout = "timeout"
	// A streamed body went past its kind's cap. Do truncates instead.
	ReasonBodyTooLarge = "body_too_large"
	// The body's Content-Encoding could not be decoded.
	ReasonDecode = "decode_error"
	// The server's answer was not valid HTTP.
	ReasonProtocol = "protocol_error"
	// Every address of the host (or the connect-to target) is a
	// special-purpose address outside AllowNetworks.
	ReasonBlocked = "blocked_address"
	// The URL (a redirect's or the one asked for) names a port outside
	// the port policy: 80, 443, the asked URL's own, Config.AllowPorts.
	ReasonPortNotAllowed = "port_not_allowed"
	// The request itself was unusable: not an http(s) URL, unknown kind.
	ReasonBadRequest = "bad_request"
	// The caller's context was canceled or reached its deadline; the
	// server is not to blame.
	ReasonCanceled = "canceled"
	// The request's Admit hook refused an exchange (a request budget
	// spent, a redirect to a URL the caller may not fetch).
	ReasonNotAdmitted = "not_admitted"
	// Any other network failure.
	ReasonNetwork = "network_error"
)

// TLS failure details.
const (
	TLSExpired          = "expired"
	TLSNotYetValid      = "not_yet_valid"
	TLSUnknownAuthority = "unknown_authority"
	TLSNameMismatch     = "name_mismatch"
	TLSInvalidCert      = "invalid_certificate"
	TLSNotTLS           = "not_tls"
	TLSHandshake        = "handshake"
)

// Error is a classified fetch failure. Callers switch on Reason (one of the
// Reason* constants) rather than on error text, so the classification is
// done once, here, where the network errors are understood.
type Error struct {
	Reason string
	// Detail refines Reason where one reason covers several causes.
	Detail string
	// URL is the URL being fetched when it failed: a redirect hop, not
	// necessarily the URL asked for.
	URL string
	// Redirects are the redirect responses seen before the failure (for
	// too_many_redirects, the one that was not followed too).
	Redirects []Hop
	// TLS holds the certificate facts of a tls_error when a certificate
	// was received.
	TLS *TLSInfo
	// Err is the underlying error, for logs.
	Err error
}

// Error implements the error interface.
func (e *Error) Error() string {
	s := "fetch"
	if e.URL != "" {
		s += " " + e.URL
	}
	s += ": " + e.Reason
	if e.Detail != "" {
		s += " (" + e.Detail + ")"
	}
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

// Unwrap returns the underlying error, so errors.Is(err,
// context.Canceled) works on canceled fetches.
func (e *Error) Unwrap() error { return e.Err }

// Reason returns the Reason of the first *Error in err's chain, "" for nil,
// ReasonCanceled for a bare context error and ReasonNetwork otherwise.
func Reason(err error) string {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Reason
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return ReasonCanceled
	}
	return ReasonNetwork
}

// reachedServer reports whether a failure with this reason means a server
// was reached (and so loaded): only then does the per-host delay start.
func reachedServer(reason string) bool {
	switch reason {
	case ReasonNXDomain, ReasonDNSTimeout, ReasonServfail, ReasonDNSError, ReasonNoAddress,
		ReasonConnectRefused, ReasonConnectTimeout, ReasonUnreachable, ReasonBlocked,
		ReasonBadRequest, ReasonCanceled:
		return false
	}
	return true
}

// blockedError is returned by the dialer's control hook for an address the
// SSRF guard refuses.
type blockedError struct{ addr string }

func (e *blockedError) Error() string { return "address " + e.addr + " is not allowed" }

// classify maps a transport error to a reason and detail. Errors already
// classified (by the dialer) keep their classification.
func classify(err error) (reason, detail string) {
	var fe *Error
	if errors.As(err, &fe) {
		return fe.Reason, fe.Detail
	}
	var be *blockedError
	if errors.As(err, &be) {
		return ReasonBlocked, ""
	}
	var dnsErr *net.DNSError
	if errors.As(err, &dnsErr) {
		switch {
		case dnsErr.IsNotFound:
			return ReasonNXDomain, ""
		case dnsErr.IsTimeout:
			return ReasonDNSTimeout, ""
		}
		return ReasonServfail, ""
	}
	if r, d, ok := classifyTLS(err); ok {
		return r, d
	}
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		return ReasonConnectRefused, ""
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.ECONNABORTED), errors.Is(err, syscall.EPIPE):
		return ReasonConnectReset, ""
	case errors.Is(err, syscall.ENETUNREACH), errors.Is(err, syscall.EHOSTUNREACH), errors.Is(err, syscall.EHOSTDOWN), errors.Is(err, syscall.ENETDOWN):
		return ReasonUnreachable, ""
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return ReasonConnectReset, "eof"
	case errors.Is(err, context.DeadlineExceeded):
		return ReasonTimeout, ""
	case errors.Is(err, context.Canceled):
		return ReasonCanceled, ""
	}
	if msg := err.Error(); strings.Contains(msg, "malformed HTTP") || strings.Contains(msg, "malformed MIME") {
		// net/http has no error types for these.
		return ReasonProtocol, ""
	}
	var opErr *net.OpError
	if errors.As(err, &opErr) && opErr.Op == "dial" && opErr.Timeout() {
		return ReasonConnectTimeout, ""
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return ReasonTimeout, ""
	}
	return ReasonNetwork, ""
}

// classifyTLS recognises certificate and handshake failures.
func classifyTLS(err error) (reason, detail string, ok bool) {
	var invalid x509.CertificateInvalidError
	var unknown x509.UnknownAuthorityError
	var hostname x509.HostnameError
	var record tls.RecordHeaderError
	var alert tls.AlertError
	var verify *tls.CertificateVerificationError
	switch {
	case errors.As(err, &invalid):
		switch invalid.Reason {
		case x509.Expired:
			// Go reports "not yet valid" with the same reason; the
			// certificate facts tell them apart (see tlsFailure).
			return ReasonTLS, TLSExpired, true
		}
		return ReasonTLS, TLSInvalidCert, true
	case errors.As(err, &unknown):
		return ReasonTLS, TLSUnknownAuthority, true
	case errors.As(err, &hostname):
		return ReasonTLS, TLSNameMismatch, true
	case errors.As(err, &verify):
		return ReasonTLS, TLSInvalidCert, true
	case errors.As(err, &record):
		return ReasonTLS, TLSNotTLS, true
	case errors.As(err, &alert):
		return ReasonTLS, TLSHandshake, true
	}
	return "", "", false
}
