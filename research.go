package seedengine

import (
	"context"
	"time"
)

// ResearchInput is what research found for one partition: plain URLs, or
// records that carry a raw_url and optional hints (discovery_method,
// confidence, content_hints, extra fields, which are kept).
type ResearchInput struct {
	Partition
	ResearchMethods []string
	Queries         []string
	URLs            []string
	Records         []DatasetRecord
	// Origin makes a write idempotent: a second call with the same
	// non-empty Origin (a retried batch chunk, "batch:{id}:{chunk}") returns
	// the chunk the first call wrote instead of writing another.
	Origin string
	// DiscoveredAt is when the records were found: the chunk's
	// meta.discovered_at and the time its domains are seen. Zero means
	// now. A research batch's chunks all take the time the batch was
	// accepted, so a retried chunk writes the same meta, and a domain that
	// several chunks of a batch name is seen once, not once a chunk.
	DiscoveredAt time.Time
}

// URLFailure is one input URL that was not accepted, with why.
type URLFailure struct {
	Index  int    `json:"index"`
	URL    string `json:"url"`
	Reason string `json:"reason"`
}

// ResearchResult is what one research write produced.
type ResearchResult struct {
	Partition
	Chunk       *ChunkInfo        `json:"chunk"` // nil when no URL was accepted
	Accepted    int               `json:"accepted"`
	Duplicates  int               `json:"duplicates"`
	Rejected    []URLFailure      `json:"rejected"`
	Domains     int               `json:"domains"`
	Authorities map[Authority]int `json:"authorities"`
}

// ResearchIndex is the table of contents of research: country → category
// → dates, each with its counts.
type ResearchIndex struct {
	Countries map[string]map[string][]PartitionSummary `json:"countries"`
	Totals    DatasetCount                             `json:"totals"`
}

// ResearchPartition is one partition in detail. The embedded summary's
// domains is the partition's domain count; DomainList is one page of
// those domains and DomainTotal their number (the same count, kept beside
// the page it pages).
type ResearchPartition struct {
	PartitionSummary
	ChunkList   []ChunkInfo       `json:"chunk_list"`
	Authorities map[Authority]int `json:"authorities"`
	DomainList  []*Domain         `json:"domain_list"`
	DomainTotal int               `json:"domain_total"`
}

// ResearchService turns research findings into raw datasets and domain
// registrations, and reads them back by partition.
type ResearchService interface {
	// Research normalises, classifies and de-duplicates the input, writes
	// one dataset chunk with the accepted records and registers their
	// domains. Rejected URLs are reported, not fatal; EINVALID when the
	// partition is invalid or nothing at all was given.
	Research(ctx context.Context, in ResearchInput) (*ResearchResult, error)

	// FindResearch lists partitions with research, ordered by country,
	// category and date (oldest first), and the total matching f.
	// EINVALID for an invalid filter value.
	FindResearch(ctx context.Context, f PartitionFilter) ([]PartitionSummary, int, error)

	// FindResearchIndex returns the table of contents.
	FindResearchIndex(ctx context.Context) (*ResearchIndex, error)

	// FindResearchPartition returns one partition with its chunks,
	// authorities breakdown and a page of its domains. ENOTFOUND when the
	// partition has no chunk.
	FindResearchPartition(ctx context.Context, p Partition, domainLimit, domainOffset int) (*ResearchPartition, error)
}
