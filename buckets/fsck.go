package buckets

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/gridfsd/gridfsd/third_party/mongo-driver/bson"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/mongo"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/mongo/options"
)

// DefaultGrace is how old the newest chunk of a files_id without a files
// document must be before fsck calls its chunks orphaned. Uploads write
// their files document last, so younger chunks may belong to an upload
// still in progress.
const DefaultGrace = time.Hour

// inBatch bounds the values of one $in or $or, so that no query document
// nears MongoDB's 16 MiB limit whatever the ids are.
const inBatch = 500

// Orphan is the chunks of one files_id that has no files document: left by
// an upload that stopped before writing its files document, by a delete
// that stopped between files document and chunks, or written by an upload
// that is still running.
type Orphan struct {
	FilesID any
	Chunks  int64
	// NewestChunk is the largest chunk _id; its timestamp says when the
	// newest chunk was written. It is zero when some chunk _id is not an
	// ObjectID, so the age is unknown.
	NewestChunk bson.ObjectID
}

// Newest is when the newest chunk was written; zero when unknown.
func (o Orphan) Newest() time.Time {
	if o.NewestChunk.IsZero() {
		return time.Time{}
	}
	return o.NewestChunk.Timestamp()
}

// Orphans are a bucket's orphaned chunks by age.
type Orphans struct {
	// Old are older than the grace period: no upload is writing them.
	Old []Orphan
	// Pending are younger, or of unknown age: they may belong to an upload
	// in progress and are never removed.
	Pending []Orphan
}

// FindOrphans finds the chunks whose files_id has no files document, and
// sorts them by whether their newest chunk is older than grace (0 means
// DefaultGrace). It reads the files_id of every chunk through the
// {files_id, n} index (eachChunkFilesIDs), looks the distinct ones up among
// the files' _ids inBatch at a time, and reads the _id of the candidates'
// chunks (never their data) in batches of inBatch ids. Its memory holds a
// batch and the orphans, however many files the bucket holds.
func (b *Bucket) FindOrphans(ctx context.Context, grace time.Duration) (*Orphans, error) {
	if grace == 0 {
		grace = DefaultGrace
	}
	if grace < 0 {
		return nil, fmt.Errorf("%w: grace period %s is negative", ErrInvalidQuery, grace)
	}
	// Candidates are the files_ids of chunks without a files document.
	// Chunks first, files second: a file committed in between is then
	// seen as complete rather than as a candidate.
	cand := make(map[string]*Orphan)
	var order []string
	err := b.eachChunkFilesIDs(ctx, func(ids []bson.RawValue) error {
		batch := make(map[string]bson.RawValue, len(ids))
		in := make(bson.A, 0, len(ids))
		for _, v := range ids {
			batch[idKey(v)] = v
			in = append(in, v)
		}
		cur, err := b.files.Find(ctx, bson.D{{Key: "_id", Value: bson.D{{Key: "$in", Value: in}}}},
			options.Find().SetProjection(bson.D{{Key: "_id", Value: 1}}))
		if err != nil {
			return fmt.Errorf("list files: %w", err)
		}
		err = eachRaw(ctx, cur, func(doc bson.Raw) error {
			delete(batch, idKey(doc.Lookup("_id")))
			return nil
		})
		if err != nil {
			return fmt.Errorf("list files: %w", err)
		}
		for _, v := range ids {
			k := idKey(v)
			if _, orphan := batch[k]; !orphan {
				continue
			}
			if _, dup := cand[k]; dup {
				continue
			}
			var id any
			if err := v.Unmarshal(&id); err != nil {
				return fmt.Errorf("files_id %v: %w", v, err)
			}
			cand[k] = &Orphan{FilesID: id}
			order = append(order, k)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("find orphans: %w", err)
	}
	if len(cand) == 0 {
		return &Orphans{}, nil
	}
	// Chunks of multipart uploads in progress have no files document yet.
	live, err := b.multipartIDs(ctx)
	if err != nil {
		return nil, fmt.Errorf("find orphans: %w", err)
	}
	for _, v := range live {
		delete(cand, idKey(v))
	}
	// So have resumable uploads, unfinished or not yet joined.
	if live, err = b.resumableIDs(ctx); err != nil {
		return nil, fmt.Errorf("find orphans: %w", err)
	}
	for _, v := range live {
		delete(cand, idKey(v))
	}

	var list []*Orphan
	for _, k := range order {
		if o, ok := cand[k]; ok {
			list = append(list, o)
		}
	}
	unknownAge := make(map[string]bool)
	for start := 0; start < len(list); start += inBatch {
		batch := list[start:min(start+inBatch, len(list))]
		ids := make(bson.A, len(batch))
		for i, o := range batch {
			ids[i] = o.FilesID
		}
		cur, err := b.chunks.Find(ctx,
			bson.D{{Key: "files_id", Value: bson.D{{Key: "$in", Value: ids}}}},
			options.Find().SetProjection(bson.D{{Key: "_id", Value: 1}, {Key: "files_id", Value: 1}}))
		if err != nil {
			return nil, fmt.Errorf("find orphans: read chunk ids: %w", err)
		}
		err = eachRaw(ctx, cur, func(doc bson.Raw) error {
			k := idKey(doc.Lookup("files_id"))
			o, ok := cand[k]
			if !ok {
				return nil
			}
			o.Chunks++
			oid, ok := doc.Lookup("_id").ObjectIDOK()
			if !ok {
				unknownAge[k] = true
			} else if bytes.Compare(oid[:], o.NewestChunk[:]) > 0 {
				o.NewestChunk = oid
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("find orphans: read chunk ids: %w", err)
		}
	}

	cutoff := time.Now().Add(-grace)
	out := &Orphans{}
	for _, k := range order {
		o, ok := cand[k]
		if !ok || o.Chunks == 0 { // removed since the first query
			continue
		}
		if unknownAge[k] {
			o.NewestChunk = bson.ObjectID{}
		}
		if !o.NewestChunk.IsZero() && o.Newest().Before(cutoff) {
			out.Old = append(out.Old, *o)
		} else {
			out.Pending = append(out.Pending, *o)
		}
	}
	return out, nil
}

// RemoveOrphans deletes the chunks of orphans, as FindOrphans returned them.
// It returns the orphans it removed and how many chunks it deleted. It first
// checks again that no files document has appeared for them since, and
// deletes only chunks no newer than each orphan's NewestChunk, so a chunk
// written since the scan stays. Orphans of unknown age are left alone.
func (b *Bucket) RemoveOrphans(ctx context.Context, orphans []Orphan) (removed []Orphan, chunks int64, err error) {
	var todo []Orphan
	for _, o := range orphans {
		if !o.NewestChunk.IsZero() {
			todo = append(todo, o)
		}
	}
	for start := 0; start < len(todo); start += inBatch {
		batch := todo[start:min(start+inBatch, len(todo))]
		ids := make(bson.A, len(batch))
		for i, o := range batch {
			ids[i] = o.FilesID
		}
		cur, err := b.files.Find(ctx, bson.D{{Key: "_id", Value: bson.D{{Key: "$in", Value: ids}}}},
			options.Find().SetProjection(bson.D{{Key: "_id", Value: 1}}))
		if err != nil {
			return removed, chunks, fmt.Errorf("remove orphans: check files: %w", err)
		}
		live := make(map[string]bool)
		err = eachRaw(ctx, cur, func(doc bson.Raw) error {
			live[idKey(doc.Lookup("_id"))] = true
			return nil
		})
		if err != nil {
			return removed, chunks, fmt.Errorf("remove orphans: check files: %w", err)
		}
		var gone []Orphan
		var or bson.A
		for _, o := range batch {
			raw, err := rawValue(o.FilesID)
			if err != nil {
				return removed, chunks, fmt.Errorf("remove orphans: files_id %v: %w", o.FilesID, err)
			}
			if live[idKey(raw)] {
				continue
			}
			gone = append(gone, o)
			or = append(or, bson.D{
				{Key: "files_id", Value: o.FilesID},
				{Key: "_id", Value: bson.D{{Key: "$lte", Value: o.NewestChunk}}},
			})
		}
		if len(or) == 0 {
			continue
		}
		res, err := b.chunks.DeleteMany(ctx, bson.D{{Key: "$or", Value: or}})
		for _, o := range gone {
			b.db.cache.Invalidate(b.chunks, o.FilesID)
		}
		if err != nil {
			return removed, chunks, fmt.Errorf("remove orphans: %w", full(err))
		}
		removed = append(removed, gone...)
		chunks += res.DeletedCount
	}
	return removed, chunks, nil
}

// Damaged is a file whose chunks do not match its files document.
type Damaged struct {
	File *File
	// Problems each wrap ErrChunkMissing, ErrChunkSize or ErrExtraChunk.
	Problems []error
}

// FsckReport is what Fsck found in a bucket.
type FsckReport struct {
	Files   int64 // files documents checked
	Chunks  int64 // chunks seen, orphans included
	Damaged []Damaged
	Orphans
}

// Fsck checks a bucket's structure without reading file content: orphaned
// chunks (see FindOrphans), and files whose chunks are missing, of the
// wrong size or beyond their length. It reads every files document once and
// every chunk's files_id, n and size once; on MongoDB 4.4 and later the
// sizes come from $binarySize, so no chunk data leaves the server (stores
// without it, such as the embedded one, send the data instead). Verify
// checks content as well.
func (b *Bucket) Fsck(ctx context.Context, grace time.Duration) (*FsckReport, error) {
	return b.FsckProgress(ctx, grace, nil)
}

// FsckProgress is Fsck telling progress, unless nil, the size of every
// chunk it checks.
func (b *Bucket) FsckProgress(ctx context.Context, grace time.Duration, progress Progress) (*FsckReport, error) {
	orphans, err := b.FindOrphans(ctx, grace)
	if err != nil {
		return nil, err
	}
	rep := &FsckReport{Orphans: *orphans}

	type state struct {
		f      *File
		chunkN int64
		found  int64
		p      problems
	}
	files := make(map[string]*state)
	var order []string
	fields := bson.D{{Key: "_id", Value: 1}, {Key: "length", Value: 1}, {Key: "chunkSize", Value: 1}, {Key: "filename", Value: 1}}
	cur, err := b.files.Find(ctx, bson.D{}, options.Find().SetProjection(fields))
	if err != nil {
		return nil, fmt.Errorf("fsck %s: list files: %w", b.name, err)
	}
	err = eachRaw(ctx, cur, func(doc bson.Raw) error {
		f, err := ParseFile(doc)
		if err != nil {
			return err
		}
		k := idKey(doc.Lookup("_id"))
		order = append(order, k)
		files[k] = &state{f: f, chunkN: chunkCount(f)}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("fsck %s: list files: %w", b.name, err)
	}
	rep.Files = int64(len(files))

	cur, withData, err := b.chunkSizes(ctx)
	if err != nil {
		return nil, fmt.Errorf("fsck %s: read chunks: %w", b.name, err)
	}
	err = eachRaw(ctx, cur, func(doc bson.Raw) error {
		rep.Chunks++
		s, ok := files[idKey(doc.Lookup("files_id"))]
		if !ok {
			return nil // an orphan, or a file committed since the files were listed
		}
		n, ok := doc.Lookup("n").AsInt64OK()
		if !ok || n < 0 || n >= s.chunkN {
			s.p.add(fmt.Errorf("chunk n=%v, but the file has %d: %w", doc.Lookup("n"), s.chunkN, ErrExtraChunk))
			return nil
		}
		var size int64
		if withData {
			_, data, _ := doc.Lookup("data").BinaryOK()
			size = int64(len(data))
		} else if size, ok = doc.Lookup("size").AsInt64OK(); !ok {
			size = -1 // data is not binary
		}
		if progress != nil && size > 0 {
			progress(int(size))
		}
		if want := expectedSize(s.f, s.chunkN, n); size != want {
			s.p.add(fmt.Errorf("chunk %d has %d bytes, want %d: %w", n, size, want, ErrChunkSize))
		}
		s.found++
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("fsck %s: read chunks: %w", b.name, err)
	}

	for _, k := range order {
		s := files[k]
		if s.found < s.chunkN {
			s.p.add(fmt.Errorf("%d of %d chunks: %w", s.chunkN-s.found, s.chunkN, ErrChunkMissing))
		}
		if len(s.p.list) == 0 {
			continue
		}
		// A file deleted during the scan loses its chunks; that is not
		// damage, so confirm the file is still there.
		if _, err := b.Stat(ctx, s.f.ID); errors.Is(err, ErrFileNotFound) {
			rep.Files--
			continue
		} else if err != nil {
			return nil, fmt.Errorf("fsck %s: %w", b.name, err)
		}
		rep.Damaged = append(rep.Damaged, Damaged{File: s.f, Problems: s.p.result()})
	}
	return rep, nil
}

// chunkSizes opens a cursor over every chunk's files_id, n and data size.
// withData is true when the store cannot compute the size ($binarySize is
// MongoDB 4.4 and later) and the cursor carries the data instead.
func (b *Bucket) chunkSizes(ctx context.Context) (cur *mongo.Cursor, withData bool, err error) {
	proj := bson.D{{Key: "_id", Value: 0}, {Key: "files_id", Value: 1}, {Key: "n", Value: 1},
		{Key: "size", Value: bson.D{{Key: "$binarySize", Value: "$data"}}}}
	cur, err = b.chunks.Find(ctx, bson.D{}, options.Find().SetProjection(proj))
	var se mongo.ServerError
	if err == nil || !errors.As(err, &se) {
		return cur, false, err
	}
	proj = bson.D{{Key: "_id", Value: 0}, {Key: "files_id", Value: 1}, {Key: "n", Value: 1}, {Key: "data", Value: 1}}
	cur, err = b.chunks.Find(ctx, bson.D{}, options.Find().SetProjection(proj).SetBatchSize(64))
	return cur, true, err
}

// chunksIndexHint is the GridFS index of the chunks collection, which
// every GridFS driver creates and this package checks before uploads.
var chunksIndexHint = bson.D{{Key: "files_id", Value: 1}, {Key: "n", Value: 1}}

// eachChunkFilesIDs calls fn with the distinct files_ids of the bucket's
// chunks, up to inBatch at a time (a files_id whose chunks are not
// consecutive in the scan may come in more than one batch). On MongoDB the
// scan is covered by the {files_id, n} index: the hint makes it an index
// scan, which returns the chunks of one files_id together, and the
// projection needs no document, so no chunk is read from disk; a $group
// over the chunks, which it replaces, read every chunk with its data. A
// bucket created without that index (by a tool that skips it) is scanned
// without the hint.
func (b *Bucket) eachChunkFilesIDs(ctx context.Context, fn func([]bson.RawValue) error) error {
	proj := bson.D{{Key: "files_id", Value: 1}, {Key: "_id", Value: 0}}
	cur, err := b.chunks.Find(ctx, bson.D{}, options.Find().SetProjection(proj).SetHint(chunksIndexHint))
	if isBadHint(err) {
		cur, err = b.chunks.Find(ctx, bson.D{}, options.Find().SetProjection(proj))
	}
	if err != nil {
		return fmt.Errorf("read chunks: %w", err)
	}
	var batch []bson.RawValue
	seen := make(map[string]bool, inBatch)
	last := ""
	err = eachRaw(ctx, cur, func(doc bson.Raw) error {
		v, err := doc.LookupErr("files_id")
		if err != nil {
			return nil // no files_id: no file can own it; fsck reports nothing of it either
		}
		k := idKey(v)
		if k == last || seen[k] {
			return nil
		}
		last = k
		seen[k] = true
		batch = append(batch, bson.RawValue{Type: v.Type, Value: append([]byte(nil), v.Value...)})
		if len(batch) < inBatch {
			return nil
		}
		err = fn(batch)
		batch = nil
		clear(seen)
		return err
	})
	if err != nil {
		return fmt.Errorf("read chunks: %w", err)
	}
	if len(batch) > 0 {
		return fn(batch)
	}
	return nil
}

// isBadHint reports the store's refusal of a hint naming no index of the
// collection (MongoDB's BadValue, code 2).
func isBadHint(err error) bool {
	var ce mongo.CommandError
	return errors.As(err, &ce) && ce.Code == 2 && strings.Contains(ce.Message, "hint")
}

// eachRaw calls fn for every document of cur and closes it.
func eachRaw(ctx context.Context, cur *mongo.Cursor, fn func(bson.Raw) error) error {
	defer closeCursor(ctx, cur)
	for cur.Next(ctx) {
		if err := fn(cur.Current); err != nil {
			return err
		}
	}
	return cur.Err()
}

// idKey is a map key for an _id or files_id that matches the way MongoDB
// compares them in a query: numbers by value whatever their BSON type (a
// chunk whose files_id is the int64 5 belongs to the file whose _id is the
// int32 5), anything else by type and bytes.
func idKey(v bson.RawValue) string {
	switch v.Type {
	case bson.TypeInt32, bson.TypeInt64:
		n, _ := v.AsInt64OK()
		return "n" + strconv.FormatInt(n, 10)
	case bson.TypeDouble:
		f := v.Double()
		if f == math.Trunc(f) && math.Abs(f) < 1<<63 {
			return "n" + strconv.FormatInt(int64(f), 10)
		}
		return "n" + strconv.FormatFloat(f, 'g', -1, 64)
	}
	return string(append([]byte{byte(v.Type)}, v.Value...))
}

// rawValue encodes v as the bson.RawValue a document holding it would have.
func rawValue(v any) (bson.RawValue, error) {
	doc, err := bson.Marshal(bson.D{{Key: "v", Value: v}})
	if err != nil {
		return bson.RawValue{}, err
	}
	return bson.Raw(doc).Lookup("v"), nil
}
