package dav

import "github.com/prometheus/client_golang/prometheus"

// metrics of the WebDAV door, beside the gateway's in its registry: the
// gateway counts the door's requests and bytes (route /dav/*), these are
// what only the door knows.
type metrics struct {
	downloads     prometheus.Histogram // seconds per GET of file content
	storeBytes    prometheus.Counter   // chunk bytes downloads received from the store
	lockContended prometheus.Counter   // LOCKs and writes refused because of another's lock
}

func newMetrics() *metrics {
	m := &metrics{
		downloads: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "gridfsd_dav_download_duration_seconds",
			Help:    "Time to serve a WebDAV GET of file content, whole or ranged.",
			Buckets: prometheus.ExponentialBuckets(0.005, 4, 10),
		}),
		storeBytes: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "gridfsd_dav_store_read_bytes_total",
			Help: "Chunk bytes WebDAV downloads received from the store, read-ahead included.",
		}),
		lockContended: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "gridfsd_dav_locks_contended_total",
			Help: "WebDAV LOCKs and writes refused because another client holds a lock.",
		}),
	}
	return m
}

func (m *metrics) collectors() []prometheus.Collector {
	return []prometheus.Collector{m.downloads, m.storeBytes, m.lockContended}
}
