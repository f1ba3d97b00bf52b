package seedengine_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine"
)

func TestChunkName(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		n    int
		name string
	}{{1, "raw_0001"}, {42, "raw_0042"}, {9999, "raw_9999"}, {10000, "raw_10000"}, {123456, "raw_123456"}, {seedengine.MaxChunk, "raw_999999999"}} {
		name, err := seedengine.ChunkName(tt.n)
		require.NoError(t, err)
		require.Equal(t, tt.name, name)
		n, err := seedengine.ParseChunkName(name)
		require.NoError(t, err)
		require.Equal(t, tt.n, n)
	}
	for _, n := range []int{0, -1, seedengine.MaxChunk + 1} {
		_, err := seedengine.ChunkName(n)
		require.Equal(t, seedengine.EINVALID, seedengine.ErrorCode(err), n)
	}
	for _, name := range []string{
		"", "raw_", "raw_1", "raw_001", "raw_0000", "raw_00001", "raw_0001.json", "RAW_0001", "raw_+001",
		"raw_-001", "raw_00a1", "raw_1000000000", "raw_99999999999999999999999", "chunk_0001", " raw_0001",
	} {
		_, err := seedengine.ParseChunkName(name)
		require.Equal(t, seedengine.EINVALID, seedengine.ErrorCode(err), name)
		require.Equal(t, "chunk", seedengine.ErrorField(err), name)
	}
}

func TestPartitionFilterValidate(t *testing.T) {
	t.Parallel()
	f := seedengine.PartitionFilter{Country: " SG ", Category: "news", DateFrom: "2026-01-01", DateTo: "2026-01-01"}
	require.NoError(t, f.Validate())
	require.Equal(t, seedengine.PartitionFilter{Country: "sg", Category: "news", DateFrom: "2026-01-01", DateTo: "2026-01-01", Limit: seedengine.DefaultListLimit}, f)
	f = seedengine.PartitionFilter{Limit: 5000, Offset: 7}
	require.NoError(t, f.Validate())
	require.Equal(t, seedengine.MaxListLimit, f.Limit)
	require.Equal(t, 7, f.Offset)

	for _, tt := range []struct {
		f     seedengine.PartitionFilter
		field string
	}{
		{seedengine.PartitionFilter{Country: "xx"}, "country"},
		{seedengine.PartitionFilter{Category: "Bad-Cat"}, "category"},
		{seedengine.PartitionFilter{DateFrom: "2026-02-30"}, "date_from"},
		{seedengine.PartitionFilter{DateTo: "soon"}, "date_to"},
		{seedengine.PartitionFilter{DateFrom: "2026-01-02", DateTo: "2026-01-01"}, "date_to"},
		{seedengine.PartitionFilter{Limit: -1}, "limit"},
		{seedengine.PartitionFilter{Offset: -1}, "offset"},
	} {
		err := tt.f.Validate()
		require.Equal(t, seedengine.EINVALID, seedengine.ErrorCode(err), tt.field)
		require.Equal(t, tt.field, seedengine.ErrorField(err))
	}
}
