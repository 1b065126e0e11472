// Package s3 is gridfsd's second front door: a subset of the Amazon S3
// REST API (path-style) over the GridFS buckets of package buckets, so that
// awscli, rclone, s3cmd, boto3 and the AWS SDKs read and write GridFS. A
// GridFS bucket is an S3 bucket, a filename an object key; the newest
// revision is the object and older revisions are its versions.
//
// It checks AWS Signature Version 4 (header, presigned URL and the
// aws-chunked streaming variants) with a token's name as the access key id
// and its secret as the secret key, and applies the same access levels as
// the HTTP API through package auth.
package s3

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/gridfsd/gridfsd/auth"
	"github.com/gridfsd/gridfsd/buckets"
	"github.com/prometheus/client_golang/prometheus"
)

// Config configures a Server. DB and Auth are required.
type Config struct {
	DB     *buckets.DB
	Auth   *auth.Authorizer
	Logger *slog.Logger
	// Registerer receives the S3 metrics (the HTTP gateway's registry, so
	// that its /metrics shows both doors); nil registers nowhere.
	Registerer prometheus.Registerer
	// The upload limits (size, concurrency) are DB's: see buckets.Limits.

	// MaxHeaderBytes bounds a request's line and headers, as on the HTTP
	// gateway; 0 means gateway.DefaultMaxHeaderBytes' 64 KiB.
	MaxHeaderBytes int
	// RequestTimeout bounds every request but those that stream an object
	// in or out (PutObject, UploadPart, CopyObject, CompleteMultipartUpload,
	// GetObject), as on the HTTP gateway; 0 means none.
	RequestTimeout time.Duration
	// MultipartExpiry is the age after which the sweeper aborts a multipart
	// upload nobody completed; 0 means DefaultMultipartExpiry.
	MultipartExpiry time.Duration
	// ReadHeaderTimeout, IdleTimeout and ShutdownTimeout as for the HTTP
	// gateway; zero values get its defaults.
	ReadHeaderTimeout time.Duration
	IdleTimeout       time.Duration
	ShutdownTimeout   time.Duration
	// TLSCertFile and TLSKeyFile, when set, serve HTTPS.
	TLSCertFile, TLSKeyFile string
	// Domain, when set, enables virtual-hosted-style addressing: a request
	// to <bucket>.<Domain> addresses the bucket, its path the key.
	// Requests to Domain itself (or any other host) stay path-style.
	Domain string
}

// DefaultMultipartExpiry is how long an unfinished multipart upload lives.
const DefaultMultipartExpiry = 24 * time.Hour

// defaultMaxHeaderBytes is the HTTP gateway's default (the S3 door does
// not import the gateway).
const defaultMaxHeaderBytes = 64 << 10

func (c *Config) validate() error {
	if c.DB == nil || c.Auth == nil {
		return errors.New("s3: Config needs DB and Auth")
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if c.MultipartExpiry <= 0 {
		c.MultipartExpiry = DefaultMultipartExpiry
	}
	if c.ReadHeaderTimeout <= 0 {
		c.ReadHeaderTimeout = 10 * time.Second
	}
	if c.IdleTimeout <= 0 {
		c.IdleTimeout = 120 * time.Second
	}
	if c.ShutdownTimeout <= 0 {
		c.ShutdownTimeout = 30 * time.Second
	}
	if c.MaxHeaderBytes <= 0 {
		c.MaxHeaderBytes = defaultMaxHeaderBytes
	}
	if c.RequestTimeout < 0 {
		return errors.New("s3: RequestTimeout may not be negative")
	}
	return nil
}

// Server serves the S3 API. It is an http.Handler.
type Server struct {
	cfg     Config
	db      *buckets.DB
	auth    *auth.Authorizer
	log     *slog.Logger
	metrics *metrics

	mu     sync.Mutex
	exists map[string]time.Time // buckets known to exist, and when that was checked
}

// New returns a Server for cfg.
func New(cfg Config) (*Server, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	m, err := newMetrics(cfg.Registerer)
	if err != nil {
		return nil, err
	}
	return &Server{cfg: cfg, db: cfg.DB, auth: cfg.Auth, log: cfg.Logger, metrics: m, exists: map[string]time.Time{}}, nil
}

// Serve answers S3 requests on ln until ctx is cancelled, then lets the
// requests in flight finish for up to ShutdownTimeout. It also runs the
// sweeper of abandoned multipart uploads.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	srv := &http.Server{
		Handler:           s,
		ReadHeaderTimeout: s.cfg.ReadHeaderTimeout,
		IdleTimeout:       s.cfg.IdleTimeout,
		MaxHeaderBytes:    s.cfg.MaxHeaderBytes,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
		BaseContext:       func(net.Listener) context.Context { return context.WithoutCancel(ctx) },
	}
	s.warnIfOpen(ln)
	sweepCtx, stopSweep := context.WithCancel(ctx)
	defer stopSweep()
	go s.runSweeper(sweepCtx)
	errc := make(chan error, 1)
	go func() {
		if s.cfg.TLSCertFile != "" {
			errc <- srv.ServeTLS(ln, s.cfg.TLSCertFile, s.cfg.TLSKeyFile)
		} else {
			errc <- srv.Serve(ln)
		}
	}()
	select {
	case err := <-errc:
		return fmt.Errorf("s3: %w", err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), s.cfg.ShutdownTimeout)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		srv.Close()
	}
	return nil
}

// warnIfOpen logs loudly when the S3 port listens beyond loopback with
// no access control, as the HTTP gateway does for its own: anyone who
// reaches it can read, overwrite and delete every object (the Dockerfile
// publishes it).
func (s *Server) warnIfOpen(ln net.Listener) {
	if s.auth.Enabled() {
		return
	}
	if a, ok := ln.Addr().(*net.TCPAddr); ok && a.IP.IsLoopback() {
		return
	}
	s.log.Warn("ACCESS CONTROL IS OFF and the S3 API listens beyond loopback: anyone who reaches "+
		ln.Addr().String()+" can read, overwrite and delete every object; configure auth.tokens (see docs/SECURITY.md)",
		"s3_listen", ln.Addr().String())
}

// runSweeper aborts multipart uploads older than MultipartExpiry, at a
// quarter of that interval (at most hourly).
func (s *Server) runSweeper(ctx context.Context) {
	every := min(s.cfg.MultipartExpiry/4, time.Hour)
	t := time.NewTicker(max(every, time.Second))
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			s.SweepMultipart(ctx)
		}
	}
}

// SweepMultipart aborts, in every bucket, the multipart uploads older than
// MultipartExpiry and returns how many.
func (s *Server) SweepMultipart(ctx context.Context) int {
	names, err := s.db.Names(ctx)
	if err != nil {
		s.log.Warn("s3: sweep multipart uploads", "error", err)
		return 0
	}
	total := 0
	for _, name := range names {
		b, err := s.db.Bucket(ctx, name)
		if err != nil {
			continue
		}
		n, err := b.SweepMultipart(ctx, s.cfg.MultipartExpiry)
		total += n
		if err != nil {
			s.log.Warn("s3: sweep multipart uploads", "bucket", name, "error", err)
		}
	}
	if total > 0 {
		s.log.Info("s3: aborted abandoned multipart uploads", "uploads", total)
	}
	return total
}

// request is one S3 request being served.
type request struct {
	w      *responseWriter
	r      *http.Request
	id     string
	sig    *signature // nil when unsigned
	bucket string
	key    string
	op     string // S3 operation name, for logs and metrics
	// objectGrant: the caller may read the object only by its own ACL,
	// which the revision served must still grant (auth.Principal).
	objectGrant bool
	// acl is the canned ACL the request's x-amz-acl asks for, as it is to
	// be kept (checkACL): what the object writes store.
	acl string
}

// ServeHTTP serves one S3 request.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	if r.ContentLength == 0 && r.ProtoAtLeast(1, 1) && strings.EqualFold(strings.TrimSpace(r.Header.Get("Expect")), "100-continue") {
		// net/http sends "100 Continue" only when a body is read, so an
		// empty body never gets one. botocore (awscli, boto3), waiting for
		// it, takes any other first reply for the final one and keeps
		// that status for the next request on the connection, whose real
		// reply it then cannot parse: it waits for its read timeout (60 s)
		// and retries. Answer what it waits for.
		w.WriteHeader(http.StatusContinue)
	}
	rw := &responseWriter{ResponseWriter: w}
	var rnd [8]byte
	rand.Read(rnd[:])
	req := &request{w: rw, r: r, id: strings.ToUpper(hex.EncodeToString(rnd[:])), op: "Unknown"}
	rw.Header().Set("x-amz-request-id", req.id)
	rw.Header().Set("Server", "gridfsd")
	body := &countingReader{r: r.Body}
	// On a copy: net/http looks at its own request's body to tell whether
	// a client that sent "Expect: 100-continue" was asked for its body; a
	// body replaced in place hides that, and a reply sent before the body
	// was read then waits for a body the client never sends (issue 26).
	r = r.WithContext(r.Context())
	r.Body = body
	req.r = r

	err := s.serve(req)
	if err != nil {
		s.writeError(req, err)
	}
	s.metrics.observe(req.op, r.Method, rw.status(), body.n, rw.n, time.Since(start))
	attrs := []any{"request_id", req.id, "op", req.op, "method", r.Method, "bucket", req.bucket, "status", rw.status(),
		"bytes_in", body.n, "bytes_out", rw.n, "duration", time.Since(start).Round(time.Microsecond).String(), "remote", r.RemoteAddr}
	if req.sig != nil {
		attrs = append(attrs, "access_key", req.sig.accessKey)
	}
	s.log.Info("s3 request", attrs...)
}

func (s *Server) serve(req *request) error {
	r := req.r
	path := strings.TrimPrefix(r.URL.Path, "/")
	vhost := s.virtualHost(r.Host)
	if vhost != "" {
		req.bucket, req.key = vhost, path
	} else {
		req.bucket, req.key, _ = strings.Cut(path, "/")
	}
	if r.Method == http.MethodOptions {
		return s.preflight(req) // browsers sign no preflight
	}
	s.corsHeaders(req)
	var keys secrets
	if s.auth.Enabled() {
		keys = s.auth
	}
	switch {
	case isSignedV2(r):
		sig, err := verifySignatureV2(r, keys, time.Now(), vhost)
		if err != nil {
			return err
		}
		req.sig = sig
	case isSigned(r):
		sig, err := verifySignature(r, keys, time.Now())
		if err != nil {
			return err
		}
		req.sig = sig
	}
	if s.cfg.RequestTimeout <= 0 || streams(r, req.key) {
		return s.route(req)
	}
	parent := r.Context()
	ctx, cancel := context.WithTimeout(parent, s.cfg.RequestTimeout)
	defer cancel()
	// The context bounds the store's work; the read deadline a client
	// that trickles an XML body.
	http.NewResponseController(req.w.ResponseWriter).SetReadDeadline(time.Now().Add(s.cfg.RequestTimeout))
	req.r = r.WithContext(ctx)
	err := s.route(req)
	if err != nil && parent.Err() == nil && (errors.Is(ctx.Err(), context.DeadlineExceeded) || errors.Is(err, os.ErrDeadlineExceeded)) {
		return errorf(ErrServiceUnavailable, "the request took longer than the gateway's request-timeout of %s", s.cfg.RequestTimeout)
	}
	return err
}

// streams reports whether a request moves an object's content in or out,
// and so may run longer than RequestTimeout: GetObject, PutObject,
// UploadPart, CopyObject and CompleteMultipartUpload (which may copy).
func streams(r *http.Request, key string) bool {
	if key == "" {
		return false
	}
	switch r.Method {
	case http.MethodGet:
		return !r.URL.Query().Has("uploadId")
	case http.MethodPut:
		return true
	case http.MethodPost:
		return r.URL.Query().Has("uploadId")
	}
	return false
}

// allow checks that the request may act with need on bucket ("" for the
// bucket list).
func (s *Server) allow(req *request, bucket string, need auth.Access) error {
	_, err := s.decide(req, bucket, "", need)
	return err
}

// decide is the authorizer's decision on the request acting with need on
// bucket, and for a read of one object, object ("" otherwise), as S3
// answers it.
func (s *Server) decide(req *request, bucket, object string, need auth.Access) (auth.Principal, error) {
	if !s.auth.Enabled() {
		return auth.Principal{Name: "anonymous", Access: auth.Admin}, nil
	}
	token := ""
	if req.sig != nil {
		token = req.sig.accessKey
	}
	p, err := s.auth.Decide(req.r.Context(), token, bucket, object, need)
	switch {
	case err == nil:
		return p, nil
	case req.sig == nil && (errors.Is(err, auth.ErrUnauthenticated) || errors.Is(err, auth.ErrForbidden)):
		if object != "" && p.Access >= auth.List && s.missing(req, bucket, object) {
			return p, ErrNoSuchKey
		}
		return p, s.denied(req, bucket, errorf(ErrAccessDenied, "Access Denied: sign the request (access key id = token name, secret = token secret)"))
	case errors.Is(err, auth.ErrUnauthenticated) || errors.Is(err, auth.ErrForbidden):
		if object != "" && p.Access >= auth.List && s.missing(req, bucket, object) {
			return p, ErrNoSuchKey
		}
		return p, s.denied(req, bucket, errorf(ErrAccessDenied, "Access Denied: %s has %s access to bucket %q, this needs %s", token, p.Access, bucket, need))
	}
	return p, err
}

// missing reports whether bucket has no object key: what a caller who may
// list the bucket but not read the object is told, as S3 tells a caller
// with ListBucket (the listing would say so anyway).
func (s *Server) missing(req *request, bucket, key string) bool {
	b, err := s.checkBucket(req.r.Context(), bucket)
	if err != nil {
		return false
	}
	_, err = b.FindByName(req.r.Context(), key, -1)
	return errors.Is(err, buckets.ErrFileNotFound)
}

// denied is err, or NoSuchBucket when bucket does not exist: as on AWS, a
// bucket that is not there is 404 whoever asks (clients, and the anonymous
// readers of a bucket just deleted, tell "gone" from "forbidden" by it).
// ListBuckets (bucket "") is never a missing bucket; a CreateBucket of an
// existing one is BucketAlreadyExists.
func (s *Server) denied(req *request, bucket string, err error) error {
	if req.op == "CreateBucket" && req.sig != nil {
		// Bucket names are one namespace: another's bucket exists (409),
		// whoever asks, as on AWS.
		if found, ferr := s.db.Exists(req.r.Context(), bucket); ferr == nil && found {
			return ErrBucketAlreadyExists
		}
	}
	if bucket == "" || req.op == "ListBuckets" || req.op == "CreateBucket" {
		return err
	}
	if found, ferr := s.db.Exists(req.r.Context(), bucket); ferr == nil && !found {
		return ErrNoSuchBucket
	}
	return err
}

// canRead reports whether the request may list bucket; for ListBuckets.
func (s *Server) canRead(req *request, bucket string) bool {
	return s.allow(req, bucket, auth.List) == nil
}

func (s *Server) writeError(req *request, err error) {
	e, internal := toError(err)
	if buckets.ClientGone(req.r.Context(), err) {
		s.log.Debug("s3 request ended by the client", "request_id", req.id, "op", req.op, "error", err)
		internal = false
	}
	if internal {
		s.log.Error("s3 request failed", "request_id", req.id, "op", req.op, "bucket", req.bucket, "error", err)
	} else if e.Status == http.StatusInsufficientStorage {
		s.log.Warn("s3 write refused: the store is short of space", "request_id", req.id, "op", req.op, "bucket", req.bucket, "error", err)
	}
	if req.w.wrote {
		return // too late for an error document: the body has started
	}
	h := req.w.Header()
	contentRange := h.Get("Content-Range") // a 416 says the object's length
	for _, k := range []string{"ETag", "Last-Modified", "Content-Range", "Accept-Ranges", "x-amz-version-id", "x-amz-expiration", "Content-Disposition", "Content-Encoding",
		"Cache-Control", "Content-Language", "Expires"} {
		if e.Status == http.StatusNotModified && (k == "ETag" || k == "Last-Modified" || k == "Cache-Control" || k == "Expires") {
			continue // RFC 9110 15.4.5: a 304 carries what a 200 would of these
		}
		if k == "x-amz-version-id" && h.Get("x-amz-delete-marker") == "true" {
			continue // the delete marker's (versioning.go)
		}
		h.Del(k)
	}
	for k := range h {
		if strings.HasPrefix(strings.ToLower(k), metaPrefix) {
			h.Del(k)
		}
	}
	if e.Status == http.StatusRequestedRangeNotSatisfiable && contentRange != "" {
		h.Set("Content-Range", contentRange)
	}
	if e.Status == http.StatusServiceUnavailable {
		h.Set("Retry-After", "2")
	}
	if e.Status == http.StatusNotModified || req.r.Method == http.MethodHead {
		h.Del("Content-Type")
		h.Del("Content-Length")
		req.w.WriteHeader(e.Status)
		return
	}
	msg := e.Message
	if msg == "" {
		msg = e.Code
	}
	resource := req.r.URL.Path
	out, err := xml.Marshal(errorDoc{Code: e.Code, Message: msg, Resource: resource, RequestID: req.id})
	if err != nil {
		return
	}
	// Quotes need no escaping in text, and AWS sends them as they are:
	// clients match messages (minio-go looks for a failed policy
	// condition's quoted words).
	out = bytes.ReplaceAll(bytes.ReplaceAll(out, []byte("&#34;"), []byte(`"`)), []byte("&#39;"), []byte("'"))
	s.writeXMLBytes(req, e.Status, out)
}

// writeXML sends v as an S3 XML document.
func (s *Server) writeXML(req *request, status int, v any) error {
	out, err := xml.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode %T: %w", v, err)
	}
	s.writeXMLBytes(req, status, out)
	return nil
}

// writeXMLBytes sends an encoded XML document.
func (s *Server) writeXMLBytes(req *request, status int, out []byte) {
	h := req.w.Header()
	h.Set("Content-Type", "application/xml")
	h.Del("Content-Length")
	req.w.WriteHeader(status)
	io.WriteString(req.w, xml.Header)
	req.w.Write(out)
}

// responseWriter records the status and counts the body bytes.
type responseWriter struct {
	http.ResponseWriter
	code  int
	n     int64
	wrote bool // body bytes sent
}

func (w *responseWriter) WriteHeader(code int) {
	if w.code == 0 {
		w.code = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *responseWriter) Write(p []byte) (int, error) {
	if w.code == 0 {
		w.code = http.StatusOK
	}
	w.wrote = true
	n, err := w.ResponseWriter.Write(p)
	w.n += int64(n)
	return n, err
}

func (w *responseWriter) status() int {
	if w.code == 0 {
		return http.StatusOK
	}
	return w.code
}

type countingReader struct {
	r io.ReadCloser
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	if err != nil && err != io.EOF {
		err = &bodyError{err}
	}
	return n, err
}

// bodyError is a failure to read the request body: the client hung up or
// sent less than it announced. It is the client's doing, never a 500.
type bodyError struct{ err error }

func (e *bodyError) Error() string { return "read request body: " + e.err.Error() }
func (e *bodyError) Unwrap() error { return e.err }

func (c *countingReader) Close() error { return c.r.Close() }

// bucketExistsTTL is how long a bucket seen to exist is trusted to.
const bucketExistsTTL = 5 * time.Second

// checkBucket returns the bucket, or NoSuchBucket when it does not exist.
// Existence costs a listCollections, so a positive answer is remembered
// for bucketExistsTTL.
func (s *Server) checkBucket(ctx context.Context, name string) (*buckets.Bucket, error) {
	b, err := s.db.Bucket(ctx, name)
	if err != nil {
		if errors.Is(err, buckets.ErrInvalidBucketName) {
			return nil, ErrNoSuchBucket
		}
		return nil, err
	}
	s.mu.Lock()
	at, ok := s.exists[name]
	s.mu.Unlock()
	if ok && time.Since(at) < bucketExistsTTL {
		return b, nil
	}
	found, err := s.db.Exists(ctx, name)
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, ErrNoSuchBucket
	}
	s.mu.Lock()
	s.exists[name] = time.Now()
	s.mu.Unlock()
	return b, nil
}

func (s *Server) forgetBucket(name string) {
	s.mu.Lock()
	delete(s.exists, name)
	s.mu.Unlock()
}
