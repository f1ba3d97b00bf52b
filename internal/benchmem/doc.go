// Package benchmem holds what the benchmarks of several packages share to
// measure memory and CPU time.
//
// A benchmark reports two memory figures. The peak heap (SampleHeap) is the
// highest count of heap object bytes, sampled every millisecond while the
// benchmark runs, in the benchmark's own process. The peak RSS
// (ReportChildPeakRSS) is the maximum resident set of a child process,
// the test binary run again by Main to do one operation and nothing else,
// so that it counts the Go runtime and the code under test but not the
// testing framework or the benchmark's other inputs. Where the system tells
// a process its own high-water mark (Linux: VmHWM) the child can print it
// with ReportPeakRSS; otherwise the parent falls back on the child's
// rusage (ChildMaxRSS).
//
// OffHeap holds a benchmark's input outside the Go heap, so that it neither
// counts in the heap samples nor raises the garbage collector's target, and
// CPUTime gives the process's CPU time, steadier than wall time on a shared
// machine.
//
// The package is meant for _test.go files only.
package benchmem
