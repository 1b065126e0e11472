package chunker

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gridfsd/gridfsd/third_party/mongo-driver/bson"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/mongo"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/mongo/options"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/x/mongo/driver/replybuf"
)

// maxReadaheadBytes caps how far a sequential reader fetches ahead of the
// client. The read-ahead starts at nothing after a seek and grows with what
// the client has read since (see Read).
const maxReadaheadBytes = 4 << 20

// File is what a Reader needs to know of a files document.
type File struct {
	ID        any
	Length    int64
	ChunkSize int
	// Version tells contents under one ID apart, for a Cache: anything
	// that changes when a file is deleted and written again under the same
	// ID (buckets uses the files document's uploadDate and SHA-256). Empty
	// is a version too.
	Version string
}

// Reader reads the chunks of one file. It is an io.ReadSeeker whose Seek is
// O(1) and never reads the chunks it skips, and an io.ReaderAt safe for
// concurrent use. Chunks come through a Cache (see ShareCache), so that
// Readers of the same chunks share one fetch; sequential reads fetch the
// next batch while the current one is served.
type Reader struct {
	ctx    context.Context
	chunks *mongo.Collection
	file   File
	chunkN int64 // number of chunks

	cache *Cache  // shared with other Readers, or a private one
	key   fileRef // the file in cache

	pos  int64
	cur  *entry // chunk curN, held
	curN int64
	// win holds the chunks fetched ahead, winFrom onwards; runStart is
	// the chunk where the current sequential run began (-1: none yet):
	// the read-ahead grows with the chunks read since.
	win      []*entry
	winFrom  int64
	runStart int64
	// wantFrom..wantTo are the chunks this Reader told the cache it is
	// about to need (see Cache).
	wantFrom, wantTo int64
	// own is a chunk this Reader fetches itself (-1: none), after a fetch
	// of it by another Reader was abandoned.
	own    int64
	loads  sync.WaitGroup // fetches this Reader started
	closed bool
	budget *ReadBudget // shared with other Readers, or nil

	// expectFrom and expectEnd are the bytes a client said it will read
	// (see Expect).
	expectFrom, expectEnd int64

	// fetched counts the chunk bytes received from the store, by Read's
	// read-ahead and by ReadAt, for metrics and tests of the read path's
	// cost. Atomic: fetches run in goroutines and ReadAt calls add to it.
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
	r := &Reader{ctx: ctx, chunks: chunks, file: file, curN: -1, runStart: -1, own: -1, cache: NewCache(0)}
	r.key, _ = ref(chunks, file)
	if file.Length > 0 {
		r.chunkN = chunkCount(file.Length, file.ChunkSize)
	}
	return r, nil
}

// ShareCache makes r read its chunks through c, shared with the other
// Readers of c, instead of a cache of its own that keeps nothing. Call it
// before the first Read.
func (r *Reader) ShareCache(c *Cache) {
	if c == nil || r.closed || r.cur != nil || len(r.win) > 0 {
		return
	}
	if _, ok := ref(r.chunks, r.file); ok {
		r.cache = c
	}
}

// Size is the file's length.
func (r *Reader) Size() int64 { return r.file.Length }

// Fetched is the number of chunk bytes this reader has received from the
// store so far, read-ahead and ReadAt included: chunks it found in the
// cache cost nothing.
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
	// The read may fetch the chunks this Read needs and, when the Read
	// continues the last one, as many more as the client has already read
	// in this run: nothing after a seek, then a window that grows while the
	// client keeps reading, the way the kernel's readahead does. So a short
	// range costs only its own chunks.
	cs := int64(r.file.ChunkSize)
	limit := r.limit(len(p))
	n := 0
	for n < len(p) && r.pos < r.file.Length {
		k := r.pos / cs
		if k != r.curN {
			if err := r.load(k, limit); err != nil {
				return n, err
			}
		}
		off := r.pos - k*cs
		c := copy(p[n:], r.cur.data[off:])
		n += c
		r.pos += int64(c)
	}
	return n, nil
}

// limit is the last chunk a read of want bytes at the offset may fetch.
func (r *Reader) limit(want int) int64 {
	cs := int64(r.file.ChunkSize)
	limit := (min(r.pos+int64(want), r.file.Length) - 1) / cs
	switch k := r.pos / cs; {
	case r.pos >= r.expectFrom && r.pos < r.expectEnd:
		// The client said where it stops: through there at once, and
		// nothing past it.
		limit = max(limit, min((min(r.expectEnd, r.file.Length)-1)/cs, k+r.maxAhead()-1))
	case r.runStart >= 0 && (k == r.curN || k == r.curN+1):
		limit = min(limit+min(r.curN+1-r.runStart, r.maxAhead()), r.chunkN-1)
	}
	return limit
}

// Next returns up to n bytes from the current offset, at most to the end of
// the chunk that holds them, and moves past them, as Read would without
// copying them: a download can write chunks to its client straight from
// the cache, with no buffer of its own. The slice is the cache's: valid
// until the next call of a method of r, and not to be modified. At the end
// of the file it returns io.EOF; errors are those of Read.
func (r *Reader) Next(n int) ([]byte, error) {
	if r.closed {
		return nil, ErrClosed
	}
	if r.pos >= r.file.Length {
		return nil, io.EOF
	}
	if n <= 0 {
		return nil, nil
	}
	cs := int64(r.file.ChunkSize)
	if k := r.pos / cs; k != r.curN {
		// Reads ahead as a Read of the rest of this chunk would: n may
		// be the rest of the file.
		if err := r.load(k, r.limit(int(min(int64(n), (k+1)*cs-r.pos)))); err != nil {
			return nil, err
		}
	}
	off := r.pos - r.curN*cs
	b := r.cur.data[off:min(off+int64(n), int64(len(r.cur.data)))]
	r.pos += int64(len(b))
	return b, nil
}

// maxLoadAttempts bounds the fetches of a chunk a Reader waits for: after
// one that another Reader abandoned, it fetches the chunk itself.
const maxLoadAttempts = 2

// load makes chunk k current, from the read-ahead when it continues the
// run, else starting a new run at k. The read-ahead may fetch up to chunk
// limit.
func (r *Reader) load(k, limit int64) error {
	if r.runStart < 0 || k != r.curN+1 {
		r.dropWindow(k)
		r.runStart = k
	}
	for attempt := 1; ; attempt++ {
		r.fill(k, limit)
		abandoned, err := r.wait(r.win[0])
		if err == nil {
			break
		}
		if !abandoned || r.ctx.Err() != nil || attempt == maxLoadAttempts {
			r.dropWindow(k)
			return err
		}
		r.dropWindow(k)
		r.own = k
	}
	r.own = -1
	if r.cur != nil {
		r.cache.release(r.cur)
	}
	r.cur, r.curN = r.win[0], k
	r.win[0] = nil
	r.win = r.win[1:]
	r.winFrom++
	r.watch(k)
	return nil
}

// fill makes the read-ahead window reach towards limit. The window is
// fetched in batches of half the largest read-ahead: a batch goes out when
// the reader allows a whole one, or when the window is empty and the
// reader waits for chunk k; without the first condition the window would
// be refilled a chunk at a time, a query each. So the store works while
// the client reads the other half.
//
// The window ends at most the largest read-ahead past chunk k, however
// much the client asked for at once: those further are fetched as it
// gets there.
func (r *Reader) fill(k, limit int64) {
	limit = min(limit, k+r.maxAhead())
	half := max(r.maxAhead()/2, 1)
	for {
		a := r.winFrom + int64(len(r.win))
		if a > limit || (a > k && limit < min(a+half-1, r.chunkN-1)) {
			return
		}
		r.fetch(a, min(limit, a+half-1))
	}
}

// fetch adds chunks first..last to the window: those in the cache or on
// their way held, the others fetched, each run of them with one query.
func (r *Reader) fetch(first, last int64) {
	var run []*entry
	start := first
	for n := first; n <= last; n++ {
		e, created := r.cache.acquire(r.key, n, n == r.own)
		r.win = append(r.win, e)
		if created {
			if len(run) == 0 {
				start = n
			}
			run = append(run, e)
			continue
		}
		if len(run) > 0 {
			r.goLoad(start, run)
			run = nil
		}
	}
	if len(run) > 0 {
		r.goLoad(start, run)
	}
}

func (r *Reader) goLoad(first int64, run []*entry) {
	r.loads.Add(1)
	go func() {
		defer r.loads.Done()
		r.loadRun(r.ctx, first, run)
	}()
}

// loadRun fetches chunks first.. into the entries run, which the caller
// created, with one query, and finishes each as it arrives.
func (r *Reader) loadRun(ctx context.Context, first int64, run []*entry) {
	fail := func(from int, err error) {
		abandoned := ctx.Err() != nil
		for _, e := range run[from:] {
			r.cache.finish(e, nil, err, abandoned)
		}
	}
	last := first + int64(len(run)) - 1
	// The replies are read into pooled buffers, given back once the run
	// is loaded: next copies each chunk out, and nothing else keeps them.
	// After a failure they are left to the collector: an error may refer
	// to its reply.
	replies := &replyBuffers{}
	ctx = replybuf.With(ctx, replies.alloc)
	loaded := false
	defer func() {
		if loaded {
			replies.release()
		}
	}()
	cur, err := r.find(ctx, first, last, int32(len(run)))
	if err != nil {
		fail(0, err)
		return
	}
	defer closeCursor(ctx, cur)
	for i, e := range run {
		data, err := r.next(ctx, cur, first+int64(i))
		if err != nil {
			fail(i, err)
			return
		}
		r.fetched.Add(int64(len(data)))
		r.cache.finish(e, data, nil, false)
	}
	loaded = true
}

// replyBuffers are the pooled buffers the replies of one run were read
// into (see loadRun).
type replyBuffers struct {
	mu   sync.Mutex
	bufs [][]byte
}

func (rb *replyBuffers) alloc(size int) []byte {
	b := getBuffer(size)
	rb.mu.Lock()
	rb.bufs = append(rb.bufs, b)
	rb.mu.Unlock()
	return b
}

// release gives the buffers back to the pool.
func (rb *replyBuffers) release() {
	rb.mu.Lock()
	defer rb.mu.Unlock()
	for _, b := range rb.bufs {
		putBuffer(b)
	}
	rb.bufs = nil
}

// wait waits until e is loaded, or r's context ends; abandoned says that
// e's load failed because the Reader that ran it went away.
func (r *Reader) wait(e *entry) (abandoned bool, err error) {
	select {
	case <-e.ready:
		return e.abandoned, e.err
	default:
	}
	select {
	case <-e.ready:
		return e.abandoned, e.err
	case <-r.ctx.Done():
		return false, r.ctx.Err()
	}
}

// dropWindow gives back the read-ahead; the next is fetched from chunk k.
func (r *Reader) dropWindow(k int64) {
	for i, e := range r.win {
		r.cache.release(e)
		r.win[i] = nil
	}
	r.win = r.win[:0]
	r.winFrom = k
}

// watch tells the cache that this Reader is about to need the chunks from
// k for wantHorizon, instead of those it said before.
// A client that said where it stops (Expect) needs nothing past there.
// k < 0 withdraws what it said.
func (r *Reader) watch(k int64) {
	var from, to int64
	if k >= 0 {
		from, to = k, min(k+int64(max(wantHorizon/r.file.ChunkSize, 1)), r.chunkN)
		if r.pos >= r.expectFrom && r.pos < r.expectEnd {
			to = min(to, (min(r.expectEnd, r.file.Length)-1)/int64(r.file.ChunkSize)+1)
		}
	}
	if from < r.wantTo && to > r.wantFrom && from >= r.wantFrom && to >= r.wantTo {
		// the window slid forward: only its ends change
		r.cache.want(r.key, r.wantFrom, from, -1)
		r.cache.want(r.key, r.wantTo, to, 1)
	} else {
		r.cache.want(r.key, r.wantFrom, r.wantTo, -1)
		r.cache.want(r.key, from, to, 1)
	}
	r.wantFrom, r.wantTo = from, to
}

// Expect tells r that its client will read the bytes from off to end
// (exclusive), as an HTTP range with both ends says: a Read in them fetches
// through end in one batch, within the read-ahead, instead of only the
// chunks its buffer covers, so a range over two chunks costs one query, not
// two. Reads elsewhere are unaffected.
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

// ReadAt reads len(p) bytes at off, fetching those of its chunks that are
// not in the cache with one query per run of them. It does not move the
// offset of Read and may run concurrently with other ReadAt calls.
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
	es := make([]*entry, 0, last-first+1)
	defer func() {
		for _, e := range es {
			r.cache.release(e)
		}
	}()
	var run []*entry
	start := first
	for k := first; k <= last; k++ {
		e, created := r.cache.acquire(r.key, k, false)
		es = append(es, e)
		if created {
			if len(run) == 0 {
				start = k
			}
			run = append(run, e)
		}
		if len(run) > 0 && (!created || k == last) {
			r.loadRun(r.ctx, start, run)
			run = nil
		}
	}
	n := 0
	for i, e := range es {
		k := first + int64(i)
		abandoned, err := r.wait(e)
		if err != nil && abandoned && r.ctx.Err() == nil {
			// Its fetch was another Reader's, which went away: fetch it.
			own, created := r.cache.acquire(r.key, k, true)
			r.cache.release(e)
			e, es[i] = own, own
			if created {
				r.loadRun(r.ctx, k, []*entry{own})
			}
			_, err = r.wait(e)
		}
		if err != nil {
			return n, err
		}
		lo := max(off-k*cs, 0)
		hi := min(end-k*cs, int64(len(e.data)))
		n += copy(p[n:], e.data[lo:hi])
	}
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// Close releases the chunks it holds, once the fetches it started are
// done.
func (r *Reader) Close() error {
	if r.closed {
		return nil
	}
	r.closed = true
	if r.budget != nil {
		r.budget.active.Add(-1)
	}
	r.loads.Wait()
	r.dropWindow(0)
	if r.cur != nil {
		r.cache.release(r.cur)
	}
	r.cur, r.curN = nil, -1
	r.watch(-1)
	return nil
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
	// The limit (the run's length: the filter allows no more) lets the
	// store close the cursor with its first batch. Without it the cursor
	// stayed open until the reader killed it, and when the reply was lost
	// on the way (a connection reset) nobody knew its id: the embedded
	// store kept it, with one of its SQLite connections, for its idle
	// timeout, and after a hundred such losses every query waited for a
	// connection (tests/flaky TestNoLeakAfterFaults).
	//
	// No projection: the whole chunk costs the reply a few dozen bytes more
	// (its _id and files_id), and projecting cost the embedded store a tenth
	// of its CPU on downloads (docs/BENCHMARKS.md, eleventh session).
	opts := options.Find().
		SetSort(bson.D{{Key: "n", Value: 1}}).
		SetBatchSize(batch).
		SetLimit(last - first + 1)
	cur, err := r.chunks.Find(ctx, filter, opts)
	if err != nil {
		return nil, fmt.Errorf("find chunks of %v from %d: %w", r.file.ID, first, err)
	}
	return cur, nil
}

// next reads chunk k from cur and checks its number and size. The returned
// slice is a copy from the cache's memory (Cache.alloc) owned by the
// caller.
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
	c := r.cache.alloc(len(data))
	copy(c, data)
	return c, nil
}

// maxAhead is the largest read-ahead in chunks.
func (r *Reader) maxAhead() int64 {
	return int64(max(r.budget.share()/r.file.ChunkSize, 1))
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
