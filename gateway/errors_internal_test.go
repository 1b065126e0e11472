package gateway

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/gridfsd/gridfsd/buckets"
)

// A body too long for its ?chunkSize needs chunk numbers past int32: the
// client asked for too much, so it is 413 like any other size limit.
func TestClassifyTooManyChunks(t *testing.T) {
	err := fmt.Errorf("upload: %w", buckets.ErrTooManyChunks)
	if status, code := classify(err); status != http.StatusRequestEntityTooLarge || code != "too_large" {
		t.Errorf("classify(%v) = %d %s, want 413 too_large", err, status, code)
	}
}
