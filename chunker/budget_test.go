package chunker

import (
	"bytes"
	"context"
	"testing"

	"github.com/gridfsd/gridfsd/internal/storetest"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/bson"
)

func TestBudgetSharesBatchMemory(t *testing.T) {
	const cs = 1000
	b := NewBudget(2, 64*cs)
	tests := []struct {
		active int64
		limit  int
		want   int
	}{
		{0, 100 * cs, 64 * cs / 3}, // alone: a third of the budget, the rest for the InsertsInFlight batches in flight
		{1, 100 * cs, 64 * cs / 3},
		{1, 8 * cs, 8 * cs}, // never past the writer's own limit
		{4, 100 * cs, 64 * cs / 12},
		{100, 100 * cs, 2 * cs}, // never below two chunks
	}
	for _, tt := range tests {
		b.active.Store(tt.active)
		if got := b.batchBytes(cs, tt.limit); got != tt.want {
			t.Errorf("%d active, limit %d: batch %d, want %d", tt.active, tt.limit, got, tt.want)
		}
	}
	var none *Budget
	if got := none.batchBytes(cs, 5*cs); got != 5*cs {
		t.Errorf("nil budget: batch %d, want the limit", got)
	}
}

func TestBudgetCountsActiveWriters(t *testing.T) {
	ctx := context.Background()
	chunks := storetest.MustOpenDB(t).Collection("fs.chunks")
	b := NewBudget(1, 1<<20)
	closed, err := NewWriter(ctx, chunks, bson.NewObjectID(), WriterOptions{ChunkSize: 10, Budget: b})
	if err != nil {
		t.Fatal(err)
	}
	aborted, err := NewWriter(ctx, chunks, bson.NewObjectID(), WriterOptions{ChunkSize: 10, Budget: b})
	if err != nil {
		t.Fatal(err)
	}
	if n := b.active.Load(); n != 2 {
		t.Fatalf("%d active writers, want 2", n)
	}
	// One insert slot for both: they must take turns, not deadlock.
	for _, w := range []*Writer{closed, aborted} {
		if _, err := w.ReadFrom(bytes.NewReader(make([]byte, 95))); err != nil {
			t.Fatal(err)
		}
	}
	if err := closed.Close(); err != nil {
		t.Fatal(err)
	}
	if err := aborted.Abort(); err != nil {
		t.Fatal(err)
	}
	closed.Abort() // a second release must not count twice
	if n := b.active.Load(); n != 0 {
		t.Errorf("%d active writers after Close and Abort, want 0", n)
	}
	if got := len(b.slots); got != 0 {
		t.Errorf("%d insert slots still taken", got)
	}
}
