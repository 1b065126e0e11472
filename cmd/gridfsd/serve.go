package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"syscall"
	"time"

	"github.com/gridfsd/gridfsd/auth"
	"github.com/gridfsd/gridfsd/buckets"
	"github.com/gridfsd/gridfsd/config"
	"github.com/gridfsd/gridfsd/dav"
	"github.com/gridfsd/gridfsd/gateway"
	"github.com/gridfsd/gridfsd/internal/embedded"
	"github.com/gridfsd/gridfsd/internal/grants"
	"github.com/gridfsd/gridfsd/resumable"
	"github.com/gridfsd/gridfsd/s3"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/spf13/cobra"
)

func (a *app) serveCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Run the HTTP gateway (on the embedded store unless --uri names a MongoDB)",
		Long: `serve runs gridfsd's HTTP API and browser UI.

With --uri it serves the GridFS buckets of that MongoDB (standalone, replica
set or sharded cluster; TLS and authentication through the connection
string). Without --uri it starts an embedded single-node store (FerretDB on
SQLite) in --data-dir, reachable by MongoDB tools on --embedded-listen: one
node on one machine (it serves gigabytes of media, a seek in milliseconds),
not for production.`,
		Example: `  gridfsd serve
  gridfsd serve --uri "mongodb://db1,db2,db3/files?replicaSet=rs0" --listen 0.0.0.0:8080
  GRIDFSD_MAX_UPLOAD_SIZE=2GiB gridfsd serve --config /etc/gridfsd.yaml`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			// Bound here, not at construction: viper keeps one flag per key
			// and other commands may define flags for the same keys.
			for _, k := range []string{
				config.KeyListen, config.KeyDataDir, config.KeyMaxUploadSize,
				config.KeyReadHeaderTimeout, config.KeyIdleTimeout, config.KeyShutdownTimeout,
				config.KeyLogLevel, config.KeyLogFormat,
				config.KeyMaxConcurrentUploads, config.KeyMaxHeaderBytes, config.KeyRequestTimeout,
				config.KeySweepInterval, config.KeySweepGrace, config.KeyTLSCert, config.KeyTLSKey,
				config.KeyS3Listen, config.KeyS3MultipartExpiry, config.KeyS3Domain,
				config.KeyExpirySweepInterval, config.KeyLifecycleDebugDay, config.KeyChunkCacheSize, config.KeyUploadExpiry, config.KeyMinFreeSpace,
				config.KeyEmbeddedPageSize,
			} {
				a.bind(cmd.Flags().Lookup(k))
			}
			c, err := a.load()
			if err != nil {
				return err
			}
			m := &Main{Config: c, Logger: newLogger(cmd.ErrOrStderr(), c), LogOut: cmd.ErrOrStderr()}
			return m.Run(cmd.Context())
		},
	}
	f := cmd.Flags()
	def := config.Default
	f.String(config.KeyListen, def(config.KeyListen), "HTTP listen address, host:port (0.0.0.0:8080 for every interface)")
	f.String(config.KeyDataDir, def(config.KeyDataDir), "directory of the embedded store (used without --uri)")
	sizeFlag(f, config.KeyMaxUploadSize, "largest upload accepted, such as 512MiB or 2GB; 0 means no limit")
	durationFlag(f, config.KeyReadHeaderTimeout, "time a client has to send the request headers")
	durationFlag(f, config.KeyIdleTimeout, "how long an idle keep-alive connection stays open")
	durationFlag(f, config.KeyShutdownTimeout, "on SIGTERM/SIGINT, how long in-flight requests may finish before they are cut")
	f.Int(config.KeyMaxConcurrentUploads, 0, "uploads running at once; past it uploads get 503 with Retry-After (0: no limit)")
	sizeFlag(f, config.KeyMaxHeaderBytes, "largest request line and headers; past it clients get 431")
	sizeFlag(f, config.KeyChunkCacheSize, "memory for chunks that downloads share, so a popular file costs the store one copy (0: none kept)")
	durationFlag(f, config.KeyRequestTimeout, "time limit of every request but upload and download bodies (0s: none)")
	durationFlag(f, config.KeySweepInterval, "remove orphaned chunks of dead uploads at this interval (0s: never; gridfsd fsck --repair does it by hand)")
	durationFlag(f, config.KeySweepGrace, "the sweeper leaves orphaned chunks younger than this alone: they may belong to an upload in progress")
	f.String(config.KeyTLSCert, "", "PEM certificate (chain) file: serve HTTPS (with --tls.key)")
	f.String(config.KeyTLSKey, "", "PEM private key file of --tls.cert")
	f.String(config.KeyS3Listen, def(config.KeyS3Listen), "S3 API listen address, host:port; empty disables it")
	durationFlag(f, config.KeyS3MultipartExpiry, "abort S3 multipart uploads not completed within this time")
	durationFlag(f, config.KeyExpirySweepInterval, "remove expired files and their chunks at this interval (0s: never; they are invisible through gridfsd at once either way)")
	durationFlag(f, config.KeyLifecycleDebugDay, "FOR TESTING ONLY: a lifecycle rule's day lasts this long (0s: 24h), as Ceph RGW's rgw_lc_debug_interval")
	durationFlag(f, config.KeyUploadExpiry, "remove resumable (tus) uploads with no PATCH for this long, with their chunks")
	sizeFlag(f, config.KeyMinFreeSpace, "embedded store: refuse uploads (507) before free disk space falls below this, so deletes still work on a full disk; 0 disables")
	sizeFlag(f, config.KeyEmbeddedPageSize, "embedded store: SQLite page size of its databases, a power of two from 512B to 64KiB; 4KiB stores files under 64 KiB in 1.05x their size instead of 1.20x, at 60-80% more store CPU per byte of large uploads; a change converts the databases at the next start (docs/DEPLOYMENT.md)")
	f.String(config.KeyS3Domain, "", "serve virtual-hosted-style S3 requests to <bucket>.<domain> (path-style works always)")
	f.String(config.KeyLogLevel, def(config.KeyLogLevel), "log level: debug, info, warn or error")
	f.String(config.KeyLogFormat, def(config.KeyLogFormat), "log format: text or json")
	return cmd
}

// Main runs the gateway: it only wires the store, the database and the
// HTTP server together, and undoes it in reverse order.
type Main struct {
	Config config.Config
	Logger *slog.Logger
	// LogOut is where Logger writes; with log-format text the start-up
	// banner goes there as plain lines. Nil: the banner is a log record.
	LogOut io.Writer
}

// Run serves until ctx is cancelled, then shuts down gracefully.
func (m *Main) Run(ctx context.Context) error {
	c, log := m.Config, m.Logger
	authz, err := auth.New(c.Auth)
	if err != nil {
		return fmt.Errorf("cannot set up access control: %w", err)
	}
	// Every address is taken before the embedded store starts: a port in
	// use must not leave a data directory behind or a store running that
	// then waits in vain for a gateway.
	httpLn, err := listen(config.KeyListen, c.Listen, "choose another with --"+config.KeyListen)
	if err != nil {
		return err
	}
	defer httpLn.Close()
	var s3Ln net.Listener
	if c.S3Listen != "" {
		s3Ln, err = listen(config.KeyS3Listen, c.S3Listen, "choose another with --"+config.KeyS3Listen+", or turn the S3 API off with --"+config.KeyS3Listen+"=")
		if err != nil {
			return err
		}
		defer s3Ln.Close()
	}

	uri, embeddedURI := c.URI, ""
	var disk buckets.DiskSpace // MongoDB's disks are its operator's to watch
	if uri == "" {
		store, err := m.startEmbedded()
		if err != nil {
			return err
		}
		defer store.Close()
		uri, embeddedURI, disk = store.URI(), store.URI(), store
	}

	client, db, err := connect(ctx, uri, c)
	if err != nil {
		return fmt.Errorf("cannot open database: %w", err)
	}
	defer func() {
		dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		client.Disconnect(dctx)
	}()
	go func() {
		// Not fatal: a gateway may start before its MongoDB, and /readyz
		// tells load balancers when it can serve.
		pctx, cancel := context.WithTimeout(ctx, c.ConnectTimeout)
		defer cancel()
		if err := client.Ping(pctx, nil); err != nil && ctx.Err() == nil {
			log.Warn("MongoDB does not answer yet; /readyz reports 503 until it does", "error", err)
		}
	}()

	bdb := buckets.NewDB(db)
	bdb.SetLogger(log)
	bdb.SetLifecycleDay(c.LifecycleDebugDay)
	if disk != nil && c.MinFreeSpace > 0 {
		bdb.SetDiskSpace(disk, uint64(c.MinFreeSpace))
	}
	bdb.SetChunkCache(c.ChunkCacheSize)
	bdb.SetPublicACLs(c.PublicACLs)
	authz.SetGrants(grants.Of(bdb)) // canned ACLs and bucket owners, for every door
	// The upload limits are buckets' rules: every door enforces them.
	if err := bdb.SetLimits(buckets.Limits{MaxUploadSize: c.MaxUploadSize, MaxConcurrentUploads: c.MaxConcurrentUploads}); err != nil {
		return err
	}
	davDoor, err := m.newDAV(ctx, bdb, authz)
	if err != nil {
		return err
	}
	tus, err := resumable.New(resumable.Config{
		DB: bdb, Auth: authz, Logger: log, Expiry: c.UploadExpiry,
	})
	if err != nil {
		return fmt.Errorf("cannot create the resumable uploads: %w", err)
	}
	go tus.Run(ctx)
	gw, err := gateway.New(gateway.Config{
		DB:                  bdb,
		Logger:              log,
		ReadHeaderTimeout:   c.ReadHeaderTimeout,
		IdleTimeout:         c.IdleTimeout,
		ShutdownTimeout:     c.ShutdownTimeout,
		Auth:                authz,
		TLSCertFile:         c.TLS.Cert,
		TLSKeyFile:          c.TLS.Key,
		CORSOrigins:         c.CORS.Origins,
		MaxHeaderBytes:      int(c.MaxHeaderBytes),
		RequestTimeout:      c.RequestTimeout,
		SweepInterval:       c.SweepInterval,
		SweepGrace:          c.SweepGrace,
		ExpirySweepInterval: c.ExpirySweepInterval,
		// A ping that outlives server selection only repeats its answer.
		ReadyTimeout: min(c.ConnectTimeout, gateway.DefaultReadyTimeout),
		Mounts: []gateway.Mount{
			{Prefix: dav.DefaultPrefix, Handler: davDoor},
			{Prefix: resumable.DefaultPrefix, Handler: tus, Signable: tus.Signable},
		},
	})
	if err != nil {
		return fmt.Errorf("cannot create gateway: %w", err)
	}
	if err := davDoor.Register(gw.Registry()); err != nil {
		return err
	}
	gw.Registry().MustRegister(tus.Collectors()...)
	s3ctx, stopS3 := context.WithCancel(ctx)
	defer stopS3()
	s3done, err := m.startS3(s3ctx, s3Ln, bdb, authz, gw.Registry())
	if err != nil {
		return err
	}
	var s3Addr net.Addr
	if s3Ln != nil {
		s3Addr = s3Ln.Addr()
	}
	b := newBanner(c, httpLn.Addr(), s3Addr, embeddedURI, db.Name())
	b.space(bdb)
	m.announce(b)
	if b.LowSpace {
		log.Warn("the embedded store's disk is below its reserve: uploads are refused (507) until files are deleted", "free_space", b.FreeSpace)
	}
	err = gw.Serve(ctx, httpLn)
	stopS3()
	if s3err := <-s3done; err == nil {
		err = s3err
	}
	if err != nil {
		return err
	}
	log.Info("gridfsd stopped")
	return nil
}

// listen takes addr for the setting key; a taken or unusable address is
// one line naming the flag, the address and what to do instead.
func listen(key, addr, remedy string) (net.Listener, error) {
	ln, err := net.Listen("tcp", addr)
	if err == nil {
		return ln, nil
	}
	if errors.Is(err, syscall.EADDRINUSE) {
		return nil, fmt.Errorf("--%s %s: address already in use; %s", key, addr, remedy)
	}
	return nil, fmt.Errorf("--%s %s: %w", key, addr, err)
}

// startS3 serves the S3 API on ln, unless it is nil (s3-listen empty),
// until ctx ends; the channel reports how it stopped.
func (m *Main) startS3(ctx context.Context, ln net.Listener, db *buckets.DB, authz *auth.Authorizer, reg prometheus.Registerer) (<-chan error, error) {
	c := m.Config
	done := make(chan error, 1)
	if ln == nil {
		done <- nil
		return done, nil
	}
	srv, err := s3.New(s3.Config{
		DB: db, Auth: authz, Logger: m.Logger, Registerer: reg,
		MaxHeaderBytes: int(c.MaxHeaderBytes), RequestTimeout: c.RequestTimeout,
		MultipartExpiry: c.S3MultipartExpiry, ReadHeaderTimeout: c.ReadHeaderTimeout, IdleTimeout: c.IdleTimeout,
		ShutdownTimeout: c.ShutdownTimeout, TLSCertFile: c.TLS.Cert, TLSKeyFile: c.TLS.Key, Domain: c.S3Domain,
	})
	if err != nil {
		return nil, fmt.Errorf("cannot create the S3 API: %w", err)
	}
	go func() { done <- srv.Serve(ctx, ln) }()
	return done, nil
}

// newDAV builds the WebDAV door, mounted on the HTTP port under /dav/.
func (m *Main) newDAV(ctx context.Context, db *buckets.DB, authz *auth.Authorizer) (*dav.Server, error) {
	srv, err := dav.New(dav.Config{DB: db, Auth: authz, Logger: m.Logger})
	if err != nil {
		return nil, fmt.Errorf("cannot create the WebDAV door: %w", err)
	}
	go func() {
		// Not fatal, as the store may not answer yet: locks work without
		// the index, only slower.
		ictx, cancel := context.WithTimeout(ctx, time.Minute)
		defer cancel()
		if err := srv.EnsureIndexes(ictx); err != nil && ctx.Err() == nil {
			m.Logger.Warn("WebDAV lock index not created", "error", err)
		}
	}()
	return srv, nil
}

// startEmbedded starts the embedded store in data-dir on embedded-listen.
func (m *Main) startEmbedded() (*embedded.Store, error) {
	c := m.Config
	// FerretDB would not notice a MongoDB already on the port, and gridfsd
	// would quietly use that one; fail clearly instead, before the data
	// directory exists.
	l, err := listen(config.KeyEmbeddedListen, c.EmbeddedListen, fmt.Sprintf(
		"if a MongoDB runs there, use it with --uri mongodb://%s, else choose another port with --%s",
		c.EmbeddedListen, config.KeyEmbeddedListen))
	if err != nil {
		return nil, err
	}
	l.Close()
	store, err := embedded.Start(embedded.Config{
		DataDir: c.DataDir,
		Listen:  c.EmbeddedListen,
		Logger:  embeddedLogger(m.Logger, c.LogLevel),
		Notices: m.Logger.With("component", "embedded-store"),
		// A quarter of the reserve, as most 64 MiB: deleting a file
		// writes a few pages per chunk to SQLite's log.
		Ballast:  min(c.MinFreeSpace/4, 64<<20),
		PageSize: c.EmbeddedPageSize,
	})
	if err != nil {
		return nil, fmt.Errorf("cannot start the embedded store: %w", err)
	}
	return store, nil
}

// newLogger builds the process's logger from log-level and log-format,
// which config.Load has checked.
func newLogger(w io.Writer, c config.Config) *slog.Logger {
	opts := &slog.HandlerOptions{Level: logLevel(c.LogLevel)}
	if c.LogFormat == "json" {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
}

func logLevel(s string) slog.Level {
	var l slog.Level
	if err := l.UnmarshalText([]byte(s)); err != nil {
		return slog.LevelInfo
	}
	return l
}

// embeddedLogger passes on FerretDB's errors only, except at debug level:
// it logs every command a client gets wrong (such as the drivers' routine
// endSessions) as a multi-line warning.
func embeddedLogger(log *slog.Logger, level string) *slog.Logger {
	min := max(logLevel(level), slog.LevelError)
	if logLevel(level) == slog.LevelDebug {
		min = slog.LevelDebug
	}
	return slog.New(minLevel{log.Handler(), min}).With("component", "embedded-store")
}

// minLevel raises the level below which a handler drops records.
type minLevel struct {
	slog.Handler
	min slog.Level
}

func (h minLevel) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= h.min && h.Handler.Enabled(ctx, l)
}

func (h minLevel) WithAttrs(attrs []slog.Attr) slog.Handler {
	return minLevel{h.Handler.WithAttrs(attrs), h.min}
}

func (h minLevel) WithGroup(name string) slog.Handler {
	return minLevel{h.Handler.WithGroup(name), h.min}
}
