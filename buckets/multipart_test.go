package buckets_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"io"
	"testing"
	"time"

	"github.com/gridfsd/gridfsd/buckets"
	"github.com/gridfsd/gridfsd/internal/storetest"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/bson"
)

func uploadParts(t *testing.T, b *buckets.Bucket, mu *buckets.MultipartUpload, sizes ...int) ([]byte, []buckets.CompletedPart) {
	t.Helper()
	ctx := context.Background()
	var all []byte
	var list []buckets.CompletedPart
	for i, n := range sizes {
		data := make([]byte, n)
		rand.Read(data)
		p, err := b.OpenPart(ctx, mu.ID, i+1)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := p.ReadFrom(bytes.NewReader(data)); err != nil {
			t.Fatal(err)
		}
		part, err := p.Commit()
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, data...)
		list = append(list, buckets.CompletedPart{Number: i + 1, MD5: part.MD5})
	}
	return all, list
}

// TestMultipartJoins completes uploads whose parts can be relabelled (the
// chunks keep their _ids and get int32 n) and one that must be copied,
// and reads each back; the orphan scan never counts parts in progress.
func TestMultipartJoins(t *testing.T) {
	ctx := context.Background()
	b, err := buckets.NewDB(storetest.MustOpenDB(t)).Bucket(ctx, "mp")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		sizes []int
	}{
		{"relabel", []int{5 << 20, 5 << 20, 1000}},
		{"copy", []int{5<<20 + 1, 5 << 20, 7}},
	} {
		mu, err := b.CreateMultipart(ctx, tc.name, buckets.UploadOptions{ContentType: "text/plain"})
		if err != nil {
			t.Fatal(err)
		}
		want, list := uploadParts(t, b, mu, tc.sizes...)
		orphans, err := b.FindOrphans(ctx, time.Nanosecond)
		if err != nil {
			t.Fatal(err)
		}
		if len(orphans.Old)+len(orphans.Pending) != 0 {
			t.Fatalf("%s: parts in progress taken for orphans: %+v", tc.name, orphans)
		}
		if _, err := b.CompleteMultipart(ctx, mu.ID, []buckets.CompletedPart{list[1], list[0]}); !errors.Is(err, buckets.ErrPartOrder) {
			t.Fatalf("%s: parts out of order: %v", tc.name, err)
		}
		if _, err := b.CompleteMultipart(ctx, mu.ID, []buckets.CompletedPart{{Number: 1, MD5: "00"}}); !errors.Is(err, buckets.ErrInvalidPart) {
			t.Fatalf("%s: wrong ETag: %v", tc.name, err)
		}
		// A part number listed twice counts once, with its last entry (a
		// part sent again: the later upload is the part), whose ETag must
		// match.
		if _, err := b.CompleteMultipart(ctx, mu.ID, append([]buckets.CompletedPart{list[0], {Number: 1, MD5: "00"}}, list[1:]...)); !errors.Is(err, buckets.ErrInvalidPart) {
			t.Fatalf("%s: repeated part whose last ETag is wrong: %v", tc.name, err)
		}
		f, err := b.CompleteMultipart(ctx, mu.ID, append([]buckets.CompletedPart{{Number: 1, MD5: "00"}}, list...))
		if err != nil {
			t.Fatalf("%s: complete: %v", tc.name, err)
		}
		dl, err := b.Open(ctx, f)
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(dl)
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("%s: read back %d bytes (%v), want %d", tc.name, len(got), err, len(want))
		}
		if f.MediaType() != "text/plain" || f.S3ETag == "" {
			t.Fatalf("%s: content type %q, etag %q", tc.name, f.MediaType(), f.S3ETag)
		}
		var chunk bson.Raw
		chunk, err = b.ChunksCollection().FindOne(ctx, bson.D{{Key: "files_id", Value: f.ID}, {Key: "n", Value: int32(40)}}).Raw()
		if err != nil {
			t.Fatalf("%s: chunk 40: %v", tc.name, err)
		}
		if chunk.Lookup("n").Type != bson.TypeInt32 {
			t.Fatalf("%s: n is %v, want int32", tc.name, chunk.Lookup("n").Type)
		}
		if _, err := b.Multipart(ctx, mu.ID); !errors.Is(err, buckets.ErrUploadNotFound) {
			t.Fatalf("%s: upload still recorded after Complete: %v", tc.name, err)
		}
	}
	orphans, err := b.FindOrphans(ctx, time.Nanosecond)
	if err != nil || len(orphans.Old)+len(orphans.Pending) != 0 {
		t.Fatalf("orphans after Complete: %+v, %v", orphans, err)
	}
}

// TestMultipartAbortAndSweep: Abort and the sweeper leave no chunk,
// part or upload behind.
func TestMultipartAbortAndSweep(t *testing.T) {
	ctx := context.Background()
	db := storetest.MustOpenDB(t)
	b, err := buckets.NewDB(db).Bucket(ctx, "mpa")
	if err != nil {
		t.Fatal(err)
	}
	a, _ := b.CreateMultipart(ctx, "aborted", buckets.UploadOptions{})
	uploadParts(t, b, a, 1<<20, 1000)
	if err := b.AbortMultipart(ctx, a.ID); err != nil {
		t.Fatal(err)
	}
	s, _ := b.CreateMultipart(ctx, "swept", buckets.UploadOptions{})
	uploadParts(t, b, s, 1<<20)
	if n, err := b.SweepMultipart(ctx, time.Hour); err != nil || n != 0 {
		t.Fatalf("young upload swept: %d, %v", n, err)
	}
	time.Sleep(10 * time.Millisecond)
	if n, err := b.SweepMultipart(ctx, time.Millisecond); err != nil || n != 1 {
		t.Fatalf("sweep: %d, %v", n, err)
	}
	for _, coll := range []string{"mpa.chunks", buckets.MultipartCollection, buckets.PartsCollection} {
		if n, _ := db.Collection(coll).CountDocuments(ctx, bson.D{}); n != 0 {
			t.Fatalf("%s holds %d documents after abort and sweep", coll, n)
		}
	}
}
