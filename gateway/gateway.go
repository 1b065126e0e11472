// Package gateway is gridfsd's HTTP API: streaming uploads into GridFS
// buckets, range-capable downloads through http.ServeContent, listings,
// bucket management, health and Prometheus metrics. It takes a plain Config
// and knows nothing of flags or configuration files.
package gateway

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/gridfsd/gridfsd/buckets"
	"github.com/labstack/echo/v4"
	"github.com/prometheus/client_golang/prometheus"
)

// Defaults that Config.validate fills in.
const (
	DefaultReadHeaderTimeout = 10 * time.Second
	DefaultIdleTimeout       = 120 * time.Second
	DefaultShutdownTimeout   = 30 * time.Second
	DefaultReadyTimeout      = 2 * time.Second
	// DefaultMaxMetadataHeader keeps X-Gridfs-Metadata in responses under
	// the header buffers of common proxies (nginx: 4 KiB or 8 KiB in total).
	DefaultMaxMetadataHeader = 2048
)

// Config is what a Server needs. Only DB is required.
type Config struct {
	// DB is the database whose buckets the gateway serves.
	DB *buckets.DB
	// Logger receives one line per request and internal errors; nil discards.
	Logger *slog.Logger
	// MaxUploadSize refuses larger uploads with 413; 0 means no limit other
	// than a bucket's own maxFileSize.
	MaxUploadSize int64
	// ReadHeaderTimeout and IdleTimeout protect against slow and idle
	// clients. There is deliberately no read or write timeout for whole
	// requests: uploads and downloads of large files take as long as they take.
	ReadHeaderTimeout time.Duration
	IdleTimeout       time.Duration
	// ShutdownTimeout is how long in-flight requests may run once Serve's
	// context is cancelled; after it, they are cut and unfinished uploads
	// are aborted.
	ShutdownTimeout time.Duration
	// ReadyTimeout bounds the MongoDB ping of /readyz.
	ReadyTimeout time.Duration
	// MaxMetadataHeader is the largest metadata, as JSON, that downloads
	// repeat in X-Gridfs-Metadata; larger metadata is left out (the JSON
	// listing and the upload response always carry it).
	MaxMetadataHeader int
}

func (c *Config) validate() error {
	if c.DB == nil {
		return errors.New("gateway: config has no DB")
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if c.MaxUploadSize < 0 {
		return fmt.Errorf("gateway: max upload size %d is negative", c.MaxUploadSize)
	}
	if c.ReadHeaderTimeout <= 0 {
		c.ReadHeaderTimeout = DefaultReadHeaderTimeout
	}
	if c.IdleTimeout <= 0 {
		c.IdleTimeout = DefaultIdleTimeout
	}
	if c.ShutdownTimeout <= 0 {
		c.ShutdownTimeout = DefaultShutdownTimeout
	}
	if c.ReadyTimeout <= 0 {
		c.ReadyTimeout = DefaultReadyTimeout
	}
	if c.MaxMetadataHeader <= 0 {
		c.MaxMetadataHeader = DefaultMaxMetadataHeader
	}
	return nil
}

// Server is the gateway: an http.Handler and the http.Server around it.
type Server struct {
	cfg     Config
	echo    *echo.Echo
	metrics *metrics

	// base is the parent of every request's context; cancelling it at the
	// end of a graceful shutdown aborts the uploads still running.
	base       context.Context
	cancelBase context.CancelFunc
	inflight   sync.WaitGroup
}

// New builds a Server from cfg.
func New(cfg Config) (*Server, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	base, cancel := context.WithCancel(context.Background())
	s := &Server{
		cfg:        cfg,
		metrics:    newMetrics(prometheus.NewRegistry()),
		base:       base,
		cancelBase: cancel,
	}
	h := &handler{db: cfg.DB, cfg: cfg, metrics: s.metrics}
	s.echo = newRouter(s, h)
	return s, nil
}

// Handler is the gateway's HTTP handler, for tests and for callers that run
// their own http.Server.
func (s *Server) Handler() http.Handler { return s.echo }

// Registry is the Prometheus registry the server's metrics live in; /metrics
// serves it.
func (s *Server) Registry() *prometheus.Registry { return s.metrics.registry }

// Serve answers HTTP requests on ln until ctx is cancelled, then shuts down
// gracefully: it stops accepting connections, lets in-flight requests run
// for up to ShutdownTimeout, then cuts the rest, whose uploads abort and
// remove their chunks. It returns once every handler has returned.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	srv := &http.Server{
		Handler:           s.echo,
		ReadHeaderTimeout: s.cfg.ReadHeaderTimeout,
		IdleTimeout:       s.cfg.IdleTimeout,
		BaseContext:       func(net.Listener) context.Context { return s.base },
		ErrorLog:          slog.NewLogLogger(s.cfg.Logger.Handler(), slog.LevelDebug),
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()

	select {
	case err := <-served:
		s.cancelBase()
		s.inflight.Wait()
		return fmt.Errorf("serve http: %w", err)
	case <-ctx.Done():
	}
	s.cfg.Logger.Info("shutting down", "timeout", s.cfg.ShutdownTimeout.String())
	sctx, cancel := context.WithTimeout(context.Background(), s.cfg.ShutdownTimeout)
	defer cancel()
	err := srv.Shutdown(sctx)
	if err != nil {
		s.cfg.Logger.Warn("shutdown deadline passed; cutting in-flight requests", "error", err)
		s.cancelBase()
		srv.Close()
	}
	s.inflight.Wait()
	s.cancelBase()
	<-served
	return nil
}
