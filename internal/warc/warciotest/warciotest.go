// Package warciotest has Webrecorder's warcio (npm, pinned in
// internal/warc/testdata/warcio) read WARC files for tests outside
// internal/warc: an independent reader that must parse every record and
// find every digest right.
package warciotest

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// Record is one record as warcio read it.
type Record struct {
	Type            string   `json:"type"`
	URI             *string  `json:"uri"`
	ID              string   `json:"id"`
	ConcurrentTo    []string `json:"concurrentTo"`
	RefersTo        *string  `json:"refersTo"`
	Offset          int64    `json:"offset"`
	Length          int64    `json:"length"`
	BlockDigestOK   bool     `json:"blockDigestOK"`
	PayloadDigestOK *bool    `json:"payloadDigestOK"`
	PayloadDigest   *string  `json:"payloadDigest"`
	Status          *int     `json:"status"`
}

// Report is what warcio found in a file: its records, the entries of
// its own CDX indexer and the CDXJ lines it writes for them (in file
// order, without the newline; what warcio cdx-index prints), and the
// digests that did not match.
type Report struct {
	Records []Record         `json:"records"`
	CDX     []map[string]any `json:"cdx"`
	CDXJ    []string         `json:"cdxj"`
	Errors  []string         `json:"errors"`
}

// Dir is where the pinned warcio is installed ($SEEDENGINE_WARCIO_DIR,
// which .ci/run sets). Without it, or without node, the test skips, and
// under CI=true fails.
func Dir(t testing.TB) string {
	t.Helper()
	dir := os.Getenv("SEEDENGINE_WARCIO_DIR")
	_, nodeErr := exec.LookPath("node")
	if dir != "" && nodeErr == nil {
		return dir
	}
	msg := "SEEDENGINE_WARCIO_DIR is not set"
	if nodeErr != nil {
		msg = "node is not installed"
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s: .ci/run installs warcio and sets it", msg)
	}
	t.Skipf("%s; .ci/run installs warcio", msg)
	return ""
}

// Run has warcio read the WARC file at path (named name in it) and
// returns what it found; err is its exit status, not nil when a digest
// does not match. The test fails when warcio cannot run or read it.
func Run(t testing.TB, dir, path, name string) (Report, error) {
	t.Helper()
	_, self, _, _ := runtime.Caller(0)
	script := filepath.Join(filepath.Dir(self), "..", "testdata", "warcio", "verify.mjs")
	cmd := exec.Command("node", script, dir, path, name)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	var rep Report
	if jerr := json.Unmarshal(out, &rep); jerr != nil {
		t.Fatalf("warcio on %s: printed %q (%v); stderr %s", name, out, jerr, stderr.String())
	}
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatalf("warcio on %s: %v; stderr %s", name, err, stderr.String())
	}
	return rep, err
}

// Verify is Run that fails the test when a digest does not match.
func Verify(t testing.TB, dir, path, name string) Report {
	t.Helper()
	rep, err := Run(t, dir, path, name)
	if err != nil || len(rep.Errors) > 0 {
		t.Fatalf("warcio on %s: %v %v", name, err, rep.Errors)
	}
	return rep
}
