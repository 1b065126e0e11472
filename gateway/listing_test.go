package gateway_test

import (
	"context"
	"encoding/base64"
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

// forgedCursor is a listing cursor this server never issued, of _id id.
func forgedCursor(t *testing.T, id any) string {
	raw, err := bson.Marshal(bson.D{{Key: "f", Value: "a"}, {Key: "i", Value: id}})
	if err != nil {
		t.Fatal(err)
	}
	return base64.RawURLEncoding.EncodeToString(raw)
}

// TestForgedCursorIsNot5xx: a cursor this server never issued is 400
// invalid_query (API.md: a 5xx means the gateway or the store failed). A
// forged cursor whose _id was of a BSON type the embedded store lacks
// reached the store as {_id: {$gt: <value>}}, which dropped the
// connection: 503 store_unavailable, at will, for anyone who may list.
func TestForgedCursorIsNot5xx(t *testing.T) {
	e := newEnv(t, gateway.Config{})
	for _, name := range []string{"a", "b", "c"} {
		e.put("/b/fs/"+name, "x", nil)
	}
	for what, id := range map[string]any{
		"javascript":                bson.JavaScript("sleep(100)"),
		"dbpointer":                 bson.DBPointer{DB: "x", Pointer: bson.NewObjectID()},
		"codewithscope":             bson.CodeWithScope{Code: "x", Scope: bson.D{}},
		"symbol":                    bson.Symbol("x"),
		"document holding a symbol": bson.D{{Key: "k", Value: bson.Symbol("x")}},
		"decimal128":                bson.Decimal128{},
	} {
		find := forgedCursor(t, id)
		raw, err := bson.Marshal(bson.D{{Key: "a", Value: find}})
		if err != nil {
			t.Fatal(err)
		}
		folder := base64.RawURLEncoding.EncodeToString(raw)
		for _, q := range []string{"cursor=" + find, "delimiter=/&cursor=" + folder} {
			res, body := e.do(http.MethodGet, "/b/fs/?"+q, nil, "")
			if res.StatusCode >= 500 {
				t.Errorf("forged cursor with a %s _id (%.20s...): %d %.120s (want 400 invalid_query)", what, q, res.StatusCode, body)
			}
		}
	}
	// The store dropped the connection, not the gateway: a real listing
	// still works.
	if res, body := e.do(http.MethodGet, "/b/fs/", nil, ""); res.StatusCode != http.StatusOK {
		t.Errorf("listing after the forged cursors: %d %.200s", res.StatusCode, body)
	}
}
