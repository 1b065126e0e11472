package chunker_test

import (
	"bytes"
	"context"
	"io"
	"testing"

	"github.com/gridfsd/gridfsd/chunker"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/bson"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/mongo/options"
)

// The path benchmarks read and write one file through the chunker and
// through the driver's GridFSBucket on the same store, so that a CPU
// profile shows what each costs the store as well as the client (the
// embedded store runs in the test's process):
//
//	go test ./chunker -run XXX -bench Path -cpuprofile cpu.out
const pathChunks = 128

func BenchmarkPathRead(b *testing.B) {
	chunks := mustChunks(b)
	data := bytes.Repeat([]byte{7}, pathChunks*chunker.DefaultChunkSize)
	f := mustWrite(b, chunks, bson.NewObjectID(), data, chunker.DefaultChunkSize)
	ctx := context.Background()
	// The driver's bucket finds the file by its files document.
	if _, err := chunks.Database().Collection("fs.files").InsertOne(ctx, bson.D{
		{Key: "_id", Value: f.ID}, {Key: "length", Value: f.Length}, {Key: "chunkSize", Value: int32(f.ChunkSize)},
		{Key: "uploadDate", Value: bson.DateTime(0)}, {Key: "filename", Value: "f"},
	}); err != nil {
		b.Fatal(err)
	}
	b.Run("chunker", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for i := 0; i < b.N; i++ {
			r, err := chunker.NewReader(ctx, chunks, f)
			if err != nil {
				b.Fatal(err)
			}
			if n, err := io.Copy(io.Discard, struct{ io.Reader }{r}); err != nil || n != int64(len(data)) {
				b.Fatalf("read %d bytes: %v", n, err)
			}
			r.Close()
		}
	})
	b.Run("driver", func(b *testing.B) {
		gb := chunks.Database().GridFSBucket(options.GridFSBucket())
		b.SetBytes(int64(len(data)))
		for i := 0; i < b.N; i++ {
			if n, err := gb.DownloadToStream(ctx, f.ID, io.Discard); err != nil || n != int64(len(data)) {
				b.Fatalf("read %d bytes: %v", n, err)
			}
		}
	})
}

func BenchmarkPathWrite(b *testing.B) {
	chunks := mustChunks(b)
	data := bytes.Repeat([]byte{7}, pathChunks*chunker.DefaultChunkSize)
	ctx := context.Background()
	b.Run("chunker", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
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
	})
	b.Run("driver", func(b *testing.B) {
		gb := chunks.Database().GridFSBucket(options.GridFSBucket())
		b.SetBytes(int64(len(data)))
		for i := 0; i < b.N; i++ {
			if _, err := gb.UploadFromStream(ctx, "f", bytes.NewReader(data)); err != nil {
				b.Fatal(err)
			}
		}
	})
}
