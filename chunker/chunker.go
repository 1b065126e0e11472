// Package chunker reads and writes the GridFS chunk format: the documents
// {_id, files_id, n, data} of one chunks collection. It streams in both
// directions with bounded memory and knows nothing of files documents,
// buckets or HTTP.
package chunker

import (
	"errors"
	"fmt"
)

// DefaultChunkSize is the GridFS default, 255 KiB.
const DefaultChunkSize = 261120

// MaxChunkSize is the largest chunk size whose chunk document still fits in
// MongoDB's 16 MiB document limit, leaving room for _id, files_id (which may
// be any BSON value) and n.
const MaxChunkSize = 16*1024*1024 - 64*1024

var (
	// ErrInvalidChunkSize is returned for a chunk size <= 0 or > MaxChunkSize.
	ErrInvalidChunkSize = errors.New("invalid chunk size")
	// ErrChunkMissing means a chunk the file's length requires is absent
	// (or out of sequence).
	ErrChunkMissing = errors.New("chunk is missing")
	// ErrChunkSize means a chunk's data is not the size the file's length
	// and chunk size require.
	ErrChunkSize = errors.New("chunk has the wrong size")
	// ErrTooManyChunks means a file would need a chunk number past the
	// int32 that GridFS stores n in: too long a file for its chunk size.
	ErrTooManyChunks = errors.New("too many chunks for the chunk size")
	// ErrClosed is returned by a Writer or Reader used after Close or Abort.
	ErrClosed = errors.New("chunker: closed")
)

// CheckChunkSize reports whether n is a usable chunk size.
func CheckChunkSize(n int64) error {
	if n <= 0 || n > MaxChunkSize {
		return fmt.Errorf("%w: %d (must be 1 to %d bytes)", ErrInvalidChunkSize, n, MaxChunkSize)
	}
	return nil
}

// chunkCount is the number of chunks a file of length bytes has.
func chunkCount(length int64, chunkSize int) int64 {
	return (length + int64(chunkSize) - 1) / int64(chunkSize)
}

// MaxChunks is the most chunks a file can have: n is an int32 from 0.
const MaxChunks = 1 << 31

// MaxLength is the longest file that chunkSize allows, MaxChunks chunks.
func MaxLength(chunkSize int) int64 { return MaxChunks * int64(chunkSize) }
