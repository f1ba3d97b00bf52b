package harvest

import (
	"net/url"
	"strings"
	"time"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/discover"
	"github.com/seedengine/seedengine/internal/feed"
	"github.com/seedengine/seedengine/internal/sitemap"
)

// Limits of one read's items: an item's title, sections and language are
// cut to these, and a read keeps at most MaxItemsPerRead items.
const (
	maxTitleBytes    = 1000
	maxSections      = 20
	maxSectionBytes  = 200
	maxLanguageBytes = 35 // BCP 47's longest practical tags
	// MaxItemsPerRead bounds the items one read yields: a sitemap may list
	// 50,000 URLs (the protocol's limit), a feed rarely more than a few
	// hundred.
	MaxItemsPerRead = 50_000
)

// Read collects the items of one read of an entry: each candidate's URL
// resolved against the entry's and normalised, repeats within the read
// dropped (the first kept). Add and AddSitemap return false once
// MaxItemsPerRead are held.
type Read struct {
	base  *url.URL
	items []seedengine.Item
	seen  map[string]bool
}

// NewRead starts the items of a read of entry.
func NewRead(entry *url.URL) *Read {
	return &Read{base: entry, seen: map[string]bool{}}
}

// Drop forgets the items added so far (an entry that turned out to be a
// sitemap index: its entries are sitemaps, not articles).
func (r *Read) Drop() {
	r.items, r.seen = nil, map[string]bool{}
}

// Items are the read's items, in the entry's order, with URL,
// NormalizedURL, Title, PublishedAt, Language and Sections set.
func (r *Read) Items() []seedengine.Item { return r.items }

// AddFeed adds a feed's items; lang is the feed's language.
func (r *Read) AddFeed(entries []feed.Entry, lang string) {
	for _, e := range entries {
		var published *time.Time
		if !e.Published.IsZero() {
			t := e.Published
			published = &t
		}
		if !r.add(e.Link, e.Title, published, lang, e.Categories) {
			return
		}
	}
}

// AddSitemap adds one sitemap entry: its news title, publication date
// and language when it has news:news, else its lastmod as the date.
func (r *Read) AddSitemap(e sitemap.Entry) bool {
	var title, lang string
	var published *time.Time
	if d := e.Date(); !d.IsZero() {
		published = &d
	}
	if e.News != nil {
		title, lang = e.News.Title, e.News.Language
	}
	return r.add(e.Loc, title, published, lang, nil)
}

func (r *Read) add(link, title string, published *time.Time, lang string, sections []string) bool {
	if len(r.items) >= MaxItemsPerRead {
		return false
	}
	link = strings.TrimSpace(link)
	if link == "" {
		return true
	}
	u, err := r.base.Parse(link)
	if err != nil {
		return true
	}
	abs := u.String()
	norm, host, err := discover.NormalizeURL(abs)
	if err != nil || r.seen[norm] {
		return true
	}
	if _, err := discover.RegistrableDomain(host); err != nil {
		// An address literal (2130706433, [::1]) or a name that is no
		// public domain (localhost, intranet) is never an article of
		// the open web: research refuses such URLs too.
		return true
	}
	r.seen[norm] = true
	it := seedengine.Item{
		URL:           seedengine.Truncate(abs, seedengine.MaxRawURLBytes),
		NormalizedURL: norm,
		Title:         seedengine.Truncate(strings.TrimSpace(title), maxTitleBytes),
		PublishedAt:   published,
		Language:      seedengine.Truncate(strings.TrimSpace(lang), maxLanguageBytes),
	}
	for _, s := range sections {
		if s = strings.TrimSpace(s); s != "" && len(it.Sections) < maxSections {
			it.Sections = append(it.Sections, seedengine.Truncate(s, maxSectionBytes))
		}
	}
	r.items = append(r.items, it)
	return true
}
