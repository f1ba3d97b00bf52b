package httpapi

import (
	"context"
	"encoding/json"
	"mime"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/contract"
)

// Seed routes. A seed is a retrieval contract for one domain and one kind
// of content (DESIGN §1, §2, §6). Handlers return the root package's
// seedengine.Seed as it is; the schema types below only document it in
// the OpenAPI document (see registerSeedSchemas), and a test holds their
// JSON fields to the root types'.

// defaultSeedSchedule is the schedule of a seed created without one.
const defaultSeedSchedule = "@hourly"

type seedSource struct {
	Domain     string                  `json:"domain" doc:"Registrable domain, from the domain_id." example:"mom.gov.sg"`
	Name       string                  `json:"name" maxLength:"200" doc:"Who publishes it." example:"Ministry of Manpower"`
	SourceType string                  `json:"source_type" enum:"government,organization,ngo,media,company,education,other" doc:"Who publishes it, as a list filter."`
	Edition    *seedengine.SeedEdition `json:"edition,omitempty" doc:"The publisher's edition the seed harvests, when its domain has editions in other languages on other hosts (de.example.com); absent when it has one. The default edition's seed has the plain seed_id, each other's ends in @{language}."`
}

type seedFetch struct {
	Type      string            `json:"type" enum:"rss,atom,json_feed,news_sitemap,sitemap,html,api" doc:"How the content is read."`
	EntryURL  string            `json:"entry_url" format:"uri" maxLength:"2048" doc:"The feed, sitemap or page read on every run." example:"https://www.mom.gov.sg/rss/newsroom"`
	Schedule  string            `json:"schedule" doc:"Cron expression (five fields) or @hourly, @daily, @weekly, @monthly, @yearly." example:"*/30 * * * *"`
	Selectors map[string]string `json:"selectors,omitempty" doc:"CSS selectors by name for html seeds (item, link, title, date); at most 20."`
}

type seedPolicy struct {
	RobotsURL    string  `json:"robots_url" doc:"The robots.txt the policy comes from; may be empty." example:"https://www.mom.gov.sg/robots.txt"`
	CrawlAllowed bool    `json:"crawl_allowed" doc:"Whether robots.txt allows our agent to read the entry URL."`
	CrawlDelay   float64 `json:"crawl_delay" minimum:"0" maximum:"86400" doc:"robots.txt Crawl-delay for our agent, in seconds; 0 when none."`
	SitemapURL   string  `json:"sitemap_url,omitempty" doc:"A sitemap of the site, when one is known."`
}

type seedHarvest struct {
	Pages   bool         `json:"pages" doc:"Fetch every new item's page under the seed's policy and keep it as WARC (docs/harvest.md \"Pages\"). Part of the contract: a change makes a new version."`
	Archive *seedArchive `json:"archive,omitempty" doc:"Where the publisher keeps what scrolls out of the entry, read back when a read finds its whole window new (docs/harvest.md \"Gaps\"); chosen by the contract run."`
}

type seedArchive struct {
	Kind string `json:"kind" enum:"paged_feed,news_sitemap,daily_sitemaps" doc:"paged_feed: the entry's older windows at ?paged=2, 3, …; news_sitemap: a Google News sitemap (two days); daily_sitemaps: a sitemap index of sitemaps by day."`
	URL  string `json:"url" maxLength:"2048" doc:"The news sitemap, the sitemap index; for paged_feed the entry itself." example:"https://www.straitstimes.com/news-sitemap.xml"`
}

type seedEvidence struct {
	Key        string     `json:"key,omitempty" doc:"Object key of the contract run's full evidence." example:"prod/contracts/mom.gov.sg/2026-01-28T101500Z-k3x9qa7b.json"`
	Method     string     `json:"method,omitempty" doc:"Which candidate won and how it was found." example:"rss via link_alternate"`
	Candidates int        `json:"candidates" doc:"Candidates examined for the domain."`
	Items      int        `json:"items,omitempty" doc:"Items of the chosen feed, or URLs of the chosen sitemap."`
	Newest     *time.Time `json:"newest,omitempty" doc:"Newest item or lastmod of the chosen candidate."`
	Requests   int        `json:"requests,omitempty" doc:"HTTP requests the contract run made."`
	CheckedAt  *time.Time `json:"checked_at,omitempty"`
	Why        string     `json:"why,omitempty" doc:"Why this entry, in a sentence: the contract run's reason, or that a reviewer chose it."`
	ChosenBy   string     `json:"chosen_by,omitempty" doc:"The key that chose this entry among the candidates (POST /choose); absent when the contract run did."`
}

type seedTransition struct {
	Action     string    `json:"action" enum:"create,promote,reject,reopen,suspend,reactivate,archive"`
	From       string    `json:"from,omitempty" enum:"draft,active,suspended,rejected,archived" doc:"Absent for create."`
	To         string    `json:"to" enum:"draft,active,suspended,rejected,archived"`
	At         time.Time `json:"at"`
	Actor      string    `json:"actor" doc:"Name of the API key that asked for it, anonymous on an open API, or contract_batch:{id}." example:"ops-alice"`
	ReasonCode string    `json:"reason_code,omitempty" enum:"not_relevant,duplicate,wrong_entry,low_quality,not_allowed,other" doc:"A rejection's reason from the short list."`
	Reason     string    `json:"reason,omitempty"`
}

type seed struct {
	SeedID          string             `json:"seed_id" doc:"{domain_id}::{content_type}, with @{edition} (its language) for a publisher's edition other than its default." example:"gov:sg:mom.gov.sg::news"`
	DomainID        string             `json:"domain_id" example:"gov:sg:mom.gov.sg"`
	Country         string             `json:"country" doc:"The domain_id's country." example:"sg"`
	Category        string             `json:"category" example:"news"`
	ContentType     string             `json:"content_type" example:"news"`
	Source          seedSource         `json:"source"`
	Fetch           seedFetch          `json:"fetch" doc:"Part of the contract: a change makes a new version."`
	Policy          seedPolicy         `json:"policy" doc:"Part of the contract: a change makes a new version."`
	Harvest         seedHarvest        `json:"harvest" doc:"Part of the contract: a change makes a new version."`
	Evidence        seedEvidence       `json:"evidence"`
	Confidence      float64            `json:"confidence" minimum:"0" maximum:"1"`
	Metadata        map[string]any     `json:"metadata,omitempty" doc:"Free-form JSON object kept with the seed (at most 16 KiB); contract runs never change it."`
	Status          string             `json:"status" enum:"draft,active,suspended,rejected,archived" doc:"Changed only by promote, reject, reopen, suspend, reactivate and archive."`
	Version         int                `json:"version" minimum:"1" doc:"The current contract's version; up by one exactly when the contract (fetch, policy) changes."`
	ProposedVersion int                `json:"proposed_version,omitempty" doc:"A contract version a contract run proposed for this non-draft seed, pending; see /versions."`
	CreatedAt       time.Time          `json:"created_at"`
	UpdatedAt       time.Time          `json:"updated_at"`
	PromotedAt      *time.Time         `json:"promoted_at,omitempty"`
	History         []seedTransition   `json:"history,omitempty" doc:"Status transitions, oldest first; in single-seed responses only."`
	Health          *seedHealth        `json:"health,omitempty" doc:"What the seed's checks show, once the seed has been checked (see /checks)."`
	ReviewReasons   []seedReviewReason `json:"review_reasons,omitempty" doc:"What a person should weigh before promoting the seed, derived from its contract whenever it is shown. A bulk promote by filter leaves out the drafts that have any; naming the seed (seed_ids, or POST /api/v1/seeds/promote) promotes it."`
}

type seedReviewReason struct {
	Code    string `json:"code" enum:"entry_off_domain" doc:"entry_off_domain: the entry is neither on the seed's registrable domain (or its www.) nor on a feed-hosting service (FeedBurner)."`
	Message string `json:"message" doc:"The case in words, naming both domains." example:"its entry is on attacker-feeds.example, not on its domain mom.gov.sg"`
}

type seedHealth struct {
	State             string     `json:"state" enum:"unknown,healthy,stale,failing,blocked,moved,gone" doc:"healthy: the entry reads and is as fresh as its rate predicts; stale: no new item for 4 × the expected gap (3–30 days); moved: a permanent redirect to another URL; blocked: 2 refused checks in a row (401, 403, 429, challenge, robots.txt); gone: 2 × 404, 410 or NXDOMAIN; failing: 3 bad checks in a row."`
	Since             *time.Time `json:"since,omitempty" doc:"The first check of the run that gave the state."`
	Reason            string     `json:"reason,omitempty" example:"nxdomain"`
	LastCheckAt       *time.Time `json:"last_check_at,omitempty"`
	SuccessRate7d     float64    `json:"success_rate_7d" minimum:"0" maximum:"1" doc:"Share of the last 7 days' checks that read the entry."`
	MedianItemsPerDay float64    `json:"median_items_per_day" minimum:"0" doc:"Median publishing rate the last 7 days' checks saw."`
}

type seedCheck struct {
	ID           int64      `json:"id,omitempty"`
	SeedID       string     `json:"seed_id"`
	CheckedAt    time.Time  `json:"checked_at"`
	EntryURL     string     `json:"entry_url"`
	Outcome      string     `json:"outcome" enum:"ok,moved,gone,blocked,disallowed,failed" doc:"ok: 2xx that parses as the seed's type, or 304; moved: reached through 301/308 to another URL that parses; gone: 404, 410, NXDOMAIN; blocked: 401, 403, 429 or a challenge page; disallowed: robots.txt refuses the entry (nothing fetched); failed: anything else."`
	Status       int        `json:"status" doc:"Final HTTP status; 0 without an HTTP answer."`
	FinalURL     string     `json:"final_url,omitempty"`
	MovedTo      string     `json:"moved_to,omitempty" doc:"Where permanent redirects led, when that is more than a respelling of the entry."`
	CanonicalURL string     `json:"canonical_url,omitempty" doc:"Where permanent redirects led when they only respell the entry (http to https, www. added or dropped, a trailing slash): the seed stays healthy and gets the spelling as a quiet proposed version."`
	NotModified  bool       `json:"not_modified,omitempty" doc:"The entry answered 304 to the last check's validators."`
	Bytes        int64      `json:"bytes"`
	LatencyMS    int64      `json:"latency_ms"`
	Items        int        `json:"items" doc:"Feed items or sitemap URLs."`
	Newest       *time.Time `json:"newest,omitempty" doc:"The newest item's date."`
	NewItems     int        `json:"new_items" doc:"Items newer than the previous check's newest."`
	ItemsPerDay  float64    `json:"items_per_day" doc:"Publishing rate the document shows (dated items over their span)."`
	Robots       string     `json:"robots" enum:"allowed,disallowed,unavailable"`
	Reason       string     `json:"reason,omitempty" doc:"Why the check failed: a fetch reason (nxdomain, timeout, …), http_NNN, challenge, not_a_feed, not_a_sitemap." example:"http_404"`
	ETag         string     `json:"etag,omitempty"`
	LastModified string     `json:"last_modified,omitempty"`
	Harvested    int        `json:"harvested" doc:"Items this read recorded: article URLs not seen before within the dedupe window (active seeds only)."`
	Unseen       int        `json:"unseen" doc:"Items of the entry its previous read did not list, whoever recorded them first: what the pace goes by."`
	PossibleGap  bool       `json:"possible_gap,omitempty" doc:"A read after the first found every item of the entry new: items may have scrolled out unseen since the last read. The pace tightens."`
	ArrivalsPer  float64    `json:"arrivals_per_hour,omitempty" doc:"The pace's estimate of new items an hour after this read."`
	IntervalS    float64    `json:"interval_s,omitempty" doc:"Seconds to the next read this one chose (the pace)."`
	LateS        float64    `json:"late_s,omitempty" doc:"Seconds after its due time this read came; the pace asks as much earlier."`
	Repaired     int        `json:"repaired,omitempty" doc:"Items a repair read back from the seed's archive after this read found its whole window new."`
	RepairReads  int        `json:"repair_reads,omitempty" doc:"Archive documents the repair read (one request each)."`
	RepairReason string     `json:"repair_reason,omitempty" doc:"Why the repair stopped before it found the last known item again: archive_end, page_limit, archive_failed, robots_disallowed; empty when it did." enum:"archive_end,page_limit,archive_failed,robots_disallowed"`
	Missed       int        `json:"estimated_missed,omitempty" doc:"For a gap no archive made up for: about how many items arrived unseen (half a window), counted by the pace as arrivals."`
}

type seedContract struct {
	Fetch   seedFetch   `json:"fetch"`
	Policy  seedPolicy  `json:"policy"`
	Harvest seedHarvest `json:"harvest"`
}

type seedVersion struct {
	SeedID     string       `json:"seed_id"`
	Version    int          `json:"version"`
	State      string       `json:"state" enum:"current,superseded,proposed" doc:"proposed: found by a contract run for a seed that was no longer a draft, kept for a person to apply with PATCH."`
	Contract   seedContract `json:"contract"`
	Confidence float64      `json:"confidence"`
	Evidence   seedEvidence `json:"evidence"`
	Actor      string       `json:"actor"`
	BatchID    string       `json:"batch_id,omitempty" doc:"The contract batch that found it."`
	CreatedAt  time.Time    `json:"created_at"`
}

// seedSchemaAliases maps each root seed type to the type documenting it.
var seedSchemaAliases = []struct{ t, doc reflect.Type }{
	{reflect.TypeFor[seedengine.Seed](), reflect.TypeFor[seed]()},
	{reflect.TypeFor[seedengine.SeedSource](), reflect.TypeFor[seedSource]()},
	{reflect.TypeFor[seedengine.SeedFetch](), reflect.TypeFor[seedFetch]()},
	{reflect.TypeFor[seedengine.SeedPolicy](), reflect.TypeFor[seedPolicy]()},
	{reflect.TypeFor[seedengine.SeedEvidence](), reflect.TypeFor[seedEvidence]()},
	{reflect.TypeFor[seedengine.SeedTransition](), reflect.TypeFor[seedTransition]()},
	{reflect.TypeFor[seedengine.SeedContract](), reflect.TypeFor[seedContract]()},
	{reflect.TypeFor[seedengine.SeedHarvest](), reflect.TypeFor[seedHarvest]()},
	{reflect.TypeFor[seedengine.SeedVersion](), reflect.TypeFor[seedVersion]()},
	{reflect.TypeFor[seedengine.SeedHealth](), reflect.TypeFor[seedHealth]()},
	{reflect.TypeFor[seedengine.SeedCheck](), reflect.TypeFor[seedCheck]()},
	{reflect.TypeFor[seedengine.SeedReviewReason](), reflect.TypeFor[seedReviewReason]()},
}

// handleSeed registers a seed route after pointing the schema registry at
// the documenting types (idempotent), so every seed route's schemas carry
// docs and enums.
func handleSeed[I, O any](h func(context.Context, *I) (*O, error)) func(huma.API, huma.Operation) {
	return func(api huma.API, op huma.Operation) {
		registerSeedSchemas(api.OpenAPI().Components.Schemas)
		huma.Register(api, op, h)
	}
}

func registerSeedSchemas(r huma.Registry) {
	for _, a := range seedSchemaAliases {
		r.RegisterTypeAlias(a.t, a.doc)
	}
}

// actor names who asks for a change: the API key's name, or
// seedengine.AnonymousActor on an open API.
func actor(ctx context.Context) string {
	if k := KeyFromContext(ctx); k != nil {
		return k.Name
	}
	return seedengine.AnonymousActor
}

// reviewed fills a seed's review reasons before it is shown: they follow
// from its contract (contract.ReviewReasons), so every answer derives
// them rather than the store keeping them.
func reviewed(sd *seedengine.Seed) *seedengine.Seed {
	if sd != nil {
		sd.ReviewReasons = contract.ReviewReasons(sd)
	}
	return sd
}

// seedPath is where a seed is served.
func seedPath(id string) string { return "/api/v1/seeds/" + url.PathEscape(id) }

// parseSeedID checks a seed id from the client, accepting any case (ids
// are stored lower case); errors name field at loc.
func parseSeedID(raw, loc, field string) (string, error) {
	id := strings.ToLower(raw)
	if _, _, err := seedengine.ParseSeedID(id); err != nil {
		return "", &locatedError{loc: loc, err: &seedengine.Error{Code: seedengine.EINVALID, Field: field, Message: seedengine.ErrorMessage(err)}}
	}
	return id, nil
}

// List.

type seedListInput struct {
	Country    string  `query:"country" maxLength:"8" doc:"Only seeds of this country: ISO 3166-1 alpha-2 or intl, any case." example:"sg"`
	Category   string  `query:"category" maxLength:"40" doc:"Only seeds of this category." example:"news"`
	Status     string  `query:"status" enum:"draft,active,suspended,rejected,archived" doc:"Only seeds in this status."`
	SourceType string  `query:"source_type" enum:"government,organization,ngo,media,company,education,other" doc:"Only seeds of this source type."`
	FetchType  string  `query:"fetch_type" enum:"rss,atom,json_feed,news_sitemap,sitemap,html,api" doc:"Only seeds read this way."`
	DomainID   string  `query:"domain_id" maxLength:"300" doc:"Only seeds of this domain." example:"gov:sg:mom.gov.sg"`
	Authority  string  `query:"authority" enum:"gov,mil,edu,ngo,org,media,com,other" doc:"Only seeds of domains of this authority (the domain_id's first part)."`
	MinConf    float64 `query:"min_confidence" minimum:"0" maximum:"1" doc:"Only seeds whose confidence is at least this."`
	BatchID    string  `query:"batch_id" maxLength:"128" pattern:"^[A-Za-z0-9_.:-]+$" doc:"Only seeds a contract batch recorded a contract for: the drafts it created, the seeds it updated and those it proposed a change to." example:"01JD3Q8W6Y4V0M5QK3ZC4N2T7R"`
	Health     string  `query:"health" enum:"unknown,healthy,stale,failing,blocked,moved,gone" doc:"Only seeds in this health state (unknown: never checked); see GET /api/v1/seeds/{seedId}/checks."`
	Q          string  `query:"q" maxLength:"200" doc:"Only seeds whose domain or source name contains this text, in any case." example:"straits"`
	Sort       string  `query:"sort" enum:"seed_id,domain,confidence,-confidence,created,-created" default:"seed_id" doc:"Order of the list: seed_id (authority, country, domain), domain, confidence (lowest first), -confidence (highest first), created (oldest first), -created (newest first); ties in seed_id order."`
	After      string  `query:"after" maxLength:"400" doc:"Page by key: only seeds after this seed_id in the list's order (the next_after of the previous page). Deep pages cost what the first does; offset must be 0 with it."`
	Before     string  `query:"before" maxLength:"400" doc:"Page backwards by key: the limit seeds just before this seed_id in the list's order, in that order. Not with after or offset."`
	Limit      int     `query:"limit" default:"50" minimum:"1" maximum:"100" doc:"Page size."`
	Offset     int     `query:"offset" default:"0" minimum:"0" doc:"Items to skip."`
}

type seedList struct {
	Items  []*seedengine.Seed `json:"items" doc:"Seeds in the list's order (sort), without history."`
	Total  int                `json:"total" doc:"Seeds matching the filters, regardless of limit, offset and after."`
	Limit  int                `json:"limit"`
	Offset int                `json:"offset"`
	// NextAfter is the cursor of the next page: the last seed_id of a
	// full page.
	NextAfter string `json:"next_after,omitempty" doc:"Pass as after for the next page; absent when this page is not full."`
}

type seedListOutput struct{ Body seedList }

func (s *Server) handleSeedList(ctx context.Context, in *seedListInput) (*seedListOutput, error) {
	if s.deps.Seeds == nil {
		return nil, unavailable("seeds")
	}
	f := seedengine.SeedFilter{
		Country:       in.Country,
		Category:      in.Category,
		Status:        seedengine.SeedStatus(in.Status),
		SourceType:    seedengine.SourceType(in.SourceType),
		FetchType:     seedengine.FetchType(in.FetchType),
		DomainID:      strings.ToLower(in.DomainID),
		Authority:     seedengine.Authority(in.Authority),
		MinConfidence: in.MinConf,
		BatchID:       in.BatchID,
		Health:        seedengine.SeedHealthState(in.Health),
		Q:             strings.TrimSpace(in.Q),
		Sort:          seedengine.SeedSort(in.Sort),
		After:         strings.ToLower(in.After),
		Before:        strings.ToLower(in.Before),
		Limit:         in.Limit,
		Offset:        in.Offset,
	}
	items, total, err := s.deps.Seeds.FindSeeds(ctx, f)
	if err != nil {
		return nil, inQuery(err) // every filter is a query parameter, named alike
	}
	for _, sd := range items {
		reviewed(sd)
	}
	out := seedList{Items: items, Total: total, Limit: in.Limit, Offset: in.Offset}
	if len(items) == in.Limit && len(items) > 0 {
		out.NextAfter = items[len(items)-1].SeedID
	}
	return &seedListOutput{Body: out}, nil
}

// Get.

type seedInput struct {
	SeedID string `path:"seedId" maxLength:"400" doc:"{domain_id}::{content_type}, or {domain_id}::{content_type}@{edition} for a publisher's edition other than its default; URL-escaped or not, any case." example:"gov:sg:mom.gov.sg::news"`
}

type seedOutput struct{ Body *seedengine.Seed }

func (s *Server) handleSeedGet(ctx context.Context, in *seedInput) (*seedOutput, error) {
	if s.deps.Seeds == nil {
		return nil, unavailable("seeds")
	}
	sd, err := s.pathSeed(ctx, in.SeedID)
	if err != nil {
		return nil, err
	}
	return &seedOutput{Body: reviewed(sd)}, nil
}

// pathSeed reads the seed the path's seedId names: 422 naming path.seedId
// for an id that is not {domain_id}::{content_type}, 404 for none.
func (s *Server) pathSeed(ctx context.Context, raw string) (*seedengine.Seed, error) {
	id, err := parseSeedID(raw, "path", "seedId")
	if err != nil {
		return nil, err
	}
	return s.deps.Seeds.FindSeedByID(ctx, id)
}

type seedVersionList struct {
	Items []*seedengine.SeedVersion `json:"items" doc:"Every recorded contract version, newest first."`
	Total int                       `json:"total"`
}

type seedVersionListOutput struct{ Body seedVersionList }

func (s *Server) handleSeedVersions(ctx context.Context, in *seedInput) (*seedVersionListOutput, error) {
	if s.deps.Seeds == nil {
		return nil, unavailable("seeds")
	}
	id, err := parseSeedID(in.SeedID, "path", "seedId")
	if err != nil {
		return nil, err
	}
	vs, err := s.deps.Seeds.FindSeedVersions(ctx, id)
	if err != nil {
		return nil, err
	}
	return &seedVersionListOutput{Body: seedVersionList{Items: vs, Total: len(vs)}}, nil
}

// Create.

type seedSourceRequest struct {
	Name       string `json:"name,omitempty" maxLength:"200" doc:"Who publishes it." example:"Ministry of Manpower"`
	SourceType string `json:"source_type,omitempty" enum:"government,organization,ngo,media,company,education,other" doc:"Derived from the domain_id's authority when absent."`
}

type seedFetchRequest struct {
	Type      string            `json:"type" enum:"rss,atom,json_feed,news_sitemap,sitemap,html,api"`
	EntryURL  string            `json:"entry_url" format:"uri" maxLength:"2048" example:"https://www.mom.gov.sg/rss/newsroom"`
	Schedule  string            `json:"schedule,omitempty" maxLength:"200" default:"@hourly" doc:"Cron expression (five fields) or @hourly, @daily, @weekly, @monthly, @yearly." example:"*/30 * * * *"`
	Selectors map[string]string `json:"selectors,omitempty" doc:"CSS selectors by name, for html seeds; at most 20."`
}

type seedPolicyRequest struct {
	RobotsURL    string  `json:"robots_url,omitempty" maxLength:"2048" example:"https://www.mom.gov.sg/robots.txt"`
	CrawlAllowed *bool   `json:"crawl_allowed,omitempty" doc:"Whether robots.txt allows reading the entry URL; true when absent (a seed made by hand is taken to be checked)."`
	CrawlDelay   float64 `json:"crawl_delay,omitempty" minimum:"0" maximum:"86400" doc:"Seconds."`
	SitemapURL   string  `json:"sitemap_url,omitempty" maxLength:"2048"`
}

type seedCreateRequest struct {
	DomainID    string             `json:"domain_id" maxLength:"300" doc:"The seed's domain; its country is the seed's." example:"gov:sg:mom.gov.sg"`
	ContentType string             `json:"content_type,omitempty" pattern:"^[a-z0-9_]{1,40}$" default:"news" doc:"Kind of content; with domain_id it makes the seed_id."`
	Category    string             `json:"category" pattern:"^[a-z0-9_]{1,40}$" example:"news"`
	Source      seedSourceRequest  `json:"source,omitempty"`
	Fetch       seedFetchRequest   `json:"fetch"`
	Policy      *seedPolicyRequest `json:"policy,omitempty" doc:"robots.txt policy; allowed with no delay when absent."`
	Harvest     *seedHarvest       `json:"harvest,omitempty" doc:"What the harvest does beyond recording items; pages off when absent."`
	Confidence  float64            `json:"confidence,omitempty" minimum:"0" maximum:"1"`
	Metadata    map[string]any     `json:"metadata,omitempty" doc:"Free-form JSON object, at most 16 KiB."`
}

type seedCreateInput struct{ Body seedCreateRequest }

type seedCreatedOutput struct {
	Location string `header:"Location" doc:"Where the seed is served."`
	Body     *seedengine.Seed
}

func (s *Server) handleSeedCreate(ctx context.Context, in *seedCreateInput) (*seedCreatedOutput, error) {
	if s.deps.Seeds == nil {
		return nil, unavailable("seeds")
	}
	req := &in.Body
	sd := &seedengine.Seed{
		DomainID:    strings.ToLower(req.DomainID),
		ContentType: req.ContentType,
		Category:    req.Category,
		Source:      seedengine.SeedSource{Name: req.Source.Name, SourceType: seedengine.SourceType(req.Source.SourceType)},
		Fetch: seedengine.SeedFetch{
			Type:      seedengine.FetchType(req.Fetch.Type),
			EntryURL:  req.Fetch.EntryURL,
			Schedule:  req.Fetch.Schedule,
			Selectors: req.Fetch.Selectors,
		},
		Policy:     seedengine.SeedPolicy{CrawlAllowed: true},
		Confidence: req.Confidence,
		Metadata:   req.Metadata,
	}
	if sd.ContentType == "" {
		sd.ContentType = seedengine.ContentTypeNews
	}
	if sd.Fetch.Schedule == "" {
		sd.Fetch.Schedule = defaultSeedSchedule
	}
	if h := req.Harvest; h != nil {
		sd.Harvest.Pages = h.Pages
		if a := h.Archive; a != nil {
			sd.Harvest.Archive = &seedengine.PublisherArchive{Kind: seedengine.ArchiveKind(a.Kind), URL: a.URL}
		}
	}
	if p := req.Policy; p != nil {
		sd.Policy = seedengine.SeedPolicy{RobotsURL: p.RobotsURL, CrawlAllowed: p.CrawlAllowed == nil || *p.CrawlAllowed,
			CrawlDelay: p.CrawlDelay, SitemapURL: p.SitemapURL}
	}
	if err := s.deps.Seeds.CreateSeed(ctx, sd, actor(ctx)); err != nil {
		return nil, err
	}
	return &seedCreatedOutput{Location: seedPath(sd.SeedID), Body: reviewed(sd)}, nil
}

// Update: a JSON merge patch (RFC 7396) over the editable fields.

type seedUpdateInput struct {
	SeedID      string `path:"seedId" maxLength:"400" doc:"{domain_id}::{content_type}, or {domain_id}::{content_type}@{edition} for a publisher's edition other than its default; URL-escaped or not, any case."`
	ContentType string `header:"Content-Type" doc:"application/merge-patch+json or application/json."`
	RawBody     []byte `contentType:"application/merge-patch+json"`
}

// seedPatch documents the PATCH body; handleSeedUpdate reads the raw
// body itself, since a merge patch tells "set to null" from "absent".
type seedPatch struct {
	_          struct{}          `additionalProperties:"false"`
	Category   *string           `json:"category,omitempty" pattern:"^[a-z0-9_]{1,40}$"`
	Source     *seedSourcePatch  `json:"source,omitempty"`
	Fetch      *seedFetchPatch   `json:"fetch,omitempty" doc:"A change makes a new version."`
	Policy     *seedPolicyPatch  `json:"policy,omitempty" doc:"A change makes a new version."`
	Harvest    *seedHarvestPatch `json:"harvest,omitempty" doc:"A change makes a new version."`
	Confidence *float64          `json:"confidence,omitempty" minimum:"0" maximum:"1"`
	Metadata   map[string]any    `json:"metadata,omitempty" doc:"Merged as a merge patch: null members are removed; null removes all metadata."`
}

type seedSourcePatch struct {
	_          struct{} `additionalProperties:"false"`
	Name       *string  `json:"name,omitempty" maxLength:"200" doc:"null clears it."`
	SourceType *string  `json:"source_type,omitempty" enum:"government,organization,ngo,media,company,education,other" doc:"null resets it to the domain_id's authority's."`
}

type seedFetchPatch struct {
	_         struct{}          `additionalProperties:"false"`
	Type      *string           `json:"type,omitempty" enum:"rss,atom,json_feed,news_sitemap,sitemap,html,api"`
	EntryURL  *string           `json:"entry_url,omitempty" format:"uri" maxLength:"2048"`
	Schedule  *string           `json:"schedule,omitempty" doc:"null resets it to @hourly."`
	Selectors map[string]string `json:"selectors,omitempty" doc:"Merged: a null member removes that selector; null removes all."`
}

type seedHarvestPatch struct {
	_       struct{}     `additionalProperties:"false"`
	Pages   *bool        `json:"pages,omitempty" doc:"Fetch new items' pages as WARC; null turns it off."`
	Archive *seedArchive `json:"archive,omitempty" doc:"The publisher's archive, whole; null removes it (gaps are then flagged, not repaired)."`
}

type seedPolicyPatch struct {
	_            struct{} `additionalProperties:"false"`
	RobotsURL    *string  `json:"robots_url,omitempty" doc:"null clears it."`
	CrawlAllowed *bool    `json:"crawl_allowed,omitempty"`
	CrawlDelay   *float64 `json:"crawl_delay,omitempty" minimum:"0" maximum:"86400" doc:"null makes it 0."`
	SitemapURL   *string  `json:"sitemap_url,omitempty" doc:"null clears it."`
}

// registerSeedUpdate registers PATCH and documents its body: huma sees
// only the raw bytes.
func (s *Server) registerSeedUpdate(api huma.API, op huma.Operation) {
	handleSeed(s.handleSeedUpdate)(api, op)
	schema := api.OpenAPI().Components.Schemas.Schema(reflect.TypeFor[seedPatch](), true, "SeedPatch")
	body := &huma.RequestBody{
		Description: "A JSON merge patch (RFC 7396) of the editable fields. status, identity (seed_id, domain_id, " +
			"content_type, country, source.domain) and read-only fields (version, evidence, timestamps, …) are refused " +
			"with 422 naming them; so are unknown fields.",
		Required: true,
		Content: map[string]*huma.MediaType{
			"application/merge-patch+json": {Schema: schema},
			"application/json":             {Schema: schema},
		},
	}
	api.OpenAPI().Paths[op.Path].Patch.RequestBody = body
}

func (s *Server) handleSeedUpdate(ctx context.Context, in *seedUpdateInput) (*seedOutput, error) {
	if s.deps.Seeds == nil {
		return nil, unavailable("seeds")
	}
	if mt, _, err := mime.ParseMediaType(in.ContentType); in.ContentType != "" && (err != nil || (mt != "application/merge-patch+json" && mt != "application/json")) {
		return nil, newProblem(stateFrom(ctx), http.StatusUnsupportedMediaType, seedengine.EINVALID,
			"send the patch as application/merge-patch+json (or application/json)")
	}
	id, err := parseSeedID(in.SeedID, "path", "seedId")
	if err != nil {
		return nil, err
	}
	var patch map[string]json.RawMessage
	if err := json.Unmarshal(in.RawBody, &patch); err != nil || patch == nil {
		return nil, newProblem(stateFrom(ctx), http.StatusBadRequest, seedengine.EINVALID, "the body must be a JSON object (a merge patch)")
	}
	if err := checkSeedPatch(patch); err != nil {
		return nil, err
	}
	sd, err := s.deps.Seeds.UpdateSeed(ctx, id, actor(ctx), func(sd *seedengine.Seed) error {
		return applySeedPatch(sd, patch)
	})
	if err != nil {
		return nil, err
	}
	return &seedOutput{Body: reviewed(sd)}, nil
}

// Fields of a seed a patch may not name, with why.
var (
	seedIdentityFields = map[string]bool{"seed_id": true, "domain_id": true, "content_type": true, "country": true}
	seedReadOnlyFields = map[string]bool{"evidence": true, "version": true, "proposed_version": true,
		"created_at": true, "updated_at": true, "promoted_at": true, "history": true}
)

// checkSeedPatch refuses, before any read, top-level members a patch may
// not have.
func checkSeedPatch(patch map[string]json.RawMessage) error {
	for _, k := range sortedKeys(patch) {
		switch {
		case k == "status":
			return seedengine.FieldErrorf("status", "status cannot be patched; use POST /api/v1/seeds/promote or /api/v1/seeds/{seedId}/suspend, reactivate or archive")
		case seedIdentityFields[k]:
			return seedengine.FieldErrorf(k, "%s is part of the seed's identity and cannot change; create a new seed instead", k)
		case seedReadOnlyFields[k]:
			return seedengine.FieldErrorf(k, "%s is read-only", k)
		case k == "category", k == "confidence", k == "metadata", k == "source", k == "fetch", k == "policy", k == "harvest":
		default:
			return seedengine.FieldErrorf(seedengine.Truncate(k, 60), "unknown field %q", seedengine.Truncate(k, 60))
		}
	}
	return nil
}

// applySeedPatch applies a merge patch to sd. null resets a field to its
// zero value (a schedule to @hourly, a source type to the authority's),
// which the store then validates; null on source, fetch or policy as a
// whole is refused.
func applySeedPatch(sd *seedengine.Seed, patch map[string]json.RawMessage) error {
	for _, k := range sortedKeys(patch) {
		v := patch[k]
		var err error
		switch k {
		case "category":
			err = patchString(k, v, &sd.Category, "")
		case "confidence":
			err = patchNumber(k, v, &sd.Confidence)
		case "metadata":
			err = patchMetadata(v, sd)
		case "source":
			err = patchObject(k, v, func(f string, fv json.RawMessage) error {
				switch f {
				case "name":
					return patchString("source.name", fv, &sd.Source.Name, "")
				case "source_type":
					var st string
					if err := patchString("source.source_type", fv, &st, ""); err != nil {
						return err
					}
					sd.Source.SourceType = seedengine.SourceType(st) // "" is filled from the authority
					return nil
				case "domain":
					return seedengine.FieldErrorf("source.domain", "source.domain follows the domain_id and cannot change")
				}
				return nil
			}, "name", "source_type", "domain")
		case "fetch":
			err = patchObject(k, v, func(f string, fv json.RawMessage) error {
				switch f {
				case "type":
					var t string
					err := patchString("fetch.type", fv, &t, "")
					sd.Fetch.Type = seedengine.FetchType(t)
					return err
				case "entry_url":
					return patchString("fetch.entry_url", fv, &sd.Fetch.EntryURL, "")
				case "schedule":
					return patchString("fetch.schedule", fv, &sd.Fetch.Schedule, defaultSeedSchedule)
				case "selectors":
					return patchSelectors(fv, sd)
				}
				return nil
			}, "type", "entry_url", "schedule", "selectors")
		case "policy":
			err = patchObject(k, v, func(f string, fv json.RawMessage) error {
				switch f {
				case "robots_url":
					return patchString("policy.robots_url", fv, &sd.Policy.RobotsURL, "")
				case "crawl_allowed":
					return patchBool("policy.crawl_allowed", fv, &sd.Policy.CrawlAllowed)
				case "crawl_delay":
					return patchNumber("policy.crawl_delay", fv, &sd.Policy.CrawlDelay)
				case "sitemap_url":
					return patchString("policy.sitemap_url", fv, &sd.Policy.SitemapURL, "")
				}
				return nil
			}, "robots_url", "crawl_allowed", "crawl_delay", "sitemap_url")
		case "harvest":
			err = patchObject(k, v, func(f string, fv json.RawMessage) error {
				if f == "archive" {
					return patchArchive(fv, &sd.Harvest.Archive)
				}
				return patchBool("harvest.pages", fv, &sd.Harvest.Pages)
			}, "pages", "archive")
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func isNull(v json.RawMessage) bool { return string(v) == "null" }

func patchString(field string, v json.RawMessage, dst *string, null string) error {
	if isNull(v) {
		*dst = null
		return nil
	}
	if err := json.Unmarshal(v, dst); err != nil {
		return seedengine.FieldErrorf(field, "%s must be a string or null", field)
	}
	return nil
}

// patchArchive sets or (null) removes a seed's archive, whole.
func patchArchive(v json.RawMessage, dst **seedengine.PublisherArchive) error {
	if isNull(v) {
		*dst = nil
		return nil
	}
	var a seedengine.PublisherArchive
	if err := json.Unmarshal(v, &a); err != nil {
		return seedengine.FieldErrorf("harvest.archive", "harvest.archive must be an object with kind and url, or null")
	}
	*dst = &a
	return nil
}

func patchNumber(field string, v json.RawMessage, dst *float64) error {
	if isNull(v) {
		*dst = 0
		return nil
	}
	if err := json.Unmarshal(v, dst); err != nil {
		return seedengine.FieldErrorf(field, "%s must be a number or null", field)
	}
	return nil
}

func patchBool(field string, v json.RawMessage, dst *bool) error {
	if isNull(v) {
		*dst = false
		return nil
	}
	if err := json.Unmarshal(v, dst); err != nil {
		return seedengine.FieldErrorf(field, "%s must be true, false or null", field)
	}
	return nil
}

// patchObject applies the members of a nested object in name order,
// refusing null for the whole object and unknown members.
func patchObject(field string, v json.RawMessage, apply func(string, json.RawMessage) error, known ...string) error {
	if isNull(v) {
		return seedengine.FieldErrorf(field, "%s cannot be removed; patch its fields instead", field)
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(v, &members); err != nil || members == nil {
		return seedengine.FieldErrorf(field, "%s must be an object", field)
	}
	for _, k := range sortedKeys(members) {
		ok := false
		for _, kk := range known {
			ok = ok || k == kk
		}
		if !ok {
			name := field + "." + seedengine.Truncate(k, 60)
			return seedengine.FieldErrorf(name, "unknown field %q", name)
		}
		if err := apply(k, members[k]); err != nil {
			return err
		}
	}
	return nil
}

func patchSelectors(v json.RawMessage, sd *seedengine.Seed) error {
	if isNull(v) {
		sd.Fetch.Selectors = nil
		return nil
	}
	var members map[string]*string
	if err := json.Unmarshal(v, &members); err != nil || members == nil {
		return seedengine.FieldErrorf("fetch.selectors", "fetch.selectors must be an object of strings (null members remove)")
	}
	if sd.Fetch.Selectors == nil {
		sd.Fetch.Selectors = map[string]string{}
	}
	for k, sel := range members {
		if sel == nil {
			delete(sd.Fetch.Selectors, k)
		} else {
			sd.Fetch.Selectors[k] = *sel
		}
	}
	if len(sd.Fetch.Selectors) == 0 {
		sd.Fetch.Selectors = nil
	}
	return nil
}

func patchMetadata(v json.RawMessage, sd *seedengine.Seed) error {
	if isNull(v) {
		sd.Metadata = nil
		return nil
	}
	var p map[string]any
	if err := json.Unmarshal(v, &p); err != nil || p == nil {
		return seedengine.FieldErrorf("metadata", "metadata must be an object or null")
	}
	m, _ := mergePatch(map[string]any(sd.Metadata), p).(map[string]any)
	if len(m) == 0 {
		m = nil
	}
	sd.Metadata = m
	return nil
}

// mergePatch is RFC 7396's MergePatch on decoded JSON.
func mergePatch(target, patch any) any {
	p, ok := patch.(map[string]any)
	if !ok {
		return patch
	}
	t, ok := target.(map[string]any)
	if !ok || t == nil {
		t = map[string]any{}
	}
	for k, v := range p {
		if v == nil {
			delete(t, k)
			continue
		}
		t[k] = mergePatch(t[k], v)
	}
	return t
}

// Transitions.

type seedReasonRequest struct {
	Reason string `json:"reason,omitempty" maxLength:"500" doc:"Why; kept in the seed's history."`
}

type seedTransitionInput struct {
	SeedID string             `path:"seedId" maxLength:"400" doc:"{domain_id}::{content_type}, or {domain_id}::{content_type}@{edition} for a publisher's edition other than its default; URL-escaped or not, any case."`
	Body   *seedReasonRequest `required:"false"`
}

type seedPromoteRequest struct {
	SeedID string `json:"seedId" maxLength:"400" doc:"The draft seed to promote." example:"gov:sg:mom.gov.sg::news"`
	Reason string `json:"reason,omitempty" maxLength:"500" doc:"Why; kept in the seed's history."`
}

type seedPromoteInput struct{ Body seedPromoteRequest }

func (s *Server) handleSeedPromote(ctx context.Context, in *seedPromoteInput) (*seedOutput, error) {
	id, err := parseSeedID(in.Body.SeedID, "body", "seedId")
	if err != nil {
		return nil, err
	}
	return s.transitionSeed(ctx, id, seedengine.SeedPromote, in.Body.Reason)
}

// handleSeedAction serves POST /api/v1/seeds/{seedId}/{action}.
func (s *Server) handleSeedAction(action seedengine.SeedAction) func(context.Context, *seedTransitionInput) (*seedOutput, error) {
	return func(ctx context.Context, in *seedTransitionInput) (*seedOutput, error) {
		id, err := parseSeedID(in.SeedID, "path", "seedId")
		if err != nil {
			return nil, err
		}
		reason := ""
		if in.Body != nil {
			reason = in.Body.Reason
		}
		return s.transitionSeed(ctx, id, action, reason)
	}
}

func (s *Server) transitionSeed(ctx context.Context, id string, action seedengine.SeedAction, reason string) (*seedOutput, error) {
	if s.deps.Seeds == nil {
		return nil, unavailable("seeds")
	}
	sd, err := s.deps.Seeds.TransitionSeed(ctx, id, action, actor(ctx), reason)
	if err != nil {
		return nil, conflictWithoutField(err)
	}
	return &seedOutput{Body: reviewed(sd)}, nil
}
