package buckets

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
)

// ErrBusy means MaxConcurrentUploads uploads are running already; the
// client should retry later (HTTP 503 with Retry-After, S3 SlowDown).
var ErrBusy = errors.New("too many uploads in progress")

// Limits bound the uploads through one DB, whichever front door (HTTP API,
// S3, resumable uploads, WebDAV) they come through: each door calls the
// same checks, so no door is a way around them.
//
//   - Size: every file written, by an upload, a copy or a multipart upload
//     as a whole, holds at most UploadLimit bytes, the smaller of
//     MaxUploadSize and the bucket's Settings.MaxFileSize. OpenUpload and
//     OpenPart enforce it while the body streams (ErrTooLarge, nothing
//     kept); CompleteMultipart enforces it on the parts' total; doors call
//     Bucket.CheckUploadSize with a declared length to refuse before
//     reading a byte.
//   - Concurrency: a door takes one of MaxConcurrentUploads slots with
//     DB.AcquireUpload before it streams a request body into a file or a
//     part, and releases it when the request ends.
type Limits struct {
	// MaxUploadSize is the largest file, in bytes; 0 means no limit other
	// than a bucket's own MaxFileSize.
	MaxUploadSize int64
	// MaxConcurrentUploads is how many uploads may stream at once; 0 means
	// no limit.
	MaxConcurrentUploads int
}

// limitState is what SetLimits set: the limits and, when they bound
// concurrency, a token per running upload.
type limitState struct {
	Limits
	slots chan struct{}
}

// limitsOf holds a DB's limitState; the zero value limits nothing.
type limitsOf struct{ p atomic.Pointer[limitState] }

func (l *limitsOf) get() *limitState {
	if s := l.p.Load(); s != nil {
		return s
	}
	return &limitState{}
}

// SetLimits sets the limits of every upload through d from now on (the
// zero Limits, the default, limits nothing). Uploads already running keep
// the slots they hold.
func (d *DB) SetLimits(l Limits) error {
	if l.MaxUploadSize < 0 || l.MaxConcurrentUploads < 0 {
		return fmt.Errorf("buckets: limits may not be negative (max upload size %d, max concurrent uploads %d)", l.MaxUploadSize, l.MaxConcurrentUploads)
	}
	s := &limitState{Limits: l}
	if l.MaxConcurrentUploads > 0 {
		s.slots = make(chan struct{}, l.MaxConcurrentUploads)
	}
	d.limits.p.Store(s)
	return nil
}

// Limits returns the limits SetLimits set.
func (d *DB) Limits() Limits { return d.limits.get().Limits }

// AcquireUpload takes one of the MaxConcurrentUploads slots for an upload
// about to stream, without waiting: it returns ErrBusy when all are taken.
// The returned release gives the slot back; calling it more than once does
// nothing more.
func (d *DB) AcquireUpload() (release func(), err error) {
	slots := d.limits.get().slots
	if slots == nil {
		return func() {}, nil
	}
	select {
	case slots <- struct{}{}:
	default:
		return nil, fmt.Errorf("%w: %d are running, the most this gateway allows (max-concurrent-uploads); retry later", ErrBusy, cap(slots))
	}
	var once sync.Once
	return func() { once.Do(func() { <-slots }) }, nil
}

// UploadLimit is the most bytes a file of b may hold: the smaller of the
// DB's MaxUploadSize and b's MaxFileSize, and which of the two that is, for
// messages. 0 means no limit.
func (b *Bucket) UploadLimit() (int64, string) {
	limit, name := b.db.limits.get().MaxUploadSize, "gateway's max-upload-size"
	if m := b.settings.MaxFileSize; m > 0 && (limit == 0 || m < limit) {
		limit, name = m, "bucket's maxFileSize"
	}
	return limit, name
}

// CheckUploadSize returns ErrTooLarge when a file of n bytes would exceed
// b's UploadLimit. Doors call it with a declared length (Content-Length,
// Upload-Length) so that a request bound to fail is refused before its
// body is read.
func (b *Bucket) CheckUploadSize(n int64) error {
	if limit, name := b.UploadLimit(); limit > 0 && n > limit {
		return tooLarge(n, limit, name)
	}
	return nil
}

func tooLarge(n, limit int64, name string) error {
	return fmt.Errorf("%w: %d bytes is more than the %s of %d bytes", ErrTooLarge, n, name, limit)
}
