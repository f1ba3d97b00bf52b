// Package article turns one archived web page into an article: its body
// text with paragraph breaks and what the page states about itself (title,
// authors, dates with their time zones, language, canonical URL, site,
// section, description, lead image), each field with the method that gave
// it.
//
// The generic part, finding the body among a page's navigation and
// boilerplate, is github.com/markusmobius/go-trafilatura (with its
// go-readability and go-domdistiller fallbacks and go-htmldate for dates).
// What a news page states about itself comes first where it is whole:
// schema.org JSON-LD (NewsArticle and its kin, articleBody, the @graph
// form), microdata (itemprop), then OpenGraph and meta fields. A
// structured body is taken unless it is a teaser: shorter than the body
// the generic extractor finds and contained in it. A date the page states
// in structured data beats one guessed from its text.
//
// Around the generic extraction: a lead the body lacks is put back (the
// page's description where the page shows it, else a paragraph between
// the headline and the body that is about the article); short lines
// after the article's last sentence ("More on this", credits, prompts)
// are dropped; ruby annotations are no text. Each rule was kept for what
// it did on the DEV half of the evaluation set (eval_test.go), the TEST
// half left to check it.
package article

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"
	"unicode"
	"unicode/utf8"

	trafilatura "github.com/markusmobius/go-trafilatura"
	"golang.org/x/net/html"
	"golang.org/x/net/html/charset"
	"golang.org/x/text/unicode/norm"

	"github.com/seedengine/seedengine"
)

// Methods name where a field came from.
const (
	MethodJSONLD    = "json_ld"   // schema.org JSON-LD
	MethodMicrodata = "microdata" // schema.org itemprop attributes
	MethodOpenGraph = "opengraph" // og: and article: properties
	MethodMeta      = "meta"      // <meta name=…>, <link rel=canonical>, <html lang>, <title>
	MethodGeneric   = "generic"   // go-trafilatura's extraction
	MethodURL       = "url"       // the URL the page was fetched from
	MethodText      = "text"      // computed from the body text
)

// Article is one page as an article (seedengine.ArticleFields): Methods
// maps each field's JSON name to the method that gave it; NotArticle, when
// set, says why the page is not an article (a section page, a video page,
// a paywall stub): NotArticleShort and the like.
type Article = seedengine.ArticleFields

// Reasons a page is not an article.
const (
	NotArticleEmpty = "no_text"          // no body text found at all
	NotArticleShort = "too_short"        // less than MinWords words and no article markup
	NotArticleType  = "not_article_type" // the page calls itself something else (video, section, profile)
)

// MinWords is the fewest words of body text a page without article markup
// needs to count as an article.
const MinWords = 80

// ErrNotHTML is returned for input that is not an HTML page.
var ErrNotHTML = errors.New("not an HTML page")

// Extract reads one HTML page, decoded from the charset contentType or
// the page declares (UTF-8 when neither does), and returns its article.
// pageURL, when not empty, is the URL the page was fetched from: relative
// links resolve against it and it is the article's URL.
func Extract(r io.Reader, contentType, pageURL string) (*Article, error) {
	raw, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	if !looksLikeHTML(raw) {
		return nil, ErrNotHTML
	}
	// Bytes that are valid UTF-8 are read as UTF-8 whatever the page
	// declares: text in a legacy charset with any letter beyond ASCII is
	// almost never valid UTF-8, while pages that were re-encoded and kept
	// their old declaration are common. Other bytes are read in the
	// charset declared (Content-Type, BOM, <meta>), else windows-1252.
	text := raw
	if !utf8.Valid(raw) {
		enc, _, _ := charset.DetermineEncoding(raw, contentType)
		if dec, err := enc.NewDecoder().Bytes(raw); err == nil {
			text = dec
		}
	}
	// Composed (NFC) text, as people type it and search for it: some
	// pages come decomposed (an "ü" as "u" and a combining diaeresis).
	text = norm.NFC.Bytes(text)
	doc, err := html.Parse(bytes.NewReader(text))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNotHTML, err)
	}
	var base *url.URL
	if pageURL != "" {
		if base, err = url.Parse(pageURL); err != nil || !base.IsAbs() {
			return nil, fmt.Errorf("page URL %q is not an absolute URL", pageURL)
		}
	}
	return fromDocument(doc, base), nil
}

// looksLikeHTML reports whether b starts (after white space, a BOM and
// comments) with markup and is text. A page may start with a style block
// or with the warnings its server printed ("<br />\n<b>Warning</b>").
func looksLikeHTML(b []byte) bool {
	b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))
	b = bytes.TrimLeftFunc(b, unicode.IsSpace)
	if len(b) == 0 || b[0] != '<' {
		return false
	}
	head := b[:min(len(b), 1024)]
	if bytes.IndexByte(head, 0) >= 0 {
		return false
	}
	low := bytes.ToLower(head)
	for _, tag := range []string{"<!doctype html", "<html", "<head", "<body", "<meta", "<title", "<div", "<p", "<article", "<!--", "<script", "<link", "<h1", "<section", "<main", "<header", "<table", "<span", "<a ", "<style", "<br", "<b>"} {
		if bytes.Contains(low, []byte(tag)) {
			return !bytes.HasPrefix(low, []byte("<?xml")) || bytes.Contains(low, []byte("<html"))
		}
	}
	return false
}

// fromDocument extracts the article of a parsed page.
func fromDocument(doc *html.Node, base *url.URL) *Article {
	a := &Article{Methods: map[string]string{}}
	if base != nil {
		a.URL = base.String()
	}
	// Ruby annotations (the reading over a CJK character) are no text.
	dropRubyText(doc)
	s := readStructured(doc, base)

	// The generic extractor rewrites the tree: it runs once the page's
	// own statements are read.
	opts := trafilatura.Options{EnableFallback: true, ExcludeComments: true, ExcludeTables: false,
		OriginalURL: base}
	var generic *trafilatura.ExtractResult
	if res, err := trafilatura.ExtractDocument(doc, opts); err == nil {
		generic = res
	}
	genericText := ""
	if generic != nil {
		// The content tree, not ContentText: its paragraphs stay apart.
		if generic.ContentNode != nil {
			trimTail(generic.ContentNode)
			genericText = tidyText(blockTextOf(generic.ContentNode, true))
		}
		if genericText == "" {
			genericText = tidyText(generic.ContentText)
		}
	}

	// The body: a structured one where whole, else the generic one.
	body, method := genericText, MethodGeneric
	if sb := tidyText(s.body.value); sb != "" && !isTeaser(sb, genericText) {
		body, method = sb, s.body.method
	}
	title := firstNonEmpty(s.title.value, generic)
	if title != "" {
		body = dropLeadingTitle(body, title)
	}
	// The lead, where the body lacks it: the page's summary as the page
	// shows it, else the paragraph between headline and body (the
	// extractor's tree is a copy: doc is the page as parsed).
	if lead := withSummary(body, s.description.value, doc); lead != body {
		body = lead
	} else {
		body = withLeadParagraph(body, title, doc)
	}
	if body != "" {
		a.Text = body
		a.Methods["text"] = method
		a.WordCount = countWords(body)
		a.Methods["word_count"] = MethodText
	}

	var gm trafilatura.Metadata
	if generic != nil {
		gm = generic.Metadata
	}
	set := func(field string, dst *string, candidates ...candidate) {
		for _, c := range candidates {
			if v := strings.TrimSpace(c.value); v != "" {
				*dst = v
				a.Methods[field] = c.method
				return
			}
		}
	}
	set("title", &a.Title, s.title, candidate{gm.Title, MethodGeneric})
	set("canonical_url", &a.CanonicalURL, s.canonical)
	set("site_name", &a.SiteName, s.siteName, candidate{gm.Sitename, MethodGeneric})
	set("section", &a.Section, s.section, candidate{strings.Join(gm.Categories, ", "), MethodGeneric})
	set("description", &a.Description, s.description, candidate{gm.Description, MethodGeneric})
	set("image_url", &a.ImageURL, s.image, candidate{resolve(base, gm.Image), MethodGeneric})
	set("language", &a.Language, s.language, candidate{primaryLanguage(gm.Language), MethodGeneric})
	if a.Language == "" && a.Text != "" {
		if l := detectLanguage(a.Text); l != "" {
			a.Language, a.Methods["language"] = l, MethodText
		}
	}

	if len(s.authors.value) > 0 {
		a.Authors, a.Methods["authors"] = s.authors.value, s.authors.method
	} else if names := splitAuthors(gm.Author); len(names) > 0 {
		a.Authors, a.Methods["authors"] = names, MethodGeneric
	}
	if s.published.value != nil {
		a.PublishedAt, a.Methods["published_at"] = s.published.value, s.published.method
	} else if !gm.Date.IsZero() {
		t := gm.Date
		a.PublishedAt, a.Methods["published_at"] = &t, MethodGeneric
	}
	if s.modified.value != nil {
		a.ModifiedAt, a.Methods["modified_at"] = s.modified.value, s.modified.method
	}

	switch {
	case a.Text == "":
		a.NotArticle = NotArticleEmpty
	case s.otherType != "" && !s.isArticle:
		a.NotArticle = NotArticleType
	case a.WordCount < MinWords && !s.isArticle:
		a.NotArticle = NotArticleShort
	}
	return a
}

// firstNonEmpty is the structured title, else the generic extractor's.
func firstNonEmpty(structured string, generic *trafilatura.ExtractResult) string {
	if structured != "" || generic == nil {
		return structured
	}
	return generic.Metadata.Title
}

// dropLeadingTitle removes a first paragraph that only repeats the title:
// the headline is the title field, not the body's first line.
func dropLeadingTitle(body, title string) string {
	first, rest, ok := strings.Cut(body, "\n\n")
	if ok && squash(first) != "" && squash(first) == squash(title) {
		return rest
	}
	return body
}

// isTeaser reports whether a structured body is not to be taken over the
// generic one: a teaser (shorter, and its words all found in it in
// order), or not clearly longer (by half) than what the page shows,
// which the generic extractor reads with the page's own paragraph breaks.
// The same text either way is the structured one: the page states it.
func isTeaser(structured, generic string) bool {
	if generic == "" {
		return false
	}
	sq, gq := squash(strings.TrimSuffix(strings.TrimSpace(structured), "…")), squash(generic)
	switch {
	case sq == gq:
		return false
	case len(sq) < len(gq) && strings.Contains(gq, sq):
		return true
	}
	return len(structured) < len(generic)*3/2
}

// squash lowercases s and keeps its letters and digits only, for comparing
// texts whatever their spacing and punctuation.
func squash(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(unicode.ToLower(r))
		}
	}
	return b.String()
}

// tidyText trims each line, collapses runs of spaces and keeps one blank
// line between paragraphs.
func tidyText(s string) string {
	if s == "" {
		return ""
	}
	var out []string
	for line := range strings.SplitSeq(strings.ReplaceAll(s, "\r\n", "\n"), "\n") {
		line = strings.Join(strings.Fields(line), " ")
		if line != "" {
			out = append(out, line)
		}
	}
	return strings.Join(out, "\n\n")
}

// countWords counts runs of letters or digits; a run of CJK ideographs or
// kana counts a word for each character, as those scripts write no spaces.
func countWords(s string) int {
	n, in := 0, false
	for _, r := range s {
		switch {
		case unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) || unicode.Is(unicode.Katakana, r):
			n++
			in = false
		case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '\'' || r == '’':
			if !in {
				n++
			}
			in = true
		default:
			in = false
		}
	}
	return n
}

// resolve makes ref absolute against base; it returns ref unchanged when
// it cannot.
func resolve(base *url.URL, ref string) string {
	ref = strings.TrimSpace(ref)
	if ref == "" || base == nil {
		return ref
	}
	u, err := base.Parse(ref)
	if err != nil {
		return ref
	}
	return u.String()
}

// primaryLanguage is the language subtag of a BCP 47 tag or a locale
// ("en-GB", "pt_BR"), lowercased; "" for anything else.
func primaryLanguage(tag string) string {
	tag = strings.TrimSpace(tag)
	if i := strings.IndexAny(tag, "-_"); i >= 0 {
		tag = tag[:i]
	}
	tag = strings.ToLower(tag)
	if len(tag) < 2 || len(tag) > 3 || !utf8.ValidString(tag) {
		return ""
	}
	for _, r := range tag {
		if r < 'a' || r > 'z' {
			return ""
		}
	}
	return tag
}
