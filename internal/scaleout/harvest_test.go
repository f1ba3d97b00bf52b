package scaleout_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine"
)

// The harvest on PostgreSQL and S3 (versitygw): active seeds' items are
// recorded, written as item files to the bucket, listed, served and
// exported through the API, and what the bucket holds under items/ is
// what the index names, line for line.
func TestHarvestOnS3(t *testing.T) {
	t.Parallel()
	harvest := []string{"--seed-check-interval", "1s", "--item-flush-interval", "1s", "--item-file-age", "1s", "--item-file-max-items", "7"}
	c := newCluster(t, clusterConfig{workers: 1, sites: 40, extra: harvest})
	c.dumpOnFailure(t)
	var ids []string
	for _, s := range c.web.take(t, 30, true) {
		if s.layout != "wordpress" || len(ids) == 6 {
			continue
		}
		domainID := "com:sg:" + s.host
		r := c.do(http.MethodPost, "/api/v1/seeds", map[string]any{"domain_id": domainID, "category": "news",
			"fetch": map[string]any{"type": "rss", "entry_url": "https://" + s.host + "/feed/", "schedule": "@hourly"}})
		require.Equal(t, http.StatusCreated, r.status, "%s", r.raw)
		id := domainID + "::news"
		r = c.do(http.MethodPost, "/api/v1/seeds/promote", map[string]any{"seedId": id})
		require.Equal(t, http.StatusOK, r.status, "%s", r.raw)
		ids = append(ids, id)
	}
	require.NotEmpty(t, ids)

	// Every seed read, every item in a written file.
	var items []seedengine.Item
	var parts []seedengine.ItemPartition
	poll(t, 3*time.Minute, 200*time.Millisecond, "items harvested and written", func() (bool, error) {
		for _, id := range ids {
			r := c.do(http.MethodGet, "/api/v1/seeds/"+url.PathEscape(id)+"/checks?limit=1", nil)
			if list, _ := r.body["items"].([]any); len(list) == 0 {
				return false, nil
			}
		}
		var page struct {
			Items []seedengine.ItemPartition `json:"items"`
		}
		r := c.do(http.MethodGet, "/api/v1/items/partitions?limit=100", nil)
		if err := json.Unmarshal(r.raw, &page); err != nil {
			return false, err
		}
		parts = page.Items
		total := 0
		for _, p := range parts {
			if p.Pending > 0 {
				return false, nil
			}
			total += p.Items
		}
		return total > 0, nil
	})
	r := c.do(http.MethodGet, "/api/v1/items?limit=1000", nil)
	require.Equal(t, http.StatusOK, r.status, "%s", r.raw)
	var page struct {
		Items []seedengine.Item `json:"items"`
	}
	require.NoError(t, json.Unmarshal(r.raw, &page))
	items = page.Items
	require.NotEmpty(t, items)

	stored := c.s3.objects(t, "items/")
	inFiles := 0
	for _, p := range parts {
		r := c.do(http.MethodGet, fmt.Sprintf("/api/v1/items/%s/%s/%s", p.Country, p.Category, p.Date), nil)
		var files struct {
			Items []seedengine.ItemFile `json:"items"`
		}
		require.NoError(t, json.Unmarshal(r.raw, &files))
		require.Len(t, files.Items, p.Files)
		for _, f := range files.Items {
			require.NotNil(t, f.WrittenAt)
			require.Equal(t, f.Bytes, stored[f.Key], "%s as indexed", f.Key)
			delete(stored, f.Key)
			body := c.s3.read(t, f.Key)
			served := c.do(http.MethodGet, fmt.Sprintf("/api/v1/items/%s/%s/%s/%s", p.Country, p.Category, p.Date, f.Name), nil)
			require.Equal(t, http.StatusOK, served.status)
			require.Equal(t, body, served.raw, "served as stored")
			sc := bufio.NewScanner(bytes.NewReader(body))
			for sc.Scan() {
				var it seedengine.Item
				require.NoError(t, json.Unmarshal(sc.Bytes(), &it))
				inFiles++
			}
		}
	}
	require.Empty(t, stored, "nothing under items/ the index does not name")
	require.Equal(t, len(items), inFiles)
	r = c.do(http.MethodGet, "/api/v1/items/export", nil)
	require.Equal(t, http.StatusOK, r.status)
	require.Equal(t, len(items), strings.Count(string(r.raw), "\n"))
	t.Logf("%d items of %d seeds in %d partitions on S3", len(items), len(ids), len(parts))
}
