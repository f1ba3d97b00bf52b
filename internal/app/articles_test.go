package app_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"
	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/harvest"
	"github.com/seedengine/seedengine/internal/layout"
	"github.com/seedengine/seedengine/internal/pages"
	"github.com/seedengine/seedengine/internal/seedcheck"
	"github.com/seedengine/seedengine/internal/simweb"
	"github.com/seedengine/seedengine/internal/simweb/simwebtest"
	"github.com/seedengine/seedengine/internal/sqlstore"
	"github.com/seedengine/seedengine/internal/sqlstore/sqlstoretest"
)

// Every stored page becomes an article, through the queue: on a simulated
// web of newsroom pages (navigation, related stories and footer around
// the story; JSON-LD and OpenGraph about it; pages served gzipped and
// chunked as nginx serves them), with a wire story on every publisher,
// video pages and the same page under two URLs. Each item's article has
// the page's headline, byline, time (with the publisher's zone) and
// text, none of the boilerplate; a video page is recorded as no article,
// with its reason; the copies of a text are grouped under the first;
// the search finds what it should and nothing else; the files hold every
// article once, and the Parquet file of a day that is over holds them
// all. Both engines.
func TestArticlesFromPages(t *testing.T) {
	sqlstoretest.Engines(t, func(t *testing.T, db *sqlstore.DB) {
		clock := &simweb.Clock{Start: time.Now().Add(time.Hour), Epoch: time.Date(2026, 11, 27, 6, 0, 0, 0, time.UTC), Speed: 240}
		cases := simweb.ArticleCases{Text: true, SyndicateEvery: 5, VideoEvery: 9, DuplicateEvery: 10, Wire: true}
		var pubs []*simweb.Publisher
		var sites []simweb.Site
		byHost := map[string]*simweb.Publisher{}
		for i, perDay := range []float64{2000, 1500, 1000} {
			p := &simweb.Publisher{Host: fmt.Sprintf("news%d-daily.com.sg", i), PerDay: perDay, Clock: clock, Pages: true, Articles: cases,
				Publications: []simweb.Publication{{Path: "/feed", Format: simweb.PubRSS, Window: 30}}}
			pubs = append(pubs, p)
			byHost[p.Host] = p
			sites = append(sites, p.Site())
		}
		_, client := simwebtest.Client(t, sites, 5*time.Second)
		s := newStack(t, db, withQueue(), withHarvest(harvestOpts{fetch: client, interval: 200 * time.Millisecond,
			checks: seedcheck.Config{Pace: harvest.PaceConfig{Min: 300 * time.Millisecond, Max: time.Minute, Lag: 100 * time.Millisecond, First: time.Second}}}),
			withPages(pages.Config{Dir: t.TempDir(), Process: "test", MaxFileBytes: 256 << 10, MaxFileAge: time.Hour}))
		for _, p := range pubs {
			r := s.post(t, "/api/v1/seeds", map[string]any{"domain_id": "media:sg:" + p.Host, "category": "news",
				"harvest": map[string]any{"pages": true}, "fetch": map[string]any{"type": "rss", "entry_url": "https://" + p.Host + "/feed"}})
			require.Equal(t, http.StatusCreated, r.StatusCode, string(r.Body))
			r = s.post(t, "/api/v1/seeds/promote", map[string]any{"seedId": "media:sg:" + p.Host + "::news"})
			require.Equal(t, http.StatusOK, r.StatusCode, string(r.Body))
		}
		clock.StartNow()
		time.Sleep(8 * time.Second)
		clock.Stop()
		readOnceMore(t, s, pubs)
		settlePagesRunning(t, s)
		// Every stored page read as an article, then the queue stops.
		require.Eventually(t, func() bool {
			st, err := s.app.Articles.ArticleStats(t.Context())
			require.NoError(t, err)
			return st.Pending == 0
		}, 2*time.Minute, 100*time.Millisecond, "every stored page extracted")
		require.NoError(t, s.queue.Stop(t.Context()))

		items, _ := followItems(t, s, 0)
		require.Greater(t, len(items), 40)
		type got struct {
			item    seedengine.Item
			article seedengine.Article
			n       int
			pub     *simweb.Publisher
		}
		var all []got
		notArticles := 0
		for _, it := range items {
			var a seedengine.Article
			r := s.get(t, "/api/v1/items/"+strconv.FormatInt(it.ID, 10)+"/article", &a)
			if r.StatusCode != http.StatusOK {
				pr := s.do(t, request{Path: "/api/v1/items/" + strconv.FormatInt(it.ID, 10) + "/page"})
				st, _ := s.app.Articles.ArticleStats(t.Context())
				ps, _ := s.app.Pages.PageStats(t.Context())
				t.Logf("page: %s; stats %+v %+v", pr.Body, st, ps)
			}
			require.Equal(t, http.StatusOK, r.StatusCode, string(r.Body))
			n := articleNumber(t, it.URL)
			pub := byHost[strings.TrimPrefix(it.DomainID, "media:sg:")]
			require.Equal(t, it.ID, a.ItemID)
			require.Equal(t, it.SeedID, a.SeedID)
			require.Equal(t, it.Partition(), a.Partition())
			all = append(all, got{it, a, n, pub})
			if cases.Video(n - btoi(cases.Duplicate(n))) {
				require.Equal(t, "not_article_type", a.NotArticle, "article %d is a video page", n)
				notArticles++
				continue
			}
			orig := n - btoi(cases.Duplicate(n))
			require.Empty(t, a.NotArticle, "article %d", n)
			require.Equal(t, pub.Headline(orig), a.Title)
			require.Equal(t, []string{pub.Author(orig)}, a.Authors)
			require.NotNil(t, a.PublishedAt)
			require.True(t, pub.PublishedAt(orig).Truncate(time.Second).Equal(*a.PublishedAt), "article %d: %v", n, a.PublishedAt)
			_, offset := a.PublishedAt.Zone()
			require.Equal(t, 8*3600, offset, "the publisher's own zone")
			require.Equal(t, "json_ld", a.Methods["published_at"])
			require.Equal(t, "en", a.Language)
			require.Equal(t, pub.ArticleURL(orig), a.CanonicalURL)
			require.Equal(t, strings.Join(pub.StoryParagraphs(orig), "\n\n"), a.Text, "article %d: the story, nothing else", n)
			require.Equal(t, len(strings.Fields(a.Text)), a.WordCount)
		}
		require.Positive(t, notArticles)
		for _, g := range all {
			if g.article.NotArticle == "" && g.article.DuplicateOf != 0 {
				b, err := json.MarshalIndent(g.article, "", "  ")
				require.NoError(t, err)
				t.Logf("a copy's article, as GET /api/v1/items/%d/article gives it:\n%s", g.item.ID, b)
				break
			}
		}

		// Copies: the same text (a wire story on every publisher, a page
		// under two URLs) is one group, under its first article.
		groups := map[string][]seedengine.Article{}
		for _, g := range all {
			if g.article.NotArticle != "" {
				require.Zero(t, g.article.DuplicateOf)
				continue
			}
			key := g.pub.Host + "/" + strconv.Itoa(g.n-btoi(cases.Duplicate(g.n)))
			if story, ok := cases.Syndicated(g.n - btoi(cases.Duplicate(g.n))); ok {
				key = "wire/" + strconv.Itoa(story)
			}
			groups[key] = append(groups[key], g.article)
		}
		copies := 0
		for key, arts := range groups {
			slices.SortFunc(arts, func(a, b seedengine.Article) int { return int(a.ID - b.ID) })
			require.Zero(t, arts[0].DuplicateOf, "%s: the first of its text is no copy", key)
			for _, a := range arts[1:] {
				require.Equal(t, arts[0].ID, a.DuplicateOf, "%s: a copy points at the first", key)
				copies++
			}
		}
		require.Positive(t, copies)
		t.Logf("%d items: %d articles (%d copies), %d not articles", len(items), len(all)-notArticles, copies, notArticles)

		// Search: a phrase of one story finds it (and its copies), a word
		// excluded takes it away, a bad query names q.
		target := all[0]
		for _, g := range all {
			if g.article.NotArticle == "" && g.article.DuplicateOf == 0 {
				if _, wire := cases.Syndicated(g.n); !wire && !cases.Duplicate(g.n) && !cases.Duplicate(g.n+1) {
					target = g
					break
				}
			}
		}
		words := strings.Fields(strings.Trim(target.article.Text, "."))
		phrase := strings.Join(words[3:9], " ")
		var found struct {
			Articles  []seedengine.Article `json:"articles"`
			NextSince int64                `json:"next_since"`
		}
		r := s.get(t, "/api/v1/articles?q="+url.QueryEscape(`"`+phrase+`"`), &found)
		require.Equal(t, http.StatusOK, r.StatusCode, string(r.Body))
		ids := []int64{}
		for _, a := range found.Articles {
			ids = append(ids, a.ID)
			require.Contains(t, strings.ToLower(a.Text), strings.ToLower(strings.Trim(phrase, ".,")))
		}
		require.Contains(t, ids, target.article.ID, "the phrase %q finds its story", phrase)
		r = s.get(t, "/api/v1/articles?q="+url.QueryEscape(`"`+phrase+`" -`+strings.Trim(words[10], ".,")), &found)
		require.Equal(t, http.StatusOK, r.StatusCode, string(r.Body))
		for _, a := range found.Articles {
			require.NotEqual(t, target.article.ID, a.ID, "a word of the story excluded")
		}
		for _, q := range []string{"-alone", `""`, strings.Repeat("x", 501)} {
			r = s.do(t, request{Path: "/api/v1/articles?q=" + url.QueryEscape(q)})
			require.Equal(t, http.StatusUnprocessableEntity, r.StatusCode, q)
			require.Contains(t, string(r.Body), "q", q)
		}
		// Filters and the cursor: every article once.
		var listed []seedengine.Article
		for since := int64(0); ; {
			r = s.get(t, fmt.Sprintf("/api/v1/articles?country=sg&language=en&limit=7&since=%d", since), &found)
			require.Equal(t, http.StatusOK, r.StatusCode, string(r.Body))
			if len(found.Articles) == 0 {
				break
			}
			listed = append(listed, found.Articles...)
			since = found.NextSince
		}
		require.Equal(t, len(items)-notArticles, len(listed), "the articles, not the video pages")
		seen := map[int64]bool{}
		for _, a := range listed {
			require.False(t, seen[a.ID], "each once")
			seen[a.ID] = true
			require.Equal(t, "en", a.Language)
		}
		r = s.get(t, "/api/v1/articles?limit=200", &found)
		require.Equal(t, http.StatusOK, r.StatusCode)
		for _, a := range found.Articles {
			require.Empty(t, a.NotArticle)
		}
		// The export: gzip NDJSON, every article.
		exp := s.do(t, request{Path: "/api/v1/articles/export?not_articles=true", Header: http.Header{"Accept-Encoding": {"gzip"}}})
		require.Equal(t, http.StatusOK, exp.StatusCode)
		require.Equal(t, "gzip", exp.Header.Get("Content-Encoding"))
		lines := strings.Split(strings.TrimSpace(string(gunzip(t, exp.Body))), "\n")
		require.Equal(t, len(items), len(lines), "the export with not_articles=true: every page")

		// The files: every article (and every page that is none) once.
		n, err := s.app.ArticleFiles.Flush(t.Context(), true)
		require.NoError(t, err)
		require.Positive(t, n)
		date := items[0].Partition().Date
		p := seedengine.Partition{Country: "sg", Category: "news", Date: date}
		var inFiles []int64
		for f := 1; ; f++ {
			key, err := layout.ArticleFileKey(p, f)
			require.NoError(t, err)
			rc, _, err := s.blobs.NewReader(t.Context(), key)
			if seedengine.ErrorCode(err) == seedengine.ENOTFOUND {
				break
			}
			require.NoError(t, err)
			sc := bufio.NewScanner(rc)
			sc.Buffer(nil, 16<<20)
			for sc.Scan() {
				var a seedengine.Article
				require.NoError(t, json.Unmarshal(sc.Bytes(), &a))
				inFiles = append(inFiles, a.ItemID)
			}
			require.NoError(t, sc.Err())
			rc.Close()
		}
		require.Equal(t, len(items), len(inFiles))
		require.Equal(t, len(items), len(slices.Compact(slices.Sorted(slices.Values(inFiles)))), "each once")

		// The Parquet file, once the day is over.
		s.app.ArticleParquet.SetClock(func() time.Time { return time.Now().Add(48 * time.Hour) })
		n, err = s.app.ArticleParquet.Compact(t.Context())
		require.NoError(t, err)
		require.Equal(t, 1, n)
		key, err := layout.ArticleParquetKey(p)
		require.NoError(t, err)
		rc, size, err := s.blobs.NewReader(t.Context(), key)
		require.NoError(t, err)
		body, err := io.ReadAll(rc)
		rc.Close()
		require.NoError(t, err)
		f, err := parquet.OpenFile(bytes.NewReader(body), size)
		require.NoError(t, err)
		require.EqualValues(t, len(items), f.NumRows())
		n, err = s.app.ArticleParquet.Compact(t.Context())
		require.NoError(t, err)
		require.Zero(t, n, "written once")

		// The snapshot and the metrics count them.
		snap, err := s.app.Metadata.Snapshot(t.Context())
		require.NoError(t, err)
		require.Equal(t, len(items)-notArticles, snap.Totals.Articles)
		require.Equal(t, len(items)-notArticles, snap.Countries["sg"]["news"][date].Articles)
		m := s.do(t, request{Path: "/metrics"})
		require.Contains(t, string(m.Body), fmt.Sprintf(`seedengine_articles_total{result="not_article"} %d`, notArticles))
		require.Contains(t, string(m.Body), "seedengine_articles_pending 0")
	})
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
