package console

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/seedengine/seedengine"
)

// workData is the "Start work" page: the four forms, with what was typed
// and the API's errors in words beside their fields when one came back
// with an error. Only the form that was sent shows them.
type workData struct {
	Form   string            // the form that was sent; "" for none
	Values map[string]string // what was typed, or the partition the link named
	Errors map[string]string // field → message in words, of Form's fields
	// Problem is the API's answer to Form, Other its errors that belong
	// to none of Form's fields.
	Problem *problem
	Other   []fieldError
}

// V is the values form shows: those typed into it when it was sent,
// those the link named when none was sent, none for the other forms.
func (d workData) V(form string) map[string]string {
	if d.Form != "" && d.Form != form {
		return nil
	}
	return d.Values
}

// E is the field errors form shows: none unless it is the one sent.
func (d workData) E(form string) map[string]string {
	if d.Form != form {
		return nil
	}
	return d.Errors
}

// Sent reports whether form is the one that came back with an error.
func (d workData) Sent(form string) bool { return d.Form == form && d.Problem != nil }

// workForms are the fields of each form of the page, in their order.
var workForms = map[string][]string{
	"research":    {"country", "category", "date", "urls"},
	"contract":    {"country", "category", "date", "authority"},
	"liveness":    {"country", "domains"},
	"orchestrate": {"country", "category", "date"},
	"import":      {"country", "category", "columns", "file"},
}

func (c *Console) handleWork(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	c.render(w, r, http.StatusOK, "work", page{Title: "Start work", Nav: "work",
		Data: workData{Values: map[string]string{"country": q.Get("country"), "category": q.Get("category"), "date": q.Get("date")}}})
}

// maxUploadURLs bounds a research upload as the API bounds a batch.
const maxUploadURLs = 10000

// handleWorkSubmit queues one kind of work through the API and leads to
// its batch's page.
func (c *Console) handleWorkSubmit(w http.ResponseWriter, r *http.Request) {
	kind := r.PathValue("kind")
	if kind == "import" {
		c.handleImportSubmit(w, r)
		return
	}
	values := map[string]string{}
	for _, k := range []string{"country", "category", "date", "authority", "urls", "domains", "force", "chunk_size"} {
		values[k] = r.FormValue(k)
	}
	var (
		path string
		body map[string]any
	)
	switch kind {
	case "research":
		urls := lines(values["urls"])
		if f, _, err := r.FormFile("file"); err == nil {
			fromFile, err := readURLFile(f)
			_ = f.Close()
			if err != nil {
				c.workError(w, r, kind, values, &problem{Status: http.StatusUnprocessableEntity, Detail: err.Error()})
				return
			}
			urls = append(urls, fromFile...)
		}
		path = "/api/v1/queues/research"
		body = map[string]any{"country": values["country"], "category": values["category"], "urls": urls}
		if values["date"] != "" {
			body["date"] = values["date"]
		}
	case "liveness":
		path = "/api/v1/queues/liveness"
		body = map[string]any{"country": values["country"], "domains": lines(values["domains"])}
	case "contract":
		path = "/api/v1/queues/contract"
		body = map[string]any{"country": values["country"], "category": values["category"], "date": values["date"]}
		if values["authority"] != "" {
			body["authority"] = values["authority"]
		}
	case "orchestrate":
		path = "/api/v1/seeds/orchestrate"
		body = map[string]any{"country": values["country"], "category": values["category"], "date": values["date"],
			"force": values["force"] == "on"}
	default:
		c.renderError(w, r, sessFrom(r.Context()), http.StatusNotFound, "No such kind of work.")
		return
	}
	if n, err := strconv.Atoi(values["chunk_size"]); err == nil && n > 0 && kind != "orchestrate" {
		body["chunkSize"] = n
	}
	var out struct {
		ID      string `json:"id"`
		BatchID string `json:"batch_id"`
	}
	if p := c.send(r, http.MethodPost, path, "application/json", body, &out); p != nil {
		c.workError(w, r, kind, values, p)
		return
	}
	id := out.ID
	if id == "" {
		id = out.BatchID
	}
	http.Redirect(w, r, "/console/batches/"+pathEscape(id)+"?"+noticeQuery("queued", ""), http.StatusSeeOther)
}

// workError shows the forms again, the one sent with what was typed, a
// summary of what the API refused at its top and each error in words
// beside its field.
func (c *Console) workError(w http.ResponseWriter, r *http.Request, kind string, values map[string]string, p *problem) {
	d := workData{Form: kind, Values: values, Errors: map[string]string{}, Problem: p}
	for _, e := range p.Words() {
		switch {
		case slices.Contains(workForms[kind], e.Field):
			if _, ok := d.Errors[e.Field]; !ok {
				d.Errors[e.Field] = e.Message
			}
		default:
			d.Other = append(d.Other, e)
		}
	}
	status := p.Status
	if status < 400 {
		status = http.StatusUnprocessableEntity
	}
	c.render(w, r, status, "work", page{Title: "Start work", Nav: "work", Data: d})
}

// maxImportBytes is the largest list the import form sends, the API's
// limit for a document.
const maxImportBytes = 32 << 20

// importTypes are the media types a list is sent as, by its file's
// extension; any other file is sent as a URL list.
var importTypes = map[string]string{".opml": "text/x-opml", ".xml": "text/x-opml", ".csv": "text/csv"}

// handleImportSubmit sends the uploaded feed list to the import API, as
// the media type its file's extension names, and leads to the import's
// batch page; a list the API refuses comes back with the line it names.
func (c *Console) handleImportSubmit(w http.ResponseWriter, r *http.Request) {
	values := map[string]string{}
	for _, k := range []string{"country", "category", "columns"} {
		values[k] = strings.TrimSpace(r.FormValue(k))
	}
	f, hdr, err := r.FormFile("file")
	if err != nil {
		c.workError(w, r, "import", values, &problem{Status: http.StatusUnprocessableEntity, Detail: "Choose the list's file: OPML, CSV or one URL per line."})
		return
	}
	data, err := io.ReadAll(io.LimitReader(f, maxImportBytes+1))
	_ = f.Close()
	if err != nil || len(data) > maxImportBytes {
		c.workError(w, r, "import", values, &problem{Status: http.StatusRequestEntityTooLarge, Detail: "the file could not be read whole, or is larger than 32 MiB"})
		return
	}
	ct := "text/plain"
	if t, ok := importTypes[strings.ToLower(path.Ext(hdr.Filename))]; ok {
		ct = t
	}
	q := url.Values{}
	for k, v := range values {
		if v != "" {
			q.Set(k, v)
		}
	}
	res := c.call(r, http.MethodPost, "/api/v1/seeds/import?"+q.Encode(), ct, data)
	if p := res.Error(); p != nil {
		c.workError(w, r, "import", values, p)
		return
	}
	var out struct {
		ID string `json:"id"`
	}
	_ = json.Unmarshal(res.Body, &out)
	http.Redirect(w, r, "/console/batches/"+pathEscape(out.ID)+"?"+noticeQuery("queued", ""), http.StatusSeeOther)
}

// lines splits a textarea into its items: one per non-empty line, so a
// line with a space in it ("not a url") is one item that research
// rejects, not three. A line pasted from a spreadsheet row brings its
// cells separated by tabs: its first cell is the item.
func lines(s string) []string {
	out := []string{}
	for l := range strings.Lines(s) {
		l, _, _ = strings.Cut(l, "\t")
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
}

// fieldError is one of a problem's errors, in words: the form field it
// is about (country, chunk_size, fetch.schedule), its label, and what
// to do.
type fieldError struct {
	Field, Label, Message string
}

// fieldLabels are the labels of the fields the console's forms have.
var fieldLabels = map[string]string{
	"country": "Country", "category": "Category", "date": "Date", "urls": "URLs", "domains": "Domains",
	"authority": "Authority", "chunk_size": "Chunk size", "patch": "Patch", "reason": "Reason",
	"columns": "Columns", "line": "The list",
}

// Words are the problem's errors in words, each with its field.
func (p *problem) Words() []fieldError {
	out := make([]fieldError, 0, len(p.Errors))
	for _, e := range p.Errors {
		field := fieldOf(e.Location)
		label := fieldLabels[field]
		if label == "" {
			label = field
		}
		out = append(out, fieldError{Field: field, Label: label, Message: messageWords(field, e.Message)})
	}
	return out
}

// fieldOf is the form field an error's location names: "body.urls[3]"
// is urls, "body.chunkSize" chunk_size, "body.fetch.schedule"
// fetch.schedule.
func fieldOf(location string) string {
	field := location
	for _, in := range []string{"body.", "query.", "path."} {
		if f, ok := strings.CutPrefix(location, in); ok {
			field = f
			break
		}
	}
	if i := strings.IndexByte(field, '['); i >= 0 {
		field = field[:i]
	}
	switch field {
	case "chunkSize":
		return "chunk_size"
	case "body":
		return ""
	}
	return field
}

var (
	lengthRE = regexp.MustCompile(`^expected (array )?length ([<>]=) (\d+)$`)
	numberRE = regexp.MustCompile(`^expected number ([<>]=) (\d+(?:\.\d+)?)$`)
	oneOfRE  = regexp.MustCompile(`^expected value to be one of "(.*)"$`)
)

// categoryPattern is the API's rule for a category.
const categoryPattern = "^[a-z0-9_]{1,40}$"

// messageWords puts a validation message of the API in words a person
// acts on: the common rules (a required field, a category's pattern, a
// date, a URL, lengths, a country code, a choice) get the console's own
// sentence; any other keeps the API's, as a sentence.
func messageWords(field, msg string) string {
	switch {
	case strings.HasPrefix(msg, "expected required property"):
		return "Fill this in."
	case strings.Contains(msg, "match pattern "+categoryPattern):
		return "Use lower-case letters, digits and _ (at most 40)."
	case strings.HasSuffix(msg, "RFC 3339 date"):
		return "Write a date as YYYY-MM-DD, such as 2026-01-28."
	case strings.HasSuffix(msg, "RFC 3339 date-time"):
		return "Write a time as 2026-01-28T09:30:00Z."
	case strings.HasSuffix(msg, "RFC 3986 uri"), strings.HasSuffix(msg, "uri"), strings.HasSuffix(msg, "url"):
		return "Write a whole URL, beginning with https:// or http://."
	case field == "country" && (strings.Contains(msg, "ISO 3166") || lengthRE.MatchString(msg)):
		return "Use a two-letter country code such as sg, or intl."
	}
	if m := lengthRE.FindStringSubmatch(msg); m != nil {
		what := "characters"
		if m[1] != "" {
			what = map[string]string{"urls": "URLs", "domains": "domains"}[field]
			if what == "" {
				what = "items"
			}
		}
		if m[2] == ">=" {
			if m[3] == "1" && m[1] != "" {
				return "Give at least one " + strings.TrimSuffix(what, "s") + "."
			}
			return "Give at least " + m[3] + " " + what + "."
		}
		return "Give at most " + m[3] + " " + what + "."
	}
	if m := numberRE.FindStringSubmatch(msg); m != nil {
		if m[1] == ">=" {
			return "Use a number of at least " + m[2] + "."
		}
		return "Use a number of at most " + m[2] + "."
	}
	if m := oneOfRE.FindStringSubmatch(msg); m != nil {
		choices := strings.Split(m[1], ", ")
		if field == "authority" {
			for i, a := range choices {
				choices[i] = seedengine.Authority(a).Label() + " (" + a + ")"
			}
		}
		return "Choose one of: " + strings.Join(choices, ", ") + "."
	}
	return sentence(msg)
}

// sentence is msg with a capital first letter and a full stop.
func sentence(msg string) string {
	msg = strings.TrimSpace(msg)
	if msg == "" {
		return msg
	}
	r, n := utf8.DecodeRuneInString(msg)
	msg = string(unicode.ToUpper(r)) + msg[n:]
	if !strings.HasSuffix(msg, ".") {
		msg += "."
	}
	return msg
}

// readURLFile reads an uploaded list of URLs: one per line, or the first
// column of a CSV file.
func readURLFile(f io.Reader) ([]string, error) {
	br := bufio.NewReader(io.LimitReader(f, maxFormBytes))
	head, _ := br.Peek(4096)
	var out []string
	if strings.Contains(string(head), ",") {
		cr := csv.NewReader(br)
		cr.FieldsPerRecord = -1
		for {
			rec, err := cr.Read()
			if err == io.EOF {
				break
			}
			if err != nil {
				return nil, seedengine.Errorf(seedengine.EINVALID, "the file is not a list of URLs: %v", err)
			}
			if len(rec) > 0 {
				if v := strings.TrimSpace(rec[0]); v != "" && (strings.Contains(v, ".") || strings.Contains(v, "://")) {
					out = append(out, v)
				}
			}
			if len(out) > maxUploadURLs {
				break
			}
		}
		return out, nil
	}
	sc := bufio.NewScanner(br)
	sc.Buffer(make([]byte, 64<<10), 64<<10)
	for sc.Scan() && len(out) <= maxUploadURLs {
		if v := strings.TrimSpace(sc.Text()); v != "" {
			out = append(out, v)
		}
	}
	return out, sc.Err()
}
