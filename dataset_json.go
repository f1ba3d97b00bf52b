package seedengine

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// The JSON codec of EnhancedResearchDataset (DESIGN §5). Known fields are
// written first in a fixed order and unknown ones after them sorted by name,
// so the same value always encodes to the same bytes; unknown fields read
// are kept in Extra, so a file passes through the engine without losing
// what another producer added. Nested objects without an Extra map (engine)
// keep only their known fields.

var (
	datasetKnown = keySet("meta", "records")
	metaKnown    = keySet("dataset_id", "country", "category", "date", "discovered_at",
		"research_methods", "queries", "engine", "record_count")
	recordKnown = keySet("raw_url", "normalized_url", "normalized_domain", "domain_id", "authority",
		"authority_rule", "source_type", "discovery_method", "confidence", "content_hints")
)

func keySet(keys ...string) map[string]bool {
	m := make(map[string]bool, len(keys))
	for _, k := range keys {
		m[k] = true
	}
	return m
}

// metaWire fixes the order and the omission rules of meta's known fields:
// arrays are always written (as [] when empty), a zero time and an empty
// engine are left out rather than invented.
type metaWire struct {
	DatasetID       string     `json:"dataset_id"`
	Country         string     `json:"country"`
	Category        string     `json:"category"`
	Date            string     `json:"date"`
	DiscoveredAt    wireTime   `json:"discovered_at,omitzero"`
	ResearchMethods []string   `json:"research_methods"`
	Queries         []string   `json:"queries"`
	Engine          EngineInfo `json:"engine,omitzero"`
	RecordCount     int        `json:"record_count"`
}

type recordWire struct {
	RawURL           string    `json:"raw_url"`
	NormalizedURL    string    `json:"normalized_url"`
	NormalizedDomain string    `json:"normalized_domain"`
	DomainID         string    `json:"domain_id"`
	Authority        Authority `json:"authority"`
	AuthorityRule    string    `json:"authority_rule"`
	SourceType       string    `json:"source_type"`
	DiscoveryMethod  string    `json:"discovery_method,omitempty"`
	Confidence       float64   `json:"confidence"`
	ContentHints     []string  `json:"content_hints,omitempty"`
}

type datasetWire struct {
	Meta    DatasetMeta     `json:"meta"`
	Records []DatasetRecord `json:"records"`
}

// wireTime reports a malformed discovered_at as a field error instead of
// time's parser message.
type wireTime struct{ time.Time }

func (t *wireTime) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return FieldErrorf("discovered_at", "discovered_at must be an RFC 3339 time string")
	}
	v, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return FieldErrorf("discovered_at", "discovered_at must be an RFC 3339 time")
	}
	t.Time = v
	return nil
}

// MarshalJSON implements json.Marshaler.
func (m DatasetMeta) MarshalJSON() ([]byte, error) {
	var buf bytes.Buffer
	if err := m.appendJSON(&buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func (m *DatasetMeta) appendJSON(buf *bytes.Buffer) error {
	w := metaWire{
		DatasetID:       m.DatasetID,
		Country:         m.Country,
		Category:        m.Category,
		Date:            m.Date,
		DiscoveredAt:    wireTime{m.DiscoveredAt},
		ResearchMethods: m.ResearchMethods,
		Queries:         m.Queries,
		Engine:          m.Engine,
		RecordCount:     m.RecordCount,
	}
	if w.ResearchMethods == nil {
		w.ResearchMethods = []string{}
	}
	if w.Queries == nil {
		w.Queries = []string{}
	}
	return appendObject(buf, &w, m.Extra, metaKnown)
}

// UnmarshalJSON implements json.Unmarshaler. It replaces every field of m.
func (m *DatasetMeta) UnmarshalJSON(b []byte) error {
	if isNull(b) {
		return nil
	}
	var w metaWire
	extra, err := decodeObject(b, &w, metaKnown)
	if err != nil {
		return err
	}
	*m = DatasetMeta{
		DatasetID:       w.DatasetID,
		Country:         w.Country,
		Category:        w.Category,
		Date:            w.Date,
		DiscoveredAt:    w.DiscoveredAt.Time,
		ResearchMethods: w.ResearchMethods,
		Queries:         w.Queries,
		Engine:          w.Engine,
		RecordCount:     w.RecordCount,
		Extra:           extra,
	}
	return nil
}

// MarshalJSON implements json.Marshaler.
func (r DatasetRecord) MarshalJSON() ([]byte, error) {
	var buf bytes.Buffer
	if err := r.appendJSON(&buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func (r *DatasetRecord) appendJSON(buf *bytes.Buffer) error {
	w := recordWire{
		RawURL:           r.RawURL,
		NormalizedURL:    r.NormalizedURL,
		NormalizedDomain: r.NormalizedDomain,
		DomainID:         r.DomainID,
		Authority:        r.Authority,
		AuthorityRule:    r.AuthorityRule,
		SourceType:       r.SourceType,
		DiscoveryMethod:  r.DiscoveryMethod,
		Confidence:       r.Confidence,
		ContentHints:     r.ContentHints,
	}
	return appendObject(buf, &w, r.Extra, recordKnown)
}

// UnmarshalJSON implements json.Unmarshaler. It replaces every field of r,
// so a record decoded into a reused value keeps nothing of the last one.
func (r *DatasetRecord) UnmarshalJSON(b []byte) error {
	if isNull(b) {
		return nil
	}
	if rec, ok := decodeRecordFast(b); ok {
		*r = rec
		return nil
	}
	var w recordWire
	extra, err := decodeObject(b, &w, recordKnown)
	if err != nil {
		return err
	}
	*r = DatasetRecord{
		RawURL:           w.RawURL,
		NormalizedURL:    w.NormalizedURL,
		NormalizedDomain: w.NormalizedDomain,
		DomainID:         w.DomainID,
		Authority:        w.Authority,
		AuthorityRule:    w.AuthorityRule,
		SourceType:       w.SourceType,
		DiscoveryMethod:  w.DiscoveryMethod,
		Confidence:       w.Confidence,
		ContentHints:     w.ContentHints,
		Extra:            extra,
	}
	return nil
}

// MarshalJSON implements json.Marshaler. Large datasets are better written
// with WriteTo, which does not build the whole document in memory.
func (d Dataset) MarshalJSON() ([]byte, error) {
	var buf bytes.Buffer
	if _, err := d.WriteTo(&buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// WriteTo writes d as JSON, record by record, so a writer that streams (an
// object store upload) never needs the whole document in memory. The bytes
// are those of MarshalJSON, without HTML escaping (URLs keep their "&").
func (d *Dataset) WriteTo(w io.Writer) (int64, error) {
	cw := &countWriter{w: w}
	bw := bufio.NewWriterSize(cw, 64<<10)
	var buf bytes.Buffer
	write := func() {
		_, _ = bw.Write(buf.Bytes())
		buf.Reset()
	}
	buf.WriteString(`{"meta":`)
	if err := d.Meta.appendJSON(&buf); err != nil {
		return 0, fmt.Errorf("encode meta: %w", err)
	}
	buf.WriteString(`,"records":[`)
	for i := range d.Records {
		if i > 0 {
			buf.WriteByte(',')
		}
		if err := d.Records[i].appendJSON(&buf); err != nil {
			return cw.n, fmt.Errorf("encode records[%d]: %w", i, err)
		}
		write()
	}
	buf.WriteByte(']')
	if err := appendExtra(&buf, d.Extra, datasetKnown); err != nil {
		return cw.n, err
	}
	buf.WriteByte('}')
	write()
	err := bw.Flush()
	return cw.n, err
}

// UnmarshalJSON implements json.Unmarshaler. It replaces every field of d.
// Datasets too large to hold in memory are read with NewDatasetReader.
func (d *Dataset) UnmarshalJSON(b []byte) error {
	if isNull(b) {
		return nil
	}
	var w datasetWire
	extra, err := decodeObject(b, &w, datasetKnown)
	if err != nil {
		return err
	}
	*d = Dataset{Meta: w.Meta, Records: w.Records, Extra: extra}
	return nil
}

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// appendObject encodes wire (a struct of known fields) and then the members
// of extra whose names are not known, sorted, inside the same object.
func appendObject(buf *bytes.Buffer, wire any, extra map[string]json.RawMessage, known map[string]bool) error {
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(wire); err != nil {
		return err
	}
	buf.Truncate(buf.Len() - 2) // "}\n"
	if err := appendExtra(buf, extra, known); err != nil {
		return err
	}
	buf.WriteByte('}')
	return nil
}

// appendExtra writes ,"name":value for each unknown member, sorted by name.
// A name that is also a known field is skipped: the field wins, so the
// object never holds the same name twice.
func appendExtra(buf *bytes.Buffer, extra map[string]json.RawMessage, known map[string]bool) error {
	if len(extra) == 0 {
		return nil
	}
	keys := make([]string, 0, len(extra))
	for k := range extra {
		if !known[k] {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	for _, k := range keys {
		buf.WriteByte(',')
		if err := enc.Encode(k); err != nil {
			return err
		}
		buf.Truncate(buf.Len() - 1)
		buf.WriteByte(':')
		if err := json.Compact(buf, extra[k]); err != nil {
			return fmt.Errorf("extra field %q: %w", Truncate(k, 64), err)
		}
	}
	return nil
}

// decodeObject decodes the JSON object b into wire and returns its members
// whose names are not exactly in known. The common case, an object of
// known names only, costs one json.Unmarshal; otherwise the members are
// split first, which also stops encoding/json's case-insensitive matching
// from filling a known field from "Raw_URL".
func decodeObject(b []byte, wire any, known map[string]bool) (map[string]json.RawMessage, error) {
	if i := skipSpace(b, 0); i >= len(b) || b[i] != '{' {
		// Not an object: let encoding/json report the type mismatch.
		return nil, json.Unmarshal(b, wire)
	}
	if onlyKnownKeys(b, known) {
		return nil, json.Unmarshal(b, wire)
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(b, &members); err != nil {
		return nil, err
	}
	var extra map[string]json.RawMessage
	kept := make(map[string]json.RawMessage, len(known))
	for k, v := range members {
		if known[k] {
			kept[k] = v
			continue
		}
		if extra == nil {
			extra = make(map[string]json.RawMessage)
		}
		extra[k] = v
	}
	kb, err := json.Marshal(kept)
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(kb, wire); err != nil {
		return nil, err
	}
	return extra, nil
}

// decodeRecordFast decodes the common shape of a record without
// reflection, because records are most of every file and encoding/json
// alone reads them at a third of the speed: an object whose member names
// carry no escapes, whose known fields hold plain strings (no escapes,
// valid UTF-8), a number (confidence) or an array of plain strings
// (content_hints), and whose other members are any valid JSON, kept as
// they are. For anything else it reports false and the general decoder
// takes over; for what it accepts it gives what the general decoder would
// (FuzzDecodeRecordFast checks this).
func decodeRecordFast(b []byte) (DatasetRecord, bool) {
	var r DatasetRecord
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return r, false
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return r, skipSpace(b, i+1) == len(b)
	}
	for {
		key, next, ok := plainString(b, i)
		if !ok {
			return r, false
		}
		i = skipSpace(b, next)
		if i >= len(b) || b[i] != ':' {
			return r, false
		}
		i = skipSpace(b, i+1)
		var s string
		switch string(key) {
		case "raw_url":
			r.RawURL, i, ok = stringValue(b, i)
		case "normalized_url":
			r.NormalizedURL, i, ok = stringValue(b, i)
		case "normalized_domain":
			r.NormalizedDomain, i, ok = stringValue(b, i)
		case "domain_id":
			r.DomainID, i, ok = stringValue(b, i)
		case "authority":
			s, i, ok = stringValue(b, i)
			r.Authority = Authority(s)
		case "authority_rule":
			r.AuthorityRule, i, ok = stringValue(b, i)
		case "source_type":
			r.SourceType, i, ok = stringValue(b, i)
		case "discovery_method":
			r.DiscoveryMethod, i, ok = stringValue(b, i)
		case "confidence":
			r.Confidence, i, ok = numberValue(b, i)
		case "content_hints":
			r.ContentHints, i, ok = stringsValue(b, i)
		default:
			end := skipValue(b, i)
			if end < 0 || !json.Valid(b[i:end]) {
				return r, false
			}
			if r.Extra == nil {
				r.Extra = make(map[string]json.RawMessage)
			}
			r.Extra[string(key)] = append(json.RawMessage(nil), b[i:end]...)
			i = end
		}
		if !ok {
			return r, false
		}
		i = skipSpace(b, i)
		if i >= len(b) {
			return r, false
		}
		switch b[i] {
		case '}':
			return r, skipSpace(b, i+1) == len(b)
		case ',':
			i = skipSpace(b, i+1)
		default:
			return r, false
		}
	}
}

// plainString returns the contents of the string at b[i] and the index
// after it, when it needs no decoding: no escapes, no control characters,
// valid UTF-8.
func plainString(b []byte, i int) ([]byte, int, bool) {
	if i >= len(b) || b[i] != '"' {
		return nil, 0, false
	}
	ascii := true
	for j := i + 1; j < len(b); j++ {
		switch c := b[j]; {
		case c == '"':
			s := b[i+1 : j]
			if !ascii && !utf8.Valid(s) {
				return nil, 0, false
			}
			return s, j + 1, true
		case c == '\\' || c < 0x20:
			return nil, 0, false
		case c >= 0x80:
			ascii = false
		}
	}
	return nil, 0, false
}

func stringValue(b []byte, i int) (string, int, bool) {
	s, next, ok := plainString(b, i)
	if !ok {
		return "", 0, false
	}
	return string(s), next, true
}

// numberValue parses a JSON number (RFC 8259 grammar) at b[i].
func numberValue(b []byte, i int) (float64, int, bool) {
	j := i
	if j < len(b) && b[j] == '-' {
		j++
	}
	digits := func() bool {
		start := j
		for j < len(b) && b[j] >= '0' && b[j] <= '9' {
			j++
		}
		return j > start
	}
	switch {
	case j < len(b) && b[j] == '0':
		j++
	case !digits():
		return 0, 0, false
	}
	if j < len(b) && b[j] == '.' {
		j++
		if !digits() {
			return 0, 0, false
		}
	}
	if j < len(b) && (b[j] == 'e' || b[j] == 'E') {
		j++
		if j < len(b) && (b[j] == '+' || b[j] == '-') {
			j++
		}
		if !digits() {
			return 0, 0, false
		}
	}
	f, err := strconv.ParseFloat(string(b[i:j]), 64)
	if err != nil {
		return 0, 0, false
	}
	return f, j, true
}

// stringsValue parses an array of plain strings at b[i]; [] gives an
// empty, non-nil slice, as encoding/json does.
func stringsValue(b []byte, i int) ([]string, int, bool) {
	if i >= len(b) || b[i] != '[' {
		return nil, 0, false
	}
	out := []string{}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == ']' {
		return out, i + 1, true
	}
	for {
		s, next, ok := stringValue(b, i)
		if !ok {
			return nil, 0, false
		}
		out = append(out, s)
		i = skipSpace(b, next)
		if i >= len(b) {
			return nil, 0, false
		}
		switch b[i] {
		case ']':
			return out, i + 1, true
		case ',':
			i = skipSpace(b, i+1)
		default:
			return nil, 0, false
		}
	}
}

func isNull(b []byte) bool {
	return string(bytes.TrimSpace(b)) == "null"
}

// onlyKnownKeys reports whether b is an object whose member names are all
// in known and free of escapes. It only needs to be right for valid JSON
// (json.Unmarshal validates afterwards); for anything else it must merely
// not panic, and answers false.
func onlyKnownKeys(b []byte, known map[string]bool) bool {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return false
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return true
	}
	for {
		i = skipSpace(b, i)
		if i >= len(b) || b[i] != '"' {
			return false
		}
		end := skipString(b, i)
		if end < 0 {
			return false
		}
		key := b[i+1 : end-1]
		if bytes.IndexByte(key, '\\') >= 0 || !known[string(key)] {
			return false
		}
		i = skipSpace(b, end)
		if i >= len(b) || b[i] != ':' {
			return false
		}
		i = skipValue(b, skipSpace(b, i+1))
		if i < 0 {
			return false
		}
		i = skipSpace(b, i)
		if i >= len(b) {
			return false
		}
		switch b[i] {
		case '}':
			return true
		case ',':
			i++
		default:
			return false
		}
	}
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the index after the string starting at b[i] == '"',
// or -1 when it does not end.
func skipString(b []byte, i int) int {
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return -1
}

// skipValue returns the index after the value starting at b[i], or -1.
func skipValue(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				if i = skipString(b, i); i < 0 {
					return -1
				}
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return -1
	}
	for i < len(b) {
		switch b[i] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			return i
		}
		i++
	}
	return i
}

// DatasetReader reads an EnhancedResearchDataset one record at a time, so
// a file of any size is read in constant memory: only the current record,
// meta and the unknown top-level members are held. "meta" may come before
// or after "records".
//
//	dr := seedengine.NewDatasetReader(r)
//	for dr.Next() {
//		rec := dr.Record()
//		…
//	}
//	if err := dr.Err(); err != nil { … }
//	meta, ok := dr.Meta()
//
// Malformed input is an EINVALID error naming where it is (meta,
// records[12], records[12].confidence); an error of the underlying reader
// is returned wrapped, not as EINVALID.
type DatasetReader struct {
	dec        *json.Decoder
	src        *capReader
	state      readerState
	meta       DatasetMeta
	hasMeta    bool
	sawRecords bool
	rec        DatasetRecord
	index      int // records decoded so far
	err        error
}

type readerState int

const (
	stateStart   readerState = iota // before the opening brace
	stateObject                     // between members of the top-level object
	stateRecords                    // inside the records array
	stateDone                       // after the closing brace, or failed
)

// MaxDatasetValue is the most bytes one record, the meta object or one
// unknown top-level member of a dataset may take. json.Decoder holds a
// whole value in memory while decoding it, so without this bound one huge
// member of an otherwise small upload would be held whole.
const MaxDatasetValue = 1 << 20

// errValueTooLarge is returned by capReader once a value has used up its
// allowance.
var errValueTooLarge = errors.New("value larger than the allowed size")

// capReader limits how many bytes the decoder may read for one value:
// allow resets the allowance before each Token, More or Decode. The bytes
// the decoder already buffered do not count, so a value is refused only
// when it is still incomplete after MaxDatasetValue more bytes, and the
// decoder's buffer never grows much beyond that.
type capReader struct {
	r    io.Reader
	left int
}

func (c *capReader) allow(n int) { c.left = n }

func (c *capReader) Read(p []byte) (int, error) {
	if c.left <= 0 {
		return 0, errValueTooLarge
	}
	if len(p) > c.left {
		p = p[:c.left]
	}
	n, err := c.r.Read(p)
	c.left -= n
	return n, err
}

// NewDatasetReader returns a reader of the dataset in r. It buffers reads;
// it does not close r. A record, meta or unknown top-level member larger
// than MaxDatasetValue is an EINVALID error naming it.
func NewDatasetReader(r io.Reader) *DatasetReader {
	src := &capReader{r: r}
	return &DatasetReader{dec: json.NewDecoder(src), src: src}
}

// token, more and decode bound the bytes each step of the decoder may read.
func (r *DatasetReader) token() (json.Token, error) {
	r.src.allow(MaxDatasetValue)
	return r.dec.Token()
}

func (r *DatasetReader) more() bool {
	r.src.allow(MaxDatasetValue)
	return r.dec.More()
}

func (r *DatasetReader) decode(v any) error {
	r.src.allow(MaxDatasetValue)
	return r.dec.Decode(v)
}

// Meta returns the dataset's meta and whether it has been read. When meta
// comes before the records, Meta reads up to it, so a caller that needs
// only meta (record_count for an index) stops there. When the records come
// first, meta is known only once Next has returned false.
func (r *DatasetReader) Meta() (DatasetMeta, bool) {
	for !r.hasMeta && r.err == nil && (r.state == stateStart || r.state == stateObject) {
		r.member()
	}
	return r.meta, r.hasMeta
}

// Next decodes the next record, returning false at the end of the records
// or on error; Err tells which. After the last record Next reads the rest
// of the dataset, so Meta is then complete and trailing garbage is
// reported.
func (r *DatasetReader) Next() bool {
	for r.err == nil {
		switch r.state {
		case stateStart, stateObject:
			r.member()
		case stateRecords:
			if r.more() {
				r.rec = DatasetRecord{}
				if err := r.decode(&r.rec); err != nil {
					r.fail(err, "records["+strconv.Itoa(r.index)+"]")
					return false
				}
				r.index++
				return true
			}
			if _, err := r.token(); err != nil { // ']'
				r.fail(err, "records")
				return false
			}
			r.state = stateObject
		case stateDone:
			return false
		}
	}
	return false
}

// Record returns the record decoded by the last call to Next.
func (r *DatasetReader) Record() DatasetRecord { return r.rec }

// Err returns the first error met, or nil at a clean end.
func (r *DatasetReader) Err() error { return r.err }

// member reads the opening brace, one member of the top-level object, or
// the closing brace and the end of input.
func (r *DatasetReader) member() {
	if r.state == stateStart {
		tok, err := r.token()
		if err != nil {
			r.fail(err, "")
			return
		}
		if d, ok := tok.(json.Delim); !ok || d != '{' {
			r.err = Errorf(EINVALID, "a dataset must be a JSON object with meta and records")
			return
		}
		r.state = stateObject
		return
	}
	if !r.more() {
		if _, err := r.token(); err != nil { // '}'
			r.fail(err, "")
			return
		}
		if _, err := r.token(); err != io.EOF {
			if err == nil || isDataError(err) {
				r.err = Errorf(EINVALID, "unexpected data after the dataset object")
			} else {
				r.fail(err, "")
			}
			return
		}
		r.state = stateDone
		return
	}
	tok, err := r.token()
	if err != nil {
		r.fail(err, "")
		return
	}
	key, _ := tok.(string)
	switch key {
	case "meta":
		if r.hasMeta {
			r.err = FieldErrorf("meta", "meta appears twice")
			return
		}
		if err := r.decode(&r.meta); err != nil {
			r.fail(err, "meta")
			return
		}
		r.hasMeta = true
	case "records":
		if r.sawRecords {
			r.err = FieldErrorf("records", "records appears twice")
			return
		}
		r.sawRecords = true
		tok, err := r.token()
		if err != nil {
			r.fail(err, "records")
			return
		}
		if d, ok := tok.(json.Delim); ok && d == '[' {
			r.state = stateRecords
		} else if tok != nil {
			r.err = FieldErrorf("records", "records must be an array")
		}
	default:
		// Unknown top-level members are skipped: the bytes are stored
		// as sent, so nothing is lost by not keeping them here. They are
		// still bounded by MaxDatasetValue, as the decoder holds them
		// whole while skipping.
		var skip json.RawMessage
		if err := r.decode(&skip); err != nil {
			r.fail(err, Truncate(key, 64))
		}
	}
}

// fail records err, turning malformed JSON into an EINVALID error located
// at field.
func (r *DatasetReader) fail(err error, field string) {
	r.state = stateDone
	r.err = dataError(err, field)
}

func isDataError(err error) bool {
	if errors.Is(err, errValueTooLarge) {
		return true
	}
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	var e *Error
	return errors.As(err, &se) || errors.As(err, &te) || errors.As(err, &e) ||
		errors.Is(err, io.ErrUnexpectedEOF) || err == io.EOF
}

func dataError(err error, field string) error {
	if errors.Is(err, errValueTooLarge) {
		what := "member"
		switch {
		case strings.HasPrefix(field, "records["):
			what = "record"
		case field == "meta":
			what = "object"
		case field == "" || field == "records":
			return &Error{Code: EINVALID, Field: field, Message: "a JSON token of the dataset is larger than 1 MiB"}
		}
		return &Error{Code: EINVALID, Field: field, Message: fmt.Sprintf("%s: %s larger than 1 MiB", field, what)}
	}
	at := func(name string) string {
		switch {
		case field == "":
			return name
		case name == "":
			return field
		}
		return field + "." + name
	}
	var e *Error
	if errors.As(err, &e) {
		if e.Code != EINVALID {
			return err
		}
		f := at(e.Field)
		msg := e.Message
		if e.Field != "" && field != "" && strings.HasPrefix(msg, e.Field) {
			msg = f + msg[len(e.Field):]
		}
		return &Error{Code: EINVALID, Field: f, Message: msg}
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		f := at(te.Field)
		name := f
		if name == "" {
			name = "the dataset"
		}
		// te.Value is the JSON kind, and for a number the number itself,
		// which is the client's value: only the kind is named.
		kind, _, _ := strings.Cut(te.Value, " ")
		return &Error{Code: EINVALID, Field: f, Message: fmt.Sprintf("%s must be %s, not %s", name, jsonKind(te.Type), Truncate(kind, 32))}
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return &Error{Code: EINVALID, Field: field, Message: fmt.Sprintf("invalid JSON at byte %d: %s", se.Offset, Truncate(se.Error(), 120))}
	}
	if errors.Is(err, io.ErrUnexpectedEOF) || err == io.EOF {
		return &Error{Code: EINVALID, Field: field, Message: "the dataset ends early"}
	}
	return fmt.Errorf("read dataset: %w", err)
}

// jsonKind names the JSON type a Go type decodes from, for messages.
func jsonKind(t reflect.Type) string {
	if t == nil {
		return "another type"
	}
	if t == reflect.TypeFor[wireTime]() || t == reflect.TypeFor[time.Time]() {
		return "an RFC 3339 time string"
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Struct, reflect.Map:
		return "an object"
	}
	return "another type"
}

// ValidateDataset reads a dataset from r to the end, without holding it in
// memory, and checks it against partition p: meta is present and names p
// (country upper case), record_count matches, there is at least one record,
// and every record has a raw_url, a well-formed domain_id and authority
// when given, and a confidence in [0, 1]. The first problem is an EINVALID
// error whose Field locates it (meta.country, records[12].domain_id);
// errors of r itself are returned wrapped, not as EINVALID. A zero p
// takes the partition meta names (PartitionOfMeta).
func ValidateDataset(r io.Reader, p Partition) (meta DatasetMeta, records int, err error) {
	fromMeta := p == (Partition{})
	if !fromMeta {
		if err := p.Validate(); err != nil {
			return DatasetMeta{}, 0, err
		}
	}
	check := func(m *DatasetMeta) error {
		if fromMeta {
			var err error
			if p, err = PartitionOfMeta(m); err != nil {
				return err
			}
		}
		return validateMeta(m, p)
	}
	dr := NewDatasetReader(r)
	// Checking meta first, when it comes first, fails a dataset for the
	// wrong partition without reading all of it.
	metaChecked := false
	if m, ok := dr.Meta(); ok {
		if err := check(&m); err != nil {
			return DatasetMeta{}, 0, err
		}
		metaChecked = true
	}
	for dr.Next() {
		rec := dr.Record()
		if err := validateRecord(records, &rec); err != nil {
			return DatasetMeta{}, 0, err
		}
		records++
	}
	if err := dr.Err(); err != nil {
		return DatasetMeta{}, 0, err
	}
	m, ok := dr.Meta()
	if !ok {
		return DatasetMeta{}, 0, FieldErrorf("meta", "meta is required")
	}
	if !metaChecked {
		if err := check(&m); err != nil {
			return DatasetMeta{}, 0, err
		}
	}
	if err := validateCount(m.RecordCount, records); err != nil {
		return DatasetMeta{}, 0, err
	}
	return m, records, nil
}

// PartitionOfMeta returns the partition a dataset's meta names: its
// country (which must be upper case, as datasets write it), category and
// date. EINVALID names the meta field at fault.
func PartitionOfMeta(m *DatasetMeta) (Partition, error) {
	p := Partition{Country: NormalizeCountry(m.Country), Category: m.Category, Date: m.Date}
	if err := ValidateCountry(p.Country); err != nil {
		return p, FieldErrorf("meta.country", "meta.%s", ErrorMessage(err))
	}
	if m.Country != strings.ToUpper(p.Country) {
		return p, FieldErrorf("meta.country", "meta.country must be upper case")
	}
	if err := ValidateCategory(p.Category); err != nil {
		return p, FieldErrorf("meta.category", "meta.%s", ErrorMessage(err))
	}
	if err := ValidateDate(p.Date); err != nil {
		return p, FieldErrorf("meta.date", "meta.%s", ErrorMessage(err))
	}
	return p, nil
}

// Validate checks d against partition p with the rules of
// ValidateDataset, for datasets built in memory.
func (d *Dataset) Validate(p Partition) error {
	if err := p.Validate(); err != nil {
		return err
	}
	if err := validateMeta(&d.Meta, p); err != nil {
		return err
	}
	for i := range d.Records {
		if err := validateRecord(i, &d.Records[i]); err != nil {
			return err
		}
	}
	return validateCount(d.Meta.RecordCount, len(d.Records))
}

func validateMeta(m *DatasetMeta, p Partition) error {
	if want := strings.ToUpper(p.Country); m.Country != want {
		return FieldErrorf("meta.country", "meta.country must be the partition's country, in upper case")
	}
	if m.Category != p.Category {
		return FieldErrorf("meta.category", "meta.category must be the partition's category")
	}
	if m.Date != p.Date {
		return FieldErrorf("meta.date", "meta.date must be the partition's date")
	}
	return nil
}

func validateCount(declared, records int) error {
	if records == 0 {
		return FieldErrorf("records", "a dataset needs at least one record")
	}
	if declared != records {
		return FieldErrorf("meta.record_count", "meta.record_count must be %d, the number of records", records)
	}
	return nil
}

func validateRecord(i int, r *DatasetRecord) error {
	at := func(f string) string { return "records[" + strconv.Itoa(i) + "]." + f }
	if strings.TrimSpace(r.RawURL) == "" {
		return FieldErrorf(at("raw_url"), "%s is required", at("raw_url"))
	}
	if len(r.RawURL) > MaxRawURLBytes {
		return FieldErrorf(at("raw_url"), "%s must be at most %d bytes", at("raw_url"), MaxRawURLBytes)
	}
	if r.DomainID != "" {
		if _, _, _, err := ParseDomainID(r.DomainID); err != nil {
			return FieldErrorf(at("domain_id"), "%s%s", at("domain_id"), strings.TrimPrefix(ErrorMessage(err), "domain_id"))
		}
	}
	if r.Authority != "" && !r.Authority.Valid() {
		return FieldErrorf(at("authority"), "%s must be one of gov, mil, edu, ngo, org, media, com, other", at("authority"))
	}
	if r.Confidence < 0 || r.Confidence > 1 {
		return FieldErrorf(at("confidence"), "%s must be between 0 and 1", at("confidence"))
	}
	return nil
}
