package chunker

import (
	"context"
	"encoding"
	"errors"
	"fmt"
	"hash"
	"io"
	"sync/atomic"
	"time"

	"github.com/gridfsd/gridfsd/third_party/mongo-driver/bson"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/mongo"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/mongo/options"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/mongo/writeconcern"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/x/bsonx/bsoncore"
	"github.com/minio/sha256-simd"
)

// DefaultBatchBytes is how many bytes of chunks one InsertMany carries at
// most by default: three chunks of the default size. Two chunks cost a tenth
// of the throughput on the embedded store when one insert was in flight;
// with InsertsInFlight inserts, four chunks added nothing to an HTTP PUT's
// throughput and a third to one upload's memory (29.6-31.3 MiB of RSS rise
// for 1 GiB against 23.5 with three; tests/bench, docs/BENCHMARKS.md). A
// writer holds at most 1+InsertsInFlight batches, one being filled and the
// others being inserted; a Budget shrinks them when many writers share it.
const DefaultBatchBytes = 3 * DefaultChunkSize

// InsertsInFlight is how many InsertMany calls one Writer keeps going at
// once. With one, the store sat idle while the driver marshalled and sent
// the next batch, and the batch after waited for it: an HTTP PUT ran at 0.80x
// the driver's upload on the embedded store with the gateway's and the
// store's CPU together well under the machine's two cores. With two, the
// store receives the next batch while it writes the one before
// (tests/bench, docs/BENCHMARKS.md).
const InsertsInFlight = 2

// Budget is what the Writers of one process share so that memory stays flat
// however many clients upload at once. It bounds the inserts in flight (each
// holds its batch's documents and the driver's message of them), and it
// divides a byte budget for batches among the writers that are active, down
// to two chunks each (a writer holds 1+InsertsInFlight batches): one upload
// gets large batches, many get small ones, and with many the store is the
// bottleneck anyway. A nil Budget bounds nothing.
type Budget struct {
	slots  chan struct{}
	bytes  int
	active atomic.Int64
}

// NewBudget returns a Budget for inserts concurrent inserts and bytes of
// batch buffers in all.
func NewBudget(inserts, bytes int) *Budget {
	return &Budget{slots: make(chan struct{}, max(inserts, 1)), bytes: bytes}
}

// batchBytes is the batch size for one of the active writers: its share of
// the budget (1+InsertsInFlight batches each), between two chunks and limit.
func (b *Budget) batchBytes(chunkSize, limit int) int {
	if b == nil {
		return limit
	}
	share := b.bytes / ((1 + InsertsInFlight) * int(max(b.active.Load(), 1)))
	return min(max(share, 2*chunkSize), limit)
}

// abortTimeout bounds the cleanup after a failed or cancelled upload; it runs
// on a context of its own because the upload's context may be the reason.
const abortTimeout = 30 * time.Second

// batchTimeout bounds one InsertMany, which runs on a context of its own
// (see flush).
const batchTimeout = 2 * time.Minute

// WriterOptions tune a Writer. The zero value is valid.
type WriterOptions struct {
	// ChunkSize is the size of every chunk but the last; 0 means DefaultChunkSize.
	ChunkSize int
	// BatchBytes is the largest payload of one InsertMany, rounded to
	// whole chunks and at least one chunk; 0 means DefaultBatchBytes.
	BatchBytes int
	// FirstBatchBytes, when set and smaller, is the first batch's payload
	// instead of BatchBytes, rounded the same way. The store is idle while
	// a writer fills its first batch; an upload that arrives in many
	// requests (a resumable upload's appends) pays that once per request.
	FirstBatchBytes int
	// Budget, when set, is shared with other Writers to bound the inserts
	// in flight and the batch memory across them.
	Budget *Budget
	// FirstChunk is the n of the first chunk written: a resumed upload
	// continues a file whose earlier chunks are stored.
	FirstChunk int32
	// Offset is the length of the content before the first chunk (the
	// stored chunks): Length counts from it and the size limit includes it.
	Offset int64
	// Hash, when set, is the SHA-256 of the content so far, which Sum
	// continues; nil starts a new one.
	Hash hash.Hash
	// Stored, when set, is called after each batch of whole chunks is
	// stored, in order, with the content's length through the end of that
	// batch and the hash's state at that length (BinaryMarshaler form);
	// not for what Close or CloseWhole write. When it returns
	// nil the caller owns those chunks: a later abort leaves them; an
	// error fails the writer. A resumable upload records its progress so.
	Stored func(length int64, hashState []byte) error
	// Ready, when set, is called once before the first insert, which
	// waits for it; an error fails the writer with nothing inserted. The
	// caller's own preparation of the store then overlaps the reading of
	// the first batch.
	Ready func() error
	// Unjournaled sends the inserts with write concern j: false: the
	// store may acknowledge them before they are durable, sparing a sync
	// of its log per batch. Only for a store where a later durable write
	// makes every write acknowledged before it durable too (one write-ahead
	// log: the embedded store, a standalone or replica set; not a sharded
	// cluster, whose shards keep logs of their own), and a caller that
	// makes one before it reports the content stored: a files document, a
	// record. CloseWholeWith's caller records the end after the last
	// insert (see CloseWholeWith).
	Unjournaled bool
}

// Writer streams bytes into the chunk documents of one file. Reading the
// next bytes overlaps the insert of the previous batch. It computes the
// SHA-256 of everything written.
//
// A Writer writes only chunks: the caller writes the files document after
// Close succeeds, so that a file is never visible before it is complete.
type Writer struct {
	ctx     context.Context
	chunks  *mongo.Collection
	filesID any
	// filesValue is filesID as a BSON value, for the documents that the
	// writer lays out itself (see flush).
	filesValue bsoncore.Value
	chunkSize  int
	maxBatch   int // BatchBytes
	first      int // FirstBatchBytes, until the first batch is taken
	batchCap   int // bytes in the batch being filled, a multiple of chunkSize
	budget     *Budget
	// unjournaled is chunks with write concern j: false, or nil (see
	// WriterOptions.Unjournaled).
	unjournaled *mongo.Collection

	hash   hash.Hash
	length int64
	next   int32 // n of the first chunk in buf
	// batchStart is the length before buf, and batchState the hash's
	// state there, when it marshals (see CloseWholeWith).
	batchStart int64
	batchState []byte
	buf        []byte // the batch being filled; len is the bytes in it

	// ids are the _ids of the chunks handed to inserts: the only chunks an
	// abort may remove. Another upload may write under the same files_id (a
	// caller-chosen id taken twice); its chunks are not this writer's.
	ids []bson.ObjectID
	// kept is how many of ids Stored took over, set by the insert
	// goroutines in order before they report (wait orders it before
	// discard).
	kept   int
	stored func(int64, []byte) error
	ready  func() error
	// sets hold the documents of the batches being inserted, one set per
	// insert in flight, reused from batch to batch (flush waits for the
	// insert that used a set before it refills it).
	sets    [InsertsInFlight]docSet
	batches int // batches handed to inserts, which picks the set

	// inflight are the inserts in flight, oldest first: each reports its
	// result once on its channel.
	inflight []chan error
	// settled is closed or sent true by the newest insert once it and
	// every one before it are stored (false if any failed): the next
	// insert waits for it before it calls Stored, so that Stored sees the
	// batches in order and never one after a batch that failed.
	settled chan bool
	err     error // sticky: the first failure, after which the writer has aborted
	closed  bool
	left    bool // the budget no longer counts this writer
}

var _ io.WriteCloser = (*Writer)(nil)
var _ io.ReaderFrom = (*Writer)(nil)

// NewWriter returns a Writer of the chunks of filesID into chunks. Cancelling
// ctx aborts the upload: the chunks written so far are removed.
func NewWriter(ctx context.Context, chunks *mongo.Collection, filesID any, opts WriterOptions) (*Writer, error) {
	if opts.ChunkSize == 0 {
		opts.ChunkSize = DefaultChunkSize
	}
	if err := CheckChunkSize(int64(opts.ChunkSize)); err != nil {
		return nil, err
	}
	if opts.BatchBytes <= 0 {
		opts.BatchBytes = DefaultBatchBytes
	}
	if opts.Budget != nil {
		opts.Budget.active.Add(1)
	}
	t, data, err := bson.MarshalValue(filesID)
	if err != nil {
		return nil, fmt.Errorf("chunker: files_id: %w", err)
	}
	h := opts.Hash
	if h == nil {
		h = sha256.New()
	}
	w := &Writer{
		ctx:        ctx,
		chunks:     chunks,
		filesID:    filesID,
		filesValue: bsoncore.Value{Type: bsoncore.Type(t), Data: data},
		chunkSize:  opts.ChunkSize,
		maxBatch:   opts.BatchBytes,
		first:      opts.FirstBatchBytes,
		budget:     opts.Budget,
		hash:       h,
		length:     opts.Offset,
		next:       opts.FirstChunk,
		stored:     opts.Stored,
		ready:      opts.Ready,
	}
	if opts.Unjournaled {
		w.unjournaled = chunks.Clone(options.Collection().SetWriteConcern(&writeconcern.WriteConcern{Journal: new(bool)}))
	}
	return w, nil
}

// newBatch takes a buffer for the next batch, sized by the budget's share.
func (w *Writer) newBatch() {
	bytes := w.budget.batchBytes(w.chunkSize, w.maxBatch)
	if w.first > 0 {
		bytes, w.first = min(bytes, w.first), 0
	}
	w.batchStart, w.batchState = w.length, nil
	if m, ok := w.hash.(encoding.BinaryMarshaler); ok {
		w.batchState, _ = m.MarshalBinary()
	}
	w.batchCap = max(bytes/w.chunkSize, 1) * w.chunkSize
	w.buf = getBuffer(w.batchCap)[:0]
}

// leave gives the writer's share of the budget back, once.
func (w *Writer) leave() {
	if w.budget != nil && !w.left {
		w.left = true
		w.budget.active.Add(-1)
	}
}

// Write adds p to the file.
func (w *Writer) Write(p []byte) (int, error) {
	if err := w.usable(); err != nil {
		return 0, err
	}
	written := 0
	for len(p) > 0 {
		if w.buf == nil {
			w.newBatch()
		}
		n := copy(w.buf[len(w.buf):w.batchCap], p)
		written += n
		p = p[n:]
		if err := w.filled(n); err != nil {
			return written, err
		}
	}
	return written, nil
}

// ReadFrom reads r until EOF straight into the batch buffers, saving the
// copy that Write would make.
func (w *Writer) ReadFrom(r io.Reader) (int64, error) {
	if err := w.usable(); err != nil {
		return 0, err
	}
	var total int64
	for {
		if w.buf == nil {
			w.newBatch()
		}
		n, err := r.Read(w.buf[len(w.buf):w.batchCap])
		total += int64(n)
		if ferr := w.filled(n); ferr != nil {
			return total, ferr
		}
		if err == io.EOF {
			return total, nil
		}
		if err != nil {
			return total, err
		}
		if cerr := w.ctx.Err(); cerr != nil {
			return total, w.fail(cerr)
		}
	}
}

// filled takes in the n bytes just placed after the end of buf, and hands
// the batch to an insert once it is full. A file longer than MaxChunks
// chunks is refused here, before a chunk number past int32 could wrap
// around and overwrite the meaning of the first chunks.
func (w *Writer) filled(n int) error {
	if w.length+int64(n) > MaxLength(w.chunkSize) {
		return w.fail(fmt.Errorf("%w: more than %d bytes at chunk size %d", ErrTooManyChunks, MaxLength(w.chunkSize), w.chunkSize))
	}
	w.hash.Write(w.buf[len(w.buf) : len(w.buf)+n])
	w.buf = w.buf[:len(w.buf)+n]
	w.length += int64(n)
	if len(w.buf) == w.batchCap {
		return w.flush()
	}
	return nil
}

// Close writes the remaining chunks and waits for every insert. After Close
// returns nil, Length and Sum describe the stored chunks.
func (w *Writer) Close() error {
	if err := w.usable(); err != nil {
		return err
	}
	w.stored = nil // the caller records the end itself
	if len(w.buf) > 0 {
		if err := w.flush(); err != nil {
			return err
		}
	}
	if err := w.wait(); err != nil {
		return w.fail(err)
	}
	putBuffer(w.buf)
	w.buf = nil
	w.closed = true
	w.leave()
	return nil
}

// CloseWhole is Close for content that continues later: it stores the
// whole chunks and returns the bytes past the last of them, which it does
// not store (nil when the content ends on a chunk boundary). Length and
// Sum still count them.
func (w *Writer) CloseWhole() ([]byte, error) {
	if err := w.usable(); err != nil {
		return nil, err
	}
	var tail []byte
	if rest := len(w.buf) % w.chunkSize; rest > 0 {
		tail = append([]byte(nil), w.buf[len(w.buf)-rest:]...)
		w.buf = w.buf[:len(w.buf)-rest]
	}
	w.stored = nil // the caller records the end itself
	if len(w.buf) > 0 {
		if err := w.flush(); err != nil {
			return nil, err
		}
	}
	if err := w.wait(); err != nil {
		return nil, w.fail(err)
	}
	putBuffer(w.buf)
	w.buf = nil
	w.closed = true
	w.leave()
	return tail, nil
}

// End describes content that continues later at the moment its writer
// closes (see CloseWholeWith).
type End struct {
	// Length is the content's length, Tail included; Hash is the hash's
	// state there (BinaryMarshaler form).
	Length int64
	Hash   []byte
	// Tail is the bytes past the last whole chunk, which are not stored
	// (nil when the content ends on a chunk boundary).
	Tail []byte
	// Stored is the length through the chunks stored when commit is
	// called (a whole number of chunks past the writer's Offset). The
	// chunks from there through chunk Last are on their way to the store
	// meanwhile, and StoredHash is the hash's state at Stored; when none
	// are (Last is below Stored's chunk), StoredHash is nil.
	Stored     int64
	StoredHash []byte
	Last       int32
}

// CloseWholeWith is CloseWhole for a caller that records where the content
// ends (a resumable upload's offset) with commit, a durable write. Without
// Unjournaled, commit runs while the last whole chunks are inserted, once
// every insert before them is stored, if they start at from or later (a
// caller can fall back only to a length whose hash state it knows), which
// spares the wait between the last insert and the record; else after the
// last insert. With Unjournaled, always after it: the last insert is
// unjournaled too, and commit's durable write makes it durable with the
// others, one commit of the store's log fewer at each end (see the
// comment in the body). Until both are done the end does
// not count: when the last insert fails after commit recorded the end, the
// caller goes back to End.Stored, and commit must record enough for a
// crash in between to be noticed (chunks missing before End.Last).
//
// The bytes past the last whole chunk, which CloseWhole returns, are
// End.Tail. When the inserts succeed the writer closes with every chunk
// kept, even if commit failed (it may have landed). When the last insert fails while
// commit runs, the writer keeps the chunks before it, removes its own, and
// returns err. When an insert fails before commit, commit is not called.
func (w *Writer) CloseWholeWith(from int64, commit func(End) error) (commitErr, err error) {
	if err := w.usable(); err != nil {
		return nil, err
	}
	if w.buf == nil {
		w.newBatch()
	}
	if w.batchState == nil {
		return nil, w.fail(fmt.Errorf("chunker: CloseWholeWith needs a hash that marshals its state"))
	}
	end := End{Length: w.length, Stored: w.batchStart, StoredHash: w.batchState}
	if rest := len(w.buf) % w.chunkSize; rest > 0 {
		end.Tail = append([]byte(nil), w.buf[len(w.buf)-rest:]...)
		w.buf = w.buf[:len(w.buf)-rest]
	}
	if end.Hash, err = w.hash.(encoding.BinaryMarshaler).MarshalBinary(); err != nil {
		return nil, w.fail(err)
	}
	end.Last = w.next + int32(chunkCount(int64(len(w.buf)), w.chunkSize)) - 1
	// On a store whose durability is ordered (Unjournaled), an overlapping
	// commit made the store commit its log three times at the end of each
	// resumable append, two of them synced: the open group of unjournaled
	// inserts, the journaled last insert, the record. Each commit writes
	// the database's header, pointer-map and leaf pages besides the rows
	// (32 KiB each), and the last insert's sync waited for the group's
	// frames. After the last insert the record's commit covers it: two
	// commits, one synced. Measured through a gateway (1 GiB in 8 MiB
	// PATCHes, 6 uploads each, alternated): 2.14 -> 2.11 bytes written by
	// the store per byte uploaded, 288 -> 328 MB/s (medians).
	overlap := w.unjournaled == nil && len(w.buf) > 0 && end.Stored >= from
	w.stored = nil // the caller records the end itself
	before := len(w.ids)
	if len(w.buf) > 0 {
		// journaled whenever commit may land first (overlap needs a store
		// without Unjournaled): the end it records must not outlive a
		// power loss that these chunks do not
		if err := w.flush(); err != nil {
			return nil, err
		}
	}
	if !overlap {
		if err := w.wait(); err != nil {
			return nil, w.fail(err)
		}
		end.Stored = end.Length - int64(len(end.Tail))
		end.StoredHash = nil
	}
	// every insert before the last one is stored before commit (with
	// InsertsInFlight above one, flush leaves the one before in flight)
	for len(w.inflight) > 1 {
		if err := w.waitOldest(); err != nil {
			return nil, w.fail(err)
		}
	}
	commitErr = commit(end)
	if err := w.wait(); err != nil {
		w.kept = max(w.kept, before)
		return commitErr, w.fail(err)
	}
	putBuffer(w.buf)
	w.buf = nil
	w.closed = true
	w.leave()
	return commitErr, nil
}

// Abort stops the upload and removes every chunk it wrote. It is safe
// to call after a failure, which has already removed them.
func (w *Writer) Abort() error {
	if w.err != nil {
		return nil
	}
	w.err = ErrClosed
	return w.discard()
}

// Length is the number of bytes written.
func (w *Writer) Length() int64 { return w.length }

// Sum is the SHA-256 of the bytes written so far.
func (w *Writer) Sum() []byte { return w.hash.Sum(nil) }

// ChunkSize is the chunk size in use.
func (w *Writer) ChunkSize() int { return w.chunkSize }

func (w *Writer) usable() error {
	if w.err != nil {
		return w.err
	}
	if w.closed {
		return ErrClosed
	}
	if err := w.ctx.Err(); err != nil {
		return w.fail(err)
	}
	return nil
}

// docSet holds the documents of one insert.
type docSet struct {
	docs []any
}

// chunkDocOverhead is what a chunk's document takes besides its data and
// its files_id's value: the document's length and end, _id, n, and the
// names, types and length of every field.
const chunkDocOverhead = 4 + 1 + (1 + 4 + 12) + (1 + 9) + (1 + 2 + 4) + (1 + 5 + 4 + 1)

// AppendChunkDoc appends the BSON document of chunk n of the file whose
// files_id is files: the layout the driver would give a struct of _id,
// files_id, n and data, made without the driver's encoder, which copies
// the data twice into buffers it grows and drops (a third of the gateway's
// CPU on uploads went to those copies and the garbage collections they
// caused). The driver inserts such a document as it is (its fork's item 1).
func AppendChunkDoc(dst []byte, id bson.ObjectID, files bsoncore.Value, n int32, data []byte) []byte {
	idx, dst := bsoncore.AppendDocumentStart(dst)
	dst = bsoncore.AppendObjectIDElement(dst, "_id", id)
	dst = bsoncore.AppendValueElement(dst, "files_id", files)
	dst = bsoncore.AppendInt32Element(dst, "n", n)
	dst = bsoncore.AppendBinaryElement(dst, "data", bson.TypeBinaryGeneric, data)
	dst, _ = bsoncore.AppendDocumentEnd(dst, idx)
	return dst
}

// flush hands the filled part of buf to an insert, after waiting for the
// oldest one if InsertsInFlight are in flight, so memory stays at
// 1+InsertsInFlight batches.
func (w *Writer) flush() error {
	if ready := w.ready; ready != nil {
		w.ready = nil
		if err := ready(); err != nil {
			return w.fail(err)
		}
	}
	if len(w.inflight) == InsertsInFlight {
		if err := w.waitOldest(); err != nil {
			return w.fail(err)
		}
	}
	batch := w.buf
	w.buf = nil
	first := w.next
	count := int32(chunkCount(int64(len(batch)), w.chunkSize))
	w.next += count
	// the set of the insert InsertsInFlight batches ago, which has ended
	set := &w.sets[w.batches%InsertsInFlight]
	w.batches++
	if cap(set.docs) < int(count) {
		set.docs = make([]any, count)
	}
	docs := set.docs[:count]
	raw := getBuffer(len(batch) + int(count)*(chunkDocOverhead+len(w.filesValue.Data)))[:0]
	for i := int32(0); i < count; i++ {
		start := int(i) * w.chunkSize
		end := min(start+w.chunkSize, len(batch))
		id := bson.NewObjectID()
		w.ids = append(w.ids, id)
		at := len(raw)
		raw = AppendChunkDoc(raw, id, w.filesValue, first+i, batch[start:end])
		docs[i] = bsoncore.Document(raw[at:]) // an append that grows raw leaves these bytes as they are
	}
	putBuffer(batch)
	var state []byte
	end, stored := w.length, w.stored
	if stored != nil {
		m, ok := w.hash.(encoding.BinaryMarshaler)
		if !ok {
			return w.fail(fmt.Errorf("chunker: Stored needs a hash that marshals its state"))
		}
		var err error
		if state, err = m.MarshalBinary(); err != nil {
			return w.fail(err)
		}
	}
	if w.budget != nil {
		// Taken here, not in the goroutine: while the store is busy the
		// writer stops reading, so a waiting upload holds one batch, not
		// two, and its client feels the backpressure.
		select {
		case w.budget.slots <- struct{}{}:
		case <-w.ctx.Done():
			putBuffer(raw)
			return w.fail(w.ctx.Err())
		}
	}
	idsEnd := len(w.ids)
	chunks := w.chunks
	if w.unjournaled != nil {
		chunks = w.unjournaled
	}
	result := make(chan error, 1)
	w.inflight = append(w.inflight, result)
	before, settled := w.settled, make(chan bool, 1)
	w.settled = settled
	go func() {
		if w.budget != nil {
			defer func() { <-w.budget.slots }()
		}
		// Not cancelled with the upload: a cancelled insert may still land
		// on the server after the cleanup ran, leaving orphans. A batch is
		// small, so finishing it costs little; the cleanup then sees it.
		ctx, cancel := context.WithTimeout(context.WithoutCancel(w.ctx), batchTimeout)
		_, err := chunks.InsertMany(ctx, docs)
		cancel()
		putBuffer(raw)
		if err != nil {
			err = fmt.Errorf("insert chunks %d-%d: %w", first, first+count-1, err)
		}
		// the batches before this one first: Stored sees them in order, and
		// none after one that failed
		if before != nil && !<-before && err == nil {
			err = errEarlierBatch
		}
		if err == nil && stored != nil {
			if err = stored(end, state); err == nil {
				w.kept = idsEnd
			}
		}
		settled <- err == nil
		result <- err
	}()
	return nil
}

// errEarlierBatch fails an insert whose batch was stored after an earlier
// batch of the same writer failed; the writer reports the earlier failure.
var errEarlierBatch = errors.New("chunker: an earlier batch failed")

// waitOldest waits for the oldest insert in flight and returns its error.
func (w *Writer) waitOldest() error {
	err := <-w.inflight[0]
	w.inflight = w.inflight[1:]
	return err
}

// wait waits for every insert in flight and returns the first error.
func (w *Writer) wait() error {
	var first error
	for len(w.inflight) > 0 {
		if err := w.waitOldest(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// fail records err and removes what was written. It returns the recorded
// error so callers can return w.fail(err).
func (w *Writer) fail(err error) error {
	if w.err != nil {
		return w.err
	}
	w.err = err
	if derr := w.discard(); derr != nil {
		w.err = fmt.Errorf("%w (and %v)", err, derr)
	}
	return w.err
}

// discard waits for the insert in flight, then removes the chunks it wrote.
func (w *Writer) discard() error {
	w.wait()
	putBuffer(w.buf)
	w.buf = nil
	w.closed = true
	w.leave()
	return w.removeChunks()
}

// removeBatch bounds the _ids of one delete, so that the query stays far
// below MongoDB's 16 MiB document limit however large the file.
const removeBatch = 1000

// removeChunks removes the chunks this writer inserted, by _id, including
// those of an insert whose acknowledgement was lost.
func (w *Writer) removeChunks() error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(w.ctx), abortTimeout)
	defer cancel()
	w.ids = w.ids[w.kept:]
	w.kept = 0
	for len(w.ids) > 0 {
		batch := w.ids[:min(len(w.ids), removeBatch)]
		filter := bson.D{
			{Key: "files_id", Value: w.filesID},
			{Key: "_id", Value: bson.D{{Key: "$in", Value: batch}}},
		}
		if _, err := w.chunks.DeleteMany(ctx, filter); err != nil {
			return fmt.Errorf("remove chunks: %w", err)
		}
		w.ids = w.ids[len(batch):]
	}
	return nil
}
