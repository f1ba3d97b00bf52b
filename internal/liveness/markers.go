package liveness

import (
	"bytes"
	"net/http"
	"strings"
)

// Markers are data, not code: a new parking service or challenge vendor is
// one more line. Body markers are lower case and matched against the
// lower-cased body (at most the probe cap, 256 KiB), so matching is
// case-insensitive. They are chosen to be specific: a marker that a normal
// page could contain ("for sale" alone, "just a moment" outside a title)
// would turn live sites into parked or blocked ones.

// challengeHeaders are response headers whose value (lower case) marks an
// interstitial challenge rather than content.
var challengeHeaders = []struct{ name, value string }{
	{"Cf-Mitigated", "challenge"}, // Cloudflare managed/JS challenge
}

// challengeMarkers are body markers of interstitial challenge pages.
var challengeMarkers = []string{
	"<title>just a moment...</title>",        // Cloudflare managed challenge
	"checking your browser before accessing", // Cloudflare, older template
	"window._cf_chl_opt",                     // Cloudflare challenge script
	"__cf_chl_f_tk=",                         // Cloudflare challenge form token
	"/cdn-cgi/challenge-platform/",           // Cloudflare challenge loader
	"cf-browser-verification",                // Cloudflare, legacy IUAM page
	"<title>ddos-guard</title>",              // DDoS-Guard check page
	"/_guard/html.js?js=",                    // DDoS-Guard script
	"sucuri website firewall - access denied",
}

// parkedMarkers are body markers of parking and domain-marketplace pages.
var parkedMarkers = []string{
	"this domain is for sale",
	"this domain may be for sale",
	"domain name is for sale",
	"is for sale | dan.com",
	"dan.com/buy-domain/",
	"sedoparking.com",
	"sedo domain parking",
	"sedo.com/search/details/?domain=",
	"parking powered by bodis",
	"bodis.com/domain-inquiry",
	"parkingcrew.net",
	"parking by <a href=\"https://www.parkingcrew.com\">",
	"hugedomains.com/domain_profile",
	"afternic.com/forsale",
	"this domain has been registered via",
	"domain parked free",
}

// isChallenge reports whether a response is a challenge interstitial.
// lower is the lower-cased body.
func isChallenge(h http.Header, lower []byte) bool {
	for _, m := range challengeHeaders {
		for _, v := range h.Values(m.name) {
			if strings.EqualFold(strings.TrimSpace(v), m.value) {
				return true
			}
		}
	}
	return containsAny(lower, challengeMarkers)
}

// IsChallenge reports whether a response with header h and body is a
// challenge interstitial (a bot wall), as a liveness probe judges it.
func IsChallenge(h http.Header, body []byte) bool { return isChallenge(h, bytes.ToLower(body)) }

// isParked reports whether a lower-cased body is a parking page.
func isParked(lower []byte) bool { return containsAny(lower, parkedMarkers) }

func containsAny(b []byte, markers []string) bool {
	for _, m := range markers {
		if bytes.Contains(b, []byte(m)) {
			return true
		}
	}
	return false
}
