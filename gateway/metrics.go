package gateway

import (
	"math"

	"github.com/gridfsd/gridfsd/buckets"
	"github.com/gridfsd/gridfsd/internal/doormetrics"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

// metrics are the gateway's Prometheus metrics, in a registry the Server
// owns: two servers in one process (tests) never collide, and nothing is
// registered globally.
type metrics struct {
	registry *prometheus.Registry

	requests      *prometheus.CounterVec // by route, method and status
	bytesIn       prometheus.Counter     // request bodies
	bytesOut      prometheus.Counter     // response bodies
	uploads       prometheus.Histogram   // seconds per committed upload
	downloads     *doormetrics.Downloads // GETs of file content
	rangeRequests *prometheus.CounterVec // 206 replies, single or multi
	chunkFetch    prometheus.Histogram   // seconds a read waited for chunks
	sweptChunks   prometheus.Counter     // orphaned chunks the sweeper removed
	busy          prometheus.Counter     // uploads refused by max-concurrent-uploads
}

func newMetrics(reg *prometheus.Registry, db *buckets.DB) *metrics {
	m := &metrics{
		registry: reg,
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "gridfsd_http_requests_total",
			Help: "HTTP requests by route pattern, method and status.",
		}, []string{"route", "method", "status"}),
		bytesIn: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "gridfsd_http_request_bytes_total",
			Help: "Bytes of request bodies read.",
		}),
		bytesOut: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "gridfsd_http_response_bytes_total",
			Help: "Bytes of response bodies written.",
		}),
		uploads: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "gridfsd_upload_duration_seconds",
			Help:    "Time from the start of an upload to its commit.",
			Buckets: prometheus.ExponentialBuckets(0.005, 4, 10),
		}),
		downloads: doormetrics.NewDownloads("gridfsd_", ""),
		rangeRequests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "gridfsd_range_requests_total",
			Help: "Downloads answered with 206 Partial Content, by kind (single or multi).",
		}, []string{"kind"}),
		chunkFetch: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "gridfsd_chunk_fetch_seconds",
			Help:    "Time a download read waited for chunks from the store.",
			Buckets: prometheus.ExponentialBuckets(0.0005, 4, 10),
		}),
		sweptChunks: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "gridfsd_swept_chunks_total",
			Help: "Orphaned chunks removed by the background sweeper.",
		}),
		busy: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "gridfsd_uploads_refused_total",
			Help: "Uploads answered 503 because max-concurrent-uploads were running.",
		}),
	}
	reg.MustRegister(
		m.requests, m.bytesIn, m.bytesOut, m.uploads, m.downloads.Duration,
		m.rangeRequests, m.chunkFetch, m.downloads.StoreBytes, m.sweptChunks, m.busy,
		chunkCacheCollector{db},
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
	)
	if _, ok, _ := db.Space(); ok {
		// Measured at each scrape: a statfs and, once a second, SQLite's
		// freelist.
		space := func(pick func(buckets.Space) uint64) func() float64 {
			return func() float64 {
				s, _, err := db.Space()
				if err != nil {
					return math.NaN()
				}
				return float64(pick(s))
			}
		}
		reg.MustRegister(
			prometheus.NewGaugeFunc(prometheus.GaugeOpts{
				Name: "gridfsd_store_free_bytes",
				Help: "Room the embedded store has left: free disk space plus the pages SQLite freed and reuses.",
			}, space(func(s buckets.Space) uint64 { return s.Free })),
			prometheus.NewGaugeFunc(prometheus.GaugeOpts{
				Name: "gridfsd_store_min_free_bytes",
				Help: "The embedded store's reserve (min-free-space): below it uploads are refused with 507.",
			}, space(func(s buckets.Space) uint64 { return s.Reserve })),
		)
	}
	return m
}

// chunkCacheCollector reports the chunk cache that every door's downloads
// share (buckets.DB.ChunkCacheStats), one snapshot per scrape.
type chunkCacheCollector struct{ db *buckets.DB }

var (
	chunkCacheHits = prometheus.NewDesc("gridfsd_chunk_cache_hits_total",
		"Chunks downloads found in the shared chunk cache, loaded or being loaded by another download.", nil, nil)
	chunkCacheMisses = prometheus.NewDesc("gridfsd_chunk_cache_misses_total",
		"Chunks downloads fetched from the store because the chunk cache had them not.", nil, nil)
	chunkCacheEvictions = prometheus.NewDesc("gridfsd_chunk_cache_evictions_total",
		"Chunks dropped from the chunk cache to stay within chunk-cache-size.", nil, nil)
	chunkCacheBytes = prometheus.NewDesc("gridfsd_chunk_cache_bytes",
		"Bytes of chunks the chunk cache holds, those downloads are serving included.", nil, nil)
	chunkCacheMax = prometheus.NewDesc("gridfsd_chunk_cache_max_bytes",
		"The chunk cache's configured size (chunk-cache-size).", nil, nil)
)

func (c chunkCacheCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{chunkCacheHits, chunkCacheMisses, chunkCacheEvictions, chunkCacheBytes, chunkCacheMax} {
		ch <- d
	}
}

func (c chunkCacheCollector) Collect(ch chan<- prometheus.Metric) {
	s := c.db.ChunkCacheStats()
	ch <- prometheus.MustNewConstMetric(chunkCacheHits, prometheus.CounterValue, float64(s.Hits))
	ch <- prometheus.MustNewConstMetric(chunkCacheMisses, prometheus.CounterValue, float64(s.Misses))
	ch <- prometheus.MustNewConstMetric(chunkCacheEvictions, prometheus.CounterValue, float64(s.Evictions))
	ch <- prometheus.MustNewConstMetric(chunkCacheBytes, prometheus.GaugeValue, float64(s.Bytes))
	ch <- prometheus.MustNewConstMetric(chunkCacheMax, prometheus.GaugeValue, float64(s.Max))
}
