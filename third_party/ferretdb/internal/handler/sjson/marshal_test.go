// gridfsd patch (PATCHES.md item 16): Marshal against upstream's encoding, and its allocations.

package sjson

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/gridfsd/gridfsd/third_party/ferretdb/internal/types"
	"github.com/gridfsd/gridfsd/third_party/ferretdb/internal/util/must"
)

// marshalUpstream is FerretDB v1.24.0's Marshal, with its encoding of binary
// data (encoding/json's, for a []byte) at the top level.
func marshalUpstream(d *types.Document) []byte {
	var buf bytes.Buffer
	buf.WriteString(`{"$s":`)
	buf.Write(must.NotFail(marshalSchemaForDoc(d)))
	values := d.Values()
	for i, key := range d.Keys() {
		buf.WriteString(`,"` + key + `":`)
		if bin, ok := values[i].(types.Binary); ok {
			buf.Write(must.NotFail(json.Marshal(bin.B)))
			continue
		}
		buf.Write(must.NotFail(toSJSON(values[i]).MarshalJSON()))
	}
	buf.WriteByte('}')
	return buf.Bytes()
}

func TestMarshalMatchesUpstream(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for range 3000 {
		d := randomDocument(r)
		nilBinary := false
		switch r.IntN(4) {
		case 0:
			// written as null, as upstream does, so it reads back as null: no round trip
			d.Set("nil", types.Binary{})
			nilBinary = true
		case 1:
			d.Set("empty", types.Binary{B: []byte{}, Subtype: types.BinaryUser})
		}
		got := must.NotFail(Marshal(d))
		if want := marshalUpstream(d); !bytes.Equal(got, want) {
			t.Fatalf("Marshal:\n%s\nupstream:\n%s", got, want)
		}
		if nilBinary {
			continue
		}
		back := must.NotFail(Unmarshal(got))
		if again := must.NotFail(Marshal(back)); !bytes.Equal(again, got) {
			t.Fatalf("round trip changed the document:\n%s\n%s", got, again)
		}
	}
}

func TestBinaryMatchesEncodingJSON(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	sizes := []int{0, 1, 2, 3, 4, 5, 1023, 1024, 1025, 255 << 10}
	for range 200 {
		sizes = append(sizes, r.IntN(5000))
	}
	for _, n := range sizes {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(r.Uint32())
		}
		bin := binaryType{B: b}
		if got, want := must.NotFail(bin.MarshalJSON()), must.NotFail(json.Marshal(b)); !bytes.Equal(got, want) {
			t.Fatalf("%d bytes: %.40s…, encoding/json %.40s…", n, got, want)
		}
	}
	if got := must.NotFail((&binaryType{}).MarshalJSON()); string(got) != "null" {
		t.Fatalf("nil: %s, want null", got)
	}
}

// A GridFS chunk's document is encoded with one allocation of its text, where
// upstream made about three more (the value's buffer, encoding/json's, a
// growing bytes.Buffer): every chunk inserted into the embedded store paid it.
func TestMarshalChunkAllocatesItsTextOnce(t *testing.T) {
	data := make([]byte, 255<<10)
	for i := range data {
		data[i] = byte(i * 7)
	}
	d := must.NotFail(types.NewDocument(
		"_id", types.NewObjectID(),
		"files_id", types.NewObjectID(),
		"n", int32(3),
		"data", types.Binary{B: data},
	))
	text := must.NotFail(Marshal(d))

	const runs = 20
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for range runs {
		must.NotFail(Marshal(d))
	}
	runtime.ReadMemStats(&after)
	perDoc := float64(after.TotalAlloc-before.TotalAlloc) / runs
	if limit := 1.1 * float64(len(text)); perDoc > limit {
		t.Errorf("encoding a %d-byte chunk document allocated %.0f bytes, want at most %.0f", len(text), perDoc, limit)
	}
}
