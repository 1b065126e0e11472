package s3

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gridfsd/gridfsd/buckets"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/mongo"
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

// TestClientGoneIsNotTheStoresFailure: the store reports a request whose
// client went away as cancelled ("context canceled"), which alone reads as
// the store being unavailable; with the request's context cancelled it is
// not logged as a failure. With the client still there it is.
func TestClientGoneIsNotTheStoresFailure(t *testing.T) {
	storeErr := fmt.Errorf("find file: %w", mongo.CommandError{Code: 1, Message: "context canceled"})
	for _, gone := range []bool{true, false} {
		var logs bytes.Buffer
		s := &Server{log: slog.New(slog.NewTextHandler(&logs, nil))}
		ctx, cancel := context.WithCancel(context.Background())
		if gone {
			cancel()
		}
		req := &request{w: &responseWriter{ResponseWriter: httptest.NewRecorder()}, r: httptest.NewRequestWithContext(ctx, http.MethodGet, "/b/k", nil)}
		s.writeError(req, storeErr)
		cancel()
		if logged := strings.Contains(logs.String(), "level=ERROR"); logged == gone {
			t.Errorf("client gone %v: logged as a failure %v:\n%s", gone, logged, logs.String())
		}
	}
}

// TestStorageFullSaysWhy: a 507 gives the store's reason, and no advice
// that a refused delete would contradict ("delete objects to proceed").
func TestStorageFullSaysWhy(t *testing.T) {
	e, internal := toError(fmt.Errorf("remove chunks: %w", buckets.DiskFull(mongo.CommandError{Code: 14031, Message: "database or disk is full"})))
	if e.Code != "InsufficientStorage" || e.Status != http.StatusInsufficientStorage || internal {
		t.Fatalf("%s %d (internal %v), want InsufficientStorage 507", e.Code, e.Status, internal)
	}
	if !strings.Contains(e.Message, "the store's disk is full") || strings.Contains(e.Message, "delete") {
		t.Errorf("message %q", e.Message)
	}
}
