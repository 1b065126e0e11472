package gateway

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/gridfsd/gridfsd/buckets"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/mongo"
)

// A body too long for its ?chunkSize needs chunk numbers past int32: the
// client asked for too much, so it is 413 like any other size limit.
func TestClassifyTooManyChunks(t *testing.T) {
	err := fmt.Errorf("upload: %w", buckets.ErrTooManyChunks)
	if status, code := classify(err); status != http.StatusRequestEntityTooLarge || code != "too_large" {
		t.Errorf("classify(%v) = %d %s, want 413 too_large", err, status, code)
	}
}

// A store that refuses a document for what it holds (a type it lacks, a
// field name it cannot store) answered a 500; it is the client's 400,
// without Retry-After, while a dropped connection stays 503.
func TestClassifyRefusedDocument(t *testing.T) {
	for _, err := range []error{
		fmt.Errorf("update: %w", mongo.WriteException{WriteErrors: []mongo.WriteError{{Code: 2, Message: `invalid key: "a.b"`}}}),
		fmt.Errorf("insert: %w", mongo.CommandError{Code: 238, Message: "Decimal128 is not supported"}),
		fmt.Errorf("insert: %w", mongo.WriteException{WriteErrors: []mongo.WriteError{{Code: 52, Message: "$-prefixed"}}}),
	} {
		if status, code := classify(err); status != http.StatusBadRequest || code != "refused_by_store" {
			t.Errorf("classify(%v) = %d %s, want 400 refused_by_store", err, status, code)
		}
	}
	dup := fmt.Errorf("insert: %w", mongo.WriteException{WriteErrors: []mongo.WriteError{{Code: 11000, Message: "duplicate key"}}})
	if status, _ := classify(dup); status == http.StatusBadRequest {
		t.Errorf("a duplicate key is no refused document: %d", status)
	}
}

// An operation the store interrupted because it is stopping is the store
// being unavailable (503 with Retry-After), not the gateway's bug: an
// upload in flight when the embedded store stopped got FerretDB's
// InternalError "context canceled" and was answered 500 (TestStoreOutage
// failed so about once in ten runs under -race); MongoDB says
// InterruptedAtShutdown or ShutdownInProgress.
func TestClassifyStoreInterrupted(t *testing.T) {
	for _, err := range []error{
		fmt.Errorf(`upload "x": insert chunks 0-3: %w`, mongo.CommandError{Code: 1, Name: "InternalError",
			Message: "[msg_insert.go:168 handler.(*Handler).MsgInsert] [db.go:134 fsql.(*DB).InTransaction] context canceled"}),
		fmt.Errorf("find: %w", mongo.CommandError{Code: 11600, Name: "InterruptedAtShutdown", Message: "interrupted at shutdown"}),
		fmt.Errorf("find: %w", mongo.CommandError{Code: 91, Name: "ShutdownInProgress", Message: "The server is in quiesce mode and will shut down"}),
		fmt.Errorf("insert: %w", mongo.WriteException{WriteConcernError: &mongo.WriteConcernError{Code: 189, Message: "primary stepped down"}}),
		fmt.Errorf("insert: %w", mongo.BulkWriteException{WriteConcernError: &mongo.WriteConcernError{Code: 11602, Message: "interrupted due to repl state change"}}),
		fmt.Errorf("insert chunks 0-3: %w", poolCleared{}),
	} {
		if status, code := classify(err); status != http.StatusServiceUnavailable || code != "store_unavailable" {
			t.Errorf("classify(%v) = %d %s, want 503 store_unavailable", err, status, code)
		}
	}
	// The store's other internal errors stay 500: no retry helps a bug.
	other := fmt.Errorf("insert: %w", mongo.CommandError{Code: 1, Name: "InternalError", Message: "unexpected value"})
	if status, code := classify(other); status != http.StatusInternalServerError || code != "internal" {
		t.Errorf("classify(%v) = %d %s, want 500 internal", other, status, code)
	}
}

// poolCleared stands for the driver's unexported error "connection pool
// for ... was cleared because another operation failed with: ... EOF",
// which an insert got as the store stopped (TestStoreOutage, 1 run in 20
// under -race); it carries no network label.
type poolCleared struct{}

func (poolCleared) Error() string {
	return "connection pool for 127.0.0.1:1 was cleared because another operation failed with: EOF"
}
func (poolCleared) Retryable() bool { return true }
