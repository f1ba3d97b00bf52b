package orchestrate_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/blobstore"
	"github.com/seedengine/seedengine/internal/fetch"
	"github.com/seedengine/seedengine/internal/layout"
	"github.com/seedengine/seedengine/internal/orchestrate"
	"github.com/seedengine/seedengine/internal/simweb"
	"github.com/seedengine/seedengine/internal/simweb/simwebtest"
	"github.com/seedengine/seedengine/internal/sitemap"
)

const rawKey = "raw/country=sg/category=news/date=2026-01-28/raw_0001.json"

var collectedAt = time.Date(2026, 1, 28, 4, 0, 0, 0, time.UTC)

// countingFetcher counts the fetches made through it; SetCrawlDelay is
// the client's, promoted.
type countingFetcher struct {
	*fetch.Client
	n atomic.Int64
}

func (f *countingFetcher) Do(ctx context.Context, req fetch.Request) (*fetch.Response, error) {
	f.n.Add(1)
	return f.Client.Do(ctx, req)
}

func (f *countingFetcher) Stream(ctx context.Context, req fetch.Request) (*fetch.StreamResponse, error) {
	f.n.Add(1)
	return f.Client.Stream(ctx, req)
}

// failingStore fails Put for keys ending in failSuffix, after reading a
// little of the body, as a store that breaks mid-upload does.
type failingStore struct {
	*blobstore.Store
	failSuffix string
}

var errStoreDown = errors.New("store down")

func (s *failingStore) Put(ctx context.Context, key string, r io.Reader, contentType string) (int64, error) {
	if s.failSuffix != "" && strings.HasSuffix(key, s.failSuffix) {
		_, _ = io.CopyN(io.Discard, r, 100)
		return 0, errStoreDown
	}
	return s.Store.Put(ctx, key, r, contentType)
}

type collectFixture struct {
	web    *simweb.Web
	client *fetch.Client
	f      *countingFetcher
	store  *blobstore.Store
	c      *orchestrate.Collector
}

func setupCollector(t *testing.T, sites ...simweb.Site) *collectFixture {
	t.Helper()
	return setupCollectorConfig(t, orchestrate.CollectorConfig{}, sites...)
}

// setupCollectorConfig is setupCollector with cfg; its clock is always
// collectedAt.
func setupCollectorConfig(t *testing.T, cfg orchestrate.CollectorConfig, sites ...simweb.Site) *collectFixture {
	t.Helper()
	web, client := simwebtest.Client(t, sites, 5*time.Second)
	store, err := blobstore.Open(t.Context(), "mem://")
	require.NoError(t, err)
	t.Cleanup(func() { _ = store.Close() })
	f := &countingFetcher{Client: client}
	cfg.Now = func() time.Time { return collectedAt }
	c := orchestrate.NewCollector(f, store, cfg, nil)
	return &collectFixture{web: web, client: client, f: f, store: store, c: c}
}

func domainKey(t *testing.T, domain, file string) string {
	t.Helper()
	k, err := layout.ProdDomainFileKey(testPartition, domain, file)
	require.NoError(t, err)
	return k
}

func (fx *collectFixture) get(t *testing.T, key string) []byte {
	t.Helper()
	r, _, err := fx.store.NewReader(t.Context(), key)
	require.NoError(t, err)
	defer r.Close()
	b, err := io.ReadAll(r)
	require.NoError(t, err)
	return b
}

func (fx *collectFixture) exists(t *testing.T, key string) bool {
	t.Helper()
	ok, err := fx.store.Exists(t.Context(), key)
	require.NoError(t, err)
	return ok
}

// storedMetadata decodes domain_metadata.json generically, so that field
// names are checked as written, not as the Go struct reads them.
func (fx *collectFixture) storedMetadata(t *testing.T, domain string) map[string]any {
	t.Helper()
	b := fx.get(t, domainKey(t, domain, layout.FileDomainMetadata))
	require.True(t, bytes.HasPrefix(b, []byte("{\n  \"domain_id\": ")), "pretty-printed with 2 spaces: %s", b)
	var m map[string]any
	require.NoError(t, json.Unmarshal(b, &m))
	return m
}

func (fx *collectFixture) fetchBody(t *testing.T, u string) []byte {
	t.Helper()
	resp, err := fx.client.Do(t.Context(), fetch.Request{URL: u, Kind: fetch.KindSitemap})
	require.NoError(t, err)
	require.Equal(t, 200, resp.Status, u)
	return resp.Body
}

func (fx *collectFixture) countURLs(t *testing.T, u string) int {
	t.Helper()
	res, err := sitemap.Parse(bytes.NewReader(fx.fetchBody(t, u)), sitemap.Options{}, func(sitemap.Entry) error { return nil })
	require.NoError(t, err)
	return res.Entries
}

func sub(m map[string]any, key string) map[string]any { return m[key].(map[string]any) }

func keysOf(m map[string]any) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

func TestCollectWordPress(t *testing.T) {
	t.Parallel()
	const host = "wp.example.sg"
	fx := setupCollector(t, simweb.Site{Host: host, Layout: simweb.LayoutWordPress})
	res, err := fx.c.Collect(t.Context(), testPartition, "com:sg:example.sg", host, rawKey, false)
	require.NoError(t, err)
	require.False(t, res.Skipped)
	require.Equal(t, []string{
		domainKey(t, host, layout.FileRobots),
		domainKey(t, host, layout.FileSitemap),
		domainKey(t, host, layout.FileDomainMetadata),
		domainKey(t, host, layout.FileDomainMetadataSuccess),
	}, res.Keys)

	m := fx.storedMetadata(t, host)
	require.Equal(t, []string{"category", "collected_at", "country", "date", "domain_id", "news_sitemap", "registrable_domain", "robots", "sitemap", "source"}, keysOf(m))
	require.Equal(t, "com:sg:example.sg", m["domain_id"])
	require.Equal(t, host, m["registrable_domain"])
	require.Equal(t, "SG", m["country"])
	require.Equal(t, "news", m["category"])
	require.Equal(t, "2026-01-28T04:00:00Z", m["collected_at"])
	require.Equal(t, map[string]any{"raw_file_path": rawKey}, m["source"])

	robotsBody := fx.get(t, domainKey(t, host, layout.FileRobots))
	require.Equal(t, fx.fetchBody(t, "https://"+host+"/robots.txt"), robotsBody)
	r := sub(m, "robots")
	require.Subset(t, keysOf(r), []string{"content_length", "crawl_delay", "exists", "fetched_at", "sitemap_urls", "status_code"})
	require.EqualValues(t, 200, r["status_code"])
	require.EqualValues(t, len(robotsBody), r["content_length"])
	require.Equal(t, true, r["exists"])
	require.Equal(t, "2026-01-28T04:00:00Z", r["fetched_at"])
	require.Equal(t, []any{"https://" + host + "/sitemap.xml"}, r["sitemap_urls"])
	require.Nil(t, r["crawl_delay"])
	require.Equal(t, "parsed", r["result"])

	sitemapBody := fx.get(t, domainKey(t, host, layout.FileSitemap))
	require.Equal(t, fx.fetchBody(t, "https://"+host+"/sitemap.xml"), sitemapBody)
	s := sub(m, "sitemap")
	require.Subset(t, keysOf(s), []string{"content_length", "exists", "fetched_at", "status_code", "url", "url_count"})
	require.EqualValues(t, 200, s["status_code"])
	require.EqualValues(t, len(sitemapBody), s["content_length"])
	require.Equal(t, true, s["exists"])
	require.Equal(t, "2026-01-28T04:00:00Z", s["fetched_at"])
	require.EqualValues(t, 20, s["url_count"])
	require.Equal(t, "https://"+host+"/sitemap.xml", s["url"])
	require.Equal(t, "urlset", s["type"])
	require.NotContains(t, s, "error")

	require.Equal(t, "{}", string(fx.get(t, domainKey(t, host, layout.FileDomainMetadataSuccess))))
	require.Equal(t, 20, res.Metadata.Sitemap.URLCount)
}

func TestCollectNewsIndex(t *testing.T) {
	t.Parallel()
	const host = "daily-news.example.com"
	fx := setupCollector(t, simweb.Site{Host: host, Layout: simweb.LayoutNews})
	res, err := fx.c.Collect(t.Context(), testPartition, "media:sg:example.com", host, rawKey, false)
	require.NoError(t, err)

	base := "https://" + host
	want := 0
	for _, p := range []string{"/news-sitemap.xml", "/sitemap-pages.xml", "/sitemap-articles-2.xml.gz", "/sitemap-articles-1.xml.gz"} {
		want += fx.countURLs(t, base+p)
	}
	m := fx.storedMetadata(t, host)
	require.Equal(t, []any{base + "/sitemap_index.xml", base + "/news-sitemap.xml"}, sub(m, "robots")["sitemap_urls"])
	s := sub(m, "sitemap")
	require.Equal(t, base+"/sitemap_index.xml", s["url"])
	require.Equal(t, "sitemapindex", s["type"])
	require.EqualValues(t, want, s["url_count"])
	require.EqualValues(t, 4, s["children"])
	require.EqualValues(t, 4, s["children_counted"])
	require.NotContains(t, s, "children_failed")
	require.Greater(t, want, 14)
	// The robots.txt line named news-sitemap.xml is read first; the
	// index stays the sitemap, since news_sitemap has its own object.
	ns := sub(m, "news_sitemap")
	require.Equal(t, true, ns["exists"])
	require.Equal(t, base+"/news-sitemap.xml", ns["url"])
	require.Equal(t, "robots", ns["via"])
	require.Positive(t, ns["news_items"])
	// Only the index is evidence, as fetched.
	require.Equal(t, fx.fetchBody(t, base+"/sitemap_index.xml"), fx.get(t, domainKey(t, host, layout.FileSitemap)))
	require.Len(t, res.Keys, 4)
}

func TestCollectSitemapIndexChildBound(t *testing.T) {
	t.Parallel()
	const host = "many.example.sg"
	var idx strings.Builder
	idx.WriteString(`<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`)
	pages := map[string]simweb.Page{}
	for i := range 15 {
		p := "/sm-" + itoa(i+1) + ".xml"
		idx.WriteString("<sitemap><loc>https://" + host + p + "</loc></sitemap>")
		pages[p] = simweb.Page{ContentType: "application/xml", Body: []byte(
			`<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>https://` + host + `/a` + itoa(i) + `</loc></url><url><loc>https://` + host + `/b</loc></url></urlset>`)}
	}
	idx.WriteString("</sitemapindex>")
	pages["/sitemap.xml"] = simweb.Page{ContentType: "application/xml", Body: []byte(idx.String())}
	// The third child is missing: it counts as failed.
	pages["/sm-3.xml"] = simweb.Page{Status: 404}
	robotsTxt := "User-agent: *\nDisallow:\n"
	fx := setupCollector(t, simweb.Site{Host: host, Layout: simweb.LayoutStatic, Robots: &robotsTxt, Pages: pages})
	res, err := fx.c.Collect(t.Context(), testPartition, "com:sg:many.example.sg", host, rawKey, false)
	require.NoError(t, err)
	s := res.Metadata.Sitemap
	require.Equal(t, 15, s.Children)
	require.Equal(t, 10, s.ChildrenCounted)
	require.Equal(t, 1, s.ChildrenFailed)
	require.Equal(t, 18, s.URLCount)
	require.Equal(t, "https://"+host+"/sitemap.xml", s.URL) // the default path: robots.txt names none
}

func TestCollectRobots404(t *testing.T) {
	t.Parallel()
	const host = "norobots.example.sg"
	fx := setupCollector(t, simweb.Site{Host: host, RobotsStatus: 404})
	res, err := fx.c.Collect(t.Context(), testPartition, "com:sg:norobots.example.sg", host, rawKey, false)
	require.NoError(t, err)
	require.NotContains(t, res.Keys, domainKey(t, host, layout.FileRobots))
	require.False(t, fx.exists(t, domainKey(t, host, layout.FileRobots)))

	m := fx.storedMetadata(t, host)
	r := sub(m, "robots")
	require.EqualValues(t, 404, r["status_code"])
	require.Equal(t, false, r["exists"])
	require.EqualValues(t, 0, r["content_length"])
	require.Equal(t, []any{}, r["sitemap_urls"])
	require.Equal(t, "unavailable", r["result"])
	s := sub(m, "sitemap")
	require.Equal(t, "https://"+host+"/sitemap.xml", s["url"])
	require.Equal(t, true, s["exists"])
	require.EqualValues(t, 20, s["url_count"])
	require.True(t, fx.exists(t, domainKey(t, host, layout.FileSitemap)))
}

func TestCollectRobots503(t *testing.T) {
	t.Parallel()
	const host = "busy.example.sg"
	fx := setupCollector(t, simweb.Site{Host: host, RobotsStatus: 503})
	res, err := fx.c.Collect(t.Context(), testPartition, "com:sg:busy.example.sg", host, rawKey, false)
	require.NoError(t, err)
	require.Equal(t, []string{domainKey(t, host, layout.FileDomainMetadata), domainKey(t, host, layout.FileDomainMetadataSuccess)}, res.Keys)
	m := fx.storedMetadata(t, host)
	r := sub(m, "robots")
	require.EqualValues(t, 503, r["status_code"])
	require.Equal(t, false, r["exists"])
	require.Equal(t, "unreachable", r["result"])
	s := sub(m, "sitemap")
	require.EqualValues(t, 0, s["status_code"])
	require.Equal(t, false, s["exists"])
	require.Nil(t, s["fetched_at"])
	require.Equal(t, "", s["url"])
	require.Equal(t, orchestrate.SitemapRobotsUnreachable, s["error"])
	ns := sub(m, "news_sitemap")
	require.Equal(t, false, ns["exists"])
	require.Equal(t, map[string]any{"requests": 0.0, "max_requests": 24.0, "elapsed_ms": 0.0, "sitemaps_read": 0.0,
		"cms": []any{}, "outcome": orchestrate.SearchRobotsUnreachable}, ns["search"])
	// RFC 9309: nothing but robots.txt is fetched while it is unreachable.
	require.Equal(t, 1, fx.web.Requests(host))
}

func TestCollectDeadDomain(t *testing.T) {
	t.Parallel()
	const host = "gone.example.sg"
	fx := setupCollector(t, simweb.Site{Host: host, Scenario: simweb.ScenarioNXDomain})
	res, err := fx.c.Collect(t.Context(), testPartition, "com:sg:gone.example.sg", host, rawKey, false)
	require.NoError(t, err)
	require.Equal(t, []string{domainKey(t, host, layout.FileDomainMetadata), domainKey(t, host, layout.FileDomainMetadataSuccess)}, res.Keys)
	m := fx.storedMetadata(t, host)
	r := sub(m, "robots")
	require.EqualValues(t, 0, r["status_code"])
	require.Equal(t, false, r["exists"])
	require.Equal(t, fetch.ReasonNXDomain, r["error"])
	require.Equal(t, "https://"+host+"/robots.txt", r["url"]) // no http retry for a name that does not resolve
	s := sub(m, "sitemap")
	require.EqualValues(t, 0, s["status_code"])
	require.Equal(t, false, s["exists"])
	require.EqualValues(t, 0, s["url_count"])
	require.True(t, fx.exists(t, domainKey(t, host, layout.FileDomainMetadataSuccess)))
	require.EqualValues(t, 1, fx.f.n.Load())
}

func TestCollectHTTPFallback(t *testing.T) {
	t.Parallel()
	const host = "plain.example.sg"
	fx := setupCollector(t, simweb.Site{Host: host, Scenario: simweb.ScenarioHTTPOnly})
	res, err := fx.c.Collect(t.Context(), testPartition, "com:sg:plain.example.sg", host, rawKey, false)
	require.NoError(t, err)
	r, s := res.Metadata.Robots, res.Metadata.Sitemap
	require.Equal(t, "http://"+host+"/robots.txt", r.URL)
	require.Equal(t, 200, r.StatusCode)
	require.True(t, r.Exists)
	require.True(t, strings.HasPrefix(s.URL, "http://"), s.URL)
	require.Equal(t, 20, s.URLCount)
}

func TestCollectRobotsRules(t *testing.T) {
	t.Parallel()
	const host = "strict.example.sg"
	tests := []struct {
		name       string
		robots     string
		sitemaps   []any
		candidates int
		url        string
		error      string
	}{
		{
			name:     "our group disallows the sitemap",
			robots:   "User-agent: *\nDisallow: /\n\nUser-agent: seedengine\nDisallow: /sitemap\nCrawl-delay: 1.5\n",
			sitemaps: []any{},
			url:      "https://" + host + "/sitemap.xml",
			error:    orchestrate.SitemapDisallowed,
		},
		{
			// The first is disallowed, the other host's is allowed (not
			// ours to judge) but does not resolve, and the default path
			// is the first again.
			name: "another host's sitemap is tried",
			robots: "User-agent: seedengine\nDisallow: /sitemap\nCrawl-delay: 1.5\n\n" +
				"Sitemap: /sitemap.xml\nSitemap: https://cdn.example.net/sm.xml\n",
			sitemaps:   []any{"https://" + host + "/sitemap.xml", "https://cdn.example.net/sm.xml"},
			candidates: 1,
			url:        "https://cdn.example.net/sm.xml",
			error:      fetch.ReasonNXDomain,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			// Two search requests (robots.txt and the home page): the
			// Crawl-delay of 1.5 s makes every other one slow.
			fx := setupCollectorConfig(t, orchestrate.CollectorConfig{MaxSearchRequests: 2}, simweb.Site{Host: host, Robots: &tt.robots})
			res, err := fx.c.Collect(t.Context(), testPartition, "com:sg:strict.example.sg", host, rawKey, false)
			require.NoError(t, err)
			r := sub(fx.storedMetadata(t, host), "robots")
			require.EqualValues(t, 1.5, r["crawl_delay"])
			require.Equal(t, tt.sitemaps, r["sitemap_urls"])
			s := res.Metadata.Sitemap
			require.Equal(t, tt.candidates, s.Candidates)
			require.Equal(t, tt.url, s.URL)
			require.Equal(t, tt.error, s.Error)
			require.False(t, s.Exists)
			// The sitemap step fetched nothing from the host; the search
			// (robots.txt and the home page, which our group allows) did.
			require.Equal(t, 2, res.Metadata.NewsSitemap.Search.Requests)
			require.Equal(t, 2, fx.web.Requests(host))
		})
	}
}

func TestCollectNotASitemap(t *testing.T) {
	t.Parallel()
	const host = "soft404.example.sg"
	fx := setupCollector(t, simweb.Site{Host: host, Layout: simweb.LayoutStatic, Pages: map[string]simweb.Page{
		"/sitemap.xml": {Body: []byte("<!DOCTYPE html><html><body>Not here</body></html>")},
	}})
	res, err := fx.c.Collect(t.Context(), testPartition, "com:sg:soft404.example.sg", host, rawKey, false)
	require.NoError(t, err)
	s := res.Metadata.Sitemap
	require.Equal(t, 200, s.StatusCode)
	require.False(t, s.Exists)
	require.Equal(t, orchestrate.SitemapNotASitemap, s.Error)
	require.Empty(t, s.Type)
	// What was served is still the evidence.
	require.Contains(t, string(fx.get(t, domainKey(t, host, layout.FileSitemap))), "Not here")
}

func TestCollectLargeSitemapStreamed(t *testing.T) {
	t.Parallel()
	const host = "big.example.sg"
	var b strings.Builder
	b.WriteString(`<?xml version="1.0"?>` + "\n" + `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">` + "\n")
	for i := range 60_000 {
		b.WriteString("<url><loc>https://" + host + "/articles/" + itoa(i) + "</loc><lastmod>2026-01-01</lastmod></url>\n")
	}
	b.WriteString("</urlset>\n<!-- after the root: not parsed, still evidence -->\n")
	body := []byte(b.String())
	fx := setupCollector(t, simweb.Site{Host: host, Layout: simweb.LayoutStatic, Pages: map[string]simweb.Page{
		"/sitemap.xml": {ContentType: "application/xml", Body: body},
	}})
	res, err := fx.c.Collect(t.Context(), testPartition, "com:sg:big.example.sg", host, rawKey, false)
	require.NoError(t, err)
	s := res.Metadata.Sitemap
	require.Equal(t, sitemap.DefaultMaxEntries, s.URLCount)
	require.True(t, s.Truncated)
	require.EqualValues(t, len(body), s.ContentLength)
	require.Equal(t, body, fx.get(t, domainKey(t, host, layout.FileSitemap)))
}

func TestCollectCheckpoint(t *testing.T) {
	t.Parallel()
	const host = "again.example.sg"
	fx := setupCollector(t, simweb.Site{Host: host})
	ctx := t.Context()
	checkpoint := domainKey(t, host, layout.FileDomainMetadataSuccess)

	t.Run("present: skipped without a fetch", func(t *testing.T) {
		_, err := fx.store.Put(ctx, checkpoint, strings.NewReader("{}"), "application/json")
		require.NoError(t, err)
		res, err := fx.c.Collect(ctx, testPartition, "com:sg:again.example.sg", host, rawKey, false)
		require.NoError(t, err)
		require.Equal(t, orchestrate.CollectResult{Skipped: true}, res)
		require.EqualValues(t, 0, fx.f.n.Load())
		require.Equal(t, 0, fx.web.Requests(host))
		require.False(t, fx.exists(t, domainKey(t, host, layout.FileDomainMetadata)))
	})
	t.Run("forced: collected again", func(t *testing.T) {
		res, err := fx.c.Collect(ctx, testPartition, "com:sg:again.example.sg", host, rawKey, true)
		require.NoError(t, err)
		require.False(t, res.Skipped)
		require.Positive(t, fx.f.n.Load())
		require.True(t, fx.exists(t, domainKey(t, host, layout.FileDomainMetadata)))
		n := fx.f.n.Load()
		res, err = fx.c.Collect(ctx, testPartition, "com:sg:again.example.sg", host, rawKey, true)
		require.NoError(t, err)
		require.False(t, res.Skipped)
		require.Greater(t, fx.f.n.Load(), n)
	})
}

func TestCollectStoreFailure(t *testing.T) {
	t.Parallel()
	for _, file := range []string{layout.FileRobots, layout.FileSitemap, layout.FileDomainMetadata, layout.FileDomainMetadataSuccess} {
		t.Run(file, func(t *testing.T) {
			t.Parallel()
			const host = "wp.example.sg"
			fx := setupCollector(t, simweb.Site{Host: host})
			fs := &failingStore{Store: fx.store, failSuffix: "/" + file}
			c := orchestrate.NewCollector(fx.f, fs, orchestrate.CollectorConfig{}, nil)
			_, err := c.Collect(t.Context(), testPartition, "com:sg:example.sg", host, rawKey, false)
			require.ErrorIs(t, err, errStoreDown)
			require.False(t, fx.exists(t, domainKey(t, host, layout.FileDomainMetadataSuccess)))
		})
	}
	t.Run("exists", func(t *testing.T) {
		t.Parallel()
		fx := setupCollector(t)
		require.NoError(t, fx.store.Close())
		_, err := fx.c.Collect(t.Context(), testPartition, "com:sg:example.sg", "example.sg", rawKey, false)
		require.Error(t, err)
		require.EqualValues(t, 0, fx.f.n.Load())
	})
}

func TestCollectCanceled(t *testing.T) {
	t.Parallel()
	const host = "slow.example.sg"
	fx := setupCollector(t, simweb.Site{Host: host, Scenario: simweb.ScenarioSlow, Delay: 3 * time.Second})
	ctx, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
	defer cancel()
	_, err := fx.c.Collect(ctx, testPartition, "com:sg:example.sg", host, rawKey, false)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	require.False(t, fx.exists(t, domainKey(t, host, layout.FileDomainMetadata)))
	require.False(t, fx.exists(t, domainKey(t, host, layout.FileDomainMetadataSuccess)))
}

func TestCollectDeadline(t *testing.T) {
	t.Parallel()
	const host = "slow.example.sg"
	_, client := simwebtest.Client(t, []simweb.Site{{Host: host, Scenario: simweb.ScenarioSlow, Delay: 3 * time.Second}}, 5*time.Second)
	store, err := blobstore.Open(t.Context(), "mem://")
	require.NoError(t, err)
	c := orchestrate.NewCollector(client, store, orchestrate.CollectorConfig{Deadline: 200 * time.Millisecond}, nil)
	res, err := c.Collect(t.Context(), testPartition, "com:sg:example.sg", host, rawKey, false)
	require.NoError(t, err)
	require.Equal(t, 0, res.Metadata.Robots.StatusCode)
	require.Equal(t, fetch.ReasonCanceled, res.Metadata.Robots.Error)
	ok, err := store.Exists(t.Context(), domainKey(t, host, layout.FileDomainMetadataSuccess))
	require.NoError(t, err)
	require.True(t, ok)
}

func TestCollectInvalidInput(t *testing.T) {
	t.Parallel()
	fx := setupCollector(t)
	for _, tc := range []struct {
		p      seedengine.Partition
		domain string
	}{
		{testPartition, "../etc"},
		{testPartition, "[2001:db8::1]"},
		{testPartition, ""},
		{seedengine.Partition{Country: "sg", Category: "News", Date: "2026-01-28"}, "example.sg"},
	} {
		_, err := fx.c.Collect(t.Context(), tc.p, "com:sg:x.sg", tc.domain, rawKey, false)
		require.Equal(t, seedengine.EINVALID, seedengine.ErrorCode(err), "%+v", tc)
	}
	require.EqualValues(t, 0, fx.f.n.Load())
}

// TestCollectSitemapRedirectHeldToRobots: an allowed sitemap URL that
// redirects into a disallowed path is not followed there.
func TestCollectSitemapRedirectHeldToRobots(t *testing.T) {
	t.Parallel()
	const host = "redirecting.example.sg"
	robotsTxt := "User-agent: *\nDisallow: /private/\n"
	fx := setupCollector(t, simweb.Site{Host: host, Layout: simweb.LayoutStatic, Robots: &robotsTxt, Pages: map[string]simweb.Page{
		"/sitemap.xml":         {Status: 301, Header: http.Header{"Location": {"/private/sitemap.xml"}}},
		"/private/sitemap.xml": {ContentType: "application/xml", Body: []byte(`<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>https://redirecting.example.sg/a</loc></url></urlset>`)},
	}})
	res, err := fx.c.Collect(t.Context(), testPartition, "com:sg:"+host, host, rawKey, false)
	require.NoError(t, err)
	s := res.Metadata.Sitemap
	require.False(t, s.Exists)
	require.Equal(t, orchestrate.SitemapDisallowed, s.Error)
	require.Zero(t, s.URLCount)
	require.False(t, fx.exists(t, domainKey(t, host, layout.FileSitemap)), "nothing fetched from the disallowed path")
}

// TestCollectRemovesStaleEvidence: evidence an earlier collection stored
// (a sitemap since removed) does not survive a forced rerun that found
// none, so a domain directory describes one collection.
func TestCollectRemovesStaleEvidence(t *testing.T) {
	t.Parallel()
	const host = "nositemap.example.sg"
	fx := setupCollector(t, simweb.Site{Host: host, Layout: simweb.LayoutStatic})
	stale := domainKey(t, host, layout.FileSitemap)
	_, err := fx.store.Put(t.Context(), stale, strings.NewReader("<urlset/>"), "application/xml")
	require.NoError(t, err)
	res, err := fx.c.Collect(t.Context(), testPartition, "com:sg:"+host, host, rawKey, true)
	require.NoError(t, err)
	require.False(t, res.Metadata.Sitemap.Exists)
	require.False(t, fx.exists(t, stale))
	require.True(t, fx.exists(t, domainKey(t, host, layout.FileRobots)), "what was fetched stays")
}
