package main_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/simweb"
	"github.com/seedengine/seedengine/internal/sqlstore/sqlstoretest"
)

// The harvest survives kill -9: the service is killed while it reads
// publishers and writes item files, twice, and started again on the same
// store each time. A consumer that follows the cursor throughout gets
// every item exactly once, every item is in exactly one written file, the
// files hold what the index does, and no file is half written. Both
// engines.
func TestHarvestSurvivesKill(t *testing.T) {
	t.Parallel()
	for _, engine := range []string{"sqlite", "postgres"} {
		t.Run(engine, func(t *testing.T) {
			t.Parallel()
			var db []string
			if engine == "postgres" {
				db = []string{"--database-url", sqlstoretest.NewPostgresURL(t)}
			}
			runHarvestSurvivesKill(t, db)
		})
	}
}

func runHarvestSurvivesKill(t *testing.T, db []string) {
	w, err := simweb.Start(simweb.Config{Seed: 1})
	require.NoError(t, err)
	t.Cleanup(func() { _ = w.Close() })
	clock := &simweb.Clock{Start: time.Now().Add(time.Hour), Epoch: time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC), Speed: 600}
	var pubs []*simweb.Publisher
	for i := range 10 {
		p := &simweb.Publisher{Host: fmt.Sprintf("kill%02d-news.com.sg", i), PerDay: float64(50 + 50*i), Clock: clock,
			Publications: []simweb.Publication{{Path: "/feed", Format: simweb.PubRSS, Window: 20, Tracking: i%2 == 0}}}
		if i%3 == 0 {
			p.Publications = append(p.Publications, simweb.Publication{Path: "/news-sitemap.xml", Format: simweb.PubNewsSitemap, Window: 40})
		}
		pubs = append(pubs, p)
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
		"--item-flush-interval", "1s", "--item-file-age", "1s", "--item-file-max-items", "25",
		"--dead-process-after", "30s"}, db...)
	s := startServer(t, dataDir, args...)

	var seedIDs []string
	for _, p := range pubs {
		for j, pub := range p.Publications {
			ft, ct := "rss", "news"
			if j == 1 {
				ft, ct = "news_sitemap", "sitemap"
			}
			r := s.do(t, "POST", "/api/v1/seeds", key, map[string]any{
				"domain_id": "media:sg:" + p.Host, "content_type": ct, "category": "news",
				"fetch": map[string]any{"type": ft, "entry_url": "https://" + p.Host + pub.Path, "schedule": "@hourly"},
			})
			require.Equal(t, 201, r.status, "body: %s", r.raw)
			id := "media:sg:" + p.Host + "::" + ct
			r = s.do(t, "POST", "/api/v1/seeds/promote", key, map[string]any{"seedId": id})
			require.Equal(t, 200, r.status, "body: %s", r.raw)
			seedIDs = append(seedIDs, id)
		}
	}
	clock.StartNow()

	// The consumer: every item it is handed, with how many times.
	got := map[string]int{}
	var since int64
	follow := func(s *server) {
		for {
			r := s.do(t, "GET", fmt.Sprintf("/api/v1/items?since=%d&limit=1000", since), key, nil)
			require.Equal(t, 200, r.status, "body: %s", r.raw)
			items, _ := r.body["items"].([]any)
			for _, it := range items {
				got[it.(map[string]any)["normalized_url"].(string)]++
			}
			since = int64(r.body["next_since"].(float64))
			if len(items) == 0 {
				return
			}
		}
	}
	const patience = 5 * time.Minute
	// harvestFor follows the cursor for d: a kill after it lands among
	// reads and flushes (one a second, of at most 25 items a file).
	harvestFor := func(s *server, d time.Duration) {
		end := time.Now().Add(d)
		for time.Now().Before(end) {
			follow(s)
			time.Sleep(100 * time.Millisecond)
		}
	}
	kill := func(s *server) *server {
		require.NoError(t, s.cmd.Process.Kill())
		<-s.done
		_ = s.cmd.Wait()
		return startServer(t, dataDir, args...)
	}

	harvestFor(s, 8*time.Second)
	s = kill(s)
	harvestFor(s, 5*time.Second)
	s = kill(s)
	harvestFor(s, 5*time.Second)

	// Publishing stops, and every seed is read once more after that (the
	// reads the dead processes held come back too, and find nothing new):
	// nothing is recorded after these reads. The items wait for their
	// files, then every file is written.
	clock.Stop()
	stopped := time.Now().UTC()
	for _, id := range seedIDs {
		r := s.do(t, "POST", "/api/v1/seeds/"+url.PathEscape(id)+"/check", key, nil)
		require.Equal(t, 202, r.status, "body: %s", r.raw)
	}
	deadline := time.Now().Add(patience)
	for _, id := range seedIDs {
		for {
			r := s.do(t, "GET", "/api/v1/seeds/"+url.PathEscape(id)+"/checks?limit=1", key, nil)
			require.Equal(t, 200, r.status, "body: %s", r.raw)
			if items, _ := r.body["items"].([]any); len(items) == 1 {
				at, err := time.Parse(time.RFC3339Nano, items[0].(map[string]any)["checked_at"].(string))
				require.NoError(t, err)
				if at.After(stopped) {
					break
				}
			}
			require.True(t, time.Now().Before(deadline), "%s: no read after the end within %v", id, patience)
			time.Sleep(200 * time.Millisecond)
		}
	}
	var parts []any
	for {
		follow(s)
		r := s.do(t, "GET", "/api/v1/items/partitions?limit=100", key, nil)
		require.Equal(t, 200, r.status, "body: %s", r.raw)
		parts, _ = r.body["items"].([]any)
		pending := 0
		for _, p := range parts {
			pending += int(p.(map[string]any)["pending"].(float64))
		}
		unwritten := 0
		for _, p := range parts {
			pm := p.(map[string]any)
			f := s.do(t, "GET", fmt.Sprintf("/api/v1/items/%s/%s/%s", pm["country"], pm["category"], pm["date"]), key, nil)
			for _, file := range f.body["items"].([]any) {
				if file.(map[string]any)["written_at"] == nil {
					unwritten++
				}
			}
		}
		if len(parts) > 0 && pending == 0 && unwritten == 0 {
			break
		}
		require.True(t, time.Now().Before(deadline), "files not all written within %v: %d pending, %d unwritten", patience, pending, unwritten)
		time.Sleep(200 * time.Millisecond)
	}
	follow(s)

	for u, n := range got {
		require.Equal(t, 1, n, "%s handed out %d times", u, n)
	}
	require.Greater(t, len(got), 50)

	// Every item in exactly one file, each file whole and as indexed, and
	// nothing in the store under items/ that the index does not name.
	inFiles := map[string]int{}
	indexed := map[string]bool{}
	for _, p := range parts {
		pm := p.(map[string]any)
		f := s.do(t, "GET", fmt.Sprintf("/api/v1/items/%s/%s/%s", pm["country"], pm["category"], pm["date"]), key, nil)
		for _, file := range f.body["items"].([]any) {
			fm := file.(map[string]any)
			indexed[fm["key"].(string)] = true
			b, err := os.ReadFile(filepath.Join(dataDir, "objects", fm["key"].(string)))
			require.NoError(t, err)
			require.EqualValues(t, fm["bytes"], len(b))
			lines := 0
			sc := bufio.NewScanner(bytes.NewReader(b))
			for sc.Scan() {
				var it seedengine.Item
				require.NoError(t, json.Unmarshal(sc.Bytes(), &it), "%s: a whole line", fm["key"])
				inFiles[it.NormalizedURL]++
				lines++
			}
			require.EqualValues(t, fm["items"], lines)
		}
	}
	require.Equal(t, len(got), len(inFiles))
	for u, n := range inFiles {
		require.Equal(t, 1, n, "%s in %d files", u, n)
		require.Equal(t, 1, got[u], "%s in a file but not handed out", u)
	}
	require.NoError(t, filepath.WalkDir(filepath.Join(dataDir, "objects", "items"), func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasSuffix(path, ".attrs") {
			return err
		}
		rel, _ := filepath.Rel(filepath.Join(dataDir, "objects"), path)
		require.True(t, indexed[filepath.ToSlash(rel)], "%s is stored but not indexed", rel)
		return nil
	}))
	r := s.do(t, "GET", "/api/v1/metadata/snapshot", key, nil)
	require.Equal(t, 200, r.status, "body: %s", r.raw)
	require.EqualValues(t, len(got), r.body["totals"].(map[string]any)["items"])
	t.Logf("%d items in %d partitions, followed through two kills", len(got), len(parts))
}
