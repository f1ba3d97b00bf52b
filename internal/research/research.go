// Package research turns lists of URLs found for a partition into a raw
// dataset chunk of classified domain records and registers their domains.
// It is the "where to look" half of seedengine: the HTTP API calls it for
// research submitted directly, and the queue calls it, through
// ChunkProcessor, for each chunk of a research batch.
//
// Writes go to the object store through the dataset service (which indexes
// the chunk in SQL) and to the domain registry; reads come from the SQL
// index only, never from listing the object store.
package research

import (
	"context"
	"fmt"
	"log/slog"
	"math"
	"strings"
	"time"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/discover"
)

// MaxInputs bounds the URLs or records of one call, as the API bounds a
// request and a batch: a dataset chunk is written and held whole.
const MaxInputs = 10000

// Default confidences of a record that brings none. Research lists come
// from searches and crawls; a government, military, education or
// international body's domain is what they are after and rarely a false
// hit, anything else is a guess.
const (
	ConfidenceInstitutional = 0.9
	ConfidenceOther         = 0.6
)

// maxRejectedURL caps how much of a rejected URL is echoed back in a
// result, so a 10,000-URL batch of garbage cannot make a result as large
// as itself.
const maxRejectedURL = 512

// ReasonInvalidConfidence rejects a record whose confidence is outside
// [0, 1]. The other reasons are discover's (discover.URLError.Reason).
const ReasonInvalidConfidence = "invalid_confidence"

// DatasetWriter writes dataset chunks; *dataset.Service implements it.
type DatasetWriter interface {
	// SaveDatasetFrom writes ds as the next chunk of p. With a non-empty
	// origin a second call returns the chunk the first one wrote.
	SaveDatasetFrom(ctx context.Context, p seedengine.Partition, origin string, ds *seedengine.Dataset) (seedengine.ChunkInfo, error)
}

// Index is the SQL index research reads back from, so reads never list
// the object store; *sqlstore.DatasetIndex implements it.
type Index interface {
	// FindPartitionSummaries pages partitions with chunk, record, byte and
	// domain counts, and the total matching f. EINVALID for a bad filter.
	FindPartitionSummaries(ctx context.Context, f seedengine.PartitionFilter) ([]seedengine.PartitionSummary, int, error)
	// FindIndexedChunks returns the chunks of p in chunk order; empty when
	// there are none.
	FindIndexedChunks(ctx context.Context, p *seedengine.Partition) ([]seedengine.ChunkInfo, error)
	// FindPartitionAuthorities counts the domains of p by authority.
	FindPartitionAuthorities(ctx context.Context, p seedengine.Partition) (map[seedengine.Authority]int, error)
	// FindResearchIndex returns every partition as country → category →
	// dates, with totals.
	FindResearchIndex(ctx context.Context) (*seedengine.ResearchIndex, error)
}

// Service implements seedengine.ResearchService.
type Service struct {
	datasets   DatasetWriter
	domains    seedengine.DomainService
	index      Index
	classifier *discover.Classifier
	log        *slog.Logger
	registrar  *registrar

	// now is the clock, replaced in tests.
	now func() time.Time
}

var _ seedengine.ResearchService = (*Service)(nil)

// New returns a Service. A nil logger discards logs.
func New(datasets DatasetWriter, domains seedengine.DomainService, index Index, classifier *discover.Classifier, logger *slog.Logger) *Service {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return &Service{
		datasets:   datasets,
		domains:    domains,
		index:      index,
		classifier: classifier,
		log:        logger,
		registrar:  newRegistrar(domains),
		now:        func() time.Time { return time.Now().UTC() },
	}
}

// Research normalises and classifies every URL (or record's raw_url) for
// the partition's country, drops repeats of a normalised URL (counted as
// duplicates), rejects unusable ones with a reason, and writes the rest as
// one dataset chunk, then registers their domains. Nothing is written when
// nothing was accepted. The country may come in any case and the date must
// be set (the API defaults it). EINVALID for an invalid partition, for
// neither or both of URLs and Records, or for more than MaxInputs.
func (s *Service) Research(ctx context.Context, in seedengine.ResearchInput) (*seedengine.ResearchResult, error) {
	start := time.Now()
	p := in.Partition
	p.Country = seedengine.NormalizeCountry(p.Country)
	if err := p.Validate(); err != nil {
		return nil, err
	}
	// Records are used when there are any; len, not nil, decides, here
	// and in the loop below, so an empty non-nil slice is no records.
	useRecords := len(in.Records) > 0
	n := len(in.URLs)
	field := "urls"
	switch {
	case len(in.URLs) > 0 && len(in.Records) > 0:
		return nil, seedengine.FieldErrorf("records", "give urls or records, not both")
	case useRecords:
		n, field = len(in.Records), "records"
	case n == 0:
		return nil, seedengine.FieldErrorf("urls", "urls or records is required")
	}
	if n > MaxInputs {
		return nil, seedengine.FieldErrorf(field, "%s must hold at most %d items, got %d", field, MaxInputs, n)
	}

	res := &seedengine.ResearchResult{
		Partition:   p,
		Rejected:    []seedengine.URLFailure{},
		Authorities: map[seedengine.Authority]int{},
	}
	records := make([]seedengine.DatasetRecord, 0, n)
	seenURL := make(map[string]struct{}, n)
	sightings := make([]seedengine.DomainSighting, 0, n/4+1)
	seenDomain := make(map[string]struct{}, n/4+1)
	for i := range n {
		var rec seedengine.DatasetRecord
		if useRecords {
			rec = in.Records[i]
		} else {
			rec.RawURL = in.URLs[i]
		}
		rec.RawURL = seedengine.URLText(rec.RawURL)
		if c := rec.Confidence; math.IsNaN(c) || c < 0 || c > 1 {
			res.Rejected = append(res.Rejected, rejection(i, rec.RawURL, ReasonInvalidConfidence))
			continue
		}
		d, err := s.classifier.Analyze(rec.RawURL, p.Country)
		if err != nil {
			res.Rejected = append(res.Rejected, rejection(i, rec.RawURL, discover.ReasonOf(err)))
			continue
		}
		if _, dup := seenURL[d.NormalizedURL]; dup {
			res.Duplicates++
			continue
		}
		seenURL[d.NormalizedURL] = struct{}{}

		rec.NormalizedURL = d.NormalizedURL
		rec.NormalizedDomain = d.RegistrableDomain
		rec.DomainID = d.DomainID
		rec.Authority = d.Authority
		rec.AuthorityRule = d.AuthorityRule
		rec.SourceType = d.SourceType
		if rec.Confidence == 0 {
			rec.Confidence = defaultConfidence(d.Authority)
		}
		records = append(records, rec)

		if _, known := seenDomain[d.DomainID]; !known {
			seenDomain[d.DomainID] = struct{}{}
			sightings = append(sightings, seedengine.DomainSighting{
				ID:                d.DomainID,
				RegistrableDomain: d.RegistrableDomain,
				Authority:         d.Authority,
				AuthorityRule:     d.AuthorityRule,
				Country:           d.Country,
			})
			res.Authorities[d.Authority]++
		}
	}
	res.Accepted = len(records)
	res.Domains = len(sightings)
	if len(records) == 0 {
		s.log.InfoContext(ctx, "research rejected every URL", "event", "research_empty",
			"country", p.Country, "category", p.Category, "date", p.Date, "origin", in.Origin,
			"rejected", len(res.Rejected), "duplicates", res.Duplicates)
		return res, nil
	}

	now := in.DiscoveredAt.UTC()
	if in.DiscoveredAt.IsZero() {
		now = s.now()
	}
	ds := &seedengine.Dataset{
		Meta: seedengine.DatasetMeta{
			Country:         strings.ToUpper(p.Country),
			Category:        p.Category,
			Date:            p.Date,
			DiscoveredAt:    now,
			ResearchMethods: nonNil(in.ResearchMethods),
			Queries:         nonNil(in.Queries),
			Engine:          seedengine.EngineInfo{Name: "seedengine", Version: seedengine.Version},
			RecordCount:     len(records),
		},
		Records: records,
	}
	chunk, err := s.datasets.SaveDatasetFrom(ctx, p, in.Origin, ds)
	if err != nil {
		return nil, fmt.Errorf("research %s/%s/%s: save dataset: %w", p.Country, p.Category, p.Date, err)
	}
	res.Chunk = &chunk
	// After the chunk, so a registered domain always has its records
	// stored; a retry with the same origin finds the chunk and registers
	// again, which upserts.
	if err := s.registrar.register(ctx, p, now, sightings); err != nil {
		return nil, fmt.Errorf("research %s/%s/%s: register domains: %w", p.Country, p.Category, p.Date, err)
	}
	s.log.InfoContext(ctx, "research written", "event", "research_written",
		"country", p.Country, "category", p.Category, "date", p.Date, "origin", in.Origin, "key", chunk.Key,
		"accepted", res.Accepted, "duplicates", res.Duplicates, "rejected", len(res.Rejected),
		"domains", res.Domains, "duration_ms", time.Since(start).Milliseconds())
	return res, nil
}

func defaultConfidence(a seedengine.Authority) float64 {
	switch a {
	case seedengine.AuthorityGov, seedengine.AuthorityMil, seedengine.AuthorityEdu, seedengine.AuthorityNGO:
		return ConfidenceInstitutional
	}
	return ConfidenceOther
}

// reason is the machine-readable reason a URL was not accepted.
func rejection(i int, raw, why string) seedengine.URLFailure {
	return seedengine.URLFailure{Index: i, URL: seedengine.Truncate(raw, maxRejectedURL), Reason: why}
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// FindResearch lists the partitions that hold research, with their chunk,
// record, byte and domain counts, in country, category, date order as the
// SQL index pages them. EINVALID for an invalid filter value.
func (s *Service) FindResearch(ctx context.Context, f seedengine.PartitionFilter) ([]seedengine.PartitionSummary, int, error) {
	return s.index.FindPartitionSummaries(ctx, f)
}

// FindResearchIndex returns the table of contents of research from the SQL
// index.
func (s *Service) FindResearchIndex(ctx context.Context) (*seedengine.ResearchIndex, error) {
	return s.index.FindResearchIndex(ctx)
}

// FindResearchPartition returns one partition: its chunks, counts, domains
// by authority and one page of its domains. ENOTFOUND when the partition
// has no indexed chunk.
func (s *Service) FindResearchPartition(ctx context.Context, p seedengine.Partition, domainLimit, domainOffset int) (*seedengine.ResearchPartition, error) {
	p.Country = seedengine.NormalizeCountry(p.Country)
	if err := p.Validate(); err != nil {
		return nil, err
	}
	chunks, err := s.index.FindIndexedChunks(ctx, &p)
	if err != nil {
		return nil, err
	}
	if len(chunks) == 0 {
		return nil, seedengine.Errorf(seedengine.ENOTFOUND, "no research for this country, category and date")
	}
	authorities, err := s.index.FindPartitionAuthorities(ctx, p)
	if err != nil {
		return nil, err
	}
	domains, total, err := s.domains.FindDomains(ctx, seedengine.DomainFilter{Partition: &p, Limit: domainLimit, Offset: domainOffset})
	if err != nil {
		return nil, err
	}
	rp := &seedengine.ResearchPartition{
		PartitionSummary: seedengine.PartitionSummary{Partition: p, Chunks: len(chunks), Domains: total},
		ChunkList:        chunks,
		Authorities:      authorities,
		DomainList:       domains,
		DomainTotal:      total,
	}
	for _, c := range chunks {
		rp.Bytes += c.Bytes
		if c.Records > 0 {
			rp.Records += c.Records
		}
	}
	return rp, nil
}
