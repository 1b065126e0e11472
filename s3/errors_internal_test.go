package s3

import (
	"fmt"
	"testing"

	"github.com/gridfsd/gridfsd/buckets"
	"go.mongodb.org/mongo-driver/v2/mongo"
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

// A store that cannot serve for now (down, or interrupting the operation
// as it stops) is ServiceUnavailable, which clients retry, not
// InternalError.
func TestStoreUnavailableIsServiceUnavailable(t *testing.T) {
	for _, err := range []error{
		fmt.Errorf("insert chunks: %w", mongo.CommandError{Code: 1, Name: "InternalError", Message: "[msg_insert.go:168] context canceled"}),
		fmt.Errorf("find: %w", mongo.CommandError{Code: 11600, Name: "InterruptedAtShutdown"}),
		fmt.Errorf("find: %w", mongo.ErrClientDisconnected),
	} {
		if e, internal := toError(err); e.Code != ErrServiceUnavailable.Code || !internal {
			t.Errorf("toError(%v) = %s (internal %v), want ServiceUnavailable", err, e.Code, internal)
		}
	}
}
