package main_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine/internal/simweb"
	"github.com/seedengine/seedengine/internal/sqlstore/sqlstoretest"
	"github.com/seedengine/seedengine/internal/warc/warciotest"
)

// Page fetching survives kill -9: the service is killed twice while it
// fetches article pages (some slow, so fetches are in flight) into WARC
// spool files, and started again on the same data directory each time.
// In the end every item's page is stored, served back whole from the
// record its item points at (no item points at a record that is not
// there), every WARC file is one warcio reads with every digest right,
// and the spool is empty. Every stored page becomes one article (the
// extraction queued with the page's file, run while the kills land):
// none lost, none twice, in SQL and in the article files. Both engines.
func TestPagesSurviveKill(t *testing.T) {
	t.Parallel()
	warcio := warciotest.Dir(t)
	for _, engine := range []string{"sqlite", "postgres"} {
		t.Run(engine, func(t *testing.T) {
			t.Parallel()
			var db []string
			if engine == "postgres" {
				db = []string{"--database-url", sqlstoretest.NewPostgresURL(t)}
			}
			runPagesSurviveKill(t, db, warcio)
		})
	}
}

func runPagesSurviveKill(t *testing.T, db []string, warcio string) {
	w, err := simweb.Start(simweb.Config{Seed: 1})
	require.NoError(t, err)
	t.Cleanup(func() { _ = w.Close() })
	clock := &simweb.Clock{Start: time.Now().Add(time.Hour), Epoch: time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC), Speed: 600}
	pubs := map[string]*simweb.Publisher{}
	for i := range 4 {
		p := &simweb.Publisher{Host: fmt.Sprintf("pages%02d-news.com.sg", i), PerDay: 400, Clock: clock, Pages: true,
			Articles:     simweb.ArticleCases{SlowEvery: 4, SlowDelay: 400 * time.Millisecond, Text: true, VideoEvery: 7},
			Publications: []simweb.Publication{{Path: "/feed", Format: simweb.PubRSS, Window: 20}}}
		pubs[p.Host] = p
		w.AddSite(p.Site())
	}
	ca, err := w.WriteCAFile(t.TempDir())
	require.NoError(t, err)

	dataDir := t.TempDir()
	stdout, stderr, code := runCLI(t, nil, append([]string{"apikey", "create", "--data-dir", dataDir, "--name", "ops", "--scope", "admin"}, db...)...)
	require.Equal(t, 0, code, "apikey create: %s", stderr)
	key := lastLine(strings.TrimSpace(stdout))
	args := append([]string{"--dns-server", w.DNSAddr(), "--connect-to", strings.Join(w.ConnectTo(), ","),
		"--extra-ca-file", ca, "--allow-private-networks", "127.0.0.0/8", "--per-host-delay", "0s",
		"--seed-check-interval", "1s", "--harvest-min-interval", "1s",
		"--warc-max-age", "2s", "--warc-max-bytes", "1048576", "--dead-process-after", "30s",
		"--item-flush-interval", "1s", "--item-file-age", "1s"}, db...)
	s := startServer(t, dataDir, args...)
	for host := range pubs {
		r := s.do(t, "POST", "/api/v1/seeds", key, map[string]any{"domain_id": "media:sg:" + host, "category": "news",
			"harvest": map[string]any{"pages": true}, "fetch": map[string]any{"type": "rss", "entry_url": "https://" + host + "/feed"}})
		require.Equal(t, 201, r.status, "body: %s", r.raw)
		r = s.do(t, "POST", "/api/v1/seeds/promote", key, map[string]any{"seedId": "media:sg:" + host + "::news"})
		require.Equal(t, 200, r.status, "body: %s", r.raw)
	}
	clock.StartNow()
	kill := func(s *server) *server {
		require.NoError(t, s.cmd.Process.Kill())
		<-s.done
		_ = s.cmd.Wait()
		return startServer(t, dataDir, args...)
	}
	time.Sleep(6 * time.Second)
	s = kill(s)
	time.Sleep(4 * time.Second)
	s = kill(s)
	time.Sleep(3 * time.Second)
	clock.Stop()

	// Every item's page ends stored (the dead processes' jobs come back
	// after --dead-process-after).
	type itemPage struct {
		id  int64
		url string
	}
	var items []itemPage
	deadline := time.Now().Add(5 * time.Minute)
	for {
		items = items[:0]
		waiting := 0
		var since int64
		for {
			r := s.do(t, "GET", fmt.Sprintf("/api/v1/items?since=%d&limit=1000", since), key, nil)
			require.Equal(t, 200, r.status, "body: %s", r.raw)
			list, _ := r.body["items"].([]any)
			for _, x := range list {
				it := x.(map[string]any)
				items = append(items, itemPage{int64(it["id"].(float64)), it["url"].(string)})
				page, _ := it["page"].(map[string]any)
				if page == nil || page["state"] != "stored" {
					waiting++
				}
			}
			if len(list) == 0 {
				break
			}
			since = int64(r.body["next_since"].(float64))
		}
		// More than 20 items: the reads that the killed processes held
		// come back only after --dead-process-after, so a moment with
		// every page stored can come before they do.
		if len(items) > 20 && waiting == 0 {
			break
		}
		require.True(t, time.Now().Before(deadline), "%d of %d pages not stored in time", waiting, len(items))
		time.Sleep(500 * time.Millisecond)
	}
	require.Greater(t, len(items), 20)

	// Each page back from its record, whole.
	revisits := 0
	for _, it := range items {
		r := s.do(t, "GET", "/api/v1/items/"+strconv.FormatInt(it.id, 10)+"/page", key, nil)
		require.Equal(t, 200, r.status, "body: %s", r.raw)
		if r.body["revisit"] == true {
			revisits++ // fetched again after a kill: at most a revisit
		}
		c := s.do(t, "GET", "/api/v1/items/"+strconv.FormatInt(it.id, 10)+"/page/content", key, nil)
		require.Equal(t, 200, c.status, "item %d: %s", it.id, c.raw)
		host := strings.Split(strings.TrimPrefix(it.url, "https://"), "/")[0]
		rest := it.url[strings.Index(it.url, "/articles/")+len("/articles/"):]
		n, err := strconv.Atoi(rest[:strings.IndexByte(rest, '/')])
		require.NoError(t, err)
		require.Equal(t, pubs[host].ArticleBody(n), string(c.raw), "item %d", it.id)
	}
	t.Logf("%d pages stored, %d of them revisits of a page fetched before a kill", len(items), revisits)

	// Every page one article (or one page that is none, with its reason),
	// through the cursor and in the files: until the three agree (a read
	// after the clock stopped may still record an item).
	var extracted, inFiles map[int64]int
	itemIDs := map[int64]bool{}
	for {
		clear(itemIDs)
		var since int64
		for {
			r := s.do(t, "GET", fmt.Sprintf("/api/v1/items?since=%d&limit=1000", since), key, nil)
			require.Equal(t, 200, r.status, "body: %s", r.raw)
			list, _ := r.body["items"].([]any)
			for _, x := range list {
				itemIDs[int64(x.(map[string]any)["id"].(float64))] = true
			}
			if len(list) == 0 {
				break
			}
			since = int64(r.body["next_since"].(float64))
		}
		extracted, inFiles = map[int64]int{}, map[int64]int{}
		since = 0
		for {
			r := s.do(t, "GET", fmt.Sprintf("/api/v1/articles?not_articles=true&since=%d&limit=200", since), key, nil)
			require.Equal(t, 200, r.status, "body: %s", r.raw)
			list, _ := r.body["articles"].([]any)
			for _, x := range list {
				extracted[int64(x.(map[string]any)["item_id"].(float64))]++
			}
			if len(list) == 0 {
				break
			}
			since = int64(r.body["next_since"].(float64))
		}
		matches, err := filepath.Glob(filepath.Join(dataDir, "objects", "articles", "country=sg", "category=news", "date=*", "articles_*.jsonl"))
		require.NoError(t, err)
		for _, m := range matches {
			body, err := os.ReadFile(m)
			require.NoError(t, err)
			for line := range strings.SplitSeq(strings.TrimSpace(string(body)), "\n") {
				var a struct {
					ItemID int64 `json:"item_id"`
				}
				require.NoError(t, json.Unmarshal([]byte(line), &a), m)
				inFiles[a.ItemID]++
			}
		}
		if len(extracted) == len(itemIDs) && len(inFiles) == len(itemIDs) {
			break
		}
		require.True(t, time.Now().Before(deadline), "of %d items, %d articles, %d in files in time", len(itemIDs), len(extracted), len(inFiles))
		time.Sleep(500 * time.Millisecond)
	}
	for id := range itemIDs {
		require.Equal(t, 1, extracted[id], "item %d's article once", id)
		require.Equal(t, 1, inFiles[id], "item %d's article in one line of one file", id)
	}
	t.Logf("%d articles, each once, in SQL and in files", len(extracted))

	// Every WARC file whole, by an independent reader.
	date := time.Now().UTC().Format("2006-01-02")
	r := s.do(t, "GET", "/api/v1/items/sg/news/"+date+"/warc", key, nil)
	require.Equal(t, 200, r.status, "body: %s", r.raw)
	files, _ := r.body["items"].([]any)
	require.NotEmpty(t, files)
	for _, f := range files {
		fm := f.(map[string]any)
		path := filepath.Join(dataDir, "objects", fm["key"].(string))
		st, err := os.Stat(path)
		require.NoError(t, err)
		require.EqualValues(t, fm["bytes"], st.Size())
		rep := warciotest.Verify(t, warcio, path, fm["name"].(string))
		// Its index too, a recovered file's included: warcio's lines,
		// sorted.
		index, err := os.ReadFile(filepath.Join(dataDir, "objects", fm["index_key"].(string)))
		require.NoError(t, err)
		fromWarcio := slices.Clone(rep.CDXJ)
		slices.Sort(fromWarcio)
		require.Equal(t, strings.Join(fromWarcio, "\n")+"\n", string(index), fm["name"])
	}
}
