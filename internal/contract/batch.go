package contract

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/layout"
)

// ChunkConcurrency is how many domains of one chunk are examined at once.
// The fetch client still holds every host to one request in flight and its
// delay, and everything to its global limit.
const ChunkConcurrency = 20

// ChunkJob is the queue job that runs one chunk of a contract batch. Its
// kind is stored with every job, so it never changes.
type ChunkJob struct{ seedengine.ChunkRef }

// Kind names the job.
func (ChunkJob) Kind() string { return "contract_chunk" }

// ChunkInput is the input of one contract chunk.
type ChunkInput struct {
	DomainIDs []string `json:"domain_ids"`
}

// DefaultChunkSize is the chunk size of a contract batch that
// names none. A contract run may take up to 40 requests and 30 s per
// domain, so chunks are small: a failed job redoes little.
const DefaultChunkSize = 20

// MaxPartitionDomains bounds a contract batch made from a research
// partition: as many items as the largest research batch brings, about
// 10,000 × 30 s of contract runs at most. A larger partition is taken one
// authority at a time.
const MaxPartitionDomains = 10000

// partitionPage is how many domains one registry read brings, the
// registry's largest page.
const partitionPage = 1000

// BatchParams are a contract batch's params (Batch.Params).
type BatchParams struct {
	Date       string `json:"date"`       // the day the batch was accepted, UTC
	Duplicates int    `json:"duplicates"` // repeated domain_ids dropped
	// OtherCountries counts the domain_ids of another country than the
	// batch's, taken because research for the batch's country registered
	// them.
	OtherCountries int `json:"other_countries,omitempty"`
	// Partition is set for a batch of a research partition's domains.
	Partition *PartitionParams `json:"partition,omitempty"`
	// HarvestPages turns page fetching on for the seeds the batch
	// records (SeedHarvest.Pages); a batch never turns it off.
	HarvestPages bool `json:"harvest_pages,omitempty"`
}

// PartitionParams name the research partition (of the batch's
// country and category) a contract batch was made from.
type PartitionParams struct {
	Date      string `json:"date"`
	Authority string `json:"authority,omitempty"`
	Domains   int    `json:"domains"` // the batch's items
}

// BatchRequest is what a contract batch is made of: the domain_ids to
// examine for a country and category, or a research partition of that
// country and category (Date, and optionally Authority) whose registered
// domains are taken; domains per chunk (0: DefaultChunkSize). Errors name
// the API's fields: domainIds[i], date, authority.
type BatchRequest struct {
	Country   string
	Category  string
	DomainIDs []string
	Date      string
	Authority seedengine.Authority
	ChunkSize int
	// HarvestPages: the seeds the batch records fetch their items' pages.
	HarvestPages bool
}

// Plan turns a request into a contract batch and its chunks, for the
// queue to create; domains is the registry that partitions and domain_ids
// of other countries are looked up in. now is the day the batch is
// accepted.
func Plan(ctx context.Context, domains seedengine.DomainService, req BatchRequest, now time.Time) (*seedengine.Batch, []*seedengine.BatchChunk, error) {
	country := seedengine.NormalizeCountry(req.Country)
	if err := seedengine.ValidateCountry(country); err != nil {
		return nil, nil, err
	}
	if err := seedengine.ValidateCategory(req.Category); err != nil {
		return nil, nil, err
	}
	switch {
	case req.DomainIDs == nil && req.Date == "":
		return nil, nil, seedengine.FieldErrorf("domainIds", "domainIds or date (a research partition) is required")
	case req.DomainIDs != nil && req.Date != "":
		return nil, nil, seedengine.FieldErrorf("date", "give domainIds or date, not both")
	case req.Authority != "" && req.Date == "":
		return nil, nil, seedengine.FieldErrorf("authority", "authority selects domains of a research partition: give it with date")
	}
	params := BatchParams{Date: now.UTC().Format(seedengine.DateLayout), HarvestPages: req.HarvestPages}
	var (
		ids []string
		err error
	)
	if req.Date != "" {
		p := seedengine.Partition{Country: country, Category: req.Category, Date: req.Date}
		if err := p.Validate(); err != nil {
			return nil, nil, err
		}
		if ids, err = partitionDomainIDs(ctx, domains, p, req.Authority); err != nil {
			return nil, nil, err
		}
		params.Partition = &PartitionParams{Date: p.Date, Authority: string(req.Authority), Domains: len(ids)}
	} else {
		if ids, params.OtherCountries, err = contractDomainIDs(ctx, domains, country, req.DomainIDs); err != nil {
			return nil, nil, err
		}
		params.Duplicates = len(req.DomainIDs) - len(ids)
	}
	size := req.ChunkSize
	if size == 0 {
		size = DefaultChunkSize
	}
	raw, err := json.Marshal(params)
	if err != nil {
		return nil, nil, err
	}
	chunks, err := seedengine.SplitChunks(ids, size, func(part []string) any { return ChunkInput{DomainIDs: part} })
	if err != nil {
		return nil, nil, err
	}
	return &seedengine.Batch{Kind: seedengine.BatchContract, Country: country, Category: req.Category, ChunkSize: size, Params: raw}, chunks, nil
}

// contractDomainIDs checks the domainIds of a contract batch for country
// and returns them lower-cased, without repeats, in request order, with
// how many are of another country. An id of another country is taken when
// the domain registry has it in a partition of country: research gives a
// domain the country its rule or ccTLD says (reuters.com is media:gb
// wherever it is found), and a batch for the country research was done
// for should take what that research found. Otherwise the error names the
// first such id, as domainIds[i].
func contractDomainIDs(ctx context.Context, domains seedengine.DomainService, country string, raw []string) ([]string, int, error) {
	ids := make([]string, 0, len(raw))
	seen := make(map[string]bool, len(raw))
	var foreign []string
	at := map[string]int{} // index of each foreign id in the request
	for i, r := range raw {
		id := strings.ToLower(r)
		field := domainIDsField(i)
		_, c, _, err := seedengine.ParseDomainID(id)
		if err != nil {
			return nil, 0, &seedengine.Error{Code: seedengine.EINVALID, Field: field, Message: field + strings.TrimPrefix(seedengine.ErrorMessage(err), "domain_id")}
		}
		if seen[id] {
			continue
		}
		seen[id] = true
		ids = append(ids, id)
		if c != country {
			foreign = append(foreign, id)
			at[id] = i
		}
	}
	if len(foreign) == 0 {
		return ids, 0, nil
	}
	known := map[string]bool{}
	if domains != nil {
		found, _, err := domains.FindDomains(ctx, seedengine.DomainFilter{IDs: foreign, PartitionCountry: country, Limit: len(foreign)})
		if err != nil {
			return nil, 0, fmt.Errorf("look up %d domain_ids of other countries: %w", len(foreign), err)
		}
		for _, d := range found {
			known[d.ID] = true
		}
	}
	for _, id := range foreign {
		if !known[id] {
			field := domainIDsField(at[id])
			return nil, 0, seedengine.FieldErrorf(field, "%s is of another country than the batch, and no research for the batch's country registered it",
				field)
		}
	}
	return ids, len(foreign), nil
}

func domainIDsField(i int) string { return "domainIds[" + strconv.Itoa(i) + "]" }

// partitionDomainIDs returns the domain_ids research registered in p (of
// authority a, when set), in domain_id order: at most
// MaxPartitionDomains, else EINVALID naming date. A partition
// without any domain has no research: EINVALID naming date too, since the
// body refers to something that does not exist.
//
// Pages are read by offset. Research only ever adds domains to a
// partition, so a domain added between two pages can only repeat one
// already read (dropped here), never hide one.
func partitionDomainIDs(ctx context.Context, domains seedengine.DomainService, p seedengine.Partition, a seedengine.Authority) ([]string, error) {
	if domains == nil {
		return nil, seedengine.Errorf(seedengine.EUNAVAILABLE, "domains are not available on this server")
	}
	name := "country=" + p.Country + "/category=" + p.Category + "/date=" + p.Date
	of := ""
	if a != "" {
		of = " of this authority"
	}
	f := seedengine.DomainFilter{Partition: &p, Authority: a, Limit: partitionPage}
	var ids []string
	seen := map[string]bool{}
	for {
		page, total, err := domains.FindDomains(ctx, f)
		if err != nil {
			return nil, fmt.Errorf("domains of %s: %w", name, err)
		}
		if total > MaxPartitionDomains {
			hint := "give authority to contract one authority at a time"
			if a != "" {
				hint = "name the domains in domainIds, up to 1,000 a batch"
			}
			return nil, seedengine.FieldErrorf("date", "the research partition has %d domains%s, more than the %d a contract batch takes: %s",
				total, of, MaxPartitionDomains, hint)
		}
		for _, d := range page {
			if !seen[d.ID] {
				seen[d.ID] = true
				ids = append(ids, d.ID)
			}
		}
		if len(page) < partitionPage {
			break
		}
		f.Offset += len(page)
	}
	if len(ids) > 0 {
		return ids, nil
	}
	if a != "" {
		_, total, err := domains.FindDomains(ctx, seedengine.DomainFilter{Partition: &p, Limit: 1})
		if err != nil {
			return nil, fmt.Errorf("domains of %s: %w", name, err)
		}
		if total > 0 {
			return nil, seedengine.FieldErrorf("authority", "the research partition has %d domains, none of this authority", total)
		}
	}
	return nil, seedengine.FieldErrorf("date", "the research partition has no domains: no research was recorded for it")
}

// SkippedItem is a seed or domain of a chunk for which no seed was
// written, with the reason.
type SkippedItem struct {
	SeedID   string `json:"seed_id,omitempty"`
	DomainID string `json:"domain_id"`
	Reason   string `json:"reason"`
	Detail   string `json:"detail,omitempty"`
	// ProposedVersion is the contract version recorded as a proposal for
	// a seed that is no longer a draft.
	ProposedVersion int `json:"proposed_version,omitempty"`
}

// DomainRun summarises one domain's contract run in a batch result.
type DomainRun struct {
	DomainID  string `json:"domain_id"`
	Outcome   string `json:"outcome"`
	Requests  int    `json:"requests"`
	ElapsedMS int64  `json:"elapsed_ms"`
	Evidence  string `json:"evidence"` // object key
}

// ChunkResult is the result of one contract chunk; batch results add these
// up (seedengine.MergeResults): lists concatenate, counts add.
type ChunkResult struct {
	Created   []string      `json:"created"`
	Refreshed []string      `json:"refreshed"`
	Skipped   []SkippedItem `json:"skipped"`
	Domains   []DomainRun   `json:"domains"`
	Requests  int           `json:"requests"`
}

// ObjectWriter writes an object whole; any seedengine.ObjectStore is one.
type ObjectWriter interface {
	// PutIfAbsent stores r at key unless an object is there already:
	// ECONFLICT then, and the object is left alone.
	PutIfAbsent(ctx context.Context, key string, r io.Reader, contentType string) (int64, error)
}

// Runner is what the chunk processor needs of a Discoverer.
type Runner interface {
	Discover(ctx context.Context, domainID, domain string) *Evidence
}

// ChunkProcessor returns the processor of contract batch chunks, to
// register with the queue for seedengine.BatchContract. Each domain_id of
// the chunk is examined (ChunkConcurrency at a time), each run's evidence
// written to an object of its own, prod/contracts/{domain}/{time}-{run}.json
// (see WriteEvidence), and each decision recorded as a draft seed
// pointing at it through seeds.RecordDraftSeed: created when new, refreshed
// when a draft, never touching a seed a person has promoted (a differing
// contract becomes a proposed version). An item succeeds when its domain
// got at least one seed recorded; a domain with no decision is a failed
// item with the run's outcome as its reason. A retried chunk examines its
// domains again; drafts are refreshed, so nothing is duplicated.
func ChunkProcessor(r Runner, seeds seedengine.SeedService, objects ObjectWriter) func(context.Context, *seedengine.Batch, *seedengine.BatchChunk) (seedengine.ChunkOutcome, error) {
	return func(ctx context.Context, b *seedengine.Batch, c *seedengine.BatchChunk) (seedengine.ChunkOutcome, error) {
		var in ChunkInput
		if err := json.Unmarshal(c.Input, &in); err != nil {
			return seedengine.ChunkOutcome{}, seedengine.Errorf(seedengine.EINVALID, "contract batch %s chunk %d: input is not {\"domain_ids\": [...]}: %v", b.ID, c.Index, err)
		}
		var params BatchParams
		if len(b.Params) > 0 {
			if err := json.Unmarshal(b.Params, &params); err != nil {
				return seedengine.ChunkOutcome{}, fmt.Errorf("contract batch %s: params: %w", b.ID, err)
			}
		}
		out := ChunkResult{Created: []string{}, Refreshed: []string{}, Skipped: []SkippedItem{}, Domains: []DomainRun{}}
		var o seedengine.ChunkOutcome
		type target struct{ id, domain string }
		var targets []target
		for _, id := range in.DomainIDs {
			_, _, domain, err := seedengine.ParseDomainID(id)
			if err != nil {
				out.Skipped = append(out.Skipped, SkippedItem{DomainID: seedengine.Truncate(id, 300), Reason: "invalid_domain_id", Detail: seedengine.ErrorMessage(err)})
				o.Failed++
				continue
			}
			targets = append(targets, target{id, domain})
		}

		evs := make([]*Evidence, len(targets))
		sem := make(chan struct{}, ChunkConcurrency)
		var wg sync.WaitGroup
		for i, t := range targets {
			sem <- struct{}{}
			wg.Go(func() {
				defer func() { <-sem }()
				evs[i] = r.Discover(ctx, t.id, t.domain)
			})
		}
		wg.Wait()
		if err := ctx.Err(); err != nil {
			return seedengine.ChunkOutcome{}, fmt.Errorf("contract batch %s chunk %d: %w", b.ID, c.Index, err)
		}

		actor := "contract_batch:" + b.ID
		for _, ev := range evs {
			key, err := WriteEvidence(ctx, objects, ev)
			if err != nil {
				return seedengine.ChunkOutcome{}, fmt.Errorf("contract batch %s chunk %d: %w", b.ID, c.Index, err)
			}
			out.Domains = append(out.Domains, DomainRun{DomainID: ev.DomainID, Outcome: ev.Outcome, Requests: ev.Spent.Requests, ElapsedMS: ev.Spent.ElapsedMS, Evidence: key})
			out.Requests += ev.Spent.Requests
			if len(ev.Decisions) == 0 {
				out.Skipped = append(out.Skipped, SkippedItem{DomainID: ev.DomainID, Reason: ev.Outcome, Detail: ev.Detail})
				o.Failed++
				continue
			}
			recorded := 0
			for _, d := range ev.Decisions {
				s := SeedFrom(ev, d, key, b.Category)
				s.Harvest.Pages = params.HarvestPages
				res, err := seeds.RecordDraftSeed(ctx, s, actor, b.ID)
				if seedengine.ErrorCode(err) == seedengine.EINVALID {
					// What the site published cannot make a valid seed
					// (an absurd URL, say): that domain's seed is
					// skipped, the rest of the chunk goes on.
					out.Skipped = append(out.Skipped, SkippedItem{SeedID: s.SeedID, DomainID: ev.DomainID, Reason: "invalid_contract", Detail: seedengine.ErrorMessage(err)})
					continue
				}
				if err != nil {
					return seedengine.ChunkOutcome{}, fmt.Errorf("contract batch %s chunk %d: record seed %s: %w", b.ID, c.Index, s.SeedID, err)
				}
				recorded++
				switch res.Result {
				case seedengine.SeedCreated:
					out.Created = append(out.Created, s.SeedID)
				case seedengine.SeedRefreshed, seedengine.SeedReopened:
					// A reopened seed (it was rejected, and the run found
					// another entry) is a refreshed draft again.
					out.Refreshed = append(out.Refreshed, s.SeedID)
				default:
					out.Skipped = append(out.Skipped, SkippedItem{SeedID: s.SeedID, DomainID: ev.DomainID, Reason: res.Reason, ProposedVersion: res.ProposedVersion})
				}
			}
			if recorded == 0 {
				o.Failed++
				continue
			}
			o.Succeeded++
		}
		var err error
		if o.Result, err = json.Marshal(out); err != nil {
			return seedengine.ChunkOutcome{}, fmt.Errorf("contract batch %s chunk %d: encode result: %w", b.ID, c.Index, err)
		}
		return o, nil
	}
}

// evidenceKeyAttempts bounds how many run ids WriteEvidence tries. A
// conflict needs two runs of one domain in one second drawing the same
// 40-bit id, so a second attempt is already a formality; more than three
// conflicts in a row mean the store answers ECONFLICT for another reason.
const evidenceKeyAttempts = 3

// WriteEvidence stores ev under a key of its own and returns the key. Runs
// of one registrable domain under several domain_ids (gov:sg:x.gov.sg and
// other:sg:x.gov.sg) start in the same second, so the key carries a fresh
// run id, and PutIfAbsent makes sure no run overwrites another's evidence.
func WriteEvidence(ctx context.Context, objects ObjectWriter, ev *Evidence) (string, error) {
	b, err := json.MarshalIndent(ev, "", "  ")
	if err != nil {
		return "", fmt.Errorf("encode evidence of %s: %w", ev.Domain, err)
	}
	for attempt := 1; ; attempt++ {
		key, err := layout.ContractEvidenceKey(ev.Domain, ev.StartedAt, layout.NewContractRunID())
		if err != nil {
			return "", fmt.Errorf("evidence key for %s: %w", ev.Domain, err)
		}
		_, err = objects.PutIfAbsent(ctx, key, bytes.NewReader(b), "application/json")
		if err == nil {
			return key, nil
		}
		if seedengine.ErrorCode(err) != seedengine.ECONFLICT || attempt == evidenceKeyAttempts {
			return "", fmt.Errorf("write %s: %w", key, err)
		}
	}
}

// maxSeedCrawlDelay is the largest Crawl-delay a seed records: a day. A
// site asking for more asks not to be crawled at all, which a day between
// requests honours well enough.
const maxSeedCrawlDelay = 86400

// SeedFrom builds the draft seed of one decision.
func SeedFrom(ev *Evidence, d Decision, evidenceKey, category string) *seedengine.Seed {
	s := &seedengine.Seed{
		DomainID:    ev.DomainID,
		ContentType: d.ContentType,
		Category:    category,
		Fetch:       seedengine.SeedFetch{Type: d.FetchType, EntryURL: d.EntryURL, Schedule: d.Schedule, Selectors: d.Selectors},
		Policy: seedengine.SeedPolicy{
			RobotsURL:    ev.Robots.URL,
			CrawlAllowed: d.CrawlAllowed,
			CrawlDelay:   min(ev.Robots.CrawlDelay, maxSeedCrawlDelay),
			SitemapURL:   bestSitemap(editionView(ev, d)),
		},
		Confidence: d.Confidence,
		Harvest:    seedengine.SeedHarvest{Archive: d.Archive},
		Source:     seedengine.SeedSource{Edition: d.Edition},
	}
	// An entry on another host of the domain is governed by that host's
	// robots.txt, which the run read.
	for _, h := range ev.HostRobots {
		if strings.EqualFold(hostOnly(h.Host), hostOf(d.EntryURL)) {
			s.Policy.RobotsURL, s.Policy.CrawlDelay = h.URL, min(h.CrawlDelay, maxSeedCrawlDelay)
		}
	}
	checked := ev.FinishedAt
	s.Evidence = seedengine.SeedEvidence{Key: evidenceKey, Method: d.Method, Why: d.Why, Candidates: len(ev.Candidates), Requests: ev.Spent.Requests, CheckedAt: &checked}
	if c := d.candidate; c != nil {
		s.Evidence.Items = c.Items
		if c.Kind == KindSitemap && c.NewsItems > 0 {
			s.Evidence.Items = c.NewsItems
		}
		s.Evidence.Newest = c.Newest
	}
	if c := d.candidate; c != nil && c.Name != "" {
		s.Source.Name = seedengine.Truncate(c.Name, 200)
	}
	s.Normalize()
	return s
}
