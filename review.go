package seedengine

import (
	"context"
	"strings"
	"time"
)

// SeedCandidate is one candidate of a seed's latest contract run as a
// reviewer weighs it: what was found and read, whether it is the seed's
// entry and, when not, the rule that ruled it out in plain words.
type SeedCandidate struct {
	URL         string     `json:"url"`
	EntryURL    string     `json:"entry_url"` // where a fetcher would go: the URL after redirects on the site
	Kind        string     `json:"kind"`      // feed, sitemap, section
	Via         string     `json:"via"`       // where it was found
	ContentType string     `json:"content_type"`
	Priority    float64    `json:"priority"`
	Fetched     bool       `json:"fetched"`
	Skipped     string     `json:"skipped,omitempty"` // why it was not fetched
	Status      int        `json:"status,omitempty"`
	Format      string     `json:"format,omitempty"`
	Items       int        `json:"items"`
	NewsItems   int        `json:"news_items,omitempty"`
	Newest      *time.Time `json:"newest,omitempty"`
	Robots      string     `json:"robots"`
	// Chosen says it is the seed's entry; Usable that it could be
	// (ChooseCandidate accepts it).
	Chosen bool `json:"chosen"`
	Usable bool `json:"usable"`
	// Rule is a stable code of why it is or is not the entry; Reason is
	// the rule in plain words.
	Rule   string `json:"rule"`
	Reason string `json:"reason"`
}

// SeedReviewService is what a reviewer does with a seed's evidence beyond
// its status: weigh the candidates and choose another one.
type SeedReviewService interface {
	// SeedCandidates lists the candidates of the seed's latest contract
	// run in the order they were found, judged against the seed's
	// current entry. ENOTFOUND when the seed or its evidence is missing.
	SeedCandidates(ctx context.Context, seedID string) ([]SeedCandidate, error)

	// ChooseCandidate makes a candidate of the seed's evidence its entry:
	// the contract (fetch type, entry, schedule, policy) is built from it
	// as a contract run would have, confidence and the reason derived
	// again, a new version recorded with actor. EINVALID naming
	// candidate_url when it is not a candidate or cannot be an entry;
	// ECONFLICT for an archived seed.
	ChooseCandidate(ctx context.Context, seedID, candidateURL, actor string) (*Seed, error)
}

// SeedReviewReason is something a person should weigh before promoting
// a seed, beyond its evidence: a stable code and the case in words. They
// follow from the seed's contract, so they are derived when a seed is
// shown (contract.ReviewReasons), never stored. A promote by filter
// leaves out the drafts that have any (BulkTransition); one that names
// the seed, by its id, promotes it.
type SeedReviewReason struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// Review reason codes.
const (
	// ReviewEntryOffDomain: the seed's entry is neither on its
	// registrable domain nor on a feed-hosting service (FeedBurner), so
	// the seed would read, under its domain's name, what another domain
	// publishes (an imported OPML outline whose htmlUrl is a ministry's
	// and whose xmlUrl is anyone's).
	ReviewEntryOffDomain = "entry_off_domain"
)

// Bulk actions that change the contract rather than the status: page
// fetching on or off (SeedHarvest.Pages), a new version for each seed
// they change.
const (
	BulkPagesOn  SeedAction = "pages_on"
	BulkPagesOff SeedAction = "pages_off"
)

// MaxBulkSeeds is the most seeds one bulk action changes; a filter that
// matches more is refused, so a request's answer lists all it did.
const MaxBulkSeeds = 10000

// SeedBulkRequest is one lifecycle action for many seeds: named by their
// ids or by a list filter (exactly one of the two).
type SeedBulkRequest struct {
	Action     SeedAction
	SeedIDs    []string
	Filter     *SeedFilter
	ReasonCode RejectReason // for reject
	Reason     string
	// DryRun reports what the action would change, changing nothing.
	DryRun bool
	Actor  string
	// Review lists a seed's review reasons (contract.ReviewReasons). A
	// promote by Filter leaves out every draft that has any: a person
	// names such a seed (SeedIDs, or a promote of the one seed) after
	// reading them. nil holds none back.
	Review func(*Seed) []SeedReviewReason
}

// SeedBulkResult is what a bulk action changed, and why it left the rest.
type SeedBulkResult struct {
	Action  SeedAction       `json:"action"`
	DryRun  bool             `json:"dry_run"`
	Matched int              `json:"matched"`
	Changed []SeedBulkChange `json:"changed"`
	Skipped []SeedBulkSkip   `json:"skipped"`
	// HeldForReview counts the drafts a promote by filter left out for
	// their review reasons; each is in Skipped with them.
	HeldForReview int `json:"held_for_review"`
}

// SeedBulkChange is one seed a bulk action moved (or would move).
type SeedBulkChange struct {
	SeedID string     `json:"seed_id"`
	From   SeedStatus `json:"from"`
	To     SeedStatus `json:"to"`
}

// SeedBulkSkip is one seed a bulk action left as it was, and why.
type SeedBulkSkip struct {
	SeedID string     `json:"seed_id"`
	Status SeedStatus `json:"status,omitempty"`
	Reason string     `json:"reason"`
	// ReviewReasons are the reasons a promote by filter held the draft
	// back for; empty for any other skip.
	ReviewReasons []SeedReviewReason `json:"review_reasons,omitempty"`
}

// BulkTransition applies req to every seed it names, one transaction per
// seed (a seed changed by someone else meanwhile is skipped with the
// reason, never half-changed). A promote by filter leaves out the drafts
// that have review reasons (req.Review), counted in HeldForReview: a
// filter chooses seeds no person looked at one by one. EINVALID naming
// the field for a bad request: no or both selections, too many ids, a
// filter matching more than MaxBulkSeeds, a rejection without a valid
// reason code.
func BulkTransition(ctx context.Context, seeds SeedService, req SeedBulkRequest) (*SeedBulkResult, error) {
	pages := req.Action == BulkPagesOn || req.Action == BulkPagesOff
	if req.Action.Target() == "" && !pages {
		return nil, FieldErrorf("action", "action must be one of promote, reject, reopen, suspend, reactivate, archive, pages_on, pages_off")
	}
	if req.Action == SeedReject && !req.ReasonCode.Valid() {
		return nil, FieldErrorf("reason_code", "reason_code must be one of not_relevant, duplicate, wrong_entry, low_quality, not_allowed, other")
	}
	if req.Action != SeedReject && req.ReasonCode != "" {
		return nil, FieldErrorf("reason_code", "reason_code goes with reject only")
	}
	if len(req.Reason) > 500 {
		return nil, FieldErrorf("reason", "reason is longer than 500 bytes")
	}
	ids, err := bulkTargets(ctx, seeds, req)
	if err != nil {
		return nil, err
	}
	out := &SeedBulkResult{Action: req.Action, DryRun: req.DryRun, Matched: len(ids), Changed: []SeedBulkChange{}, Skipped: []SeedBulkSkip{}}
	for _, id := range ids {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		sd, err := seeds.FindSeedByID(ctx, id)
		if ErrorCode(err) == ENOTFOUND {
			out.Skipped = append(out.Skipped, SeedBulkSkip{SeedID: id, Reason: "no such seed"})
			continue
		}
		if err != nil {
			return nil, err
		}
		if pages {
			on := req.Action == BulkPagesOn
			switch {
			case sd.Status == SeedArchived:
				out.Skipped = append(out.Skipped, SeedBulkSkip{SeedID: id, Status: sd.Status, Reason: "archived: its contract does not change"})
				continue
			case sd.Harvest.Pages == on:
				out.Skipped = append(out.Skipped, SeedBulkSkip{SeedID: id, Status: sd.Status, Reason: "page fetching is already " + map[bool]string{true: "on", false: "off"}[on]})
				continue
			}
			change := SeedBulkChange{SeedID: id, From: sd.Status, To: sd.Status}
			if !req.DryRun {
				_, err = seeds.UpdateSeed(ctx, id, req.Actor, func(s *Seed) error {
					s.Harvest.Pages = on
					return nil
				})
				if code := ErrorCode(err); code == ENOTFOUND {
					out.Skipped = append(out.Skipped, SeedBulkSkip{SeedID: id, Reason: ErrorMessage(err)})
					continue
				} else if err != nil {
					return nil, err
				}
			}
			out.Changed = append(out.Changed, change)
			continue
		}
		if err := CheckSeedTransition(id, sd.Status, req.Action); err != nil {
			out.Skipped = append(out.Skipped, SeedBulkSkip{SeedID: id, Status: sd.Status, Reason: ErrorMessage(err)})
			continue
		}
		if req.Action == SeedPromote && req.Filter != nil && req.Review != nil {
			if rs := req.Review(sd); len(rs) > 0 {
				out.HeldForReview++
				out.Skipped = append(out.Skipped, SeedBulkSkip{SeedID: id, Status: sd.Status, Reason: heldReason(rs), ReviewReasons: rs})
				continue
			}
		}
		change := SeedBulkChange{SeedID: id, From: sd.Status, To: req.Action.Target()}
		if req.DryRun {
			out.Changed = append(out.Changed, change)
			continue
		}
		if req.Action == SeedReject {
			_, err = seeds.RejectSeed(ctx, id, req.ReasonCode, req.Reason, req.Actor)
		} else {
			_, err = seeds.TransitionSeed(ctx, id, req.Action, req.Actor, req.Reason)
		}
		switch ErrorCode(err) {
		case "":
			out.Changed = append(out.Changed, change)
		case ECONFLICT, ENOTFOUND:
			// Changed or gone since it was read: its own request's
			// answer says how.
			out.Skipped = append(out.Skipped, SeedBulkSkip{SeedID: id, Reason: ErrorMessage(err)})
		default:
			return nil, err
		}
	}
	return out, nil
}

// heldReason says in words why a promote by filter left a draft out.
func heldReason(rs []SeedReviewReason) string {
	msgs := make([]string, len(rs))
	for i, r := range rs {
		msgs[i] = r.Message
	}
	return "held for review (" + strings.Join(msgs, "; ") + "): name it in seed_ids to promote it"
}

// bulkTargets lists the seed_ids a bulk request names, without repeats.
func bulkTargets(ctx context.Context, seeds SeedService, req SeedBulkRequest) ([]string, error) {
	switch {
	case len(req.SeedIDs) > 0 && req.Filter != nil:
		return nil, FieldErrorf("seed_ids", "give seed_ids or filter, not both")
	case len(req.SeedIDs) > 0:
		if len(req.SeedIDs) > MaxBulkSeeds {
			return nil, FieldErrorf("seed_ids", "seed_ids holds more than %d seeds", MaxBulkSeeds)
		}
		seen := make(map[string]bool, len(req.SeedIDs))
		var ids []string
		for _, raw := range req.SeedIDs {
			id := strings.ToLower(raw)
			if _, _, err := ParseSeedID(id); err != nil {
				return nil, FieldErrorf("seed_ids", "every seed_ids entry must be {domain_id}::{content_type}")
			}
			if !seen[id] {
				seen[id] = true
				ids = append(ids, id)
			}
		}
		return ids, nil
	case req.Filter != nil:
		f := *req.Filter
		f.After, f.Before, f.Offset, f.Limit, f.Sort = "", "", 0, 100, ""
		var ids []string
		for {
			page, total, err := seeds.FindSeeds(ctx, f)
			if field := ErrorField(err); field != "" {
				return nil, FieldErrorf("filter."+field, "filter.%s", ErrorMessage(err))
			}
			if err != nil {
				return nil, err
			}
			if total > MaxBulkSeeds {
				return nil, FieldErrorf("filter", "the filter matches %d seeds, more than %d: narrow it", total, MaxBulkSeeds)
			}
			for _, sd := range page {
				ids = append(ids, sd.SeedID)
			}
			if len(page) < f.Limit {
				return ids, nil
			}
			f.After = page[len(page)-1].SeedID
		}
	}
	return nil, FieldErrorf("seed_ids", "give seed_ids or filter")
}
