package s3

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/gridfsd/gridfsd/buckets"
	"github.com/gridfsd/gridfsd/internal/storetest"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/bson"
)

// TestListingSkipsMalformedFiles: ListObjects(V2) leaves out a files
// document no reader can use instead of failing the whole listing.
func TestListingSkipsMalformedFiles(t *testing.T) {
	ctx := context.Background()
	b, err := buckets.NewDB(storetest.MustOpenDB(t)).Bucket(ctx, "media")
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"a", "c", "d/y", "e"} {
		if _, err := b.Upload(ctx, k, strings.NewReader("x"), buckets.UploadOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	date := bson.NewDateTimeFromTime(time.Now())
	for _, doc := range []bson.D{
		{{Key: "_id", Value: "zero"}, {Key: "length", Value: int64(3)}, {Key: "chunkSize", Value: int32(0)}, {Key: "uploadDate", Value: date}, {Key: "filename", Value: "b"}},
		{{Key: "_id", Value: "length"}, {Key: "length", Value: "3"}, {Key: "chunkSize", Value: int32(4)}, {Key: "uploadDate", Value: date}, {Key: "filename", Value: "d/x"}},
		{{Key: "_id", Value: "noname"}, {Key: "length", Value: int64(0)}, {Key: "chunkSize", Value: int32(4)}, {Key: "uploadDate", Value: date}},
	} {
		if _, err := b.FilesCollection().InsertOne(ctx, doc); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct{ delimiter, want string }{{"", "a,c,d/y,e"}, {"/", "a,c,d/,e"}} {
		entries, truncated, err := listing(ctx, b, "", tc.delimiter, "", 1000)
		if err != nil {
			t.Fatalf("delimiter %q: %v", tc.delimiter, err)
		}
		var got []string
		for _, e := range entries {
			got = append(got, e.name())
		}
		if strings.Join(got, ",") != tc.want || truncated {
			t.Errorf("delimiter %q: %v (truncated %v), want %s", tc.delimiter, got, truncated, tc.want)
		}
	}
}
