package buckets_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/gridfsd/gridfsd/buckets"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/bson"
)

func TestParseMetadataJSON(t *testing.T) {
	for _, good := range []string{
		`{}`, ` {"a":1} `, `{"a":{"b":[1,{"c":"d"}]},"n":{"$numberLong":"5"},"d":{"$date":"2020-01-01T00:00:00Z"}}`,
		`{"contentType":"text/plain; charset=utf-8"}`, `{"a":[1,1,1]}`,
	} {
		if _, err := buckets.ParseMetadataJSON([]byte(good)); err != nil {
			t.Errorf("ParseMetadataJSON(%s): %v", good, err)
		}
	}
	for _, bad := range []string{
		``, `[1]`, `"s"`, `{"a":1} junk`, `{"a":1}{"b":2}`, `{"a":1`, "{\"a\":\"\xff\"}",
		`{"$set":{"a":1}}`, `{"a":{"$gt":1}}`, `{"a":[{"$b":1}]}`, `{"a.b":1}`, `{"a":{"b.c":1}}`, `{"":1}`,
		`{"a":1,"a":2}`, `{"x":{"a":1,"a":2}}`, `{"a\u0000b":1}`,
		`{"contentType":"text/plain\u0000"}`, `{"contentType":"text/plain\r\nX-Evil: 1"}`, `{"contentType":"a\u007f"}`,
		`{"contentType":5}`,
		strings.Repeat(`{"a":`, buckets.MaxMetadataDepth+1) + `1` + strings.Repeat(`}`, buckets.MaxMetadataDepth+1),
	} {
		if md, err := buckets.ParseMetadataJSON([]byte(bad)); !errors.Is(err, buckets.ErrInvalidMetadata) {
			t.Errorf("ParseMetadataJSON(%q) = %v, %v; want ErrInvalidMetadata", bad, md, err)
		}
	}
}

// TestMetadataRulesOnEveryWrite: OpenUpload, Patch and CreateMultipart
// refuse what CheckMetadata refuses, before anything is written.
func TestMetadataRulesOnEveryWrite(t *testing.T) {
	ctx := context.Background()
	b := mustBucket(t, "fs")
	f, err := b.Upload(ctx, "f", strings.NewReader("x"), buckets.UploadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	bad := []bson.D{
		{{Key: "a.b", Value: 1}},
		{{Key: "$a", Value: 1}},
		{{Key: "a", Value: 1}, {Key: "a", Value: 2}},
		{{Key: "x", Value: bson.D{{Key: "y", Value: 1}, {Key: "y", Value: 1}}}},
		{{Key: "contentType", Value: "a\x00b"}},
	}
	for _, md := range bad {
		if _, err := b.OpenUpload(ctx, "g", buckets.UploadOptions{Metadata: md}); !errors.Is(err, buckets.ErrInvalidMetadata) {
			t.Errorf("OpenUpload with %v: %v", md, err)
		}
		if err := b.Patch(ctx, f.ID, nil, &md); !errors.Is(err, buckets.ErrInvalidMetadata) {
			t.Errorf("Patch with %v: %v", md, err)
		}
		if _, err := b.CreateMultipart(ctx, "g", buckets.UploadOptions{Metadata: md}); !errors.Is(err, buckets.ErrInvalidMetadata) {
			t.Errorf("CreateMultipart with %v: %v", md, err)
		}
	}
	if _, err := b.OpenUpload(ctx, "g", buckets.UploadOptions{ContentType: "text/html\r\nSet-Cookie: a=b"}); !errors.Is(err, buckets.ErrInvalidMetadata) {
		t.Errorf("OpenUpload with a content type holding CR LF: %v", err)
	}
	if page, err := b.Find(ctx, buckets.Query{}); err != nil || len(page.Files) != 1 {
		t.Fatalf("after refused writes: %v files, %v", page, err)
	}
}

// TestMetadataFilters: a filter key is a path of field names and a value
// is compared by equality.
func TestMetadataFilters(t *testing.T) {
	ctx := context.Background()
	b := mustBucket(t, "fs")
	for i, md := range []bson.D{{{Key: "k", Value: int32(1)}}, {{Key: "k", Value: int32(2)}}, {{Key: "o", Value: bson.D{{Key: "p", Value: "q"}}}}} {
		if _, err := b.Upload(ctx, string(rune('a'+i)), strings.NewReader("x"), buckets.UploadOptions{Metadata: md}); err != nil {
			t.Fatal(err)
		}
	}
	for key, n := range map[string]int{"k": 1, "o.p": 0} {
		page, err := b.Find(ctx, buckets.Query{Metadata: bson.D{{Key: key, Value: int32(2)}}})
		if err != nil || len(page.Files) != n {
			t.Errorf("filter %s=2: %v files, %v; want %d", key, page, err, n)
		}
	}
	if page, err := b.Find(ctx, buckets.Query{Metadata: bson.D{{Key: "o.p", Value: "q"}}}); err != nil || len(page.Files) != 1 {
		t.Errorf("filter o.p=q: %v, %v", page, err)
	}
	for _, e := range []bson.E{
		{Key: "a\x00b", Value: "1"}, {Key: "a.", Value: "1"}, {Key: ".a", Value: "1"}, {Key: "a..b", Value: "1"},
		{Key: "$where", Value: "1"}, {Key: "a.$x", Value: "1"}, {Key: "", Value: "1"}, {Key: "a\xffb", Value: "1"},
		{Key: "k", Value: bson.D{{Key: "$ne", Value: nil}}}, {Key: "k", Value: bson.D{{Key: "$gt", Value: 0}}},
		{Key: "k", Value: bson.A{bson.D{{Key: "$gt", Value: 0}}}}, {Key: "k", Value: bson.Regex{Pattern: "."}},
	} {
		if page, err := b.Find(ctx, buckets.Query{Metadata: bson.D{e}}); !errors.Is(err, buckets.ErrInvalidQuery) {
			t.Errorf("filter %q=%v: %v, %v; want ErrInvalidQuery", e.Key, e.Value, page, err)
		}
	}
}

// TestTypesTheStoreLacksAre4xx: on a store without some BSON types (the
// embedded FerretDB has no Decimal128, MinKey, JavaScript...), metadata, ids
// and filters holding one are the client's error, refused before anything
// is written; before, the store dropped the connection and the gateway
// answered 503 with Retry-After. On MongoDB they are stored.
func TestTypesTheStoreLacksAre4xx(t *testing.T) {
	ctx := context.Background()
	b := mustBucket(t, "fs")
	f, err := b.Upload(ctx, "f", strings.NewReader("x"), buckets.UploadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	d128, _ := bson.ParseDecimal128("1.5")
	lacksTypes := b.StoreLacks(bson.TypeDecimal128)
	for _, v := range []any{d128, bson.MinKey{}, bson.MaxKey{}, bson.JavaScript("x"), bson.Symbol("s"), bson.Undefined{},
		bson.D{{Key: "deep", Value: bson.A{bson.D{{Key: "d", Value: d128}}}}}} {
		md := bson.D{{Key: "v", Value: v}}
		up, err := b.OpenUpload(ctx, "g", buckets.UploadOptions{Metadata: md})
		if up != nil {
			up.Abort()
		}
		perr := b.Patch(ctx, f.ID, nil, &md)
		_, ferr := b.Find(ctx, buckets.Query{Metadata: md})
		_, serr := b.Stat(ctx, v)
		if !lacksTypes {
			if err != nil || perr != nil || ferr != nil || !errors.Is(serr, buckets.ErrFileNotFound) {
				t.Errorf("%T on a store that holds it: %v, %v, %v, %v", v, err, perr, ferr, serr)
			}
			continue
		}
		if !errors.Is(err, buckets.ErrInvalidMetadata) || !errors.Is(perr, buckets.ErrInvalidMetadata) ||
			!errors.Is(ferr, buckets.ErrInvalidQuery) || !errors.Is(serr, buckets.ErrInvalidID) {
			t.Errorf("%T: upload %v, patch %v, find %v, stat %v", v, err, perr, ferr, serr)
		}
	}
	// The store is still answering: nothing dropped a connection.
	if got, err := b.Stat(ctx, f.ID); err != nil || got.Metadata != nil && !lacksTypes {
		t.Fatalf("after refused writes: %v, %v", got, err)
	}
}

// TestNoMetadataIsValid: a file without metadata (an S3 PutObject without
// x-amz-meta-*, an upload without headers) passes the metadata check.
func TestNoMetadataIsValid(t *testing.T) {
	for _, md := range []bson.D{nil, {}} {
		if err := buckets.CheckMetadata(md); err != nil {
			t.Errorf("CheckMetadata(%#v) = %v, want nil", md, err)
		}
	}
}
