package resumable

import (
	"context"
	"errors"
	"io"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/gridfsd/gridfsd/buckets"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/bson"
	"github.com/tus/tusd/v2/pkg/handler"
)

// store is tusd's DataStore over buckets' resumable uploads. An upload's
// tus id is "<bucket>/<record id>", so that its URL is
// /uploads/<bucket>/<record id>. Every rule about the data lives in
// buckets; store translates.
type store struct {
	door *Door
}

var (
	_ handler.DataStore               = store{}
	_ handler.TerminaterDataStore     = store{}
	_ handler.ConcaterDataStore       = store{}
	_ handler.LengthDeferrerDataStore = store{}
)

// upload is one resumable upload as tusd sees it.
type upload struct {
	door   *Door
	bucket *buckets.Bucket
	rec    *buckets.Resumable
	lock   *buckets.UploadLock // the lock rec was read through, if any
	// declared: rec's length was declared by this request and is not
	// recorded yet (see DeclareLength).
	declared bool
}

// splitID parses "<bucket>/<record id>", ignoring a query (the URLs of
// partial uploads in Upload-Concat may carry their signatures).
func splitID(id string) (bucket, rec string, ok bool) {
	id, _, _ = strings.Cut(id, "?")
	bucket, rec, ok = strings.Cut(strings.Trim(id, "/"), "/")
	return bucket, rec, ok && bucket != "" && rec != "" && !strings.Contains(rec, "/")
}

// Reserved metadata keys: the GridFS name, the content type (tus-js-client
// and Uppy send filetype) and the file's expiry.
const (
	metaFilename    = "filename"
	metaFiletype    = "filetype"
	metaContentType = "contentType"
	metaExpires     = "expires"
)

func (s store) NewUpload(ctx context.Context, info handler.FileInfo) (handler.Upload, error) {
	ex := exchangeOf(ctx)
	b, err := s.door.cfg.DB.Bucket(ctx, ex.bucket)
	if err != nil {
		return nil, s.door.tusError(ctx, err)
	}
	opts := buckets.ResumableOptions{
		Filename: info.MetaData[metaFilename], Length: info.Size, Partial: info.IsPartial,
		Conditions: ex.cond, Info: info.MetaData, Expiry: s.door.cfg.Expiry,
	}
	if info.SizeIsDeferred {
		opts.Length = -1
	}
	if opts.Filename == "" && !info.IsPartial {
		return nil, handler.NewError("ERR_FILENAME_REQUIRED", "Upload-Metadata has no filename: it names the GridFS file", http.StatusBadRequest)
	}
	if v, ok := info.MetaData[metaExpires]; ok {
		at, err := buckets.ParseExpiry(v, time.Now())
		if err != nil {
			return nil, s.door.tusError(ctx, err)
		}
		opts.ExpireAt = at
	}
	opts.ContentType = info.MetaData[metaContentType]
	if opts.ContentType == "" {
		opts.ContentType = info.MetaData[metaFiletype]
	}
	keys := make([]string, 0, len(info.MetaData))
	for k := range info.MetaData {
		if k != metaFilename && k != metaFiletype && k != metaContentType && k != metaExpires {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		opts.Metadata = append(opts.Metadata, bson.E{Key: k, Value: info.MetaData[k]})
	}
	rec, err := b.CreateResumable(ctx, opts)
	if err != nil {
		return nil, s.door.tusError(ctx, err)
	}
	s.door.metrics.created.Inc()
	ex.noteExpires(rec)
	return &upload{door: s.door, bucket: b, rec: rec}, nil
}

func (s store) GetUpload(ctx context.Context, id string) (handler.Upload, error) {
	bucket, recID, ok := splitID(id)
	if !ok {
		return nil, handler.ErrNotFound
	}
	if ex := exchangeOf(ctx); ex != nil && ex.bucket != bucket {
		return nil, handler.NewError("ERR_OTHER_BUCKET", "the upload belongs to another bucket", http.StatusBadRequest)
	}
	b, err := s.door.cfg.DB.Bucket(ctx, bucket)
	if err != nil {
		return nil, s.door.tusError(ctx, err)
	}
	var rec *buckets.Resumable
	var held *buckets.UploadLock
	if ex := exchangeOf(ctx); ex != nil && ex.patch {
		held = ex.held(bucket, recID)
	}
	if held != nil {
		// The record as this gateway last wrote it, when it held the lock
		// since (the PATCH before on the same connection, usually).
		rec, err = held.Resumable(ctx)
	} else {
		rec, err = b.Resumable(ctx, recID)
	}
	if err != nil {
		return nil, s.door.tusError(ctx, err)
	}
	return &upload{door: s.door, bucket: b, rec: rec, lock: held}, nil
}

func (u *upload) GetInfo(ctx context.Context) (handler.FileInfo, error) {
	r := u.rec
	info := handler.FileInfo{
		ID: u.bucket.Name() + "/" + r.ID, Size: r.Length, SizeIsDeferred: r.Length < 0, Offset: r.Offset,
		MetaData: r.Info, IsPartial: r.Partial, IsFinal: len(r.Parts) > 0,
	}
	if ex := exchangeOf(ctx); ex != nil && ex.patch && r.Length >= 0 && ex.uploadLength == r.Length && !r.Complete() {
		// A PATCH declaring the length the upload has (a retry of one
		// whose append was cut after the length was recorded; tus-js-client
		// sends Upload-Length on each try of the last chunk): tusd's
		// handler refuses any Upload-Length once the length is known, so
		// the length is shown deferred, for DeclareLength to find it the
		// same.
		info.SizeIsDeferred = true
	}
	if info.SizeIsDeferred {
		info.Size = 0
	}
	for _, p := range r.Parts {
		info.PartialUploads = append(info.PartialUploads, u.bucket.Name()+"/"+p)
	}
	if ex := exchangeOf(ctx); ex != nil {
		ex.noteExpires(r)
		ex.noteFile(u.bucket.Name(), r)
	}
	return info, nil
}

func (u *upload) WriteChunk(ctx context.Context, offset int64, src io.Reader) (int64, error) {
	ex := exchangeOf(ctx)
	lock := u.lock
	if lock == nil && ex != nil {
		// A creation with a body: the record it just created, and locked.
		lock = ex.held(u.bucket.Name(), u.rec.ID)
	}
	opts := buckets.AppendOptions{Expect: -1, Lock: lock}
	if ex != nil {
		opts.Checksum, opts.Want, opts.Expect = ex.checksum, ex.checksumWant, ex.expect
	}
	if ex != nil {
		src = &overflowReader{r: src, body: ex.body}
	}
	counted := &countingReader{r: src}
	// tusd read the record under the upload's lock (GetUpload), or just
	// created it (a creation with a body): it is the truth.
	rec, err := u.bucket.AppendResumable(ctx, u.rec, offset, counted, opts)
	u.door.metrics.bytes.Add(float64(counted.n))
	if err != nil {
		if u.declared {
			// Nothing was recorded, the length this request declared
			// neither: tusd's handler would finish an upload whose
			// declared length is its offset.
			u.rec.Length, u.declared = -1, false
		}
		return 0, u.door.tusError(ctx, err)
	}
	u.rec, u.declared = rec, false
	if ex != nil {
		ex.noteExpires(rec)
		ex.noteFile(u.bucket.Name(), rec)
	}
	if rec.Finished && !rec.Partial {
		u.door.metrics.finished.Inc()
	}
	return rec.Offset - offset, nil
}

type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

func (u *upload) GetReader(context.Context) (io.ReadCloser, error) {
	return nil, handler.ErrNotImplemented
}

// FinishUpload commits an upload whose bytes are all stored: appends commit
// on their own, so this is for uploads of zero bytes and for a length
// declared at the offset.
func (u *upload) FinishUpload(ctx context.Context) error {
	if u.rec.Finished {
		return nil
	}
	if u.declared {
		// Declared after the body, at the offset (the IETF draft's
		// Upload-Complete).
		if err := u.bucket.DeclareResumableLength(ctx, u.rec.ID, u.rec.Length); err != nil {
			return u.door.tusError(ctx, err)
		}
		u.declared = false
	}
	rec, err := u.bucket.FinishResumable(ctx, u.rec.ID)
	if err != nil {
		return u.door.tusError(ctx, err)
	}
	u.rec = rec
	if ex := exchangeOf(ctx); ex != nil {
		ex.noteExpires(rec)
		ex.noteFile(u.bucket.Name(), rec)
	}
	if rec.Finished && !rec.Partial {
		u.door.metrics.finished.Inc()
	}
	return nil
}

func (s store) AsTerminatableUpload(up handler.Upload) handler.TerminatableUpload {
	return up.(*upload)
}
func (s store) AsConcatableUpload(up handler.Upload) handler.ConcatableUpload { return up.(*upload) }
func (s store) AsLengthDeclarableUpload(up handler.Upload) handler.LengthDeclarableUpload {
	return up.(*upload)
}

func (u *upload) Terminate(ctx context.Context) error {
	if err := u.bucket.TerminateResumable(ctx, u.rec.ID); err != nil {
		return u.door.tusError(ctx, err)
	}
	u.door.metrics.terminated.Inc()
	return nil
}

// DeclareLength declares the length for the append that follows, which
// records it (or FinishUpload, for a length declared after the body): a
// PATCH that fails declares nothing, and its retry, with the same
// Upload-Length, is not refused.
func (u *upload) DeclareLength(ctx context.Context, length int64) error {
	rec, err := u.bucket.WithDeclaredLength(u.rec, length)
	if err != nil {
		return u.door.tusError(ctx, err)
	}
	if rec.Length != u.rec.Length {
		u.rec, u.declared = rec, true
	}
	return nil
}

func (u *upload) ConcatUploads(ctx context.Context, parts []handler.Upload) error {
	ids := make([]string, len(parts))
	for i, p := range parts {
		pu := p.(*upload)
		if pu.bucket.Name() != u.bucket.Name() {
			return handler.NewError("ERR_OTHER_BUCKET", "a partial upload belongs to another bucket", http.StatusBadRequest)
		}
		ids[i] = pu.rec.ID
	}
	rec, err := u.bucket.ConcatResumable(ctx, u.rec.ID, ids)
	if err != nil {
		return u.door.tusError(ctx, err)
	}
	u.rec = rec
	if ex := exchangeOf(ctx); ex != nil {
		ex.noteExpires(rec)
		ex.noteFile(u.bucket.Name(), rec)
	}
	u.door.metrics.finished.Inc()
	return nil
}

// tus errors: the protocol's codes for buckets' errors; anything else is
// logged and answered 500 without its text.
var (
	errGone             = handler.NewError("ERR_UPLOAD_GONE", "the upload expired", http.StatusGone)
	errChecksumMismatch = handler.NewError("ERR_CHECKSUM_MISMATCH", "checksum mismatch: nothing was appended", 460)
	errPrecondition     = handler.NewError("ERR_PRECONDITION_FAILED", "precondition failed: the upload was removed", http.StatusPreconditionFailed)
	errInternal         = handler.NewError("ERR_INTERNAL_SERVER_ERROR", "internal error (see the gateway's log)", http.StatusInternalServerError)
)

func (d *Door) tusError(ctx context.Context, err error) error {
	var te handler.Error
	switch {
	case errors.As(err, &te):
		return err
	case errors.Is(err, buckets.ErrResumableNotFound):
		return handler.ErrNotFound
	case errors.Is(err, buckets.ErrResumableExpired):
		return errGone
	case errors.Is(err, buckets.ErrOffsetMismatch):
		return handler.ErrMismatchOffset
	case errors.Is(err, buckets.ErrChecksumMismatch):
		return errChecksumMismatch
	case errors.Is(err, buckets.ErrTooLarge), errors.Is(err, buckets.ErrTooManyChunks):
		return handler.NewError("ERR_UPLOAD_SIZE_EXCEEDED", err.Error(), http.StatusRequestEntityTooLarge)
	case errors.Is(err, buckets.ErrInsufficientStorage):
		d.cfg.Logger.WarnContext(ctx, "resumable upload refused: the store is short of space", "error", err, "request_id", requestID(ctx))
		return handler.NewError("ERR_INSUFFICIENT_STORAGE", "insufficient storage: "+buckets.StorageReason(err), http.StatusInsufficientStorage)
	case errors.Is(err, buckets.ErrBusy):
		return handler.NewError("ERR_BUSY", "too many uploads in progress; retry later", http.StatusServiceUnavailable)
	case errors.Is(err, buckets.ErrPreconditionFailed):
		return errPrecondition
	case errors.Is(err, buckets.ErrBucketDropping):
		return handler.NewError("ERR_BUCKET_DROPPING", err.Error(), http.StatusConflict)
	case errors.Is(err, buckets.ErrUploadLocked):
		return handler.ErrFileLocked
	case errors.Is(err, buckets.ErrUploadFinished):
		return handler.NewError("ERR_UPLOAD_COMPLETE", "the upload is complete", http.StatusForbidden)
	case errors.Is(err, buckets.ErrPartialUnfinished):
		return handler.ErrUploadNotFinished
	case errors.Is(err, buckets.ErrInvalidFilename), errors.Is(err, buckets.ErrInvalidMetadata),
		errors.Is(err, buckets.ErrInvalidChunkSize), errors.Is(err, buckets.ErrInvalidLength),
		errors.Is(err, buckets.ErrInvalidPart), errors.Is(err, buckets.ErrInvalidBucketName),
		errors.Is(err, buckets.ErrInvalidExpiry):
		return handler.NewError("ERR_INVALID_REQUEST", err.Error(), http.StatusBadRequest)
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return handler.NewError("ERR_CANCELLED", "the request ended before the store answered", http.StatusServiceUnavailable)
	}
	d.cfg.Logger.ErrorContext(ctx, "resumable upload failed", "error", err, "request_id", requestID(ctx))
	return errInternal
}

// locker is tusd's Locker over buckets' upload locks in MongoDB, shared by
// every gateway.
type locker struct {
	door *Door
}

type lock struct {
	door   *Door
	id     string
	held   *buckets.UploadLock
	bucket string
}

// LockLinger is how long a gateway keeps an upload's lock after a request
// (see buckets.UploadLock): a client's next PATCH on the same connection
// usually follows within a millisecond or two, and then neither takes the
// lock nor reads the record from the store; a request through another
// gateway waits for it at most this long (and its own backoff's step).
const LockLinger = 25 * time.Millisecond

func (l locker) NewLock(id string) (handler.Lock, error) {
	bucket, rec, ok := splitID(id)
	if !ok {
		return nil, handler.ErrNotFound
	}
	return &lock{door: l.door, id: rec, bucket: bucket}, nil
}

// Lock waits for the upload's lock, asking its holder (on any gateway) to
// let go; tusd's requestUnlock then ends that holder's request, which
// keeps what it stored.
func (l *lock) Lock(ctx context.Context, requestUnlock func()) error {
	b, err := l.door.cfg.DB.Bucket(ctx, l.bucket)
	if err != nil {
		return l.door.tusError(ctx, err)
	}
	held, contended, err := b.LockResumable(ctx, l.id, l.door.cfg.LockTTL, requestUnlock)
	if contended {
		l.door.metrics.contended.Inc()
	}
	if err != nil {
		return l.door.tusError(ctx, err)
	}
	l.held = held
	if ex := exchangeOf(ctx); ex != nil {
		ex.lock = l
	}
	return nil
}

func (l *lock) Unlock() error {
	if l.held == nil {
		return nil
	}
	l.held.Linger(LockLinger)
	return nil
}

// sweep removes expired uploads from every bucket and returns how many
// unfinished ones went.
func (d *Door) sweep(ctx context.Context) int {
	names, err := d.cfg.DB.Names(ctx)
	if err != nil {
		d.cfg.Logger.Warn("resumable sweep: list buckets", "error", err)
		return 0
	}
	total := 0
	for _, name := range names {
		b, err := d.cfg.DB.Bucket(ctx, name)
		if err == nil {
			var n int
			n, err = b.SweepResumable(ctx)
			total += n
			if n > 0 {
				d.cfg.Logger.Info("resumable sweep: removed expired uploads", "bucket", name, "uploads", n)
			}
		}
		if err != nil {
			d.cfg.Logger.Warn("resumable sweep", "bucket", name, "error", err)
		}
	}
	d.metrics.expired.Add(float64(total))
	return total
}

// Run sweeps expired uploads every SweepInterval until ctx ends (the
// gateway stops); then it gives back the locks kept for a next request.
func (d *Door) Run(ctx context.Context) {
	t := time.NewTicker(d.cfg.SweepInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			d.Close()
			return
		case <-t.C:
		}
		d.sweep(ctx)
	}
}

// Close gives back the upload locks kept for a next request (see
// LockLinger), and makes every request give its lock back at once from
// now on: another gateway would wait for them to expire.
func (d *Door) Close() { d.cfg.DB.ReleaseUploadLocks() }
