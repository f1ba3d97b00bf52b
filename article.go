package seedengine

import (
	"context"
	"time"
)

// Articles (internal/article): every page stored in WARC is read back
// from its record and made an article, its body text and what the page
// states about itself, by an article_extract job on its own queue. The
// article is kept in SQL (the cursor of GET /api/v1/articles and its
// full-text search) and written, like items, to immutable JSON Lines
// files of its item's partition
// (articles/country=…/category=…/date=…/articles_NNNN.jsonl), and once
// the day is over to one Parquet file per partition
// (articles/country=…/category=…/date=…/articles.parquet).

// ArticleFields is one page read as an article: what `seedengine extract`
// prints and what an Article carries. Methods maps each field's JSON name
// to the method that gave it (json_ld, microdata, opengraph, meta,
// generic, url, text).
type ArticleFields struct {
	URL          string            `json:"url,omitempty" doc:"The URL the page was fetched from."`
	CanonicalURL string            `json:"canonical_url,omitempty"`
	Title        string            `json:"title,omitempty"`
	Authors      []string          `json:"authors,omitempty"`
	PublishedAt  *time.Time        `json:"published_at,omitempty" doc:"When the page says it was published, with its own time zone."`
	ModifiedAt   *time.Time        `json:"modified_at,omitempty"`
	Language     string            `json:"language,omitempty" doc:"ISO 639-1 code: the page's own statement, else guessed from the text."`
	SiteName     string            `json:"site_name,omitempty"`
	Section      string            `json:"section,omitempty"`
	Description  string            `json:"description,omitempty"`
	ImageURL     string            `json:"image_url,omitempty"`
	Text         string            `json:"text" doc:"The body text, paragraphs separated by a blank line."`
	WordCount    int               `json:"word_count"`
	Methods      map[string]string `json:"methods" doc:"For each field, the method that gave it: json_ld, microdata, opengraph, meta, generic, url or text."`
	// NotArticle, when set, says why the page is not an article: no_text,
	// too_short, not_article_type, not_html, unreadable.
	NotArticle string `json:"not_article,omitempty" doc:"Why the page is not an article, when it is not: no_text, too_short, not_article_type, not_html, unreadable."`
}

// Article is the article of one harvested item's stored page.
type Article struct {
	// ID is the article's place in extraction order, the cursor of
	// GET /api/v1/articles: an article committed later has a higher ID.
	ID       int64  `json:"id"`
	ItemID   int64  `json:"item_id"`
	SeedID   string `json:"seed_id"`
	Country  string `json:"country"`
	Category string `json:"category"`
	// Date is the item's partition date (the UTC day it was first seen).
	Date string `json:"date"`
	ArticleFields
	// DuplicateOf is the first article whose text is the same or nearly
	// the same (a syndicated copy: the MinHash estimate of the Jaccard
	// similarity of their word shingles at least 0.7).
	DuplicateOf int64     `json:"duplicate_of,omitempty"`
	ExtractedAt time.Time `json:"extracted_at"`
}

// Partition is the article's item's partition.
func (a *Article) Partition() Partition {
	return Partition{Country: a.Country, Category: a.Category, Date: a.Date}
}

// CopyKey is what finds an article's copies (internal/article's
// MinHash): its signature as stored, the keys of its bands (an earlier
// article sharing one is compared) and the comparison of two stored
// signatures. An article without one is never grouped.
type CopyKey struct {
	Signature []byte
	Bands     []int64
	Same      func(a, b []byte) bool
}

// Reasons a stored page is not an article beyond the extractor's own.
const (
	// NotArticleHTML: the page is not HTML (a PDF, an image, a feed).
	NotArticleHTML = "not_html"
	// NotArticleUnreadable: the record could not be read back (its digest
	// no longer matches, its content coding does not decode).
	NotArticleUnreadable = "unreadable"
)

// MaxArticlesPage is the largest page of GET /api/v1/articles.
const MaxArticlesPage = 200

// ArticleFilter selects articles: those matching every field set, with IDs
// above Since, in ID order (with Query too), at most Limit.
type ArticleFilter struct {
	Country  string
	Category string
	Date     string
	SeedID   string
	Language string
	// Query is a full-text search over title and text (see
	// docs/articles.md for its syntax).
	Query string
	// NotArticles includes the pages that are not articles.
	NotArticles bool
	Since       int64
	Limit       int
}

// ArticleStats counts the articles.
type ArticleStats struct {
	Articles    int   `json:"articles"`
	NotArticles int   `json:"not_articles"`
	Duplicates  int   `json:"duplicates"`
	Files       int   `json:"files"`
	Bytes       int64 `json:"bytes"`
	// Pending counts stored pages with no article yet.
	Pending int `json:"pending"`
}

// Formats of a partition's article files.
const (
	ArticleFileJSONL   = "jsonl"
	ArticleFileParquet = "parquet"
)

// ArticleFile is one file of a partition's articles: a JSON Lines file
// (articles_0001.jsonl, immutable: the record), or the partition's
// Parquet file (articles.parquet, their columnar copy, written once the
// day is over and again, whole, when a late article joins it).
type ArticleFile struct {
	Partition
	Name   string `json:"name" doc:"The file's name: articles_0001.jsonl or articles.parquet."`
	Key    string `json:"key" doc:"The file's object key."`
	Format string `json:"format" enum:"jsonl,parquet" doc:"jsonl (one article per line, in id order) or parquet."`
	// File is a JSON Lines file's number, 0 for the Parquet file.
	File int `json:"file,omitempty" doc:"A JSON Lines file's number."`
	// Articles counts the file's rows, pages that are not articles
	// included.
	Articles int   `json:"articles" doc:"The articles the file holds, pages that are not articles included."`
	Bytes    int64 `json:"bytes" doc:"The file's size; 0 while it is being written."`
	// FirstID and LastID bound a JSON Lines file's article IDs.
	FirstID int64 `json:"first_id,omitempty"`
	LastID  int64 `json:"last_id,omitempty"`
	// Written says the file is stored: a JSON Lines file whose articles
	// are fixed is listed while it is being written, and cannot be
	// downloaded until it is.
	Written bool `json:"written" doc:"Whether the file is stored and can be downloaded; a JSON Lines file being written is listed before it is."`
	// WrittenAt is when a JSON Lines file was stored.
	WrittenAt *time.Time `json:"written_at,omitempty" doc:"When a JSON Lines file was stored."`
}

// ArticleService reads the articles.
type ArticleService interface {
	// FindArticles lists articles by f.
	FindArticles(ctx context.Context, f ArticleFilter) ([]Article, error)
	// FindItemArticle returns an item's article. ENOTFOUND when it has
	// none (yet).
	FindItemArticle(ctx context.Context, itemID int64) (*Article, error)
	// ArticleStats counts the articles.
	ArticleStats(ctx context.Context) (ArticleStats, error)
	// FindArticleFiles returns a partition's article files: its JSON
	// Lines files in file order, then its Parquet file once one is
	// written. Name and Key are left to the caller (internal/layout).
	FindArticleFiles(ctx context.Context, p Partition) ([]ArticleFile, error)
}
