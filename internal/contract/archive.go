package contract

import (
	"context"
	"net/http"
	"time"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/feed"
	"github.com/seedengine/seedengine/internal/fetch"
	"github.com/seedengine/seedengine/internal/harvest"
)

// A feed shows its newest items only; when a publisher posts more
// between two reads than it shows, the rest scrolls out unseen. Most
// publishers still list those elsewhere, and the contract run names
// where (Decision.Archive, then the seed's harvest.archive), so that a
// read that finds a gap reads them back (internal/seedcheck):
//
//   - news_sitemap: a Google News sitemap the run read, which lists every
//     article of the last two days;
//   - paged_feed: the entry's own older windows at ?paged=2 (WordPress
//     and the CMSs that copy it), when page 2 answers with older items
//     than page 1 (one request, within the run's budget);
//   - daily_sitemaps: a sitemap index whose child sitemaps changed in the
//     last days (by their lastmod): a sitemap per day or month.
//
// The first that holds wins, in that order: a news sitemap is one
// request for two days; a paged feed one per window read back.

// archiveFresh is how recent a child sitemap's lastmod must be for its
// index to count as daily sitemaps.
const archiveFresh = 3 * 24 * time.Hour

// chooseArchives finds each feed decision's archive.
func (r *run) chooseArchives(ctx context.Context) {
	for i := range r.ev.Decisions {
		d := &r.ev.Decisions[i]
		if !feedType(d.FetchType) {
			continue // a news sitemap keeps two days; a section page has no window to scroll out of
		}
		ev := editionView(r.ev, *d) // an edition's archive is its own
		if a, why := newsArchive(ev); a != nil {
			d.Archive, d.ArchiveWhy = a, why
			continue
		}
		if why, ok := r.pagedFeed(ctx, d); ok {
			d.Archive = &seedengine.PublisherArchive{Kind: seedengine.ArchivePagedFeed, URL: d.EntryURL}
			d.ArchiveWhy = why
			continue
		}
		d.Archive, d.ArchiveWhy = dailyArchive(ev, r.d.cfg.Now())
	}
}

// knownArchive is the archive a feed decision d has by what ev already
// holds, with no request: the run's own for the same entry (a paged feed
// it probed), else the site's news sitemap or daily sitemaps. A reviewer
// choosing another candidate gets it (Choose).
func knownArchive(ev *Evidence, d Decision, now time.Time) (*seedengine.PublisherArchive, string) {
	if !feedType(d.FetchType) {
		return nil, ""
	}
	for _, run := range ev.Decisions {
		if run.EntryURL == d.EntryURL && run.Archive != nil {
			return run.Archive, run.ArchiveWhy
		}
	}
	ev = editionView(ev, d)
	if a, why := newsArchive(ev); a != nil {
		return a, why
	}
	return dailyArchive(ev, now)
}

func feedType(t seedengine.FetchType) bool {
	return t == seedengine.FetchRSS || t == seedengine.FetchAtom || t == seedengine.FetchJSONFeed
}

// newsArchive is the site's news sitemap as an archive.
func newsArchive(ev *Evidence) (*seedengine.PublisherArchive, string) {
	c := ev.NewsSitemap()
	if c == nil {
		return nil, ""
	}
	return &seedengine.PublisherArchive{Kind: seedengine.ArchiveNewsSitemap, URL: entry(c)},
		"the site's news sitemap lists every article of the last two days"
}

// dailyArchive is a fetched sitemap index at least two of whose child
// sitemaps changed in the last days, as an archive.
func dailyArchive(ev *Evidence, now time.Time) (*seedengine.PublisherArchive, string) {
	for _, idx := range ev.Candidates {
		if idx.Kind != KindSitemap || idx.Format != "sitemapindex" || !idx.usable() || idx.Robots != RobotsAllowed {
			continue
		}
		recent := 0
		for _, c := range ev.Candidates {
			if c.Parent == idx.URL && c.Lastmod != nil && now.Sub(*c.Lastmod) < archiveFresh {
				recent++
			}
		}
		if recent >= 2 {
			return &seedengine.PublisherArchive{Kind: seedengine.ArchiveDailySitemaps, URL: entry(idx)},
				"the site's sitemap index lists sitemaps changed in the last days"
		}
	}
	return nil, ""
}

// pagedFeed asks for page 2 of d's feed and reports whether it is the
// feed's older items: a feed of its own whose items page 1 does not show
// and, when dated, no newer than page 1's oldest.
func (r *run) pagedFeed(ctx context.Context, d *Decision) (string, bool) {
	c := d.candidate
	if c == nil || !r.canSpend(ctx) {
		return "", false
	}
	page := harvest.PageURL(d.EntryURL, 2)
	resp, err := r.do(ctx, fetch.Request{URL: page, Kind: fetch.KindFeed})
	if err != nil || resp.Status != http.StatusOK {
		return "", false
	}
	info, entries, err := feed.ParseEntries(resp.Body, r.d.cfg.Now())
	if err != nil || len(entries) == 0 {
		return "", false
	}
	first := map[string]bool{}
	for _, p := range c.Preview {
		first[p.URL] = true
	}
	for _, e := range entries {
		if first[e.Link] {
			return "", false // page 1 again: the server ignores paged
		}
	}
	if c.Oldest != nil && !info.Newest.IsZero() && info.Newest.After(*c.Oldest) {
		return "", false
	}
	return "the feed's older items are at ?paged=2, 3, …", true
}
