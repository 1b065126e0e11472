package gateway

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gridfsd/gridfsd/auth"
	"github.com/gridfsd/gridfsd/buckets"
	"github.com/gridfsd/gridfsd/chunker"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/bson"
	"github.com/labstack/echo/v4"
)

// getByName serves GET and HEAD /b/{bucket}/{name}?revision=N; an empty
// name (/b/{bucket}/) is the listing.
func (h *handler) getByName(c echo.Context) error {
	name, err := nameParam(c)
	if err != nil {
		return err
	}
	if name == "" {
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
	if p, ok := c.Get(ctxPrincipal).(auth.Principal); ok && p.ObjectGrant && !b.FileReadable(f, p.Name != "anonymous") {
		// Admitted by the newest revision's ACL; this one (an older
		// revision, or one written since) grants nothing.
		return fmt.Errorf("%w: revision %v of %q is not public", auth.ErrForbidden, f.ID, name)
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
		h.metrics.downloads.StoreBytes.Add(float64(d.Fetched()))
	}()

	hdr := c.Response().Header()
	hdr.Set("ETag", f.ETag())
	hdr.Set("Accept-Ranges", "bytes")
	hdr.Set("X-Content-Type-Options", "nosniff")
	hdr.Set(HeaderID, asciiJSON([]byte(buckets.FormatID(f.ID))))
	if at, _ := b.ExpiresAt(f); !at.IsZero() {
		hdr.Set(HeaderExpires, at.UTC().Format(time.RFC3339Nano))
	}
	if f.Metadata != nil {
		if js, err := bson.MarshalExtJSON(f.Metadata, false, false); err == nil && len(js) <= h.cfg.MaxMetadataHeader {
			hdr.Set(HeaderMetadata, asciiJSON(js))
		}
	}
	ct := headerContentType(mediaType(f))
	if ct == "" && req.Method == http.MethodHead {
		// Only the content could tell, and HEAD reads none.
		ct = "application/octet-stream"
	}
	if ct != "" {
		hdr.Set("Content-Type", ct)
	}
	// Else ServeContent sniffs, once the preconditions passed: a 304
	// reads no chunk either.
	typed := &typedReply{ResponseWriter: c.Response(), attachment: req.URL.Query().Get("download") == "1", filename: f.Filename, known: ct}
	// The content headers the uploader gave (an S3 PutObject's
	// Content-Encoding: gzip, Cache-Control, ...).
	for _, kv := range f.StoredHeaders() {
		if kv[0] == "Content-Disposition" {
			typed.disposition = kv[1]
			continue
		}
		hdr.Set(kv[0], kv[1])
	}
	w := &jsonErrors{ResponseWriter: typed, c: c, size: f.Length}
	if br, ok := prepareRange(req, f.Length); ok {
		d.Expect(br.first, br.last+1)
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
		h.metrics.downloads.Duration.Observe(time.Since(start).Seconds())
	}
	return nil
}

// maxRanges bounds the ranges of one request, as Apache's MaxRanges does:
// each costs a seek and chunk reads, so more are answered with the whole
// file, one cursor.
const maxRanges = 200

// prepareRange readies the Range header for ServeContent, which then
// evaluates the preconditions before the ranges (RFC 9110 13.2.2: an
// If-None-Match that matches is 304 however unsatisfiable the range).
//   - A unit other than bytes is dropped: RFC 9110 14.2 says to ignore it,
//     where ServeContent would answer 416. Units are case-insensitive.
//   - Positions beyond int64 are clamped, not 416: "0-99999999999999999999"
//     is the whole file, as is a suffix that long.
//   - Ranges that no byte satisfies (a start past the end, a suffix "-0")
//     are dropped; with none left the header becomes one ServeContent
//     answers 416 with Content-Range: bytes */LEN.
//   - Overlapping and adjacent ranges are merged (RFC 9110 14.2 allows it),
//     so a header of many overlapping ranges cannot cost a read each; past
//     maxRanges the header is ignored.
//   - A range of an empty file is ignored: no Content-Range can describe a
//     part of nothing, and ServeContent would send "bytes 0--1/0".
//
// A malformed set is left for ServeContent to refuse.
//
// It returns the range when there is one and the client said where it ends
// ("a-b" or "-n", not "a-", which a player sends and abandons): the reads can
// then fetch it whole at once.
func prepareRange(req *http.Request, size int64) (byteRange, bool) {
	r := req.Header.Get("Range")
	if r == "" {
		return byteRange{}, false
	}
	unit, spec, ok := strings.Cut(r, "=")
	if size == 0 || !ok || !strings.EqualFold(strings.TrimSpace(unit), "bytes") {
		req.Header.Del("Range")
		return byteRange{}, false
	}
	ranges, ok := parseRanges(spec, size)
	switch {
	case !ok:
		req.Header.Set("Range", "bytes="+spec)
	case len(ranges) > maxRanges:
		req.Header.Del("Range")
	case len(ranges) == 0:
		req.Header.Set("Range", fmt.Sprintf("bytes=%d-", size))
	default:
		ranges = mergeRanges(ranges)
		parts := make([]string, len(ranges))
		for i, br := range ranges {
			parts[i] = fmt.Sprintf("%d-%d", br.first, br.last)
		}
		req.Header.Set("Range", "bytes="+strings.Join(parts, ","))
		if len(ranges) == 1 && !ranges[0].open {
			return ranges[0], true
		}
	}
	return byteRange{}, false
}

// byteRange is the bytes first to last of a file, both included; open when
// the client did not say where it ends ("a-").
type byteRange struct {
	first, last int64
	open        bool
}

// parseRanges reads a byte-range set against a file of size bytes, keeping
// the ranges that overlap it; ok is false for a malformed set. It stops
// past maxRanges: the caller ignores such a header whole.
func parseRanges(spec string, size int64) (ranges []byteRange, ok bool) {
	for _, s := range strings.Split(spec, ",") {
		s = strings.TrimSpace(s)
		if s == "" {
			continue // RFC 9110 5.6.1: empty list elements are allowed
		}
		first, last, found := strings.Cut(s, "-")
		first, last = strings.TrimSpace(first), strings.TrimSpace(last)
		if !found {
			return nil, false
		}
		var br byteRange
		if first == "" {
			n, ok := clampedInt(last)
			if !ok {
				return nil, false
			}
			if n == 0 {
				continue
			}
			br = byteRange{first: max(0, size-n), last: size - 1}
		} else {
			start, ok := clampedInt(first)
			if !ok {
				return nil, false
			}
			end := int64(math.MaxInt64)
			if last != "" {
				if end, ok = clampedInt(last); !ok || end < start {
					return nil, false
				}
			}
			if start >= size {
				continue
			}
			br = byteRange{first: start, last: min(end, size-1), open: last == ""}
		}
		ranges = append(ranges, br)
		if len(ranges) > maxRanges {
			return ranges, true
		}
	}
	return ranges, true
}

// clampedInt reads a non-empty string of digits, clamping values beyond
// int64 to its maximum.
func clampedInt(s string) (int64, bool) {
	if s == "" || strings.Trim(s, "0123456789") != "" {
		return 0, false
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return math.MaxInt64, true // only digits: out of range
	}
	return n, true
}

// mergeRanges sorts ranges and joins those that overlap or touch.
func mergeRanges(ranges []byteRange) []byteRange {
	slices.SortFunc(ranges, func(a, b byteRange) int { return cmp.Compare(a.first, b.first) })
	out := ranges[:1]
	for _, br := range ranges[1:] {
		last := &out[len(out)-1]
		if br.first <= last.last+1 {
			last.last = max(last.last, br.last)
			last.open = last.open || br.open
			continue
		}
		out = append(out, br)
	}
	return out
}

// typedReply sets the headers that follow from the reply's Content-Type,
// known only once ServeContent has sniffed it: types that could run script
// are sandboxed and an attachment.
type typedReply struct {
	http.ResponseWriter
	attachment bool // the client asked for a download
	filename   string
	known      string // the file's Content-Type when known before sniffing
	// disposition is the Content-Disposition the uploader stored: served
	// unless the type is unsafe inline, where an attachment is forced.
	disposition string
}

func (w *typedReply) WriteHeader(status int) {
	if status < 300 {
		hdr := w.Header()
		ct := hdr.Get("Content-Type")
		if strings.HasPrefix(ct, "multipart/byteranges") {
			// The parts carry the file's type; "" (sniffed) is not safe.
			ct = w.known
		}
		inline := buckets.InlineSafe(ct)
		if !inline {
			// Stored files share the UI's origin: a document that could
			// run script (HTML, XML, SVG, a type nobody knows) must
			// neither run it there nor be shown at all; the sandbox
			// covers browsers that ignore attachment for a navigation.
			hdr.Set("Content-Security-Policy", buckets.ActiveContentPolicy)
		}
		hdr.Set("Content-Disposition", buckets.ContentDisposition(ct, w.disposition, w.filename, w.attachment))
	}
	w.ResponseWriter.WriteHeader(status)
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
	b.advance(n, start)
	if err != nil && err != io.EOF {
		return n, b.fail(err)
	}
	return n, err
}

// advance counts n bytes read in a read that started at start.
func (b *body) advance(n int, start time.Time) {
	if cs := int64(b.d.File.ChunkSize); n > 0 && (b.pos%cs == 0 || b.pos/cs != (b.pos+int64(n)-1)/cs) {
		// This read entered a chunk that was not in memory yet.
		b.metrics.chunkFetch.Observe(time.Since(start).Seconds())
	}
	b.pos += int64(n)
}

// writeTo writes the next n bytes of the file to w straight from the
// chunks the download holds (chunker.Reader.Send), counting the waits for
// chunks as Read does.
func (b *body) writeTo(w io.Writer, n int64) (int64, error) {
	written, err := b.d.Send(w, n, func(took time.Duration) { b.metrics.chunkFetch.Observe(took.Seconds()) })
	b.pos += written
	if err != nil && !chunker.IsWriteError(err) {
		return written, b.fail(err)
	}
	return written, err
}

// ReadFrom is how io.Copy, which ServeContent sends a range with, writes
// the file: straight from the chunk cache (body.writeTo), instead of
// through a 32 KiB buffer that every download being sent would hold, a
// thousand at a time for a popular file's viewers. Other sources (the
// parts of a multiple-range reply) are copied as io.Copy would.
func (w *jsonErrors) ReadFrom(src io.Reader) (int64, error) {
	if lr, ok := src.(*io.LimitedReader); ok {
		if b, ok := lr.R.(*body); ok {
			n, err := b.writeTo(writerOnly{w}, lr.N)
			lr.N -= n
			return n, err
		}
	}
	return io.Copy(writerOnly{w}, src)
}

// writerOnly hides every method of a writer but Write, so that io.Copy
// does not call its ReadFrom again.
type writerOnly struct{ io.Writer }

func (b *body) fail(err error) error {
	if b.err == nil {
		b.err = err
	}
	return err
}
