//go:build unix

package benchmem

import (
	"os"
	"runtime"
	"syscall"
	"time"
)

// ChildMaxRSS returns a finished child's peak resident set in bytes from
// its rusage, 0 when there is none. On Linux this is at least the parent's
// RSS when the child was started (exec keeps the high-water mark), so a
// child that can report its own (ReportPeakRSS) should.
func ChildMaxRSS(ps *os.ProcessState) int64 {
	if ps == nil {
		return 0
	}
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok {
		return 0
	}
	if runtime.GOOS == "darwin" || runtime.GOOS == "ios" {
		return int64(ru.Maxrss) // bytes there
	}
	return int64(ru.Maxrss) * 1024 // KiB on Linux and the BSDs
}

// CPUTime returns the CPU time, user and system, this process has used,
// 0 when unknown. Throughput per CPU second is steadier than per wall
// second on a shared machine, where wall time also counts the time other
// processes held the core.
func CPUTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// OffHeap returns n bytes of anonymous memory outside the Go heap and the
// function that frees them, so that a benchmark's input neither counts in
// heap samples nor raises the GC's target (which follows the live heap).
// Where the memory cannot be mapped it falls back on an ordinary slice.
func OffHeap(n int) ([]byte, func()) {
	b, err := syscall.Mmap(-1, 0, n, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		return make([]byte, n), func() {}
	}
	return b, func() { _ = syscall.Munmap(b) }
}
