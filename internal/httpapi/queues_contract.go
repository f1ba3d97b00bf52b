package httpapi

import (
	"context"
	"encoding/json"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/seedengine/seedengine"
)

// Contract batches: domain_ids whose evidence (robots.txt, sitemaps,
// feeds) becomes draft seed contracts. The batch's params and each
// chunk's input are read by the contract chunk processor, which documents
// the same shapes.

// defaultContractChunkSize is the chunk size of a contract batch that
// names none. A contract run may take up to 40 requests and 30 s per
// domain, so chunks are small: a failed job redoes little.
const defaultContractChunkSize = 20

type contractQueueRequest struct {
	Country   string   `json:"country" minLength:"2" maxLength:"4" doc:"ISO 3166-1 alpha-2 code or intl, any case; every domain_id must be of this country." example:"sg"`
	Category  string   `json:"category" pattern:"^[a-z0-9_]{1,40}$" doc:"Category of the seeds created." example:"news"`
	DomainIDs []string `json:"domainIds" minItems:"1" maxItems:"1000" maxLength:"300" doc:"Domain ids ({authority}:{country}:{registrable_domain}, any case); repeats are dropped and counted in the batch params." example:"[\"gov:sg:mom.gov.sg\", \"gov:sg:mti.gov.sg\"]"`
	ChunkSize int      `json:"chunkSize,omitempty" minimum:"1" maximum:"100" doc:"Domains per chunk job; 20 when absent."`
}

type contractQueueInput struct{ Body contractQueueRequest }

// contractBatchParams are a contract batch's params (Batch.Params).
type contractBatchParams struct {
	Date       string `json:"date"`       // the day the batch was accepted, UTC
	Duplicates int    `json:"duplicates"` // repeated domain_ids dropped
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
	ids := make([]string, 0, len(req.DomainIDs))
	seen := make(map[string]bool, len(req.DomainIDs))
	for i, raw := range req.DomainIDs {
		id := strings.ToLower(raw)
		field := "domainIds[" + strconv.Itoa(i) + "]"
		_, c, _, err := seedengine.ParseDomainID(id)
		if err != nil {
			return nil, &seedengine.Error{Code: seedengine.EINVALID, Field: field, Message: field + ": " + seedengine.ErrorMessage(err)}
		}
		if c != country {
			return nil, seedengine.FieldErrorf(field, "%s: domain_id %q is of country %q, not the batch's %q", field, seedengine.Truncate(id, 120), c, country)
		}
		if seen[id] {
			continue
		}
		seen[id] = true
		ids = append(ids, id)
	}
	size := req.ChunkSize
	if size == 0 {
		size = defaultContractChunkSize
	}
	params, err := json.Marshal(contractBatchParams{
		Date:       time.Now().UTC().Format(seedengine.DateLayout),
		Duplicates: len(req.DomainIDs) - len(ids),
	})
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
		Params:    params,
	}, chunks)
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
