package sqlstore_test

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/sqlstore"
	"github.com/seedengine/seedengine/internal/sqlstore/sqlstoretest"
)

// A draft is rejected with a reason code and a note, leaves the drafts,
// keeps its contract and can be reopened; TransitionSeed will not reject
// without a code.
func TestRejectAndReopen(t *testing.T) {
	t.Parallel()
	sqlstoretest.Engines(t, func(t *testing.T, db *sqlstore.DB) {
		ctx := t.Context()
		s := sqlstore.NewSeedService(db)
		sd := createSeed(t, s, "media:sg:straits.com.sg", "batch")

		_, err := s.TransitionSeed(ctx, sd.SeedID, seedengine.SeedReject, "alice", "no")
		requireSeedErr(t, seedengine.EINVALID, "reason_code", err)
		_, err = s.RejectSeed(ctx, sd.SeedID, "bogus", "", "alice")
		requireSeedErr(t, seedengine.EINVALID, "reason_code", err)
		_, err = s.RejectSeed(ctx, sd.SeedID, seedengine.RejectDuplicate, strings.Repeat("x", 501), "alice")
		requireSeedErr(t, seedengine.EINVALID, "reason", err)

		got, err := s.RejectSeed(ctx, sd.SeedID, seedengine.RejectDuplicate, "the group's main site covers it", "alice")
		require.NoError(t, err)
		require.Equal(t, seedengine.SeedRejected, got.Status)
		last := got.History[len(got.History)-1]
		require.Equal(t, seedengine.SeedTransition{Action: "reject", From: seedengine.SeedDraft, To: seedengine.SeedRejected, At: last.At,
			Actor: "alice", ReasonCode: seedengine.RejectDuplicate, Reason: "the group's main site covers it"}, last)
		require.Equal(t, sd.Fetch, got.Fetch, "a rejected seed keeps its contract")

		drafts, total, err := s.FindSeeds(ctx, seedengine.SeedFilter{Status: seedengine.SeedDraft})
		require.NoError(t, err)
		require.Empty(t, drafts)
		require.Zero(t, total)
		rejected, total, err := s.FindSeeds(ctx, seedengine.SeedFilter{Status: seedengine.SeedRejected})
		require.NoError(t, err)
		require.Equal(t, 1, total)
		require.Len(t, rejected, 1)

		_, err = s.RejectSeed(ctx, sd.SeedID, seedengine.RejectOther, "", "alice")
		requireSeedErr(t, seedengine.ECONFLICT, "status", err)
		_, err = s.TransitionSeed(ctx, sd.SeedID, seedengine.SeedPromote, "alice", "")
		requireSeedErr(t, seedengine.ECONFLICT, "status", err)

		got, err = s.TransitionSeed(ctx, sd.SeedID, seedengine.SeedReopen, "bob", "second look")
		require.NoError(t, err)
		require.Equal(t, seedengine.SeedDraft, got.Status)
		got, err = s.TransitionSeed(ctx, sd.SeedID, seedengine.SeedPromote, "bob", "")
		require.NoError(t, err)
		require.Equal(t, seedengine.SeedActive, got.Status)
		_, err = s.TransitionSeed(ctx, sd.SeedID, seedengine.SeedReopen, "bob", "")
		requireSeedErr(t, seedengine.ECONFLICT, "status", err)
	})
}

// A contract run that finds a rejected seed's contract again leaves it
// rejected; one that finds another entry reopens it as a draft with that
// entry.
func TestRecordDraftSeedRespectsRejection(t *testing.T) {
	t.Parallel()
	sqlstoretest.Engines(t, func(t *testing.T, db *sqlstore.DB) {
		ctx := t.Context()
		s := sqlstore.NewSeedService(db)
		sd := createSeed(t, s, "media:sg:today.com.sg", "batch")
		_, err := s.RejectSeed(ctx, sd.SeedID, seedengine.RejectWrongEntry, "", "alice")
		require.NoError(t, err)

		again := newSeed("media:sg:today.com.sg")
		again.Confidence = 0.5 // evidence details differ, the contract does not
		out, err := s.RecordDraftSeed(ctx, again, "contract_batch:b2", "b2")
		require.NoError(t, err)
		require.Equal(t, seedengine.SeedRecordOutcome{Result: seedengine.SeedKept, Version: 1, Reason: "rejected_seed_kept"}, out)
		got, err := s.FindSeedByID(ctx, sd.SeedID)
		require.NoError(t, err)
		require.Equal(t, seedengine.SeedRejected, got.Status)

		moved := newSeed("media:sg:today.com.sg")
		moved.Fetch.EntryURL = "https://www.today.com.sg/feeds/latest.xml"
		out, err = s.RecordDraftSeed(ctx, moved, "contract_batch:b3", "b3")
		require.NoError(t, err)
		require.Equal(t, seedengine.SeedReopened, out.Result)
		require.Equal(t, 2, out.Version)
		got, err = s.FindSeedByID(ctx, sd.SeedID)
		require.NoError(t, err)
		require.Equal(t, seedengine.SeedDraft, got.Status)
		require.Equal(t, moved.Fetch.EntryURL, got.Fetch.EntryURL)
		last := got.History[len(got.History)-1]
		require.Equal(t, "reopen", last.Action)
		require.Equal(t, "contract_batch:b3", last.Actor)

		_, total, err := s.FindSeeds(ctx, seedengine.SeedFilter{Status: seedengine.SeedDraft})
		require.NoError(t, err)
		require.Equal(t, 1, total, "the counts follow the reopening")
		_, total, err = s.FindSeeds(ctx, seedengine.SeedFilter{Status: seedengine.SeedRejected})
		require.NoError(t, err)
		require.Zero(t, total)
	})
}

// q finds seeds by domain or name in any case, as a substring (no
// pattern characters); every order pages forwards and backwards by
// seed_id cursors through exactly the seeds of the list, in order.
func TestFindSeedsSearchAndSort(t *testing.T) {
	t.Parallel()
	sqlstoretest.Engines(t, func(t *testing.T, db *sqlstore.DB) {
		ctx := t.Context()
		s := sqlstore.NewSeedService(db)
		var all []*seedengine.Seed
		for i := range 23 {
			sd := newSeed(fmt.Sprintf("media:sg:site%02d.com.sg", (i*7)%23))
			sd.Confidence = float64(i%5) / 10 // ties, so seed_id breaks them
			if i == 4 {
				sd.Source.Name = "The Straits Times"
			}
			require.NoError(t, s.CreateSeed(ctx, sd, "batch"))
			all = append(all, sd)
		}
		other := newSeed("gov:sg:mom.gov.sg")
		require.NoError(t, s.CreateSeed(ctx, other, "batch"))
		_, err := s.TransitionSeed(ctx, other.SeedID, seedengine.SeedPromote, "a", "")
		require.NoError(t, err)

		find := func(f seedengine.SeedFilter) ([]string, int) {
			t.Helper()
			got, total, err := s.FindSeeds(ctx, f)
			require.NoError(t, err)
			var ids []string
			for _, sd := range got {
				ids = append(ids, sd.SeedID)
			}
			return ids, total
		}
		ids, total := find(seedengine.SeedFilter{Q: "STRAITS"})
		require.Equal(t, []string{all[4].SeedID}, ids)
		require.Equal(t, 1, total)
		ids, _ = find(seedengine.SeedFilter{Q: "site1"})
		require.Len(t, ids, 10, "site10 to site19")
		ids, _ = find(seedengine.SeedFilter{Q: "site_"})
		require.Empty(t, ids, "_ is a character, not a pattern")
		ids, total = find(seedengine.SeedFilter{Q: "mom.gov", Status: seedengine.SeedDraft})
		require.Empty(t, ids)
		require.Zero(t, total)

		_, _, err = s.FindSeeds(ctx, seedengine.SeedFilter{Sort: "size"})
		requireSeedErr(t, seedengine.EINVALID, "sort", err)
		_, _, err = s.FindSeeds(ctx, seedengine.SeedFilter{Q: strings.Repeat("a", 201)})
		requireSeedErr(t, seedengine.EINVALID, "q", err)

		for _, order := range seedengine.SeedSorts {
			t.Run(string(order), func(t *testing.T) {
				want := slices.Clone(all)
				key := func(sd *seedengine.Seed) string {
					switch strings.TrimPrefix(string(order), "-") {
					case "domain":
						return sd.Source.Domain
					case "confidence":
						return fmt.Sprintf("%.2f", sd.Confidence)
					case "created":
						return sd.CreatedAt.Format("2006-01-02T15:04:05.000000")
					}
					return ""
				}
				desc := strings.HasPrefix(string(order), "-")
				sort.SliceStable(want, func(i, j int) bool {
					ki, kj := key(want[i]), key(want[j])
					if ki != kj {
						return (ki < kj) != desc
					}
					return want[i].SeedID < want[j].SeedID
				})
				var wantIDs []string
				for _, sd := range want {
					wantIDs = append(wantIDs, sd.SeedID)
				}
				// Forwards, 5 at a time.
				var got []string
				f := seedengine.SeedFilter{Status: seedengine.SeedDraft, Sort: order, Limit: 5}
				for {
					ids, total := find(f)
					require.Equal(t, len(all), total)
					got = append(got, ids...)
					if len(ids) < 5 {
						break
					}
					f.After = ids[len(ids)-1]
				}
				require.Equal(t, wantIDs, got, "forwards")
				// Backwards from the end.
				got = nil
				f = seedengine.SeedFilter{Status: seedengine.SeedDraft, Sort: order, Limit: 5, Before: wantIDs[len(wantIDs)-1]}
				for {
					ids, _ := find(f)
					got = append(slices.Clone(ids), got...)
					if len(ids) < 5 {
						break
					}
					f.Before = ids[0]
				}
				require.Equal(t, wantIDs[:len(wantIDs)-1], got, "backwards")
			})
		}
	})
}
