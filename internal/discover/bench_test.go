package discover

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"
)

// benchHosts is a realistic mix of the hosts research finds: government,
// education, international bodies, news media and companies across many
// countries, with and without "www.".
var benchHosts = []string{
	"www.mom.gov.sg", "www.moh.gov.sg", "www.mindef.gov.sg", "www.nus.edu.sg", "www.straitstimes.com", "www.channelnewsasia.com",
	"www.gov.uk", "www.ons.gov.uk", "www.nhs.uk", "www.ox.ac.uk", "www.cam.ac.uk", "www.bbc.co.uk", "www.theguardian.com", "www.tesco.co.uk",
	"www.whitehouse.gov", "www.cdc.gov", "www.nasa.gov", "www.army.mil", "www.mit.edu", "www.stanford.edu", "www.nytimes.com", "apnews.com",
	"www.mhlw.go.jp", "www.mofa.go.jp", "www.u-tokyo.ac.jp", "www3.nhk.or.jp", "www.asahi.com", "www.toyota.co.jp",
	"www.korea.kr", "www.mofa.go.kr", "www.snu.ac.kr", "www.samsung.co.kr",
	"www.gouv.fr", "www.economie.gouv.fr", "www.defense.gouv.fr", "www.lemonde.fr", "www.sorbonne-universite.fr",
	"www.gob.mx", "www.unam.mx", "www.sat.gob.mx",
	"www.canada.ca", "www.tpsgc-pwgsc.gc.ca", "www.cbc.ca", "www.utoronto.ca",
	"www.govt.nz", "www.health.govt.nz", "www.auckland.ac.nz", "www.rnz.co.nz",
	"www.admin.ch", "www.bag.admin.ch", "www.ethz.ch",
	"www.bund.de", "www.bundesregierung.de", "www.spiegel.de", "www.tagesschau.de", "www.tum.de",
	"www.governo.it", "www.salute.gov.it", "www.rai.it",
	"www.lamoncloa.gob.es", "www.boe.es", "elpais.com",
	"www.australia.gov.au", "www.health.gov.au", "www.unimelb.edu.au", "www.abc.net.au",
	"www.india.gov.in", "www.mha.nic.in", "www.iitb.ac.in", "www.thehindu.com",
	"www.gov.br", "www.stf.jus.br", "www.usp.br", "g1.globo.com",
	"www.who.int", "www.nato.int", "www.un.org", "www.worldbank.org", "europa.eu", "commission.europa.eu",
	"www.wikipedia.org", "github.com", "www.linkedin.com", "medium.com", "www.example.com", "news.ycombinator.com",
	"www.rijksoverheid.nl", "www.nos.nl", "www.belgium.be", "www.oesterreich.gv.at", "www.regeringen.se",
	"www.gov.za", "www.uct.ac.za", "www.gov.il", "www.huji.ac.il", "www.turkiye.gov.tr", "www.go.id", "www.ui.ac.id",
	"www.thaigov.go.th", "www.chula.ac.th", "www.gov.cn", "www.tsinghua.edu.cn", "www.gov.pl", "www.uw.edu.pl",
}

var benchPaths = []string{
	"/", "/news", "/newsroom", "/en/news/2026/01/28/press-release", "/about-us/", "/publications/reports/annual-report-2025.pdf",
	"/policy/economy", "/articles/2026-01-28/market-update", "/en/", "/media-centre/press-releases", "/research/papers/index.html",
	"/world/asia/singapore-budget", "/sport/football/12345678", "/topics/climate-change", "/gov/en/topics", "/a/b/c/d/e",
}

var benchQueries = []string{
	"", "", "", "", "?page=2", "?id=12345", "?lang=en&page=3", "?q=budget+2026&sort=date",
	"?utm_source=twitter&utm_medium=social&utm_campaign=launch", "?fbclid=IwAR0abcdefghijklmnop", "?id=42&gclid=Cj0KCQiA",
	"?ref=homepage", "?s=climate&utm_source=newsletter",
}

// benchCorpus builds n URLs as research finds them: about half already in
// normal form, the rest with the usual mistakes and noise (upper-case
// hosts, missing schemes, default ports, fragments, tracking parameters).
func benchCorpus(n int) []string {
	rng := rand.New(rand.NewPCG(1, 2))
	out := make([]string, n)
	for i := range out {
		host := benchHosts[rng.IntN(len(benchHosts))]
		path := benchPaths[rng.IntN(len(benchPaths))]
		query := benchQueries[rng.IntN(len(benchQueries))]
		scheme := "https://"
		switch rng.IntN(20) {
		case 0:
			scheme = "http://"
		case 1:
			scheme = ""
		case 2:
			scheme = "HTTPS://"
		case 3:
			host = strings.ToUpper(host)
		case 4:
			host += ":443"
		case 5:
			path += "#section-" + strconv.Itoa(rng.IntN(10))
		case 6:
			path = "/en/./news/../media" + path
		}
		out[i] = scheme + host + path + query
	}
	return out
}

func BenchmarkAnalyze(b *testing.B) {
	corpus := benchCorpus(10_000)
	c := DefaultClassifier()
	b.ReportAllocs()
	i := 0
	cpu0 := processCPUTime()
	for b.Loop() {
		if _, err := c.Analyze(corpus[i], "sg"); err != nil {
			b.Fatal(err)
		}
		if i++; i == len(corpus) {
			i = 0
		}
	}
	reportThroughput(b, processCPUTime()-cpu0)
}

// reportThroughput adds URLs per second of wall time and, where the
// platform can tell, CPU nanoseconds per URL and URLs per CPU second: the
// per-core figure, which does not move when other processes share the
// machine.
func reportThroughput(b *testing.B, cpu time.Duration) {
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "urls/s")
	if cpu > 0 {
		b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
		b.ReportMetric(float64(b.N)/cpu.Seconds(), "urls/cpu-s")
	}
}

// BenchmarkAnalyzeDistinctHosts is the worst case for the domain cache:
// 100,000 URLs, each on a host of its own (six times the cache's slots), so
// nearly every URL pays for the Public Suffix List lookup, the rule walk and
// a new domain_id.
func BenchmarkAnalyzeDistinctHosts(b *testing.B) {
	corpus := benchCorpus(100_000)
	for i, u := range corpus {
		// "https://www.mom.gov.sg/x" → "https://h123.mom.gov.sg/x"
		scheme, rest, ok := strings.Cut(u, "://")
		if !ok {
			scheme, rest = "https", u
		}
		corpus[i] = scheme + "://h" + strconv.Itoa(i) + "." + strings.TrimPrefix(strings.ToLower(rest), "www.")
	}
	c := DefaultClassifier()
	b.ReportAllocs()
	i := 0
	cpu0 := processCPUTime()
	for b.Loop() {
		if _, err := c.Analyze(corpus[i], "sg"); err != nil {
			b.Fatal(err)
		}
		if i++; i == len(corpus) {
			i = 0
		}
	}
	reportThroughput(b, processCPUTime()-cpu0)
}

func BenchmarkNormalizeURL(b *testing.B) {
	corpus := benchCorpus(10_000)
	b.ReportAllocs()
	i := 0
	cpu0 := processCPUTime()
	for b.Loop() {
		if _, _, err := NormalizeURL(corpus[i]); err != nil {
			b.Fatal(err)
		}
		if i++; i == len(corpus) {
			i = 0
		}
	}
	reportThroughput(b, processCPUTime()-cpu0)
}

func BenchmarkRegistrableDomain(b *testing.B) {
	c := DefaultClassifier()
	b.ReportAllocs()
	i := 0
	cpu0 := processCPUTime()
	for b.Loop() {
		if _, reason := c.registrable(benchHosts[i]); reason != "" {
			b.Fatal(reason)
		}
		if i++; i == len(benchHosts) {
			i = 0
		}
	}
	reportThroughput(b, processCPUTime()-cpu0)
}

func BenchmarkClassify(b *testing.B) {
	c := DefaultClassifier()
	regs := make([]string, len(benchHosts))
	for i, h := range benchHosts {
		regs[i], _ = c.registrable(h)
	}
	b.ReportAllocs()
	i := 0
	cpu0 := processCPUTime()
	for b.Loop() {
		c.classify(regs[i], "sg")
		if i++; i == len(regs) {
			i = 0
		}
	}
	reportThroughput(b, processCPUTime()-cpu0)
}
