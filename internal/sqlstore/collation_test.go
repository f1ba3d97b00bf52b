package sqlstore_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/sqlstore"
	"github.com/seedengine/seedengine/internal/sqlstore/sqlstoretest"
)

// TestByteOrderWhateverTheCollation holds both engines to byte order for
// identifiers, on PostgreSQL also in a database whose default collation is
// linguistic (ICU en-US), which puts punctuation before digits and ";"
// before ":". Without the columns' C collation the authority filter (a
// domain_id prefix range) would find nothing there, and lists would come
// out in another order than on SQLite.
func TestByteOrderWhateverTheCollation(t *testing.T) {
	t.Parallel()
	check := func(t *testing.T, db *sqlstore.DB) {
		ctx := t.Context()
		s := sqlstore.NewDomainService(db)
		x := sqlstore.NewDatasetIndex(db)

		// In byte order; "1" sorts before "_" in bytes, after it in en-US.
		ids := []string{"com:sg:a1.example", "com:sg:a_.example", "gov:sg:mom.gov.sg"}
		ds := make([]seedengine.DomainSighting, len(ids))
		for i, id := range ids {
			ds[i] = seedengine.DomainSighting{ID: id}
		}
		require.NoError(t, s.RegisterDomains(ctx, pSGNews1, at(10, 0), ds))

		got, total, err := s.FindDomains(ctx, seedengine.DomainFilter{})
		require.NoError(t, err)
		require.Equal(t, 3, total)
		require.Equal(t, ids, []string{got[0].ID, got[1].ID, got[2].ID})

		got, total, err = s.FindDomains(ctx, seedengine.DomainFilter{Authority: seedengine.AuthorityGov})
		require.NoError(t, err)
		require.Equal(t, 1, total)
		require.Equal(t, ids[2], got[0].ID)
		_, total, err = s.FindDomains(ctx, seedengine.DomainFilter{Authority: seedengine.AuthorityCom, Country: "sg"})
		require.NoError(t, err)
		require.Equal(t, 2, total)

		p1 := seedengine.Partition{Country: "sg", Category: "a1", Date: "2026-01-28"}
		p2 := seedengine.Partition{Country: "sg", Category: "a_", Date: "2026-01-28"}
		indexChunks(t, x, chunkInfo(p2, 1, 1, 1, ""), chunkInfo(p1, 1, 1, 1, ""))
		sums, _, err := x.FindPartitionSummaries(ctx, seedengine.PartitionFilter{})
		require.NoError(t, err)
		require.Equal(t, []seedengine.Partition{p1, p2}, []seedengine.Partition{sums[0].Partition, sums[1].Partition})
		chunks := findChunks(t, x, nil)
		require.Equal(t, []seedengine.Partition{p1, p2}, []seedengine.Partition{chunks[0].Partition, chunks[1].Partition})
	}
	t.Run("sqlite", func(t *testing.T) {
		t.Parallel()
		check(t, sqlstoretest.OpenSQLite(t))
	})
	t.Run("postgres_icu_en_us", func(t *testing.T) {
		t.Parallel()
		u := sqlstoretest.NewPostgresURLWith(t, `TEMPLATE template0 LOCALE_PROVIDER icu ICU_LOCALE 'en-US'`)
		check(t, sqlstoretest.Open(t, u))
	})
}
