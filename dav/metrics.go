package dav

import (
	"github.com/gridfsd/gridfsd/internal/doormetrics"
	"github.com/prometheus/client_golang/prometheus"
)

// metrics of the WebDAV door, beside the gateway's in its registry: the
// gateway counts the door's requests and bytes (route /dav/*), these are
// what only the door knows.
type metrics struct {
	downloads     *doormetrics.Downloads // GETs of file content, as every door counts them
	lockContended prometheus.Counter     // LOCKs and writes refused because of another's lock
}

func newMetrics() *metrics {
	return &metrics{
		downloads: doormetrics.NewDownloads("gridfsd_dav_", "WebDAV "),
		lockContended: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "gridfsd_dav_locks_contended_total",
			Help: "WebDAV LOCKs and writes refused because another client holds a lock.",
		}),
	}
}

func (m *metrics) collectors() []prometheus.Collector {
	return append(m.downloads.Collectors(), m.lockContended)
}
