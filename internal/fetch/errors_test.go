package fetch

import (
	"bufio"
	"context"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// rawServer accepts TCP connections on loopback and hands each to serve.
// done is closed when the test ends, for servers that hold connections.
func rawServer(t *testing.T, serve func(conn net.Conn, done <-chan struct{})) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	var wg sync.WaitGroup
	done := make(chan struct{})
	t.Cleanup(func() {
		close(done)
		_ = ln.Close()
		wg.Wait()
	})
	wg.Go(func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Go(func() {
				defer conn.Close()
				serve(conn, done)
			})
		}
	})
	return ln.Addr().String()
}

// readRequest reads a request's head so the client has finished sending.
func readRequest(conn net.Conn) {
	_, _ = http.ReadRequest(bufio.NewReader(conn))
}

func TestConnectRefused(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())
	c := newTestClient(t, Config{})
	_, err = c.Do(t.Context(), Request{URL: "http://" + addr + "/"})
	fe := reasonOf(t, err)
	require.Equal(t, ReasonConnectRefused, fe.Reason)
	require.ErrorIs(t, err, syscall.ECONNREFUSED)
}

func TestConnectionReset(t *testing.T) {
	t.Parallel()
	addr := rawServer(t, func(conn net.Conn, _ <-chan struct{}) {
		readRequest(conn)
		_ = conn.(*net.TCPConn).SetLinger(0) // close with RST
	})
	c := newTestClient(t, Config{})
	_, err := c.Do(t.Context(), Request{URL: "http://" + addr + "/"})
	require.Equal(t, ReasonConnectReset, reasonOf(t, err).Reason)

	eof := rawServer(t, func(conn net.Conn, _ <-chan struct{}) { readRequest(conn) })
	_, err = c.Do(t.Context(), Request{URL: "http://" + eof + "/"})
	fe := reasonOf(t, err)
	require.Equal(t, ReasonConnectReset, fe.Reason)
	require.Equal(t, "eof", fe.Detail)

	garbage := rawServer(t, func(conn net.Conn, _ <-chan struct{}) {
		readRequest(conn)
		_, _ = io.WriteString(conn, "SSH-2.0-OpenSSH_9.6\r\n\r\n")
	})
	_, err = c.Do(t.Context(), Request{URL: "http://" + garbage + "/"})
	require.Equal(t, ReasonProtocol, reasonOf(t, err).Reason)
}

func TestRequestTimeout(t *testing.T) {
	t.Parallel()
	silent := rawServer(t, func(conn net.Conn, done <-chan struct{}) {
		readRequest(conn)
		<-done
	})
	c := newTestClient(t, Config{RequestTimeout: 150 * time.Millisecond})
	_, err := c.Do(t.Context(), Request{URL: "http://" + silent + "/"})
	require.Equal(t, ReasonTimeout, reasonOf(t, err).Reason)

	// A body that stalls half way times out too.
	stall := startHTTP(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, strings.Repeat("x", 10))
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}))
	_, err = c.Do(t.Context(), Request{URL: stall.URL})
	require.Equal(t, ReasonTimeout, reasonOf(t, err).Reason)

	streaming := newTestClient(t, Config{RequestTimeout: time.Second})
	sr, err := streaming.Stream(t.Context(), Request{URL: stall.URL, Kind: KindSitemap})
	require.NoError(t, err)
	_, err = io.ReadAll(sr.Body)
	require.Equal(t, ReasonTimeout, reasonOf(t, err).Reason)
	require.NoError(t, sr.Body.Close())
}

func TestConnectTimeout(t *testing.T) {
	t.Parallel()
	addr := rawServer(t, func(net.Conn, <-chan struct{}) {})
	c := newTestClient(t, Config{ConnectTimeout: 50 * time.Millisecond})
	// A connect that never completes cannot be staged on loopback; a
	// control hook that outlasts the timeout stands in for the lost SYN.
	guardControl := c.dialer.Control
	c.dialer.Control = func(network, address string, rc syscall.RawConn) error {
		time.Sleep(100 * time.Millisecond)
		return guardControl(network, address, rc)
	}
	_, err := c.Do(t.Context(), Request{URL: "http://" + addr + "/"})
	require.Equal(t, ReasonConnectTimeout, reasonOf(t, err).Reason)
}

func TestTLS(t *testing.T) {
	t.Parallel()
	ca := newTestCA(t, "seedengine test CA")
	now := time.Now()
	var mu sync.Mutex
	var sni []string
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		sni = append(sni, r.TLS.ServerName)
		mu.Unlock()
		_, _ = io.WriteString(w, "secure")
	})
	good := startTLS(t, h, ca.leaf(t, []string{"secure.test", "www.secure.test"}, now.Add(-time.Hour), now.Add(90*24*time.Hour)))
	expired := startTLS(t, h, ca.leaf(t, []string{"old.test"}, now.Add(-48*time.Hour), now.Add(-24*time.Hour)))
	future := startTLS(t, h, ca.leaf(t, []string{"new.test"}, now.Add(24*time.Hour), now.Add(48*time.Hour)))
	plain := startHTTP(t, h)

	caFile := ca.file(t)
	c := newTestClient(t, Config{
		ExtraCAFile: caFile,
		ConnectTo: []string{
			"secure.test:443:127.0.0.1:" + srvPort(t, good),
			"wrong.test:443:127.0.0.1:" + srvPort(t, good),
			"old.test:443:127.0.0.1:" + srvPort(t, expired),
			"new.test:443:127.0.0.1:" + srvPort(t, future),
			"plain.test:443:127.0.0.1:" + srvPort(t, plain),
		},
	})

	resp, err := c.Do(t.Context(), Request{URL: "https://secure.test/"})
	require.NoError(t, err)
	require.Equal(t, "secure", string(resp.Body))
	require.NotNil(t, resp.TLS)
	require.True(t, resp.TLS.Valid)
	require.True(t, resp.TLS.NameMatch)
	require.Contains(t, resp.TLS.Issuer, "seedengine test CA")
	require.WithinDuration(t, now.Add(90*24*time.Hour), resp.TLS.NotAfter, time.Second)
	require.Equal(t, "TLS 1.3", resp.TLS.Version)
	require.Empty(t, resp.TLS.Error)
	require.Equal(t, srvAddr(t, good), resp.RemoteAddr, "connect-to sent the connection to the test server")
	mu.Lock()
	require.Equal(t, []string{"secure.test"}, sni, "SNI is the URL's host, not the connect-to target")
	mu.Unlock()

	tests := []struct {
		url, detail string
		nameMatch   bool
	}{
		{"https://wrong.test/", TLSNameMismatch, false},
		{"https://old.test/", TLSExpired, true},
		{"https://new.test/", TLSNotYetValid, true},
	}
	for _, tt := range tests {
		_, err := c.Do(t.Context(), Request{URL: tt.url})
		fe := reasonOf(t, err)
		require.Equal(t, ReasonTLS, fe.Reason, tt.url)
		require.Equal(t, tt.detail, fe.Detail, tt.url)
		require.NotNil(t, fe.TLS, tt.url)
		require.False(t, fe.TLS.Valid, tt.url)
		require.Equal(t, tt.nameMatch, fe.TLS.NameMatch, tt.url)
		require.Contains(t, fe.TLS.Issuer, "seedengine test CA", tt.url)
		require.NotEmpty(t, fe.TLS.Error, tt.url)
	}
	_, err = c.Do(t.Context(), Request{URL: "https://plain.test/"})
	fe := reasonOf(t, err)
	require.Equal(t, ReasonTLS, fe.Reason)
	require.Equal(t, TLSNotTLS, fe.Detail)

	// Without the extra CA the same server is of unknown authority.
	untrusting := newTestClient(t, Config{ConnectTo: []string{"secure.test:443:127.0.0.1:" + srvPort(t, good)}})
	_, err = untrusting.Do(t.Context(), Request{URL: "https://secure.test/"})
	fe = reasonOf(t, err)
	require.Equal(t, ReasonTLS, fe.Reason)
	require.Equal(t, TLSUnknownAuthority, fe.Detail)
	require.True(t, fe.TLS.NameMatch)
}

// TestTLSKeyExchange holds the client to classical key exchange: the
// hybrid ML-KEM share is not offered (its CPU cost bounds a liveness
// batch), and the handshake settles on X25519.
func TestTLSKeyExchange(t *testing.T) {
	t.Parallel()
	ca := newTestCA(t, "seedengine test CA")
	now := time.Now()
	curves := make(chan []tls.CurveID, 1)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, r.TLS.CurveID.String())
	}))
	srv.TLS = &tls.Config{
		Certificates: []tls.Certificate{ca.leaf(t, []string{"secure.test"}, now.Add(-time.Hour), now.Add(time.Hour))},
		GetConfigForClient: func(hello *tls.ClientHelloInfo) (*tls.Config, error) {
			curves <- hello.SupportedCurves
			return nil, nil
		},
	}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	c := newTestClient(t, Config{ExtraCAFile: ca.file(t), ConnectTo: []string{"secure.test:443:127.0.0.1:" + srvPort(t, srv)}})

	resp, err := c.Do(t.Context(), Request{URL: "https://secure.test/", Kind: KindProbe})
	require.NoError(t, err)
	require.Equal(t, tls.X25519.String(), string(resp.Body))
	offered := <-curves
	require.Equal(t, tls.X25519, offered[0])
	require.NotContains(t, offered, tls.X25519MLKEM768)
}

func TestTLSHandshakeTimeout(t *testing.T) {
	t.Parallel()
	mute := rawServer(t, func(_ net.Conn, done <-chan struct{}) { <-done })
	c := newTestClient(t, Config{TLSTimeout: 100 * time.Millisecond, ConnectTo: []string{"mute.test:443:" + mute}})
	_, err := c.Do(t.Context(), Request{URL: "https://mute.test/"})
	fe := reasonOf(t, err)
	require.Equal(t, ReasonTimeout, fe.Reason)
	require.Equal(t, "tls_handshake", fe.Detail)
}

func TestDNSServerSetting(t *testing.T) {
	t.Parallel()
	srv := startHTTP(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, r.Host)
	}))
	port := srvPort(t, srv)
	stub := startDNS(t, map[string][]string{
		"site.test":   {"127.0.0.1"},
		"dead.test":   {"nxdomain"},
		"broken.test": {"servfail"},
		"mute.test":   {"silent"},
	})
	c := newTestClient(t, Config{DNSServer: stub.Addr, DNSTimeout: 5 * time.Second})
	resp, err := c.Do(t.Context(), Request{URL: "http://site.test:" + port + "/"})
	require.NoError(t, err)
	require.Equal(t, "site.test:"+port, string(resp.Body))
	require.True(t, stub.queried("site.test"), "the configured DNS server answered")

	for host, reason := range map[string]string{
		"dead.test":   ReasonNXDomain,
		"broken.test": ReasonServfail,
	} {
		_, err := c.Do(t.Context(), Request{URL: "http://" + host + ":" + port + "/"})
		require.Equal(t, reason, reasonOf(t, err).Reason, host)
	}
	impatient := newTestClient(t, Config{DNSServer: stub.Addr, DNSTimeout: 200 * time.Millisecond})
	_, err = impatient.Do(t.Context(), Request{URL: "http://mute.test:" + port + "/"})
	require.Equal(t, ReasonDNSTimeout, reasonOf(t, err).Reason)
}

func TestClassify(t *testing.T) {
	t.Parallel()
	tests := []struct {
		err    error
		reason string
		detail string
	}{
		{&net.DNSError{Err: "no such host", IsNotFound: true}, ReasonNXDomain, ""},
		{&net.DNSError{Err: "i/o timeout", IsTimeout: true}, ReasonDNSTimeout, ""},
		{&net.DNSError{Err: "server misbehaving", IsTemporary: true}, ReasonServfail, ""},
		{&net.OpError{Op: "dial", Err: syscall.ECONNREFUSED}, ReasonConnectRefused, ""},
		{&net.OpError{Op: "read", Err: syscall.ECONNRESET}, ReasonConnectReset, ""},
		{&net.OpError{Op: "dial", Err: syscall.EHOSTUNREACH}, ReasonUnreachable, ""},
		{&net.OpError{Op: "dial", Err: syscall.ENETUNREACH}, ReasonUnreachable, ""},
		{io.ErrUnexpectedEOF, ReasonConnectReset, "eof"},
		{context.DeadlineExceeded, ReasonTimeout, ""},
		{context.Canceled, ReasonCanceled, ""},
		{tls.RecordHeaderError{}, ReasonTLS, TLSNotTLS},
		{&blockedError{addr: "10.0.0.1:80"}, ReasonBlocked, ""},
		{&Error{Reason: ReasonTLS, Detail: TLSExpired}, ReasonTLS, TLSExpired},
		{errors.New("something else"), ReasonNetwork, ""},
	}
	for _, tt := range tests {
		r, d := classify(tt.err)
		require.Equal(t, tt.reason, r, "%v", tt.err)
		require.Equal(t, tt.detail, d, "%v", tt.err)
	}
	require.Equal(t, "", Reason(nil))
	require.Equal(t, ReasonCanceled, Reason(context.Canceled))
	require.Equal(t, ReasonNetwork, Reason(errors.New("x")))
	require.Equal(t, ReasonTLS, Reason(&Error{Reason: ReasonTLS}))
	require.Equal(t, "fetch https://x.test/: tls_error (expired): boom",
		(&Error{Reason: ReasonTLS, Detail: TLSExpired, URL: "https://x.test/", Err: errors.New("boom")}).Error())
}
