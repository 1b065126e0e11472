package s3

import (
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// metrics of the S3 front door, beside the HTTP gateway's in its registry.
type metrics struct {
	requests *prometheus.CounterVec   // by operation, method and status
	duration *prometheus.HistogramVec // seconds, by operation
	bytesIn  prometheus.Counter
	bytesOut prometheus.Counter
	// storeBytes counts the chunk bytes GetObject received from the store:
	// against bytesOut it shows what read-ahead costs.
	storeBytes prometheus.Counter
}

func newMetrics(reg prometheus.Registerer) (*metrics, error) {
	m := &metrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "gridfsd_s3_requests_total",
			Help: "S3 API requests by operation, method and status.",
		}, []string{"operation", "method", "status"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "gridfsd_s3_request_duration_seconds",
			Help:    "S3 API request duration by operation.",
			Buckets: prometheus.ExponentialBuckets(0.001, 4, 10),
		}, []string{"operation"}),
		bytesIn: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "gridfsd_s3_received_bytes_total",
			Help: "Request body bytes the S3 API received.",
		}),
		bytesOut: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "gridfsd_s3_sent_bytes_total",
			Help: "Response body bytes the S3 API sent.",
		}),
		storeBytes: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "gridfsd_s3_store_read_bytes_total",
			Help: "Chunk bytes GetObject received from the store.",
		}),
	}
	if reg != nil {
		for _, c := range []prometheus.Collector{m.requests, m.duration, m.bytesIn, m.bytesOut, m.storeBytes} {
			if err := reg.Register(c); err != nil {
				return nil, err
			}
		}
	}
	return m, nil
}

func (m *metrics) observe(op, method string, status int, in, out int64, d time.Duration) {
	m.requests.WithLabelValues(op, method, strconv.Itoa(status)).Inc()
	m.duration.WithLabelValues(op).Observe(d.Seconds())
	m.bytesIn.Add(float64(in))
	m.bytesOut.Add(float64(out))
}
