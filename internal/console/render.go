package console

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html/template"
	"io/fs"
	"math"
	"net/http"
	"net/url"
	"path"
	"strings"
	"time"

	"github.com/seedengine/seedengine"
)

// page is what every template gets.
type page struct {
	Title   string
	Nav     string // the active menu entry
	Key     *seedengine.APIKey
	CSRF    string
	Notice  string   // a success message
	Problem *problem // an error to show above the content
	Now     time.Time
	Version string
	QueueUI bool // River UI is mounted at /console/queue/
	Data    any
}

// notices are the success messages a page shows after a redirect, by the
// code the redirect's done parameter carries: the words are the
// console's, never the URL's, so a link cannot make a page say anything
// else. %s is the what parameter, shown only when it is an id.
var notices = map[string]string{
	"promoted":    "Promoted %s.",
	"suspended":   "Suspended %s.",
	"reactivated": "Reactivated %s.",
	"archived":    "Archived %s.",
	"saved":       "Saved %s.",
	"accepted":    "Accepted the proposed contract of %s.",
	"retried":     "Job %s queued again.",
	"queued":      "Queued.",
}

// noticeQuery is the query that makes a page show notice code done about
// what (a seed or job id).
func noticeQuery(done, what string) string {
	if _, ok := notices[done]; !ok {
		panic("console: no notice " + done)
	}
	q := url.Values{"done": {done}}
	if what != "" {
		q.Set("what", what)
	}
	return q.Encode()
}

// noticeOf is the notice a page's query asks for; "" for an unknown code
// or a what that is not an id of the forms the console names.
func noticeOf(q url.Values) string {
	text, ok := notices[q.Get("done")]
	if !ok {
		return ""
	}
	if !strings.Contains(text, "%s") {
		return text
	}
	what := q.Get("what")
	if what == "" || len(what) > 400 || strings.Trim(what, "abcdefghijklmnopqrstuvwxyz0123456789.:-_") != "" {
		return ""
	}
	return fmt.Sprintf(text, what)
}

// can reports whether the signed-in key has scope.
func (p page) Can(scope string) bool {
	return p.Key != nil && p.Key.Scope.Allows(seedengine.Scope(scope))
}

var funcs = template.FuncMap{
	"time":    fmtTime,
	"timeptr": fmtTimePtr,
	"ago": func(now time.Time, t any) string {
		switch v := t.(type) {
		case time.Time:
			return ago(now, v)
		case *time.Time:
			if v != nil {
				return ago(now, *v)
			}
		}
		return ""
	},
	"esc": pathEscape,
	// query builds a query string; it is url.Values-encoded, so it goes
	// into an href as it is (a plain string there would be escaped as one
	// value: "status%3ddraft").
	"query": func(kv ...string) template.URL {
		q := url.Values{}
		for i := 0; i+1 < len(kv); i += 2 {
			if kv[i+1] != "" {
				q.Set(kv[i], kv[i+1])
			}
		}
		return template.URL(q.Encode())
	},
	"pct": func(f float64) string { return fmt.Sprintf("%.0f%%", math.Round(f*100)) },
	"pctnum": func(f float64) int {
		return int(math.Round(math.Max(0, math.Min(1, f)) * 100))
	},
	"conf": func(f float64) string { return fmt.Sprintf("%.2f", f) },
	// pace prints a read interval in seconds the way a person says it.
	"pace": func(sec float64) string {
		return (time.Duration(sec) * time.Second).Round(time.Second).String()
	},
	"pretty": prettyJSON,
	"lower":  strings.ToLower,
	"upper":  strings.ToUpper,
	"add":    func(a, b int) int { return a + b },
	"host": func(raw string) string {
		if u, err := url.Parse(raw); err == nil && u.Host != "" {
			return u.Host
		}
		return raw
	},
	"short": func(s string, n int) string { return seedengine.Truncate(s, n) },
	"dict3": func(v, e map[string]string, form string) map[string]any {
		return map[string]any{"V": v, "E": e, "Form": form}
	},
	"authorities": func() []string { return options.Authorities },
	"fields":      func() []string { return []string{"country", "category", "date"} },
	"external": func(raw string) template.URL {
		// Only http(s) links leave the console; anything else is inert.
		if u, err := url.Parse(raw); err == nil && (u.Scheme == "http" || u.Scheme == "https") {
			return template.URL(u.String())
		}
		return "#"
	},
}

func prettyJSON(v any) string {
	var b []byte
	switch x := v.(type) {
	case json.RawMessage:
		var buf bytes.Buffer
		if json.Indent(&buf, x, "", "  ") == nil {
			return buf.String()
		}
		return string(x)
	default:
		b, _ = json.MarshalIndent(v, "", "  ")
	}
	return string(b)
}

// parseTemplates builds one template set per page: the layout with the
// page's own blocks.
func parseTemplates() map[string]*template.Template {
	base := template.Must(template.New("layout.html").Funcs(funcs).ParseFS(templateFS, "templates/layout.html", "templates/parts.html"))
	names, err := fs.Glob(templateFS, "templates/*.html")
	if err != nil {
		panic(err)
	}
	out := map[string]*template.Template{}
	for _, n := range names {
		name := path.Base(n)
		if name == "layout.html" || name == "parts.html" {
			continue
		}
		t := template.Must(base.Clone())
		template.Must(t.ParseFS(templateFS, n))
		out[strings.TrimSuffix(name, ".html")] = t
	}
	return out
}

// render writes a page. A nil s renders the signed-out layout.
func (c *Console) render(w http.ResponseWriter, r *http.Request, status int, name string, p page) {
	s := sessFrom(r.Context())
	if s != nil {
		p.Key, p.CSRF = s.key, s.CSRF
	}
	p.Now = c.cfg.Now().UTC()
	p.Version = c.cfg.Version
	p.QueueUI = c.deps.QueueUI != nil
	t := c.pages[name]
	if t == nil {
		http.Error(w, "no such page", http.StatusInternalServerError)
		return
	}
	var buf bytes.Buffer
	tmpl := "layout.html"
	if strings.HasSuffix(name, "_fragment") {
		tmpl = "fragment"
	}
	if err := t.ExecuteTemplate(&buf, tmpl, p); err != nil {
		c.cfg.Logger.Error("console template failed", "event", "console_template_error", "page", name, "error", err)
		http.Error(w, "the page could not be shown", http.StatusInternalServerError)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

// renderError shows a message on the error page.
func (c *Console) renderError(w http.ResponseWriter, r *http.Request, s *sess, status int, msg string) {
	if s != nil && sessFrom(r.Context()) == nil {
		r = r.WithContext(withSess(r.Context(), s))
	}
	c.render(w, r, status, "error", page{Title: http.StatusText(status), Problem: &problem{Status: status, Detail: msg}})
}

// renderProblem shows an API problem with the status it came with.
func (c *Console) renderProblem(w http.ResponseWriter, r *http.Request, p *problem) {
	status := p.Status
	if status < 400 || status > 599 {
		status = http.StatusBadGateway
	}
	c.render(w, r, status, "error", page{Title: http.StatusText(status), Problem: p})
}

func (c *Console) handleNotFound(w http.ResponseWriter, r *http.Request) {
	s, _ := c.findSession(r)
	c.renderError(w, r, s, http.StatusNotFound, "There is no such page in the console.")
}
