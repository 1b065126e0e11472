package buckets

import (
	"context"
	"crypto/md5"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/gridfsd/gridfsd/chunker"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/bson"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/mongo/options"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/x/bsonx/bsoncore"
)

// ErrNotAligned is a part copy whose source range CopyPart cannot take by
// chunks: the caller streams it instead.
var ErrNotAligned = errors.New("the source range is not chunk-aligned")

// copyBatch is how many chunk documents CopyPart inserts at a time.
const copyBatch = 16

// CopyPart makes part n of the upload with id upload from bytes [start,
// start+length) of file f of bucket src by copying f's chunk documents as
// they are stored, renumbered from 0 under the part's files_id: no byte is
// read through a chunk reader nor cut into chunks again, and the part's
// MD5 is taken from the documents on their way. It needs a range that
// starts on a chunk boundary and ends on one or at the end of f, and f's
// chunk size equal to the upload's; otherwise it returns ErrNotAligned and
// stores nothing. Other errors are those of OpenPart and Commit, ErrTooLarge
// (the upload's limit), and ErrChunksLost when f's chunks are not all
// there.
func (b *Bucket) CopyPart(ctx context.Context, upload string, n int, src *Bucket, f *File, start, length int64) (*Part, error) {
	if n < 1 || n > MaxPartNumber {
		return nil, fmt.Errorf("%w: part number %d is not between 1 and %d", ErrInvalidPart, n, MaxPartNumber)
	}
	mu, err := b.Multipart(ctx, upload)
	if err != nil {
		return nil, err
	}
	cs := int64(mu.ChunkSize)
	end := start + length
	if int64(f.ChunkSize) != cs || length <= 0 || start < 0 || end > f.Length || start%cs != 0 || end%cs != 0 && end != f.Length {
		return nil, ErrNotAligned
	}
	if err := b.CheckUploadSize(length); err != nil {
		return nil, fmt.Errorf("part %d: %w", n, err)
	}
	if err := b.db.checkSpace(length); err != nil {
		return nil, err
	}
	first, count := start/cs, (length+cs-1)/cs
	id := bson.NewObjectID()
	files := bsoncore.Value{Type: bsoncore.TypeObjectID, Data: id[:]}
	fail := func(err error) (*Part, error) {
		b.removeChunksOf(context.WithoutCancel(ctx), id)
		return nil, err
	}
	// The limit lets the store close the cursor with its last batch, as
	// chunk reads do (chunker.Reader.find says why that matters).
	cur, err := src.chunks.Find(ctx, bson.D{{Key: "files_id", Value: f.ID}, {Key: "n", Value: bson.D{{Key: "$gte", Value: first}, {Key: "$lt", Value: first + count}}}},
		options.Find().SetSort(bson.D{{Key: "n", Value: 1}}).SetBatchSize(copyBatch).SetLimit(count)) // whole chunks: see chunker.Reader.find
	if err != nil {
		return nil, fmt.Errorf("copy part %d: read chunks: %w", n, err)
	}
	defer cur.Close(ctx)
	sum := md5.New()
	var batch []any
	var copied int64
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		_, err := b.chunks.InsertMany(ctx, batch, options.InsertMany().SetOrdered(true))
		batch = batch[:0]
		return full(err)
	}
	for want := first; cur.Next(ctx); want++ {
		var c struct {
			N    int64  `bson:"n"`
			Data []byte `bson:"data"`
		}
		if err := cur.Decode(&c); err != nil {
			return fail(fmt.Errorf("copy part %d: chunk %d: %w", n, want, err))
		}
		size := min(cs, f.Length-want*cs)
		if c.N != want || int64(len(c.Data)) != size {
			return fail(fmt.Errorf("copy part %d: %w: chunk %d of %v is missing or has %d bytes", n, ErrChunksLost, want, f.ID, len(c.Data)))
		}
		sum.Write(c.Data)
		copied += size
		batch = append(batch, bsoncore.Document(chunker.AppendChunkDoc(nil, bson.NewObjectID(), files, int32(want-first), c.Data)))
		if len(batch) == copyBatch {
			if err := flush(); err != nil {
				return fail(fmt.Errorf("copy part %d: write chunks: %w", n, err))
			}
		}
	}
	if err := cur.Err(); err != nil {
		return fail(fmt.Errorf("copy part %d: read chunks: %w", n, err))
	}
	if err := flush(); err != nil {
		return fail(fmt.Errorf("copy part %d: write chunks: %w", n, err))
	}
	if copied != length {
		return fail(fmt.Errorf("copy part %d: %w: %d of %d bytes of %v are stored", n, ErrChunksLost, copied, length, f.ID))
	}
	part := &Part{
		Key: partKey(upload, n), Upload: upload, Bucket: b.name, Number: n, FilesID: id, Size: length,
		MD5: hex.EncodeToString(sum.Sum(nil)), Uploaded: time.Now().UTC().Truncate(time.Millisecond),
	}
	return b.recordPart(context.WithoutCancel(ctx), part)
}
