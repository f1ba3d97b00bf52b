package warc

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine/internal/warc/warciotest"
)

// warcioDir is where package.json's pinned warcio is installed
// (warciotest.Dir: $SEEDENGINE_WARCIO_DIR, which .ci/run sets).
func warcioDir(t *testing.T) string { return warciotest.Dir(t) }

// runWarcio has warciotest run warcio on file; its error is warcio's
// exit status, not nil when a digest does not match.
func runWarcio(t *testing.T, dir string, file []byte) (warciotest.Report, error) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "sample.warc.gz")
	require.NoError(t, os.WriteFile(path, file, 0o644))
	return warciotest.Run(t, dir, path, "sample.warc.gz")
}

// TestWarcioReadsOurFiles has Webrecorder's warcio, an independent
// reader, parse a file we wrote: it must find every record at the offset
// and length we index, with the links between them, and the block and
// payload digests it computes must match ours; its own CDX indexer must
// give the lines CDXJLine gives.
func TestWarcioReadsOurFiles(t *testing.T) {
	t.Parallel()
	dir := warcioDir(t)
	s := writeSample(t)
	rep, err := runWarcio(t, dir, s.file)
	require.NoError(t, err, "errors: %v", rep.Errors)
	require.Empty(t, rep.Errors)

	ms := members(t, s.file)
	require.Len(t, rep.Records, len(ms))
	ids := map[string]string{}
	for i, r := range rep.Records {
		require.Equal(t, ms[i], member{r.Offset, r.Length}, "record %d (%s)", i, r.Type)
		require.True(t, r.BlockDigestOK, "record %d", i)
		if r.Type == "request" || r.Type == "response" {
			require.NotNil(t, r.PayloadDigestOK, "record %d", i)
			require.True(t, *r.PayloadDigestOK, "record %d", i)
		}
		ids[r.ID] = r.Type
	}
	for _, r := range rep.Records {
		for _, c := range r.ConcurrentTo {
			require.Contains(t, ids, c, "WARC-Concurrent-To of %s names a record in the file", r.ID)
		}
	}

	byOffset := map[int64]int{}
	for i, r := range rep.Records {
		byOffset[r.Offset] = i
	}
	for i, rec := range s.records {
		r := rep.Records[byOffset[rec.Offset]]
		require.Equal(t, rec.Type, r.Type)
		require.Equal(t, rec.RecordID, r.ID)
		require.Equal(t, rec.TargetURI, *r.URI)
		require.NotNil(t, r.Status)
		require.Equal(t, rec.Status, *r.Status)
		if rec.Type == "revisit" {
			require.Equal(t, s.records[0].RecordID, *r.RefersTo)
			require.Equal(t, s.records[0].PayloadDigest, *r.PayloadDigest)
		}
		if i < 2 {
			require.Len(t, r.ConcurrentTo, 1)
			require.Equal(t, "request", ids[r.ConcurrentTo[0]])
		}
	}

	// warcio's CDX indexer and ours agree, field for field. (warcio's
	// SURT is simpler than pywb's, so the sample's URLs are ones both
	// canonicalise alike.)
	require.Len(t, rep.CDX, len(s.records))
	for i, rec := range s.records {
		line := CDXJLine(rec, "sample.warc.gz")
		key, rest, _ := strings.Cut(line, " ")
		ts, js, _ := strings.Cut(rest, " ")
		var ours map[string]any
		require.NoError(t, json.Unmarshal([]byte(js), &ours))
		theirs := map[string]any{}
		for k, v := range rep.CDX[i] {
			if f, ok := v.(float64); ok { // warcio gives numbers, pywb strings
				v = strconv.FormatFloat(f, 'f', -1, 64)
			}
			theirs[k] = v
		}
		require.Equal(t, theirs["urlkey"], key)
		require.Equal(t, theirs["timestamp"], ts)
		delete(theirs, "urlkey")
		delete(theirs, "timestamp")
		require.Equal(t, theirs, ours, "cdx line %d", i)
	}
}

// TestWarcioCatchesCorruption checks that the warcio check can fail: one
// byte of a stored page changed (its gzip member recompressed, so the
// file still reads) must show as block and payload digest mismatches.
func TestWarcioCatchesCorruption(t *testing.T) {
	t.Parallel()
	dir := warcioDir(t)
	s := writeSample(t)
	rec := s.records[1]
	bad := corruptPayload(t, s.file, rec.Offset, rec.Length)

	rep, err := runWarcio(t, dir, bad)
	var exit *exec.ExitError
	require.ErrorAs(t, err, &exit)
	require.Equal(t, 1, exit.ExitCode())
	require.Len(t, rep.Errors, 2, "%v", rep.Errors)
	require.Contains(t, rep.Errors[0], "block digest mismatch in "+rec.RecordID)
	require.Contains(t, rep.Errors[1], "payload digest mismatch in "+rec.RecordID)
}
