package feed

import (
	"net/url"
	"path"
	"strings"

	"github.com/seedengine/seedengine/internal/sitemap"
)

// hasRel reports whether a rel attribute lists the link type want.
func hasRel(rel, want string) bool {
	for _, r := range strings.Fields(strings.ToLower(rel)) {
		if r == want {
			return true
		}
	}
	return false
}

// sitemapWords are anchor texts (normalised by normText) that label a
// sitemap link, in the languages publishers use.
var sitemapWords = []string{
	"sitemap", "site map", "sitemaps", "plan du site", "plan de site", "mapa del sitio", "mapa do site",
	"mapa web", "seitenübersicht", "sitemap news", "news sitemap", "mappa del sito", "サイトマップ",
	"网站地图", "網站地圖", "사이트맵", "карта сайта", "haritası",
}

// sitemapLink reports whether an anchor leads to a sitemap, and whether
// its URL looks like a machine-readable one. A URL that looks like an XML
// sitemap counts whatever its text; a link labelled "Sitemap" (or with
// "sitemap" in its path) counts as a page, usually one for people.
func sitemapLink(u *url.URL, text string) (xml, ok bool) {
	us := u.String()
	if sitemap.LooksLikeSitemapURL(us) {
		return true, true
	}
	if skipExts[strings.ToLower(path.Ext(u.Path))] {
		return false, false
	}
	p := strings.ToLower(u.Path)
	if strings.Contains(p, "sitemap") || strings.Contains(p, "site-map") {
		return false, true
	}
	t := normText(text)
	if t == "" || len(t) > 40 {
		return false, false
	}
	for _, w := range sitemapWords {
		if t == w || containsWords(t, w) {
			return false, true
		}
	}
	return false, false
}

// hubWords are words of anchor texts that may lead to a page listing
// feeds: subscription and syndication pages. Texts that name a feed
// outright ("RSS", "RSS-Feeds") are feed candidates instead.
var hubWords = []string{
	"subscribe", "subscriptions", "syndication", "abonnieren", "abonnement", "abonnements",
	"s'abonner", "abonnez-vous", "flux", "suscribirse", "suscríbete", "assine", "iscriviti",
	"feeds", "newsfeeds", "購読", "配信", "訂閱", "订阅", "구독",
}

// isHubWord reports whether an anchor text names a subscription or
// syndication page.
func isHubWord(text string) bool {
	t := normText(text)
	if t == "" || len(t) > 40 {
		return false
	}
	for _, w := range hubWords {
		if t == w || containsWords(t, w) || (w[0] >= 0x80 && strings.Contains(t, w)) {
			return true
		}
	}
	return false
}

// mainWords lift a feed that carries a site's whole output (top stories,
// latest, all news, the front page) above its section feeds.
var mainWords = map[string]float64{
	"top": 0.6, "topstories": 0.7, "headlines": 0.6, "headline": 0.5, "latest": 0.6, "all": 0.5,
	"main": 0.5, "home": 0.4, "homepage": 0.5, "frontpage": 0.5, "front": 0.3, "index": 0.3,
	"breaking": 0.4, "topnews": 0.7, "allnews": 0.6, "news": 0.35, "rss": 0.05, "feed": 0.05,
	"schlagzeilen": 0.7, "alle": 0.5, "neueste": 0.5, "aktuell": 0.4, "aktuelles": 0.4, "nachrichten": 0.35,
	"une": 0.4, "actualites": 0.35, "actualite": 0.3, "dernieres": 0.5, "derniere": 0.4, "infos": 0.2,
	"portada": 0.6, "ultimas": 0.5, "noticias": 0.35, "últimas": 0.5, "destaques": 0.5, "primapagina": 0.6,
	"notizie": 0.35, "nieuws": 0.35, "laatste": 0.5,
	"主要": 0.7, "トップ": 0.7, "新着": 0.6, "最新": 0.6, "速報": 0.5, "総合": 0.6, "ニュース": 0.35,
	"头条": 0.6, "要闻": 0.6, "최신": 0.6, "주요": 0.6,
}

// narrowWords mark a feed of one section, a medium or a side product.
var narrowWords = map[string]float64{
	"sport": 0.5, "sports": 0.5, "weather": 0.6, "podcast": 0.8, "podcasts": 0.8, "video": 0.6,
	"videos": 0.6, "audio": 0.6, "comments": 1, "jobs": 0.8, "events": 0.5, "obituaries": 0.8,
	"horoscope": 0.9, "games": 0.7, "puzzles": 0.8, "lifestyle": 0.4, "entertainment": 0.4,
	"travel": 0.4, "food": 0.4, "recipes": 0.8, "fashion": 0.4, "motoring": 0.4, "cars": 0.4,
	"property": 0.4, "realestate": 0.4, "science": 0.25, "technology": 0.25, "tech": 0.25,
	"business": 0.2, "opinion": 0.3, "culture": 0.3, "arts": 0.3, "health": 0.2, "education": 0.2,
	"world": 0.1, "politics": 0.15, "economy": 0.2, "wirtschaft": 0.2, "politik": 0.15,
	"kultur": 0.3, "reise": 0.4, "wetter": 0.6, "deportes": 0.5, "economia": 0.2, "cultura": 0.3,
	"スポーツ": 0.5, "経済": 0.2, "政治": 0.15, "国際": 0.1, "社会": 0.1, "エンタメ": 0.4, "天気": 0.6,
}

// MainScore rates how likely a feed carries a site's whole news output
// rather than one section of it, from its URL and title, in [-1, 1]:
// words such as "top stories", "latest", "all", "Schlagzeilen", "主要"
// raise it, section and side-product words (sport, weather, podcast,
// comments) lower it, and a shallower path raises it a little. It orders
// the feeds of a feed directory, where one site lists twenty.
func MainScore(rawURL, title string) float64 {
	var toks []string
	depth := 0
	if u, err := url.Parse(rawURL); err == nil {
		p := u.Path
		if dp, err := url.PathUnescape(p); err == nil {
			p = dp
		}
		depth = strings.Count(strings.Trim(p, "/"), "/")
		p = strings.TrimSuffix(strings.TrimSuffix(p, path.Ext(p)), "/")
		toks = append(toks, words(p)...)
		toks = append(toks, words(u.RawQuery)...)
	}
	toks = append(toks, words(title)...)
	up, down := 0.0, 0.0
	for i, t := range toks {
		up = max(up, mainWords[t])
		down = max(down, narrowWords[t])
		if i+1 < len(toks) {
			up = max(up, mainWords[t+toks[i+1]]) // "top stories", "all news", "front page"
		}
		if !isASCII(t) {
			// Scripts without spaces run words together: 主要ニュース.
			for k, w := range mainWords {
				if !isASCII(k) && strings.Contains(t, k) {
					up = max(up, w)
				}
			}
			for k, w := range narrowWords {
				if !isASCII(k) && strings.Contains(t, k) {
					down = max(down, w)
				}
			}
		}
	}
	s := up - down + 0.1*float64(max(0, 2-depth))
	return max(-1, min(1, s))
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// isFeedFile reports whether a URL names a file of a type feeds come in:
// .xml, .rss, .rdf or .atom.
func isFeedFile(u *url.URL) bool {
	switch strings.ToLower(path.Ext(u.Path)) {
	case ".xml", ".rss", ".rdf", ".atom":
		return true
	}
	return false
}
