package jobs

import (
	"container/heap"
	"context"
	"sync"
	"time"

	"github.com/riverqueue/river/riverdriver"
)

// A page the frontier sends away (pages.DeferError) is snoozed until its
// host's turn; River then finds it only when its producer next fetches,
// which, once nothing is being inserted, is the poll (2 s for pages):
// the host's turn would pass unused. pageWaker wakes the page queue's
// producers when deferred pages come due, the way an insert does: it
// sends River's insert notification for the queue (NotifyMany of River's
// own driver: pg_notify on PostgreSQL, a row of river_notification on
// SQLite, read at once by the listener there). Due times share slots of
// pageWakeSlot, so a busy frontier sends at most one a slot.
type pageWaker struct {
	notify func(context.Context) error

	mu     sync.Mutex
	slots  slotHeap           // due slots, earliest first
	queued map[int64]struct{} // the slots in slots
	timer  *time.Timer
	at     int64 // the slot the timer is set for; 0 when none
	done   bool
}

// pageWakeSlot is how finely wake-ups are placed.
const pageWakeSlot = 50 * time.Millisecond

// newPageWaker wakes queue through exec, River's driver's executor. It
// wakes nothing until start.
func newPageWaker(exec riverdriver.Executor, queue string) *pageWaker {
	payload := `{"queue": "` + queue + `"}`
	return &pageWaker{
		queued: map[int64]struct{}{},
		done:   true,
		notify: func(ctx context.Context) error {
			return exec.NotifyMany(ctx, &riverdriver.NotifyManyParams{Payload: []string{payload}, Topic: "river_insert"})
		},
	}
}

// start begins the wake-ups.
func (w *pageWaker) start() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.done = false
}

// wakeAt asks for the queue to be woken at t or within a slot after it.
func (w *pageWaker) wakeAt(t time.Time) {
	slot := (t.UnixNano() + int64(pageWakeSlot) - 1) / int64(pageWakeSlot)
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.done {
		return
	}
	if _, ok := w.queued[slot]; ok {
		return
	}
	w.queued[slot] = struct{}{}
	heap.Push(&w.slots, slot)
	w.arm()
}

// arm sets the timer for the earliest slot. Called with mu held.
func (w *pageWaker) arm() {
	if len(w.slots) == 0 {
		return
	}
	first := w.slots[0]
	if w.at != 0 && w.at <= first {
		return // set for it, or for an earlier one that sets the next
	}
	w.at = first
	d := time.Until(time.Unix(0, first*int64(pageWakeSlot)))
	if w.timer == nil {
		w.timer = time.AfterFunc(d, w.fire)
	} else {
		w.timer.Reset(d)
	}
}

// fire wakes the queue for every slot that came due and sets the timer
// for the next.
func (w *pageWaker) fire() {
	now := time.Now().UnixNano() / int64(pageWakeSlot)
	w.mu.Lock()
	due := false
	for len(w.slots) > 0 && w.slots[0] <= now {
		delete(w.queued, heap.Pop(&w.slots).(int64))
		due = true
	}
	w.at = 0
	if !w.done {
		w.arm()
	}
	done := w.done
	w.mu.Unlock()
	if due && !done {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		// A lost wake costs only the wait for the poll.
		_ = w.notify(ctx)
	}
}

// stop ends the wake-ups.
func (w *pageWaker) stop() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.done = true
	if w.timer != nil {
		w.timer.Stop()
	}
	w.slots, w.at = nil, 0
	clear(w.queued)
}

// slotHeap is a min-heap of slots.
type slotHeap []int64

func (h slotHeap) Len() int           { return len(h) }
func (h slotHeap) Less(i, j int) bool { return h[i] < h[j] }
func (h slotHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *slotHeap) Push(x any)        { *h = append(*h, x.(int64)) }
func (h *slotHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
