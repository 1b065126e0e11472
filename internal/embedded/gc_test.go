package embedded

import (
	"bytes"
	"context"
	"runtime"
	"testing"

	"github.com/gridfsd/gridfsd/third_party/mongo-driver/bson"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/mongo/options"
)

// TestReadsCollectRarely: reading GridFS chunks in runs of 8, as gridfsd's chunker.Reader asks
// for them, lets the process allocate at least 12 MiB between two garbage collections (the
// store's heap floor, heapFloor). Without the floor the collector ran every 4-5 MB: the store's
// live heap is a few chunks, and every chunk read is 255 KiB of garbage.
func TestReadsCollectRarely(t *testing.T) {
	ctx := context.Background()
	_, chunks := chunksCollection(t, false)
	const n, size, run = 128, 255 << 10, 8
	id := bson.NewObjectID()
	data := make([]byte, size)
	for k := 0; k < n; k += run {
		var docs []any
		for j := k; j < k+run; j++ {
			data[0] = byte(j)
			docs = append(docs, bson.D{{Key: "files_id", Value: id}, {Key: "n", Value: int32(j)}, {Key: "data", Value: bytes.Clone(data)}})
		}
		if _, err := chunks.InsertMany(ctx, docs); err != nil {
			t.Fatal(err)
		}
	}
	read := func() {
		for first := 0; first < n; first += run {
			filter := bson.D{{Key: "files_id", Value: id}, {Key: "n", Value: bson.D{{Key: "$gte", Value: first}, {Key: "$lte", Value: first + run - 1}}}}
			opts := options.Find().SetSort(bson.D{{Key: "n", Value: 1}}).SetBatchSize(run).SetLimit(run).
				SetProjection(bson.D{{Key: "_id", Value: 0}, {Key: "n", Value: 1}, {Key: "data", Value: 1}})
			cur, err := chunks.Find(ctx, filter, opts)
			if err != nil {
				t.Fatal(err)
			}
			k := first
			for ; cur.Next(ctx); k++ {
				if _, b, ok := cur.Current.Lookup("data").BinaryOK(); !ok || len(b) != size || b[0] != byte(k) {
					t.Fatalf("chunk %d: %d bytes", k, len(b))
				}
			}
			if err := cur.Err(); err != nil || k != first+run {
				t.Fatalf("run from %d: %d chunks, %v", first, k-first, err)
			}
			cur.Close(ctx)
		}
	}
	read() // warm
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range 4 {
		read()
	}
	runtime.ReadMemStats(&after)
	allocated, cycles := after.TotalAlloc-before.TotalAlloc, after.NumGC-before.NumGC
	t.Logf("reading 4 x 32 MiB in runs of %d: %d MiB allocated, %d collections", run, allocated>>20, cycles)
	if cycles > 0 && allocated/uint64(cycles) < 12<<20 {
		t.Errorf("a collection every %.1f MiB allocated, want at least 12", float64(allocated)/float64(cycles)/(1<<20))
	}
}
