// Package resumable is gridfsd's door for resumable uploads: the tus 1.0.0
// protocol (tus.io) under /uploads/{bucket}/ on the HTTP port, so that
// tus-js-client, Uppy, tuspy and every tus client upload into GridFS over
// flaky networks, resuming after a drop, a page reload or a gateway
// restart, through any gateway.
//
// The protocol is tusd's handler (github.com/tus/tusd/v2/pkg/handler) over
// a DataStore and a Locker of gridfsd's own, which translate onto
// buckets' resumable uploads: the data rules, the commit, the locks and the
// expiry live there. This package adds what the handler lacks: the
// checksum and expiration extensions, Tus-Version on 412, access control
// with bearer tokens and signed URLs, gridfsd's reply headers and metrics.
package resumable

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/gridfsd/gridfsd/auth"
	"github.com/gridfsd/gridfsd/buckets"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/tus/tusd/v2/pkg/handler"
	xslog "golang.org/x/exp/slog"
)

// Defaults that Config.validate fills in.
const (
	DefaultPrefix = "/uploads/"
	DefaultExpiry = 24 * time.Hour
	// DefaultLockTTL bounds how long an upload stays locked by a gateway
	// that died holding it.
	DefaultLockTTL = buckets.DefaultUploadLockTTL
)

// Config is what a Door needs. Only DB is required.
type Config struct {
	DB     *buckets.DB
	Auth   *auth.Authorizer // nil or disabled: open
	Logger *slog.Logger
	// Prefix is the mount point, "/uploads/".
	Prefix string
	// Expiry is how long an upload lives after its last PATCH (and a
	// finished one's record answers HEAD).
	Expiry time.Duration
	// LockTTL is the lease of an upload's lock; SweepInterval how often
	// expired uploads are removed (default: a tenth of Expiry, at most a
	// minute).
	LockTTL       time.Duration
	SweepInterval time.Duration
	// MaxSize is the largest upload announced as Tus-Max-Size; 0: the DB's
	// Limits. Every limit is applied by buckets whatever it says.
	MaxSize int64
}

func (c *Config) validate() error {
	if c.DB == nil {
		return errors.New("resumable: config has no DB")
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if c.Prefix == "" {
		c.Prefix = DefaultPrefix
	}
	if c.Expiry <= 0 {
		c.Expiry = DefaultExpiry
	}
	if c.LockTTL <= 0 {
		c.LockTTL = DefaultLockTTL
	}
	if c.SweepInterval <= 0 {
		c.SweepInterval = min(c.Expiry/10, time.Minute)
	}
	if c.MaxSize < 0 {
		return fmt.Errorf("resumable: max size %d is negative", c.MaxSize)
	}
	if c.MaxSize == 0 {
		c.MaxSize = c.DB.Limits().MaxUploadSize
	}
	return nil
}

// Door serves the tus protocol; mount it under Config.Prefix.
type Door struct {
	cfg     Config
	tus     *handler.UnroutedHandler
	serve   http.Handler
	metrics *metrics
}

// New builds a Door.
func New(cfg Config) (*Door, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	d := &Door{cfg: cfg, metrics: newMetrics()}
	composer := handler.NewStoreComposer()
	s := store{door: d}
	composer.UseCore(s)
	composer.UseTerminater(s)
	composer.UseConcater(s)
	composer.UseLengthDeferrer(s)
	composer.UseLocker(locker{door: d})
	tus, err := handler.NewUnroutedHandler(handler.Config{
		StoreComposer:   composer,
		BasePath:        cfg.Prefix,
		MaxSize:         cfg.MaxSize,
		DisableDownload: true,
		// The gateway answers CORS for every route, this one included.
		Cors: &handler.CorsConfig{Disable: true},
		// The gateway logs every request; errors are logged by tusError.
		Logger:             xslog.New(xslog.NewTextHandler(io.Discard, nil)),
		AcquireLockTimeout: cfg.LockTTL + 10*time.Second,
		// The IETF's resumable uploads draft (-01 to -05), as tusd speaks
		// it, beside tus 1.0.0: requests with Upload-Draft-Interop-Version.
		EnableExperimentalProtocol: true,
	})
	if err != nil {
		return nil, fmt.Errorf("resumable: %w", err)
	}
	d.tus = tus
	d.serve = tus.Middleware(http.HandlerFunc(d.route))
	return d, nil
}

// Collectors are the door's metrics, for the gateway's registry.
func (d *Door) Collectors() []prometheus.Collector { return d.metrics.all() }

// ServeHTTP serves one request under Prefix.
func (d *Door) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rest := strings.TrimPrefix(r.URL.Path, d.cfg.Prefix)
	bucket, id, _ := strings.Cut(rest, "/")
	method := r.Method
	if o := r.Header.Get("X-HTTP-Method-Override"); method == http.MethodPost && o != "" {
		method = o
	}
	if bucket == "" {
		plain(w, http.StatusNotFound, "no bucket: create uploads with POST "+d.cfg.Prefix+"{bucket}/")
		return
	}
	// tus 1.0.0 wants the versions the server speaks with a 412; tusd's
	// handler leaves them out.
	draft := isDraft(r)
	if !draft && method != http.MethodGet && method != http.MethodHead && method != http.MethodOptions && r.Header.Get("Tus-Resumable") != "1.0.0" {
		w.Header().Set("Tus-Version", "1.0.0")
		plain(w, http.StatusPreconditionFailed, "missing or unsupported Tus-Resumable: this server speaks 1.0.0")
		return
	}
	ex := &exchange{bucket: bucket, expect: r.ContentLength, requestID: w.Header().Get("X-Request-Id"), patch: method == http.MethodPatch, uploadLength: -1}
	if n, err := strconv.ParseInt(r.Header.Get("Upload-Length"), 10, 64); err == nil && ex.patch {
		ex.uploadLength = n
	}
	if r.Body != nil {
		ex.body = &requestBody{ReadCloser: r.Body}
		r.Body = ex.body
	}
	rw := &reply{ResponseWriter: w, door: d, ex: ex}
	if method != http.MethodOptions {
		sign, err := d.authorize(r, bucket, id)
		if err != nil {
			status := http.StatusUnauthorized
			if errors.Is(err, auth.ErrForbidden) {
				status = http.StatusForbidden
			}
			plain(w, status, err.Error())
			return
		}
		rw.signQuery = sign
	}
	if !draft && method == http.MethodPatch && r.Header.Get("Content-Type") != "application/offset+octet-stream" {
		// tus 1.0.0 says 415; tusd's handler answers 400.
		plain(w, http.StatusUnsupportedMediaType, "a PATCH's Content-Type is application/offset+octet-stream")
		return
	}
	if v := r.Header.Get("Upload-Checksum"); v != "" {
		h, want, err := parseChecksum(v)
		if err != nil {
			plain(w, http.StatusBadRequest, err.Error())
			return
		}
		ex.checksum, ex.checksumWant = h, want
	}
	if method == http.MethodPost {
		ex.cond = buckets.Conditions{IfMatch: r.Header.Get("If-Match"), IfNoneMatch: r.Header.Get("If-None-Match")}
	}
	if method == http.MethodPatch || method == http.MethodPost && r.Header.Get("Content-Type") == "application/offset+octet-stream" {
		// A body streams into a file: one of the uploads every door shares.
		release, err := d.cfg.DB.AcquireUpload()
		if err != nil {
			w.Header().Set("Retry-After", "2")
			plain(w, http.StatusServiceUnavailable, err.Error())
			return
		}
		defer release()
	}
	r = r.WithContext(context.WithValue(r.Context(), exchangeKey{}, ex))
	u := *r.URL // shared with the gateway's request log
	u.Path, u.RawPath = "/"+rest, ""
	r.URL = &u
	d.serve.ServeHTTP(rw, r)
}

// isDraft reports whether tusd's handler takes r for a request of the IETF
// draft: it speaks interop versions 3 to 6 (drafts -01 to -05), and takes
// a request with any other for a tus 1.0.0 one.
func isDraft(r *http.Request) bool {
	switch r.Header.Get("Upload-Draft-Interop-Version") {
	case "3", "4", "5", "6":
		return true
	}
	return false
}

// route sends a request, past tusd's middleware, to the handler's method.
func (d *Door) route(w http.ResponseWriter, r *http.Request) {
	_, id, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/")
	switch {
	case id == "" && r.Method == http.MethodPost:
		d.tus.PostFile(w, r)
	case id != "" && r.Method == http.MethodHead:
		d.tus.HeadFile(w, r)
	case id != "" && r.Method == http.MethodPatch:
		d.tus.PatchFile(w, r)
	case id != "" && r.Method == http.MethodDelete:
		d.tus.DelFile(w, r)
	default:
		w.Header().Set("Allow", "POST, OPTIONS")
		if id != "" {
			w.Header().Set("Allow", "HEAD, PATCH, DELETE, OPTIONS")
		}
		plain(w, http.StatusMethodNotAllowed, "method not allowed here")
	}
}

// Signable says which bucket a signed URL for method on path would write
// to: only the creation, POST {Prefix}{bucket}/, is signed by POST /sign;
// the uploads it creates get their signed Locations from it.
func (d *Door) Signable(method, path string) (bucket string, ok bool) {
	bucket, rest, found := strings.Cut(strings.TrimPrefix(path, d.cfg.Prefix), "/")
	return bucket, method == http.MethodPost && found && rest == "" && bucket != ""
}

// signedMethod is the method the Location of a signed creation is signed
// for: any tus request on that one upload (HEAD, PATCH, DELETE).
const signedMethod = "TUS"

// authorize checks write access to bucket. A signed creation URL gets its
// Location signed, until the same time and for the same token, for the
// upload it created: each request on the upload is decided again for that
// token.
func (d *Door) authorize(r *http.Request, bucket, id string) (sign func(string) string, err error) {
	a := d.cfg.Auth
	if a == nil || !a.Enabled() {
		return nil, nil
	}
	probe := r
	signed := r.Header.Get("Authorization") == "" && r.URL.Query().Has(auth.ParamSignature)
	if signed && id != "" {
		probe = r.Clone(r.Context())
		probe.Method = signedMethod
	}
	if _, err := a.Authorize(probe, bucket, auth.Write); err != nil {
		return nil, err
	}
	if !signed || id != "" {
		return nil, nil
	}
	by := r.URL.Query().Get(auth.ParamBy) // verified by Authorize
	unix, _ := strconv.ParseInt(r.URL.Query().Get(auth.ParamExpires), 10, 64)
	expires := time.Unix(unix, 0)
	if latest := time.Now().Add(a.MaxSignedLife()); expires.After(latest) {
		expires = latest
	}
	return func(path string) string {
		q, err := a.Sign(by, signedMethod, path, url.Values{}, expires)
		if err != nil {
			d.cfg.Logger.Error("sign the upload's location", "error", err)
			return ""
		}
		return q
	}, nil
}

// plain answers an error of the door's own, with the Tus-Resumable tus
// 1.0.0 wants on every reply but OPTIONS's.
func plain(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Tus-Resumable", "1.0.0")
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	io.WriteString(w, msg+"\n")
}

// metrics of the door, registered with the gateway's.
type metrics struct {
	created, finished, terminated, expired, contended prometheus.Counter
	bytes                                             prometheus.Counter
}

func newMetrics() *metrics {
	c := func(name, help string) prometheus.Counter {
		return prometheus.NewCounter(prometheus.CounterOpts{Name: "gridfsd_tus_" + name, Help: help})
	}
	return &metrics{
		created:    c("uploads_created_total", "Resumable uploads created."),
		finished:   c("uploads_finished_total", "Resumable uploads that became files."),
		terminated: c("uploads_terminated_total", "Resumable uploads terminated by their client."),
		expired:    c("uploads_expired_total", "Unfinished resumable uploads removed by the sweeper."),
		contended:  c("locks_contended_total", "Requests that found their upload locked by another."),
		bytes:      c("bytes_received_total", "Bytes received in PATCH and creation bodies."),
	}
}

func (m *metrics) all() []prometheus.Collector {
	return []prometheus.Collector{m.created, m.finished, m.terminated, m.expired, m.contended, m.bytes}
}
