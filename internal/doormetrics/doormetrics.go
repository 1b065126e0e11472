// Package doormetrics holds the Prometheus metrics that more than one front
// door keeps, defined once: each door registers its own set, named with its
// prefix, in the gateway's registry.
package doormetrics

import "github.com/prometheus/client_golang/prometheus"

// Downloads are the metrics of the file content a door serves: how long a
// GET took and how many chunk bytes it received from the store (read-ahead
// included), which together tell a slow store from a slow client.
type Downloads struct {
	Duration   prometheus.Histogram
	StoreBytes prometheus.Counter
}

// NewDownloads returns the download metrics of a door: prefix+
// "download_duration_seconds" and prefix+"store_read_bytes_total"
// ("gridfsd_" for the HTTP API, "gridfsd_dav_" for WebDAV); door names it
// in the help text ("" or "WebDAV ").
func NewDownloads(prefix, door string) *Downloads {
	return &Downloads{
		Duration: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    prefix + "download_duration_seconds",
			Help:    "Time to serve a " + door + "GET of file content, whole or ranged.",
			Buckets: prometheus.ExponentialBuckets(0.005, 4, 10),
		}),
		StoreBytes: prometheus.NewCounter(prometheus.CounterOpts{
			Name: prefix + "store_read_bytes_total",
			Help: "Chunk bytes " + door + "downloads received from the store, read-ahead included.",
		}),
	}
}

// Collectors are the metrics, to register.
func (d *Downloads) Collectors() []prometheus.Collector {
	return []prometheus.Collector{d.Duration, d.StoreBytes}
}
