package feed

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"net/url"
	"slices"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/html"
)

// Source says where a candidate was found.
type Source string

// Candidate sources.
const (
	// SourceLinkAlternate is an HTML <link rel="alternate"> with a feed type.
	SourceLinkAlternate Source = "link_alternate"
	// SourceLinkHeader is an HTTP Link header with rel="alternate" and a feed type.
	SourceLinkHeader Source = "link_header"
	// SourceAnchor is an HTML <a href> that looks like a feed.
	SourceAnchor Source = "anchor"
	// SourceWellKnown is a path from [WellKnownPaths].
	SourceWellKnown Source = "well_known"
	// SourceLinkSitemap is an HTML <link rel="sitemap">.
	SourceLinkSitemap Source = "link_sitemap"
)

// Candidate is a URL that may be a feed. It counts only once fetched and
// parsed with [Parse].
type Candidate struct {
	URL    string // absolute http(s), fragment removed
	Source Source
	Type   string // declared MIME type, lower case, without parameters; "" when none
	Title  string // link title or anchor text, whitespace collapsed, at most 200 characters
}

// Section is a link on a page to a likely news or press section of the same
// site.
type Section struct {
	URL         string  // absolute http(s), fragment removed
	Text        string  // anchor text, whitespace collapsed, at most 200 characters
	Score       float64 // in (0, 1]; higher is more likely the site's news listing
	ContentType string  // [ContentTypeOf] the URL and text
}

// Page is what [FromHTML] found on a page.
type Page struct {
	Feeds    []Candidate // de-duplicated by URL, in document order, comment feeds dropped
	Sections []Section   // same site only, by Score descending then document order, at most 10
	// Sitemaps are links to sitemaps: <link rel="sitemap"> and anchors to
	// a sitemap URL or labelled "Sitemap", de-duplicated, in document order.
	Sitemaps []SitemapLink
	// Hubs are links that may lead to a page listing feeds without being
	// a feed themselves: "Subscribe", "Abonnieren", "Syndication", "Flux",
	// "配信" and the like. Many lead to a paid subscription instead.
	Hubs []Candidate
	// Files are anchors to .xml, .rss, .rdf and .atom files that neither
	// look like feeds nor like sitemaps by URL or text ("Top Stories" →
	// /topstories.xml). On a page reached as a feed directory they are
	// its feeds; elsewhere they are anything.
	Files     []Candidate
	Generator string // the first <meta name="generator"> content, cleaned
	// Lang is the page's language, <html lang>, lower case ("en-gb").
	Lang string
	// Editions are the page's declared translations, <link
	// rel="alternate" hreflang="de" href>, x-default included, in
	// document order.
	Editions []Edition
	// Homes are anchors to the home page of another host ("/" there):
	// a language switcher's "Deutsch" → https://de.example.com/, among
	// others (a shop, a jobs site).
	Homes     []Candidate
	Base      string // effective base URL (<base href> honoured)
	Truncated bool   // the document was cut at maxBytes (or was exactly that long)
}

// Edition is a translation a page declares with hreflang.
type Edition struct {
	Lang string // the hreflang value, lower case ("de", "pt-br", "x-default")
	URL  string // absolute http(s)
}

// SitemapLink is a link to a sitemap found on a page.
type SitemapLink struct {
	URL    string // absolute http(s), fragment removed
	Source Source // SourceLinkSitemap or SourceAnchor
	Title  string // link title or anchor text, cleaned
	// XML is true when the URL itself looks like a machine-readable
	// sitemap (sitemap.LooksLikeSitemapURL); false for a page that is
	// only labelled "Sitemap", usually a sitemap for people.
	XML bool
}

// DefaultMaxHTMLBytes is the read limit [FromHTML] uses when maxBytes <= 0.
const DefaultMaxHTMLBytes = 4 << 20

// maxTitle caps Candidate.Title and Section.Text, in characters.
const maxTitle = 200

// maxAnchorText caps the bytes of anchor text collected before trimming.
const maxAnchorText = 1024

// rawLink is a link as found, resolved once the base is known.
type rawLink struct {
	href  string
	typ   string
	title string
	src   Source // SourceLinkAlternate, SourceLinkSitemap or SourceAnchor
}

// FromHTML extracts feed candidates and section links from an HTML document.
// pageURL is the URL the page was fetched from (the final URL after
// redirects) and must be absolute http(s). It reads at most maxBytes from r
// (DefaultMaxHTMLBytes when maxBytes <= 0) with the streaming tokenizer of
// golang.org/x/net/html and never fails on bad HTML: it returns what it found.
// The error is non-nil only for an unusable pageURL or a read error from r,
// in which case the Page holds what was found before the error.
func FromHTML(pageURL string, r io.Reader, maxBytes int64) (Page, error) {
	page, err := parseAbs(pageURL)
	if err != nil {
		return Page{}, fmt.Errorf("page url %q: %w", pageURL, err)
	}
	if maxBytes <= 0 {
		maxBytes = DefaultMaxHTMLBytes
	}
	cr := &countingReader{r: io.LimitReader(r, maxBytes)}
	z := html.NewTokenizer(cr)

	var (
		links   []rawLink
		baseRaw string
		haveB   bool
		inA     bool
		aHref   string
		aText   []byte
		aTitle  string
		gen     string
		lang    string
		langs   []rawLink // hreflang alternates; title holds the language
	)
	endAnchor := func() {
		if inA {
			t := string(aText)
			if strings.TrimSpace(t) == "" {
				t = aTitle // an icon link: <a href="/feed" title="RSS"></a>
			}
			links = append(links, rawLink{href: aHref, title: t, src: SourceAnchor})
			inA, aHref, aText, aTitle = false, "", aText[:0], ""
		}
	}
	var readErr error
loop:
	for {
		tt := z.Next()
		switch tt {
		case html.ErrorToken:
			if err := z.Err(); !errors.Is(err, io.EOF) {
				readErr = err
			}
			break loop
		case html.TextToken:
			if inA && len(aText) < maxAnchorText {
				aText = append(aText, z.Text()...)
			}
		case html.StartTagToken, html.SelfClosingTagToken, html.EndTagToken:
			// TagName and TagAttr allocate; look at the raw bytes first and
			// skip the tags that do not matter (most of them).
			if !interestingTag(z.Raw()) {
				continue
			}
			name, hasAttr := z.TagName()
			if tt == html.EndTagToken {
				if string(name) == "a" {
					endAnchor()
				}
				continue
			}
			switch string(name) {
			case "base":
				if haveB {
					continue
				}
				if a := attrs(z, hasAttr); a.hasHref {
					baseRaw, haveB = a.href, true
				}
			case "html":
				if lang == "" {
					lang = strings.ToLower(strings.TrimSpace(attrs(z, hasAttr).lang))
				}
			case "link":
				a := attrs(z, hasAttr)
				if l, ok := alternateLink(a); ok {
					// A feed first, hreflang or not: multilingual CMSs
					// declare each language's feed with one.
					links = append(links, l)
				} else if a.hreflang != "" && hasRel(a.rel, "alternate") && strings.TrimSpace(a.href) != "" {
					langs = append(langs, rawLink{href: a.href, title: strings.ToLower(strings.TrimSpace(a.hreflang))})
				} else if hasRel(a.rel, "sitemap") && strings.TrimSpace(a.href) != "" {
					links = append(links, rawLink{href: a.href, typ: mediaType(a.typ), title: a.title, src: SourceLinkSitemap})
				}
			case "meta":
				if gen == "" {
					if a := attrs(z, hasAttr); strings.EqualFold(strings.TrimSpace(a.name), "generator") {
						gen = cleanText(a.content)
					}
				}
			case "a":
				endAnchor() // <a> cannot nest; an unclosed one ends here
				a := attrs(z, hasAttr)
				if a.hasHref {
					inA, aHref, aTitle = true, a.href, a.title
				}
			case "img":
				if inA && len(aText) < maxAnchorText {
					a := attrs(z, hasAttr)
					if a.alt != "" {
						aText = append(aText, ' ')
						aText = append(aText, a.alt...)
					}
				}
			}
		}
	}
	endAnchor()

	base := page
	if haveB {
		if b, err := page.Parse(strings.TrimSpace(baseRaw)); err == nil && (b.Scheme == "http" || b.Scheme == "https") && b.Host != "" {
			base = b
		}
	}
	out := Page{Base: base.String(), Truncated: cr.n >= maxBytes, Generator: gen, Lang: lang}
	for _, l := range langs {
		if u, ok := resolve(base, l.href); ok && !slices.ContainsFunc(out.Editions, func(e Edition) bool { return e.Lang == l.title }) {
			out.Editions = append(out.Editions, Edition{Lang: l.title, URL: u.String()})
		}
	}
	seenFeed := map[string]bool{}
	seenOther := map[string]bool{}
	secIdx := map[string]int{}
	done := make(map[rawLink]bool, len(links))
	for _, l := range links {
		if done[l] {
			continue // same element again (menus repeat links): same outcome
		}
		done[l] = true
		u, ok := resolve(base, l.href)
		if !ok {
			continue
		}
		title := cleanText(l.title)
		us := u.String()
		if l.src == SourceLinkSitemap {
			if !seenOther[us] {
				seenOther[us] = true
				out.Sitemaps = append(out.Sitemaps, SitemapLink{URL: us, Source: l.src, Title: title, XML: true})
			}
			continue
		}
		isFeed := l.src == SourceLinkAlternate
		if l.src == SourceAnchor {
			isFeed = looksLikeFeedURL(u) || isFeedWord(title)
		}
		if isFeed {
			c := Candidate{URL: us, Source: l.src, Type: l.typ, Title: title}
			if !seenFeed[us] && !IsCommentFeed(c) {
				out.Feeds = append(out.Feeds, c)
			}
			seenFeed[us] = true
			continue
		}
		if l.src != SourceAnchor {
			continue
		}
		if xml, ok := sitemapLink(u, title); ok {
			if !seenOther[us] {
				seenOther[us] = true
				out.Sitemaps = append(out.Sitemaps, SitemapLink{URL: us, Source: l.src, Title: title, XML: xml})
			}
			continue
		}
		if isHubWord(title) {
			if !seenOther[us] {
				seenOther[us] = true
				out.Hubs = append(out.Hubs, Candidate{URL: us, Source: l.src, Title: title})
			}
			continue
		}
		if isFeedFile(u) {
			if !seenOther[us] {
				seenOther[us] = true
				out.Files = append(out.Files, Candidate{URL: us, Source: l.src, Title: title})
			}
			continue
		}
		if !sameSite(u, page) {
			// Another host's home page: a language switcher's "Deutsch"
			// → de.example.com, a shop, a jobs site.
			if (u.Path == "/" || u.Path == "") && u.RawQuery == "" && !seenOther[us] {
				seenOther[us] = true
				out.Homes = append(out.Homes, Candidate{URL: us, Source: l.src, Title: title})
			}
			continue
		}
		s := sectionScore(u, title)
		if s <= 0 {
			continue
		}
		if i, ok := secIdx[us]; ok {
			if s > out.Sections[i].Score {
				out.Sections[i].Score, out.Sections[i].Text = s, title
				out.Sections[i].ContentType = ContentTypeOf(us, title)
			}
			continue
		}
		secIdx[us] = len(out.Sections)
		out.Sections = append(out.Sections, Section{URL: us, Text: title, Score: s, ContentType: ContentTypeOf(us, title)})
	}
	slices.SortStableFunc(out.Sections, func(a, b Section) int { return cmp.Compare(b.Score, a.Score) })
	if len(out.Sections) > maxSections {
		out.Sections = slices.Clip(out.Sections[:maxSections])
	}
	if readErr != nil {
		return out, fmt.Errorf("read html: %w", readErr)
	}
	return out, nil
}

// alternateLink returns the feed link a <link> element declares, if any.
func alternateLink(a tagAttrs) (rawLink, bool) {
	href := a.href
	if strings.TrimSpace(href) == "" {
		return rawLink{}, false
	}
	alt := false
	for _, r := range strings.Fields(strings.ToLower(a.rel)) {
		if r == "alternate" || r == "alternative" {
			alt = true
		}
		if r == "stylesheet" || r == "icon" {
			return rawLink{}, false
		}
	}
	if !alt {
		return rawLink{}, false
	}
	typ := mediaType(a.typ)
	title := a.title
	l := rawLink{href: href, typ: typ, title: title, src: SourceLinkAlternate}
	switch {
	case LooksLikeFeedType(typ):
		return l, true
	case typ == "application/json":
		lh := strings.ToLower(href)
		if strings.TrimSpace(title) == "" || strings.Contains(lh, "wp-json") || strings.Contains(lh, "rest_route=") ||
			strings.EqualFold(strings.TrimSpace(title), "json") {
			return rawLink{}, false
		}
		return l, true
	case typ == "text/xml" || typ == "application/xml":
		if LooksLikeFeedURL(strings.TrimSpace(href)) {
			return l, true
		}
	}
	return rawLink{}, false
}

// interestingTag reports whether a raw start or end tag is <a>, <base>,
// <link> or <img>, without allocating.
func interestingTag(raw []byte) bool {
	raw = bytes.TrimPrefix(raw, []byte("<"))
	raw = bytes.TrimPrefix(raw, []byte("/"))
	var name [4]byte
	n := 0
	for ; n < len(raw); n++ {
		c := raw[n]
		if c == ' ' || c == '>' || c == '/' || c == '\t' || c == '\n' || c == '\r' || c == '\f' {
			break
		}
		if n == len(name) {
			return false
		}
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		name[n] = c
	}
	switch string(name[:n]) {
	case "a", "base", "link", "img", "meta", "html":
		return true
	}
	return false
}

// tagAttrs holds the attributes FromHTML looks at.
type tagAttrs struct {
	href, rel, typ, title, alt, name, content, lang, hreflang string
	hasHref                                                   bool
}

// attrs reads a tag's attributes, keeping the first of each that FromHTML
// uses. It allocates only for those.
func attrs(z *html.Tokenizer, more bool) tagAttrs {
	var a tagAttrs
	var seen [9]bool
	for more {
		var k, v []byte
		k, v, more = z.TagAttr()
		i := -1
		switch string(k) {
		case "href":
			i = 0
		case "rel":
			i = 1
		case "type":
			i = 2
		case "title":
			i = 3
		case "alt":
			i = 4
		case "name":
			i = 5
		case "content":
			i = 6
		case "lang":
			i = 7
		case "hreflang":
			i = 8
		}
		if i < 0 || seen[i] {
			continue
		}
		seen[i] = true
		switch i {
		case 0:
			a.href, a.hasHref = string(v), true
		case 1:
			a.rel = string(v)
		case 2:
			a.typ = string(v)
		case 3:
			a.title = string(v)
		case 4:
			a.alt = string(v)
		case 5:
			a.name = string(v)
		case 6:
			a.content = string(v)
		case 7:
			a.lang = string(v)
		case 8:
			a.hreflang = string(v)
		}
	}
	return a
}

// feedWords are anchor texts that name a feed.
var feedWords = map[string]bool{
	"rss": true, "atom": true, "feed": true, "rss feed": true, "rss feeds": true, "atom feed": true,
	"news feed": true, "subscribe via rss": true, "subscribe to rss": true, "rss-feed": true,
	"flux rss": true, "fil rss": true, "rss 2.0": true, "json feed": true,
}

// isFeedWord reports whether an anchor text names a feed.
func isFeedWord(text string) bool {
	if len(text) > 60 || !(containsFoldASCII(text, "rss") || containsFoldASCII(text, "atom") || containsFoldASCII(text, "feed")) {
		return false
	}
	t := normText(text)
	if feedWords[t] {
		return true
	}
	ws := words(t)
	return len(ws) <= 3 && slices.Contains(ws, "rss")
}

// cleanText collapses whitespace, repairs UTF-8 and caps the length.
func cleanText(s string) string {
	if isClean(s) {
		return s
	}
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) > maxTitle {
		n := 0
		for i := range s {
			if n == maxTitle {
				s = strings.TrimSpace(s[:i])
				break
			}
			n++
		}
	}
	return s
}

// parseAbs parses an absolute http(s) URL.
func parseAbs(raw string) (*url.URL, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		return nil, err
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, errors.New("not an absolute http(s) url")
	}
	return u, nil
}

// resolve resolves an href against base the way a browser would (leading and
// trailing spaces trimmed, tabs and newlines removed), rewrites the feed:
// pseudo-scheme, keeps http(s) only, drops the fragment and default port and
// lower-cases the host.
func resolve(base *url.URL, href string) (*url.URL, bool) {
	href = strings.TrimSpace(href)
	if strings.ContainsAny(href, "\t\r\n") {
		href = strings.Map(func(r rune) rune {
			if r == '\t' || r == '\r' || r == '\n' {
				return -1
			}
			return r
		}, href)
	}
	if href == "" || href[0] == '#' {
		return nil, false
	}
	if len(href) > 5 && strings.EqualFold(href[:5], "feed:") {
		rest := href[5:]
		if strings.HasPrefix(rest, "//") {
			href = "http:" + rest
		} else {
			href = rest // feed:https://example.com/rss
		}
	}
	u, err := base.Parse(href)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil {
		return nil, false
	}
	u.Fragment, u.RawFragment = "", ""
	u.Host = strings.ToLower(u.Host)
	if p := u.Port(); (p == "80" && u.Scheme == "http") || (p == "443" && u.Scheme == "https") {
		u.Host = strings.TrimSuffix(u.Host, ":"+p)
	}
	if u.Path == "" {
		u.Path = "/"
	}
	return u, true
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// isClean reports whether cleanText would return s unchanged: short, valid
// UTF-8, single ASCII spaces between words and none at the ends.
func isClean(s string) bool {
	if len(s) > maxTitle || (s != "" && (s[0] == ' ' || s[len(s)-1] == ' ')) {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 0x80:
			return false // let the slow path check UTF-8 and Unicode spaces
		case c == ' ':
			if s[i+1] == ' ' {
				return false
			}
		case c < 0x20 || c == 0x7f:
			return false
		}
	}
	return true
}

// containsFoldASCII reports whether s contains the lower-case ASCII word sub,
// ignoring ASCII case, without allocating.
func containsFoldASCII(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		j := 0
		for ; j < len(sub); j++ {
			c := s[i+j]
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			if c != sub[j] {
				break
			}
		}
		if j == len(sub) {
			return true
		}
	}
	return false
}
