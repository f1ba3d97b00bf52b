package seedimport

import (
	"encoding/json"
	"strconv"
	"time"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/discover"
	"github.com/seedengine/seedengine/internal/feed"
)

// ChunkJob is the queue job that runs one chunk of a seed import. Its
// kind is stored with every job, so it never changes.
type ChunkJob struct{ seedengine.ChunkRef }

// Kind names the job.
func (ChunkJob) Kind() string { return "import_chunk" }

// DefaultChunkSize is the entries per chunk of an import that names none:
// each entry costs a robots.txt read and one fetch.
const DefaultChunkSize = 50

// Request is an import as the API accepts it: the list's rows, the
// country and category of rows that name none, entries per chunk (0:
// DefaultChunkSize), and whether the seeds fetch their items' pages.
type Request struct {
	Format       string
	Rows         []Row
	Country      string
	Category     string
	ChunkSize    int
	HarvestPages bool
}

// Params are an import batch's params (Batch.Params).
type Params struct {
	Date         string `json:"date"` // the day the import was accepted, UTC: the research partition its domains are registered in
	Format       string `json:"format"`
	Entries      int    `json:"entries"`
	HarvestPages bool   `json:"harvest_pages,omitempty"`
}

// Item is one entry as a chunk carries it: the row, where it goes, and,
// when planning already refused it, why.
type Item struct {
	Row
	DomainID string `json:"domain_id,omitempty"`
	Domain   string `json:"domain,omitempty"` // registrable
	SiteURL  string `json:"site_url,omitempty"`
	SeedID   string `json:"seed_id,omitempty"`
	Reject   string `json:"reject,omitempty"`
	Detail   string `json:"detail,omitempty"`
}

// Group is the entries of one seed (domain and content type), in line
// order: the first usable one makes the seed, so a list naming a site's
// feed twice (or a dead and a live one) gets the live one, whichever
// chunk finishes first. Entries refused at planning are groups of one.
type Group []Item

// ChunkInput is the input of one import chunk.
type ChunkInput struct {
	Groups []Group `json:"groups"`
}

// Plan checks every row and turns the list into an import batch: each
// row gets its country and category (its own, else the request's: a row
// with neither is EINVALID naming its line), its domain and seed; a URL
// that cannot be a seed's entry, or that repeats an earlier row's, is
// refused here with its reason and reported with the batch's results.
// Nothing is fetched.
func Plan(c *discover.Classifier, req Request, now time.Time) (*seedengine.Batch, []*seedengine.BatchChunk, error) {
	country := ""
	if req.Country != "" {
		country = seedengine.NormalizeCountry(req.Country)
		if err := seedengine.ValidateCountry(country); err != nil {
			return nil, nil, err
		}
	}
	if req.Category != "" {
		if err := seedengine.ValidateCategory(req.Category); err != nil {
			return nil, nil, err
		}
	}
	size := req.ChunkSize
	if size == 0 {
		size = DefaultChunkSize
	}
	var groups []Group
	bySeed := map[string]int{} // seed_id → index in groups
	byURL := map[string]int{}  // normalised URL → line
	for _, r := range req.Rows {
		it, key, err := planRow(c, r, country, req.Category)
		if err != nil {
			return nil, nil, err
		}
		if it.Reject == "" {
			if line, dup := byURL[key]; dup {
				it.Reject, it.Detail = "duplicate_in_list", "line "+strconv.Itoa(line)+" names the same URL"
			} else {
				byURL[key] = it.Line
			}
		}
		if it.Reject != "" {
			groups = append(groups, Group{it})
			continue
		}
		if g, ok := bySeed[it.SeedID]; ok {
			groups[g] = append(groups[g], it)
			continue
		}
		bySeed[it.SeedID] = len(groups)
		groups = append(groups, Group{it})
	}

	params, err := json.Marshal(Params{Date: now.UTC().Format(time.DateOnly), Format: req.Format, Entries: len(req.Rows), HarvestPages: req.HarvestPages})
	if err != nil {
		return nil, nil, err
	}
	b := &seedengine.Batch{Kind: seedengine.BatchImport, Country: country, Category: req.Category, ChunkSize: size, Params: params}
	// A chunk takes whole groups, up to size entries (a bigger group
	// alone).
	var chunks []*seedengine.BatchChunk
	var cur ChunkInput
	n := 0
	flush := func() error {
		if n == 0 {
			return nil
		}
		in, err := json.Marshal(cur)
		if err != nil {
			return err
		}
		chunks = append(chunks, &seedengine.BatchChunk{Index: len(chunks), Input: in, Items: n})
		cur, n = ChunkInput{}, 0
		return nil
	}
	for _, g := range groups {
		if n > 0 && n+len(g) > size {
			if err := flush(); err != nil {
				return nil, nil, err
			}
		}
		cur.Groups = append(cur.Groups, g)
		n += len(g)
	}
	if err := flush(); err != nil {
		return nil, nil, err
	}
	return b, chunks, nil
}

// planRow places one row: country and category, domain (of its site when
// the list names one, else of its URL), content type and seed. key is
// the URL in research's canonical form, which repeats are told by; the
// entry is fetched as the list wrote it.
func planRow(c *discover.Classifier, r Row, country, category string) (it Item, key string, err error) {
	it = Item{Row: r}
	if it.Country == "" {
		it.Country = country
	} else {
		it.Country = seedengine.NormalizeCountry(it.Country)
		if seedengine.ValidateCountry(it.Country) != nil {
			return it, "", bodyErr(r.Line, "the country is not an ISO 3166-1 alpha-2 code or intl")
		}
	}
	if it.Country == "" {
		return it, "", bodyErr(r.Line, "the entry has no country: give the country parameter for the list")
	}
	if it.Category == "" {
		it.Category = category
	} else if seedengine.ValidateCategory(it.Category) != nil {
		return it, "", bodyErr(r.Line, "the category must be a lower-case slug [a-z0-9_]{1,40}")
	}
	if it.Category == "" {
		return it, "", bodyErr(r.Line, "the entry has no category: give the category parameter for the list")
	}
	if it.ContentType != "" && seedengine.ValidateContentType(it.ContentType) != nil {
		return it, "", bodyErr(r.Line, "the content type must be a lower-case slug [a-z0-9_]{1,40}")
	}
	it.URL = seedengine.Truncate(r.URL, 2048)
	entry, err := c.Analyze(r.URL, it.Country)
	if err != nil {
		it.Reject = discover.ReasonOf(err)
		return it, "", nil
	}
	owner := entry
	if r.Site != "" {
		if site, err := c.Analyze(r.Site, it.Country); err == nil {
			owner = site
			it.SiteURL = site.NormalizedURL
		}
	}
	it.DomainID, it.Domain = owner.DomainID, owner.RegistrableDomain
	if it.SiteURL == "" {
		it.SiteURL = "https://" + owner.Host + "/"
	}
	if it.ContentType == "" {
		it.ContentType = feed.ContentTypeOf(r.URL, r.Title)
		if it.Sitemap && feed.ContentTypeOf(r.URL, "") == "news" {
			it.ContentType = seedengine.ContentTypeNews
		}
	}
	it.SeedID = seedengine.SeedID(it.DomainID, it.ContentType)
	return it, entry.NormalizedURL, nil
}
