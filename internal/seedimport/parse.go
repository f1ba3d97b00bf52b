package seedimport

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/csv"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/html/charset"

	"github.com/seedengine/seedengine"
)

// Formats a list may come in.
const (
	FormatOPML = "opml"
	FormatCSV  = "csv"
	FormatURLs = "urls"
)

// MaxRows bounds the entries of one import: a list past it is refused
// whole (split it), so an accepted import is never cut short.
const MaxRows = 50000

// Row is one entry of an imported list: a feed or sitemap URL, with what
// the list says of it. Line is where it is (1-based; for OPML the line of
// its outline). Empty fields are the request's defaults or guesses.
type Row struct {
	Line        int    `json:"line"`
	URL         string `json:"url"`
	Site        string `json:"site,omitempty"`  // the publisher's site (OPML htmlUrl, a CSV site column)
	Title       string `json:"title,omitempty"` // the list's name for the feed
	Sitemap     bool   `json:"sitemap,omitempty"`
	ContentType string `json:"content_type,omitempty"`
	Country     string `json:"country,omitempty"`
	Category    string `json:"category,omitempty"`
	Authority   string `json:"authority,omitempty"` // as the list says (our own OPML); informative only
}

// Columns maps the fields of a Row to a CSV file's header names. Empty
// fields are found by name (see DefaultColumns); URL must end up set.
type Columns struct {
	URL, Site, Title, Country, Category, ContentType, FetchType string
}

// columnNames are the header names each field is recognised by, in order
// of preference, compared in lower case with spaces and hyphens as
// underscores. "url" is the entry only when no feed column is named: in
// Media Cloud's source lists it is the home page (map it with
// columns=site=url,url=…).
var columnNames = map[string][]string{
	"url":          {"entry_url", "feed_url", "xmlurl", "rss_url", "feed", "rss", "url"},
	"site":         {"site", "site_url", "htmlurl", "homepage", "website", "domain"},
	"title":        {"title", "source_name", "name", "text"},
	"country":      {"country", "country_code"},
	"category":     {"category"},
	"content_type": {"content_type"},
	"fetch_type":   {"fetch_type"},
}

// ParseColumns reads a mapping written as field=header pairs separated by
// commas ("url=Feed URL,title=Name"). EINVALID naming "columns".
func ParseColumns(s string) (Columns, error) {
	var c Columns
	if strings.TrimSpace(s) == "" {
		return c, nil
	}
	for _, part := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(part, "=")
		k, v = strings.ToLower(strings.TrimSpace(k)), strings.TrimSpace(v)
		if !ok || v == "" {
			return c, seedengine.FieldErrorf("columns", "columns must be field=header pairs separated by commas (url=Feed URL,title=Name)")
		}
		f := c.field(k)
		if f == nil {
			return c, seedengine.FieldErrorf("columns", "columns names an unknown field; the fields are url, site, title, country, category, content_type and fetch_type")
		}
		*f = v
	}
	return c, nil
}

func (c *Columns) field(name string) *string {
	switch name {
	case "url":
		return &c.URL
	case "site":
		return &c.Site
	case "title":
		return &c.Title
	case "country":
		return &c.Country
	case "category":
		return &c.Category
	case "content_type":
		return &c.ContentType
	case "fetch_type":
		return &c.FetchType
	}
	return nil
}

// bodyErr is a problem of the list itself: its field is the line,
// line[N], which the API places in the body.
func bodyErr(line int, format string, args ...any) error {
	return seedengine.FieldErrorf("line["+strconv.Itoa(line)+"]", "line %d: %s", line, fmt.Sprintf(format, args...))
}

// IsBodyError reports whether err is about the list's content (its field
// a line) rather than a parameter.
func IsBodyError(err error) bool {
	return strings.HasPrefix(seedengine.ErrorField(err), "line[")
}

// Parse reads a whole list. A list that cannot be read (malformed XML or
// CSV, no entry at all, more than MaxRows, text that is not UTF-8) is
// EINVALID naming "body" and the line; nothing of it is taken.
func Parse(format string, body []byte, cols Columns) ([]Row, error) {
	var rows []Row
	var err error
	switch format {
	case FormatOPML:
		rows, err = parseOPML(body)
	case FormatCSV:
		rows, err = parseCSV(body, cols)
	case FormatURLs:
		rows, err = parseURLs(body)
	default:
		return nil, seedengine.FieldErrorf("format", "format must be opml, csv or urls")
	}
	if err != nil {
		return nil, err
	}
	if len(rows) == 0 {
		return nil, bodyErr(1, "the list names no feed")
	}
	return rows, nil
}

// checkText refuses bytes that are not text: invalid UTF-8 or NUL, with
// the line they are on.
func checkText(body []byte) error {
	line := 1
	for i := 0; i < len(body); {
		r, n := utf8.DecodeRune(body[i:])
		switch {
		case r == utf8.RuneError && n <= 1:
			return bodyErr(line, "the list is not UTF-8 text")
		case r == 0:
			return bodyErr(line, "the list holds a NUL byte")
		case r == '\n':
			line++
		}
		i += n
	}
	return nil
}

func addRow(rows []Row, r Row) ([]Row, error) {
	if len(rows) == MaxRows {
		return nil, bodyErr(r.Line, "the list names more than %d entries: split it", MaxRows)
	}
	return append(rows, r), nil
}

// parseURLs reads one URL per line; blank lines and lines starting with
// # are skipped.
func parseURLs(body []byte) ([]Row, error) {
	if err := checkText(bytes.TrimPrefix(body, []byte("\uFEFF"))); err != nil {
		return nil, err
	}
	var rows []Row
	sc := bufio.NewScanner(bytes.NewReader(bytes.TrimPrefix(body, []byte("\uFEFF"))))
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	line := 0
	for sc.Scan() {
		line++
		s := strings.TrimSpace(sc.Text())
		if s == "" || strings.HasPrefix(s, "#") {
			continue
		}
		var err error
		if rows, err = addRow(rows, Row{Line: line, URL: s, Sitemap: looksSitemap(s)}); err != nil {
			return nil, err
		}
	}
	if err := sc.Err(); err != nil {
		return nil, bodyErr(line+1, "a line is longer than 1 MiB")
	}
	return rows, nil
}

// parseCSV reads an RFC 4180 file with a header row; cols maps its
// columns, the rest are found by name.
func parseCSV(body []byte, cols Columns) ([]Row, error) {
	body = bytes.TrimPrefix(body, []byte("\uFEFF"))
	if err := checkText(body); err != nil {
		return nil, err
	}
	cr := csv.NewReader(bytes.NewReader(body))
	cr.ReuseRecord = true
	header, err := cr.Read()
	if err != nil {
		return nil, csvErr(err)
	}
	idx, err := mapColumns(header, cols)
	if err != nil {
		return nil, err
	}
	var rows []Row
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			return rows, nil
		}
		if err != nil {
			return nil, csvErr(err)
		}
		line, _ := cr.FieldPos(0)
		cell := func(f string) string {
			if i, ok := idx[f]; ok {
				return plainCell(strings.TrimSpace(rec[i]))
			}
			return ""
		}
		r := Row{Line: line, URL: cell("url"), Site: cell("site"), Title: cell("title"),
			Country: cell("country"), Category: cell("category"), ContentType: cell("content_type")}
		if r.URL == "" && r.Site == "" && r.Title == "" {
			continue // an empty row
		}
		// The entry is read as a sitemap or as a feed whatever the type
		// says; an html or api entry (this service's own export) is read
		// as a feed, and refused as not_a_feed when it is not one.
		switch ft := seedengine.FetchType(strings.ToLower(cell("fetch_type"))); {
		case ft == seedengine.FetchNewsSitemap || ft == seedengine.FetchSitemap:
			r.Sitemap = true
		case ft == "":
			r.Sitemap = looksSitemap(r.URL)
		case !ft.Valid():
			return nil, bodyErr(line, "fetch_type must be rss, atom, json_feed, news_sitemap, sitemap, html or api")
		}
		if r.Site != "" && !strings.Contains(r.Site, "://") {
			r.Site = "https://" + r.Site // a bare domain (our export's domain column)
		}
		if rows, err = addRow(rows, r); err != nil {
			return nil, err
		}
	}
}

// csvErr names the line of a CSV reading error.
func csvErr(err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return bodyErr(pe.Line, "%s", pe.Err.Error())
	}
	if err == io.EOF {
		return bodyErr(1, "the CSV file is empty: it needs a header row")
	}
	return bodyErr(1, "%s", err.Error())
}

// plainCell undoes the apostrophe a CSV export puts before a cell a
// spreadsheet would take for a formula.
func plainCell(v string) string {
	if len(v) > 1 && v[0] == '\'' && strings.ContainsRune("=+-@\t\r", rune(v[1])) {
		return v[1:]
	}
	return v
}

func headerKey(h string) string {
	h = strings.ToLower(strings.TrimSpace(h))
	return strings.NewReplacer(" ", "_", "-", "_").Replace(h)
}

// mapColumns finds each field's column: the mapping's header, else the
// first recognised name.
func mapColumns(header []string, cols Columns) (map[string]int, error) {
	pos := map[string]int{}
	exact := map[string]int{}
	for i, h := range header {
		if _, dup := pos[headerKey(h)]; !dup {
			pos[headerKey(h)] = i
		}
		exact[strings.TrimSpace(h)] = i
	}
	idx := map[string]int{}
	for field := range columnNames {
		want := *cols.field(field)
		if want == "" {
			continue
		}
		i, ok := exact[want]
		if !ok {
			i, ok = pos[headerKey(want)]
		}
		if !ok {
			return nil, seedengine.FieldErrorf("columns", "columns maps %s to a column the header row does not have", field)
		}
		idx[field] = i
	}
	taken := map[int]bool{}
	for _, i := range idx {
		taken[i] = true
	}
	for _, field := range []string{"url", "site", "title", "country", "category", "content_type", "fetch_type"} {
		if _, ok := idx[field]; ok {
			continue
		}
		for _, name := range columnNames[field] {
			if i, ok := pos[name]; ok && !taken[i] {
				idx[field], taken[i] = i, true
				break
			}
		}
	}
	if _, ok := idx["url"]; !ok {
		return nil, seedengine.FieldErrorf("columns", "no column of the header row names the feed URL (entry_url, feed_url, xmlUrl, url, …): map one with columns=url=<header>")
	}
	return idx, nil
}

// looksSitemap tells a sitemap from a feed by its URL, for lists that do
// not say: a file whose name has "sitemap" in it.
func looksSitemap(raw string) bool {
	u, err := url.Parse(raw)
	if err != nil {
		return false
	}
	p := strings.ToLower(u.Path)
	return strings.Contains(p[strings.LastIndexByte(p, '/')+1:], "sitemap")
}

// parseOPML reads OPML (1.0 or 2.0): every outline with an xmlUrl is a
// feed; a type="link" outline whose url is a sitemap (this service's
// export puts news sitemaps so) is a sitemap. A category attribute
// "/{country}/{category}[/{authority}]" (this service's export) gives the
// row its country and category; "/content_type/{type}" its content type.
// Attribute names are matched in any case (xmlURL, xmlurl).
func parseOPML(body []byte) ([]Row, error) {
	dec := xml.NewDecoder(bytes.NewReader(body))
	dec.CharsetReader = charset.NewReaderLabel
	dec.Strict = true
	var rows []Row
	depth, root := 0, false
	for {
		line, _ := dec.InputPos()
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			var se *xml.SyntaxError
			if errors.As(err, &se) {
				return nil, bodyErr(se.Line, "the OPML is not well-formed XML: %s", se.Msg)
			}
			return nil, bodyErr(line, "the OPML cannot be read: %s", err.Error())
		}
		switch t := tok.(type) {
		case xml.StartElement:
			depth++
			if depth == 1 {
				if !strings.EqualFold(t.Name.Local, "opml") {
					return nil, bodyErr(line, "the root element is <%s>, not <opml>", seedengine.Truncate(t.Name.Local, 40))
				}
				root = true
				continue
			}
			if t.Name.Local != "outline" {
				continue
			}
			r, ok := outlineRow(t, line)
			if !ok {
				continue
			}
			if rows, err = addRow(rows, r); err != nil {
				return nil, err
			}
		case xml.EndElement:
			depth--
		case xml.Directive:
			// A DOCTYPE could declare entities: encoding/xml expands
			// none, but a list has no need of one either.
			return nil, bodyErr(line, "the OPML holds a <!DOCTYPE> or another directive")
		}
	}
	if !root {
		return nil, bodyErr(1, "the body is not OPML: no <opml> element")
	}
	return rows, nil
}

// outlineRow reads one outline; ok is false for a group or a link that is
// not a sitemap.
func outlineRow(t xml.StartElement, line int) (Row, bool) {
	attr := func(name string) string {
		for _, a := range t.Attr {
			if strings.EqualFold(a.Name.Local, name) {
				return strings.TrimSpace(a.Value)
			}
		}
		return ""
	}
	r := Row{Line: line, URL: attr("xmlUrl"), Site: attr("htmlUrl"), Title: cmp.Or(attr("title"), attr("text"))}
	if r.URL == "" {
		link := attr("url")
		if link == "" || !(looksSitemap(link) || strings.Contains(attr("category"), "/news_sitemap")) {
			return Row{}, false
		}
		r.URL, r.Sitemap = link, true
	}
	for _, c := range strings.Split(attr("category"), ",") {
		parts := strings.Split(strings.Trim(strings.TrimSpace(c), "/"), "/")
		switch {
		case len(parts) == 2 && parts[0] == "content_type":
			r.ContentType = parts[1]
		case len(parts) >= 2 && seedengine.ValidateCountry(seedengine.NormalizeCountry(parts[0])) == nil && seedengine.ValidateCategory(parts[1]) == nil:
			r.Country, r.Category = seedengine.NormalizeCountry(parts[0]), parts[1]
			if len(parts) >= 3 && parts[2] != "news_sitemap" {
				r.Authority = parts[2]
			}
		}
	}
	return r, true
}
