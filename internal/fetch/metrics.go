package fetch

import (
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"
)

// clientMetrics counts what a Client does, for Prometheus (Collector).
type clientMetrics struct {
	requests *prometheus.CounterVec // by kind and outcome
	bytes    *prometheus.CounterVec // body bytes read by Do, by kind
	inFlight atomic.Int64
	inDesc   *prometheus.Desc
}

func newClientMetrics() *clientMetrics {
	return &clientMetrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "seedengine_fetch_requests_total",
			Help: "Outbound fetches of this process by kind (robots, sitemap, feed, page, probe) and outcome: ok (any HTTP status) or the failure's reason.",
		}, []string{"kind", "outcome"}),
		bytes: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "seedengine_fetch_body_bytes_total",
			Help: "Decoded body bytes this process's fetches read whole, by kind.",
		}, []string{"kind"}),
		inDesc: prometheus.NewDesc("seedengine_fetch_in_flight",
			"Fetches of this process under way, waiting for their host's turn included.", nil, nil),
	}
}

// done counts one fetch of kind that ended with err.
func (m *clientMetrics) done(kind Kind, err error) {
	outcome := "ok"
	if err != nil {
		outcome = Reason(err)
	}
	m.requests.WithLabelValues(string(kind), outcome).Inc()
}

func (m *clientMetrics) Describe(ch chan<- *prometheus.Desc) {
	m.requests.Describe(ch)
	m.bytes.Describe(ch)
	ch <- m.inDesc
}

func (m *clientMetrics) Collect(ch chan<- prometheus.Metric) {
	m.requests.Collect(ch)
	m.bytes.Collect(ch)
	ch <- prometheus.MustNewConstMetric(m.inDesc, prometheus.GaugeValue, float64(m.inFlight.Load()))
}

// Collector returns the client's metrics: fetches by kind and outcome,
// body bytes by kind, and fetches in flight. Register it on one registry.
func (c *Client) Collector() prometheus.Collector { return c.metrics }

// kind is req's kind as metrics label it: KindPage when unset, "other"
// when not a kind (start refuses it), so the label stays bounded.
func (req Request) kind() Kind {
	switch {
	case req.Kind == "":
		return KindPage
	case !req.Kind.Valid():
		return "other"
	}
	return req.Kind
}
