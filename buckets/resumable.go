package buckets

import (
	"context"
	"crypto/rand"
	"encoding"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"slices"
	"sync"
	"time"

	"github.com/gridfsd/gridfsd/chunker"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/bson"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/mongo"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/mongo/options"
	"github.com/minio/sha256-simd"
)

// Resumable uploads (the tus protocol's model): a file sent in appends at
// known offsets, possibly through different gateways, that becomes a GridFS
// file when its last byte is stored. Each append streams straight into the
// chunks of the file the upload becomes; the upload's record, in the
// collection <bucket>.uploads, holds the offset and the SHA-256 state at
// that offset, and is the one truth about what is stored: chunks past the
// offset (left by an append that failed or was cut) are ignored and
// removed by the next append. An append need not end on a chunk boundary:
// the bytes past the last whole chunk (less than a chunk) are kept in the
// record itself, written with the new offset in one single-document
// update, and the next append, on any gateway, stores them as the start of
// its first chunk. On a store whose durability is not ordered (MongoDB)
// that update goes to the store while the append's last chunks are
// inserted, naming them (Pending): a record whose named chunks are not all
// stored is read at the offset before them; on the embedded store it
// follows them and makes them durable (see chunker.Writer.CloseWholeWith).
// The upload's last
// chunk is stored short, as a file's is. A long append records its offset
// as whole chunks are stored (every ResumableProgress bytes), so that a
// gateway killed in the middle loses at most that much of it.

// ResumableSuffix names the collection of a bucket's resumable uploads:
// <bucket>.uploads. No GridFS tool reads it.
const ResumableSuffix = ".uploads"

// Errors of resumable uploads.
var (
	ErrResumableNotFound = errors.New("resumable upload not found")
	ErrResumableExpired  = errors.New("resumable upload expired")
	ErrOffsetMismatch    = errors.New("upload offset does not match")
	ErrChecksumMismatch  = errors.New("checksum mismatch")
	ErrUploadFinished    = errors.New("upload is already complete")
	ErrInvalidLength     = errors.New("invalid upload length")
	ErrPartialUnfinished = errors.New("a partial upload is not complete")
	ErrUploadLocked      = errors.New("upload is locked by another request")
)

// Resumable is the record of a resumable upload.
type Resumable struct {
	ID     string        `bson:"_id"`
	FileID bson.ObjectID `bson:"fileId"` // _id of the file it becomes; its chunks' files_id
	// Filename is empty for a partial upload, which is only ever joined
	// into another.
	Filename  string `bson:"filename,omitempty"`
	Metadata  bson.D `bson:"metadata,omitempty"`
	ChunkSize int    `bson:"chunkSize"`
	// Length is -1 until the client declares it.
	Length int64 `bson:"length"`
	Offset int64 `bson:"offset"`
	// Hash is the SHA-256 state after Offset bytes (BinaryMarshaler form).
	Hash []byte `bson:"hash"`
	// Partial uploads are joined by ConcatResumable; Parts are the ids a
	// final upload was joined from.
	Partial bool     `bson:"partial,omitempty"`
	Parts   []string `bson:"parts,omitempty"`
	// IfMatch and IfNoneMatch of the creation, checked at the commit.
	IfMatch     string `bson:"ifMatch,omitempty"`
	IfNoneMatch string `bson:"ifNoneMatch,omitempty"`
	// ExpireAt is the file's own expiry (zero: none).
	ExpireAt time.Time `bson:"expireAt,omitempty"`
	// Info belongs to the front door (the tus metadata as sent).
	Info    map[string]string `bson:"info,omitempty"`
	Created time.Time         `bson:"created"`
	// Expires moves forward by Expiry with every append; a finished upload
	// keeps its record until then, so that a client that lost the last
	// reply can still ask for the offset.
	Expires time.Time     `bson:"expires"`
	Expiry  time.Duration `bson:"expiry"`
	// Finished: the file is committed (a partial upload: complete).
	Finished bool `bson:"finished,omitempty"`
	// Writing: an append started and may have stored chunks past Offset.
	Writing bool `bson:"writing,omitempty"`
	// Tail holds the bytes past the last whole chunk below Offset (Offset
	// modulo ChunkSize of them) while the upload is unfinished; nil on a
	// chunk boundary, and in a record written before tails moved here,
	// whose short last chunk is then stored as a chunk.
	Tail []byte `bson:"tail,omitempty"`
	// Pending is set by an append whose record update went to the store
	// while its last chunks were still being inserted (see
	// AppendResumable): if they are not all stored, the upload is at
	// Pending's offset, not at Offset.
	Pending *PendingChunks `bson:"pending,omitempty"`
}

// PendingChunks are the chunks From through Last that an append's record
// update did not wait for, and the offset and hash state before them.
type PendingChunks struct {
	From   int32  `bson:"from"`
	Last   int32  `bson:"last"`
	Offset int64  `bson:"offset"`
	Hash   []byte `bson:"hash"`
}

// ResumableProgress is how many bytes an append stores between two
// records of its offset: what a gateway killed in the middle of a long
// append loses at most (plus the chunks of one insert). An append shorter
// than that records its offset once, at its end.
const ResumableProgress = 16 << 20

// resumableProgress is ResumableProgress, which tests shorten.
var resumableProgress int64 = ResumableProgress

// live returns ErrResumableExpired for an upload whose time is up that the
// sweeper has not removed yet.
func (r *Resumable) live(bucket string) error {
	if time.Now().After(r.Expires) {
		return fmt.Errorf("%w: %q in bucket %s expired at %s", ErrResumableExpired, r.ID, bucket, r.Expires.UTC().Format(time.RFC3339))
	}
	return nil
}

// storedTail reports whether the record keeps its partial last chunk in
// Tail (always, but in a record written before tails moved there).
func (r *Resumable) storedTail() bool { return len(r.Tail) == int(r.Offset%int64(r.ChunkSize)) }

// Complete reports whether every byte is stored.
func (r *Resumable) Complete() bool { return r.Length >= 0 && r.Offset == r.Length }

// ResumableOptions are what a resumable upload is created with.
type ResumableOptions struct {
	// Filename is required unless Partial.
	Filename string
	// Length is the file's length, or -1 when the client declares it later.
	Length  int64
	Partial bool
	// Metadata and ContentType as UploadOptions'.
	Metadata    bson.D
	ContentType string
	ChunkSize   int
	// Conditions are checked now, to fail early, and again atomically
	// when the upload commits (IfMatch and IfNoneMatch only).
	Conditions Conditions
	Info       map[string]string
	// ExpireAt is when the file expires once committed (zero: never).
	ExpireAt time.Time
	// Expiry is how long the upload lives after its last append.
	Expiry time.Duration
}

func (b *Bucket) resumables() *mongo.Collection { return b.db.db.Collection(b.name + ResumableSuffix) }

// CreateResumable records a new resumable upload, checking the name,
// metadata, chunk size and length as OpenUpload would (ErrInvalidFilename,
// ErrInvalidMetadata, ErrInvalidChunkSize, ErrTooLarge, ErrInvalidLength)
// and its conditions against the newest revision of the name
// (ErrPreconditionFailed).
func (b *Bucket) CreateResumable(ctx context.Context, opts ResumableOptions) (*Resumable, error) {
	if !opts.Partial || opts.Filename != "" {
		if err := CheckFilename(opts.Filename); err != nil {
			return nil, err
		}
	}
	if opts.Length < -1 {
		return nil, fmt.Errorf("%w: %d", ErrInvalidLength, opts.Length)
	}
	if err := b.CheckUploadSize(opts.Length); err != nil {
		return nil, err
	}
	if err := b.db.checkSpace(max(opts.Length, 0)); err != nil {
		return nil, err
	}
	if opts.Expiry <= 0 {
		return nil, fmt.Errorf("resumable upload: expiry %s is not positive", opts.Expiry)
	}
	chunkSize := opts.ChunkSize
	if chunkSize == 0 {
		chunkSize = b.ChunkSize()
	}
	if err := chunker.CheckChunkSize(int64(chunkSize)); err != nil {
		return nil, err
	}
	md := opts.Metadata
	if opts.ContentType != "" {
		md = append(withoutKey(md, "contentType"), bson.E{Key: "contentType", Value: opts.ContentType})
	}
	if len(md) > 0 {
		if err := CheckMetadata(md); err != nil {
			return nil, err
		}
	}
	if err := b.checkStored(ctx, nil, md); err != nil {
		return nil, err
	}
	if opts.Filename != "" {
		if err := b.CheckName(ctx, opts.Filename, opts.Conditions); err != nil {
			return nil, err
		}
	}
	var expireAt time.Time
	if !opts.ExpireAt.IsZero() {
		var err error
		if expireAt, err = clampExpiry(opts.ExpireAt); err != nil {
			return nil, err
		}
	}
	if err := b.ensureIndexes(ctx); err != nil {
		return nil, err
	}
	if !expireAt.IsZero() {
		if err := b.ensureExpiryIndexes(ctx); err != nil {
			return nil, err
		}
	}
	state, err := sha256.New().(encoding.BinaryMarshaler).MarshalBinary()
	if err != nil {
		return nil, err
	}
	var rnd [16]byte
	rand.Read(rnd[:])
	now := time.Now().UTC().Truncate(time.Millisecond)
	r := &Resumable{
		ID: hex.EncodeToString(rnd[:]), FileID: bson.NewObjectID(), Filename: opts.Filename, Metadata: md,
		ChunkSize: chunkSize, Length: opts.Length, Hash: state, Partial: opts.Partial,
		IfMatch: opts.Conditions.IfMatch, IfNoneMatch: opts.Conditions.IfNoneMatch, Info: opts.Info, ExpireAt: expireAt,
		Created: now, Expires: now.Add(opts.Expiry), Expiry: opts.Expiry,
	}
	if _, err := b.resumables().InsertOne(ctx, r); err != nil {
		return nil, fmt.Errorf("create resumable upload: %w", full(err))
	}
	return r, nil
}

// Resumable returns the upload with id id. It returns ErrResumableNotFound,
// or ErrResumableExpired for one whose time is up that the sweeper has not
// removed yet.
func (b *Bucket) Resumable(ctx context.Context, id string) (*Resumable, error) {
	r, err := b.record(ctx, id)
	if err != nil {
		return nil, err
	}
	if err := r.live(b.name); err != nil {
		return nil, err
	}
	if r.Pending != nil && !r.Finished {
		if err := b.checkPending(ctx, r); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// record reads the record of upload id as stored, expired or not. It
// returns ErrResumableNotFound.
func (b *Bucket) record(ctx context.Context, id string) (*Resumable, error) {
	var r Resumable
	err := b.resumables().FindOne(ctx, bson.D{{Key: "_id", Value: id}}).Decode(&r)
	if errors.Is(err, mongo.ErrNoDocuments) {
		return nil, fmt.Errorf("%w: %q in bucket %s", ErrResumableNotFound, id, b.name)
	}
	if err != nil {
		return nil, fmt.Errorf("find resumable upload %q: %w", id, err)
	}
	return &r, nil
}

// checkPending makes r's offset the one before r.Pending's chunks when they
// are not all stored: the gateway that recorded the offset died, or could
// not say so, before their insert ended. Callers hold the upload's lock,
// or read an upload nobody appends to.
func (b *Bucket) checkPending(ctx context.Context, r *Resumable) error {
	p := r.Pending
	n, err := b.chunks.CountDocuments(ctx, bson.D{{Key: "files_id", Value: r.FileID},
		{Key: "n", Value: bson.D{{Key: "$gte", Value: p.From}, {Key: "$lte", Value: p.Last}}}})
	if err != nil {
		return fmt.Errorf("resumable upload %q: count the last chunks: %w", r.ID, err)
	}
	if n == int64(p.Last-p.From+1) {
		return nil
	}
	if err := b.fallBack(ctx, r.ID, r.Offset, p); err != nil {
		return err
	}
	r.Offset, r.Hash, r.Tail, r.Writing, r.Pending = p.Offset, p.Hash, nil, true, nil
	return nil
}

// fallBack moves the record of upload id from offset to p's, marked as
// being written, so that the next append removes what may be left past it.
func (b *Bucket) fallBack(ctx context.Context, id string, offset int64, p *PendingChunks) error {
	_, err := updateOne(ctx, b.resumables(), bson.D{{Key: "_id", Value: id}, {Key: "offset", Value: offset}},
		bson.D{{Key: "$set", Value: bson.D{
			{Key: "offset", Value: p.Offset}, {Key: "hash", Value: p.Hash}, {Key: "tail", Value: nil},
			{Key: "writing", Value: true}, {Key: "pending", Value: nil},
		}}})
	if err != nil {
		return fmt.Errorf("resumable upload %q: back to offset %d: %w", id, p.Offset, full(err))
	}
	return nil
}

// DeclareResumableLength sets the length of an upload created without one;
// declaring the length it has already changes nothing. It returns
// ErrInvalidLength (another length declared, or below the offset) or
// ErrTooLarge.
func (b *Bucket) DeclareResumableLength(ctx context.Context, id string, length int64) error {
	r, err := b.Resumable(ctx, id)
	if err != nil {
		return err
	}
	if _, err := b.WithDeclaredLength(r, length); err != nil || r.Length == length {
		return err
	}
	defer b.forgetRecord(id)
	res, err := b.resumables().UpdateOne(ctx, bson.D{{Key: "_id", Value: id}, {Key: "length", Value: int64(-1)}},
		bson.D{{Key: "$set", Value: bson.D{{Key: "length", Value: length}}}})
	if err != nil {
		return fmt.Errorf("declare length of %q: %w", id, full(err))
	}
	if res.MatchedCount == 0 {
		return fmt.Errorf("%w: declared meanwhile", ErrInvalidLength)
	}
	return nil
}

// WithDeclaredLength returns a copy of rec, an upload created without a
// length, with length declared, for AppendResumable to record with the
// offset it appends: a declaration whose append fails (a checksum
// mismatch, a body too long) declares nothing, and the client may send it
// again. Declaring the length the upload has already changes nothing. It
// returns ErrInvalidLength (another length declared, or below the offset)
// or ErrTooLarge, as DeclareResumableLength.
func (b *Bucket) WithDeclaredLength(rec *Resumable, length int64) (*Resumable, error) {
	if rec.Length >= 0 && rec.Length != length || length < rec.Offset {
		return nil, fmt.Errorf("%w: %d (length %d, offset %d)", ErrInvalidLength, length, rec.Length, rec.Offset)
	}
	if err := b.CheckUploadSize(length); err != nil {
		return nil, err
	}
	c := *rec
	c.Length = length
	return &c, nil
}

// AppendOptions check an append.
type AppendOptions struct {
	// Checksum, when set, hashes the appended bytes; unless the sum equals
	// Want, the append returns ErrChecksumMismatch and appends nothing.
	Checksum hash.Hash
	Want     []byte
	// Expect is the number of bytes the client announced, or -1. With a
	// checksum, an append cut short appends nothing: it cannot be verified.
	Expect int64
	// Lock is the upload's lock that the caller holds (LockResumable),
	// when it read rec through it (UploadLock.Resumable). The append then
	// writes nothing before its first chunk unless the record needs a
	// cleanup (see AppendResumable), and leaves the record it wrote in the
	// lock for the next request. Without it, the append marks the record
	// as being written first.
	Lock *UploadLock
}

// AppendResumable appends the content of r to the upload rec at offset,
// which must be the upload's offset (ErrOffsetMismatch), and returns the
// new record. The caller holds the upload's lock (LockResumable) and read
// rec under it (Resumable), so that rec is the truth; its length, when
// declared for this append (WithDeclaredLength), is recorded with the new
// offset, and not at all when the append fails. Bytes past the upload's
// length or its UploadLimit return ErrTooLarge with nothing appended; a
// store short of space, ErrInsufficientStorage. When r ends early (a
// client gone) what arrived stays appended. When the last byte arrives the
// upload commits, as an upload's Commit does (the creation's conditions
// checked atomically: a failed one removes the upload and returns
// ErrPreconditionFailed); the record then says Finished. An append whose
// length is known beforehand (opts.Expect) and that has no checksum
// records its offset every ResumableProgress bytes as it goes.
//
// Chunks past the record's offset (left by an append that failed or was
// cut) are removed before the first chunk is stored, when they may exist:
// when the record says an append was writing, or, with opts.Lock, when
// the lock was taken over from a holder that let it expire (one that died
// in the middle of an append). An append under opts.Lock that fails says
// so in the record (Writing) before its lock is given back, or, if the
// store refuses that too, has its lock expire instead of being given back.
// An append without opts.Lock marks the record as being written before its
// first insert instead.
func (b *Bucket) AppendResumable(ctx context.Context, rec *Resumable, offset int64, r io.Reader, opts AppendOptions) (out *Resumable, err error) {
	id := rec.ID
	if err := rec.live(b.name); err != nil {
		return nil, err
	}
	if rec.Finished {
		return nil, fmt.Errorf("%w: %q", ErrUploadFinished, id)
	}
	if offset != rec.Offset {
		return nil, fmt.Errorf("%w: %d, the upload is at %d", ErrOffsetMismatch, offset, rec.Offset)
	}
	if err := b.db.checkSpace(0); err != nil {
		return nil, err
	}
	lock := opts.Lock
	at := rec.Offset // what the record says as the append goes
	if lock == nil {
		defer b.forgetRecord(rec.ID)
	} else {
		defer func() {
			if err == nil {
				lock.remember(out)
				return
			}
			lock.Forget()
			b.markWriting(ctx, rec.ID, rec.Offset, at, lock)
		}()
	}
	// The cleanup after an append that failed, or the record's writing
	// mark without a lock, goes to the store while the first chunks
	// arrive: the chunk writer's first insert waits for it.
	prepared := make(chan error, 1)
	if lock != nil && !rec.Writing && lock.clean() {
		prepared <- nil
	} else {
		go func() { prepared <- b.prepareAppend(ctx, rec, lock) }()
	}
	ready := sync.OnceValue(func() error { return <-prepared })
	limit := int64(-1)
	if rec.Length >= 0 {
		limit = rec.Length - rec.Offset
	}
	max, maxName := b.UploadLimit()
	if max > 0 && (limit < 0 || max-rec.Offset < limit) {
		limit = max - rec.Offset
	}
	src := r
	if opts.Checksum != nil {
		src = io.TeeReader(src, opts.Checksum)
	}
	if limit >= 0 {
		// One byte more than allowed tells an oversized body from a full one.
		src = io.LimitReader(src, limit+1)
	}
	h := sha256.New()
	if err := h.(encoding.BinaryUnmarshaler).UnmarshalBinary(rec.Hash); err != nil {
		return nil, fmt.Errorf("resumable upload %q: hash state: %w", id, err)
	}
	// Progress may be recorded only where the whole append is sure to be
	// kept: no checksum to verify at its end, and a body that cannot run
	// past the limits.
	progress := opts.Checksum == nil && opts.Expect >= 0 && (limit < 0 || opts.Expect <= limit)
	cs := int64(rec.ChunkSize)
	var done *Resumable
	// pending names the chunks a record update for offset tried did not
	// wait for, once it went out: if they fail, the record goes back.
	var pending *PendingChunks
	var tried int64
	// commit checks what arrived and records the new offset: after the
	// last chunk is stored when the upload completes, else while the last
	// chunks are inserted (end not nil), naming them in the record (see
	// checkPending).
	commit := func(n int64, end *chunker.End) error {
		if err := ready(); err != nil {
			return err
		}
		if limit >= 0 && n > limit {
			if rec.Length >= 0 && rec.Offset+limit == rec.Length {
				return fmt.Errorf("%w: more than the upload's length of %d bytes", ErrTooLarge, rec.Length)
			}
			return tooLarge(rec.Offset+n, max, maxName)
		}
		if opts.Checksum != nil {
			if opts.Expect >= 0 && n != opts.Expect {
				return fmt.Errorf("%w: %d of %d bytes arrived, which cannot be verified", ErrChecksumMismatch, n, opts.Expect)
			}
			if got := opts.Checksum.Sum(nil); string(got) != string(opts.Want) {
				return fmt.Errorf("%w: the body's is %x", ErrChecksumMismatch, got)
			}
		}
		next := *rec
		next.Offset, next.Writing = rec.Offset+n, false
		if end != nil {
			next.Hash, next.Tail = end.Hash, end.Tail
			if int64(end.Last) >= end.Stored/cs {
				next.Pending = &PendingChunks{From: int32(end.Stored / cs), Last: end.Last, Offset: end.Stored, Hash: end.StoredHash}
			}
		} else {
			state, err := h.(encoding.BinaryMarshaler).MarshalBinary()
			if err != nil {
				return err
			}
			next.Hash, next.Tail, next.Pending = state, nil, nil
		}
		next.Expires = time.Now().UTC().Truncate(time.Millisecond).Add(rec.Expiry)
		if next.Complete() {
			if err := b.finishResumable(ctx, &next, h.Sum(nil)); err != nil {
				return err
			}
		}
		// at: the offset the record holds now, this append's progress if
		// any; or already the new one, when a try landed but its reply
		// was lost.
		pending, tried = next.Pending, next.Offset
		res, err := updateOne(ctx, b.resumables(), bson.D{{Key: "_id", Value: id}, {Key: "offset", Value: bson.D{{Key: "$in", Value: bson.A{at, next.Offset}}}}},
			bson.D{{Key: "$set", Value: bson.D{
				{Key: "offset", Value: next.Offset}, {Key: "hash", Value: next.Hash}, {Key: "tail", Value: next.Tail},
				{Key: "writing", Value: false}, {Key: "expires", Value: next.Expires}, {Key: "finished", Value: next.Finished},
				{Key: "pending", Value: next.Pending}, {Key: "length", Value: next.Length},
			}}})
		if err != nil {
			return fmt.Errorf("resumable upload %q: record offset: %w", id, err)
		}
		if res.MatchedCount == 0 {
			return fmt.Errorf("%w: the upload moved on or went away meanwhile", ErrOffsetMismatch)
		}
		done = &next
		return nil
	}
	commitErr, err := b.appendChunks(ctx, rec, src, h, progress, ready, &at, commit)
	if err != nil && pending != nil {
		// The last chunks failed while the record may say they are stored.
		if ferr := b.fallBack(context.WithoutCancel(ctx), id, tried, pending); ferr != nil && lock != nil {
			lock.keepUntilExpiry()
		}
	}
	if err != nil {
		if perr := ready(); perr != nil {
			return nil, perr
		}
		return nil, fmt.Errorf("resumable upload %q: %w", id, full(err))
	}
	if commitErr != nil {
		return nil, commitErr
	}
	return done, nil
}

// markWriting says in the record of an append under lock that failed that
// chunks past its offset may be left, for the next append to remove; when
// the store refuses, the lock is left to expire instead (see
// AppendResumable). A record that moved on or went away needs nothing.
func (b *Bucket) markWriting(ctx context.Context, id string, from, at int64, lock *UploadLock) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), CommitTimeout)
	defer cancel()
	_, err := updateOne(ctx, b.resumables(), bson.D{{Key: "_id", Value: id}, {Key: "offset", Value: bson.D{{Key: "$in", Value: bson.A{from, at}}}}},
		bson.D{{Key: "$set", Value: bson.D{{Key: "writing", Value: true}}}})
	if err != nil {
		lock.keepUntilExpiry()
	}
}

// prepareAppend removes what an earlier append left past the offset, when
// the record says one was writing or lock (when not nil) was taken from a
// holder that let it expire. Without a lock it marks the record as being
// written, so that the next append cleans up after this one if it fails
// or its gateway dies.
func (b *Bucket) prepareAppend(ctx context.Context, rec *Resumable, lock *UploadLock) error {
	if !rec.Writing && lock == nil {
		res, err := updateOne(ctx, b.resumables(), bson.D{{Key: "_id", Value: rec.ID}, {Key: "offset", Value: rec.Offset}},
			bson.D{{Key: "$set", Value: bson.D{{Key: "writing", Value: true}}}})
		if err != nil {
			return fmt.Errorf("resumable upload %q: %w", rec.ID, full(err))
		}
		if res.MatchedCount == 0 {
			return fmt.Errorf("%w: the upload moved on or went away meanwhile", ErrOffsetMismatch)
		}
		return nil
	}
	// An append whose commit landed but whose record update did not: the
	// chunks past the offset are the file's. The length is the file's: one
	// declared with that append was to be recorded by that update.
	if f, err := b.stat(ctx, rec.FileID); err == nil {
		b.resumables().UpdateOne(ctx, bson.D{{Key: "_id", Value: rec.ID}}, bson.D{{Key: "$set", Value: bson.D{
			{Key: "offset", Value: f.Length}, {Key: "length", Value: f.Length}, {Key: "finished", Value: true},
			{Key: "writing", Value: false}, {Key: "tail", Value: nil},
		}}})
		return fmt.Errorf("%w: the upload completed meanwhile", ErrOffsetMismatch)
	}
	first := rec.Offset / int64(rec.ChunkSize)
	if !rec.storedTail() {
		first++ // the short last chunk stays: its first bytes count
	}
	_, err := b.chunks.DeleteMany(ctx, bson.D{{Key: "files_id", Value: rec.FileID}, {Key: "n", Value: bson.D{{Key: "$gte", Value: int32(first)}}}})
	b.db.cache.Invalidate(b.chunks, rec.FileID) // chunks that go (see cache.go)
	if err != nil {
		return fmt.Errorf("resumable upload %q: remove chunks past the offset: %w", rec.ID, full(err))
	}
	if lock != nil {
		lock.setTrusted()
	}
	return nil
}

// appendChunks stores src after rec.Offset, adding its bytes to h, and
// calls commit with how many bytes it took: after the last insert when the
// upload completes, else alongside it with where the content ends (see
// chunker.Writer.CloseWholeWith). It returns commit's error, if it was
// called, and the chunks' error. The record's tail starts the first chunk;
// with progress, the record's offset moves as batches of whole chunks are
// stored, and *at with it.
func (b *Bucket) appendChunks(ctx context.Context, rec *Resumable, src io.Reader, h hash.Hash, progress bool, ready func() error,
	at *int64, commit func(n int64, end *chunker.End) error) (commitErr, err error) {
	cs := int64(rec.ChunkSize)
	k, p := rec.Offset/cs, rec.Offset%cs
	var head []byte
	var n int64
	switch {
	case p > 0 && rec.storedTail():
		head = rec.Tail
	case p > 0:
		// A record written before tails moved into it: its short last
		// chunk is completed in place.
		if err := ready(); err != nil {
			return nil, err
		}
		m, err := b.completeStoredChunk(ctx, rec, src, h)
		if err != nil {
			return nil, err
		}
		if p+m < cs {
			// The body ended inside the chunk.
			return commit(m, nil), nil
		}
		n = m
		k++
	}
	opts := chunker.WriterOptions{
		ChunkSize: rec.ChunkSize, FirstChunk: int32(k), Offset: k * cs,
		// The store is idle from the end of one append to the first
		// insert of the next: a first batch of one chunk shortens that.
		FirstBatchBytes: rec.ChunkSize,
		Hash:            &skipHash{Hash: h, skip: len(head)}, Ready: ready,
	}
	if progress {
		// Called in order, one at a time; read below once the writer is
		// closed (which waits for the last call).
		opts.Stored = func(length int64, state []byte) error {
			if length-*at < resumableProgress || rec.Length >= 0 && length >= rec.Length {
				return nil // the end is recorded by the append itself
			}
			// Matching the new offset too makes a try that landed but
			// whose reply was lost land again, the same (see updateOne):
			// reported as failed, its chunks would go with the abort.
			res, err := updateOne(context.WithoutCancel(ctx), b.resumables(), bson.D{{Key: "_id", Value: rec.ID}, {Key: "offset", Value: bson.D{{Key: "$in", Value: bson.A{*at, length}}}}},
				bson.D{{Key: "$set", Value: bson.D{
					{Key: "offset", Value: length}, {Key: "hash", Value: state}, {Key: "tail", Value: nil},
					// An upload in one long append lives on while it stores.
					{Key: "expires", Value: time.Now().UTC().Truncate(time.Millisecond).Add(rec.Expiry)},
				}}})
			if err == nil && res.MatchedCount == 0 {
				err = fmt.Errorf("%w: the upload moved on or went away meanwhile", ErrOffsetMismatch)
			}
			if err != nil {
				return fmt.Errorf("record progress: %w", full(err))
			}
			*at = length
			return nil
		}
	}
	w, err := b.newChunkWriter(ctx, rec.FileID, opts)
	if err != nil {
		return nil, err
	}
	if len(head) > 0 {
		if _, err := w.Write(head); err != nil {
			w.Abort()
			return nil, err
		}
	}
	m, err := w.ReadFrom(b.db.guardSpace(src))
	if err != nil {
		w.Abort()
		return nil, full(err)
	}
	if rec.Length >= 0 && rec.Offset+n+m >= rec.Length {
		// The last chunk is stored short, as a file's is, before the
		// upload commits.
		if err := w.Close(); err != nil {
			w.Abort()
			return nil, full(err)
		}
		return commit(n+m, nil), nil
	}
	// The record can fall back only to an offset whose hash state it
	// knows: not to one inside the record's tail (see End.Stored).
	commitErr, err = w.CloseWholeWith(rec.Offset, func(end chunker.End) error {
		return commit(n+m, &end)
	})
	if err != nil {
		return commitErr, full(err)
	}
	return commitErr, nil
}

// completeStoredChunk appends src to the short last chunk of rec stored as
// a chunk (by a gateway from before tails moved into the record), in one
// update of its document, and returns how many bytes it took.
func (b *Bucket) completeStoredChunk(ctx context.Context, rec *Resumable, src io.Reader, h hash.Hash) (int64, error) {
	cs := int64(rec.ChunkSize)
	k, p := rec.Offset/cs, rec.Offset%cs
	var chunk struct {
		Data []byte `bson:"data"`
	}
	err := b.chunks.FindOne(ctx, bson.D{{Key: "files_id", Value: rec.FileID}, {Key: "n", Value: int32(k)}}).Decode(&chunk)
	if err == nil && int64(len(chunk.Data)) < p {
		err = fmt.Errorf("it holds %d bytes", len(chunk.Data))
	}
	if err != nil {
		return 0, fmt.Errorf("%w: chunk %d: %w", ErrChunksLost, k, err)
	}
	buf := make([]byte, cs)
	copy(buf, chunk.Data[:p])
	m, err := io.ReadFull(src, buf[p:])
	if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
		return 0, err
	}
	if m == 0 {
		return 0, nil
	}
	h.Write(buf[p : p+int64(m)])
	_, err = updateOne(ctx, b.chunks, bson.D{{Key: "files_id", Value: rec.FileID}, {Key: "n", Value: int32(k)}},
		bson.D{{Key: "$set", Value: bson.D{{Key: "data", Value: buf[:p+int64(m)]}}}})
	if err != nil {
		return 0, fmt.Errorf("complete chunk %d: %w", k, full(err))
	}
	return int64(m), nil
}

// skipHash is a hash that leaves out the first skip bytes written to it:
// the record's tail, already in the hash's state, goes through the chunk
// writer again to start the first chunk.
type skipHash struct {
	hash.Hash
	skip int
}

func (s *skipHash) Write(p []byte) (int, error) {
	k := min(s.skip, len(p))
	s.skip -= k
	s.Hash.Write(p[k:])
	return len(p), nil
}

func (s *skipHash) MarshalBinary() ([]byte, error) {
	return s.Hash.(encoding.BinaryMarshaler).MarshalBinary()
}

// storeTail stores the record's tail as the upload's short last chunk, when
// it is complete without another append (its length declared at its offset).
func (b *Bucket) storeTail(ctx context.Context, rec *Resumable) error {
	if len(rec.Tail) == 0 || !rec.storedTail() {
		return nil
	}
	k := rec.Offset / int64(rec.ChunkSize)
	// A chunk left by an earlier try goes first.
	if _, err := b.chunks.DeleteMany(ctx, bson.D{{Key: "files_id", Value: rec.FileID}, {Key: "n", Value: bson.D{{Key: "$gte", Value: int32(k)}}}}); err != nil {
		return fmt.Errorf("resumable upload %q: %w", rec.ID, full(err))
	}
	b.db.cache.Invalidate(b.chunks, rec.FileID)
	if _, err := b.chunks.InsertOne(ctx, bson.D{{Key: "_id", Value: bson.NewObjectID()}, {Key: "files_id", Value: rec.FileID},
		{Key: "n", Value: int32(k)}, {Key: "data", Value: bson.Binary{Data: rec.Tail}}}); err != nil {
		return fmt.Errorf("resumable upload %q: store the last chunk: %w", rec.ID, full(err))
	}
	return nil
}

// FinishResumable commits an upload whose every byte is stored but that is
// not committed yet (a zero-length upload, or one whose length was declared
// at its offset), and returns the record.
func (b *Bucket) FinishResumable(ctx context.Context, id string) (*Resumable, error) {
	rec, err := b.Resumable(ctx, id)
	if err != nil || rec.Finished || !rec.Complete() {
		return rec, err
	}
	h := sha256.New()
	if err := h.(encoding.BinaryUnmarshaler).UnmarshalBinary(rec.Hash); err != nil {
		return nil, fmt.Errorf("resumable upload %q: hash state: %w", id, err)
	}
	defer b.forgetRecord(id)
	if err := b.storeTail(ctx, rec); err != nil {
		return nil, err
	}
	if err := b.finishResumable(ctx, rec, h.Sum(nil)); err != nil {
		return nil, err
	}
	rec.Tail = nil
	if _, err := b.resumables().UpdateOne(ctx, bson.D{{Key: "_id", Value: id}},
		bson.D{{Key: "$set", Value: bson.D{{Key: "finished", Value: true}, {Key: "tail", Value: nil}}}}); err != nil {
		return nil, fmt.Errorf("resumable upload %q: %w", id, full(err))
	}
	return rec, nil
}

// finishResumable commits rec, whose bytes are all stored, through the
// commit protocol, and marks it Finished. A partial upload only becomes
// complete. A commit that fails for good (a failed condition, lost chunks)
// removes the upload with its chunks.
func (b *Bucket) finishResumable(ctx context.Context, rec *Resumable, sum []byte) error {
	return b.commitResumable(ctx, rec, sum, func(err error) error {
		b.removeResumable(context.WithoutCancel(ctx), rec)
		return err
	})
}

// commitResumable is finishResumable with abort instead of removing the
// upload when the commit fails for good.
func (b *Bucket) commitResumable(ctx context.Context, rec *Resumable, sum []byte, abort func(error) error) error {
	if rec.Partial {
		rec.Finished = true
		return nil
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), CommitTimeout)
	defer cancel()
	_, replaced, replaceErr, err := b.commitFile(ctx, pendingFile{
		id: rec.FileID, filename: rec.Filename, metadata: rec.Metadata,
		length: rec.Length, chunkSize: rec.ChunkSize, sha256: sum, expireAt: rec.ExpireAt,
		cond: Conditions{IfMatch: rec.IfMatch, IfNoneMatch: rec.IfNoneMatch}, replace: true,
		abort: abort,
	})
	if err != nil {
		return fmt.Errorf("resumable upload %q: %w", rec.ID, full(err))
	}
	if replaced != nil && replaceErr == nil {
		b.removeChunksOf(ctx, replaced.ID)
	}
	rec.Finished = true
	return nil
}

// TerminateResumable removes the upload: its record, then its chunks
// unless it became a file.
func (b *Bucket) TerminateResumable(ctx context.Context, id string) error {
	rec, err := b.Resumable(ctx, id)
	if err != nil {
		return err
	}
	return b.removeResumable(context.WithoutCancel(ctx), rec)
}

// removeResumable deletes the record first, so that no append lands after
// it (the appends' record updates name the offset), then the chunks unless
// the upload committed.
func (b *Bucket) removeResumable(ctx context.Context, rec *Resumable) error {
	defer b.forgetRecord(rec.ID)
	if _, err := b.resumables().DeleteOne(ctx, bson.D{{Key: "_id", Value: rec.ID}}); err != nil {
		return fmt.Errorf("remove resumable upload %q: %w", rec.ID, full(err))
	}
	if rec.Finished && !rec.Partial {
		return nil
	}
	if _, err := b.stat(ctx, rec.FileID); err == nil {
		return nil // committed after all
	}
	return b.removeChunksOf(ctx, rec.FileID)
}

// ConcatResumable joins the complete partial uploads parts, in order, into
// the final upload final (created with their total length) and commits it.
// When every part but the last is a multiple of the chunk size and all
// share it, their chunks are relabelled (no data is copied; only read once
// for the SHA-256); otherwise, or when a part is named twice, their
// content is copied. The parts are removed once the final upload is
// committed; a join that fails leaves them as they were. It returns
// ErrPartialUnfinished or ErrInvalidPart having changed nothing, and
// ErrUploadLocked when a request kept a part busy for joinLockWait.
func (b *Bucket) ConcatResumable(ctx context.Context, final string, parts []string) (*Resumable, error) {
	rec, err := b.Resumable(ctx, final)
	if err != nil {
		return nil, err
	}
	// Each part is locked while it is joined: two joins of one part (a
	// client that tried again) would otherwise both move its chunks, and
	// the sweeper could remove it meanwhile.
	ids := slices.Sorted(slices.Values(parts)) // one order: no two joins wait for each other
	ids = slices.Compact(ids)
	lctx, cancel := context.WithTimeout(ctx, joinLockWait)
	defer cancel()
	for _, id := range ids {
		l, err := b.waitLockResumable(lctx, id)
		if err != nil {
			return nil, err
		}
		defer l.Unlock()
	}
	recs := make([]*Resumable, len(parts))
	var total int64
	for i, id := range parts {
		p, err := b.Resumable(ctx, id)
		if errors.Is(err, ErrResumableNotFound) || errors.Is(err, ErrResumableExpired) {
			return nil, fmt.Errorf("%w: %w", ErrInvalidPart, err)
		}
		if err != nil {
			return nil, err
		}
		if !p.Partial {
			return nil, fmt.Errorf("%w: %q is not a partial upload", ErrInvalidPart, id)
		}
		if !p.Complete() {
			return nil, fmt.Errorf("%w: %q", ErrPartialUnfinished, id)
		}
		recs[i] = p
		total += p.Length
	}
	if err := b.CheckUploadSize(total); err != nil {
		return nil, err
	}
	if total != rec.Length {
		return nil, fmt.Errorf("%w: the parts hold %d bytes, the upload %d", ErrInvalidLength, total, rec.Length)
	}
	// A part's chunks move once: a part named twice is copied.
	aligned := len(ids) == len(parts)
	for i, p := range recs {
		if p.ChunkSize != recs[0].ChunkSize || i < len(recs)-1 && p.Length%int64(p.ChunkSize) != 0 {
			aligned = false
		}
	}
	wctx := context.WithoutCancel(ctx)
	defer b.forgetRecord(final)
	h := sha256.New()
	abort := func(err error) error {
		b.removeResumable(wctx, rec)
		return err
	}
	if aligned && len(recs) > 0 {
		rec.ChunkSize = recs[0].ChunkSize
		// The SHA-256 of the whole is read before anything moves.
		for _, p := range recs {
			if err := b.readInto(ctx, h, p); err != nil {
				return nil, err
			}
		}
		j := &join{b: b, final: rec.FileID}
		for _, p := range recs {
			if err := j.move(wctx, p); err != nil {
				return nil, j.undo(wctx, fmt.Errorf("concatenate: move chunks of %q: %w", p.ID, full(err)))
			}
		}
		// The final upload's chunks are the parts' own until it commits:
		// a commit that fails gives them back before the upload goes.
		abort = func(err error) error {
			if err := j.undo(wctx, err); errors.Is(err, errNotGivenBack) {
				return err // what the final upload holds stays with it
			}
			b.removeResumable(wctx, rec)
			return err
		}
	} else {
		w, err := b.newChunkWriter(ctx, rec.FileID, chunker.WriterOptions{ChunkSize: rec.ChunkSize, Hash: h})
		if err != nil {
			return nil, err
		}
		for _, p := range recs {
			if err = b.readInto(ctx, w, p); err != nil {
				break
			}
		}
		if err == nil {
			err = w.Close()
		}
		if err != nil {
			w.Abort()
			return nil, fmt.Errorf("concatenate: %w", full(err))
		}
	}
	state, err := h.(encoding.BinaryMarshaler).MarshalBinary()
	if err != nil {
		return nil, abort(err)
	}
	rec.Offset, rec.Hash, rec.Parts = total, state, parts
	if err := b.commitResumable(wctx, rec, h.Sum(nil), abort); err != nil {
		return nil, err
	}
	if _, err := b.resumables().UpdateOne(wctx, bson.D{{Key: "_id", Value: final}}, bson.D{{Key: "$set", Value: bson.D{
		{Key: "offset", Value: total}, {Key: "hash", Value: state}, {Key: "chunkSize", Value: rec.ChunkSize},
		{Key: "parts", Value: parts}, {Key: "finished", Value: true},
	}}}); err != nil {
		return nil, fmt.Errorf("concatenate: %w", full(err))
	}
	for _, id := range ids {
		for _, p := range recs {
			if p.ID == id {
				b.removeResumable(wctx, p)
				break
			}
		}
	}
	return rec, nil
}

// joinLockWait bounds how long a join waits for a request that holds one
// of its parts (an append still storing a part's last bytes).
const joinLockWait = 10 * time.Second

// errNotGivenBack: a join's moved chunks could not be given back to their
// parts.
var errNotGivenBack = errors.New("the parts' chunks could not be given back")

// join relabels the chunks of partial uploads as the final upload's, in
// order, and can give them back.
type join struct {
	b     *Bucket
	final bson.ObjectID
	moved []*Resumable // the parts whose chunks moved, in order
	n     int64        // the bytes moved
}

func (j *join) move(ctx context.Context, p *Resumable) error {
	first := int32(j.n / int64(p.ChunkSize))
	_, err := j.b.chunks.UpdateMany(ctx, bson.D{{Key: "files_id", Value: p.FileID}}, bson.D{
		{Key: "$set", Value: bson.D{{Key: "files_id", Value: j.final}}},
		{Key: "$inc", Value: bson.D{{Key: "n", Value: first}}},
	})
	j.b.db.cache.Invalidate(j.b.chunks, p.FileID) // chunks that move (see cache.go)
	j.b.db.cache.Invalidate(j.b.chunks, j.final)
	// An UpdateMany that failed may have moved some: giving back covers
	// them as well.
	j.moved = append(j.moved, p)
	j.n += p.Length
	return err
}

// undo gives the moved chunks back to their parts and returns err, with
// errNotGivenBack when the store refused.
func (j *join) undo(ctx context.Context, err error) error {
	var n int64
	for _, p := range j.moved {
		first := int32(n / int64(p.ChunkSize))
		last := first + int32((p.Length+int64(p.ChunkSize)-1)/int64(p.ChunkSize))
		_, uerr := j.b.chunks.UpdateMany(ctx, bson.D{
			{Key: "files_id", Value: j.final}, {Key: "n", Value: bson.D{{Key: "$gte", Value: first}, {Key: "$lt", Value: last}}},
		}, bson.D{
			{Key: "$set", Value: bson.D{{Key: "files_id", Value: p.FileID}}},
			{Key: "$inc", Value: bson.D{{Key: "n", Value: -first}}},
		})
		j.b.db.cache.Invalidate(j.b.chunks, p.FileID)
		j.b.db.cache.Invalidate(j.b.chunks, j.final)
		if uerr != nil {
			return fmt.Errorf("%w (%w: %w)", err, errNotGivenBack, full(uerr))
		}
		n += p.Length
	}
	j.moved = nil
	return err
}

// forgetRecord makes a lock of this process on the upload id, if any, read
// its record from the store again (see UploadLock.Resumable): for every
// change of the record but an append under that lock.
func (b *Bucket) forgetRecord(id string) {
	if l := b.db.locks.get(uploadLockKey(b.name, id)); l != nil {
		l.Forget()
	}
}

// readInto copies the stored content of the complete upload p into w.
func (b *Bucket) readInto(ctx context.Context, w io.Writer, p *Resumable) error {
	if p.Length == 0 {
		return nil
	}
	r, err := chunker.NewReader(ctx, b.chunks, chunker.File{ID: p.FileID, Length: p.Length, ChunkSize: p.ChunkSize})
	if err != nil {
		return err
	}
	defer r.Close()
	if _, err := io.Copy(w, r); err != nil {
		return fmt.Errorf("read %q: %w", p.ID, err)
	}
	return nil
}

// SweepResumable removes the uploads of this bucket whose time is up, with
// the chunks of those that did not become files, and returns how many
// unfinished ones it removed.
func (b *Bucket) SweepResumable(ctx context.Context) (int, error) {
	cur, err := b.resumables().Find(ctx, bson.D{{Key: "expires", Value: bson.D{{Key: "$lt", Value: time.Now()}}}})
	if err != nil {
		return 0, fmt.Errorf("sweep resumable uploads: %w", err)
	}
	var old []Resumable
	if err := cur.All(ctx, &old); err != nil {
		return 0, fmt.Errorf("sweep resumable uploads: %w", err)
	}
	n := 0
	for i := range old {
		gone, err := b.removeIdle(ctx, old[i].ID, func(r *Resumable) bool { return time.Now().After(r.Expires) })
		if err != nil {
			return n, err
		}
		if gone != nil && (!gone.Finished || gone.Partial) {
			n++
		}
	}
	return n, nil
}

// removeIdle removes upload id, as removeResumable does, if no request
// holds its lock and, read again under the lock, remove says it should
// go; it returns the record removed, or nil. A sweeper's list is old by
// the time it gets to an upload: an append may have renewed it since, or
// be storing its bytes or committing it now.
func (b *Bucket) removeIdle(ctx context.Context, id string, remove func(*Resumable) bool) (*Resumable, error) {
	l, ok, err := b.tryLockResumable(ctx, id)
	if err != nil || !ok {
		return nil, err
	}
	defer l.Unlock()
	rec, err := b.record(ctx, id)
	if errors.Is(err, ErrResumableNotFound) || err == nil && !remove(rec) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if err := b.removeResumable(ctx, rec); err != nil {
		return nil, err
	}
	return rec, nil
}

// resumableIDs are the files_ids of this bucket's resumable uploads: the
// orphan sweeper leaves their chunks alone however old they are.
func (b *Bucket) resumableIDs(ctx context.Context) ([]bson.RawValue, error) {
	cur, err := b.resumables().Find(ctx, bson.D{}, options.Find().SetProjection(bson.D{{Key: "fileId", Value: 1}}))
	if err != nil {
		return nil, fmt.Errorf("list resumable uploads: %w", err)
	}
	var ids []bson.RawValue
	err = eachRaw(ctx, cur, func(doc bson.Raw) error {
		ids = append(ids, doc.Lookup("fileId"))
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list resumable uploads: %w", err)
	}
	return ids, nil
}

// updateAttempts bounds updateOne's tries.
const updateAttempts = 4

// updateOne is UpdateOne tried again, a few times, when the store refuses
// it for a moment (SQLITE_BUSY from the embedded store, a connection
// lost). The retries are for availability only: without them the append
// fails, the record keeps the offset it had, and the next append removes
// what this one stored past it. Each update it serves sets values that do
// not depend on the document's own, so that one applied twice is applied
// once; those conditional on the offset also match the offset they set,
// so that a try that landed but whose reply was lost matches again rather
// than reporting a failure for what happened (the progress records and
// the last record of an append), or they report an offset mismatch that
// the client resolves by asking the offset (the writing mark cannot land
// twice differently).
func updateOne(ctx context.Context, coll *mongo.Collection, filter, update bson.D) (*mongo.UpdateResult, error) {
	wait := 20 * time.Millisecond
	for attempt := 1; ; attempt++ {
		res, err := coll.UpdateOne(ctx, filter, update)
		if err == nil || attempt == updateAttempts || ctxEnded(ctx, err) || mongo.IsDuplicateKeyError(err) {
			return res, err
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return res, err
		case <-t.C:
		}
		wait *= 2
	}
}
