package embedded

import (
	"bytes"
	"context"
	"sync"
	"testing"

	"github.com/gridfsd/gridfsd/third_party/mongo-driver/bson"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/event"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/mongo"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/mongo/options"
)

// TestLargeFileThroughDriver downloads a 60 MiB file of 1 MiB chunks with
// the driver's GridFS, which asks for chunks without a batch size: the
// store must end each batch in bytes (MongoDB does at 16 MiB), or the first
// reply, 60 chunks, exceeds the 48 MB a wire message may hold. A find with a
// batch size larger than the bytes allow must still return every chunk: a
// batch cut short by its size is not the end of the cursor.
func TestLargeFileThroughDriver(t *testing.T) {
	s, err := Start(Config{DataDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var mu sync.Mutex
	var replies []int
	monitor := &event.CommandMonitor{Succeeded: func(_ context.Context, e *event.CommandSucceededEvent) {
		if e.CommandName == "find" || e.CommandName == "getMore" {
			mu.Lock()
			replies = append(replies, len(e.Reply))
			mu.Unlock()
		}
	}}
	c, err := mongo.Connect(options.Client().ApplyURI(s.URI()).SetMonitor(monitor))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Disconnect(context.Background())
	db := c.Database("test")
	b := db.GridFSBucket(options.GridFSBucket().SetChunkSizeBytes(1 << 20))
	data := make([]byte, 60<<20)
	for i := range data {
		data[i] = byte(i ^ i>>20)
	}
	id, err := b.UploadFromStream(context.Background(), "big.bin", bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}

	var got bytes.Buffer
	if _, err := b.DownloadToStream(context.Background(), id, &got); err != nil {
		t.Fatalf("driver download: %v", err)
	}
	if !bytes.Equal(got.Bytes(), data) {
		t.Fatalf("driver download: %d bytes differ from the %d written", got.Len(), len(data))
	}

	cur, err := db.Collection("fs.chunks").Find(context.Background(), bson.D{{Key: "files_id", Value: id}},
		options.Find().SetBatchSize(1000).SetSort(bson.D{{Key: "n", Value: 1}}))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for cur.Next(context.Background()) {
		if k := cur.Current.Lookup("n").AsInt64(); k != int64(n) {
			t.Fatalf("chunk %d where %d was due", k, n)
		}
		n++
	}
	if err := cur.Err(); err != nil {
		t.Fatal(err)
	}
	if n != 60 {
		t.Errorf("find with batch size 1000: %d chunks, want 60", n)
	}
	mu.Lock()
	defer mu.Unlock()
	for _, size := range replies {
		if size > 33<<20 {
			t.Errorf("a reply of %d bytes: a batch ends at 16 MiB, one document past it at most", size)
		}
	}
}
