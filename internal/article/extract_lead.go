package article

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// A news page's lead (the paragraph in larger type under the headline)
// often stands outside the container that holds the rest of the
// article, and the generic extractor leaves it out. It is put back in
// two ways, each only when the body lacks it:
//
//   - the page's own summary (its description: JSON-LD, microdata,
//     og:description, <meta name=description>) when the page also shows
//     it as text: a summary that is only metadata is not part of the
//     article as the reader sees it;
//   - else a paragraph the page shows between its headline (the first
//     <h1>) and the body's first paragraph: a sentence of some length,
//     not a caption, not mostly links, and about what the article is
//     about (most of its longer words are in the headline or the body),
//     which tells a lead from a notice ("This article was translated
//     automatically"), a prompt or a teaser for another article.

// leadMinWords is the fewest words of a lead paragraph found between
// headline and body; leadMaxBlocks the most text blocks that may stand
// between them for one to be looked for (a page whose body starts far
// from its first <h1> has that <h1> elsewhere: in a logo, a sidebar).
const (
	leadMinWords   = 15
	leadMaxBlocks  = 12
	leadMinRelated = 0.4
)

// withSummary puts the page's summary before the body when the page shows
// it (as text, not only in its metadata) and the body lacks it.
func withSummary(body, summary string, doc *html.Node) string {
	summary = strings.TrimSpace(strings.TrimSuffix(strings.TrimSuffix(tidyText(summary), "…"), "..."))
	if body == "" || countWords(summary) < 5 || strings.Contains(summary, "\n") {
		return body
	}
	sq := squash(summary)
	if strings.Contains(squash(body), sq) || trigramCoverage(summary, body) >= 0.5 {
		return body
	}
	if !strings.Contains(visibleText(doc), sq) {
		return body
	}
	return summary + "\n\n" + body
}

// withLeadParagraph puts before the body the lead paragraph the page
// shows between its headline and the body's first paragraph, when the
// body lacks it.
func withLeadParagraph(body, title string, doc *html.Node) string {
	first := ""
	for p := range strings.SplitSeq(body, "\n\n") {
		if countWords(p) >= 5 {
			first = squash(p)
			break
		}
	}
	if first == "" {
		return body
	}
	key := first[:min(len(first), 60)]
	var between []textBlock
	h1, found := false, false
	for b := range textBlocks(doc) {
		if strings.Contains(squash(b.text), key) {
			found = true
			break
		}
		switch {
		case !h1:
			h1 = b.n.DataAtom == atom.H1
		case len(between) == leadMaxBlocks:
			return body
		default:
			between = append(between, b)
		}
	}
	if !found {
		return body
	}
	sbody := squash(body)
	for _, b := range between {
		if b.inFigure || b.linkBytes*2 > len(b.text) || countWords(b.text) < leadMinWords || !endsSentence(b.text) ||
			strings.Contains(sbody, squash(b.text)) || relatedness(b.text, title+" "+body) < leadMinRelated {
			continue
		}
		return b.text + "\n\n" + body
	}
	return body
}

// textBlock is a block element that holds text of its own (not only in
// nested blocks).
type textBlock struct {
	n         *html.Node
	text      string // its own text, spaces collapsed
	inFigure  bool   // in a <figure> or a <figcaption>: a caption
	linkBytes int    // bytes of its text in links
}

// blockAtoms are the elements that start a block of text.
var blockAtoms = map[atom.Atom]bool{
	atom.P: true, atom.Div: true, atom.H1: true, atom.H2: true, atom.H3: true, atom.H4: true, atom.H5: true, atom.H6: true,
	atom.Li: true, atom.Blockquote: true, atom.Figcaption: true, atom.Figure: true, atom.Section: true, atom.Article: true,
	atom.Header: true, atom.Footer: true, atom.Aside: true, atom.Nav: true, atom.Ul: true, atom.Ol: true, atom.Table: true,
	atom.Tr: true, atom.Td: true, atom.Th: true, atom.Main: true, atom.Form: true, atom.Pre: true, atom.Dd: true, atom.Dt: true,
}

// unseen are the elements whose content a reader does not see as text.
func unseen(a atom.Atom) bool {
	switch a {
	case atom.Head, atom.Script, atom.Style, atom.Noscript, atom.Template, atom.Svg, atom.Select, atom.Button, atom.Iframe, atom.Title:
		return true
	}
	return false
}

// textBlocks yields the page's text blocks in document order.
func textBlocks(doc *html.Node) func(yield func(textBlock) bool) {
	return func(yield func(textBlock) bool) {
		var walk func(n *html.Node, fig bool) bool
		walk = func(n *html.Node, fig bool) bool {
			if n.Type == html.ElementNode {
				if unseen(n.DataAtom) {
					return true
				}
				fig = fig || n.DataAtom == atom.Figure || n.DataAtom == atom.Figcaption
				if blockAtoms[n.DataAtom] {
					var b strings.Builder
					links := 0
					var own func(k *html.Node, inLink bool)
					own = func(k *html.Node, inLink bool) {
						for c := k.FirstChild; c != nil; c = c.NextSibling {
							switch {
							case c.Type == html.TextNode:
								b.WriteString(c.Data)
								if inLink {
									links += len(strings.TrimSpace(c.Data))
								}
							case c.Type == html.ElementNode && !blockAtoms[c.DataAtom] && !unseen(c.DataAtom):
								own(c, inLink || c.DataAtom == atom.A)
							}
						}
					}
					own(n, false)
					if t := strings.Join(strings.Fields(b.String()), " "); t != "" {
						if !yield(textBlock{n: n, text: t, inFigure: fig, linkBytes: links}) {
							return false
						}
					}
				}
			}
			for c := n.FirstChild; c != nil; c = c.NextSibling {
				if !walk(c, fig) {
					return false
				}
			}
			return true
		}
		walk(doc, false)
	}
}

// visibleText is the squashed text of the page as a reader sees it: no
// head, scripts, styles, templates or noscript fallbacks.
func visibleText(doc *html.Node) string {
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		switch n.Type {
		case html.TextNode:
			b.WriteString(n.Data)
			b.WriteByte(' ')
			return
		case html.ElementNode:
			if unseen(n.DataAtom) {
				return
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	return squash(b.String())
}

// words are the runs of letters and digits of s, lowercased.
func words(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

// relatedness is the share of s's words of four letters or more that
// occur in ref.
func relatedness(s, ref string) float64 {
	in := map[string]bool{}
	for _, w := range words(ref) {
		in[w] = true
	}
	n, hit := 0, 0
	for _, w := range words(s) {
		if utf8.RuneCountInString(w) < 4 {
			continue
		}
		n++
		if in[w] {
			hit++
		}
	}
	if n == 0 {
		return 0
	}
	return float64(hit) / float64(n)
}

// trigramCoverage is the share of a's runs of three words found in b; 1
// when a has none.
func trigramCoverage(a, b string) float64 {
	trigrams := func(s string) map[string]bool {
		w := words(s)
		out := make(map[string]bool, len(w))
		for i := 0; i+3 <= len(w); i++ {
			out[w[i]+" "+w[i+1]+" "+w[i+2]] = true
		}
		return out
	}
	ta, tb := trigrams(a), trigrams(b)
	if len(ta) == 0 {
		return 1
	}
	n := 0
	for k := range ta {
		if tb[k] {
			n++
		}
	}
	return float64(n) / float64(len(ta))
}

// plainText is s with markup a page escaped into a metadata field (a
// description that is "<p>…</p>", an "&nbsp;" escaped twice) read as
// text: entities decoded, tags dropped, spaces collapsed.
func plainText(s string) string {
	if !strings.ContainsAny(s, "<&") {
		return s
	}
	nodes, err := html.ParseFragment(strings.NewReader(s), &html.Node{Type: html.ElementNode, Data: "div", DataAtom: atom.Div})
	if err != nil {
		return s
	}
	var b strings.Builder
	for _, n := range nodes {
		b.WriteString(blockText(n))
	}
	return strings.Join(strings.Fields(b.String()), " ")
}

// dropRubyText removes ruby annotations (<rt>, <rp>): the reading printed
// over a Japanese or Chinese character is not part of the text, and left
// in it doubles every annotated word ("子こども").
func dropRubyText(n *html.Node) {
	for c := n.FirstChild; c != nil; {
		next := c.NextSibling
		if c.Type == html.ElementNode && (c.DataAtom == atom.Rt || c.DataAtom == atom.Rp) {
			n.RemoveChild(c)
		} else {
			dropRubyText(c)
		}
		c = next
	}
}
