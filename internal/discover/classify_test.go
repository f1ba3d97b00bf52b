package discover

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/net/publicsuffix"

	"github.com/seedengine/seedengine"
)

func TestBuiltinRuleTable(t *testing.T) {
	t.Parallel()
	c, err := NewClassifier()
	require.NoError(t, err)
	require.Equal(t, c.Rules(), DefaultClassifier().Rules())

	var f RuleFile
	require.NoError(t, json.Unmarshal(builtinRules, &f))
	require.Len(t, c.Rules(), len(f.Rules))
	for _, r := range f.Rules {
		require.NotEmpty(t, r.Note, "%s: every built-in rule says what it is", r.Match)
		if label, ok := strings.CutSuffix(r.Match, ".*"); ok {
			n := 0
			for s := range c.rules {
				if strings.HasPrefix(s, label+".") && strings.Count(s, ".") == 1 {
					n++
				}
			}
			require.Positive(t, n, "%s expands to at least one suffix", r.Match)
		}
	}
	for tld, cc := range f.TLDCountries {
		ps, icann := publicsuffix.PublicSuffix(tld)
		require.True(t, ps == tld && icann, "%s is an ICANN TLD", tld)
		require.NoError(t, seedengine.ValidateCountry(cc))
	}
	// Every compiled verdict is valid: a known authority, a valid country
	// where one is fixed, a rule id of a known kind.
	for s, r := range c.rules {
		require.True(t, r.authority.Valid(), s)
		if r.country != "" {
			require.NoError(t, seedengine.ValidateCountry(r.country), s)
		}
		kind, suffix, ok := strings.Cut(r.id, ":")
		require.True(t, ok, s)
		require.Contains(t, []string{"tld", "suffix", "domain"}, kind, s)
		require.Equal(t, s, suffix)
	}
}

func TestClassifyRules(t *testing.T) {
	t.Parallel()
	c := DefaultClassifier()
	for _, tc := range []struct {
		registrable, partition string
		want                   Verdict
	}{
		// Longest match first: mindef.gov.sg beats gov.sg.
		{"mindef.gov.sg", "sg", Verdict{"mil", "sg", "domain:mindef.gov.sg"}},
		{"mom.gov.sg", "sg", Verdict{"gov", "sg", "suffix:gov.sg"}},
		// Explicit suffix rows and "label.*" expansions report the suffix.
		{"ox.ac.uk", "sg", Verdict{"edu", "gb", "suffix:ac.uk"}},
		{"snu.ac.kr", "sg", Verdict{"edu", "kr", "suffix:ac.kr"}},
		{"example.com.br", "sg", Verdict{"com", "br", "suffix:com.br"}},
		{"example.org.au", "sg", Verdict{"org", "au", "suffix:org.au"}},
		{"example.mil.ng", "sg", Verdict{"mil", "ng", "suffix:mil.ng"}},
		{"example.gouv.ci", "sg", Verdict{"gov", "ci", "suffix:gouv.ci"}},
		// A "label.*" row covers ICANN suffixes only: com.de is a private one.
		{"example.com.de", "sg", Verdict{"other", "de", "default:other"}},
		// ccTLD countries, generic ccTLDs and IDN ccTLDs.
		{"example.uk", "sg", Verdict{"other", "gb", "default:other"}},
		{"example.de", "sg", Verdict{"other", "de", "default:other"}},
		{"example.io", "sg", Verdict{"other", "sg", "default:other"}},
		{"example.tv", "jp", Verdict{"other", "jp", "default:other"}},
		{"example.com.co", "sg", Verdict{"com", "co", "suffix:com.co"}},
		// "Directly under a generic ccTLD" is decided by the ICANN suffix:
		// a site under a private suffix is as generic as the suffix.
		{"foo.github.io", "sg", Verdict{"other", "sg", "default:other"}},
		{"github.io", "sg", Verdict{"other", "sg", "default:other"}},
		{"a.b.github.io", "jp", Verdict{"other", "jp", "default:other"}},
		{"foo.blogspot.com.co", "sg", Verdict{"com", "co", "suffix:com.co"}},
		{"example.co", "sg", Verdict{"other", "sg", "default:other"}},
		{"example.xn--fiqs8s", "sg", Verdict{"other", "cn", "default:other"}},
		{"example.eu", "fr", Verdict{"other", "fr", "default:other"}},
		{"example.su", "fr", Verdict{"other", "fr", "default:other"}},
		// ccTLDs mostly registered for their meaning are generic too
		// (docs/research.md): Greenland's Sermitsiaq.AG is Greenland's when
		// research for gl finds it. Their second-level suffixes and the
		// rules with a country keep the ccTLD's country.
		{"sermitsiaq.ag", "gl", Verdict{"other", "gl", "default:other"}},
		{"example.ag", "de", Verdict{"other", "de", "default:other"}},
		{"example.com.ag", "gl", Verdict{"com", "ag", "suffix:com.ag"}},
		{"gov.ag", "gl", Verdict{"gov", "ag", "domain:gov.ag"}},
		{"example.gg", "gb", Verdict{"other", "gb", "default:other"}},
		{"gov.gg", "gb", Verdict{"gov", "gg", "domain:gov.gg"}},
		{"example.sh", "us", Verdict{"other", "us", "default:other"}},
		{"example.gov.sh", "us", Verdict{"gov", "sh", "suffix:gov.sh"}},
		{"example.to", "jp", Verdict{"other", "jp", "default:other"}},
		{"example.vc", "us", Verdict{"other", "us", "default:other"}},
		{"example.ac", "gb", Verdict{"other", "gb", "default:other"}},
		{"example.cx", "au", Verdict{"other", "au", "default:other"}},
		{"example.pw", "de", Verdict{"other", "de", "default:other"}},
		{"example.gs", "gb", Verdict{"other", "gb", "default:other"}},
		{"example.tf", "fr", Verdict{"other", "fr", "default:other"}},
		// Those whose registrations mostly serve their country stay national.
		{"knr.gl", "dk", Verdict{"other", "gl", "default:other"}},
		{"alwasat.ly", "eg", Verdict{"other", "ly", "default:other"}},
		{"news.am", "ru", Verdict{"other", "am", "default:other"}},
		{"example.im", "gb", Verdict{"other", "im", "default:other"}},
		// gTLDs take the partition's country, except US-only ones.
		{"example.com", "fr", Verdict{"com", "fr", "tld:com"}},
		{"example.org", "fr", Verdict{"org", "fr", "tld:org"}},
		{"example.info", "fr", Verdict{"other", "fr", "default:other"}},
		{"example.gov", "fr", Verdict{"gov", "us", "tld:gov"}},
		{"example.edu", "fr", Verdict{"edu", "us", "tld:edu"}},
		{"example.mil", "fr", Verdict{"mil", "us", "tld:mil"}},
		{"example.int", "fr", Verdict{"ngo", "intl", "tld:int"}},
		{"example.xn--zfr164b", "fr", Verdict{"gov", "cn", "tld:xn--zfr164b"}},
		// Partition country: any case accepted; invalid falls back to intl.
		{"example.com", "FR", Verdict{"com", "fr", "tld:com"}},
		{"example.com", "zz", Verdict{"com", "intl", "tld:com"}},
		{"example.com", "", Verdict{"com", "intl", "tld:com"}},
		{"192.0.2.1", "sg", Verdict{"other", "sg", "default:ip"}},
		{"[2001:db8::1]", "sg", Verdict{"other", "sg", "default:ip"}},
	} {
		require.Equal(t, tc.want, c.Classify("www."+tc.registrable, tc.registrable, tc.partition), tc.registrable)
	}
	// Through Analyze: a github.io site keeps the partition's country.
	r, err := c.Analyze("https://foo.github.io/blog", "sg")
	require.NoError(t, err)
	require.Equal(t, "foo.github.io", r.RegistrableDomain)
	require.Equal(t, "other:sg:foo.github.io", r.DomainID)
	// With no registrable domain the host is used.
	require.Equal(t, Verdict{"gov", "sg", "suffix:gov.sg"}, c.Classify("mom.gov.sg", "", "sg"))
	// Garbage in, a valid verdict out.
	for _, s := range []string{"", ".", "..", "a.", ".a", "[", "]", "1", "\xff"} {
		v := c.Classify(s, s, "sg")
		require.True(t, v.Authority.Valid(), "%q", s)
		require.NoError(t, seedengine.ValidateCountry(v.Country), "%q", s)
	}
}

func TestOperatorRules(t *testing.T) {
	t.Parallel()
	site := `{
		"comment": "site rules",
		"rules": [
			{"match": "gov.sg", "authority": "other", "note": "override a built-in row"},
			{"match": "example.com", "authority": "media", "country": "sg"},
			{"match": "state.tx.us", "authority": "gov", "country": "us"},
			{"match": "k12.tx.us", "authority": "edu"},
			{"match": "ne.*", "authority": "org"},
			{"match": "ac.uk", "authority": "gov"}
		],
		"tld_countries": {"eu": "be"},
		"generic_cctlds": ["de"]
	}`
	later := `{"rules": [{"match": "example.com", "authority": "com"}]}`
	c, err := NewClassifier(strings.NewReader(site), strings.NewReader(later))
	require.NoError(t, err)

	for _, tc := range []struct{ url, partition, domainID, rule string }{
		{"https://www.mom.gov.sg/", "sg", "other:sg:mom.gov.sg", "suffix:gov.sg"},
		{"https://www.mindef.gov.sg/", "sg", "mil:sg:mindef.gov.sg", "domain:mindef.gov.sg"}, // longer built-in row still wins
		{"https://www.example.com/", "fr", "com:fr:example.com", "domain:example.com"},       // the later file wins
		{"https://www.state.tx.us/", "us", "gov:us:state.tx.us", "domain:state.tx.us"},
		{"https://school.k12.tx.us/", "us", "edu:us:school.k12.tx.us", "suffix:k12.tx.us"},
		{"https://www.example.ne.jp/", "jp", "org:jp:example.ne.jp", "suffix:ne.jp"},
		{"https://ac.uk/", "gb", "gov:gb:ac.uk", "suffix:ac.uk"}, // now a gov suffix: kept as a host
		{"https://example.eu/", "fr", "other:be:example.eu", "default:other"},
		{"https://example.de/", "fr", "other:fr:example.de", "default:other"},
		{"https://example.com.de/", "fr", "other:fr:example.com.de", "default:other"}, // com.de is a private suffix: directly under .de by ICANN
		{"https://www.who.int/", "fr", "ngo:intl:who.int", "tld:int"},
	} {
		r, err := c.Analyze(tc.url, tc.partition)
		require.NoError(t, err, tc.url)
		require.Equal(t, tc.domainID, r.DomainID, tc.url)
		require.Equal(t, tc.rule, r.AuthorityRule, tc.url)
	}
	rules := c.Rules()
	require.Contains(t, rules, Rule{Match: "gov.sg", Authority: "other", Note: "override a built-in row"})
	require.Contains(t, rules, Rule{Match: "example.com", Authority: "com"})

	// The default classifier is untouched.
	r, err := DefaultClassifier().Analyze("https://www.mom.gov.sg/", "sg")
	require.NoError(t, err)
	require.Equal(t, "gov:sg:mom.gov.sg", r.DomainID)
}

func TestOperatorRulesNilReader(t *testing.T) {
	t.Parallel()
	_, err := NewClassifier(nil)
	require.ErrorContains(t, err, "rule file 1: no reader")
}

func TestOperatorRulesFromFile(t *testing.T) {
	t.Parallel()
	f, err := os.Open("rules.json")
	require.NoError(t, err)
	defer f.Close()
	// The built-in table is itself a valid operator file.
	_, err = NewClassifier(f)
	require.NoError(t, err)
}

func TestOperatorRuleErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, file, msg string }{
		{"not json", `{`, "rule file 2: parse"},
		{"unknown field", `{"rules": [{"match": "a.com", "authority": "gov", "contry": "us"}]}`, "unknown field"},
		{"unknown top-level field", `{"rule": []}`, "unknown field"},
		{"trailing data", `{"rules": []} {}`, "data after"},
		{"unknown authority", `{"rules": [{"match": "a.com", "authority": "government"}]}`, `unknown authority "government"`},
		{"bad country", `{"rules": [{"match": "a.com", "authority": "gov", "country": "XX"}]}`, "not an ISO"},
		{"upper case", `{"rules": [{"match": "A.com", "authority": "gov"}]}`, "lower-case A-labels"},
		{"u-label", `{"rules": [{"match": "münchen.de", "authority": "gov"}]}`, "lower-case A-labels"},
		{"empty", `{"rules": [{"match": "", "authority": "gov"}]}`, "lower-case A-labels"},
		{"dots", `{"rules": [{"match": ".gov.xx", "authority": "gov"}]}`, "lower-case A-labels"},
		{"leading wildcard", `{"rules": [{"match": "*.gov", "authority": "gov"}]}`, "lower-case A-labels"},
		{"deep wildcard", `{"rules": [{"match": "a.b.*", "authority": "gov"}]}`, `"label.*"`},
		{"ip", `{"rules": [{"match": "192.0.2.1", "authority": "gov"}]}`, "not an IP"},
		{"below registrable", `{"rules": [{"match": "news.bbc.co.uk", "authority": "media"}]}`, `below the registrable domain "bbc.co.uk"`},
		{"duplicate", `{"rules": [{"match": "a.com", "authority": "gov"}, {"match": "a.com", "authority": "edu"}]}`, "listed twice"},
		{"bad tld country", `{"rules": [], "tld_countries": {"xx": "zz"}}`, "tld_countries"},
		{"bad tld", `{"rules": [], "tld_countries": {"a.b": "de"}}`, "tld_countries"},
		{"bad generic", `{"rules": [], "generic_cctlds": ["com"]}`, "generic_cctlds"},
	} {
		_, err := NewClassifier(strings.NewReader(`{"rules": []}`), strings.NewReader(tc.file))
		require.Error(t, err, tc.name)
		require.Contains(t, err.Error(), tc.msg, tc.name)
		require.Contains(t, err.Error(), "rule file 2", tc.name)
	}
}
