package buckets

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/gridfsd/gridfsd/third_party/mongo-driver/bson"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/mongo"
)

// The rules for user metadata, shared by every front door: the HTTP API's
// X-Gridfs-Metadata and PATCH body, S3's x-amz-meta-*, the command line's
// meta --set. Metadata that passes CheckMetadata is a document every
// MongoDB stores and reads back as sent, so no request the store can never
// accept gets as far as a write.

// MaxMetadataBytes leaves a files document room for its own fields inside
// MongoDB's 16 MiB limit.
const MaxMetadataBytes = 16*1024*1024 - 64*1024

// MaxMetadataDepth bounds how deeply metadata objects and arrays nest.
// MongoDB refuses documents nested more than 100 levels; the files document
// around the metadata and the filters of listings take a few of those.
const MaxMetadataDepth = 90

// CheckMetadata returns ErrInvalidMetadata unless md is user metadata
// MongoDB stores and reads back as sent: at most MaxMetadataBytes as BSON,
// nested at most MaxMetadataDepth levels, every field name at any depth
// non-empty, valid UTF-8, without "." or a leading "$" (MongoDB's query
// language reads both as paths and operators) and not repeated within its
// document, and metadata.contentType, when present, a string without
// control bytes (it becomes a response header), and so the other content
// headers (see ContentHeaders).
func CheckMetadata(md bson.D) error {
	if md == nil {
		return nil // no metadata: the files document has no metadata field
	}
	b, err := bson.Marshal(md)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrInvalidMetadata, err)
	}
	raw := bson.Raw(b)
	if len(raw) > MaxMetadataBytes {
		return fmt.Errorf("%w: %d bytes as BSON, more than the %d a files document leaves for it", ErrInvalidMetadata, len(raw), MaxMetadataBytes)
	}
	if err := checkMetadataDoc(raw, "metadata", 1); err != nil {
		return err
	}
	if v, err := raw.LookupErr("contentType"); err == nil {
		ct, ok := v.StringValueOK()
		if !ok {
			return fmt.Errorf("%w: metadata.contentType is a %s, not a string", ErrInvalidMetadata, v.Type)
		}
		if err := CheckContentType(ct); err != nil {
			return err
		}
	}
	return checkContentHeaders(raw)
}

// CheckContentType returns ErrInvalidMetadata for a content type that
// cannot be sent back as a header field: control bytes (a NUL makes the
// file undownloadable with curl), invalid UTF-8, more than 1 KiB.
func CheckContentType(ct string) error {
	if len(ct) > 1024 {
		return fmt.Errorf("%w: content type of %d bytes, more than 1024", ErrInvalidMetadata, len(ct))
	}
	if !utf8.ValidString(ct) {
		return fmt.Errorf("%w: content type is not valid UTF-8", ErrInvalidMetadata)
	}
	for _, r := range ct {
		if r < 0x20 || r == 0x7f {
			return fmt.Errorf("%w: content type %q holds a control character", ErrInvalidMetadata, truncate(ct, 64))
		}
	}
	return nil
}

// checkMetadataDoc checks the field names of a document or array of
// metadata, and refuses what nests deeper than MaxMetadataDepth.
func checkMetadataDoc(doc bson.Raw, at string, depth int) error {
	if depth > MaxMetadataDepth {
		return fmt.Errorf("%w: nested more than %d levels deep", ErrInvalidMetadata, MaxMetadataDepth)
	}
	elems, err := doc.Elements()
	if err != nil {
		return fmt.Errorf("%w: %v", ErrInvalidMetadata, err)
	}
	seen := make(map[string]bool, len(elems))
	for _, e := range elems {
		key := e.Key()
		where := at + "." + truncate(key, 64)
		if err := checkFieldName(key); err != nil {
			return fmt.Errorf("%w: field %q: %w", ErrInvalidMetadata, where, err)
		}
		if seen[key] {
			return fmt.Errorf("%w: field %q given twice", ErrInvalidMetadata, where)
		}
		seen[key] = true
		switch v := e.Value(); v.Type {
		case bson.TypeEmbeddedDocument, bson.TypeArray:
			// An array is a level of its own; its elements are named
			// "0", "1"..., which checkFieldName accepts.
			if err := checkMetadataDoc(v.Value, where, depth+1); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkFieldName refuses a field name MongoDB's query language would
// misread: empty, a leading "$" (an operator), a "." (a path), and names no
// BSON document can hold (NUL, invalid UTF-8).
func checkFieldName(key string) error {
	switch {
	case key == "":
		return errors.New("names may not be empty")
	case strings.HasPrefix(key, "$"):
		return errors.New("names may not start with $ (only Extended JSON type wrappers such as $date may)")
	case strings.Contains(key, "."):
		return errors.New("names may not contain a dot")
	case strings.ContainsRune(key, 0):
		return errors.New("names may not contain NUL")
	case !utf8.ValidString(key):
		return errors.New("names must be valid UTF-8")
	}
	return nil
}

// checkFieldPath checks a dotted path of field names, such as the key of a
// metadata filter: every segment a name checkFieldName accepts.
func checkFieldPath(path string) error {
	if path == "" {
		return errors.New("empty path")
	}
	for _, seg := range strings.Split(path, ".") {
		if err := checkFieldName(seg); err != nil {
			return err
		}
	}
	return nil
}

// ParseMetadataJSON reads user metadata from Extended JSON text (relaxed or
// canonical), strictly: one object and nothing after it, valid UTF-8,
// nested at most MaxMetadataDepth levels, and then CheckMetadata. It
// returns ErrInvalidMetadata for anything else, so that nothing is written
// first.
func ParseMetadataJSON(b []byte) (bson.D, error) {
	b = bytes.TrimSpace(b)
	if len(b) == 0 || b[0] != '{' {
		return nil, fmt.Errorf("%w: not an Extended JSON object", ErrInvalidMetadata)
	}
	// The Extended JSON parser ignores what follows the object and
	// replaces invalid UTF-8; both would store something the client did
	// not send.
	if !utf8.Valid(b) {
		return nil, fmt.Errorf("%w: not valid UTF-8", ErrInvalidMetadata)
	}
	if jsonDepth(b) > MaxMetadataDepth+1 { // +1: a wrapper such as {"$date": {...}} nests once more
		return nil, fmt.Errorf("%w: nested more than %d levels deep", ErrInvalidMetadata, MaxMetadataDepth)
	}
	if !json.Valid(b) {
		return nil, fmt.Errorf("%w: not one JSON object (syntax error or text after it)", ErrInvalidMetadata)
	}
	var md bson.D
	if err := bson.UnmarshalExtJSON(b, false, &md); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidMetadata, err)
	}
	if err := CheckMetadata(md); err != nil {
		return nil, err
	}
	return md, nil
}

// jsonDepth is the deepest nesting of objects and arrays in JSON text,
// found without parsing it, so that hostile input is refused before the
// parser recurses into it.
func jsonDepth(b []byte) int {
	depth, deepest, inString, escaped := 0, 0, false, false
	for _, c := range b {
		switch {
		case inString && escaped:
			escaped = false
		case inString && c == '\\':
			escaped = true
		case inString && c == '"':
			inString = false
		case inString:
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			depth++
			deepest = max(deepest, depth)
		case c == '}' || c == ']':
			depth--
		}
	}
	return deepest
}

// Error codes with which a store refuses a document it cannot hold, as
// opposed to failing: MongoDB's BadValue (2), TypeMismatch (14),
// DollarPrefixedFieldName (52), InvalidBSON (22) and DocumentValidationFailure
// (121); NotImplemented (238), which FerretDB answers for the BSON types it
// lacks (Decimal128, MinKey, MaxKey, JavaScript...).
var refusedDocumentCodes = map[int32]bool{2: true, 14: true, 22: true, 52: true, 121: true, 238: true}

// RefusedDocument reports whether err is the store refusing a document
// for what it holds (a type or field name it cannot store), which no retry
// changes: a client error, not the store failing. reason is the store's
// own message.
func RefusedDocument(err error) (reason string, ok bool) {
	var we mongo.WriteException
	if errors.As(err, &we) {
		for _, e := range we.WriteErrors {
			if refusedDocumentCodes[int32(e.Code)] {
				return e.Message, true
			}
		}
		return "", false
	}
	var ce mongo.CommandError
	if errors.As(err, &ce) && refusedDocumentCodes[ce.Code] {
		return ce.Message, true
	}
	return "", false
}
