package httpapi

// Planned research routes: research results submitted directly (rather
// than queued) and read back by partition.

type researchCreateRequest struct {
	Country         string   `json:"country" example:"sg"`
	Category        string   `json:"category" example:"news"`
	Date            string   `json:"date" format:"date"`
	URLs            []string `json:"urls" minItems:"1" maxItems:"10000"`
	ResearchMethods []string `json:"research_methods,omitempty"`
	Queries         []string `json:"queries,omitempty"`
}

type researchCreateInput struct{ Body researchCreateRequest }

type researchIndex struct {
	Countries map[string]map[string][]string `json:"countries" doc:"Dates with research, by country and category."`
}

type researchIndexOutput struct{ Body researchIndex }

type researchPartition struct {
	Country  string          `json:"country"`
	Category string          `json:"category"`
	Date     string          `json:"date"`
	Chunks   []chunkInfo     `json:"chunks"`
	Records  []datasetRecord `json:"records"`
}

type researchPartitionOutput struct{ Body researchPartition }
