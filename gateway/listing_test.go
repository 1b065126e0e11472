package gateway_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gridfsd/gridfsd/gateway"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/bson"
)

// plantMalformed inserts files documents no GridFS reader can use between
// well-formed files of the bucket.
func plantMalformed(t *testing.T, e *env, bucket string) {
	t.Helper()
	b, err := e.db.Bucket(context.Background(), bucket)
	if err != nil {
		t.Fatal(err)
	}
	date := bson.NewDateTimeFromTime(time.Now())
	for _, doc := range []bson.D{
		{{Key: "_id", Value: "zero"}, {Key: "length", Value: int64(3)}, {Key: "chunkSize", Value: int32(0)}, {Key: "uploadDate", Value: date}, {Key: "filename", Value: "b"}},
		{{Key: "_id", Value: "length"}, {Key: "length", Value: "3"}, {Key: "chunkSize", Value: int32(4)}, {Key: "uploadDate", Value: date}, {Key: "filename", Value: "d/x"}},
		{{Key: "_id", Value: "noname"}, {Key: "length", Value: int64(0)}, {Key: "chunkSize", Value: int32(4)}, {Key: "uploadDate", Value: date}},
		{{Key: "_id", Value: "date"}, {Key: "length", Value: int64(0)}, {Key: "chunkSize", Value: int32(4)}, {Key: "uploadDate", Value: "today"}, {Key: "filename", Value: "f"}},
	} {
		if _, err := b.FilesCollection().InsertOne(context.Background(), doc); err != nil {
			t.Fatal(err)
		}
	}
}

// TestListingSkipsMalformedFiles: one files document no reader can use is
// left out of the listings (and logged), never a 500 for the whole list.
func TestListingSkipsMalformedFiles(t *testing.T) {
	e := newEnv(t, gateway.Config{})
	for _, name := range []string{"a", "c", "d/y", "e", "g"} {
		e.put("/b/fs/"+name, "x", nil)
	}
	plantMalformed(t, e, "fs")
	var names []string
	next := ""
	for pages := 0; pages < 20; pages++ {
		res, body := e.do(http.MethodGet, "/b/fs?limit=2&cursor="+next, nil, "")
		if res.StatusCode != http.StatusOK {
			t.Fatalf("listing: %d %s", res.StatusCode, body)
		}
		var page struct {
			Files []fileJSON `json:"files"`
			Next  string     `json:"next"`
		}
		mustJSON(t, body, &page)
		for _, f := range page.Files {
			names = append(names, f.Filename)
		}
		if next = page.Next; next == "" {
			break
		}
	}
	if got, want := strings.Join(names, ","), "a,c,d/y,e,g"; got != want {
		t.Errorf("listing: %s, want %s", got, want)
	}
	res, body := e.do(http.MethodGet, "/b/fs/?delimiter=/", nil, "")
	if res.StatusCode != http.StatusOK || !strings.Contains(string(body), `"d/"`) || !strings.Contains(string(body), `"g"`) {
		t.Errorf("folder listing: %d %s", res.StatusCode, body)
	}
}
