package seedengine

import (
	"context"
	"encoding/json"
	"net/url"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"time"
)

// SeedStatus is where a seed is in its lifecycle. A seed is created as a
// draft; a person promotes it to active or rejects it (a rejected draft
// keeps its evidence and can be reopened); an active seed can be
// suspended and reactivated; any seed can be archived, which is final.
type SeedStatus string

// Seed statuses.
const (
	SeedDraft     SeedStatus = "draft"
	SeedActive    SeedStatus = "active"
	SeedSuspended SeedStatus = "suspended"
	SeedRejected  SeedStatus = "rejected"
	SeedArchived  SeedStatus = "archived"
)

// SeedStatuses lists the statuses in the order a reviewer meets them.
var SeedStatuses = []SeedStatus{SeedDraft, SeedActive, SeedSuspended, SeedRejected, SeedArchived}

// Valid reports whether s is one of the SeedStatus constants.
func (s SeedStatus) Valid() bool {
	switch s {
	case SeedDraft, SeedActive, SeedSuspended, SeedRejected, SeedArchived:
		return true
	}
	return false
}

// seedStatusRule is the rule a status filter or field breaks.
const seedStatusRule = "must be one of draft, active, suspended, rejected, archived"

// ValidateSeedStatus checks a status named by field ("status" for a
// filter). EINVALID naming field.
func ValidateSeedStatus(field string, s SeedStatus) error {
	if !s.Valid() {
		return FieldErrorf(field, "%s %s", field, seedStatusRule)
	}
	return nil
}

// SeedAction is an explicit lifecycle transition of a seed. Status never
// changes any other way: not by PATCH, not by a contract run.
type SeedAction string

// Seed actions.
const (
	SeedPromote    SeedAction = "promote"    // draft → active
	SeedSuspend    SeedAction = "suspend"    // active → suspended
	SeedReactivate SeedAction = "reactivate" // suspended → active
	SeedArchive    SeedAction = "archive"    // draft, active, suspended or rejected → archived
	SeedReject     SeedAction = "reject"     // draft → rejected
	SeedReopen     SeedAction = "reopen"     // rejected → draft
)

// SeedActions lists the lifecycle actions.
var SeedActions = []SeedAction{SeedPromote, SeedReject, SeedReopen, SeedSuspend, SeedReactivate, SeedArchive}

// RejectReason is why a reviewer rejected a draft: a short list, so that
// rejections can be counted and filtered, with free text beside it.
type RejectReason string

// Reject reasons.
const (
	RejectNotRelevant RejectReason = "not_relevant" // not a source this partition wants
	RejectDuplicate   RejectReason = "duplicate"    // another seed already covers it
	RejectWrongEntry  RejectReason = "wrong_entry"  // no candidate of the evidence is a good entry
	RejectLowQuality  RejectReason = "low_quality"  // too little, broken or machine-made content
	RejectNotAllowed  RejectReason = "not_allowed"  // robots.txt, terms or a paywall rule it out
	RejectOther       RejectReason = "other"        // the note says why
)

// RejectReasons lists the reject reasons in the order a picker shows them.
var RejectReasons = []RejectReason{RejectNotRelevant, RejectDuplicate, RejectWrongEntry, RejectLowQuality, RejectNotAllowed, RejectOther}

// Valid reports whether r is one of the RejectReason constants.
func (r RejectReason) Valid() bool { return slices.Contains(RejectReasons, r) }

// Label is the reason in words, as the console shows it.
func (r RejectReason) Label() string {
	switch r {
	case RejectNotRelevant:
		return "Not relevant"
	case RejectDuplicate:
		return "Duplicate of another seed"
	case RejectWrongEntry:
		return "No good entry"
	case RejectLowQuality:
		return "Low quality"
	case RejectNotAllowed:
		return "Not allowed (robots, terms, paywall)"
	case RejectOther:
		return "Other"
	}
	return string(r)
}

// Target returns the status the action leads to, or "" for an unknown
// action.
func (a SeedAction) Target() SeedStatus {
	switch a {
	case SeedPromote, SeedReactivate:
		return SeedActive
	case SeedSuspend:
		return SeedSuspended
	case SeedArchive:
		return SeedArchived
	case SeedReject:
		return SeedRejected
	case SeedReopen:
		return SeedDraft
	}
	return ""
}

// From lists the statuses the action may start from.
func (a SeedAction) From() []SeedStatus {
	switch a {
	case SeedPromote:
		return []SeedStatus{SeedDraft}
	case SeedSuspend:
		return []SeedStatus{SeedActive}
	case SeedReactivate:
		return []SeedStatus{SeedSuspended}
	case SeedArchive:
		return []SeedStatus{SeedDraft, SeedActive, SeedSuspended, SeedRejected}
	case SeedReject:
		return []SeedStatus{SeedDraft}
	case SeedReopen:
		return []SeedStatus{SeedRejected}
	}
	return nil
}

// CheckSeedTransition returns nil when action may be applied to a seed in
// status from, and otherwise an ECONFLICT error naming the current status
// (EINVALID for an unknown action).
func CheckSeedTransition(seedID string, from SeedStatus, action SeedAction) error {
	allowed := action.From()
	if allowed == nil {
		return FieldErrorf("action", "action must be one of promote, reject, reopen, suspend, reactivate, archive")
	}
	for _, s := range allowed {
		if s == from {
			return nil
		}
	}
	names := make([]string, len(allowed))
	for i, s := range allowed {
		names[i] = string(s)
	}
	return &Error{Code: ECONFLICT, Field: "status", Message: "seed " + Truncate(seedID, 200) + " is " + string(from) +
		"; " + string(action) + " needs a seed that is " + strings.Join(names, " or ")}
}

// SourceType says who publishes a seed's content (DESIGN §2); it is the
// seeds list's source_type filter.
type SourceType string

// Source types.
const (
	SourceGovernment   SourceType = "government"
	SourceOrganization SourceType = "organization"
	SourceNGO          SourceType = "ngo"
	SourceMedia        SourceType = "media"
	SourceCompany      SourceType = "company"
	SourceEducation    SourceType = "education"
	SourceOther        SourceType = "other"
)

// Valid reports whether t is one of the SourceType constants.
func (t SourceType) Valid() bool {
	switch t {
	case SourceGovernment, SourceOrganization, SourceNGO, SourceMedia, SourceCompany, SourceEducation, SourceOther:
		return true
	}
	return false
}

// FetchType is how a seed's content is retrieved.
type FetchType string

// Fetch types.
const (
	FetchRSS         FetchType = "rss"
	FetchAtom        FetchType = "atom"
	FetchJSONFeed    FetchType = "json_feed"
	FetchNewsSitemap FetchType = "news_sitemap"
	FetchSitemap     FetchType = "sitemap"
	FetchHTML        FetchType = "html"
	FetchAPI         FetchType = "api"
)

// Valid reports whether t is one of the FetchType constants.
func (t FetchType) Valid() bool {
	switch t {
	case FetchRSS, FetchAtom, FetchJSONFeed, FetchNewsSitemap, FetchSitemap, FetchHTML, FetchAPI:
		return true
	}
	return false
}

// ContentTypeNews is the content type looked for first.
const ContentTypeNews = "news"

// ValidateContentType checks a content type: a slug like a category
// ([a-z0-9_]{1,40}). EINVALID with Field "content_type".
func ValidateContentType(ct string) error {
	if err := ValidateCategory(ct); err != nil {
		return FieldErrorf("content_type", "content_type must be a lower-case slug [a-z0-9_]{1,40}")
	}
	return nil
}

// SeedID returns the seed_id "{domain_id}::{content_type}".
func SeedID(domainID, contentType string) string { return domainID + "::" + contentType }

// EditionSeedID returns the seed_id of a publisher's edition other than
// its default: "{domain_id}::{content_type}@{edition}"; SeedID's when
// edition is "".
func EditionSeedID(domainID, contentType, edition string) string {
	if edition == "" {
		return SeedID(domainID, contentType)
	}
	return SeedID(domainID, contentType) + "@" + edition
}

// ParseSeedID splits a seed_id into its domain_id and content type and
// checks both, and its edition when it names one (ParseEditionSeedID).
// EINVALID with Field "seed_id".
func ParseSeedID(id string) (domainID, contentType string, err error) {
	d, ct, _, err := ParseEditionSeedID(id)
	return d, ct, err
}

// ParseEditionSeedID splits a seed_id, "{domain_id}::{content_type}" or
// "{domain_id}::{content_type}@{edition}", into its parts and checks
// them. EINVALID with Field "seed_id".
func ParseEditionSeedID(id string) (domainID, contentType, edition string, err error) {
	d, ct, ok := strings.Cut(id, "::")
	if !ok {
		return "", "", "", FieldErrorf("seed_id", "seed_id must be {domain_id}::{content_type}")
	}
	if _, _, _, err := ParseDomainID(d); err != nil {
		return "", "", "", FieldErrorf("seed_id", "seed_id must be {domain_id}::{content_type}, and its %s", ErrorMessage(err))
	}
	ct, edition, named := strings.Cut(ct, "@")
	if ValidateContentType(ct) != nil {
		return "", "", "", FieldErrorf("seed_id", "seed_id must be {domain_id}::{content_type}, and its content type a lower-case slug [a-z0-9_]{1,40}")
	}
	if named && !ValidEdition(edition) {
		return "", "", "", FieldErrorf("seed_id", "seed_id's edition (after @) must be a lower-case language tag such as de or pt-br")
	}
	return d, ct, edition, nil
}

// editionRE is an edition: a language tag, lower case, its primary
// subtag and at most one more (de, pt-br, zh-hant).
var editionRE = regexp.MustCompile(`^[a-z]{2,3}(-[a-z0-9]{2,8})?$`)

// ValidEdition reports whether e is an edition's language tag.
func ValidEdition(e string) bool { return editionRE.MatchString(e) }

// SeedEdition says which of a publisher's editions a seed harvests, when
// the domain publishes editions in different languages on different
// hosts (de.example.com, fr.example.com): one seed per edition. The
// edition whose language is one of the domain_id's country's is the
// default, whose seed has the plain seed_id; each other's seed_id ends in
// @{language}. A domain with one edition has no edition.
type SeedEdition struct {
	Language string `json:"language" doc:"The edition's language, a lower-case language tag (de, fr, pt-br)."`
	Host     string `json:"host" doc:"The host the edition is published on (de.example.com)."`
	Default  bool   `json:"default" doc:"Whether this is the domain's default edition, whose seed has the plain seed_id."`
}

// SeedSource is who publishes a seed's content.
type SeedSource struct {
	Domain     string     `json:"domain"` // registrable domain
	Name       string     `json:"name"`
	SourceType SourceType `json:"source_type"`
	// Edition is the publisher's edition the seed harvests, when the
	// domain has several (SeedEdition); nil when it has one.
	Edition *SeedEdition `json:"edition,omitempty"`
}

// Lang is the edition's language, "" for none (nil).
func (e *SeedEdition) Lang() string {
	if e == nil {
		return ""
	}
	return e.Language
}

// EditionSuffix is the edition a seed's seed_id names: the language of
// an edition that is not the default, else "".
func (s SeedSource) EditionSuffix() string {
	if s.Edition == nil || s.Edition.Default {
		return ""
	}
	return s.Edition.Language
}

// SeedFetch is how a seed's content is retrieved: part of the contract.
type SeedFetch struct {
	Type     FetchType `json:"type"`
	EntryURL string    `json:"entry_url"`
	// Schedule is a cron expression (five fields, or @hourly, @daily, …)
	// saying how often the entry URL is read.
	Schedule string `json:"schedule"`
	// Selectors are CSS selectors for HTML seeds (for example "item",
	// "link", "title", "date").
	Selectors map[string]string `json:"selectors,omitempty"`
}

// SeedPolicy is what robots.txt allows: part of the contract.
type SeedPolicy struct {
	RobotsURL    string `json:"robots_url"`
	CrawlAllowed bool   `json:"crawl_allowed"`
	// CrawlDelay is the robots.txt Crawl-delay for our agent, in seconds;
	// 0 when none.
	CrawlDelay float64 `json:"crawl_delay"`
	SitemapURL string  `json:"sitemap_url,omitempty"`
}

// SeedContract is the versioned part of a seed: what a fetcher does. A
// seed's version goes up by one exactly when its contract changes.
type SeedContract struct {
	Fetch   SeedFetch   `json:"fetch"`
	Policy  SeedPolicy  `json:"policy"`
	Harvest SeedHarvest `json:"harvest"`
}

// Equal reports whether two contracts are the same; nil and empty
// selector maps are equal.
func (c SeedContract) Equal(o SeedContract) bool {
	if len(c.Fetch.Selectors) == 0 && len(o.Fetch.Selectors) == 0 {
		c.Fetch.Selectors, o.Fetch.Selectors = nil, nil
	}
	return reflect.DeepEqual(c, o)
}

// SeedEvidence summarises the evidence a seed's contract rests on; the
// whole evidence of a contract run is the object at Key.
type SeedEvidence struct {
	// Key is the object key of the contract run's evidence
	// (prod/contracts/{domain}/{time}-{run}.json; {time}.json before run
	// ids).
	Key string `json:"key,omitempty"`
	// Method says which candidate won and how it was found, e.g.
	// "rss via link_alternate".
	Method string `json:"method,omitempty"`
	// Candidates is how many candidates were examined for the domain.
	Candidates int `json:"candidates"`
	// Items is the item count of the chosen feed or the URL count of the
	// chosen sitemap.
	Items int `json:"items,omitempty"`
	// Newest is the newest item or lastmod date of the chosen candidate.
	Newest *time.Time `json:"newest,omitempty"`
	// Requests is how many HTTP requests the contract run made.
	Requests  int        `json:"requests,omitempty"`
	CheckedAt *time.Time `json:"checked_at,omitempty"`
	// Why explains the choice of the entry in a sentence: the contract
	// run's reason, or that a reviewer chose the candidate (ChosenBy).
	Why      string `json:"why,omitempty"`
	ChosenBy string `json:"chosen_by,omitempty"`
}

// SeedTransition is one recorded change of a seed's status.
type SeedTransition struct {
	Action string     `json:"action"` // "create" or a SeedAction
	From   SeedStatus `json:"from,omitempty"`
	To     SeedStatus `json:"to"`
	At     time.Time  `json:"at"`
	// Actor is the name of the API key that asked for it
	// (AnonymousActor when the API is open), or "contract_batch:{id}".
	Actor string `json:"actor"`
	// ReasonCode is a rejection's reason from the short list
	// (RejectReasons); Reason is the free text given with any action.
	ReasonCode RejectReason `json:"reason_code,omitempty"`
	Reason     string       `json:"reason,omitempty"`
}

// AnonymousActor is the actor recorded when the API runs without keys.
const AnonymousActor = "anonymous"

// Seed is a retrieval contract for one domain and one content type.
type Seed struct {
	SeedID      string         `json:"seed_id"`
	DomainID    string         `json:"domain_id"`
	Country     string         `json:"country"`
	Category    string         `json:"category"`
	ContentType string         `json:"content_type"`
	Source      SeedSource     `json:"source"`
	Fetch       SeedFetch      `json:"fetch"`
	Policy      SeedPolicy     `json:"policy"`
	Harvest     SeedHarvest    `json:"harvest"`
	Evidence    SeedEvidence   `json:"evidence"`
	Confidence  float64        `json:"confidence"`
	Metadata    map[string]any `json:"metadata,omitempty"`
	Status      SeedStatus     `json:"status"`
	Version     int            `json:"version"`
	// ProposedVersion is the newest contract version that a contract run
	// proposed for a seed that was no longer a draft, when it differs from
	// the seed's contract; 0 when there is none. FindSeedVersions shows it.
	ProposedVersion int        `json:"proposed_version,omitempty"`
	CreatedAt       time.Time  `json:"created_at"`
	UpdatedAt       time.Time  `json:"updated_at"`
	PromotedAt      *time.Time `json:"promoted_at,omitempty"`
	// History lists the seed's status transitions, oldest first; filled
	// by FindSeedByID only.
	History []SeedTransition `json:"history,omitempty"`
	// Health is what the seed's checks show; filled by FindSeedByID and
	// FindSeeds once the seed has been checked.
	Health *SeedHealth `json:"health,omitempty"`
	// ReviewReasons are what a person should weigh before promoting the
	// seed (entry_off_domain, …). They follow from its contract and are
	// not stored: the API fills them in every seed it shows.
	ReviewReasons []SeedReviewReason `json:"review_reasons,omitempty"`
}

// Contract returns the versioned part of s.
func (s *Seed) Contract() SeedContract {
	return SeedContract{Fetch: s.Fetch, Policy: s.Policy, Harvest: s.Harvest}
}

// MaxSeedMetadata is the largest metadata object a seed keeps, in bytes of
// JSON.
const MaxSeedMetadata = 16 << 10

// Normalize fills what follows from the identity: the seed_id from
// domain_id and content_type (or the reverse), the country and the source
// domain from the domain_id, and the source type from its authority when
// empty. It does not validate.
func (s *Seed) Normalize() {
	if s.SeedID == "" && s.DomainID != "" && s.ContentType != "" {
		s.SeedID = EditionSeedID(s.DomainID, s.ContentType, s.Source.EditionSuffix())
	}
	if s.SeedID != "" && (s.DomainID == "" || s.ContentType == "") {
		if d, ct, ok := strings.Cut(s.SeedID, "::"); ok {
			ct, _, _ = strings.Cut(ct, "@")
			if s.DomainID == "" {
				s.DomainID = d
			}
			if s.ContentType == "" {
				s.ContentType = ct
			}
		}
	}
	a, country, domain, err := ParseDomainID(s.DomainID)
	if err != nil {
		return
	}
	if s.Country == "" {
		s.Country = country
	}
	if s.Source.Domain == "" {
		s.Source.Domain = domain
	}
	if s.Source.SourceType == "" {
		s.Source.SourceType = SourceType(a.SourceType())
	}
}

// Validate checks a seed's fields and their consistency, returning an
// EINVALID error naming the first bad field (dotted for nested ones, e.g.
// "fetch.entry_url").
func (s *Seed) Validate() error {
	_, country, domain, err := ParseDomainID(s.DomainID)
	if err != nil {
		return err
	}
	if err := ValidateContentType(s.ContentType); err != nil {
		return err
	}
	if e := s.Source.Edition; e != nil {
		if !ValidEdition(e.Language) {
			return FieldErrorf("source.edition.language", "source.edition.language must be a lower-case language tag such as de or pt-br")
		}
		if h := strings.ToLower(e.Host); h != domain && !strings.HasSuffix(h, "."+domain) {
			return FieldErrorf("source.edition.host", "source.edition.host must be a host of the domain_id's domain")
		}
	}
	if s.SeedID != EditionSeedID(s.DomainID, s.ContentType, s.Source.EditionSuffix()) {
		return FieldErrorf("seed_id", "seed_id must be {domain_id}::{content_type} of the seed, with @{edition} for an edition other than the default")
	}
	if s.Country != country {
		return FieldErrorf("country", "country must be the domain_id's country")
	}
	if err := ValidateCategory(s.Category); err != nil {
		return err
	}
	if s.Source.Domain != domain {
		return FieldErrorf("source.domain", "source.domain must be the domain_id's domain")
	}
	if len(s.Source.Name) > 200 {
		return FieldErrorf("source.name", "source.name is longer than 200 bytes")
	}
	if !s.Source.SourceType.Valid() {
		return FieldErrorf("source.source_type", "source.source_type must be one of government, organization, ngo, media, company, education, other")
	}
	if !s.Fetch.Type.Valid() {
		return FieldErrorf("fetch.type", "fetch.type must be one of rss, atom, json_feed, news_sitemap, sitemap, html, api")
	}
	if err := validateSeedURL("fetch.entry_url", s.Fetch.EntryURL, true); err != nil {
		return err
	}
	if err := ValidateCron(s.Fetch.Schedule); err != nil {
		return err
	}
	if len(s.Fetch.Selectors) > 20 {
		return FieldErrorf("fetch.selectors", "fetch.selectors has more than 20 entries")
	}
	for k, v := range s.Fetch.Selectors {
		if k == "" || len(k) > 40 || len(v) > 500 {
			return FieldErrorf("fetch.selectors", "fetch.selectors entries need a name of 1–40 bytes and a selector of at most 500 bytes")
		}
	}
	if err := validateSeedURL("policy.robots_url", s.Policy.RobotsURL, false); err != nil {
		return err
	}
	if err := validateSeedURL("policy.sitemap_url", s.Policy.SitemapURL, false); err != nil {
		return err
	}
	if a := s.Harvest.Archive; a != nil {
		if !a.Kind.Valid() {
			return FieldErrorf("harvest.archive.kind", "harvest.archive.kind must be one of paged_feed, news_sitemap, daily_sitemaps")
		}
		if err := validateSeedURL("harvest.archive.url", a.URL, true); err != nil {
			return err
		}
	}
	if s.Policy.CrawlDelay < 0 || s.Policy.CrawlDelay > 86400 || s.Policy.CrawlDelay != s.Policy.CrawlDelay {
		return FieldErrorf("policy.crawl_delay", "policy.crawl_delay must be 0 to 86400 seconds")
	}
	if s.Confidence < 0 || s.Confidence > 1 || s.Confidence != s.Confidence {
		return FieldErrorf("confidence", "confidence must be between 0 and 1")
	}
	if s.Metadata != nil {
		b, err := json.Marshal(s.Metadata)
		if err != nil {
			return FieldErrorf("metadata", "metadata must be a JSON object")
		}
		if len(b) > MaxSeedMetadata {
			return FieldErrorf("metadata", "metadata is larger than %d bytes", MaxSeedMetadata)
		}
	}
	if s.Status != "" {
		if err := ValidateSeedStatus("status", s.Status); err != nil {
			return err
		}
	}
	return nil
}

func validateSeedURL(field, raw string, required bool) error {
	if raw == "" {
		if required {
			return FieldErrorf(field, "%s is required", field)
		}
		return nil
	}
	if len(raw) > 2048 {
		return FieldErrorf(field, "%s is longer than 2048 bytes", field)
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return FieldErrorf(field, "%s must be an absolute http or https URL", field)
	}
	return nil
}

// SeedVersionState says whether a recorded contract version is in use.
type SeedVersionState string

// Seed version states.
const (
	SeedVersionCurrent    SeedVersionState = "current"    // the seed's contract
	SeedVersionSuperseded SeedVersionState = "superseded" // an earlier contract
	// SeedVersionProposed is a contract a contract run found for a seed
	// that was no longer a draft; it is kept for a person to apply.
	SeedVersionProposed SeedVersionState = "proposed"
)

// SeedVersion is one recorded contract of a seed.
type SeedVersion struct {
	SeedID     string           `json:"seed_id"`
	Version    int              `json:"version"`
	State      SeedVersionState `json:"state"`
	Contract   SeedContract     `json:"contract"`
	Confidence float64          `json:"confidence"`
	Evidence   SeedEvidence     `json:"evidence"`
	Actor      string           `json:"actor"`
	BatchID    string           `json:"batch_id,omitempty"`
	CreatedAt  time.Time        `json:"created_at"`
}

// SeedFilter selects seeds. Zero fields do not filter.
type SeedFilter struct {
	Country    string
	Category   string
	Status     SeedStatus
	SourceType SourceType
	FetchType  FetchType
	DomainID   string
	// Authority keeps the seeds of domains of one authority (the first
	// part of the domain_id).
	Authority Authority
	// MinConfidence keeps the seeds whose confidence is at least it;
	// 0 keeps all.
	MinConfidence float64
	// BatchID keeps the seeds a contract batch recorded a version of:
	// the drafts it created, the seeds it updated and those it proposed
	// a contract for.
	BatchID string
	// Health keeps the seeds in one health state; HealthUnknown keeps
	// those never checked.
	Health SeedHealthState
	// Q keeps the seeds whose domain or source name contains it, in any
	// case (at most 200 bytes).
	Q string
	// Sort orders the list (SeedSorts; default SortSeedID). After and
	// Before stay seed_ids: the page goes on from that seed's place in
	// the order.
	Sort SeedSort
	// After, when set, pages by key: only seeds whose seed_id sorts after
	// it (the last seed_id of the previous page). Deep pages then cost
	// what the first does; Offset must be 0 with it.
	After string
	// Before pages backwards: the Limit seeds whose seed_id sorts just
	// before it, still returned in seed_id order. Not with After or
	// Offset.
	Before string
	Limit  int
	Offset int
}

// SeedSort is an order of the seeds list: a key, descending with a
// leading "-".
type SeedSort string

// Seed list orders.
const (
	SortSeedID        SeedSort = "seed_id"     // authority, country, domain (the default)
	SortDomain        SeedSort = "domain"      // registrable domain, A to Z
	SortConfidence    SeedSort = "confidence"  // least confident first
	SortConfidenceDsc SeedSort = "-confidence" // most confident first
	SortCreated       SeedSort = "created"     // oldest first
	SortCreatedDsc    SeedSort = "-created"    // newest first
)

// SeedSorts lists the orders.
var SeedSorts = []SeedSort{SortSeedID, SortDomain, SortConfidence, SortConfidenceDsc, SortCreated, SortCreatedDsc}

// ValidateSeedListQuery checks a seeds list's search and order. EINVALID
// naming q or sort.
func ValidateSeedListQuery(q string, sort SeedSort) error {
	if len(q) > 200 {
		return FieldErrorf("q", "q is longer than 200 bytes")
	}
	if sort != "" && !slices.Contains(SeedSorts, sort) {
		return FieldErrorf("sort", "sort must be one of seed_id, domain, confidence, -confidence, created, -created")
	}
	return nil
}

// SeedRecordResult is what recording a contract run's seed did.
type SeedRecordResult string

// Seed record results.
const (
	// SeedCreated: no seed existed; a draft was created.
	SeedCreated SeedRecordResult = "created"
	// SeedRefreshed: a draft existed and was replaced by the new finding
	// (its version went up only when the contract changed).
	SeedRefreshed SeedRecordResult = "refreshed"
	// SeedKept: the seed is active, suspended or archived and was left as
	// it is; a differing contract was recorded as a proposed version. A
	// rejected seed whose contract the run found again is kept too
	// (Reason "rejected_seed_kept").
	SeedKept SeedRecordResult = "kept"
	// SeedReopened: the seed was rejected and the run found a different
	// contract: it is a draft again with that contract.
	SeedReopened SeedRecordResult = "reopened"
)

// SeedRecordOutcome is the outcome of SeedService.RecordDraftSeed.
type SeedRecordOutcome struct {
	Result  SeedRecordResult `json:"result"`
	Version int              `json:"version"` // the seed's version, or the proposed version's
	// Reason explains a kept seed: "active_seed_kept",
	// "suspended_seed_kept", "archived_seed_kept", with
	// ProposedVersion > 0 when the found contract is the seed's pending
	// proposal: recorded now (Version is then the proposal's) or already
	// (Version stays the seed's), so a run repeated after a crash reports
	// what the first one did.
	Reason          string `json:"reason,omitempty"`
	ProposedVersion int    `json:"proposed_version,omitempty"`
}

// SeedService stores seeds, their contract versions and transitions.
type SeedService interface {
	// CreateSeed normalises and validates s, sets it to draft at version 1
	// with fresh timestamps, and writes it with its first version and a
	// "create" transition by actor. EINVALID naming the field; ECONFLICT
	// when the seed_id exists.
	CreateSeed(ctx context.Context, s *Seed, actor string) error

	// FindSeedByID returns a seed with its History. ENOTFOUND when there
	// is none.
	FindSeedByID(ctx context.Context, id string) (*Seed, error)

	// FindSeeds returns seeds matching f ordered by seed_id, and the total
	// matching f regardless of Limit and Offset.
	FindSeeds(ctx context.Context, f SeedFilter) ([]*Seed, int, error)

	// UpdateSeed calls fn with a copy of the seed and writes the result in
	// one transaction. Identity (seed_id, domain_id, content_type,
	// country) and status cannot change: EINVALID naming the field. The
	// version goes up by one, with a new version recorded, only when the
	// contract changed. ENOTFOUND when there is no seed.
	UpdateSeed(ctx context.Context, id, actor string, fn func(*Seed) error) (*Seed, error)

	// TransitionSeed applies a lifecycle action and records the
	// transition with actor and reason. ECONFLICT naming the current
	// status when the action does not apply; ENOTFOUND.
	TransitionSeed(ctx context.Context, id string, action SeedAction, actor, reason string) (*Seed, error)

	// RejectSeed rejects a draft with a reason from the short list and
	// free text (at most 500 bytes), recorded in its history: the
	// transition "reject". EINVALID naming reason_code for a code that is
	// not one of RejectReasons; ECONFLICT when the seed is not a draft.
	// TransitionSeed refuses SeedReject (it carries no code).
	RejectSeed(ctx context.Context, id string, code RejectReason, note, actor string) (*Seed, error)

	// RecordDraftSeed writes what a contract run found for a seed: a new
	// draft when none exists, a refresh of a draft, or — for a seed that
	// is no longer a draft — nothing but a proposed version (only when
	// its contract differs from the seed's and from the latest proposal).
	// s is normalised and validated as for CreateSeed.
	RecordDraftSeed(ctx context.Context, s *Seed, actor, batchID string) (SeedRecordOutcome, error)

	// ImportSeed writes s as a new draft seed, as CreateSeed does, with its
	// first version tagged with batchID; when a seed with its seed_id
	// exists it writes nothing and reports false. s is normalised and
	// validated as for CreateSeed.
	ImportSeed(ctx context.Context, s *Seed, actor, batchID string) (created bool, err error)

	// FindSeedVersions returns a seed's recorded contract versions, newest
	// first. ENOTFOUND when there is no seed.
	FindSeedVersions(ctx context.Context, id string) ([]*SeedVersion, error)
}
