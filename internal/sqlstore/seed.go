package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/seedengine/seedengine"
)

// Seed list limits (DESIGN §6).
const (
	defaultSeedLimit = 50
	maxSeedLimit     = 100
)

// maxSeedReason bounds the reason stored with a transition.
const maxSeedReason = 500

const seedColumns = `seed_id, domain_id, country, category, content_type, status, version,
	proposed_version, confidence, source_json, fetch_json, policy_json, evidence_json, metadata_json, created_at, updated_at, promoted_at, harvest_json`

// SeedService stores seeds in three tables: seeds (one row per seed),
// seed_versions (every contract, numbered per seed) and seed_transitions
// (status changes). A fourth, seed_counts, counts seeds by every list
// filter but domain_id and is kept exact in the transaction of each write,
// so a list's total costs a sum over a few rows rather than a count over
// up to every seed.
//
// Every write reads the seed row first with a row lock on PostgreSQL
// (FOR UPDATE) and then writes; on SQLite the single writer serialises
// writes. So two concurrent updates of a seed apply one after the other
// and neither is lost. A write takes the seed row before any seed_counts
// row, and at most two of those in key order, so concurrent writes cannot
// deadlock on them.
//
// Versions: a seed's version is the number of its current contract. A
// new number is always max(version)+1 over the seed's seed_versions rows,
// proposals included, so numbers never repeat. UpdateSeed clears the
// pending proposal (proposed_version) when the new contract equals it —
// the proposal has been applied — and keeps it otherwise.
type SeedService struct {
	db *DB
}

var _ seedengine.SeedService = (*SeedService)(nil)

// NewSeedService returns a SeedService on db.
func NewSeedService(db *DB) *SeedService { return &SeedService{db: db} }

// CreateSeed normalises and validates s, sets it to draft at version 1
// with fresh timestamps, and writes it with its first version and a
// "create" transition by actor; s is updated to what was stored, History
// included. EINVALID naming the field; ECONFLICT when the seed_id exists.
func (s *SeedService) CreateSeed(ctx context.Context, sd *seedengine.Seed, actor string) error {
	if err := prepareNewSeed(sd); err != nil {
		return err
	}
	err := s.db.inTx(ctx, func(tx *sql.Tx) error {
		inserted, err := s.insertSeed(ctx, tx, sd, actor, "")
		if err != nil {
			return err
		}
		if !inserted {
			return seedengine.Errorf(seedengine.ECONFLICT, "a seed with this domain_id and content_type exists")
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("create seed %q: %w", seedengine.Truncate(sd.SeedID, 300), err)
	}
	return nil
}

// ImportSeed implements seedengine.SeedService.
func (s *SeedService) ImportSeed(ctx context.Context, sd *seedengine.Seed, actor, batchID string) (bool, error) {
	if err := prepareNewSeed(sd); err != nil {
		return false, err
	}
	var created bool
	err := s.db.inTx(ctx, func(tx *sql.Tx) (err error) {
		created, err = s.insertSeed(ctx, tx, sd, actor, batchID)
		return err
	})
	if err != nil {
		return false, fmt.Errorf("import seed %q: %w", seedengine.Truncate(sd.SeedID, 300), err)
	}
	return created, nil
}

// prepareNewSeed normalises and validates a seed about to be created.
func prepareNewSeed(sd *seedengine.Seed) error {
	sd.Normalize()
	sd.Status = seedengine.SeedDraft
	if err := sd.Validate(); err != nil {
		return err
	}
	now := nowUTC()
	sd.Version, sd.ProposedVersion = 1, 0
	sd.CreatedAt, sd.UpdatedAt, sd.PromotedAt = now, now, nil
	return nil
}

// insertSeed writes a new draft seed with its first version and create
// transition. It reports false, having written nothing, when the seed
// exists (on PostgreSQL after waiting for a concurrent insert of it).
func (s *SeedService) insertSeed(ctx context.Context, tx *sql.Tx, sd *seedengine.Seed, actor, batchID string) (bool, error) {
	args, err := s.seedArgs(sd)
	if err != nil {
		return false, err
	}
	res, err := tx.ExecContext(ctx, `INSERT INTO seeds (`+seedColumns+`, source_type, fetch_type, domain, search)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22)
		ON CONFLICT (seed_id) DO NOTHING`, args...)
	if err != nil {
		if isUniqueViolation(err) {
			return false, nil
		}
		return false, err
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return false, err
	}
	if err := s.insertVersion(ctx, tx, sd, sd.Version, seedengine.SeedVersionCurrent, sd.Contract(), actor, batchID); err != nil {
		return false, err
	}
	t := seedengine.SeedTransition{Action: "create", To: seedengine.SeedDraft, At: sd.CreatedAt, Actor: actor}
	if err := s.insertTransition(ctx, tx, sd.SeedID, t); err != nil {
		return false, err
	}
	if err := s.count(ctx, tx, nil, countKeyOf(sd)); err != nil {
		return false, err
	}
	sd.History = []seedengine.SeedTransition{t}
	return true, nil
}

// seedArgs are the values of seedColumns, then source_type, fetch_type,
// domain and search.
func (s *SeedService) seedArgs(sd *seedengine.Seed) ([]any, error) {
	var docs [5][]byte
	for i, v := range []any{sd.Source, sd.Fetch, sd.Policy, sd.Evidence, sd.Harvest} {
		b, err := json.Marshal(v)
		if err != nil {
			return nil, fmt.Errorf("encode seed: %w", err)
		}
		docs[i] = b
	}
	var metadata any
	if sd.Metadata != nil {
		b, err := json.Marshal(sd.Metadata)
		if err != nil {
			return nil, seedengine.FieldErrorf("metadata", "metadata must be a JSON object")
		}
		metadata = string(b)
	}
	return []any{sd.SeedID, sd.DomainID, sd.Country, sd.Category, sd.ContentType, string(sd.Status), sd.Version,
		sd.ProposedVersion, sd.Confidence, string(docs[0]), string(docs[1]), string(docs[2]), string(docs[3]), metadata,
		s.db.timeArg(sd.CreatedAt), s.db.timeArg(sd.UpdatedAt), s.db.timePtrArg(sd.PromotedAt), string(docs[4]),
		string(sd.Source.SourceType), string(sd.Fetch.Type), sd.Source.Domain, searchText(sd)}, nil
}

// searchText is what the list's q matches: the seed's domain and source
// name in lower case.
func searchText(sd *seedengine.Seed) string {
	return strings.ToLower(sd.Source.Domain + " " + sd.Source.Name)
}

// writeSeed rewrites an existing seed's row from sd.
func (s *SeedService) writeSeed(ctx context.Context, tx *sql.Tx, sd *seedengine.Seed) error {
	args, err := s.seedArgs(sd)
	if err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, `UPDATE seeds SET domain_id = $2, country = $3, category = $4, content_type = $5,
		status = $6, version = $7, proposed_version = $8, confidence = $9, source_json = $10, fetch_json = $11, policy_json = $12,
		evidence_json = $13, metadata_json = $14, created_at = $15, updated_at = $16, promoted_at = $17, harvest_json = $18,
		source_type = $19, fetch_type = $20, domain = $21, search = $22
		WHERE seed_id = $1`, args...)
	if err != nil {
		return fmt.Errorf("write seed: %w", err)
	}
	return nil
}

func (s *SeedService) insertVersion(ctx context.Context, tx *sql.Tx, sd *seedengine.Seed, version int, state seedengine.SeedVersionState, c seedengine.SeedContract, actor, batchID string) error {
	contract, err := json.Marshal(c)
	if err != nil {
		return fmt.Errorf("encode contract: %w", err)
	}
	evidence, err := json.Marshal(sd.Evidence)
	if err != nil {
		return fmt.Errorf("encode evidence: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO seed_versions
		(seed_id, version, state, contract, confidence, evidence, actor, batch_id, created_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
		sd.SeedID, version, string(state), string(contract), sd.Confidence, string(evidence), actor, batchID,
		s.db.timeArg(sd.UpdatedAt)); err != nil {
		return fmt.Errorf("write version %d: %w", version, err)
	}
	return nil
}

func (s *SeedService) insertTransition(ctx context.Context, tx *sql.Tx, id string, t seedengine.SeedTransition) error {
	if _, err := tx.ExecContext(ctx, `INSERT INTO seed_transitions (seed_id, action, from_status, to_status, at, actor, reason_code, reason)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
		id, t.Action, string(t.From), string(t.To), s.db.timeArg(t.At), t.Actor, string(t.ReasonCode), t.Reason); err != nil {
		return fmt.Errorf("write transition: %w", err)
	}
	return nil
}

// countKey is a seed_counts row: the seed's value of every counted filter.
type countKey [5]string

func countKeyOf(sd *seedengine.Seed) *countKey {
	return &countKey{sd.Country, sd.Category, string(sd.Status), string(sd.Source.SourceType), string(sd.Fetch.Type)}
}

// count moves one seed from the counts row from to the row to; either may
// be nil (a new seed has no from). Rows are written in key order.
func (s *SeedService) count(ctx context.Context, tx *sql.Tx, from, to *countKey) error {
	if from != nil && to != nil && *from == *to {
		return nil
	}
	type delta struct {
		k countKey
		n int
	}
	var ds []delta
	if from != nil {
		ds = append(ds, delta{*from, -1})
	}
	if to != nil {
		ds = append(ds, delta{*to, 1})
	}
	if len(ds) == 2 && strings.Join(ds[1].k[:], "\x00") < strings.Join(ds[0].k[:], "\x00") {
		ds[0], ds[1] = ds[1], ds[0]
	}
	for _, d := range ds {
		if _, err := tx.ExecContext(ctx, `INSERT INTO seed_counts (country, category, status, source_type, fetch_type, n)
			VALUES ($1, $2, $3, $4, $5, $6)
			ON CONFLICT (country, category, status, source_type, fetch_type) DO UPDATE SET n = seed_counts.n + excluded.n`,
			d.k[0], d.k[1], d.k[2], d.k[3], d.k[4], d.n); err != nil {
			return fmt.Errorf("count seeds: %w", err)
		}
	}
	return nil
}

// lockSeed reads a seed for a write in tx: ENOTFOUND when there is none.
func (s *SeedService) lockSeed(ctx context.Context, tx *sql.Tx, id string) (*seedengine.Seed, error) {
	sd, err := scanSeed(tx.QueryRowContext(ctx, `SELECT `+seedColumns+` FROM seeds WHERE seed_id = $1`+s.db.forUpdate(), id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, seedNotFound()
	}
	if err != nil {
		return nil, err
	}
	return sd, nil
}

func seedNotFound() error {
	return seedengine.Errorf(seedengine.ENOTFOUND, "seed not found")
}

// nextVersion is the number a new version of a seed gets.
func nextVersion(ctx context.Context, tx *sql.Tx, id string) (int, error) {
	var v int
	if err := tx.QueryRowContext(ctx, `SELECT COALESCE(MAX(version), 0) FROM seed_versions WHERE seed_id = $1`, id).Scan(&v); err != nil {
		return 0, fmt.Errorf("next version: %w", err)
	}
	return v + 1, nil
}

// newCurrentVersion records c as sd's new current contract: the old
// current version is superseded and sd.Version is the new number.
func (s *SeedService) newCurrentVersion(ctx context.Context, tx *sql.Tx, sd *seedengine.Seed, actor, batchID string) error {
	v, err := nextVersion(ctx, tx, sd.SeedID)
	if err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `UPDATE seed_versions SET state = 'superseded' WHERE seed_id = $1 AND state = 'current'`, sd.SeedID); err != nil {
		return fmt.Errorf("supersede version: %w", err)
	}
	sd.Version = v
	return s.insertVersion(ctx, tx, sd, v, seedengine.SeedVersionCurrent, sd.Contract(), actor, batchID)
}

// findVersion returns one recorded version's contract; ok is false when
// there is no such version.
func findVersion(ctx context.Context, tx *sql.Tx, id string, version int) (c seedengine.SeedContract, ok bool, err error) {
	var raw []byte
	err = tx.QueryRowContext(ctx, `SELECT contract FROM seed_versions WHERE seed_id = $1 AND version = $2`, id, version).Scan(&raw)
	if errors.Is(err, sql.ErrNoRows) {
		return c, false, nil
	}
	if err != nil {
		return c, false, err
	}
	if err := json.Unmarshal(raw, &c); err != nil {
		return c, false, fmt.Errorf("decode version %d: %w", version, err)
	}
	return c, true, nil
}

// UpdateSeed calls fn with a copy of the seed and writes the result in one
// transaction, returning the seed as stored with its History. Identity
// (seed_id, domain_id, content_type, country) and status cannot change:
// EINVALID naming the field. Version, proposed_version and the timestamps
// are the store's and are reset from the stored seed. The version goes up
// (to max(version)+1), with a new current version by actor, only when the
// contract changed; a pending proposal equal to the new contract is
// cleared. ENOTFOUND when there is no seed; fn's error is returned as it
// is.
func (s *SeedService) UpdateSeed(ctx context.Context, id, actor string, fn func(*seedengine.Seed) error) (*seedengine.Seed, error) {
	var out *seedengine.Seed
	err := s.db.inTx(ctx, func(tx *sql.Tx) error {
		old, err := s.lockSeed(ctx, tx, id)
		if err != nil {
			return err
		}
		sd, err := copySeed(old)
		if err != nil {
			return err
		}
		if err := fn(sd); err != nil {
			return err
		}
		if err := checkUnchangedIdentity(old, sd); err != nil {
			return err
		}
		sd.Version, sd.ProposedVersion = old.Version, old.ProposedVersion
		sd.CreatedAt, sd.PromotedAt, sd.History = old.CreatedAt, old.PromotedAt, nil
		sd.Normalize()
		if err := sd.Validate(); err != nil {
			return err
		}
		sd.UpdatedAt = nowUTC()
		if !sd.Contract().Equal(old.Contract()) {
			if err := s.newCurrentVersion(ctx, tx, sd, actor, ""); err != nil {
				return err
			}
			if sd.ProposedVersion > 0 {
				p, ok, err := findVersion(ctx, tx, sd.SeedID, sd.ProposedVersion)
				if err != nil {
					return err
				}
				if ok && p.Equal(sd.Contract()) {
					sd.ProposedVersion = 0
				}
			}
		}
		if err := s.writeSeed(ctx, tx, sd); err != nil {
			return err
		}
		if err := s.count(ctx, tx, countKeyOf(old), countKeyOf(sd)); err != nil {
			return err
		}
		if sd.History, err = s.history(ctx, tx, sd.SeedID); err != nil {
			return err
		}
		out = sd
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("update seed %q: %w", seedengine.Truncate(id, 300), err)
	}
	return out, nil
}

// checkUnchangedIdentity refuses changes to what names a seed and to its
// status, which only TransitionSeed changes.
func checkUnchangedIdentity(old, sd *seedengine.Seed) error {
	for _, f := range []struct{ name, was, is string }{
		{"seed_id", old.SeedID, sd.SeedID},
		{"domain_id", old.DomainID, sd.DomainID},
		{"content_type", old.ContentType, sd.ContentType},
		{"country", old.Country, sd.Country},
	} {
		if f.was != f.is {
			return seedengine.FieldErrorf(f.name, "%s cannot change (it is %q); create a new seed instead", f.name, seedengine.Truncate(f.was, 300))
		}
	}
	if old.Status != sd.Status {
		return seedengine.FieldErrorf("status", "status cannot be updated; use promote, suspend, reactivate or archive")
	}
	return nil
}

// copySeed deep-copies a seed, so fn cannot reach the stored one through
// maps or pointers.
func copySeed(sd *seedengine.Seed) (*seedengine.Seed, error) {
	cp := *sd
	if sd.Fetch.Selectors != nil {
		cp.Fetch.Selectors = make(map[string]string, len(sd.Fetch.Selectors))
		for k, v := range sd.Fetch.Selectors {
			cp.Fetch.Selectors[k] = v
		}
	}
	if sd.Metadata != nil {
		b, err := json.Marshal(sd.Metadata)
		if err != nil {
			return nil, fmt.Errorf("copy metadata: %w", err)
		}
		cp.Metadata = nil
		if err := json.Unmarshal(b, &cp.Metadata); err != nil {
			return nil, fmt.Errorf("copy metadata: %w", err)
		}
	}
	if sd.Evidence.Newest != nil {
		t := *sd.Evidence.Newest
		cp.Evidence.Newest = &t
	}
	if sd.Evidence.CheckedAt != nil {
		t := *sd.Evidence.CheckedAt
		cp.Evidence.CheckedAt = &t
	}
	if sd.PromotedAt != nil {
		t := *sd.PromotedAt
		cp.PromotedAt = &t
	}
	cp.History = append([]seedengine.SeedTransition(nil), sd.History...)
	return &cp, nil
}

// TransitionSeed applies a lifecycle action and records the transition
// with actor and reason (at most 500 bytes), returning the seed with its
// History. Promotion sets promoted_at. ECONFLICT naming the current status
// when the action does not apply; EINVALID for an unknown action, a long
// reason or a rejection (RejectSeed records those, with their code);
// ENOTFOUND.
func (s *SeedService) TransitionSeed(ctx context.Context, id string, action seedengine.SeedAction, actor, reason string) (*seedengine.Seed, error) {
	if action == seedengine.SeedReject {
		return nil, seedengine.FieldErrorf("reason_code", "a rejection needs a reason_code")
	}
	return s.transition(ctx, id, action, actor, "", reason)
}

// RejectSeed rejects a draft: the transition "reject" with its reason
// code and note. EINVALID naming reason_code or reason; ECONFLICT when the
// seed is not a draft; ENOTFOUND.
func (s *SeedService) RejectSeed(ctx context.Context, id string, code seedengine.RejectReason, note, actor string) (*seedengine.Seed, error) {
	if !code.Valid() {
		return nil, seedengine.FieldErrorf("reason_code", "reason_code must be one of not_relevant, duplicate, wrong_entry, low_quality, not_allowed, other")
	}
	return s.transition(ctx, id, seedengine.SeedReject, actor, code, note)
}

func (s *SeedService) transition(ctx context.Context, id string, action seedengine.SeedAction, actor string, code seedengine.RejectReason, reason string) (*seedengine.Seed, error) {
	if action.Target() == "" {
		return nil, seedengine.CheckSeedTransition(id, "", action)
	}
	if len(reason) > maxSeedReason {
		return nil, seedengine.FieldErrorf("reason", "reason is longer than %d bytes", maxSeedReason)
	}
	var out *seedengine.Seed
	err := s.db.inTx(ctx, func(tx *sql.Tx) error {
		sd, err := s.lockSeed(ctx, tx, id)
		if err != nil {
			return err
		}
		if err := seedengine.CheckSeedTransition(sd.SeedID, sd.Status, action); err != nil {
			return err
		}
		t := seedengine.SeedTransition{Action: string(action), From: sd.Status, To: action.Target(), Actor: actor, ReasonCode: code, Reason: reason}
		if err := s.setStatus(ctx, tx, sd, t); err != nil {
			return err
		}
		if sd.History, err = s.history(ctx, tx, sd.SeedID); err != nil {
			return err
		}
		out = sd
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("%s seed %q: %w", action, seedengine.Truncate(id, 300), err)
	}
	return out, nil
}

// setStatus moves sd to t.To in tx, now, and records t.
func (s *SeedService) setStatus(ctx context.Context, tx *sql.Tx, sd *seedengine.Seed, t seedengine.SeedTransition) error {
	from := countKeyOf(sd)
	now := nowUTC()
	t.At = now
	sd.Status, sd.UpdatedAt = t.To, now
	if t.Action == string(seedengine.SeedPromote) {
		sd.PromotedAt = &now
	}
	if _, err := tx.ExecContext(ctx, `UPDATE seeds SET status = $2, updated_at = $3, promoted_at = $4 WHERE seed_id = $1`,
		sd.SeedID, string(sd.Status), s.db.timeArg(now), s.db.timePtrArg(sd.PromotedAt)); err != nil {
		return fmt.Errorf("write status: %w", err)
	}
	if err := s.insertTransition(ctx, tx, sd.SeedID, t); err != nil {
		return err
	}
	return s.count(ctx, tx, from, countKeyOf(sd))
}

// RecordDraftSeed writes what a contract run found for a seed, in one
// transaction: a new draft when none exists (SeedCreated, the create
// transition by actor); for a draft, its source, category, fetch, policy,
// evidence and confidence replaced by the finding's and its metadata kept,
// with a new version only when the contract changed (SeedRefreshed); for
// an active, suspended or archived seed nothing but, when the finding's
// contract differs from the seed's and from its newest proposal, a new
// proposed version, which becomes the seed's proposed_version (SeedKept).
// s is normalised and validated as for CreateSeed; its status is ignored.
func (s *SeedService) RecordDraftSeed(ctx context.Context, in *seedengine.Seed, actor, batchID string) (seedengine.SeedRecordOutcome, error) {
	sd, err := copySeed(in)
	if err != nil {
		return seedengine.SeedRecordOutcome{}, err
	}
	if err := prepareNewSeed(sd); err != nil {
		return seedengine.SeedRecordOutcome{}, err
	}
	var out seedengine.SeedRecordOutcome
	err = s.db.inTx(ctx, func(tx *sql.Tx) error {
		inserted, err := s.insertSeed(ctx, tx, sd, actor, batchID)
		if err != nil {
			return err
		}
		if inserted {
			out = seedengine.SeedRecordOutcome{Result: seedengine.SeedCreated, Version: sd.Version}
			return nil
		}
		old, err := s.lockSeed(ctx, tx, sd.SeedID)
		if err != nil {
			return err
		}
		// A run may turn page fetching on (its batch asked for it), never
		// off: that stays a person's choice.
		sd.Harvest.Pages = sd.Harvest.Pages || old.Harvest.Pages
		switch old.Status {
		case seedengine.SeedDraft:
			return s.refreshDraft(ctx, tx, old, sd, actor, batchID, &out)
		case seedengine.SeedRejected:
			return s.reconsider(ctx, tx, old, sd, actor, batchID, &out)
		}
		return s.propose(ctx, tx, old, sd, actor, batchID, &out)
	})
	if err != nil {
		return seedengine.SeedRecordOutcome{}, fmt.Errorf("record seed %q: %w", seedengine.Truncate(sd.SeedID, 300), err)
	}
	return out, nil
}

func (s *SeedService) refreshDraft(ctx context.Context, tx *sql.Tx, old, found *seedengine.Seed, actor, batchID string, out *seedengine.SeedRecordOutcome) error {
	sd, err := copySeed(old)
	if err != nil {
		return err
	}
	sd.Category, sd.Source, sd.Fetch, sd.Policy, sd.Harvest = found.Category, found.Source, found.Fetch, found.Policy, found.Harvest
	sd.Evidence, sd.Confidence = found.Evidence, found.Confidence
	sd.UpdatedAt = nowUTC()
	if !sd.Contract().Equal(old.Contract()) {
		if err := s.newCurrentVersion(ctx, tx, sd, actor, batchID); err != nil {
			return err
		}
	}
	if err := s.writeSeed(ctx, tx, sd); err != nil {
		return err
	}
	if err := s.count(ctx, tx, countKeyOf(old), countKeyOf(sd)); err != nil {
		return err
	}
	*out = seedengine.SeedRecordOutcome{Result: seedengine.SeedRefreshed, Version: sd.Version}
	return nil
}

// reconsider records a finding for a rejected seed: nothing when the run
// found the contract the seed was rejected with (a rejection stands until
// the evidence changes), else the seed is reopened as a draft with the
// new contract, the transition "reopen" by actor saying why.
func (s *SeedService) reconsider(ctx context.Context, tx *sql.Tx, old, found *seedengine.Seed, actor, batchID string, out *seedengine.SeedRecordOutcome) error {
	if found.Contract().Equal(old.Contract()) {
		*out = seedengine.SeedRecordOutcome{Result: seedengine.SeedKept, Version: old.Version, Reason: "rejected_seed_kept"}
		return nil
	}
	t := seedengine.SeedTransition{Action: string(seedengine.SeedReopen), From: old.Status, To: seedengine.SeedDraft, Actor: actor,
		Reason: "a contract run found a different entry than the rejected one"}
	if err := s.setStatus(ctx, tx, old, t); err != nil {
		return err
	}
	if err := s.refreshDraft(ctx, tx, old, found, actor, batchID, out); err != nil {
		return err
	}
	out.Result = seedengine.SeedReopened
	return nil
}

func (s *SeedService) propose(ctx context.Context, tx *sql.Tx, old, found *seedengine.Seed, actor, batchID string, out *seedengine.SeedRecordOutcome) error {
	*out = seedengine.SeedRecordOutcome{Result: seedengine.SeedKept, Version: old.Version, Reason: string(old.Status) + "_seed_kept"}
	c := found.Contract()
	if c.Equal(old.Contract()) {
		return nil
	}
	var raw []byte
	var pending int
	err := tx.QueryRowContext(ctx, `SELECT version, contract FROM seed_versions WHERE seed_id = $1 AND state = 'proposed'
		ORDER BY version DESC LIMIT 1`, old.SeedID).Scan(&pending, &raw)
	switch {
	case errors.Is(err, sql.ErrNoRows):
	case err != nil:
		return fmt.Errorf("find proposal: %w", err)
	default:
		var p seedengine.SeedContract
		if err := json.Unmarshal(raw, &p); err != nil {
			return fmt.Errorf("decode proposal: %w", err)
		}
		if p.Equal(c) {
			// Already the pending proposal (a run repeated after a
			// crash, or another batch finding the same): nothing new,
			// but the outcome names it as the first run's did.
			out.ProposedVersion = pending
			return nil
		}
	}
	v, err := nextVersion(ctx, tx, old.SeedID)
	if err != nil {
		return err
	}
	found.UpdatedAt = nowUTC()
	if err := s.insertVersion(ctx, tx, found, v, seedengine.SeedVersionProposed, c, actor, batchID); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `UPDATE seeds SET proposed_version = $2 WHERE seed_id = $1`, old.SeedID, v); err != nil {
		return fmt.Errorf("write proposed version: %w", err)
	}
	out.Version, out.ProposedVersion = v, v
	return nil
}

// FindSeedByID returns a seed with its History, oldest first. ENOTFOUND
// when there is none.
func (s *SeedService) FindSeedByID(ctx context.Context, id string) (*seedengine.Seed, error) {
	sd, err := scanSeed(s.db.reader.QueryRowContext(ctx, `SELECT `+seedColumns+` FROM seeds WHERE seed_id = $1`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, seedNotFound()
	}
	if err != nil {
		return nil, fmt.Errorf("find seed %q: %w", seedengine.Truncate(id, 300), err)
	}
	if sd.History, err = s.history(ctx, s.db.reader, id); err != nil {
		return nil, fmt.Errorf("find seed %q: %w", seedengine.Truncate(id, 300), err)
	}
	h, _, err := s.FindSeedHealth(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("find seed %q: %w", seedengine.Truncate(id, 300), err)
	}
	if h.State != seedengine.HealthUnknown {
		sd.Health = &h
	}
	return sd, nil
}

func (s *SeedService) history(ctx context.Context, q queryer, id string) ([]seedengine.SeedTransition, error) {
	rows, err := q.QueryContext(ctx, `SELECT action, from_status, to_status, at, actor, reason_code, reason
		FROM seed_transitions WHERE seed_id = $1 ORDER BY id`, id)
	if err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	defer func() { _ = rows.Close() }()
	out := []seedengine.SeedTransition{}
	for rows.Next() {
		var (
			t              seedengine.SeedTransition
			from, to, code string
			at             scanTime
		)
		if err := rows.Scan(&t.Action, &from, &to, &at, &t.Actor, &code, &t.Reason); err != nil {
			return nil, fmt.Errorf("history: %w", err)
		}
		t.From, t.To, t.At, t.ReasonCode = seedengine.SeedStatus(from), seedengine.SeedStatus(to), at.Time, seedengine.RejectReason(code)
		out = append(out, t)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	return out, nil
}

// FindSeeds returns seeds matching f ordered by seed_id (byte order on
// both engines), without History, and the total number matching f.
// Limit defaults to 50 and is capped at 100. The country is matched in
// any case. EINVALID naming the filter (country, category, status,
// source_type, fetch_type, domain_id) for an invalid one.
func (s *SeedService) FindSeeds(ctx context.Context, f seedengine.SeedFilter) ([]*seedengine.Seed, int, error) {
	var (
		where []string
		args  []any
	)
	eq := func(col, v string) {
		args = append(args, v)
		where = append(where, col+" = $"+strconv.Itoa(len(args)))
	}
	if f.Country != "" {
		c := seedengine.NormalizeCountry(f.Country)
		if err := seedengine.ValidateCountry(c); err != nil {
			return nil, 0, err
		}
		eq("country", c)
	}
	if f.Category != "" {
		if err := seedengine.ValidateCategory(f.Category); err != nil {
			return nil, 0, err
		}
		eq("category", f.Category)
	}
	if f.Status != "" {
		if err := seedengine.ValidateSeedStatus("status", f.Status); err != nil {
			return nil, 0, err
		}
		eq("status", string(f.Status))
	}
	if f.SourceType != "" {
		if !f.SourceType.Valid() {
			return nil, 0, seedengine.FieldErrorf("source_type", "source_type must be one of government, organization, ngo, media, company, education, other")
		}
		eq("source_type", string(f.SourceType))
	}
	if f.FetchType != "" {
		if !f.FetchType.Valid() {
			return nil, 0, seedengine.FieldErrorf("fetch_type", "fetch_type must be one of rss, atom, json_feed, news_sitemap, sitemap, html, api")
		}
		eq("fetch_type", string(f.FetchType))
	}
	counted := len(where) // the filters seed_counts can answer
	countArgs := len(args)
	if f.DomainID != "" {
		if _, _, _, err := seedengine.ParseDomainID(f.DomainID); err != nil {
			return nil, 0, err
		}
		// The seeds of a domain are a prefix range of the primary key:
		// "{domain_id}::" up to "{domain_id}:;" (";" follows ":").
		args = append(args, f.DomainID+"::", f.DomainID+":;")
		where = append(where, fmt.Sprintf("seed_id >= $%d AND seed_id < $%d", len(args)-1, len(args)))
	}
	if f.Authority != "" {
		if !f.Authority.Valid() {
			return nil, 0, seedengine.FieldErrorf("authority", "authority must be one of gov, mil, edu, ngo, org, media, com, other")
		}
		// A prefix range of the primary key too: "gov:" up to "gov;".
		args = append(args, string(f.Authority)+":", string(f.Authority)+";")
		where = append(where, fmt.Sprintf("seed_id >= $%d AND seed_id < $%d", len(args)-1, len(args)))
	}
	if f.MinConfidence != 0 {
		if f.MinConfidence < 0 || f.MinConfidence > 1 {
			return nil, 0, seedengine.FieldErrorf("min_confidence", "min_confidence must be between 0 and 1")
		}
		args = append(args, f.MinConfidence)
		where = append(where, "confidence >= $"+strconv.Itoa(len(args)))
	}
	if f.BatchID != "" {
		args = append(args, f.BatchID)
		where = append(where, "seed_id IN (SELECT seed_id FROM seed_versions WHERE batch_id = $"+strconv.Itoa(len(args))+")")
	}
	switch f.Health {
	case "":
	case seedengine.HealthUnknown:
		where = append(where, "seed_id NOT IN (SELECT seed_id FROM seed_health)")
	case seedengine.HealthHealthy, seedengine.HealthStale, seedengine.HealthFailing, seedengine.HealthBlocked, seedengine.HealthMoved, seedengine.HealthGone:
		args = append(args, string(f.Health))
		where = append(where, "seed_id IN (SELECT seed_id FROM seed_health WHERE state = $"+strconv.Itoa(len(args))+")")
	default:
		return nil, 0, seedengine.FieldErrorf("health", "health must be one of unknown, healthy, stale, failing, blocked, moved, gone")
	}
	if err := seedengine.ValidateSeedListQuery(f.Q, f.Sort); err != nil {
		return nil, 0, err
	}
	if q := strings.ToLower(strings.TrimSpace(f.Q)); q != "" {
		args = append(args, q)
		where = append(where, s.db.contains("search", "$"+strconv.Itoa(len(args))))
	}
	col, desc := sortColumn(f.Sort)
	total := -1 // not counted yet
	if f.Before != "" {
		if f.After != "" || f.Offset != 0 {
			return nil, 0, seedengine.FieldErrorf("before", "before pages on its own: not with after or offset")
		}
		var err error
		if total, err = s.countSeeds(ctx, f, where, args, counted, countArgs); err != nil {
			return nil, 0, err
		}
		args = append(args, f.Before)
		where = append(where, keyset(col, !desc, false, "$"+strconv.Itoa(len(args))))
	}
	if f.After != "" {
		if f.Offset != 0 {
			return nil, 0, seedengine.FieldErrorf("offset", "offset must be 0 when paging with after")
		}
		// The total ignores the cursor: count before adding it.
		var err error
		if total, err = s.countSeeds(ctx, f, where, args, counted, countArgs); err != nil {
			return nil, 0, err
		}
		args = append(args, f.After)
		where = append(where, keyset(col, desc, true, "$"+strconv.Itoa(len(args))))
	}
	limit, offset := pageBounds(f.Limit, f.Offset, defaultSeedLimit, maxSeedLimit)
	cond := ""
	if len(where) > 0 {
		cond = " WHERE " + strings.Join(where, " AND ")
	}
	// Before reads the nearest seeds before the cursor, in the reverse
	// order, and turns them round below.
	order := orderBy(col, desc != (f.Before != ""), f.Before != "")
	rows, err := s.db.reader.QueryContext(ctx, `SELECT `+seedColumns+` FROM seeds`+cond+order+` LIMIT $`+
		strconv.Itoa(len(args)+1)+` OFFSET $`+strconv.Itoa(len(args)+2), append(args, limit, offset)...)
	if err != nil {
		return nil, 0, fmt.Errorf("find seeds: %w", err)
	}
	defer func() { _ = rows.Close() }()
	seeds := []*seedengine.Seed{}
	for rows.Next() {
		sd, err := scanSeed(rows)
		if err != nil {
			return nil, 0, fmt.Errorf("find seeds: %w", err)
		}
		seeds = append(seeds, sd)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, fmt.Errorf("find seeds: %w", err)
	}
	_ = rows.Close()
	if f.Before != "" {
		slices.Reverse(seeds)
	}
	if err := s.fillHealth(ctx, seeds); err != nil {
		return nil, 0, fmt.Errorf("find seeds: %w", err)
	}

	switch {
	case total >= 0:
	case offset == 0 && len(seeds) < limit:
		// A first page that is not full holds every match.
		total = len(seeds)
	default:
		if total, err = s.countSeeds(ctx, f, where, args, counted, countArgs); err != nil {
			return nil, 0, err
		}
	}
	return seeds, total, nil
}

// sortColumn is the column a list order sorts by before seed_id ("" for
// seed_id alone) and whether it runs from high to low.
func sortColumn(o seedengine.SeedSort) (col string, desc bool) {
	desc = strings.HasPrefix(string(o), "-")
	switch seedengine.SeedSort(strings.TrimPrefix(string(o), "-")) {
	case seedengine.SortDomain:
		return "domain", desc
	case seedengine.SortConfidence:
		return "confidence", desc
	case seedengine.SortCreated:
		return "created_at", desc
	}
	return "", desc
}

// orderBy orders by col (descending when desc), then by seed_id
// (descending when idDesc).
func orderBy(col string, desc, idDesc bool) string {
	dir := func(d bool) string {
		if d {
			return " DESC"
		}
		return ""
	}
	if col == "" {
		return " ORDER BY seed_id" + dir(idDesc)
	}
	return " ORDER BY " + col + dir(desc) + ", seed_id" + dir(idDesc)
}

// keyset is the condition "comes after the seed named by param" (before
// it when !after) in the order by col then seed_id ascending: the seed's
// own sort value is read by a subquery, so a cursor stays a seed_id. less
// says the rows wanted have a lower col than the cursor's (a descending
// order going forward, an ascending one going back).
func keyset(col string, less, after bool, param string) string {
	idOp := ">"
	if !after {
		idOp = "<"
	}
	if col == "" {
		return "seed_id " + idOp + " " + param
	}
	op := ">"
	if less {
		op = "<"
	}
	v := "(SELECT " + col + " FROM seeds WHERE seed_id = " + param + ")"
	return "(" + col + " " + op + " " + v + " OR (" + col + " = " + v + " AND seed_id " + idOp + " " + param + "))"
}

// countSeeds counts the seeds matching where: from seed_counts for the
// filters it holds (the first counted conditions, with the first
// countArgs arguments), directly for a domain_id or authority range, a
// confidence floor or a batch.
func (s *SeedService) countSeeds(ctx context.Context, f seedengine.SeedFilter, where []string, args []any, counted, countArgs int) (int, error) {
	var total int
	var err error
	if f.DomainID != "" || f.Authority != "" || f.MinConfidence != 0 || f.BatchID != "" || f.Health != "" || strings.TrimSpace(f.Q) != "" {
		cond := " WHERE " + strings.Join(where, " AND ")
		err = s.db.reader.QueryRowContext(ctx, `SELECT COUNT(*) FROM seeds`+cond, args...).Scan(&total)
	} else {
		countCond := ""
		if counted > 0 {
			countCond = " WHERE " + strings.Join(where[:counted], " AND ")
		}
		err = s.db.reader.QueryRowContext(ctx, `SELECT COALESCE(SUM(n), 0) FROM seed_counts`+countCond, args[:countArgs]...).Scan(&total)
	}
	if err != nil {
		return 0, fmt.Errorf("find seeds: count: %w", err)
	}
	return total, nil
}

// FindSeedVersions returns a seed's recorded contract versions, newest
// first. ENOTFOUND when there is no seed.
func (s *SeedService) FindSeedVersions(ctx context.Context, id string) ([]*seedengine.SeedVersion, error) {
	rows, err := s.db.reader.QueryContext(ctx, `SELECT version, state, contract, confidence, evidence, actor, batch_id, created_at
		FROM seed_versions WHERE seed_id = $1 ORDER BY version DESC`, id)
	if err != nil {
		return nil, fmt.Errorf("find versions of seed %q: %w", seedengine.Truncate(id, 300), err)
	}
	defer func() { _ = rows.Close() }()
	out := []*seedengine.SeedVersion{}
	for rows.Next() {
		var (
			v                  = seedengine.SeedVersion{SeedID: id}
			state              string
			contract, evidence []byte
			created            scanTime
		)
		if err := rows.Scan(&v.Version, &state, &contract, &v.Confidence, &evidence, &v.Actor, &v.BatchID, &created); err != nil {
			return nil, fmt.Errorf("find versions of seed %q: %w", seedengine.Truncate(id, 300), err)
		}
		if err := json.Unmarshal(contract, &v.Contract); err != nil {
			return nil, fmt.Errorf("find versions of seed %q: decode contract: %w", seedengine.Truncate(id, 300), err)
		}
		if err := json.Unmarshal(evidence, &v.Evidence); err != nil {
			return nil, fmt.Errorf("find versions of seed %q: decode evidence: %w", seedengine.Truncate(id, 300), err)
		}
		v.State, v.CreatedAt = seedengine.SeedVersionState(state), created.Time
		out = append(out, &v)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("find versions of seed %q: %w", seedengine.Truncate(id, 300), err)
	}
	// Every seed has a version from its creation on, so none means no seed.
	if len(out) == 0 {
		return nil, seedNotFound()
	}
	return out, nil
}

func scanSeed(row rowScanner) (*seedengine.Seed, error) {
	var (
		sd                              seedengine.Seed
		status                          string
		source, fetch, policy, evidence []byte
		metadata, harvest               []byte
		created, updated, promoted      scanTime
	)
	if err := row.Scan(&sd.SeedID, &sd.DomainID, &sd.Country, &sd.Category, &sd.ContentType, &status, &sd.Version,
		&sd.ProposedVersion, &sd.Confidence, &source, &fetch, &policy, &evidence, &metadata, &created, &updated, &promoted, &harvest); err != nil {
		return nil, err
	}
	for _, d := range []struct {
		raw []byte
		v   any
	}{{source, &sd.Source}, {fetch, &sd.Fetch}, {policy, &sd.Policy}, {evidence, &sd.Evidence}, {harvest, &sd.Harvest}} {
		if err := json.Unmarshal(d.raw, d.v); err != nil {
			return nil, fmt.Errorf("decode seed %q: %w", sd.SeedID, err)
		}
	}
	if len(metadata) > 0 {
		if err := json.Unmarshal(metadata, &sd.Metadata); err != nil {
			return nil, fmt.Errorf("decode seed %q metadata: %w", sd.SeedID, err)
		}
	}
	sd.Status = seedengine.SeedStatus(status)
	sd.CreatedAt, sd.UpdatedAt, sd.PromotedAt = created.Time, updated.Time, promoted.ptr()
	return &sd, nil
}
