package buckets

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// ErrInvalidID is returned for an id argument that looks like Extended JSON
// but is not.
var ErrInvalidID = errors.New("invalid id")

// ParseID reads a file id the way mongofiles reads the <id> of put_id,
// get_id and delete_id: Extended JSON ({"$oid":"..."}, {"$numberLong":"7"},
// 42, "quoted string", ...) when it looks like JSON, else the plain string.
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
	var id any
	if err := doc.V.Unmarshal(&id); err != nil {
		return nil, fmt.Errorf("%w %q: %v", ErrInvalidID, truncate(s, 64), err)
	}
	if id == nil {
		return nil, fmt.Errorf("%w: null", ErrInvalidID)
	}
	return id, nil
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
