package chunker_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"

	"github.com/gridfsd/gridfsd/chunker"
	"github.com/gridfsd/gridfsd/internal/storetest"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/bson"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/event"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/mongo"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/mongo/options"
)

func countChunks(t *testing.T, chunks *mongo.Collection, id any) int64 {
	t.Helper()
	n, err := chunks.CountDocuments(context.Background(), bson.D{{Key: "files_id", Value: id}})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// small makes a writer insert a batch every 3 chunks of 100 bytes, so that
// a few hundred bytes already mean several inserts.
var small = chunker.WriterOptions{ChunkSize: 100, BatchBytes: 300}

func TestWriterLengthAndSum(t *testing.T) {
	chunks := mustChunks(t)
	data := randomBytes(1, 1234)
	w, err := chunker.NewWriter(context.Background(), chunks, "f", small)
	if err != nil {
		t.Fatal(err)
	}
	// Mixed Write and ReadFrom calls make one file.
	if _, err := w.Write(data[:10]); err != nil {
		t.Fatal(err)
	}
	if _, err := w.ReadFrom(bytes.NewReader(data[10:700])); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(data[700:]); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if sum := sha256.Sum256(data); w.Length() != int64(len(data)) || !bytes.Equal(w.Sum(), sum[:]) {
		t.Errorf("Length %d, Sum %x; want %d, %x", w.Length(), w.Sum(), len(data), sum)
	}
	if n := countChunks(t, chunks, "f"); n != 13 {
		t.Errorf("%d chunks, want 13", n)
	}
	got, err := io.ReadAll(mustReader(t, chunks, chunker.File{ID: "f", Length: int64(len(data)), ChunkSize: 100}))
	if err != nil || !bytes.Equal(got, data) {
		t.Errorf("read back %d bytes, %v", len(got), err)
	}
	if _, err := w.Write([]byte("x")); !errors.Is(err, chunker.ErrClosed) {
		t.Errorf("Write after Close: %v", err)
	}
	if err := w.Close(); !errors.Is(err, chunker.ErrClosed) {
		t.Errorf("second Close: %v", err)
	}
}

func TestWriterAbortRemovesChunks(t *testing.T) {
	chunks := mustChunks(t)
	mustWrite(t, chunks, "other", randomBytes(2, 250), 100)
	w, err := chunker.NewWriter(context.Background(), chunks, "f", small)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(randomBytes(3, 1050)); err != nil {
		t.Fatal(err)
	}
	if n := countChunks(t, chunks, "f"); n == 0 {
		t.Fatal("no chunk written before Abort; the test would prove nothing")
	}
	if err := w.Abort(); err != nil {
		t.Fatal(err)
	}
	if n := countChunks(t, chunks, "f"); n != 0 {
		t.Errorf("%d chunks left after Abort", n)
	}
	if n := countChunks(t, chunks, "other"); n != 3 {
		t.Errorf("Abort touched another file: %d of its 3 chunks left", n)
	}
	if _, err := w.Write([]byte("x")); err == nil {
		t.Error("Write after Abort succeeded")
	}
	if err := w.Close(); err == nil {
		t.Error("Close after Abort succeeded")
	}
}

// TestWriterFailureSparesChunksOfTheSameID: a second writer under a
// files_id that is taken fails on the unique {files_id, n} index; its cleanup
// must remove only its own chunks, never those of the file that has the id.
func TestWriterFailureSparesChunksOfTheSameID(t *testing.T) {
	chunks := mustChunks(t)
	data := randomBytes(6, 250)
	f := mustWrite(t, chunks, "taken", data, 100)
	w, err := chunker.NewWriter(context.Background(), chunks, "taken", chunker.WriterOptions{ChunkSize: 100})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(randomBytes(7, 250)); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err == nil {
		t.Fatal("Close of chunks under a taken files_id succeeded")
	}
	if err := w.Abort(); err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(mustReader(t, chunks, f))
	if err != nil || !bytes.Equal(got, data) {
		t.Errorf("the first file after the second writer failed: %d bytes, %v", len(got), err)
	}
}

// cancelAfter is a source that cancels the upload's context once it has
// handed out limit bytes, and keeps producing.
type cancelAfter struct {
	r      io.Reader
	limit  int
	cancel context.CancelFunc
}

func (c *cancelAfter) Read(p []byte) (int, error) {
	if c.limit <= 0 {
		c.cancel()
	}
	p = p[:min(len(p), 50)]
	n, err := c.r.Read(p)
	c.limit -= n
	return n, err
}

func TestWriterCancelLeavesNoChunk(t *testing.T) {
	t.Run("Write", func(t *testing.T) {
		chunks := mustChunks(t)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		w, err := chunker.NewWriter(ctx, chunks, "f", small)
		if err != nil {
			t.Fatal(err)
		}
		data := randomBytes(4, 2000)
		for i := 0; i < 10; i++ {
			if _, err := w.Write(data[i*50 : (i+1)*50]); err != nil {
				t.Fatal(err)
			}
		}
		cancel()
		if _, err := w.Write(data[500:]); !errors.Is(err, context.Canceled) {
			t.Errorf("Write after cancel: %v, want context.Canceled", err)
		}
		if err := w.Close(); err == nil {
			t.Error("Close after cancel succeeded")
		}
		if n := countChunks(t, chunks, "f"); n != 0 {
			t.Errorf("%d chunks left after cancel", n)
		}
	})
	t.Run("ReadFrom", func(t *testing.T) {
		chunks := mustChunks(t)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		w, err := chunker.NewWriter(ctx, chunks, "f", small)
		if err != nil {
			t.Fatal(err)
		}
		src := &cancelAfter{r: bytes.NewReader(randomBytes(5, 5000)), limit: 1400, cancel: cancel}
		if _, err := w.ReadFrom(src); !errors.Is(err, context.Canceled) {
			t.Errorf("ReadFrom: %v, want context.Canceled", err)
		}
		if n := countChunks(t, chunks, "f"); n != 0 {
			t.Errorf("%d chunks left after cancel", n)
		}
	})
}

func TestWriterRejectsBadChunkSizes(t *testing.T) {
	chunks := mustChunks(t)
	for _, cs := range []int{-1, -261120, chunker.MaxChunkSize + 1, 1 << 30} {
		if _, err := chunker.NewWriter(context.Background(), chunks, "f", chunker.WriterOptions{ChunkSize: cs}); !errors.Is(err, chunker.ErrInvalidChunkSize) {
			t.Errorf("chunk size %d: %v, want ErrInvalidChunkSize", cs, err)
		}
	}
	for _, cs := range []int64{0, -1, chunker.MaxChunkSize + 1} {
		if err := chunker.CheckChunkSize(cs); !errors.Is(err, chunker.ErrInvalidChunkSize) {
			t.Errorf("CheckChunkSize(%d) = %v", cs, err)
		}
	}
	for _, cs := range []int64{1, chunker.DefaultChunkSize, chunker.MaxChunkSize} {
		if err := chunker.CheckChunkSize(cs); err != nil {
			t.Errorf("CheckChunkSize(%d) = %v", cs, err)
		}
	}
	w, err := chunker.NewWriter(context.Background(), chunks, "g", chunker.WriterOptions{})
	if err != nil || w.ChunkSize() != chunker.DefaultChunkSize {
		t.Errorf("zero options: chunk size %v, %v; want the default", w, err)
	}
	if n := countChunks(t, chunks, "f"); n != 0 {
		t.Errorf("rejected writers wrote %d chunks", n)
	}
}

// TestMaxChunkSizeFits checks that a chunk of the largest allowed size,
// under a sizeable files_id, stays inside MongoDB's 16 MiB document limit.
// (Marshalled rather than stored: 16 MiB through the embedded store costs
// seconds and proves nothing more.)
func TestMaxChunkSizeFits(t *testing.T) {
	doc := bson.D{
		{Key: "_id", Value: bson.NewObjectID()},
		{Key: "files_id", Value: strings.Repeat("i", 1024)},
		{Key: "n", Value: int32(1 << 30)},
		{Key: "data", Value: make([]byte, chunker.MaxChunkSize)},
	}
	raw, err := bson.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	if len(raw) > 16<<20 {
		t.Errorf("a chunk of MaxChunkSize is a %d-byte document, more than 16 MiB", len(raw))
	}
}

// TestWriterStoredAndCloseWhole: Stored reports each stored batch of
// whole chunks with the hash state at its end; the chunks it took over
// survive an abort; CloseWhole stores the whole chunks and hands back the
// rest.
func TestWriterStoredAndCloseWhole(t *testing.T) {
	chunks := mustChunks(t)
	data := randomBytes(4, 1050)
	var lengths []int64
	opts := small
	opts.Stored = func(length int64, state []byte) error {
		h := sha256.New()
		if err := h.(encoding.BinaryUnmarshaler).UnmarshalBinary(state); err != nil {
			return err
		}
		if want := sha256.Sum256(data[:length]); !bytes.Equal(h.Sum(nil), want[:]) {
			t.Errorf("hash state at %d is not the content's", length)
		}
		lengths = append(lengths, length)
		if length > 300 {
			return errors.New("the caller refuses")
		}
		return nil
	}
	w, err := chunker.NewWriter(context.Background(), chunks, "f", opts)
	if err != nil {
		t.Fatal(err)
	}
	// Batches end at 300 (taken over) and 600 (refused: the writer fails).
	_, err = w.Write(data)
	if err == nil {
		err = w.Close()
	}
	if err == nil || !strings.Contains(err.Error(), "the caller refuses") {
		t.Fatalf("write: %v", err)
	}
	if fmt.Sprint(lengths) != "[300 600]" {
		t.Errorf("Stored with %v", lengths)
	}
	if n := countChunks(t, chunks, "f"); n != 3 {
		t.Errorf("%d chunks after the failure, want the 3 Stored took over", n)
	}

	opts = small
	opts.Stored = nil
	w, err = chunker.NewWriter(context.Background(), chunks, "g", opts)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(data); err != nil {
		t.Fatal(err)
	}
	tail, err := w.CloseWhole()
	if err != nil || !bytes.Equal(tail, data[1000:]) {
		t.Fatalf("CloseWhole: %v, tail of %d bytes", err, len(tail))
	}
	if n := countChunks(t, chunks, "g"); n != 10 {
		t.Errorf("%d chunks, want 10 whole ones", n)
	}
	if sum := sha256.Sum256(data); w.Length() != int64(len(data)) || !bytes.Equal(w.Sum(), sum[:]) {
		t.Errorf("Length %d, Sum %x: the tail counts", w.Length(), w.Sum())
	}
}

// TestWriterReady: the first insert waits for Ready, called once; its
// error fails the writer with nothing inserted.
func TestWriterReady(t *testing.T) {
	chunks := mustChunks(t)
	calls := 0
	opts := small
	opts.Ready = func() error {
		calls++
		if n := countChunks(t, chunks, "r"); n != 0 {
			t.Errorf("%d chunks inserted before Ready", n)
		}
		return nil
	}
	w, err := chunker.NewWriter(context.Background(), chunks, "r", opts)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(randomBytes(5, 1050)); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil || calls != 1 || countChunks(t, chunks, "r") != 11 {
		t.Fatalf("Close: %v, Ready called %d times, %d chunks", err, calls, countChunks(t, chunks, "r"))
	}
	opts.Ready = func() error { return errors.New("not ready") }
	w, err = chunker.NewWriter(context.Background(), chunks, "s", opts)
	if err != nil {
		t.Fatal(err)
	}
	_, err = w.Write(randomBytes(6, 1050))
	if err == nil {
		err = w.Close()
	}
	if err == nil || err.Error() != "not ready" || countChunks(t, chunks, "s") != 0 {
		t.Fatalf("Ready failing: %v, %d chunks", err, countChunks(t, chunks, "s"))
	}
}

// TestWriterCloseWholeWith: commit sees the end, the tail and where the
// stored chunks end with the hash's state there (the last batch on its
// way), or everything stored when the last batch starts before from; a
// last insert that fails keeps the chunks before it and removes its own.
func TestWriterCloseWholeWith(t *testing.T) {
	ctx := context.Background()
	data := randomBytes(7, 750) // batches of 3 chunks of 100: 0-2, 3-5, then 6 and a tail of 50
	state := func(n int) []byte {
		h := sha256.New()
		h.Write(data[:n])
		s, _ := h.(encoding.BinaryMarshaler).MarshalBinary()
		return s
	}
	for _, tc := range []struct {
		from       int64
		stored     int64
		storedHash []byte
	}{
		{from: 0, stored: 600, storedHash: state(600)},
		{from: 601, stored: 700, storedHash: nil},
	} {
		chunks := mustChunks(t)
		w, err := chunker.NewWriter(ctx, chunks, "f", small)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(data); err != nil {
			t.Fatal(err)
		}
		var end chunker.End
		commitErr, err := w.CloseWholeWith(tc.from, func(e chunker.End) error {
			end = e
			return errors.New("commit failed")
		})
		if err != nil || commitErr == nil || !bytes.Equal(end.Tail, data[700:]) {
			t.Fatalf("from %d: tail of %d bytes, commit %v, %v", tc.from, len(end.Tail), commitErr, err)
		}
		if end.Length != 750 || !bytes.Equal(end.Hash, state(750)) || !bytes.Equal(end.Tail, data[700:]) ||
			end.Stored != tc.stored || !bytes.Equal(end.StoredHash, tc.storedHash) || end.Last != 6 {
			t.Errorf("from %d: end %d, stored %d (hash %v), last %d", tc.from, end.Length, end.Stored, end.StoredHash != nil, end.Last)
		}
		// A failed commit leaves the chunks: it may have landed.
		if n := countChunks(t, chunks, "f"); n != 7 {
			t.Errorf("from %d: %d chunks after a failed commit, want 7", tc.from, n)
		}
	}

	// Chunk 6 taken by another writer: the last insert fails.
	chunks := mustChunks(t)
	if _, err := chunks.InsertOne(ctx, bson.D{{Key: "files_id", Value: "f"}, {Key: "n", Value: int32(6)}, {Key: "data", Value: []byte("x")}}); err != nil {
		t.Fatal(err)
	}
	w, err := chunker.NewWriter(ctx, chunks, "f", small)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(data); err != nil {
		t.Fatal(err)
	}
	committed := false
	commitErr, err := w.CloseWholeWith(0, func(chunker.End) error { committed = true; return nil })
	if err == nil || commitErr != nil || !committed {
		t.Fatalf("last insert taken: commit called %v (%v), %v", committed, commitErr, err)
	}
	if n := countChunks(t, chunks, "f"); n != 7 {
		t.Errorf("%d chunks after the last insert failed, want 7: the 6 before it and the other writer's", n)
	}
}

// monitoredChunks is a new chunks collection seen through a client that
// reports its commands to monitor.
func monitoredChunks(t *testing.T, monitor *event.CommandMonitor) *mongo.Collection {
	t.Helper()
	client, err := mongo.Connect(options.Client().ApplyURI(storetest.URI(t)).SetMonitor(monitor))
	if err != nil {
		t.Fatal(err)
	}
	db := client.Database(storetest.DBName())
	t.Cleanup(func() {
		db.Drop(context.Background())
		client.Disconnect(context.Background())
	})
	return db.Collection("fs.chunks")
}

// TestWriterKeepsInsertsInFlight: the next batch's insert goes out while
// the one before is being written, at most InsertsInFlight at once (with
// one, the store sat idle while the driver prepared the next batch), and
// Stored still sees every batch in order.
func TestWriterKeepsInsertsInFlight(t *testing.T) {
	ctx := context.Background()
	var mu sync.Mutex
	inflight, most := 0, 0
	monitor := &event.CommandMonitor{
		Started: func(_ context.Context, e *event.CommandStartedEvent) {
			if e.CommandName == "insert" {
				mu.Lock()
				inflight++
				most = max(most, inflight)
				mu.Unlock()
			}
		},
		Succeeded: func(_ context.Context, e *event.CommandSucceededEvent) {
			if e.CommandName == "insert" {
				mu.Lock()
				inflight--
				mu.Unlock()
			}
		},
		Failed: func(_ context.Context, e *event.CommandFailedEvent) {
			if e.CommandName == "insert" {
				mu.Lock()
				inflight--
				mu.Unlock()
			}
		},
	}
	chunks := monitoredChunks(t, monitor)

	data := randomBytes(7, 24*chunker.DefaultBatchBytes)
	var lengths []int64
	w, err := chunker.NewWriter(ctx, chunks, "f", chunker.WriterOptions{Stored: func(length int64, _ []byte) error {
		lengths = append(lengths, length)
		return nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.ReadFrom(bytes.NewReader(data)); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if most < 2 || most > chunker.InsertsInFlight {
		t.Errorf("at most %d inserts in flight, want 2 to %d", most, chunker.InsertsInFlight)
	}
	for i, l := range lengths {
		if l != int64(i+1)*chunker.DefaultBatchBytes {
			t.Fatalf("Stored with %v, want every batch's end in order", lengths)
		}
	}
	if len(lengths) < 23 {
		t.Errorf("Stored %d times, want once per batch but the last", len(lengths))
	}
	if want := int64(24 * chunker.DefaultBatchBytes / chunker.DefaultChunkSize); countChunks(t, chunks, "f") != want {
		t.Errorf("%d chunks, want %d", countChunks(t, chunks, "f"), want)
	}
}

// TestWriterStoresNothingPastAFailedBatch: when a batch fails while the
// next one is in flight, Stored never sees the next one, the writer
// reports the failure and removes every chunk Stored did not take over,
// and leaves the chunk it collided with.
func TestWriterStoresNothingPastAFailedBatch(t *testing.T) {
	ctx := context.Background()
	chunks := mustChunks(t)
	// chunk 7 exists: the third batch (6-8) fails on it, the fourth (9-11)
	// may be stored meanwhile
	if _, err := chunks.InsertOne(ctx, bson.D{{Key: "files_id", Value: "f"}, {Key: "n", Value: int32(7)}, {Key: "data", Value: []byte("x")}}); err != nil {
		t.Fatal(err)
	}
	var lengths []int64
	opts := small
	opts.Stored = func(length int64, _ []byte) error {
		lengths = append(lengths, length)
		return nil
	}
	w, err := chunker.NewWriter(ctx, chunks, "f", opts)
	if err != nil {
		t.Fatal(err)
	}
	_, err = w.ReadFrom(bytes.NewReader(randomBytes(8, 2000)))
	if err == nil {
		err = w.Close()
	}
	if err == nil || !strings.Contains(err.Error(), "insert chunks 6-8") {
		t.Fatalf("write: %v, want the third batch's failure", err)
	}
	if fmt.Sprint(lengths) != "[300 600]" {
		t.Errorf("Stored with %v, want the two batches before the failure only", lengths)
	}
	if n := countChunks(t, chunks, "f"); n != 7 {
		t.Errorf("%d chunks, want the 6 Stored took over and the one that was there", n)
	}
}

// TestWriterCloseWholeWithWaitsForEarlierBatches: with inserts in flight,
// CloseWholeWith's commit still runs only once every batch before the last
// is stored, as End.Stored says.
func TestWriterCloseWholeWithWaitsForEarlierBatches(t *testing.T) {
	ctx := context.Background()
	data := randomBytes(9, 3250) // ten batches of 3 chunks of 100, then 2 chunks and a tail of 50
	for round := range 5 {
		chunks := mustChunks(t)
		w, err := chunker.NewWriter(ctx, chunks, "f", small)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(data); err != nil {
			t.Fatal(err)
		}
		commitErr, err := w.CloseWholeWith(0, func(e chunker.End) error {
			if n := countChunks(t, chunks, "f"); n < e.Stored/100 {
				t.Errorf("round %d: %d chunks stored when commit ran, End.Stored %d", round, n, e.Stored)
			}
			return nil
		})
		if err != nil || commitErr != nil {
			t.Fatal(err, commitErr)
		}
	}
}

// TestWriterUnjournaled: with Unjournaled every insert asks for no journal
// (j: false), CloseWholeWith's last one too, and its commit runs only once
// every insert is stored (the commit's durable write covers them); without
// it none does. Every chunk is stored either way.
func TestWriterUnjournaled(t *testing.T) {
	ctx := context.Background()
	var mu sync.Mutex
	var concerns []string // of each insert, in order: "j:false", "j:true" or "-"
	monitor := &event.CommandMonitor{Started: func(_ context.Context, e *event.CommandStartedEvent) {
		if e.CommandName != "insert" {
			return
		}
		concern := "-"
		if j, err := e.Command.LookupErr("writeConcern", "j"); err == nil {
			concern = fmt.Sprintf("j:%v", j.Boolean())
		}
		mu.Lock()
		concerns = append(concerns, concern)
		mu.Unlock()
	}}
	chunks := monitoredChunks(t, monitor)

	data := randomBytes(11, 3250) // ten batches of 3 chunks of 100, then 2 chunks and a tail of 50
	for _, tc := range []struct {
		name        string
		unjournaled bool
		whole       bool // CloseWholeWith, else Close
		want        string
	}{
		{"close", true, false, strings.Repeat("j:false ", 11)},
		{"close whole with", true, true, strings.Repeat("j:false ", 11)},
		{"journaled", false, false, strings.TrimSpace(strings.Repeat("- ", 11))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mu.Lock()
			concerns = nil
			mu.Unlock()
			opts := small
			opts.Unjournaled = tc.unjournaled
			w, err := chunker.NewWriter(ctx, chunks, tc.name, opts)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := w.Write(data); err != nil {
				t.Fatal(err)
			}
			want := int64(33)
			if tc.whole {
				commitErr, err := w.CloseWholeWith(0, func(e chunker.End) error {
					if n := countChunks(t, chunks, tc.name); n != 32 || e.Stored != 3200 || e.StoredHash != nil {
						t.Errorf("commit ran with %d chunks stored, End.Stored %d (hash %v); want all 32 stored", n, e.Stored, e.StoredHash != nil)
					}
					return nil
				})
				if err != nil || commitErr != nil {
					t.Fatal(err, commitErr)
				}
				want = 32
			} else if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			mu.Lock()
			got := strings.Join(concerns, " ")
			mu.Unlock()
			if got != strings.TrimSpace(tc.want) {
				t.Errorf("inserts' write concerns: %s; want %s", got, strings.TrimSpace(tc.want))
			}
			if n := countChunks(t, chunks, tc.name); n != want {
				t.Errorf("%d chunks stored; want %d", n, want)
			}
		})
	}
}
