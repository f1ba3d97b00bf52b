package contract

import (
	"context"
	"net/url"
	"strconv"

	"github.com/seedengine/seedengine/internal/feed"
)

// ViaImport marks the one candidate of an examined entry: a person named
// it (a seed import), nothing on the site did.
const ViaImport = "import"

// OutcomeEntryUnusable: the named entry answered but is not one (not a
// feed, an empty feed, an HTTP error); Evidence.Detail says which.
const OutcomeEntryUnusable = "entry_unusable"

// Entry is a feed or sitemap URL a person names for a domain (one row of
// a seed import), with what the list said of it.
type Entry struct {
	URL   string
	Title string
	// Kind is KindFeed or KindSitemap: how the entry is read.
	Kind string
	// ContentType is the seed's content type; "" guesses it from the URL
	// and title as discovery does (feed.ContentTypeOf).
	ContentType string
}

// Examine reads one named entry of a domain instead of searching the
// site: robots.txt (as Discover reads it: the run stops when it is
// unreachable or unavailable, and a disallowed entry is never requested),
// then the entry itself, once, with no link of an HTML answer followed.
// The evidence holds that one candidate and, when it is usable, the
// decision it makes; otherwise Outcome says why not: unreachable,
// robots_unavailable, robots_disallowed, or entry_unusable with the
// candidate's error (not_a_feed, http_404, feed_parse_error, …) in Detail.
func (d *Discoverer) Examine(ctx context.Context, domainID, domain string, e Entry) *Evidence {
	return d.run(ctx, domainID, domain, func(ctx context.Context, r *run) {
		// The robots.txt that governs the entry: its own host and port's
		// (an entry may live on feeds.<domain> or on a port of its own).
		host := domain
		if u, err := url.Parse(e.URL); err == nil && u.Host != "" {
			host = u.Host
		}
		if !r.applyRobots(ctx, nil, host) {
			return
		}
		var c *Candidate
		// Depth maxPageDepth: an HTML answer is not read for the feeds it
		// links; the import names entries, it does not search.
		if e.Kind == KindSitemap {
			c = r.addSitemap(e.URL, ViaImport, "", maxPageDepth, 1)
		} else {
			c = r.addFeed(feed.Candidate{URL: e.URL, Title: e.Title}, ViaImport, "", 1, maxPageDepth)
			if c == nil { // a comment feed: taken as the person named it
				c = r.add(&Candidate{Kind: KindFeed, URL: e.URL, Via: ViaImport, Title: e.Title, Depth: maxPageDepth, ContentType: feed.ContentTypeOf(e.URL, e.Title)}, 1)
			}
		}
		if e.ContentType != "" {
			c.ContentType = e.ContentType
		}
		if c.Robots != RobotsAllowed {
			c.Skipped = SkipRobots
			r.ev.Outcome, r.ev.Detail = SkipRobots, "robots.txt disallows the entry for our agent"
			return
		}
		r.fetch(ctx, c)
		if !c.usable() {
			r.ev.Outcome, r.ev.Detail = OutcomeEntryUnusable, entryProblem(c)
		}
	})
}

// entryProblem names why a fetched entry is not usable.
func entryProblem(c *Candidate) string {
	switch {
	case c.Error != "":
		return c.Error
	case c.Status != 0 && (c.Status < 200 || c.Status > 299):
		return "http_" + strconv.Itoa(c.Status)
	case c.Format == "html":
		return "not_a_feed"
	case c.Kind == KindFeed:
		return "empty_feed"
	default:
		return "empty_sitemap"
	}
}
