package buckets

import (
	"fmt"

	"github.com/gridfsd/gridfsd/third_party/mongo-driver/bson"
)

// Content headers: the representation headers an uploader may give besides
// Content-Type (S3's PutObject takes all five), stored beside
// metadata.contentType in the same camelCase form, as mongofiles stores the
// type, and served back by every door: an S3-uploaded gzip'd asset gets its
// Content-Encoding from the HTTP API too. They are the uploader's words
// about the content, so they live in metadata with it; gridfsd adds none
// on its own. Every field name has a capital letter, so none meets the
// lower-case names of S3's x-amz-meta-* (x-amz-meta-expires stays
// metadata.expires). metadata.httpExpires is HTTP's Expires header (a date
// for caches), not gridfsd's expiry of files (the top-level expireAt).

// ContentHeader pairs a header with its metadata field.
type ContentHeader struct {
	Header string // canonical header name
	Field  string // field of metadata
}

// ContentHeaders lists the content headers stored in metadata, besides
// Content-Type (metadata.contentType).
var ContentHeaders = []ContentHeader{
	{"Cache-Control", "cacheControl"},
	{"Content-Disposition", "contentDisposition"},
	{"Content-Encoding", "contentEncoding"},
	{"Content-Language", "contentLanguage"},
	{"Expires", "httpExpires"},
}

// WithContentHeaders returns md with the content headers get gives (by
// canonical header name; "" for absent) set as metadata fields, replacing
// fields of the same name. A value that cannot be sent back as a header
// returns ErrInvalidMetadata.
func WithContentHeaders(md bson.D, get func(header string) string) (bson.D, error) {
	for _, ch := range ContentHeaders {
		v := get(ch.Header)
		if v == "" {
			continue
		}
		if err := checkHeaderValue(ch.Field, v); err != nil {
			return nil, err
		}
		md = append(withoutKey(md, ch.Field), bson.E{Key: ch.Field, Value: v})
	}
	return md, nil
}

// StoredHeaders returns the content headers stored in f's metadata, in the
// order of ContentHeaders: header name and value.
func (f *File) StoredHeaders() [][2]string {
	if f.Metadata == nil {
		return nil
	}
	var out [][2]string
	for _, ch := range ContentHeaders {
		if s, ok := f.Metadata.Lookup(ch.Field).StringValueOK(); ok && s != "" && checkHeaderValue(ch.Field, s) == nil {
			out = append(out, [2]string{ch.Header, s})
		}
	}
	return out
}

// IsContentHeaderField reports whether metadata field name holds a content
// header (contentType included), which doors serve as that header rather
// than as user metadata.
func IsContentHeaderField(name string) bool {
	if name == "contentType" {
		return true
	}
	for _, ch := range ContentHeaders {
		if ch.Field == name {
			return true
		}
	}
	return false
}

// checkContentHeaders checks the content header fields of metadata: strings
// that can be sent back as header values.
func checkContentHeaders(raw bson.Raw) error {
	for _, ch := range ContentHeaders {
		v, err := raw.LookupErr(ch.Field)
		if err != nil {
			continue
		}
		s, ok := v.StringValueOK()
		if !ok {
			return fmt.Errorf("%w: metadata.%s is a %s, not a string", ErrInvalidMetadata, ch.Field, v.Type)
		}
		if err := checkHeaderValue(ch.Field, s); err != nil {
			return err
		}
	}
	return nil
}

func checkHeaderValue(field, v string) error {
	if err := CheckContentType(v); err != nil {
		return fmt.Errorf("metadata.%s: %w", field, err)
	}
	return nil
}
