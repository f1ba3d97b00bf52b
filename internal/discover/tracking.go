package discover

// trackingParams are query parameters that identify a click, a campaign or
// a visitor rather than the resource, so two links to one page differ only
// in them. They are dropped during normalisation. Names are matched without
// regard to case. Kept as data: add a name here and a case to the tests.
var trackingParams = []string{
	// Google (Ads, Analytics, Merchant Center)
	"gclid", "gclsrc", "dclid", "gbraid", "wbraid", "_ga", "_gl", "srsltid",
	// Meta, Instagram
	"fbclid", "igshid", "igsh",
	// Microsoft, Yandex
	"msclkid", "yclid", "ysclid", "_openstat",
	// Mailchimp, HubSpot, Marketo, Vero, Olytics
	"mc_cid", "mc_eid", "_hsenc", "_hsmi", "__hssc", "__hstc", "__hsfp", "hsctatracking",
	"mkt_tok", "vero_id", "vero_conv", "oly_anon_id", "oly_enc_id",
	// X/Twitter, TikTok, LinkedIn, Pinterest
	"twclid", "ref_src", "ref_url", "ttclid", "li_fat_id", "epik",
	// Adobe, Matomo/Piwik, misc. click ids
	"s_kwcid", "ef_id", "pk_campaign", "pk_kwd", "pk_keyword", "pk_source", "pk_medium",
	"pk_content", "pk_cid", "rb_clickid", "wickedid",
}

// trackingPrefixes are parameter-name prefixes that only campaign tagging
// uses (utm_source, mtm_campaign, hsa_acc, …).
var trackingPrefixes = []string{"utm_", "mtm_", "hsa_"}

var (
	trackingSet   = makeTrackingSet()
	trackingFirst = func() (t [256]bool) { // first bytes of names and prefixes, both cases
		for _, p := range append(append([]string{}, trackingParams...), trackingPrefixes...) {
			t[p[0]] = true
			if 'a' <= p[0] && p[0] <= 'z' {
				t[p[0]-'a'+'A'] = true
			}
		}
		return t
	}()
	maxTrackingLen = func() int {
		n := 0
		for _, p := range trackingParams {
			n = max(n, len(p))
		}
		return n
	}()
)

func makeTrackingSet() map[string]struct{} {
	m := make(map[string]struct{}, len(trackingParams))
	for _, p := range trackingParams {
		m[p] = struct{}{}
	}
	return m
}

// isTrackingParam reports whether the query parameter name k (as written in
// the normalised query, so unreserved escapes are already decoded) is one of
// trackingParams or starts with one of trackingPrefixes, ignoring case.
func isTrackingParam(k []byte) bool {
	if len(k) == 0 || !trackingFirst[k[0]] {
		return false
	}
	for _, p := range trackingPrefixes {
		if len(k) > len(p) && equalFoldASCII(k[:len(p)], p) {
			return true
		}
	}
	var low [32]byte
	if len(k) > maxTrackingLen || len(k) > len(low) {
		return false
	}
	for i, c := range k {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		low[i] = c
	}
	_, ok := trackingSet[string(low[:len(k)])]
	return ok
}

// equalFoldASCII compares b with the lower-case ASCII string s, ignoring the
// case of b.
func equalFoldASCII(b []byte, s string) bool {
	if len(b) != len(s) {
		return false
	}
	for i := 0; i < len(b); i++ {
		c := b[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != s[i] {
			return false
		}
	}
	return true
}
