package buckets_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gridfsd/gridfsd/buckets"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/bson"
)

// tiedIDs are _ids of every BSON type an _id may have on any store, in no
// order: files that tie on filename and uploadDate are ordered by them.
func tiedIDs() []any {
	return []any{
		bson.NewObjectID(),
		"b-string",
		"a-string",
		int32(7),
		int64(-3),
		2.5,
		bson.D{{Key: "k", Value: "v"}},
		bson.D{{Key: "a", Value: int32(1)}},
		bson.Binary{Subtype: 0, Data: []byte{1, 2}},
		true,
		false,
		bson.NewDateTimeFromTime(time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)),
		bson.Timestamp{T: 5, I: 1},
		nil,
		bson.MinKey{},
		bson.MaxKey{},
		bson.NewDecimal128(0x3040000000000000, 11),
	}
}

// listAll pages through the bucket with Find and returns the _ids listed,
// in order, failing on a page that repeats the previous one's cursor.
func listAll(t *testing.T, b *buckets.Bucket, q buckets.Query) []string {
	t.Helper()
	var ids []string
	for pages := 0; ; pages++ {
		if pages > 100 {
			t.Fatalf("limit %d: more than 100 pages: %v", q.Limit, ids)
		}
		page, err := b.Find(context.Background(), q)
		if err != nil {
			t.Fatalf("limit %d, page %d: %v", q.Limit, pages, err)
		}
		for _, f := range page.Files {
			ids = append(ids, buckets.FormatID(f.ID))
		}
		if page.Next == "" {
			return ids
		}
		q.After = page.Next
	}
}

func wantEachOnce(t *testing.T, what string, got []string, want map[string]bool) {
	t.Helper()
	seen := map[string]int{}
	for _, id := range got {
		seen[id]++
	}
	for id := range want {
		if seen[id] != 1 {
			t.Errorf("%s: file %s listed %d times; listing %v", what, id, seen[id], got)
		}
	}
	for id, n := range seen {
		if !want[id] {
			t.Errorf("%s: listed %s (%d times), which is no file", what, id, n)
		}
	}
}

// TestKeysetPagingTies: files that tie on filename and uploadDate, with
// _ids of mixed BSON types (which $gt compares only within a type), and
// files without an uploadDate, are each listed exactly once whatever the
// page size.
func TestKeysetPagingTies(t *testing.T) {
	ctx := context.Background()
	b := mustBucket(t, "ties")
	tie := bson.NewDateTimeFromTime(time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC))
	want := map[string]bool{}
	plant := func(doc bson.D) {
		t.Helper()
		if _, err := b.FilesCollection().InsertOne(ctx, doc); err != nil {
			t.Fatal(err)
		}
		f, err := buckets.ParseFile(mustMarshal(t, doc))
		if err != nil {
			t.Fatal(err)
		}
		want[buckets.FormatID(f.ID)] = true
	}
	for _, id := range tiedIDs() {
		if lacks(t, b, id) {
			continue
		}
		plant(bson.D{{Key: "_id", Value: id}, {Key: "length", Value: int64(0)}, {Key: "chunkSize", Value: int32(255 << 10)},
			{Key: "uploadDate", Value: tie}, {Key: "filename", Value: "same"}})
	}
	// The same name without an uploadDate (some tools write none), and
	// with a null one: both sort before every date.
	for i, id := range []any{"no-date-1", int32(1), bson.NewObjectID(), "null-date"} {
		doc := bson.D{{Key: "_id", Value: id}, {Key: "length", Value: int64(0)}, {Key: "chunkSize", Value: int32(1024)}, {Key: "filename", Value: "same"}}
		if i == 3 {
			doc = append(doc, bson.E{Key: "uploadDate", Value: nil})
		}
		plant(doc)
	}
	// Neighbours on either side.
	for i, name := range []string{"before", "samf", "zzz"} {
		plant(bson.D{{Key: "_id", Value: fmt.Sprintf("n%d", i)}, {Key: "length", Value: int64(0)}, {Key: "chunkSize", Value: int32(1024)},
			{Key: "uploadDate", Value: tie}, {Key: "filename", Value: name}})
	}
	if len(want) < 12 {
		t.Fatalf("only %d files planted", len(want))
	}
	for limit := 1; limit <= 4; limit++ {
		wantEachOnce(t, fmt.Sprintf("limit %d", limit), listAll(t, b, buckets.Query{Limit: limit}), want)
	}
	// The same through Each and a folder listing with no folders.
	var each []string
	if err := b.Each(ctx, buckets.Query{Limit: 2}, func(f *buckets.File) error {
		each = append(each, buckets.FormatID(f.ID))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	wantEachOnce(t, "Each", each, want)
	var folder []string
	q := buckets.Query{Limit: 3}
	for {
		page, err := b.FindFolder(ctx, q, "/")
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range page.Files {
			folder = append(folder, buckets.FormatID(f.ID))
		}
		if page.Next == "" {
			break
		}
		q.After = page.Next
	}
	wantEachOnce(t, "FindFolder", folder, want)
}

// lacks reports whether b's store cannot hold v (FerretDB has no MinKey,
// say), so that the test plants only what the store holds.
func lacks(t *testing.T, b *buckets.Bucket, v any) bool {
	t.Helper()
	if v == nil {
		return false
	}
	typ, _, err := bson.MarshalValue(v)
	if err != nil {
		t.Fatal(err)
	}
	return b.StoreLacks(typ)
}

func mustMarshal(t *testing.T, doc bson.D) bson.Raw {
	t.Helper()
	raw, err := bson.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// malformedFiles are files documents no GridFS reader can use, each
// between well-formed ones in listing order.
func malformedFiles() []bson.D {
	date := bson.NewDateTimeFromTime(time.Now())
	return []bson.D{
		{{Key: "_id", Value: "zero-chunk"}, {Key: "length", Value: int64(3)}, {Key: "chunkSize", Value: int32(0)}, {Key: "uploadDate", Value: date}, {Key: "filename", Value: "b-zero"}},
		{{Key: "_id", Value: "string-length"}, {Key: "length", Value: "3"}, {Key: "chunkSize", Value: int32(4)}, {Key: "uploadDate", Value: date}, {Key: "filename", Value: "d-length"}},
		{{Key: "_id", Value: "no-name"}, {Key: "length", Value: int64(0)}, {Key: "chunkSize", Value: int32(4)}, {Key: "uploadDate", Value: date}},
		{{Key: "_id", Value: "number-name"}, {Key: "length", Value: int64(0)}, {Key: "chunkSize", Value: int32(4)}, {Key: "uploadDate", Value: date}, {Key: "filename", Value: int32(12)}},
		{{Key: "_id", Value: "string-date"}, {Key: "length", Value: int64(0)}, {Key: "chunkSize", Value: int32(4)}, {Key: "uploadDate", Value: "yesterday"}, {Key: "filename", Value: "f-date"}},
		{{Key: "_id", Value: "no-id-type"}, {Key: "length", Value: int64(-1)}, {Key: "chunkSize", Value: int32(4)}, {Key: "uploadDate", Value: date}, {Key: "filename", Value: "h-negative"}},
	}
}

// TestListingSkipsMalformedFiles: a files document no reader can use is
// left out of a listing (and reported in the page's Skipped), never an
// error for the whole list.
func TestListingSkipsMalformedFiles(t *testing.T) {
	ctx := context.Background()
	b := mustBucket(t, "malformed")
	want := map[string]bool{}
	for _, name := range []string{"a", "c", "e", "g", "i"} {
		f, err := b.Upload(ctx, name, strings.NewReader(name), buckets.UploadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		want[buckets.FormatID(f.ID)] = true
	}
	bad := map[string]bool{}
	for _, doc := range malformedFiles() {
		if _, err := b.FilesCollection().InsertOne(ctx, doc); err != nil {
			t.Fatal(err)
		}
		bad[doc[0].Value.(string)] = true
	}
	for limit := 1; limit <= 3; limit++ {
		q := buckets.Query{Limit: limit}
		var got []string
		skipped := map[string]int{}
		for {
			page, err := b.Find(ctx, q)
			if err != nil {
				t.Fatalf("limit %d: %v", limit, err)
			}
			for _, f := range page.Files {
				got = append(got, buckets.FormatID(f.ID))
			}
			for _, s := range page.Skipped {
				skipped[s.ID.(string)]++
				if s.Err == nil {
					t.Errorf("skipped %v without a reason", s.ID)
				}
			}
			if page.Next == "" {
				break
			}
			q.After = page.Next
		}
		wantEachOnce(t, fmt.Sprintf("limit %d", limit), got, want)
		for id := range bad {
			if skipped[id] != 1 {
				t.Errorf("limit %d: malformed %s reported %d times, want once", limit, id, skipped[id])
			}
		}
	}
	page, err := b.FindFolder(ctx, buckets.Query{}, "/")
	if err != nil {
		t.Fatalf("folder listing: %v", err)
	}
	if len(page.Files) != len(want) {
		t.Errorf("folder listing: %d files, want %d", len(page.Files), len(want))
	}
}
