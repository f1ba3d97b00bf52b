package seedengine

import (
	"context"
	"time"
)

// Harvest (internal/harvest): every read of an active seed's entry (a
// seed check) yields the entry's items, and every article URL not seen
// before becomes one Item, recorded in the transaction that records the
// check. Items are kept in SQL (the cursor the API follows) and written
// to immutable JSON Lines files per partition of the UTC day they were
// first seen (items/country=…/category=…/date=…/items_NNNN.jsonl).

// Item is one article a seed's entry listed, recorded once per deployment
// by its NormalizedURL (within the dedupe window).
type Item struct {
	// ID is the item's place in first-seen order, the cursor of
	// GET /api/v1/items: an item committed later always has a higher ID.
	ID int64 `json:"id"`
	// URL is the article's link as the entry published it.
	URL string `json:"url"`
	// NormalizedURL is research's canonical form of URL, tracking
	// parameters removed: what "seen before" compares.
	NormalizedURL string     `json:"normalized_url"`
	Title         string     `json:"title,omitempty"`
	PublishedAt   *time.Time `json:"published_at,omitempty"`
	// Language is the entry's (a news sitemap's news:language, a feed's
	// language), when it says.
	Language string `json:"language,omitempty"`
	// Sections are the entry's categories for the item, when given.
	Sections    []string   `json:"sections,omitempty"`
	SeedID      string     `json:"seed_id"`
	DomainID    string     `json:"domain_id"`
	Country     string     `json:"country"`
	Category    string     `json:"category"`
	Source      ItemSource `json:"source"`
	FirstSeenAt time.Time  `json:"first_seen_at"`
	// Recovered marks an item the entry no longer listed when it was
	// read: a read found a gap (or a burst bigger than the entry's
	// window) and the item was read back from the publisher's archive
	// (the seed's harvest.archive: older feed pages, a news sitemap,
	// daily sitemaps). FirstSeenAt is still the moment we first saw it.
	Recovered bool `json:"recovered,omitempty"`
	// Page is where the item's page is, when its seed fetches pages
	// (harvest.pages): given by the API, not kept in the item files.
	Page *ItemPage `json:"page,omitempty"`
}

// ItemPage is an item's page as its listing shows it; GET
// /api/v1/items/{id}/page has the rest.
type ItemPage struct {
	State    PageState `json:"state"`
	Status   int       `json:"status,omitempty"`
	WARCFile string    `json:"warc_file,omitempty"`
	Offset   int64     `json:"offset,omitempty"`
	Length   int64     `json:"length,omitempty"`
}

// ItemSource is the read that first saw an item.
type ItemSource struct {
	EntryURL  string    `json:"entry_url"`
	FetchType FetchType `json:"fetch_type"`
	// CheckID is the seed check that read it.
	CheckID int64 `json:"check_id"`
	// Document is the archive document a recovered item was read from
	// (the entry's ?paged=3, a news sitemap, a day's sitemap); empty for
	// an item of the entry itself.
	Document string `json:"document,omitempty"`
}

// Partition is the item partition: its seed's country and category, and
// the UTC day it was first seen.
func (it *Item) Partition() Partition {
	return Partition{Country: it.Country, Category: it.Category, Date: it.FirstSeenAt.UTC().Format(DateLayout)}
}

// MaxItemsPage is the largest page of GET /api/v1/items.
const MaxItemsPage = 1000

// ItemFilter selects items: all of a partition's fields that are set, a
// seed, a domain, and IDs above Since, in ID order, at most Limit.
type ItemFilter struct {
	Country  string
	Category string
	Date     string
	SeedID   string
	DomainID string
	Since    int64
	// Until, when above zero, is the highest ID included.
	Until int64
	Limit int
}

// ItemPartition is one partition of the harvested items.
type ItemPartition struct {
	Partition
	// Items counts the partition's items; Files and Bytes its files;
	// Pending the items not in a file yet (the next flush writes them).
	Items   int   `json:"items"`
	Files   int   `json:"files"`
	Bytes   int64 `json:"bytes"`
	Pending int   `json:"pending"`
}

// ItemFile is one immutable file of a partition's items.
type ItemFile struct {
	Partition
	File  int    `json:"file"`
	Name  string `json:"name"` // items_0001
	Key   string `json:"key"`
	Items int    `json:"items"`
	Bytes int64  `json:"bytes"`
	// FirstID and LastID bound the IDs of its items, in ID order.
	FirstID int64 `json:"first_id"`
	LastID  int64 `json:"last_id"`
	// WrittenAt is when the file was stored; nil while it is being
	// written (a flush cut short writes it again, the same bytes).
	WrittenAt *time.Time `json:"written_at,omitempty"`
}

// ItemPartitionFilter selects item partitions.
type ItemPartitionFilter struct {
	Country  string
	Category string
	DateFrom string
	DateTo   string
	Limit    int
	Offset   int
}

// ItemCount is one line of ItemStats.
type ItemCount struct {
	Items int   `json:"items"`
	Files int   `json:"files"`
	Bytes int64 `json:"bytes"`
}

// ItemStats counts the harvested items.
type ItemStats struct {
	Partitions int                  `json:"partitions"`
	Items      int                  `json:"items"`
	Files      int                  `json:"files"`
	Bytes      int64                `json:"bytes"`
	ByCountry  map[string]ItemCount `json:"by_country"`
	// Today counts the items first seen on the current UTC day, by
	// country.
	Today map[string]int `json:"today"`
	// Reads counts the harvesting reads ever made, Gaps those that found
	// their whole window new, DedupeHits the items reads listed that were
	// seen before.
	Reads      int64 `json:"reads"`
	Gaps       int64 `json:"gaps"`
	DedupeHits int64 `json:"dedupe_hits"`
}

// ItemService reads the harvested items.
type ItemService interface {
	// FindItems returns the items f selects, in ID order. EINVALID for a
	// bad filter.
	FindItems(ctx context.Context, f ItemFilter) ([]Item, error)
	// FindItemPartitions returns the partitions f selects, newest date
	// first, and how many there are in all.
	FindItemPartitions(ctx context.Context, f ItemPartitionFilter) ([]ItemPartition, int, error)
	// FindItemFiles returns a partition's files, in file order.
	FindItemFiles(ctx context.Context, p Partition) ([]ItemFile, error)
	// ItemStats counts the items, files and bytes.
	ItemStats(ctx context.Context, now time.Time) (ItemStats, error)
}
