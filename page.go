package seedengine

import (
	"context"
	"io"
	"time"
)

// Page retrieval (internal/pages): the items of a seed whose contract
// says harvest.pages have their pages fetched under the seed's policy and
// kept as WARC/1.1 records in files of their item's partition
// (warc/country=…/category=…/date=…/seedengine-{process}-{time}-{serial}.warc.gz),
// each file with a CDXJ index beside it. An item's page is where its
// record is: file, offset, length.

// SeedHarvest is what the harvest does for a seed beyond recording its
// items: part of the contract.
type SeedHarvest struct {
	// Pages fetches every new item's page and keeps it as WARC.
	Pages bool `json:"pages"`
	// Archive is where the publisher keeps what scrolled out of the
	// entry, read back when a read shows a gap; nil when the contract run
	// found none (a gap is then flagged, not repaired).
	Archive *PublisherArchive `json:"archive,omitempty"`
}

// ArchiveKind is the kind of a publisher's archive.
type ArchiveKind string

// Archive kinds.
const (
	// ArchivePagedFeed: the entry feed's older windows at ?paged=2, 3, …
	// (WordPress and the CMSs that copy it).
	ArchivePagedFeed ArchiveKind = "paged_feed"
	// ArchiveNewsSitemap: a Google News sitemap, which lists every
	// article of the last two days.
	ArchiveNewsSitemap ArchiveKind = "news_sitemap"
	// ArchiveDailySitemaps: a sitemap index of sitemaps by day (or
	// month) with their lastmod; the ones changed since the last read
	// hold what it missed.
	ArchiveDailySitemaps ArchiveKind = "daily_sitemaps"
)

// Valid reports whether k is a known archive kind.
func (k ArchiveKind) Valid() bool {
	switch k {
	case ArchivePagedFeed, ArchiveNewsSitemap, ArchiveDailySitemaps:
		return true
	}
	return false
}

// PublisherArchive is a seed's publisher's archive: its kind and URL (the
// news sitemap, the sitemap index; for a paged feed the entry itself).
type PublisherArchive struct {
	Kind ArchiveKind `json:"kind" enum:"paged_feed,news_sitemap,daily_sitemaps"`
	URL  string      `json:"url" maxLength:"2048"`
}

// PageState is where an item's page is.
type PageState string

// Page states.
const (
	// PageQueued: waiting for its fetch.
	PageQueued PageState = "queued"
	// PageFetched: fetched and written to a WARC file that is not stored
	// yet (its file, offset and length are not given out until it is).
	PageFetched PageState = "fetched"
	// PageStored: its record is in a stored WARC file.
	PageStored PageState = "stored"
	// PageSkipped: not fetched, for good: robots.txt disallows it.
	PageSkipped PageState = "skipped"
	// PageFailed: the fetch failed for good (the reason says why).
	PageFailed PageState = "failed"
)

// Page is the retrieval of one item's page.
type Page struct {
	ItemID int64     `json:"item_id"`
	SeedID string    `json:"seed_id"`
	URL    string    `json:"url"`
	State  PageState `json:"state"`
	// Status is the page's HTTP status; Reason why it was skipped or
	// failed (robots_disallowed, a fetch reason, http_404, too_large…).
	Status int    `json:"status,omitempty"`
	Reason string `json:"reason,omitempty"`
	MIME   string `json:"mime,omitempty"`
	// WARCFile is the stored file's object key; Offset and Length where
	// the page's response (or revisit) record is in it, gzip member and
	// all. Set once the state is stored.
	WARCFile string `json:"warc_file,omitempty"`
	Offset   int64  `json:"offset,omitempty"`
	Length   int64  `json:"length,omitempty"`
	// FinalURL is the URL that answered with the page when URL
	// redirected; Hops are the redirects on the way, the first of them
	// URL's own answer. Each hop is archived in the page's file, before
	// the page's record, with its own request and response records.
	FinalURL string    `json:"final_url,omitempty"`
	Hops     []PageHop `json:"hops,omitempty"`
	// PayloadDigest is the body's "sha1:" base32 digest (of the body as
	// sent, content coding and all); Revisit says the
	// record is a revisit of an earlier capture with the same payload.
	PayloadDigest string     `json:"payload_digest,omitempty"`
	Revisit       bool       `json:"revisit,omitempty"`
	FetchedAt     *time.Time `json:"fetched_at,omitempty"`
	QueuedAt      time.Time  `json:"queued_at"`

	// Partition is the item's; Spool the process spool file a fetched
	// page is in until its file is stored (the fetcher's, not the API's).
	Partition Partition `json:"-"`
	Spool     string    `json:"-"`
	// Record is where a fetched page's record is in its spool file, the
	// same place it will have in the stored file.
	SpoolOffset, SpoolLength int64 `json:"-"`
}

// PageHop is one redirect on the way to a page: the URL asked for, the
// 3xx it answered and where it pointed; Offset and Length are where its
// response record is in the page's WARC file, set once stored.
type PageHop struct {
	URL      string `json:"url"`
	Status   int    `json:"status"`
	Location string `json:"location"`
	Offset   int64  `json:"offset,omitempty"`
	Length   int64  `json:"length,omitempty"`
}

// PageDigest is the first stored capture of a payload, which later pages
// with the same payload revisit.
type PageDigest struct {
	PayloadDigest string
	TargetURI     string
	Date          time.Time
	RecordID      string
}

// WARCFile is one stored WARC file of a partition, with its CDXJ index.
type WARCFile struct {
	Partition
	Name string `json:"name"` // seedengine-{process}-{time}-{serial}.warc.gz
	Key  string `json:"key"`
	// IndexKey is the CDXJ index's object key (the file's key with .cdxj
	// for .warc.gz).
	IndexKey string    `json:"index_key"`
	Records  int       `json:"records"` // response and revisit records
	Revisits int       `json:"revisits"`
	Bytes    int64     `json:"bytes"`
	StoredAt time.Time `json:"stored_at"`
}

// PageStats counts the pages by state and the stored WARC files.
type PageStats struct {
	ByState map[PageState]int `json:"by_state"`
	Files   int               `json:"files"`
	Bytes   int64             `json:"bytes"`
}

// PageService reads the pages of harvested items and the WARC files they
// are kept in.
type PageService interface {
	// FindPage returns an item's page. ENOTFOUND when the item has none
	// (its seed does not fetch pages, or no such item).
	FindPage(ctx context.Context, itemID int64) (*Page, error)
	// FindWARCFiles returns a partition's stored WARC files, oldest first.
	FindWARCFiles(ctx context.Context, p Partition) ([]WARCFile, error)
	// PageStats counts pages and files.
	PageStats(ctx context.Context) (PageStats, error)
	// FindOriginal returns the stored page whose response record holds a
	// payload digest (what a revisit refers to). ENOTFOUND when none.
	FindOriginal(ctx context.Context, digest string) (*Page, error)
}

// ObjectRangeReader reads part of a stored object: a record of a WARC
// file.
type ObjectRangeReader interface {
	NewRangeReader(ctx context.Context, key string, offset, length int64) (io.ReadCloser, error)
}
