package gateway

import (
	"context"
	"time"

	"github.com/gridfsd/gridfsd/buckets"
	"github.com/prometheus/client_golang/prometheus"
)

// expiryMetrics count what the expiry sweeper removes.
type expiryMetrics struct {
	files   prometheus.Counter
	bytes   prometheus.Counter
	uploads prometheus.Counter
	lag     prometheus.Gauge
}

func newExpiryMetrics(reg *prometheus.Registry) *expiryMetrics {
	m := &expiryMetrics{
		files: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "gridfsd_expired_files_total",
			Help: "Expired files the expiry sweeper of this gateway removed with their chunks.",
		}),
		bytes: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "gridfsd_expired_bytes_total",
			Help: "Bytes of the expired files the expiry sweeper of this gateway removed.",
		}),
		uploads: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "gridfsd_expiry_aborted_uploads_total",
			Help: "Unfinished multipart uploads a lifecycle rule aborted.",
		}),
		lag: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "gridfsd_expiry_sweeper_lag_seconds",
			Help: "How long past its expiry the longest-expired file the last sweep removed was still stored (0: nothing to remove).",
		}),
	}
	reg.MustRegister(m.files, m.bytes, m.uploads, m.lag)
	return m
}

// runExpirySweeper sweeps every bucket for expired files every
// ExpirySweepInterval until ctx ends; it does nothing when the interval is
// 0. Expired files are invisible already: the sweep only frees their space
// and removes them from what other GridFS tools see.
func (s *Server) runExpirySweeper(ctx context.Context) {
	if s.cfg.ExpirySweepInterval <= 0 {
		return
	}
	s.cfg.Logger.Info("expiry sweeper started", "interval", s.cfg.ExpirySweepInterval.String())
	t := time.NewTicker(s.cfg.ExpirySweepInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		s.SweepExpired(ctx)
	}
}

// SweepExpired removes the expired files of every bucket once, skipping the
// buckets another gateway is sweeping, and returns how many files it
// removed. Failures are logged and the next bucket is tried.
func (s *Server) SweepExpired(ctx context.Context) int64 {
	log := s.cfg.Logger.With("component", "expiry-sweeper")
	names, err := s.cfg.DB.Names(ctx)
	if err != nil {
		if ctx.Err() == nil { // not a shutdown
			log.Warn("expiry sweep: list buckets", "error", err)
		}
		return 0
	}
	var total int64
	var lag time.Duration
	for _, name := range names {
		if ctx.Err() != nil {
			break
		}
		b, err := s.cfg.DB.Bucket(ctx, name)
		if err != nil {
			log.Warn("expiry sweep: open bucket", "bucket", name, "error", err)
			continue
		}
		res, err := b.SweepExpired(ctx, buckets.SweepOptions{})
		if err != nil && ctx.Err() == nil {
			log.Warn("expiry sweep", "bucket", name, "error", err)
		}
		if res.Files > 0 || res.Uploads > 0 {
			log.Info("expiry sweep: removed expired files", "bucket", name, "files", res.Files, "bytes", res.Bytes,
				"aborted_uploads", res.Uploads, "lag", res.Lag.Round(time.Millisecond).String())
		}
		s.expiry.files.Add(float64(res.Files))
		s.expiry.bytes.Add(float64(res.Bytes))
		s.expiry.uploads.Add(float64(res.Uploads))
		total += res.Files
		lag = max(lag, res.Lag)
	}
	s.expiry.lag.Set(lag.Seconds())
	return total
}
