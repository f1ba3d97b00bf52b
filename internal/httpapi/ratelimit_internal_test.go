package httpapi

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The limiter map is internal state the HTTP surface cannot show, so its
// bound is tested here.
func TestLimiterSetStaysBounded(t *testing.T) {
	t.Parallel()
	l := newLimiterSet(10, 20) // a bucket refills in 2 s
	now := time.Unix(1_700_000_000, 0)

	for i := range 1000 {
		ok, _ := l.take(fmt.Sprint("ip:", i), now)
		require.True(t, ok)
	}
	require.Equal(t, 1000, l.size())

	// Once every bucket has had time to refill, the entries are
	// indistinguishable from new ones and are dropped at the next sweep.
	later := now.Add(time.Minute)
	ok, _ := l.take("key:active", later)
	require.True(t, ok)
	require.Equal(t, 1, l.size())

	// A flood of distinct clients never grows the map past its cap.
	for i := range maxLimiters + 500 {
		l.take(fmt.Sprint("flood:", i), later)
	}
	require.LessOrEqual(t, l.size(), maxLimiters)
}

func TestLimiterSetRetryAfter(t *testing.T) {
	t.Parallel()
	l := newLimiterSet(2, 1)
	now := time.Unix(1_700_000_000, 0)
	ok, _ := l.take("k", now)
	require.True(t, ok)
	ok, wait := l.take("k", now)
	require.False(t, ok)
	require.InDelta(t, 500*time.Millisecond, wait, float64(10*time.Millisecond))
	ok, _ = l.take("k", now.Add(600*time.Millisecond))
	require.True(t, ok)
}

func TestNoLimiterWhenDisabled(t *testing.T) {
	t.Parallel()
	require.Nil(t, newLimiterSet(-1, 10))
}
