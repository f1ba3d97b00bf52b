package warc

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/textproto"
	"strconv"
	"strings"

	"github.com/klauspost/compress/gzip"
)

// StoredRecord is one record read back from a WARC file.
type StoredRecord struct {
	Version string               // "WARC/1.1"
	Header  textproto.MIMEHeader // the WARC header fields; Get and Values ignore case
	Block   []byte               // the content block: for HTTP records, the whole message
}

// Type is the record's WARC-Type.
func (s StoredRecord) Type() string { return s.Header.Get("WARC-Type") }

// HTTPResponse splits the block of a response record, or of a revisit
// (whose body is then empty: it is the original's).
func (s StoredRecord) HTTPResponse() (HTTPResponse, error) {
	if t := s.Type(); t != "response" && t != "revisit" {
		return HTTPResponse{}, fmt.Errorf("record %s is a %s, not a response", s.Header.Get("WARC-Record-ID"), t)
	}
	return ParseResponse(s.Block)
}

// ReadRecord reads the record whose gzip member is at offset, length
// bytes long, as a CDX line gives them. The member must hold exactly one
// record, and the record's WARC-Block-Digest (and for a response its
// WARC-Payload-Digest) must match its content, else the error wraps
// ErrDigestMismatch: a page is never served from a damaged record.
func ReadRecord(r io.ReaderAt, offset, length int64) (StoredRecord, error) {
	fail := func(err error) (StoredRecord, error) {
		return StoredRecord{}, fmt.Errorf("warc read at %d+%d: %w", offset, length, err)
	}
	if offset < 0 || length <= 0 {
		return fail(errors.New("bad offset or length"))
	}
	br := bufio.NewReader(io.NewSectionReader(r, offset, length))
	zr, err := gzip.NewReader(br)
	if err != nil {
		return fail(err)
	}
	zr.Multistream(false)
	// Read to EOF, so that the CRC and size are checked. HTML compresses
	// about 5:1.
	var buf bytes.Buffer
	buf.Grow(int(min(length, 1<<20)) * 5)
	if _, err := buf.ReadFrom(zr); err != nil {
		return fail(err)
	}
	raw := buf.Bytes()
	if _, err := br.ReadByte(); err != io.EOF {
		return fail(errors.New("bytes after the record's gzip member"))
	}

	s, err := parseRecord(raw)
	if err != nil {
		return fail(err)
	}
	if err := s.verify(); err != nil {
		return fail(err)
	}
	return s, nil
}

// parseRecord splits one uncompressed record: version line, header
// fields up to a blank line, Content-Length bytes of block, and the
// CRLF CRLF that ends a record, with nothing after it.
func parseRecord(raw []byte) (StoredRecord, error) {
	end := bytes.Index(raw, []byte("\r\n\r\n"))
	if end < 0 {
		return StoredRecord{}, errors.New("no blank line ends the WARC header")
	}
	lines := strings.Split(string(raw[:end]), "\r\n")
	if !strings.HasPrefix(lines[0], "WARC/") {
		return StoredRecord{}, fmt.Errorf("not a WARC record: %q", truncate(lines[0]))
	}
	s := StoredRecord{Version: lines[0], Header: textproto.MIMEHeader{}}
	for _, line := range lines[1:] {
		name, value, ok := strings.Cut(line, ":")
		if !ok || name == "" || strings.ContainsAny(name, " \t") {
			return StoredRecord{}, fmt.Errorf("bad WARC header line %q", truncate(line))
		}
		s.Header.Add(name, strings.TrimSpace(value))
	}
	n, err := strconv.ParseInt(s.Header.Get("Content-Length"), 10, 64)
	body := raw[end+4:]
	if err != nil || n < 0 || n > int64(len(body)) {
		return StoredRecord{}, fmt.Errorf("Content-Length %q does not fit the record", s.Header.Get("Content-Length"))
	}
	if !bytes.Equal(body[n:], []byte("\r\n\r\n")) {
		return StoredRecord{}, fmt.Errorf("record does not end in CRLF CRLF after its %d-byte block", n)
	}
	s.Block = body[:n]
	return s, nil
}

// verify checks the record's digests against its block.
func (s StoredRecord) verify() error {
	id := s.Header.Get("WARC-Record-ID")
	if err := checkDigest("block", s.Header.Get("WARC-Block-Digest"), s.Block); err != nil {
		return fmt.Errorf("record %s: %w", id, err)
	}
	if s.Type() != "response" || !strings.HasPrefix(s.Header.Get("Content-Type"), "application/http") {
		return nil // a revisit's payload is the original's
	}
	resp, err := ParseResponse(s.Block)
	if err != nil {
		return fmt.Errorf("record %s: %w", id, err)
	}
	if err := checkDigest("payload", s.Header.Get("WARC-Payload-Digest"), resp.Body); err != nil {
		return fmt.Errorf("record %s: %w", id, err)
	}
	return nil
}

func checkDigest(what, want string, b []byte) error {
	if want == "" {
		return fmt.Errorf("no %s digest", what)
	}
	if !strings.HasPrefix(want, "sha1:") {
		return fmt.Errorf("%s digest %q: only sha1 is supported", what, want)
	}
	if got := digestOf(b); !strings.EqualFold(got, want) {
		return fmt.Errorf("%s %w: header %s, content %s", what, ErrDigestMismatch, want, got)
	}
	return nil
}
