package article

import (
	"encoding/json"
	"net/url"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// candidate is a field's value and the method that found it.
type candidate struct{ value, method string }

type authorsCandidate struct {
	value  []string
	method string
}

type timeCandidate struct {
	value  *time.Time
	method string
}

// structured is what a page states about itself, each field from the
// first source that has it: JSON-LD, microdata, OpenGraph, meta.
type structured struct {
	title, canonical, siteName, section, description, image, language, body candidate
	authors                                                                 authorsCandidate
	published, modified                                                     timeCandidate
	// isArticle: some source calls the page an article; otherType: the
	// type a source gives when it is something else (video, website).
	isArticle bool
	otherType string
}

// source is one source's reading of the page.
type source struct {
	method                                                                  string
	title, canonical, siteName, section, description, image, language, body string
	authors                                                                 []string
	published, modified                                                     *time.Time
	typ                                                                     string // the page's type as the source names it, lowercased
}

// articleTypes are the schema.org and OpenGraph types of an article.
var articleTypes = map[string]bool{
	"article": true, "newsarticle": true, "reportagenewsarticle": true, "analysisnewsarticle": true,
	"opinionnewsarticle": true, "reviewnewsarticle": true, "backgroundnewsarticle": true,
	"askpublicnewsarticle": true, "blogposting": true, "liveblogposting": true, "socialmediaposting": true,
	"scholarlyarticle": true, "techarticle": true, "report": true, "satiricalarticle": true, "advertisercontentarticle": true,
}

// otherTypes are the types of pages that are not articles.
var otherTypes = map[string]bool{
	"videoobject": true, "video": true, "video.other": true, "video.episode": true, "video.movie": true,
	"collectionpage": true, "itemlist": true, "profilepage": true, "profile": true, "searchresultspage": true,
	"product": true, "music.song": true, "book": true,
}

func readStructured(doc *html.Node, base *url.URL) structured {
	sources := []source{readJSONLD(doc, base), readMicrodata(doc, base), readOpenGraph(doc, base), readMeta(doc, base)}
	var s structured
	pick := func(dst *candidate, get func(*source) string) {
		for i := range sources {
			if v := strings.TrimSpace(get(&sources[i])); v != "" {
				*dst = candidate{v, sources[i].method}
				return
			}
		}
	}
	pick(&s.title, func(x *source) string { return x.title })
	pick(&s.canonical, func(x *source) string { return x.canonical })
	pick(&s.siteName, func(x *source) string { return x.siteName })
	pick(&s.section, func(x *source) string { return x.section })
	pick(&s.description, func(x *source) string { return plainText(x.description) })
	pick(&s.image, func(x *source) string { return x.image })
	pick(&s.language, func(x *source) string { return x.language })
	pick(&s.body, func(x *source) string { return x.body })
	for i := range sources {
		x := &sources[i]
		if len(s.authors.value) == 0 && len(x.authors) > 0 {
			s.authors = authorsCandidate{x.authors, x.method}
		}
		if s.published.value == nil && x.published != nil {
			s.published = timeCandidate{x.published, x.method}
		}
		if s.modified.value == nil && x.modified != nil {
			s.modified = timeCandidate{x.modified, x.method}
		}
		switch {
		case articleTypes[x.typ]:
			s.isArticle = true
		case otherTypes[x.typ] && s.otherType == "":
			s.otherType = x.typ
		}
	}
	return s
}

// readJSONLD reads the first article object of the page's JSON-LD (in a
// list, an @graph, or on its own); failing one, the first WebPage.
func readJSONLD(doc *html.Node, base *url.URL) source {
	src := source{method: MethodJSONLD}
	var article, page, other map[string]any
	for _, n := range findAll(doc, func(n *html.Node) bool {
		return n.DataAtom == atom.Script && strings.EqualFold(strings.TrimSpace(attr(n, "type")), "application/ld+json")
	}) {
		var v any
		if err := json.Unmarshal([]byte(strings.TrimSpace(textOf(n))), &v); err != nil {
			continue
		}
		walkJSONLD(v, func(o map[string]any) {
			for _, t := range types(o) {
				switch {
				case articleTypes[t] && article == nil:
					article = o
				case t == "webpage" && page == nil:
					page = o
				case otherTypes[t] && other == nil:
					other = o
				}
			}
		})
	}
	o := article
	if o == nil {
		o = page
	}
	if o == nil {
		if other != nil {
			src.typ = types(other)[0]
		}
		return src
	}
	if article != nil {
		src.typ = "article"
	}
	src.title = str(o["headline"])
	if src.title == "" {
		src.title = str(o["name"])
	}
	src.body = str(o["articleBody"])
	src.description = str(o["description"])
	src.section = firstStr(o["articleSection"])
	src.language = primaryLanguage(firstStr(o["inLanguage"]))
	src.image = resolve(base, imageURL(o["image"]))
	src.canonical = resolve(base, entityURL(o["mainEntityOfPage"]))
	if src.canonical == "" {
		src.canonical = resolve(base, str(o["url"]))
	}
	if p, ok := o["publisher"].(map[string]any); ok {
		src.siteName = str(p["name"])
	}
	src.authors = personNames(o["author"])
	src.published = parseTime(str(o["datePublished"]))
	if src.published == nil {
		src.published = parseTime(str(o["dateCreated"]))
	}
	src.modified = parseTime(str(o["dateModified"]))
	return src
}

// walkJSONLD calls f on every object of v: v itself, the items of a list,
// the members of an @graph.
func walkJSONLD(v any, f func(map[string]any)) {
	switch x := v.(type) {
	case []any:
		for _, e := range x {
			walkJSONLD(e, f)
		}
	case map[string]any:
		f(x)
		if g, ok := x["@graph"]; ok {
			walkJSONLD(g, f)
		}
	}
}

// types are an object's @type values, lowercased, without a schema.org
// prefix.
func types(o map[string]any) []string {
	var out []string
	add := func(s string) {
		s = strings.ToLower(strings.TrimSpace(s))
		s = strings.TrimPrefix(strings.TrimPrefix(s, "https://schema.org/"), "http://schema.org/")
		if s != "" {
			out = append(out, s)
		}
	}
	switch t := o["@type"].(type) {
	case string:
		add(t)
	case []any:
		for _, e := range t {
			if s, ok := e.(string); ok {
				add(s)
			}
		}
	}
	return out
}

func str(v any) string {
	switch x := v.(type) {
	case string:
		return strings.TrimSpace(x)
	case map[string]any:
		if s := str(x["@value"]); s != "" {
			return s
		}
		return str(x["name"])
	}
	return ""
}

func firstStr(v any) string {
	if l, ok := v.([]any); ok {
		for _, e := range l {
			if s := str(e); s != "" {
				return s
			}
		}
		return ""
	}
	return str(v)
}

func imageURL(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case map[string]any:
		if s := str(x["url"]); s != "" {
			return s
		}
		return str(x["contentUrl"])
	case []any:
		for _, e := range x {
			if s := imageURL(e); s != "" {
				return s
			}
		}
	}
	return ""
}

func entityURL(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case map[string]any:
		if s := str(x["@id"]); s != "" {
			return s
		}
		return str(x["url"])
	}
	return ""
}

// personNames are the names of a JSON-LD author: a name, a Person or
// Organization, or a list of them.
func personNames(v any) []string {
	var out []string
	switch x := v.(type) {
	case string:
		out = splitAuthors(x)
	case map[string]any:
		if n := str(x["name"]); n != "" {
			out = []string{n}
		}
	case []any:
		for _, e := range x {
			out = append(out, personNames(e)...)
		}
	}
	return dedupe(out)
}

// readMicrodata reads itemprop attributes of an article item.
func readMicrodata(doc *html.Node, base *url.URL) source {
	src := source{method: MethodMicrodata}
	for _, n := range findAll(doc, func(n *html.Node) bool { return attr(n, "itemtype") != "" }) {
		t := strings.ToLower(attr(n, "itemtype"))
		t = t[strings.LastIndexByte(t, '/')+1:]
		if articleTypes[t] {
			src.typ = t
			break
		}
	}
	for _, n := range findAll(doc, func(n *html.Node) bool { return attr(n, "itemprop") != "" }) {
		for prop := range strings.FieldsSeq(attr(n, "itemprop")) {
			switch prop {
			case "headline":
				if src.title == "" {
					src.title = itemValue(n)
				}
			case "articleBody":
				if src.body == "" {
					src.body = blockText(n)
				}
			case "author":
				name := itemValue(n)
				if inner := findAll(n, func(k *html.Node) bool { return attr(k, "itemprop") == "name" }); len(inner) > 0 {
					name = itemValue(inner[0])
				}
				src.authors = dedupe(append(src.authors, splitAuthors(name)...))
			case "datePublished":
				if src.published == nil {
					src.published = parseTime(itemValue(n))
				}
			case "dateModified":
				if src.modified == nil {
					src.modified = parseTime(itemValue(n))
				}
			case "inLanguage":
				if src.language == "" {
					src.language = primaryLanguage(itemValue(n))
				}
			case "articleSection":
				if src.section == "" {
					src.section = itemValue(n)
				}
			case "image":
				if src.image == "" {
					src.image = resolve(base, itemValue(n))
				}
			}
		}
	}
	return src
}

// itemValue is a microdata property's value: its content, datetime, href
// or src attribute, else its text.
func itemValue(n *html.Node) string {
	for _, k := range []string{"content", "datetime", "href", "src"} {
		if v := attr(n, k); v != "" {
			return strings.TrimSpace(v)
		}
	}
	return strings.Join(strings.Fields(textOf(n)), " ")
}

// readOpenGraph reads og: and article: properties.
func readOpenGraph(doc *html.Node, base *url.URL) source {
	src := source{method: MethodOpenGraph}
	for _, n := range findAll(doc, func(n *html.Node) bool { return n.DataAtom == atom.Meta }) {
		prop := strings.ToLower(strings.TrimSpace(attr(n, "property")))
		if prop == "" {
			prop = strings.ToLower(strings.TrimSpace(attr(n, "name")))
		}
		v := strings.TrimSpace(attr(n, "content"))
		if v == "" {
			continue
		}
		switch prop {
		case "og:title":
			setOnce(&src.title, v)
		case "og:site_name":
			setOnce(&src.siteName, v)
		case "og:description":
			setOnce(&src.description, v)
		case "og:image", "og:image:url", "og:image:secure_url":
			setOnce(&src.image, resolve(base, v))
		case "og:url":
			setOnce(&src.canonical, resolve(base, v))
		case "og:locale":
			setOnce(&src.language, primaryLanguage(v))
		case "og:type":
			setOnce(&src.typ, strings.ToLower(v))
		case "article:section":
			setOnce(&src.section, v)
		case "article:published_time":
			if src.published == nil {
				src.published = parseTime(v)
			}
		case "article:modified_time":
			if src.modified == nil {
				src.modified = parseTime(v)
			}
		case "article:author":
			// Often a profile URL rather than a name.
			if !strings.Contains(v, "://") {
				src.authors = dedupe(append(src.authors, splitAuthors(v)...))
			}
		}
	}
	return src
}

// readMeta reads the plain meta fields, the canonical link, the title and
// the language the page declares.
func readMeta(doc *html.Node, base *url.URL) source {
	src := source{method: MethodMeta}
	for _, n := range findAll(doc, func(n *html.Node) bool {
		return n.DataAtom == atom.Meta || n.DataAtom == atom.Link || n.DataAtom == atom.Title || n.DataAtom == atom.Html
	}) {
		switch n.DataAtom {
		case atom.Html:
			setOnce(&src.language, primaryLanguage(attr(n, "lang")))
		case atom.Title:
			setOnce(&src.title, strings.Join(strings.Fields(textOf(n)), " "))
		case atom.Link:
			for rel := range strings.FieldsSeq(strings.ToLower(attr(n, "rel"))) {
				if rel == "canonical" {
					setOnce(&src.canonical, resolve(base, attr(n, "href")))
				}
			}
		case atom.Meta:
			name := strings.ToLower(strings.TrimSpace(attr(n, "name")))
			v := strings.TrimSpace(attr(n, "content"))
			if v == "" {
				continue
			}
			switch name {
			case "description":
				setOnce(&src.description, v)
			case "author", "byl", "dc.creator", "sailthru.author", "parsely-author":
				if len(src.authors) == 0 {
					src.authors = splitAuthors(strings.TrimPrefix(v, "By "))
				}
			case "dc.date.issued", "date", "pubdate", "publish-date", "parsely-pub-date", "sailthru.date", "dcterms.created":
				if src.published == nil {
					src.published = parseTime(v)
				}
			case "dc.language", "language":
				setOnce(&src.language, primaryLanguage(v))
			case "application-name":
				setOnce(&src.siteName, v)
			}
			if strings.EqualFold(attr(n, "http-equiv"), "content-language") {
				setOnce(&src.language, primaryLanguage(v))
			}
		}
	}
	return src
}

func setOnce(dst *string, v string) {
	if *dst == "" {
		*dst = strings.TrimSpace(v)
	}
}

// splitAuthors splits a byline into names: on commas, semicolons, "and"
// and "&", without a leading "By".
func splitAuthors(s string) []string {
	s = strings.TrimSpace(s)
	for _, p := range []string{"By ", "by ", "BY "} {
		s = strings.TrimPrefix(s, p)
	}
	if s == "" {
		return nil
	}
	f := func(r rune) bool { return r == ',' || r == ';' || r == '|' || r == '&' }
	var out []string
	for part := range strings.FieldsFuncSeq(s, f) {
		for name := range strings.SplitSeq(part, " and ") {
			name = strings.Join(strings.Fields(name), " ")
			if name != "" && !strings.Contains(name, "://") && len(name) <= 100 {
				out = append(out, name)
			}
		}
	}
	return dedupe(out)
}

func dedupe(names []string) []string {
	seen := map[string]bool{}
	out := names[:0:0]
	for _, n := range names {
		k := strings.ToLower(n)
		if n != "" && !seen[k] {
			seen[k] = true
			out = append(out, n)
		}
	}
	return out
}

// timeLayouts are the date forms pages state, most common first.
var timeLayouts = []string{
	time.RFC3339Nano, "2006-01-02T15:04:05Z0700", "2006-01-02T15:04:05.999999999Z0700", "2006-01-02T15:04Z07:00",
	"2006-01-02T15:04:05", "2006-01-02 15:04:05Z07:00", "2006-01-02 15:04:05", "2006-01-02T15:04", "2006-01-02",
	time.RFC1123Z, time.RFC1123, "Mon, 2 Jan 2006 15:04:05 -0700", "20060102",
}

// parseTime reads a stated date, keeping its time zone (UTC when it
// names none).
func parseTime(s string) *time.Time {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil
	}
	for _, l := range timeLayouts {
		if t, err := time.Parse(l, s); err == nil {
			if t.Year() < 1990 || t.After(time.Now().Add(48*time.Hour)) {
				return nil
			}
			return &t
		}
	}
	return nil
}

// findAll returns the nodes under n (n included) that match, in document
// order.
func findAll(n *html.Node, match func(*html.Node) bool) []*html.Node {
	var out []*html.Node
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode && match(n) {
			out = append(out, n)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return out
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Namespace == "" && strings.EqualFold(a.Key, key) {
			return a.Val
		}
	}
	return ""
}

// textOf is the text under n.
func textOf(n *html.Node) string {
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return b.String()
}

// blockText is the text under n with a line break after each block
// element, skipping scripts, styles and forms.
func blockText(n *html.Node) string { return blockTextOf(n, false) }

// blockTextOf is blockText. Elements are known by their tag name, not
// only their atom: go-trafilatura's content tree holds elements it made
// (a <li>, a <p>) with the name alone. With trimmed, the text pieces are
// trimmed ones, as in that tree, which drops the space between a word and
// the link or the code that follows it: a space goes back between two
// pieces that meet letter to letter (or after a sentence's punctuation),
// but not before a superscript or a subscript ("m²").
func blockTextOf(n *html.Node, trimmed bool) string {
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		a := n.DataAtom
		if a == 0 && n.Type == html.ElementNode {
			a = atom.Lookup([]byte(n.Data))
		}
		switch n.Type {
		case html.TextNode:
			if trimmed && b.Len() > 0 && n.Data != "" && !isSupSub(n.Parent) {
				last, _ := utf8.DecodeLastRuneInString(b.String())
				first, _ := utf8.DecodeRuneInString(n.Data)
				if isAlnum(first) && (isAlnum(last) || strings.ContainsRune(".,;:!?)]»”", last)) {
					b.WriteByte(' ')
				}
			}
			b.WriteString(n.Data)
			return
		case html.ElementNode:
			switch a {
			case atom.Script, atom.Style, atom.Noscript, atom.Form, atom.Button, atom.Iframe, atom.Svg:
				return
			case atom.Br:
				b.WriteByte('\n')
				return
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
		if n.Type == html.ElementNode {
			switch a {
			case atom.P, atom.Div, atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6, atom.Li, atom.Blockquote, atom.Pre, atom.Tr, atom.Figcaption, atom.Section, atom.Article:
				b.WriteByte('\n')
			case atom.Td, atom.Th:
				b.WriteByte(' ')
			}
		}
	}
	walk(n)
	return b.String()
}

// isSupSub reports whether n is a superscript or a subscript.
func isSupSub(n *html.Node) bool {
	return n != nil && n.Type == html.ElementNode && (n.Data == "sup" || n.Data == "sub")
}

func isAlnum(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }
