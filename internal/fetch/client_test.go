package fetch

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestUserAgentAndHeaders(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var got http.Header
	srv := startHTTP(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = r.Header.Clone()
		mu.Unlock()
		_, _ = io.WriteString(w, "ok")
	}))
	c := newTestClient(t, Config{Version: "1.2.3", UserAgentContact: "https://example.org/bot"})
	resp, err := c.Do(t.Context(), Request{
		URL:  srv.URL + "/robots.txt",
		Kind: KindRobots,
		Header: http.Header{
			"User-Agent": {"impostor"},
			"X-Extra":    {"1"},
		},
	})
	require.NoError(t, err)
	require.Equal(t, 200, resp.Status)
	require.Equal(t, "ok", string(resp.Body))
	mu.Lock()
	defer mu.Unlock()
	require.Equal(t, "seedengine/1.2.3 (+https://example.org/bot)", got.Get("User-Agent"))
	require.Equal(t, c.UserAgent(), got.Get("User-Agent"))
	require.Equal(t, "gzip, deflate", got.Get("Accept-Encoding"))
	require.Equal(t, acceptFor(KindRobots), got.Get("Accept"))
	require.Equal(t, "1", got.Get("X-Extra"))

	d := newTestClient(t, Config{})
	require.Equal(t, "seedengine/test (+https://github.com/seedengine/seedengine)", d.UserAgent())
}

// A fetch with NoKeepAlive asks the server to close the connection and
// leaves none idle; others keep theirs for the host's next request.
func TestNoKeepAlive(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var closes []bool
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		closes = append(closes, r.Close)
		mu.Unlock()
		_, _ = io.WriteString(w, "ok")
	}))
	var conns atomic.Int32
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	c := newTestClient(t, Config{PerHostDelay: time.Millisecond})
	for _, noKeepAlive := range []bool{true, true, false, false} {
		_, err := c.Do(t.Context(), Request{URL: srv.URL + "/", Kind: KindProbe, NoKeepAlive: noKeepAlive})
		require.NoError(t, err)
	}
	mu.Lock()
	require.Equal(t, []bool{true, true, false, false}, closes)
	mu.Unlock()
	require.Equal(t, int32(3), conns.Load(), "one connection each for the first two, one kept for the last two")
}

func TestResponseFacts(t *testing.T) {
	t.Parallel()
	srv := startHTTP(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(http.StatusInternalServerError)
		_, _ = io.WriteString(w, "broken")
	}))
	c := newTestClient(t, Config{})
	resp, err := c.Do(t.Context(), Request{URL: srv.URL + "/x#frag", Kind: KindProbe})
	require.NoError(t, err, "a 5xx is a status, not an error")
	require.Equal(t, 500, resp.Status)
	require.Equal(t, srv.URL+"/x#frag", resp.URL)
	require.Equal(t, srv.URL+"/x", resp.FinalURL)
	require.Equal(t, "broken", string(resp.Body))
	require.Equal(t, "text/plain", resp.Header.Get("Content-Type"))
	require.Equal(t, srvAddr(t, srv), resp.RemoteAddr)
	require.Positive(t, resp.Duration)
	require.Positive(t, resp.TTFB)
	require.LessOrEqual(t, resp.TTFB, resp.Duration)
	require.Nil(t, resp.TLS)
	require.False(t, resp.LeftRegistrable)

	head, err := c.Do(t.Context(), Request{URL: srv.URL, Method: "head"})
	require.NoError(t, err)
	require.Empty(t, head.Body)
}

func TestBadRequests(t *testing.T) {
	t.Parallel()
	c := newTestClient(t, Config{})
	for _, u := range []string{"ftp://example.com/", "/relative", "http://", "mailto:a@b.c", "http://[::1"} {
		_, err := c.Do(t.Context(), Request{URL: u})
		require.Equal(t, ReasonBadRequest, reasonOf(t, err).Reason, u)
	}
	_, err := c.Do(t.Context(), Request{URL: "http://example.com/", Kind: "video"})
	require.Equal(t, ReasonBadRequest, reasonOf(t, err).Reason)
}

// redirectSite serves a redirect chain on any host: /to/CODE?loc=L answers
// CODE with Location L; /n/K redirects to /n/K+1 forever; /final answers the
// method and host.
func redirectSite(t *testing.T) (*http.ServeMux, *[]string) {
	t.Helper()
	var mu sync.Mutex
	var log []string
	mux := http.NewServeMux()
	record := func(r *http.Request) {
		mu.Lock()
		log = append(log, r.Method+" "+r.Host+r.URL.RequestURI())
		mu.Unlock()
	}
	mux.HandleFunc("/to/{code}", func(w http.ResponseWriter, r *http.Request) {
		record(r)
		code, _ := strconv.Atoi(r.PathValue("code"))
		w.Header().Set("Location", r.URL.Query().Get("loc"))
		w.WriteHeader(code)
		_, _ = io.WriteString(w, "moved")
	})
	mux.HandleFunc("/n/{k}", func(w http.ResponseWriter, r *http.Request) {
		record(r)
		k, _ := strconv.Atoi(r.PathValue("k"))
		http.Redirect(w, r, fmt.Sprintf("/n/%d", k+1), http.StatusFound)
	})
	mux.HandleFunc("/final", func(w http.ResponseWriter, r *http.Request) {
		record(r)
		_, _ = io.WriteString(w, r.Method+" "+r.Host)
	})
	return mux, &log
}

func TestRedirectChain(t *testing.T) {
	t.Parallel()
	mux, _ := redirectSite(t)
	srv := startHTTP(t, mux)
	c := newTestClient(t, Config{ConnectTo: []string{routeTo(t, srv)}})

	// www.a.test → a.test (absolute) → relative path → relative reference
	// → another registrable domain.
	start := "http://www.a.test/to/301?loc=" + escape("http://a.test/to/302?loc="+escape("/to/307?loc="+escape("308?loc="+escape("http://b.test/final"))))
	resp, err := c.Do(t.Context(), Request{URL: start})
	require.NoError(t, err)
	require.Equal(t, 200, resp.Status)
	require.Equal(t, "GET b.test", string(resp.Body))
	require.Equal(t, "http://b.test/final", resp.FinalURL)
	require.True(t, resp.LeftRegistrable)
	require.Len(t, resp.Redirects, 4)
	require.Equal(t, Hop{URL: start, Status: 301, Location: "http://a.test/to/302?loc=" + escape("/to/307?loc="+escape("308?loc="+escape("http://b.test/final")))}, resp.Redirects[0])
	require.Equal(t, 302, resp.Redirects[1].Status)
	require.Equal(t, "http://a.test/to/307?loc="+escape("308?loc="+escape("http://b.test/final")), resp.Redirects[1].Location, "relative Location resolved")
	require.Equal(t, "http://a.test/to/308?loc="+escape("http://b.test/final"), resp.Redirects[2].Location)
	require.Equal(t, Hop{URL: resp.Redirects[2].Location, Status: 308, Location: "http://b.test/final"}, resp.Redirects[3])

	// Within one registrable domain.
	resp, err = c.Do(t.Context(), Request{URL: "http://a.example.com/to/302?loc=" + escape("http://www.example.com/final")})
	require.NoError(t, err)
	require.False(t, resp.LeftRegistrable)
	require.Equal(t, "http://www.example.com/final", resp.FinalURL)

	// NoRedirects returns the redirect itself.
	resp, err = c.Do(t.Context(), Request{URL: "http://a.test/to/301?loc=/final", NoRedirects: true})
	require.NoError(t, err)
	require.Equal(t, 301, resp.Status)
	require.Equal(t, "/final", resp.Header.Get("Location"))
	require.Empty(t, resp.Redirects)

	// A 3xx without Location is a final response.
	resp, err = c.Do(t.Context(), Request{URL: "http://a.test/to/302"})
	require.NoError(t, err)
	require.Equal(t, 302, resp.Status)
}

func escape(s string) string {
	return strings.NewReplacer("%", "%25", "?", "%3F", "&", "%26", "=", "%3D", "/", "%2F", ":", "%3A").Replace(s)
}

func TestRedirectMethods(t *testing.T) {
	t.Parallel()
	mux, _ := redirectSite(t)
	srv := startHTTP(t, mux)
	c := newTestClient(t, Config{ConnectTo: []string{routeTo(t, srv)}})
	tests := []struct {
		method string
		code   int
		want   string
	}{
		{"POST", 301, "GET"},
		{"POST", 302, "GET"},
		{"POST", 303, "GET"},
		{"POST", 307, "POST"},
		{"POST", 308, "POST"},
		{"HEAD", 303, "HEAD"},
		{"PUT", 307, "PUT"},
	}
	for _, tt := range tests {
		resp, err := c.Do(t.Context(), Request{URL: fmt.Sprintf("http://m.test/to/%d?loc=/final", tt.code), Method: tt.method})
		require.NoError(t, err)
		if tt.want != "HEAD" {
			require.Equal(t, tt.want+" m.test", string(resp.Body), "%s after %d", tt.method, tt.code)
		}
		require.Equal(t, 200, resp.Status)
	}
}

func TestRedirectHeadersDroppedAcrossHosts(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	auth := map[string]string{}
	srv := startHTTP(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		auth[r.Host] = r.Header.Get("Authorization")
		mu.Unlock()
		if r.Host == "a.test" {
			http.Redirect(w, r, "http://b.test/", http.StatusFound)
		}
	}))
	c := newTestClient(t, Config{ConnectTo: []string{routeTo(t, srv)}})
	_, err := c.Do(t.Context(), Request{URL: "http://a.test/", Header: http.Header{"Authorization": {"Bearer x"}}})
	require.NoError(t, err)
	mu.Lock()
	defer mu.Unlock()
	require.Equal(t, "Bearer x", auth["a.test"])
	require.Empty(t, auth["b.test"])
}

func TestCredentialsNeverSent(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var auth []string
	srv := startHTTP(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		auth = append(auth, r.Header.Get("Authorization"))
		mu.Unlock()
		if r.URL.Path == "/" {
			http.Redirect(w, r, "http://u:p@b.test/next", http.StatusFound)
		}
	}))
	c := newTestClient(t, Config{ConnectTo: []string{routeTo(t, srv)}})
	resp, err := c.Do(t.Context(), Request{URL: "http://user:secret@a.test/"})
	require.NoError(t, err)
	require.Equal(t, "http://b.test/next", resp.FinalURL)
	require.Equal(t, "http://b.test/next", resp.Redirects[0].Location)
	mu.Lock()
	defer mu.Unlock()
	require.Equal(t, []string{"", ""}, auth)
}

func TestTooManyRedirects(t *testing.T) {
	t.Parallel()
	mux, log := redirectSite(t)
	srv := startHTTP(t, mux)
	c := newTestClient(t, Config{ConnectTo: []string{routeTo(t, srv)}})

	_, err := c.Do(t.Context(), Request{URL: "http://r.test/n/0"})
	fe := reasonOf(t, err)
	require.Equal(t, ReasonTooManyRedirects, fe.Reason)
	require.Empty(t, fe.Detail)
	require.Len(t, fe.Redirects, 11, "ten followed, the eleventh refused")
	require.Equal(t, "http://r.test/n/0", fe.Redirects[0].URL)
	require.Equal(t, "http://r.test/n/11", fe.Redirects[10].Location)
	require.Len(t, *log, 11, "the eleventh Location is never requested")

	small := newTestClient(t, Config{ConnectTo: []string{routeTo(t, srv)}, MaxRedirects: 2})
	_, err = small.Do(t.Context(), Request{URL: "http://r.test/n/0"})
	fe = reasonOf(t, err)
	require.Equal(t, ReasonTooManyRedirects, fe.Reason)
	require.Len(t, fe.Redirects, 3)

	// A loop stops as soon as it comes back.
	loopSrv := startHTTP(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		next := map[string]string{"/a": "/b", "/b": "/a"}[r.URL.Path]
		http.Redirect(w, r, next, http.StatusMovedPermanently)
	}))
	plain := newTestClient(t, Config{})
	_, err = plain.Do(t.Context(), Request{URL: loopSrv.URL + "/a"})
	fe = reasonOf(t, err)
	require.Equal(t, ReasonTooManyRedirects, fe.Reason)
	require.Equal(t, "loop", fe.Detail)
	require.Len(t, fe.Redirects, 2)
	require.Equal(t, loopSrv.URL+"/a", fe.Redirects[1].Location)
}

func TestBadRedirect(t *testing.T) {
	t.Parallel()
	mux, _ := redirectSite(t)
	srv := startHTTP(t, mux)
	c := newTestClient(t, Config{ConnectTo: []string{routeTo(t, srv)}})
	_, err := c.Do(t.Context(), Request{URL: "http://x.test/to/302?loc=" + escape("ftp://x.test/file")})
	fe := reasonOf(t, err)
	require.Equal(t, ReasonBadRedirect, fe.Reason)
	require.Len(t, fe.Redirects, 1)
	require.Equal(t, "ftp://x.test/file", fe.Redirects[0].Location)
}

func TestBodyCaps(t *testing.T) {
	t.Parallel()
	srv := startHTTP(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n, _ := strconv.Atoi(r.URL.Query().Get("n"))
		_, _ = w.Write(bytes.Repeat([]byte("a"), n))
	}))
	c := newTestClient(t, Config{BodyLimits: map[Kind]int64{KindPage: 1000, KindSitemap: 1000}})

	resp, err := c.Do(t.Context(), Request{URL: srv.URL + "/?n=1000"})
	require.NoError(t, err)
	require.Len(t, resp.Body, 1000)
	require.False(t, resp.Truncated, "exactly the cap is not truncated")

	resp, err = c.Do(t.Context(), Request{URL: srv.URL + "/?n=5000"})
	require.NoError(t, err)
	require.Len(t, resp.Body, 1000)
	require.True(t, resp.Truncated)

	// Kinds without an override keep their default cap.
	resp, err = c.Do(t.Context(), Request{URL: srv.URL + "/?n=300000", Kind: KindProbe})
	require.NoError(t, err)
	require.Len(t, resp.Body, 256<<10)
	require.True(t, resp.Truncated)
	resp, err = c.Do(t.Context(), Request{URL: srv.URL + "/?n=300000", Kind: KindRobots})
	require.NoError(t, err)
	require.Len(t, resp.Body, 300000)
	require.False(t, resp.Truncated)

	// Stream fails past the cap instead of cutting.
	sr, err := c.Stream(t.Context(), Request{URL: srv.URL + "/?n=1000", Kind: KindSitemap})
	require.NoError(t, err)
	b, err := io.ReadAll(sr.Body)
	require.NoError(t, err)
	require.Len(t, b, 1000)
	require.NoError(t, sr.Body.Close())

	sr, err = c.Stream(t.Context(), Request{URL: srv.URL + "/?n=1001", Kind: KindSitemap})
	require.NoError(t, err)
	require.Equal(t, 200, sr.Status)
	b, err = io.ReadAll(sr.Body)
	require.Len(t, b, 1000)
	require.Equal(t, ReasonBodyTooLarge, reasonOf(t, err).Reason)
	require.NoError(t, sr.Body.Close())
}

func gzipped(t *testing.T, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	require.NoError(t, err)
	_, err = zw.Write(b)
	require.NoError(t, err)
	require.NoError(t, zw.Close())
	return buf.Bytes()
}

func TestContentEncoding(t *testing.T) {
	t.Parallel()
	text := []byte(strings.Repeat("<url><loc>https://example.com/</loc></url>\n", 100))
	var zlibBody, rawBody bytes.Buffer
	zw := zlib.NewWriter(&zlibBody)
	_, _ = zw.Write(text)
	require.NoError(t, zw.Close())
	fw, _ := flate.NewWriter(&rawBody, flate.BestSpeed)
	_, _ = fw.Write(text)
	require.NoError(t, fw.Close())
	bomb := gzipped(t, make([]byte, 8<<20)) // 8 MiB of zeros in ~8 KiB

	bodies := map[string]struct {
		enc  string
		body []byte
	}{
		"/gzip":     {"gzip", gzipped(t, text)},
		"/xgzip":    {"x-gzip", gzipped(t, text)},
		"/zlib":     {"deflate", zlibBody.Bytes()},
		"/raw":      {"deflate", rawBody.Bytes()},
		"/twice":    {"gzip, gzip", gzipped(t, gzipped(t, text))},
		"/bomb":     {"gzip", bomb},
		"/corrupt":  {"gzip", append(gzipped(t, text)[:20], 0xff, 0xff, 0xff, 0xff)},
		"/brotli":   {"br", text},
		"/empty":    {"gzip", nil},
		"/identity": {"identity", text},
	}
	srv := startHTTP(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b := bodies[r.URL.Path]
		w.Header().Set("Content-Encoding", b.enc)
		_, _ = w.Write(b.body)
	}))
	c := newTestClient(t, Config{BodyLimits: map[Kind]int64{KindSitemap: 1 << 20}})

	for _, p := range []string{"/gzip", "/xgzip", "/zlib", "/raw", "/twice", "/identity"} {
		resp, err := c.Do(t.Context(), Request{URL: srv.URL + p, Kind: KindFeed})
		require.NoError(t, err, p)
		require.Equal(t, string(text), string(resp.Body), p)
		require.False(t, resp.Truncated, p)
	}
	resp, err := c.Do(t.Context(), Request{URL: srv.URL + "/empty"})
	require.NoError(t, err)
	require.Empty(t, resp.Body)

	// A gzip bomb costs the cap, no more.
	resp, err = c.Do(t.Context(), Request{URL: srv.URL + "/bomb", Kind: KindProbe})
	require.NoError(t, err)
	require.True(t, resp.Truncated)
	require.Len(t, resp.Body, 256<<10)

	sr, err := c.Stream(t.Context(), Request{URL: srv.URL + "/bomb", Kind: KindSitemap})
	require.NoError(t, err)
	n, err := io.Copy(io.Discard, sr.Body)
	require.Equal(t, int64(1<<20), n)
	require.Equal(t, ReasonBodyTooLarge, reasonOf(t, err).Reason)
	require.NoError(t, sr.Body.Close())

	sr, err = c.Stream(t.Context(), Request{URL: srv.URL + "/gzip", Kind: KindSitemap})
	require.NoError(t, err)
	b, err := io.ReadAll(sr.Body)
	require.NoError(t, err)
	require.Equal(t, string(text), string(b))
	require.NoError(t, sr.Body.Close())

	for _, p := range []string{"/corrupt", "/brotli"} {
		_, err = c.Do(t.Context(), Request{URL: srv.URL + p})
		require.Equal(t, ReasonDecode, reasonOf(t, err).Reason, p)
	}
}

// A body that decodes to nothing (endless empty gzip members) is not read
// forever: the wire cap stops it.
func TestEmptyGzipMembersStopAtWireCap(t *testing.T) {
	t.Parallel()
	member := gzipped(t, nil)
	srv := startHTTP(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Encoding", "gzip")
		for range (1 << 20) / len(member) {
			if _, err := w.Write(member); err != nil {
				return
			}
		}
	}))
	c := newTestClient(t, Config{BodyLimits: map[Kind]int64{KindPage: 1000}})
	resp, err := c.Do(t.Context(), Request{URL: srv.URL})
	require.NoError(t, err)
	require.True(t, resp.Truncated)
	require.Empty(t, resp.Body)
}

func TestCanceledIsNotTheServersFault(t *testing.T) {
	t.Parallel()
	entered := make(chan struct{}, 1)
	srv := startHTTP(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		entered <- struct{}{}
		<-r.Context().Done()
	}))
	c := newTestClient(t, Config{})
	ctx, cancel := context.WithCancel(t.Context())
	go func() {
		<-entered
		cancel()
	}()
	_, err := c.Do(ctx, Request{URL: srv.URL})
	fe := reasonOf(t, err)
	require.Equal(t, ReasonCanceled, fe.Reason)
	require.ErrorIs(t, err, context.Canceled)

	// Canceled while queued behind another request to the same host.
	_, err = c.Do(ctx, Request{URL: srv.URL})
	require.Equal(t, ReasonCanceled, reasonOf(t, err).Reason)
}

func TestRequestRedirectLimitAndAdmit(t *testing.T) {
	t.Parallel()
	mux, log := redirectSite(t)
	srv := startHTTP(t, mux)
	c := newTestClient(t, Config{ConnectTo: []string{routeTo(t, srv)}})

	// A per-request limit below the client's: robots.txt follows five.
	_, err := c.Do(t.Context(), Request{URL: "http://r.test/n/0", MaxRedirects: 5})
	fe := reasonOf(t, err)
	require.Equal(t, ReasonTooManyRedirects, fe.Reason)
	require.Len(t, fe.Redirects, 6, "five followed, the sixth refused")
	// Above the client's limit it changes nothing.
	_, err = c.Do(t.Context(), Request{URL: "http://r.test/n/100", MaxRedirects: 50})
	require.Len(t, reasonOf(t, err).Redirects, 11)

	// Admit is asked before every exchange; its refusal ends the fetch
	// before the request is sent.
	before := len(*log)
	budget := 3
	var asked []string
	admit := func(u *url.URL) error {
		asked = append(asked, u.Path)
		if budget == 0 {
			return errors.New("request budget spent")
		}
		budget--
		return nil
	}
	_, err = c.Do(t.Context(), Request{URL: "http://r.test/n/200", Admit: admit})
	fe = reasonOf(t, err)
	require.Equal(t, ReasonNotAdmitted, fe.Reason)
	require.ErrorContains(t, err, "request budget spent")
	require.Len(t, fe.Redirects, 3)
	require.Equal(t, []string{"/n/200", "/n/201", "/n/202", "/n/203"}, asked, "asked with each hop's URL")
	require.Len(t, *log, before+3, "no request past the budget")
}
