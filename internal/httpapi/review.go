package httpapi

import (
	"context"
	"strings"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/contract"
)

// Review routes: what a reviewer decides about a draft beyond promoting
// it (reject, reopen, choose another candidate of its evidence) and the
// same decisions for many seeds at once. docs/seeds.md "Reviewing".

// Reject and reopen.

type seedRejectRequest struct {
	ReasonCode string `json:"reason_code" enum:"not_relevant,duplicate,wrong_entry,low_quality,not_allowed,other" doc:"Why, from the short list: not_relevant (not a source this partition wants), duplicate (another seed covers it), wrong_entry (no candidate is a good entry), low_quality, not_allowed (robots.txt, terms or a paywall), other (say why in reason)."`
	Reason     string `json:"reason,omitempty" maxLength:"500" doc:"Free text kept with the rejection in the seed's history."`
}

type seedRejectInput struct {
	SeedID string `path:"seedId" maxLength:"400" doc:"{domain_id}::{content_type}, or {domain_id}::{content_type}@{edition} for a publisher's edition other than its default; URL-escaped or not, any case."`
	Body   seedRejectRequest
}

func (s *Server) handleSeedReject(ctx context.Context, in *seedRejectInput) (*seedOutput, error) {
	if s.deps.Seeds == nil {
		return nil, unavailable("seeds")
	}
	id, err := parseSeedID(in.SeedID, "path", "seedId")
	if err != nil {
		return nil, err
	}
	sd, err := s.deps.Seeds.RejectSeed(ctx, id, seedengine.RejectReason(in.Body.ReasonCode), in.Body.Reason, actor(ctx))
	if err != nil {
		return nil, conflictWithoutField(err)
	}
	return &seedOutput{Body: reviewed(sd)}, nil
}

// conflictWithoutField drops the store's field ("status") from a
// conflict: it names the current status, which is no input of the
// request.
func conflictWithoutField(err error) error {
	if seedengine.ErrorCode(err) == seedengine.ECONFLICT {
		return seedengine.Errorf(seedengine.ECONFLICT, "%s", seedengine.ErrorMessage(err))
	}
	return err
}

// Candidates and choosing one.

type seedCandidateList struct {
	SeedID string                     `json:"seed_id"`
	Items  []seedengine.SeedCandidate `json:"items" doc:"Every candidate of the seed's latest contract run, in the order found, judged against the seed's current entry."`
	Total  int                        `json:"total"`
}

type seedCandidateListOutput struct{ Body seedCandidateList }

func (s *Server) handleSeedCandidates(ctx context.Context, in *seedInput) (*seedCandidateListOutput, error) {
	if s.deps.Review == nil {
		return nil, unavailable("seed review")
	}
	id, err := parseSeedID(in.SeedID, "path", "seedId")
	if err != nil {
		return nil, err
	}
	cs, err := s.deps.Review.SeedCandidates(ctx, id)
	if err != nil {
		return nil, err
	}
	return &seedCandidateListOutput{Body: seedCandidateList{SeedID: id, Items: cs, Total: len(cs)}}, nil
}

type seedChooseRequest struct {
	CandidateURL string `json:"candidate_url" minLength:"1" maxLength:"2048" doc:"The url (or entry_url) of a candidate of GET /api/v1/seeds/{seedId}/candidates whose usable is true." example:"https://www.mom.gov.sg/rss/newsroom"`
}

type seedChooseInput struct {
	SeedID string `path:"seedId" maxLength:"400" doc:"{domain_id}::{content_type}, or {domain_id}::{content_type}@{edition} for a publisher's edition other than its default; URL-escaped or not, any case."`
	Body   seedChooseRequest
}

func (s *Server) handleSeedChoose(ctx context.Context, in *seedChooseInput) (*seedOutput, error) {
	if s.deps.Review == nil {
		return nil, unavailable("seed review")
	}
	id, err := parseSeedID(in.SeedID, "path", "seedId")
	if err != nil {
		return nil, err
	}
	sd, err := s.deps.Review.ChooseCandidate(ctx, id, in.Body.CandidateURL, actor(ctx))
	if err != nil {
		return nil, conflictWithoutField(err)
	}
	return &seedOutput{Body: reviewed(sd)}, nil
}

// Bulk.

type seedBulkFilter struct {
	Country    string  `json:"country,omitempty" maxLength:"8" doc:"ISO 3166-1 alpha-2 or intl, any case." example:"sg"`
	Category   string  `json:"category,omitempty" maxLength:"40" example:"news"`
	Status     string  `json:"status,omitempty" enum:"draft,active,suspended,rejected,archived"`
	SourceType string  `json:"source_type,omitempty" enum:"government,organization,ngo,media,company,education,other"`
	FetchType  string  `json:"fetch_type,omitempty" enum:"rss,atom,json_feed,news_sitemap,sitemap,html,api"`
	Authority  string  `json:"authority,omitempty" enum:"gov,mil,edu,ngo,org,media,com,other"`
	MinConf    float64 `json:"min_confidence,omitempty" minimum:"0" maximum:"1"`
	BatchID    string  `json:"batch_id,omitempty" maxLength:"128" pattern:"^[A-Za-z0-9_.:-]+$" doc:"Seeds a contract batch recorded a contract for."`
	Health     string  `json:"health,omitempty" enum:"unknown,healthy,stale,failing,blocked,moved,gone"`
	Q          string  `json:"q,omitempty" maxLength:"200" doc:"Seeds whose domain or source name contains this, in any case."`
}

type seedBulkRequest struct {
	Action     string          `json:"action" enum:"promote,reject,reopen,suspend,reactivate,archive,pages_on,pages_off" doc:"The lifecycle action for every seed named, or pages_on / pages_off: turn fetching their items' pages as WARC on or off (harvest.pages; a new version for each seed changed)."`
	SeedIDs    []string        `json:"seed_ids,omitempty" maxItems:"10000" doc:"The seeds, by id (any case). Exactly one of seed_ids and filter."`
	Filter     *seedBulkFilter `json:"filter,omitempty" doc:"The seeds the list would show with these filters (at most 10,000 matches). Exactly one of seed_ids and filter. A promote by filter leaves out the drafts that have review_reasons (skipped, counted in held_for_review): name them in seed_ids."`
	ReasonCode string          `json:"reason_code,omitempty" enum:"not_relevant,duplicate,wrong_entry,low_quality,not_allowed,other" doc:"For reject (required there): why, from the short list."`
	Reason     string          `json:"reason,omitempty" maxLength:"500" doc:"Free text kept in each changed seed's history."`
	DryRun     bool            `json:"dry_run,omitempty" doc:"Report what would change and change nothing."`
}

type seedBulkInput struct{ Body seedBulkRequest }

type seedBulkOutput struct{ Body *seedengine.SeedBulkResult }

func (s *Server) handleSeedBulk(ctx context.Context, in *seedBulkInput) (*seedBulkOutput, error) {
	if s.deps.Seeds == nil {
		return nil, unavailable("seeds")
	}
	b := in.Body
	req := seedengine.SeedBulkRequest{Action: seedengine.SeedAction(b.Action), SeedIDs: b.SeedIDs, ReasonCode: seedengine.RejectReason(b.ReasonCode),
		Reason: b.Reason, DryRun: b.DryRun, Actor: actor(ctx), Review: contract.ReviewReasons}
	if f := b.Filter; f != nil {
		req.Filter = &seedengine.SeedFilter{Country: f.Country, Category: f.Category, Status: seedengine.SeedStatus(f.Status),
			SourceType: seedengine.SourceType(f.SourceType), FetchType: seedengine.FetchType(f.FetchType), Authority: seedengine.Authority(f.Authority),
			MinConfidence: f.MinConf, BatchID: f.BatchID, Health: seedengine.SeedHealthState(f.Health), Q: strings.TrimSpace(f.Q)}
	}
	// Each changed seed's history records the action with the key's
	// name, as a single action would.
	res, err := seedengine.BulkTransition(ctx, s.deps.Seeds, req)
	if err != nil {
		return nil, err
	}
	return &seedBulkOutput{Body: res}, nil
}
