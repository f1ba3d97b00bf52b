package discover

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine"
)

// FuzzAnalyze feeds arbitrary strings through the whole pipeline: nothing
// may panic, a normalised URL must normalise to itself and analyse to the
// same record, net/url must read it back as the same URL, and where the net/url
// reference covers the input the two must agree. The seed corpus is every
// URL of the table tests, every input of the URL Standard's test file
// (testdata/urltestdata.json) and testdata/fuzz/FuzzAnalyze.
func FuzzAnalyze(f *testing.F) {
	for _, tc := range normalizeCases {
		f.Add(tc.in)
	}
	for _, tc := range rejectCases {
		f.Add(tc.in)
	}
	for _, tc := range analyzeCases {
		f.Add(tc.url)
	}
	for _, u := range trickyCorpus(200) {
		f.Add(u)
	}
	for _, u := range wptInputs(f) {
		f.Add(u)
	}
	c := DefaultClassifier()
	f.Fuzz(func(t *testing.T, raw string) {
		// Pure functions on arbitrary input: no panics.
		_, _ = RegistrableDomain(raw)
		_, _ = NormalizeHost(raw)
		v := c.Classify(raw, raw, raw)
		require.True(t, v.Authority.Valid())
		require.NoError(t, seedengine.ValidateCountry(v.Country))

		checkAgainstNetURL(t, raw)

		r, err := c.Analyze(raw, "sg")
		if err != nil {
			var ue *URLError
			require.ErrorAs(t, err, &ue)
			require.NotEmpty(t, ue.Reason)
			require.Equal(t, raw, ue.Input)
			_ = ue.Error()
			return
		}
		a, country, reg, err := seedengine.ParseDomainID(r.DomainID)
		require.NoError(t, err, "domain_id %q of %q", r.DomainID, raw)
		require.Equal(t, r.Authority, a)
		require.Equal(t, r.Country, country)
		require.Equal(t, r.RegistrableDomain, reg)
		require.Equal(t, r.Authority.SourceType(), r.SourceType)
		require.Equal(t, seedengine.DomainID(r.Authority, r.Country, r.RegistrableDomain), r.DomainID)

		again, err := c.Analyze(r.NormalizedURL, "sg")
		require.NoError(t, err)
		require.Equal(t, r, again, "analysing the normalised URL changes nothing")
	})
}
