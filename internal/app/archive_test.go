package app_test

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/fetch"
	"github.com/seedengine/seedengine/internal/harvest"
	"github.com/seedengine/seedengine/internal/pages"
	"github.com/seedengine/seedengine/internal/seedcheck"
	"github.com/seedengine/seedengine/internal/simweb"
	"github.com/seedengine/seedengine/internal/simweb/simwebtest"
	"github.com/seedengine/seedengine/internal/sqlstore/sqlstoretest"
	"github.com/seedengine/seedengine/internal/warc"
	"github.com/seedengine/seedengine/internal/warc/warciotest"
)

// The archive keeps what the server sent. Publishers write their pages
// as nginx does (its field order and spelling), some with a
// Content-Length, some in chunks, some gzipped though the fetcher asks
// for identity, and one article in four answers its URL with a 301 to the
// URL with a slash. Every item's page is stored with every hop: the
// item points at its own URL's 301 record and at the page's; each
// response record holds, byte for byte, what the server wrote (the
// chunk framing gone with its Transfer-Encoding field, a gzip body and
// its Content-Encoding kept); the request records carry the
// server's address; every record's WARC-Date is within a second of the
// server's Date; warcio reads every file with every digest right and
// indexes it as our CDXJ does, the 301s under the items' own URLs; and
// no two requests to a host came closer than its delay, by the
// simulated web's own log.
func TestArchiveKeepsTheWire(t *testing.T) {
	warcio := warciotest.Dir(t)
	const delay = 250 * time.Millisecond
	clock := &simweb.Clock{Start: time.Now().Add(time.Hour), Epoch: time.Date(2026, 11, 27, 6, 0, 0, 0, time.UTC), Speed: 240}
	cases := simweb.ArticleCases{Wire: true, RedirectEvery: 4, DuplicateEvery: 10, SlowEvery: 9, SlowDelay: 300 * time.Millisecond,
		LargeEvery: 20, LargeBytes: 120 << 10}
	web := simwebtest.Start(t)
	var pubs []*simweb.Publisher
	for i := range 2 {
		p := &simweb.Publisher{Host: fmt.Sprintf("wire%d-daily.com.sg", i), PerDay: 900, Clock: clock, Pages: true, Articles: cases,
			Publications: []simweb.Publication{{Path: "/feed", Format: simweb.PubRSS, Window: 20}}}
		pubs = append(pubs, p)
		web.AddSite(p.Site())
	}
	var mu sync.Mutex
	arrived := map[string][]time.Time{}
	web.Observe(func(r *http.Request) {
		mu.Lock()
		arrived[r.Host] = append(arrived[r.Host], time.Now())
		mu.Unlock()
	})
	client := simwebtest.ClientWith(t, web, func(c *fetch.Config) { c.PerHostDelay = delay })
	s := newStack(t, sqlstoretest.OpenSQLite(t), withQueue(), withHarvest(harvestOpts{fetch: client, interval: 200 * time.Millisecond,
		checks: seedcheck.Config{Pace: harvest.PaceConfig{Min: time.Second, Max: time.Minute, Lag: 100 * time.Millisecond, First: time.Second}}}),
		withPages(pages.Config{Dir: t.TempDir(), Process: "test", MaxFileBytes: 1 << 20, MaxFileAge: time.Hour}))
	for _, p := range pubs {
		r := s.post(t, "/api/v1/seeds", map[string]any{"domain_id": "media:sg:" + p.Host, "category": "news",
			"harvest": map[string]any{"pages": true}, "fetch": map[string]any{"type": "rss", "entry_url": "https://" + p.Host + "/feed"}})
		require.Equal(t, http.StatusCreated, r.StatusCode, string(r.Body))
		r = s.post(t, "/api/v1/seeds/promote", map[string]any{"seedId": "media:sg:" + p.Host + "::news"})
		require.Equal(t, http.StatusOK, r.StatusCode, string(r.Body))
	}
	clock.StartNow()
	time.Sleep(10 * time.Second)
	clock.Stop()
	settlePages(t, s)

	// The files, read whole once.
	files := map[string][]byte{}
	read := func(key string) []byte {
		if b, ok := files[key]; ok {
			return b
		}
		rc, _, err := s.blobs.NewReader(t.Context(), key)
		require.NoError(t, err)
		b, err := io.ReadAll(rc)
		rc.Close()
		require.NoError(t, err)
		files[key] = b
		return b
	}
	record := func(key string, off, length int64) warc.StoredRecord {
		rec, err := warc.ReadRecord(bytes.NewReader(read(key)), off, length)
		require.NoError(t, err)
		return rec
	}
	pubOf := func(host string) *simweb.Publisher {
		for _, p := range pubs {
			if p.Host == host {
				return p
			}
		}
		t.Fatalf("no publisher %s", host)
		return nil
	}

	items, _ := followItems(t, s, 0)
	redirected, chunked, gzipped, revisits := 0, 0, 0, 0
	for _, it := range items {
		u, err := url.Parse(it.URL)
		require.NoError(t, err)
		pub, n := pubOf(u.Host), articleNumber(t, it.URL)
		var p seedengine.Page
		r := s.get(t, "/api/v1/items/"+strconv.FormatInt(it.ID, 10)+"/page", &p)
		require.Equal(t, http.StatusOK, r.StatusCode, string(r.Body))
		require.Equal(t, seedengine.PageStored, p.State, "article %d: %+v", n, p)

		// The hops: the item's own URL and its 301, kept as sent.
		final := it.URL
		if cases.Redirected(n) {
			redirected++
			final = it.URL + "/"
			require.Len(t, p.Hops, 1, "article %d", n)
			h := p.Hops[0]
			require.Equal(t, seedengine.PageHop{URL: it.URL, Status: 301, Location: final, Offset: h.Offset, Length: h.Length}, h)
			require.Equal(t, final, p.FinalURL)
			require.Less(t, h.Offset, p.Offset, "the hop comes before the page in its file")
			rec := record(p.WARCFile, h.Offset, h.Length)
			require.Equal(t, "response", rec.Type())
			require.Equal(t, it.URL, rec.Header.Get("WARC-Target-URI"))
			require.Equal(t, string(pub.Sent(u.Path)), string(rec.Block), "article %d's 301 as the server wrote it", n)
			requireServerDate(t, rec)
		} else {
			require.Empty(t, p.Hops)
			require.Empty(t, p.FinalURL)
		}

		// The page's record: the server's bytes, less the chunk framing.
		rec := record(p.WARCFile, p.Offset, p.Length)
		require.Equal(t, final, rec.Header.Get("WARC-Target-URI"))
		fu, err := url.Parse(final)
		require.NoError(t, err)
		sent := string(pub.Sent(fu.Path))
		require.NotEmpty(t, sent)
		head, body, _ := strings.Cut(sent, "\r\n\r\n")
		want := sent
		if strings.Contains(head, "\r\nTransfer-Encoding: chunked\r\n") {
			chunked++
			want = strings.Replace(head, "\r\nTransfer-Encoding: chunked", "", 1) + "\r\n\r\n" + dechunk(t, body)
		}
		if strings.Contains(head+"\r\n", "\r\nContent-Encoding: gzip\r\n") {
			gzipped++
		}
		if p.Revisit {
			revisits++
			require.Equal(t, "revisit", rec.Type())
			want = want[:strings.Index(want, "\r\n\r\n")+4]
		}
		require.Equal(t, want, string(rec.Block), "article %d's page as the server wrote it", n)
		requireServerDate(t, rec)

		// The page, decoded, from the API.
		cr := s.do(t, request{Path: "/api/v1/items/" + strconv.FormatInt(it.ID, 10) + "/page/content"})
		require.Equal(t, http.StatusOK, cr.StatusCode, string(cr.Body))
		require.Equal(t, pub.ArticleBody(n), string(cr.Body), "article %d", n)
	}
	t.Logf("%d items: %d redirected, %d chunked pages, %d gzipped (asked for identity), %d revisits", len(items), redirected, chunked, gzipped, revisits)
	require.Greater(t, len(items), 20)
	require.Positive(t, redirected)
	require.Positive(t, chunked)
	require.Positive(t, gzipped, "some servers gzip whatever the client asks")
	require.Less(t, gzipped, len(items), "the others answer identity's request unencoded")
	require.Positive(t, revisits)

	// Every file: warcio reads it with every digest right and indexes
	// it as we do; the items' own URLs are in the index with their 301;
	// every request and response record names the server's address.
	var list struct {
		Items []seedengine.WARCFile `json:"items"`
	}
	r := s.get(t, "/api/v1/items/sg/news/"+time.Now().UTC().Format(seedengine.DateLayout)+"/warc", &list)
	require.Equal(t, http.StatusOK, r.StatusCode, string(r.Body))
	require.NotEmpty(t, list.Items)
	moved := 0
	for _, f := range list.Items {
		body := read(f.Key)
		path := filepath.Join(t.TempDir(), f.Name)
		require.NoError(t, os.WriteFile(path, body, 0o644))
		rep := warciotest.Verify(t, warcio, path, f.Name)
		index := strings.Split(strings.TrimSpace(string(read(f.IndexKey))), "\n")
		fromWarcio := slices.Clone(rep.CDXJ)
		slices.Sort(fromWarcio)
		require.Equal(t, fromWarcio, index, f.Name)
		require.Len(t, index, f.Records)
		for _, e := range rep.CDX {
			if fmt.Sprint(e["status"]) == "301" {
				moved++
				require.False(t, strings.HasSuffix(e["url"].(string), "/"), "a 301 is indexed under the URL that answered it: %v", e)
			}
		}
		dates, pairs := map[string]string{}, map[string]string{}
		for _, wr := range rep.Records {
			if wr.Type != "request" && wr.Type != "response" && wr.Type != "revisit" {
				continue
			}
			rec := record(f.Key, wr.Offset, wr.Length)
			require.Equal(t, "127.0.0.1", rec.Header.Get("WARC-IP-Address"), "%s record %s", wr.Type, wr.ID)
			dates[wr.ID] = rec.Header.Get("WARC-Date")
			if wr.Type != "request" {
				require.Len(t, wr.ConcurrentTo, 1, "a response names its request")
				pairs[wr.ConcurrentTo[0]] = wr.ID
			}
		}
		for req, resp := range pairs {
			require.Contains(t, dates, req, "the request %s a response names is in the file", req)
			require.Equal(t, dates[req], dates[resp], "a request and its response share the capture's date")
		}
	}
	require.Equal(t, redirected, moved, "every 301 indexed")

	// Politeness, by the server's clock: requests to one host at least
	// the delay apart.
	mu.Lock()
	defer mu.Unlock()
	for host, at := range arrived {
		slices.SortFunc(at, func(a, b time.Time) int { return a.Compare(b) })
		for i := 1; i < len(at); i++ {
			require.GreaterOrEqual(t, at[i].Sub(at[i-1]), delay, "%s: requests %d and %d", host, i-1, i)
		}
	}
}

// requireServerDate checks that a response record's WARC-Date, when its
// request's first byte went out, is within a second of the server's
// Date (which has whole seconds).
func requireServerDate(t *testing.T, rec warc.StoredRecord) {
	t.Helper()
	warcDate, err := time.Parse(time.RFC3339Nano, rec.Header.Get("WARC-Date"))
	require.NoError(t, err)
	resp, err := rec.HTTPResponse()
	require.NoError(t, err)
	date, err := http.ParseTime(resp.Header.Get("Date"))
	require.NoError(t, err)
	require.LessOrEqual(t, date.Sub(warcDate).Abs(), time.Second, "WARC-Date %s, Date %s", warcDate, date)
}

// dechunk decodes a chunked body, trailer-free.
func dechunk(t *testing.T, s string) string {
	t.Helper()
	var b strings.Builder
	for {
		size, rest, ok := strings.Cut(s, "\r\n")
		require.True(t, ok)
		n, err := strconv.ParseInt(size, 16, 64)
		require.NoError(t, err)
		if n == 0 {
			return b.String()
		}
		b.WriteString(rest[:n])
		s = strings.TrimPrefix(rest[n:], "\r\n")
	}
}
