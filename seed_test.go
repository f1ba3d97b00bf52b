package seedengine_test

import (
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine"
)

func TestValidateCron(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		expr string
		ok   bool
	}{
		{"@hourly", true},
		{"@DAILY", true},
		{"@midnight", true},
		{"@weekly", true},
		{"@monthly", true},
		{"@yearly", true},
		{"@annually", true},
		{"  @hourly  ", true},
		{"* * * * *", true},
		{"*/30 * * * *", true},
		{"0 */2 * * *", true},
		{"0,15,30,45 8-18 * * mon-fri", true},
		{"0 0 1 jan,jul *", true},
		{"0 0 * * 7", true},
		{"59 23 31 12 6", true},
		{"0-59/5 * * * *", true},
		{"", false},
		{"   ", false},
		{"@every 5m", false},
		{"@reboot", false},
		{"* * * *", false},
		{"* * * * * *", false},
		{"60 * * * *", false},
		{"* 24 * * *", false},
		{"* * 0 * *", false},
		{"* * 32 * *", false},
		{"* * * 13 *", false},
		{"* * * * 8", false},
		{"*/0 * * * *", false},
		{"*/61 * * * *", false},
		{"5-1 * * * *", false},
		{"-1 * * * *", false},
		{"+1 * * * *", false},
		{"a * * * *", false},
		{"1,,2 * * * *", false},
		{"* * * foo *", false},
		{"* * * * sunday", false},
	} {
		err := seedengine.ValidateCron(tt.expr)
		if tt.ok {
			require.NoError(t, err, tt.expr)
			continue
		}
		require.Error(t, err, tt.expr)
		require.Equal(t, seedengine.EINVALID, seedengine.ErrorCode(err), tt.expr)
		require.Equal(t, "fetch.schedule", seedengine.ErrorField(err), tt.expr)
	}
}

func TestParseSeedID(t *testing.T) {
	t.Parallel()
	d, ct, err := seedengine.ParseSeedID("gov:sg:mom.gov.sg::news")
	require.NoError(t, err)
	require.Equal(t, "gov:sg:mom.gov.sg", d)
	require.Equal(t, "news", ct)
	d, ct, err = seedengine.ParseSeedID("ngo:intl:who.int::press_release")
	require.NoError(t, err)
	require.Equal(t, "ngo:intl:who.int", d)
	require.Equal(t, "press_release", ct)
	require.Equal(t, "gov:sg:mom.gov.sg::news", seedengine.SeedID("gov:sg:mom.gov.sg", "news"))

	for _, bad := range []string{
		"", "gov:sg:mom.gov.sg", "gov:sg:mom.gov.sg::", "::news", "gov:sg:mom.gov.sg:news",
		"boss:sg:mom.gov.sg::news", "gov:zz:mom.gov.sg::news", "gov:sg:MOM.gov.sg::news",
		"gov:sg:mom.gov.sg::News", "gov:sg:mom.gov.sg::news::x", "gov:sg:mom.gov.sg::" + strings.Repeat("a", 41),
	} {
		_, _, err := seedengine.ParseSeedID(bad)
		require.Error(t, err, bad)
		require.Equal(t, seedengine.EINVALID, seedengine.ErrorCode(err), bad)
		require.Equal(t, "seed_id", seedengine.ErrorField(err), bad)
	}
}

// A publisher's editions other than the default have seed ids that end in
// @{language}; the default's is the plain one, and Validate holds the id
// to the seed's source.edition.
func TestEditionSeedID(t *testing.T) {
	t.Parallel()
	d, ct, ed, err := seedengine.ParseEditionSeedID("media:de:eurokanal-example.com::news@fr")
	require.NoError(t, err)
	require.Equal(t, []string{"media:de:eurokanal-example.com", "news", "fr"}, []string{d, ct, ed})
	d, ct, err = seedengine.ParseSeedID("media:de:eurokanal-example.com::news@pt-br")
	require.NoError(t, err)
	require.Equal(t, []string{"media:de:eurokanal-example.com", "news"}, []string{d, ct})
	require.Equal(t, "media:de:x.com::news@fr", seedengine.EditionSeedID("media:de:x.com", "news", "fr"))
	require.Equal(t, "media:de:x.com::news", seedengine.EditionSeedID("media:de:x.com", "news", ""))
	for _, bad := range []string{"media:de:x.com::news@", "media:de:x.com::news@FR", "media:de:x.com::news@french-canadian-x",
		"media:de:x.com::news@fr@de", "media:de:x.com::news@f", "media:de:x.com::@fr"} {
		_, _, _, err := seedengine.ParseEditionSeedID(bad)
		require.Error(t, err, bad)
		require.Equal(t, "seed_id", seedengine.ErrorField(err), bad)
	}

	s := validSeed()
	s.DomainID, s.Country = "media:sg:mom.gov.sg", ""
	s.Source = seedengine.SeedSource{Edition: &seedengine.SeedEdition{Language: "zh", Host: "zh.mom.gov.sg"}}
	s.Normalize()
	require.Equal(t, "media:sg:mom.gov.sg::news@zh", s.SeedID)
	require.NoError(t, s.Validate())
	s.Source.Edition.Default = true
	require.Equal(t, "seed_id", seedengine.ErrorField(s.Validate()), "the default edition's seed id is the plain one")
	s.SeedID = "media:sg:mom.gov.sg::news"
	require.NoError(t, s.Validate())
	s.Source.Edition.Host = "zh.example.com"
	require.Equal(t, "source.edition.host", seedengine.ErrorField(s.Validate()))
	s.Source.Edition.Host, s.Source.Edition.Language = "zh.mom.gov.sg", "Chinese"
	require.Equal(t, "source.edition.language", seedengine.ErrorField(s.Validate()))
}

// validSeed is a seed as a client sends it, before Normalize.
func validSeed() seedengine.Seed {
	return seedengine.Seed{
		DomainID:    "gov:sg:mom.gov.sg",
		ContentType: "news",
		Category:    "news",
		Fetch:       seedengine.SeedFetch{Type: seedengine.FetchRSS, EntryURL: "https://www.mom.gov.sg/rss", Schedule: "@hourly"},
		Policy:      seedengine.SeedPolicy{RobotsURL: "https://www.mom.gov.sg/robots.txt", CrawlAllowed: true},
		Confidence:  0.5,
	}
}

func TestSeedNormalize(t *testing.T) {
	t.Parallel()
	s := validSeed()
	s.Normalize()
	require.Equal(t, "gov:sg:mom.gov.sg::news", s.SeedID)
	require.Equal(t, "sg", s.Country)
	require.Equal(t, "mom.gov.sg", s.Source.Domain)
	require.Equal(t, seedengine.SourceGovernment, s.Source.SourceType)
	require.NoError(t, s.Validate())

	// From the seed_id alone.
	s = validSeed()
	s.DomainID, s.ContentType, s.SeedID = "", "", "media:jp:nhk.or.jp::press_release"
	s.Normalize()
	require.Equal(t, "media:jp:nhk.or.jp", s.DomainID)
	require.Equal(t, "press_release", s.ContentType)
	require.Equal(t, "jp", s.Country)
	require.Equal(t, seedengine.SourceMedia, s.Source.SourceType)

	// What is set stays set (Validate then judges it).
	s = validSeed()
	s.Country, s.Source.SourceType, s.Source.Domain = "jp", seedengine.SourceOther, "x.example"
	s.Normalize()
	require.Equal(t, "jp", s.Country)
	require.Equal(t, seedengine.SourceOther, s.Source.SourceType)
	require.Equal(t, "x.example", s.Source.Domain)

	// A bad domain_id fills nothing and does not panic.
	s = validSeed()
	s.DomainID = "nope"
	s.Normalize()
	require.Empty(t, s.Country)
	require.Equal(t, "nope::news", s.SeedID)
}

func TestSeedValidate(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		field string
		edit  func(*seedengine.Seed)
	}{
		{"", func(*seedengine.Seed) {}},
		{"", func(s *seedengine.Seed) { s.Status = seedengine.SeedActive }},
		{"", func(s *seedengine.Seed) { s.Policy = seedengine.SeedPolicy{} }},
		{"", func(s *seedengine.Seed) { s.Metadata = map[string]any{"a": []any{1.0}} }},
		{"domain_id", func(s *seedengine.Seed) { s.DomainID = "gov:sg" }},
		{"content_type", func(s *seedengine.Seed) { s.ContentType = "News" }},
		{"seed_id", func(s *seedengine.Seed) { s.SeedID = "gov:sg:mom.gov.sg::other" }},
		{"country", func(s *seedengine.Seed) { s.Country = "jp" }},
		{"category", func(s *seedengine.Seed) { s.Category = "" }},
		{"source.domain", func(s *seedengine.Seed) { s.Source.Domain = "other.example" }},
		{"source.name", func(s *seedengine.Seed) { s.Source.Name = strings.Repeat("n", 201) }},
		{"source.source_type", func(s *seedengine.Seed) { s.Source.SourceType = "army" }},
		{"fetch.type", func(s *seedengine.Seed) { s.Fetch.Type = "gopher" }},
		{"fetch.entry_url", func(s *seedengine.Seed) { s.Fetch.EntryURL = "" }},
		{"fetch.entry_url", func(s *seedengine.Seed) { s.Fetch.EntryURL = "mailto:x@example.com" }},
		{"fetch.entry_url", func(s *seedengine.Seed) { s.Fetch.EntryURL = "https:///nohost" }},
		{"fetch.entry_url", func(s *seedengine.Seed) { s.Fetch.EntryURL = "https://x.example/" + strings.Repeat("a", 2048) }},
		{"fetch.schedule", func(s *seedengine.Seed) { s.Fetch.Schedule = "" }},
		{"fetch.selectors", func(s *seedengine.Seed) { s.Fetch.Selectors = map[string]string{"": "li"} }},
		{"policy.robots_url", func(s *seedengine.Seed) { s.Policy.RobotsURL = "robots.txt" }},
		{"policy.sitemap_url", func(s *seedengine.Seed) { s.Policy.SitemapURL = "ftp://x.example/s.xml" }},
		{"policy.crawl_delay", func(s *seedengine.Seed) { s.Policy.CrawlDelay = -1 }},
		{"policy.crawl_delay", func(s *seedengine.Seed) { s.Policy.CrawlDelay = math.NaN() }},
		{"confidence", func(s *seedengine.Seed) { s.Confidence = 1.01 }},
		{"confidence", func(s *seedengine.Seed) { s.Confidence = math.NaN() }},
		{"metadata", func(s *seedengine.Seed) {
			s.Metadata = map[string]any{"big": strings.Repeat("x", seedengine.MaxSeedMetadata)}
		}},
		{"metadata", func(s *seedengine.Seed) { s.Metadata = map[string]any{"f": func() {}} }},
		{"status", func(s *seedengine.Seed) { s.Status = "paused" }},
	} {
		s := validSeed()
		s.Normalize()
		tt.edit(&s)
		err := s.Validate()
		if tt.field == "" {
			require.NoError(t, err)
			continue
		}
		require.Error(t, err, tt.field)
		require.Equal(t, seedengine.EINVALID, seedengine.ErrorCode(err), tt.field)
		require.Equal(t, tt.field, seedengine.ErrorField(err), "%v", err)
	}
}

func TestCheckSeedTransition(t *testing.T) {
	t.Parallel()
	statuses := []seedengine.SeedStatus{seedengine.SeedDraft, seedengine.SeedActive, seedengine.SeedSuspended, seedengine.SeedArchived}
	allowed := map[seedengine.SeedAction][]seedengine.SeedStatus{
		seedengine.SeedPromote:    {seedengine.SeedDraft},
		seedengine.SeedSuspend:    {seedengine.SeedActive},
		seedengine.SeedReactivate: {seedengine.SeedSuspended},
		seedengine.SeedArchive:    {seedengine.SeedDraft, seedengine.SeedActive, seedengine.SeedSuspended},
	}
	targets := map[seedengine.SeedAction]seedengine.SeedStatus{
		seedengine.SeedPromote: seedengine.SeedActive, seedengine.SeedSuspend: seedengine.SeedSuspended,
		seedengine.SeedReactivate: seedengine.SeedActive, seedengine.SeedArchive: seedengine.SeedArchived,
	}
	for action, from := range allowed {
		require.Equal(t, targets[action], action.Target())
		for _, st := range statuses {
			err := seedengine.CheckSeedTransition("gov:sg:mom.gov.sg::news", st, action)
			ok := false
			for _, f := range from {
				ok = ok || f == st
			}
			if ok {
				require.NoError(t, err, "%s from %s", action, st)
				continue
			}
			require.Equal(t, seedengine.ECONFLICT, seedengine.ErrorCode(err), "%s from %s", action, st)
			require.Contains(t, seedengine.ErrorMessage(err), "is "+string(st))
		}
	}
	err := seedengine.CheckSeedTransition("x", seedengine.SeedDraft, "explode")
	require.Equal(t, seedengine.EINVALID, seedengine.ErrorCode(err))
	require.Equal(t, "action", seedengine.ErrorField(err))
	require.Empty(t, seedengine.SeedAction("explode").Target())
	for _, st := range statuses {
		require.True(t, st.Valid())
	}
	require.False(t, seedengine.SeedStatus("paused").Valid())
}

func TestSeedContractEqual(t *testing.T) {
	t.Parallel()
	base := func() seedengine.SeedContract {
		s := validSeed()
		return s.Contract()
	}
	a, b := base(), base()
	require.True(t, a.Equal(b))
	b.Fetch.Selectors = map[string]string{}
	require.True(t, a.Equal(b), "nil and empty selectors are equal")
	require.True(t, b.Equal(a))
	a.Fetch.Selectors = map[string]string{"item": "li"}
	b.Fetch.Selectors = map[string]string{"item": "li"}
	require.True(t, a.Equal(b))
	b.Fetch.Selectors["item"] = "div"
	require.False(t, a.Equal(b))
	for _, edit := range []func(*seedengine.SeedContract){
		func(c *seedengine.SeedContract) { c.Fetch.Type = seedengine.FetchAtom },
		func(c *seedengine.SeedContract) { c.Fetch.EntryURL += "?x" },
		func(c *seedengine.SeedContract) { c.Fetch.Schedule = "@daily" },
		func(c *seedengine.SeedContract) { c.Fetch.Selectors = map[string]string{"a": "b"} },
		func(c *seedengine.SeedContract) { c.Policy.RobotsURL = "" },
		func(c *seedengine.SeedContract) { c.Policy.CrawlAllowed = false },
		func(c *seedengine.SeedContract) { c.Policy.CrawlDelay = 1 },
		func(c *seedengine.SeedContract) { c.Policy.SitemapURL = "https://x.example/s.xml" },
	} {
		c := base()
		edit(&c)
		require.False(t, c.Equal(base()), "%+v", c)
	}
}
