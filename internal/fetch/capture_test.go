package fetch

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine/internal/contentcoding"
)

// A captured fetch keeps each exchange as it went over the wire: the
// redirect and the final response byte for byte as the server wrote
// them (header names as spelt, in their order, a gzip body still
// gzipped, chunked framing and all), the request as written, when its
// first byte went out and to which address; the decoded body is still
// the Response's.
func TestCapture(t *testing.T) {
	t.Parallel()
	var zipped bytes.Buffer
	zw := gzip.NewWriter(&zipped)
	_, _ = zw.Write([]byte("<html>hello, archive</html>"))
	require.NoError(t, zw.Close())
	redirect := "HTTP/1.1 301 Moved Permanently\r\nLocation: /final\r\nx-lower: kept\r\nContent-Length: 0\r\n\r\n"
	final := "HTTP/1.1 200 OK\r\nETag: \"v1\"\r\nContent-Type: text/html\r\nContent-Encoding: gzip\r\nTransfer-Encoding: chunked\r\nX-Z: last\r\n\r\n" +
		strings.ToUpper(strconvHex(zipped.Len())) + "\r\n" + zipped.String() + "\r\n0\r\n\r\n"
	srv := startHTTP(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		conn, buf, err := http.NewResponseController(w).Hijack()
		require.NoError(t, err)
		defer conn.Close()
		raw := redirect
		if r.URL.Path == "/final" {
			raw = final
		}
		_, _ = buf.WriteString(raw)
		_ = buf.Flush()
	}))
	c := newTestClient(t, Config{})
	before := time.Now()
	resp, err := c.Do(t.Context(), Request{URL: srv.URL + "/start", Capture: true})
	require.NoError(t, err)
	require.Equal(t, 200, resp.Status)
	require.Equal(t, "<html>hello, archive</html>", string(resp.Body), "the body decoded, as ever")
	require.Len(t, resp.Exchanges, 2)

	hop, page := resp.Exchanges[0], resp.Exchanges[1]
	require.Equal(t, srv.URL+"/start", hop.URL)
	require.Equal(t, 301, hop.Status)
	require.Equal(t, redirect, string(hop.Response))
	require.Equal(t, srv.URL+"/final", page.URL)
	require.Equal(t, 200, page.Status)
	require.Equal(t, final, string(page.Response), "every byte the server sent")
	for _, ex := range resp.Exchanges {
		require.Equal(t, "127.0.0.1", ex.IP)
		require.False(t, ex.Start.Before(before))
		req, err := http.ReadRequest(bufio.NewReader(bytes.NewReader(ex.Request)))
		require.NoError(t, err, "the request as written: %q", ex.Request)
		require.Equal(t, c.UserAgent(), req.Header.Get("User-Agent"))
		require.Equal(t, contentcoding.Accept, req.Header.Get("Accept-Encoding"))
	}
	require.False(t, page.Start.Before(hop.Start))

	// Without Capture, nothing is kept.
	resp, err = c.Do(t.Context(), Request{URL: srv.URL + "/start"})
	require.NoError(t, err)
	require.Empty(t, resp.Exchanges)

	// A capture may ask for the page unencoded, as the page fetcher
	// does: the request says so on every hop, and a server that gzips
	// all the same is still read.
	resp, err = c.Do(t.Context(), Request{URL: srv.URL + "/start", Capture: true, Header: http.Header{"accept-encoding": {"identity"}}})
	require.NoError(t, err)
	require.Equal(t, "<html>hello, archive</html>", string(resp.Body))
	require.Len(t, resp.Exchanges, 2)
	for _, ex := range resp.Exchanges {
		req, err := http.ReadRequest(bufio.NewReader(bytes.NewReader(ex.Request)))
		require.NoError(t, err)
		require.Equal(t, []string{"identity"}, req.Header.Values("Accept-Encoding"))
	}
	require.Equal(t, final, string(resp.Exchanges[1].Response))
}

func strconvHex(n int) string {
	const digits = "0123456789abcdef"
	if n == 0 {
		return "0"
	}
	var b []byte
	for ; n > 0; n /= 16 {
		b = append([]byte{digits[n%16]}, b...)
	}
	return string(b)
}

// A captured fetch keeps its connection alive for the host's next one,
// and each exchange's record holds its own bytes and no other's: a
// redirect and its target on one connection, then a later fetch, then a
// 503 retried after its Retry-After, whose record is the retry's alone.
func TestCaptureKeepsConnectionsAlive(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var remotes []string
	tries := 0
	srv := startHTTP(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		remotes = append(remotes, r.RemoteAddr)
		mu.Unlock()
		switch r.URL.Path {
		case "/moved":
			http.Redirect(w, r, "/page/1", http.StatusMovedPermanently)
		case "/busy":
			mu.Lock()
			tries++
			first := tries == 1
			mu.Unlock()
			if first {
				w.Header().Set("Retry-After", "0")
				w.WriteHeader(http.StatusServiceUnavailable)
				_, _ = io.WriteString(w, "busy")
				return
			}
			_, _ = io.WriteString(w, "<html>free now</html>")
		default:
			_, _ = io.WriteString(w, "<html>"+r.URL.Path+"</html>")
		}
	}))
	c := newTestClient(t, Config{MaxRetryAfter: time.Second})
	var exchanges []Exchange
	for _, path := range []string{"/moved", "/page/2", "/busy"} {
		resp, err := c.Do(t.Context(), Request{URL: srv.URL + path, Capture: true})
		require.NoError(t, err)
		require.Equal(t, 200, resp.Status)
		exchanges = append(exchanges, resp.Exchanges...)
	}
	want := []struct{ path, status, body string }{
		{"/moved", "301", ""},
		{"/page/1", "200", "<html>/page/1</html>"},
		{"/page/2", "200", "<html>/page/2</html>"},
		{"/busy", "200", "<html>free now</html>"},
	}
	require.Len(t, exchanges, len(want))
	for i, ex := range exchanges {
		require.Equal(t, srv.URL+want[i].path, ex.URL)
		br := bufio.NewReader(bytes.NewReader(ex.Request))
		req, err := http.ReadRequest(br)
		require.NoError(t, err)
		require.Equal(t, want[i].path, req.URL.Path)
		require.Zero(t, br.Buffered(), "exchange %d's request record holds one request", i)
		require.Empty(t, req.Header.Get("Connection"), "no Connection: close")

		br = bufio.NewReader(bytes.NewReader(ex.Response))
		r, err := http.ReadResponse(br, req)
		require.NoError(t, err)
		body, err := io.ReadAll(r.Body)
		require.NoError(t, err)
		require.Equal(t, want[i].status, strconv.Itoa(r.StatusCode), "exchange %d", i)
		if want[i].body != "" {
			require.Equal(t, want[i].body, string(body))
		}
		require.Zero(t, br.Buffered(), "exchange %d's response record holds one response", i)
		_, err = br.ReadByte()
		require.ErrorIs(t, err, io.EOF)
	}
	mu.Lock()
	defer mu.Unlock()
	require.Len(t, remotes, 5, "the 503 and its retry")
	for _, r := range remotes {
		require.Equal(t, remotes[0], r, "one connection carried every exchange")
	}
}
