package console

import (
	"encoding/json"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/contract"
	"github.com/seedengine/seedengine/internal/seedimport"
)

type list[T any] struct {
	Items     []T    `json:"items"`
	Total     int    `json:"total"`
	NextAfter string `json:"next_after"`
}

type queueStats struct {
	Jobs   map[string]map[string]int `json:"jobs"`
	States map[string]int            `json:"states"`
	Total  int                       `json:"total"`
}

// batchRow is a batch as the lists show it.
type batchRow struct {
	seedengine.Batch
	Date string // the partition date or the day accepted, from params
}

func batchRows(bs []seedengine.Batch) []batchRow {
	out := make([]batchRow, len(bs))
	for i, b := range bs {
		out[i] = batchRow{Batch: b}
		var p struct {
			Date      string `json:"date"`
			Partition *struct {
				Date string `json:"date"`
			} `json:"partition"`
		}
		if json.Unmarshal(b.Params, &p) == nil {
			out[i].Date = p.Date
			if p.Partition != nil {
				out[i].Date = p.Partition.Date
			}
		}
	}
	return out
}

// countryCount is a count of one country.
type countryCount struct {
	Country string
	N       int
}

type dashboardData struct {
	Batches     []batchRow
	Running     bool
	Stats       *queueStats
	DeadLetters []seedengine.DeadLetter
	DeadTotal   int
	LastSync    *seedengine.MetadataSync
	Tasks       []seedengine.MetadataTask
	QueueUI     bool
	QueueUINote string
	// ItemsToday are the items first seen today (UTC), by country.
	ItemsToday []countryCount
	// Drafts are the drafts waiting for review by country, most first;
	// DraftsTotal all of them, DraftsElsewhere those of countries not
	// counted one by one (see draftsByCountry). DraftsErr is set when
	// the seeds could not be counted.
	Drafts          []countryCount
	DraftsTotal     int
	DraftsElsewhere int
	DraftsErr       bool
	// Now is the page's clock too: the batch table is a template of its
	// own, called with this as its data, so $.Now must be here.
	Now time.Time
}

func (c *Console) dashboardData(r *http.Request) (dashboardData, *problem) {
	d := dashboardData{Now: c.cfg.Now().UTC()}
	var bl list[seedengine.Batch]
	if p := c.get(r, "/api/v1/queues/batches?limit=25", &bl); p != nil {
		return d, p
	}
	d.Batches = batchRows(bl.Items)
	for _, b := range bl.Items {
		if !b.Status.Finished() {
			d.Running = true
		}
	}
	return d, nil
}

func (c *Console) handleDashboard(w http.ResponseWriter, r *http.Request) {
	d, p := c.dashboardData(r)
	if p != nil {
		c.renderProblem(w, r, p)
		return
	}
	var st queueStats
	if c.get(r, "/api/v1/queues/stats", &st) == nil {
		d.Stats = &st
	}
	s := sessFrom(r.Context())
	if s.key.Scope.Allows(admin) {
		var dl list[seedengine.DeadLetter]
		if c.get(r, "/api/v1/queues/dead-letters?limit=10", &dl) == nil {
			d.DeadLetters, d.DeadTotal = dl.Items, dl.Total
		}
		d.QueueUI, d.QueueUINote = c.deps.QueueUI != nil, c.deps.QueueUINote
	}
	var snap struct {
		LastSync  *seedengine.MetadataSync   `json:"last_sync"`
		Countries map[string]json.RawMessage `json:"countries"`
	}
	if c.get(r, "/api/v1/metadata/snapshot", &snap) == nil {
		d.LastSync = snap.LastSync
	}
	d.Drafts, d.DraftsTotal, d.DraftsElsewhere, d.DraftsErr = c.draftsByCountry(r, slices.Sorted(maps.Keys(snap.Countries)))
	var tasks list[seedengine.MetadataTask]
	if c.get(r, "/api/v1/metadata/tasks?limit=5", &tasks) == nil {
		d.Tasks = tasks.Items
	}
	today := d.Now.Format(seedengine.DateLayout)
	var parts list[seedengine.ItemPartition]
	if c.get(r, "/api/v1/items/partitions?limit=1000&date_from="+today+"&date_to="+today, &parts) == nil {
		by := map[string]int{}
		for _, p := range parts.Items {
			by[p.Country] += p.Items
		}
		for country, n := range by {
			d.ItemsToday = append(d.ItemsToday, countryCount{Country: country, N: n})
		}
		slices.SortFunc(d.ItemsToday, func(a, b countryCount) int { return b.N - a.N })
	}
	c.render(w, r, http.StatusOK, "dashboard", page{Title: "Dashboard", Nav: "dashboard", Notice: noticeOf(r.URL.Query()), Data: d})
}

// maxDraftCountries bounds the countries the dashboard counts drafts of
// one request each.
const maxDraftCountries = 50

// draftsByCountry counts the drafts waiting for review, by country. The
// API counts seeds by any filter (a list's total) but has no count by
// country, so: the first page of drafts, which holds every draft when
// there are few; else one count per country among those of that page and
// the research partitions' (known), at most maxDraftCountries, and the
// rest as elsewhere.
func (c *Console) draftsByCountry(r *http.Request, known []string) (rows []countryCount, total, elsewhere int, failed bool) {
	var first list[seedengine.Seed]
	if c.get(r, "/api/v1/seeds?status=draft&limit=100", &first) != nil {
		return nil, 0, 0, true
	}
	by := map[string]int{}
	if first.Total <= len(first.Items) {
		for _, s := range first.Items {
			by[s.Country]++
		}
	} else {
		countries := map[string]bool{}
		for _, s := range first.Items {
			countries[s.Country] = true
		}
		for _, cc := range known {
			countries[cc] = true
		}
		counted := 0
		for _, cc := range slices.Sorted(maps.Keys(countries)) {
			if len(by) >= maxDraftCountries {
				break
			}
			var one list[seedengine.Seed]
			if c.get(r, "/api/v1/seeds?status=draft&limit=1&country="+url.QueryEscape(cc), &one) != nil {
				continue
			}
			if one.Total > 0 {
				by[cc] = one.Total
				counted += one.Total
			}
		}
		elsewhere = max(first.Total-counted, 0)
	}
	for cc, n := range by {
		rows = append(rows, countryCount{Country: cc, N: n})
	}
	slices.SortFunc(rows, func(a, b countryCount) int {
		if a.N != b.N {
			return b.N - a.N
		}
		return strings.Compare(a.Country, b.Country)
	})
	return rows, first.Total, elsewhere, false
}

// handleBatchesFragment is the dashboard's batch table, fetched again
// every few seconds while a batch runs.
func (c *Console) handleBatchesFragment(w http.ResponseWriter, r *http.Request) {
	d, p := c.dashboardData(r)
	if p != nil {
		c.renderProblem(w, r, p)
		return
	}
	c.render(w, r, http.StatusOK, "batches_fragment", page{Data: d})
}

// batchData is a batch's page.
type batchData struct {
	Batch  batchRow
	Result string // the result, indented
	// Notice is the page's notice ("Queued."), shown while the batch has
	// not finished; Refresh says the page redraws its live part.
	Notice  *notice
	Refresh bool
	// Research is a research batch's result.
	Research *researchResult
	// A contract batch's seeds: those it created and refreshed, with
	// Seeds holding what the API says of them (status, confidence) by id,
	// MoreSeeds when there were more than the console asked for; and the
	// domains it made no seed of.
	Created, Refreshed []string
	Seeds              map[string]seedengine.Seed
	MoreSeeds          bool
	Skipped            []contract.SkippedItem
	// An import's entries that made no seed (Created: those that did).
	Entries []seedimport.Rejected
	// A liveness batch's verdicts.
	Results []livenessResult
	Counts  map[string]int
}

// researchResult is a research batch's result (research.ChunkResult,
// merged over the chunks).
type researchResult struct {
	Accepted   int                     `json:"accepted"`
	Duplicates int                     `json:"duplicates"`
	Domains    int                     `json:"domains"`
	Rejected   []seedengine.URLFailure `json:"rejected"`
}

type livenessResult struct {
	Domain  string `json:"domain"`
	Verdict string `json:"verdict"`
	Reason  string `json:"reason"`
	Detail  string `json:"detail"`
}

// maxBatchSeeds bounds how many of a contract batch's seeds its page
// fetches to show their status: two pages of the seeds list.
const maxBatchSeeds = 200

func (c *Console) batchData(r *http.Request) (batchData, *problem) {
	var d batchData
	var b seedengine.Batch
	if p := c.get(r, "/api/v1/queues/batch/"+pathEscape(r.PathValue("id")), &b); p != nil {
		return d, p
	}
	d.Batch = batchRows([]seedengine.Batch{b})[0]
	d.Result = prettyJSON(b.Result)
	if !b.Status.Finished() {
		d.Notice = batchNotice(r)
	}
	switch b.Kind {
	case seedengine.BatchResearch:
		var res researchResult
		if json.Unmarshal(b.Result, &res) == nil {
			d.Research = &res
		}
	case seedengine.BatchContract:
		var res contract.ChunkResult
		if json.Unmarshal(b.Result, &res) == nil {
			d.Created, d.Refreshed, d.Skipped = res.Created, res.Refreshed, res.Skipped
		}
		if len(d.Created)+len(d.Refreshed) > 0 {
			d.Seeds, d.MoreSeeds = c.batchSeeds(r, b.ID)
		}
	case seedengine.BatchImport:
		var res seedimport.ChunkResult
		if json.Unmarshal(b.Result, &res) == nil {
			for _, c := range res.Created {
				d.Created = append(d.Created, c.SeedID)
			}
			d.Entries = res.Rejected
		}
		if len(d.Created) > 0 {
			d.Seeds, d.MoreSeeds = c.batchSeeds(r, b.ID)
		}
	case seedengine.BatchLiveness:
		var res struct {
			Counts map[string]int `json:"verdicts"`
		}
		if json.Unmarshal(b.Result, &res) == nil {
			d.Counts = res.Counts
		}
		var rl list[livenessResult]
		if c.get(r, "/api/v1/queues/batch/"+pathEscape(d.Batch.ID)+"/results?limit=200", &rl) == nil {
			d.Results = rl.Items
		}
	}
	return d, nil
}

// batchNotice is the one notice a batch's page shows: "Queued.", after
// the form that queued it.
func batchNotice(r *http.Request) *notice {
	if r.URL.Query().Get("done") != "queued" {
		return nil
	}
	return noticeOf(r.URL.Query())
}

// batchSeeds reads the seeds a contract batch recorded a contract for, up
// to maxBatchSeeds, by id; more reports there were more.
func (c *Console) batchSeeds(r *http.Request, batchID string) (seeds map[string]seedengine.Seed, more bool) {
	seeds = map[string]seedengine.Seed{}
	after := ""
	for len(seeds) < maxBatchSeeds {
		path := "/api/v1/seeds?limit=100&batch_id=" + url.QueryEscape(batchID)
		if after != "" {
			path += "&after=" + url.QueryEscape(after)
		}
		var sl list[seedengine.Seed]
		if c.get(r, path, &sl) != nil {
			return seeds, false
		}
		for _, s := range sl.Items {
			seeds[s.SeedID] = s
		}
		if sl.NextAfter == "" {
			return seeds, false
		}
		after = sl.NextAfter
	}
	return seeds, true
}

func (c *Console) handleBatch(w http.ResponseWriter, r *http.Request) {
	d, p := c.batchData(r)
	if p != nil {
		c.renderProblem(w, r, p)
		return
	}
	// The notice confirms what was just done: shown once even when the
	// batch finished before this page, it goes with the first redraw.
	if d.Notice == nil && d.Batch.Status.Finished() {
		d.Notice = batchNotice(r)
	}
	d.Refresh = !d.Batch.Status.Finished() || d.Notice != nil
	c.render(w, r, http.StatusOK, "batch", page{Title: string(d.Batch.Kind) + " batch " + batchID(d.Batch.ID), Nav: "dashboard", Data: d})
}

// handleBatchProgress is the part of a batch's page that changes while
// it runs (progress, seeds created, verdicts), fetched again until the
// batch finishes.
func (c *Console) handleBatchProgress(w http.ResponseWriter, r *http.Request) {
	d, p := c.batchData(r)
	if p != nil {
		c.renderProblem(w, r, p)
		return
	}
	c.render(w, r, http.StatusOK, "progress_fragment", page{Data: d})
}

func (c *Console) handleDeadLetterRetry(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if _, err := strconv.ParseInt(id, 10, 64); err != nil {
		c.renderError(w, r, sessFrom(r.Context()), http.StatusBadRequest, "No such dead letter.")
		return
	}
	if p := c.send(r, http.MethodPost, "/api/v1/queues/dead-letters/"+id+"/retry", "application/json", map[string]any{}, nil); p != nil {
		c.renderProblem(w, r, p)
		return
	}
	http.Redirect(w, r, "/console/?"+noticeQuery("retried", id), http.StatusSeeOther)
}

// researchIndexData lists countries → categories → dates.
type researchIndexData struct {
	Countries []countryRow
	Totals    seedengine.DatasetCount
}

type countryRow struct {
	Country    string
	Categories []categoryRow
}

type categoryRow struct {
	Category string
	Dates    []seedengine.PartitionSummary
}

func (c *Console) handleResearchIndex(w http.ResponseWriter, r *http.Request) {
	var idx seedengine.ResearchIndex
	if p := c.get(r, "/api/v1/research/index", &idx); p != nil {
		c.renderProblem(w, r, p)
		return
	}
	d := researchIndexData{Totals: idx.Totals}
	for cc, cats := range idx.Countries {
		row := countryRow{Country: cc}
		for cat, dates := range cats {
			sort.Slice(dates, func(i, j int) bool { return dates[i].Date > dates[j].Date })
			row.Categories = append(row.Categories, categoryRow{Category: cat, Dates: dates})
		}
		sort.Slice(row.Categories, func(i, j int) bool { return row.Categories[i].Category < row.Categories[j].Category })
		d.Countries = append(d.Countries, row)
	}
	sort.Slice(d.Countries, func(i, j int) bool { return d.Countries[i].Country < d.Countries[j].Country })
	c.render(w, r, http.StatusOK, "research", page{Title: "Research", Nav: "research", Data: d})
}

type partitionData struct {
	P           seedengine.ResearchPartition
	Authorities []authorityRow
	Page        int
	NextPage    int
	PrevPage    int
}

type authorityRow struct {
	Authority string
	Domains   int
}

func (c *Console) handlePartition(w http.ResponseWriter, r *http.Request) {
	pg, _ := strconv.Atoi(r.URL.Query().Get("page"))
	pg = max(pg, 0)
	const per = 100
	var rp seedengine.ResearchPartition
	path := "/api/v1/research/" + pathEscape(r.PathValue("country")) + "/" + pathEscape(r.PathValue("category")) + "/" +
		pathEscape(r.PathValue("date")) + "?domain_limit=" + strconv.Itoa(per) + "&domain_offset=" + strconv.Itoa(pg*per)
	if p := c.get(r, path, &rp); p != nil {
		c.renderProblem(w, r, p)
		return
	}
	d := partitionData{P: rp, Page: pg, PrevPage: pg - 1}
	if (pg+1)*per < rp.DomainTotal {
		d.NextPage = pg + 1
	}
	for a, n := range rp.Authorities {
		d.Authorities = append(d.Authorities, authorityRow{string(a), n})
	}
	sort.Slice(d.Authorities, func(i, j int) bool { return d.Authorities[i].Domains > d.Authorities[j].Domains })
	c.render(w, r, http.StatusOK, "partition", page{Title: rp.Country + " / " + rp.Category + " / " + rp.Date, Nav: "research", Data: d})
}

type domainData struct {
	D     seedengine.Domain
	Seeds []seedengine.Seed
}

func (c *Console) handleDomain(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	var d domainData
	if p := c.get(r, "/api/v1/domains/"+pathEscape(id), &d.D); p != nil {
		c.renderProblem(w, r, p)
		return
	}
	var sl list[seedengine.Seed]
	if c.get(r, "/api/v1/seeds?limit=100&domain_id="+pathEscape(d.D.ID), &sl) == nil {
		d.Seeds = sl.Items
	}
	c.render(w, r, http.StatusOK, "domain", page{Title: d.D.ID, Nav: "research", Data: d})
}

// rejections put the reasons research gives a URL it does not accept
// (discover's Reason codes), and a contract batch a domain it makes no
// seed of (contract's outcomes and skip reasons), in words.
var rejections = map[string]string{
	"empty":                 "an empty line",
	"too_long":              "too long to be a URL",
	"unsupported_scheme":    "not an http or https URL",
	"invalid_host":          "no valid host name in it",
	"invalid_url":           "not a URL",
	"no_registrable_domain": "not a domain anyone registers (an IP address, a name like localhost, or a public suffix such as com.sg)",
	"invalid_country":       "the batch's country is not valid",
	"invalid_confidence":    "its confidence is not between 0 and 1",
	"tab_or_newline":        "a tab or line break inside it",
	"invalid_domain_id":     "not a valid domain_id",
	"invalid_contract":      "the contract it found is not valid",
	"unreachable":           "the site could not be reached",
	"robots_unavailable":    "its robots.txt could not be read",
	"no_candidate":          "no feed, sitemap or page to read was found",
	"deadline_reached":      "the run ran out of time",
	"active_seed_kept":      "its seed is active and kept as it is",
	"suspended_seed_kept":   "its seed is suspended and kept as it is",
	"archived_seed_kept":    "its seed is archived and kept as it is",
	"rejected_seed_kept":    "its seed was rejected and the run found the same entry again",
	"duplicate":             "a seed of its domain and content type exists already",
	"duplicate_in_list":     "the list names it, or another entry of its seed, earlier",
	"robots_disallowed":     "robots.txt disallows it for our agent",
	"not_a_feed":            "it is not a feed or sitemap (an HTML page, say)",
	"empty_feed":            "the feed lists no item",
	"empty_sitemap":         "the sitemap lists no URL",
	"feed_parse_error":      "the feed cannot be read",
}

// rejectionWords is a rejection reason in words; an unknown one as it
// is, its underscores made spaces.
func rejectionWords(reason string) string {
	if w, ok := rejections[reason]; ok {
		return w
	}
	return strings.ReplaceAll(reason, "_", " ")
}
