package liveness

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/discover"
	"github.com/seedengine/seedengine/internal/layout"
)

// ChunkConcurrency is how many domains of one chunk are fetched at once.
// The fetch client still holds every host to one request in flight and
// its delay, and all chunks together to its global limit; this only keeps
// a chunk from waiting on its slowest domains one after the other.
const ChunkConcurrency = 16

// Reasons of invalid batch items, beside discover's Reason* codes.
const (
	ReasonInvalidDomainID = "invalid_domain_id" // looked like a domain_id and was not a valid one
)

// DefaultChunkSize is the chunk size of a liveness batch that names none.
// A probe takes up to seconds (and a retry round for dead domains), so
// chunks are smaller than research's: a failed job redoes little and a
// chunk's domains are probed ChunkConcurrency at a time.
const DefaultChunkSize = 50

// Plan turns a list of domains (bare names, URLs or domain_ids) for a
// country into a liveness batch and its chunks of chunkSize (0:
// DefaultChunkSize), for the queue to create. now fixes the date of the
// batch's JSONL results, however late its chunks run.
func Plan(country string, domains []string, chunkSize int, now time.Time) (*seedengine.Batch, []*seedengine.BatchChunk, error) {
	if chunkSize == 0 {
		chunkSize = DefaultChunkSize
	}
	params, err := json.Marshal(seedengine.LivenessBatchParams{Date: now.UTC().Format(seedengine.DateLayout)})
	if err != nil {
		return nil, nil, err
	}
	chunks, err := seedengine.SplitChunks(domains, chunkSize, func(part []string) any { return ChunkInput{Domains: part} })
	if err != nil {
		return nil, nil, err
	}
	return &seedengine.Batch{Kind: seedengine.BatchLiveness, Country: country, ChunkSize: chunkSize, Params: params}, chunks, nil
}

// ChunkJob is the queue job that runs one chunk of a liveness batch. Its
// kind is stored with every job, so it never changes.
type ChunkJob struct{ seedengine.ChunkRef }

// Kind names the job.
func (ChunkJob) Kind() string { return "liveness_chunk" }

// ChunkInput is the input of one liveness chunk: the batch's items from
// index chunk×chunk_size, each a bare domain name, a URL or a domain_id.
type ChunkInput struct {
	Domains []string `json:"domains"`
}

// InvalidItem is an input that could not become a domain to probe,
// reported with its index in the whole batch.
type InvalidItem struct {
	Index  int    `json:"index"`
	Input  string `json:"input"`
	Reason string `json:"reason"`
}

// ChunkResult is the result of one liveness chunk. Batch results add
// these up (seedengine.MergeResults): counts add, lists concatenate. Every
// item of a chunk is counted once: in Verdicts (a domain probed with a
// verdict), NoVerdict (probed, no verdict could be given), Duplicates (the
// same registrable domain as an earlier item of the chunk, not probed
// again) or Invalid. ResultsKey is where the batch's JSONL results are once
// it has finished: each chunk writes a part, and the batch's finisher merges
// the parts into that one object and deletes them.
type ChunkResult struct {
	Verdicts   map[seedengine.Verdict]int `json:"verdicts"`
	NoVerdict  int                        `json:"no_verdict"`
	Duplicates int                        `json:"duplicates"`
	Invalid    []InvalidItem              `json:"invalid"`
	ResultsKey string                     `json:"results_key,omitempty"`
}

// DomainProber probes one domain; *Prober is one.
type DomainProber interface {
	Probe(ctx context.Context, domain string) seedengine.LivenessResult
}

// ObjectWriter writes an object whole, replacing any at key; any
// seedengine.ObjectStore is one.
type ObjectWriter interface {
	Put(ctx context.Context, key string, r io.Reader, contentType string) (int64, error)
}

// target is one domain of a chunk to probe.
type target struct {
	domain   string
	domainID string
}

// ChunkProcessor returns the processor of liveness batch chunks, to
// register with the queue for seedengine.BatchLiveness. The batch's params
// are a seedengine.LivenessBatchParams and a chunk's input a ChunkInput.
//
// Each item is normalised through discover: a domain_id keeps its id and
// is probed at its registrable domain; a name or URL is probed at its
// registrable domain. Invalid items are failed items, not errors. The
// domains are probed ChunkConcurrency at a time, the results recorded
// through store (history and latest), and written as JSON lines, one
// result per line in input order, to the object at
// layout.LivenessChunkKey — one object per chunk, because chunks run in
// parallel and objects are written whole. A retried chunk probes again and
// replaces both its rows and its object. Probes that ended because ctx did
// fail the attempt, so the queue retries it.
func ChunkProcessor(p DomainProber, classifier *discover.Classifier, store seedengine.LivenessService, objects ObjectWriter) func(context.Context, *seedengine.Batch, *seedengine.BatchChunk) (seedengine.ChunkOutcome, error) {
	return func(ctx context.Context, b *seedengine.Batch, c *seedengine.BatchChunk) (seedengine.ChunkOutcome, error) {
		date, err := batchDate(b)
		if err != nil {
			return seedengine.ChunkOutcome{}, err
		}
		var in ChunkInput
		if err := json.Unmarshal(c.Input, &in); err != nil {
			return seedengine.ChunkOutcome{}, seedengine.Errorf(seedengine.EINVALID, "liveness batch %s chunk %d: input is not {\"domains\": [...]}: %v", b.ID, c.Index, err)
		}
		key, err := layout.LivenessChunkKey(b.Country, date, b.ID, c.Index)
		if err != nil {
			return seedengine.ChunkOutcome{}, fmt.Errorf("liveness batch %s chunk %d: %w", b.ID, c.Index, err)
		}

		out := ChunkResult{Verdicts: map[seedengine.Verdict]int{}, Invalid: []InvalidItem{}}
		offset := c.Index * b.ChunkSize
		var targets []target
		firstOf := map[string]int{} // domain → index in targets
		dupOf := map[int]int{}      // item index → index in targets of its original
		for i, item := range in.Domains {
			t, reason := normalizeItem(classifier, item, b.Country)
			if reason != "" {
				out.Invalid = append(out.Invalid, InvalidItem{Index: offset + i, Input: seedengine.Truncate(item, 300), Reason: reason})
				continue
			}
			if k, ok := firstOf[t.domain]; ok {
				dupOf[i] = k
				continue
			}
			firstOf[t.domain] = len(targets)
			targets = append(targets, t)
		}

		results := probeAll(ctx, p, targets)
		if err := ctx.Err(); err != nil {
			return seedengine.ChunkOutcome{}, fmt.Errorf("liveness batch %s chunk %d: %w", b.ID, c.Index, err)
		}
		var jsonl bytes.Buffer
		enc := json.NewEncoder(&jsonl)
		for _, r := range results {
			if err := enc.Encode(r); err != nil {
				return seedengine.ChunkOutcome{}, fmt.Errorf("liveness batch %s chunk %d: encode %q: %w", b.ID, c.Index, r.Domain, err)
			}
		}
		if len(results) > 0 {
			if _, err := objects.Put(ctx, key, &jsonl, "application/x-ndjson"); err != nil {
				return seedengine.ChunkOutcome{}, fmt.Errorf("liveness batch %s chunk %d: write %s: %w", b.ID, c.Index, key, err)
			}
			if out.ResultsKey, err = layout.LivenessKey(b.Country, date, b.ID); err != nil {
				return seedengine.ChunkOutcome{}, fmt.Errorf("liveness batch %s chunk %d: %w", b.ID, c.Index, err)
			}
			if err := store.RecordLivenessResults(ctx, b.ID, results); err != nil {
				return seedengine.ChunkOutcome{}, fmt.Errorf("liveness batch %s chunk %d: %w", b.ID, c.Index, err)
			}
		}

		var o seedengine.ChunkOutcome
		for _, r := range results {
			if r.Verdict == "" {
				out.NoVerdict++
				o.Failed++
				continue
			}
			out.Verdicts[r.Verdict]++
			o.Succeeded++
		}
		for _, k := range dupOf {
			out.Duplicates++
			if results[k].Verdict == "" {
				o.Failed++
			} else {
				o.Succeeded++
			}
		}
		o.Failed += len(out.Invalid)
		if o.Result, err = json.Marshal(out); err != nil {
			return seedengine.ChunkOutcome{}, fmt.Errorf("liveness batch %s chunk %d: encode result: %w", b.ID, c.Index, err)
		}
		return o, nil
	}
}

// probeAll probes targets ChunkConcurrency at a time and returns their
// results in the same order. A *Prober's lookups run ahead (probeAhead).
func probeAll(ctx context.Context, p DomainProber, targets []target) []seedengine.LivenessResult {
	if pr, ok := p.(*Prober); ok {
		return probeAhead(ctx, pr, targets)
	}
	results := make([]seedengine.LivenessResult, len(targets))
	sem := make(chan struct{}, ChunkConcurrency)
	var wg sync.WaitGroup
	for i, t := range targets {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			r := p.Probe(ctx, t.domain)
			r.DomainID = t.domainID
			results[i] = r
		})
	}
	wg.Wait()
	return results
}

// probeAhead probes targets with their DNS ahead of their fetches: the
// lookups start with the chunk, in input order, as many at once as the
// Prober's Lookups allow (all chunks together), and a domain takes one of
// ChunkConcurrency fetch slots, and one of the Prober's Fetches (all
// chunks together), only once its name has resolved. A name
// that does not resolve waits for its retry holding no slot at all, and
// gets its verdict from DNS alone. Results are in targets' order.
func probeAhead(ctx context.Context, p *Prober, targets []target) []seedengine.LivenessResult {
	results := make([]seedengine.LivenessResult, len(targets))
	pend := make([]*pending, len(targets))
	ready := make(chan int, len(targets)) // indexes whose lookups are done
	go func() {
		var wg sync.WaitGroup
		for i, t := range targets {
			p.lookups <- struct{}{} // resolve gives it back
			wg.Go(func() {
				pend[i] = p.resolve(ctx, t.domain, p.lookups)
				ready <- i
			})
		}
		wg.Wait()
		close(ready)
	}()
	sem := make(chan struct{}, ChunkConcurrency)
	var wg sync.WaitGroup
	for i := range ready {
		if pend[i].done {
			results[i] = pend[i].res
			results[i].DomainID = targets[i].domainID
			pend[i] = nil
			continue
		}
		sem <- struct{}{}
		p.fetches <- struct{}{} // finish gives it back
		wg.Go(func() {
			defer func() { <-sem }()
			results[i] = p.finish(ctx, pend[i], p.fetches)
			results[i].DomainID = targets[i].domainID
			pend[i] = nil // results[i] holds what is kept
		})
	}
	wg.Wait()
	return results
}

// normalizeItem turns one input into the domain to probe, or a reason it
// cannot. An input with a ":" that is not a URL or host:port and whose
// first part is an authority is taken as a domain_id. An IP address, in a
// URL, bare or in a domain_id, is not a domain:
// discover.ReasonNoRegistrableDomain, as research says of it.
func normalizeItem(c *discover.Classifier, item, country string) (target, string) {
	s := strings.TrimSpace(item)
	if s == "" {
		return target{}, discover.ReasonEmpty
	}
	if looksLikeDomainID(s) {
		id := strings.ToLower(s)
		_, _, registrable, err := seedengine.ParseDomainID(id)
		if err != nil {
			if parts := strings.SplitN(id, ":", 3); len(parts) == 3 && discover.IsIPLiteral(parts[2]) {
				// An IP is refused by ParseDomainID too; say why as
				// research does.
				return target{}, discover.ReasonNoRegistrableDomain
			}
			return target{}, ReasonInvalidDomainID
		}
		return target{domain: registrable, domainID: id}, ""
	}
	rec, err := c.Analyze(s, country)
	if err != nil {
		if ue, ok := errors.AsType[*discover.URLError](err); ok {
			return target{}, ue.Reason
		}
		return target{}, discover.ReasonInvalidURL
	}
	return target{domain: rec.RegistrableDomain}, ""
}

// looksLikeDomainID reports whether s has the form authority:…:… with a
// known authority; "example.com:8080" and "https://x" do not.
func looksLikeDomainID(s string) bool {
	a, rest, ok := strings.Cut(s, ":")
	if !ok || strings.HasPrefix(rest, "//") {
		return false
	}
	return seedengine.Authority(strings.ToLower(a)).Valid() && strings.Contains(rest, ":")
}
