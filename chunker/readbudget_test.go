package chunker_test

import (
	"bytes"
	"context"
	"io"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gridfsd/gridfsd/chunker"
	"github.com/gridfsd/gridfsd/internal/storetest"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/event"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/mongo"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/mongo/options"
)

// monitoredFile writes data as file id in chunks of chunkSize and returns
// the chunks collection seen through a client that reports its commands to
// monitor, and the file.
func monitoredFile(t *testing.T, monitor *event.CommandMonitor, id string, data []byte, chunkSize int) (*mongo.Collection, chunker.File) {
	t.Helper()
	client, err := mongo.Connect(options.Client().ApplyURI(storetest.URI(t)).SetMonitor(monitor))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { client.Disconnect(context.Background()) })
	written := mustChunks(t)
	f := mustWrite(t, written, id, data, chunkSize)
	return client.Database(written.Database().Name()).Collection(written.Name()), f
}

// TestReadBudgetBoundsReadahead: Readers that share a ReadBudget ask the
// store for no more chunks ahead than their share of it (the batch a cursor
// holds is the read-ahead's memory), so many concurrent downloads cannot
// grow memory without bound.
func TestReadBudgetBoundsReadahead(t *testing.T) {
	const chunkSize, readers, budget = 1024, 8, 64 * 1024
	var mu sync.Mutex
	largest := int64(0)
	monitor := &event.CommandMonitor{Started: func(_ context.Context, e *event.CommandStartedEvent) {
		if e.CommandName != "find" && e.CommandName != "getMore" {
			return
		}
		if n, ok := e.Command.Lookup("batchSize").AsInt64OK(); ok {
			mu.Lock()
			largest = max(largest, n)
			mu.Unlock()
		}
	}}
	data := bytes.Repeat([]byte("0123456789abcdef"), 256*1024/16)
	chunks, f := monitoredFile(t, monitor, "big", data, chunkSize)
	readAll := func(r *chunker.Reader, n int) {
		t.Helper()
		buf := make([]byte, chunkSize)
		for i := 0; i < n; i += chunkSize {
			if _, err := io.ReadFull(r, buf); err != nil {
				t.Fatal(err)
			}
		}
	}
	batch := func() int64 {
		mu.Lock()
		defer mu.Unlock()
		n := largest
		largest = 0
		return n
	}

	b := chunker.NewReadBudget(0, budget)
	rs := make([]*chunker.Reader, readers)
	for i := range rs {
		rs[i] = mustReader(t, chunks, f)
		rs[i].ShareReadahead(b)
	}
	// A client that keeps reading: without a budget the read-ahead grows
	// with what it has read, up to megabytes.
	readAll(rs[0], 128*chunkSize)
	share := int64(budget / readers / chunkSize)
	if n := batch(); n > share {
		t.Errorf("%d readers: batches of up to %d chunks, more than the share of %d", readers, n, share)
	}

	// Once the others close, the one left may read further ahead.
	for _, r := range rs[1:] {
		r.Close()
	}
	readAll(rs[0], 128*chunkSize)
	if n := batch(); n <= share {
		t.Errorf("alone: batches of at most %d chunks", n)
	}
}

// TestReaderFetchesWhileClientReads: a sequential Reader asks the store for
// the next batch (a find of it, or a getMore) while its client still has
// half a batch to read, so that
// the store works while the client reads; before, it asked only once the
// client had taken all but the last chunk or two of the batch, and the
// client then waited for the whole getMore.
func TestReaderFetchesWhileClientReads(t *testing.T) {
	const chunkSize, chunks, ahead = 1024, 64, 8 // read-ahead of 8 chunks: batches of 4
	var read, requested atomic.Int64
	var mu sync.Mutex
	var unread []int64 // chunks fetched and not yet read when a getMore started
	monitor := &event.CommandMonitor{Started: func(_ context.Context, e *event.CommandStartedEvent) {
		if e.CommandName != "find" && e.CommandName != "getMore" {
			return
		}
		if e.CommandName == "getMore" || requested.Load() > 0 {
			// every fetch after the first: a getMore of a cursor or,
			// through the cache, a find of the next batch
			mu.Lock()
			unread = append(unread, requested.Load()-read.Load())
			mu.Unlock()
		}
		if n, ok := e.Command.Lookup("batchSize").AsInt64OK(); ok {
			requested.Add(n)
		}
	}}
	data := bytes.Repeat([]byte("0123456789abcdef"), chunks*chunkSize/16)
	coll, f := monitoredFile(t, monitor, "f", data, chunkSize)

	r := mustReader(t, coll, f)
	r.ShareReadahead(chunker.NewReadBudget(0, ahead*chunkSize))
	buf := make([]byte, chunkSize)
	var got []byte
	for range chunks {
		if _, err := io.ReadFull(r, buf); err != nil {
			t.Fatal(err)
		}
		got = append(got, buf...)
		read.Add(1)
		time.Sleep(2 * time.Millisecond) // a client slower than the store
	}
	if !bytes.Equal(got, data) {
		t.Fatal("read bytes differ from those written")
	}
	mu.Lock()
	defer mu.Unlock()
	early := 0
	for _, n := range unread {
		if n >= 3 {
			early++
		}
	}
	t.Logf("chunks left to read when each fetch started: %v", unread)
	// after the read-ahead has grown, nearly every getMore is early
	if len(unread) < 8 || early < len(unread)/2 {
		t.Errorf("chunks left to read when each fetch started: %v; want most of them 3 or more", unread)
	}
}

// TestExpectFetchesARangeAtOnce: a range over two chunks read in small
// buffers, as http.ServeContent reads, costs a find and a getMore (which
// also reads ahead past the range); told where the range ends (Expect), one
// find of exactly its chunks.
func TestExpectFetchesARangeAtOnce(t *testing.T) {
	const chunkSize = 4096
	var count atomic.Int64
	monitor := &event.CommandMonitor{Started: func(_ context.Context, e *event.CommandStartedEvent) {
		if e.CommandName == "find" || e.CommandName == "getMore" {
			count.Add(1)
		}
	}}
	data := randomBytes(5, 10*chunkSize)
	coll, f := monitoredFile(t, monitor, "f", data, chunkSize)

	read := func(expect bool) (queries, fetched int64) {
		t.Helper()
		r := mustReader(t, coll, f)
		off, end := int64(3*chunkSize+100), int64(5*chunkSize-100) // chunks 3 and 4
		if expect {
			r.Expect(off, end)
		}
		if _, err := r.Seek(off, io.SeekStart); err != nil {
			t.Fatal(err)
		}
		count.Store(0)
		got := make([]byte, end-off)
		for n := 0; n < len(got); {
			k, err := r.Read(got[n:min(n+1000, len(got))])
			if err != nil {
				t.Fatal(err)
			}
			n += k
		}
		if !bytes.Equal(got, data[off:end]) {
			t.Fatal("range differs from the bytes written")
		}
		r.Close()
		return count.Load(), r.Fetched()
	}
	if n, _ := read(false); n != 2 {
		t.Errorf("without Expect: %d queries, want 2 (find, getMore)", n)
	}
	if n, fetched := read(true); n != 1 || fetched != 2*chunkSize {
		t.Errorf("with Expect: %d queries fetched %d bytes, want 1 query of the range's 2 chunks", n, fetched)
	}
}

// TestReadBudgetBoundsQueries: Readers that share a ReadBudget have at most
// its number of chunk queries in flight, however many read at once; the
// rest wait their turn (in order, which keeps their latencies even).
func TestReadBudgetBoundsQueries(t *testing.T) {
	const chunkSize, readers = 1024, 16
	var mu sync.Mutex
	inFlight, most := 0, 0
	started := func(_ context.Context, e *event.CommandStartedEvent) {
		if e.CommandName == "find" || e.CommandName == "getMore" {
			mu.Lock()
			inFlight++
			most = max(most, inFlight)
			mu.Unlock()
		}
	}
	ended := func(name string) {
		if name == "find" || name == "getMore" {
			mu.Lock()
			inFlight--
			mu.Unlock()
		}
	}
	monitor := &event.CommandMonitor{
		Started:   started,
		Succeeded: func(_ context.Context, e *event.CommandSucceededEvent) { ended(e.CommandName) },
		Failed:    func(_ context.Context, e *event.CommandFailedEvent) { ended(e.CommandName) },
	}
	data := randomBytes(9, 64*chunkSize)
	coll, f := monitoredFile(t, monitor, "f", data, chunkSize)

	readAll := func(queries int) int {
		b := chunker.NewReadBudget(queries, 64*chunkSize)
		mu.Lock()
		most = 0
		mu.Unlock()
		var wg sync.WaitGroup
		for range readers {
			r := mustReader(t, coll, f)
			r.ShareReadahead(b)
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer r.Close()
				got, err := io.ReadAll(r)
				if err != nil || !bytes.Equal(got, data) {
					t.Errorf("read %d bytes, %v", len(got), err)
				}
			}()
		}
		wg.Wait()
		mu.Lock()
		defer mu.Unlock()
		return most
	}
	// Unbounded, the readers' queries overlap: the count above sees it.
	if n := readAll(0); n <= 2 {
		t.Errorf("unbounded: at most %d queries in flight; the test needs them to overlap", n)
	}
	if n := readAll(2); n > 2 {
		t.Errorf("a budget of 2 queries: %d in flight", n)
	}
}
