// Package errstatus turns the errors of packages buckets and auth into HTTP
// statuses, once for every front door that speaks HTTP statuses (the HTTP
// API and WebDAV): a new sentinel in buckets gets its status here, not in
// each door. A door handles its own errors first and the store's outages
// and the client's failures as its protocol needs; S3 maps to its own
// error codes.
package errstatus

import (
	"context"
	"errors"
	"net/http"

	"github.com/gridfsd/gridfsd/auth"
	"github.com/gridfsd/gridfsd/buckets"
)

// Class is what a door answers for an error.
type Class struct {
	Status int
	// Code is a stable, lower-case name of the failure (the HTTP API's
	// error.code).
	Code string
	// Internal is the gateway's or the store's failure, not the client's:
	// the door logs it and tells the client no more than the status.
	Internal bool
}

// sentinels maps the errors of buckets and auth, most specific first: a
// conditional write that lost a race is 412 before not-found, a full disk
// 507 before the store's other failures.
var sentinels = []struct {
	err   error
	class Class
}{
	{auth.ErrUnauthenticated, Class{http.StatusUnauthorized, "unauthenticated", false}},
	{auth.ErrForbidden, Class{http.StatusForbidden, "forbidden", false}},
	{buckets.ErrBusy, Class{http.StatusServiceUnavailable, "too_many_uploads", false}},
	{buckets.ErrInsufficientStorage, Class{http.StatusInsufficientStorage, "insufficient_storage", false}},
	{buckets.ErrInvalidBucketName, Class{http.StatusBadRequest, "invalid_bucket_name", false}},
	{buckets.ErrInvalidFilename, Class{http.StatusBadRequest, "invalid_filename", false}},
	{buckets.ErrInvalidID, Class{http.StatusBadRequest, "invalid_id", false}},
	{buckets.ErrInvalidMetadata, Class{http.StatusBadRequest, "invalid_metadata", false}},
	{buckets.ErrInvalidChunkSize, Class{http.StatusBadRequest, "invalid_chunk_size", false}},
	{buckets.ErrInvalidQuery, Class{http.StatusBadRequest, "invalid_query", false}},
	{buckets.ErrInvalidExpiry, Class{http.StatusBadRequest, "invalid_expiry", false}},
	{buckets.ErrInvalidLifecycle, Class{http.StatusBadRequest, "invalid_lifecycle", false}},
	{buckets.ErrInvalidACL, Class{http.StatusBadRequest, "invalid_acl", false}},
	{buckets.ErrPublicACLRefused, Class{http.StatusForbidden, "public_acl_refused", false}},
	{buckets.ErrACLsDisabled, Class{http.StatusBadRequest, "acls_disabled", false}},
	{buckets.ErrACLBlocksOwnership, Class{http.StatusBadRequest, "acl_blocks_ownership", false}},
	{buckets.ErrPreconditionFailed, Class{http.StatusPreconditionFailed, "precondition_failed", false}},
	{buckets.ErrChunksLost, Class{http.StatusServiceUnavailable, "upload_interrupted", true}},
	{buckets.ErrFileNotFound, Class{http.StatusNotFound, "file_not_found", false}},
	{buckets.ErrRevisionNotFound, Class{http.StatusNotFound, "revision_not_found", false}},
	{buckets.ErrBucketNotFound, Class{http.StatusNotFound, "bucket_not_found", false}},
	{buckets.ErrFileExists, Class{http.StatusConflict, "file_exists", false}},
	{buckets.ErrBucketNotEmpty, Class{http.StatusConflict, "bucket_not_empty", false}},
	{buckets.ErrBucketDropping, Class{http.StatusConflict, "bucket_dropping", false}},
	{buckets.ErrTooManyFiles, Class{http.StatusForbidden, "too_many_files", false}},
	{buckets.ErrTooLarge, Class{http.StatusRequestEntityTooLarge, "too_large", false}},
	{buckets.ErrTooManyChunks, Class{http.StatusRequestEntityTooLarge, "too_large", false}},
}

// Of returns the class of err when it is one of buckets' or auth's
// sentinels, a document the store refused for what it holds (400), or
// the store out of reach (503, internal); ok is false for anything else,
// which the door classifies (500 if it knows nothing better).
func Of(err error) (c Class, ok bool) {
	for _, s := range sentinels {
		if errors.Is(err, s.err) {
			return s.class, true
		}
	}
	if _, refused := buckets.RefusedDocument(err); refused {
		return Class{http.StatusBadRequest, "refused_by_store", false}, true
	}
	if buckets.StoreUnavailable(err) || errors.Is(err, context.DeadlineExceeded) {
		return Class{http.StatusServiceUnavailable, "store_unavailable", true}, true
	}
	return Class{}, false
}
