// gridfsd patch (PATCHES.md, "fast sjson reads"): the fast paths against encoding/json.

package sjson

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/gridfsd/gridfsd/third_party/ferretdb/internal/types"
	"github.com/gridfsd/gridfsd/third_party/ferretdb/internal/util/must"
)

// randomValue returns a value of any type sjson stores, nested up to depth.
func randomValue(r *rand.Rand, depth int) any {
	strs := []string{"", "x", `quo"te`, `back\slash`, "new\nline", "tab\t", "ünïcødé", "\u2028", "</script>&", "{\"a\":[1,2]}"}
	switch n := r.IntN(13); {
	case n == 0 && depth > 0:
		d := types.MakeDocument(0)
		for i := range r.IntN(4) {
			d.Set(fmt.Sprintf("k%d", i), randomValue(r, depth-1))
		}
		return d
	case n == 1 && depth > 0:
		a := types.MakeArray(0)
		for range r.IntN(4) {
			a.Append(randomValue(r, depth-1))
		}
		return a
	case n == 2:
		b := make([]byte, r.IntN(3000))
		for i := range b {
			b[i] = byte(r.Uint32())
		}
		return types.Binary{B: b, Subtype: types.BinarySubtype(r.IntN(3))}
	case n == 3:
		return strs[r.IntN(len(strs))]
	case n == 4:
		return int32(r.Int32() - math.MaxInt32/2)
	case n == 5:
		return r.Int64() - math.MaxInt64/2
	case n == 6:
		return []float64{0, -1.5, 1e300, math.SmallestNonzeroFloat64, -0.1, 3}[r.IntN(6)]
	case n == 7:
		return types.NewObjectID()
	case n == 8:
		return r.IntN(2) == 0
	case n == 9:
		return time.UnixMilli(r.Int64N(1 << 40)).UTC()
	case n == 10:
		return types.Null
	case n == 11:
		return types.Timestamp(r.Uint64())
	default:
		return types.Regex{Pattern: "^a.*" + strs[r.IntN(len(strs))], Options: "i"}
	}
}

func randomDocument(r *rand.Rand) *types.Document {
	d := types.MakeDocument(0)
	d.Set("_id", randomValue(r, 0))
	keys := []string{"files_id", "n", "data", "meta", "ünï", "with space", "$x"}
	for _, k := range keys[:r.IntN(len(keys)+1)] {
		d.Set(k, randomValue(r, 3))
	}
	return d
}

// TestFastUnmarshal: documents read back through the fast paths are the documents written, and the fast
// paths take the documents Marshal writes.
func TestFastUnmarshal(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for range 2000 {
		d := randomDocument(r)
		data, err := Marshal(d)
		if err != nil {
			t.Fatal(err)
		}
		fields, ok := splitObject(data)
		if !ok {
			t.Fatalf("splitObject declined what Marshal wrote: %s", data)
		}
		want, err := splitObjectJSON(data)
		if err != nil {
			t.Fatal(err)
		}
		sameFields(t, data, fields, want)

		got, err := Unmarshal(data)
		if err != nil {
			t.Fatalf("%s: %v", data, err)
		}
		again := must.NotFail(Marshal(got))
		if !bytes.Equal(again, data) {
			t.Fatalf("round trip changed the document:\n%s\n%s", data, again)
		}
	}
}

func sameFields(t *testing.T, data []byte, got, want map[string]json.RawMessage) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d fields, encoding/json %d", data, len(got), len(want))
	}
	for k, v := range want {
		if !bytes.Equal(got[k], v) {
			t.Fatalf("%s: field %q is %s, encoding/json %s", data, k, got[k], v)
		}
	}
}

// TestFastSplitMalformed mutates documents byte by byte: whatever splitObject accepts, encoding/json
// splits the same way, or one of the values is invalid JSON, which its own decoder then rejects.
func TestFastSplitMalformed(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	alphabet := []byte(`{}[]":,\ tn0-1.eE` + "\n\x00\xff")
	inputs := []string{
		`{}`, ` { } `, `{"a":1}`, `{"a" : 1 , "b" : [1, {"c":"}"}] }`, `{"a":"\""}`, `{"a":"\\"}`, `{"a":"\\\""}`,
		`{"a":1,}`, `{"a":1 "b":2}`, `{"a":}`, `{"a"1}`, `{a:1}`, `{"a":1}x`, `{"a":[1}`, `{"a":"x}`, `{"a\"b":1}`,
		`{"\u0061":1}`, `{"a":1,"a":2}`, "{\"a\x01\":1}", `[1]`, `"x"`, ``, `{"a":tru}`,
	}
	for range 300 {
		data := must.NotFail(Marshal(randomDocument(r)))
		if len(data) > 2000 {
			continue
		}
		for range 20 {
			m := []byte(string(data))
			for range 1 + r.IntN(3) {
				m[r.IntN(len(m))] = alphabet[r.IntN(len(alphabet))]
			}
			inputs = append(inputs, string(m))
		}
	}
	for _, in := range inputs {
		data := []byte(in)
		fields, ok := splitObject(data)
		if !ok {
			continue
		}
		want, err := splitObjectJSON(data)
		if err == nil {
			sameFields(t, data, fields, want)
			continue
		}
		invalid := false
		for _, v := range fields {
			if !json.Valid(v) {
				invalid = true
			}
		}
		if !invalid {
			t.Errorf("splitObject accepted %q, every value valid, but encoding/json says %v", in, err)
		}
	}
}

// TestFastBase64 decodes binary values as encoding/json does, and declines what it cannot decode alike.
func TestFastBase64(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	var inputs []string
	for n := range 200 {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(r.Uint32())
		}
		inputs = append(inputs, string(must.NotFail(json.Marshal(b))))
	}
	inputs = append(inputs, `""`, `"QQ=="`, `"QQ"`, `"Q"`, `"\u0051Q=="`, "\"QQ\n==\"", `"QQ==""`, `"Q Q=="`, `"QQ==`,
		`QQ==`, `"`+strings.Repeat("A", 4)+`\/"`, `"-_8="`, `"ü"`, `null`)
	for _, in := range inputs {
		got, ok := decodeBase64String([]byte(in))
		var want []byte
		err := json.Unmarshal([]byte(in), &want)
		switch {
		case ok && err != nil:
			t.Errorf("%q: fast path decoded %x, encoding/json says %v", in, got, err)
		case ok && !bytes.Equal(got, want):
			t.Errorf("%q: fast path %x, encoding/json %x", in, got, want)
		}
	}
}

// TestUnmarshalFields: only the fields asked for are decoded (PATCHES.md item 14); nil asks for all.
func TestUnmarshalFields(t *testing.T) {
	doc := must.NotFail(types.NewDocument("_id", types.NewObjectID(), "files_id", "f", "n", int32(3), "data", types.Binary{B: make([]byte, 1<<20)}))
	b := must.NotFail(Marshal(doc))
	got, err := UnmarshalFields(b, []string{"files_id", "n"})
	if err != nil {
		t.Fatal(err)
	}
	if keys := got.Keys(); len(keys) != 2 || keys[0] != "files_id" || keys[1] != "n" || must.NotFail(got.Get("n")) != int32(3) {
		t.Errorf("UnmarshalFields(files_id, n): %v", got)
	}
	if allocs := testing.AllocsPerRun(10, func() { UnmarshalFields(b, []string{"n"}) }); allocs > 100 {
		t.Errorf("%v allocations", allocs)
	}
	all, err := UnmarshalFields(b, nil)
	if err != nil || all.Len() != 4 {
		t.Errorf("UnmarshalFields(nil): %v, %v", all, err)
	}
}
