package httpapi

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/seedengine/seedengine"
)

// Research routes: research results submitted directly (rather than
// queued as a batch) and read back by partition.

type researchCreateRequest struct {
	Country         string                `json:"country" minLength:"2" maxLength:"4" doc:"ISO 3166-1 alpha-2 code or intl, any case." example:"sg"`
	Category        string                `json:"category" pattern:"^[a-z0-9_]{1,40}$" example:"news"`
	Date            string                `json:"date,omitempty" format:"date" doc:"Partition date; today (UTC) when absent." example:"2026-01-28"`
	ResearchMethods []string              `json:"research_methods,omitempty" maxItems:"20" maxLength:"200" doc:"How the URLs were found, e.g. search, crawl."`
	Queries         []string              `json:"queries,omitempty" maxItems:"50" maxLength:"200" doc:"Queries that found them."`
	URLs            []string              `json:"urls,omitempty" minItems:"1" maxItems:"10000" maxLength:"8192" format:"url" doc:"URLs found for the partition, each at most 8192 bytes, read as the URL Standard reads them (a U+0000 is read as %00). Give urls or records, not both."`
	Records         []researchRecordInput `json:"records,omitempty" minItems:"1" maxItems:"10000" doc:"Records with a raw_url and optional hints; other fields are kept in the dataset. Give urls or records, not both."`
}

// researchRecordInput is one submitted record. The engine computes the
// normalised and classified fields itself; any field it does not know is
// kept and written to the dataset unchanged.
type researchRecordInput struct {
	_               struct{} `additionalProperties:"true"`
	RawURL          string   `json:"raw_url" maxLength:"8192" format:"url" doc:"The URL as found (a U+0000 is kept as %00); an empty or unusable one is rejected, not fatal." example:"https://www.mom.gov.sg/newsroom"`
	DiscoveryMethod string   `json:"discovery_method,omitempty" maxLength:"200" example:"search"`
	Confidence      float64  `json:"confidence,omitempty" minimum:"0" maximum:"1" doc:"0 or absent: 0.9 for gov, mil, edu and ngo domains, 0.6 otherwise."`
	ContentHints    []string `json:"content_hints,omitempty" maxItems:"100" example:"[\"news\"]"`
	extra           map[string]json.RawMessage
}

// computedRecordFields are the record fields research computes; values a
// client sends for them are dropped rather than kept as extra fields,
// which would collide with the computed ones when the dataset is written.
var computedRecordFields = map[string]bool{
	"raw_url": true, "normalized_url": true, "normalized_domain": true, "domain_id": true,
	"authority": true, "authority_rule": true, "source_type": true,
	"discovery_method": true, "confidence": true, "content_hints": true,
}

// UnmarshalJSON keeps the fields the schema does not name.
func (r *researchRecordInput) UnmarshalJSON(b []byte) error {
	var all map[string]json.RawMessage
	if err := json.Unmarshal(b, &all); err != nil {
		return err
	}
	type known researchRecordInput // without this method
	var k known
	if err := json.Unmarshal(b, &k); err != nil {
		return err
	}
	*r = researchRecordInput(k)
	for name, v := range all {
		if computedRecordFields[name] {
			continue
		}
		if r.extra == nil {
			r.extra = map[string]json.RawMessage{}
		}
		r.extra[name] = v
	}
	return nil
}

func (r *researchRecordInput) record() seedengine.DatasetRecord {
	return seedengine.DatasetRecord{
		RawURL:          seedengine.URLText(r.RawURL),
		DiscoveryMethod: r.DiscoveryMethod,
		Confidence:      r.Confidence,
		ContentHints:    r.ContentHints,
		Extra:           r.extra,
	}
}

type researchCreateInput struct{ Body researchCreateRequest }

type researchCreateOutput struct {
	Status   int
	Location string `header:"Location" doc:"The partition the chunk was written to; absent when nothing was accepted."`
	Body     *seedengine.ResearchResult
}

// registerResearchCreate registers handleResearchCreate and documents its
// second success status: huma knows only the route's 201.
func (s *Server) registerResearchCreate(api huma.API, op huma.Operation) {
	huma.Register(api, op, s.handleResearchCreate)
	item := api.OpenAPI().Paths[op.Path]
	if item == nil || item.Post == nil {
		return
	}
	created := item.Post.Responses[strconv.Itoa(http.StatusCreated)]
	if created == nil {
		return
	}
	created.Description = "A chunk was written with the accepted records; Location names the partition."
	item.Post.Responses[strconv.Itoa(http.StatusOK)] = &huma.Response{
		Description: "Nothing was accepted (every URL rejected or a duplicate): no chunk was written and chunk is null.",
		Content:     created.Content,
	}
}

func (s *Server) handleResearchCreate(ctx context.Context, in *researchCreateInput) (*researchCreateOutput, error) {
	if s.deps.Research == nil {
		return nil, unavailable("research")
	}
	req := &in.Body
	switch {
	case req.URLs == nil && req.Records == nil:
		return nil, seedengine.FieldErrorf("urls", "urls or records is required")
	case req.URLs != nil && req.Records != nil:
		return nil, seedengine.FieldErrorf("records", "give urls or records, not both")
	}
	p, err := bodyPartition(req.Country, req.Category, req.Date)
	if err != nil {
		return nil, err
	}
	ri := seedengine.ResearchInput{
		Partition:       p,
		ResearchMethods: req.ResearchMethods,
		Queries:         req.Queries,
		URLs:            req.URLs,
	}
	if req.Records != nil {
		ri.Records = make([]seedengine.DatasetRecord, len(req.Records))
		for i := range req.Records {
			ri.Records[i] = req.Records[i].record()
		}
	}
	res, err := s.deps.Research.Research(ctx, ri)
	if err != nil {
		return nil, err
	}
	out := &researchCreateOutput{Status: 200, Body: res}
	if res.Chunk != nil {
		out.Status = 201
		out.Location = researchPartitionPath(res.Partition)
	}
	return out, nil
}

// bodyPartition normalises and validates a partition given in a request
// body, defaulting the date to today (UTC). This is the one place that
// default is applied, for direct research and research batches alike.
func bodyPartition(country, category, date string) (seedengine.Partition, error) {
	if date == "" {
		date = time.Now().UTC().Format(seedengine.DateLayout)
	}
	p := seedengine.Partition{Country: seedengine.NormalizeCountry(country), Category: category, Date: date}
	return p, p.Validate()
}

func researchPartitionPath(p seedengine.Partition) string {
	return "/api/v1/research/" + url.PathEscape(p.Country) + "/" + url.PathEscape(p.Category) + "/" + p.Date
}

type researchListInput struct {
	Country  string `query:"country" maxLength:"8" doc:"Only this country (any case)." example:"sg"`
	Category string `query:"category" maxLength:"40" doc:"Only this category." example:"news"`
	DateFrom string `query:"date_from" format:"date" doc:"Only dates on or after this one."`
	DateTo   string `query:"date_to" format:"date" doc:"Only dates on or before this one."`
	Limit    int    `query:"limit" default:"50" minimum:"1" maximum:"1000" doc:"Page size."`
	Offset   int    `query:"offset" default:"0" minimum:"0" doc:"Items to skip."`
}

func (s *Server) handleResearchList(ctx context.Context, in *researchListInput) (*partitionListOutput, error) {
	if s.deps.Research == nil {
		return nil, unavailable("research")
	}
	f := seedengine.PartitionFilter{Country: in.Country, Category: in.Category, DateFrom: in.DateFrom, DateTo: in.DateTo, Limit: in.Limit, Offset: in.Offset}
	if err := f.Validate(); err != nil {
		return nil, inQuery(err) // every filter is a query parameter
	}
	items, total, err := s.deps.Research.FindResearch(ctx, f)
	if err != nil {
		return nil, err
	}
	if items == nil {
		items = []seedengine.PartitionSummary{}
	}
	return &partitionListOutput{Body: partitionList{Items: items, Total: total, Limit: f.Limit, Offset: f.Offset}}, nil
}

type researchIndexOutput struct{ Body *seedengine.ResearchIndex }

func (s *Server) handleResearchIndex(ctx context.Context, _ *struct{}) (*researchIndexOutput, error) {
	if s.deps.Research == nil {
		return nil, unavailable("research")
	}
	idx, err := s.deps.Research.FindResearchIndex(ctx)
	if err != nil {
		return nil, err
	}
	return &researchIndexOutput{Body: idx}, nil
}

type researchPartitionInput struct {
	Country      string `path:"country" maxLength:"8" doc:"ISO 3166-1 alpha-2 code or intl, any case." example:"sg"`
	Category     string `path:"category" maxLength:"40" doc:"Category slug." example:"news"`
	Date         string `path:"date" maxLength:"10" example:"2026-01-28"`
	DomainLimit  int    `query:"domain_limit" default:"50" minimum:"1" maximum:"1000" doc:"Page size of the partition's domains."`
	DomainOffset int    `query:"domain_offset" default:"0" minimum:"0" doc:"Domains to skip."`
}

type researchPartitionOutput struct{ Body *seedengine.ResearchPartition }

func (s *Server) handleResearchPartition(ctx context.Context, in *researchPartitionInput) (*researchPartitionOutput, error) {
	if s.deps.Research == nil {
		return nil, unavailable("research")
	}
	p := seedengine.Partition{Country: seedengine.NormalizeCountry(in.Country), Category: in.Category, Date: in.Date}
	if err := p.Validate(); err != nil {
		return nil, inPath(err)
	}
	rp, err := s.deps.Research.FindResearchPartition(ctx, p, in.DomainLimit, in.DomainOffset)
	if err != nil {
		return nil, err
	}
	return &researchPartitionOutput{Body: rp}, nil
}
