package httpapi

import "time"

// Planned metadata routes. Shapes follow DESIGN §8 (snapshot and sync).

type pageInput struct {
	Limit  int `query:"limit" default:"50" minimum:"1" maximum:"1000"`
	Offset int `query:"offset" default:"0" minimum:"0"`
}

type countryInput struct {
	Country string `path:"country" doc:"ISO 3166-1 alpha-2 code or intl." example:"sg"`
}

type metadataTask struct {
	ID         string     `json:"id"`
	Status     string     `json:"status" enum:"queued,running,committed,unchanged,failed"`
	Trigger    string     `json:"trigger" enum:"api,queue,schedule,batch" doc:"What started the sync."`
	Commit     string     `json:"commit,omitempty" doc:"Git commit written, if any."`
	Error      string     `json:"error,omitempty"`
	CreatedAt  time.Time  `json:"created_at"`
	FinishedAt *time.Time `json:"finished_at"`
}

type metadataTaskOutput struct{ Body metadataTask }

type metadataTaskList struct {
	Items  []metadataTask `json:"items"`
	Total  int            `json:"total"`
	Limit  int            `json:"limit"`
	Offset int            `json:"offset"`
}

type metadataTaskListOutput struct{ Body metadataTaskList }

type partitionCounts struct {
	Chunks  int `json:"chunks"`
	Records int `json:"records"`
	Domains int `json:"domains"`
}

type snapshotTotals struct {
	Partitions        int            `json:"partitions"`
	Chunks            int            `json:"chunks"`
	Records           int            `json:"records"`
	Domains           int            `json:"domains"`
	SeedsByStatus     map[string]int `json:"seeds_by_status"`
	LivenessByVerdict map[string]int `json:"liveness_by_verdict"`
}

type metadataSnapshot struct {
	GeneratedAt time.Time                                        `json:"generated_at"`
	Totals      snapshotTotals                                   `json:"totals"`
	Countries   map[string]map[string]map[string]partitionCounts `json:"countries" doc:"Counts by country, category and date."`
	LastSync    *metadataTask                                    `json:"last_sync"`
}

type snapshotOutput struct{ Body metadataSnapshot }

type countryMetadata struct {
	Country    string                                `json:"country"`
	Categories map[string]map[string]partitionCounts `json:"categories" doc:"Counts by category and date."`
}

type countryMetadataOutput struct{ Body countryMetadata }
