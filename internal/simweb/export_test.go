package simweb

// InFlight is the number of requests inside the handler, so tests can check
// that a slow response stops when its client goes away.
func InFlight(w *Web) int64 { return w.inflight.Load() }
