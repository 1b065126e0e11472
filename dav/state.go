package dav

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"sync"

	"github.com/gridfsd/gridfsd/buckets"
	"github.com/gridfsd/gridfsd/internal/reqlog"
)

// request is what the file system knows of the request it serves:
// golang.org/x/net/webdav hands it only a context.
type request struct {
	method string
	r      *http.Request
	line   *reqlog.Line // the gateway's log line of the request
	// authorized: the principal is on the line.
	authorized bool
	// principal is who the request acts for: the token's name, "" with
	// access control off. A lock is its taker's (lockDoc.Principal).
	principal string
	// objectGrant: the request may read only because the file's own ACL
	// makes it public (auth.Principal.ObjectGrant); the revision served
	// must still grant it.
	objectGrant bool
	// canRead filters the list of buckets: the caller sees the ones it may read.
	canRead func(bucket string) bool
	// target is the path the request names, whose folder properties are
	// worth a query; those of the entries of a listing are not.
	target string
	// wantsQuota: the PROPFIND asks for the quota properties, which cost
	// a scan of the bucket.
	wantsQuota bool
	// upload is how a PUT is stored.
	upload uploadSpec
	// copySrc is the file a COPY read last: its copy keeps its metadata.
	copySrc *buckets.File
	// moveDst and copyDst are the destination of a MOVE or a COPY;
	// replacing is set once webdav asked to delete it (Overwrite: T) and
	// it was a file (or, for a MOVE, a folder: replacingFolder), whose
	// deletion then waits for the rename or the copy to succeed.
	moveDst, copyDst           string
	replacing, replacingFolder bool
	// copyOver is what a folder a COPY copies a folder over held, once
	// webdav asked to delete it: removed when the copy succeeded
	// (finishCopyOver), so that a copy that fails loses nothing.
	copyOver   []*buckets.File
	copyOverAt loc
	copyOverIn *buckets.Bucket

	mu    sync.Mutex
	err   error                // the file system's last failure, for the reply
	infos map[string]*fileInfo // what listings found, by path: a PROPFIND of a folder stats every entry
}

type requestKey struct{}

func withRequest(ctx context.Context, q *request) context.Context {
	return context.WithValue(ctx, requestKey{}, q)
}

// requestOf is the request of ctx; a context without one (a test calling
// the file system directly) gets an empty one.
func requestOf(ctx context.Context) *request {
	if q, ok := ctx.Value(requestKey{}).(*request); ok {
		return q
	}
	return &request{canRead: func(string) bool { return true }, line: reqlog.New(slog.New(slog.DiscardHandler))}
}

// refused reports on the request's log line why it failed: the reason
// the client got, or, for the gateway's own failures, a line of their own
// with what the client was not told.
func (q *request) refused(err error, internal bool) {
	if internal {
		q.line.Logger().Error("webdav request failed", "method", q.method, "path", q.r.URL.Path, "error", err)
		return
	}
	q.line.Add("error", err.Error())
}

// overwrites reports whether a COPY or MOVE may replace its destination
// (Overwrite: T, which server sets when the header is missing, as RFC 4918
// says); true for a context without a request.
func (q *request) overwrites() bool {
	return q.r == nil || q.r.Header.Get("Overwrite") != "F"
}

// finishCopyOver removes what the folder a COPY copied a folder over held
// before (each file only while it keeps its name and is not one the copy
// wrote: those have new ids), now that the copy succeeded. A failure
// leaves older revisions, which the reply, already sent, does not report.
func (q *request) finishCopyOver(ctx context.Context) {
	if _, err := q.copyOverIn.DeleteListed(ctx, q.copyOver); err != nil {
		q.refused(fmt.Errorf("COPY over %s succeeded, but files it replaced stay: %w", q.copyOverAt.path(), err), true)
	}
}

// fail remembers err for the reply and returns it.
func (q *request) fail(err error) error {
	if err == nil {
		return nil
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	q.err = err
	return err
}

// retract forgets the last failure when it is err: what err refused was
// allowed after all (another list of an If header held).
func (q *request) retract(err error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if errors.Is(q.err, err) {
		q.err = nil
	}
}

func (q *request) lastErr() error {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.err
}

func (q *request) cached(path string) *fileInfo {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.infos[path]
}

func (q *request) remember(path string, fi *fileInfo) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.infos == nil {
		q.infos = map[string]*fileInfo{}
	}
	q.infos[path] = fi
}

// forget drops what the request knows of paths: it changed them.
func (q *request) forget() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.infos = nil
}

// reply lets webdav write its reply, except that an error status it chose
// for a failure the file system reported is replaced by the status and
// message of that failure (webdav answers a body too large with 405 and a
// store outage with 403).
type reply struct {
	http.ResponseWriter
	q        *request
	wrote    bool
	replaced bool
	status   int
}

func (w *reply) WriteHeader(status int) {
	if w.wrote {
		return
	}
	w.wrote = true
	if status >= 400 {
		if err := w.q.lastErr(); err != nil {
			if s, internal := classify(w.q.r.Context(), err); s != 0 {
				w.q.refused(err, internal)
				w.replaced, status = true, s
				writeError(w.ResponseWriter, s, message(s, err, internal))
				w.status = s
				return
			}
		}
	}
	w.status = status
	w.ResponseWriter.WriteHeader(status)
}

func (w *reply) Write(p []byte) (int, error) {
	if !w.wrote {
		w.WriteHeader(http.StatusOK)
	}
	if w.replaced {
		return len(p), nil
	}
	return w.ResponseWriter.Write(p)
}

// ReadFrom is how io.Copy, which ServeContent sends a file or a range
// with, writes a file: straight from the chunk cache (readFile.writeTo)
// instead of through a 32 KiB buffer per download. Other sources are
// copied as io.Copy would.
func (w *reply) ReadFrom(src io.Reader) (int64, error) {
	if lr, ok := src.(*io.LimitedReader); ok {
		if f, ok := lr.R.(*readFile); ok {
			n, err := f.writeTo(writerOnly{w}, lr.N)
			lr.N -= n
			return n, err
		}
	}
	return io.Copy(writerOnly{w}, src)
}

// writerOnly hides every method of a writer but Write, so that io.Copy
// does not call its ReadFrom again.
type writerOnly struct{ io.Writer }

// Flush lets ServeContent's writes through as they come.
func (w *reply) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok && !w.replaced {
		f.Flush()
	}
}

// writeError sends status with msg as a plain-text body, the form WebDAV
// clients show; 401 asks for HTTP Basic.
func writeError(w http.ResponseWriter, status int, msg string) {
	h := w.Header()
	for _, k := range []string{"ETag", "Last-Modified", "Content-Length", "Content-Range", "Content-Encoding"} {
		h.Del(k)
	}
	if status == http.StatusServiceUnavailable {
		h.Set("Retry-After", "2")
	}
	if status == http.StatusUnauthorized {
		h.Set("WWW-Authenticate", `Basic realm="gridfsd", charset="UTF-8"`)
	}
	h.Set("Content-Type", "text/plain; charset=utf-8")
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	w.Write([]byte(http.StatusText(status) + ": " + msg + "\n"))
}
