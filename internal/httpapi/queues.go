package httpapi

import (
	"context"
	"sort"
	"time"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/liveness"
	"github.com/seedengine/seedengine/internal/research"
)

type batchListInput struct {
	Kind   string `query:"kind" enum:"research,liveness,contract,orchestration,import" doc:"Only batches of this kind."`
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
	Jobs          map[string]map[string]int   `json:"jobs" doc:"Job counts by kind, then by state."`
	States        map[string]int              `json:"states" doc:"Job counts by state over all kinds."`
	Total         int                         `json:"total" doc:"All jobs the queue holds."`
	WindowMinutes int                         `json:"window_minutes" doc:"The minutes throughput covers."`
	Throughput    []seedengine.KindThroughput `json:"throughput" doc:"Per kind, over every process: jobs finished in the window, per minute and per second, and those waiting and running now. Kinds with none are left out."`
}

type queueStatsInput struct {
	Minutes int `query:"minutes" minimum:"1" maximum:"60" default:"5" doc:"How many minutes throughput covers, the minute under way last."`
}

type queueStatsOutput struct{ Body queueStats }

func (s *Server) handleQueueStats(ctx context.Context, in *queueStatsInput) (*queueStatsOutput, error) {
	if s.deps.QueueStats == nil {
		return nil, unavailable("queue statistics")
	}
	counts, err := s.deps.QueueStats.CountJobs(ctx)
	if err != nil {
		return nil, err
	}
	through, err := s.deps.QueueStats.Throughput(ctx, in.Minutes)
	if err != nil {
		return nil, err
	}
	if through == nil {
		through = []seedengine.KindThroughput{}
	}
	out := queueStats{Jobs: map[string]map[string]int{}, States: map[string]int{}, WindowMinutes: in.Minutes, Throughput: through}
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

// Research batches: research.Plan makes the batch and its chunks, and
// the research chunk processor reads them.

type researchQueueRequest struct {
	Country         string   `json:"country" minLength:"2" maxLength:"4" doc:"ISO 3166-1 alpha-2 code or intl, any case." example:"sg"`
	Category        string   `json:"category" pattern:"^[a-z0-9_]{1,40}$" example:"news"`
	URLs            []string `json:"urls" minItems:"1" maxItems:"10000" maxLength:"8192" format:"url" doc:"URLs found for the partition (each at most 8192 bytes), read as the URL Standard reads them (a U+0000 is read as %00); invalid ones are recorded in the batch result, not fatal."`
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
	for i, u := range req.URLs {
		req.URLs[i] = seedengine.URLText(u)
	}
	b, chunks, err := research.Plan(research.BatchRequest{
		Partition: p, URLs: req.URLs, ChunkSize: req.ChunkSize,
		ResearchMethods: req.ResearchMethods, Queries: req.Queries,
	})
	if err != nil {
		return nil, err
	}
	return s.acceptBatch(ctx, b, chunks)
}

// Liveness batches: liveness.Plan makes the batch and its chunks, and the
// liveness chunk processor reads them.

type livenessQueueRequest struct {
	Country   string   `json:"country" minLength:"2" maxLength:"4" doc:"ISO 3166-1 alpha-2 code or intl, any case: the country of the batch's results, and of domain names and URLs classified to domain_ids." example:"sg"`
	Domains   []string `json:"domains" minItems:"1" maxItems:"10000" maxLength:"300" doc:"Domains to probe (each at most 300 bytes): bare names (mom.gov.sg), URLs (probed at their registrable domain) or domain_ids (gov:sg:mom.gov.sg). Invalid ones are recorded in the batch result, not fatal." example:"[\"mom.gov.sg\", \"https://www.who.int/news\", \"gov:sg:mti.gov.sg\"]"`
	ChunkSize int      `json:"chunkSize,omitempty" minimum:"1" maximum:"1000" doc:"Domains per chunk job and per JSONL part; 50 when absent."`
}

type livenessQueueInput struct{ Body livenessQueueRequest }

func (s *Server) handleLivenessEnqueue(ctx context.Context, in *livenessQueueInput) (*batchAcceptedOutput, error) {
	if s.deps.Batches == nil {
		return nil, unavailable("batches")
	}
	req := &in.Body
	country := seedengine.NormalizeCountry(req.Country)
	if err := seedengine.ValidateCountry(country); err != nil {
		return nil, err
	}
	b, chunks, err := liveness.Plan(country, req.Domains, req.ChunkSize, time.Now())
	if err != nil {
		return nil, err
	}
	return s.acceptBatch(ctx, b, chunks)
}

type batchAcceptedOutput struct {
	Location string `header:"Location" doc:"Where to follow the batch."`
	Body     *seedengine.Batch
}

type batchResultsInput struct {
	BatchID string `path:"batchId" maxLength:"128" pattern:"^[A-Za-z0-9_.:-]+$" doc:"Batch id (ULID or UUIDv7)."`
	Verdict string `query:"verdict" enum:"alive,blocked,dead,parked" doc:"Only results with this verdict."`
	Limit   int    `query:"limit" default:"50" minimum:"1" maximum:"1000" doc:"Page size."`
	Offset  int    `query:"offset" default:"0" minimum:"0" doc:"Items to skip."`
}

type livenessResultList struct {
	Items  []*seedengine.LivenessResult `json:"items" doc:"Per-domain results in domain order."`
	Total  int                          `json:"total" doc:"Results matching the filter, regardless of limit and offset."`
	Limit  int                          `json:"limit"`
	Offset int                          `json:"offset"`
}

type livenessResultListOutput struct{ Body livenessResultList }

// handleBatchResults pages through the per-domain results of a liveness
// batch. Other kinds keep their results in the batch itself (GET
// /api/v1/queues/batch/{batchId}) and in the object store.
func (s *Server) handleBatchResults(ctx context.Context, in *batchResultsInput) (*livenessResultListOutput, error) {
	if s.deps.Batches == nil || s.deps.Liveness == nil {
		return nil, unavailable("batch results")
	}
	b, err := s.deps.Batches.FindBatchByID(ctx, in.BatchID)
	if err != nil {
		return nil, err
	}
	if b.Kind != seedengine.BatchLiveness {
		return nil, inPath(&seedengine.Error{Code: seedengine.EINVALID, Field: "batchId",
			Message: "batch " + seedengine.Truncate(b.ID, 64) + " is a " + string(b.Kind) + " batch; per-item results are listed for liveness batches, other kinds hold theirs in the batch result"})
	}
	items, total, err := s.deps.Liveness.FindLivenessResults(ctx, seedengine.LivenessFilter{
		BatchID: b.ID,
		Verdict: seedengine.Verdict(in.Verdict),
		Limit:   in.Limit,
		Offset:  in.Offset,
	})
	if err != nil {
		return nil, inQuery(err)
	}
	if items == nil {
		items = []*seedengine.LivenessResult{}
	}
	return &livenessResultListOutput{Body: livenessResultList{Items: items, Total: total, Limit: in.Limit, Offset: in.Offset}}, nil
}

// sortedKeys is used where map order would make output unstable.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
