package simweb

import (
	"strconv"
	"strings"
	"time"
)

// stdConfig is a news site on an in-house or unnamed CMS: the furniture is
// the same as everywhere (big menu, utility bar, footer columns, social
// links, app badges, cookie banner), the feeds and sitemaps are the entry's.
type stdConfig struct {
	host, name, desc string
	lang             string // text bank and <html lang>
	htmlLang         string
	loc              *time.Location
	seed             string
	sections         []string // "slug:Label"
	sectionOf        func(slug string) string
	path             func(a article) string
	n                int
	newest, every    time.Duration
	head, tail       string
	homeHead         string
	topLinks         []link
	footerCols       []footerCol
	footerExtra      string
	cookie           string
	copyright        string
	by               string
	notFoundTitle    string
	notFoundText     string
	dateFmt          string
	teaserClass      string
	moreText         string
	homeTop          string
	homeBottom       string
	sectionHead      func(slug string) string
	headerTop        string // markup at the top of every page's header (an edition switcher)
	authors          []string
}

// stdSite builds the host and its usual pages and returns them for the
// entry to add its feeds and sitemaps.
func (b *builder) stdSite(cfg stdConfig) *pubSite {
	base := "https://" + cfg.host
	h := b.host(cfg.host)
	if cfg.sectionOf == nil {
		cfg.sectionOf = func(slug string) string { return "/" + slug + "/" }
	}
	if cfg.path == nil {
		cfg.path = func(a article) string { return "/" + a.section + "/" + slugify(a.title) + "-" + strconv.Itoa(a.id) }
	}
	if cfg.n == 0 {
		cfg.n = 30
	}
	if cfg.newest == 0 {
		cfg.newest = time.Hour
	}
	if cfg.every == 0 {
		cfg.every = 2 * time.Hour
	}
	if cfg.authors == nil {
		cfg.authors = []string{"Staff Reporter", "News Desk"}
	}
	labels, slugs, nav := labelsOf(base, cfg.sectionOf, cfg.sections...)
	list := b.articles(cfg.seed, articleSpec{lang: cfg.lang, n: cfg.n, newest: cfg.newest, every: cfg.every, sections: slugs,
		authors: cfg.authors, path: cfg.path})
	lang := cfg.htmlLang
	if lang == "" {
		lang = cfg.lang
	}
	f := frame{
		lang: lang, name: cfg.name, base: base, loc: cfg.loc, head: cfg.head, tail: cfg.tail,
		topLinks: cfg.topLinks, sections: nav, footerCols: cfg.footerCols, footerExtra: cfg.footerExtra, cookie: cfg.cookie,
		copyright: cfg.copyright, dateFmt: cfg.dateFmt, notFoundTitle: cfg.notFoundTitle, notFoundText: cfg.notFoundText,
	}
	if f.copyright == "" {
		f.copyright = "© " + strconv.Itoa(b.now.Year()) + " " + cfg.name + ". All rights reserved."
	}
	if f.notFoundTitle == "" {
		f.notFoundTitle, f.notFoundText = "Page not found", "Sorry, the page you requested could not be found. It may have been moved or deleted."
	}
	by := cfg.by
	if by == "" {
		by = "By"
	}
	c := f.chrome()
	if cfg.headerTop != "" {
		c.header = strings.Replace(c.header, "<header class=\"site-header\" role=\"banner\">\n", "<header class=\"site-header\" role=\"banner\">\n"+cfg.headerTop+"\n", 1)
	}
	p := &pubSite{h: h, c: c, list: list, sectionOf: cfg.sectionOf, labels: labels, by: by, teaserClass: cfg.teaserClass,
		homeDesc: cfg.desc, homeHead: cfg.homeHead, homeTop: cfg.homeTop, homeBottom: cfg.homeBottom, moreText: cfg.moreText,
		sectionHead: cfg.sectionHead}
	p.serve()
	return p
}

// enFooter is the footer most English-language publishers have.
func enFooter(base string, extra ...link) []footerCol {
	return []footerCol{
		{"About us", []link{{base + "/about-us/", "About us"}, {base + "/contact-us/", "Contact us"}, {base + "/advertise/", "Advertise with us"}, {base + "/careers/", "Careers"}}},
		{"Subscriptions", []link{{base + "/subscribe/", "Subscribe"}, {base + "/newsletters/", "Newsletters"}, {base + "/e-paper/", "E-paper"}, {base + "/apps/", "Our apps"}}},
		{"Legal", append([]link{{base + "/privacy-policy/", "Privacy policy"}, {base + "/cookie-policy/", "Cookie policy"}, {base + "/terms-and-conditions/", "Terms and conditions"}}, extra...)},
	}
}

// enTopLinks is the utility bar most English-language publishers have.
func enTopLinks(base string) []link {
	return []link{{base + "/subscribe/", "Subscribe"}, {base + "/newsletters/", "Newsletters"}, {base + "/account/login/", "Sign in"}}
}

// oneTrust is OneTrust's consent banner, the most common one on news sites.
func oneTrust(id string) string {
	return "<script src=\"https://cdn.cookielaw.org/scripttemplates/otSDKStub.js\" type=\"text/javascript\" charset=\"UTF-8\" data-domain-script=\"" + id + "\"></script>\n" +
		"<div id=\"onetrust-consent-sdk\"></div>\n"
}

// subscribePages adds the paid-subscription and newsletter pages the
// utility bar and footer link to.
func (p *pubSite) subscribePages(price string) {
	p.simple("/subscribe/", "Subscribe", paywall("Subscribe to "+p.c.name, price, "Subscribe now", p.c.base+"/subscribe/checkout/"))
	p.simple("/newsletters/", "Newsletters", newsletterForm(p.c.base+"/newsletters/signup/", "Email address", "Sign up"))
	p.simple("/about-us/", "About us", "<p>"+esc(p.c.name)+" has served its readers for decades.</p>")
}
