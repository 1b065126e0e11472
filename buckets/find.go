package buckets

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"time"

	"github.com/gridfsd/gridfsd/third_party/mongo-driver/bson"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/mongo"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/mongo/options"
)

// DefaultLimit and MaxLimit bound one page of Find.
const (
	DefaultLimit = 100
	MaxLimit     = 1000
)

// Query selects files. Every set field narrows the result.
type Query struct {
	// Prefix matches filenames that start with it (a range of filenames,
	// which every store answers from the filename index).
	Prefix string
	// Regex matches filenames against a regular expression, as mongofiles
	// search does.
	Regex string
	// Metadata matches files whose metadata.<key> equals the value, for
	// each element: a key is a dotted path of field names; a value is
	// compared as a value ($eq), never read as an operator document, and
	// Find returns ErrInvalidQuery for one with $-keys or a regular
	// expression, which clients would expect to work as a query.
	Metadata bson.D
	// Limit is the page size: 0 means DefaultLimit, at most MaxLimit.
	Limit int
	// After continues a listing from the Next of a previous Page.
	After string
	// From skips the filenames that sort before it (byte order), as S3's
	// marker and start-after do.
	From string
	// DeleteMarkers lists delete markers and the revisions of deleted
	// names too (S3's ListObjectVersions); other listings leave them out
	// (see versioning.go).
	DeleteMarkers bool
}

// Page is one page of a listing, ordered by filename, then uploadDate,
// then _id (listingOrder). Next is empty on the last page. A page may hold
// fewer than Limit files, none on the last, when files documents were
// skipped.
type Page struct {
	Files []*File
	Next  string
	// Skipped are the files documents of the page's range that no GridFS
	// reader can use (listedFile), left out of Files and logged, each on
	// one page only: a listing of thousands of files must not fail
	// because another tool wrote one bad document.
	Skipped []Skipped
}

// Skipped is a files document a listing left out, and why.
type Skipped struct {
	ID  any // the _id; nil when the document has none
	Err error
}

// listingOrder is the order of every listing: the files collection's
// {filename, uploadDate} index, then _id to break ties.
var listingOrder = bson.D{{Key: "filename", Value: 1}, {Key: "uploadDate", Value: 1}, {Key: "_id", Value: 1}}

// pageLimit is q's page size: DefaultLimit when unset, else 1 to MaxLimit.
func (q Query) pageLimit() (int, error) {
	switch {
	case q.Limit == 0:
		return DefaultLimit, nil
	case q.Limit < 0 || q.Limit > MaxLimit:
		return 0, fmt.Errorf("%w: limit %d is not between 1 and %d", ErrInvalidQuery, q.Limit, MaxLimit)
	}
	return q.Limit, nil
}

// Find lists the files that match q, one page at a time with keyset
// pagination: each page is one indexed range query, however deep. It
// returns ErrInvalidQuery for a bad limit, regex or cursor.
func (b *Bucket) Find(ctx context.Context, q Query) (*Page, error) {
	limit, err := q.pageLimit()
	if err != nil {
		return nil, err
	}
	filter, err := b.filter(ctx, q)
	if err != nil {
		return nil, err
	}
	filter = b.live(filter, time.Now())
	for _, e := range q.Metadata {
		if err := b.db.checkStoreTypes(ctx, "metadata filter "+e.Key, e.Value, ErrInvalidQuery); err != nil {
			return nil, err
		}
	}
	// The query reads limit+1 documents: a page and the one after it,
	// which tells whether there is a next page. Skipped documents take
	// places, so when the store had as many as asked for and the page is
	// short, the same query runs again asking for twice as many. A limit
	// keeps the store's sort a bounded top-k one on MongoDB.
	for want := limit + 1; ; want = min(2*want, math.MaxInt32) {
		page, read, err := b.findPage(ctx, filter, limit, want, q.DeleteMarkers)
		if err != nil || page.Next != "" || read < want || want == math.MaxInt32 {
			return page, err
		}
	}
}

// findPage reads up to want files documents that match filter, in
// listingOrder, into a page of up to limit files, and returns how many
// documents it read.
func (b *Bucket) findPage(ctx context.Context, filter bson.D, limit, want int, markers bool) (*Page, int, error) {
	cur, err := b.files.Find(ctx, filter, options.Find().SetSort(listingOrder).SetLimit(int64(want)))
	if err != nil {
		return nil, 0, queryError(err)
	}
	defer closeCursor(ctx, cur)
	page := &Page{Files: []*File{}}
	var skipped []Skipped
	read := 0
	for cur.Next(ctx) {
		read++
		if len(page.Files) == limit {
			// The next page starts after this page's last file and
			// reports the documents skipped from here on.
			page.Next = encodeCursor(page.Files[limit-1])
			break
		}
		raw := append(bson.Raw(nil), cur.Current...)
		f, err := listedFile(raw)
		if err != nil {
			skipped = append(skipped, Skipped{ID: rawID(raw), Err: err})
			continue
		}
		page.Files = append(page.Files, f)
	}
	if err := cur.Err(); err != nil {
		return nil, 0, queryError(err)
	}
	// Revisions the bucket's rules hide leave holes in the page, as
	// skipped documents do; the cursor still continues after its last.
	if page.Files, err = b.dropHiddenRevisions(ctx, page.Files, time.Now()); err != nil {
		return nil, 0, err
	}
	if b.settings.Versioned() && !markers {
		if page.Files, err = b.dropDeleted(ctx, page.Files, time.Now()); err != nil {
			return nil, 0, err
		}
	}
	if page.Next != "" || read < want {
		// The final read of this page: report what it skipped, once.
		for _, s := range skipped {
			b.db.logger().WarnContext(ctx, "listing skips a files document no GridFS reader can use",
				"bucket", b.name, "_id", FormatID(s.ID), "error", s.Err)
		}
		page.Skipped = skipped
	}
	return page, read, nil
}

// listedFile parses a files document for a listing, which needs what
// ParseFile needs and a string filename and an uploadDate that is a date
// or absent (older tools wrote none): listingOrder pages by them.
func listedFile(raw bson.Raw) (*File, error) {
	f, err := ParseFile(raw)
	if err != nil {
		return nil, err
	}
	if v := raw.Lookup("filename"); v.Type != bson.TypeString {
		return nil, fmt.Errorf("files document %s: filename %s is not a string", FormatID(f.ID), describeValue(v))
	}
	switch v := raw.Lookup("uploadDate"); v.Type {
	case 0, bson.TypeNull, bson.TypeDateTime:
	default:
		return nil, fmt.Errorf("files document %s: uploadDate %s is not a date", FormatID(f.ID), describeValue(v))
	}
	return f, nil
}

// describeValue names a field's value in a reason: the value itself, or
// "missing".
func describeValue(v bson.RawValue) string {
	if v.Type == 0 {
		return "missing"
	}
	return truncate(v.String(), 64)
}

// rawID is the _id of a files document, nil when it has none or it does
// not decode.
func rawID(raw bson.Raw) any {
	var id any
	if v, err := raw.LookupErr("_id"); err == nil {
		_ = v.Unmarshal(&id)
	}
	return id
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

// filter is q as a query on the files collection.
func (b *Bucket) filter(ctx context.Context, q Query) (bson.D, error) {
	// The prefix and From are one range on filename at the top of the
	// filter, where the embedded store looks for what its indexes answer.
	var name bson.D
	if q.Prefix != "" {
		name = prefixRange(q.Prefix)
	}
	if q.From != "" {
		if i := slices.IndexFunc(name, func(e bson.E) bool { return e.Key == "$gte" }); i >= 0 {
			name[i].Value = max(name[i].Value.(string), q.From)
		} else {
			name = append(name, bson.E{Key: "$gte", Value: q.From})
		}
	}
	var and bson.A
	if q.Regex != "" {
		if err := CheckRegex(q.Regex); err != nil {
			return nil, err
		}
		and = append(and, bson.D{{Key: "filename", Value: bson.Regex{Pattern: q.Regex}}})
	}
	for _, e := range q.Metadata {
		if err := checkMetadataFilter(e); err != nil {
			return nil, err
		}
		and = append(and, bson.D{{Key: "metadata." + e.Key, Value: bson.D{{Key: "$eq", Value: e.Value}}}})
	}
	if q.After != "" {
		c, err := decodeCursor(q.After)
		if err != nil {
			return nil, err
		}
		// A forged cursor may hold an _id of a type the store lacks, which
		// the embedded store answers by dropping the connection (a 503):
		// no cursor this server issued holds one.
		if err := b.db.checkStoreTypes(ctx, "cursor", c.ID, ErrInvalidQuery); err != nil {
			return nil, fmt.Errorf("%w: cursor is not one this server issued", ErrInvalidQuery)
		}
		and = append(and, c.after(b.db.lackedTypes(ctx)))
	}
	filter := bson.D{}
	if name != nil {
		filter = append(filter, bson.E{Key: "filename", Value: name})
	}
	if len(and) > 0 {
		filter = append(filter, bson.E{Key: "$and", Value: and})
	}
	return filter, nil
}

// CheckRegex returns ErrInvalidQuery for a Query.Regex that Find would
// refuse, without a store: callers check what they were given before
// connecting. MongoDB speaks PCRE, not Go's RE2; this catches most
// mistakes before the store does and gives a readable reason.
func CheckRegex(pattern string) error {
	if _, err := regexp.Compile(pattern); err != nil {
		return fmt.Errorf("%w: regex: %v", ErrInvalidQuery, err)
	}
	return nil
}

// checkMetadataFilter refuses a metadata filter the store would misread or
// refuse: a key that is no path of field names (empty segments, a segment
// starting with "$", NUL, invalid UTF-8) and a value that is an operator
// document or a regular expression.
func checkMetadataFilter(e bson.E) error {
	if err := checkFieldPath(e.Key); err != nil {
		return fmt.Errorf("%w: metadata filter %q: %w", ErrInvalidQuery, truncate(e.Key, 64), err)
	}
	t, data, err := bson.MarshalValue(e.Value)
	if err != nil {
		return fmt.Errorf("%w: metadata filter %q: %v", ErrInvalidQuery, truncate(e.Key, 64), err)
	}
	v := bson.RawValue{Type: t, Value: data}
	switch v.Type {
	case bson.TypeRegex:
		return fmt.Errorf("%w: metadata filter %q: a regular expression would match by pattern; filters test equality", ErrInvalidQuery, truncate(e.Key, 64))
	case bson.TypeEmbeddedDocument, bson.TypeArray:
		if err := checkIDKeys(v.Value, 1); err != nil {
			return fmt.Errorf("%w: metadata filter %q: a filter is a value, not an operator: %w", ErrInvalidQuery, truncate(e.Key, 64), err)
		}
	}
	return nil
}

// cursorKey is where a listing continues: the listingOrder key of the
// last file listed, each value as stored.
type cursorKey struct {
	Filename string `bson:"f"`
	// UploadDate is nil when the file has no uploadDate, or a null one.
	UploadDate *bson.DateTime `bson:"d,omitempty"`
	ID         bson.RawValue  `bson:"i"`
}

func encodeCursor(f *File) string {
	c := cursorKey{Filename: f.Filename, ID: f.Raw.Lookup("_id")}
	if d, ok := f.Raw.Lookup("uploadDate").DateTimeOK(); ok {
		c.UploadDate = (*bson.DateTime)(&d)
	}
	return encodeToken(c)
}

// encodeToken is v as an opaque, URL-safe cursor: BSON in base64.
func encodeToken(v any) string {
	raw, err := bson.Marshal(v)
	if err != nil {
		return ""
	}
	return base64.RawURLEncoding.EncodeToString(raw)
}

// decodeToken reads a cursor encodeToken wrote into v.
func decodeToken(s string, v any) error {
	raw, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return err
	}
	return bson.Unmarshal(raw, v)
}

func decodeCursor(s string) (cursorKey, error) {
	var c cursorKey
	err := decodeToken(s, &c)
	if err == nil && c.ID.Type == 0 {
		err = errors.New("no _id")
	}
	if err != nil {
		return c, fmt.Errorf("%w: cursor is not one this server issued", ErrInvalidQuery)
	}
	return c, nil
}

// after matches the files that come after c in listingOrder, among the
// files a listing lists (listedFile: a string filename, a date or no
// uploadDate; the documents it skips may match or not). lacks are the
// BSON types the store cannot hold, left out of $type lists.
func (c cursorKey) after(lacks map[bson.Type]string) bson.D {
	sameDate := bson.E{Key: "uploadDate", Value: nil} // null or missing: they sort alike
	laterDate := bson.E{Key: "uploadDate", Value: bson.D{{Key: "$type", Value: "date"}}}
	if c.UploadDate != nil {
		sameDate = bson.E{Key: "uploadDate", Value: *c.UploadDate}
		laterDate = bson.E{Key: "uploadDate", Value: bson.D{{Key: "$gt", Value: *c.UploadDate}}}
	}
	or := bson.A{
		bson.D{{Key: "filename", Value: bson.D{{Key: "$gt", Value: c.Filename}}}},
		bson.D{{Key: "filename", Value: c.Filename}, laterDate},
	}
	if later := sortsAfter("_id", c.ID, lacks); len(later) > 0 {
		or = append(or, bson.D{{Key: "filename", Value: c.Filename}, sameDate, {Key: "$or", Value: later}})
	}
	return bson.D{{Key: "$or", Value: or}}
}

// bsonOrder is MongoDB's BSON comparison order, the order of sorts: the
// types of one group compare by value with each other, and a value of a
// later group sorts after every value of an earlier one. $gt and $lt are
// type-bracketed (they match only values of the operand's group), so a
// keyset continuation over a field of mixed types needs $type for the
// groups after the cursor's.
var bsonOrder = [][]bson.Type{
	{bson.TypeMinKey},
	{bson.TypeUndefined},
	{bson.TypeNull},
	{bson.TypeDouble, bson.TypeInt32, bson.TypeInt64, bson.TypeDecimal128},
	{bson.TypeSymbol, bson.TypeString},
	{bson.TypeEmbeddedDocument},
	{bson.TypeArray},
	{bson.TypeBinary},
	{bson.TypeObjectID},
	{bson.TypeBoolean},
	{bson.TypeDateTime},
	{bson.TypeTimestamp},
	{bson.TypeRegex},
	{bson.TypeDBPointer},
	{bson.TypeJavaScript},
	{bson.TypeCodeWithScope},
	{bson.TypeMaxKey},
}

// sortsAfter returns the clauses of an $or that matches the documents
// whose field, always present, sorts after v in ascending order: a greater
// value of v's group, or any value of a later group ($type, by number,
// which every MongoDB version accepts, leaving out the types the store
// lacks, as no document holds them and FerretDB refuses their codes). It
// returns nil when nothing sorts after v.
func sortsAfter(field string, v bson.RawValue, lacks map[bson.Type]string) bson.A {
	group := slices.IndexFunc(bsonOrder, func(g []bson.Type) bool { return slices.Contains(g, v.Type) })
	var or bson.A
	switch v.Type {
	case bson.TypeMinKey, bson.TypeMaxKey, bson.TypeUndefined, bson.TypeNull:
		// Every value of these groups is equal to the others.
	case bson.TypeDouble, bson.TypeDecimal128:
		if isNaN(v) {
			// NaN sorts before every other number, and $gt NaN matches none.
			or = append(or, bson.D{{Key: field, Value: bson.D{{Key: "$gte", Value: math.Inf(-1)}}}})
			break
		}
		fallthrough
	default:
		or = append(or, bson.D{{Key: field, Value: bson.D{{Key: "$gt", Value: v}}}})
	}
	var later bson.A
	for _, g := range bsonOrder[group+1:] {
		for _, t := range g {
			if _, ok := lacks[t]; ok {
				continue
			}
			code := int32(t)
			if t == bson.TypeMinKey {
				code = -1
			}
			later = append(later, code)
		}
	}
	if len(later) > 0 {
		or = append(or, bson.D{{Key: field, Value: bson.D{{Key: "$type", Value: later}}}})
	}
	return or
}

func isNaN(v bson.RawValue) bool {
	if f, ok := v.DoubleOK(); ok {
		return math.IsNaN(f)
	}
	if d, ok := v.Decimal128OK(); ok {
		return d.IsNaN()
	}
	return false
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
