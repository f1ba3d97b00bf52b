package sitemap

import (
	"net/url"
	"slices"
	"strings"
	"unicode"
)

// newsTokens are name tokens that mean news, in the languages publishers
// name their Google News sitemaps in. Compounds such as "newssitemap" and
// "googlenews" are handled by prefix and suffix matching in NewsScore.
var newsTokens = map[string]float64{
	"news": 1, "googlenews": 1, "gnews": 0.9, "newsmap": 0.9,
	"nachrichten": 0.9, "meldungen": 0.6, "aktuelles": 0.7, "aktuell": 0.6,
	"noticias": 0.9, "noticia": 0.8, "ultimas": 0.5, "actualidad": 0.7, "noticies": 0.9,
	"actualites": 0.9, "actualite": 0.8, "actu": 0.6, "actus": 0.6, "infos": 0.4,
	"notizie": 0.9, "nieuws": 0.9, "nyheter": 0.9, "nyheder": 0.9, "uutiset": 0.9,
	"wiadomosci": 0.9, "aktualnosci": 0.9, "haberler": 0.9, "haber": 0.7, "berita": 0.9,
	"novinky": 0.8, "zpravy": 0.8, "noutati": 0.8, "stiri": 0.8, "vesti": 0.8, "novosti": 0.9,
	"ειδησεις": 0.9, "новости": 0.9, "ニュース": 0.9, "新闻": 0.9, "新聞": 0.9, "뉴스": 0.9,
	"اخبار": 0.9, "أخبار": 0.9, "חדשות": 0.9, "समाचार": 0.9, "khabar": 0.7,
	"tintuc": 0.9, "tin": 0.3, "latest": 0.25, "recent": 0.2, "breaking": 0.6,
}

// notNewsTokens are name tokens of sitemaps that list something other than
// recent articles: media, taxonomy, people, products, static pages.
var notNewsTokens = map[string]bool{
	"image": true, "images": true, "img": true, "video": true, "videos": true, "photo": true, "photos": true,
	"gallery": true, "galleries": true, "podcast": true, "podcasts": true, "audio": true,
	"author": true, "authors": true, "people": true, "person": true, "tag": true, "tags": true,
	"topic": true, "topics": true, "category": true, "categories": true, "section": true, "sections": true,
	"page": true, "pages": true, "product": true, "products": true, "shop": true, "store": true,
	"static": true, "evergreen": true, "archive": true, "archives": true, "jobs": true, "events": true,
	"recipes": true, "hreflang": true, "amp": true, "newsletter": true, "newsletters": true,
}

// NewsScore rates how likely a sitemap URL names a Google News sitemap, by
// its path and query alone: about 1 for news-sitemap.xml, sitemap_news.xml,
// google-news.xml, googlenews.xml and /sitemaps/news.xml; 0.6–0.9 for the
// word for news in other languages (nachrichten, noticias, actualites, …);
// a little for "latest"; 0 for a name that says nothing; negative for names
// of image, video, author, tag, category or page sitemaps. Callers rank
// robots.txt Sitemap: lines and sitemap index children by it before
// capping how many they read.
func NewsScore(rawURL string) float64 {
	u, err := url.Parse(rawURL)
	if err != nil {
		return 0
	}
	p := u.Path
	if dp, err := url.PathUnescape(p); err == nil {
		p = dp
	}
	name := strings.ToLower(p + " " + u.RawQuery)
	if q, err := url.QueryUnescape(u.RawQuery); err == nil {
		name = strings.ToLower(p + " " + q)
	}
	score, neg := 0.0, false
	for _, tok := range strings.FieldsFunc(name, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		if notNewsTokens[tok] {
			neg = true
			continue
		}
		w := newsTokens[tok]
		if w == 0 && len(tok) > 4 {
			// Compounds: newssitemap, sitemapnews, googlenewssitemap, newsindex.
			switch {
			case strings.HasPrefix(tok, "newsletter"), strings.HasPrefix(tok, "newsroom"):
				w = 0.3
			case strings.HasPrefix(tok, "news"), strings.HasSuffix(tok, "news"), strings.Contains(tok, "googlenews"):
				w = 0.9
			}
		}
		score = max(score, w)
	}
	if neg {
		// "video-news-sitemap.xml" is a video sitemap of news clips.
		return score*0.3 - 0.5
	}
	return score
}

// knownNewsPaths are where publishers serve Google News sitemaps without
// always naming them in robots.txt, most common first: the WordPress
// plugins (Yoast News SEO, Rank Math, Jetpack, XML Sitemaps for Google
// News), then the generic names, then CMS conventions (Drupal's
// simple_sitemap news variant, Brightspot, Arc XP, BLOX). CMS-specific
// forms also live in internal/cms, which tries them first once the CMS is
// recognised.
var knownNewsPaths = []string{
	"/news-sitemap.xml",
	"/sitemap-news.xml",
	"/sitemap_news.xml",
	"/news_sitemap.xml",
	"/sitemaps/news.xml",
	"/sitemap/news.xml",
	"/news/sitemap.xml",
	"/googlenews.xml",
	"/sitemap_googlenews.xml",
	"/google-news-sitemap.xml",
	"/sitemap/google-news.xml",
	"/sitemaps/news-sitemap.xml",
	"/sitemaps/sitemap-news.xml",
	"/news-sitemap-content.xml",
	"/arc/outboundfeeds/news-sitemap/?outputType=xml",
	"/tncms/sitemap/news.xml",
	"/sitemap-news-index.xml",
	"/feeds/sitemap_news.xml",
}

// knownPaths are general sitemap locations, most common first: the
// sitemaps.org default, the WordPress plugins' and core's indexes, and
// the compressed and text forms.
var knownPaths = []string{
	"/sitemap.xml",
	"/sitemap_index.xml",
	"/wp-sitemap.xml",
	"/sitemap-index.xml",
	"/sitemaps/sitemap.xml",
	"/sitemap.xml.gz",
	"/sitemap.txt",
}

// KnownNewsPaths lists the paths (with query, if any) at which publishers
// commonly serve a Google News sitemap, most common first. The slice is
// fresh; the caller may change it.
func KnownNewsPaths() []string { return slices.Clone(knownNewsPaths) }

// KnownPaths lists common general sitemap paths, most common first. The
// slice is fresh; the caller may change it.
func KnownPaths() []string { return slices.Clone(knownPaths) }

// LooksLikeSitemapURL reports whether a link's URL looks like a
// machine-readable sitemap rather than a human one: "sitemap" (or
// "site-map", "sitemaps") in its path or query, and an .xml, .xml.gz, .gz
// or .txt file or an XML output query (?outputType=xml). /sitemap/ and
// /sitemap.html are HTML pages for people and are false.
func LooksLikeSitemapURL(rawURL string) bool {
	u, err := url.Parse(rawURL)
	if err != nil {
		return false
	}
	p := strings.ToLower(u.Path)
	q := strings.ToLower(u.RawQuery)
	if !strings.Contains(p, "sitemap") && !strings.Contains(p, "site-map") && !strings.Contains(q, "sitemap") {
		return false
	}
	switch {
	case strings.HasSuffix(p, ".xml"), strings.HasSuffix(p, ".xml.gz"), strings.HasSuffix(p, ".gz"), strings.HasSuffix(p, ".txt"):
		return true
	case strings.Contains(q, "outputtype=xml"), strings.Contains(q, "format=xml"):
		return true
	}
	return false
}
