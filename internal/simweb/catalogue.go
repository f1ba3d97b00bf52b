package simweb

import (
	"html"
	"net/http"
	"net/url"
	"regexp"
	"sort"
	"strings"
	"time"
)

// CatalogueEntry is one realistic layout: the sites it needs and the seed a
// person would choose. Unlike the built-in layouts, which exist to exercise
// the fetcher, catalogue entries imitate real publishers closely (their
// CMS's markup, asset paths, robots.txt, feed and sitemap URLs, menus and
// footers) so that contract discovery can be judged on fixtures it was not
// tuned to.
type CatalogueEntry struct {
	// Name is a stable snake_case id, e.g. "arc_xp_outboundfeeds".
	Name string
	// ModelledOn says in one line which real CMS or kind of publisher the
	// entry imitates and what makes it hard.
	ModelledOn string
	// DomainID is "{authority}:{country}:{registrable_domain}".
	DomainID string
	// Expect is the seed a careful person would choose. For an entry with
	// language editions it is the default edition's seed (the edition in a
	// language of the domain_id's country), with its Edition set.
	Expect ExpectedSeed
	// Editions are the seeds of the entry's other language editions, each
	// on its own host of the registrable domain with its own home page and
	// feed, in language order; nil for an entry with one edition.
	Editions []ExpectedSeed

	build func(b *builder)
}

// ExpectedSeed is the one unambiguous entry of a catalogue entry.
type ExpectedSeed struct {
	// ContentType is "news" for most entries and "press_release" for the
	// government press-release case.
	ContentType string
	// FetchType is "rss", "atom", "json_feed", "news_sitemap", "sitemap" or
	// "html".
	FetchType string
	// EntryURL is the absolute URL a fetcher ends on (after redirects).
	EntryURL string
	// Edition is the language of the seed's edition, a lower-case BCP 47
	// primary tag ("de", "fr", "ca"); empty for an entry without editions.
	Edition string
}

// Catalogue returns every entry, in a fixed order.
func Catalogue() []CatalogueEntry {
	return []CatalogueEntry{
		wordpressYoast(),
		wordpressFeedLinksRemoved(),
		arcXPOutboundFeeds(),
		drupalRSSXML(),
		typo3FeedDirectory(),
		ghostRSS(),
		joomlaFormatFeed(),
		bloggerAtom(),
		brightspotNewsSitemap(),
		rssDirectoryPage(),
		robotsManyDeadSitemaps(),
		sitemapIndexNewsTwelfth(),
		footerNewsSitemapAnchor(),
		linkRelSitemap(),
		siblingHostRSS(),
		siblingHostNewsSitemap(),
		germanPublisherSchlagzeilen(),
		japaneseRDF(),
		govPressReleases(),
		bloxTownNews(),
		unnamedNewsSitemap(),
		spanishSitemaps(),
		gouvFrFluxRSS(),
		hugoIndexXML(),
		squarespaceFormatRSS(),
		feedBurnerSubscribe(),
		plainSitemapOnly(),
		htmlOnly(),
		hostileRobots(),
		pelicanAtom(),
		wixBlogFeed(),
		drupalRSSPageOneFeed(),
		handmadeRSSPageFeedHost(),
		siblingFeedsHostRobots(),
		rssRedirectSiblingHost(),
		editionsHreflang(),
		editionsLinksOnly(),
	}
}

// Sites returns every Site the entry needs (the apex, a www. site when it is
// separate, sibling hosts), with content dated relative to now: the newest
// feed item is a few hours old and news sitemaps only list the last 48 hours.
func (e CatalogueEntry) Sites(now time.Time) []Site {
	b := &builder{now: now.UTC()}
	e.build(b)
	out := make([]Site, 0, len(b.hosts))
	for _, h := range b.hosts {
		out = append(out, h.site())
	}
	return out
}

// AddCatalogue adds the sites of every catalogue entry and returns the
// entries.
func (w *Web) AddCatalogue(now time.Time) []CatalogueEntry {
	entries := Catalogue()
	for _, e := range entries {
		for _, s := range e.Sites(now) {
			w.AddSite(s)
		}
	}
	return entries
}

// builder collects the hosts of one entry while its build function runs.
type builder struct {
	now   time.Time
	hosts []*hostBuilder
}

// hostBuilder is one Site in the making.
type hostBuilder struct {
	name     string
	scenario Scenario
	pages    map[string]Page
	notFound []byte
	// stub renders a plain page of the site's chrome for a path that its
	// pages link to but the entry did not write (privacy policy, careers…),
	// so that following a menu link does not end on a 404.
	stub func(path string) []byte
}

// host adds a host whose every unknown path answers notFound with 404.
func (b *builder) host(name string) *hostBuilder {
	h := &hostBuilder{name: name, pages: map[string]Page{}}
	b.hosts = append(b.hosts, h)
	return h
}

// redirectWWW adds apex as a site that sends every request to www.+apex
// with a 301, as most publishers' apexes do.
func (b *builder) redirectWWW(apex string) {
	b.hosts = append(b.hosts, &hostBuilder{name: apex, scenario: ScenarioRedirectWWW})
}

func (h *hostBuilder) site() Site {
	s := Site{Host: h.name, Scenario: h.scenario}
	if h.scenario == ScenarioRedirectWWW {
		return s
	}
	s.Layout = LayoutStatic
	h.addStubs()
	s.Pages = h.pages
	nf := h.notFound
	if nf == nil {
		nf = errorPage(http.StatusNotFound)
	}
	s.NotFound = &Page{Status: http.StatusNotFound, ContentType: ctHTML, Body: nf}
	return s
}

func (h *hostBuilder) put(path, ctype string, body []byte) {
	h.pages[path] = Page{ContentType: ctype, Body: body}
}

func (h *hostBuilder) html(path string, body []byte) { h.put(path, ctHTML, body) }
func (h *hostBuilder) rss(path string, body []byte)  { h.put(path, ctRSS, body) }
func (h *hostBuilder) xml(path string, body []byte)  { h.put(path, ctXML, body) }
func (h *hostBuilder) text(path, body string)        { h.put(path, ctText, []byte(body)) }

// status adds a page answering status with the site's not-found body (for
// dead sitemap lines that the host's own 404 would answer anyway, the
// explicit entry documents them).
func (h *hostBuilder) status(path string, status int, body []byte) {
	h.pages[path] = Page{Status: status, ContentType: ctHTML, Body: body}
}

// redirect adds a redirect from path to location (absolute or relative).
func (h *hostBuilder) redirect(path, location string, status int) {
	h.pages[path] = Page{
		Status:      status,
		ContentType: ctHTML,
		Body:        errorPage(status),
		Header:      http.Header{"Location": {location}},
	}
}

// articlePages serves every article of the list with the given renderer.
func (h *hostBuilder) articlePages(list []article, render func(a article) []byte) {
	for _, a := range list {
		h.html(a.path, render(a))
	}
}

var anchorHref = regexp.MustCompile(`<a [^>]*href="([^"]+)"`)

// addStubs serves a stub page for every same-host anchor target that has no
// page yet.
func (h *hostBuilder) addStubs() {
	if h.stub == nil {
		return
	}
	paths := make([]string, 0, len(h.pages))
	for p, pg := range h.pages {
		if strings.HasPrefix(pg.ContentType, "text/html") && pg.Status == 0 {
			paths = append(paths, p)
		}
	}
	sort.Strings(paths)
	base := &url.URL{Scheme: "https", Host: h.name, Path: "/"}
	for _, p := range paths {
		for _, m := range anchorHref.FindAllSubmatch(h.pages[p].Body, -1) {
			u, err := base.Parse(html.UnescapeString(string(m[1])))
			if err != nil || u.Host != h.name || u.Path == "" {
				continue
			}
			key := u.Path
			if u.RawQuery != "" {
				key += "?" + u.RawQuery
			}
			if _, ok := h.pages[key]; ok {
				continue
			}
			if _, ok := h.pages[u.Path]; ok && u.RawQuery != "" {
				continue
			}
			h.pages[key] = Page{ContentType: ctHTML, Body: h.stub(u.Path)}
		}
	}
}

// stubTitle makes a page title of a path's last segment.
func stubTitle(path string) string {
	seg := strings.Trim(path, "/")
	if i := strings.LastIndexByte(seg, '/'); i >= 0 {
		seg = seg[i+1:]
	}
	seg = strings.TrimSuffix(strings.TrimSuffix(seg, ".html"), ".php")
	seg = strings.ReplaceAll(seg, "-", " ")
	if seg == "" {
		return "Home"
	}
	return strings.ToUpper(seg[:1]) + seg[1:]
}

// swapHost replaces every occurrence of a real publisher's host in an
// embedded file with the entry's host.
func swapHost(body, from, to string) string { return strings.ReplaceAll(body, from, to) }
