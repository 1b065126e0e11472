package buckets

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/gridfsd/gridfsd/internal/storetest"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// A bucket dropped behind a gateway's back (by another gateway, or by a
// person) gets its indexes again once the gateway's check has aged out.
func TestIndexesComeBackAfterAnExternalDrop(t *testing.T) {
	ctx := context.Background()
	mdb := storetest.MustOpenDB(t)
	gateway, other := NewDB(mdb), NewDB(mdb)
	b, err := gateway.Bucket(ctx, "fs")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Upload(ctx, "a", strings.NewReader("a"), UploadOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := other.Drop(ctx, "fs", true); err != nil {
		t.Fatal(err)
	}
	gateway.mu.Lock()
	gateway.indexed["fs"] = time.Now().Add(-IndexCheckInterval - time.Second)
	gateway.mu.Unlock()
	if _, err := b.Upload(ctx, "b", strings.NewReader("b"), UploadOptions{}); err != nil {
		t.Fatal(err)
	}
	cur, err := b.chunks.Indexes().List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var specs []bson.Raw
	if err := cur.All(ctx, &specs); err != nil {
		t.Fatal(err)
	}
	for _, s := range specs {
		if sameKeys(s.Lookup("key"), chunksIndex) {
			return
		}
	}
	t.Errorf("no {files_id, n} index after the bucket was dropped elsewhere: %v", specs)
}
