package console

import (
	"encoding/json"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"time"

	"github.com/seedengine/seedengine"
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
		LastSync *seedengine.MetadataSync `json:"last_sync"`
	}
	if c.get(r, "/api/v1/metadata/snapshot", &snap) == nil {
		d.LastSync = snap.LastSync
	}
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
	Batch   batchRow
	Result  string // the result, indented
	Created []string
	Results []livenessResult
	Counts  map[string]int
}

type livenessResult struct {
	Domain  string `json:"domain"`
	Verdict string `json:"verdict"`
	Reason  string `json:"reason"`
	Detail  string `json:"detail"`
}

func (c *Console) batchData(r *http.Request) (batchData, *problem) {
	var d batchData
	var b seedengine.Batch
	if p := c.get(r, "/api/v1/queues/batch/"+pathEscape(r.PathValue("id")), &b); p != nil {
		return d, p
	}
	d.Batch = batchRows([]seedengine.Batch{b})[0]
	d.Result = prettyJSON(b.Result)
	var res struct {
		Created []string       `json:"created"`
		Counts  map[string]int `json:"verdicts"`
	}
	if json.Unmarshal(b.Result, &res) == nil {
		d.Created = res.Created
		d.Counts = res.Counts
	}
	if d.Batch.Kind == seedengine.BatchLiveness {
		var rl list[livenessResult]
		if c.get(r, "/api/v1/queues/batch/"+pathEscape(d.Batch.ID)+"/results?limit=200", &rl) == nil {
			d.Results = rl.Items
		}
	}
	return d, nil
}

func (c *Console) handleBatch(w http.ResponseWriter, r *http.Request) {
	d, p := c.batchData(r)
	if p != nil {
		c.renderProblem(w, r, p)
		return
	}
	c.render(w, r, http.StatusOK, "batch", page{Title: "Batch " + d.Batch.ID, Nav: "dashboard", Notice: noticeOf(r.URL.Query()), Data: d})
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
