package sqlstore_test

import (
	"context"
	"database/sql"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/sqlstore"
	"github.com/seedengine/seedengine/internal/sqlstore/sqlstoretest"
)

// A seed with harvest.pages gets a queued page for each new item, named
// to the check's follow-up (to queue their fetches) in its transaction; a
// seed without gets none. Pages fetched into a spool that will never be
// stored go back to the queue with their jobs, in one transaction, by
// spool or by age; a stored file marks its pages stored.
func TestPagesQueueAndRequeue(t *testing.T) {
	t.Parallel()
	sqlstoretest.Engines(t, func(t *testing.T, db *sqlstore.DB) {
		ctx := t.Context()
		seeds, pages := sqlstore.NewSeedService(db), sqlstore.NewPageService(db)
		withPages := newSeed("media:sg:straitstimes.com")
		withPages.Harvest.Pages = true
		require.NoError(t, seeds.CreateSeed(ctx, withPages, "test"))
		without := newSeed("media:sg:today.com.sg")
		require.NoError(t, seeds.CreateSeed(ctx, without, "test"))

		at := time.Date(2026, 11, 27, 8, 0, 0, 0, time.UTC)
		var queued []int64
		_, err := recordRead(t, seeds, withPages, at, harvestItems(withPages, at, 0, 3), false,
			func(_ context.Context, _ *sql.Tx, c seedengine.SeedHealthChange) error { queued = c.Pages; return nil })
		require.NoError(t, err)
		require.Len(t, queued, 3)
		var none []int64
		other := harvestItems(without, at, 100, 2)
		_, err = recordRead(t, seeds, without, at, other, false,
			func(_ context.Context, _ *sql.Tx, c seedengine.SeedHealthChange) error { none = c.Pages; return nil })
		require.NoError(t, err)
		require.Empty(t, none)

		// Two fetched into spool a, one into spool b, long ago.
		old := at.Add(-3 * time.Hour)
		for i, id := range queued {
			p, err := pages.FindPage(ctx, id)
			require.NoError(t, err)
			require.Equal(t, seedengine.PageQueued, p.State)
			p.Spool, p.SpoolOffset, p.SpoolLength, p.Status, p.FetchedAt = "a", int64(100*i), 100, 200, &old
			if i == 2 {
				p.Spool = "b"
			}
			ok, err := pages.MarkPageFetched(ctx, p)
			require.NoError(t, err)
			require.True(t, ok)
			ok, err = pages.MarkPageFetched(ctx, p)
			require.NoError(t, err)
			require.False(t, ok, "a page is marked fetched once")
		}
		n, end, err := pages.SpoolExtent(ctx, "a")
		require.NoError(t, err)
		require.Equal(t, 2, n)
		require.EqualValues(t, 200, end)

		// By spool; a failing follow-up changes nothing.
		_, err = pages.RequeuePages(ctx, "a", time.Time{}, 0, func(context.Context, *sql.Tx, []int64) error { return errors.New("queue down") })
		require.Error(t, err)
		var jobs []int64
		ids, err := pages.RequeuePages(ctx, "a", time.Time{}, 0, func(_ context.Context, _ *sql.Tx, ids []int64) error { jobs = ids; return nil })
		require.NoError(t, err)
		require.ElementsMatch(t, queued[:2], ids)
		require.Equal(t, ids, jobs)
		p, err := pages.FindPage(ctx, queued[0])
		require.NoError(t, err)
		require.Equal(t, seedengine.PageQueued, p.State)

		// By age: only what was fetched before the cut.
		ids, err = pages.RequeuePages(ctx, "", old.Add(-time.Minute), 10, nil)
		require.NoError(t, err)
		require.Empty(t, ids)
		ids, err = pages.RequeuePages(ctx, "", old.Add(time.Minute), 10, nil)
		require.NoError(t, err)
		require.Equal(t, []int64{queued[2]}, ids)

		// A stored file marks its spool's pages stored, with their place.
		p.Spool, p.SpoolOffset, p.SpoolLength, p.FetchedAt = "c", 10, 90, &at
		_, err = pages.MarkPageFetched(ctx, p)
		require.NoError(t, err)
		f := seedengine.WARCFile{Partition: seedengine.Partition{Country: "sg", Category: "news", Date: "2026-11-27"}, Name: "seedengine-x-1.warc.gz",
			Key: "warc/country=sg/category=news/date=2026-11-27/seedengine-x-1.warc.gz", Records: 1, Bytes: 100, StoredAt: at}
		marked, err := pages.StoreWARCFile(ctx, f, "c", []seedengine.PageDigest{{PayloadDigest: "sha1:AAAA", TargetURI: p.URL, Date: at, RecordID: "<urn:uuid:x>"}})
		require.NoError(t, err)
		require.Equal(t, 1, marked)
		p, err = pages.FindPage(ctx, queued[0])
		require.NoError(t, err)
		require.Equal(t, seedengine.PageStored, p.State)
		require.Equal(t, f.Key, p.WARCFile)
		require.EqualValues(t, 10, p.Offset)
		require.EqualValues(t, 90, p.Length)
		d, ok, err := pages.FindPageDigest(ctx, "sha1:AAAA")
		require.NoError(t, err)
		require.True(t, ok)
		require.Equal(t, "<urn:uuid:x>", d.RecordID)
		st, err := pages.PageStats(ctx)
		require.NoError(t, err)
		require.Equal(t, 1, st.Files)
		require.Equal(t, map[seedengine.PageState]int{seedengine.PageStored: 1, seedengine.PageQueued: 2}, st.ByState)
	})
}
