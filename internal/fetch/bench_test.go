package fetch

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"
)

// BenchmarkDoManyHosts measures the client's own cost per fetch (scheduler,
// dial, guard, decode) against a loopback server, one host per request as
// in a liveness batch, with the per-host delay off.
func BenchmarkDoManyHosts(b *testing.B) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, "<html><title>ok</title></html>")
	}))
	defer srv.Close()
	c, err := New(Config{
		PerHostDelay:  NoPerHostDelay,
		AllowNetworks: loopback,
		ConnectTo:     []string{"::" + srv.Listener.Addr().String()},
		Concurrency:   64,
	})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	var n atomic.Int64
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			i := n.Add(1)
			resp, err := c.Do(b.Context(), Request{URL: fmt.Sprintf("http://h%d.test/", i), Kind: KindProbe})
			if err != nil || resp.Status != 200 {
				b.Errorf("fetch %d: %v", i, err)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "fetches/s")
}

// BenchmarkScheduler measures one acquire/release, the politeness
// bookkeeping every exchange pays.
func BenchmarkScheduler(b *testing.B) {
	s := newScheduler(64, 64, 0)
	hosts := make([]string, 4096)
	for i := range hosts {
		hosts[i] = fmt.Sprintf("h%d.test", i)
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		sl, err := s.acquire(b.Context(), hosts[i%len(hosts)])
		if err != nil {
			b.Fatal(err)
		}
		sl.release(true, time.Time{})
		i++
	}
}
