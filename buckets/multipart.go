package buckets

import (
	"context"
	"crypto/md5"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/gridfsd/gridfsd/chunker"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/bson"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/mongo"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/mongo/options"
)

// Multipart uploads (S3's model): a file sent in numbered parts, each
// streamed straight into chunks under a files_id of its own, invisible until
// Complete joins them into one GridFS file. The uploads and their parts are
// recorded in collections of gridfsd's own, so that every gateway sees them
// and the orphan sweeper leaves their chunks alone.
const (
	MultipartCollection = "_gridfsd_multipart"
	PartsCollection     = "_gridfsd_multipart_parts"
)

// MultipartChunkSize is the chunk size of multipart uploads in buckets that
// do not set one: 256 KiB divides the part sizes clients use (5, 8, 15 and
// 16 MiB), so that Complete relabels the parts' chunks instead of copying.
const MultipartChunkSize = 256 << 10

// MinPartSize is the smallest part but the last that Complete accepts (S3's
// limit); MaxPartNumber the highest part number.
const (
	MinPartSize   = 5 << 20
	MaxPartNumber = 10000
)

// Errors of multipart uploads.
var (
	ErrUploadNotFound = errors.New("multipart upload not found")
	ErrInvalidPart    = errors.New("invalid part")
	ErrPartOrder      = errors.New("parts are not in ascending order")
	ErrPartTooSmall   = errors.New("part is smaller than the minimum")
	// ErrUploadCompleting means a Complete of the upload is in progress:
	// its parts can no longer change, nor can it be aborted.
	ErrUploadCompleting = errors.New("multipart upload is being completed")
)

// MultipartUpload is a multipart upload in progress.
type MultipartUpload struct {
	ID        string        `bson:"_id"`
	Bucket    string        `bson:"bucket"`
	Filename  string        `bson:"filename"`
	FileID    bson.ObjectID `bson:"fileId"` // _id of the file Complete makes
	ChunkSize int           `bson:"chunkSize"`
	Metadata  bson.D        `bson:"metadata,omitempty"`
	Initiated time.Time     `bson:"initiated"`
	Initiator string        `bson:"initiator,omitempty"` // UploadOptions.Initiator
	// Completing is the token of the Complete in progress, if any, and
	// CompletingAt when it last said it was alive (see CompleteMultipartIf).
	Completing   string    `bson:"completing,omitempty"`
	CompletingAt time.Time `bson:"completingAt,omitempty"`
}

// completing reports whether a Complete holds the upload: marked, and
// alive within CompleteTTL.
func (mu *MultipartUpload) completing(now time.Time) bool {
	return mu.Completing != "" && mu.CompletingAt.After(now.Add(-CompleteTTL))
}

// CompleteTTL is how long the mark of a Complete outlives a gateway that
// died completing; a live Complete renews it at a third of that.
var CompleteTTL = LeaseTTL

// Part is one uploaded part.
type Part struct {
	Key      string        `bson:"_id"` // <upload id>/<part number, 5 digits>
	Upload   string        `bson:"upload"`
	Bucket   string        `bson:"bucket"`
	Number   int           `bson:"part"`
	FilesID  bson.ObjectID `bson:"filesId"` // files_id of the part's chunks
	Size     int64         `bson:"size"`
	MD5      string        `bson:"md5"` // hex
	Uploaded time.Time     `bson:"uploaded"`
	// Door holds what a front door keeps with the part (S3's checksum):
	// see PartUpload.SetField.
	Door bson.D `bson:"door,omitempty"`
}

func partKey(upload string, n int) string { return fmt.Sprintf("%s/%05d", upload, n) }

func (b *Bucket) uploads() *mongo.Collection { return b.db.db.Collection(MultipartCollection) }
func (b *Bucket) parts() *mongo.Collection   { return b.db.db.Collection(PartsCollection) }

// CreateMultipart starts a multipart upload of a file named filename, with
// the metadata and content type of opts (and its chunk size, else the
// bucket's, else MultipartChunkSize). It checks them as OpenUpload does.
func (b *Bucket) CreateMultipart(ctx context.Context, filename string, opts UploadOptions) (*MultipartUpload, error) {
	if err := CheckFilename(filename); err != nil {
		return nil, err
	}
	chunkSize := opts.ChunkSize
	if chunkSize == 0 {
		chunkSize = b.settings.ChunkSize
	}
	if chunkSize == 0 {
		chunkSize = MultipartChunkSize
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
	if err := b.db.checkSpace(0); err != nil {
		return nil, err
	}
	if err := b.ensureIndexes(ctx); err != nil {
		return nil, full(err)
	}
	var rnd [16]byte
	rand.Read(rnd[:])
	mu := &MultipartUpload{
		ID:        hex.EncodeToString(rnd[:]),
		Bucket:    b.name,
		Filename:  filename,
		FileID:    bson.NewObjectID(),
		ChunkSize: chunkSize,
		Metadata:  md,
		Initiated: time.Now().UTC().Truncate(time.Millisecond),
		Initiator: opts.Initiator,
	}
	if _, err := b.uploads().InsertOne(ctx, mu); err != nil {
		return nil, fmt.Errorf("create multipart upload of %q: %w", filename, full(err))
	}
	return mu, nil
}

// Multipart returns the upload with id id in this bucket, or
// ErrUploadNotFound.
func (b *Bucket) Multipart(ctx context.Context, id string) (*MultipartUpload, error) {
	var mu MultipartUpload
	err := b.uploads().FindOne(ctx, bson.D{{Key: "_id", Value: id}, {Key: "bucket", Value: b.name}}).Decode(&mu)
	if errors.Is(err, mongo.ErrNoDocuments) {
		return nil, fmt.Errorf("%w: %q in bucket %s", ErrUploadNotFound, id, b.name)
	}
	if err != nil {
		return nil, fmt.Errorf("find multipart upload %q: %w", id, err)
	}
	return &mu, nil
}

// ListMultipart returns the uploads in progress in this bucket whose
// filename starts with prefix, by filename and then start time.
func (b *Bucket) ListMultipart(ctx context.Context, prefix string) ([]MultipartUpload, error) {
	filter := bson.D{{Key: "bucket", Value: b.name}}
	if prefix != "" {
		filter = append(filter, bson.E{Key: "filename", Value: bson.D{{Key: "$gte", Value: prefix}}})
	}
	cur, err := b.uploads().Find(ctx, filter, options.Find().SetSort(bson.D{{Key: "filename", Value: 1}, {Key: "initiated", Value: 1}}))
	if err != nil {
		return nil, fmt.Errorf("list multipart uploads: %w", err)
	}
	var out []MultipartUpload
	if err := cur.All(ctx, &out); err != nil {
		return nil, fmt.Errorf("list multipart uploads: %w", err)
	}
	kept := out[:0]
	for _, mu := range out {
		if strings.HasPrefix(mu.Filename, prefix) {
			kept = append(kept, mu)
		}
	}
	return kept, nil
}

// ListParts returns the parts uploaded so far, by part number. It returns
// ErrUploadNotFound.
func (b *Bucket) ListParts(ctx context.Context, upload string) ([]Part, error) {
	if _, err := b.Multipart(ctx, upload); err != nil {
		return nil, err
	}
	return b.partsOf(ctx, upload)
}

func (b *Bucket) partsOf(ctx context.Context, upload string) ([]Part, error) {
	cur, err := b.parts().Find(ctx, bson.D{{Key: "upload", Value: upload}}, options.Find().SetSort(bson.D{{Key: "_id", Value: 1}}))
	if err != nil {
		return nil, fmt.Errorf("list parts of %q: %w", upload, err)
	}
	var out []Part
	if err := cur.All(ctx, &out); err != nil {
		return nil, fmt.Errorf("list parts of %q: %w", upload, err)
	}
	return out, nil
}

// PartUpload is a part being written: write its content, then Commit, or
// Abort.
type PartUpload struct {
	b      *Bucket
	ctx    context.Context
	upload string
	number int
	id     bson.ObjectID
	w      *chunker.Writer
	md5    *asyncHash
	max    int64 // the bucket's UploadLimit: no part, nor the whole, may pass it
	door   bson.D
	done   bool
}

// SetField keeps value under key in the part's record (Part.Door), written
// with the record by Commit: a second write after it could, on the
// embedded store, bring back a record that a retry of the same part had
// replaced meanwhile, naming chunks that retry removed.
func (p *PartUpload) SetField(key string, value any) {
	p.door = append(p.door, bson.E{Key: key, Value: value})
}

// OpenPart starts part number n (1 to MaxPartNumber) of the upload with id
// upload. It returns ErrUploadNotFound or ErrInvalidPart.
func (b *Bucket) OpenPart(ctx context.Context, upload string, n int) (*PartUpload, error) {
	if n < 1 || n > MaxPartNumber {
		return nil, fmt.Errorf("%w: part number %d is not between 1 and %d", ErrInvalidPart, n, MaxPartNumber)
	}
	mu, err := b.Multipart(ctx, upload)
	if err != nil {
		return nil, err
	}
	if err := b.db.checkSpace(0); err != nil {
		return nil, err
	}
	id := bson.NewObjectID()
	w, err := b.newChunkWriter(ctx, id, chunker.WriterOptions{ChunkSize: mu.ChunkSize})
	if err != nil {
		return nil, err
	}
	max, _ := b.UploadLimit()
	return &PartUpload{b: b, ctx: ctx, upload: upload, number: n, id: id, w: w, md5: newAsyncHash(md5.New()), max: max}, nil
}

// ReadFrom copies r into the part until EOF. A part larger than the
// bucket's UploadLimit fails with ErrTooLarge (the whole upload could not
// complete anyway) and is aborted; when the store runs short of space it
// returns ErrInsufficientStorage (then the caller aborts).
func (p *PartUpload) ReadFrom(r io.Reader) (int64, error) {
	r = io.TeeReader(p.b.db.guardSpace(r), p.md5)
	if p.max <= 0 {
		n, err := p.w.ReadFrom(r)
		return n, full(err)
	}
	// One byte more than allowed tells an oversized part from a full one.
	n, err := p.w.ReadFrom(io.LimitReader(r, p.max-p.w.Length()+1))
	if err == nil && p.w.Length() > p.max {
		p.Abort()
		limit, name := p.b.UploadLimit()
		return n, fmt.Errorf("%w: part %d: more than the %s of %d bytes", ErrTooLarge, p.number, name, limit)
	}
	return n, full(err)
}

// Length is the number of bytes written so far.
func (p *PartUpload) Length() int64 { return p.w.Length() }

// SHA256 and MD5 are the digests of the bytes written so far.
func (p *PartUpload) SHA256() []byte { return p.w.Sum() }

// MD5 is the MD5 of the bytes written so far.
func (p *PartUpload) MD5() []byte { return p.md5.Sum() }

// Commit stores the part, replacing an earlier part of the same number
// (whose chunks it removes). It returns ErrUploadNotFound when the upload
// was completed or aborted meanwhile; then nothing of the part remains.
func (p *PartUpload) Commit() (*Part, error) {
	if p.done {
		return nil, chunker.ErrClosed
	}
	p.done = true
	if err := p.w.Close(); err != nil {
		p.md5.Close()
		return nil, fmt.Errorf("upload part %d: %w", p.number, full(err))
	}
	part := &Part{
		Key: partKey(p.upload, p.number), Upload: p.upload, Bucket: p.b.name, Number: p.number,
		FilesID: p.id, Size: p.w.Length(), MD5: hex.EncodeToString(p.md5.Sum()),
		Uploaded: time.Now().UTC().Truncate(time.Millisecond), Door: p.door,
	}
	return p.b.recordPart(context.WithoutCancel(p.ctx), part)
}

// recordPart records part, whose chunks are stored, as its upload's part
// of its number, replacing an earlier one (whose chunks it removes). It
// returns ErrUploadNotFound when the upload was completed or aborted
// meanwhile; then nothing of the part remains.
func (b *Bucket) recordPart(ctx context.Context, part *Part) (*Part, error) {
	fail := func(err error) (*Part, error) {
		b.removeChunksOf(ctx, part.FilesID)
		return nil, err
	}
	mu, err := b.Multipart(ctx, part.Upload)
	if err != nil {
		return fail(err)
	}
	if mu.completing(time.Now()) {
		return fail(fmt.Errorf("%w: part %d of %q", ErrUploadCompleting, part.Number, part.Upload))
	}
	var old Part
	err = b.parts().FindOneAndReplace(ctx, bson.D{{Key: "_id", Value: part.Key}}, part,
		options.FindOneAndReplace().SetUpsert(true).SetReturnDocument(options.Before)).Decode(&old)
	if err != nil && !errors.Is(err, mongo.ErrNoDocuments) {
		return fail(fmt.Errorf("record part %d: %w", part.Number, full(err)))
	}
	replaced := err == nil
	// Read again after the record changed: a Complete marks the upload
	// before it reads the parts, so if none is marked now, none has read
	// the old record, and its chunks may go.
	mu, err = b.Multipart(ctx, part.Upload)
	switch {
	case errors.Is(err, ErrUploadNotFound):
		// An Abort that ran while this part streamed has removed the
		// other parts; this one must go too. (After a Complete that used
		// this record, its chunks have moved: nothing of them goes.)
		b.parts().DeleteOne(ctx, bson.D{{Key: "_id", Value: part.Key}, {Key: "filesId", Value: part.FilesID}})
		return fail(err)
	case err != nil:
		return nil, err // both records' chunks stay; the sweepers decide
	case mu.Completing != "":
		// A Complete started meanwhile and may use either record: remove
		// neither's chunks. The one it does not use is no part any more,
		// and the orphan sweeper removes it.
		return nil, fmt.Errorf("%w: part %d of %q", ErrUploadCompleting, part.Number, part.Upload)
	}
	if replaced && old.FilesID != part.FilesID {
		b.removeChunksOf(ctx, old.FilesID)
	}
	return part, nil
}

// Abort stops the part and removes what it wrote.
func (p *PartUpload) Abort() error {
	if p.done {
		return nil
	}
	p.done = true
	p.md5.Close()
	return p.w.Abort()
}

func (b *Bucket) removeChunksOf(ctx context.Context, filesID any) error {
	if _, err := b.deleteChunks(ctx, filesID); err != nil {
		return fmt.Errorf("remove chunks: %w", err)
	}
	return nil
}

// CompletedPart names a part for Complete: its number and the MD5 (hex)
// the client got when it uploaded it.
type CompletedPart struct {
	Number int
	MD5    string
}

// MultipartETag is the S3 ETag of a multipart object: the hex MD5 of the
// concatenated binary MD5s of its parts, a dash and the number of parts.
func MultipartETag(md5s []string) (string, error) {
	h := md5.New()
	for _, s := range md5s {
		b, err := hex.DecodeString(s)
		if err != nil {
			return "", fmt.Errorf("%w: MD5 %q is not hex", ErrInvalidPart, s)
		}
		h.Write(b)
	}
	return fmt.Sprintf("%x-%d", h.Sum(nil), len(md5s)), nil
}

// CompleteMultipart joins the listed parts, in ascending order, into one
// file named as the upload says, and removes the upload and every part.
// When every part but the last has one size, a multiple of the chunk size,
// and the last is no larger, the parts' chunks are relabelled in place (no
// data is copied); otherwise their content is copied into a new file. It
// returns ErrUploadNotFound, ErrInvalidPart (a part that does not exist or
// whose MD5 differs), ErrPartOrder, ErrPartTooSmall or ErrTooLarge (the
// parts' total is over the bucket's UploadLimit), having changed nothing.
func (b *Bucket) CompleteMultipart(ctx context.Context, upload string, list []CompletedPart) (*File, error) {
	return b.CompleteMultipartIf(ctx, upload, list, Conditions{})
}

// CompleteMultipartIf is CompleteMultipart with conditions on the newest
// revision of the name, checked atomically with the commit as an upload's
// are (see the commit protocol in the package doc); a failed one returns
// ErrPreconditionFailed and leaves the upload as it was.
func (b *Bucket) CompleteMultipartIf(ctx context.Context, upload string, list []CompletedPart, cond Conditions) (*File, error) {
	if _, err := b.Multipart(ctx, upload); err != nil {
		return nil, err
	}
	if len(list) == 0 {
		return nil, fmt.Errorf("%w: no parts listed", ErrInvalidPart)
	}
	// Mark the upload as completing before reading its parts: from then
	// on no part commit removes the chunks of a part this Complete may
	// use, no Abort or sweep removes the upload, and no other Complete,
	// on any gateway, runs (see PartUpload.Commit).
	mu, token, err := b.markCompleting(ctx, upload)
	if err != nil {
		return nil, err
	}
	wctx := context.WithoutCancel(ctx)
	stopRenew := b.renewCompleting(wctx, upload, token)
	f, err := b.complete(ctx, mu, list, cond)
	stopRenew()
	if err != nil {
		b.underMultipartLease(wctx, upload, func() error {
			if mu, err := b.Multipart(wctx, upload); err != nil || mu.Completing != token {
				return nil // taken over: this Complete's mark is gone
			}
			_, err := b.uploads().UpdateOne(wctx, bson.D{{Key: "_id", Value: upload}},
				bson.D{{Key: "$unset", Value: bson.D{{Key: "completing", Value: ""}, {Key: "completingAt", Value: ""}}}})
			return err
		})
		return nil, err
	}
	return f, nil
}

// markCompleting marks the upload as completing with a new token, unless
// a live Complete holds it (ErrUploadCompleting) or it is gone
// (ErrUploadNotFound). A mark older than CompleteTTL is taken over: its
// gateway died.
func (b *Bucket) markCompleting(ctx context.Context, upload string) (*MultipartUpload, string, error) {
	var rnd [12]byte
	rand.Read(rnd[:])
	token := hex.EncodeToString(rnd[:])
	var mu *MultipartUpload
	err := b.underMultipartLease(ctx, upload, func() error {
		var err error
		if mu, err = b.Multipart(ctx, upload); err != nil {
			return err
		}
		now := time.Now().UTC()
		if mu.completing(now) {
			return fmt.Errorf("%w: %q", ErrUploadCompleting, upload)
		}
		if _, err := b.uploads().UpdateOne(ctx, bson.D{{Key: "_id", Value: upload}},
			bson.D{{Key: "$set", Value: bson.D{{Key: "completing", Value: token}, {Key: "completingAt", Value: now}}}}); err != nil {
			return fmt.Errorf("mark multipart upload %q: %w", upload, full(err))
		}
		mu.Completing, mu.CompletingAt = token, now
		return nil
	})
	if err != nil {
		return nil, "", err
	}
	return mu, token, nil
}

// underMultipartLease runs change, which reads the upload's record and
// changes it by what it read (its Complete's mark, its removal), under a
// lease of the upload's own. Why not a find-and-modify filtered on the
// mark: the embedded store evaluates such a filter apart from its write
// (see the package doc), so a Complete and an Abort on two gateways each
// found the upload unmarked, and the Abort removed the parts the Complete
// was joining.
func (b *Bucket) underMultipartLease(ctx context.Context, upload string, change func() error) error {
	id := leaseID(b.name, "\x00multipart\x00"+upload)
	l, err := b.acquireLease(ctx, id, "multipart upload "+upload)
	if err != nil {
		return fmt.Errorf("multipart upload %q: %w", upload, err)
	}
	defer leases{l}.release(ctx)
	return change()
}

// renewCompleting keeps the mark alive while a long Complete (a copy)
// runs; the returned func stops it.
func (b *Bucket) renewCompleting(ctx context.Context, upload, token string) (stop func()) {
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		t := time.NewTicker(CompleteTTL / 3)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				b.uploads().UpdateOne(ctx, bson.D{{Key: "_id", Value: upload}, {Key: "completing", Value: token}},
					bson.D{{Key: "$set", Value: bson.D{{Key: "completingAt", Value: time.Now().UTC()}}}})
			}
		}
	}()
	return func() {
		close(done)
		<-stopped
	}
}

// lastOfEach keeps, of consecutive entries with one part number, the
// last: a client that uploaded a part again while the first upload was
// still running lists both ETags in the order it sent them, and the later
// upload is the part (ceph's s3-tests, test_multipart_resend_first_finishes_last;
// RGW answers so). That entry's ETag must still be the stored part's.
func lastOfEach(list []CompletedPart) []CompletedPart {
	out := list[:0:0]
	for i, c := range list {
		if i+1 < len(list) && list[i+1].Number == c.Number {
			continue
		}
		out = append(out, c)
	}
	return out
}

// complete joins the listed parts of mu, which this Complete has marked.
func (b *Bucket) complete(ctx context.Context, mu *MultipartUpload, list []CompletedPart, cond Conditions) (*File, error) {
	stored, err := b.partsOf(ctx, mu.ID)
	if err != nil {
		return nil, err
	}
	byNumber := make(map[int]Part, len(stored))
	for _, p := range stored {
		byNumber[p.Number] = p
	}
	list = lastOfEach(list)
	parts := make([]Part, len(list))
	md5s := make([]string, len(list))
	for i, c := range list {
		if i > 0 && c.Number <= list[i-1].Number {
			return nil, fmt.Errorf("%w: part %d after part %d", ErrPartOrder, c.Number, list[i-1].Number)
		}
		p, ok := byNumber[c.Number]
		if !ok || !strings.EqualFold(strings.Trim(c.MD5, `"`), p.MD5) {
			return nil, fmt.Errorf("%w: part %d was not uploaded or its ETag differs", ErrInvalidPart, c.Number)
		}
		if i < len(list)-1 && p.Size < MinPartSize {
			return nil, fmt.Errorf("%w: part %d has %d bytes, less than %d", ErrPartTooSmall, c.Number, p.Size, MinPartSize)
		}
		parts[i], md5s[i] = p, p.MD5
	}
	var total int64
	for _, p := range parts {
		total += p.Size
	}
	if err := b.CheckUploadSize(total); err != nil {
		return nil, fmt.Errorf("complete %q: %w", mu.Filename, err)
	}
	etag, err := MultipartETag(md5s)
	if err != nil {
		return nil, err
	}
	wctx := context.WithoutCancel(ctx)
	var f *File
	if relabel(parts, mu.ChunkSize) {
		f, err = b.joinInPlace(wctx, mu, parts, etag, cond)
	} else {
		f, err = b.joinByCopy(ctx, mu, parts, etag, cond)
	}
	if err != nil {
		return nil, full(err)
	}
	b.finishMultipart(wctx, mu, parts)
	return f, nil
}

// relabel reports whether parts can become one file by changing their
// chunks' files_id and n only.
func relabel(parts []Part, chunkSize int) bool {
	size := parts[0].Size
	if size%int64(chunkSize) != 0 {
		return len(parts) == 1
	}
	for i, p := range parts {
		if i < len(parts)-1 && p.Size != size || p.Size > size {
			return false
		}
	}
	return true
}

// joinInPlace moves each part's chunks to the file's _id, offset by the
// chunks before it, then writes the files document. A retry after a
// failure moves what is left: moved chunks no longer match their part.
func (b *Bucket) joinInPlace(ctx context.Context, mu *MultipartUpload, parts []Part, etag string, cond Conditions) (*File, error) {
	// Checked before any chunk moves, under the name's lease (taken
	// without conditions too, as commitFile explains).
	var null *File // the null version a suspended bucket's commit replaces
	defer func() {
		// After the lease is given back (deferred later, run first).
		if null != nil {
			b.dropChunks(ctx, null.ID)
		}
	}()
	ls, err := b.acquireLeases(ctx, mu.Filename)
	if err != nil {
		return nil, fmt.Errorf("complete %q: %w", mu.Filename, err)
	}
	defer ls.release(ctx)
	cur, top, err := b.newestRevisions(ctx, mu.Filename)
	if err != nil {
		return nil, fmt.Errorf("complete %q: %w", mu.Filename, err)
	}
	if err := cond.Check(cur); err != nil {
		return nil, fmt.Errorf("complete %q: %w", mu.Filename, err)
	}
	replaced, err := b.replacedNull(ctx, mu.Filename)
	if err != nil {
		return nil, fmt.Errorf("complete %q: %w", mu.Filename, err)
	}
	date := after(top)
	perPart := int32(parts[0].Size / int64(mu.ChunkSize))
	var length int64
	for i, p := range parts {
		_, err := b.chunks.UpdateMany(ctx, bson.D{{Key: "files_id", Value: p.FilesID}}, bson.D{
			{Key: "$set", Value: bson.D{{Key: "files_id", Value: mu.FileID}}},
			{Key: "$inc", Value: bson.D{{Key: "n", Value: int32(i) * perPart}}},
		})
		b.db.cache.Invalidate(b.chunks, p.FilesID)
		b.db.cache.Invalidate(b.chunks, mu.FileID)
		if err != nil {
			return nil, fmt.Errorf("complete %q: move chunks of part %d: %w", mu.Filename, p.Number, full(err))
		}
		length += p.Size
	}
	// Never publish a file whose chunks are not all there (as an upload's
	// commit checks): they were removed by something that took no part in
	// this upload's protocol.
	want := (length + int64(mu.ChunkSize) - 1) / int64(mu.ChunkSize)
	if n, err := b.chunks.CountDocuments(ctx, bson.D{{Key: "files_id", Value: mu.FileID}}); err != nil {
		return nil, fmt.Errorf("complete %q: count chunks: %w", mu.Filename, err)
	} else if n != want {
		if f, err := b.Stat(ctx, mu.FileID); err == nil {
			return f, nil // completed by an earlier attempt, whose chunks readers may have
		}
		return nil, fmt.Errorf("complete %q: %w: %d of %d chunks are stored", mu.Filename, ErrChunksLost, n, want)
	}
	doc := bson.D{
		{Key: "_id", Value: mu.FileID},
		{Key: "length", Value: length},
		{Key: "chunkSize", Value: int32(mu.ChunkSize)},
		{Key: "uploadDate", Value: bson.NewDateTimeFromTime(date)},
		{Key: "filename", Value: mu.Filename},
	}
	if len(mu.Metadata) > 0 {
		doc = append(doc, bson.E{Key: "metadata", Value: mu.Metadata})
	}
	doc = append(doc, bson.E{Key: FieldS3ETag, Value: etag}, bson.E{Key: FieldS3UploadID, Value: mu.ID})
	doc = append(doc, b.versionFields()...)
	raw, err := bson.Marshal(doc)
	if err != nil {
		return nil, fmt.Errorf("complete %q: %w", mu.Filename, err)
	}
	if _, err := b.files.InsertOne(ctx, raw); err != nil {
		if mongo.IsDuplicateKeyError(err) {
			return b.Stat(ctx, mu.FileID) // completed by an earlier attempt
		}
		return nil, fmt.Errorf("complete %q: write files document: %w", mu.Filename, full(err))
	}
	if replaced != nil && b.removeFilesDoc(ctx, replaced) == nil {
		null = replaced
	}
	return ParseFile(raw)
}

// joinByCopy streams the parts' content into a new file with the upload's
// file id.
func (b *Bucket) joinByCopy(ctx context.Context, mu *MultipartUpload, parts []Part, etag string, cond Conditions) (*File, error) {
	var size int64
	for _, p := range parts {
		size += p.Size
	}
	up, err := b.OpenUpload(ctx, mu.Filename, UploadOptions{
		ID: mu.FileID, ChunkSize: mu.ChunkSize, Metadata: mu.Metadata, Conditions: cond,
		Extra: bson.D{{Key: FieldS3ETag, Value: etag}, {Key: FieldS3UploadID, Value: mu.ID}}, Size: size,
	})
	if err != nil {
		return nil, fmt.Errorf("complete %q: %w", mu.Filename, err)
	}
	for _, p := range parts {
		r, err := chunker.NewReader(ctx, b.chunks, chunker.File{ID: p.FilesID, Length: p.Size, ChunkSize: mu.ChunkSize})
		if err == nil {
			_, err = up.ReadFrom(r)
		}
		if err != nil {
			up.Abort()
			return nil, fmt.Errorf("complete %q: copy part %d: %w", mu.Filename, p.Number, err)
		}
	}
	return up.Commit()
}

// AbortMultipart removes the upload and every part of it. It returns
// ErrUploadNotFound.
func (b *Bucket) AbortMultipart(ctx context.Context, upload string) error {
	if _, err := b.Multipart(ctx, upload); err != nil {
		return err
	}
	return b.removeMultipart(context.WithoutCancel(ctx), upload, nil)
}

// removeMultipart aborts an upload: it deletes the upload record first,
// so that no part commits after it, unless a live Complete holds it
// (ErrUploadCompleting); then every part and its chunks, and the chunks a
// failed Complete moved under the file's id.
func (b *Bucket) removeMultipart(ctx context.Context, upload string, _ []Part) error {
	var mu *MultipartUpload
	err := b.underMultipartLease(ctx, upload, func() error {
		var err error
		if mu, err = b.Multipart(ctx, upload); err != nil {
			return err
		}
		if mu.completing(time.Now()) {
			return fmt.Errorf("%w: %q", ErrUploadCompleting, upload)
		}
		if _, err := b.uploads().DeleteOne(ctx, bson.D{{Key: "_id", Value: upload}}); err != nil {
			return fmt.Errorf("remove multipart upload %q: %w", upload, full(err))
		}
		return nil
	})
	if errors.Is(err, ErrUploadNotFound) {
		return b.removeParts(ctx, upload, nil) // parts left by an earlier attempt
	}
	if err != nil {
		return err
	}
	if err := b.removeParts(ctx, upload, nil); err != nil {
		return err
	}
	if _, err := b.Stat(ctx, mu.FileID); errors.Is(err, ErrFileNotFound) {
		return b.removeChunksOf(ctx, mu.FileID)
	}
	return nil
}

// finishMultipart removes a completed upload, the parts it did not use and
// their chunks (those of the parts it used are no longer under the part's
// files_id, so they stay).
func (b *Bucket) finishMultipart(ctx context.Context, mu *MultipartUpload, used []Part) error {
	if _, err := b.uploads().DeleteOne(ctx, bson.D{{Key: "_id", Value: mu.ID}}); err != nil {
		return fmt.Errorf("remove multipart upload %q: %w", mu.ID, full(err))
	}
	return b.removeParts(ctx, mu.ID, used)
}

// removeParts removes every part of upload, and the chunks still under
// its and used's files_ids.
func (b *Bucket) removeParts(ctx context.Context, upload string, used []Part) error {
	parts, err := b.partsOf(ctx, upload)
	if err != nil {
		return err
	}
	seen := make(map[bson.ObjectID]bool, len(parts))
	for _, p := range append(parts, used...) {
		if seen[p.FilesID] {
			continue // a used part is usually still recorded: one delete each
		}
		seen[p.FilesID] = true
		if err := b.removeChunksOf(ctx, p.FilesID); err != nil {
			return err
		}
	}
	if _, err := b.parts().DeleteMany(ctx, bson.D{{Key: "upload", Value: upload}}); err != nil {
		return fmt.Errorf("remove parts of %q: %w", upload, full(err))
	}
	return nil
}

// SweepMultipart aborts the uploads of this bucket started before
// olderThan ago, and removes parts left by uploads that no longer exist
// (a part that committed while its upload was aborted) once they are as
// old. It returns how many uploads it aborted.
func (b *Bucket) SweepMultipart(ctx context.Context, olderThan time.Duration) (int, error) {
	cutoff := time.Now().Add(-olderThan)
	cur, err := b.uploads().Find(ctx, bson.D{{Key: "bucket", Value: b.name}, {Key: "initiated", Value: bson.D{{Key: "$lt", Value: cutoff}}}})
	if err != nil {
		return 0, fmt.Errorf("sweep multipart uploads: %w", err)
	}
	var old []MultipartUpload
	if err := cur.All(ctx, &old); err != nil {
		return 0, fmt.Errorf("sweep multipart uploads: %w", err)
	}
	n := 0
	for _, mu := range old {
		if err := b.removeMultipart(ctx, mu.ID, nil); errors.Is(err, ErrUploadCompleting) {
			continue
		} else if err != nil {
			return n, err
		}
		n++
	}
	cur, err = b.parts().Find(ctx, bson.D{{Key: "bucket", Value: b.name}, {Key: "uploaded", Value: bson.D{{Key: "$lt", Value: cutoff}}}})
	if err != nil {
		return n, fmt.Errorf("sweep parts: %w", err)
	}
	var parts []Part
	if err := cur.All(ctx, &parts); err != nil {
		return n, fmt.Errorf("sweep parts: %w", err)
	}
	for _, p := range parts {
		if _, err := b.Multipart(ctx, p.Upload); errors.Is(err, ErrUploadNotFound) {
			b.removeChunksOf(ctx, p.FilesID)
			b.parts().DeleteOne(ctx, bson.D{{Key: "_id", Value: p.Key}})
		}
	}
	return n, nil
}

// multipartIDs are the files_ids whose chunks belong to multipart uploads
// of this bucket in progress: their parts', and the files Complete is
// making. The orphan sweeper must leave them alone.
func (b *Bucket) multipartIDs(ctx context.Context) ([]bson.RawValue, error) {
	var ids []bson.RawValue
	collect := func(coll *mongo.Collection, field string) error {
		cur, err := coll.Find(ctx, bson.D{{Key: "bucket", Value: b.name}}, options.Find().SetProjection(bson.D{{Key: field, Value: 1}}))
		if err != nil {
			return err
		}
		return eachRaw(ctx, cur, func(doc bson.Raw) error {
			ids = append(ids, doc.Lookup(field))
			return nil
		})
	}
	if err := collect(b.uploads(), "fileId"); err != nil {
		return nil, fmt.Errorf("list multipart uploads: %w", err)
	}
	if err := collect(b.parts(), "filesId"); err != nil {
		return nil, fmt.Errorf("list multipart parts: %w", err)
	}
	return ids, nil
}
