package warc

import (
	"regexp"
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
	url = wwwRE.ReplaceAllString(url, "$1")
	u, err := whatwg.Parse(jsToLower(url))
	if err != nil {
		return url
	}
	labels := strings.Split(u.Hostname(), ".")
	slices.Reverse(labels)
	var b strings.Builder
	b.WriteString(strings.Join(labels, ","))
	if p := u.Port(); p != "" {
		b.WriteByte(':')
		b.WriteString(p)
	}
	b.WriteByte(')')
	b.WriteString(u.Pathname())
	if q := u.Search(); q != "" {
		// The parser leaves a query ASCII, where byte order is
		// JavaScript's UTF-16 order.
		args := strings.Split(q[1:], "&")
		slices.Sort(args)
		b.WriteByte('?')
		b.WriteString(strings.Join(args, "&"))
	}
	return b.String()
}

var wwwRE = regexp.MustCompile(`^(https?://)www[0-9]*\.`)

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
