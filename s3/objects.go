package s3

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/gridfsd/gridfsd/auth"
	"github.com/gridfsd/gridfsd/buckets"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/bson"
)

const metaPrefix = "x-amz-meta-"

// objectETag is the quoted S3 ETag of a file. Files written through S3
// carry theirs (the MD5 clients check, or the multipart form). Others get
// a tag in the multipart form ("-1" suffix), which clients do not take for
// an MD5 of the content and so never report as corrupt.
func objectETag(f *buckets.File) string {
	if f.S3ETag != "" {
		return `"` + f.S3ETag + `"`
	}
	src := strings.ToLower(f.SHA256)
	if _, err := hex.DecodeString(src); err != nil || len(src) != 64 {
		sum := sha256.Sum256([]byte(buckets.FormatID(f.ID)))
		src = hex.EncodeToString(sum[:])
	}
	return `"` + src[:32] + `-1"`
}

// versionID is the S3 version id of a file: its _id as 24 hex digits when
// it is an ObjectID, else as Extended JSON.
func versionID(id any) string {
	if oid, ok := id.(bson.ObjectID); ok {
		return oid.Hex()
	}
	return buckets.FormatID(id)
}

func parseVersionID(s string) (any, error) {
	if len(s) == 24 {
		if oid, err := bson.ObjectIDFromHex(s); err == nil {
			return oid, nil
		}
	}
	return buckets.ParseID(s)
}

// findObject returns the newest revision of key, or the revision whose
// version id is version.
func findObject(ctx context.Context, b *buckets.Bucket, key, version string) (*buckets.File, error) {
	if version == "" {
		return b.FindByName(ctx, key, -1)
	}
	id, err := parseVersionID(version)
	if err != nil {
		return nil, errorf(ErrInvalidArgument, "Invalid version id specified")
	}
	f, err := b.Stat(ctx, id)
	var dm *buckets.DeleteMarkerError
	switch {
	case errors.As(err, &dm):
		f = dm.Marker // whose name is checked as a version's is
	case errors.Is(err, buckets.ErrFileNotFound):
		// A version id that names nothing (neither a version nor a
		// delete marker) is NoSuchVersion, whether or not the key has
		// others (S3; minio-go checks it).
		return nil, ErrNoSuchVersion
	case err != nil:
		return nil, err
	}
	// A version id names a version of the key in the path, never one of
	// another key: acting on it would read, or undelete, that other key.
	if f.Filename != key {
		return nil, ErrNoSuchVersion
	}
	if dm != nil {
		return nil, err // a delete marker of key: the callers answer for it
	}
	return f, nil
}

// requestedObject is the bucket of req and the object it names: the key's
// newest revision, or the one its versionId query names (findObject).
func (s *Server) requestedObject(req *request) (*buckets.Bucket, *buckets.File, error) {
	ctx := req.r.Context()
	b, err := s.checkBucket(ctx, req.bucket)
	if err != nil {
		return nil, nil, err
	}
	f, err := findObject(ctx, b, req.key, req.r.URL.Query().Get("versionId"))
	if err != nil {
		return nil, nil, err
	}
	return b, f, nil
}

// userMetadata collects the x-amz-meta-* headers into the files document's
// metadata: lower-case field names (header names are case-insensitive),
// string values, RFC 2047 encoded words decoded; and the content headers
// (Cache-Control, Content-Disposition, ...) that buckets stores beside
// metadata.contentType.
func userMetadata(h http.Header) (bson.D, error) {
	var md bson.D
	for name, values := range h {
		key, ok := strings.CutPrefix(strings.ToLower(name), metaPrefix)
		if !ok {
			continue
		}
		if key == "" || strings.HasPrefix(key, "$") || strings.ContainsAny(key, ".\x00") || !utf8.ValidString(key) {
			return nil, errorf(ErrInvalidArgument, "metadata header %s: names may not be empty, start with $ or contain a dot", name)
		}
		value := strings.Join(values, ",")
		if dec, err := new(mime.WordDecoder).DecodeHeader(value); err == nil {
			value = dec
		}
		if !utf8.ValidString(value) {
			return nil, errorf(ErrInvalidArgument, "metadata header %s is not valid UTF-8", name)
		}
		md = append(md, bson.E{Key: key, Value: value})
	}
	sort.Slice(md, func(i, j int) bool { return md[i].Key < md[j].Key })
	md, err := buckets.WithContentHeaders(md, func(name string) string {
		v := h.Get(name)
		if name == "Content-Encoding" {
			v = withoutAWSChunked(v)
		}
		return v
	})
	if err != nil {
		return nil, err
	}
	if err := buckets.CheckMetadata(md); err != nil {
		return nil, err
	}
	return md, nil
}

// setObjectHeaders describes f in response headers, as GetObject and
// HeadObject answer.
func setObjectHeaders(h http.Header, f *buckets.File) {
	h.Set("ETag", objectETag(f))
	h.Set("Last-Modified", f.UploadDate.UTC().Format(http.TimeFormat))
	ct := f.MediaType()
	if ct == "" || strings.ContainsAny(ct, "\r\n\x00") {
		ct = "binary/octet-stream"
	}
	h.Set("Content-Type", ct)
	h.Set("Accept-Ranges", "bytes")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("x-amz-version-id", versionID(f.ID))
	setTaggingCount(h, f)
	for _, kv := range f.StoredHeaders() {
		h.Set(kv[0], headerSafe(kv[1]))
	}
	if f.Metadata == nil {
		return
	}
	elems, err := f.Metadata.Elements()
	if err != nil {
		return
	}
	for _, e := range elems {
		if buckets.IsContentHeaderField(e.Key()) {
			continue
		}
		key := strings.ToLower(e.Key())
		if key == "contenttype" || !validHeaderName(key) {
			continue
		}
		v := e.Value()
		s, ok := v.StringValueOK()
		if !ok {
			s = v.String() // Extended JSON of other types
		}
		// Lower case as S3 sends them (Set would canonicalise the case,
		// and SDKs keep the case they receive in the metadata keys).
		h[metaPrefix+key] = []string{headerSafe(s)}
	}
}

// activeContent applies buckets' active-content rule to a reply, as every
// door does: a type that could run script in the gateway's origin is
// sandboxed and an attachment, whatever was stored or asked for.
func activeContent(h http.Header) {
	if buckets.InlineSafe(h.Get("Content-Type")) {
		return
	}
	h.Set("Content-Security-Policy", buckets.ActiveContentPolicy)
	d := h.Get("Content-Disposition")
	kind, params, _ := strings.Cut(d, ";")
	if !strings.EqualFold(strings.TrimSpace(kind), "attachment") {
		d = "attachment"
		if params != "" {
			d += ";" + params
		}
		h.Set("Content-Disposition", d)
	}
}

func validHeaderName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || strings.IndexByte("!#$%&'*+-^_`|~", c) >= 0) {
			return false
		}
	}
	return true
}

// headerSafe keeps printable ASCII as is and encodes anything else as an
// RFC 2047 word, so that no stored value can break the reply's headers.
func headerSafe(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] >= 0x7f {
			return mime.QEncoding.Encode("UTF-8", s)
		}
	}
	return s
}

// quoteETags quotes the entity tags of an If-Match or If-None-Match list
// that came without their quotes, as S3 clients may send them.
func quoteETags(list string) string {
	tags := strings.Split(list, ",")
	for i, t := range tags {
		t = strings.TrimSpace(t)
		if t != "" && t != "*" && !strings.HasSuffix(t, `"`) {
			t = `"` + t + `"`
		}
		tags[i] = t
	}
	return strings.Join(tags, ",")
}

// readPreconditions evaluates S3's conditional GET headers (RFC 9110's
// order): nil, ErrNotModified or ErrPreconditionFailed.
func readPreconditions(h http.Header, etag string, modified time.Time) error {
	modified = modified.Truncate(time.Second)
	if im := h.Get("If-Match"); im != "" {
		if !buckets.MatchETag(quoteETags(im), etag, false) {
			return ErrPreconditionFailed
		}
	} else if t, err := http.ParseTime(h.Get("If-Unmodified-Since")); err == nil && modified.After(t) {
		return ErrPreconditionFailed
	}
	if inm := h.Get("If-None-Match"); inm != "" {
		if buckets.MatchETag(quoteETags(inm), etag, true) {
			return ErrNotModified
		}
	} else if t, err := http.ParseTime(h.Get("If-Modified-Since")); err == nil && !modified.After(t) {
		return ErrNotModified
	}
	return nil
}

// objectRange is the part of an object a GetObject serves.
type objectRange struct {
	start, length int64
	partial       bool // a range was asked for and is served (206)
	open          bool // "bytes=a-": the client did not say where it ends
}

// parseRange reads a single byte range as S3 does: "bytes=a-b", "bytes=a-"
// or "bytes=-n". Anything else (several ranges, bad syntax) is ignored
// and the whole object served; partial is false then.
func parseRange(spec string, size int64) (objectRange, error) {
	whole := objectRange{length: size}
	spec, found := strings.CutPrefix(strings.TrimSpace(spec), "bytes=")
	if !found || strings.Contains(spec, ",") {
		return whole, nil
	}
	a, b, found := strings.Cut(spec, "-")
	if !found {
		return whole, nil
	}
	a, b = strings.TrimSpace(a), strings.TrimSpace(b)
	if a == "" {
		n, perr := strconv.ParseInt(b, 10, 64)
		if perr != nil || n < 0 {
			return whole, nil
		}
		if n == 0 || size == 0 {
			return objectRange{}, ErrInvalidRange
		}
		n = min(n, size)
		return objectRange{start: size - n, length: n, partial: true}, nil
	}
	first, perr := strconv.ParseInt(a, 10, 64)
	if perr != nil || first < 0 {
		return whole, nil
	}
	last := size - 1
	if b != "" {
		if last, perr = strconv.ParseInt(b, 10, 64); perr != nil || last < first {
			return whole, nil
		}
		last = min(last, size-1)
	}
	if first >= size {
		return objectRange{}, ErrInvalidRange
	}
	return objectRange{start: first, length: last - first + 1, partial: true, open: b == ""}, nil
}

// responseOverrides are the GetObject query parameters that set reply
// headers, as presigned download links use them.
var responseOverrides = map[string]string{
	"response-content-type":        "Content-Type",
	"response-content-language":    "Content-Language",
	"response-expires":             "Expires",
	"response-cache-control":       "Cache-Control",
	"response-content-disposition": "Content-Disposition",
	"response-content-encoding":    "Content-Encoding",
}

func (s *Server) getObject(req *request) error {
	ctx, r := req.r.Context(), req.r
	b, err := s.checkBucket(ctx, req.bucket)
	if err != nil {
		return err
	}
	version := r.URL.Query().Get("versionId")
	f, err := findVersion(ctx, b, req.key, version)
	if err != nil {
		return readError(req, b, version, err)
	}
	if req.objectGrant && !b.FileReadable(f, req.sig != nil) {
		// Admitted by the newest revision's ACL; this one (another
		// version, or one written since) grants nothing.
		return errorf(ErrAccessDenied, "Access Denied")
	}
	h := req.w.Header()
	setObjectHeaders(h, f)
	if version != "" {
		h.Set("x-amz-version-id", version)
	} else {
		h.Set("x-amz-version-id", fileVersionID(b, f))
	}
	setExpiration(h, b, f)
	if err := readPreconditions(r.Header, objectETag(f), f.UploadDate); err != nil {
		return err
	}
	for param, header := range responseOverrides {
		if v := r.URL.Query().Get(param); v != "" {
			if req.sig == nil {
				// As AWS: an anonymous reader of a public bucket may not
				// choose how its objects are served.
				return errorf(ErrInvalidRequest, "Request specific response headers cannot be used for anonymous GET requests.")
			}
			h.Set(header, headerSafe(v))
		}
	}
	activeContent(h)
	spec, byPart, err := partRange(r, h, f)
	if err != nil {
		return err
	}
	if !byPart {
		spec = r.Header.Get("Range")
	}
	rng, err := parseRange(spec, f.Length)
	if checksumRequested(r.Header) {
		switch {
		case byPart:
			setPartChecksum(h, f, r.URL.Query().Get("partNumber"))
		case !rng.partial:
			setChecksumHeaders(h, f.Checksum())
		}
	}
	if err != nil {
		h.Set("Content-Range", fmt.Sprintf("bytes */%d", f.Length))
		return err
	}
	h.Set("Content-Length", strconv.FormatInt(rng.length, 10))
	status := http.StatusOK
	if rng.partial {
		h.Set("Content-Range", fmt.Sprintf("bytes %d-%d/%d", rng.start, rng.start+rng.length-1, f.Length))
		status = http.StatusPartialContent
	}
	if r.Method == http.MethodHead {
		req.w.WriteHeader(status)
		return nil
	}
	dl, err := b.Open(ctx, f)
	if err != nil {
		return err
	}
	defer func() {
		dl.Close()
		s.metrics.storeBytes.Add(float64(dl.Fetched()))
	}()
	if _, err := dl.Seek(rng.start, io.SeekStart); err != nil {
		return err
	}
	if rng.partial && !rng.open {
		// The client said where the range ends, as the ranged downloads of
		// S3 clients do: fetch it whole, nothing past it (see
		// chunker.Reader.Expect).
		dl.Expect(rng.start, rng.start+rng.length)
	}
	req.w.WriteHeader(status)
	if _, err := dl.Send(req.w, rng.length, nil); err != nil && ctx.Err() == nil {
		s.log.Error("s3: send object", "request_id", req.id, "bucket", req.bucket, "error", err)
	}
	return nil
}

// upload is what an upload request says about its content.
type upload struct {
	body       io.Reader
	sha256     string // hex SHA-256 the client declared, if any
	md5        []byte // Content-MD5, if sent
	decodedLen int64  // x-amz-decoded-content-length of aws-chunked bodies, else -1
}

// uploadBody decodes the request body of an upload: aws-chunked when the
// payload says so, with the x-amz-checksum-* of the content checked
// (header or trailer). The upload limits are buckets' (see
// buckets.Limits): the writers enforce them while the body streams.
func (s *Server) uploadBody(req *request) (*upload, error) {
	r := req.r
	u := &upload{body: r.Body, decodedLen: -1}
	if v := r.Header.Get("Content-MD5"); v != "" {
		sum, err := base64.StdEncoding.DecodeString(v)
		if err != nil || len(sum) != 16 {
			return nil, ErrInvalidDigest
		}
		u.md5 = sum
	}
	payload := r.Header.Get("X-Amz-Content-Sha256")
	sig := req.sig
	if sig != nil {
		payload = sig.payload
	} else {
		sig = &signature{}
	}
	trailer := r.Header.Get("X-Amz-Trailer")
	switch payload {
	case streamingSigned, streamingSignedTrailer:
		if req.sig == nil {
			return nil, errorf(ErrAccessDenied, "a signed aws-chunked body needs a signed request")
		}
		if payload == streamingSigned {
			trailer = ""
		}
		u.body = newChunkedReader(r.Body, sig, true, trailer)
	case streamingUnsignedTrail:
		u.body = newChunkedReader(r.Body, sig, false, trailer)
	case "", unsignedPayload:
	default:
		if _, err := hex.DecodeString(payload); err != nil || len(payload) != 64 {
			return nil, errorf(ErrInvalidArgument, "x-amz-content-sha256 must be a hex SHA-256, UNSIGNED-PAYLOAD or a STREAMING-* value")
		}
		u.sha256 = strings.ToLower(payload)
	}
	if strings.HasPrefix(payload, "STREAMING-") {
		n, err := strconv.ParseInt(r.Header.Get("X-Amz-Decoded-Content-Length"), 10, 64)
		if err == nil {
			u.decodedLen = n
		}
		if trailer != "" && newChecksum(trailer) == nil {
			return nil, errorf(ErrInvalidArgument, "unknown trailer %s", trailer)
		}
	}
	name, want, err := checksumHeader(r.Header)
	if err != nil {
		return nil, err
	}
	if name != "" {
		u.body = &checksumReader{r: u.body, name: name, want: want, h: newChecksum(name)}
	}
	return u, nil
}

// declared is the length of the content the request announces: the
// decoded length of an aws-chunked body, else Content-Length; -1 when it
// does not say.
func (u *upload) declared(r *http.Request) int64 {
	if u.decodedLen >= 0 {
		return u.decodedLen
	}
	if strings.HasPrefix(r.Header.Get("X-Amz-Content-Sha256"), "STREAMING-") {
		return -1
	}
	return r.ContentLength
}

// startUpload takes one of the gateway's upload slots and refuses a
// declared length (n; -1 when unknown) over the bucket's limit before the
// body is read: both are buckets' rules (buckets.Limits), shared by every
// door. The writers enforce the size again while the body streams.
func startUpload(db *buckets.DB, b *buckets.Bucket, n int64) (release func(), err error) {
	if err := b.CheckUploadSize(n); err != nil {
		return nil, err
	}
	return db.AcquireUpload()
}

// size is the length of the content the client announced, 0 when unknown.
func (u *upload) size(r *http.Request) int64 {
	if u.decodedLen >= 0 {
		return u.decodedLen
	}
	return max(r.ContentLength, 0)
}

// contentWriter is an upload in progress, whole file or part.
type contentWriter interface {
	ReadFrom(io.Reader) (int64, error)
	Length() int64
	SHA256() []byte
	MD5() []byte
	Abort() error
}

// receive streams the upload's body into w and checks what the client
// declared about it; on any failure it aborts w.
func receive(w contentWriter, u *upload) error {
	fail := func(err error) error {
		w.Abort()
		return err
	}
	if _, err := w.ReadFrom(u.body); err != nil {
		return fail(err)
	}
	switch {
	case u.decodedLen >= 0 && w.Length() != u.decodedLen:
		return fail(ErrIncompleteBody)
	case u.md5 != nil && string(u.md5) != string(w.MD5()):
		return fail(ErrBadDigest)
	case u.sha256 != "" && u.sha256 != hex.EncodeToString(w.SHA256()):
		return fail(ErrSHA256Mismatch)
	}
	return nil
}

// writeConditions are S3's conditional-write headers as buckets' commit
// protocol evaluates them, atomically with the commit, against S3 ETags.
// Clients may send an ETag without its quotes.
func writeConditions(h http.Header) buckets.Conditions {
	cond := buckets.Conditions{ETag: objectETag}
	if v := h.Get("If-Match"); v != "" {
		cond.IfMatch = quoteETags(v)
	}
	if v := h.Get("If-None-Match"); v != "" {
		cond.IfNoneMatch = quoteETags(v)
	}
	return cond
}

func (s *Server) putObject(req *request) error {
	ctx, r := req.r.Context(), req.r
	b, err := s.checkBucket(ctx, req.bucket)
	if err != nil {
		return err
	}
	md, err := userMetadata(r.Header)
	if err != nil {
		return err
	}
	// Checked before the body, so a request bound to fail uploads nothing;
	// the commit checks again, atomically.
	cond := writeConditions(r.Header)
	if err := b.CheckName(ctx, req.key, cond); err != nil {
		return err
	}
	tags, err := headerTags(r.Header)
	if err != nil {
		return err
	}
	cs, err := requestChecksum(r.Header)
	if err != nil {
		return err
	}
	u, err := s.uploadBody(req)
	if err != nil {
		return err
	}
	release, err := startUpload(s.db, b, u.declared(r))
	if err != nil {
		return err
	}
	defer release()
	u.body = cs.reader(u.body)
	up, err := b.OpenUpload(ctx, req.key, buckets.UploadOptions{Metadata: md, ContentType: r.Header.Get("Content-Type"), MD5: true,
		Conditions: cond, Size: u.size(r), Extra: append(buckets.TagsField(tags), buckets.ACLField(req.acl)...)})
	if err != nil {
		return err
	}
	defer up.Abort() // after a commit, nothing
	if err := receive(up, u); err != nil {
		return err
	}
	if cs != nil {
		st := cs.stored()
		up.SetField(buckets.FieldS3Checksum, st)
		setChecksumHeaders(req.w.Header(), &st)
	}
	// The commit checks the conditions again, atomically: another client
	// may have written the key meanwhile.
	f, err := up.Commit()
	if err != nil {
		return err
	}
	h := req.w.Header()
	h.Set("ETag", objectETag(f))
	h.Set("x-amz-version-id", fileVersionID(b, f))
	setExpiration(h, b, f)
	h.Set("Content-Length", "0")
	req.w.WriteHeader(http.StatusOK)
	return nil
}

func (s *Server) deleteObject(req *request) error {
	ctx := req.r.Context()
	b, err := s.checkBucket(ctx, req.bucket)
	if err != nil {
		return err
	}
	h := req.w.Header()
	if v := req.r.URL.Query().Get("versionId"); v != "" {
		marker, err := deleteVersion(ctx, b, req.key, v, writeConditions(req.r.Header))
		if err != nil {
			return err
		}
		h.Set("x-amz-version-id", v)
		if marker {
			h.Set("x-amz-delete-marker", "true")
		}
	} else if m, err := deleteKey(ctx, b, req.key, writeConditions(req.r.Header)); err != nil {
		return err
	} else if m != nil {
		h.Set("x-amz-version-id", fileVersionID(b, m))
		h.Set("x-amz-delete-marker", "true")
	}
	req.w.WriteHeader(http.StatusNoContent)
	return nil
}

// copySource parses x-amz-copy-source: "[/]bucket/key[?versionId=v]".
func copySource(v string) (bucket, key, version string, err error) {
	path, query, _ := strings.Cut(v, "?")
	path, err = url.PathUnescape(path)
	if err != nil {
		return "", "", "", errorf(ErrInvalidArgument, "x-amz-copy-source is not URL-encoded correctly")
	}
	bucket, key, _ = strings.Cut(strings.TrimPrefix(path, "/"), "/")
	if bucket == "" || key == "" {
		return "", "", "", errorf(ErrInvalidArgument, "x-amz-copy-source must be bucket/key")
	}
	if query != "" {
		q, perr := url.ParseQuery(query)
		if perr != nil {
			return "", "", "", errorf(ErrInvalidArgument, "x-amz-copy-source has a bad query")
		}
		version = q.Get("versionId")
	}
	return bucket, key, version, nil
}

// copySrc is the object an x-amz-copy-source names, found and checked.
type copySrc struct {
	bucket       *buckets.Bucket
	key, version string
	file         *buckets.File
}

// copySourceFile finds the object of a request's x-amz-copy-source, for
// CopyObject and UploadPartCopy alike: the caller must be able to read it,
// as GetObject of it would require, and the x-amz-copy-source-if-*
// conditions must hold (ErrPreconditionFailed otherwise).
func (s *Server) copySourceFile(req *request) (copySrc, error) {
	ctx, r := req.r.Context(), req.r
	bucket, key, version, err := copySource(r.Header.Get("X-Amz-Copy-Source"))
	if err != nil {
		return copySrc{}, err
	}
	p, err := s.decide(req, bucket, key, auth.Read)
	if err != nil {
		return copySrc{}, err
	}
	b, err := s.checkBucket(ctx, bucket)
	if err != nil {
		return copySrc{}, err
	}
	// Found as GetObject finds it (versionId=null too); a delete marker
	// named by its version id is no source, as S3 answers it.
	f, err := findVersion(ctx, b, key, version)
	if version != "" && errors.Is(err, buckets.ErrDeleteMarker) {
		return copySrc{}, errorf(ErrInvalidRequest, "The source of a copy request may not specifically refer to a delete marker by version id.")
	}
	if err != nil {
		return copySrc{}, err
	}
	if p.ObjectGrant && !b.FileReadable(f, req.sig != nil) {
		// Admitted by the newest revision's ACL, as getObject: the
		// revision copied (another version) may grant nothing.
		return copySrc{}, errorf(ErrAccessDenied, "Access Denied")
	}
	cond := http.Header{}
	for _, k := range []string{"If-Match", "If-None-Match", "If-Modified-Since", "If-Unmodified-Since"} {
		if v := r.Header.Get("X-Amz-Copy-Source-" + k); v != "" {
			cond.Set(k, v)
		}
	}
	if err := readPreconditions(cond, objectETag(f), f.UploadDate); err != nil {
		return copySrc{}, ErrPreconditionFailed
	}
	return copySrc{bucket: b, key: key, version: version, file: f}, nil
}

// copyDirective reports whether a CopyObject's x-amz-<what>-directive asks
// for REPLACE. S3 takes COPY (the default) or REPLACE in any case, and
// refuses anything else: a misspelt REPLACE taken for COPY would write a
// copy without what the client sent.
func copyDirective(h http.Header, what string) (replace bool, err error) {
	switch v := h.Get("X-Amz-" + what + "-Directive"); {
	case v == "" || strings.EqualFold(v, "COPY"):
		return false, nil
	case strings.EqualFold(v, "REPLACE"):
		return true, nil
	}
	return false, errorf(ErrInvalidArgument, "Unknown %s directive.", strings.ToLower(what))
}

func (s *Server) copyObject(req *request) error {
	ctx, r := req.r.Context(), req.r
	replaceMetadata, err := copyDirective(r.Header, "Metadata")
	if err != nil {
		return err
	}
	replaceTags, err := copyDirective(r.Header, "Tagging")
	if err != nil {
		return err
	}
	// A copy has no content of its own, but what the client signed about
	// its body still holds.
	if _, err := s.readSmallBody(req); err != nil {
		return err
	}
	src, err := s.copySourceFile(req)
	if err != nil {
		return err
	}
	sb, f, srcVersion := src.bucket, src.file, src.version
	srcBucket, srcKey := sb.Name(), src.key
	opts := buckets.UploadOptions{MD5: true, Extra: buckets.TagsField(f.Tags())}
	if replaceTags {
		tags, err := headerTags(r.Header)
		if err != nil {
			return err
		}
		opts.Extra = buckets.TagsField(tags)
	}
	// S3 gives a copy its own ACL (private unless x-amz-acl), never the
	// source's.
	opts.Extra = append(opts.Extra, buckets.ACLField(req.acl)...)
	if replaceMetadata {
		if opts.Metadata, err = userMetadata(r.Header); err != nil {
			return err
		}
		opts.ContentType = r.Header.Get("Content-Type")
	} else {
		if srcBucket == req.bucket && srcKey == req.key && srcVersion == "" {
			return errorf(ErrInvalidRequest, "This copy request is illegal because it is trying to copy an object to itself without changing the object's metadata, storage class, website redirect location or encryption attributes.")
		}
		if f.Metadata != nil {
			var md bson.D
			if err := bson.Unmarshal(f.Metadata, &md); err != nil {
				return err
			}
			opts.Metadata = md
		}
		opts.ContentType = f.MediaType()
	}
	db, err := s.checkBucket(ctx, req.bucket)
	if err != nil {
		return err
	}
	opts.Conditions = writeConditions(r.Header)
	if err := db.CheckName(ctx, req.key, opts.Conditions); err != nil {
		return err
	}
	release, err := startUpload(s.db, db, f.Length)
	if err != nil {
		return err
	}
	defer release()
	dl, err := sb.Open(ctx, f)
	if err != nil {
		return err
	}
	defer dl.Close()
	up, err := db.OpenUpload(ctx, req.key, opts)
	if err != nil {
		return err
	}
	defer up.Abort() // after a commit, nothing
	cs, err := copyChecksum(r.Header, f)
	if err != nil {
		return err
	}
	if _, err := up.ReadFrom(cs.reader(dl)); err != nil {
		up.Abort()
		return err
	}
	if cs != nil {
		up.SetField(buckets.FieldS3Checksum, cs.stored())
	}
	nf, err := up.Commit()
	if err != nil {
		return err
	}
	req.w.Header().Set("x-amz-version-id", fileVersionID(db, nf))
	if srcVersion != "" {
		req.w.Header().Set("x-amz-copy-source-version-id", srcVersion)
	}
	return s.writeXML(req, http.StatusOK, copyObjectResult{LastModified: timestamp(nf.UploadDate), ETag: objectETag(nf)})
}

func timestamp(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

// withoutAWSChunked drops aws-chunked, the transfer coding of a streaming
// upload's body, from its Content-Encoding: the stored object is not
// aws-chunked, and S3 serves the object's own codings only.
func withoutAWSChunked(v string) string {
	var keep []string
	for _, c := range strings.Split(v, ",") {
		if c = strings.TrimSpace(c); c != "" && !strings.EqualFold(c, "aws-chunked") {
			keep = append(keep, c)
		}
	}
	return strings.Join(keep, ", ")
}
