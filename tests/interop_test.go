package tests

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/gridfsd/gridfsd/buckets"
	"github.com/gridfsd/gridfsd/chunker"
	"github.com/gridfsd/gridfsd/internal/storetest"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/bson"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/mongo"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/mongo/options"
)

// Interoperability with the official Go driver's GridFS: files gridfsd
// writes, the driver reads byte for byte, and the reverse; and both write
// the same chunks.

// interopCase is one file of the interop tests.
type interopCase struct {
	size      int
	chunkSize int
	metadata  bson.D
}

func interopCases() []interopCase {
	const cs = 1000 // small, and not a power of two
	md := bson.D{{Key: "owner", Value: "alice"}, {Key: "tags", Value: bson.A{"a", "b"}}}
	return []interopCase{
		{size: 0, chunkSize: cs},
		{size: 0, chunkSize: cs, metadata: md},
		{size: 1, chunkSize: cs},
		{size: cs - 1, chunkSize: cs, metadata: md},
		{size: cs, chunkSize: cs},
		{size: cs + 1, chunkSize: cs},
		{size: 7*cs + 123, chunkSize: cs, metadata: md},
		{size: 1, chunkSize: 1},
		{size: 17, chunkSize: 1},
		// Several MiB in default chunks: 12 full chunks and a partial one.
		{size: 3<<20 + 5, chunkSize: chunker.DefaultChunkSize},
	}
}

func (c interopCase) name() string {
	return fmt.Sprintf("size=%d,chunkSize=%d,metadata=%v", c.size, c.chunkSize, c.metadata != nil)
}

func randomBytes(seed uint64, n int) []byte {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

type interopEnv struct {
	ctx    context.Context
	db     *mongo.Database
	ours   *buckets.Bucket
	driver *mongo.GridFSBucket
}

func newInteropEnv(t *testing.T) *interopEnv {
	t.Helper()
	ctx := context.Background()
	db := storetest.MustOpenDB(t)
	b, err := buckets.NewDB(db).Bucket(ctx, "interop")
	if err != nil {
		t.Fatal(err)
	}
	return &interopEnv{ctx: ctx, db: db, ours: b, driver: db.GridFSBucket(options.GridFSBucket().SetName("interop"))}
}

func TestInteropGridfsdWritesDriverReads(t *testing.T) {
	env := newInteropEnv(t)
	for i, c := range interopCases() {
		t.Run(c.name(), func(t *testing.T) {
			data := randomBytes(uint64(i), c.size)
			name := fmt.Sprintf("ours/%d", i)
			before := time.Now().Add(-time.Second)
			f, err := env.ours.Upload(env.ctx, name, bytes.NewReader(data), buckets.UploadOptions{ChunkSize: c.chunkSize, Metadata: c.metadata})
			if err != nil {
				t.Fatal(err)
			}
			checkFilesDoc(t, env, f.ID, name, c, data, before)
			checkChunks(t, env, f.ID, c, data)

			ds, err := env.driver.OpenDownloadStream(env.ctx, f.ID)
			if err != nil {
				t.Fatalf("driver open: %v", err)
			}
			got, err := io.ReadAll(ds)
			ds.Close()
			if err != nil {
				t.Fatalf("driver read: %v", err)
			}
			if !bytes.Equal(got, data) {
				t.Fatalf("driver read %d bytes, not the %d written", len(got), len(data))
			}
			df := ds.GetFile()
			if df.Length != int64(c.size) || df.ChunkSize != int32(c.chunkSize) || df.Name != name {
				t.Errorf("driver sees length %d, chunkSize %d, name %q", df.Length, df.ChunkSize, df.Name)
			}
			if c.metadata != nil && !bytes.Equal(df.Metadata, mustMarshal(t, c.metadata)) {
				t.Errorf("driver sees metadata %s", df.Metadata)
			}

			var buf bytes.Buffer
			if _, err := env.driver.DownloadToStreamByName(env.ctx, name, &buf); err != nil || !bytes.Equal(buf.Bytes(), data) {
				t.Errorf("driver download by name: %d bytes, %v", buf.Len(), err)
			}
		})
	}
}

func TestInteropDriverWritesGridfsdReads(t *testing.T) {
	env := newInteropEnv(t)
	for i, c := range interopCases() {
		t.Run(c.name(), func(t *testing.T) {
			data := randomBytes(uint64(100+i), c.size)
			name := fmt.Sprintf("driver/%d", i)
			opts := options.GridFSUpload().SetChunkSizeBytes(int32(c.chunkSize))
			if c.metadata != nil {
				opts.SetMetadata(c.metadata)
			}
			id, err := env.driver.UploadFromStream(env.ctx, name, bytes.NewReader(data), opts)
			if err != nil {
				t.Fatalf("driver upload: %v", err)
			}
			checkChunks(t, env, id, c, data)

			d, err := env.ours.OpenID(env.ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			got, err := io.ReadAll(d)
			d.Close()
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, data) {
				t.Fatalf("read %d bytes, not the %d the driver wrote", len(got), len(data))
			}
			f := d.File
			if f.Length != int64(c.size) || f.ChunkSize != c.chunkSize || f.Filename != name || f.UploadDate.IsZero() {
				t.Errorf("files document read as %+v", f)
			}
			if c.metadata != nil && !bytes.Equal(f.Metadata, mustMarshal(t, c.metadata)) {
				t.Errorf("metadata read as %s", f.Metadata)
			}

			// By name, and a range from the middle through ReadAt.
			d, err = env.ours.OpenName(env.ctx, name, -1)
			if err != nil {
				t.Fatal(err)
			}
			defer d.Close()
			if c.size > 2 {
				lo, hi := c.size/3, c.size-c.size/3
				p := make([]byte, hi-lo)
				if n, err := d.ReadAt(p, int64(lo)); n != len(p) || (err != nil && err != io.EOF) || !bytes.Equal(p, data[lo:hi]) {
					t.Errorf("ReadAt(%d..%d) = %d, %v", lo, hi, n, err)
				}
			}
		})
	}
}

// TestInteropSameChunks uploads the same bytes through both and compares
// what lands in the store: the chunks, and the files documents' fields.
func TestInteropSameChunks(t *testing.T) {
	env := newInteropEnv(t)
	for i, c := range interopCases() {
		if c.size > 1<<20 {
			continue // the layout does not change with size; keep the store small
		}
		t.Run(c.name(), func(t *testing.T) {
			data := randomBytes(uint64(200+i), c.size)
			f, err := env.ours.Upload(env.ctx, "same", bytes.NewReader(data), buckets.UploadOptions{ChunkSize: c.chunkSize, Metadata: c.metadata})
			if err != nil {
				t.Fatal(err)
			}
			opts := options.GridFSUpload().SetChunkSizeBytes(int32(c.chunkSize))
			if c.metadata != nil {
				opts.SetMetadata(c.metadata)
			}
			id, err := env.driver.UploadFromStream(env.ctx, "same", bytes.NewReader(data), opts)
			if err != nil {
				t.Fatal(err)
			}
			ours, theirs := chunkDocs(t, env, f.ID), chunkDocs(t, env, id)
			if len(ours) != len(theirs) {
				t.Fatalf("%d chunks, the driver wrote %d", len(ours), len(theirs))
			}
			for k := range ours {
				if !ours[k].Lookup("n").Equal(theirs[k].Lookup("n")) || !ours[k].Lookup("data").Equal(theirs[k].Lookup("data")) {
					t.Fatalf("chunk %d differs from the driver's", k)
				}
			}
			ourDoc, driverDoc := filesDoc(t, env, f.ID), filesDoc(t, env, id)
			ourKeys, driverKeys := keysOf(t, ourDoc), keysOf(t, driverDoc)
			if want := append(slices.Clone(driverKeys), "sha256"); !sameSet(ourKeys, want) {
				t.Errorf("files document fields %v, the driver's %v (+ sha256)", ourKeys, driverKeys)
			}
			for _, k := range []string{"length", "chunkSize", "filename", "metadata"} {
				ov, dv := ourDoc.Lookup(k), driverDoc.Lookup(k)
				if ov.Type != dv.Type || !bytes.Equal(ov.Value, dv.Value) {
					t.Errorf("%s = %s %s, the driver wrote %s %s", k, ov.Type, ov, dv.Type, dv)
				}
			}
		})
	}
}

// checkFilesDoc checks the files document of a file gridfsd wrote.
func checkFilesDoc(t *testing.T, env *interopEnv, id any, name string, c interopCase, data []byte, before time.Time) {
	t.Helper()
	doc := filesDoc(t, env, id)
	if v := doc.Lookup("length"); v.Type != bson.TypeInt64 || v.Int64() != int64(c.size) {
		t.Errorf("length = %s %s, want int64 %d", v.Type, v, c.size)
	}
	if v := doc.Lookup("chunkSize"); v.Type != bson.TypeInt32 || v.Int32() != int32(c.chunkSize) {
		t.Errorf("chunkSize = %s %s, want int32 %d", v.Type, v, c.chunkSize)
	}
	if v := doc.Lookup("uploadDate"); v.Type != bson.TypeDateTime {
		t.Errorf("uploadDate = %s %s, want a date", v.Type, v)
	} else if d := v.Time(); d.Before(before) || d.After(time.Now().Add(time.Second)) {
		t.Errorf("uploadDate %v is not the time of the upload", d)
	}
	if v := doc.Lookup("filename"); v.Type != bson.TypeString || v.StringValue() != name {
		t.Errorf("filename = %s, want %q", v, name)
	}
	md, err := doc.LookupErr("metadata")
	switch {
	case c.metadata == nil && err == nil:
		t.Errorf("metadata %s present, but none was given", md)
	case c.metadata != nil && (md.Type != bson.TypeEmbeddedDocument || !bytes.Equal(md.Document(), mustMarshal(t, c.metadata))):
		t.Errorf("metadata = %s, want %v", md, c.metadata)
	}
	if _, err := doc.LookupErr("md5"); err == nil {
		t.Errorf("files document has the deprecated md5: %s", doc)
	}
	sum := sha256.Sum256(data)
	if v := doc.Lookup("sha256"); v.Type != bson.TypeString || v.StringValue() != hex.EncodeToString(sum[:]) {
		t.Errorf("sha256 = %s, want %x", v, sum)
	}
	if keys := keysOf(t, doc); len(keys) != 6+btoi(c.metadata != nil) {
		t.Errorf("files document has fields %v", keys)
	}
}

// checkChunks checks the chunk documents of a file against the layout
// GridFS requires: n int32 from 0, BinData subtype 0, every chunk exactly
// chunkSize bytes but the last, none for an empty file.
func checkChunks(t *testing.T, env *interopEnv, id any, c interopCase, data []byte) {
	t.Helper()
	docs := chunkDocs(t, env, id)
	want := (c.size + c.chunkSize - 1) / c.chunkSize
	if len(docs) != want {
		t.Fatalf("%d chunks, want %d", len(docs), want)
	}
	for k, doc := range docs {
		if keys := keysOf(t, doc); !sameSet(keys, []string{"_id", "files_id", "n", "data"}) {
			t.Errorf("chunk %d has fields %v", k, keys)
		}
		if v := doc.Lookup("n"); v.Type != bson.TypeInt32 || v.Int32() != int32(k) {
			t.Errorf("chunk %d: n = %s %s, want int32 %d", k, v.Type, v, k)
		}
		sub, got, ok := doc.Lookup("data").BinaryOK()
		if !ok || sub != 0 {
			t.Errorf("chunk %d: data is %s subtype %d, want BinData subtype 0", k, doc.Lookup("data").Type, sub)
			continue
		}
		lo, hi := k*c.chunkSize, min((k+1)*c.chunkSize, c.size)
		if !bytes.Equal(got, data[lo:hi]) {
			t.Errorf("chunk %d holds %d bytes, want bytes %d..%d of the file", k, len(got), lo, hi)
		}
	}
}

func filesDoc(t *testing.T, env *interopEnv, id any) bson.Raw {
	t.Helper()
	doc, err := env.db.Collection("interop.files").FindOne(env.ctx, bson.D{{Key: "_id", Value: id}}).Raw()
	if err != nil {
		t.Fatalf("files document %v: %v", id, err)
	}
	return doc
}

func chunkDocs(t *testing.T, env *interopEnv, id any) []bson.Raw {
	t.Helper()
	cur, err := env.db.Collection("interop.chunks").Find(env.ctx, bson.D{{Key: "files_id", Value: id}},
		options.Find().SetSort(bson.D{{Key: "n", Value: 1}}))
	if err != nil {
		t.Fatal(err)
	}
	var docs []bson.Raw
	if err := cur.All(env.ctx, &docs); err != nil {
		t.Fatal(err)
	}
	return docs
}

func keysOf(t *testing.T, doc bson.Raw) []string {
	t.Helper()
	elems, err := doc.Elements()
	if err != nil {
		t.Fatal(err)
	}
	keys := make([]string, len(elems))
	for i, e := range elems {
		keys[i] = e.Key()
	}
	return keys
}

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

func mustMarshal(t *testing.T, v any) bson.Raw {
	t.Helper()
	b, err := bson.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestInteropIndexes checks the indexes gridfsd creates before its first
// write, and that the driver, writing next, finds them rather than adding
// its own.
func TestInteropIndexes(t *testing.T) {
	env := newInteropEnv(t)
	if _, err := env.ours.Upload(env.ctx, "a", bytes.NewReader([]byte("a")), buckets.UploadOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := env.driver.UploadFromStream(env.ctx, "b", bytes.NewReader([]byte("b"))); err != nil {
		t.Fatal(err)
	}
	for _, want := range []struct {
		coll   string
		keys   bson.D
		unique bool
	}{
		{"interop.files", bson.D{{Key: "filename", Value: int32(1)}, {Key: "uploadDate", Value: int32(1)}}, false},
		{"interop.chunks", bson.D{{Key: "files_id", Value: int32(1)}, {Key: "n", Value: int32(1)}}, true},
	} {
		cur, err := env.db.Collection(want.coll).Indexes().List(env.ctx)
		if err != nil {
			t.Fatal(err)
		}
		var specs []bson.Raw
		if err := cur.All(env.ctx, &specs); err != nil {
			t.Fatal(err)
		}
		found := 0
		for _, s := range specs {
			key := s.Lookup("key").Document()
			if !sameIndexKeys(key, want.keys) {
				continue
			}
			found++
			if unique, _ := s.Lookup("unique").BooleanOK(); unique != want.unique {
				t.Errorf("%s index %s: unique %v, want %v", want.coll, key, unique, want.unique)
			}
		}
		if found != 1 {
			t.Errorf("%s has %d indexes on %v, want 1: %v", want.coll, found, want.keys, specs)
		}
	}
}

// sameIndexKeys compares index keys in order, numbers by value (an index
// on {n: 1.0} is the index on {n: 1}).
func sameIndexKeys(key bson.Raw, want bson.D) bool {
	elems, err := key.Elements()
	if err != nil || len(elems) != len(want) {
		return false
	}
	for i, e := range elems {
		if e.Key() != want[i].Key || !numbersEqual(e.Value(), value(want[i].Value)) {
			return false
		}
	}
	return true
}
