package jobs

import (
	"github.com/prometheus/client_golang/prometheus"
	"github.com/riverqueue/river"
)

// queueMetrics counts the jobs this process worked, from River's events.
type queueMetrics struct {
	worked *prometheus.CounterVec   // by kind and outcome
	run    *prometheus.HistogramVec // run time by kind
	wait   *prometheus.HistogramVec // time available before starting, by kind
}

func newQueueMetrics() *queueMetrics {
	buckets := []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 300}
	return &queueMetrics{
		worked: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "seedengine_jobs_worked_total",
			Help: "Jobs this process worked, by kind and outcome (completed, failed, cancelled, snoozed).",
		}, []string{"kind", "outcome"}),
		run: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "seedengine_job_run_seconds",
			Help:    "How long this process's jobs ran, by kind.",
			Buckets: buckets,
		}, []string{"kind"}),
		wait: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "seedengine_job_wait_seconds",
			Help:    "How long this process's jobs waited, available, before they started, by kind.",
			Buckets: buckets,
		}, []string{"kind"}),
	}
}

func (m *queueMetrics) Describe(ch chan<- *prometheus.Desc) {
	m.worked.Describe(ch)
	m.run.Describe(ch)
	m.wait.Describe(ch)
}

func (m *queueMetrics) Collect(ch chan<- prometheus.Metric) {
	m.worked.Collect(ch)
	m.run.Collect(ch)
	m.wait.Collect(ch)
}

// outcomes are the River events counted, by the outcome label they give.
var outcomes = map[river.EventKind]string{
	river.EventKindJobCompleted: "completed",
	river.EventKindJobFailed:    "failed",
	river.EventKindJobCancelled: "cancelled",
	river.EventKindJobSnoozed:   "snoozed",
}

// follow counts the events of a River client until they end (the client
// stopped or the subscription was cancelled).
func (m *queueMetrics) follow(events <-chan *river.Event) {
	for ev := range events {
		if ev.Job == nil {
			continue
		}
		m.worked.WithLabelValues(ev.Job.Kind, outcomes[ev.Kind]).Inc()
		if ev.JobStats != nil {
			m.run.WithLabelValues(ev.Job.Kind).Observe(ev.JobStats.RunDuration.Seconds())
			m.wait.WithLabelValues(ev.Job.Kind).Observe(max(ev.JobStats.QueueWaitDuration, 0).Seconds())
		}
	}
}

// Collector returns the metrics of the jobs this process works: jobs by
// kind and outcome, their run and wait times. An insert-only queue's stay
// at zero. Register it on one registry.
func (q *Queue) Collector() prometheus.Collector { return q.metrics }
