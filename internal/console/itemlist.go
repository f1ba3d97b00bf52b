package console

import (
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/seedengine/seedengine"
)

// The items page: every harvested item, newest first, filtered as the
// API filters them, or the items of the articles a search finds.
//
// The API lists items (and articles) oldest first, by id after a cursor
// (since), and has no "before" cursor nor a newest-first order. So the
// console pages backwards itself, with windows of ids: the newest n items
// below an id B are the last n of the window [B-w, B), and one request
// (since=B-w-1) lists a window as long as it holds no more than a page of
// the API. The window starts a little above n ids wide and doubles while it
// holds fewer than n matches; one that holds more than an API page is
// halved back (a binary search) until it holds between n and an API page.
// Unfiltered, ids are dense and one request does; a filter that matches
// one item in 2^k costs about k requests, and the last page of a list
// about log2(B/n). The newest page starts below the highest id, found
// from a hint (the highest id this console has seen) with a request or
// two, and from nothing by galloping up and searching down (about
// 2·log2 of the highest id, once per process).

// itemsPerPage is how many rows the items page shows.
const itemsPerPage = 50

// itemsFilter is the items page's filter: the API's item filters and a
// search of the articles' text (q).
type itemsFilter struct {
	Country, Category, Date, SeedID, Q string
}

func readItemsFilter(q url.Values) itemsFilter {
	return itemsFilter{Country: strings.TrimSpace(q.Get("country")), Category: strings.TrimSpace(q.Get("category")),
		Date: strings.TrimSpace(q.Get("date")), SeedID: strings.TrimSpace(q.Get("seed_id")), Q: strings.TrimSpace(q.Get("q"))}
}

// values is the filter as query parameters, the empty ones left out;
// without q when items is set (the item routes take no q).
func (f itemsFilter) values(items bool) url.Values {
	v := url.Values{}
	for k, s := range map[string]string{"country": f.Country, "category": f.Category, "date": f.Date, "seed_id": f.SeedID, "q": f.Q} {
		if s != "" && (k != "q" || !items) {
			v.Set(k, s)
		}
	}
	return v
}

// URL is the filter as a query string for links in templates.
func (f itemsFilter) URL() template.URL { return template.URL(f.values(false).Encode()) }

// Cursor is the filter's query string with a paging cursor, before or
// after, for links in templates.
func (f itemsFilter) Cursor(name string, id int64) template.URL {
	v := f.values(false)
	v.Set(name, strconv.FormatInt(id, 10))
	return template.URL(v.Encode())
}

// Partition is the partition the filter names, when it names all three
// of its parts.
func (f itemsFilter) Partition() *seedengine.Partition {
	if f.Country == "" || f.Category == "" || f.Date == "" {
		return nil
	}
	return &seedengine.Partition{Country: seedengine.NormalizeCountry(f.Country), Category: f.Category, Date: f.Date}
}

// itemsData is the items page.
type itemsData struct {
	F     itemsFilter
	Items []seedengine.Item
	// Before is the page's own cursor (0 for the newest page); Newer and
	// Older the cursors of the pages around it (0: none).
	Before, After, Newer, Older int64
	// Search says the rows are the items of the articles q found.
	Search bool
	// Files are the files of the partition the filter names.
	Files *partitionFiles
}

// cursorLister is one of the API's lists that page oldest first by id
// after a cursor: list returns at most limit rows with ids above since.
type cursorLister[T any] struct {
	list  func(since int64, limit int) ([]T, *problem)
	id    func(T) int64
	limit int // the largest page to ask for
}

// newest returns the n rows with the highest ids below before, newest
// first, and whether there are older ones (see the top of this file).
func (l cursorLister[T]) newest(before int64, n int) ([]T, bool, *problem) {
	want := n + 1 // one more than shown tells whether there are older ones
	if l.limit <= want {
		panic("console: a window must hold more than a page")
	}
	// window lists [lo, before): complete unless it holds more rows than
	// one request gives.
	window := func(lo int64) ([]T, bool, *problem) {
		lim := int(min(int64(l.limit), before-lo))
		got, p := l.list(lo-1, lim)
		if p != nil {
			return nil, false, p
		}
		complete := len(got) < lim || l.id(got[len(got)-1]) >= before-1
		k := len(got)
		for k > 0 && l.id(got[k-1]) >= before {
			k--
		}
		return got[:k], complete, nil
	}
	finish := func(got []T) ([]T, bool, *problem) {
		more := len(got) > n
		if more {
			got = got[len(got)-n:]
		}
		out := slices.Clone(got)
		slices.Reverse(out)
		return out, more, nil
	}
	if before <= 1 {
		return nil, false, nil
	}
	tooFew := before // [tooFew, before) holds fewer than want rows
	for step := int64(want + want/2); ; step *= 2 {
		lo := max(before-step, 1)
		got, complete, p := window(lo)
		if p != nil {
			return nil, false, p
		}
		if complete && (len(got) >= want || lo == 1) {
			return finish(got)
		}
		if complete {
			tooFew = lo
			continue
		}
		// [lo, before) holds more than a request gives, [tooFew, before)
		// fewer than want: between them is a window that holds both.
		tooMany := lo
		for tooFew-tooMany > 1 {
			mid := tooMany + (tooFew-tooMany)/2
			got, complete, p := window(mid)
			switch {
			case p != nil:
				return nil, false, p
			case !complete:
				tooMany = mid
			case len(got) >= want:
				return finish(got)
			default:
				tooFew = mid
			}
		}
		// Not reached: windows one id apart differ by one row at most.
		got, _, p = window(tooFew)
		if p != nil {
			return nil, false, p
		}
		return finish(got)
	}
}

// oldest returns the n rows with the lowest ids above after, newest
// first, and whether there are newer ones.
func (l cursorLister[T]) oldest(after int64, n int) ([]T, bool, *problem) {
	got, p := l.list(after, n+1)
	if p != nil {
		return nil, false, p
	}
	more := len(got) > n
	if more {
		got = got[:n]
	}
	slices.Reverse(got)
	return got, more, nil
}

// top returns an id above every row's, from hint: the highest id seen
// before (0 when none), which it raises. One request when the hint is
// close; from nothing, it gallops up from the hint and searches down.
func (l cursorLister[T]) top(hint *atomic.Int64) (int64, *problem) {
	highest := func(since int64) (int64, bool, *problem) {
		got, p := l.list(since, l.limit)
		if p != nil || len(got) == l.limit {
			return 0, false, p
		}
		if len(got) == 0 {
			return since, true, nil
		}
		return l.id(got[len(got)-1]), true, nil
	}
	lo := hint.Load()
	top, ok, p := highest(lo)
	if p != nil {
		return 0, p
	}
	if !ok {
		// More than a page above the hint: gallop up, then search
		// down, each probe one row. lo is 0 or an id that exists.
		hi := int64(0)
		for step := int64(l.limit); hi == 0; step *= 2 {
			got, p := l.list(lo+step, 1)
			if p != nil {
				return 0, p
			}
			if len(got) == 0 {
				hi = lo + step // no id above hi
			} else {
				lo = l.id(got[0])
			}
		}
		for hi-lo >= int64(l.limit) {
			mid := lo + (hi-lo)/2
			got, p := l.list(mid, 1)
			if p != nil {
				return 0, p
			}
			if len(got) == 0 {
				hi = mid
			} else {
				lo = l.id(got[0])
			}
		}
		if top, ok, p = highest(lo); p != nil {
			return 0, p
		} else if !ok {
			top = hi
		}
	}
	for {
		old := hint.Load()
		if top <= old || hint.CompareAndSwap(old, top) {
			break
		}
	}
	return top + 1, nil
}

// itemLister lists the items the filter's item parameters match.
func (c *Console) itemLister(r *http.Request, f itemsFilter) cursorLister[seedengine.Item] {
	params := f.values(true)
	return cursorLister[seedengine.Item]{limit: 3 * (itemsPerPage + 1), id: func(it seedengine.Item) int64 { return it.ID },
		list: func(since int64, limit int) ([]seedengine.Item, *problem) {
			params.Set("since", strconv.FormatInt(since, 10))
			params.Set("limit", strconv.Itoa(limit))
			var out struct {
				Items []seedengine.Item `json:"items"`
			}
			p := c.get(r, "/api/v1/items?"+params.Encode(), &out)
			return out.Items, p
		}}
}

// articleLister lists the articles q finds among the filter's, or every
// article and page that is none when the filter is empty.
func (c *Console) articleLister(r *http.Request, f itemsFilter) cursorLister[seedengine.Article] {
	params := f.values(false)
	if params.Get("q") == "" {
		params.Set("not_articles", "true")
	}
	return cursorLister[seedengine.Article]{limit: 3 * (itemsPerPage + 1), id: func(a seedengine.Article) int64 { return a.ID },
		list: func(since int64, limit int) ([]seedengine.Article, *problem) {
			params.Set("since", strconv.FormatInt(since, 10))
			params.Set("limit", strconv.Itoa(min(limit, seedengine.MaxArticlesPage)))
			var out struct {
				Articles []seedengine.Article `json:"articles"`
			}
			p := c.get(r, "/api/v1/articles?"+params.Encode(), &out)
			return out.Articles, p
		}}
}

// cursorParam reads a paging cursor: 0 when absent.
func cursorParam(q url.Values, name string) (int64, bool) {
	raw := q.Get(name)
	if raw == "" {
		return 0, true
	}
	n, err := strconv.ParseInt(raw, 10, 64)
	return n, err == nil && n > 0 && strconv.FormatInt(n, 10) == raw
}

// handleItems lists harvested items newest first: before=ID pages to
// older ones, after=ID to newer ones.
func (c *Console) handleItems(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	f := readItemsFilter(q)
	d := itemsData{F: f, Search: f.Q != ""}
	render := func(status int, p *problem) {
		c.render(w, r, status, "items", page{Title: "Items", Nav: "items", Problem: p, Data: d})
	}
	before, ok1 := cursorParam(q, "before")
	after, ok2 := cursorParam(q, "after")
	if !ok1 || !ok2 || (before > 0 && after > 0) {
		render(http.StatusBadRequest, &problem{Status: http.StatusBadRequest, Detail: "before and after are item ids, and a page has one of them at most."})
		return
	}
	d.Before, d.After = before, after
	if part := d.F.Partition(); part != nil {
		d.Files = c.partitionFiles(r, *part)
	}

	var (
		rows         []seedengine.Item
		older, newer bool
		p            *problem
	)
	if d.Search {
		var arts []seedengine.Article
		l := c.articleLister(r, d.F)
		switch {
		case after > 0:
			arts, newer, p = l.oldest(after, itemsPerPage)
			older = true
		default:
			if before == 0 {
				all := c.articleLister(r, itemsFilter{})
				before, p = all.top(&c.articleTop)
			} else {
				newer = true
			}
			if p == nil {
				arts, older, p = l.newest(before, itemsPerPage)
			}
		}
		if p == nil {
			rows, p = c.articleItems(r, arts)
		}
		if p == nil && len(arts) > 0 {
			d.Newer, d.Older = arts[0].ID, arts[len(arts)-1].ID
		}
	} else {
		l := c.itemLister(r, d.F)
		switch {
		case after > 0:
			rows, newer, p = l.oldest(after, itemsPerPage)
			older = true
		default:
			if before == 0 {
				all := c.itemLister(r, itemsFilter{})
				before, p = all.top(&c.itemTop)
			} else {
				newer = true
			}
			if p == nil {
				rows, older, p = l.newest(before, itemsPerPage)
			}
		}
		if p == nil && len(rows) > 0 {
			d.Newer, d.Older = rows[0].ID, rows[len(rows)-1].ID
		}
	}
	if p != nil {
		status := p.Status
		if status < 400 || status > 599 {
			status = http.StatusBadGateway
		}
		d.Newer, d.Older = 0, 0
		render(status, p)
		return
	}
	if !newer {
		d.Newer = 0
	}
	if !older {
		d.Older = 0
	}
	d.Items = rows
	render(http.StatusOK, nil)
}

// articleItems are the items of articles, in the articles' order. The
// API lists items by id range only, so the ids are read in runs: one
// request lists every item from the lowest id wanted up to as many as
// the span asks (one API page at most), and the next starts at the
// lowest id still wanted. An item the API no longer has is shown as its
// article says.
func (c *Console) articleItems(r *http.Request, arts []seedengine.Article) ([]seedengine.Item, *problem) {
	if len(arts) == 0 {
		return nil, nil
	}
	need := make([]int64, 0, len(arts))
	for _, a := range arts {
		need = append(need, a.ItemID)
	}
	slices.Sort(need)
	need = slices.Compact(need)
	found := map[int64]seedengine.Item{}
	all := c.itemLister(r, itemsFilter{})
	for calls := 0; len(need) > 0 && calls < 2*itemsPerPage; calls++ {
		lim := int(min(int64(seedengine.MaxItemsPage), need[len(need)-1]-need[0]+1))
		got, p := all.list(need[0]-1, lim)
		if p != nil {
			return nil, p
		}
		for _, it := range got {
			found[it.ID] = it
		}
		if len(got) < lim {
			break // no item above the last one listed
		}
		last := got[len(got)-1].ID
		need = slices.DeleteFunc(need, func(id int64) bool { return id <= last })
	}
	out := make([]seedengine.Item, 0, len(arts))
	for _, a := range arts {
		it, ok := found[a.ItemID]
		if !ok {
			it = seedengine.Item{ID: a.ItemID, URL: a.URL, Title: a.Title, SeedID: a.SeedID, Country: a.Country, Category: a.Category}
		}
		out = append(out, it)
	}
	return out, nil
}

// partitionFiles are an item partition's files, each with a download
// through the console: its item files, its WARC files and its article
// files (JSON Lines, and Parquet once the day is over), with the words
// for what could not be listed.
type partitionFiles struct {
	seedengine.Partition
	Items, WARC, Articles              []fileRow
	ItemsErr, WARCErr, ArticlesErr     string
	ItemBytes, WARCBytes, ArticleBytes int64
}

// fileRow is one file of a partition.
type fileRow struct {
	Name, Key string
	Count     int // items, records or articles
	Bytes     int64
	Size      string // Bytes in words
	Download  string // the console's route that downloads it; "" when none
	Note      string
}

// listedFile is what the console reads of a file in any of the API's
// three partition file lists.
type listedFile struct {
	Name      string     `json:"name"`
	Key       string     `json:"key"`
	Items     int        `json:"items"`
	Records   int        `json:"records"`
	Articles  int        `json:"articles"`
	Bytes     int64      `json:"bytes"`
	Written   *bool      `json:"written"`
	WrittenAt *time.Time `json:"written_at"`
}

// fileKind is one kind of partition file: where the API lists and serves
// it, and how the console names it.
type fileKind struct {
	what string // in words, for the 404 page
	// api is the API's list of a partition's files (…/{date}, …/warc),
	// under which it serves each file (…/{name}); console is the
	// console's download route's prefix.
	api, console func(seedengine.Partition) string
	// name is a listed file's name as the console's route and the API's
	// download take it; count its items, records or articles; ready
	// whether it can be downloaded.
	name  func(listedFile) string
	count func(listedFile) int
	ready func(listedFile) bool
}

func partitionPath(part seedengine.Partition) string {
	return pathEscape(part.Country) + "/" + pathEscape(part.Category) + "/" + pathEscape(part.Date)
}

var (
	itemFiles = fileKind{what: "item file",
		api:     func(p seedengine.Partition) string { return "/api/v1/items/" + partitionPath(p) },
		console: func(p seedengine.Partition) string { return "/console/items/" + partitionPath(p) },
		name:    func(f listedFile) string { return f.Name + ".jsonl" },
		count:   func(f listedFile) int { return f.Items },
		ready:   func(f listedFile) bool { return f.WrittenAt != nil }}
	warcFiles = fileKind{what: "WARC file",
		api:     func(p seedengine.Partition) string { return "/api/v1/items/" + partitionPath(p) + "/warc" },
		console: func(p seedengine.Partition) string { return "/console/items/" + partitionPath(p) + "/warc" },
		name:    func(f listedFile) string { return f.Name },
		count:   func(f listedFile) int { return f.Records },
		ready:   func(listedFile) bool { return true }} // listed once stored
	articleFiles = fileKind{what: "article file",
		api:     func(p seedengine.Partition) string { return "/api/v1/articles/" + partitionPath(p) },
		console: func(p seedengine.Partition) string { return "/console/articles/" + partitionPath(p) },
		name:    func(f listedFile) string { return f.Name },
		count:   func(f listedFile) int { return f.Articles },
		ready:   func(f listedFile) bool { return f.Written != nil && *f.Written }}
)

// list reads the partition's files of kind k as rows.
func (c *Console) list(r *http.Request, k fileKind, part seedengine.Partition) (rows []fileRow, total int64, errText string) {
	var files struct {
		Items []listedFile `json:"items"`
	}
	if p := c.get(r, k.api(part), &files); p != nil {
		return nil, 0, p.Detail
	}
	for _, f := range files.Items {
		row := fileRow{Name: k.name(f), Key: f.Key, Count: k.count(f), Bytes: f.Bytes, Size: byteSize(f.Bytes)}
		if k.ready(f) {
			row.Download = k.console(part) + "/" + pathEscape(row.Name)
		} else {
			row.Note = "being written"
		}
		total += f.Bytes
		rows = append(rows, row)
	}
	return rows, total, ""
}

// partitionFiles reads a partition's item, WARC and article files.
func (c *Console) partitionFiles(r *http.Request, part seedengine.Partition) *partitionFiles {
	if part.Validate() != nil {
		return nil
	}
	pf := &partitionFiles{Partition: part}
	pf.Items, pf.ItemBytes, pf.ItemsErr = c.list(r, itemFiles, part)
	pf.WARC, pf.WARCBytes, pf.WARCErr = c.list(r, warcFiles, part)
	pf.Articles, pf.ArticleBytes, pf.ArticlesErr = c.list(r, articleFiles, part)
	return pf
}

// SizeWords is a partition's total in words.
func (pf *partitionFiles) SizeWords(n int64) string { return byteSize(n) }

// byteSize is a byte count as a person reads it: 512 B, 1.5 KiB, 3.2 MiB.
func byteSize(n int64) string {
	const unit = 1024
	if n < unit {
		return strconv.FormatInt(n, 10) + " B"
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit && exp < 4; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTP"[exp])
}

// fileDownload downloads one file of kind k of a partition, as stored,
// streamed through from the API under the API's own headers (its sandbox
// policy, nosniff): only a file the partition's list says can be
// downloaded, so a missing one gets the console's 404 page rather than
// the API's JSON. It is an attachment under the name the API gives it
// (a WARC file's own, unique name; sg-news-2026-03-01-articles.parquet),
// else under one that says where it is from
// (sg-news-2026-03-01-items_0001.jsonl).
func (c *Console) fileDownload(k fileKind) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		s := sessFrom(r.Context())
		part := seedengine.Partition{Country: seedengine.NormalizeCountry(r.PathValue("country")), Category: r.PathValue("category"), Date: r.PathValue("date")}
		name := r.PathValue("file")
		if part.Validate() != nil {
			c.renderError(w, r, s, http.StatusNotFound, "There is no such "+k.what+".")
			return
		}
		var files struct {
			Items []listedFile `json:"items"`
		}
		if p := c.get(r, k.api(part), &files); p != nil {
			c.renderProblem(w, r, p)
			return
		}
		// An item file also by its name without .jsonl, as the API takes it.
		i := slices.IndexFunc(files.Items, func(f listedFile) bool { return (k.name(f) == name || f.Name == name) && k.ready(f) })
		if i < 0 {
			c.renderError(w, r, s, http.StatusNotFound, "There is no such "+k.what+" in "+part.Country+" / "+part.Category+" / "+part.Date+".")
			return
		}
		apiName := files.Items[i].Name // an item file's name has no .jsonl
		req, err := apiRequest(r, http.MethodGet, k.api(part)+"/"+pathEscape(apiName), http.NoBody)
		if err != nil {
			c.renderError(w, r, s, http.StatusBadRequest, "That request is not right.")
			return
		}
		w.Header().Set("Content-Disposition", `attachment; filename="`+part.Country+"-"+part.Category+"-"+part.Date+"-"+name+`"`)
		w.Header().Set("Cache-Control", "no-store")
		c.deps.API.ServeAs(w, req, s.key)
	}
}
