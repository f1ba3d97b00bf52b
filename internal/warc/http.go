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
	"unicode"
	"unicode/utf8"
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

	fields []string // the header field lines as sent, for MIME
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
	for i, c := range head {
		if c == '\r' && (i+1 == len(head) || head[i+1] != '\n') || c == '\n' && (i == 0 || head[i-1] != '\r') {
			return HTTPResponse{}, errors.New("http response: bare CR or LF in the header block")
		}
	}
	lines := strings.Split(string(head), "\r\n")
	r := HTTPResponse{StatusLine: lines[0], HeaderLen: end + 4, Body: b[end+4:], Header: http.Header{}, fields: lines[1:]}

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

// MIME is the response's media type as CDX indexes record it, as sent
// (not lowercased); empty when the response has none. It is what
// warcio.js's CDXIndexer reads, field lines parsed as its header parser
// does: every non-empty Content-Type value, joined by ", ", up to the
// first ';', trimmed.
func (r HTTPResponse) MIME() string {
	mime, _ := r.cdxMIME()
	return mime
}

// cdxMIME is MIME, and whether warcio's indexer writes a mime at all:
// not when no Content-Type field has a value, but when the value's
// media type is empty (";charset=x").
//
// warcio decodes the header block as UTF-8 and keeps the fields in a
// fetch API Headers, which refuses a value with a NUL and one with a
// character above U+00FF; for the latter warcio stores the value's
// UTF-8 bytes as Latin-1 characters instead.
func (r HTTPResponse) cdxMIME() (string, bool) {
	var values []string
	add := func(name, value string) {
		if !strings.EqualFold(name, "content-type") || strings.IndexByte(value, 0) >= 0 {
			return
		}
		if strings.IndexFunc(value, func(c rune) bool { return c > 0xff }) >= 0 {
			var b strings.Builder
			for i := 0; i < len(value); i++ {
				b.WriteRune(rune(value[i]))
			}
			value = b.String()
		}
		values = append(values, value)
	}
	var name, value string
	for _, line := range r.fields {
		line = decodeUTF8(line)
		if value != "" && (strings.HasPrefix(line, " ") || strings.HasPrefix(line, "\t")) {
			value += strings.TrimRightFunc(line, isJSSpace)
			continue
		}
		if value != "" {
			add(name, value)
		}
		var ok bool
		name, value, ok = strings.Cut(line, ":")
		if !ok {
			value = ""
			continue
		}
		name, value = strings.TrimLeftFunc(name, isJSSpace), strings.TrimFunc(value, isJSSpace)
	}
	if value != "" {
		add(name, value)
	}
	if len(values) == 0 {
		return "", false
	}
	mime, _, _ := strings.Cut(strings.Join(values, ", "), ";")
	return strings.TrimFunc(mime, isJSSpace), true
}

// isJSSpace is what JavaScript's trim removes.
func isJSSpace(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', '\ufeff', '\u2028', '\u2029':
		return true
	}
	return unicode.Is(unicode.Zs, r)
}

// decodeUTF8 is s as the WHATWG UTF-8 decoder (TextDecoder) reads it:
// each maximal subpart of an invalid sequence becomes one U+FFFD, where
// Go's decoder gives one per byte.
func decodeUTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			n = invalidPrefix(s[i:])
		}
		b.WriteRune(r)
		i += n
	}
	return b.String()
}

// invalidPrefix is the length of the maximal subpart at the start of s,
// which does not begin with a valid UTF-8 sequence: a lead byte and the
// continuation bytes that could have followed it.
func invalidPrefix(s string) int {
	need, lo, hi := 0, byte(0x80), byte(0xbf)
	switch c := s[0]; {
	case 0xc2 <= c && c <= 0xdf:
		need = 1
	case c == 0xe0:
		need, lo = 2, 0xa0
	case c == 0xed:
		need, hi = 2, 0x9f
	case 0xe1 <= c && c <= 0xef:
		need = 2
	case c == 0xf0:
		need, lo = 3, 0x90
	case c == 0xf4:
		need, hi = 3, 0x8f
	case 0xf1 <= c && c <= 0xf3:
		need = 3
	}
	n := 1
	for n <= need && n < len(s) && lo <= s[n] && s[n] <= hi {
		n++
		lo, hi = 0x80, 0xbf
	}
	return n
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
	if len(b) == 0 {
		return emptyDigest // a GET's request body
	}
	sum := sha1.Sum(b)
	return "sha1:" + base32.StdEncoding.EncodeToString(sum[:])
}

var emptyDigest = func() string {
	sum := sha1.Sum(nil)
	return "sha1:" + base32.StdEncoding.EncodeToString(sum[:])
}()

func truncate(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}
