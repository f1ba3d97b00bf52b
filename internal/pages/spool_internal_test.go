package pages

import (
	"testing"
	"testing/iotest"
	"time"

	"github.com/seedengine/seedengine/internal/warc"
)

// linesReader reads what joining its lines with newlines, and one after
// the last, would give, whatever the reads' sizes.
func TestLinesReader(t *testing.T) {
	lines := []string{"a b", "", "com,example)/ 20261127 {}", "x"}
	if err := iotest.TestReader(&linesReader{lines: lines}, []byte("a b\n\ncom,example)/ 20261127 {}\nx\n")); err != nil {
		t.Fatal(err)
	}
	if err := iotest.TestReader(&linesReader{}, nil); err != nil {
		t.Fatal(err)
	}
}

// A recovered spool keeps the index lines of the records its rows vouch
// for: indexExtent reads the offset, length and type of the lines
// warc.CDXJLine writes.
func TestIndexExtent(t *testing.T) {
	at := time.Date(2026, 11, 27, 8, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		rec     warc.Record
		revisit bool
	}{
		{warc.Record{Type: "response", TargetURI: "https://example.com/a", Date: at, Offset: 1234, Length: 567,
			PayloadDigest: "sha1:AAAA", Status: 200, MIME: "text/html"}, false},
		{warc.Record{Type: "revisit", TargetURI: "https://example.com/b \"q\"", Date: at, Offset: 99, Length: 1,
			PayloadDigest: "sha1:AAAA", Status: 200, MIME: "text/html"}, true},
	} {
		off, length, revisit, ok := indexExtent(warc.CDXJLine(tc.rec, "f.warc.gz"))
		if !ok || off != tc.rec.Offset || length != tc.rec.Length || revisit != tc.revisit {
			t.Errorf("%+v: got %d %d %v %v", tc.rec, off, length, revisit, ok)
		}
	}
	if _, _, _, ok := indexExtent("com,example)/ 20261127 {"); ok {
		t.Error("a broken line is not read")
	}
}
