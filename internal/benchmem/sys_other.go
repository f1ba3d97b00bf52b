//go:build !unix

package benchmem

import (
	"os"
	"time"
)

// ChildMaxRSS returns 0: this system has no rusage to tell a child's peak
// resident set.
func ChildMaxRSS(*os.ProcessState) int64 { return 0 }

// CPUTime returns 0: this system has no rusage to tell the CPU time.
func CPUTime() time.Duration { return 0 }

// OffHeap returns an ordinary slice of n bytes and a no-op free: this
// system has no anonymous mmap, so the memory is on the Go heap.
func OffHeap(n int) ([]byte, func()) { return make([]byte, n), func() {} }
