package scaleout_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/warc/warciotest"
)

// Pages as WARC on PostgreSQL and S3 (versitygw): the items of seeds with
// harvest.pages have their pages fetched by a worker, its WARC files and
// CDXJ indexes land in the bucket whole, warcio reads every file with
// every digest right, and each page is served back from its record by
// offset.
func TestPagesOnS3(t *testing.T) {
	t.Parallel()
	warcio := warciotest.Dir(t)
	flags := []string{"--seed-check-interval", "1s", "--warc-max-age", "1s"}
	c := newCluster(t, clusterConfig{workers: 1, sites: 40, extra: flags})
	c.dumpOnFailure(t)
	var ids []string
	for _, s := range c.web.take(t, 30, true) {
		if s.layout != "wordpress" || len(ids) == 4 {
			continue
		}
		domainID := "com:sg:" + s.host
		r := c.do(http.MethodPost, "/api/v1/seeds", map[string]any{"domain_id": domainID, "category": "news",
			"harvest": map[string]any{"pages": true},
			"fetch":   map[string]any{"type": "rss", "entry_url": "https://" + s.host + "/feed/", "schedule": "@hourly"}})
		require.Equal(t, http.StatusCreated, r.status, "%s", r.raw)
		id := domainID + "::news"
		r = c.do(http.MethodPost, "/api/v1/seeds/promote", map[string]any{"seedId": id})
		require.Equal(t, http.StatusOK, r.status, "%s", r.raw)
		ids = append(ids, id)
	}
	require.NotEmpty(t, ids)

	var items []seedengine.Item
	poll(t, 3*time.Minute, 300*time.Millisecond, "every page fetched and its file stored", func() (bool, error) {
		r := c.do(http.MethodGet, "/api/v1/items?limit=1000", nil)
		var page struct {
			Items []seedengine.Item `json:"items"`
		}
		if err := json.Unmarshal(r.raw, &page); err != nil {
			return false, err
		}
		items = page.Items
		for _, it := range items {
			if it.Page == nil || it.Page.State == seedengine.PageQueued || it.Page.State == seedengine.PageFetched {
				return false, nil
			}
		}
		return len(items) > 0, nil
	})
	stored := 0
	for _, it := range items {
		if it.Page.State != seedengine.PageStored {
			continue
		}
		stored++
		r := c.do(http.MethodGet, "/api/v1/items/"+strconv.FormatInt(it.ID, 10)+"/page/content", nil)
		require.Equal(t, http.StatusOK, r.status, "item %d: %s", it.ID, r.raw)
		require.NotEmpty(t, r.raw)
	}
	require.Positive(t, stored)

	objects := c.s3.objects(t, "warc/")
	date := time.Now().UTC().Format(seedengine.DateLayout)
	r := c.do(http.MethodGet, fmt.Sprintf("/api/v1/items/sg/news/%s/warc", date), nil)
	require.Equal(t, http.StatusOK, r.status, "%s", r.raw)
	var files struct {
		Items []seedengine.WARCFile `json:"items"`
	}
	require.NoError(t, json.Unmarshal(r.raw, &files))
	require.NotEmpty(t, files.Items)
	records := 0
	for _, f := range files.Items {
		require.Equal(t, f.Bytes, objects[f.Key], "%s as indexed", f.Key)
		_, ok := objects[f.IndexKey]
		require.True(t, ok, "the index %s is stored", f.IndexKey)
		delete(objects, f.Key)
		delete(objects, f.IndexKey)
		path := filepath.Join(t.TempDir(), f.Name)
		require.NoError(t, os.WriteFile(path, c.s3.read(t, f.Key), 0o644))
		warciotest.Verify(t, warcio, path, f.Name)
		records += f.Records
	}
	require.Empty(t, objects, "nothing under warc/ the index does not name")
	require.Equal(t, stored, records)
	t.Logf("%d pages of %d items in %d WARC files on S3", stored, len(items), len(files.Items))
}
