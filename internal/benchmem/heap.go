package benchmem

import (
	"runtime/metrics"
	"sync/atomic"
	"time"
)

// heapObjectsMetric is the runtime/metrics name of the bytes held by heap
// objects, live or not yet swept.
const heapObjectsMetric = "/memory/classes/heap/objects:bytes"

// HeapObjects returns the bytes the heap's objects occupy now.
func HeapObjects() uint64 {
	s := []metrics.Sample{{Name: heapObjectsMetric}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// SampleHeap samples the heap's object bytes (HeapObjects) every
// millisecond until the returned function is called, which samples once
// more and returns the highest value seen.
func SampleHeap() (stop func() uint64) {
	var peak atomic.Uint64
	done := make(chan struct{})
	finished := make(chan struct{})
	sample := []metrics.Sample{{Name: heapObjectsMetric}}
	read := func() {
		metrics.Read(sample)
		if v := sample[0].Value.Uint64(); v > peak.Load() {
			peak.Store(v)
		}
	}
	go func() {
		defer close(finished)
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			read()
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	return func() uint64 {
		close(done)
		<-finished
		read()
		return peak.Load()
	}
}
