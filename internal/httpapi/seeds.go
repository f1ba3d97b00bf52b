package httpapi

import "time"

// Planned seed routes. A seed is a retrieval contract for one domain and
// one kind of content (DESIGN §1, §2, §6).

type seedRecord struct {
	SeedID      string    `json:"seed_id" example:"gov:sg:mom.gov.sg::news"`
	DomainID    string    `json:"domain_id" example:"gov:sg:mom.gov.sg"`
	ContentType string    `json:"content_type" example:"news"`
	Status      string    `json:"status" enum:"draft,active,suspended,archived"`
	SourceType  string    `json:"source_type" enum:"government,organization,ngo,media,company,education,other"`
	FetchType   string    `json:"fetch_type" enum:"rss,atom,json_feed,news_sitemap,sitemap,html,api"`
	URL         string    `json:"url" format:"uri"`
	Country     string    `json:"country"`
	Category    string    `json:"category"`
	CreatedAt   time.Time `json:"created_at"`
	UpdatedAt   time.Time `json:"updated_at"`
}

type seedOutput struct{ Body seedRecord }

type seedListInput struct {
	Status     string `query:"status" enum:"draft,active,suspended,archived"`
	Country    string `query:"country"`
	Category   string `query:"category"`
	SourceType string `query:"source_type" enum:"government,organization,ngo,media,company,education,other"`
	Limit      int    `query:"limit" default:"50" minimum:"1" maximum:"100"`
	Offset     int    `query:"offset" default:"0" minimum:"0"`
}

type seedList struct {
	Items  []seedRecord `json:"items"`
	Total  int          `json:"total"`
	Limit  int          `json:"limit"`
	Offset int          `json:"offset"`
}

type seedListOutput struct{ Body seedList }

type seedInput struct {
	SeedID string `path:"seedId" maxLength:"400" doc:"{domain_id}::{content_type}, URL-escaped."`
}

type seedCreateRequest struct {
	DomainID    string `json:"domain_id"`
	ContentType string `json:"content_type"`
	FetchType   string `json:"fetch_type" enum:"rss,atom,json_feed,news_sitemap,sitemap,html,api"`
	URL         string `json:"url" format:"uri"`
	Category    string `json:"category,omitempty"`
}

type seedCreateInput struct{ Body seedCreateRequest }

type seedUpdateRequest struct {
	FetchType *string `json:"fetch_type,omitempty" enum:"rss,atom,json_feed,news_sitemap,sitemap,html,api"`
	URL       *string `json:"url,omitempty" format:"uri"`
	Category  *string `json:"category,omitempty"`
}

type seedUpdateInput struct {
	SeedID string `path:"seedId" maxLength:"400"`
	Body   seedUpdateRequest
}

type seedPromoteRequest struct {
	SeedID string `json:"seedId" doc:"The draft seed to promote."`
}

type seedPromoteInput struct{ Body seedPromoteRequest }

type orchestrateRequest struct {
	Country  string `json:"country" example:"sg"`
	Category string `json:"category" example:"news"`
	Date     string `json:"date" format:"date"`
	Force    bool   `json:"force,omitempty" doc:"Process files already checkpointed too."`
}

type orchestrateInput struct{ Body orchestrateRequest }

type orchestrateResult struct {
	Status       string `json:"status" enum:"queued"`
	BatchID      string `json:"batch_id"`
	FilesFound   int    `json:"files_found"`
	MessagesSent int    `json:"messages_sent"`
	Skipped      int    `json:"skipped" doc:"Files already checkpointed (0 with force)."`
}

type orchestrateOutput struct{ Body orchestrateResult }
