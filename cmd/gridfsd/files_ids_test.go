package main

import (
	"context"
	"strings"
	"testing"

	"github.com/gridfsd/gridfsd/buckets"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/bson"
)

// TestIDsAndMetadataAreValues: an id argument that would act as a query
// and metadata the store could not hold are wrong usage (exit 2), and
// nothing changes. Before, delete_id '{"$ne":null}' removed another file's
// chunks and meta --set took trailing junk and $-keys.
func TestIDsAndMetadataAreValues(t *testing.T) {
	e := newEnv(t)
	f := e.upload("fs", "keep", "content", buckets.UploadOptions{ChunkSize: 2, Metadata: bson.D{{Key: "k", Value: "v"}}})
	chunks := e.chunks()
	for _, id := range []string{`{"$ne":null}`, `{"$gt":{"$minKey":1}}`, `{"$regex":"."}`, `[1]`, `{"a":{"$exists":true}}`} {
		for _, cmd := range []string{"delete_id", "get_id"} {
			if msg := e.failsWith(exitUsage, cmd, id); !strings.Contains(msg, "invalid id") {
				t.Errorf("%s %s: %s", cmd, id, msg)
			}
		}
	}
	if got := e.chunks(); got != chunks {
		t.Fatalf("hostile ids left %d chunks, want %d", got, chunks)
	}
	for _, set := range []string{
		`{"a":1} junk`, `{"a":1}{"b":2}`, `{"$set":{"a":1}}`, `{"a":{"$b":1}}`, `{"a.b":1}`, `{"a":1,"a":2}`,
		`{"contentType":"text/plain\u0000x"}`, `[1]`,
	} {
		if msg := e.failsWith(exitUsage, "meta", "keep", "--set", set); !strings.Contains(msg, "invalid metadata") {
			t.Errorf("meta --set %s: %s", set, msg)
		}
	}
	got, err := e.bucket("fs").Stat(context.Background(), f.ID)
	if err != nil {
		t.Fatal(err)
	}
	if elems, _ := got.Metadata.Elements(); len(elems) != 1 || got.Metadata.Lookup("k").StringValue() != "v" {
		t.Fatalf("metadata changed to %v", got.Metadata)
	}
}
