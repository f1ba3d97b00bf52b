package sitemap

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"time"
)

// Type is the kind of document Parse found.
type Type string

// Document types recognised by Parse.
const (
	// TypeURLSet is a <urlset> in any namespace (sitemaps.org 0.9, the old
	// Google 0.84/0.9 namespaces, none, or a prefixed one such as sit:urlset).
	TypeURLSet Type = "urlset"
	// TypeIndex is a <sitemapindex>; its entries are child sitemaps.
	TypeIndex Type = "sitemapindex"
	// TypeText is a plain-text sitemap: one URL per line, UTF-8, optional BOM.
	TypeText Type = "text"
	// TypeRSS is an RSS 0.9x/2.0 (<rss>) or RSS 1.0 (<rdf:RDF>) feed used as
	// a sitemap; its entries are the item links. An RSS document is always
	// TypeRSS, even when it declares the sitemap namespace.
	TypeRSS Type = "rss"
	// TypeAtom is an Atom (<feed>) feed used as a sitemap; its entries are the
	// entry links.
	TypeAtom Type = "atom"
)

// News is the Google News extension of a URL entry (news:news).
type News struct {
	PublicationName string
	Language        string
	Title           string
	PublicationDate time.Time // zero when missing/unparseable; UTC
}

// Entry is one <url>, <sitemap>, text line, RSS item or Atom entry.
type Entry struct {
	Loc     string    // trimmed; entity-decoded; an absolute http(s) URL of at most MaxLocBytes bytes
	LastMod time.Time // zero when missing/unparseable; UTC (RSS pubDate / Atom updated for feeds)
	News    *News     // nil unless the entry has news:news
}

// Date is when the entry was published as far as the sitemap tells: its
// news publication date when it has one, else its lastmod (zero when
// neither is known).
func (e Entry) Date() time.Time {
	if e.News != nil && !e.News.PublicationDate.IsZero() {
		return e.News.PublicationDate
	}
	return e.LastMod
}

// Options bound the work Parse does. The zero value gives the sitemaps.org
// limits.
type Options struct {
	// MaxBytes caps decoded (decompressed) bytes read; 0 means
	// DefaultMaxBytes (the sitemaps.org limit), negative means no cap. Past
	// it Parse fails with ErrTooLarge after having called fn for the entries
	// seen.
	MaxBytes int64
	// MaxEntries stops Parse after this many entries with Truncated set and
	// no error; 0 means DefaultMaxEntries (the sitemaps.org limit), negative
	// means no limit.
	MaxEntries int
}

// Defaults for Options and the limit on a location's length.
const (
	// DefaultMaxBytes is the sitemaps.org size limit: 50 MiB uncompressed.
	DefaultMaxBytes = 50 << 20
	// DefaultMaxEntries is the sitemaps.org limit of URLs per sitemap.
	DefaultMaxEntries = 50000
	// MaxLocBytes is the longest location accepted; longer ones are Invalid.
	MaxLocBytes = 2048
)

// Result summarises one parsed document.
type Result struct {
	Type      Type
	Gzip      bool      // the input was gzip (detected by magic bytes 1f 8b, never by name or Content-Type)
	Entries   int       // entries passed to fn (URLs for urlset/text/rss/atom, child sitemaps for an index)
	News      int       // entries passed to fn that have a news:news element
	Invalid   int       // entries skipped: empty loc, not an absolute http(s) URL, over MaxLocBytes
	Newest    time.Time // newest LastMod or news publication date among entries passed to fn
	Bytes     int64     // decoded bytes read
	Truncated bool      // stopped at MaxEntries with more entries in the document
}

// IsNews reports whether a Result looks like a news sitemap (at least one
// news:news entry).
func (r Result) IsNews() bool { return r.News > 0 }

// Errors returned by Parse, always wrapped with context; test with errors.Is.
var (
	// ErrNotSitemap: an HTML page, an unknown root element, an empty body,
	// binary content, or a text document without a single URL line.
	ErrNotSitemap = errors.New("not a sitemap")
	// ErrDoctype: the document has a DOCTYPE or ENTITY declaration, refused
	// so that no entity is ever expanded (XXE, billion laughs).
	ErrDoctype = errors.New("DOCTYPE or ENTITY declaration refused")
	// ErrTooLarge: the decoded document is longer than Options.MaxBytes.
	ErrTooLarge = errors.New("sitemap too large")
)

// Parse reads one sitemap document from r as a stream (memory constant in
// document size) and calls fn for each entry in document order; fn returning
// an error stops Parse with that error, unwrapped.
//
// Gzip is detected from the first bytes. The document type is detected from
// the first non-space content after an optional UTF-8 BOM: '<' means XML (the
// root element decides: urlset, sitemapindex, rss, rdf:RDF, feed), anything
// else text (each non-empty line that is an absolute http(s) URL is an entry;
// other lines are Invalid).
//
// The Result is meaningful even with an error: malformed XML, a read error or
// ErrTooLarge after some entries return the Result so far with the error.
func Parse(r io.Reader, opt Options, fn func(Entry) error) (Result, error) {
	var res Result
	if opt.MaxBytes == 0 {
		opt.MaxBytes = DefaultMaxBytes
	}
	if opt.MaxEntries == 0 {
		opt.MaxEntries = DefaultMaxEntries
	}

	var magic [2]byte
	n, err := io.ReadFull(r, magic[:])
	if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
		return res, fmt.Errorf("sitemap: read: %w", err)
	}
	src := io.MultiReader(bytes.NewReader(magic[:n]), r)
	if n == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		res.Gzip = true
		zr, err := gzip.NewReader(src)
		if err != nil {
			// 1f 8b without a gzip header after it: binary, not a sitemap.
			return res, fmt.Errorf("sitemap: gzip: %w: %w", ErrNotSitemap, err)
		}
		defer zr.Close()
		src = zr
	}
	lr := &limitReader{r: src, max: opt.MaxBytes}

	p := &parser{opt: opt, fn: fn, res: &res}
	p.in.init(lr)
	err = p.run()
	res.Bytes = lr.n
	return res, err
}

// parser holds the state shared by the XML and text parsers.
type parser struct {
	opt Options
	fn  func(Entry) error
	res *Result
	in  input
	x   xmlState
}

func (p *parser) run() error {
	typ, err := p.detect()
	if err != nil {
		return err
	}
	if typ == TypeText {
		p.res.Type = TypeText
		return p.runText()
	}
	return p.runXML()
}

// detect skips a UTF-8 BOM and leading white space and reports TypeText, or
// "" for XML.
func (p *parser) detect() (Type, error) {
	in := &p.in
	for in.w-in.r < len(bomBytes) {
		if in.fill() != nil {
			break // the error is sticky and handled below
		}
	}
	if bytes.HasPrefix(in.buf[in.r:in.w], bomBytes) {
		in.r += len(bomBytes)
	}
	for {
		for in.r < in.w && isSpace(in.buf[in.r]) {
			in.r++
		}
		if in.r < in.w {
			if in.buf[in.r] == '<' {
				return "", nil
			}
			return TypeText, nil
		}
		if err := in.fill(); err != nil {
			if err == io.EOF {
				return "", fmt.Errorf("sitemap: empty document: %w", ErrNotSitemap)
			}
			return "", readErr(err)
		}
	}
}

var bomBytes = []byte{0xEF, 0xBB, 0xBF}

// emit validates loc and passes a valid entry to fn. It reports false when
// parsing must stop (MaxEntries reached; fn's error, if any, is in err).
func (p *parser) emit(loc []byte, lastMod time.Time, news *News) (more bool, err error) {
	loc = trimSpace(loc)
	if !validLoc(loc) {
		p.res.Invalid++
		return true, nil
	}
	if p.opt.MaxEntries >= 0 && p.res.Entries >= p.opt.MaxEntries {
		p.res.Truncated = true
		return false, nil
	}
	if err := p.fn(Entry{Loc: string(loc), LastMod: lastMod, News: news}); err != nil {
		return false, err
	}
	p.res.Entries++
	if lastMod.After(p.res.Newest) {
		p.res.Newest = lastMod
	}
	if news != nil {
		p.res.News++
		if news.PublicationDate.After(p.res.Newest) {
			p.res.Newest = news.PublicationDate
		}
	}
	return true, nil
}

// validLoc reports whether loc is an absolute http(s) URL with a host, no
// white space or control characters, and at most MaxLocBytes long.
func validLoc(loc []byte) bool {
	if len(loc) == 0 || len(loc) > MaxLocBytes {
		return false
	}
	var rest []byte
	switch {
	case hasPrefixFold(loc, "https://"):
		rest = loc[8:]
	case hasPrefixFold(loc, "http://"):
		rest = loc[7:]
	default:
		return false
	}
	for _, c := range loc {
		if c <= ' ' || c == 0x7f {
			return false
		}
	}
	auth := rest
	if i := bytes.IndexAny(auth, "/?#"); i >= 0 {
		auth = auth[:i]
	}
	if i := bytes.LastIndexByte(auth, '@'); i >= 0 {
		auth = auth[i+1:]
	}
	host := auth
	if len(host) > 0 && host[0] == '[' {
		return bytes.IndexByte(host, ']') > 1
	}
	if i := bytes.IndexByte(host, ':'); i >= 0 {
		host = host[:i]
	}
	return len(host) > 0
}

// hasPrefixFold reports whether b starts with the lower-case ASCII prefix,
// ignoring ASCII case.
func hasPrefixFold(b []byte, prefix string) bool {
	if len(b) < len(prefix) {
		return false
	}
	for i := 0; i < len(prefix); i++ {
		c := b[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != prefix[i] {
			return false
		}
	}
	return true
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func trimSpace(b []byte) []byte {
	for len(b) > 0 && isSpace(b[0]) {
		b = b[1:]
	}
	for len(b) > 0 && isSpace(b[len(b)-1]) {
		b = b[:len(b)-1]
	}
	return b
}

// readErr wraps an error from the input: ErrTooLarge, an overlong token,
// and decompression or transport failures.
func readErr(err error) error {
	switch {
	case errors.Is(err, ErrTooLarge):
		return fmt.Errorf("sitemap: %w", err)
	case errors.Is(err, errTokenTooLong):
		return fmt.Errorf("sitemap: %w: %w", ErrMalformed, err)
	}
	return fmt.Errorf("sitemap: read: %w", err)
}

// limitReader counts bytes and fails with ErrTooLarge once more than max
// bytes are available (max < 0: no limit).
type limitReader struct {
	r   io.Reader
	max int64
	n   int64
}

func (l *limitReader) Read(b []byte) (int, error) {
	if l.max >= 0 {
		left := l.max - l.n
		if left <= 0 {
			var one [1]byte
			for {
				n, err := l.r.Read(one[:])
				if n > 0 {
					return 0, fmt.Errorf("more than %d decoded bytes: %w", l.max, ErrTooLarge)
				}
				if err != nil {
					return 0, err
				}
			}
		}
		if int64(len(b)) > left {
			b = b[:left]
		}
	}
	n, err := l.r.Read(b)
	l.n += int64(n)
	return n, err
}

// input is a refillable window over the decoded stream; the parsers scan
// buf[r:w] in place and call fill when they need more.
type input struct {
	src  io.Reader
	buf  []byte
	r, w int
	err  error // sticky read error, io.EOF at the end
}

const (
	bufSize     = 64 << 10
	maxTokenLen = 1 << 20 // longest single tag or text line kept whole
)

func (in *input) init(src io.Reader) {
	in.src = src
	in.buf = make([]byte, bufSize)
}

// fill moves the unread bytes to the front, grows the buffer when it is full
// of unread bytes (up to maxTokenLen), and reads at least one byte. It returns
// io.EOF at the end of input.
func (in *input) fill() error {
	if in.err != nil {
		return in.err
	}
	if in.r > 0 {
		n := copy(in.buf, in.buf[in.r:in.w])
		in.r, in.w = 0, n
	}
	if in.w == len(in.buf) {
		if len(in.buf) >= maxTokenLen {
			in.err = errTokenTooLong
			return in.err
		}
		nb := make([]byte, 2*len(in.buf))
		copy(nb, in.buf[:in.w])
		in.buf = nb
	}
	for empty := 0; ; empty++ {
		n, err := in.src.Read(in.buf[in.w:])
		in.w += n
		if err != nil {
			in.err = err
			if n > 0 {
				return nil
			}
			return err
		}
		if n > 0 {
			return nil
		}
		if empty > 100 {
			in.err = io.ErrNoProgress
			return in.err
		}
	}
}

var errTokenTooLong = fmt.Errorf("token longer than %d bytes", maxTokenLen)
