package contract

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/simweb/simwebtest"
)

// explainNow is the clock of the evidences built here.
var explainNow = time.Date(2026, 3, 5, 12, 0, 0, 0, time.UTC)

const site = "https://example.gov.sg"

// ago is a time before explainNow.
func ago(d time.Duration) *time.Time {
	t := explainNow.Add(-d)
	return &t
}

const day = 24 * time.Hour

// fetchedFeed is a feed that answered 200 with items, every six hours
// back from newest.
func fetchedFeed(path, via, format string, items int, newest time.Duration) *Candidate {
	return &Candidate{Kind: KindFeed, URL: site + path, Via: via, ContentType: "news", Robots: RobotsAllowed,
		Fetched: true, Status: 200, Format: format, Items: items,
		Newest: ago(newest), Oldest: ago(newest + time.Duration(items-1)*6*time.Hour)}
}

func fetchedSitemap(path, via, format string, items, news int, newest time.Duration) *Candidate {
	return &Candidate{Kind: KindSitemap, URL: site + path, Via: via, ContentType: "news", Robots: RobotsAllowed,
		Fetched: true, Status: 200, Format: format, Items: items, NewsItems: news, Newest: ago(newest)}
}

func fetchedSection(path string, links int, score float64) *Candidate {
	return &Candidate{Kind: KindSection, URL: site + path, Via: ViaHomePage, ContentType: "news", Robots: RobotsAllowed,
		Fetched: true, Status: 200, Format: "html", Items: links, Score: score}
}

// with returns c changed by f.
func with(c *Candidate, f func(*Candidate)) *Candidate {
	f(c)
	return c
}

// explainConfig is the run's configuration, at explainNow.
func explainConfig() Config {
	return Config{Now: func() time.Time { return explainNow }}.withDefaults()
}

// decided is an evidence of example.gov.sg with its candidates and the
// decisions decide makes of them.
func decided(cs ...*Candidate) *Evidence {
	ev := &Evidence{DomainID: "gov:sg:example.gov.sg", Domain: "example.gov.sg", Site: site,
		StartedAt: explainNow.Add(-10 * time.Second), FinishedAt: explainNow, Outcome: OutcomeSeeded, Candidates: cs,
		Robots: RobotsEvidence{URL: site + "/robots.txt", Result: "parsed", HomeAllowed: true}}
	ev.Decisions = decide(ev, explainConfig())
	return ev
}

func decisionOf(ev *Evidence, ct string) (Decision, bool) {
	for _, d := range ev.Decisions {
		if d.ContentType == ct {
			return d, true
		}
	}
	return Decision{}, false
}

// TestChooseIsDecide: a reviewer's choice gets the decision decide makes
// when that candidate is the only usable one; only Why differs.
func TestChooseIsDecide(t *testing.T) {
	t.Parallel()
	noise := func() []*Candidate {
		return []*Candidate{
			with(fetchedFeed("/missing.xml", ViaKnownPath, "", 0, 0), func(c *Candidate) { c.Status, c.Format, c.Newest, c.Oldest = 404, "", nil, nil }),
			{Kind: KindFeed, URL: site + "/later.xml", Via: ViaAnchor, ContentType: "news", Robots: RobotsAllowed, Skipped: SkipNotNeeded},
		}
	}
	tests := []struct {
		name       string
		c          *Candidate
		by         string // the URL the reviewer gives; the candidate's URL when ""
		fetchType  seedengine.FetchType
		schedule   string
		confidence float64
		method     string
	}{
		{"declared fresh feed", fetchedFeed("/feed.atom", ViaLinkAlternate, "atom", 20, 2*time.Hour), "",
			seedengine.FetchAtom, "0 * * * *", 0.95, "atom via link_alternate"},
		{"found fresh feed publishing hourly", with(fetchedFeed("/news/rss.xml", ViaAnchor, "rss", 30, time.Hour), func(c *Candidate) { c.Oldest = ago(20 * time.Hour) }), "",
			seedengine.FetchRSS, "*/15 * * * *", 0.9, "rss via anchor"},
		{"guessed json feed", fetchedFeed("/feed.json", ViaKnownPath, "json_feed", 10, day), "",
			seedengine.FetchJSONFeed, "0 * * * *", 0.9, "json_feed via known_path"},
		{"redirected feed, chosen by its entry", with(fetchedFeed("/rss", ViaLinkHeader, "rss", 5, 3*day), func(c *Candidate) { c.FinalURL, c.Oldest = site+"/rss/", ago(7*day) }), site + "/rss/",
			seedengine.FetchRSS, "0 */3 * * *", 0.95, "rss via link_header"},
		{"news sitemap updated today", fetchedSitemap("/news-sitemap.xml", ViaRobots, "urlset", 40, 40, 3*time.Hour), "",
			seedengine.FetchNewsSitemap, "*/30 * * * *", 0.85, "news_sitemap via robots"},
		{"news sitemap of last week", fetchedSitemap("/news-sitemap.xml", ViaKnownPath, "urlset", 40, 40, 7*day), "",
			seedengine.FetchNewsSitemap, "*/30 * * * *", 0.8, "news_sitemap via known_path"},
		{"fresh sitemap index", with(fetchedSitemap("/sitemap.xml", ViaRobots, "sitemapindex", 500, 0, 2*day), func(c *Candidate) { c.Children = 3 }), "",
			seedengine.FetchSitemap, "0 */6 * * *", 0.65, "sitemapindex via robots"},
		{"old sitemap", fetchedSitemap("/sitemap.xml", ViaLinkSitemap, "urlset", 500, 0, 300*day), "",
			seedengine.FetchSitemap, "0 */6 * * *", 0.6, "urlset via link_sitemap"},
		{"stale feed", fetchedFeed("/feed/", ViaCMSPath, "rss", 10, 90*day), "",
			seedengine.FetchRSS, "0 6 * * *", 0.45, "rss via cms_path"},
		{"section page", fetchedSection("/news/", 25, 0.9), "",
			seedengine.FetchHTML, "0 */6 * * *", 0.35, "html section via home_page"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ev := decided(append(noise(), tt.c)...)
			want, ok := decisionOf(ev, "news")
			require.True(t, ok)
			require.Equal(t, tt.c.EntryURL(), want.EntryURL, "decide took the one usable candidate")

			by := tt.by
			if by == "" {
				by = tt.c.URL
			}
			got, err := Choose(ev, "news", "", by, Config{})
			require.NoError(t, err)
			require.Equal(t, tt.fetchType, got.FetchType)
			require.Equal(t, tt.c.EntryURL(), got.EntryURL)
			require.Equal(t, tt.schedule, got.Schedule)
			require.Equal(t, tt.confidence, got.Confidence)
			require.Equal(t, tt.method, got.Method)
			require.True(t, strings.HasPrefix(got.Why, "chosen by a reviewer: "), got.Why)
			require.True(t, strings.HasSuffix(want.Why, strings.TrimPrefix(got.Why, "chosen by a reviewer: ")), "%q describes the candidate as %q does", got.Why, want.Why)
			got.Why, want.Why = "", ""
			require.Equal(t, want, got)
		})
	}
}

// TestChooseOtherCandidates: a reviewer may take a candidate decide did
// not: one of another content type, a child sitemap of an index.
func TestChooseOtherCandidates(t *testing.T) {
	t.Parallel()
	press := with(fetchedFeed("/press/feed.xml", ViaLinkAlternate, "rss", 8, 2*day), func(c *Candidate) { c.ContentType = "press_release" })
	index := with(fetchedSitemap("/sitemap.xml", ViaRobots, "sitemapindex", 900, 0, day), func(c *Candidate) { c.Children = 2 })
	child := with(fetchedSitemap("/sitemap-posts.xml", ViaSitemapIndex, "urlset", 600, 0, day), func(c *Candidate) { c.Parent = index.URL; c.Depth = 1 })
	ev := decided(fetchedFeed("/feed.atom", ViaLinkAlternate, "atom", 20, time.Hour), press, index, child)

	d, err := Choose(ev, "news", "", press.URL, Config{})
	require.NoError(t, err)
	require.Equal(t, "news", d.ContentType)
	require.Equal(t, press.URL, d.EntryURL)
	require.Equal(t, seedengine.FetchRSS, d.FetchType)
	require.Equal(t, 0.95, d.Confidence)

	d, err = Choose(ev, "news", "", child.URL, Config{})
	require.NoError(t, err)
	require.Equal(t, seedengine.FetchSitemap, d.FetchType)
	require.Equal(t, "urlset via sitemap_index", d.Method)
	require.Equal(t, 0.65, d.Confidence)
	require.Equal(t, "chosen by a reviewer: urlset with 600 URLs", d.Why)
}

// TestChooseRejects: what is not a candidate, or cannot be an entry, is
// refused naming candidate_url, in words that never repeat the input.
func TestChooseRejects(t *testing.T) {
	t.Parallel()
	ev := decided(
		fetchedFeed("/feed.atom", ViaLinkAlternate, "atom", 20, time.Hour),
		&Candidate{Kind: KindFeed, URL: site + "/unfetched.xml", Via: ViaAnchor, ContentType: "news", Robots: RobotsAllowed, Skipped: SkipOverCap},
		with(fetchedFeed("/gone.xml", ViaKnownPath, "", 0, 0), func(c *Candidate) { c.Status, c.Newest, c.Oldest = 404, nil, nil }),
		&Candidate{Kind: KindFeed, URL: site + "/private/feed.xml", Via: ViaAnchor, ContentType: "news", Robots: RobotsDisallowed, Skipped: SkipRobots},
		with(fetchedFeed("/feed", ViaKnownPath, "rss", 10, day), func(c *Candidate) { c.FinalURL = "https://parked.example.net/feed" }),
		with(fetchedFeed("/refused.xml", ViaAnchor, "", 0, 0), func(c *Candidate) { c.Status, c.Error, c.Newest, c.Oldest = 0, "connect_refused", nil, nil }),
		with(fetchedFeed("/feeds/", ViaAnchor, FormatDirectory, 6, 0), func(c *Candidate) { c.Newest, c.Oldest = nil, nil }),
		with(fetchedFeed("/empty.xml", ViaAnchor, "rss", 0, 0), func(c *Candidate) { c.Newest, c.Oldest = nil, nil }),
	)
	tests := []struct {
		name, url, reason string
	}{
		{"no URL", "", "candidate_url is required"},
		{"not a candidate", site + "/elsewhere.xml?q=<script>", "candidate_url is not a candidate of the seed's evidence"},
		{"not fetched", site + "/unfetched.xml", "not fetched: enough candidates of its kind were fetched first"},
		{"404", site + "/gone.xml", "answered 404"},
		{"robots disallowed", site + "/private/feed.xml", "blocked by robots.txt"},
		{"off site", site + "/feed", "redirected to another site"},
		{"off site, by its entry", "https://parked.example.net/feed", "redirected to another site"},
		{"connection refused", site + "/refused.xml", "could not be fetched: connection refused"},
		{"feed directory", site + "/feeds/", "a directory page listing 6 feeds, not a feed itself"},
		{"empty feed", site + "/empty.xml", "a feed with no items"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := Choose(ev, "news", "", tt.url, Config{})
			require.Error(t, err)
			require.Equal(t, seedengine.EINVALID, seedengine.ErrorCode(err))
			require.Equal(t, "candidate_url", seedengine.ErrorField(err))
			msg := seedengine.ErrorMessage(err)
			require.Contains(t, msg, tt.reason)
			for _, echo := range []string{"example", "parked", "://", ".xml", "script"} {
				require.NotContains(t, msg, echo)
			}
		})
	}

	_, err := Choose(nil, "news", "", site+"/feed.atom", Config{})
	require.Equal(t, seedengine.ECONFLICT, seedengine.ErrorCode(err))
	_, err = Choose(ev, "News!", "", site+"/feed.atom", Config{})
	require.Equal(t, "content_type", seedengine.ErrorField(err))
}

// ruleSet lists every Rule* constant.
var ruleSet = []string{RuleChosen, RuleOtherEdition, RuleNotFetched, RuleRobotsDisallowed, RuleFailed, RuleOffSite, RuleNotAFeed,
	RuleNotASitemap, RuleNotAPage, RuleEmpty, RuleSameEntry, RuleReplaced, RuleSiblingEntry, RuleOtherContentType,
	RuleStale, RuleWeakerMethod, RuleRankedLower, RuleNotMainFeed, RuleOlder, RuleFewerItems, RuleChildSitemap,
	RuleLowerScore, RuleTie, RuleOverruled, RuleNotChosen}

// checkVerdicts holds what every explanation must: one verdict per
// candidate in order, at most one chosen, a known rule and words for
// each, and "use this" offered exactly where Choose accepts.
func checkVerdicts(t *testing.T, ev *Evidence, ct, edition string, vs []Verdict) {
	t.Helper()
	require.Len(t, vs, len(ev.Candidates))
	chosen := 0
	for i, v := range vs {
		require.Equal(t, ev.Candidates[i].URL, v.URL)
		require.Contains(t, ruleSet, v.Rule, "%+v", v)
		require.NotEmpty(t, v.Reason, "%+v", v)
		require.Equal(t, v.Chosen, v.Rule == RuleChosen, "%+v", v)
		if v.Chosen {
			chosen++
		}
		if v.Usable {
			// A verdict names its candidate by URL; where another candidate
			// has the same URL, Choose may take that one instead.
			_, err := Choose(ev, ct, edition, v.URL, Config{})
			require.NoError(t, err, "%+v", v)
		} else if !slices.ContainsFunc(ev.Candidates, func(c *Candidate) bool {
			return c != ev.Candidates[i] && (c.URL == v.URL || c.EntryURL() == v.URL)
		}) {
			_, err := Choose(ev, ct, edition, v.URL, Config{})
			require.Error(t, err, "%+v", v)
			require.Contains(t, seedengine.ErrorMessage(err), strings.TrimPrefix(v.Reason, "the "+ct+" seed's entry, though "))
		}
	}
	require.LessOrEqual(t, chosen, 1)
}

// verdictOf returns the verdict on the candidate found at path.
func verdictOf(t *testing.T, vs []Verdict, path string) Verdict {
	t.Helper()
	for _, v := range vs {
		if v.URL == site+path {
			return v
		}
	}
	t.Fatalf("no verdict on %s", path)
	return Verdict{}
}

// explainEvidence has a candidate for each rule of Explain, for news.
func explainEvidence() *Evidence {
	return decided(
		// The run's news entry: declared, the site's main feed, newest.
		fetchedFeed("/news/feed.atom", ViaLinkAlternate, "atom", 20, 2*time.Hour),
		fetchedFeed("/news/linked.xml", ViaAnchor, "rss", 30, time.Hour),
		with(fetchedFeed("/sport/feed.xml", ViaLinkAlternate, "rss", 50, time.Hour), func(c *Candidate) { c.Name = "Sport" }),
		fetchedFeed("/news/older.xml", ViaLinkAlternate, "rss", 40, 3*day),
		fetchedFeed("/news/fewer.xml", ViaLinkAlternate, "rss", 12, 2*time.Hour),
		fetchedFeed("/news/twin.xml", ViaLinkAlternate, "rss", 20, 2*time.Hour),
		fetchedFeed("/news/archive.xml", ViaLinkAlternate, "rss", 100, 200*day),
		fetchedSitemap("/news-sitemap.xml", ViaRobots, "urlset", 50, 50, time.Hour),
		fetchedSection("/news/", 30, 0.9),
		with(fetchedFeed("/media/press.xml", ViaLinkAlternate, "rss", 15, day), func(c *Candidate) { c.ContentType = "press_release" }),
		with(fetchedFeed("/media/press-old.xml", ViaLinkAlternate, "rss", 15, 20*day), func(c *Candidate) { c.ContentType = "press_release" }),
		with(fetchedFeed("/news/feed.atom?redirect", ViaKnownPath, "atom", 20, 2*time.Hour), func(c *Candidate) { c.FinalURL = site + "/news/feed.atom" }),
		&Candidate{Kind: KindFeed, URL: site + "/capped.xml", Via: ViaAnchor, ContentType: "news", Robots: RobotsAllowed, Skipped: SkipOverCap},
		&Candidate{Kind: KindSitemap, URL: site + "/deep.xml", Via: ViaSitemapIndex, ContentType: "news", Robots: RobotsAllowed, Skipped: SkipDepth},
		&Candidate{Kind: KindFeed, URL: site + "/private/feed.xml", Via: ViaAnchor, ContentType: "news", Robots: RobotsDisallowed, Skipped: SkipRobots},
		with(fetchedFeed("/gone.xml", ViaKnownPath, "", 0, 0), func(c *Candidate) { c.Status, c.Newest, c.Oldest = 404, nil, nil }),
		with(fetchedFeed("/refused.xml", ViaAnchor, "", 0, 0), func(c *Candidate) { c.Status, c.Error, c.Newest, c.Oldest = 0, "connect_refused", nil, nil }),
		with(fetchedFeed("/moved.xml", ViaCMSPath, "rss", 10, day), func(c *Candidate) { c.FinalURL = "https://parked.example.net/moved.xml" }),
		with(fetchedFeed("/feeds/", ViaAnchor, FormatDirectory, 6, 0), func(c *Candidate) { c.Newest, c.Oldest = nil, nil }),
		with(fetchedFeed("/subscribe/", ViaAnchor, "html", 1, 0), func(c *Candidate) { c.Error, c.Newest, c.Oldest = "not_a_feed", nil, nil }),
		with(fetchedSitemap("/sitemap.html", ViaAnchor, "html", 0, 0, 0), func(c *Candidate) { c.Error, c.Newest = "not_a_sitemap", nil }),
		with(fetchedSection("/news/report.pdf", 0, 0.6), func(c *Candidate) { c.Format = "" }),
		with(fetchedFeed("/empty.xml", ViaAnchor, "rss", 0, 0), func(c *Candidate) { c.Newest, c.Oldest = nil, nil }),
	)
}

// TestExplainRules: each candidate gets the most specific rule that ruled
// it out, against the run's choice.
func TestExplainRules(t *testing.T) {
	t.Parallel()
	ev := explainEvidence()
	news, ok := decisionOf(ev, "news")
	require.True(t, ok)
	require.Equal(t, site+"/news/feed.atom", news.EntryURL)
	press, ok := decisionOf(ev, "press_release")
	require.True(t, ok)
	require.Equal(t, site+"/media/press.xml", press.EntryURL)

	vs := Explain(ev, "news", "", news.EntryURL, Config{})
	checkVerdicts(t, ev, "news", "", vs)
	require.Equal(t, vs, Explain(ev, "news", "", "", Config{}), `"" is the run's choice`)
	tests := []struct {
		path, rule, reason string
		usable             bool
	}{
		{"/news/feed.atom", RuleChosen, "the news seed's entry", true},
		{"/news/linked.xml", RuleRankedLower, "linked from a page, while the chosen one is declared by the site", true},
		{"/sport/feed.xml", RuleNotMainFeed, "looks less like the site's main feed than the chosen one", true},
		{"/news/older.xml", RuleOlder, "older than the chosen one (newest 2026-03-02 against 2026-03-05)", true},
		{"/news/fewer.xml", RuleFewerItems, "fewer items than the chosen one (12 against 20)", true},
		{"/news/twin.xml", RuleTie, "as good as the chosen one by every rule", true},
		{"/news/archive.xml", RuleStale, "a stale rss feed (newest 2025-08-17), while the chosen one is a fresh atom feed", true},
		{"/news-sitemap.xml", RuleWeakerMethod, "a Google News sitemap, while the chosen one is a fresh atom feed", true},
		{"/news/", RuleWeakerMethod, "a section page, while the chosen one is a fresh atom feed", true},
		{"/media/press.xml", RuleSiblingEntry, "the press_release seed's entry", true},
		{"/media/press-old.xml", RuleOtherContentType, "carries press_release, not news", true},
		{"/news/feed.atom?redirect", RuleSameEntry, "leads to the same URL as the chosen one", true},
		{"/capped.xml", RuleNotFetched, "not fetched: enough candidates of its kind were fetched first", false},
		{"/deep.xml", RuleNotFetched, "not fetched: nested deeper in sitemap indexes than the run reads", false},
		{"/private/feed.xml", RuleRobotsDisallowed, "blocked by robots.txt", false},
		{"/gone.xml", RuleFailed, "answered 404", false},
		{"/refused.xml", RuleFailed, "could not be fetched: connection refused", false},
		{"/moved.xml", RuleOffSite, "redirected to another site", false},
		{"/feeds/", RuleNotAFeed, "a directory page listing 6 feeds, not a feed itself", false},
		{"/subscribe/", RuleNotAFeed, "an HTML page, not a feed", false},
		{"/sitemap.html", RuleNotASitemap, "an HTML page, not a sitemap", false},
		{"/news/report.pdf", RuleNotAPage, "not an HTML page", false},
		{"/empty.xml", RuleEmpty, "a feed with no items", false},
	}
	require.Len(t, tests, len(ev.Candidates))
	for _, tt := range tests {
		v := verdictOf(t, vs, tt.path)
		require.Equal(t, tt.rule, v.Rule, "%s: %s", tt.path, v.Reason)
		require.Equal(t, tt.reason, v.Reason, tt.path)
		require.Equal(t, tt.usable, v.Usable, tt.path)
	}
}

// TestExplainReviewerChoice: once a person chose another candidate, it
// is the chosen one; the run's choice says how it compares, and what the
// rules rank above the person's choice says so.
func TestExplainReviewerChoice(t *testing.T) {
	t.Parallel()
	ev := explainEvidence()
	d, err := Choose(ev, "news", "", site+"/news/linked.xml", Config{})
	require.NoError(t, err)
	vs := Explain(ev, "news", "", d.EntryURL, Config{})
	checkVerdicts(t, ev, "news", "", vs)

	v := verdictOf(t, vs, "/news/linked.xml")
	require.True(t, v.Chosen)
	require.Equal(t, "the news seed's entry, chosen by a reviewer", v.Reason)
	v = verdictOf(t, vs, "/news/feed.atom")
	require.Equal(t, RuleReplaced, v.Rule)
	require.Equal(t, "the run's choice, replaced by a reviewer's: declared by the site, while the chosen one is linked from a page", v.Reason)
	require.True(t, v.Usable)
	v = verdictOf(t, vs, "/news/older.xml")
	require.Equal(t, RuleOverruled, v.Rule)
	require.Equal(t, "ranked first by the rules (declared by the site, while the chosen one is linked from a page), but a reviewer chose the other", v.Reason)
	// The redirect to the run's choice no longer leads to the entry.
	require.Equal(t, "found at a guessed path, while the chosen one is linked from a page", verdictOf(t, vs, "/news/feed.atom?redirect").Reason)
	require.Equal(t, RuleStale, verdictOf(t, vs, "/news/archive.xml").Rule)

	// A stale feed chosen over fresh ones.
	vs = Explain(ev, "news", "", site+"/news/archive.xml", Config{})
	checkVerdicts(t, ev, "news", "", vs)
	require.Equal(t, "the run's choice, replaced by a reviewer's: a fresh atom feed, while the chosen one is a stale rss feed (newest 2025-08-17)",
		verdictOf(t, vs, "/news/feed.atom").Reason)
	require.Equal(t, RuleWeakerMethod, verdictOf(t, vs, "/news/").Rule)

	// The press-release feed taken as the news entry.
	vs = Explain(ev, "news", "", site+"/media/press.xml", Config{})
	checkVerdicts(t, ev, "news", "", vs)
	require.True(t, verdictOf(t, vs, "/media/press.xml").Chosen)
	require.Equal(t, RuleReplaced, verdictOf(t, vs, "/news/feed.atom").Rule)

	// An entry a person typed, which the run never saw: nothing is
	// chosen, and candidates are compared with the run's choice.
	vs = Explain(ev, "news", "", site+"/typed-by-hand", Config{})
	checkVerdicts(t, ev, "news", "", vs)
	for _, v := range vs {
		require.False(t, v.Chosen)
	}
	require.Equal(t, "the run's choice, replaced by an entry the run did not find", verdictOf(t, vs, "/news/feed.atom").Reason)
	require.Equal(t, "fewer items than the run's choice (12 against 20)", verdictOf(t, vs, "/news/fewer.xml").Reason)
	require.Equal(t, "leads to the same URL as the run's choice", verdictOf(t, vs, "/news/feed.atom?redirect").Reason)
}

// TestExplainSiblings: the news and press_release seeds of one run each
// see the other's entry as such.
func TestExplainSiblings(t *testing.T) {
	t.Parallel()
	ev := explainEvidence()
	vs := Explain(ev, "press_release", "", "", Config{})
	checkVerdicts(t, ev, "press_release", "", vs)
	require.True(t, verdictOf(t, vs, "/media/press.xml").Chosen)
	require.Equal(t, "older than the chosen one (newest 2026-02-13 against 2026-03-04)", verdictOf(t, vs, "/media/press-old.xml").Reason)
	v := verdictOf(t, vs, "/news/feed.atom")
	require.Equal(t, RuleSiblingEntry, v.Rule)
	require.Equal(t, "the news seed's entry", v.Reason)
	require.Equal(t, "carries news, not press_release", verdictOf(t, vs, "/news/older.xml").Reason)
}

// TestExplainSitemapsAndSections: sitemaps compare by size, a child of an
// index is read through it, sections by score; a usable candidate with
// nothing to compare with still says why it is not the entry.
func TestExplainSitemapsAndSections(t *testing.T) {
	t.Parallel()
	index := with(fetchedSitemap("/sitemap.xml", ViaRobots, "sitemapindex", 900, 0, 40*day), func(c *Candidate) { c.Children = 2 })
	ev := decided(
		index,
		with(fetchedSitemap("/sitemap-posts.xml", ViaSitemapIndex, "urlset", 600, 0, 40*day), func(c *Candidate) { c.Parent = index.URL; c.Depth = 1 }),
		fetchedSitemap("/sitemap-pages.xml", ViaLinkSitemap, "urlset", 80, 0, 40*day),
		fetchedSection("/news/", 30, 0.9),
		fetchedSection("/media/", 30, 0.6),
	)
	d, ok := decisionOf(ev, "news")
	require.True(t, ok)
	require.Equal(t, index.URL, d.EntryURL)
	vs := Explain(ev, "news", "", "", Config{})
	checkVerdicts(t, ev, "news", "", vs)
	require.Equal(t, Verdict{URL: site + "/sitemap-posts.xml", Usable: true, Rule: RuleChildSitemap, Reason: "part of the sitemap index that is the chosen one"},
		verdictOf(t, vs, "/sitemap-posts.xml"))
	require.Equal(t, "fewer URLs than the chosen one (80 against 900)", verdictOf(t, vs, "/sitemap-pages.xml").Reason)

	vs = Explain(ev, "news", "", site+"/news/", Config{})
	checkVerdicts(t, ev, "news", "", vs)
	v := verdictOf(t, vs, "/media/")
	require.Equal(t, RuleLowerScore, v.Rule)
	require.Equal(t, "a lower section score than the chosen one (0.6 against 0.9)", v.Reason)
	v = verdictOf(t, vs, "/sitemap-posts.xml")
	require.Equal(t, RuleOverruled, v.Rule)

	// Only a child sitemap is usable: decide names none, and the home
	// page is the seed.
	ev = decided(
		with(fetchedSitemap("/sitemap.xml", ViaRobots, "", 0, 0, 0), func(c *Candidate) { c.Status, c.Newest = 503, nil }),
		with(fetchedSitemap("/sitemap-posts.xml", ViaSitemapIndex, "urlset", 600, 0, 40*day), func(c *Candidate) { c.Parent = site + "/sitemap.xml" }),
	)
	ev.Home = &PageEvidence{URL: site + "/", Status: 200, Robots: RobotsAllowed}
	ev.Decisions = decide(ev, explainConfig())
	require.Equal(t, site+"/", ev.Decisions[0].EntryURL)
	vs = Explain(ev, "news", "", site+"/", Config{})
	checkVerdicts(t, ev, "news", "", vs)
	require.Equal(t, Verdict{URL: site + "/sitemap-posts.xml", Usable: true, Rule: RuleNotChosen, Reason: "usable, but not the seed's entry"},
		verdictOf(t, vs, "/sitemap-posts.xml"))
	require.Equal(t, "answered 503", verdictOf(t, vs, "/sitemap.xml").Reason)
}

// TestExplainCatalogue: on every run of the realistic catalogue, the
// run's choice is chosen, every other candidate says why not, and a
// reviewer's choice of any usable candidate becomes the chosen one.
func TestExplainCatalogue(t *testing.T) {
	t.Parallel()
	entries, _, client := simwebtest.Catalogue(t, 5*time.Second)
	disc := New(client, Config{})
	for _, e := range entries {
		t.Run(e.Name, func(t *testing.T) {
			t.Parallel()
			_, _, domain, err := seedengine.ParseDomainID(e.DomainID)
			require.NoError(t, err)
			ev := disc.Discover(t.Context(), e.DomainID, domain)
			for _, d := range ev.Decisions {
				vs := Explain(ev, d.ContentType, d.Edition.Lang(), d.EntryURL, Config{})
				checkVerdicts(t, ev, d.ContentType, d.Edition.Lang(), vs)
				i := slices.IndexFunc(vs, func(v Verdict) bool { return v.Chosen })
				if d.candidate == nil {
					require.Equal(t, -1, i, "the home page is no candidate")
					continue
				}
				require.GreaterOrEqual(t, i, 0, "%s: %s is chosen", d.ContentType, d.EntryURL)
				c := ev.Candidates[i]
				require.Equal(t, d.EntryURL, c.EntryURL())
				got, err := Choose(ev, d.ContentType, d.Edition.Lang(), c.URL, Config{})
				require.NoError(t, err)
				got.Why, d.Why = "", ""
				require.Equal(t, d, got, "choosing the run's choice again changes nothing")

				for _, v := range vs {
					if !v.Usable || v.Chosen {
						continue
					}
					chosen, err := Choose(ev, d.ContentType, d.Edition.Lang(), v.URL, Config{})
					require.NoError(t, err)
					again := Explain(ev, d.ContentType, d.Edition.Lang(), chosen.EntryURL, Config{})
					checkVerdicts(t, ev, d.ContentType, d.Edition.Lang(), again)
					j := slices.IndexFunc(again, func(v Verdict) bool { return v.Chosen })
					require.GreaterOrEqual(t, j, 0)
					require.Equal(t, chosen.EntryURL, ev.Candidates[j].EntryURL())
				}
			}
		})
	}
}
