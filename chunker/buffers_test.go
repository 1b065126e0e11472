package chunker

import (
	"context"
	"errors"
	"math"
	"runtime"
	"testing"

	"github.com/gridfsd/gridfsd/internal/storetest"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/bson"
)

func TestBufferClasses(t *testing.T) {
	sizes := []int{1, 100, 4095, 4096, 4097, 5120, 5121, 8191, 8192, 100000,
		DefaultChunkSize, 1 << 18, 4 * DefaultChunkSize, MaxChunkSize, 1 << 25, 1<<25 + 1}
	for _, size := range sizes {
		b := getBuffer(size)
		if len(b) != size {
			t.Fatalf("getBuffer(%d): len %d", size, len(b))
		}
		pooled := size >= 1<<minClassShift && size <= 1<<maxClassShift
		if pooled && (cap(b)*4 > size*5 || classSize(classOf(cap(b))) != cap(b)) {
			t.Errorf("getBuffer(%d): cap %d is not a class within a quarter of the size", size, cap(b))
		}
		if !pooled && cap(b) != size {
			t.Errorf("getBuffer(%d): cap %d, want a direct allocation", size, cap(b))
		}
		putBuffer(b)
	}
	for i := 1; i < classCount; i++ {
		if classSize(i) <= classSize(i-1) || classOf(classSize(i)) != i || classOf(classSize(i-1)+1) != i {
			t.Fatalf("class %d (%d bytes) is not the smallest class that holds its sizes", i, classSize(i))
		}
	}
}

// Every file's last chunk has a size of its own. A pool per exact size kept
// a pool for each of them forever: 50 000 sizes held 7.8 MiB.
func TestBuffersOfManySizesHoldNoMemory(t *testing.T) {
	heap := func() uint64 {
		runtime.GC()
		runtime.GC() // pooled buffers survive one collection
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapInuse
	}
	before := heap()
	for size := 1; size <= 50000; size++ {
		putBuffer(getBuffer(size))
	}
	if grown := int64(heap()) - int64(before); grown > 2<<20 {
		t.Errorf("50000 buffer sizes left the heap %.1f MiB larger", float64(grown)/(1<<20))
	}
}

func TestBufferReuseAllocatesNothing(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector makes sync.Pool drop items at random")
	}
	for _, size := range []int{DefaultChunkSize, 4 * DefaultChunkSize, 100000} {
		putBuffer(getBuffer(size))
		if allocs := testing.AllocsPerRun(1000, func() { putBuffer(getBuffer(size)) }); allocs > 0.1 {
			t.Errorf("a pooled %d-byte buffer: %.2f allocations per get and put", size, allocs)
		}
	}
}

// A chunk number is an int32: with a chunk size of 1 the 2^31st byte would
// need chunk 2^31, which wraps around to a negative n.
func TestWriterRefusesChunkNumbersPastInt32(t *testing.T) {
	ctx := context.Background()
	chunks := storetest.MustOpenDB(t).Collection("fs.chunks")
	id := bson.NewObjectID()
	w, err := NewWriter(ctx, chunks, id, WriterOptions{ChunkSize: 1})
	if err != nil {
		t.Fatal(err)
	}
	// As if the first 2^31-2 chunks were written: two more fit.
	w.length, w.next = MaxLength(1)-2, math.MaxInt32-1
	_, err = w.Write([]byte("abc"))
	if err == nil {
		err = w.Close()
	}
	if !errors.Is(err, ErrTooManyChunks) {
		t.Errorf("writing past chunk 2^31-1: %v, want ErrTooManyChunks", err)
	}
	n, err := chunks.CountDocuments(ctx, bson.D{{Key: "files_id", Value: id}})
	if err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Errorf("%d chunks stored after the refusal, want none", n)
	}
}
