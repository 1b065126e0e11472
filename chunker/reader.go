package chunker

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync/atomic"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// maxReadaheadBytes caps how far a sequential reader fetches ahead of the
// client. The read-ahead starts at nothing after a seek and grows with what
// the client has read through the same cursor (see Read).
const maxReadaheadBytes = 4 << 20

// maxQueuedChunks bounds the queue of a stream in chunks, for files of tiny
// chunks; the read-ahead is then smaller than maxReadaheadBytes.
const maxQueuedChunks = 1024

// File is what a Reader needs to know of a files document.
type File struct {
	ID        any
	Length    int64
	ChunkSize int
}

// Reader reads the chunks of one file. It is an io.ReadSeeker whose Seek is
// O(1) and never reads the chunks it skips, and an io.ReaderAt safe for
// concurrent use. Sequential reads share one cursor that prefetches the next
// batch while the current one is served.
type Reader struct {
	ctx    context.Context
	chunks *mongo.Collection
	file   File
	chunkN int64 // number of chunks

	pos    int64
	cur    []byte // data of chunk curN
	curN   int64
	stream *stream
	closed bool
	budget *ReadBudget // shared with other Readers, or nil

	// expectFrom and expectEnd are the bytes a client said it will read
	// (see Expect).
	expectFrom, expectEnd int64

	// fetched counts the chunk bytes received from the store, by Read's
	// read-ahead and by ReadAt, for metrics and tests of the read path's
	// cost. Atomic: the read-ahead goroutine and ReadAt calls add to it.
	fetched atomic.Int64
}

var (
	_ io.ReadSeekCloser = (*Reader)(nil)
	_ io.ReaderAt       = (*Reader)(nil)
)

// NewReader returns a Reader of file's chunks in chunks.
func NewReader(ctx context.Context, chunks *mongo.Collection, file File) (*Reader, error) {
	if file.Length < 0 {
		return nil, fmt.Errorf("file %v: negative length %d", file.ID, file.Length)
	}
	if file.Length > 0 {
		if err := CheckChunkSize(int64(file.ChunkSize)); err != nil {
			return nil, fmt.Errorf("file %v: %w", file.ID, err)
		}
	}
	r := &Reader{ctx: ctx, chunks: chunks, file: file, curN: -1}
	if file.Length > 0 {
		r.chunkN = chunkCount(file.Length, file.ChunkSize)
	}
	return r, nil
}

// Size is the file's length.
func (r *Reader) Size() int64 { return r.file.Length }

// Fetched is the number of chunk bytes this reader has received from the
// store so far, read-ahead and ReadAt included.
func (r *Reader) Fetched() int64 { return r.fetched.Load() }

// Read reads from the current offset. It returns an error wrapping
// ErrChunkMissing or ErrChunkSize when the stored chunks do not match the
// file's length.
func (r *Reader) Read(p []byte) (int, error) {
	if r.closed {
		return 0, ErrClosed
	}
	if r.pos >= r.file.Length {
		return 0, io.EOF
	}
	// The stream may fetch the chunks this Read needs and, when the Read
	// continues the stream's, as many more as the client has already read
	// through it: nothing after a seek, then a window that grows while the
	// client keeps reading, the way the kernel's readahead does. So a short
	// range costs only its own chunks.
	cs := int64(r.file.ChunkSize)
	limit := (min(r.pos+int64(len(p)), r.file.Length) - 1) / cs
	switch s, k := r.stream, r.pos/cs; {
	case r.pos >= r.expectFrom && r.pos < r.expectEnd:
		// The client said where it stops: through there at once, and
		// nothing past it.
		limit = max(limit, min((min(r.expectEnd, r.file.Length)-1)/cs, k+r.maxAhead()-1))
	case s != nil && (s.next == k || r.curN == k):
		limit = min(limit+min(s.next-s.first, r.maxAhead()), r.chunkN-1)
	}
	n := 0
	for n < len(p) && r.pos < r.file.Length {
		k := r.pos / cs
		if k != r.curN {
			if err := r.load(k, limit); err != nil {
				return n, err
			}
		}
		off := r.pos - k*cs
		c := copy(p[n:], r.cur[off:])
		n += c
		r.pos += int64(c)
	}
	return n, nil
}

// load makes chunk k current, from the open stream when it is positioned
// there, else from a new stream starting at k. The stream may fetch up to
// chunk limit.
func (r *Reader) load(k, limit int64) error {
	if r.stream == nil || r.stream.next != k {
		r.stopStream()
		r.stream = r.openStream(k, limit)
	}
	r.stream.allow(limit)
	c, err := r.stream.take()
	if err != nil {
		r.stopStream()
		return err
	}
	putBuffer(r.cur)
	r.cur, r.curN = c, k
	return nil
}

// Expect tells r that its client will read the bytes from off to end
// (exclusive), as an HTTP range with both ends says: a Read in them fetches
// through end in one batch, within the read-ahead, instead of only the
// chunks its buffer covers, so a range over two chunks costs one query, not
// a query and a getMore. Reads elsewhere are unaffected.
func (r *Reader) Expect(off, end int64) {
	r.expectFrom, r.expectEnd = off, end
}

// Seek sets the offset for the next Read. Seeking past the end is allowed;
// Read then returns io.EOF.
func (r *Reader) Seek(offset int64, whence int) (int64, error) {
	if r.closed {
		return 0, ErrClosed
	}
	switch whence {
	case io.SeekStart:
	case io.SeekCurrent:
		offset += r.pos
	case io.SeekEnd:
		offset += r.file.Length
	default:
		return 0, errors.New("chunker: invalid whence")
	}
	if offset < 0 {
		return 0, errors.New("chunker: negative position")
	}
	r.pos = offset
	return offset, nil
}

// ReadAt reads len(p) bytes at off with one query for exactly the chunks that
// hold them. It does not move the offset of Read and may run concurrently
// with other ReadAt calls.
func (r *Reader) ReadAt(p []byte, off int64) (int, error) {
	if r.closed {
		return 0, ErrClosed
	}
	if off < 0 {
		return 0, errors.New("chunker: negative offset")
	}
	if off >= r.file.Length {
		return 0, io.EOF
	}
	end := min(off+int64(len(p)), r.file.Length)
	cs := int64(r.file.ChunkSize)
	first, last := off/cs, (end-1)/cs
	cur, err := r.find(r.ctx, first, last, int32(last-first+1))
	if err != nil {
		return 0, err
	}
	defer closeCursor(r.ctx, cur)
	n := 0
	for k := first; k <= last; k++ {
		data, err := r.next(r.ctx, cur, k)
		if err != nil {
			return n, err
		}
		r.fetched.Add(int64(len(data)))
		lo := max(off-k*cs, 0)
		hi := min(end-k*cs, int64(len(data)))
		n += copy(p[n:], data[lo:hi])
		putBuffer(data)
	}
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// Close releases the cursor and buffers.
func (r *Reader) Close() error {
	if r.closed {
		return nil
	}
	r.closed = true
	if r.budget != nil {
		r.budget.active.Add(-1)
	}
	r.stopStream()
	putBuffer(r.cur)
	r.cur, r.curN = nil, -1
	return nil
}

func (r *Reader) stopStream() {
	if r.stream != nil {
		r.stream.stop()
		r.stream = nil
	}
}

// find opens a cursor over chunks first..last, sorted by n, through the
// unique {files_id, n} index.
func (r *Reader) find(ctx context.Context, first, last int64, batch int32) (*mongo.Cursor, error) {
	done, err := r.budget.query(ctx)
	if err != nil {
		return nil, err
	}
	defer done()
	filter := bson.D{
		{Key: "files_id", Value: r.file.ID},
		{Key: "n", Value: bson.D{{Key: "$gte", Value: first}, {Key: "$lte", Value: last}}},
	}
	opts := options.Find().
		SetSort(bson.D{{Key: "n", Value: 1}}).
		SetProjection(bson.D{{Key: "_id", Value: 0}, {Key: "n", Value: 1}, {Key: "data", Value: 1}}).
		SetBatchSize(batch)
	cur, err := r.chunks.Find(ctx, filter, opts)
	if err != nil {
		return nil, fmt.Errorf("find chunks of %v from %d: %w", r.file.ID, first, err)
	}
	return cur, nil
}

// next reads chunk k from cur and checks its number and size. The returned
// slice is a pooled copy owned by the caller.
func (r *Reader) next(ctx context.Context, cur *mongo.Cursor, k int64) ([]byte, error) {
	if cur.RemainingBatchLength() == 0 {
		// this Next sends a getMore
		done, err := r.budget.query(ctx)
		if err != nil {
			return nil, err
		}
		defer done()
	}
	if !cur.Next(ctx) {
		if err := cur.Err(); err != nil {
			return nil, fmt.Errorf("read chunk %d of %v: %w", k, r.file.ID, err)
		}
		return nil, fmt.Errorf("file %v: chunk %d: %w", r.file.ID, k, ErrChunkMissing)
	}
	n, ok := cur.Current.Lookup("n").AsInt64OK()
	if !ok || n != k {
		return nil, fmt.Errorf("file %v: chunk %d (found n=%v): %w", r.file.ID, k, cur.Current.Lookup("n"), ErrChunkMissing)
	}
	_, data, ok := cur.Current.Lookup("data").BinaryOK()
	want := int64(r.file.ChunkSize)
	if k == r.chunkN-1 {
		want = r.file.Length - k*int64(r.file.ChunkSize)
	}
	if !ok || int64(len(data)) != want {
		return nil, fmt.Errorf("file %v: chunk %d has %d bytes, want %d: %w", r.file.ID, k, len(data), want, ErrChunkSize)
	}
	c := getBuffer(len(data))
	copy(c, data)
	return c, nil
}

// maxAhead is the largest read-ahead in chunks.
func (r *Reader) maxAhead() int64 {
	return int64(max(r.budget.share()/r.file.ChunkSize, 1))
}

// stream delivers chunks next, next+1, ... of a file from one cursor, read
// ahead by a goroutine so that the store's latency overlaps the client's.
type stream struct {
	ctx    context.Context
	first  int64 // the chunk the stream started at
	next   int64 // the chunk take returns next
	chunks chan streamed
	cancel context.CancelFunc
	done   chan struct{}
	// limit is the last chunk the goroutine may fetch; the reader raises
	// it (allow) before it waits for a chunk, and raised wakes the
	// goroutine waiting for it.
	limit  atomic.Int64
	raised chan struct{}
}

// allow lets the goroutine fetch up to chunk last.
func (s *stream) allow(last int64) {
	if last <= s.limit.Load() {
		return
	}
	s.limit.Store(last) // only the reader raises it
	s.wake()
}

// wait blocks the goroutine until it may fetch chunk k and it is time to:
// when the reader allows a batch of want chunks from k (last, the file's
// last chunk, ends a shorter one), or when the reader has taken every chunk
// sent, so that it waits for chunk k. Without the first condition the
// goroutine would refill the queue a chunk at a time, one getMore each.
func (s *stream) wait(k, want, last int64) bool {
	for {
		if l := s.limit.Load(); l >= min(k+want-1, last) || (l >= k && len(s.chunks) == 0) {
			return true
		}
		select {
		case <-s.raised:
		case <-s.ctx.Done():
			return false
		}
	}
}

// wake tells the goroutine that the reader's state changed.
func (s *stream) wake() {
	select {
	case s.raised <- struct{}{}:
	default: // a wake-up is already pending
	}
}

type streamed struct {
	data []byte
	err  error
}

// openStream starts a stream at chunk first whose first batch holds the
// chunks first..last.
//
// The goroutine copies each batch out of the cursor into a queue that holds
// up to the largest read-ahead, and fetches the next batch, of half that,
// while the reader still has half of it to serve: so the store works while
// the client reads, instead of waiting for the client to empty each batch.
// The chunks fetched and not yet read never exceed the read-ahead the reader
// allows (see Read), so a stream holds at most 1.5 times the read-ahead: the
// queue and the cursor's batch.
func (r *Reader) openStream(first, last int64) *stream {
	ctx, cancel := context.WithCancel(r.ctx)
	// The queue has room for the largest read-ahead a reader may get; the
	// limit keeps it within the reader's share of a budget.
	room := min(max(maxReadaheadBytes/r.file.ChunkSize, 1), maxQueuedChunks)
	s := &stream{ctx: ctx, first: first, next: first, chunks: make(chan streamed, room), cancel: cancel,
		done: make(chan struct{}), raised: make(chan struct{}, 1)}
	s.limit.Store(last)
	half := func() int64 { return max(r.maxAhead()/2, 1) }
	// batch is the size of the next batch: up to the limit, at most half
	// the read-ahead.
	batch := func(k int64) int32 { return int32(min(s.limit.Load()-k+1, half())) }
	go func() {
		defer close(s.done)
		defer close(s.chunks)
		cur, err := r.find(ctx, first, r.chunkN-1, batch(first))
		if err != nil {
			s.send(ctx, streamed{err: err})
			return
		}
		defer closeCursor(ctx, cur)
		for k := first; k < r.chunkN; k++ {
			if k > first && cur.RemainingBatchLength() == 0 {
				// The next Next issues a getMore: wait until the client
				// may want chunk k, then fetch what it allows.
				if !s.wait(k, half(), r.chunkN-1) {
					return
				}
				cur.SetBatchSize(batch(k))
			}
			data, err := r.next(ctx, cur, k)
			if err == nil {
				r.fetched.Add(int64(len(data)))
			}
			if !s.send(ctx, streamed{data: data, err: err}) || err != nil {
				putBuffer(data)
				return
			}
		}
	}()
	return s
}

func (s *stream) send(ctx context.Context, c streamed) bool {
	select {
	case s.chunks <- c:
		return true
	case <-ctx.Done():
		return false
	}
}

func (s *stream) take() ([]byte, error) {
	c, ok := <-s.chunks
	if !ok {
		if err := s.ctx.Err(); err != nil {
			return nil, err
		}
		return nil, fmt.Errorf("chunk %d: %w", s.next, ErrClosed)
	}
	if c.err != nil {
		return nil, c.err
	}
	if len(s.chunks) == 0 {
		s.wake()
	}
	s.next++
	return c.data, nil
}

// stop ends the goroutine.
func (s *stream) stop() {
	s.cancel()
	for c := range s.chunks {
		putBuffer(c.data)
	}
	<-s.done
}

// cursorCloseTimeout bounds killing a server cursor.
const cursorCloseTimeout = 5 * time.Second

// closeCursor closes cur even when ctx was cancelled (a client that hung
// up must not leave its server cursor open), but never waits for ever on a
// stuck store.
func closeCursor(ctx context.Context, cur *mongo.Cursor) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cursorCloseTimeout)
	defer cancel()
	cur.Close(ctx)
}
