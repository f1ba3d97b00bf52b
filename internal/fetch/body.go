package fetch

import (
	"errors"
	"fmt"
	"io"

	"github.com/seedengine/seedengine/internal/contentcoding"
)

// wireSlack is how many encoded bytes beyond the decoded cap are read. A
// compressed body is smaller than its content, so reading more than
// cap+slack encoded bytes only happens for input that decodes to nothing
// (a stream of empty gzip members), which must not be read forever.
const wireSlack = 64 << 10

// wireLimit counts and limits the encoded bytes read from the connection.
type wireLimit struct {
	r   io.Reader
	n   int64 // bytes left
	hit bool  // the limit was reached
	eof bool  // the body ended cleanly
}

func (w *wireLimit) Read(p []byte) (int, error) {
	if w.n <= 0 {
		w.hit = true
		return 0, io.EOF
	}
	if int64(len(p)) > w.n {
		p = p[:w.n]
	}
	n, err := w.r.Read(p)
	w.n -= int64(n)
	if err == io.EOF {
		w.eof = true
	}
	return n, err
}

// readError classifies an error from reading a decoded body: when the wire
// ended cleanly, a decoder that wanted more (io.ErrUnexpectedEOF) found a
// truncated encoding, not a broken connection.
func (w *wireLimit) readError(url string, err error) error {
	if w.eof && errors.Is(err, io.ErrUnexpectedEOF) {
		return &Error{Reason: ReasonDecode, URL: url, Err: err}
	}
	return bodyError(url, err)
}

// readCapped reads at most limit bytes of r. truncated says that r had
// more.
func readCapped(r io.Reader, limit int64) (body []byte, truncated bool, err error) {
	body, err = io.ReadAll(io.LimitReader(r, limit+1))
	if int64(len(body)) > limit {
		return body[:limit], true, nil
	}
	return body, false, err
}

// errTooLarge is the error a capped stream returns past its cap.
var errTooLarge = errors.New("body exceeds the size limit")

// cappedReader yields at most n bytes of r and then fails with
// body_too_large if r has more, so a streaming parser never mistakes a
// cut-off document for a complete one.
type cappedReader struct {
	r     io.Reader
	n     int64
	limit int64
	url   string
	wire  *wireLimit
}

func (c *cappedReader) Read(p []byte) (int, error) {
	if c.n <= 0 {
		var one [1]byte
		n, err := c.r.Read(one[:])
		if n > 0 || c.wire.hit {
			return 0, c.tooLarge()
		}
		if err == nil {
			return 0, nil
		}
		return 0, c.wrap(err)
	}
	if int64(len(p)) > c.n {
		p = p[:c.n]
	}
	n, err := c.r.Read(p)
	c.n -= int64(n)
	if err != nil && err != io.EOF && c.wire.hit {
		return n, c.tooLarge()
	}
	return n, c.wrap(err)
}

func (c *cappedReader) tooLarge() error {
	return &Error{Reason: ReasonBodyTooLarge, URL: c.url, Err: fmt.Errorf("%w (%d bytes)", errTooLarge, c.limit)}
}

// wrap classifies a read error (reset, timeout, corrupt encoding); io.EOF
// passes through.
func (c *cappedReader) wrap(err error) error {
	if err == nil || err == io.EOF {
		return err
	}
	return c.wire.readError(c.url, err)
}

// bodyError classifies an error met while reading a body.
func bodyError(url string, err error) error {
	var fe *Error
	if errors.As(err, &fe) {
		return err
	}
	if contentcoding.IsDecodeError(err) {
		return &Error{Reason: ReasonDecode, URL: url, Err: err}
	}
	r, d := classify(err)
	return &Error{Reason: r, Detail: d, URL: url, Err: err}
}
