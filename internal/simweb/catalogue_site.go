package simweb

import (
	"strconv"
	"strings"
	"time"
)

// frame describes a publisher's page furniture; chrome() renders it into
// the header and footer every page shares.
type frame struct {
	lang, name, base string
	loc              *time.Location
	head, tail       string
	htmlAttr         string
	bodyAttr         string
	topLinks         []link // utility bar: subscribe, sign in, newsletters, e-paper
	sections         []link // the big menu
	footerCols       []footerCol
	footerExtra      string // social links, app badges
	copyright        string
	cookie           string
	titleSep         string
	dateFmt          string
	notFoundTitle    string
	notFoundText     string
	logoAlt          string
}

type footerCol struct {
	title string
	links []link
}

func (f frame) chrome() *chrome {
	skip, search := "Skip to content", "Search"
	switch f.lang[:2] {
	case "de":
		skip, search = "Zum Inhalt springen", "Suche"
	case "ja":
		skip, search = "本文へ移動", "検索"
	case "es":
		skip, search = "Saltar al contenido", "Buscar"
	case "fr":
		skip, search = "Aller au contenu", "Rechercher"
	case "it":
		skip, search = "Vai al contenuto", "Cerca"
	case "nl":
		skip, search = "Naar de inhoud", "Zoeken"
	case "ca":
		skip, search = "Salta al contingut", "Cerca"
	}
	var h strings.Builder
	h.WriteString("<a class=\"skip-link\" href=\"#main\">" + skip + "</a>\n<header class=\"site-header\" role=\"banner\">\n")
	if len(f.topLinks) > 0 {
		h.WriteString("<div class=\"site-header__top\">" + menu("utility-nav", f.topLinks...) + "</div>\n")
	}
	alt := f.logoAlt
	if alt == "" {
		alt = f.name
	}
	h.WriteString("<a class=\"site-logo\" href=\"" + f.base + "/\" rel=\"home\"><img src=\"" + f.base + "/images/logo.svg\" alt=\"" + esc(alt) + "\" width=\"240\" height=\"40\"></a>\n")
	h.WriteString("<nav class=\"main-navigation\" aria-label=\"Main\">" + menu("menu", f.sections...) + "</nav>\n")
	h.WriteString("<button class=\"search-toggle\" aria-expanded=\"false\">" + search + "</button>\n</header>")

	var ft strings.Builder
	ft.WriteString("<footer class=\"site-footer\" role=\"contentinfo\">\n<div class=\"site-footer__columns\">\n")
	for _, col := range f.footerCols {
		ft.WriteString("<div class=\"site-footer__column\"><h2 class=\"site-footer__title\">" + esc(col.title) + "</h2>" + menu("footer-menu", col.links...) + "</div>\n")
	}
	ft.WriteString("</div>\n" + f.footerExtra + "\n<p class=\"site-footer__copyright\">" + esc(f.copyright) + "</p>\n</footer>")
	return &chrome{
		lang: f.lang, name: f.name, base: f.base, loc: f.loc,
		head: f.head, htmlAttr: f.htmlAttr, bodyAttr: f.bodyAttr,
		header: h.String(), footer: ft.String(), tail: f.cookie + f.tail,
		titleSep: f.titleSep, dateFmt: f.dateFmt,
		notFoundTitle: f.notFoundTitle, notFoundText: f.notFoundText,
	}
}

// pubSite serves the usual pages of a news site on one host: the home page,
// section fronts and stories.
type pubSite struct {
	h        *hostBuilder
	c        *chrome
	list     []article
	sections []link // slug in text order: {href: section path, text: label}; slug by sectionOf
	// sectionOf maps a story's section slug to its front's path.
	sectionOf   func(slug string) string
	labels      map[string]string
	teaserClass string
	by          string
	homeTitle   string
	homeDesc    string
	homeHead    string
	homeTop     string // HTML before the teasers on the home page
	homeBottom  string
	moreText    string // "More" label of home section blocks
	sectionHead func(slug string) string
	articleHead func(a article) string
	noSections  bool
}

func (p *pubSite) serve() {
	p.h.notFound = p.c.notFound()
	p.h.stub = p.c.stubPage
	class := p.teaserClass
	if class == "" {
		class = "teaser"
	}
	var home strings.Builder
	home.WriteString(p.homeTop)
	home.WriteString("<section class=\"top-stories\">\n")
	n := 8
	if n > len(p.list) {
		n = len(p.list)
	}
	home.WriteString(p.c.teasers(class, p.list[:n]))
	home.WriteString("</section>\n")
	if !p.noSections {
		for _, slug := range p.slugs() {
			in := inSection(p.list, slug)
			if len(in) == 0 {
				continue
			}
			if len(in) > 3 {
				in = in[:3]
			}
			more := p.moreText
			if more == "" {
				more = "More"
			}
			home.WriteString("<section class=\"section-block section-block--" + slug + "\"><h2><a href=\"" + p.c.base + p.sectionOf(slug) + "\">" + esc(p.labels[slug]) + "</a></h2>\n")
			home.WriteString(p.c.teasers(class, in))
			home.WriteString("<a class=\"more-link\" href=\"" + p.c.base + p.sectionOf(slug) + "\">" + esc(more+" "+p.labels[slug]) + "</a></section>\n")
		}
	}
	home.WriteString(p.homeBottom)
	p.h.html("/", p.c.page(p.homeTitle, "/", p.homeDesc, p.homeHead, home.String()))
	if !p.noSections {
		for _, slug := range p.slugs() {
			head := ""
			if p.sectionHead != nil {
				head = p.sectionHead(slug)
			}
			body := "<h1 class=\"page-title\">" + esc(p.labels[slug]) + "</h1>\n" + p.c.teasers(class, inSection(p.list, slug))
			p.h.html(p.sectionOf(slug), p.c.page(p.labels[slug], p.sectionOf(slug), "", head, body))
		}
	}
	for _, a := range p.list {
		head := ""
		if p.articleHead != nil {
			head = p.articleHead(a)
		}
		p.h.html(a.path, p.c.articlePage(a, p.by, head))
	}
}

// slugs are the sections in menu order.
func (p *pubSite) slugs() []string {
	seen := map[string]bool{}
	var out []string
	for _, a := range p.list {
		if a.section != "" && !seen[a.section] {
			seen[a.section] = true
			out = append(out, a.section)
		}
	}
	return out
}

// stubPage is a plain page of the site's chrome for a path the entry links
// to without writing it.
func (c *chrome) stubPage(path string) []byte {
	t := stubTitle(path)
	return c.page(t, path, "", "", "<h1 class=\"page-title\">"+esc(t)+"</h1>\n<p>"+esc(c.name)+"</p>")
}

// simple serves a plain content page with the site's chrome.
func (p *pubSite) simple(path, title, body string) {
	p.h.html(path, p.c.page(title, path, "", "", "<h1 class=\"page-title\">"+esc(title)+"</h1>\n"+body))
}

// htmlSitemapPage is the human "Sitemap" page many publishers link in their
// footer: an HTML list of sections, not a sitemap file.
func (p *pubSite) htmlSitemapPage(path, title string, extra ...link) {
	var b strings.Builder
	b.WriteString("<ul class=\"html-sitemap\">")
	for _, slug := range p.slugs() {
		b.WriteString("<li><a href=\"" + p.c.base + p.sectionOf(slug) + "\">" + esc(p.labels[slug]) + "</a></li>")
	}
	for _, l := range extra {
		b.WriteString("<li><a href=\"" + esc(l.href) + "\">" + esc(l.text) + "</a></li>")
	}
	b.WriteString("</ul>")
	p.simple(path, title, b.String())
}

// paywall is a subscription offer page: what "Subscribe" or "Abonnieren"
// usually leads to. It has no feed.
func paywall(heading, offer, cta, ctaHref string) string {
	return "<section class=\"offer\"><h2>" + esc(heading) + "</h2><p>" + esc(offer) + "</p>" +
		"<form class=\"checkout\" method=\"post\" action=\"" + esc(ctaHref) + "\"><input type=\"hidden\" name=\"plan\" value=\"digital-monthly\">" +
		"<button type=\"submit\">" + esc(cta) + "</button></form></section>"
}

// newsletterForm is an e-mail newsletter sign-up.
func newsletterForm(action, label, button string) string {
	return "<form class=\"newsletter-signup\" method=\"post\" action=\"" + esc(action) + "\"><label>" + esc(label) +
		" <input type=\"email\" name=\"email\" required></label><button type=\"submit\">" + esc(button) + "</button></form>"
}

// labelsOf turns "slug:Label" pairs into a map and menu links.
func labelsOf(base string, sectionOf func(string) string, pairs ...string) (map[string]string, []string, []link) {
	m := map[string]string{}
	var slugs []string
	var links []link
	for _, p := range pairs {
		slug, label, _ := strings.Cut(p, ":")
		m[slug] = label
		slugs = append(slugs, slug)
		links = append(links, link{base + sectionOf(slug), label})
	}
	return m, slugs, links
}

// jsonLD is a minimal schema.org NewsMediaOrganization block.
func jsonLD(name, base string) string {
	return "<script type=\"application/ld+json\">{\"@context\":\"https://schema.org\",\"@type\":\"NewsMediaOrganization\",\"name\":" +
		strconv.Quote(name) + ",\"url\":" + strconv.Quote(base+"/") + ",\"logo\":" + strconv.Quote(base+"/images/logo.svg") + "}</script>\n"
}

// robotsWP is WordPress's virtual robots.txt with the sitemap a plugin adds.
func robotsWP(sitemap string) string {
	s := "User-agent: *\nDisallow: /wp-admin/\nAllow: /wp-admin/admin-ajax.php\n"
	if sitemap != "" {
		s += "\nSitemap: " + sitemap + "\n"
	}
	return s
}

// staleArticles are stories of an abandoned feed: the newest is years old.
func (b *builder) staleArticles(seed, lang string, years int, path func(a article) string) []article {
	return b.articles(seed, articleSpec{lang: lang, n: 10, newest: time.Duration(years) * 365 * 24 * time.Hour,
		every: 3 * 24 * time.Hour, path: path})
}
