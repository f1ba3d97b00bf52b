package benchmem

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

// SelfPeakRSS returns this process's peak resident set in bytes where the
// system tells it (Linux: VmHWM in /proc/self/status, which starts afresh
// at exec, unlike getrusage's ru_maxrss that keeps the parent's), and 0
// where it does not.
func SelfPeakRSS() int64 {
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for line := range strings.Lines(string(status)) {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err != nil {
				return 0
			}
			return kb * 1024
		}
	}
	return 0
}

// peakRSSPrefix starts the line with which a child reports its peak RSS.
const peakRSSPrefix = "peak-rss="

// ReportPeakRSS writes SelfPeakRSS to w in the form RunChild reads back,
// or nothing when the system does not tell it. A child calls it last,
// after the work it measures; w is normally os.Stdout.
func ReportPeakRSS(w io.Writer) {
	if rss := SelfPeakRSS(); rss > 0 {
		fmt.Fprintf(w, "%s%d\n", peakRSSPrefix, rss)
	}
}

// reportedPeakRSS finds what ReportPeakRSS wrote in a child's output.
func reportedPeakRSS(out []byte) (int64, bool) {
	_, v, ok := strings.Cut(string(out), peakRSSPrefix)
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	if err != nil {
		return 0, false
	}
	return n, true
}
