package chunker_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/gridfsd/gridfsd/chunker"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/bson"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/mongo/options"
)

// TestWriterInsertsMakeLittleGarbage: what a writer's inserts allocate (the
// chunks' documents, the driver's messages) is a small part of the bytes
// they move, also when small commands go between them on the same client (a
// resumable upload's record updates). Before, the driver's encoder copied
// each chunk twice into buffers it grew and dropped, and a small command
// left the driver's pooled message buffer too empty to be pooled again:
// 2.3 bytes of garbage per byte uploaded, a garbage collection every 4 MB.
func TestWriterInsertsMakeLittleGarbage(t *testing.T) {
	if chunker.RaceEnabled {
		t.Skip("the race detector makes sync.Pool drop a quarter of what is put back")
	}
	chunks := mustChunks(t)
	records := chunks.Database().Collection("records")
	ctx := context.Background()
	rate := runtime.MemProfileRate
	runtime.MemProfileRate = 4096
	defer func() { runtime.MemProfileRate = rate }()
	data := randomBytes(3, 32*chunker.DefaultChunkSize+1000)
	const appends = 8
	before := insertGarbage()
	for i := range appends {
		mustWrite(t, chunks, fmt.Sprint("f", i), data, chunker.DefaultChunkSize)
		_, err := records.UpdateOne(ctx, bson.D{{Key: "_id", Value: "r"}}, bson.D{{Key: "$set", Value: bson.D{{Key: "n", Value: i}}}},
			options.UpdateOne().SetUpsert(true))
		if err != nil {
			t.Fatal(err)
		}
	}
	got, moved := insertGarbage()-before, int64(appends*len(data))
	if got > moved/4 {
		t.Errorf("the inserts allocated %d bytes for %d bytes of chunks, want at most a quarter", got, moved)
	}
	t.Logf("the inserts allocated %d bytes for %d bytes of chunks", got, moved)
}

// insertGarbage is what the insert goroutines of writers allocated so far,
// from the memory profile.
func insertGarbage() int64 { return garbageIn("chunker.(*Writer).flush.func") }

// TestReaderRepliesAreRecycled: a Reader's loads read the store's replies
// into pooled buffers, given back once each run is loaded. Before, the
// driver allocated every reply, zeroed, for that reply alone: as many
// bytes as the download moved (10% of the gateway's CPU on a GET went to
// clearing them).
func TestReaderRepliesAreRecycled(t *testing.T) {
	if chunker.RaceEnabled {
		t.Skip("the race detector makes sync.Pool drop a quarter of what is put back")
	}
	chunks := mustChunks(t)
	data := randomBytes(5, 64*chunker.DefaultChunkSize)
	f := mustWrite(t, chunks, "f", data, chunker.DefaultChunkSize)
	rate := runtime.MemProfileRate
	runtime.MemProfileRate = 4096
	defer func() { runtime.MemProfileRate = rate }()
	read := func() {
		r, err := chunker.NewReader(context.Background(), chunks, f)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		got, err := io.ReadAll(r)
		if err != nil || !bytes.Equal(got, data) {
			t.Fatalf("read back %d bytes, %v", len(got), err)
		}
	}
	read() // fills the pools
	before := garbageIn("go.mongodb.org/mongo-driver/v2/x/mongo/driver/topology.(*connection).read", "mongo-driver/x/mongo/driver/topology.(*connection).read")
	const reads = 4
	for range reads {
		read()
	}
	got := garbageIn("go.mongodb.org/mongo-driver/v2/x/mongo/driver/topology.(*connection).read", "mongo-driver/x/mongo/driver/topology.(*connection).read") - before
	moved := int64(reads * len(data))
	// Pooled buffers that a garbage collection took are allocated again:
	// a quarter of them in this process, whose store collects often.
	if got > moved/2 {
		t.Errorf("the driver allocated %d bytes of replies for %d bytes of chunks read, want at most half", got, moved)
	}
	t.Logf("the driver allocated %d bytes of replies for %d bytes of chunks read", got, moved)
}

// garbageIn is what the stacks through any of the functions named allocated
// so far, from the memory profile.
func garbageIn(functions ...string) int64 {
	runtime.GC() // the profile is as of the last completed cycle
	runtime.GC()
	n, _ := runtime.MemProfile(nil, true)
	records := make([]runtime.MemProfileRecord, n+64)
	n, _ = runtime.MemProfile(records, true)
	var sum int64
	for _, r := range records[:n] {
		frames := runtime.CallersFrames(r.Stack())
		for {
			f, more := frames.Next()
			if slices.ContainsFunc(functions, func(fn string) bool { return strings.Contains(f.Function, fn) }) {
				sum += r.AllocBytes
				break
			}
			if !more {
				break
			}
		}
	}
	return sum
}

// TestWriterDocumentsAsTheDriverLaysThemOut: the chunk documents the writer
// lays out itself are byte for byte those the driver made of a struct of
// _id, files_id, n and data, whatever the files_id's type.
func TestWriterDocumentsAsTheDriverLaysThemOut(t *testing.T) {
	chunks := mustChunks(t)
	ctx := context.Background()
	type chunkDoc struct {
		ID      bson.ObjectID `bson:"_id"`
		FilesID any           `bson:"files_id"`
		N       int32         `bson:"n"`
		Data    []byte        `bson:"data"`
	}
	data := randomBytes(4, 250)
	for _, id := range []any{bson.NewObjectID(), "a name", int64(7), bson.D{{Key: "k", Value: 1.5}}} {
		mustWrite(t, chunks, id, data, 100)
		cur, err := chunks.Find(ctx, bson.D{{Key: "files_id", Value: id}}, options.Find().SetSort(bson.D{{Key: "n", Value: 1}}))
		if err != nil {
			t.Fatal(err)
		}
		var got []bson.Raw
		if err := cur.All(ctx, &got); err != nil {
			t.Fatal(err)
		}
		if len(got) != 3 {
			t.Fatalf("files_id %v: %d chunks, want 3", id, len(got))
		}
		for n, raw := range got {
			want, err := bson.Marshal(chunkDoc{ID: raw.Lookup("_id").ObjectID(), FilesID: id, N: int32(n), Data: data[n*100 : min(n*100+100, len(data))]})
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(raw, want) {
				t.Errorf("files_id %v, chunk %d:\n got %v\nwant %v", id, n, raw, bson.Raw(want))
			}
		}
	}
}
