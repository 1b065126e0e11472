package buckets

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"

	"github.com/gridfsd/gridfsd/third_party/mongo-driver/bson"
)

// versionFields are the fields of a files document that can change after
// it is written (PATCH renames and edits metadata; legacy tools set a
// top-level contentType). With the immutable ones they make the ETag, and
// a conditional change of one file compares them all in its filter, so that
// it applies only to the version the condition was evaluated against.
var versionFields = []string{"filename", "metadata", "contentType"}

// immutableFields never change under an _id: GridFS content is written once.
var immutableFields = []string{"_id", "uploadDate", "length", "sha256"}

// ETag is the strong, quoted entity tag of this version of the file: a hash
// of its _id, upload date, length and SHA-256 (which fix the content) and of
// its filename, metadata and legacy contentType (which PATCH can change).
// So a rename or a metadata edit changes it, a conditional write detects
// that, and a 304 never revalidates a stale Content-Type. Files written by
// other tools, without a sha256 field, get one from the same fields.
func (f *File) ETag() string {
	h := sha256.New()
	for _, fields := range [][]string{immutableFields, versionFields} {
		for _, k := range fields {
			v := f.Raw.Lookup(k)
			// Type and value of each field, so that a missing field, an
			// empty string and a string "0" all differ.
			h.Write([]byte{byte(v.Type)})
			h.Write(v.Value)
			h.Write([]byte{0})
		}
	}
	if f.Raw == nil {
		// A File built by hand, not read from the store: its id is all
		// there is.
		h.Write([]byte(FormatID(f.ID)))
	}
	return `"` + hex.EncodeToString(h.Sum(nil)[:16]) + `"`
}

// versionFilter selects f only while its changeable fields are as they were
// when f was read.
func versionFilter(f *File) bson.D {
	filter := bson.D{{Key: "_id", Value: f.ID}}
	for _, k := range versionFields {
		v, err := f.Raw.LookupErr(k)
		if err != nil {
			filter = append(filter, bson.E{Key: k, Value: bson.D{{Key: "$exists", Value: false}}})
			continue
		}
		filter = append(filter, bson.E{Key: k, Value: v})
	}
	return filter
}

// MatchETag evaluates an If-Match or If-None-Match field against the
// current entity tag ("" when there is no current file): "*" matches any
// existing file. The comparison is strong unless weak (If-None-Match uses
// the weak one, RFC 9110 §13.1.2).
func MatchETag(field, current string, weak bool) bool {
	if current == "" {
		return false
	}
	for _, t := range strings.Split(field, ",") {
		t = strings.TrimSpace(t)
		if t == "*" {
			return true
		}
		if strings.HasPrefix(t, "W/") {
			if !weak {
				continue
			}
			t = t[2:]
		}
		if t == current {
			return true
		}
	}
	return false
}
