package seedimport

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"sync"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/contract"
	"github.com/seedengine/seedengine/internal/fetch"
)

// Examiner reads one named entry of a domain; *contract.Discoverer is one.
type Examiner interface {
	Examine(ctx context.Context, domainID, domain string, e contract.Entry) *contract.Evidence
}

// Created is an entry that became a draft seed, with the seed's review
// reasons (contract.ReviewReasons): an entry on another domain than the
// site the list named (an OPML outline's htmlUrl) is entry_off_domain,
// and a promote by filter leaves its seed out.
type Created struct {
	Line          int                           `json:"line"`
	URL           string                        `json:"url"`
	SeedID        string                        `json:"seed_id"`
	ReviewReasons []seedengine.SeedReviewReason `json:"review_reasons,omitempty"`
}

// Rejected is an entry that did not, with why: a planning reason
// (invalid_url, unsupported_scheme, duplicate_in_list, …), duplicate (a
// seed of its domain and content type exists; SeedID names it),
// robots_disallowed, robots_unavailable, unreachable (Detail: the fetch
// error), not_a_feed, http_{status}, feed_parse_error, empty_feed,
// empty_sitemap, a fetch error (timeout, body_too_large, …), or
// invalid_contract.
type Rejected struct {
	Line   int    `json:"line"`
	URL    string `json:"url"`
	Reason string `json:"reason"`
	Detail string `json:"detail,omitempty"`
	SeedID string `json:"seed_id,omitempty"`
}

// ChunkResult is the result of one import chunk; batch results add these
// up (seedengine.MergeResults): lists concatenate, counts add.
type ChunkResult struct {
	Created  []Created  `json:"created"`
	Rejected []Rejected `json:"rejected"`
	Requests int        `json:"requests"`
}

// ChunkConcurrency is how many seeds of one chunk are examined at once;
// the fetch client still keeps every host to its politeness.
const ChunkConcurrency = 20

// Deps are what the chunk processor works with.
type Deps struct {
	Examiner Examiner
	Seeds    seedengine.SeedService
	Research seedengine.ResearchService
	Objects  contract.ObjectWriter
}

// ChunkProcessor returns the processor of import chunks, to register with
// the queue for seedengine.BatchImport. Each group (the entries of one
// seed) is read entry by entry in line order until one is usable: its
// evidence is stored, its domain registered in the research partition of
// the import's day (country and category of the entry; research method
// "seed_import"), and its seed created as a draft by
// "seed_import:{batch}". An entry whose seed exists already is rejected as
// a duplicate, unread; so is every entry of a group after the one that
// made its seed. An import never touches an existing seed. A retried
// chunk reads its entries again and counts the seeds its first attempt
// created as created.
func ChunkProcessor(d Deps) func(context.Context, *seedengine.Batch, *seedengine.BatchChunk) (seedengine.ChunkOutcome, error) {
	return func(ctx context.Context, b *seedengine.Batch, c *seedengine.BatchChunk) (seedengine.ChunkOutcome, error) {
		var in ChunkInput
		if err := json.Unmarshal(c.Input, &in); err != nil {
			return seedengine.ChunkOutcome{}, seedengine.Errorf(seedengine.EINVALID, "import batch %s chunk %d: input: %v", b.ID, c.Index, err)
		}
		var params Params
		if err := json.Unmarshal(b.Params, &params); err != nil {
			return seedengine.ChunkOutcome{}, fmt.Errorf("import batch %s: params: %w", b.ID, err)
		}
		p := &chunkRun{d: d, batch: b, params: params, actor: "seed_import:" + b.ID}
		outs := make([]groupOutcome, len(in.Groups))
		sem := make(chan struct{}, ChunkConcurrency)
		var wg sync.WaitGroup
		for i, g := range in.Groups {
			sem <- struct{}{}
			wg.Go(func() {
				defer func() { <-sem }()
				outs[i] = p.examine(ctx, g)
			})
		}
		wg.Wait()
		if err := ctx.Err(); err != nil {
			return seedengine.ChunkOutcome{}, fmt.Errorf("import batch %s chunk %d: %w", b.ID, c.Index, err)
		}

		res := ChunkResult{Created: []Created{}, Rejected: []Rejected{}}
		for _, o := range outs {
			if o.err != nil {
				return seedengine.ChunkOutcome{}, fmt.Errorf("import batch %s chunk %d: %w", b.ID, c.Index, o.err)
			}
			res.Requests += o.requests
		}
		if err := p.register(ctx, c.Index, outs); err != nil {
			return seedengine.ChunkOutcome{}, fmt.Errorf("import batch %s chunk %d: %w", b.ID, c.Index, err)
		}
		for i := range outs {
			o := &outs[i]
			if o.seed != nil {
				created, err := p.create(ctx, o)
				if err != nil {
					return seedengine.ChunkOutcome{}, fmt.Errorf("import batch %s chunk %d: %w", b.ID, c.Index, err)
				}
				if created != nil {
					res.Created = append(res.Created, *created)
				}
			}
			res.Rejected = append(res.Rejected, o.rejected...)
		}
		out := seedengine.ChunkOutcome{Succeeded: len(res.Created), Failed: len(res.Rejected)}
		var err error
		if out.Result, err = json.Marshal(res); err != nil {
			return seedengine.ChunkOutcome{}, fmt.Errorf("import batch %s chunk %d: encode result: %w", b.ID, c.Index, err)
		}
		return out, nil
	}
}

type chunkRun struct {
	d      Deps
	batch  *seedengine.Batch
	params Params
	actor  string
}

// groupOutcome is what examining one group came to: a seed to create
// from its winning entry (seed, winner), and the entries rejected.
type groupOutcome struct {
	seed     *seedengine.Seed
	winner   Item
	rejected []Rejected
	requests int
	err      error
}

func reject(it Item, reason, detail string) Rejected {
	return Rejected{Line: it.Line, URL: it.URL, Reason: reason, Detail: detail, SeedID: it.SeedID}
}

// examine reads a group's entries until one makes a seed.
func (p *chunkRun) examine(ctx context.Context, g Group) (o groupOutcome) {
	if len(g) == 1 && g[0].Reject != "" {
		o.rejected = append(o.rejected, reject(g[0], g[0].Reject, g[0].Detail))
		return o
	}
	if old, err := p.d.Seeds.FindSeedByID(ctx, g[0].SeedID); err == nil {
		// A seed this import created (a retried chunk) is found by its
		// entry; any other is a duplicate.
		for _, it := range g {
			if p.ours(old) && old.Fetch.EntryURL == it.URL {
				o.winner, o.seed = it, old
			}
		}
		for _, it := range g {
			switch {
			case o.seed == nil:
				o.rejected = append(o.rejected, reject(it, "duplicate", "a seed of this domain and content type exists ("+string(old.Status)+")"))
			case it.Line != o.winner.Line:
				o.rejected = append(o.rejected, reject(it, "duplicate_in_list", "line "+strconv.Itoa(o.winner.Line)+" made the seed"))
			}
		}
		return o
	} else if seedengine.ErrorCode(err) != seedengine.ENOTFOUND {
		o.err = err
		return o
	}
	for i, it := range g {
		if o.seed != nil {
			o.rejected = append(o.rejected, reject(it, "duplicate_in_list", "line "+strconv.Itoa(o.winner.Line)+" made the seed"))
			continue
		}
		kind := contract.KindFeed
		if it.Sitemap {
			kind = contract.KindSitemap
		}
		e := contract.Entry{URL: it.URL, Title: it.Title, Kind: kind, ContentType: it.ContentType}
		ev := p.d.Examiner.Examine(ctx, it.DomainID, it.Domain, e)
		if ev.Outcome == contract.OutcomeUnreachable && transient[ev.Detail] && ctx.Err() == nil {
			// A site that did not answer this once is asked once more
			// before its entry is refused.
			o.requests += ev.Spent.Requests
			ev = p.d.Examiner.Examine(ctx, it.DomainID, it.Domain, e)
		}
		if ctx.Err() != nil {
			o.err = ctx.Err()
			return o
		}
		o.requests += ev.Spent.Requests
		var dec *contract.Decision
		for j := range ev.Decisions {
			if ev.Decisions[j].ContentType == it.ContentType {
				dec = &ev.Decisions[j]
			}
		}
		if dec == nil {
			reason, detail := ev.Outcome, ev.Detail
			if reason == contract.OutcomeEntryUnusable {
				reason, detail = ev.Detail, ""
			}
			o.rejected = append(o.rejected, reject(it, reason, detail))
			continue
		}
		key, err := contract.WriteEvidence(ctx, p.d.Objects, ev)
		if err != nil {
			o.err = err
			return o
		}
		sd := contract.SeedFrom(ev, *dec, key, it.Category)
		sd.Harvest.Pages = p.params.HarvestPages
		if it.Title != "" {
			// The list's name for the feed: a person kept or chose it.
			sd.Source.Name = seedengine.Truncate(it.Title, 200)
		}
		o.seed, o.winner = sd, g[i]
	}
	return o
}

// transient are the fetch reasons of a site that may answer next time:
// an entry whose site failed so is examined twice before it is refused.
var transient = map[string]bool{
	fetch.ReasonDNSTimeout: true, fetch.ReasonServfail: true, fetch.ReasonConnectTimeout: true,
	fetch.ReasonConnectReset: true, fetch.ReasonTimeout: true, fetch.ReasonNetwork: true,
}

// ours reports whether this import created sd.
func (p *chunkRun) ours(sd *seedengine.Seed) bool {
	return len(sd.History) > 0 && sd.History[0].Actor == p.actor
}

// register records the domains of the seeds about to be created in the
// research partition of the import's day, one research write per country
// and category (idempotent by origin, so a retried chunk writes none
// again).
func (p *chunkRun) register(ctx context.Context, chunk int, outs []groupOutcome) error {
	type part struct{ country, category string }
	urls := map[part][]string{}
	var order []part
	for _, o := range outs {
		if o.seed == nil || p.ours(o.seed) {
			continue
		}
		k := part{o.winner.Country, o.winner.Category}
		if _, ok := urls[k]; !ok {
			order = append(order, k)
		}
		urls[k] = append(urls[k], o.winner.SiteURL)
	}
	for _, k := range order {
		in := seedengine.ResearchInput{
			Partition:       seedengine.Partition{Country: k.country, Category: k.category, Date: p.params.Date},
			ResearchMethods: []string{"seed_import"},
			URLs:            urls[k],
			Origin:          fmt.Sprintf("import:%s:%d:%s:%s", p.batch.ID, chunk, k.country, k.category),
		}
		if _, err := p.d.Research.Research(ctx, in); err != nil {
			return fmt.Errorf("register domains of %s/%s: %w", k.country, k.category, err)
		}
	}
	return nil
}

// create writes a group's seed; nil when it is not created here (a seed
// of its id appeared since, from another import or a contract run).
func (p *chunkRun) create(ctx context.Context, o *groupOutcome) (*Created, error) {
	it := o.winner
	made := &Created{Line: it.Line, URL: it.URL, SeedID: o.seed.SeedID, ReviewReasons: contract.ReviewReasons(o.seed)}
	if p.ours(o.seed) {
		return made, nil
	}
	ok, err := p.d.Seeds.ImportSeed(ctx, o.seed, p.actor, p.batch.ID)
	if seedengine.ErrorCode(err) == seedengine.EINVALID {
		// What the site published cannot make a valid seed (an absurd
		// URL, say): the entry is refused, the rest go on.
		o.rejected = append(o.rejected, reject(it, "invalid_contract", seedengine.ErrorMessage(err)))
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if !ok {
		o.rejected = append(o.rejected, reject(it, "duplicate", "a seed of this domain and content type was created meanwhile"))
		return nil, nil
	}
	return made, nil
}
