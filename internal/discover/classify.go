package discover

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"golang.org/x/net/publicsuffix"

	"github.com/seedengine/seedengine"
)

//go:embed rules.json
var builtinRules []byte

// Rule is one row of an authority rule file. Rules are data so that a
// verdict can always be explained by the row that produced it, and so that
// operators can add rows for their own countries without a release.
type Rule struct {
	// Match is a registrable domain ("bund.de"), a public suffix ("gov.sg"),
	// a TLD ("int") or "label.*" for that label under every country-code
	// TLD where it is an ICANN public suffix ("gov.*" → gov.uk, gov.br, …).
	// Lower-case A-labels.
	Match string `json:"match"`
	// Authority is given to every registrable domain the rule matches.
	Authority seedengine.Authority `json:"authority"`
	// Country, when set, overrides the country the TLD or partition would
	// give ("gov" → "us", "int" → "intl", "bbc.com" → "gb").
	Country string `json:"country,omitempty"`
	// Note says what the rule is about, for people reading the table.
	Note string `json:"note,omitempty"`
}

// RuleFile is the format of rules.json and of operators' rule files.
type RuleFile struct {
	// Comment is free text, since JSON has no comments.
	Comment string `json:"comment,omitempty"`
	Rules   []Rule `json:"rules"`
	// TLDCountries maps TLDs that are not their country's ISO code to that
	// code: "uk" → "gb" and the internationalised ccTLDs ("xn--p1ai" → "ru").
	TLDCountries map[string]string `json:"tld_countries,omitempty"`
	// GenericCCTLDs are country-code TLDs used by anyone (io, co, tv, …):
	// a domain registered directly under one says nothing about a country.
	GenericCCTLDs []string `json:"generic_cctlds,omitempty"`
}

// Verdict is the authority and country of a registrable domain, with the
// rule that decided them, so every classification can be explained and
// audited.
type Verdict struct {
	Authority seedengine.Authority
	Country   string
	// Rule is "tld:int", "suffix:gov.sg", "domain:bund.de" (what the
	// matching rule's Match is; a "label.*" rule reports the suffix it
	// matched), "default:other" when no rule matched, or "default:ip".
	Rule string
}

// Rule names of verdicts that no table row produced.
const (
	RuleDefault = "default:other"
	RuleIP      = "default:ip"
)

// Record is everything the research pipeline stores about one URL.
type Record struct {
	NormalizedURL     string
	Host              string
	RegistrableDomain string
	Authority         seedengine.Authority
	AuthorityRule     string
	Country           string
	DomainID          string
	SourceType        string
}

// Classifier assigns authorities and countries from a rule table. Its
// rules never change once built; it keeps a small cache of recently seen
// domains for Analyze, and is safe for concurrent use.
type Classifier struct {
	rules     map[string]*compiledRule // by suffix, "label.*" rows expanded
	maxLabels int                      // labels of the longest key in rules
	tlds      map[string]tldInfo
	table     []Rule
	cache     *domainCache
}

type compiledRule struct {
	authority seedengine.Authority
	country   string // "" = from the TLD or the partition, at run time
	id        string // "suffix:gov.sg"
	// keep: a public suffix of gov or mil authority, used as its own
	// registrable domain when it is the whole host (DESIGN §2: gov.br).
	keep bool
}

type tldInfo struct {
	country string
	generic bool // only a second level under it implies the country
}

var defaultClassifier = sync.OnceValue(func() *Classifier {
	c, err := NewClassifier()
	if err != nil {
		panic("discover: built-in rules.json: " + err.Error())
	}
	return c
})

// DefaultClassifier returns the classifier of the built-in rule table,
// parsed once and shared.
func DefaultClassifier() *Classifier { return defaultClassifier() }

// NewClassifier builds a classifier from the built-in table and operators'
// rule files in the same format, applied in order. A row of a later file
// replaces the row with the same Match; TLD countries are merged the same
// way and generic ccTLDs are added. Unknown fields, bad patterns, unknown
// authorities and invalid countries are errors naming the file and row, so
// a typo in an operator's file fails at start-up, not silently.
func NewClassifier(extra ...io.Reader) (*Classifier, error) {
	files := make([]RuleFile, 0, 1+len(extra))
	f, err := parseRuleFile(bytes.NewReader(builtinRules))
	if err != nil {
		return nil, fmt.Errorf("built-in rules: %w", err)
	}
	files = append(files, f)
	for i, r := range extra {
		if r == nil {
			return nil, fmt.Errorf("rule file %d: no reader", i+1)
		}
		f, err := parseRuleFile(r)
		if err != nil {
			return nil, fmt.Errorf("rule file %d: %w", i+1, err)
		}
		files = append(files, f)
	}
	return compile(files), nil
}

func parseRuleFile(r io.Reader) (RuleFile, error) {
	var f RuleFile
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return f, fmt.Errorf("parse: %w", err)
	}
	if dec.More() {
		return f, errors.New("parse: data after the top-level object")
	}
	seen := make(map[string]bool, len(f.Rules))
	for i, r := range f.Rules {
		if err := validateRule(r); err != nil {
			return f, fmt.Errorf("rule %d (%q): %w", i+1, r.Match, err)
		}
		if seen[r.Match] {
			return f, fmt.Errorf("rule %d: %q is listed twice", i+1, r.Match)
		}
		seen[r.Match] = true
	}
	for tld, cc := range f.TLDCountries {
		if !validPatternLabels(tld) || strings.IndexByte(tld, '.') >= 0 {
			return f, fmt.Errorf("tld_countries: %q is not a lower-case A-label TLD", tld)
		}
		if err := seedengine.ValidateCountry(cc); err != nil {
			return f, fmt.Errorf("tld_countries: %q: %s", tld, seedengine.ErrorMessage(err))
		}
	}
	for _, tld := range f.GenericCCTLDs {
		if len(tld) != 2 || !isLower(tld[0]) || !isLower(tld[1]) {
			return f, fmt.Errorf("generic_cctlds: %q is not a two-letter TLD", tld)
		}
	}
	return f, nil
}

func validateRule(r Rule) error {
	if !r.Authority.Valid() {
		return fmt.Errorf("unknown authority %q", r.Authority)
	}
	if r.Country != "" {
		if err := seedengine.ValidateCountry(r.Country); err != nil {
			return errors.New(seedengine.ErrorMessage(err))
		}
	}
	p := r.Match
	if label, ok := strings.CutSuffix(p, ".*"); ok {
		if !validPatternLabels(label) || strings.IndexByte(label, '.') >= 0 {
			return errors.New(`a wildcard rule is "label.*"`)
		}
		return nil
	}
	if !validPatternLabels(p) {
		return errors.New("match must be lower-case A-labels (punycode) separated by dots")
	}
	if endsInNumber(p) {
		return errors.New("match must be a domain, not an IP address")
	}
	// Rules classify registrable domains, so a rule below one ("news.bbc.co.uk")
	// could never match; say so instead of ignoring it.
	if reg, err := publicsuffix.EffectiveTLDPlusOne(p); err == nil && reg != p {
		return fmt.Errorf("match is below the registrable domain %q; rules match registrable domains and their suffixes", reg)
	}
	return nil
}

// validPatternLabels accepts dot-separated labels of [a-z0-9_-], 1 to 63
// bytes, not starting or ending with a hyphen.
func validPatternLabels(p string) bool {
	if p == "" || len(p) > 253 {
		return false
	}
	for label := range strings.SplitSeq(p, ".") {
		if label == "" || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return false
		}
		for i := 0; i < len(label); i++ {
			if c := label[i]; !isLower(c) && !isDigit(c) && c != '-' && c != '_' {
				return false
			}
		}
	}
	return true
}

func compile(files []RuleFile) *Classifier {
	c := &Classifier{
		rules: map[string]*compiledRule{},
		tlds:  map[string]tldInfo{},
		cache: &domainCache{seed: maphash.MakeSeed()},
	}

	// TLD → country: every two-letter TLD that is an assigned ISO code is
	// its own country, then the files' mappings (uk → gb, IDN ccTLDs).
	for a := byte('a'); a <= 'z'; a++ {
		for b := byte('a'); b <= 'z'; b++ {
			if cc := string([]byte{a, b}); seedengine.ValidateCountry(cc) == nil {
				c.tlds[cc] = tldInfo{country: cc}
			}
		}
	}
	merged := map[string]Rule{}
	for _, f := range files {
		for tld, cc := range f.TLDCountries {
			c.tlds[tld] = tldInfo{country: cc, generic: c.tlds[tld].generic}
		}
		for _, tld := range f.GenericCCTLDs {
			t := c.tlds[tld]
			t.generic = true
			c.tlds[tld] = t
		}
		for _, r := range f.Rules {
			merged[r.Match] = r
		}
	}
	for tld, t := range c.tlds {
		if t.generic && t.country == "" {
			delete(c.tlds, tld) // "su": generic and no country at all
		}
	}

	c.table = make([]Rule, 0, len(merged))
	for _, r := range merged {
		c.table = append(c.table, r)
	}
	slices.SortFunc(c.table, func(a, b Rule) int { return strings.Compare(a.Match, b.Match) })

	// Wildcard rows first, so that explicit rows for the same suffix win.
	candidates := make([]string, 0, len(c.tlds))
	for tld := range c.tlds {
		candidates = append(candidates, tld)
	}
	slices.Sort(candidates)
	for _, r := range c.table {
		label, ok := strings.CutSuffix(r.Match, ".*")
		if !ok {
			continue
		}
		for _, tld := range candidates {
			s := label + "." + tld
			if ps, icann := publicsuffix.PublicSuffix(s); ps != s || !icann {
				continue
			}
			c.rules[s] = c.compileRule(r, s)
		}
	}
	for _, r := range c.table {
		if !strings.HasSuffix(r.Match, ".*") {
			c.rules[r.Match] = c.compileRule(r, r.Match)
		}
	}
	for s := range c.rules {
		c.maxLabels = max(c.maxLabels, strings.Count(s, ".")+1)
	}
	return c
}

// compileRule prepares rule r for suffix s (r.Match, or one expansion of a
// "label.*" row).
func (c *Classifier) compileRule(r Rule, s string) *compiledRule {
	ps, _ := publicsuffix.PublicSuffix(s)
	isSuffix := ps == s
	kind := "domain:"
	switch {
	case strings.IndexByte(s, '.') < 0:
		kind = "tld:"
	case isSuffix:
		kind = "suffix:"
	}
	cr := &compiledRule{
		authority: r.Authority,
		country:   r.Country,
		id:        kind + s,
		keep:      isSuffix && kind == "suffix:" && (r.Authority == seedengine.AuthorityGov || r.Authority == seedengine.AuthorityMil),
	}
	// A public suffix below a ccTLD (gov.co, com.au) belongs to that
	// country even when the ccTLD itself is used generically.
	if cr.country == "" && kind == "suffix:" {
		if t, ok := c.tlds[s[strings.LastIndexByte(s, '.')+1:]]; ok {
			cr.country = t.country
		}
	}
	return cr
}

// Rules returns the merged rule table, sorted by Match, for display and
// documentation.
func (c *Classifier) Rules() []Rule { return slices.Clone(c.table) }

// RegistrableDomain returns the registrable domain (eTLD+1) of a normalised
// host (see NormalizeHost). A host that is a government or military public
// suffix by the rule table (gov.br, gov.uk) is kept as it is (DESIGN §2); a
// host that is a private public suffix of the Public Suffix List
// (github.io, s3.amazonaws.com) gets the registrable domain under the ICANN
// suffix (github.io, amazonaws.com), because it is a site run by that
// domain's owner. These have none (ReasonNoRegistrableDomain): an IP
// address in any form, a single label (localhost), any other public suffix
// (co.uk, com), and a host that is not a DNS host name (see
// validHostName). Errors are *URLError; ReasonInvalidHost only for "".
func (c *Classifier) RegistrableDomain(host string) (string, error) {
	reg, reason := c.registrable(host)
	if reason != "" {
		return "", urlError(reason, host)
	}
	return reg, nil
}

// RegistrableDomain is DefaultClassifier().RegistrableDomain.
func RegistrableDomain(host string) (string, error) {
	return DefaultClassifier().RegistrableDomain(host)
}

func (c *Classifier) registrable(host string) (string, string) {
	if host == "" {
		return "", ReasonInvalidHost
	}
	if IsIPLiteral(host) || !validHostName(host) {
		return "", ReasonNoRegistrableDomain
	}
	reg := ""
	if r, err := publicsuffix.EffectiveTLDPlusOne(host); err == nil {
		reg = r
	} else if r, ok := c.rules[host]; ok && r.keep {
		reg = host
	} else if reg = icannRegistrable(host); reg == "" {
		return "", ReasonNoRegistrableDomain
	}
	// Registries do not hand out names that start or end with a hyphen,
	// and the object store's keys do not take them (blobstore); browsers
	// and DNS allow one below the registrable domain ("-x.example.com").
	if first, _, _ := strings.Cut(reg, "."); first[0] == '-' || first[len(first)-1] == '-' {
		return "", ReasonNoRegistrableDomain
	}
	return reg, ""
}

// validHostName reports whether a normalised host is a DNS host name that
// can hold a registrable domain: at least two labels of a-z, 0-9, "-" and
// "_" (seen in real sub-domains), 1 to 63 bytes each, 253 bytes in all.
// The URL Standard accepts more ("localhost", "a..b", "exa$mple.com",
// labels of any length); such hosts make valid URLs but no domain record.
func validHostName(h string) bool {
	if len(h) > 253 {
		return false
	}
	label, dots := 0, 0
	for i := 0; i < len(h); i++ {
		switch c := h[i]; {
		case c == '.':
			if i == label || i-label > 63 {
				return false
			}
			label = i + 1
			dots++
		case isLower(c) || isDigit(c) || c == '-' || c == '_':
		default:
			return false
		}
	}
	return dots > 0 && label < len(h) && len(h)-label <= 63
}

// icannRegistrable returns the eTLD+1 of host under its ICANN public suffix
// when host is itself a private public suffix, or "".
func icannRegistrable(host string) string {
	ps, icann := publicsuffix.PublicSuffix(host)
	if ps != host || icann {
		return ""
	}
	for range strings.Count(host, ".") {
		i := strings.IndexByte(ps, '.')
		if i < 0 {
			return ""
		}
		if ps, icann = publicsuffix.PublicSuffix(ps[i+1:]); icann {
			break
		}
	}
	if !icann || len(ps) >= len(host) {
		return ""
	}
	rest := host[:len(host)-len(ps)-1]
	return host[strings.LastIndexByte(rest, '.')+1:]
}

// Classify gives the authority and country of a registrable domain. The
// rule table is consulted for the registrable domain and each of its
// suffixes on label boundaries, longest first, so "gov.sg.evil.com" and
// "abcgov.us" never match a government rule. host is the URL's host (used
// only when registrable is empty); partitionCountry, a valid lower-case
// country, is used for generic TLDs (.com, .org, .net, a domain directly
// under .io, …). An invalid partitionCountry falls back to "intl" so that a
// Verdict always carries a valid country.
func (c *Classifier) Classify(host, registrable, partitionCountry string) Verdict {
	if seedengine.ValidateCountry(partitionCountry) != nil {
		partitionCountry = seedengine.NormalizeCountry(partitionCountry)
		if seedengine.ValidateCountry(partitionCountry) != nil {
			partitionCountry = seedengine.CountryIntl
		}
	}
	if registrable == "" {
		registrable = host
	}
	return c.classify(registrable, partitionCountry)
}

// classify is Classify with a valid partition country pc.
func (c *Classifier) classify(reg, pc string) Verdict {
	if IsIPLiteral(reg) {
		return Verdict{Authority: seedengine.AuthorityOther, Country: pc, Rule: RuleIP}
	}
	s := reg
	for n := strings.Count(s, ".") + 1; n > c.maxLabels; n-- {
		s = s[strings.IndexByte(s, '.')+1:]
	}
	for {
		if r, ok := c.rules[s]; ok {
			country := r.country
			if country == "" {
				country = c.country(reg, pc)
			}
			return Verdict{Authority: r.authority, Country: country, Rule: r.id}
		}
		i := strings.IndexByte(s, '.')
		if i < 0 {
			break
		}
		s = s[i+1:]
	}
	return Verdict{Authority: seedengine.AuthorityOther, Country: c.country(reg, pc), Rule: RuleDefault}
}

// country derives the country of a registrable domain from its TLD: a
// ccTLD is its country (uk → gb); a generic ccTLD only when the domain's
// ICANN public suffix is more than the TLD (mintic.gov.co, not example.co);
// anything else (.com, .org, .net, .info, unknown TLDs) the partition's.
// The ICANN suffix, not the label count, decides, so a site under a
// private suffix (foo.github.io, whose registrable domain is the whole
// host) is "directly under" .io like github.io itself.
func (c *Classifier) country(reg, pc string) string {
	t, ok := c.tlds[reg[strings.LastIndexByte(reg, '.')+1:]]
	if !ok {
		return pc
	}
	if t.generic && strings.IndexByte(icannSuffix(reg), '.') < 0 {
		return pc
	}
	return t.country
}

// icannSuffix returns the ICANN part of host's public suffix: the public
// suffix itself when it is an ICANN one, else the longest ICANN suffix
// below the private one (github.io → io), else the TLD.
func icannSuffix(host string) string {
	ps, icann := publicsuffix.PublicSuffix(host)
	for !icann {
		i := strings.IndexByte(ps, '.')
		if i < 0 {
			return ps
		}
		ps, icann = publicsuffix.PublicSuffix(ps[i+1:])
	}
	return ps
}

// Analyze turns one raw URL into a domain record: normalisation,
// registrable domain, classification and domain_id. partitionCountry is the
// country of the partition the URL was found for. The error is always a
// *URLError; ReasonInvalidCountry when partitionCountry is not a valid
// country in any case.
func (c *Classifier) Analyze(rawURL, partitionCountry string) (Record, error) {
	pc := partitionCountry
	if seedengine.ValidateCountry(pc) != nil {
		pc = seedengine.NormalizeCountry(pc)
		if seedengine.ValidateCountry(pc) != nil {
			return Record{}, urlError(ReasonInvalidCountry, rawURL)
		}
	}
	norm, host, reason := normalizeURL(rawURL)
	if reason != "" {
		return Record{}, urlError(reason, rawURL)
	}
	r := Record{NormalizedURL: norm, Host: host}
	if reason := c.fillDomain(&r, host, pc); reason != "" {
		return Record{}, urlError(reason, rawURL)
	}
	return r, nil
}

// domainEntry is the part of a record that depends on the host and the
// partition country only.
type domainEntry struct {
	host, pc, reg, domainID string
	v                       Verdict
}

// domainCacheSlots is the size of the per-classifier domain cache: a few
// times the distinct hosts of a large research batch, so that few of them
// share a slot; 128 KiB of slots.
const domainCacheSlots = 1 << 14

// domainCache remembers the domain part of recent records. Research lists
// are long runs of URLs on the same sites, and the Public Suffix List
// lookup, the rule walk and the domain_id string together cost more than
// normalising the URL. Direct-mapped and lock-free: each slot holds an
// immutable entry that is replaced whole, so a reader sees an old entry or a
// new one, and a key comparison decides whether it is the right one. A host
// is admitted on its second miss in a row for its slot (seen holds the hash
// of the last miss), so a stream of one-off hosts does not pay for entries
// that nobody reads.
type domainCache struct {
	seed  maphash.Seed
	slots [domainCacheSlots]atomic.Pointer[domainEntry]
	seen  [domainCacheSlots]atomic.Uint64
}

// fillDomain sets the registrable domain, authority, rule, country,
// domain_id and source type of r from a normalised host and a valid
// partition country, from the cache when it can.
func (c *Classifier) fillDomain(r *Record, host, pc string) (reason string) {
	h := maphash.String(c.cache.seed, host)
	for i := 0; i < len(pc); i++ {
		h = (h ^ uint64(pc[i])) * 0x100000001b3
	}
	i := h & (domainCacheSlots - 1)
	e := c.cache.slots[i].Load()
	if e == nil || e.host != host || e.pc != pc {
		reg, reason := c.registrable(host)
		if reason != "" {
			return reason
		}
		if !strings.HasSuffix(host, reg) {
			return ReasonInvalidHost // unreachable: a registrable domain is a suffix of its host
		}
		v := c.classify(reg, pc)
		if c.cache.seen[i].Swap(h) != h {
			r.RegistrableDomain = reg
			r.Authority, r.AuthorityRule, r.Country = v.Authority, v.Rule, v.Country
			r.DomainID = seedengine.DomainID(v.Authority, v.Country, reg)
			r.SourceType = v.Authority.SourceType()
			return ""
		}
		// One allocation holds a copy of the host (the entry outlives the
		// URL string the host is part of) followed by the domain_id, as
		// seedengine.DomainID writes it.
		s := host + string(v.Authority) + ":" + v.Country + ":" + reg
		e = &domainEntry{host: s[:len(host)], pc: pc, domainID: s[len(host):], v: v}
		e.reg = e.host[len(host)-len(reg):]
		c.cache.slots[i].Store(e)
	}
	r.RegistrableDomain = e.reg
	r.Authority, r.AuthorityRule, r.Country = e.v.Authority, e.v.Rule, e.v.Country
	r.DomainID = e.domainID
	r.SourceType = e.v.Authority.SourceType()
	return ""
}
