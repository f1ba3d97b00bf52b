package robots

import "strings"

// rule is one Allow or Disallow line after escaping. Rules are kept sorted
// by decreasing pattern length with Allow before Disallow at equal length, so
// the first rule that matches a path decides the answer.
type rule struct {
	pattern  string // escaped pattern as written (its length is the priority)
	body     string // pattern without a trailing '$'
	allow    bool
	anchored bool // pattern ended in '$'
	wild     bool // body contains '*'
}

func newRule(pattern string, allow bool) rule {
	r := rule{pattern: pattern, body: pattern, allow: allow}
	if n := len(pattern); n > 0 && pattern[n-1] == '$' {
		r.anchored = true
		r.body = pattern[:n-1]
	}
	r.wild = strings.IndexByte(r.body, '*') >= 0
	return r
}

func (r *rule) matches(path string) bool {
	if !r.wild {
		if r.anchored {
			return path == r.body
		}
		return strings.HasPrefix(path, r.body)
	}
	return matchWild(r.body, r.anchored, path)
}

// compareRules orders rules for first-match evaluation: longer patterns
// first, and Allow before Disallow when the lengths are equal.
func compareRules(a, b rule) int {
	if len(a.pattern) != len(b.pattern) {
		return len(b.pattern) - len(a.pattern)
	}
	if a.allow != b.allow {
		if a.allow {
			return -1
		}
		return 1
	}
	return 0
}

// Match reports whether the robots.txt path pattern matches path, with
// Google's and RFC 9309's semantics: the pattern is anchored at the start of
// path, '*' matches any run of bytes (including none), and '$' anchors the
// end of path only when it is the last byte of the pattern (elsewhere it is a
// literal '$'). Both arguments are compared byte for byte, so callers
// normalise them first (see EscapePattern). An empty pattern matches every
// path; Group.Allowed nevertheless ignores empty rules, as RFC 9309 asks.
func Match(pattern, path string) bool {
	r := newRule(pattern, false)
	return r.matches(path)
}

// matchWild matches a pattern body containing '*'. Matching each literal
// segment at its leftmost possible position is exact for '*'-only globs, and
// runs in O(len(path)*len(pattern)) at worst without allocating.
func matchWild(body string, anchored bool, path string) bool {
	star := strings.IndexByte(body, '*')
	if !strings.HasPrefix(path, body[:star]) {
		return false
	}
	path = path[star:]
	body = body[star+1:]
	for {
		star = strings.IndexByte(body, '*')
		if star < 0 {
			if anchored {
				return strings.HasSuffix(path, body)
			}
			return strings.Contains(path, body)
		}
		seg := body[:star]
		i := strings.Index(path, seg)
		if i < 0 {
			return false
		}
		path = path[i+len(seg):]
		body = body[star+1:]
	}
}

const upperHex = "0123456789ABCDEF"

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func toUpperASCII(c byte) byte {
	if 'a' <= c && c <= 'z' {
		return c - ('a' - 'A')
	}
	return c
}

func toLowerASCII(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + ('a' - 'A')
	}
	return c
}

// needsEscape reports whether EscapePattern would change s.
func needsEscape(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x80 {
			return true
		}
		if c == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]) {
			if s[i+1] >= 'a' || s[i+2] >= 'a' {
				return true
			}
			i += 2
		}
	}
	return false
}

// EscapePattern normalises a path or pattern the way Google's robots.txt
// parser does (MaybeEscapePattern in robots.cc): the hex digits of an
// existing %-escape are upper-cased ("%aa" → "%AA") and every byte >= 0x80 is
// %-escaped ("á" → "%C3%A1"). Nothing is decoded: "%2F" stays distinct from
// "/" and "%62" from "b", as RFC 3986 makes them distinct URIs. Allowed
// applies it to both the rules (at parse time) and the URL being checked.
func EscapePattern(s string) string {
	if !needsEscape(s) {
		return s
	}
	return string(appendEscaped(make([]byte, 0, len(s)+16), s))
}

func appendEscaped(dst []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]):
			dst = append(dst, '%', toUpperASCII(s[i+1]), toUpperASCII(s[i+2]))
			i += 2
		case c >= 0x80:
			dst = append(dst, '%', upperHex[c>>4], upperHex[c&0xf])
		default:
			dst = append(dst, c)
		}
	}
	return dst
}

// PathQuery extracts the part of rawURL that robots.txt rules are matched
// against: path, params and query, without scheme, authority and fragment.
// The result always starts with "/"; it is "/" when rawURL has no path or
// cannot be understood. It follows Google's GetPathParamsQuery, so it also
// accepts scheme-less input ("example.com/a?b" → "/a?b") and a bare path.
// It does not escape; Allowed does that afterwards.
func PathQuery(rawURL string) string {
	start := 0
	if strings.HasPrefix(rawURL, "//") {
		start = 2
	}
	rest := rawURL[start:]
	early := strings.IndexAny(rest, "/?;")
	proto := strings.Index(rest, "://")
	afterProto := 0
	if proto >= 0 && (early < 0 || proto < early) {
		afterProto = proto + 3
	}
	pathStart := strings.IndexAny(rest[afterProto:], "/?;")
	if pathStart < 0 {
		return "/"
	}
	pathStart += afterProto
	end := len(rest)
	if hash := strings.IndexByte(rest, '#'); hash >= 0 {
		if hash < pathStart {
			return "/"
		}
		end = hash
	}
	p := rest[pathStart:end]
	if p[0] != '/' {
		return "/" + p
	}
	return p
}

// isProductTokenByte reports whether c may appear in a user-agent product
// token as Google reads it: [A-Za-z_-].
func isProductTokenByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '-' || c == '_'
}

// ProductToken returns the leading run of [A-Za-z_-] in s: the part of a
// robots.txt user-agent value that Google (and this package) matches
// against, e.g. "Googlebot" for "Googlebot/2.1" and "Foo" for "Foo Bar". It is
// also how a caller can turn a full User-Agent header value into the token
// to pass to Robots.Group and Robots.Allowed.
func ProductToken(s string) string {
	i := 0
	for i < len(s) && isProductTokenByte(s[i]) {
		i++
	}
	return s[:i]
}

// ValidProductToken reports whether s is a non-empty product token made only
// of [A-Za-z_-], the form RFC 9309 asks crawlers to use for their own name.
func ValidProductToken(s string) bool {
	return s != "" && ProductToken(s) == s
}

// lowerASCII lower-cases ASCII letters only; Unicode case folding would let
// e.g. the Kelvin sign match "k".
func lowerASCII(s string) string {
	for i := 0; i < len(s); i++ {
		if 'A' <= s[i] && s[i] <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				b[j] = toLowerASCII(b[j])
			}
			return string(b)
		}
	}
	return s
}

// isRobotsTxt reports whether the escaped path-and-query names /robots.txt
// itself, which RFC 9309 §2.2.2 makes implicitly allowed.
func isRobotsTxt(p string) bool {
	const name = "/robots.txt"
	return p == name || strings.HasPrefix(p, name) && p[len(name)] == '?'
}
