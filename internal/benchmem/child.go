package benchmem

import (
	"fmt"
	"os"
	"os/exec"
	"testing"
)

// Main is the body of a TestMain whose test binary doubles as the child of
// RunChild: when the environment variable env is set (non-empty) it exits
// with child's result for the variable's value, without running tests or
// benchmarks; otherwise it runs them as usual.
func Main(m *testing.M, env string, child func(value string) int) {
	if v := os.Getenv(env); v != "" {
		os.Exit(child(v))
	}
	os.Exit(m.Run())
}

// RunChild runs the current test binary again with env=value added to its
// environment (see Main), waits for it and returns its peak RSS in bytes:
// the figure it printed with ReportPeakRSS if it did, else ChildMaxRSS of
// the finished process, 0 where the system reports neither. A child that
// fails is an error carrying its combined output.
func RunChild(env, value string) (int64, error) {
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), env+"="+value)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return 0, fmt.Errorf("%w: %s", err, out)
	}
	if rss, ok := reportedPeakRSS(out); ok {
		return rss, nil
	}
	return ChildMaxRSS(cmd.ProcessState), nil
}

// ReportChildPeakRSS runs RunChild(env, value) and reports the child's peak
// RSS in MiB as metric unit of b; it logs instead when the child fails, and
// reports nothing when the system does not tell the figure.
func ReportChildPeakRSS(b *testing.B, unit, env, value string) {
	b.Helper()
	rss, err := RunChild(env, value)
	if err != nil {
		b.Logf("peak RSS not measured: %v", err)
		return
	}
	if rss > 0 {
		b.ReportMetric(MiB(rss), unit)
	}
}

// MiB converts bytes to mebibytes, the unit of the memory metrics.
func MiB[T ~int64 | ~uint64](n T) float64 { return float64(n) / (1 << 20) }
