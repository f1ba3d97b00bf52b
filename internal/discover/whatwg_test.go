package discover

import (
	"encoding/json"
	"errors"
	"net/netip"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/net/publicsuffix"
)

// wptCase is one case of the web-platform-tests URL expectations
// (testdata/urltestdata.json).
type wptCase struct {
	Input    string  `json:"input"`
	Base     *string `json:"base"`
	Failure  bool    `json:"failure"`
	Href     string  `json:"href"`
	Hostname string  `json:"hostname"`
	Port     string  `json:"port"`
}

// wptSelected reports whether TestWHATWGURL runs a case: it has no base
// (null or absent), and its input, after the standard's preprocessing
// (leading and trailing C0 controls and spaces trimmed, then every ASCII
// tab and newline removed), starts with "http:" or "https:" in any case.
// Those are the absolute http and https URLs, whatever follows the colon:
// without a base, the standard reads "http:x" and "http:/x" as "http://x",
// as we do.
func wptSelected(c *wptCase) bool {
	if c.Base != nil {
		return false
	}
	s := strings.TrimFunc(c.Input, func(r rune) bool { return r <= ' ' })
	s = strings.NewReplacer("\t", "", "\n", "", "\r", "").Replace(s)
	scheme, _, ok := strings.Cut(s, ":")
	return ok && (strings.EqualFold(scheme, "http") || strings.EqualFold(scheme, "https"))
}

// wptDeviations are the selected cases where we answer otherwise than the
// URL Standard on purpose, by input, with the reason. TestWHATWGURL checks
// that each still deviates, so the list cannot go stale.
var wptDeviations = map[string]string{}

// TestWHATWGURL holds NormalizeURL and Analyze to the URL Standard, through
// every absolute http(s) case of web-platform-tests' urltestdata.json (see
// wptSelected):
//
//   - a failure must be rejected as invalid_host or invalid_url;
//   - a success must be accepted by NormalizeURL with the standard's
//     hostname and port, and Analyze must make a record on that host, or,
//     when the host has no registrable domain (an IP address, a single
//     label, a name that is not a DNS host name or has no public suffix,
//     decided here independently), reject it as no_registrable_domain.
func TestWHATWGURL(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("testdata/urltestdata.json")
	require.NoError(t, err)
	var items []json.RawMessage
	require.NoError(t, json.Unmarshal(data, &items))

	c := DefaultClassifier()
	var selected, failures, records, noRecord, deviations int
	for i, item := range items {
		if item[0] == '"' {
			continue // a comment
		}
		var tc wptCase
		require.NoError(t, json.Unmarshal(item, &tc), "item %d", i)
		if !wptSelected(&tc) {
			continue
		}
		selected++
		norm, host, nerr := NormalizeURL(tc.Input)
		r, aerr := c.Analyze(tc.Input, "sg")
		msg := []any{"item %d: input %q, standard %q, got %q", i, tc.Input, tc.Href, norm}

		if why, ok := wptDeviations[tc.Input]; ok {
			deviations++
			met := nerr != nil && tc.Failure || nerr == nil && !tc.Failure && host == tc.Hostname
			require.False(t, met, append([]any{"listed as a deviation (" + why + "), but agrees with the standard: "}, msg...)...)
			continue
		}
		if tc.Failure {
			failures++
			for _, err := range []error{nerr, aerr} {
				var ue *URLError
				require.True(t, errors.As(err, &ue), msg...)
				require.Contains(t, []string{ReasonInvalidHost, ReasonInvalidURL}, ue.Reason, msg...)
			}
			continue
		}

		require.NoError(t, nerr, msg...)
		require.Equal(t, tc.Hostname, host, msg...)
		require.Equal(t, tc.Port, urlPort(norm), msg...)
		if wptHasRegistrableDomain(tc.Hostname) {
			records++
			require.NoError(t, aerr, msg...)
			require.Equal(t, norm, r.NormalizedURL, msg...)
			require.Equal(t, tc.Hostname, r.Host, msg...)
			continue
		}
		noRecord++
		var ue *URLError
		require.True(t, errors.As(aerr, &ue), msg...)
		require.Equal(t, ReasonNoRegistrableDomain, ue.Reason, msg...)
	}
	t.Logf("urltestdata.json: %d absolute http(s) cases without a base: %d failures rejected, %d records, %d valid without a registrable domain, %d deviations",
		selected, failures, records, noRecord, deviations)
	require.Equal(t, 280, selected, "the selection changed: check the new cases")
	require.Equal(t, len(wptDeviations), deviations, "every listed deviation is a selected case")
}

// wptInputs returns the input of every case of urltestdata.json, selected
// or not, as seeds for FuzzAnalyze.
func wptInputs(tb testing.TB) []string {
	tb.Helper()
	data, err := os.ReadFile("testdata/urltestdata.json")
	require.NoError(tb, err)
	var cases []json.RawMessage
	require.NoError(tb, json.Unmarshal(data, &cases))
	var inputs []string
	for _, item := range cases {
		var tc wptCase
		if item[0] == '{' && json.Unmarshal(item, &tc) == nil {
			inputs = append(inputs, tc.Input)
		}
	}
	return inputs
}

// wptHasRegistrableDomain decides, without the code under test, whether a
// host of the standard's has a registrable domain for us: not an IP
// address, at least two labels of a-z, 0-9, "-" and "_" of 1 to 63 bytes
// (253 in all), and an eTLD+1 in the Public Suffix List whose own label
// neither starts nor ends with "-".
func wptHasRegistrableDomain(host string) bool {
	if strings.HasPrefix(host, "[") {
		return false
	}
	if a, err := netip.ParseAddr(host); err == nil && a.Is4() {
		return false
	}
	labels := strings.Split(host, ".")
	if len(labels) < 2 || len(host) > 253 {
		return false
	}
	for _, l := range labels {
		if l == "" || len(l) > 63 || strings.Trim(l, "abcdefghijklmnopqrstuvwxyz0123456789-_") != "" {
			return false
		}
	}
	reg, err := publicsuffix.EffectiveTLDPlusOne(host)
	return err == nil && !strings.HasPrefix(reg, "-") && !strings.Contains(reg, "-.")
}

// urlPort returns the port of a normalised URL, "" when it has none.
func urlPort(norm string) string {
	_, rest, _ := strings.Cut(norm, "://")
	auth, _, _ := strings.Cut(rest, "/")
	if i := strings.LastIndexByte(auth, ':'); i >= 0 && !strings.HasSuffix(auth, "]") {
		if _, err := strconv.Atoi(auth[i+1:]); err == nil {
			return auth[i+1:]
		}
	}
	return ""
}
