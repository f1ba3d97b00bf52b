package jobs

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestThrottleRepeats(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	clock := time.Unix(0, 0)
	th := newThrottle(slog.NewTextHandler(&buf, nil), 10*time.Second)
	th.now = func() time.Time { return clock }
	log := slog.New(th).With("component", "river")
	for range 30 {
		log.Error("producer: Error fetching jobs", "queue", "default")
	}
	log.Warn("another message")
	clock = clock.Add(11 * time.Second)
	log.Error("producer: Error fetching jobs", "queue", "default")

	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	require.Len(t, lines, 3, buf.String())
	require.NotContains(t, lines[0], "suppressed")
	require.Contains(t, lines[1], "another message")
	require.Contains(t, lines[2], "suppressed=29")
	require.Contains(t, lines[2], "component=river")
}
