package web

import (
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/journal"
)

// StoreStats reports the size of the transaction store and how many
// transactions it evicted.
type StoreStats func() (size int, evicted uint64)

// Metrics are the server's Prometheus metrics, on a registry of their own
// (no global state).
type Metrics struct {
	reg          *prometheus.Registry
	requests     *prometheus.CounterVec
	latency      *prometheus.HistogramVec
	transactions *prometheus.CounterVec
	reloads      *prometheus.CounterVec
	faults       *prometheus.CounterVec
	storeFull    prometheus.Counter
	keysMismatch prometheus.Gauge
	journalOnce  sync.Once
	waitsOnce    sync.Once
	routes       routeMetrics
	// steps remembers the counter of each step and status counted, as
	// routes does the route's: [2]string{step, status} -> prometheus.Counter.
	steps struct {
		m sync.Map
		n atomic.Int64
	}
}

// routeMetrics remembers the request counter and latency observer of each
// route, method and status seen: resolving them by their label values
// hashes and looks them up in the vectors on every request.
type routeMetrics struct {
	m sync.Map // routeKey -> *routeObservers
	n atomic.Int64
}

type routeKey struct {
	route, method string
	status        int
}

type routeObservers struct {
	requests prometheus.Counter
	latency  prometheus.Observer
}

// maxRouteMetrics bounds what routeMetrics remembers: the routes are few,
// the methods normalized and the statuses the handlers' own.
const maxRouteMetrics = 1024

// NewMetrics registers the emulator's metrics; stats may be nil.
func NewMetrics(stats StoreStats) *Metrics {
	reg := prometheus.NewRegistry()
	m := &Metrics{
		reg: reg,
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "threeds_http_requests_total",
			Help: "HTTP requests by route template, method and status code.",
		}, []string{"route", "method", "code"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "threeds_http_request_duration_seconds",
			Help:    "HTTP request latency by route template.",
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30},
		}, []string{"route"}),
		transactions: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "threeds_transactions_total",
			Help: "Transaction results by transStatus: lookups (C for a challenge) and finished challenges.",
		}, []string{"step", "status"}),
		reloads: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "threeds_scenario_reloads_total",
			Help: "Scenario reloads by result (ok, invalid).",
		}, []string{"result"}),
		faults: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "threeds_injected_faults_total",
			Help: "Faults injected by scenarios or chaos, by kind.",
		}, []string{"kind"}),
		storeFull: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "threeds_store_full_total",
			Help: "Requests refused because the shared state store is full (Redis at its maxmemory refuses writes): 503 SY04.",
		}),
	}
	m.keysMismatch = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "threeds_state_keys_mismatch",
		Help: "1 while this replica's state keys match neither the current nor a previous key of the replicas sharing its store (each refuses the other's challenge pages and console sessions as forged); 0 otherwise.",
	})
	reg.MustRegister(m.requests, m.latency, m.transactions, m.reloads, m.faults, m.storeFull, m.keysMismatch,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	if stats != nil {
		reg.MustRegister(
			prometheus.NewGaugeFunc(prometheus.GaugeOpts{
				Name: "threeds_store_transactions",
				Help: "Transactions held in the store.",
			}, func() float64 { n, _ := stats(); return float64(n) }),
			prometheus.NewCounterFunc(prometheus.CounterOpts{
				Name: "threeds_store_evictions_total",
				Help: "Transactions evicted from the store (capacity or age).",
			}, func() float64 { _, e := stats(); return float64(e) }),
		)
	}
	return m
}

// watchJournal registers the journal's gauges and counters, read from
// stats at each scrape; only the first call of a Metrics counts.
func (m *Metrics) watchJournal(stats func() journal.Stats) {
	m.journalOnce.Do(func() {
		m.reg.MustRegister(
			prometheus.NewGaugeFunc(prometheus.GaugeOpts{
				Name: "threeds_journal_bytes",
				Help: "Bytes the console's journal takes (this replica's queue and memory; the shared journal's own are in Redis).",
			}, func() float64 { return float64(stats().Bytes) }),
			prometheus.NewGaugeFunc(prometheus.GaugeOpts{
				Name: "threeds_journal_transactions",
				Help: "Transactions held in the console's journal (local journal only).",
			}, func() float64 { return float64(stats().Transactions) }),
			prometheus.NewCounterFunc(prometheus.CounterOpts{
				Name: "threeds_journal_events_recorded_total",
				Help: "Events the console's journal recorded.",
			}, func() float64 { return float64(stats().Recorded) }),
			prometheus.NewCounterFunc(prometheus.CounterOpts{
				Name: "threeds_journal_events_dropped_total",
				Help: "Events the console's journal dropped: beyond a transaction's bounds, or not written (queue full, store down).",
			}, func() float64 { return float64(stats().Dropped) }),
			prometheus.NewCounterFunc(prometheus.CounterOpts{
				Name: "threeds_journal_evictions_total",
				Help: "Transactions the console's journal forgot to stay within its bounds (local journal only).",
			}, func() float64 { return float64(stats().Evicted) }),
		)
	})
}

// watchWaits registers the gauge of the automation API's open waits, read
// from open at each scrape; only the first call of a Metrics counts.
func (m *Metrics) watchWaits(open func() int) {
	m.waitsOnce.Do(func() {
		m.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "threeds_admin_waits_open",
			Help: "Waits for a transaction's end (GET /admin/transactions/{id}?wait=final) open now.",
		}, func() float64 { return float64(open()) }))
	})
}

// Handler serves the metrics in the Prometheus text format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{Registry: m.reg})
}

// ScenarioReload counts a scenario reload.
func (m *Metrics) ScenarioReload(ok bool) {
	if ok {
		m.reloads.WithLabelValues("ok").Inc()
	} else {
		m.reloads.WithLabelValues("invalid").Inc()
	}
}

func (m *Metrics) transaction(step, status string) {
	k := [2]string{step, status}
	if c, ok := m.steps.m.Load(k); ok {
		c.(prometheus.Counter).Inc()
		return
	}
	c := m.transactions.WithLabelValues(step, status)
	if m.steps.n.Add(1) <= maxRouteMetrics {
		m.steps.m.Store([2]string{strings.Clone(step), strings.Clone(status)}, c)
	}
	c.Inc()
}

// KeysMismatch sets threeds_state_keys_mismatch: whether this replica's
// state keys match neither the current nor a previous key of the
// replicas sharing its store.
func (m *Metrics) KeysMismatch(mismatch bool) {
	if mismatch {
		m.keysMismatch.Set(1)
	} else {
		m.keysMismatch.Set(0)
	}
}

func (m *Metrics) fault(kind string) { m.faults.WithLabelValues(kind).Inc() }

// full counts a request refused because the state store is full.
func (m *Metrics) full() { m.storeFull.Inc() }

// observeRoute records one request under its route template.
// A method outside HTTP's own is counted as "other": clients choose it, and
// each would be a series of its own.
func (m *Metrics) observeRoute(route, method string, status int, d time.Duration) {
	if route == "" {
		route = "unmatched"
	}
	k := routeKey{route, metricMethod(method), status}
	o, ok := m.routes.m.Load(k)
	if !ok {
		obs := &routeObservers{m.requests.WithLabelValues(k.route, k.method, strconv.Itoa(status)), m.latency.WithLabelValues(route)}
		if m.routes.n.Add(1) <= maxRouteMetrics {
			m.routes.m.Store(k, obs)
		}
		o = obs
	}
	obs := o.(*routeObservers)
	obs.requests.Inc()
	obs.latency.Observe(d.Seconds())
}

// metricMethod is the method label of a request's method.
func metricMethod(method string) string {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
		http.MethodDelete, http.MethodOptions, http.MethodConnect, http.MethodTrace:
		return method
	}
	return "other"
}
