package buckets

import (
	"errors"
	"fmt"
	"time"
)

// ErrPreconditionFailed is a write whose Conditions do not hold: nothing
// was changed. ErrNoCurrentFile also wraps it when the failure is an
// If-Match with no file to match (S3 answers that with NoSuchKey).
var (
	ErrPreconditionFailed = errors.New("precondition failed")
	ErrNoCurrentFile      = errors.New("no current file to match")
)

// Conditions are the preconditions of a write (RFC 9110 §13.1), evaluated
// against the file the write replaces or changes: for a write by name the
// newest revision of the name, for a write by id that file. The zero value
// has none.
type Conditions struct {
	// IfMatch is a list of entity tags or "*": the current file must
	// exist and carry one of them (strong comparison).
	IfMatch string
	// IfNoneMatch is a list of entity tags or "*": the write fails when
	// the current file carries one of them ("*": when there is one).
	IfNoneMatch string
	// IfUnmodifiedSince, unless zero, fails the write when the current
	// file was uploaded after it (compared to the second, as HTTP dates
	// are). It is ignored when IfMatch is set, as RFC 9110 says.
	IfUnmodifiedSince time.Time
	// ETag computes the entity tag IfMatch and IfNoneMatch compare with;
	// nil means (*File).ETag. The S3 front door passes its MD5 ETags.
	ETag func(*File) string
}

// Any reports whether there is a condition to evaluate.
func (c Conditions) Any() bool {
	return c.IfMatch != "" || c.IfNoneMatch != "" || !c.IfUnmodifiedSince.IsZero()
}

func (c Conditions) etag(f *File) string {
	if f == nil {
		return ""
	}
	if c.ETag != nil {
		return c.ETag(f)
	}
	return f.ETag()
}

// Check evaluates the conditions against cur, the current file (nil when
// there is none), in RFC 9110 §13.2.2's order. It returns nil or an error
// wrapping ErrPreconditionFailed.
func (c Conditions) Check(cur *File) error {
	tag := c.etag(cur)
	if c.IfMatch != "" {
		if cur == nil {
			return fmt.Errorf("%w: %w (If-Match)", ErrPreconditionFailed, ErrNoCurrentFile)
		}
		if !MatchETag(c.IfMatch, tag, false) {
			return fmt.Errorf("%w: the current ETag is %s (If-Match)", ErrPreconditionFailed, tag)
		}
	} else if !c.IfUnmodifiedSince.IsZero() && cur != nil &&
		cur.UploadDate.Truncate(time.Second).After(c.IfUnmodifiedSince) {
		return fmt.Errorf("%w: uploaded %s, after %s (If-Unmodified-Since)", ErrPreconditionFailed,
			cur.UploadDate.Format(time.RFC1123), c.IfUnmodifiedSince.UTC().Format(time.RFC1123))
	}
	if c.IfNoneMatch != "" && MatchETag(c.IfNoneMatch, tag, true) {
		return fmt.Errorf("%w: the current ETag %s matches (If-None-Match)", ErrPreconditionFailed, tag)
	}
	return nil
}
