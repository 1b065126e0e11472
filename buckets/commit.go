package buckets

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/gridfsd/gridfsd/chunker"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/bson"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/mongo"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/mongo/options"
)

// LeasesCollection holds the leases of names being written.
const LeasesCollection = "_gridfsd_leases"

var (
	// CommitTimeout bounds writing a files document (and the reads and
	// lease around it), so a stuck store never hangs a commit or shutdown.
	CommitTimeout = 30 * time.Second
	// LeaseTTL is how long a lease outlives a holder that died holding it.
	LeaseTTL = 2 * CommitTimeout
	// DeleteTimeout bounds the removal of a replaced revision's chunks, or
	// of a deleted file's (dropChunks).
	DeleteTimeout = 30 * time.Second
)

// ErrChunksLost means the chunks of an upload were removed before its
// files document was written (by a sweeper, fsck --repair or a bucket drop
// on another gateway during a slow upload): nothing was stored.
var ErrChunksLost = errors.New("the upload's chunks were removed before it committed")

// lease is held on one name of one bucket.
type lease struct {
	coll   *mongo.Collection
	id     string
	holder bson.ObjectID
}

// leases are held on several names at once, taken in the order of their
// ids so that two writers never wait for each other.
type leases []*lease

func (b *Bucket) leaseColl() *mongo.Collection { return b.db.db.Collection(LeasesCollection) }

// leaseID is a fixed-size key for any name: names may be long.
func leaseID(bucket, filename string) string {
	sum := sha256.Sum256([]byte(bucket + "\x00" + filename))
	return hex.EncodeToString(sum[:])
}

// acquireLeases takes the leases on names (duplicates count once),
// waiting while other writers hold them, until ctx ends.
func (b *Bucket) acquireLeases(ctx context.Context, names ...string) (leases, error) {
	byID := map[string]string{}
	for _, n := range names {
		byID[leaseID(b.name, n)] = n
	}
	ids := slices.Sorted(maps.Keys(byID))
	var held leases
	for _, id := range ids {
		l, err := b.acquireLease(ctx, id, byID[id])
		if err != nil {
			held.release(ctx)
			return nil, err
		}
		held = append(held, l)
	}
	if err := b.checkNotDropping(ctx); err != nil {
		held.release(ctx)
		return nil, err
	}
	return held, nil
}

// dropFenceID is the lease a bucket's drop holds: no write of a name
// starts under it (see DB.Drop).
func dropFenceID(bucket string) string { return "drop\x00" + bucket }

// checkNotDropping returns ErrBucketDropping while a drop of the bucket
// holds its fence. A writer checks it under its names' leases, which the
// drop waits for: a write either sees the fence or ends before the drop
// looks at the bucket.
func (b *Bucket) checkNotDropping(ctx context.Context) error {
	err := b.leaseColl().FindOne(ctx, bson.D{
		{Key: "_id", Value: dropFenceID(b.name)}, {Key: "expires", Value: bson.D{{Key: "$gt", Value: bson.NewDateTimeFromTime(time.Now())}}},
	}, findOneID()).Err()
	switch {
	case errors.Is(err, mongo.ErrNoDocuments):
		return nil
	case err != nil:
		return fmt.Errorf("check bucket %s: %w", b.name, full(err))
	}
	return fmt.Errorf("%w: %s", ErrBucketDropping, b.name)
}

func (b *Bucket) acquireLease(ctx context.Context, id, filename string) (*lease, error) {
	l := &lease{coll: b.leaseColl(), id: id, holder: bson.NewObjectID()}
	wait := time.Millisecond
	for {
		expires := bson.NewDateTimeFromTime(time.Now().Add(LeaseTTL))
		_, err := l.coll.InsertOne(ctx, bson.D{
			{Key: "_id", Value: l.id}, {Key: "holder", Value: l.holder}, {Key: "expires", Value: expires},
			{Key: "bucket", Value: b.name}, {Key: "filename", Value: filename},
		})
		if err == nil {
			return l, nil
		}
		if !mongo.IsDuplicateKeyError(err) {
			return nil, fmt.Errorf("lease %q: %w", filename, full(err))
		}
		// Held: take it over only if its holder let it expire.
		res, err := l.coll.UpdateOne(ctx,
			bson.D{{Key: "_id", Value: l.id}, {Key: "expires", Value: bson.D{{Key: "$lt", Value: bson.NewDateTimeFromTime(time.Now())}}}},
			bson.D{{Key: "$set", Value: bson.D{{Key: "holder", Value: l.holder}, {Key: "expires", Value: expires}}}})
		if err != nil {
			return nil, fmt.Errorf("lease %q: %w", filename, full(err))
		}
		if res.MatchedCount == 1 {
			return l, nil
		}
		// Jittered so that waiters do not poll in step.
		t := time.NewTimer(wait/2 + rand.N(wait))
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, fmt.Errorf("lease %q: waiting for another writer: %w", filename, ctx.Err())
		case <-t.C:
		}
		wait = min(2*wait, 50*time.Millisecond)
	}
}

// release gives the leases back, unless another writer took one over.
func (ls leases) release(ctx context.Context) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), CommitTimeout)
	defer cancel()
	for _, l := range ls {
		// A failure leaves the lease to expire: it delays the next
		// writer, it does not break anything.
		l.coll.DeleteOne(ctx, bson.D{{Key: "_id", Value: l.id}, {Key: "holder", Value: l.holder}})
	}
}

// after is the upload date of a revision that follows cur (nil: none):
// now, or later than cur whatever the clocks of the gateways.
func after(cur *File) time.Time {
	date := time.Now()
	if cur != nil && !date.After(cur.UploadDate) {
		date = cur.UploadDate.Add(time.Millisecond)
	}
	return date
}

// newest is the newest revision of name, or nil when there is none.
// A deleted name (see versioning.go) has none.
func (b *Bucket) newest(ctx context.Context, name string) (*File, error) {
	cur, _, err := b.newestRevisions(ctx, name)
	return cur, err
}

// CheckName evaluates cond against the newest revision of name without
// writing anything: front doors call it before receiving a body, so that a
// request bound to fail does not upload first. The commit checks again.
func (b *Bucket) CheckName(ctx context.Context, name string, cond Conditions) error {
	if !cond.Any() {
		return nil
	}
	cur, err := b.newest(ctx, name)
	if err != nil {
		return err
	}
	return cond.Check(cur)
}

// Commit writes the last chunks and then the files document, which makes the
// file visible. It holds the name's lease while it checks any
// UploadOptions.Conditions against the newest revision and commits (see the
// commit protocol in doc.go). Before the files document is written it counts
// the chunks, so a file whose chunks another process removed is never
// published (ErrChunksLost). On failure nothing remains stored; an _id that
// is taken returns ErrFileExists, a failed condition ErrPreconditionFailed.
// The commit runs on a context of its own, bounded by CommitTimeout, so
// that a client going away at the last moment does not leave it half done.
func (u *Upload) Commit() (*File, error) {
	if u.done {
		return nil, chunker.ErrClosed
	}
	u.done, u.committing = true, true
	if err := u.w.Close(); err != nil {
		if u.md5 != nil {
			u.md5.Close()
		}
		return nil, fmt.Errorf("upload %q: %w", u.filename, full(err))
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(u.ctx), CommitTimeout)
	defer cancel()
	f, err := u.commit(ctx)
	if err != nil {
		return nil, fmt.Errorf("upload %q: %w", u.filename, full(err))
	}
	u.committed = true
	if u.replaced != nil && u.replaceErr == nil {
		// The lease is given back: removing a large file's chunks takes
		// a while and nobody sees them any more.
		dctx, cancel := context.WithTimeout(context.WithoutCancel(u.ctx), DeleteTimeout)
		defer cancel()
		if _, err := u.b.deleteChunks(dctx, u.replaced.ID); err != nil {
			u.replaceErr = err
		}
	}
	return f, nil
}

// removeFilesDoc removes f's files document (its chunks stay for the
// caller), whatever version it is now, if it still has f's name: the
// caller holds that name's lease. Else it returns errRenamed and the file
// stays.
func (b *Bucket) removeFilesDoc(ctx context.Context, f *File) error {
	res, err := b.files.DeleteOne(ctx, named(f.ID, f.Filename))
	if err != nil {
		return fmt.Errorf("delete replaced file %v: %w", f.ID, full(err))
	}
	if res.DeletedCount == 0 {
		return fmt.Errorf("delete replaced file %v: %w", f.ID, errRenamed)
	}
	return nil
}

// errRenamed is a files document that a write under its name's lease no
// longer finds under that name: a folder's move, which takes no lease
// (RenamePrefix), renamed it meanwhile, or another client removed it.
var errRenamed = errors.New("no longer under that name")

// named is the filter of the files document with _id id while it is named
// name. Every delete of a document found by name, under the name's lease,
// filters on the name too: a folder's move takes no lease (RenamePrefix:
// leases for 50,000 names would cost two writes each), so without it a
// delete that listed a file before the move removed the moved file.
func named(id any, name string) bson.D {
	return bson.D{{Key: "_id", Value: id}, {Key: "filename", Value: name}}
}

// removeNamed removes the files documents of ids that are still named name
// and returns the ids of those gone, whose chunks the caller drops. A file
// moved since it was listed (see named) stays, chunks and all; so does
// every one when the store cannot say which are gone.
func (b *Bucket) removeNamed(ctx context.Context, name string, ids []any) ([]any, error) {
	filter := bson.D{{Key: "_id", Value: bson.D{{Key: "$in", Value: ids}}}, {Key: "filename", Value: name}}
	res, err := b.files.DeleteMany(ctx, filter)
	if err != nil {
		return nil, full(err)
	}
	if res.DeletedCount == int64(len(ids)) {
		return ids, nil
	}
	present, err := b.present(ctx, ids)
	if err != nil {
		return nil, err
	}
	var gone []any
	for _, id := range ids {
		if !present(id) {
			gone = append(gone, id)
		}
	}
	return gone, nil
}

// present reads which of ids have a files document, under any name, and
// returns the answer as a test of one id (true for an id it cannot
// encode: what is not known gone stays).
func (b *Bucket) present(ctx context.Context, ids []any) (func(id any) bool, error) {
	cur, err := b.files.Find(ctx, bson.D{{Key: "_id", Value: bson.D{{Key: "$in", Value: ids}}}}, options.Find().SetProjection(bson.D{{Key: "_id", Value: 1}}))
	if err != nil {
		return nil, full(err)
	}
	kept := map[string]bool{}
	if err := eachRaw(ctx, cur, func(raw bson.Raw) error {
		kept[idKey(raw.Lookup("_id"))] = true
		return nil
	}); err != nil {
		return nil, full(err)
	}
	return func(id any) bool {
		v, err := rawValue(id)
		return err != nil || kept[idKey(v)]
	}, nil
}

func (u *Upload) commit(ctx context.Context) (*File, error) {
	c := pendingFile{
		id: u.id, filename: u.filename, metadata: u.metadata, extra: u.extra,
		length: u.w.Length(), chunkSize: u.w.ChunkSize(), sha256: u.w.Sum(),
		cond: u.cond, replace: u.replace, abort: u.abort, expireAt: u.expireAt,
	}
	if u.md5 != nil {
		c.md5 = u.md5.Sum()
	}
	f, replaced, replaceErr, err := u.b.commitFile(ctx, c)
	u.replaced, u.replaceErr = replaced, replaceErr
	return f, err
}

// pendingFile is a file whose chunks are stored and whose files document
// a commit writes: a streamed upload's, or a resumable upload's once its
// last byte is stored.
type pendingFile struct {
	id              any
	filename        string
	metadata, extra bson.D
	length          int64
	chunkSize       int
	sha256, md5     []byte    // md5 is optional
	expireAt        time.Time // zero: never
	cond            Conditions
	replace         bool
	abort           func(error) error // removes the chunks and returns its argument
}

// commitFile is the commit protocol: under the name's lease, it checks the
// conditions against the newest revision, counts the chunks and writes the
// files document, dated after that revision. It returns the revision that
// Replace removed (with the error of removing it), whose chunks the caller
// removes once the lease is given back.
//
// A write without conditions takes the lease too: otherwise it could date
// itself, then a conditional write could check the name without seeing it
// and commit a later date, and the unconditional write, answered 200 after
// it, would land as an older revision than the one it overlapped: a
// history no order of the two explains (tests/flaky found it).
func (b *Bucket) commitFile(ctx context.Context, c pendingFile) (f, replaced *File, replaceErr, err error) {
	var null *File // the null version a suspended bucket's commit replaces
	defer func() {
		// After the lease is given back (deferred later, run first).
		if null != nil && err == nil {
			b.dropChunks(ctx, null.ID)
		}
	}()
	l, err := b.acquireLeases(ctx, c.filename)
	if err != nil {
		return nil, nil, nil, c.abort(err)
	}
	defer l.release(ctx)
	cur, top, err := b.newestRevisions(ctx, c.filename)
	if err != nil {
		return nil, nil, nil, c.abort(err)
	}
	if err := c.cond.Check(cur); err != nil {
		return nil, nil, nil, c.abort(err)
	}
	if null, err = b.replacedNull(ctx, c.filename); err != nil {
		return nil, nil, nil, c.abort(err)
	}
	date := after(top)
	if err := b.checkChunks(ctx, c.id, c.length, c.chunkSize); err != nil {
		return nil, nil, nil, c.abort(err)
	}
	doc := bson.D{
		{Key: "_id", Value: c.id},
		{Key: "length", Value: c.length},
		{Key: "chunkSize", Value: int32(c.chunkSize)},
		{Key: "uploadDate", Value: bson.NewDateTimeFromTime(date)},
		{Key: "filename", Value: c.filename},
	}
	if len(c.metadata) > 0 {
		doc = append(doc, bson.E{Key: "metadata", Value: c.metadata})
	}
	doc = append(doc, bson.E{Key: "sha256", Value: fmt.Sprintf("%x", c.sha256)})
	if c.md5 != nil {
		doc = append(doc, bson.E{Key: FieldS3ETag, Value: fmt.Sprintf("%x", c.md5)})
	}
	if !c.expireAt.IsZero() {
		doc = append(doc, bson.E{Key: FieldExpireAt, Value: bson.NewDateTimeFromTime(c.expireAt)})
	}
	doc = append(doc, c.extra...)
	doc = append(doc, b.versionFields()...)
	raw, err := bson.Marshal(doc)
	if err != nil {
		return nil, nil, nil, c.abort(err)
	}
	f, err = b.insertFile(ctx, raw, c.abort)
	if err != nil {
		return nil, nil, nil, err
	}
	if null != nil {
		if err := b.removeFilesDoc(ctx, null); err != nil {
			// The new revision is committed; the old null version stays.
			null = nil
			b.db.logger().Warn("commit in a suspended bucket: the null version it replaces stays", "bucket", b.name, "filename", c.filename, "error", err)
		}
	}
	if c.replace && c.cond.IfMatch != "" && cur != nil {
		// Still under the lease: no conditional write sees the name with
		// both revisions, and none changes the replaced one meanwhile.
		err := b.removeFilesDoc(ctx, cur)
		if errors.Is(err, errRenamed) {
			return f, nil, nil, nil // moved away meanwhile: it stays
		}
		return f, cur, err, nil
	}
	return f, nil, nil, nil
}

// insertFile writes the files document raw, whose chunks are stored. When
// the insert fails it reads the document back before calling abort (which
// removes the chunks): an insert whose acknowledgement was lost may have
// landed, and the chunks of a files document that exists must never go.
// When even the read fails the outcome is unknown and the chunks stay; if
// the files document did not land, the orphan sweeper removes them.
func (b *Bucket) insertFile(ctx context.Context, raw bson.Raw, abort func(error) error) (*File, error) {
	_, err := b.files.InsertOne(ctx, raw)
	if err == nil {
		return ParseFile(raw)
	}
	id := raw.Lookup("_id")
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), CommitTimeout)
	defer cancel()
	stored, rerr := b.files.FindOne(rctx, bson.D{{Key: "_id", Value: id}}).Raw()
	switch {
	case rerr == nil && bytes.Equal(stored, raw):
		return ParseFile(raw) // it landed: a retried or unacknowledged insert
	case rerr == nil:
		// Another file took the _id; the abort removes only this
		// upload's own chunks (by their _ids), never that file's.
		return nil, abort(fmt.Errorf("%w: id %v in bucket %s", ErrFileExists, id, b.name))
	case errors.Is(rerr, mongo.ErrNoDocuments):
		if mongo.IsDuplicateKeyError(err) {
			err = fmt.Errorf("%w: id %v in bucket %s", ErrFileExists, id, b.name)
		}
		return nil, abort(fmt.Errorf("write files document: %w", err))
	}
	return nil, fmt.Errorf("write files document: %w (and reading it back: %v; its chunks stay for the sweeper)", err, rerr)
}

// checkChunks counts the stored chunks of the file id, by the {files_id, n}
// index, against what its length needs.
func (b *Bucket) checkChunks(ctx context.Context, id any, length int64, chunkSize int) error {
	want := (length + int64(chunkSize) - 1) / int64(chunkSize)
	n, err := b.chunks.CountDocuments(ctx, bson.D{{Key: "files_id", Value: id}})
	if err != nil {
		return fmt.Errorf("count chunks: %w", err)
	}
	if n == want {
		return nil
	}
	// Chunks under the id that this upload did not write belong to a file
	// that took the id meanwhile.
	if _, err := b.stat(ctx, id); err == nil {
		return fmt.Errorf("%w: id %v in bucket %s", ErrFileExists, id, b.name)
	}
	return fmt.Errorf("%w: %d of %d chunks are stored", ErrChunksLost, n, want)
}

// abort removes the upload's chunks and returns err, with the abort's own
// failure when there is one.
func (u *Upload) abort(err error) error {
	if aerr := u.w.Abort(); aerr != nil {
		return fmt.Errorf("%w (and abort: %w)", err, aerr)
	}
	return err
}

// Replaced is the revision an upload opened with UploadOptions.Replace
// replaced (the one its If-Match matched), or nil, and the error of
// removing it: the new revision is committed either way, so a front door
// only logs that error. The HTTP API's PUT with If-Match replaces; S3,
// which keeps versions, does not.
func (u *Upload) Replaced() (*File, error) { return u.replaced, u.replaceErr }

// maxCASAttempts bounds how often a conditional write by id is evaluated
// again because the file changed between reading and writing it.
const maxCASAttempts = 16

// PatchIf renames the file with _id id and/or replaces its metadata, as
// Patch does, if cond holds for it, and returns the file as changed. It
// holds the lease of the file's name (and of the new name), so that it is
// atomic with conditional uploads and deletes of the name, and its update
// names the version it checked, so that it is atomic with other writes by
// id too. With an If-Match and no file it returns
// ErrPreconditionFailed, else ErrFileNotFound.
func (b *Bucket) PatchIf(ctx context.Context, id any, name *string, metadata *bson.D, cond Conditions) (*File, error) {
	return b.PatchFileIf(ctx, id, FilePatch{Filename: name, Metadata: metadata}, cond)
}

// FilePatch is a change of a file: each nil field stays as it is.
type FilePatch struct {
	Filename *string
	// Metadata replaces the metadata; an empty document removes it.
	Metadata *bson.D
	// ExpireAt sets when the file expires; a zero time removes its expiry.
	ExpireAt *time.Time
}

// PatchFileIf is PatchIf of every change a FilePatch holds, in one update.
// It returns ErrInvalidExpiry for an expiry out of range, and as PatchIf.
func (b *Bucket) PatchFileIf(ctx context.Context, id any, p FilePatch, cond Conditions) (*File, error) {
	name, metadata := p.Filename, p.Metadata
	if err := b.checkPatch(ctx, id, metadata); err != nil {
		return nil, err
	}
	update, err := patchUpdate(name, metadata)
	if err != nil {
		return nil, err
	}
	if p.ExpireAt != nil {
		if update, err = expiryUpdate(update, *p.ExpireAt); err != nil {
			return nil, err
		}
		if !p.ExpireAt.IsZero() {
			if err := b.ensureExpiryIndexes(ctx); err != nil {
				return nil, err
			}
		}
	}
	if len(update) == 0 {
		return b.current(ctx, id, cond)
	}
	// Under the leases even without conditions, as an upload's commit: a
	// rename into a name, or an edit of the version a conditional write
	// of the name checked, must not land between that write's check and
	// its commit (an If-None-Match: * upload would commit beside the file
	// renamed in; an If-Match replace would remove the edited version).
	err = b.underLease(ctx, id, cond, name, func(f *File) (bool, error) {
		// Only a live file: clearing the expiry of one that has expired
		// must not bring it back.
		res, err := b.files.UpdateOne(ctx, b.live(versionFilter(f), time.Now()), update)
		if err != nil {
			return false, fmt.Errorf("update file %v: %w", id, full(err))
		}
		return res.MatchedCount == 1, nil
	})
	if err != nil {
		return nil, err
	}
	return b.Stat(ctx, id)
}

// DeleteIf removes the file with _id id, as Delete does, if cond holds for
// it, atomically as PatchIf changes it. With an If-Match and no file it
// returns ErrPreconditionFailed, else ErrFileNotFound.
func (b *Bucket) DeleteIf(ctx context.Context, id any, cond Conditions) error {
	if !cond.Any() {
		return b.Delete(ctx, id)
	}
	err := b.underLease(ctx, id, cond, nil, func(f *File) (bool, error) {
		res, err := b.files.DeleteOne(ctx, versionFilter(f))
		if err != nil {
			return false, fmt.Errorf("delete file %v: %w", id, full(err))
		}
		return res.DeletedCount == 1, nil
	})
	if err != nil {
		return err
	}
	// The lease is given back: nobody sees these chunks any more.
	b.dropChunks(ctx, id)
	return nil
}

// underLease reads the file with _id id, takes the leases of its name and
// of newName (when set), reads it again and evaluates cond against it, and
// runs write, which reports whether the file was still the version it was
// given. A file renamed or changed meanwhile is evaluated again.
func (b *Bucket) underLease(ctx context.Context, id any, cond Conditions, newName *string, write func(*File) (bool, error)) error {
	for range maxCASAttempts {
		f, err := b.current(ctx, id, cond)
		if err != nil {
			return err
		}
		names := []string{f.Filename}
		if newName != nil {
			names = append(names, *newName)
		}
		ls, err := b.acquireLeases(ctx, names...)
		if err != nil {
			return err
		}
		done, err := func() (bool, error) {
			defer ls.release(ctx)
			g, err := b.current(ctx, id, cond)
			if err != nil || g.Filename != f.Filename {
				return false, err
			}
			return write(g)
		}()
		if err != nil || done {
			return err
		}
	}
	return fmt.Errorf("%w: file %v kept changing", ErrPreconditionFailed, id)
}

// current reads the file with _id id and evaluates cond against it.
func (b *Bucket) current(ctx context.Context, id any, cond Conditions) (*File, error) {
	f, err := b.Stat(ctx, id)
	if errors.Is(err, ErrFileNotFound) && cond.IfMatch != "" {
		return nil, cond.Check(nil)
	}
	if err != nil {
		return nil, err
	}
	if err := cond.Check(f); err != nil {
		return nil, err
	}
	return f, nil
}

// DeleteNameIf removes every revision of the files named name if cond holds
// for the newest one. Holding the name's lease (see the commit protocol) it
// removes the older revisions' files documents, then the newest's only if
// it is still the version checked; the chunks go after the lease is given
// back. Without a file it returns ErrPreconditionFailed for an If-Match,
// else ErrFileNotFound, and removes what expired revisions of the name are
// left (none was there for the caller).
//
// In a bucket whose versioning was set it removes nothing: it writes a
// delete marker (see versioning.go) and returns 1.
func (b *Bucket) DeleteNameIf(ctx context.Context, name string, cond Conditions) (int, error) {
	if b.settings.Versioned() {
		if _, err := b.markDeleted(ctx, name, cond, false); err != nil {
			return 0, err
		}
		return 1, nil
	}
	ids, err := b.deleteNameDocs(ctx, name, cond)
	for _, id := range ids {
		b.dropChunks(ctx, id)
	}
	if err != nil {
		return 0, err
	}
	return len(ids), nil
}

// deleteNameDocs is the part of DeleteNameIf under the lease; it returns
// the _ids of the files documents it removed, with its error too (older or
// expired revisions removed before it failed or found no file).
func (b *Bucket) deleteNameDocs(ctx context.Context, name string, cond Conditions) ([]any, error) {
	ls, err := b.acquireLeases(ctx, name)
	if err != nil {
		return nil, err
	}
	defer ls.release(ctx)
	var gone []any // older revisions removed by an earlier round
	for range maxCASAttempts {
		cur, err := b.newest(ctx, name)
		if err != nil {
			return gone, err
		}
		if err := cond.Check(cur); err != nil {
			return gone, err
		}
		if cur == nil {
			notFound := fmt.Errorf("%w: %q in bucket %s", ErrFileNotFound, name, b.name)
			expired, err := b.idsOf(ctx, bson.D{{Key: "filename", Value: name}})
			if err != nil || len(expired) == 0 {
				return gone, notFound
			}
			removed, err := b.removeNamed(ctx, name, expired)
			if err != nil {
				return gone, notFound
			}
			return append(gone, removed...), notFound
		}
		older, err := b.revisionsUpTo(ctx, cur)
		if err != nil {
			return gone, err
		}
		if deleteListed != nil {
			deleteListed()
		}
		// The older revisions go first: a store that fails between the
		// two steps leaves the newest in place, the delete not done,
		// where the other order would bring an older revision back as the
		// newest.
		if len(older) > 0 {
			removed, err := b.removeNamed(ctx, name, older)
			if err != nil {
				return gone, fmt.Errorf("delete older revisions of %q: %w", name, err)
			}
			gone = append(gone, removed...)
		}
		res, err := b.files.DeleteOne(ctx, versionFilter(cur))
		if err != nil {
			return gone, fmt.Errorf("delete file %v: %w", cur.ID, full(err))
		}
		if res.DeletedCount == 0 {
			continue // changed since it was checked: check again
		}
		return append(gone, cur.ID), nil
	}
	return gone, fmt.Errorf("%w: %q kept changing", ErrPreconditionFailed, name)
}

// deleteListed, when set (by tests), runs in a delete between the listing
// of what it removes and their removal: a name's older revisions
// (deleteNameDocs), a folder's files or a name's earlier revisions
// (deleteAll).
var deleteListed func()

// revisionsUpTo lists the _ids of the revisions of f's name that come
// before f in (uploadDate, _id) order, the order FindByName numbers
// revisions in. The order is the server's, so _ids of mixed BSON types and
// revisions of the same millisecond compare as they sort.
func (b *Bucket) revisionsUpTo(ctx context.Context, f *File) ([]any, error) {
	filter := bson.D{{Key: "filename", Value: f.Filename}}
	if !f.UploadDate.IsZero() {
		filter = append(filter, bson.E{Key: "$or", Value: bson.A{
			bson.D{{Key: "uploadDate", Value: bson.D{{Key: "$lte", Value: bson.NewDateTimeFromTime(f.UploadDate)}}}},
			bson.D{{Key: "uploadDate", Value: bson.D{{Key: "$exists", Value: false}}}},
		}})
	}
	cur, err := b.files.Find(ctx, filter, options.Find().
		SetProjection(bson.D{{Key: "_id", Value: 1}}).
		SetSort(bson.D{{Key: "uploadDate", Value: 1}, {Key: "_id", Value: 1}}))
	if err != nil {
		return nil, fmt.Errorf("find revisions of %q: %w", f.Filename, err)
	}
	defer closeCursor(ctx, cur)
	want := bson.RawValue{}
	if raw, err := bson.Marshal(bson.D{{Key: "_id", Value: f.ID}}); err == nil {
		want = bson.Raw(raw).Lookup("_id")
	}
	var ids []any
	for cur.Next(ctx) {
		idv := cur.Current.Lookup("_id")
		if idv.Equal(want) {
			return ids, nil
		}
		var id any
		if err := idv.Unmarshal(&id); err != nil {
			return nil, fmt.Errorf("find revisions of %q: %w", f.Filename, err)
		}
		ids = append(ids, id)
	}
	if err := cur.Err(); err != nil {
		return nil, fmt.Errorf("find revisions of %q: %w", f.Filename, err)
	}
	// f itself is gone: only what is strictly older than it is older.
	return b.idsOf(ctx, bson.D{
		{Key: "filename", Value: f.Filename},
		{Key: "uploadDate", Value: bson.D{{Key: "$lt", Value: bson.NewDateTimeFromTime(f.UploadDate)}}},
	})
}
