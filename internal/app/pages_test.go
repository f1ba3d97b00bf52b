package app_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/harvest"
	"github.com/seedengine/seedengine/internal/pages"
	"github.com/seedengine/seedengine/internal/seedcheck"
	"github.com/seedengine/seedengine/internal/simweb"
	"github.com/seedengine/seedengine/internal/simweb/simwebtest"
	"github.com/seedengine/seedengine/internal/sqlstore"
	"github.com/seedengine/seedengine/internal/sqlstore/sqlstoretest"
	"github.com/seedengine/seedengine/internal/warc"
	"github.com/seedengine/seedengine/internal/warc/warciotest"
)

// Pages of the seeds with harvest.pages, on a simulated web whose
// article pages have robots rules (some disallowed), duplicates under two
// URLs, large and slow ones: every page is fetched and stored but the
// disallowed ones, which are never requested; a duplicate's record is a
// revisit; every WARC file is read back by warcio, with every digest
// right, and warcio's own indexer writes its CDXJ index line for line;
// every CDXJ line opens the record it names; every item's page is
// served back from its record; a seed without harvest.pages gets none.
//
// Not parallel: it runs before the package's parallel tests, so that its
// fetching does not share the machine with TestHarvestCoverage's clock.
func TestPagesToWARC(t *testing.T) {
	warcio := warciotest.Dir(t)
	sqlstoretest.Engines(t, func(t *testing.T, db *sqlstore.DB) {
		clock := &simweb.Clock{Start: time.Now().Add(time.Hour), Epoch: time.Date(2026, 11, 27, 6, 0, 0, 0, time.UTC), Speed: 240}
		cases := simweb.ArticleCases{DisallowPrefix: "/articles/1", DuplicateEvery: 10, LargeEvery: 25, LargeBytes: 300 << 10,
			SlowEvery: 20, SlowDelay: 300 * time.Millisecond}
		var pubs []*simweb.Publisher
		var sites []simweb.Site
		for i, perDay := range []float64{4000, 2000, 500} {
			p := &simweb.Publisher{Host: fmt.Sprintf("paper%d-daily.com.sg", i), PerDay: perDay, Clock: clock, Pages: true, Articles: cases,
				Publications: []simweb.Publication{{Path: "/feed", Format: simweb.PubRSS, Window: 20}}}
			pubs = append(pubs, p)
			sites = append(sites, p.Site())
		}
		_, client := simwebtest.Client(t, sites, 5*time.Second)
		spool := t.TempDir()
		s := newStack(t, db, withQueue(), withHarvest(harvestOpts{fetch: client, interval: 200 * time.Millisecond,
			checks: seedcheck.Config{Pace: harvest.PaceConfig{Min: 300 * time.Millisecond, Max: time.Minute, Lag: 100 * time.Millisecond, First: time.Second}}}),
			withPages(pages.Config{Dir: spool, Process: "test", MaxFileBytes: 2 << 20, MaxFileAge: time.Hour}))

		// Two seeds fetch pages, the third only records its items.
		for i, p := range pubs {
			body := map[string]any{"domain_id": "media:sg:" + p.Host, "category": "news",
				"fetch": map[string]any{"type": "rss", "entry_url": "https://" + p.Host + "/feed"}}
			if i < 2 {
				body["harvest"] = map[string]any{"pages": true}
			}
			r := s.post(t, "/api/v1/seeds", body)
			require.Equal(t, http.StatusCreated, r.StatusCode, string(r.Body))
			r = s.post(t, "/api/v1/seeds/promote", map[string]any{"seedId": "media:sg:" + p.Host + "::news"})
			require.Equal(t, http.StatusOK, r.StatusCode, string(r.Body))
		}
		clock.StartNow()
		time.Sleep(15 * time.Second)
		clock.Stop()
		readOnceMore(t, s, pubs)
		settlePages(t, s)

		items, _ := followItems(t, s, 0)
		byHost := map[string]int{}
		revisit := map[string]map[int]bool{} // host → article → its record is a revisit
		stored, skipped, revisits := 0, 0, 0
		for _, it := range items {
			host := strings.TrimPrefix(strings.TrimSuffix(it.DomainID, ""), "media:sg:")
			byHost[host]++
			var p seedengine.Page
			r := s.get(t, "/api/v1/items/"+strconv.FormatInt(it.ID, 10)+"/page", &p)
			if host == pubs[2].Host {
				require.Equal(t, http.StatusNotFound, r.StatusCode, "a seed without harvest.pages has no pages")
				require.Nil(t, it.Page)
				continue
			}
			require.Equal(t, http.StatusOK, r.StatusCode, string(r.Body))
			// The item's listing shows its page too.
			require.NotNil(t, it.Page)
			require.Equal(t, seedengine.ItemPage{State: p.State, Status: p.Status, WARCFile: p.WARCFile, Offset: p.Offset, Length: p.Length}, *it.Page)
			n := articleNumber(t, it.URL)
			pub := pubs[0]
			if host == pubs[1].Host {
				pub = pubs[1]
			}
			if strings.HasPrefix(strconv.Itoa(n), "1") {
				require.Equal(t, seedengine.PageSkipped, p.State, "article %d is disallowed", n)
				require.Equal(t, "robots_disallowed", p.Reason)
				require.Zero(t, pub.Served(n), "a disallowed page is never requested")
				skipped++
				continue
			}
			require.Equal(t, seedengine.PageStored, p.State, "article %d: %+v", n, p)
			require.Equal(t, http.StatusOK, p.Status)
			require.True(t, strings.HasPrefix(p.WARCFile, "warc/country=sg/category=news/date=2026-"), p.WARCFile)
			if revisit[host] == nil {
				revisit[host] = map[int]bool{}
			}
			revisit[host][n] = p.Revisit
			if p.Revisit {
				require.True(t, cases.Duplicate(n) || cases.Duplicate(n+1), "article %d is a revisit, and no copy", n)
				revisits++
			}
			stored++
			// The page back from its record.
			cr := s.do(t, request{Path: "/api/v1/items/" + strconv.FormatInt(it.ID, 10) + "/page/content"})
			require.Equal(t, http.StatusOK, cr.StatusCode, string(cr.Body))
			require.Equal(t, pub.ArticleBody(n), string(cr.Body), "article %d served back from its WARC record", n)
			require.Equal(t, "text/html; charset=utf-8", cr.Header.Get("Content-Type"))
		}
		t.Logf("items %v; pages stored %d (revisits %d), skipped %d", byHost, stored, revisits, skipped)
		// Of an article and its copy, both stored, one is a revisit of the
		// other (whichever was fetched second).
		for host, arts := range revisit {
			for n, rv := range arts {
				if orig, ok := arts[n-1]; ok && cases.Duplicate(n) {
					require.True(t, rv != orig, "%s: articles %d and %d, the same page: one revisits the other", host, n-1, n)
				}
			}
		}
		require.Positive(t, skipped)
		require.Positive(t, revisits)
		require.Greater(t, stored, 30)

		// Every file: warcio reads it and indexes it as our CDXJ index
		// does, each CDXJ line opens its record.
		var files struct {
			Items []seedengine.WARCFile `json:"items"`
			Total int                   `json:"total"`
		}
		date := time.Now().UTC().Format(seedengine.DateLayout)
		r := s.get(t, "/api/v1/items/sg/news/"+date+"/warc", &files)
		require.Equal(t, http.StatusOK, r.StatusCode, string(r.Body))
		require.NotEmpty(t, files.Items)
		records := 0
		for _, f := range files.Items {
			rc, _, err := s.blobs.NewReader(t.Context(), f.Key)
			require.NoError(t, err)
			body, err := io.ReadAll(rc)
			rc.Close()
			require.NoError(t, err)
			require.EqualValues(t, len(body), f.Bytes)
			path := filepath.Join(t.TempDir(), f.Name)
			require.NoError(t, os.WriteFile(path, body, 0o644))
			rep := warciotest.Verify(t, warcio, path, f.Name)
			kinds := map[string]int{}
			for _, rec := range rep.Records {
				kinds[rec.Type]++
			}
			require.Equal(t, 1, kinds["warcinfo"], f.Name)
			require.Equal(t, kinds["request"], kinds["response"]+kinds["revisit"], f.Name)

			rc, _, err = s.blobs.NewReader(t.Context(), f.IndexKey)
			require.NoError(t, err)
			index, err := io.ReadAll(rc)
			rc.Close()
			require.NoError(t, err)
			lines := strings.Split(strings.TrimSpace(string(index)), "\n")
			require.Len(t, lines, f.Records, f.Name)
			// warcio cdx-index writes the very same lines (keys, offsets,
			// lengths, every field), in file order where the index is
			// sorted bytewise.
			fromWarcio := slices.Clone(rep.CDXJ)
			slices.Sort(fromWarcio)
			require.Equal(t, fromWarcio, lines, f.Name)
			for _, line := range lines {
				_, rest, _ := strings.Cut(line, " ")
				_, js, _ := strings.Cut(rest, " ")
				var fields map[string]string
				require.NoError(t, json.Unmarshal([]byte(js), &fields), line)
				off, err := strconv.ParseInt(fields["offset"], 10, 64)
				require.NoError(t, err, line)
				length, err := strconv.ParseInt(fields["length"], 10, 64)
				require.NoError(t, err, line)
				rec, err := warc.ReadRecord(bytes.NewReader(body), off, length)
				require.NoError(t, err, line)
				require.Equal(t, fields["url"], rec.Header.Get("WARC-Target-URI"), line)
				records++
			}
		}
		require.Equal(t, stored, records, "one response or revisit record per stored page")
		st, err := s.app.Pages.PageStats(t.Context())
		require.NoError(t, err)
		require.Equal(t, len(files.Items), st.Files)
		// The metadata snapshot counts them.
		snap, err := s.app.Metadata.Snapshot(t.Context())
		require.NoError(t, err)
		require.Equal(t, len(files.Items), snap.Totals.WARCFiles)
		require.Equal(t, records, snap.Totals.WARCRecords)
		require.Equal(t, len(files.Items), snap.Countries["sg"]["news"][date].WARCFiles)
		require.NoError(t, filepath.WalkDir(spool, func(path string, d os.DirEntry, err error) error {
			require.False(t, strings.HasSuffix(path, ".warc.gz") || strings.HasSuffix(path, ".part"), "no spool file is left: %s", path)
			return err
		}))
	})
}

// articleNumber reads i of https://host/articles/{i}/story-{i}.
// readOnceMore reads every publisher's seed once more after its clock
// stopped and waits for the reads: nothing is recorded after them.
func readOnceMore(t *testing.T, s *stack, pubs []*simweb.Publisher) {
	t.Helper()
	// Every seed read once more after the end: nothing is recorded
	// after these reads.
	checkedAfter := time.Now()
	for _, p := range pubs {
		r := s.post(t, "/api/v1/seeds/"+url.PathEscape("media:sg:"+p.Host+"::news")+"/check", nil)
		require.Equal(t, http.StatusAccepted, r.StatusCode, string(r.Body))
	}
	require.Eventually(t, func() bool {
		for _, p := range pubs {
			checks, err := s.seeds.FindSeedChecks(t.Context(), "media:sg:"+p.Host+"::news", 0, checkedAfter, 1)
			if err != nil || len(checks) == 0 {
				return false
			}
		}
		return true
	}, 2*time.Minute, 100*time.Millisecond, "a last read of every seed")

}

// settlePages waits until every page queued is fetched, skipped or
// failed, and stores the open files; a read after the clock stopped may
// still record an article published just before, so until nothing is
// queued or spooled. Then it stops the queue: nothing runs any more
// while the rest is checked.
func settlePages(t *testing.T, s *stack) {
	t.Helper()
	settlePagesRunning(t, s)
	require.NoError(t, s.queue.Stop(t.Context()))
	require.NoError(t, s.app.PageFetcher.Close(t.Context()))
}

// settlePagesRunning waits as settlePages does, leaving the queue running.
func settlePagesRunning(t *testing.T, s *stack) {
	t.Helper()
	for settled := false; !settled; {
		require.Eventually(t, func() bool {
			st, err := s.app.Pages.PageStats(t.Context())
			require.NoError(t, err)
			return st.ByState[seedengine.PageQueued] == 0 && st.ByState[seedengine.PageFetched]+st.ByState[seedengine.PageStored] > 0
		}, 2*time.Minute, 200*time.Millisecond, "every page fetched")
		require.NoError(t, s.app.PageFetcher.Close(t.Context()))
		time.Sleep(time.Second) // a read or two more
		st, err := s.app.Pages.PageStats(t.Context())
		require.NoError(t, err)
		settled = st.ByState[seedengine.PageQueued] == 0 && st.ByState[seedengine.PageFetched] == 0
	}
}

func articleNumber(t *testing.T, raw string) int {
	t.Helper()
	rest := raw[strings.Index(raw, "/articles/")+len("/articles/"):]
	n, err := strconv.Atoi(rest[:strings.IndexByte(rest, '/')])
	require.NoError(t, err, raw)
	return n
}
