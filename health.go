package seedengine

import "context"

// Checker checks that one dependency (database, object store, queue) can
// serve requests. Check returns nil when it can.
type Checker interface {
	Check(ctx context.Context) error
}

// CheckerFunc adapts a function to the Checker interface.
type CheckerFunc func(ctx context.Context) error

// Check calls f.
func (f CheckerFunc) Check(ctx context.Context) error { return f(ctx) }

// JobCount is the number of queued jobs of one kind in one state.
type JobCount struct {
	Kind  string `json:"kind"`
	State string `json:"state"`
	Count int    `json:"count"`
}

// QueueStatsService reports on the job queue.
type QueueStatsService interface {
	// CountJobs returns the number of jobs by kind and state.
	CountJobs(ctx context.Context) ([]JobCount, error)
}
