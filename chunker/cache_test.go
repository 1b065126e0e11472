package chunker_test

import (
	"bytes"
	"context"
	"io"
	"sync"
	"testing"
	"time"

	"github.com/gridfsd/gridfsd/chunker"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/bson"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/mongo"
)

// sharedReader is a Reader of f through c.
func sharedReader(t *testing.T, chunks *mongo.Collection, f chunker.File, c *chunker.Cache) *chunker.Reader {
	t.Helper()
	r := mustReader(t, chunks, f)
	r.ShareCache(c)
	return r
}

// readAll reads r to the end in client-sized buffers.
func readAll(t *testing.T, r *chunker.Reader, buf int) []byte {
	t.Helper()
	var out bytes.Buffer
	p := make([]byte, buf)
	for {
		n, err := r.Read(p)
		out.Write(p[:n])
		if err == io.EOF {
			return out.Bytes()
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

// TestCacheSharesOneFetch: many Readers of one file at once, each from an
// offset of its own, cost the store one copy of the file (single-flight
// loads, read-ahead that fills the cache for those behind), and a Reader
// after them costs nothing. Before the cache each Reader fetched its own
// copy: 16 readers, 16 copies.
func TestCacheSharesOneFetch(t *testing.T) {
	const chunkSize, chunks, readers = 1024, 64, 16
	coll := mustChunks(t)
	data := randomBytes(3, chunkSize*chunks-100)
	f := mustWrite(t, coll, "popular", data, chunkSize)
	c := chunker.NewCache(1 << 20)

	var wg sync.WaitGroup
	fetched := make([]int64, readers)
	got := make([][]byte, readers)
	for i := range readers {
		r := sharedReader(t, coll, f, c)
		off := int64(i * len(data) / readers / 4) // clustered near the start, as an audience is
		if _, err := r.Seek(off, io.SeekStart); err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			b, err := io.ReadAll(r)
			if err != nil {
				t.Error(err)
			}
			got[i] = b
			r.Close()
			fetched[i] = r.Fetched()
		}()
	}
	wg.Wait()
	var total int64
	for i := range readers {
		total += fetched[i]
		off := i * len(data) / readers / 4
		if !bytes.Equal(got[i], data[off:]) {
			t.Fatalf("reader %d: bytes differ from those written", i)
		}
	}
	if total != f.Length {
		t.Errorf("%d readers fetched %d bytes from the store, want the file's %d once", readers, total, f.Length)
	}
	r := sharedReader(t, coll, f, c)
	if b := readAll(t, r, 4000); !bytes.Equal(b, data) {
		t.Fatal("a reader after them: bytes differ")
	}
	if r.Fetched() != 0 {
		t.Errorf("a reader after them fetched %d bytes; want all from the cache", r.Fetched())
	}
	s := c.Stats()
	if s.Misses != chunks || s.Hits == 0 || s.Bytes != f.Length || s.Evictions != 0 {
		t.Errorf("stats %+v: want %d misses, hits, the file's %d bytes held, no eviction", s, chunks, f.Length)
	}
	// ReadAt goes through the cache too.
	p := make([]byte, 3000)
	if _, err := r.ReadAt(p, 5000); err != nil || !bytes.Equal(p, data[5000:8000]) || r.Fetched() != 0 {
		t.Errorf("ReadAt: %v, fetched %d", err, r.Fetched())
	}
}

// TestCacheStaysWithinItsSize: the cache holds no more than its size once
// no Reader holds chunks, counts its evictions, and a size of 0 keeps
// nothing while Readers of the same chunks still share their loads.
func TestCacheStaysWithinItsSize(t *testing.T) {
	const chunkSize = 1024
	coll := mustChunks(t)
	data := randomBytes(4, chunkSize*40)
	f := mustWrite(t, coll, "big", data, chunkSize)
	for _, size := range []int64{0, 10 * chunkSize} {
		c := chunker.NewCache(size)
		r := sharedReader(t, coll, f, c)
		if b := readAll(t, r, 3000); !bytes.Equal(b, data) {
			t.Fatalf("size %d: bytes differ", size)
		}
		r.Close()
		s := c.Stats()
		if s.Bytes > size || s.Bytes < size || s.Evictions != 40-size/chunkSize {
			t.Errorf("size %d: %+v after one read of 40 chunks; want it full, %d evictions", size, s, 40-size/chunkSize)
		}
	}
}

// TestCacheEvictsWhatNoReaderNeeds: past its size the cache drops chunks
// that no Reader is about to read before those just ahead of a Reader,
// however recently used. Plain LRU would evict the chunks ahead of the
// paused reader here: they were loaded first.
func TestCacheEvictsWhatNoReaderNeeds(t *testing.T) {
	const chunkSize = 1024
	coll := mustChunks(t)
	ahead := mustWrite(t, coll, "ahead", randomBytes(5, chunkSize*8), chunkSize)
	done := mustWrite(t, coll, "done", randomBytes(6, chunkSize*8), chunkSize)
	other := mustWrite(t, coll, "other", randomBytes(7, chunkSize*8), chunkSize)
	c := chunker.NewCache(16 * chunkSize)

	// A viewer has read the first chunk of "ahead" and pauses; another
	// read all of it before (loading it into the cache).
	lead := sharedReader(t, coll, ahead, c)
	readAll(t, lead, 1000)
	lead.Close()
	paused := sharedReader(t, coll, ahead, c)
	if _, err := io.ReadFull(paused, make([]byte, 100)); err != nil {
		t.Fatal(err)
	}
	// Then two files are read once by readers who go away.
	for _, f := range []chunker.File{done, other} {
		r := sharedReader(t, coll, f, c)
		readAll(t, r, 1000)
		r.Close()
	}
	// The paused viewer finds the rest in the cache.
	rest := readAll(t, paused, 1000)
	if len(rest) != 8*chunkSize-100 {
		t.Fatalf("read %d bytes", len(rest))
	}
	if paused.Fetched() != 0 {
		t.Errorf("the paused reader fetched %d bytes: the chunks just ahead of it were evicted", paused.Fetched())
	}
}

// TestCacheInvalidate: once Invalidate returns, a file's chunks come from
// the store, even under the same _id and version (content another tool
// rewrote), while a Reader holding a chunk keeps its bytes.
func TestCacheInvalidate(t *testing.T) {
	const chunkSize = 1024
	ctx := context.Background()
	coll := mustChunks(t)
	old := randomBytes(8, chunkSize*4)
	f := mustWrite(t, coll, "id", old, chunkSize)
	c := chunker.NewCache(1 << 20)
	readAll(t, sharedReader(t, coll, f, c), 1000)

	holder := sharedReader(t, coll, f, c)
	head := make([]byte, 10)
	if _, err := io.ReadFull(holder, head); err != nil {
		t.Fatal(err)
	}
	if _, err := coll.DeleteMany(ctx, bson.D{{Key: "files_id", Value: "id"}}); err != nil {
		t.Fatal(err)
	}
	renewed := randomBytes(9, chunkSize*4)
	mustWrite(t, coll, "id", renewed, chunkSize)
	c.Invalidate(coll, "id")

	r := sharedReader(t, coll, f, c)
	if b := readAll(t, r, 1000); !bytes.Equal(b, renewed) {
		t.Fatal("after Invalidate: the old chunks were served")
	}
	// The holder keeps the chunk it had; the next ones come from the store.
	rest := make([]byte, chunkSize-10)
	if _, err := io.ReadFull(holder, rest); err != nil || !bytes.Equal(append(head, rest...), old[:chunkSize]) {
		t.Errorf("the chunk a reader held changed: %v", err)
	}
	// Numbers of any type are one files_id: 7 invalidates 7.0 and int32 7.
	f7 := mustWrite(t, coll, int32(7), old[:chunkSize], chunkSize)
	readAll(t, sharedReader(t, coll, f7, c), 1000)
	before := c.Stats().Bytes
	c.Invalidate(coll, 7.0)
	if got := c.Stats().Bytes; got != before-chunkSize {
		t.Errorf("Invalidate(7.0) left %d bytes of %d; want int32 7's chunk gone", got, before)
	}
}

// TestCacheAbandonedLoad: a Reader whose client goes away while it
// fetches chunks others wait for does not fail them: they fetch the chunks
// themselves.
func TestCacheAbandonedLoad(t *testing.T) {
	const chunkSize = 1024
	coll := mustChunks(t)
	data := randomBytes(10, chunkSize*32)
	f := mustWrite(t, coll, "f", data, chunkSize)
	for round := range 20 {
		c := chunker.NewCache(1 << 20)
		ctx, cancel := context.WithCancel(context.Background())
		quitter, err := chunker.NewReader(ctx, coll, f)
		if err != nil {
			t.Fatal(err)
		}
		quitter.ShareCache(c)
		var wg sync.WaitGroup
		wg.Add(2)
		go func() {
			defer wg.Done()
			io.Copy(io.Discard, quitter)
		}()
		var got []byte
		var rerr error
		r := sharedReader(t, coll, f, c)
		go func() {
			defer wg.Done()
			got, rerr = io.ReadAll(r)
		}()
		cancel()
		wg.Wait()
		quitter.Close()
		if rerr != nil || !bytes.Equal(got, data) {
			t.Fatalf("round %d: the reader beside one that went away: %v (%d bytes)", round, rerr, len(got))
		}
	}
}

// TestCacheManyAbandonedLoads: readers that go away one after another
// while their fetches are queued (one query at a time) never fail the
// reader beside them, however many of its chunks they were fetching.
func TestCacheManyAbandonedLoads(t *testing.T) {
	const chunkSize = 1024
	coll := mustChunks(t)
	data := randomBytes(12, chunkSize*64)
	f := mustWrite(t, coll, "f", data, chunkSize)
	for round := range 30 {
		c := chunker.NewCache(1 << 20)
		budget := chunker.NewReadBudget(1, 8*chunkSize)
		var wg sync.WaitGroup
		for q := range 40 {
			ctx, cancel := context.WithCancel(context.Background())
			quitter, err := chunker.NewReader(ctx, coll, f)
			if err != nil {
				t.Fatal(err)
			}
			quitter.ShareReadahead(budget)
			quitter.ShareCache(c)
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer quitter.Close()
				go func() {
					time.Sleep(time.Duration(q*100+round*37%200) * time.Microsecond)
					cancel()
				}()
				io.Copy(io.Discard, quitter)
			}()
		}
		r := sharedReader(t, coll, f, c)
		r.ShareReadahead(budget)
		got, err := io.ReadAll(r)
		wg.Wait()
		if err != nil || !bytes.Equal(got, data) {
			t.Fatalf("round %d: the reader beside readers that went away: %v (%d bytes)", round, err, len(got))
		}
	}
}
