package gateway

import (
	"errors"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/gridfsd/gridfsd/buckets"
	"github.com/labstack/echo/v4"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// getByName serves GET and HEAD /b/{bucket}/{name}?revision=N; an empty
// name (/b/{bucket}/) is the listing.
func (h *handler) getByName(c echo.Context) error {
	name, err := nameParam(c)
	if err != nil {
		return err
	}
	if name == "" && c.Request().Method == http.MethodGet {
		return h.listFiles(c)
	}
	b, err := h.bucket(c)
	if err != nil {
		return err
	}
	rev, err := intParam(c, "revision", -1)
	if err != nil {
		return err
	}
	f, err := b.FindByName(c.Request().Context(), name, rev)
	if err != nil {
		return err
	}
	return h.serveFile(c, b, f)
}

// getByID serves GET and HEAD /id/{bucket}/{id}.
func (h *handler) getByID(c echo.Context) error {
	b, err := h.bucket(c)
	if err != nil {
		return err
	}
	id, err := fileID(c)
	if err != nil {
		return err
	}
	f, err := b.Stat(c.Request().Context(), id)
	if err != nil {
		return err
	}
	return h.serveFile(c, b, f)
}

// serveFile sets the headers that describe f and hands its content to
// http.ServeContent, which answers ranges, multiple ranges, If-Range,
// If-None-Match, If-Modified-Since and If-Match from them.
func (h *handler) serveFile(c echo.Context, b *buckets.Bucket, f *buckets.File) error {
	req := c.Request()
	start := time.Now()
	d, err := b.Open(req.Context(), f)
	if err != nil {
		return err
	}
	content := &body{d: d, metrics: h.metrics, directs: directChunks}
	defer func() {
		d.Close()
		h.metrics.storeBytes.Add(float64(d.Fetched()))
	}()

	hdr := c.Response().Header()
	hdr.Set("ETag", etag(f))
	hdr.Set("Accept-Ranges", "bytes")
	hdr.Set("X-Content-Type-Options", "nosniff")
	hdr.Set("Content-Disposition", contentDisposition(f.Filename, req.URL.Query().Get("download") == "1"))
	hdr.Set(HeaderID, asciiJSON([]byte(buckets.FormatID(f.ID))))
	if f.Metadata != nil {
		if js, err := bson.MarshalExtJSON(f.Metadata, false, false); err == nil && len(js) <= h.cfg.MaxMetadataHeader {
			hdr.Set(HeaderMetadata, asciiJSON(js))
		}
	}
	ct := mediaType(f)
	if ct == "" {
		ct = content.sniff()
	}
	hdr.Set("Content-Type", ct)
	ignoreOtherRangeUnits(req)

	w := &jsonErrors{ResponseWriter: c.Response(), c: c, size: f.Length}
	http.ServeContent(w, req, f.Filename, f.UploadDate, content)

	if content.err != nil {
		// ServeContent has no way to report a read error once the reply
		// started; the short body makes the client see it, this line the
		// operator.
		requestLogger(c).Error("download failed mid-stream", "id", buckets.FormatID(f.ID), "error", content.err)
	}
	status := c.Response().Status
	if status == http.StatusPartialContent {
		kind := "single"
		if strings.HasPrefix(hdr.Get("Content-Type"), "multipart/byteranges") {
			kind = "multi"
		}
		h.metrics.rangeRequests.WithLabelValues(kind).Inc()
	}
	if req.Method == http.MethodGet && status < 300 {
		h.metrics.downloads.Observe(time.Since(start).Seconds())
	}
	return nil
}

// ignoreOtherRangeUnits drops a Range header whose unit is not bytes:
// RFC 9110 14.2 says to ignore it and send the whole file, where
// ServeContent would answer 416. Units are case-insensitive, ServeContent's
// check is not, so "Bytes=" is normalised.
func ignoreOtherRangeUnits(req *http.Request) {
	r := req.Header.Get("Range")
	if r == "" {
		return
	}
	unit, spec, ok := strings.Cut(r, "=")
	if !ok || !strings.EqualFold(strings.TrimSpace(unit), "bytes") {
		req.Header.Del("Range")
		return
	}
	req.Header.Set("Range", "bytes="+spec)
}

// body is the content ServeContent reads. The first two chunks read after
// each seek are fetched with ReadAt, exactly the chunk holding the offset
// and nothing more; only a client that keeps reading gets the Download's
// prefetching cursor. So a small range costs at most the two chunks that
// hold it, while a long read streams with read-ahead, the way the kernel
// grows its readahead only for sequential readers.
type body struct {
	d       *buckets.Download
	metrics *metrics

	pos      int64
	buf      []byte // chunk bufN, fetched directly
	bufN     int64
	hasBuf   bool
	directs  int   // direct fetches left before switching to the stream
	streamAt int64 // where the Download's own offset is; -1 unknown
	err      error // the first read failure, for the log
}

// directChunks is how many chunks after a seek are fetched one by one.
const directChunks = 2

var _ io.ReadSeeker = (*body)(nil)

func (b *body) chunkSize() int64 { return int64(b.d.File.ChunkSize) }
func (b *body) size() int64      { return b.d.File.Length }

func (b *body) Seek(offset int64, whence int) (int64, error) {
	switch whence {
	case io.SeekStart:
	case io.SeekCurrent:
		offset += b.pos
	case io.SeekEnd:
		offset += b.size()
	default:
		return 0, errors.New("invalid whence")
	}
	if offset < 0 {
		return 0, errors.New("negative position")
	}
	if offset != b.pos {
		b.directs = directChunks
	}
	b.pos = offset
	return offset, nil
}

func (b *body) Read(p []byte) (int, error) {
	if b.pos >= b.size() {
		return 0, io.EOF
	}
	k := b.pos / b.chunkSize()
	if !(b.hasBuf && b.bufN == k) && b.directs > 0 {
		if err := b.fetch(k); err != nil {
			return 0, b.fail(err)
		}
		b.directs--
	}
	if b.hasBuf && b.bufN == k {
		n := copy(p, b.buf[b.pos-k*b.chunkSize():])
		b.pos += int64(n)
		return n, nil
	}
	if b.streamAt != b.pos {
		if _, err := b.d.Seek(b.pos, io.SeekStart); err != nil {
			return 0, b.fail(err)
		}
	}
	start := time.Now()
	n, err := b.d.Read(p)
	if n > 0 && (b.pos%b.chunkSize() == 0 || b.pos/b.chunkSize() != (b.pos+int64(n)-1)/b.chunkSize()) {
		// This read moved into a chunk not yet in memory.
		b.metrics.chunkFetch.Observe(time.Since(start).Seconds())
	}
	b.pos += int64(n)
	b.streamAt = b.pos
	if err != nil && err != io.EOF {
		b.streamAt = -1
		return n, b.fail(err)
	}
	return n, err
}

// fetch reads chunk k into buf with one query for that chunk alone.
func (b *body) fetch(k int64) error {
	cs := b.chunkSize()
	n := min(cs, b.size()-k*cs)
	if int64(cap(b.buf)) < n {
		b.buf = make([]byte, cs)
	}
	b.buf = b.buf[:n]
	b.hasBuf = false
	start := time.Now()
	got, err := b.d.ReadAt(b.buf, k*cs)
	b.metrics.chunkFetch.Observe(time.Since(start).Seconds())
	if err != nil && !(err == io.EOF && int64(got) == n) {
		return err
	}
	b.bufN, b.hasBuf = k, true
	return nil
}

// sniff guesses the content type from the first 512 bytes, as
// ServeContent would, but through the chunk buffer so that the bytes are
// fetched once.
func (b *body) sniff() string {
	if b.size() == 0 {
		return "application/octet-stream"
	}
	var head [512]byte
	n, _ := io.ReadFull(b, head[:min(b.size(), int64(len(head)))])
	b.Seek(0, io.SeekStart)
	b.directs = directChunks
	return http.DetectContentType(head[:n])
}

func (b *body) fail(err error) error {
	if b.err == nil {
		b.err = err
	}
	return err
}
