// Package outagetest makes outages for tests: a loopback TCP proxy in
// front of a real server (PostgreSQL, an S3 server) that can be cut and
// restored, so a test sees exactly what a client of a dead or restarting
// server sees: refused connections and connections closed mid-answer.
package outagetest

import (
	"io"
	"net"
	"sync"
	"testing"
)

// Proxy forwards connections from its loopback address to a target.
type Proxy struct {
	target string
	tb     testing.TB

	mu    sync.Mutex
	ln    net.Listener
	addr  string
	conns map[net.Conn]struct{}
	wg    sync.WaitGroup
}

// NewProxy starts a proxy to target (host:port) on 127.0.0.1; it stops
// when the test ends.
func NewProxy(tb testing.TB, target string) *Proxy {
	tb.Helper()
	p := &Proxy{target: target, tb: tb, conns: map[net.Conn]struct{}{}}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatalf("outagetest: listen: %v", err)
	}
	p.addr = ln.Addr().String()
	p.serve(ln)
	tb.Cleanup(func() { p.Cut(); p.wg.Wait() })
	return p
}

// Addr is the proxy's host:port, the same across Cut and Restore.
func (p *Proxy) Addr() string { return p.addr }

// Cut stops accepting (connecting is refused) and closes every open
// connection: the server looks down.
func (p *Proxy) Cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ln != nil {
		_ = p.ln.Close()
		p.ln = nil
	}
	for c := range p.conns {
		_ = c.Close()
	}
	clear(p.conns)
}

// Restore listens again on the same address: the server is back.
func (p *Proxy) Restore() {
	p.tb.Helper()
	ln, err := net.Listen("tcp", p.addr)
	if err != nil {
		p.tb.Fatalf("outagetest: listen again on %s: %v", p.addr, err)
	}
	p.serve(ln)
}

func (p *Proxy) serve(ln net.Listener) {
	p.mu.Lock()
	p.ln = ln
	p.mu.Unlock()
	p.wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			p.wg.Go(func() { p.forward(c) })
		}
	})
}

// track remembers c to close it on Cut; false when the proxy was cut
// meanwhile (c is closed then).
func (p *Proxy) track(cs ...net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ln == nil {
		for _, c := range cs {
			_ = c.Close()
		}
		return false
	}
	for _, c := range cs {
		p.conns[c] = struct{}{}
	}
	return true
}

func (p *Proxy) forward(c net.Conn) {
	up, err := net.Dial("tcp", p.target)
	if err != nil {
		_ = c.Close()
		return
	}
	if !p.track(c, up) {
		return
	}
	done := make(chan struct{}, 2)
	pipe := func(dst, src net.Conn) {
		_, _ = io.Copy(dst, src) // ends with either side, or with Cut
		done <- struct{}{}
	}
	go pipe(up, c)
	go pipe(c, up)
	<-done
	_ = c.Close()
	_ = up.Close()
	<-done
	p.mu.Lock()
	delete(p.conns, c)
	delete(p.conns, up)
	p.mu.Unlock()
}
