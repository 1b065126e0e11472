package buckets_test

import (
	"bytes"
	"context"
	"errors"
	"testing"
	"time"

	"github.com/gridfsd/gridfsd/buckets"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/bson"
)

// agedChunk is a chunk written age ago, as its ObjectID tells.
func agedChunk(age time.Duration, filesID any, n int32, data string) bson.D {
	c := chunk(filesID, n, data)
	c[0].Value = bson.NewObjectIDFromTimestamp(time.Now().Add(-age))
	return c
}

func oldChunk(filesID any, n int32, data string) bson.D {
	return agedChunk(2*time.Hour, filesID, n, data)
}

func insertChunks(t *testing.T, b *buckets.Bucket, chunks ...bson.D) {
	t.Helper()
	for _, c := range chunks {
		if _, err := b.ChunksCollection().InsertOne(context.Background(), c); err != nil {
			t.Fatal(err)
		}
	}
}

func chunkCount(t *testing.T, b *buckets.Bucket, filesID any) int64 {
	t.Helper()
	n, err := b.ChunksCollection().CountDocuments(context.Background(), bson.D{{Key: "files_id", Value: filesID}})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestFindAndRemoveOrphans(t *testing.T) {
	ctx := context.Background()
	b := mustBucket(t, "fs")
	f, err := b.Upload(ctx, "keep", bytes.NewReader([]byte("0123456789")), buckets.UploadOptions{ChunkSize: 4})
	if err != nil {
		t.Fatal(err)
	}
	// A file whose _id is the int32 5 and whose chunks say int64 5 is
	// whole: MongoDB matches numbers by value.
	plantFile(t, b, filesDoc(int32(5), 3, 4), chunk(int64(5), 0, "abc"))
	oldID := bson.NewObjectID()
	insertChunks(t, b, oldChunk(oldID, 0, "aaaa"), oldChunk(oldID, 1, "bb"), oldChunk("old-string-id", 0, "x"))
	young := bson.NewObjectID()
	insertChunks(t, b, agedChunk(10*time.Second, young, 0, "in progress"))
	// One old chunk and one new one: the upload is alive, leave it.
	mixed := bson.NewObjectID()
	insertChunks(t, b, oldChunk(mixed, 0, "aaaa"), agedChunk(10*time.Second, mixed, 1, "bbbb"))

	o, err := b.FindOrphans(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	old := map[any]int64{}
	for _, x := range o.Old {
		old[x.FilesID] = x.Chunks
		if time.Since(x.Newest()) < time.Hour {
			t.Errorf("old orphan %v: newest chunk %v", x.FilesID, x.Newest())
		}
	}
	if len(old) != 2 || old[oldID] != 2 || old["old-string-id"] != 1 {
		t.Fatalf("old orphans %+v, want %v with 2 chunks and old-string-id with 1", o.Old, oldID)
	}
	pending := map[any]bool{}
	for _, x := range o.Pending {
		pending[x.FilesID] = true
	}
	if len(pending) != 2 || !pending[young] || !pending[mixed] {
		t.Fatalf("pending orphans %+v, want %v and %v", o.Pending, young, mixed)
	}

	// A grace shorter than the young chunks' age makes them old too.
	short, err := b.FindOrphans(ctx, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if len(short.Old) != 4 || len(short.Pending) != 0 {
		t.Fatalf("with a short grace: %d old, %d pending, want 4 and 0", len(short.Old), len(short.Pending))
	}

	removed, chunks, err := b.RemoveOrphans(ctx, o.Old)
	if err != nil {
		t.Fatal(err)
	}
	if chunks != 3 || len(removed) != 2 {
		t.Fatalf("removed %d chunks of %+v, want 3 chunks of 2 orphans", chunks, removed)
	}
	for id, want := range map[any]int64{oldID: 0, "old-string-id": 0, young: 1, mixed: 2, f.ID: 3, int32(5): 1} {
		if got := chunkCount(t, b, id); got != want {
			t.Errorf("chunks of %v: %d, want %d", id, got, want)
		}
	}
	if _, err := b.FindOrphans(ctx, -time.Second); !errors.Is(err, buckets.ErrInvalidQuery) {
		t.Errorf("negative grace: %v", err)
	}
}

func TestRemoveOrphansSparesFilesCommittedSince(t *testing.T) {
	ctx := context.Background()
	b := mustBucket(t, "fs")
	id := bson.NewObjectID()
	insertChunks(t, b, oldChunk(id, 0, "ab"))
	o, err := b.FindOrphans(ctx, time.Hour)
	if err != nil || len(o.Old) != 1 {
		t.Fatalf("orphans %+v, %v", o, err)
	}
	// The slow upload commits between the scan and the repair.
	plantFile(t, b, filesDoc(id, 2, 4))
	removed, chunks, err := b.RemoveOrphans(ctx, o.Old)
	if err != nil || chunks != 0 || len(removed) != 0 {
		t.Fatalf("removed %d chunks of %+v, %v; want none", chunks, removed, err)
	}
	if got := chunkCount(t, b, id); got != 1 {
		t.Fatalf("chunks %d, want 1", got)
	}
}

func TestFsck(t *testing.T) {
	ctx := context.Background()
	b := mustBucket(t, "fs")
	good, err := b.Upload(ctx, "good", bytes.NewReader([]byte("0123456789")), buckets.UploadOptions{ChunkSize: 4})
	if err != nil {
		t.Fatal(err)
	}
	plantFile(t, b, filesDoc("missing", 10, 4), chunk("missing", 0, "abcd"), chunk("missing", 2, "ij"))
	plantFile(t, b, filesDoc("short", 10, 4), chunk("short", 0, "abcd"), chunk("short", 1, "efg"), chunk("short", 2, "ij"))
	plantFile(t, b, filesDoc("extra", 4, 4), chunk("extra", 0, "abcd"), chunk("extra", 1, "e"))
	orphan := bson.NewObjectID()
	insertChunks(t, b, oldChunk(orphan, 0, "zz"))

	rep, err := b.Fsck(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Files != 4 || rep.Chunks != 3+2+3+2+1 {
		t.Errorf("checked %d files and %d chunks, want 4 and 11", rep.Files, rep.Chunks)
	}
	if len(rep.Old) != 1 || rep.Old[0].FilesID != orphan {
		t.Errorf("orphans %+v, want %v", rep.Old, orphan)
	}
	want := map[any]error{"missing": buckets.ErrChunkMissing, "short": buckets.ErrChunkSize, "extra": buckets.ErrExtraChunk}
	if len(rep.Damaged) != len(want) {
		t.Fatalf("damaged %+v, want %d files", rep.Damaged, len(want))
	}
	for _, d := range rep.Damaged {
		if d.File.ID == good.ID {
			t.Errorf("good file reported damaged: %v", d.Problems)
		}
		if len(d.Problems) != 1 || !errors.Is(d.Problems[0], want[d.File.ID]) {
			t.Errorf("%v: problems %v, want %v", d.File.ID, d.Problems, want[d.File.ID])
		}
	}
}

func TestDeleteOlderRevisions(t *testing.T) {
	ctx := context.Background()
	b := mustBucket(t, "fs")
	// Revisions a second apart, so that the order does not depend on how
	// fast the store is.
	t0 := time.Now().Add(-time.Minute)
	var files []*buckets.File
	for i, s := range []string{"v1", "v2", "v3"} {
		id := bson.NewObjectID()
		doc := filesDoc(id, 2, 4)
		doc[3].Value = bson.NewDateTimeFromTime(t0.Add(time.Duration(i) * time.Second))
		doc[4].Value = "r"
		plantFile(t, b, doc, chunk(id, 0, s))
		f, err := b.Stat(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	other, err := b.Upload(ctx, "other", bytes.NewReader([]byte("x")), buckets.UploadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// Keep v2: v1 goes, v3 (newer) and the other name stay.
	n, err := b.DeleteOlderRevisions(ctx, files[1])
	if err != nil || n != 1 {
		t.Fatalf("removed %d, %v; want 1", n, err)
	}
	for id, want := range map[any]bool{files[0].ID: false, files[1].ID: true, files[2].ID: true, other.ID: true} {
		_, err := b.Stat(ctx, id)
		if got := err == nil; got != want {
			t.Errorf("file %v present %v, want %v (%v)", id, got, want, err)
		}
	}
	if got := chunkCount(t, b, files[0].ID); got != 0 {
		t.Errorf("chunks of the removed revision: %d", got)
	}
}
