package discover

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine"
)

// analyzeCases are hand-checked URLs from 40 countries and international
// bodies: for each, the authority, the rule that decided it, the country and
// the domain_id. partition is the country the URL was researched for, which
// only generic TLDs (.com, .org, .net, example.io, …) take on.
var analyzeCases = []struct {
	url, partition string
	authority      seedengine.Authority
	rule, country  string
	domainID       string
}{
	// Singapore
	{"https://www.mom.gov.sg/newsroom", "sg", "gov", "suffix:gov.sg", "sg", "gov:sg:mom.gov.sg"},
	{"https://www.mindef.gov.sg/web/portal/mindef/news-and-events", "sg", "mil", "domain:mindef.gov.sg", "sg", "mil:sg:mindef.gov.sg"},
	{"https://www.nus.edu.sg/news", "sg", "edu", "suffix:edu.sg", "sg", "edu:sg:nus.edu.sg"},
	{"https://www.straitstimes.com/singapore", "sg", "media", "domain:straitstimes.com", "sg", "media:sg:straitstimes.com"},
	{"https://www.dbs.com.sg/personal/default.page", "sg", "com", "suffix:com.sg", "sg", "com:sg:dbs.com.sg"},
	// United Kingdom (.uk → gb)
	{"https://www.gov.uk/government/news", "gb", "gov", "suffix:gov.uk", "gb", "gov:gb:www.gov.uk"},
	{"https://www.ons.gov.uk/releases", "gb", "gov", "suffix:gov.uk", "gb", "gov:gb:ons.gov.uk"},
	{"https://www.ox.ac.uk/news", "gb", "edu", "suffix:ac.uk", "gb", "edu:gb:ox.ac.uk"},
	{"https://www.bbc.co.uk/news/world", "gb", "media", "domain:bbc.co.uk", "gb", "media:gb:bbc.co.uk"},
	{"https://www.nhs.uk/conditions/", "gb", "gov", "suffix:nhs.uk", "gb", "gov:gb:www.nhs.uk"},
	{"https://www.tesco.co.uk/", "gb", "com", "suffix:co.uk", "gb", "com:gb:tesco.co.uk"},
	{"https://www.redcross.org.uk/", "gb", "org", "suffix:org.uk", "gb", "org:gb:redcross.org.uk"},
	{"https://www.bbc.com/news", "sg", "media", "domain:bbc.com", "gb", "media:gb:bbc.com"},
	{"https://www.ukri.org/", "gb", "org", "tld:org", "gb", "org:gb:ukri.org"},
	// United States
	{"https://www.whitehouse.gov/briefing-room/", "us", "gov", "tld:gov", "us", "gov:us:whitehouse.gov"},
	{"https://www.usa.gov/", "sg", "gov", "tld:gov", "us", "gov:us:usa.gov"},
	{"https://www.army.mil/news", "us", "mil", "tld:mil", "us", "mil:us:army.mil"},
	{"https://web.mit.edu/", "us", "edu", "tld:edu", "us", "edu:us:mit.edu"},
	{"https://www.nytimes.com/section/world", "sg", "media", "domain:nytimes.com", "us", "media:us:nytimes.com"},
	{"https://s3.amazonaws.com/bucket/report.pdf", "us", "com", "tld:com", "us", "com:us:amazonaws.com"},
	// Japan
	{"https://www.mhlw.go.jp/stf/houdou/", "jp", "gov", "suffix:go.jp", "jp", "gov:jp:mhlw.go.jp"},
	{"https://www.u-tokyo.ac.jp/en/", "jp", "edu", "suffix:ac.jp", "jp", "edu:jp:u-tokyo.ac.jp"},
	{"https://www3.nhk.or.jp/news/", "jp", "media", "domain:nhk.or.jp", "jp", "media:jp:nhk.or.jp"},
	{"https://global.toyota/en/", "jp", "other", "default:other", "jp", "other:jp:global.toyota"},
	// South Korea
	{"https://www.mofa.go.kr/eng/index.do", "kr", "gov", "suffix:go.kr", "kr", "gov:kr:mofa.go.kr"},
	{"https://www.korea.kr/news/", "kr", "gov", "domain:korea.kr", "kr", "gov:kr:korea.kr"},
	{"https://www.snu.ac.kr/", "kr", "edu", "suffix:ac.kr", "kr", "edu:kr:snu.ac.kr"},
	{"https://www.samsung.com/sec/", "kr", "com", "tld:com", "kr", "com:kr:samsung.com"},
	// France
	{"https://www.economie.gouv.fr/actualites", "fr", "gov", "suffix:gouv.fr", "fr", "gov:fr:economie.gouv.fr"},
	{"https://www.defense.gouv.fr/actualites", "fr", "mil", "domain:defense.gouv.fr", "fr", "mil:fr:defense.gouv.fr"},
	{"https://www.lemonde.fr/international/", "fr", "media", "domain:lemonde.fr", "fr", "media:fr:lemonde.fr"},
	{"https://www.elysee.fr/", "fr", "gov", "domain:elysee.fr", "fr", "gov:fr:elysee.fr"},
	// Mexico
	{"https://www.sat.gob.mx/", "mx", "gov", "suffix:gob.mx", "mx", "gov:mx:sat.gob.mx"},
	{"https://www.unam.mx/", "mx", "other", "default:other", "mx", "other:mx:unam.mx"},
	// Canada
	{"https://www.canada.ca/en/news.html", "ca", "gov", "domain:canada.ca", "ca", "gov:ca:canada.ca"},
	{"https://www.tpsgc-pwgsc.gc.ca/", "ca", "gov", "suffix:gc.ca", "ca", "gov:ca:tpsgc-pwgsc.gc.ca"},
	{"https://www.quebec.ca/nouvelles", "ca", "gov", "domain:quebec.ca", "ca", "gov:ca:quebec.ca"},
	{"https://www.cbc.ca/news", "ca", "media", "domain:cbc.ca", "ca", "media:ca:cbc.ca"},
	// New Zealand
	{"https://www.health.govt.nz/news", "nz", "gov", "suffix:govt.nz", "nz", "gov:nz:health.govt.nz"},
	{"https://www.auckland.ac.nz/", "nz", "edu", "suffix:ac.nz", "nz", "edu:nz:auckland.ac.nz"},
	// Switzerland
	{"https://www.bag.admin.ch/bag/en/home.html", "ch", "gov", "domain:admin.ch", "ch", "gov:ch:admin.ch"},
	{"https://ethz.ch/en.html", "ch", "other", "default:other", "ch", "other:ch:ethz.ch"},
	// Germany
	{"https://www.bmi.bund.de/DE/startseite/startseite-node.html", "de", "gov", "domain:bund.de", "de", "gov:de:bund.de"},
	{"https://www.spiegel.de/international/", "de", "media", "domain:spiegel.de", "de", "media:de:spiegel.de"},
	{"https://www.dw.com/en/top-stories/s-9097", "sg", "media", "domain:dw.com", "de", "media:de:dw.com"},
	{"https://münchen.de/", "de", "other", "default:other", "de", "other:de:xn--mnchen-3ya.de"},
	// Italy, Spain
	{"https://www.salute.gov.it/portale/news", "it", "gov", "suffix:gov.it", "it", "gov:it:salute.gov.it"},
	{"https://www.lamoncloa.gob.es/", "es", "gov", "suffix:gob.es", "es", "gov:es:lamoncloa.gob.es"},
	{"https://www.boe.es/", "es", "gov", "domain:boe.es", "es", "gov:es:boe.es"},
	// Australia
	{"https://www.health.gov.au/news", "au", "gov", "suffix:gov.au", "au", "gov:au:health.gov.au"},
	{"https://www.defence.gov.au/news-events", "au", "mil", "domain:defence.gov.au", "au", "mil:au:defence.gov.au"},
	{"https://www.unimelb.edu.au/", "au", "edu", "suffix:edu.au", "au", "edu:au:unimelb.edu.au"},
	{"https://www.abc.net.au/news", "au", "media", "domain:abc.net.au", "au", "media:au:abc.net.au"},
	{"https://www.abc.com.au/", "au", "com", "suffix:com.au", "au", "com:au:abc.com.au"},
	// India
	{"https://www.india.gov.in/", "in", "gov", "suffix:gov.in", "in", "gov:in:india.gov.in"},
	{"https://mha.nic.in/", "in", "gov", "suffix:nic.in", "in", "gov:in:mha.nic.in"},
	{"https://www.iitb.ac.in/", "in", "edu", "suffix:ac.in", "in", "edu:in:iitb.ac.in"},
	// Brazil, Argentina, Uruguay, Colombia
	{"https://www.gov.br/saude/pt-br", "br", "gov", "suffix:gov.br", "br", "gov:br:www.gov.br"},
	{"https://gov.br/", "br", "gov", "suffix:gov.br", "br", "gov:br:gov.br"},
	{"https://portal.stf.jus.br/", "br", "gov", "suffix:jus.br", "br", "gov:br:stf.jus.br"},
	{"https://www.usp.br/", "br", "other", "default:other", "br", "other:br:usp.br"},
	{"https://g1.globo.com/", "br", "media", "domain:globo.com", "br", "media:br:globo.com"},
	{"https://www.argentina.gob.ar/", "ar", "gov", "suffix:gob.ar", "ar", "gov:ar:argentina.gob.ar"},
	{"https://www.gub.uy/", "uy", "gov", "suffix:gub.uy", "uy", "gov:uy:www.gub.uy"},
	{"https://www.mintic.gov.co/", "co", "gov", "suffix:gov.co", "co", "gov:co:mintic.gov.co"},
	// International bodies
	{"https://www.who.int/news-room", "sg", "ngo", "tld:int", "intl", "ngo:intl:who.int"},
	{"https://www.nato.int/", "be", "ngo", "tld:int", "intl", "ngo:intl:nato.int"},
	{"https://news.un.org/en/", "us", "ngo", "domain:un.org", "intl", "ngo:intl:un.org"},
	{"https://commission.europa.eu/news", "be", "ngo", "domain:europa.eu", "intl", "ngo:intl:europa.eu"},
	// Europe
	{"https://www.rijksoverheid.nl/actueel", "nl", "gov", "domain:rijksoverheid.nl", "nl", "gov:nl:rijksoverheid.nl"},
	{"https://www.belgium.be/en", "be", "gov", "domain:belgium.be", "be", "gov:be:belgium.be"},
	{"https://www.oesterreich.gv.at/", "at", "gov", "suffix:gv.at", "at", "gov:at:oesterreich.gv.at"},
	{"https://www.regeringen.se/", "se", "gov", "domain:regeringen.se", "se", "gov:se:regeringen.se"},
	{"https://www.regjeringen.no/", "no", "gov", "domain:regjeringen.no", "no", "gov:no:regjeringen.no"},
	{"https://www.gov.pl/web/gov", "pl", "gov", "suffix:gov.pl", "pl", "gov:pl:www.gov.pl"},
	{"https://www.uw.edu.pl/", "pl", "edu", "suffix:edu.pl", "pl", "edu:pl:uw.edu.pl"},
	{"http://www.kremlin.ru/", "ru", "gov", "domain:kremlin.ru", "ru", "gov:ru:kremlin.ru"},
	{"https://пример.рф/", "ru", "other", "default:other", "ru", "other:ru:xn--e1afmkfd.xn--p1ai"},
	// Africa, Middle East, Asia
	{"https://www.gov.za/news", "za", "gov", "suffix:gov.za", "za", "gov:za:www.gov.za"},
	{"https://www.uct.ac.za/", "za", "edu", "suffix:ac.za", "za", "edu:za:uct.ac.za"},
	{"https://www.gov.il/en", "il", "gov", "suffix:gov.il", "il", "gov:il:www.gov.il"},
	{"https://www.huji.ac.il/", "il", "edu", "suffix:ac.il", "il", "edu:il:huji.ac.il"},
	{"https://www.turkiye.gov.tr/", "tr", "gov", "suffix:gov.tr", "tr", "gov:tr:turkiye.gov.tr"},
	{"https://www.kemlu.go.id/", "id", "gov", "suffix:go.id", "id", "gov:id:kemlu.go.id"},
	{"https://www.ui.ac.id/", "id", "edu", "suffix:ac.id", "id", "edu:id:ui.ac.id"},
	{"https://www.thaigov.go.th/", "th", "gov", "suffix:go.th", "th", "gov:th:thaigov.go.th"},
	{"https://www.gov.cn/", "cn", "gov", "suffix:gov.cn", "cn", "gov:cn:www.gov.cn"},
	{"https://www.tsinghua.edu.cn/", "cn", "edu", "suffix:edu.cn", "cn", "edu:cn:tsinghua.edu.cn"},
	// Generic TLDs take the partition's country
	{"https://en.wikipedia.org/wiki/Singapore", "sg", "org", "tld:org", "sg", "org:sg:wikipedia.org"},
	{"https://github.com/seedengine", "de", "com", "tld:com", "de", "com:de:github.com"},
	{"https://www.example.net/", "fr", "other", "default:other", "fr", "other:fr:example.net"},
	{"https://example.co/", "sg", "other", "default:other", "sg", "other:sg:example.co"},
	{"https://startup.io/", "gb", "other", "default:other", "gb", "other:gb:startup.io"},
	{"https://sermitsiaq.ag/", "gl", "other", "default:other", "gl", "other:gl:sermitsiaq.ag"},
	{"https://ab.gov.ag/", "gl", "gov", "domain:gov.ag", "ag", "gov:ag:gov.ag"},
	// A rule's country wins over the partition's
	{"https://www.reuters.com/", "gl", "media", "domain:reuters.com", "gb", "media:gb:reuters.com"},
	{"https://www.amnesty.ngo/", "gb", "ngo", "tld:ngo", "gb", "ngo:gb:amnesty.ngo"},
	{"HTTPS://WWW.MOM.GOV.SG/newsroom?utm_source=x", "SG", "gov", "suffix:gov.sg", "sg", "gov:sg:mom.gov.sg"},
	// A sub-domain label may start or end with a hyphen; invalid Punycode
	// is kept as it is (both as browsers read them)
	{"https://-x-.example.com/", "sg", "com", "tld:com", "sg", "com:sg:example.com"},
	{"https://xn--zz.example.org/", "fr", "org", "tld:org", "fr", "org:fr:example.org"},
}

func TestAnalyze(t *testing.T) {
	t.Parallel()
	c := DefaultClassifier()
	countries := map[string]bool{}
	for _, tc := range analyzeCases {
		t.Run(tc.url, func(t *testing.T) {
			t.Parallel()
			r, err := c.Analyze(tc.url, tc.partition)
			require.NoError(t, err)
			require.Equal(t, tc.authority, r.Authority)
			require.Equal(t, tc.rule, r.AuthorityRule)
			require.Equal(t, tc.country, r.Country)
			require.Equal(t, tc.domainID, r.DomainID)
			require.Equal(t, tc.authority.SourceType(), r.SourceType)

			a, country, reg, err := seedengine.ParseDomainID(r.DomainID)
			require.NoError(t, err, "domain_id must parse")
			require.Equal(t, r.Authority, a)
			require.Equal(t, r.Country, country)
			require.Equal(t, r.RegistrableDomain, reg)

			n, host, err := NormalizeURL(tc.url)
			require.NoError(t, err)
			require.Equal(t, n, r.NormalizedURL)
			require.Equal(t, host, r.Host)
		})
		countries[tc.country] = true
	}
	require.GreaterOrEqual(t, len(analyzeCases), 60)
	require.GreaterOrEqual(t, len(countries), 15)
}

func TestAnalyzeRejects(t *testing.T) {
	t.Parallel()
	c := DefaultClassifier()
	for _, tc := range []struct{ url, partition, reason string }{
		{"", "sg", ReasonEmpty},
		{"mailto:info@gov.sg", "sg", ReasonUnsupportedScheme},
		{"https://localhost/", "sg", ReasonNoRegistrableDomain},
		{"http://exa mple.com/", "sg", ReasonInvalidHost},
		{"https://192.0.2.10/status", "sg", ReasonNoRegistrableDomain},
		{"https://[2001:db8::1]/", "jp", ReasonNoRegistrableDomain},
		{"http://0x7f.1/", "sg", ReasonNoRegistrableDomain},
		{"https://example.com:99999/", "sg", ReasonInvalidURL},
		{"https://co.uk/", "gb", ReasonNoRegistrableDomain},
		{"https://ac.uk/", "gb", ReasonNoRegistrableDomain},
		{"https://com.au/", "au", ReasonNoRegistrableDomain},
		{"https://www.gov.sg/", "xx", ReasonInvalidCountry},
		{"https://www.gov.sg/", "", ReasonInvalidCountry},
	} {
		_, err := c.Analyze(tc.url, tc.partition)
		var ue *URLError
		require.True(t, errors.As(err, &ue), tc.url)
		require.Equal(t, tc.reason, ue.Reason, tc.url)
		require.Equal(t, tc.url, ue.Input)
	}
}

// TestLookAlikes: a rule matches only on label boundaries of the
// registrable domain, so names that merely contain a government suffix,
// or put it in front of a domain someone else registered, get nothing
// from it.
func TestLookAlikes(t *testing.T) {
	t.Parallel()
	c := DefaultClassifier()
	for _, tc := range []struct{ url, domainID string }{
		{"https://abcgov.us/", "other:us:abcgov.us"},
		{"https://gov.sg.evil.com/", "com:sg:evil.com"},
		{"https://www.gov.sg.evil.com/gov.sg", "com:sg:evil.com"},
		{"https://govsg.com/", "com:sg:govsg.com"},
		{"https://gov-sg.com/", "com:sg:gov-sg.com"},
		{"https://mygov.sg/", "other:sg:mygov.sg"},
		{"https://evilgov.uk/", "other:gb:evilgov.uk"},
		{"https://www.gov.uk.phishing.net/", "other:sg:phishing.net"},
		{"https://who.int.example.com/", "com:sg:example.com"},
		{"https://int.example.org/", "org:sg:example.org"},
		{"https://www.ac.com/", "com:sg:ac.com"},
		{"https://edu.evil.io/", "other:sg:evil.io"},
		{"https://mil.example.net/", "other:sg:example.net"},
		{"https://fakeedu.com/", "com:sg:fakeedu.com"},
		{"https://go.jp.example.jp/", "other:jp:example.jp"},
		{"https://user@gov.sg@evil.com/", "com:sg:evil.com"},
		{"https://evil.com/?u=https://www.gov.sg/", "com:sg:evil.com"},
		{"https://evil.com#@www.gov.sg", "com:sg:evil.com"},
		{"https://xn--gov-sg-ge0b.com/", "com:sg:xn--gov-sg-ge0b.com"},
	} {
		r, err := c.Analyze(tc.url, "sg")
		require.NoError(t, err, tc.url)
		require.Equal(t, tc.domainID, r.DomainID, tc.url)
		require.NotEqual(t, seedengine.AuthorityGov, r.Authority, tc.url)
	}
}

// TestAnalyzeMatchesParts: Analyze (with its domain cache, hit or missed,
// from several goroutines at once) gives exactly what the public parts give
// when composed by hand.
func TestAnalyzeMatchesParts(t *testing.T) {
	t.Parallel()
	c, err := NewClassifier()
	require.NoError(t, err)
	corpus := benchCorpus(3_000)
	for _, tc := range analyzeCases {
		corpus = append(corpus, tc.url)
	}
	partitions := []string{"sg", "gb", "us", "FR"}

	want := make([]Record, len(corpus)*len(partitions))
	for i, u := range corpus {
		for j, p := range partitions {
			norm, host, err := NormalizeURL(u)
			require.NoError(t, err, u)
			reg, err := c.RegistrableDomain(host)
			require.NoError(t, err, u)
			v := c.Classify(host, reg, p)
			want[i*len(partitions)+j] = Record{
				NormalizedURL: norm, Host: host, RegistrableDomain: reg,
				Authority: v.Authority, AuthorityRule: v.Rule, Country: v.Country,
				DomainID:   seedengine.DomainID(v.Authority, v.Country, reg),
				SourceType: v.Authority.SourceType(),
			}
		}
	}

	done := make(chan error, 4)
	for range 4 {
		go func() {
			for range 3 { // a miss, a miss that fills the cache, a hit
				for i, u := range corpus {
					for j, p := range partitions {
						got, err := c.Analyze(u, p)
						if err != nil || got != want[i*len(partitions)+j] {
							done <- fmt.Errorf("%s in %s: got %+v, %v", u, p, got, err)
							return
						}
					}
				}
			}
			done <- nil
		}()
	}
	for range 4 {
		require.NoError(t, <-done)
	}
}

// TestDomainCache: a host enters the cache on its second miss, and from
// then on analysing a URL in normal form does not allocate at all.
func TestDomainCache(t *testing.T) {
	c, err := NewClassifier()
	require.NoError(t, err)
	const u = "https://www.mom.gov.sg/newsroom"
	cached := func() int {
		n := 0
		for i := range c.cache.slots {
			if c.cache.slots[i].Load() != nil {
				n++
			}
		}
		return n
	}
	first, err := c.Analyze(u, "sg")
	require.NoError(t, err)
	require.Zero(t, cached(), "a one-off host is not cached")
	second, err := c.Analyze(u, "sg")
	require.NoError(t, err)
	require.Equal(t, 1, cached())
	require.Equal(t, first, second)

	allocs := testing.AllocsPerRun(100, func() {
		if _, err := c.Analyze(u, "sg"); err != nil {
			t.Fatal(err)
		}
	})
	require.Zero(t, allocs)

	// The partition country is part of the key.
	other, err := c.Analyze("https://github.com/", "de")
	require.NoError(t, err)
	for range 2 {
		r, err := c.Analyze("https://github.com/", "fr")
		require.NoError(t, err)
		require.Equal(t, "com:fr:github.com", r.DomainID)
	}
	require.Equal(t, "com:de:github.com", other.DomainID)
	r, err := c.Analyze("https://github.com/", "de")
	require.NoError(t, err)
	require.Equal(t, "com:de:github.com", r.DomainID)
}
