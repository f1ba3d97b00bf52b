package warc

import (
	"cmp"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/idna"
)

// SURT is the CDX search key of a URL as pywb writes it: the Python surt
// package's default (Google's canonicalisation, then the Internet
// Archive's), without the scheme and without the trailing comma. So
//
//	https://www.Example.com/a/?b=1&A=2#top  →  com,example)/a?a=2&b=1
//
// Host lowercased and reversed, a leading www, www1, … dropped, default
// port dropped, path and query percent-decoded and re-encoded once and
// lowercased, dot segments and empty segments removed, a trailing slash
// dropped, session ids (jsessionid, phpsessid, sid, aspsessionid,
// cfid+cftoken) dropped, query arguments sorted, fragment dropped. A URL
// without a host (mailto:, dns:) is returned as it is, and one that does
// not parse is returned as it is, as pywb's indexer does.
func SURT(rawURL string) string {
	s := strings.TrimSpace(rawURL)
	s = strings.NewReplacer("\n", "", "\r", "", "\t", "").Replace(s)
	if s == "" {
		return "-"
	}
	if strings.HasPrefix(s, "filedesc") {
		return s
	}
	if !schemeRE.MatchString(s) {
		s = "http://" + s
	}
	s = repeatedHTTPRE.ReplaceAllString(s, "$1")
	u, ok := parseHandyURL(s)
	if !ok {
		return rawURL
	}
	if u.host == "" {
		return s
	}
	u.canonicalize()

	var b strings.Builder
	labels := strings.Split(u.host, ".")
	slices.Reverse(labels)
	b.WriteString(strings.Join(labels, ","))
	if u.port >= 0 {
		fmt.Fprintf(&b, ":%d", u.port)
	}
	b.WriteByte(')')
	if u.path != "" {
		b.WriteString(u.path)
	} else if u.hasQuery {
		b.WriteByte('/')
	}
	if u.hasQuery {
		b.WriteByte('?')
		b.WriteString(u.query)
	}
	return b.String()
}

var (
	schemeRE       = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9+\-.]*:`)
	repeatedHTTPRE = regexp.MustCompile(`^(https?://)+`)
	wwwRE          = regexp.MustCompile(`^www\d*\.`)
	decimalIPRE    = regexp.MustCompile(`^[1-9][0-9]*(\.[0-9]+)?(\.[0-9]+)?(\.[0-9]+)?$`)
	octalIPRE      = regexp.MustCompile(`^0[0-7]*(\.[0-7]+)?(\.[0-7]+)?(\.[0-7]+)?$`)

	pathSessionRE = []*regexp.Regexp{
		regexp.MustCompile(`(?i)^(.*/)(\((?:[a-z]\([0-9a-z]{24}\))+\)/)([^?]+\.aspx.*)$`),
		regexp.MustCompile(`(?i)^(.*/)(\([0-9a-z]{24}\)/)([^?]+\.aspx.*)$`),
	}
	querySessionRE = []*regexp.Regexp{
		regexp.MustCompile(`(?i)^(.*)(?:jsessionid=[0-9a-zA-Z]{32})(?:&(.*))?$`),
		regexp.MustCompile(`(?i)^(.*)(?:phpsessid=[0-9a-zA-Z]{32})(?:&(.*))?$`),
		regexp.MustCompile(`(?i)^(.*)(?:sid=[0-9a-zA-Z]{32})(?:&(.*))?$`),
		regexp.MustCompile(`(?i)^(.*)(?:ASPSESSIONID[a-zA-Z]{8}=[a-zA-Z]{24})(?:&(.*))?$`),
		regexp.MustCompile(`(?i)^(.*)(?:cfid=[^&]+&cftoken=[^&]+)(?:&(.*))?$`),
	}
)

// handyURL is the surt package's parsed URL; port is -1 when absent.
type handyURL struct {
	scheme, host, path, query string
	hasQuery                  bool
	port                      int
}

// parseHandyURL splits s as Python's urlsplit does for surt's handyurl.
func parseHandyURL(s string) (handyURL, bool) {
	u := handyURL{port: -1}
	i := strings.IndexByte(s, ':')
	u.scheme, s = strings.ToLower(s[:i]), s[i+1:]
	var netloc string
	if strings.HasPrefix(s, "//") {
		s = s[2:]
		end := strings.IndexAny(s, "/?#")
		if end < 0 {
			end = len(s)
		}
		netloc, s = s[:end], s[end:]
	}
	s, _, _ = strings.Cut(s, "#")
	s, u.query, u.hasQuery = strings.Cut(s, "?")
	if u.query == "" {
		u.hasQuery = false
	}
	u.path = s

	netloc = strings.TrimRight(netloc, ":")
	if at := strings.LastIndexByte(netloc, '@'); at >= 0 {
		netloc = netloc[at+1:]
	}
	var port string
	if strings.HasPrefix(netloc, "[") {
		end := strings.IndexByte(netloc, ']')
		if end < 0 {
			return u, false
		}
		u.host, port = netloc[1:end], strings.TrimPrefix(netloc[end+1:], ":")
	} else {
		u.host, port, _ = strings.Cut(netloc, ":")
	}
	u.host = strings.ToLower(u.host)
	if port != "" {
		n, err := strconv.Atoi(port)
		if err != nil || n < 0 || n > 65535 {
			return u, false
		}
		u.port = n
	}
	if u.host == "" && strings.HasPrefix(u.scheme, "http") && u.path != "" {
		// http:////www.example.com: the host ended up in the path.
		h, rest, _ := strings.Cut(strings.TrimLeft(u.path, "/"), "/")
		u.host, u.path = h, "/"+rest
	}
	return u, true
}

// canonicalize applies the surt package's GoogleURLCanonicalizer and then
// its IAURLCanonicalizer with their default options.
func (u *handyURL) canonicalize() {
	// Google.
	if u.hasQuery {
		u.query = escapeOnce(unescapeRepeatedly(u.query))
	}
	host := unescapeRepeatedly(u.host)
	if !isASCII(host) {
		if a, err := idna.ToASCII(strings.ToValidUTF8(host, "")); err == nil {
			host = a
		}
	}
	host = strings.Trim(strings.ReplaceAll(host, "..", "."), ".")
	if ip, ok := attemptIPFormats(host); ok {
		host = ip
	} else {
		host = escapeOnce(strings.ToLower(host))
	}
	u.host = host
	u.path = escapeOnce(normalizePath(unescapeRepeatedly(u.path)))

	// Internet Archive.
	u.host = wwwRE.ReplaceAllString(strings.ToLower(u.host), "")
	if (u.scheme == "http" && u.port == 80) || (u.scheme == "https" && u.port == 443) {
		u.port = -1
	}
	u.path = strings.ToLower(u.path)
	for _, re := range pathSessionRE {
		if m := re.FindStringSubmatch(u.path); m != nil {
			u.path = m[1] + m[3]
		}
	}
	if len(u.path) > 1 && strings.HasSuffix(u.path, "/") {
		u.path = u.path[:len(u.path)-1]
	}
	if u.hasQuery {
		for _, re := range querySessionRE {
			if m := re.FindStringSubmatch(u.query); m != nil {
				u.query = m[1] + m[2]
			}
		}
		u.query = alphaReorderQuery(strings.ToLower(u.query))
		u.hasQuery = u.query != ""
	}
}

// normalizePath removes dot segments and empty segments, keeping a
// trailing slash.
func normalizePath(p string) string {
	if p == "" {
		return "/"
	}
	var kept []string
	for _, seg := range strings.Split(p, "/")[1:] {
		switch seg {
		case ".":
		case "..":
			if len(kept) > 0 {
				kept = kept[:len(kept)-1]
			} else {
				kept = append(kept, seg)
			}
		default:
			kept = append(kept, seg)
		}
	}
	var b strings.Builder
	b.WriteByte('/')
	for i, seg := range kept {
		if i == len(kept)-1 {
			b.WriteString(seg)
		} else if seg != "" {
			b.WriteString(seg)
			b.WriteByte('/')
		}
	}
	return b.String()
}

// alphaReorderQuery sorts the arguments as Python sorts (name, value)
// tuples, an argument without '=' before one with.
func alphaReorderQuery(q string) string {
	if len(q) <= 1 {
		return q
	}
	type arg struct {
		name, value string
		hasValue    bool
	}
	var args []arg
	for _, a := range strings.Split(q, "&") {
		n, v, ok := strings.Cut(a, "=")
		args = append(args, arg{n, v, ok})
	}
	slices.SortStableFunc(args, func(a, b arg) int {
		if c := strings.Compare(a.name, b.name); c != 0 {
			return c
		}
		if a.hasValue != b.hasValue {
			if a.hasValue {
				return 1
			}
			return -1
		}
		return cmp.Compare(a.value, b.value)
	})
	parts := make([]string, len(args))
	for i, a := range args {
		parts[i] = a.name
		if a.hasValue {
			parts[i] += "=" + a.value
		}
	}
	return strings.Join(parts, "&")
}

// attemptIPFormats reads a host that is all digits, or dotted decimal or
// octal, as inet_aton does, and gives it as a dotted quad.
func attemptIPFormats(host string) (string, bool) {
	if host == "" {
		return "", false
	}
	if strings.Trim(host, "0123456789") == "" {
		n, err := strconv.ParseUint(host, 10, 64)
		if err != nil {
			return "", false
		}
		return dottedQuad(uint32(n)), true
	}
	if !decimalIPRE.MatchString(host) && !octalIPRE.MatchString(host) {
		return "", false
	}
	parts := strings.Split(host, ".")
	nums := make([]uint64, len(parts))
	for i, p := range parts {
		base := 10
		if len(p) > 1 && p[0] == '0' {
			base = 8
		}
		n, err := strconv.ParseUint(p, base, 32)
		if err != nil {
			return "", false
		}
		nums[i] = n
	}
	var v uint64
	last := len(nums) - 1
	for i, n := range nums[:last] {
		if n > 255 {
			return "", false
		}
		v |= n << (24 - 8*i)
	}
	if nums[last] >= 1<<(32-8*last) {
		return "", false
	}
	return dottedQuad(uint32(v | nums[last])), true
}

func dottedQuad(v uint32) string {
	return fmt.Sprintf("%d.%d.%d.%d", v>>24, v>>16&0xff, v>>8&0xff, v&0xff)
}

// unescapeRepeatedly percent-decodes until nothing changes; a '%' not
// followed by two hex digits stays.
func unescapeRepeatedly(s string) string {
	for {
		u := unquote(s)
		if u == s {
			return s
		}
		s = u
	}
}

func unquote(s string) string {
	if !strings.Contains(s, "%") {
		return s
	}
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]) {
			b = append(b, unhex(s[i+1])<<4|unhex(s[i+2]))
			i += 2
			continue
		}
		b = append(b, s[i])
	}
	return string(b)
}

// escapeOnce percent-encodes, in upper-case hex, every byte outside
// printable ASCII, and space, '#' and '%'.
func escapeOnce(s string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c <= ' ' || c >= 0x7f || c == '#' || c == '%' {
			b.WriteByte('%')
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&0xf])
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case c >= 'a':
		return c - 'a' + 10
	case c >= 'A':
		return c - 'A' + 10
	}
	return c - '0'
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}
