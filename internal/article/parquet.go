package article

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/klauspost/compress/zstd"
	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"

	"github.com/seedengine/seedengine"
)

// The Parquet files of articles (articles/country=…/category=…/date=…/
// articles.parquet) have one row per article, the columns of parquetRow
// in this order (docs/articles.md, "Parquet files", is the reference):
//
//	id                  INT64                          required
//	item_id             INT64                          required
//	seed_id             STRING (dictionary)            required
//	country             STRING (dictionary)            required
//	category            STRING (dictionary)            required
//	date                DATE (dictionary)              required
//	url                 STRING                         required
//	canonical_url       STRING                         required, "" when none
//	title               STRING                         required, "" when none
//	authors             LIST<STRING>                   required, [] when none
//	published_at        TIMESTAMP(MICROS, UTC)         optional
//	published_at_local  STRING                         optional: RFC 3339, the page's own offset
//	modified_at         TIMESTAMP(MICROS, UTC)         optional
//	modified_at_local   STRING                         optional: RFC 3339, the page's own offset
//	language            STRING (dictionary)            required, "" when unknown
//	site_name           STRING (dictionary)            required
//	section             STRING (dictionary)            required
//	description         STRING                         required
//	image_url           STRING                         required
//	text                STRING                         required
//	word_count          INT32                          required
//	methods             MAP<STRING, STRING> (dictionary keys and values) required
//	not_article         STRING (dictionary)            required, "" for an article
//	duplicate_of        INT64                          optional, null when none
//	extracted_at        TIMESTAMP(MICROS, UTC)         required
//
// Every column chunk is zstd-compressed (level 3, a 1 MiB window); data
// pages are version 2, with statistics. A TIMESTAMP with
// isAdjustedToUTC=true holds an instant (DuckDB: TIMESTAMP WITH TIME
// ZONE) and loses the page's own time zone, which the *_local string
// keeps (RFC 3339, as the JSON Lines files write the time) along with any
// precision below the microsecond.

// parquetRow is one row of an articles Parquet file: its schema is the
// files' and changing it changes them.
type parquetRow struct {
	ID               int64             `parquet:"id,delta"`
	ItemID           int64             `parquet:"item_id"`
	SeedID           string            `parquet:"seed_id,dict"`
	Country          string            `parquet:"country,dict"`
	Category         string            `parquet:"category,dict"`
	Date             int32             `parquet:"date,date,dict"`
	URL              string            `parquet:"url"`
	CanonicalURL     string            `parquet:"canonical_url"`
	Title            string            `parquet:"title"`
	Authors          []string          `parquet:"authors,list"`
	PublishedAt      *time.Time        `parquet:"published_at,optional,timestamp(microsecond:utc)"`
	PublishedAtLocal *string           `parquet:"published_at_local,optional"`
	ModifiedAt       *time.Time        `parquet:"modified_at,optional,timestamp(microsecond:utc)"`
	ModifiedAtLocal  *string           `parquet:"modified_at_local,optional"`
	Language         string            `parquet:"language,dict"`
	SiteName         string            `parquet:"site_name,dict"`
	Section          string            `parquet:"section,dict"`
	Description      string            `parquet:"description"`
	ImageURL         string            `parquet:"image_url"`
	Text             string            `parquet:"text"`
	WordCount        int32             `parquet:"word_count"`
	Methods          map[string]string `parquet:"methods" parquet-key:",dict" parquet-value:",dict"`
	NotArticle       string            `parquet:"not_article,dict"`
	DuplicateOf      *int64            `parquet:"duplicate_of,optional"`
	ExtractedAt      time.Time         `parquet:"extracted_at,timestamp(microsecond:utc)"`
}

// Row groups end at parquetRowGroupRows rows or once the row group's
// values reach about parquetRowGroupBytes (uncompressed, counted as the
// bytes of its strings), whichever comes first: the writer holds one row
// group, compressed, in memory, so that bounds its memory however long
// the file.
const (
	parquetRowGroupRows  = 10_000
	parquetRowGroupBytes = 64 << 20
	// parquetBatch rows are handed to the writer at a time.
	parquetBatch = 128
)

// WriteParquet writes the articles next returns, until it returns nil,
// as one Parquet file to w (the schema above), in that order, and
// returns how many it wrote. It streams: it holds at most one row group,
// not the file. It keeps the strings, slices and maps of the articles
// next returned until it returns: next may return the same *Article
// again with new values, but must not change an earlier one's Authors or
// Methods in place. An article whose Date is not YYYY-MM-DD is an error;
// next's error is returned as it is. Times are kept to the microsecond
// (and whole in the *_local columns). On error what w was given is not a
// Parquet file.
func WriteParquet(w io.Writer, next func() (*seedengine.Article, error)) (rows int64, err error) {
	pw := parquet.NewGenericWriter[parquetRow](w,
		parquet.Compression(&parquetZstd),
	)
	batch := make([]parquetRow, 0, parquetBatch)
	var groupRows, groupBytes int64
	write := func() error {
		if len(batch) == 0 {
			return nil
		}
		if _, err := pw.Write(batch); err != nil {
			return err
		}
		clear(batch) // drop the references to the articles' strings
		batch = batch[:0]
		return nil
	}
	for {
		a, err := next()
		if err != nil {
			return rows, err
		}
		if a == nil {
			break
		}
		r, size, err := toParquetRow(a)
		if err != nil {
			return rows, err
		}
		batch = append(batch, r)
		rows++
		groupRows++
		groupBytes += size
		if len(batch) == cap(batch) || groupRows >= parquetRowGroupRows || groupBytes >= parquetRowGroupBytes {
			if err := write(); err != nil {
				return rows, fmt.Errorf("parquet: %w", err)
			}
		}
		if groupRows >= parquetRowGroupRows || groupBytes >= parquetRowGroupBytes {
			if err := pw.Flush(); err != nil {
				return rows, fmt.Errorf("parquet: %w", err)
			}
			groupRows, groupBytes = 0, 0
		}
	}
	if err := write(); err != nil {
		return rows, fmt.Errorf("parquet: %w", err)
	}
	if err := pw.Close(); err != nil {
		return rows, fmt.Errorf("parquet: %w", err)
	}
	return rows, nil
}

// toParquetRow makes a's row; size estimates its bytes.
func toParquetRow(a *seedengine.Article) (r parquetRow, size int64, err error) {
	day, err := time.Parse(time.DateOnly, a.Date)
	if err != nil {
		return r, 0, fmt.Errorf("article %d: date %q is not YYYY-MM-DD", a.ID, a.Date)
	}
	r = parquetRow{
		ID:           a.ID,
		ItemID:       a.ItemID,
		SeedID:       a.SeedID,
		Country:      a.Country,
		Category:     a.Category,
		Date:         int32(day.Unix() / (24 * 60 * 60)), // days since 1970-01-01
		URL:          a.URL,
		CanonicalURL: a.CanonicalURL,
		Title:        a.Title,
		Authors:      a.Authors,
		Language:     a.Language,
		SiteName:     a.SiteName,
		Section:      a.Section,
		Description:  a.Description,
		ImageURL:     a.ImageURL,
		Text:         a.Text,
		WordCount:    int32(min(a.WordCount, 1<<31-1)),
		Methods:      a.Methods,
		NotArticle:   a.NotArticle,
		ExtractedAt:  a.ExtractedAt,
	}
	if r.Authors == nil {
		r.Authors = []string{}
	}
	r.PublishedAt, r.PublishedAtLocal = parquetTime(a.PublishedAt)
	r.ModifiedAt, r.ModifiedAtLocal = parquetTime(a.ModifiedAt)
	if a.DuplicateOf != 0 {
		r.DuplicateOf = &a.DuplicateOf
	}
	size = 128 + int64(len(a.SeedID)+len(a.Country)+len(a.Category)+len(a.URL)+
		len(a.CanonicalURL)+len(a.Title)+len(a.Language)+len(a.SiteName)+
		len(a.Section)+len(a.Description)+len(a.ImageURL)+len(a.Text)+len(a.NotArticle))
	for _, s := range a.Authors {
		size += int64(len(s))
	}
	for k, v := range a.Methods {
		size += int64(len(k) + len(v))
	}
	return r, size, nil
}

// parquetTime is t as an instant and as RFC 3339 in its own zone.
func parquetTime(t *time.Time) (*time.Time, *string) {
	if t == nil {
		return nil, nil
	}
	s := t.Format(time.RFC3339Nano)
	return t, &s
}

// parquetZstd is parquet.Zstd (zstd's default level, 3) with a 1 MiB
// window instead of 8 MiB: a page is compressed on its own and holds
// 256 KiB of values or one larger one, so the larger window gains next
// to nothing and costs each pooled encoder 16 MiB of history.
var parquetZstd = zstdCodec{window: 1 << 20}

type zstdCodec struct {
	window   int
	encoders sync.Pool
}

func (*zstdCodec) String() string { return "ZSTD" }

func (*zstdCodec) CompressionCodec() format.CompressionCodec { return format.Zstd }

func (c *zstdCodec) Encode(dst, src []byte) ([]byte, error) {
	e, _ := c.encoders.Get().(*zstd.Encoder)
	if e == nil {
		var err error
		e, err = zstd.NewWriter(nil,
			zstd.WithEncoderConcurrency(1),
			zstd.WithWindowSize(c.window),
			zstd.WithZeroFrames(true),
			zstd.WithEncoderCRC(false),
		)
		if err != nil {
			return dst, err
		}
	}
	defer c.encoders.Put(e)
	return e.EncodeAll(src, dst[:0]), nil
}

func (*zstdCodec) Decode(dst, src []byte) ([]byte, error) { return parquet.Zstd.Decode(dst, src) }
