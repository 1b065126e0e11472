package buckets

import (
	"context"
	"crypto/md5"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"time"

	"github.com/gridfsd/gridfsd/chunker"
	"github.com/gridfsd/gridfsd/internal/gcfloor"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/bson"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/mongo"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/mongo/options"
)

// Bucket is one GridFS bucket: the collections <name>.files and
// <name>.chunks. It is safe for concurrent use.
type Bucket struct {
	db       *DB
	name     string
	settings Settings
	files    *mongo.Collection
	chunks   *mongo.Collection
}

// Name is the bucket's name.
func (b *Bucket) Name() string { return b.name }

// Settings are the bucket's persisted settings.
func (b *Bucket) Settings() Settings { return b.settings }

// FilesCollection is <name>.files.
func (b *Bucket) FilesCollection() *mongo.Collection { return b.files }

// ChunksCollection is <name>.chunks.
func (b *Bucket) ChunksCollection() *mongo.Collection { return b.chunks }

// ChunkSize is the chunk size uploads get when they do not choose one.
func (b *Bucket) ChunkSize() int {
	if b.settings.ChunkSize > 0 {
		return b.settings.ChunkSize
	}
	return chunker.DefaultChunkSize
}

// Download is an open file: its files document and a seekable reader of
// its content. Until it is closed the process may hold more garbage over a
// small heap (DownloadGCFloor).
type Download struct {
	*chunker.Reader
	File    *File
	release func() // the floor's hold, once
}

// DownloadGCFloor is the garbage the process may hold between two
// collections while it serves downloads, however small its live heap
// (internal/gcfloor). A download made a byte of garbage per byte it
// sent (the MongoDB driver read every reply of chunks into a new buffer;
// chunker.Reader has given it pooled ones since the driver's fork item 4)
// while it kept a few chunks alive, so without a floor Go's collector ran
// every 4 MB sent: a third of the gateway's CPU on a GET
// (docs/BENCHMARKS.md, "Reads and the garbage collector"). The floor stays
// for what a download still makes; it was not measured without it since. Every door's
// downloads hold it, through Open; uploads, whose memory the collector
// follows as GOGC says, are left as they were.
const DownloadGCFloor = 16 << 20

// Close closes the reader and gives back the floor's hold.
func (d *Download) Close() error {
	err := d.Reader.Close()
	d.release()
	return err
}

// Stat returns the files document with _id id, or ErrFileNotFound, also
// when the file has expired (see expiry.go).
func (b *Bucket) Stat(ctx context.Context, id any) (*File, error) {
	f, err := b.stat(ctx, id)
	if err != nil {
		return nil, err
	}
	now := time.Now()
	hidden := b.expired(f, now)
	if !hidden {
		if hidden, err = b.hiddenRevision(ctx, f, now); err != nil {
			return nil, err
		}
	}
	if hidden {
		return nil, fmt.Errorf("%w: id %v in bucket %s (expired)", ErrFileNotFound, id, b.name)
	}
	if f.DeleteMarker {
		return nil, &DeleteMarkerError{Marker: f}
	}
	return f, nil
}

// stat is Stat of expired files too: an expired file's _id stays taken,
// and its chunks its own, until the sweeper removes it.
func (b *Bucket) stat(ctx context.Context, id any) (*File, error) {
	if err := b.checkID(ctx, id); err != nil {
		return nil, err
	}
	raw, err := b.files.FindOne(ctx, bson.D{{Key: "_id", Value: id}}).Raw()
	if errors.Is(err, mongo.ErrNoDocuments) {
		return nil, fmt.Errorf("%w: id %v in bucket %s", ErrFileNotFound, id, b.name)
	}
	if err != nil {
		return nil, fmt.Errorf("find file %v: %w", id, err)
	}
	return ParseFile(raw)
}

// FindByName returns a revision of the files named name, as the GridFS
// specification numbers them by uploadDate: 0 the oldest, 1 the next, ...,
// -1 the newest, -2 the one before. It returns ErrFileNotFound when no file
// has that name and ErrRevisionNotFound when the revision does not exist.
// A deleted name (its newest revision is a delete marker), or a revision
// that is a delete marker, is a *DeleteMarkerError (see versioning.go).
func (b *Bucket) FindByName(ctx context.Context, name string, revision int) (*File, error) {
	f, err := b.findByName(ctx, name, revision)
	if err != nil {
		return nil, err
	}
	if f.DeleteMarker {
		return nil, &DeleteMarkerError{Marker: f}
	}
	if revision != -1 && b.settings.Versioned() {
		if _, top, err := b.newestRevisions(ctx, name); err != nil {
			return nil, err
		} else if top != nil && top.DeleteMarker {
			return nil, &DeleteMarkerError{Marker: top}
		}
	}
	return f, nil
}

// findByName is FindByName of delete markers too.
func (b *Bucket) findByName(ctx context.Context, name string, revision int) (*File, error) {
	now := time.Now()
	if rules := b.revisionRules(name); len(rules) > 0 {
		return b.findRevision(ctx, name, revision, rules, now)
	}
	dir, skip := 1, int64(revision)
	if revision < 0 {
		dir, skip = -1, int64(-revision-1)
	}
	opts := options.FindOne().
		SetSort(bson.D{{Key: "uploadDate", Value: dir}, {Key: "_id", Value: dir}}).
		SetSkip(skip)
	byName := b.live(bson.D{{Key: "filename", Value: name}}, now)
	raw, err := b.files.FindOne(ctx, byName, opts).Raw()
	if errors.Is(err, mongo.ErrNoDocuments) && (revision == 0 || revision == -1) {
		// No newest (or oldest) revision: no file of that name at the
		// time of the query. Counting afterwards could see one just
		// committed and call it a missing revision.
		return nil, fmt.Errorf("%w: %q in bucket %s", ErrFileNotFound, name, b.name)
	}
	if errors.Is(err, mongo.ErrNoDocuments) {
		n, cerr := b.files.CountDocuments(ctx, byName, options.Count().SetLimit(1))
		if cerr != nil {
			return nil, fmt.Errorf("find file %q: %w", name, cerr)
		}
		if n == 0 {
			return nil, fmt.Errorf("%w: %q in bucket %s", ErrFileNotFound, name, b.name)
		}
		return nil, fmt.Errorf("%w: %q revision %d in bucket %s", ErrRevisionNotFound, name, revision, b.name)
	}
	if err != nil {
		return nil, fmt.Errorf("find file %q: %w", name, err)
	}
	return ParseFile(raw)
}

// Open returns a reader of f's content. Reading it reports ErrChunkMissing
// or ErrChunkSize when the stored chunks do not match f.
func (b *Bucket) Open(ctx context.Context, f *File) (*Download, error) {
	r, err := chunker.NewReader(ctx, b.chunks, chunker.File{ID: f.ID, Length: f.Length, ChunkSize: f.ChunkSize, Version: fileVersion(f)})
	if err != nil {
		return nil, err
	}
	r.ShareReadahead(b.db.downloads)
	r.ShareCache(b.db.cache)
	return &Download{Reader: r, File: f, release: gcfloor.Hold(DownloadGCFloor)}, nil
}

// OpenID opens the file with _id id; see Stat and Open.
func (b *Bucket) OpenID(ctx context.Context, id any) (*Download, error) {
	f, err := b.Stat(ctx, id)
	if err != nil {
		return nil, err
	}
	return b.Open(ctx, f)
}

// OpenName opens a revision of the files named name; see FindByName and Open.
func (b *Bucket) OpenName(ctx context.Context, name string, revision int) (*Download, error) {
	f, err := b.FindByName(ctx, name, revision)
	if err != nil {
		return nil, err
	}
	return b.Open(ctx, f)
}

// Delete removes the file with _id id: the files document first, so the
// file disappears at once, then its chunks. When there is no files document
// it still removes orphaned chunks of that id and returns ErrFileNotFound.
// It removes the files document holding the lease of the file's name, as
// every write of a name does (see the commit protocol in doc.go): a delete
// then comes before or after a conditional write of that name, never
// between its check and its commit.
func (b *Bucket) Delete(ctx context.Context, id any) error {
	for range maxCASAttempts {
		f, err := b.stat(ctx, id)
		if errors.Is(err, ErrFileNotFound) {
			b.dropChunks(ctx, id)
		}
		if err != nil {
			return err
		}
		removed, err := b.deleteNamed(ctx, f)
		if err != nil {
			return err
		}
		if !removed {
			continue // renamed meanwhile: its name's lease is another
		}
		b.dropChunks(ctx, id)
		if b.expired(f, time.Now()) {
			// An expired file is removed all the same, sooner than the
			// sweeper would, but it was not there for the caller.
			return fmt.Errorf("%w: id %v in bucket %s", ErrFileNotFound, id, b.name)
		}
		return nil
	}
	return fmt.Errorf("delete file %v: it kept being renamed", id)
}

// deleteNamed removes f's files document under the lease of f's name. It
// reports false when the file has another name by then; a file another
// writer removed first is ErrFileNotFound.
func (b *Bucket) deleteNamed(ctx context.Context, f *File) (bool, error) {
	ls, err := b.acquireLeases(ctx, f.Filename)
	if err != nil {
		return false, err
	}
	defer ls.release(ctx)
	res, err := b.files.DeleteOne(ctx, named(f.ID, f.Filename))
	if err != nil {
		return false, fmt.Errorf("delete file %v: %w", f.ID, full(err))
	}
	if res.DeletedCount == 0 {
		// Renamed or removed since it was read: which one, the caller
		// learns from the error.
		_, err := b.stat(ctx, f.ID)
		return false, err
	}
	return true, nil
}

// DeleteName removes every revision of the files named name and returns how
// many it removed, or ErrFileNotFound when there was none: DeleteNameIf
// without conditions, under the name's lease like every write of a name, so
// that two deletes, or a delete and a conditional write, through any
// gateways happen one after the other.
func (b *Bucket) DeleteName(ctx context.Context, name string) (int, error) {
	return b.DeleteNameIf(ctx, name, Conditions{})
}

// deleteAll removes the files listed, each only while it still has the
// name it was listed under (a folder's move takes no lease: see named),
// holding that name's lease, and returns how many it removed; a file
// another client deleted or moved meanwhile is not an error.
func (b *Bucket) deleteAll(ctx context.Context, files []*File) (int, error) {
	if deleteListed != nil {
		deleteListed()
	}
	removed := 0
	for _, f := range files {
		ok, err := b.deleteNamed(ctx, f)
		if err != nil && !errors.Is(err, ErrFileNotFound) {
			return removed, err
		}
		if ok {
			b.dropChunks(ctx, f.ID)
			removed++
		}
	}
	return removed, nil
}

// idsOf lists the _ids of the files filter matches, oldest first: deleting
// a name's revisions in this order, a delete that stops part way leaves the
// newest in place rather than bringing an older one back.
func (b *Bucket) idsOf(ctx context.Context, filter bson.D) ([]any, error) {
	cur, err := b.files.Find(ctx, filter, options.Find().SetProjection(bson.D{{Key: "_id", Value: 1}}).
		SetSort(bson.D{{Key: "uploadDate", Value: 1}, {Key: "_id", Value: 1}}))
	if err != nil {
		return nil, fmt.Errorf("find files: %w", err)
	}
	defer closeCursor(ctx, cur)
	var ids []any
	for cur.Next(ctx) {
		var doc struct {
			ID any `bson:"_id"`
		}
		if err := cur.Decode(&doc); err != nil {
			return nil, fmt.Errorf("find files: %w", err)
		}
		ids = append(ids, doc.ID)
	}
	if err := cur.Err(); err != nil {
		return nil, fmt.Errorf("find files: %w", err)
	}
	return ids, nil
}

// Rename gives the file with _id id a new name. It returns ErrFileNotFound
// or ErrInvalidFilename.
func (b *Bucket) Rename(ctx context.Context, id any, name string) error {
	return b.Patch(ctx, id, &name, nil)
}

// RenameName renames every revision of the files named old. It returns
// ErrFileNotFound or ErrInvalidFilename. It holds the leases of both names,
// as every write of a name does (see the commit protocol in doc.go): a
// delete of old then comes before or after the rename, never between its
// listing of old's revisions and their delete.
func (b *Bucket) RenameName(ctx context.Context, old, name string) error {
	return b.RenameNameIf(ctx, old, name, Conditions{})
}

// RenameNameIf is RenameName if dst holds for the newest revision of name,
// the destination, checked under the leases (If-None-Match: * for a move
// that must not overwrite: WebDAV's MOVE with Overwrite: F), else
// ErrPreconditionFailed, having renamed nothing.
func (b *Bucket) RenameNameIf(ctx context.Context, old, name string, dst Conditions) error {
	if err := CheckFilename(name); err != nil {
		return err
	}
	ls, err := b.acquireLeases(ctx, old, name)
	if err != nil {
		return err
	}
	defer ls.release(ctx)
	if dst.Any() {
		cur, err := b.newest(ctx, name)
		if err != nil {
			return err
		}
		if err := dst.Check(cur); err != nil {
			return err
		}
	}
	return b.renameName(ctx, old, name)
}

// renameName is RenameName under the leases.
func (b *Bucket) renameName(ctx context.Context, old, name string) error {
	now := time.Now()
	// Expired revisions stay for the sweeper: renamed, a rule might no
	// longer expire them. Those the rules hide expire now, for the same
	// reason: under name, no rule might hide them.
	if rules := b.revisionRules(old); len(rules) > 0 {
		hidden, err := b.hiddenIDs(ctx, old, rules, now)
		if err != nil {
			return fmt.Errorf("rename %q: %w", old, err)
		}
		if err := b.expireIDs(ctx, slices.Collect(maps.Values(hidden)), now); err != nil {
			return fmt.Errorf("rename %q: %w", old, err)
		}
	}
	res, err := b.files.UpdateMany(ctx, b.live(bson.D{{Key: "filename", Value: old}}, now),
		bson.D{{Key: "$set", Value: bson.D{{Key: "filename", Value: name}}}})
	if err != nil {
		return fmt.Errorf("rename %q: %w", old, full(err))
	}
	if res.MatchedCount == 0 {
		return fmt.Errorf("%w: %q in bucket %s", ErrFileNotFound, old, b.name)
	}
	return nil
}

// SetMetadata replaces the metadata of the file with _id id; an empty
// document removes it. It returns ErrFileNotFound or ErrInvalidMetadata.
func (b *Bucket) SetMetadata(ctx context.Context, id any, metadata bson.D) error {
	return b.Patch(ctx, id, nil, &metadata)
}

// Patch renames the file with _id id and/or replaces its metadata (an empty
// document removes it) in one update, so that a failure changes neither; a
// nil name or metadata stays as it is. It checks both before writing and
// returns ErrFileNotFound, ErrInvalidFilename or ErrInvalidMetadata.
func (b *Bucket) Patch(ctx context.Context, id any, name *string, metadata *bson.D) error {
	_, err := b.PatchIf(ctx, id, name, metadata, Conditions{})
	return err
}

// patchUpdate is the update of Patch, checked; empty when nothing changes.
func patchUpdate(name *string, metadata *bson.D) (bson.D, error) {
	var set, unset bson.D
	if name != nil {
		if err := CheckFilename(*name); err != nil {
			return nil, err
		}
		set = append(set, bson.E{Key: "filename", Value: *name})
	}
	if metadata != nil && len(*metadata) == 0 {
		unset = bson.D{{Key: "metadata", Value: ""}}
	} else if metadata != nil {
		if err := CheckMetadata(*metadata); err != nil {
			return nil, err
		}
		set = append(set, bson.E{Key: "metadata", Value: *metadata})
	}
	var update bson.D
	if len(set) > 0 {
		update = append(update, bson.E{Key: "$set", Value: set})
	}
	if len(unset) > 0 {
		update = append(update, bson.E{Key: "$unset", Value: unset})
	}
	return update, nil
}

// Drop removes the bucket's files, chunks and settings.
func (b *Bucket) Drop(ctx context.Context) error {
	if err := b.files.Drop(ctx); err != nil {
		return fmt.Errorf("drop %s: %w", b.files.Name(), full(err))
	}
	err := b.chunks.Drop(ctx)
	b.db.cache.InvalidateCollection(b.chunks)
	if err != nil {
		return fmt.Errorf("drop %s: %w", b.chunks.Name(), full(err))
	}
	if _, err := b.db.db.Collection(SettingsCollection).DeleteOne(ctx, bson.D{{Key: "_id", Value: b.name}}); err != nil {
		return fmt.Errorf("drop settings of %s: %w", b.name, full(err))
	}
	b.db.setEnsured(b.name, false)
	b.db.setEnsured(b.name+expiryIndexes, false)
	b.db.cacheSettings(b.name, nil)
	return nil
}

// Stats summarises a bucket.
type Stats struct {
	Files int64 `json:"files"`
	Bytes int64 `json:"bytes"`
}

// Stats counts the bucket's files that have not expired and their total
// length; delete markers are not files. It reads every files document: an aggregation, or, when rules
// hide older revisions, one pass name by name in the files index's order.
func (b *Bucket) Stats(ctx context.Context) (Stats, error) {
	now := time.Now()
	if b.hasRevisionRules() {
		s, err := b.revisionStats(ctx, now)
		if err != nil {
			return Stats{}, fmt.Errorf("stats of bucket %s: %w", b.name, err)
		}
		return s, nil
	}
	live := b.live(bson.D{}, now)
	if b.settings.Versioned() {
		live = append(live, notMarker)
	}
	// One accumulator per $group: upstream FerretDB v1 computes only the
	// first of several (fixed in the embedded store, third_party/ferretdb
	// PATCHES.md item 13), so the count is a query of its own.
	pipeline := mongo.Pipeline{{{Key: "$match", Value: live}}, {{Key: "$group", Value: bson.D{
		{Key: "_id", Value: nil},
		{Key: "bytes", Value: bson.D{{Key: "$sum", Value: "$length"}}},
	}}}}
	var s Stats
	cur, err := b.files.Aggregate(ctx, pipeline)
	if err != nil {
		return Stats{}, fmt.Errorf("stats of bucket %s: %w", b.name, err)
	}
	defer closeCursor(ctx, cur)
	if cur.Next(ctx) {
		s.Bytes, _ = cur.Current.Lookup("bytes").AsInt64OK()
	}
	if err := cur.Err(); err != nil {
		return Stats{}, fmt.Errorf("stats of bucket %s: %w", b.name, err)
	}
	if s.Files, err = b.files.CountDocuments(ctx, live); err != nil {
		return Stats{}, fmt.Errorf("stats of bucket %s: %w", b.name, err)
	}
	return s, nil
}

// UploadOptions are the optional parts of an upload.
type UploadOptions struct {
	// ID is the new file's _id, of any BSON type; nil means a new ObjectID.
	ID any
	// ChunkSize overrides the bucket's chunk size.
	ChunkSize int
	// Metadata is stored as the files document's metadata.
	Metadata bson.D
	// ContentType, when set, is stored as metadata.contentType.
	ContentType string
	// Extra holds root fields of the files document some callers need, such
	// as the legacy contentType or aliases of the spec tests.
	Extra bson.D
	// MD5, when set, computes the MD5 of the content while it streams (see
	// Upload.MD5) and stores it hex-encoded in the files document's
	// top-level FieldS3ETag, which S3 clients verify their uploads by.
	MD5 bool
	// Conditions, when set, are checked against the newest revision of
	// the name when the upload commits, atomically (see the commit
	// protocol in the package doc).
	Conditions Conditions
	// Replace removes the revision Conditions.IfMatch matched as part of
	// the commit, so that the new revision takes its place.
	Replace bool
	// ExpireAt, when set, is when the file expires (ParseExpiry reads
	// what clients send): stored as the top-level FieldExpireAt.
	ExpireAt time.Time
	// Size is the length the client announced (Content-Length), 0 when
	// unknown: an upload that would take the store below its disk reserve
	// is refused before it starts (ErrInsufficientStorage).
	Size int64
	// Initiator names who starts a multipart upload (CreateMultipart keeps
	// it as the upload's Initiator: S3's initiator and owner); other
	// uploads ignore it.
	Initiator string
}

// FieldS3ETag is the top-level files document field, gridfsd's own, that
// holds an object's S3 ETag without quotes: the hex MD5 of the content for
// a single-part upload, "<hex MD5 of the parts' MD5s>-<parts>" for a
// multipart one. It is never the deprecated top-level md5, which GridFS
// tools would read as the content's MD5.
const FieldS3ETag = "s3ETag"

// Upload is a file being written. Write its content, then Commit; or Abort.
// Until Commit returns, no reader can see the file.
type Upload struct {
	b          *Bucket
	ctx        context.Context
	id         any
	filename   string
	metadata   bson.D
	extra      bson.D
	w          *chunker.Writer
	md5        *asyncHash // nil unless UploadOptions.MD5
	expireAt   time.Time
	max        int64  // UploadLimit; 0: none
	maxName    string // whose limit max is
	cond       Conditions
	replace    bool
	replaced   *File // the revision Replace removed
	replaceErr error
	done       bool
	committing bool // Commit was called
	committed  bool
	unchecked  int64 // bytes written since the last look at the free space
}

// newChunkWriter is chunker.NewWriter into b's chunks, with the uploads'
// budget. On a store whose durability is ordered the chunks go unjournaled:
// every upload ends with a durable write (a files document, a part's or a
// resumable upload's record) before it reports them stored, which makes
// them durable too, and the store syncs its log once instead of once a
// batch.
func (b *Bucket) newChunkWriter(ctx context.Context, filesID any, opts chunker.WriterOptions) (*chunker.Writer, error) {
	opts.Budget = b.db.uploads
	opts.Unjournaled = b.db.orderedDurability(ctx)
	return chunker.NewWriter(ctx, b.chunks, filesID, opts)
}

// OpenUpload starts an upload of a file named filename. It checks the name,
// chunk size and metadata and ensures the bucket's indexes before anything
// is written; bad input returns ErrInvalidFilename, ErrInvalidChunkSize or
// ErrInvalidMetadata. Cancelling ctx aborts the upload.
func (b *Bucket) OpenUpload(ctx context.Context, filename string, opts UploadOptions) (*Upload, error) {
	if err := CheckFilename(filename); err != nil {
		return nil, err
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
	if err := b.checkStored(ctx, opts.ID, md); err != nil {
		return nil, err
	}
	var expireAt time.Time
	if !opts.ExpireAt.IsZero() {
		var err error
		if expireAt, err = clampExpiry(opts.ExpireAt); err != nil {
			return nil, err
		}
	}
	if err := b.db.checkSpace(opts.Size); err != nil {
		return nil, err
	}
	if err := b.ensureIndexes(ctx); err != nil {
		return nil, full(err)
	}
	if !expireAt.IsZero() {
		if err := b.ensureExpiryIndexes(ctx); err != nil {
			return nil, full(err)
		}
	}
	id := opts.ID
	if id == nil {
		id = bson.NewObjectID()
	} else if _, err := b.stat(ctx, id); err == nil {
		// The chunk writer owns every chunk of its files_id and removes
		// them all on failure, so it must never write under a taken id.
		return nil, fmt.Errorf("%w: id %v in bucket %s", ErrFileExists, id, b.name)
	} else if !errors.Is(err, ErrFileNotFound) {
		return nil, err
	}
	w, err := b.newChunkWriter(ctx, id, chunker.WriterOptions{ChunkSize: chunkSize})
	if err != nil {
		return nil, err
	}
	max, maxName := b.UploadLimit()
	up := &Upload{b: b, ctx: ctx, id: id, filename: filename, metadata: md, extra: opts.Extra, w: w, max: max, maxName: maxName, cond: opts.Conditions, replace: opts.Replace, expireAt: expireAt}
	if opts.MD5 {
		up.md5 = newAsyncHash(md5.New())
	}
	return up, nil
}

func withoutKey(d bson.D, key string) bson.D {
	out := make(bson.D, 0, len(d)+1)
	for _, e := range d {
		if e.Key != key {
			out = append(out, e)
		}
	}
	return out
}

// ID is the new file's _id.
func (u *Upload) ID() any { return u.id }

// Write adds p to the file. Past the UploadLimit it aborts the
// upload and returns ErrTooLarge; when the store runs short of space,
// ErrInsufficientStorage (then the caller aborts).
func (u *Upload) Write(p []byte) (int, error) {
	if u.max > 0 && u.w.Length()+int64(len(p)) > u.max {
		u.Abort()
		return 0, tooLarge(u.w.Length()+int64(len(p)), u.max, u.maxName)
	}
	if u.unchecked += int64(len(p)); u.b.db.space != nil && u.unchecked >= SpaceCheckInterval {
		u.unchecked = 0
		if err := u.b.db.checkSpace(0); err != nil {
			return 0, err
		}
	}
	n, err := u.w.Write(p)
	if u.md5 != nil {
		u.md5.Write(p[:n])
	}
	return n, full(err)
}

// ReadFrom copies r into the file until EOF. Past the bucket's MaxFileSize
// it aborts the upload and returns ErrTooLarge; when the store runs short
// of space, ErrInsufficientStorage (then the caller aborts).
func (u *Upload) ReadFrom(r io.Reader) (int64, error) {
	r = u.b.db.guardSpace(r)
	if u.md5 != nil {
		r = io.TeeReader(r, u.md5)
	}
	if u.max > 0 {
		// One byte more than allowed tells an oversized file from a full one.
		n, err := u.w.ReadFrom(io.LimitReader(r, u.max-u.w.Length()+1))
		if err == nil && u.w.Length() > u.max {
			u.Abort()
			return n, fmt.Errorf("%w: more than the %s of %d bytes", ErrTooLarge, u.maxName, u.max)
		}
		return n, full(err)
	}
	n, err := u.w.ReadFrom(r)
	return n, full(err)
}

// Length is the number of bytes written so far.
func (u *Upload) Length() int64 { return u.w.Length() }

// SHA256 is the SHA-256 of the bytes written so far.
func (u *Upload) SHA256() []byte { return u.w.Sum() }

// MD5 is the MD5 of the bytes written so far, or nil unless the upload was
// opened with UploadOptions.MD5.
func (u *Upload) MD5() []byte {
	if u.md5 == nil {
		return nil
	}
	return u.md5.Sum()
}

// Abort stops the upload and removes what it wrote. Once Commit has been
// called it does nothing: Commit removes what it must itself, and after an
// insert of unknown outcome the chunks must stay. So front doors can defer
// Abort right after OpenUpload.
func (u *Upload) Abort() error {
	if u.committing || u.committed {
		return nil
	}
	u.done = true
	if u.md5 != nil {
		u.md5.Close()
	}
	return u.w.Abort()
}

// Upload stores the content of r as a new file named filename; see
// OpenUpload and Commit.
func (b *Bucket) Upload(ctx context.Context, filename string, r io.Reader, opts UploadOptions) (*File, error) {
	up, err := b.OpenUpload(ctx, filename, opts)
	if err != nil {
		return nil, err
	}
	if _, err := up.ReadFrom(r); err != nil {
		up.Abort()
		return nil, fmt.Errorf("upload %q: %w", filename, err)
	}
	return up.Commit()
}

// ReplaceName renames every revision of old to name and only then deletes
// the revisions name had before, so that a rename that fails loses nothing
// (WebDAV's MOVE with Overwrite: T, an editor saving through a temporary
// file). It returns ErrFileNotFound when old does not exist, or
// ErrInvalidFilename.
func (b *Bucket) ReplaceName(ctx context.Context, old, name string) error {
	if old == name {
		return nil
	}
	if err := CheckFilename(name); err != nil {
		return err
	}
	ls, err := b.acquireLeases(ctx, old, name)
	if err != nil {
		return err
	}
	// Under the leases: the revisions name had, and after the rename those
	// of them still named name (not another writer's), by _id.
	replaced, err := b.idsOf(ctx, bson.D{{Key: "filename", Value: name}})
	if err == nil {
		err = b.renameName(ctx, old, name)
	}
	if err != nil {
		ls.release(ctx)
		return err
	}
	var gone []any
	if len(replaced) > 0 {
		if gone, err = b.removeNamed(ctx, name, replaced); err != nil {
			err = fmt.Errorf("replace %q: the renamed file is in place, but earlier revisions of it stay: %w", name, err)
		}
	}
	ls.release(ctx)
	for _, id := range gone {
		b.dropChunks(ctx, id)
	}
	return err
}
