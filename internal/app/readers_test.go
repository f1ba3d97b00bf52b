package app_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The export's independent readers: opmlparser and csv-parse (npm,
// pinned in testdata/readers), which .ci/run installs and names with
// $SEEDENGINE_READERS_DIR. Without it, or without node, a test using
// them skips, and under CI=true fails.

func readersDir(t testing.TB) string {
	t.Helper()
	dir := os.Getenv("SEEDENGINE_READERS_DIR")
	_, nodeErr := exec.LookPath("node")
	if dir != "" && nodeErr == nil {
		return dir
	}
	msg := "SEEDENGINE_READERS_DIR is not set"
	if nodeErr != nil {
		msg = "node is not installed"
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s: .ci/run installs the export's readers and sets it", msg)
	}
	t.Skipf("%s; .ci/run installs the export's readers", msg)
	return ""
}

// runReader runs testdata/readers/script on the bytes b and decodes what
// it prints into v.
func runReader(t testing.TB, script string, b []byte, v any) {
	t.Helper()
	dir := readersDir(t)
	path := filepath.Join(t.TempDir(), "export")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("node", filepath.Join("testdata", "readers", script), dir, path)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v; stderr %s", script, err, stderr.String())
	}
	if err := json.Unmarshal(out, v); err != nil {
		t.Fatalf("%s printed %q: %v", script, out, err)
	}
}

// opmlOutlineRead is one outline as opmlparser read it; Folder is the
// text of the group it is in.
type opmlOutlineRead struct {
	Text     string `json:"text"`
	Type     string `json:"type"`
	XMLURL   string `json:"xmlUrl"`
	HTMLURL  string `json:"htmlUrl"`
	URL      string `json:"url"`
	Category string `json:"category"`
	Folder   string `json:"folder"`
}

type opmlRead struct {
	Title    string            `json:"title"`
	Outlines []opmlOutlineRead `json:"outlines"`
	Errors   []string          `json:"errors"`
}

func readOPMLWithParser(t testing.TB, b []byte) opmlRead {
	t.Helper()
	var r opmlRead
	runReader(t, "read-opml.cjs", b, &r)
	return r
}

// readCSVWithParser has csv-parse read b: its records keyed by the header
// row, or the error that stopped it.
func readCSVWithParser(t testing.TB, b []byte) ([]map[string]string, string) {
	t.Helper()
	var r struct {
		Records []map[string]string `json:"records"`
		Error   string              `json:"error"`
	}
	runReader(t, "read-csv.cjs", b, &r)
	return r.Records, r.Error
}
