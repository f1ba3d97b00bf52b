package httpapi

import (
	"context"
	"log/slog"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/seedengine/seedengine"
)

// jobsScrapeTimeout bounds the queue query made at each scrape, so a slow
// database delays /metrics by at most this much.
const jobsScrapeTimeout = time.Second

// metrics lives on a private registry so that two Servers (tests) or other
// packages registering metrics never collide on the global one.
type metrics struct {
	reg      *prometheus.Registry
	requests *prometheus.CounterVec
	duration *prometheus.HistogramVec
	handler  http.Handler

	unmatched routeMetrics
}

func newMetrics(qs seedengine.QueueStatsService, sc seedengine.SeedCheckService, items seedengine.ItemService, extra []prometheus.Collector, logger *slog.Logger) *metrics {
	m := &metrics{
		reg: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "seedengine_http_requests_total",
			Help: "HTTP requests by method, route pattern and status.",
		}, []string{"method", "route", "status"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "seedengine_http_request_duration_seconds",
			Help:    "HTTP request duration by method and route pattern.",
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10},
		}, []string{"method", "route"}),
	}
	m.reg.MustRegister(m.requests, m.duration,
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	m.reg.MustRegister(extra...)
	if qs != nil {
		m.reg.MustRegister(&jobsCollector{
			qs:     qs,
			logger: logger,
			desc: prometheus.NewDesc("seedengine_jobs",
				"Jobs in the queue by kind and state, read at scrape time.",
				[]string{"kind", "state"}, nil),
		})
	}
	if sc != nil {
		m.reg.MustRegister(&seedHealthCollector{
			sc:     sc,
			logger: logger,
			desc: prometheus.NewDesc("seedengine_seed_health",
				"Active and suspended seeds by health state (unknown: never checked), read at scrape time.",
				[]string{"state"}, nil),
		})
	}
	if items != nil {
		m.reg.MustRegister(&harvestCollector{
			items:  items,
			logger: logger,
			itemsDesc: prometheus.NewDesc("seedengine_items_total",
				"Items the harvest recorded, by country, read at scrape time.", []string{"country"}, nil),
			todayDesc: prometheus.NewDesc("seedengine_items_today",
				"Items first seen on the current UTC day, by country, read at scrape time.", []string{"country"}, nil),
			readsDesc: prometheus.NewDesc("seedengine_harvest_reads_total",
				"Harvesting reads of active seeds, read at scrape time.", nil, nil),
			gapsDesc: prometheus.NewDesc("seedengine_harvest_gaps_total",
				"Reads that found their whole window new (items may have been missed), read at scrape time.", nil, nil),
			hitsDesc: prometheus.NewDesc("seedengine_harvest_dedupe_hits_total",
				"Items reads listed that were seen before (by any seed), read at scrape time.", nil, nil),
		})
	}
	m.handler = promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{
		ErrorHandling: promhttp.ContinueOnError,
	})
	return m
}

// routeMetrics caches the metric children of one route, because resolving
// label values hashes strings on every request.
type routeMetrics struct {
	children atomic.Pointer[[]metricChild]
}

type metricChild struct {
	method   string
	status   int
	counter  prometheus.Counter
	observer prometheus.Observer
}

func (m *metrics) observe(method string, rt *route, status int, d time.Duration) {
	rm := &m.unmatched
	label := "unmatched"
	if rt != nil {
		rm, label = &rt.metrics, rt.Path
	}
	method = metricMethod(method)
	var c *metricChild
	if cur := rm.children.Load(); cur != nil {
		for i := range *cur {
			if ch := &(*cur)[i]; ch.method == method && ch.status == status {
				c = ch
				break
			}
		}
	}
	if c == nil {
		c = &metricChild{
			method:   method,
			status:   status,
			counter:  m.requests.WithLabelValues(method, label, strconv.Itoa(status)),
			observer: m.duration.WithLabelValues(method, label),
		}
		// Copy on write; a lost race only means one more lookup later.
		var next []metricChild
		if cur := rm.children.Load(); cur != nil {
			next = append(next, *cur...)
		}
		next = append(next, *c)
		rm.children.Store(&next)
	}
	c.counter.Inc()
	c.observer.Observe(d.Seconds())
}

// metricMethod keeps the method label bounded: any method can be sent, and
// each new one would be a new time series.
func metricMethod(m string) string {
	switch m {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut,
		http.MethodPatch, http.MethodDelete, http.MethodOptions:
		return m
	}
	return "OTHER"
}

// jobsCollector reads queue counts when Prometheus scrapes, so the gauge
// is never staler than the scrape and costs nothing between scrapes.
type jobsCollector struct {
	qs     seedengine.QueueStatsService
	logger *slog.Logger
	desc   *prometheus.Desc
}

func (c *jobsCollector) Describe(ch chan<- *prometheus.Desc) { ch <- c.desc }

func (c *jobsCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), jobsScrapeTimeout)
	defer cancel()
	counts, err := c.qs.CountJobs(ctx)
	if err != nil {
		// Leave the gauge out rather than report zeros that look real.
		c.logger.LogAttrs(ctx, slog.LevelWarn, "job counts unavailable for metrics",
			slog.String("event", "metrics_jobs_failed"), slog.String("error", err.Error()))
		return
	}
	type kindState struct{ kind, state string }
	sum := map[kindState]int{}
	var order []kindState
	for _, jc := range counts {
		k := kindState{jc.Kind, jc.State}
		if _, ok := sum[k]; !ok {
			order = append(order, k)
		}
		sum[k] += jc.Count
	}
	for _, k := range order {
		ch <- prometheus.MustNewConstMetric(c.desc, prometheus.GaugeValue, float64(sum[k]), k.kind, k.state)
	}
}

// seedHealthStates are the states seedengine_seed_health always reports,
// zeros included, so a dashboard sees a state empty rather than missing.
var seedHealthStates = []seedengine.SeedHealthState{
	seedengine.HealthUnknown, seedengine.HealthHealthy, seedengine.HealthStale, seedengine.HealthFailing,
	seedengine.HealthBlocked, seedengine.HealthMoved, seedengine.HealthGone,
}

type seedHealthCollector struct {
	sc     seedengine.SeedCheckService
	logger *slog.Logger
	desc   *prometheus.Desc
}

func (c *seedHealthCollector) Describe(ch chan<- *prometheus.Desc) { ch <- c.desc }

func (c *seedHealthCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), jobsScrapeTimeout)
	defer cancel()
	counts, err := c.sc.CountSeedHealth(ctx)
	if err != nil {
		c.logger.LogAttrs(ctx, slog.LevelWarn, "seed health counts unavailable for metrics",
			slog.String("event", "metrics_seed_health_failed"), slog.String("error", err.Error()))
		return
	}
	for _, st := range seedHealthStates {
		ch <- prometheus.MustNewConstMetric(c.desc, prometheus.GaugeValue, float64(counts[st]), string(st))
	}
}

// harvestCollector reads the harvest's counts when Prometheus scrapes, so
// every process's reads count, whichever process serves /metrics.
type harvestCollector struct {
	items                                               seedengine.ItemService
	logger                                              *slog.Logger
	itemsDesc, todayDesc, readsDesc, gapsDesc, hitsDesc *prometheus.Desc
}

func (c *harvestCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.itemsDesc
	ch <- c.todayDesc
	ch <- c.readsDesc
	ch <- c.gapsDesc
	ch <- c.hitsDesc
}

func (c *harvestCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), jobsScrapeTimeout)
	defer cancel()
	st, err := c.items.ItemStats(ctx, time.Now())
	if err != nil {
		c.logger.LogAttrs(ctx, slog.LevelWarn, "harvest counts unavailable for metrics",
			slog.String("event", "metrics_harvest_failed"), slog.String("error", err.Error()))
		return
	}
	for country, n := range st.ByCountry {
		ch <- prometheus.MustNewConstMetric(c.itemsDesc, prometheus.CounterValue, float64(n.Items), country)
	}
	for country, n := range st.Today {
		ch <- prometheus.MustNewConstMetric(c.todayDesc, prometheus.GaugeValue, float64(n), country)
	}
	ch <- prometheus.MustNewConstMetric(c.readsDesc, prometheus.CounterValue, float64(st.Reads))
	ch <- prometheus.MustNewConstMetric(c.gapsDesc, prometheus.CounterValue, float64(st.Gaps))
	ch <- prometheus.MustNewConstMetric(c.hitsDesc, prometheus.CounterValue, float64(st.DedupeHits))
}

// articleCollector reads the articles' counts when Prometheus scrapes.
type articleCollector struct {
	articles                               seedengine.ArticleService
	logger                                 *slog.Logger
	totalDesc, duplicatesDesc, pendingDesc *prometheus.Desc
}

func newArticleCollector(a seedengine.ArticleService, logger *slog.Logger) *articleCollector {
	return &articleCollector{articles: a, logger: logger,
		totalDesc: prometheus.NewDesc("seedengine_articles_total",
			"Stored pages read as articles, by result (article, not_article), read at scrape time.", []string{"result"}, nil),
		duplicatesDesc: prometheus.NewDesc("seedengine_articles_duplicates_total",
			"Articles whose text is the same or nearly the same as an earlier one's (syndicated copies), read at scrape time.", nil, nil),
		pendingDesc: prometheus.NewDesc("seedengine_articles_pending",
			"Stored pages not read as articles yet (the extraction backlog), read at scrape time.", nil, nil),
	}
}

func (c *articleCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.totalDesc
	ch <- c.duplicatesDesc
	ch <- c.pendingDesc
}

func (c *articleCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), jobsScrapeTimeout)
	defer cancel()
	st, err := c.articles.ArticleStats(ctx)
	if err != nil {
		c.logger.LogAttrs(ctx, slog.LevelWarn, "article counts unavailable for metrics",
			slog.String("event", "metrics_articles_failed"), slog.String("error", err.Error()))
		return
	}
	ch <- prometheus.MustNewConstMetric(c.totalDesc, prometheus.CounterValue, float64(st.Articles), "article")
	ch <- prometheus.MustNewConstMetric(c.totalDesc, prometheus.CounterValue, float64(st.NotArticles), "not_article")
	ch <- prometheus.MustNewConstMetric(c.duplicatesDesc, prometheus.CounterValue, float64(st.Duplicates))
	ch <- prometheus.MustNewConstMetric(c.pendingDesc, prometheus.GaugeValue, float64(st.Pending))
}
