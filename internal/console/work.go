package console

import (
	"bufio"
	"encoding/csv"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/seedengine/seedengine"
)

// workData is the "Start work" page: the four forms, with what was typed
// when one came back with an error.
type workData struct {
	Form   string // the form that was sent
	Values map[string]string
	Errors map[string]string // field → message, from the API's problem
}

func (c *Console) handleWork(w http.ResponseWriter, r *http.Request) {
	c.render(w, r, http.StatusOK, "work", page{Title: "Start work", Nav: "work",
		Data: workData{Values: map[string]string{"country": r.URL.Query().Get("country"), "category": r.URL.Query().Get("category"),
			"date": r.URL.Query().Get("date")}}})
}

// maxUploadURLs bounds a research upload as the API bounds a batch.
const maxUploadURLs = 10000

// handleWorkSubmit queues one kind of work through the API and leads to
// its batch's page.
func (c *Console) handleWorkSubmit(w http.ResponseWriter, r *http.Request) {
	kind := r.PathValue("kind")
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

// workError shows the forms again with what was typed and the API's
// field errors beside their fields.
func (c *Console) workError(w http.ResponseWriter, r *http.Request, kind string, values map[string]string, p *problem) {
	d := workData{Form: kind, Values: values, Errors: map[string]string{}}
	for _, e := range p.Errors {
		field := strings.TrimPrefix(e.Location, "body.")
		if i := strings.IndexAny(field, ".["); i >= 0 {
			field = field[:i]
		}
		if field == "chunkSize" {
			field = "chunk_size"
		}
		if _, ok := d.Errors[field]; !ok {
			d.Errors[field] = e.Message
		}
	}
	status := p.Status
	if status < 400 {
		status = http.StatusUnprocessableEntity
	}
	c.render(w, r, status, "work", page{Title: "Start work", Nav: "work", Problem: p, Data: d})
}

// lines splits a textarea into its non-empty lines (commas and spaces
// separate too, for lists pasted from spreadsheets).
func lines(s string) []string {
	out := []string{}
	for _, l := range strings.FieldsFunc(s, func(r rune) bool { return r == '\n' || r == '\r' || r == ',' || r == ' ' || r == '\t' }) {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
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
