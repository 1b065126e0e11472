package buckets_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/gridfsd/gridfsd/buckets"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/bson"
)

// TestCheckProgress checks that Verify and Fsck tell their progress chunk
// by chunk and that the bytes add up to the files' lengths.
func TestCheckProgress(t *testing.T) {
	ctx := context.Background()
	b := mustBucket(t, "fs")
	a, err := b.Upload(ctx, "a", strings.NewReader("0123456789"), buckets.UploadOptions{ChunkSize: 4})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Upload(ctx, "b", strings.NewReader("abcdef"), buckets.UploadOptions{ChunkSize: 4}); err != nil {
		t.Fatal(err)
	}
	// An orphan is not part of any file's length.
	if _, err := b.ChunksCollection().InsertOne(ctx, chunk(bson.NewObjectIDFromTimestamp(time.Now().Add(-2*time.Hour)), 0, "lost")); err != nil {
		t.Fatal(err)
	}
	var calls []int
	c, err := b.VerifyProgress(ctx, a, func(n int) { calls = append(calls, n) })
	if err != nil || !c.OK() {
		t.Fatalf("verify: %v %v", err, c.Problems)
	}
	if len(calls) != 3 || calls[0] != 4 || calls[1] != 4 || calls[2] != 2 {
		t.Errorf("verify told %v, want [4 4 2]", calls)
	}
	total := 0
	if _, err := b.FsckProgress(ctx, 0, func(n int) { total += n }); err != nil {
		t.Fatal(err)
	}
	if total != 16 {
		t.Errorf("fsck told %d bytes, want 16", total)
	}
}
