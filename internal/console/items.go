package console

import (
	"mime"
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
	// Frame says the stored page is of a type the item page shows in its
	// sandboxed frame (archivedType); any stored page can be downloaded.
	Frame bool
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

// itemID reads the {id} of an item route: a positive id written plainly.
func itemID(r *http.Request) (int64, bool) {
	raw := r.PathValue("id")
	id, err := strconv.ParseInt(raw, 10, 64)
	return id, err == nil && id >= 1 && strconv.FormatInt(id, 10) == raw
}

// handleItem shows one harvested item: the item, its page's state and its
// article as text.
func (c *Console) handleItem(w http.ResponseWriter, r *http.Request) {
	s := sessFrom(r.Context())
	id, ok := itemID(r)
	if !ok {
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
		_, d.Frame = archivedType(pg.MIME)
		d.Frame = d.Frame && pg.State == seedengine.PageStored
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
	c.render(w, r, http.StatusOK, "item", page{Title: seedengine.Truncate(title, 200), Nav: "items", Data: d})
}

// The archived page. The item page shows an item's stored page in an
// <iframe sandbox> (no allow-scripts, no allow-same-origin) whose src is
// /console/items/{id}/page: the page's bytes as the API reads them back
// from the WARC record (GET /api/v1/items/{id}/page/content), passed
// through with the headers the API gives outside bytes, and two more
// that let the console's own pages, and only them, frame it:
//
//   - Content-Security-Policy: the API's sandbox policy, word for word
//     (sandbox; default-src 'none'; …: an origin of its own, no script,
//     nothing loaded, not even an image), with frame-ancestors 'self'
//     added, where every other console response says 'none';
//   - X-Frame-Options: SAMEORIGIN where the console says DENY (for a
//     browser that knows no frame-ancestors);
//   - X-Content-Type-Options: nosniff, Referrer-Policy: no-referrer,
//     Cache-Control: no-store, Cross-Origin-Resource-Policy: same-origin.
//
// Only HTML, XHTML and plain text are shown inline; any other type, and
// every page with ?download=1, is an attachment.

// archivedType is the Content-Type the console serves a stored page
// with, rebuilt from its media type and charset alone, and whether the
// frame may show it.
func archivedType(ct string) (string, bool) {
	mt, params, err := mime.ParseMediaType(ct)
	if err != nil {
		return "application/octet-stream", false
	}
	switch mt {
	case "text/html", "application/xhtml+xml", "text/plain":
	default:
		if out := mime.FormatMediaType(mt, nil); out != "" {
			return out, false
		}
		return "application/octet-stream", false
	}
	var keep map[string]string
	if cs := params["charset"]; cs != "" {
		keep = map[string]string{"charset": cs}
	}
	out := mime.FormatMediaType(mt, keep)
	if out == "" {
		out = mt
	}
	return out, true
}

// archivedExt is the extension of a downloaded page's file name.
func archivedExt(ct string) string {
	mt, _, _ := mime.ParseMediaType(ct)
	switch mt {
	case "text/html":
		return ".html"
	case "application/xhtml+xml":
		return ".xhtml"
	case "text/plain":
		return ".txt"
	case "application/pdf":
		return ".pdf"
	}
	return ".bin"
}

// handleItemPageContent serves an item's stored page for the item page's
// sandboxed frame, or as a download with ?download=1.
func (c *Console) handleItemPageContent(w http.ResponseWriter, r *http.Request) {
	s := sessFrom(r.Context())
	id, ok := itemID(r)
	if !ok {
		c.renderError(w, r, s, http.StatusNotFound, "There is no such item.")
		return
	}
	res := c.call(r, http.MethodGet, "/api/v1/items/"+strconv.FormatInt(id, 10)+"/page/content", "", nil)
	if p := res.Error(); p != nil {
		c.renderProblem(w, r, p)
		return
	}
	// The API's policy for outside bytes, as it sent it: a console that
	// got anything weaker (no sandbox, a default-src other than 'none')
	// serves nothing.
	policy := res.Header.Get("Content-Security-Policy")
	if len(res.Header.Values("Content-Security-Policy")) != 1 || !sandboxed(policy) || res.Header.Get("X-Content-Type-Options") != "nosniff" {
		c.renderError(w, r, s, http.StatusBadGateway, "The API did not send the archived page with its protective headers; the console will not show it.")
		return
	}
	ct, inline := archivedType(res.Header.Get("Content-Type"))
	h := w.Header()
	h.Set("Content-Security-Policy", policy+"; frame-ancestors 'self'")
	h.Set("X-Frame-Options", "SAMEORIGIN")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cross-Origin-Resource-Policy", "same-origin")
	h.Set("Cache-Control", "no-store")
	h.Set("Content-Type", ct)
	if !inline || r.URL.Query().Get("download") != "" {
		h.Set("Content-Disposition", `attachment; filename="item-`+strconv.FormatInt(id, 10)+archivedExt(ct)+`"`)
	} else {
		h.Set("Content-Disposition", "inline")
	}
	h.Set("Content-Length", strconv.Itoa(len(res.Body)))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(res.Body)
}

// sandboxed reports whether a Content-Security-Policy has a sandbox
// directive with no token (every restriction) and default-src 'none'.
func sandboxed(policy string) bool {
	var sandbox, none bool
	for d := range strings.SplitSeq(policy, ";") {
		f := strings.Fields(strings.ToLower(d))
		switch {
		case len(f) == 0:
		case f[0] == "sandbox":
			sandbox = len(f) == 1
		case f[0] == "default-src":
			none = len(f) == 2 && f[1] == "'none'"
		case f[0] == "frame-ancestors":
			return false // the console says who may frame it
		}
	}
	return sandbox && none
}
