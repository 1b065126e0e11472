package dav

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"strings"

	"github.com/gridfsd/gridfsd/auth"
	"github.com/gridfsd/gridfsd/buckets"
	"golang.org/x/net/webdav"
)

// Errors the door itself detects; buckets' sentinels cover the rest.
var (
	errBadRequest     = errors.New("bad request")
	errForbidden      = errors.New("forbidden")
	errConflict       = errors.New("conflict")
	errNotAllowed     = errors.New("method not allowed")
	errTooLarge       = errors.New("upload too large")
	errIncompleteBody = errors.New("request body ended early")
	errLocked         = errors.New("locked")
	errPrecondition   = errors.New("precondition failed")
	errFiniteDepth    = errors.New("PROPFIND with Depth: infinity is not supported; use Depth: 0 or 1")
)

// classify maps an error to the status that replaces the one
// golang.org/x/net/webdav chose (it answers most failures of a file system
// with 403, 405 or 500), and whether the error is the gateway's own fault,
// to be logged. A status of 0 leaves webdav's choice: it knows when a
// missing file is a 404 and when a missing parent is a 409.
func classify(ctx context.Context, err error) (status int, internal bool) {
	var ae authError
	switch {
	case err == nil:
		return 0, false
	case errors.As(err, &ae):
		return ae.status, false
	case errors.Is(err, auth.ErrUnauthenticated):
		return http.StatusUnauthorized, false
	case errors.Is(err, auth.ErrForbidden), errors.Is(err, errForbidden), errors.Is(err, buckets.ErrTooManyFiles),
		errors.Is(err, buckets.ErrBucketNotEmpty), errors.Is(err, errFiniteDepth):
		return http.StatusForbidden, false
	case errors.Is(err, buckets.ErrInvalidBucketName), errors.Is(err, buckets.ErrInvalidFilename),
		errors.Is(err, buckets.ErrInvalidMetadata), errors.Is(err, buckets.ErrInvalidChunkSize),
		errors.Is(err, buckets.ErrInvalidQuery), errors.Is(err, errBadRequest), errors.Is(err, errIncompleteBody):
		return http.StatusBadRequest, false
	case errors.Is(err, buckets.ErrTooLarge), errors.Is(err, buckets.ErrTooManyChunks), errors.Is(err, errTooLarge):
		return http.StatusRequestEntityTooLarge, false
	case errors.Is(err, buckets.ErrInsufficientStorage):
		// RFC 4918 11.5: the server cannot store the representation.
		return http.StatusInsufficientStorage, false
	case errors.Is(err, errLocked):
		return webdav.StatusLocked, false
	case errors.Is(err, buckets.ErrPreconditionFailed), errors.Is(err, errPrecondition):
		return http.StatusPreconditionFailed, false
	case errors.Is(err, errConflict), errors.Is(err, buckets.ErrFileExists):
		return http.StatusConflict, false
	case errors.Is(err, errNotAllowed):
		return http.StatusMethodNotAllowed, false
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, fs.ErrExist):
		return 0, false
	case errors.Is(err, buckets.ErrFileNotFound), errors.Is(err, buckets.ErrBucketNotFound):
		return http.StatusNotFound, false
	case errors.Is(err, buckets.ErrBusy):
		return http.StatusServiceUnavailable, false
	case buckets.ClientGone(ctx, err):
		return http.StatusServiceUnavailable, false // nobody reads it
	case errors.Is(err, buckets.ErrChunksLost), buckets.StoreUnavailable(err), errors.Is(err, context.DeadlineExceeded):
		return http.StatusServiceUnavailable, true
	}
	if _, ok := buckets.RefusedDocument(err); ok {
		return http.StatusBadRequest, false
	}
	return http.StatusInternalServerError, true
}

// authError carries the status of an access decision.
type authError struct {
	status int
	err    error
}

func (e authError) Error() string { return e.err.Error() }
func (e authError) Unwrap() error { return e.err }

// notExist is a missing file as the os package says it, which webdav
// turns into 404 or, for a missing parent, 409.
func notExist(op string, l loc) error {
	return &fs.PathError{Op: op, Path: l.path(), Err: fs.ErrNotExist}
}

// message is what a client is told about err: the error's own text,
// without the store's details for internal errors.
func message(status int, err error, internal bool) string {
	if internal {
		return http.StatusText(status)
	}
	msg := err.Error()
	// The sentinels' text is the reason; the store's would be noise.
	return strings.ToUpper(msg[:1]) + msg[1:]
}

func badRequest(format string, args ...any) error {
	return fmt.Errorf("%w: %s", errBadRequest, fmt.Sprintf(format, args...))
}
