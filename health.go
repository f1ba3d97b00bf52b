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

// KindThroughput is how one kind of job has moved through the queue over
// the last minutes, over all processes: what an operator reads when a
// batch seems slow.
type KindThroughput struct {
	Kind                 string  `json:"kind"`
	Completed            int     `json:"completed" doc:"Jobs completed in the window."`
	Discarded            int     `json:"discarded" doc:"Jobs given up in the window (their last attempt failed)."`
	Cancelled            int     `json:"cancelled" doc:"Jobs cancelled in the window."`
	PerSecond            float64 `json:"per_second" doc:"Jobs completed per second over the window."`
	ByMinute             []int   `json:"by_minute" doc:"Jobs completed in each minute of the window, oldest first; the last is the minute under way."`
	Available            int     `json:"available" doc:"Jobs waiting for a worker now."`
	Running              int     `json:"running" doc:"Jobs running now."`
	OldestWaitingSeconds float64 `json:"oldest_waiting_seconds" doc:"How long the oldest available job has waited for a worker; 0 when none waits."`
}

// QueueStatsService reports on the job queue.
type QueueStatsService interface {
	// CountJobs returns the number of jobs by kind and state.
	CountJobs(ctx context.Context) ([]JobCount, error)
	// Throughput returns, for each kind with a job finished in the last
	// minutes (1 to 60) or one waiting or running now, how it moved.
	Throughput(ctx context.Context, minutes int) ([]KindThroughput, error)
}
