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
// decoded query parameters. Every URL that can become a record (its host
// has a registrable domain) must also be one that net/url parses back to
// exactly the same string. What net/url does not decide like a browser
// (hosts, control characters) is held to the URL Standard by TestWHATWGURL.

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
// doubled scheme, backslashes, white space inside), control characters
// (which net/url refuses and the standard percent-encodes or refuses by
// where they stand), hosts that end in a number other than dotted-decimal
// IPv4 and IPv6 addresses with IPv4 in them (the URL Standard's forms,
// which TestWHATWGURL holds us to), or inputs that net/url does not parse
// as an absolute http(s) URL with a host.
func reference(raw string) (ref refURL, ok bool) {
	s := strings.TrimSpace(raw)
	if s == "" || s != trimURLSpace(raw) || strings.ContainsAny(s, "\\ \t\r\n") || len(s) > maxInputLength {
		return ref, false
	}
	if strings.ContainsFunc(s, func(r rune) bool { return r < ' ' || r == 0x7f }) {
		return ref, false
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

	// Host, which net/url has percent-decoded.
	// ASCII lower case only: IDNA has its own case mapping, which differs
	// from strings.ToLower ("İ" is "i̇" for UTS 46, "i" for Go).
	h := strings.Map(func(r rune) rune {
		if 'A' <= r && r <= 'Z' {
			return r + 'a' - 'A'
		}
		return r
	}, u.Hostname())
	if strings.HasPrefix(u.Host, "[") {
		a, err := netip.ParseAddr(h)
		switch {
		case err != nil || !a.Is6() || a.Zone() != "":
			return refURL{reason: ReasonInvalidHost}, true
		case a.Is4In6() || strings.Contains(h, "."):
			return ref, false // netip writes the IPv4 part dotted, the standard in hex
		}
		ref.host = "[" + a.String() + "]"
	} else {
		ascii := true
		for i := 0; i < len(h); i++ {
			ascii = ascii && h[i] < utf8.RuneSelf
		}
		if !ascii {
			// The standard's domain to ASCII with beStrict false. An
			// all-ASCII domain stays as it is, even with invalid
			// Punycode in it (whatwg/url#914).
			if !utf8.ValidString(h) {
				return refURL{reason: ReasonInvalidHost}, true
			}
			a, err := refIDNA.ToASCII(h)
			if err != nil {
				return refURL{reason: ReasonInvalidHost}, true
			}
			h = a
		}
		if h == "" || strings.ContainsFunc(h, func(r rune) bool {
			return r <= ' ' || r == 0x7f || r >= utf8.RuneSelf || strings.ContainsRune("#%/:<>?@[\\]^|", r)
		}) {
			return refURL{reason: ReasonInvalidHost}, true
		}
		labels := strings.Split(strings.TrimSuffix(h, "."), ".")
		if last := labels[len(labels)-1]; last != "" && (strings.Trim(last, "0123456789") == "" || strings.HasPrefix(last, "0x")) {
			a, err := netip.ParseAddr(strings.TrimSuffix(h, "."))
			if err != nil || !a.Is4() {
				return ref, false // an IPv4 address in another form, or none
			}
			h = a.String()
		}
		if len(h) > 1 && strings.HasSuffix(h, ".") && !strings.HasSuffix(h, "..") {
			h = h[:len(h)-1]
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
	if (ref.host == "http" || ref.host == "https") && ref.port == "" && strings.HasPrefix(rawPath, "//") {
		return ref, false // a doubled scheme ("http://HTTP.//x"), which we repair
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

// refIDNA is the standard's Unicode ToASCII, built here from the options
// of https://url.spec.whatwg.org/#concept-domain-to-ascii on its own.
var refIDNA = idna.New(idna.MapForLookup(), idna.BidiRule(), idna.CheckHyphens(false),
	idna.CheckJoiners(true), idna.StrictDomainName(false), idna.Transitional(false), idna.VerifyDNSLength(false))

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

	// Idempotence.
	again, host2, err := NormalizeURL(norm)
	require.NoError(t, err, "input %q → %q", raw, norm)
	require.Equal(t, norm, again, "input %q", raw)
	require.Equal(t, host, host2)
	require.LessOrEqual(t, len(norm), MaxURLLength)

	if _, err := RegistrableDomain(host); err != nil {
		return // a valid URL, but not a record's (an IP address, localhost, exa$mple.com, …)
	}
	// Round trip: net/url reads a record's URL as exactly what we meant.
	u, perr := url.Parse(norm)
	require.NoError(t, perr, "input %q → %q", raw, norm)
	require.Equal(t, norm, u.String(), "input %q", raw)
	require.Contains(t, []string{"http", "https"}, u.Scheme)
	require.Nil(t, u.User)
	require.Empty(t, u.Fragment)
	require.Equal(t, host, strings.ToLower(u.Host[:len(u.Host)-len(u.Port())-min(1, len(u.Port()))]))
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
