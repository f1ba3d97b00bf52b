package httpapi

import (
	"context"

	"github.com/seedengine/seedengine"
)

// Metadata: the snapshot of the engine's data (computed from the SQL
// store), one country's slice of it, and the sync tasks that commit it to
// a git repository (internal/metasync).

type pageInput struct {
	Limit  int `query:"limit" default:"50" minimum:"1" maximum:"1000"`
	Offset int `query:"offset" default:"0" minimum:"0"`
}

type countryInput struct {
	Country string `path:"country" maxLength:"8" doc:"ISO 3166-1 alpha-2 code or intl, any case." example:"sg"`
}

type snapshotOutput struct{ Body *seedengine.MetadataSnapshot }

type countryMetadataOutput struct{ Body *seedengine.CountryMetadata }

type metadataTaskListInput struct {
	Status string `query:"status" enum:"queued,running,succeeded,failed,skipped_unchanged" doc:"Only tasks with this status."`
	Limit  int    `query:"limit" default:"50" minimum:"1" maximum:"1000"`
	Offset int    `query:"offset" default:"0" minimum:"0"`
}

type metadataTaskList struct {
	Items  []*seedengine.MetadataTask `json:"items"`
	Total  int                        `json:"total"`
	Limit  int                        `json:"limit"`
	Offset int                        `json:"offset"`
}

type metadataTaskListOutput struct{ Body metadataTaskList }

type metadataTaskOutput struct {
	Location string `header:"Location" doc:"The tasks list, filtered to queued ones."`
	Body     *seedengine.MetadataTask
}

func (s *Server) handleMetadataSnapshot(ctx context.Context, _ *struct{}) (*snapshotOutput, error) {
	if s.deps.Metadata == nil {
		return nil, unavailable("metadata")
	}
	snap, err := s.deps.Metadata.Snapshot(ctx)
	if err != nil {
		return nil, err
	}
	return &snapshotOutput{Body: snap}, nil
}

func (s *Server) handleMetadataCountry(ctx context.Context, in *countryInput) (*countryMetadataOutput, error) {
	if s.deps.Metadata == nil {
		return nil, unavailable("metadata")
	}
	country := seedengine.NormalizeCountry(in.Country)
	if err := seedengine.ValidateCountry(country); err != nil {
		return nil, err
	}
	m, err := s.deps.Metadata.CountryMetadata(ctx, country)
	if err != nil {
		return nil, err
	}
	return &countryMetadataOutput{Body: m}, nil
}

func (s *Server) handleMetadataTasks(ctx context.Context, in *metadataTaskListInput) (*metadataTaskListOutput, error) {
	if s.deps.Metadata == nil {
		return nil, unavailable("metadata")
	}
	items, total, err := s.deps.Metadata.FindMetadataTasks(ctx, seedengine.MetadataTaskFilter{
		Status: seedengine.MetadataTaskStatus(in.Status), Limit: in.Limit, Offset: in.Offset})
	if err != nil {
		return nil, err
	}
	if items == nil {
		items = []*seedengine.MetadataTask{}
	}
	return &metadataTaskListOutput{Body: metadataTaskList{Items: items, Total: total, Limit: in.Limit, Offset: in.Offset}}, nil
}

// handleMetadataSync and handleMetadataSyncTrigger queue a sync task, or
// answer with the task already queued, which then serves this request
// too.
func (s *Server) handleMetadataSync(ctx context.Context, _ *struct{}) (*metadataTaskOutput, error) {
	return s.triggerSync(ctx, seedengine.TriggerAPI)
}

func (s *Server) handleMetadataSyncTrigger(ctx context.Context, _ *struct{}) (*metadataTaskOutput, error) {
	return s.triggerSync(ctx, seedengine.TriggerQueue)
}

func (s *Server) triggerSync(ctx context.Context, trigger seedengine.MetadataTrigger) (*metadataTaskOutput, error) {
	if s.deps.MetadataSync == nil {
		return nil, unavailable("metadata sync")
	}
	t, _, err := s.deps.MetadataSync.TriggerMetadataSync(ctx, trigger)
	if err != nil {
		return nil, err
	}
	return &metadataTaskOutput{Location: "/api/v1/metadata/tasks?status=queued", Body: t}, nil
}
