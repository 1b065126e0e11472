package buckets_test

import (
	"bytes"
	"context"
	"crypto/md5"
	"encoding/hex"
	"errors"
	"io"
	"testing"

	"github.com/gridfsd/gridfsd/buckets"
	"github.com/gridfsd/gridfsd/internal/storetest"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/bson"
)

// TestCopyPart: a chunk-aligned range of a file becomes a part by copying
// its chunk documents: no chunk goes through a chunk reader (the chunk
// cache sees no read), the part's chunks are new documents holding the
// source's bytes, its MD5 is the range's, and the upload completes (by
// relabelling them) into the right content while the source stays whole.
// An unaligned range is ErrNotAligned and stores nothing.
func TestCopyPart(t *testing.T) {
	ctx := context.Background()
	db := buckets.NewDB(storetest.MustOpenDB(t))
	b, err := db.Bucket(ctx, "cp")
	if err != nil {
		t.Fatal(err)
	}
	mu, err := b.CreateMultipart(ctx, "src", buckets.UploadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	src, list := uploadParts(t, b, mu, 5<<20, 1000)
	f, err := b.CompleteMultipart(ctx, mu.ID, list)
	if err != nil {
		t.Fatal(err)
	}
	const cs = buckets.MultipartChunkSize
	dst, err := b.CreateMultipart(ctx, "dst", buckets.UploadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	chunks := func() int64 {
		n, err := b.ChunksCollection().CountDocuments(ctx, bson.D{})
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	before := chunks()
	for _, r := range [][2]int64{{10, 100}, {cs, cs + 1}, {0, int64(len(src)) + 1}} {
		if _, err := b.CopyPart(ctx, dst.ID, 9, b, f, r[0], r[1]); !errors.Is(err, buckets.ErrNotAligned) {
			t.Fatalf("range %v: %v, want ErrNotAligned", r, err)
		}
	}
	if n := chunks(); n != before {
		t.Fatalf("an unaligned copy stored %d chunks", n-before)
	}

	stats := db.ChunkCacheStats()
	ranges := [][2]int64{{0, 5 << 20}, {5<<20 - cs, int64(len(src)) - (5<<20 - cs)}}
	var want []byte
	var done []buckets.CompletedPart
	for i, r := range ranges {
		part, err := b.CopyPart(ctx, dst.ID, i+1, b, f, r[0], r[1])
		if err != nil {
			t.Fatalf("part %d: %v", i+1, err)
		}
		content := src[r[0] : r[0]+r[1]]
		if sum := md5.Sum(content); part.MD5 != hex.EncodeToString(sum[:]) || part.Size != r[1] {
			t.Fatalf("part %d: MD5 %s, size %d; want the range's", i+1, part.MD5, part.Size)
		}
		// The part's chunks: new documents, numbered from 0, holding the
		// source chunks' bytes.
		cur, err := b.ChunksCollection().Find(ctx, bson.D{{Key: "files_id", Value: part.FilesID}})
		if err != nil {
			t.Fatal(err)
		}
		var docs []struct {
			ID   bson.ObjectID `bson:"_id"`
			N    int           `bson:"n"`
			Data []byte        `bson:"data"`
		}
		if err := cur.All(ctx, &docs); err != nil {
			t.Fatal(err)
		}
		if want := (r[1] + cs - 1) / cs; int64(len(docs)) != want {
			t.Fatalf("part %d: %d chunks, want %d", i+1, len(docs), want)
		}
		for _, d := range docs {
			off := int64(d.N) * cs
			if !bytes.Equal(d.Data, content[off:min(off+cs, int64(len(content)))]) {
				t.Fatalf("part %d: chunk %d differs from the source's", i+1, d.N)
			}
			if err := b.ChunksCollection().FindOne(ctx, bson.D{{Key: "_id", Value: d.ID}, {Key: "files_id", Value: f.ID}}).Err(); err == nil {
				t.Fatalf("part %d: chunk %d is the source's own document", i+1, d.N)
			}
		}
		want = append(want, content...)
		done = append(done, buckets.CompletedPart{Number: i + 1, MD5: part.MD5})
	}
	if s := db.ChunkCacheStats(); s.Hits != stats.Hits || s.Misses != stats.Misses {
		t.Fatalf("the copies read chunks through chunk readers: cache hits %d→%d, misses %d→%d", stats.Hits, s.Hits, stats.Misses, s.Misses)
	}
	out, err := b.CompleteMultipart(ctx, dst.ID, done)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		f    *buckets.File
		want []byte
	}{{out, want}, {f, src}} {
		dl, err := b.Open(ctx, c.f)
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(dl)
		dl.Close()
		if err != nil || !bytes.Equal(got, c.want) {
			t.Fatalf("%s: read back %d bytes (%v), want %d", c.f.Filename, len(got), err, len(c.want))
		}
	}
	if s := db.ChunkCacheStats(); s.Hits+s.Misses == stats.Hits+stats.Misses {
		t.Fatal("reading through a chunk reader left the cache counters as they were: they prove nothing")
	}
}
