// gridfsd patch (PATCHES.md item 2): in-place encoding against the Go driver's BSON.

package wirebson

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/gridfsd/gridfsd/third_party/mongo-driver/bson"
)

// randomPair returns one random value twice: as wirebson holds it and as the
// Go driver's bson package does, nested up to depth.
func randomPair(r *rand.Rand, depth int) (any, any) {
	switch n := r.IntN(12); {
	case n == 0 && depth > 0:
		d, e := MakeDocument(0), bson.D{}
		for i := range r.IntN(4) {
			v, w := randomPair(r, depth-1)
			d.Add(fmt.Sprintf("k%d", i), v)
			e = append(e, bson.E{Key: fmt.Sprintf("k%d", i), Value: w})
		}
		return d, e
	case n == 1 && depth > 0:
		a, e := MakeArray(0), bson.A{}
		for range r.IntN(12) {
			v, w := randomPair(r, depth-1)
			a.Add(v)
			e = append(e, w)
		}
		return a, e
	case n == 2:
		b := make([]byte, r.IntN(3000))
		for i := range b {
			b[i] = byte(r.Uint32())
		}
		st := []byte{0, 4, 5, 0x80}[r.IntN(4)] // not 2: the driver writes the old binary's inner length
		return Binary{B: b, Subtype: BinarySubtype(st)}, bson.Binary{Subtype: st, Data: b}
	case n == 3:
		s := []string{"", "x", "ünïcødé"}[r.IntN(3)]
		return s, s
	case n == 4:
		v := r.Int32()
		return v, v
	case n == 5:
		v := r.Int64()
		return v, v
	case n == 6:
		v := []float64{0, -1.5, 1e300}[r.IntN(3)]
		return v, v
	case n == 7:
		id := bson.NewObjectID()
		return ObjectID(id), id
	case n == 8:
		v := r.IntN(2) == 0
		return v, v
	case n == 9:
		ms := r.Int64N(1 << 40)
		return time.UnixMilli(ms).UTC(), bson.DateTime(ms)
	case n == 10:
		return Null, nil
	default:
		t, i := r.Uint32(), r.Uint32()
		return Timestamp(uint64(t)<<32 | uint64(i)), bson.Timestamp{T: t, I: i}
	}
}

func TestEncodeMatchesDriver(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 2000 {
		d, e := MakeDocument(0), bson.D{}
		arr, arrD := MakeArray(0), bson.A{}
		for i := range 1 + r.IntN(5) {
			v, w := randomPair(r, 4)
			d.Add(fmt.Sprintf("f%d", i), v)
			e = append(e, bson.E{Key: fmt.Sprintf("f%d", i), Value: w})
			arr.Add(v)
			arrD = append(arrD, w)
		}
		got, err := d.Encode()
		if err != nil {
			t.Fatal(err)
		}
		want, err := bson.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("Document.Encode:\n%x\nthe driver:\n%x", []byte(got), want)
		}
		gotArr, err := arr.Encode()
		if err != nil {
			t.Fatal(err)
		}
		_, wantArr, err := bson.MarshalValue(arrD)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(gotArr, wantArr) {
			t.Fatalf("Array.Encode:\n%x\nthe driver:\n%x", []byte(gotArr), wantArr)
		}
	}
}

// failWriter fails its n-th write.
type failWriter struct{ n int }

func (w *failWriter) step() error {
	if w.n--; w.n == 0 {
		return errors.New("broken")
	}
	return nil
}
func (w *failWriter) Write(p []byte) (int, error)       { return len(p), w.step() }
func (w *failWriter) WriteByte(byte) error              { return w.step() }
func (w *failWriter) WriteString(s string) (int, error) { return len(s), w.step() }

// TestEncodeToMatchesEncode (gridfsd patch, PATCHES.md item 3): a document written to a writer
// (a small bufio.Writer, so that values pass through it and its buffer fills midway) is the bytes
// Encode returns, of the length Size says; a writer's error is returned.
func TestEncodeToMatchesEncode(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for range 2000 {
		d := MakeDocument(0)
		for i := range 1 + r.IntN(5) {
			v, _ := randomPair(r, 4)
			d.Add(fmt.Sprintf("f%d", i), v)
		}
		want, err := d.Encode()
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		w := bufio.NewWriterSize(&out, 16)
		if err := d.EncodeTo(w); err != nil {
			t.Fatal(err)
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(out.Bytes(), want) {
			t.Fatalf("EncodeTo:\n%x\nEncode:\n%x", out.Bytes(), []byte(want))
		}
		if d.Size() != len(want) {
			t.Fatalf("Size %d, encoded %d bytes", d.Size(), len(want))
		}
		if err := d.EncodeTo(&failWriter{n: 1 + r.IntN(3)}); err == nil {
			t.Fatal("EncodeTo: no error from a failing writer")
		}
	}
}
