package console

import (
	"encoding/json"
	"html/template"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/contract"
)

// seedFilter is the seeds list's filter, kept in the query string so a
// seed page can go on to the next seed of the same list.
type seedFilter struct {
	Status, Country, Category, Authority, FetchType, MinConfidence, Batch, Q, Sort string
}

var filterKeys = []string{"status", "country", "category", "authority", "fetch_type", "min_confidence", "batch_id", "q", "sort"}

func readFilter(q url.Values) seedFilter {
	f := seedFilter{Status: q.Get("status"), Country: q.Get("country"), Category: q.Get("category"),
		Authority: q.Get("authority"), FetchType: q.Get("fetch_type"), MinConfidence: q.Get("min_confidence"),
		Batch: q.Get("batch_id"), Q: strings.TrimSpace(q.Get("q")), Sort: q.Get("sort")}
	if _, ok := q["status"]; !ok {
		f.Status = string(seedengine.SeedDraft) // a reviewer starts with the drafts
	}
	return f
}

// Body is the filter as the bulk API's filter object (q and sort aside:
// sort does not change which seeds match).
func (f seedFilter) Body() (map[string]any, error) {
	m := map[string]any{}
	for k, v := range map[string]string{"status": f.Status, "country": f.Country, "category": f.Category, "authority": f.Authority,
		"fetch_type": f.FetchType, "batch_id": f.Batch, "q": f.Q} {
		if v != "" {
			m[k] = v
		}
	}
	if f.MinConfidence != "" {
		c, err := strconv.ParseFloat(f.MinConfidence, 64)
		if err != nil {
			return nil, err
		}
		m["min_confidence"] = c
	}
	return m, nil
}

// Values are the filter's fields in filterKeys' order, for hidden form
// fields.
func (f seedFilter) Values() []string {
	return []string{f.Status, f.Country, f.Category, f.Authority, f.FetchType, f.MinConfidence, f.Batch, f.Q, f.Sort}
}

// Set is how many of the filter's fields narrow the list (sort aside),
// shown beside a folded filter's summary.
func (f seedFilter) Set() int {
	n := 0
	for i, v := range f.Values() {
		if v != "" && filterKeys[i] != "sort" {
			n++
		}
	}
	return n
}

// URL is Query for links in templates: encoded already, so html/template
// must not escape it again as one value.
func (f seedFilter) URL() template.URL { return template.URL(f.Query()) }

// Query is the filter as a query string (without after).
func (f seedFilter) Query() string {
	q := url.Values{}
	for i, v := range f.Values() {
		if v != "" || filterKeys[i] == "status" {
			q.Set(filterKeys[i], v)
		}
	}
	return q.Encode()
}

type seedsData struct {
	F       seedFilter
	Items   []seedengine.Seed
	Total   int
	Next    string // the after cursor of the next page
	After   string
	Options filterOptions
}

type filterOptions struct {
	Statuses    []seedengine.SeedStatus
	Authorities []string // codes; templates show their labels (authority)
	FetchTypes  []seedengine.FetchType
	Sorts       []sortOption
	Reasons     []seedengine.RejectReason
}

type sortOption struct{ Value, Label string }

// options are the filters' choices: the API's enums, in the words the
// rest of the console uses for them.
var options = filterOptions{
	Statuses:    seedengine.SeedStatuses,
	Authorities: []string{"gov", "mil", "edu", "ngo", "org", "media", "com", "other"},
	FetchTypes:  []seedengine.FetchType{seedengine.FetchRSS, seedengine.FetchAtom, seedengine.FetchJSONFeed, seedengine.FetchNewsSitemap, seedengine.FetchSitemap, seedengine.FetchHTML, seedengine.FetchAPI},
	Sorts: []sortOption{{"seed_id", "Authority, country, domain"}, {"domain", "Domain"}, {"-confidence", "Most confident first"},
		{"confidence", "Least confident first"}, {"-created", "Newest first"}, {"created", "Oldest first"}},
	Reasons: seedengine.RejectReasons,
}

func (c *Console) handleSeeds(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	f := readFilter(q)
	after := q.Get("after")
	api := "/api/v1/seeds?limit=50&" + f.Query()
	if after != "" {
		api += "&after=" + url.QueryEscape(after)
	}
	var sl list[seedengine.Seed]
	if p := c.get(r, api, &sl); p != nil {
		c.render(w, r, p.Status, "seeds", page{Title: "Seeds", Nav: "seeds", Problem: p, Data: seedsData{F: f, Options: options}})
		return
	}
	c.render(w, r, http.StatusOK, "seeds", page{Title: "Seeds", Nav: "seeds", Notice: noticeOf(q),
		Data: seedsData{F: f, Items: sl.Items, Total: sl.Total, Next: sl.NextAfter, After: after, Options: options}})
}

// handleSeedsExport downloads the seeds of the list's filter in a format
// of GET /api/v1/seeds/export (csv unless format names another): the
// API's answer is streamed straight through, however many seeds match.
func (c *Console) handleSeedsExport(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	f := readFilter(q)
	f.Sort = "" // an export is in seed_id order
	format := q.Get("format")
	if format == "" {
		format = "csv"
	}
	req, err := apiRequest(r, http.MethodGet, "/api/v1/seeds/export?format="+url.QueryEscape(format)+"&"+f.Query(), http.NoBody)
	if err != nil {
		http.Error(w, "bad export request", http.StatusBadRequest)
		return
	}
	req.Header.Set("Accept-Encoding", r.Header.Get("Accept-Encoding"))
	c.deps.API.ServeAs(w, req, sessFrom(r.Context()).key)
}

// seedData is a seed's review page.
type seedData struct {
	S        seedengine.Seed
	F        seedFilter
	Next     string // the next seed of the list, "" at its end
	Prev     string // the previous one, "" at its start
	Evidence *contract.Evidence
	EvErr    string
	Why      string              // why the entry: the seed's own reason, else the run's decision's
	Chosen   *contract.Candidate // the entry's candidate in the evidence (its preview)
	Rows     []candidateRow      // the candidates, judged against the entry
	Reasons  []seedengine.RejectReason
	Versions []seedengine.SeedVersion
	Diff     []diffRow // proposed against current, when there is a proposal
	Proposed *seedengine.SeedVersion
	Patch    string // the merge patch form's starting text
	// Harvest: the seed's newest items and its last reads' pace.
	Items []seedengine.Item
	Pace  *seedengine.SeedCheck // the latest read that set a pace
	Gaps  int                   // possible gaps among the reads listed
	Reads int
	// Read is the notice of a read asked for with Read now, while the
	// page's query carries one (readNowOf); nil otherwise.
	Read *readNow
}

// candidateRow is one candidate as the evidence table shows it: the
// API's verdict, the evidence's title, and the key that chooses it.
type candidateRow struct {
	seedengine.SeedCandidate
	Title, Name string
	Key         int // 1–9: the digit that makes it the entry; 0 for none
}

func (c *Console) handleSeed(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	q := r.URL.Query()
	if q.Get("part") == "read" {
		c.handleSeedRead(w, r)
		return
	}
	d := seedData{F: readFilter(q), Reasons: seedengine.RejectReasons}
	if p := c.get(r, "/api/v1/seeds/"+pathEscape(id), &d.S); p != nil {
		c.renderProblem(w, r, p)
		return
	}
	d.Read = c.readNowOf(r, d.S.SeedID, d.F)
	var next, prev list[seedengine.Seed]
	if c.get(r, "/api/v1/seeds?limit=1&"+d.F.Query()+"&after="+url.QueryEscape(d.S.SeedID), &next) == nil && len(next.Items) > 0 {
		d.Next = next.Items[0].SeedID
	}
	if c.get(r, "/api/v1/seeds?limit=1&"+d.F.Query()+"&before="+url.QueryEscape(d.S.SeedID), &prev) == nil && len(prev.Items) > 0 {
		d.Prev = prev.Items[0].SeedID
	}
	res := c.call(r, http.MethodGet, "/api/v1/seeds/"+pathEscape(d.S.SeedID)+"/evidence", "", nil)
	if p := res.Error(); p != nil {
		d.EvErr = p.Detail
	} else {
		var ev contract.Evidence
		if err := json.Unmarshal(res.Body, &ev); err != nil {
			d.EvErr = "the evidence could not be read"
		} else {
			d.Evidence = &ev
			var cl struct {
				Items []seedengine.SeedCandidate `json:"items"`
			}
			if p := c.get(r, "/api/v1/seeds/"+pathEscape(d.S.SeedID)+"/candidates", &cl); p != nil {
				d.EvErr = p.Detail
			} else {
				d.explain(cl.Items)
			}
		}
	}
	var vl list[seedengine.SeedVersion]
	if c.get(r, "/api/v1/seeds/"+pathEscape(d.S.SeedID)+"/versions", &vl) == nil {
		d.Versions = vl.Items
		d.diff()
	}
	if d.S.Status == seedengine.SeedActive {
		c.harvest(r, &d)
	}
	patch := map[string]any{"fetch": map[string]any{"entry_url": d.S.Fetch.EntryURL, "schedule": d.S.Fetch.Schedule}}
	b, _ := json.MarshalIndent(patch, "", "  ")
	d.Patch = string(b)
	c.render(w, r, http.StatusOK, "seed", page{Title: d.S.SeedID, Nav: "seeds", Notice: noticeOf(q), Data: d})
}

// harvest reads an active seed's newest items (the last page of its
// items by cursor) and its recent reads' pace.
func (c *Console) harvest(r *http.Request, d *seedData) {
	var checks struct {
		Items []seedengine.SeedCheck `json:"items"`
	}
	if c.get(r, "/api/v1/seeds/"+pathEscape(d.S.SeedID)+"/checks?limit=100", &checks) == nil {
		for i := range checks.Items {
			ch := &checks.Items[i]
			if ch.IntervalSeconds <= 0 {
				continue
			}
			d.Reads++
			if ch.PossibleGap {
				d.Gaps++
			}
			if d.Pace == nil {
				d.Pace = ch
			}
		}
	}
	// The newest ten: items come oldest first, so page to the end.
	var page struct {
		Items     []seedengine.Item `json:"items"`
		NextSince int64             `json:"next_since"`
	}
	var since int64
	for range 50 {
		if c.get(r, "/api/v1/items?limit=1000&seed_id="+url.QueryEscape(d.S.SeedID)+"&since="+strconv.FormatInt(since, 10), &page) != nil || len(page.Items) == 0 {
			break
		}
		d.Items = append(d.Items, page.Items...)
		if len(d.Items) > 10 {
			d.Items = d.Items[len(d.Items)-10:]
		}
		since = page.NextSince
	}
	slices.Reverse(d.Items)
}

// explain lists the candidates the way a reviewer reads them (the
// entry first, then the ones that could be it, then the rest by
// priority), numbers the usable ones 1–9 for the keyboard, and takes the
// entry's reason from the seed itself: the seed, the chosen row and the
// reason then agree after a reviewer chose another candidate.
func (d *seedData) explain(cs []seedengine.SeedCandidate) {
	ev := d.Evidence
	byURL := map[string]*contract.Candidate{}
	for _, c := range ev.Candidates {
		if _, ok := byURL[c.URL]; !ok {
			byURL[c.URL] = c
		}
	}
	d.Why = d.S.Evidence.Why
	if d.Why == "" {
		for _, dec := range ev.Decisions {
			if dec.ContentType == d.S.ContentType && dec.EntryURL == d.S.Fetch.EntryURL {
				d.Why = dec.Why
			}
		}
	}
	for _, c := range cs {
		row := candidateRow{SeedCandidate: c}
		if e := byURL[c.URL]; e != nil {
			row.Title, row.Name = e.Title, e.Name
			if c.Chosen && d.Chosen == nil {
				d.Chosen = e
			}
		}
		d.Rows = append(d.Rows, row)
	}
	rank := func(r candidateRow) int {
		switch {
		case r.Chosen:
			return 0
		case r.Usable:
			return 1
		case r.Fetched:
			return 2
		}
		return 3
	}
	sort.SliceStable(d.Rows, func(i, j int) bool {
		a, b := d.Rows[i], d.Rows[j]
		if rank(a) != rank(b) {
			return rank(a) < rank(b)
		}
		return a.Priority > b.Priority
	})
	key := 1
	for i := range d.Rows {
		if d.Rows[i].Usable && !d.Rows[i].Chosen && key <= 9 {
			d.Rows[i].Key = key
			key++
		}
	}
}

// diffRow is one field of two contracts side by side.
type diffRow struct {
	Field, Current, Proposed string
	Changed                  bool
}

// diff compares the proposed version, if any, with the current one,
// field by field.
func (d *seedData) diff() {
	var cur, prop *seedengine.SeedVersion
	for i := range d.Versions {
		v := &d.Versions[i]
		switch v.State {
		case seedengine.SeedVersionCurrent:
			cur = v
		case seedengine.SeedVersionProposed:
			if prop == nil || v.Version > prop.Version {
				prop = v
			}
		}
	}
	if cur == nil || prop == nil || prop.Version != d.S.ProposedVersion {
		return
	}
	d.Proposed = prop
	a, b := flatten(cur.Contract), flatten(prop.Contract)
	keys := map[string]bool{}
	for k := range a {
		keys[k] = true
	}
	for k := range b {
		keys[k] = true
	}
	var names []string
	for k := range keys {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		d.Diff = append(d.Diff, diffRow{Field: k, Current: a[k], Proposed: b[k], Changed: a[k] != b[k]})
	}
}

// flatten lists a contract's fields as dotted paths with their JSON values.
func flatten(v any) map[string]string {
	b, _ := json.Marshal(v)
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	out := map[string]string{}
	var walk func(prefix string, v any)
	walk = func(prefix string, v any) {
		if o, ok := v.(map[string]any); ok && len(o) > 0 {
			for k, x := range o {
				p := k
				if prefix != "" {
					p = prefix + "." + k
				}
				walk(p, x)
			}
			return
		}
		j, _ := json.Marshal(v)
		out[prefix] = string(j)
	}
	walk("", m)
	return out
}

// seedActions are the review actions of a seed's page: the scope each
// needs beyond the route's and the code of its notice (notices). The
// words are written out, never made from the action's name ("Suspendd").
// check (Read now) has no code: its notice is the read's own (readNow).
var seedActions = map[string]struct {
	scope seedengine.Scope
	done  string
}{
	"promote":    {admin, "promoted"},
	"reject":     {admin, "rejected"},
	"reopen":     {admin, "reopened"},
	"choose":     {write, "chose"},
	"suspend":    {admin, "suspended"},
	"reactivate": {admin, "reactivated"},
	"archive":    {admin, "archived"},
	"edit":       {write, "saved"},
	"accept":     {write, "accepted"},
	"pages_on":   {write, "pages_on"},
	"pages_off":  {write, "pages_off"},
	"check":      {write, ""},
}

// handleSeedAction runs one review action through the API, then shows the
// seed again (or, after a promotion or a rejection, the next seed of the
// list: the review loop).
func (c *Console) handleSeedAction(w http.ResponseWriter, r *http.Request) {
	id, action := r.PathValue("id"), r.PathValue("action")
	s := sessFrom(r.Context())
	act, ok := seedActions[action]
	if !ok {
		c.renderError(w, r, s, http.StatusNotFound, "No such action.")
		return
	}
	if !s.key.Scope.Allows(act.scope) {
		c.renderError(w, r, s, http.StatusForbidden, "This needs an "+string(act.scope)+" key.")
		return
	}
	back := "/console/seeds/" + pathEscape(id) + "?" + r.PostFormValue("list")
	reason := strings.TrimSpace(r.PostFormValue("reason"))
	var p *problem
	switch action {
	case "promote":
		p = c.send(r, http.MethodPost, "/api/v1/seeds/promote", "application/json", map[string]any{"seedId": id}, nil)
		if p == nil {
			back = c.nextInList(r)
		}
	case "reject":
		body := map[string]any{"reason_code": r.PostFormValue("reason_code")}
		if reason != "" {
			body["reason"] = reason
		}
		p = c.send(r, http.MethodPost, "/api/v1/seeds/"+pathEscape(id)+"/reject", "application/json", body, nil)
		if p == nil {
			back = c.nextInList(r)
		}
	case "choose":
		p = c.send(r, http.MethodPost, "/api/v1/seeds/"+pathEscape(id)+"/choose", "application/json",
			map[string]any{"candidate_url": r.PostFormValue("candidate_url")}, nil)
	case "suspend", "reactivate", "archive", "reopen":
		body := map[string]any{}
		if reason != "" {
			body["reason"] = reason
		}
		p = c.send(r, http.MethodPost, "/api/v1/seeds/"+pathEscape(id)+"/"+action, "application/json", body, nil)
	case "edit":
		raw := strings.TrimSpace(r.PostFormValue("patch"))
		var patch map[string]any
		if err := json.Unmarshal([]byte(raw), &patch); err != nil || patch == nil {
			p = &problem{Status: http.StatusUnprocessableEntity, Detail: "The patch is not a JSON object: " + seedengine.Truncate(errString(err), 200)}
			break
		}
		p = c.send(r, http.MethodPatch, "/api/v1/seeds/"+pathEscape(id), "application/merge-patch+json", patch, nil)
	case "accept":
		p = c.acceptProposal(r, id)
	case "pages_on", "pages_off":
		// One seed's page fetching is a merge patch of harvest.pages
		// (docs/harvest.md "Pages as WARC"); the bulk action is for many.
		p = c.send(r, http.MethodPatch, "/api/v1/seeds/"+pathEscape(id), "application/merge-patch+json",
			map[string]any{"harvest": map[string]any{"pages": action == "pages_on"}}, nil)
	case "check":
		to, rp := c.readNow(r, id, back)
		if rp != nil {
			c.renderProblem(w, r, rp)
			return
		}
		http.Redirect(w, r, to, http.StatusSeeOther)
		return
	default:
		c.renderError(w, r, s, http.StatusNotFound, "No such action.")
		return
	}
	if p != nil {
		c.renderProblem(w, r, p)
		return
	}
	sep := "&"
	if !strings.Contains(back, "?") {
		sep = "?"
	}
	http.Redirect(w, r, back+sep+noticeQuery(act.done, id), http.StatusSeeOther)
}

// nextInList is where the review loop goes after a decision: the next
// seed of the list the page was opened from (the form's next), else the
// list.
func (c *Console) nextInList(r *http.Request) string {
	if next := r.PostFormValue("next"); next != "" {
		return "/console/seeds/" + pathEscape(next) + "?" + r.PostFormValue("list")
	}
	return "/console/seeds?" + r.PostFormValue("list")
}

// bulkData is the confirmation page of a bulk action: what the API's dry
// run says it would change, and the form that does it.
type bulkData struct {
	Action     string
	Label      string // the action in words: "Promote"
	Result     seedengine.SeedBulkResult
	F          seedFilter
	IDs        []string
	All        bool // every seed matching F, not IDs
	ReasonCode seedengine.RejectReason
	Reason     string
}

// bulkActions are the actions the seeds list offers for a selection, with
// their words (the confirmation page's heading: "Promote 3 seeds?",
// "Turn pages on for 3 seeds?").
var bulkActions = map[string]string{"promote": "Promote", "reject": "Reject", "suspend": "Suspend",
	"pages_on": "Turn pages on for", "pages_off": "Turn pages off for"}

// handleSeedsBulk applies one action to the selected seeds (ids) or to
// every seed matching the list's filter (all=1). It asks first: the API's
// dry run says how many seeds it would change and why it would leave the
// rest, on a page whose button does it (confirm=1); then the list again
// with a notice of the count.
func (c *Console) handleSeedsBulk(w http.ResponseWriter, r *http.Request) {
	s := sessFrom(r.Context()) // an admin's: the route asks for the scope
	if err := r.ParseForm(); err != nil {
		c.renderError(w, r, s, http.StatusBadRequest, "The form could not be read.")
		return
	}
	action := r.PostFormValue("action")
	label, ok := bulkActions[action]
	if !ok {
		c.renderError(w, r, s, http.StatusUnprocessableEntity, "Choose Promote, Reject, Suspend, Pages on or Pages off for the selected seeds.")
		return
	}
	f := readFilter(r.PostForm)
	d := bulkData{Action: action, Label: label, F: f, IDs: r.PostForm["id"], All: r.PostFormValue("all") == "1",
		ReasonCode: seedengine.RejectReason(r.PostFormValue("reason_code")), Reason: strings.TrimSpace(r.PostFormValue("reason"))}
	body := map[string]any{"action": action}
	if d.All {
		fb, err := f.Body()
		if err != nil {
			c.renderError(w, r, s, http.StatusUnprocessableEntity, "The confidence filter is not a number.")
			return
		}
		body["filter"] = fb
	} else {
		if len(d.IDs) == 0 {
			c.render(w, r, http.StatusUnprocessableEntity, "seeds", page{Title: "Seeds", Nav: "seeds",
				Problem: &problem{Status: http.StatusUnprocessableEntity, Detail: "Select seeds first: tick their boxes, or choose all that match the filter."},
				Data:    seedsData{F: f, Options: options}})
			return
		}
		body["seed_ids"] = d.IDs
	}
	if action == "reject" {
		body["reason_code"] = d.ReasonCode
	}
	if d.Reason != "" {
		body["reason"] = d.Reason
	}
	confirmed := r.PostFormValue("confirm") == "1"
	body["dry_run"] = !confirmed
	if p := c.send(r, http.MethodPost, "/api/v1/seeds/bulk", "application/json", body, &d.Result); p != nil {
		c.renderProblem(w, r, p)
		return
	}
	if !confirmed {
		c.render(w, r, http.StatusOK, "bulk", page{Title: label + " " + strconv.Itoa(len(d.Result.Changed)) + " seeds?", Nav: "seeds", Data: d})
		return
	}
	http.Redirect(w, r, "/console/seeds?"+f.Query()+"&"+noticeQuery("bulk_"+action, strconv.Itoa(len(d.Result.Changed))), http.StatusSeeOther)
}

// acceptProposal makes the proposed version the seed's contract: a merge
// patch that sets every contract field to the proposal's (fields the
// proposal lacks are removed).
func (c *Console) acceptProposal(r *http.Request, id string) *problem {
	var sd seedengine.Seed
	if p := c.get(r, "/api/v1/seeds/"+pathEscape(id), &sd); p != nil {
		return p
	}
	var vl list[seedengine.SeedVersion]
	if p := c.get(r, "/api/v1/seeds/"+pathEscape(id)+"/versions", &vl); p != nil {
		return p
	}
	want, _ := strconv.Atoi(r.PostFormValue("version"))
	for _, v := range vl.Items {
		if v.State != seedengine.SeedVersionProposed || v.Version != want || v.Version != sd.ProposedVersion {
			continue
		}
		patch := map[string]any{"fetch": mergeObject(sd.Fetch, v.Contract.Fetch), "policy": mergeObject(sd.Policy, v.Contract.Policy),
			"harvest": mergeObject(sd.Harvest, v.Contract.Harvest)}
		return c.send(r, http.MethodPatch, "/api/v1/seeds/"+pathEscape(id), "application/merge-patch+json", patch, nil)
	}
	return &problem{Status: http.StatusConflict, Detail: "That proposal is no longer the seed's pending one; reload the page."}
}

// mergeObject is the merge patch from cur to want: want's fields, and null
// for those only cur has.
func mergeObject(cur, want any) map[string]any {
	var a, b map[string]any
	ja, _ := json.Marshal(cur)
	jb, _ := json.Marshal(want)
	_ = json.Unmarshal(ja, &a)
	_ = json.Unmarshal(jb, &b)
	out := map[string]any{}
	for k, v := range b {
		out[k] = v
	}
	for k := range a {
		if _, ok := b[k]; !ok {
			out[k] = nil
		}
	}
	return out
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
