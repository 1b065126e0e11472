// Package dav is gridfsd's WebDAV door (RFC 4918, classes 1 and 2): GridFS
// mounted as a drive by Windows Explorer, macOS Finder, davfs2, GNOME,
// rclone, Cyberduck and cadaver. The protocol is golang.org/x/net/webdav's;
// this package gives it a file system over package buckets (fs.go,
// files.go), a lock system kept in MongoDB that every gateway shares
// (locks.go), access control through package auth, and the corrections a
// file manager needs (server.go): statuses that say what failed, PROPFIND
// limited to depth 0 and 1, downloads with the HTTP API's headers.
package dav

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/gridfsd/gridfsd/auth"
	"github.com/gridfsd/gridfsd/buckets"
	"github.com/gridfsd/gridfsd/internal/reqlog"
	"github.com/prometheus/client_golang/prometheus"
	"golang.org/x/net/webdav"
)

// Defaults of Config.
const (
	DefaultPrefix = "/dav/"
	// DefaultMaxLockTimeout caps the timeout of a lock: clients that ask
	// for "Infinite" (Office, Finder) refresh theirs anyway, and a lock
	// left by a client that went away must free the file.
	DefaultMaxLockTimeout = time.Hour
)

// Config is what a Server needs. Only DB is required.
type Config struct {
	DB *buckets.DB
	// Auth decides access; nil or a disabled Authorizer lets everything
	// through.
	Auth *auth.Authorizer
	// Logger receives the door's internal errors; nil discards.
	Logger *slog.Logger
	// Prefix is where the door is mounted, "/dav/" by default.
	Prefix string
	// MaxLockTimeout caps the timeout of locks.
	MaxLockTimeout time.Duration
}

func (c *Config) validate() error {
	if c.DB == nil {
		return errors.New("dav: config has no DB")
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	if c.Prefix == "" {
		c.Prefix = DefaultPrefix
	}
	if !strings.HasPrefix(c.Prefix, "/") || !strings.HasSuffix(c.Prefix, "/") {
		return fmt.Errorf("dav: prefix %q does not begin and end with /", c.Prefix)
	}
	if c.MaxLockTimeout <= 0 {
		c.MaxLockTimeout = DefaultMaxLockTimeout
	}
	return nil
}

// Server is the WebDAV door, an http.Handler for the paths under Prefix.
type Server struct {
	cfg     Config
	fs      *fileSystem
	locks   *lockSystem
	dav     *webdav.Handler
	metrics *metrics
}

// New builds a Server from cfg.
func New(cfg Config) (*Server, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	m := newMetrics()
	s := &Server{cfg: cfg, metrics: m}
	s.fs = &fileSystem{s: s}
	s.locks = &lockSystem{coll: cfg.DB.Database().Collection(LocksCollection), onContended: m.lockContended.Inc, etag: s.fs.etag}
	s.dav = &webdav.Handler{
		Prefix:     strings.TrimSuffix(cfg.Prefix, "/"),
		FileSystem: s.fs,
		LockSystem: s.locks,
	}
	return s, nil
}

// Register adds the door's metrics to reg (the gateway's registry, which
// /metrics serves).
func (s *Server) Register(reg prometheus.Registerer) error {
	for _, c := range s.metrics.collectors() {
		if err := reg.Register(c); err != nil {
			return fmt.Errorf("dav: metrics: %w", err)
		}
	}
	return nil
}

// EnsureIndexes creates the index the lock queries use. Call it once at
// start; without it locks work, only slower.
func (s *Server) EnsureIndexes(ctx context.Context) error {
	_, err := s.locks.coll.Indexes().CreateOne(ctx, mongoIndex("root"))
	if err != nil {
		return fmt.Errorf("dav: create lock index: %w", err)
	}
	return nil
}

// ServeHTTP checks the path and access, answers what golang.org/x/net/webdav
// gets wrong for a shared store (PROPFIND of a whole tree, downloads
// without the HTTP API's headers, lock timeouts without end, statuses that
// hide the reason) and hands the rest to it.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	q := &request{method: r.Method, r: r, line: reqlog.From(r.Context(), s.cfg.Logger)}
	r = r.WithContext(withRequest(r.Context(), q))
	q.r = r
	status, err := s.serve(w, r, q)
	if err != nil {
		s, internal := classify(r.Context(), err)
		if s == 0 {
			s = status
		}
		q.refused(err, internal)
		writeError(w, s, message(s, err, internal))
	}
}

// serve answers r, or returns the error to answer with.
func (s *Server) serve(w http.ResponseWriter, r *http.Request, q *request) (int, error) {
	rel, ok := strings.CutPrefix(r.URL.Path, strings.TrimSuffix(s.cfg.Prefix, "/"))
	if !ok {
		return http.StatusNotFound, errors.New("not a WebDAV path")
	}
	l, err := parseLoc(rel)
	if err != nil {
		return 0, err
	}
	q.target = l.path()
	var dst *loc
	if r.Method == "COPY" || r.Method == "MOVE" {
		d, err := s.destination(r)
		if err != nil {
			return 0, err
		}
		dst = &d
		if r.Method == "MOVE" {
			q.moveDst = d.path()
		} else {
			q.copyDst = d.path()
		}
		// RFC 4918 10.6: no Overwrite header means T; webdav's MOVE
		// reads it as F.
		if r.Header.Get("Overwrite") == "" {
			r.Header.Set("Overwrite", "T")
		}
	}
	if err := s.authorize(r, q, l, dst); err != nil {
		return 0, err
	}
	h := w.Header()
	switch r.Method {
	case http.MethodOptions:
		h.Set("Accept-Ranges", "bytes")
	case http.MethodGet, http.MethodHead:
		if l.bucket != "" && l.name != "" {
			return 0, s.get(w, r, l)
		}
	case http.MethodPost:
		return 0, fmt.Errorf("%w: POST is not a WebDAV method", errNotAllowed)
	case http.MethodPut:
		if err := s.preparePut(w, r, q, l); err != nil {
			return 0, err
		}
	case "PROPFIND", "PROPPATCH":
		body, err := readXMLBody(r)
		if err != nil {
			return 0, err
		}
		// An empty PROPFIND is allprop, which RFC 4331 leaves the quota out of.
		q.wantsQuota = bytes.Contains(body, []byte("quota-"))
		if r.Method == "PROPPATCH" {
			break
		}
		// A depth of infinity walks the whole bucket, one listing per
		// folder: RFC 4918 9.1 lets a server refuse it.
		if d := r.Header.Get("Depth"); d != "0" && d != "1" {
			h.Set("Content-Type", "application/xml; charset=utf-8")
			w.WriteHeader(http.StatusForbidden)
			w.Write([]byte(`<?xml version="1.0" encoding="utf-8"?>` + "\n" +
				`<D:error xmlns:D="DAV:"><D:propfind-finite-depth/></D:error>` + "\n"))
			return 0, nil
		}
	case "LOCK":
		if l.bucket == "" {
			return 0, fmt.Errorf("%w: the list of buckets cannot be locked", errForbidden)
		}
		r.Header.Set("Timeout", s.lockTimeout(r.Header.Get("Timeout")))
		body, err := readXMLBody(r)
		if err != nil {
			return 0, err
		}
		return 0, s.lock(w, r, l, body)
	case "UNLOCK":
		return 0, s.unlock(w, r, l)
	case "COPY", "MOVE":
		switch {
		case dst.path() == l.path():
			return 0, fmt.Errorf("%w: the destination is the source", errForbidden)
		case dst.within(l):
			return 0, fmt.Errorf("%w: cannot %s %s into itself", errForbidden, strings.ToLower(r.Method), l.path())
		case l.name == "" || dst.name == "":
			return 0, fmt.Errorf("%w: buckets cannot be copied or moved through WebDAV", errForbidden)
		}
	}
	if r.Method == http.MethodPut || r.Method == "COPY" {
		// A slot of max-concurrent-uploads, shared with every door.
		release, err := s.cfg.DB.AcquireUpload()
		if err != nil {
			return 0, err
		}
		defer release()
	}
	// webdav asks the lock system about If headers without the request:
	// a handler of its own tells it whose request it is and what it
	// writes (COPY reads its source).
	writes := []string{l.path()}
	switch r.Method {
	case "COPY":
		writes = []string{dst.path()}
	case "MOVE":
		writes = append(writes, dst.path())
	}
	dh := *s.dav
	dh.LockSystem = principalLocks{lockSystem: s.locks, q: q, writes: writes}
	rep := &reply{ResponseWriter: w, q: q}
	dh.ServeHTTP(rep, r)
	if q.copyOver != nil && rep.status >= 200 && rep.status < 300 {
		// The client has its reply and may be gone: the removal is ours.
		q.finishCopyOver(context.WithoutCancel(r.Context()))
	}
	return 0, nil
}

// destination reads the Destination header of COPY and MOVE.
func (s *Server) destination(r *http.Request) (loc, error) {
	hdr := r.Header.Get("Destination")
	if hdr == "" {
		return loc{}, badRequest("%s without a Destination header", r.Method)
	}
	u, err := url.Parse(hdr)
	if err != nil {
		return loc{}, badRequest("Destination %q: %v", hdr, err)
	}
	if u.Host != "" && u.Host != r.Host {
		return loc{}, badRequest("Destination %q is on another server", hdr)
	}
	rel, ok := strings.CutPrefix(u.Path, strings.TrimSuffix(s.cfg.Prefix, "/"))
	if !ok || (rel != "" && rel[0] != '/') {
		return loc{}, badRequest("Destination %q is not under %s", hdr, s.cfg.Prefix)
	}
	return parseLoc(rel)
}

// lockTimeout is the Timeout header of a LOCK with the duration capped:
// "Infinite" and absent included.
func (s *Server) lockTimeout(h string) string {
	max := int64(s.cfg.MaxLockTimeout / time.Second)
	first, _, _ := strings.Cut(h, ",")
	first = strings.TrimSpace(first)
	if n, ok := strings.CutPrefix(first, "Second-"); ok {
		if v, err := strconv.ParseInt(n, 10, 64); err == nil && v >= 0 && v <= max {
			return first
		}
		if _, err := strconv.ParseUint(n, 10, 64); err != nil {
			return h // malformed: webdav answers 400
		}
	} else if first != "" && first != "Infinite" {
		return h
	}
	return "Second-" + strconv.FormatInt(max, 10)
}

// uploadSpec is how a PUT is stored: what its headers say.
type uploadSpec struct {
	contentType string
	mtime       string
	cond        buckets.Conditions
}

func (u uploadSpec) options() buckets.UploadOptions {
	opts := buckets.UploadOptions{ContentType: u.contentType, Conditions: u.cond}
	if u.mtime != "" {
		opts.Metadata = append(opts.Metadata, mtimeEntry(u.mtime))
	}
	return opts
}

// preparePut checks what a PUT can be refused for before its body is
// read, and reads the headers that shape the file.
func (s *Server) preparePut(w http.ResponseWriter, r *http.Request, q *request, l loc) error {
	if len(r.Header.Values("Content-Range")) > 0 {
		return badRequest("PUT with Content-Range: a partial upload is not supported, send the whole file")
	}
	if r.ContentLength > 0 && l.bucket != "" {
		// The limits are buckets' (buckets.Limits): the upload enforces
		// them while the body streams; a declared length fails early.
		b, err := s.fs.bucket(r.Context(), l.bucket)
		if err != nil {
			return err
		}
		if err := b.CheckUploadSize(r.ContentLength); err != nil {
			return err
		}
	}
	if ct := r.Header.Get("Content-Type"); ct != "" {
		if _, _, err := mime.ParseMediaType(ct); err == nil {
			q.upload.contentType = ct
		}
	}
	for _, k := range []string{"X-OC-Mtime", "X-OC-MTime"} {
		if v := r.Header.Get(k); v != "" {
			if _, ok := parseUnixSeconds(v); !ok {
				return badRequest("X-OC-Mtime %q is not Unix seconds", v)
			}
			q.upload.mtime = v
			// ownCloud's answer, which rclone and the desktop clients
			// check to know that the time was kept.
			w.Header().Set("X-OC-MTime", "accepted")
			break
		}
	}
	q.upload.cond = buckets.Conditions{IfMatch: r.Header.Get("If-Match"), IfNoneMatch: r.Header.Get("If-None-Match")}
	return nil
}

// get serves GET and HEAD of a file as the HTTP API does: its ETag, type,
// modification time and ranges (fetching only the chunks of a closed
// range), and never content that could run in the gateway's origin.
func (s *Server) get(w http.ResponseWriter, r *http.Request, l loc) error {
	q := requestOf(r.Context())
	fi, err := s.fs.stat(r.Context(), l)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("%w: %s", buckets.ErrFileNotFound, l.path())
		}
		return err
	}
	if fi.dir {
		return fmt.Errorf("%w: %s is a folder; list it with PROPFIND", errNotAllowed, l.path())
	}
	b, err := s.fs.bucket(r.Context(), l.bucket)
	if err != nil {
		return err
	}
	f := &readFile{fsys: s.fs, ctx: r.Context(), b: b, info: fi}
	defer f.Close()
	h := w.Header()
	h.Set("ETag", fi.file.ETag())
	ct := contentType(fi.file)
	h.Set("Content-Type", ct)
	h.Set("X-Content-Type-Options", "nosniff")
	// Browsers may open these URLs: nothing stored runs as the gateway.
	h.Set("Content-Security-Policy", buckets.ActiveContentPolicy)
	h.Set("Accept-Ranges", "bytes")
	// The content headers the uploader gave (HTTP PUT, S3 PutObject), as
	// every door serves them: Content-Encoding, Cache-Control, ...
	disposition := ""
	for _, kv := range fi.file.StoredHeaders() {
		if kv[0] == "Content-Disposition" {
			disposition = kv[1]
			continue
		}
		h.Set(kv[0], kv[1])
	}
	h.Set("Content-Disposition", buckets.ContentDisposition(ct, disposition, fi.file.Filename, false))
	if first, end, ok := closedRange(r.Header.Get("Range"), fi.file.Length); ok && r.Method == http.MethodGet {
		if err := f.Expect(first, end); err != nil {
			return err
		}
	}
	start := time.Now()
	http.ServeContent(&reply{ResponseWriter: w, q: q}, r, "", fi.mod, f)
	if r.Method == http.MethodGet {
		s.metrics.downloads.Duration.Observe(time.Since(start).Seconds())
	}
	return nil
}

// closedRange is the one range "bytes=a-b" of a Range header, as [a, b+1)
// within size; anything else is left to ServeContent.
func closedRange(h string, size int64) (int64, int64, bool) {
	spec, ok := strings.CutPrefix(h, "bytes=")
	if !ok || strings.Contains(spec, ",") {
		return 0, 0, false
	}
	a, b, ok := strings.Cut(strings.TrimSpace(spec), "-")
	first, err1 := strconv.ParseInt(a, 10, 64)
	last, err2 := strconv.ParseInt(b, 10, 64)
	if !ok || err1 != nil || err2 != nil || first < 0 || last < first || first >= size {
		return 0, 0, false
	}
	return first, min(last+1, size), true
}
