package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine"
	"github.com/seedengine/seedengine/internal/blobstore"
	"github.com/seedengine/seedengine/internal/layout"
	"github.com/seedengine/seedengine/internal/sqlstore"
)

// rawFile is a dataset file for partition p with one record per URL,
// classified as research would write it.
func rawFile(p seedengine.Partition, records ...seedengine.DatasetRecord) []byte {
	ds := seedengine.Dataset{
		Meta: seedengine.DatasetMeta{
			DatasetID: p.Country + "-" + p.Category + "-" + p.Date + "-0001",
			Country:   strings.ToUpper(p.Country), Category: p.Category, Date: p.Date,
			ResearchMethods: []string{"import"}, Queries: []string{},
			Engine:      seedengine.EngineInfo{Name: "legacy", Version: "1"},
			RecordCount: len(records),
		},
		Records: records,
	}
	var b bytes.Buffer
	if _, err := ds.WriteTo(&b); err != nil {
		panic(err)
	}
	return b.Bytes()
}

func govRecord(host string) seedengine.DatasetRecord {
	return seedengine.DatasetRecord{
		RawURL: "https://www." + host + "/", NormalizedURL: "https://www." + host + "/",
		NormalizedDomain: host, DomainID: "gov:sg:" + host, Authority: seedengine.AuthorityGov,
		AuthorityRule: "suffix:gov.sg", SourceType: "government", Confidence: 0.9,
	}
}

func writeTree(t *testing.T, root string, files map[string][]byte) {
	t.Helper()
	for rel, b := range files {
		path := filepath.Join(root, filepath.FromSlash(rel))
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, b, 0o644))
	}
}

// uploadEnv is a data directory and a tree to upload from.
type uploadEnv struct {
	dataDir, tree string
	args          []string
}

func newUploadEnv(t *testing.T) *uploadEnv {
	t.Helper()
	e := &uploadEnv{dataDir: t.TempDir(), tree: t.TempDir()}
	e.args = []string{"--data-dir", e.dataDir, "--log-format", "json"}
	sg := seedengine.Partition{Country: "sg", Category: "news", Date: "2026-01-28"}
	jp := seedengine.Partition{Country: "jp", Category: "policy", Date: "2026-01-27"}
	noDomainID := govRecord("mof.gov.sg")
	noDomainID.DomainID, noDomainID.Authority = "", ""
	writeTree(t, e.tree, map[string][]byte{
		"raw/country=sg/category=news/date=2026-01-28/raw_0001.json":         rawFile(sg, govRecord("mom.gov.sg"), govRecord("moh.gov.sg"), govRecord("mom.gov.sg")),
		"raw/country=sg/category=news/date=2026-01-28/raw_0001.json.success": {},
		"raw/country=sg/category=news/date=2026-01-28/raw_0002.json":         rawFile(sg, govRecord("mas.gov.sg")),
		"raw/country=sg/category=news/date=2026-01-28/raw_0003.json":         rawFile(sg, noDomainID),
		"raw/country=jp/category=policy/date=2026-01-27/raw_0001.json":       rawFile(sg, govRecord("mom.gov.sg")), // meta names sg
		"raw/country=jp/category=policy/date=2026-01-27/raw_0002.json":       []byte(`{"meta": {"country": "JP"`),
		"raw/country=jp/category=policy/date=2026-01-27/raw_0003.json":       rawFile(jp), // no records
		"raw/country=jp/category=policy/date=2026-01-27/notes.txt":           []byte("stray"),
		"raw/country=jp/category=policy/date=2026-01-27/raw_0004.json.tmp":   []byte("{}"),
		"README.md": []byte("# exported research\n"),
		"raw/country=zz/category=news/date=2026-01-28/raw_0001.json": rawFile(sg, govRecord("mom.gov.sg")),
	})
	return e
}

func (e *uploadEnv) run(t *testing.T, extra ...string) (string, string, error) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	args := append(append([]string{"upload"}, e.args...), extra...)
	args = append(args, e.tree)
	err := run(t.Context(), args, func(string) string { return "" }, &stdout, &stderr)
	return stdout.String(), stderr.String(), err
}

// open opens the data directory's stores as serve would; the caller
// closes them.
func (e *uploadEnv) open(t *testing.T) *process {
	t.Helper()
	c, _, err := parseConfig("serve", "", groupStore|groupQueue|groupDiscover, []string{"--data-dir", e.dataDir}, func(string) string { return "" }, nil, nil)
	require.NoError(t, err)
	a, err := openApp(t.Context(), c, newLogger(c, &bytes.Buffer{}), nil)
	require.NoError(t, err)
	return a
}

func storedKeys(t *testing.T, blobs *blobstore.Store) []string {
	t.Helper()
	var keys []string
	require.NoError(t, blobs.List(context.Background(), layout.RawRoot, func(o blobstore.Object) error {
		keys = append(keys, o.Key)
		return nil
	}))
	return keys
}

func TestUpload(t *testing.T) {
	t.Parallel()
	e := newUploadEnv(t)

	// Chunk 2 of sg/news is in the store already, with other content that
	// must not be overwritten.
	{
		a := e.open(t)
		_, err := a.Blobs.Put(t.Context(), "raw/country=sg/category=news/date=2026-01-28/raw_0002.json", strings.NewReader(`{"keep":"me"}`), "")
		require.NoError(t, err)
		a.close()
	}

	stdout, stderr, err := e.run(t)
	require.ErrorContains(t, err, "3 of 6 files were invalid")
	require.Contains(t, stdout, "raw files found:   6")
	require.Contains(t, stdout, "uploaded: 2 (")
	require.Contains(t, stdout, "skipped, already in the store: 1")
	require.Contains(t, stdout, "invalid:           3")
	require.Contains(t, stdout, "raw/country=jp/category=policy/date=2026-01-27/raw_0001.json: meta.country")
	require.Contains(t, stdout, "raw/country=jp/category=policy/date=2026-01-27/raw_0002.json: ")
	require.Contains(t, stdout, "raw/country=jp/category=policy/date=2026-01-27/raw_0003.json: records")
	require.Contains(t, stdout, "ignored (not raw_NNNN.json in the layout): 5")
	for _, ignored := range []string{"README.md", "notes.txt", "raw_0004.json.tmp", "raw_0001.json.success", "country=zz"} {
		require.Contains(t, stdout, ignored)
	}
	// stderr is not a terminal here: one plain line per file.
	require.Contains(t, stderr, "upload: [1/6] ")
	require.Contains(t, stderr, "upload: [6/6] ")
	require.NotContains(t, stderr, "\r")

	a := e.open(t)
	defer a.close()
	require.Equal(t, []string{
		"raw/country=sg/category=news/date=2026-01-28/raw_0001.json",
		"raw/country=sg/category=news/date=2026-01-28/raw_0002.json",
		"raw/country=sg/category=news/date=2026-01-28/raw_0003.json",
	}, storedKeys(t, a.Blobs), "no .success checkpoint: upload is not the seed file processor")
	rc, _, err := a.Blobs.NewReader(t.Context(), "raw/country=sg/category=news/date=2026-01-28/raw_0002.json")
	require.NoError(t, err)
	var kept bytes.Buffer
	_, _ = kept.ReadFrom(rc)
	rc.Close()
	require.Equal(t, `{"keep":"me"}`, kept.String(), "an existing chunk is never overwritten")

	// Indexed with an upload origin, and the domains registered, so the
	// research reads see the upload.
	sg := seedengine.Partition{Country: "sg", Category: "news", Date: "2026-01-28"}
	rp, err := a.Research.FindResearchPartition(t.Context(), sg, 50, 0)
	require.NoError(t, err)
	require.Len(t, rp.ChunkList, 2)
	for _, c := range rp.ChunkList {
		require.Equal(t, "upload:"+c.Key, c.Origin)
		require.False(t, c.Completed, "not processed by the seed file processor")
	}
	require.Equal(t, 4, rp.Records)
	var ids []string
	for _, d := range rp.DomainList {
		ids = append(ids, d.ID)
	}
	require.Equal(t, []string{"gov:sg:mof.gov.sg", "gov:sg:moh.gov.sg", "gov:sg:mom.gov.sg"}, ids,
		"a record without a domain_id is classified from its URL")

	// A second run finds everything in place.
	stdout, _, err = e.run(t)
	require.Error(t, err, "the invalid files are still invalid")
	require.Contains(t, stdout, "uploaded: 0 (")
	require.Contains(t, stdout, "skipped, already in the store: 3")
}

func TestUploadDryRunWritesNothing(t *testing.T) {
	t.Parallel()
	e := newUploadEnv(t)
	stdout, stderr, err := e.run(t, "--dry-run")
	require.ErrorContains(t, err, "3 of 6 files were invalid")
	require.Contains(t, stdout, "valid, not uploaded (dry run): 3 (")
	require.Contains(t, stderr, ": valid\n")

	// Nothing was written: no object and no database.
	_, statErr := os.Stat(filepath.Join(e.dataDir, "seedengine.db"))
	require.ErrorIs(t, statErr, os.ErrNotExist)
	a := e.open(t)
	defer a.close()
	require.Empty(t, storedKeys(t, a.Blobs))
}

func TestUploadOnlyValidFilesSucceeds(t *testing.T) {
	t.Parallel()
	tree := t.TempDir()
	sg := seedengine.Partition{Country: "sg", Category: "news", Date: "2026-01-28"}
	writeTree(t, filepath.Join(tree, "raw"), map[string][]byte{
		"country=sg/category=news/date=2026-01-28/raw_0007.json": rawFile(sg, govRecord("mom.gov.sg")),
	})
	dataDir := t.TempDir()
	var stdout bytes.Buffer
	// DIR may be the raw directory itself.
	err := run(t.Context(), []string{"upload", "--data-dir", dataDir, filepath.Join(tree, "raw")}, func(string) string { return "" }, &stdout, &bytes.Buffer{})
	require.NoError(t, err, stdout.String())
	require.Contains(t, stdout.String(), "uploaded: 1 (")

	db, err := sqlstore.Open(t.Context(), "sqlite:"+filepath.Join(dataDir, "seedengine.db"))
	require.NoError(t, err)
	defer db.Close()
	chunks, err := sqlstore.NewDatasetIndex(db).FindIndexedChunks(t.Context(), &sg)
	require.NoError(t, err)
	require.Len(t, chunks, 1)
	require.Equal(t, 7, chunks[0].Chunk)
	require.Equal(t, 1, chunks[0].Records)
}

func TestUploadUsage(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"upload"},
		{"upload", "a", "b"},
		{"upload", "/no/such/dir"},
		{"upload", "--jobs", "0", "."},
	} {
		err := run(t.Context(), append(args, "--data-dir", t.TempDir()), func(string) string { return "" }, &bytes.Buffer{}, &bytes.Buffer{})
		require.Error(t, err, "%v", args)
		require.Equal(t, 2, exitCode(err), "%v: %v", args, err)
	}
}

func TestUploadProgressOnATerminal(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	p := &progress{w: &out, tty: true, total: 2}
	rep := &uploadReport{}
	p.step(uploadFile{key: "raw/a"}, outcomeInvalid, "records: a dataset needs at least one record", rep)
	p.step(uploadFile{key: "raw/b"}, outcomeUploaded, "", rep)
	p.done()
	s := out.String()
	require.Contains(t, s, "\r\033[K[===============               ] 1/2 files", "the bar is redrawn in place")
	require.Contains(t, s, "\r\033[K[==============================] 2/2 files")
	require.Contains(t, s, "invalid: raw/a: records: a dataset needs at least one record\n", "invalid files stay on screen")
	require.True(t, strings.HasSuffix(s, "\n"))
}

func TestAuthorityRulesSetting(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	good := filepath.Join(dir, "rules.json")
	require.NoError(t, os.WriteFile(good, []byte(`{"rules": [{"match": "example.org", "authority": "ngo", "note": "ours"}]}`), 0o644))
	bad := filepath.Join(dir, "bad.json")
	require.NoError(t, os.WriteFile(bad, []byte(`{"rules": [{"match": "example.org", "authority": "royal"}]}`), 0o644))

	parse := func(env map[string]string) *Config {
		c, _, err := parseConfig("worker", "", groupStore|groupQueue|groupDiscover, []string{"--data-dir", dir}, envMap(env), nil, nil)
		require.NoError(t, err)
		return c
	}
	cl, err := newClassifier(parse(map[string]string{"SEEDENGINE_AUTHORITY_RULES": good}))
	require.NoError(t, err)
	rec, err := cl.Analyze("https://www.example.org/about", "sg")
	require.NoError(t, err)
	require.Equal(t, seedengine.AuthorityNGO, rec.Authority)
	require.Equal(t, "domain:example.org", rec.AuthorityRule)

	for _, path := range []string{bad, filepath.Join(dir, "missing.json")} {
		_, err = newClassifier(parse(map[string]string{"SEEDENGINE_AUTHORITY_RULES": path}))
		require.ErrorContains(t, err, "--authority-rules")
		require.Equal(t, 2, exitCode(err))
	}
}
