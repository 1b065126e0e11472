package embedded

import (
	"context"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// TestCountHoldsNoFile: the driver's CountDocuments, which gridfsd's commit
// runs over a file's chunks, is an aggregation with a $group that only
// counts. The store must not hold the documents it counts (PATCHES.md item
// 12): upstream kept every chunk of the file in memory, so a commit of a
// 1 GiB upload needed more than 1 GiB.
func TestCountHoldsNoFile(t *testing.T) {
	s, err := Start(Config{DataDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	c := connect(t, s)
	ctx := context.Background()
	chunks := c.Database("test").Collection("fs.chunks")
	if _, err := chunks.Indexes().CreateOne(ctx, mongoIndex("files_id", "n")); err != nil {
		t.Fatal(err)
	}
	const n, size = 320, 255 << 10 // 80 MiB
	id := bson.NewObjectID()
	data := make([]byte, size)
	for k := 0; k < n; k += 8 {
		var docs []any
		for j := k; j < k+8; j++ {
			data[0] = byte(j)
			docs = append(docs, bson.D{{Key: "files_id", Value: id}, {Key: "n", Value: int32(j)}, {Key: "data", Value: data}})
		}
		if _, err := chunks.InsertMany(ctx, docs); err != nil {
			t.Fatal(err)
		}
	}

	heap := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	read := func() int64 { metrics.Read(heap); return int64(heap[0].Value.Uint64()) }
	var peak atomic.Int64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			peak.Store(max(peak.Load(), read()))
			select {
			case <-stop:
				return
			case <-time.After(time.Millisecond):
			}
		}
	}()
	before := read()
	got, err := chunks.CountDocuments(ctx, bson.D{{Key: "files_id", Value: id}})
	close(stop)
	wg.Wait()
	if err != nil {
		t.Fatal(err)
	}
	if got != n {
		t.Errorf("CountDocuments: %d, want %d", got, n)
	}
	rise := peak.Load() - before
	t.Logf("heap rise during the count of %d MiB of chunks: %d MiB", n*size>>20, rise>>20)
	if rise > 40<<20 {
		t.Errorf("the heap rose by %d MiB while counting %d MiB of chunks: the store holds what it counts", rise>>20, n*size>>20)
	}

	// A $group that reads the documents still reads them, and every
	// accumulator sees every document (item 13: upstream gave the second
	// accumulator none, count 0).
	cur, err := chunks.Aggregate(ctx, bson.A{
		bson.D{{Key: "$match", Value: bson.D{{Key: "files_id", Value: id}, {Key: "n", Value: bson.D{{Key: "$lt", Value: 10}}}}}},
		bson.D{{Key: "$group", Value: bson.D{{Key: "_id", Value: 1}, {Key: "sum", Value: bson.D{{Key: "$sum", Value: "$n"}}}, {Key: "count", Value: bson.D{{Key: "$sum", Value: 1}}}}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	var res []struct {
		Sum   int64 `bson:"sum"`
		Count int64 `bson:"count"`
	}
	if err := cur.All(ctx, &res); err != nil {
		t.Fatal(err)
	}
	if len(res) != 1 || res[0].Sum != 45 || res[0].Count != 10 {
		t.Errorf("$group with $sum of $n and $sum of 1 over chunks 0..9: %+v, want sum 45, count 10", res)
	}
}

func mongoIndex(fields ...string) mongo.IndexModel {
	keys := bson.D{}
	for _, f := range fields {
		keys = append(keys, bson.E{Key: f, Value: 1})
	}
	return mongo.IndexModel{Keys: keys, Options: options.Index().SetUnique(true)}
}
