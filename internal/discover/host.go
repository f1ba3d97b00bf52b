package discover

import (
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/idna"
)

// The host of a URL is read as the WHATWG URL Standard's host parser reads
// the host of an http or https URL (https://url.spec.whatwg.org/#host-parsing),
// so that a host means here what it means to a browser. The parser below
// follows the standard's steps; only the serialisation of a domain differs,
// by dropping the dot of a fully qualified name ("example.com." is
// "example.com").

// whatwgIDNA is Unicode ToASCII with the options of the standard's "domain
// to ASCII" with beStrict false: CheckHyphens=false, CheckBidi=true,
// CheckJoiners=true, UseSTD3ASCIIRules=false, Transitional_Processing=false,
// VerifyDnsLength=false, IgnoreInvalidPunycode=false (x/net/idna always
// fails on invalid Punycode). MapForLookup comes first because it turns on
// the UTS 46 mapping and label validation and with them CheckHyphens and
// UseSTD3ASCIIRules, which the options after it turn off again.
var whatwgIDNA = idna.New(
	idna.MapForLookup(),
	idna.BidiRule(),
	idna.CheckHyphens(false),
	idna.CheckJoiners(true),
	idna.StrictDomainName(false),
	idna.Transitional(false),
	idna.VerifyDNSLength(false),
)

// Byte classes of domains, for appendHost.
const (
	hcOther     = iota // allowed in a domain, kept as it is: !"$&'()*+,;=`{}~
	hcWord             // a-z 0-9 _
	hcUpper            // A-Z
	hcHyphen           // -
	hcDot              // .
	hcForbidden        // a forbidden domain code point: C0 controls, space, # % / : < > ? @ [ \ ] ^ | and DEL
	hcHigh             // a byte of a non-ASCII character
)

var hostClass = func() (t [256]uint8) {
	for c := 'a'; c <= 'z'; c++ {
		t[c] = hcWord
		t[c-'a'+'A'] = hcUpper
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = hcWord
	}
	t['_'] = hcWord
	t['-'] = hcHyphen
	t['.'] = hcDot
	for c := range ' ' + 1 {
		t[c] = hcForbidden
	}
	for _, c := range "#%/:<>?@[\\]^|\x7f" {
		t[c] = hcForbidden
	}
	for c := utf8.RuneSelf; c < 256; c++ {
		t[c] = hcHigh
	}
	return t
}()

// appendHost appends the host h (the authority without credentials and
// port) as the URL Standard's host parser reads it, or gives the reason it
// is not a host: ReasonInvalidHost wherever the standard fails.
//
//   - "[…]" is an IPv6 address, serialised as the standard does (RFC 5952
//     form, "::" for the first longest run of two or more zero pieces,
//     embedded IPv4 written in hex).
//   - Otherwise h is percent-decoded; an ASCII result is lower-cased, and
//     anything else goes through IDNA (whatwgIDNA). An all-ASCII domain is
//     never refused by IDNA: the standard then keeps it lower-cased
//     (https://github.com/whatwg/url/pull/914), so invalid Punycode such as
//     "xn--zz" stays a domain.
//   - An empty result or a forbidden domain code point fails.
//   - A domain that ends in a number is an IPv4 address in any of the forms
//     the standard reads (0x7f.1, 2130706433, 0300.0250.0.1, a trailing
//     dot), serialised in dotted decimal, or fails.
//
// A domain is appended without a trailing dot ending a non-empty label.
func appendHost(buf []byte, h string) ([]byte, string) {
	if h == "" {
		return buf, ReasonInvalidHost
	}
	if h[0] == '[' {
		if len(h) < 2 || h[len(h)-1] != ']' {
			return buf, ReasonInvalidHost
		}
		a, ok := parseIPv6(h[1 : len(h)-1])
		if !ok {
			return buf, ReasonInvalidHost
		}
		return appendIPv6(buf, &a), ""
	}
	if strings.IndexByte(h, '%') >= 0 {
		var ok bool
		if h, ok = percentDecode(h); !ok {
			return buf, ReasonInvalidHost // a "%" left in a domain is forbidden
		}
	}
	upper := false
scan:
	for i := 0; i < len(h); i++ {
		switch hostClass[h[i]] {
		case hcUpper:
			upper = true
		case hcForbidden:
			return buf, ReasonInvalidHost
		case hcHigh:
			a, ok := domainToASCII(h)
			if !ok {
				return buf, ReasonInvalidHost
			}
			h, upper = a, false
			break scan
		}
	}
	if h == "" {
		return buf, ReasonInvalidHost
	}
	if endsInNumber(h) {
		v, ok := parseIPv4(h)
		if !ok {
			return buf, ReasonInvalidHost
		}
		return appendIPv4(buf, v), ""
	}
	if n := len(h); n > 1 && h[n-1] == '.' && h[n-2] != '.' {
		h = h[:n-1] // the root of a fully qualified name
	}
	start := len(buf)
	buf = append(buf, h...)
	if upper {
		for i, c := range buf[start:] {
			if 'A' <= c && c <= 'Z' {
				buf[start+i] = c + 'a' - 'A'
			}
		}
	}
	return buf, ""
}

// domainToASCII is the standard's domain to ASCII for a domain that is not
// all ASCII: UTF-8 that does not decode (which the standard decodes to
// U+FFFD, which IDNA refuses) and IDNA errors fail, and so does a result
// that is empty ("\u00ad" maps to nothing) or holds a forbidden domain code
// point (U+FF05 maps to "%").
func domainToASCII(h string) (string, bool) {
	if !utf8.ValidString(h) {
		return "", false
	}
	a, err := whatwgIDNA.ToASCII(h)
	if err != nil || a == "" {
		return "", false
	}
	for i := 0; i < len(a); i++ {
		if c := hostClass[a[i]]; c == hcForbidden || c == hcHigh {
			return "", false
		}
	}
	return a, true
}

// endsInNumber is the standard's "ends in a number checker": the last label
// (after one trailing dot) is all digits, or "0x" and hex digits. Such a
// host is an IPv4 address or nothing, never a domain.
func endsInNumber(h string) bool {
	if strings.HasSuffix(h, ".") {
		h = h[:len(h)-1]
	}
	last := h[strings.LastIndexByte(h, '.')+1:]
	if last != "" && allDigits(last) {
		return true
	}
	if len(last) < 2 || last[0] != '0' || last[1]|0x20 != 'x' {
		return false
	}
	for i := 2; i < len(last); i++ {
		if !isHex(last[i]) {
			return false
		}
	}
	return true
}

// parseIPv4 is the standard's IPv4 parser: one to four numbers separated by
// dots (one trailing dot allowed), each decimal, octal with a leading "0"
// or hex with "0x"; all but the last at most 255, the last filling the
// remaining bytes.
func parseIPv4(h string) (uint32, bool) {
	if len(h) > 1 && h[len(h)-1] == '.' {
		h = h[:len(h)-1]
	}
	var nums [4]uint64
	n := 0
	for part := range strings.SplitSeq(h, ".") {
		if n == 4 {
			return 0, false
		}
		v, ok := parseIPv4Number(part)
		if !ok {
			return 0, false
		}
		nums[n] = v
		n++
	}
	for _, v := range nums[:n-1] {
		if v > 255 {
			return 0, false
		}
	}
	last := nums[n-1]
	if last >= 1<<(8*(5-n)) {
		return 0, false
	}
	ip := uint32(last)
	for i, v := range nums[:n-1] {
		ip += uint32(v) << (8 * (3 - i))
	}
	return ip, true
}

// parseIPv4Number reads one part of an IPv4 address. Values above 2³² are
// held at 2³² + 1, which is out of range wherever it stands.
func parseIPv4Number(s string) (uint64, bool) {
	if s == "" {
		return 0, false
	}
	base := uint64(10)
	switch {
	case len(s) >= 2 && s[0] == '0' && s[1]|0x20 == 'x':
		s, base = s[2:], 16
	case len(s) >= 2 && s[0] == '0':
		s, base = s[1:], 8
	}
	var v uint64
	for i := 0; i < len(s); i++ {
		c := s[i]
		var d uint64
		switch {
		case isDigit(c):
			d = uint64(c - '0')
		case base == 16 && isHex(c):
			d = uint64(unhex(c))
		default:
			return 0, false
		}
		if d >= base {
			return 0, false
		}
		v = min(v*base+d, math.MaxUint32+2)
	}
	return v, true
}

func appendIPv4(buf []byte, ip uint32) []byte {
	for i := 3; i >= 0; i-- {
		buf = strconv.AppendUint(buf, uint64(ip>>(8*i)&0xff), 10)
		if i > 0 {
			buf = append(buf, '.')
		}
	}
	return buf
}

// parseIPv6 is the standard's IPv6 parser, for what is between the
// brackets: up to eight hex pieces of up to four digits, one "::", and a
// dotted-decimal IPv4 address (strict: no leading zeros) as the last two
// pieces. Zone identifiers are not supported.
func parseIPv6(s string) (a [8]uint16, ok bool) {
	piece, compress, i := 0, -1, 0
	if s != "" && s[0] == ':' {
		if len(s) < 2 || s[1] != ':' {
			return a, false
		}
		i, piece, compress = 2, 1, 1
	}
	for i < len(s) {
		if piece == 8 {
			return a, false
		}
		if s[i] == ':' {
			if compress >= 0 {
				return a, false
			}
			i++
			piece++
			compress = piece
			continue
		}
		value, length := 0, 0
		for length < 4 && i < len(s) && isHex(s[i]) {
			value = value<<4 | int(unhex(s[i]))
			i++
			length++
		}
		if i < len(s) && s[i] == '.' {
			if length == 0 || piece > 6 {
				return a, false
			}
			i -= length
			if i, ok = parseIPv6Tail(s, i, &a, piece); !ok {
				return a, false
			}
			piece += 2
			break
		}
		if i < len(s) {
			if s[i] != ':' {
				return a, false
			}
			if i++; i == len(s) {
				return a, false
			}
		}
		a[piece] = uint16(value)
		piece++
	}
	if compress >= 0 {
		for swaps, p := piece-compress, 7; p != 0 && swaps > 0; p, swaps = p-1, swaps-1 {
			a[p], a[compress+swaps-1] = a[compress+swaps-1], a[p]
		}
	} else if piece != 8 {
		return a, false
	}
	return a, true
}

// parseIPv6Tail reads the dotted-decimal IPv4 address that ends an IPv6
// address into pieces piece and piece+1; it must run to the end of s.
func parseIPv6Tail(s string, i int, a *[8]uint16, piece int) (int, bool) {
	for seen := 0; seen < 4; seen++ {
		if seen > 0 {
			if i == len(s) || s[i] != '.' {
				return i, false
			}
			i++
		}
		if i == len(s) || !isDigit(s[i]) {
			return i, false
		}
		v, start := 0, i
		for ; i < len(s) && isDigit(s[i]); i++ {
			if i > start && v == 0 {
				return i, false // a leading zero
			}
			if v = v*10 + int(s[i]-'0'); v > 255 {
				return i, false
			}
		}
		p := piece + seen/2
		a[p] = a[p]<<8 | uint16(v)
	}
	return i, i == len(s)
}

// appendIPv6 writes an IPv6 address in brackets as the standard serialises
// it: lower-case hex pieces without leading zeros, the first longest run of
// two or more zero pieces as "::".
func appendIPv6(buf []byte, a *[8]uint16) []byte {
	compress, run := -1, 1
	for i := 0; i < 8; {
		if a[i] != 0 {
			i++
			continue
		}
		j := i
		for j < 8 && a[j] == 0 {
			j++
		}
		if j-i > run {
			compress, run = i, j-i
		}
		i = j
	}
	buf = append(buf, '[')
	for i := 0; i < 8; i++ {
		if i == compress {
			if i == 0 {
				buf = append(buf, ':')
			}
			buf = append(buf, ':')
			i += run - 1
			continue
		}
		buf = strconv.AppendUint(buf, uint64(a[i]), 16)
		if i != 7 {
			buf = append(buf, ':')
		}
	}
	return append(buf, ']')
}

// IsIPLiteral reports whether host is written as an IP address: in
// brackets (IPv6), or ending in a number, which the URL Standard reads as
// an IPv4 address or refuses, never as a domain ("192.0.2.1", "0x7f.1",
// "2130706433"). An IP address has no registrable domain; callers given a
// domain_id use this to refuse one whose domain is an address.
func IsIPLiteral(host string) bool {
	return host != "" && (host[0] == '[' || endsInNumber(host))
}
