package chunker_test

import (
	"bytes"
	"context"
	"io"
	"runtime"
	"testing"

	"github.com/gridfsd/gridfsd/chunker"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/bson"
)

// The allocation benchmarks report allocations and bytes per chunk of a
// steady upload or download, the driver's included:
//
//	go test ./chunker -run XXX -bench AllocsPerChunk -benchmem
const benchChunks = 64

func BenchmarkWriterAllocsPerChunk(b *testing.B) {
	chunks := mustChunks(b)
	data := bytes.Repeat([]byte{7}, benchChunks*chunker.DefaultChunkSize)
	ctx := context.Background()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	pc := startPerChunk(b)
	for i := 0; i < b.N; i++ {
		w, err := chunker.NewWriter(ctx, chunks, bson.NewObjectID(), chunker.WriterOptions{})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := w.ReadFrom(bytes.NewReader(data)); err != nil {
			b.Fatal(err)
		}
		if err := w.Close(); err != nil {
			b.Fatal(err)
		}
	}
	pc.report(b)
}

func BenchmarkReaderAllocsPerChunk(b *testing.B) {
	chunks := mustChunks(b)
	data := bytes.Repeat([]byte{7}, benchChunks*chunker.DefaultChunkSize)
	f := mustWrite(b, chunks, bson.NewObjectID(), data, chunker.DefaultChunkSize)
	ctx := context.Background()
	buf := make([]byte, 32<<10) // io.Copy's size, as http.ServeContent reads
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	pc := startPerChunk(b)
	for i := 0; i < b.N; i++ {
		r, err := chunker.NewReader(ctx, chunks, f)
		if err != nil {
			b.Fatal(err)
		}
		if n, err := io.CopyBuffer(io.Discard, struct{ io.Reader }{r}, buf); err != nil || n != int64(len(data)) {
			b.Fatalf("read %d bytes: %v", n, err)
		}
		r.Close()
	}
	pc.report(b)
}

// perChunk measures the allocations of the loop it wraps, per chunk.
type perChunk struct{ before runtime.MemStats }

func startPerChunk(b *testing.B) *perChunk {
	p := &perChunk{}
	runtime.ReadMemStats(&p.before)
	b.ResetTimer()
	return p
}

func (p *perChunk) report(b *testing.B) {
	b.StopTimer()
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	n := float64(b.N * benchChunks)
	b.ReportMetric(float64(after.Mallocs-p.before.Mallocs)/n, "allocs/chunk")
	b.ReportMetric(float64(after.TotalAlloc-p.before.TotalAlloc)/n, "B/chunk")
}

// TestReadAllocation bounds the bytes allocated per byte a Reader fetches, the store's included
// when it is the embedded one (in this process): each chunk is copied by the SQLite driver, by
// the Go driver reading the reply, and into the Reader's buffer (pooled). The garbage of chunk
// reads paces the collector of a `gridfsd serve` process, whose pauses were the 64 range readers'
// tail (docs/BENCHMARKS.md): 6.3 bytes a byte before FerretDB fork item 28, 2.1-2.2 after.
func TestReadAllocation(t *testing.T) {
	if chunker.RaceEnabled {
		t.Skip("the race detector makes sync.Pool drop items at random")
	}
	chunks := mustChunks(t)
	data := bytes.Repeat([]byte{7}, benchChunks*chunker.DefaultChunkSize)
	f := mustWrite(t, chunks, bson.NewObjectID(), data, chunker.DefaultChunkSize)
	ctx := context.Background()
	read := func() int64 {
		r, err := chunker.NewReader(ctx, chunks, f)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		if n, err := io.Copy(io.Discard, struct{ io.Reader }{r}); err != nil || n != int64(len(data)) {
			t.Fatalf("read %d bytes: %v", n, err)
		}
		return r.Fetched()
	}
	read() // warm: connections, pools
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	var fetched int64
	for range 4 {
		fetched += read()
	}
	runtime.ReadMemStats(&after)
	perByte := float64(after.TotalAlloc-before.TotalAlloc) / float64(fetched)
	t.Logf("%.2f bytes allocated per byte fetched (%d MiB)", perByte, fetched>>20)
	if perByte > 3 {
		t.Errorf("reading allocated %.2f bytes per byte fetched, want at most 3", perByte)
	}
}
