package httpapi

import (
	"context"
	"encoding/json"
	"net/url"
	"sort"
	"time"

	"github.com/seedengine/seedengine"
)

type batchListInput struct {
	Kind   string `query:"kind" enum:"research,liveness,contract,orchestration" doc:"Only batches of this kind."`
	Status string `query:"status" enum:"queued,running,completed,completed_with_errors,failed,cancelled" doc:"Only batches in this status."`
	Limit  int    `query:"limit" default:"50" minimum:"1" maximum:"1000" doc:"Page size."`
	Offset int    `query:"offset" default:"0" minimum:"0" doc:"Items to skip."`
}

type batchList struct {
	Items  []*seedengine.Batch `json:"items"`
	Total  int                 `json:"total" doc:"Batches matching the filters, regardless of limit and offset."`
	Limit  int                 `json:"limit"`
	Offset int                 `json:"offset"`
}

type batchListOutput struct{ Body batchList }

// Batch ids are ULIDs or UUIDv7s; the pattern admits both and keeps
// anything that could not be an id away from the store.
type batchInput struct {
	BatchID string `path:"batchId" maxLength:"128" pattern:"^[A-Za-z0-9_.:-]+$" doc:"Batch id (ULID or UUIDv7)."`
}

type batchOutput struct{ Body *seedengine.Batch }

func (s *Server) handleBatchList(ctx context.Context, in *batchListInput) (*batchListOutput, error) {
	if s.deps.Batches == nil {
		return nil, unavailable("batches")
	}
	items, total, err := s.deps.Batches.FindBatches(ctx, seedengine.BatchFilter{
		Kind:   seedengine.BatchKind(in.Kind),
		Status: seedengine.BatchStatus(in.Status),
		Limit:  in.Limit,
		Offset: in.Offset,
	})
	if err != nil {
		return nil, err
	}
	if items == nil {
		items = []*seedengine.Batch{}
	}
	return &batchListOutput{Body: batchList{Items: items, Total: total, Limit: in.Limit, Offset: in.Offset}}, nil
}

func (s *Server) handleBatchGet(ctx context.Context, in *batchInput) (*batchOutput, error) {
	if s.deps.Batches == nil {
		return nil, unavailable("batches")
	}
	b, err := s.deps.Batches.FindBatchByID(ctx, in.BatchID)
	if err != nil {
		return nil, err
	}
	return &batchOutput{Body: b}, nil
}

type queueStats struct {
	Jobs   map[string]map[string]int `json:"jobs" doc:"Job counts by kind, then by state."`
	States map[string]int            `json:"states" doc:"Job counts by state over all kinds."`
	Total  int                       `json:"total" doc:"All jobs the queue holds."`
}

type queueStatsOutput struct{ Body queueStats }

func (s *Server) handleQueueStats(ctx context.Context, _ *struct{}) (*queueStatsOutput, error) {
	if s.deps.QueueStats == nil {
		return nil, unavailable("queue statistics")
	}
	counts, err := s.deps.QueueStats.CountJobs(ctx)
	if err != nil {
		return nil, err
	}
	out := queueStats{Jobs: map[string]map[string]int{}, States: map[string]int{}}
	for _, c := range counts {
		if out.Jobs[c.Kind] == nil {
			out.Jobs[c.Kind] = map[string]int{}
		}
		out.Jobs[c.Kind][c.State] += c.Count
		out.States[c.State] += c.Count
		out.Total += c.Count
	}
	return &queueStatsOutput{Body: out}, nil
}

// unavailable is the error for a dependency cmd did not wire.
func unavailable(what string) error {
	return seedengine.Errorf(seedengine.EUNAVAILABLE, "%s are not available on this server", what)
}

// Research batches. The batch's params and each chunk's input are read by
// the research chunk processor (internal/research), which documents the
// same shapes.

// defaultResearchChunkSize is the chunk size of a research batch that
// names none: small enough that a failed job redoes little, large enough
// that a 10,000-URL batch is only 100 jobs.
const defaultResearchChunkSize = 100

type researchQueueRequest struct {
	Country         string   `json:"country" minLength:"2" maxLength:"4" doc:"ISO 3166-1 alpha-2 code or intl, any case." example:"sg"`
	Category        string   `json:"category" pattern:"^[a-z0-9_]{1,40}$" example:"news"`
	URLs            []string `json:"urls" minItems:"1" maxItems:"10000" maxLength:"4096" doc:"URLs found for the partition (each at most 4096 bytes); invalid ones are recorded in the batch result, not fatal."`
	ChunkSize       int      `json:"chunkSize,omitempty" minimum:"1" maximum:"1000" doc:"URLs per chunk job and per raw chunk file; 100 when absent."`
	Date            string   `json:"date,omitempty" format:"date" doc:"Partition date; today (UTC) when absent, fixed when the batch is accepted."`
	ResearchMethods []string `json:"research_methods,omitempty" maxItems:"20" maxLength:"200" doc:"How the URLs were found, e.g. search, crawl. Stored once on the batch."`
	Queries         []string `json:"queries,omitempty" maxItems:"50" maxLength:"200" doc:"Queries that found them. Stored once on the batch."`
}

type researchQueueInput struct{ Body researchQueueRequest }

func (s *Server) handleResearchEnqueue(ctx context.Context, in *researchQueueInput) (*batchAcceptedOutput, error) {
	if s.deps.Batches == nil {
		return nil, unavailable("batches")
	}
	req := &in.Body
	p, err := bodyPartition(req.Country, req.Category, req.Date)
	if err != nil {
		return nil, err
	}
	size := req.ChunkSize
	if size == 0 {
		size = defaultResearchChunkSize
	}
	params, err := json.Marshal(seedengine.ResearchBatchParams{Date: p.Date, ResearchMethods: req.ResearchMethods, Queries: req.Queries})
	if err != nil {
		return nil, err
	}
	chunks := make([]*seedengine.BatchChunk, 0, (len(req.URLs)+size-1)/size)
	for start := 0; start < len(req.URLs); start += size {
		urls := req.URLs[start:min(start+size, len(req.URLs))]
		input, err := json.Marshal(urls)
		if err != nil {
			return nil, err
		}
		chunks = append(chunks, &seedengine.BatchChunk{Input: input, Items: len(urls)})
	}
	b := &seedengine.Batch{
		Kind:      seedengine.BatchResearch,
		Country:   p.Country,
		Category:  p.Category,
		ChunkSize: size,
		Params:    params,
	}
	if err := s.deps.Batches.CreateBatch(ctx, b, chunks); err != nil {
		return nil, err
	}
	return &batchAcceptedOutput{Location: "/api/v1/queues/batch/" + url.PathEscape(b.ID), Body: b}, nil
}

type domainBatchRequest struct {
	DomainIDs []string `json:"domainIds" minItems:"1" maxItems:"10000" doc:"Domain ids, e.g. gov:sg:mom.gov.sg."`
	ChunkSize int      `json:"chunkSize,omitempty" minimum:"1" maximum:"10000" doc:"Domains per chunk job."`
}

type livenessQueueInput struct{ Body domainBatchRequest }

type contractQueueInput struct{ Body domainBatchRequest }

type batchAcceptedOutput struct {
	Location string `header:"Location" doc:"Where to follow the batch."`
	Body     *seedengine.Batch
}

type batchResultsInput struct {
	BatchID string `path:"batchId" maxLength:"128" pattern:"^[A-Za-z0-9_.:-]+$"`
	Limit   int    `query:"limit" default:"50" minimum:"1" maximum:"1000"`
	Offset  int    `query:"offset" default:"0" minimum:"0"`
}

type chunkList struct {
	Items  []*seedengine.BatchChunk `json:"items"`
	Total  int                      `json:"total"`
	Limit  int                      `json:"limit"`
	Offset int                      `json:"offset"`
}

type chunkListOutput struct{ Body chunkList }

type deadLetter struct {
	ID        string          `json:"id"`
	Kind      string          `json:"kind" doc:"Job kind."`
	BatchID   string          `json:"batch_id,omitempty"`
	Attempts  int             `json:"attempts"`
	LastError string          `json:"last_error"`
	FailedAt  time.Time       `json:"failed_at"`
	Args      json.RawMessage `json:"args"`
}

type deadLetterListInput struct {
	Kind   string `query:"kind" doc:"Only jobs of this kind."`
	Limit  int    `query:"limit" default:"50" minimum:"1" maximum:"1000"`
	Offset int    `query:"offset" default:"0" minimum:"0"`
}

type deadLetterList struct {
	Items  []deadLetter `json:"items"`
	Total  int          `json:"total"`
	Limit  int          `json:"limit"`
	Offset int          `json:"offset"`
}

type deadLetterListOutput struct{ Body deadLetterList }

type deadLetterInput struct {
	ID string `path:"id" maxLength:"128"`
}

type deadLetterOutput struct{ Body deadLetter }

// sortedKeys is used where map order would make output unstable.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
