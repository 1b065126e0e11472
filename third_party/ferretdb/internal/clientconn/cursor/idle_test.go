// gridfsd patch (PATCHES.md, "cursors outlive connections"): the idle timeout.

package cursor

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/gridfsd/gridfsd/third_party/ferretdb/internal/types"
	"github.com/gridfsd/gridfsd/third_party/ferretdb/internal/util/iterator"
	"github.com/gridfsd/gridfsd/third_party/ferretdb/internal/util/must"
)

// TestIdleCursorCloses: a cursor read within the idle timeout stays, those left alone past it are closed
// and removed, and closing the registry closes what is left.
func TestIdleCursorCloses(t *testing.T) {
	defer func(d time.Duration) { IdleTimeout = d }(IdleTimeout)
	IdleTimeout = 200 * time.Millisecond

	docs := make([]*types.Document, 100)
	for i := range docs {
		docs[i] = must.NotFail(types.NewDocument("_id", int32(i)))
	}
	r := NewRegistry(slog.New(slog.DiscardHandler))
	params := func() *NewParams { return &NewParams{Type: Normal, DB: "db", Collection: "c"} }
	read := r.NewCursor(context.Background(), iterator.Values(iterator.ForSlice(docs)), params())
	idle := r.NewCursor(context.Background(), iterator.Values(iterator.ForSlice(docs)), params())
	left := r.NewCursor(context.Background(), iterator.Values(iterator.ForSlice(docs)), params())

	deadline := time.Now().Add(5 * time.Second)
	for r.Get(idle.ID) != nil || r.Get(left.ID) != nil {
		if time.Now().After(deadline) {
			t.Fatal("the idle cursors are still open after 5 s")
		}
		if _, _, err := read.Next(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if r.Get(read.ID) == nil {
		t.Error("the cursor being read was closed")
	}
	if _, _, err := idle.Next(); err != iterator.ErrIteratorDone {
		t.Errorf("the idle cursor's Next: %v, want iterator.ErrIteratorDone", err)
	}

	done := make(chan struct{})
	go func() { r.Close(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Registry.Close waits for open cursors")
	}
	if r.Get(read.ID) != nil {
		t.Error("Registry.Close left a cursor open")
	}
}
