package app_test

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"
	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/httpapi/httpapitest"
	"github.com/seedengine/seedengine/internal/layout"
	"github.com/seedengine/seedengine/internal/sqlstore"
	"github.com/seedengine/seedengine/internal/sqlstore/sqlstoretest"
	"github.com/seedengine/seedengine/internal/warc"
)

// partitionFiles is what storedPartition put in the stores: a
// partition whose items' pages are in two stored WARC files and have
// their articles, none in a file yet.
type partitionFiles struct {
	p     seedengine.Partition
	base  string                // /api/v1/…/{country}/{category}/{date} without the resource
	warcs []seedengine.WARCFile // as stored, with their bytes in the object store
	items []seedengine.Item
}

// pageBody is the page stored for item it: one a browser would run, so
// its bytes must only ever be saved.
func pageBody(it seedengine.Item) string {
	return fmt.Sprintf(`<html><script>fetch("/api/v1/keys")</script><h1>%s</h1></html>`, it.Title)
}

// storedPartition harvests n items of an active seed that keeps pages
// (recorded as a seed check would), stores their pages in two WARC files
// (real WARC/1.1, gzip per record) and records an article for each, the
// last one a page that is not an article.
func storedPartition(t *testing.T, s *stack, n int) partitionFiles {
	t.Helper()
	ctx := t.Context()
	const host = "files-daily.com.sg"
	seedID := "media:sg:" + host + "::news"
	r := s.post(t, "/api/v1/seeds", map[string]any{"domain_id": "media:sg:" + host, "category": "news",
		"harvest": map[string]any{"pages": true}, "fetch": map[string]any{"type": "rss", "entry_url": "https://" + host + "/feed"}})
	require.Equal(t, http.StatusCreated, r.StatusCode, string(r.Body))
	r = s.post(t, "/api/v1/seeds/promote", map[string]any{"seedId": seedID})
	require.Equal(t, http.StatusOK, r.StatusCode, string(r.Body))

	at := time.Now().UTC().Truncate(time.Second)
	var its []seedengine.Item
	for i := range n {
		u := fmt.Sprintf("https://%s/news/story-%d", host, i)
		its = append(its, seedengine.Item{URL: u, NormalizedURL: u, Title: fmt.Sprintf("Story %d", i), SeedID: seedID,
			DomainID: "media:sg:" + host, Country: "sg", Category: "news", FirstSeenAt: at,
			Source: seedengine.ItemSource{EntryURL: "https://" + host + "/feed", FetchType: seedengine.FetchRSS}})
	}
	check := seedengine.SeedCheck{SeedID: seedID, CheckedAt: at, Outcome: seedengine.CheckOK, Status: 200, Items: n}
	_, _, err := s.seeds.RecordSeedCheck(ctx, &check, its, false, func(*seedengine.SeedCheck, seedengine.ArrivalHistory) (seedengine.SeedHealth, time.Time) {
		return seedengine.SeedHealth{State: seedengine.HealthHealthy, LastCheckAt: &at}, at.Add(time.Hour)
	}, nil)
	require.NoError(t, err)
	items, err := s.items.FindItems(ctx, seedengine.ItemFilter{SeedID: seedID, Limit: n + 1})
	require.NoError(t, err)
	require.Len(t, items, n)

	pf := partitionFiles{p: items[0].Partition(), items: items}
	// The first file holds the first half of the pages, the second the rest.
	for f, part := range [][]seedengine.Item{items[:n/2], items[n/2:]} {
		spool := "spool-" + strconv.Itoa(f)
		name := fmt.Sprintf("seedengine-test-%s-%05d.warc.gz", at.Format("20060102T150405Z"), f+1)
		var buf bytes.Buffer
		ww, err := warc.NewWriter(&buf, name, map[string]string{"software": "seedengine test"})
		require.NoError(t, err)
		for _, it := range part {
			page, err := s.app.Pages.FindPage(ctx, it.ID)
			require.NoError(t, err)
			body := pageBody(it)
			resp := fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
			rec, err := ww.Write(warc.Capture{TargetURI: it.URL, Date: at, Response: []byte(resp)}, nil)
			require.NoError(t, err)
			page.Spool, page.SpoolOffset, page.SpoolLength, page.Status, page.MIME, page.FetchedAt = spool, rec.Offset, rec.Length, 200, "text/html", &at
			ok, err := s.app.Pages.MarkPageFetched(ctx, page)
			require.NoError(t, err)
			require.True(t, ok)
		}
		key, err := layout.WARCFileKey(pf.p, name)
		require.NoError(t, err)
		wf := seedengine.WARCFile{Partition: pf.p, Name: name, Key: key, IndexKey: layout.WARCIndexKey(key), Records: len(part),
			Bytes: int64(buf.Len()), StoredAt: at.Add(time.Duration(f) * time.Minute)}
		_, err = s.blobs.Put(ctx, key, bytes.NewReader(buf.Bytes()), "application/warc")
		require.NoError(t, err)
		stored, err := s.app.Pages.StoreWARCFile(ctx, wf, spool, nil)
		require.NoError(t, err)
		require.Equal(t, len(part), stored)
		pf.warcs = append(pf.warcs, wf)
	}

	for i, it := range items {
		a := seedengine.Article{ItemID: it.ID, SeedID: it.SeedID, Country: pf.p.Country, Category: pf.p.Category, Date: pf.p.Date,
			ExtractedAt: at, ArticleFields: seedengine.ArticleFields{URL: it.URL, Title: it.Title, Language: "en",
				Text: "The story of " + it.Title + ".", WordCount: 4, Methods: map[string]string{"title": "opengraph"}}}
		if i == n-1 {
			a.ArticleFields = seedengine.ArticleFields{URL: it.URL, NotArticle: "not_article_type", Methods: map[string]string{}}
		}
		recorded, err := s.app.Articles.RecordArticle(ctx, &a, seedengine.CopyKey{})
		require.NoError(t, err)
		require.True(t, recorded)
	}
	pf.base = pf.p.Country + "/" + pf.p.Category + "/" + pf.p.Date
	return pf
}

// object reads an object as the store holds it.
func (s *stack) object(t *testing.T, key string) []byte {
	t.Helper()
	rc, _, err := s.blobs.NewReader(t.Context(), key)
	require.NoError(t, err)
	defer func() { _ = rc.Close() }()
	b, err := io.ReadAll(rc)
	require.NoError(t, err)
	return b
}

// requireFileNotFound checks a 404 problem that names the file parameter.
func requireFileNotFound(t *testing.T, r response, what string) {
	t.Helper()
	p := r.Problem(t, http.StatusNotFound, seedengine.ENOTFOUND)
	require.Equal(t, []string{"path.file"}, httpapitest.Locations(p), "%s: %s", what, r.Body)
}

// A partition's article files through the API: listed as the flusher
// fixes and writes them (a file being written listed, not served), each
// JSON Lines file and the Parquet file downloaded exactly as stored, a
// file it does not have a 404 naming file, a bad partition a 422 naming
// its field. Both engines.
func TestArticleFileRoutes(t *testing.T) {
	t.Parallel()
	sqlstoretest.Engines(t, func(t *testing.T, db *sqlstore.DB) {
		s := newStack(t, db)
		pf := storedPartition(t, s, 5)
		ctx := t.Context()
		type fileList struct {
			seedengine.Partition
			Items []seedengine.ArticleFile `json:"items"`
		}
		list := func() fileList {
			t.Helper()
			var l fileList
			r := s.get(t, "/api/v1/articles/"+pf.base, &l)
			require.Equal(t, http.StatusOK, r.StatusCode, string(r.Body))
			require.Equal(t, pf.p, l.Partition)
			return l
		}
		require.Empty(t, list().Items, "no article in a file yet")
		requireFileNotFound(t, s.do(t, request{Path: "/api/v1/articles/" + pf.base + "/articles_0001.jsonl"}), "before any file")

		// A file whose articles are fixed but whose object is not written
		// (a flush cut short) is listed, and not served.
		fixed, err := s.app.Articles.Files().AllocateFile(ctx, pf.p, 3)
		require.NoError(t, err)
		require.NotNil(t, fixed)
		l := list()
		require.Len(t, l.Items, 1)
		first := l.Items[0]
		key1, err := layout.ArticleFileKey(pf.p, 1)
		require.NoError(t, err)
		require.Equal(t, seedengine.ArticleFile{Partition: pf.p, Name: "articles_0001.jsonl", Key: key1, Format: "jsonl", File: 1,
			Articles: 3, FirstID: fixed.FirstID, LastID: fixed.LastID}, first)
		requireFileNotFound(t, s.do(t, request{Path: "/api/v1/articles/" + pf.base + "/articles_0001.jsonl"}), "a file being written")

		// The flush writes it, then the rest as file 2.
		n, err := s.app.ArticleFiles.Flush(ctx, true)
		require.NoError(t, err)
		require.Equal(t, 2, n)
		l = list()
		require.Len(t, l.Items, 2)
		total := 0
		for i, f := range l.Items {
			key, err := layout.ArticleFileKey(pf.p, i+1)
			require.NoError(t, err)
			require.Equal(t, key, f.Key)
			require.Equal(t, fmt.Sprintf("articles_%04d.jsonl", i+1), f.Name)
			require.Equal(t, seedengine.ArticleFileJSONL, f.Format)
			require.True(t, f.Written)
			require.NotNil(t, f.WrittenAt)
			stored := s.object(t, key)
			require.EqualValues(t, len(stored), f.Bytes)
			require.Equal(t, f.Articles, bytes.Count(stored, []byte("\n")))
			total += f.Articles
			// By its name, without .jsonl, by its number: the stored bytes.
			for _, name := range []string{f.Name, fmt.Sprintf("articles_%04d", i+1), strconv.Itoa(i + 1)} {
				r := s.do(t, request{Path: "/api/v1/articles/" + pf.base + "/" + name})
				require.Equal(t, http.StatusOK, r.StatusCode, "%s: %s", name, r.Body)
				require.Equal(t, stored, r.Body, name)
				require.Equal(t, "application/x-ndjson", r.Header.Get("Content-Type"))
				require.Equal(t, strconv.Itoa(len(stored)), r.Header.Get("Content-Length"))
				require.Equal(t, f.WrittenAt.UTC().Format(http.TimeFormat), r.Header.Get("Last-Modified"))
				require.Empty(t, r.Header.Get("Content-Encoding"))
			}
		}
		require.Equal(t, 5, total, "every article once, the page that is not one too")
		require.Equal(t, 3, l.Items[0].Articles)

		// No Parquet file before the day is over; then one, served as stored.
		for _, name := range []string{"articles.parquet", "articles_0003.jsonl", "articles_0001.parquet", "raw_0001", "0"} {
			requireFileNotFound(t, s.do(t, request{Path: "/api/v1/articles/" + pf.base + "/" + name}), name)
		}
		s.app.ArticleParquet.SetClock(func() time.Time { return time.Now().Add(48 * time.Hour) })
		n, err = s.app.ArticleParquet.Compact(ctx)
		require.NoError(t, err)
		require.Equal(t, 1, n)
		l = list()
		require.Len(t, l.Items, 3)
		pq := l.Items[2]
		pqKey, err := layout.ArticleParquetKey(pf.p)
		require.NoError(t, err)
		stored := s.object(t, pqKey)
		require.Equal(t, seedengine.ArticleFile{Partition: pf.p, Name: "articles.parquet", Key: pqKey, Format: "parquet",
			Articles: 5, Bytes: int64(len(stored)), Written: true}, pq)
		r := s.do(t, request{Path: "/api/v1/articles/" + pf.base + "/articles.parquet"})
		require.Equal(t, http.StatusOK, r.StatusCode, string(r.Body))
		require.Equal(t, stored, r.Body)
		require.Equal(t, "application/vnd.apache.parquet", r.Header.Get("Content-Type"))
		require.Equal(t, strconv.Itoa(len(stored)), r.Header.Get("Content-Length"))
		require.Equal(t, "attachment; filename="+pf.p.Country+"-"+pf.p.Category+"-"+pf.p.Date+"-articles.parquet", r.Header.Get("Content-Disposition"))
		require.NotEmpty(t, r.Header.Get("Last-Modified"), "the object's time")
		require.Equal(t, "nosniff", r.Header.Get("X-Content-Type-Options"))
		f, err := parquet.OpenFile(bytes.NewReader(r.Body), int64(len(r.Body)))
		require.NoError(t, err)
		require.EqualValues(t, 5, f.NumRows())
		h := s.do(t, request{Method: http.MethodHead, Path: "/api/v1/articles/" + pf.base + "/articles.parquet"})
		require.Equal(t, http.StatusOK, h.StatusCode)
		require.Equal(t, strconv.Itoa(len(stored)), h.Header.Get("Content-Length"))
		require.Empty(t, h.Body)

		// Another partition has none; a bad one is named.
		var other fileList
		r = s.get(t, "/api/v1/articles/SG/news/2001-01-01", &other)
		require.Equal(t, http.StatusOK, r.StatusCode, string(r.Body))
		require.Equal(t, seedengine.Partition{Country: "sg", Category: "news", Date: "2001-01-01"}, other.Partition)
		require.Empty(t, other.Items)
		requireFileNotFound(t, s.do(t, request{Path: "/api/v1/articles/sg/news/2001-01-01/articles.parquet"}), "another day")
		requirePartitionFieldsNamed(t, s, "/api/v1/articles/", "", "/articles_0001.jsonl")
	})
}

// requirePartitionFieldsNamed checks that a bad country, category or
// date in a partition route's path is a 422 naming it, on the list
// (prefix + partition + list) and on a file (… + file).
func requirePartitionFieldsNamed(t *testing.T, s *stack, prefix, list, file string) {
	t.Helper()
	for part, field := range map[string]string{
		"zz/news/2026-11-27":       "path.country",
		"s!/news/2026-11-27":       "path.country",
		"sg/Bad!/2026-11-27":       "path.category",
		"sg/news/2026-02-30":       "path.date",
		"sg/news/tomorrow":         "path.date",
		"sg/news/2026-11-27T00:00": "path.date",
	} {
		for _, path := range []string{prefix + part + list, prefix + part + file} {
			p := s.do(t, request{Path: path}).Problem(t, http.StatusUnprocessableEntity, seedengine.EINVALID)
			require.Equal(t, []string{field}, httpapitest.Locations(p), path)
		}
	}
}

// A partition's WARC files through the API: each downloaded exactly as
// stored, the .warc.gz bytes with no Content-Encoding (a client that
// decodes gzip on its own gets the same), an attachment under its name
// with the API's policy for outside bytes; a file it does not have a
// 404 naming file. The item file route's 404 names file too. Both
// engines.
func TestWARCFileRoute(t *testing.T) {
	t.Parallel()
	sqlstoretest.Engines(t, func(t *testing.T, db *sqlstore.DB) {
		s := newStack(t, db)
		pf := storedPartition(t, s, 4)
		var list struct {
			Items []seedengine.WARCFile `json:"items"`
		}
		r := s.get(t, "/api/v1/items/"+pf.base+"/warc", &list)
		require.Equal(t, http.StatusOK, r.StatusCode, string(r.Body))
		require.Len(t, list.Items, len(pf.warcs))
		for i, f := range list.Items {
			want := pf.warcs[i]
			require.Equal(t, want.Name, f.Name)
			stored := s.object(t, f.Key)
			require.Equal(t, []byte{0x1f, 0x8b}, stored[:2], "a gzip member per record")
			for _, h := range []http.Header{nil, {"Accept-Encoding": {"gzip"}}, {"Accept-Encoding": {"identity"}}} {
				r := s.do(t, request{Path: "/api/v1/items/" + pf.base + "/warc/" + f.Name, Header: h})
				require.Equal(t, http.StatusOK, r.StatusCode, string(r.Body))
				require.False(t, r.Uncompressed, "no coding for the client to take off")
				require.Equal(t, stored, r.Body, "the file byte for byte, not decoded")
				require.Empty(t, r.Header.Get("Content-Encoding"))
				require.Equal(t, "application/warc", r.Header.Get("Content-Type"))
				require.Equal(t, strconv.Itoa(len(stored)), r.Header.Get("Content-Length"))
				require.Equal(t, "attachment; filename="+f.Name, r.Header.Get("Content-Disposition"))
				require.Equal(t, "nosniff", r.Header.Get("X-Content-Type-Options"))
				require.Contains(t, r.Header.Get("Content-Security-Policy"), "sandbox")
				require.Contains(t, r.Header.Get("Content-Security-Policy"), "default-src 'none'")
				require.Equal(t, want.StoredAt.UTC().Format(http.TimeFormat), r.Header.Get("Last-Modified"))
			}
			// Each page's record reads back from the downloaded file where
			// the API says it is: the page as it was fetched.
			dl := s.do(t, request{Path: "/api/v1/items/" + pf.base + "/warc/" + f.Name})
			records := 0
			for _, it := range pf.items {
				page, err := s.app.Pages.FindPage(t.Context(), it.ID)
				require.NoError(t, err)
				if page.WARCFile != f.Key {
					continue
				}
				rec, err := warc.ReadRecord(bytes.NewReader(dl.Body), page.Offset, page.Length)
				require.NoError(t, err)
				resp, err := rec.HTTPResponse()
				require.NoError(t, err)
				require.Equal(t, pageBody(it), string(resp.Body))
				records++
			}
			require.Equal(t, want.Records, records)

			h := s.do(t, request{Method: http.MethodHead, Path: "/api/v1/items/" + pf.base + "/warc/" + f.Name})
			require.Equal(t, http.StatusOK, h.StatusCode)
			require.Equal(t, strconv.Itoa(len(stored)), h.Header.Get("Content-Length"))
			require.Empty(t, h.Body)
		}

		// Not a file of this partition: a 404 naming file.
		for _, path := range []string{
			pf.base + "/warc/seedengine-test-nope-00009.warc.gz",
			pf.base + "/warc/" + pf.warcs[0].Name[:len(pf.warcs[0].Name)-len(".warc.gz")] + ".cdxj",
			pf.base + "/warc/items_0001",
			"sg/news/2001-01-01/warc/" + pf.warcs[0].Name,
			"sg/policy/" + pf.p.Date + "/warc/" + pf.warcs[0].Name,
		} {
			requireFileNotFound(t, s.do(t, request{Path: "/api/v1/items/" + path}), path)
		}
		// The list still answers for …/warc, the item file route for the rest.
		requireFileNotFound(t, s.do(t, request{Path: "/api/v1/items/" + pf.base + "/items_0042"}), "an item file")
		requirePartitionFieldsNamed(t, s, "/api/v1/items/", "/warc", "/warc/"+pf.warcs[0].Name)
	})
}
