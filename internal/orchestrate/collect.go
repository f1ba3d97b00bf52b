package orchestrate

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/fetch"
	"github.com/seedengine/seedengine/internal/layout"
	"github.com/seedengine/seedengine/internal/robots"
	"github.com/seedengine/seedengine/internal/sitemap"
)

// ObjectStore is what the collector needs of the object store;
// any seedengine.ObjectStore satisfies it. Errors are returned as the store gives
// them; any of them fails Collect.
type ObjectStore interface {
	// Put stores r at key, replacing any object there; a failing r
	// stores nothing.
	Put(ctx context.Context, key string, r io.Reader, contentType string) (int64, error)
	// Exists reports whether an object is stored at key.
	Exists(ctx context.Context, key string) (bool, error)
	// Delete removes the object at key; ENOTFOUND when there is none.
	Delete(ctx context.Context, key string) error
}

// Fetcher is what the collector needs of the outbound client;
// *fetch.Client satisfies it. Failures are *fetch.Error values; an HTTP
// status is never an error.
type Fetcher interface {
	// Do fetches req.URL with its body read (robots.txt).
	Do(ctx context.Context, req fetch.Request) (*fetch.Response, error)
	// Stream fetches req.URL and hands the body over unread (sitemaps);
	// the caller closes it.
	Stream(ctx context.Context, req fetch.Request) (*fetch.StreamResponse, error)
}

// crawlDelaySetter is implemented by *fetch.Client; a Fetcher that has it
// is told robots.txt's Crawl-delay before the sitemaps are fetched.
type crawlDelaySetter interface {
	SetCrawlDelay(host string, d time.Duration)
}

// CollectorConfig bounds the collector's work. Zero fields take the
// defaults named.
type CollectorConfig struct {
	// Agent is our robots.txt product token; default "seedengine".
	Agent string
	// MaxSitemapCandidates caps the robots.txt Sitemap: lines tried;
	// default 3.
	MaxSitemapCandidates int
	// MaxSitemapChildren caps the children of a sitemap index fetched and
	// counted; default 10.
	MaxSitemapChildren int
	// MaxCrawlDelay caps the robots.txt Crawl-delay handed to the fetcher
	// (the metadata records the site's value); default 10 s.
	MaxCrawlDelay time.Duration
	// MaxSearchRequests caps the HTTP exchanges of the news sitemap search
	// (contract.Config.MaxRequests; robots.txt's count); default 24.
	MaxSearchRequests int
	// MaxSearchGuesses caps the known news sitemap paths the search
	// probes without anything naming them (contract.Config.MaxKnownPaths);
	// default 6, the most common ones. The collector runs for every
	// domain of a partition, so it guesses less than a contract run (16);
	// robots.txt, the home page and the CMS's paths are searched in full.
	MaxSearchGuesses int
	// SearchDeadline bounds the news sitemap search; default 20 s, which
	// leaves the sitemap step 25 s of Deadline.
	SearchDeadline time.Duration
	// Deadline bounds all fetches of one Collect, the search's included;
	// default 45 s. The store writes after it are bounded by the caller's
	// context only.
	Deadline time.Duration
	// Now is the clock; default time.Now.
	Now func() time.Time
}

func (c CollectorConfig) withDefaults() CollectorConfig {
	if c.Agent == "" {
		c.Agent = "seedengine"
	}
	if c.MaxSitemapCandidates <= 0 {
		c.MaxSitemapCandidates = 3
	}
	if c.MaxSitemapChildren <= 0 {
		c.MaxSitemapChildren = 10
	}
	if c.MaxCrawlDelay <= 0 {
		c.MaxCrawlDelay = 10 * time.Second
	}
	if c.MaxSearchRequests <= 0 {
		c.MaxSearchRequests = 24
	}
	if c.MaxSearchGuesses <= 0 {
		c.MaxSearchGuesses = 6
	}
	if c.SearchDeadline <= 0 {
		c.SearchDeadline = 20 * time.Second
	}
	if c.Deadline <= 0 {
		c.Deadline = 45 * time.Second
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	return c
}

// Collector collects the robots.txt and sitemap evidence of domains into
// the object store. It is safe for concurrent use.
type Collector struct {
	f     Fetcher
	store ObjectStore
	cfg   CollectorConfig
	log   *slog.Logger
}

// NewCollector returns a Collector fetching through f and writing to
// store. A nil log discards the log events.
func NewCollector(f Fetcher, store ObjectStore, cfg CollectorConfig, log *slog.Logger) *Collector {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Collector{f: f, store: store, cfg: cfg.withDefaults(), log: log}
}

// Config returns the effective configuration.
func (c *Collector) Config() CollectorConfig { return c.cfg }

// CollectResult is the outcome of one Collect.
type CollectResult struct {
	// Skipped is true when the checkpoint existed and the run was not
	// forced; nothing was fetched or written and Metadata is nil.
	Skipped bool
	// Metadata is what was written to domain_metadata.json.
	Metadata *DomainMetadata
	// Keys are the keys written, in write order, the checkpoint last.
	Keys []string
}

// Collect collects domain (a registrable domain, as in its domain_id) for
// partition p and writes its evidence, domain_metadata.json and then the
// checkpoint (see the package documentation). rawFileKey is recorded as
// the source. It returns Skipped without fetching when the checkpoint
// exists and force is false. Fetch failures are recorded, never returned;
// a store error or the end of ctx is returned, with no checkpoint written,
// so the job is retried; an invalid p or domain is EINVALID.
func (c *Collector) Collect(ctx context.Context, p seedengine.Partition, domainID, domain, rawFileKey string, force bool) (CollectResult, error) {
	start := time.Now()
	keys, err := domainKeys(p, domain)
	if err != nil {
		return CollectResult{}, err
	}
	log := c.log.With(
		slog.Group("partition", slog.String("country", p.Country), slog.String("category", p.Category), slog.String("date", p.Date)),
		slog.String("domain", domain),
	)
	log.InfoContext(ctx, "domain collector started", "event", "domain_collector_start", "domain_id", domainID, "force", force)
	if !force {
		done, err := c.store.Exists(ctx, keys.checkpoint)
		if err != nil {
			return CollectResult{}, fmt.Errorf("check %s: %w", keys.checkpoint, err)
		}
		if done {
			log.InfoContext(ctx, "domain already collected", "event", "domain_collector_complete", "skipped", true,
				"duration_ms", time.Since(start).Milliseconds())
			return CollectResult{Skipped: true}, nil
		}
	}

	md := &DomainMetadata{
		DomainID:          domainID,
		RegistrableDomain: domain,
		Country:           strings.ToUpper(p.Country),
		Category:          p.Category,
		Date:              p.Date,
		Source:            SourceMetadata{RawFilePath: rawFileKey},
	}
	var written []string
	fctx, cancel := context.WithTimeout(ctx, c.cfg.Deadline)
	defer cancel()

	t := time.Now()
	rs, robotsBody := c.fetchRobots(fctx, domain, &md.Robots)
	if err := ctx.Err(); err != nil {
		return CollectResult{}, err
	}
	log.InfoContext(ctx, "robots.txt fetched", "event", "robots_fetched", "status_code", md.Robots.StatusCode,
		"result", md.Robots.Result, "exists", md.Robots.Exists, "sitemaps", len(md.Robots.SitemapURLs),
		"error", md.Robots.Error, "duration_ms", time.Since(t).Milliseconds())
	if md.Robots.Exists {
		if _, err := c.store.Put(ctx, keys.robots, bytes.NewReader(robotsBody), "text/plain; charset=utf-8"); err != nil {
			return CollectResult{}, fmt.Errorf("write %s: %w", keys.robots, err)
		}
		written = append(written, keys.robots)
	}

	t = time.Now()
	best, news := c.searchNewsSitemap(fctx, domainID, rs, &md.NewsSitemap)
	if err := ctx.Err(); err != nil {
		return CollectResult{}, err
	}
	ns := &md.NewsSitemap
	log.InfoContext(ctx, "news sitemap searched", "event", "news_sitemap_searched", "exists", ns.Exists, "url", ns.URL,
		"via", ns.Via, "news_items", ns.NewsItems, "outcome", ns.Search.Outcome, "requests", ns.Search.Requests,
		"cms", ns.Search.CMS, "duration_ms", time.Since(t).Milliseconds())

	t = time.Now()
	stored, err := c.collectSitemap(ctx, fctx, rs, c.sitemapCandidates(rs, best, news), &md.Sitemap, keys.sitemap)
	if err != nil {
		return CollectResult{}, err
	}
	if err := ctx.Err(); err != nil {
		return CollectResult{}, err
	}
	if stored {
		written = append(written, keys.sitemap)
	}
	log.InfoContext(ctx, "sitemap fetched", "event", "sitemap_fetched", "status_code", md.Sitemap.StatusCode,
		"url", md.Sitemap.URL, "exists", md.Sitemap.Exists, "type", md.Sitemap.Type, "url_count", md.Sitemap.URLCount,
		"children_counted", md.Sitemap.ChildrenCounted, "error", md.Sitemap.Error, "duration_ms", time.Since(t).Milliseconds())

	// Evidence this run did not fetch must not stay from an earlier one
	// (a forced rerun, or a run that failed after writing it): the files
	// of a domain directory always describe the same collection.
	for _, k := range []string{keys.robots, keys.sitemap} {
		if slices.Contains(written, k) {
			continue
		}
		if err := c.store.Delete(ctx, k); err != nil && seedengine.ErrorCode(err) != seedengine.ENOTFOUND {
			return CollectResult{}, fmt.Errorf("delete stale %s: %w", k, err)
		}
	}

	md.CollectedAt = c.cfg.Now().UTC()
	body, err := json.MarshalIndent(md, "", "  ")
	if err != nil {
		return CollectResult{}, fmt.Errorf("encode domain metadata: %w", err)
	}
	body = append(body, '\n')
	if _, err := c.store.Put(ctx, keys.metadata, bytes.NewReader(body), "application/json"); err != nil {
		return CollectResult{}, fmt.Errorf("write %s: %w", keys.metadata, err)
	}
	written = append(written, keys.metadata)
	if _, err := c.store.Put(ctx, keys.checkpoint, strings.NewReader("{}"), "application/json"); err != nil {
		return CollectResult{}, fmt.Errorf("write %s: %w", keys.checkpoint, err)
	}
	written = append(written, keys.checkpoint)
	log.InfoContext(ctx, "domain collected", "event", "domain_collector_complete", "skipped", false,
		"robots_status", md.Robots.StatusCode, "sitemap_status", md.Sitemap.StatusCode, "url_count", md.Sitemap.URLCount,
		"news_sitemap", md.NewsSitemap.Exists,
		"keys", len(written), "duration_ms", time.Since(start).Milliseconds())
	return CollectResult{Metadata: md, Keys: written}, nil
}

type domainKeySet struct{ metadata, checkpoint, robots, sitemap string }

func domainKeys(p seedengine.Partition, domain string) (domainKeySet, error) {
	var k domainKeySet
	for _, f := range []struct {
		dst  *string
		name string
	}{
		{&k.metadata, layout.FileDomainMetadata},
		{&k.checkpoint, layout.FileDomainMetadataSuccess},
		{&k.robots, layout.FileRobots},
		{&k.sitemap, layout.FileSitemap},
	} {
		key, err := layout.ProdDomainFileKey(p, domain, f.name)
		if err != nil {
			return domainKeySet{}, err
		}
		*f.dst = key
	}
	return k, nil
}

// robotsState is what the search and the sitemap step need from
// robots.txt.
type robotsState struct {
	rt       fetch.RobotsTxt // as fetched, for the search
	sitemaps []string        // the Sitemap: lines, resolved
	group    *robots.Group
	result   robots.Status
	site     *url.URL // scheme and host robots.txt was served from
	domain   string
}

// fetchRobots fetches robots.txt (https, then http when https gave no
// answer), fills md and returns the rules with the body.
func (c *Collector) fetchRobots(ctx context.Context, domain string, md *RobotsMetadata) (robotsState, []byte) {
	md.FetchedAt = c.now()
	rt := fetch.FetchRobots(ctx, c.f.Do, domain, nil)
	resp, result, rules, base := rt.Response, rt.Status, rt.Rules, rt.Base
	md.URL = rt.URL
	var body []byte
	if rt.Err != nil {
		md.Error = fetch.Reason(rt.Err)
	} else {
		md.StatusCode, md.FinalURL, md.Truncated = resp.Status, resp.FinalURL, resp.Truncated
		if resp.Status >= 200 && resp.Status < 300 {
			body = resp.Body
			md.Exists, md.ContentLength = true, int64(len(body))
		}
	}
	md.Result = string(result)
	g := rules.Group(c.cfg.Agent)
	md.SitemapURLs = rules.Sitemaps(base)
	if md.SitemapURLs == nil {
		md.SitemapURLs = []string{}
	}
	if cd, ok := g.CrawlDelay(); ok {
		s := cd.Seconds()
		md.CrawlDelay = &s
		if sd, ok := c.f.(crawlDelaySetter); ok {
			d := min(cd, c.cfg.MaxCrawlDelay)
			for _, h := range []string{domain, "www." + domain, base.Hostname()} {
				sd.SetCrawlDelay(h, d)
			}
		}
	}
	return robotsState{
		rt:       rt,
		sitemaps: md.SitemapURLs,
		group:    g,
		result:   result,
		site:     &url.URL{Scheme: base.Scheme, Host: base.Host},
		domain:   domain,
	}, body
}

// allowed reports whether robots.txt lets us fetch raw. Sitemaps on
// another site, which robots.txt may list, are that site's to rule on.
func (rs robotsState) allowed(raw string) bool {
	u, err := url.Parse(raw)
	if err != nil {
		return false
	}
	host := strings.ToLower(strings.TrimSuffix(u.Hostname(), "."))
	if host != rs.domain && !strings.HasSuffix(host, "."+rs.domain) {
		return true
	}
	return rs.group.Allowed(u.RequestURI())
}

// errRobotsRedirect refuses a redirect hop that robots.txt disallows.
var errRobotsRedirect = errors.New("robots.txt disallows the redirect target")

// admit holds every hop of a fetch, redirects included, to robots.txt.
func (rs robotsState) admit(u *url.URL) error {
	if !rs.allowed(u.String()) {
		return errRobotsRedirect
	}
	return nil
}

// sitemapCandidates are, in order: the best top-level sitemap the search
// read unless it is the news sitemap (which has its own object), the
// robots.txt sitemaps (capped), the default path on the robots.txt site,
// and the news sitemap when nothing else answers.
func (c *Collector) sitemapCandidates(rs robotsState, best, news string) []string {
	var out []string
	add := func(u string) {
		if u != "" && !slices.Contains(out, u) {
			out = append(out, u)
		}
	}
	if best != news {
		add(best)
	}
	for _, u := range rs.sitemaps[:min(len(rs.sitemaps), c.cfg.MaxSitemapCandidates)] {
		add(u)
	}
	add(rs.site.String() + "/sitemap.xml")
	add(news)
	return out
}

// collectSitemap finds, stores and counts the domain's sitemap, filling
// md. It reports whether the evidence was stored; its error is a store
// failure only.
func (c *Collector) collectSitemap(ctx, fctx context.Context, rs robotsState, candidates []string, md *SitemapMetadata, key string) (bool, error) {
	if rs.result == robots.StatusUnreachable {
		md.Error = SitemapRobotsUnreachable
		return false, nil
	}
	for _, cand := range candidates {
		*md = SitemapMetadata{URL: cand, Candidates: md.Candidates}
		if !rs.allowed(cand) {
			md.Error = SitemapDisallowed
			continue
		}
		md.Candidates++
		md.FetchedAt = c.now()
		resp, err := c.f.Stream(fctx, fetch.Request{URL: cand, Kind: fetch.KindSitemap, Admit: rs.admit})
		if err != nil {
			md.Error = fetch.Reason(err)
			if errors.Is(err, errRobotsRedirect) {
				md.Error = SitemapDisallowed
			}
			if fctx.Err() != nil {
				return false, nil
			}
			continue
		}
		md.StatusCode, md.FinalURL = resp.Status, resp.FinalURL
		if resp.Status < 200 || resp.Status > 299 {
			_ = resp.Body.Close()
			md.Error = SitemapHTTPStatus
			continue
		}
		return c.readSitemap(ctx, fctx, rs, resp, md, key)
	}
	return false, nil
}

// readSitemap streams a 2xx sitemap body into the store and the parser at
// once, then counts an index's children.
func (c *Collector) readSitemap(ctx, fctx context.Context, rs robotsState, resp *fetch.StreamResponse, md *SitemapMetadata, key string) (bool, error) {
	body := &recordingReader{r: resp.Body}
	up := startUpload(ctx, c.store, key, evidenceType(resp.Header))
	src := io.TeeReader(body, up)
	var children []string
	res, perr := sitemap.Parse(src, sitemap.Options{}, func(e sitemap.Entry) error {
		if len(children) < c.cfg.MaxSitemapChildren {
			children = append(children, e.Loc)
		}
		return nil
	})
	if up.err == nil && body.err == nil {
		// The parser stops at the end of the root element (or at its
		// entry cap); the evidence is the whole body as fetched.
		_, _ = io.Copy(io.Discard, src)
	}
	_ = resp.Body.Close()
	md.ContentLength = body.n
	stored, err := up.finish(body.err)
	if err != nil {
		return false, fmt.Errorf("write %s: %w", key, err)
	}

	md.Type, md.Gzip, md.Truncated = string(res.Type), res.Gzip, res.Truncated
	md.Exists = res.Type != ""
	switch {
	case body.err != nil:
		md.Error = fetch.Reason(body.err)
	case perr == nil:
	case errors.Is(perr, sitemap.ErrNotSitemap):
		md.Error, md.Exists = SitemapNotASitemap, false
	case errors.Is(perr, sitemap.ErrDoctype):
		md.Error, md.Exists = SitemapDoctype, false
	case errors.Is(perr, sitemap.ErrTooLarge):
		md.Error, md.Truncated = SitemapTooLarge, true
	default:
		md.Error = SitemapParseError
	}
	if !md.Exists {
		md.Type = ""
		return stored, nil
	}
	if res.Type != sitemap.TypeIndex {
		md.URLCount = res.Entries
		return stored, nil
	}
	md.Children = res.Entries
	for _, child := range children {
		if ctx.Err() != nil {
			break
		}
		md.ChildrenCounted++
		n, truncated, ok := c.countChild(fctx, rs, child)
		md.URLCount += n
		md.Truncated = md.Truncated || truncated
		if !ok {
			md.ChildrenFailed++
		}
	}
	return stored, nil
}

// countChild fetches one child of a sitemap index and returns its URL
// entries; ok is false when it could not be fetched or read. A child that
// is an index itself counts nothing (depth 1).
func (c *Collector) countChild(ctx context.Context, rs robotsState, u string) (n int, truncated, ok bool) {
	if !rs.allowed(u) {
		return 0, false, false
	}
	resp, err := c.f.Stream(ctx, fetch.Request{URL: u, Kind: fetch.KindSitemap, Admit: rs.admit})
	if err != nil {
		return 0, false, false
	}
	defer resp.Body.Close()
	if resp.Status < 200 || resp.Status > 299 {
		return 0, false, false
	}
	res, err := sitemap.Parse(resp.Body, sitemap.Options{}, func(sitemap.Entry) error { return nil })
	if res.Type == sitemap.TypeIndex {
		return 0, false, err == nil
	}
	return res.Entries, res.Truncated || errors.Is(err, sitemap.ErrTooLarge), err == nil || res.Entries > 0
}

func (c *Collector) now() *time.Time {
	t := c.cfg.Now().UTC()
	return &t
}

// evidenceType is the Content-Type to store evidence with: the response's
// media type, or XML.
func evidenceType(h http.Header) string {
	if ct := h.Get("Content-Type"); ct != "" {
		if _, _, err := mime.ParseMediaType(ct); err == nil {
			return ct
		}
	}
	return "application/xml"
}

// recordingReader counts the bytes read and keeps the first read error
// other than EOF, so that a failure of the body can be told from a failure
// of the upload the body is teed into.
type recordingReader struct {
	r   io.Reader
	n   int64
	err error
}

func (r *recordingReader) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	r.n += int64(n)
	if err != nil && err != io.EOF && r.err == nil {
		r.err = err
	}
	return n, err
}

// upload streams what is written to it into store.Put in a goroutine,
// through a pipe, so evidence is never held whole.
type upload struct {
	pw   *io.PipeWriter
	done chan struct{}
	n    int64
	perr error // Put's error
	err  error // the first write error: the upload stopped early
}

func startUpload(ctx context.Context, store ObjectStore, key, contentType string) *upload {
	pr, pw := io.Pipe()
	u := &upload{pw: pw, done: make(chan struct{})}
	go func() {
		defer close(u.done)
		u.n, u.perr = store.Put(ctx, key, pr, contentType)
		// Put may return before reading everything (it failed): unblock
		// the writer.
		_ = pr.CloseWithError(errUploadEnded)
	}()
	return u
}

var errUploadEnded = errors.New("evidence upload ended")

func (u *upload) Write(p []byte) (int, error) {
	if u.err != nil {
		return 0, u.err
	}
	n, err := u.pw.Write(p)
	if err != nil {
		u.err = err
	}
	return n, err
}

// finish ends the upload. With a body error the upload is abandoned, so
// no partial evidence is stored, and Put's error is expected. It reports
// whether the evidence was stored, and returns Put's error otherwise.
func (u *upload) finish(bodyErr error) (bool, error) {
	if bodyErr != nil && u.err == nil {
		_ = u.pw.CloseWithError(bodyErr)
		<-u.done
		return false, nil
	}
	_ = u.pw.Close()
	<-u.done
	if u.perr != nil {
		return false, u.perr
	}
	if u.err != nil {
		return false, u.err
	}
	return true, nil
}
