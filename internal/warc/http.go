package warc

import (
	"bytes"
	"crypto/sha1"
	"encoding/base32"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
)

// ErrDigestMismatch is returned when a digest stored in a record does not
// match its content, or when a revisit names a payload digest that the
// capture's body does not have.
var ErrDigestMismatch = errors.New("digest mismatch")

// HTTPResponse is an HTTP response split into its parts. Body shares memory
// with the bytes it was parsed from.
type HTTPResponse struct {
	Proto      string // "HTTP/1.1"
	Status     int
	StatusLine string      // the first line, without its CRLF
	Header     http.Header // names canonicalised; values as received
	HeaderLen  int         // bytes up to and including the blank line
	Body       []byte      // the entity body as stored: after transfer decoding, before content decoding
}

// ParseResponse splits an HTTP response (status line, header fields, blank
// line, body) into its parts. The header block must use CRLF line ends, as
// on the wire; bare CR or LF there is an error, so that every WARC reader
// finds the body where this package does. A Transfer-Encoding other than
// identity is an error: the body must be stored decoded of it and the
// header dropped, or replay tools would decode it twice.
func ParseResponse(b []byte) (HTTPResponse, error) {
	end := bytes.Index(b, []byte("\r\n\r\n"))
	if end < 0 {
		return HTTPResponse{}, errors.New("http response: no blank line ends the header block")
	}
	head := b[:end]
	if i := bytes.IndexAny(bytes.ReplaceAll(head, []byte("\r\n"), nil), "\r\n"); i >= 0 {
		return HTTPResponse{}, errors.New("http response: bare CR or LF in the header block")
	}
	lines := strings.Split(string(head), "\r\n")
	r := HTTPResponse{StatusLine: lines[0], HeaderLen: end + 4, Body: b[end+4:], Header: http.Header{}}

	proto, rest, _ := strings.Cut(lines[0], " ")
	code, _, _ := strings.Cut(rest, " ")
	if !strings.HasPrefix(proto, "HTTP/") {
		return HTTPResponse{}, fmt.Errorf("http response: status line %q does not start with HTTP/", truncate(lines[0]))
	}
	status, err := strconv.Atoi(code)
	if err != nil || len(code) != 3 || status < 100 {
		return HTTPResponse{}, fmt.Errorf("http response: status line %q has no three-digit status", truncate(lines[0]))
	}
	r.Proto, r.Status = proto, status

	var last string
	for _, line := range lines[1:] {
		if (strings.HasPrefix(line, " ") || strings.HasPrefix(line, "\t")) && last != "" {
			// obs-fold: a continuation of the previous field's value.
			vs := r.Header[last]
			vs[len(vs)-1] += " " + strings.TrimSpace(line)
			continue
		}
		name, value, ok := strings.Cut(line, ":")
		if !ok || name == "" || strings.ContainsAny(name, " \t") {
			last = ""
			continue // not a field; kept in the record, ignored here
		}
		last = http.CanonicalHeaderKey(name)
		r.Header[last] = append(r.Header[last], strings.TrimSpace(value))
	}
	if te := strings.ToLower(strings.TrimSpace(r.Header.Get("Transfer-Encoding"))); te != "" && te != "identity" {
		return HTTPResponse{}, fmt.Errorf("http response: Transfer-Encoding %q: store the body decoded and drop the header", te)
	}
	return r, nil
}

// MIME is the response's media type as CDX indexes record it: the
// Content-Type up to the first ';' or space, as sent (pywb does not
// lowercase it). Empty when the response has none.
func (r HTTPResponse) MIME() string {
	ct := strings.TrimSpace(r.Header.Get("Content-Type"))
	if i := strings.IndexAny(ct, "; \t"); i >= 0 {
		ct = ct[:i]
	}
	return ct
}

// PayloadDigest is the WARC-Payload-Digest of an HTTP response: "sha1:"
// and the base32 SHA-1 of its body. Two captures with the same payload
// digest have the same body, so it is the key for deduplication.
func PayloadDigest(response []byte) (string, error) {
	r, err := ParseResponse(response)
	if err != nil {
		return "", err
	}
	return digestOf(r.Body), nil
}

// digestOf is the WARC digest of b: "sha1:" and 32 base32 characters.
func digestOf(b []byte) string {
	sum := sha1.Sum(b)
	return "sha1:" + base32.StdEncoding.EncodeToString(sum[:])
}

func truncate(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}
