package sjson

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/gridfsd/gridfsd/third_party/ferretdb/internal/types"
	"github.com/gridfsd/gridfsd/third_party/ferretdb/internal/util/must"
)

// TestSideRoundTrip (PATCHES.md item 23): documents written with their binary data beside the text
// read back as the documents written, whole or by fields; the text holds every binary of a field
// kept inline and every one under SideMin, and nothing else of the binaries beside it.
func TestSideRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(29, 20))
	inline := func(k string) bool { return k == "_id" || k == "n" }
	var moved int
	for range 3000 {
		d := randomDocument(r)
		text, side, err := AppendMarshalSide(nil, nil, d, inline)
		if err != nil {
			t.Fatal(err)
		}
		var want []byte
		for _, k := range d.Keys() {
			if b, ok := must.NotFail(d.Get(k)).(types.Binary); ok && len(b.B) >= SideMin && !inline(k) {
				want = append(want, b.B...)
				moved++
			}
		}
		if !bytes.Equal(side, want) {
			t.Fatalf("%d bytes beside the text, want %d", len(side), len(want))
		}
		got, err := UnmarshalFieldsSide(text, side, nil)
		if err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		if !bytes.Equal(must.NotFail(Marshal(got)), must.NotFail(Marshal(d))) {
			t.Fatalf("round trip changed the document %s", text)
		}
		fields := []string{"n", "meta"}
		part, err := UnmarshalFieldsSide(text, side, fields)
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range d.Keys() {
			if slices.Contains(fields, k) != part.Has(k) {
				t.Fatalf("fields %v: %q present %v", fields, k, part.Has(k))
			}
		}
		// UnmarshalFieldsSideShared (item 28) reads the same document, whose binaries are side's
		// bytes, one after the other, not copies; and no more of them than asked for
		shared, err := UnmarshalFieldsSideShared(text, side, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(must.NotFail(Marshal(shared)), must.NotFail(Marshal(d))) {
			t.Fatalf("shared read changed the document %s", text)
		}
		off := 0
		for _, k := range shared.Keys() {
			b, ok := must.NotFail(shared.Get(k)).(types.Binary)
			if !ok || len(b.B) < SideMin || inline(k) {
				continue
			}
			if &b.B[0] != &side[off] || cap(b.B) != len(b.B) {
				t.Fatalf("%q: not side's bytes %d.. (or with room to grow into the next)", k, off)
			}
			off += len(b.B)
		}
		if off != len(side) {
			t.Fatalf("shared binaries cover %d of the %d bytes beside the text", off, len(side))
		}
		// the side bytes are copied: reusing the buffer changes nothing read
		for i := range side {
			side[i] ^= 0xff
		}
		if len(side) > 0 && !bytes.Equal(must.NotFail(Marshal(got)), must.NotFail(Marshal(d))) {
			t.Fatal("the document read refers to the side buffer")
		}
	}
	if moved < 500 {
		t.Fatalf("only %d binaries moved beside the text", moved)
	}
}

// A binary beside the text that is missing, short or left over is an error, not a misread.
func TestSideMismatch(t *testing.T) {
	d := must.NotFail(types.NewDocument("_id", int32(1), "data", types.Binary{B: bytes.Repeat([]byte{7}, 300)}))
	text, side, err := AppendMarshalSide(nil, nil, d, func(k string) bool { return k == "_id" })
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range [][]byte{nil, side[:299], append(slices.Clone(side), 1)} {
		if _, err := UnmarshalFieldsSide(text, bad, nil); err == nil {
			t.Errorf("%d bytes beside the text for a 300-byte binary: no error", len(bad))
		}
	}
	// a format-1 reader, which knows no side column, refuses the text
	if _, err := Unmarshal(text); err == nil {
		t.Error("Unmarshal read a document whose binary is beside the text")
	}
}

// TestFieldsUnread (PATCHES.md item 31): a document read without the bytes beside its text, by their
// length only, gives the fields kept in the text as a full read does; asking for a binary beside the
// text, or a length that does not match the document's, is an error.
func TestFieldsUnread(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 1))
	inline := func(k string) bool { return k == "_id" || k == "n" }
	fields := []string{"_id", "n"}
	var refused int
	for range 3000 {
		d := randomDocument(r)
		text, side, err := AppendMarshalSide(nil, nil, d, inline)
		if err != nil {
			t.Fatal(err)
		}
		want, err := UnmarshalFieldsSide(text, side, fields)
		if err != nil {
			t.Fatal(err)
		}
		got, err := UnmarshalFieldsUnread(text, len(side), fields)
		if err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		if !bytes.Equal(must.NotFail(Marshal(got)), must.NotFail(Marshal(want))) {
			t.Fatalf("fields %v of %s: %v, want %v", fields, text, got, want)
		}
		if len(side) == 0 {
			continue
		}
		for _, bad := range []int{len(side) - 1, len(side) + 1, 0} {
			if _, err := UnmarshalFieldsUnread(text, bad, fields); err == nil {
				t.Fatalf("%d bytes beside the text said for %d: no error", bad, len(side))
			}
		}
		// every binary beside the text, asked for, is refused
		for _, k := range d.Keys() {
			if b, ok := must.NotFail(d.Get(k)).(types.Binary); ok && len(b.B) >= SideMin && !inline(k) {
				if _, err := UnmarshalFieldsUnread(text, len(side), []string{"_id", k}); err == nil {
					t.Fatalf("%q, beside the text, read without it", k)
				}
				refused++
			}
		}
	}
	if refused < 500 {
		t.Fatalf("only %d binaries beside the text asked for", refused)
	}
	if _, err := UnmarshalFieldsUnread([]byte(`{"$s":{"p":{},"$k":[]}}`), 0, nil); err == nil {
		t.Error("no fields: no error")
	}
}
