package orchestrate_test

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/discover"
	"github.com/seedengine/seedengine/internal/orchestrate"
)

var testPartition = seedengine.Partition{Country: "sg", Category: "news", Date: "2026-01-28"}

const testMeta = `{"dataset_id":"sg-news-2026-01-28-0001","country":"SG","category":"news","date":"2026-01-28","record_count":%d}`

// dataset builds a raw file from record objects, meta first.
func dataset(records ...string) string {
	return `{"meta":` + strings.Replace(testMeta, "%d", itoa(len(records)), 1) + `,"records":[` + strings.Join(records, ",") + `]}`
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b []byte
	for ; n > 0; n /= 10 {
		b = append([]byte{byte('0' + n%10)}, b...)
	}
	return string(b)
}

func rec(rawURL, domainID string) string {
	s := `{"raw_url":"` + rawURL + `"`
	if domainID != "" {
		s += `,"domain_id":"` + domainID + `"`
	}
	return s + `,"confidence":0.9}`
}

func TestExtractDomains(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		input string
		want  orchestrate.FileDomains
	}{
		{
			name: "valid domain ids are reused",
			input: dataset(
				rec("https://www.mom.gov.sg/newsroom", "gov:sg:mom.gov.sg"),
				// The id wins over the URL, even when they disagree.
				rec("https://example.com/x", "media:sg:straitstimes.com"),
			),
			want: orchestrate.FileDomains{
				Domains: []orchestrate.FileDomain{
					{DomainID: "gov:sg:mom.gov.sg", Domain: "mom.gov.sg"},
					{DomainID: "media:sg:straitstimes.com", Domain: "straitstimes.com"},
				},
				Records: 2,
			},
		},
		{
			name: "raw_url is normalised when the id is missing or invalid",
			input: dataset(
				rec("HTTPS://WWW.MOM.GOV.SG/newsroom?utm_source=x", ""),
				rec("https://news.example.com/a", "bogus"),
				rec("www.who.int/news", "gov:zz:who.int"),
			),
			want: orchestrate.FileDomains{
				Domains: []orchestrate.FileDomain{
					{DomainID: "gov:sg:mom.gov.sg", Domain: "mom.gov.sg"},
					{DomainID: "com:sg:example.com", Domain: "example.com"},
					{DomainID: "ngo:intl:who.int", Domain: "who.int"},
				},
				Records: 3,
				FromURL: 3,
			},
		},
		{
			name: "normalized_url when raw_url fails or is empty",
			input: dataset(
				`{"raw_url":"mailto:x@y.sg","normalized_url":"https://www.gov.sg/","confidence":1}`,
				`{"raw_url":"","normalized_url":"https://data.gov.sg/","confidence":1}`,
			),
			want: orchestrate.FileDomains{
				Domains: []orchestrate.FileDomain{
					{DomainID: "gov:sg:www.gov.sg", Domain: "www.gov.sg"},
					{DomainID: "gov:sg:data.gov.sg", Domain: "data.gov.sg"},
				},
				Records: 2,
				FromURL: 2,
			},
		},
		{
			name: "bad records are counted with reasons",
			input: dataset(
				rec("https://www.gov.sg/", ""),
				rec("mailto:someone@gov.sg", ""),
				rec("ftp://files.example.com/", ""),
				rec("https://localhost/", ""),
				rec("https://co.uk/", ""),
				rec("   ", ""),
				`{"confidence":0.5}`,
				rec("https://[2001:db8::1]/", ""),
			),
			want: orchestrate.FileDomains{
				Domains: []orchestrate.FileDomain{{DomainID: "gov:sg:www.gov.sg", Domain: "www.gov.sg"}},
				Records: 8,
				Bad:     7,
				BadReasons: map[string]int{
					discover.ReasonUnsupportedScheme: 2,
					// localhost and an IPv6 literal: valid URLs whose host
					// cannot be a domain record.
					discover.ReasonNoRegistrableDomain: 3,
					discover.ReasonEmpty:               2,
				},
				FromURL: 1,
			},
		},
		{
			name: "duplicates keep the first record's id",
			input: dataset(
				rec("https://www.mom.gov.sg/a", "gov:sg:mom.gov.sg"),
				rec("https://mom.gov.sg/b", ""),
				rec("https://www.straitstimes.com/", "media:sg:straitstimes.com"),
				rec("https://sub.mom.gov.sg/c", "other:sg:mom.gov.sg"),
				rec("https://straitstimes.com/x", "media:sg:straitstimes.com"),
			),
			want: orchestrate.FileDomains{
				Domains: []orchestrate.FileDomain{
					{DomainID: "gov:sg:mom.gov.sg", Domain: "mom.gov.sg"},
					{DomainID: "media:sg:straitstimes.com", Domain: "straitstimes.com"},
				},
				Records:    5,
				Duplicates: 3,
				FromURL:    1,
			},
		},
		{
			name: "meta after records, unknown members kept out of the way",
			input: `{"x-producer":{"a":[1,2]},"records":[` + rec("https://www.gov.sg/", "gov:sg:gov.sg") +
				`],"meta":` + strings.Replace(testMeta, "%d", "1", 1) + `}`,
			want: orchestrate.FileDomains{
				Domains: []orchestrate.FileDomain{{DomainID: "gov:sg:gov.sg", Domain: "gov.sg"}},
				Records: 1,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := orchestrate.ExtractDomains(strings.NewReader(tt.input), nil, testPartition)
			require.NoError(t, err)
			if tt.want.BadReasons == nil {
				tt.want.BadReasons = map[string]int{}
			}
			require.Equal(t, tt.want, *got)
			require.Equal(t, got.Records, len(got.Domains)+got.Duplicates+got.Bad)
		})
	}
}

func TestExtractDomainsMalformed(t *testing.T) {
	t.Parallel()
	good := rec("https://www.gov.sg/", "gov:sg:gov.sg")
	tests := []struct {
		name    string
		input   string
		field   string
		message string // a part of the message
	}{
		{"empty file", ``, "", "ends early"},
		{"not an object", `[1,2]`, "", "JSON object"},
		{"broken meta", `{"meta":{"country":"SG",}`, "meta", "invalid JSON"},
		{"broken record", dataset(good, good, `{"raw_url":"https://x.sg/",,}`), "records[2]", "records[2]: invalid JSON"},
		{"wrong type in a record", dataset(good, `{"raw_url":"https://x.sg/","confidence":"high"}`), "records[1].confidence", "records[1].confidence must be a number"},
		{"cut in the records", dataset(good, good)[:strings.LastIndex(dataset(good, good), "gov:sg")], "records[1]", "records[1]: the dataset ends early"},
		{"cut after the records", strings.TrimSuffix(dataset(good), "}"), "", "ends early"},
		{"trailing garbage", dataset(good) + `{}`, "", "after the dataset"},
		{"records not an array", `{"meta":` + strings.Replace(testMeta, "%d", "1", 1) + `,"records":{}}`, "records", "array"},
		{"record over 1 MiB", dataset(`{"raw_url":"https://x.sg/` + strings.Repeat("a", 2<<20) + `"}`), "records[0]", "larger than 1 MiB"},
		{"meta missing", `{"records":[` + good + `]}`, "meta", "meta is required"},
		{"no records", dataset(), "records", "at least one record"},
		{"record_count wrong", strings.Replace(dataset(good, good), `"record_count":2`, `"record_count":3`, 1), "meta.record_count", "3 but the file has 2"},
		{"wrong country", strings.Replace(dataset(good), `"SG"`, `"MY"`, 1), "meta.country", `"MY"`},
		{"wrong category", strings.Replace(dataset(good), `"news"`, `"policy"`, 1), "meta.category", `"policy"`},
		{"wrong date", strings.Replace(dataset(good), `"date":"2026-01-28"`, `"date":"2026-01-29"`, 1), "meta.date", "2026-01-29"},
		{"wrong date, meta last", `{"records":[` + good + `],"meta":` +
			strings.Replace(strings.Replace(testMeta, "%d", "1", 1), `"date":"2026-01-28"`, `"date":"2026-01-27"`, 1) + `}`, "meta.date", "2026-01-27"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := orchestrate.ExtractDomains(strings.NewReader(tt.input), nil, testPartition)
			require.Error(t, err)
			require.Nil(t, got)
			require.Equal(t, seedengine.EINVALID, seedengine.ErrorCode(err), "%v", err)
			require.Equal(t, tt.field, seedengine.ErrorField(err), "%v", err)
			require.Contains(t, seedengine.ErrorMessage(err), tt.message)
		})
	}
}

func TestExtractDomainsCountryAnyCase(t *testing.T) {
	t.Parallel()
	in := strings.Replace(dataset(rec("https://www.gov.sg/", "")), `"SG"`, `"sg"`, 1)
	got, err := orchestrate.ExtractDomains(strings.NewReader(in), discover.DefaultClassifier(), testPartition)
	require.NoError(t, err)
	require.Len(t, got.Domains, 1)
}

func TestExtractDomainsBadInput(t *testing.T) {
	t.Parallel()
	t.Run("invalid partition", func(t *testing.T) {
		t.Parallel()
		_, err := orchestrate.ExtractDomains(strings.NewReader(dataset()), nil, seedengine.Partition{Country: "xx", Category: "news", Date: "2026-01-28"})
		require.Equal(t, seedengine.EINVALID, seedengine.ErrorCode(err))
	})
	t.Run("reader error is not EINVALID", func(t *testing.T) {
		t.Parallel()
		boom := errors.New("connection reset by the store")
		r := io.MultiReader(strings.NewReader(dataset(rec("https://www.gov.sg/", ""))[:100]), iotest.ErrReader(boom))
		_, err := orchestrate.ExtractDomains(r, nil, testPartition)
		require.ErrorIs(t, err, boom)
		require.Equal(t, seedengine.EINTERNAL, seedengine.ErrorCode(err))
	})
}
