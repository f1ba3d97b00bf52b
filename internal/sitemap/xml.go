package sitemap

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
	"unicode/utf8"
)

// ErrMalformed is wrapped by the error Parse returns for XML that is not
// well formed (after the root element was recognised; before it, such input
// is ErrNotSitemap).
var ErrMalformed = errors.New("malformed XML")

const (
	maxDepth   = 256      // deepest element nesting accepted
	maxCapture = 16 << 10 // longest raw text kept for one value; longer is treated as overlong
	maxIntern  = 256      // distinct namespace strings kept for reuse
)

const (
	nsXML = "http://www.w3.org/XML/1998/namespace"
	nsDC  = "http://purl.org/dc/elements/1.1/"
)

// kind is what an open element means to the parser, decided from its parent
// and its resolved name when it starts.
type kind uint8

const (
	kNone kind = iota
	kRoot
	kChannel   // RSS <channel>
	kEntry     // <url>, <sitemap>, <item>, <entry>
	kLoc       // <loc>, RSS <link>
	kLastMod   // <lastmod>, RSS <pubDate>/<dc:date>, Atom <updated>/<modified>
	kPublished // Atom <published>/<issued>, used when there is no <updated>
	kGUID      // RSS <guid> that is a permalink
	kNews      // <news:news>
	kNewsPub   // <news:publication>
	kNewsName
	kNewsLang
	kNewsDate
	kNewsTitle
)

func (k kind) captures() bool { return k >= kLoc && k != kNews && k != kNewsPub }

type frame struct {
	nameEnd int    // end of the element's qualified name in xmlState.names
	nsLen   int    // len(xmlState.ns) before the element's declarations
	ns      string // the element's namespace
	kind    kind
}

type nsBinding struct{ prefix, uri string }

// attr holds slices of the input window, valid until the next fill.
type attr struct{ name, value []byte }

// xmlState is the XML scanner's and the sitemap reader's state; every slice
// is reused, so memory depends on nesting and value lengths, not on the
// document's size.
type xmlState struct {
	stack  []frame
	names  []byte
	ns     []nsBinding
	attrs  []attr
	intern map[string]string
	rootNS string
	// entryNS is the namespace of the current RSS item; its <link> must share it.
	entryNS string
	started bool // the root element has been seen
	done    bool // the root element has ended, or parsing must stop
	stopErr error

	// Text of the innermost capturing element (text) and direct text of the
	// entry element (bare, for indexes whose <sitemap> holds the URL as text).
	pend     []byte // raw text not yet entity-decoded
	pendBare bool
	text     []byte
	textOver bool
	bare     []byte
	bareOver bool
	scratch  []byte

	// The entry being read.
	loc       []byte
	hasLoc    bool
	locOver   bool
	guid      []byte
	hasGUID   bool
	permalink bool
	lastMod   time.Time
	published time.Time
	hasNews   bool
	newsName  []byte
	newsLang  []byte
	newsTitle []byte
	newsDate  time.Time
}

func (p *parser) runXML() error {
	in := &p.in
	x := &p.x
	for !x.done {
		i := bytes.IndexByte(in.buf[in.r:in.w], '<')
		if i < 0 {
			if err := p.xmlText(in.buf[in.r:in.w]); err != nil {
				return err
			}
			in.r = in.w
			if err := in.fill(); err != nil {
				return p.eof(err)
			}
			continue
		}
		if i > 0 {
			if err := p.xmlText(in.buf[in.r : in.r+i]); err != nil {
				return err
			}
			in.r += i
		}
		if err := p.markup(); err != nil {
			return err
		}
	}
	return x.stopErr
}

// eof turns a fill error into Parse's error.
func (p *parser) eof(err error) error {
	if err != io.EOF {
		return readErr(err)
	}
	if !p.x.started {
		return fmt.Errorf("sitemap: no root element: %w", ErrNotSitemap)
	}
	return p.malformed("document ends inside <%s>: %w", p.x.topName(), io.ErrUnexpectedEOF)
}

func (p *parser) malformed(format string, args ...any) error {
	pos := p.lr().n - int64(p.in.w-p.in.r)
	sentinel := ErrMalformed
	if !p.x.started {
		sentinel = ErrNotSitemap
	}
	return fmt.Errorf("sitemap: %w at byte %d: %w", sentinel, pos, fmt.Errorf(format, args...))
}

func (p *parser) lr() *limitReader {
	if l, ok := p.in.src.(*limitReader); ok {
		return l
	}
	return &limitReader{}
}

func (x *xmlState) topName() string {
	if len(x.stack) == 0 {
		return ""
	}
	start := 0
	if len(x.stack) > 1 {
		start = x.stack[len(x.stack)-2].nameEnd
	}
	return string(x.names[start:x.stack[len(x.stack)-1].nameEnd])
}

// xmlText handles character data (entity references not yet decoded).
func (p *parser) xmlText(b []byte) error {
	x := &p.x
	if len(x.stack) == 0 {
		if len(trimSpace(b)) > 0 {
			return fmt.Errorf("sitemap: text outside the root element: %w", ErrNotSitemap)
		}
		return nil
	}
	switch k := x.stack[len(x.stack)-1].kind; {
	case k.captures():
		x.pendBare = false
	case k == kEntry:
		x.pendBare = true
	default:
		return nil
	}
	if len(x.pend)+len(b) > maxCapture {
		if x.pendBare {
			x.bareOver = true
		} else {
			x.textOver = true
		}
		return nil
	}
	x.pend = append(x.pend, b...)
	return nil
}

// flushPend decodes pending text into its target; text ends at markup, and
// an entity reference never spans markup, so every reference is complete.
func (x *xmlState) flushPend() {
	if x.pendBare {
		x.bare, x.bareOver = appendCapped(x.bare, x.pend, true, x.bareOver)
	} else {
		x.text, x.textOver = appendCapped(x.text, x.pend, true, x.textOver)
	}
	x.pend = x.pend[:0]
}

func appendCapped(dst, src []byte, decode, over bool) ([]byte, bool) {
	if over || len(dst)+len(src) > maxCapture {
		return dst, true
	}
	if decode {
		return appendDecoded(dst, src), false
	}
	return append(dst, src...), false
}

// markup handles the construct starting with '<' at in.r.
func (p *parser) markup() error {
	if len(p.x.pend) > 0 {
		p.x.flushPend()
	}
	b, err := p.peek(2)
	if err != nil {
		return err
	}
	switch b[1] {
	case '/':
		return p.endTag()
	case '?':
		return p.skipPast("?>", 2)
	case '!':
		return p.bang()
	}
	return p.startTag()
}

// peek returns at least n bytes at in.r, failing at the end of input.
func (p *parser) peek(n int) ([]byte, error) {
	in := &p.in
	for in.w-in.r < n {
		if err := in.fill(); err != nil {
			return nil, p.eof(err)
		}
	}
	return in.buf[in.r:in.w], nil
}

// peekUpTo returns up to n bytes at in.r, fewer only at the end of input.
func (p *parser) peekUpTo(n int) ([]byte, error) {
	in := &p.in
	for in.w-in.r < n {
		if err := in.fill(); err != nil {
			if err == io.EOF {
				break
			}
			return nil, readErr(err)
		}
	}
	return in.buf[in.r:in.w], nil
}

// skipPast discards input up to and including term, searching from in.r+from.
func (p *parser) skipPast(term string, from int) error {
	in := &p.in
	in.r += from
	keep := len(term) - 1
	for {
		if i := bytes.Index(in.buf[in.r:in.w], []byte(term)); i >= 0 {
			in.r += i + len(term)
			return nil
		}
		if in.w-in.r > keep {
			in.r = in.w - keep
		}
		if err := in.fill(); err != nil {
			return p.eof(err)
		}
	}
}

var (
	cdataStart = []byte("<![CDATA[")
	cdataEnd   = []byte("]]>")
)

// bang handles "<!": comments and CDATA; DOCTYPE and other declarations are
// refused.
func (p *parser) bang() error {
	b, err := p.peekUpTo(len(cdataStart))
	if err != nil {
		return err
	}
	switch {
	case bytes.HasPrefix(b, []byte("<!--")):
		return p.skipPast("-->", 4)
	case bytes.HasPrefix(b, cdataStart):
		if len(p.x.stack) == 0 {
			return fmt.Errorf("sitemap: CDATA outside the root element: %w", ErrNotSitemap)
		}
		return p.cdata()
	case hasPrefixFold(b[2:], "doctype"):
		b, err = p.peekUpTo(64)
		if err != nil {
			return err
		}
		if rest := trimSpace(b[len("<!doctype"):]); hasPrefixFold(rest, "html") &&
			(len(rest) == 4 || rest[4] == '>' || isSpace(rest[4])) {
			return fmt.Errorf("sitemap: HTML document: %w", ErrNotSitemap)
		}
		return fmt.Errorf("sitemap: %w", ErrDoctype)
	case hasPrefixFold(b[2:], "entity"), hasPrefixFold(b[2:], "element"),
		hasPrefixFold(b[2:], "attlist"), hasPrefixFold(b[2:], "notation"):
		return fmt.Errorf("sitemap: declaration outside a DOCTYPE: %w", ErrDoctype)
	}
	return p.malformed("unknown markup %q", b[:min(len(b), 9)])
}

func (p *parser) cdata() error {
	in := &p.in
	x := &p.x
	in.r += len(cdataStart)
	k := x.stack[len(x.stack)-1].kind
	add := func(b []byte) {
		switch {
		case k.captures():
			x.text, x.textOver = appendCapped(x.text, b, false, x.textOver)
		case k == kEntry:
			x.bare, x.bareOver = appendCapped(x.bare, b, false, x.bareOver)
		}
	}
	for {
		w := in.buf[in.r:in.w]
		if i := bytes.Index(w, cdataEnd); i >= 0 {
			add(w[:i])
			in.r += i + len(cdataEnd)
			return nil
		}
		if keep := len(cdataEnd) - 1; len(w) > keep {
			add(w[:len(w)-keep])
			in.r = in.w - keep
		}
		if err := in.fill(); err != nil {
			return p.eof(err)
		}
	}
}

// tagEnd returns the offset from in.r of the '>' ending the tag at in.r,
// skipping quoted attribute values.
func (p *parser) tagEnd() (int, error) {
	in := &p.in
	off := 1
	var quote byte
	for {
		b := in.buf[in.r:in.w]
		for off < len(b) {
			if quote != 0 {
				i := bytes.IndexByte(b[off:], quote)
				if i < 0 {
					off = len(b)
					break
				}
				off += i + 1
				quote = 0
				continue
			}
			switch c := b[off]; c {
			case '>':
				return off, nil
			case '"', '\'':
				quote = c
			case '<':
				return 0, p.malformed("'<' inside a tag")
			}
			off++
		}
		if err := in.fill(); err != nil {
			return 0, p.eof(err)
		}
	}
}

func (p *parser) startTag() error {
	in := &p.in
	x := &p.x
	if x.started && len(x.stack) == 0 {
		return p.malformed("second root element")
	}
	end, err := p.tagEnd()
	if err != nil {
		return err
	}
	tag := in.buf[in.r+1 : in.r+end]
	selfClose := len(tag) > 0 && tag[len(tag)-1] == '/'
	if selfClose {
		tag = tag[:len(tag)-1]
	}
	n := 0
	for n < len(tag) && !isSpace(tag[n]) {
		n++
	}
	name := tag[:n]
	if n == 0 || !nameStart(name[0]) {
		return p.malformed("bad element name %q", name)
	}
	if len(x.stack) >= maxDepth {
		return p.malformed("elements nested deeper than %d", maxDepth)
	}
	x.attrs = x.attrs[:0]
	if n < len(tag) {
		if err := p.parseAttrs(tag[n:]); err != nil {
			return err
		}
	}
	nsLen := len(x.ns)
	for _, a := range x.attrs {
		if bytes.Equal(a.name, []byte("xmlns")) {
			x.ns = append(x.ns, nsBinding{"", x.internDecoded(a.value)})
		} else if bytes.HasPrefix(a.name, []byte("xmlns:")) {
			x.ns = append(x.ns, nsBinding{x.internBytes(a.name[6:]), x.internDecoded(a.value)})
		}
	}
	prefix, local := []byte(nil), name
	if i := bytes.IndexByte(name, ':'); i >= 0 {
		prefix, local = name[:i], name[i+1:]
	}
	ns := x.lookup(prefix)

	var k kind
	if len(x.stack) == 0 {
		if err := p.root(local, ns); err != nil {
			return err
		}
		k = kRoot
	} else {
		k = p.classify(&x.stack[len(x.stack)-1], local, ns)
	}
	x.names = append(x.names, name...)
	x.stack = append(x.stack, frame{nameEnd: len(x.names), nsLen: nsLen, ns: ns, kind: k})
	p.opened(k, ns)
	in.r += end + 1
	if selfClose {
		return p.closeElement()
	}
	return nil
}

func nameStart(c byte) bool {
	return c == '_' || c == ':' || c >= 0x80 || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z')
}

func (p *parser) parseAttrs(s []byte) error {
	x := &p.x
	for {
		for len(s) > 0 && isSpace(s[0]) {
			s = s[1:]
		}
		if len(s) == 0 {
			return nil
		}
		eq := bytes.IndexByte(s, '=')
		if eq <= 0 {
			return p.malformed("attribute without a value")
		}
		name := trimSpace(s[:eq])
		if len(name) == 0 || bytes.ContainsAny(name, " \t\r\n\"'") {
			return p.malformed("bad attribute name %q", name)
		}
		s = s[eq+1:]
		for len(s) > 0 && isSpace(s[0]) {
			s = s[1:]
		}
		if len(s) == 0 || (s[0] != '"' && s[0] != '\'') {
			return p.malformed("unquoted attribute value")
		}
		e := bytes.IndexByte(s[1:], s[0])
		if e < 0 {
			return p.malformed("unterminated attribute value")
		}
		x.attrs = append(x.attrs, attr{name: name, value: s[1 : 1+e]})
		s = s[e+2:]
		if len(s) > 0 && !isSpace(s[0]) {
			return p.malformed("no space between attributes")
		}
	}
}

// attr returns the raw value of the attribute with the given local name.
func (x *xmlState) attr(local string) ([]byte, bool) {
	for _, a := range x.attrs {
		n := a.name
		if i := bytes.IndexByte(n, ':'); i >= 0 {
			n = n[i+1:]
		}
		if string(n) == local {
			return a.value, true
		}
	}
	return nil, false
}

// lookup resolves a prefix. An undeclared prefix stands for itself, so that
// <news:news> without its declaration is still recognised.
func (x *xmlState) lookup(prefix []byte) string {
	for i := len(x.ns) - 1; i >= 0; i-- {
		if x.ns[i].prefix == string(prefix) {
			return x.ns[i].uri
		}
	}
	switch {
	case len(prefix) == 0:
		return ""
	case string(prefix) == "xml":
		return nsXML
	}
	return x.internBytes(prefix)
}

func (x *xmlState) internDecoded(raw []byte) string {
	x.scratch = appendDecoded(x.scratch[:0], raw)
	return x.internBytes(x.scratch)
}

func (x *xmlState) internBytes(b []byte) string {
	if s, ok := x.intern[string(b)]; ok {
		return s
	}
	s := string(b)
	if x.intern == nil {
		x.intern = make(map[string]string)
	}
	if len(x.intern) < maxIntern {
		x.intern[s] = s
	}
	return s
}

// root recognises the document type from the root element.
func (p *parser) root(local []byte, ns string) error {
	x := &p.x
	switch string(local) {
	case "urlset":
		p.res.Type = TypeURLSet
	case "sitemapindex":
		p.res.Type = TypeIndex
	case "rss", "RDF":
		p.res.Type = TypeRSS
	case "feed":
		p.res.Type = TypeAtom
	default:
		return fmt.Errorf("sitemap: root element <%s>: %w", local, ErrNotSitemap)
	}
	x.started = true
	x.rootNS = ns
	return nil
}

// classify decides what an element means from its parent and name.
func (p *parser) classify(parent *frame, local []byte, ns string) kind {
	x := &p.x
	typ := p.res.Type
	switch parent.kind {
	case kRoot:
		switch {
		case typ == TypeURLSet && ns == x.rootNS && string(local) == "url",
			typ == TypeIndex && ns == x.rootNS && string(local) == "sitemap",
			typ == TypeAtom && ns == x.rootNS && string(local) == "entry",
			typ == TypeRSS && string(local) == "item":
			return kEntry
		case typ == TypeRSS && string(local) == "channel":
			return kChannel
		}
	case kChannel:
		if string(local) == "item" {
			return kEntry
		}
	case kEntry:
		switch typ {
		case TypeURLSet, TypeIndex:
			if ns == x.rootNS {
				switch string(local) {
				case "loc":
					return kLoc
				case "lastmod":
					return kLastMod
				}
			} else if typ == TypeURLSet && string(local) == "news" && isNewsNS(ns) {
				return kNews
			}
		case TypeRSS:
			if ns == x.entryNS {
				switch string(local) {
				case "link":
					return kLoc
				case "guid":
					return kGUID
				case "pubDate":
					return kLastMod
				}
			} else if ns == nsDC && string(local) == "date" {
				return kLastMod
			}
		case TypeAtom:
			if ns == x.rootNS {
				switch string(local) {
				case "link":
					p.atomLink()
				case "updated", "modified":
					return kLastMod
				case "published", "issued":
					return kPublished
				}
			}
		}
	case kNews:
		if ns == parent.ns {
			switch string(local) {
			case "publication":
				return kNewsPub
			case "publication_date":
				return kNewsDate
			case "title":
				return kNewsTitle
			}
		}
	case kNewsPub:
		if ns == parent.ns {
			switch string(local) {
			case "name":
				return kNewsName
			case "language":
				return kNewsLang
			}
		}
	}
	return kNone
}

func isNewsNS(ns string) bool {
	return strings.Contains(ns, "google.com/schemas/sitemap-news/") || ns == "news"
}

// atomLink takes the first alternate link of an Atom entry (rel absent or
// "alternate").
func (p *parser) atomLink() {
	x := &p.x
	if x.hasLoc {
		return
	}
	if rel, ok := x.attr("rel"); ok && !bytes.Equal(trimSpace(rel), []byte("alternate")) {
		return
	}
	href, ok := x.attr("href")
	if !ok {
		return
	}
	x.loc = appendDecoded(x.loc[:0], href)
	x.hasLoc = true
	x.locOver = false
}

// opened sets up state for an element that has just started.
func (p *parser) opened(k kind, ns string) {
	x := &p.x
	switch k {
	case kEntry:
		x.entryNS = ns
		x.loc, x.hasLoc, x.locOver = x.loc[:0], false, false
		x.guid, x.hasGUID = x.guid[:0], false
		x.bare, x.bareOver = x.bare[:0], false
		x.lastMod, x.published = time.Time{}, time.Time{}
		x.hasNews = false
		if p.res.Type == TypeRSS {
			// RSS 1.0 items name their link in rdf:about.
			if about, ok := x.attr("about"); ok {
				x.guid = appendDecoded(x.guid, about)
				x.hasGUID = true
			}
		}
	case kGUID:
		v, ok := x.attr("isPermaLink")
		x.permalink = !ok || !bytes.Equal(trimSpace(v), []byte("false"))
	case kNews:
		x.hasNews = true
		x.newsName, x.newsLang, x.newsTitle = x.newsName[:0], x.newsLang[:0], x.newsTitle[:0]
		x.newsDate = time.Time{}
	}
	if k.captures() {
		x.text, x.textOver = x.text[:0], false
	}
}

func (p *parser) endTag() error {
	in := &p.in
	x := &p.x
	off := 2
	for {
		if i := bytes.IndexByte(in.buf[in.r+off:in.w], '>'); i >= 0 {
			off += i
			break
		}
		off = in.w - in.r
		if err := in.fill(); err != nil {
			return p.eof(err)
		}
	}
	name := trimSpace(in.buf[in.r+2 : in.r+off])
	if len(x.stack) == 0 {
		return p.malformed("end tag </%s> without a start tag", name)
	}
	start := 0
	if len(x.stack) > 1 {
		start = x.stack[len(x.stack)-2].nameEnd
	}
	if !bytes.Equal(name, x.names[start:]) {
		return p.malformed("end tag </%s> does not match <%s>", name, x.names[start:])
	}
	in.r += off + 1
	return p.closeElement()
}

// closeElement ends the innermost element.
func (p *parser) closeElement() error {
	x := &p.x
	f := x.stack[len(x.stack)-1]
	x.stack = x.stack[:len(x.stack)-1]
	x.ns = x.ns[:f.nsLen]
	if len(x.stack) > 0 {
		x.names = x.names[:x.stack[len(x.stack)-1].nameEnd]
	} else {
		x.names = x.names[:0]
	}
	switch f.kind {
	case kRoot:
		x.done = true
	case kLoc:
		if !x.hasLoc {
			x.loc = append(x.loc[:0], x.text...)
			x.hasLoc, x.locOver = true, x.textOver
		}
	case kLastMod:
		if x.lastMod.IsZero() && !x.textOver {
			x.lastMod = parseDate(x.text)
		}
	case kPublished:
		if x.published.IsZero() && !x.textOver {
			x.published = parseDate(x.text)
		}
	case kGUID:
		if x.permalink && !x.hasGUID && !x.textOver {
			x.guid = append(x.guid[:0], x.text...)
			x.hasGUID = true
		}
	case kNewsName:
		x.newsName = append(x.newsName[:0], trimSpace(x.text)...)
	case kNewsLang:
		x.newsLang = append(x.newsLang[:0], trimSpace(x.text)...)
	case kNewsTitle:
		x.newsTitle = append(x.newsTitle[:0], trimSpace(x.text)...)
	case kNewsDate:
		if !x.textOver {
			x.newsDate = parseDate(x.text)
		}
	case kEntry:
		return p.endEntry()
	}
	return nil
}

func (p *parser) endEntry() error {
	x := &p.x
	// The first non-empty of <loc>/<link>, the RSS permalink guid (or
	// rdf:about), and the entry's own text (indexes listing bare URLs).
	var loc []byte
	over := false
	switch {
	case x.hasLoc && (x.locOver || len(trimSpace(x.loc)) > 0):
		loc, over = x.loc, x.locOver
	case x.hasGUID && len(trimSpace(x.guid)) > 0:
		loc = x.guid
	case p.res.Type == TypeURLSet || p.res.Type == TypeIndex:
		loc, over = x.bare, x.bareOver
	}
	if over {
		p.res.Invalid++
		return nil
	}
	lastMod := x.lastMod
	if lastMod.IsZero() {
		lastMod = x.published
	}
	var news *News
	if x.hasNews {
		news = &News{
			PublicationName: string(x.newsName),
			Language:        string(x.newsLang),
			Title:           string(x.newsTitle),
			PublicationDate: x.newsDate,
		}
	}
	more, err := p.emit(loc, lastMod, news)
	if !more {
		x.done = true
		x.stopErr = err
	}
	return nil
}

// appendDecoded appends src with the predefined and numeric character
// references decoded. Anything else after '&' is kept as written: without a
// DTD no other entity can be defined, and a stray '&' in a URL is common.
func appendDecoded(dst, src []byte) []byte {
	for {
		i := bytes.IndexByte(src, '&')
		if i < 0 {
			return append(dst, src...)
		}
		dst = append(dst, src[:i]...)
		src = src[i:]
		j := bytes.IndexByte(src, ';')
		if j < 2 || j > 12 {
			dst = append(dst, '&')
			src = src[1:]
			continue
		}
		ref := src[1:j]
		switch string(ref) {
		case "amp":
			dst = append(dst, '&')
		case "lt":
			dst = append(dst, '<')
		case "gt":
			dst = append(dst, '>')
		case "quot":
			dst = append(dst, '"')
		case "apos":
			dst = append(dst, '\'')
		default:
			r, ok := charRef(ref)
			if !ok {
				dst = append(dst, '&')
				src = src[1:]
				continue
			}
			dst = utf8.AppendRune(dst, r)
		}
		src = src[j+1:]
	}
}

// charRef decodes "#123" or "#x7B".
func charRef(ref []byte) (rune, bool) {
	if len(ref) < 2 || ref[0] != '#' {
		return 0, false
	}
	digits, base := ref[1:], rune(10)
	if digits[0] == 'x' || digits[0] == 'X' {
		digits, base = digits[1:], 16
	}
	if len(digits) == 0 {
		return 0, false
	}
	var r rune
	for _, c := range digits {
		var d rune
		switch {
		case '0' <= c && c <= '9':
			d = rune(c - '0')
		case base == 16 && 'a' <= c && c <= 'f':
			d = rune(c-'a') + 10
		case base == 16 && 'A' <= c && c <= 'F':
			d = rune(c-'A') + 10
		default:
			return 0, false
		}
		r = r*base + d
		if r > utf8.MaxRune {
			return 0, false
		}
	}
	if r == 0 || !utf8.ValidRune(r) {
		return 0, false
	}
	return r, true
}
