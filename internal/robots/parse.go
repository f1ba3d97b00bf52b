package robots

import (
	"bytes"
	"math"
	"slices"
	"strconv"
	"time"
	"unicode/utf16"
	"unicode/utf8"
)

// MaxBytes is how much of a robots.txt body Parse reads; the rest is
// ignored. RFC 9309 §2.5 asks crawlers to parse at least 500 KiB.
const MaxBytes = 512000

// maxLineLen is the longest line Parse reads; bytes beyond it are dropped,
// as Google does (robots.cc: 8 times the 2083-byte browser URL limit, less
// the C string terminator).
const maxLineLen = 2083*8 - 1

type keyKind uint8

const (
	keyUnknown keyKind = iota
	keyUserAgent
	keyAllow
	keyDisallow
	keySitemap
	keyCrawlDelay
)

// Directive names, matched case-insensitively as prefixes of the key, like
// Google does (so "Disallowed:" is a Disallow line). The typo spellings are
// Google's list in robots.cc, plus the crawl-delay spellings, which Google
// does not read at all.
var keyNames = []struct {
	prefix string
	kind   keyKind
}{
	{"user-agent", keyUserAgent},
	{"useragent", keyUserAgent},
	{"user agent", keyUserAgent},
	{"allow", keyAllow},
	{"disallow", keyDisallow},
	{"dissallow", keyDisallow},
	{"dissalow", keyDisallow},
	{"disalow", keyDisallow},
	{"diasllow", keyDisallow},
	{"disallaw", keyDisallow},
	{"sitemap", keySitemap},
	{"site-map", keySitemap},
	{"crawl-delay", keyCrawlDelay},
	{"crawldelay", keyCrawlDelay},
	{"crawl delay", keyCrawlDelay},
	{"crawl_delay", keyCrawlDelay},
}

func classifyKey(key []byte) keyKind {
	for _, k := range keyNames {
		if hasPrefixFold(key, k.prefix) {
			return k.kind
		}
	}
	return keyUnknown
}

// hasPrefixFold reports whether s starts with the lower-case ASCII prefix,
// ignoring ASCII case.
func hasPrefixFold(s []byte, prefix string) bool {
	if len(s) < len(prefix) {
		return false
	}
	for i := 0; i < len(prefix); i++ {
		if toLowerASCII(s[i]) != prefix[i] {
			return false
		}
	}
	return true
}

// span is a slice of the parser's arena.
type span struct{ start, end int32 }

type agentSpan struct {
	raw   span // the value as written, for evidence
	token span // lower-cased product token; empty for "*"
	star  bool
}

type ruleSpan struct {
	pat   span
	allow bool
}

type groupBuilder struct {
	agents   []agentSpan
	rules    []ruleSpan
	nrules   int
	delay    time.Duration
	hasDelay bool
	sawRule  bool // an Allow/Disallow line ended the user-agent run
}

// parser accumulates every string it keeps in one arena, converted to a
// single string at the end, so a parsed file costs a few allocations and
// does not pin the body it came from.
type parser struct {
	arena    []byte
	groups   []groupBuilder
	sitemaps []span
}

func (p *parser) add(b []byte) span {
	s := int32(len(p.arena))
	p.arena = append(p.arena, b...)
	return span{s, int32(len(p.arena))}
}

// Parse parses a robots.txt body. It never fails: any bytes give a *Robots,
// garbage lines are skipped. A UTF-8 byte order mark (or a leading part of
// one, as Google accepts) is skipped; a UTF-16 byte order mark makes the body
// be decoded from UTF-16 first. Only the first MaxBytes of body are read.
func Parse(body []byte) *Robots {
	if len(body) > MaxBytes {
		body = body[:MaxBytes]
	}
	body = decodeBody(body)
	p := &parser{arena: make([]byte, 0, min(len(body), 1<<16))}
	for len(body) > 0 {
		end := bytes.IndexByte(body, '\n')
		if end < 0 {
			end = len(body)
		}
		line := body[:end]
		if cr := bytes.IndexByte(line, '\r'); cr >= 0 {
			end, line = cr, line[:cr]
		}
		p.line(line)
		if end < len(body) {
			end++
		}
		body = body[end:]
	}
	return p.finish()
}

// decodeBody strips a (possibly partial) UTF-8 byte order mark, or decodes a
// body that starts with a UTF-16 byte order mark into UTF-8.
func decodeBody(b []byte) []byte {
	if len(b) >= 2 && (b[0] == 0xFF && b[1] == 0xFE || b[0] == 0xFE && b[1] == 0xFF) {
		b = decodeUTF16(b[2:], b[0] == 0xFE)
	}
	// Google skips any leading prefix of EF BB BF, so "\xEF\xBBUser-agent"
	// still starts with a User-agent line.
	const bom = "\xEF\xBB\xBF"
	i := 0
	for i < len(bom) && i < len(b) && b[i] == bom[i] {
		i++
	}
	return b[i:]
}

func decodeUTF16(b []byte, bigEndian bool) []byte {
	out := make([]byte, 0, len(b)/2+8)
	unit := func(i int) rune {
		if bigEndian {
			return rune(b[i])<<8 | rune(b[i+1])
		}
		return rune(b[i+1])<<8 | rune(b[i])
	}
	for i := 0; i+1 < len(b); i += 2 {
		r := unit(i)
		if utf16.IsSurrogate(r) && i+3 < len(b) {
			if dec := utf16.DecodeRune(r, unit(i+2)); dec != utf8.RuneError {
				out = utf8.AppendRune(out, dec)
				i += 2
				continue
			}
		}
		out = utf8.AppendRune(out, r) // a lone surrogate becomes U+FFFD
	}
	return out
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\v' || c == '\f' || c == '\r' || c == '\n'
}

func trimSpace(b []byte) []byte {
	for len(b) > 0 && isSpace(b[0]) {
		b = b[1:]
	}
	for len(b) > 0 && isSpace(b[len(b)-1]) {
		b = b[:len(b)-1]
	}
	return b
}

// splitLine splits a line into key and value as Google does: the comment is
// cut at '#', the separator is the first ':' or, failing that, whitespace
// between exactly two words ("disallow /x"). ok is false for lines without
// a key.
func splitLine(line []byte) (key, value []byte, ok bool) {
	if len(line) > maxLineLen {
		line = line[:maxLineLen]
	}
	if i := bytes.IndexByte(line, '#'); i >= 0 {
		line = line[:i]
	}
	line = trimSpace(line)
	sep := bytes.IndexByte(line, ':')
	if sep < 0 {
		sep = bytes.IndexAny(line, " \t")
		if sep < 0 {
			return nil, nil, false
		}
		if bytes.IndexAny(trimSpace(line[sep:]), " \t") >= 0 {
			return nil, nil, false
		}
	}
	key = trimSpace(line[:sep])
	if len(key) == 0 {
		return nil, nil, false
	}
	return key, trimSpace(line[sep+1:]), true
}

func (p *parser) line(line []byte) {
	key, value, ok := splitLine(line)
	if !ok {
		return
	}
	var cur *groupBuilder
	if n := len(p.groups); n > 0 {
		cur = &p.groups[n-1]
	}
	kind := classifyKey(key)
	switch kind {
	case keyUserAgent:
		if cur == nil || cur.sawRule {
			p.groups = append(p.groups, groupBuilder{})
			cur = &p.groups[len(p.groups)-1]
		}
		p.userAgent(cur, value)
	case keyAllow, keyDisallow:
		if cur == nil {
			return // rules before any user-agent line belong to no group
		}
		cur.sawRule = true
		cur.nrules++
		p.rule(cur, value, kind == keyAllow)
	case keySitemap:
		if len(value) > 0 {
			p.sitemaps = append(p.sitemaps, p.add(value))
		}
	case keyCrawlDelay:
		if cur == nil {
			return
		}
		if d, ok := parseDelay(value); ok && (!cur.hasDelay || d > cur.delay) {
			cur.delay, cur.hasDelay = d, true
		}
	}
}

func (p *parser) userAgent(g *groupBuilder, value []byte) {
	// Google: "*" followed by whitespace and anything is still the global
	// agent ("* # all bots" after comment stripping, "* foo").
	if len(value) > 0 && value[0] == '*' && (len(value) == 1 || isSpace(value[1])) {
		g.agents = append(g.agents, agentSpan{raw: p.add([]byte("*")), star: true})
		return
	}
	n := 0
	for n < len(value) && isProductTokenByte(value[n]) {
		n++
	}
	a := agentSpan{raw: p.add(value)}
	if n > 0 {
		a.token.start = int32(len(p.arena))
		for _, c := range value[:n] {
			p.arena = append(p.arena, toLowerASCII(c))
		}
		a.token.end = int32(len(p.arena))
	}
	// A value without a token ("/bot", "") still starts or continues the
	// group, as in Google; no agent can match it.
	g.agents = append(g.agents, a)
}

func (p *parser) rule(g *groupBuilder, value []byte, allow bool) {
	if len(value) == 0 {
		return // empty Disallow/Allow: counts as a rule line, matches nothing
	}
	start := int32(len(p.arena))
	p.arena = appendEscaped(p.arena, string(value))
	pat := span{start, int32(len(p.arena))}
	g.rules = append(g.rules, ruleSpan{pat, allow})
	if !allow {
		return
	}
	// Google: allowing ".../index.htm..." also allows the directory itself,
	// ".../$". Adding the derived rule up front is equivalent to Google's
	// fallback, as the original is longer whenever both match.
	escaped := p.arena[start:]
	if slash := bytes.LastIndexByte(escaped, '/'); slash >= 0 && bytes.HasPrefix(escaped[slash:], []byte("/index.htm")) {
		ds := int32(len(p.arena))
		p.arena = append(p.arena, p.arena[start:start+int32(slash)+1]...)
		p.arena = append(p.arena, '$')
		g.rules = append(g.rules, ruleSpan{span{ds, int32(len(p.arena))}, true})
	}
}

// parseDelay reads a Crawl-delay value: decimal seconds, optionally with a
// fraction ("10", "0.5", ".5"). Anything else (negative, exponent, hex,
// "inf", trailing words) is rejected. A value too large for a
// time.Duration saturates at the largest Duration rather than being dropped,
// since a huge delay still means "crawl very slowly"; callers cap it.
func parseDelay(v []byte) (time.Duration, bool) {
	digits, dot := 0, false
	for _, c := range v {
		switch {
		case '0' <= c && c <= '9':
			digits++
		case c == '.' && !dot:
			dot = true
		default:
			return 0, false
		}
	}
	if digits == 0 {
		return 0, false
	}
	f, err := strconv.ParseFloat(string(v), 64)
	if err != nil || f < 0 {
		return 0, false
	}
	ns := f * float64(time.Second)
	if ns >= math.MaxInt64 {
		return time.Duration(math.MaxInt64), true
	}
	return time.Duration(math.Round(ns)), true
}

func (p *parser) finish() *Robots {
	arena := string(p.arena)
	str := func(s span) string { return arena[s.start:s.end] }
	r := &Robots{groups: make([]group, len(p.groups))}
	nrules := 0
	for i := range p.groups {
		nrules += len(p.groups[i].rules)
	}
	rules := make([]rule, 0, nrules)
	for i := range p.groups {
		b := &p.groups[i]
		g := &r.groups[i]
		g.nrules, g.delay, g.hasDelay = b.nrules, b.delay, b.hasDelay
		first := len(rules)
		for _, rs := range b.rules {
			rules = append(rules, newRule(str(rs.pat), rs.allow))
		}
		g.rules = rules[first:len(rules):len(rules)]
		slices.SortFunc(g.rules, compareRules)
		g.agents = make([]agent, len(b.agents))
		for j, a := range b.agents {
			g.agents[j] = agent{raw: str(a.raw), token: str(a.token), star: a.star}
			switch {
			case a.star:
				if len(r.star) == 0 || r.star[len(r.star)-1] != int32(i) {
					r.star = append(r.star, int32(i))
				}
			case a.token.end > a.token.start:
				if r.byToken == nil {
					r.byToken = make(map[string][]int32)
				}
				t := str(a.token)
				idx := r.byToken[t]
				if len(idx) == 0 || idx[len(idx)-1] != int32(i) {
					r.byToken[t] = append(idx, int32(i))
				}
			}
		}
	}
	if len(p.sitemaps) > 0 {
		r.sitemaps = make([]string, len(p.sitemaps))
		for i, s := range p.sitemaps {
			r.sitemaps[i] = str(s)
		}
	}
	return r
}
