package console

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html/template"
	"io/fs"
	"math"
	"net/http"
	"net/netip"
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
	Notice  *notice  // a success message; nil for none
	Problem *problem // an error to show above the content
	Now     time.Time
	Version string
	QueueUI bool // River UI is mounted at /console/queue/
	// Error marks a page that is only its Problem: the problem is the
	// page's content, under a heading of its own.
	Error bool
	Data  any
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
	// The review actions and bulk actions of the seeds pages (seeds.go).
	"rejected":     "Rejected %s.",
	"reopened":     "Reopened %s: it is a draft again.",
	"chose":        "Chose another entry for %s.",
	"bulk_promote": "Promoted %s seeds.",
	"bulk_reject":  "Rejected %s seeds.",
	"bulk_suspend": "Suspended %s seeds.",
	// Page fetching (harvest.pages), one seed's and many's.
	"pages_on":       "Pages on for %s: each new item's page will be fetched and kept as WARC.",
	"pages_off":      "Pages off for %s: new items' pages will not be fetched.",
	"bulk_pages_on":  "Turned pages on for %s seeds.",
	"bulk_pages_off": "Turned pages off for %s seeds.",
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

// notice is a success message in words, split around the id it names
// (What) so that a seed's id can be a link to the seed (Href): after
// "Promoted X." the console has gone on to the next draft, and X is one
// Tab and Enter away.
type notice struct {
	Before, What, After string
	Href                string
}

// String is the notice as one line of text.
func (n *notice) String() string {
	if n == nil {
		return ""
	}
	return n.Before + n.What + n.After
}

// seedNotices are the notices whose what is a seed's id.
var seedNotices = map[string]bool{"promoted": true, "suspended": true, "reactivated": true, "archived": true,
	"saved": true, "accepted": true, "rejected": true, "reopened": true, "chose": true, "pages_on": true, "pages_off": true}

// noticeOf is the notice a page's query asks for; nil for an unknown code
// or a what that is not an id of the forms the console names.
func noticeOf(q url.Values) *notice {
	code := q.Get("done")
	text, ok := notices[code]
	if !ok {
		return nil
	}
	before, after, named := strings.Cut(text, "%s")
	if !named {
		return &notice{Before: text}
	}
	what := q.Get("what")
	if what == "" || len(what) > 400 || strings.Trim(what, "abcdefghijklmnopqrstuvwxyz0123456789.:-_@") != "" {
		return nil
	}
	n := &notice{Before: before, What: what, After: after}
	if seedNotices[code] {
		n.Href = "/console/seeds/" + pathEscape(what)
	}
	return n
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
	// filterKeys are the seeds list's filter parameters, in order
	// (seedFilter.Values), for the bulk form's hidden fields.
	"filterKeys":  func() []string { return filterKeys },
	"workForms":   func() map[string][]string { return workForms },
	"fieldLabel":  func(f string) string { return fieldLabels[f] },
	"authorities": func() []string { return options.Authorities },
	// authority is an authority's label ("government"), given its code
	// (gov) or a domain_id (gov:sg:mom.gov.sg); authorityCode is the code.
	"authority":     func(v any) string { return authorityOf(v).Label() },
	"authorityCode": func(v any) string { return string(authorityOf(v)) },
	// external is href of a URL that linkable allows, "#" for any other:
	// templates show those as text (extlink does both).
	"external": func(raw string) template.URL {
		if linkable(raw) {
			return template.URL(raw)
		}
		return "#"
	},
	"linkable": linkable,
	"extlink":  extlink,
	"wbr":      wbr,
	"batchid":  batchID,
	// dict makes a map of key, value pairs, to call a template with more
	// than one value.
	"dict": func(kv ...any) map[string]any {
		m := make(map[string]any, len(kv)/2)
		for i := 0; i+1 < len(kv); i += 2 {
			k, _ := kv[i].(string)
			m[k] = kv[i+1]
		}
		return m
	},
	"rejection": rejectionWords,
}

// batchID is the part of a batch id that tells batches apart: its last
// 8 hex digits. A UUIDv7 begins with its time, alike for batches made
// together; it ends with random bits.
func batchID(id string) string {
	id = strings.ReplaceAll(id, "-", "")
	if len(id) > 8 {
		return id[len(id)-8:]
	}
	return id
}

// authorityOf reads an authority from its code or from a domain_id.
func authorityOf(v any) seedengine.Authority {
	var s string
	switch x := v.(type) {
	case seedengine.Authority:
		s = string(x)
	case string:
		s = x
	case fmt.Stringer:
		s = x.String()
	}
	if i := strings.IndexByte(s, ':'); i >= 0 {
		s = s[:i]
	}
	return seedengine.Authority(strings.ToLower(s))
}

// linkable reports whether the console may offer raw as a link: an http
// or https URL to a public host name. Anything else, whatever a site or a
// contract run recorded, is shown as text: a person clicking it would
// reach, from their own browser, what the fetcher was kept from (SSRF's
// targets) or nothing at all. So no IP address in any form (127.1,
// 2130706433, [::1], 169.254.169.254: a seed's source is a name), no
// single-label host (localhost, intranet), no name under a suffix that is
// private by convention (*.internal such as metadata.google.internal,
// *.local, *.localhost, *.home.arpa, …), no user info, and only ASCII
// host names (registrable domains are stored as A-labels).
func linkable(raw string) bool {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Opaque != "" || u.User != nil {
		return false
	}
	host := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
	if host == "" || strings.ContainsAny(host, "[]:%") {
		return false
	}
	if _, err := netip.ParseAddr(host); err == nil {
		return false
	}
	labels := strings.Split(host, ".")
	if len(labels) < 2 {
		return false
	}
	for _, l := range labels {
		if l == "" || len(l) > 63 || strings.Trim(l, "abcdefghijklmnopqrstuvwxyz0123456789-_") != "" {
			return false
		}
	}
	// The URL Standard reads a host whose last label is a number (decimal,
	// 0x hex or octal) as an IPv4 address.
	last := labels[len(labels)-1]
	if strings.Trim(last, "0123456789") == "" || strings.HasPrefix(last, "0x") {
		return false
	}
	for _, suffix := range privateSuffixes {
		if host == suffix || strings.HasSuffix(host, "."+suffix) {
			return false
		}
	}
	return true
}

// privateSuffixes are names that resolve, if at all, inside a network:
// special-use (RFC 6761, 6762, 8375), ICANN's private-use .internal, and
// the ones networks commonly use unofficially.
var privateSuffixes = []string{
	"localhost", "local", "internal", "home.arpa", "arpa", "localdomain", "lan", "intranet", "corp", "home", "private",
	"invalid", "test", "onion",
}

// wbr is s, escaped, with a line-break opportunity (<wbr>) after each
// / . ? & = and before each #, so a long URL wraps at its seams instead
// of anywhere; never inside the // after the scheme.
func wbr(s string) template.HTML {
	var b strings.Builder
	b.Grow(len(s) + len(s)/4)
	for i, r := range s {
		if r == '#' && i > 0 {
			b.WriteString("<wbr>")
		}
		b.WriteString(template.HTMLEscapeString(string(r)))
		switch r {
		case '/':
			if i+1 < len(s) && s[i+1] == '/' {
				continue
			}
			if i > 0 && s[i-1] == '/' && strings.HasSuffix(s[:i-1], ":") {
				continue // after "https://" the host follows whole
			}
			b.WriteString("<wbr>")
		case '.', '?', '&', '=':
			b.WriteString("<wbr>")
		}
	}
	return template.HTML(b.String())
}

// extlink is a link to raw that opens in a new tab, with text (raw
// itself when none) broken at its seams (wbr), when linkable allows it;
// else the text alone, in a span that says why it is no link.
func extlink(raw string, text ...string) template.HTML {
	shown := raw
	if len(text) > 0 && text[0] != "" {
		shown = text[0]
	}
	if !linkable(raw) {
		return template.HTML(`<span class="nolink" title="not a link: not a public http(s) address">`) + wbr(shown) + "</span>"
	}
	u, _ := url.Parse(raw) // linkable parsed it
	return template.HTML(`<a href="`+template.HTMLEscapeString(u.String())+`" rel="noopener noreferrer nofollow" target="_blank">`) +
		wbr(shown) + "</a>"
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
	c.render(w, r, status, "error", page{Title: errorTitle(status), Error: true, Problem: &problem{Status: status, Detail: msg}})
}

// errorTitle is the heading of an error page, in words.
func errorTitle(status int) string {
	switch status {
	case http.StatusBadRequest:
		return "That request is not right"
	case http.StatusUnauthorized:
		return "Signed out"
	case http.StatusForbidden:
		return "Not allowed"
	case http.StatusNotFound:
		return "Not found"
	case http.StatusConflict:
		return "Conflict"
	case http.StatusUnprocessableEntity:
		return "Not accepted"
	case http.StatusTooManyRequests:
		return "Too many requests"
	case http.StatusServiceUnavailable:
		return "Not available"
	}
	if status >= 500 {
		return "Something went wrong"
	}
	return http.StatusText(status)
}

// renderProblem shows an API problem with the status it came with.
func (c *Console) renderProblem(w http.ResponseWriter, r *http.Request, p *problem) {
	status := p.Status
	if status < 400 || status > 599 {
		status = http.StatusBadGateway
	}
	c.render(w, r, status, "error", page{Title: errorTitle(status), Error: true, Problem: p})
}

func (c *Console) handleNotFound(w http.ResponseWriter, r *http.Request) {
	s, _ := c.findSession(r)
	c.renderError(w, r, s, http.StatusNotFound, "There is no such page in the console.")
}
