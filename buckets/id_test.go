package buckets_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/gridfsd/gridfsd/buckets"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/bson"
)

func TestParseID(t *testing.T) {
	oid, _ := bson.ObjectIDFromHex("5f0000000000000000000001")
	tests := []struct {
		in   string
		want any
	}{
		{`{"$oid":"5f0000000000000000000001"}`, oid},
		{`my-id`, "my-id"},
		{`5f0000000000000000000001`, "5f0000000000000000000001"},
		{`42`, int32(42)},
		{`{"$numberLong":"42"}`, int64(42)},
		{`"quoted"`, "quoted"},
		{`1.5`, 1.5},
	}
	for _, tt := range tests {
		got, err := buckets.ParseID(tt.in)
		if err != nil || got != tt.want {
			t.Errorf("ParseID(%s) = %#v, %v; want %#v", tt.in, got, err, tt.want)
			continue
		}
		if back, err := buckets.ParseID(buckets.FormatID(got)); err != nil || back != got {
			t.Errorf("ParseID(FormatID(%#v)) = %#v, %v", got, back, err)
		}
	}
	for _, bad := range []string{"", `{"$oid":"nothex"}`, `{broken`, "null"} {
		if _, err := buckets.ParseID(bad); !errors.Is(err, buckets.ErrInvalidID) {
			t.Errorf("ParseID(%q) error = %v, want ErrInvalidID", bad, err)
		}
	}
}

func TestFileJSON(t *testing.T) {
	raw, _ := bson.Marshal(bson.D{
		{Key: "_id", Value: "x"}, {Key: "length", Value: int32(3)}, {Key: "chunkSize", Value: 4.0},
		{Key: "filename", Value: "a.txt"}, {Key: "metadata", Value: bson.D{{Key: "contentType", Value: "text/plain"}, {Key: "n", Value: int64(5)}}},
	})
	f, err := buckets.ParseFile(raw)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"id":"x"`, `"length":3`, `"chunkSize":4`, `"contentType":"text/plain"`, `"metadata":{"contentType":"text/plain","n":5}`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("JSON %s lacks %s", b, want)
		}
	}
}

// TestParseIDRefusesQueries: an id is a value; what would act as a query
// in {_id: id} or {files_id: id} is ErrInvalidID, at any depth, while the
// Extended JSON type wrappers stay typed values.
func TestParseIDRefusesQueries(t *testing.T) {
	for _, bad := range []string{
		`{"$ne":null}`, `{"$gt":{"$minKey":1}}`, `{"$in":[1,2]}`, `{"$exists":true}`, `{"$where":"1"}`,
		`{"a":{"$ne":1}}`, `{"a":[{"b":{"$gt":1}}]}`, `{"$ref":"fs.files","$id":1}`,
		`{"$regex":"."}`, `{"$regex":".","$options":"i"}`, `{"$regularExpression":{"pattern":".","options":""}}`,
		`[1,2]`, `[]`, `{"$undefined":true}`, `null`,
	} {
		if id, err := buckets.ParseID(bad); !errors.Is(err, buckets.ErrInvalidID) {
			t.Errorf("ParseID(%s) = %#v, %v; want ErrInvalidID", bad, id, err)
		}
	}
	for _, good := range []string{
		`{"$oid":"5f0000000000000000000001"}`, `{"$date":"2020-01-01T00:00:00Z"}`, `{"$numberDecimal":"1.5"}`,
		`{"$binary":{"base64":"AA==","subType":"00"}}`, `{"$uuid":"00000000-0000-0000-0000-000000000000"}`,
		`{"$timestamp":{"t":1,"i":2}}`, `{"$minKey":1}`, `{"$maxKey":1}`, `{"$code":"x"}`, `{"$symbol":"s"}`,
		`{"$numberInt":"1"}`, `{"$numberDouble":"1.5"}`,
		`{"a":1}`, `{"a":{"$oid":"5f0000000000000000000001"},"b":[1,{"c":{"$date":"2020-01-01T00:00:00Z"}}]}`,
		`{"a":null}`, `true`, `"$ne"`, `$ne`,
	} {
		id, err := buckets.ParseID(good)
		if err != nil {
			t.Errorf("ParseID(%s): %v", good, err)
			continue
		}
		if err := buckets.CheckID(id); err != nil {
			t.Errorf("CheckID(ParseID(%s)): %v", good, err)
		}
	}
	for _, bad := range []any{nil, bson.D{{Key: "$ne", Value: nil}}, bson.Regex{Pattern: "."}, bson.A{1}, bson.Undefined{},
		bson.D{{Key: "a", Value: bson.A{bson.D{{Key: "$gt", Value: 1}}}}}} {
		if err := buckets.CheckID(bad); !errors.Is(err, buckets.ErrInvalidID) {
			t.Errorf("CheckID(%#v) = %v, want ErrInvalidID", bad, err)
		}
	}
}
