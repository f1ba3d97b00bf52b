package warc

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/seedengine/seedengine/internal/contentcoding"
)

// WireResponse turns an HTTP/1.x response as read off a connection into
// the block of its response record (Capture.Response). It keeps the
// server's bytes — the status line, every header field in its order and
// spelling, the body with its Content-Encoding — and changes only what a
// record cannot hold as sent:
//
//   - interim 1xx responses before the final one (100 Continue, 103
//     Early Hints) are left out: a record holds one response;
//   - a chunked body is stored decoded of its chunks and the
//     Transfer-Encoding field is dropped, as wget and warcio do, so that
//     a reader that trusts the header block never decodes it twice
//     (chunk extensions and trailer fields go with the framing);
//   - a header block whose lines end in a bare LF is given CRLFs;
//   - bytes after the body's Content-Length (none on a sound
//     connection) are cut.
//
// A body cut short (a redirect's drained body) is kept as far as it was
// read. A transfer coding other than chunked is an error: nothing in the
// record could say how to read it. A block that needs none of these
// changes is raw itself (a slice of it, not a copy), so raw must not
// change while the block is used.
func WireResponse(raw []byte) ([]byte, error) {
	for {
		head, body, err := splitHead(raw)
		if err != nil {
			return nil, err
		}
		status := statusOf(head[0])
		if status == 0 {
			return nil, fmt.Errorf("http response: status line %q has no status", truncate(head[0]))
		}
		if status >= 100 && status < 200 && status != 101 {
			raw = body // an interim response: the final one follows
			continue
		}
		return wireMessage(raw, head, body, status)
	}
}

// splitHead splits raw at the end of its header block, the block's lines
// without their line ends.
func splitHead(raw []byte) (head []string, body []byte, err error) {
	for i := 0; i < len(raw); i++ {
		if raw[i] != '\n' {
			continue
		}
		// A header block ends at an empty line: LF, then LF or CRLF.
		if j := i + 1; j < len(raw) && raw[j] == '\n' {
			return lines(raw[:i]), raw[j+1:], nil
		} else if j+1 < len(raw) && raw[j] == '\r' && raw[j+1] == '\n' {
			return lines(raw[:i]), raw[j+2:], nil
		}
	}
	return nil, nil, errors.New("http response: no blank line ends the header block")
}

func lines(b []byte) []string {
	ls := strings.Split(string(b), "\n")
	for i, l := range ls {
		ls[i] = strings.TrimSuffix(l, "\r")
	}
	return ls
}

// statusOf is the status code of a status line, 0 when it has none.
func statusOf(line string) int {
	proto, rest, _ := strings.Cut(line, " ")
	code, _, _ := strings.Cut(rest, " ")
	n, err := strconv.Atoi(code)
	if !strings.HasPrefix(proto, "HTTP/") || err != nil || len(code) != 3 || n < 100 {
		return 0
	}
	return n
}

// wireMessage is the record block of one final response, raw split
// into head and body.
func wireMessage(raw []byte, head []string, body []byte, status int) ([]byte, error) {
	rest := body
	var te []string
	length := int64(-1)
	fields := make([]string, 0, len(head))
	fields = append(fields, head[0])
	for _, l := range head[1:] {
		name, value, _ := strings.Cut(l, ":")
		switch {
		case strings.EqualFold(name, "Transfer-Encoding"):
			for c := range strings.SplitSeq(value, ",") {
				if c = strings.ToLower(strings.TrimSpace(c)); c != "" {
					te = append(te, c)
				}
			}
			continue
		case strings.EqualFold(name, "Content-Length"):
			if n, err := strconv.ParseInt(strings.TrimSpace(value), 10, 64); err == nil && n >= 0 {
				length = n
			}
		}
		fields = append(fields, l)
	}
	switch {
	case status == 204 || status == 304:
		body = nil // no body, whatever followed
	case len(te) == 0 || len(te) == 1 && te[0] == "identity":
		if length >= 0 && int64(len(body)) > length {
			body = body[:length]
		}
	case te[len(te)-1] == "chunked" && len(te) == 1:
		body = dechunk(body)
	default:
		return nil, fmt.Errorf("http response: Transfer-Encoding %q cannot be stored", strings.Join(te, ", "))
	}
	// The lines joined with CRLF: the bytes as they came when every line
	// ended so, less any Transfer-Encoding field.
	n := 2
	for _, f := range fields {
		n += len(f) + 2
	}
	if len(fields) == len(head) && len(raw)-len(rest) == n {
		// Nothing dropped, and the header block is as long as its lines
		// with CRLFs: every line ended so, and raw is the block as far
		// as its body (not decoded of chunks, perhaps cut) goes.
		end := n + len(body)
		return raw[:end:end], nil
	}
	out := make([]byte, 0, n+len(body))
	for _, f := range fields {
		out = append(append(out, f...), "\r\n"...)
	}
	out = append(out, "\r\n"...)
	return append(out, body...), nil
}

// dechunk decodes a chunked body (RFC 9112 §7.1), as far as it goes: a
// body cut short gives the chunks read so far.
func dechunk(b []byte) []byte {
	var out []byte
	for len(b) > 0 {
		line, rest, ok := bytes.Cut(b, []byte("\n"))
		if !ok {
			break
		}
		size, _, _ := bytes.Cut(bytes.TrimSuffix(line, []byte("\r")), []byte(";"))
		n, err := strconv.ParseInt(string(bytes.TrimSpace(size)), 16, 64)
		if err != nil || n < 0 {
			break
		}
		if n == 0 {
			break // the last chunk; trailer fields are framing
		}
		if n > int64(len(rest)) {
			out = append(out, rest...)
			break
		}
		out = append(out, rest[:n]...)
		b = rest[n:]
		b = bytes.TrimPrefix(b, []byte("\r\n"))
		b = bytes.TrimPrefix(b, []byte("\n"))
	}
	if out == nil {
		out = []byte{}
	}
	return out
}

// Decoded is the response's body decoded of its Content-Encoding (as
// a record keeps it), at most limit bytes: what a reader of the page
// wants. A body over the limit is an error.
func (r HTTPResponse) Decoded(limit int64) ([]byte, error) {
	dec, err := contentcoding.Decoder(r.Header.Get("Content-Encoding"), bytes.NewReader(r.Body))
	if err != nil {
		return nil, err
	}
	out, err := io.ReadAll(io.LimitReader(dec, limit+1))
	if err != nil {
		return nil, fmt.Errorf("decode the body: %w", err)
	}
	if int64(len(out)) > limit {
		return nil, fmt.Errorf("the decoded body is larger than %d bytes", limit)
	}
	return out, nil
}
