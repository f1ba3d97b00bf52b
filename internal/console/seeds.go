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
	Status, Country, Category, Authority, FetchType, MinConfidence, Batch string
}

var filterKeys = []string{"status", "country", "category", "authority", "fetch_type", "min_confidence", "batch_id"}

func readFilter(q url.Values) seedFilter {
	f := seedFilter{Status: q.Get("status"), Country: q.Get("country"), Category: q.Get("category"),
		Authority: q.Get("authority"), FetchType: q.Get("fetch_type"), MinConfidence: q.Get("min_confidence"),
		Batch: q.Get("batch_id")}
	if _, ok := q["status"]; !ok {
		f.Status = string(seedengine.SeedDraft) // a reviewer starts with the drafts
	}
	return f
}

// URL is Query for links in templates: encoded already, so html/template
// must not escape it again as one value.
func (f seedFilter) URL() template.URL { return template.URL(f.Query()) }

// Query is the filter as a query string (without after).
func (f seedFilter) Query() string {
	q := url.Values{}
	for i, v := range []string{f.Status, f.Country, f.Category, f.Authority, f.FetchType, f.MinConfidence, f.Batch} {
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
	Statuses, Authorities, FetchTypes []string
}

var options = filterOptions{
	Statuses:    []string{"draft", "active", "suspended", "archived"},
	Authorities: []string{"gov", "mil", "edu", "ngo", "org", "media", "com", "other"},
	FetchTypes:  []string{"rss", "atom", "json_feed", "news_sitemap", "sitemap", "html", "api"},
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

// seedData is a seed's review page.
type seedData struct {
	S        seedengine.Seed
	F        seedFilter
	Next     string // the next seed of the list, "" at its end
	Prev     string // the previous one, "" at its start
	Evidence *contract.Evidence
	EvErr    string
	Decision *contract.Decision
	Chosen   *contract.Candidate
	Rows     []candidateRow
	Versions []seedengine.SeedVersion
	Diff     []diffRow // proposed against current, when there is a proposal
	Proposed *seedengine.SeedVersion
	Patch    string // the merge patch form's starting text
	// Harvest: the seed's newest items and its last reads' pace.
	Items []seedengine.Item
	Pace  *seedengine.SeedCheck // the latest read that set a pace
	Gaps  int                   // possible gaps among the reads listed
	Reads int
}

type candidateRow struct {
	*contract.Candidate
	Chosen bool
}

func (c *Console) handleSeed(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	q := r.URL.Query()
	d := seedData{F: readFilter(q)}
	if p := c.get(r, "/api/v1/seeds/"+pathEscape(id), &d.S); p != nil {
		c.renderProblem(w, r, p)
		return
	}
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
			c.explain(&d)
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

// explain finds the decision behind the seed and its candidate, and lists
// the candidates the way a reviewer reads them: fetched ones first, then
// by priority.
func (c *Console) explain(d *seedData) {
	ev := d.Evidence
	for i := range ev.Decisions {
		if ev.Decisions[i].ContentType == d.S.ContentType {
			d.Decision = &ev.Decisions[i]
		}
	}
	for _, cand := range ev.Candidates {
		row := candidateRow{Candidate: cand}
		if d.Decision != nil && (cand.EntryURL() == d.Decision.EntryURL) && d.Chosen == nil && cand.Fetched {
			row.Chosen = true
			d.Chosen = cand
		}
		d.Rows = append(d.Rows, row)
	}
	sort.SliceStable(d.Rows, func(i, j int) bool {
		a, b := d.Rows[i], d.Rows[j]
		if a.Chosen != b.Chosen {
			return a.Chosen
		}
		if a.Fetched != b.Fetched {
			return a.Fetched
		}
		return a.Priority > b.Priority
	})
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
var seedActions = map[string]struct {
	scope seedengine.Scope
	done  string
}{
	"promote":    {admin, "promoted"},
	"suspend":    {admin, "suspended"},
	"reactivate": {admin, "reactivated"},
	"archive":    {admin, "archived"},
	"edit":       {write, "saved"},
	"accept":     {write, "accepted"},
}

// handleSeedAction runs one review action through the API, then shows the
// seed again (or, after a promotion, the next seed of the list: the
// review loop).
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
			if next := r.PostFormValue("next"); next != "" {
				back = "/console/seeds/" + pathEscape(next) + "?" + r.PostFormValue("list")
			} else {
				back = "/console/seeds?" + r.PostFormValue("list")
			}
		}
	case "suspend", "reactivate", "archive":
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
		patch := map[string]any{"fetch": mergeObject(sd.Fetch, v.Contract.Fetch), "policy": mergeObject(sd.Policy, v.Contract.Policy)}
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
