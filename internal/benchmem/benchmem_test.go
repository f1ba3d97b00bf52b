package benchmem_test

import (
	"bytes"
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine/internal/benchmem"
)

const childEnv = "SEEDENGINE_BENCHMEM_TEST_CHILD"

func TestMain(m *testing.M) { benchmem.Main(m, childEnv, child) }

// sink keeps the child's allocation alive.
var sink []byte

// child holds value MiB, touched, then reports its peak RSS unless value
// ends in "-silent", to exercise the rusage fallback.
func child(value string) int {
	mib, silent := strings.CutSuffix(value, "-silent")
	var n int
	if _, err := fmt.Sscan(mib, &n); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	sink = bytes.Repeat([]byte{1}, n<<20)
	if !silent {
		benchmem.ReportPeakRSS(os.Stdout)
	}
	return 0
}

func TestSampleHeapSeesAnAllocation(t *testing.T) {
	stop := benchmem.SampleHeap()
	b := make([]byte, 64<<20)
	b[len(b)-1] = 1
	peak := stop()
	runtime.KeepAlive(b)
	require.GreaterOrEqual(t, peak, uint64(64<<20))
}

func TestSelfPeakRSS(t *testing.T) {
	rss := benchmem.SelfPeakRSS()
	if runtime.GOOS != "linux" {
		t.Skip("VmHWM is Linux's")
	}
	require.Positive(t, rss)
	var buf bytes.Buffer
	benchmem.ReportPeakRSS(&buf)
	require.Regexp(t, `^peak-rss=\d+\n$`, buf.String())
}

func TestOffHeap(t *testing.T) {
	b, free := benchmem.OffHeap(1 << 20)
	require.Len(t, b, 1<<20)
	b[0], b[len(b)-1] = 1, 2
	free()
}

func TestRunChild(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the figures below are Linux's")
	}
	reported, err := benchmem.RunChild(childEnv, "48")
	require.NoError(t, err)
	require.Greater(t, reported, int64(48<<20))
	fallback, err := benchmem.RunChild(childEnv, "48-silent")
	require.NoError(t, err)
	require.Greater(t, fallback, int64(48<<20))
	_, err = benchmem.RunChild(childEnv, "not-a-number")
	require.ErrorContains(t, err, "exit status 1")
}

func TestMiB(t *testing.T) {
	require.InDelta(t, 1.5, benchmem.MiB(int64(3<<19)), 0)
	require.InDelta(t, 2.0, benchmem.MiB(uint64(2<<20)), 0)
}
