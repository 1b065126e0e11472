// gridfsd patch (PATCHES.md item 24): the writers of a database take turns in Go.

package sqlite

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"testing"

	"github.com/gridfsd/gridfsd/third_party/ferretdb/internal/backends"
	"github.com/gridfsd/gridfsd/third_party/ferretdb/internal/types"
	"github.com/gridfsd/gridfsd/third_party/ferretdb/internal/util/must"
	"github.com/gridfsd/gridfsd/third_party/ferretdb/internal/util/state"
)

// Many clients inserting, updating and deleting documents at once never get SQLITE_BUSY: each
// waits its turn for the write lock, however long the queue. The store's busy timeout is 10 s;
// under the soak benchmark's 32 clients on a loaded machine some deletes waited longer and failed
// with "database is locked" (SQLite's busy handler polls, at most every 100 ms, and whoever asks
// at the moment the lock is free gets it, so a writer can lose every time). Here the busy timeout
// is 20 ms, so that a queue of a few writers outlasts it, as a queue of 32 outlasted 10 s: this
// failed before the change (dozens of "database is locked (5) (SQLITE_BUSY)" per run), and passes
// with any timeout after it, because no two writers of this process ever meet in SQLite.
func TestWritersTakeTurns(t *testing.T) {
	sp, err := state.NewProvider("")
	if err != nil {
		t.Fatal(err)
	}
	b, err := NewBackend(&NewBackendParams{
		URI: "file:" + t.TempDir() + "/?_pragma=busy_timeout(20)",
		L:   slog.New(slog.DiscardHandler),
		P:   sp,

		BatchSize: 100,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Close)

	ctx := context.Background()
	db := must.NotFail(b.Database("busy"))
	if err = db.CreateCollection(ctx, &backends.CreateCollectionParams{Name: "c"}); err != nil {
		t.Fatal(err)
	}
	c := must.NotFail(db.Collection("c"))

	const writers, rounds = 16, 25
	data := make([]byte, 64<<10)
	var mu sync.Mutex
	var errs []error
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			fail := func(what string, err error) {
				mu.Lock()
				errs = append(errs, fmt.Errorf("writer %d: %s: %w", w, what, err))
				mu.Unlock()
			}
			for r := range rounds {
				docs := make([]*types.Document, 4)
				ids := make([]any, len(docs))
				for i := range docs {
					ids[i] = fmt.Sprintf("%d-%d-%d", w, r, i)
					docs[i] = must.NotFail(types.NewDocument("_id", ids[i], "n", int32(i), "data", types.Binary{B: data}))
				}
				if _, err := c.InsertAll(ctx, &backends.InsertAllParams{Docs: docs}); err != nil {
					fail("insert", err)
					continue
				}
				for i := range docs {
					docs[i] = must.NotFail(types.NewDocument("_id", ids[i], "n", int32(r), "data", types.Binary{B: data}))
				}
				if _, err := c.UpdateAll(ctx, &backends.UpdateAllParams{Docs: docs}); err != nil {
					fail("update", err)
				}
				res, err := c.DeleteAll(ctx, &backends.DeleteAllParams{IDs: ids})
				if err != nil {
					fail("delete", err)
				} else if res.Deleted != int32(len(ids)) {
					fail("delete", fmt.Errorf("deleted %d documents, want %d", res.Deleted, len(ids)))
				}
			}
		}()
	}
	wg.Wait()

	for i, err := range errs {
		if i == 10 {
			t.Errorf("and %d more", len(errs)-i)
			break
		}
		t.Error(err)
	}
}
