package seedengine

import (
	"context"
	"encoding/json"
	"io"
	"strings"
	"time"
)

// Dataset is an EnhancedResearchDataset: one raw chunk file of a
// partition. Fields the engine does not know are kept in Extra and written
// back unchanged.
type Dataset struct {
	Meta    DatasetMeta                `json:"meta"`
	Records []DatasetRecord            `json:"records"`
	Extra   map[string]json.RawMessage `json:"-"`
}

// DatasetMeta describes a dataset. Country is upper case here (SG), unlike
// in keys and ids.
type DatasetMeta struct {
	DatasetID       string                     `json:"dataset_id"`
	Country         string                     `json:"country"`
	Category        string                     `json:"category"`
	Date            string                     `json:"date"`
	DiscoveredAt    time.Time                  `json:"discovered_at"`
	ResearchMethods []string                   `json:"research_methods"`
	Queries         []string                   `json:"queries"`
	Engine          EngineInfo                 `json:"engine"`
	RecordCount     int                        `json:"record_count"`
	Extra           map[string]json.RawMessage `json:"-"`
}

// EngineInfo names the program that wrote a dataset or a snapshot.
type EngineInfo struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// DatasetRecord is one URL of a dataset with its normalised, classified
// domain.
type DatasetRecord struct {
	RawURL           string                     `json:"raw_url"`
	NormalizedURL    string                     `json:"normalized_url"`
	NormalizedDomain string                     `json:"normalized_domain"`
	DomainID         string                     `json:"domain_id"`
	Authority        Authority                  `json:"authority"`
	AuthorityRule    string                     `json:"authority_rule"`
	SourceType       string                     `json:"source_type"`
	DiscoveryMethod  string                     `json:"discovery_method,omitempty"`
	Confidence       float64                    `json:"confidence"`
	ContentHints     []string                   `json:"content_hints,omitempty"`
	Extra            map[string]json.RawMessage `json:"-"`
}

// ChunkInfo describes one stored raw chunk.
type ChunkInfo struct {
	Partition
	Chunk   int    `json:"chunk"`
	Name    string `json:"name"` // raw_0001
	Key     string `json:"key"`
	Bytes   int64  `json:"bytes"`
	Records int    `json:"records"` // -1 when not known yet
	// Completed reports that the chunk's .success checkpoint exists, which
	// means the seed file processor has processed it (the orchestrator
	// skips such files). It does not mean the upload finished: dataset
	// saves never write the checkpoint, so a new chunk is not Completed.
	Completed bool      `json:"completed"`
	Origin    string    `json:"origin,omitempty"` // what wrote it: "api", "upload", "batch:{id}:{chunk}"
	ModTime   time.Time `json:"modified_at"`
}

// PartitionSummary counts the chunks of one partition.
type PartitionSummary struct {
	Partition
	Chunks  int   `json:"chunks"`
	Records int   `json:"records"`
	Bytes   int64 `json:"bytes"`
	Domains int   `json:"domains"`
}

// URLText is a URL as text every store holds: U+0000, which the URL
// Standard's parser percent-encodes wherever it may stand in a URL, written
// "%00" as that parser writes it. No text column of PostgreSQL, no C string
// and no JSONB value can hold U+0000; a URL that has one is still a URL
// (research refuses it as its item if its host has one), so it is kept in
// this form rather than refusing the request it came in.
func URLText(s string) string {
	if strings.IndexByte(s, 0) < 0 {
		return s
	}
	return strings.ReplaceAll(s, "\x00", "%00")
}

// MaxRawURLBytes caps a record's raw_url, and every URL research takes,
// wherever it arrives: research urls and records, research batches and
// saved datasets. The schema of each says so too.
const MaxRawURLBytes = 8192

// Page bounds of every partition list (DESIGN §6).
const (
	DefaultListLimit = 50
	MaxListLimit     = 1000
)

// PartitionFilter selects partitions. Zero fields do not filter; a zero
// Limit means DefaultListLimit.
type PartitionFilter struct {
	Country  string
	Category string
	DateFrom string // inclusive, YYYY-MM-DD
	DateTo   string // inclusive, YYYY-MM-DD
	Limit    int
	Offset   int
}

// Validate normalises f in place (country lower case, a zero Limit set to
// DefaultListLimit, a Limit over MaxListLimit lowered to it) and reports
// the first invalid field as an EINVALID error whose Field is the name of
// the list parameter: country, category, date_from, date_to (also when it
// is before date_from), limit (negative) or offset (negative). Every
// implementation of a partition list calls it, so they agree.
func (f *PartitionFilter) Validate() error {
	if f.Country != "" {
		f.Country = NormalizeCountry(f.Country)
		if err := ValidateCountry(f.Country); err != nil {
			return err
		}
	}
	if f.Category != "" {
		if err := ValidateCategory(f.Category); err != nil {
			return err
		}
	}
	for _, d := range [...]struct{ field, value string }{{"date_from", f.DateFrom}, {"date_to", f.DateTo}} {
		if d.value == "" {
			continue
		}
		if err := ValidateDate(d.value); err != nil {
			return &Error{Code: EINVALID, Field: d.field, Message: d.field + ": " + ErrorMessage(err)}
		}
	}
	if f.DateFrom != "" && f.DateTo != "" && f.DateTo < f.DateFrom {
		return FieldErrorf("date_to", "date_to %s is before date_from %s", f.DateTo, f.DateFrom)
	}
	switch {
	case f.Limit < 0:
		return FieldErrorf("limit", "limit must be between 1 and %d", MaxListLimit)
	case f.Offset < 0:
		return FieldErrorf("offset", "offset must not be negative")
	case f.Limit == 0:
		f.Limit = DefaultListLimit
	}
	f.Limit = min(f.Limit, MaxListLimit)
	return nil
}

// DatasetStats summarises the stored raw datasets.
type DatasetStats struct {
	Partitions int                     `json:"partitions"`
	Chunks     int                     `json:"chunks"`
	Records    int                     `json:"records"`
	Bytes      int64                   `json:"bytes"`
	ByCountry  map[string]DatasetCount `json:"by_country"`
	ByCategory map[string]DatasetCount `json:"by_category"`
}

// DatasetCount is one line of DatasetStats.
type DatasetCount struct {
	Partitions int   `json:"partitions"`
	Chunks     int   `json:"chunks"`
	Records    int   `json:"records"`
	Bytes      int64 `json:"bytes"`
}

// DatasetService stores raw datasets in the object store. Chunks are
// immutable: saving always writes a new chunk number.
type DatasetService interface {
	// ListPartitions lists partitions with their chunk counts, ordered by
	// country, category, date; and the total number matching f.
	ListPartitions(ctx context.Context, f PartitionFilter) ([]PartitionSummary, int, error)
	// DatasetStats summarises every partition.
	DatasetStats(ctx context.Context) (*DatasetStats, error)
	// ListChunks lists the chunks of a partition in chunk order. ENOTFOUND
	// when the partition has none.
	ListChunks(ctx context.Context, p Partition) ([]ChunkInfo, error)
	// OpenChunk opens a chunk for streaming as stored. ENOTFOUND when
	// missing.
	OpenChunk(ctx context.Context, p Partition, chunk int) (io.ReadCloser, ChunkInfo, error)
	// SaveDataset validates the dataset read from r against p (streaming;
	// EINVALID naming the first bad field) and writes it at the next free
	// chunk number, never overwriting a chunk. A zero p takes the
	// partition the dataset's meta names (PartitionOfMeta).
	SaveDataset(ctx context.Context, p Partition, r io.Reader) (ChunkInfo, error)
	// DeleteChunk removes a chunk and its checkpoint. ENOTFOUND when
	// missing.
	DeleteChunk(ctx context.Context, p Partition, chunk int) error
}

// DatasetIndex is the SQL index of stored chunks: it makes counts cheap
// without reading the object store. The object store stays the truth; the
// index is filled when chunks are written and when unknown chunks are met.
type DatasetIndex interface {
	// IndexChunk records (or updates) a chunk with its record count.
	IndexChunk(ctx context.Context, c ChunkInfo) error
	// ReserveChunk atomically allocates the next chunk number of p that is
	// at least atLeast and above every indexed chunk, recording a
	// placeholder. With a non-empty origin that is already reserved it
	// returns the same number again, so a retried write lands on the same
	// chunk.
	ReserveChunk(ctx context.Context, p Partition, origin string, atLeast int) (int, error)
	// ReleaseChunk deletes a placeholder whose write failed; an indexed
	// chunk is left alone.
	ReleaseChunk(ctx context.Context, p Partition, chunk int) error
	// FindChunkByOrigin returns the chunk written for origin. ENOTFOUND
	// when there is none.
	FindChunkByOrigin(ctx context.Context, origin string) (ChunkInfo, error)
	// UnindexChunk forgets a chunk; no error when it was not indexed.
	UnindexChunk(ctx context.Context, p Partition, chunk int) error
	// FindIndexedChunks returns the indexed chunks of a partition, or of
	// every partition when p is nil, in partition and chunk order.
	FindIndexedChunks(ctx context.Context, p *Partition) ([]ChunkInfo, error)
	// FindPartitionSummaries returns partitions with chunk, record, byte
	// and domain counts from the index, ordered by country, category,
	// date; and the total matching f.
	FindPartitionSummaries(ctx context.Context, f PartitionFilter) ([]PartitionSummary, int, error)
}
