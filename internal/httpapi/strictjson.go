package httpapi

import (
	"crypto/sha256"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/seedengine/seedengine"
)

// strictJSON checks what encoding/json lets through but clients and
// intermediaries read differently: invalid UTF-8 in a string (decoded as
// U+FFFD, so what is stored is not what was sent), a lone surrogate
// escape (the same), a repeated object key (the last one wins in Go, the
// first in many proxies and log readers: {"scope":"read","scope":"admin"}
// is a read key to one and an admin key to the other), two keys that
// differ only in letter case ({"scope":"read","Scope":"admin"}: Go's
// decoder fills a field from either spelling, everyone else reads two
// members), a key spelt otherwise than the schema's field it folds to
// (bodyNode), and a number no
// double can hold (1e400: kept as sent by a streaming save, read as
// infinity or an error by everyone else). It is a streaming scanner with
// memory bounded by nesting and key counts, not by the body, so it also
// guards dataset saves of hundreds of megabytes.
//
// It does not check the grammar: the decoder behind it does. On anything
// it does not expect it stops checking and lets the bytes through, so a
// syntax error is reported by the decoder, with the decoder's words.
type strictJSON struct {
	off   int64     // bytes consumed
	next  *bodyNode // schema of the value about to be read; set to the body's before the first byte
	stack []*jsonLevel
	st    jsonState
	key   bool   // the string being read is an object key
	url   bool   // the string being read is a URL (bodyNode.url): U+0000 may be in it
	buf   []byte // key or number being read (capped)
	big   bool   // the key outgrew buf: hashed instead
	hash  [sha256.Size]byte
	rune  []byte // bytes of the UTF-8 sequence being read
	need  int    // continuation bytes still expected
	hex   int    // \u digits still expected
	cp    rune   // the \u code point being read
	hi    rune   // a high surrogate waiting for its low half
	done  bool   // stopped checking (bail) or finished
	err   *strictError
}

type jsonState int

const (
	jsValue jsonState = iota
	jsKeyOrEnd
	jsKey
	jsColon
	jsAfter
	jsString
	jsEscape
	jsUnicode
	jsNumber
	jsLiteral
)

// jsonLevel is one open object or array.
type jsonLevel struct {
	object bool
	index  int               // array: the element's index
	name   string            // object: the current member's key, for locations
	keys   map[string]string // object: keys seen, by foldKey (a long key by hash), as spelt
	node   *bodyNode         // the schema here
	member *bodyNode         // object: the schema of the current member's value
}

// maxKeyBytes is how much of a key is kept as it is; a longer key is
// compared by its hash.
const maxKeyBytes = 256

// strictError is a body strictJSON refuses.
type strictError struct {
	status   int // 400 or 422
	location string
	msg      string
}

func (e *strictError) Error() string { return e.msg }

// problem is the problem a refused body gets.
func (e *strictError) problem(st *reqState) *Problem {
	p := newProblem(st, e.status, seedengine.EINVALID, e.msg)
	p.Errors = []FieldError{{Location: seedengine.Truncate(e.location, maxProblemLoc), Message: p.Detail}}
	return p
}

// Write feeds p to the scanner. It never fails; Err reports a refusal.
func (s *strictJSON) Write(p []byte) (int, error) {
	for i := 0; i < len(p) && !s.done; i++ {
		s.step(p[i])
		s.off++
	}
	return len(p), nil
}

// Err returns the first refusal, or nil.
func (s *strictJSON) Err() *strictError { return s.err }

// Close ends the input: a number at the very end is checked.
func (s *strictJSON) Close() {
	if !s.done && s.st == jsNumber {
		s.endNumber()
	}
}

func (s *strictJSON) fail(status int, msg string) {
	if s.err == nil {
		loc := s.location()
		s.err = &strictError{status: status, location: loc, msg: loc + ": " + msg}
	}
	s.done = true
}

func (s *strictJSON) bail() { s.done = true }

// location is where the scanner is, as huma names fields: body.meta.country,
// body.records[12].raw_url.
func (s *strictJSON) location() string {
	var b strings.Builder
	b.WriteString("body")
	for _, l := range s.stack {
		if l.object {
			if l.name != "" {
				b.WriteByte('.')
				b.WriteString(l.name)
			}
		} else {
			b.WriteByte('[')
			b.WriteString(strconv.Itoa(l.index))
			b.WriteByte(']')
		}
	}
	return b.String()
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func (s *strictJSON) step(c byte) {
	switch s.st {
	case jsValue:
		s.value(c)
	case jsKeyOrEnd, jsKey:
		switch {
		case isSpace(c):
		case c == '"':
			s.startString(true)
		case c == '}' && s.st == jsKeyOrEnd:
			s.pop()
		default:
			s.bail()
		}
	case jsColon:
		switch {
		case isSpace(c):
		case c == ':':
			s.st = jsValue
			s.next = s.top().member
		default:
			s.bail()
		}
	case jsAfter:
		s.afterValue(c)
	case jsString:
		s.stringByte(c)
	case jsEscape:
		s.escape(c)
	case jsUnicode:
		s.unicode(c)
	case jsNumber:
		if (c >= '0' && c <= '9') || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-' {
			if len(s.buf) < 1024 {
				s.buf = append(s.buf, c)
			}
			return
		}
		s.endNumber()
		if !s.done {
			s.step(c)
		}
	case jsLiteral:
		if c >= 'a' && c <= 'z' {
			return
		}
		s.st = jsAfter
		s.step(c)
	}
}

func (s *strictJSON) value(c byte) {
	switch {
	case isSpace(c):
	case c == '{':
		s.stack = append(s.stack, &jsonLevel{object: true, keys: map[string]string{}, node: s.next})
		s.st = jsKeyOrEnd
	case c == '[':
		s.stack = append(s.stack, &jsonLevel{node: s.next})
		s.next = s.next.elem()
		s.st = jsValue
	case c == ']' && len(s.stack) > 0 && !s.top().object && s.top().index == 0:
		s.pop() // an empty array
	case c == '"':
		s.startString(false)
		s.url = s.next != nil && s.next.url
	case c == '-' || (c >= '0' && c <= '9'):
		s.buf = append(s.buf[:0], c)
		s.st = jsNumber
	case c == 't' || c == 'f' || c == 'n':
		s.st = jsLiteral
	default:
		s.bail()
	}
}

func (s *strictJSON) top() *jsonLevel { return s.stack[len(s.stack)-1] }

func (s *strictJSON) pop() {
	s.stack = s.stack[:len(s.stack)-1]
	s.st = jsAfter
}

func (s *strictJSON) afterValue(c byte) {
	switch {
	case isSpace(c):
	case len(s.stack) == 0:
		s.bail() // trailing data: the decoder's to report
	case c == ',':
		if t := s.top(); t.object {
			s.st = jsKey
		} else {
			t.index++
			s.next = t.node.elem()
			s.st = jsValue
		}
	case c == '}' && s.top().object, c == ']' && !s.top().object:
		s.pop()
	default:
		s.bail()
	}
}

func (s *strictJSON) startString(key bool) {
	s.key, s.big, s.url = key, false, false
	s.buf = s.buf[:0]
	s.hi = 0
	s.st = jsString
}

// keep adds decoded key bytes, hashing a key that grows past maxKeyBytes.
func (s *strictJSON) keep(b ...byte) {
	if !s.key {
		return
	}
	if !s.big && len(s.buf)+len(b) > maxKeyBytes {
		s.big = true
	}
	s.buf = append(s.buf, b...)
	if s.big && len(s.buf) > 4*maxKeyBytes {
		// Fold what we have into the running hash.
		s.hash = sha256.Sum256(append(s.hash[:], s.buf...))
		s.buf = s.buf[:0]
	}
}

func (s *strictJSON) stringByte(c byte) {
	if s.need > 0 {
		if c&0xC0 != 0x80 {
			s.fail(400, "invalid UTF-8 in a string at byte "+strconv.FormatInt(s.off, 10))
			return
		}
		s.rune = append(s.rune, c)
		s.need--
		if s.need == 0 {
			if !utf8.Valid(s.rune) {
				s.fail(400, "invalid UTF-8 in a string at byte "+strconv.FormatInt(s.off-int64(len(s.rune))+1, 10))
				return
			}
			s.keep(s.rune...)
		}
		return
	}
	if s.hi != 0 && c != '\\' {
		s.fail(400, "a lone UTF-16 surrogate escape in a string at byte "+strconv.FormatInt(s.off, 10))
		return
	}
	switch {
	case c == '"':
		s.endString()
	case c == '\\':
		s.st = jsEscape
	case c < 0x80:
		s.keep(c)
	case c >= 0xC2 && c <= 0xDF:
		s.rune, s.need = append(s.rune[:0], c), 1
	case c >= 0xE0 && c <= 0xEF:
		s.rune, s.need = append(s.rune[:0], c), 2
	case c >= 0xF0 && c <= 0xF4:
		s.rune, s.need = append(s.rune[:0], c), 3
	default:
		s.fail(400, "invalid UTF-8 in a string at byte "+strconv.FormatInt(s.off, 10))
	}
}

func (s *strictJSON) escape(c byte) {
	s.st = jsString
	if c == 'u' {
		s.st, s.hex, s.cp = jsUnicode, 4, 0
		return
	}
	if s.hi != 0 {
		s.fail(400, "a lone UTF-16 surrogate escape in a string at byte "+strconv.FormatInt(s.off, 10))
		return
	}
	switch c {
	case 'n':
		c = '\n'
	case 't':
		c = '\t'
	case 'r':
		c = '\r'
	case 'b':
		c = '\b'
	case 'f':
		c = '\f'
	}
	s.keep(c)
}

func (s *strictJSON) unicode(c byte) {
	var d rune
	switch {
	case c >= '0' && c <= '9':
		d = rune(c - '0')
	case c >= 'a' && c <= 'f':
		d = rune(c-'a') + 10
	case c >= 'A' && c <= 'F':
		d = rune(c-'A') + 10
	default:
		s.bail()
		return
	}
	s.cp = s.cp<<4 | d
	if s.hex--; s.hex > 0 {
		return
	}
	s.st = jsString
	switch {
	case s.cp >= 0xD800 && s.cp <= 0xDBFF:
		if s.hi != 0 {
			s.fail(400, "a lone UTF-16 surrogate escape in a string at byte "+strconv.FormatInt(s.off, 10))
			return
		}
		s.hi = s.cp
	case s.cp >= 0xDC00 && s.cp <= 0xDFFF:
		if s.hi == 0 {
			s.fail(400, "a lone UTF-16 surrogate escape in a string at byte "+strconv.FormatInt(s.off, 10))
			return
		}
		r := 0x10000 + (s.hi-0xD800)<<10 + (s.cp - 0xDC00)
		s.hi = 0
		s.keep(utf8.AppendRune(nil, r)...)
	case s.cp == 0 && !s.url:
		// Valid JSON, but PostgreSQL's text cannot hold it and C
		// strings end at it: refused everywhere rather than
		// stored by one engine and a 500 on the other. A URL is the
		// exception: the URL Standard percent-encodes it, so the
		// handler reads it as %00 (seedengine.URLText) and one odd
		// URL is refused as that one item, not the whole list.
		s.fail(422, "a string may not contain U+0000")
	default:
		if s.hi != 0 {
			s.fail(400, "a lone UTF-16 surrogate escape in a string at byte "+strconv.FormatInt(s.off, 10))
			return
		}
		s.keep(utf8.AppendRune(nil, s.cp)...)
	}
}

func (s *strictJSON) endString() {
	if !s.key {
		s.st = jsAfter
		return
	}
	t := s.top()
	k := string(s.buf)
	id := foldKey(k)
	if s.big {
		// No field name is this long, and the whole key is not kept:
		// repeats are found by hash, spelling as it is.
		h := sha256.Sum256(append(s.hash[:], s.buf...))
		id = "\x00sha256:" + string(h[:])
		s.hash = [sha256.Size]byte{}
	}
	t.name = printableKey(s.buf, s.big)
	if was, seen := t.keys[id]; seen {
		if was == k || s.big {
			s.fail(422, "duplicate object key; a member may appear only once")
		} else {
			s.fail(422, "this member's name differs from another member's only in letter case; names are case-sensitive and a member may appear once")
		}
		return
	}
	var canonical string
	t.member, canonical = t.node.member(k, s.big)
	if canonical != "" {
		s.fail(422, "not a field of this object; names are case-sensitive: the field is "+canonical)
		return
	}
	t.keys[id] = k
	s.st = jsColon
}

// printableKey is a key as a location shows it.
func printableKey(b []byte, big bool) string {
	if big || len(b) > 64 {
		return seedengine.Truncate(string(b), 64) + "…"
	}
	return string(b)
}

func (s *strictJSON) endNumber() {
	s.st = jsAfter
	f, err := strconv.ParseFloat(string(s.buf), 64)
	if err != nil {
		if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange && (f > 1 || f < -1) {
			s.fail(422, "a number out of the range of a 64-bit float")
			return
		}
		s.bail() // malformed: the decoder's to report
	}
}

// checkJSON runs the strict checks over a whole body whose schema is
// root (nil: none known).
func checkJSON(body []byte, root *bodyNode) *strictError {
	s := strictJSON{next: root}
	_, _ = s.Write(body)
	s.Close()
	return s.err
}
