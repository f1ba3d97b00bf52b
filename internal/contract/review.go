package contract

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/discover"
	"github.com/seedengine/seedengine/internal/feed"
)

// evidencePrefix is where contract evidence lives; a seed's evidence key
// outside it is never read.
const evidencePrefix = "prod/contracts/"

// maxEvidenceBytes bounds an evidence object read back for review.
const maxEvidenceBytes = 32 << 20

// ObjectReader opens stored objects: the evidence a seed points to.
type ObjectReader interface {
	NewReader(ctx context.Context, key string) (io.ReadCloser, int64, error)
}

// Review is seedengine.SeedReviewService over the seeds and the evidence
// their contract runs stored: it judges every candidate against a seed's
// entry (Explain) and makes another candidate the entry (Choose) as a
// contract run would have.
type Review struct {
	seeds   seedengine.SeedService
	objects ObjectReader
	cfg     Config
}

var _ seedengine.SeedReviewService = (*Review)(nil)

// NewReview returns a Review; cfg is the contract runs' (its FreshWithin
// and clock decide what is fresh).
func NewReview(seeds seedengine.SeedService, objects ObjectReader, cfg Config) *Review {
	return &Review{seeds: seeds, objects: objects, cfg: cfg.withDefaults()}
}

// SeedCandidates lists the candidates of the seed's latest contract run,
// each judged against the seed's current entry.
func (r *Review) SeedCandidates(ctx context.Context, seedID string) ([]seedengine.SeedCandidate, error) {
	sd, err := r.seeds.FindSeedByID(ctx, seedID)
	if err != nil {
		return nil, err
	}
	ev, err := r.evidence(ctx, sd)
	if err != nil {
		return nil, err
	}
	verdicts := Explain(ev, sd.ContentType, sd.Source.Edition.Lang(), sd.Fetch.EntryURL, r.cfg)
	out := make([]seedengine.SeedCandidate, len(ev.Candidates))
	for i, c := range ev.Candidates {
		v := verdicts[i]
		out[i] = seedengine.SeedCandidate{URL: c.URL, EntryURL: c.EntryURL(), Kind: c.Kind, Via: c.Via, ContentType: c.ContentType,
			Priority: c.Priority, Fetched: c.Fetched, Skipped: c.Skipped, Status: c.Status, Format: c.Format, Items: c.Items,
			NewsItems: c.NewsItems, Newest: c.Newest, Robots: c.Robots, Chosen: v.Chosen, Usable: v.Usable, Rule: v.Rule, Reason: v.Reason}
	}
	return out, nil
}

// ChooseCandidate makes a candidate of the seed's evidence its entry: the
// fetch and policy a contract run would have made of it, with the
// confidence and reason derived again, as a new version by actor. The
// seed keeps its status, source and metadata.
func (r *Review) ChooseCandidate(ctx context.Context, seedID, candidateURL, actor string) (*seedengine.Seed, error) {
	sd, err := r.seeds.FindSeedByID(ctx, seedID)
	if err != nil {
		return nil, err
	}
	if sd.Status == seedengine.SeedArchived {
		return nil, seedengine.Errorf(seedengine.ECONFLICT, "seed %s is archived; an archived seed's contract does not change", seedengine.Truncate(sd.SeedID, 200))
	}
	ev, err := r.evidence(ctx, sd)
	if err != nil {
		return nil, err
	}
	d, err := Choose(ev, sd.ContentType, sd.Source.Edition.Lang(), candidateURL, r.cfg)
	if err != nil {
		return nil, err
	}
	found := SeedFrom(ev, d, sd.Evidence.Key, sd.Category)
	found.Evidence.ChosenBy = actor
	return r.seeds.UpdateSeed(ctx, sd.SeedID, actor, func(cur *seedengine.Seed) error {
		if cur.Evidence.Key != sd.Evidence.Key {
			return seedengine.Errorf(seedengine.ECONFLICT, "a contract run replaced the seed's evidence meanwhile; read its candidates again")
		}
		if cur.Status == seedengine.SeedArchived {
			return seedengine.Errorf(seedengine.ECONFLICT, "seed %s is archived; an archived seed's contract does not change", seedengine.Truncate(cur.SeedID, 200))
		}
		cur.Fetch, cur.Policy, cur.Evidence, cur.Confidence = found.Fetch, found.Policy, found.Evidence, found.Confidence
		cur.Harvest.Archive = found.Harvest.Archive
		return nil
	})
}

// evidence reads the evidence object a seed points to.
func (r *Review) evidence(ctx context.Context, sd *seedengine.Seed) (*Evidence, error) {
	key := sd.Evidence.Key
	if key == "" || !strings.HasPrefix(key, evidencePrefix) {
		return nil, seedengine.Errorf(seedengine.ENOTFOUND, "seed %s has no contract run evidence (it was made by hand)", seedengine.Truncate(sd.SeedID, 200))
	}
	rc, _, err := r.objects.NewReader(ctx, key)
	if seedengine.ErrorCode(err) == seedengine.ENOTFOUND {
		return nil, seedengine.Errorf(seedengine.ENOTFOUND, "the evidence of seed %s is no longer stored", seedengine.Truncate(sd.SeedID, 200))
	}
	if err != nil {
		return nil, err
	}
	defer func() { _ = rc.Close() }()
	var ev Evidence
	if err := json.NewDecoder(io.LimitReader(rc, maxEvidenceBytes)).Decode(&ev); err != nil {
		return nil, fmt.Errorf("read evidence %s: %w", key, err)
	}
	return &ev, nil
}

// ReviewReasons lists what a person should weigh before promoting sd
// (seedengine.SeedReviewReason), derived from its contract: today
// entry_off_domain, an entry that is not on the seed's domain (see
// EntryOnDomain). However the seed was made (an import that took its
// domain from an OPML outline's htmlUrl, a key that created or patched
// it), one named after a domain that reads another's says so.
func ReviewReasons(sd *seedengine.Seed) []seedengine.SeedReviewReason {
	if sd == nil || sd.Fetch.EntryURL == "" || sd.Source.Domain == "" {
		return nil
	}
	if where, ok := EntryOnDomain(sd.Fetch.EntryURL, sd.Source.Domain); !ok {
		return []seedengine.SeedReviewReason{{Code: seedengine.ReviewEntryOffDomain,
			Message: "its entry is on " + seedengine.Truncate(where, 260) + ", not on its domain " + sd.Source.Domain}}
	}
	return nil
}

// EntryOnDomain reports whether entryURL is on domain (a registrable
// domain, as a seed's source.domain): its host's registrable domain
// (discover.RegistrableDomain) is domain, the host is domain's www.
// twin (gov.br's www.gov.br), or it is a feed-hosting service's
// (feed.IsFeedHost: FeedBurner), where any publisher may keep its feed.
// where names the entry's registrable domain (the feed host for one on
// a feed-hosting service), or its host when it has none (an IP
// address). A feed-hosting service takes anyone's feed: an entry there
// is accepted for what it is, the service a site's feed usually lives
// on, not because the site is known to have linked it.
//
// The contract run also takes a feed on another domain when a page of
// the site linked it, and a sitemap on a CDN host when most of its
// entries are on the domain; the seed keeps no record of that link, and
// a PATCH may change the entry afterwards, so such a seed has the reason
// too and a person names it.
func EntryOnDomain(entryURL, domain string) (where string, ok bool) {
	_, host, err := discover.NormalizeURL(entryURL)
	if err != nil {
		return entryURL, false
	}
	switch {
	case feed.IsFeedHost(host):
		return host, true
	case host == "www."+domain:
		return domain, true
	}
	reg, err := discover.RegistrableDomain(host)
	if err != nil {
		return host, false
	}
	return reg, reg == domain
}
