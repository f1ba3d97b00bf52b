package dataset_test

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine"
)

func TestImportChunkStoresAtItsNumberAndIndexes(t *testing.T) {
	t.Parallel()
	for _, driver := range []string{"mem", "file"} {
		t.Run(driver, func(t *testing.T) {
			t.Parallel()
			b := setup(t, setupOpts{driver: driver, sql: true})
			ctx := context.Background()
			in := body(sgNews, 3)
			key := chunkKey(t, sgNews, 7)
			c, err := b.svc.ImportChunk(ctx, sgNews, 7, "upload:"+key, strings.NewReader(in))
			require.NoError(t, err)
			require.Equal(t, key, c.Key)
			require.Equal(t, "raw_0007", c.Name)
			require.Equal(t, int64(len(in)), c.Bytes)
			require.Equal(t, 3, c.Records)
			require.Equal(t, in, b.read(t, key), "stored byte for byte")

			got, err := b.index.FindChunkByOrigin(ctx, "upload:"+key)
			require.NoError(t, err)
			require.Equal(t, 7, got.Chunk)
			require.Equal(t, 3, got.Records)
			require.False(t, got.Completed, "no seed file processor has handled it")

			// The number is taken now: a second import leaves it alone.
			_, err = b.svc.ImportChunk(ctx, sgNews, 7, "upload:again", strings.NewReader(body(sgNews, 1)))
			require.Equal(t, seedengine.ECONFLICT, seedengine.ErrorCode(err))
			require.Equal(t, in, b.read(t, key))

			// A save after an import takes the next free number.
			next, err := b.svc.SaveDataset(ctx, sgNews, strings.NewReader(body(sgNews, 1)))
			require.NoError(t, err)
			require.Equal(t, 8, next.Chunk)
		})
	}
}

func TestImportChunkInvalidStoresNothing(t *testing.T) {
	t.Parallel()
	for _, driver := range []string{"mem", "file"} {
		t.Run(driver, func(t *testing.T) {
			t.Parallel()
			b := setup(t, setupOpts{driver: driver})
			ctx := context.Background()
			// Bad late in the body: most of it has reached the store by
			// the time the validator sees it.
			bad := strings.Replace(body(sgNews, 200), `"domain_id":"gov:sg:example150.gov.sg"`, `"domain_id":"nonsense"`, 1)
			_, err := b.svc.ImportChunk(ctx, sgNews, 1, "upload:a", strings.NewReader(bad))
			require.Equal(t, seedengine.EINVALID, seedengine.ErrorCode(err))
			require.Equal(t, "records[150].domain_id", seedengine.ErrorField(err))

			_, err = b.svc.ImportChunk(ctx, sgNews, 1, "upload:b", strings.NewReader(body(jpNews, 1)))
			require.Equal(t, "meta.country", seedengine.ErrorField(err))

			tooBig := errors.New("read failed")
			valid := body(sgNews, 1)
			_, err = b.svc.ImportChunk(ctx, sgNews, 1, "upload:c", io.MultiReader(strings.NewReader(valid[:len(valid)-10]), &errReader{tooBig}))
			require.ErrorIs(t, err, tooBig)

			n := 0
			require.NoError(t, b.blobs.List(ctx, "", func(seedengine.Object) error { n++; return nil }))
			require.Zero(t, n, "nothing stored")
			require.Zero(t, b.mem.Len(), "nothing indexed")
		})
	}
}

func TestImportChunkStoreFailureIsReturned(t *testing.T) {
	t.Parallel()
	b := setup(t, setupOpts{})
	down := seedengine.Errorf(seedengine.EUNAVAILABLE, "object store is not available")
	b.store.failPuts = down
	_, err := b.svc.ImportChunk(context.Background(), sgNews, 1, "upload:a", strings.NewReader(body(sgNews, 200)))
	require.Equal(t, seedengine.EUNAVAILABLE, seedengine.ErrorCode(err))
	require.Zero(t, b.mem.Len())
}
