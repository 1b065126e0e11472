package buckets

import (
	"errors"

	"github.com/gridfsd/gridfsd/chunker"
)

// Sentinel errors; every error a Bucket or DB returns for these conditions
// wraps one of them, so callers test with errors.Is.
var (
	ErrFileNotFound      = errors.New("file not found")
	ErrRevisionNotFound  = errors.New("revision not found")
	ErrFileExists        = errors.New("file already exists")
	ErrBucketNotFound    = errors.New("bucket not found")
	ErrBucketNotEmpty    = errors.New("bucket is not empty")
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
