package feed

import (
	"net/url"
	"path"
	"strings"
)

// maxSections caps [Page.Sections].
const maxSections = 10

// sectionSlugs weighs path segments (normalised by normSlug) that name a news
// listing. Press slugs come from pressSlugs with their own weight.
var sectionSlugs = map[string]float64{
	"newsroom": 1, "news-room": 1, "news": 0.95, "latest-news": 0.95, "news-and-events": 0.85,
	"news-events": 0.85, "news-and-media": 0.9, "news-media": 0.9, "company-news": 0.9,
	"media-centre": 0.85, "media-center": 0.85, "mediacenter": 0.85, "mediacentre": 0.85,
	"media-room": 0.85, "mediaroom": 0.85, "media": 0.6, "announcements": 0.8, "announcement": 0.7,
	"updates": 0.5, "latest": 0.5, "stories": 0.5, "articles": 0.45, "insights": 0.4,
	"blog": 0.6, "blogs": 0.55,
	// French, Spanish, Portuguese, Italian, German, Dutch, Nordic, Polish, Turkish,
	// Malay/Indonesian, Vietnamese, Czech.
	"actualites": 0.95, "actualités": 0.95, "actualite": 0.9, "actualité": 0.9, "actus": 0.8,
	"nouvelles": 0.9, "infos": 0.5, "noticias": 0.95, "notícias": 0.95, "novedades": 0.8,
	"actualidad": 0.85, "notizie": 0.95, "novita": 0.7, "novità": 0.7,
	"aktuelles": 0.95, "aktuell": 0.85, "nachrichten": 0.9, "neuigkeiten": 0.9, "meldungen": 0.8,
	"nieuws": 0.95, "actueel": 0.85, "nyheter": 0.95, "nyheder": 0.95, "uutiset": 0.95,
	"ajankohtaista": 0.9, "aktualnosci": 0.95, "aktualności": 0.95, "wiadomosci": 0.9,
	"haberler": 0.95, "duyurular": 0.8, "berita": 0.95, "pengumuman": 0.8, "tin-tuc": 0.95,
	"tintuc": 0.95, "aktuality": 0.95, "novinky": 0.9, "zpravy": 0.9,
}

// pressSlugWeight is the weight of a pressSlugs segment; "press" and
// "presse"/"prensa" alone are a little less certain than "press-releases".
func pressSlugWeight(s string) float64 {
	switch s {
	case "press", "presse", "prensa", "pers", "stampa", "imprensa":
		return 0.85
	}
	return 1
}

// sectionTexts weighs whole anchor texts (normalised by normText).
var sectionTexts = map[string]float64{
	"news": 1, "newsroom": 1, "news room": 1, "latest news": 1, "press releases": 1,
	"press release": 0.9, "media releases": 1, "news releases": 1, "press": 0.85,
	"press room": 0.9, "pressroom": 0.9, "press centre": 0.9, "press center": 0.9,
	"media": 0.6, "media centre": 0.85, "media center": 0.85, "media room": 0.85,
	"news & media": 0.9, "news and media": 0.9, "news & events": 0.85, "news and events": 0.85,
	"news & press": 0.95, "news and press": 0.95, "news & insights": 0.85,
	"announcements": 0.8, "latest": 0.6, "updates": 0.5, "latest updates": 0.6,
	"stories": 0.5, "blog": 0.6, "our blog": 0.6, "insights": 0.4, "company news": 0.95,
	"actualités": 1, "actualites": 1, "actualité": 0.95, "actus": 0.8, "nouvelles": 0.9,
	"communiqués": 1, "communiqués de presse": 1, "espace presse": 0.9, "presse": 0.85,
	"noticias": 1, "notícias": 1, "novedades": 0.8, "actualidad": 0.85, "prensa": 0.85,
	"sala de prensa": 0.9, "comunicados": 1, "comunicados de prensa": 1, "notas de prensa": 1,
	"notizie": 1, "comunicati stampa": 1, "aktuelles": 1, "aktuell": 0.85, "news & presse": 0.95,
	"nachrichten": 0.9, "neuigkeiten": 0.9, "pressemitteilungen": 1, "nieuws": 1,
	"actueel": 0.85, "persberichten": 1, "nyheter": 1, "nyheder": 1, "uutiset": 1,
	"aktualności": 1, "haberler": 1, "berita": 1, "siaran pers": 1, "pengumuman": 0.8,
	"tin tức": 1, "aktuality": 1, "novinky": 0.9,
}

// normText lower-cases an anchor text, collapses spaces and trims
// surrounding punctuation and arrows ("News »", "› Press").
func normText(s string) string {
	s = strings.ToLower(cleanText(s))
	return strings.TrimFunc(s, func(r rune) bool {
		switch r {
		case '»', '›', '→', '>', '<', '«', '‹', '←', ':', '.', '|', '-', '–', '—', '•', '·', '+', '*', ' ', '/':
			return true
		}
		return false
	})
}

// skipExts are file types that are never a listing page.
var skipExts = map[string]bool{
	".pdf": true, ".jpg": true, ".jpeg": true, ".png": true, ".gif": true, ".svg": true,
	".webp": true, ".zip": true, ".doc": true, ".docx": true, ".xls": true, ".xlsx": true,
	".ppt": true, ".pptx": true, ".mp3": true, ".mp4": true, ".css": true, ".js": true,
	".xml": true, ".json": true, ".rss": true, ".atom": true, ".ico": true,
}

// isLocaleSeg reports whether a path segment is a language or locale prefix
// (en, fr-ca, en_GB, pt-br), which does not count towards depth.
func isLocaleSeg(s string) bool {
	switch len(s) {
	case 2:
		return isLower(s)
	case 5:
		return isLower(s[:2]) && (s[2] == '-' || s[2] == '_') && isLower(strings.ToLower(s[3:]))
	}
	return false
}

func isLower(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 'a' || s[i] > 'z' {
			return false
		}
	}
	return true
}

// sectionScore scores a same-site link as the site's news listing; 0 means
// not a section.
func sectionScore(u *url.URL, text string) float64 {
	p := u.Path
	if dp, err := url.PathUnescape(p); err == nil {
		p = dp
	}
	if skipExts[strings.ToLower(path.Ext(p))] || looksLikeFeedURL(u) {
		return 0
	}
	var segs []string
	for _, s := range strings.Split(p, "/") {
		s = normSlug(s)
		if s == "" || isLocaleSeg(s) {
			continue
		}
		segs = append(segs, s)
	}
	var ps float64
	for i, s := range segs {
		w := sectionSlugs[s]
		if pressSlugs[s] {
			w = max(w, pressSlugWeight(s))
		}
		if w == 0 {
			continue
		}
		// What follows the keyword: nothing (the listing), numbers or
		// "page" (an archive or a later page), or a slug (an article or a
		// sub-category).
		rest := segs[i+1:]
		f := 1.0
		for _, r := range rest {
			switch {
			case isDigits(r) || r == "page" || r == "archive" || r == "archives" || r == "all":
				f *= 0.85
			case sectionSlugs[r] > 0 || pressSlugs[r]:
				// /news/press-releases/: scored by its own segment.
			default:
				f *= 0.35
			}
		}
		// A keyword deep in the path (/about/company/investors/news/) is
		// still fine; one under an unrelated tree slightly less so.
		if i >= 3 {
			f *= 0.8
		}
		ps = max(ps, w*f)
	}
	if u.RawQuery != "" {
		ps *= 0.8
	}

	var ts float64
	if t := normText(text); t != "" && len(t) <= 40 {
		if w, ok := sectionTexts[t]; ok {
			ts = w
		} else if len(strings.Fields(t)) <= 4 {
			for k, w := range sectionTexts {
				if w >= 0.85 && containsWords(t, k) {
					ts = max(ts, w*0.6)
				}
			}
		}
	}
	// Text confirms a path keyword; text alone (a "News" link to
	// /company/updates-2/) counts less, since menus also label single
	// stories "News". The blend keeps distinct scores below 1.
	if ps > 0 {
		return ps + (1-ps)*0.5*ts
	}
	return 0.6 * ts
}

// containsWords reports whether phrase occurs in t on word boundaries.
func containsWords(t, phrase string) bool {
	for i := 0; ; {
		j := strings.Index(t[i:], phrase)
		if j < 0 {
			return false
		}
		j += i
		end := j + len(phrase)
		if (j == 0 || t[j-1] == ' ') && (end == len(t) || t[end] == ' ') {
			return true
		}
		i = j + 1
	}
}

// sameSite reports whether two hosts are the same site by the package's rule:
// equal, or equal once a leading "www." is removed. Ports must match.
func sameSite(a, b *url.URL) bool {
	if a.Port() != b.Port() {
		return false
	}
	ha := strings.TrimPrefix(strings.ToLower(a.Hostname()), "www.")
	hb := strings.TrimPrefix(strings.ToLower(b.Hostname()), "www.")
	return ha == hb
}
