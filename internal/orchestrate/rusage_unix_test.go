//go:build unix

package orchestrate_test

import (
	"os"
	"runtime"
	"syscall"
)

// maxRSS is a finished child's peak resident set in bytes. On Linux it is
// at least the parent's RSS when the child was started (exec keeps the
// high-water mark), so the child reports its own (selfPeakRSS) and this is
// the fallback.
func maxRSS(ps *os.ProcessState) int64 {
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok {
		return 0
	}
	if runtime.GOOS == "darwin" || runtime.GOOS == "ios" {
		return int64(ru.Maxrss) // bytes there
	}
	return int64(ru.Maxrss) * 1024 // KiB on Linux and the BSDs
}

// offHeap returns n bytes of anonymous memory outside the Go heap, so a
// benchmark's input neither counts in heap samples nor raises the GC's
// target (which follows the live heap).
func offHeap(n int) ([]byte, func()) {
	b, err := syscall.Mmap(-1, 0, n, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		return make([]byte, n), func() {}
	}
	return b, func() { _ = syscall.Munmap(b) }
}
