package console

import (
	"bytes"
	"mime"
	"net/http"
	"strconv"
	"strings"
)

// backLink is the way back from River UI's pages to the console: a link
// first in its page's body, styled by a stylesheet of the console's own
// (no inline code, so the queue's policy keeps its hashes). The head also
// gets queue.js, which mends two things in River
// UI's page (goober's blocked styles, a button's name) before River UI's
// scripts run.
const (
	backLinkHTML  = `<a class="console-back" href="/console/">← Back to the console</a>`
	backLinkStyle = `<link rel="stylesheet" href="/console/static/queue.css">` +
		`<script src="/console/static/queue.js"></script>`
)

// withBackLink serves River UI with the way back added to its HTML page
// (every path of it but its API and assets answers that one page). Other
// answers pass through untouched, streamed as River UI writes them.
func withBackLink(ui http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rest := strings.TrimPrefix(r.URL.Path, queuePrefix)
		if r.Method != http.MethodGet || strings.HasPrefix(rest, "api/") || strings.HasPrefix(rest, "assets/") {
			ui.ServeHTTP(w, r)
			return
		}
		r = r.Clone(r.Context())
		r.Header.Del("Accept-Encoding") // the page is rewritten as text
		rec := &recorder{header: http.Header{}}
		ui.ServeHTTP(rec, r)
		body := rec.buf.Bytes()
		mt, _, _ := mime.ParseMediaType(rec.header.Get("Content-Type"))
		if (rec.status == 0 || rec.status == http.StatusOK) && mt == "text/html" {
			body = insertBackLink(body)
			rec.header.Set("Content-Length", strconv.Itoa(len(body)))
		}
		for k, v := range rec.header {
			w.Header()[k] = v
		}
		if rec.status != 0 {
			w.WriteHeader(rec.status)
		}
		_, _ = w.Write(body)
	})
}

// insertBackLink puts the stylesheet before </head> and the link right
// after the <body> tag; a page without them is left as it is.
func insertBackLink(page []byte) []byte {
	lower := bytes.ToLower(page)
	head := bytes.Index(lower, []byte("</head>"))
	body := bytes.Index(lower, []byte("<body"))
	if head < 0 || body < head {
		return page
	}
	end := bytes.IndexByte(lower[body:], '>')
	if end < 0 {
		return page
	}
	at := body + end + 1
	var b bytes.Buffer
	b.Grow(len(page) + len(backLinkHTML) + len(backLinkStyle))
	b.Write(page[:head])
	b.WriteString(backLinkStyle)
	b.Write(page[head:at])
	b.WriteString(backLinkHTML)
	b.Write(page[at:])
	return b.Bytes()
}
