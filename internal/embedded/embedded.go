// Package embedded runs FerretDB on SQLite inside the gridfsd process, so that
// gridfsd works out of the box and tests need no external MongoDB.
//
// It is a single-node store on one machine: the fork of FerretDB in
// third_party/ferretdb answers GridFS's queries through SQLite's indexes, so a
// seek into a bucket of gigabytes takes milliseconds (docs/BENCHMARKS.md).
// Production points at MongoDB.
package embedded

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"time"

	"github.com/gridfsd/gridfsd/internal/gcfloor"
	"github.com/gridfsd/gridfsd/third_party/ferretdb/ferretdb"
)

// Store is a running embedded FerretDB.
type Store struct {
	uri    string
	cancel context.CancelFunc
	done   chan struct{}
	space  *space
}

// heapFloor is the garbage the process may hold between two collections
// while the store runs, however small its live heap (internal/gcfloor).
//
// Why: reading a GridFS chunk makes the store allocate its 255 KiB (the
// SQLite driver copies each BLOB it returns into a new slice), garbage once
// the reply is written. gridfsd's readers ask for runs of 8 chunks, so the
// store's live heap stays at a few MiB and the collector ran every 4-5 MB
// read: 431 cycles for 1.9 GiB, each one also returning freed pages to the
// kernel that the next chunks faulted in again; the store spent 1.6-1.8x
// the CPU per byte it spends on the driver's download, whose 16 MiB batches
// keep its heap large (133 cycles). With the floor, 151-154 cycles and
// the store's CPU close to the driver's (docs/BENCHMARKS.md, "Reads and
// the garbage collector"). What it costs is up to this much more garbage
// held while the process's live heap is small (the store's RSS after 30
// reads of 64 MiB: 39.2 -> 45.6 MiB, under the 62.7 MiB the driver's
// downloads make it hold).
const heapFloor = 16 << 20

// Config says where the store keeps its data and where it listens.
type Config struct {
	// DataDir holds the SQLite files; it is created when missing.
	DataDir string
	// Listen is the TCP address for the MongoDB wire protocol, such as
	// "127.0.0.1:27017"; port 0 picks a free port.
	Listen string
	// Logger receives FerretDB's own log; nil discards it.
	Logger *slog.Logger
	// Notices receives the store's reports on its data directory (the
	// emergency reserve released, the format stamp not written); nil
	// discards them.
	Notices *slog.Logger
	// Ballast is the size of the emergency reserve (BallastFile); 0 keeps
	// none.
	Ballast int64
	// PageSize is the SQLite page size of the store's databases, a power
	// of two from 512 to 65536; 0 is DefaultPageSize. A database of
	// another page size is converted to it when the store opens it (fork
	// item 19). Small pages fill better with small files (4 KiB: about
	// 1.05x the bytes stored in files of 4-64 KiB, against 1.20x) and cost
	// more CPU per byte of large ones (docs/BENCHMARKS.md).
	PageSize int64

	// disablePushdown makes the store answer every query by reading the whole collection, the
	// reference the differential test compares the index pushdown with.
	disablePushdown bool
	// keepBinaryInText stores binary data inside the documents' text, as the
	// format before FerretDB fork item 23 did: the binary format's reference.
	keepBinaryInText bool
}

// DefaultPageSize is the page size of the store's databases unless
// Config.PageSize says otherwise (FerretDB fork item 15).
const DefaultPageSize = 32 << 10

// CheckPageSize reports whether size is a page size SQLite takes: a power
// of two from 512 to 65536, or 0 for DefaultPageSize.
func CheckPageSize(size int64) error {
	if size != 0 && (size < 512 || size > 65536 || size&(size-1) != 0) {
		return fmt.Errorf("page size %d: SQLite's page size is a power of two from 512 to 65536 bytes", size)
	}
	return nil
}

// pageSizeQuery is the query of the store's SQLite URI that sets the page
// size of its databases: none for DefaultPageSize, the fork's own default.
func pageSizeQuery(size int64) string {
	if size == 0 || size == DefaultPageSize {
		return ""
	}
	return fmt.Sprintf("?_pragma=page_size(%d)", size)
}

// Start starts the store and waits until it accepts connections.
func Start(cfg Config) (*Store, error) {
	if cfg.DataDir == "" {
		return nil, errors.New("embedded store: data dir is empty")
	}
	if err := CheckPageSize(cfg.PageSize); err != nil {
		return nil, fmt.Errorf("embedded store: %w", err)
	}
	dir, err := filepath.Abs(cfg.DataDir)
	if err != nil {
		return nil, fmt.Errorf("embedded store: data dir: %w", err)
	}
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return nil, fmt.Errorf("embedded store: create data dir: %w", err)
	}
	format, stamped, err := readFormat(dir)
	if err != nil {
		return nil, fmt.Errorf("embedded store: %w", err)
	}
	var bl *ballast
	if cfg.Ballast > 0 {
		// Released before SQLite opens its files on a full disk: it
		// needs room for its shared-memory file and log to start.
		bl = &ballast{path: filepath.Join(dir, BallastFile), size: cfg.Ballast, log: cfg.logger()}
		bl.check(dir)
	}
	listen := cfg.Listen
	if listen == "" {
		listen = "127.0.0.1:0"
	}
	// FerretDB reports its actual address only through MongoDBURI after Run
	// has started, which may block; reserving the port here keeps it simple.
	if _, port, err := net.SplitHostPort(listen); err == nil && port == "0" {
		l, err := net.Listen("tcp", listen)
		if err != nil {
			return nil, fmt.Errorf("embedded store: listen %s: %w", listen, err)
		}
		listen = l.Addr().String()
		l.Close()
	}
	handler := slog.DiscardHandler
	if cfg.Logger != nil {
		handler = cfg.Logger.Handler()
	}
	logger := slog.New(&lazyAttrs{h: handler})
	f, err := ferretdb.New(&ferretdb.Config{
		Listener:  ferretdb.ListenerConfig{TCP: listen},
		Handler:   "sqlite",
		SQLiteURL: "file:" + dir + "/" + pageSizeQuery(cfg.PageSize),
		Logger:    logger,
		// the conversions' progress and warnings: the data directory's reports
		NoticeLogger: cfg.logger(),

		DisablePushdown:  cfg.disablePushdown,
		KeepBinaryInText: cfg.keepBinaryInText,
	})
	if err != nil {
		if free, ferr := fsFree(dir); ferr == nil && free < 1<<20 {
			return nil, fmt.Errorf("embedded store: the disk of %s is full (%d bytes free): make room on it, then start again: %w", dir, free, err)
		}
		return nil, fmt.Errorf("embedded store: %w", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &Store{uri: "mongodb://" + listen + "/", cancel: cancel, done: make(chan struct{}), space: &space{dir: dir, ballast: uint64(max(cfg.Ballast, 0)), dbs: map[string]*sql.DB{}}}
	gcfloor.Raise(heapFloor)
	go func() {
		defer close(s.done)
		_ = f.Run(ctx)
	}()
	if bl != nil {
		go func() {
			t := time.NewTicker(ballastInterval)
			defer t.Stop()
			for {
				select {
				case <-ctx.Done():
					return
				case <-t.C:
					bl.check(dir)
				}
			}
		}()
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", listen, time.Second)
		if err == nil {
			c.Close()
			// Stamped once the store has opened (and upgraded) the
			// files, so a failed upgrade keeps the older stamp. A
			// failure (a full disk) must not keep the store from
			// starting, where deletes free space: the next start
			// stamps it.
			if !stamped || format != FormatVersion {
				if err := writeFormat(dir); err != nil {
					cfg.logger().Warn("cannot stamp the data directory's format", "error", err)
				}
			}
			return s, nil
		}
		if time.Now().After(deadline) {
			s.Close()
			return nil, fmt.Errorf("embedded store: not accepting connections on %s: %w", listen, err)
		}
		select {
		case <-s.done:
			return nil, fmt.Errorf("embedded store: stopped while starting on %s", listen)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// logger is where the store reports on its data directory: Notices, or
// nowhere.
func (c Config) logger() *slog.Logger {
	if c.Notices == nil {
		return slog.New(slog.DiscardHandler)
	}
	return c.Notices
}

// URI is the MongoDB connection string of the store.
func (s *Store) URI() string { return s.uri }

// Close stops the store and waits until its files are closed.
func (s *Store) Close() error {
	s.space.close()
	s.cancel()
	<-s.done
	return nil
}

// lazyAttrs defers a handler's WithAttrs and WithGroup to the records that
// are logged. FerretDB calls logger.With with every SQL query and its
// arguments, chunk data included; slog's handlers format those attributes
// at once, whatever the level, which cost a quarter of the store's CPU on
// uploads. Deferred, they cost nothing unless a record is enabled.
type lazyAttrs struct {
	h   slog.Handler
	ops []func(slog.Handler) slog.Handler
}

func (l *lazyAttrs) Enabled(ctx context.Context, level slog.Level) bool {
	return l.h.Enabled(ctx, level)
}

func (l *lazyAttrs) Handle(ctx context.Context, r slog.Record) error {
	h := l.h
	for _, op := range l.ops {
		h = op(h)
	}
	return h.Handle(ctx, r)
}

func (l *lazyAttrs) WithAttrs(attrs []slog.Attr) slog.Handler {
	return l.with(func(h slog.Handler) slog.Handler { return h.WithAttrs(attrs) })
}

func (l *lazyAttrs) WithGroup(name string) slog.Handler {
	return l.with(func(h slog.Handler) slog.Handler { return h.WithGroup(name) })
}

func (l *lazyAttrs) with(op func(slog.Handler) slog.Handler) *lazyAttrs {
	ops := make([]func(slog.Handler) slog.Handler, len(l.ops), len(l.ops)+1)
	copy(ops, l.ops)
	return &lazyAttrs{h: l.h, ops: append(ops, op)}
}
