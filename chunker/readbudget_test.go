package chunker_test

import (
	"bytes"
	"context"
	"io"
	"sync"
	"testing"

	"github.com/gridfsd/gridfsd/chunker"
	"github.com/gridfsd/gridfsd/internal/storetest"
	"go.mongodb.org/mongo-driver/v2/event"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

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
	client, err := mongo.Connect(options.Client().ApplyURI(storetest.URI(t)).SetMonitor(monitor))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { client.Disconnect(context.Background()) })
	written := mustChunks(t)
	chunks := client.Database(written.Database().Name()).Collection(written.Name())
	data := bytes.Repeat([]byte("0123456789abcdef"), 256*1024/16)
	f := mustWrite(t, written, "big", data, chunkSize)
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

	b := chunker.NewReadBudget(budget)
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
