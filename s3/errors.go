package s3

import (
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"net/http"

	"github.com/gridfsd/gridfsd/buckets"
	"github.com/gridfsd/gridfsd/chunker"
)

// Error is an S3 error reply: the HTTP status, S3's code and a message.
type Error struct {
	Status  int
	Code    string
	Message string
}

func (e *Error) Error() string { return e.Code + ": " + e.Message }

// The S3 error codes gridfsd answers with, and their statuses.
var (
	ErrAccessDenied              = &Error{http.StatusForbidden, "AccessDenied", "Access Denied"}
	ErrSignatureMismatch         = &Error{http.StatusForbidden, "SignatureDoesNotMatch", ""}
	ErrInvalidAccessKey          = &Error{http.StatusForbidden, "InvalidAccessKeyId", ""}
	ErrTimeSkewed                = &Error{http.StatusForbidden, "RequestTimeTooSkewed", ""}
	ErrAuthHeader                = &Error{http.StatusBadRequest, "AuthorizationHeaderMalformed", ""}
	ErrAuthQuery                 = &Error{http.StatusBadRequest, "AuthorizationQueryParametersError", ""}
	ErrNoSuchBucket              = &Error{http.StatusNotFound, "NoSuchBucket", "The specified bucket does not exist"}
	ErrNoSuchKey                 = &Error{http.StatusNotFound, "NoSuchKey", "The specified key does not exist."}
	ErrNoSuchVersion             = &Error{http.StatusNotFound, "NoSuchVersion", "The specified version does not exist."}
	ErrNoSuchUpload              = &Error{http.StatusNotFound, "NoSuchUpload", "The specified multipart upload does not exist."}
	ErrBucketNotEmpty            = &Error{http.StatusConflict, "BucketNotEmpty", "The bucket you tried to delete is not empty"}
	ErrBucketExists              = &Error{http.StatusConflict, "BucketAlreadyOwnedByYou", "Your previous request to create the named bucket succeeded and you already own it."}
	ErrBucketAlreadyExists       = &Error{http.StatusConflict, "BucketAlreadyExists", "The requested bucket name is not available. The bucket namespace is shared by all users of the system. Please select a different name and try again."}
	ErrInvalidLocationConstraint = &Error{http.StatusBadRequest, "InvalidLocationConstraint", "The specified location-constraint is not valid."}
	ErrInvalidBucketName         = &Error{http.StatusBadRequest, "InvalidBucketName", ""}
	ErrInvalidArgument           = &Error{http.StatusBadRequest, "InvalidArgument", ""}
	ErrInvalidRequest            = &Error{http.StatusBadRequest, "InvalidRequest", ""}
	ErrKeyTooLong                = &Error{http.StatusBadRequest, "KeyTooLongError", "Your key is too long"}
	ErrInvalidRange              = &Error{http.StatusRequestedRangeNotSatisfiable, "InvalidRange", "The requested range is not satisfiable"}
	ErrPreconditionFailed        = &Error{http.StatusPreconditionFailed, "PreconditionFailed", "At least one of the pre-conditions you specified did not hold"}
	ErrBadDigest                 = &Error{http.StatusBadRequest, "BadDigest", "The Content-MD5 you specified did not match what we received."}
	ErrInvalidDigest             = &Error{http.StatusBadRequest, "InvalidDigest", "The Content-MD5 you specified is not valid."}
	ErrSHA256Mismatch            = &Error{http.StatusBadRequest, "XAmzContentSHA256Mismatch", "The provided 'x-amz-content-sha256' header does not match what was computed."}
	ErrEntityTooSmall            = &Error{http.StatusBadRequest, "EntityTooSmall", "Your proposed upload is smaller than the minimum allowed object size."}
	ErrEntityTooLarge            = &Error{http.StatusBadRequest, "EntityTooLarge", "Your proposed upload exceeds the maximum allowed object size."}
	ErrInvalidPart               = &Error{http.StatusBadRequest, "InvalidPart", "One or more of the specified parts could not be found."}
	ErrInvalidPartOrder          = &Error{http.StatusBadRequest, "InvalidPartOrder", "The list of parts was not in ascending order."}
	ErrMalformedXML              = &Error{http.StatusBadRequest, "MalformedXML", "The XML you provided was not well-formed or did not validate against our published schema."}
	ErrIncompleteBody            = &Error{http.StatusBadRequest, "IncompleteBody", "You did not provide the number of bytes specified by the Content-Length HTTP header."}
	ErrMissingLength             = &Error{http.StatusLengthRequired, "MissingContentLength", "You must provide the Content-Length HTTP header."}
	ErrNotImplemented            = &Error{http.StatusNotImplemented, "NotImplemented", "A header or query you provided implies functionality that is not implemented."}
	ErrMethodNotAllowed          = &Error{http.StatusMethodNotAllowed, "MethodNotAllowed", "The specified method is not allowed against this resource."}
	ErrInternal                  = &Error{http.StatusInternalServerError, "InternalError", "We encountered an internal error. Please try again."}
	ErrServiceUnavailable        = &Error{http.StatusServiceUnavailable, "ServiceUnavailable", "Please reduce your request rate."}
	ErrSlowDown                  = &Error{http.StatusServiceUnavailable, "SlowDown", "Please reduce your request rate."}
	ErrOperationAborted          = &Error{http.StatusConflict, "OperationAborted", "A conflicting conditional operation is currently in progress against this resource. Try again."}
	ErrNotModified               = &Error{http.StatusNotModified, "NotModified", ""}
	ErrInvalidStorageClass       = &Error{http.StatusBadRequest, "InvalidStorageClass", "The storage class you specified is not valid"}
	// ErrStorageFull has no AWS counterpart (AWS never fills up); MinIO
	// answers its full drives the same way, with a 507.
	ErrStorageFull = &Error{http.StatusInsufficientStorage, "InsufficientStorage", "The store is short of space."}
)

// errorf returns a copy of base with a message of its own.
func errorf(base *Error, format string, args ...any) *Error {
	return &Error{Status: base.Status, Code: base.Code, Message: fmt.Sprintf(format, args...)}
}

// toError turns an error from buckets (or from decoding a request) into the
// S3 error clients expect; internal reports whether it is the gateway's or
// the store's failure rather than the client's.
func toError(err error) (e *Error, internal bool) {
	if errors.As(err, &e) {
		// NotImplemented is an answer, not the gateway's failure.
		return e, e.Status >= 500 && e.Status != http.StatusNotImplemented
	}
	if be := (*bodyError)(nil); errors.As(err, &be) {
		return ErrIncompleteBody, false
	}
	is := func(target error) bool { return errors.Is(err, target) }
	switch {
	case is(buckets.ErrNoCurrentFile):
		// If-Match of a key that does not exist: S3 says NoSuchKey.
		return ErrNoSuchKey, false
	case is(buckets.ErrPreconditionFailed):
		return ErrPreconditionFailed, false
	case is(buckets.ErrFileNotFound):
		return ErrNoSuchKey, false
	case is(buckets.ErrRevisionNotFound), is(buckets.ErrInvalidID):
		return ErrNoSuchVersion, false
	case is(buckets.ErrBucketNotFound):
		return ErrNoSuchBucket, false
	case is(buckets.ErrBucketNotEmpty):
		return ErrBucketNotEmpty, false
	case is(buckets.ErrInvalidACL):
		return errorf(ErrInvalidArgument, "%v", err), false
	case is(buckets.ErrPublicACLRefused):
		return errorf(ErrAccessDenied, "Access Denied: %v", err), false
	case is(buckets.ErrACLsDisabled):
		return &Error{http.StatusBadRequest, "AccessControlListNotSupported", "The bucket does not allow ACLs"}, false
	case is(buckets.ErrACLBlocksOwnership):
		return &Error{http.StatusBadRequest, "InvalidBucketAclWithObjectOwnership", "Bucket cannot have ACLs set with ObjectOwnership's BucketOwnerEnforced setting"}, false
	case is(buckets.ErrInvalidBucketName):
		return errorf(ErrInvalidBucketName, "%v", err), false
	case is(buckets.ErrInvalidFilename):
		return errorf(ErrInvalidArgument, "%v", err), false
	case is(buckets.ErrInvalidMetadata), is(buckets.ErrInvalidQuery), is(buckets.ErrInvalidChunkSize):
		return errorf(ErrInvalidArgument, "%v", err), false
	case is(buckets.ErrTooLarge), is(buckets.ErrTooManyChunks):
		return errorf(ErrEntityTooLarge, "%v", err), false
	case is(buckets.ErrBusy):
		// max-concurrent-uploads: SDKs back off and retry a SlowDown.
		return errorf(ErrSlowDown, "%v", err), false
	case is(buckets.ErrUploadNotFound):
		return ErrNoSuchUpload, false
	case is(buckets.ErrUploadCompleting):
		// A Complete holds the upload: its parts are fixed.
		return errorf(ErrOperationAborted, "%v", err), false
	case is(buckets.ErrBucketDropping):
		return errorf(ErrOperationAborted, "%v", err), false
	case is(buckets.ErrInvalidPart):
		return errorf(ErrInvalidPart, "%v", err), false
	case is(buckets.ErrPartOrder):
		return ErrInvalidPartOrder, false
	case is(buckets.ErrPartTooSmall):
		return errorf(ErrEntityTooSmall, "%v", err), false
	case is(buckets.ErrFileExists):
		return ErrPreconditionFailed, false
	case is(buckets.ErrInsufficientStorage):
		// The reason only: the refused request may be a delete (the
		// store's disk full to its last byte, no reserve set).
		return errorf(ErrStorageFull, "Insufficient storage: %s.", buckets.StorageReason(err)), false
	case is(buckets.ErrChunksLost):
		// Clients retry a 503; nothing was stored.
		return errorf(ErrServiceUnavailable, "%v", err), false
	case is(chunker.ErrChunkMissing), is(chunker.ErrChunkSize):
		return ErrInternal, true
	case is(context.Canceled):
		return errorf(ErrIncompleteBody, "the request was cancelled"), false
	}
	if reason, ok := buckets.RefusedDocument(err); ok {
		return errorf(ErrInvalidArgument, "the store cannot hold this document: %s", reason), false
	}
	if buckets.StoreUnavailable(err) {
		// The store's failure, logged; clients retry a 503.
		return ErrServiceUnavailable, true
	}
	return ErrInternal, true
}

type errorDoc struct {
	XMLName   xml.Name `xml:"Error"`
	Code      string   `xml:"Code"`
	Message   string   `xml:"Message"`
	Resource  string   `xml:"Resource,omitempty"`
	RequestID string   `xml:"RequestId"`
}
