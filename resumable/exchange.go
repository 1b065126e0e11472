package resumable

import (
	"context"
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"fmt"
	"hash"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gridfsd/gridfsd/buckets"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/bson"
)

// exchange is what one request carries to the store and what the store
// leaves for the reply: the parts of the protocol tusd's handler does not
// implement (checksums, expiration, the creation's preconditions) and
// gridfsd's own reply headers.
type exchange struct {
	bucket    string
	requestID string
	cond      buckets.Conditions

	checksum     hash.Hash
	checksumWant []byte
	expect       int64 // Content-Length, or -1
	// body is the request's body as it arrives, beneath tusd's handler,
	// which caps it (see overflowReader).
	body *requestBody

	// patch: the request appends (PATCH), and may use the record its
	// lock kept (see GetUpload); uploadLength is its Upload-Length, or -1.
	patch        bool
	uploadLength int64
	lock         *lock // the upload's lock, once taken

	mu      sync.Mutex
	expires time.Time
	fileID  bson.ObjectID // set once the upload became a file
}

type exchangeKey struct{}

func exchangeOf(ctx context.Context) *exchange {
	ex, _ := ctx.Value(exchangeKey{}).(*exchange)
	return ex
}

func requestID(ctx context.Context) string {
	if ex := exchangeOf(ctx); ex != nil {
		return ex.requestID
	}
	return ""
}

// held returns the lock taken by this request on the upload, if any.
func (ex *exchange) held(bucket, id string) *buckets.UploadLock {
	if l := ex.lock; l != nil && l.bucket == bucket && l.id == id {
		return l.held
	}
	return nil
}

// noteExpires keeps when an unfinished upload expires, for Upload-Expires.
func (ex *exchange) noteExpires(r *buckets.Resumable) {
	ex.mu.Lock()
	defer ex.mu.Unlock()
	if r.Finished {
		ex.expires = time.Time{}
	} else {
		ex.expires = r.Expires
	}
}

// noteFile keeps the id of the file a finished upload became.
func (ex *exchange) noteFile(bucket string, r *buckets.Resumable) {
	if !r.Finished || r.Partial {
		return
	}
	ex.mu.Lock()
	defer ex.mu.Unlock()
	ex.fileID = r.FileID
}

// requestBody counts the bytes read from a request's body.
type requestBody struct {
	io.ReadCloser
	n atomic.Int64
}

func (b *requestBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.n.Add(int64(n))
	return n, err
}

// overflowReader is tusd's reader of a request's body, which ends a body
// running past the room the upload has left (Upload-Length, Tus-Max-Size)
// as if it ended there: tusd caps the body with http.MaxBytesReader and
// its bodyReader turns the overflow into a plain EOF, keeping the error
// for the reply. Given that EOF, an append would keep and commit the
// body's first bytes while the client is told 413. overflowReader fails
// the read with buckets.ErrTooLarge instead, so that the append keeps
// nothing: http.MaxBytesReader reads one byte past its cap to see the
// overflow, so the request's body gave more bytes than tusd's reader did.
type overflowReader struct {
	r    io.Reader
	body *requestBody
	n    int64
}

func (o *overflowReader) Read(p []byte) (int, error) {
	n, err := o.r.Read(p)
	o.n += int64(n)
	if err == io.EOF && o.body != nil && o.body.n.Load() > o.n {
		return n, fmt.Errorf("%w: the body runs past the %d bytes the upload has room for", buckets.ErrTooLarge, o.n)
	}
	return n, err
}

// ChecksumAlgorithms are the algorithms of the checksum extension, in
// Tus-Checksum-Algorithm's order.
var checksumAlgorithms = map[string]func() hash.Hash{
	"sha1": sha1.New, "md5": md5.New, "sha256": sha256.New, "sha512": sha512.New,
}

const checksumAlgorithmList = "sha1,md5,sha256,sha512"

// parseChecksum reads Upload-Checksum: "<algorithm> <base64 digest>".
func parseChecksum(v string) (hash.Hash, []byte, error) {
	algo, enc, ok := strings.Cut(strings.TrimSpace(v), " ")
	newHash, known := checksumAlgorithms[strings.ToLower(algo)]
	if !ok || !known {
		return nil, nil, fmt.Errorf("Upload-Checksum %q: the algorithm is not one of %s", v, checksumAlgorithmList)
	}
	want, err := base64.StdEncoding.DecodeString(strings.TrimSpace(enc))
	h := newHash()
	if err != nil || len(want) != h.Size() {
		return nil, nil, fmt.Errorf("Upload-Checksum %q: the digest is not a base64 %s sum", v, algo)
	}
	return h, want, nil
}

// reply adds the headers tusd does not know to its replies, when it writes
// the status: Upload-Expires, the extensions it lacks, the file's id and
// location, and signatures on the Location of a signed creation.
type reply struct {
	http.ResponseWriter
	door      *Door
	ex        *exchange
	signQuery func(path string) string // nil unless the creation was signed
	wrote     bool
}

func (w *reply) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (w *reply) Write(p []byte) (int, error) {
	if !w.wrote {
		w.WriteHeader(http.StatusOK)
	}
	return w.ResponseWriter.Write(p)
}

func (w *reply) WriteHeader(status int) {
	if w.wrote {
		w.ResponseWriter.WriteHeader(status)
		return
	}
	h := w.Header()
	if status < 200 {
		// The draft's 104 Upload Resumption Supported names the upload.
		w.relocate(h)
		w.ResponseWriter.WriteHeader(status)
		return
	}
	w.wrote = true
	if ext := h.Get("Tus-Extension"); ext != "" {
		h.Set("Tus-Extension", ext+",checksum,expiration")
		h.Set("Tus-Checksum-Algorithm", checksumAlgorithmList)
	}
	w.ex.mu.Lock()
	expires, fileID := w.ex.expires, w.ex.fileID
	w.ex.mu.Unlock()
	if !expires.IsZero() && status < 300 {
		h.Set("Upload-Expires", expires.UTC().Format(http.TimeFormat))
	}
	if !fileID.IsZero() && status < 300 {
		// As the HTTP API's replies give them.
		h.Set("X-Gridfs-Id", buckets.FormatID(fileID))
		h.Set("X-Gridfs-Location", "/id/"+url.PathEscape(w.ex.bucket)+"/"+fileID.Hex())
	}
	w.relocate(h)
	w.ResponseWriter.WriteHeader(status)
}

// relocate makes Location, and the parts' URLs in a final upload's
// Upload-Concat, paths, not tusd's absolute URLs built from the Host header
// (behind a load balancer or a proxy the client knows its own origin);
// Location is signed when the creation was.
func (w *reply) relocate(h http.Header) {
	if parts, ok := strings.CutPrefix(h.Get("Upload-Concat"), "final;"); ok {
		urls := strings.Fields(parts)
		for i, s := range urls {
			if u, err := url.Parse(s); err == nil {
				u.Scheme, u.Host = "", ""
				urls[i] = u.String()
			}
		}
		h.Set("Upload-Concat", "final;"+strings.Join(urls, " "))
	}
	loc := h.Get("Location")
	if loc == "" {
		return
	}
	u, err := url.Parse(loc)
	if err != nil || u.Host == "" && u.RawQuery != "" {
		return // done already
	}
	u.Scheme, u.Host = "", ""
	if w.signQuery != nil {
		u.RawQuery = w.signQuery(u.Path)
	}
	h.Set("Location", u.String())
}
