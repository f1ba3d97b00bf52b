package warc

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/klauspost/compress/gzip"
)

// Capture is one HTTP exchange to archive.
type Capture struct {
	TargetURI string    // the URL fetched; written as TargetURI(TargetURI)
	IP        string    // the server's address; may be empty
	Date      time.Time // when the capture began: the request's first byte
	// Request is the HTTP request as sent: request line, header fields,
	// blank line and body. Empty writes no request record.
	Request []byte
	// Response is the HTTP response as received: status line, header
	// fields, blank line and body, the body decoded of any
	// Transfer-Encoding (and that header dropped) but with its
	// Content-Encoding as sent: WireResponse makes it from the bytes
	// read off the connection. See ParseResponse.
	Response []byte

	// Set by PayloadDigest, so that Write parses and digests once.
	resp          *HTTPResponse
	payloadDigest string
}

// PayloadDigest parses c.Response and returns its payload digest (see the
// package function PayloadDigest). A Capture whose digest was asked for
// is written without parsing or digesting its body again, so c.Response
// must not change after the call.
func (c *Capture) PayloadDigest() (string, error) {
	if c.resp == nil {
		r, err := ParseResponse(c.Response)
		if err != nil {
			return "", err
		}
		c.resp, c.payloadDigest = &r, digestOf(r.Body)
	}
	return c.payloadDigest, nil
}

// Revisit names the earlier response whose payload a capture repeats.
// Record.Revisit gives it for a response this package wrote.
type Revisit struct {
	RecordID      string // "<urn:uuid:…>"
	TargetURI     string
	Date          time.Time
	PayloadDigest string // "sha1:…"
}

// Record says where a capture's response or revisit record landed, and
// what a CDX index says of it.
type Record struct {
	Type          string // "response" or "revisit"
	RecordID      string // "<urn:uuid:…>"
	TargetURI     string // as written: TargetURI(Capture.TargetURI)
	Date          time.Time
	Offset        int64 // of the record's gzip member in the file
	Length        int64 // of that gzip member
	PayloadDigest string
	Status        int
	MIME          string // the response's media type (HTTPResponse.MIME), also for a revisit

	// emptyMIME is set when the response's Content-Type has an empty
	// media type, which a CDX index writes as "mime": "" (it leaves the
	// mime out when there is no Content-Type).
	emptyMIME bool
}

// Revisit names r as the original of a later revisit. Call it on a
// response: a revisit should refer to the record that holds the payload,
// not to another revisit.
func (r Record) Revisit() Revisit {
	return Revisit{RecordID: r.RecordID, TargetURI: r.TargetURI, Date: r.Date, PayloadDigest: r.PayloadDigest}
}

// Writer appends WARC/1.1 records to a .warc.gz stream, each record its
// own gzip member so that a reader can start at any record's offset. It
// is safe for concurrent use; records are compressed outside its lock.
//
// After a failed write to the underlying writer every call returns that
// error: the stream may end in part of a record, and the file should be
// closed and a new one started.
type Writer struct {
	mu   sync.Mutex
	w    io.Writer
	size int64
	err  error
}

// NewWriter writes a warcinfo record to w and returns a Writer for the
// records after it. filename is the WARC-Filename (the name the file will
// be served and indexed under); info holds the warcinfo fields (software,
// hostname, operator, …), written in name order. format and conformsTo
// default to WARC 1.1's.
func NewWriter(w io.Writer, filename string, info map[string]string) (*Writer, error) {
	if filename == "" || strings.ContainsAny(filename, "\r\n") {
		return nil, fmt.Errorf("warc writer: bad filename %q", filename)
	}
	fields := map[string]string{
		"format":     "WARC File Format 1.1",
		"conformsTo": "http://iipc.github.io/warc-specifications/specifications/warc-format/warc-1.1/",
	}
	for k, v := range info {
		if k == "" || strings.ContainsAny(k, ":\r\n \t") || strings.ContainsAny(v, "\r\n") {
			return nil, fmt.Errorf("warc writer: bad warcinfo field %q", k)
		}
		fields[k] = v
	}
	var block bytes.Buffer
	for _, k := range slices.Sorted(maps.Keys(fields)) {
		fmt.Fprintf(&block, "%s: %s\r\n", k, fields[k])
	}

	// The file's other records do not name it (WARC-Warcinfo-ID), as
	// Heritrix writes them: it is the file's first record, and the name
	// would cost each page about 60 bytes of its archive.
	ww := &Writer{w: w}
	var member bytes.Buffer
	err := buildMember(&member, "warcinfo", []field{
		{"WARC-Record-ID", newRecordID()},
		{"WARC-Date", formatDate(time.Now())},
		{"WARC-Filename", filename},
		{"Content-Type", "application/warc-fields"},
	}, block.Bytes())
	if err != nil {
		return nil, fmt.Errorf("warc writer: warcinfo: %w", err)
	}
	if _, err := ww.append(member.Bytes()); err != nil {
		return nil, fmt.Errorf("warc writer: warcinfo: %w", err)
	}
	return ww, nil
}

// Write appends c's request record (when c.Request is set) and its
// response record, which names the request with WARC-Concurrent-To.
// Every record's WARC-Target-URI (and a revisit's
// WARC-Refers-To-Target-URI) is TargetURI of the URL given, so that it
// is a URI whatever the page's URL held, and the Record carries it.
// With revisitOf set it writes a revisit record instead of the response,
// with the identical-payload-digest profile: the revisit holds the
// response's status line and header fields only, and c's body must have
// revisitOf's payload digest (else ErrDigestMismatch).
func (w *Writer) Write(c Capture, revisitOf *Revisit) (Record, error) {
	recs, err := w.WriteChain([]Capture{c}, revisitOf)
	if err != nil {
		return Record{}, err
	}
	return recs[0], nil
}

// WriteChain appends the exchanges of one fetch, as Write does each:
// every redirect hop then the final response, which alone may be a
// revisit. The records go out in one write, in order, so that a file
// holds all of a fetch or none of it; the Records are the response (or
// revisit) records, one per capture.
func (w *Writer) WriteChain(chain []Capture, revisitOf *Revisit) ([]Record, error) {
	b, err := BuildChain(chain, revisitOf)
	if err != nil {
		return nil, err
	}
	return w.Append(b)
}

// Built is a fetch's records made and compressed, not yet in a file:
// BuildChain makes it, Writer.Append writes it.
type Built struct {
	buf    *bytes.Buffer
	recs   []Record
	target string
}

// BuildChain makes the records WriteChain writes, without a Writer, so
// that the compressing (most of a record's cost) can be done outside any
// lock that orders the file's writes. An error means that the chain
// cannot be made records.
func BuildChain(chain []Capture, revisitOf *Revisit) (*Built, error) {
	if len(chain) == 0 {
		return nil, errors.New("warc write: no capture")
	}
	buf := bufPool.Get().(*bytes.Buffer)
	buf.Reset()
	recs := make([]Record, len(chain))
	for i := range chain {
		var orig *Revisit
		if i == len(chain)-1 {
			orig = revisitOf
		}
		rec, err := build(buf, chain[i], orig)
		if err != nil {
			putBuf(buf)
			return nil, fmt.Errorf("warc write %s: %w", truncate(chain[i].TargetURI), err)
		}
		recs[i] = rec
	}
	return &Built{buf: buf, recs: recs, target: chain[0].TargetURI}, nil
}

// Append writes b, built by BuildChain, at the end of the stream in one
// write, and returns its Records with their offsets in the file. b is
// spent, whether the write succeeded or not.
func (w *Writer) Append(b *Built) ([]Record, error) {
	if b.buf == nil {
		return nil, errors.New("warc write: records appended twice")
	}
	defer func() {
		putBuf(b.buf)
		b.buf = nil
	}()
	w.mu.Lock()
	defer w.mu.Unlock()
	off, err := w.appendLocked(b.buf.Bytes())
	if err != nil {
		return nil, fmt.Errorf("warc write %s: %w", truncate(b.target), err)
	}
	recs := b.recs
	for i := range recs {
		recs[i].Offset += off
	}
	return recs, nil
}

var bufPool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// putBuf pools buf unless a huge page grew it: a pool of such buffers
// would hold their memory between rare large pages.
func putBuf(buf *bytes.Buffer) {
	if buf.Cap() <= 4<<20 {
		bufPool.Put(buf)
	}
}

// Err is the error that broke the stream, nil while it is sound. A
// Write that failed with Err nil wrote nothing: its capture could not
// be made a record.
func (w *Writer) Err() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}

// Size is the number of bytes written so far, the warcinfo record
// included: the offset the next record will have.
func (w *Writer) Size() int64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.size
}

// build appends the gzip members for c to buf, the response (or revisit)
// last; the Record's Offset is that member's offset in buf. On error buf
// may hold part of them.
func build(buf *bytes.Buffer, c Capture, revisitOf *Revisit) (Record, error) {
	target := TargetURI(c.TargetURI)
	if err := checkFieldValue("target URI", target); err != nil || target == "" {
		return Record{}, fmt.Errorf("bad target URI %q", truncate(c.TargetURI))
	}
	if c.Date.IsZero() {
		return Record{}, errors.New("capture has no date")
	}
	if c.IP != "" && net.ParseIP(c.IP) == nil {
		return Record{}, fmt.Errorf("bad IP address %q", truncate(c.IP))
	}
	digest, err := c.PayloadDigest()
	if err != nil {
		return Record{}, err
	}
	resp := c.resp
	mime, hasMIME := resp.cdxMIME()
	rec := Record{
		Type:          "response",
		RecordID:      newRecordID(),
		TargetURI:     target,
		Date:          c.Date,
		PayloadDigest: digest,
		Status:        resp.Status,
		MIME:          mime,
		emptyMIME:     hasMIME && mime == "",
	}
	date := formatDate(c.Date)

	var reqID string
	if len(c.Request) > 0 {
		end := bytes.Index(c.Request, []byte("\r\n\r\n"))
		if end < 0 {
			return Record{}, errors.New("http request: no blank line ends the header block")
		}
		reqID = newRecordID()
		fields := []field{
			{"WARC-Record-ID", reqID},
			{"WARC-Date", date},
			{"WARC-Target-URI", target},
		}
		if c.IP != "" {
			fields = append(fields, field{"WARC-IP-Address", c.IP})
		}
		// The response names the request (WARC-Concurrent-To), as wget
		// writes it: one link is enough for every reader, and the
		// request's own would cost a tenth of its record. The payload
		// digest (of nothing, for a GET) is one warcio checks for.
		fields = append(fields,
			field{"Content-Type", "application/http; msgtype=request"},
			field{"WARC-Payload-Digest", digestOf(c.Request[end+4:])},
		)
		err := buildMemberLevel(buf, "request", fields, c.Request, levelFor(len(c.Request)))
		if err != nil {
			return Record{}, fmt.Errorf("request record: %w", err)
		}
	}

	block := c.Response
	fields := []field{
		{"WARC-Record-ID", rec.RecordID},
		{"WARC-Date", date},
		{"WARC-Target-URI", target},
	}
	if c.IP != "" {
		fields = append(fields, field{"WARC-IP-Address", c.IP})
	}
	if reqID != "" {
		fields = append(fields, field{"WARC-Concurrent-To", reqID})
	}
	if revisitOf != nil {
		orig := *revisitOf
		orig.TargetURI = TargetURI(orig.TargetURI)
		if err := checkRevisit(orig); err != nil {
			return Record{}, err
		}
		if orig.PayloadDigest != rec.PayloadDigest {
			return Record{}, fmt.Errorf("revisit of %s: %w: it has %s, the capture %s",
				orig.RecordID, ErrDigestMismatch, orig.PayloadDigest, rec.PayloadDigest)
		}
		block, rec.Type = c.Response[:resp.HeaderLen], "revisit"
		fields = append(fields,
			field{"WARC-Profile", profileIdenticalPayloadDigest},
			field{"WARC-Refers-To", orig.RecordID},
			field{"WARC-Refers-To-Target-URI", orig.TargetURI},
			field{"WARC-Refers-To-Date", formatDate(orig.Date)},
		)
	}
	fields = append(fields,
		field{"Content-Type", "application/http; msgtype=response"},
		field{"WARC-Payload-Digest", rec.PayloadDigest},
	)
	rec.Offset = int64(buf.Len())
	level := levelFor(len(block))
	if enc := strings.TrimSpace(resp.Header.Get("Content-Encoding")); enc != "" && !strings.EqualFold(enc, "identity") && revisitOf == nil {
		// Compressed already: a second pass at length would find next
		// to nothing to gain.
		level = gzip.BestSpeed
	}
	if err := buildMemberLevel(buf, rec.Type, fields, block, level); err != nil {
		return Record{}, fmt.Errorf("%s record: %w", rec.Type, err)
	}
	rec.Length = int64(buf.Len()) - rec.Offset
	return rec, nil
}

func checkRevisit(r Revisit) error {
	switch {
	case !strings.HasPrefix(r.RecordID, "<") || !strings.HasSuffix(r.RecordID, ">") || checkFieldValue("", r.RecordID) != nil:
		return fmt.Errorf("revisit: bad record id %q", truncate(r.RecordID))
	case r.TargetURI == "" || checkFieldValue("", r.TargetURI) != nil:
		return fmt.Errorf("revisit: bad target URI %q", truncate(r.TargetURI))
	case r.Date.IsZero():
		return errors.New("revisit: no date")
	case !strings.HasPrefix(r.PayloadDigest, "sha1:"):
		return fmt.Errorf("revisit: payload digest %q is not sha1", truncate(r.PayloadDigest))
	}
	return nil
}

// checkFieldValue rejects what would break a WARC header line or is not
// a URI character: controls, spaces, DEL.
func checkFieldValue(what, v string) error {
	for i := 0; i < len(v); i++ {
		if v[i] <= ' ' || v[i] == 0x7f {
			return fmt.Errorf("%s: control or space character at byte %d", what, i)
		}
	}
	return nil
}

func (w *Writer) append(member []byte) (int64, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.appendLocked(member)
}

func (w *Writer) appendLocked(member []byte) (int64, error) {
	if w.err != nil {
		return 0, w.err
	}
	off := w.size
	n, err := w.w.Write(member)
	w.size += int64(n)
	if err == nil && n != len(member) {
		err = io.ErrShortWrite
	}
	if err != nil {
		w.err = fmt.Errorf("warc file broken at offset %d: %w", off, err)
		return 0, w.err
	}
	return off, nil
}

type field struct{ name, value string }

const profileIdenticalPayloadDigest = "http://netpreserve.org/warc/1.1/revisit/identical-payload-digest"

// gzipLevel is the records' compression, chosen on real pages of 20–120
// KB against wget's files (docs/decisions.md, "What a record holds").
// A block under smallBlock (a request, a redirect, an error page) is
// written at smallLevel: level 9 gains it under 1.2 % (a few bytes) and
// costs three times the CPU, most of it a fixed cost per gzip member
// (clearing its 640 KB of match tables, building its Huffman codes). A
// block over bigBlock is written at bigLevel: level 9's cost grows
// faster than its gain on long (and most of all on repetitive) bodies.
const (
	gzipLevel  = gzip.BestCompression
	smallBlock = 4 << 10
	smallLevel = 6
	bigBlock   = 128 << 10
	bigLevel   = gzip.DefaultCompression
)

// levelFor is the gzip level of a record whose block is n bytes long.
func levelFor(n int) int {
	switch {
	case n < smallBlock:
		return smallLevel
	case n > bigBlock:
		return bigLevel
	}
	return gzipLevel
}

// gzipPools hold the writers of each level used: smallLevel, gzipLevel,
// bigLevel, and BestSpeed for a body compressed already.
var gzipPools = map[int]*sync.Pool{
	smallLevel:     {New: func() any { zw, _ := gzip.NewWriterLevel(nil, smallLevel); return zw }},
	gzipLevel:      {New: func() any { zw, _ := gzip.NewWriterLevel(nil, gzipLevel); return zw }},
	bigLevel:       {New: func() any { zw, _ := gzip.NewWriterLevel(nil, bigLevel); return zw }},
	gzip.BestSpeed: {New: func() any { zw, _ := gzip.NewWriterLevel(nil, gzip.BestSpeed); return zw }},
}

// buildMember appends one WARC/1.1 record to buf as one gzip member: the
// version line, WARC-Type, the given fields in order, Content-Length and
// WARC-Block-Digest, a blank line, the block, and the two CRLFs that end
// a record. The callers check the field values.
func buildMember(buf *bytes.Buffer, typ string, fields []field, block []byte) error {
	return buildMemberLevel(buf, typ, fields, block, gzipLevel)
}

// buildMemberLevel is buildMember at a gzip level of gzipPools.
func buildMemberLevel(buf *bytes.Buffer, typ string, fields []field, block []byte, level int) error {
	head := make([]byte, 0, 512)
	head = append(head, "WARC/1.1\r\nWARC-Type: "...)
	head = append(head, typ...)
	head = append(head, "\r\n"...)
	for _, f := range fields {
		head = append(append(append(append(head, f.name...), ": "...), f.value...), "\r\n"...)
	}
	head = append(head, "Content-Length: "...)
	head = strconv.AppendInt(head, int64(len(block)), 10)
	head = append(head, "\r\nWARC-Block-Digest: "...)
	head = append(head, digestOf(block)...)
	head = append(head, "\r\n\r\n"...)

	buf.Grow(len(block)/3 + len(head) + 64)
	pool := gzipPools[level]
	zw := pool.Get().(*gzip.Writer)
	defer pool.Put(zw)
	zw.Reset(buf)
	for _, p := range [][]byte{head, block, []byte("\r\n\r\n")} {
		if _, err := zw.Write(p); err != nil {
			return err
		}
	}
	return zw.Close()
}

// newRecordID is a WARC-Record-ID: a random (version 4) UUID as a URN.
// It is made here, not with github.com/google/uuid, so that this package
// never touches that package's global state.
func newRecordID() string {
	var u [16]byte
	_, _ = rand.Read(u[:]) // crypto/rand.Read never fails
	u[6] = u[6]&0x0f | 0x40
	u[8] = u[8]&0x3f | 0x80
	var b [36]byte
	hex.Encode(b[0:8], u[0:4])
	hex.Encode(b[9:13], u[4:6])
	hex.Encode(b[14:18], u[6:8])
	hex.Encode(b[19:23], u[8:10])
	hex.Encode(b[24:], u[10:16])
	b[8], b[13], b[18], b[23] = '-', '-', '-', '-'
	return "<urn:uuid:" + string(b[:]) + ">"
}

// formatDate is a WARC/1.1 date: UTC, to the microsecond as warcio
// writes it, trailing zeros dropped.
func formatDate(t time.Time) string { return t.UTC().Format(warcDate) }

const warcDate = "2006-01-02T15:04:05.999999Z07:00"
