package warc

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	whatwg "github.com/nlnwa/whatwg-url/url"
)

// TargetURI is rawURL as the writer records it in WARC-Target-URI: the
// URL as the WHATWG URL Standard serialises it, what a browser's (or
// Node's) new URL(rawURL).href gives, without the fragment. So spaces,
// '"', '<', '>', controls and non-ASCII in the path and query are
// percent-encoded (UTF-8, upper-case hex), the scheme and host are
// lowercased, an IDN host is in punycode, dot segments are resolved and
// the default port is dropped:
//
//	HTTP://Bücher.example:80/a/../<b> c?q="x"#top  →  http://xn--bcher-kva.example/%3Cb%3E%20c?q=%22x%22
//
// The browser's serialisation, not a stricter RFC 3986 one, because
// replayweb.page looks a page up by the SURT of the URL the browser
// asks for: a target written any other way would not be found. So
// TargetURI leaves '{', '}', '|', '^', '`' and '\' in a query as the
// standard does. One exception: the standard lets a '"' through in a
// host (http://a"b.example/), and TargetURI percent-encodes it there,
// so that a target never holds a space, control, non-ASCII, '"', '<' or
// '>'.
//
// A URL of a non-special scheme (mailto:, urn:, …), whose opaque path
// the standard keeps nearly as written, and a string that does not
// parse as a URL have every byte outside RFC 3986's characters
// (unreserved, reserved and '%') percent-encoded instead; when the
// string parses once so encoded, it is serialised as such a URL.
// TargetURI of its own result gives that result back.
func TargetURI(rawURL string) string {
	if u, ok := plainURL(rawURL); ok {
		return u.href
	}
	return parsedTargetURI(rawURL)
}

// parsedTargetURI is TargetURI by the WHATWG parser, for any string.
func parsedTargetURI(rawURL string) string {
	u, err := whatwg.Parse(rawURL)
	if err != nil {
		// Encoded, it may parse (a://a b has a space in its host).
		escaped := percentEncode(rawURL, notURIChar)
		if u, err = whatwg.Parse(escaped); err != nil {
			return escaped
		}
	}
	href := u.Href(true)
	if !u.IsSpecialScheme() {
		return percentEncode(href, notURIChar)
	}
	return percentEncode(href, func(c byte) bool {
		return c <= ' ' || c >= 0x7f || c == '"' || c == '<' || c == '>'
	})
}

// percentEncode percent-encodes, in upper-case hex, the bytes of s for
// which encode is true.
func percentEncode(s string, encode func(byte) bool) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !encode(c) {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hex[c>>4])
		b.WriteByte(hex[c&0xf])
	}
	return b.String()
}

// notURIChar: c is not one of RFC 3986's characters (unreserved,
// reserved, '%').
func notURIChar(c byte) bool {
	return c >= utf8.RuneSelf || !isURIChar[c]
}

var isURIChar = func() (t [utf8.RuneSelf]bool) {
	for _, c := range "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~:/?#[]@!$&'()*+,;=%" {
		t[c] = true
	}
	return t
}()

// SURT is the CDX(J) key of a URL as warcio.js's CDXIndexer computes it
// (warcio cdx-index, 2.4.11), which is the key replayweb.page looks a
// URL up with. For an http: or https: URL: a leading www, www1, … of
// the host dropped (as written, before lowercasing), the whole URL
// lowercased, then parsed by the WHATWG URL Standard; the host's labels
// reversed and joined by ',', a non-default port after ':', ')', the
// path, and the query's '&'-separated arguments sorted. So
//
//	https://www.Example.com/a/?b=1&A=2#top  →  com,example)/a/?a=2&b=1
//
// Unlike pywb's key it keeps a trailing slash, empty and repeated
// arguments and session ids, and does not decode percent-encoding.
// Any other URL, and one that does not parse, is returned as it is
// (after the www step).
func SURT(url string) string {
	if !strings.HasPrefix(url, "https:") && !strings.HasPrefix(url, "http:") {
		return url
	}
	url = dropWWW(url)
	lower := jsToLower(url)
	if u, ok := plainURL(lower); ok {
		return surtKey(u.host, "", u.path, u.query)
	}
	return parsedSURT(url, lower)
}

// parsedSURT is SURT by the WHATWG parser of lower, url lowercased, after
// its www step.
func parsedSURT(url, lower string) string {
	u, err := whatwg.Parse(lower)
	if err != nil {
		return url
	}
	q := u.Search()
	if q != "" {
		q = q[1:]
	}
	return surtKey(u.Hostname(), u.Port(), u.Pathname(), q)
}

// surtKey is the SURT of a parsed URL's parts: the host's labels
// reversed, the port, ')', the path, and the query's arguments sorted.
func surtKey(host, port, path, query string) string {
	labels := strings.Split(host, ".")
	slices.Reverse(labels)
	var b strings.Builder
	b.Grow(len(host) + len(port) + len(path) + len(query) + 3)
	for i, l := range labels {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(l)
	}
	if port != "" {
		b.WriteByte(':')
		b.WriteString(port)
	}
	b.WriteByte(')')
	b.WriteString(path)
	if query != "" {
		// The parser leaves a query ASCII, where byte order is
		// JavaScript's UTF-16 order.
		args := strings.Split(query, "&")
		slices.Sort(args)
		b.WriteByte('?')
		for i, a := range args {
			if i > 0 {
				b.WriteByte('&')
			}
			b.WriteString(a)
		}
	}
	return b.String()
}

// dropWWW drops a leading www, www1, … label of an http(s) URL's host as
// written: warcio's /^(https?:\/\/)www\d*\./ replacement.
func dropWWW(url string) string {
	for _, scheme := range []string{"http://", "https://"} {
		rest, ok := strings.CutPrefix(url, scheme)
		if !ok {
			continue
		}
		if rest, ok = strings.CutPrefix(rest, "www"); ok {
			if rest, ok = strings.CutPrefix(strings.TrimLeft(rest, "0123456789"), "."); ok {
				return scheme + rest
			}
		}
		return url
	}
	return url
}

// plain is an http(s) URL that the WHATWG URL parser serialises as it
// is written, but for its fragment.
type plain struct {
	href       string // the URL without its fragment
	host, path string
	query      string // without its '?'; empty when there is none
}

// plainURL reports whether s is such a URL, which TargetURI and SURT
// then take as it is rather than parse it (the parser was most of their
// cost): the scheme http or https and the host in lower case; a host of
// labels of a–z, 0–9 and inner '-' (no A-label, "xn--", which the
// parser checks, nor any other "ab--"), the last starting with a letter
// (so no IPv4 address); no user info, no port, a path; a path and query
// of characters the standard leaves as they are (RFC 3986's unreserved
// and sub-delimiters but the apostrophe, which it encodes in a query;
// ':', '@', '/', '%', and '?' in the query), and no dot segment, "%2e"
// included. Anything else goes to the parser; the tests hold the two to
// one answer.
func plainURL(s string) (plain, bool) {
	var rest string
	switch {
	case strings.HasPrefix(s, "https://"):
		rest = s[len("https://"):]
	case strings.HasPrefix(s, "http://"):
		rest = s[len("http://"):]
	default:
		return plain{}, false
	}
	slash := strings.IndexByte(rest, '/')
	if slash <= 0 || !plainHost(rest[:slash]) {
		return plain{}, false
	}
	u := plain{href: s, host: rest[:slash]}
	rest = rest[slash:]
	if i := strings.IndexByte(rest, '#'); i >= 0 {
		u.href = s[:len(s)-len(rest)+i]
		rest = rest[:i]
	}
	u.path = rest
	if i := strings.IndexByte(rest, '?'); i >= 0 {
		u.path, u.query = rest[:i], rest[i+1:]
	}
	for i := 0; i < len(u.path); i++ {
		if !plainChar[u.path[i]] {
			return plain{}, false
		}
	}
	for i := 0; i < len(u.query); i++ {
		if c := u.query[i]; !plainChar[c] && c != '?' {
			return plain{}, false
		}
	}
	for seg := range strings.SplitSeq(u.path, "/") {
		if seg != "" && len(seg) <= 6 && strings.Trim(strings.ReplaceAll(strings.ToLower(seg), "%2e", "."), ".") == "" {
			return plain{}, false // ".", "..", "%2e", ".%2E", …
		}
	}
	return u, true
}

// plainHost reports whether h is a host of a plainURL.
func plainHost(h string) bool {
	for label := range strings.SplitSeq(h, ".") {
		n := len(label)
		if n == 0 || label[0] == '-' || label[n-1] == '-' || n >= 4 && label[2] == '-' && label[3] == '-' {
			return false
		}
		for i := 0; i < n; i++ {
			if c := label[i]; !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-') {
				return false
			}
		}
	}
	last := h[strings.LastIndexByte(h, '.')+1:]
	return 'a' <= last[0] && last[0] <= 'z'
}

// plainChar: c stands as written in a plainURL's path and query.
var plainChar = func() (t [256]bool) {
	for _, c := range "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~!$&()*+,;=:@/%" {
		t[c] = true
	}
	return t
}()

// jsToLower lowercases s as JavaScript's toLowerCase does: Unicode's
// full case mapping, which differs from Go's simple one in U+0130
// (İ → i̇) and in a capital sigma that ends a word (Σ → ς).
func jsToLower(s string) string {
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		return strings.ToLower(s)
	}
	rs := []rune(s)
	var b strings.Builder
	for i, r := range rs {
		switch {
		case r == 'İ':
			b.WriteString("i\u0307")
		case r == 'Σ' && isFinalSigma(rs, i):
			b.WriteRune('ς')
		default:
			b.WriteRune(unicode.ToLower(r))
		}
	}
	return b.String()
}

// isFinalSigma is Unicode's Final_Sigma condition for rs[i]: a cased
// letter before it and none after it, skipping case-ignorable ones.
func isFinalSigma(rs []rune, i int) bool {
	before := false
	for j := i - 1; j >= 0; j-- {
		if !isCaseIgnorable(rs[j]) {
			before = isCased(rs[j])
			break
		}
	}
	if !before {
		return false
	}
	for _, r := range rs[i+1:] {
		if !isCaseIgnorable(r) {
			return !isCased(r)
		}
	}
	return true
}

func isCased(r rune) bool {
	return unicode.In(r, unicode.Lu, unicode.Ll, unicode.Lt, unicode.Other_Lowercase, unicode.Other_Uppercase)
}

// isCaseIgnorable is Unicode's Case_Ignorable: the general categories
// Mn, Me, Cf, Lm and Sk, and the Word_Break classes MidLetter,
// MidNumLet and Single_Quote, which Go's unicode package does not hold.
func isCaseIgnorable(r rune) bool {
	switch r {
	case '\'', '.', ':', '\u00b7', '\u0387', '\u055f', '\u05f4', '\u2018', '\u2019', '\u2024', '\u2027',
		'\ufe13', '\ufe52', '\ufe55', '\uff07', '\uff0e', '\uff1a':
		return true
	}
	return unicode.In(r, unicode.Mn, unicode.Me, unicode.Cf, unicode.Lm, unicode.Sk)
}
