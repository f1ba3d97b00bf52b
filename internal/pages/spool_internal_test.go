package pages

import (
	"testing"
	"testing/iotest"
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
