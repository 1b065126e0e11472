package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/gridfsd/gridfsd/buckets"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/bson"
)

// TestListingSkipsMalformedFiles: list and search leave out a files
// document no reader can use, with a warning naming it, instead of
// failing; verify counts it as damage (exit 3).
func TestListingSkipsMalformedFiles(t *testing.T) {
	e := newEnv(t)
	for _, name := range []string{"a", "c", "e"} {
		e.upload("fs", name, "xy", buckets.UploadOptions{})
	}
	date := bson.NewDateTimeFromTime(time.Now())
	for _, doc := range []bson.D{
		{{Key: "_id", Value: "zero"}, {Key: "length", Value: int64(3)}, {Key: "chunkSize", Value: int32(0)}, {Key: "uploadDate", Value: date}, {Key: "filename", Value: "b"}},
		{{Key: "_id", Value: "noname"}, {Key: "length", Value: int64(0)}, {Key: "chunkSize", Value: int32(4)}, {Key: "uploadDate", Value: date}},
		{{Key: "_id", Value: "date"}, {Key: "length", Value: int64(0)}, {Key: "chunkSize", Value: int32(4)}, {Key: "uploadDate", Value: "today"}, {Key: "filename", Value: "d"}},
	} {
		if _, err := e.bucket("fs").FilesCollection().InsertOne(context.Background(), doc); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{{"list"}, {"search", "."}} {
		r := e.run(nil, args...)
		if r.e != nil {
			t.Fatalf("%v: %v", args, r.e)
		}
		if want := "a\t2\nc\t2\ne\t2\n"; r.out != want {
			t.Errorf("%v: %q, want %q", args, r.out, want)
		}
		ids := []string{"zero", "noname", "date"}
		if args[0] == "search" {
			ids = []string{"zero", "date"} // a filename regex never matches a document without a filename
		}
		for _, id := range ids {
			if !strings.Contains(r.err, "WARN") || !strings.Contains(r.err, `_id="\"`+id+`\""`) {
				t.Errorf("%v: no warning about %s: %s", args, id, r.err)
			}
		}
	}
	r := e.run(nil, "verify")
	if exitStatus(r.e) != 3 || !strings.Contains(r.out, `"zero"`) || !strings.Contains(r.out, "chunkSize") {
		t.Errorf("verify: exit %d (%v), stdout %q", exitStatus(r.e), r.e, r.out)
	}
}
