// Package chunker reads and writes the GridFS chunk format: the documents
// {_id, files_id, n, data} of one chunks collection. It streams in both
// directions with bounded memory and knows nothing of files documents,
// buckets or HTTP.
package chunker

import (
	"errors"
	"fmt"
	"sync"
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

// pools hands out byte slices by capacity so that concurrent uploads and
// downloads reuse chunk buffers instead of allocating megabytes each. Like the
// standard library's bufio pools, it is shared by the whole process.
var pools sync.Map // capacity -> *sync.Pool

func getBuffer(size int) []byte {
	p, _ := pools.LoadOrStore(size, &sync.Pool{})
	if b, ok := p.(*sync.Pool).Get().(*[]byte); ok {
		return (*b)[:size]
	}
	return make([]byte, size)
}

func putBuffer(b []byte) {
	if b == nil {
		return
	}
	b = b[:cap(b)]
	if p, ok := pools.Load(cap(b)); ok {
		p.(*sync.Pool).Put(&b)
	}
}
