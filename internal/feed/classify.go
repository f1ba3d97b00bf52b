package feed

import (
	"net/url"
	"path"
	"strings"
	"unicode"
)

// Content type slugs returned by [ContentTypeOf] and carried by [Section] and
// [WellKnown]. They are stable: callers store them.
const (
	ContentNews         = "news"
	ContentPressRelease = "press_release"
	ContentBlog         = "blog"
)

// Feed MIME types, lower case, without parameters.
const (
	TypeRSS      = "application/rss+xml"
	TypeAtom     = "application/atom+xml"
	TypeJSONFeed = "application/feed+json"
	TypeRDF      = "application/rdf+xml"
)

// mediaType returns the lower-case media type of a Content-Type or type
// attribute value, without parameters.
func mediaType(v string) string {
	if i := strings.IndexByte(v, ';'); i >= 0 {
		v = v[:i]
	}
	return strings.ToLower(strings.TrimSpace(v))
}

// LooksLikeFeedType reports whether a MIME type (parameters allowed, any case)
// is one of the feed types: RSS, Atom, JSON Feed or RDF. Generic XML and JSON
// types are not; see [MaybeFeedType].
func LooksLikeFeedType(contentType string) bool {
	switch mediaType(contentType) {
	case TypeRSS, TypeAtom, TypeJSONFeed, TypeRDF,
		"application/x-rss+xml", "application/rss", "text/rss+xml", "application/x-atom+xml":
		return true
	}
	return false
}

// MaybeFeedType reports whether a body served with this MIME type may be a
// feed and is worth parsing: the feed types of [LooksLikeFeedType], plus
// text/xml, application/xml and application/json, which many servers use for
// feeds. It is false for HTML and everything else.
func MaybeFeedType(contentType string) bool {
	if LooksLikeFeedType(contentType) {
		return true
	}
	switch mediaType(contentType) {
	case "text/xml", "application/xml", "application/json", "text/json":
		return true
	}
	return false
}

// feedburnerHosts serve feeds and nothing else: FeedBurner's, and the
// feed services publishers moved to from it (FeedBlitz, FeedPress).
var feedburnerHosts = map[string]bool{
	"feeds.feedburner.com":  true,
	"feeds2.feedburner.com": true,
	"feedproxy.google.com":  true,
	"feeds.feedblitz.com":   true,
	"feedpress.me":          true,
}

// IsFeedHost reports whether host (lower case) is a feed-hosting
// service's, which serves feeds of many publishers and nothing else
// (FeedBurner): a site's feed may live there rather than on the site.
func IsFeedHost(host string) bool { return feedburnerHosts[host] }

// feedFileStems are file names (before the extension) that are feeds whatever
// the extension: rss.xml, feed.json, atom.php, rss2.aspx, index.rss …
var feedFileStems = map[string]bool{
	"rss": true, "rss2": true, "feed": true, "atom": true, "rdf": true, "feeds": true,
}

// feedExts are extensions that only feeds use.
var feedExts = map[string]bool{".rss": true, ".atom": true, ".rdf": true}

// LooksLikeFeedURL reports whether a URL looks like a feed by its form alone:
// a FeedBurner host; a path ending in /feed, /rss or /atom (with or without a
// trailing slash); a .rss, .atom or .rdf file; a file named rss, rss2, feed or
// atom with any extension (rss.xml, feed.json, atom.php); an .xml or .json
// file whose path mentions rss, atom or feed (but not sitemap); /rss/<name>
// or /feed/<name> (BBC-style /rss/news); or a feed query (?feed=rss2,
// ?format=feed, ?format=rss, ?type=rss). Used for anchors, for generic XML
// types in <link> and Link headers, and by callers that meet URLs elsewhere.
func LooksLikeFeedURL(rawURL string) bool {
	u, err := url.Parse(rawURL)
	if err != nil {
		return false
	}
	return looksLikeFeedURL(u)
}

func looksLikeFeedURL(u *url.URL) bool {
	host := strings.ToLower(u.Hostname())
	if feedburnerHosts[host] && len(u.Path) > 1 {
		return true
	}
	if u.RawQuery != "" {
		q := u.Query()
		for _, k := range []string{"feed", "format", "type"} {
			switch strings.ToLower(q.Get(k)) {
			case "rss", "rss2", "atom", "feed", "rdf", "json_feed":
				return true
			}
		}
	}
	p := strings.ToLower(u.Path)
	if strings.Contains(p, "sitemap") {
		return false
	}
	p = strings.TrimSuffix(p, "/")
	if p == "" {
		return false
	}
	last, prev := p, ""
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		last = p[i+1:]
		prev = p[:i]
		if j := strings.LastIndexByte(prev, '/'); j >= 0 {
			prev = prev[j+1:]
		}
	}
	switch last {
	case "feed", "rss", "atom", "rss2", "feed.rss",
		// Feed directories: fetched like a feed, read for their links.
		"feeds", "rss-feeds", "rssfeeds", "rss-feed", "rssfeed", "rss_feeds":
		return true
	}
	ext := path.Ext(last)
	stem := strings.TrimSuffix(last, ext)
	if feedExts[ext] {
		return true
	}
	if ext != "" && feedFileStems[stem] {
		return true
	}
	if ext == ".xml" || ext == ".json" {
		if strings.Contains(p, "rss") || strings.Contains(p, "atom") || strings.Contains(p, "feed") {
			return true
		}
	}
	if strings.Contains(p, "/feeds/posts/") { // Blogger
		return true
	}
	switch prev {
	case "rss", "feed", "feeds":
		return ext == "" || ext == ".xml"
	}
	return false
}

// commentWords are title words that mark a comments feed.
var commentWords = map[string]bool{
	"comments": true, "comment": true, "commentaires": true, "commentaire": true,
	"kommentare": true, "kommentar": true, "comentarios": true, "comentario": true,
	"comentários": true, "comentário": true, "commenti": true, "commento": true,
	"reacties": true, "reactie": true, "komentarze": true, "komentar": true,
	"kommentarer": true, "kommentit": true, "yorumlar": true, "komentáře": true,
}

// IsCommentFeed reports whether a candidate is a comments feed rather than a
// site or section feed. It is true for:
//
//   - the WordPress site-wide comments feed (/comments/feed/, ?feed=comments-rss2)
//     and /feed/comments variants;
//   - a title with a word meaning "comments" (WordPress: "Site » Comments
//     Feed", "Post » Kommentar-Feed", "Flux des commentaires" …);
//   - a per-post feed: /feed/ after a date-based permalink
//     (/2024/05/17/slug/feed/) or a ?p=ID query with ?feed=.
//
// A /<section>/feed/ URL without a date is a category feed and is kept.
func IsCommentFeed(c Candidate) bool {
	for _, w := range words(c.Title) {
		if commentWords[w] {
			return true
		}
		// German compounds: "Kommentar-Feed" splits, "Kommentarfeed" does not.
		if strings.HasPrefix(w, "kommentar") || (strings.HasPrefix(w, "comment") && strings.HasSuffix(w, "feed")) {
			return true
		}
	}
	u, err := url.Parse(c.URL)
	if err != nil {
		return false
	}
	q := u.Query()
	if f := strings.ToLower(q.Get("feed")); strings.HasPrefix(f, "comments") {
		return true
	} else if f != "" && (q.Get("p") != "" || q.Get("page_id") != "") {
		return true
	}
	p := strings.ToLower(strings.Trim(u.Path, "/"))
	if p == "" {
		return false
	}
	segs := strings.Split(p, "/")
	for i := 0; i+1 < len(segs); i++ {
		a, b := segs[i], segs[i+1]
		if (a == "comments" && (b == "feed" || b == "rss" || b == "atom")) ||
			(b == "comments" && (a == "feed" || a == "rss" || a == "atom")) {
			return true
		}
	}
	last := segs[len(segs)-1]
	if last != "feed" && last != "rss" && last != "atom" && !(len(segs) >= 2 && segs[len(segs)-2] == "feed") {
		return false
	}
	// Per-post feed under a dated permalink: a year segment followed by a
	// non-numeric slug before the trailing /feed/.
	end := len(segs) - 1
	if segs[end] != "feed" && end >= 1 && segs[end-1] == "feed" {
		end-- // /slug/feed/atom/
	}
	for i := 0; i < end; i++ {
		if isYear(segs[i]) {
			for j := i + 1; j < end; j++ {
				if !isDigits(segs[j]) {
					return true
				}
			}
		}
	}
	return false
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func isYear(s string) bool {
	return len(s) == 4 && isDigits(s) && (s[:2] == "19" || s[:2] == "20")
}

// words splits s into lower-case letter-and-digit words.
func words(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}

// pressSlugs are URL path segments (lower case, '_' and ' ' read as '-') that
// mean press or media releases.
var pressSlugs = map[string]bool{
	"press": true, "press-releases": true, "press-release": true, "pressreleases": true,
	"pressrelease": true, "media-releases": true, "media-release": true, "mediareleases": true,
	"news-releases": true, "news-release": true, "newsreleases": true,
	"press-room": true, "pressroom": true, "press-center": true, "press-centre": true,
	"communiques": true, "communiques-de-presse": true, "communique": true,
	"communiqués": true, "communiqués-de-presse": true, "communique-de-presse": true,
	"comunicados": true, "comunicados-de-prensa": true, "comunicado": true, "comunicados-de-imprensa": true,
	"prensa": true, "sala-de-prensa": true, "notas-de-prensa": true, "imprensa": true,
	"presse": true, "pressemitteilungen": true, "pressemeldungen": true, "pressemitteilung": true,
	"persberichten": true, "persbericht": true, "pers": true,
	"comunicati-stampa": true, "comunicati": true, "stampa": true,
	"siaran-pers": true, "siaran-media": true, "kenyataan-media": true,
	"pressmeddelanden": true, "pressemeldinger": true, "tiedotteet": true,
}

// pressPhrases are title or text fragments that mean press releases.
var pressPhrases = []string{
	"press release", "press-release", "pressrelease", "media release", "news release",
	"communiqué", "communique", "comunicado", "pressemitteilung", "persbericht",
	"comunicati stampa", "siaran pers", "kenyataan media", "pressmeddelande", "tiedote",
	"press room", "pressroom", "sala de prensa", "notas de prensa",
}

// ContentTypeOf guesses what a feed, sitemap or section carries from its URL
// and an optional title: [ContentPressRelease] for press and media releases
// and communiqués, [ContentBlog] for blogs, [ContentNews] otherwise. Press
// wins over blog (/blog/press-releases/ is press releases).
func ContentTypeOf(rawURL, title string) string {
	var segs []string
	var host string
	if u, err := url.Parse(rawURL); err == nil {
		host = strings.ToLower(u.Hostname())
		p := u.Path
		if dp, err := url.PathUnescape(p); err == nil {
			p = dp
		}
		for _, s := range strings.Split(strings.ToLower(p), "/") {
			if s = normSlug(s); s != "" {
				segs = append(segs, s)
			}
		}
	}
	lt := strings.ToLower(title)
	for _, s := range segs {
		if pressSlugs[s] {
			return ContentPressRelease
		}
		for _, ph := range pressPhrases {
			if strings.Contains(strings.ReplaceAll(s, "-", " "), ph) {
				return ContentPressRelease
			}
		}
	}
	for _, ph := range pressPhrases {
		if strings.Contains(lt, ph) {
			return ContentPressRelease
		}
	}
	for _, s := range segs {
		if s == "blog" || s == "blogs" || s == "weblog" || strings.HasSuffix(s, "-blog") || strings.HasPrefix(s, "blog-") {
			return ContentBlog
		}
	}
	if strings.HasPrefix(host, "blog.") || strings.HasPrefix(host, "blogs.") {
		return ContentBlog
	}
	for _, w := range words(title) {
		if w == "blog" || w == "blogs" {
			return ContentBlog
		}
	}
	return ContentNews
}

// normSlug lower-cases a path segment, drops a page extension and reads '_'
// and '+' and ' ' as '-'.
func normSlug(s string) string {
	s = strings.ToLower(s)
	if ext := path.Ext(s); ext != "" {
		switch ext {
		case ".html", ".htm", ".php", ".asp", ".aspx", ".jsp", ".cfm", ".shtml":
			s = strings.TrimSuffix(s, ext)
		}
	}
	return strings.Map(func(r rune) rune {
		switch r {
		case '_', '+', ' ':
			return '-'
		}
		return r
	}, s)
}
