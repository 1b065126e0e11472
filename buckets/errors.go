package buckets

import (
	"context"
	"errors"

	"github.com/gridfsd/gridfsd/chunker"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/mongo"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/x/mongo/driver"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/x/mongo/driver/topology"
)

// Sentinel errors; every error a Bucket or DB returns for these conditions
// wraps one of them, so callers test with errors.Is.
var (
	ErrFileNotFound     = errors.New("file not found")
	ErrRevisionNotFound = errors.New("revision not found")
	ErrFileExists       = errors.New("file already exists")
	ErrBucketNotFound   = errors.New("bucket not found")
	ErrBucketNotEmpty   = errors.New("bucket is not empty")
	// ErrBucketDropping: a write of a name came while its bucket was being
	// dropped (see DB.Drop); it wrote nothing.
	ErrBucketDropping    = errors.New("the bucket is being dropped")
	ErrInvalidBucketName = errors.New("invalid bucket name")
	ErrInvalidFilename   = errors.New("invalid filename")
	ErrInvalidQuery      = errors.New("invalid query")
	ErrInvalidMetadata   = errors.New("invalid metadata")
	ErrTooLarge          = errors.New("file is larger than the bucket allows")

	// Re-exported from chunker so that callers of buckets need not import it.
	ErrInvalidChunkSize = chunker.ErrInvalidChunkSize
	ErrChunkMissing     = chunker.ErrChunkMissing
	ErrChunkSize        = chunker.ErrChunkSize
	ErrTooManyChunks    = chunker.ErrTooManyChunks
)

// storeGoneCodes are the server error codes of an operation the store
// interrupted, or could not run, because it is shutting down, stepping
// down or cannot reach a member: HostUnreachable, HostNotFound,
// NetworkTimeout, ShutdownInProgress, PrimarySteppedDown, SocketException,
// NotWritablePrimary, InterruptedAtShutdown, Interrupted,
// InterruptedDueToReplStateChange, NotPrimaryNoSecondaryOk,
// NotPrimaryOrSecondary, and LockTimeout (a lock not had in time). A later
// retry can succeed.
var storeGoneCodes = []int{6, 7, 24, 89, 91, 189, 9001, 10107, 11600, 11601, 11602, 13435, 13436}

// ClientGone reports whether err only reflects that ctx, the request's
// context, was cancelled: the client went away, and the driver (the
// cancellation itself) or the store (StoreUnavailable: the embedded store
// answers "context canceled") reported it. Nobody is there to answer, and
// it is not an outage.
func ClientGone(ctx context.Context, err error) bool {
	return errors.Is(ctx.Err(), context.Canceled) && (errors.Is(err, context.Canceled) || StoreUnavailable(err))
}

// StoreUnavailable reports whether err means the store could not serve the
// operation for now, as opposed to refusing it: no server could be
// selected, the connection failed or timed out, the client was
// disconnected, the connection pool was cleared after another operation's
// failure, or the store answered that it interrupted the operation
// (storeGoneCodes). The embedded store (FerretDB) answers an operation that
// its own shutdown cancelled with InternalError "context canceled", which
// counts too: before, an upload in flight when the store stopped was
// answered 500 instead of 503.
func StoreUnavailable(err error) bool {
	var sse topology.ServerSelectionError
	if errors.As(err, &sse) || mongo.IsNetworkError(err) || mongo.IsTimeout(err) || errors.Is(err, mongo.ErrClientDisconnected) {
		return true
	}
	// The driver's "connection pool was cleared because another operation
	// failed" carries no network label, only this interface.
	var pool driver.RetryablePoolError
	if errors.As(err, &pool) && pool.Retryable() {
		return true
	}
	var se mongo.ServerError
	if !errors.As(err, &se) {
		return false
	}
	for _, code := range storeGoneCodes {
		if se.HasErrorCode(code) {
			return true
		}
	}
	// The embedded store's SQLite answers "database is locked (5)
	// (SQLITE_BUSY)" when another process kept its write lock past the busy
	// timeout, as MongoDB answers LockTimeout (storeGoneCodes): nothing was
	// written.
	return se.HasErrorCodeWithMessage(1, "context canceled") || se.HasErrorCodeWithMessage(1, "SQLITE_BUSY")
}
