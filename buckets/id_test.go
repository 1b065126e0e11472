package buckets_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/gridfsd/gridfsd/buckets"
	"go.mongodb.org/mongo-driver/v2/bson"
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
