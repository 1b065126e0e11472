package gateway

import (
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
	downloads     prometheus.Histogram   // seconds per GET of file content
	rangeRequests *prometheus.CounterVec // 206 replies, single or multi
	chunkFetch    prometheus.Histogram   // seconds a read waited for chunks
	storeBytes    prometheus.Counter     // chunk bytes received from the store
	sweptChunks   prometheus.Counter     // orphaned chunks the sweeper removed
	busy          prometheus.Counter     // uploads refused by max-concurrent-uploads
}

func newMetrics(reg *prometheus.Registry) *metrics {
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
		downloads: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "gridfsd_download_duration_seconds",
			Help:    "Time to serve a GET of file content, whole or ranged.",
			Buckets: prometheus.ExponentialBuckets(0.005, 4, 10),
		}),
		rangeRequests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "gridfsd_range_requests_total",
			Help: "Downloads answered with 206 Partial Content, by kind (single or multi).",
		}, []string{"kind"}),
		chunkFetch: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "gridfsd_chunk_fetch_seconds",
			Help:    "Time a download read waited for chunks from the store.",
			Buckets: prometheus.ExponentialBuckets(0.0005, 4, 10),
		}),
		storeBytes: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "gridfsd_store_read_bytes_total",
			Help: "Chunk bytes downloads received from the store, read-ahead included.",
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
		m.requests, m.bytesIn, m.bytesOut, m.uploads, m.downloads,
		m.rangeRequests, m.chunkFetch, m.storeBytes, m.sweptChunks, m.busy,
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
	)
	return m
}
