package common

import (
	"bytes"
	"runtime"
	"testing"

	"github.com/gridfsd/gridfsd/third_party/ferretdb/internal/types"
	"github.com/gridfsd/gridfsd/third_party/ferretdb/internal/util/must"
)

// TestProjectionSharesBinaries (gridfsd, PATCHES.md item 26): projecting a GridFS chunk shares its
// data with the document read instead of copying it, for an inclusion, an exclusion and the empty
// projection of a find without one; the input is left as it was and the projected document is
// what upstream's projection gave.
func TestProjectionSharesBinaries(t *testing.T) {
	data := bytes.Repeat([]byte{7}, 255<<10)
	chunk := func() *types.Document {
		return must.NotFail(types.NewDocument(
			"_id", types.ObjectID{1}, "files_id", types.ObjectID{2}, "n", int32(3),
			"data", types.Binary{B: data}, "meta", must.NotFail(types.NewDocument("x", types.Binary{B: data[:10]})),
		))
	}
	for _, tc := range []struct {
		name       string
		projection *types.Document
		keys       []string
	}{
		{"inclusion", must.NotFail(types.NewDocument("_id", false, "n", true, "data", true)), []string{"n", "data"}},
		{"exclusion", must.NotFail(types.NewDocument("_id", false, "files_id", false)), []string{"n", "data", "meta"}},
		{"none", types.MakeDocument(0), []string{"_id", "files_id", "n", "data", "meta"}},
	} {
		validated, inclusion, err := ValidateProjection(tc.projection)
		if err != nil {
			t.Fatal(err)
		}
		doc := chunk()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		before := m.TotalAlloc
		const rounds = 50
		var projected *types.Document
		for range rounds {
			if projected, err = ProjectDocument(doc, validated, nil, inclusion); err != nil {
				t.Fatal(err)
			}
		}
		runtime.ReadMemStats(&m)
		if per := (m.TotalAlloc - before) / rounds; per > 16<<10 {
			t.Errorf("%s: %d bytes allocated per projection of a 255 KiB chunk", tc.name, per)
		}
		if got := projected.Keys(); !slicesEqual(got, tc.keys) {
			t.Errorf("%s: keys %v, want %v", tc.name, got, tc.keys)
		}
		if b := must.NotFail(projected.Get("data")).(types.Binary); !bytes.Equal(b.B, data) {
			t.Errorf("%s: data changed", tc.name)
		}
		// the copy is a document of its own: changing it leaves the input as it was
		projected.Set("n", int32(9))
		if tc.name != "inclusion" {
			must.NotFail(projected.Get("meta")).(*types.Document).Set("x", int32(1))
		}
		x := must.NotFail(must.NotFail(doc.Get("meta")).(*types.Document).Get("x"))
		if n := must.NotFail(doc.Get("n")); n != int32(3) || doc.Len() != 5 {
			t.Errorf("%s: the input changed: n = %v, %d fields", tc.name, n, doc.Len())
		}
		if b, ok := x.(types.Binary); !ok || len(b.B) != 10 {
			t.Errorf("%s: the input's meta.x changed: %v", tc.name, x)
		}
	}
}

func slicesEqual(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
