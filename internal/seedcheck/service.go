package seedcheck

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/contract"
	"github.com/seedengine/seedengine/internal/harvest"
)

// Store is what the service keeps checks in; sqlstore.SeedService is one.
type Store interface {
	FindSeedByID(ctx context.Context, id string) (*seedengine.Seed, error)
	RecordDraftSeed(ctx context.Context, s *seedengine.Seed, actor, batchID string) (seedengine.SeedRecordOutcome, error)
	FindSeedChecks(ctx context.Context, seedID string, before int64, since time.Time, limit int) ([]seedengine.SeedCheck, error)
	RecordSeedCheck(ctx context.Context, c *seedengine.SeedCheck, items []seedengine.Item, baseline bool,
		decide func(*seedengine.SeedCheck, seedengine.ArrivalHistory) (seedengine.SeedHealth, time.Time),
		inTx func(context.Context, *sql.Tx, seedengine.SeedHealthChange) error) (prev, h seedengine.SeedHealth, err error)
	DueSeedChecks(ctx context.Context, now time.Time, statuses []seedengine.SeedStatus, limit int) ([]string, error)
	FindSeedHealth(ctx context.Context, seedID string) (seedengine.SeedHealth, time.Time, error)
	DeleteSeedChecksBefore(ctx context.Context, t time.Time) (int64, error)
	// UnseenInWindow counts a read's entry items the seed's last read did
	// not list (first: it has no window yet), keeping nothing.
	UnseenInWindow(ctx context.Context, seedID string, items []seedengine.Item) (unseen int, first bool, err error)
	// KnownItems reports which items were seen before by any read.
	KnownItems(ctx context.Context, items []seedengine.Item) ([]bool, error)
}

// Config shapes the service. The zero value takes the defaults noted.
type Config struct {
	// MinInterval and MaxInterval bound the time between two checks of an
	// active seed, whatever its schedule says: defaults 1h and 24h.
	MinInterval, MaxInterval time.Duration
	// SuspendedInterval is the time between two checks of a suspended
	// seed; default 7 days.
	SuspendedInterval time.Duration
	// Retention is how long checks are kept; default 90 days.
	Retention time.Duration
	// Thresholds tune the health states.
	Thresholds Thresholds
	// Pace bounds the time between two reads of an active feed or sitemap
	// seed, which follows the publisher's pace (harvest.Pace) rather than
	// MinInterval and the schedule: Pace.Min defaults to 30 s, Pace.Max
	// to MaxInterval.
	Pace harvest.PaceConfig
	// Batches, when set, takes the contract batches Drift asks for.
	Batches BatchCreator
	Logger  *slog.Logger
	Now     func() time.Time
}

func (c Config) withDefaults() Config {
	if c.MinInterval <= 0 {
		c.MinInterval = time.Hour
	}
	if c.MaxInterval <= 0 {
		c.MaxInterval = 24 * time.Hour
	}
	c.MaxInterval = max(c.MaxInterval, c.MinInterval)
	if c.Pace.Max <= 0 {
		c.Pace.Max = c.MaxInterval
	}
	if c.SuspendedInterval <= 0 {
		c.SuspendedInterval = 7 * 24 * time.Hour
	}
	if c.Retention <= 0 {
		c.Retention = 90 * 24 * time.Hour
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	return c
}

// Service checks seeds and records what it found.
type Service struct {
	store   Store
	checker *Checker
	cfg     Config
}

// BatchCreator creates batches with their jobs; jobs.Queue is one.
type BatchCreator interface {
	CreateBatch(ctx context.Context, b *seedengine.Batch, chunks []*seedengine.BatchChunk) error
}

// NewService returns a Service that checks through checker and records in
// store.
func NewService(store Store, checker *Checker, cfg Config) *Service {
	return &Service{store: store, checker: checker, cfg: cfg.withDefaults()}
}

// historyLimit bounds the checks health is derived from.
const historyLimit = 200

// CheckSeed checks one seed now, derives its health and records both with
// the time of its next check; inTx, when not nil, runs in the transaction
// that records them, with the change of health (the check job queues the
// alert and drift run there and completes itself). A seed that is neither
// active nor suspended is not checked (nil error: its job has nothing to
// do, and inTx is not called).
func (s *Service) CheckSeed(ctx context.Context, seedID string, inTx func(context.Context, *sql.Tx, seedengine.SeedHealthChange) error) error {
	_, _, err := s.Check(ctx, seedID, inTx)
	return err
}

// Check is CheckSeed returning the check and the health before and after
// it; a zero check when the seed was not checked.
func (s *Service) Check(ctx context.Context, seedID string, inTx func(context.Context, *sql.Tx, seedengine.SeedHealthChange) error) (seedengine.SeedCheck, [2]seedengine.SeedHealth, error) {
	var hs [2]seedengine.SeedHealth
	sd, err := s.store.FindSeedByID(ctx, seedID)
	if err != nil {
		return seedengine.SeedCheck{}, hs, fmt.Errorf("check seed: %w", err)
	}
	if sd.Status != seedengine.SeedActive && sd.Status != seedengine.SeedSuspended {
		return seedengine.SeedCheck{}, hs, nil
	}
	now := s.cfg.Now()
	recent, err := s.store.FindSeedChecks(ctx, seedID, 0, now.Add(-7*24*time.Hour), historyLimit)
	if err != nil {
		return seedengine.SeedCheck{}, hs, fmt.Errorf("check seed: %w", err)
	}
	var prev *seedengine.SeedCheck
	if len(recent) == 0 {
		// The last check may be older than the window.
		last, err := s.store.FindSeedChecks(ctx, seedID, 0, time.Time{}, 1)
		if err != nil {
			return seedengine.SeedCheck{}, hs, fmt.Errorf("check seed: %w", err)
		}
		recent = last
	}
	if len(recent) > 0 {
		prev = &recent[0]
	}
	// FindSeedByID read the seed's health with it.
	before := seedengine.SeedHealth{State: seedengine.HealthUnknown}
	if sd.Health != nil {
		before = *sd.Health
	}
	_, due, err := s.store.FindSeedHealth(ctx, seedID)
	if err != nil {
		return seedengine.SeedCheck{}, hs, fmt.Errorf("check seed: %w", err)
	}
	c, items := s.checker.Read(ctx, *sd, prev)
	if !due.IsZero() && c.CheckedAt.After(due) {
		c.LateSeconds = c.CheckedAt.Sub(due).Seconds()
	}
	if ctx.Err() != nil {
		// Stopped (a shutdown, the job's timeout): not the entry's fault.
		return seedengine.SeedCheck{}, hs, ctx.Err()
	}
	paced := sd.Status == seedengine.SeedActive && harvests(sd.Fetch.Type)
	// The latest check that set a pace.
	var last *seedengine.SeedCheck
	for i := range recent {
		if recent[i].IntervalSeconds > 0 {
			last = &recent[i]
			break
		}
	}
	if !paced {
		items = nil
	}
	entry := len(items)
	gap := false
	if paced && entry >= 2 && prev != nil {
		// Every item new to the entry: some may have scrolled out since
		// the last read. Read them back from the archive, if any.
		unseen, first, err := s.store.UnseenInWindow(ctx, seedID, items)
		if err != nil {
			return seedengine.SeedCheck{}, hs, fmt.Errorf("check seed: %w", err)
		}
		gap = !first && unseen >= entry
		if gap && sd.Harvest.Archive != nil {
			rec, reads, reason := s.checker.Repair(ctx, *sd, prev.CheckedAt, items, s.store.KnownItems)
			items = append(items, rec...)
			c.RepairReads, c.RepairReason = reads, reason
			if ctx.Err() != nil {
				return seedengine.SeedCheck{}, hs, ctx.Err()
			}
		}
		if gap && (sd.Harvest.Archive == nil || c.RepairReason != "") {
			c.EstimatedMissed = entry / 2
		}
	}
	for i := range items {
		it := &items[i]
		it.SeedID, it.DomainID, it.Country, it.Category = sd.SeedID, sd.DomainID, sd.Country, sd.Category
		it.Source = seedengine.ItemSource{EntryURL: sd.Fetch.EntryURL, FetchType: sd.Fetch.Type, Document: it.Source.Document}
		it.FirstSeenAt = c.CheckedAt
	}
	// A plain sitemap lists a site's whole archive: its first read marks
	// it seen, and later reads harvest what it adds.
	baseline := last == nil && sd.Fetch.Type == seedengine.FetchSitemap
	decide := func(c *seedengine.SeedCheck, hist seedengine.ArrivalHistory) (seedengine.SeedHealth, time.Time) {
		next := c.CheckedAt.Add(s.Interval(sd))
		if paced {
			next = c.CheckedAt.Add(s.pace(sd, c, entry, last, hist))
		}
		h := Derive(append([]seedengine.SeedCheck{*c}, recent...), before, s.cfg.Now(), s.cfg.Thresholds)
		return h, next
	}
	recorded, h, err := s.store.RecordSeedCheck(ctx, &c, items, baseline, decide, inTx)
	if err != nil {
		return seedengine.SeedCheck{}, hs, fmt.Errorf("check seed: %w", err)
	}
	if c.CanonicalURL != "" {
		s.adoptSpelling(ctx, sd, c.CanonicalURL)
	}
	hs = [2]seedengine.SeedHealth{recorded, h}
	// WARN is for an operator to look at: a seed that turned bad. A first
	// check finding it healthy, or a recovery, is routine.
	level := slog.LevelInfo
	if recorded.State != h.State && h.State != seedengine.HealthHealthy && h.State != seedengine.HealthUnknown {
		level = slog.LevelWarn
	}
	s.cfg.Logger.LogAttrs(ctx, level, "seed checked", slog.String("event", "seed_checked"),
		slog.String("seed_id", seedID), slog.String("outcome", string(c.Outcome)), slog.Int("status", c.Status),
		slog.Int("harvested", c.Harvested), slog.Bool("possible_gap", c.PossibleGap), slog.Float64("interval_s", c.IntervalSeconds),
		slog.String("reason", c.Reason), slog.String("health", string(h.State)), slog.String("health_before", string(recorded.State)))
	return c, hs, nil
}

// harvests reports whether reads of a seed of fetch type t yield items.
func harvests(t seedengine.FetchType) bool {
	switch t {
	case seedengine.FetchRSS, seedengine.FetchAtom, seedengine.FetchJSONFeed, seedengine.FetchNewsSitemap, seedengine.FetchSitemap:
		return true
	}
	return false
}

// pace sets c's harvest pace (whether the read may have missed items,
// the arrival rate, the interval) and returns the time to the next read.
// window is the number of items the entry listed; last is the latest
// check that set a pace (nil before the first harvesting read); hist the
// seed's arrival history, this read's arrivals included.
func (s *Service) pace(sd *seedengine.Seed, c *seedengine.SeedCheck, window int, last *seedengine.SeedCheck, hist seedengine.ArrivalHistory) time.Duration {
	in := harvest.PaceInput{
		Window:     window,
		History:    hist,
		Now:        c.CheckedAt,
		First:      last == nil,
		DocRate:    c.ItemsPerDay / 24,
		CrawlDelay: time.Duration(sd.Policy.CrawlDelay * float64(time.Second)),
	}
	if c.NotModified {
		in.Window = c.Items // unchanged since the last read: nothing new
	}
	if a := sd.Harvest.Archive; a != nil {
		in.Archive = harvest.ArchiveCapacity(a.Kind, in.Window, MaxRepairPages)
		in.Repair = harvest.RepairCost(a.Kind)
	}
	if last != nil {
		in.PrevInterval = time.Duration(last.IntervalSeconds * float64(time.Second))
		// Every item new, on a read after the first: some may have
		// scrolled out unseen since the last one.
		in.Gap = window >= 2 && c.Unseen >= window
	}
	// A gap stays possible unless a repair found the last known item
	// again.
	c.PossibleGap = in.Gap && (sd.Harvest.Archive == nil || c.RepairReads == 0 || c.RepairReason != "")
	// Reads that come late (a busy queue, the round) are asked for as
	// much earlier as the last two came late.
	pc := s.cfg.Pace
	late := c.LateSeconds
	if last != nil {
		late = max(late, last.LateSeconds)
	}
	pc.Lag = max(pc.Lag, time.Duration(late*float64(time.Second)))
	interval, rate := harvest.Pace(pc, in)
	c.ArrivalsPerHour, c.IntervalSeconds = rate, interval.Seconds()
	return interval
}

// adoptSpelling proposes sd's contract with the entry URL its permanent
// redirects respell it to (https, www.): a quiet proposal, no alert and
// no change of health; a person applies it like any other. A failure is
// logged and tried again by the next check.
func (s *Service) adoptSpelling(ctx context.Context, sd *seedengine.Seed, entry string) {
	if sd.Fetch.EntryURL == entry {
		return
	}
	p := *sd
	p.Fetch.EntryURL = entry
	p.History, p.Health = nil, nil
	out, err := s.store.RecordDraftSeed(ctx, &p, "seed_check:canonical", "")
	if err != nil {
		s.cfg.Logger.Warn("propose the entry's canonical spelling", "event", "seed_canonical_failed", "seed_id", sd.SeedID, "err", err)
		return
	}
	s.cfg.Logger.Info("proposed the entry's canonical spelling", "event", "seed_canonical_proposed", "seed_id", sd.SeedID,
		"entry_url", entry, "proposed_version", out.ProposedVersion)
}

// Drift proposes a new contract for a seed whose health turned moved,
// gone, failing or stale. A moved seed whose redirect target the check
// read as the seed's type gets its contract with the new entry URL as a
// proposed version at once. The others get a contract batch of their one
// domain, whose run records what it finds as a proposed version. Either
// way a person applies it; an active seed is never changed by it. The
// batch's params name the seed and the change. A seed no longer active or
// suspended gets none. It logs at INFO: the change was logged at WARN.
func (s *Service) Drift(ctx context.Context, c seedengine.SeedHealthChange) error {
	sd, err := s.store.FindSeedByID(ctx, c.SeedID)
	if err != nil {
		return fmt.Errorf("seed drift: %w", err)
	}
	if sd.Status != seedengine.SeedActive && sd.Status != seedengine.SeedSuspended {
		return nil
	}
	if c.To == seedengine.HealthMoved && c.MovedTo != "" {
		// The check read the redirect target as the seed's type: propose
		// the seed's contract with the new entry.
		p := *sd
		p.Fetch.EntryURL = c.MovedTo
		p.History, p.Health = nil, nil
		out, err := s.store.RecordDraftSeed(ctx, &p, "seed_check:moved", "")
		if err != nil {
			return fmt.Errorf("seed drift: propose %s: %w", c.MovedTo, err)
		}
		s.cfg.Logger.Info("proposed the moved seed's new entry", "event", "seed_drift_moved", "seed_id", c.SeedID,
			"moved_to", c.MovedTo, "proposed_version", out.ProposedVersion)
		return nil
	}
	if s.cfg.Batches == nil {
		return fmt.Errorf("seed drift: no batch service")
	}
	b, chunks, err := DriftBatch(sd, c, s.cfg.Now())
	if err != nil {
		return err
	}
	if err := s.cfg.Batches.CreateBatch(ctx, b, chunks); seedengine.ErrorCode(err) == seedengine.ECONFLICT {
		// A run of this job cut short after creating the batch.
		return nil
	} else if err != nil {
		return fmt.Errorf("seed drift: %w", err)
	}
	s.cfg.Logger.Info("queued a contract run for a drifting seed", "event", "seed_drift_contract", "seed_id", c.SeedID,
		"from", string(c.From), "to", string(c.To), "batch_id", b.ID)
	return nil
}

// driftNamespace names the drift batches' ids (UUID version 5).
var driftNamespace = uuid.MustParse("5d7c1f0e-2b8a-4c1e-9a57-6f3e2d1c0b9a")

// DriftBatch is the one-domain contract batch that runs a drifting seed's
// contract again. Its id derives from the seed and the check that
// changed its health, so a drift job run twice creates it once.
func DriftBatch(sd *seedengine.Seed, c seedengine.SeedHealthChange, now time.Time) (*seedengine.Batch, []*seedengine.BatchChunk, error) {
	params, err := json.Marshal(map[string]any{
		"date":  now.UTC().Format(seedengine.DateLayout),
		"drift": c,
	})
	if err != nil {
		return nil, nil, err
	}
	input, err := json.Marshal(contract.ChunkInput{DomainIDs: []string{sd.DomainID}})
	if err != nil {
		return nil, nil, err
	}
	id := uuid.NewSHA1(driftNamespace, []byte(c.SeedID+"\x00"+strconv.FormatInt(c.CheckID, 10)))
	b := &seedengine.Batch{ID: id.String(), Kind: seedengine.BatchContract, Country: sd.Country, Category: sd.Category, ChunkSize: 1, Params: params}
	return b, []*seedengine.BatchChunk{{Input: input, Items: 1}}, nil
}

// DueSeeds lists up to limit active or suspended seeds whose check is due.
func (s *Service) DueSeeds(ctx context.Context, limit int) ([]string, error) {
	return s.store.DueSeedChecks(ctx, s.cfg.Now(), []seedengine.SeedStatus{seedengine.SeedActive, seedengine.SeedSuspended}, limit)
}

// DueSeed reports whether a seed's check is due: never checked, or its
// next check's time has come.
func (s *Service) DueSeed(ctx context.Context, seedID string) (bool, error) {
	_, next, err := s.store.FindSeedHealth(ctx, seedID)
	if err != nil {
		return false, err
	}
	return next.IsZero() || !next.After(s.cfg.Now()), nil
}

// PruneChecks deletes the checks older than the retention.
func (s *Service) PruneChecks(ctx context.Context) error {
	n, err := s.store.DeleteSeedChecksBefore(ctx, s.cfg.Now().Add(-s.cfg.Retention))
	if err != nil {
		return err
	}
	if n > 0 {
		s.cfg.Logger.Info("deleted old seed checks", "event", "seed_checks_pruned", "checks", n)
	}
	return nil
}

// Interval is the time from one check of sd to the next: its schedule's
// period within [MinInterval, MaxInterval], or SuspendedInterval for a
// suspended seed.
func (s *Service) Interval(sd *seedengine.Seed) time.Duration {
	if sd.Status == seedengine.SeedSuspended {
		return s.cfg.SuspendedInterval
	}
	return min(max(CronPeriod(sd.Fetch.Schedule), s.cfg.MinInterval), s.cfg.MaxInterval)
}

// CronPeriod estimates how often a cron expression fires: the macros'
// periods, a step in the minute or hour field, the number of hours listed,
// or a day when it cannot tell.
func CronPeriod(expr string) time.Duration {
	switch strings.ToLower(strings.TrimSpace(expr)) {
	case "@hourly":
		return time.Hour
	case "@daily", "@midnight":
		return 24 * time.Hour
	case "@weekly":
		return 7 * 24 * time.Hour
	case "@monthly":
		return 30 * 24 * time.Hour
	case "@yearly", "@annually":
		return 365 * 24 * time.Hour
	}
	f := strings.Fields(expr)
	if len(f) != 5 {
		return 24 * time.Hour
	}
	minute, hour := f[0], f[1]
	if _, step, ok := strings.Cut(minute, "/"); ok && hour == "*" {
		if n, err := strconv.Atoi(step); err == nil && n > 0 {
			return time.Duration(n) * time.Minute
		}
	}
	if hour == "*" {
		return time.Hour
	}
	if _, step, ok := strings.Cut(hour, "/"); ok {
		if n, err := strconv.Atoi(step); err == nil && n > 0 {
			return time.Duration(n) * time.Hour
		}
	}
	if n := len(strings.Split(hour, ",")); n > 1 && !strings.Contains(hour, "-") {
		return 24 * time.Hour / time.Duration(n)
	}
	return 24 * time.Hour
}
