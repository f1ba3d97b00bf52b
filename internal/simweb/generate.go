package simweb

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

// Mix gives the share of each scenario among generated sites, as fractions
// of 1. The shares must not add up to more than 1; the rest is
// ScenarioHealthy.
type Mix map[Scenario]float64

// mixGroups are the shorthands ParseMix accepts, split the way such failures
// split in real crawls (most dead names no longer exist; a few hang).
var mixGroups = map[string][]struct {
	s     Scenario
	share float64
}{
	"dead": {
		{ScenarioNXDomain, 0.6}, {ScenarioRefused, 0.2},
		{ScenarioServFail, 0.1}, {ScenarioDNSTimeout, 0.1},
	},
	"blocked": {
		{ScenarioBotWall, 0.5}, {ScenarioRateLimited, 0.25}, {ScenarioChallenge, 0.25},
	},
	"tls": {
		{ScenarioTLSExpired, 0.5}, {ScenarioTLSWrongName, 0.5},
	},
	"redirect": {
		{ScenarioRedirectWWW, 0.6}, {ScenarioRedirectExternal, 0.4},
	},
}

// ParseMix reads a mix written as comma-separated name=share pairs, where a
// share is a fraction ("0.1") or a percentage ("10%") and a name is a
// scenario or one of the groups
//
//	dead     = 60% nxdomain, 20% refused, 10% servfail, 10% dns_timeout
//	blocked  = 50% bot_wall, 25% rate_limited, 25% challenge
//	tls      = 50% tls_expired, 50% tls_wrong_name
//	redirect = 60% redirect_www, 40% redirect_external
//
// so that "dead=0.1,slow=0.05,blocked=0.05" describes a benchmark web in the
// words of its target. Repeated names add up.
func ParseMix(s string) (Mix, error) {
	mix := Mix{}
	s = strings.TrimSpace(s)
	if s == "" {
		return mix, nil
	}
	for _, part := range strings.Split(s, ",") {
		name, val, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok {
			return nil, fmt.Errorf("mix entry %q: want name=share", part)
		}
		name = strings.ToLower(strings.TrimSpace(name))
		val = strings.TrimSpace(val)
		scale := 1.0
		if strings.HasSuffix(val, "%") {
			val, scale = strings.TrimSuffix(val, "%"), 0.01
		}
		f, err := strconv.ParseFloat(val, 64)
		if err != nil || f < 0 || math.IsInf(f, 0) || math.IsNaN(f) {
			return nil, fmt.Errorf("mix entry %q: share must be a non-negative number", part)
		}
		f *= scale
		if g, ok := mixGroups[name]; ok {
			for _, e := range g {
				mix[e.s] += f * e.share
			}
			continue
		}
		sc := Scenario(name)
		if !sc.Valid() {
			return nil, fmt.Errorf("mix entry %q: unknown scenario or group %q", part, name)
		}
		mix[sc] += f
	}
	if err := mix.validate(); err != nil {
		return nil, err
	}
	return mix, nil
}

func (m Mix) validate() error {
	sum := 0.0
	for s, f := range m {
		if !s.Valid() {
			return fmt.Errorf("mix: unknown scenario %q", s)
		}
		if f < 0 || math.IsNaN(f) || math.IsInf(f, 0) {
			return fmt.Errorf("mix: share of %s must be a non-negative number", s)
		}
		sum += f
	}
	if sum > 1+1e-9 {
		return fmt.Errorf("mix: shares add up to %.4g, more than 1", sum)
	}
	return nil
}

// counts turns shares into whole numbers of sites that add up to n, by
// largest remainder, so a 10 % share of 1,000 sites is exactly 100 sites.
func (m Mix) counts(n int) map[Scenario]int {
	type rem struct {
		s Scenario
		r float64
	}
	out := make(map[Scenario]int, len(allScenarios))
	rems := make([]rem, 0, len(allScenarios))
	total, used := 0.0, 0
	for _, s := range allScenarios {
		if s == ScenarioHealthy {
			continue
		}
		exact := m[s] * float64(n)
		c := int(math.Floor(exact + 1e-9))
		out[s] = c
		used += c
		total += m[s]
		rems = append(rems, rem{s, exact - float64(c)})
	}
	want := min(n, int(math.Round(total*float64(n))))
	sort.SliceStable(rems, func(i, j int) bool { return rems[i].r > rems[j].r })
	for i := 0; used < want && i < len(rems); i++ {
		out[rems[i].s]++
		used++
	}
	out[ScenarioHealthy] = n - used
	return out
}

// Generated names are their own registrable domain (the label sits directly
// under a public suffix), so that discover does not fold thousands of sites
// into one domain_id, and they spread over countries and authorities the way
// research partitions do.
var genSuffixes = []string{
	"gov.sg", "com.sg", "edu.sg",
	"gov.uk", "co.uk", "org.uk",
	"go.jp", "co.jp",
	"gouv.fr", "fr",
	"gob.mx", "com.mx",
	"gc.ca", "ca",
	"gov.au", "com.au",
	"org", "com", "int",
}

// Layout shares of generated sites: mostly WordPress-like, as on the web.
var genLayouts = []struct {
	l     Layout
	share uint64 // per 100
}{
	{LayoutWordPress, 50}, {LayoutNews, 15}, {LayoutGov, 15}, {LayoutBlog, 10}, {LayoutStatic, 10},
}

func pickLayout(r uint64) Layout {
	for _, g := range genLayouts {
		if r < g.share {
			return g.l
		}
		r -= g.share
	}
	return LayoutWordPress
}

// Generate adds n sites whose scenarios follow mix, and returns them in
// creation order. Host names are "site%05d-example.<suffix>" numbered on from
// the previous call, with suffixes, scenario order and layouts drawn from
// Config.Seed, so the same seed and the same calls give the same web.
// Scenario counts are exact (largest remainder), not sampled, so a benchmark
// with 10 % dead sites has exactly that many.
//
// Generate panics if mix names an unknown scenario or its shares are negative
// or add up to more than 1: that is a mistake in the test, not a condition to
// handle.
func (w *Web) Generate(n int, mix Mix) []Site {
	if err := mix.validate(); err != nil {
		panic(err)
	}
	if n <= 0 {
		return nil
	}
	w.mu.Lock()
	first := w.genNext + 1
	w.genNext += n
	call := w.genCalls
	w.genCalls++
	w.mu.Unlock()

	rng := newRNG(uint64(w.cfg.Seed), call)
	counts := mix.counts(n)
	scenarios := make([]Scenario, 0, n)
	for _, s := range allScenarios {
		for i := 0; i < counts[s]; i++ {
			scenarios = append(scenarios, s)
		}
	}
	for i := len(scenarios) - 1; i > 0; i-- {
		j := int(rng.below(uint64(i + 1)))
		scenarios[i], scenarios[j] = scenarios[j], scenarios[i]
	}

	sites := make([]Site, n)
	for i := range sites {
		suffix := genSuffixes[rng.below(uint64(len(genSuffixes)))]
		layout := pickLayout(rng.below(100))
		sites[i] = Site{
			Host:     fmt.Sprintf("site%05d-example.%s", first+i, suffix),
			Scenario: scenarios[i],
			Layout:   layout,
		}
		w.AddSite(sites[i])
		sites[i], _ = w.Site(sites[i].Host)
	}
	return sites
}

// rng is splitmix64: tiny, fast and fully specified here, so generated webs
// stay the same across Go releases (math/rand/v2 makes no such promise for
// its helper methods).
type rng struct{ state uint64 }

func newRNG(seed, stream uint64) *rng {
	r := &rng{state: seed ^ 0x6a09e667f3bcc909}
	r.state += stream * 0x9e3779b97f4a7c15
	r.next()
	return r
}

func (r *rng) next() uint64 {
	r.state += 0x9e3779b97f4a7c15
	z := r.state
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// below returns a number in [0, n) (n > 0); the modulo bias is below 2^-40
// for the small n used here.
func (r *rng) below(n uint64) uint64 { return r.next() % n }
