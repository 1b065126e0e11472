package buckets

import (
	"context"
	"errors"
	"fmt"
	"time"
	"unicode/utf8"

	"github.com/gridfsd/gridfsd/third_party/mongo-driver/bson"
)

// Tags: key-value labels of files and buckets (S3's object and bucket
// tagging). A file's tags live in gridfsd's own top-level FieldTags, never
// in metadata, which holds exactly what the user gave as metadata; a
// bucket's in its settings.

// FieldTags is the top-level files document field that holds a file's tags:
// an array of {key, value} documents, in the order given (tag keys may hold
// dots, which field names should not).
const FieldTags = "tags"

// ErrInvalidTags is a tag set that cannot be stored.
var ErrInvalidTags = errors.New("invalid tags")

// Tag is one key-value label.
type Tag struct {
	Key   string `bson:"key" json:"key"`
	Value string `bson:"value" json:"value"`
}

// Limits of S3's tagging.
const (
	MaxFileTags    = 10
	MaxBucketTags  = 50
	MaxTagKeyLen   = 128 // characters
	MaxTagValueLen = 256 // characters
)

// CheckTags returns ErrInvalidTags unless tags is a set S3 accepts: at most
// max tags, keys unique, non-empty and at most MaxTagKeyLen characters,
// values at most MaxTagValueLen, all valid UTF-8.
func CheckTags(tags []Tag, max int) error {
	if len(tags) > max {
		return fmt.Errorf("%w: %d tags, more than %d", ErrInvalidTags, len(tags), max)
	}
	seen := make(map[string]bool, len(tags))
	for _, t := range tags {
		switch {
		case t.Key == "" || !utf8.ValidString(t.Key) || utf8.RuneCountInString(t.Key) > MaxTagKeyLen:
			return fmt.Errorf("%w: tag key %q must be 1 to %d characters of UTF-8", ErrInvalidTags, truncate(t.Key, 64), MaxTagKeyLen)
		case !utf8.ValidString(t.Value) || utf8.RuneCountInString(t.Value) > MaxTagValueLen:
			return fmt.Errorf("%w: tag value of %q must be at most %d characters of UTF-8", ErrInvalidTags, truncate(t.Key, 64), MaxTagValueLen)
		case seen[t.Key]:
			return fmt.Errorf("%w: tag key %q given twice", ErrInvalidTags, truncate(t.Key, 64))
		}
		seen[t.Key] = true
	}
	return nil
}

// Tags returns the tags of f (FieldTags), none when it has none.
func (f *File) Tags() []Tag {
	if f.Raw == nil {
		return nil
	}
	arr, ok := f.Raw.Lookup(FieldTags).ArrayOK()
	if !ok {
		return nil
	}
	vals, err := arr.Values()
	if err != nil {
		return nil
	}
	var out []Tag
	for _, v := range vals {
		doc, ok := v.DocumentOK()
		if !ok {
			continue
		}
		k, _ := doc.Lookup("key").StringValueOK()
		val, _ := doc.Lookup("value").StringValueOK()
		out = append(out, Tag{Key: k, Value: val})
	}
	return out
}

// TagsField is the files document root field that stores tags on upload
// (for UploadOptions.Extra); nothing for no tags.
func TagsField(tags []Tag) bson.D {
	if len(tags) == 0 {
		return nil
	}
	return bson.D{{Key: FieldTags, Value: tags}}
}

// SetTags replaces the tags of the file with _id id (none removes them). It
// returns ErrInvalidTags, having written nothing, or ErrFileNotFound.
func (b *Bucket) SetTags(ctx context.Context, id any, tags []Tag) error {
	if err := CheckTags(tags, MaxFileTags); err != nil {
		return err
	}
	update := bson.D{{Key: "$unset", Value: bson.D{{Key: FieldTags, Value: ""}}}}
	if len(tags) > 0 {
		update = bson.D{{Key: "$set", Value: bson.D{{Key: FieldTags, Value: tags}}}}
	}
	res, err := b.files.UpdateOne(ctx, bson.D{{Key: "_id", Value: id}}, update)
	if err != nil {
		return fmt.Errorf("set tags of %v: %w", id, full(err))
	}
	if res.MatchedCount == 0 {
		return fmt.Errorf("%w: %v", ErrFileNotFound, id)
	}
	return nil
}

// SetBucketTags replaces the tags of bucket name (none removes them),
// leaving its other settings as they are. It returns ErrInvalidBucketName
// or ErrInvalidTags, having written nothing.
func (d *DB) SetBucketTags(ctx context.Context, name string, tags []Tag) (*Bucket, error) {
	if err := CheckBucketName(name); err != nil {
		return nil, err
	}
	if tags == nil {
		tags = []Tag{}
	}
	if err := CheckTags(tags, MaxBucketTags); err != nil {
		return nil, err
	}
	b, err := d.Bucket(ctx, name)
	if err != nil {
		return nil, err
	}
	return d.saveSettings(ctx, b, bson.D{{Key: "tags", Value: tags}, {Key: "updated", Value: time.Now()}})
}
