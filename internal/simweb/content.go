package simweb

import (
	"encoding/json"
	"fmt"
	"html"
	"strconv"
	"strings"
	"time"
)

// content is the built-in site of one host, derived from the host name and
// the clock on each request; nothing of it is stored.
type content struct {
	host    string // the requested name (apex or www.)
	base    string // scheme://host, for absolute URLs
	layout  Layout
	h       uint64 // hash of the apex, so apex and www. agree
	name    string
	lang    string
	section string // path of the news section, with slashes
	n       int    // articles 1..n, n the newest
	period  time.Duration
	newest  time.Time
}

const (
	feedItems     = 10
	sitemapURLs   = 20
	minArticles   = 24
	extraArticles = 40
)

var (
	orgNames = []string{
		"Ministry of Health", "Ministry of Trade and Industry", "Department of Transport",
		"National Statistics Office", "Environment Agency", "City Council",
		"Ministry of Education", "Civil Aviation Authority", "National Library Board",
		"The Daily Courier", "Morning Post", "Business Times", "Civic Foundation",
		"Institute for Policy Studies", "Chamber of Commerce", "Red Cross Society",
	}
	titleActions = []string{
		"Minister announces review of", "New guidelines on", "Public consultation opens on",
		"Annual report on", "Statement on", "Update on", "Parliament debates",
		"Funding boost for", "Survey results on", "Changes to",
	}
	titleTopics = []string{
		"budget priorities", "health services", "public transport", "digital identity",
		"water supply", "school curriculum", "regional trade", "housing grants",
		"cyber security", "climate resilience", "border controls", "small businesses",
		"employment figures", "road safety", "energy prices", "tourism recovery",
	}
	periods = []time.Duration{3 * time.Hour, 6 * time.Hour, 12 * time.Hour, 24 * time.Hour, 48 * time.Hour}
)

func mix64(h, v uint64) uint64 {
	z := h ^ (v * 0x9e3779b97f4a7c15)
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

func newContent(site *Site, sc Scenario, host string, now time.Time) *content {
	h := hashString(site.Host)
	scheme := "https"
	if sc == ScenarioHTTPOnly {
		scheme = "http"
	}
	c := &content{
		host:   host,
		base:   scheme + "://" + host,
		layout: site.Layout,
		h:      h,
		name:   orgNames[mix64(h, 1)%uint64(len(orgNames))],
		lang:   "en",
		n:      minArticles + int(mix64(h, 2)%extraArticles),
		period: periods[mix64(h, 3)%uint64(len(periods))],
	}
	c.newest = now.UTC().Truncate(24 * time.Hour).Add(-time.Duration(mix64(h, 4)%uint64(c.period/time.Minute)) * time.Minute)
	switch {
	case strings.HasSuffix(site.Host, ".fr"):
		c.lang = "fr"
	case strings.HasSuffix(site.Host, ".jp"):
		c.lang = "ja"
	case strings.HasSuffix(site.Host, ".mx"):
		c.lang = "es"
	}
	switch c.layout {
	case LayoutGov:
		c.section = "/newsroom/"
	case LayoutBlog:
		c.section = "/posts/"
	default:
		c.section = "/news/"
	}
	return c
}

func (c *content) title(id int) string {
	v := mix64(c.h, uint64(id)+1000)
	return titleActions[v%uint64(len(titleActions))] + " " + titleTopics[(v>>16)%uint64(len(titleTopics))]
}

func (c *content) articlePath(id int) string {
	return c.section + strconv.Itoa(id) + "-" + slug(c.title(id)) + "/"
}

func (c *content) date(id int) time.Time {
	return c.newest.Add(-time.Duration(c.n-id) * c.period)
}

func (c *content) excerpt(id int) string {
	return "The " + c.name + " has published an update: " + strings.ToLower(c.title(id)) +
		". Read the full text for details, dates and contacts."
}

func slug(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
			dash = false
		} else if !dash && b.Len() > 0 {
			b.WriteByte('-')
			dash = true
		}
	}
	return strings.TrimSuffix(b.String(), "-")
}

// response is one built-in answer; a location makes it a 301.
type response struct {
	status   int
	ctype    string
	body     []byte
	location string
}

const (
	ctHTML = "text/html; charset=UTF-8"
	ctText = "text/plain; charset=utf-8"
	ctXML  = "application/xml; charset=utf-8"
	ctRSS  = "application/rss+xml; charset=UTF-8"
	ctAtom = "application/atom+xml; charset=utf-8"
	ctJSON = "application/feed+json; charset=utf-8"
	ctGzip = "application/x-gzip"
)

func (c *content) route(path string) response {
	switch path {
	case "/":
		return response{ctype: ctHTML, body: c.home()}
	case "/robots.txt":
		return response{ctype: ctText, body: c.robots()}
	case c.section:
		return response{ctype: ctHTML, body: c.sectionPage()}
	case strings.TrimSuffix(c.section, "/"):
		return response{location: c.base + c.section}
	case "/about/", "/contact/":
		return response{ctype: ctHTML, body: c.simplePage(path)}
	}
	if id, ok := c.parseArticle(path); ok {
		return response{ctype: ctHTML, body: c.article(id)}
	}
	switch c.layout {
	case LayoutWordPress:
		switch path {
		case "/feed/":
			return response{ctype: ctRSS, body: c.rss("/feed/", false)}
		case "/feed":
			return response{location: c.base + "/feed/"}
		case "/comments/feed/":
			return response{ctype: ctRSS, body: c.rss("/comments/feed/", true)}
		case "/sitemap.xml":
			return response{ctype: ctXML, body: c.urlset(c.sitemapIDs(), true)}
		}
	case LayoutGov:
		switch path {
		case "/newsroom/rss":
			return response{ctype: ctRSS, body: c.rss("/newsroom/rss", false)}
		case "/sitemap.xml":
			return response{ctype: ctXML, body: c.urlset(c.sitemapIDs(), true)}
		}
	case LayoutBlog:
		switch path {
		case "/atom.xml":
			return response{ctype: ctAtom, body: c.atom()}
		case "/feed.json":
			return response{ctype: ctJSON, body: c.jsonFeed()}
		case "/sitemap.xml":
			return response{ctype: ctXML, body: c.urlset(c.sitemapIDs(), true)}
		}
	case LayoutNews:
		half := c.n / 2
		switch path {
		case "/sitemap_index.xml":
			return response{ctype: ctXML, body: c.sitemapIndex()}
		case "/news-sitemap.xml":
			return response{ctype: ctXML, body: c.newsSitemap()}
		case "/sitemap-pages.xml":
			return response{ctype: ctXML, body: c.urlset(nil, true)}
		case "/sitemap-articles-1.xml.gz":
			return response{ctype: ctGzip, body: GzipBytes(c.urlset(idRange(1, half), false))}
		case "/sitemap-articles-2.xml.gz":
			return response{ctype: ctGzip, body: GzipBytes(c.urlset(idRange(half+1, c.n), false))}
		}
	}
	return response{status: 404, ctype: ctHTML, body: c.notFound()}
}

func idRange(from, to int) []int {
	ids := make([]int, 0, to-from+1)
	for id := to; id >= from; id-- {
		ids = append(ids, id)
	}
	return ids
}

// sitemapIDs are the newest articles that, with the home and section pages,
// make the ~20 URLs of a small site's sitemap.
func (c *content) sitemapIDs() []int { return idRange(c.n-(sitemapURLs-2)+1, c.n) }

func (c *content) parseArticle(path string) (int, bool) {
	rest, ok := strings.CutPrefix(path, c.section)
	if !ok {
		return 0, false
	}
	num, _, ok := strings.Cut(rest, "-")
	if !ok {
		return 0, false
	}
	id, err := strconv.Atoi(num)
	if err != nil || id < 1 || id > c.n || path != c.articlePath(id) {
		return 0, false
	}
	return id, true
}

func (c *content) head(b *strings.Builder, title, canonical string) {
	b.WriteString("<!DOCTYPE html>\n<html lang=\"" + c.lang + "\">\n<head>\n<meta charset=\"utf-8\">\n")
	b.WriteString("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n")
	b.WriteString("<title>" + html.EscapeString(title) + "</title>\n")
	b.WriteString("<meta name=\"description\" content=\"News, publications and updates from " + html.EscapeString(c.name) + ".\">\n")
	b.WriteString("<link rel=\"canonical\" href=\"" + html.EscapeString(c.base+canonical) + "\">\n")
	switch c.layout {
	case LayoutWordPress:
		b.WriteString("<meta name=\"generator\" content=\"WordPress 6.4.3\">\n")
		b.WriteString("<link rel=\"alternate\" type=\"application/rss+xml\" title=\"" + html.EscapeString(c.name) + " &raquo; Feed\" href=\"/feed/\">\n")
		b.WriteString("<link rel=\"alternate\" type=\"application/rss+xml\" title=\"" + html.EscapeString(c.name) + " &raquo; Comments Feed\" href=\"/comments/feed/\">\n")
		b.WriteString("<link rel=\"https://api.w.org/\" href=\"" + html.EscapeString(c.base) + "/wp-json/\">\n")
	case LayoutBlog:
		b.WriteString("<meta name=\"generator\" content=\"Hugo 0.121.1\">\n")
		b.WriteString("<link rel=\"alternate\" type=\"application/atom+xml\" title=\"" + html.EscapeString(c.name) + "\" href=\"/atom.xml\">\n")
		b.WriteString("<link rel=\"alternate\" type=\"application/feed+json\" title=\"" + html.EscapeString(c.name) + "\" href=\"/feed.json\">\n")
	}
	b.WriteString("<link rel=\"stylesheet\" href=\"/assets/site.css\">\n</head>\n<body>\n")
	b.WriteString("<header><a class=\"brand\" href=\"/\">" + html.EscapeString(c.name) + "</a>\n<nav><a href=\"/\">Home</a> <a href=\"" +
		c.section + "\">" + c.sectionName() + "</a> <a href=\"/about/\">About us</a> <a href=\"/contact/\">Contact</a></nav></header>\n<main>\n")
}

func (c *content) foot(b *strings.Builder) {
	b.WriteString("</main>\n<footer><p>&copy; " + strconv.Itoa(c.newest.Year()) + " " + html.EscapeString(c.name) + ". All rights reserved.</p>")
	if c.layout == LayoutGov {
		b.WriteString("<p><a href=\"/newsroom/rss\">RSS</a> &middot; <a href=\"/sitemap.xml\">Sitemap</a></p>")
	}
	b.WriteString("</footer>\n</body>\n</html>\n")
}

func (c *content) sectionName() string {
	if c.layout == LayoutGov {
		return "Newsroom"
	}
	if c.layout == LayoutBlog {
		return "Posts"
	}
	return "News"
}

func (c *content) teaser(b *strings.Builder, id int) {
	d := c.date(id)
	b.WriteString("<article><h2><a href=\"" + c.articlePath(id) + "\">" + html.EscapeString(c.title(id)) + "</a></h2>\n")
	b.WriteString("<time datetime=\"" + d.Format(time.RFC3339) + "\">" + d.Format("2 January 2006") + "</time>\n")
	b.WriteString("<p>" + html.EscapeString(c.excerpt(id)) + "</p></article>\n")
}

func (c *content) home() []byte {
	var b strings.Builder
	b.Grow(4096)
	c.head(&b, c.name+" – News and updates", "/")
	b.WriteString("<h1>Welcome to the " + html.EscapeString(c.name) + "</h1>\n")
	if c.layout == LayoutGov {
		b.WriteString("<p>Read our latest media releases in the <a href=\"/newsroom/\">Newsroom</a>.</p>\n")
	}
	b.WriteString("<section class=\"latest\"><h2>Latest " + strings.ToLower(c.sectionName()) + "</h2>\n")
	for id := c.n; id > c.n-5; id-- {
		c.teaser(&b, id)
	}
	b.WriteString("<p><a href=\"" + c.section + "\">All " + strings.ToLower(c.sectionName()) + "</a></p></section>\n")
	c.foot(&b)
	return []byte(b.String())
}

func (c *content) sectionPage() []byte {
	var b strings.Builder
	b.Grow(8192)
	c.head(&b, c.sectionName()+" – "+c.name, c.section)
	b.WriteString("<h1>" + c.sectionName() + "</h1>\n")
	if c.layout == LayoutGov {
		b.WriteString("<p class=\"subscribe\">Subscribe: <a href=\"/newsroom/rss\">RSS feed</a></p>\n")
	}
	for id := c.n; id > c.n-feedItems*2 && id > 0; id-- {
		c.teaser(&b, id)
	}
	c.foot(&b)
	return []byte(b.String())
}

func (c *content) article(id int) []byte {
	var b strings.Builder
	b.Grow(4096)
	t := c.title(id)
	d := c.date(id)
	c.head(&b, t+" – "+c.name, c.articlePath(id))
	b.WriteString("<article class=\"post\"><h1>" + html.EscapeString(t) + "</h1>\n")
	b.WriteString("<p class=\"meta\">Published <time datetime=\"" + d.Format(time.RFC3339) + "\">" + d.Format("2 January 2006, 15:04") + "</time> by Press Office</p>\n")
	b.WriteString("<p>" + html.EscapeString(c.excerpt(id)) + "</p>\n")
	b.WriteString("<p>The announcement follows consultation with stakeholders and members of the public. " +
		"Further information will be published as it becomes available.</p>\n")
	b.WriteString("<p>Media enquiries: press@" + html.EscapeString(strings.TrimPrefix(c.host, "www.")) + "</p>\n</article>\n")
	if id > 1 {
		b.WriteString("<nav class=\"post-nav\"><a rel=\"prev\" href=\"" + c.articlePath(id-1) + "\">Previous</a></nav>\n")
	}
	c.foot(&b)
	return []byte(b.String())
}

func (c *content) simplePage(path string) []byte {
	var b strings.Builder
	title := "About us"
	if path == "/contact/" {
		title = "Contact"
	}
	c.head(&b, title+" – "+c.name, path)
	b.WriteString("<h1>" + title + "</h1>\n<p>The " + html.EscapeString(c.name) + " serves the public. " +
		"Write to info@" + html.EscapeString(strings.TrimPrefix(c.host, "www.")) + ".</p>\n")
	c.foot(&b)
	return []byte(b.String())
}

func (c *content) notFound() []byte {
	var b strings.Builder
	c.head(&b, "Page not found – "+c.name, "/")
	b.WriteString("<h1>Page not found</h1>\n<p>The page you are looking for does not exist. <a href=\"/\">Go to the home page</a>.</p>\n")
	c.foot(&b)
	return []byte(b.String())
}

func (c *content) robots() []byte {
	switch c.layout {
	case LayoutNews:
		return []byte("User-agent: *\nDisallow: /search\nDisallow: /*?q=\n\nSitemap: " + c.base + "/sitemap_index.xml\nSitemap: " + c.base + "/news-sitemap.xml\n")
	case LayoutStatic:
		return []byte("User-agent: *\nDisallow:\n")
	case LayoutGov:
		return []byte("# robots.txt for " + c.host + "\nUser-agent: *\nAllow: /\n\nSitemap: " + c.base + "/sitemap.xml\n")
	default:
		return []byte("User-agent: *\nDisallow:\n\nSitemap: " + c.base + "/sitemap.xml\n")
	}
}

func xmlEscape(s string) string { return html.EscapeString(s) }

// urlset is a sitemap of the given articles, led by the home and section
// pages when withPages.
func (c *content) urlset(ids []int, withPages bool) []byte {
	var b strings.Builder
	b.Grow(256 * (len(ids) + 3))
	b.WriteString("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n")
	url := func(loc string, mod time.Time, freq, prio string) {
		b.WriteString("  <url>\n    <loc>" + xmlEscape(c.base+loc) + "</loc>\n    <lastmod>" + mod.Format(time.RFC3339) +
			"</lastmod>\n    <changefreq>" + freq + "</changefreq>\n    <priority>" + prio + "</priority>\n  </url>\n")
	}
	if withPages {
		url("/", c.newest, "daily", "1.0")
		url(c.section, c.newest, "daily", "0.8")
		if len(ids) == 0 {
			url("/about/", c.date(1), "yearly", "0.3")
			url("/contact/", c.date(1), "yearly", "0.3")
		}
	}
	for _, id := range ids {
		url(c.articlePath(id), c.date(id), "monthly", "0.6")
	}
	b.WriteString("</urlset>\n")
	return []byte(b.String())
}

func (c *content) sitemapIndex() []byte {
	var b strings.Builder
	b.WriteString("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<sitemapindex xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n")
	half := c.n / 2
	for _, s := range []struct {
		path string
		mod  time.Time
	}{
		{"/news-sitemap.xml", c.newest},
		{"/sitemap-pages.xml", c.newest},
		{"/sitemap-articles-2.xml.gz", c.newest},
		{"/sitemap-articles-1.xml.gz", c.date(half)},
	} {
		b.WriteString("  <sitemap>\n    <loc>" + xmlEscape(c.base+s.path) + "</loc>\n    <lastmod>" + s.mod.Format(time.RFC3339) + "</lastmod>\n  </sitemap>\n")
	}
	b.WriteString("</sitemapindex>\n")
	return []byte(b.String())
}

func (c *content) newsSitemap() []byte {
	var b strings.Builder
	b.Grow(512 * feedItems)
	b.WriteString("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\" " +
		"xmlns:news=\"http://www.google.com/schemas/sitemap-news/0.9\">\n")
	for id := c.n; id > c.n-feedItems; id-- {
		b.WriteString("  <url>\n    <loc>" + xmlEscape(c.base+c.articlePath(id)) + "</loc>\n    <news:news>\n      <news:publication>\n" +
			"        <news:name>" + xmlEscape(c.name) + "</news:name>\n        <news:language>" + c.lang + "</news:language>\n      </news:publication>\n" +
			"      <news:publication_date>" + c.date(id).Format(time.RFC3339) + "</news:publication_date>\n" +
			"      <news:title>" + xmlEscape(c.title(id)) + "</news:title>\n    </news:news>\n  </url>\n")
	}
	b.WriteString("</urlset>\n")
	return []byte(b.String())
}

// rss is an RSS 2.0 feed of the newest articles, or a WordPress comment feed.
func (c *content) rss(self string, comments bool) []byte {
	var b strings.Builder
	b.Grow(700 * feedItems)
	title := c.name
	if comments {
		title = "Comments for " + c.name
	}
	b.WriteString("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<rss version=\"2.0\"\n\txmlns:content=\"http://purl.org/rss/1.0/modules/content/\"\n" +
		"\txmlns:dc=\"http://purl.org/dc/elements/1.1/\"\n\txmlns:atom=\"http://www.w3.org/2005/Atom\">\n<channel>\n")
	b.WriteString("\t<title>" + xmlEscape(title) + "</title>\n\t<atom:link href=\"" + xmlEscape(c.base+self) + "\" rel=\"self\" type=\"application/rss+xml\" />\n")
	b.WriteString("\t<link>" + xmlEscape(c.base) + "/</link>\n\t<description>News and updates from " + xmlEscape(c.name) + "</description>\n")
	b.WriteString("\t<lastBuildDate>" + c.newest.Format(time.RFC1123Z) + "</lastBuildDate>\n\t<language>" + c.lang + "</language>\n")
	if c.layout == LayoutWordPress {
		b.WriteString("\t<generator>https://wordpress.org/?v=6.4.3</generator>\n")
	}
	n := feedItems
	if comments {
		n = 2
	}
	for id := c.n; id > c.n-n; id-- {
		t, link := c.title(id), c.base+c.articlePath(id)
		desc := c.excerpt(id)
		if comments {
			t, link, desc = "Comment on "+t+" by Reader", link+"#comment-"+strconv.Itoa(id), "Thank you for the update."
		}
		b.WriteString("\t<item>\n\t\t<title>" + xmlEscape(t) + "</title>\n\t\t<link>" + xmlEscape(link) + "</link>\n")
		b.WriteString("\t\t<dc:creator><![CDATA[Press Office]]></dc:creator>\n\t\t<pubDate>" + c.date(id).Format(time.RFC1123Z) + "</pubDate>\n")
		if !comments {
			b.WriteString("\t\t<category><![CDATA[News]]></category>\n")
		}
		b.WriteString("\t\t<guid isPermaLink=\"false\">" + xmlEscape(c.base) + "/?p=" + strconv.Itoa(id) + "</guid>\n")
		b.WriteString("\t\t<description><![CDATA[" + desc + "]]></description>\n\t</item>\n")
	}
	b.WriteString("</channel>\n</rss>\n")
	return []byte(b.String())
}

func (c *content) atom() []byte {
	var b strings.Builder
	b.Grow(600 * feedItems)
	b.WriteString("<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<feed xmlns=\"http://www.w3.org/2005/Atom\">\n")
	b.WriteString("  <title>" + xmlEscape(c.name) + "</title>\n  <link href=\"" + xmlEscape(c.base) + "/\"/>\n")
	b.WriteString("  <link rel=\"self\" type=\"application/atom+xml\" href=\"" + xmlEscape(c.base) + "/atom.xml\"/>\n")
	b.WriteString("  <updated>" + c.newest.Format(time.RFC3339) + "</updated>\n  <id>" + xmlEscape(c.base) + "/</id>\n")
	b.WriteString("  <author><name>" + xmlEscape(c.name) + "</name></author>\n")
	for id := c.n; id > c.n-feedItems; id-- {
		link := xmlEscape(c.base + c.articlePath(id))
		d := c.date(id).Format(time.RFC3339)
		b.WriteString("  <entry>\n    <title>" + xmlEscape(c.title(id)) + "</title>\n    <link href=\"" + link + "\"/>\n")
		b.WriteString("    <id>" + link + "</id>\n    <published>" + d + "</published>\n    <updated>" + d + "</updated>\n")
		b.WriteString("    <summary>" + xmlEscape(c.excerpt(id)) + "</summary>\n  </entry>\n")
	}
	b.WriteString("</feed>\n")
	return []byte(b.String())
}

func (c *content) jsonFeed() []byte {
	type item struct {
		ID            string `json:"id"`
		URL           string `json:"url"`
		Title         string `json:"title"`
		ContentText   string `json:"content_text"`
		DatePublished string `json:"date_published"`
	}
	feed := struct {
		Version     string `json:"version"`
		Title       string `json:"title"`
		HomePageURL string `json:"home_page_url"`
		FeedURL     string `json:"feed_url"`
		Language    string `json:"language"`
		Items       []item `json:"items"`
	}{
		Version:     "https://jsonfeed.org/version/1.1",
		Title:       c.name,
		HomePageURL: c.base + "/",
		FeedURL:     c.base + "/feed.json",
		Language:    c.lang,
	}
	for id := c.n; id > c.n-feedItems; id-- {
		u := c.base + c.articlePath(id)
		feed.Items = append(feed.Items, item{ID: u, URL: u, Title: c.title(id), ContentText: c.excerpt(id),
			DatePublished: c.date(id).Format(time.RFC3339)})
	}
	out, err := json.MarshalIndent(feed, "", "  ")
	if err != nil {
		panic(fmt.Sprintf("simweb: json feed: %v", err)) // plain strings always marshal
	}
	return append(out, '\n')
}
