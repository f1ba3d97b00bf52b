//go:build unix

package discover

import (
	"syscall"
	"time"
)

// processCPUTime is the CPU time the process has used. Benchmarks report
// it per operation beside wall time, because on a shared machine wall time
// also counts the time other processes held the core.
func processCPUTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
