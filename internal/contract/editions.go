package contract

import (
	"bytes"
	"context"
	"net/url"
	"slices"
	"strings"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/feed"
	"github.com/seedengine/seedengine/internal/fetch"
)

// Editions: a publisher whose editions in other languages live on other
// hosts of its domain (de.example.com, fr.example.com) gets one seed per
// edition. The home page names them, by hreflang alternates or only by
// a language switcher's links to the hosts' home pages; the run reads
// each edition's home page (its host's robots.txt first), takes its
// language from <html lang> and its feeds from what it declares, and
// reads those feeds. Candidates of an edition carry its language
// (Candidate.Edition) and are decided apart from the site's own.

// ViaEditionHome is a feed an edition's home page declares or links.
const ViaEditionHome = "edition_home"

// Edition-detection limits: at most maxEditions editions are read, each
// with at most maxEditionFeeds feed fetches.
const (
	maxEditions     = 4
	maxEditionFeeds = 3
)

// EditionEvidence is an edition of the publisher the home page named.
type EditionEvidence struct {
	// Language is the edition's language: its home page's <html lang>
	// (primary subtag), else what named it.
	Language string `json:"language"`
	Host     string `json:"host"`
	Home     string `json:"home"`
	// Via is how the home page named it: hreflang or language_link.
	Via    string `json:"via"`
	Robots string `json:"robots"`
	Status int    `json:"status,omitempty"`
	Error  string `json:"error,omitempty"`
	// Dropped says why it is no edition after all: same_language (its
	// home page is in the site's own language), not_html, no_answer.
	Dropped string `json:"dropped,omitempty"`
}

// Ways an edition is named.
const (
	EditionViaHreflang = "hreflang"
	EditionViaLink     = "language_link"
)

// primaryLang is a language tag's primary subtag, lower case: "en-GB" →
// "en"; "" for none or x-default.
func primaryLang(tag string) string {
	tag = strings.ToLower(strings.TrimSpace(tag))
	p, _, _ := strings.Cut(strings.ReplaceAll(tag, "_", "-"), "-")
	if !seedengine.ValidEdition(p) || p == "x" {
		return ""
	}
	return p
}

// noteEditions records the editions the home page names: hreflang
// alternates on other hosts of the domain, and links to the home pages
// of other hosts whose first label is a language code named by the
// link's text ("Deutsch" → de.example.com) or whose text is a language's
// own name. An edition in the site's own language is none.
func (r *run) noteEditions(page feed.Page) {
	r.mainLang = primaryLang(page.Lang)
	add := func(lang, raw, via string) {
		u, err := url.Parse(raw)
		if err != nil || lang == "" || lang == r.mainLang || len(r.ev.Editions) >= maxEditions {
			return
		}
		host := strings.ToLower(u.Hostname())
		site := strings.TrimPrefix(strings.ToLower(r.site.Hostname()), "www.")
		if !sameSite(host, r.ev.Domain) || strings.TrimPrefix(host, "www.") == site {
			return // an edition on the site's own host is a path, not a host
		}
		for _, e := range r.ev.Editions {
			if e.Host == host || e.Language == lang {
				return
			}
		}
		home := (&url.URL{Scheme: u.Scheme, Host: u.Host, Path: "/"}).String()
		r.ev.Editions = append(r.ev.Editions, EditionEvidence{Language: lang, Host: host, Home: home, Via: via})
	}
	for _, e := range page.Editions {
		add(primaryLang(e.Lang), e.URL, EditionViaHreflang)
	}
	for _, h := range page.Homes {
		u, err := url.Parse(h.URL)
		if err != nil {
			continue
		}
		label, _, _ := strings.Cut(strings.ToLower(u.Hostname()), ".")
		text := strings.ToLower(strings.TrimSpace(h.Title))
		lang := languageNames[text]
		if lang == "" && text == label && languageCodes[label] {
			lang = label
		}
		if lang != "" && (label == lang || languageCodes[label]) {
			add(lang, h.URL, EditionViaLink)
		}
	}
}

// readEditions reads each edition's home page and feeds once the site's
// own search is done: what the edition declares (or links that look like
// feeds), fetched by priority until a fresh feed of the edition is
// known.
func (r *run) readEditions(ctx context.Context) {
	for i := range r.ev.Editions {
		e := &r.ev.Editions[i]
		if !r.canSpend(ctx) {
			e.Dropped = SkipBudget
			continue
		}
		e.Robots = r.checkedVerdict(e.Home)
		if e.Robots == RobotsUnchecked {
			e.Dropped = SkipBudget
			continue
		}
		if e.Robots != RobotsAllowed {
			e.Dropped = SkipRobots
			continue
		}
		r.fetched[e.Home] = true
		resp, err := r.do(ctx, fetch.Request{URL: e.Home, Kind: fetch.KindPage})
		if err != nil {
			e.Error, e.Dropped = failReason(err), "no_answer"
			continue
		}
		e.Status = resp.Status
		if resp.Status < 200 || resp.Status > 299 {
			e.Dropped = "no_answer"
			continue
		}
		if !isHTML(mediaType(resp.Header.Get("Content-Type")), resp.Body) {
			e.Dropped = "not_html"
			continue
		}
		page, _ := feed.FromHTML(resp.FinalURL, bytes.NewReader(resp.Body), int64(len(resp.Body)))
		if l := primaryLang(page.Lang); l != "" {
			e.Language = l
		}
		if e.Language == r.mainLang || slices.ContainsFunc(r.ev.Editions[:i], func(o EditionEvidence) bool {
			return o.Dropped == "" && o.Language == e.Language
		}) {
			e.Dropped = "same_language"
			continue
		}
		for j, f := range page.Feeds {
			if feed.IsCommentFeed(f) || (f.Source != feed.SourceLinkAlternate && !strings.EqualFold(hostOf(f.URL), e.Host)) {
				continue
			}
			via, prio := ViaEditionHome, float64(prioFeedAnchor)-0.001*float64(j)
			if f.Source == feed.SourceLinkAlternate {
				// Declared by the edition's home page, as the site's by
				// its own.
				via, prio = ViaLinkAlternate, prioDeclared-0.001*float64(j)
			}
			c := r.addFeed(f, via, "", prio, 0)
			if c == nil {
				c = r.find(KindFeed, f.URL) // known already: the edition's all the same
			}
			if c != nil {
				c.Edition = e.Language
			}
		}
		r.searchEdition(ctx, e.Language)
	}
}

// searchEdition fetches the edition's feed candidates, highest priority
// first, until one is a fresh news feed or maxEditionFeeds were fetched.
func (r *run) searchEdition(ctx context.Context, lang string) {
	for range maxEditionFeeds {
		var best *Candidate
		for _, c := range r.ev.Candidates {
			if c.Edition != lang || c.Kind != KindFeed {
				continue
			}
			if c.Fetched && c.ContentType == seedengine.ContentTypeNews && c.usable() && r.fresh(c) {
				return
			}
			if !c.Fetched && c.Skipped == "" && (best == nil || c.Priority > best.Priority) {
				best = c
			}
		}
		if best == nil || !r.canSpend(ctx) {
			return
		}
		r.fetch(ctx, best)
	}
}

// tagEditions gives every candidate on an edition's host that edition,
// once the editions are known.
func (r *run) tagEditions() {
	hosts, live := map[string]string{}, map[string]bool{}
	for _, e := range r.ev.Editions {
		if e.Dropped == "" {
			hosts[e.Host], live[e.Language] = e.Language, true
		}
	}
	for _, c := range r.ev.Candidates {
		if !live[c.Edition] {
			c.Edition = hosts[hostFor(c)] // "" on the site's own hosts, or when its edition was dropped
		}
	}
}

func hostFor(c *Candidate) string { return strings.ToLower(hostOf(entry(c))) }

// decideEditions makes the decisions of a domain with editions: the
// site's own (every content type, as decide does) and each edition's news
// entry, each decision saying its edition. The edition whose language is
// one of the domain_id's country's is the default (the site's own when
// its language is); with no such edition, the site's own. Without an
// edition that has a news entry, the domain has one edition and its
// decisions say none.
func decideEditions(ev *Evidence, cfg Config) []Decision {
	// (eds below: the editions read that have a news entry.)
	out := decideOne(withCandidates(ev, func(c *Candidate) bool { return c.Edition == "" }), cfg)
	type edition struct {
		lang, host string
		d          Decision
	}
	var eds []edition
	for _, e := range ev.Editions {
		if e.Dropped != "" {
			continue
		}
		for _, d := range decideOne(withCandidates(ev, func(c *Candidate) bool { return c.Edition == e.Language }), cfg) {
			if d.ContentType == seedengine.ContentTypeNews && d.candidate != nil && d.candidate.Edition == e.Language {
				eds = append(eds, edition{e.Language, e.Host, d})
			}
		}
	}
	mainLang, siteHost := ev.siteLanguage(), strings.ToLower(hostOf(ev.Site))
	def := defaultEdition(ev)
	if len(eds) == 0 && def == mainLang {
		return out // one edition after all
	}
	for i := range out {
		out[i].Edition = &seedengine.SeedEdition{Language: mainLang, Host: siteHost, Default: def == mainLang}
	}
	for _, e := range eds {
		e.d.Edition = &seedengine.SeedEdition{Language: e.lang, Host: e.host, Default: def == e.lang}
		e.d.Why += " (the " + e.lang + " edition, " + e.host + ")"
		out = append(out, e.d)
	}
	return out
}

// languageCodes are ISO 639-1 codes, for a host label that names an
// edition (de.example.com).
var languageCodes = func() map[string]bool {
	m := map[string]bool{}
	for _, c := range strings.Fields(`aa ab af ak am an ar as av ay az ba be bg bh bi bm bn bo br bs ca ce ch co cr cs cu cv cy
		da de dv dz ee el en eo es et eu fa ff fi fj fo fr fy ga gd gl gn gu gv ha he hi ho hr ht hu hy hz ia id ie ig ii ik io is
		it iu ja jv ka kg ki kj kk kl km kn ko kr ks ku kv kw ky la lb lg li ln lo lt lu lv mg mh mi mk ml mn mr ms mt my na nb nd
		ne ng nl nn no nr nv ny oc oj om or os pa pi pl ps pt qu rm rn ro ru rw sa sc sd se sg si sk sl sm sn so sq sr ss st su sv
		sw ta te tg th ti tk tl tn to tr ts tt tw ty ug uk ur uz ve vi vo wa wo xh yi yo za zh zu`) {
		m[c] = true
	}
	return m
}()

// languageNames are languages' own names, as a language switcher shows
// them, with their codes.
var languageNames = map[string]string{
	"english": "en", "deutsch": "de", "français": "fr", "francais": "fr", "español": "es", "espanol": "es",
	"català": "ca", "catala": "ca", "galego": "gl", "euskara": "eu", "italiano": "it", "português": "pt",
	"portugues": "pt", "nederlands": "nl", "polski": "pl", "čeština": "cs", "slovenčina": "sk", "magyar": "hu",
	"română": "ro", "български": "bg", "ελληνικά": "el", "русский": "ru", "українська": "uk", "türkçe": "tr",
	"svenska": "sv", "dansk": "da", "norsk": "no", "suomi": "fi", "eesti": "et", "latviešu": "lv",
	"lietuvių": "lt", "hrvatski": "hr", "srpski": "sr", "slovenščina": "sl", "العربية": "ar", "فارسی": "fa",
	"עברית": "he", "हिन्दी": "hi", "বাংলা": "bn", "தமிழ்": "ta", "日本語": "ja", "中文": "zh", "한국어": "ko",
	"bahasa indonesia": "id", "bahasa melayu": "ms", "tiếng việt": "vi", "ไทย": "th", "kiswahili": "sw",
}

// countryLanguages are the languages of a country's own editions, the
// most used first (official and national languages, ISO 639-1), for the
// countries whose publishers most often run editions on several hosts;
// a country not listed (intl among them) has the site's own as its
// default edition.
var countryLanguages = map[string][]string{
	"ad": {"ca"}, "ae": {"ar"}, "ar": {"es"}, "at": {"de"}, "au": {"en"}, "be": {"nl", "fr", "de"}, "bg": {"bg"},
	"br": {"pt"}, "by": {"be", "ru"}, "ca": {"en", "fr"}, "ch": {"de", "fr", "it", "rm"}, "cl": {"es"}, "cn": {"zh"},
	"co": {"es"}, "cy": {"el", "tr"}, "cz": {"cs"}, "de": {"de"}, "dk": {"da"}, "ee": {"et"}, "eg": {"ar"},
	"es": {"es", "ca", "gl", "eu"}, "fi": {"fi", "sv"}, "fr": {"fr"}, "gb": {"en", "cy", "gd"}, "gr": {"el"},
	"hk": {"zh", "en"}, "hr": {"hr"}, "hu": {"hu"}, "id": {"id"}, "ie": {"en", "ga"}, "il": {"he", "ar"},
	"in": {"hi", "en", "bn", "ta", "te", "mr"}, "iq": {"ar", "ku"}, "ir": {"fa"}, "is": {"is"}, "it": {"it"},
	"jp": {"ja"}, "ke": {"en", "sw"}, "kr": {"ko"}, "kz": {"kk", "ru"}, "lb": {"ar", "fr"}, "lt": {"lt"},
	"lu": {"lb", "fr", "de"}, "lv": {"lv"}, "ma": {"ar", "fr"}, "mx": {"es"}, "my": {"ms", "en"},
	"ng": {"en"}, "nl": {"nl"}, "no": {"no", "nb", "nn"}, "nz": {"en", "mi"}, "pe": {"es"}, "ph": {"en", "tl"},
	"pk": {"ur", "en"}, "pl": {"pl"}, "pt": {"pt"}, "qa": {"ar"}, "ro": {"ro"}, "rs": {"sr"}, "ru": {"ru"},
	"sa": {"ar"}, "se": {"sv"}, "sg": {"en", "zh", "ms", "ta"}, "si": {"sl"}, "sk": {"sk"}, "th": {"th"},
	"tn": {"ar", "fr"}, "tr": {"tr"}, "tw": {"zh"}, "ua": {"uk"}, "us": {"en", "es"}, "ve": {"es"},
	"vn": {"vi"}, "za": {"en", "af", "zu", "xh"},
}

// editionView is ev as decision d's edition sees it: only that edition's
// candidates, when the domain has editions (its sitemaps and archives are
// its own, not the site's); ev itself otherwise.
func editionView(ev *Evidence, d Decision) *Evidence {
	if d.Edition == nil || !hasEditions(ev) {
		return ev
	}
	return withCandidates(ev, func(c *Candidate) bool { return candidateEdition(ev, c) == d.Edition.Language })
}

// defaultEdition is the language of the domain's default edition, from
// the languages alone, so that the plain seed_id names the same edition
// run after run: of the site's own and the editions its home page named
// (those found to be in the site's own language aside, those this run
// could not read included), the site's own when its language is one of
// the domain_id's country's, else the first of the country's languages
// there, else the site's own. A default edition with no news entry in a
// run has no seed from it.
func defaultEdition(ev *Evidence) string {
	mainLang := ev.siteLanguage()
	_, country, _, _ := seedengine.ParseDomainID(ev.DomainID)
	langs := countryLanguages[country]
	if slices.Contains(langs, mainLang) {
		return mainLang
	}
	for _, l := range langs {
		if slices.ContainsFunc(ev.Editions, func(e EditionEvidence) bool { return e.Language == l && e.Dropped != "same_language" }) {
			return l
		}
	}
	return mainLang
}

// hasOtherDefault reports whether the default edition is not the site's
// own: then the site's seeds carry their edition even in a run that could
// not read the default's.
func hasOtherDefault(ev *Evidence) bool {
	return len(ev.Editions) > 0 && defaultEdition(ev) != ev.siteLanguage()
}

// siteLanguage is the site's own edition's language: Language, "und"
// (undetermined) when its home page names none.
func (ev *Evidence) siteLanguage() string {
	if ev.Language == "" {
		return "und"
	}
	return ev.Language
}

// withCandidates is ev with only the candidates keep takes (a shallow
// copy: decide and the archives read one edition's so).
func withCandidates(ev *Evidence, keep func(*Candidate) bool) *Evidence {
	v := *ev
	v.Candidates = nil
	for _, c := range ev.Candidates {
		if keep(c) {
			v.Candidates = append(v.Candidates, c)
		}
	}
	return &v
}
