package sqlstore

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine"
)

// A read adds its arrivals to the history by appending their deltas to
// the stored ones when it can (readWindow): the bytes are those of the
// whole history encoded again, for reads a few seconds or an hour apart,
// of dated items or not; the times stay sorted and after Since.
func TestArrivalsAppend(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(38, 4))
	appended := 0
	for trial := range 40 {
		at := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
		gap := time.Duration(1+r.IntN(3600)) * time.Second
		var stored []byte
		var since, readAt time.Time
		for read := range 200 {
			at = at.Add(gap + time.Duration(r.IntN(1000))*time.Microsecond)
			var dated []time.Time
			if trial%2 == 0 {
				for range r.IntN(10) {
					dated = append(dated, at.Add(-time.Duration(r.Int64N(int64(3*time.Hour)))))
				}
			}
			times, kept := decodeArrivals(since, stored)
			old := len(times)
			hist, ok := addArrivals(seedengine.ArrivalHistory{Since: since, Times: times}, read == 0, readAt, at, dated, r.IntN(20))
			require.True(t, slices.IsSortedFunc(hist.Times, time.Time.Compare))
			require.False(t, len(hist.Times) > 0 && hist.Times[0].Before(hist.Since))
			whole := encodeArrivals(hist.Since, hist.Times, 0)
			if ok {
				appended++
				prev := hist.Since
				if old > 0 {
					prev = hist.Times[old-1]
				}
				require.Equal(t, whole, append(kept, encodeArrivals(prev, hist.Times[old:], 0)...), "trial %d, read %d", trial, read)
			}
			stored, since, readAt = whole, hist.Since, at
		}
	}
	require.Greater(t, appended, 1000)
}
