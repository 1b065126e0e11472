package s3

import (
	"fmt"
	"testing"

	"github.com/gridfsd/gridfsd/buckets"
)

// TestTooLargeIsEntityTooLarge: a file past the bucket's limit or past
// GridFS's int32 chunk numbers is the client's EntityTooLarge, not a 500.
func TestTooLargeIsEntityTooLarge(t *testing.T) {
	for _, err := range []error{buckets.ErrTooLarge, buckets.ErrTooManyChunks} {
		e, internal := toError(fmt.Errorf("upload: %w", err))
		if e.Code != "EntityTooLarge" || internal {
			t.Errorf("%v: %s (internal %v), want EntityTooLarge", err, e.Code, internal)
		}
	}
}
