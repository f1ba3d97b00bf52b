package discover

import (
	"errors"
	"strconv"

	"github.com/seedengine/seedengine"
)

// Reason codes say why a URL was rejected. They are stable strings, reported
// per URL to API clients, so clients may switch on them; never rename one.
const (
	ReasonEmpty             = "empty"              // nothing but white space
	ReasonTooLong           = "too_long"           // over MaxURLLength
	ReasonUnsupportedScheme = "unsupported_scheme" // not http or https (mailto:, ftp:, javascript:, …)
	// ReasonInvalidHost: the URL Standard's host parser fails: no host, a
	// space, control or other forbidden code point, a bad IDN, IPv4 or
	// IPv6 address.
	ReasonInvalidHost = "invalid_host"
	ReasonInvalidURL  = "invalid_url" // unparseable otherwise: a bad port, "://x"
	// ReasonNoRegistrableDomain: a valid URL whose host is not a domain
	// anyone registers: an IP address in any form, a single label
	// (localhost), an ICANN public suffix (co.uk, com; a private one such
	// as github.io is its own registrable domain), or a name that is not a
	// DNS host name (exa$mple.com, a..b).
	ReasonNoRegistrableDomain = "no_registrable_domain"
	ReasonInvalidCountry      = "invalid_country" // the partition country given to Analyze is not valid
)

// URLError reports a URL that cannot become a domain record. It carries the
// input as given, so a caller can report each rejected URL next to its
// reason without keeping the pair itself.
type URLError struct {
	Reason string // one of the Reason constants
	Input  string // the input as given, untrimmed
}

// Error formats the reason and a shortened, quoted input; it never panics,
// not even on a nil receiver or invalid UTF-8.
func (e *URLError) Error() string {
	if e == nil {
		return "discover: <nil>"
	}
	return "discover: " + e.Reason + ": " + strconv.Quote(seedengine.Truncate(e.Input, 100))
}

// ReasonOf is the reason err (from Analyze) gives for refusing a URL:
// its URLError's Reason, or invalid_url for any other error.
func ReasonOf(err error) string {
	var ue *URLError
	if errors.As(err, &ue) && ue.Reason != "" {
		return ue.Reason
	}
	return ReasonInvalidURL
}

func urlError(reason, input string) *URLError {
	return &URLError{Reason: reason, Input: input}
}
