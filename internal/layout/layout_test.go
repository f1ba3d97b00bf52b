package layout_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/layout"
)

var sgNews = seedengine.Partition{Country: "sg", Category: "news", Date: "2026-01-28"}

func TestKeysRoundTrip(t *testing.T) {
	t.Parallel()
	must := func(s string, err error) string {
		t.Helper()
		require.NoError(t, err)
		return s
	}
	runAt := time.Date(2026, 1, 28, 11, 12, 13, 999_000_000, time.FixedZone("SGT", 8*3600))
	intl := seedengine.Partition{Country: "intl", Category: "press_release", Date: "2024-02-29"}
	tests := []struct {
		name string
		key  string
		want string
		kind layout.KeyKind
		p    seedengine.Partition
		k    layout.Key
	}{
		{
			name: "raw chunk",
			key:  must(layout.RawChunkKey(sgNews, 1)),
			want: "raw/country=sg/category=news/date=2026-01-28/raw_0001.json",
			k:    layout.Key{Kind: layout.KindRawChunk, Partition: sgNews, Chunk: 1},
		},
		{
			name: "raw chunk past four digits",
			key:  must(layout.RawChunkKey(intl, 10000)),
			want: "raw/country=intl/category=press_release/date=2024-02-29/raw_10000.json",
			k:    layout.Key{Kind: layout.KindRawChunk, Partition: intl, Chunk: 10000},
		},
		{
			name: "raw checkpoint",
			key:  must(layout.RawCheckpointKey(sgNews, 42)),
			want: "raw/country=sg/category=news/date=2026-01-28/raw_0042.json.success",
			k:    layout.Key{Kind: layout.KindRawCheckpoint, Partition: sgNews, Chunk: 42},
		},
		{
			name: "raw metadata",
			key:  must(layout.RawMetadataKey(sgNews)),
			want: "raw/country=sg/category=news/date=2026-01-28/raw_metadata.json",
			k:    layout.Key{Kind: layout.KindRawMetadata, Partition: sgNews},
		},
		{
			name: "domain metadata",
			key:  must(layout.ProdDomainFileKey(sgNews, "mom.gov.sg", layout.FileDomainMetadata)),
			want: "prod/country=sg/category=news/date=2026-01-28/mom.gov.sg/domain_metadata.json",
			k:    layout.Key{Kind: layout.KindProdDomainFile, Partition: sgNews, Domain: "mom.gov.sg", File: "domain_metadata.json"},
		},
		{
			name: "domain metadata checkpoint",
			key:  must(layout.ProdDomainFileKey(sgNews, "mom.gov.sg", layout.FileDomainMetadataSuccess)),
			want: "prod/country=sg/category=news/date=2026-01-28/mom.gov.sg/domain_metadata.json.success",
			k:    layout.Key{Kind: layout.KindProdDomainFile, Partition: sgNews, Domain: "mom.gov.sg", File: "domain_metadata.json.success"},
		},
		{
			name: "robots evidence of a punycode domain",
			key:  must(layout.ProdDomainFileKey(sgNews, "xn--fiqs8s.xn--yfro4i67o", layout.FileRobots)),
			want: "prod/country=sg/category=news/date=2026-01-28/xn--fiqs8s.xn--yfro4i67o/robots.txt",
			k:    layout.Key{Kind: layout.KindProdDomainFile, Partition: sgNews, Domain: "xn--fiqs8s.xn--yfro4i67o", File: "robots.txt"},
		},
		{
			name: "sitemap evidence",
			key:  must(layout.ProdDomainFileKey(intl, "who.int", layout.FileSitemap)),
			want: "prod/country=intl/category=press_release/date=2024-02-29/who.int/sitemap.xml",
			k:    layout.Key{Kind: layout.KindProdDomainFile, Partition: intl, Domain: "who.int", File: "sitemap.xml"},
		},
		{
			name: "liveness",
			key:  must(layout.LivenessKey("sg", "2026-01-28", "01JJ5ZK3W9Q2V1X8M4N6P7R0ST")),
			want: "prod/liveness/country=sg/date=2026-01-28/01JJ5ZK3W9Q2V1X8M4N6P7R0ST.jsonl",
			k: layout.Key{Kind: layout.KindLiveness, Partition: seedengine.Partition{Country: "sg", Date: "2026-01-28"},
				BatchID: "01JJ5ZK3W9Q2V1X8M4N6P7R0ST"},
		},
		{
			name: "liveness with a UUID batch id",
			key:  must(layout.LivenessKey("intl", "2026-01-28", "0194a3b2-7c1d-7e4f-8a9b-0c1d2e3f4a5b")),
			want: "prod/liveness/country=intl/date=2026-01-28/0194a3b2-7c1d-7e4f-8a9b-0c1d2e3f4a5b.jsonl",
			k: layout.Key{Kind: layout.KindLiveness, Partition: seedengine.Partition{Country: "intl", Date: "2026-01-28"},
				BatchID: "0194a3b2-7c1d-7e4f-8a9b-0c1d2e3f4a5b"},
		},
		{
			name: "liveness chunk part",
			key:  must(layout.LivenessChunkKey("sg", "2026-01-28", "01JJ5ZK3W9Q2V1X8M4N6P7R0ST", 7)),
			want: "prod/liveness/country=sg/date=2026-01-28/01JJ5ZK3W9Q2V1X8M4N6P7R0ST.part-00007.jsonl",
			k: layout.Key{Kind: layout.KindLivenessChunk, Partition: seedengine.Partition{Country: "sg", Date: "2026-01-28"},
				BatchID: "01JJ5ZK3W9Q2V1X8M4N6P7R0ST", Chunk: 7},
		},
		{
			name: "contract evidence in UTC, whole seconds",
			key:  must(layout.ContractEvidenceKey("mom.gov.sg", runAt, "k3x9qa7b")),
			want: "prod/contracts/mom.gov.sg/2026-01-28T031213Z-k3x9qa7b.json",
			k: layout.Key{Kind: layout.KindContractEvidence, Domain: "mom.gov.sg", Time: time.Date(2026, 1, 28, 3, 12, 13, 0, time.UTC),
				RunID: "k3x9qa7b"},
		},
		{
			name: "item file",
			key:  must(layout.ItemFileKey(sgNews, 1)),
			want: "items/country=sg/category=news/date=2026-01-28/items_0001.jsonl",
			k:    layout.Key{Kind: layout.KindItemFile, Partition: sgNews, Chunk: 1},
		},
		{
			name: "item file past 9999",
			key:  must(layout.ItemFileKey(intl, 12345)),
			want: "items/country=intl/category=press_release/date=2024-02-29/items_12345.jsonl",
			k:    layout.Key{Kind: layout.KindItemFile, Partition: intl, Chunk: 12345},
		},
		{
			name: "contract evidence written before run ids",
			key:  "prod/contracts/mom.gov.sg/2026-01-28T031213Z.json",
			want: "prod/contracts/mom.gov.sg/2026-01-28T031213Z.json",
			k:    layout.Key{Kind: layout.KindContractEvidence, Domain: "mom.gov.sg", Time: time.Date(2026, 1, 28, 3, 12, 13, 0, time.UTC)},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, tt.want, tt.key)
			got, err := layout.ParseKey(tt.key)
			require.NoError(t, err)
			require.Equal(t, tt.k, got)
		})
	}
}

func TestKeyPrefixes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		got  func() (string, error)
		want string
	}{
		{func() (string, error) { return layout.PartitionPrefix(sgNews) }, "raw/country=sg/category=news/date=2026-01-28/"},
		{func() (string, error) { return layout.ProdPartitionPrefix(sgNews) }, "prod/country=sg/category=news/date=2026-01-28/"},
		{func() (string, error) { return layout.ProdDomainPrefix(sgNews, "mom.gov.sg") }, "prod/country=sg/category=news/date=2026-01-28/mom.gov.sg/"},
		{func() (string, error) { return layout.LivenessPrefix("sg", "2026-01-28") }, "prod/liveness/country=sg/date=2026-01-28/"},
		{func() (string, error) { return layout.ContractEvidencePrefix("who.int") }, "prod/contracts/who.int/"},
	}
	for _, tt := range tests {
		got, err := tt.got()
		require.NoError(t, err)
		require.Equal(t, tt.want, got)
	}
}

// Run ids keep evidence keys of one domain and second apart, and the keys
// still sort by run time, older form included.
func TestContractRunID(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 1, 28, 3, 12, 0, 0, time.UTC)
	seen := map[string]bool{}
	for range 1000 {
		id := layout.NewContractRunID()
		require.Regexp(t, `^[a-z2-7]{8}$`, id)
		require.False(t, seen[id], "run ids repeat")
		seen[id] = true
		key, err := layout.ContractEvidenceKey("mom.gov.sg", at, id)
		require.NoError(t, err)
		k, err := layout.ParseKey(key)
		require.NoError(t, err)
		require.Equal(t, id, k.RunID)
	}
	keys := []string{
		"prod/contracts/mom.gov.sg/2026-01-28T031159Z-zzzzzzzz.json",
		"prod/contracts/mom.gov.sg/2026-01-28T031200Z-aaaaaaaa.json",
		"prod/contracts/mom.gov.sg/2026-01-28T031200Z.json",
		"prod/contracts/mom.gov.sg/2026-01-28T031201Z-22222222.json",
	}
	require.IsIncreasing(t, keys)
	var times []time.Time
	for _, key := range keys {
		k, err := layout.ParseKey(key)
		require.NoError(t, err)
		times = append(times, k.Time)
	}
	require.True(t, times[0].Before(times[1]) && times[1].Equal(times[2]) && times[2].Before(times[3]))
}

func TestChunkName(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		n    int
		name string
	}{{1, "raw_0001"}, {42, "raw_0042"}, {9999, "raw_9999"}, {10000, "raw_10000"}, {123456, "raw_123456"}} {
		name, err := layout.ChunkName(tt.n)
		require.NoError(t, err)
		require.Equal(t, tt.name, name)
		n, err := layout.ParseChunkName(name)
		require.NoError(t, err)
		require.Equal(t, tt.n, n)
	}
	for _, n := range []int{0, -1} {
		_, err := layout.ChunkName(n)
		requireCode(t, err, seedengine.EINVALID)
	}
	for _, name := range []string{
		"", "raw_", "raw_1", "raw_001", "raw_0000", "raw_00001", "raw_0001.json", "RAW_0001", "raw_+001",
		"raw_-001", "raw_00a1", "raw_99999999999999999999999", "chunk_0001", " raw_0001",
	} {
		_, err := layout.ParseChunkName(name)
		requireCode(t, err, seedengine.EINVALID)
		require.Equal(t, "chunk", seedengine.ErrorField(err), name)
	}
}

func TestRawFilterPrefix(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ country, category, want string }{
		{"", "", "raw/"},
		{"", "news", "raw/"},
		{"sg", "", "raw/country=sg/"},
		{"sg", "news", "raw/country=sg/category=news/"},
	} {
		got, err := layout.RawFilterPrefix(tt.country, tt.category)
		require.NoError(t, err)
		require.Equal(t, tt.want, got)
		if tt.country != "" && tt.category != "" {
			pp, err := layout.PartitionPrefix(seedengine.Partition{Country: tt.country, Category: tt.category, Date: "2026-01-28"})
			require.NoError(t, err)
			require.True(t, strings.HasPrefix(pp, got), "a partition lies under its filter prefix")
		}
	}
	for _, tt := range []struct{ country, category, field string }{
		{"SG", "", "country"}, {"sg", "Bad/", "category"}, {"", "../x", "category"}, {"s/", "news", "country"},
	} {
		_, err := layout.RawFilterPrefix(tt.country, tt.category)
		requireCode(t, err, seedengine.EINVALID)
		require.Equal(t, tt.field, seedengine.ErrorField(err))
	}
}

func TestKeyBuildRejects(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 1, 28, 3, 12, 0, 0, time.UTC)
	tests := []struct {
		name  string
		build func() (string, error)
		field string
	}{
		{"upper-case country", func() (string, error) {
			return layout.RawChunkKey(seedengine.Partition{Country: "SG", Category: "news", Date: "2026-01-28"}, 1)
		}, "country"},
		{"country with a slash", func() (string, error) {
			return layout.PartitionPrefix(seedengine.Partition{Country: "sg/..", Category: "news", Date: "2026-01-28"})
		}, "country"},
		{"category path escape", func() (string, error) {
			return layout.RawChunkKey(seedengine.Partition{Country: "sg", Category: "../../etc", Date: "2026-01-28"}, 1)
		}, "category"},
		{"not a calendar date", func() (string, error) {
			return layout.RawChunkKey(seedengine.Partition{Country: "sg", Category: "news", Date: "2026-02-30"}, 1)
		}, "date"},
		{"chunk zero", func() (string, error) { return layout.RawChunkKey(sgNews, 0) }, "chunk"},
		{"checkpoint of chunk -1", func() (string, error) { return layout.RawCheckpointKey(sgNews, -1) }, "chunk"},
		{"domain with a slash", func() (string, error) { return layout.ProdDomainPrefix(sgNews, "mom.gov.sg/x") }, "domain"},
		{"domain dot-dot", func() (string, error) { return layout.ProdDomainFileKey(sgNews, "..", layout.FileRobots) }, "domain"},
		{"domain empty label", func() (string, error) { return layout.ProdDomainFileKey(sgNews, "mom..sg", layout.FileRobots) }, "domain"},
		{"domain upper case", func() (string, error) { return layout.ProdDomainFileKey(sgNews, "MOM.gov.sg", layout.FileRobots) }, "domain"},
		{"domain trailing dot", func() (string, error) { return layout.ContractEvidenceKey("mom.gov.sg.", at, "r1") }, "domain"},
		{"domain leading hyphen", func() (string, error) { return layout.ContractEvidenceKey("-mom.gov.sg", at, "r1") }, "domain"},
		{"domain with a port", func() (string, error) { return layout.ContractEvidenceKey("mom.gov.sg:443", at, "r1") }, "domain"},
		{"domain in U-labels", func() (string, error) { return layout.ContractEvidenceKey("例子.测试", at, "r1") }, "domain"},
		{"domain too long", func() (string, error) {
			return layout.ContractEvidenceKey(strings.Repeat("a", 63)+"."+strings.Repeat("b", 63)+"."+strings.Repeat("c", 63)+"."+strings.Repeat("d", 63), at, "r1")
		}, "domain"},
		{"domain label too long", func() (string, error) { return layout.ContractEvidenceKey(strings.Repeat("a", 64)+".com", at, "r1") }, "domain"},
		{"domain empty", func() (string, error) { return layout.ContractEvidencePrefix("") }, "domain"},
		{"unknown domain file", func() (string, error) { return layout.ProdDomainFileKey(sgNews, "mom.gov.sg", "../../x") }, "file"},
		{"feed is not a domain file", func() (string, error) { return layout.ProdDomainFileKey(sgNews, "mom.gov.sg", "feed.xml") }, "file"},
		{"batch id with a slash", func() (string, error) { return layout.LivenessKey("sg", "2026-01-28", "../x") }, "batch_id"},
		{"batch id with an underscore", func() (string, error) { return layout.LivenessKey("sg", "2026-01-28", "a_b") }, "batch_id"},
		{"batch id empty", func() (string, error) { return layout.LivenessKey("sg", "2026-01-28", "") }, "batch_id"},
		{"batch id too long", func() (string, error) { return layout.LivenessKey("sg", "2026-01-28", strings.Repeat("a", 65)) }, "batch_id"},
		{"liveness chunk negative", func() (string, error) { return layout.LivenessChunkKey("sg", "2026-01-28", "b1", -1) }, "chunk"},
		{"liveness chunk too large", func() (string, error) { return layout.LivenessChunkKey("sg", "2026-01-28", "b1", 100000) }, "chunk"},
		{"liveness bad country", func() (string, error) { return layout.LivenessKey("xx", "2026-01-28", "b1") }, "country"},
		{"liveness bad date", func() (string, error) { return layout.LivenessKey("sg", "2026-1-28", "b1") }, "date"},
		{"contract zero time", func() (string, error) { return layout.ContractEvidenceKey("mom.gov.sg", time.Time{}, "r1") }, "time"},
		{"contract run id empty", func() (string, error) { return layout.ContractEvidenceKey("mom.gov.sg", at, "") }, "run_id"},
		{"contract run id upper case", func() (string, error) { return layout.ContractEvidenceKey("mom.gov.sg", at, "K3X9") }, "run_id"},
		{"contract run id with a slash", func() (string, error) { return layout.ContractEvidenceKey("mom.gov.sg", at, "../x") }, "run_id"},
		{"contract run id too long", func() (string, error) {
			return layout.ContractEvidenceKey("mom.gov.sg", at, strings.Repeat("a", 33))
		}, "run_id"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			key, err := tt.build()
			requireCode(t, err, seedengine.EINVALID)
			require.Equal(t, tt.field, seedengine.ErrorField(err))
			require.Empty(t, key)
		})
	}
}

func TestParseKeyRejects(t *testing.T) {
	t.Parallel()
	const raw = "raw/country=sg/category=news/date=2026-01-28/"
	const prod = "prod/country=sg/category=news/date=2026-01-28/"
	for _, key := range []string{
		"",
		"raw/",
		raw,
		raw + ".DS_Store",
		raw + "raw_0001.json.tmp",
		raw + "raw_0001.json.attrs",
		raw + "raw_0001",
		raw + "raw_0001.JSON",
		raw + "raw_01.json",
		raw + "raw_0000.json",
		raw + "raw_00001.json",
		raw + "raw_0001.json.success.success",
		raw + "raw_99999999999999999999999.json",
		raw + "raw_metadata.json.success",
		raw + "sub/raw_0001.json",
		"raw/country=SG/category=news/date=2026-01-28/raw_0001.json",
		"raw/country=sg/category=news/date=2026-02-30/raw_0001.json",
		"raw/country=sg/category=news/raw_0001.json",
		"raw/category=news/country=sg/date=2026-01-28/raw_0001.json",
		"raw/country=sg/category=news/date=2026-01-28/../raw_0001.json",
		"/raw/country=sg/category=news/date=2026-01-28/raw_0001.json",
		"other/country=sg/category=news/date=2026-01-28/raw_0001.json",
		prod + "mom.gov.sg/other.txt",
		prod + "mom.gov.sg/",
		prod + "../domain_metadata.json",
		prod + "MOM.gov.sg/domain_metadata.json",
		prod + "mom.gov.sg/x/domain_metadata.json",
		"prod/liveness/country=sg/date=2026-01-28/a_b.jsonl",
		"prod/liveness/country=sg/date=2026-01-28/b1.json",
		"prod/liveness/country=sg/category=news/date=2026-01-28/b1.jsonl",
		"prod/contracts/mom.gov.sg/2026-01-28T03:12:00Z.json",
		"prod/contracts/mom.gov.sg/2026-01-28T031200.json",
		"prod/contracts/mom.gov.sg/2026-01-28T031260Z.json",
		"prod/contracts/mom.gov.sg/latest.json",
		"prod/contracts/mom.gov.sg/2026-01-28T031200Z-.json",
		"prod/contracts/mom.gov.sg/2026-01-28T031200Z_k3x9qa7b.json",
		"prod/contracts/mom.gov.sg/2026-01-28T031200Z-K3X9QA7B.json",
		"prod/contracts/mom.gov.sg/2026-01-28T031200Z-k3x9.qa7b.json",
		"prod/contracts/mom.gov.sg/2026-01-28T031200Z-" + strings.Repeat("a", 33) + ".json",
		"prod/contracts/mom.gov.sg/2026-01-28T031200Zk3x9qa7b.json",
		"items/country=sg/category=news/date=2026-01-28/items_0000.jsonl",
		"items/country=sg/category=news/date=2026-01-28/items_001.jsonl",
		"items/country=sg/category=news/date=2026-01-28/items_00001.jsonl",
		"items/country=sg/category=news/date=2026-01-28/items_0001.json",
		"items/country=sg/category=news/date=2026-01-28/items_0001.jsonl.tmp",
		"items/country=sg/category=news/date=2026-01-28/items_+001.jsonl",
		"items/country=sg/category=news/items_0001.jsonl",
		"prod/contracts/../2026-01-28T031200Z.json",
		"prod/liveness",
		"prod",
	} {
		k, err := layout.ParseKey(key)
		requireCode(t, err, seedengine.EINVALID)
		require.Equal(t, "key", seedengine.ErrorField(err), key)
		require.Equal(t, layout.Key{}, k, key)
	}
}

func requireCode(t *testing.T, err error, code string) {
	t.Helper()
	require.Error(t, err)
	require.Equal(t, code, seedengine.ErrorCode(err), "error: %v", err)
}
