package pages

import (
	"context"
	"crypto/rand"
	"encoding/base32"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/fetch"
	"github.com/seedengine/seedengine/internal/robots"
	"github.com/seedengine/seedengine/internal/warc"
)

// Store is what the fetcher keeps in SQL (sqlstore.PageService).
type Store interface {
	FindPage(ctx context.Context, itemID int64) (*seedengine.Page, error)
	FindPageDigest(ctx context.Context, digest string) (seedengine.PageDigest, bool, error)
	MarkPageFetched(ctx context.Context, p *seedengine.Page) (bool, error)
	MarkPageDone(ctx context.Context, itemID int64, state seedengine.PageState, status int, reason string, at time.Time) error
	StoreWARCFile(ctx context.Context, f seedengine.WARCFile, spool string, digests []seedengine.PageDigest) (int, error)
	SpoolExtent(ctx context.Context, spool string) (int, int64, error)
}

// Objects is where stored files go (blobstore.Store).
type Objects interface {
	Put(ctx context.Context, key string, r io.Reader, contentType string) (int64, error)
}

// Fetch is the part of fetch.Client the fetcher uses.
type Fetch interface {
	Do(ctx context.Context, req fetch.Request) (*fetch.Response, error)
	// SetCrawlDelay raises the delay between requests to a host (its
	// robots.txt Crawl-delay), for every fetch of the process.
	SetCrawlDelay(host string, d time.Duration)
	// Book holds a place in a host's line when its turn is near, or
	// says when to ask again (fetch.Client.Book).
	Book(host string, horizon time.Duration, again bool) (*fetch.Booking, time.Duration)
}

// Config sets the fetcher's limits.
type Config struct {
	// Dir is the spool directory (local disk); required.
	Dir string
	// Process names this process in its files' names (a host name, a
	// pod); default the host name.
	Process string
	// MaxFileBytes rolls a spool file once it is this big; default 1 GiB.
	MaxFileBytes int64
	// MaxFileAge rolls a spool file this long after its first record;
	// default 10 min.
	MaxFileAge time.Duration
	// Agent is the robots.txt product token; default "seedengine".
	Agent string
	// MaxCrawlDelay caps the robots.txt Crawl-delay obeyed; default 10 s.
	MaxCrawlDelay time.Duration
	// Horizon is how far off a page's turn at its host may be for its
	// job to wait for it; a job whose turn is further off is put back in
	// the queue until then (DeferError), leaving its worker to other
	// hosts' pages. Default 2 s: at the default per-host delay of 1 s a
	// host's next page waits in a worker, the ones after it in the queue
	// (whose producers are woken when they come due, internal/jobs), so
	// the workers go to as many hosts as there are.
	Horizon time.Duration
	// Leases is how many page jobs this process runs at once (the
	// queue's page workers). While half of them or more hold a place in
	// their hosts' lines, a job waits only for a turn within
	// ContendedHorizon, so that the workers spread over as many hosts as
	// can be fetched at once instead of lining up at the first hosts
	// queued. 0: no such limit.
	Leases int
	Now    func() time.Time
	Logger *slog.Logger
}

func (c Config) withDefaults() Config {
	if c.Process == "" {
		c.Process, _ = os.Hostname()
	}
	c.Process = safeName(c.Process)
	if c.MaxFileBytes <= 0 {
		c.MaxFileBytes = 1 << 30
	}
	if c.MaxFileAge <= 0 {
		c.MaxFileAge = 10 * time.Minute
	}
	if c.Agent == "" {
		c.Agent = "seedengine"
	}
	if c.MaxCrawlDelay <= 0 {
		c.MaxCrawlDelay = 10 * time.Second
	}
	if c.Horizon <= 0 {
		c.Horizon = 2 * time.Second
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	return c
}

// safeName keeps what may stand in a file name: letters, digits, - and _.
func safeName(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_':
			b.WriteRune(r)
		default:
			b.WriteByte('-')
		}
	}
	if b.Len() == 0 {
		return "process"
	}
	return seedengine.Truncate(b.String(), 60)
}

// Fetcher fetches pages into spool files and stores the files.
type Fetcher struct {
	cfg     Config
	store   Store
	objects Objects
	fetch   Fetch

	mu     sync.Mutex
	open   map[seedengine.Partition]*spool
	serial int
	robots map[string]cachedRobots
	// reading are the robots.txt reads in progress, by scheme and host.
	reading map[string]*robotsRead
	// spooled are the payloads of the responses this process wrote that
	// are not stored yet: a page with one of them is a revisit.
	spooled map[string]seedengine.PageDigest
	// writing are the payloads of the responses being written (made
	// records outside f.mu), each closed once spooled or given up.
	writing map[string]chan struct{}
	// lock holds the spool slot.
	lock *os.File
	// storing counts the spool files being stored.
	storing sync.WaitGroup

	// waiting counts the page jobs that hold a place in their host's
	// line; away are the pages sent away (DeferError) not back yet.
	waiting atomic.Int64
	away    map[int64]struct{}
}

// ContendedHorizon is the horizon while half the leases hold a place:
// only a turn that is all but due is waited for.
const ContendedHorizon = 500 * time.Millisecond

// maxAway bounds the pages remembered as sent away.
const maxAway = 1 << 20

// DeferError is a page whose host's turn is too far off to wait for: its
// job should come back after Wait (a River snooze), not count as a try.
type DeferError struct{ Wait time.Duration }

func (e *DeferError) Error() string { return fmt.Sprintf("the host's turn is %v off", e.Wait) }

// SnoozeFor is how long the job should wait before it runs again.
func (e *DeferError) SnoozeFor() time.Duration { return e.Wait }

type cachedRobots struct {
	group  *robots.Group
	status robots.Status
	at     time.Time
	delay  time.Duration // Crawl-delay for our agent, capped
	reason string        // why the host will never be fetched, when it will not
}

// robotsTTL is how long a host's robots.txt is used before it is read
// again (RFC 9309 §2.4's longest cache time).
const robotsTTL = 24 * time.Hour

// New returns a Fetcher; call Recover before the first fetch and Close
// at the end.
//
// Processes may share a spool directory (several on one machine with one
// data directory): each takes the first free slot of it, Dir/{n}, held by
// an exclusive lock on Dir/{n}.lock for the process's life. A process
// started again after a crash takes the slot it had (the lock died with
// it) and recovers its files; another process's slot is never touched.
func New(cfg Config, store Store, objects Objects, f Fetch) (*Fetcher, error) {
	cfg = cfg.withDefaults()
	if cfg.Dir == "" {
		return nil, errors.New("pages: a spool directory is required")
	}
	if err := os.MkdirAll(cfg.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("pages: spool directory: %w", err)
	}
	slot, lock, err := takeSlot(cfg.Dir)
	if err != nil {
		return nil, err
	}
	cfg.Dir = filepath.Join(cfg.Dir, strconv.Itoa(slot))
	// Two processes on one host (or two hosts of one name) must never
	// name a file alike: a run id of this process's own goes in every name.
	cfg.Process = cfg.Process + "-" + runID()
	return &Fetcher{cfg: cfg, store: store, objects: objects, fetch: f, open: map[seedengine.Partition]*spool{}, robots: map[string]cachedRobots{},
		spooled: map[string]seedengine.PageDigest{}, writing: map[string]chan struct{}{}, lock: lock, away: map[int64]struct{}{},
		reading: map[string]*robotsRead{}}, nil
}

// runID is 6 random lower-case base32 characters.
func runID() string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(b[:]))[:6]
}

// maxSlots bounds the processes sharing one spool directory.
const maxSlots = 256

// takeSlot locks the first free slot of dir.
func takeSlot(dir string) (int, *os.File, error) {
	for n := range maxSlots {
		f, err := os.OpenFile(filepath.Join(dir, strconv.Itoa(n)+".lock"), os.O_CREATE|os.O_RDWR, 0o644)
		if err != nil {
			return 0, nil, fmt.Errorf("pages: spool lock: %w", err)
		}
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
			_ = f.Close()
			continue
		}
		if err := os.MkdirAll(filepath.Join(dir, strconv.Itoa(n)), 0o755); err != nil {
			_ = f.Close()
			return 0, nil, fmt.Errorf("pages: spool directory: %w", err)
		}
		return n, f, nil
	}
	return 0, nil, fmt.Errorf("pages: all %d spool slots of %s are taken", maxSlots, dir)
}

// FetchPage fetches an item's page into its partition's spool file and
// marks it fetched; a page robots.txt disallows is marked skipped, one
// that cannot be fetched failed. A page no longer queued (a job run
// twice) is left alone. An error is worth a retry: robots.txt
// unreachable (RFC 9309: disallow everything for now), a failure that
// may pass (a DNS or connect timeout, a reset: transient), a stop. On
// the page's last try (final) a failure that may pass is the page's:
// it is marked failed with its reason, robots.txt unreachable as
// robots_unreachable, so no page stays queued with no job left to fetch
// it.
func (f *Fetcher) FetchPage(ctx context.Context, itemID int64, final bool) error {
	p, err := f.store.FindPage(ctx, itemID)
	if seedengine.ErrorCode(err) == seedengine.ENOTFOUND {
		return nil
	}
	if err != nil {
		return err
	}
	if p.State != seedengine.PageQueued {
		return nil
	}
	u, err := url.Parse(p.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return f.store.MarkPageDone(ctx, itemID, seedengine.PageFailed, 0, "bad_url", f.cfg.Now())
	}
	// Every hop, the first included, is held to robots.txt; the port
	// policy is checked first, so robots.txt is never asked of a port
	// the page may not be fetched from. The link is the publisher's
	// word, so its own port earns it nothing (StrictPorts). The fetch is
	// captured: the archive keeps the exchanges as they went over the
	// wire. It asks for the page unencoded, as wget and Heritrix do: the
	// record's own gzip then sets the archive's size, not the level a
	// server compressed at (docs/decisions.md, "What a record holds").
	admit := func(hop *url.URL) error {
		ok, err := f.allowed(ctx, hop)
		if err != nil {
			return err
		}
		if !ok {
			return errDisallowed
		}
		return nil
	}
	// The frontier: wait for the host's turn only when it is near.
	horizon := f.cfg.Horizon
	if l := f.cfg.Leases; l > 0 && f.waiting.Load() >= int64(l/2) {
		horizon = min(horizon, ContendedHorizon)
	}
	f.mu.Lock()
	_, again := f.away[itemID]
	delete(f.away, itemID)
	f.mu.Unlock()
	booking, wait := f.fetch.Book(u.Hostname(), horizon, again)
	if booking == nil {
		f.mu.Lock()
		if len(f.away) >= maxAway {
			clear(f.away)
		}
		f.away[itemID] = struct{}{}
		f.mu.Unlock()
		return &DeferError{Wait: wait}
	}
	f.waiting.Add(1)
	resp, err := f.fetch.Do(ctx, fetch.Request{URL: p.URL, Kind: fetch.KindPage, StrictPorts: true, Admit: admit, Capture: true,
		Header: http.Header{"Accept-Encoding": {"identity"}}})
	booking.Done()
	f.waiting.Add(-1)
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if errors.Is(err, errDisallowed) {
		return f.store.MarkPageDone(ctx, itemID, seedengine.PageSkipped, 0, "robots_disallowed", f.cfg.Now())
	}
	if r, ok := errors.AsType[*refusedError](err); ok {
		return f.store.MarkPageDone(ctx, itemID, seedengine.PageFailed, 0, r.reason, f.cfg.Now())
	}
	if errors.Is(err, errRobotsLater) {
		if final {
			return f.store.MarkPageDone(ctx, itemID, seedengine.PageFailed, 0, "robots_unreachable", f.cfg.Now())
		}
		return err
	}
	if err != nil {
		reason := fetch.Reason(err)
		if !final && transient(reason) {
			return fmt.Errorf("fetch page of item %d (try again later): %w", itemID, err)
		}
		return f.store.MarkPageDone(ctx, itemID, seedengine.PageFailed, 0, reason, f.cfg.Now())
	}
	if resp.Truncated {
		return f.store.MarkPageDone(ctx, itemID, seedengine.PageFailed, resp.Status, "too_large", f.cfg.Now())
	}
	chain, err := captures(resp)
	if err != nil {
		f.cfg.Logger.Warn("page response cannot be archived", "event", "page_unarchivable", "url", p.URL, "err", err)
		return f.store.MarkPageDone(ctx, itemID, seedengine.PageFailed, resp.Status, "unarchivable", f.cfg.Now())
	}
	last := &chain[len(chain)-1]
	digest, err := last.PayloadDigest()
	if err != nil {
		f.cfg.Logger.Warn("page response cannot be archived", "event", "page_unarchivable", "url", p.URL, "err", err)
		return f.store.MarkPageDone(ctx, itemID, seedengine.PageFailed, resp.Status, "unarchivable", f.cfg.Now())
	}
	orig, err := f.stored(ctx, digest)
	if err != nil {
		return err
	}
	// The records are made outside f.mu (compressing them is most of
	// what writing a page costs), so a payload being written is held in
	// f.writing until it is spooled: of two pages with one payload the
	// second waits for the first and is always the revisit.
	f.mu.Lock()
	for orig == nil {
		if d, ok := f.spooled[digest]; ok {
			// Written by this process, not stored yet.
			orig = &warc.Revisit{RecordID: d.RecordID, TargetURI: d.TargetURI, Date: d.Date, PayloadDigest: digest}
			break
		}
		busy, ok := f.writing[digest]
		if !ok {
			break
		}
		f.mu.Unlock()
		select {
		case <-busy:
		case <-ctx.Done():
			return ctx.Err()
		}
		f.mu.Lock()
	}
	var writing chan struct{}
	if orig == nil {
		writing = make(chan struct{})
		f.writing[digest] = writing
	}
	f.mu.Unlock()
	// done lets the pages waiting for this payload go; f.mu is held.
	done := func() {
		if writing != nil {
			delete(f.writing, digest)
			close(writing)
			writing = nil
		}
	}
	built, err := warc.BuildChain(chain, orig)
	if err != nil {
		// The exchange cannot be a record (a URL no WARC header can
		// hold), which no retry changes.
		f.mu.Lock()
		done()
		f.mu.Unlock()
		f.cfg.Logger.Warn("page response cannot be archived", "event", "page_unarchivable", "url", p.URL, "err", err)
		return f.store.MarkPageDone(ctx, itemID, seedengine.PageFailed, resp.Status, "unarchivable", f.cfg.Now())
	}
	f.mu.Lock()
	sp, err := f.spoolFor(p.Partition)
	if err != nil {
		done()
		f.mu.Unlock()
		return err
	}
	recs, err := sp.w.Append(built)
	if err == nil {
		var lines strings.Builder
		for _, r := range recs {
			lines.WriteString(warc.CDXJLine(r, sp.name))
			lines.WriteByte('\n')
		}
		_, err = io.WriteString(sp.index, lines.String())
	}
	if err != nil {
		// The file (or its index) may end in part of a record: store
		// what it holds and start another.
		done()
		delete(f.open, p.Partition)
		f.mu.Unlock()
		_ = f.closeAndStore(context.WithoutCancel(ctx), sp)
		return fmt.Errorf("write page %d: %w", itemID, err)
	}
	rec := recs[len(recs)-1]
	sp.records += len(recs)
	sp.marking.Add(1)
	if orig != nil {
		sp.revisit++
	} else {
		d := seedengine.PageDigest{PayloadDigest: rec.PayloadDigest, TargetURI: rec.TargetURI, Date: rec.Date, RecordID: rec.RecordID}
		sp.digests = append(sp.digests, d)
		f.spooled[d.PayloadDigest] = d
	}
	done()
	full := sp.w.Size() >= f.cfg.MaxFileBytes
	if full {
		delete(f.open, p.Partition)
	}
	f.mu.Unlock()

	fetched := f.cfg.Now().UTC()
	p.Status, p.MIME, p.PayloadDigest, p.Revisit = rec.Status, rec.MIME, rec.PayloadDigest, orig != nil
	p.Spool, p.SpoolOffset, p.SpoolLength, p.FetchedAt = sp.name, rec.Offset, rec.Length, &fetched
	p.FinalURL, p.Hops = "", nil
	if len(recs) > 1 {
		p.FinalURL = resp.FinalURL
		for i, r := range recs[:len(recs)-1] {
			p.Hops = append(p.Hops, seedengine.PageHop{URL: chain[i].TargetURI, Status: r.Status, Location: resp.Redirects[i].Location,
				Offset: r.Offset, Length: r.Length})
		}
	}
	_, err = f.store.MarkPageFetched(ctx, p)
	sp.marking.Done()
	if err != nil {
		return err
	}
	if full {
		return f.closeAndStore(ctx, sp)
	}
	return nil
}

var (
	errDisallowed  = errors.New("robots.txt disallows it")
	errRobotsLater = errors.New("robots.txt is unreachable: try later")
)

// refusedError is a host that will never be fetched: its name does not
// exist, or its addresses are ones the fetcher refuses (loopback,
// private, link-local, …), or it is no host at all. Its page is failed
// at once with the fetch's reason, not retried.
type refusedError struct{ reason string }

func (e *refusedError) Error() string { return "host refused for good: " + e.reason }

// permanent reports whether robots.txt's fetch failed for a reason that
// no later try changes.
func permanent(reason string) bool {
	switch reason {
	case fetch.ReasonBlocked, fetch.ReasonNXDomain, fetch.ReasonNoAddress, fetch.ReasonBadRequest:
		return true
	}
	return false
}

// transient reports whether a page's fetch failed for a reason that may
// pass (the network's, the resolver's), so that a later try may fetch
// it: one DNS timeout must not lose an article for good.
func transient(reason string) bool {
	switch reason {
	case fetch.ReasonDNSTimeout, fetch.ReasonServfail, fetch.ReasonDNSError, fetch.ReasonConnectRefused,
		fetch.ReasonConnectTimeout, fetch.ReasonConnectReset, fetch.ReasonUnreachable, fetch.ReasonTimeout,
		fetch.ReasonNetwork:
		return true
	}
	return false
}

// stored is the stored response whose payload a page repeats, nil when
// none.
func (f *Fetcher) stored(ctx context.Context, digest string) (*warc.Revisit, error) {
	d, ok, err := f.store.FindPageDigest(ctx, digest)
	if err != nil || !ok {
		return nil, err
	}
	return &warc.Revisit{RecordID: d.RecordID, TargetURI: d.TargetURI, Date: d.Date, PayloadDigest: digest}, nil
}

// allowed reads u's host's robots.txt (cached a day) and judges u by our
// group. An unreachable robots.txt (5xx, 429, no answer) is an error: the
// fetch waits and tries again.
func (f *Fetcher) allowed(ctx context.Context, u *url.URL) (bool, error) {
	key := u.Scheme + "://" + strings.ToLower(u.Host)
	now := f.cfg.Now()
	f.mu.Lock()
	r, ok := f.robots[key]
	if !ok || now.Sub(r.at) >= robotsTTL {
		// One read of a host's robots.txt at a time: the pages that ask
		// meanwhile wait for its answer instead of each reading it.
		fl, reading := f.reading[key]
		if !reading {
			fl = &robotsRead{done: make(chan struct{})}
			f.reading[key] = fl
		}
		f.mu.Unlock()
		if reading {
			select {
			case <-fl.done:
			case <-ctx.Done():
				return false, ctx.Err()
			}
			r = fl.r
		} else {
			r = f.readRobots(ctx, u.Host, now)
			f.mu.Lock()
			if r.status != robots.StatusUnreachable {
				if len(f.robots) >= maxRobots {
					clear(f.robots)
				}
				f.robots[key] = r
			}
			delete(f.reading, key)
			f.mu.Unlock()
			fl.r = r
			close(fl.done)
		}
	} else {
		f.mu.Unlock()
	}
	if r.status == robots.StatusUnreachable {
		if r.reason != "" {
			return false, &refusedError{reason: r.reason}
		}
		return false, fmt.Errorf("%s: %w", u.Host, errRobotsLater)
	}
	if r.delay > 0 {
		// Set again before each fetch: the fetcher forgets a host's delay
		// once it has been idle a while.
		f.fetch.SetCrawlDelay(u.Hostname(), r.delay)
	}
	return r.group == nil || r.group.Allowed(robots.PathQuery(u.String())), nil
}

// robotsRead is a read of a host's robots.txt in progress; r is its
// answer once done is closed.
type robotsRead struct {
	done chan struct{}
	r    cachedRobots
}

// readRobots reads host's robots.txt and judges it for our agent.
func (f *Fetcher) readRobots(ctx context.Context, host string, now time.Time) cachedRobots {
	rt := fetch.FetchRobots(ctx, f.fetch.Do, host, nil)
	r := cachedRobots{status: rt.Status, at: now}
	if reason := fetch.Reason(rt.Err); rt.Response == nil && permanent(reason) {
		r.reason = reason
	}
	if rt.Rules != nil {
		r.group = rt.Rules.Group(f.cfg.Agent)
	}
	if r.group != nil {
		if d, ok := r.group.CrawlDelay(); ok {
			r.delay = min(d, f.cfg.MaxCrawlDelay)
		}
	}
	return r
}

// maxRobots bounds the robots.txt cache.
const maxRobots = 50_000

// captures are a captured fetch's exchanges as the archive keeps them:
// every redirect hop, then the final response, each dated when its
// request's first byte went out.
func captures(resp *fetch.Response) ([]warc.Capture, error) {
	if len(resp.Exchanges) == 0 || len(resp.Exchanges) != len(resp.Redirects)+1 {
		return nil, fmt.Errorf("the fetch captured %d exchanges for %d redirects", len(resp.Exchanges), len(resp.Redirects))
	}
	chain := make([]warc.Capture, len(resp.Exchanges))
	for i, ex := range resp.Exchanges {
		block, err := warc.WireResponse(ex.Response)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", ex.URL, err)
		}
		chain[i] = warc.Capture{TargetURI: ex.URL, IP: ex.IP, Date: ex.Start.UTC(), Request: ex.Request, Response: block}
	}
	return chain, nil
}
