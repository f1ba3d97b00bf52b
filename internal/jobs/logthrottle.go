package jobs

import (
	"context"
	"log/slog"
	"sync"
	"time"
)

// riverLogEvery is how often one River log message may repeat. While the
// database is down River logs a failed poll for every queue about 30 times
// a second; one line per message per interval, with the count of the ones
// left out, says the same.
const riverLogEvery = 10 * time.Second

// throttle is a slog.Handler that passes a message at most once per
// interval, adding "suppressed": n (the repeats left out since) to the
// next one it passes.
type throttle struct {
	h     slog.Handler
	every time.Duration
	now   func() time.Time
	st    *throttleState // shared by the handlers WithAttrs and WithGroup make
}

type throttleState struct {
	mu      sync.Mutex
	last    map[string]time.Time
	dropped map[string]int
}

func newThrottle(h slog.Handler, every time.Duration) *throttle {
	return &throttle{h: h, every: every, now: time.Now,
		st: &throttleState{last: map[string]time.Time{}, dropped: map[string]int{}}}
}

func (t *throttle) Enabled(ctx context.Context, l slog.Level) bool { return t.h.Enabled(ctx, l) }

func (t *throttle) Handle(ctx context.Context, r slog.Record) error {
	now := t.now()
	t.st.mu.Lock()
	if last, ok := t.st.last[r.Message]; ok && now.Sub(last) < t.every {
		t.st.dropped[r.Message]++
		t.st.mu.Unlock()
		return nil
	}
	n := t.st.dropped[r.Message]
	delete(t.st.dropped, r.Message)
	t.st.last[r.Message] = now
	if len(t.st.last) > 1000 { // River's messages are few; bound it anyway
		clear(t.st.last)
	}
	t.st.mu.Unlock()
	if n > 0 {
		r = r.Clone()
		r.AddAttrs(slog.Int("suppressed", n))
	}
	return t.h.Handle(ctx, r)
}

func (t *throttle) WithAttrs(as []slog.Attr) slog.Handler {
	return &throttle{h: t.h.WithAttrs(as), every: t.every, now: t.now, st: t.st}
}

func (t *throttle) WithGroup(name string) slog.Handler {
	return &throttle{h: t.h.WithGroup(name), every: t.every, now: t.now, st: t.st}
}
