package gateway

import (
	"io"
	"mime"
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
	content := &body{d: d, metrics: h.metrics}
	defer func() {
		d.Close()
		h.metrics.storeBytes.Add(float64(d.Fetched()))
	}()

	hdr := c.Response().Header()
	hdr.Set("ETag", etag(f))
	hdr.Set("Accept-Ranges", "bytes")
	hdr.Set("X-Content-Type-Options", "nosniff")
	hdr.Set(HeaderID, asciiJSON([]byte(buckets.FormatID(f.ID))))
	if f.Metadata != nil {
		if js, err := bson.MarshalExtJSON(f.Metadata, false, false); err == nil && len(js) <= h.cfg.MaxMetadataHeader {
			hdr.Set(HeaderMetadata, asciiJSON(js))
		}
	}
	ct := headerContentType(mediaType(f))
	if ct == "" {
		ct = content.sniff()
	}
	hdr.Set("Content-Type", ct)
	inline := inlineSafe(ct)
	if !inline {
		// Stored files share the UI's origin: a document that could run
		// script (HTML, XML, SVG, a type nobody knows) must neither run it
		// there nor be shown at all; the sandbox covers browsers that
		// ignore attachment for a top-level navigation.
		hdr.Set("Content-Security-Policy", "sandbox")
	}
	hdr.Set("Content-Disposition", contentDisposition(f.Filename, !inline || req.URL.Query().Get("download") == "1"))
	w := &jsonErrors{ResponseWriter: c.Response(), c: c, size: f.Length}
	if !prepareRange(req, f.Length) {
		w.WriteHeader(http.StatusRequestedRangeNotSatisfiable)
		return nil
	}
	http.ServeContent(w, req, f.Filename, f.UploadDate, content)

	switch {
	case content.err == nil:
	case req.Context().Err() != nil:
		// The client went away (a player seeking elsewhere does so all
		// the time): nothing for the operator to act on.
		requestLogger(c).Debug("download ended by the client", "id", buckets.FormatID(f.ID))
	default:
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

// prepareRange readies the Range header for ServeContent, and reports
// false when the reply must be 416 without reading anything. A unit other
// than bytes is dropped: RFC 9110 14.2 says to ignore it and send the whole
// file, where ServeContent would answer 416; units are case-insensitive,
// ServeContent's check is not, so "Bytes=" is normalised. Empty list
// elements are dropped, as RFC 9110 5.6.1 allows, and so are zero-length
// suffixes ("-0"), which no file satisfies but ServeContent answers with an
// empty 206; a set left with no range is unsatisfiable. A range of an
// empty file is ignored: no Content-Range can describe a part of nothing,
// and ServeContent would send "bytes 0--1/0".
func prepareRange(req *http.Request, size int64) bool {
	r := req.Header.Get("Range")
	if r == "" {
		return true
	}
	if size == 0 {
		req.Header.Del("Range")
		return true
	}
	unit, spec, ok := strings.Cut(r, "=")
	if !ok || !strings.EqualFold(strings.TrimSpace(unit), "bytes") {
		req.Header.Del("Range")
		return true
	}
	var kept []string
	for _, s := range strings.Split(spec, ",") {
		s = strings.TrimSpace(s)
		if s == "" || (strings.HasPrefix(s, "-") && strings.TrimLeft(s[1:], "0") == "" && len(s) > 1) {
			continue
		}
		kept = append(kept, s)
	}
	if len(kept) == 0 {
		if req.Header.Get("If-Range") != "" {
			// The range may be ignored anyway; ServeContent decides.
			req.Header.Set("Range", "bytes="+spec)
			return true
		}
		return false
	}
	req.Header.Set("Range", "bytes="+strings.Join(kept, ","))
	return true
}

// body is the content ServeContent reads: the Download itself, whose Read
// fetches only the chunks a read needs after a seek and grows its
// read-ahead while the client keeps reading, so a small range costs the
// chunks that hold it and a full read one cursor. body adds the time reads
// wait for chunks to the metrics and keeps the first read error for the log.
type body struct {
	d       *buckets.Download
	metrics *metrics
	pos     int64
	err     error
}

var _ io.ReadSeeker = (*body)(nil)

func (b *body) Seek(offset int64, whence int) (int64, error) {
	pos, err := b.d.Seek(offset, whence)
	if err != nil {
		return pos, b.fail(err)
	}
	b.pos = pos
	return pos, nil
}

func (b *body) Read(p []byte) (int, error) {
	start := time.Now()
	n, err := b.d.Read(p)
	if cs := int64(b.d.File.ChunkSize); n > 0 && (b.pos%cs == 0 || b.pos/cs != (b.pos+int64(n)-1)/cs) {
		// This read entered a chunk that was not in memory yet.
		b.metrics.chunkFetch.Observe(time.Since(start).Seconds())
	}
	b.pos += int64(n)
	if err != nil && err != io.EOF {
		return n, b.fail(err)
	}
	return n, err
}

// sniff guesses the content type from the first 512 bytes, as ServeContent
// would. The chunk it reads stays the reader's current one, so a download
// from the start does not fetch it twice.
func (b *body) sniff() string {
	size := b.d.File.Length
	if size == 0 {
		return "application/octet-stream"
	}
	var head [512]byte
	n, _ := io.ReadFull(b, head[:min(size, int64(len(head)))])
	b.Seek(0, io.SeekStart)
	return http.DetectContentType(head[:n])
}

func (b *body) fail(err error) error {
	if b.err == nil {
		b.err = err
	}
	return err
}

// inlineSafe reports whether a document of media type ct may be shown
// inline in the gateway's origin: only types a browser renders without
// running script. An allow-list, because the types that can run script
// (HTML, every XML and +xml, text/xsl, SVG, JavaScript, whatever a browser
// learns next) cannot be listed.
func inlineSafe(ct string) bool {
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		return false
	}
	major, minor, _ := strings.Cut(mt, "/")
	switch {
	case strings.HasSuffix(minor, "+xml"):
		return false // image/svg+xml above all
	case major == "image", major == "audio", major == "video":
		return true
	}
	return mt == "text/plain" || mt == "application/pdf" || mt == "application/json"
}
