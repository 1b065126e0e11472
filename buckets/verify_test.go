package buckets_test

import (
	"bytes"
	"context"
	"crypto/md5"
	"encoding/hex"
	"errors"
	"testing"
	"time"

	"github.com/gridfsd/gridfsd/buckets"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/bson"
)

// plantFile writes a files document and the given chunks by hand, the way
// a damaged or foreign bucket might hold them.
func plantFile(t *testing.T, b *buckets.Bucket, doc bson.D, chunks ...bson.D) {
	t.Helper()
	ctx := context.Background()
	if _, err := b.FilesCollection().InsertOne(ctx, doc); err != nil {
		t.Fatal(err)
	}
	for _, c := range chunks {
		if _, err := b.ChunksCollection().InsertOne(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
}

func chunk(filesID any, n int32, data string) bson.D {
	return bson.D{{Key: "_id", Value: bson.NewObjectID()}, {Key: "files_id", Value: filesID}, {Key: "n", Value: n},
		{Key: "data", Value: bson.Binary{Data: []byte(data)}}}
}

func filesDoc(id any, length int64, chunkSize int32, extra ...bson.E) bson.D {
	d := bson.D{{Key: "_id", Value: id}, {Key: "length", Value: length}, {Key: "chunkSize", Value: chunkSize},
		{Key: "uploadDate", Value: bson.NewDateTimeFromTime(time.Now())}, {Key: "filename", Value: "planted"}}
	return append(d, extra...)
}

func TestVerify(t *testing.T) {
	ctx := context.Background()
	b := mustBucket(t, "fs")
	good, err := b.Upload(ctx, "good", bytes.NewReader([]byte("hello, verify!")), buckets.UploadOptions{ChunkSize: 4})
	if err != nil {
		t.Fatal(err)
	}
	sum := md5.Sum([]byte("abcdefg"))
	md5Hex := hex.EncodeToString(sum[:])
	plantFile(t, b, filesDoc("legacy-md5", 7, 4, bson.E{Key: "md5", Value: md5Hex}), chunk("legacy-md5", 0, "abcd"), chunk("legacy-md5", 1, "efg"))
	plantFile(t, b, filesDoc("no-sum", 7, 4), chunk("no-sum", 0, "abcd"), chunk("no-sum", 1, "efg"))
	plantFile(t, b, filesDoc("bad-md5", 7, 4, bson.E{Key: "md5", Value: md5Hex}), chunk("bad-md5", 0, "abcd"), chunk("bad-md5", 1, "efX"))
	plantFile(t, b, filesDoc("missing", 10, 4), chunk("missing", 0, "abcd"), chunk("missing", 2, "ij"))
	plantFile(t, b, filesDoc("short", 10, 4), chunk("short", 0, "abcd"), chunk("short", 1, "efg"), chunk("short", 2, "ij"))
	plantFile(t, b, filesDoc("extra", 4, 4), chunk("extra", 0, "abcd"), chunk("extra", 1, "e"))
	plantFile(t, b, filesDoc("empty", 0, 4))
	plantFile(t, b, filesDoc("gone", 9, 4))

	cases := []struct {
		id       any
		checksum string
		want     []error // the problems, in order; nil: sound
	}{
		{good.ID, "sha256", nil},
		{"legacy-md5", "md5", nil},
		{"no-sum", "", nil},
		{"empty", "", nil},
		{"bad-md5", "md5", []error{buckets.ErrChecksum}},
		{"missing", "", []error{buckets.ErrChunkMissing}},
		{"short", "", []error{buckets.ErrChunkSize}},
		{"extra", "", []error{buckets.ErrExtraChunk}},
		{"gone", "", []error{buckets.ErrChunkMissing}},
	}
	for _, tc := range cases {
		f, err := b.Stat(ctx, tc.id)
		if err != nil {
			t.Fatal(err)
		}
		c, err := b.Verify(ctx, f)
		if err != nil {
			t.Fatalf("%v: %v", tc.id, err)
		}
		if c.Checksum != tc.checksum {
			t.Errorf("%v: checksum %q, want %q", tc.id, c.Checksum, tc.checksum)
		}
		if len(c.Problems) != len(tc.want) || c.OK() != (tc.want == nil) {
			t.Errorf("%v: problems %v, want %v", tc.id, c.Problems, tc.want)
			continue
		}
		for i, w := range tc.want {
			if !errors.Is(c.Problems[i], w) {
				t.Errorf("%v: problem %v is not %v", tc.id, c.Problems[i], w)
			}
		}
	}
}

func TestVerifyCorruptedContent(t *testing.T) {
	ctx := context.Background()
	b := mustBucket(t, "fs")
	f, err := b.Upload(ctx, "f", bytes.NewReader([]byte("0123456789")), buckets.UploadOptions{ChunkSize: 4})
	if err != nil {
		t.Fatal(err)
	}
	// Same size, other bytes: only the checksum can tell.
	_, err = b.ChunksCollection().UpdateOne(ctx, bson.D{{Key: "files_id", Value: f.ID}, {Key: "n", Value: 1}},
		bson.D{{Key: "$set", Value: bson.D{{Key: "data", Value: bson.Binary{Data: []byte("XXXX")}}}}})
	if err != nil {
		t.Fatal(err)
	}
	c, err := b.Verify(ctx, f)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Problems) != 1 || !errors.Is(c.Problems[0], buckets.ErrChecksum) {
		t.Fatalf("problems %v, want one checksum mismatch", c.Problems)
	}
}
