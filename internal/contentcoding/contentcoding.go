// Package contentcoding decodes HTTP content codings (RFC 9110 §8.4):
// the fetcher decodes bodies as they arrive, and the archive keeps them
// as sent and decodes them when a page is read back.
package contentcoding

import (
	"bufio"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"errors"
	"fmt"
	"io"
	"strings"
)

// Accept is the Accept-Encoding of a fetch: the codings Decoder reads,
// all of the standard library, so a cap can be applied to decoded bytes.
const Accept = "gzip, deflate"

// Decoder returns a reader of r decoded of the Content-Encoding header
// value enc (a list, applied in order, so decoded in reverse). "identity"
// and an empty value pass r through; a coding it does not know is an
// error.
func Decoder(enc string, r io.Reader) (io.Reader, error) {
	codings := strings.Split(enc, ",")
	for i := len(codings) - 1; i >= 0; i-- {
		switch c := strings.ToLower(strings.TrimSpace(codings[i])); c {
		case "", "identity":
		case "gzip", "x-gzip":
			zr, err := gzip.NewReader(r)
			if err != nil {
				return nil, fmt.Errorf("gzip: %w", err)
			}
			r = zr
		case "deflate":
			r = deflateReader(r)
		default:
			return nil, fmt.Errorf("unsupported content encoding %q", c)
		}
	}
	return r, nil
}

// deflateReader decodes "deflate", which RFC 9110 defines as zlib but which
// some servers send as raw DEFLATE: the zlib header is recognised by its
// checksum and anything else is read as raw.
func deflateReader(r io.Reader) io.Reader {
	br := bufio.NewReader(r)
	h, err := br.Peek(2)
	if err == nil && h[0]&0x0f == 8 && (uint16(h[0])<<8|uint16(h[1]))%31 == 0 {
		zr, err := zlib.NewReader(br)
		if err == nil {
			return zr
		}
		return errReader{err}
	}
	return flate.NewReader(br)
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

// IsDecodeError reports whether err is a decoder's complaint about its
// input (a bad header, checksum or stream), not a failure to read it.
func IsDecodeError(err error) bool {
	var ce flate.CorruptInputError
	return errors.Is(err, gzip.ErrHeader) || errors.Is(err, gzip.ErrChecksum) ||
		errors.Is(err, zlib.ErrHeader) || errors.Is(err, zlib.ErrChecksum) ||
		errors.Is(err, zlib.ErrDictionary) || errors.As(err, &ce)
}
