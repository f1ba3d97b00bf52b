package httpapi

import (
	"context"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/orchestrate"
)

// Seed orchestration: a partition's raw files fan out to file jobs, which
// fan out to domain jobs (internal/orchestrate documents both).

type orchestrateRequest struct {
	Country  string `json:"country" minLength:"2" maxLength:"4" doc:"ISO 3166-1 alpha-2 code or intl, any case." example:"sg"`
	Category string `json:"category" pattern:"^[a-z0-9_]{1,40}$" example:"news"`
	Date     string `json:"date" doc:"YYYY-MM-DD." example:"2026-01-28"`
	Force    bool   `json:"force,omitempty" doc:"Process files already checkpointed too, and collect domains again."`
}

type orchestrateInput struct{ Body orchestrateRequest }

type orchestrateResult struct {
	Status       string `json:"status" enum:"queued,nothing_to_do" doc:"queued: a batch was created; nothing_to_do: every file is already checkpointed."`
	BatchID      string `json:"batch_id,omitempty" doc:"The orchestration batch; follow it at /api/v1/queues/batch/{batch_id}."`
	FilesFound   int    `json:"files_found" doc:"raw_NNNN.json files of the partition."`
	MessagesSent int    `json:"messages_sent" doc:"File jobs queued."`
	Skipped      int    `json:"skipped" doc:"Files already checkpointed (0 with force)."`
}

type orchestrateOutput struct {
	// Status is 202 when a batch was queued, 200 when there was nothing
	// to do.
	Status   int
	Location string `header:"Location" doc:"The batch, when one was queued."`
	Body     orchestrateResult
}

// handleOrchestrate plans the batch (orchestrate.Plan: one file job per
// raw file not checkpointed, each one when forced) and queues it, the
// batch and its jobs in one transaction.
func (s *Server) handleOrchestrate(ctx context.Context, in *orchestrateInput) (*orchestrateOutput, error) {
	if s.deps.Batches == nil || s.deps.Datasets == nil {
		return nil, unavailable("batches")
	}
	req := &in.Body
	p := seedengine.Partition{Country: seedengine.NormalizeCountry(req.Country), Category: req.Category, Date: req.Date}
	if err := p.Validate(); err != nil {
		return nil, err
	}
	log := s.logger.With(slog.Group("partition", "country", p.Country, "category", p.Category, "date", p.Date))
	log.InfoContext(ctx, "orchestrator start", "event", "orchestrator_start", "force", req.Force)
	plan, err := orchestrate.Plan(ctx, s.deps.Datasets, p, req.Force)
	if err != nil {
		return nil, err
	}
	out := orchestrateResult{Status: "nothing_to_do", FilesFound: plan.FilesFound, Skipped: plan.Skipped}
	log.InfoContext(ctx, "files found", "event", "files_found", "files", plan.FilesFound, "skipped", plan.Skipped, "force", req.Force)
	if plan.Batch == nil {
		return &orchestrateOutput{Status: http.StatusOK, Body: out}, nil
	}
	b := plan.Batch
	if err := s.deps.Batches.CreateBatch(ctx, b, plan.Chunks); err != nil {
		return nil, err
	}
	out.Status, out.BatchID, out.MessagesSent = "queued", b.ID, len(plan.Chunks)
	log.InfoContext(ctx, "queue messages sent", "event", "queue_messages_sent", "batch_id", b.ID, "messages", len(plan.Chunks))
	return &orchestrateOutput{Status: http.StatusAccepted, Location: "/api/v1/queues/batch/" + url.PathEscape(b.ID), Body: out}, nil
}

// Dead letters: queue jobs that used every attempt, or failed at once.

type deadLetterListInput struct {
	Kind   string `query:"kind" enum:"article_extract,article_sweep,batch_finished,contract_chunk,import_chunk,item_flush,liveness_chunk,metadata_schedule,metadata_sync,orchestration_domain,orchestration_file,page_fetch,page_sweep,research_chunk,retention,seed_alert,seed_check,seed_check_schedule,seed_drift" doc:"Only jobs of this kind."`
	Limit  int    `query:"limit" default:"50" minimum:"1" maximum:"1000"`
	Offset int    `query:"offset" default:"0" minimum:"0" maximum:"9999" doc:"offset + limit is at most 10,000."`
}

type deadLetterList struct {
	Items  []*seedengine.DeadLetter `json:"items"`
	Total  int                      `json:"total"`
	Limit  int                      `json:"limit"`
	Offset int                      `json:"offset"`
}

type deadLetterListOutput struct{ Body deadLetterList }

type deadLetterInput struct {
	ID string `path:"id" maxLength:"20" pattern:"^[0-9]+$" doc:"The job id."`
}

type deadLetterOutput struct{ Body *seedengine.DeadLetter }

func (s *Server) handleDeadLetterList(ctx context.Context, in *deadLetterListInput) (*deadLetterListOutput, error) {
	if s.deps.DeadLetters == nil {
		return nil, unavailable("queue")
	}
	items, total, err := s.deps.DeadLetters.FindDeadLetters(ctx, in.Kind, in.Limit, in.Offset)
	if err != nil {
		return nil, err
	}
	return &deadLetterListOutput{Body: deadLetterList{Items: items, Total: total, Limit: in.Limit, Offset: in.Offset}}, nil
}

func (s *Server) handleDeadLetterRetry(ctx context.Context, in *deadLetterInput) (*deadLetterOutput, error) {
	if s.deps.DeadLetters == nil {
		return nil, unavailable("queue")
	}
	id, err := strconv.ParseInt(in.ID, 10, 64)
	if err != nil || id < 1 {
		return nil, seedengine.FieldErrorf("id", "id must be a positive job id")
	}
	dl, err := s.deps.DeadLetters.RetryDeadLetter(ctx, id)
	if err != nil {
		return nil, err
	}
	return &deadLetterOutput{Body: dl}, nil
}
