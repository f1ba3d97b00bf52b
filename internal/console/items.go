package console

import (
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/seedengine/seedengine"
)

// itemData is an item's page: the item, where its page is, and its
// article, read as text. The article's text is a publisher's: it is cut
// into paragraphs and each is escaped like any other string
// (html/template); it is never rendered as markup, and the page's HTML is
// never shown.
type itemData struct {
	Item seedengine.Item
	// Page is where the item's page is; nil when it has none (its seed
	// does not fetch pages) or PageErr says it could not be read.
	Page    *seedengine.Page
	PageErr string
	// Article is the page's article; nil when it has none yet, or
	// ArticleErr says it could not be read.
	Article    *seedengine.Article
	ArticleErr string
	// Paragraphs are the article's text split on its blank lines.
	Paragraphs []string
	// Methods are the article's fields with the method that gave each,
	// by field name.
	Methods []methodRow
	// NotArticle says in words why the page is not an article.
	NotArticle string
	// Lang is the article's language when it is a plain ISO 639 code, for
	// the text's lang attribute.
	Lang string
	// DupItem is the item of the article this one copies (DuplicateOf),
	// 0 when it could not be found.
	DupItem int64
}

// methodRow is one field of an article and the method that gave it.
type methodRow struct{ Field, Method string }

// notArticles put the reasons a page is not an article in words.
var notArticles = map[string]string{
	"not_article_type":              "a video or section page",
	"too_short":                     "too short to be an article",
	"no_text":                       "no text was found in it",
	seedengine.NotArticleHTML:       "not HTML (a PDF, an image, a feed)",
	seedengine.NotArticleUnreadable: "unreadable: its WARC record could not be read back",
}

func notArticleWords(reason string) string {
	if w, ok := notArticles[reason]; ok {
		return w
	}
	return strings.ReplaceAll(reason, "_", " ")
}

var (
	blankLines = regexp.MustCompile(`\n\s*\n`)
	langCode   = regexp.MustCompile(`^[a-z]{2,3}$`)
)

// paragraphs splits an article's text on its blank lines.
func paragraphs(text string) []string {
	text = strings.ReplaceAll(text, "\r\n", "\n")
	var out []string
	for _, p := range blankLines.Split(text, -1) {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// handleItem shows one harvested item: the item, its page's state and its
// article as text.
func (c *Console) handleItem(w http.ResponseWriter, r *http.Request) {
	s := sessFrom(r.Context())
	raw := r.PathValue("id")
	id, err := strconv.ParseInt(raw, 10, 64)
	if err != nil || id < 1 || strconv.FormatInt(id, 10) != raw {
		c.renderError(w, r, s, http.StatusNotFound, "There is no such item.")
		return
	}
	// The item list from just before the id: its first item is the one
	// asked for, or the next one when there is no such item.
	var items struct {
		Items []seedengine.Item `json:"items"`
	}
	if p := c.get(r, "/api/v1/items?limit=1&since="+strconv.FormatInt(id-1, 10), &items); p != nil {
		c.renderProblem(w, r, p)
		return
	}
	if len(items.Items) == 0 || items.Items[0].ID != id {
		c.renderError(w, r, s, http.StatusNotFound, "There is no item "+strconv.FormatInt(id, 10)+".")
		return
	}
	d := itemData{Item: items.Items[0]}
	base := "/api/v1/items/" + strconv.FormatInt(id, 10)

	var pg seedengine.Page
	switch p := c.get(r, base+"/page", &pg); {
	case p == nil:
		d.Page = &pg
	case p.Status != http.StatusNotFound:
		d.PageErr = p.Detail
	}

	var a seedengine.Article
	switch p := c.get(r, base+"/article", &a); {
	case p == nil:
		d.Article = &a
		d.Paragraphs = paragraphs(a.Text)
		for f, m := range a.Methods {
			d.Methods = append(d.Methods, methodRow{f, m})
		}
		slices.SortFunc(d.Methods, func(x, y methodRow) int { return strings.Compare(x.Field, y.Field) })
		if a.NotArticle != "" {
			d.NotArticle = notArticleWords(a.NotArticle)
		}
		if langCode.MatchString(a.Language) {
			d.Lang = a.Language
		}
		if a.DuplicateOf > 0 {
			var orig struct {
				Articles []seedengine.Article `json:"articles"`
			}
			if c.get(r, "/api/v1/articles?limit=1&not_articles=true&since="+strconv.FormatInt(a.DuplicateOf-1, 10), &orig) == nil &&
				len(orig.Articles) > 0 && orig.Articles[0].ID == a.DuplicateOf {
				d.DupItem = orig.Articles[0].ItemID
			}
		}
	case p.Status != http.StatusNotFound:
		d.ArticleErr = p.Detail
	}

	title := "Item " + strconv.FormatInt(id, 10)
	switch {
	case d.Article != nil && d.Article.Title != "":
		title = d.Article.Title
	case d.Item.Title != "":
		title = d.Item.Title
	}
	c.render(w, r, http.StatusOK, "item", page{Title: seedengine.Truncate(title, 200), Nav: "seeds", Data: d})
}
