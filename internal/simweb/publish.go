package simweb

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"html"
	"math"
	"net/http"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// A Publisher is a site that publishes over time: articles appear at a
// steady rate on a simulated clock that may run faster than the real one,
// and its feeds and news sitemap show the newest of them, a fixed window
// at a time, as a real publisher's do. Tests measure a harvest's
// coverage against what it published (Published).

// Clock is a simulated clock: Epoch at the real instant Start, then Speed
// simulated seconds per real second; stopped from the real instant its
// Stop is called (a test's end: nothing more is published).
type Clock struct {
	Start time.Time
	Epoch time.Time
	Speed float64

	mu      sync.Mutex
	stopped time.Time
	manual  bool      // NewManualClock: time moves only by Set
	cur     time.Time // a manual clock's time
}

// NewManualClock returns a clock that stands at epoch and moves only
// when Set moves it, whatever the real time: a harness that waits for
// the reader (reads every seed due, then moves on) measures the same on
// a fast machine and a loaded one. Its simulated times are real times
// too (Real is the identity): the reader runs on the same clock.
func NewManualClock(epoch time.Time) *Clock {
	return &Clock{Epoch: epoch, Speed: 1, manual: true, cur: epoch}
}

// Set moves a manual clock to t (never back).
func (c *Clock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if t.After(c.cur) {
		c.cur = t
	}
}

// Current is a manual clock's time (Now of any real time).
func (c *Clock) Current() time.Time { return c.Now(time.Time{}) }

// Now is the simulated time at the real time real.
func (c *Clock) Now(real time.Time) time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.manual {
		return c.cur
	}
	if !c.stopped.IsZero() && real.After(c.stopped) {
		real = c.stopped
	}
	return c.Epoch.Add(time.Duration(float64(real.Sub(c.Start)) * c.Speed))
}

// Real is the real instant of simulated time t. Feeds date their items
// with it: a reader sees a publisher that posts Speed times as often,
// and its dates agree with the reader's own clock.
func (c *Clock) Real(t time.Time) time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.manual {
		return t
	}
	return c.Start.Add(time.Duration(float64(t.Sub(c.Epoch)) / c.Speed))
}

// StartNow starts the simulated time at Epoch now: before, nothing is
// published yet.
func (c *Clock) StartNow() {
	c.mu.Lock()
	c.Start = time.Now()
	c.mu.Unlock()
}

// Stop stops the clock now and returns the simulated time it stopped at.
func (c *Clock) Stop() time.Time {
	now := time.Now()
	c.mu.Lock()
	if c.manual {
		defer c.mu.Unlock()
		return c.cur
	}
	if c.stopped.IsZero() {
		c.stopped = now
	}
	c.mu.Unlock()
	return c.Now(now)
}

// Feed formats a Publication serves.
const (
	PubRSS         = "rss"
	PubAtom        = "atom"
	PubJSONFeed    = "json_feed"
	PubNewsSitemap = "news_sitemap"
	// PubDailySitemaps is a sitemap index at Path listing one sitemap
	// per simulated day (Path's directory + "sitemap-YYYY-MM-DD.xml",
	// each with its lastmod), each listing that day's articles: the
	// archive many news sites keep.
	PubDailySitemaps = "daily_sitemaps"
)

// Publication is one entry of a Publisher: a feed or news sitemap at Path
// showing the newest Window of the publisher's articles it carries.
type Publication struct {
	Path   string
	Format string // PubRSS, PubAtom, PubJSONFeed, PubNewsSitemap
	Window int
	// Every, when above 1, carries only every Every-th article (a section
	// feed: those articles are in the main feed too).
	Every int
	// Tracking adds utm_ parameters to each link, as feeds often do.
	Tracking bool
	// Undated leaves dates out.
	Undated bool
	// OldestFirst lists the window oldest first, as some feeds do.
	OldestFirst bool
	// Paged serves the windows before the newest at ?paged=2, 3, … as
	// WordPress serves a feed's older posts; past the last, 404.
	Paged bool
	// MaxAge, when set, shows the articles published in the last MaxAge
	// (a Google News sitemap's 48 hours) instead of the newest Window;
	// Window, when set too, caps them (Google's 1,000).
	MaxAge time.Duration
}

// Publisher publishes PerDay articles a simulated day on Host.
type Publisher struct {
	Host   string
	PerDay float64
	Clock  *Clock
	// Publications are its entries; at least one.
	Publications []Publication

	// Pattern shapes when the articles appear; the zero value spreads
	// them evenly, PerDay a day.
	Pattern Pattern

	// Pages serves each article's page at its ArticleURL (else those
	// paths are 404), with the page cases Articles sets.
	Pages bool
	// Articles are the page cases, by article number.
	Articles ArticleCases

	phase float64 // where in the first gap the first article falls, from the host
	once  sync.Once

	// A Pattern's schedule, generated as far as asked (sched.go).
	gmu   sync.Mutex
	gen   *schedule
	times []time.Time

	smu    sync.Mutex
	served map[int]int       // article pages served, by number
	sent   map[string][]byte // with Articles.Wire: the last response written, by path
}

// ArticleCases give some of a publisher's article pages what real sites
// give some of theirs. Each is "every Nth article" (0: none), counted on
// the article number i: i%N == R with R fixed per case.
type ArticleCases struct {
	// DisallowPrefix, when set, is a robots.txt Disallow rule for every
	// agent (e.g. "/articles/1" forbids articles 1, 10–19, 100–199, …).
	DisallowPrefix string
	// DuplicateEvery: article i (i%N == 3) is the same page as article
	// i-1, byte for byte, under its own URL.
	DuplicateEvery int
	// LargeEvery: article i (i%N == 7) is about LargeBytes long.
	LargeEvery int
	LargeBytes int
	// SlowEvery: article i (i%N == 5) answers after SlowDelay.
	SlowEvery int
	SlowDelay time.Duration
	// RedirectEvery: article i (i%N == 1) answers its ArticleURL with a
	// 301 to the same URL with a trailing slash, where the page is, as a
	// site whose links lack the slash its server wants.
	RedirectEvery int
	// Wire writes the article pages (and their redirects) as nginx does,
	// not as net/http would: its field order and spelling (ETag). Article
	// i (i%3) is framed as 0: nginx with gzip on (gzipped on the fly in
	// chunked transfer coding for a client that accepts gzip, else with a
	// Content-Length), 1: streamed by an application server (chunked, not
	// compressed), 2: gzipped in chunks whatever the client accepts (a
	// server that ignores Accept-Encoding); a duplicate as its original.
	// Sent gives the bytes written.
	Wire bool
	// Text writes article pages as newsrooms do (newsroom.go): a
	// headline, byline, dateline, JSON-LD and OpenGraph, navigation and
	// footer around paragraphs no other story shares. With it,
	// SyndicateEvery: article i (i%N == 4) is wire story i/N, the same
	// text on every publisher; VideoEvery: article i (i%N == 6) is a
	// video page, no article.
	Text           bool
	SyndicateEvery int
	VideoEvery     int
}

// Redirected reports whether article i's URL answers with a redirect.
func (a ArticleCases) Redirected(i int) bool {
	return a.RedirectEvery > 0 && i%a.RedirectEvery == 1
}

// Duplicate reports whether article i is a copy of article i-1.
func (a ArticleCases) Duplicate(i int) bool {
	return a.DuplicateEvery > 0 && i%a.DuplicateEvery == 3 && i > 0
}

// Served is how many times article i's page was requested.
func (p *Publisher) Served(i int) int {
	p.smu.Lock()
	defer p.smu.Unlock()
	return p.served[i]
}

// ArticleBody is the HTML of article i's page (a duplicate's is its
// original's).
func (p *Publisher) ArticleBody(i int) string {
	if p.Articles.Duplicate(i) {
		i--
	}
	if p.Articles.Text {
		return p.newsroomPage(i)
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Story %d</title>`+
		`<link rel="canonical" href="%s"></head><body><article><h1>Story %d</h1><p class="byline">%s</p>`,
		i, p.ArticleURL(i), i, p.Host)
	paragraphs := 8
	if c := p.Articles; c.LargeEvery > 0 && i%c.LargeEvery == 7 {
		paragraphs = max(c.LargeBytes/120, 8)
	}
	for k := range paragraphs {
		fmt.Fprintf(&b, "<p>Paragraph %d of story %d on %s: the simulated web's words, the same on every request.</p>\n", k, i, p.Host)
	}
	b.WriteString(`</article></body></html>`)
	return b.String()
}

// article serves article pages: /articles/{i}/story-{i}.
func (p *Publisher) article(r *http.Request, now time.Time) (Page, bool) {
	rest, ok := strings.CutPrefix(r.URL.Path, "/articles/")
	if !ok {
		return Page{}, false
	}
	num, slug, ok := strings.Cut(rest, "/")
	i, err := strconv.Atoi(num)
	slashed := strings.HasSuffix(slug, "/")
	if !ok || err != nil || strings.TrimSuffix(slug, "/") != "story-"+num || i < 0 || i >= p.Count(now) ||
		slashed && !p.Articles.Redirected(i) {
		return Page{}, false
	}
	p.smu.Lock()
	if p.served == nil {
		p.served = map[int]int{}
	}
	p.served[i]++
	p.smu.Unlock()
	if p.Articles.Redirected(i) && !slashed {
		to := p.ArticleURL(i) + "/"
		if !p.Articles.Wire {
			return Page{Status: http.StatusMovedPermanently, Header: http.Header{"Location": {to}}, Body: []byte(movedBody)}, true
		}
		return p.wire(r, nginxHead("301 Moved Permanently", "text/html", len(movedBody))+"Location: "+to+"\r\n\r\n"+movedBody), true
	}
	if c := p.Articles; c.SlowEvery > 0 && i%c.SlowEvery == 5 {
		select {
		case <-time.After(c.SlowDelay):
		case <-r.Context().Done():
		}
	}
	body := p.ArticleBody(i)
	if !p.Articles.Wire {
		return Page{Status: http.StatusOK, Header: http.Header{"Content-Type": {"text/html; charset=utf-8"}}, Body: []byte(body)}, true
	}
	etag := fmt.Sprintf(`"%x-%x"`, p.PublishedAt(i).Unix(), len(body))
	accepts := strings.Contains(strings.ToLower(r.Header.Get("Accept-Encoding")), "gzip")
	f := i
	if p.Articles.Duplicate(i) {
		f-- // framed as its original, so that its payload is the same
	}
	switch framing := f % 3; {
	case framing == 1:
		// A page streamed as it is made (an application server behind
		// nginx): chunked, not compressed.
		var b strings.Builder
		b.WriteString(nginxHead("200 OK", "text/html; charset=utf-8", -1))
		b.WriteString("Vary: Accept-Encoding\r\n\r\n")
		writeChunks(&b, []byte(body), 4096)
		return p.wire(r, b.String()), true
	case framing == 0 && !accepts:
		return p.wire(r, nginxHead("200 OK", "text/html; charset=utf-8", len(body))+"ETag: "+etag+"\r\nAccept-Ranges: bytes\r\n\r\n"+body), true
	}
	// gzip on the fly, for a client that accepts it, or (one page in
	// three) whatever the client asked, as a server that ignores
	// Accept-Encoding does: no length known up front, so chunked, a weak
	// ETag, and the chunks as the compressor filled its buffer.
	var b strings.Builder
	b.WriteString(nginxHead("200 OK", "text/html; charset=utf-8", -1))
	b.WriteString("Vary: Accept-Encoding\r\nETag: W/" + etag + "\r\nContent-Encoding: gzip\r\n\r\n")
	writeChunks(&b, GzipBytes([]byte(body)), 8192)
	return p.wire(r, b.String()), true
}

// writeChunks writes body in chunked transfer coding, chunks of at most
// size bytes, and the last chunk.
func writeChunks(b *strings.Builder, body []byte, size int) {
	for len(body) > 0 {
		n := min(len(body), size)
		fmt.Fprintf(b, "%x\r\n%s\r\n", n, body[:n])
		body = body[n:]
	}
	b.WriteString("0\r\n\r\n")
}

// movedBody is nginx's 301 page.
const movedBody = "<html>\r\n<head><title>301 Moved Permanently</title></head>\r\n<body>\r\n" +
	"<center><h1>301 Moved Permanently</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n"

// nginxHead is the start of a response as nginx writes it, up to the
// fields that differ: the status line, Server, Date, Content-Type,
// Content-Length (or chunked when length < 0) and Connection.
func nginxHead(status, ctype string, length int) string {
	framing := "Transfer-Encoding: chunked"
	if length >= 0 {
		framing = "Content-Length: " + strconv.Itoa(length)
	}
	return "HTTP/1.1 " + status + "\r\nServer: nginx\r\nDate: " + time.Now().UTC().Format(http.TimeFormat) +
		"\r\nContent-Type: " + ctype + "\r\n" + framing + "\r\nConnection: close\r\n"
}

// wire is a Page written as raw, noted as sent for r's path.
func (p *Publisher) wire(r *http.Request, raw string) Page {
	p.smu.Lock()
	if p.sent == nil {
		p.sent = map[string][]byte{}
	}
	p.sent[r.URL.Path] = []byte(raw)
	p.smu.Unlock()
	return Page{Wire: []byte(raw)}
}

// Sent is the last response written for path, with Articles.Wire: the
// bytes as they went on the connection. Nil when none was.
func (p *Publisher) Sent(path string) []byte {
	p.smu.Lock()
	defer p.smu.Unlock()
	return p.sent[path]
}

func (p *Publisher) init() {
	p.once.Do(func() {
		h := fnv.New64a()
		_, _ = h.Write([]byte(p.Host))
		p.phase = float64(h.Sum64()%1000) / 1000
	})
}

// gap is the simulated time between two articles.
func (p *Publisher) gap() time.Duration {
	return time.Duration(float64(24*time.Hour) / p.PerDay)
}

// Count is how many articles are published by simulated time t.
func (p *Publisher) Count(t time.Time) int {
	p.init()
	if t.Before(p.Clock.Epoch) {
		return 0
	}
	if !p.Pattern.zero() {
		return p.scheduled(t)
	}
	if p.PerDay <= 0 {
		return 0
	}
	return int(math.Floor(float64(t.Sub(p.Clock.Epoch))/float64(p.gap()) + p.phase))
}

// PublishedAt is when article i (from 0) is published, simulated.
func (p *Publisher) PublishedAt(i int) time.Time {
	p.init()
	if !p.Pattern.zero() {
		return p.timeOf(i)
	}
	return p.Clock.Epoch.Add(time.Duration((float64(i+1) - p.phase) * float64(p.gap())))
}

// ArticleURL is article i's canonical URL.
func (p *Publisher) ArticleURL(i int) string {
	return fmt.Sprintf("https://%s/articles/%d/story-%d", p.Host, i, i)
}

// Published lists the canonical URLs of the articles published by
// simulated time t.
func (p *Publisher) Published(t time.Time) []string {
	n := p.Count(t)
	out := make([]string, n)
	for i := range out {
		out[i] = p.ArticleURL(i)
	}
	return out
}

// Site is the publisher as a simweb site: its publications answer at
// their paths, against the real clock.
func (p *Publisher) Site() Site {
	p.init()
	s := Site{Host: p.Host, Layout: LayoutStatic, Dynamic: func(r *http.Request) (Page, bool) {
		now := p.Clock.Now(time.Now())
		for _, pub := range p.Publications {
			if r.URL.Path == pub.Path {
				if pub.Format == PubDailySitemaps {
					return p.serveDays(r, pub, now), true
				}
				return p.serve(r, pub, now), true
			}
			if pub.Format == PubDailySitemaps {
				if day, ok := p.dayOf(pub, r.URL.Path); ok {
					return p.serveDay(r, pub, day, now), true
				}
			}
		}
		if p.Pages {
			return p.article(r, now)
		}
		return Page{}, false
	}}
	if d := p.Articles.DisallowPrefix; d != "" {
		robots := "User-agent: *\nDisallow: " + d + "\n"
		s.Robots = &robots
	}
	return s
}

// window returns the article numbers pub shows at simulated time t on
// its page (1: the newest window; 2, … as ?paged= asks), newest first.
func (p *Publisher) window(pub Publication, t time.Time, page int) []int {
	every := max(pub.Every, 1)
	skip := (page - 1) * pub.Window
	var out []int
	for i := p.Count(t) - 1; i >= 0; i-- {
		if i%every != 0 {
			continue
		}
		if pub.MaxAge > 0 && p.PublishedAt(i).Before(t.Add(-pub.MaxAge)) {
			break
		}
		if skip > 0 {
			skip--
			continue
		}
		out = append(out, i)
		if pub.Window > 0 && len(out) == pub.Window {
			break
		}
	}
	return out
}

// Shown lists the article numbers pub shows at simulated time t, all its
// pages together (what a reader of the publication could have seen then).
func (p *Publisher) Shown(pub Publication, t time.Time) []int {
	if pub.Paged {
		return p.window(Publication{Every: pub.Every, MaxAge: pub.MaxAge}, t, 1)
	}
	return p.window(pub, t, 1)
}

// validators answers a conditional request for a document whose ETag
// and Last-Modified are these: a 304 page, or false.
func validators(r *http.Request, etag string, modified time.Time) (Page, bool) {
	h := http.Header{"ETag": {etag}}
	if !modified.IsZero() {
		h.Set("Last-Modified", modified.UTC().Format(http.TimeFormat))
	}
	if inm := r.Header.Get("If-None-Match"); inm != "" {
		if inm == etag {
			return Page{Status: http.StatusNotModified, Header: h}, true
		}
		return Page{}, false
	}
	if ims, err := http.ParseTime(r.Header.Get("If-Modified-Since")); err == nil && !modified.IsZero() && !modified.Truncate(time.Second).After(ims) {
		return Page{Status: http.StatusNotModified, Header: h}, true
	}
	return Page{}, false
}

func (p *Publisher) serve(r *http.Request, pub Publication, now time.Time) Page {
	page := 1
	if v := r.URL.Query().Get("paged"); v != "" && pub.Paged {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return Page{Status: http.StatusNotFound, Body: []byte("no such page")}
		}
		page = n
	}
	ids := p.window(pub, now, page)
	if page > 1 && len(ids) == 0 {
		return Page{Status: http.StatusNotFound, Body: []byte("no such page")}
	}
	h := sha256.New()
	fmt.Fprint(h, pub.Path, page, ids)
	etag := `"` + hex.EncodeToString(h.Sum(nil)[:8]) + `"`
	var modified time.Time
	if len(ids) > 0 {
		modified = p.Clock.Real(p.PublishedAt(ids[0]))
	}
	if nm, ok := validators(r, etag, modified); ok {
		return nm
	}
	if pub.OldestFirst {
		slices.Reverse(ids)
	}
	link := func(i int) string {
		u := p.ArticleURL(i)
		if pub.Tracking {
			u += "?utm_source=feed&utm_medium=rss&utm_campaign=" + strconv.Itoa(i%7)
		}
		return u
	}
	var b strings.Builder
	ctype := "application/rss+xml; charset=utf-8"
	switch pub.Format {
	case PubAtom:
		ctype = "application/atom+xml; charset=utf-8"
		fmt.Fprintf(&b, `<?xml version="1.0" encoding="utf-8"?><feed xmlns="http://www.w3.org/2005/Atom"><title>%s</title><id>https://%s/</id><updated>%s</updated>`,
			p.Host, p.Host, p.Clock.Real(now).UTC().Format(time.RFC3339))
		for _, i := range ids {
			fmt.Fprintf(&b, `<entry><title>Story %d</title><id>%s</id><link href="%s"/>`, i, p.ArticleURL(i), html.EscapeString(link(i)))
			if !pub.Undated {
				fmt.Fprintf(&b, `<updated>%s</updated>`, p.Clock.Real(p.PublishedAt(i)).UTC().Format(time.RFC3339))
			}
			b.WriteString(`<category term="news"/></entry>`)
		}
		b.WriteString(`</feed>`)
	case PubJSONFeed:
		ctype = "application/feed+json"
		type item struct {
			ID        string   `json:"id"`
			URL       string   `json:"url"`
			Title     string   `json:"title"`
			Published string   `json:"date_published,omitempty"`
			Tags      []string `json:"tags"`
		}
		doc := struct {
			Version string `json:"version"`
			Title   string `json:"title"`
			Items   []item `json:"items"`
		}{Version: "https://jsonfeed.org/version/1.1", Title: p.Host, Items: []item{}}
		for _, i := range ids {
			it := item{ID: p.ArticleURL(i), URL: link(i), Title: fmt.Sprintf("Story %d", i), Tags: []string{"news"}}
			if !pub.Undated {
				it.Published = p.Clock.Real(p.PublishedAt(i)).UTC().Format(time.RFC3339)
			}
			doc.Items = append(doc.Items, it)
		}
		body, _ := json.Marshal(doc)
		b.Write(body)
	case PubNewsSitemap:
		ctype = "application/xml; charset=utf-8"
		b.WriteString(`<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:news="http://www.google.com/schemas/sitemap-news/0.9">`)
		for _, i := range ids {
			fmt.Fprintf(&b, `<url><loc>%s</loc><news:news><news:publication><news:name>%s</news:name><news:language>en</news:language></news:publication>`,
				html.EscapeString(link(i)), p.Host)
			if !pub.Undated {
				fmt.Fprintf(&b, `<news:publication_date>%s</news:publication_date>`, p.Clock.Real(p.PublishedAt(i)).UTC().Format(time.RFC3339))
			}
			fmt.Fprintf(&b, `<news:title>Story %d</news:title></news:news></url>`, i)
		}
		b.WriteString(`</urlset>`)
	default:
		fmt.Fprintf(&b, `<?xml version="1.0" encoding="UTF-8"?><rss version="2.0"><channel><title>%s</title><link>https://%s/</link><language>en</language>`, p.Host, p.Host)
		for _, i := range ids {
			fmt.Fprintf(&b, `<item><title>Story %d</title><link>%s</link><guid>%s</guid><category>news</category>`, i, html.EscapeString(link(i)), p.ArticleURL(i))
			if !pub.Undated {
				fmt.Fprintf(&b, `<pubDate>%s</pubDate>`, p.Clock.Real(p.PublishedAt(i)).UTC().Format(time.RFC1123Z))
			}
			b.WriteString(`</item>`)
		}
		b.WriteString(`</channel></rss>`)
	}
	hdr := http.Header{"ETag": {etag}}
	if !modified.IsZero() {
		hdr.Set("Last-Modified", modified.UTC().Format(http.TimeFormat))
	}
	return Page{ContentType: ctype, Body: []byte(b.String()), Header: hdr}
}

// dayPath is the path of pub's sitemap of day (YYYY-MM-DD).
func dayPath(pub Publication, day string) string {
	return strings.TrimSuffix(path.Dir(pub.Path), "/") + "/sitemap-" + day + ".xml"
}

// dayOf reads the day of a daily sitemap's path of pub.
func (p *Publisher) dayOf(pub Publication, urlPath string) (time.Time, bool) {
	rest, ok := strings.CutPrefix(urlPath, strings.TrimSuffix(path.Dir(pub.Path), "/")+"/sitemap-")
	if !ok {
		return time.Time{}, false
	}
	day, ok := strings.CutSuffix(rest, ".xml")
	if !ok {
		return time.Time{}, false
	}
	d, err := time.Parse(time.DateOnly, day)
	return d, err == nil
}

// dayArticles are the article numbers published on the simulated UTC day
// of day by t, newest first.
func (p *Publisher) dayArticles(day, t time.Time) []int {
	start, end := day, day.Add(24*time.Hour)
	var out []int
	for i := p.Count(t) - 1; i >= 0; i-- {
		at := p.PublishedAt(i)
		if at.Before(start) {
			break
		}
		if at.Before(end) {
			out = append(out, i)
		}
	}
	return out
}

// serveDays serves a daily sitemaps publication's index: one sitemap a
// day that has articles, newest first, each with its lastmod.
func (p *Publisher) serveDays(r *http.Request, pub Publication, now time.Time) Page {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`)
	var modified time.Time
	first := p.Clock.Epoch.UTC().Truncate(24 * time.Hour)
	for day := now.UTC().Truncate(24 * time.Hour); !day.Before(first); day = day.Add(-24 * time.Hour) {
		ids := p.dayArticles(day, now)
		if len(ids) == 0 {
			continue
		}
		last := p.Clock.Real(p.PublishedAt(ids[0]))
		if modified.IsZero() {
			modified = last
		}
		fmt.Fprintf(&b, `<sitemap><loc>https://%s%s</loc><lastmod>%s</lastmod></sitemap>`,
			p.Host, dayPath(pub, day.Format(time.DateOnly)), last.UTC().Format(time.RFC3339))
	}
	b.WriteString(`</sitemapindex>`)
	h := sha256.New()
	fmt.Fprint(h, pub.Path, b.String())
	etag := `"` + hex.EncodeToString(h.Sum(nil)[:8]) + `"`
	if nm, ok := validators(r, etag, modified); ok {
		return nm
	}
	hdr := http.Header{"ETag": {etag}}
	if !modified.IsZero() {
		hdr.Set("Last-Modified", modified.UTC().Format(http.TimeFormat))
	}
	return Page{ContentType: "application/xml; charset=utf-8", Body: []byte(b.String()), Header: hdr}
}

// serveDay serves one day's sitemap: its articles with their lastmod.
func (p *Publisher) serveDay(r *http.Request, pub Publication, day, now time.Time) Page {
	ids := p.dayArticles(day, now)
	if len(ids) == 0 {
		return Page{Status: http.StatusNotFound, Body: []byte("no such sitemap")}
	}
	modified := p.Clock.Real(p.PublishedAt(ids[0]))
	h := sha256.New()
	fmt.Fprint(h, pub.Path, day, ids)
	etag := `"` + hex.EncodeToString(h.Sum(nil)[:8]) + `"`
	if nm, ok := validators(r, etag, modified); ok {
		return nm
	}
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`)
	for _, i := range ids {
		fmt.Fprintf(&b, `<url><loc>%s</loc><lastmod>%s</lastmod></url>`, html.EscapeString(p.ArticleURL(i)),
			p.Clock.Real(p.PublishedAt(i)).UTC().Format(time.RFC3339))
	}
	b.WriteString(`</urlset>`)
	hdr := http.Header{"ETag": {etag}, "Last-Modified": {modified.UTC().Format(http.TimeFormat)}}
	return Page{ContentType: "application/xml; charset=utf-8", Body: []byte(b.String()), Header: hdr}
}
