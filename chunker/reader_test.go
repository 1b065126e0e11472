package chunker_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/gridfsd/gridfsd/chunker"
	"github.com/gridfsd/gridfsd/internal/storetest"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/bson"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/mongo"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/mongo/options"
)

func TestMain(m *testing.M) { storetest.Main(m) }

// mustChunks returns an empty chunks collection with the unique
// {files_id, n} index GridFS requires.
func mustChunks(t testing.TB) *mongo.Collection {
	t.Helper()
	coll := storetest.MustOpenDB(t).Collection("fs.chunks")
	_, err := coll.Indexes().CreateOne(context.Background(), mongo.IndexModel{
		Keys:    bson.D{{Key: "files_id", Value: 1}, {Key: "n", Value: 1}},
		Options: options.Index().SetUnique(true),
	})
	if err != nil {
		t.Fatal(err)
	}
	return coll
}

// mustWrite stores data as the chunks of file id and returns the File a
// Reader needs.
func mustWrite(t testing.TB, chunks *mongo.Collection, id any, data []byte, chunkSize int) chunker.File {
	t.Helper()
	w, err := chunker.NewWriter(context.Background(), chunks, id, chunker.WriterOptions{ChunkSize: chunkSize})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return chunker.File{ID: id, Length: int64(len(data)), ChunkSize: chunkSize}
}

func mustReader(t *testing.T, chunks *mongo.Collection, f chunker.File) *chunker.Reader {
	t.Helper()
	r, err := chunker.NewReader(context.Background(), chunks, f)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

func randomBytes(seed uint64, n int) []byte {
	rng := rand.New(rand.NewPCG(seed, seed+1))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(rng.Uint32())
	}
	return b
}

// errKind reduces an error to what io.Reader callers act on.
func errKind(err error) string {
	switch {
	case err == nil:
		return "nil"
	case err == io.EOF:
		return "EOF"
	default:
		return "error"
	}
}

// TestReaderMatchesBytesReader drives a Reader and a bytes.Reader over the
// same content with the same random ReadAt, Seek and Read calls: every
// result must agree.
func TestReaderMatchesBytesReader(t *testing.T) {
	const size = 256<<10 + 77
	for i, cs := range []int{997, 4096, 32 << 10} {
		t.Run(fmt.Sprintf("chunkSize=%d", cs), func(t *testing.T) {
			// A collection per chunk size keeps the store's full scans
			// small; a second file on each side of the one under test
			// makes reads pick the right file's chunks.
			chunks := mustChunks(t)
			mustWrite(t, chunks, "before", randomBytes(100, 3*cs), cs)
			data := randomBytes(uint64(i), size)
			f := mustWrite(t, chunks, fmt.Sprintf("file-%d", cs), data, cs)
			mustWrite(t, chunks, "after", randomBytes(101, 2*cs+1), cs)
			rng := rand.New(rand.NewPCG(42, uint64(cs)))
			r := mustReader(t, chunks, f)
			oracle := bytes.NewReader(data)
			// randLen mixes tiny reads, reads across a few chunks and
			// reads past the end.
			randLen := func() int {
				switch rng.IntN(4) {
				case 0:
					return rng.IntN(16)
				case 1:
					return rng.IntN(cs + 1)
				case 2:
					return rng.IntN(4*cs + 1)
				default:
					return rng.IntN(64 << 10)
				}
			}
			randOff := func() int64 {
				if rng.IntN(8) == 0 {
					return int64(size - rng.IntN(2*cs)) // near or past the end
				}
				return rng.Int64N(size)
			}
			for op := 0; op < 200; op++ {
				switch rng.IntN(3) {
				case 0:
					off, n := randOff(), randLen()
					got, want := make([]byte, n), make([]byte, n)
					gn, gerr := r.ReadAt(got, off)
					wn, werr := oracle.ReadAt(want, off)
					if gn != wn || errKind(gerr) != errKind(werr) || !bytes.Equal(got[:gn], want[:wn]) {
						t.Fatalf("op %d: ReadAt(%d bytes, %d) = %d, %v; want %d, %v", op, n, off, gn, gerr, wn, werr)
					}
				case 1:
					off, whence := randOff(), rng.IntN(3)
					switch whence {
					case io.SeekCurrent:
						off = int64(rng.IntN(2*cs)) - int64(cs)
					case io.SeekEnd:
						off = -int64(rng.IntN(3 * cs))
					}
					gp, gerr := r.Seek(off, whence)
					wp, werr := oracle.Seek(off, whence)
					if errKind(gerr) != errKind(werr) || (gerr == nil && gp != wp) {
						t.Fatalf("op %d: Seek(%d, %d) = %d, %v; want %d, %v", op, off, whence, gp, gerr, wp, werr)
					}
					fallthrough // read where the seek landed
				default:
					// A few sequential reads, so the cursor's read-ahead
					// and growing batches are exercised too.
					for k := rng.IntN(4); k >= 0; k-- {
						n := randLen()
						got, want := make([]byte, n), make([]byte, n)
						gn, gerr := r.Read(got)
						wn, werr := oracle.Read(want)
						if gn != wn || errKind(gerr) != errKind(werr) || !bytes.Equal(got[:gn], want[:wn]) {
							t.Fatalf("op %d: Read(%d bytes) = %d, %v; want %d, %v", op, n, gn, gerr, wn, werr)
						}
					}
				}
			}
			// And the whole file, from wherever the reader was.
			if _, err := r.Seek(0, io.SeekStart); err != nil {
				t.Fatal(err)
			}
			all, err := io.ReadAll(r)
			if err != nil || !bytes.Equal(all, data) {
				t.Fatalf("ReadAll: %d bytes, %v", len(all), err)
			}
		})
	}
}

// TestReaderConcurrentReadAt checks that ReadAt is safe for concurrent use
// (run with -race) while Read streams on the same Reader.
func TestReaderConcurrentReadAt(t *testing.T) {
	chunks := mustChunks(t)
	const cs = 1000
	data := randomBytes(7, 64*cs+5)
	r := mustReader(t, chunks, mustWrite(t, chunks, "f", data, cs))
	var wg sync.WaitGroup
	errs := make(chan error, 5)
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(g), 9))
			for i := 0; i < 25; i++ {
				off := rng.IntN(len(data))
				p := make([]byte, rng.IntN(3*cs))
				n, err := r.ReadAt(p, int64(off))
				if err != nil && err != io.EOF || !bytes.Equal(p[:n], data[off:off+n]) || n != min(len(p), len(data)-off) {
					errs <- fmt.Errorf("ReadAt(%d, %d) = %d, %v", len(p), off, n, err)
					return
				}
			}
		}(g)
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		all, err := io.ReadAll(r)
		if err != nil || !bytes.Equal(all, data) {
			errs <- fmt.Errorf("ReadAll: %d bytes, %v", len(all), err)
		}
	}()
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// TestReaderBadChunks damages the chunks of a 10-byte file in 4-byte
// chunks (4 + 4 + 2) and expects the distinct errors from Read and ReadAt.
func TestReaderBadChunks(t *testing.T) {
	ctx := context.Background()
	data := []byte("0123456789")
	tests := []struct {
		name   string
		damage func(c *mongo.Collection, id string) error
		want   error
	}{
		{"intermediate chunk missing", func(c *mongo.Collection, id string) error {
			return deleteChunk(ctx, c, id, 1)
		}, chunker.ErrChunkMissing},
		{"final chunk missing", func(c *mongo.Collection, id string) error {
			return deleteChunk(ctx, c, id, 2)
		}, chunker.ErrChunkMissing},
		{"first chunk missing", func(c *mongo.Collection, id string) error {
			return deleteChunk(ctx, c, id, 0)
		}, chunker.ErrChunkMissing},
		{"intermediate chunk short", func(c *mongo.Collection, id string) error {
			return setData(ctx, c, id, 1, []byte("456"))
		}, chunker.ErrChunkSize},
		{"intermediate chunk long", func(c *mongo.Collection, id string) error {
			return setData(ctx, c, id, 1, []byte("45678"))
		}, chunker.ErrChunkSize},
		{"final chunk short", func(c *mongo.Collection, id string) error {
			return setData(ctx, c, id, 2, []byte("8"))
		}, chunker.ErrChunkSize},
		{"final chunk long", func(c *mongo.Collection, id string) error {
			return setData(ctx, c, id, 2, []byte("89x"))
		}, chunker.ErrChunkSize},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			chunks := mustChunks(t)
			f := mustWrite(t, chunks, "f", data, 4)
			if err := tt.damage(chunks, "f"); err != nil {
				t.Fatal(err)
			}
			other := chunker.ErrChunkSize
			if tt.want == chunker.ErrChunkSize {
				other = chunker.ErrChunkMissing
			}
			_, err := io.ReadAll(mustReader(t, chunks, f))
			if !errors.Is(err, tt.want) || errors.Is(err, other) {
				t.Errorf("Read: %v, want %v", err, tt.want)
			}
			_, err = mustReader(t, chunks, f).ReadAt(make([]byte, len(data)), 0)
			if !errors.Is(err, tt.want) || errors.Is(err, other) {
				t.Errorf("ReadAt: %v, want %v", err, tt.want)
			}
		})
	}
}

func deleteChunk(ctx context.Context, c *mongo.Collection, id string, n int) error {
	res, err := c.DeleteOne(ctx, bson.D{{Key: "files_id", Value: id}, {Key: "n", Value: n}})
	if err == nil && res.DeletedCount != 1 {
		err = fmt.Errorf("deleted %d chunks", res.DeletedCount)
	}
	return err
}

func setData(ctx context.Context, c *mongo.Collection, id string, n int, data []byte) error {
	res, err := c.UpdateOne(ctx, bson.D{{Key: "files_id", Value: id}, {Key: "n", Value: n}},
		bson.D{{Key: "$set", Value: bson.D{{Key: "data", Value: data}}}})
	if err == nil && res.ModifiedCount != 1 {
		err = fmt.Errorf("modified %d chunks", res.ModifiedCount)
	}
	return err
}

// TestReaderFetchesOnlyWhatItReads checks the cost of reads in chunk
// bytes received from the store: a seek skips chunks without reading them,
// and ReadAt fetches exactly the chunks that hold the range.
func TestReaderFetchesOnlyWhatItReads(t *testing.T) {
	chunks := mustChunks(t)
	const cs, n = 4096, 100
	data := randomBytes(3, cs*n-100)
	f := mustWrite(t, chunks, "f", data, cs)

	t.Run("seek near the end", func(t *testing.T) {
		r := mustReader(t, chunks, f)
		off := f.Length - 1500 // 1 KiB across the last two chunks
		if _, err := r.Seek(off, io.SeekStart); err != nil {
			t.Fatal(err)
		}
		p := make([]byte, 1024)
		if _, err := io.ReadFull(r, p); err != nil || !bytes.Equal(p, data[off:off+1024]) {
			t.Fatalf("read: %v", err)
		}
		r.Close()
		if got := r.Fetched(); got > 2*cs {
			t.Errorf("a 1 KiB read near the end fetched %d bytes, more than 2 chunks (%d)", got, 2*cs)
		}
	})
	t.Run("seek anywhere", func(t *testing.T) {
		// A short Read after a seek fetches its own chunks and nothing
		// ahead: read-ahead waits until the client reads on.
		for _, off := range []int64{0, 10, cs - 512, 37*cs + 100, 50*cs - 500} {
			r := mustReader(t, chunks, f)
			if _, err := r.Seek(off, io.SeekStart); err != nil {
				t.Fatal(err)
			}
			p := make([]byte, 1024)
			if _, err := io.ReadFull(r, p); err != nil || !bytes.Equal(p, data[off:off+1024]) {
				t.Fatalf("read at %d: %v", off, err)
			}
			r.Close()
			first, last := off/cs, (off+1023)/cs
			if got, want := r.Fetched(), (last-first+1)*cs; got != want {
				t.Errorf("a 1 KiB read at %d fetched %d bytes, want %d (chunks %d..%d)", off, got, want, first, last)
			}
		}
	})
	t.Run("ReadAt anywhere", func(t *testing.T) {
		for _, off := range []int64{0, cs - 512, 37*cs + 100, 50*cs - 1000, f.Length - 1024} {
			r := mustReader(t, chunks, f)
			p := make([]byte, 1024)
			if _, err := r.ReadAt(p, off); err != nil || !bytes.Equal(p, data[off:off+1024]) {
				t.Fatalf("ReadAt(1024, %d): %v", off, err)
			}
			// Exactly the chunks that hold the range: one or two.
			first, last := off/cs, (off+1023)/cs
			want := min((last+1)*cs, f.Length) - first*cs
			if got := r.Fetched(); got != want {
				t.Errorf("ReadAt(1024, %d) fetched %d bytes, want %d (chunks %d..%d)", off, got, want, first, last)
			}
		}
	})
	t.Run("sequential read", func(t *testing.T) {
		r := mustReader(t, chunks, f)
		if _, err := io.Copy(io.Discard, r); err != nil {
			t.Fatal(err)
		}
		r.Close()
		if got := r.Fetched(); got != f.Length {
			t.Errorf("a full read fetched %d bytes, want the file's %d", got, f.Length)
		}
	})
}

func TestReaderRejectsBadFiles(t *testing.T) {
	chunks := mustChunks(t)
	for _, f := range []chunker.File{
		{ID: "neg", Length: -1, ChunkSize: 4},
		{ID: "zero-cs", Length: 10, ChunkSize: 0},
		{ID: "neg-cs", Length: 10, ChunkSize: -4},
		{ID: "huge-cs", Length: 10, ChunkSize: chunker.MaxChunkSize + 1},
	} {
		if _, err := chunker.NewReader(context.Background(), chunks, f); err == nil {
			t.Errorf("NewReader(%+v) accepted a bad file", f)
		}
	}
	// An empty file needs no chunk size and no chunks.
	r := mustReader(t, chunks, chunker.File{ID: "empty", Length: 0})
	if n, err := r.Read(make([]byte, 1)); n != 0 || err != io.EOF {
		t.Errorf("Read of an empty file = %d, %v", n, err)
	}
}

// TestReaderNext: Next hands out the file's bytes without copying them,
// at most to the end of a chunk, with Seek and Read in between, and io.EOF
// at the end.
func TestReaderNext(t *testing.T) {
	const chunkSize = 1000
	coll := mustChunks(t)
	data := randomBytes(11, 5*chunkSize+123)
	f := mustWrite(t, coll, "f", data, chunkSize)
	for _, n := range []int{1, 999, 1000, 1001, 7000} {
		r := mustReader(t, coll, f)
		var got []byte
		for {
			b, err := r.Next(n)
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(b) == 0 || len(b) > n || len(b) > chunkSize {
				t.Fatalf("Next(%d): %d bytes", n, len(b))
			}
			got = append(got, b...)
		}
		if !bytes.Equal(got, data) {
			t.Fatalf("Next(%d): bytes differ from those written", n)
		}
	}
	// Asked for the rest of the file at once, it fetches only the chunk
	// it hands out: the read-ahead grows as the client keeps reading.
	r := mustReader(t, coll, f)
	if _, err := r.Next(1 << 30); err != nil || r.Fetched() != chunkSize {
		t.Fatalf("Next(1<<30) of a fresh reader: %v, %d bytes fetched, want one chunk", err, r.Fetched())
	}
	r = mustReader(t, coll, f)
	if _, err := r.Seek(2500, io.SeekStart); err != nil {
		t.Fatal(err)
	}
	b, err := r.Next(800)
	if err != nil || !bytes.Equal(b, data[2500:3000]) {
		t.Fatalf("Next after Seek: %v, %d bytes", err, len(b))
	}
	p := make([]byte, 10)
	if _, err := io.ReadFull(r, p); err != nil || !bytes.Equal(p, data[3000:3010]) {
		t.Fatalf("Read after Next: %v", err)
	}
}
