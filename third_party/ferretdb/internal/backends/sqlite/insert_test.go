// gridfsd patch (PATCHES.md item 17): the texts of inserted documents are encoded into recycled buffers.

package sqlite

import (
	"bytes"
	"runtime"
	"testing"

	"github.com/gridfsd/gridfsd/third_party/ferretdb/internal/handler/sjson"
	"github.com/gridfsd/gridfsd/third_party/ferretdb/internal/types"
	"github.com/gridfsd/gridfsd/third_party/ferretdb/internal/util/must"
)

// chunkDocs returns four GridFS chunk documents whose data depends on seed.
func chunkDocs(seed byte) []*types.Document {
	docs := make([]*types.Document, 4)
	for n := range docs {
		data := make([]byte, 255<<10)
		for i := range data {
			data[i] = byte(i*7) + seed + byte(n)
		}
		docs[n] = must.NotFail(types.NewDocument(
			"_id", types.NewObjectID(),
			"files_id", types.NewObjectID(),
			"n", int32(n),
			"data", types.Binary{B: data},
		))
	}
	return docs
}

// Batches of chunks inserted one after the other reuse the buffers of the
// ones before (fails before: each batch allocated its four texts anew), and
// a reused buffer holds the new document's text, not the old one's.
func TestInsertTextsAreRecycled(t *testing.T) {
	batches := [][]*types.Document{chunkDocs(1), chunkDocs(2)}
	want := make([][]any, len(batches))
	textBytes := 0
	for i, docs := range batches {
		for _, d := range docs {
			text, side, err := sjson.AppendMarshalSide(nil, nil, d, noneInline)
			if err != nil {
				t.Fatal(err)
			}
			want[i] = append(want[i], string(text), side)
			textBytes += len(text) + len(side)
		}
	}
	textBytes /= len(batches)

	insert := func(i int) {
		_, args, release, err := prepareInsertStatement("t", false, batches[i], noneInline)
		if err != nil {
			t.Fatal(err)
		}
		for j, arg := range args {
			if j%2 == 0 && arg.(string) != want[i][j] || j%2 == 1 && !bytes.Equal(arg.([]byte), want[i][j].([]byte)) {
				t.Fatalf("batch %d, document %d: the bound text or binary data is not the document's", i, j/2)
			}
		}
		release()
	}

	for i := range 4 {
		insert(i % 2)
	}
	if raceEnabled {
		// The race detector's sync.Pool drops a quarter of what is put back.
		return
	}
	const runs = 20
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for i := range runs {
		insert(i % 2)
	}
	runtime.ReadMemStats(&after)
	perBatch := float64(after.TotalAlloc-before.TotalAlloc) / runs
	if limit := 0.1 * float64(textBytes); perBatch > limit {
		t.Errorf("a batch of %d bytes of text allocated %.0f bytes, want at most %.0f", textBytes, perBatch, limit)
	}
}

func noneInline(string) bool { return false }
