package seedcheck

import (
	"bytes"
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/feed"
	"github.com/seedengine/seedengine/internal/fetch"
	"github.com/seedengine/seedengine/internal/harvest"
	"github.com/seedengine/seedengine/internal/liveness"
	"github.com/seedengine/seedengine/internal/robots"
	"github.com/seedengine/seedengine/internal/sitemap"
)

// Fetcher is the part of fetch.Client a check uses.
type Fetcher interface {
	Do(ctx context.Context, req fetch.Request) (*fetch.Response, error)
}

// Checker checks seeds' entries through a Fetcher, which holds the
// politeness rules (one request per host at a time, the per-host delay).
// robots.txt is read once per domain a day (RFC 9309 §2.4's longest cache
// time) and kept in memory.
type Checker struct {
	fetch Fetcher
	now   func() time.Time
	agent string // robots.txt product token

	mu     sync.Mutex
	robots map[string]cachedRobots // by scheme://host
}

type cachedRobots struct {
	group   *robots.Group // our group; nil allows everything
	status  robots.Status
	fetched time.Time
}

// robotsTTL is how long a domain's robots.txt is used before it is read
// again; maxRobots bounds the cache (past it, it starts again empty).
const (
	robotsTTL = 24 * time.Hour
	maxRobots = 50_000
)

// Agent is the robots.txt product token checks obey.
const Agent = "seedengine"

// NewChecker returns a Checker; now is its clock (time.Now when nil).
func NewChecker(f Fetcher, now func() time.Time) *Checker {
	if now == nil {
		now = time.Now
	}
	return &Checker{fetch: f, now: now, agent: Agent, robots: map[string]cachedRobots{}}
}

// Check reads s's entry once. prev is the seed's previous check (nil for
// the first): its validators make the request conditional and its newest
// item date is what NewItems counts from. It never fails: what went wrong
// is the check's outcome and reason.
func (c *Checker) Check(ctx context.Context, s seedengine.Seed, prev *seedengine.SeedCheck) seedengine.SeedCheck {
	ch, _ := c.Read(ctx, s, prev)
	return ch
}

// Read is Check that also returns the entry's items (feed items, sitemap
// URLs), in the entry's order, with their URLs normalised: what a
// harvest records. None when the check did not read a feed or sitemap
// body (a failure, a 304, an HTML entry).
func (c *Checker) Read(ctx context.Context, s seedengine.Seed, prev *seedengine.SeedCheck) (seedengine.SeedCheck, []seedengine.Item) {
	ch := seedengine.SeedCheck{SeedID: s.SeedID, CheckedAt: c.now().UTC(), EntryURL: s.Fetch.EntryURL}
	var items *harvest.Read
	entry, err := url.Parse(s.Fetch.EntryURL)
	if err != nil || (entry.Scheme != "http" && entry.Scheme != "https") || entry.Host == "" {
		ch.Outcome, ch.Reason = seedengine.CheckFailed, "bad_entry_url"
		return ch, nil
	}
	ch.Robots = c.robotsVerdict(ctx, entry)
	if ch.Robots == "disallowed" {
		ch.Outcome, ch.Reason = seedengine.CheckDisallowed, "robots_disallowed"
		return ch, nil
	}

	req := fetch.Request{URL: entry.String(), Kind: kindOf(s.Fetch.Type), Header: http.Header{}}
	if prev != nil && prev.EntryURL == ch.EntryURL {
		if prev.ETag != "" {
			req.Header.Set("If-None-Match", prev.ETag)
		}
		if prev.LastModified != "" {
			req.Header.Set("If-Modified-Since", prev.LastModified)
		}
	}
	start := time.Now()
	resp, err := c.fetch.Do(ctx, req)
	ch.LatencyMS = time.Since(start).Milliseconds()
	if err != nil {
		ch.Reason = fetch.Reason(err)
		ch.Outcome = seedengine.CheckFailed
		if ch.Reason == fetch.ReasonNXDomain {
			ch.Outcome = seedengine.CheckGone
		}
		return ch, nil
	}
	if resp.Duration > 0 {
		ch.LatencyMS = resp.Duration.Milliseconds()
	}
	ch.Status, ch.FinalURL, ch.Bytes = resp.Status, resp.FinalURL, int64(len(resp.Body))
	ch.ETag, ch.LastModified = resp.Header.Get("ETag"), resp.Header.Get("Last-Modified")
	ch.MovedTo = permanentTarget(ch.EntryURL, resp.Redirects)
	if ch.MovedTo != "" && Canonicalises(ch.EntryURL, ch.MovedTo) {
		// https, a www. added or dropped, a trailing slash: the same
		// entry, spelt as the site prefers. The seed stays healthy and
		// takes the spelling through a quiet proposal.
		ch.CanonicalURL, ch.MovedTo = ch.MovedTo, ""
	}

	switch {
	case resp.Status == http.StatusNotModified && prev != nil:
		ch.NotModified = true
		ch.Items, ch.Newest, ch.ItemsPerDay = prev.Items, prev.Newest, prev.ItemsPerDay
		if ch.ETag == "" {
			ch.ETag = prev.ETag
		}
		if ch.LastModified == "" {
			ch.LastModified = prev.LastModified
		}
		ch.Outcome = seedengine.CheckOK
		if ch.MovedTo != "" {
			// The moved entry's target, unchanged since it was read.
			ch.Outcome = seedengine.CheckMoved
		}
	case resp.Status == http.StatusNotFound || resp.Status == http.StatusGone:
		ch.Outcome, ch.Reason = seedengine.CheckGone, "http_"+strconv.Itoa(resp.Status)
	case resp.Status == http.StatusUnauthorized || resp.Status == http.StatusForbidden || resp.Status == http.StatusTooManyRequests:
		ch.Outcome, ch.Reason = seedengine.CheckBlocked, "http_"+strconv.Itoa(resp.Status)
	case resp.Status < 200 || resp.Status > 299:
		ch.Outcome, ch.Reason = seedengine.CheckFailed, "http_"+strconv.Itoa(resp.Status)
	case liveness.IsChallenge(resp.Header, resp.Body):
		ch.Outcome, ch.Reason = seedengine.CheckBlocked, "challenge"
	default:
		var since time.Time
		if prev != nil && prev.Newest != nil {
			since = *prev.Newest
		}
		base, err := url.Parse(resp.FinalURL)
		if err != nil || resp.FinalURL == "" {
			base = entry
		}
		items = harvest.NewRead(base)
		if reason := c.read(&ch, s.Fetch.Type, resp.Body, since, prev == nil, items); reason != "" {
			ch.Outcome, ch.Reason = seedengine.CheckFailed, reason
		} else if ch.MovedTo != "" {
			ch.Outcome = seedengine.CheckMoved
		} else {
			ch.Outcome = seedengine.CheckOK
		}
	}
	if items == nil || (ch.Outcome != seedengine.CheckOK && ch.Outcome != seedengine.CheckMoved) {
		return ch, nil
	}
	return ch, items.Items()
}

// read parses a 2xx body as the seed's fetch type into ch; it returns a
// failure reason, or "".
func (c *Checker) read(ch *seedengine.SeedCheck, t seedengine.FetchType, body []byte, since time.Time, first bool, items *harvest.Read) string {
	now := c.now()
	switch t {
	case seedengine.FetchRSS, seedengine.FetchAtom, seedengine.FetchJSONFeed:
		info, entries, err := feed.ParseEntries(body, now)
		if err != nil {
			return "not_a_feed"
		}
		items.AddFeed(entries, info.Language)
		ch.Items = info.Items
		if !info.Newest.IsZero() {
			n := info.Newest
			ch.Newest = &n
		}
		ch.ItemsPerDay = rate(info.Dated, info.Oldest, info.Newest)
		if !first {
			ch.NewItems = info.NewerThan(since)
		}
	case seedengine.FetchNewsSitemap, seedengine.FetchSitemap:
		var oldest, newest time.Time
		dated, newer := 0, 0
		res, err := sitemap.Parse(bytes.NewReader(body), sitemap.Options{}, func(e sitemap.Entry) error {
			items.AddSitemap(e)
			d := e.Date()
			if d.IsZero() || d.After(now.Add(feed.FutureSkew)) {
				return nil
			}
			dated++
			if oldest.IsZero() || d.Before(oldest) {
				oldest = d
			}
			if d.After(newest) {
				newest = d
			}
			if d.After(since) {
				newer++
			}
			return nil
		})
		if err != nil && res.Entries == 0 {
			return "not_a_sitemap"
		}
		if res.Type == sitemap.TypeIndex {
			// Its entries are sitemaps, not articles; the harvest reads the
			// entry only (no second fetch), so an index yields no items.
			items.Drop()
		}
		ch.Items = res.Entries
		if !newest.IsZero() {
			ch.Newest = &newest
		}
		ch.ItemsPerDay = rate(dated, oldest, newest)
		if !first {
			ch.NewItems = newer
		}
	default:
		// An HTML or API entry: a 2xx answer is all a check can judge.
	}
	return ""
}

// rate is dated items per day over [oldest, newest]; 0 when it cannot be
// told.
func rate(dated int, oldest, newest time.Time) float64 {
	span := newest.Sub(oldest)
	if dated < 2 || span <= 0 {
		return 0
	}
	return float64(dated-1) / (span.Hours() / 24)
}

// permanentTarget returns where the leading run of permanent redirects
// (301, 308) led, when that is not entry itself; "" when the first hop is
// not permanent.
func permanentTarget(entry string, hops []fetch.Hop) string {
	target := ""
	for _, h := range hops {
		if h.Status != http.StatusMovedPermanently && h.Status != http.StatusPermanentRedirect {
			break
		}
		target = h.Location
	}
	if target == "" || sameURL(target, entry) {
		return ""
	}
	return target
}

// Canonicalises reports whether a permanent redirect from entry to target
// only respells the entry: http to https, a "www." added or dropped, a
// trailing slash added or dropped (the scheme and host compared without
// case), path and query otherwise the same.
func Canonicalises(entry, target string) bool {
	ue, err1 := url.Parse(entry)
	ut, err2 := url.Parse(target)
	if err1 != nil || err2 != nil || ut.Host == "" {
		return false
	}
	se, st := strings.ToLower(ue.Scheme), strings.ToLower(ut.Scheme)
	if se != st && (se != "http" || st != "https") {
		return false
	}
	he := strings.TrimPrefix(strings.ToLower(ue.Host), "www.")
	ht := strings.TrimPrefix(strings.ToLower(ut.Host), "www.")
	if se != st {
		// The default port changes with the scheme.
		he, ht = strings.TrimSuffix(he, ":80"), strings.TrimSuffix(ht, ":443")
	}
	return he == ht && strings.TrimSuffix(ue.EscapedPath(), "/") == strings.TrimSuffix(ut.EscapedPath(), "/") && ue.RawQuery == ut.RawQuery
}

// sameURL compares two URLs ignoring a trailing slash and the case of
// scheme and host.
func sameURL(a, b string) bool {
	ua, err1 := url.Parse(a)
	ub, err2 := url.Parse(b)
	if err1 != nil || err2 != nil {
		return a == b
	}
	return strings.EqualFold(ua.Scheme, ub.Scheme) && strings.EqualFold(ua.Host, ub.Host) &&
		strings.TrimSuffix(ua.EscapedPath(), "/") == strings.TrimSuffix(ub.EscapedPath(), "/") && ua.RawQuery == ub.RawQuery
}

// kindOf is the fetch kind (body cap, Accept header) of a fetch type.
func kindOf(t seedengine.FetchType) fetch.Kind {
	switch t {
	case seedengine.FetchRSS, seedengine.FetchAtom, seedengine.FetchJSONFeed:
		return fetch.KindFeed
	case seedengine.FetchNewsSitemap, seedengine.FetchSitemap:
		return fetch.KindSitemap
	}
	return fetch.KindPage
}

// robotsVerdict reads the entry host's robots.txt (cached for a day) and
// judges the entry against it.
func (c *Checker) robotsVerdict(ctx context.Context, entry *url.URL) string {
	key := entry.Scheme + "://" + strings.ToLower(entry.Host)
	now := c.now()
	c.mu.Lock()
	r, ok := c.robots[key]
	c.mu.Unlock()
	if !ok || now.Sub(r.fetched) >= robotsTTL {
		rt := fetch.FetchRobots(ctx, c.fetch.Do, entry.Host, nil)
		r = cachedRobots{status: rt.Status, fetched: now}
		if rt.Rules != nil {
			r.group = rt.Rules.Group(c.agent)
		}
		c.mu.Lock()
		if len(c.robots) >= maxRobots {
			clear(c.robots)
		}
		c.robots[key] = r
		c.mu.Unlock()
	}
	if r.group != nil && !r.group.Allowed(entry.RequestURI()) {
		return "disallowed"
	}
	if r.status == robots.StatusUnavailable {
		return "unavailable"
	}
	return "allowed"
}
