package research

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/seedengine/seedengine"
)

// ChunkResult is the result of one research chunk. Batch results add
// these up (seedengine.MergeResults): keys and rejections concatenate,
// counts add. Domains counts the domains of each chunk, so a domain found
// in two chunks counts twice; the registry itself holds it once.
type ChunkResult struct {
	Keys       []string                `json:"keys"`
	Rejected   []seedengine.URLFailure `json:"rejected"`
	Accepted   int                     `json:"accepted"`
	Duplicates int                     `json:"duplicates"`
	Domains    int                     `json:"domains"`
}

// DefaultChunkSize is the chunk size of a research batch that names none:
// small enough that a failed job redoes little, large enough that a
// 10,000-URL batch is only 100 jobs.
const DefaultChunkSize = 100

// BatchRequest is what a research batch is made of: the URLs found for a
// partition, how many go in each chunk (0: DefaultChunkSize), and how they
// were found.
type BatchRequest struct {
	Partition       seedengine.Partition
	URLs            []string
	ChunkSize       int
	ResearchMethods []string
	Queries         []string
}

// chunkInput is the input of one research chunk: the URLs from index
// chunk×chunk_size of the batch's list.
type chunkInput = []string

// ChunkJob is the queue job that runs one chunk of a research batch. Its
// kind is stored with every job, so it never changes.
type ChunkJob struct{ seedengine.ChunkRef }

// Kind names the job.
func (ChunkJob) Kind() string { return "research_chunk" }

// Plan turns a request into a research batch and its chunks, for the
// queue to create. The partition's date is fixed here, in the batch's
// params, so every chunk lands in the same partition however late it runs.
func Plan(req BatchRequest) (*seedengine.Batch, []*seedengine.BatchChunk, error) {
	size := req.ChunkSize
	if size == 0 {
		size = DefaultChunkSize
	}
	params, err := json.Marshal(seedengine.ResearchBatchParams{Date: req.Partition.Date, ResearchMethods: req.ResearchMethods, Queries: req.Queries})
	if err != nil {
		return nil, nil, err
	}
	chunks, err := seedengine.SplitChunks(req.URLs, size, func(part []string) any { return chunkInput(part) })
	if err != nil {
		return nil, nil, err
	}
	return &seedengine.Batch{
		Kind:      seedengine.BatchResearch,
		Country:   req.Partition.Country,
		Category:  req.Partition.Category,
		ChunkSize: size,
		Params:    params,
	}, chunks, nil
}

// Origin names the chunk a research batch job writes, so a retried job
// finds the chunk its first attempt wrote instead of writing a second.
func Origin(batchID string, chunk int) string {
	return fmt.Sprintf("batch:%s:%d", batchID, chunk)
}

// ChunkProcessor returns the processor of research batch chunks, to
// register with the queue for seedengine.BatchResearch. The batch's params
// are a seedengine.ResearchBatchParams. A chunk's input is
// a JSON array of URLs: the URLs from index chunk×chunk_size of the
// batch's list. URLs that are not accepted are items that failed,
// recorded with their index in the whole batch, not errors: the job
// succeeds. Duplicates within the chunk count as succeeded. A storage or
// database error fails the attempt and the queue retries it.
func ChunkProcessor(svc seedengine.ResearchService) func(context.Context, *seedengine.Batch, *seedengine.BatchChunk) (seedengine.ChunkOutcome, error) {
	return func(ctx context.Context, b *seedengine.Batch, c *seedengine.BatchChunk) (seedengine.ChunkOutcome, error) {
		var params seedengine.ResearchBatchParams
		if len(b.Params) > 0 {
			if err := json.Unmarshal(b.Params, &params); err != nil {
				return seedengine.ChunkOutcome{}, seedengine.Errorf(seedengine.EINVALID, "research batch %s: params are not valid: %v", b.ID, err)
			}
		}
		var urls chunkInput
		if err := json.Unmarshal(c.Input, &urls); err != nil {
			return seedengine.ChunkOutcome{}, seedengine.Errorf(seedengine.EINVALID, "research batch %s chunk %d: input is not a JSON array of URLs: %v", b.ID, c.Index, err)
		}
		res, err := svc.Research(ctx, seedengine.ResearchInput{
			Partition:       seedengine.Partition{Country: b.Country, Category: b.Category, Date: params.Date},
			ResearchMethods: params.ResearchMethods,
			Queries:         params.Queries,
			URLs:            urls,
			Origin:          Origin(b.ID, c.Index),
			DiscoveredAt:    b.CreatedAt,
		})
		if err != nil {
			return seedengine.ChunkOutcome{}, err
		}
		out := ChunkResult{
			Keys:       []string{},
			Rejected:   res.Rejected,
			Accepted:   res.Accepted,
			Duplicates: res.Duplicates,
			Domains:    res.Domains,
		}
		if res.Chunk != nil {
			out.Keys = append(out.Keys, res.Chunk.Key)
		}
		offset := c.Index * b.ChunkSize
		for i := range out.Rejected {
			out.Rejected[i].Index += offset
		}
		raw, err := json.Marshal(out)
		if err != nil {
			return seedengine.ChunkOutcome{}, fmt.Errorf("research batch %s chunk %d: encode result: %w", b.ID, c.Index, err)
		}
		return seedengine.ChunkOutcome{
			Succeeded: res.Accepted + res.Duplicates,
			Failed:    len(res.Rejected),
			Result:    raw,
		}, nil
	}
}
