package httpapi_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/blobstore"
	"github.com/seedengine/seedengine/internal/dataset"
	"github.com/seedengine/seedengine/internal/dataset/datasettest"
	"github.com/seedengine/seedengine/internal/httpapi"
	"github.com/seedengine/seedengine/internal/httpapi/httpapitest"
	"github.com/seedengine/seedengine/internal/layout"
	"github.com/seedengine/seedengine/internal/sqlstore"
	"github.com/seedengine/seedengine/internal/sqlstore/sqlstoretest"
)

// dsEnv is a server with the real dataset service over a real object
// store, and a key of each scope.
type dsEnv struct {
	*env
	blobs              *blobstore.Store
	index              seedengine.DatasetIndex
	read, write, admin string
}

type dsOpts struct {
	file    bool          // file store in a temporary directory instead of mem://
	sql     bool          // the SQLite index instead of the in-memory one
	maxBody int64         // Config.MaxDatasetBytes when set
	timeout time.Duration // Config.BodyReadTimeout when set
}

func setupDatasets(t *testing.T, o dsOpts) *dsEnv {
	t.Helper()
	url := "mem://"
	if o.file {
		url = "file://" + t.TempDir()
	}
	bs, err := blobstore.Open(context.Background(), url)
	require.NoError(t, err)
	t.Cleanup(func() { _ = bs.Close() })
	var index seedengine.DatasetIndex = datasettest.NewIndex()
	if o.sql {
		index = sqlstore.NewDatasetIndex(sqlstoretest.OpenSQLite(t))
	}
	svc := dataset.New(bs, index, nil)
	svc.TempDir = t.TempDir()
	e := setup(t, func(c *httpapi.Config, d *httpapi.Deps) {
		d.Datasets = svc
		if o.maxBody > 0 {
			c.MaxDatasetBytes = o.maxBody
		}
		c.BodyReadTimeout = o.timeout
	})
	return &dsEnv{
		env:   e,
		blobs: bs,
		index: index,
		read:  e.keys.mustCreate(t, "reader", seedengine.ScopeRead),
		write: e.keys.mustCreate(t, "writer", seedengine.ScopeWrite),
		admin: e.keys.mustCreate(t, "admin", seedengine.ScopeAdmin),
	}
}

func (e *dsEnv) save(t *testing.T, country, category, date, body string) response {
	t.Helper()
	return e.do(t, request{Method: http.MethodPost, Path: "/api/v1/datasets/" + country + "/" + category + "/" + date, Token: e.write, Body: body})
}

func (e *dsEnv) putObject(t *testing.T, key, content string) {
	t.Helper()
	_, err := e.blobs.Put(context.Background(), key, strings.NewReader(content), "")
	require.NoError(t, err)
}

func (e *dsEnv) exists(t *testing.T, key string) bool {
	t.Helper()
	ok, err := e.blobs.Exists(context.Background(), key)
	require.NoError(t, err)
	return ok
}

func dsDecode[T any](t *testing.T, r response) T {
	t.Helper()
	var v T
	require.NoError(t, json.Unmarshal(r.Body, &v), string(r.Body))
	return v
}

type dsList[T any] struct {
	Items  []T `json:"items"`
	Total  int `json:"total"`
	Limit  int `json:"limit"`
	Offset int `json:"offset"`
}

func TestDatasetSaveAndReadBack(t *testing.T) {
	t.Parallel()
	e := setupDatasets(t, dsOpts{})
	body := httpapitest.DatasetBody("sg", "news", "2026-01-28", 3)

	r := e.save(t, "SG", "news", "2026-01-28", body) // any case in the path
	require.Equal(t, http.StatusCreated, r.StatusCode, string(r.Body))
	c := dsDecode[seedengine.ChunkInfo](t, r)
	require.Equal(t, "raw/country=sg/category=news/date=2026-01-28/raw_0001.json", c.Key)
	require.Equal(t, "raw_0001", c.Name)
	require.Equal(t, 1, c.Chunk)
	require.Equal(t, 3, c.Records)
	require.Equal(t, int64(len(body)), c.Bytes)
	require.Equal(t, "/api/v1/datasets/sg/news/2026-01-28/raw_0001", r.Header.Get("Location"))

	r = e.save(t, "sg", "news", "2026-01-28", httpapitest.DatasetBody("sg", "news", "2026-01-28", 1))
	require.Equal(t, http.StatusCreated, r.StatusCode, string(r.Body))
	require.Equal(t, 2, dsDecode[seedengine.ChunkInfo](t, r).Chunk, "the next free number")
	require.Equal(t, "/api/v1/datasets/sg/news/2026-01-28/raw_0002", r.Header.Get("Location"))

	for _, form := range []string{"raw_0001", "raw_0001.json", "1", "0001"} {
		g := e.do(t, request{Path: "/api/v1/datasets/sg/news/2026-01-28/" + form, Token: e.read})
		require.Equal(t, http.StatusOK, g.StatusCode, form)
		require.Equal(t, body, string(g.Body), "byte for byte as sent (%s)", form)
		require.Equal(t, "application/json", g.Header.Get("Content-Type"))
		require.Equal(t, fmt.Sprint(len(body)), g.Header.Get("Content-Length"))
		require.NotEmpty(t, g.Header.Get("Last-Modified"))
	}

	h := e.do(t, request{Method: http.MethodHead, Path: "/api/v1/datasets/sg/news/2026-01-28/raw_0001", Token: e.read})
	require.Equal(t, http.StatusOK, h.StatusCode)
	require.Empty(t, h.Body)
	require.Equal(t, fmt.Sprint(len(body)), h.Header.Get("Content-Length"))

	r = e.do(t, request{Path: "/api/v1/datasets/sg/news/2026-01-28", Token: e.read})
	require.Equal(t, http.StatusOK, r.StatusCode, string(r.Body))
	chunks := dsDecode[dsList[seedengine.ChunkInfo]](t, r)
	require.Equal(t, 2, chunks.Total)
	require.Equal(t, 50, chunks.Limit)
	require.Equal(t, []string{"raw_0001", "raw_0002"}, []string{chunks.Items[0].Name, chunks.Items[1].Name})
	require.Equal(t, []int{3, 1}, []int{chunks.Items[0].Records, chunks.Items[1].Records})

	r = e.do(t, request{Path: "/api/v1/datasets/sg/news/2026-01-28?offset=9223372036854775807", Token: e.read})
	require.Equal(t, http.StatusOK, r.StatusCode, string(r.Body))
	require.Empty(t, dsDecode[dsList[seedengine.ChunkInfo]](t, r).Items)
	r = e.do(t, request{Path: "/api/v1/datasets?offset=9223372036854775807", Token: e.read})
	require.Equal(t, http.StatusOK, r.StatusCode, string(r.Body))
	require.Equal(t, 1, dsDecode[dsList[seedengine.PartitionSummary]](t, r).Total)

	r = e.do(t, request{Path: "/api/v1/datasets/sg/news/2026-01-28?limit=1&offset=1", Token: e.read})
	chunks = dsDecode[dsList[seedengine.ChunkInfo]](t, r)
	require.Equal(t, 2, chunks.Total)
	require.Len(t, chunks.Items, 1)
	require.Equal(t, 2, chunks.Items[0].Chunk)
}

func TestDatasetListAndStats(t *testing.T) {
	t.Parallel()
	e := setupDatasets(t, dsOpts{file: true})
	saves := []struct {
		country, category, date string
		records                 int
	}{
		{"sg", "news", "2026-01-28", 2},
		{"sg", "news", "2026-01-28", 3},
		{"sg", "news", "2026-01-29", 1},
		{"sg", "policy", "2026-01-28", 4},
		{"jp", "news", "2026-01-30", 5},
		{"intl", "news", "2026-01-28", 1},
	}
	bytesBy := map[string]int64{}
	var total int64
	for _, s := range saves {
		b := httpapitest.DatasetBody(s.country, s.category, s.date, s.records)
		r := e.save(t, s.country, s.category, s.date, b)
		require.Equal(t, http.StatusCreated, r.StatusCode, string(r.Body))
		bytesBy[s.country] += int64(len(b))
		total += int64(len(b))
	}
	// Files the engine did not write: skipped by listings.
	prefix := "raw/country=sg/category=news/date=2026-01-28/"
	e.putObject(t, prefix+layout.RawMetadataName, `{"files":2}`)
	e.putObject(t, prefix+".DS_Store", "junk")
	e.putObject(t, prefix+"raw_0002.json.tmp", "junk")
	e.putObject(t, "raw/country=sg/.DS_Store", "junk")
	e.putObject(t, "raw/country=sg/category=news/date=2026-13-01/raw_0001.json", "bad date")

	r := e.do(t, request{Path: "/api/v1/datasets", Token: e.read})
	require.Equal(t, http.StatusOK, r.StatusCode, string(r.Body))
	list := dsDecode[dsList[seedengine.PartitionSummary]](t, r)
	require.Equal(t, 5, list.Total)
	require.Equal(t, 50, list.Limit)
	var got []string
	for _, it := range list.Items {
		got = append(got, fmt.Sprintf("%s/%s/%s:%d/%d", it.Country, it.Category, it.Date, it.Chunks, it.Records))
	}
	require.Equal(t, []string{
		"intl/news/2026-01-28:1/1",
		"jp/news/2026-01-30:1/5",
		"sg/news/2026-01-28:2/5",
		"sg/news/2026-01-29:1/1",
		"sg/policy/2026-01-28:1/4",
	}, got)

	filtered := func(q string) []string {
		r := e.do(t, request{Path: "/api/v1/datasets?" + q, Token: e.read})
		require.Equal(t, http.StatusOK, r.StatusCode, string(r.Body))
		l := dsDecode[dsList[seedengine.PartitionSummary]](t, r)
		out := []string{fmt.Sprint(l.Total)}
		for _, it := range l.Items {
			out = append(out, it.Country+"/"+it.Category+"/"+it.Date)
		}
		return out
	}
	require.Equal(t, []string{"3", "sg/news/2026-01-28", "sg/news/2026-01-29", "sg/policy/2026-01-28"}, filtered("country=SG"))
	require.Equal(t, []string{"2", "sg/news/2026-01-28", "sg/news/2026-01-29"}, filtered("country=sg&category=news"))
	require.Equal(t, []string{"2", "jp/news/2026-01-30", "sg/news/2026-01-29"}, filtered("date_from=2026-01-29"))
	require.Equal(t, []string{"3", "intl/news/2026-01-28", "sg/news/2026-01-28", "sg/policy/2026-01-28"}, filtered("date_to=2026-01-28"))
	require.Equal(t, []string{"5", "sg/news/2026-01-28", "sg/news/2026-01-29"}, filtered("limit=2&offset=2"))
	require.Equal(t, []string{"0"}, filtered("country=fr"))

	r = e.do(t, request{Path: "/api/v1/datasets/stats", Token: e.read})
	require.Equal(t, http.StatusOK, r.StatusCode, string(r.Body))
	st := dsDecode[seedengine.DatasetStats](t, r)
	require.Equal(t, 5, st.Partitions)
	require.Equal(t, 6, st.Chunks)
	require.Equal(t, 16, st.Records)
	require.Equal(t, total, st.Bytes)
	require.Equal(t, seedengine.DatasetCount{Partitions: 3, Chunks: 4, Records: 10, Bytes: bytesBy["sg"]}, st.ByCountry["sg"])
	require.Equal(t, seedengine.DatasetCount{Partitions: 1, Chunks: 1, Records: 5, Bytes: bytesBy["jp"]}, st.ByCountry["jp"])
	require.Equal(t, 1, st.ByCountry["intl"].Records)
	require.Equal(t, 4, st.ByCategory["news"].Partitions)
	require.Equal(t, 12, st.ByCategory["news"].Records)
	require.Equal(t, 4, st.ByCategory["policy"].Records)

	r = e.do(t, request{Path: "/api/v1/datasets/sg/news/2026-01-28", Token: e.read})
	chunks := dsDecode[dsList[seedengine.ChunkInfo]](t, r)
	require.Equal(t, 2, chunks.Total, "raw_metadata.json and stray files are not chunks")
}

func TestDatasetStatsCountFilesUploadedByOtherMeans(t *testing.T) {
	t.Parallel()
	e := setupDatasets(t, dsOpts{sql: true})
	// Meta after the records and no record_count: counted record by record.
	e.putObject(t, "raw/country=de/category=news/date=2026-01-28/raw_0003.json",
		`{"records":[{"raw_url":"a"},{"raw_url":"b"}],"meta":{"country":"DE","category":"news","date":"2026-01-28"}}`)
	e.putObject(t, "raw/country=de/category=news/date=2026-01-28/raw_0003.json.success", "")
	r := e.do(t, request{Path: "/api/v1/datasets/stats", Token: e.read})
	require.Equal(t, http.StatusOK, r.StatusCode, string(r.Body))
	st := dsDecode[seedengine.DatasetStats](t, r)
	require.Equal(t, 2, st.Records)

	r = e.do(t, request{Path: "/api/v1/datasets/de/news/2026-01-28", Token: e.read})
	chunks := dsDecode[dsList[seedengine.ChunkInfo]](t, r)
	require.Len(t, chunks.Items, 1)
	require.True(t, chunks.Items[0].Completed)
	require.Equal(t, 2, chunks.Items[0].Records)

	// The next save goes above the uploaded chunk.
	r = e.save(t, "de", "news", "2026-01-28", httpapitest.DatasetBody("de", "news", "2026-01-28", 1))
	require.Equal(t, http.StatusCreated, r.StatusCode, string(r.Body))
	require.Equal(t, "raw_0004", dsDecode[seedengine.ChunkInfo](t, r).Name)
}

func TestDatasetSaveInvalidIs422AndWritesNothing(t *testing.T) {
	t.Parallel()
	e := setupDatasets(t, dsOpts{})
	good := httpapitest.DatasetBody("sg", "news", "2026-01-28", 3)
	tests := []struct {
		name, path, body, loc string
	}{
		{"bad domain_id", "sg/news/2026-01-28", strings.Replace(good, `"gov:sg:site2.gov.sg"`, `"gov:sg"`, 1), "body.records[2].domain_id"},
		{"missing raw_url", "sg/news/2026-01-28", strings.Replace(good, `"raw_url":"https://www.site1.gov.sg/news?a=1&b=2",`, ``, 1), "body.records[1].raw_url"},
		{"wrong country", "sg/news/2026-01-28", httpapitest.DatasetBody("jp", "news", "2026-01-28", 1), "body.meta.country"},
		{"wrong category", "sg/news/2026-01-28", httpapitest.DatasetBody("sg", "policy", "2026-01-28", 1), "body.meta.category"},
		{"wrong date", "sg/news/2026-01-28", httpapitest.DatasetBody("sg", "news", "2026-01-27", 1), "body.meta.date"},
		{"count", "sg/news/2026-01-28", strings.Replace(good, `"record_count":3`, `"record_count":4`, 1), "body.meta.record_count"},
		{"confidence", "sg/news/2026-01-28", strings.Replace(good, `"confidence":0.9`, `"confidence":9`, 1), "body.records[0].confidence"},
		{"no records", "sg/news/2026-01-28", httpapitest.DatasetBody("sg", "news", "2026-01-28", 0), "body.records"},
		{"bad country path", "xx/news/2026-01-28", good, "path.country"},
		{"bad category path", "sg/News/2026-01-28", good, "path.category"},
		{"bad date path", "sg/news/2026-02-30", good, "path.date"},
	}
	for _, tt := range tests {
		r := e.do(t, request{Method: http.MethodPost, Path: "/api/v1/datasets/" + tt.path, Token: e.write, Body: tt.body})
		p := r.Problem(t, http.StatusUnprocessableEntity, "invalid")
		require.Equal(t, []string{tt.loc}, locations(p), tt.name)
	}
	for _, body := range []string{`{"meta":`, `not json`, good + `{}`, ``} {
		r := e.do(t, request{Method: http.MethodPost, Path: "/api/v1/datasets/sg/news/2026-01-28", Token: e.write, Body: body})
		r.Problem(t, http.StatusUnprocessableEntity, "invalid")
	}
	n := 0
	require.NoError(t, e.blobs.List(context.Background(), "", func(blobstore.Object) error { n++; return nil }))
	require.Zero(t, n, "nothing was written")
	e.do(t, request{Path: "/api/v1/datasets/sg/news/2026-01-28", Token: e.read}).Problem(t, http.StatusNotFound, "not_found")
}

func TestDatasetSaveOverTheBodyLimitIs413(t *testing.T) {
	t.Parallel()
	e := setupDatasets(t, dsOpts{maxBody: 4096})
	big := httpapitest.DatasetBody("sg", "news", "2026-01-28", 40)
	require.Greater(t, len(big), 4096)
	r := e.save(t, "sg", "news", "2026-01-28", big)
	r.Problem(t, http.StatusRequestEntityTooLarge, "too_large")
	// Without a Content-Length the limit trips while streaming.
	r = e.do(t, request{Method: http.MethodPost, Path: "/api/v1/datasets/sg/news/2026-01-28", Token: e.write,
		Body: io.MultiReader(strings.NewReader(big))})
	r.Problem(t, http.StatusRequestEntityTooLarge, "too_large")
	require.False(t, e.exists(t, "raw/country=sg/category=news/date=2026-01-28/raw_0001.json"))
}

func TestDatasetConcurrentSavesGetDistinctNumbers(t *testing.T) {
	t.Parallel()
	for _, o := range []dsOpts{{}, {file: true}, {file: true, sql: true}} {
		t.Run(fmt.Sprintf("file=%v/sql=%v", o.file, o.sql), func(t *testing.T) {
			t.Parallel()
			e := setupDatasets(t, o)
			const writers = 10
			names := make([]string, writers)
			var wg sync.WaitGroup
			for i := range writers {
				wg.Go(func() {
					req, _ := http.NewRequest(http.MethodPost, e.ts.URL+"/api/v1/datasets/sg/news/2026-01-28",
						strings.NewReader(httpapitest.DatasetBody("sg", "news", "2026-01-28", i+1)))
					req.Header.Set("Authorization", "Bearer "+e.write)
					req.Header.Set("Content-Type", "application/json")
					resp, err := e.ts.Client().Do(req)
					if err != nil {
						return
					}
					defer resp.Body.Close()
					var c seedengine.ChunkInfo
					if resp.StatusCode == http.StatusCreated && json.NewDecoder(resp.Body).Decode(&c) == nil {
						names[i] = c.Name
					}
				})
			}
			wg.Wait()
			seen := map[string]bool{}
			for _, n := range names {
				require.NotEmpty(t, n)
				require.False(t, seen[n], "%s handed out twice", n)
				seen[n] = true
			}
			r := e.do(t, request{Path: "/api/v1/datasets/sg/news/2026-01-28", Token: e.read})
			require.Equal(t, writers, dsDecode[dsList[seedengine.ChunkInfo]](t, r).Total)
		})
	}
}

func TestDatasetDeleteIsAdminOnlyAndRemovesTheCheckpoint(t *testing.T) {
	t.Parallel()
	e := setupDatasets(t, dsOpts{file: true})
	for range 2 {
		r := e.save(t, "sg", "news", "2026-01-28", httpapitest.DatasetBody("sg", "news", "2026-01-28", 1))
		require.Equal(t, http.StatusCreated, r.StatusCode, string(r.Body))
	}
	key := "raw/country=sg/category=news/date=2026-01-28/raw_0001.json"
	e.putObject(t, key+layout.SuccessSuffix, "")
	path := "/api/v1/datasets/sg/news/2026-01-28/raw_0001"

	e.do(t, request{Method: http.MethodDelete, Path: path, Token: e.read}).Problem(t, http.StatusForbidden, "forbidden")
	e.do(t, request{Method: http.MethodDelete, Path: path, Token: e.write}).Problem(t, http.StatusForbidden, "forbidden")
	e.do(t, request{Method: http.MethodDelete, Path: path}).Problem(t, http.StatusUnauthorized, "unauthorized")
	require.True(t, e.exists(t, key))

	r := e.do(t, request{Method: http.MethodDelete, Path: path, Token: e.admin})
	require.Equal(t, http.StatusNoContent, r.StatusCode, string(r.Body))
	require.Empty(t, r.Body)
	require.False(t, e.exists(t, key))
	require.False(t, e.exists(t, key+layout.SuccessSuffix), "the checkpoint goes with the chunk")

	e.do(t, request{Path: path, Token: e.read}).Problem(t, http.StatusNotFound, "not_found")
	e.do(t, request{Method: http.MethodDelete, Path: path, Token: e.admin}).Problem(t, http.StatusNotFound, "not_found")
	r = e.do(t, request{Path: "/api/v1/datasets/sg/news/2026-01-28", Token: e.read})
	require.Equal(t, []string{"raw_0002"}, []string{dsDecode[dsList[seedengine.ChunkInfo]](t, r).Items[0].Name})

	// A deleted number is never overwritten while a later one exists.
	r = e.save(t, "sg", "news", "2026-01-28", httpapitest.DatasetBody("sg", "news", "2026-01-28", 1))
	require.Equal(t, "raw_0003", dsDecode[seedengine.ChunkInfo](t, r).Name)
}

func TestDatasetNotFoundAndBadPaths(t *testing.T) {
	t.Parallel()
	e := setupDatasets(t, dsOpts{})
	e.do(t, request{Path: "/api/v1/datasets/sg/news/2026-01-28", Token: e.read}).Problem(t, http.StatusNotFound, "not_found")
	e.do(t, request{Path: "/api/v1/datasets/sg/news/2026-01-28/raw_0001", Token: e.read}).Problem(t, http.StatusNotFound, "not_found")
	e.do(t, request{Path: "/api/v1/datasets/sg/news/2026-01-28/raw_12345.json", Token: e.read}).Problem(t, http.StatusNotFound, "not_found")

	for path, loc := range map[string]string{
		"/api/v1/datasets/zz/news/2026-01-28":                      "path.country",
		"/api/v1/datasets/sg/news/2026-1-28":                       "path.date",
		"/api/v1/datasets/sg/news/2026-01-28/raw_1":                "path.chunk",
		"/api/v1/datasets/sg/news/2026-01-28/raw_00001":            "path.chunk",
		"/api/v1/datasets/sg/news/2026-01-28/0":                    "path.chunk",
		"/api/v1/datasets/sg/news/2026-01-28/chunk.txt":            "path.chunk",
		"/api/v1/datasets/sg/news/2026-01-28/raw_0000":             "path.chunk",
		"/api/v1/datasets/sg/news/2026-01-28/1.json":               "path.chunk",
		"/api/v1/datasets?country=xx":                              "query.country",
		"/api/v1/datasets?category=A-B":                            "query.category",
		"/api/v1/datasets?date_from=2026-02-30":                    "query.date_from",
		"/api/v1/datasets?date_to=soon":                            "query.date_to",
		"/api/v1/datasets?date_from=2026-02-02&date_to=2026-02-01": "query.date_to",
	} {
		p := e.do(t, request{Path: path, Token: e.read}).Problem(t, http.StatusUnprocessableEntity, "invalid")
		require.Equal(t, []string{loc}, locations(p), path)
	}
	e.do(t, request{Path: "/api/v1/datasets?from=2026-01-01", Token: e.read}).Problem(t, http.StatusUnprocessableEntity, "invalid")
}

func TestDatasetRoutesWithoutServiceAre503(t *testing.T) {
	t.Parallel()
	e := setup(t)
	for _, path := range []string{"/api/v1/datasets", "/api/v1/datasets/stats", "/api/v1/datasets/sg/news/2026-01-28", "/api/v1/datasets/sg/news/2026-01-28/1"} {
		e.do(t, request{Path: path}).Problem(t, http.StatusServiceUnavailable, "unavailable")
	}
}

func TestDatasetRoutesInOpenAPI(t *testing.T) {
	t.Parallel()
	e := setup(t)
	r := e.do(t, request{Path: "/openapi.json"})
	var doc struct {
		Paths map[string]map[string]struct {
			RequestBody *struct {
				Content map[string]struct {
					Schema map[string]any `json:"schema"`
				} `json:"content"`
			} `json:"requestBody"`
			Responses map[string]struct {
				Content map[string]any `json:"content"`
			} `json:"responses"`
		} `json:"paths"`
	}
	require.NoError(t, json.Unmarshal(r.Body, &doc))
	save := doc.Paths["/api/v1/datasets/{country}/{category}/{date}"]["post"]
	require.NotNil(t, save.RequestBody, "the streamed body is documented")
	require.Contains(t, save.RequestBody.Content, "application/json")
	require.Contains(t, save.Responses, "201")
	require.Contains(t, save.Responses, "413")
	get := doc.Paths["/api/v1/datasets/{country}/{category}/{date}/{chunk}"]["get"]
	require.Contains(t, get.Responses["200"].Content, "application/json")
	require.Contains(t, get.Responses, "404")
	require.Contains(t, doc.Paths["/api/v1/datasets/{country}/{category}/{date}/{chunk}"]["delete"].Responses, "204")
}

// dsBigBody writes a valid dataset of n records for sg/news/2026-01-28 on
// the fly, so neither side of the test holds it whole.
type dsBigBody struct {
	n, i  int
	buf   bytes.Buffer
	state int
}

func (g *dsBigBody) Read(p []byte) (int, error) {
	for g.buf.Len() < len(p) && g.state < 2 {
		switch {
		case g.state == 0:
			fmt.Fprintf(&g.buf, `{"meta":{"country":"SG","category":"news","date":"2026-01-28","record_count":%d},"records":[`, g.n)
			g.state = 1
		case g.i == g.n:
			g.buf.WriteString(`]}`)
			g.state = 2
		default:
			if g.i > 0 {
				g.buf.WriteByte(',')
			}
			n := strconv.Itoa(g.i)
			g.buf.WriteString(`{"raw_url":"https://www` + n + `.agency.gov.sg/news/2026/01/28/article-` + n +
				`","normalized_url":"https://www` + n + `.agency.gov.sg/news/2026/01/28/article-` + n +
				`","normalized_domain":"agency.gov.sg","domain_id":"gov:sg:agency.gov.sg","authority":"gov",` +
				`"authority_rule":"suffix:gov.sg","source_type":"government","confidence":0.9,"content_hints":["news"]}`)
			g.i++
		}
	}
	if g.buf.Len() == 0 {
		return 0, io.EOF
	}
	return g.buf.Read(p)
}

type countingWriter struct{ n int64 }

func (c *countingWriter) Write(p []byte) (int, error) {
	c.n += int64(len(p))
	return len(p), nil
}

// dsHeapPeak samples the live heap until stopped and reports the highest
// value seen.
func dsHeapPeak() (stop func() uint64) {
	var peak atomic.Uint64
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(2 * time.Millisecond)
		defer t.Stop()
		for {
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			if ms.HeapAlloc > peak.Load() {
				peak.Store(ms.HeapAlloc)
			}
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	return func() uint64 {
		close(done)
		<-finished
		return peak.Load()
	}
}

// TestDatasetSaveAndGetOf20MBStream saves a 25 MB dataset and reads it
// back through the API while watching the heap: neither direction may hold
// the body, let alone twice. Not parallel, so the heap is this test's own.
func TestDatasetSaveAndGetOf20MBStream(t *testing.T) {
	if testing.Short() {
		t.Skip("moves 25 MB twice")
	}
	e := setupDatasets(t, dsOpts{file: true, maxBody: 64 << 20})
	const records = 75_000

	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	stop := dsHeapPeak()

	// The body is hashed as it is sent, and sent without a length, so it
	// exists only in flight.
	want := sha256.New()
	sent := &countingWriter{}
	req, err := http.NewRequest(http.MethodPost, e.ts.URL+"/api/v1/datasets/sg/news/2026-01-28",
		io.TeeReader(&dsBigBody{n: records}, io.MultiWriter(want, sent)))
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+e.write)
	req.Header.Set("Content-Type", "application/json")
	resp, err := e.ts.Client().Do(req)
	require.NoError(t, err)
	var c seedengine.ChunkInfo
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&c))
	resp.Body.Close()
	require.Equal(t, http.StatusCreated, resp.StatusCode)
	saved := stop()
	size := sent.n
	require.Greater(t, size, int64(20<<20))
	require.Equal(t, records, c.Records)
	require.Equal(t, size, c.Bytes)

	runtime.GC()
	stop = dsHeapPeak()
	req, err = http.NewRequest(http.MethodGet, e.ts.URL+resp.Header.Get("Location"), nil)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+e.read)
	resp, err = e.ts.Client().Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Equal(t, fmt.Sprint(size), resp.Header.Get("Content-Length"))
	got := sha256.New()
	n, err := io.Copy(got, resp.Body)
	require.NoError(t, err)
	read := stop()
	require.Equal(t, size, n)
	require.Equal(t, want.Sum(nil), got.Sum(nil), "read back byte for byte")

	growth := func(peak uint64) int64 { return int64(peak) - int64(before.HeapAlloc) }
	t.Logf("body %d MB; heap before %d MB, peak growth saving %d MB, reading %d MB",
		size>>20, before.HeapAlloc>>20, growth(saved)>>20, growth(read)>>20)
	// Half the body: holding it whole would be the whole body (and more);
	// a tighter bound trips on other tests' garbage in the shared heap.
	require.Less(t, growth(saved), size/2, "saving must stream, not hold the body")
	require.Less(t, growth(read), size/2, "reading must stream, not hold the body")
}

// brokenChunks is a DatasetService whose chunk fails half way through.
type brokenChunks struct{ seedengine.DatasetService }

func (brokenChunks) OpenChunk(context.Context, seedengine.Partition, int) (io.ReadCloser, seedengine.ChunkInfo, error) {
	r := io.MultiReader(strings.NewReader(`{"meta":{`), &failAfter{err: fmt.Errorf("read from %s: reset", secret)})
	return io.NopCloser(r), seedengine.ChunkInfo{Bytes: 1000, Name: "raw_0001"}, nil
}

type failAfter struct{ err error }

func (f *failAfter) Read([]byte) (int, error) { return 0, f.err }

func TestDatasetChunkFailingMidStreamAbortsTheResponse(t *testing.T) {
	t.Parallel()
	e := setup(t, func(_ *httpapi.Config, d *httpapi.Deps) { d.Datasets = brokenChunks{} })
	resp, err := e.ts.Client().Get(e.ts.URL + "/api/v1/datasets/sg/news/2026-01-28/raw_0001")
	if err == nil {
		// The headers made it out before the failure: the body must
		// end in an error, not look whole.
		_, err = io.ReadAll(resp.Body)
		resp.Body.Close()
	}
	require.Error(t, err, "the client must see the response cut off")
	require.Eventually(t, func() bool { return len(e.logs.lines(t, "http_error")) == 1 }, 5*time.Second, 10*time.Millisecond)
}

// POST /api/v1/datasets is the form the service description names: the
// partition is the one the dataset's meta names, validated like the path
// form's.
func TestDatasetSaveByBody(t *testing.T) {
	t.Parallel()
	e := setupDatasets(t, dsOpts{})
	saveBody := func(body string) response {
		return e.do(t, request{Method: http.MethodPost, Path: "/api/v1/datasets", Token: e.write, Body: body})
	}
	body := httpapitest.DatasetBody("sg", "news", "2026-01-28", 2)
	r := saveBody(body)
	require.Equal(t, http.StatusCreated, r.StatusCode, string(r.Body))
	c := dsDecode[seedengine.ChunkInfo](t, r)
	require.Equal(t, "raw/country=sg/category=news/date=2026-01-28/raw_0001.json", c.Key)
	require.Equal(t, 2, c.Records)
	require.Equal(t, "/api/v1/datasets/sg/news/2026-01-28/raw_0001", r.Header.Get("Location"))

	// Both forms write to the same partition's numbers.
	r = e.save(t, "sg", "news", "2026-01-28", httpapitest.DatasetBody("sg", "news", "2026-01-28", 1))
	require.Equal(t, http.StatusCreated, r.StatusCode, string(r.Body))
	require.Equal(t, 2, dsDecode[seedengine.ChunkInfo](t, r).Chunk)
	// meta after records is read to the end first.
	late := `{"records":[{"raw_url":"https://www.mom.gov.sg/"}],"meta":{"country":"JP","category":"policy","date":"2026-01-29","record_count":1}}`
	r = saveBody(late)
	require.Equal(t, http.StatusCreated, r.StatusCode, string(r.Body))
	require.Equal(t, "raw/country=jp/category=policy/date=2026-01-29/raw_0001.json", dsDecode[seedengine.ChunkInfo](t, r).Key)

	good := httpapitest.DatasetBody("sg", "news", "2026-01-28", 1)
	for _, tt := range []struct{ name, body, loc string }{
		{"lower-case country", strings.Replace(good, `"country":"SG"`, `"country":"sg"`, 1), "body.meta.country"},
		{"unknown country", strings.Replace(good, `"country":"SG"`, `"country":"ZZ"`, 1), "body.meta.country"},
		{"no country", strings.Replace(good, `"country":"SG",`, ``, 1), "body.meta.country"},
		{"bad category", strings.Replace(good, `"category":"news"`, `"category":"News!"`, 1), "body.meta.category"},
		{"bad date", strings.Replace(good, `"date":"2026-01-28"`, `"date":"2026-02-30"`, 1), "body.meta.date"},
		{"no meta", `{"records":[{"raw_url":"https://x.example/"}]}`, "body.meta"},
	} {
		p := saveBody(tt.body).Problem(t, http.StatusUnprocessableEntity, "invalid")
		require.Equal(t, []string{tt.loc}, locations(p), tt.name)
	}
	e.do(t, request{Method: http.MethodPost, Path: "/api/v1/datasets", Token: e.read, Body: good}).Problem(t, http.StatusForbidden, "forbidden")
}
