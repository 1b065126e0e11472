package buckets

import (
	"context"
	"errors"
	"fmt"

	"github.com/gridfsd/gridfsd/third_party/mongo-driver/bson"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/mongo"
)

// FieldS3Checksum is the top-level files document field, gridfsd's own like
// FieldS3ETag, that keeps the x-amz-checksum-* an object was uploaded with:
// {algorithm, value, type}. value is base64, with "-<parts>" for the
// COMPOSITE checksum of a multipart upload (the checksum of its parts'
// checksums); type is FULL_OBJECT or COMPOSITE.
const FieldS3Checksum = "s3Checksum"

// S3Checksum is an object's stored checksum.
type S3Checksum struct {
	Algorithm string `bson:"algorithm"` // CRC32, CRC32C, CRC64NVME, SHA1, SHA256, MD5, SHA512, XXHASH64, XXHASH3, XXHASH128
	Value     string `bson:"value"`
	Type      string `bson:"type"`
}

// Checksum returns f's stored checksum, nil when it has none.
func (f *File) Checksum() *S3Checksum {
	if f.Raw == nil {
		return nil
	}
	v, err := f.Raw.LookupErr(FieldS3Checksum)
	if err != nil {
		return nil
	}
	var c S3Checksum
	if v.Unmarshal(&c) != nil || c.Algorithm == "" || c.Value == "" {
		return nil
	}
	return &c
}

// SetField sets root field key of the files document the upload will
// commit (gridfsd's own fields, such as FieldS3Checksum, known only once
// the content has streamed through); call it before Commit.
func (u *Upload) SetField(key string, value any) {
	u.extra = append(withoutKey(u.extra, key), bson.E{Key: key, Value: value})
}

// SetFileField sets gridfsd's own root field key of the files document with
// _id id (metadata and the GridFS fields are not set this way). It returns
// ErrFileNotFound.
func (b *Bucket) SetFileField(ctx context.Context, id any, key string, value any) error {
	switch key {
	case "_id", "length", "chunkSize", "uploadDate", "filename", "metadata", "md5", "contentType", "aliases":
		return fmt.Errorf("%w: %s is not a field of gridfsd's own", ErrInvalidMetadata, key)
	}
	res, err := b.files.UpdateOne(ctx, bson.D{{Key: "_id", Value: id}}, bson.D{{Key: "$set", Value: bson.D{{Key: key, Value: value}}}})
	if err != nil {
		return fmt.Errorf("set %s of %v: %w", key, id, full(err))
	}
	if res.MatchedCount == 0 {
		return fmt.Errorf("%w: %v", ErrFileNotFound, id)
	}
	return nil
}

// SetMultipartField keeps value under key in the record of multipart
// upload id (what a door must remember from the upload's start to its
// completion, such as S3's checksum algorithm). It returns
// ErrUploadNotFound.
func (b *Bucket) SetMultipartField(ctx context.Context, id, key string, value any) error {
	res, err := b.uploads().UpdateOne(ctx, bson.D{{Key: "_id", Value: id}, {Key: "bucket", Value: b.name}},
		bson.D{{Key: "$set", Value: bson.D{{Key: "door." + key, Value: value}}}})
	if err != nil {
		return fmt.Errorf("set %s of upload %s: %w", key, id, full(err))
	}
	if res.MatchedCount == 0 {
		return fmt.Errorf("%w: %s", ErrUploadNotFound, id)
	}
	return nil
}

// MultipartField returns what SetMultipartField kept under key; a zero
// RawValue when nothing was.
func (b *Bucket) MultipartField(ctx context.Context, id, key string) (bson.RawValue, error) {
	raw, err := b.uploads().FindOne(ctx, bson.D{{Key: "_id", Value: id}, {Key: "bucket", Value: b.name}}).Raw()
	if errors.Is(err, mongo.ErrNoDocuments) {
		return bson.RawValue{}, fmt.Errorf("%w: %s", ErrUploadNotFound, id)
	}
	if err != nil {
		return bson.RawValue{}, fmt.Errorf("read upload %s: %w", id, err)
	}
	v, _ := raw.LookupErr("door", key)
	return v, nil
}

// PartFields returns, by part number, what PartUpload.SetField kept under
// key for the parts of upload id.
func (b *Bucket) PartFields(ctx context.Context, id, key string) (map[int]bson.RawValue, error) {
	cur, err := b.parts().Find(ctx, bson.D{{Key: "upload", Value: id}})
	if err != nil {
		return nil, fmt.Errorf("read parts of upload %s: %w", id, err)
	}
	defer closeCursor(ctx, cur)
	out := map[int]bson.RawValue{}
	for cur.Next(ctx) {
		n, ok := cur.Current.Lookup("part").AsInt64OK()
		if !ok {
			continue
		}
		if v, err := cur.Current.LookupErr("door", key); err == nil {
			out[int(n)] = v
		}
	}
	return out, cur.Err()
}

// FieldS3UploadID is the top-level files document field, gridfsd's own,
// that names the S3 multipart upload a file was completed from, so that a
// repeated CompleteMultipartUpload (SDKs retry one that timed out) finds
// the file and answers as the first did.
const FieldS3UploadID = "s3UploadId"

// FindCompleted returns the revision of filename completed from multipart
// upload id (see FieldS3UploadID), or ErrFileNotFound.
func (b *Bucket) FindCompleted(ctx context.Context, filename, id string) (*File, error) {
	raw, err := b.files.FindOne(ctx, bson.D{{Key: "filename", Value: filename}, {Key: FieldS3UploadID, Value: id}}).Raw()
	if errors.Is(err, mongo.ErrNoDocuments) {
		return nil, fmt.Errorf("%w: upload %s of %q", ErrFileNotFound, id, filename)
	}
	if err != nil {
		return nil, fmt.Errorf("find the file of upload %s: %w", id, err)
	}
	return ParseFile(raw)
}
