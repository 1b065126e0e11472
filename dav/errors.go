package dav

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"strings"

	"github.com/gridfsd/gridfsd/buckets"
	"github.com/gridfsd/gridfsd/internal/errstatus"
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
// missing file is a 404 and when a missing parent is a 409. The errors of
// buckets and auth have the statuses of every door (errstatus), but for
// what a file manager deletes or moves: a bucket that is not empty is
// refused (403), as a folder too large to move is.
func classify(ctx context.Context, err error) (status int, internal bool) {
	var ae authError
	switch {
	case err == nil:
		return 0, false
	case errors.As(err, &ae):
		return ae.status, false
	case errors.Is(err, errForbidden), errors.Is(err, errFiniteDepth), errors.Is(err, buckets.ErrBucketNotEmpty):
		return http.StatusForbidden, false
	case errors.Is(err, errBadRequest), errors.Is(err, errIncompleteBody):
		return http.StatusBadRequest, false
	case errors.Is(err, errTooLarge):
		return http.StatusRequestEntityTooLarge, false
	case errors.Is(err, errLocked):
		return webdav.StatusLocked, false
	case errors.Is(err, errPrecondition):
		return http.StatusPreconditionFailed, false
	case errors.Is(err, errConflict):
		return http.StatusConflict, false
	case errors.Is(err, errNotAllowed):
		return http.StatusMethodNotAllowed, false
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, fs.ErrExist):
		return 0, false
	}
	c, ok := errstatus.Of(err)
	switch {
	case ok && !c.Internal:
		return c.Status, false
	case buckets.ClientGone(ctx, err):
		return http.StatusServiceUnavailable, false // nobody reads it
	case ok:
		return c.Status, true
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
	// The sentinels' text is the reason; the store's would be noise.
	if reason := buckets.StorageReason(err); reason != "" {
		return "Insufficient storage: " + reason
	}
	msg := err.Error()
	return strings.ToUpper(msg[:1]) + msg[1:]
}

func badRequest(format string, args ...any) error {
	return fmt.Errorf("%w: %s", errBadRequest, fmt.Sprintf(format, args...))
}
