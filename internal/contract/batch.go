package contract

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sync"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/blobstore"
)

// ChunkConcurrency is how many domains of one chunk are examined at once.
// The fetch client still holds every host to one request in flight and its
// delay, and everything to its global limit.
const ChunkConcurrency = 20

// ChunkInput is the input of one contract chunk.
type ChunkInput struct {
	DomainIDs []string `json:"domain_ids"`
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

// ObjectWriter writes an object whole; *blobstore.Store is one.
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
// (see writeEvidence), and each decision recorded as a draft seed
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
			key, err := writeEvidence(ctx, objects, ev)
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
				case seedengine.SeedRefreshed:
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

// evidenceKeyAttempts bounds how many run ids writeEvidence tries. A
// conflict needs two runs of one domain in one second drawing the same
// 40-bit id, so a second attempt is already a formality; more than three
// conflicts in a row mean the store answers ECONFLICT for another reason.
const evidenceKeyAttempts = 3

// writeEvidence stores ev under a key of its own and returns the key. Runs
// of one registrable domain under several domain_ids (gov:sg:x.gov.sg and
// other:sg:x.gov.sg) start in the same second, so the key carries a fresh
// run id, and PutIfAbsent makes sure no run overwrites another's evidence.
func writeEvidence(ctx context.Context, objects ObjectWriter, ev *Evidence) (string, error) {
	b, err := json.MarshalIndent(ev, "", "  ")
	if err != nil {
		return "", fmt.Errorf("encode evidence of %s: %w", ev.Domain, err)
	}
	for attempt := 1; ; attempt++ {
		key, err := blobstore.ContractEvidenceKey(ev.Domain, ev.StartedAt, blobstore.NewContractRunID())
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
			SitemapURL:   bestSitemap(ev),
		},
		Confidence: d.Confidence,
	}
	checked := ev.FinishedAt
	s.Evidence = seedengine.SeedEvidence{Key: evidenceKey, Method: d.Method, Candidates: len(ev.Candidates), Requests: ev.Spent.Requests, CheckedAt: &checked}
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
