package errstatus_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/gridfsd/gridfsd/auth"
	"github.com/gridfsd/gridfsd/buckets"
	"github.com/gridfsd/gridfsd/internal/errstatus"
)

// Every sentinel of buckets and auth a request can meet has a status, also
// wrapped; what the store refused is the client's (400), the store out of
// reach the gateway's (503, internal); anything else is the door's.
func TestOf(t *testing.T) {
	for _, c := range []struct {
		err      error
		status   int
		internal bool
	}{
		{auth.ErrUnauthenticated, 401, false},
		{auth.ErrForbidden, 403, false},
		{buckets.ErrFileNotFound, 404, false},
		{buckets.ErrRevisionNotFound, 404, false},
		{buckets.ErrBucketNotFound, 404, false},
		{buckets.ErrInvalidFilename, 400, false},
		{buckets.ErrInvalidID, 400, false},
		{buckets.ErrPreconditionFailed, 412, false},
		{buckets.ErrFileExists, 409, false},
		{buckets.ErrTooLarge, 413, false},
		{buckets.ErrInsufficientStorage, 507, false},
		{buckets.ErrBusy, 503, false},
		{buckets.ErrChunksLost, 503, true},
		{buckets.ErrTooManyFiles, 403, false},
		{context.DeadlineExceeded, 503, true},
		// A conditional write that lost a race to a delete is 412, not 404.
		{fmt.Errorf("%w: %w", buckets.ErrPreconditionFailed, buckets.ErrFileNotFound), 412, false},
	} {
		got, ok := errstatus.Of(fmt.Errorf("context: %w", c.err))
		if !ok || got.Status != c.status || got.Internal != c.internal || got.Code == "" {
			t.Errorf("Of(%v) = %+v, %v; want %d, internal %v", c.err, got, ok, c.status, c.internal)
		}
	}
	if got, ok := errstatus.Of(errors.New("something else")); ok {
		t.Errorf("Of(an unknown error) = %+v, want none", got)
	}
}
