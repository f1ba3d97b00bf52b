package fetch

import (
	"bytes"
	"context"
	"net"
	"sync"
	"time"
)

// A captured fetch (Request.Capture) keeps every exchange as it went over
// the wire, for an archive: the request as written, the response as read
// (status line, header fields in their order and spelling, the body with
// its transfer and content codings), when the request's first byte was
// written and to which address. Captured fetches go over a transport of
// their own whose connections record what they carry. A connection is
// kept alive between exchanges (one TLS handshake for a host's pages, not
// one a page): an exchange's bytes are taken, and the record started
// again, once its response has been read and before its host slot is
// given back, so that no other exchange can have used the connection
// meanwhile (one exchange per host at a time, and a connection serves one
// host).

// Exchange is one exchange of a captured fetch: a redirect hop or the
// final response.
type Exchange struct {
	URL string
	// Start is when the request's first byte was written.
	Start time.Time
	// IP is the address of the server the exchange went to.
	IP string
	// Request and Response are the bytes written and read. Response is
	// cut after the body cap (and a redirect's after what was drained of
	// its body).
	Request, Response []byte
	Status            int
}

// recConn is a connection that keeps the bytes written to it and read
// from it (the plaintext, for TLS: it wraps the TLS connection).
type recConn struct {
	net.Conn
	limit int

	mu    sync.Mutex
	start time.Time
	w, r  bytes.Buffer
}

func (c *recConn) Write(p []byte) (int, error) {
	c.mu.Lock()
	if c.start.IsZero() {
		c.start = time.Now()
	}
	c.w.Write(p)
	c.mu.Unlock()
	return c.Conn.Write(p)
}

func (c *recConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if n > 0 {
		c.mu.Lock()
		if c.r.Len() < c.limit {
			c.r.Write(p[:min(n, c.limit-c.r.Len())])
		}
		c.mu.Unlock()
	}
	return n, err
}

// exchange is what the connection carried since the last exchange taken,
// as an Exchange of u; the connection records the next one afresh.
func (c *recConn) exchange(u string, status int) Exchange {
	c.mu.Lock()
	defer c.mu.Unlock()
	defer c.clear()
	ip := ""
	if a := c.Conn.RemoteAddr(); a != nil {
		ip = a.String()
		if host, _, err := net.SplitHostPort(ip); err == nil {
			ip = host
		}
	}
	return Exchange{URL: u, Start: c.start, IP: ip, Status: status,
		Request: bytes.Clone(c.w.Bytes()), Response: bytes.Clone(c.r.Bytes())}
}

// reset forgets what the connection carried since the last exchange
// taken: an exchange that will not be kept (a failed read) must not open
// the record of the next one over the same connection.
func (c *recConn) reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.clear()
}

// clear starts the record afresh; c.mu is held. New buffers, not Reset:
// an idle connection keeps no page.
func (c *recConn) clear() {
	c.w, c.r, c.start = bytes.Buffer{}, bytes.Buffer{}, time.Time{}
}

// captureIdleConns is how many idle connections captured fetches keep,
// over all hosts.
const captureIdleConns = 1024

// captureLimit bounds what a captured connection keeps of the response:
// the largest body cap and room for the header and the codings' framing.
func (c *Client) captureLimit() int {
	limit := int64(0)
	for _, v := range c.cfg.BodyLimits {
		limit = max(limit, v)
	}
	return int(limit + wireSlack + 1<<20)
}

// dialCapture and dialTLSCapture dial as the client does and record.
func (c *Client) dialCapture(ctx context.Context, network, addr string) (net.Conn, error) {
	conn, err := c.dial(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	return &recConn{Conn: conn, limit: c.captureLimit()}, nil
}

func (c *Client) dialTLSCapture(ctx context.Context, network, addr string) (net.Conn, error) {
	conn, err := c.dialTLS(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	return &recConn{Conn: conn, limit: c.captureLimit()}, nil
}
