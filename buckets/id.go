package buckets

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/gridfsd/gridfsd/third_party/mongo-driver/bson"
)

// ErrInvalidID is returned for an id argument that looks like Extended JSON
// but is not, and for one that is no value MongoDB could hold as an _id.
var ErrInvalidID = errors.New("invalid id")

// ParseID reads a file id the way mongofiles reads the <id> of put_id,
// get_id and delete_id: Extended JSON ({"$oid":"..."}, {"$numberLong":"7"},
// 42, "quoted string", ...) when it looks like JSON, else the plain string.
//
// An id is a value, never a query: every caller puts it in a filter such as
// {_id: id} or {files_id: id}, where a document with $-keys ({"$ne": null})
// or a regular expression would match other files. ParseID therefore
// returns ErrInvalidID for what CheckID refuses.
func ParseID(s string) (any, error) {
	t := strings.TrimSpace(s)
	if t == "" {
		return nil, fmt.Errorf("%w: empty", ErrInvalidID)
	}
	looksJSON := strings.HasPrefix(t, "{") || strings.HasPrefix(t, "[") || strings.HasPrefix(t, `"`) ||
		t == "true" || t == "false" || t == "null"
	if _, err := strconv.ParseFloat(t, 64); err == nil {
		looksJSON = true
	}
	if !looksJSON {
		return s, nil
	}
	var doc struct {
		V bson.RawValue `bson:"v"`
	}
	if err := bson.UnmarshalExtJSON([]byte(`{"v":`+t+`}`), false, &doc); err != nil {
		return nil, fmt.Errorf("%w %q: %v", ErrInvalidID, truncate(s, 64), err)
	}
	if err := checkIDValue(doc.V); err != nil {
		return nil, fmt.Errorf("%w %q: %w", ErrInvalidID, truncate(s, 64), err)
	}
	var id any
	if err := doc.V.Unmarshal(&id); err != nil {
		return nil, fmt.Errorf("%w %q: %v", ErrInvalidID, truncate(s, 64), err)
	}
	return id, nil
}

// CheckID returns ErrInvalidID unless id is a value that a filter such as
// {_id: id} matches by equality alone, and that MongoDB accepts as an _id:
// not null, undefined, a regular expression or an array (MongoDB refuses
// those as _id, and as a filter a regular expression matches by pattern and
// an array by element), and no document holding a field name that starts
// with "$" at any depth (an operator such as {"$ne": null}). Extended JSON
// type wrappers ({"$oid": ...}, {"$date": ...}) are fine: once parsed they
// are typed values, not documents.
func CheckID(id any) error {
	if id == nil {
		return fmt.Errorf("%w: null", ErrInvalidID)
	}
	t, data, err := bson.MarshalValue(id)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrInvalidID, err)
	}
	if err := checkIDValue(bson.RawValue{Type: t, Value: data}); err != nil {
		return fmt.Errorf("%w: %w", ErrInvalidID, err)
	}
	return nil
}

// maxIDDepth bounds the nesting of a document id; MongoDB's own limit for
// a whole document is 100 levels.
const maxIDDepth = 32

// checkIDValue refuses the types that are no _id, then, in a document id,
// field names starting with "$" at any depth.
func checkIDValue(v bson.RawValue) error {
	switch v.Type {
	case bson.TypeNull:
		return errors.New("null is no id")
	case bson.TypeUndefined:
		return errors.New("undefined is no id")
	case bson.TypeRegex:
		return errors.New("a regular expression is no id (MongoDB refuses it as _id; as a filter it matches by pattern)")
	case bson.TypeArray:
		return errors.New("an array is no id (MongoDB refuses it as _id; as a filter it matches by element)")
	case bson.TypeEmbeddedDocument:
		return checkIDKeys(v.Value, 1)
	}
	return nil
}

// checkIDKeys walks a document or array nested in an id. Below the top
// level every value is compared as a whole, so only field names matter.
func checkIDKeys(doc bson.Raw, depth int) error {
	if depth > maxIDDepth {
		return fmt.Errorf("nested more than %d levels deep", maxIDDepth)
	}
	elems, err := doc.Elements()
	if err != nil {
		return err
	}
	for _, e := range elems {
		if strings.HasPrefix(e.Key(), "$") {
			return fmt.Errorf("field %q: an id is a value, not a query (only Extended JSON type wrappers such as $oid may start with $)", e.Key())
		}
		if v := e.Value(); v.Type == bson.TypeEmbeddedDocument || v.Type == bson.TypeArray {
			if err := checkIDKeys(v.Value, depth+1); err != nil {
				return err
			}
		}
	}
	return nil
}

// FormatID writes id as canonical Extended JSON, which ParseID reads back
// to the same type: {"$oid":"..."} for an ObjectID, "..." for a string,
// {"$numberLong":"42"} for an int64.
func FormatID(id any) string {
	b, err := bson.MarshalExtJSON(bson.D{{Key: "v", Value: id}}, true, false)
	if err != nil {
		return fmt.Sprint(id)
	}
	s := strings.TrimPrefix(string(b), `{"v":`)
	return strings.TrimSuffix(s, "}")
}

// MarshalJSON writes the files document in the shape gridfsd's HTTP API and
// the --json output of the commands share: id and metadata as relaxed
// Extended JSON, uploadDate as RFC 3339.
func (f *File) MarshalJSON() ([]byte, error) {
	doc := bson.D{
		{Key: "id", Value: f.ID},
		{Key: "filename", Value: f.Filename},
		{Key: "length", Value: f.Length},
		{Key: "chunkSize", Value: f.ChunkSize},
		{Key: "uploadDate", Value: f.UploadDate.UTC().Format(time.RFC3339Nano)},
	}
	if ct := f.MediaType(); ct != "" {
		doc = append(doc, bson.E{Key: "contentType", Value: ct})
	}
	if f.SHA256 != "" {
		doc = append(doc, bson.E{Key: "sha256", Value: f.SHA256})
	}
	if !f.ExpireAt.IsZero() {
		doc = append(doc, bson.E{Key: "expires", Value: f.ExpireAt.UTC().Format(time.RFC3339Nano)})
	}
	if f.MD5 != "" {
		doc = append(doc, bson.E{Key: "md5", Value: f.MD5})
	}
	if len(f.Aliases) > 0 {
		doc = append(doc, bson.E{Key: "aliases", Value: f.Aliases})
	}
	if f.Metadata != nil {
		doc = append(doc, bson.E{Key: "metadata", Value: f.Metadata})
	}
	b, err := bson.MarshalExtJSON(doc, false, false)
	if err != nil {
		return nil, fmt.Errorf("file %v as JSON: %w", f.ID, err)
	}
	return b, nil
}
