package httpapi

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/seedengine/seedengine"
)

// Contract batches: domain_ids whose evidence (robots.txt, sitemaps,
// feeds) becomes draft seed contracts, named one by one or as the domains
// research registered in a partition. The batch's params and each chunk's
// input are read by the contract chunk processor, which documents the same
// shapes.

// defaultContractChunkSize is the chunk size of a contract batch that
// names none. A contract run may take up to 40 requests and 30 s per
// domain, so chunks are small: a failed job redoes little.
const defaultContractChunkSize = 20

// maxContractPartitionDomains bounds a contract batch made from a research
// partition: as many items as the largest research batch brings, about
// 10,000 × 30 s of contract runs at most. A larger partition is taken one
// authority at a time.
const maxContractPartitionDomains = 10000

// contractPartitionPage is how many domains one registry read brings, the
// registry's largest page.
const contractPartitionPage = 1000

type contractQueueRequest struct {
	Country   string   `json:"country" minLength:"2" maxLength:"4" doc:"ISO 3166-1 alpha-2 code or intl, any case. With domainIds, each domain_id must be of this country or registered by research in a partition of this country (research for gl files reuters.com as media:gb:reuters.com); with date, the research partition's country." example:"sg"`
	Category  string   `json:"category" pattern:"^[a-z0-9_]{1,40}$" doc:"Category of the seeds created; with date, also the research partition's category." example:"news"`
	DomainIDs []string `json:"domainIds,omitempty" minItems:"1" maxItems:"1000" maxLength:"300" doc:"Domain ids ({authority}:{country}:{registrable_domain}, any case); repeats are dropped and counted in the batch params. Give domainIds or date, not both." example:"[\"gov:sg:mom.gov.sg\", \"gov:sg:mti.gov.sg\"]"`
	Date      string   `json:"date,omitempty" format:"date" doc:"A research partition (country, category, date): contract every domain research registered in it, read from the domain registry in domain_id order; at most 10,000 (narrow with authority). 422 when the partition has no research. Give date or domainIds, not both." example:"2026-01-28"`
	Authority string   `json:"authority,omitempty" enum:"gov,mil,edu,ngo,org,media,com,other" doc:"With date only: just the partition's domains of this authority."`
	ChunkSize int      `json:"chunkSize,omitempty" minimum:"1" maximum:"100" doc:"Domains per chunk job; 20 when absent."`
}

type contractQueueInput struct{ Body contractQueueRequest }

// contractBatchParams are a contract batch's params (Batch.Params).
type contractBatchParams struct {
	Date       string `json:"date"`       // the day the batch was accepted, UTC
	Duplicates int    `json:"duplicates"` // repeated domain_ids dropped
	// OtherCountries counts the domain_ids of another country than the
	// batch's, taken because research for the batch's country registered
	// them.
	OtherCountries int `json:"other_countries,omitempty"`
	// Partition is set for a batch of a research partition's domains.
	Partition *contractPartitionParams `json:"partition,omitempty"`
}

// contractPartitionParams name the research partition (of the batch's
// country and category) a contract batch was made from.
type contractPartitionParams struct {
	Date      string `json:"date"`
	Authority string `json:"authority,omitempty"`
	Domains   int    `json:"domains"` // the batch's items
}

// contractChunkInput is one contract chunk's input (BatchChunk.Input).
type contractChunkInput struct {
	DomainIDs []string `json:"domain_ids"`
}

func (s *Server) handleContractEnqueue(ctx context.Context, in *contractQueueInput) (*batchAcceptedOutput, error) {
	if s.deps.Batches == nil {
		return nil, unavailable("batches")
	}
	req := &in.Body
	country := seedengine.NormalizeCountry(req.Country)
	if err := seedengine.ValidateCountry(country); err != nil {
		return nil, err
	}
	if err := seedengine.ValidateCategory(req.Category); err != nil {
		return nil, err
	}
	switch {
	case req.DomainIDs == nil && req.Date == "":
		return nil, seedengine.FieldErrorf("domainIds", "domainIds or date (a research partition) is required")
	case req.DomainIDs != nil && req.Date != "":
		return nil, seedengine.FieldErrorf("date", "give domainIds or date, not both")
	case req.Authority != "" && req.Date == "":
		return nil, seedengine.FieldErrorf("authority", "authority selects domains of a research partition: give it with date")
	}
	params := contractBatchParams{Date: time.Now().UTC().Format(seedengine.DateLayout)}
	var (
		ids []string
		err error
	)
	if req.Date != "" {
		p := seedengine.Partition{Country: country, Category: req.Category, Date: req.Date}
		if err := p.Validate(); err != nil {
			return nil, err
		}
		if ids, err = s.partitionDomainIDs(ctx, p, seedengine.Authority(req.Authority)); err != nil {
			return nil, err
		}
		params.Partition = &contractPartitionParams{Date: p.Date, Authority: req.Authority, Domains: len(ids)}
	} else {
		if ids, params.OtherCountries, err = s.contractDomainIDs(ctx, country, req.DomainIDs); err != nil {
			return nil, err
		}
		params.Duplicates = len(req.DomainIDs) - len(ids)
	}
	size := req.ChunkSize
	if size == 0 {
		size = defaultContractChunkSize
	}
	raw, err := json.Marshal(params)
	if err != nil {
		return nil, err
	}
	chunks, err := chunkBatch(ids, size, func(part []string) any { return contractChunkInput{DomainIDs: part} })
	if err != nil {
		return nil, err
	}
	return s.acceptBatch(ctx, &seedengine.Batch{
		Kind:      seedengine.BatchContract,
		Country:   country,
		Category:  req.Category,
		ChunkSize: size,
		Params:    raw,
	}, chunks)
}

// contractDomainIDs checks the domainIds of a contract batch for country
// and returns them lower-cased, without repeats, in request order, with
// how many are of another country. An id of another country is taken when
// the domain registry has it in a partition of country: research gives a
// domain the country its rule or ccTLD says (reuters.com is media:gb
// wherever it is found), and a batch for the country research was done
// for should take what that research found. Otherwise the error names the
// first such id, as domainIds[i].
func (s *Server) contractDomainIDs(ctx context.Context, country string, raw []string) ([]string, int, error) {
	ids := make([]string, 0, len(raw))
	seen := make(map[string]bool, len(raw))
	var foreign []string
	at := map[string]int{} // index of each foreign id in the request
	for i, r := range raw {
		id := strings.ToLower(r)
		field := domainIDsField(i)
		_, c, _, err := seedengine.ParseDomainID(id)
		if err != nil {
			return nil, 0, &seedengine.Error{Code: seedengine.EINVALID, Field: field, Message: field + ": " + seedengine.ErrorMessage(err)}
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
	if s.deps.Domains != nil {
		found, _, err := s.deps.Domains.FindDomains(ctx, seedengine.DomainFilter{IDs: foreign, PartitionCountry: country, Limit: len(foreign)})
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
			_, c, _, _ := seedengine.ParseDomainID(id)
			return nil, 0, seedengine.FieldErrorf(field, "%s: domain_id %q is of country %q, not the batch's %q, and no research for %q registered it",
				field, seedengine.Truncate(id, 120), c, country, country)
		}
	}
	return ids, len(foreign), nil
}

func domainIDsField(i int) string { return "domainIds[" + strconv.Itoa(i) + "]" }

// partitionDomainIDs returns the domain_ids research registered in p (of
// authority a, when set), in domain_id order: at most
// maxContractPartitionDomains, else EINVALID naming date. A partition
// without any domain has no research: EINVALID naming date too, since the
// body refers to something that does not exist.
//
// Pages are read by offset. Research only ever adds domains to a
// partition, so a domain added between two pages can only repeat one
// already read (dropped here), never hide one.
func (s *Server) partitionDomainIDs(ctx context.Context, p seedengine.Partition, a seedengine.Authority) ([]string, error) {
	if s.deps.Domains == nil {
		return nil, unavailable("domains")
	}
	name := "country=" + p.Country + "/category=" + p.Category + "/date=" + p.Date
	of := ""
	if a != "" {
		of = " of authority " + string(a)
	}
	f := seedengine.DomainFilter{Partition: &p, Authority: a, Limit: contractPartitionPage}
	var ids []string
	seen := map[string]bool{}
	for {
		page, total, err := s.deps.Domains.FindDomains(ctx, f)
		if err != nil {
			return nil, fmt.Errorf("domains of %s: %w", name, err)
		}
		if total > maxContractPartitionDomains {
			hint := "give authority to contract one authority at a time"
			if a != "" {
				hint = "name the domains in domainIds, up to 1,000 a batch"
			}
			return nil, seedengine.FieldErrorf("date", "research partition %s has %d domains%s, more than the %d a contract batch takes: %s",
				name, total, of, maxContractPartitionDomains, hint)
		}
		for _, d := range page {
			if !seen[d.ID] {
				seen[d.ID] = true
				ids = append(ids, d.ID)
			}
		}
		if len(page) < contractPartitionPage {
			break
		}
		f.Offset += len(page)
	}
	if len(ids) > 0 {
		return ids, nil
	}
	if a != "" {
		_, total, err := s.deps.Domains.FindDomains(ctx, seedengine.DomainFilter{Partition: &p, Limit: 1})
		if err != nil {
			return nil, fmt.Errorf("domains of %s: %w", name, err)
		}
		if total > 0 {
			return nil, seedengine.FieldErrorf("authority", "research partition %s has %d domains, none of authority %s", name, total, a)
		}
	}
	return nil, seedengine.FieldErrorf("date", "research partition %s has no domains: no research was recorded for it", name)
}

// chunkBatch splits items into chunks of size, each with the JSON of
// input(part) as its input.
func chunkBatch[T any](items []T, size int, input func(part []T) any) ([]*seedengine.BatchChunk, error) {
	chunks := make([]*seedengine.BatchChunk, 0, (len(items)+size-1)/size)
	for start := 0; start < len(items); start += size {
		part := items[start:min(start+size, len(items))]
		raw, err := json.Marshal(input(part))
		if err != nil {
			return nil, err
		}
		chunks = append(chunks, &seedengine.BatchChunk{Input: raw, Items: len(part)})
	}
	return chunks, nil
}

// acceptBatch writes a batch and its chunks (and their jobs) and answers
// 202 with where to follow it.
func (s *Server) acceptBatch(ctx context.Context, b *seedengine.Batch, chunks []*seedengine.BatchChunk) (*batchAcceptedOutput, error) {
	if err := s.deps.Batches.CreateBatch(ctx, b, chunks); err != nil {
		return nil, err
	}
	return &batchAcceptedOutput{Location: "/api/v1/queues/batch/" + url.PathEscape(b.ID), Body: b}, nil
}
