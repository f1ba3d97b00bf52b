package discover

import (
	"math/rand/v2"
	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
	"golang.org/x/net/idna"
)

// The normaliser is a hand-written scanner (net/url.Parse costs more than
// the whole per-URL budget). These tests hold it against net/url: for every
// input that net/url reads as an absolute http(s) URL without the repairs
// only we make, an independent reference built on net/url must reach the
// same decision and the same scheme, host, port, decoded path segments and
// decoded query parameters. Every URL we accept must also be one that
// net/url parses back to exactly the same string.

// refURL is what the reference expects from an input.
type refURL struct {
	reason   string // non-empty: the input must be rejected with this reason
	scheme   string
	host     string
	port     string
	segments []string
	params   []string
}

// reference normalises raw with net/url. ok is false when raw is outside
// what the reference covers: inputs that need one of our repairs (no or a
// doubled scheme, backslashes, white space or control characters inside),
// or that net/url does not parse as an absolute http(s) URL with a host.
func reference(raw string) (ref refURL, ok bool) {
	s := strings.TrimSpace(raw)
	if s == "" || s != trimURLSpace(raw) || strings.ContainsAny(s, "\\ \t\r\n") || len(s) > maxInputLength {
		return ref, false
	}
	if strings.ContainsFunc(s, func(r rune) bool { return r < ' ' || r == 0x7f }) {
		return refURL{reason: ReasonInvalidURL}, true // net/url lets them through in fragments
	}
	u, err := url.Parse(s)
	if err != nil || u.Opaque != "" || u.Host == "" {
		return ref, false
	}
	ref.scheme = strings.ToLower(u.Scheme)
	if ref.scheme != "http" && ref.scheme != "https" {
		return ref, false
	}
	after := strings.ToLower(s[len(u.Scheme)+1:])
	if !strings.HasPrefix(after, "//") {
		return ref, false
	}
	for _, p := range []string{"http:", "https:", "http//", "https//"} {
		if strings.HasPrefix(strings.TrimLeft(after, "/"), p) {
			return ref, false // a doubled scheme, which we repair
		}
	}

	// Port (checked before the host, as the normaliser does).
	if p := strings.TrimLeft(u.Port(), "0"); u.Port() != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > 65535 {
			return refURL{reason: ReasonInvalidURL}, true
		}
		if !(ref.scheme == "http" && n == 80) && !(ref.scheme == "https" && n == 443) {
			ref.port = strconv.Itoa(n)
		}
	}

	// Host.
	// ASCII lower case only: IDNA has its own case mapping, which differs
	// from strings.ToLower ("İ" is "i̇" for UTS 46, "i" for Go).
	h := strings.Map(func(r rune) rune {
		if 'A' <= r && r <= 'Z' {
			return r + 'a' - 'A'
		}
		return r
	}, u.Hostname())
	switch {
	case strings.HasPrefix(u.Host, "["):
		a, err := netip.ParseAddr(h)
		if err != nil || !a.Is6() || a.Zone() != "" {
			return refURL{reason: ReasonInvalidHost}, true
		}
		ref.host = "[" + a.String() + "]"
	default:
		h = strings.TrimSuffix(h, ".")
		ascii := true
		for _, l := range strings.Split(h, ".") {
			ascii = ascii && !strings.HasPrefix(l, "xn--")
		}
		for i := 0; i < len(h); i++ {
			ascii = ascii && h[i] < utf8.RuneSelf
		}
		if !ascii {
			if !utf8.ValidString(h) || strings.ContainsRune(h, utf8.RuneError) {
				return refURL{reason: ReasonInvalidHost}, true
			}
			a, err := idna.Lookup.ToASCII(h)
			if err != nil {
				return refURL{reason: ReasonInvalidHost}, true
			}
			h = strings.TrimSuffix(a, ".")
		}
		if !refValidHost(h) {
			return refURL{reason: ReasonInvalidHost}, true
		}
		ref.host = h
	}

	// Path: decoded segments with dot-segments removed (RFC 3986 §5.2.4).
	// RawPath is the path as written whenever that differs from net/url's
	// own escaping; EscapedPath would re-escape a path with characters such
	// as "{" and lose the difference between "%2F" and "/".
	rawPath := u.RawPath
	if rawPath == "" {
		rawPath = u.EscapedPath()
	}
	in := strings.Split(rawPath, "/")
	if len(in) > 0 && in[0] == "" {
		in = in[1:]
	}
	if len(in) == 0 {
		in = []string{""}
	}
	for i, seg := range in {
		seg = lenientUnescape(seg)
		last := i == len(in)-1
		switch seg {
		case ".", "..":
			if seg == ".." && len(ref.segments) > 0 {
				ref.segments = ref.segments[:len(ref.segments)-1]
			}
			if last {
				ref.segments = append(ref.segments, "")
			}
		default:
			ref.segments = append(ref.segments, seg)
		}
	}

	// Query: decoded parameters without empty and tracking ones.
	for _, p := range strings.Split(u.RawQuery, "&") {
		if p == "" {
			continue
		}
		p = lenientUnescape(p)
		key, _, _ := strings.Cut(p, "=")
		if refIsTracking(strings.ToLower(key)) {
			continue
		}
		ref.params = append(ref.params, p)
	}
	return ref, true
}

func refValidHost(h string) bool {
	if len(h) > 253 {
		return false
	}
	labels := strings.Split(h, ".")
	for _, l := range labels {
		if l == "" || len(l) > 63 || strings.HasPrefix(l, "-") || strings.HasSuffix(l, "-") {
			return false
		}
		if strings.Trim(l, "abcdefghijklmnopqrstuvwxyz0123456789-_") != "" {
			return false
		}
	}
	last := labels[len(labels)-1]
	if strings.Trim(last, "0123456789") == "" || strings.HasPrefix(last, "0x") {
		a, err := netip.ParseAddr(h)
		return err == nil && a.Is4()
	}
	return len(labels) >= 2
}

func refIsTracking(k string) bool {
	for _, p := range trackingPrefixes {
		if strings.HasPrefix(k, p) && len(k) > len(p) {
			return true
		}
	}
	return slices.Contains(trackingParams, k)
}

// lenientUnescape decodes %XX escapes and leaves a stray "%" as it is.
func lenientUnescape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) {
			if v, err := strconv.ParseUint(s[i+1:i+3], 16, 8); err == nil {
				b.WriteByte(byte(v))
				i += 2
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// checkAgainstNetURL is the differential and round-trip check for one input.
func checkAgainstNetURL(t testing.TB, raw string) {
	t.Helper()
	norm, host, err := NormalizeURL(raw)
	reason := ""
	if err != nil {
		var ue *URLError
		require.ErrorAs(t, err, &ue)
		reason = ue.Reason
	}

	if ref, ok := reference(raw); ok {
		if ref.reason != "" || reason != "" {
			if reason == ReasonTooLong && ref.reason == "" {
				return // the reference has no length limit
			}
			require.Equal(t, ref.reason, reason, "input %q: reference and normaliser disagree (got %q)", raw, norm)
			return
		}
		got := ourComponents(t, norm)
		require.Equal(t, ref.scheme, got.scheme, "input %q → %q", raw, norm)
		require.Equal(t, ref.host, got.host, "input %q → %q", raw, norm)
		require.Equal(t, ref.port, got.port, "input %q → %q", raw, norm)
		require.Equal(t, ref.segments, got.segments, "input %q → %q", raw, norm)
		require.Equal(t, ref.params, got.params, "input %q → %q", raw, norm)
	}
	if err != nil {
		return
	}

	// Round trip: net/url reads our output as exactly what we meant.
	u, perr := url.Parse(norm)
	require.NoError(t, perr, "input %q → %q", raw, norm)
	require.Equal(t, norm, u.String(), "input %q", raw)
	require.Contains(t, []string{"http", "https"}, u.Scheme)
	require.Nil(t, u.User)
	require.Empty(t, u.Fragment)
	require.Equal(t, host, strings.ToLower(u.Host[:len(u.Host)-len(u.Port())-min(1, len(u.Port()))]))
	require.LessOrEqual(t, len(norm), MaxURLLength)

	// Idempotence.
	again, host2, err := NormalizeURL(norm)
	require.NoError(t, err, "input %q → %q", raw, norm)
	require.Equal(t, norm, again, "input %q", raw)
	require.Equal(t, host, host2)
}

// ourComponents splits a normalised URL the way reference describes one.
func ourComponents(t testing.TB, norm string) refURL {
	t.Helper()
	var r refURL
	rest, ok := strings.CutPrefix(norm, "https://")
	r.scheme = "https"
	if !ok {
		rest, ok = strings.CutPrefix(norm, "http://")
		r.scheme = "http"
	}
	require.True(t, ok, norm)
	i := strings.IndexByte(rest, '/')
	require.GreaterOrEqual(t, i, 0, norm)
	auth, pathQuery := rest[:i], rest[i:]
	r.host = auth
	if j := strings.LastIndexByte(auth, ':'); j >= 0 && !strings.HasSuffix(auth, "]") {
		r.host, r.port = auth[:j], auth[j+1:]
	}
	path, query, _ := strings.Cut(pathQuery, "?")
	for _, seg := range strings.Split(path[1:], "/") {
		r.segments = append(r.segments, lenientUnescape(seg))
	}
	if query != "" {
		for _, p := range strings.Split(query, "&") {
			r.params = append(r.params, lenientUnescape(p))
		}
	}
	return r
}

// trickyCorpus builds URLs from parts chosen to hit the scanner's edges:
// case, escapes, IDN, IPs, ports, dot-segments, odd characters, tracking
// parameters and fragments.
func trickyCorpus(n int) []string {
	rng := rand.New(rand.NewPCG(3, 4))
	schemes := []string{"http://", "https://", "HTTP://", "hTTps://", "ftp://", "", "//", "http:", "https:/"}
	userinfo := []string{"", "", "", "user@", "user:pw@", "a@b@", "@"}
	hosts := []string{
		"example.com", "WWW.Example.COM", "www.gov.sg", "mom.gov.sg.", "münchen.de", "XN--MNCHEN-3YA.DE", "xn--85x722f.xn--fiqs8s",
		"食狮.公司.cn", "%77ww.example.com", "exa%2Dmple.com", "192.0.2.1", "192.0.2.256", "010.0.0.1", "[2001:DB8::1]", "[::ffff:192.0.2.1]",
		"[fe80::1%25en0]", "localhost", "a..b.com", "-bad.com", "under_score.example.org", "a.b.c.d.e.example.co.uk", "co.uk", "github.io",
		"example.123", "ex$ample.com", "", "xn--zz.com", "пример.рф", "faß.de", "example。com", "ｅｘａｍｐｌｅ.com",
	}
	ports := []string{"", "", "", ":", ":80", ":443", ":8080", ":0080", ":0", ":65535", ":65536", ":x"}
	segs := []string{"", "a", "A", ".", "..", "%2e", "%2E%2e", "...", "a%2Fb", "%7e", "%7E", "ü", "%c3%bc", "a b", "%", "%zz", "100%25",
		"!$&'()*+,;=:@", "\"<>", "{}|^`", "[x]", "%00", "index.html", ";p=1"}
	params := []string{"a=1", "b", "", "utm_source=x", "UTM_MEDIUM=y", "utm_=z", "fbclid=1", "gclid", "_ga=2", "q=a+b", "q=%c3%a4",
		"k=%zz", "x=/a?b", "f[a]=1", "e=%26%3D", "u%74m_campaign=v", "ref=1", "=", "==", "a=b=c", "q=ü"}
	frags := []string{"", "", "", "#", "#top", "#!/x", "#a?utm_source=1", "#%zz"}

	out := make([]string, n)
	for i := range out {
		var b strings.Builder
		b.WriteString(schemes[rng.IntN(len(schemes))])
		b.WriteString(userinfo[rng.IntN(len(userinfo))])
		b.WriteString(hosts[rng.IntN(len(hosts))])
		b.WriteString(ports[rng.IntN(len(ports))])
		for range rng.IntN(5) {
			b.WriteByte('/')
			b.WriteString(segs[rng.IntN(len(segs))])
		}
		if rng.IntN(2) == 0 {
			b.WriteByte('?')
			for j := range rng.IntN(5) {
				if j > 0 {
					b.WriteByte('&')
				}
				b.WriteString(params[rng.IntN(len(params))])
			}
		}
		b.WriteString(frags[rng.IntN(len(frags))])
		out[i] = b.String()
	}
	return out
}

func TestNormalizeAgainstNetURL(t *testing.T) {
	t.Parallel()
	var inputs []string
	for _, tc := range normalizeCases {
		inputs = append(inputs, tc.in, tc.want)
	}
	for _, tc := range rejectCases {
		inputs = append(inputs, tc.in)
	}
	for _, tc := range analyzeCases {
		inputs = append(inputs, tc.url)
	}
	inputs = append(inputs, benchCorpus(10_000)...)
	inputs = append(inputs, trickyCorpus(20_000)...)

	compared := 0
	for _, in := range inputs {
		if _, ok := reference(in); ok {
			compared++
		}
		checkAgainstNetURL(t, in)
	}
	t.Logf("%d inputs, %d compared with the net/url reference", len(inputs), compared)
	require.Greater(t, compared, len(inputs)*2/5)
}
