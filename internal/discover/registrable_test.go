package discover

import (
	"bufio"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// pslDeliberateDifferences are the Public Suffix List test cases where our
// policy gives another answer on purpose, with the answer we give. Each is
// explained in doc.go.
var pslDeliberateDifferences = map[string]string{
	// A private-section suffix that is the whole host is a site run by the
	// owner of the ICANN registrable domain (like s3.amazonaws.com).
	"uk.com": "uk.com",
}

// TestRegistrableDomainPSL runs every case of the Public Suffix List's own
// test file. Inputs are host names in any case and in U-labels, so they go
// through NormalizeHost first, as a URL's host would; "null" means no
// registrable domain, which includes hosts NormalizeHost rejects (a single
// label, a leading dot).
func TestRegistrableDomainPSL(t *testing.T) {
	t.Parallel()
	f, err := os.Open("testdata/psl-tests.txt")
	require.NoError(t, err)
	defer f.Close()

	cases, differences := 0, 0
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "//") {
			continue
		}
		fields := strings.Fields(text)
		require.Len(t, fields, 2, "line %d", line)
		input, want := fields[0], fields[1]
		if input == "null" {
			input = ""
		}
		if want != "null" {
			want, err = NormalizeHost(want)
			require.NoError(t, err, "line %d: expected value", line)
		}
		if d, ok := pslDeliberateDifferences[input]; ok {
			differences++
			want = d
		}

		got := "null"
		if host, err := NormalizeHost(input); err == nil {
			if reg, err := RegistrableDomain(host); err == nil {
				got = reg
			} else {
				var ue *URLError
				require.True(t, errors.As(err, &ue))
			}
		}
		require.Equal(t, want, got, "line %d: %s", line, text)
		cases++
	}
	require.NoError(t, sc.Err())
	require.Equal(t, 78, cases, "every case of the file ran")
	require.Equal(t, len(pslDeliberateDifferences), differences)
	t.Logf("%d PSL cases, %d deliberate differences", cases, differences)
}

func TestRegistrableDomainPolicies(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ host, want, reason string }{
		{"www.mom.gov.sg", "mom.gov.sg", ""},
		{"www.gov.uk", "www.gov.uk", ""},
		{"example.example", "example.example", ""}, // unlisted TLD: the PSL's default rule
		// Government and military suffixes as a whole host are kept (DESIGN §2).
		{"gov.br", "gov.br", ""},
		{"gov.uk", "gov.uk", ""},
		{"gouv.fr", "gouv.fr", ""},
		{"go.jp", "go.jp", ""},
		{"gc.ca", "gc.ca", ""},
		{"govt.nz", "govt.nz", ""},
		{"mil.br", "mil.br", ""},
		{"police.uk", "police.uk", ""},
		{"gov.ru", "gov.ru", ""}, // a private-section suffix with a gov rule
		// Other suffixes are not sites.
		{"co.uk", "", ReasonNoRegistrableDomain},
		{"com.au", "", ReasonNoRegistrableDomain},
		{"ac.uk", "", ReasonNoRegistrableDomain},
		{"ac.jp", "", ReasonNoRegistrableDomain},
		{"k12.ak.us", "", ReasonNoRegistrableDomain},
		// Private-section suffixes as a whole host belong to their ICANN
		// registrable domain.
		{"github.io", "github.io", ""},
		{"blogspot.com", "blogspot.com", ""},
		{"s3.amazonaws.com", "amazonaws.com", ""},
		{"foo.github.io", "foo.github.io", ""},
		// Hyphens at the ends of a label only below the registrable domain.
		{"-x-.example.com", "example.com", ""},
		{"-x-.blogspot.com", "", ReasonNoRegistrableDomain}, // the registrable domain itself
		{"-x.example.com", "example.com", ""},
		{"x-.example.com", "example.com", ""},
		{"-example.com", "", ReasonNoRegistrableDomain},
		{"example-.co.uk", "", ReasonNoRegistrableDomain},
		{"my_site.example.com", "example.com", ""},
		// IP addresses are not domains.
		{"192.0.2.1", "", ReasonNoRegistrableDomain},
		{"127.1", "", ReasonNoRegistrableDomain},
		{"0x7f.0.0.1", "", ReasonNoRegistrableDomain},
		{"[2001:db8::1]", "", ReasonNoRegistrableDomain},
		// Nor are names that are not DNS host names.
		{".", "", ReasonNoRegistrableDomain},
		{"com", "", ReasonNoRegistrableDomain},
		{"localhost", "", ReasonNoRegistrableDomain},
		{".example.com", "", ReasonNoRegistrableDomain},
		{"example.com.", "", ReasonNoRegistrableDomain},
		{"a..b", "", ReasonNoRegistrableDomain},
		{"exa$mple.com", "", ReasonNoRegistrableDomain},
		{"Example.com", "", ReasonNoRegistrableDomain},
		{strings.Repeat("a", 64) + ".com", "", ReasonNoRegistrableDomain},
		{strings.Repeat("abcdefghi.", 26) + "com", "", ReasonNoRegistrableDomain},
		// Not a host at all.
		{"", "", ReasonInvalidHost},
	} {
		got, err := RegistrableDomain(tc.host)
		if tc.reason == "" {
			require.NoError(t, err, tc.host)
			require.Equal(t, tc.want, got, tc.host)
			continue
		}
		var ue *URLError
		require.True(t, errors.As(err, &ue), "%s: got %q", tc.host, got)
		require.Equal(t, tc.reason, ue.Reason, tc.host)
	}
}
