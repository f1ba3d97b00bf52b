package harvest_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/seedengine/seedengine/internal/harvest"
)

func TestPace(t *testing.T) {
	t.Parallel()
	cfg := harvest.PaceConfig{Min: 5 * time.Minute, Max: 24 * time.Hour}
	for _, tt := range []struct {
		name     string
		in       harvest.PaceInput
		interval time.Duration
		rate     float64
	}{
		{"first read: the dates' rate",
			harvest.PaceInput{Window: 20, New: 20, First: true, DocRate: 8}, 2 * time.Hour, 8},
		{"first read of an undated feed: at most three times the floor",
			harvest.PaceInput{Window: 20, New: 20, First: true}, 15 * time.Minute, 0},
		{"the second read's observation replaces the dates' guess",
			harvest.PaceInput{Window: 10, New: 5, Elapsed: time.Hour, PrevRate: 100, PrevInterval: 15 * time.Minute, PrevFirst: true},
			96 * time.Minute, 5},
		{"later reads average: 0.8 × window ÷ rate",
			harvest.PaceInput{Window: 20, New: 10, Elapsed: time.Hour, PrevRate: 6, PrevInterval: time.Hour},
			2 * time.Hour, 8},
		{"a busy feed is read at the floor",
			harvest.PaceInput{Window: 10, New: 8, Elapsed: 5 * time.Minute, PrevRate: 100, PrevInterval: 5 * time.Minute},
			5 * time.Minute, 98},
		{"a gap doubles the rate and halves the interval",
			harvest.PaceInput{Window: 10, New: 10, Gap: true, Elapsed: time.Hour, PrevRate: 8, PrevInterval: time.Hour},
			24 * time.Minute, 20},
		{"nothing new for a while: back off",
			harvest.PaceInput{Window: 10, Elapsed: 4 * time.Hour, PrevInterval: 4 * time.Hour}, 8 * time.Hour, 0},
		{"never past the ceiling",
			harvest.PaceInput{Window: 50, New: 1, Elapsed: 24 * time.Hour, PrevRate: 1.0 / 24, PrevInterval: 24 * time.Hour}, 24 * time.Hour, 1.0 / 24},
		{"never faster than the crawl delay",
			harvest.PaceInput{Window: 10, New: 8, Elapsed: 5 * time.Minute, PrevRate: 100, PrevInterval: 5 * time.Minute, CrawlDelay: time.Hour},
			time.Hour, 98},
		{"an empty entry: back off from the last interval",
			harvest.PaceInput{Elapsed: time.Hour, PrevRate: 2, PrevInterval: time.Hour}, 2 * time.Hour, 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			interval, rate := harvest.Pace(cfg, tt.in)
			require.InDelta(t, tt.rate, rate, 1e-9)
			require.Equal(t, tt.interval, interval.Round(time.Minute))
		})
	}
	// The lag is asked early.
	interval, _ := harvest.Pace(harvest.PaceConfig{Min: time.Minute, Lag: 30 * time.Second},
		harvest.PaceInput{Window: 20, New: 10, Elapsed: time.Hour, PrevRate: 6, PrevInterval: time.Hour})
	require.Equal(t, 2*time.Hour-30*time.Second, interval)
}
