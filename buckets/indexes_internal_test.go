package buckets

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/gridfsd/gridfsd/internal/storetest"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/bson"
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
	gateway.indexed["fs"] = indexCheck{at: time.Now().Add(-IndexCheckInterval - time.Second), present: true}
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

// A bucket dropped by another gateway and written again through this one
// before its check aged out (so without indexes) gets them back at the
// next check, though its files collection is no longer empty.
func TestIndexesComeBackAfterADropAndAWrite(t *testing.T) {
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
	if _, err := b.Upload(ctx, "b", strings.NewReader("b"), UploadOptions{}); err != nil {
		t.Fatal(err)
	}
	if has, err := hasIndex(ctx, b.chunks, chunksIndex); err != nil || has {
		t.Fatalf("chunks index right after the drop and a write: %v, %v; want none (the check has not aged out)", has, err)
	}
	gateway.recheck("fs")
	if _, err := b.Upload(ctx, "c", strings.NewReader("c"), UploadOptions{}); err != nil {
		t.Fatal(err)
	}
	if has, err := hasIndex(ctx, b.chunks, chunksIndex); err != nil || !has {
		t.Errorf("no {files_id, n} index after the bucket was dropped elsewhere and written again: %v, %v", has, err)
	}
	if has, err := hasIndex(ctx, b.files, filesIndex); err != nil || !has {
		t.Errorf("no {filename, uploadDate} index after the bucket was dropped elsewhere and written again: %v, %v", has, err)
	}
}

// Settings changed through another gateway reach this one once its cached
// copy ages out; changed through this one, at once.
func TestSettingsCache(t *testing.T) {
	ctx := context.Background()
	mdb := storetest.MustOpenDB(t)
	gateway, other := NewDB(mdb), NewDB(mdb)
	if _, err := gateway.Create(ctx, "media", Settings{ChunkSize: 100}); err != nil {
		t.Fatal(err)
	}
	chunkSize := func() int {
		t.Helper()
		b, err := gateway.Bucket(ctx, "media")
		if err != nil {
			t.Fatal(err)
		}
		return b.ChunkSize()
	}
	if got := chunkSize(); got != 100 {
		t.Fatalf("chunk size %d right after Create, want 100", got)
	}
	if _, err := other.Create(ctx, "media", Settings{ChunkSize: 200}); err != nil {
		t.Fatal(err)
	}
	gateway.mu.Lock()
	c := gateway.settings["media"]
	c.at = time.Now().Add(-SettingsCacheTTL - time.Second)
	gateway.settings["media"] = c
	gateway.mu.Unlock()
	if got := chunkSize(); got != 200 {
		t.Errorf("chunk size %d after the cache aged out, want 200 set by another gateway", got)
	}
	if err := gateway.Drop(ctx, "media", true); err != nil {
		t.Fatal(err)
	}
	if got := chunkSize(); got != 261120 {
		t.Errorf("chunk size %d after Drop, want the default", got)
	}
}
