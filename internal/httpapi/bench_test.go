package httpapi_test

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/seedengine/seedengine/internal/httpapi"
)

// BenchmarkHealth measures GET /health through the whole middleware chain
// with access logging on (JSON to io.Discard), as served in production.
// The target is at least 20,000 req/s on 2 cores under wrk, where the
// network stack costs far more than this handler.
func BenchmarkHealth(b *testing.B) {
	srv := httpapi.New(httpapi.Config{
		Logger: slog.New(slog.NewJSONHandler(io.Discard, nil)),
	}, httpapi.Deps{APIKeys: newFakeKeys()})
	h := srv.Handler()
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		req := httptest.NewRequest(http.MethodGet, "/health", nil)
		req.RemoteAddr = "127.0.0.1:40000"
		req.Host = "127.0.0.1:8080"
		w := &discardWriter{h: http.Header{}}
		for pb.Next() {
			clear(w.h)
			h.ServeHTTP(w, req)
			if w.code != http.StatusOK {
				b.Fatalf("status %d", w.code)
			}
		}
	})
}

// discardWriter is a ResponseWriter that costs nearly nothing, so the
// benchmark measures the server rather than httptest.ResponseRecorder.
type discardWriter struct {
	h    http.Header
	code int
}

func (w *discardWriter) Header() http.Header         { return w.h }
func (w *discardWriter) Write(b []byte) (int, error) { return len(b), nil }
func (w *discardWriter) WriteHeader(code int)        { w.code = code }

// BenchmarkHealthHTTP is the same over a loopback connection with a
// keep-alive client, closer to what wrk sees.
func BenchmarkHealthHTTP(b *testing.B) {
	srv := httpapi.New(httpapi.Config{
		Logger: slog.New(slog.NewJSONHandler(io.Discard, nil)),
	}, httpapi.Deps{APIKeys: newFakeKeys()})
	ts := httptest.NewServer(srv.Handler())
	defer ts.Close()
	client := ts.Client()
	client.Transport.(*http.Transport).MaxIdleConnsPerHost = 64
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			resp, err := client.Get(ts.URL + "/health")
			if err != nil {
				b.Fatal(err)
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				b.Fatalf("status %d", resp.StatusCode)
			}
		}
	})
}
