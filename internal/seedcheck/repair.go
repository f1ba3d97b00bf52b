package seedcheck

import (
	"bytes"
	"context"
	"net/http"
	"net/url"
	"sort"
	"time"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/feed"
	"github.com/seedengine/seedengine/internal/fetch"
	"github.com/seedengine/seedengine/internal/harvest"
	"github.com/seedengine/seedengine/internal/sitemap"
)

// A read whose every item is new to the seed's entry may have missed
// some: they scrolled out since the last read. The publisher usually
// still lists them elsewhere (harvest.archive, chosen by the contract
// run): a WordPress feed's older pages, a news sitemap's two days, a
// sitemap per day. The repair reads back through it until the last item
// known before is found again, and the items it finds are recorded as
// recovered, with this read's time as when they were first seen.

// MaxRepairPages bounds the pages of a paged feed one repair reads after
// the entry: the items of that many windows can be read back.
const MaxRepairPages = 10

// maxRepairDays bounds the day sitemaps one repair reads.
const maxRepairDays = 3

// Repair reasons: why a repair stopped before it found a known item.
const (
	RepairEnd       = "archive_end"       // the archive had no more (a 404 page, an empty one)
	RepairLimit     = "page_limit"        // MaxRepairPages read
	RepairFailed    = "archive_failed"    // a document of the archive could not be read
	RepairForbidden = "robots_disallowed" // robots.txt disallows the archive
)

// Known reports which items were seen before (the dedupe window of
// every seed): a repair stops at the first page that has one.
type Known func(ctx context.Context, items []seedengine.Item) ([]bool, error)

// Repair reads back from s's archive what its entry no longer lists: the
// items neither known before nor listed by the entry (this read's items),
// marked Recovered with the document they came from, in the archive's
// order; reads counts the documents read (each a
// request), reason is empty when the repair found a known item again
// (nothing is left to find) and says why it stopped otherwise. since is
// the seed's previous read: a day sitemap unchanged since is not read,
// and a sitemap's entries dated before it are no part of the gap.
func (c *Checker) Repair(ctx context.Context, s seedengine.Seed, since time.Time, entry []seedengine.Item, known Known) (items []seedengine.Item, reads int, reason string) {
	a := s.Harvest.Archive
	if a == nil {
		return nil, 0, ""
	}
	// What this read's entry and the archive documents so far listed:
	// not recovered again, and a page of nothing else is no older page
	// (a server that ignores paged answers page 1 again).
	listed := make(map[string]bool, len(entry))
	for _, it := range entry {
		listed[it.NormalizedURL] = true
	}
	// A sitemap spans days: of its entries, those dated before the last
	// read (less an hour) arrived before the gap and are not its.
	cutoff := time.Time{}
	if a.Kind != seedengine.ArchivePagedFeed {
		cutoff = since.Add(-time.Hour)
	}
	keep := func(doc string, found []seedengine.Item) (hit, fresh bool, err error) {
		seen, err := known(ctx, found)
		if err != nil {
			return false, false, err
		}
		for i := range found {
			if seen[i] {
				hit = true
				continue
			}
			if listed[found[i].NormalizedURL] {
				continue
			}
			if p := found[i].PublishedAt; p != nil && p.Before(cutoff) {
				continue
			}
			listed[found[i].NormalizedURL] = true
			fresh = true
			found[i].Recovered = true
			found[i].Source.Document = doc
			items = append(items, found[i])
		}
		return hit, fresh, nil
	}
	switch a.Kind {
	case seedengine.ArchivePagedFeed:
		for n := 2; n < 2+MaxRepairPages; n++ {
			doc := harvest.PageURL(a.URL, n)
			found, status, why := c.readArchive(ctx, doc, s.Fetch.Type)
			reads += status
			if why != "" {
				return items, reads, why
			}
			if len(found) == 0 {
				return items, reads, RepairEnd
			}
			hit, fresh, err := keep(doc, found)
			if err != nil {
				return items, reads, RepairFailed
			}
			if hit {
				return items, reads, ""
			}
			if !fresh {
				return items, reads, RepairEnd // the same items again: no older page
			}
		}
		return items, reads, RepairLimit
	case seedengine.ArchiveNewsSitemap:
		found, status, why := c.readArchive(ctx, a.URL, seedengine.FetchNewsSitemap)
		reads += status
		if why != "" {
			return items, reads, why
		}
		hit, _, err := keep(a.URL, found)
		if err != nil {
			return items, reads, RepairFailed
		}
		if !hit {
			return items, reads, RepairEnd
		}
		return items, reads, ""
	case seedengine.ArchiveDailySitemaps:
		days, status, why := c.changedSitemaps(ctx, a.URL, since)
		reads += status
		if why != "" {
			return items, reads, why
		}
		hit := false
		for _, doc := range days {
			found, status, why := c.readArchive(ctx, doc, seedengine.FetchSitemap)
			reads += status
			if why != "" {
				return items, reads, why
			}
			h, _, err := keep(doc, found)
			if err != nil {
				return items, reads, RepairFailed
			}
			hit = hit || h
		}
		if !hit {
			return items, reads, RepairEnd
		}
		return items, reads, ""
	}
	return nil, 0, ""
}

// readArchive fetches one archive document (robots.txt allowing) and
// returns its items as a read of type t sees them. requests is 1 when it
// was asked for; reason is set when it could not be read, RepairEnd for
// a 404 or 410 (a paged feed past its last page).
func (c *Checker) readArchive(ctx context.Context, doc string, t seedengine.FetchType) (items []seedengine.Item, requests int, reason string) {
	u, err := url.Parse(doc)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, 0, RepairFailed
	}
	if c.robotsVerdict(ctx, u) == "disallowed" {
		return nil, 0, RepairForbidden
	}
	resp, err := c.fetch.Do(ctx, fetch.Request{URL: doc, Kind: kindOf(t)})
	if err != nil {
		return nil, 1, RepairFailed
	}
	switch {
	case resp.Status == http.StatusNotFound || resp.Status == http.StatusGone:
		return nil, 1, RepairEnd
	case resp.Status < 200 || resp.Status > 299:
		return nil, 1, RepairFailed
	}
	base, err := url.Parse(resp.FinalURL)
	if err != nil || resp.FinalURL == "" {
		base = u
	}
	r := harvest.NewRead(base)
	switch t {
	case seedengine.FetchRSS, seedengine.FetchAtom, seedengine.FetchJSONFeed:
		info, entries, err := feed.ParseEntries(resp.Body, c.now())
		if err != nil {
			return nil, 1, RepairFailed
		}
		r.AddFeed(entries, info.Language)
	default:
		res, err := sitemap.Parse(bytes.NewReader(resp.Body), sitemap.Options{}, func(e sitemap.Entry) error {
			r.AddSitemap(e)
			return nil
		})
		if err != nil && res.Entries == 0 {
			return nil, 1, RepairFailed
		}
		if res.Type == sitemap.TypeIndex {
			return nil, 1, RepairFailed
		}
	}
	return r.Items(), 1, ""
}

// changedSitemaps reads a sitemap index and returns its sitemaps changed
// since (by their lastmod, newest first, at most maxRepairDays; without
// lastmod the newest listed).
func (c *Checker) changedSitemaps(ctx context.Context, index string, since time.Time) (docs []string, requests int, reason string) {
	u, err := url.Parse(index)
	if err != nil || u.Host == "" {
		return nil, 0, RepairFailed
	}
	if c.robotsVerdict(ctx, u) == "disallowed" {
		return nil, 0, RepairForbidden
	}
	resp, err := c.fetch.Do(ctx, fetch.Request{URL: index, Kind: fetch.KindSitemap})
	if err != nil {
		return nil, 1, RepairFailed
	}
	if resp.Status < 200 || resp.Status > 299 {
		return nil, 1, RepairFailed
	}
	type child struct {
		loc string
		mod time.Time
	}
	var kids []child
	_, err = sitemap.Parse(bytes.NewReader(resp.Body), sitemap.Options{}, func(e sitemap.Entry) error {
		kids = append(kids, child{e.Loc, e.LastMod})
		return nil
	})
	if err != nil && len(kids) == 0 {
		return nil, 1, RepairFailed
	}
	// Newest first, those without a lastmod last in the index's order.
	sort.SliceStable(kids, func(i, j int) bool { return kids[i].mod.After(kids[j].mod) })
	for _, k := range kids {
		if len(docs) == maxRepairDays {
			break
		}
		if k.mod.IsZero() || !k.mod.Before(since.Add(-time.Minute)) {
			docs = append(docs, k.loc)
		}
	}
	return docs, 1, ""
}
