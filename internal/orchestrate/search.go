package orchestrate

import (
	"context"
	"sync"
	"time"

	"github.com/seedengine/seedengine/internal/contract"
	"github.com/seedengine/seedengine/internal/fetch"
	"github.com/seedengine/seedengine/internal/robots"
)

// Outcomes of the news sitemap search (SearchMetadata.Outcome). They are
// stored, so they never change.
const (
	SearchFound             = "found"              // a news sitemap was read
	SearchNotFound          = "not_found"          // every candidate within the caps was tried
	SearchBudgetExhausted   = "budget_exhausted"   // MaxSearchRequests ran out first
	SearchDeadlineReached   = "deadline_reached"   // SearchDeadline (or the collector's Deadline) ran out first
	SearchRobotsUnreachable = "robots_unreachable" // not run: RFC 9309 disallows everything
)

// searchFetcher is the collector's Fetcher as a contract.Fetcher. It
// notes when each URL was first requested, for news_sitemap.fetched_at.
type searchFetcher struct {
	f   Fetcher
	now func() time.Time
	mu  sync.Mutex
	at  map[string]time.Time
}

func (s *searchFetcher) note(u string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.at[u]; !ok {
		s.at[u] = s.now().UTC()
	}
}

func (s *searchFetcher) fetchedAt(u string) *time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.at[u]
	if !ok {
		return nil
	}
	return &t
}

func (s *searchFetcher) Do(ctx context.Context, req fetch.Request) (*fetch.Response, error) {
	s.note(req.URL)
	return s.f.Do(ctx, req)
}

func (s *searchFetcher) Stream(ctx context.Context, req fetch.Request) (*fetch.StreamResponse, error) {
	s.note(req.URL)
	return s.f.Stream(ctx, req)
}

// SetCrawlDelay forwards to the collector's Fetcher when it has the
// method; without it the fetcher's own politeness applies.
func (s *searchFetcher) SetCrawlDelay(host string, d time.Duration) {
	if sd, ok := s.f.(crawlDelaySetter); ok {
		sd.SetCrawlDelay(host, d)
	}
}

// searchNewsSitemap runs the contract's sitemap search from the
// robots.txt already fetched and fills md. It returns the best top-level
// sitemap the search read and the news sitemap's entry URL ("" for
// none), for the sitemap step to prefer.
func (c *Collector) searchNewsSitemap(ctx context.Context, domainID string, rs robotsState, md *NewsSitemapMetadata) (best, news string) {
	md.Search = SearchMetadata{MaxRequests: c.cfg.MaxSearchRequests, CMS: []string{}}
	if rs.result == robots.StatusUnreachable {
		md.Search.Outcome = SearchRobotsUnreachable
		return "", ""
	}
	sf := &searchFetcher{f: c.f, now: c.cfg.Now, at: map[string]time.Time{}}
	d := contract.New(sf, contract.Config{
		SitemapsOnly:  true,
		Agent:         c.cfg.Agent,
		MaxRequests:   c.cfg.MaxSearchRequests,
		MaxKnownPaths: c.cfg.MaxSearchGuesses,
		Deadline:      c.cfg.SearchDeadline,
		MaxCrawlDelay: c.cfg.MaxCrawlDelay,
		Now:           c.cfg.Now,
	})
	ev := d.DiscoverWithRobots(ctx, domainID, rs.domain, rs.rt)

	s := &md.Search
	s.Requests, s.ElapsedMS = ev.Spent.Requests, ev.Spent.ElapsedMS
	for _, m := range ev.CMS {
		s.CMS = append(s.CMS, m.Name)
	}
	for _, cd := range ev.Candidates {
		if cd.Kind == contract.KindSitemap && cd.Fetched {
			s.SitemapsRead++
		}
	}
	ns := ev.NewsSitemap()
	switch {
	case ns != nil:
		s.Outcome = SearchFound
	case ev.Spent.DeadlineReached:
		s.Outcome = SearchDeadlineReached
	case ev.Spent.BudgetExhausted:
		s.Outcome = SearchBudgetExhausted
	default:
		s.Outcome = SearchNotFound
	}
	if ns == nil {
		return ev.SitemapURL(), ""
	}
	md.Exists = true
	md.URL, md.Via, md.Parent = ns.URL, ns.Via, ns.Parent
	if ns.FinalURL != ns.URL {
		md.FinalURL = ns.FinalURL
	}
	md.StatusCode, md.NewsItems = ns.Status, ns.NewsItems
	if ns.Newest != nil {
		t := ns.Newest.UTC()
		md.Newest = &t
	}
	md.FetchedAt = sf.fetchedAt(ns.URL)
	return ev.SitemapURL(), ns.EntryURL()
}
