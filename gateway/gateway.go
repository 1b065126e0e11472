// Package gateway is gridfsd's HTTP API: streaming uploads into GridFS
// buckets, range-capable downloads through http.ServeContent, listings,
// bucket management, health and Prometheus metrics. It takes a plain Config
// and knows nothing of flags or configuration files.
package gateway

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/gridfsd/gridfsd/auth"
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
	// DefaultMaxHeaderBytes bounds a request's header block; past it the
	// standard library answers 431.
	DefaultMaxHeaderBytes = 64 << 10
	// DefaultSweepGrace leaves orphaned chunks younger than this alone:
	// they may belong to an upload still streaming.
	DefaultSweepGrace = buckets.DefaultGrace
)

// Config is what a Server needs. Only DB is required.
type Config struct {
	// DB is the database whose buckets the gateway serves.
	DB *buckets.DB
	// Logger receives one line per request and internal errors; nil discards.
	Logger *slog.Logger
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

	// Auth checks every bucket route (see routeAccess); nil or a
	// disabled Authorizer lets everything through.
	Auth *auth.Authorizer
	// TLSCertFile and TLSKeyFile, both or neither, make Serve speak HTTPS.
	TLSCertFile, TLSKeyFile string
	// CORSOrigins are the origins browsers may call the gateway from
	// ("*" for any); empty sends no CORS headers.
	CORSOrigins []string
	// MaxHeaderBytes bounds the request line and headers.
	MaxHeaderBytes int
	// RequestTimeout bounds every request but upload and download bodies,
	// which take as long as they take; 0 means none.
	RequestTimeout time.Duration
	// SweepInterval, when positive, makes Serve remove orphaned chunks
	// older than SweepGrace from every bucket at that interval.
	SweepInterval time.Duration
	SweepGrace    time.Duration
	// ExpirySweepInterval, when positive, makes Serve remove expired
	// files (and uploads a lifecycle rule aborts) from every bucket at
	// that interval; every gateway may, one at a time per bucket.
	ExpirySweepInterval time.Duration

	// Mounts are other front doors served on the gateway's port under a
	// path prefix (the resumable uploads, WebDAV). The gateway logs and
	// counts their requests; each door checks access and applies limits
	// itself, through auth and buckets, as the S3 port does.
	Mounts []Mount
}

// Mount serves Handler for every path under Prefix, which begins and ends
// with "/" (for example "/dav/"). The handler sees the full path.
type Mount struct {
	Prefix  string
	Handler http.Handler
	// Signable, when set, lets POST /sign mint URLs for the door: it
	// names the bucket a request of method on path writes to, or says
	// that it cannot be signed. A signed URL of a door needs write access.
	Signable func(method, path string) (bucket string, ok bool)
}

func (c *Config) validate() error {
	if c.DB == nil {
		return errors.New("gateway: config has no DB")
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
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
	if c.MaxHeaderBytes <= 0 {
		c.MaxHeaderBytes = DefaultMaxHeaderBytes
	}
	if c.RequestTimeout < 0 || c.SweepInterval < 0 || c.SweepGrace < 0 || c.ExpirySweepInterval < 0 {
		return errors.New("gateway: request timeout, sweep interval and sweep grace may not be negative")
	}
	if c.SweepGrace == 0 {
		c.SweepGrace = DefaultSweepGrace
	}
	for _, m := range c.Mounts {
		if len(m.Prefix) < 2 || m.Prefix[0] != '/' || m.Prefix[len(m.Prefix)-1] != '/' || m.Handler == nil {
			return fmt.Errorf("gateway: mount %q needs a prefix like /name/ and a handler", m.Prefix)
		}
	}
	if (c.TLSCertFile == "") != (c.TLSKeyFile == "") {
		return errors.New("gateway: set both TLS certificate and key, or neither")
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
	tls        *tls.Config
	live       *liveUploads
	expiry     *expiryMetrics
}

// New builds a Server from cfg.
func New(cfg Config) (*Server, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	base, cancel := context.WithCancel(context.Background())
	s := &Server{
		cfg:        cfg,
		metrics:    newMetrics(prometheus.NewRegistry(), cfg.DB),
		base:       base,
		cancelBase: cancel,
		live:       &liveUploads{},
	}
	s.expiry = newExpiryMetrics(s.metrics.registry)
	if cfg.TLSCertFile != "" {
		// Loaded here so that a bad certificate fails at start, not at
		// the first handshake.
		cert, err := tls.LoadX509KeyPair(cfg.TLSCertFile, cfg.TLSKeyFile)
		if err != nil {
			cancel()
			return nil, fmt.Errorf("gateway: load TLS certificate: %w", err)
		}
		s.tls = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	}
	h := &handler{db: cfg.DB, cfg: cfg, metrics: s.metrics, live: s.live}
	s.echo = newRouter(s, h)
	return s, nil
}

// Handler is the gateway's HTTP handler, for tests and for callers that run
// their own http.Server.
func (s *Server) Handler() http.Handler { return s.echo }

// Registry is the Prometheus registry the server's metrics live in; /metrics
// serves it.
func (s *Server) Registry() *prometheus.Registry { return s.metrics.registry }

// warnIfOpen logs loudly when the gateway listens beyond loopback with no
// access control: anyone who can reach the port can read and delete every
// file.
func (s *Server) warnIfOpen(ln net.Listener) {
	if s.cfg.Auth != nil && s.cfg.Auth.Enabled() {
		return
	}
	if a, ok := ln.Addr().(*net.TCPAddr); ok && a.IP.IsLoopback() {
		return
	}
	s.cfg.Logger.Warn("ACCESS CONTROL IS OFF and the gateway listens beyond loopback: anyone who reaches "+
		ln.Addr().String()+" can read, overwrite and delete every file; configure auth.tokens (see docs/SECURITY.md)",
		"listen", ln.Addr().String())
}

// Serve answers HTTP requests on ln until ctx is cancelled, then shuts down
// gracefully: it stops accepting connections, lets in-flight requests run
// for up to ShutdownTimeout, then cuts the rest, whose uploads abort and
// remove their chunks. It returns once every handler has returned.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	srv := &http.Server{
		Handler:           s.echo,
		ReadHeaderTimeout: s.cfg.ReadHeaderTimeout,
		IdleTimeout:       s.cfg.IdleTimeout,
		MaxHeaderBytes:    s.cfg.MaxHeaderBytes,
		TLSConfig:         s.tls,
		BaseContext:       func(net.Listener) context.Context { return s.base },
		ErrorLog:          slog.NewLogLogger(s.cfg.Logger.Handler(), slog.LevelDebug),
	}
	s.warnIfOpen(ln)
	served := make(chan error, 1)
	go func() {
		if s.tls != nil {
			served <- srv.ServeTLS(ln, "", "")
			return
		}
		served <- srv.Serve(ln)
	}()
	sweepDone := make(chan struct{})
	sweepCtx, stopSweep := context.WithCancel(ctx)
	go func() {
		defer close(sweepDone)
		s.runSweeper(sweepCtx)
	}()
	expiryDone := make(chan struct{})
	go func() {
		defer close(expiryDone)
		s.runExpirySweeper(sweepCtx)
	}()
	defer func() { <-expiryDone }()
	defer func() {
		stopSweep()
		<-sweepDone
	}()

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
