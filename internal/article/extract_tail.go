package article

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/html"
)

// tailMaxWords: a block of fewer words that ends no sentence, after an
// article's last sentence, is taken for what pages put after an article
// ("More on this", "Share this article!", a credit, a category).
const tailMaxWords = 8

// trimTail removes from go-trafilatura's content tree the top-level
// blocks at its end that are short and end no sentence: the headings of
// related-article lists, prompts, credits and categories that go along
// with an article into the extraction. It stops at a list, a table or
// code, which end articles in their own right (a ranked list, a
// command).
func trimTail(root *html.Node) {
	for c := root.LastChild; c != nil; {
		prev := c.PrevSibling
		switch c.Type {
		case html.TextNode:
			if t := strings.TrimSpace(c.Data); t != "" && (countWords(t) >= tailMaxWords || endsSentence(t)) {
				return
			}
		case html.ElementNode:
			switch c.Data {
			case "ul", "ol", "dl", "table", "pre", "code", "li", "tr":
				return
			}
			if t := strings.TrimSpace(blockText(c)); countWords(t) >= tailMaxWords || endsSentence(t) {
				return
			}
		}
		root.RemoveChild(c)
		c = prev
	}
}

// endsSentence reports whether s ends in sentence-final punctuation,
// closing quotes and brackets aside.
func endsSentence(s string) bool {
	s = strings.TrimRightFunc(s, func(r rune) bool {
		return unicode.IsSpace(r) || strings.ContainsRune("\"'”’»«)]", r)
	})
	r, _ := utf8.DecodeLastRuneInString(s)
	return strings.ContainsRune(".!?…。！？", r)
}
