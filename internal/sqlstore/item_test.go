package sqlstore_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/sqlstore"
	"github.com/seedengine/seedengine/internal/sqlstore/sqlstoretest"
)

// harvestItems are n items of seed sd first seen at at, with URLs from
// start on.
func harvestItems(sd *seedengine.Seed, at time.Time, start, n int) []seedengine.Item {
	out := make([]seedengine.Item, n)
	for i := range out {
		u := fmt.Sprintf("https://www.straitstimes.com/news/%d", start+i)
		out[i] = seedengine.Item{URL: u + "?utm_source=rss", NormalizedURL: u, Title: fmt.Sprintf("Story %d", start+i),
			SeedID: sd.SeedID, DomainID: sd.DomainID, Country: sd.Country, Category: sd.Category,
			Source:      seedengine.ItemSource{EntryURL: sd.Fetch.EntryURL, FetchType: sd.Fetch.Type},
			FirstSeenAt: at}
	}
	return out
}

// recordRead records a check of sd at at with items, as the seed check
// service does.
func recordRead(t *testing.T, s *sqlstore.SeedService, sd *seedengine.Seed, at time.Time, items []seedengine.Item, baseline bool, inTx func(context.Context, *sql.Tx, seedengine.SeedHealthChange) error) (seedengine.SeedCheck, error) {
	t.Helper()
	c := seedengine.SeedCheck{SeedID: sd.SeedID, CheckedAt: at, EntryURL: sd.Fetch.EntryURL, Outcome: seedengine.CheckOK, Status: 200, Items: len(items)}
	_, _, err := s.RecordSeedCheck(t.Context(), &c, items, baseline,
		decided(seedengine.SeedHealth{State: seedengine.HealthHealthy}, at.Add(time.Hour)), inTx)
	return c, err
}

// Items are recorded with the check that read them, once each by
// normalized URL (a story in two feeds is one item), in ID order, counted
// per partition; a failed transaction records none; a file fixes its
// items, and the seen URLs are pruned by their last sighting.
func TestItems(t *testing.T) {
	t.Parallel()
	sqlstoretest.Engines(t, func(t *testing.T, db *sqlstore.DB) {
		ctx := t.Context()
		s := sqlstore.NewSeedService(db)
		items := sqlstore.NewItemService(db)
		a := createSeed(t, s, "media:sg:straitstimes.com", "alice")
		b := createSeed(t, s, "media:sg:todayonline.com", "alice")
		day := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)

		c, err := recordRead(t, s, a, day, harvestItems(a, day, 0, 20), false, nil)
		require.NoError(t, err)
		require.Equal(t, 20, c.Harvested)
		// The next read lists 5 new stories over 15 seen ones; the other
		// seed lists 3 of a's and 2 of its own.
		c, err = recordRead(t, s, a, day.Add(time.Hour), harvestItems(a, day.Add(time.Hour), 5, 20), false, nil)
		require.NoError(t, err)
		require.Equal(t, 5, c.Harvested)
		other := append(harvestItems(b, day.Add(2*time.Hour), 20, 3), harvestItems(b, day.Add(2*time.Hour), 100, 2)...)
		c, err = recordRead(t, s, b, day.Add(2*time.Hour), other, false, nil)
		require.NoError(t, err)
		require.Equal(t, 2, c.Harvested, "the later sighting adds nothing")

		// A transaction that fails after the items records none of them.
		boom := errors.New("the job's completion failed")
		_, err = recordRead(t, s, b, day.Add(3*time.Hour), harvestItems(b, day.Add(3*time.Hour), 200, 4), false,
			func(context.Context, *sql.Tx, seedengine.SeedHealthChange) error { return boom })
		require.ErrorIs(t, err, boom)
		c, err = recordRead(t, s, b, day.Add(3*time.Hour), harvestItems(b, day.Add(3*time.Hour), 200, 4), false, nil)
		require.NoError(t, err)
		require.Equal(t, 4, c.Harvested, "the run again records them")

		got, err := items.FindItems(ctx, seedengine.ItemFilter{Limit: 1000})
		require.NoError(t, err)
		require.Len(t, got, 31)
		for i := 1; i < len(got); i++ {
			require.Greater(t, got[i].ID, got[i-1].ID)
		}
		require.Equal(t, "https://www.straitstimes.com/news/0", got[0].NormalizedURL)
		require.Equal(t, "https://www.straitstimes.com/news/0?utm_source=rss", got[0].URL)
		require.Equal(t, a.SeedID, got[0].SeedID)
		require.Positive(t, got[0].Source.CheckID)
		require.Equal(t, day, got[0].FirstSeenAt.UTC())

		page, err := items.FindItems(ctx, seedengine.ItemFilter{Since: got[9].ID, Limit: 5})
		require.NoError(t, err)
		require.Equal(t, got[10:15], page, "a cursor page")
		bs, err := items.FindItems(ctx, seedengine.ItemFilter{SeedID: b.SeedID, Limit: 100})
		require.NoError(t, err)
		require.Len(t, bs, 6)
		byDomain, err := items.FindItems(ctx, seedengine.ItemFilter{DomainID: b.DomainID, Limit: 100})
		require.NoError(t, err)
		require.Equal(t, bs, byDomain, "a domain's items are its seeds'")
		byDomain, err = items.FindItems(ctx, seedengine.ItemFilter{DomainID: "media:sg:todayonline.co", Limit: 100})
		require.NoError(t, err)
		require.Empty(t, byDomain, "a domain that prefixes another's is another")
		none, err := items.FindItems(ctx, seedengine.ItemFilter{Country: "sg", Category: "news", Date: "2026-11-02", Limit: 100})
		require.NoError(t, err)
		require.Empty(t, none)
		_, err = items.FindItems(ctx, seedengine.ItemFilter{Limit: 0})
		require.Equal(t, "limit", seedengine.ErrorField(err))

		parts, total, err := items.FindItemPartitions(ctx, seedengine.ItemPartitionFilter{})
		require.NoError(t, err)
		require.Equal(t, 1, total)
		require.Equal(t, seedengine.ItemPartition{Partition: seedengine.Partition{Country: "sg", Category: "news", Date: "2026-11-01"}, Items: 31, Pending: 31}, parts[0])

		// A flush: nothing pending is old or many enough yet; past the day
		// it is.
		p := parts[0].Partition
		pending, err := items.PendingItemPartitions(ctx, day, 1000, 10)
		require.NoError(t, err)
		require.Empty(t, pending)
		pending, err = items.PendingItemPartitions(ctx, day.Add(48*time.Hour), 1000, 10)
		require.NoError(t, err)
		require.Equal(t, []seedengine.Partition{p}, pending)
		f, err := items.AllocateItemFile(ctx, p, 20)
		require.NoError(t, err)
		require.Equal(t, 1, f.File)
		require.Equal(t, 20, f.Items)
		require.Equal(t, got[0].ID, f.FirstID)
		require.Equal(t, got[19].ID, f.LastID)
		var inFile []int64
		require.NoError(t, items.ItemsOfFile(ctx, *f, func(it seedengine.Item) error { inFile = append(inFile, it.ID); return nil }))
		require.Len(t, inFile, 20)
		unwritten, err := items.UnwrittenItemFiles(ctx)
		require.NoError(t, err)
		require.Len(t, unwritten, 1)
		require.NoError(t, items.MarkItemFileWritten(ctx, *f, 4096))
		require.NoError(t, items.MarkItemFileWritten(ctx, *f, 4096), "again: nothing changes")
		f2, err := items.AllocateItemFile(ctx, p, 20)
		require.NoError(t, err)
		require.Equal(t, 2, f2.File)
		require.Equal(t, 11, f2.Items)
		f3, err := items.AllocateItemFile(ctx, p, 20)
		require.NoError(t, err)
		require.Nil(t, f3, "nothing left")
		files, err := items.FindItemFiles(ctx, p)
		require.NoError(t, err)
		require.Len(t, files, 2)
		require.Equal(t, "items_0001", files[0].Name)
		require.NotNil(t, files[0].WrittenAt)
		require.Nil(t, files[1].WrittenAt)
		parts, _, err = items.FindItemPartitions(ctx, seedengine.ItemPartitionFilter{Country: "sg"})
		require.NoError(t, err)
		require.Equal(t, seedengine.ItemPartition{Partition: p, Items: 31, Files: 2, Bytes: 4096, Pending: 0}, parts[0])
		st, err := items.ItemStats(ctx, day)
		require.NoError(t, err)
		require.Equal(t, 31, st.Items)
		require.Equal(t, 31, st.Today["sg"])

		// Baseline: seen, not recorded.
		c, err = recordRead(t, s, b, day.Add(4*time.Hour), harvestItems(b, day.Add(4*time.Hour), 500, 3), true, nil)
		require.NoError(t, err)
		require.Zero(t, c.Harvested)
		c, err = recordRead(t, s, b, day.Add(5*time.Hour), harvestItems(b, day.Add(5*time.Hour), 500, 4), false, nil)
		require.NoError(t, err)
		require.Equal(t, 1, c.Harvested, "only what the baseline did not list")

		// The window counts from the last sighting: a read two days on
		// lists stories 5-9 again, so only they outlast a prune of what was
		// last seen before the next day.
		c, err = recordRead(t, s, a, day.Add(48*time.Hour), harvestItems(a, day.Add(48*time.Hour), 5, 5), false, nil)
		require.NoError(t, err)
		require.Zero(t, c.Harvested)
		n, err := items.DeleteSeenBefore(ctx, day.Add(24*time.Hour), 1000)
		require.NoError(t, err)
		require.EqualValues(t, 30, n, "every URL but stories 5-9")
		c, err = recordRead(t, s, a, day.Add(49*time.Hour), harvestItems(a, day.Add(49*time.Hour), 0, 10), false, nil)
		require.NoError(t, err)
		require.Equal(t, 5, c.Harvested, "stories 0-4, forgotten past the window: new again")
	})
}

// Items recorded by many transactions at once get ids in commit order,
// so a reader following the cursor while they commit sees every item
// exactly once.
func TestItemsCursorWhileRecording(t *testing.T) {
	t.Parallel()
	sqlstoretest.Engines(t, func(t *testing.T, db *sqlstore.DB) {
		ctx := t.Context()
		s := sqlstore.NewSeedService(db)
		items := sqlstore.NewItemService(db)
		const seeds, reads, perRead = 4, 25, 8
		var sds []*seedengine.Seed
		for i := range seeds {
			sd := createSeed(t, s, fmt.Sprintf("media:sg:site%d.com", i), "alice")
			sds = append(sds, sd)
		}
		at := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
		var wg sync.WaitGroup
		done := make(chan struct{})
		for i, sd := range sds {
			wg.Go(func() {
				for r := range reads {
					// Each seed in a partition of its own (a day each), so no
					// partition's counter row lines the writers up.
					its := harvestItems(sd, at.Add(time.Duration(i)*24*time.Hour), (i*reads+r)*perRead, perRead)
					c := seedengine.SeedCheck{SeedID: sd.SeedID, CheckedAt: at.Add(time.Duration(r) * time.Second), Outcome: seedengine.CheckOK}
					// A pause between taking ids and committing: what lets a
					// later id commit first, were ids not taken in turn.
					pause := func(context.Context, *sql.Tx, seedengine.SeedHealthChange) error {
						time.Sleep(time.Duration(r%3) * 4 * time.Millisecond)
						return nil
					}
					if _, _, err := s.RecordSeedCheck(ctx, &c, its, false, decided(seedengine.SeedHealth{State: seedengine.HealthHealthy}, at), pause); err != nil {
						t.Error(err)
						return
					}
				}
			})
		}
		go func() { wg.Wait(); close(done) }()
		seen := map[string]bool{}
		var since int64
		for finished := false; ; {
			select {
			case <-done:
				finished = true
			default:
			}
			page, err := items.FindItems(ctx, seedengine.ItemFilter{Since: since, Limit: 7})
			require.NoError(t, err)
			for _, it := range page {
				require.False(t, seen[it.NormalizedURL], "item %d read twice", it.ID)
				seen[it.NormalizedURL] = true
				since = it.ID
			}
			if finished && len(page) == 0 {
				break
			}
		}
		require.Equal(t, seeds*reads*perRead, len(seen), "every item, none skipped")
	})
}
