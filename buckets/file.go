package buckets

import (
	"fmt"
	"time"

	"github.com/gridfsd/gridfsd/third_party/mongo-driver/bson"
)

// File is a files document. Readers accept what any GridFS tool wrote:
// numeric length and chunkSize of any BSON type, legacy top-level
// contentType, md5 and aliases.
type File struct {
	ID         any       // the _id, of any BSON type
	Length     int64     //
	ChunkSize  int       //
	UploadDate time.Time //
	Filename   string    //
	Metadata   bson.Raw  // nil when the document has none
	SHA256     string    // hex; empty for files gridfsd did not write
	S3ETag     string    // FieldS3ETag; empty unless written through S3
	// ExpireAt is when the file expires (FieldExpireAt); zero when it
	// does not, by itself (a bucket's rules may expire it: Bucket.ExpiresAt).
	ExpireAt time.Time
	// DeleteMarker is set on a delete marker (FieldDeleteMarker), which
	// readers never see as a file; Versioned on a revision committed while
	// the bucket's versioning was Enabled (FieldVersioned). See
	// versioning.go.
	DeleteMarker bool
	Versioned    bool

	// Legacy fields that older drivers wrote at the top level.
	ContentType string
	MD5         string
	Aliases     []string

	// Raw is the whole files document as stored.
	Raw bson.Raw
}

// MediaType is the content type the uploader gave: metadata.contentType,
// else the legacy top-level contentType; empty when neither is set.
func (f *File) MediaType() string {
	if f.Metadata != nil {
		if s, ok := f.Metadata.Lookup("contentType").StringValueOK(); ok && s != "" {
			return s
		}
	}
	return f.ContentType
}

// ParseFile decodes a files document.
func ParseFile(raw bson.Raw) (*File, error) {
	f := &File{Raw: raw}
	idv, err := raw.LookupErr("_id")
	if err != nil {
		return nil, fmt.Errorf("files document without _id: %w", err)
	}
	if err := idv.Unmarshal(&f.ID); err != nil {
		return nil, fmt.Errorf("files document _id: %w", err)
	}
	var ok bool
	if f.Length, ok = raw.Lookup("length").AsInt64OK(); !ok || f.Length < 0 {
		return nil, fmt.Errorf("files document %v: length %v is not a non-negative number", f.ID, raw.Lookup("length"))
	}
	cs, ok := raw.Lookup("chunkSize").AsInt64OK()
	if !ok || cs <= 0 || cs > int64(^uint32(0)>>1) {
		return nil, fmt.Errorf("files document %v: chunkSize %v is not a positive number", f.ID, raw.Lookup("chunkSize"))
	}
	f.ChunkSize = int(cs)
	if dt, ok := raw.Lookup("uploadDate").DateTimeOK(); ok {
		f.UploadDate = time.UnixMilli(dt).UTC()
	}
	f.Filename, _ = raw.Lookup("filename").StringValueOK()
	if md, ok := raw.Lookup("metadata").DocumentOK(); ok {
		f.Metadata = md
	}
	f.SHA256, _ = raw.Lookup("sha256").StringValueOK()
	f.S3ETag, _ = raw.Lookup(FieldS3ETag).StringValueOK()
	f.ExpireAt = expireAtOf(raw)
	f.DeleteMarker, _ = raw.Lookup(FieldDeleteMarker).BooleanOK()
	f.Versioned, _ = raw.Lookup(FieldVersioned).BooleanOK()
	f.ContentType, _ = raw.Lookup("contentType").StringValueOK()
	f.MD5, _ = raw.Lookup("md5").StringValueOK()
	if arr, ok := raw.Lookup("aliases").ArrayOK(); ok {
		vals, _ := arr.Values()
		for _, v := range vals {
			if s, ok := v.StringValueOK(); ok {
				f.Aliases = append(f.Aliases, s)
			}
		}
	}
	return f, nil
}
