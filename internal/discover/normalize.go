package discover

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxURLLength caps a normalised URL, in bytes. It is the limit of the
// sitemaps protocol, which is where most of our URLs end up; anything longer
// is almost always a tracking blob or a data URL. Inputs over four times as
// long are rejected before any work is done on them.
const MaxURLLength = 2048

const maxInputLength = 4 * MaxURLLength

// NormalizeURL repairs and canonicalises one http or https URL so that two
// spellings of one resource compare equal, and returns it with its host (a
// substring of normalized). It is a pure function of raw; the policies it
// applies are described in the package documentation. An error is always a
// *URLError.
//
// An already normalised URL is returned as the same string, without
// allocating.
func NormalizeURL(raw string) (normalized string, host string, err error) {
	n, h, reason := normalizeURL(raw)
	if reason != "" {
		return "", "", urlError(reason, raw)
	}
	return n, h, nil
}

// NormalizeHost canonicalises a bare host the way NormalizeURL does with
// the host of a URL (the URL Standard's host parser): lower case, A-labels
// (punycode), no dot after the last label, IPv4 addresses in dotted
// decimal, IPv6 addresses in brackets in the standard's form. A bare IPv6
// address is taken as if in brackets. It lets callers that are given a
// domain rather than a URL (an API filter, a test table) compare it with
// stored ones. Whether the host has a registrable domain is
// RegistrableDomain's to say. An error is always a *URLError with
// ReasonInvalidHost.
func NormalizeHost(host string) (string, error) {
	if h := strings.TrimSpace(host); h != "" {
		if strings.IndexByte(h, ':') >= 0 && h[0] != '[' {
			h = "[" + h + "]" // bare IPv6
		}
		var arr [256]byte
		if b, reason := appendHost(arr[:0], h); reason == "" {
			if string(b) == host {
				return host, nil
			}
			return string(b), nil
		}
	}
	return "", urlError(ReasonInvalidHost, host)
}

// normalizeURL does the work of NormalizeURL; reason is "" on success.
//
// Like the URL Standard, it trims leading and trailing C0 controls and
// spaces and removes ASCII tabs and newlines anywhere; it does the removal
// lazily: the scanners report a tab or newline before the fragment as
// reasonTabOrNewline, and only then is the input copied without them and
// scanned again. (A failure for another reason is retried too when the
// input holds one, so that the reason never depends on where it stood.)
func normalizeURL(raw string) (norm, host, reason string) {
	s := trimURLSpace(raw)
	if s == "" {
		return "", "", ReasonEmpty
	}
	if len(s) > maxInputLength {
		return "", "", ReasonTooLong
	}
	norm, host, reason = normalizeTrimmed(s)
	if reason != "" && (reason == reasonTabOrNewline || strings.ContainsAny(s, "\t\n\r")) {
		norm, host, reason = normalizeTrimmed(removeTabsAndNewlines(s))
		if reason == reasonTabOrNewline {
			reason = ReasonInvalidURL // unreachable: none is left
		}
	}
	return norm, host, reason
}

// authClass marks the bytes the authority scan must look at.
var authClass = func() (t [256]bool) {
	for _, c := range "/\\?#@: " {
		t[c] = true
	}
	for c := range ' ' {
		t[c] = true
	}
	t[0x7f] = true
	return t
}()

// reasonTabOrNewline is internal: the input holds an ASCII tab or newline
// before its fragment, which the scanners report instead of scanning twice
// for one up front.
const reasonTabOrNewline = "tab_or_newline"

func isTabOrNewline(c byte) bool { return c == '\t' || c == '\n' || c == '\r' }

// normalizeTrimmed normalises a trimmed, non-empty URL in one pass over
// each part. Every byte before the fragment is seen by one of the scanners
// below, so a tab or newline there is reported as reasonTabOrNewline.
func normalizeTrimmed(s string) (norm, host, reason string) {
	https, rest, reason := splitScheme(s)
	if reason != "" {
		return "", "", reason
	}

	var arr [512]byte
	var buf []byte
	var port string
	var hs, he int
	for {
		buf = arr[:0]
		if https {
			buf = append(buf, "https://"...)
		} else {
			buf = append(buf, "http://"...)
		}

		// Authority: up to the first path, query or fragment delimiter;
		// the last "@" ends the credentials, which never belong in a
		// stored URL. A space or control character in the credentials is
		// allowed (the standard percent-encodes it); in the host or port
		// it is not.
		end, at, colon, bad := len(rest), -1, -1, -1
	scan:
		for i := 0; i < len(rest); i++ {
			c := rest[i]
			if !authClass[c] {
				continue
			}
			switch c {
			case '/', '\\', '?', '#':
				end = i
				break scan
			case '@':
				at, colon = i, -1
			case ':':
				colon = i
			case '\t', '\n', '\r':
				return "", "", reasonTabOrNewline
			default: // space, another C0 control, DEL
				bad = i
			}
		}
		if bad > at {
			return "", "", ReasonInvalidHost
		}
		auth := rest[at+1 : end]
		rest = rest[end:]
		hostRaw := auth
		port = ""
		if colon >= 0 {
			if hostRaw, port, reason = splitHostPort(auth, https); reason != "" {
				return "", "", reason
			}
		}
		hs = len(buf)
		if buf, reason = appendHost(buf, hostRaw); reason != "" {
			return "", "", reason
		}
		he = len(buf)

		// A scheme written twice ("http://http://x", "https://http//x"),
		// which the standard reads as the host "http" and the path "//x":
		// the inner scheme is what the author meant, the outer one was
		// most likely added by a tool. Testing the host as parsed catches
		// every spelling of it ("HTTP.", "http:80" after http://), so no
		// normalised URL reads as a doubled scheme.
		if h := buf[hs:he]; port == "" && len(rest) >= 2 && isSlash(rest[0]) && isSlash(rest[1]) &&
			(string(h) == "http" || string(h) == "https") {
			https = len(h) == len("https")
			rest = skipSlashes(rest)
			continue
		}
		break
	}
	if port != "" {
		buf = append(buf, ':')
		buf = append(buf, port...)
	}

	ps := len(buf)
	i, ok := 0, true
	if buf, i, ok = appendPath(buf, rest); !ok {
		return "", "", reasonTabOrNewline
	}
	if i < len(rest) && rest[i] == '?' {
		if buf, _, ok = appendQuery(buf, rest[i+1:]); !ok {
			return "", "", reasonTabOrNewline
		}
	}
	// What is left is the fragment, dropped unread.

	if h := buf[hs:he]; port == "" && len(buf) >= ps+2 && buf[ps+1] == '/' && (string(h) == "http" || string(h) == "https") {
		// Only dot-segments ("http://http/.//x") get here: the path
		// became "//…" and the URL would read as a doubled scheme.
		// Read it as one now, so that the result normalises to itself.
		return normalizeTrimmed(string(h) + "://" + string(buf[ps+2:]))
	}
	if len(buf) > MaxURLLength {
		return "", "", ReasonTooLong
	}
	if string(buf) == s {
		return s, s[hs:he], ""
	}
	out := string(buf)
	return out, out[hs:he], ""
}

// trimURLSpace removes leading and trailing C0 controls and spaces, as the
// URL Standard does, and also the white space and invisible characters
// that copying from documents leaves behind (no-break and zero-width
// spaces, byte order marks, …).
func trimURLSpace(s string) string {
	for len(s) > 0 {
		c := s[0]
		if c > ' ' && c < utf8.RuneSelf {
			break
		}
		r, n := utf8.DecodeRuneInString(s)
		if c >= utf8.RuneSelf && !isTrimRune(r) {
			break
		}
		s = s[n:]
	}
	for len(s) > 0 {
		c := s[len(s)-1]
		if c > ' ' && c < utf8.RuneSelf {
			break
		}
		r, n := utf8.DecodeLastRuneInString(s)
		if c >= utf8.RuneSelf && !isTrimRune(r) {
			break
		}
		s = s[:len(s)-n]
	}
	return s
}

func isTrimRune(r rune) bool {
	return unicode.IsSpace(r) || r == '\u200b' || r == '\ufeff' || r == '\u2060'
}

// removeTabsAndNewlines drops ASCII tab, CR and LF anywhere, as browsers do
// (URLs wrapped over lines).
func removeTabsAndNewlines(s string) string {
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		if c := s[i]; !isTabOrNewline(c) {
			b = append(b, c)
		}
	}
	return string(b)
}

type schemeKind uint8

const (
	schemeNone schemeKind = iota
	schemeHTTP
	schemeHTTPS
	schemeOther
)

// nonWebSchemes are schemes that are rejected even when what follows them
// looks like a port ("tel:1234" is not the host "tel" on port 1234).
var nonWebSchemes = map[string]bool{
	"about": true, "blob": true, "callto": true, "chrome": true, "data": true, "feed": true,
	"file": true, "ftp": true, "ftps": true, "git": true, "intent": true, "irc": true,
	"javascript": true, "mailto": true, "market": true, "news": true, "sftp": true,
	"skype": true, "sms": true, "ssh": true, "tel": true, "urn": true, "webcal": true,
	"ws": true, "wss": true,
}

// splitScheme finds the scheme of s and returns what follows it and its
// slashes. A missing scheme means https; "http//x" is repaired.
func splitScheme(s string) (https bool, rest string, reason string) {
	var kind schemeKind
	switch {
	case strings.HasPrefix(s, "https://"):
		kind, rest = schemeHTTPS, s[len("https:"):]
	case strings.HasPrefix(s, "http://"):
		kind, rest = schemeHTTP, s[len("http:"):]
	default:
		kind, rest = cutScheme(s)
	}
	switch kind {
	case schemeOther:
		return false, "", ReasonUnsupportedScheme
	case schemeNone:
		if s[0] == ':' {
			return false, "", ReasonInvalidURL
		}
		kind = schemeHTTPS
	}
	return kind == schemeHTTPS, skipSlashes(rest), ""
}

// cutScheme recognises a leading "scheme:". It tells a scheme from a host
// with a port ("example.com:8080/x", "localhost:3000") by the dot in the
// name or the digits after the colon. "http//" counts as "http:".
func cutScheme(s string) (schemeKind, string) {
	if s == "" || !isAlpha(s[0]) {
		return schemeNone, s
	}
	for i := 1; i < len(s); i++ {
		c := s[i]
		if isAlpha(c) || isDigit(c) || c == '+' || c == '-' || c == '.' {
			continue
		}
		name := s[:i]
		switch c {
		case ':':
			after := s[i+1:]
			switch {
			case strings.EqualFold(name, "http"):
				return schemeHTTP, after
			case strings.EqualFold(name, "https"):
				return schemeHTTPS, after
			}
			if len(name) <= 10 && nonWebSchemes[strings.ToLower(name)] {
				return schemeOther, after
			}
			if strings.IndexByte(name, '.') >= 0 || (looksLikePort(after) && !strings.HasPrefix(after, "//")) {
				return schemeNone, s
			}
			return schemeOther, after
		case '/':
			if i+1 < len(s) && s[i+1] == '/' {
				switch {
				case strings.EqualFold(name, "http"):
					return schemeHTTP, s[i:]
				case strings.EqualFold(name, "https"):
					return schemeHTTPS, s[i:]
				}
			}
		}
		return schemeNone, s
	}
	return schemeNone, s
}

// looksLikePort reports whether s starts with a port: digits (maybe none)
// up to the end or a path, query or fragment delimiter.
func looksLikePort(s string) bool {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case isDigit(c):
		case c == '/' || c == '\\' || c == '?' || c == '#':
			return true
		default:
			return false
		}
	}
	return true
}

func isSlash(c byte) bool { return c == '/' || c == '\\' }

func skipSlashes(s string) string {
	for len(s) > 0 && isSlash(s[0]) {
		s = s[1:]
	}
	return s
}

// splitHostPort separates host and port and canonicalises the port: an
// empty or default port is dropped, leading zeros are removed.
func splitHostPort(auth string, https bool) (host, port, reason string) {
	if strings.HasPrefix(auth, "[") {
		j := strings.IndexByte(auth, ']')
		if j < 0 {
			return "", "", ReasonInvalidHost
		}
		host, port = auth[:j+1], auth[j+1:]
		if port != "" {
			if port[0] != ':' {
				return "", "", ReasonInvalidHost
			}
			port = port[1:]
		}
	} else {
		host = auth
		if i := strings.LastIndexByte(auth, ':'); i >= 0 {
			host, port = auth[:i], auth[i+1:]
			if strings.IndexByte(host, ':') >= 0 {
				return "", "", ReasonInvalidHost // an IPv6 address without brackets
			}
		}
	}
	if port == "" {
		return host, "", ""
	}
	for i := 0; i < len(port); i++ {
		if !isDigit(port[i]) {
			return "", "", ReasonInvalidURL
		}
	}
	port = strings.TrimLeft(port, "0")
	if port == "" || len(port) > 5 || (len(port) == 5 && port > "65535") {
		return "", "", ReasonInvalidURL
	}
	if (https && port == "443") || (!https && port == "80") {
		port = ""
	}
	return host, port, ""
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return true
}

func percentDecode(s string) (string, bool) {
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '%' {
			if i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2]) {
				return "", false
			}
			c = unhex(s[i+1])<<4 | unhex(s[i+2])
			i += 2
		}
		b = append(b, c)
	}
	return string(b), true
}

// Character classes of the canonical path and query.
const (
	clsUnreserved = 1 << iota // RFC 3986 unreserved: escapes of these are decoded
	clsPath                   // kept as is in a path segment
	clsQuery                  // kept as is in the query
	clsQueryRun               // kept as is in the query and not "&" or "="
	clsPathStop               // ends a path segment: "/", "\\", and the path: "?", "#"
	clsQueryStop              // structures the query: "&", "=", and ends it: "#"
)

var charClass = func() (t [256]uint8) {
	const word = clsUnreserved | clsPath | clsQuery | clsQueryRun
	for c := 'a'; c <= 'z'; c++ {
		t[c] = word
		t[c-'a'+'A'] = word
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = word
	}
	for _, c := range "-._~" {
		t[c] = word
	}
	for _, c := range "!$&'()*+,;=:@" { // sub-delims, ":" and "@"
		t[c] = clsPath | clsQuery | clsQueryRun
	}
	t['/'] = clsQuery | clsQueryRun | clsPathStop
	t['?'] = clsQuery | clsQueryRun | clsPathStop
	t['\\'] = clsPathStop
	t['#'] = clsPathStop | clsQueryStop
	t['&'] &^= clsQueryRun
	t['&'] |= clsQueryStop
	t['='] &^= clsQueryRun
	t['='] |= clsQueryStop
	return t
}()

const upperHex = "0123456789ABCDEF"

// appendEscaped appends s from i on, with every byte outside class keep
// escaped, existing escapes in upper case, escapes of unreserved characters
// decoded and a stray "%" escaped as "%25" (RFC 3986 §6.2.2). It stops before
// the first byte of class stop and returns its index (len(s) at the end);
// ok is false at a tab or newline.
func appendEscaped(buf []byte, s string, i int, keep, stop uint8) (_ []byte, end int, ok bool) {
	for i < len(s) {
		j := i
		for ; j+4 <= len(s); j += 4 {
			t := s[j : j+4]
			if charClass[t[0]]&charClass[t[1]]&charClass[t[2]]&charClass[t[3]]&keep == 0 {
				break
			}
		}
		for j < len(s) && charClass[s[j]]&keep != 0 {
			j++
		}
		buf = append(buf, s[i:j]...)
		if j == len(s) {
			break
		}
		c := s[j]
		switch {
		case charClass[c]&stop != 0:
			return buf, j, true
		case c == '%' && j+2 < len(s) && isHex(s[j+1]) && isHex(s[j+2]):
			if b := unhex(s[j+1])<<4 | unhex(s[j+2]); charClass[b]&clsUnreserved != 0 {
				buf = append(buf, b)
			} else {
				buf = append(buf, '%', upperHex[b>>4], upperHex[b&15])
			}
			i = j + 3
			continue
		case isTabOrNewline(c):
			return buf, j, false
		}
		buf = append(buf, '%', upperHex[c>>4], upperHex[c&15])
		i = j + 1
	}
	return buf, len(s), true
}

// appendPath appends the canonical form of the http path at the start of
// p, which ends at "?", "#" or the end of p: "/" when empty, backslashes read
// as slashes, escapes normalised and dot-segments removed (RFC 3986 §5.2.4,
// with "%2e" counting as "."). It returns where the path ended in p; ok is
// false at a tab or newline.
func appendPath(buf []byte, p string) (_ []byte, end int, ok bool) {
	root := len(buf)
	buf = append(buf, '/')
	i := 0
	if p != "" && (p[0] == '/' || p[0] == '\\') {
		i = 1
	}
	for {
		seg := len(buf)
		if buf, i, ok = appendEscaped(buf, p, i, clsPath, clsPathStop); !ok {
			return buf, i, false
		}
		last := i == len(p) || p[i] == '?' || p[i] == '#'
		if n := len(buf) - seg; n <= 2 && n > 0 && buf[seg] == '.' && buf[len(buf)-1] == '.' {
			buf = buf[:seg]
			if n == 2 && seg-1 > root {
				// "..": drop the previous segment, keeping the slash before it.
				k := seg - 2
				for buf[k] != '/' {
					k--
				}
				buf = buf[:k+1]
			}
		} else if !last {
			buf = append(buf, '/')
		}
		if last {
			return buf, i, true
		}
		i++
	}
}

// appendQuery appends "?" and the canonical form of the query at the start
// of q, which ends at "#" or the end of q: without empty parameters and
// tracking parameters, the rest in their original order; nothing when no
// parameter is left. It returns where the query ended in q; ok is false at
// a tab or newline.
func appendQuery(buf []byte, q string) (_ []byte, end int, ok bool) {
	start := len(buf)
	buf = append(buf, '?')
	kept := false
	i := 0
	for {
		// One parameter; afterwards q[i] is "&" or "#", or i is the end.
		before := len(buf)
		if kept {
			buf = append(buf, '&')
		}
		k, keyEnd := len(buf), -1
		for {
			if buf, i, ok = appendEscaped(buf, q, i, clsQueryRun, clsQueryStop); !ok {
				return buf, i, false
			}
			if i == len(q) || q[i] != '=' {
				break
			}
			if keyEnd < 0 {
				keyEnd = len(buf)
			}
			buf = append(buf, '=')
			i++
		}
		if keyEnd < 0 {
			keyEnd = len(buf)
		}
		if len(buf) == k || isTrackingParam(buf[k:keyEnd]) {
			buf = buf[:before] // empty or tracking
		} else {
			kept = true
		}
		if i == len(q) || q[i] == '#' {
			break
		}
		i++ // "&"
	}
	if !kept {
		buf = buf[:start]
	}
	return buf, i, true
}

func isAlpha(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
func isLower(c byte) bool { return 'a' <= c && c <= 'z' }
func isDigit(c byte) bool { return '0' <= c && c <= '9' }
func isHex(c byte) bool   { return isDigit(c) || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' }

func unhex(c byte) byte {
	switch {
	case isDigit(c):
		return c - '0'
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10
	}
	return c - 'A' + 10
}
