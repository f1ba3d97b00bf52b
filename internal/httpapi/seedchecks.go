package httpapi

import (
	"context"
	"time"

	"github.com/seedengine/seedengine"
)

type seedChecksInput struct {
	SeedID string `path:"seedId" maxLength:"400" doc:"{domain_id}::{content_type}, or {domain_id}::{content_type}@{edition} for a publisher's edition other than its default; URL-escaped or not, any case." example:"gov:sg:mom.gov.sg::news"`
	Before int64  `query:"before" minimum:"0" doc:"Page: only checks older than this check id (the next_before of the previous page)."`
	Limit  int    `query:"limit" default:"50" minimum:"1" maximum:"500" doc:"Page size."`
}

type seedCheckList struct {
	SeedID string `json:"seed_id"`
	// Health is the seed's health as its checks show it.
	Health seedengine.SeedHealth `json:"health"`
	// NextCheckAt is when the seed is next due; absent when never checked.
	NextCheckAt *time.Time             `json:"next_check_at,omitempty"`
	Items       []seedengine.SeedCheck `json:"items"`
	// NextBefore pages on: the before of the next page; absent on the last.
	NextBefore int64 `json:"next_before,omitempty"`
}

type seedCheckListOutput struct{ Body seedCheckList }

func (s *Server) handleSeedChecks(ctx context.Context, in *seedChecksInput) (*seedCheckListOutput, error) {
	if s.deps.Seeds == nil || s.deps.SeedChecks == nil {
		return nil, unavailable("seed checks")
	}
	sd, err := s.pathSeed(ctx, in.SeedID)
	if err != nil {
		return nil, err
	}
	id := sd.SeedID
	// One more than asked says whether there is a next page.
	items, h, next, err := s.deps.SeedChecks.FindSeedChecksWithHealth(ctx, id, in.Before, in.Limit+1)
	if err != nil {
		return nil, err
	}
	out := seedCheckList{SeedID: id, Health: h, Items: items}
	if !next.IsZero() {
		out.NextCheckAt = &next
	}
	if len(items) > in.Limit {
		out.Items = items[:in.Limit]
		out.NextBefore = out.Items[in.Limit-1].ID
	}
	return &seedCheckListOutput{Body: out}, nil
}

type seedCheckQueued struct {
	SeedID string `json:"seed_id"`
	// JobID is the check's job (River UI: /console/queue/jobs/{id}).
	JobID int64 `json:"job_id"`
	// Queued is false when a check of the seed asked for now was already waiting or
	// running: job_id is that one.
	Queued bool `json:"queued"`
}

type seedCheckQueuedOutput struct{ Body seedCheckQueued }

func (s *Server) handleSeedCheckNow(ctx context.Context, in *seedInput) (*seedCheckQueuedOutput, error) {
	if s.deps.Seeds == nil || s.deps.SeedCheckQueue == nil {
		return nil, unavailable("seed checks")
	}
	sd, err := s.pathSeed(ctx, in.SeedID)
	if err != nil {
		return nil, err
	}
	id := sd.SeedID
	if sd.Status != seedengine.SeedActive && sd.Status != seedengine.SeedSuspended {
		return nil, seedengine.Errorf(seedengine.ECONFLICT, "seed %s is %s: only active and suspended seeds are checked", id, sd.Status)
	}
	job, queued, err := s.deps.SeedCheckQueue.EnqueueSeedCheck(ctx, id)
	if err != nil {
		return nil, err
	}
	return &seedCheckQueuedOutput{Body: seedCheckQueued{SeedID: id, JobID: job, Queued: queued}}, nil
}
