package buckets

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/gridfsd/gridfsd/third_party/mongo-driver/mongo"
)

// ErrInsufficientStorage means the store has no room for a write: it would
// leave less free disk than the reserve (DB.SetDiskSpace), or the store
// reported its disk full. Nothing of the write remains. Deletes are never
// refused for the reserve, only by a store that cannot write at all (a
// disk full to the last byte): every write of buckets passes the store's
// "disk full" through full.
var ErrInsufficientStorage = errors.New("insufficient storage")

// DiskSpace reports the room the store has left for data, in bytes. The
// embedded store implements it from its file system; a MongoDB's disks are
// its own operator's to watch, so a DB on MongoDB has none.
type DiskSpace interface {
	FreeBytes() (uint64, error)
}

// Space is a store's room as last measured.
type Space struct {
	// Free is the room left for data (see DiskSpace).
	Free uint64
	// Reserve is the room uploads never take: deletes, the sweeper and
	// fsck --repair need some to free space on a full disk (SQLite writes
	// a delete to its write-ahead log first), as do leases.
	Reserve uint64
}

// Low reports whether the store is below its reserve: uploads are refused.
func (s Space) Low() bool { return s.Free < s.Reserve }

// spaceGuard refuses uploads that would take a store below its reserve.
type spaceGuard struct {
	disk    DiskSpace
	reserve uint64
}

// SpaceCheckInterval is how many bytes an upload writes between two looks
// at the free space: often enough that uploads running at once overshoot
// the reserve by little (each by at most this much, plus what the chunk
// writers hold, UploadBufferBytes in all), rarely enough to cost nothing.
const SpaceCheckInterval = 1 << 20

// SetDiskSpace makes d refuse uploads, with ErrInsufficientStorage, before
// they leave less than reserve bytes free on disk: when one opens (by its
// announced size, UploadOptions.Size) and every SpaceCheckInterval bytes
// while it streams. Deletes are never refused. Call it before d is used.
func (d *DB) SetDiskSpace(disk DiskSpace, reserve uint64) {
	d.space = &spaceGuard{disk: disk, reserve: reserve}
}

// Space measures the store's room now; ok is false when d has no
// DiskSpace (MongoDB).
func (d *DB) Space() (s Space, ok bool, err error) {
	g := d.space
	if g == nil {
		return Space{}, false, nil
	}
	free, err := g.disk.FreeBytes()
	if err != nil {
		return Space{}, true, fmt.Errorf("free space: %w", err)
	}
	return Space{Free: free, Reserve: g.reserve}, true, nil
}

// checkSpace returns ErrInsufficientStorage when writing need more bytes
// would take the store below its reserve. A failure to measure lets the
// write through: the store's own "disk full" still stops it.
func (d *DB) checkSpace(need int64) error {
	s, ok, err := d.Space()
	if !ok || err != nil {
		if err != nil {
			d.logger().Warn("cannot measure free disk space", "error", err)
		}
		return nil
	}
	if need < 0 {
		need = 0
	}
	switch {
	case s.Free < s.Reserve:
		return &storageError{reason: fmt.Sprintf("the store's disk has %s free, less than its %s reserve",
			FormatBytes(s.Free), FormatBytes(s.Reserve))}
	case s.Free-s.Reserve < uint64(need):
		return &storageError{reason: fmt.Sprintf("%s would leave the store's disk below its %s reserve (%s free)",
			FormatBytes(uint64(need)), FormatBytes(s.Reserve), FormatBytes(s.Free))}
	}
	return nil
}

// storageError is an ErrInsufficientStorage with a reason for the client
// and, when the store said it, the store's own error for the log.
type storageError struct {
	reason string
	cause  error
}

func (e *storageError) Error() string {
	if e.cause == nil {
		return ErrInsufficientStorage.Error() + ": " + e.reason
	}
	return ErrInsufficientStorage.Error() + ": " + e.reason + ": " + e.cause.Error()
}

func (e *storageError) Unwrap() []error {
	if e.cause == nil {
		return []error{ErrInsufficientStorage}
	}
	return []error{ErrInsufficientStorage, e.cause}
}

// StorageReason is the one-line reason of an ErrInsufficientStorage for the
// client, free of the store's own text; "" when err is not one.
func StorageReason(err error) string {
	var se *storageError
	if errors.As(err, &se) {
		return se.reason
	}
	if errors.Is(err, ErrInsufficientStorage) {
		return "the store's disk is full"
	}
	return ""
}

// spaceReader checks the store's room every SpaceCheckInterval bytes read
// from r, failing the read with ErrInsufficientStorage when it runs out.
type spaceReader struct {
	r     io.Reader
	db    *DB
	since int64
}

// guardSpace wraps r in a spaceReader when d watches its disk.
func (d *DB) guardSpace(r io.Reader) io.Reader {
	if d.space == nil {
		return r
	}
	return &spaceReader{r: r, db: d}
}

func (s *spaceReader) Read(p []byte) (int, error) {
	if s.since >= SpaceCheckInterval {
		s.since = 0
		if err := s.db.checkSpace(0); err != nil {
			return 0, err
		}
	}
	n, err := s.r.Read(p)
	s.since += int64(n)
	return n, err
}

// diskFullCodes are MongoDB's server error codes of a write refused for
// lack of disk space: OutOfDiskSpace (14031, error_codes.yml). A storage
// engine's ENOSPC that reaches the client as another code says "No space
// left on device", which diskFull matches too.
var diskFullCodes = []int{14031}

// diskFull reports whether err is the store's own "disk full": MongoDB's
// codes above, or SQLite's SQLITE_FULL ("database or disk is full"), which
// the embedded store passes on in its message, as does an ENOSPC from
// either ("no space left on device").
func diskFull(err error) bool {
	if err == nil {
		return false
	}
	var se mongo.ServerError
	if errors.As(err, &se) {
		for _, code := range diskFullCodes {
			if se.HasErrorCode(code) {
				return true
			}
		}
	}
	msg := strings.ToLower(err.Error())
	return strings.Contains(msg, "database or disk is full") || strings.Contains(msg, "no space left on device")
}

// full wraps a store's "disk full" in ErrInsufficientStorage, so that every
// front door answers it as one (507), whichever store said it.
func full(err error) error {
	if err == nil || errors.Is(err, ErrInsufficientStorage) || !diskFull(err) {
		return err
	}
	return &storageError{reason: "the store's disk is full", cause: err}
}

// DiskFull returns err as an ErrInsufficientStorage when it is the store's
// own "disk full", else err as it is: for the few writes a front door makes
// to the store itself (WebDAV's locks), which a full disk must answer as it
// answers every write of buckets'.
func DiskFull(err error) error { return full(err) }

// FormatBytes writes n in the largest binary unit that keeps it at or above
// 1, with one decimal: "512 B", "3.0 KiB", "1.5 GiB".
func FormatBytes(n uint64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := uint64(unit), 0
	for m := n / unit; m >= unit && exp < 5; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}
