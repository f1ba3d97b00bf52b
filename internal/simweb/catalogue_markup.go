package simweb

import (
	"html"
	"strings"
	"time"
)

// esc escapes text for HTML and XML alike.
func esc(s string) string { return html.EscapeString(s) }

// chrome is the frame every HTML page of one catalogue site shares: the
// CMS's head markup, the big menu, the footer and the scripts.
type chrome struct {
	lang     string
	name     string // publication name
	base     string // "https://www.example.com", no trailing slash
	loc      *time.Location
	head     string // CMS head markup: generator, stylesheets, link rels
	htmlAttr string // extra attributes of <html>
	bodyAttr string // attributes of <body>
	header   string
	footer   string
	tail     string // scripts and banners before </body>
	// titleSep joins page title and site name ("Title – Site").
	titleSep string
	// dateFmt formats teaser and article dates.
	dateFmt string
	// notFoundTitle and notFoundText make the 404 page.
	notFoundTitle, notFoundText string
}

// page renders a whole HTML document.
func (c *chrome) page(title, canonical, description, extraHead, main string) []byte {
	var b strings.Builder
	b.Grow(8192 + len(main))
	b.WriteString("<!DOCTYPE html>\n<html lang=\"" + c.lang + "\"" + c.htmlAttr + ">\n<head>\n<meta charset=\"utf-8\">\n")
	b.WriteString("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n")
	full := c.name
	if title != "" {
		sep := c.titleSep
		if sep == "" {
			sep = " | "
		}
		full = title + sep + c.name
	}
	b.WriteString("<title>" + esc(full) + "</title>\n")
	if description != "" {
		b.WriteString("<meta name=\"description\" content=\"" + esc(description) + "\">\n")
	}
	if canonical != "" {
		b.WriteString("<link rel=\"canonical\" href=\"" + esc(c.base+canonical) + "\">\n")
		b.WriteString("<meta property=\"og:url\" content=\"" + esc(c.base+canonical) + "\">\n")
	}
	b.WriteString("<meta property=\"og:site_name\" content=\"" + esc(c.name) + "\">\n")
	b.WriteString("<meta property=\"og:title\" content=\"" + esc(full) + "\">\n")
	b.WriteString(c.head)
	b.WriteString(extraHead)
	b.WriteString("</head>\n<body" + c.bodyAttr + ">\n")
	b.WriteString(c.header)
	b.WriteString("\n<main id=\"main\" role=\"main\">\n")
	b.WriteString(main)
	b.WriteString("\n</main>\n")
	b.WriteString(c.footer)
	b.WriteString("\n")
	b.WriteString(c.tail)
	b.WriteString("\n</body>\n</html>\n")
	return []byte(b.String())
}

func (c *chrome) notFound() []byte {
	return c.page(c.notFoundTitle, "", "", "<meta name=\"robots\" content=\"noindex\">\n",
		"<section class=\"error-404 not-found\"><h1>"+esc(c.notFoundTitle)+"</h1>\n<p>"+esc(c.notFoundText)+
			"</p>\n<p><a href=\""+c.base+"/\">"+esc(c.name)+"</a></p></section>")
}

func (c *chrome) date(t time.Time) string {
	f := c.dateFmt
	if f == "" {
		f = "2 January 2006, 15:04"
	}
	return t.In(c.loc).Format(f)
}

// teasers renders story teasers the way most CMS themes do: an article with
// a linked headline, a time and a standfirst.
func (c *chrome) teasers(class string, list []article) string {
	var b strings.Builder
	for _, a := range list {
		b.WriteString("<article class=\"" + class + "\">\n  <h3 class=\"" + class + "__title\"><a href=\"" + esc(c.base+a.path) + "\">" + esc(a.title) + "</a></h3>\n")
		b.WriteString("  <time datetime=\"" + a.time.In(c.loc).Format(time.RFC3339) + "\">" + esc(c.date(a.time)) + "</time>\n")
		b.WriteString("  <p class=\"" + class + "__summary\">" + esc(a.summary) + "</p>\n</article>\n")
	}
	return b.String()
}

// articlePage renders one story with the site's chrome.
func (c *chrome) articlePage(a article, by, extraHead string) []byte {
	var b strings.Builder
	b.WriteString("<article class=\"story\" itemscope itemtype=\"https://schema.org/NewsArticle\">\n<header class=\"story__header\">\n")
	b.WriteString("<h1 itemprop=\"headline\">" + esc(a.title) + "</h1>\n<p class=\"story__standfirst\">" + esc(a.summary) + "</p>\n")
	if a.author != "" {
		b.WriteString("<p class=\"story__byline\">" + esc(by) + " <span itemprop=\"author\">" + esc(a.author) + "</span></p>\n")
	}
	b.WriteString("<time itemprop=\"datePublished\" datetime=\"" + a.time.In(c.loc).Format(time.RFC3339) + "\">" + esc(c.date(a.time)) + "</time>\n</header>\n")
	b.WriteString("<div class=\"story__body\" itemprop=\"articleBody\">\n<p>" + esc(a.summary) + "</p>\n<p>" + esc(a.summary) + "</p>\n</div>\n</article>\n")
	head := "<meta property=\"og:type\" content=\"article\">\n<meta property=\"article:published_time\" content=\"" +
		a.time.In(c.loc).Format(time.RFC3339) + "\">\n" + extraHead
	return c.page(a.title, a.path, a.summary, head, b.String())
}

// link is one anchor of a menu.
type link struct{ href, text string }

// menu renders a navigation list.
func menu(class string, links ...link) string {
	var b strings.Builder
	b.WriteString("<ul class=\"" + class + "\">")
	for _, l := range links {
		b.WriteString("<li><a href=\"" + esc(l.href) + "\">" + esc(l.text) + "</a></li>")
	}
	b.WriteString("</ul>")
	return b.String()
}

// sectionLinks makes menu links of "slug:Label" pairs under base.
func sectionLinks(base string, pairs ...string) []link {
	out := make([]link, 0, len(pairs))
	for _, p := range pairs {
		slug, label, _ := strings.Cut(p, ":")
		out = append(out, link{base + "/" + slug + "/", label})
	}
	return out
}

// social renders the usual row of social network links.
func social(handle string, networks ...string) string {
	urls := map[string]string{
		"facebook":  "https://www.facebook.com/" + handle,
		"x":         "https://x.com/" + handle,
		"twitter":   "https://twitter.com/" + handle,
		"instagram": "https://www.instagram.com/" + strings.ToLower(handle) + "/",
		"youtube":   "https://www.youtube.com/@" + handle,
		"linkedin":  "https://www.linkedin.com/company/" + strings.ToLower(handle) + "/",
		"tiktok":    "https://www.tiktok.com/@" + strings.ToLower(handle),
		"whatsapp":  "https://whatsapp.com/channel/0029Va" + handle,
		"line":      "https://line.me/R/ti/p/@" + strings.ToLower(handle),
		"threads":   "https://www.threads.net/@" + strings.ToLower(handle),
	}
	labels := map[string]string{"facebook": "Facebook", "x": "X", "twitter": "Twitter", "instagram": "Instagram",
		"youtube": "YouTube", "linkedin": "LinkedIn", "tiktok": "TikTok", "whatsapp": "WhatsApp", "line": "LINE", "threads": "Threads"}
	var b strings.Builder
	b.WriteString("<ul class=\"social-links\">")
	for _, n := range networks {
		b.WriteString("<li><a href=\"" + esc(urls[n]) + "\" rel=\"noopener\" target=\"_blank\" aria-label=\"" + labels[n] + "\"><svg class=\"icon icon-" + n + "\" aria-hidden=\"true\"><use href=\"#icon-" + n + "\"></use></svg></a></li>")
	}
	b.WriteString("</ul>")
	return b.String()
}

// appBadges renders App Store and Google Play links.
func appBadges(appleID, playID, appleText, playText string) string {
	return "<div class=\"app-badges\"><a href=\"https://apps.apple.com/app/id" + appleID + "\" rel=\"noopener\">" + esc(appleText) +
		"</a> <a href=\"https://play.google.com/store/apps/details?id=" + playID + "\" rel=\"noopener\">" + esc(playText) + "</a></div>"
}

// channel is the head of an RSS or Atom feed.
type channel struct {
	title, link, description, lang, self, generator, copyright string
	ttl                                                        string
	loc                                                        *time.Location
}

// rssOpts are the per-CMS habits of an RSS 2.0 feed.
type rssOpts struct {
	wordpress   bool // sy:, slash:, wfw: and <comments>, guid ?p=ID
	creator     bool // dc:creator
	media       string
	content     bool // content:encoded
	noPubDate   bool
	categoryTag bool
	guid        func(a article) string
	itemLink    func(a article) string
	extraNS     string
	channelTail string
}

// rss2 renders an RSS 2.0 feed.
func rss2(ch channel, base string, items []article, o rssOpts) []byte {
	var b strings.Builder
	b.Grow(900 * (len(items) + 1))
	b.WriteString("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<rss version=\"2.0\"\n\txmlns:content=\"http://purl.org/rss/1.0/modules/content/\"\n")
	if o.wordpress {
		b.WriteString("\txmlns:wfw=\"http://wellformedweb.org/CommentAPI/\"\n")
	}
	b.WriteString("\txmlns:dc=\"http://purl.org/dc/elements/1.1/\"\n\txmlns:atom=\"http://www.w3.org/2005/Atom\"\n")
	if o.wordpress {
		b.WriteString("\txmlns:sy=\"http://purl.org/rss/1.0/modules/syndication/\"\n\txmlns:slash=\"http://purl.org/rss/1.0/modules/slash/\"\n")
	}
	if o.media != "" {
		b.WriteString("\txmlns:media=\"http://search.yahoo.com/mrss/\"\n")
	}
	b.WriteString(o.extraNS)
	b.WriteString(">\n<channel>\n")
	b.WriteString("\t<title>" + esc(ch.title) + "</title>\n")
	if ch.self != "" {
		b.WriteString("\t<atom:link href=\"" + esc(ch.self) + "\" rel=\"self\" type=\"application/rss+xml\" />\n")
	}
	b.WriteString("\t<link>" + esc(ch.link) + "</link>\n\t<description>" + esc(ch.description) + "</description>\n")
	loc := ch.loc
	if loc == nil {
		loc = time.UTC
	}
	if len(items) > 0 {
		b.WriteString("\t<lastBuildDate>" + items[0].time.In(loc).Format(time.RFC1123Z) + "</lastBuildDate>\n")
	}
	if ch.lang != "" {
		b.WriteString("\t<language>" + ch.lang + "</language>\n")
	}
	if o.wordpress {
		b.WriteString("\t<sy:updatePeriod>\n\thourly\t</sy:updatePeriod>\n\t<sy:updateFrequency>\n\t1\t</sy:updateFrequency>\n")
	}
	if ch.generator != "" {
		b.WriteString("\t<generator>" + esc(ch.generator) + "</generator>\n")
	}
	if ch.copyright != "" {
		b.WriteString("\t<copyright>" + esc(ch.copyright) + "</copyright>\n")
	}
	if ch.ttl != "" {
		b.WriteString("\t<ttl>" + ch.ttl + "</ttl>\n")
	}
	b.WriteString(o.channelTail)
	for _, a := range items {
		link := base + a.path
		if o.itemLink != nil {
			link = o.itemLink(a)
		}
		b.WriteString("\t<item>\n\t\t<title>" + esc(a.title) + "</title>\n\t\t<link>" + esc(link) + "</link>\n")
		if o.wordpress {
			b.WriteString("\t\t<comments>" + esc(link) + "#respond</comments>\n")
		}
		if o.creator && a.author != "" {
			b.WriteString("\t\t<dc:creator><![CDATA[" + a.author + "]]></dc:creator>\n")
		}
		if !o.noPubDate {
			b.WriteString("\t\t<pubDate>" + a.time.In(loc).Format(time.RFC1123Z) + "</pubDate>\n")
		}
		if o.categoryTag && a.section != "" {
			b.WriteString("\t\t<category><![CDATA[" + a.section + "]]></category>\n")
		}
		guid := link
		perma := "true"
		if o.guid != nil {
			guid, perma = o.guid(a), "false"
		}
		b.WriteString("\t\t<guid isPermaLink=\"" + perma + "\">" + esc(guid) + "</guid>\n")
		b.WriteString("\t\t<description><![CDATA[" + a.summary + "]]></description>\n")
		if o.content {
			b.WriteString("\t\t<content:encoded><![CDATA[<p>" + a.summary + "</p>\n<p>" + a.summary + "</p>]]></content:encoded>\n")
		}
		if o.wordpress {
			b.WriteString("\t\t<wfw:commentRss>" + esc(link) + "feed/</wfw:commentRss>\n\t\t<slash:comments>0</slash:comments>\n")
		}
		if o.media != "" {
			b.WriteString("\t\t<media:content url=\"" + esc(o.media+"/"+itoa(a.id)+".jpg") + "\" medium=\"image\" width=\"1200\" height=\"675\" />\n")
		}
		b.WriteString("\t</item>\n")
	}
	b.WriteString("</channel>\n</rss>\n")
	return []byte(b.String())
}

// rdf renders an RSS 1.0 (RDF) feed with Dublin Core dates, as Japanese
// publishers still commonly do.
func rdf(ch channel, base string, items []article) []byte {
	var b strings.Builder
	loc := ch.loc
	b.WriteString("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<rdf:RDF\n  xmlns=\"http://purl.org/rss/1.0/\"\n  xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\"\n")
	b.WriteString("  xmlns:dc=\"http://purl.org/dc/elements/1.1/\"\n  xml:lang=\"" + ch.lang + "\">\n")
	b.WriteString(" <channel rdf:about=\"" + esc(ch.self) + "\">\n  <title>" + esc(ch.title) + "</title>\n  <link>" + esc(ch.link) + "</link>\n")
	b.WriteString("  <description>" + esc(ch.description) + "</description>\n  <dc:language>" + ch.lang + "</dc:language>\n")
	if ch.copyright != "" {
		b.WriteString("  <dc:rights>" + esc(ch.copyright) + "</dc:rights>\n")
	}
	if len(items) > 0 {
		b.WriteString("  <dc:date>" + items[0].time.In(loc).Format(time.RFC3339) + "</dc:date>\n")
	}
	b.WriteString("  <items>\n   <rdf:Seq>\n")
	for _, a := range items {
		b.WriteString("    <rdf:li rdf:resource=\"" + esc(base+a.path) + "\" />\n")
	}
	b.WriteString("   </rdf:Seq>\n  </items>\n </channel>\n")
	for _, a := range items {
		u := esc(base + a.path)
		b.WriteString(" <item rdf:about=\"" + u + "\">\n  <title>" + esc(a.title) + "</title>\n  <link>" + u + "</link>\n")
		b.WriteString("  <description>" + esc(a.summary) + "</description>\n  <dc:subject>" + esc(a.section) + "</dc:subject>\n")
		b.WriteString("  <dc:date>" + a.time.In(loc).Format(time.RFC3339) + "</dc:date>\n </item>\n")
	}
	b.WriteString("</rdf:RDF>\n")
	return []byte(b.String())
}

// atomOpts are the per-CMS habits of an Atom feed.
type atomOpts struct {
	id       string // feed id; default ch.link
	entryID  func(a article) string
	blogger  bool // openSearch elements and Blogger's tag: ids
	category string
}

// atom renders an Atom 1.0 feed.
func atom(ch channel, base string, items []article, o atomOpts) []byte {
	var b strings.Builder
	loc := ch.loc
	if loc == nil {
		loc = time.UTC
	}
	b.WriteString("<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<feed xmlns=\"http://www.w3.org/2005/Atom\"")
	if o.blogger {
		b.WriteString(" xmlns:openSearch=\"http://a9.com/-/spec/opensearchrss/1.0/\" xmlns:blogger=\"http://schemas.google.com/blogger/2008\" xmlns:gd=\"http://schemas.google.com/g/2005\" xmlns:thr=\"http://purl.org/syndication/thread/1.0\"")
	}
	if ch.lang != "" {
		b.WriteString(" xml:lang=\"" + ch.lang + "\"")
	}
	b.WriteString(">\n")
	id := o.id
	if id == "" {
		id = ch.link
	}
	b.WriteString("  <id>" + esc(id) + "</id>\n")
	if len(items) > 0 {
		b.WriteString("  <updated>" + items[0].time.In(loc).Format(time.RFC3339) + "</updated>\n")
	}
	b.WriteString("  <title type=\"text\">" + esc(ch.title) + "</title>\n")
	if ch.description != "" {
		b.WriteString("  <subtitle type=\"html\">" + esc(ch.description) + "</subtitle>\n")
	}
	b.WriteString("  <link rel=\"alternate\" type=\"text/html\" href=\"" + esc(ch.link) + "\"/>\n")
	b.WriteString("  <link rel=\"self\" type=\"application/atom+xml\" href=\"" + esc(ch.self) + "\"/>\n")
	if ch.generator != "" {
		b.WriteString("  <generator>" + esc(ch.generator) + "</generator>\n")
	}
	if ch.copyright != "" {
		b.WriteString("  <rights>" + esc(ch.copyright) + "</rights>\n")
	}
	if o.blogger {
		b.WriteString("  <openSearch:totalResults>" + itoa(len(items)*37) + "</openSearch:totalResults>\n  <openSearch:startIndex>1</openSearch:startIndex>\n  <openSearch:itemsPerPage>25</openSearch:itemsPerPage>\n")
	}
	for _, a := range items {
		u := base + a.path
		eid := u
		if o.entryID != nil {
			eid = o.entryID(a)
		}
		t := a.time.In(loc).Format(time.RFC3339)
		b.WriteString("  <entry>\n    <id>" + esc(eid) + "</id>\n    <published>" + t + "</published>\n    <updated>" + t + "</updated>\n")
		if a.section != "" {
			b.WriteString("    <category term=\"" + esc(a.section) + "\"/>\n")
		}
		b.WriteString("    <title type=\"text\">" + esc(a.title) + "</title>\n")
		b.WriteString("    <summary type=\"html\">" + esc(a.summary) + "</summary>\n")
		b.WriteString("    <link rel=\"alternate\" type=\"text/html\" href=\"" + esc(u) + "\" title=\"" + esc(a.title) + "\"/>\n")
		if a.author != "" {
			b.WriteString("    <author><name>" + esc(a.author) + "</name></author>\n")
		}
		b.WriteString("  </entry>\n")
	}
	b.WriteString("</feed>\n")
	return []byte(b.String())
}

// newsOpts are the optional parts of a Google News sitemap.
type newsOpts struct {
	image      bool
	keywords   bool
	stylesheet string
}

// newsSitemap renders a Google News sitemap (urlset with news:news).
func newsSitemap(pubName, lang, base string, loc *time.Location, items []article, o newsOpts) []byte {
	var b strings.Builder
	b.Grow(700 * (len(items) + 1))
	b.WriteString("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n")
	if o.stylesheet != "" {
		b.WriteString("<?xml-stylesheet type=\"text/xsl\" href=\"" + esc(o.stylesheet) + "\"?>\n")
	}
	b.WriteString("<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\" xmlns:news=\"http://www.google.com/schemas/sitemap-news/0.9\"")
	if o.image {
		b.WriteString(" xmlns:image=\"http://www.google.com/schemas/sitemap-image/1.1\"")
	}
	b.WriteString(">\n")
	for _, a := range items {
		b.WriteString("  <url>\n    <loc>" + esc(base+a.path) + "</loc>\n    <news:news>\n      <news:publication>\n")
		b.WriteString("        <news:name>" + esc(pubName) + "</news:name>\n        <news:language>" + lang + "</news:language>\n      </news:publication>\n")
		b.WriteString("      <news:publication_date>" + a.time.In(loc).Format(time.RFC3339) + "</news:publication_date>\n")
		b.WriteString("      <news:title>" + esc(a.title) + "</news:title>\n")
		if o.keywords && a.section != "" {
			b.WriteString("      <news:keywords>" + esc(a.section) + "</news:keywords>\n")
		}
		b.WriteString("    </news:news>\n")
		if o.image {
			b.WriteString("    <image:image>\n      <image:loc>" + esc(base+"/images/"+itoa(a.id)+".jpg") + "</image:loc>\n    </image:image>\n")
		}
		b.WriteString("  </url>\n")
	}
	b.WriteString("</urlset>\n")
	return []byte(b.String())
}

// smURL is one <url> of a plain sitemap.
type smURL struct {
	loc        string
	lastmod    time.Time
	changefreq string
	priority   string
}

// urlset renders a plain sitemap.
func urlset(loc *time.Location, urls []smURL, dateOnly bool) []byte {
	var b strings.Builder
	b.Grow(200 * (len(urls) + 1))
	b.WriteString("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n")
	for _, u := range urls {
		b.WriteString("  <url>\n    <loc>" + esc(u.loc) + "</loc>\n")
		if !u.lastmod.IsZero() {
			f := time.RFC3339
			if dateOnly {
				f = "2006-01-02"
			}
			b.WriteString("    <lastmod>" + u.lastmod.In(loc).Format(f) + "</lastmod>\n")
		}
		if u.changefreq != "" {
			b.WriteString("    <changefreq>" + u.changefreq + "</changefreq>\n")
		}
		if u.priority != "" {
			b.WriteString("    <priority>" + u.priority + "</priority>\n")
		}
		b.WriteString("  </url>\n")
	}
	b.WriteString("</urlset>\n")
	return []byte(b.String())
}

// articleURLs lists stories as sitemap URLs.
func articleURLs(base string, list []article) []smURL {
	out := make([]smURL, 0, len(list))
	for _, a := range list {
		out = append(out, smURL{loc: base + a.path, lastmod: a.time})
	}
	return out
}

// smChild is one <sitemap> of a sitemap index.
type smChild struct {
	loc     string
	lastmod time.Time
}

// sitemapIndex renders a sitemap index.
func sitemapIndex(loc *time.Location, children []smChild, stylesheet string) []byte {
	var b strings.Builder
	b.WriteString("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n")
	if stylesheet != "" {
		b.WriteString("<?xml-stylesheet type=\"text/xsl\" href=\"" + esc(stylesheet) + "\"?>\n")
	}
	b.WriteString("<sitemapindex xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n")
	for _, c := range children {
		b.WriteString("  <sitemap>\n    <loc>" + esc(c.loc) + "</loc>\n")
		if !c.lastmod.IsZero() {
			b.WriteString("    <lastmod>" + c.lastmod.In(loc).Format(time.RFC3339) + "</lastmod>\n")
		}
		b.WriteString("  </sitemap>\n")
	}
	b.WriteString("</sitemapindex>\n")
	return []byte(b.String())
}

// last48h keeps the stories a news sitemap may list.
func (b *builder) last48h(list []article) []article {
	var out []article
	for _, a := range list {
		if b.now.Sub(a.time) <= 48*time.Hour {
			out = append(out, a)
		}
	}
	return out
}
