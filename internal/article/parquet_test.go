package article_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"
	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/article"
	"github.com/seedengine/seedengine/internal/benchmem"
)

// parquetSchema is the articles files' schema as parquet-go prints it:
// docs/articles.md ("Parquet files") documents it, column by column.
const parquetSchema = `message parquetRow {
	required int64 id (INT(64,true));
	required int64 item_id (INT(64,true));
	required binary seed_id (STRING);
	required binary country (STRING);
	required binary category (STRING);
	required int32 date (DATE);
	required binary url (STRING);
	required binary canonical_url (STRING);
	required binary title (STRING);
	required group authors (LIST) {
		repeated group list {
			required binary element (STRING);
		}
	}
	optional int64 published_at (TIMESTAMP(isAdjustedToUTC=true,unit=MICROS));
	optional binary published_at_local (STRING);
	optional int64 modified_at (TIMESTAMP(isAdjustedToUTC=true,unit=MICROS));
	optional binary modified_at_local (STRING);
	required binary language (STRING);
	required binary site_name (STRING);
	required binary section (STRING);
	required binary description (STRING);
	required binary image_url (STRING);
	required binary text (STRING);
	required int32 word_count (INT(32,true));
	required group methods (MAP) {
		repeated group key_value {
			required binary key (STRING);
			required binary value (STRING);
		}
	}
	required binary not_article (STRING);
	optional int64 duplicate_of (INT(64,true));
	required int64 extracted_at (TIMESTAMP(isAdjustedToUTC=true,unit=MICROS));
}`

func ptime(t time.Time) *time.Time { return &t }

// sampleArticles are articles with what a writer can get wrong: times in
// other zones, with nanoseconds and missing; no authors, nil and empty;
// text with newlines, tabs and letters beyond ASCII; no methods; pages
// that are not articles; a duplicate; a category of digits (which DuckDB
// would take for a number in a path).
func sampleArticles() []seedengine.Article {
	kolkata := time.FixedZone("", 5*3600+30*60)
	la := time.FixedZone("", -7*3600)
	return []seedengine.Article{
		{
			ID: 1, ItemID: 101, SeedID: "seed-a", Country: "de", Category: "news", Date: "2024-05-01",
			ArticleFields: seedengine.ArticleFields{
				URL:          "https://example.de/politik/1?x=1&y=ü",
				CanonicalURL: "https://example.de/politik/1",
				Title:        "Über „Anführungszeichen“ — ein Titel",
				Authors:      []string{"Jürgen Müller", "李小龍"},
				PublishedAt:  ptime(time.Date(2024, 5, 1, 14, 30, 15, 123456000, kolkata)),
				ModifiedAt:   ptime(time.Date(2024, 5, 1, 10, 0, 0, 0, time.UTC)),
				Language:     "de",
				SiteName:     "Example DE",
				Section:      "Politik",
				Description:  "Eine Beschreibung.",
				ImageURL:     "https://example.de/img/1.jpg",
				Text:         "Erster Absatz mit Ümläuten.\n\nZweiter Absatz:\tTab, \"Quotes\", 'apostrophe', \\backslash.\n\n中文段落。🎉\r\nEnde.",
				WordCount:    17,
				Methods: map[string]string{
					"title": "json_ld", "authors": "json_ld", "published_at": "json_ld",
					"text": "generic", "language": "meta",
				},
			},
			ExtractedAt: time.Date(2024, 5, 1, 12, 0, 0, 654321000, time.UTC),
		},
		{
			ID: 2, ItemID: 102, SeedID: "seed-b", Country: "fr", Category: "sport", Date: "2024-05-02",
			ArticleFields: seedengine.ArticleFields{
				URL:        "https://example.fr/x",
				Text:       "",
				NotArticle: "no_text",
			},
			ExtractedAt: time.Date(2024, 5, 2, 0, 0, 0, 0, time.UTC),
		},
		{
			ID: 3, ItemID: 103, SeedID: "seed-a", Country: "de", Category: "news", Date: "2024-05-01",
			ArticleFields: seedengine.ArticleFields{
				URL:         "https://example.de/politik/1-copy",
				Title:       "Copy",
				Authors:     []string{},
				PublishedAt: ptime(time.Date(1999, 12, 31, 23, 59, 59, 999999999, la)),
				Language:    "de",
				Text:        "Erster Absatz mit Ümläuten.\n\nZweiter.",
				WordCount:   6,
				Methods:     map[string]string{},
			},
			DuplicateOf: 1,
			ExtractedAt: time.Date(2024, 5, 1, 12, 0, 1, 0, time.FixedZone("", 3600)),
		},
		{
			ID: 4, ItemID: 104, SeedID: "seed-c", Country: "no", Category: "2024", Date: "2024-05-02",
			ArticleFields: seedengine.ArticleFields{
				URL:        "https://example.no/kort",
				Title:      "Kort",
				Authors:    []string{"Åse"},
				ModifiedAt: ptime(time.Date(2024, 5, 2, 1, 2, 3, 456789123, time.FixedZone("", -(3*3600+30*60)))),
				Language:   "nb",
				Text:       "For kort.",
				WordCount:  2,
				Methods:    map[string]string{"title": "opengraph"},
				NotArticle: "too_short",
			},
			ExtractedAt: time.Date(2024, 5, 2, 3, 0, 0, 0, time.UTC),
		},
	}
}

// feed is a next function over as.
func feed(as []seedengine.Article) func() (*seedengine.Article, error) {
	i := 0
	return func() (*seedengine.Article, error) {
		if i == len(as) {
			return nil, nil
		}
		i++
		return &as[i-1], nil
	}
}

func writeParquet(t testing.TB, as []seedengine.Article) []byte {
	t.Helper()
	var buf bytes.Buffer
	n, err := article.WriteParquet(&buf, feed(as))
	require.NoError(t, err)
	require.Equal(t, int64(len(as)), n)
	return buf.Bytes()
}

// readRow reads a row of the file with parquet-go's generic reader, by
// column name and type, independently of the writer's row struct.
type readRow struct {
	ID               int64             `parquet:"id"`
	ItemID           int64             `parquet:"item_id"`
	SeedID           string            `parquet:"seed_id"`
	Country          string            `parquet:"country"`
	Category         string            `parquet:"category"`
	Date             time.Time         `parquet:"date,date"`
	URL              string            `parquet:"url"`
	CanonicalURL     string            `parquet:"canonical_url"`
	Title            string            `parquet:"title"`
	Authors          []string          `parquet:"authors,list"`
	PublishedAt      *time.Time        `parquet:"published_at,optional,timestamp(microsecond)"`
	PublishedAtLocal *string           `parquet:"published_at_local,optional"`
	ModifiedAt       *time.Time        `parquet:"modified_at,optional,timestamp(microsecond)"`
	ModifiedAtLocal  *string           `parquet:"modified_at_local,optional"`
	Language         string            `parquet:"language"`
	SiteName         string            `parquet:"site_name"`
	Section          string            `parquet:"section"`
	Description      string            `parquet:"description"`
	ImageURL         string            `parquet:"image_url"`
	Text             string            `parquet:"text"`
	WordCount        int32             `parquet:"word_count"`
	Methods          map[string]string `parquet:"methods"`
	NotArticle       string            `parquet:"not_article"`
	DuplicateOf      *int64            `parquet:"duplicate_of,optional"`
	ExtractedAt      time.Time         `parquet:"extracted_at,timestamp(microsecond)"`
}

func readParquet(t *testing.T, b []byte) (*parquet.File, []readRow) {
	t.Helper()
	f, err := parquet.OpenFile(bytes.NewReader(b), int64(len(b)))
	require.NoError(t, err)
	r := parquet.NewGenericReader[readRow](f)
	defer r.Close()
	rows := make([]readRow, f.NumRows())
	n, err := r.Read(rows)
	if !errors.Is(err, io.EOF) {
		require.NoError(t, err)
	}
	require.Equal(t, len(rows), n)
	return f, rows
}

// requireTime checks a time column and its _local twin: the instant to
// the microsecond, and the page's own offset and full precision in the
// RFC 3339 string.
func requireTime(t *testing.T, want, got *time.Time, local *string, name string) {
	t.Helper()
	if want == nil {
		require.Nil(t, got, name)
		require.Nil(t, local, name+"_local")
		return
	}
	require.NotNil(t, got, name)
	require.True(t, want.Truncate(time.Microsecond).Equal(*got), "%s: %v, want %v", name, *got, *want)
	require.NotNil(t, local, name+"_local")
	lt, err := time.Parse(time.RFC3339Nano, *local)
	require.NoError(t, err)
	require.True(t, want.Equal(lt), "%s_local %s, want %v", name, *local, *want)
	_, wantOff := want.Zone()
	_, gotOff := lt.Zone()
	require.Equal(t, wantOff, gotOff, "%s_local keeps the offset", name)
}

// TestParquetRoundTrip reads the file back with parquet-go's generic
// reader: the schema is the documented one, compressed with zstd, and
// every field of every article comes back.
func TestParquetRoundTrip(t *testing.T) {
	t.Parallel()
	as := sampleArticles()
	f, rows := readParquet(t, writeParquet(t, as))

	require.Equal(t, parquetSchema, f.Schema().String())
	for _, rg := range f.Metadata().RowGroups {
		for _, c := range rg.Columns {
			require.Equal(t, "ZSTD", c.MetaData.Codec.String(), "%v", c.MetaData.PathInSchema)
		}
	}
	dict := map[string]bool{}
	for _, c := range f.Metadata().RowGroups[0].Columns {
		if c.MetaData.DictionaryPageOffset != 0 {
			dict[strings.Join(c.MetaData.PathInSchema, ".")] = true
		}
	}
	for _, col := range []string{"seed_id", "country", "category", "date", "language", "site_name", "section", "not_article", "methods.key_value.key", "methods.key_value.value"} {
		require.True(t, dict[col], "%s is dictionary-encoded", col)
	}
	require.False(t, dict["text"], "text is not dictionary-encoded")

	require.Len(t, rows, len(as))
	for i, want := range as {
		got := rows[i]
		requireTime(t, want.PublishedAt, got.PublishedAt, got.PublishedAtLocal, "published_at")
		requireTime(t, want.ModifiedAt, got.ModifiedAt, got.ModifiedAtLocal, "modified_at")
		require.True(t, want.ExtractedAt.Equal(got.ExtractedAt), "extracted_at %v, want %v", got.ExtractedAt, want.ExtractedAt)
		require.Equal(t, want.Date, got.Date.UTC().Format(time.DateOnly))

		back := seedengine.Article{
			ID: got.ID, ItemID: got.ItemID, SeedID: got.SeedID,
			Country: got.Country, Category: got.Category, Date: want.Date,
			ArticleFields: seedengine.ArticleFields{
				URL: got.URL, CanonicalURL: got.CanonicalURL, Title: got.Title,
				Authors: got.Authors, Language: got.Language, SiteName: got.SiteName,
				Section: got.Section, Description: got.Description, ImageURL: got.ImageURL,
				Text: got.Text, WordCount: int(got.WordCount), Methods: got.Methods,
				NotArticle: got.NotArticle,
			},
		}
		if got.DuplicateOf != nil {
			require.NotZero(t, *got.DuplicateOf, "duplicate_of is null, not 0, when none")
			back.DuplicateOf = *got.DuplicateOf
		}
		// Compared above; no authors and no methods read back as none.
		want.PublishedAt, want.ModifiedAt, want.ExtractedAt = nil, nil, time.Time{}
		if len(want.Authors) == 0 {
			want.Authors, back.Authors = nil, nil
		}
		if len(want.Methods) == 0 {
			want.Methods, back.Methods = nil, nil
		}
		require.Equal(t, want, back, "article %d", want.ID)
	}
}

// TestParquetEmpty: no article is a file with the schema and no row.
func TestParquetEmpty(t *testing.T) {
	t.Parallel()
	f, rows := readParquet(t, writeParquet(t, nil))
	require.Equal(t, parquetSchema, f.Schema().String())
	require.Empty(t, rows)
}

// TestParquetErrors: next's error and a bad date stop the writer.
func TestParquetErrors(t *testing.T) {
	t.Parallel()
	boom := errors.New("boom")
	calls := 0
	n, err := article.WriteParquet(io.Discard, func() (*seedengine.Article, error) {
		calls++
		if calls == 3 {
			return nil, boom
		}
		a := sampleArticles()[0]
		return &a, nil
	})
	require.ErrorIs(t, err, boom)
	require.Equal(t, int64(2), n)

	bad := sampleArticles()[:1]
	bad[0].Date = "2024-5-1"
	_, err = article.WriteParquet(io.Discard, feed(bad))
	require.ErrorContains(t, err, "YYYY-MM-DD")
}

// bigArticle returns the i-th of many articles of about textBytes of
// text each, its text words drawn at random: like a page's, it does not
// repeat another's.
func bigArticle(i, textBytes int) *seedengine.Article {
	seq := uint32(i)*2654435761 + 1
	var b strings.Builder
	b.Grow(textBytes + 16)
	for b.Len() < textBytes {
		seq = seq*1664525 + 1013904223
		b.WriteString(benchWords[seq>>16%uint32(len(benchWords))])
		if seq>>8%37 == 0 {
			b.WriteString(".\n\n")
		} else {
			b.WriteByte(' ')
		}
	}
	text := b.String()
	published := time.Date(2024, 5, 1, 8, 0, 0, 0, time.FixedZone("", 2*3600))
	return &seedengine.Article{
		ID: int64(i), ItemID: int64(1_000_000 + i), SeedID: fmt.Sprintf("seed-%03d", i%200),
		Country: benchCountries[i%len(benchCountries)], Category: "news", Date: "2024-05-01",
		ArticleFields: seedengine.ArticleFields{
			URL:         fmt.Sprintf("https://news%d.example.com/2024/05/01/story-%d", i%200, i),
			Title:       text[:60],
			Authors:     []string{fmt.Sprintf("Author %d", i%500)},
			PublishedAt: ptime(published.Add(time.Duration(i) * time.Second)),
			Language:    "en",
			SiteName:    fmt.Sprintf("News %d", i%200),
			Description: text[60:200],
			Text:        text,
			WordCount:   textBytes / 6,
			Methods:     map[string]string{"title": "json_ld", "text": "generic", "published_at": "json_ld", "authors": "meta"},
		},
		ExtractedAt: published.Add(time.Duration(i) * time.Millisecond),
	}
}

var (
	benchWords     = strings.Fields("the of and to in a is that for it as was with be by on not he this are or his from at which but have an they you were her she there been one all we their has would when if so no will more can who out up said into than them only some could new time these two may first then do any like my now over such our man me even most made after also did many before must through back years where much your way well down should because each just those people how too little state good very make world still own see men work long get here between both life being under never day same another know while last might us great old year off come since against go came right used take three minister government parliament election police court city council market company percent million billion report week monday tuesday wednesday thursday friday saturday sunday season team match goal player coach league club home away school university health hospital weather storm river bridge road train airport")
	benchCountries = []string{"de", "fr", "us", "gb", "in"}
)

// bigArticles is a next function over n articles bigArticle makes as
// they are asked for.
func bigArticles(n, textBytes int) func() (*seedengine.Article, error) {
	i := 0
	return func() (*seedengine.Article, error) {
		if i == n {
			return nil, nil
		}
		i++
		return bigArticle(i, textBytes), nil
	}
}

// TestParquetRowGroups: a row group every 10,000 rows, and the file
// reads back whole.
func TestParquetRowGroups(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	n, err := article.WriteParquet(&buf, bigArticles(25_000, 200))
	require.NoError(t, err)
	require.Equal(t, int64(25_000), n)
	f, err := parquet.OpenFile(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	require.NoError(t, err)
	var sizes []int64
	for _, rg := range f.RowGroups() {
		sizes = append(sizes, rg.NumRows())
	}
	require.Equal(t, []int64{10_000, 10_000, 5_000}, sizes)
}

// TestParquetStreams: the writer's memory stays flat however many
// articles. Writing 200 MB of text, the heap live after a collection,
// sampled every 2,000 rows, grows by about one row group's worth (held
// compressed) at most, and is no higher in the fourth row group than in
// the first.
func TestParquetStreams(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 200 MB")
	}
	const n, textBytes = 40_000, 5_000
	articles := bigArticles(n, textBytes)
	runtime.GC()
	base := benchmem.HeapObjects()
	var live []uint64 // live heap growth, every 2,000 rows
	i := 0
	next := func() (*seedengine.Article, error) {
		if i%2_000 == 0 && i > 0 {
			runtime.GC()
			live = append(live, benchmem.HeapObjects()-min(base, benchmem.HeapObjects()))
		}
		i++
		return articles()
	}
	var out countWriter
	rows, err := article.WriteParquet(&out, next)
	require.NoError(t, err)
	require.Equal(t, int64(n), rows)
	firstGroup := slices.Max(live[:5])
	lastGroup := slices.Max(live[15:])
	t.Logf("%d articles, %d MiB of text, file %d MiB: live heap grew at most %.1f MiB in the first row group, %.1f MiB in the last",
		n, n*textBytes>>20, out>>20, benchmem.MiB(firstGroup), benchmem.MiB(lastGroup))
	// Flat: 190 MiB of text went through, and the live heap stayed under
	// a third of it all along (a writer that kept rows would pass 190).
	require.Less(t, slices.Max(live), uint64(64<<20), "live heap, MiB every 2,000 rows: %v", mibs(live))
}

func mibs(bs []uint64) []int {
	var m []int
	for _, b := range bs {
		m = append(m, int(b>>20))
	}
	return m
}

type countWriter int64

func (w *countWriter) Write(p []byte) (int, error) { *w += countWriter(len(p)); return len(p), nil }

// BenchmarkWriteParquet writes 10,000 articles of ~5 KB of text (made
// beforehand) an operation: rows/s, the file's bytes per row, and how
// far the heap (garbage not yet collected included) grew above the
// articles at its peak.
func BenchmarkWriteParquet(b *testing.B) {
	const rowsPerOp = 10_000
	as := make([]seedengine.Article, rowsPerOp)
	for i := range as {
		as[i] = *bigArticle(i+1, 5_000)
	}
	var out countWriter
	runtime.GC()
	base := benchmem.HeapObjects()
	stop := benchmem.SampleHeap()
	for b.Loop() {
		out = 0
		if _, err := article.WriteParquet(&out, feed(as)); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*rowsPerOp)/b.Elapsed().Seconds(), "rows/s")
	b.ReportMetric(float64(out)/rowsPerOp, "file_B/row")
	peak := stop()
	b.ReportMetric(benchmem.MiB(peak-min(peak, base)), "peak_heap_growth_MiB")
}

// duckDBDir is where package.json's pinned @duckdb/node-api is installed
// ($SEEDENGINE_DUCKDB_DIR, which .ci/run sets). Without it, or without
// node, the test skips, and under CI=true fails (as warciotest.Dir).
func duckDBDir(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("SEEDENGINE_DUCKDB_DIR")
	_, nodeErr := exec.LookPath("node")
	if dir != "" && nodeErr == nil {
		return dir
	}
	msg := "SEEDENGINE_DUCKDB_DIR is not set"
	if nodeErr != nil {
		msg = "node is not installed"
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s: .ci/run installs @duckdb/node-api and sets it", msg)
	}
	t.Skipf("%s; .ci/run installs @duckdb/node-api", msg)
	return ""
}

// duckDBResult is what read.mjs prints.
type duckDBResult struct {
	Columns []struct{ Name, Type string } `json:"columns"`
	Rows    []map[string]any              `json:"rows"`
}

// duckDBRead has DuckDB read path (a file or a glob, hive partitioned
// when hive) with SELECT * … ORDER BY id.
func duckDBRead(t *testing.T, dir, path string, hive bool) duckDBResult {
	t.Helper()
	_, self, _, _ := runtime.Caller(0)
	args := []string{filepath.Join(filepath.Dir(self), "testdata", "duckdb", "read.mjs"), dir, path}
	if hive {
		args = append(args, "hive")
	}
	cmd := exec.Command("node", args...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, "read.mjs: %s", stderr.String())
	var res duckDBResult
	dec := json.NewDecoder(bytes.NewReader(out))
	dec.UseNumber()
	require.NoError(t, dec.Decode(&res), "read.mjs printed %q", out)
	return res
}

func (r duckDBResult) types() map[string]string {
	m := map[string]string{}
	for _, c := range r.Columns {
		m[c.Name] = c.Type
	}
	return m
}

// duckDBTypes are the column types DuckDB gives the files
// (docs/articles.md).
var duckDBTypes = map[string]string{
	"id": "BIGINT", "item_id": "BIGINT", "seed_id": "VARCHAR",
	"country": "VARCHAR", "category": "VARCHAR", "date": "DATE",
	"url": "VARCHAR", "canonical_url": "VARCHAR", "title": "VARCHAR",
	"authors":      "VARCHAR[]",
	"published_at": "TIMESTAMP WITH TIME ZONE", "published_at_local": "VARCHAR",
	"modified_at": "TIMESTAMP WITH TIME ZONE", "modified_at_local": "VARCHAR",
	"language": "VARCHAR", "site_name": "VARCHAR", "section": "VARCHAR",
	"description": "VARCHAR", "image_url": "VARCHAR", "text": "VARCHAR",
	"word_count": "INTEGER", "methods": "MAP(VARCHAR, VARCHAR)",
	"not_article": "VARCHAR", "duplicate_of": "BIGINT",
	"extracted_at": "TIMESTAMP WITH TIME ZONE",
}

// duckDBTime is t as read.mjs prints an instant.
func duckDBTime(t *time.Time) any {
	if t == nil {
		return nil
	}
	return t.UTC().Truncate(time.Microsecond).Format("2006-01-02T15:04:05.000000Z")
}

// duckDBRow is what DuckDB must read of a (read.mjs's JSON form).
func duckDBRow(a seedengine.Article) map[string]any {
	local := func(t *time.Time) any {
		if t == nil {
			return nil
		}
		return t.Format(time.RFC3339Nano)
	}
	authors := []any{}
	for _, s := range a.Authors {
		authors = append(authors, s)
	}
	methods := map[string]any{}
	for k, v := range a.Methods {
		methods[k] = v
	}
	var dup any
	if a.DuplicateOf != 0 {
		dup = json.Number(fmt.Sprint(a.DuplicateOf))
	}
	return map[string]any{
		"id": json.Number(fmt.Sprint(a.ID)), "item_id": json.Number(fmt.Sprint(a.ItemID)),
		"seed_id": a.SeedID, "country": a.Country, "category": a.Category, "date": a.Date,
		"url": a.URL, "canonical_url": a.CanonicalURL, "title": a.Title, "authors": authors,
		"published_at": duckDBTime(a.PublishedAt), "published_at_local": local(a.PublishedAt),
		"modified_at": duckDBTime(a.ModifiedAt), "modified_at_local": local(a.ModifiedAt),
		"language": a.Language, "site_name": a.SiteName, "section": a.Section,
		"description": a.Description, "image_url": a.ImageURL, "text": a.Text,
		"word_count": json.Number(fmt.Sprint(a.WordCount)), "methods": methods,
		"not_article": a.NotArticle, "duplicate_of": dup,
		"extracted_at": duckDBTime(&a.ExtractedAt),
	}
}

// TestDuckDBReadsArticles has DuckDB, an independent reader, read a file:
// every row and every value, with the column types docs/articles.md
// gives; and read the partitioned layout as docs/articles.md says, with
// hive_partitioning=true: the partition columns of the paths stand for
// the file's own of the same names, with the same values and types.
func TestDuckDBReadsArticles(t *testing.T) {
	t.Parallel()
	dir := duckDBDir(t)
	as := sampleArticles()

	t.Run("file", func(t *testing.T) {
		t.Parallel()
		path := filepath.Join(t.TempDir(), "articles.parquet")
		require.NoError(t, os.WriteFile(path, writeParquet(t, as), 0o644))
		res := duckDBRead(t, dir, path, false)

		var names []string
		for _, c := range res.Columns {
			names = append(names, c.Name)
		}
		require.Equal(t, []string{
			"id", "item_id", "seed_id", "country", "category", "date", "url",
			"canonical_url", "title", "authors", "published_at", "published_at_local",
			"modified_at", "modified_at_local", "language", "site_name", "section",
			"description", "image_url", "text", "word_count", "methods",
			"not_article", "duplicate_of", "extracted_at",
		}, names)
		require.Equal(t, duckDBTypes, res.types())

		require.Len(t, res.Rows, len(as))
		for i, a := range as {
			require.Equal(t, duckDBRow(a), res.Rows[i], "article %d", a.ID)
		}
		// The instant, spelled out for the non-UTC one.
		require.Equal(t, "2024-05-01T09:00:15.123456Z", res.Rows[0]["published_at"])
		require.Equal(t, "2024-05-01T14:30:15.123456+05:30", res.Rows[0]["published_at_local"])
		require.Equal(t, "2000-01-01T06:59:59.999999Z", res.Rows[2]["published_at"])
	})

	// The layout of the files: hive partitioning must agree with the
	// columns the file holds of the same names.
	t.Run("hive", func(t *testing.T) {
		t.Parallel()
		root := filepath.Join(t.TempDir(), "articles")
		parts := map[seedengine.Partition][]seedengine.Article{}
		for _, a := range as {
			parts[a.Partition()] = append(parts[a.Partition()], a)
		}
		for p, pas := range parts {
			d := filepath.Join(root, "country="+p.Country, "category="+p.Category, "date="+p.Date)
			require.NoError(t, os.MkdirAll(d, 0o755))
			require.NoError(t, os.WriteFile(filepath.Join(d, "articles.parquet"), writeParquet(t, pas), 0o644))
		}
		glob := filepath.Join(root, "country=*", "category=*", "date=*", "articles.parquet")
		res := duckDBRead(t, dir, glob, true)
		require.Equal(t, duckDBTypes, res.types())
		require.Len(t, res.Rows, len(as))
		for i, a := range as {
			require.Equal(t, duckDBRow(a), res.Rows[i], "article %d", a.ID)
		}
		// Only paths whose category is digits: hive_types keeps it
		// VARCHAR, as in the file.
		glob = filepath.Join(root, "country=*", "category=2024", "date=*", "articles.parquet")
		res = duckDBRead(t, dir, glob, true)
		require.Equal(t, duckDBTypes, res.types())
		require.Len(t, res.Rows, 1)
		require.Equal(t, duckDBRow(as[3]), res.Rows[0])
	})
}
