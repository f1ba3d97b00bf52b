package httpapi

import (
	"time"
)

// Planned dataset routes. Shapes follow DESIGN §5 (object store layout,
// EnhancedResearchDataset).

type partitionInput struct {
	Country  string `path:"country" doc:"ISO 3166-1 alpha-2 code or intl, lower case." example:"sg"`
	Category string `path:"category" doc:"Category slug." example:"news"`
	Date     string `path:"date" format:"date" example:"2026-01-28"`
}

type chunkInput struct {
	Country  string `path:"country" example:"sg"`
	Category string `path:"category" example:"news"`
	Date     string `path:"date" format:"date" example:"2026-01-28"`
	Chunk    string `path:"chunk" pattern:"^raw_[0-9]{4,}$" example:"raw_0001"`
}

type datasetListInput struct {
	Country  string `query:"country" doc:"Only this country."`
	Category string `query:"category" doc:"Only this category."`
	From     string `query:"from" format:"date" doc:"Only dates on or after this one."`
	To       string `query:"to" format:"date" doc:"Only dates on or before this one."`
	Limit    int    `query:"limit" default:"50" minimum:"1" maximum:"1000"`
	Offset   int    `query:"offset" default:"0" minimum:"0"`
}

type partitionSummary struct {
	Country  string `json:"country"`
	Category string `json:"category"`
	Date     string `json:"date"`
	Chunks   int    `json:"chunks"`
	Records  int    `json:"records"`
}

type partitionList struct {
	Items  []partitionSummary `json:"items"`
	Total  int                `json:"total"`
	Limit  int                `json:"limit"`
	Offset int                `json:"offset"`
}

type partitionListOutput struct{ Body partitionList }

type datasetStats struct {
	Partitions int            `json:"partitions"`
	Chunks     int            `json:"chunks"`
	Records    int            `json:"records"`
	ByCountry  map[string]int `json:"by_country" doc:"Records by country."`
	ByCategory map[string]int `json:"by_category" doc:"Records by category."`
}

type datasetStatsOutput struct{ Body datasetStats }

type chunkInfo struct {
	Key         string    `json:"key" doc:"Object store key." example:"raw/country=sg/category=news/date=2026-01-28/raw_0001.json"`
	Chunk       string    `json:"chunk" example:"raw_0001"`
	SizeBytes   int64     `json:"size_bytes"`
	RecordCount int       `json:"record_count"`
	CreatedAt   time.Time `json:"created_at"`
}

type chunkInfoOutput struct {
	Location string `header:"Location"`
	Body     chunkInfo
}

type chunkInfoList struct {
	Items  []chunkInfo `json:"items"`
	Total  int         `json:"total"`
	Limit  int         `json:"limit"`
	Offset int         `json:"offset"`
}

type chunkInfoListOutput struct{ Body chunkInfoList }

// researchDataset is an EnhancedResearchDataset. Unknown fields are kept,
// so the schema allows them.
type researchDataset struct {
	_       struct{}        `additionalProperties:"true"`
	Meta    datasetMeta     `json:"meta"`
	Records []datasetRecord `json:"records" maxItems:"100000"`
}

type datasetMeta struct {
	_               struct{}    `additionalProperties:"true"`
	DatasetID       string      `json:"dataset_id,omitempty" example:"sg-news-2026-01-28-0001"`
	Country         string      `json:"country" doc:"Upper case." example:"SG"`
	Category        string      `json:"category" example:"news"`
	Date            string      `json:"date" format:"date"`
	DiscoveredAt    time.Time   `json:"discovered_at"`
	ResearchMethods []string    `json:"research_methods,omitempty"`
	Queries         []string    `json:"queries,omitempty"`
	Engine          *engineInfo `json:"engine,omitempty"`
	RecordCount     int         `json:"record_count"`
}

type engineInfo struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

type datasetRecord struct {
	_                struct{} `additionalProperties:"true"`
	RawURL           string   `json:"raw_url"`
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

type datasetOutput struct{ Body researchDataset }

type datasetSaveInput struct {
	Country  string `path:"country" example:"sg"`
	Category string `path:"category" example:"news"`
	Date     string `path:"date" format:"date" example:"2026-01-28"`
	Body     researchDataset
}
