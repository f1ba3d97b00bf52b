package httpapi

import (
	"context"
	"net/url"
	"time"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/contract"
)

// Contract batches: domain_ids whose evidence (robots.txt, sitemaps,
// feeds) becomes draft seed contracts, named one by one or as the domains
// research registered in a partition. contract.Plan makes the batch and
// its chunks, and the contract chunk processor reads them.

type contractQueueRequest struct {
	Country      string   `json:"country" minLength:"2" maxLength:"4" doc:"ISO 3166-1 alpha-2 code or intl, any case. With domainIds, each domain_id must be of this country or registered by research in a partition of this country (research for gl files reuters.com as media:gb:reuters.com); with date, the research partition's country." example:"sg"`
	Category     string   `json:"category" pattern:"^[a-z0-9_]{1,40}$" doc:"Category of the seeds created; with date, also the research partition's category." example:"news"`
	DomainIDs    []string `json:"domainIds,omitempty" minItems:"1" maxItems:"1000" maxLength:"300" doc:"Domain ids ({authority}:{country}:{registrable_domain}, any case); repeats are dropped and counted in the batch params. Give domainIds or date, not both." example:"[\"gov:sg:mom.gov.sg\", \"gov:sg:mti.gov.sg\"]"`
	Date         string   `json:"date,omitempty" format:"date" doc:"A research partition (country, category, date): contract every domain research registered in it, read from the domain registry in domain_id order; at most 10,000 (narrow with authority). 422 when the partition has no research. Give date or domainIds, not both." example:"2026-01-28"`
	Authority    string   `json:"authority,omitempty" enum:"gov,mil,edu,ngo,org,media,com,other" doc:"With date only: just the partition's domains of this authority."`
	HarvestPages bool     `json:"harvest_pages,omitempty" doc:"Turn page fetching on (harvest.pages) for every seed the batch records: their items' pages are fetched and kept as WARC once they are active. A batch never turns it off."`
	ChunkSize    int      `json:"chunkSize,omitempty" minimum:"1" maximum:"100" doc:"Domains per chunk job; 20 when absent."`
}

type contractQueueInput struct{ Body contractQueueRequest }

func (s *Server) handleContractEnqueue(ctx context.Context, in *contractQueueInput) (*batchAcceptedOutput, error) {
	if s.deps.Batches == nil {
		return nil, unavailable("batches")
	}
	req := &in.Body
	b, chunks, err := contract.Plan(ctx, s.deps.Domains, contract.BatchRequest{
		Country: req.Country, Category: req.Category, DomainIDs: req.DomainIDs,
		Date: req.Date, Authority: seedengine.Authority(req.Authority), ChunkSize: req.ChunkSize, HarvestPages: req.HarvestPages,
	}, time.Now())
	if err != nil {
		return nil, err
	}
	return s.acceptBatch(ctx, b, chunks)
}

// acceptBatch writes a batch and its chunks (and their jobs) and answers
// 202 with where to follow it.
func (s *Server) acceptBatch(ctx context.Context, b *seedengine.Batch, chunks []*seedengine.BatchChunk) (*batchAcceptedOutput, error) {
	if err := s.deps.Batches.CreateBatch(ctx, b, chunks); err != nil {
		return nil, err
	}
	return &batchAcceptedOutput{Location: "/api/v1/queues/batch/" + url.PathEscape(b.ID), Body: b}, nil
}
