package buckets

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"regexp"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// DefaultLimit and MaxLimit bound one page of Find.
const (
	DefaultLimit = 100
	MaxLimit     = 1000
)

// Query selects files. Every set field narrows the result.
type Query struct {
	// Prefix matches filenames that start with it (an anchored regex, which
	// MongoDB answers from the filename index).
	Prefix string
	// Regex matches filenames against a regular expression, as mongofiles
	// search does.
	Regex string
	// Metadata matches files whose metadata.<key> equals the value, for
	// each element.
	Metadata bson.D
	// Limit is the page size: 0 means DefaultLimit, at most MaxLimit.
	Limit int
	// After continues a listing from the Next of a previous Page.
	After string
	// From skips the filenames that sort before it (byte order), as S3's
	// marker and start-after do.
	From string
}

// Page is one page of a listing, ordered by filename, then uploadDate,
// then _id. Next is empty on the last page.
type Page struct {
	Files []*File
	Next  string
}

// Find lists the files that match q, one page at a time with keyset
// pagination: each page is one indexed range query, however deep. It
// returns ErrInvalidQuery for a bad limit, regex or cursor.
func (b *Bucket) Find(ctx context.Context, q Query) (*Page, error) {
	limit := q.Limit
	switch {
	case limit == 0:
		limit = DefaultLimit
	case limit < 0 || limit > MaxLimit:
		return nil, fmt.Errorf("%w: limit %d is not between 1 and %d", ErrInvalidQuery, limit, MaxLimit)
	}
	filter, err := q.filter()
	if err != nil {
		return nil, err
	}
	opts := options.Find().
		SetSort(bson.D{{Key: "filename", Value: 1}, {Key: "uploadDate", Value: 1}, {Key: "_id", Value: 1}}).
		SetLimit(int64(limit + 1))
	cur, err := b.files.Find(ctx, filter, opts)
	if err != nil {
		return nil, queryError(err)
	}
	defer cur.Close(ctx)
	page := &Page{Files: []*File{}}
	for cur.Next(ctx) {
		if len(page.Files) == limit {
			page.Next = encodeCursor(page.Files[limit-1])
			break
		}
		f, err := ParseFile(append(bson.Raw(nil), cur.Current...))
		if err != nil {
			return nil, err
		}
		page.Files = append(page.Files, f)
	}
	if err := cur.Err(); err != nil {
		return nil, queryError(err)
	}
	return page, nil
}

// Each calls fn for every file that matches q, in Find's order, fetching
// page after page.
func (b *Bucket) Each(ctx context.Context, q Query, fn func(*File) error) error {
	for {
		page, err := b.Find(ctx, q)
		if err != nil {
			return err
		}
		for _, f := range page.Files {
			if err := fn(f); err != nil {
				return err
			}
		}
		if page.Next == "" {
			return nil
		}
		q.After = page.Next
	}
}

func (q Query) filter() (bson.D, error) {
	var and bson.A
	if q.Prefix != "" {
		and = append(and, bson.D{{Key: "filename", Value: bson.Regex{Pattern: "^" + regexp.QuoteMeta(q.Prefix)}}})
	}
	if q.Regex != "" {
		// MongoDB speaks PCRE, not Go's RE2; this catches most mistakes
		// before the store does and gives a readable reason.
		if _, err := regexp.Compile(q.Regex); err != nil {
			return nil, fmt.Errorf("%w: regex: %v", ErrInvalidQuery, err)
		}
		and = append(and, bson.D{{Key: "filename", Value: bson.Regex{Pattern: q.Regex}}})
	}
	if q.From != "" {
		and = append(and, bson.D{{Key: "filename", Value: bson.D{{Key: "$gte", Value: q.From}}}})
	}
	for _, e := range q.Metadata {
		and = append(and, bson.D{{Key: "metadata." + e.Key, Value: e.Value}})
	}
	if q.After != "" {
		c, err := decodeCursor(q.After)
		if err != nil {
			return nil, err
		}
		and = append(and, bson.D{{Key: "$or", Value: bson.A{
			bson.D{{Key: "filename", Value: bson.D{{Key: "$gt", Value: c.Filename}}}},
			bson.D{{Key: "filename", Value: c.Filename}, {Key: "uploadDate", Value: bson.D{{Key: "$gt", Value: c.UploadDate}}}},
			bson.D{{Key: "filename", Value: c.Filename}, {Key: "uploadDate", Value: c.UploadDate}, {Key: "_id", Value: bson.D{{Key: "$gt", Value: c.ID}}}},
		}}})
	}
	if len(and) == 0 {
		return bson.D{}, nil
	}
	return bson.D{{Key: "$and", Value: and}}, nil
}

type cursorKey struct {
	Filename   string        `bson:"f"`
	UploadDate bson.DateTime `bson:"d"`
	ID         any           `bson:"i"`
}

func encodeCursor(f *File) string {
	raw, err := bson.Marshal(cursorKey{Filename: f.Filename, UploadDate: bson.NewDateTimeFromTime(f.UploadDate), ID: f.ID})
	if err != nil {
		return ""
	}
	return base64.RawURLEncoding.EncodeToString(raw)
}

func decodeCursor(s string) (cursorKey, error) {
	var c cursorKey
	raw, err := base64.RawURLEncoding.DecodeString(s)
	if err == nil {
		err = bson.Unmarshal(raw, &c)
	}
	if err != nil {
		return c, fmt.Errorf("%w: cursor is not one this server issued", ErrInvalidQuery)
	}
	return c, nil
}

// queryError turns the store's rejection of a query (a regex PCRE does not
// accept, say) into ErrInvalidQuery, and passes other failures on.
func queryError(err error) error {
	var ce mongo.CommandError
	if errors.As(err, &ce) && (ce.Code == 2 || ce.Code == 51091) {
		return fmt.Errorf("%w: %s", ErrInvalidQuery, ce.Message)
	}
	return fmt.Errorf("find files: %w", err)
}
