package warc

import (
	"bytes"
	"compress/gzip"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
)

// A response as read off the connection is kept byte for byte —
// status line, fields in their order and spelling, a gzip body still
// gzipped — except for what a record cannot hold as sent: interim 1xx
// responses, chunked framing (with its Transfer-Encoding field), bare
// LF line ends in the header block, bytes past Content-Length.
func TestWireResponse(t *testing.T) {
	t.Parallel()
	gz := gzipped("<p>hello</p>")

	for _, tc := range []struct {
		name, wire, want string
	}{
		{"as sent",
			"HTTP/1.1 200 OK\r\nETag: \"x\"\r\ncontent-type: text/html\r\nContent-Encoding: gzip\r\nContent-Length: " + itoa(len(gz)) + "\r\n\r\n" + gz,
			"HTTP/1.1 200 OK\r\nETag: \"x\"\r\ncontent-type: text/html\r\nContent-Encoding: gzip\r\nContent-Length: " + itoa(len(gz)) + "\r\n\r\n" + gz},
		{"chunked, with an extension and a trailer",
			"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nTransfer-Encoding: chunked\r\nVary: Accept-Encoding\r\n\r\n" +
				"5;name=value\r\n<p>he\r\n7\r\nllo</p>\r\n0\r\nX-Trailer: 1\r\n\r\n",
			"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nVary: Accept-Encoding\r\n\r\n<p>hello</p>"},
		{"chunked gzip keeps its content coding",
			"HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\ntransfer-encoding: Chunked\r\n\r\n" + hexLen(len(gz)) + "\r\n" + gz + "\r\n0\r\n\r\n",
			"HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\n\r\n" + gz},
		{"a chunked body cut short keeps what came",
			"HTTP/1.1 301 Moved Permanently\r\nLocation: /b\r\nTransfer-Encoding: chunked\r\n\r\n10\r\n<a href=/b>",
			"HTTP/1.1 301 Moved Permanently\r\nLocation: /b\r\n\r\n<a href=/b>"},
		{"interim responses go",
			"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </s.css>; rel=preload\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok",
			"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"},
		{"bare LF line ends",
			"HTTP/1.0 200 OK\nServer: old\nContent-Length: 2\n\nok",
			"HTTP/1.0 200 OK\r\nServer: old\r\nContent-Length: 2\r\n\r\nok"},
		{"bytes past Content-Length",
			"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokHTTP/1.1 200 OK",
			"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"},
		{"no body on a 304",
			"HTTP/1.1 304 Not Modified\r\nETag: \"x\"\r\n\r\n",
			"HTTP/1.1 304 Not Modified\r\nETag: \"x\"\r\n\r\n"},
		{"read to the close",
			"HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nall of it",
			"HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nall of it"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := WireResponse([]byte(tc.wire))
			require.NoError(t, err)
			require.Equal(t, tc.want, string(got))
			_, err = ParseResponse(got)
			require.NoError(t, err, "a record block ParseResponse reads")
		})
	}

	for _, bad := range []string{
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n",
		"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n",
		"ICY 200 OK\r\n\r\n",
	} {
		_, err := WireResponse([]byte(bad))
		require.Error(t, err, "%q", bad)
	}
}

// Decoded is a stored body decoded of its content coding, under a cap.
func TestDecoded(t *testing.T) {
	t.Parallel()
	r, err := ParseResponse([]byte("HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\n\r\n" + gzipped("<p>hello</p>")))
	require.NoError(t, err)
	body, err := r.Decoded(1 << 10)
	require.NoError(t, err)
	require.Equal(t, "<p>hello</p>", string(body))
	_, err = r.Decoded(5)
	require.Error(t, err, "over the cap")

	r, err = ParseResponse([]byte("HTTP/1.1 200 OK\r\nContent-Encoding: br\r\n\r\nxx"))
	require.NoError(t, err)
	_, err = r.Decoded(1 << 10)
	require.Error(t, err, "a coding it cannot read")
}

func itoa(n int) string { return strconv.Itoa(n) }

func hexLen(n int) string { return strconv.FormatInt(int64(n), 16) }

// gzipped is s gzip-compressed.
func gzipped(s string) string {
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	_, _ = zw.Write([]byte(s))
	_ = zw.Close()
	return b.String()
}
