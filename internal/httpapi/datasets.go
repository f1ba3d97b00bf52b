package httpapi

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/url"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/seedengine/seedengine"
)

// Dataset routes: raw EnhancedResearchDataset chunks in the object store
// (DESIGN §5), served by Deps.Datasets.
//
// Choices, so clients can rely on them:
//
//   - {chunk} is raw_0001 (canonical, as in ChunkInfo.name), raw_0001.json
//     (the object's file name) or the bare number (1 or 0001).
//   - A chunk is downloaded exactly as stored, streamed, with
//     Content-Type application/json and Content-Length; HEAD gives the
//     headers only.
//   - A saved dataset is read from the request body as a stream, validated
//     on the way and staged on disk, never decoded into memory; the body
//     limit is the server's MaxDatasetBytes (--max-dataset-bytes, 512 MiB by
//     default). 201 with the ChunkInfo and a Location header naming the new
//     chunk.
//   - Deleting a chunk answers 204 No Content; its .success checkpoint goes
//     with it.

// The path parameters of a partition are repeated in each input type:
// huma reads only exported fields, and an embedded unexported struct is
// not one.

// pathPartition normalises and validates the partition of a path.
func pathPartition(country, category, date string) (seedengine.Partition, error) {
	p := seedengine.Partition{Country: seedengine.NormalizeCountry(country), Category: category, Date: date}
	return p, inPath(p.Validate())
}

type chunkInput struct {
	Country  string `path:"country" maxLength:"8" doc:"ISO 3166-1 alpha-2 code or intl, any case." example:"sg"`
	Category string `path:"category" maxLength:"40" doc:"Category slug." example:"news"`
	Date     string `path:"date" maxLength:"10" doc:"Partition date, YYYY-MM-DD." example:"2026-01-28"`
	Chunk    string `path:"chunk" maxLength:"32" doc:"raw_0001, raw_0001.json or the chunk number." example:"raw_0001"`
}

// chunk parses {chunk} in any of its accepted forms.
func (in *chunkInput) chunk() (seedengine.Partition, int, error) {
	p, err := pathPartition(in.Country, in.Category, in.Date)
	if err != nil {
		return p, 0, err
	}
	n, err := parseChunkParam(in.Chunk)
	return p, n, inPath(err)
}

// parseChunkParam accepts the forms documented above: the canonical name
// (seedengine.ParseChunkName, so one chunk has one name), the same with
// ".json", or a bare chunk number.
func parseChunkParam(s string) (int, error) {
	if name, ok := strings.CutSuffix(s, ".json"); ok || strings.HasPrefix(s, "raw_") {
		if n, err := seedengine.ParseChunkName(name); err == nil {
			return n, nil
		}
	} else if len(s) <= 9 && s != "" && strings.Trim(s, "0123456789") == "" {
		if n, err := strconv.Atoi(s); err == nil && n >= 1 {
			return n, nil
		}
	}
	return 0, seedengine.FieldErrorf("chunk", "chunk must be raw_NNNN, raw_NNNN.json or a chunk number from 1")
}

// chunkPath is where a chunk is served, for Location headers.
func chunkPath(c seedengine.ChunkInfo) string {
	return "/api/v1/datasets/" + url.PathEscape(c.Country) + "/" + url.PathEscape(c.Category) + "/" +
		url.PathEscape(c.Date) + "/" + url.PathEscape(c.Name)
}

type datasetListInput struct {
	Country  string `query:"country" maxLength:"8" doc:"Only this country (any case)." example:"sg"`
	Category string `query:"category" maxLength:"40" doc:"Only this category." example:"news"`
	DateFrom string `query:"date_from" maxLength:"10" doc:"Only dates on or after this one, YYYY-MM-DD."`
	DateTo   string `query:"date_to" maxLength:"10" doc:"Only dates on or before this one, YYYY-MM-DD."`
	Limit    int    `query:"limit" default:"50" minimum:"1" maximum:"1000" doc:"Page size."`
	Offset   int    `query:"offset" default:"0" minimum:"0" doc:"Items to skip."`
}

type partitionList struct {
	Items  []seedengine.PartitionSummary `json:"items"`
	Total  int                           `json:"total" doc:"Partitions matching the filters, regardless of limit and offset."`
	Limit  int                           `json:"limit"`
	Offset int                           `json:"offset"`
}

type partitionListOutput struct{ Body partitionList }

func (s *Server) handleDatasetList(ctx context.Context, in *datasetListInput) (*partitionListOutput, error) {
	if s.deps.Datasets == nil {
		return nil, unavailable("datasets")
	}
	items, total, err := s.deps.Datasets.ListPartitions(ctx, seedengine.PartitionFilter{
		Country:  in.Country,
		Category: in.Category,
		DateFrom: in.DateFrom,
		DateTo:   in.DateTo,
		Limit:    in.Limit,
		Offset:   in.Offset,
	})
	if seedengine.ErrorCode(err) == seedengine.EINVALID {
		// Every filter is a query parameter.
		return nil, &locatedError{loc: "query", err: err}
	}
	if err != nil {
		return nil, err
	}
	if items == nil {
		items = []seedengine.PartitionSummary{}
	}
	return &partitionListOutput{Body: partitionList{Items: items, Total: total, Limit: in.Limit, Offset: in.Offset}}, nil
}

type datasetStatsOutput struct{ Body *seedengine.DatasetStats }

func (s *Server) handleDatasetStats(ctx context.Context, _ *struct{}) (*datasetStatsOutput, error) {
	if s.deps.Datasets == nil {
		return nil, unavailable("datasets")
	}
	st, err := s.deps.Datasets.DatasetStats(ctx)
	if err != nil {
		return nil, err
	}
	return &datasetStatsOutput{Body: st}, nil
}

type chunkListInput struct {
	Country  string `path:"country" maxLength:"8" doc:"ISO 3166-1 alpha-2 code or intl, any case." example:"sg"`
	Category string `path:"category" maxLength:"40" doc:"Category slug." example:"news"`
	Date     string `path:"date" maxLength:"10" doc:"Partition date, YYYY-MM-DD." example:"2026-01-28"`
	Limit    int    `query:"limit" default:"50" minimum:"1" maximum:"1000" doc:"Page size."`
	Offset   int    `query:"offset" default:"0" minimum:"0" doc:"Chunks to skip."`
}

type chunkInfoList struct {
	Items  []seedengine.ChunkInfo `json:"items" doc:"Chunks in chunk order; records is -1 when a chunk cannot be read."`
	Total  int                    `json:"total" doc:"Chunks of the partition."`
	Limit  int                    `json:"limit"`
	Offset int                    `json:"offset"`
}

type chunkInfoListOutput struct{ Body chunkInfoList }

func (s *Server) handleDatasetChunks(ctx context.Context, in *chunkListInput) (*chunkInfoListOutput, error) {
	if s.deps.Datasets == nil {
		return nil, unavailable("datasets")
	}
	p, err := pathPartition(in.Country, in.Category, in.Date)
	if err != nil {
		return nil, err
	}
	chunks, err := s.deps.Datasets.ListChunks(ctx, p)
	if err != nil {
		return nil, err
	}
	total := len(chunks)
	start := min(in.Offset, total)
	page := chunks[start : start+min(in.Limit, total-start)]
	return &chunkInfoListOutput{Body: chunkInfoList{Items: page, Total: total, Limit: in.Limit, Offset: in.Offset}}, nil
}

// chunkStreamOutput sends a chunk as stored. Body is a callback, so huma
// streams instead of encoding a value.
type chunkStreamOutput struct {
	ContentType   string `header:"Content-Type"`
	ContentLength int64  `header:"Content-Length"`
	LastModified  string `header:"Last-Modified"`
	Body          func(huma.Context)
}

func (s *Server) handleChunkGet(ctx context.Context, in *chunkInput) (*chunkStreamOutput, error) {
	if s.deps.Datasets == nil {
		return nil, unavailable("datasets")
	}
	p, n, err := in.chunk()
	if err != nil {
		return nil, err
	}
	rc, info, err := s.deps.Datasets.OpenChunk(ctx, p, n)
	if err != nil {
		return nil, err
	}
	out := &chunkStreamOutput{ContentType: "application/json", ContentLength: info.Bytes}
	if !info.ModTime.IsZero() {
		out.LastModified = info.ModTime.UTC().Format(http.TimeFormat)
	}
	out.Body = s.streamObject(ctx, rc, "stream dataset chunk")
	return out, nil
}

// registerChunkGet documents the streamed body, which huma cannot infer
// from a callback.
func (s *Server) registerChunkGet(api huma.API, op huma.Operation) {
	op.Responses = map[string]*huma.Response{"200": {
		Description: "The chunk exactly as stored, an EnhancedResearchDataset.",
		Content: map[string]*huma.MediaType{"application/json": {
			Schema: api.OpenAPI().Components.Schemas.Schema(reflect.TypeFor[researchDataset](), true, ""),
		}},
	}}
	huma.Register(api, op, s.handleChunkGet)
}

// datasetSaveInput takes the body as a stream: a Body field would make
// huma read and decode all of it in memory first.
type datasetSaveInput struct {
	Country  string `path:"country" maxLength:"8" doc:"ISO 3166-1 alpha-2 code or intl, any case." example:"sg"`
	Category string `path:"category" maxLength:"40" doc:"Category slug." example:"news"`
	Date     string `path:"date" maxLength:"10" doc:"Partition date, YYYY-MM-DD." example:"2026-01-28"`
	body     io.Reader
}

// Resolve implements huma.Resolver to hand the handler the request body.
func (in *datasetSaveInput) Resolve(hctx huma.Context) []error {
	in.body = hctx.BodyReader()
	return nil
}

type chunkCreatedOutput struct {
	Location string `header:"Location" doc:"Where the new chunk is served."`
	Body     seedengine.ChunkInfo
}

func (s *Server) handleDatasetSave(ctx context.Context, in *datasetSaveInput) (*chunkCreatedOutput, error) {
	p, err := pathPartition(in.Country, in.Category, in.Date)
	if err != nil {
		return nil, err
	}
	return s.saveDataset(ctx, p, in.body)
}

// datasetSaveBodyInput is the body-only form of a save: the partition is
// the one the dataset's meta names.
type datasetSaveBodyInput struct{ body io.Reader }

// Resolve implements huma.Resolver to hand the handler the request body.
func (in *datasetSaveBodyInput) Resolve(hctx huma.Context) []error {
	in.body = hctx.BodyReader()
	return nil
}

func (s *Server) handleDatasetSaveBody(ctx context.Context, in *datasetSaveBodyInput) (*chunkCreatedOutput, error) {
	return s.saveDataset(ctx, seedengine.Partition{}, in.body)
}

// saveDataset saves the dataset read from body as the next chunk of p, or
// of the partition its meta names when p is zero.
func (s *Server) saveDataset(ctx context.Context, p seedengine.Partition, body io.Reader) (*chunkCreatedOutput, error) {
	if s.deps.Datasets == nil {
		return nil, unavailable("datasets")
	}
	if body == nil {
		body = strings.NewReader("")
	}
	info, err := s.deps.Datasets.SaveDataset(ctx, p, body)
	if sb, ok := body.(*streamBody); ok && err != nil && sb.strict.Err() != nil {
		// The decoder may trip over what the strict checks refused
		// (a repeated member of another type): name the cause.
		return nil, sb.strict.Err()
	}
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return nil, seedengine.Errorf(seedengine.ETOOLARGE, "request body is larger than %d bytes", mbe.Limit)
	}
	if err != nil {
		return nil, err
	}
	return &chunkCreatedOutput{Location: chunkPath(info), Body: info}, nil
}

// registerDatasetSave registers the save route and then documents its
// body. Declared before registering, the body would make huma read it.
func (s *Server) registerDatasetSave(api huma.API, op huma.Operation) {
	huma.Register(api, op, s.handleDatasetSave)
	documentDatasetBody(api, op, "An EnhancedResearchDataset for this partition: meta.country (upper case), category and date "+
		"must name it (422 naming the meta field otherwise), meta.record_count must match, at least one record. Unknown fields are kept. "+
		"Streamed and stored byte for byte; at most the server's body limit.")
}

// registerDatasetSaveBody registers the body-only save.
func (s *Server) registerDatasetSaveBody(api huma.API, op huma.Operation) {
	huma.Register(api, op, s.handleDatasetSaveBody)
	documentDatasetBody(api, op, "An EnhancedResearchDataset: meta.country (upper case), meta.category and meta.date name "+
		"the partition and are validated like the path form's (422 naming the meta field), meta.record_count must match, "+
		"at least one record. Unknown fields are kept. Streamed and stored byte for byte; at most the server's body limit.")
}

func documentDatasetBody(api huma.API, op huma.Operation, desc string) {
	if item := api.OpenAPI().Paths[op.Path]; item != nil && item.Post != nil {
		item.Post.RequestBody = &huma.RequestBody{
			Description: desc,
			Required:    true,
			Content: map[string]*huma.MediaType{"application/json": {
				Schema: api.OpenAPI().Components.Schemas.Schema(reflect.TypeFor[researchDataset](), true, ""),
			}},
		}
	}
}

func (s *Server) handleChunkDelete(ctx context.Context, in *chunkInput) (*struct{}, error) {
	if s.deps.Datasets == nil {
		return nil, unavailable("datasets")
	}
	p, n, err := in.chunk()
	if err != nil {
		return nil, err
	}
	if err := s.deps.Datasets.DeleteChunk(ctx, p, n); err != nil {
		return nil, err
	}
	return &struct{}{}, nil
}

// researchDataset documents an EnhancedResearchDataset. Unknown fields are
// kept, so the schema allows them.
type researchDataset struct {
	_       struct{}        `additionalProperties:"true"`
	Meta    datasetMeta     `json:"meta"`
	Records []datasetRecord `json:"records" minItems:"1"`
}

type datasetMeta struct {
	_               struct{}               `additionalProperties:"true"`
	DatasetID       string                 `json:"dataset_id,omitempty" example:"sg-news-2026-01-28-0001"`
	Country         string                 `json:"country" doc:"Upper case." example:"SG"`
	Category        string                 `json:"category" example:"news"`
	Date            string                 `json:"date" format:"date"`
	DiscoveredAt    time.Time              `json:"discovered_at,omitempty"`
	ResearchMethods []string               `json:"research_methods,omitempty"`
	Queries         []string               `json:"queries,omitempty"`
	Engine          *seedengine.EngineInfo `json:"engine,omitempty"`
	RecordCount     int                    `json:"record_count" doc:"Must equal the number of records."`
}

type datasetRecord struct {
	_                struct{} `additionalProperties:"true"`
	RawURL           string   `json:"raw_url" minLength:"1" maxLength:"8192"`
	NormalizedURL    string   `json:"normalized_url,omitempty"`
	NormalizedDomain string   `json:"normalized_domain,omitempty"`
	DomainID         string   `json:"domain_id,omitempty" example:"gov:sg:mom.gov.sg"`
	Authority        string   `json:"authority,omitempty" enum:"gov,mil,edu,ngo,org,media,com,other"`
	AuthorityRule    string   `json:"authority_rule,omitempty" example:"suffix:gov.sg"`
	SourceType       string   `json:"source_type,omitempty"`
	DiscoveryMethod  string   `json:"discovery_method,omitempty"`
	Confidence       float64  `json:"confidence,omitempty" minimum:"0" maximum:"1"`
	ContentHints     []string `json:"content_hints,omitempty"`
}
