// gridfsd patch (PATCHES.md item 28): documents read share the driver's copy of their binary data.

package sqlite

import (
	"bytes"
	"context"
	"log/slog"
	"testing"

	"github.com/gridfsd/gridfsd/third_party/ferretdb/internal/backends"
	"github.com/gridfsd/gridfsd/third_party/ferretdb/internal/types"
	"github.com/gridfsd/gridfsd/third_party/ferretdb/internal/util/iterator"
	"github.com/gridfsd/gridfsd/third_party/ferretdb/internal/util/must"
	"github.com/gridfsd/gridfsd/third_party/ferretdb/internal/util/state"
)

// TestSideBytesAreTheRows: the documents of a query keep their binary data, read beside the text,
// after the query has read further rows and closed, each its own memory. The iterator gives each
// document the slice modernc.org/sqlite returned for its row (sideBytes) instead of a copy; this
// fails if a version of the driver reuses that slice for the next row (every document would end up
// holding the last row's data).
func TestSideBytesAreTheRows(t *testing.T) {
	sp, err := state.NewProvider("")
	if err != nil {
		t.Fatal(err)
	}
	b, err := NewBackend(&NewBackendParams{
		URI: "file:" + t.TempDir() + "/",
		L:   slog.New(slog.DiscardHandler),
		P:   sp,

		BatchSize: 100,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Close)

	ctx := context.Background()
	db := must.NotFail(b.Database("side"))
	if err = db.CreateCollection(ctx, &backends.CreateCollectionParams{Name: "c"}); err != nil {
		t.Fatal(err)
	}
	c := must.NotFail(db.Collection("c"))

	const n = 40
	data := func(i int) []byte { return bytes.Repeat([]byte{byte(i), byte(i >> 8), 0x5a}, 3000) }
	docs := make([]*types.Document, n)
	for i := range docs {
		docs[i] = must.NotFail(types.NewDocument("_id", int32(i), "data", types.Binary{B: data(i)}))
	}
	if _, err = c.InsertAll(ctx, &backends.InsertAllParams{Docs: docs}); err != nil {
		t.Fatal(err)
	}

	res, err := c.Query(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	got, err := iterator.ConsumeValues(res.Iter)
	res.Iter.Close()
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != n {
		t.Fatalf("%d documents read, want %d", len(got), n)
	}
	seen := map[*byte]int{}
	for _, doc := range got {
		i := int(must.NotFail(doc.Get("_id")).(int32))
		bin, ok := must.NotFail(doc.Get("data")).(types.Binary)
		if !ok || !bytes.Equal(bin.B, data(i)) {
			t.Fatalf("document %d: its data changed after the query read on (%d bytes, first %v)", i, len(bin.B), bin.B[:3])
		}
		if j, ok := seen[&bin.B[0]]; ok {
			t.Fatalf("documents %d and %d share their data's memory", j, i)
		}
		seen[&bin.B[0]] = i
	}
}
